"""Parsers of real Android command outputs (device/parsers) and ``s2r inspect``.

Fixtures: the shared real-device corpus (verbatim captures from public repositories, see its
SOURCES.md) and ``tests/fixtures/android`` (hand-written samples of formats the corpus lacks,
see its README.md). Every fixture file must be recognised and parsed into something
meaningful; a new file whose name no parser claims fails :func:`test_every_fixture_parses`.
"""

from __future__ import annotations

import json
import os
import time
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from actionmap.observation import UIElement
from device.parsers import (KINDS, ParseError, calls_from_rows, contacts_from_rows, detect_kind,
                            device_info_from_props, events_from_rows, foreground_state, is_blank_dump,
                            is_editable_class, messages_from_rows, ms_to_local, parse_as, parse_content_rows,
                            parse_dumpsys_activity, parse_dumpsys_alarm, parse_dumpsys_display, parse_dumpsys_input,
                            parse_dumpsys_power, parse_dumpsys_window, parse_getprop, parse_hierarchy,
                            parse_settings_get, parse_settings_list, parse_wm, parse_wm_density, parse_wm_size,
                            settings_to_worldstate, to_hierarchy_xml, to_jsonable)

ROOT = Path(__file__).resolve().parent.parent
LOCAL = ROOT / "tests" / "fixtures" / "android"


def _real_dir() -> Path | None:
    # the corpus of real captures is vendored in tests/fixtures/real-device
    for cand in (os.environ.get("S2R_REAL_DEVICE_FIXTURES"), ROOT / "tests" / "fixtures" / "real-device"):
        if cand and Path(cand).is_dir():
            return Path(cand)
    return None


REAL = _real_dir()
needs_real = pytest.mark.skipif(REAL is None, reason="shared real-device fixtures not found "
                                                     "(set S2R_REAL_DEVICE_FIXTURES)")


def _fixture_files() -> list[Path]:
    files = sorted(p for p in LOCAL.rglob("*") if p.is_file() and p.suffix != ".md")
    if REAL is not None:
        files += sorted(p for p in REAL.rglob("*") if p.is_file() and p.suffix != ".md")
    return files


def real(rel: str) -> str:
    if REAL is None:
        pytest.skip("shared real-device fixtures not found")
    return (REAL / rel).read_text("utf-8")


def local(name: str) -> str:
    return (LOCAL / name).read_text("utf-8")


# Which parser a fixture file belongs to, from its folder or name. A file matching none fails.
_PREFIXES = (
    ("content_query", "content"), ("settings_list", "settings"), ("dumpsys_window", "dumpsys-window"),
    ("dumpsys_activity", "dumpsys-activity"), ("dumpsys_display", "dumpsys-display"),
    ("dumpsys_input", "dumpsys-input"), ("dumpsys_alarm", "dumpsys-alarm"), ("dumpsys_power", "dumpsys-power"),
    ("wm_", "wm"), ("getprop", "getprop"), ("hierarchy", "hierarchy"),
)


def _expected_kind(p: Path) -> str | None:
    if p.suffix == ".xml" or p.parent.name == "hierarchy":
        return "hierarchy"
    return next((k for pre, k in _PREFIXES if p.name.startswith(pre)), None)


def _meaningful(kind: str, r: object) -> bool:
    if kind == "hierarchy":
        return r.node_count > 0 and r.screen is not None and len(r.elements) > 0  # type: ignore[attr-defined]
    if kind == "content":
        return bool(r) and all(len(row) >= 2 for row in r)  # type: ignore[union-attr]
    if kind in ("settings", "getprop"):
        return bool(r)
    if kind == "dumpsys-window":
        return r.focused_window is not None or r.init_size is not None  # type: ignore[attr-defined]
    if kind == "dumpsys-activity":
        return r.resumed_package is not None or bool(r.activities)  # type: ignore[attr-defined]
    if kind == "dumpsys-display":
        return r.screen_state is not None and r.physical_size is not None  # type: ignore[attr-defined]
    if kind == "dumpsys-input":
        return bool(r.viewports) and bool(r.devices)  # type: ignore[attr-defined]
    if kind == "dumpsys-alarm":
        return r.now is not None or bool(r.next_alarm_clocks)  # type: ignore[attr-defined]
    if kind == "dumpsys-power":
        return r.screen_on is not None  # type: ignore[attr-defined]
    if kind == "wm":
        return r.size is not None or r.density is not None  # type: ignore[attr-defined]
    return False


FIXTURES = _fixture_files()


def test_fixture_corpus_is_present() -> None:
    assert len([p for p in FIXTURES if p.is_relative_to(LOCAL)]) >= 13
    if REAL is not None:
        assert len([p for p in FIXTURES if p.is_relative_to(REAL)]) >= 17


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_fixture_parses(path: Path) -> None:
    expected = _expected_kind(path)
    assert expected is not None, f"no parser claims fixture {path.name}: add one (and a prefix in _PREFIXES)"
    text = path.read_text("utf-8")
    assert detect_kind(text) == expected
    result = parse_as(expected, text)
    assert _meaningful(expected, result), f"{path.name} parsed into nothing useful: {result!r}"
    # CRLF line endings (Windows hosts, adb over a PTY) must not change the result
    crlf = parse_as(expected, text.replace("\n", "\r\n"))
    assert to_jsonable(crlf) == to_jsonable(result)
    json.dumps(to_jsonable(result), ensure_ascii=False)  # every result is JSON-serialisable


def test_prefix_table_covers_every_kind() -> None:
    assert {k for _, k in _PREFIXES} == set(KINDS)


# --------------------------------------------------------------------------- hierarchy: real dumps

def _texts(h) -> set[str]:  # type: ignore[no-untyped-def]
    return {e.text for e in h.elements if e.text} | {e.content_desc for e in h.elements if e.content_desc}


@needs_real
def test_pixel_launcher_dump() -> None:
    h = parse_hierarchy(real("hierarchy/launcher_pixel_nexuslauncher_home_1080x1794.xml"))
    assert (h.rotation, h.screen, h.screen_inferred) == (0, (1080, 1794), True)
    assert len(h.elements) == 25 and h.node_count == 25 and h.dropped == 0
    assert [e.index for e in h.elements] == list(range(25))
    assert {"Fri, Apr 21", "Messages", "Chrome", "Voice search", "Search"} <= _texts(h)
    assert h.packages == ["com.google.android.apps.nexuslauncher"]
    chrome = next(e for e in h.elements if e.text == "Chrome")
    assert chrome.bounds.model_dump() == {"left": 641, "top": 1382, "right": 843, "bottom": 1548}
    # grid: x 641 on 1080 px → round(641/1079*1000) = 594
    assert chrome.grid_bounds.left == 594
    # given the real panel size, bounds stay in pixels and the grid follows the panel
    h2 = parse_hierarchy(real("hierarchy/launcher_pixel_nexuslauncher_home_1080x1794.xml"), screen=(1080, 1920))
    assert h2.screen == (1080, 1920) and not h2.screen_inferred
    assert next(e for e in h2.elements if e.text == "Chrome").grid_bounds.top == round(1382 / 1919 * 1000)


@needs_real
def test_wechat_dump_keeps_chinese_and_drops_zero_size_tabs() -> None:
    h = parse_hierarchy(real("hierarchy/wechat_contacts_tab_chinese_1080x2210.xml"))
    assert h.screen == (1080, 2210)
    assert h.node_count == 135 and len(h.elements) == 131 and h.dropped == 4
    assert {"新的朋友", "群聊", "标签", "公众号", "北极星-陈月慧", "表妹", "通讯录", "更多功能按钮"} <= _texts(h)
    assert "微信" not in _texts(h)  # bottom tab label with bounds [0,0][0,0]
    assert h.elements[0].content_desc == "当前所在页面,与YUM广州开发群(9)的聊天"
    assert any(e.class_name == "com.tencent.mm.ui.mogic.WxViewPager" for e in h.elements)
    kept = parse_hierarchy(real("hierarchy/wechat_contacts_tab_chinese_1080x2210.xml"), keep_invisible=True)
    assert len(kept.elements) == 135
    tab = next(e for e in kept.elements if e.text == "微信")
    assert not tab.visible and tab.bounds.area == 0


@needs_real
def test_foldable_landscape_dump_keeps_emoji_and_line_breaks() -> None:
    h = parse_hierarchy(real("hierarchy/foldable_inner_display_landscape_rotation1_emoji_entities.xml"))
    assert h.rotation == 1 and h.screen == (2184, 1968)
    assert {"🔄 FLIP CAM", "🔄 ROTATE", "📺 PREVIEW: ON", "⚙️ SETUP"} <= _texts(h)
    ip = next(e for e in h.elements if e.text.startswith("WiFi IP"))
    assert ip.text.count("\n") == 3 and ip.text.endswith("Port: 4747")


@needs_real
def test_game_landscape_dump_within_screen_and_not_blank() -> None:
    text = real("hierarchy/game_unity_surface_landscape_rotation1_2780x1264.xml")
    h = parse_hierarchy(text)
    assert h.rotation == 1 and h.screen == (2780, 1264)
    for e in h.elements:
        assert 0 <= e.bounds.left <= e.bounds.right <= 2780 and 0 <= e.bounds.top <= e.bounds.bottom <= 1264
        assert all(0 <= v <= 1000 for v in e.grid_bounds.model_dump().values())
    game = [e for e in h.elements if e.label and e.label != "content"]
    assert [(e.content_desc, e.focused) for e in game] == [("Game view", True)]
    assert not is_blank_dump(text)  # a game exposing one surface is not a dump to retry


@needs_real
def test_other_real_dumps() -> None:
    tb = parse_hierarchy(real("hierarchy/email_thunderbird_inbox_empty_1080x2028.xml"))
    assert len(tb.elements) == 26 and tb.dropped == 1  # zero-size navigationBarBackground
    assert "Sort by…" in _texts(tb)
    assert next(e for e in tb.elements if e.content_desc == "Compose").clickable
    lock = parse_hierarchy(real("hierarchy/lockscreen_systemui_keyguard_pixel_960x2142.xml"))
    assert lock.screen == (960, 2142) and {"13:23", "13°C", "Fri 20 Mar", "Wallet"} <= _texts(lock)
    mi = parse_hierarchy(real("hierarchy/phone_preferred_network_type_xiaomi_miui_pt_br.xml"))
    assert "Tipo de rede preferencial" in _texts(mi)
    options = {e.text: e.checked for e in mi.elements if e.class_name.endswith("CheckedTextView")}
    assert options == {"5G preferencial": True, "LTE preferencial": False, "3G preferencial": False,
                       "Apenas 2G": False}
    assert any(e.resource_id.startswith("miui:id/") for e in mi.elements)
    st_ = parse_hierarchy(real("hierarchy/settings_homepage_oem_aosp_1080x2400.xml"))
    assert {"Network & internet", "Bluetooth & devices", "Display & brightness"} <= _texts(st_)
    assert any(e.scrollable and e.class_name == "android.widget.ScrollView" for e in st_.elements)


# --------------------------------------------------------------------------- hierarchy: quirks

def test_handwritten_dump_quirks() -> None:
    text = local("hierarchy_handwritten_messages_compose_tty_surrogates_1080x2400.xml")
    assert text.rstrip().endswith("UI hierchary dumped to: /dev/tty") and "\x08" in text
    h = parse_hierarchy(text)
    assert h.screen == (1080, 2400) and h.node_count == 15 and len(h.elements) == 13 and h.dropped == 2
    assert not h.recovered and h.warnings == []
    texts = [e.text for e in h.elements if e.text]
    assert texts == ["Ada Lovelace", "See you at 5, room=4B 😀", "明天见 🎉", "Code: 1234", 'Tom & Jerry "quoted" <b>']
    first = next(e for e in h.elements if e.text.startswith("See you"))
    assert first.bounds.top == 0 and first.bounds.bottom == 180  # negative top clipped to the screen
    box = next(e for e in h.elements if e.resource_id.endswith("compose_message_text"))
    assert box.editable and box.focused and box.hint == "Text message" and box.long_clickable
    send = next(e for e in h.elements if e.content_desc == "Send SMS")
    assert send.clickable and not send.enabled and not send.editable
    assert "Older message" not in texts  # visible-to-user="false"
    kept = parse_hierarchy(text, keep_invisible=True)
    assert len(kept.elements) == 15
    assert [e.visible for e in kept.elements].count(False) == 2


def test_editable_classes() -> None:
    for c in ("android.widget.EditText", "android.widget.AutoCompleteTextView",
              "android.widget.MultiAutoCompleteTextView", "com.google.android.material.textfield.TextInputEditText",
              "androidx.appcompat.widget.AppCompatEditText"):
        assert is_editable_class(c), c
    for c in ("android.widget.TextView", "android.widget.Button", "android.view.View", ""):
        assert not is_editable_class(c), c


_NODE = ('<node index="0" text="{t}" resource-id="" class="android.widget.TextView" package="p" content-desc="" '
         'checkable="false" checked="false" clickable="true" enabled="true" focusable="true" focused="false" '
         'scrollable="false" long-clickable="false" password="false" selected="false" bounds="{b}" />')


def test_blank_dumps_are_detected() -> None:
    err = "ERROR: null root node returned by UiTestAutomationBridge.\n"
    assert is_blank_dump(err)
    with pytest.raises(ParseError, match="could not dump"):
        parse_hierarchy(err)
    assert is_blank_dump("")
    assert is_blank_dump("<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\" />")
    root_only = ("<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">"
                 + _NODE.format(t="", b="[0,0][1080,2400]") + "</hierarchy>")
    assert is_blank_dump(root_only)
    labelled = root_only.replace('text=""', 'text="OK"')
    assert not is_blank_dump(labelled)
    assert is_blank_dump(parse_hierarchy(root_only))


def test_truncated_and_ill_formed_dumps_are_recovered() -> None:
    full = ("<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">"
            + "<node index=\"0\" text=\"\" class=\"android.widget.FrameLayout\" bounds=\"[0,0][1080,2400]\">"
            + _NODE.format(t="A", b="[0,0][540,100]") + _NODE.format(t="B", b="[540,0][1080,100]")
            + "</node></hierarchy>")
    cut = full[: full.index("</node></hierarchy>") + 3]  # the device died mid-write
    h = parse_hierarchy(cut)
    assert h.recovered and h.warnings and [e.text for e in h.elements] == ["", "A", "B"]
    mid_tag = full[: full.index("[540,0]") + 4]  # cut inside B's bounds: B is not read
    assert [e.text for e in parse_hierarchy(mid_tag).elements] == ["", "A"]
    bare_amp = full.replace('text="A"', 'text="R&D"')
    h2 = parse_hierarchy(bare_amp)
    assert h2.recovered and "R&D" in [e.text for e in h2.elements]
    with pytest.raises(ParseError, match="no uiautomator hierarchy"):
        parse_hierarchy("Physical size: 1080x1920")


def test_charrefs_and_invalid_characters() -> None:
    doc = ("<hierarchy rotation=\"0\">" + _NODE.format(t="&#55357;&#56832;|&#1;|&#xD83D;&#xDE00;|&#56832;|&#128512;",
                                                       b="[0,0][10,10]") + "</hierarchy>")
    h = parse_hierarchy(doc)
    assert h.elements[0].text == "😀||😀|\ufffd|😀"
    raw = "<hierarchy rotation=\"0\">" + _NODE.format(t="a\x00b\x1bc\ufffed", b="[0,0][10,10]") + "</hierarchy>"
    assert parse_hierarchy(raw).elements[0].text == "abcd"


def test_wide_rotation_and_bad_screen() -> None:
    doc = "<hierarchy rotation=\"5\">" + _NODE.format(t="x", b="[0,0][10,10]") + "</hierarchy>"
    h = parse_hierarchy(doc)
    assert h.rotation == 1 and h.warnings
    with pytest.raises(ParseError):
        parse_hierarchy(doc, screen=(0, 100))


# --------------------------------------------------------------------------- hierarchy: round trip

_CLASSES = ["android.widget.TextView", "android.widget.EditText", "android.widget.Button", "android.view.View",
            "android.widget.Switch", "android.widget.AutoCompleteTextView", "android.widget.ImageView"]
_SPECIAL = ["", "Tom & Jerry", 'He said "hi"', "it's", "<b>bold</b>", "a\nb\tc\r\nd", "通讯录", "北极星-陈月慧",
            "😀🎉👍🏽", "⚙️ SETUP", "&#128512;", "&amp;", "]]>", "x=1, y=2"]
_text = st.one_of(st.sampled_from(_SPECIAL),
                  st.text(st.characters(blacklist_categories=("Cs",),
                                        blacklist_characters="".join(map(chr, [*range(0, 9), 11, 12, *range(14, 32),
                                                                               0xFFFE, 0xFFFF]))), max_size=30))


@st.composite
def _screens_and_elements(draw):  # type: ignore[no-untyped-def]
    w, h = draw(st.integers(50, 3200)), draw(st.integers(50, 3200))
    n = draw(st.integers(0, 12))
    els = []
    for i in range(n):
        l, t = draw(st.integers(0, w - 1)), draw(st.integers(0, h - 1))
        r, b = draw(st.integers(l + 1, w)), draw(st.integers(t + 1, h))
        cls = draw(st.sampled_from(_CLASSES))
        els.append(UIElement.from_px(
            i, (l, t, r, b), (w, h), text=draw(_text), content_desc=draw(_text), hint=draw(_text),
            resource_id=draw(st.sampled_from(["", "com.x:id/title", "android:id/button1"])), class_name=cls,
            package=draw(st.sampled_from(["com.tencent.mm", "com.android.settings"])),
            editable=is_editable_class(cls), clickable=draw(st.booleans()), long_clickable=draw(st.booleans()),
            checkable=draw(st.booleans()), checked=draw(st.booleans()), enabled=draw(st.booleans()),
            focused=draw(st.booleans()), scrollable=draw(st.booleans()), selected=draw(st.booleans()),
            password=draw(st.booleans())))
    return (w, h), draw(st.integers(0, 3)), draw(st.booleans()), els


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_screens_and_elements())
def test_hierarchy_xml_round_trip(case) -> None:  # type: ignore[no-untyped-def]
    screen, rotation, nest, els = case
    xml = to_hierarchy_xml(els, rotation, screen, nest=nest)
    h = parse_hierarchy(xml, screen=screen)
    assert h.rotation == rotation and not h.recovered
    assert [e.model_dump() for e in h.elements] == [e.model_dump() for e in els]
    # the same dump read without the screen size infers it from the top-level nodes
    assert parse_hierarchy(xml).node_count == len(els)


def test_round_trip_with_root_and_through_real_dump() -> None:
    els = [UIElement.from_px(0, (0, 100, 540, 200), (1080, 2400), text="Wi‑Fi & 蓝牙 😀",
                             class_name="android.widget.Switch", checkable=True, checked=True, clickable=True)]
    xml = to_hierarchy_xml(els, 0, (1080, 2400), wrap_root=True)
    assert xml.startswith("<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\"><node ")
    assert "&#128512;" in xml and "&amp;" in xml and 'visible-to-user="true"' in xml
    h = parse_hierarchy(xml)
    assert h.screen == (1080, 2400) and len(h.elements) == 2
    assert h.elements[1].model_dump() == els[0].model_copy(update={"index": 1}).model_dump()
    with pytest.raises(ValueError):
        to_hierarchy_xml(els, 4)
    with pytest.raises(ValueError):
        to_hierarchy_xml(els, 0, None, wrap_root=True)


@needs_real
def test_real_dumps_survive_write_and_read() -> None:
    for p in sorted((REAL / "hierarchy").glob("*.xml")):  # type: ignore[operator]
        h = parse_hierarchy(p.read_text("utf-8"))
        back = parse_hierarchy(to_hierarchy_xml(h.elements, h.rotation, h.screen), screen=h.screen)
        assert [e.model_dump() for e in back.elements] == [e.model_dump() for e in h.elements], p.name


@needs_real
def test_hierarchy_parse_is_fast() -> None:
    """Typical dumps must parse in a few ms (the observation loop runs it every step)."""
    worst = 0.0
    for p in sorted((REAL / "hierarchy").glob("*.xml")):  # type: ignore[operator]
        text = p.read_text("utf-8")
        parse_hierarchy(text)
        runs = []
        for _ in range(15):
            t0 = time.perf_counter()
            parse_hierarchy(text)
            runs.append(time.perf_counter() - t0)
        worst = max(worst, sorted(runs)[len(runs) // 2])
    # a generous bound for a loaded CI machine (typically < 50 ms): a pathological parser takes seconds
    assert worst < 0.5, f"median parse of the slowest dump took {worst * 1000:.1f} ms"


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


# --------------------------------------------------------------------------- s2r inspect

runner = CliRunner()
_ENV = {"COLUMNS": "240", "NO_COLOR": "1"}


def _inspect(*args: str):  # type: ignore[no-untyped-def]
    from s2r.cli import app

    return runner.invoke(app, ["inspect", *args], env=_ENV)


def _fixture_for(kind: str) -> Path:
    return next(p for p in FIXTURES if _expected_kind(p) == kind)


@pytest.mark.parametrize("kind", KINDS)
def test_inspect_each_kind_table_and_json(kind: str) -> None:
    path = _fixture_for(kind)
    res = _inspect(str(path))
    assert res.exit_code == 0, res.output
    assert kind in res.output and "(guessed)" in res.output
    res = _inspect(str(path), "--kind", kind, "--json")
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert data["kind"] == kind and data["guessed"] is False
    assert data["result"] == to_jsonable(parse_as(kind, path.read_text("utf-8")))


def test_inspect_table_content() -> None:
    res = _inspect(str(LOCAL / "hierarchy_handwritten_messages_compose_tty_surrogates_1080x2400.xml"))
    assert res.exit_code == 0
    assert "13 elements (of 15 nodes; 2 dropped)" in res.output
    assert "明天见 🎉" in res.output and "See you at 5, room=4B 😀" in res.output and "editable" in res.output
    res = _inspect(str(LOCAL / "dumpsys_window_handwritten_android13_ime_1080x2400.txt"))
    assert "com.google.android.apps.messaging (messages)" in res.output
    res = _inspect(str(LOCAL / "content_query_calendar_events_handwritten.txt"))
    assert "4 rows" in res.output and "周会" in res.output


@needs_real
def test_inspect_json_keeps_chinese_and_screen_option() -> None:
    path = REAL / "hierarchy" / "wechat_contacts_tab_chinese_1080x2210.xml"  # type: ignore[operator]
    res = _inspect(str(path), "--json", "--screen", "1080x2400")
    assert res.exit_code == 0
    data = json.loads(res.output)
    assert data["result"]["screen"] == [1080, 2400] and "通讯录" in res.output
    assert any(e["text"] == "北极星-陈月慧" for e in data["result"]["elements"])


def test_inspect_errors_exit_2(tmp_path: Path) -> None:
    def err(*args: str) -> str:
        r = _inspect(*args)
        assert r.exit_code == 2, r.output
        return r.output

    assert "no such file" in err(str(tmp_path / "missing.txt"))
    (tmp_path / "empty.txt").write_text("")
    assert "empty" in err(str(tmp_path / "empty.txt"))
    (tmp_path / "junk.txt").write_text("hello\nworld\n")
    assert "cannot tell which command" in err(str(tmp_path / "junk.txt"))
    (tmp_path / "bin.dat").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\xff\xfe\xfa")
    assert "not UTF-8" in err(str(tmp_path / "bin.dat"))
    wm = LOCAL / "wm_size_density_override_handwritten.txt"
    assert "not readable as hierarchy" in err(str(wm), "--kind", "hierarchy")
    assert "unknown --kind" in err(str(wm), "--kind", "bogus")
    xml = LOCAL / "hierarchy_handwritten_messages_compose_tty_surrogates_1080x2400.xml"
    assert "--screen must look like" in err(str(xml), "--screen", "big")
    assert "applies to --kind hierarchy" in err(str(wm), "--screen", "10x10")


def test_inspect_reads_utf16_capture(tmp_path: Path) -> None:
    p = tmp_path / "settings.txt"  # PowerShell's `adb shell settings list global > settings.txt`
    p.write_bytes("wifi_on=1\r\ndevice_name=Ada’s 手机\r\n".encode("utf-16"))
    res = _inspect(str(p), "--json")
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["result"] == {"wifi_on": "1", "device_name": "Ada’s 手机"}


def test_inspect_shows_markup_like_text_verbatim(tmp_path: Path) -> None:
    p = tmp_path / "[dump].xml"
    p.write_text('<hierarchy rotation="0"><node text="[/b] [bold]x[/bold]" class="android.widget.TextView" '
                 'bounds="[0,0][100,100]" /></hierarchy>', "utf-8")
    res = _inspect(str(p))
    assert res.exit_code == 0, res.output
    assert "[/b] [bold]x[/bold]" in res.output and "[dump].xml" in res.output
