"""``dumpsys window`` and ``dumpsys activity`` of the virtual phone: WindowManager's and
ActivityTaskManager's dump sections in the format of the phone's release (insets, display
policy, windows, focused app, tasks and activities).

Why its own module: the window and activity dumps are the ones scripts read most
(``mCurrentFocus``, ``mResumedActivity``, the IME inset); the other services' dumps are
:mod:`.android_dumpsys`.
"""

from __future__ import annotations

import zlib
from typing import TYPE_CHECKING

from .android_am import pid_of
from .families import AOSP

if TYPE_CHECKING:
    pass
from .android_snapshot import _PERMISSION_ACTIVITY, SystemSnapshot, _h, _short

__all__ = ["dumpsys_window", "dumpsys_activity", "activity_record"]


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
def activity_record(pkg: str, act: str) -> str:
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
            out.append(f"    mResumedActivity: {activity_record(pkg, act)}\n")
            out.append(f"    topResumedActivity={activity_record(pkg, act)}\n")
        out.append(f"    * Hist  #0: {activity_record(pkg, act)}\n"
                   f"      packageName={pkg} processName={pkg}\n"
                   f"      app=ProcessRecord{{{_h('p' + pkg)} {pid_of(pkg)}:{pkg}/u0a{_task_id(pkg)}}}\n"
                   f"      state={'RESUMED' if i == 0 else 'STOPPED'} stopped={'false' if i == 0 else 'true'} "
                   "delayedResume=false finishing=false\n")
    out.append("\n  Resumed activities in task display areas (from top to bottom):\n"
               f"    Resumed: {activity_record(top_pkg, top_act)}\n\n"
               f"  ResumedActivity: {activity_record(top_pkg, top_act)}\n\n"
               "ActivityTaskSupervisor state:\n"
               f"  topDisplayFocusedRootTask=Task{{{_h('task' + top_pkg)} #{_task_id(top_pkg)} type=standard "
               f"A=10{_task_id(top_pkg):03d}:{top_pkg} U=0 visible=true visibleRequested=true mode=fullscreen "
               "translucent=false sz=1}\n"
               f"  mCurTaskIdForUser={{0={_task_id(top_pkg)}}}\n  isHomeRecentsComponent=true\n")
    return "".join(out)
