"""The Messages driver of the app UI layer reads every family's screens right.

Why: the oracle's Messages skills, the UI probes and teardown see a phone's Messages app only
through ``device.apps`` — a conversation list read wrong is a thread the oracle cannot find, a
bubble taken for the phone's own is a wrong answer. Three kinds of evidence:

* real dumps (``tests/fixtures/real-apps``): Google Messages' Compose
  conversation and Samsung Messages' two-pane tablet list. Each ``.truth.json`` was written
  by a person from the XML; this file converts the truth's wording with code of its own.
* dumps written by hand after AOSP Messaging's own layouts (``tests/fixtures/apps/messages/
  aosp_*.xml``, each naming the layout files it follows), and the simulator's screens as the
  virtual phone serves them (``virtual_*.xml``; the aosp flavor's are AOSP Messaging's layouts,
  read through the same AOSP selectors).
* screens of no known app, or of no known Messages screen, which must be reported as not
  recognised — never guessed.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from actionmap.observation import UIElement
from device.apps import driver, read_screen
from device.apps.messages import plain
from device.apps.spec import load_spec
from device.parsers.hierarchy import parse_hierarchy
from _appfixtures import elements as _elements

HERE = Path(__file__).parent
REAL = HERE / "fixtures" / "real-apps"
MINE = HERE / "fixtures" / "apps" / "messages"
TRUTHS = sorted(REAL.glob("*/messages/*.truth.json"))



def _bounds(s: str) -> list[int]:
    return [int(x) for x in re.findall(r"-?\d+", s)]


def _controls(reading: Any) -> dict[str, list[list[int]]]:
    out: dict[str, list[list[int]]] = {}
    for c in reading.controls:
        out.setdefault(c.role, []).append(c.bounds)
    return out


# --- 1. real dumps -------------------------------------------------------------------------------

@pytest.mark.parametrize("truth", TRUTHS, ids=[str(t.relative_to(REAL)) for t in TRUTHS])
def test_real_dump_is_read_as_its_truth_says(truth: Path) -> None:
    t = json.loads(truth.read_text("utf-8"))
    r = read_screen(_elements(truth.with_name(truth.name.replace(".truth.json", ".xml"))))
    assert (r.package, r.app, r.family) == (t["package"], "messages", t["family"])
    assert r.screen == t["screen"], r.problems
    have = _controls(r)
    missing = [c for c in t["controls"] if _bounds(c["bounds"]) not in have.get(c["role"], [])]
    assert not missing, f"controls not found by role and bounds: {missing}"
    vis = t["visible"]
    if "title" in vis:
        assert r.visible["title"] == vis["title"]
    if "conversations" in vis:
        assert [(c["name"], c["snippet"]) for c in r.visible["conversations"]] == \
            [(c["name"], c["snippet"]) for c in vis["conversations"]]
        if any("time" in c for c in vis["conversations"]):
            assert [c["time"] for c in r.visible["conversations"]] == [c.get("time") for c in vis["conversations"]]
    if "messages_top_to_bottom" in vis:
        said = [m for m in vis["messages_top_to_bottom"] if "text" in m]  # separators are not messages
        assert r.visible["messages"] == [m["text"] for m in said]
        assert [b["outgoing"] for b in r.visible["bubbles"]] == [m["sender"] == "me" for m in said]
    if "tabs" in vis:
        assert r.visible["tabs"] == vis["tabs"]
    if "right_pane" in vis and "recipient_field_text" in vis["right_pane"]:
        assert r.visible["recipient"] == vis["right_pane"]["recipient_field_text"]


def test_the_real_dumps_are_there() -> None:
    """The fixtures this file depends on exist (an empty parametrisation would pass silently)."""
    names = {t.name for t in TRUTHS}
    assert {"conversation_rcs_compose_ui_720x1536.truth.json",
            "conversation_list_with_new_conversation_pane_tablet.truth.json"} <= names, names


# --- 2. AOSP layouts and the simulator -----------------------------------------------------------

def test_aosp_conversation_list() -> None:
    r = read_screen(_elements(MINE / "aosp_conversation_list_1080x2400.xml"))
    assert (r.app, r.family, r.screen) == ("messages", "aosp", "conversation_list")
    convs = r.visible["conversations"]
    assert [(c["name"], c["snippet"], c["time"]) for c in convs] == [
        ("Ann Lee", "See you at 7", "9:41 AM"), ("Bo Chen", "on my way", "Draft"),
        ("(650) 555-0199", "Your code is 4411", "Mon"), ("Zoë Ångström", "Ça va? 🙂", "Sun")]
    assert [c["draft"] for c in convs] == [False, True, False, False]
    have = _controls(r)
    # a row is the clickable swipeableContainer (ConversationListItemView.java sets its click listener)
    assert len(have["conversation_row"]) == 4 and all(b[0] == 0 and b[2] == 1080 for b in have["conversation_row"])
    assert have["start_chat"] == [[860, 2150, 1036, 2326]]
    assert have["conversation_list"] == [[0, 286, 1080, 2400]]
    assert "message_field" not in have and "recipient_field" not in have


def test_aosp_conversation() -> None:
    r = read_screen(_elements(MINE / "aosp_conversation_1080x2400.xml"))
    assert (r.app, r.family, r.screen) == ("messages", "aosp", "conversation")
    assert r.visible["title"] == "Ann Lee"
    assert r.visible["messages"] == ["Are we still on for tonight?", "Yes! See you at 7", "Great 👍"]
    # who said it is on the ConversationMessageView around the bubble, not on message_text
    assert [b["outgoing"] for b in r.visible["bubbles"]] == [False, True, False]
    have = _controls(r)
    assert have["message_field"] == [[143, 2211, 900, 2367]]
    assert have["send"] == [[922, 2211, 1069, 2367]]
    assert have["attach"] == [[11, 2222, 143, 2354]]
    assert have["back"] == [[0, 143, 147, 275]]
    assert have["call"] == [[796, 143, 930, 275]]
    assert "conversation_row" not in have


def test_aosp_new_conversation() -> None:
    r = read_screen(_elements(MINE / "aosp_new_conversation_1080x2400.xml"))
    assert (r.app, r.family, r.screen) == ("messages", "aosp", "new_conversation")
    assert r.visible["recipient"] == ""  # the empty field shows its hint "To"
    assert r.visible["suggestions"] == [{"name": "Ann Lee", "detail": "(650) 555-0134"},
                                        {"name": "Ann Lee", "detail": "(650) 555-0177"},
                                        {"name": "Bo Chen", "detail": "+1 415-555-0101"}]
    have = _controls(r)
    assert have["recipient_field"] == [[176, 154, 1036, 286]]
    assert len(have["suggestion_row"]) == 3


def test_the_simulator_flavors() -> None:
    """The simulator's screens read the same through the `sim` family and, for its aosp flavor (AOSP
    Messaging's own layouts), through the `aosp` family's AOSP selectors — the ones a real AOSP
    phone's dumps are read with."""
    r = read_screen(_elements(MINE / "virtual_sim_conversation_list_1080x2400.xml"), family="sim")
    assert (r.family, r.screen) == ("sim", "conversation_list")
    first = r.visible["conversations"][0]
    assert (first["name"], first["snippet"], first["unread"], first["draft"]) == ("Zoë Ångström", "Ça va?", True, False)
    assert sum(c["unread"] for c in r.visible["conversations"]) == 3
    assert "start_chat" in _controls(r)

    r = read_screen(_elements(MINE / "virtual_aosp_conversation_list_1080x2400.xml"))
    assert (r.family, r.screen) == ("aosp", "conversation_list")
    first = r.visible["conversations"][0]
    assert (first["name"], first["snippet"], first["unread"], first["draft"]) == ("Zoë Ångström", "Ça va?", True, False)
    assert sum(c["unread"] for c in r.visible["conversations"]) == 3
    have = _controls(r)
    assert {"start_chat", "conversation_list", "more_options"} <= set(have) and "back" not in have
    # a row is the clickable swipeableContainer, full width (ConversationListItemView)
    assert all(b[0] == 0 and b[2] == 1080 for b in have["conversation_row"])

    r = read_screen(_elements(MINE / "virtual_aosp_conversation_1080x2400.xml"))
    assert (r.family, r.screen) == ("aosp", "conversation")
    assert r.visible["title"] == "Zoë Ångström"
    assert [(b["text"], b["outgoing"]) for b in r.visible["bubbles"]] == [("Old news", True), ("Ça va?", False)]
    have = _controls(r)
    assert {"message_field", "message_list", "attach", "call", "back"} <= set(have)
    assert "send" not in have  # AOSP shows send_message_button only once there is text to send

    r = read_screen(_elements(MINE / "virtual_aosp_new_conversation_1080x2400.xml"))
    assert (r.family, r.screen, r.visible["recipient"]) == ("aosp", "new_conversation", "Mia")
    assert {"name": "Mia Garcia", "detail": "+1 809 555 5971"} in r.visible["suggestions"]
    assert "clear_recipient" in _controls(r)

    r = read_screen(_elements(MINE / "virtual_aosp_selection_1080x2400.xml"))
    assert r.screen == "conversation_list" and "title" not in r.visible  # AOSP's action mode shows no title
    have = _controls(r)
    # the up button leaves selection mode; the floating button stays (ConversationListFragment)
    assert {"selection_delete", "back", "start_chat"} <= set(have) and "mark_read" not in have


def test_google_messages_list_and_picker_as_public_test_code_locates_them() -> None:
    """No dump of Google Messages' list or picker exists; the `google` family follows public
    locators (messages.yaml): rows are android.view.ViewGroup swipeableContainer with
    conversation_name / conversation_snippet / conversation_timestamp; an unread one carries
    unread_badge_view_with_message_count_stub (no row says "unread" in words); a draft shows
    "Draft"; the picker's contacts are the clickable child Views of ContactSuggestionList."""
    pkg = "com.google.android.apps.messaging"
    g = lambda i, b, **kw: _el(i, b, package=pkg, **kw)  # noqa: E731
    rid = lambda n: f"{pkg}:id/{n}"  # noqa: E731

    def row(i: int, top: int, name: str, snippet: str, when: str, badge: bool) -> list[UIElement]:
        out = [g(i, (0, top, 1080, top + 170), class_name="android.view.ViewGroup", resource_id=rid("swipeableContainer"),
                 clickable=True, long_clickable=True),
               g(i + 1, (190, top + 25, 850, top + 90), class_name="android.widget.TextView", text=name,
                 resource_id=rid("conversation_name")),
               g(i + 2, (190, top + 90, 850, top + 145), class_name="android.widget.TextView", text=snippet,
                 resource_id=rid("conversation_snippet")),
               g(i + 3, (880, top + 25, 1040, top + 85), class_name="android.widget.TextView", text=when,
                 resource_id=rid("conversation_timestamp"))]
        if badge:
            out.append(g(i + 4, (1000, top + 90, 1030, top + 120), class_name="android.view.View",
                         resource_id=rid("unread_badge_view_with_message_count_stub")))
        return out

    els = [g(0, (0, 0, 1080, 2400), class_name="android.widget.FrameLayout"),
           g(1, (0, 250, 1080, 2270), class_name="androidx.recyclerview.widget.RecyclerView", scrollable=True),
           *row(10, 250, "Ann Lee", "See you", "9:41 AM", True), *row(20, 420, "Bo Chen", "on my way", "Draft", False),
           *row(30, 590, "(650) 555-0199", "Your code is 1234", "Mon", False),
           g(40, (690, 2070, 1040, 2225), class_name="android.widget.Button", text="Start chat", content_desc="Start chat",
             resource_id=rid("start_chat_fab"), clickable=True)]
    r = read_screen(els)
    assert (r.family, r.screen) == ("google", "conversation_list")
    assert [(c["name"], c["unread"], c["draft"]) for c in r.visible["conversations"]] == [
        ("Ann Lee", True, False), ("Bo Chen", False, True), ("(650) 555-0199", False, False)]
    assert {"start_chat", "conversation_list", "conversation_row"} <= set(_controls(r))

    picker = [g(0, (0, 0, 1080, 2400), class_name="android.widget.FrameLayout"),
              g(1, (110, 250, 1040, 370), class_name="android.widget.EditText", text="ann", resource_id="ContactSearchField",
                clickable=True, editable=True, focused=True),
              g(2, (0, 370, 1080, 2270), class_name="android.view.View", resource_id="ContactSuggestionList", scrollable=True),
              g(3, (0, 370, 1080, 545), class_name="android.view.View", clickable=True),
              g(4, (190, 395, 1040, 460), class_name="android.widget.TextView", text="Ann Lee"),
              g(5, (190, 460, 1040, 515), class_name="android.widget.TextView", text="+1 650-555-0100")]
    r = read_screen(picker)
    assert (r.family, r.screen, r.visible["recipient"]) == ("google", "new_conversation", "ann")
    assert r.visible["suggestions"] == [{"name": "Ann Lee", "detail": "+1 650-555-0100"}]


def test_the_skills_helpers_read_rows_and_bubbles() -> None:
    """What the oracle's skills ask the driver: a row's parts and a bubble's sender."""
    els = _elements(MINE / "aosp_conversation_list_1080x2400.xml")
    d = driver("messages")
    m = d.matcher(els, "aosp", "com.android.messaging")
    rows = d.rows(m)
    assert [info["name"] for _r, info in rows] == ["Ann Lee", "Bo Chen", "(650) 555-0199", "Zoë Ångström"]
    # AOSP describes the list item around the clickable container
    assert d.row_desc(m, rows[1][0]).startswith("Unsent message to Bo Chen")
    assert plain("\u2068570532300\u2069") == "570532300"


# --- 3. not recognised, never guessed ------------------------------------------------------------

def _el(i: int, b: tuple[int, int, int, int], **kw: Any) -> UIElement:
    return UIElement.from_px(i, b, (1080, 2400), **kw)


def test_an_unknown_app_is_not_read_as_messages() -> None:
    """A foreign chat app with Messages-like ids: no driver knows it, nothing is guessed."""
    xml = (REAL / "google" / "messages" / "conversation_rcs_compose_ui_720x1536.xml").read_text("utf-8")
    els = parse_hierarchy(xml.replace("com.google.android.apps.messaging", "com.example.chat")).elements
    r = read_screen(els)
    assert r.package == "com.example.chat" and r.app is None and r.screen is None
    assert r.problems and "com.example.chat" in r.problems[0]


def test_a_messages_screen_the_data_does_not_know_is_not_recognised() -> None:
    """AOSP Messaging's settings page: the app is known, the screen is not — reported, no readings."""
    pkg = "com.android.messaging"
    els = [_el(0, (0, 0, 1080, 2400), package=pkg, class_name="android.widget.FrameLayout"),
           _el(1, (0, 132, 1080, 286), package=pkg, class_name="android.view.ViewGroup",
               resource_id=f"{pkg}:id/action_bar"),
           _el(2, (180, 170, 700, 248), package=pkg, class_name="android.widget.TextView", text="Settings"),
           _el(3, (0, 286, 1080, 2400), package=pkg, class_name="android.widget.ListView",
               resource_id="android:id/list", scrollable=True),
           _el(4, (0, 286, 1080, 470), package=pkg, class_name="android.widget.LinearLayout", clickable=True),
           _el(5, (44, 320, 900, 400), package=pkg, class_name="android.widget.TextView", text="Notifications",
               resource_id="android:id/title")]
    r = read_screen(els)
    assert (r.app, r.family) == ("messages", "aosp")
    assert r.screen is None and r.visible == {} and "not recognised" in r.problems[0]


# --- the data itself -----------------------------------------------------------------------------

def test_every_phone_family_selector_cites_its_evidence_and_roles_resolve() -> None:
    spec = load_spec("messages")
    for name, fam in spec.families.items():
        full = spec.family(name)
        for role, sels in fam.roles.items():
            for s in sels:
                if name in ("aosp", "google", "samsung", "xiaomi", "sim"):
                    assert s.cite, f"{name}.{role}: a selector without cite"
                for ref in (s.within, s.has):
                    assert ref is None or ref in full.roles, f"{name}.{role} refers to an undefined role {ref!r}"
        for sig in full.screens.values():
            for r in [*sig.all, *sig.any, *sig.none]:
                assert r in full.roles, f"{name}: screen role {r!r} is undefined"
    assert spec.families["aosp"].packages == ["com.android.messaging"]
    assert driver("messages").family_of("com.google.android.apps.messaging") == "google"
    assert driver("messages").family_of("com.samsung.android.messaging") == "samsung"
