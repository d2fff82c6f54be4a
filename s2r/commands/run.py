"""``s2r run``: single-backend evaluation runs into a resumable run directory."""

from __future__ import annotations

import json
import time
from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table


def register(app: typer.Typer) -> None:
    @app.command("run")
    def run_cmd(
        out: Path = typer.Option(..., "--out", help="Run directory (created; resumable)."),
        policy: list[str] = typer.Option(["oracle"], "--policy", help="NAME=SPEC or SPEC (oracle, random[:SEED], micro:PATH)."),
        sim: bool = typer.Option(False, "--sim", help="Run on simulated phones."),
        device: str = typer.Option(None, "--device", help="Run on devices: all | SERIAL[,SERIAL] | vdevice:N."),
        flavor: str = typer.Option("sim", help="Sim flavor: sim or aosp."),
        profile: str = typer.Option("default", help="Sim device profile."),
        split: str = typer.Option("real59", help="Task split."),
        tasks: str = typer.Option(None, help="Comma-separated template ids (default: the whole split)."),
        seeds: int = typer.Option(1, help="Instances per template (seeds 0..N-1)."),
        repeats: int = typer.Option(1, help="Episodes per (policy, instance, backend)."),
        workers: int = typer.Option(2, help="Episodes in parallel."),
        resume: bool = typer.Option(False, "--resume", help="Continue the run in OUT without duplicates."),
        limit: int = typer.Option(0, help="Only the first N templates (quick runs)."),
        test_recipient: str = typer.Option(None, "--test-recipient", metavar="NUMBER",
                                           help="A phone number you own: tasks that send an SMS (or call) contact "
                                                "only it; on a real phone such tasks are refused without it."),
        destructive: bool = typer.Option(False, "--destructive",
                                         help="Allow resets that wipe phone data (pm clear, shared storage). "
                                              "Dedicated test phones only; off unless given."),
    ) -> None:
        """Run policies on one backend and write episodes.jsonl + traces."""
        from transfer.session import Session

        if not sim and not device:
            raise typer.BadParameter("choose a backend: --sim or --device SPEC")
        sess = Session.create(out=out, policies=policy, split=split, tasks=tasks, seeds=seeds, repeats=repeats,
                              sim=sim, flavor=flavor, profile=profile, device=device, workers=workers,
                              resume=resume, limit=limit, test_recipient=test_recipient, destructive=destructive)
        t0 = time.time()
        try:
            recs = sess.run()
        except KeyboardInterrupt:
            Console().print(f"[yellow]interrupted[/]: finished episodes are in {out}; rerun with --resume")
            raise typer.Exit(130)
        finally:
            sess.close()
        _summary(sess.rundir.records(), time.time() - t0, out)


def _summary(recs: list, elapsed: float, out: Path) -> None:
    by: dict[tuple[str, str, str], list] = {}
    for r in recs:
        by.setdefault((r.policy, r.backend, r.target), []).append(r)
    t = Table(title=f"run summary ({elapsed:.0f} s) — {out}")
    for c in ("policy", "backend", "target", "episodes", "SR", "PR", "infra err", "undetermined", "unsupported",
              "mean steps"):
        t.add_column(c)
    for (p, b, tg), rs in sorted(by.items()):
        counted = [r for r in rs if r.counted]
        sr = sum(bool(r.success) for r in counted) / len(counted) if counted else float("nan")
        pr = sum(r.progress for r in counted) / len(counted) if counted else float("nan")
        t.add_row(p, b, tg, str(len(rs)), f"{sr:.1%}", f"{pr:.2f}", str(sum(r.error_kind == 'infra' for r in rs)),
                  str(sum(r.undetermined for r in rs)), str(sum(r.error_kind == "unsupported" for r in rs)),
                  f"{sum(r.steps for r in rs) / max(1, len(rs)):.1f}")
    Console().print(t)
