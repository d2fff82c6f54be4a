"""The Settings driver of the app UI layer reads every family's Settings right, by role.

Why: Settings is the app every phone ships, so its reading must be general — a row is a title
with its summary and its switch (inside the row, or on the same line), a page may carry a main
on/off bar, a list may be radio options — not fitted to one dump. The real dumps in
``tests/fixtures/real-apps`` (an OEM-skinned AOSP homepage, Samsung's Developer options in
Polish, MIUI's Preferred network type in Portuguese, served by com.android.phone) are read
against their ``.truth.json``, written by a person from the XML; the dumps in
``tests/fixtures/apps/settings/`` were written from AOSP's own layouts (the homepage, a
SettingsLib collapsing-toolbar page, the MainSwitchBar, a ListPreference dialog). Samsung and
MIUI keep AOSP's package name: without the manufacturer a family is taken only on its own marks.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from actionmap.observation import UIElement
from device.apps import driver, read_screen
from _appfixtures import elements as _elements

HERE = Path(__file__).parent
REAL = HERE / "fixtures" / "real-apps"
MINE = HERE / "fixtures" / "apps" / "settings"
TRUTHS = sorted(t for t in REAL.glob("*/*/*.truth.json") if json.loads(t.read_text("utf-8")).get("app") == "settings")



def _bounds(s: str) -> list[int]:
    return [int(x) for x in re.findall(r"-?\d+", s)]


def _el(i: int, b: tuple[int, int, int, int], pkg: str = "com.android.settings", **kw: Any) -> UIElement:
    return UIElement.from_px(i, b, (1080, 2400), package=pkg, **kw)


def _read(name: str, **kw: Any) -> Any:
    return read_screen(_elements(MINE / name), **kw)


# --- real dumps ---------------------------------------------------------------------------------------

def test_real_settings_dumps_are_present() -> None:
    assert {json.loads(t.read_text("utf-8"))["family"] for t in TRUTHS} >= {"aosp", "samsung", "xiaomi"}


@pytest.mark.parametrize("truth", TRUTHS, ids=[str(t.relative_to(REAL)) for t in TRUTHS])
def test_a_real_settings_dump_is_read_as_its_truth_says(truth: Path) -> None:
    t = json.loads(truth.read_text("utf-8"))
    r = read_screen(_elements(truth.with_name(truth.name.replace(".truth.json", ".xml"))))
    assert (r.package, r.app, r.family, r.screen) == (t["package"], "settings", t["family"], t["screen"]), r.problems
    # every control the truth lists: its role, at its bounds, and its state where it has one
    for c in t["controls"]:
        mine = [x for x in r.controls if x.role == c["role"] and x.bounds == _bounds(c["bounds"])]
        assert mine, f"{c['role']} at {c['bounds']} not found"
        if "checked" in c:
            assert mine[0].checked == c["checked"], c
    v, want = r.visible, t["visible"]
    assert v["title"] == want["title"]
    assert v["toggles"] == want["toggles"]
    if "entries" in want:  # the homepage: every entry's title and summary, top to bottom
        assert v["entries"] == [e["title"] for e in want["entries"]]
        assert [(x["title"], x["summary"]) for x in v["rows"]] == [(e["title"], e["summary"]) for e in want["entries"]]
    if "rows" in want:  # a page: each row's title, summary and switch (only rows that have one)
        assert v["rows"] == [{"title": x["title"], "summary": x["summary"], **({"switch": x["switch"]} if "switch" in x
                                                                              else {})} for x in want["rows"]]
    if "options" in want:
        assert v["options"] == want["options"]
        assert v["selected"] == want["selected"]


def test_the_main_switch_bar_is_not_a_rows_switch() -> None:
    """Samsung's main switch (com.android.settings:id/switch_widget in switch_bar) is the page's own,
    labelled by the page ('Opcje programisty, Włączony'), never one of the rows' switches."""
    xml = REAL / "samsung" / "settings" / "developer_options_pl_tablet.xml"
    r = read_screen(_elements(xml))
    main = [c for c in r.controls if c.role == "main_switch"]
    rows = [c for c in r.controls if c.role == "row_switch"]
    assert len(main) == 1 and main[0].resource_id == "com.android.settings:id/switch_widget"
    assert len(rows) == 6 and all(c.resource_id == "android:id/switch_widget" for c in rows)
    m = driver("settings").matcher(_elements(xml), "samsung", "com.android.settings")
    assert driver("settings").switch_for(m, "Opcje programisty").index == main[0].index
    assert driver("settings").switch_for(m, "Pokaż dotknięcia").bounds.top == 1642


def test_a_family_is_told_by_the_manufacturer_or_its_own_marks_never_guessed() -> None:
    d = driver("settings")
    samsung = _elements(REAL / "samsung" / "settings" / "developer_options_pl_tablet.xml")
    miui = _elements(REAL / "xiaomi" / "settings" / "preferred_network_type_miui_pt_br.xml")
    aosp = _elements(REAL / "aosp" / "settings" / "settings_home_oem_skin_1080x2400.xml")
    assert d.family_of("com.android.settings", None, samsung) == "samsung"
    assert d.family_of("com.android.settings", None, aosp) == "aosp"
    assert d.family_of("com.android.phone", None, miui) == "xiaomi"
    assert d.family_of("com.android.settings", "samsung") == "samsung"
    assert d.family_of("com.android.settings", "Xiaomi") == "xiaomi"
    # a Pixel's Settings is AOSP's package with Google's overlays: its family is told by the maker
    assert d.family_of("com.android.settings", "Google") == "google"
    assert d.family_of("com.android.settings", "Fairphone") == "aosp"
    # a Pixel's com.android.phone is not MIUI's, and unmarked it is no family's
    assert d.family_of("com.android.phone", "Google") is None
    assert d.family_of("com.android.phone", None, aosp) is None
    assert read_screen(samsung, manufacturer="samsung").family == "samsung"


# --- AOSP Settings, from its layouts -----------------------------------------------------------------------

def test_the_aosp_homepage() -> None:
    r = _read("aosp_homepage_1080x2400.xml")
    assert (r.app, r.family, r.screen) == ("settings", "aosp", "settings_home")
    assert r.visible["title"] == "Settings"
    assert r.visible["entries"] == ["Network & internet", "Connected devices", "Apps", "Notifications", "Battery",
                                    "Storage"]
    assert r.visible["rows"][1] == {"title": "Connected devices", "summary": "Bluetooth, pairing"}
    assert r.visible["toggles"] == {}
    by_role = {c.role: c for c in r.controls}
    assert by_role["search"].resource_id == "com.android.settings:id/search_action_bar"
    assert by_role["homepage_scroll"].resource_id == "com.android.settings:id/main_content_scrollable_container"


def test_a_page_reads_its_title_and_the_switch_on_each_row() -> None:
    r = _read("aosp_network_page_1080x2400.xml")
    assert (r.family, r.screen) == ("aosp", "settings_page")
    assert r.visible["title"] == "Network & internet"  # the collapsing toolbar's description
    assert r.visible["toggles"] == {"Airplane mode": False}
    assert r.visible["rows"][0] == {"title": "Internet", "summary": "AndroidWifi"}
    assert [c.content_desc for c in r.controls if c.role == "navigate_up"] == ["Navigate up"]


def test_a_main_switch_bar_and_switch_rows() -> None:
    r = _read("aosp_location_main_switch_1080x2400.xml")
    assert r.visible["title"] == "Location"
    assert r.visible["toggles"] == {"Use location (main switch)": True, "Use location for Wi‑Fi scanning": True,
                                    "Emergency Location Service": False}
    m = driver("settings").matcher(_elements(MINE / "aosp_location_main_switch_1080x2400.xml"), "aosp",
                                   "com.android.settings")
    sw = driver("settings").switch_for(m, "Use location")
    assert sw is not None and sw.checked and sw.bounds.top == 620
    assert driver("settings").summary_for(m, "Maps") == "2 min ago"


def test_a_list_preference_dialog_reads_its_options() -> None:
    r = _read("aosp_timeout_dialog_1080x2400.xml")
    assert (r.screen, r.visible["title"]) == ("settings_dialog", "Screen timeout")
    assert [o["label"] for o in r.visible["options"]][:3] == ["15 seconds", "30 seconds", "1 minute"]
    assert r.visible["selected"] == "30 seconds"
    assert [c.text for c in r.controls if c.role == "dialog_button"] == ["Cancel"]


def test_a_switch_is_paired_with_the_title_on_its_line_when_no_row_holds_them() -> None:
    """A compressed dump may drop the row containers: a title and a switch on one line still pair."""
    els = [_el(0, (0, 0, 1080, 2400), class_name="android.widget.FrameLayout"),
           _el(1, (0, 132, 1080, 300), class_name="android.widget.FrameLayout",
               resource_id="com.android.settings:id/collapsing_toolbar", content_desc="Display"),
           _el(2, (198, 400, 800, 460), class_name="android.widget.TextView", resource_id="android:id/title",
               text="Dark theme"),
           _el(3, (900, 410, 1018, 470), class_name="android.widget.Switch", resource_id="android:id/switch_widget",
               checkable=True, checked=True),
           _el(4, (198, 600, 800, 660), class_name="android.widget.TextView", resource_id="android:id/title",
               text="Screen timeout"),
           _el(5, (198, 660, 800, 710), class_name="android.widget.TextView", resource_id="android:id/summary",
               text="After 30 seconds of inactivity"),
           _el(6, (198, 800, 800, 860), class_name="android.widget.TextView", resource_id="android:id/title",
               text="Auto-rotate screen"),
           _el(7, (900, 795, 1018, 855), class_name="android.widget.CheckBox", resource_id="android:id/checkbox",
               checkable=True, checked=False)]
    r = read_screen(els)
    assert (r.family, r.screen, r.visible["title"]) == ("aosp", "settings_page", "Display")
    assert r.visible["toggles"] == {"Dark theme": True, "Auto-rotate screen": False}
    assert r.visible["rows"][1] == {"title": "Screen timeout", "summary": "After 30 seconds of inactivity"}


# --- what is not a Settings screen --------------------------------------------------------------------------

def test_an_unknown_app_that_looks_like_settings_is_not_read_as_settings() -> None:
    pkg = "com.example.prefs"
    els = [_el(0, (0, 0, 1080, 2400), pkg, class_name="android.widget.FrameLayout"),
           _el(1, (198, 400, 800, 460), pkg, class_name="android.widget.TextView", resource_id="android:id/title",
               text="Dark theme"),
           _el(2, (900, 410, 1018, 470), pkg, class_name="android.widget.Switch", checkable=True, checked=True)]
    r = read_screen(els)
    assert r.app is None and r.screen is None and pkg in r.problems[0]


def test_a_settings_screen_the_data_cannot_name_is_reported() -> None:
    els = [_el(0, (0, 0, 1080, 2400), class_name="android.widget.FrameLayout"),
           _el(1, (300, 1100, 780, 1300), class_name="android.widget.ProgressBar")]
    r = read_screen(els)
    assert r.app == "settings" and r.screen is None and r.visible == {} and "not recognised" in r.problems[0]


# --- the simulator's two flavors ----------------------------------------------------------------------------

@pytest.mark.parametrize("flavor", ["sim", "aosp", "google"])
def test_the_simulators_display_page_reads_the_worlds_toggles(flavor: str) -> None:
    pytest.importorskip("playwright")
    import sys

    sys.path.insert(0, str(HERE))
    from _simhelpers import fresh, run

    from actionmap.actions import Scroll
    from transfer.oracle.skills import settings as S

    env = fresh(flavor)
    try:
        run(env, S.open_settings)
        r = read_screen(env.observe().elements, app="settings", family=flavor)
        assert r.screen == "settings_home" and r.visible["title"] == "Settings", r.problems
        run(env, S.set_toggle, field="dark_mode", on=True)
        r = read_screen(env.observe().elements, app="settings", family=flavor)
        assert r.screen == "settings_page" and r.visible["title"] == "Display", r.problems
        toggles = dict(r.visible["toggles"])
        # the AOSP Display page is longer than a screen: what lies below the fold is read after a scroll
        toggles.update(read_screen(env.step(Scroll(direction="down"))[0].elements, app="settings",
                                   family=flavor).visible["toggles"])
        s = env.read_state().settings
        label = {"sim": "Dark mode", "aosp": "Dark theme", "google": "Dark theme"}[flavor]
        assert toggles[label] is s.dark_mode is True
        assert toggles["Auto-rotate screen"] == bool(s.auto_rotate)
        assert toggles["Adaptive brightness"] == bool(s.adaptive_brightness)
    finally:
        env.close()
