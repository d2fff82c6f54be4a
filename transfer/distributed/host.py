"""The long-lived per-host actor: one host's :class:`~device.farm.DeviceFarm` and/or sim pool.

The farm is used unchanged (its own adb server, hotplug, quarantine, reconnect, journal and
restore): each episode is run here exactly as :class:`~transfer.runner.LocalExecutor` runs it
(the same in-host retries on another phone of this host), in a private trace directory whose
files travel back with the record. Nothing on a host writes the driver's run directory.

A driver announces itself with :meth:`EpisodeHost.begin`; episodes of any earlier driver still
in flight (a driver that crashed) are cancelled at their next step: the step answers like an
unreachable policy server, so the episode's setup is undone and the phone stays in service, and
the dead driver's result is never read.
"""

from __future__ import annotations

import os
import platform
import shutil
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from ..policies.base import BasePolicy, PolicyServerOutage
from ..rundir import RunDir
from ..runner import EpisodeSpec, LocalExecutor
from .dispatcher import trace_files

HOST_PREFIX = "s2r-host:"
NAMESPACE = "s2r"


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
        self.error: str | None = None
        self._lock = threading.Lock()
        self._policies: dict[tuple[str, int], BasePolicy] = {}
        self._drivers: dict[str, threading.Event] = {}
        self._inflight = 0
        self._tmp = Path(tempfile.mkdtemp(prefix=f"s2r-{name}-"))
        try:
            self._open(device, sim_pages, device_run or {})
        except Exception as e:  # noqa: BLE001 - reported to the driver by info(), one line
            self.error = f"host {name}: {str(e).splitlines()[0] if str(e) else type(e).__name__}"[:400]

    def _open(self, device: str | None, sim_pages: int, device_run: dict[str, Any]) -> None:
        if sim_pages > 0:
            from ..backends import SimBackends

            self.sim = SimBackends(pages=sim_pages)
        if device:
            from device.env import DeviceOptions

            from ..device_backends import DeviceBackends
            from ..session import DeviceRunOptions

            dr = DeviceRunOptions(**device_run)
            opts: dict[str, Any] = {"grant_appops": dr.grant_appops}
            if self.test_recipient:
                opts["test_recipient"] = self.test_recipient
            self.devices = DeviceBackends.from_spec(device, options=DeviceOptions(**opts), knobs=dr.vdevice_knobs(),
                                                    android=dr.vdevice_android, wait_devices=dr.wait_devices)

    # ------------------------------------------------------------------ what the driver asks
    def info(self) -> dict[str, Any]:
        phones = len(self.devices.farm.devices()) if self.devices is not None else 0
        pages = self.sim.pool.pages_per_profile if self.sim is not None else 0
        return {"name": self.name, "versions": versions(), "capacity": {"sim": pages, "device": phones},
                "error": self.error, "pid": os.getpid(), "adb_port": self.adb_port,
                "phones": self.devices.describe() if self.devices is not None else []}

    def begin(self, driver: str) -> int:
        """A driver takes over: cancel what any other driver left in flight here."""
        with self._lock:
            for d, ev in self._drivers.items():
                if d != driver:
                    ev.set()
            self._drivers = {d: ev for d, ev in self._drivers.items() if d == driver or self._inflight}
            self._drivers.setdefault(driver, threading.Event())
            return self._inflight

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

    def run(self, spec_json: str, driver: str) -> dict[str, Any]:
        """Run one episode; the record and its trace files (the driver writes both)."""
        spec = EpisodeSpec.model_validate_json(spec_json)
        with self._lock:
            cancelled = self._drivers.setdefault(driver, threading.Event())
            self._inflight += 1
        rd = RunDir(self._tmp / f"{spec.episode_id}-{time.monotonic_ns()}")
        rd.traces.mkdir(parents=True, exist_ok=True)
        try:
            ex = LocalExecutor(self._lease, self._instance, lambda s: self._policy(s, cancelled), workers=1,
                               progress=False)
            rec = ex._one(spec, rd)
            traces = trace_files(rd.traces / spec.episode_id)
            return {"record": rec.model_dump(mode="json"), "traces": traces}
        finally:
            shutil.rmtree(rd.path, ignore_errors=True)
            with self._lock:
                self._inflight -= 1

    def events(self, since: int = 0) -> list[tuple[float, str, str]]:
        """Farm events (joins, departures, quarantines) from index ``since`` on."""
        return list(self.devices.farm.events[since:]) if self.devices is not None else []

    def drain(self, timeout: float = 600.0) -> int:
        """Wait for the episodes in flight (Ctrl-C on a worker); how many were still running."""
        deadline = time.monotonic() + timeout
        while self._inflight and time.monotonic() < deadline:
            time.sleep(0.2)
        return self._inflight

    def close(self) -> list[dict[str, Any]]:
        """Close the farm (teardown, restore, audit) and the pages; the phones' closing reports."""
        reports: list[dict[str, Any]] = []
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
