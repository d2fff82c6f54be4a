"""A farm of phones behind one adb server: discovery, hotplug, leases, health, reconnects.

* **Discovery and hotplug**: a watcher thread polls the adb server's device list (the
  ``host:devices`` query ``adb devices`` uses) every ``poll_s``; USB phones plugged in and
  TCP phones connected later join the farm (when no serial filter is given), phones that
  vanish leave rotation.
* **Leases**: one episode per phone at a time. :meth:`DeviceFarm.lease` blocks until a
  healthy idle phone is free. Each phone keeps one :class:`~device.env.DeviceEnv` across
  episodes (uiautomator2 starts once); its ``reset`` undoes the previous episode's setup.
* **Health**: a phone released normally gets a quick shell check; a phone released
  ``broken=True`` (an infrastructure error) is *quarantined* until the watcher sees it
  answer again, and then gets a fresh ``DeviceEnv`` (which cleans up after the episode it
  lost via the on-disk journal).
* **Heat and battery**: between episodes (at release, and at lease when the last reading is
  older than ``limits.fresh_s``) the farm reads one ``dumpsys battery``; a phone below
  ``limits.min_battery`` % or above ``limits.max_temp`` °C is *paused* — its lease goes to nothing —
  and the watcher reads it again every ``limits.recheck_s`` until it recovers past the hysteresis
  margin (:mod:`device.farm_health` has the rule and why). Each pause and resume is a farm event,
  with its reason and reading, kept in :attr:`DeviceFarm.health_log` and in the phone's closing
  report (``phone_audit.json`` of a run). :meth:`DeviceFarm.health` is each phone's state now.
* **Reconnects**: a TCP phone (``HOST:PORT``) that goes offline or disappears is
  re-``connect``-ed through the adb server; an offline USB phone gets the server's
  ``reconnect-offline`` (what ``adb reconnect offline`` sends) — never ``kill-server``, which
  would drop every other phone on the host.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, Field

from .farm_health import HealthLimits, read_battery, verdict

__all__ = ["DeviceFarm", "FarmDevice", "FarmLease", "HealthLimits", "NoDeviceAvailable", "NoDevicesError", "is_tcp_serial",
           "wait_for_devices", "STATE_FIXES"]

log = logging.getLogger(__name__)
_TCP = re.compile(r"^[\w.\-]+:\d{1,5}$")

Status = Literal["idle", "busy", "quarantined", "paused", "gone"]


def is_tcp_serial(serial: str) -> bool:
    return bool(_TCP.match(serial))


class NoDeviceAvailable(RuntimeError):
    """No healthy phone became free within the lease timeout."""


class FarmDevice(BaseModel):
    serial: str
    adb_state: str | None = None
    status: Status = "idle"
    model: str | None = None
    virtual: bool | None = None
    leases: int = 0
    failures: int = 0
    last_error: str | None = None
    since: float = Field(default_factory=time.time)
    pause_reason: str | None = Field(None, description="Why the phone rests (heat, battery); None unless paused.")
    battery: dict[str, Any] | None = Field(None, description="The last `dumpsys battery` (BatteryReading.summary).")
    battery_at: float | None = Field(None, description="When it was read (time.time()).")
    pauses: int = 0


@dataclass
class FarmLease:
    serial: str
    env: Any
    farm: "DeviceFarm"
    released: bool = False
    info: dict[str, Any] = field(default_factory=dict)

    def release(self, broken: bool = False, error: str | None = None) -> None:
        if not self.released:
            self.released = True
            self.farm.release(self.serial, broken=broken, error=error)


class DeviceFarm:
    """Phones of one adb server, leased one episode at a time."""

    def __init__(self, client: Any = None, *, serials: list[str] | None = None,
                 env_factory: Callable[[str], Any] | None = None, poll_s: float = 0.5,
                 reconnect: bool = True, reconnect_every_s: float = 2.0, limits: HealthLimits | None = None):
        """``limits``: the heat-and-battery rule (:class:`HealthLimits`; its defaults when None)."""
        from device.adb import client as default_client

        self.client = client or default_client()
        self.serials = list(serials) if serials else None
        self.env_factory = env_factory or self._default_env
        self.poll_s = poll_s
        self.reconnect = reconnect
        self.reconnect_every_s = reconnect_every_s
        self._devices: dict[str, FarmDevice] = {}
        self._envs: dict[str, Any] = {}
        self.closing_reports: list[dict[str, Any]] = []  # per phone at close: teardown leftovers + audit
        self._cond = threading.Condition()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._last_reconnect: dict[str, float] = {}
        self.events: list[tuple[float, str, str]] = []
        self.limits = limits or HealthLimits()
        #: per phone, every pause and resume: {"t", "what": "paused"|"resumed", "reason", "battery"}
        self.health_log: dict[str, list[dict[str, Any]]] = {}
        self._checking: set[str] = set()

    @staticmethod
    def _default_env(serial: str) -> Any:
        from device.env import DeviceEnv

        return DeviceEnv(serial)

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> "DeviceFarm":
        self.poll_once()
        if self._thread is None:
            self._thread = threading.Thread(target=self._watch, name="device-farm", daemon=True)
            self._thread.start()
        return self

    def close(self) -> None:
        """Stop watching; close every phone's env (undoing setups and tweaks)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
        with self._cond:
            envs = list(self._envs.items())
            self._envs.clear()
            self._cond.notify_all()
        for serial, env in envs:
            try:
                env.close()
            except Exception as e:  # noqa: BLE001
                log.warning("closing %s: %s", serial, e)
            audit = getattr(env, "audit", None)
            self.closing_reports.append({
                "serial": serial, "left": list(getattr(env, "left_total", []) or []),
                "audit": audit.model_dump(mode="json") if audit is not None else None,
                "capabilities": (env.pf.capabilities.model_dump(mode="json")
                                 if getattr(env, "pf", None) is not None and env.pf.capabilities is not None else None),
                "apps": ({a: x.model_dump(mode="json") for a, x in env._apps.items()}
                         if getattr(env, "_apps", None) else None),
                "audit_summary": audit.summary() if audit is not None else "no audit (not started or lost)",
                "health": self._health_report(serial)})
        reported = {r["serial"] for r in self.closing_reports}
        for serial in sorted(set(self.health_log) - reported):  # paused before it ever ran an episode
            self.closing_reports.append({"serial": serial, "left": [], "audit": None, "capabilities": None,
                                         "apps": None, "audit_summary": "never leased",
                                         "health": self._health_report(serial)})

    def __enter__(self) -> "DeviceFarm":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ discovery
    def _event(self, serial: str, what: str) -> None:
        self.events.append((time.time(), serial, what))
        log.info("farm: %s %s", serial, what)

    def poll_once(self) -> None:
        """One look at the adb server: joins, departures, recoveries, reconnects."""
        try:
            infos = {i.serial: i.state for i in self.client.list()}
        except Exception as e:  # noqa: BLE001 - the server is restarting: try again next round
            log.debug("adb server list failed: %s", e)
            return
        wanted = set(self.serials) if self.serials is not None else set(infos)
        recover: list[str] = []
        with self._cond:
            for serial in wanted | set(self._devices):
                state = infos.get(serial)
                dev = self._devices.get(serial)
                if dev is None:
                    if serial not in wanted:
                        continue
                    dev = self._devices[serial] = FarmDevice(serial=serial, adb_state=state,
                                                             status="idle" if state == "device" else "gone")
                    self._event(serial, f"joined ({state})")
                    self._cond.notify_all()
                dev.adb_state = state
                if state != "device":
                    if dev.status in ("idle", "paused"):
                        dev.status, dev.since = "gone", time.time()
                        self._event(serial, f"left ({state or 'absent'})")
                    if self.reconnect:
                        self._maybe_reconnect(serial, state)
                elif dev.status in ("gone", "quarantined"):
                    recover.append(serial)
                elif dev.status == "paused" and serial not in self._checking \
                        and time.time() - (dev.battery_at or 0.0) >= self.limits.recheck_s:
                    self._checking.add(serial)
                    threading.Thread(target=self._recheck, args=(serial,), daemon=True,
                                     name=f"battery-{serial}").start()
        for serial in recover:
            self._try_recover(serial)

    def _maybe_reconnect(self, serial: str, state: str | None) -> None:
        now = time.monotonic()
        if now - self._last_reconnect.get(serial, 0.0) < self.reconnect_every_s:
            return
        self._last_reconnect[serial] = now

        def go() -> None:
            try:
                if is_tcp_serial(serial):
                    if state is not None:  # offline: the server holds a dead transport
                        self.client.disconnect(serial)
                    self.client.connect(serial, timeout=3)
                elif state == "offline":  # USB: ask the server to re-handshake offline transports
                    with self.client.make_connection(timeout=5) as c:
                        c.send_command("host:reconnect-offline")
                        c.check_okay()
            except Exception as e:  # noqa: BLE001
                log.debug("reconnect %s: %s", serial, e)

        threading.Thread(target=go, daemon=True, name=f"reconnect-{serial}").start()

    def _try_recover(self, serial: str) -> None:
        """A gone/quarantined phone answers again: fresh env, back into rotation if healthy."""
        with self._cond:
            old = self._envs.pop(serial, None)
        if old is not None:
            try:
                old.closed = True  # its u2 link and setup journal belong to a dead session
                if getattr(old, "u2", None) is not None:
                    old.u2.stop_uiautomator(wait=False)
            except Exception:  # noqa: BLE001
                pass
        try:
            from device.adbshell import Shell

            shell = Shell(self.client, serial)
            ok = shell.run(["echo", "ok"], timeout=10).out.strip() == "ok"
            with self._cond:
                dev = self._devices.get(serial)
                waits_for_person = dev is not None and (dev.last_error or "").startswith("start: DeviceNotReady")
            if ok and waits_for_person:
                # a phone that could not start because it needs a person (a PIN lock): answering
                # adb is not recovery; it comes back only once its keyguard is gone (a person
                # unlocked it), so each lease does not re-run its preflight against the lock
                from device.preflight import _keyguard_now

                ok = _keyguard_now(shell)[0] is not True
        except Exception:  # noqa: BLE001
            ok = False
        with self._cond:
            dev = self._devices.get(serial)
            if dev is None or dev.status == "busy":
                return
            if ok:
                dev.status, dev.since = "idle", time.time()
                dev.battery_at = None  # read afresh before its next episode
                self._event(serial, "back in rotation")
                self._cond.notify_all()

    def _watch(self) -> None:
        while not self._stop.wait(self.poll_s):
            try:
                self.poll_once()
            except Exception as e:  # noqa: BLE001
                log.warning("farm watcher: %s", e)

    # ------------------------------------------------------------------ leases
    def devices(self) -> list[FarmDevice]:
        with self._cond:
            return [d.model_copy() for d in self._devices.values()]

    def env(self, serial: str) -> Any:
        with self._cond:
            env = self._envs.get(serial)
            if env is None:
                env = self._envs[serial] = self.env_factory(serial)
            return env

    def lease(self, timeout: float = 300.0, exclude: set[str] | None = None) -> FarmLease:
        """The next healthy idle phone (blocks up to ``timeout`` s)."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                idle = [d for d in self._devices.values() if d.status == "idle" and d.adb_state == "device"
                        and d.serial not in (exclude or set())]
                if idle:
                    dev = min(idle, key=lambda d: (d.leases, d.serial))
                    dev.status, dev.since = "busy", time.time()
                    stale = time.time() - (dev.battery_at or 0.0) >= self.limits.fresh_s
                    if not (self.limits.enabled and stale):
                        dev.leases += 1
                        break
                    self._cond.release()  # one `dumpsys battery` before it is handed out
                    try:
                        rests = not self._check(dev.serial, paused=False)
                    finally:
                        self._cond.acquire()
                    if not rests and dev.status == "busy":
                        dev.leases += 1
                        break
                    continue
                left = deadline - time.monotonic()
                if left <= 0 or self._stop.is_set():
                    states = {d.serial: d.status for d in self._devices.values()}
                    raise NoDeviceAvailable(f"no healthy idle phone within {timeout:.0f}s (phones: {states or 'none'})")
                self._cond.wait(min(left, 1.0))
        env = self.env(dev.serial)
        info = {"serial": dev.serial}
        try:
            pf = env.start()
            dev.model, dev.virtual = pf.model, pf.virtual
            info.update(model=pf.model, virtual=pf.virtual, flavor=pf.flavor, profile=pf.model)
            families = getattr(env, "app_families", None)
            if families is not None:
                info["app_families"] = families()
        except Exception as e:  # noqa: BLE001 - a phone that cannot start is quarantined; try another
            self.release(dev.serial, broken=True, error=f"start: {type(e).__name__}: {e}")
            return self.lease(max(1.0, deadline - time.monotonic()), exclude=(exclude or set()) | {dev.serial})
        return FarmLease(serial=dev.serial, env=env, farm=self, info=info)

    # ------------------------------------------------------------------ heat and battery
    def _check(self, serial: str, *, paused: bool, free: bool = True) -> bool:
        """Read the phone's battery and apply the rule; True when it may work. A phone that must
        rest is paused here (an event, a :attr:`health_log` entry); a paused one that recovered
        goes back to idle when ``free`` (at release the caller decides)."""
        reading = read_battery(self.client, serial)
        reason = verdict(reading, self.limits, paused)
        with self._cond:
            dev = self._devices.get(serial)
            if dev is None:
                return reason is None
            now = time.time()
            dev.battery_at = now
            if reading is not None:
                dev.battery = reading.summary()
            summary = dict(dev.battery or {}) if reading is not None else None
            if reason is not None:
                if dev.status != "paused":
                    dev.status, dev.since, dev.pause_reason = "paused", now, reason
                    dev.pauses += 1
                    self._log_health(serial, "paused", reason, summary)
                else:
                    dev.pause_reason = reason
            elif paused and dev.status == "paused":
                why = f"recovered from {dev.pause_reason}"
                dev.pause_reason = None
                dev.status, dev.since = "idle", now
                self._log_health(serial, "resumed", why, summary)
                self._cond.notify_all()
            elif free and dev.status == "paused":
                dev.status, dev.pause_reason = "idle", None
        return reason is None

    def _log_health(self, serial: str, what: str, reason: str, battery: dict[str, Any] | None) -> None:
        self.health_log.setdefault(serial, []).append({"t": time.time(), "what": what, "reason": reason,
                                                       "battery": battery})
        self._event(serial, f"{what}: {reason}")

    def _recheck(self, serial: str) -> None:
        try:
            self._check(serial, paused=True)
        finally:
            with self._cond:
                self._checking.discard(serial)

    def _health_report(self, serial: str) -> dict[str, Any]:
        dev = self._devices.get(serial)
        return {"limits": self.limits.model_dump(mode="json"), "pauses": list(self.health_log.get(serial, [])),
                "battery": dict(dev.battery) if dev is not None and dev.battery else None,
                "battery_at": dev.battery_at if dev is not None else None}

    def health(self) -> dict[str, dict[str, Any]]:
        """Each phone's health now, for a farm page: ``state`` (``online``, ``paused``, ``quarantined``,
        or the adb state of a phone out of reach: ``offline``, ``unauthorized`` … ``absent``), ``busy``,
        ``reason`` (why it rests, or the error that quarantined it), ``battery`` (level %,
        temperature_c, charging, plugged …, from the last reading; None before one), ``battery_at``,
        ``since`` (when it entered its state), ``model``, ``leases``, ``pauses``, ``failures``."""
        out: dict[str, dict[str, Any]] = {}
        with self._cond:
            for serial, d in sorted(self._devices.items()):
                if d.status in ("idle", "busy"):
                    state = "online"
                elif d.status == "gone":
                    state = d.adb_state or "absent"
                else:
                    state = d.status
                reason = d.pause_reason if d.status == "paused" else d.last_error if d.status == "quarantined" else None
                out[serial] = {"state": state, "busy": d.status == "busy", "reason": reason,
                               "battery": dict(d.battery) if d.battery else None, "battery_at": d.battery_at,
                               "since": d.since, "model": d.model, "leases": d.leases, "pauses": d.pauses,
                               "failures": d.failures}
        return out

    def release(self, serial: str, broken: bool = False, error: str | None = None) -> None:
        """Back into rotation after a health check; ``broken`` quarantines it until it recovers."""
        healthy = False
        if not broken:
            env = self._envs.get(serial)
            try:
                healthy = env.health() if env is not None else True
            except Exception:  # noqa: BLE001
                healthy = False
        rests = False
        if healthy and not broken and self.limits.enabled:
            rests = not self._check(serial, paused=False, free=False)
        with self._cond:
            dev = self._devices.get(serial)
            if dev is None:
                return
            if rests:
                pass  # paused by _check: its lease goes to nothing until it recovers
            elif broken or not healthy:
                dev.status, dev.since = "quarantined", time.time()
                dev.failures += 1
                dev.last_error = error or ("infrastructure error" if broken else "health check failed")
                self._event(serial, f"quarantined: {dev.last_error}")
            else:
                dev.status, dev.since = "idle", time.time()
            self._cond.notify_all()


# ---------------------------------------------------------------------- waiting for phones
class NoDevicesError(RuntimeError):
    """No usable phone appeared on the adb server in time. The message says why and how to fix it
    (the CLI prints it and exits 2)."""


#: What to do about a phone in each adb state (``adb devices`` second column). The states are
#: those of adb's ``ConnectionState`` (packages/modules/adb ``adb.cpp`` ``to_string``).
STATE_FIXES: dict[str, str] = {
    "unauthorized": "unlock the phone and accept the 'Allow USB debugging?' RSA key prompt (tick 'Always allow "
                    "from this computer'); no prompt? Developer options → Revoke USB debugging authorizations, "
                    "then replug",
    "authorizing": "accept the 'Allow USB debugging?' prompt on the phone",
    "offline": "replug the cable (or run `adb reconnect offline`); a Wi-Fi phone: `adb disconnect SERIAL` "
               "then `adb connect SERIAL`; check that USB debugging is still on",
    "connecting": "wait for the phone to finish connecting, or replug it",
    "no permissions": "Linux: the adb server cannot open the USB device; add a udev rule for the phone's vendor "
                      "(or put your user in the plugdev group) and replug",
    "recovery": "the phone is in recovery: reboot it into Android",
    "sideload": "the phone is in sideload mode: reboot it into Android",
    "bootloader": "the phone is in the bootloader: reboot it into Android",
    "absent": "not on the adb server: USB: plug it in with USB debugging on; Wi-Fi: `adb connect HOST:PORT`",
}
NO_PHONE_FIX = ("USB: enable Developer options → USB debugging, plug the phone in and accept the 'Allow USB "
                "debugging?' RSA key prompt; Wi-Fi: `adb connect HOST:PORT` (Wireless debugging: "
                "`adb pair HOST:PORT` first); then check with `s2r devices`")


def _states(client: Any) -> dict[str, str]:
    try:
        return {i.serial: i.state for i in client.list()}
    except Exception as e:  # noqa: BLE001 - the server is (re)starting
        log.debug("adb server list failed: %s", e)
        return {}


def _server_name(client: Any) -> str:
    host, port = getattr(client, "host", None), getattr(client, "port", None)
    return f"{host}:{port}" if host and port else "the adb server"


def wait_for_devices(client: Any, serials: list[str] | None, timeout_s: float = 30.0,
                     echo: Callable[[str], None] | None = None, *, poll_s: float = 0.25) -> list[str]:
    """Wait until phones are usable (adb state ``device``) and return their serials.

    ``serials=None`` (``--device all``): returns as soon as at least one phone is usable (every
    usable phone at that moment). A list: waits until every named phone is usable; when the
    time is up and only some are, those are returned and the others are named with their state.

    It says at once when nothing usable is attached and that it is waiting (progress every few
    seconds through ``echo``), and raises :class:`NoDevicesError` after ``timeout_s`` with the
    fix: for no phone at all, how to attach one; for each phone seen in another state
    (``unauthorized``, ``offline`` …), its serial, its state and the fix for that state. A named
    ``HOST:PORT`` phone the server does not know is ``connect``-ed once, as ``adb connect`` would.
    """
    say = echo or (lambda _m: None)
    wanted = list(dict.fromkeys(serials)) if serials else None
    t0 = time.monotonic()
    deadline = t0 + max(0.0, timeout_s)
    if wanted:
        states = _states(client)
        for s in wanted:
            if s not in states and is_tcp_serial(s):
                try:
                    client.connect(s, timeout=3)
                except Exception as e:  # noqa: BLE001 - reported below with its state
                    log.debug("connect %s: %s", s, e)
    announced = False
    next_progress = t0 + 5.0
    while True:
        states = _states(client)
        if wanted is None:
            ready = sorted(s for s, st in states.items() if st == "device")
            if ready:
                if announced:
                    say(f"phone attached: {', '.join(ready)}")
                return ready
            waiting_on = states
        else:
            ready = [s for s in wanted if states.get(s) == "device"]
            if len(ready) == len(wanted):
                if announced:
                    say(f"phone{'s' if len(ready) > 1 else ''} ready: {', '.join(ready)}")
                return ready
            waiting_on = {s: states.get(s, "absent") for s in wanted if states.get(s) != "device"}
        now = time.monotonic()
        if now >= deadline:
            break
        if not announced:
            announced = True
            say(_waiting_message(wanted, waiting_on, states, timeout_s, _server_name(client)))
        elif now >= next_progress:
            next_progress = now + 5.0
            left = max(0.0, deadline - now)
            say(f"  still waiting ({now - t0:.0f}s of {timeout_s:.0f}s, {left:.0f}s left)"
                + (f": {_describe(waiting_on)}" if waiting_on else ""))
        time.sleep(min(poll_s, max(0.01, deadline - now)))
    if wanted and ready:
        say(f"continuing with {', '.join(ready)}; not usable: {_describe(waiting_on)}")
        for s, st in waiting_on.items():
            say(f"  {s} ({st}): {STATE_FIXES.get(st, STATE_FIXES['absent'])}")
        return ready
    raise NoDevicesError(_final_message(wanted, waiting_on, timeout_s, _server_name(client)))


def _describe(states: dict[str, str]) -> str:
    return ", ".join(f"{s} is {st}" for s, st in states.items())


def _waiting_message(wanted: list[str] | None, waiting_on: dict[str, str], states: dict[str, str],
                     timeout_s: float, server: str) -> str:
    if wanted is None and not states:
        return f"no phone is attached to the adb server ({server}); waiting up to {timeout_s:.0f}s for one..."
    if wanted is None:
        return (f"no usable phone on the adb server ({server}): {_describe(waiting_on)}; "
                f"waiting up to {timeout_s:.0f}s...")
    return f"waiting up to {timeout_s:.0f}s for {_describe(waiting_on)}..."


def _final_message(wanted: list[str] | None, waiting_on: dict[str, str], timeout_s: float, server: str) -> str:
    if not waiting_on:
        return (f"no phone is attached to the adb server ({server}) after waiting {timeout_s:.0f}s. "
                f"Fix: {NO_PHONE_FIX}")
    lines = [f"no usable phone after waiting {timeout_s:.0f}s on the adb server ({server}):"]
    for s, st in waiting_on.items():
        lines.append(f"  {s} is {st}: {STATE_FIXES.get(st, 'check the phone and the cable, then `adb devices`')}")
    return "\n".join(lines)
