"""Simulator commands: serve phones to a person, and benchmark."""

from __future__ import annotations

import json
import time

import typer

from s2r.commands import flavor_option

sim_app = typer.Typer(help="The browser-hosted phone simulator.", no_args_is_help=True)
bench_app = typer.Typer(help="Benchmarks that print JSON figures.", no_args_is_help=True)


@sim_app.command("serve")
def serve(
    host: str = typer.Option("127.0.0.1", help="Address to bind (loopback by default)."),
    port: int = typer.Option(8765, help="Port (0 = any free port)."),
    profile: str = typer.Option("default", help="Device profile of the default phone."),
    flavor: str = typer.Option("sim", help="App flavor: sim or aosp.", callback=flavor_option),
    seed: int = typer.Option(0, help="World seed of the default phone."),
    duration: float = typer.Option(0, help="Stop after this many seconds (0 = until Ctrl-C)."),
) -> None:
    """Serve the simulator; open the printed URL in a browser to drive a phone by hand."""
    from sim.server import SimServer

    srv = SimServer(host=host, port=port, defaults={"profile": profile, "flavor": flavor, "seed": seed}).start()
    typer.echo(f"s2r sim serving on {srv.url}")
    typer.echo(f"open {srv.url}/phone.html?phone=default   (API: {srv.url}/api/phones)")
    try:
        t0 = time.time()
        while duration <= 0 or time.time() - t0 < duration:
            time.sleep(0.2)
    except KeyboardInterrupt:
        pass
    finally:
        srv.stop()


@bench_app.command("sim")
def bench_sim(
    phones: int = typer.Option(4, help="Logical phones stepping concurrently for throughput."),
    pages: int = typer.Option(2, help="Live pages in the pool."),
    steps: int = typer.Option(30, help="Steps for the latency figures."),
    logical: int = typer.Option(1000, help="Logical phones kept alive at once."),
    seconds: float = typer.Option(10.0, help="Duration of the throughput run."),
    flavor: str = typer.Option("sim", help="App flavor the phones run: sim, aosp or google.", callback=flavor_option),
    as_json: bool = typer.Option(True, "--json/--no-json",
                                 help="Print one JSON object (--no-json: a table against the targets)."),
) -> None:
    """Measure the simulator: start-up, reset, step latency, throughput, memory, fork/capture/judge."""
    from sim.bench import run, target_rows

    res = run(phones=phones, pages=pages, steps=steps, logical=logical, seconds=seconds, flavor=flavor)
    if as_json:
        typer.echo(json.dumps(res))
        return
    from rich.console import Console
    from rich.table import Table

    t = Table(title=f"s2r bench sim: {res['pages']} pages, {res.get('concurrent_phones')} phones, "
                    f"{res['cpus']} CPUs, {res['browser']}")
    for col in ("figure", "measured", "target", "MobileGym", ""):
        t.add_column(col)
    for key, v, target, peer, met in target_rows(res):
        t.add_row(key, "—" if v is None else f"{v:g}", target, peer,
                  "[green]met[/]" if met else "[red]not met[/]" if met is False else "")
    Console().print(t)
    typer.echo(json.dumps(res, indent=2))


@bench_app.command("policy")
def bench_policy(
    latency: float = typer.Option(1.0, "--latency", metavar="SECONDS", help="The stand-in model's time per reply."),
    phones: int = typer.Option(32, "--phones", help="Phones stepping, each waiting for its own model reply."),
    pages: int = typer.Option(2, "--pages", help="Live pages in the pool."),
    seconds: float = typer.Option(15.0, help="Duration of each phase (without, then with the model)."),
    as_json: bool = typer.Option(True, "--json/--no-json", help="Print one JSON object (--no-json: indented)."),
) -> None:
    """Do phones stay busy while a model thinks? steps/s with a model vs the pool's own capacity."""
    from transfer.policies.bench import run

    try:
        res = run(latency=latency, phones=phones, pages=pages, seconds=seconds)
    except ValueError as e:
        raise typer.BadParameter(str(e)) from None
    typer.echo(json.dumps(res) if as_json else json.dumps(res, indent=2))


from .bench_device import bench_device as _bench_device  # noqa: E402 - `s2r bench device`

bench_app.command("device")(_bench_device)


def register(app: typer.Typer) -> None:
    app.add_typer(sim_app, name="sim")
    app.add_typer(bench_app, name="bench")
