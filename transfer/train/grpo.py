"""GRPO for the micro policy, in the simulator.

For each task instance a group of rollouts starts from *forked identical* initial states
(one reset, G exact copies), so the only difference between them is the policy's sampling.
Rewards are dense and progress-shaped (success + progress − side effects − false complete,
from the same judge that scores evaluations); advantages are normalized within the group;
the loss is the clipped surrogate with DAPO-style asymmetric clipping plus a KL penalty to
the initial (reference) policy. This mirrors the recipe of the reference study (group 8,
KL 0.01, asymmetric clip, dense reward) at micro scale.
"""

from __future__ import annotations

import copy
import json
import random
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import torch


from ..policies.base import StepRecord
from ..policies.micro import MicroNet, MicroPolicy, logprob_of


@dataclass
class GRPOConfig:
    split: str = "train"
    templates: list[str] | None = None
    seeds: list[int] | None = None  # fixed instance seeds (default: fresh seeds every iteration)
    iters: int = 30
    batch: int = 4                  # task instances per iteration
    group: int = 8                  # rollouts per instance
    lr: float = 3e-3
    kl: float = 0.01
    clip_low: float = 0.2
    clip_high: float = 0.28
    epochs: int = 2
    temperature: float = 1.0
    max_steps: int = 14
    seed: int = 0
    flavors: list[str] = field(default_factory=lambda: ["sim"])
    profiles: list[str] = field(default_factory=lambda: ["default"])
    workers: int = 4
    pages: int = 3
    w_success: float = 1.0
    w_progress: float = 0.5
    w_side_effects: float = 0.3
    w_false_complete: float = 0.5
    w_app: float = 0.2              # shaping: the episode ended inside one of the task's apps
    checkpoint_every: int = 10


def reward_of(verdict: Any, cfg: GRPOConfig, in_app: bool = False) -> float:
    """Dense, progress-shaped: success + progress (+ being in the task's app) − side effects − false complete."""
    return (cfg.w_success * float(bool(verdict.success)) + cfg.w_progress * verdict.progress
            + cfg.w_app * float(in_app and not verdict.success)
            - cfg.w_side_effects * min(1, len(verdict.side_effects)) - cfg.w_false_complete * float(verdict.false_complete))


def rollout(env: Any, net: MicroNet, instance: Any, seed: int, cfg: GRPOConfig) -> dict[str, Any]:
    """One sampled episode from the env's current state (a forked page whose setup already ran),
    on the one episode loop (:class:`transfer.episode_loop.Episode`); returns steps with old
    log-probs and the verdict."""
    from ..episode_loop import Episode

    pol = MicroPolicy(net, sample=True, temperature=cfg.temperature, seed=seed)
    pol.reset(instance.prompt(), {"instance": instance})
    ep = Episode(env, instance, max_steps=min(instance.max_steps, cfg.max_steps))
    obs = ep.attach(env.observe(), before=env.read_state())
    history: list[StepRecord] = []
    while not ep.over:
        out = ep.step(pol.act(obs, history))
        if out.action is not None:
            obs = out.observation
            history.append(StepRecord(step=out.step, action=out.action.to_json(), invalid=out.invalid))
    if ep.ended_by == "infra":  # a crashed page is not the policy's result: no reward to learn from
        raise RuntimeError(f"simulator page failed during a rollout of {instance.template_id}: "
                           f"{out.info.error if out.info else 'unknown'}")
    verdict = ep.finish()
    in_app = ep.after.foreground.app in set(instance.apps)
    return {"steps": pol.trajectory, "verdict": verdict, "reward": reward_of(verdict, cfg, in_app), "len": len(history)}


class GRPOTrainer:
    def __init__(self, cfg: GRPOConfig, init: MicroPolicy, out: Path, prior_log: list[dict[str, Any]] | None = None,
                 command: str | None = None):
        from sim.pool import SimPool
        from sim.runtime import Runtime

        self.cfg, self.out = cfg, Path(out)
        self.policy = init
        self.net = init.net
        self.ref = copy.deepcopy(init.net).eval()
        for p in self.ref.parameters():
            p.requires_grad_(False)
        self.opt = torch.optim.Adam(self.net.parameters(), lr=cfg.lr)
        self.pool = SimPool(Runtime.get(), pages_per_profile=cfg.pages)
        self.rng = random.Random(cfg.seed)
        torch.manual_seed(cfg.seed)
        self.history: list[dict[str, Any]] = []
        self.prior_log = list(prior_log or [])  # e.g. the behaviour-cloning epochs that made ``init``
        self.command = command

    def _instances(self) -> list[Any]:
        from ..tasks.loader import get_template, load_templates

        ids = self.cfg.templates or [t.id for t in load_templates(self.cfg.split)]
        def seed() -> int:
            return self.rng.choice(self.cfg.seeds) if self.cfg.seeds else self.rng.randrange(10_000)

        return [get_template(self.rng.choice(ids)).instantiate(seed()) for _ in range(self.cfg.batch)]

    def evaluate(self, instances: list[Any]) -> float:
        """Mean reward of the greedy policy on ``instances`` (deterministic)."""
        from sim.env import SimEnv

        greedy = copy.copy(self.cfg)
        greedy.temperature = 1e-3
        total = 0.0
        for inst in instances:
            env = SimEnv(pool=self.pool, screenshots=False)
            env.reset(inst)
            total += rollout(env, self.net, inst, 0, greedy)["reward"]
        return total / max(1, len(instances))

    def _group(self, instance: Any, it: int, k: int) -> list[dict[str, Any]]:
        from sim.env import SimEnv

        flavor = self.rng.choice(self.cfg.flavors)
        profile = self.rng.choice(self.cfg.profiles)
        root = SimEnv(profile, flavor, pool=self.pool, screenshots=False)  # type: ignore[arg-type]
        root.reset(instance)
        envs = [root.fork() for _ in range(self.cfg.group)]
        self.net.eval()
        with ThreadPoolExecutor(max_workers=self.cfg.workers) as ex:
            futs = [ex.submit(rollout, e, self.net, instance, hash((self.cfg.seed, it, k, g)) & 0xFFFFFFFF, self.cfg)
                    for g, e in enumerate(envs)]
            return [f.result() for f in futs]

    def step(self, it: int) -> dict[str, Any]:
        t0 = time.time()
        batch = []
        groups = []
        for k, inst in enumerate(self._instances()):
            g = self._group(inst, it, k)
            groups.append((inst, g))
            rs = torch.tensor([r["reward"] for r in g])
            adv = (rs - rs.mean()) / (rs.std() + 1e-6) if rs.std() > 1e-6 else torch.zeros_like(rs)
            for r, a in zip(g, adv.tolist()):
                for s in r["steps"]:
                    batch.append((s, a))
        losses = self.update(batch)
        all_r = [r for _, g in groups for r in g]
        rec = {"phase": "grpo", "iter": it, "mean_reward": sum(r["reward"] for r in all_r) / len(all_r),
               "success_rate": sum(bool(r["verdict"].success) for r in all_r) / len(all_r),
               "mean_progress": sum(r["verdict"].progress for r in all_r) / len(all_r),
               "mean_len": sum(r["len"] for r in all_r) / len(all_r),
               "loss": losses[-1] if losses else 0.0, "seconds": time.time() - t0,
               "tasks": [inst.template_id for inst, _ in groups]}
        self.history.append(rec)
        return rec

    def update(self, batch: list[tuple[dict[str, Any], float]]) -> list[float]:
        """One GRPO update over (step, advantage) pairs: clipped surrogate (asymmetric) + KL to the reference."""
        self.net.train()
        losses: list[float] = []
        active = [(s, a) for s, a in batch if a != 0.0]
        for _ in range(self.cfg.epochs if active else 0):
            self.rng.shuffle(active)
            self.opt.zero_grad()
            total = torch.zeros(())
            for s, a in active:
                logp = logprob_of(self.net, s, self.cfg.temperature)
                ratio = torch.exp(logp - s["logp"])
                surr = torch.minimum(ratio * a, torch.clamp(ratio, 1 - self.cfg.clip_low, 1 + self.cfg.clip_high) * a)
                with torch.no_grad():
                    ref = logprob_of(self.ref, s, self.cfg.temperature)
                kl = torch.exp(ref - logp) - (ref - logp) - 1
                total = total + (-surr + self.cfg.kl * kl)
            loss = total / len(active)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(self.net.parameters(), 1.0)
            self.opt.step()
            losses.append(float(loss.detach()))
        self.net.eval()
        return losses

    def train(self, progress: bool = True) -> list[dict[str, Any]]:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self.out.mkdir(parents=True, exist_ok=True)
        with Progress(TextColumn("[bold]GRPO"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                      TextColumn("{task.fields[info]}"), disable=not progress) as prog:
            task = prog.add_task("iters", total=self.cfg.iters, info="")
            for it in range(self.cfg.iters):
                rec = self.step(it)
                prog.update(task, advance=1, info=f"reward {rec['mean_reward']:.2f} SR {rec['success_rate']:.0%}")
                with (self.out / "train_log.jsonl").open("a") as f:
                    f.write(json.dumps(rec) + "\n")
                if (it + 1) % self.cfg.checkpoint_every == 0 or it + 1 == self.cfg.iters:
                    self.policy.save(self.out / f"iter{it + 1:04d}", meta={"iter": it + 1, "config": asdict(self.cfg)})
        final = self.out / "final"
        self.policy.save(final, meta={"iters": self.cfg.iters, "config": asdict(self.cfg), "command": self.command})
        # the final checkpoint is self-contained: its whole training log (prior phases first) and curve
        full = self.prior_log + self.history
        with (final / "train_log.jsonl").open("w") as f:
            f.writelines(json.dumps(r) + "\n" for r in full)
        plot_curve(full, final / "curve.png")
        plot_curve(self.history, self.out / "curve.png")
        self.pool.rt.run(self.pool.close())
        return self.history


def plot_curve(history: list[dict[str, Any]], path: Path) -> None:
    """Training curves: behaviour-cloning epochs (loss, demo accuracy) and/or GRPO iterations (reward, SR)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    bc = [h for h in history if h.get("phase") == "bc"]
    rl = [h for h in history if h.get("phase", "grpo") == "grpo"]
    panels = [p for p in (bc, rl) if p]
    fig, axes = plt.subplots(1, max(1, len(panels)), figsize=(6 * max(1, len(panels)), 3.2), dpi=120, squeeze=False)
    ax_iter = iter(axes[0])
    if bc:
        ax = next(ax_iter)
        ep = [h["epoch"] for h in bc]
        ax.plot(ep, [h["bc_loss"] for h in bc], label="BC loss", color="#b3261e")
        ax.plot(ep, [h["bc_accuracy"] for h in bc], label="oracle-action accuracy", color="#1e8e3e")
        ax.set_xlabel("behaviour-cloning epoch")
        ax.set_title("micro policy: cloning oracle demos (sim, train split)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    if rl:
        ax = next(ax_iter)
        it = [h["iter"] + 1 for h in rl]
        ax.plot(it, [h["mean_reward"] for h in rl], label="mean reward", color="#6750a4")
        ax.plot(it, [h["success_rate"] for h in rl], label="success rate", color="#1e8e3e")
        if len(it) >= 5:
            import numpy as np

            r = np.convolve([h["mean_reward"] for h in rl], np.ones(5) / 5, mode="valid")
            ax.plot(it[4:], r, label="reward (5-iter mean)", color="#6750a4", alpha=0.4, linewidth=3)
        ax.set_xlabel("GRPO iteration")
        ax.set_title("micro policy: GRPO in the simulator")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
