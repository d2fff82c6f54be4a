"""The simulated Phone (dialer) app, driven for real: headless Chromium through ``SimEnv``.

Each flow starts from a fresh phone (the default world has 8 calls in its log), runs the
oracle skills or raw schema actions in both flavors, and checks the resulting
``WorldState``: the digits on the dial pad (``dialer_number``) and the call log (``calls``).
Bad input (calling with nothing dialled, letters typed into the digits, a call screen with
no number) must leave the app running and the state valid.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

import pytest

from actionmap.actions import Action, Key, LongPress, Tap, TypeText, Wait
from actionmap.observation import Observation
from actionmap.worldstate import Call

pytest.importorskip("playwright")

from sim import state as sim_state  # noqa: E402
from sim.env import SimEnv  # noqa: E402
from transfer.oracle.base import Ctx, OracleError  # noqa: E402
from transfer.oracle.drive import run_skill  # noqa: E402
from transfer.oracle.skills import phone as P  # noqa: E402
from _simhelpers import fresh, run, step, find  # noqa: E402

FLAVORS = ["sim", "aosp"]
# the flows that only use the oracle's skills and the dial pad run on Google Dialer too (its own screens:
# tests/test_sim_google_phone.py)
ALL_FLAVORS = ["sim", "aosp", "google"]


def calls(env: SimEnv) -> list[Call]:
    return list(env.read_state().calls or [])


def newest(cs: list[Call], kind: str | None = None) -> Call:
    """The newest call (of ``kind``) as the log orders it: by time, later-added first on ties."""
    order = sorted(enumerate(cs), key=lambda ic: (ic[1].time or datetime.min, ic[0]), reverse=True)
    return next(c for _, c in order if kind is None or c.kind == kind)


def healthy(env: SimEnv) -> None:
    step(env, Wait(seconds=0))
    sim_state.load(env.capture())


# --- flows ----------------------------------------------------------------------------------

@pytest.mark.parametrize("flavor", ALL_FLAVORS)
def test_dial_then_call(flavor: str) -> None:
    env = fresh(flavor)
    n = len(calls(env))
    run(env, P.dial_number, number="+1 (206) 555-0100")
    assert env.read_state().dialer_number == "+12065550100"
    assert len(calls(env)) == n  # dialling alone places no call

    target = next(c for c in env.read_state().contacts or [] if c.phones)
    run(env, P.call_number, number=target.phones[0].number)
    ws = env.read_state()
    assert len(ws.calls) == n + 1 and ws.dialer_number == ""
    call = ws.calls[-1]
    assert call.kind == "outgoing" and call.duration_s == 0 and call.id
    assert P.dial_string(call.number) == P.dial_string(target.phones[0].number)
    assert call.name == target.name  # the dialled number belongs to a contact
    assert call.time is not None and call.time <= ws.time

    last = run(env, P.read_last_call)
    assert last["kind"] == "outgoing" and last["name"] == target.name
    assert P.dial_string(last["number"]) == P.dial_string(call.number)
    healthy(env)


@pytest.mark.parametrize("flavor", ALL_FLAVORS)
def test_read_last_call_matches_log(flavor: str) -> None:
    extra = {"add": {"calls": [
        {"number": "+1 650 555 0199", "name": "", "kind": "missed", "time": "2027-03-15T09:10:00"},
        {"number": "+1 212 555 0142", "name": "", "kind": "incoming", "time": "2027-03-15T08:00:00", "duration_s": 75},
    ]}}
    env = fresh(flavor, extra)
    log = calls(env)
    for kind in (None, "missed", "incoming", "outgoing"):
        want = newest(log, kind)
        got = run(env, P.read_last_call, kind=kind)
        assert got["kind"] == want.kind, (kind, got)
        assert P.dial_string(got["number"]) == P.dial_string(want.number), (kind, got)
        assert got["name"] == want.name, (kind, got)
    # in the default world the only missed call is the oldest one, below the fold of the log
    env2 = fresh(flavor)
    want = newest(calls(env2), "missed")
    got = run(env2, P.read_last_call, kind="missed")
    assert (got["name"], got["kind"]) == (want.name, "missed")
    assert run(env2, P.read_last_call, kind="voicemail") == {}
    with pytest.raises(OracleError):
        run(env2, P.read_last_call, kind="weird")
    healthy(env)


@pytest.mark.parametrize("flavor", ALL_FLAVORS)
def test_bad_input_keeps_state_valid(flavor: str) -> None:
    env = fresh(flavor, {"start": {"app": "phone"}})
    n = len(calls(env))
    obs = env.observe()
    if flavor != "sim":  # AOSP's and Google's pad is behind the "key pad" FAB
        obs = step(env, Tap(target=find(obs, desc="key pad").index))
    # calling with nothing dialled only recalls the last dialled number (Pixel behaviour)
    last_out = newest(calls(env), "outgoing")
    obs = step(env, Tap(target=find(obs, desc="dial").index))
    assert env.read_state().dialer_number == last_out.number and len(calls(env)) == n
    # letters typed into the digits are dropped; Back only leaves the dial pad
    obs = step(env, Tap(target=find(obs, rid="digits").index))
    obs = step(env, TypeText(text="12ab#x*9", clear=True))
    assert env.read_state().dialer_number == "12#*9"
    obs = step(env, Key(key="delete"))
    assert env.read_state().dialer_number == "12#*"
    # long-pressing backspace clears everything
    obs = step(env, LongPress(target=find(obs, desc="backspace").index))
    assert env.read_state().dialer_number == ""
    # nothing left to delete: sim hides backspace, AOSP disables it (DialpadFragment.updateDeleteButtonEnabledState)
    assert find(obs, desc="backspace", pred=lambda e: e.clickable and e.enabled) is None
    # a call screen opened without a number logs nothing when ended
    env2 = fresh(flavor, {"start": {"app": "phone", "route": "incall"}})
    obs = step(env2, Key(key="back"))  # Back keeps the call screen (no ongoing-call chip to return with)
    obs = step(env2, Tap(target=find(obs, desc="End call").index))
    assert len(calls(env2)) == n
    healthy(env)
    healthy(env2)


@pytest.mark.parametrize("flavor", FLAVORS)
def test_call_details_delete_and_clear_history(flavor: str) -> None:
    env = fresh(flavor)
    log = calls(env)
    top = newest(log)
    obs = run_skill(env, lambda ctx: P.open_recents(ctx, missed=False), flavor=flavor)[0]
    row = min(Ctx(obs=obs).find_all(rid="call_log_row"), key=lambda e: e.bounds.top)
    obs = step(env, Tap(target=row.index))
    if flavor == "aosp":
        # the card expanded in place to its actions (call_log_list_item_actions.xml)
        assert find(obs, "Send a message") is not None and find(obs, rid="details_action") is not None
        obs = step(env, Tap(target=find(obs, rid="details_action").index))
    assert find(obs, "Call details") is not None and find(obs, top.name, rid="contact_name") is not None
    if flavor == "aosp":  # the footer's Delete deletes at once (CallDetailsFooterViewHolder)
        obs = step(env, Tap(target=find(obs, "Delete", rid="call_detail_action_delete").index))
    else:
        obs = step(env, Tap(target=find(obs, desc="Delete").index))
        obs = step(env, Tap(target=find(obs, "Delete", cls="Button").index))
    assert [c.id for c in calls(env)] == [c.id for c in log if c.id != top.id]
    # clear the whole log through the overflow menu
    obs = run_skill(env, lambda ctx: P.open_phone(ctx), flavor=flavor)[0]
    if flavor == "aosp":
        obs = step(env, Tap(target=find(obs, desc="More options").index))
        obs = step(env, Tap(target=find(obs, "Call history").index))
    obs = step(env, Tap(target=find(obs, desc="More options").index))
    obs = step(env, Tap(target=find(obs, "Clear call history").index))
    obs = step(env, Tap(target=find(obs, "Clear" if flavor == "sim" else "OK", cls="Button").index))
    assert calls(env) == []
    assert find(obs, "No calls" if flavor == "sim" else "Your call history is empty") is not None
    assert run(env, P.read_last_call) == {}
    healthy(env)


def test_flavors_differ() -> None:
    sim = fresh("sim", {"start": {"app": "phone"}}).observe()
    aosp = fresh("aosp", {"start": {"app": "phone"}}).observe()
    # sim: top tabs with the dial pad right on the first one
    assert find(sim, "Keypad", rid="tab_keypad") is not None and find(sim, desc="dial") is not None
    assert find(sim, desc="key pad") is None
    # aosp: Pixel bottom navigation, the dial pad behind a "key pad" FAB
    # (bottom_nav_bar_layout.xml; no Voicemail tab without visual voicemail)
    for label, rid in (("Favorites", "speed_dial_tab"), ("Recents", "call_log_tab"), ("Contacts", "contacts_tab")):
        assert find(aosp, rid=rid) is not None and find(aosp, label, rid="bottom_nav_item_text") is not None, label
    assert find(aosp, "Voicemail") is None
    assert find(aosp, desc="key pad", rid="fab") is not None and find(aosp, desc="dial") is None
    assert find(aosp, "Search contacts", rid="search_box_start_search") is not None
    # sim rows say "Incoming · <time>"; AOSP describes a card "Answered call from <name>, …"
    env_s, env_a = fresh("sim", {"start": {"app": "phone"}}), fresh("aosp", {"start": {"app": "phone"}})
    rs = step(env_s, Tap(target=find(env_s.observe(), "Recents").index))
    ra = step(env_a, Tap(target=find(env_a.observe(), rid="call_log_tab").index))
    assert any(e.text.startswith("Incoming · ") for e in rs.elements)
    assert any(e.content_desc.startswith("Answered call from ") for e in ra.elements)
    assert not any(e.content_desc.startswith("Answered call from ") for e in rs.elements)


def test_favorite_tile_calls_contact() -> None:
    env = fresh("aosp", {"start": {"app": "phone"}})
    fav = sorted((c for c in env.read_state().contacts or [] if c.starred), key=lambda c: c.name)[0]
    obs = env.observe()
    tile = find(obs, fav.name, rid="name")  # speeddial favorite_item_layout.xml
    obs = step(env, Tap(target=tile.index))
    assert find(obs, fav.name, rid="contactgrid_contact_name") is not None
    step(env, Tap(target=find(obs, desc="End call").index))
    last = calls(env)[-1]
    assert (last.name, last.number, last.kind) == (fav.name, fav.phones[0].number, "outgoing")
