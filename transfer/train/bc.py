"""Behaviour cloning of the micro policy from oracle demonstrations (in the simulator).

A demonstration step is kept when the oracle's action is one of the micro policy's
candidates (same tap or long-press target, same typed text into the same field, same app,
same answer text); other steps (a tap at a slider position, a drag) are skipped and counted,
so ``coverage`` says how much of the oracle the candidate set can express.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import torch

from actionmap.actions import Action

from ..policies.micro import Candidate, Featurizer, MicroNet, packed
from .demos import collect, step_inputs


def _same(c: Candidate, a: Action) -> bool:
    ca = c.action
    if ca.type != a.type:
        return False
    if a.type in ("tap", "long_press"):
        return getattr(ca, "target", None) is not None and getattr(a, "target", None) == ca.target
    if a.type == "type":
        return ca.text.strip().lower() == a.text.strip().lower() and ca.target == a.target
    if a.type == "scroll":
        return ca.direction == a.direction
    if a.type == "key":
        return ca.key == a.key
    if a.type == "open_app":
        return ca.app == a.app
    if a.type == "answer":
        return [str(v).strip().lower() for v in ca.fields.values()] == [str(v).strip().lower() for v in a.fields.values()]
    return a.type == "complete"


def to_examples(steps: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """Featurize cached demo steps: (instruction, candidates, index of the oracle's action) + coverage counts."""
    feat = Featurizer()
    demos: list[dict[str, Any]] = []
    episodes = {(s["template"], s["seed"], s.get("flavor", "sim")) for s in steps}
    stats = {"episodes": len(episodes), "steps": len(steps), "kept": 0}
    for st in steps:
        obs, prompt, hist, a = step_inputs(st)
        cands = feat.candidates(obs, prompt, hist)
        idx = next((k for k, c in enumerate(cands) if _same(c, a)), None)
        if idx is not None:
            demos.append({"instruction": prompt, "cands": cands, "choice": idx, "template": st["template"]})
            stats["kept"] += 1
    return demos, stats


def collect_demos(instances: list[Any], flavor: str = "sim", pool: Any = None, cache: Path | None = None,
                  ) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """Run the oracle on each instance (or read it from ``cache``); return cloneable steps and coverage."""
    return to_examples(collect(instances, cache=cache, flavor=flavor, pool=pool))


def accuracy(net: MicroNet, demos: list[dict[str, Any]]) -> float:
    """Fraction of demo steps where the greedy policy picks the oracle's action."""
    net.eval()
    with torch.no_grad():
        hits = 0
        for b in range(0, len(demos), 64):
            chunk = demos[b:b + 64]
            logits = net.score([packed(d) for d in chunk])
            hits += sum(int(torch.argmax(lg)) == d["choice"] for lg, d in zip(logits, chunk))
    return hits / max(1, len(demos))


def train_bc(net: MicroNet, demos: list[dict[str, Any]], epochs: int = 3, lr: float = 3e-3, seed: int = 0,
             batch: int = 8, log: list[dict[str, Any]] | None = None) -> list[float]:
    """Cross-entropy over candidates, in mini-batches; returns the mean loss per epoch.

    When ``log`` is given, one record per epoch (loss, demo accuracy) is appended to it.
    """
    rng = random.Random(seed)
    torch.manual_seed(seed)
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    losses = []
    for ep in range(epochs):
        net.train()
        order = list(range(len(demos)))
        rng.shuffle(order)
        tot = 0.0
        for b in range(0, len(order), batch):
            opt.zero_grad()
            chunk = [demos[i] for i in order[b:b + batch]]
            logits = net.score([packed(d) for d in chunk])
            loss = -sum(torch.log_softmax(lg, 0)[d["choice"]] for lg, d in zip(logits, chunk))
            (loss / len(chunk)).backward()
            opt.step()
            tot += float(loss.detach())
        losses.append(tot / max(1, len(demos)))
        if log is not None:
            log.append({"epoch": ep + 1, "bc_loss": losses[-1], "bc_accuracy": accuracy(net, demos)})
    net.eval()
    return losses


def split_instances(split: str, seeds: int, templates: int = 0, seed: int = 0) -> list[Any]:
    """Instances of ``split`` templates that have an oracle solution: ``templates`` of them (0 = all, else a
    seeded random subset), each with instance seeds 0..seeds-1."""
    from ..oracle.solutions import solution_for
    from ..tasks.loader import get_template, load_templates

    ids = sorted(t.id for t in load_templates(split) if solution_for(t.id) is not None)
    if templates:
        random.Random(seed).shuffle(ids)
        ids = sorted(ids[:templates])
    return [get_template(t).instantiate(s) for s in range(seeds) for t in ids]


def run_bc(net: MicroNet, instances: list[Any], *, cache: Path | None, epochs: int, lr: float, seed: int,
           batch: int = 16, pages: int = 1, flavors: tuple[str, ...] = ("sim",),
           ) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """Collect (or read cached) oracle demos for ``instances`` in the sim and clone them into ``net``.

    ``flavors``: record every instance in each of these app flavors (domain randomization: the
    same task, different app structure and wording, so the policy learns what the flavors share).
    Returns the per-epoch log (``phase: bc``, loss, accuracy on the demos) and the coverage counts.
    """
    from sim.pool import SimPool
    from sim.runtime import Runtime

    pool = SimPool(Runtime.get(), pages_per_profile=pages)
    try:
        steps = [st for fl in flavors for st in collect(instances, cache=cache, flavor=fl, pool=pool)]
    finally:
        pool.rt.run(pool.close())
    demos, stats = to_examples(steps)
    log: list[dict[str, Any]] = []
    train_bc(net, demos, epochs=epochs, lr=lr, seed=seed, batch=batch, log=log)
    return [{"phase": "bc", **r} for r in log], stats


def make_bc_checkpoint(*, out: Path, init: str, split: str, templates: int, seeds: int, epochs: int, lr: float,
                       batch: int, seed: int, cache: Path | None, command: str,
                       flavors: tuple[str, ...] = ("sim",)) -> dict[str, Any]:
    """Clone demos into ``init`` (a checkpoint, or ``scratch``) and write a checkpoint directory with its
    training log, curve and the exact ``command`` that made it."""
    import json

    from ..policies.micro import MicroPolicy, load_micro_policy
    from .grpo import plot_curve

    torch.set_num_threads(1)  # one thread: bit-identical checkpoints run to run (and kind to a shared CPU)
    torch.manual_seed(seed)
    pol = MicroPolicy() if init == "scratch" else load_micro_policy(init)
    insts = split_instances(split, seeds, templates, seed)
    log, stats = run_bc(pol.net, insts, cache=cache, epochs=epochs, lr=lr, seed=seed, batch=batch, flavors=flavors)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    with (out / "train_log.jsonl").open("w") as f:
        f.writelines(json.dumps(r) + "\n" for r in log)
    plot_curve(log, out / "curve.png")
    digest = pol.save(out, meta={"made_by": "behaviour cloning (transfer/train/bc.py)", "command": command,
                                 "init": init, "split": split, "templates": sorted({i.template_id for i in insts}),
                                 "seeds": seeds, "flavors": list(flavors), "epochs": epochs, "lr": lr, "batch": batch,
                                 "seed": seed,
                                 "demo_stats": stats, "bc_final": log[-1] if log else None})
    return {"out": str(out), "hash": digest, **stats, "final": log[-1] if log else None}
