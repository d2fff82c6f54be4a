"""The virtual phone's power and keyguard state: screen on/off and its timeout, the lock
screen, the PIN bouncer and dismissing it, as frameworks/base's policy has it (cited below).

Why its own module: what the keyguard *shows* is :mod:`.keyguard`; when it shows, what a touch or
key does to it and when the screen sleeps is this state machine, advanced lazily whenever anyone
looks; a mixin of :class:`~device.virtual.phone.VirtualPhone`.
"""

from __future__ import annotations

import time
from datetime import datetime
from typing import Any

from .phone_part import PhonePart

__all__ = ["PhonePower"]


class PhonePower(PhonePart):
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
