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
        apps: bool = typer.Option(False, "--apps", help="With --device: open each of the nine apps (changing "
                                                        "nothing), read their screens, and say which real59 "
                                                        "templates s2r can drive there and why not the others."),
    ) -> None:
        """Check that Chromium, adb, and the Python stack are ready; print a fix for each gap."""
        from s2r.doctor import check_policy, run_checks

        if apps:
            _doctor_apps(device, as_json)
            return

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

    def _doctor_apps(device: str | None, as_json: bool) -> None:
        if not device:
            typer.echo("s2r doctor --apps needs --device SERIAL (see `s2r devices`)", err=True)
            raise typer.Exit(2)
        from device.adb import client, ensure_server
        from s2r.doctor_apps import doctor_apps

        try:
            ensure_server()
            report = doctor_apps(device, client=client())
        except Exception as e:  # noqa: BLE001 - a phone that cannot start: say why, in one line
            typer.echo(f"s2r doctor --apps: {device}: {type(e).__name__}: {e}"[:500], err=True)
            raise typer.Exit(1) from e
        ok = all(a["recognised"] for a in report["apps"].values() if a["package"])
        if as_json:
            typer.echo(json.dumps(report, indent=2, ensure_ascii=False))
            raise typer.Exit(0 if ok else 1)
        console = Console()
        t = Table(title=f"s2r doctor --apps · {device}")
        for col in ("app", "package", "version", "family", "recognised", "screens", "real59 ready", "problems"):
            t.add_column(col, overflow="fold")
        for app_id, a in report["apps"].items():
            n_ready, n_not = len(a["ready"]), len(a["not_ready"])
            t.add_row(app_id, a["package"] or "-", a["version"] or "-", a["family"] or "-",
                      "[green]yes[/]" if a["recognised"] else "[red]no[/]", ", ".join(a["screens"]) or "-",
                      f"{n_ready}/{n_ready + n_not}", "; ".join(a["problems"])[:200])
        console.print(t)
        blocked = sorted({x["template"] for a in report["apps"].values() for x in a["not_ready"]})
        if blocked:
            console.print(f"[red]{len(blocked)} real59 template(s) would be bridge faults here:[/] " + ", ".join(blocked))
        else:
            console.print("[green]every real59 template's apps are recognised[/]")
        raise typer.Exit(0 if ok else 1)

    @app.command()
    def schema(out: Path = typer.Option(..., "--out", help="Directory to write JSON Schema files into.")) -> None:
        """Write the JSON Schemas of the shared contract (Action, Observation, WorldState, ...)."""
        from s2r.schemas import write_schemas

        paths = write_schemas(out)
        for p in paths:
            typer.echo(str(p))
