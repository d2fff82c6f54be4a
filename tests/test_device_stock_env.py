"""DeviceEnv on a stock phone: capability probes, text without an ADB keyboard, hierarchy
recovery, and what happens when no phone is attached.

Everything goes through a private real adb server, adbutils and uiautomator2 against the
virtual phone in its stock default (``permissive=False``: only the AOSP keyboard, WRITE_SMS
app-op ignored, no account calendar, ``cmd`` services by release).
"""

from __future__ import annotations

import re
import time
from typing import Any, Iterator

import pytest

from actionmap.actions import OpenApp, Tap, TypeText, Wait

pytestmark = pytest.mark.timeout(600)

NASTY = "'\"$HOME;&|`id`\\ > /sdcard/x & $(reboot)"
UNICODE = "你好，世界 😀👍🏽 Zoë — "


@pytest.fixture(scope="module")
def rig(tmp_path_factory: pytest.TempPathFactory, adb_host: Any, stock_phone: Any,
        sim_pool: Any) -> Iterator[dict[str, Any]]:
    """The module's phones on its private adb server (stopped with it): the stock default
    (Android 14) with a DeviceEnv, and an Android 11. No test stops either: a test that needs a
    phone to go away starts its own."""
    from device.env import DeviceEnv

    p11 = adb_host.start_phone(sim_pool, android=11)
    env = DeviceEnv(stock_phone.serial, journal_dir=str(tmp_path_factory.mktemp("journal")))
    env.start()
    try:
        yield {"host": adb_host, "p14": stock_phone, "p11": p11, "env": env}
    finally:
        env.close()


def _snapshot(shell: Any) -> dict[str, str]:
    """What the probes could touch, as the phone reports it."""
    out = {}
    for name, argv in {
        "sms": ["content", "query", "--uri", "content://sms"],
        "calendars": ["content", "query", "--uri", "content://com.android.calendar/calendars"],
        "events": ["content", "query", "--uri", "content://com.android.calendar/events"],
        "calls": ["content", "query", "--uri", "content://call_log/calls"],
        "appops": ["appops", "get", "com.android.shell", "WRITE_SMS"],
        "global": ["settings", "list", "global"],
        "secure": ["settings", "list", "secure"],
        "ime": ["settings", "get", "secure", "default_input_method"],
    }.items():
        text = shell.run(argv).text
        out[name] = re.sub(r"time=\S+|duration=\S+", "", text)  # appops prints when it was last checked
    return out


# ============================================================================ capabilities
def test_stock_capabilities_on_android_11_and_14_and_probes_change_nothing(rig: dict[str, Any]) -> None:
    from device.adbshell import Shell
    from device.capabilities import probe_capabilities
    from device.preflight import run_preflight

    host = rig["host"]
    sh14, sh11 = Shell(host.client(), rig["p14"].serial), Shell(host.client(), rig["p11"].serial)
    before = {11: _snapshot(sh11), 14: _snapshot(sh14)}
    world_before = {11: rig["p11"].state_data()["world"], 14: rig["p14"].state_data()["world"]}
    pf14 = run_preflight(sh14)
    caps14 = pf14.capabilities
    caps11 = probe_capabilities(sh11)
    assert caps14 is not None
    for v, caps in ((11, caps11), (14, caps14)):
        assert caps.leftovers == [], (v, caps.leftovers)
        # the shell's WRITE_SMS app-op defaults to ignore: SMS setups need the grant
        assert caps.sms.writable == "grant_needed", (v, caps.sms)
        assert caps.sms.appop_mode in ("ignore", "default"), (v, caps.sms)
        assert caps.sms.readable and set(caps.sms.readable_boxes) <= {"inbox", "sent"}, (v, caps.sms)
        # no Google account on the phone: nothing synced; s2r may make its own LOCAL calendar
        assert caps.calendar.synced == [] and caps.calendar.local_writable is True, (v, caps.calendar)
        assert all(c["account_type"] == "LOCAL" for c in caps.calendar.calendars), caps.calendar
        # only the stock keyboard: no broadcast route; accessibility setText comes first
        assert caps.text.adb_ime is None and "ime_broadcast" not in caps.text.routes, caps.text
        assert caps.text.routes[0] == "u2_set_text" and caps.text.routes[-1] == "input_text"
        assert caps.services["wifi"].available and caps.services["airplane_mode"].available, caps.services
        assert caps.call_log.readable is not None
    # Bluetooth: `cmd bluetooth_manager` exists from Android 13; 11 has only `svc bluetooth`
    assert caps14.services["bluetooth"].available and caps14.services["bluetooth"].command == "cmd bluetooth_manager"
    assert caps11.services["bluetooth"].command == "svc bluetooth", caps11.services["bluetooth"]
    assert caps11.model_dump(exclude={"took_ms"}) != caps14.model_dump(exclude={"took_ms"})
    # the probes left both phones as they were: the same reads, the same world
    assert _snapshot(sh11) == before[11]
    assert _snapshot(sh14) == before[14]
    for v, p in ((11, rig["p11"]), (14, rig["p14"])):
        w = p.state_data()["world"]
        w.pop("time", None)
        wb = dict(world_before[v])
        wb.pop("time", None)
        assert w == wb, v
    # the JSON a run's config.json takes: Preflight.capabilities
    dumped = pf14.model_dump(mode="json")["capabilities"]
    assert dumped["sms"]["writable"] == "grant_needed" and "services" in dumped
    assert caps14.summary().startswith("sms:grant ")


def test_devices_and_doctor_report_capabilities(rig: dict[str, Any]) -> None:
    from device.preflight import check_device

    checks = {c.name: c for c in check_device(rig["p14"].serial)}
    assert checks["capabilities"].status == "ok", checks["capabilities"]
    assert "sms:grant" in checks["capabilities"].detail
    assert checks["sms"].status == "warn" and "--grant-appops" in checks["sms"].fix
    assert checks["text routes"].detail.startswith("u2_set_text")


# ============================================================================ text without an ADB keyboard
def _search_field(env: Any) -> Any:
    obs, _ = env.step(OpenApp(app="contacts"))
    if not any(e.editable for e in obs.elements):
        i = next(e.index for e in obs.elements if "search" in (e.text + e.content_desc).lower()
                 and (e.clickable or e.editable))
        obs, _ = env.step(Tap(target=i))
    return obs, next(e for e in obs.elements if e.editable)


@pytest.mark.parametrize("method", ["auto", "u2_paste"])
def test_unicode_emoji_and_metacharacters_land_literally_without_adb_ime(rig: dict[str, Any], method: str) -> None:
    env, phone = rig["env"], rig["p14"]
    assert env.pf.adb_ime is None and env.input.ime_current == "com.android.inputmethod.latin/.LatinIME"
    phone.set_clipboard("the user's own clip")
    obs, field = _search_field(env)
    text = UNICODE + NASTY + "\nline two"
    env.input.only_methods = None if method == "auto" else ["u2_paste", "u2_set_text", "input_text"]
    try:
        obs, info = env.step(TypeText(text=text, target=field.index, clear=True))
    finally:
        env.input.only_methods = None
    assert info.error is None and info.invalid_action is None, info
    assert info.extra.get("text_method") in ("u2_set_text", "u2_paste"), info.extra
    if method == "auto":
        assert info.extra["text_method"] == "u2_set_text"
    assert info.extra.get("text_verified") is True, info.extra
    assert phone.state_data()["ui"]["fields"].get("ct_query") == text
    assert not phone.fs.exists("/sdcard/x"), "policy text ran as a shell command"
    # no clipboard overlay left on screen, and the user's clipboard is theirs again
    assert not any((e.resource_id or "").startswith("com.android.systemui:id/clipboard") or
                   (e.resource_id or "") == "com.android.systemui:id/dismiss_button" for e in obs.elements), \
        [e.resource_id for e in obs.elements if "systemui" in (e.resource_id or "")]
    assert phone.get_clipboard() == "the user's own clip"
    # append, then clear
    obs, info = env.step(TypeText(text=" Ada"))
    assert info.extra.get("text_verified") is True, info.extra
    assert phone.state_data()["ui"]["fields"].get("ct_query") == text + " Ada"
    obs, info = env.step(TypeText(text="", clear=True))
    assert phone.state_data()["ui"]["fields"].get("ct_query") in ("", None)


def test_an_adb_keyboard_the_user_installed_is_used_and_their_ime_restored(adb_host: Any, tmp_path: Any,
                                                                          sim_pool: Any) -> None:
    """Only once an ADB keyboard is installed (as a user could, with consent) does the base64
    broadcast route exist; DeviceEnv makes it current for the session and puts the user's back."""
    from device.env import DeviceEnv
    from device.virtual.knobs import ADB_KEYBOARD_IME, DEFAULT_IME

    host = adb_host
    phone = host.start_phone(sim_pool, installed_imes=[DEFAULT_IME, ADB_KEYBOARD_IME])
    env = DeviceEnv(phone.serial, journal_dir=str(tmp_path / "j"))
    try:
        env.start()
        assert env.pf.adb_ime == ADB_KEYBOARD_IME and env.input.ime_current == ADB_KEYBOARD_IME
        assert env.pf.capabilities.text.routes[0] == "ime_broadcast"
        _obs, field = _search_field(env)
        text = UNICODE + NASTY
        env.input.only_methods = ["ime_broadcast"]
        _obs, info = env.step(TypeText(text=text, target=field.index, clear=True))
        assert info.error is None and info.extra.get("text_method") == "ime_broadcast", info
        assert phone.state_data()["ui"]["fields"].get("ct_query") == text
        assert not phone.fs.exists("/sdcard/x")
    finally:
        env.close()
        ime_now = host.client().device(phone.serial).shell("settings get secure default_input_method").strip()
        host.stop_phone(phone)
    assert ime_now == DEFAULT_IME


# ============================================================================ hierarchy recovery
def _u2_pids(shell: Any) -> list[int]:
    out = shell.run(["ps", "-A", "-o", "USER,PID,ARGS"]).out
    pids = []
    for line in out.splitlines()[1:]:
        parts = line.split(None, 2)
        if len(parts) == 3 and parts[0] == "shell" and ("app_process" in parts[2] or "uia2" in parts[2]
                                                       or "uiautomator" in parts[2]):
            pids.append(int(parts[1]))
    return pids


def test_hierarchy_recovers_when_the_u2_server_is_killed(rig: dict[str, Any]) -> None:
    env = rig["env"]
    obs, info = env.step(OpenApp(app="settings"))
    assert info.error is None and obs.elements
    pids = _u2_pids(env.shell)
    assert pids, "uiautomator2's app_process is not in `ps -A`"
    for pid in pids:
        env.shell.run(["kill", str(pid)])
    guard = time.monotonic() + 30  # a failure guard: the kill is asserted below
    while _u2_pids(env.shell) and time.monotonic() < guard:
        time.sleep(0.1)
    assert not set(_u2_pids(env.shell)) & set(pids), "kill did not end the server"
    obs, info = env.step(Wait(seconds=0))
    assert info.error is None, info
    assert obs.foreground.app == "settings" and len(obs.elements) > 3, obs.describe(20)
    # and typing / further steps keep working on the recovered server
    obs, info = env.step(Wait(seconds=0))
    assert info.error is None and obs.elements


def test_hierarchy_recovers_when_the_u2_server_stops(rig: dict[str, Any]) -> None:
    env = rig["env"]
    env.u2.stop_uiautomator()
    obs, info = env.step(Wait(seconds=0))
    assert info.error is None and len(obs.elements) > 3, info
    assert env.u2.jsonrpc.deviceInfo()  # the server is back for screenshots and text


def test_a_dump_that_keeps_failing_is_an_infra_error(rig: dict[str, Any], tmp_path: Any) -> None:
    """Another tool's uiautomator2 server holds UiAutomation: a DeviceEnv that does not drive
    that server gets no `uiautomator dump` at all — an infrastructure error, not an empty screen."""
    import uiautomator2 as u2

    from device.env import DeviceEnv
    from device.observe import HierarchyUnavailable, Observer

    host = rig["host"]
    serial = rig["p11"].serial
    other = u2.connect(host.client().device(serial))  # the foreign holder of UiAutomation
    env = DeviceEnv(serial, use_u2=False, journal_dir=str(tmp_path))
    try:
        assert other.info  # its server is up
        with pytest.raises(HierarchyUnavailable, match="no window hierarchy"):
            Observer(env.shell, u2=None).hierarchy_xml()
        env.start()
        _obs, info = env.step(Wait(seconds=0))
        assert info.error_kind == "infra", info
        assert "hierarchy" in (info.error or ""), info
    finally:
        env.close()
        other.stop_uiautomator()


# ============================================================================ no phone attached
def test_wait_for_devices_with_no_phone_times_out_with_the_fix(tmp_path: Any) -> None:
    from _rigs import start_adb_server, stop_adb_server

    from device.farm import NoDevicesError, wait_for_devices

    empty = start_adb_server(tmp_path)  # a server with no phone at all (the module's has phones)
    try:
        said: list[str] = []
        t0 = time.monotonic()
        with pytest.raises(NoDevicesError) as ei:
            wait_for_devices(empty.client(), None, 1.5, said.append)
        # it said at once that it waits, waited out its whole timeout (never less, on any machine;
        # a wait that never ended would be stopped by the test's timeout), then raised with the fix
        assert time.monotonic() - t0 >= 1.5
        assert len(said) == 1 and "no phone is attached" in said[0] and "waiting up to 2s" in said[0], said
        msg = str(ei.value)
        assert "no phone is attached" in msg and "USB debugging" in msg and "adb connect HOST:PORT" in msg
        assert "RSA" in msg
    finally:
        stop_adb_server(empty)


def test_wait_for_devices_names_an_offline_phone(rig: dict[str, Any], sim_pool: Any) -> None:
    from device.farm import NoDevicesError, wait_for_devices

    host = rig["host"]
    p14 = rig["p14"]
    assert wait_for_devices(host.client(), [p14.serial], 1.0, None) == [p14.serial]
    gone = host.start_phone(sim_pool)  # this test's own phone: no other test uses it
    serial = gone.serial
    assert wait_for_devices(host.client(), [serial], 1.0, None) == [serial]
    gone.stop()  # the server keeps the transport: offline
    host.wait_state(serial, "offline", timeout=20)
    said: list[str] = []
    with pytest.raises(NoDevicesError) as ei:
        wait_for_devices(host.client(), [serial], 1.0, said.append)
    msg = str(ei.value)
    assert f"{serial} is offline" in msg and "reconnect" in msg, msg
    assert said and serial in said[0]
    # with a usable phone among the named ones, the run goes on with it and names the other
    said.clear()
    assert wait_for_devices(host.client(), [p14.serial, serial], 1.0, said.append) == [p14.serial]
    assert any(f"{serial} is offline" in s for s in said), said
