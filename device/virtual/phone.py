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
``battery_info()`` / ``set_battery(level=, temp=, plugged=)``  the battery's "hardware" (knobs
                                        ``battery_level``, ``battery_temp``, ``plugged``): the phone heats
                                        up, the cable is pulled; ``dumpsys battery`` reports it
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
from datetime import datetime
from typing import Any, Callable, TypeVar

from actionmap.observation import Observation

from .adbd import ConnectionHandler, ThreadedAdbd
from .android_storage import PhoneFS, StorageMirror
from .families import AOSP, Family, family as _family
from .knobs import PhoneKnobs
from .phone_clock import PhoneClock
from .phone_identity import PhoneIdentity
from .phone_input import PhoneInput, first_launch_prompt
from .phone_power import PhonePower
from .phone_screen import PhoneScreen
from .phone_world import PhoneWorld

__all__ = ["VirtualPhone", "SIM_PACKAGES", "PACKAGE_APPS", "first_launch_prompt"]

log = logging.getLogger(__name__)
T = TypeVar("T")

#: Canonical app id → package on an ``aosp``-family phone. A phone's own table is
#: ``phone.family.packages`` (:mod:`device.virtual.families`): read that, not this.
SIM_PACKAGES: dict[str, str] = AOSP.packages
PACKAGE_APPS: dict[str, str] = AOSP.package_apps


class VirtualPhone(PhoneIdentity, PhoneClock, PhoneWorld, PhoneScreen, PhoneInput, PhonePower):
    """One virtual Android phone. See the module docstring for the API.

    Composed of parts with one job each: :class:`~device.virtual.phone_identity.PhoneIdentity`
    (properties, serial, ``info``), :class:`~device.virtual.phone_clock.PhoneClock` (clock, zone),
    :class:`~device.virtual.phone_world.PhoneWorld` (the sim world's state),
    :class:`~device.virtual.phone_screen.PhoneScreen` (frames, dumps, foreground),
    :class:`~device.virtual.phone_input.PhoneInput` (touches, keys, text, apps) and
    :class:`~device.virtual.phone_power.PhonePower` (screen power, keyguard); this class owns
    their state, the lifecycle, the adbd server and the device-local ports.
    """

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
