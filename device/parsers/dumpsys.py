"""``dumpsys window|activity|display|input|power`` → what is in front and what the screen is.

dumpsys output is meant for humans and changes with every Android release, so each parser
looks for the few stable field names (listed per function), accepts the spellings of old
and new releases, and leaves a field ``None`` rather than guessing when none is present.
All parsers accept a full dump, a section (``dumpsys window displays``) or a ``grep``-ed line.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, Field

from actionmap.apps import registry
from actionmap.observation import Bounds
from actionmap.worldstate import ForegroundState

from ._common import ParseError, component_of, full_activity, normalize_text

__all__ = [
    "FocusedWindow", "WindowInfo", "ActivityInfo", "DisplayState", "Viewport", "InputDevice", "InputInfo",
    "PowerInfo", "parse_dumpsys_window", "parse_dumpsys_activity", "parse_dumpsys_display", "parse_dumpsys_input",
    "parse_dumpsys_power", "foreground_state", "parse_viewports",
]

# Window titles without a component, and who owns them.
_SYSTEM_WINDOWS = {
    "StatusBar": "com.android.systemui", "NotificationShade": "com.android.systemui",
    "Keyguard": "com.android.systemui", "NavigationBar": "com.android.systemui",
    "NavigationBar0": "com.android.systemui", "InputMethod": None, "RecentsPanel": "com.android.systemui",
    "ScreenDecorOverlay": "com.android.systemui", "ShellDropTarget": "com.android.systemui",
}


class FocusedWindow(BaseModel):
    """A window as dumpsys names it: ``Window{hash u0 TITLE}``."""

    title: str = Field(description="Window title as printed: a component, or a name such as NotificationShade.")
    package: str | None = None
    activity: str | None = Field(None, description="Fully qualified activity, when the title is a component.")
    kind: str = Field("app", description="app | system | dialog (Application Not Responding / Error) | other")


def _window_from_title(title: str) -> FocusedWindow:
    title = title.strip()
    comp = component_of(title)
    if comp:
        return FocusedWindow(title=title, package=comp[0], activity=comp[1], kind="app")
    m = re.match(r"^(Application (?:Not Responding|Error)):\s*(\S+)", title)
    if m:
        return FocusedWindow(title=title, package=m.group(2), kind="dialog")
    if title in _SYSTEM_WINDOWS:
        return FocusedWindow(title=title, package=_SYSTEM_WINDOWS[title], kind="system")
    m = re.match(r"^([a-z][\w]*(?:\.[\w]+)+)$", title)  # a bare package (splash screens, some popups)
    if m:
        return FocusedWindow(title=title, package=m.group(1), kind="other")
    return FocusedWindow(title=title, kind="other")


_WINDOW_TOKEN = re.compile(r"Window\{[0-9a-fA-F]+ (?:u-?\d+ )?(.*)\}\s*$")
_ACTIVITY_RECORD = re.compile(r"ActivityRecord\{[0-9a-fA-F]+ u-?\d+ ([A-Za-z][\w.]*)/([\w.$]+)")


def _activity_record(s: str) -> tuple[str, str] | None:
    m = _ACTIVITY_RECORD.search(s)
    return (m.group(1), full_activity(m.group(1), m.group(2))) if m else None


class WindowInfo(BaseModel):
    """What ``dumpsys window`` (or ``dumpsys window displays``) says about focus and the display."""

    focused_window: FocusedWindow | None = Field(None, description="mCurrentFocus: the window with input focus.")
    focused_app_package: str | None = Field(None, description="mFocusedApp: the app that owns focus (even under "
                                                              "a dialog or the shade).")
    focused_app_activity: str | None = None
    init_size: tuple[int, int] | None = Field(None, description="Natural display size (init=WxH).")
    density: int | None = Field(None, description="dpi after override (the Ndpi next to cur= or init=).")
    cur_size: tuple[int, int] | None = Field(None, description="Current logical size, rotated (cur=WxH).")
    app_size: tuple[int, int] | None = Field(None, description="Area apps may use (app=WxH): cur minus system bars.")
    rotation: int | None = Field(None, ge=0, le=3)
    status_bar: Bounds | None = None
    navigation_bar: Bounds | None = None
    navigation_bar_source: str | None = Field(None, description="insets | app-size (derived from cur − app).")
    ime_visible: bool | None = None
    ime_frame: Bounds | None = None
    keyguard_showing: bool | None = Field(None, description="The keyguard (lock screen) shows: isKeyguardShowing "
                                                            "(DisplayPolicy), else KeyguardServiceDelegate showing=.")
    keyguard_secure: bool | None = Field(None, description="The keyguard needs a PIN/pattern/password "
                                                           "(KeyguardServiceDelegate secure=).")

    @property
    def package(self) -> str | None:
        """The app in front: the focused window's package, else the focused app's."""
        if self.focused_window and self.focused_window.package and self.focused_window.kind in ("app", "other"):
            return self.focused_window.package
        return self.focused_app_package or (self.focused_window.package if self.focused_window else None)

    @property
    def activity(self) -> str | None:
        if self.focused_window and self.focused_window.activity:
            return self.focused_window.activity
        return self.focused_app_activity


_FOCUS = re.compile(r"mCurrentFocus=(.*)$", re.M)
_FOCUSED_APP = re.compile(r"mFocusedApp=(.*)$", re.M)
_DISPLAY_LINE = re.compile(r"\binit=(\d+)x(\d+)\s+(\d+)dpi(?:.*?\bbase=(\d+)x(\d+)\s+(\d+)dpi)?"
                           r"(?:.*?\bcur=(\d+)x(\d+))?(?:.*?\bapp=(\d+)x(\d+))?")
_ROTATION = re.compile(r"\bm(?:Current)?Rotation=(?:ROTATION_)?(\d+)")
_INSETS = re.compile(r"InsetsSource\b[^\n]*?\btype=(\w+)[^\n]*?\bframe=\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]"
                     r"[^\n]*?\bvisible=(true|false)")
_INPUT_SHOWN = re.compile(r"\bmInputShown=(true|false)")
# DisplayPolicy.dump: ``isKeyguardShowing=`` (its own line on 12+, the tail of one long line on 11)
_KG_SHOWING = re.compile(r"(?<![A-Za-z0-9_])isKeyguardShowing=(true|false)")
# PhoneWindowManager → KeyguardServiceDelegate.dump: an indented block of ``name=value`` lines
_KG_DELEGATE = re.compile(r"^([ \t]*)KeyguardServiceDelegate[ \t]*\n((?:\1[ \t]+\S[^\n]*\n?)*)", re.M)
_INSET_KIND = {"ITYPE_STATUS_BAR": "status", "statusBars": "status", "ITYPE_NAVIGATION_BAR": "nav",
               "navigationBars": "nav", "ITYPE_IME": "ime", "ime": "ime", "IME": "ime"}


def _rotation_value(v: int) -> int | None:
    if v in (0, 1, 2, 3):
        return v
    return {90: 1, 180: 2, 270: 3}.get(v)


def parse_dumpsys_window(text: str | bytes) -> WindowInfo:
    """Read ``mCurrentFocus``, ``mFocusedApp``, ``init=/cur=/app=``, rotation and insets.

    Field names by release: ``mFocusedApp=AppWindowToken{… ActivityRecord{…}}`` (≤ 9) or
    ``mFocusedApp=ActivityRecord{…}`` (≥ 10); insets as ``InsetsSource type=ITYPE_STATUS_BAR``
    (11–13) or ``type=statusBars`` (14+). The keyguard: DisplayPolicy's ``isKeyguardShowing=``
    (11: at the end of the ``mShowingDream=…`` line, no newline before it; 12+: its own line)
    and KeyguardServiceDelegate's ``showing=``/``secure=`` (``dumpsys window policy``). Without insets (old releases), the navigation bar is
    derived from ``cur`` − ``app`` (the app area excludes the navigation bar only).
    """
    t = normalize_text(text)
    info = WindowInfo()
    found = False
    for m in _FOCUS.finditer(t):
        found = True
        val = m.group(1).strip()
        wm = _WINDOW_TOKEN.search(val)
        if wm:
            info.focused_window = _window_from_title(wm.group(1))
            break
    for m in _FOCUSED_APP.finditer(t):
        found = True
        rec = _activity_record(m.group(1))
        if rec:
            info.focused_app_package, info.focused_app_activity = rec
            break
    dm = _DISPLAY_LINE.search(t)
    if dm:
        found = True
        info.init_size = (int(dm.group(1)), int(dm.group(2)))
        info.density = int(dm.group(6) or dm.group(3))
        if dm.group(7):
            info.cur_size = (int(dm.group(7)), int(dm.group(8)))
        if dm.group(9):
            info.app_size = (int(dm.group(9)), int(dm.group(10)))
    rm = _ROTATION.search(t)
    if rm:
        found = True
        info.rotation = _rotation_value(int(rm.group(1)))
    elif info.init_size and info.cur_size and info.cur_size == info.init_size:
        info.rotation = None  # natural orientation, but 0 and 2 look alike: leave unknown
    seen: set[str] = set()
    for m in _INSETS.finditer(t):
        kind = _INSET_KIND.get(m.group(1))
        if kind is None or kind in seen:
            continue
        seen.add(kind)
        found = True
        b = Bounds(left=int(m.group(2)), top=int(m.group(3)), right=int(m.group(4)), bottom=int(m.group(5)))
        visible = m.group(6) == "true"
        if kind == "status":
            info.status_bar = b if visible else None
        elif kind == "nav":
            info.navigation_bar = b if visible else None
            info.navigation_bar_source = "insets"
        else:
            info.ime_visible = visible and b.area > 0
            info.ime_frame = b if info.ime_visible else None
    if info.ime_visible is None:
        im = _INPUT_SHOWN.search(t)
        if im:
            found = True
            info.ime_visible = im.group(1) == "true"
    km = _KG_SHOWING.search(t)
    if km:
        info.keyguard_showing = km.group(1) == "true"
    dm2 = _KG_DELEGATE.search(t)
    if dm2:
        block = dict(re.findall(r"^\s*(\w+)=(\S+)\s*$", dm2.group(2), re.M))
        if info.keyguard_showing is None and block.get("showing") in ("true", "false"):
            info.keyguard_showing = block["showing"] == "true"
        if block.get("secure") in ("true", "false"):
            info.keyguard_secure = block["secure"] == "true"
    if info.navigation_bar is None and "nav" not in seen and info.cur_size and info.app_size:
        (cw, ch), (aw, ah) = info.cur_size, info.app_size
        if ch > ah and cw == aw:
            info.navigation_bar = Bounds(left=0, top=ah, right=cw, bottom=ch)
        elif cw > aw and ch == ah:
            info.navigation_bar = Bounds(left=aw, top=0, right=cw, bottom=ch)
        if info.navigation_bar is not None:
            info.navigation_bar_source = "app-size"
    if not found:
        raise ParseError("no mCurrentFocus, mFocusedApp, init= display line, rotation or insets: "
                         "not `dumpsys window` output")
    return info


class ActivityInfo(BaseModel):
    """The resumed activity per ``dumpsys activity [activities]``, and the task stack."""

    resumed_package: str | None = None
    resumed_activity: str | None = Field(None, description="Fully qualified activity class.")
    source: str | None = Field(None, description="The field it was read from (topResumedActivity, "
                                                 "ResumedActivity, mResumedActivity, mFocusedActivity).")
    activities: list[str] = Field(default_factory=list, description="package/activity of each Hist entry, top first.")


# Preference order: newest, most specific field first. A lookbehind keeps mLastResumedActivity out.
_RESUMED_FIELDS = ("topResumedActivity", "mTopResumedActivity", "ResumedActivity", "Resumed", "mResumedActivity",
                   "mFocusedActivity")
_RESUMED = re.compile(r"(?<![A-Za-z])(" + "|".join(_RESUMED_FIELDS) + r")\s*[:=]\s*(ActivityRecord\{[^}\n]*\})")
_HIST = re.compile(r"Hist\s*#\d+:\s*(ActivityRecord\{[^}\n]*\})")


def parse_dumpsys_activity(text: str | bytes) -> ActivityInfo:
    """Read the resumed activity: ``topResumedActivity=`` (10+), ``ResumedActivity:`` /
    ``Resumed:`` (12+), ``mResumedActivity:`` (≤ 11), ``mFocusedActivity:`` (≤ 8, as on
    CyanogenMod), and the ``Hist #n`` task entries."""
    t = normalize_text(text)
    best: tuple[int, str, tuple[str, str]] | None = None
    for m in _RESUMED.finditer(t):
        rec = _activity_record(m.group(2))
        if rec is None:
            continue
        rank = _RESUMED_FIELDS.index(m.group(1))
        if best is None or rank < best[0]:
            best = (rank, m.group(1), rec)
    acts = []
    for m in _HIST.finditer(t):
        rec = _activity_record(m.group(1))
        if rec:
            acts.append(f"{rec[0]}/{rec[1]}")
    if best is None and not acts:
        raise ParseError("no resumed/focused ActivityRecord and no Hist entries: not `dumpsys activity` output")
    info = ActivityInfo(activities=acts)
    if best is not None:
        info.source = best[1]
        info.resumed_package, info.resumed_activity = best[2]
    return info


def foreground_state(window: WindowInfo | None = None, activity: ActivityInfo | None = None) -> ForegroundState:
    """The ``WorldState.foreground`` record: package and activity, with the canonical app id.

    The focused window wins (it is what the user sees); the resumed activity fills in when
    the window is a system one (shade, keyguard) or unknown.
    """
    package = window.package if window else None
    act = window.activity if window else None
    if activity and activity.resumed_package and (package is None or package == activity.resumed_package):
        package = package or activity.resumed_package
        act = act or activity.resumed_activity
    return ForegroundState(app=registry().app_of_package(package), package=package, activity=act)


class Viewport(BaseModel):
    """A display viewport as the input and display services print it."""

    kind: str | None = Field(None, description="INTERNAL, EXTERNAL, VIRTUAL (absent on old releases).")
    display_id: int
    orientation: int = Field(ge=0, le=3)
    logical_frame: tuple[int, int, int, int]
    physical_frame: tuple[int, int, int, int] | None = None
    device_size: tuple[int, int] | None = None
    active: bool | None = None

    @property
    def logical_size(self) -> tuple[int, int]:
        lf = self.logical_frame
        return lf[2] - lf[0], lf[3] - lf[1]


_NUM4 = r"(-?\d+),\s*(-?\d+)(?:,|\s*-)\s*(-?\d+),\s*(-?\d+)"
_VP_INPUT = re.compile(r"Viewport(?:\s+(\w+))?:\s*displayId=(\d+)[^\n]*?orientation=(\d+),\s*logicalFrame=\[" + _NUM4
                       + r"\](?:,\s*physicalFrame=\[" + _NUM4 + r"\])?(?:,\s*deviceSize=\[(\d+),\s*(\d+)\])?"
                       r"(?:[^\n]*?isActive=\[?(\w+)\]?)?")
_VP_DISPLAY = re.compile(r"DisplayViewport\{(?:type=(\w+),\s*)?valid=\w+,\s*(?:isActive=(\w+),\s*)?displayId=(\d+)"
                         r"[^}\n]*?orientation=(\d+),\s*logicalFrame=Rect\(" + _NUM4 + r"\)"
                         r"(?:,\s*physicalFrame=Rect\(" + _NUM4 + r"\))?"
                         r"(?:,\s*deviceWidth=(\d+),\s*deviceHeight=(\d+))?")

# each spelling's groups after the kind: (display id, orientation, the first of the 4 + 4 frame numbers and
# the 2 of the device size, isActive)
_VP_GROUPS = ((_VP_INPUT, (1, 2, 3, 13)), (_VP_DISPLAY, (2, 3, 4, 1)))


def _active(v: str | None) -> bool | None:
    if v is None:
        return None
    if v in ("true", "false"):
        return v == "true"
    return v not in ("0",) if v.isdigit() else None


def parse_viewports(text: str) -> list[Viewport]:
    """Viewports in either spelling (input: ``logicalFrame=[l, t, r, b]``; display:
    ``logicalFrame=Rect(l, t - r, b)``), de-duplicated, in order of appearance."""
    out: list[Viewport] = []
    for rx, (disp, orient, f, active) in _VP_GROUPS:
        for m in rx.finditer(text):
            g = m.groups()
            out.append(Viewport(kind=g[0], display_id=int(g[disp]), orientation=int(g[orient]) % 4,
                                logical_frame=tuple(int(x) for x in g[f:f + 4]),  # type: ignore[arg-type]
                                physical_frame=tuple(int(x) for x in g[f + 4:f + 8]) if g[f + 4] else None,  # type: ignore[arg-type]
                                device_size=(int(g[f + 8]), int(g[f + 9])) if g[f + 8] else None,
                                active=_active(g[active])))
    uniq: list[Viewport] = []
    for v in out:
        if v not in uniq:
            uniq.append(v)
    return uniq


class DisplayState(BaseModel):
    """``dumpsys display``: is the screen on, and its size, density and rotation."""

    screen_state: str | None = Field(None, description="ON, OFF, DOZE, DOZE_SUSPEND, VR, ON_SUSPEND, UNKNOWN.")
    physical_size: tuple[int, int] | None = Field(None, description="Panel size (DisplayDeviceInfo).")
    logical_size: tuple[int, int] | None = Field(None, description="Logical size after `wm size` (real W x H).")
    app_size: tuple[int, int] | None = None
    density: int | None = None
    rotation: int | None = Field(None, ge=0, le=3)
    viewports: list[Viewport] = Field(default_factory=list)

    @property
    def screen_on(self) -> bool | None:
        if self.screen_state is None:
            return None
        return self.screen_state.upper() in ("ON", "VR", "ON_SUSPEND")


_SCREEN_STATE = re.compile(r"\bmScreenState=(\w+)")
_DISPLAY_STATE = re.compile(r"\bDisplay State=(\w+)")
_DEVICE_INFO_LINE = re.compile(r"DisplayDeviceInfo\{[^\n]*")
_DISPLAY_INFO_LINE = re.compile(r"m(Override|Base)DisplayInfo=DisplayInfo\{[^\n]*")
_WXH = re.compile(r"(?<![\d.])(\d+) x (\d+)(?![\d.])")
_REAL = re.compile(r"\breal (\d+) x (\d+)")
_APP = re.compile(r"(?<!largest )(?<!smallest )\bapp (\d+) x (\d+)")
_DENSITY = re.compile(r"\bdensity (\d+)")
_ROT = re.compile(r"\brotation (\d)")
_STATE = re.compile(r"\bstate (\w+)")


def _size(rx: re.Pattern[str], s: str) -> tuple[int, int] | None:
    m = rx.search(s)
    return (int(m.group(1)), int(m.group(2))) if m else None


def _num(rx: re.Pattern[str], s: str) -> int | None:
    m = rx.search(s)
    return int(m.group(1)) if m else None


def parse_dumpsys_display(text: str | bytes) -> DisplayState:
    """Read ``mScreenState`` (else ``Display State=``, else the device's ``state``), the panel
    size and density from ``DisplayDeviceInfo``, the logical/app size and rotation from
    ``mOverrideDisplayInfo`` (else ``mBaseDisplayInfo``), and the viewports.

    ``mOverrideDisplayInfo`` carries its own ``state`` that may be stale (ON while the
    screen is off, as in the MediaTek capture), so it is never used for the screen state.
    """
    t = normalize_text(text)
    st = DisplayState(viewports=parse_viewports(t))
    m = _SCREEN_STATE.search(t) or _DISPLAY_STATE.search(t)
    if m:
        st.screen_state = m.group(1)
    dm = _DEVICE_INFO_LINE.search(t)
    if dm:
        line = dm.group(0)
        st.physical_size = _size(_WXH, line)
        st.density = _num(_DENSITY, line)
        rot = _num(_ROT, line)
        st.rotation = rot % 4 if rot is not None else None
        sm = _STATE.search(line)
        if st.screen_state is None and sm:
            st.screen_state = sm.group(1)
    infos = {m.group(1): m.group(0) for m in _DISPLAY_INFO_LINE.finditer(t)}
    line = infos.get("Override") or infos.get("Base")
    if line:  # fields are named, and their order differs between releases
        st.logical_size = _size(_REAL, line) or st.logical_size
        rot = _num(_ROT, line)
        st.rotation = rot % 4 if rot is not None else st.rotation
        st.app_size = _size(_APP, line)
        st.density = _num(_DENSITY, line) or st.density
    if st.viewports:
        vp = next((v for v in st.viewports if v.display_id == 0), st.viewports[0])
        st.logical_size = st.logical_size or vp.logical_size
        st.rotation = st.rotation if st.rotation is not None else vp.orientation
    if st.screen_state is None and st.physical_size is None and st.logical_size is None:
        raise ParseError("no mScreenState, DisplayDeviceInfo, DisplayInfo or viewport: not `dumpsys display` output")
    return st


class InputDevice(BaseModel):
    id: int
    name: str
    classes: list[str] = Field(default_factory=list)
    path: str | None = None
    enabled: bool | None = None

    @property
    def is_touchscreen(self) -> bool:
        return "TOUCH" in self.classes or "TOUCH_MT" in self.classes


class InputInfo(BaseModel):
    """``dumpsys input``: display viewports (size, orientation) and the event-hub devices."""

    viewports: list[Viewport] = Field(default_factory=list)
    devices: list[InputDevice] = Field(default_factory=list)

    @property
    def touchscreens(self) -> list[InputDevice]:
        return [d for d in self.devices if d.is_touchscreen]


_DEVICE_HEAD = re.compile(r"^(\s+)(-?\d+):\s*(.*?)\s*$")
_DEVICE_FIELD = re.compile(r"^\s+(Classes|Path|Enabled):\s*(.*?)\s*$")


def parse_dumpsys_input(text: str | bytes) -> InputInfo:
    """Read the ``Event Hub State`` devices (id, name, classes) and the touch viewports."""
    t = normalize_text(text)
    devices: list[InputDevice] = []
    lines = t.split("\n")
    in_hub = False
    head_indent: int | None = None
    cur: InputDevice | None = None
    for line in lines:
        if line.startswith("Event Hub State"):
            in_hub = True
            continue
        if in_hub and line and not line[0].isspace():
            break  # next top-level section
        if not in_hub:
            continue
        hm = _DEVICE_HEAD.match(line)
        if hm and (head_indent is None or len(hm.group(1)) == head_indent) and not _DEVICE_FIELD.match(line):
            head_indent = len(hm.group(1))
            cur = InputDevice(id=int(hm.group(2)), name=hm.group(3))
            devices.append(cur)
            continue
        fm = _DEVICE_FIELD.match(line)
        if fm and cur is not None:
            key, val = fm.group(1), fm.group(2)
            if key == "Classes":
                cur.classes = [c.strip() for c in re.split(r"[|,]", val) if c.strip()]
            elif key == "Path":
                cur.path = val or None
            elif key == "Enabled":
                cur.enabled = val == "true"
    info = InputInfo(viewports=parse_viewports(t), devices=devices)
    if not info.viewports and not info.devices:
        raise ParseError("no Event Hub devices and no viewports: not `dumpsys input` output")
    return info


class PowerInfo(BaseModel):
    """``dumpsys power``: wakefulness (Awake, Asleep, Dreaming, Dozing) and the display power state."""

    wakefulness: str | None = None
    display_power: str | None = Field(None, description="Display Power: state=ON|OFF|DOZE…")
    plugged: bool | None = None
    battery_level: int | None = None
    stay_on: bool | None = None

    @property
    def screen_on(self) -> bool | None:
        if self.display_power is not None:
            return self.display_power.upper() in ("ON", "VR")
        if self.wakefulness is not None:
            return self.wakefulness == "Awake"
        return None


def parse_dumpsys_power(text: str | bytes) -> PowerInfo:
    """Read ``mWakefulness=``, ``Display Power: state=``, ``mIsPowered=``, ``mBatteryLevel=``,
    ``mStayOn=``."""
    t = normalize_text(text)
    info = PowerInfo()
    if m := re.search(r"\bmWakefulness=(\w+)", t):
        info.wakefulness = m.group(1)
    if m := re.search(r"Display Power:\s*state=(\w+)", t):
        info.display_power = m.group(1)
    if m := re.search(r"\bmIsPowered=(true|false)", t):
        info.plugged = m.group(1) == "true"
    if m := re.search(r"\bmBatteryLevel=(\d+)", t):
        info.battery_level = int(m.group(1))
    if m := re.search(r"\bmStayOn=(true|false)", t):
        info.stay_on = m.group(1) == "true"
    if info.wakefulness is None and info.display_power is None:
        raise ParseError("no mWakefulness and no 'Display Power: state=': not `dumpsys power` output")
    return info
