"""A locked virtual phone: SystemUI's keyguard, as the shell user and s2r meet it.

Knobs ``locked`` (a swipe lock, no PIN) and ``locked_pin`` (a secure keyguard). What a stock
phone does, and where AOSP decides it (device/virtual/phone.py "Power and keyguard"):

* ``dumpsys window`` prints DisplayPolicy's ``isKeyguardShowing=`` (Android 12+: its own line;
  Android 11: the tail of the ``mShowingDream=… mStatusBar=… mExpandedPanel=…`` line, no newline
  before it) and KeyguardServiceDelegate's ``showing=``/``secure=``; focus is the NotificationShade.
* ``uiautomator dump`` and ``screencap`` show only the keyguard (SystemUI's ids).
* ``wm dismiss-keyguard`` and a swipe up dismiss a keyguard without a PIN; on a secure one they
  show the bouncer (KeyguardBouncer.show); BACK puts the bouncer away; only the PIN opens it.
* The power key, and the screen-off timeout (after ``lock_screen_lock_after_timeout``), bring
  the keyguard back.
* DeviceEnv reads the keyguard (``isKeyguardShowing`` too), dismisses one without a PIN at start
  and proves it by reading again; it refuses a PIN phone, naming it, and a farm leaves that phone
  out with the reason while the others keep going.

Real components throughout: Chromium behind the phones, a private adb server, adbutils, uiautomator2.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any, Iterator

import pytest

pytestmark = pytest.mark.timeout(600)

PIN = "2580"


@pytest.fixture(scope="module")
def phones(adb_host: Any, sim_pool: Any) -> Iterator[dict[str, Any]]:
    """Locked phones of the module (stopped with its adb server): a swipe lock on Android 14 and
    11, a PIN lock on Android 13."""
    yield {"host": adb_host,
           "swipe": adb_host.start_phone(sim_pool, locked=True, input_latency_ms=0, animation_ms=0),
           "swipe11": adb_host.start_phone(sim_pool, locked=True, android=11, input_latency_ms=0, animation_ms=0),
           "pin": adb_host.start_phone(sim_pool, locked_pin=PIN, android=13, input_latency_ms=0, animation_ms=0)}


def _sh(host: Any, phone: Any) -> Any:
    from device.adbshell import Shell

    return Shell(host.client(), phone.serial)


def _kg(sh: Any) -> str | None:
    """``isKeyguardShowing=`` as ``dumpsys window`` prints it (the Android 12+ line)."""
    m = re.search(r"^      isKeyguardShowing=(true|false)$", sh.out(["dumpsys", "window"]), re.M)
    return m.group(1) if m else None


def _relock(sh: Any) -> None:
    """Screen off and on with the power key: a phone with a screen lock is locked again."""
    if "mWakefulness=Awake" in sh.out(["dumpsys", "power"]):
        sh.run(["input", "keyevent", "KEYCODE_POWER"])
    sh.run(["input", "keyevent", "KEYCODE_POWER"])
    assert "mWakefulness=Awake" in sh.out(["dumpsys", "power"])


def _dump(sh: Any) -> str:
    sh.run(["uiautomator", "dump", "/sdcard/kg.xml"])
    return sh.out(["cat", "/sdcard/kg.xml"])


# ============================================================================ what a locked phone shows
def test_a_locked_phone_says_so_in_dumpsys_window_on_every_release(phones: dict[str, Any]) -> None:
    from device.parsers import parse_dumpsys_window
    from device.preflight import keyguard_secure, keyguard_showing

    host = phones["host"]
    sh14, sh11, sh13 = (_sh(host, phones[k]) for k in ("swipe", "swipe11", "pin"))
    for sh in (sh14, sh11, sh13):
        _relock(sh)
    win14 = sh14.out(["dumpsys", "window"])
    # DisplayPolicy.dump on 12+: prefix "      " (DisplayContent passes its prefix), one line each
    assert "\n    DisplayPolicy\n" in win14
    assert re.search(r"^      mShowingDream=false mDreamingLockscreen=true$", win14, re.M)
    assert re.search(r"^      isKeyguardShowing=true$", win14, re.M)
    assert re.search(r"^    KeyguardServiceDelegate\n      showing=true\n", win14, re.M)
    assert re.search(r"^      secure=false$", win14, re.M)
    assert "mCurrentFocus=Window{" in win14 and re.search(r"mCurrentFocus=Window\{\w+ u0 NotificationShade\}", win14)
    # Android 11: the same fields run together on one line (no println before " isKeyguardShowing=")
    win11 = sh11.out(["dumpsys", "window"])
    line = next(x for x in win11.splitlines() if "isKeyguardShowing=" in x)
    assert re.fullmatch(r"      mShowingDream=false mDreamingLockscreen=true      mStatusBar=Window\{\w+ u0 StatusBar\}"
                        r"      mExpandedPanel=Window\{\w+ u0 NotificationShade\} isKeyguardShowing=true", line), line
    # the old preflight pattern (\b before KeyguardShowing) could not see it there: ours does
    old = re.compile(r"\b(KeyguardShowing|keyguardShowing)[=:]\s*(true|false)")
    assert not old.search(line)
    assert keyguard_showing(line) is True and keyguard_showing(win11) is True
    # `dumpsys window displays | grep isKeyguardShowing` alone (12+), and an occluded keyguard
    assert keyguard_showing("      isKeyguardShowing=true\n") is True
    assert keyguard_showing("mDreamingLockscreen=false\n      isKeyguardShowing=true\n") is True
    win13 = sh13.out(["dumpsys", "window"])
    for text, secure in ((win14, False), (win11, False), (win13, True)):
        w = parse_dumpsys_window(text)
        assert w.keyguard_showing is True and w.keyguard_secure is secure, w
        assert keyguard_showing(text) is True and keyguard_secure(text) is secure


def test_the_screen_and_the_hierarchy_are_the_keyguards(phones: dict[str, Any]) -> None:
    import cv2
    import numpy as np
    import uiautomator2 as u2

    from device.parsers.hierarchy import parse_hierarchy

    host, phone = phones["host"], phones["swipe"]
    sh = _sh(host, phone)
    _relock(sh)
    xml = _dump(sh)
    ids = set(re.findall(r'resource-id="com\.android\.systemui:id/(\w+)"', xml))
    assert {"legacy_window_root", "notification_panel", "keyguard_root_view", "device_entry_icon_view",
            "keyguard_indication_area", "keyguard_indication_text_bottom"} <= ids, ids
    pkgs = set(re.findall(r'package="([^"]+)"', xml))
    assert pkgs == {"com.android.systemui"}, pkgs  # no app window: the keyguard covers them all
    els = parse_hierarchy(xml).elements
    clock = phone.now().strftime("%H:%M")
    assert any(e.text == "Swipe up to open" for e in els) and any(e.text == clock for e in els)
    # Android 13 (PIN phone): the lock icon of NotificationPanelView's keyguard (lock_icon_view)
    pin_xml = _dump(_sh(host, phones["pin"]))
    assert "com.android.systemui:id/lock_icon_view" in pin_xml and "keyguard_status_view" in pin_xml
    # the frame is the lock screen, not the home screen behind it
    locked = cv2.imdecode(np.frombuffer(sh.device.shell("screencap -p", encoding=None), np.uint8), cv2.IMREAD_COLOR)
    sh.run(["wm", "dismiss-keyguard"])
    home = cv2.imdecode(np.frombuffer(sh.device.shell("screencap -p", encoding=None), np.uint8), cv2.IMREAD_COLOR)
    assert locked.shape == home.shape == (2400, 1080, 3)
    assert float(np.abs(locked.astype(int) - home.astype(int)).mean()) > 20
    assert locked.mean() < home.mean()  # a dark lock screen over the light launcher
    assert "com.android.launcher3" in _dump(sh)
    _relock(sh)
    d = u2.connect(sh.device)  # uiautomator2's server dumps the same window
    try:
        assert "keyguard_root_view" in d.dump_hierarchy()
        assert d.info["currentPackageName"] == "com.android.systemui"
    finally:
        d.stop_uiautomator()  # it holds UiAutomation: `uiautomator dump` would be killed


# ============================================================================ dismissing it, and its return
def test_dismiss_keyguard_swipe_up_and_the_power_key_on_a_swipe_lock(phones: dict[str, Any]) -> None:
    host, phone = phones["host"], phones["swipe"]
    sh = _sh(host, phone)
    _relock(sh)
    assert _kg(sh) == "true"
    sh.run(["input", "tap", "540", "1200"])  # a tap does not open it
    sh.run(["input", "keyevent", "KEYCODE_HOME"])  # nor does HOME (the keyguard shows)
    assert _kg(sh) == "true"
    r = sh.run(["wm", "dismiss-keyguard"])
    assert r.rc in (0, None) and not r.text.strip()
    assert _kg(sh) == "false"
    sh.run(["input", "keyevent", "KEYCODE_POWER"])  # off: a swipe lock locks at once (lockImmediately)
    assert "mWakefulness=Asleep" in sh.out(["dumpsys", "power"])
    assert _kg(sh) == "true"
    sh.run(["input", "keyevent", "KEYCODE_POWER"])
    assert "mWakefulness=Awake" in sh.out(["dumpsys", "power"]) and _kg(sh) == "true"
    sh.run(["input", "swipe", "540", "300", "540", "1800"])  # a swipe down is not an unlock
    assert _kg(sh) == "true"
    sh.run(["input", "swipe", "540", "1900", "540", "700", "250"])  # swipe up: open
    assert _kg(sh) == "false"
    assert "com.android.launcher3" in _dump(sh)


def test_the_screen_off_timeout_brings_the_keyguard_back(phones: dict[str, Any]) -> None:
    """PowerManagerService turns the screen off ``screen_off_timeout`` (at least 10 s) after the last
    user activity; KeyguardViewMediator then locks ``lock_screen_lock_after_timeout`` later, unless
    the screen comes back on first (onStartedWakingUp cancels the delayed lock)."""
    host, phone = phones["host"], phones["swipe"]
    sh = _sh(host, phone)
    _relock(sh)
    sh.run(["wm", "dismiss-keyguard"])
    assert sh.run(["settings", "put", "system", "screen_off_timeout", "1000"]).rc in (0, None)  # → 10 s minimum
    sh.run(["settings", "put", "secure", "lock_screen_lock_after_timeout", "10000"])  # room for a loaded host
    try:
        def asleep() -> bool:
            return "mWakefulness=Asleep" in sh.out(["dumpsys", "power"])

        t0 = time.monotonic()
        sh.run(["input", "keyevent", "0"])  # user activity: the timeout counts from here
        while not asleep():
            assert time.monotonic() - t0 < 90, "the screen never went off"  # a guard
            time.sleep(0.5)
        assert time.monotonic() - t0 >= 9.5  # config_minimumScreenOffTimeout, not the 1 s asked for
        assert _kg(sh) == "false"  # the delayed lock has not fallen due yet
        sh.run(["input", "keyevent", "KEYCODE_WAKEUP"])
        assert _kg(sh) == "false"  # woken within lock_screen_lock_after_timeout: no keyguard
        t1 = time.monotonic()
        while not asleep():
            assert time.monotonic() - t1 < 90, "the screen never went off again"
            time.sleep(0.5)
        t2 = time.monotonic()
        while _kg(sh) != "true":  # asleep past the lock timeout: locked while dark
            assert time.monotonic() - t2 < 90, "the delayed lock never came"
            time.sleep(0.5)
        assert time.monotonic() - t1 >= 10.0  # not before the screen went off and its lock delay passed
        sh.run(["input", "keyevent", "KEYCODE_WAKEUP"])
        assert "mWakefulness=Awake" in sh.out(["dumpsys", "power"]) and _kg(sh) == "true"
    finally:
        sh.run(["settings", "put", "system", "screen_off_timeout", "60000"])
        sh.run(["settings", "delete", "secure", "lock_screen_lock_after_timeout"])


def test_a_pin_lock_is_not_dismissed_only_its_bouncer_shows(phones: dict[str, Any]) -> None:
    host, phone = phones["host"], phones["pin"]
    sh = _sh(host, phone)
    _relock(sh)
    sh.run(["wm", "dismiss-keyguard"])
    assert _kg(sh) == "true"
    xml = _dump(sh)
    assert "com.android.systemui:id/pinEntry" in xml and "Enter your PIN" in xml and "key_enter" in xml
    sh.run(["input", "keyevent", "KEYCODE_BACK"])  # the bouncer goes, the keyguard stays
    assert _kg(sh) == "true" and "pinEntry" not in _dump(sh)
    sh.run(["input", "swipe", "540", "1900", "540", "700", "250"])  # a swipe up: the bouncer again
    assert "pinEntry" in _dump(sh) and _kg(sh) == "true"
    sh.run(["input", "text", "0000"])
    sh.run(["input", "keyevent", "KEYCODE_ENTER"])
    assert _kg(sh) == "true" and "Wrong PIN" in _dump(sh)
    # the number pad takes taps too; only the PIN opens the phone (a person can, s2r never does)
    from device.parsers.hierarchy import parse_hierarchy

    els = {e.resource_id.rsplit("/", 1)[-1]: e for e in parse_hierarchy(_dump(sh)).elements}
    for name in [f"key{c}" for c in PIN] + ["key_enter"]:
        b = els[name].bounds
        sh.run(["input", "tap", str((b.left + b.right) // 2), str((b.top + b.bottom) // 2)])
    assert _kg(sh) == "false"
    _relock(sh)
    assert _kg(sh) == "true"


# ============================================================================ DeviceEnv
def test_device_env_dismisses_a_swipe_lock_and_proves_it(phones: dict[str, Any], tmp_path: Path) -> None:
    from device.env import DeviceEnv

    host, phone = phones["host"], phones["swipe"]
    sh = _sh(host, phone)
    _relock(sh)
    assert _kg(sh) == "true"
    phone.backend.command_log = []
    env = DeviceEnv(phone.serial, client=host.client(), journal_dir=str(tmp_path))
    try:
        pf = env.start()
        log = list(phone.backend.command_log)
        assert pf.ok and pf.keyguard is False and pf.keyguard_secure is False, pf.problems
        i = next(i for i, c in enumerate(log) if c.startswith("wm dismiss-keyguard"))
        assert any("dumpsys window" in c for c in log[i + 1:]), "the keyguard was not read again after dismissing"
        assert not any(re.search(r"input keyevent (KEYCODE_)?BACK", c) for c in log), log
        obs = env.reset(None)
        assert obs.elements and not any(e.resource_id.endswith("keyguard_root_view") for e in obs.elements)
    finally:
        phone.backend.command_log = None
        env.close()


def test_device_env_refuses_a_pin_locked_phone_naming_it(phones: dict[str, Any], tmp_path: Path) -> None:
    from device.env import DeviceEnv, DeviceNotReady

    host, phone = phones["host"], phones["pin"]
    sh = _sh(host, phone)
    _relock(sh)
    before = {k: sh.out(["settings", "get", "global", k]).strip()
              for k in ("stay_on_while_plugged_in", "animator_duration_scale")}
    phone.backend.command_log = []
    env = DeviceEnv(phone.serial, client=host.client(), journal_dir=str(tmp_path))
    try:
        with pytest.raises(DeviceNotReady) as e:
            env.start()
    finally:
        log, phone.backend.command_log = list(phone.backend.command_log), None
    msg = str(e.value)
    assert phone.serial in msg and "PIN" in msg and "cannot and must not unlock" in msg, msg
    assert env.pf is None  # never driven
    # it tried the one thing allowed, then put the bouncer away: the phone is as it was found
    assert any(c.startswith("wm dismiss-keyguard") for c in log)
    assert not any(re.match(r"input text", c) for c in log), log  # no PIN ever typed
    assert _kg(sh) == "true" and "pinEntry" not in _dump(sh)
    after = {k: sh.out(["settings", "get", "global", k]).strip() for k in before}
    assert after == before  # no tweak, no session: nothing to undo
    assert not list(tmp_path.glob("*.session.json"))


def test_a_farm_leaves_a_pin_locked_phone_out_and_the_others_keep_going(adb_host: Any, tmp_path: Path) -> None:
    from device.env import DeviceOptions
    from transfer.device_backends import DeviceBackends
    from transfer.runner import EpisodeSpec

    b = DeviceBackends.from_spec(f"vdevice:2:aosp:0@locked_pin={PIN},1@locked", client=adb_host.client(),
                                 options=DeviceOptions(journal_dir=str(tmp_path)), lease_timeout=120)
    try:
        pin_phone, swipe_phone = b.phones
        assert (pin_phone.knobs.locked_pin, swipe_phone.knobs.locked) == (PIN, True)
        assert [d["lock"] for d in b.describe()] == ["pin", "swipe"]
        spec = EpisodeSpec(policy="p", policy_spec="random", task_id="t", seed=0, backend="device", target="farm")
        for _ in range(2):
            lease = b.lease(spec)
            assert lease.info["serial"] == swipe_phone.serial, lease.info
            assert lease.env.reset(None).elements
            lease.release(False)
        devs = {d.serial: d for d in b.farm.devices()}
        bad = devs[pin_phone.serial]
        assert bad.failures >= 1 and "PIN" in (bad.last_error or "") and pin_phone.serial in (bad.last_error or ""), bad
        assert pin_phone.keyguard_showing()
        # answering adb is not recovery for a phone that waits for a person: the watcher keeps it out
        for _ in range(3):
            b.farm.poll_once()
        assert {d.serial: d.status for d in b.farm.devices()}[pin_phone.serial] == "quarantined"
        # a person unlocks it (the bouncer, the PIN, Enter): the watcher then puts it back
        sh = adb_host.client().device(pin_phone.serial)
        sh.shell("wm dismiss-keyguard")
        sh.shell(f"input text {PIN}")
        sh.shell("input keyevent 66")
        assert not pin_phone.keyguard_showing()
        b.farm.poll_once()
        assert {d.serial: d.status for d in b.farm.devices()}[pin_phone.serial] == "idle"
    finally:
        b.close()
