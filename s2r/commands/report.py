"""``s2r report RUN_DIR``: the transfer report of a run directory."""

from __future__ import annotations

from pathlib import Path

import typer


def register(app: typer.Typer) -> None:
    @app.command()
    def report(
        run_dir: Path = typer.Argument(..., help="Run directory holding config.json and episodes.jsonl."),
        bootstrap: int = typer.Option(2000, "--bootstrap", "-B", min=100, help="Bootstrap replicates for the CIs."),
        seed: int = typer.Option(20240611, "--seed", help="Seed of the bootstrap (fixed: same episodes, same report)."),
        min_gain: float = typer.Option(5.0, "--min-gain", min=0.0,
                                       help="Smallest sim gain (pt) for which retention is reported as a ratio."),
        open_: bool = typer.Option(False, "--open", help="Open report.html in a browser afterwards."),
    ) -> None:
        """Write summary.json, report.md and report.html: gains, retention with CI, buckets, agreement."""
        from rich.console import Console
        from rich.panel import Panel
        from rich.table import Table

        from transfer.report import ReportError, headline, write_report
        from transfer.report.fmt import pct, pt

        console = Console()
        try:
            paths = write_report(run_dir, bootstrap=bootstrap, seed=seed, min_gain=min_gain / 100.0)
        except ReportError as e:
            console.print(f"[red]error:[/] {e}")
            raise typer.Exit(2) from None
        except OSError as e:
            console.print(f"[red]error:[/] cannot write the report into {run_dir}: {e}")
            raise typer.Exit(2) from None
        s = paths.data
        console.print(Panel(headline(s), title="s2r transfer report", expand=False, highlight=False))
        b = s.get("buckets")
        if b:
            t = Table(title="buckets (from sim outcomes)", title_justify="left")
            for col in ("bucket", "tasks", "sim base", "sim trained", "dev base", "dev trained"):
                t.add_column(col, justify="left" if col == "bucket" else "right")
            for r in b["rows"]:
                t.add_row(r["bucket"], str(r["n_tasks"]),
                          *(pct(r[c]["value"]) for c in
                            ("sim_base", "sim_trained", "device_base", "device_trained")),
                          style="bold" if r["bucket"] == "All" else None)
            console.print(t)
        ags = s.get("agreement") or {}
        if ags:
            console.print("sim/device agreement (per-task majority verdicts):", highlight=False)
            for p, a in ags.items():
                k = "undefined" if a["kappa"] is None else f"{a['kappa']:.2f}"
                console.print(f"  {p}: κ {k}, raw agreement {pct(a['agreement'])}, "
                              f"{len(a['disagreements'])} of {a['n']} task(s) differ", highlight=False)
        h = s.get("headline") or {}
        if h.get("with_bridge_faults"):
            w = h["with_bridge_faults"]
            console.print(f"[yellow]with bridge-fault tasks[/]: Δ sim {pt(w['gain_sim']['value'])}, "
                          f"Δ device {pt(w['gain_device']['value'])}", highlight=False)
        for label, p in (("summary", paths.summary), ("markdown", paths.markdown), ("html", paths.html)):
            console.print(f"{label:>8}: {p}", highlight=False)
        if open_:
            import webbrowser

            webbrowser.open(paths.html.resolve().as_uri())
