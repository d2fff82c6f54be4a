"""The virtual phone's power and keyguard state: screen on/off and its timeout, the lock
screen, the PIN bouncer and dismissing it, as frameworks/base's policy has it (cited below), and
its battery — charge, temperature, charger — as BatteryService reports and the shell overrides it.

Why its own module: what the keyguard *shows* is :mod:`.keyguard`; when it shows, what a touch or
key does to it and when the screen sleeps is this state machine, advanced lazily whenever anyone
looks; a mixin of :class:`~device.virtual.phone.VirtualPhone`.
"""

from __future__ import annotations

import threading
import time
from datetime import datetime
from typing import Any

from .phone_part import PhonePart

__all__ = ["PLUG_BITS", "BatteryState", "PhoneBattery", "PhonePower"]


# ---------------------------------------------------------------------- battery
#: ``BatteryManager`` constants (frameworks/base core/java/android/os/BatteryManager.java).
BATTERY_STATUS_CHARGING, BATTERY_STATUS_DISCHARGING, BATTERY_STATUS_FULL = 2, 3, 5
BATTERY_HEALTH_GOOD = 2
#: plug type bits (``BATTERY_PLUGGED_AC`` 1, ``_USB`` 2, ``_WIRELESS`` 4, ``_DOCK`` 8) by charger name
PLUG_BITS: dict[str, int] = {"ac": 1, "usb": 2, "wireless": 4, "dock": 8}
#: what a charger offers (µA, µV): ``Max charging current`` / ``voltage`` as the health HAL reports them
_CHARGER_MAX: dict[str, tuple[int, int]] = {"ac": (3_000_000, 9_000_000), "usb": (500_000, 5_000_000),
                                            "wireless": (1_000_000, 9_000_000), "dock": (1_500_000, 5_000_000),
                                            "none": (0, 0)}
_CAPACITY_UAH = 4_300_000  # a 4300 mAh cell: Charge counter = level % of it


class BatteryState:
    """BatteryService of one virtual phone: the health HAL's values and the shell's frozen copy.

    The *hardware* values (``level``, ``temp`` in tenths of °C, the ``plugged`` charger) are the
    knobs ``battery_level``, ``battery_temp`` and ``plugged``, changed at runtime by
    :meth:`PhonePower.set_battery` (the phone heats up, the cable is pulled). The shell's
    ``dumpsys battery set|unplug|reset`` work as in frameworks/base
    ``services/core/java/com/android/server/BatteryService.java`` ``onShellCommand``: the first
    ``set``/``unplug`` copies the HAL's values and *freezes* them (``mUpdatesStopped``; the dump
    then says ``(UPDATES STOPPED -- use 'reset' to restart)``), later hardware changes stay hidden,
    and ``reset`` returns to the hardware's current values. The shell user may: both need
    ``android.permission.DEVICE_POWER`` and the dump ``android.permission.DUMP``, and
    frameworks/base ``packages/Shell/AndroidManifest.xml`` grants ``com.android.shell`` both.
    Not modelled: the power-off above ``config_shutdownBatteryTemperature`` (68.0 °C,
    ``shutdownIfOverTempLocked``) — a value that high leaves this phone running.
    """

    FIELDS = ("present", "ac", "usb", "wireless", "dock", "status", "level", "counter", "temp", "invalid")

    def __init__(self, level: int, temp: int, plugged: str) -> None:
        self.hw_level, self.hw_temp, self.hw_plugged = int(level), int(temp), plugged
        self.frozen: dict[str, Any] | None = None  # mHealthInfo while mUpdatesStopped
        self.lock = threading.Lock()

    def hardware(self) -> dict[str, Any]:
        """What the health HAL reports now (``mLastHealthInfo``)."""
        plugged = self.hw_plugged
        level = max(0, min(100, self.hw_level))
        if plugged == "none":
            status = BATTERY_STATUS_DISCHARGING
        else:
            status = BATTERY_STATUS_FULL if level >= 100 else BATTERY_STATUS_CHARGING
        cur, volt = _CHARGER_MAX.get(plugged, (0, 0))
        return {"present": True, "ac": plugged == "ac", "usb": plugged == "usb", "wireless": plugged == "wireless",
                "dock": plugged == "dock", "max_current": cur, "max_voltage": volt,
                "counter": _CAPACITY_UAH * level // 100, "status": status, "health": BATTERY_HEALTH_GOOD,
                "level": level, "voltage": 3500 + 7 * level, "temp": self.hw_temp, "technology": "Li-ion",
                "charging_state": 0, "charging_policy": 1, "invalid": 0}

    def info(self) -> dict[str, Any]:
        """``mHealthInfo``: the frozen copy while updates are stopped, else the hardware's."""
        with self.lock:
            return dict(self.frozen) if self.frozen is not None else self.hardware()

    @property
    def updates_stopped(self) -> bool:
        return self.frozen is not None

    def plug_type(self) -> int:
        """``mPlugType`` bits of the chargers online now (0: on battery)."""
        i = self.info()
        return sum(bit for name, bit in PLUG_BITS.items() if i.get(name))

    def set(self, key: str, value: int) -> None:
        """``dumpsys battery set KEY VALUE``: copy the hardware's values once, then change one."""
        with self.lock:
            if self.frozen is None:
                self.frozen = self.hardware()
            self.frozen[key] = bool(value) if key in ("present", "ac", "usb", "wireless", "dock") else int(value)

    def unplug(self) -> None:
        """``dumpsys battery unplug``: every charger offline (the status stays what it was)."""
        with self.lock:
            if self.frozen is None:
                self.frozen = self.hardware()
            self.frozen.update(ac=False, usb=False, wireless=False, dock=False)

    def reset(self) -> None:
        """``dumpsys battery reset``: back to the hardware's current values."""
        with self.lock:
            self.frozen = None


class PhoneBattery(PhonePart):
    """The battery part of :class:`~device.virtual.phone.VirtualPhone` (see :class:`BatteryState`).

    The status bar and Settings show the sim's ``sys.battery``; it follows the level BatteryService
    reports (SystemUI draws what ``ACTION_BATTERY_CHANGED`` carries, a ``set level`` included)."""

    @property
    def battery(self) -> BatteryState:
        from .phone_part import attached

        def make() -> BatteryState:
            return BatteryState(self.knobs.battery_level, self.knobs.battery_temp, self.knobs.plugged)

        return attached(self, "_battery_state", make)

    def battery_info(self) -> dict[str, Any]:
        """BatteryService's ``mHealthInfo`` now, and whether the shell froze it (``updates_stopped``)."""
        b = self.battery
        self._battery_to_screen(b)
        return {**b.info(), "updates_stopped": b.updates_stopped}

    def set_battery(self, *, level: int | None = None, temp: int | None = None, plugged: str | None = None) -> None:
        """The *hardware* changes while the phone runs: the cell's charge (``level`` %), its
        temperature (``temp``, tenths of °C as BatteryService prints it) or the charger
        (``plugged``: ``usb``, ``ac``, ``wireless``, ``dock`` or ``none``). What ``dumpsys battery``
        shows follows at once, unless the shell froze it with ``dumpsys battery set``."""
        b = self.battery
        with b.lock:
            if level is not None:
                if not 0 <= int(level) <= 100:
                    raise ValueError(f"battery level is 0..100, got {level}")
                b.hw_level = int(level)
            if temp is not None:
                b.hw_temp = int(temp)
            if plugged is not None:
                if plugged not in _CHARGER_MAX:
                    raise ValueError(f"plugged is one of {', '.join(_CHARGER_MAX)}, got {plugged!r}")
                b.hw_plugged = plugged
        self._battery_to_screen(b)

    def _battery_to_screen(self, b: BatteryState) -> None:
        level = max(0, min(100, int(b.info()["level"])))
        if getattr(self, "_battery_shown", None) == level:
            return
        self._battery_shown = level

        def show(d: dict[str, Any]) -> None:
            d.setdefault("sys", {})["battery"] = level

        try:
            self.mutate(show)  # type: ignore[attr-defined]
        except Exception:  # noqa: BLE001 - the screen is cosmetic: the dump stays right
            self._battery_shown = None


class PhonePower(PhoneBattery):
    """A part of :class:`~device.virtual.phone.VirtualPhone` (see the module doc)."""

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
        # told to stay on while plugged into a charger that is online (BatteryManagerInternal.isPowered
        # of the setting's plug types: a `dumpsys battery unplug` lets the screen sleep)
        if stay & self.battery.plug_type():  # type: ignore[attr-defined]
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
        from .keyguard import keyguard_window

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
        from .keyguard import KEYGUARD_WRONG_PIN

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
        from .keyguard import keyguard_window

        state, now, h24 = self._keyguard_view_state_locked()
        return keyguard_window(self).xml(state, now, h24)

    def _keyguard_png_locked(self) -> bytes:
        from .keyguard import keyguard_window

        state, now, h24 = self._keyguard_view_state_locked()
        key = (tuple(sorted(state.items())), now, h24, self.window_size(), self.density)
        if self._keyguard_frame is None or self._keyguard_frame[0] != key:
            self._keyguard_frame = (key, keyguard_window(self).draw(state, now, h24))
        return self._keyguard_frame[1]
