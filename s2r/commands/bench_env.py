"""``s2r bench env``: the environment server's cost over the wire against the simulator in-process."""

from __future__ import annotations

import json

import typer

from s2r.commands.sim import bench_app


def bench_env(
    sessions: int = typer.Option(64, "--sessions", min=1, help="Sessions stepping at once for steps/s."),
    pages: int = typer.Option(4, "--pages", min=1, help="Live pages, in-process and on the server."),
    duration: float = typer.Option(20.0, "--duration", min=0.1,
                                   help="Seconds of stepping on each side, in-process and server."),
    rounds: int = typer.Option(2, "--rounds", min=1, help="Alternating in-process/server rounds the seconds are split over."),
    alive: int = typer.Option(1000, "--alive", min=1, help="Sessions opened and kept alive on one server."),
    task: str = typer.Option("train.settings.flashlight_on", help="Task every session is reset on."),
    seed: int = typer.Option(0, help="Seed of that task."),
    image_format: str = typer.Option("jpeg", help="Screenshot format: jpeg or png."),
    as_json: bool = typer.Option(True, "--json/--no-json", help="Print one JSON object (--no-json: a table)."),
) -> None:
    """Steps/s over the wire against in-process, latency of a step, reset and fork over the wire,
    memory per live and hibernated session, and how many sessions one server keeps alive."""
    from s2r.envserver.bench import EnvBenchConfig, run, target_rows

    if image_format not in ("jpeg", "png"):
        raise typer.BadParameter(f"--image-format must be jpeg or png, not {image_format!r}")
    res = run(EnvBenchConfig(sessions=sessions, pages=pages, duration=duration, alive=alive, task=task, seed=seed, rounds=rounds,
                             image_format=image_format))
    if as_json:
        typer.echo(json.dumps(res))
        return
    from rich.console import Console
    from rich.table import Table

    t = Table(title=f"s2r bench env: {res['sessions']} sessions, {res['pages']} pages, {res['duration_s']:g} s, "
                    f"{res['image_format']} every step, {res['cpus']} CPUs")
    for col in ("figure", "measured", "target", ""):
        t.add_column(col)
    judged = {}
    for key, v, target, met in target_rows(res):
        judged[key] = (target, met)
    for key, v in res.items():
        if key == "targets" or isinstance(v, (dict, list)):
            continue
        target, met = judged.get(key, ("", None))
        t.add_row(key, "—" if v is None else f"{v:g}" if isinstance(v, float) else str(v), target,
                  "[green]met[/]" if met else "[red]not met[/]" if met is False else "")
    Console().print(t)


def register(app: typer.Typer) -> None:
    bench_app.command("env")(bench_env)
