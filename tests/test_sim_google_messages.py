"""The simulator's `google` flavor of Messages: Google Messages' own screens, driven for real.

What is checked: the screens carry Google Messages' package, ids, Compose test tags and
descriptions (sim/static/apps/google/messages.js cites the evidence for each), the app UI layer
reads them through the `google` family's cited selectors, the world changes exactly as in the
other flavors, and the screen a real phone dumped (tests/fixtures/real-apps/google/messages/)
reads like the simulator's screen in the same state (tests/_recipes_messages.py).
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from actionmap.actions import Key, LongPress, OpenApp, Tap, TypeText

pytest.importorskip("playwright")

import _screens  # noqa: E402
from _recipes_messages import KNOWN_GAPS, RECIPES  # noqa: E402
from _simhelpers import find, healthy, step  # noqa: E402
from device.apps import read_screen  # noqa: E402
from sim.env import SimEnv  # noqa: E402
from transfer.oracle.base import OracleError  # noqa: E402
from transfer.oracle.drive import run_skill  # noqa: E402
from transfer.oracle.skills import messages as M  # noqa: E402

PKG = "com.google.android.apps.messaging"
ZOE = "Zoë Ångström"
SETUP: dict[str, Any] = {"add": {
    "contacts": [{"name": ZOE, "phones": [{"number": "+1 415 555 0101", "label": "mobile"}]}],
    "messages": [
        {"address": "(415) 555-0101", "body": "Old news", "box": "sent", "read": True, "time": "2027-03-15T08:00:00"},
        {"address": "4155550101", "body": "Ça va? 你好", "box": "inbox", "read": False, "time": "2027-03-15T09:00:00"},
    ]}}
def fresh(setup: dict[str, Any] | None = SETUP) -> SimEnv:
    env = SimEnv("pixel", "google", screenshots=False)
    env.reset(setup)
    return env


def run(env: SimEnv, skill: Any, *args: Any) -> Any:
    return run_skill(env, lambda ctx: skill(ctx, *args), flavor="google", max_steps=80)[2]


def key(addr: str) -> str:
    d = re.sub(r"\D", "", addr)
    return d[-10:] if len(d) >= 10 else d


@pytest.mark.parametrize("name", sorted(RECIPES))
def test_the_real_dumps_read_like_the_simulator_in_the_same_state(name: str) -> None:
    flavor, recipe = RECIPES[name]
    env = SimEnv("pixel", flavor, screenshots=False)
    env.reset(None)
    recipe(env)
    assert _screens.compare(name, env.observe().elements) == KNOWN_GAPS.get(name, [])


def test_the_list_is_google_messages() -> None:
    env = fresh()
    obs = step(env, OpenApp(app="messages"))
    assert obs.foreground.package == PKG
    r = read_screen(obs.elements)
    assert (r.app, r.family, r.screen) == ("messages", "google", "conversation_list")
    fab = find(obs, rid="start_chat_fab")
    assert (fab.class_name, fab.text, fab.content_desc) == ("android.widget.Button", "Start chat", "Start chat")
    assert find(obs, rid="action_zero_state_search", desc="Search") is not None
    rows = r.visible["conversations"]
    zoe = next(c for c in rows if c["name"] == ZOE)
    assert (zoe["snippet"], zoe["unread"], zoe["draft"]) == ("Ça va? 你好", True, False)
    # unread rows are told by their badge, no description says so
    unread = {c["name"] for c in rows if c["unread"]}
    assert len(unread) == len({key(m.address) for m in env.read_state().messages if m.box == "inbox" and not m.read})
    assert len([e for e in obs.elements if e.resource_id == f"{PKG}:id/unread_badge_view_with_message_count_stub"]) == len(unread)
    row = find(obs, rid="swipeableContainer")
    assert row.class_name == "android.view.ViewGroup" and row.clickable and row.long_clickable


def test_a_conversation_is_the_compose_screen_of_the_real_dump() -> None:
    """The conversation is KK's Compose screen: tags without a package, the bubble's own
    description "<who> said  <text> <time> .", KK's icon buttons."""
    env = fresh()
    obs = run_skill(env, lambda ctx: M.open_thread(ctx, ZOE), flavor="google")[0]
    r = read_screen(obs.elements)
    assert (r.family, r.screen, r.visible["title"]) == ("google", "conversation", ZOE)
    assert [(b["text"], b["outgoing"]) for b in r.visible["bubbles"]] == [("Old news", True), ("Ça va? 你好", False)]
    for tag in ("ConversationScreenUi", "top_app_bar", "top_app_bar_title_row", "message_list", "text_separator",
                "ComposeRowIcon:Shortcuts", "ComposeRowIcon:Emotive", "Compose:Draft:Send"):
        assert any(e.resource_id == tag for e in obs.elements), tag
    mine = find(obs, rid="message_text", text="Old news")
    assert mine.resource_id == "message_text" and re.fullmatch(r"You said  Old news \S+( [ap]m)? \.", mine.content_desc)
    theirs = find(obs, rid="message_text", text="Ça va? 你好")
    assert theirs.content_desc.startswith(f"{ZOE} said  Ça va? 你好 ")
    for desc in ("Back", "Call", "More", "Send message", "Show attach content screen"):
        assert find(obs, desc=desc).package == PKG
    field = find(obs, rid=f"{PKG}:id/compose_message_text")
    assert (field.hint, field.text) == ("Text message", "Text message")


def test_start_chat_opens_the_compose_picker_with_the_field_focused() -> None:
    env = fresh()
    obs = step(env, OpenApp(app="messages"))
    obs = step(env, Tap(target=find(obs, rid="start_chat_fab").index))
    field = find(obs, rid="ContactSearchField")
    assert field.resource_id == "ContactSearchField" and field.focused and obs.keyboard_visible
    assert find(obs, "Type names, phone numbers, or emails") is not None and find(obs, "Create group") is not None
    obs = step(env, TypeText(text="zo"))  # typed straight into the focused field
    r = read_screen(obs.elements)
    assert (r.screen, r.visible["recipient"]) == ("new_conversation", "zo")
    assert r.visible["suggestions"] == [{"name": ZOE, "detail": "+1 415 555 0101"}]
    obs = step(env, Tap(target=r.controls[[c.role for c in r.controls].index("suggestion_row")].index))
    assert read_screen(obs.elements).visible["title"] == ZOE


def test_search_mark_unread_and_read_through_the_selection_menu() -> None:
    env = fresh()
    obs = step(env, OpenApp(app="messages"))
    obs = step(env, Tap(target=find(obs, rid="action_zero_state_search").index))
    obs = step(env, TypeText(text="ça va"))
    r = read_screen(obs.elements)
    assert r.screen == "search" and [c["name"] for c in r.visible["conversations"]] == [ZOE]
    assert find(obs, rid="zero_state_search_chat_header", text="Conversations") is not None
    run(env, M.mark_thread_read, ZOE)
    assert all(m.read for m in env.read_state().messages if key(m.address) == "4155550101")
    # long press → More options → "Mark as unread" (a TextView with the app's id `title`)
    obs = run_skill(env, lambda ctx: M.open_messages(ctx), flavor="google")[0]
    row = next(c for c in read_screen(obs.elements).controls if c.role == "conversation_row")
    obs = step(env, LongPress(target=row.index))
    assert find(obs, rid="start_chat_fab") is None and find(obs, desc="Delete") is not None
    obs = step(env, Tap(target=find(obs, desc="More options").index))
    obs = step(env, Tap(target=find(obs, rid=f"{PKG}:id/title", text="Mark as unread").index))
    assert read_screen(obs.elements).visible["conversations"][0]["unread"] is True
    assert run(env, M.count_unread_threads) == 1 + sum(  # Zoë again, and the default world's others
        1 for k in {key(m.address) for m in env.read_state().messages if m.box == "inbox" and not m.read} if k != "4155550101")


def test_send_draft_and_delete_change_the_world_as_everywhere() -> None:
    env = fresh()
    run(env, M.send_message, ZOE, "See you at 7 — café 🙂")
    run(env, M.send_message, "+44 20 7946 0958", "Hello from Google Messages")
    run(env, M.save_draft, "Mia Garcia", "Brauche ich Brot? 🥖")
    ws = healthy(env)
    sent = [(m.address, m.body) for m in ws.messages if m.box == "sent" and m.body in ("See you at 7 — café 🙂", "Hello from Google Messages")]
    assert sent == [("4155550101", "See you at 7 — café 🙂"), ("+44 20 7946 0958", "Hello from Google Messages")]
    drafts = [m.body for m in ws.messages if m.box == "draft"]
    assert drafts == ["Brauche ich Brot? 🥖"]
    obs = run_skill(env, lambda ctx: M.open_messages(ctx), flavor="google")[0]
    mia = next(c for c in read_screen(obs.elements).visible["conversations"] if c["name"] == "Mia Garcia")
    assert (mia["time"], mia["draft"], mia["snippet"]) == ("Draft", True, "Brauche ich Brot? 🥖")
    run(env, M.delete_thread, ZOE)
    assert [m for m in healthy(env).messages if key(m.address) == "4155550101"] == []


def test_bad_input_is_refused_without_damage() -> None:
    env = fresh()
    before = {(m.id, m.address, m.body, m.box) for m in env.read_state().messages}
    obs = run_skill(env, lambda ctx: M.open_thread(ctx, ZOE), flavor="google")[0]
    obs = step(env, TypeText(text="   ", target=find(obs, rid="compose_message_text").index))
    step(env, Tap(target=find(obs, rid="Compose:Draft:Send").index))  # nothing to send
    step(env, Key(key="back"))
    step(env, Key(key="back"))
    with pytest.raises(OracleError):
        run(env, M.send_message, "nobody-by-this-name", "hi")
    with pytest.raises(OracleError):
        run(env, M.open_thread, "Nobody Known")
    assert {(m.id, m.address, m.body, m.box) for m in healthy(env).messages} == before
