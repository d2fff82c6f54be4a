"""The hierarchy parser (device/parsers/hierarchy.py) on real uiautomator dumps and their quirks:
non-ASCII text, zero-size nodes, blank and truncated dumps, and the XML writer's round trip."""

from __future__ import annotations

import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from actionmap.observation import UIElement
from device.parsers import ParseError, is_blank_dump, is_editable_class, parse_hierarchy, to_hierarchy_xml
from _android_fixtures import REAL, local, needs_real, real


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
