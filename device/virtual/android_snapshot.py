"""One :class:`SystemSnapshot` of the virtual phone: everything the system dumps print, read at
one moment, so ``dumpsys window``, ``activity``, ``display``, ``input``, ``power`` … can never
contradict each other.

Why its own module: every ``dumpsys`` generator (:mod:`.android_dumpsys`, :mod:`.android_dumpsys_wm`)
formats the same snapshot; this is the one place that reads the phone for them.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from .families import AOSP

if TYPE_CHECKING:
    from .phone import VirtualPhone

__all__ = ["SystemSnapshot", "take_snapshot"]

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
    #: BatteryService's mHealthInfo (VirtualPhone.battery_info): level, temp (tenths of °C), chargers,
    #: status …, and ``updates_stopped`` after the shell's ``dumpsys battery set``
    battery_info: dict[str, Any] = field(default_factory=dict)

    @property
    def plug_type(self) -> int:
        """``mPlugType``: the bits of the chargers online (AC 1, USB 2, wireless 4, dock 8)."""
        b = self.battery_info
        return sum(bit for k, bit in (("ac", 1), ("usb", 2), ("wireless", 4), ("dock", 8)) if b.get(k))

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
    battery = phone.battery_info() if hasattr(phone, "battery_info") else {}
    return SystemSnapshot(
        now=phone.now(), physical=phone.physical_size, size=(W, H), physical_density=phone.profile.density,
        density=phone.density, rotation=phone.rotation, screen_on=phone.screen_on, package=pkg, activity=act,
        overlays=overlays, keyboard=keyboard, ime_frame=ime, status_h=round(28 * dpr * sy),
        nav_h=round((16 if gesture else 48) * dpr * sy),
        battery=int(battery.get("level", data["sys"].get("battery", 87))),
        alarms=list(world.get("alarms") or []), timers=list(world.get("timers") or []),
        current_ime=phone.packages.current_ime(), brightness=int(world["settings"].get("brightness") or 128),
        stay_on=stay, gesture_nav=gesture, recent_apps=recent, android=phone.knobs.android,
        keyguard=phone.keyguard_state() if hasattr(phone, "keyguard_state") else {},
        zone=getattr(phone, "zone", None), family=phone.family, battery_info=battery)
