"""``s2r train``: train the micro policy in the simulator (behaviour cloning, GRPO)."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from s2r.commands import flavors_option

train_app = typer.Typer(help="Train policies in the simulator.", no_args_is_help=True)


@train_app.command("grpo")
def grpo(
    init: str = typer.Option("base", help="Starting checkpoint (directory, or bundled name: base)."),
    out: Path = typer.Option(..., "--out", help="Output directory: checkpoints, train_log.jsonl, curve.png."),
    split: str = typer.Option("train", help="Task split to train on."),
    templates: str = typer.Option(None, help="Comma-separated template ids (default: the whole split)."),
    iters: int = typer.Option(30), batch: int = typer.Option(4), group: int = typer.Option(8),
    lr: float = typer.Option(3e-3), kl: float = typer.Option(0.01), seed: int = typer.Option(0),
    flavors: str = typer.Option("sim", help="Domain randomization over app flavors, e.g. sim,aosp,google.",
                                callback=flavors_option),
    profiles: str = typer.Option("default", help="Domain randomization over device profiles."),
    workers: int = typer.Option(2, help="Rollouts in parallel."),
    pages: int = typer.Option(3, help="Browser pages per profile."),
    max_steps: int = typer.Option(14, help="Step cap per rollout (below the task's own budget)."),
) -> None:
    """GRPO from forked identical initial states with dense, progress-shaped rewards."""
    from transfer.policies.micro import MicroPolicy, load_micro_policy
    from transfer.train.grpo import GRPOConfig, GRPOTrainer

    import sys

    if split in ("real59", "test"):
        raise typer.BadParameter(f"refusing to train on the evaluation split {split!r}", param_hint="--split")
    pol = MicroPolicy() if init == "scratch" else load_micro_policy(init)
    prior = Path(init) / "train_log.jsonl"
    prior_log = [json.loads(x) for x in prior.read_text().splitlines() if x.strip()] if prior.is_file() else []
    cfg = GRPOConfig(split=split, templates=templates.split(",") if templates else None, iters=iters, batch=batch,
                     group=group, lr=lr, kl=kl, seed=seed, flavors=flavors.split(","), profiles=profiles.split(","),
                     workers=workers, max_steps=max_steps, pages=pages)
    hist = GRPOTrainer(cfg, pol, out, prior_log=prior_log, command=" ".join(["s2r", *sys.argv[1:]])).train()
    typer.echo(json.dumps({"iters": len(hist), "first_reward": hist[0]["mean_reward"],
                           "last_reward": hist[-1]["mean_reward"], "out": str(out)}))


@train_app.command("bc")
def bc(
    out: Path = typer.Option(..., "--out", help="Checkpoint dir: model.pt, meta.json, train_log.jsonl, curve.png."),
    init: str = typer.Option("scratch", help="Starting checkpoint (directory, bundled name, or scratch)."),
    split: str = typer.Option("train", help="Task split whose oracle demos are cloned."),
    templates: int = typer.Option(0, help="Only a seeded random subset of N templates (0 = all)."),
    seeds: int = typer.Option(1, help="Instances per template (seeds 0..N-1)."),
    epochs: int = typer.Option(10), lr: float = typer.Option(1e-2), batch: int = typer.Option(16),
    seed: int = typer.Option(0),
    cache: Path = typer.Option(Path("runs/demos/oracle-sim.jsonl.gz"), help="Demo cache (gzipped JSONL)."),
    flavors: str = typer.Option("sim", help="Record demos in each of these app flavors (domain randomization), "
                                "e.g. sim,aosp,google.", callback=flavors_option),
) -> None:
    """Behaviour cloning from oracle demonstrations recorded in the simulator (cached on disk)."""
    import sys

    from transfer.train.bc import make_bc_checkpoint

    if split in ("real59", "test"):
        raise typer.BadParameter(f"refusing to clone demos of the evaluation split {split!r}", param_hint="--split")
    res = make_bc_checkpoint(out=out, init=init, split=split, templates=templates, seeds=seeds, epochs=epochs, lr=lr,
                             batch=batch, seed=seed, cache=cache, command=" ".join(["s2r", *sys.argv[1:]]),
                             flavors=tuple(f.strip() for f in flavors.split(",") if f.strip()))
    typer.echo(json.dumps(res))


def register(app: typer.Typer) -> None:
    app.add_typer(train_app, name="train")
