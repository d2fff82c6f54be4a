"""``VirtualPhone``: an Android phone made of a sim phone, a filesystem and an adbd server.

The real ``adb`` server, adbutils and uiautomator2 drive it exactly as they drive a USB
phone (``adb connect 127.0.0.1:PORT``); behind the wire protocol a :class:`sim.env.SimEnv`
(profile ``pixel``, flavor ``aosp`` by default) *is* the phone: its screen, its apps, its
world (settings, contacts, alarms, files ...). Shell commands are answered by
:mod:`device.virtual.android` in real Android output formats.

Public API (for the uiautomator2 JSON-RPC server in ``u2server.py`` and for tests)
---------------------------------------------------------------------------------
All methods are **synchronous, thread-safe and blocking** (a sim render takes 20–500 ms).
From a coroutine on the adbd event loop, call them through :meth:`VirtualPhone.acall`::

    png = await phone.acall(phone.screenshot_png)

so the loop keeps serving other streams. Coordinates are device pixels of the current
(``wm size``-overridden) screen, exactly what ``screencap``/``uiautomator dump`` show.

=====================================  ======================================================
``start()`` / ``stop()``                boot the sim phone and listen; power off (context manager)
``serial`` / ``port``                   ``"127.0.0.1:PORT"`` as ``adb devices`` names it
``screenshot_png() -> bytes``           what ``screencap -p`` prints (animations, screen off,
                                        ``wm size`` override included)
``hierarchy_xml(wait_idle=False)``      what ``uiautomator dump`` writes (``rotation`` attribute)
``elements() -> list[UIElement]``       the same nodes as typed records
``tap(x, y)``                           one touch (input latency and jitter knobs apply)
``long_press(x, y, ms=800)``
``swipe(x0, y0, x1, y1, ms=300)``       equal endpoints and ms ≥ 500 is a long press (Android)
``drag(x0, y0, x1, y1, ms=1000)``       long press, then move
``key(name_or_keycode) -> bool``        ``"back"``, ``"home"``, ``"recent"``, ``4``, ``"KEYCODE_ENTER"`` …
``input_text(text) -> bool``            IME commit into the focused field, Unicode-safe; False
                                        when no field has focus
``clear_text() -> bool``                empty the focused field
``get_clipboard()`` / ``set_clipboard(text)``
``window_size() -> (w, h)``             effective size (override wins), rotated
``rotation`` (property)                 0–3 (the sim is portrait-only: always 0)
``density`` (property)                  effective dpi
``screen_on`` (property)                False after ``KEYCODE_POWER`` / ``SLEEP``, or the screen-off
                                        timeout (knob ``screen_timeout``)
``keyguard_state()`` / ``dismiss_keyguard()``  SystemUI's keyguard (knobs ``locked``, ``locked_pin``):
                                        showing, secure, bouncer; ``wm dismiss-keyguard``
``zone`` / ``local_to_epoch(t)`` / ``epoch_to_local(ts)``  the phone's time zone (knob ``timezone``):
                                        the world's times are its wall times, providers store UTC
``foreground() -> (package, activity)``  focused app, fully qualified activity
``keyboard_visible() -> bool``          the soft keyboard is up
``info() -> dict``                      identity, display, knobs, foreground (JSON-ready)
``register_tcp(port, handler, on_demand=False)``  a device-local TCP service, e.g. the
                                        uiautomator2 server on 9008 (see below)
``read_state()`` / ``patch(p)`` / ``capture()``  the sim world (WorldState), task setup
``open_app(app_id)`` / ``force_stop(package)``
=====================================  ======================================================

uiautomator2's bootstrap, answered by the shell (:mod:`device.virtual.android_am`)
---------------------------------------------------------------------------------
1. ``toybox md5sum /data/local/tmp/u2.jar`` → the real md5 of what was pushed (the VirtualFS);
   u2 then ``adb push``-es the jar when it differs — a real sync transfer.
2. ``CLASSPATH=/data/local/tmp/u2.jar app_process / com.wetest.uia2.Main -p 9008`` (a stream
   shell): prints the server's start-up lines and runs until the host closes the stream
   (uiautomator2's ``stop_uiautomator``). With ``register_tcp(9008, h, on_demand=True)`` port
   9008 accepts connections only while that process runs, as on a phone; with
   ``on_demand=False`` (default) it is always open. A missing jar fails like dalvik does.
3. ``GET /ping`` and ``POST /jsonrpc/0`` go to the handler through ``adb forward`` /
   adbutils ``create_connection(Network.TCP, 9008)``.
4. IME: ``ime list -s -a`` includes ``com.github.uiautomator/.AdbKeyboard`` (installed knob);
   ``am broadcast -a ADB_KEYBOARD_INPUT_TEXT --es text BASE64`` types when that IME is set
   (``result=-1, data="success"``), ``ADB_KEYBOARD_CLEAR_TEXT``/``HIDE``/``SMART_ENTER`` too.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta
from typing import Any, Callable, TypeVar

from actionmap.apps import registry
from actionmap.observation import Bounds, Observation, UIElement
from actionmap.patch import StatePatch
from actionmap.worldstate import WorldState

from .adbd import ConnectionHandler, ThreadedAdbd
from .android_files import PhoneFS, StorageMirror
from .android_keys import key_effect, resolve_keycode
from .families import AOSP, Family, family as _family
from .knobs import REAL_MODELS, PhoneKnobs

__all__ = ["VirtualPhone", "SIM_PACKAGES", "PACKAGE_APPS"]

log = logging.getLogger(__name__)
T = TypeVar("T")

#: Canonical app id → package on an ``aosp``-family phone. A phone's own table is
#: ``phone.family.packages`` (:mod:`device.virtual.families`): read that, not this.
SIM_PACKAGES: dict[str, str] = AOSP.packages
PACKAGE_APPS: dict[str, str] = AOSP.package_apps

#: A stock build id per Android release (what ``ro.build.id`` looks like on a Pixel).
_BUILD_IDS = {11: "RQ3A.211001.001", 13: "TQ3A.230901.001", 14: "AP2A.240805.005", 15: "AP4A.250105.002"}
_PRODUCT_CODENAMES = {"Pixel 7": "panther", "Pixel 7 Pro": "cheetah", "Pixel 8": "shiba"}


def _slug(text: str) -> str:
    return "".join(ch if ch.isalnum() else "_" for ch in text.lower()).strip("_") or "phone"


class VirtualPhone:
    """One virtual Android phone. See the module docstring for the API."""

    def __init__(self, knobs: PhoneKnobs | dict[str, Any] | None = None, *, port: int = 0,
                 host: str = "127.0.0.1", pool: Any = None, serialno: str | None = None,
                 adbd_options: dict[str, Any] | None = None) -> None:
        from sim.env import SimEnv
        from sim.profiles import get_profile

        self.knobs = knobs if isinstance(knobs, PhoneKnobs) else PhoneKnobs.model_validate(knobs or {})
        self.profile = get_profile(self.knobs.profile)
        #: the phone family's apps: packages, activities, intents (device.virtual.families)
        self.family: Family = _family(self.knobs.family)
        self.env = SimEnv(self.profile, flavor=self.knobs.flavor, seed=self.knobs.seed, pool=pool,  # type: ignore[arg-type]
                          image_format="png", step_seconds=0.0)
        self._lock = threading.RLock()
        self._executor = ThreadPoolExecutor(max_workers=8, thread_name_prefix="vphone")
        self._rng = random.Random(f"s2r-vphone:{self.knobs.seed}")
        from zoneinfo import ZoneInfo

        #: persist.sys.timezone: the sim world's times are wall times of this zone
        self.zone = ZoneInfo(self.knobs.timezone)
        # the phone's clock: sim time advances with wall time at knobs.clock_rate
        self._clock_wall = time.monotonic()
        boot_time = json.loads(self.env.capture())["world"].get("time")
        self._clock_sim = datetime.fromisoformat(boot_time) if boot_time else datetime(2027, 1, 1, 9, 0, 0)
        self._state_time = self._clock_sim
        self.fs: PhoneFS = PhoneFS.android(clock=self.now_epoch)  # type: ignore[assignment]
        self.mirror = StorageMirror(self.fs)
        self.mirror.zone = self.zone  # shared storage's times ⇄ the world's local file times
        # display
        self.override_size: tuple[int, int] | None = None
        self.override_density: int | None = None
        self._screen_on = True
        self.booted_at = time.time()
        # power and keyguard (see "Power and keyguard" below): a locked phone boots to its keyguard
        # (KeyguardViewMediator.onSystemReady → doKeyguardLocked)
        self._keyguard = self.knobs.has_lock_screen
        self._bouncer = False
        self._pin_typed = ""
        self._pin_message = ""
        self._lock_at: float | None = None  # a delayed lock (doKeyguardLaterLocked), monotonic
        self._dismiss_pending = False
        self._last_activity = time.monotonic()
        self._keyguard_frame: tuple[Any, bytes] | None = None
        # render cache and animation
        self._rev = 0
        self._cache_rev = -1
        self._cache_obs: Observation | None = None
        self._cache_fg: dict[str, Any] | None = None
        self._cache_shot_rev = -1
        self._cache_shot: bytes = b""
        self._last_frame: bytes = b""
        self._anim_from: bytes = b""
        self._last_action_at = 0.0
        self._ime_rect: tuple[int, int, int, int] | None = None
        #: a screen that keeps moving (a video, a spinner) until this ``time.monotonic()``
        #: deadline (0 = still): every frame differs, the accessibility tree does not, and
        #: ``uiautomator dump`` cannot get idle (see android_input.InputCommands.uiautomator)
        self.animating_until = 0.0
        # on-demand device ports (uiautomator2's server) and their live processes
        self._on_demand: dict[int, ConnectionHandler] = {}
        self._open_ports: dict[int, int] = {}
        from .android_am import PackageManager
        from .android_content import ContentProviders
        from .android_settings import SettingsProvider

        self.settings = SettingsProvider(self)
        self.packages = PackageManager(self)
        self.providers = ContentProviders(self)
        self.serialno = serialno
        from .android import AndroidBackend

        self.backend = AndroidBackend(self)
        self.adbd = ThreadedAdbd(self.backend, host=host, port=port, **(adbd_options or {}))
        self._started = False

    # ------------------------------------------------------------------ lifecycle
    def start(self, timeout: float = 120.0) -> "VirtualPhone":
        """Boot the sim phone (home screen, default world) and start listening for adb."""
        if self._started:
            return self
        with self._lock:
            self.env.reset()
            data = json.loads(self.env.capture())
            data["sys"]["permission_prompts"] = list(self.knobs.permission_prompts)
            if isinstance(data["world"].get("device"), dict):
                data["world"]["device"].update(android_version=str(self.knobs.android), sdk=self.knobs.sdk)
            if not self.knobs.permissive and not self.knobs.google_account:
                # no account, no calendar: CalendarProvider2 holds no events a stock phone without an
                # account could show (an event needs a calendar; view_events joins Calendars)
                data["world"]["events"] = []
            world_time = data["world"].get("time")
            if world_time:
                self._clock_sim = datetime.fromisoformat(world_time)
            self._clock_wall = time.monotonic()
            self._state_time = self._clock_sim
            self.env.restore(json.dumps(data))
            self._rev += 1
            self._sync_files_locked()
        self.adbd.start(timeout=timeout)
        # uiautomator2's on-device server lives on port 9008, open while its app_process runs
        if 9008 not in getattr(self, "_on_demand", {}):
            from .u2server import install_u2server

            install_u2server(self)
        if self.serialno is None:
            self.serialno = self._pixel_serial() if self.knobs.anonymous else f"S2RV{self.adbd.port:05d}"
        self._started = True
        log.info("virtual phone %s up (%s, %s)", self.serial, self.profile.name, self.knobs.flavor)
        return self

    def stop(self) -> None:
        """Stop serving (the adb host sees the device go offline) and release the sim page."""
        if self._started:
            self.adbd.stop()
        self._started = False
        self.env.close()
        self._executor.shutdown(wait=False, cancel_futures=True)

    def __enter__(self) -> "VirtualPhone":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        return self.adbd.port

    @property
    def serial(self) -> str:
        return self.adbd.serial

    # ------------------------------------------------------------------ threading helpers
    async def acall(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run a blocking phone method off the event loop (in the phone's worker pool)."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, lambda: fn(*args, **kwargs))

    # ------------------------------------------------------------------ identity
    def properties(self) -> dict[str, str]:
        """``getprop`` values (also the adbd CNXN banner's ``ro.product.*``).

        An ``anonymous`` phone leaves out ``ro.s2r.*`` and reports the real phone its profile is
        modelled on (:data:`device.virtual.knobs.REAL_MODELS`): a Pixel 7 is ``google/panther``,
        64-bit only (``ro.product.cpu.abilist=arm64-v8a``, ``ro.zygote=zygote64``: the Pixel 7 dropped
        32-bit app support), with a Pixel-like serial number. ``persist.sys.timezone`` is the
        ``timezone`` knob.
        """
        model = self.profile.model
        anonymous = self.knobs.anonymous
        if self.family.identity is not None and model not in REAL_MODELS:
            model = "Pixel 7"  # a google-family phone is a Pixel whatever its screen profile
        manufacturer, brand, codename = REAL_MODELS.get(model) or (
            self.profile.manufacturer, self.profile.manufacturer.lower(), _PRODUCT_CODENAMES.get(model, _slug(model)))
        if self.family.identity is not None:
            manufacturer, brand = self.family.identity
        dev = self._device_info()
        release = str(self.knobs.android)
        sdk = str(self.knobs.sdk)
        build = _BUILD_IDS.get(self.knobs.android) or dev.get("build") or "AP2A.240805.005"
        fingerprint = f"{brand}/{codename}/{codename}:{release}/{build}/11520431:user/release-keys"
        density = self.profile.density
        serial = self.serialno or (self._pixel_serial() if anonymous else "S2RV00000")
        props = {
            "ro.product.model": model, "ro.product.manufacturer": manufacturer,
            "ro.product.brand": brand, "ro.product.name": codename, "ro.product.device": codename,
            "ro.product.board": codename,
            "ro.product.cpu.abi": "arm64-v8a" if anonymous else "x86_64",
            "ro.product.cpu.abilist": "arm64-v8a" if anonymous else "x86_64,arm64-v8a",
            "ro.product.locale": "en-US", "ro.product.vendor.model": model,
            "ro.product.system.manufacturer": manufacturer,
            "ro.build.version.release": release, "ro.build.version.release_or_codename": release,
            "ro.build.version.sdk": sdk, "ro.build.id": build, "ro.build.display.id": f"{build} release-keys",
            "ro.build.type": "user", "ro.build.tags": "release-keys", "ro.build.fingerprint": fingerprint,
            "ro.build.version.security_patch": "2027-03-05", "ro.build.characteristics": "nosdcard",
            "ro.serialno": serial, "ro.boot.serialno": serial,
            "ro.sf.lcd_density": str(density), "ro.hardware": codename, "ro.debuggable": "0", "ro.secure": "1",
            "ro.adb.secure": "1",
            "persist.sys.timezone": self.knobs.timezone, "persist.sys.locale": "en-US",
            "persist.sys.device_name": self.read_settings_field("device_name") or model,
            "sys.boot_completed": "1", "dev.bootcomplete": "1", "init.svc.adbd": "running",
            "service.adb.tcp.port": str(self.adbd.port if self._started else 5555),
            "gsm.operator.alpha": "T-Mobile", "gsm.sim.state": "READY", "ro.config.ringtone": "Your_New_Adventure.ogg",
            "ro.opengles.version": "196610", "ro.zygote": "zygote64" if anonymous else "zygote64_32",
            "ro.kernel.version": "5.10",
        }
        if not anonymous:
            props.update({"ro.s2r.virtual": "1", "ro.s2r.flavor": self.knobs.flavor, "ro.s2r.family": self.knobs.family})
        return props

    def _pixel_serial(self) -> str:
        """A serial number shaped like a Pixel's (14 upper-case alphanumerics), stable per phone."""
        import hashlib

        port = self.adbd.port if getattr(self, "adbd", None) is not None else 0
        digest = hashlib.sha256(f"s2r-serial:{self.knobs.seed}:{port}".encode()).hexdigest().upper()
        return digest[:5] + "FDH" + digest[5:11]

    def _device_info(self) -> dict[str, Any]:
        try:
            return json.loads(self.env.capture())["world"].get("device") or {}
        except Exception:  # noqa: BLE001 - before boot
            return {}

    def read_settings_field(self, name: str) -> Any:
        try:
            return json.loads(self.env.capture())["world"]["settings"].get(name)
        except Exception:  # noqa: BLE001
            return None

    # ------------------------------------------------------------------ clock
    def now(self) -> datetime:
        """The phone's local wall clock (naive, in :attr:`zone`), following wall time at ``clock_rate``."""
        elapsed = (time.monotonic() - self._clock_wall) * self.knobs.clock_rate
        return self._clock_sim + timedelta(seconds=elapsed)

    def now_epoch(self) -> float:
        """The phone's clock as epoch seconds: its local wall time read in its zone."""
        return self.local_to_epoch(self.now())

    def local_to_epoch(self, when: datetime | str) -> float:
        """A naive local wall time of the phone (a ``datetime`` or ISO text) → epoch seconds.

        What a provider stores for a time an app shows (CalendarContract ``dtstart``, ``Sms.DATE``,
        ``CallLog.Calls.DATE`` are UTC epoch milliseconds). A wall time the zone skips (the spring
        DST gap) or repeats (the autumn one) is read with ``fold=0``, as ``java.time`` resolves a
        local time before the transition. An aware ``datetime`` keeps its own offset."""
        dt = datetime.fromisoformat(when) if isinstance(when, str) else when
        if dt.tzinfo is None:
            dt = dt.replace(tzinfo=self.zone)
        return dt.timestamp()

    def epoch_to_local(self, ts: float) -> datetime:
        """Epoch seconds → the naive local wall time the phone's apps show for it."""
        return datetime.fromtimestamp(ts, tz=self.zone).replace(tzinfo=None)

    def utc_offset(self, when: datetime | None = None) -> timedelta:
        """The zone's offset from UTC at a local wall time (now by default)."""
        dt = (when or self.now()).replace(tzinfo=self.zone)
        return dt.utcoffset() or timedelta(0)

    def _set_clock(self, when: datetime) -> None:
        self._clock_sim = when
        self._clock_wall = time.monotonic()
        self._state_time = when

    def _sync_clock_locked(self, data: dict[str, Any] | None = None) -> bool:
        """Advance the sim's clock (time, running timers, stopwatch, a toast's time on screen) to the phone's clock.

        Done in Python on the state (what ``S2R.tick`` does in the page), only when a whole
        second passed; the render cache is invalidated only when the screen would change
        (the minute shown in the status bar, a running timer or stopwatch).
        """
        target = self.now().replace(microsecond=0)
        delta = int((target - self._state_time).total_seconds())
        if delta < 1:
            return False
        own = data is None
        if own:
            data = json.loads(self.env.capture())
        w = data["world"]
        try:
            cur = datetime.fromisoformat(w.get("time") or target.isoformat())
        except ValueError:
            cur = target
        if cur != self._state_time:  # someone set the time (a patch): re-anchor on it
            self._set_clock(cur)
            return False
        visible = (cur.minute != target.minute) or (cur.hour != target.hour)
        w["time"] = target.isoformat(timespec="seconds")
        for tm in w.get("timers") or []:
            if tm.get("running"):
                tm["remaining_s"] = max(0, int(tm.get("remaining_s", 0)) - delta)
                if tm["remaining_s"] == 0:
                    tm["running"] = False
                visible = True
        sw = w.get("stopwatch")
        if sw and sw.get("running"):
            sw["elapsed_ms"] = int(sw.get("elapsed_ms", 0)) + delta * 1000
            visible = True
        ui = data.get("ui") or {}
        toast = ui.get("toast")
        if toast:
            # A toast's ttl is counted in clock ticks in the page (one per sim step); here it is
            # seconds of the phone's clock, so "ttl 2" is Android's LENGTH_SHORT (2 s). Without
            # this a toast stayed up until something else cleared it, and policies saw it for
            # steps after the sim had removed it.
            toast["ttl"] = float(toast.get("ttl", 0)) - delta
            if toast["ttl"] <= 0:
                ui["toast"] = None
                visible = True
        self._state_time = target
        if own:
            self.env.restore(json.dumps(data))
        if visible:
            self._rev += 1
        return True

    # ------------------------------------------------------------------ state access
    def capture(self) -> str:
        """The whole sim phone as JSON text (after syncing clock and storage)."""
        with self._lock:
            self._prepare_locked()
            return self.env.capture()

    def read_state(self) -> WorldState:
        """The phone's world as the judge reads it (storage and clock synced first)."""
        with self._lock:
            self._prepare_locked()
            ws = self.env.read_state()
            pkg, act = self._foreground_locked()
            ws.foreground.package = pkg
            ws.foreground.activity = act
            ws.foreground.app = self.family.package_apps.get(pkg) or registry().app_of_package(pkg)
            return ws

    def patch(self, patch: StatePatch | dict[str, Any]) -> None:
        """Apply a task setup (``StatePatch``) to the phone's world."""
        with self._lock:
            self._prepare_locked()
            self.env.patch(patch)
            data = json.loads(self.env.capture())
            if data["world"].get("time"):
                when = datetime.fromisoformat(data["world"]["time"])
                if when != self._state_time:
                    self._set_clock(when)
            self._changed_locked()

    def mutate(self, fn: Callable[[dict[str, Any]], T]) -> T:
        """Run ``fn(state_dict)`` on the sim state and keep the result if it is valid.

        The dict is the phone state (``world``, ``ui``, ``sys`` ...); ``fn`` edits it in place.
        Raises ``sim.state.PatchError`` (the phone unchanged) if the result is invalid.
        """
        from sim import state as st

        with self._lock:
            self._prepare_locked()
            before = self.env.capture()
            data = json.loads(before)
            result = fn(data)
            text = json.dumps(data)
            if text != json.dumps(json.loads(before)):
                try:
                    st.load(text)
                except Exception as e:  # noqa: BLE001
                    raise st.PatchError(str(e)) from e
                self.env.restore(text)
                self._changed_locked()
            return result

    def state_data(self) -> dict[str, Any]:
        """A fresh dict of the sim state (read-only use)."""
        with self._lock:
            self._prepare_locked()
            return json.loads(self.env.capture())

    def _prepare_locked(self) -> None:
        self._sync_clock_locked()
        self._sync_files_locked()

    def _changed_locked(self) -> None:
        self._rev += 1
        self._sync_files_locked()

    def sync_files(self) -> None:
        """Mirror shared storage ⇄ ``WorldState.files`` now (also done lazily before reads)."""
        with self._lock:
            self._sync_files_locked()

    def _sync_files_locked(self) -> None:
        data = json.loads(self.env.capture())
        files = data["world"].get("files")
        if not self.mirror.needs_sync(files):
            return
        new = self.mirror.reconcile(files)
        if new is not None:
            data["world"]["files"] = new
            self.env.restore(json.dumps(data))
            if (data.get("ui") or {}).get("current") == "files":
                self._rev += 1  # only the Files app shows shared storage: other screens stay cached

    # ------------------------------------------------------------------ rendering
    def _render_locked(self, shot: bool) -> Observation:
        self._prepare_locked()
        if self._cache_obs is not None and self._cache_rev == self._rev and (not shot or self._cache_shot_rev == self._rev):
            return self._cache_obs
        self.env.screenshots = shot
        try:
            obs = self.env.observe()
        finally:
            self.env.screenshots = True
        fg = getattr(self.env, "_foreground", None)  # the sim's activity name (the Observation has the route)
        # a render may normalise the state (e.g. open an app at its root): keep the cache valid
        self._cache_obs, self._cache_rev, self._cache_fg = obs, self._rev, dict(fg or {})
        if shot:
            self._cache_shot_rev, self._cache_shot = self._rev, obs.screenshot
        return obs

    def observation(self, screenshot: bool = False) -> Observation:
        """The sim's current observation (elements in *physical* pixels)."""
        with self._lock:
            return self._render_locked(screenshot)

    def _scale(self) -> tuple[float, float]:
        if self.override_size is None:
            return 1.0, 1.0
        return self.override_size[0] / self.profile.width_px, self.override_size[1] / self.profile.height_px

    def window_size(self) -> tuple[int, int]:
        """Effective screen size (``wm size`` override wins); the sim is always portrait."""
        return self.override_size or (self.profile.width_px, self.profile.height_px)

    @property
    def physical_size(self) -> tuple[int, int]:
        return self.profile.width_px, self.profile.height_px

    @property
    def rotation(self) -> int:
        """Display rotation 0–3. The simulator renders portrait only, so this is 0."""
        return 0

    @property
    def density(self) -> int:
        return self.override_density or self.profile.density

    @property
    def screen_on(self) -> bool:
        with self._lock:
            self._power_tick_locked()
            return self._screen_on

    def animation_ms(self) -> float:
        """Effective transition length: the knob × ``animator_duration_scale``."""
        try:
            scale = float(self.settings.raw("global", "animator_duration_scale") or "1")
        except ValueError:
            scale = 1.0
        return max(0.0, self.knobs.animation_ms * scale)

    def animating(self) -> float:
        """Milliseconds of transition left (0 when the frame is stable)."""
        anim = self.animation_ms()
        if anim <= 0 or not self._last_action_at:
            return 0.0
        return max(0.0, anim - (time.monotonic() - self._last_action_at) * 1000)

    def screenshot_png(self) -> bytes:
        """The screen as PNG at the effective size — what ``screencap -p`` prints.

        Within ``animation_ms`` of an action the frame is a cross-fade from the previous frame
        to the new one, so consecutive captures differ until the transition ends.
        """
        W, H = self.window_size()
        with self._lock:
            self._power_tick_locked()
            if not self._screen_on:
                return _blank_png(W, H)
            if self._keyguard:  # SystemUI's keyguard covers every app window
                return self._keyguard_png_locked()
            obs = self._render_locked(True)
            png = obs.screenshot
            left = self.animating()
            if time.monotonic() < self.animating_until:  # a spinner: this frame is not the last one
                png = _spinner(png, time.monotonic())
            elif left > 0 and self._anim_from and self._anim_from != png:
                alpha = 1.0 - left / max(1.0, self.animation_ms())
                png = _crossfade(self._anim_from, png, alpha)
            else:
                self._last_frame = png
        if self.override_size is not None:
            png = _resize_png(png, W, H)
        return png

    def elements(self) -> list[UIElement]:
        """The visible UI nodes at the effective screen size (the keyguard's while it shows)."""
        with self._lock:
            self._power_tick_locked()
            if self._keyguard:
                from device.parsers.hierarchy import parse_hierarchy

                return list(parse_hierarchy(self._keyguard_xml_locked(), screen=self.window_size()).elements)
            obs = self._render_locked(False)
            sx, sy = self._scale()
        if (sx, sy) == (1.0, 1.0):
            return list(obs.elements)
        W, H = self.window_size()
        out = []
        for e in obs.elements:
            b = Bounds(left=round(e.bounds.left * sx), top=round(e.bounds.top * sy),
                       right=round(e.bounds.right * sx), bottom=round(e.bounds.bottom * sy))
            out.append(e.model_copy(update={"bounds": b, "grid_bounds": b.to_grid(W, H)}))
        return out

    def hierarchy_xml(self, wait_idle: bool = False) -> str:
        """A uiautomator dump of the screen (``to_hierarchy_xml`` of the sim's elements).

        ``wait_idle`` waits out a running transition first, as uiautomator waits for idle.
        """
        from device.parsers.hierarchy import to_hierarchy_xml

        if wait_idle:
            left = self.animating()
            if left > 0:
                time.sleep(left / 1000)
        with self._lock:
            self._power_tick_locked()
            if self._keyguard:  # the notification shade window, which hosts the keyguard, is all there is
                return self._keyguard_xml_locked()
        els = self.elements()
        return to_hierarchy_xml(els, rotation=self.rotation, screen=self.window_size())

    def keyboard_visible(self) -> bool:
        with self._lock:
            return bool(self._render_locked(False).keyboard_visible)

    def has_focused_field(self) -> bool:
        """A text field has input focus (while the keyguard shows: only the bouncer's PIN entry)."""
        with self._lock:
            self._power_tick_locked()
            if self._keyguard:
                return self._bouncer
            self._prepare_locked()
            return bool(json.loads(self.env.capture())["ui"].get("focus"))

    def ime_frame(self) -> tuple[int, int, int, int] | None:
        """The soft keyboard's frame in effective pixels, or None when it is hidden."""
        if not self.keyboard_visible():
            return None
        with self._lock:
            if self._ime_rect is None:
                self._ime_rect = self._measure_ime_locked()
            l, t, r, b = self._ime_rect
        sx, sy = self._scale()
        return round(l * sx), round(t * sy), round(r * sx), round(b * sy)

    def _measure_ime_locked(self) -> tuple[int, int, int, int]:
        """Measure the sim keyboard's rectangle once (device px); fallback: the lower 40 %."""
        W, H = self.physical_size
        env = self.env

        async def measure() -> Any:
            async with env.pool.page(env.profile) as slot:
                await slot.page.evaluate("(s) => window.S2R.load(s)", env.capture())
                slot.loaded = None  # force SimEnv to reload its own state next time
                return await slot.page.evaluate(
                    "() => { const k = document.querySelector('.keyboard'); if (!k) return null;"
                    " const r = k.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; }")

        try:
            rect = env.rt.run(measure())
        except Exception:  # noqa: BLE001 - measuring is a nicety
            rect = None
        if not rect:
            return 0, int(H * 0.6), W, H
        return 0, max(0, round(rect[1] * self.profile.dpr)), W, H  # IME insets reach the bottom edge

    # ------------------------------------------------------------------ foreground
    def foreground(self) -> tuple[str, str]:
        """(package, fully qualified activity) of the window with focus."""
        with self._lock:
            return self._foreground_locked()

    def _foreground_locked(self) -> tuple[str, str]:
        self._render_locked(False)
        fg = self._cache_fg or {}
        comp = str(fg.get("activity") or "")
        pkg = str(fg.get("package") or "")
        if "/" in comp:
            pkg2, act = comp.split("/", 1)
            pkg = pkg or pkg2
            act = pkg2 + act if act.startswith(".") else act
            return pkg2, act
        pkg = pkg or self.family.packages["launcher"]
        app = self.family.by_package(pkg)
        return pkg, app.full(app.launcher) if app is not None else pkg + ".MainActivity"

    def ui_overlays(self) -> dict[str, Any]:
        """What covers the app: a dialog (kind/app), the shade, recents, the keyboard."""
        data = self.state_data()
        ui = data.get("ui") or {}
        return {"dialog": ui.get("dialog"), "shade": ui.get("shade"), "recents": bool(ui.get("recentsOpen")),
                "keyboard": bool(ui.get("keyboard") and ui.get("focus")), "current": ui.get("current"),
                "tasks": list((ui.get("tasks") or {}).keys()), "recent_apps": list(ui.get("recents") or [])}

    # ------------------------------------------------------------------ input
    def _latency(self) -> None:
        if self.knobs.input_latency_ms > 0:
            time.sleep(self.knobs.input_latency_ms / 1000)

    def _jitter(self, x: float, y: float) -> tuple[float, float]:
        n = self.knobs.touch_jitter_px
        if n <= 0:
            return x, y
        with self._lock:
            return x + self._rng.randint(-n, n), y + self._rng.randint(-n, n)

    def _to_physical(self, x: float, y: float) -> tuple[float, float]:
        sx, sy = self._scale()
        W, H = self.physical_size
        return min(max(x / sx, 0), W - 1), min(max(y / sy, 0), H - 1)

    def _inject(self, event: dict[str, Any]) -> None:
        """Deliver one input event to the sim (device px), then mirror what it changed."""
        with self._lock:
            self._prepare_locked()
            self._anim_from = self._last_frame or self._cache_shot
            self.env.inject(event)
            self._rev += 1
            if not self.knobs.ime_visible:
                data = json.loads(self.env.capture())
                if data["ui"].get("keyboard"):
                    data["ui"]["keyboard"] = False
                    self.env.restore(json.dumps(data))
            self._sync_files_locked()
            self._last_action_at = time.monotonic()

    def _touch_allowed(self) -> bool:
        """The screen is on (a touch on a dark screen wakes nothing); the touch is user activity."""
        with self._lock:
            self._power_tick_locked()
            if self._screen_on:
                self._last_activity = time.monotonic()  # PowerManagerService.userActivity
            return self._screen_on

    def tap(self, x: float, y: float) -> None:
        """A single touch at (x, y) in effective screen pixels."""
        self._latency()
        if not self._touch_allowed():
            return
        x, y = self._jitter(x, y)
        if self._keyguard_touch("tap", x, y):
            return
        px, py = self._to_physical(x, y)
        self._inject({"kind": "tap", "x": px, "y": py})

    def long_press(self, x: float, y: float, ms: int = 800) -> None:
        self._latency()
        if not self._touch_allowed():
            return
        x, y = self._jitter(x, y)
        if self._keyguard_touch("long_press", x, y):
            return
        px, py = self._to_physical(x, y)
        self._inject({"kind": "long_press", "x": px, "y": py, "ms": int(ms)})

    def swipe(self, x0: float, y0: float, x1: float, y1: float, ms: int = 300) -> None:
        """A swipe; equal endpoints held for ≥ 500 ms is a long press, as on Android."""
        if (round(x0), round(y0)) == (round(x1), round(y1)):
            if ms >= 500:
                self.long_press(x0, y0, ms)
            else:
                self.tap(x0, y0)
            return
        self._latency()
        if not self._touch_allowed():
            return
        x0, y0 = self._jitter(x0, y0)
        x1, y1 = self._jitter(x1, y1)
        if self._keyguard_touch("swipe", x0, y0, x1, y1):
            return
        a, b = self._to_physical(x0, y0)
        c, d = self._to_physical(x1, y1)
        self._inject({"kind": "swipe", "x0": a, "y0": b, "x1": c, "y1": d, "ms": int(ms)})

    def drag(self, x0: float, y0: float, x1: float, y1: float, ms: int = 1000) -> None:
        """Press and hold, then move (``input draganddrop``)."""
        self._latency()
        if not self._touch_allowed():
            return
        if self._keyguard_touch("drag", x0, y0, x1, y1):
            return
        a, b = self._to_physical(*self._jitter(x0, y0))
        c, d = self._to_physical(*self._jitter(x1, y1))
        self._inject({"kind": "swipe", "x0": a, "y0": b, "x1": c, "y1": d, "ms": int(ms), "hold_ms": 650})

    def key(self, key: str | int) -> bool:
        """Press a key by name or code; returns False for an unknown name.

        Back/home/recents/enter/delete drive the sim; character keys type into the focused
        field; POWER/SLEEP/WAKEUP switch the screen; other codes are accepted and ignored
        (no app on the phone handles them), as ``input keyevent`` accepts any code.
        """
        code = resolve_keycode(key)
        if code is None:
            return False
        kind, arg = key_effect(code)
        self._latency()
        if kind == "power":
            with self._lock:
                self._power_tick_locked()
                if arg == "toggle":
                    arg = "off" if self._screen_on else "on"
                if arg == "on" and not self._screen_on:
                    self._wake_locked()
                elif arg == "off" and self._screen_on:
                    self._sleep_locked("user", time.monotonic())
                self._last_action_at = time.monotonic()
            return True
        if not self._touch_allowed():  # keys reach nobody on a dark screen; a key is user activity
            return True
        if self._keyguard_key(kind, arg):
            return True
        if kind == "sim" and arg is not None:
            self._inject({"kind": "key", "key": arg})
        elif kind == "text" and arg is not None:
            if self.has_focused_field():
                self._inject({"kind": "text", "text": arg})
        elif kind == "volume":
            self.mutate(lambda d: _volume(d, arg or ""))
        return True

    def input_text(self, text: str) -> bool:
        """Commit ``text`` into the focused field (the IME path: any Unicode). False if no focus.

        On the keyguard the only field is the bouncer's PIN entry, which takes digits."""
        self._latency()
        if not self._touch_allowed():
            return False
        with self._lock:
            if self._keyguard:
                if not self._bouncer:
                    return False
                self._pin_typed = (self._pin_typed + "".join(c for c in text if c.isascii() and c.isdigit()))[:16]
                self._keyguard_changed_locked()
                return True
        if not self.has_focused_field():
            return False
        self._inject({"kind": "text", "text": text})
        return True

    def clear_text(self) -> bool:
        with self._lock:
            self._power_tick_locked()
            if self._keyguard:
                if not (self._screen_on and self._bouncer):
                    return False
                self._pin_typed = ""
                self._keyguard_changed_locked()
                return True
        if not self._screen_on or not self.has_focused_field():
            return False
        self._inject({"kind": "clear_text"})
        return True

    def hide_keyboard(self) -> None:
        def hide(d: dict[str, Any]) -> None:
            d["ui"]["keyboard"] = False
        self.mutate(hide)

    def get_clipboard(self) -> str:
        return str(self.state_data()["world"].get("clipboard") or "")

    def set_clipboard(self, text: str) -> None:
        def put(d: dict[str, Any]) -> None:
            d["world"]["clipboard"] = text
        self.mutate(put)

    def open_app(self, app_id: str, route: str | None = None) -> bool:
        """Open an app (its task is resumed, or started at its root)."""
        if app_id == "launcher":
            self._inject({"kind": "key", "key": "home"})
            return True
        if app_id not in self.family.apps:
            return False
        if route:
            def go(d: dict[str, Any]) -> None:
                ui = d["ui"]
                ui["current"] = app_id
                ui["tasks"][app_id] = [{"s": "__root__", "p": {}}] + ([] if route == "__root__" else [{"s": route, "p": {}}])
                ui["recents"] = [app_id] + [a for a in ui.get("recents", []) if a != app_id]
                ui["dialog"] = ui["shade"] = None
                ui["focus"], ui["keyboard"], ui["recentsOpen"], ui["drawer"] = None, False, False, False
                first_launch_prompt(d, app_id)
            self.mutate(go)
            with self._lock:
                self._anim_from = self._last_frame or self._cache_shot
                self._last_action_at = time.monotonic()
            return True
        self._inject({"kind": "open_app", "app": app_id})
        return True

    def force_stop(self, package: str) -> bool:
        """``am force-stop``: the app's task is removed; if it was in front, home shows."""
        app = self.family.package_apps.get(package)
        if app is None or app == "launcher":
            return False

        def stop(d: dict[str, Any]) -> None:
            ui = d["ui"]
            ui["tasks"].pop(app, None)
            # the app's process dies with its in-memory UI state (expanded cards, selections, ...):
            # apps keep such state in extra ui keys, which the sim's UIState does not declare
            from sim.state import UIState

            for k in [k for k in ui if k not in UIState.model_fields]:
                ui.pop(k, None)
            # and its lists' scroll positions: a recreated activity starts at the top, as on a phone
            # (a cleared task keeps no saved instance state — frameworks/base ActivityRecord)
            scroll = ui.get("scroll") or {}
            for k in [k for k in scroll if str(k).startswith(app + "/")]:
                scroll.pop(k, None)
            if ui.get("toast"):
                ui["toast"] = None
            ui["recents"] = [a for a in ui.get("recents", []) if a != app]
            if ui.get("current") == app:
                ui["current"] = None
                ui["dialog"] = None
                ui["focus"], ui["keyboard"] = None, False
        self.mutate(stop)
        return True

    # ------------------------------------------------------------------ power and keyguard
    # How a stock phone with a screen lock behaves, from frameworks/base:
    # * services/core/java/com/android/server/policy/PhoneWindowManager.java dismissKeyguardLw
    #   (`wm dismiss-keyguard` → WindowManagerShellCommand.runDismissKeyguard → dismissKeyguard): "ask the
    #   keyguard to prompt the user to authenticate if necessary" → KeyguardViewMediator.dismiss →
    #   StatusBarKeyguardViewManager.dismissWithAction, deferred while dozing (the screen is off) →
    #   KeyguardBouncer.show: "If no security auth (password/pin/pattern) is set, this will dismiss the
    #   whole Keyguard. Otherwise, show the bouncer." A swipe up on the lock screen does the same.
    # * packages/SystemUI/src/com/android/systemui/keyguard/KeyguardViewMediator.java
    #   onStartedGoingToSleep: `lockImmediately = getPowerButtonInstantlyLocks() || !isSecure()`; going to
    #   sleep with the keyguard showing resets it (mPendingReset: the bouncer goes); off because of the
    #   timeout with a lock timeout > 0, or by the user without lockImmediately → doKeyguardLaterLocked(timeout)
    #   (an alarm that locks `lock_screen_lock_after_timeout` ms later, KEYGUARD_LOCK_AFTER_DELAY_DEFAULT 5000,
    #   cancelled by onStartedWakingUp); otherwise, unless the lock screen is disabled, setPendingLock → the
    #   keyguard is shown as the screen goes dark.
    # * services/core/java/com/android/server/power/PowerManagerService.java: the screen goes off
    #   `screen_off_timeout` ms after the last user activity (never less than config_minimumScreenOffTimeout,
    #   10 s) unless `stay_on_while_plugged_in` holds the USB plug type (BatteryManager.BATTERY_PLUGGED_USB = 2).
    # The state is advanced lazily (_power_tick_locked) whenever anyone looks: only a look can tell.
    @property
    def keyguard_secure(self) -> bool:
        """A PIN is set: the keyguard opens only with it (LockPatternUtils.isSecure)."""
        return self.knobs.locked_pin is not None

    def keyguard_state(self) -> dict[str, Any]:
        """``{"showing", "secure", "bouncer", "occluded", "pin_len", "message", "enabled"}`` now."""
        with self._lock:
            self._power_tick_locked()
            return {"showing": self._keyguard, "secure": self.keyguard_secure, "bouncer": self._keyguard and self._bouncer,
                    "occluded": False, "pin_len": len(self._pin_typed), "message": self._pin_message,
                    "enabled": self.knobs.has_lock_screen}

    def keyguard_showing(self) -> bool:
        return bool(self.keyguard_state()["showing"])

    def dismiss_keyguard(self) -> None:
        """``wm dismiss-keyguard``: a keyguard without a PIN goes away; a secure one shows its bouncer."""
        with self._lock:
            self._power_tick_locked()
            self._dismiss_locked()

    def _screen_timeout_s(self) -> float | None:
        if not self.knobs.sleeps:
            return None
        try:
            stay = int(self.settings.raw("global", "stay_on_while_plugged_in") or "0")
        except ValueError:
            stay = 0
        if stay & 2:  # plugged into USB (dumpsys battery: USB powered) and told to stay on then
            return None
        try:
            ms = int(self.read_settings_field("screen_off_timeout_ms") or 60_000)
        except (TypeError, ValueError):
            ms = 60_000
        return max(ms, 10_000) / 1000

    def _lock_after_s(self) -> float:
        try:
            return max(0, int(self.settings.raw("secure", "lock_screen_lock_after_timeout") or "5000")) / 1000
        except ValueError:
            return 5.0

    def _power_tick_locked(self) -> None:
        """Apply what time did: the screen-off timeout, and a delayed lock that fell due."""
        now = time.monotonic()
        if self._screen_on:
            timeout = self._screen_timeout_s()
            if timeout is not None and now - self._last_activity >= timeout:
                self._sleep_locked("timeout", self._last_activity + timeout)
        if not self._screen_on and self._lock_at is not None and now >= self._lock_at:
            self._lock_at = None
            self._show_keyguard_locked()

    def _sleep_locked(self, reason: str, at: float) -> None:
        """The screen goes off (``reason``: "user" — the power key — or "timeout")."""
        self._screen_on = False
        self._rev += 1
        if not self.knobs.has_lock_screen:
            return
        if self._keyguard:  # mPendingReset: the keyguard stays, its bouncer and typed PIN go
            self._bouncer, self._pin_typed, self._pin_message = False, "", ""
            return
        try:
            instantly = (self.settings.raw("secure", "power_button_instantly_locks") or "1") != "0"
        except Exception:  # noqa: BLE001
            instantly = True
        lock_immediately = instantly or not self.keyguard_secure
        lock_after = self._lock_after_s()
        if (reason == "timeout" and lock_after > 0) or (reason == "user" and not lock_immediately):
            self._lock_at = at + lock_after
        else:
            self._show_keyguard_locked()

    def _wake_locked(self) -> None:
        self._power_tick_locked()  # a delayed lock that fell due while the screen was off
        self._lock_at = None  # onStartedWakingUp → cancelDoKeyguardLaterLocked
        self._screen_on = True
        self._last_activity = time.monotonic()
        self._rev += 1
        if self._dismiss_pending:
            self._dismiss_pending = False
            self._dismiss_locked()

    def _show_keyguard_locked(self) -> None:
        self._keyguard, self._bouncer, self._pin_typed, self._pin_message = True, False, "", ""
        self._rev += 1

    def _hide_keyguard_locked(self) -> None:
        self._anim_from = self._keyguard_frame[1] if self._keyguard_frame else self._last_frame
        self._keyguard, self._bouncer, self._pin_typed, self._pin_message = False, False, "", ""
        self._rev += 1
        self._last_action_at = time.monotonic()

    def _dismiss_locked(self) -> None:
        if not self._keyguard:
            return
        if not self._screen_on:  # dismissWithAction while dozing: done once the screen is on
            self._dismiss_pending = True
            return
        if self.keyguard_secure:
            self._bouncer, self._pin_message = True, ""
            self._keyguard_changed_locked()
        else:
            self._hide_keyguard_locked()

    def _keyguard_changed_locked(self) -> None:
        self._rev += 1
        self._last_action_at = time.monotonic()

    def _keyguard_touch(self, kind: str, x0: float, y0: float, x1: float | None = None, y1: float | None = None) -> bool:
        """A touch while the keyguard shows goes to SystemUI (True), never to the app below.

        A swipe up (at least a sixth of the screen) dismisses the lock screen as ``wm dismiss-keyguard``
        does — a secure one shows its bouncer; a swipe down on the bouncer hides it again; a tap on
        the bouncer's number pad types or submits the PIN; anything else does nothing."""
        from .u2server import keyguard_window

        with self._lock:
            self._power_tick_locked()
            if not self._keyguard:
                return False
            H = self.window_size()[1]
            if kind in ("swipe", "drag") and y1 is not None:
                dy = y1 - y0
                if kind == "swipe" and dy <= -H / 6 and not self._bouncer:
                    self._dismiss_locked()
                elif kind == "swipe" and dy >= H / 6 and self._bouncer:
                    self._bouncer, self._pin_typed, self._pin_message = False, "", ""
                    self._keyguard_changed_locked()
                return True
            if kind == "tap":
                key = keyguard_window(self).hit(x0, y0, bouncer=self._bouncer)
                if key is not None:
                    self._pin_key_locked(key)
            return True

    def _pin_key_locked(self, key: str) -> None:
        """A bouncer key: a digit, ``delete_button`` or ``key_enter`` (KeyguardPinBasedInputView)."""
        from .u2server import KEYGUARD_WRONG_PIN

        if key == "delete_button":
            self._pin_typed = self._pin_typed[:-1]
        elif key == "key_enter":
            if self._pin_typed and self._pin_typed == self.knobs.locked_pin:
                self._hide_keyguard_locked()
                return
            if self._pin_typed:  # a wrong PIN: the entry is cleared and the message says so
                self._pin_typed, self._pin_message = "", KEYGUARD_WRONG_PIN
        elif key.startswith("key") and key[3:].isdigit():
            self._pin_typed = (self._pin_typed + key[3:])[:16]
        self._keyguard_changed_locked()

    def _keyguard_key(self, kind: str, arg: str | None) -> bool:
        """A key while the keyguard shows (True: SystemUI took it). BACK hides the bouncer; digits,
        DEL and ENTER edit and submit the PIN on the bouncer; HOME and RECENTS do nothing on the
        keyguard (PhoneWindowManager ignores them while it shows); volume keys work as always."""
        with self._lock:
            self._power_tick_locked()
            if not self._keyguard:
                return False
            if kind == "volume":
                return False
            if kind == "sim" and arg == "back":
                if self._bouncer:
                    self._bouncer, self._pin_typed, self._pin_message = False, "", ""
                    self._keyguard_changed_locked()
            elif self._bouncer and kind == "sim" and arg in ("delete", "enter"):
                self._pin_key_locked("delete_button" if arg == "delete" else "key_enter")
            elif self._bouncer and kind == "text" and arg and arg.isdigit():
                self._pin_key_locked("key" + arg)
            return True

    def _keyguard_view_state_locked(self) -> tuple[dict[str, Any], datetime, bool]:
        state = {"showing": True, "bouncer": self._bouncer, "pin_len": len(self._pin_typed),
                 "message": self._pin_message}
        h24 = (self.settings.raw("system", "time_12_24") or "24") != "12"
        return state, self.now().replace(second=0, microsecond=0), h24

    def _keyguard_xml_locked(self) -> str:
        from .u2server import keyguard_window

        state, now, h24 = self._keyguard_view_state_locked()
        return keyguard_window(self).xml(state, now, h24)

    def _keyguard_png_locked(self) -> bytes:
        from .u2server import keyguard_window

        state, now, h24 = self._keyguard_view_state_locked()
        key = (tuple(sorted(state.items())), now, h24, self.window_size(), self.density)
        if self._keyguard_frame is None or self._keyguard_frame[0] != key:
            self._keyguard_frame = (key, keyguard_window(self).draw(state, now, h24))
        return self._keyguard_frame[1]

    # ------------------------------------------------------------------ sockets
    def register_tcp(self, port: int, handler: ConnectionHandler, *, on_demand: bool = False) -> None:
        """Serve ``handler(reader, writer)`` on device TCP ``port`` (``adb forward tcp:X tcp:PORT``).

        ``on_demand``: the port accepts connections only while an ``app_process ... -p PORT``
        shell command runs — how uiautomator2's server lives on a phone.
        """
        if on_demand:
            self._on_demand[int(port)] = handler
            self.backend.unregister_socket("tcp", int(port))
        else:
            self._on_demand.pop(int(port), None)
            self.backend.register_tcp(int(port), handler)

    def unregister_tcp(self, port: int) -> None:
        self._on_demand.pop(int(port), None)
        self.backend.unregister_socket("tcp", int(port))

    def process_started(self, port: int) -> bool:
        """An ``app_process -p PORT`` started: open the on-demand port. False if none registered."""
        handler = self._on_demand.get(port)
        if handler is None:
            return False
        self._open_ports[port] = self._open_ports.get(port, 0) + 1
        self.backend.register_tcp(port, handler)
        return True

    def process_stopped(self, port: int) -> None:
        n = self._open_ports.get(port, 0) - 1
        if n <= 0:
            self._open_ports.pop(port, None)
            if port in self._on_demand:
                self.backend.unregister_socket("tcp", port)
        else:
            self._open_ports[port] = n

    # ------------------------------------------------------------------ info
    def info(self) -> dict[str, Any]:
        """Identity, display, knobs and what is in front — JSON-ready."""
        W, H = self.window_size()
        pkg, act = self.foreground()
        keyguard = self.keyguard_state()
        if keyguard["showing"]:  # the active window is SystemUI's shade, which hosts the keyguard
            pkg, act = "com.android.systemui", ""
        props = self.properties()
        return {
            "serial": self.serial if self._started else None,
            "port": self.port if self._started else None,
            "serialno": self.serialno,
            "model": props["ro.product.model"], "manufacturer": props["ro.product.manufacturer"],
            "product": props["ro.product.name"], "sdk": int(props["ro.build.version.sdk"]),
            "android_version": props["ro.build.version.release"],
            "profile": self.profile.name, "flavor": self.knobs.flavor, "family": self.knobs.family,
            "display": {"width": W, "height": H, "physical_width": self.profile.width_px,
                        "physical_height": self.profile.height_px, "density": self.density,
                        "physical_density": self.profile.density, "rotation": self.rotation,
                        "screen_on": self.screen_on,
                        "size_dp": [round(W * 160 / self.density), round(H * 160 / self.density)]},
            "foreground": {"package": pkg, "activity": act},
            "ime": self.settings.raw("secure", "default_input_method"),
            "knobs": self.knobs.summary(),
            "time": self.now().isoformat(timespec="seconds"),
            "timezone": self.knobs.timezone,
            "keyguard": keyguard,
        }


# ============================================================================ helpers
def first_launch_prompt(d: dict[str, Any], app_id: str) -> None:
    """Show the runtime-permission dialog if ``app_id`` asks on first launch (the sim's
    ``openApp`` rule, for apps the phone opens by editing the state, e.g. deep links)."""
    sys = d.get("sys") or {}
    if app_id in (sys.get("permission_prompts") or []) and app_id not in (sys.get("permissions_granted") or []):
        d["ui"]["dialog"] = {"kind": "permission", "app": app_id}
        d["ui"]["focus"], d["ui"]["keyboard"] = None, False


def _volume(d: dict[str, Any], which: str) -> None:
    s = d["world"]["settings"]
    v = int(s.get("media_volume") or 0)
    if which == "volume_up":
        s["media_volume"] = min(25, v + 1)
    elif which == "volume_down":
        s["media_volume"] = max(0, v - 1)
    else:
        s["media_volume"] = 0


def _blank_png(w: int, h: int) -> bytes:
    import cv2
    import numpy as np

    ok, buf = cv2.imencode(".png", np.zeros((h, w, 3), np.uint8))
    return buf.tobytes()


def _crossfade(a: bytes, b: bytes, alpha: float) -> bytes:
    import cv2
    import numpy as np

    ia = cv2.imdecode(np.frombuffer(a, np.uint8), cv2.IMREAD_COLOR)
    ib = cv2.imdecode(np.frombuffer(b, np.uint8), cv2.IMREAD_COLOR)
    if ia is None or ib is None or ia.shape != ib.shape:
        return b
    alpha = min(1.0, max(0.0, alpha))
    out = cv2.addWeighted(ia, 1.0 - alpha, ib, alpha, 0)
    ok, buf = cv2.imencode(".png", out, [cv2.IMWRITE_PNG_COMPRESSION, 1])
    return buf.tobytes() if ok else b


def _spinner(png: bytes, t: float) -> bytes:
    """The frame with a spinner drawn at its centre, turned to where it is at time ``t``
    (one turn a second): consecutive captures differ, as on a screen that keeps animating."""
    import math

    import cv2
    import numpy as np

    img = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR)
    if img is None:
        return png
    h, w = img.shape[:2]
    r = max(8, min(w, h) // 8)
    a = (t % 1.0) * 2 * math.pi
    cx, cy = w // 2, h // 2
    cv2.circle(img, (cx, cy), r, (60, 60, 60), -1)
    cv2.line(img, (cx, cy), (int(cx + r * math.cos(a)), int(cy + r * math.sin(a))), (250, 250, 250), max(3, r // 5))
    ok, buf = cv2.imencode(".png", img, [cv2.IMWRITE_PNG_COMPRESSION, 1])
    return buf.tobytes() if ok else png


def _resize_png(png: bytes, w: int, h: int) -> bytes:
    import cv2
    import numpy as np

    img = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR)
    if img is None or (img.shape[1], img.shape[0]) == (w, h):
        return png
    img = cv2.resize(img, (w, h), interpolation=cv2.INTER_AREA)
    ok, buf = cv2.imencode(".png", img, [cv2.IMWRITE_PNG_COMPRESSION, 1])
    return buf.tobytes() if ok else png
