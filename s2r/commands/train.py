"""``s2r train``: train the micro policy in the simulator (behaviour cloning, GRPO)."""

from __future__ import annotations

import json
from pathlib import Path

import typer

train_app = typer.Typer(help="Train policies in the simulator.", no_args_is_help=True)


@train_app.command("grpo")
def grpo(
    init: str = typer.Option("base", help="Starting checkpoint (directory, or bundled name: base)."),
    out: Path = typer.Option(..., "--out", help="Output directory: checkpoints, train_log.jsonl, curve.png."),
    split: str = typer.Option("train", help="Task split to train on."),
    templates: str = typer.Option(None, help="Comma-separated template ids (default: the whole split)."),
    iters: int = typer.Option(30), batch: int = typer.Option(4), group: int = typer.Option(8),
    lr: float = typer.Option(3e-3), kl: float = typer.Option(0.01), seed: int = typer.Option(0),
    flavors: str = typer.Option("sim", help="Domain randomization over flavors, e.g. sim,aosp."),
    profiles: str = typer.Option("default", help="Domain randomization over device profiles."),
    workers: int = typer.Option(4, help="Rollouts in parallel."),
    max_steps: int = typer.Option(14, help="Step cap per rollout (below the task's own budget)."),
) -> None:
    """GRPO from forked identical initial states with dense, progress-shaped rewards."""
    from transfer.policies.micro import MicroPolicy, load_micro_policy
    from transfer.train.grpo import GRPOConfig, GRPOTrainer

    pol = MicroPolicy() if init == "scratch" else load_micro_policy(init)
    cfg = GRPOConfig(split=split, templates=templates.split(",") if templates else None, iters=iters, batch=batch,
                     group=group, lr=lr, kl=kl, seed=seed, flavors=flavors.split(","), profiles=profiles.split(","),
                     workers=workers, max_steps=max_steps)
    hist = GRPOTrainer(cfg, pol, out).train()
    typer.echo(json.dumps({"iters": len(hist), "first_reward": hist[0]["mean_reward"],
                           "last_reward": hist[-1]["mean_reward"], "out": str(out)}))


def register(app: typer.Typer) -> None:
    app.add_typer(train_app, name="train")
