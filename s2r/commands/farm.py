"""``s2r farm serve``: a web page of the phones of this host (and of a Ray cluster's hosts).

Each phone with its serial, model, Android release, family, battery (level, temperature, charging)
and health; a phone a run holds also shows the run, task, episode and step and the screen the
policy saw, refreshed about once a second. The page only reads: ``adb devices``, ``getprop`` and
``dumpsys battery`` on the phones, and what the runs publish about their own episodes.
"""

from __future__ import annotations

import typer

farm_app = typer.Typer(help="The phone farm: a live page of the phones and the runs on them.", no_args_is_help=True)


@farm_app.command("serve")
def serve(
    host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on (beyond loopback a token is required; "
                                                         "the printed URL carries it)."),
    port: int = typer.Option(8780, "--port", min=0, max=65535, help="Port (0: a free one)."),
    ray_address: str = typer.Option(None, "--ray", metavar="HEAD:PORT",
                                    help="Also show the phones of this Ray cluster's hosts."),
) -> None:
    """Serve the farm page until Ctrl-C."""
    from s2r.farmpage import Collector, FarmPageServer

    try:
        collector = Collector(ray_address=ray_address)
    except Exception as e:  # noqa: BLE001 - no cluster there
        typer.echo(f"error: could not reach the cluster at {ray_address}: {e}", err=True)
        raise typer.Exit(2) from None
    try:
        srv = FarmPageServer(collector, host=host, port=port)
    except OSError as e:
        typer.echo(f"error: cannot listen on {host}:{port}: {e}", err=True)
        raise typer.Exit(2) from None
    print(f"farm page: {srv.url}  (Ctrl-C stops)", flush=True)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        srv.httpd.server_close()


def register(app: typer.Typer) -> None:
    app.add_typer(farm_app, name="farm")
