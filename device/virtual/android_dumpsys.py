"""``dumpsys``, ``wm`` and ``getprop`` of the virtual phone, in the output formats of its release.

Why the formats matter: scripts (and :mod:`device.parsers`, adbutils, uiautomator2) read
these dumps with regular expressions over field names — ``mCurrentFocus=Window{… pkg/Act}``,
``init=1080x2400 440dpi … cur=… app=…``, ``InsetsSource type=ITYPE_IME frame=[…] visible=…`` (11–13;
``InsetsSource id=3 type=ime …`` on 14+),
``mViewports=[DisplayViewport{… orientation=0 …}]``, ``mWakefulness=Awake``. Each generator
below writes the sections a real ``dumpsys`` prints for those readers, filled from one
:class:`SystemSnapshot` of the sim phone, so they can never contradict each other.

The snapshot is :mod:`.android_snapshot`; the window and activity dumps :mod:`.android_dumpsys_wm`.
"""

from __future__ import annotations

import zlib
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from .android_am import next_alarm
from .android_appops import format_duration
from .sh_io import CommandContext, CommandHandler

if TYPE_CHECKING:
    from .phone import VirtualPhone
from .android_dumpsys_wm import activity_record, dumpsys_activity, dumpsys_window
from .android_snapshot import _UNIQUE_ID, SystemSnapshot, _h, take_snapshot

__all__ = ["SystemSnapshot", "take_snapshot", "dumpsys_window", "dumpsys_activity", "dumpsys_display",
           "dumpsys_input", "dumpsys_power", "dumpsys_alarm", "dumpsys_battery", "dumpsys_package",
           "system_commands", "wm_text"]


# ============================================================================ display / input / power
def dumpsys_display(s: SystemSnapshot) -> str:
    (pw, ph), (w, h) = s.physical, s.size
    aw, ah = s.app_size
    state = "ON" if s.screen_on else "OFF"
    bright = round(s.brightness / 255, 8)
    info = ("DisplayInfo{{\"Built-in Screen\", displayId 0\", displayGroupId 0, FLAG_SECURE, "
            "FLAG_SUPPORTS_PROTECTED_BUFFERS, FLAG_TRUSTED, real {rw} x {rh}, largest app {lw} x {lw}, smallest app "
            "{sw} x {sh}, appVsyncOff 1000000, presDeadline 11111111, mode 1, defaultMode 1, modes [{{id=1, "
            "width={pw}, height={ph}, fps=90.0, alternativeRefreshRates=[60.0]}}], rotation {rot}, state {state}, "
            "type INTERNAL, uniqueId \"{uid}\", app {aw} x {ah}, density {d} ({pd}.0 x {pd}.0) dpi, layerStack 0, "
            "colorMode 0, supportedColorModes [0], address {{port=0}}, deviceProductInfo null, removeMode 0, "
            "refreshRateOverride 0.0, brightnessMinimum 0.0, brightnessMaximum 1.0, brightnessDefault 0.4, "
            "installOrientation ROTATION_0}}")
    base = info.format(rw=pw, rh=ph, lw=max(pw, ph), sw=pw, sh=pw - 132, pw=pw, ph=ph, rot=s.rotation, state=state,
                       uid=_UNIQUE_ID, aw=pw, ah=ph - s.nav_h, d=s.physical_density, pd=s.physical_density)
    over = info.format(rw=w, rh=h, lw=max(w, h), sw=w, sh=w - s.nav_h, pw=pw, ph=ph, rot=s.rotation, state=state,
                       uid=_UNIQUE_ID, aw=aw, ah=ah, d=s.density, pd=s.physical_density)
    return ("DISPLAY MANAGER (dumpsys display)\n  mOnlyCode=false\n  mSafeMode=false\n  mPendingTraversal=false\n"
            f"  mViewports=[DisplayViewport{{type=INTERNAL, valid=true, isActive=true, displayId=0, uniqueId='{_UNIQUE_ID}', "
            f"physicalPort=0, orientation={s.rotation}, logicalFrame=Rect(0, 0 - {w}, {h}), physicalFrame=Rect(0, 0 - "
            f"{pw}, {ph}), deviceWidth={pw}, deviceHeight={ph}}}]\n"
            "  mDefaultDisplayDefaultColorMode=0\n  mWifiDisplayScanRequestCount=0\n"
            f"  mStableDisplaySize=Point({pw}, {ph})\n\n"
            f"Display States: size=1\n  Display Id=0\n  Display State={state}\n  Display Brightness={bright}\n\n"
            "Display Adapters: size=1\n  LocalDisplayAdapter\n\n"
            f"Display Devices: size=1\n  DisplayDeviceInfo{{\"Built-in Screen\": uniqueId=\"{_UNIQUE_ID}\", {pw} x {ph}, "
            f"modeId 1, defaultModeId 1, supportedModes [{{id=1, width={pw}, height={ph}, fps=90.0, "
            f"alternativeRefreshRates=[60.0]}}], colorMode 0, supportedColorModes [0], density {s.physical_density}, "
            f"{s.physical_density}.0 x {s.physical_density}.0 dpi, appVsyncOff 1000000, presDeadline 11111111, "
            f"touch INTERNAL, rotation {s.rotation}, type INTERNAL, address {{port=0}}, deviceProductInfo null, "
            f"state {state}, frameRateOverride , brightnessMinimum 0.0, brightnessMaximum 1.0, brightnessDefault 0.4, "
            "FLAG_ALLOWED_TO_BE_DEFAULT_DISPLAY, FLAG_ROTATES_WITH_CONTENT, FLAG_SECURE, "
            "FLAG_SUPPORTS_PROTECTED_BUFFERS, installOrientation 0}\n"
            f"    mAdapter=LocalDisplayAdapter\n    mUniqueId={_UNIQUE_ID}\n    mCurrentOrientation={s.rotation}\n"
            f"    mCurrentLayerStackRect=Rect(0, 0 - {pw}, {ph})\n    mCurrentDisplayRect=Rect(0, 0 - {pw}, {ph})\n"
            f"    mState={state}\n\n"
            "Logical Displays: size=1\n  Display 0:\n    mDisplayId=0\n    mLayerStack=0\n    mHasContent=true\n"
            f"    mPrimaryDisplayDevice=Built-in Screen\n    mBaseDisplayInfo={base}\n    mOverrideDisplayInfo={over}\n\n"
            "Display Power Controller:\n  mDisplayId=0\n\nDisplay Power Controller Locked State:\n"
            "  mDisplayReadyLocked=true\n"
            f"  mPendingRequestLocked=policy={'BRIGHT' if s.screen_on else 'OFF'}, useProximitySensor=false\n\n"
            f"Display Power State:\n  mScreenState={state}\n  mScreenBrightness={bright}\n"
            f"  mScreenReady=true\n  mColorFadeLevel={'1.0' if s.screen_on else '0.0'}\n")


def dumpsys_input(s: SystemSnapshot) -> str:
    (pw, ph), (w, h) = s.physical, s.size
    return ("INPUT MANAGER (dumpsys input)\n\nInput Manager Service (Java) State:\n  Interactive: "
            f"{'true' if s.screen_on else 'false'}\n\n"
            "Event Hub State:\n  BuiltInKeyboardId: -2\n  Devices:\n"
            "    -1: Virtual\n      Classes: KEYBOARD | ALPHAKEY\n      Path: <virtual>\n      Enabled: true\n"
            "      Descriptor: a718a782d34bc767f4689c232d64d527998ea7fd\n      Location: \n"
            "      ControllerNumber: 0\n      UniqueId: <virtual>\n"
            "    1: gpio-keys\n      Classes: KEYBOARD\n      Path: /dev/input/event0\n      Enabled: true\n"
            "      Descriptor: 485d69228e24f5e46da1598745890b214130dbc4\n      Location: gpio-keys/input0\n"
            "    2: s2r_touchscreen\n      Classes: TOUCH | TOUCH_MT\n      Path: /dev/input/event2\n"
            "      Enabled: true\n      Descriptor: 7e9c2d1f5a4b3c8d6e0f1a2b3c4d5e6f7a8b9c0d\n"
            "      Location: \n      ControllerNumber: 0\n      UniqueId: \n"
            "      Identifier: bus=0x0018, vendor=0x0000, product=0x0000, version=0x0000\n\n"
            "Input Reader State (Nums of device: 3):\n  Device 2: s2r_touchscreen\n    EventHub Devices: [ 2 ] \n"
            "    Generation: 11\n    IsExternal: false\n    Sources: TOUCHSCREEN | STYLUS\n"
            f"    Touch Input Mapper (mode - DIRECT):\n      Viewport INTERNAL: displayId=0, uniqueId={_UNIQUE_ID}, "
            f"port=0, orientation={s.rotation}, logicalFrame=[0, 0, {w}, {h}], physicalFrame=[0, 0, {pw}, {ph}], "
            f"deviceSize=[{pw}, {ph}], isActive=[1]\n"
            f"      RawSurfaceWidth: {pw}px\n      RawSurfaceHeight: {ph}px\n\n"
            "  Configuration:\n    ExcludedDeviceNames: []\n    PointerVelocityControlParameters: scale=1.000\n"
            "    Viewports:\n"
            f"      Viewport INTERNAL: displayId=0, uniqueId={_UNIQUE_ID}, port=0, orientation={s.rotation}, "
            f"logicalFrame=[0, 0, {w}, {h}], physicalFrame=[0, 0, {pw}, {ph}], deviceSize=[{pw}, {ph}], "
            "isActive=[1]\n\n"
            "Input Dispatcher State:\n  DispatchEnabled: true\n  DispatchFrozen: false\n"
            f"  FocusedApplications:\n    displayId=0, name='{activity_record(*s.focused)}', dispatchingTimeout=5000ms\n"
            f"  FocusedWindows:\n    displayId=0, name='{_h(s.focus_window)} {s.focus_window}'\n")


def dumpsys_power(s: SystemSnapshot) -> str:
    wake = "Awake" if s.screen_on else "Asleep"
    return ("POWER MANAGER (dumpsys power)\n\nPower Manager State:\n  Settings power_manager_constants:\n"
            "    no_cached_wake_locks=true\n  mDirty=0x0\n"
            f"  mWakefulness={wake}\n  mWakefulnessChanging=false\n"
            f"  mIsPowered={'true' if s.plug_type else 'false'}\n  mPlugType={s.plug_type}\n"
            f"  mBatteryLevel={s.battery}\n  mBatteryLevelWhenDreamStarted=0\n  mDockState=0\n"
            f"  mStayOn={'true' if s.stay_on else 'false'}\n  mProximityPositive=false\n  mBootCompleted=true\n"
            "  mSystemReady=true\n  mHalAutoSuspendModeEnabled=false\n"
            f"  mHalInteractiveModeEnabled={'true' if s.screen_on else 'false'}\n  mWakeLockSummary=0x0\n"
            "  mRequestWaitForNegativeProximity=false\n  mSandmanScheduled=false\n  mBatteryLevelLow=false\n"
            "  mLightDeviceIdleMode=false\n  mDeviceIdleMode=false\n  mScreenBrightnessBoostInProgress=false\n"
            f"  mHoldingWakeLockSuspendBlocker=false\n  mHoldingDisplaySuspendBlocker={'true' if s.screen_on else 'false'}\n\n"
            f"Display Power: state={'ON' if s.screen_on else 'OFF'}\n")


def dumpsys_battery(s: SystemSnapshot) -> str:
    """``dumpsys battery`` as BatteryService ``dumpInternal`` prints ``mHealthInfo``; the lines of
    each release: ``Dock powered`` from 13 (health AIDL HealthInfo v1), ``Charging state`` from 14
    (v2), ``Charging policy`` from 15; the ``UPDATES STOPPED`` line while the shell froze the values."""
    b = s.battery_info or {}

    def flag(k: str) -> str:
        return "true" if b.get(k) else "false"

    lines = ["Current Battery Service state:"]
    if b.get("updates_stopped"):
        lines.append("  (UPDATES STOPPED -- use 'reset' to restart)")
    lines += [f"  AC powered: {flag('ac')}", f"  USB powered: {flag('usb')}", f"  Wireless powered: {flag('wireless')}"]
    if s.android >= 13:
        lines.append(f"  Dock powered: {flag('dock')}")
    lines += [f"  Max charging current: {b.get('max_current', 0)}", f"  Max charging voltage: {b.get('max_voltage', 0)}",
              f"  Charge counter: {b.get('counter', 0)}", f"  status: {b.get('status', 1)}",
              f"  health: {b.get('health', 1)}", f"  present: {flag('present')}", f"  level: {b.get('level', s.battery)}",
              "  scale: 100", f"  voltage: {b.get('voltage', 0)}", f"  temperature: {b.get('temp', 0)}",
              f"  technology: {b.get('technology', 'Li-ion')}"]
    if s.android >= 14:
        lines.append(f"  Charging state: {b.get('charging_state', 0)}")
    if s.android >= 15:
        lines.append(f"  Charging policy: {b.get('charging_policy', 1)}")
    return "\n".join(lines) + "\n"


#: ``get``/``set`` keys of BatteryService's shell (``dumpHelp``) → mHealthInfo fields
_BATTERY_KEYS = {"present": "present", "ac": "ac", "usb": "usb", "wireless": "wireless", "dock": "dock",
                 "status": "status", "level": "level", "counter": "counter", "temp": "temp", "invalid": "invalid"}
_BATTERY_HELP = ("Battery service (battery) commands:\n  help\n    Print this help text.\n"
                 "  get [-f] [ac|usb|wireless|dock|status|level|temp|present|counter|invalid]\n"
                 "  set [-f] [ac|usb|wireless|dock|status|level|temp|present|counter|invalid] <value>\n"
                 "    Force a battery property value, freezing battery state.\n"
                 "    -f: force a battery change broadcast be sent, prints new sequence.\n"
                 "  unplug [-f]\n    Force battery unplugged, freezing battery state.\n"
                 "    -f: force a battery change broadcast be sent, prints new sequence.\n"
                 "  reset [-f]\n    Unfreeze battery state, returning to current hardware values.\n"
                 "    -f: force a battery change broadcast be sent, prints new sequence.\n")


def battery_shell(phone: "VirtualPhone", args: list[str]) -> str:
    """``dumpsys battery ARGS`` with arguments: BatteryService's ``Shell`` (``onShellCommand``), which
    the shell user may run — ``set``/``unplug``/``reset`` need DEVICE_POWER, held by com.android.shell
    (:class:`device.virtual.phone_power.BatteryState` cites both). Through ``dump`` every answer,
    errors included, goes to stdout and dumpsys exits 0, as on a phone; ``-f`` prints the new
    broadcast sequence number."""
    battery = phone.battery
    cmd, rest = args[0], args[1:]
    force = "-f" in rest
    rest = [a for a in rest if not a.startswith("-")]
    seq = f"{next(_SEQ)}\n" if force else ""
    if cmd in ("help", "-h"):
        return _BATTERY_HELP
    if cmd == "unplug":
        battery.unplug()
    elif cmd == "reset":
        battery.reset()
    elif cmd == "get":
        if not rest:
            return "No property specified\n"
        key = _BATTERY_KEYS.get(rest[0])
        if key is None:
            return f"Unknown get option: {rest[0]}\n"
        value = battery.info()[key]
        return (("true" if value else "false") if isinstance(value, bool) else str(value)) + "\n"
    elif cmd == "set":
        if not rest:
            return "No property specified\n"
        if len(rest) < 2:
            return "No value specified\n"
        key = _BATTERY_KEYS.get(rest[0])
        if key is None:
            return f"Unknown set option: {rest[0]}\n"
        try:
            value = int(rest[1])  # Integer.parseInt
        except ValueError:
            return f"Bad value: {rest[1]}\n"
        battery.set(key, value)
    else:
        return f"Unknown command: {cmd}\n"
    phone.battery_info()  # SystemUI redraws from ACTION_BATTERY_CHANGED
    return seq


_SEQ = iter(range(1, 1 << 31))


def _epoch_ms(dt: datetime, zone: Any = None) -> int:
    """A local wall time of the phone's ``zone`` → epoch ms (AlarmManager's RTC clock)."""
    return int(dt.replace(tzinfo=zone or timezone.utc).timestamp() * 1000)


def _stamp(dt: datetime) -> str:
    return dt.strftime("%Y-%m-%d %H:%M:%S.") + f"{dt.microsecond // 1000:03d}"


def dumpsys_alarm(s: SystemSnapshot) -> str:
    now_ms = _epoch_ms(s.now, s.zone)
    nxt = next_alarm(s.alarms, s.now)
    # the alarms' owner is the family's Clock; the intent actions are DeskClock's code constants
    # (AlarmStateManager / TimerService), which Google's Clock keeps with its com.android.deskclock classes
    clock = s.family.packages["clock"]
    lines = ["ALARM MANAGER (dumpsys alarm)\n\n  Settings:\n    min_futurity=+5s0ms\n    min_interval=+1m0s0ms\n\n",
             "Current Alarm Manager state:\n",
             f"  nowRTC={now_ms}={_stamp(s.now)} nowELAPSED=+3d2h15m10s417ms\n\n",
             "  Next alarm clock information:\n"]
    pending: list[str] = []
    if nxt is not None:
        when, alarm = nxt
        ms = _epoch_ms(when, s.zone)
        lines.append(f"    user:0 pendingSend:false time:{ms} = {_stamp(when)} = {format_duration(ms - now_ms)}\n")
        pending.append(
            f"    RTC_WAKEUP #{len(pending)}: Alarm{{{_h('alarm' + str(alarm.get('id')))} type 0 origWhen {ms} window 0 "
            f"exactAllowReason=policy_permission {clock}}}\n"
            "      tag=*walarm*:com.android.deskclock.ALARM_ALERT\n"
            f"      type=RTC_WAKEUP origWhen={_stamp(when)} window=0 exactAllowReason=policy_permission "
            "repeatInterval=0 count=0 flags=0x3\n"
            f"      whenElapsed={format_duration(ms - now_ms)} maxWhenElapsed={format_duration(ms - now_ms)}\n"
            "      Alarm clock:\n"
            f"        triggerTime={_stamp(when)}\n"
            f"        showIntent=PendingIntent{{{_h('show')}: PendingIntentRecord{{{_h('pir')} {clock} "
            "startActivity}}\n"
            f"      operation=PendingIntent{{{_h('op')}: PendingIntentRecord{{{_h('opr')} {clock} "
            "broadcastIntent}}\n")
    for i, tm in enumerate(t for t in s.timers if t.get("running")):
        left = int(tm.get("remaining_s", 0)) * 1000
        pending.append(
            f"    ELAPSED_WAKEUP #{len(pending)}: Alarm{{{_h('timer' + str(i))} type 2 origWhen {left} window 0 "
            f"exactAllowReason=policy_permission {clock}}}\n"
            "      tag=*walarm*:com.android.deskclock.action.TIMER_EXPIRED\n"
            f"      type=ELAPSED_WAKEUP origWhen={format_duration(left)} window=0 exactAllowReason=policy_permission "
            "repeatInterval=0 count=0 flags=0x1\n"
            f"      whenElapsed={format_duration(left)} maxWhenElapsed={format_duration(left)}\n")
    lines.append(f"\n  Pending alarms: {len(pending)}\n")
    lines.extend(pending)
    lines.append("\n  Pending user blocked background alarms:\n    none\n")
    return "".join(lines)


def dumpsys_input_method(s: SystemSnapshot) -> str:
    fpkg, fact = s.focused
    return ("Current Input Method Manager state:\n  Input Methods: mMethodMapUpdateCount=3\n"
            f"  mCurMethodId={s.current_ime}\n  mCurrentSubtype=null\n"
            f"  mCurFocusedWindowName={fpkg}/{fact}\n"
            f"  mInputShown={'true' if s.keyboard else 'false'}\n  mShowRequested={'true' if s.keyboard else 'false'}\n"
            f"  mIsInteractive={'true' if s.screen_on else 'false'}\n")


def dumpsys_package(phone: "VirtualPhone", pkg: str) -> str:
    p = phone.packages.packages.get(pkg)
    if p is None:
        return f"Unable to find package: {pkg}\n"
    first = datetime.fromtimestamp(phone.booted_at - (86400 * 30 if p.system else 0), tz=timezone.utc)
    stamp = first.strftime("%Y-%m-%d %H:%M:%S")
    uid = 1000 if p.system and pkg in ("android", "com.android.settings") else 10000 + zlib.crc32(pkg.encode()) % 900
    flags = "SYSTEM HAS_CODE ALLOW_CLEAR_USER_DATA" if p.system else "HAS_CODE ALLOW_CLEAR_USER_DATA ALLOW_BACKUP"
    main = phone.family.main_activity(pkg)
    if pkg in (getattr(phone.knobs, "hidden_launcher", None) or []):
        main = None  # the launcher entry is disabled: no MAIN/LAUNCHER filter resolves
    resolver = (f"Activity Resolver Table:\n  Non-Data Actions:\n      android.intent.action.MAIN:\n"
                f"        {_h(pkg)} {pkg}/{main} filter {_h('f' + pkg)}\n          Action: \"android.intent.action.MAIN\"\n"
                f"          Category: \"android.intent.category.LAUNCHER\"\n\n") if main else ""
    return (resolver + "Packages:\n"
            f"  Package [{pkg}] ({_h(pkg)}):\n    userId={uid}\n    pkg=Package{{{_h('pkg' + pkg)} {pkg}}}\n"
            f"    codePath={p.path.rsplit('/', 1)[0]}\n    resourcePath={p.path.rsplit('/', 1)[0]}\n"
            f"    primaryCpuAbi=x86_64\n    versionCode={p.version_code} minSdk=31 targetSdk=34\n"
            f"    minExtensionVersions=[]\n    versionName={p.version_name}\n    apkSigningVersion=3\n"
            f"    flags=[ {flags} ]\n    privateFlags=[ PRIVATE_FLAG_ACTIVITIES_RESIZE_MODE_RESIZEABLE ]\n"
            f"    timeStamp={stamp}\n    firstInstallTime={stamp}\n    lastUpdateTime={stamp}\n"
            f"    installerPackageName={'null' if p.system else 'com.android.shell'}\n"
            f"    signatures=PackageSignatures{{{_h('sig' + pkg)} version:3, signatures:[{_h('cert' + pkg)}], "
            "past signatures:[]}\n"
            f"    pkgFlags=[ {flags} ]\n"
            f"    User 0: ceDataInode=0 installed=true hidden=false suspended=false distractionFlags=0 stopped=false "
            f"notLaunched=false enabled={'0' if p.enabled else '3'} instant=false virtual=false\n"
            + _runtime_permissions(phone, pkg))


#: The runtime permission behind an app's first-launch prompt ("Allow X to send you notifications?").
PROMPT_PERMISSION = "android.permission.POST_NOTIFICATIONS"


def _runtime_permissions(phone: "VirtualPhone", pkg: str) -> str:
    """The ``runtime permissions:`` block of ``User 0`` for the one runtime permission the model
    has — the first-launch prompt of the apps in ``knobs.permission_prompts`` — in the format of
    frameworks/base ``services/core/java/com/android/server/pm/permission/
    PermissionManagerServiceImpl.java`` (``granted=…, flags=[ USER_SET|… ]``)."""
    app = phone.family.package_apps.get(pkg)
    if app is None or app not in (getattr(phone.knobs, "permission_prompts", None) or []):
        return ""
    sys = phone.mutate(lambda d: dict(d.get("sys") or {}))
    answered = app in (sys.get("permissions_user_set") or [])
    granted = app in (sys.get("permissions_granted") or []) and app not in (sys.get("permissions_denied") or [])
    flags = (["USER_SET"] if answered else []) + ["USER_SENSITIVE_WHEN_GRANTED", "USER_SENSITIVE_WHEN_DENIED"]
    return (f"      runtime permissions:\n        {PROMPT_PERMISSION}: granted={'true' if granted else 'false'}, "
            f"flags=[ {'|'.join(flags)}]\n")


# ============================================================================ wm / getprop / dumpsys commands
def wm_text(phone: "VirtualPhone", what: str) -> str:
    if what == "size":
        pw, ph = phone.physical_size
        out = f"Physical size: {pw}x{ph}\n"
        if phone.override_size:
            out += f"Override size: {phone.override_size[0]}x{phone.override_size[1]}\n"
        return out
    out = f"Physical density: {phone.profile.density}\n"
    if phone.override_density:
        out += f"Override density: {phone.override_density}\n"
    return out


_SERVICES = ("activity", "alarm", "battery", "bluetooth_manager", "connectivity", "display", "input", "input_method",
             "meminfo", "package", "power", "settings", "statusbar", "wifi", "window", "SurfaceFlinger", "cpuinfo",
             "notification", "audio", "account", "user", "uimode", "location", "media_session")
#: The services whose dump is a function of the system snapshot alone.
_SNAPSHOT_DUMPS = {"display": dumpsys_display, "input": dumpsys_input, "power": dumpsys_power, "alarm": dumpsys_alarm,
                   "battery": dumpsys_battery, "input_method": dumpsys_input_method}


class SystemCommands:
    def __init__(self, phone: "VirtualPhone") -> None:
        self.phone = phone

    def table(self) -> dict[str, CommandHandler]:
        return {"dumpsys": self.dumpsys, "wm": self.wm, "getprop": self.getprop, "setprop": self.setprop}

    async def dumpsys(self, ctx: CommandContext) -> int:
        args = [a for a in ctx.args if a not in ("-a", "--all")]
        if not args:
            await ctx.out("Currently running services:\n" + "".join(f"  {s}\n" for s in _SERVICES))
            return 0
        if args[0] == "-l":
            await ctx.out("Currently running services:\n" + "".join(f"  {s}\n" for s in _SERVICES))
            return 0
        service, rest = args[0], args[1:]
        if service == "battery" and rest and rest[0] not in ("--proto", "--checkin"):
            await ctx.out(await self.phone.acall(battery_shell, self.phone, rest))
            return 0
        if service == "package":
            pkg = next((a for a in rest if not a.startswith("-")), None)
            if pkg is None:
                await ctx.out("Packages:\n" + "".join(f"  Package [{p}]\n" for p in sorted(self.phone.packages.packages)))
                return 0
            await ctx.out(await self.phone.acall(dumpsys_package, self.phone, pkg))
            return 0
        if service not in _SERVICES:
            await ctx.err(f"Can't find service: {service}\n")
            return 254
        if service in ("notification", "bluetooth_manager", "audio"):
            from .android_services import dumpsys_audio, dumpsys_bluetooth_manager, dumpsys_notification

            dump = {"notification": dumpsys_notification, "bluetooth_manager": dumpsys_bluetooth_manager,
                    "audio": dumpsys_audio}[service]
            await ctx.out(await self.phone.acall(dump, self.phone))
            return 0
        snap = await self.phone.acall(take_snapshot, self.phone)
        sub = rest[0] if rest else None
        if service == "window":
            text = dumpsys_window(snap, sub)
        elif service == "activity":
            if sub in (None, "activities", "a", "top", "recents", "r"):
                text = dumpsys_activity(snap, "top" if sub == "top" else None)
            else:
                text = f"ACTIVITY MANAGER {sub.upper()} (dumpsys activity {sub})\n"
        elif service in _SNAPSHOT_DUMPS:
            text = _SNAPSHOT_DUMPS[service](snap)
        elif service == "SurfaceFlinger" and "--list" in rest:
            text = f"StatusBar#0\nNavigationBar0#0\n{snap.focus_window}#0\n"
        else:
            text = f"{service.upper()} (dumpsys {service})\n"
        await ctx.out(text)
        return 0

    async def wm(self, ctx: CommandContext) -> int:
        args = list(ctx.args)
        if not args:
            await ctx.out("Window manager (window) commands:\n  help\n  size [reset|WxH|WdpxHdp] [-d DISPLAY_ID]\n"
                          "  density [reset|DENSITY] [-d DISPLAY_ID]\n  user-rotation [-d DISPLAY_ID] [free|lock] [rotation]\n")
            return 0
        verb, rest = args[0], []
        skip = False
        for a in args[1:]:
            if skip:
                skip = False
            elif a == "-d":
                skip = True  # the display id: this phone has display 0 only
            else:
                rest.append(a)
        phone = self.phone
        if verb == "size":
            if not rest:
                await ctx.out(wm_text(phone, "size"))
                return 0
            if rest[0] == "reset":
                phone.override_size = None
            else:
                import re

                m = re.fullmatch(r"(\d+)x(\d+)", rest[0])
                if not m or int(m.group(1)) <= 0 or int(m.group(2)) <= 0:
                    await ctx.err(f"Error: bad size {rest[0]}\n")
                    return 255
                size = (int(m.group(1)), int(m.group(2)))
                phone.override_size = None if size == phone.physical_size else size
            await phone.acall(_invalidate, phone)
            return 0
        if verb == "density":
            if not rest:
                await ctx.out(wm_text(phone, "density"))
                return 0
            if rest[0] == "reset":
                phone.override_density = None
            elif rest[0].isdigit() and 72 <= int(rest[0]) <= 1200:
                phone.override_density = None if int(rest[0]) == phone.profile.density else int(rest[0])
            else:
                await ctx.err(f"Error: bad density {rest[0]}\n")
                return 255
            return 0
        if verb == "dismiss-keyguard":
            # WindowManagerShellCommand.runDismissKeyguard → WindowManagerService.dismissKeyguard →
            # PhoneWindowManager.dismissKeyguardLw: no output; a PIN keyguard only shows its bouncer
            if hasattr(phone, "dismiss_keyguard"):
                await phone.acall(phone.dismiss_keyguard)
            return 0
        if verb in ("user-rotation", "fixed-to-user-rotation", "overscan", "scaling"):
            if verb == "user-rotation" and not rest:
                await ctx.out("lock 0\n")
            return 0
        await ctx.err(f"Unknown command: {verb}\n")
        return 255

    async def getprop(self, ctx: CommandContext) -> int:
        props = self.phone.properties()
        args = [a for a in ctx.args if not a.startswith("-")]
        if not args:
            await ctx.out("".join(f"[{k}]: [{props[k]}]\n" for k in sorted(props)))
            return 0
        value = props.get(args[0])
        if value is None:
            value = args[1] if len(args) > 1 else ""
        await ctx.out(value + "\n")
        return 0

    async def setprop(self, ctx: CommandContext) -> int:
        if len(ctx.args) != 2:
            await ctx.err("usage: setprop NAME VALUE\n\nSets an Android system property.\n")
            return 1
        await ctx.err(f"Failed to set property '{ctx.args[0]}' to '{ctx.args[1]}'.\nSee dmesg for error reason.\n")
        return 1


def _invalidate(phone: "VirtualPhone") -> None:
    with phone._lock:
        phone._rev += 1
        phone._ime_rect = None


def system_commands(phone: "VirtualPhone") -> dict[str, CommandHandler]:
    return SystemCommands(phone).table()
