"""The virtual phone's Android shell, command by command, against a live sim phone.

Every command runs through the same interpreter adbd uses (no adb server here; the adb
path is covered by ``test_vdevice_adb.py``). Outputs are read back with ``device.parsers``
— the readers a real phone's output goes through — and state changes are checked in the
sim's ``WorldState``.
"""

from __future__ import annotations

import base64
import io
import json
import time
from collections.abc import Iterator
from typing import Any

import cv2
import numpy as np
import pytest

from device.parsers import (device_info_from_props, foreground_state, parse_dumpsys_activity, parse_dumpsys_alarm,
                            parse_dumpsys_display, parse_dumpsys_input, parse_dumpsys_power, parse_dumpsys_window,
                            parse_getprop, parse_hierarchy, parse_wm)
from device.parsers.detect import detect_kind
from device.virtual.knobs import ADB_KEYBOARD_IME, DEFAULT_IME, PhoneKnobs
from device.virtual.phone import VirtualPhone

from _vshell import fast_phone, home, sh, sh_bytes

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def phone(sim_pool) -> Iterator[VirtualPhone]:
    with fast_phone(sim_pool) as p:
        yield p


# ============================================================================ identity and display
def test_getprop_parses_and_matches_profile(phone: VirtualPhone) -> None:
    rc, out, _ = sh(phone, "getprop")
    props = parse_getprop(out)
    assert rc == 0 and detect_kind(out) == "getprop"
    info = device_info_from_props(props)
    assert (info.model, info.manufacturer, info.sdk, info.android_version) == ("Pixel 7", "Google", 34, "14")
    assert props["persist.sys.timezone"] == "UTC" and props["ro.serialno"] == phone.serialno
    assert sh(phone, "getprop ro.product.model")[1] == "Pixel 7\n"
    assert sh(phone, "getprop no.such.prop fallback")[1] == "fallback\n"
    assert sh(phone, "setprop ro.product.model X")[0] == 1


def test_wm_size_density_and_override(phone: VirtualPhone) -> None:
    wm = parse_wm(sh(phone, "wm size; wm density")[1])
    assert (wm.physical_size, wm.physical_density, wm.override_size) == ((1080, 2400), 440, None)
    try:
        assert sh(phone, "wm size 720x1600 && wm density 320")[0] == 0
        wm = parse_wm(sh(phone, "wm size; wm density")[1])
        assert (wm.size, wm.density, wm.physical_size) == ((720, 1600), 320, (1080, 2400))
        png = sh_bytes(phone, "screencap -p")
        assert cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR).shape[:2] == (1600, 720)
        hier = parse_hierarchy(sh(phone, "uiautomator dump /dev/tty")[1])
        assert max(e.bounds.right for e in hier.elements) <= 720 and max(e.bounds.bottom for e in hier.elements) <= 1600
        win = parse_dumpsys_window(sh(phone, "dumpsys window displays")[1])
        assert (win.init_size, win.cur_size, win.density) == ((1080, 2400), (720, 1600), 320)
        disp = parse_dumpsys_display(sh(phone, "dumpsys display")[1])
        assert disp.logical_size == (720, 1600) and disp.physical_size == (1080, 2400)
    finally:
        sh(phone, "wm size reset; wm density reset")
    assert parse_wm(sh(phone, "wm size")[1]).override_size is None
    assert sh(phone, "wm size banana")[0] != 0


# ============================================================================ screen
def test_screencap_png_raw_and_file(phone: VirtualPhone) -> None:
    png = sh_bytes(phone, "screencap -p")
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    img = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR)
    assert img.shape == (2400, 1080, 3) and img.std() > 5  # a real frame, not a blank
    raw = sh_bytes(phone, "screencap")
    w, h, fmt = np.frombuffer(raw[:12], "<u4")
    assert (w, h, fmt) == (1080, 2400, 1) and len(raw) == 16 + 1080 * 2400 * 4
    assert sh(phone, "screencap -p /sdcard/Pictures/shot.png")[0] == 0
    data = phone.fs.read_bytes("/sdcard/Pictures/shot.png")
    assert data.startswith(b"\x89PNG")
    files = {f.path: f for f in phone.read_state().files or []}
    assert files["/sdcard/Pictures/shot.png"].size == len(data)


def test_uiautomator_dump_parses_with_the_sim_elements(phone: VirtualPhone) -> None:
    home(phone)
    rc, out, _ = sh(phone, "uiautomator dump")
    assert (rc, out) == (0, "UI hierchary dumped to: /sdcard/window_dump.xml\n")
    xml = phone.fs.read_text("/sdcard/window_dump.xml")
    assert xml.startswith("<?xml") and '<hierarchy rotation="0">' in xml
    hier = parse_hierarchy(xml, screen=(1080, 2400))
    labels = {e.text for e in hier.elements}
    assert {"Settings", "Clock", "Messages"} <= labels
    sim_labels = {e.text for e in phone.observation().elements}
    assert labels == sim_labels
    assert "com.android.launcher3" in hier.packages
    # adbutils' dump_hierarchy recipe
    rc, out, _ = sh(phone, "rm -f /data/local/tmp/uidump.xml; uiautomator dump /data/local/tmp/uidump.xml && echo success")
    assert rc == 0 and "success" in out


# ============================================================================ input
def _center(phone: VirtualPhone, text: str) -> tuple[int, int]:
    hier = parse_hierarchy(sh(phone, "uiautomator dump /dev/tty")[1])
    el = next(e for e in hier.elements if e.text == text)
    return el.bounds.center


def test_input_tap_opens_app_and_dumpsys_agrees(phone: VirtualPhone) -> None:
    home(phone)
    x, y = _center(phone, "Settings")
    assert sh(phone, f"input tap {x} {y}")[0] == 0
    win = parse_dumpsys_window(sh(phone, "dumpsys window")[1])
    act = parse_dumpsys_activity(sh(phone, "dumpsys activity activities")[1])
    fg = foreground_state(win, act)
    assert (fg.app, fg.package) == ("settings", "com.android.settings")
    assert win.focused_window is not None and win.focused_window.kind == "app"
    assert act.resumed_package == "com.android.settings"
    assert phone.foreground()[0] == "com.android.settings"
    assert sh(phone, "input keyevent 4")[0] == 0
    assert phone.foreground()[0] == "com.android.launcher3"
    assert sh(phone, "input keyevent KEYCODE_NOPE")[0] == 255
    rc, _, err = sh(phone, "input tap 1")
    assert rc == 255 and "Invalid arguments for command: tap" in err
    rc, _, err = sh(phone, "input tap x 5")
    assert rc == 255 and "NumberFormatException" in err


def test_long_press_swipe_means_long_press(phone: VirtualPhone) -> None:
    home(phone)
    x, y = _center(phone, "Clock")
    sh(phone, f"input swipe {x} {y} {x} {y} 800")  # long press on a launcher icon: app info toast, not a launch
    assert phone.foreground()[0] == "com.android.launcher3"
    assert "Clock: App info" in {e.text for e in phone.elements()}
    x, y = _center(phone, "Calendar")  # (the sim's toast sits over the dock)
    sh(phone, f"input swipe {x} {y} {x} {y} 50")  # a quick one is a tap
    assert phone.foreground()[0] == "com.android.calendar"
    home(phone)


def _open_contact_editor(phone: VirtualPhone) -> None:
    rc, out, _ = sh(phone, "am start -a android.intent.action.INSERT -t vnd.android.cursor.dir/contact")
    assert rc == 0 and out.startswith("Starting: Intent { act=android.intent.action.INSERT")


def test_input_text_is_data_and_ascii_only(phone: VirtualPhone) -> None:
    _open_contact_editor(phone)
    assert phone.has_focused_field()
    marker = "/sdcard/Download/pwned"
    rc, _, _ = sh(phone, f"input text 'a;touch%s{marker};$(id)`id`|&&'")
    assert rc == 0
    typed = phone.state_data()["ui"]["fields"]["ct_first"]
    assert typed == f"a;touch {marker};$(id)`id`|&&"
    assert not phone.fs.exists(marker)
    rc, _, err = sh(phone, "input text 'héllo'")
    assert rc == 255 and "NullPointerException" in err
    assert phone.state_data()["ui"]["fields"]["ct_first"] == typed  # nothing typed
    sh(phone, "input text only first")  # Android types the first argument only
    assert phone.state_data()["ui"]["fields"]["ct_first"] == typed + "only"
    home(phone)


def test_adb_keyboard_broadcast_types_unicode_only_when_selected(phone: VirtualPhone, sim_pool: Any) -> None:
    """A stock phone has no ADB keyboard; one its user installed types only once it is selected."""
    assert "com.android.adbkeyboard/.AdbIME" not in sh(phone, "ime list -s -a")[1].split()
    rc, out, _ = sh(phone, f"ime set {ADB_KEYBOARD_IME}")
    assert rc != 0 or "Unknown input method" in out, out
    kb = VirtualPhone(PhoneKnobs(input_latency_ms=0, animation_ms=0, installed_imes=[DEFAULT_IME, ADB_KEYBOARD_IME]),
                      pool=sim_pool).start()
    try:
        _adb_keyboard_types(kb)
    finally:
        kb.stop()


def _adb_keyboard_types(phone: VirtualPhone) -> None:
    _open_contact_editor(phone)
    text = "Zoë 王小明 👍🏽 'quote' $HOME; rm -rf /"
    b64 = base64.b64encode(text.encode()).decode()
    rc, out, _ = sh(phone, f"am broadcast -a ADB_INPUT_B64 --es msg {b64}")
    assert rc == 0 and "Broadcast completed: result=0" in out
    assert phone.state_data()["ui"]["fields"]["ct_first"] == ""  # ADB Keyboard is not the IME yet
    assert "com.android.adbkeyboard/.AdbIME" in sh(phone, "ime list -s -a")[1].split()
    rc, out, _ = sh(phone, f"ime enable {ADB_KEYBOARD_IME} && ime set {ADB_KEYBOARD_IME}")
    assert rc == 0 and f"Input method {ADB_KEYBOARD_IME} selected for user #0" in out
    assert sh(phone, "settings get secure default_input_method")[1].strip() == ADB_KEYBOARD_IME
    rc, out, _ = sh(phone, f"am broadcast -a ADB_INPUT_B64 --es msg {b64}")
    assert out.startswith("Broadcasting: Intent { act=ADB_INPUT_B64 flg=0x400000 (has extras) }")
    assert phone.state_data()["ui"]["fields"]["ct_first"] == text
    sh(phone, "am broadcast -a ADB_CLEAR_TEXT")
    sh(phone, "am broadcast -a ADB_INPUT_TEXT --es msg 'héllo wörld'")
    assert phone.state_data()["ui"]["fields"]["ct_first"] == "héllo wörld"
    sh(phone, f"ime set {phone.knobs.installed_imes[0]}")
    home(phone)


# ============================================================================ dumpsys
def test_dumpsys_outputs_parse(phone: VirtualPhone) -> None:
    home(phone)
    for cmd, kind in (("dumpsys window", "dumpsys-window"), ("dumpsys activity activities", "dumpsys-activity"),
                      ("dumpsys display", "dumpsys-display"), ("dumpsys input", "dumpsys-input"),
                      ("dumpsys power", "dumpsys-power"), ("dumpsys alarm", "dumpsys-alarm")):
        out = sh(phone, cmd)[1]
        assert detect_kind(out) == kind, cmd
    win = parse_dumpsys_window(sh(phone, "dumpsys window")[1])
    assert (win.init_size, win.cur_size, win.density, win.rotation) == ((1080, 2400), (1080, 2400), 440, 0)
    assert win.status_bar is not None and win.navigation_bar is not None and win.ime_visible is False
    disp = parse_dumpsys_display(sh(phone, "dumpsys display")[1])
    assert (disp.screen_state, disp.physical_size, disp.rotation, disp.density) == ("ON", (1080, 2400), 0, 440)
    inp = parse_dumpsys_input(sh(phone, "dumpsys input")[1])
    assert [d.name for d in inp.touchscreens] == ["s2r_touchscreen"] and inp.viewports[0].logical_size == (1080, 2400)
    power = parse_dumpsys_power(sh(phone, "dumpsys power")[1])
    assert (power.wakefulness, power.screen_on) == ("Awake", True)
    assert sh(phone, "dumpsys nosuchservice")[0] != 0


def test_keyboard_visibility_in_dumpsys_window(phone: VirtualPhone) -> None:
    _open_contact_editor(phone)
    win = parse_dumpsys_window(sh(phone, "dumpsys window")[1])
    assert win.ime_visible is True and win.ime_frame is not None and win.ime_frame.bottom == 2400
    assert 1000 < win.ime_frame.top < 2300
    assert "mInputShown=true" in sh(phone, "dumpsys input_method")[1]
    home(phone)
    assert parse_dumpsys_window(sh(phone, "dumpsys window")[1]).ime_visible is False


def test_power_key_turns_screen_off_and_on(phone: VirtualPhone) -> None:
    sh(phone, "input keyevent KEYCODE_POWER")
    try:
        assert parse_dumpsys_power(sh(phone, "dumpsys power")[1]).screen_on is False
        assert parse_dumpsys_display(sh(phone, "dumpsys display")[1]).screen_on is False
        img = cv2.imdecode(np.frombuffer(sh_bytes(phone, "screencap -p"), np.uint8), cv2.IMREAD_COLOR)
        assert img.max() == 0
    finally:
        sh(phone, "input keyevent WAKEUP")
    assert parse_dumpsys_power(sh(phone, "dumpsys power")[1]).screen_on is True


# ============================================================================ am / pm / monkey / cmd
def test_am_start_set_alarm_and_timer(phone: VirtualPhone) -> None:
    home(phone)
    before = len(phone.read_state().alarms or [])
    rc, out, _ = sh(phone, "am start -a android.intent.action.SET_ALARM --ei android.intent.extra.alarm.HOUR 7 "
                           "--ei android.intent.extra.alarm.MINUTES 30 --es android.intent.extra.alarm.MESSAGE "
                           "'Gym ☀' --ez android.intent.extra.alarm.SKIP_UI true")
    assert rc == 0 and out == "Starting: Intent { act=android.intent.action.SET_ALARM (has extras) }\n"
    alarms = phone.read_state().alarms or []
    assert len(alarms) == before + 1
    assert (alarms[-1].hour, alarms[-1].minute, alarms[-1].label, alarms[-1].enabled) == (7, 30, "Gym ☀", True)
    assert phone.foreground()[0] == "com.android.launcher3"  # SKIP_UI
    dump = parse_dumpsys_alarm(sh(phone, "dumpsys alarm")[1])
    nxt = dump.next_for_user(0)
    assert nxt is not None and nxt.time is not None and dump.now is not None and nxt.time > dump.now
    sh(phone, "am start -a android.intent.action.SET_TIMER --ei android.intent.extra.alarm.LENGTH 90")
    timers = phone.read_state().timers or []
    assert timers[-1].duration_s == 90 and timers[-1].running
    assert phone.foreground()[0] == "com.android.deskclock"
    home(phone)


def test_a_toast_leaves_the_screen_after_two_seconds_of_phone_time(phone: VirtualPhone) -> None:
    """As Android's LENGTH_SHORT toast: on screen now, gone once the phone's clock has moved on past 2 s."""
    home(phone)

    def show(d: dict) -> None:
        d["ui"]["toast"] = {"text": "Created folder \"Scans\"", "ttl": 2}

    phone.mutate(show)
    assert 'text="Created folder &quot;Scans&quot;"' in phone.hierarchy_xml()  # up at once (< 2 s later)
    phone._clock_wall -= 3.0  # the phone's clock moves on 3 s: gone, from the screen and from the state
    assert "Created folder" not in phone.hierarchy_xml()
    assert phone.state_data()["ui"].get("toast") is None


def test_am_start_components_launcher_intents_and_force_stop(phone: VirtualPhone) -> None:
    home(phone)
    rc, out, _ = sh(phone, "am start -n com.android.settings/.Settings")
    assert rc == 0 and "cmp=com.android.settings/.Settings" in out and phone.foreground()[0] == "com.android.settings"
    rc, out, _ = sh(phone, "am start -W -a android.intent.action.MAIN -c android.intent.category.LAUNCHER "
                           "-n com.android.calculator2/.Calculator")
    assert "Status: ok" in out and "Activity: com.android.calculator2/.Calculator" in out
    assert phone.foreground()[0] == "com.android.calculator2"
    rc, out, err = sh(phone, "am start -n com.android.settings/.NoSuchActivity")
    # ActivityManagerShellCommand: errors on stderr unless -W, and the command still returns 0
    assert rc == 0 and "Error type 3" in err and "does not exist" in err
    rc, out, err = sh(phone, "am start -a android.intent.action.VIEW -d https://example.com")
    assert rc == 0 and "unable to resolve Intent" in err
    assert sh(phone, "am force-stop com.android.calculator2")[0] == 0
    act = parse_dumpsys_activity(sh(phone, "dumpsys activity activities")[1])
    assert "com.android.calculator2" not in {a.split("/")[0] for a in act.activities}
    assert phone.foreground()[0] != "com.android.calculator2"
    rc, out, _ = sh(phone, "monkey -p com.android.deskclock -c android.intent.category.LAUNCHER 1")
    assert rc == 0 and "Events injected: 1" in out and phone.foreground()[0] == "com.android.deskclock"
    assert "No activities found" in sh(phone, "monkey -p com.nope 1")[1]
    sh(phone, "am start -a android.intent.action.DIAL -d tel:+15551234")
    assert phone.foreground()[0] == "com.android.dialer" and phone.read_state().dialer_number == "+15551234"
    home(phone)


def test_pm_and_resolve_activity(phone: VirtualPhone) -> None:
    pkgs = sh(phone, "pm list packages")[1].split()
    assert "package:com.android.settings" in pkgs and "package:com.android.deskclock" in pkgs
    third = sh(phone, "pm list packages -3")[1].split()
    assert "package:com.android.adbkeyboard" not in third and "package:com.android.settings" not in third  # stock
    assert sh(phone, "pm path com.android.settings")[1].startswith("package:/")
    assert sh(phone, "pm path com.nope")[0] == 1
    rc, out, _ = sh(phone, "cmd package resolve-activity --brief -c android.intent.category.LAUNCHER com.android.settings")
    assert out.strip().splitlines()[-1] == "com.android.settings/.Settings"
    contacts = len(phone.read_state().contacts or [])
    assert sh(phone, "pm clear com.android.deskclock")[1] == "Success\n"
    st = phone.read_state()
    assert st.alarms == [] and st.timers == [] and len(st.contacts or []) == contacts
    assert "Failure" in sh(phone, "pm uninstall com.android.settings")[1]


# ============================================================================ toolbox
def test_toolbox_basics(phone: VirtualPhone) -> None:
    assert sh(phone, "whoami; getenforce")[1] == "shell\nEnforcing\n"
    assert sh(phone, "id")[1].startswith("uid=2000(shell) gid=2000(shell)")
    epoch = int(sh(phone, "date +%s")[1])
    assert abs(epoch - phone.now_epoch()) < 5
    assert sh(phone, "date")[1].strip().endswith("UTC " + str(phone.now().year))
    rc, out, err = sh(phone, "frobnicate --x")
    assert (rc, out, err) == (127, "", "/system/bin/sh: frobnicate: inaccessible or not found\n")
    assert sh(phone, "/system/bin/echo hi; toybox echo yo")[1] == "hi\nyo\n"
    assert sh(phone, "dumpsys window | grep -c mCurrentFocus")[1] == "1\n"
    assert sh(phone, "true && echo a || echo b; false || echo c")[1] == "a\nc\n"
    sh(phone, "am start -n com.android.settings/.Settings")
    ps = sh(phone, "ps -A")[1]
    assert ps.startswith("USER") and "com.android.settings" in ps
    assert sh(phone, "pidof com.android.settings")[1].strip().isdigit()
    assert sh(phone, "pidof com.nope")[0] == 1
    assert sh(phone, "sh -c 'echo $1-$2' x a b")[1] == "a-b\n"
    assert sh(phone, "[ -d /sdcard/Download ] && echo dir")[1] == "dir\n"
    home(phone)


# ============================================================================ knobs
def test_permission_prompt_on_first_launch(phone: VirtualPhone) -> None:
    assert "messages" in phone.knobs.permission_prompts
    sh(phone, "am start -n com.android.messaging/.ui.conversationlist.ConversationListActivity")
    win = parse_dumpsys_window(sh(phone, "dumpsys window")[1])
    assert win.focused_window is not None and win.focused_window.package == "com.android.permissioncontroller"
    hier = parse_hierarchy(sh(phone, "uiautomator dump /dev/tty")[1])
    allow = next(e for e in hier.elements if e.text == "Allow")
    sh(phone, f"input tap {allow.bounds.center[0]} {allow.bounds.center[1]}")
    assert phone.foreground()[0] == "com.android.messaging"
    home(phone)


def test_animation_and_latency_knobs(sim_pool) -> None:
    # a transition long enough that a loaded host still takes both frames inside it (checked below)
    p = VirtualPhone(PhoneKnobs(input_latency_ms=120, animation_ms=5000, touch_jitter_px=0), pool=sim_pool).start()
    try:
        p.screenshot_png()  # a stable frame to animate from
        x, y = next(e for e in p.elements() if e.text == "Settings").bounds.center
        t0 = time.perf_counter()
        p.tap(x, y)
        assert time.perf_counter() - t0 >= 0.12  # input latency
        a = p.screenshot_png()
        time.sleep(0.05)
        b = p.screenshot_png()
        assert p.animating() > 0, "both frames were taken during the transition"  # the order, not a window
        assert a != b, "frames keep changing during the transition"
        time.sleep(p.animating() / 1000 + 0.05)
        c, d = p.screenshot_png(), p.screenshot_png()
        assert c == d, "and settle afterwards"
        # animator_duration_scale 0 switches transitions off, as on a phone
        assert sh(p, "settings put global animator_duration_scale 0")[0] == 0
        assert p.animation_ms() == 0
    finally:
        p.stop()


def test_touch_jitter_is_seeded_and_bounded() -> None:
    knobs = PhoneKnobs(touch_jitter_px=6, seed=3)
    vp1 = VirtualPhone(knobs)
    vp2 = VirtualPhone(knobs)
    pts1 = [vp1._jitter(500, 500) for _ in range(20)]
    pts2 = [vp2._jitter(500, 500) for _ in range(20)]
    assert pts1 == pts2 and len(set(pts1)) > 1
    assert all(abs(x - 500) <= 6 and abs(y - 500) <= 6 for x, y in pts1)
    vp1.stop()
    vp2.stop()


def test_knobs_reject_bad_values_and_show_in_info(phone: VirtualPhone) -> None:
    with pytest.raises(ValueError):
        PhoneKnobs(profile="nope")
    with pytest.raises(ValueError):
        PhoneKnobs(permission_prompts=["camera"])
    with pytest.raises(ValueError):
        PhoneKnobs(flaky={"drop_probability": 2})
    info = phone.info()
    json.dumps(info)
    assert info["knobs"]["profile"] == "pixel" and info["display"]["density"] == 440
    assert info["model"] == "Pixel 7" and info["foreground"]["package"]


def test_phone_api_for_the_u2_server(phone: VirtualPhone) -> None:
    home(phone)
    png = phone.screenshot_png()
    assert cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR).shape == (2400, 1080, 3)
    xml = phone.hierarchy_xml()
    assert parse_hierarchy(xml).rotation == 0 and "Settings" in xml
    assert phone.window_size() == (1080, 2400) and phone.rotation == 0
    phone.set_clipboard("剪贴板 ✂")
    assert phone.get_clipboard() == "剪贴板 ✂"
    assert phone.key("recent") and phone.key(3) and not phone.key("NOT_A_KEY")
    assert phone.foreground() == ("com.android.launcher3", "com.android.launcher3.uioverride.QuickstepLauncher")
    assert phone.input_text("x") is False  # no focused field
    img = cv2.imdecode(np.frombuffer(io.BytesIO(png).getvalue(), np.uint8), cv2.IMREAD_COLOR)
    assert img is not None
