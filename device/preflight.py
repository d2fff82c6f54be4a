"""Preflight: what this phone is and whether s2r can drive it, before the first episode.

Everything the bridge needs to act faithfully is measured here, once per phone, from real
command output (parsed by :mod:`device.parsers`):

* screen geometry — ``wm size`` / ``wm density`` (the override wins: screenshots, hierarchy
  bounds and ``input`` all follow it), rotation and system-bar insets from ``dumpsys window``;
* identity — ``getprop`` (manufacturer → app family through the registry, SDK, model) and
  whether the phone is s2r's virtual phone (exempt from real-world-effect refusals);
* input — whether ``input`` may inject events (MIUI refuses without "USB debugging
  (Security settings)"), the IMEs, and whether s2r may switch IME;
* power — screen on and keyguard dismissed: :func:`wake_and_unlock` wakes the screen and runs
  ``wm dismiss-keyguard``, which dismisses a keyguard without a PIN and only shows the bouncer
  of a secure one (PhoneWindowManager.dismissKeyguardLw → KeyguardBouncer.show); it then reads
  the keyguard again to prove it is gone. A phone whose keyguard needs a PIN is reported
  (``problems``) and never driven: s2r cannot, and must not, enter a PIN.

:class:`DeviceTweaks` optionally keeps the screen awake and turns animations off, recording
the old values so that the session (:mod:`device.session`, which journals them) puts them back
on close.
"""

from __future__ import annotations

import re
import time
from typing import Any

from pydantic import BaseModel, Field

from actionmap.apps import registry
from actionmap.geometry import rotated_size
from device.adbshell import DeviceCommandError, DeviceLost, Shell
from device.capabilities import Capabilities, probe_capabilities
from device.parsers import (ParseError, device_info_from_props, parse_dumpsys_power, parse_dumpsys_window,
                            parse_getprop, parse_wm)
from device.writers import SettingsJournal

__all__ = ["Preflight", "run_preflight", "is_virtual", "DeviceTweaks", "wake_and_unlock", "check_device",
           "ADB_IMES", "keyguard_showing", "keyguard_secure"]

ADB_IMES = ("com.android.adbkeyboard/.AdbIME", "com.github.uiautomator/.AdbKeyboard",
            "com.github.uiautomator/.FastInputIME")
"""IMEs that accept text over an ``am broadcast`` (base64, so the text never meets a shell)."""

_VIRTUAL_MODELS = re.compile(r"^(S2R[ _]Virtual[ _]Phone|s2r_virtual)", re.I)


def is_virtual(props: dict[str, str]) -> bool:
    """s2r's virtual phone: it sets ``ro.s2r.virtual=1`` and product ``s2r_virtual``."""
    if props.get("ro.s2r.virtual") in ("1", "true"):
        return True
    return any(_VIRTUAL_MODELS.match(props.get(k, "") or "") for k in
               ("ro.product.model", "ro.product.name", "ro.product.device"))


class Preflight(BaseModel):
    """One phone, measured. ``problems`` block episodes; ``warnings`` are worth a look."""

    serial: str
    state: str | None = None
    virtual: bool = False
    manufacturer: str | None = None
    model: str | None = None
    android_version: str | None = None
    sdk: int | None = None
    family: str = "aosp"
    flavor: str = Field("aosp", description="App structure the phone follows: the virtual phone's "
                                            "ro.s2r.flavor, else the device family (aosp, xiaomi, samsung).")
    timezone: str | None = None
    physical_size: tuple[int, int] | None = None
    natural_size: tuple[int, int] | None = Field(None, description="Effective size at rotation 0 (override wins).")
    density: int | None = None
    rotation: int = 0
    status_bar_px: int | None = None
    nav_bar_px: int | None = None
    nav_bar_side: str | None = Field(None, description="bottom | left | right")
    navigation_mode: str | None = Field(None, description="3button | 2button | gesture")
    screen_on: bool | None = None
    keyguard: bool | None = Field(None, description="True while the lock screen shows.")
    keyguard_secure: bool | None = Field(None, description="The lock needs a PIN, pattern or password "
                                                           "(s2r cannot dismiss it).")
    input_injection: bool | None = None
    ime_current: str | None = None
    imes_enabled: list[str] = Field(default_factory=list)
    imes_all: list[str] = Field(default_factory=list)
    adb_ime: str | None = Field(None, description="An installed IME that takes base64 text broadcasts.")
    ime_switch_allowed: bool | None = None
    capabilities: Capabilities | None = Field(None, description="What the shell user may do here (SMS, calendar, "
                                                                 "call log, services, text routes): "
                                                                 "device.capabilities.")
    problems: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    took_ms: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def display_size(self) -> tuple[int, int] | None:
        """(width, height) as displayed now (rotation applied)."""
        if self.natural_size is None:
            return None
        return rotated_size(*self.natural_size, self.rotation)

    def summary(self) -> str:
        size = "x".join(map(str, self.display_size)) if self.display_size else "?"
        return (f"{self.manufacturer or '?'} {self.model or '?'} · Android {self.android_version or '?'} "
                f"(SDK {self.sdk or '?'}) · {size} @{self.density or '?'}dpi rot {self.rotation}"
                f"{' · virtual' if self.virtual else ''}")


# Names under which dumps say the keyguard shows: DisplayPolicy's ``isKeyguardShowing=`` (Android
# 11: glued to the end of the ``mShowingDream=…`` line after a space; 12+: its own line),
# ``mDreamingLockscreen=`` (DisplayPolicy/PhoneWindowManager: the keyguard showing and not occluded),
# KeyguardController's ``mKeyguardShowing=`` (``dumpsys activity``), older PhoneWindowManager's
# ``mShowingLockscreen=``/``isStatusBarKeyguard=``, and OEM spellings. The name must not be the tail
# of a longer word (``(?<![A-Za-z0-9_])``): ``\bKeyguardShowing`` could never match inside
# ``isKeyguardShowing``, which is how a locked Android 12+ phone used to look unlocked.
_KEYGUARD = re.compile(r"(?<![A-Za-z0-9_])(isKeyguardShowing|mShowingLockscreen|mDreamingLockscreen|"
                       r"isStatusBarKeyguard|mKeyguardShowing|KeyguardShowing|keyguardShowing|mIsKeyguardShowing)"
                       r"[=:]\s*(true|false)")
_KEYGUARD_SECURE = re.compile(r"^[ \t]*KeyguardServiceDelegate[ \t]*\n(?:[ \t]+\S[^\n]*\n)*?[ \t]+secure=(true|false)",
                              re.M)


def keyguard_secure(*texts: str) -> bool | None:
    """Whether the keyguard needs a PIN/pattern/password (KeyguardServiceDelegate ``secure=``, in
    ``dumpsys window`` / ``dumpsys window policy``); None when no dump says."""
    for t in texts:
        m = _KEYGUARD_SECURE.search(t or "")
        if m:
            return m.group(1) == "true"
    return None


def keyguard_showing(*texts: str) -> bool | None:
    """Whether any dump says the keyguard is showing; None when no dump mentions it."""
    seen = None
    for t in texts:
        for m in _KEYGUARD.finditer(t or ""):
            if m.group(2) == "true":
                return True
            seen = False
    return seen


def _inject_probe(shell: Shell) -> bool | None:
    """Inject KEYCODE_UNKNOWN (0): harmless, and refused exactly when injection is blocked."""
    try:
        r = shell.run(["input", "keyevent", "0"], timeout=15)
    except DeviceCommandError:
        return None
    text = r.text
    if re.search(r"SecurityException|INJECT_EVENTS|not allowed", text):
        return False
    if r.rc in (0, None) and not text.strip():
        return True
    return None


def run_preflight(shell: Shell, *, probe_input: bool = True, capabilities: bool = True) -> Preflight:
    """Measure a phone. Never raises for a reachable phone: failures land in ``problems``.

    ``capabilities``: also probe what the shell user may do (:func:`device.capabilities.probe_capabilities`,
    about 20 shell commands; each probe puts back what it changes and proves it)."""
    t0 = time.perf_counter()
    pf = Preflight(serial=shell.serial, state=shell.state())
    if pf.state != "device":
        pf.problems.append(f"adb state is {pf.state or 'absent'} (want 'device'"
                           + ("; accept the USB debugging prompt on the phone" if pf.state == "unauthorized" else "")
                           + ")")
        return pf
    try:
        props = parse_getprop(shell.out(["getprop"]))
    except ParseError as e:
        pf.problems.append(f"getprop: {e}")
        props = {}
    info = device_info_from_props(props)
    pf.manufacturer, pf.model, pf.android_version, pf.sdk = (info.manufacturer, info.model, info.android_version,
                                                             info.sdk)
    pf.virtual = is_virtual(props)
    pf.family = registry().family_of(info.manufacturer)
    pf.flavor = (props.get("ro.s2r.flavor") if pf.virtual else None) or pf.family
    pf.timezone = props.get("persist.sys.timezone") or None

    try:
        wm = parse_wm(shell.out(["wm", "size"]) + "\n" + shell.out(["wm", "density"]))
        pf.physical_size, pf.natural_size, pf.density = wm.physical_size, wm.size, wm.density
    except ParseError as e:
        pf.warnings.append(f"wm size/density: {e}")
    win_text = shell.out(["dumpsys", "window"])
    try:
        win = parse_dumpsys_window(win_text)
        pf.rotation = win.rotation or 0
        if pf.natural_size is None and win.init_size:
            pf.natural_size = win.init_size
        pf.density = pf.density or win.density
        if win.status_bar is not None:
            pf.status_bar_px = win.status_bar.height
        if win.navigation_bar is not None:
            nb = win.navigation_bar
            dw, dh = pf.display_size or (0, 0)
            if nb.width >= nb.height or (dw and nb.width == dw):
                pf.nav_bar_px, pf.nav_bar_side = nb.height, "bottom"
            else:
                pf.nav_bar_px, pf.nav_bar_side = nb.width, ("left" if nb.left == 0 else "right")
    except ParseError as e:
        pf.warnings.append(f"dumpsys window: {e}")
    if pf.natural_size is None:
        pf.problems.append("screen size unknown (wm size and dumpsys window gave none)")
    nav = shell.out(["settings", "get", "secure", "navigation_mode"]).strip()
    pf.navigation_mode = {"0": "3button", "1": "2button", "2": "gesture"}.get(nav)

    try:
        pf.screen_on = parse_dumpsys_power(shell.out(["dumpsys", "power"])).screen_on
    except ParseError as e:
        pf.warnings.append(f"dumpsys power: {e}")
    pf.keyguard = keyguard_showing(win_text)
    pf.keyguard_secure = keyguard_secure(win_text)
    if pf.screen_on is False:
        pf.problems.append("screen is off (s2r wakes it on start; check the lock settings)")
    if pf.keyguard:
        pf.problems.append(_locked_problem(pf))
    elif pf.keyguard is None:
        pf.warnings.append("cannot tell whether the lock screen is showing")

    ime = shell.run(["ime", "list", "-s"])
    if ime.rc in (0, None) and not re.search(r"Exception|not found", ime.text):
        pf.imes_enabled = [x.strip() for x in ime.out.split("\n") if x.strip()]
        pf.imes_all = [x.strip() for x in shell.out(["ime", "list", "-s", "-a"]).split("\n") if x.strip()]
        pf.ime_switch_allowed = True
    else:
        pf.ime_switch_allowed = False
        pf.warnings.append(f"`ime` is not usable: {ime.text.strip()[:120]}")
    cur = shell.out(["settings", "get", "secure", "default_input_method"]).strip()
    pf.ime_current = cur if cur and cur != "null" else None
    pf.adb_ime = next((i for i in ADB_IMES if i in pf.imes_all or i == pf.ime_current), None)
    if probe_input:
        pf.input_injection = _inject_probe(shell)
        if pf.input_injection is False:
            pf.problems.append("input injection is refused (Xiaomi: enable 'USB debugging (Security settings)')")
    if capabilities:
        try:
            pf.capabilities = probe_capabilities(shell, adb_ime=pf.adb_ime, ime_current=pf.ime_current)
            pf.warnings += [f"capability probe left a change: {x}" for x in pf.capabilities.leftovers]
        except DeviceCommandError as e:
            pf.warnings.append(f"capability probes failed: {e}"[:200])
    pf.took_ms = (time.perf_counter() - t0) * 1e3
    return pf


def _locked_problem(pf: Preflight, tried: bool = False) -> str:
    if pf.keyguard_secure:
        return ("the lock screen is showing and needs a PIN, pattern or password: s2r cannot and "
                "must not unlock it (unlock the phone yourself, or set Screen lock to None on a test phone)")
    if tried:
        return ("the lock screen is still showing after `wm dismiss-keyguard`: unlock the phone "
                "(s2r never enters a PIN)")
    return "the lock screen is showing (no PIN: DeviceEnv dismisses it on start)"


def _keyguard_now(shell: Shell) -> tuple[bool | None, bool | None]:
    text = shell.out(["dumpsys", "window"])
    return keyguard_showing(text), keyguard_secure(text)


def wake_and_unlock(shell: Shell, pf: Preflight | None = None) -> Preflight:
    """Wake the screen and dismiss a keyguard that has no PIN; return a fresh preflight.

    ``wm dismiss-keyguard`` dismisses a keyguard without a PIN; on a secure one it only brings up
    the bouncer (KeyguardBouncer.show: "If no security auth (password/pin/pattern) is set, this will
    dismiss the whole Keyguard. Otherwise, show the bouncer."), which BACK puts away again, so the
    phone is left on its lock screen as it was found. The keyguard is read again afterwards: only
    a fresh ``isKeyguardShowing=false`` counts as unlocked. A keyguard that stays (secure, or one
    the command could not dismiss) is in the fresh preflight's ``problems`` (DeviceEnv.start raises
    ``DeviceNotReady`` naming the serial; a farm quarantines the phone with that reason)."""
    pf = pf or run_preflight(shell, probe_input=False, capabilities=False)
    if pf.screen_on is False:
        shell.run(["input", "keyevent", "KEYCODE_WAKEUP"])
        time.sleep(0.5)
    if pf.keyguard or pf.screen_on is False:
        showing, secure = _keyguard_now(shell)
        if showing is not False:
            shell.run(["wm", "dismiss-keyguard"])
            time.sleep(0.5)
            showing, secure2 = _keyguard_now(shell)
            secure = secure2 if secure2 is not None else secure
            if showing and secure:  # the bouncer came up: put it away, s2r never types a PIN
                shell.run(["input", "keyevent", "KEYCODE_BACK"])
        fresh = run_preflight(shell, capabilities=pf.capabilities is None)
        fresh.capabilities = fresh.capabilities or pf.capabilities
        if fresh.keyguard:
            fresh.problems = [_locked_problem(fresh, tried=True) if x == _locked_problem(fresh) else x
                              for x in fresh.problems]
        return fresh
    return pf


class DeviceTweaks:
    """Stay awake and no animations, undone on :meth:`restore` (values journalled first)."""

    ANIMATIONS = ("window_animation_scale", "transition_animation_scale", "animator_duration_scale")

    def __init__(self, shell: Shell):
        self.shell = shell
        self.journal = SettingsJournal()

    def apply(self, *, stay_awake: bool = True, no_animations: bool = True) -> list[str]:
        done = []
        if stay_awake:
            self.journal.put(self.shell, "global", "stay_on_while_plugged_in", "7")
            done.append("stay_on_while_plugged_in=7")
        if no_animations:
            for k in self.ANIMATIONS:
                self.journal.put(self.shell, "global", k, "0")
            done.append("animation scales=0")
        return done

    def restore(self) -> list[str]:
        return self.journal.restore(self.shell)


def capability_checks(caps: Capabilities | None) -> list[Any]:
    """The capability probes as doctor checks: what works here, and how to enable what does not."""
    from device.checks import Check

    if caps is None:
        return [Check("capabilities", "warn", "not probed")]
    sms = caps.sms
    sms_status = {"allowed": "ok", "grant_needed": "warn", "no": "warn", "unknown": "warn"}[sms.writable]
    out = [Check("capabilities", "ok" if not caps.leftovers else "fail", caps.summary(),
                 "" if not caps.leftovers else "a probe left a change: " + "; ".join(caps.leftovers)[:150],
                 data=caps.model_dump(mode="json")),
           Check("sms", sms_status,
                 f"writes: {sms.writable} (WRITE_SMS {sms.appop_mode or '?'}); reads show "
                 f"{', '.join(sms.readable_boxes) or 'no rows'}; boxes "
                 + " ".join(f"{k}={v}" for k, v in sms.box_queries.items()),
                 {"grant_needed": "SMS setups need `--grant-appops` (s2r runs `appops set com.android.shell "
                                  "WRITE_SMS allow` and restores the mode on close)",
                  "no": "SMS setups cannot be reproduced on this phone", "unknown": "check `adb shell appops`",
                  "allowed": ""}[sms.writable])]
    cal = caps.calendar
    out.append(Check("calendar", "ok" if cal.local_writable else "warn",
                     f"{len(cal.calendars)} calendar(s); LOCAL writable: {cal.local_writable}; synced accounts "
                     f"(never written): {', '.join(cal.synced) or 'none'}",
                     "" if cal.local_writable else "calendar setups cannot be reproduced here"))
    cl = caps.call_log
    out.append(Check("call log", "ok" if cl.readable else "warn", f"read: {cl.readable}; write: {cl.writable}",
                     "" if cl.readable else "call-log judges are undetermined on this release (shell lacks "
                                            "READ_CALL_LOG)"))
    missing = [k for k, v in caps.services.items() if not v.available]
    out.append(Check("service commands", "ok" if not missing else "warn",
                     " ".join(f"{k}={'yes' if v.available else 'no'}" for k, v in caps.services.items()),
                     "" if not missing else f"settings behind {', '.join(missing)} are read/set another way or "
                                            "not at all on this release"))
    out.append(Check("text routes", "ok", " → ".join(caps.text.routes)))
    return out


def check_device(serial: str) -> list[Any]:
    """``s2r doctor --device SERIAL``: the preflight as doctor checks (ok / warn / fail + fix)."""
    from device.checks import Check

    from device.adb import client, ensure_server

    try:
        ensure_server()
        shell = Shell(client(), serial)
        pf = run_preflight(shell)
    except DeviceLost as e:
        return [Check(f"device {serial}", "fail", str(e)[:200], "check the cable / `adb connect HOST:PORT`")]
    except Exception as e:  # noqa: BLE001
        return [Check(f"device {serial}", "fail", f"{type(e).__name__}: {e}"[:200], "is the adb server running?")]
    checks = [Check(f"device {serial}", "ok" if pf.state == "device" else "fail", pf.summary(),
                    "" if pf.state == "device" else "accept the USB debugging prompt / reconnect",
                    data=pf.model_dump(mode="json"))]
    if pf.state != "device":
        return checks
    size_ok = pf.natural_size is not None
    checks.append(Check("display", "ok" if size_ok else "fail",
                        f"natural {pf.natural_size} density {pf.density} rotation {pf.rotation} "
                        f"status bar {pf.status_bar_px}px nav {pf.nav_bar_side or '?'} {pf.nav_bar_px}px "
                        f"({pf.navigation_mode or '?'})", "" if size_ok else "`adb shell wm size` must print a size"))
    inj = {True: "ok", False: "fail", None: "warn"}[pf.input_injection]
    checks.append(Check("input injection", inj, {True: "allowed", False: "refused", None: "unknown"}[pf.input_injection],
                        "" if inj == "ok" else "Xiaomi: Developer options → USB debugging (Security settings)"))
    awake = "fail" if (pf.screen_on is False or pf.keyguard) else ("warn" if pf.keyguard is None else "ok")
    checks.append(Check("screen", awake, f"screen on={pf.screen_on} keyguard={pf.keyguard} "
                                         f"secure={pf.keyguard_secure}",
                        "" if awake == "ok" else "wake and unlock the phone; set Screen lock to None on a test phone"))
    checks.append(Check("ime", "ok" if pf.ime_switch_allowed else "warn",
                        f"current {pf.ime_current}; ADB keyboard {pf.adb_ime or 'not installed'}",
                        "" if pf.adb_ime else "none needed: text goes through uiautomator2 setText / clipboard "
                                              "paste (an ADB keyboard, where installed, is used first)"))
    checks.extend(capability_checks(pf.capabilities))
    try:
        import uiautomator2 as u2

        t = time.perf_counter()
        d = u2.connect(shell.device)
        info = d.info
        checks.append(Check("uiautomator2", "ok", f"server up in {(time.perf_counter() - t):.1f}s, "
                                                 f"{info.get('displayWidth')}x{info.get('displayHeight')}"))
    except Exception as e:  # noqa: BLE001
        checks.append(Check("uiautomator2", "warn", f"{type(e).__name__}: {str(e)[:150]}",
                            "s2r falls back to `uiautomator dump` and `screencap` (slower)"))
    for w in pf.warnings:
        checks.append(Check("preflight", "warn", w[:200]))
    return checks
