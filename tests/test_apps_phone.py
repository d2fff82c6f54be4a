"""The Phone (dialer) driver of the app UI layer reads a dialer's screens right, by role, per family.

Why: the oracle's phone skills, the dial-pad probe (what was dialled is on no provider, only on
the pad's ``digits`` field) and teardown see a phone's dialer only through this driver. Its data
(``device/apps/data/phone.yaml``) cites the AOSP Dialer's layouts; the dumps in
``tests/fixtures/apps/phone/`` were written from those same layouts (ids, classes, the
descriptions DialpadView and the call log set), so these checks hold the driver to the source —
and a dialer the data does not know, or a screen it cannot name, must be reported as such.
Real dialer dumps in ``tests/fixtures/real-apps`` (none pinned yet: EVIDENCE.md, Gaps) are read
by the same checks as they arrive.
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
MINE = HERE / "fixtures" / "apps" / "phone"



def _bounds(s: str) -> list[int]:
    return [int(x) for x in re.findall(r"-?\d+", s)]


def _el(i: int, b: tuple[int, int, int, int], **kw: Any) -> UIElement:
    return UIElement.from_px(i, b, (1080, 2400), **kw)


# --- real dumps (as they are pinned) ---------------------------------------------------------------

# --- the AOSP Dialer, from its layouts ---------------------------------------------------------------

def test_the_aosp_dial_pad_reads_the_number_and_every_key() -> None:
    r = read_screen(_elements(MINE / "aosp_dialpad_1080x2400.xml"))
    assert (r.package, r.app, r.family, r.screen) == ("com.android.dialer", "phone", "aosp", "dialpad")
    # the field shows the dialler's formatting; digits keeps what a pad enters, as the probe does
    assert r.visible["digits"] == "+13035550115"
    assert r.visible["number_shown"] == "+1 303-555-0115"
    by_role = {c.role: c for c in r.controls}
    keys = {"key_1": "one", "key_2": "two", "key_5": "five", "key_9": "nine", "key_0": "zero", "key_star": "star",
            "key_pound": "pound"}
    for role, rid in keys.items():
        assert by_role[role].resource_id == f"com.android.dialer:id/{rid}", role
    assert by_role["key_2"].content_desc == "2,ABC"
    assert by_role["key_5"].bounds == [390, 1350, 690, 1570]
    assert by_role["digits"].resource_id == "com.android.dialer:id/digits"
    assert by_role["delete"].content_desc == "backspace"
    assert by_role["call"].resource_id == "com.android.dialer:id/dialpad_floating_action_button"
    # the status bar's clock text is never a key or the number
    assert not any(c.resource_id.startswith("com.android.systemui") for c in r.controls)


def test_the_aosp_call_log_is_read_row_by_row_with_each_calls_kind() -> None:
    r = read_screen(_elements(MINE / "aosp_call_log_1080x2400.xml"))
    assert (r.app, r.family, r.screen) == ("phone", "aosp", "call_log")
    # the kind comes from each row's own description (Missed call from … / Call to … / Answered call from …)
    assert r.visible["calls"] == [{"name": "Ann Lee", "kind": "missed"}, {"name": "+1 206-555-0100", "kind": "outgoing"},
                                  {"name": "Bo Chen", "kind": "incoming"}]
    roles = {(c.role, c.resource_id.rsplit("/", 1)[-1]) for c in r.controls}
    assert {("open_dialpad", "fab"), ("recents_tab", "call_log_tab"), ("overflow", "main_options_menu_button"),
            ("main_nav", "bottom_nav_bar"), ("call_list", "recycler_view")} <= roles
    assert sum(1 for c in r.controls if c.role == "call_log_row") == 3


def test_aosp_call_details_pair_each_calls_time_with_its_own_duration() -> None:
    r = read_screen(_elements(MINE / "aosp_call_details_1080x2400.xml"))
    assert (r.app, r.family, r.screen) == ("phone", "aosp", "call_details")
    assert r.visible["call"] == {"name": "Ann Lee", "number": "Mobile +1 206-555-0199", "kind": "missed",
                                 "time": "10:32 AM", "duration": ""}
    assert r.visible["calls"] == [{"kind": "missed", "time": "10:32 AM", "duration": ""},
                                  {"kind": "incoming", "time": "Yesterday, 9:02 AM", "duration": "2m 14s"}]


def test_an_empty_dial_pad_showing_its_hint_reads_no_number() -> None:
    els = [_el(0, (0, 0, 1080, 2400), package="com.android.dialer", class_name="android.widget.FrameLayout"),
           _el(1, (160, 900, 920, 1060), package="com.android.dialer", class_name="android.widget.EditText",
               resource_id="com.android.dialer:id/digits", text="Enter a number", hint="Enter a number", editable=True),
           _el(2, (390, 1350, 690, 1570), package="com.android.dialer", class_name="android.widget.FrameLayout",
               resource_id="com.android.dialer:id/five", content_desc="5,JKL", clickable=True)]
    r = read_screen(els)
    assert r.screen == "dialpad" and r.visible["digits"] == "" and r.visible["number_shown"] == ""


def test_a_dialer_of_a_family_without_data_is_read_by_the_generic_roles() -> None:
    """Samsung's Phone has no pinned ids: its pad is still found by the keys' descriptions."""
    pkg = "com.samsung.android.dialer"
    els = [_el(0, (0, 0, 1080, 2400), package=pkg, class_name="android.widget.FrameLayout"),
           _el(1, (100, 600, 980, 760), package=pkg, class_name="android.widget.EditText", text="555 0100")]
    for i, (d, desc) in enumerate([("1", "1"), ("2", "2,ABC"), ("5", "5,JKL"), ("0", "0,+")]):
        els.append(_el(2 + i, (100 + 200 * i, 1000, 280 + 200 * i, 1180), package=pkg,
                       class_name="android.widget.Button", content_desc=desc, clickable=True))
    els.append(_el(6, (440, 2000, 640, 2200), package=pkg, class_name="android.widget.ImageButton",
                   content_desc="Call", clickable=True))
    r = read_screen(els)
    assert (r.app, r.family, r.screen) == ("phone", "samsung", "dialpad")
    assert r.visible["digits"] == "5550100"
    assert {c.role for c in r.controls} >= {"key_1", "key_2", "key_5", "key_0", "call", "digits"}


def test_google_dialer_cards_are_read_by_their_descriptions() -> None:
    """Google Dialer hides a call-log card's texts (the new call log's noHideDescendants entry) and describes
    the card "<name>, <label>, <kind>, <when>." (public test code: "HOT, Mobile, outgoing call, Just now.");
    its name and kind are read from that, and a card whose description names no kind is not guessed."""
    pkg = "com.google.android.dialer"

    def card(i: int, top: int, desc: str) -> list[UIElement]:
        return [_el(i, (36, top, 1044, top + 180), package=pkg, class_name="androidx.cardview.widget.CardView",
                    resource_id=f"{pkg}:id/call_log_entry_card", content_desc=desc),
                _el(i + 1, (36, top, 1044, top + 180), package=pkg, class_name="android.view.ViewGroup",
                    resource_id=f"{pkg}:id/call_log_entry_root_constraint_layout", clickable=True),
                _el(i + 2, (900, top + 24, 1032, top + 156), package=pkg, class_name="android.widget.ImageView",
                    resource_id=f"{pkg}:id/call_button", content_desc=f"call {desc.split(',')[0]}", clickable=True)]

    els = [_el(0, (0, 0, 1080, 2400), package=pkg, class_name="android.widget.FrameLayout"),
           _el(1, (0, 288, 1080, 2017), package=pkg, class_name="android.support.v7.widget.RecyclerView",
               resource_id=f"{pkg}:id/call_log_recycler_view", scrollable=True),
           *card(2, 300, "HOT, Mobile, outgoing call, Just now."),
           *card(5, 490, "Ann Lee, Work, Missed call, 5 minutes ago."),
           *card(8, 680, "+1 650-555-0199, incoming call, Yesterday."),
           *card(11, 870, "Bo Chen, Mobile, Thursday."),
           _el(14, (0, 2047, 270, 2214), package=pkg, class_name="android.widget.FrameLayout",
               resource_id=f"{pkg}:id/tab_call_history", content_desc="Recents", selected=True)]
    r = read_screen(els)
    assert (r.app, r.family, r.screen) == ("phone", "google", "call_log"), r.problems
    assert r.visible["calls"] == [{"name": "HOT", "kind": "outgoing"}, {"name": "Ann Lee", "kind": "missed"},
                                  {"name": "+1 650-555-0199", "kind": "incoming"}, {"name": "", "kind": None}]
    roles = {(c.role, c.resource_id.rsplit("/", 1)[-1]) for c in r.controls}
    assert {("call_list", "call_log_recycler_view"), ("recents_tab", "tab_call_history"), ("main_nav", "tab_call_history")} <= roles
    assert sum(1 for c in r.controls if c.role == "call_log_row") == 4


# --- what is not a dialer screen ------------------------------------------------------------------------

def test_an_unknown_app_with_a_dial_pad_is_not_guessed_to_be_the_phone() -> None:
    pkg = "com.example.softphone"
    els = [_el(0, (0, 0, 1080, 2400), package=pkg, class_name="android.widget.FrameLayout"),
           _el(1, (100, 600, 980, 760), package=pkg, class_name="android.widget.EditText",
               resource_id=f"{pkg}:id/digits", text="5550100"),
           _el(2, (390, 1350, 690, 1570), package=pkg, class_name="android.widget.FrameLayout",
               resource_id=f"{pkg}:id/five", content_desc="5,JKL", clickable=True)]
    r = read_screen(els)
    assert r.app is None and r.screen is None and r.problems and pkg in r.problems[0]


def test_a_dialer_screen_the_data_cannot_name_is_reported_not_read() -> None:
    els = [_el(0, (0, 0, 1080, 2400), package="com.android.dialer", class_name="android.widget.FrameLayout"),
           _el(1, (100, 600, 980, 760), package="com.android.dialer", class_name="android.widget.TextView",
               text="Something went wrong")]
    r = read_screen(els)
    assert r.app == "phone" and r.screen is None and r.visible == {}
    assert "com.android.dialer" in r.problems[0] and "not recognised" in r.problems[0]
    assert driver("phone").digits(driver("phone").matcher(els, "aosp", "com.android.dialer")) is None


# --- the simulator's two flavors ------------------------------------------------------------------------

@pytest.mark.parametrize("flavor", ["sim", "aosp", "google"])
def test_the_simulators_dial_pad_and_call_log_read_as_the_world_holds_them(flavor: str) -> None:
    pytest.importorskip("playwright")
    import sys

    sys.path.insert(0, str(HERE))
    from _simhelpers import fresh, run

    from transfer.oracle.skills import phone as P

    env = fresh(flavor)
    try:
        run(env, P.dial_number, number="+1 (206) 555-0100")
        obs = env.observe()
        r = read_screen(obs.elements, app="phone", family=flavor)
        assert r.screen == "dialpad", r.problems
        assert r.visible["digits"] == env.read_state().dialer_number == "+12065550100"
        # the same screen read with the family found from its package (the virtual phone serves the aosp
        # flavor as com.android.dialer, the google one as com.google.android.dialer)
        r2 = read_screen(obs.elements, app="phone")
        assert r2.family == ("google" if flavor == "google" else "aosp") and r2.visible.get("digits") == "+12065550100"
        run(env, P.open_recents)
        r = read_screen(env.observe().elements, app="phone", family=flavor)
        assert r.screen == "call_log", r.problems
        kinds = [c["kind"] for c in r.visible["calls"]]
        assert kinds and all(k in P.KINDS for k in kinds), r.visible["calls"]
    finally:
        env.close()


def test_the_aosp_family_holds_no_simulator_fallback() -> None:
    """The simulator's aosp flavor follows the AOSP Dialer's layouts, so the aosp family needs none."""
    from device.apps.spec import load_spec

    spec = load_spec("phone")
    assert not [(role, s.cite) for role, sels in spec.families["aosp"].roles.items() for s in sels
                if "s2r simulator" in (s.cite or "")]


def test_the_google_family_cites_google_dialer_evidence_only() -> None:
    """Google Dialer's selectors are evidence about real phones: each cites it, none the simulator."""
    from device.apps.spec import load_spec

    fam = load_spec("phone").families["google"]
    sels = [(role, s) for role, ss in fam.roles.items() for s in ss]
    assert sels and all(s.cite for _, s in sels)
    assert not [(role, s.cite) for role, s in sels if "SIM" in (s.cite or "") or "simulator" in (s.cite or "")]
    assert "missed_path" not in fam.texts  # no public capture of a missed-only list: rows are read by kind


def test_the_simulators_aosp_dialer_reads_through_the_dialers_selectors() -> None:
    pytest.importorskip("playwright")
    import sys

    sys.path.insert(0, str(HERE))
    from _simhelpers import fresh, run

    from transfer.oracle.skills import phone as P

    env = fresh("aosp")
    try:
        log = sorted(env.read_state().calls or [], key=lambda c: c.time or "", reverse=True)
        run(env, P.open_recents)
        r = read_screen(env.observe().elements, app="phone", family="aosp")
        assert r.screen == "call_log", r.problems
        # call_log_list_item.xml cards, each read by its name and the kind its description tells
        want = {"incoming": "incoming", "outgoing": "outgoing", "missed": "missed"}
        assert [c["kind"] for c in r.visible["calls"]] == [want[c.kind] for c in log][: len(r.visible["calls"])]
        assert r.visible["calls"][0]["name"] == log[0].name
        # the newest missed call's details, through overflow → Call history → Missed (CallLogActivity)
        call = run(env, P.read_last_call, kind="missed")
        missed = next(c for c in log if c.kind == "missed")
        assert (call["name"], call["kind"]) == (missed.name, "missed") and call["number"].endswith(missed.number)
        r = read_screen(env.observe().elements, app="phone", family="aosp")
        assert r.screen == "call_details" and r.visible["title"] == "Call details", r.problems
    finally:
        env.close()
