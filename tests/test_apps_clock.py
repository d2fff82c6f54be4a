"""The Clock driver reads real and AOSP-modelled Clock screens right, and the oracle's Clock skills
find every control through it.

Why: what the oracle, the UI probes and teardown know of a phone's Clock is what
``device.apps`` reads off its screens — alarms (time, on/off, label, repeat days), the time
picker, the tabs — in each family's own layout. The real Google Clock dumps
(``fixtures/real-apps/google/clock``, with truth written by a person) and small dumps modelled
on AOSP DeskClock's own layouts (``fixtures/apps/clock``, each citing the layout files it
follows) are the evidence; a screen no family describes must be reported as unknown, never
guessed. The truth's wording ('8:25 AM', 'Mon, Tue') is converted by code of this file, not the
driver's, so a reader bug cannot hide behind the same bug here.
"""

from __future__ import annotations

import io
import json
import re
import tokenize
from pathlib import Path
from typing import Any

import pytest

from actionmap.actions import Tap, TypeText
from actionmap.observation import Foreground, Observation, Screen, UIElement
from device.apps import driver, read_screen
from device.apps.clock import ClockDriver
from device.apps.spec import load_spec
from _appfixtures import drive as _drive
from _appfixtures import elements as _elements

ROOT = Path(__file__).parent.parent
FIXTURES = Path(__file__).parent / "fixtures"
REAL = FIXTURES / "real-apps"
TRUTHS = sorted(REAL.glob("*/clock/*.truth.json"))
OWN = FIXTURES / "apps" / "clock"
PKG = "com.android.deskclock"

# the truth files' role names → ours where they differ
ROLE_ALIASES = {"add_alarm_fab": "add_alarm", "label": "alarm_label", "ok": "time_picker_ok",
                "cancel": "time_picker_cancel"}
# the truth names an expanded alarm list a screen of its own; ours is the alarm list
SCREEN_ALIASES = {"alarm_list_expanded": "alarm_list"}
_WEEK = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
_ABBR = {"sun": "sun", "mon": "mon", "tue": "tue", "wed": "wed", "thu": "thu", "fri": "fri", "sat": "sat"}



def _bounds(s: str) -> list[int]:
    return [int(x) for x in re.findall(r"-?\d+", s)]


def _truth_time(s: str) -> str:
    m = re.fullmatch(r"(\d{1,2}):(\d{2})\s*([AP]M)?", re.sub(r"[\u200a\u202f\u00a0]", " ", s).strip())
    assert m, s
    h, mi = int(m.group(1)), int(m.group(2))
    if m.group(3):
        h = h % 12 + (12 if m.group(3) == "PM" else 0)
    return f"{h:02d}:{mi:02d}"


def _truth_days(a: dict[str, Any]) -> list[str] | None:
    """From the collapsed summary ('Sun, Mon, Sat'), the expanded card's checked day buttons, or
    its repeat summary ('Tomorrow' names no day)."""
    if "days" in a:
        return sorted((_ABBR[p.strip().lower()[:3]] for p in a["days"].split(",")), key=_WEEK.index)
    if a.get("repeat_days_checked"):
        return sorted((_ABBR[d.lower()[:3]] for d in a["repeat_days_checked"]), key=_WEEK.index)
    summary = a.get("repeat_summary", "")
    parts = [p.strip().lower()[:3] for p in summary.split(",") if p.strip()]
    if parts and all(p in _ABBR for p in parts):
        return sorted(parts, key=_WEEK.index)
    return None


def _truth_label(a: dict[str, Any]) -> str | None:
    if a.get("label_desc") == "No label specified" or a.get("label") in (None, "", "Add label"):
        return None
    return a["label"]


# --- (1) the real Google Clock dumps ----------------------------------------------------------

def test_the_real_clock_fixtures_are_there() -> None:
    assert len(TRUTHS) >= 6, f"no Clock truth files under {REAL}"


@pytest.mark.parametrize("truth", TRUTHS, ids=[t.name.replace(".truth.json", "") for t in TRUTHS])
def test_a_real_clock_dump_is_read_right(truth: Path) -> None:
    t = json.loads(truth.read_text("utf-8"))
    r = read_screen(_elements(truth.with_name(truth.name.replace(".truth.json", ".xml"))))
    assert (r.package, r.app, r.family) == (t["package"], "clock", t["family"])
    assert r.screen == SCREEN_ALIASES.get(t["screen"], t["screen"]), r.problems
    # every control the truth lists, with its role, at its bounds (and its checked state)
    have = {(c.role, tuple(c.bounds)): c for c in r.controls}
    for c in t["controls"]:
        key = (ROLE_ALIASES.get(c["role"], c["role"]), tuple(_bounds(c["bounds"])))
        assert key in have, f"not found: {c}"
        if "checked" in c:
            assert have[key].checked == c["checked"], c
    # what a person reads there
    v, want = r.visible, t["visible"]
    if "alarms" in want:
        assert [(a["time"], a["enabled"], a["label"], a["days"], a["expanded"]) for a in v["alarms"]] == \
            [(_truth_time(a["time"]), a["enabled"], _truth_label(a), _truth_days(a), a["expanded"])
             for a in want["alarms"]]
    if "title" in want:
        assert v["title"] == want["title"]
    if "tabs" in want:
        if isinstance(want["tabs"][0], dict):
            assert v["tabs"] == want["tabs"]
        else:  # the sound picker's tabs: labels, and which one is selected
            assert [x["label"] for x in v["tabs"]] == want["tabs"]
            assert [x["label"] for x in v["tabs"] if x["selected"]] == [want["selected_tab"]]
    for key in ("hour", "minute", "period", "sounds", "selected_sound", "apps"):
        if key in want:
            assert v[key] == want[key], key


def test_an_expanded_google_card_is_found_by_its_time_and_missing_label() -> None:
    """The new alarm's card is expanded: its label row reads 'Add label' / 'No label specified'."""
    els = _elements(REAL / "google/clock/alarm_expanded_new_sdk34_1080x2400.xml")
    drv = driver("clock")
    assert isinstance(drv, ClockDriver)
    m = drv.matcher(els, "google", "com.google.android.deskclock")
    card = drv.card_for(m, 8, 25, "")
    assert card is not None and m.first("collapse_alarm", within=card) is not None
    assert drv.card_for(m, 8, 25, "Add label") is None
    assert [ClockDriver.day_of(e) for e in m.all_in("day_toggle", card)] == \
        ["sun", "mon", "tue", "wed", "thu", "fri", "sat"]
    assert m.first("tab_alarm") is not None and m.first("tab_alarm").selected


# --- (2) dumps modelled on AOSP DeskClock's layouts -------------------------------------------

def _aosp(name: str) -> tuple[ClockDriver, Any, list[UIElement]]:
    els = _elements(OWN / name)
    drv = driver("clock")
    assert isinstance(drv, ClockDriver)
    return drv, drv.matcher(els, "aosp", PKG), els


def test_aosp_collapsed_cards() -> None:
    r = read_screen(_elements(OWN / "aosp_alarm_list_collapsed.xml"))
    assert (r.family, r.screen) == ("aosp", "alarm_list")
    assert [(a["time"], a["enabled"], a["label"], a["days"], a["expanded"]) for a in r.visible["alarms"]] == [
        ("06:30", True, "Gym", ["mon", "wed", "fri"], False),
        ("08:00", False, None, None, False),
        ("21:45", True, "Read", list(_WEEK), False)]
    assert r.visible["title"] == "Alarm"
    assert r.visible["tabs"] == [{"label": x, "selected": x == "Alarm"} for x in ("Alarm", "Clock", "Timer", "Stopwatch")]
    roles = {(c.role, tuple(c.bounds)) for c in r.controls}
    assert ("add_alarm", (414, 1938, 666, 2190)) in roles
    drv, m, _ = _aosp("aosp_alarm_list_collapsed.xml")
    gym = drv.card_for(m, 6, 30, "Gym")
    assert gym is not None and gym.content_desc == "6:30 AM Gym"
    assert drv.card_for(m, 8, 0, "") is not None and drv.card_for(m, 8, 0, "Gym") is None
    assert drv.card_for(m, 21, 45) is not None and drv.card_for(m, 9, 45) is None
    for key in ("alarm", "clock", "timer", "stopwatch"):
        assert m.first(f"tab_{key}").content_desc == load_spec("clock").families["aosp"].texts["tabs"][key]


def test_aosp_expanded_card_is_read_and_refound_by_its_label() -> None:
    """An expanded card shows its label as edit_label (no 'label' view): a re-find by label works."""
    r = read_screen(_elements(OWN / "aosp_alarm_expanded.xml"))
    assert [(a["time"], a["enabled"], a["label"], a["days"], a["expanded"]) for a in r.visible["alarms"]] == [
        ("06:30", True, "Gym", ["mon", "wed", "fri"], False),
        ("07:15", False, "Yoga", ["tue", "thu"], True)]
    drv, m, _ = _aosp("aosp_alarm_expanded.xml")
    yoga = drv.card_for(m, 7, 15, "Yoga")
    assert yoga is not None and m.first("collapse_alarm", within=yoga) is not None
    assert m.first("alarm_label", within=yoga).resource_id.endswith("/edit_label")
    assert m.first("edit_label", within=yoga) is not None and m.first("delete", within=yoga) is not None
    toggles = m.all_in("day_toggle", yoga)
    assert [ClockDriver.day_of(e) for e in toggles if e.checked] == ["tue", "thu"] and len(toggles) == 7
    assert m.first("vibrate").checked is True
    assert drv.card_for(m, 6, 30, "Gym") is not None and drv.card_for(m, 6, 30, "Yoga") is None


def test_aosp_new_alarm_expanded_without_label() -> None:
    r = read_screen(_elements(OWN / "aosp_alarm_new_expanded.xml"))
    assert [(a["time"], a["label"], a["days"], a["expanded"]) for a in r.visible["alarms"]] == [
        ("07:00", None, None, True), ("21:45", "Read", list(_WEEK), False)]
    drv, m, _ = _aosp("aosp_alarm_new_expanded.xml")
    assert drv.card_for(m, 7, 0, "") is not None and drv.card_for(m, 7, 0, "Add label") is None


def test_aosp_clock_tab_is_no_alarm_list() -> None:
    """The Clock tab's big digital_clock is the phone's time, not an alarm; cities are read by row."""
    r = read_screen(_elements(OWN / "aosp_clock_tab.xml"))
    assert (r.family, r.screen) == ("aosp", "world_clock")
    assert "alarms" not in r.visible
    drv, m, _ = _aosp("aosp_clock_tab.xml")
    assert drv.alarms(m) == [] and m.find("alarm_card") == []
    rows = {m.first("city_name", within=row).text: m.first("city_time", within=row).text
            for row in m.find("city_row") if m.first("city_name", within=row) is not None}
    assert rows == {"London": "6:42 PM", "Tokyo": "2:42 AM"}
    assert m.first("next_alarm").text == "Wed 6:30 AM"
    assert m.first("add_city").content_desc == "Cities"
    assert m.first("tab_clock").selected and not m.first("tab_alarm").selected


def test_aosp_time_picker_clock_mode() -> None:
    r = read_screen(_elements(OWN / "aosp_time_picker.xml"))
    assert (r.screen, r.visible["hour"], r.visible["minute"], r.visible["period"]) == ("time_picker", "6", "30", "AM")
    _, m, _ = _aosp("aosp_time_picker.xml")
    assert m.first("time_picker_ok").text == "OK" and m.first("time_picker_ok").resource_id == "android:id/button1"
    assert m.first("time_picker_cancel").text == "Cancel"
    assert m.first("input_mode_toggle") is not None and m.first("input_hour") is None
    assert m.find("alarm_card") == []


def test_aosp_time_picker_keyboard_mode() -> None:
    r = read_screen(_elements(OWN / "aosp_time_picker_keyboard.xml"))
    assert (r.screen, r.visible["hour"], r.visible["minute"], r.visible["period"]) == ("time_picker", "6", "30", "AM")
    _, m, _ = _aosp("aosp_time_picker_keyboard.xml")
    assert m.first("input_hour").text == "6" and m.first("input_minute").text == "30"
    assert m.first("am") is None and m.first("pm") is None and m.first("am_pm_spinner") is not None
    assert m.first("label_field") is None  # the picker's number fields are no label field


def test_aosp_label_dialog() -> None:
    r = read_screen(_elements(OWN / "aosp_label_dialog.xml"))
    assert r.screen == "label_dialog"
    _, m, _ = _aosp("aosp_label_dialog.xml")
    assert m.first("label_field").text == "Gym" and m.first("label_field").resource_id == ""
    assert m.first("label_ok").text == "OK" and m.first("label_ok").resource_id == "android:id/button1"


# --- (2b) the simulator's aosp flavor as the virtual phone serves it ---------------------------
# (``fixtures/apps/clock/virtual_aosp_*.xml``): read with AOSP DeskClock's own selectors — the
# aosp family keeps no simulator fallback but the timer cards'.

def _virtual(name: str) -> list[UIElement]:
    return _elements(OWN / f"virtual_aosp_{name}_1080x2400.xml")


def test_the_aosp_family_keeps_no_simulator_fallback_but_the_timer_cards() -> None:
    """The timer cards are still the simulator's; the `alarm_item` card fallbacks serve only
    tests/test_device_safety.py's hand-made screens (the simulator shows AOSP's id-less cards)."""
    aosp = load_spec("clock").families["aosp"]
    left = sorted({role for role, sels in aosp.roles.items() for s in sels if "until made exact" in (s.cite or "")})
    assert left == ["alarm_card", "alarm_time", "sim_alarm_item", "timer_card", "timer_delete", "timer_pause",
                    "timer_resume"]
    assert not [e for e in _virtual("alarm_list") if e.resource_id.endswith(":id/alarm_item")]
    assert "tab_bedtime" not in aosp.roles and "bedtime" not in aosp.texts["tabs"]


def test_the_simulators_aosp_alarm_list() -> None:
    r = read_screen(_virtual("alarm_list"))
    assert (r.package, r.family, r.screen) == (PKG, "aosp", "alarm_list")
    assert [(a["time"], a["enabled"], a["label"], a["days"], a["expanded"]) for a in r.visible["alarms"]] == [
        ("06:45", True, "Wake up", _WEEK[:5], False), ("07:15", False, "Yoga", ["tue", "thu"], False),
        ("08:00", False, None, ["sat", "sun"], False), ("21:45", True, "Read", list(_WEEK), False)]
    assert r.visible["title"] == "Alarm"
    assert r.visible["tabs"] == [{"label": x, "selected": x == "Alarm"} for x in ("Alarm", "Clock", "Timer", "Stopwatch")]
    drv, m, _ = _aosp_els(_virtual("alarm_list"))
    assert m.first("alarm_list").resource_id == f"{PKG}:id/alarms_recycler_view"
    yoga = drv.card_for(m, 7, 15, "Yoga")
    assert yoga is not None and (yoga.resource_id, yoga.content_desc) == ("", "07:15 Yoga")
    assert drv.card_for(m, 8, 0, "") is not None and drv.card_for(m, 8, 0).content_desc == "08:00 Alarm"
    assert m.first("alarm_label", within=yoga).content_desc == "Label Yoga"
    assert m.first("add_alarm").resource_id == f"{PKG}:id/fab"
    for key, page in (("alarm", "page_alarm"), ("clock", "page_clock"), ("timer", "page_timer"),
                      ("stopwatch", "page_stopwatch")):
        assert m.first(f"tab_{key}").resource_id == f"{PKG}:id/{page}"


def test_the_simulators_aosp_expanded_card() -> None:
    r = read_screen(_virtual("alarm_expanded"))
    assert [(a["time"], a["label"], a["days"], a["expanded"]) for a in r.visible["alarms"]][:3] == [
        ("06:45", "Wake up", _WEEK[:5], False), ("07:15", "Yoga", ["tue", "thu"], True), ("08:00", None, ["sat", "sun"], False)]
    drv, m, _ = _aosp_els(_virtual("alarm_expanded"))
    yoga = drv.card_for(m, 7, 15, "Yoga")
    assert yoga is not None and m.first("collapse_alarm", within=yoga) is not None
    assert m.first("alarm_label", within=yoga).resource_id.endswith("/edit_label")
    toggles = m.all_in("day_toggle", yoga)
    assert [e.class_name for e in toggles] == ["android.widget.CheckBox"] * 7
    assert [ClockDriver.day_of(e) for e in toggles] == ["sun", "mon", "tue", "wed", "thu", "fri", "sat"]
    assert [ClockDriver.day_of(e) for e in toggles if e.checked] == ["tue", "thu"]
    assert m.first("vibrate", within=yoga).checked and m.first("delete", within=yoga).text == "Delete"
    assert m.first("ringtone", within=yoga).content_desc == "Ringtone Default (Cesium)"


def test_the_simulators_aosp_time_picker_is_the_frameworks() -> None:
    r = read_screen(_virtual("time_picker"))
    assert (r.screen, r.visible["hour"], r.visible["minute"], r.visible["period"]) == ("time_picker", "09", "30", None)
    _, m, _ = _aosp_els(_virtual("time_picker"))
    assert m.first("time_picker").resource_id == "android:id/time_header"
    assert (m.first("time_picker_ok").resource_id, m.first("time_picker_cancel").resource_id) == \
        ("android:id/button1", "android:id/button2")
    ok, cancel = m.first("time_picker_ok"), m.first("time_picker_cancel")
    assert cancel.bounds.left < ok.bounds.left  # AlertDialog order: negative, then positive
    assert m.first("clock_face").resource_id == "android:id/radial_picker" and m.first("input_hour") is None
    assert m.first("input_mode_toggle").content_desc == "Switch to text input mode for the time input."
    r = read_screen(_virtual("time_picker_keyboard"))
    assert (r.screen, r.visible["hour"], r.visible["minute"]) == ("time_picker", "9", "30")
    _, m, _ = _aosp_els(_virtual("time_picker_keyboard"))
    assert m.first("input_hour").resource_id == "android:id/input_hour" and m.first("label_field") is None
    assert m.first("am_pm_spinner") is None  # a 24-hour clock: the spinner is INVISIBLE


def test_the_simulators_aosp_label_dialog() -> None:
    r = read_screen(_virtual("label_dialog"))
    assert r.screen == "label_dialog"
    _, m, _ = _aosp_els(_virtual("label_dialog"))
    field = m.first("label_field")
    assert (field.text, field.resource_id, field.class_name) == ("Yoga", "", "android.widget.EditText")
    assert (m.first("label_ok").text, m.first("label_ok").resource_id) == ("OK", "android:id/button1")


def test_the_simulators_aosp_clock_tab_and_city_picker() -> None:
    r = read_screen(_virtual("clock_tab"))
    assert (r.family, r.screen) == ("aosp", "world_clock") and "alarms" not in r.visible
    _, m, _ = _aosp_els(_virtual("clock_tab"))
    rows = {m.first("city_name", within=row).text: m.first("city_time", within=row).text
            for row in m.find("city_row") if m.first("city_name", within=row) is not None}
    assert rows == {"London": "09:30", "New York": "04:30"}
    assert m.first("next_alarm").text == "Mon 21:45" and m.first("add_city").content_desc == "Cities"
    assert m.first("scroll_list").resource_id == f"{PKG}:id/cities"
    r = read_screen(_virtual("city_picker"))
    assert (r.family, r.screen) == ("aosp", "city_picker")
    _, m, _ = _aosp_els(_virtual("city_picker"))
    boxes = {e.content_desc: e.checked for e in m.find("city_checkbox")}
    assert boxes["London"] and boxes["New York"] and boxes["Abidjan"] is False
    assert m.first("city_search").resource_id == f"{PKG}:id/search_button"
    assert m.first("scroll_list").resource_id == f"{PKG}:id/cities_list"


def test_the_time_picker_skill_on_the_simulators_aosp_picker() -> None:
    """24-hour clock mode → the keyboard toggle → hour, minute → OK (no AM/PM)."""
    from transfer.oracle.base import Ctx
    from transfer.oracle.skills.clock import alarms as C

    clock_mode, keyboard = _virtual("time_picker"), _virtual("time_picker_keyboard")
    after = _virtual("alarm_list")
    ctx = Ctx(obs=_obs(clock_mode), flavor="aosp", families={"clock": "aosp"})
    idx = {e.resource_id: e.index for e in keyboard}
    actions, _ = _drive(C._fill_time_picker(ctx, 18, 5), [_obs(keyboard)] * 5 + [_obs(after)])
    toggle = next(e for e in clock_mode if e.resource_id == "android:id/toggle_mode")
    assert actions == [
        Tap(target=toggle.index),
        Tap(target=idx["android:id/input_hour"]), TypeText(text="18", clear=True, submit=False),
        Tap(target=idx["android:id/input_minute"]), TypeText(text="05", clear=True, submit=False),
        Tap(target=idx["android:id/button1"])]


def _aosp_els(els: list[UIElement]) -> tuple[ClockDriver, Any, list[UIElement]]:
    drv = driver("clock")
    assert isinstance(drv, ClockDriver)
    return drv, drv.matcher(els, "aosp", PKG), els


# --- (3) unknown screens are reported, never guessed ------------------------------------------

def _el(i: int, b: tuple[int, int, int, int], **kw: Any) -> UIElement:
    return UIElement.from_px(i, b, (1080, 2400), **kw)


def test_a_foreign_clock_app_is_not_recognised() -> None:
    foreign = [_el(0, (0, 0, 1080, 2400), package="com.example.clock", class_name="android.widget.FrameLayout"),
               _el(1, (0, 200, 1080, 2000), package="com.example.clock",
                   class_name="androidx.recyclerview.widget.RecyclerView", scrollable=True),
               _el(2, (40, 240, 500, 400), package="com.example.clock", text="7:30 AM"),
               _el(3, (900, 280, 1040, 380), package="com.example.clock", class_name="android.widget.Switch",
                   checkable=True, checked=True)]
    r = read_screen(foreign)
    assert r.screen is None and r.app is None and "com.example.clock" in r.problems[0]


def test_an_unknown_screen_of_the_clock_is_not_guessed() -> None:
    """AOSP DeskClock's Settings (a preference list) is none of the screens the data describes."""
    settings = [_el(0, (0, 0, 1080, 2400), package=PKG, class_name="android.widget.FrameLayout"),
                _el(1, (0, 210, 1080, 2400), package=PKG, class_name="androidx.recyclerview.widget.RecyclerView",
                    resource_id="com.android.deskclock:id/recycler_view", scrollable=True),
                _el(2, (63, 260, 900, 320), package=PKG, text="Style", resource_id="android:id/title"),
                _el(3, (63, 320, 900, 380), package=PKG, text="Digital", resource_id="android:id/summary"),
                _el(4, (63, 420, 900, 480), package=PKG, text="Silence after", resource_id="android:id/title"),
                _el(5, (63, 480, 900, 540), package=PKG, text="10 minutes", resource_id="android:id/summary")]
    r = read_screen(settings)
    assert (r.app, r.family, r.screen) == ("clock", "aosp", None) and r.problems


# --- the data: every phone family's selector is cited; the sim family covers the skills --------

def test_every_selector_of_a_phone_family_is_cited() -> None:
    spec = load_spec("clock")
    uncited = [(fam, role) for fam in ("aosp", "google", "samsung", "xiaomi", "sim")
               for role, sels in spec.families[fam].roles.items() for s in sels if not s.cite]
    assert not uncited, uncited


def test_the_google_family_cites_google_clock_evidence_not_the_simulator() -> None:
    """Google Clock's selectors are evidence about real Pixels: each names one of the data's
    evidence keys, none the simulator; where only DeskClock's source shows a control it says so."""
    google = load_spec("clock").families["google"]
    keys = ("WW", "MDC", "AW", "TC", "DC-ANC", "EVIDENCE.md")
    cites = [(role, s.cite or "") for role, sels in google.roles.items() for s in sels]
    assert [c for c in cites if not c[1].startswith(keys) or "simulator" in c[1] or "SIM " in c[1]] == []
    assert {role for role, c in cites if c.startswith("DC-ANC")} == {"add_timer", "timer_label"}
    assert set(google.evidence) >= {"WW", "MDC110", "AW", "TC", "DC-ANC"}


# --- the oracle's skills go through the layer -------------------------------------------------

SKILL_FILES = [*sorted((ROOT / "transfer/oracle/skills/clock").glob("*.py")),
               ROOT / "transfer/oracle/solutions/clock.py"]


# strings a skill may hold although the data has them too: the 12-hour format ``time_texts``
# validates times with, and parameter names in error messages
NOT_CONTROLS = {"AM", "PM", "hours", "minutes"}


def _strings(path: Path) -> set[str]:
    """The module's plain string literals, leaving out subscripts (``inst.params["label"]``)."""
    out = set()
    prev = None
    for tok in tokenize.generate_tokens(io.StringIO(path.read_text("utf-8")).readline):
        if tok.type == tokenize.STRING and not tok.string.startswith(('"""', "'''", 'f"', "f'")) and \
                not (prev is not None and prev.string == "["):
            out.add(tok.string[1:-1])
        if tok.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT):
            prev = tok
    return out - NOT_CONTROLS


@pytest.mark.parametrize("path", SKILL_FILES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_the_clock_skills_hold_no_id_or_label_literal(path: Path) -> None:
    """Every resource id, description and text the data selects by stays in the data: a skill names
    roles and wording keys only, and has no two-flavor wording or flavor branch left."""
    spec = load_spec("clock")
    keys = {r for f in spec.families.values() for r in f.roles} | {k for f in spec.families.values() for k in f.texts}
    values = set()
    for fam in spec.families.values():
        for sels in fam.roles.values():
            for s in sels:
                values |= {v for v in (s.rid, s.desc, s.text, s.label) if v}
                values |= {v.rsplit("/", 1)[-1] for v in (s.rid,) if v and ":id/" in v}
        for v in fam.texts.values():
            values |= set(v.values()) if isinstance(v, dict) else set(v) if isinstance(v, list) else set()
    found = sorted(s for s in _strings(path) if s in values and s not in keys)
    assert not found, f"literals the data owns, in {path.name}: {found}"
    src = path.read_text("utf-8")
    for pattern in (r"\bctx\.t\(", r"\bctx\.flavor\b", r"\brid=", r"\bdesc=", r"\bctx\.(find|find_all|has)\("):
        assert not re.search(pattern, src), (path.name, pattern)




def _obs(els: list[UIElement]) -> Observation:
    return Observation(screen=Screen(width=1080, height=2400), elements=els, image_format="none",
                       foreground=Foreground(app="clock", package=PKG))


def test_the_skills_refind_an_expanded_labelled_aosp_card_without_scrolling() -> None:
    from transfer.oracle.base import Ctx
    from transfer.oracle.skills.clock import alarms as C

    els = _elements(OWN / "aosp_alarm_expanded.xml")
    ctx = Ctx(obs=_obs(els), flavor="aosp", families={"clock": "aosp"})
    actions, card = _drive(C.find_alarm(ctx, 7, 15, "Yoga"), [])
    assert actions == [] and card is not None and card.content_desc == "7:15 AM Yoga"


def test_the_time_picker_skill_types_into_aosps_framework_picker() -> None:
    """Clock mode → the keyboard toggle → hour, minute, the AM/PM spinner's item → OK."""
    from transfer.oracle.base import Ctx
    from transfer.oracle.skills.clock import alarms as C

    clock_mode = _elements(OWN / "aosp_time_picker.xml")
    keyboard = _elements(OWN / "aosp_time_picker_keyboard.xml")
    spinner = next(e for e in keyboard if e.resource_id == "android:id/am_pm_spinner")
    n = len(keyboard)
    popup = keyboard + [
        _el(n, (700, 980, 933, 1080), package=PKG, resource_id="android:id/text1", text="AM",
            class_name="android.widget.CheckedTextView", checkable=True, clickable=True),
        _el(n + 1, (700, 1080, 933, 1180), package=PKG, resource_id="android:id/text1", text="PM",
            class_name="android.widget.CheckedTextView", checkable=True, clickable=True)]
    after = _elements(OWN / "aosp_alarm_new_expanded.xml")
    ctx = Ctx(obs=_obs(clock_mode), flavor="aosp", families={"clock": "aosp"})
    idx = {e.resource_id: e.index for e in keyboard}
    replies = [_obs(keyboard)] * 5 + [_obs(popup), _obs(popup), _obs(after)]
    actions, _ = _drive(C._fill_time_picker(ctx, 18, 5), replies)
    toggle = next(e for e in clock_mode if e.resource_id == "android:id/toggle_mode")
    assert actions == [
        Tap(target=toggle.index),
        Tap(target=idx["android:id/input_hour"]), TypeText(text="6", clear=True, submit=False),
        Tap(target=idx["android:id/input_minute"]), TypeText(text="05", clear=True, submit=False),
        Tap(target=spinner.index), Tap(target=n + 1),
        Tap(target=idx["android:id/button1"])]
