"""The simulated Phone's `google` flavor: Google Dialer as a Pixel on Android 14 shows it, driven for real.

Why: a Pixel's Phone app is not AOSP's Dialer — a Material search bar, the "key pad" FAB, a Material
bottom navigation (Favorites, Recents, Contacts, Voicemail) whose items are ``tab_*`` menu ids, call-log
cards whose texts are hidden and whose description says "<name>, <label>, <kind>, <when>.", a call button
``dialpad_voice_call_button``. The oracle, the dial-pad probe (``device/readers/probes.py``) and every reader see
these screens only through the app UI layer's ``google`` family, so each test checks that what the flavor
draws reads back, by role, as the world holds it — and that it is not the AOSP Dialer under another name.
No real Google Dialer dump is pinned (tests/fixtures/real-apps/EVIDENCE.md, Gaps), so there is no
screen-equivalence recipe; the evidence each screen follows is cited in sim/static/apps/google/phone.js.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime

import pytest

from actionmap.actions import Tap, TypeText
from actionmap.observation import Observation, UIElement
from actionmap.worldstate import Call

pytest.importorskip("playwright")

from device.apps import read_screen  # noqa: E402
from device.readers import dial_pad_number  # noqa: E402
from sim.env import SimEnv  # noqa: E402
from transfer.oracle.skills import phone as P  # noqa: E402
from _simhelpers import find, fresh, healthy, run, step  # noqa: E402

PKG = "com.google.android.dialer"


def calls(env: SimEnv) -> list[Call]:
    return list(env.read_state().calls or [])


def newest_first(cs: list[Call]) -> list[Call]:
    """The log as the dialer orders it: by time, later-added first on ties."""
    order = sorted(enumerate(cs), key=lambda ic: (ic[1].time or datetime.min, ic[0]), reverse=True)
    return [c for _, c in order]


def all_rid(obs: Observation, rid: str) -> list[UIElement]:
    """Every element whose resource id is ``rid`` (bare name)."""
    return [e for e in obs.elements if e.resource_id.endswith("/" + rid)]


def activity(env: SimEnv) -> str:
    """The activity the sim reports for its screen (what the virtual phone's dumpsys shows; the
    Observation carries the sim's route instead)."""
    return str((env._foreground or {}).get("activity", ""))


@pytest.fixture
def env() -> Iterator[SimEnv]:
    e = fresh("google", {"start": {"app": "phone"}})
    yield e
    e.close()


def test_the_main_screen_is_google_dialers_not_aosps(env: SimEnv) -> None:
    obs = env.observe()
    assert obs.foreground.package == PKG
    assert activity(env) == f"{PKG}/.extensions.GoogleDialtactsActivity"
    # the Material bottom navigation: items are the menu ids, described by their titles; the selected one
    # is not clickable and alone carries the active indicator (the Google Clock dump's BottomNavigationView)
    for rid, label in (("tab_speed_dial", "Favorites"), ("tab_call_history", "Recents"), ("tab_contacts", "Contacts"),
                       ("tab_voicemail", "Voicemail")):
        item = find(obs, rid=rid)
        assert item is not None and item.content_desc == label and item.resource_id == f"{PKG}:id/{rid}", rid
    fav = find(obs, rid="tab_speed_dial")
    assert fav.selected and not fav.clickable and find(obs, rid="tab_call_history").clickable
    assert len(all_rid(obs, "navigation_bar_item_active_indicator_view")) == 1
    assert find(obs, "Favorites", rid="navigation_bar_item_large_label_view") is not None
    assert find(obs, "Recents", rid="navigation_bar_item_small_label_view") is not None
    # the search bar's text view, voice search, overflow; the key pad FAB
    assert find(obs, "Search contacts & places", rid="open_search_bar_text_view") is not None
    assert find(obs, desc="Start voice search", cls="Button") is not None
    fab = find(obs, rid="dialpad_fab")
    assert fab.content_desc == "key pad" and fab.class_name == "android.widget.ImageButton"
    # none of AOSP's Dialer chrome
    for rid in ("bottom_nav_bar", "fab", "search_box_collapsed", "bottom_nav_item_text", "call_log_tab"):
        assert find(obs, rid=rid) is None, rid
    r = read_screen(obs.elements)
    assert (r.app, r.family, r.screen) == ("phone", "google", "phone_main"), r.problems
    roles = {c.role for c in r.controls}
    assert {"open_dialpad", "recents_tab", "contacts_tab", "favorites_tab", "search", "overflow"} <= roles


def test_the_dial_pad_probe_reads_what_the_pad_shows(env: SimEnv) -> None:
    """device/readers/probes.py's probe (what was dialled is on no provider) reads Google's pad by role."""
    run(env, P.dial_number, number="+1 (206) 555-0100")
    obs = env.observe()
    assert env.read_state().dialer_number == "+12065550100"
    # the probe, with the family the phone reports and with it detected from the package
    assert dial_pad_number(obs.elements, "google") == "+12065550100"
    assert dial_pad_number(obs.elements) == "+12065550100"
    r = read_screen(obs.elements)
    assert (r.family, r.screen) == ("google", "dialpad") and r.visible["digits"] == "+12065550100", r.problems
    by_role = {c.role: c for c in r.controls}
    # Google's call button, the keys AOSP's DialpadView describes, the digits field
    assert by_role["call"].resource_id == f"{PKG}:id/dialpad_voice_call_button" and by_role["call"].content_desc == "dial"
    assert obs.elements[by_role["call"].index].class_name == "android.widget.Button"
    assert by_role["key_2"].content_desc == "2,ABC" and by_role["key_star"].resource_id == f"{PKG}:id/star"
    assert by_role["digits"].resource_id == f"{PKG}:id/digits"
    # the pad hides the bottom navigation and the FAB: the oracle's "main screen" test must not see them
    assert "main_nav" not in by_role and "open_dialpad" not in by_role
    # edited by hand, the probe follows the field; away from the pad it reads nothing
    step(env, TypeText(text="5550123", clear=True, target=by_role["digits"].index))
    assert dial_pad_number(env.observe().elements, "google") == "5550123" == env.read_state().dialer_number
    run(env, P.open_recents)
    assert dial_pad_number(env.observe().elements, "google") is None


def test_recents_cards_are_read_off_their_descriptions(env: SimEnv) -> None:
    log = newest_first(calls(env))
    obs = step(env, Tap(target=find(env.observe(), rid="tab_call_history").index))
    cards = sorted(all_rid(obs, "call_log_entry_card"), key=lambda e: e.bounds.top)
    assert cards and all(c.class_name == "androidx.cardview.widget.CardView" for c in cards)
    # a card's texts are hidden from accessibility: nothing inside it but its tap target and call button
    top = cards[0]
    inside = [e for e in obs.elements if e.index != top.index and top.bounds.contains(*e.bounds.center)]
    assert {e.resource_id.rsplit("/", 1)[-1] for e in inside} == {"call_log_entry_root_constraint_layout", "call_button"}
    assert not any(e.text for e in inside)
    # "<name>, <label>, <kind>, <when>." as Google describes a row
    kinds = {"incoming": "incoming call", "outgoing": "outgoing call", "missed": "missed call"}
    assert top.content_desc.startswith(f"{log[0].name}, Mobile, {kinds[log[0].kind]}, ") and top.content_desc.endswith(".")
    r = read_screen(obs.elements)
    assert (r.family, r.screen) == ("google", "call_log"), r.problems
    got = r.visible["calls"]
    assert got == [{"name": c.name, "kind": c.kind} for c in log[: len(got)]]
    assert find(obs, "Recents", rid="navigation_bar_item_large_label_view") is not None


def test_calls_land_in_the_log_and_read_back_through_the_oracle(env: SimEnv) -> None:
    n = len(calls(env))
    target = next(c for c in env.read_state().contacts or [] if c.phones)
    run(env, P.dial_number, number=target.phones[0].number)
    obs = step(env, Tap(target=find(env.observe(), rid="dialpad_voice_call_button").index))
    # the in-call screen: InCallUI's contact grid, Google's end-call Button
    assert activity(env) == f"{PKG}/com.android.incallui.InCallActivity"
    assert find(obs, target.name, rid="contactgrid_contact_name") is not None
    end = find(obs, desc="End call")
    assert end.class_name == "android.widget.Button" and end.resource_id == f"{PKG}:id/incall_end_call"
    step(env, Tap(target=end.index))
    ws = env.read_state()
    assert len(ws.calls) == n + 1 and ws.calls[-1].kind == "outgoing" and ws.calls[-1].name == target.name
    # the newest call's details: the card expands in place, its "Call details" opens AOSP's call details
    last = run(env, P.read_last_call)
    assert (last["name"], last["kind"]) == (target.name, "outgoing")
    assert P.dial_string(last["number"]).endswith(P.dial_string(target.phones[0].number)[-10:])
    env.observe()
    assert activity(env) == f"{PKG}/com.android.dialer.calldetails.CallDetailsActivity"
    healthy(env)


def test_missed_and_incoming_calls_are_found_without_a_missed_filter() -> None:
    """Google's family names no way to a missed-only list: the skill reads Recents by each card's kind."""
    extra = {"add": {"calls": [
        {"number": "+1 650 555 0199", "name": "", "kind": "missed", "time": "2027-03-15T09:10:00"},
        {"number": "+1 212 555 0142", "name": "", "kind": "incoming", "time": "2027-03-15T08:00:00", "duration_s": 75},
    ]}}
    env = fresh("google", extra)
    try:
        log = newest_first(calls(env))
        for kind in ("missed", "incoming", "outgoing"):
            want = next(c for c in log if c.kind == kind)
            got = run(env, P.read_last_call, kind=kind)
            assert got["kind"] == kind and P.dial_string(got["number"]) == P.dial_string(want.number), (kind, got)
            assert got["name"] == want.name, (kind, got)
        # an unknown number's card is described by the number itself
        run(env, P.open_recents)
        cards = all_rid(env.observe(), "call_log_entry_card")
        assert any(c.content_desc.startswith("+1 650 555 0199, missed call, ") for c in cards), [c.content_desc for c in cards]
    finally:
        env.close()


def test_search_history_and_contact_cards(env: SimEnv) -> None:
    contact = sorted((c for c in env.read_state().contacts or [] if c.phones), key=lambda c: c.name)[0]
    # the search bar opens Material's SearchView; a name finds the contact
    obs = step(env, Tap(target=find(env.observe(), rid="open_search_bar_text_view").index))
    field = find(obs, rid="open_search_view_edit_text")
    assert field is not None and field.class_name == "android.widget.EditText" and field.hint == "Search contacts & places"
    assert find(obs, rid="tab_call_history") is None  # the search covers the navigation
    obs = step(env, TypeText(text=contact.name.split()[0], target=field.index))
    assert find(obs, contact.name, rid="primary") is not None
    assert find(obs, desc="Clear text", rid="open_search_view_clear_button") is not None
    assert read_screen(obs.elements).screen == "search"
    # Call history from the overflow: AOSP's CallLogActivity with Google's cards, All / Missed
    run(env, P.open_phone)
    obs = step(env, Tap(target=find(env.observe(), desc="More options").index))
    assert [e.text for e in all_rid(obs, "title")] == ["Call history", "Settings", "Help & feedback"]
    obs = step(env, Tap(target=find(obs, "Call history").index))
    assert find(obs, "Call History") is not None
    obs = step(env, Tap(target=find(obs, "Missed", cls="TextView").index))
    kinds = [c["kind"] for c in read_screen(obs.elements).visible.get("calls", [])]
    assert kinds and set(kinds) == {"missed"}
    # the Contacts tab lists click_target > contact_name rows; a tap opens the contact in Contacts
    run(env, P.open_phone)
    obs = step(env, Tap(target=find(env.observe(), rid="tab_contacts").index))
    assert find(obs, "Create new contact", rid="contact_name") is not None
    row = find(obs, contact.name, rid="contact_name")
    obs = step(env, Tap(target=row.index))
    assert obs.foreground.app == "contacts"
    healthy(env)


def test_a_card_expands_to_call_details_and_the_log_clears(env: SimEnv) -> None:
    log = newest_first(calls(env))
    obs = step(env, Tap(target=find(env.observe(), rid="tab_call_history").index))
    top = min(all_rid(obs, "call_log_entry_root_constraint_layout"), key=lambda e: e.bounds.top)
    obs = step(env, Tap(target=top.index))
    # expanded in place to AOSP's actions (no Google capture of them), inside the card the reader reads
    assert find(obs, rid="send_message_action") is not None and find(obs, "Send a message") is not None
    obs = step(env, Tap(target=find(obs, rid="details_action").index))
    r = read_screen(obs.elements)
    assert (r.family, r.screen) == ("google", "call_details"), r.problems
    assert r.visible["call"]["name"] == log[0].name and r.visible["call"]["kind"] == log[0].kind
    obs = step(env, Tap(target=find(obs, "Delete", rid="call_detail_action_delete").index))
    assert [c.id for c in newest_first(calls(env))] == [c.id for c in log[1:]]
    # clear the whole log: overflow → Call history → its overflow → Clear call history → OK
    run(env, P.open_phone)
    obs = step(env, Tap(target=find(env.observe(), desc="More options").index))
    obs = step(env, Tap(target=find(obs, "Call history").index))
    obs = step(env, Tap(target=find(obs, desc="More options").index))
    obs = step(env, Tap(target=find(obs, "Clear call history").index))
    obs = step(env, Tap(target=find(obs, "OK", cls="Button").index))
    assert calls(env) == [] and find(obs, "Your call history is empty") is not None
    assert run(env, P.read_last_call) == {}
    healthy(env)


def test_the_voicemail_tab_lists_voicemails_only() -> None:
    env = fresh("google", {"start": {"app": "phone"}, "add": {"calls": [
        {"number": "+1 650 555 0123", "name": "", "kind": "voicemail", "time": "2027-03-15T08:40:00"}]}})
    try:
        obs = step(env, Tap(target=find(env.observe(), rid="tab_voicemail").index))
        assert find(obs, rid="tab_voicemail").selected
        r = read_screen(obs.elements)
        assert r.visible["calls"] == [{"name": "+1 650 555 0123", "kind": "voicemail"}], r.visible
    finally:
        env.close()
    env = fresh("google", {"start": {"app": "phone"}})
    try:
        obs = step(env, Tap(target=find(env.observe(), rid="tab_voicemail").index))
        assert find(obs, "Your voicemail inbox is empty.") is not None and not all_rid(obs, "call_log_entry_card")
    finally:
        env.close()
