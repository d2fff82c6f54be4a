"""The micro policy and its GRPO trainer, in the real simulator."""

from __future__ import annotations

import torch

from transfer.policies.micro import Featurizer, MicroPolicy, instruction_spans, load_micro_policy, pack, typed_spans
from transfer.tasks.loader import get_template
from transfer.train.grpo import GRPOConfig, GRPOTrainer


def test_instruction_spans() -> None:
    spans = instruction_spans('Add a contact named Priya Carter with phone +1 702 555 0144 and label “Work”.')
    assert "Priya Carter" in spans and "+1 702 555 0144" in spans and "Work" in spans


def test_spans_include_what_form_fields_need() -> None:
    """A form wants a time's hour and minutes, a phone's bare digits, a name's parts, in any script."""
    spans = instruction_spans("Wake me up at 7:45 PM and text Łukasz Kowalski at (206) 555-0100.")
    assert {"7", "19", "45", "2065550100", "Łukasz Kowalski", "Łukasz", "Kowalski"} <= set(spans), spans
    kinds = dict(typed_spans("Rename map_lisbon.png to contract_signed.png."))
    assert kinds.get("contract_signed.png") == "file"
    assert "Perfect, merci !" in instruction_spans("Send “Perfect, merci !” to Maya.")


def test_batched_scoring_matches_one_decision_at_a_time(sim_pool) -> None:
    """Training scores many decisions in one pass; each must get exactly the logits acting would give it."""
    from sim.env import SimEnv

    feat, net = Featurizer(), MicroPolicy(seed=0).net
    obs = SimEnv(pool=sim_pool).reset(get_template("settings.wifi_on").instantiate(0))
    decisions = [(p, feat.candidates(obs, p, [])) for p in ("Turn on Wi-Fi.", "Open the clock", "Call Maya Chen")]
    batched = net.score([pack(p, c) for p, c in decisions])
    for (p, c), b in zip(decisions, batched):
        assert torch.allclose(net(p, c), b, atol=1e-5)


def test_oracle_demos_are_cached_covered_and_learnable(tmp_path, sim_pool) -> None:
    """Every oracle step of a train task is a candidate; the cache replays without the sim; BC fits the demo."""
    from transfer.train.bc import accuracy, collect_demos, train_bc

    inst = get_template("train.settings.location_on").instantiate(0)
    cache = tmp_path / "demos.jsonl.gz"
    demos, stats = collect_demos([inst], pool=sim_pool, cache=cache)
    assert stats["steps"] >= 3 and stats["kept"] == stats["steps"], stats
    again, stats2 = collect_demos([inst], pool=None, cache=cache)  # no pool: must come from the cache
    assert stats2 == stats and [d["choice"] for d in again] == [d["choice"] for d in demos]
    net = MicroPolicy(seed=0).net
    log: list[dict] = []
    losses = train_bc(net, demos, epochs=30, lr=1e-2, batch=4, log=log)
    assert losses[-1] < losses[0] / 4 and accuracy(net, demos) == 1.0, log[-1]


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


def test_quick_demo_runs_the_shortest_tasks() -> None:
    """The quick demo's tasks are fixed by the task definitions (fewest expert steps), not by any policy."""
    from s2r.commands.paired import quick_tasks
    from transfer.tasks.loader import load_templates

    steps = {t.id: t.golden_steps for t in load_templates("real59")}
    quick = quick_tasks("real59")
    assert len(quick) == 10 and len(set(quick)) == 10 and set(quick) <= set(steps)
    assert max(steps[t] for t in quick) <= min(steps[t] for t in steps if t not in quick)
