"""The micro policy and its GRPO trainer, in the real simulator."""

from __future__ import annotations

import torch

from transfer.policies.micro import Featurizer, MicroPolicy, instruction_spans, load_micro_policy
from transfer.tasks.loader import get_template
from transfer.train.grpo import GRPOConfig, GRPOTrainer


def test_instruction_spans() -> None:
    spans = instruction_spans('Add a contact named Priya Carter with phone +1 702 555 0144 and label “Work”.')
    assert "Priya Carter" in spans and "+1 702 555 0144" in spans and "Work" in spans


def test_candidates_and_save_load_round_trip(tmp_path, sim_pool) -> None:
    from sim.env import SimEnv

    inst = get_template("settings.wifi_on").instantiate(0)
    obs = SimEnv(pool=sim_pool).reset(inst)
    cands = Featurizer().candidates(obs, inst.prompt(), [])
    kinds = {c.kind for c in cands}
    assert {"tap", "scroll_down", "back", "open_app", "complete"} <= kinds
    assert all(len(c.feats) == Featurizer.N_FEATS + Featurizer.N_CTX for c in cands)
    pol = MicroPolicy()
    pol.reset(inst.prompt(), {})
    a1 = pol.act(obs, [])
    digest = pol.save(tmp_path / "ck")
    again = load_micro_policy(tmp_path / "ck")
    again.reset(inst.prompt(), {})
    assert again.act(obs, []) == a1 and again.checkpoint_hash == digest
    assert (tmp_path / "ck" / "model.pt").stat().st_size < 10 * 2**20


def test_grpo_update_moves_probability_toward_the_better_rollout(tmp_path, sim_pool) -> None:
    """Group-normalized advantages: the rewarded choice gains probability relative to the other."""
    from sim.env import SimEnv
    from transfer.policies.micro import logprob_of

    inst = get_template("settings.wifi_on").instantiate(0)
    obs = SimEnv(pool=sim_pool).reset(inst)
    cands = Featurizer().candidates(obs, inst.prompt(), [])
    good = next(i for i, c in enumerate(cands) if c.kind == "open_app" and c.action.app == "settings")
    bad = next(i for i, c in enumerate(cands) if c.kind == "open_app" and c.action.app == "calculator")
    cfg = GRPOConfig(templates=["settings.wifi_on"], iters=1, lr=5e-3, epochs=2, pages=1)
    tr = GRPOTrainer(cfg, MicroPolicy(seed=0), tmp_path)
    steps = []
    for choice in (good, bad):
        s = {"instruction": inst.prompt(), "cands": cands, "choice": choice}
        s["logp"] = float(logprob_of(tr.net, s))
        steps.append(s)
    rewards = torch.tensor([1.0, 0.0])
    adv = ((rewards - rewards.mean()) / rewards.std()).tolist()
    before = [s["logp"] for s in steps]
    losses = tr.update(list(zip(steps, adv)))
    after = [float(logprob_of(tr.net, s)) for s in steps]
    assert len(losses) == cfg.epochs
    # the rewarded choice gains probability, and gains it relative to the unrewarded one
    assert after[0] > before[0], (before, after)
    assert after[0] - after[1] > before[0] - before[1] + 0.05, (before, after)
    # the KL anchor keeps the step small: the reference policy is untouched
    assert abs(float(logprob_of(tr.ref, steps[0])) - before[0]) < 1e-6


def test_grpo_training_run_writes_log_checkpoints_and_curve(tmp_path) -> None:
    cfg = GRPOConfig(templates=["train.settings.location_on"], seeds=[0], iters=2, batch=1, group=4, workers=2,
                     pages=2, max_steps=4, checkpoint_every=1)
    hist = GRPOTrainer(cfg, MicroPolicy(seed=0), tmp_path).train(progress=False)
    assert len(hist) == 2 and all(-2 <= h["mean_reward"] <= 2 for h in hist)
    assert len((tmp_path / "train_log.jsonl").read_text().splitlines()) == 2
    assert (tmp_path / "final" / "model.pt").exists() and (tmp_path / "iter0002" / "meta.json").exists()
    assert (tmp_path / "curve.png").read_bytes()[:4] == b"\x89PNG"
