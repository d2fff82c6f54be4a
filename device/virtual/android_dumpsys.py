"""``dumpsys``, ``wm`` and ``getprop`` of the virtual phone, in the output formats of its release.

Why the formats matter: scripts (and :mod:`device.parsers`, adbutils, uiautomator2) read
these dumps with regular expressions over field names — ``mCurrentFocus=Window{… pkg/Act}``,
``init=1080x2400 440dpi … cur=… app=…``, ``InsetsSource type=ITYPE_IME frame=[…] visible=…`` (11–13;
``InsetsSource id=3 type=ime …`` on 14+),
``mViewports=[DisplayViewport{… orientation=0 …}]``, ``mWakefulness=Awake``. Each generator
below writes the sections a real ``dumpsys`` prints for those readers, filled from one
:class:`SystemSnapshot` of the sim phone, so they can never contradict each other.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from .android_am import next_alarm, pid_of
from .families import AOSP
from .shline import CommandContext, CommandHandler

if TYPE_CHECKING:
    from .phone import VirtualPhone

__all__ = ["SystemSnapshot", "take_snapshot", "dumpsys_window", "dumpsys_activity", "dumpsys_display",
           "dumpsys_input", "dumpsys_power", "dumpsys_alarm", "dumpsys_battery", "dumpsys_package",
           "system_commands", "wm_text"]

_PERMISSION_ACTIVITY = ("com.android.permissioncontroller",
                        "com.android.permissioncontroller.permission.ui.GrantPermissionsActivity")
_UNIQUE_ID = "local:4619827259835644672"


def _h(text: str) -> str:
    """A stable 7-hex-digit object hash, like the ones dumpsys prints."""
    return f"{zlib.crc32(text.encode()):08x}"[1:]


def _full(pkg: str, act: str) -> str:
    return pkg + act if act.startswith(".") else act


def _short(pkg: str, act: str) -> str:
    return act[len(pkg):] if act.startswith(pkg + ".") else act


@dataclass
class SystemSnapshot:
    """Everything the system dumps show, read from the phone at one moment."""

    now: datetime
    physical: tuple[int, int]
    size: tuple[int, int]
    physical_density: int
    density: int
    rotation: int
    screen_on: bool
    package: str
    activity: str  # fully qualified
    overlays: dict[str, Any]
    keyboard: bool
    ime_frame: tuple[int, int, int, int] | None
    status_h: int
    nav_h: int
    battery: int
    alarms: list[dict[str, Any]] = field(default_factory=list)
    timers: list[dict[str, Any]] = field(default_factory=list)
    current_ime: str = ""
    brightness: int = 128
    stay_on: bool = False
    gesture_nav: bool = False
    recent_apps: list[str] = field(default_factory=list)
    android: int = 14
    #: VirtualPhone.keyguard_state(): showing, secure, bouncer, occluded, enabled
    keyguard: dict[str, Any] = field(default_factory=dict)
    #: the phone's zone (persist.sys.timezone): ``now`` and alarm times are its wall times
    zone: Any = None
    #: the phone's app family (device.virtual.families): its launcher, its apps' packages
    family: Any = AOSP

    def main(self, pkg: str) -> str | None:
        """The launcher activity of one of the family's apps, fully qualified (None: not one)."""
        app = self.family.by_package(pkg)
        return app.full(app.launcher) if app is not None else None

    @property
    def launcher(self) -> str:
        return self.family.packages["launcher"]

    @property
    def keyguard_showing(self) -> bool:
        return bool(self.keyguard.get("showing"))

    @property
    def app_size(self) -> tuple[int, int]:
        return self.size[0], self.size[1] - self.nav_h

    @property
    def focused(self) -> tuple[str, str]:
        """(package, activity) of the focused *app* (under dialogs and the shade)."""
        d = self.overlays.get("dialog") or {}
        if isinstance(d, dict) and d.get("kind") == "permission":
            return _PERMISSION_ACTIVITY
        return self.package, self.activity

    @property
    def focus_window(self) -> str:
        if self.overlays.get("shade") or self.keyguard_showing:  # the shade window hosts the keyguard
            return "NotificationShade"
        pkg, act = self.focused
        return f"{pkg}/{act}"


def take_snapshot(phone: "VirtualPhone") -> SystemSnapshot:
    """Render (without a screenshot, usually cached) and read the state once."""
    pkg, act = phone.foreground()
    packages = phone.family.packages
    keyboard = phone.keyboard_visible()
    ime = phone.ime_frame() if keyboard else None
    data = phone.state_data()
    overlays = phone.ui_overlays()
    W, H = phone.window_size()
    sy = H / phone.profile.height_px
    dpr = phone.profile.dpr
    gesture = phone.profile.navigation == "gesture"
    world = data["world"]
    try:
        stay = (phone.settings.raw("global", "stay_on_while_plugged_in") or "0") != "0"
    except Exception:  # noqa: BLE001
        stay = False
    recent = [packages[a] for a in overlays.get("recent_apps", []) if a in packages]
    return SystemSnapshot(
        now=phone.now(), physical=phone.physical_size, size=(W, H), physical_density=phone.profile.density,
        density=phone.density, rotation=phone.rotation, screen_on=phone.screen_on, package=pkg, activity=act,
        overlays=overlays, keyboard=keyboard, ime_frame=ime, status_h=round(28 * dpr * sy),
        nav_h=round((16 if gesture else 48) * dpr * sy), battery=int(data["sys"].get("battery", 87)),
        alarms=list(world.get("alarms") or []), timers=list(world.get("timers") or []),
        current_ime=phone.packages.current_ime(), brightness=int(world["settings"].get("brightness") or 128),
        stay_on=stay, gesture_nav=gesture, recent_apps=recent, android=phone.knobs.android,
        keyguard=phone.keyguard_state() if hasattr(phone, "keyguard_state") else {},
        zone=getattr(phone, "zone", None), family=phone.family)


# ============================================================================ window
def _insets(s: SystemSnapshot) -> str:
    """``InsetsStateController`` → ``InsetsState.dump`` → one ``InsetsSource.dump`` line per source.

    Android 11–13 (frameworks/base core/java/android/view/InsetsSource.java) print
    ``InsetsSource type=`` + ``InsetsState.typeToString`` (``ITYPE_STATUS_BAR`` ...). Android 14
    made sources id-keyed: ``InsetsSource id=<hex> type=`` + ``WindowInsets.Type.toString``
    (``statusBars``, ``navigationBars``, ``ime``, ``tappableElement``); the id is
    ``InsetsSource.createId(owner, index, type)`` = owner hash << 16 | index << 5 | log2(type),
    and ``ID_IME`` is ``createId(null, 0, ime())`` = 3."""
    W, H = s.size
    ime = s.ime_frame if s.keyboard and s.ime_frame else None
    ime_txt = f"frame=[{ime[0]},{ime[1]}][{ime[2]},{ime[3]}] visible=true" if ime else "frame=[0,0][0,0] visible=false"
    status = f"frame=[0,0][{W},{s.status_h}] visible=true"
    nav = f"frame=[0,{H - s.nav_h}][{W},{H}] visible=true"
    head = f"    InsetsStateController\n      InsetsState\n        mDisplayFrame=Rect(0, 0 - {W}, {H})\n"
    if s.android >= 14:
        owner = _h("DisplayPolicy")[:4]
        return (head + f"        InsetsSource id={owner}0000 type=statusBars {status}\n"
                f"        InsetsSource id={owner}0001 type=navigationBars {nav}\n"
                f"        InsetsSource id=3 type=ime {ime_txt}\n"
                f"        InsetsSource id={owner}0005 type=tappableElement {status}\n")
    return (head + f"        InsetsSource type=ITYPE_STATUS_BAR {status}\n"
            f"        InsetsSource type=ITYPE_NAVIGATION_BAR {nav}\n"
            f"        InsetsSource type=ITYPE_IME {ime_txt}\n"
            f"        InsetsSource type=ITYPE_TOP_TAPPABLE_ELEMENT {status}\n")


def _policy_section(s: SystemSnapshot) -> str:
    """``dumpsys window policy``: PhoneWindowManager.dump and its KeyguardServiceDelegate.

    ``mShowingDream=… mDreamingLockscreen=…`` (``mDreamingLockscreen`` is
    ``isKeyguardShowingAndNotOccluded()`` whenever no dream shows: DisplayPolicy
    .finishPostLayoutPolicyLw) and the delegate's lines, in the order of
    services/core/java/com/android/server/policy/keyguard/KeyguardServiceDelegate.java ``dump``
    (``showing=``, ``showingAndNotOccluded=``, ``inputRestricted=``, ``occluded=``, ``secure=`` …),
    then its service's KeyguardStateMonitor (KeyguardStateMonitor.java ``dump``: ``mIsShowing=``,
    ``mSimSecure=``, ``mInputRestricted=``, ``mTrusted=``, ``mCurrentUserId=``). ``showing``
    follows the phone's keyguard; ``secure`` is a PIN being set (LockPatternUtils.isSecure);
    ``inputRestricted`` is KeyguardViewMediator.isInputRestricted (the keyguard showing)."""
    on = str(s.screen_on).lower()
    kg = s.keyguard or {}
    showing = bool(kg.get("showing"))
    occluded = bool(kg.get("occluded"))
    b = lambda v: "true" if v else "false"  # noqa: E731
    return ("WINDOW MANAGER POLICY STATE (dumpsys window policy)\n    mSystemBooted=true mSystemReady=true\n"
            f"    mLidState=LID_ABSENT mLidOpenRotation=-1\n    mScreenOnEarly={on} mScreenOnFully={on}\n"
            "    mKeyguardDrawComplete=true mWindowManagerDrawComplete=true\n"
            f"    mShowingDream=false mDreamingLockscreen={b(showing and not occluded)}\n"
            f"    KeyguardServiceDelegate\n      showing={b(showing)}\n"
            f"      showingAndNotOccluded={b(showing and not occluded)}\n      inputRestricted={b(showing)}\n"
            f"      occluded={b(occluded)}\n      secure={b(kg.get('secure'))}\n      dreaming=false\n"
            "      systemIsReady=true\n      deviceHasKeyguard=true\n      enabled=true\n"
            f"      offReason={'0' if s.screen_on else '2'}\n      currentUser=0\n      bootCompleted=true\n"
            f"      screenState={'SCREEN_STATE_ON' if s.screen_on else 'SCREEN_STATE_OFF'}\n"
            f"      interactiveState={'INTERACTIVE_STATE_AWAKE' if s.screen_on else 'INTERACTIVE_STATE_SLEEP'}\n"
            f"      KeyguardStateMonitor\n        mIsShowing={b(showing)}\n        mSimSecure=false\n"
            f"        mInputRestricted={b(showing)}\n        mTrusted=false\n        mCurrentUserId=0\n")


def _display_policy(s: SystemSnapshot) -> str:
    """``DisplayPolicy.dump`` inside ``dumpsys window displays`` (DisplayContent.dump passes its
    prefix: ``    DisplayPolicy`` beside ``    DisplayRotation``), from
    services/core/java/com/android/server/wm/DisplayPolicy.java ``dump``:

    * Android 12–15: ``pw.print(prefix); pw.print("mShowingDream="); …
      pw.print(" mDreamingLockscreen="); pw.println(mDreamingLockscreen);`` then ``mStatusBar=``,
      ``mExpandedPanel=`` and ``pw.print(prefix); pw.print("isKeyguardShowing=");
      pw.println(isKeyguardShowing());`` each on its own line.
    * Android 11 leaves the newlines out (``pw.print(mDreamingLockscreen)``,
      ``pw.print(mStatusBar)``, ``pw.print(mNotificationShade)``, then ``pw.print(" isKeyguardShowing=")``
      with no prefix), so all of it is one line:
      ``      mShowingDream=false mDreamingLockscreen=true      mStatusBar=Window{…}      mExpandedPanel=Window{…} isKeyguardShowing=true``.
    """
    kg = s.keyguard or {}
    showing = bool(kg.get("showing"))
    dreaming_lock = showing and not kg.get("occluded")
    b = lambda v: "true" if v else "false"  # noqa: E731
    p = "      "
    on = b(s.screen_on)
    status = f"Window{{{_h('StatusBar')} u0 StatusBar}}"
    shade = f"Window{{{_h('NotificationShade')} u0 NotificationShade}}"
    nav = f"Window{{{_h('NavigationBar0')} u0 NavigationBar0}}"
    head = ("    DisplayPolicy\n"
            f"{p}mCarDockEnablesAccelerometer=true mDeskDockEnablesAccelerometer=true\n"
            f"{p}mDockMode=EXTRA_DOCK_STATE_UNDOCKED mLidState=LID_ABSENT\n"
            f"{p}mAwake={on} mScreenOnEarly={on} mScreenOnFully={on}\n"
            f"{p}mKeyguardDrawComplete=true mWindowManagerDrawComplete=true\n"
            f"{p}mHdmiPlugged=false\n")
    if s.android <= 11:
        keyguard = (f"{p}mShowingDream=false mDreamingLockscreen={b(dreaming_lock)}{p}mStatusBar={status}"
                    f"{p}mExpandedPanel={shade} isKeyguardShowing={b(showing)}\n")
    else:
        keyguard = (f"{p}mShowingDream=false mDreamingLockscreen={b(dreaming_lock)}\n{p}mStatusBar={status}\n"
                    f"{p}mExpandedPanel={shade}\n{p}isKeyguardShowing={b(showing)}\n")
    return (head + keyguard + f"{p}mNavigationBar={nav}\n{p}mNavBarOpacityMode=0\n{p}mNavigationBarCanMove=false\n"
            f"{p}mTopIsFullscreen=false\n\n")


def _display_section(s: SystemSnapshot) -> str:
    (pw, ph), (w, h) = s.physical, s.size
    aw, ah = s.app_size
    return ("WINDOW MANAGER DISPLAY CONTENTS (dumpsys window displays)\n"
            f"  Display: mDisplayId=0 rootTasks={2 + len(s.recent_apps)}\n"
            f"    init={pw}x{ph} {s.physical_density}dpi base={w}x{h} {s.density}dpi cur={w}x{h} app={aw}x{ah} "
            f"rng={w}x{w - s.nav_h}-{ah}x{ah}\n"
            f"    deferred=false mLayoutNeeded=false mTouchExcludeRegion=SkRegion((0,0,{w},{h}))\n\n"
            + _display_policy(s) +
            "    DisplayRotation\n      mCurrentAppOrientation=SCREEN_ORIENTATION_UNSPECIFIED\n"
            f"      mLastOrientation=-1\n      mRotation={s.rotation} mDeferredRotationPauseCount=0\n"
            "      mLandscapeRotation=ROTATION_90 mSeascapeRotation=ROTATION_270\n"
            "      mPortraitRotation=ROTATION_0 mUpsideDownRotation=ROTATION_180\n"
            "      mUserRotationMode=USER_ROTATION_LOCKED mUserRotation=ROTATION_0 mCameraRotationMode=0\n\n"
            + _insets(s) + "\n")


def _window_entry(n: int, title: str, package: str, visible: bool, kind: str) -> str:
    return (f"  Window #{n} Window{{{_h(title)} u0 {title}}}:\n"
            f"    mDisplayId=0 rootTaskId=1 mSession=Session{{{_h('s' + title)} {pid_of(package)}:u0a{n + 100}}} "
            f"mClient=android.os.BinderProxy@{_h('c' + title)}\n"
            f"    mOwnerUid={10000 + n} showForAllUsers=false package={package} appop=NONE\n"
            f"    mAttrs={{(0,0)(fillxfill) ty={kind} fmt=TRANSLUCENT}}\n"
            f"    mViewVisibility={'0x0' if visible else '0x8'} mHaveFrame=true mObscured=false\n"
            f"    isOnScreen={'true' if visible else 'false'}\n    isVisible={'true' if visible else 'false'}\n")


def _windows_section(s: SystemSnapshot) -> str:
    pkg, act = s.focused
    app_title = f"{pkg}/{act}"
    launcher_title = f"{s.launcher}/{s.main(s.launcher)}"
    entries = [("NavigationBar0", "com.android.systemui", True, "NAVIGATION_BAR"),
               ("NotificationShade", "com.android.systemui", bool(s.overlays.get("shade")), "NOTIFICATION_SHADE"),
               ("StatusBar", "com.android.systemui", True, "STATUS_BAR"),
               ("InputMethod", s.current_ime.split("/")[0] or "com.android.inputmethod.latin", s.keyboard,
                "INPUT_METHOD")]
    if app_title != launcher_title:
        entries.append((app_title, pkg, True, "BASE_APPLICATION"))
    entries.append((launcher_title, s.launcher, app_title == launcher_title, "BASE_APPLICATION"))
    body = "".join(_window_entry(i, t, p, v, k) for i, (t, p, v, k) in enumerate(entries))
    fpkg, fact = s.focused
    rec = f"ActivityRecord{{{_h(fpkg + fact)} u0 {fpkg}/{_short(fpkg, fact)} t{_task_id(fpkg)}}}"
    focus = f"Window{{{_h(s.focus_window)} u0 {s.focus_window}}}"
    ime_win = f"Window{{{_h('InputMethod')} u0 InputMethod}}"
    return ("WINDOW MANAGER WINDOWS (dumpsys window windows)\n" + body + "\n"
            f"  mGlobalConfiguration={{1.0 310mcc260mnc [en_US] ldltr sw{round(s.size[0] * 160 / s.density)}dp "
            f"w{round(s.size[0] * 160 / s.density)}dp h{round(s.app_size[1] * 160 / s.density)}dp "
            f"{s.density}dpi nrml long port finger -keyb/v/h -nav/h winConfig={{ mBounds=Rect(0, 0 - {s.size[0]}, "
            f"{s.size[1]}) mAppBounds=Rect(0, {s.status_h} - {s.app_size[0]}, {s.app_size[1]}) "
            f"mRotation=ROTATION_{s.rotation * 90} mWindowingMode=fullscreen}}}}\n"
            f"  mHasPermanentDpad=false\n  mTopFocusedDisplayId=0\n"
            f"  mCurrentFocus={focus}\n  mFocusedApp={rec}\n"
            f"  mInputMethodWindow={ime_win}\n"
            f"  mInputMethodTarget=Window{{{_h(s.focus_window)} u0 {s.focus_window}}}\n"
            f"  mInputMethodInputTarget=Window{{{_h(s.focus_window)} u0 {s.focus_window}}}\n")


def _task_id(pkg: str) -> int:
    """A stable task id per app: the app id's place among the nine (whatever family's package it is)."""
    from .families import FAMILIES

    order = list(AOSP.apps)
    for fam in FAMILIES.values():
        app = fam.package_apps.get(pkg)
        if app is not None:
            return 20 + order.index(app)
    return 20 + len(order) + zlib.crc32(pkg.encode()) % 50


def dumpsys_window(s: SystemSnapshot, section: str | None = None) -> str:
    if section in ("displays", "d"):
        return _display_section(s)
    if section in ("windows", "w"):
        return _windows_section(s)
    if section in ("policy", "p"):
        return _policy_section(s)
    return _policy_section(s) + "\n" + _display_section(s) + "\n" + _windows_section(s)


# ============================================================================ activity
def _record(pkg: str, act: str) -> str:
    return f"ActivityRecord{{{_h(pkg + act)} u0 {pkg}/{_short(pkg, act)} t{_task_id(pkg)}}}"


def _tasks(s: SystemSnapshot) -> list[tuple[str, str]]:
    """(package, activity) of each task, top first (the focused one, then recents)."""
    fpkg, fact = s.focused
    out: list[tuple[str, str]] = []
    if fpkg == _PERMISSION_ACTIVITY[0]:
        out.append((fpkg, fact))
        fpkg, fact = s.package, s.activity
    out.append((fpkg, fact))
    for pkg in s.recent_apps:
        main = s.main(pkg)
        if pkg != fpkg and main is not None:
            out.append((pkg, main))
    return out


def dumpsys_activity(s: SystemSnapshot, section: str | None = None) -> str:
    tasks = _tasks(s)
    top_pkg, top_act = tasks[0]
    if section == "top":
        lines = []
        for pkg, act in reversed(tasks):
            lines.append(f"TASK {pkg} id={_task_id(pkg)} userId=0\n  ACTIVITY {pkg}/{_short(pkg, act)} "
                         f"{_h(pkg + act)} pid={pid_of(pkg)}\n    Local Activity {_h('l' + act)} State:\n"
                         f"      mResumed={'true' if pkg == top_pkg else 'false'} mStopped="
                         f"{'false' if pkg == top_pkg else 'true'} mFinished=false\n")
        return "".join(lines)
    out = ["ACTIVITY MANAGER ACTIVITIES (dumpsys activity activities)\n",
           "Display #0 (activities from top to bottom):\n"]
    for i, (pkg, act) in enumerate(tasks):
        kind = "home" if pkg == s.launcher else "standard"
        visible = "true" if i == 0 else "false"
        out.append(f"  * Task{{{_h('task' + pkg)} #{_task_id(pkg)} type={kind} A=10{_task_id(pkg):03d}:{pkg} U=0 "
                   f"visible={visible} visibleRequested={visible} mode=fullscreen translucent=false sz=1}}\n")
        if i == 0:
            out.append(f"    mResumedActivity: {_record(pkg, act)}\n")
            out.append(f"    topResumedActivity={_record(pkg, act)}\n")
        out.append(f"    * Hist  #0: {_record(pkg, act)}\n"
                   f"      packageName={pkg} processName={pkg}\n"
                   f"      app=ProcessRecord{{{_h('p' + pkg)} {pid_of(pkg)}:{pkg}/u0a{_task_id(pkg)}}}\n"
                   f"      state={'RESUMED' if i == 0 else 'STOPPED'} stopped={'false' if i == 0 else 'true'} "
                   "delayedResume=false finishing=false\n")
    out.append("\n  Resumed activities in task display areas (from top to bottom):\n"
               f"    Resumed: {_record(top_pkg, top_act)}\n\n"
               f"  ResumedActivity: {_record(top_pkg, top_act)}\n\n"
               "ActivityTaskSupervisor state:\n"
               f"  topDisplayFocusedRootTask=Task{{{_h('task' + top_pkg)} #{_task_id(top_pkg)} type=standard "
               f"A=10{_task_id(top_pkg):03d}:{top_pkg} U=0 visible=true visibleRequested=true mode=fullscreen "
               "translucent=false sz=1}\n"
               f"  mCurTaskIdForUser={{0={_task_id(top_pkg)}}}\n  isHomeRecentsComponent=true\n")
    return "".join(out)


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
            f"  FocusedApplications:\n    displayId=0, name='{_record(*s.focused)}', dispatchingTimeout=5000ms\n"
            f"  FocusedWindows:\n    displayId=0, name='{_h(s.focus_window)} {s.focus_window}'\n")


def dumpsys_power(s: SystemSnapshot) -> str:
    wake = "Awake" if s.screen_on else "Asleep"
    return ("POWER MANAGER (dumpsys power)\n\nPower Manager State:\n  Settings power_manager_constants:\n"
            "    no_cached_wake_locks=true\n  mDirty=0x0\n"
            f"  mWakefulness={wake}\n  mWakefulnessChanging=false\n  mIsPowered=true\n  mPlugType=2\n"
            f"  mBatteryLevel={s.battery}\n  mBatteryLevelWhenDreamStarted=0\n  mDockState=0\n"
            f"  mStayOn={'true' if s.stay_on else 'false'}\n  mProximityPositive=false\n  mBootCompleted=true\n"
            "  mSystemReady=true\n  mHalAutoSuspendModeEnabled=false\n"
            f"  mHalInteractiveModeEnabled={'true' if s.screen_on else 'false'}\n  mWakeLockSummary=0x0\n"
            "  mRequestWaitForNegativeProximity=false\n  mSandmanScheduled=false\n  mBatteryLevelLow=false\n"
            "  mLightDeviceIdleMode=false\n  mDeviceIdleMode=false\n  mScreenBrightnessBoostInProgress=false\n"
            f"  mHoldingWakeLockSuspendBlocker=false\n  mHoldingDisplaySuspendBlocker={'true' if s.screen_on else 'false'}\n\n"
            f"Display Power: state={'ON' if s.screen_on else 'OFF'}\n")


def dumpsys_battery(s: SystemSnapshot) -> str:
    return ("Current Battery Service state:\n  AC powered: false\n  USB powered: true\n  Wireless powered: false\n"
            "  Dock powered: false\n  Max charging current: 500000\n  Max charging voltage: 5000000\n"
            f"  Charge counter: {s.battery * 43000}\n  status: 2\n  health: 2\n  present: true\n"
            f"  level: {s.battery}\n  scale: 100\n  voltage: 4123\n  temperature: 285\n  technology: Li-ion\n")


def _fmt_dur(ms: int) -> str:
    """Android ``TimeUtils.formatDuration``: ``+7h46m40s0ms``."""
    sign = "+" if ms >= 0 else "-"
    ms = abs(ms)
    d, rem = divmod(ms, 86_400_000)
    h, rem = divmod(rem, 3_600_000)
    m, rem = divmod(rem, 60_000)
    sec, msec = divmod(rem, 1000)
    out = sign
    started = False
    for v, unit in ((d, "d"), (h, "h"), (m, "m"), (sec, "s")):
        if v or started:
            out += f"{v}{unit}"
            started = True
    return out + f"{msec}ms"


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
        lines.append(f"    user:0 pendingSend:false time:{ms} = {_stamp(when)} = {_fmt_dur(ms - now_ms)}\n")
        pending.append(
            f"    RTC_WAKEUP #{len(pending)}: Alarm{{{_h('alarm' + str(alarm.get('id')))} type 0 origWhen {ms} window 0 "
            f"exactAllowReason=policy_permission {clock}}}\n"
            "      tag=*walarm*:com.android.deskclock.ALARM_ALERT\n"
            f"      type=RTC_WAKEUP origWhen={_stamp(when)} window=0 exactAllowReason=policy_permission "
            "repeatInterval=0 count=0 flags=0x3\n"
            f"      whenElapsed={_fmt_dur(ms - now_ms)} maxWhenElapsed={_fmt_dur(ms - now_ms)}\n"
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
            f"      type=ELAPSED_WAKEUP origWhen={_fmt_dur(left)} window=0 exactAllowReason=policy_permission "
            "repeatInterval=0 count=0 flags=0x1\n"
            f"      whenElapsed={_fmt_dur(left)} maxWhenElapsed={_fmt_dur(left)}\n")
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
        elif service == "display":
            text = dumpsys_display(snap)
        elif service == "input":
            text = dumpsys_input(snap)
        elif service == "power":
            text = dumpsys_power(snap)
        elif service == "alarm":
            text = dumpsys_alarm(snap)
        elif service == "battery":
            text = dumpsys_battery(snap)
        elif service == "input_method":
            text = dumpsys_input_method(snap)
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
