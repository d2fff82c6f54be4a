"""The Launcher driver of the app UI layer reads home screens right: the app icons a person sees on
the workspace and in the hotseat, in every family — and a home screen stays the launcher's even
with another app's widget on it.

Why: "go home", "open X from the home screen" and the teardown's check that the phone is back
home all see the launcher only through this driver. The real dumps (Pixel Launcher on an
Android 14 emulator; One UI with Samsung's Clock and Weather widgets, whose views belong to
com.sec.android.app.clockpackage and com.sec.android.daemonapp) are read against their
``.truth.json``; ``tests/fixtures/apps/launcher/`` holds dumps written from Launcher3's own
layouts (launcher.xml, folder_icon.xml, the all-apps list).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from actionmap.observation import UIElement
from device.apps import read_screen
from _appfixtures import elements as _elements

HERE = Path(__file__).parent
REAL = HERE / "fixtures" / "real-apps"
MINE = HERE / "fixtures" / "apps" / "launcher"
TRUTHS = sorted(t for t in REAL.glob("*/*/*.truth.json") if json.loads(t.read_text("utf-8")).get("app") == "launcher")



def _bounds(s: str) -> list[int]:
    return [int(x) for x in re.findall(r"-?\d+", s)]


def _el(i: int, b: tuple[int, int, int, int], pkg: str, **kw: Any) -> UIElement:
    return UIElement.from_px(i, b, (1080, 2400), package=pkg, **kw)


# --- real dumps ---------------------------------------------------------------------------------------

def test_real_launcher_dumps_are_present() -> None:
    assert {json.loads(t.read_text("utf-8"))["family"] for t in TRUTHS} >= {"google", "samsung"}


@pytest.mark.parametrize("truth", TRUTHS, ids=[str(t.relative_to(REAL)) for t in TRUTHS])
def test_a_real_home_screen_is_read_as_its_truth_says(truth: Path) -> None:
    t = json.loads(truth.read_text("utf-8"))
    r = read_screen(_elements(truth.with_name(truth.name.replace(".truth.json", ".xml"))))
    assert (r.package, r.app, r.family, r.screen) == (t["package"], "launcher", t["family"], t["screen"]), r.problems
    for c in t["controls"]:
        assert any(x.role == c["role"] and x.bounds == _bounds(c["bounds"]) for x in r.controls), c
    v, want = r.visible, t["visible"]
    assert v["hotseat"] == want["hotseat"]
    assert v["workspace_icons"] == want.get("workspace_icons", [])
    assert v["apps"] == want.get("workspace_icons", []) + want["hotseat"]
    if "smartspace_date" in want:
        assert v["smartspace_date"] == want["smartspace_date"]
    assert v["search_bar"] == bool(want.get("search_bar"))


def test_the_hotseat_is_not_part_of_the_workspace_page() -> None:
    """Pixel's workspace ScrollView spans the whole screen: its icons are only the page's, not the dock's."""
    r = read_screen(_elements(REAL / "google" / "launcher" / "pixel_launcher_home_sdk34_1080x2400.xml"))
    icons = [c.text for c in r.controls if c.role == "app_icon"]
    assert "Phone" not in icons and "Chrome" not in icons and len(icons) == 10
    assert "Sun, Jun 14" not in r.visible["apps"]  # the smartspace date is a clickable text, not an icon
    assert [c.content_desc for c in r.controls if c.role == "hotseat_prediction"] == ["Predicted app: Mattermost"]


def test_a_samsung_home_with_a_clock_widget_is_the_launcher_not_the_clock() -> None:
    els = _elements(REAL / "samsung" / "launcher" / "oneui_home_clock_weather_widgets_720.xml")
    r = read_screen(els)
    assert (r.app, r.package, r.screen) == ("launcher", "com.sec.android.app.launcher", "launcher_home")
    assert r.visible["widgets"] == ["Digital clock", "Weather"]
    # the widgets' texts (00:22, Thursday, 28°) are no app icons
    assert r.visible["apps"] == ["Phone", "Messages", "Browser", "Camera"]
    assert read_screen(els, app="clock").screen is None


# --- AOSP Launcher3, from its layouts ------------------------------------------------------------------------

def test_the_aosp_home_screen_with_a_deskclock_widget() -> None:
    r = read_screen(_elements(MINE / "aosp_home_with_clock_widget_1080x2400.xml"))
    assert (r.package, r.app, r.family, r.screen) == ("com.android.launcher3", "launcher", "aosp", "launcher_home")
    assert r.visible["workspace_icons"] == ["Calendar", "Camera", "Files", "Gallery", "Settings"]
    assert r.visible["hotseat"] == ["Phone", "Messages", "Chrome", "Contacts"]
    assert r.visible["folders"] == ["Google"]
    assert r.visible["widgets"] == ["Clock"]
    assert "10:42" not in r.visible["apps"] and "Google" not in r.visible["apps"]
    assert [c.bounds for c in r.controls if c.role == "folder_icon"] == [[57, 1483, 267, 1755]]


def test_the_aosp_all_apps_drawer() -> None:
    r = read_screen(_elements(MINE / "aosp_all_apps_1080x2400.xml"))
    assert (r.family, r.screen) == ("aosp", "app_drawer")
    assert r.visible["apps"] == ["Calculator", "Calendar", "Camera", "Chrome", "Clock", "Contacts", "Files", "Gallery",
                                 "Messages", "Phone", "Settings"]
    assert [c.resource_id for c in r.controls if c.role == "all_apps_search"] == \
        ["com.android.launcher3:id/search_container_all_apps"]


# --- what is not a home screen ------------------------------------------------------------------------------

def test_an_unknown_launcher_is_not_guessed() -> None:
    pkg = "com.example.home"
    els = [_el(0, (0, 0, 1080, 2400), pkg, class_name="android.widget.FrameLayout"),
           _el(1, (0, 0, 1080, 2400), pkg, class_name="android.widget.ScrollView", resource_id=f"{pkg}:id/workspace"),
           _el(2, (57, 855, 267, 1127), pkg, class_name="android.widget.TextView", text="Mail", clickable=True)]
    r = read_screen(els)
    assert r.app is None and r.screen is None and pkg in r.problems[0]


def test_a_launcher_screen_without_workspace_or_drawer_is_reported() -> None:
    pkg = "com.android.launcher3"
    els = [_el(0, (0, 0, 1080, 2400), pkg, class_name="android.widget.FrameLayout"),
           _el(1, (100, 900, 980, 1100), pkg, class_name="android.widget.TextView", text="Loading…")]
    r = read_screen(els)
    assert r.app == "launcher" and r.screen is None and "not recognised" in r.problems[0]


# --- the simulator (the same launcher in both flavors) ---------------------------------------------------------

@pytest.mark.parametrize("flavor", ["sim", "aosp"])
def test_the_simulators_home_screen(flavor: str) -> None:
    pytest.importorskip("playwright")
    import sys

    sys.path.insert(0, str(HERE))
    from _simhelpers import fresh

    env = fresh(flavor)
    try:
        obs = env.observe()
        for family in ("sim", "aosp"):  # the sim's own data, and AOSP's as the virtual phone reads it
            r = read_screen(obs.elements, app="launcher", family=family)
            assert r.screen == "launcher_home", r.problems
            assert r.visible["hotseat"] == ["Phone", "Messages", "Clock", "Settings"]
            assert {"Contacts", "Calendar", "Calculator", "Files"} <= set(r.visible["workspace_icons"])
            assert not set(r.visible["workspace_icons"]) & set(r.visible["hotseat"])
    finally:
        env.close()
