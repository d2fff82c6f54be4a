"""The sim-to-real gaps of the virtual phone, as explicit, recorded knobs.

Why knobs: a policy trained in the simulator meets a real phone that differs in ways we can
name — screen geometry, app structure and wording, input latency, animations that keep the
frame moving after a tap, an IME covering the lower screen, a permission dialog on first
launch, imprecise touches, a flaky USB/Wi-Fi link. The virtual phone reproduces each gap on
purpose, with a *recorded default*, so a transfer report can say exactly which gaps a run
had (``VirtualPhone.info()["knobs"]`` and ``s2r vdevice start`` print them).

Defaults, and why:

* ``profile="pixel"`` (1080×2400 @ 440 dpi, "Pixel 7") — unlike the sim default (480 dpi),
  as a real phone would be.
* ``flavor="aosp"`` — stock Android app structure and strings (the simulator flavor its screens are
  drawn in: ``sim``, ``aosp`` or ``google``).
* ``family="aosp"`` — which phone family's apps the phone carries (:mod:`device.virtual.families`):
  ``aosp`` (the AOSP apps, com.android.deskclock …) or ``google`` (a Pixel: ro.product.manufacturer
  Google, the Pixel packages com.google.android.deskclock …, DocumentsUI's launcher entry hidden). The
  family and the flavor go together: a ``google`` phone draws the ``google`` flavor's screens (given
  alone, either one sets the other); ``sim`` screens are the ``aosp`` family's packages.
* ``input_latency_ms=30`` — a USB phone takes ~20–40 ms from ``input`` to the event.
* ``animation_ms=300`` — frames keep changing for 300 ms after an action (a cross-fade from
  the previous frame, see :mod:`device.virtual.phone`), and ``uiautomator dump`` waits for
  the transition to end, as uiautomator waits for idle; ``settings put global
  animator_duration_scale 0`` turns it off, as it does on a phone. (The sim's own
  ``sys.animations`` / ``profile.animations`` flag only lengthens the page's settle wait —
  the sim has no CSS transitions — so the phone renders the transition itself.)
* ``ime_visible=True`` — the soft keyboard covers the lower screen while a field has focus.
* ``permission_prompts=["messages", "phone"]`` — on a fresh AOSP phone these two system
  apps ask for runtime permissions (notifications; phone/contacts) on first launch. The
  sim's apps have no camera; these are its "camera-like" permission-hungry apps.
* ``touch_jitter_px=0`` — touches land exactly (set e.g. 6 for a clumsy finger); seeded.
* ``flaky`` off — set ``drop_every_n`` or ``drop_probability`` for fault tests.
* ``clock_rate=1.0`` — the phone's clock follows wall time (a device's clock does not wait
  for the policy); 0 freezes the sim clock.
* ``android=14`` — the Android release whose rules and output formats the phone follows
  (11, 13, 14 or 15; SDK 30, 33, 34, 35): which ``cmd`` services exist, whether the shell may
  read the call log, the ``dumpsys window`` inset format, the clipboard overlay (13+).
* ``permissive=False`` — a *stock, unrooted* phone, as a user plugs one in over USB: the
  shell user (uid 2000, ``com.android.shell``) is refused what AOSP refuses it (SMS writes
  behind the WRITE_SMS app-op, calendars only under an account, settings keys that mirror a
  service do not switch the service, only the stock keyboard installed). ``True`` is the old
  behaviour of this phone, like a rooted emulator: every write is accepted and the ADB
  keyboards are installed. Never the default, and never what a test of DeviceEnv relies on.
* ``google_account=None`` — no account on the phone (so it has no calendar at all). An
  address (``user@gmail.com``) models a phone signed in to Google: its ``com.google``
  calendar syncs to that person's cloud, and s2r must never write into it.
* ``locked=False`` — no screen lock ("None" in Settings ▸ Security, so ``LockPatternUtils
  .isLockScreenDisabled``: the keyguard never shows). ``True``: a swipe lock without a PIN; the
  phone boots to SystemUI's keyguard, ``wm dismiss-keyguard`` or a swipe up dismisses it, and it
  comes back when the screen goes off (power key, or the screen-off timeout).
* ``locked_pin=None`` — a PIN lock (a *secure* keyguard): ``wm dismiss-keyguard`` and a swipe up
  only show the bouncer; only the PIN opens it. A phone s2r must not, and cannot, unlock.
* ``screen_timeout`` — the screen goes off after ``screen_off_timeout`` (system setting, at least
  10 s: ``config_minimumScreenOffTimeout``) without user activity, unless
  ``stay_on_while_plugged_in`` covers USB (the phone is USB-powered). Off by default — such a
  phone never sleeps by itself, like Developer options ▸ Stay awake, so a test phone left idle
  stays on — and on by default for a locked phone, whose keyguard must come back on its own.
* ``anonymous=False`` — the phone says it is s2r's (``ro.s2r.virtual=1``, ``ro.s2r.flavor``, ``ro.s2r.family``).
  ``True``: a phone that poses as a real one — no ``ro.s2r.*`` property and the identity of a
  real phone (its profile's, e.g. a Pixel 7 "google/panther", arm64, a Pixel-like serial), so
  s2r takes its real-phone paths. Only profiles modelled on a real phone, a stock flavor (``aosp``, ``google``).
* ``timezone="UTC"`` — ``persist.sys.timezone``: the zone of ``date``, of what the apps show
  and what alarms mean (local wall time), while providers store UTC epoch milliseconds.
* ``hidden_launcher=[]`` — packages whose launcher entry is disabled though the app is installed:
  on Android 12+ Pixels DocumentsUI's ``LauncherActivity`` alias is switched off at boot
  (packages/apps/DocumentsUI ``PreBootReceiver.java``: "Do not allow LauncherActivity to be
  enabled for S+"), and "Files" on the home screen is Files by Google; DocumentsUI's exported
  ``FilesActivity`` still starts by its component.
* ``battery_level=87``, ``battery_temp=285``, ``plugged="usb"`` — the battery as the health HAL
  reports it: 87 % (the sim's status bar default), 28.5 °C (a phone idling on a desk; BatteryService
  prints tenths of °C), on a USB port (a phone attached for adb is USB-powered). They change while the
  phone runs through ``VirtualPhone.set_battery`` (the phone heats up, the cable is pulled), and the
  shell overrides them as on any phone: ``dumpsys battery set temp 470`` / ``set level 15`` /
  ``unplug`` / ``reset`` (:class:`device.virtual.phone_power.BatteryState`).
* ``screenrecord="ok"`` — the phone records its screen (frameworks/av ``cmds/screenrecord``, on
  every stock build). ``missing``: a system image without the binary — the shell answers
  ``/system/bin/sh: screenrecord: inaccessible or not found``, status 127 (external/mksh exec.c's
  message for a command it cannot find). ``no_avc``: one whose AVC encoder cannot be created —
  screenrecord.cpp ``prepareEncoder`` prints ``ERROR: unable to create video/avc codec instance``
  (and, without ``--size``, retries at 720p and prints it again), leaves the empty file ``main()``
  created before recording, and exits 0 (``recordScreen`` returns ``UNKNOWN_ERROR``, INT32_MIN, whose low byte
  is the exit status).
* ``timing="fast"`` — what a capture or a command *costs* on the phone. ``fast`` (the default,
  and what the tests use) adds nothing: a dump takes what rendering the sim takes (~17 ms), a
  screencap a few tens of ms. ``realistic`` sets the cost knobs below from published figures
  for a mid-range phone (1080×2400), so a settle strategy can be measured against the fixed
  sleeps peers use (``s2r bench device``). Any cost knob given explicitly wins over the preset.

Timing knobs (milliseconds; all 0 under ``fast``) and the ``realistic`` values. A figure is the
phone's *whole* time for that work: a capture's includes its encoding, a dump's its walk, an
``input`` command's the delivery of its events to the app (``cmd input`` returns once they are
consumed: ``INJECT_INPUT_EVENT_MODE_WAIT_FOR_FINISH`` in frameworks/base
``services/core/java/com/android/server/input/InputShellCommand.java``). So what the virtual
phone itself spends producing the answer — rendering the sim, encoding the frame, the tap in
the browser — counts toward the figure instead of being added to it
(:func:`device.virtual.costs.spend` with ``since``); a runtime start (``app_process``)
precedes the work and is added whole.

* ``dump_ms`` + ``dump_node_ms`` × nodes — uiautomator2's ``dumpWindowHierarchy``, which walks
  every AccessibilityNodeInfo over binder, so it grows with the tree: 250 + 6/node (a 60-node
  screen: ~610 ms). Users report dumps "80–100× slower than a screenshot" of the same page
  (openatx/uiautomator2#1122) and 6–15 s on heavy screens (openatx/uiautomator2#867); a dump
  right after an activity start takes 1–4 s (dtmilano/CulebraTester2-public#17).
* ``shell_dump_ms`` — what ``uiautomator dump`` adds on top: it starts a fresh Java process
  through ``app_process`` ("already about 800 ms", Genymobile/scrcpy#112): 800.
* ``screencap_png_ms`` — ``screencap -p`` of a full frame: the capture (~250 ms) plus PNG
  encoding (scrcpy#112: "screencap takes 250ms or so to capture", PNG far longer;
  MangetsuC/arkHelper#16: PNG through a pipe 500–800 ms, raw 250–300 ms): 650.
  ``screencap_raw_ms`` — the same without ``-p`` (no encoding): 280.
* ``screencap_jpeg_ms`` — uiautomator2's ``takeScreenshot`` (an in-process capture and a JPEG
  encode of the whole frame): 150. Its ``scale`` argument is ignored by the server
  (android-uiautomator-server ``AutomatorServiceImpl.takeScreenshot``), so every frame costs this.
* ``u2_rpc_ms`` — one JSON-RPC round trip to uiautomator2's server through the adb forward: 40
  (the client's debug log in openatx/uiautomator2#10: request 47.182 → response 47.225).
* ``input_cmd_ms`` — an ``input`` command (``cmd input`` over binder, the event injected and
  waited for): 120.
* ``app_process_ms`` — a shell tool that is a Java program started through ``app_process`` on
  every call pays a runtime start: ``content`` (frameworks/base ``cmds/content/content``:
  ``exec app_process /system/bin com.android.commands.content.Content``): 500 — "executing
  app_process took between 500ms and 1s" (Genymobile/scrcpy#6354), ~690 ms per ``input
  keyevent`` where ``input`` was still such a program (bryanroscoe/shield_optimizer#71,
  Android 11). Tools that are ``cmd`` wrappers (``settings``, ``appops``, ``cmd …``) do not pay it.
* ``animation_ms`` — 400 under ``realistic``: AOSP's ``config_mediumAnimTime``
  (frameworks/base ``core/res/res/values/config.xml``: short 200, medium 400, long 500).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from actionmap.apps import APP_IDS

__all__ = ["FlakyTransport", "PhoneKnobs", "TIMING_PRESETS", "DEFAULT_IME", "ADB_KEYBOARD_IME", "U2_IME", "ANDROID_SDK",
           "PERMISSIVE_IMES", "REAL_MODELS"]

#: The AOSP keyboard (what a stock phone types with).
DEFAULT_IME = "com.android.inputmethod.latin/.LatinIME"
#: ADB Keyboard (https://github.com/senzhk/ADBKeyBoard): types broadcast text, Unicode-safe.
ADB_KEYBOARD_IME = "com.android.adbkeyboard/.AdbIME"
#: uiautomator2's own IME (``d.send_keys`` broadcasts to it).
U2_IME = "com.github.uiautomator/.AdbKeyboard"
#: What a rooted emulator set up for agents often carries (``permissive=True``).
PERMISSIVE_IMES = [DEFAULT_IME, ADB_KEYBOARD_IME, U2_IME]
#: Real phones a profile may be modelled on → (manufacturer, brand, product/device codename):
#: what an ``anonymous`` phone reports (``ro.product.*``, ``ro.build.fingerprint``).
REAL_MODELS: dict[str, tuple[str, str, str]] = {"Pixel 7": ("Google", "google", "panther"),
                                                "Pixel 7 Pro": ("Google", "google", "cheetah"),
                                                "Pixel 8": ("Google", "google", "shiba")}
#: Android release → API level (``ro.build.version.sdk``).
ANDROID_SDK: dict[int, int] = {11: 30, 13: 33, 14: 34, 15: 35}
#: The cost knobs each ``timing`` preset sets (sources: the module docstring).
TIMING_PRESETS: dict[str, dict[str, float]] = {
    "fast": {"dump_ms": 0.0, "dump_node_ms": 0.0, "shell_dump_ms": 0.0, "screencap_png_ms": 0.0,
             "screencap_raw_ms": 0.0, "screencap_jpeg_ms": 0.0, "u2_rpc_ms": 0.0, "input_cmd_ms": 0.0,
             "app_process_ms": 0.0},
    "realistic": {"dump_ms": 250.0, "dump_node_ms": 6.0, "shell_dump_ms": 800.0, "screencap_png_ms": 650.0,
                  "screencap_raw_ms": 280.0, "screencap_jpeg_ms": 150.0, "u2_rpc_ms": 40.0, "input_cmd_ms": 120.0,
                  "app_process_ms": 500.0, "animation_ms": 400},
}


class FlakyTransport(BaseModel):
    """Drop the adb TCP connection now and then (off by default).

    ``drop_every_n``: every N-th stream the host opens (a shell command, a sync session, a
    forwarded socket) tears the TCP connection down. ``drop_probability``: each stream does so
    with probability p (seeded by ``PhoneKnobs.seed``). The adb server then shows the
    device ``offline`` until it reconnects, exactly the failure a loose cable causes.
    """

    model_config = ConfigDict(extra="forbid")
    drop_every_n: int = Field(0, ge=0, description="0 = never.")
    drop_probability: float = Field(0.0, ge=0.0, le=1.0)

    @property
    def enabled(self) -> bool:
        return self.drop_every_n > 0 or self.drop_probability > 0


class PhoneKnobs(BaseModel):
    """The virtual phone's configuration: everything that makes it differ from the plain simulator.

    One validated record per phone (``VirtualPhone(knobs)``, ``s2r vdevice start --knob``); it is
    printed by ``VirtualPhone.info()["knobs"]`` so a run records the phone it had. Each knob, what
    it models, and its default (the module doc says why each default is what it is):

    Identity and apps
        ``profile`` (``"pixel"``) — the device profile (:mod:`sim.profiles`): screen size, density,
        model. ``flavor`` (``"aosp"``) — the simulator flavor the screens are drawn in (``sim``,
        ``aosp``, ``google``). ``family`` (``"aosp"``) — whose apps the phone carries
        (:mod:`device.virtual.families`); family and flavor given alone set each other.
        ``android`` (``14``) — the release whose rules and output formats it follows (11, 13, 14,
        15). ``anonymous`` (``False``) — pose as a real phone (no ``ro.s2r.*`` properties).
        ``hidden_launcher`` (``[]``; a ``google`` phone: DocumentsUI) — packages without a launcher
        entry. ``seed`` (``0``) — the world's seed, and that of touch jitter and transport faults.
    A stock phone's rules
        ``permissive`` (``False``) — ``True`` accepts every write and carries the ADB keyboards,
        like a rooted emulator. ``google_account`` (``None``) — a signed-in account whose calendar
        syncs to the cloud. ``installed_imes`` (``[DEFAULT_IME]``; permissive: the ADB ones too).
        ``permission_prompts`` (``["messages", "phone"]``) — apps that ask for a runtime
        permission on first launch.
    Screen, lock and time
        ``ime_visible`` (``True``) — the soft keyboard covers the lower screen while a field has
        focus. ``animation_ms`` (``300``) — frames keep changing this long after an action.
        ``locked`` (``False``) — a swipe lock. ``locked_pin`` (``None``) — a PIN lock (secure
        keyguard, 4–16 digits). ``screen_timeout`` (``None``: on for a locked phone only) — the
        screen sleeps after ``screen_off_timeout``. ``timezone`` (``"UTC"``) —
        ``persist.sys.timezone``. ``clock_rate`` (``1.0``) — sim seconds per wall second (0
        freezes the clock).
    Input and transport
        ``input_latency_ms`` (``30``) — delay before each input event lands. ``touch_jitter_px``
        (``0``) — touches land up to ±N px off target. ``flaky`` (off) — drop the adb connection
        every N streams or with a probability (:class:`FlakyTransport`).
    Battery
        ``battery_level`` (``87``, %), ``battery_temp`` (``285``, tenths of °C), ``plugged`` (``"usb"``;
        ``ac``, ``wireless``, ``dock``, ``none``) — the health HAL's values at boot; changed at runtime
        by ``VirtualPhone.set_battery`` and overridden by the shell's ``dumpsys battery set``.
    Screen recording
        ``screenrecord`` (``"ok"``; ``"missing"``: no binary, status 127; ``"no_avc"``: no AVC
        encoder — an error, an empty file, status 0).
    Costs (what the phone's work takes; all ``0`` under ``timing="fast"``, the default)
        ``timing`` (``"fast"``; ``"realistic"``: a mid-range phone's figures,
        :data:`TIMING_PRESETS`) fills ``dump_ms``/``dump_node_ms`` (a uiautomator2 dump),
        ``shell_dump_ms`` (``uiautomator dump``), ``screencap_png_ms``/``screencap_raw_ms``/
        ``screencap_jpeg_ms`` (frames), ``u2_rpc_ms`` (one JSON-RPC round trip), ``input_cmd_ms``
        (one ``input`` command) and ``app_process_ms`` (a Java shell tool's runtime start); a
        knob given explicitly keeps its value. :mod:`device.virtual.costs` charges them.
    """

    model_config = ConfigDict(extra="forbid")
    profile: str = Field("pixel", description="Device profile (sim.profiles): screen size, density, model.")
    flavor: str = Field("aosp", description="App structure and strings: 'aosp' (stock Android), 'google' "
                                            "(a Pixel's apps) or 'sim'.")
    family: str = Field("aosp", description="Phone family whose apps the phone carries: 'aosp' or 'google' "
                                            "(device.virtual.families).")
    seed: int = Field(0, description="World seed, and the seed of touch jitter and transport faults.")
    input_latency_ms: float = Field(30.0, ge=0, le=5000, description="Delay before each input event lands.")
    animation_ms: int = Field(300, ge=0, le=5000,
                              description="Frames keep changing this long after an action (0 = off).")
    ime_visible: bool = Field(True, description="The soft keyboard covers the lower screen while typing.")
    permission_prompts: list[str] = Field(default_factory=lambda: ["messages", "phone"],
                                          description="Apps that ask for a runtime permission on first launch.")
    touch_jitter_px: int = Field(0, ge=0, le=200, description="Touches land up to ±N px off target (seeded).")
    flaky: FlakyTransport = Field(default_factory=FlakyTransport)
    clock_rate: float = Field(1.0, ge=0, le=1000, description="Sim seconds per wall second (0 = frozen clock).")
    android: int = Field(14, description="Android release the phone follows: 11, 13, 14 or 15.")
    permissive: bool = Field(False, description="Accept every write and carry the ADB keyboards, like a rooted "
                                                "emulator (off: a stock, unrooted phone).")
    google_account: str | None = Field(None, description="A signed-in Google account whose calendar syncs to the "
                                                         "cloud (None: no account, so no calendar).")
    installed_imes: list[str] = Field(default_factory=lambda: [DEFAULT_IME],
                                      description="IMEs installed on the phone (the first is the default). A stock "
                                                  "phone has only its keyboard; permissive phones get the ADB ones.")
    timing: Literal["fast", "realistic"] = Field("fast", description="Cost preset: 'fast' (no added cost) or "
                                                                     "'realistic' (a mid-range phone's).")
    dump_ms: float = Field(0.0, ge=0, le=60000, description="Fixed cost of a uiautomator2 hierarchy dump.")
    dump_node_ms: float = Field(0.0, ge=0, le=1000, description="Added cost per node of a hierarchy dump.")
    shell_dump_ms: float = Field(0.0, ge=0, le=60000, description="What `uiautomator dump` adds (app_process).")
    screencap_png_ms: float = Field(0.0, ge=0, le=60000, description="Cost of `screencap -p` (full frame).")
    screencap_raw_ms: float = Field(0.0, ge=0, le=60000, description="Cost of `screencap` without -p.")
    screencap_jpeg_ms: float = Field(0.0, ge=0, le=60000, description="Cost of u2 takeScreenshot at scale 1.")
    u2_rpc_ms: float = Field(0.0, ge=0, le=10000, description="Round trip of one uiautomator2 JSON-RPC call.")
    input_cmd_ms: float = Field(0.0, ge=0, le=10000, description="Cost of one `input` shell command.")
    app_process_ms: float = Field(0.0, ge=0, le=10000,
                                  description="Runtime start of a Java shell tool (`content`) on every call.")
    locked: bool = Field(False, description="A swipe screen lock without a PIN: boots to the keyguard, which "
                                            "`wm dismiss-keyguard` or a swipe up dismisses.")
    locked_pin: str | None = Field(None, description="A PIN screen lock (secure keyguard): dismissing it only "
                                                     "shows the bouncer. 4-16 digits.")
    screen_timeout: bool | None = Field(None, description="The screen goes off after `screen_off_timeout` without "
                                                          "user activity (default: on for a locked phone only).")
    anonymous: bool = Field(False, description="Pose as a real phone: no ro.s2r.* properties, a real phone's "
                                               "identity (s2r takes its real-phone paths).")
    timezone: str = Field("UTC", description="persist.sys.timezone (an IANA zone): what date, the apps and the "
                                             "alarms show; providers store UTC epoch millis.")
    hidden_launcher: list[str] = Field(default_factory=list,
                                       description="Packages installed without a launcher entry (a Pixel's "
                                                   "DocumentsUI on Android 12+, whose 'Files' icon is Files by "
                                                   "Google): resolve-activity -c LAUNCHER finds nothing; the "
                                                   "app's own activities still start.")

    battery_level: int = Field(87, ge=0, le=100, description="Battery charge at boot, % (BatteryService level).")
    battery_temp: int = Field(285, ge=-400, le=1000, description="Battery temperature at boot, tenths of °C "
                                                                 "(what `dumpsys battery` prints: 285 = 28.5 °C).")
    plugged: Literal["usb", "ac", "wireless", "dock", "none"] = Field(
        "usb", description="The charger at boot: usb (a phone attached for adb), ac, wireless, dock or none.")
    screenrecord: Literal["ok", "missing", "no_avc"] = Field(
        "ok", description="The screen recorder: ok, missing (no binary: 'inaccessible or not found', 127) or "
                          "no_avc (no AVC encoder: 'unable to create video/avc codec instance', an empty file).")

    @model_validator(mode="before")
    @classmethod
    def _family_defaults(cls, data: Any) -> Any:
        """Either of ``family`` / ``flavor`` given alone sets the other (a google phone draws the google
        flavor); the google family hides DocumentsUI's launcher entry unless ``hidden_launcher`` is given."""
        if not isinstance(data, dict):
            return data
        data = dict(data)
        if data.get("flavor") is None:
            data.pop("flavor", None)
        if data.get("family") is None:
            data.pop("family", None)
        if "family" not in data:
            data["family"] = "google" if data.get("flavor") == "google" else "aosp"
        if "flavor" not in data and data["family"] in ("aosp", "google"):
            data["flavor"] = data["family"]
        if "hidden_launcher" not in data and data["family"] in ("aosp", "google"):
            from .families import family as _family

            data["hidden_launcher"] = list(_family(data["family"]).hidden_launcher)
        return data

    @field_validator("family")
    @classmethod
    def _family(cls, v: str) -> str:
        from .families import FAMILY_NAMES

        if v not in FAMILY_NAMES:
            raise ValueError(f"unknown family {v!r}; the families are: {', '.join(FAMILY_NAMES)}")
        return v

    @model_validator(mode="after")
    def _family_flavor(self) -> "PhoneKnobs":
        """The screens must be the family's: the google flavor draws com.google.android.* packages, the
        aosp and sim flavors com.android.* ones."""
        if (self.family == "google") != (self.flavor == "google"):
            raise ValueError(f"family {self.family!r} cannot draw the {self.flavor!r} flavor: a google phone "
                             "shows the google flavor, an aosp phone the aosp or sim flavor")
        return self

    @model_validator(mode="before")
    @classmethod
    def _timing_preset(cls, data: Any) -> Any:
        """``timing`` fills the cost knobs it names; a knob given explicitly keeps its value."""
        if isinstance(data, dict) and data.get("timing") is not None:
            preset = TIMING_PRESETS.get(str(data["timing"]))
            if preset is not None:
                data = {**preset, **data}
        return data

    def jpeg_ms(self, scale: float = 1.0) -> float:
        """What a u2 screenshot costs. ``scale`` is kept for callers that would scale on the phone;
        uiautomator2's server encodes the whole frame whatever it is asked (see the module doc)."""
        return self.screencap_jpeg_ms * (0.4 + 0.6 * scale * scale)

    def dump_cost_ms(self, nodes: int) -> float:
        """What a uiautomator2 hierarchy dump of ``nodes`` nodes costs."""
        return self.dump_ms + self.dump_node_ms * max(0, nodes)

    @model_validator(mode="before")
    @classmethod
    def _permissive_imes(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("permissive") and "installed_imes" not in data:
            data = {**data, "installed_imes": list(PERMISSIVE_IMES)}
        return data

    @field_validator("locked_pin")
    @classmethod
    def _pin(cls, v: str | None) -> str | None:
        """A PIN is 4 to 16 digits (LockPatternUtils.MIN_LOCK_PASSWORD_SIZE, PasswordMetrics.MAX_PASSWORD_LENGTH)."""
        if v is None:
            return None
        v = str(v).strip()
        if not (v.isascii() and v.isdigit() and 4 <= len(v) <= 16):
            raise ValueError(f"a PIN is 4 to 16 digits, got {v!r}")
        return v

    @field_validator("timezone")
    @classmethod
    def _zone(cls, v: str) -> str:
        from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

        v = str(v).strip() or "UTC"
        try:
            ZoneInfo(v)
        except (ZoneInfoNotFoundError, ValueError) as e:
            raise ValueError(f"unknown time zone {v!r}; use an IANA name such as America/New_York") from e
        return v

    @model_validator(mode="after")
    def _identity(self) -> "PhoneKnobs":
        if self.anonymous:
            from sim.profiles import PROFILES

            model = PROFILES[self.profile].model if self.profile in PROFILES else ""
            if model not in REAL_MODELS:
                raise ValueError(f"an anonymous phone needs a profile modelled on a real phone ({', '.join(REAL_MODELS)}); "
                                 f"profile {self.profile!r} is {model!r}")
            if self.flavor not in ("aosp", "google"):
                raise ValueError("an anonymous phone runs stock apps: flavor must be 'aosp' or 'google'")
        return self

    @property
    def has_lock_screen(self) -> bool:
        """A screen lock is set (swipe or PIN): the keyguard can show."""
        return bool(self.locked or self.locked_pin)

    @property
    def sleeps(self) -> bool:
        """Whether the screen-off timeout applies (``screen_timeout``, default: a locked phone's)."""
        return self.has_lock_screen if self.screen_timeout is None else bool(self.screen_timeout)

    @field_validator("android")
    @classmethod
    def _android(cls, v: int) -> int:
        if v not in ANDROID_SDK:
            raise ValueError(f"unsupported Android release {v}; choose one of {sorted(ANDROID_SDK)}")
        return v

    @property
    def sdk(self) -> int:
        """The API level of :attr:`android` (``ro.build.version.sdk``)."""
        return ANDROID_SDK[self.android]

    @field_validator("flavor")
    @classmethod
    def _flavor(cls, v: str) -> str:
        from sim.profiles import FLAVORS

        if v not in FLAVORS:
            raise ValueError(f"unknown flavor {v!r}; the flavors are: {', '.join(FLAVORS)}")
        return v

    @field_validator("profile")
    @classmethod
    def _profile(cls, v: str) -> str:
        from sim.profiles import PROFILES

        if v not in PROFILES:
            raise ValueError(f"unknown profile {v!r}; known: {', '.join(PROFILES)}")
        return v

    @field_validator("permission_prompts")
    @classmethod
    def _apps(cls, v: list[str]) -> list[str]:
        unknown = [a for a in v if a not in APP_IDS]
        if unknown:
            raise ValueError(f"unknown app ids {unknown}; known: {', '.join(APP_IDS)}")
        return v

    @field_validator("installed_imes")
    @classmethod
    def _imes(cls, v: list[str]) -> list[str]:
        if not v:
            raise ValueError("at least one IME must be installed")
        for ime in v:
            if "/" not in ime:
                raise ValueError(f"an IME id looks like 'package/.Service', got {ime!r}")
        return v

    def summary(self) -> dict[str, object]:
        """JSON-ready values (what ``info()`` and the CLI print)."""
        return self.model_dump(mode="json")
