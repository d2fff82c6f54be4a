"""A stock, unrooted phone as uiautomator2 meets it: IMEs, text input, SystemUI's clipboard
overlay, the server process and the ``uiautomator dump`` clash, the decor chain.

Everything goes through the real toolchain: the adb binary from adbutils' wheel on the module's
PRIVATE adb server (the ``adb_host`` rig; never 5037), adbutils, ``adb shell`` (shell protocol
v2: separate stdout, stderr and exit status) and uiautomator2's public API against
:class:`VirtualPhone`.
"""

from __future__ import annotations

import re
import time
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import adbutils
import cv2
import numpy as np
import pytest
import uiautomator2 as u2

from _rigs import AdbHost

pytestmark = pytest.mark.timeout(240)

LATIN = "com.android.inputmethod.latin/.LatinIME"
U2_IME = "com.github.uiautomator/.AdbKeyboard"
ADB_IME = "com.android.adbkeyboard/.AdbIME"


@dataclass
class Rig:
    host: AdbHost
    phone: Any
    d: Any  # uiautomator2.Device

    def sh(self, cmd: str) -> tuple[int, str, str]:
        """``adb -s SERIAL shell CMD`` through the real adb CLI: (status, stdout, stderr)."""
        r = self.host.adb("-s", self.phone.serial, "shell", cmd, timeout=60)
        return r.returncode, r.stdout.decode("utf-8", "replace"), r.stderr.decode("utf-8", "replace")

    @property
    def dev(self) -> adbutils.AdbDevice:
        return self.host.client().device(self.phone.serial)


@pytest.fixture(scope="module")
def host(adb_host: AdbHost) -> AdbHost:
    return adb_host


def _rig(host: AdbHost, pool: Any, **knobs: Any) -> Iterator[Rig]:
    phone = host.start_phone(pool, seed=5, input_latency_ms=0, animation_ms=0, **knobs)
    saved = adbutils.adb
    try:
        adbutils.adb = host.client()  # u2.connect(serial) resolves through adbutils' module client
        d = u2.connect(phone.serial)
        yield Rig(host, phone, d)
        d.stop_uiautomator(wait=False)
    finally:
        adbutils.adb = saved
        host.stop_phone(phone)


@pytest.fixture(scope="module")
def rig(host: AdbHost, sim_pool: Any) -> Iterator[Rig]:
    yield from _rig(host, sim_pool)  # stock Android 14 (the defaults)


def _search_field(rig: Rig) -> Any:
    """Contacts' search: the toolbar's search action focuses an EditText (sim field ``ct_query``)."""
    rig.d.app_start("com.android.contacts", stop=True)
    rig.d(description="Search contacts").click(timeout=5)  # AOSP Contacts: the toolbar's menu_search
    field = rig.d(resourceId="com.android.contacts:id/search_view", focused=True)  # an AutoCompleteTextView
    assert field.wait(timeout=3)
    return field


def _value(rig: Rig) -> str:
    ui = rig.phone.state_data()["ui"]
    return ui["fields"][ui["focus"]] if ui.get("focus") else ""


def _roots(xml: str) -> list[ET.Element]:
    return list(ET.fromstring(xml[xml.find("<hierarchy"):]))


# ============================================================================ IMEs
def test_stock_phone_has_only_its_keyboard(rig: Rig) -> None:
    assert rig.sh("ime list -s") == (0, f"{LATIN}\n", "")
    assert rig.sh("ime list -s -a") == (0, f"{LATIN}\n", "")
    assert rig.sh("settings get secure default_input_method") == (0, f"{LATIN}\n", "")
    assert rig.sh("settings get secure enabled_input_methods") == (0, f"{LATIN}\n", "")
    assert rig.sh(f"ime set {U2_IME}") == (255, "", f"Unknown input method {U2_IME} cannot be selected for user #0\n")
    assert rig.sh(f"ime enable {ADB_IME}") == (255, "", f"Unknown input method {ADB_IME} cannot be enabled for user #0\n")
    assert rig.sh(f"ime enable {LATIN}") == (0, f"Input method {LATIN}: already enabled for user #0\n", "")
    assert rig.sh(f"ime set {LATIN}") == (0, f"Input method {LATIN} selected for user #0\n", "")
    assert rig.sh("ime frobnicate") == (255, "Unknown command: frobnicate\n", "")
    # the broadcast routes of the ADB keyboards reach no receiver on this phone
    out = rig.sh("am broadcast -a ADB_KEYBOARD_INPUT_TEXT --es text aGk=")[1]
    assert "result=0" in out and 'data="success"' not in out
    assert rig.d.is_input_ime_installed() is False
    assert rig.d.current_ime() == LATIN


# ============================================================================ text input
def test_paste_clear_and_set_text(rig: Rig) -> None:
    text = "剪贴 👋 '; $(id) \\n\nline two"
    rig.d.press("home")
    rig.d.clipboard = text
    assert rig.d.jsonrpc.pasteClipboard() is True  # Ctrl+V injected: no field has focus, nothing typed
    field = _search_field(rig)
    assert rig.d.jsonrpc.pasteClipboard() is True
    assert _value(rig) == text
    assert rig.d.jsonrpc.pasteClipboard() is True  # a second paste appends
    assert _value(rig) == text + text
    assert rig.d.jsonrpc.clearInputText() is True  # Ctrl+A, DEL
    assert _value(rig) == ""
    rig.d.send_keys("Grüße ½", clear=True)  # no uiautomator2 IME: the clipboard + paste route
    assert _value(rig) == "Grüße ½"
    field.set_text("∑ 🎉 <x&y>\nz")  # ACTION_SET_TEXT: literal, newline included
    assert _value(rig) == "∑ 🎉 <x&y>\nz" and field.get_text() == "∑ 🎉 <x&y>\nz"
    rig.d.press("home")


# ============================================================================ clipboard overlay
def _overlay_nodes(xml: str) -> dict[str, tuple[int, int, int, int]]:
    out = {}
    for m in re.finditer(r'resource-id="com\.android\.systemui:id/(clipboard_\w+|dismiss_button|text_preview)"'
                         r'[^>]*?bounds="\[(\d+),(\d+)\]\[(\d+),(\d+)\]"', xml):
        out[m.group(1)] = tuple(int(v) for v in m.groups()[1:])  # type: ignore[assignment]
    return out


def _crop(png: bytes, box: tuple[int, int, int, int]) -> np.ndarray:
    img = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR)
    l, t, r, b = box
    return img[t:b, l:r].astype(int)


def _tap_dismiss(rig: Rig) -> bool:
    """Tap the overlay's dismiss button with ``input tap`` if the dump shows one."""
    box = _overlay_nodes(rig.d.dump_hierarchy()).get("dismiss_button")
    if box is None:
        return False
    assert rig.sh(f"input tap {(box[0] + box[2]) // 2} {(box[1] + box[3]) // 2}")[0] == 0
    return True


def test_clipboard_overlay_on_14_until_dismissed_or_timed_out(rig: Rig) -> None:
    from device.input import _DISMISS

    rig.d.press("home")
    _tap_dismiss(rig)  # an earlier test's clip may still show one
    before = rig.dev.shell("screencap -p", encoding=None)
    rig.d.clipboard = "overlay text"
    xml = rig.d.dump_hierarchy()
    nodes = _overlay_nodes(xml)
    assert {"clipboard_ui", "clipboard_preview", "dismiss_button", "text_preview"} <= set(nodes)
    assert 'package="com.android.systemui"' in xml and 'text="overlay text"' in xml
    W, H = rig.phone.window_size()
    l, t, r, b = nodes["clipboard_preview"]
    assert r < W / 2 and t > H / 2  # the lower left of the screen
    assert _DISMISS.search(xml) is not None  # what DeviceEnv's dismiss_clipboard_overlay looks for
    shot = rig.dev.shell("screencap -p", encoding=None)
    assert np.abs(_crop(shot, (l, t, r, b)) - _crop(before, (l, t, r, b))).mean() > 20  # drawn over the app
    u2shot = cv2.cvtColor(np.asarray(rig.d.screenshot()), cv2.COLOR_RGB2BGR)
    ok, buf = cv2.imencode(".png", u2shot)
    assert ok and np.abs(_crop(buf.tobytes(), (l, t, r, b)) - _crop(before, (l, t, r, b))).mean() > 20
    # a tap on its dismiss button closes it (the launcher below does not get the tap)
    assert _tap_dismiss(rig)
    assert "com.android.systemui:id/clipboard" not in rig.d.dump_hierarchy()
    assert rig.phone.foreground()[0] == "com.android.launcher3"
    # left alone, it times out after ClipboardOverlayController's 6 s
    rig.d.clipboard = "again"
    assert "com.android.systemui:id/clipboard_preview" in rig.d.dump_hierarchy()
    time.sleep(6.2)
    assert "com.android.systemui:id/clipboard" not in rig.d.dump_hierarchy()


def test_no_overlay_on_11(host: AdbHost, sim_pool: Any) -> None:
    for r in _rig(host, sim_pool, android=11):
        r.d.clipboard = "no overlay on R"
        assert r.d.clipboard == "no overlay on R"
        assert "com.android.systemui:id/clipboard" not in r.d.dump_hierarchy()
        assert r.sh("getprop ro.build.version.sdk")[1] == "30\n"


# ============================================================================ the server process
def _server_rows(ps: str) -> list[list[str]]:
    return [line.split() for line in ps.splitlines() if line.endswith(" app_process")]


def test_server_process_ps_kill_and_client_restart(rig: Rig) -> None:
    from uiautomator2.core import _http_request
    from uiautomator2.exceptions import HTTPError

    assert rig.d.info["sdkInt"] == 34
    rc, ps, _ = rig.sh("ps -A")
    rows = _server_rows(ps)
    assert rc == 0 and len(rows) == 1 and rows[0][0] == "shell", ps
    pid = int(rows[0][1])
    assert [r[1] for r in _server_rows(rig.sh("ps -u shell")[1])] == [str(pid)]
    assert rig.sh("pidof app_process") == (0, f"{pid}\n", "")
    assert rig.sh("kill 1203") == (1, "", "/system/bin/sh: kill: 1203: Operation not permitted\n")  # system_server
    assert rig.sh("kill 31999") == (1, "", "/system/bin/sh: kill: 31999: No such process\n")
    assert rig.sh(f"kill {pid}") == (0, "", "")
    deadline = time.monotonic() + 30  # a failure guard
    while _server_rows(rig.sh("ps -A")[1]) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _server_rows(rig.sh("ps -A")[1]) == []
    # nothing listens on 9008 any more: adbd closes the tcp:9008 stream at once, which the adb
    # server reports as "closed" (not a server that still accepts and then fails or hangs)
    with pytest.raises(HTTPError, match=r"^Unable to connect to uiautomator2 server: closed$"):
        _http_request(rig.dev, 9008, "GET", "/ping", timeout=3)
    assert rig.d.info["displayWidth"] == 1080  # the client noticed and relaunched the server
    new = _server_rows(rig.sh("ps -A")[1])
    assert len(new) == 1 and int(new[0][1]) != pid


# ============================================================================ uiautomator dump
def test_uiautomator_dump_clashes_with_the_u2_server(rig: Rig) -> None:
    rig.d.info  # the server runs and holds UiAutomation
    rig.sh("rm -f /sdcard/window_dump.xml")
    assert rig.sh("uiautomator dump") == (137, "", "Killed\n")
    assert rig.sh("ls /sdcard/window_dump.xml")[0] != 0
    rig.d.stop_uiautomator()
    try:
        rc, out, err = rig.sh("uiautomator dump")
        assert (rc, out, err) == (0, "UI hierchary dumped to: /sdcard/window_dump.xml\n", "")
        assert b"android:id/content" in rig.phone.fs.read_bytes("/sdcard/window_dump.xml")
        # a screen that never settles: waitForIdle(1000, 10000) times out, nothing written
        rig.sh("rm -f /sdcard/window_dump.xml")
        rig.phone.animating_until = time.monotonic() + 60
        t0 = time.monotonic()
        assert rig.sh("uiautomator dump") == (0, "", "ERROR: could not get idle state.\n")
        assert time.monotonic() - t0 >= 9.5  # it waited out waitForIdle's 10 s (never less)
        assert rig.sh("ls /sdcard/window_dump.xml")[0] != 0
    finally:
        rig.phone.animating_until = 0.0
        rig.d.start_uiautomator()


# ============================================================================ decor chain
def test_app_window_has_the_decor_chain(rig: Rig) -> None:
    rig.d.app_start("com.android.settings", stop=True)
    deadline = time.monotonic() + 30  # a failure guard
    while rig.phone.foreground()[0] != "com.android.settings" and time.monotonic() < deadline:
        time.sleep(0.05)
    xml = rig.d.dump_hierarchy()
    W, H = rig.phone.window_size()
    app = [r for r in _roots(xml) if r.get("package") == "com.android.settings"]
    assert len(app) == 1
    decor = app[0]
    assert (decor.get("class"), decor.get("resource-id"), decor.get("bounds")) == \
        ("android.widget.FrameLayout", "", f"[0,0][{W},{H}]")
    kids = list(decor)
    assert [k.get("class") for k in kids] == ["android.widget.LinearLayout", "android.view.View", "android.view.View"]
    assert [k.get("resource-id") for k in kids[1:]] == ["android:id/statusBarBackground",
                                                        "android:id/navigationBarBackground"]
    assert [k.get("index") for k in kids] == ["0", "1", "2"]
    content = list(kids[0])
    assert len(content) == 1 and content[0].get("resource-id") == "android:id/content"
    assert content[0].get("class") == "android.widget.FrameLayout"
    assert any(n.get("text") == "Settings" for n in content[0].iter("node"))
    # selectors see the same tree
    assert rig.d(resourceId="android:id/content").exists
    rig.d.press("home")


# ============================================================================ permissive phone
def test_permissive_phone_keeps_the_adb_keyboards(host: AdbHost, sim_pool: Any) -> None:
    for r in _rig(host, sim_pool, permissive=True):
        listed = r.sh("ime list -s -a")[1].splitlines()
        assert {LATIN, ADB_IME, U2_IME} <= set(listed)
        assert r.sh(f"ime set {ADB_IME}") == (0, f"Input method {ADB_IME} selected for user #0\n", "")
        assert r.d.is_input_ime_installed() is True
        r.d.clipboard = "no overlay either"
        assert "com.android.systemui:id/clipboard" not in r.d.dump_hierarchy()
