"""``s2r env serve``: the simulator as an environment server for RL trainers (OpenEnv protocol)."""

from __future__ import annotations

import os
import time

import typer

from s2r.commands import flavor_option

env_app = typer.Typer(help="Environment servers for RL trainers.", no_args_is_help=True)


def _size(value: str | None) -> tuple[int, int] | None:
    if not value:
        return None
    try:
        w, h = (int(v) for v in value.lower().split("x"))
    except ValueError:
        raise typer.BadParameter(f"{value!r}: give the size as WIDTHxHEIGHT, e.g. 540x1200") from None
    if not (16 <= w <= 4096 and 16 <= h <= 4096):
        raise typer.BadParameter(f"{value!r}: both sides must be within 16..4096")
    return w, h


def _stop_on_sigterm(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


@env_app.command("serve")
def serve(
    host: str = typer.Option("127.0.0.1", help="Address to bind (loopback by default; any other needs --token)."),
    port: int = typer.Option(8770, help="Port (0 = any free port)."),
    pages: int = typer.Option(4, min=1, help="Live browser pages per device profile (sessions share them)."),
    max_sessions: int = typer.Option(1024, min=1, help="Sessions this server holds at most; more are refused."),
    max_live: int = typer.Option(64, min=1, help="Sessions kept in memory; the least recently used sleep as JSON."),
    token: str | None = typer.Option(None, envvar="S2R_ENV_TOKEN", help="Token every request must carry."),
    flavor: str = typer.Option("sim", help="Default app flavor: sim or aosp.", callback=flavor_option),
    profile: str = typer.Option("default", help="Default device profile."),
    image_format: str = typer.Option("jpeg", help="Default screenshot format: jpeg or png."),
    image_size: str | None = typer.Option(None, help="Default screenshot size WIDTHxHEIGHT (default: the screen's)."),
    pixels: bool = typer.Option(True, help="Send screenshots by default (--no-pixels: elements only)."),
) -> None:
    """Serve simulated phones over OpenEnv's protocol (WebSocket /ws; TRL's OpenEnv integration and
    any OpenEnv client work unchanged). Reset by task id + seed, a saved phone, or fork_of=<session>."""
    from s2r.envserver import EnvServer, SessionConfig

    if image_format not in ("jpeg", "png"):
        raise typer.BadParameter(f"--image-format must be jpeg or png, not {image_format!r}")
    from sim.profiles import get_profile

    try:
        get_profile(profile)
    except ValueError as e:
        raise typer.BadParameter(str(e)) from None
    cfg = SessionConfig(flavor=flavor or "sim", profile=profile, image_format=image_format,  # type: ignore[arg-type]
                        image_size=_size(image_size), pixels=pixels)
    try:
        srv = EnvServer(host, port, pages=pages, max_sessions=max_sessions, max_live=max_live, token=token,
                        config=cfg, log_level=os.environ.get("S2R_ENV_LOG", "warning"))
    except ValueError as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(2) from None
    srv.start()
    import signal

    # a service manager's stop (SIGTERM) ends it like Ctrl-C: sessions end, the pages close
    signal.signal(signal.SIGTERM, _stop_on_sigterm)
    typer.echo(f"s2r env serving on {srv.url} (ws {srv.url.replace('http', 'ws', 1)}/ws); "
               f"{pages} pages, up to {max_sessions} sessions, {max_live} live; Ctrl-C stops", )
    try:
        while srv.running:
            time.sleep(0.5)
    except KeyboardInterrupt:
        pass
    finally:
        srv.stop()


@env_app.command("hosts")
def hosts(
    ray_address: str = typer.Option(..., "--ray", metavar="HEAD:PORT", help="The cluster (its head's address)."),
    show_tokens: bool = typer.Option(False, "--show-tokens", help="Print each server's token too."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """The environment servers of a Ray cluster's hosts (every `s2r worker --sim N` serves sessions)."""
    import json

    from s2r.envserver.cluster import cluster_servers

    import ray

    try:
        servers = cluster_servers(ray_address)
    except Exception as e:  # noqa: BLE001 - no cluster there
        typer.echo(f"error: could not reach the cluster at {ray_address}: {e}", err=True)
        raise typer.Exit(2) from None
    finally:  # before printing: Ray's own news (a node that died) must not run into the output
        ray.shutdown()
    for s in servers:
        if not show_tokens:
            s["token"] = "(set)" if s.get("token") else None
    if as_json:
        typer.echo(json.dumps(servers, indent=1))
        return
    if not servers:
        typer.echo("no host of this cluster serves environment sessions (start workers with --sim PAGES)")
    for s in servers:
        typer.echo(f"{s['host']}: {s['url']}  {s['pages']} page(s)" + (f"  token {s['token']}" if s.get("token") else ""))


def register(app: typer.Typer) -> None:
    app.add_typer(env_app, name="env")
