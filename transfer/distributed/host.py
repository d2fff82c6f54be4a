"""The long-lived per-host actor: one host's :class:`~device.farm.DeviceFarm` and/or sim pool.

The farm is used unchanged (its own adb server, hotplug, quarantine, reconnect, journal and
restore): each episode is run here by :func:`~transfer.runner.run_with_retries`, exactly as
:class:`~transfer.runner.LocalExecutor` runs it (the same in-host retries on another phone of
this host), in a private trace directory whose files travel back with the record. Nothing on a
host writes the driver's run directory. An attempt has two calls: :meth:`EpisodeHost.lease`
takes the phone and names it (so the driver knows where an episode was if the host is lost),
then :meth:`EpisodeHost.run` runs it; neither is ever re-run by Ray.

A driver announces itself with :meth:`EpisodeHost.begin`; episodes of any earlier driver still
in flight (a driver that crashed) are cancelled at their next step: the step answers like an
unreachable policy server, so the episode's setup is undone and the phone stays in service, and
the dead driver's result is never read.

A host that is leaving (:meth:`EpisodeHost.drain`, Ctrl-C on its worker) takes no new episode:
a lease or a run it has not started answers ``{"leaving": True}`` and the driver moves that
episode to another host; what already runs here finishes and is returned as usual.
"""

from __future__ import annotations

import os
import platform
import shutil
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

from ..policies.base import BasePolicy, PolicyServerOutage
from ..rundir import RunDir
from ..runner import EpisodeSpec, Lease, run_with_retries
from .dispatcher import trace_files

HOST_PREFIX = "s2r-host:"
NAMESPACE = "s2r"
HOLD_S = 120.0  # a leased phone no run() came for is given back after this long


def _phone_of(held: Lease | None) -> str | None:
    """What a record calls the phone or page of a lease: a device's serial, a sim page's target."""
    if held is None:
        return None
    return held.info.get("serial") or held.info.get("target")


def versions() -> dict[str, str]:
    """What a driver and its hosts must share: s2r, Ray and Python versions."""
    from importlib.metadata import PackageNotFoundError, version

    try:  # the installed distribution's version (what `s2r --version` prints), without importing the CLI
        __version__ = version("s2r")
    except PackageNotFoundError:
        __version__ = "0.1.0"

    try:
        import ray

        rv = ray.__version__
    except ImportError:
        rv = "none"
    return {"s2r": __version__, "ray": rv, "python": platform.python_version()}


class _Cancellable:
    """A policy that stops answering once its driver is superseded (see module docstring)."""

    def __init__(self, inner: BasePolicy, cancelled: threading.Event):
        self.inner, self.cancelled = inner, cancelled
        self.name = inner.name  # everything else (reads_pixels, checkpoint_hash, last_call) is the inner's

    def __getattr__(self, item: str) -> Any:
        return getattr(self.inner, item)

    def reset(self, *a: Any, **k: Any) -> Any:
        return self.inner.reset(*a, **k)

    def act(self, obs: Any, history: Any) -> Any:
        if self.cancelled.is_set():
            return PolicyServerOutage("s2r-driver", "cancelled: a new driver took over this host")
        return self.inner.act(obs, history)


class EpisodeHost:
    """One host's phones and pages (wrapped with ``ray.remote`` by whoever places it)."""

    def __init__(self, name: str, *, device: str | None = None, sim_pages: int = 0, adb_port: int | None = None,
                 device_run: dict[str, Any] | None = None, test_recipient: str | None = None):
        self.name, self.test_recipient = name, test_recipient
        self.adb_port = adb_port
        if adb_port:  # this host's own adb server (a local:N node shares the machine with others)
            os.environ["ANDROID_ADB_SERVER_PORT"] = str(adb_port)
            os.environ.pop("ADB_SERVER_SOCKET", None)
        self.sim = self.devices = None
        self.env_server: Any = None  # s2r.envserver.EnvServer on the sim pages, for trainers' sessions
        self.error: str | None = None
        self._lock = threading.Lock()
        self._policies: dict[tuple[str, int], BasePolicy] = {}
        self._drivers: dict[str, threading.Event] = {}
        self._inflight = 0
        self._held: dict[str, tuple[str, str, Lease | None, float]] = {}  # ticket -> driver, spec, lease, since
        self._running: dict[str, tuple[str, str | None]] = {}  # ticket -> episode id, phone
        self._leaving = False  # set by drain(): no new episode starts here
        self._tmp = Path(tempfile.mkdtemp(prefix=f"s2r-{name}-"))
        try:
            self._open(device, sim_pages, device_run or {})
        except Exception as e:  # noqa: BLE001 - reported to the driver by info(), one line
            self.error = f"host {name}: {str(e).splitlines()[0] if str(e) else type(e).__name__}"[:400]

    def _open(self, device: str | None, sim_pages: int, device_run: dict[str, Any]) -> None:
        if sim_pages > 0:
            from ..backends import SimBackends

            self.sim = SimBackends(pages=sim_pages)
            from s2r.envserver.cluster import host_server

            # the same pages serve environment sessions to trainers (they are lent a step at a time)
            self.env_server = host_server(self.sim.pool)
        if device:
            from device.env import DeviceOptions

            from ..device_backends import DeviceBackends
            from ..session import DeviceRunOptions

            dr = DeviceRunOptions(**device_run)
            opts: dict[str, Any] = {"grant_appops": dr.grant_appops}
            if self.test_recipient:
                opts["test_recipient"] = self.test_recipient
            self.devices = DeviceBackends.from_spec(device, options=DeviceOptions(**opts), knobs=dr.vdevice_knobs(),
                                                    android=dr.vdevice_android, family=dr.vdevice_family or None,
                                                    wait_devices=dr.wait_devices)
            self.devices.farm.limits = dr.health_limits()  # the driver's --min-battery/--max-temp

    # ------------------------------------------------------------------ what the driver asks
    def info(self) -> dict[str, Any]:
        phones = len(self.devices.farm.devices()) if self.devices is not None else 0
        pages = self.sim.pool.pages_per_profile if self.sim is not None else 0
        return {"name": self.name, "versions": versions(), "capacity": {"sim": pages, "device": phones},
                "error": self.error, "pid": os.getpid(), "adb_port": self.adb_port, "leaving": self._leaving,
                "phones": self.devices.describe() if self.devices is not None else [],
                "env_url": self.env_server.url if self.env_server is not None else None}

    def farm_status(self, known: dict[str, int] | None = None) -> dict[str, Any]:
        """What the farm page (``s2r farm serve --ray``) shows of this host. Read-only: the phones on
        this host's adb server (state, ``getprop`` once, ``dumpsys battery`` now and then), the
        episodes running here with their task and step, the farm's states and health, and the
        screenshots newer than ``known`` (serial → the sequence number the page has), base64."""
        import base64
        import socket

        from device import farmstatus

        pub = farmstatus.publisher()
        phones: list[dict[str, Any]] = []
        if self.devices is not None:
            farm = self.devices.farm
            pub.watch_farm(farm)
            cache = self.__dict__.setdefault("_farm_facts", farmstatus.FactsCache())
            try:
                states = {i.serial: i.state for i in farm.client.list()}
            except Exception:  # noqa: BLE001 - the adb server restarting: what the farm last saw
                states = {d.serial: d.adb_state or "absent" for d in farm.devices()}
            phones = [r.model_dump(mode="json") for r in cache.read(farm.client, states)]
        shots = {s: {"seq": seq, "type": kind, "data": base64.b64encode(data).decode("ascii")}
                 for s, (seq, data, kind) in pub.shots(known).items()}
        return {"name": self.name, "host": socket.gethostname(), "pid": os.getpid(), "leaving": self._leaving,
                "phones": phones, "status": pub.status().model_dump(mode="json"), "shots": shots}

    def env_endpoint(self) -> dict[str, Any] | None:
        """This host's environment server (url, token, pages), or None when it serves none or is leaving."""
        from s2r.envserver.cluster import endpoint

        return None if self._leaving else endpoint(self.env_server)

    def begin(self, driver: str) -> int:
        """A driver takes over: cancel what any other driver left in flight here."""
        with self._lock:
            for d, ev in self._drivers.items():
                if d != driver:
                    ev.set()
            self._drivers = {d: ev for d, ev in self._drivers.items() if d == driver or self._inflight}
            self._drivers.setdefault(driver, threading.Event())
            n = self._inflight
        self._sweep(drivers_but=driver)
        return n

    def check_policies(self, specs: list[str]) -> list[str]:
        """Preflight the run's policy specs here (a ``micro:`` checkpoint must exist on this host)."""
        from ..policies.preflight import PreflightError, check_spec, preflight

        bad = []
        for spec in specs:
            try:
                check_spec(spec)
                preflight(spec)
            except (PreflightError, ValueError, OSError) as e:
                bad.append(f"host {self.name}: policy {spec!r} does not load here: {e}"[:400])
        return bad

    def lease(self, spec_json: str, driver: str) -> dict[str, Any]:
        """First half of an attempt: take the phone or page the episode will start on, so that the
        driver knows it before anything runs (a host lost later is named ``HOST/PHONE`` in the
        moved episode's ``retried_from``). Nothing runs here; :meth:`run` takes the ticket.
        A leaving host answers ``{"leaving": True}`` and takes nothing."""
        if self._leaving:
            return {"leaving": True}
        spec = EpisodeSpec.model_validate_json(spec_json)
        self._sweep()
        try:
            held: Lease | None = self._lease(spec)
        except Exception:  # noqa: BLE001 - no phone now: run() leases (and retries) itself
            held = None
        ticket = uuid.uuid4().hex
        with self._lock:
            self._held[ticket] = (driver, spec_json, held, time.monotonic())
        return {"ticket": ticket, "phone": _phone_of(held)}

    def run(self, ticket: str, spec_json: str, driver: str) -> dict[str, Any]:
        """Second half: run the episode on the phone :meth:`lease` took (a ticket given back in
        the meantime leases afresh), with the in-host retries on another phone of this host that
        a local run has; the record and its trace files (the driver writes both). A ticket leased
        before the host began to leave still runs (:meth:`drain` waits for it); one given back
        since answers ``{"leaving": True}``."""
        with self._lock:
            if self._leaving and ticket not in self._held:
                return {"leaving": True}
            held = self._held.pop(ticket, (None, None, None, None))[2]
            cancelled = self._drivers.setdefault(driver, threading.Event())
            self._inflight += 1
            spec = EpisodeSpec.model_validate_json(spec_json)
            self._running[ticket] = (spec.episode_id, _phone_of(held))
        first = [held] if held is not None else []
        rd = RunDir(self._tmp / f"{spec.episode_id}-{time.monotonic_ns()}")
        rd.traces.mkdir(parents=True, exist_ok=True)
        try:
            rec = run_with_retries(spec, rd, lambda s: first.pop() if first else self._lease(s), self._instance,
                                   lambda s: self._policy(s, cancelled))
            traces = trace_files(rd.traces / spec.episode_id)
            return {"record": rec.model_dump(mode="json"), "traces": traces}
        finally:
            for unused in first:  # run_with_retries stopped before its first attempt
                unused.release(False)
            shutil.rmtree(rd.path, ignore_errors=True)
            with self._lock:
                self._inflight -= 1
                self._running.pop(ticket, None)

    def running(self) -> dict[str, str | None]:
        """The episodes running here now and the phone (or sim target) each started on."""
        with self._lock:
            return dict(self._running.values())

    def leased(self) -> list[dict[str, str | None]]:
        """Every episode that holds a phone or page here: running, or leased and about to run
        (what a worker that leaves without draining names as left leased)."""
        with self._lock:
            out = [{"episode": ep, "phone": phone, "state": "running"} for ep, phone in self._running.values()]
            for _, spec_json, held, _ in self._held.values():
                out.append({"episode": EpisodeSpec.model_validate_json(spec_json).episode_id,
                            "phone": _phone_of(held), "state": "leased"})
        return out

    def release(self, ticket: str) -> None:
        """Give back a phone :meth:`lease` took for an episode that will not run here."""
        with self._lock:
            got = self._held.pop(ticket, None)
        if got is not None and got[2] is not None:
            got[2].release(False)

    def _sweep(self, *, drivers_but: str | None = None, older_than: float = HOLD_S) -> None:
        """Release leases no :meth:`run` came for: a driver that died between the two halves,
        or one superseded by ``drivers_but``."""
        now = time.monotonic()
        with self._lock:
            stale = [k for k, (d, _, _, t0) in self._held.items()
                     if now - t0 > older_than or (drivers_but is not None and d != drivers_but)]
        for k in stale:
            self.release(k)

    def events(self, since: int = 0) -> list[tuple[float, str, str]]:
        """Farm events (joins, departures, quarantines) from index ``since`` on."""
        return list(self.devices.farm.events[since:]) if self.devices is not None else []

    def drain(self, timeout: float = 600.0) -> int:
        """Stop taking episodes and wait for those in flight (Ctrl-C on a worker): the running
        ones and those leased whose run is on its way. How many were still there at ``timeout``.
        Leaving first, so a driver cannot keep the host busy by sending more as each one ends."""
        self._leaving = True
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self._sweep()  # a lease whose run never comes (its driver died) is given back
            with self._lock:
                left = self._inflight + len(self._held)
            if not left:
                break
            time.sleep(0.2)
        return left

    def close(self) -> list[dict[str, Any]]:
        """Close the farm (teardown, restore, audit) and the pages; the phones' closing reports."""
        reports: list[dict[str, Any]] = []
        self._sweep(older_than=-1.0)
        if self.env_server is not None:  # its sessions end with the host: clients get HostLost
            self.env_server.stop()
            self.env_server = None
        for b in (self.sim, self.devices):
            if b is None:
                continue
            try:
                got = b.close()
                if isinstance(got, list):
                    reports = got
            except Exception:  # noqa: BLE001
                pass
        self.sim = self.devices = None
        shutil.rmtree(self._tmp, ignore_errors=True)
        return reports

    # ------------------------------------------------------------------ LocalExecutor's callbacks
    def _lease(self, spec: EpisodeSpec) -> Any:
        b = self.sim if spec.backend == "sim" else self.devices
        if b is None:
            from ..runner import InfraError

            raise InfraError(f"host {self.name} has no {spec.backend} backend")
        return b.lease(spec)

    def _instance(self, spec: EpisodeSpec) -> Any:
        from ..tasks.loader import get_template
        from ..tasks.model import make_context

        ctx = make_context(self.test_recipient) if self.test_recipient else None
        return get_template(spec.task_id).instantiate(spec.seed, ctx)

    def _policy(self, spec: EpisodeSpec, cancelled: threading.Event) -> Any:
        from ..policies.registry import make_policy

        key = (spec.policy_spec, threading.get_ident())
        p = self._policies.get(key)
        if p is None:
            p = self._policies[key] = make_policy(spec.policy_spec)
        p.name = spec.policy
        return _Cancellable(p, cancelled)
