"""``s2r worker``: make this machine a phone host of a Ray cluster (``pip install 's2r[ray]'``).

It starts (``--head``) or joins the Ray node, runs the device preflight through the host's own
:class:`~device.farm.DeviceFarm` (unchanged: its adb server, hotplug, quarantine, reconnect,
journal and restore), and keeps one long-lived actor for this host that drivers
(``s2r run|paired --ray HEAD:PORT``) send episodes to. It stays in the foreground printing the
farm's events; Ctrl-C waits for the episodes in flight, closes the phones (teardown, restore,
audit) and leaves the cluster.
"""

from __future__ import annotations

import signal
import socket
import time

import typer
from rich.console import Console


def register(app: typer.Typer) -> None:
    @app.command("worker")
    def worker(
        address: str = typer.Option(None, "--address", metavar="HEAD:PORT", help="Join the cluster whose head is here."),
        head: bool = typer.Option(False, "--head", help="Start the cluster's head on this machine (the first host)."),
        port: int = typer.Option(6379, "--port", help="With --head: the port other hosts and drivers join."),
        node_ip: str = typer.Option(None, "--node-ip", help="The address other hosts reach this one at "
                                                           "(default: this machine's interface address)."),
        device: str = typer.Option(None, "--device", help="This host's phones: all | SERIAL[,SERIAL] | vdevice:N."),
        sim: int = typer.Option(0, "--sim", metavar="PAGES", help="Also serve simulator episodes on PAGES pages."),
        name: str = typer.Option(None, "--name", help="This host's name in records (default: the hostname)."),
        dashboard: bool = typer.Option(False, "--dashboard", help="Start Ray's dashboard (off unless asked for)."),
        wait_devices: float = typer.Option(30.0, "--wait-devices", metavar="SECONDS",
                                           help="How long to wait for a phone to be attached."),
    ) -> None:
        """Host phones (and/or sim pages) for runs on a Ray cluster; Ctrl-C leaves cleanly."""
        err = Console(stderr=True)
        if head == bool(address):
            raise typer.BadParameter("give exactly one of --head or --address HEAD:PORT")
        if not device and sim <= 0:
            raise typer.BadParameter("nothing to host: give --device SPEC and/or --sim PAGES")
        try:
            from transfer.distributed.dispatcher import NoUsableHosts
            from transfer.distributed.ray_engine import connect, host_names, spawn_host, start_node, stop_node
        except ImportError as e:
            err.print(f"[red]error[/]: Ray is not installed ({e}); pip install 's2r[ray]'")
            raise typer.Exit(2) from None
        name = name or socket.gethostname()
        try:
            node = start_node(head=head, address=address, node_ip=node_ip, port=port, dashboard=dashboard)
        except NoUsableHosts as e:
            err.print(f"[red]error[/]: {e}")
            raise typer.Exit(2) from None
        import ray

        try:
            connect(node.gcs_address)
            if f"s2r-host:{name}" in host_names():
                err.print(f"[red]error[/]: a host named {name} is already in the cluster; pass --name")
                raise typer.Exit(2)
            actor = spawn_host(name, node.node_id, device=device, sim_pages=sim,
                               device_run={"wait_devices": wait_devices})
            info = ray.get(actor.info.remote())
            if info.get("error") or not any(info["capacity"].values()):
                err.print(f"[red]error[/]: {info.get('error') or f'host {name} has no usable phone or page'}; "
                          "attach a phone (adb devices) and start the worker again")
                ray.kill(actor)
                raise typer.Exit(2)
            _serve(actor, info, node.gcs_address, head)
        finally:
            ray.shutdown()
            stop_node(node)


def _serve(actor: object, info: dict, gcs: str, head: bool) -> None:
    """Print the farm's events until Ctrl-C; then drain, close the phones and leave."""
    import ray

    console = Console()
    cap = info["capacity"]
    console.print(f"[green]host {info['name']}[/] ready: {cap.get('device', 0)} phone(s), {cap.get('sim', 0)} "
                  f"sim page(s); " + (f"cluster head at [bold]{gcs}[/] — drivers: s2r run|paired --ray {gcs}"
                                      if head else f"joined {gcs}"))
    if head:
        console.print("token authentication is on: give every host and driver the token in "
                      "~/.ray/auth_token (same path there) or RAY_AUTH_TOKEN")
    seen = 0

    def _leave(signum: int, frame: object) -> None:  # a service manager's stop is a Ctrl-C too
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, _leave)
    try:
        while True:
            for t, serial, what in ray.get(actor.events.remote(seen)):  # type: ignore[attr-defined]
                console.print(f"{time.strftime('%H:%M:%S', time.localtime(t))} {serial} {what}")
                seen += 1
            time.sleep(1.0)
    except KeyboardInterrupt:
        console.print("leaving: waiting for the episodes in flight …")
        left = ray.get(actor.drain.remote())  # type: ignore[attr-defined]
        for rep in ray.get(actor.close.remote()):  # type: ignore[attr-defined]
            console.print("audit " + rep.get("audit_summary", ""))
        ray.kill(actor)  # type: ignore[arg-type]
        console.print(f"left the cluster ({left} episode(s) cut short)" if left else "left the cluster")
