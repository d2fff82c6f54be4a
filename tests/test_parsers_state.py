"""The state parsers (device/parsers) on real and hand-written outputs: settings lists and their
meaning, ``content query`` rows and the records made of them, dumpsys (window, activity, display,
input, alarm, power), ``wm`` and ``getprop``."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from device.parsers import (ParseError, calls_from_rows, contacts_from_rows, detect_kind, device_info_from_props,
                            events_from_rows, foreground_state, messages_from_rows, ms_to_local, parse_as,
                            parse_content_rows, parse_dumpsys_activity, parse_dumpsys_alarm, parse_dumpsys_display,
                            parse_dumpsys_input, parse_dumpsys_power, parse_dumpsys_window, parse_getprop,
                            parse_settings_get, parse_settings_list, parse_wm, parse_wm_density, parse_wm_size,
                            settings_to_worldstate)
from _android_fixtures import local, needs_real, real


# --------------------------------------------------------------------------- settings

@needs_real
def test_settings_real_lists() -> None:
    g = parse_settings_list(real("settings/settings_list_global_emulator_arm64_android12.txt"))
    s = parse_settings_list(real("settings/settings_list_system_emulator_arm64_android12_bg_locale.txt"))
    assert len(g) == 84 and len(s) == 38
    assert g["zen_duration"] == "null" and g["user_disabled_hdr_formats"] == ""
    assert s["alarm_alert"] == "content://media/internal/audio/media/50?title=Cesium&canonical=1"
    assert s["radio.data.stall.recovery.action"] == "0" and s["system_locales"] == "bg-BG,en-US"
    sec = parse_settings_list(local("settings_list_secure_handwritten_android14.txt"))
    ws = settings_to_worldstate(g, s, sec)
    assert ws.model_dump() == {
        "wifi": True, "bluetooth": True, "airplane_mode": False, "mobile_data": True, "dark_mode": True,
        "do_not_disturb": False, "location": True, "auto_rotate": True, "flashlight": None,
        "adaptive_brightness": False, "brightness": 102, "screen_off_timeout_ms": 2147483647, "font_scale": 1.0,
        "ringer_mode": "normal", "media_volume": 5, "device_name": "Android SDK built for arm64",
    }
    # without secure, the secure-only fields are unknown rather than guessed
    partial = settings_to_worldstate(g, s, None)
    assert partial.dark_mode is None and partial.location is None


@pytest.mark.parametrize("value,expected", [("0", False), ("1", True), ("2", True), ("3", False), ("x", None)])
def test_wifi_on_values(value: str, expected: bool | None) -> None:
    assert settings_to_worldstate({"wifi_on": value}).wifi is expected


@pytest.mark.parametrize("value,expected", [("0", False), ("1", True), ("2", True), ("3", True), ("", None)])
def test_zen_mode_values(value: str, expected: bool | None) -> None:
    assert settings_to_worldstate({"zen_mode": value}).do_not_disturb is expected


def test_settings_interpretations() -> None:
    s = settings_to_worldstate({"bluetooth_on": "2", "mode_ringer": "1", "device_name": "null"},
                               {"screen_brightness": "1023", "screen_brightness_mode": "1", "font_scale": "1.15",
                                "volume_music_speaker": "11", "volume_music": "3", "screen_off_timeout": "30000"},
                               {"ui_night_mode": "0", "location_mode": "0", "bluetooth_name": "Ada’s Pixel"})
    assert s.bluetooth is True and s.ringer_mode == "vibrate"
    assert s.brightness is None  # an OEM 0–4095 scale: not comparable to 0–255
    assert s.adaptive_brightness is True and s.font_scale == 1.15 and s.media_volume == 11
    assert s.screen_off_timeout_ms == 30000 and s.dark_mode is None and s.location is False
    assert s.device_name == "Ada’s Pixel"  # global "null" falls back to the Bluetooth name
    old = settings_to_worldstate(secure={"location_providers_allowed": "gps,network"})
    assert old.location is True
    assert settings_to_worldstate(secure={"location_providers_allowed": ""}).location is False


def test_settings_text_quirks() -> None:
    text = ("WARNING: linker: libdvm.so has text relocations.\r\n"
            "wifi_on=1\r\nnote=line one\r\nline two\r\nzen_mode=0\r\n")
    assert parse_settings_list(text) == {"wifi_on": "1", "note": "line one\nline two", "zen_mode": "0"}
    assert parse_settings_get("null\n") is None
    assert parse_settings_get("WARNING: linker: x\n1\r\n") == "1"
    assert parse_settings_get("Ada’s 手机\n") == "Ada’s 手机"
    assert parse_settings_get("") is None
    with pytest.raises(ParseError):
        parse_settings_list("this is not a settings list\nat all")
    assert parse_settings_list("") == {}


# --------------------------------------------------------------------------- content rows and records

BERLIN = "Europe/Berlin"
SMS_COLS = "_id address body type read date".split()


def test_content_rows_with_commas_and_equals() -> None:
    rows = parse_content_rows(local("content_query_sms_handwritten.txt"), SMS_COLS)
    assert len(rows) == 5
    assert rows[0]["body"] == "Meeting moved, type=B room, see you at 5" and rows[0]["type"] == "1"
    assert rows[2]["body"] == "尊敬的客户，您好！\n您本月话费余额为 23.50 元。"
    assert rows[3]["address"] is None and rows[4]["body"] == ""
    # without the projection the columns every row agrees on give the same split
    assert parse_content_rows(local("content_query_sms_handwritten.txt")) == rows
    ev = parse_content_rows(local("content_query_calendar_events_handwritten.txt"))
    assert ev[0]["title"] == "Design review, Q4" and ev[0]["eventLocation"] == "Room 4B, Building 2"
    assert ev[0]["description"] == "Agenda: budget, title=Q4 plan, eventLocation=TBD"
    assert ev[2]["dtend"] is None and ev[2]["title"] == "周会"


def test_content_rows_edge_cases() -> None:
    assert parse_content_rows("No result found.\n") == []
    assert parse_content_rows("WARNING: linker: x\r\nNo result found.\r\n") == []
    with pytest.raises(ParseError):
        parse_content_rows("Error while accessing provider:sms\njava.lang.SecurityException: Permission Denial")
    with pytest.raises(ParseError):
        parse_content_rows("")
    # a body line that looks like a row but does not carry the next row number stays in the body
    text = "Row: 0 _id=1, body=first\nRow: 7 is not a row, read=0\nRow: 1 _id=2, body=second, read=1\n"
    rows = parse_content_rows(text, ["_id", "body", "read"])
    assert rows == [{"_id": "1", "body": "first\nRow: 7 is not a row", "read": "0"},
                    {"_id": "2", "body": "second", "read": "1"}]
    # a single row whose value contains ", key=" is only split right with the projection
    one = "Row: 0 _id=5, thread_id=5, body=Hello, World, read=1"
    assert parse_content_rows(one)[0] == {"_id": "5", "thread_id": "5", "body": "Hello, World", "read": "1"}
    tricky = "Row: 0 _id=5, body=a, read=yes, read=1"
    assert parse_content_rows(tricky, ["_id", "body", "read"])[0]["body"] == "a, read=yes"


def test_contacts_records() -> None:
    data = parse_content_rows(local("content_query_contacts_data_handwritten.txt"))
    contacts = parse_content_rows(local("content_query_contacts_handwritten.txt"))
    cs = contacts_from_rows(data, contacts)
    assert [c.name for c in cs] == ["Ada Lovelace", "王小明", "O'Brien, Seán"]
    ada, wang, sean = cs
    assert ada.id == "1" and ada.starred and ada.emails == ["ada@example.org"]
    assert ada.company == "Analytical Engines, Ltd."
    assert [(p.number, p.label) for p in ada.phones] == [("+44 20 7946 0018", "mobile")]
    assert [(p.number, p.label) for p in wang.phones] == [("138 0013 8000", "home"), ("+86 10 6552 9988",
                                                                                     "Lab, night line")]
    assert not wang.starred and [(p.number, p.label) for p in sean.phones] == [("+353 1 555 0142", "work")]
    # without the contacts table nothing is starred (the data projection has no starred column)
    assert not any(c.starred for c in contacts_from_rows(data))


def test_message_records() -> None:
    ms = messages_from_rows(parse_content_rows(local("content_query_sms_handwritten.txt"), SMS_COLS), BERLIN)
    assert [m.box for m in ms] == ["inbox", "sent", "inbox", "draft", "failed"]
    assert ms[0].read is False and ms[1].read is True
    # 1700053200000 ms = 2023-11-15 13:00 UTC = 14:00 in Berlin (CET)
    assert ms[0].time == datetime(2023, 11, 15, 14, 0)
    assert ms[2].time == datetime(2023, 11, 14, 23, 0) and ms[2].address == "10086"
    assert ms[3].address == "" and ms[1].body == "Ok 👍"
    assert messages_from_rows([{"_id": "1", "type": "0", "body": "x"}]) == []


def test_event_records() -> None:
    rows = parse_content_rows(local("content_query_calendar_events_handwritten.txt"))
    evs = events_from_rows(rows, BERLIN)
    assert [e.title for e in evs] == ["Design review, Q4", "Ada's birthday", "周会"]  # the deleted row is skipped
    review, bday, weekly = evs
    assert (review.start, review.end) == (datetime(2023, 11, 16, 9, 30), datetime(2023, 11, 16, 10, 30))
    assert review.location == "Room 4B, Building 2" and not review.all_day
    # all-day events are stored at UTC midnight: read in UTC, not shifted to 01:00 Berlin
    assert bday.all_day and (bday.start, bday.end) == (datetime(2023, 11, 20), datetime(2023, 11, 21))
    assert weekly.start == datetime(2023, 11, 17, 8, 0) and weekly.end is None and weekly.description == ""
    assert len(events_from_rows(rows, BERLIN, include_deleted=True)) == 4


def test_call_records() -> None:
    calls = calls_from_rows(parse_content_rows(local("content_query_call_log_handwritten.txt")), BERLIN)
    assert [c.kind for c in calls] == ["incoming", "missed", "outgoing", "rejected", "blocked", "voicemail",
                                       "incoming"]
    assert calls[0].time == datetime(2023, 11, 15, 12, 0) and calls[0].duration_s == 125
    assert calls[1].name == "" and calls[2].name == "王小明" and calls[5].number == ""
    assert calls_from_rows([{"_id": "9", "number": "1", "type": "99", "date": "0"}]) == []


def test_ms_to_local_zones() -> None:
    ms = 1700000000000  # 2023-11-14 22:13:20 UTC
    assert ms_to_local(ms) == datetime(2023, 11, 14, 22, 13, 20)
    assert ms_to_local(str(ms), "Asia/Shanghai") == datetime(2023, 11, 15, 6, 13, 20)
    assert ms_to_local(ms, "+05:30") == ms_to_local(ms, timedelta(hours=5, minutes=30)) \
        == datetime(2023, 11, 15, 3, 43, 20)
    assert ms_to_local(ms, "GMT-8") == datetime(2023, 11, 14, 14, 13, 20)
    assert ms_to_local(None) is None and ms_to_local("NULL") is None
    with pytest.raises(ParseError, match="time zone"):
        ms_to_local(ms, "Mars/Olympus")


# --------------------------------------------------------------------------- dumpsys

@needs_real
def test_dumpsys_window_real_excerpt() -> None:
    w = parse_dumpsys_window(real("dumpsys/dumpsys_window_displays_excerpt_1080x1920_420dpi_nav_bar.txt"))
    assert (w.init_size, w.cur_size, w.app_size, w.density) == ((1080, 1920), (1080, 1920), (1080, 1794), 420)
    assert w.navigation_bar is not None and w.navigation_bar.height == 126
    assert w.navigation_bar_source == "app-size" and w.focused_window is None


def test_dumpsys_window_android13_ime() -> None:
    w = parse_dumpsys_window(local("dumpsys_window_handwritten_android13_ime_1080x2400.txt"))
    assert w.package == "com.google.android.apps.messaging"
    assert w.activity == "com.google.android.apps.messaging.ui.conversation.ConversationActivity"
    assert w.focused_app_activity == w.activity and w.rotation == 0 and w.density == 420
    assert w.status_bar is not None and w.status_bar.bottom == 136
    assert w.navigation_bar is not None and w.navigation_bar.top == 2274 and w.navigation_bar_source == "insets"
    assert w.ime_visible is True and w.ime_frame is not None and w.ime_frame.top == 1462
    fg = foreground_state(w)
    assert (fg.app, fg.package) == ("messages", "com.google.android.apps.messaging")


def test_dumpsys_window_variants() -> None:
    old = ("mCurrentFocus=Window{85a52f2 u0 StatusBar}\n"
           "  mFocusedApp=AppWindowToken{fde865c token=Token{5151ccf ActivityRecord{2d5092e u0 "
           "longbin.helloworld/.HelloWorldActivity t10891}}}")
    w = parse_dumpsys_window(old)
    assert w.focused_window is not None and w.focused_window.kind == "system"
    assert w.focused_window.package == "com.android.systemui"
    assert w.package == "longbin.helloworld" and w.activity == "longbin.helloworld.HelloWorldActivity"
    a14 = ("  mCurrentFocus=Window{1a2b u0 NotificationShade}\n"
           "        InsetsSource id=3b6d0001 type=statusBars frame=[0,0][1080,145] visible=true\n"
           "        InsetsSource id=3b6d0003 type=navigationBars frame=[0,2337][1080,2400] visible=true\n"
           "        InsetsSource id=3 type=ime frame=[0,0][0,0] visible=false\n"
           "      mRotation=ROTATION_90\n")
    w = parse_dumpsys_window(a14)
    assert w.status_bar is not None and w.status_bar.bottom == 145 and w.ime_visible is False
    assert w.rotation == 1 and w.package == "com.android.systemui"
    anr = parse_dumpsys_window("  mCurrentFocus=null\n  mCurrentFocus=Window{9 u0 Application Not Responding: "
                               "com.example.app}\n")
    assert anr.focused_window is not None and anr.focused_window.kind == "dialog"
    assert anr.focused_window.package == "com.example.app"
    assert parse_dumpsys_window("mInputShown=true\nmCurrentFocus=null").ime_visible is True
    with pytest.raises(ParseError):
        parse_dumpsys_window("Physical size: 1080x1920")


@needs_real
def test_dumpsys_activity_cyanogenmod() -> None:
    a = parse_dumpsys_activity(real("dumpsys/dumpsys_activity_grep_mFocusedActivity_cyanogenmod_trebuchet.txt"))
    assert (a.resumed_package, a.resumed_activity, a.source) == (
        "com.cyanogenmod.trebuchet", "com.android.launcher3.Launcher", "mFocusedActivity")


def test_dumpsys_activity_android13_and_old() -> None:
    a = parse_dumpsys_activity(local("dumpsys_activity_activities_handwritten_android13.txt"))
    assert a.source == "topResumedActivity" and a.resumed_package == "com.google.android.apps.messaging"
    assert a.resumed_activity == "com.google.android.apps.messaging.ui.conversation.ConversationActivity"
    assert a.activities[-1] == ("com.google.android.apps.nexuslauncher/"
                                "com.google.android.apps.nexuslauncher.NexusLauncherActivity")
    assert len(a.activities) == 3
    fg = foreground_state(None, a)
    assert (fg.app, fg.activity) == ("messages", a.resumed_activity)
    p9 = ("    mLastPausedActivity: ActivityRecord{1 u0 com.other/.X t3}\n"
          "    mResumedActivity: ActivityRecord{2 u0 com.android.settings/.Settings t12}\n")
    a9 = parse_dumpsys_activity(p9)
    assert (a9.resumed_package, a9.resumed_activity, a9.source) == (
        "com.android.settings", "com.android.settings.Settings", "mResumedActivity")
    assert foreground_state(None, a9).app == "settings"
    with pytest.raises(ParseError):
        parse_dumpsys_activity("mLastPausedActivity: ActivityRecord{1 u0 com.other/.X t3}")


@needs_real
def test_dumpsys_display_mtk_screen_off() -> None:
    d = parse_dumpsys_display(real("dumpsys/dumpsys_display_mtk_android13_480x800_screen_off.txt"))
    assert d.screen_state == "OFF" and d.screen_on is False  # the override DisplayInfo's stale "state ON" is ignored
    assert (d.physical_size, d.logical_size, d.app_size, d.density, d.rotation) == (
        (480, 800), (480, 800), (480, 728), 240, 0)
    assert len(d.viewports) == 1 and d.viewports[0].logical_size == (480, 800) and d.viewports[0].kind == "INTERNAL"


def test_dumpsys_display_old_field_order() -> None:
    pie = ('  mDefaultViewport=DisplayViewport{valid=true, displayId=0, uniqueId=\'local:0\', orientation=1, '
           'logicalFrame=Rect(0, 0 - 2340, 1080), physicalFrame=Rect(0, 0 - 2340, 1080), deviceWidth=1080, '
           'deviceHeight=2340}\n'
           '    mBaseDisplayInfo=DisplayInfo{"Built-in Screen, displayId 0", uniqueId "local:0", app 1080 x 2210, '
           'real 1080 x 2340, largest app 2340 x 2210, smallest app 1080 x 1010, rotation 0, density 440 '
           '(403.411 x 401.639) dpi, state ON, FLAG_SECURE}\n  mScreenState=ON\n')
    d = parse_dumpsys_display(pie)
    assert d.screen_on and d.app_size == (1080, 2210) and d.logical_size == (1080, 2340) and d.density == 440
    assert d.viewports[0].orientation == 1 and d.viewports[0].logical_size == (2340, 1080)


@needs_real
def test_dumpsys_input_vivo() -> None:
    i = parse_dumpsys_input(real("dumpsys/dumpsys_input_vivo_pad_mt6991_2064x3096_excerpt.txt"))
    assert [(v.kind, v.display_id, v.orientation, v.logical_size) for v in i.viewports] == [
        ("INTERNAL", 0, 0, (2064, 3096))]
    assert [d.id for d in i.devices] == [2, 3, 6, 7, 8, 5, 4, -1]
    ts = i.devices[0]
    assert (ts.name, ts.path, ts.enabled) == ("vivo_ts", "/dev/input/event6", True)
    assert ts.classes == ["KEYBOARD", "TOUCH", "TOUCH_MT", "BATTERY"]
    assert [d.name for d in i.touchscreens] == ["vivo_ts", "vivo_ts_pen", "vivo_ts_fp"]
    old = ("  Viewport: displayId=0, orientation=3, logicalFrame=[0, 0, 1920, 1080], "
           "physicalFrame=[0, 0, 1920, 1080], deviceSize=[1080, 1920]\n")
    v = parse_dumpsys_input(old).viewports[0]
    assert (v.kind, v.orientation, v.device_size) == (None, 3, (1080, 1920))


def test_dumpsys_alarm() -> None:
    a = parse_dumpsys_alarm(local("dumpsys_alarm_handwritten_android13_excerpt.txt"))
    assert a.now == datetime(2023, 11, 14, 23, 13, 20) and a.now_rtc_ms == 1700000000000
    nxt = a.next_for_user(0)
    assert nxt is not None and nxt.time == datetime(2023, 11, 15, 7, 0) and nxt.pending_send is False
    # the printed local time agrees with the epoch value read in the phone's zone
    assert ms_to_local(nxt.time_ms, BERLIN) == nxt.time
    assert a.pending_alarm_count == 3
    assert [(c.package, c.trigger_time, c.show_intent_package) for c in a.alarm_clocks] == [
        ("com.google.android.deskclock", datetime(2023, 11, 15, 7, 0), "com.google.android.deskclock"),
        ("com.example.reminders", datetime(2023, 11, 16, 18, 30), "com.example.reminders")]
    assert a.alarm_clocks[0].tag == "*walarm*:com.android.deskclock.ALARM_ALERT"
    old = "  Next alarm clock information:\n    user:0 pendingSend:false time:1396740000 = 1970-01-17 11:59:00 = +1m\n"
    o = parse_dumpsys_alarm(old)
    assert o.next_alarm_clocks[0].time == datetime(1970, 1, 17, 11, 59) and o.now is None
    empty = parse_dumpsys_alarm("  Next alarm clock information: \n\n  Pending alarms: 0\n")
    assert empty.next_for_user(0) is None and empty.pending_alarm_count == 0
    with pytest.raises(ParseError):
        parse_dumpsys_alarm("nothing here")


def test_dumpsys_power() -> None:
    p = parse_dumpsys_power(local("dumpsys_power_handwritten_excerpt.txt"))
    assert (p.wakefulness, p.display_power, p.screen_on, p.plugged, p.battery_level, p.stay_on) == (
        "Awake", "ON", True, True, 87, False)
    assert parse_dumpsys_power("  mWakefulness=Asleep\nDisplay Power: state=OFF").screen_on is False
    assert parse_dumpsys_power("  mWakefulness=Dozing\n").screen_on is False
    with pytest.raises(ParseError):
        parse_dumpsys_power("mBatteryLevel=50")


# --------------------------------------------------------------------------- wm and getprop

@needs_real
def test_wm_physical_only() -> None:
    assert parse_wm_size(real("misc/wm_size_physical_only_1080x1920.txt")) == (1080, 1920)
    assert parse_wm_density(real("misc/wm_density_physical_only_420.txt")) == 420


def test_wm_override_wins() -> None:
    w = parse_wm(local("wm_size_density_override_handwritten.txt"))
    assert (w.physical_size, w.override_size, w.size) == ((1440, 3120), (1080, 2340), (1080, 2340))
    assert (w.physical_density, w.override_density, w.density) == (560, 420, 420)
    assert parse_wm_size("Physical size: 1080x2400\r\nOverride size: 720x1600\r\n") == (720, 1600)
    with pytest.raises(ParseError):
        parse_wm("Physical size: unknown")
    with pytest.raises(ParseError):
        parse_wm_size("Physical density: 420")


@needs_real
def test_getprop_asus_tablet() -> None:
    props = parse_getprop(real("misc/getprop_asus_tf201_android3.2_ja.txt"))
    assert len(props) == 170 and props["ro.product.locale.language"] == "ja"
    assert props["gsm.operator.alpha"] == ""
    assert device_info_from_props(props).model_dump() == {
        "manufacturer": "asus", "model": "TF201", "android_version": "3.2.1", "sdk": 13, "build": "HTK75"}


def test_getprop_multiline_and_non_ascii() -> None:
    props = parse_getprop(local("getprop_handwritten_android14_pixel_excerpt.txt"))
    assert props["persist.sys.boot.reason.history"] == ("reboot,userrequested,1699990000\nreboot,ota,1699000000\n"
                                                        "reboot,1698000000")
    assert props["persist.sys.device_name"] == "Ada’s Pixel 7" and props["sys.boot_completed"] == "1"
    assert device_info_from_props(props).model_dump() == {
        "manufacturer": "Google", "model": "Pixel 7", "android_version": "14", "sdk": 34, "build": "UQ1A.240105.004"}
    assert parse_getprop("WARNING: linker: x\n[a.b]: [c]\n") == {"a.b": "c"}
    assert device_info_from_props({}).model_dump() == {k: None for k in
                                                       ("manufacturer", "model", "android_version", "sdk", "build")}
    with pytest.raises(ParseError):
        parse_getprop("key=value")


def test_detect_kind_unknown() -> None:
    assert detect_kind("") is None and detect_kind("hello world\nsomething else") is None
    assert detect_kind("No result found.") == "content"
    with pytest.raises(ParseError, match="unknown kind"):
        parse_as("nope", "x")
