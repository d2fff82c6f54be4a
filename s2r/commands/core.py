"""Foundation commands: doctor and schema."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table


def register(app: typer.Typer) -> None:
    @app.command()
    def doctor(
        device: str = typer.Option(None, "--device", help="Also preflight this device serial."),
        no_browser: bool = typer.Option(False, "--no-browser", help="Skip launching Chromium."),
        as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
        policy: list[str] = typer.Option([], "--policy", metavar="SPEC",
                                         help="Also preflight this policy (repeatable): the model server serves the "
                                              "model and answers a probe with an image, or the checkpoint loads."),
    ) -> None:
        """Check that Chromium, adb, and the Python stack are ready; print a fix for each gap."""
        from s2r.doctor import check_policy, run_checks

        checks = run_checks(browser=not no_browser)
        checks.extend(check_policy(p) for p in policy)
        if device:
            try:
                from s2r.doctor import check_device  # type: ignore[attr-defined]

                checks.extend(check_device(device))
            except ImportError:
                from s2r.doctor import Check

                checks.append(Check(f"device {device}", "fail", "device preflight is not available in this build"))
        failed = [c for c in checks if c.status == "fail"]
        if as_json:
            typer.echo(json.dumps([c.__dict__ for c in checks], indent=2, default=str))
        else:
            console = Console()
            t = Table(title="s2r doctor", show_lines=False)
            for col in ("check", "status", "detail", "fix"):
                t.add_column(col)
            colors = {"ok": "green", "warn": "yellow", "fail": "red"}
            for c in checks:
                t.add_row(c.name, f"[{colors[c.status]}]{c.status}[/]", c.detail, c.fix)
            console.print(t)
            console.print("[green]all green[/]" if not failed else f"[red]{len(failed)} problem(s)[/]")
        raise typer.Exit(1 if failed else 0)

    @app.command()
    def schema(out: Path = typer.Option(..., "--out", help="Directory to write JSON Schema files into.")) -> None:
        """Write the JSON Schemas of the shared contract (Action, Observation, WorldState, ...)."""
        from s2r.schemas import write_schemas

        paths = write_schemas(out)
        for p in paths:
            typer.echo(str(p))
