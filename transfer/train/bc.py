"""Behaviour cloning of the micro policy from oracle demonstrations (in the simulator).

Used to make the ``base`` checkpoint: a policy with some competence (it has seen a few
demonstrations) that GRPO then improves. A demonstration step is kept when the oracle's
action is one of the micro policy's candidates (same tap target, same typed span, same app,
same answer text); other steps (e.g. a tap at a slider position) are skipped.
"""

from __future__ import annotations

import random
from typing import Any

import torch

from actionmap.actions import Action
from actionmap.parse import ActionParseError

from ..policies.base import StepRecord
from ..policies.micro import Candidate, Featurizer, MicroNet


def _same(c: Candidate, a: Action) -> bool:
    ca = c.action
    if ca.type != a.type:
        return False
    if a.type == "tap":
        return getattr(ca, "target", None) is not None and getattr(a, "target", None) == ca.target
    if a.type == "type":
        return ca.text.strip().lower() == a.text.strip().lower()
    if a.type == "scroll":
        return ca.direction == a.direction
    if a.type == "key":
        return ca.key == a.key
    if a.type == "open_app":
        return ca.app == a.app
    if a.type == "answer":
        return [str(v).strip().lower() for v in ca.fields.values()] == [str(v).strip().lower() for v in a.fields.values()]
    return a.type == "complete"


def collect_demos(instances: list[Any], flavor: str = "sim", pool: Any = None) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """Run the oracle on each instance; return cloneable steps and coverage counts."""
    from sim.env import SimEnv

    from ..policies.oracle_policy import OraclePolicy

    feat = Featurizer()
    demos: list[dict[str, Any]] = []
    stats = {"episodes": 0, "steps": 0, "kept": 0}
    for inst in instances:
        env = SimEnv(flavor=flavor, pool=pool, screenshots=False)  # type: ignore[arg-type]
        obs = env.reset(inst)
        pol = OraclePolicy()
        prompt = inst.prompt()
        pol.reset(prompt, {"instance": inst, "flavor": flavor})
        history: list[StepRecord] = []
        stats["episodes"] += 1
        for i in range(inst.max_steps):
            a = pol.act(obs, history)
            if isinstance(a, ActionParseError) or a.type == "abort":
                break
            cands = feat.candidates(obs, prompt, history)
            idx = next((k for k, c in enumerate(cands) if _same(c, a)), None)
            stats["steps"] += 1
            if idx is not None:
                demos.append({"instruction": prompt, "cands": cands, "choice": idx})
                stats["kept"] += 1
            obs, info = env.step(a)
            history.append(StepRecord(step=i + 1, action=a.to_json(), invalid=info.invalid_action))
            if info.done:
                break
    return demos, stats


def train_bc(net: MicroNet, demos: list[dict[str, Any]], epochs: int = 3, lr: float = 3e-3, seed: int = 0) -> list[float]:
    """Cross-entropy over candidates; returns the mean loss per epoch."""
    rng = random.Random(seed)
    torch.manual_seed(seed)
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    losses = []
    net.train()
    for _ in range(epochs):
        order = list(range(len(demos)))
        rng.shuffle(order)
        tot = 0.0
        for i in order:
            d = demos[i]
            logits = net(d["instruction"], d["cands"])
            loss = -torch.log_softmax(logits, 0)[d["choice"]]
            opt.zero_grad()
            loss.backward()
            opt.step()
            tot += float(loss.detach())
        losses.append(tot / max(1, len(demos)))
    net.eval()
    return losses
