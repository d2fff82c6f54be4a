"""The virtual phone end to end through the REAL adb server (adbutils' bundled binary),
adbutils and uiautomator2 — the stack a USB phone is driven with.

A private adb server on a free port (never the default 5037, which is never touched)
connects to the phone over TCP; everything binds to 127.0.0.1 and is stopped at the end.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import socket
import subprocess
import time
from collections.abc import Iterator
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import pytest

adbutils = pytest.importorskip("adbutils")

from device.parsers import (contacts_from_rows, device_info_from_props, foreground_state,  # noqa: E402
                            parse_content_rows, parse_dumpsys_activity, parse_dumpsys_alarm, parse_dumpsys_display,
                            parse_dumpsys_power, parse_dumpsys_window, parse_getprop, parse_hierarchy,
                            parse_settings_get, parse_settings_list, parse_wm)
from device.virtual.knobs import ADB_KEYBOARD_IME, DEFAULT_IME, U2_IME, FlakyTransport, PhoneKnobs  # noqa: E402
from device.virtual.phone import VirtualPhone  # noqa: E402

pytestmark = pytest.mark.timeout(300)

ADB = adbutils.adb_path()


from _rigs import AdbHost, free_port as _free_port  # noqa: E402


@pytest.fixture(scope="module")
def host(adb_host: AdbHost) -> AdbHost:
    return adb_host  # the module's private adb server (conftest.py)


@dataclass
class Rig:
    host: AdbHost
    phone: VirtualPhone

    @property
    def serial(self) -> str:
        return self.phone.serial

    @property
    def device(self) -> "adbutils.AdbDevice":
        return self.host.client().device(self.serial)

    def adb(self, *args: str, **kw: object) -> subprocess.CompletedProcess[bytes]:
        return self.host.adb("-s", self.serial, *args, **kw)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def rig(host: AdbHost, sim_pool) -> Iterator[Rig]:
    # a stock phone whose user installed the ADB keyboard and the uiautomator app (the paths
    # these tests drive); DeviceEnv's own tests run on the bare stock default
    phone = VirtualPhone(PhoneKnobs(input_latency_ms=0, animation_ms=0,
                                    installed_imes=[DEFAULT_IME, ADB_KEYBOARD_IME, U2_IME]), pool=sim_pool).start()
    try:
        r = host.adb("connect", phone.serial)
        assert b"connected to" in r.stdout, r
        host.wait_state(phone.serial, "device")
        yield Rig(host, phone)
    finally:
        host.adb("disconnect", phone.serial)
        phone.stop()


def _elements(rig: Rig):
    d = rig.device
    r = d.shell2("uiautomator dump /sdcard/window_dump.xml", v2=True)
    assert r.returncode == 0 and "UI hierchary dumped to" in r.stdout
    local = Path(rig.host.env["HOME"]) / "dump.xml"
    assert rig.adb("pull", "/sdcard/window_dump.xml", str(local)).returncode == 0
    return parse_hierarchy(local.read_bytes(), screen=(1080, 2400))


# ============================================================================ transport
def test_connect_and_devices_l_shows_the_model(rig: Rig) -> None:
    out = rig.host.adb("devices", "-l").stdout.decode()
    line = next(line for line in out.splitlines() if line.startswith(rig.serial))
    assert line.split()[1] == "device"
    assert "model:Pixel_7" in line and "product:panther" in line and "device:panther" in line
    info = device_info_from_props(parse_getprop(rig.device.shell("getprop")))
    assert (info.model, info.manufacturer, info.sdk) == ("Pixel 7", "Google", 34)
    assert rig.device.prop.model == "Pixel 7"


def test_shell_v1_and_v2_exit_codes(rig: Rig) -> None:
    assert rig.adb("shell", "exit 3").returncode == 3
    r = rig.adb("shell", "echo out; frobnicate --x")
    assert (r.returncode, r.stdout, r.stderr) == (127, b"out\n", b"/system/bin/sh: frobnicate: inaccessible or not found\n")
    d = rig.device
    r1 = d.shell2("getprop ro.build.version.sdk; false")  # shell v1 + adbutils' "; echo X4EXIT:$?"
    assert (r1.returncode, r1.output.strip()) == (1, "34")
    r2 = d.shell2("nosuch", v2=True)
    assert (r2.returncode, r2.stderr) == (127, "/system/bin/sh: nosuch: inaccessible or not found\n")
    v1 = rig.adb("shell", "-x", "nosuch; exit 4")  # v1 has no status and merges stderr
    assert v1.returncode == 0 and b"inaccessible or not found" in v1.stdout


def test_exec_out_screencap_is_a_1080x2400_png(rig: Rig) -> None:
    r = rig.adb("exec-out", "screencap", "-p")
    assert r.returncode == 0 and r.stdout.startswith(b"\x89PNG\r\n\x1a\n")
    img = cv2.imdecode(np.frombuffer(r.stdout, np.uint8), cv2.IMREAD_COLOR)
    assert img.shape == (2400, 1080, 3)
    pil = rig.device.screenshot()  # adbutils' own path: shell screencap -p
    assert pil.size == (1080, 2400)
    assert rig.device.window_size() == (1080, 2400) and rig.device.rotation() == 0


def test_dump_pull_and_tap_opens_the_app(rig: Rig) -> None:
    rig.device.keyevent("KEYCODE_HOME")
    hier = _elements(rig)
    settings = next(e for e in hier.elements if e.text == "Settings")
    assert settings.clickable and settings.package == "com.android.launcher3"
    x, y = settings.bounds.center
    rig.device.click(x, y)
    win = parse_dumpsys_window(rig.device.shell("dumpsys window"))
    act = parse_dumpsys_activity(rig.device.shell("dumpsys activity activities"))
    fg = foreground_state(win, act)
    assert (fg.app, fg.package, fg.activity) == ("settings", "com.android.settings", "com.android.settings.Settings")
    cur = rig.device.app_current()  # adbutils' own reader
    assert (cur.package, cur.activity) == ("com.android.settings", "com.android.settings.Settings")
    assert rig.phone.read_state().foreground.app == "settings"
    rig.device.keyevent("KEYCODE_HOME")


def test_settings_put_changes_the_world_and_reads_back(rig: Rig) -> None:
    """A plain provider key (auto-rotate) is what `settings put` writes; a key that mirrors a
    service (airplane mode) is stored but switches nothing until the service's command runs."""
    d = rig.device
    try:
        d.shell(["settings", "put", "system", "accelerometer_rotation", "0"])
        assert rig.phone.read_state().settings.auto_rotate is False
        assert parse_settings_get(d.shell("settings get system accelerometer_rotation")) == "0"
        listed = parse_settings_list(d.shell("settings list system"))
        assert listed["accelerometer_rotation"] == "0"
        d.shell(["settings", "put", "global", "airplane_mode_on", "1"])
        assert rig.phone.read_state().settings.airplane_mode is False  # no radio moved
        d.shell(["cmd", "connectivity", "airplane-mode", "enable"])
        assert rig.phone.read_state().settings.airplane_mode is True
        assert parse_settings_get(d.shell("settings get global airplane_mode_on")) == "1"
    finally:
        d.shell("settings put system accelerometer_rotation 1")
        d.shell("cmd connectivity airplane-mode disable")
    assert rig.phone.read_state().settings.airplane_mode is False
    assert rig.phone.read_state().settings.auto_rotate is True
    d.brightness_value = 200  # adbutils' own settings writer
    assert rig.phone.read_state().settings.brightness == 200


def test_content_contact_insert_query_delete(rig: Rig) -> None:
    d = rig.device
    d.shell(["content", "insert", "--uri", "content://com.android.contacts/raw_contacts",
             "--bind", "account_type:n:", "--bind", "account_name:n:"])
    rows = parse_content_rows(d.shell("content query --uri content://com.android.contacts/raw_contacts "
                                      "--projection _id:contact_id"))
    rid = max(int(r["_id"] or 0) for r in rows)
    name = "Søren O'Brien 王"
    d.shell(["content", "insert", "--uri", "content://com.android.contacts/data", "--bind", f"raw_contact_id:i:{rid}",
             "--bind", "mimetype:s:vnd.android.cursor.item/name", "--bind", f"data1:s:{name}"])
    d.shell(["content", "insert", "--uri", "content://com.android.contacts/data", "--bind", f"raw_contact_id:i:{rid}",
             "--bind", "mimetype:s:vnd.android.cursor.item/phone_v2", "--bind", "data1:s:+1 555 0100",
             "--bind", "data2:i:2"])
    proj = "_id:raw_contact_id:contact_id:mimetype:data1:data2:data3"
    rows = parse_content_rows(d.shell(["content", "query", "--uri", "content://com.android.contacts/data",
                                       "--projection", proj, "--where", f"contact_id={rid}"]), proj.split(":"))
    [contact] = contacts_from_rows(rows)
    assert contact.name == name and [(p.number, p.label) for p in contact.phones] == [("+1 555 0100", "mobile")]
    world = next(c for c in rig.phone.read_state().contacts or [] if c.name == name)
    assert world.phones[0].number == "+1 555 0100"
    d.shell(["content", "delete", "--uri", "content://com.android.contacts/raw_contacts", "--where", f"_id={rid}"])
    assert name not in {c.name for c in rig.phone.read_state().contacts or []}
    assert d.shell(["content", "query", "--uri", "content://com.android.contacts/data", "--where",
                    f"contact_id={rid}"]) == "No result found."


def test_am_start_set_alarm_skip_ui(rig: Rig) -> None:
    d = rig.device
    out = d.shell(["am", "start", "-a", "android.intent.action.SET_ALARM",
                   "--ei", "android.intent.extra.alarm.HOUR", "6", "--ei", "android.intent.extra.alarm.MINUTES", "5",
                   "--es", "android.intent.extra.alarm.MESSAGE", "Early flight ✈",
                   "--ez", "android.intent.extra.alarm.SKIP_UI", "true"])
    assert out.startswith("Starting: Intent { act=android.intent.action.SET_ALARM")
    alarm = (rig.phone.read_state().alarms or [])[-1]
    assert (alarm.hour, alarm.minute, alarm.label) == (6, 5, "Early flight ✈")
    dump = parse_dumpsys_alarm(d.shell("dumpsys alarm"))
    nxt = dump.next_for_user(0)
    assert nxt is not None and dump.now is not None
    # the lock screen's next alarm is the soonest occurrence of any enabled alarm after the phone's now
    want = min(_next_occurrence(a, dump.now) for a in rig.phone.read_state().alarms or [] if a.enabled)
    assert nxt.time == want, (nxt.time, want, dump.now)
    assert nxt.time <= _next_occurrence(alarm, dump.now)
    assert nxt.time_ms == int(want.replace(tzinfo=_phone_zone(d)).timestamp() * 1000)


_DAYS = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]


def _next_occurrence(alarm: "Alarm", now: datetime) -> datetime:  # noqa: F821
    """When a clock alarm rings next after ``now`` (the AlarmClock app's rule: today if still ahead, else the
    next allowed day; a one-off alarm may ring on any day)."""
    for ahead in range(8):
        day = (now + timedelta(days=ahead)).replace(hour=alarm.hour, minute=alarm.minute, second=0, microsecond=0)
        if day > now and (not alarm.days or _DAYS[day.weekday()] in alarm.days):
            return day
    raise AssertionError(f"alarm {alarm} never rings")


def _phone_zone(d: "adbutils.AdbDevice") -> ZoneInfo:
    return ZoneInfo(d.shell(["getprop", "persist.sys.timezone"]).strip() or "UTC")


def test_adb_keyboard_types_cjk_and_emoji_literally(rig: Rig) -> None:
    d = rig.device
    d.shell(["am", "start", "-a", "android.intent.action.INSERT", "-t", "vnd.android.cursor.dir/contact"])
    assert parse_dumpsys_window(d.shell("dumpsys window")).ime_visible is True
    d.shell(["ime", "enable", ADB_KEYBOARD_IME])
    d.shell(["ime", "set", ADB_KEYBOARD_IME])
    text = "你好，世界 🚀👩‍💻 \"x\" && $(reboot)"
    out = d.shell(["am", "broadcast", "-a", "ADB_INPUT_B64", "--es", "msg", base64.b64encode(text.encode()).decode()])
    assert "Broadcast completed: result=0" in out
    assert rig.phone.state_data()["ui"]["fields"]["ct_first"] == text
    hier = _elements(rig)
    assert any(e.text == text and e.editable for e in hier.elements)
    d.shell(["ime", "set", rig.phone.knobs.installed_imes[0]])
    d.keyevent("KEYCODE_HOME")


def test_input_text_with_shell_metacharacters_runs_nothing(rig: Rig) -> None:
    d = rig.device
    d.shell(["am", "start", "-a", "android.intent.action.INSERT", "-t", "vnd.android.cursor.dir/contact"])
    marker = "/sdcard/Download/owned"
    payload = f"a;touch%s{marker}&&echo%sx|id>{marker}`id`$(id)'\"\\"
    d.shell(["input", "text", payload])  # adbutils quotes each argument for sh
    typed = rig.phone.state_data()["ui"]["fields"]["ct_first"]
    assert typed == payload.replace("%s", " ")
    assert rig.phone.fs.lexists(marker) is False
    assert d.shell2(["ls", marker], v2=True).returncode == 1
    d.keyevent("KEYCODE_HOME")


def test_unknown_command_is_127(rig: Rig) -> None:
    r = rig.device.shell2("definitely-not-a-command", v2=True)
    assert r.returncode == 127
    assert r.stderr == "/system/bin/sh: definitely-not-a-command: inaccessible or not found\n"


def test_system_outputs_parse_through_adbutils(rig: Rig) -> None:
    d = rig.device
    wm = parse_wm(d.shell("wm size") + "\n" + d.shell("wm density"))
    assert (wm.size, wm.density) == ((1080, 2400), 440)
    assert parse_dumpsys_display(d.shell("dumpsys display")).screen_state == "ON"
    assert parse_dumpsys_power(d.shell("dumpsys power")).wakefulness == "Awake"
    assert d.is_screen_on()
    win = parse_dumpsys_window(d.shell("dumpsys window displays"))
    assert win.init_size == (1080, 2400) and win.navigation_bar is not None
    assert d.list_packages(["-3"]) == ["com.android.adbkeyboard", "com.github.uiautomator"]
    info = d.app_info("com.android.settings")
    assert info is not None and info.package_name == "com.android.settings"
    # AOSP ships Settings as a privileged system_ext app (build/make/target/product/handheld_system_ext.mk)
    assert info.path == "/system_ext/priv-app/Settings/Settings.apk" and "SYSTEM" in info.flags, info
    resolved = d.shell("cmd package resolve-activity --brief com.android.settings").splitlines()
    assert resolved[-1].startswith("com.android.settings/"), resolved


def test_push_and_pull_under_sdcard_appear_in_world_files(rig: Rig, tmp_path: Path) -> None:
    src = tmp_path / "report 2027 ü.txt"
    src.write_bytes("ünïcödé report\n".encode() * 100)
    remote = "/sdcard/Download/report 2027 ü.txt"
    assert rig.adb("push", str(src), remote).returncode == 0
    files = {f.path: f for f in rig.phone.read_state().files or []}
    assert files[remote].kind == "file" and files[remote].size == src.stat().st_size
    back = tmp_path / "back.txt"
    assert rig.adb("pull", remote, str(back)).returncode == 0
    assert back.read_bytes() == src.read_bytes()
    # a file the sim world has (never pushed) pulls as bytes of its recorded size
    pdf = next(f for f in rig.phone.read_state().files or [] if f.path.endswith("boarding_pass.pdf"))
    assert rig.adb("pull", pdf.path, str(tmp_path / "bp.pdf")).returncode == 0
    assert (tmp_path / "bp.pdf").stat().st_size == pdf.size
    assert rig.device.shell2(["rm", remote], v2=True).returncode == 0
    assert remote not in {f.path for f in rig.phone.read_state().files or []}


async def _u2_stub(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """A stand-in for the uiautomator2 server (the real one lives in u2server.py): /ping only."""
    head = await reader.readuntil(b"\r\n\r\n")
    path = head.split(b" ", 2)[1]
    body = b"pong" if path == b"/ping" else json.dumps({"jsonrpc": "2.0", "id": 1, "result": None}).encode()
    writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n" % len(body) + body)
    await writer.drain()
    writer.close()


def test_uiautomator2_bootstrap_pushes_jar_and_starts_the_server(rig: Rig) -> None:
    u2 = pytest.importorskip("uiautomator2")
    from uiautomator2.core import BasicUiautomatorServer

    rig.phone.register_tcp(9008, _u2_stub, on_demand=True)
    server = None
    try:
        assert not rig.phone.fs.exists("/data/local/tmp/u2.jar")
        server = BasicUiautomatorServer(rig.device)  # md5sum, push u2.jar, app_process, wait for /ping
        jar = Path(u2.__file__).parent / "assets" / "u2.jar"
        assert rig.phone.fs.read_bytes("/data/local/tmp/u2.jar") == jar.read_bytes()
        assert server._check_alive()
        ps = rig.device.shell("ps -A")
        # the server process is a shell stream, not a package process: no uiautomator app runs
        assert ps.splitlines()[0].split()[:2] == ["USER", "PID"], ps
        assert "com.github.uiautomator" not in ps
    finally:
        if server is not None:
            server.stop_uiautomator(wait=True)
        rig.phone.unregister_tcp(9008)
    assert rig.phone.backend.socket_handler("tcp", "9008") is None  # the port closed with the process


def test_flaky_transport_drops_the_connection(host: AdbHost, sim_pool) -> None:
    phone = VirtualPhone(PhoneKnobs(input_latency_ms=0, animation_ms=0, flaky=FlakyTransport(drop_every_n=4)),
                         pool=sim_pool).start()
    try:
        assert b"connected to" in host.adb("connect", phone.serial).stdout
        host.wait_state(phone.serial, "device")
        results = []
        for i in range(8):
            r = host.adb("-s", phone.serial, "shell", f"echo {i}", timeout=30)
            results.append(r.returncode == 0 and r.stdout == f"{i}\n".encode())
            if not results[-1]:
                host.adb("connect", phone.serial)  # reconnect, as a farm would
                host.wait_state(phone.serial, "device")
        assert phone.backend.drops >= 1
        assert not all(results) and any(results)
    finally:
        host.adb("disconnect", phone.serial)
        phone.stop()


def test_adb_install_uninstall_and_interactive_shell(rig: Rig) -> None:
    u2 = pytest.importorskip("uiautomator2")
    apk = Path(u2.__file__).parent / "assets" / "app-uiautomator.apk"
    r = rig.adb("uninstall", "com.github.uiautomator")
    assert r.returncode == 0 and b"Success" in r.stdout
    assert "com.github.uiautomator" not in rig.device.list_packages()
    assert "com.github.uiautomator/.AdbKeyboard" not in rig.device.shell("ime list -s -a").split()
    r = rig.adb("install", str(apk))  # streams the APK to `cmd package install -S N`
    assert r.returncode == 0 and b"Success" in r.stdout, r
    assert "com.github.uiautomator" in rig.device.list_packages(["-3"])
    assert "com.github.uiautomator/.AdbKeyboard" in rig.device.shell("ime list -s -a").split()
    assert rig.adb("uninstall", "com.android.settings").returncode != 0
    r = rig.adb("shell", input=b"cd /sdcard\npwd\nX=7; echo $X\nexit\n")
    assert r.stdout.startswith(b"panther:/ $ ") and b"/sdcard\n" in r.stdout and b"7\n" in r.stdout


def test_cli_start_prints_connect_line_and_registers(host: AdbHost) -> None:
    import sys

    env = dict(host.env, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    proc = subprocess.Popen([sys.executable, "-m", "s2r.cli", "vdevice", "start", "--port", "0", "--connect",
                             "--duration", "25", "--latency-ms", "10"], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("adb connect 127.0.0.1:"), (line, proc.stderr.read() if proc.poll() is not None else "")
        serial = line.split()[2]
        host.wait_state(serial, "device")  # --connect registered it with *our* adb server (ANDROID_ADB_SERVER_PORT)
        knobs_line = proc.stdout.readline() + proc.stdout.readline() + proc.stdout.readline()
        assert "Android 14 stock, account: none" in knobs_line
        assert '"input_latency_ms": 10.0' in knobs_line
        r = host.adb("-s", serial, "shell", "getprop ro.product.model")
        assert r.stdout == b"Pixel 7\n"
    finally:
        proc.send_signal(2)  # Ctrl-C
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
    assert proc.returncode == 0


def test_bench_measures_through_a_private_adb_server() -> None:
    from s2r.commands.vdevice import run_bench

    res = run_bench(n=3)
    json.dumps(res)
    # relations that hold by construction; how fast is the bench's figure, not a test's
    assert 0 < res["listen_to_device_s"] <= res["start_to_device_s"]
    assert res["shell_rtt_ms_p50_device"] > 0 and res["shell_rtt_ms_p50_adbutils"] > 0
    assert res["screencap_plus_hierarchy_cached_ms_p50"] > 0 and res["screencap_plus_hierarchy_ms_p50"] > 0
    assert res["knobs"]["profile"] == "pixel"


def test_a_cleared_task_starts_at_the_top_of_its_lists(rig: Rig) -> None:
    """``am start --activity-clear-task`` recreates the app: a list scrolled in an earlier visit
    starts at the top again (a phone keeps no saved instance state for a cleared task), while
    another app's scroll position is untouched."""
    def scroll() -> dict[str, int]:
        return rig.phone.mutate(lambda d: dict(d["ui"].get("scroll") or {}))

    def put(d: dict) -> None:
        d["ui"].setdefault("scroll", {})
        d["ui"]["scroll"]["messages/new/{}"] = 900
        d["ui"]["scroll"]["contacts/list/{}"] = 300

    rig.phone.mutate(put)
    assert scroll()["messages/new/{}"] == 900
    r = rig.device.shell2(["am", "start", "-n", "com.android.messaging/.ui.conversationlist.ConversationListActivity",
                           "--activity-clear-task"], v2=True)
    assert r.returncode == 0, r
    after = scroll()
    assert "messages/new/{}" not in after and after.get("contacts/list/{}") == 300
