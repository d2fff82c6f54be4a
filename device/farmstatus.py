"""What a run is doing on each phone it holds, published for the farm page to read.

Why a run publishes instead of the page asking the phones: a live screenshot read off the phone
would be one more ``screencap`` per second on a phone that is busy with an episode. The run
already has the screen its policy saw; it keeps a reference to it (no copy, no extra read), so
watching a phone adds nothing to it.

* :class:`Publisher` (one per process, :func:`publisher`): per leased phone the run, task,
  episode, step and the last observation's screenshot bytes, and for each device farm the run
  uses its phones' farm states and ``DeviceFarm.health()`` (paused and why). The hooks in the
  runner (:func:`hold`, :func:`release`, :func:`watch`) and the policy loop (:func:`step`) feed it.
* The run's status endpoint: a tiny HTTP server on 127.0.0.1 (a random port), started the first
  time the run holds a phone, answering ``GET /status`` (JSON) and ``GET /shot?serial=S`` (the
  image bytes), each only with the run's token. ``S2R_FARM_PUBLISH=0`` keeps a run off the page.
* The registry: ``~/.s2r/farm/runs/<pid>.json`` (the directory 0700, the file 0600: the port and
  the token, readable by this user alone), removed when the process exits; :func:`live_runs`
  reads it and deletes entries whose process is gone.
* :func:`read_facts` / :func:`read_battery`: what the page reads from an attached phone itself
  (``getprop``, ``dumpsys battery``) — reads only, never input, never a setting.

Nothing here ever fails an episode: every hook swallows its own errors.
"""

from __future__ import annotations

import atexit
import hmac
import logging
import os
import secrets
import socket
import threading
import time
import weakref
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from pydantic import BaseModel, Field

__all__ = ["Battery", "FactsCache", "HeldPhone", "PhoneFacts", "PhoneReading", "Publisher", "RunEntry", "RunStatus",
           "battery_of", "hold",
           "image_type", "live_runs", "publisher", "read_battery", "read_facts", "registry_dir", "release", "step"]

log = logging.getLogger(__name__)


# ---------------------------------------------------------------------------------------- models
class HeldPhone(BaseModel):
    """One phone a run holds now: what it runs there and how far it got."""

    serial: str
    run: str = Field(description="The run directory.")
    run_id: str = Field(description="The run directory's name.")
    task: str
    seed: int = 0
    episode: str
    attempt: int = 1
    policy: str = ""
    step: int = 0
    since: float = Field(description="When the run leased the phone (epoch s).")
    updated: float = Field(description="When the last step (or the lease) was published.")
    shot_seq: int = Field(0, description="The screenshot's number, unique in the publishing process; 0: none yet.")
    shot_step: int | None = Field(None, description="The step whose observation the screenshot is.")
    shot_type: str | None = None
    model: str | None = None
    app_families: dict[str, str] | None = None


class FarmPhone(BaseModel):
    """A phone of a run's device farm as the farm sees it (leases, quarantine, pauses)."""

    serial: str
    status: str = Field(description="idle | busy | quarantined | gone, or a pause the farm reports.")
    reason: str | None = None
    since: float | None = None
    battery: dict[str, Any] | None = Field(None, description="The readings the farm paused on, when it has them.")


class RunStatus(BaseModel):
    """What a run's status endpoint answers."""

    pid: int
    host: str
    run: str | None = None
    started: float
    held: list[HeldPhone] = Field(default_factory=list)
    farm: list[FarmPhone] = Field(default_factory=list)


class RunEntry(BaseModel):
    """One run's registry entry (``~/.s2r/farm/runs/<pid>.json``)."""

    pid: int
    host: str
    port: int
    token: str
    run: str | None = None
    started: float


class Battery(BaseModel):
    """``dumpsys battery`` as the page shows it (:class:`device.parsers.battery.BatteryReading`'s summary)."""

    level: float | None = Field(None, description="Charge in %.")
    temperature_c: float | None = None
    status: str | None = Field(None, description="charging | discharging | not charging | full | unknown")
    health: str | None = Field(None, description="good | overheat | cold | dead …")
    charging: bool | None = None
    plugged: list[str] = Field(default_factory=list, description="ac, usb, wireless, dock: the chargers online.")
    updates_stopped: bool = False


class PhoneFacts(BaseModel):
    """What a phone is (read once per appearance: ``getprop``)."""

    serial: str
    model: str | None = None
    manufacturer: str | None = None
    android: str | None = None
    sdk: int | None = None
    virtual: bool = False
    family: str | None = Field(None, description="The phone's family: a virtual phone's ro.s2r.family, else the "
                                                 "manufacturer's family in the app registry.")


# ---------------------------------------------------------------------------------------- reading a phone
def battery_of(text: str | bytes) -> Battery:
    """``dumpsys battery`` → :class:`Battery`; an empty one when the text is not that dump."""
    from device.parsers._common import ParseError
    from device.parsers.battery import parse_battery

    try:
        reading = parse_battery(text)
    except ParseError:
        return Battery()
    return Battery.model_validate(reading.summary())


def read_facts(client: Any, serial: str) -> PhoneFacts:
    """A phone's model, maker and Android release (one ``getprop``)."""
    from device.adbshell import Shell
    from device.parsers.getprop import device_info_from_props, parse_getprop
    from device.preflight import is_virtual

    props = parse_getprop(Shell(client, serial, timeout=10).out(["getprop"]))
    info = device_info_from_props(props)
    virtual = is_virtual(props)
    family = props.get("ro.s2r.family") if virtual else None
    if not family:
        try:
            from actionmap.apps import registry

            family = registry().family_of(info.manufacturer)
        except Exception:  # noqa: BLE001
            family = None
    return PhoneFacts(serial=serial, model=info.model, manufacturer=info.manufacturer, android=info.android_version,
                      sdk=info.sdk, virtual=virtual, family=family)


def read_battery(client: Any, serial: str) -> Battery:
    """One ``dumpsys battery`` (a read; ``dumpsys battery set …`` is never sent)."""
    from device.adbshell import Shell

    return battery_of(Shell(client, serial, timeout=10).out(["dumpsys", "battery"]))


class PhoneReading(BaseModel):
    """One attached phone as read from its adb server: its state, what it is, its battery."""

    serial: str
    adb_state: str = Field(description="adb's state: device, unauthorized, offline … (absent: not listed).")
    facts: PhoneFacts | None = None
    battery: Battery | None = None
    battery_at: float | None = None
    error: str | None = None


class FactsCache:
    """Reads phones a little at a time: ``getprop`` once per phone while it stays attached, ``dumpsys
    battery`` at most every ``battery_every`` s. Reads happen only when someone asks (a page polled)."""

    def __init__(self, battery_every: float = 10.0):
        self.battery_every = battery_every
        self._facts: dict[str, PhoneFacts] = {}
        self._battery: dict[str, tuple[float, Battery]] = {}
        self._lock = threading.Lock()

    def read(self, client: Any, states: dict[str, str]) -> list[PhoneReading]:
        from concurrent.futures import ThreadPoolExecutor

        with self._lock:  # a phone that left is read afresh when it comes back (it may be another)
            for gone in set(self._facts) - set(states):
                self._facts.pop(gone, None)
                self._battery.pop(gone, None)

        def one(serial: str) -> PhoneReading:
            state = states[serial]
            r = PhoneReading(serial=serial, adb_state=state)
            if state != "device":
                return r
            try:
                facts = self._facts.get(serial)
                if facts is None:
                    facts = self._facts[serial] = read_facts(client, serial)
                r.facts = facts
                at, bat = self._battery.get(serial, (0.0, None))
                if bat is None or time.time() - at >= self.battery_every:
                    at, bat = time.time(), read_battery(client, serial)
                    self._battery[serial] = (at, bat)
                r.battery, r.battery_at = bat, at
            except Exception as e:  # noqa: BLE001 - shown on the page, tried again next time
                r.error = f"{type(e).__name__}: {e}"[:200]
            return r

        if not states:
            return []
        with ThreadPoolExecutor(max_workers=min(8, len(states))) as pool:
            return list(pool.map(one, sorted(states)))


def image_type(data: bytes) -> str:
    """The MIME type of screenshot bytes (PNG or JPEG; the observation's own format)."""
    return "image/jpeg" if data[:3] == b"\xff\xd8\xff" else "image/png"


# ---------------------------------------------------------------------------------------- the registry
def registry_dir() -> Path:
    """``~/.s2r/farm/runs`` of the user running this process."""
    return Path.home() / ".s2r" / "farm" / "runs"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process took the pid: not this user's run
        return False
    return True


def live_runs(root: Path | None = None) -> list[RunEntry]:
    """The runs registered on this host whose process is alive; entries of dead processes are removed."""
    root = root or registry_dir()
    out: list[RunEntry] = []
    for f in sorted(root.glob("*.json")) if root.is_dir() else []:
        try:
            entry = RunEntry.model_validate_json(f.read_text())
        except Exception:  # noqa: BLE001 - half-written (a run starting) or foreign: look again next time
            continue
        if entry.host == socket.gethostname() and not _alive(entry.pid):
            f.unlink(missing_ok=True)
            continue
        out.append(entry)
    return out


# ---------------------------------------------------------------------------------------- the publisher
class _Held:
    __slots__ = ("status", "shot")

    def __init__(self, status: HeldPhone):
        self.status = status
        self.shot: bytes | None = None


class Publisher:
    """This process's phones held by runs, and the endpoint that shows them (see the module docstring)."""

    def __init__(self, root: Path | None = None):
        self.root = root
        self.started = time.time()
        self.run: str | None = None
        self._lock = threading.Lock()
        self._held: dict[str, _Held] = {}
        self._farms: list[weakref.ref[Any]] = []  # a farm that is gone leaves the status with it
        self._server: ThreadingHTTPServer | None = None
        self._token = secrets.token_urlsafe(24)
        self._entry: Path | None = None
        self._seq = 0

    # -- what the run tells
    def hold(self, info: dict[str, Any], *, run: str, task: str, seed: int, episode: str, attempt: int,
             policy: str) -> None:
        serial = info.get("serial")
        if not serial:
            return  # a sim page: not a phone of the farm
        now = time.time()
        st = HeldPhone(serial=serial, run=run, run_id=Path(run).name, task=task, seed=seed, episode=episode,
                       attempt=attempt, policy=policy, since=now, updated=now, model=info.get("model"),
                       app_families=info.get("app_families") or None)
        with self._lock:
            self.run = self.run or run
            self._held[serial] = _Held(st)
        self._ensure_server()

    def step(self, info: dict[str, Any], step: int, observation: Any) -> None:
        serial = info.get("serial")
        with self._lock:
            h = self._held.get(serial) if serial else None
            if h is None:
                return
            h.status.step, h.status.updated = step, time.time()
            shot = getattr(observation, "screenshot", None) if observation is not None else None
            if shot:
                h.shot = shot
                self._seq += 1  # across episodes: a new episode's first screen is a new number
                h.status.shot_seq = self._seq
                h.status.shot_step, h.status.shot_type = step, image_type(shot)

    def release(self, info: dict[str, Any]) -> None:
        serial = info.get("serial")
        with self._lock:
            if serial:
                self._held.pop(serial, None)

    def watch_farm(self, farm: Any) -> None:
        """A device farm whose phones' states (and health, where it reports it) the status carries."""
        with self._lock:
            self._farms = [r for r in self._farms if r() is not None]
            if farm is not None and all(r() is not farm for r in self._farms):
                self._farms.append(weakref.ref(farm))

    # -- what the page reads
    def status(self) -> RunStatus:
        with self._lock:
            held = [h.status.model_copy() for h in self._held.values()]
            farms = [f for f in (r() for r in self._farms) if f is not None and not _closed(f)]
        return RunStatus(pid=os.getpid(), host=socket.gethostname(), run=self.run, started=self.started, held=held,
                         farm=[p for f in farms for p in _farm_phones(f)])

    def shot(self, serial: str) -> tuple[bytes, str] | None:
        with self._lock:
            h = self._held.get(serial)
            if h is None or not h.shot:
                return None
            return h.shot, h.status.shot_type or image_type(h.shot)

    def shots(self, known: dict[str, int] | None = None) -> dict[str, tuple[int, bytes, str]]:
        """The screenshots newer than ``known`` (serial → the seq the caller has)."""
        known = known or {}
        with self._lock:
            return {s: (h.status.shot_seq, h.shot, h.status.shot_type or image_type(h.shot))
                    for s, h in self._held.items() if h.shot and known.get(s) != h.status.shot_seq}

    # -- the endpoint
    @property
    def port(self) -> int | None:
        return self._server.server_address[1] if self._server is not None else None

    def _ensure_server(self) -> None:
        if self._server is not None or os.environ.get("S2R_FARM_PUBLISH", "1") == "0":
            return
        with self._lock:
            if self._server is not None:
                return
            try:
                srv = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
                srv.daemon_threads = True
                threading.Thread(target=srv.serve_forever, name="s2r-farm-status", daemon=True).start()
                self._server = srv
            except OSError as e:
                log.warning("farm status endpoint not started: %s", e)
                return
        self._register()

    def _register(self) -> None:
        root = self.root or registry_dir()
        try:
            root.mkdir(parents=True, exist_ok=True, mode=0o700)
            os.chmod(root, 0o700)
            entry = RunEntry(pid=os.getpid(), host=socket.gethostname(), port=self.port or 0, token=self._token,
                             run=self.run, started=self.started)
            path = root / f"{os.getpid()}.json"
            tmp = root / f".{os.getpid()}.tmp"
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w") as f:
                f.write(entry.model_dump_json())
            os.replace(tmp, path)
            self._entry = path
            atexit.register(self.close)
        except OSError as e:
            log.warning("farm registry not written: %s", e)

    def close(self) -> None:
        """Leave the registry and stop the endpoint (at exit)."""
        if self._entry is not None:
            self._entry.unlink(missing_ok=True)
            self._entry = None
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None


def _closed(farm: Any) -> bool:
    stop = getattr(farm, "_stop", None)
    return bool(stop is not None and stop.is_set())


def _farm_phones(farm: Any) -> list[FarmPhone]:
    """A farm's phones: its own states, then what ``health()`` says of each (a pause and why)."""
    out: dict[str, FarmPhone] = {}
    try:
        for d in farm.devices():
            out[d.serial] = FarmPhone(serial=d.serial, status=d.status, since=d.since,
                                      reason=d.last_error if d.status == "quarantined" else None)
    except Exception:  # noqa: BLE001 - a farm closing
        return []
    health = getattr(farm, "health", None)
    if callable(health):
        try:
            for serial, h in (health() or {}).items():
                h = h if isinstance(h, dict) else getattr(h, "model_dump", lambda: {})()
                cur = out.setdefault(serial, FarmPhone(serial=serial, status="unknown"))
                state = h.get("state")
                if state and state not in ("idle", "busy", "ok", "healthy", "online"):
                    cur.status = str(state)
                cur.reason = h.get("reason") or cur.reason
                cur.since = h.get("since") or cur.since
                bat = h.get("battery")
                cur.battery = bat if isinstance(bat, dict) else getattr(bat, "model_dump", lambda: None)()
        except Exception as e:  # noqa: BLE001
            log.debug("farm health: %s", e)
    return list(out.values())


def _handler(pub: Publisher) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        timeout = 10.0  # a silent client holds its thread this long, no longer

        def log_message(self, *_a: Any) -> None:  # quiet: a run's terminal is its progress bar
            pass

        def do_GET(self) -> None:  # noqa: N802
            got = self.headers.get("Authorization", "").removeprefix("Bearer ").strip()
            if not hmac.compare_digest(got.encode(), pub._token.encode()):
                return self._send(403, b"forbidden", "text/plain")
            url = urlsplit(self.path)
            if url.path == "/status":
                return self._send(200, pub.status().model_dump_json().encode(), "application/json")
            if url.path == "/shot":
                serial = (parse_qs(url.query).get("serial") or [""])[0]
                got_shot = pub.shot(serial)
                if got_shot is None:
                    return self._send(404, b"no screenshot", "text/plain")
                return self._send(200, got_shot[0], got_shot[1])
            return self._send(404, b"not found", "text/plain")

        def _send(self, code: int, body: bytes, ctype: str) -> None:
            try:
                self.send_response(code)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
                self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):  # the reader left: nothing to clean up
                pass

    return Handler


_PUBLISHER: Publisher | None = None
_PLOCK = threading.Lock()


def publisher() -> Publisher:
    """This process's publisher."""
    global _PUBLISHER
    with _PLOCK:
        if _PUBLISHER is None:
            _PUBLISHER = Publisher()
        return _PUBLISHER


# ---------------------------------------------------------------------------------------- the hooks
def hold(info: dict[str, Any], spec: Any, run: Path | str, attempt: int = 1) -> None:
    """The runner leased a phone for ``spec`` (an ``EpisodeSpec``) of the run in ``run``."""
    try:
        publisher().hold(info, run=str(run), task=spec.task_id, seed=spec.seed, episode=spec.episode_id,
                         attempt=attempt, policy=spec.policy)
    except Exception as e:  # noqa: BLE001 - watching never costs an episode
        log.debug("farm status hold: %s", e)


def step(info: dict[str, Any], step_no: int, observation: Any) -> None:
    """The policy loop observed step ``step_no`` on the phone of ``info``."""
    try:
        publisher().step(info, step_no, observation)
    except Exception as e:  # noqa: BLE001
        log.debug("farm status step: %s", e)


def release(info: dict[str, Any]) -> None:
    """The runner gave the phone of ``info`` back."""
    try:
        publisher().release(info)
    except Exception as e:  # noqa: BLE001
        log.debug("farm status release: %s", e)


def watch(source: Any) -> None:
    """Carry the farm behind ``source`` in the status: a ``DeviceFarm``, or an object holding one
    (``.farm``, ``.devices.farm``, a bound method of either). Anything else is ignored."""
    try:
        for obj in (source, getattr(source, "__self__", None)):
            for farm in (obj, getattr(obj, "farm", None), getattr(getattr(obj, "devices", None), "farm", None)):
                if farm is not None and callable(getattr(farm, "devices", None)) and hasattr(farm, "lease"):
                    publisher().watch_farm(farm)
                    return
    except Exception as e:  # noqa: BLE001
        log.debug("farm status watch: %s", e)
