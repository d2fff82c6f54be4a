"""``s2r worker``: make this machine a phone host of a Ray cluster (``pip install 's2r[ray]'``).

It starts (``--head``) or joins the Ray node, runs the device preflight through the host's own
:class:`~device.farm.DeviceFarm` (unchanged: its adb server, hotplug, quarantine, reconnect,
journal and restore), and keeps one long-lived actor for this host that drivers
(``s2r run|paired --ray HEAD:PORT``) send episodes to. It stays in the foreground printing the
farm's events.

Ctrl-C or SIGTERM leaves: the host takes no new episode (drivers move what they would have sent
to other hosts), the episodes in flight finish (up to ``--drain-timeout``), the phones are closed
(teardown, restore, audit) and the node stops; exit 0 and ``left the cluster``. What could not
be drained or closed (the host's actor gone or not answering, a drain or close past its time) is
one line and exit 1. A second Ctrl-C leaves at once, exit 130, naming the episodes and phones
left leased: their drivers move those episodes when the node stops, and a phone's setup is undone
from its journal the next time s2r opens it on this host.

The Ray node's processes run in sessions of their own (see
:func:`transfer.distributed.ray_engine.start_node`), so a signal to this process group reaches
this process alone and the node stays up until the host has drained.
"""

from __future__ import annotations

import signal
import socket
import time
from collections.abc import Callable
from typing import Any

import typer
from rich.console import Console

#: Exit codes: left cleanly; left, but something could not be drained or closed; left at once
#: on a second Ctrl-C (what a shell reports for a command ended by SIGINT).
EXIT_LEFT, EXIT_UNCLEAN, EXIT_ABANDONED = 0, 1, 130
#: How long a quick actor call (events, what is leased) may take before the actor counts as not answering.
CALL_S = 15.0
#: How long closing the phones (teardown, restore and audit of each) may take.
CLOSE_S = 600.0


def register(app: typer.Typer) -> None:
    @app.command("worker")
    def worker(
        address: str = typer.Option(None, "--address", metavar="HEAD:PORT", help="Join the cluster whose head is here."),
        head: bool = typer.Option(False, "--head", help="Start the cluster's head on this machine (the first host)."),
        port: int = typer.Option(6379, "--port", help="With --head: the port other hosts and drivers join."),
        node_ip: str = typer.Option(None, "--node-ip", help="The address other hosts reach this one at "
                                                           "(default: this machine's interface address)."),
        device: str = typer.Option(None, "--device", help="This host's phones: all | SERIAL[,SERIAL] | vdevice:N."),
        sim: int = typer.Option(0, "--sim", metavar="PAGES", help="Also serve simulator episodes and environment sessions on PAGES pages."),
        name: str = typer.Option(None, "--name", help="This host's name in records (default: the hostname)."),
        dashboard: bool = typer.Option(False, "--dashboard", help="Start Ray's dashboard (off unless asked for)."),
        wait_devices: float = typer.Option(30.0, "--wait-devices", metavar="SECONDS",
                                           help="How long to wait for a phone to be attached."),
        drain_timeout: float = typer.Option(600.0, "--drain-timeout", metavar="SECONDS",
                                            help="On Ctrl-C: how long to wait for the episodes in flight."),
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
        # until the host is ready a stop is an interrupt (Ray's node installed its own SIGTERM handler)
        signal.signal(signal.SIGTERM, _interrupt)
        import ray

        code = EXIT_LEFT
        try:
            try:
                connect(node.gcs_address)
                if f"s2r-host:{name}" in host_names():
                    err.print(f"[red]error[/]: a host named {name} is already in the cluster; pass --name")
                    raise typer.Exit(2)
                actor = spawn_host(name, node.node_id, device=device, sim_pages=sim,
                                   device_run={"wait_devices": wait_devices})
                info = ray.get(actor.info.remote(), timeout=300)
                if info.get("error") or not any(info["capacity"].values()):
                    err.print(f"[red]error[/]: {info.get('error') or f'host {name} has no usable phone or page'}; "
                              "attach a phone (adb devices) and start the worker again")
                    ray.kill(actor)
                    raise typer.Exit(2)
                stop = _Stops().install()  # from here on a stop is counted, never raised
            except KeyboardInterrupt:
                # nothing ran here yet: the host actor goes with the node (stopped below)
                Console().print(f"interrupted before host {name} was ready; left the cluster")
                raise typer.Exit(EXIT_ABANDONED) from None
            code = _serve(actor, info, node.gcs_address, head, stop, drain_timeout)
        finally:
            ray.shutdown()
            stop_node(node, graceful=code != EXIT_ABANDONED)
        raise typer.Exit(code)


def _interrupt(signum: int, frame: object) -> None:
    """SIGTERM before the host is ready: the same as Ctrl-C then."""
    raise KeyboardInterrupt


class _Stops:
    """Ctrl-C and SIGTERM counted, never raised. An exception thrown into the main thread at an
    arbitrary point can land inside a Ray call (a task half submitted, a ``ray.get`` under way),
    and the worker then hangs or ends with a traceback instead of draining; the loops below
    look at :attr:`count` between Ray calls that each have a timeout."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, signum: int, frame: object) -> None:
        self.count += 1

    def install(self) -> "_Stops":
        signal.signal(signal.SIGINT, self)
        signal.signal(signal.SIGTERM, self)  # a service manager's stop is a Ctrl-C too
        return self

    def sleep(self, seconds: float, seen: int) -> None:
        """Sleep, but wake within 0.1 s when a stop comes after the ``seen`` first ones."""
        end = time.monotonic() + seconds
        while self.count <= seen and time.monotonic() < end:
            time.sleep(min(0.1, max(0.0, end - time.monotonic())))


def _why(e: BaseException) -> str:
    """An exception of a Ray call in a few words (the first line of its message)."""
    text = str(e).strip().splitlines()
    return f"{type(e).__name__}: {text[0][:160]}" if text else type(e).__name__


def _await(ref: Any, timeout: float, stop: _Stops, seen: int,
           tick: Callable[[], None] | None = None) -> tuple[str, Any]:
    """Wait for one actor call: ``("done", value)``, ``("gone", why)`` (the actor or its node died,
    or the call failed), ``("timeout", None)``, or ``("stopped", None)`` when another stop came
    after ``seen``. ``tick`` is called about every 2 s while waiting."""
    import ray

    end, next_tick = time.monotonic() + timeout, time.monotonic() + 2.0
    while True:
        ready, _ = ray.wait([ref], num_returns=1, timeout=0.2)
        if ready:
            try:
                return "done", ray.get(ref, timeout=CALL_S)
            except Exception as e:  # noqa: BLE001 - ActorDiedError, NodeDiedError, ...: the actor is gone
                return "gone", _why(e)
        if stop.count > seen:
            return "stopped", None
        if time.monotonic() >= end:
            return "timeout", None
        if tick is not None and time.monotonic() >= next_tick:
            tick()
            next_tick = time.monotonic() + 2.0


def _names(leased: list[dict[str, Any]]) -> str:
    return ", ".join(f"{x['episode']} on {x['phone'] or 'no phone yet'}" for x in leased) or "none"


def _phones(info: dict[str, Any]) -> str:
    """This host's phones and pages, as a line names them."""
    parts = [p["serial"] for p in info.get("phones") or []]
    pages = info["capacity"].get("sim", 0)
    if pages:
        parts.append(f"{pages} sim page(s)")
    return ", ".join(parts) or "none"


def _serve(actor: Any, info: dict[str, Any], gcs: str, head: bool, stop: _Stops, drain_s: float) -> int:
    """Print the farm's events until Ctrl-C or SIGTERM; then leave (:func:`_leave`). The exit code."""
    import ray
    from ray.exceptions import GetTimeoutError

    console = Console(soft_wrap=True)  # one line stays one line (a narrow terminal or a log file)
    cap = info["capacity"]
    console.print(f"[green]host {info['name']}[/] ready: {cap.get('device', 0)} phone(s), {cap.get('sim', 0)} "
                  f"sim page(s); " + (f"cluster head at [bold]{gcs}[/] — drivers: s2r run|paired --ray {gcs}"
                                      if head else f"joined {gcs}"))
    if info.get("env_url"):
        console.print(f"environment sessions for trainers at {info['env_url']} (s2r env hosts --ray {gcs})")
    if head:
        console.print("token authentication is on: give every host and driver the token in "
                      "~/.ray/auth_token (same path there) or RAY_AUTH_TOKEN")
    seen = 0
    while not stop.count:
        try:
            for t, serial, what in ray.get(actor.events.remote(seen), timeout=CALL_S):
                console.print(f"{time.strftime('%H:%M:%S', time.localtime(t))} {serial} {what}")
                seen += 1
        except GetTimeoutError:
            pass  # busy: ask again
        except Exception as e:  # noqa: BLE001 - the actor (or its node) died under us
            console.print(f"left the cluster, not cleanly: host {info['name']}'s actor is gone ({_why(e)}); "
                          f"its phones were not closed ({_phones(info)}): a phone's setup is undone from its "
                          "journal the next time s2r opens it here")
            return EXIT_UNCLEAN
        stop.sleep(1.0, 0)
    return _leave(actor, info, stop, drain_s, console)


def _leave(actor: Any, info: dict[str, Any], stop: _Stops, drain_s: float, console: Console) -> int:
    """Drain (no new episode here; those in flight finish), close the phones, kill the actor.
    Every wait is bounded; a dead or silent actor counts as drained and is named."""
    import ray

    name, first = info["name"], stop.count
    leased: list[dict[str, Any]] = []

    def look() -> None:  # what holds a phone now, for the line a second Ctrl-C prints
        try:
            leased[:] = ray.get(actor.leased.remote(), timeout=CALL_S)
        except Exception:  # noqa: BLE001 - not answering: keep the last answer
            pass

    look()
    console.print(f"leaving: waiting for the episodes in flight … {len(leased)} in flight: {_names(leased)} "
                  "(Ctrl-C again leaves at once)")
    problems: list[str] = []
    state, got = _await(actor.drain.remote(drain_s), drain_s + 60.0, stop, first, tick=look)
    if state == "stopped":
        return _abandon(actor, info, leased, console, "while waiting for the episodes in flight")
    if state in ("gone", "timeout"):
        why = got if state == "gone" else f"no answer within {drain_s + 60:.0f}s"
        problems.append(f"host {name}'s actor is gone ({why}); nothing left to wait for, its phones were not "
                        f"closed ({_phones(info)}): a phone's setup is undone from its journal the next time s2r "
                        "opens it here")
    else:
        if got:
            look()
            problems.append(f"{got} episode(s) still running after {drain_s:.0f}s ({_names(leased)}), cut short: "
                            "their drivers move them to another host")
        state, got = _await(actor.close.remote(), CLOSE_S, stop, first)
        if state == "stopped":
            return _abandon(actor, info, [], console, "while closing the phones")
        if state == "done":
            for rep in got:
                console.print("audit " + rep.get("audit_summary", ""))
        else:
            why = got if state == "gone" else f"not closed within {CLOSE_S:.0f}s"
            problems.append(f"the phones were not closed ({_phones(info)}; {why}): a phone's setup is undone "
                            "from its journal the next time s2r opens it here")
    _kill(actor)
    if problems:
        console.print("left the cluster, not cleanly: " + "; ".join(problems))
        return EXIT_UNCLEAN
    console.print("left the cluster")
    return EXIT_LEFT


def _abandon(actor: Any, info: dict[str, Any], leased: list[dict[str, Any]], console: Console, when: str) -> int:
    """A second Ctrl-C: leave now; one line naming what stays leased and how it is released."""
    _kill(actor)
    what = (f"{len(leased)} episode(s) left leased on host {info['name']}: {_names(leased)}" if leased
            else f"no episode was leased on host {info['name']}")
    console.print(f"left the cluster at once (second Ctrl-C {when}): {what}; the phones and pages "
                  f"({_phones(info)}) are released as this node stops, and drivers move those episodes to "
                  "another host; a phone's setup is undone from its journal the next time s2r opens it here "
                  "(start `s2r worker --device …` again)")
    return EXIT_ABANDONED


def _kill(actor: Any) -> None:
    """End the host actor now (its node stops next in any case)."""
    import ray

    try:
        ray.kill(actor)
    except Exception:  # noqa: BLE001 - already gone
        pass
