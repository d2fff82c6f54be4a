"""Oracle skills for Messages, through the app UI layer (:mod:`device.apps.messages`).

Threads are found by what the list shows (a contact's name, or the number when the address
has no contact); a number whose thread shows a name is resolved through the app's own search
first (or, where that does not show the number — AOSP Messaging has no search, Google Messages'
results show names — through the new-conversation picker's suggestion for that number). Where
the app has no "Mark as read" (AOSP Messaging), opening a conversation reads it. Every control
is a role of the phone's Messages family (``start_chat``, ``send``, ``recipient_field`` …) and
every word the skills look for is the family's (``you_said``, ``unread``, ``draft``), so the
same skills run on the simulator's ``sim``, ``aosp`` and ``google`` flavors and on a phone's
AOSP, Google or Samsung Messages. Every skill starts with :func:`open_messages`, so it works
from any screen.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from actionmap.actions import Key, Tap, TypeText
from actionmap.observation import UIElement

from device.apps import driver
from device.apps.messages import plain

from ..base import Ctx, OracleError, Skill, act, back, long_press, norm, open_app, sweep, tap_role

APP = "messages"


def _digits(s: str) -> str:
    return re.sub(r"\D", "", s or "")


def _same_number(a: str, b: str) -> bool:
    """Phone numbers compared by digits (last 10), as the app groups threads."""
    da, db = _digits(a), _digits(b)
    if len(da) < 3 or len(db) < 3:
        return False
    return da[-10:] == db[-10:]


def _is_number(s: str) -> bool:
    return bool(re.fullmatch(r"[+\d][\d\s().\-]*", (s or "").strip())) and len(_digits(s)) >= 3


def _info(ctx: Ctx, row: UIElement) -> dict[str, Any]:
    """What a conversation row shows (name, snippet, time, unread, draft), read by the layer."""
    return driver(APP).row_info(ctx.ui(APP), row)


def _row_parts(ctx: Ctx, row: UIElement) -> tuple[str, str]:
    """(name, snippet) shown in a conversation row."""
    info = _info(ctx, row)
    return info["name"] or "", info["snippet"] or ""


def _unread(ctx: Ctx, row: UIElement) -> bool:
    return bool(_info(ctx, row)["unread"])


# kept for tests/test_oracle_train.py's list of helpers the solutions once used (now ``_unread``)
_UNREAD = _unread


def _rows(ctx: Ctx) -> list[UIElement]:
    """The conversation rows whose name is on screen (a row scrolled half out of the list may show
    only its lower part)."""
    return [r for r in ctx.roles(APP, "conversation_row") if _info(ctx, r)["name"]]


def _matches(ctx: Ctx, row: UIElement, who: str) -> bool:
    title, sub = _row_parts(ctx, row)
    if plain(title) == plain(who):
        return True
    return _is_number(who) and (_same_number(title, who) or _same_number(sub, who))


def _dismiss_permission(ctx: Ctx) -> Skill:
    if ctx.role(APP, "permission_allow") is not None:
        yield from tap_role(ctx, APP, "permission_allow")
    return ctx.obs


def _at_list(ctx: Ctx) -> bool:
    """On the conversation list itself (not a thread, not selection mode): the start-chat button
    is there and no up arrow is."""
    return ctx.role(APP, "start_chat") is not None and ctx.role(APP, "back") is None


def open_messages(ctx: Ctx) -> Skill:
    """Open Messages on its conversation list (leaving any thread, dialog or selection)."""
    yield from open_app(ctx, APP)
    yield from _dismiss_permission(ctx)
    for _ in range(8):
        if _at_list(ctx):
            return ctx.obs
        yield from back(ctx)
        if ctx.obs.foreground.app not in (None, APP):
            yield from open_app(ctx, APP)
    raise OracleError(f"could not reach the Messages conversation list ({ctx.family(APP)} family)")


def _scan(ctx: Ctx, match: Callable[[UIElement], bool], role: str = "conversation_row") -> Skill:
    """Find a list row (scrolling up to the top, then down); None when it is not in the list."""
    def hit(_direction: str = "") -> UIElement | None:
        return next((e for e in ctx.roles(APP, role) if match(e)), None)

    el = yield from sweep(ctx, hit)
    return el if el is not None else hit()


def _has(ctx: Ctx, role: str) -> bool:
    """Whether the family's app has such a control at all (AOSP Messaging has no search, no "Mark as read")."""
    return bool(ctx.ui(APP).family.roles.get(role))


def _search(ctx: Ctx, query: str) -> Skill:
    """Open the app's search with ``query``; returns the matching conversation rows ([] for an
    app without a conversation search)."""
    if not _has(ctx, "search"):
        return []
    yield from tap_role(ctx, APP, "search")
    yield from act(ctx, TypeText(text=query, clear=True))
    return _rows(ctx)


def _name_of_number(ctx: Ctx, number: str) -> Skill:
    """The contact name the app shows for ``number``: from its search where a result shows the
    number, else (AOSP Messaging has no search; Google Messages' results show the name and the
    last message, not the number) from the new-conversation picker's suggestion for the typed
    number, which shows both."""
    if _has(ctx, "search"):
        hits = yield from _search(ctx, number)
        name = next((_row_parts(ctx, h)[0] for h in hits if _matches(ctx, h, number)), None)
        if name is not None:
            return name
        yield from open_messages(ctx)
    yield from tap_role(ctx, APP, "start_chat")
    field = ctx.need(APP, "recipient_field")
    yield from act(ctx, TypeText(text=number, clear=True, target=None if field.focused else field.index))
    for r in ctx.roles(APP, "suggestion_row"):
        name, detail = _suggestion(ctx, r)
        if name and _same_number(detail, number):
            return name
    return None


def _list_row(ctx: Ctx, who: str) -> Skill:
    """The conversation-list row of ``who`` (a name or a number), or None."""
    yield from open_messages(ctx)
    row = yield from _scan(ctx, lambda e: _matches(ctx, e, who))
    if row is not None or not _is_number(who):
        return row
    # a number whose thread shows a contact name: learn the name, then look again
    name = yield from _name_of_number(ctx, who)
    yield from open_messages(ctx)
    if name is None:
        return None
    return (yield from _scan(ctx, lambda e: plain(_row_parts(ctx, e)[0]) == plain(name)))


def open_thread(ctx: Ctx, who: str) -> Skill:
    """Open the conversation with ``who`` (contact name or number); raises if there is none."""
    row = yield from _list_row(ctx, who)
    if row is None:
        hits = yield from _search(ctx, who)
        row = next((h for h in hits if _matches(ctx, h, who)), None)
        if row is None:
            raise OracleError(f"no conversation with {who!r}")
    yield from act(ctx, Tap(target=row.index))
    if ctx.role(APP, "message_field") is None:
        raise OracleError(f"conversation with {who!r} did not open")
    return ctx.obs


def _suggestion(ctx: Ctx, row: UIElement) -> tuple[str, str]:
    """(name, detail) of a recipient suggestion: the contact's name and the line with its number."""
    name = ctx.role(APP, "suggestion_name", within=row)
    detail = ctx.role(APP, "suggestion_detail", within=row)
    return (name.text if name is not None else "", detail.text if detail is not None else "")


def _start_chat(ctx: Ctx, to: str) -> Skill:
    """Start chat → To field → pick the contact (or the typed number) → the conversation."""
    yield from open_messages(ctx)
    yield from tap_role(ctx, APP, "start_chat")
    field = ctx.need(APP, "recipient_field")
    yield from act(ctx, TypeText(text=to, clear=True, target=None if field.focused else field.index))

    def pick(e: UIElement) -> bool:
        name, number = _suggestion(ctx, e)
        return plain(name) == plain(to) or (_is_number(to) and _same_number(number, to))

    rows = ctx.roles(APP, "suggestion_row")
    chosen = next((r for r in rows if pick(r)), None)
    if chosen is not None:
        yield from act(ctx, Tap(target=chosen.index))
    elif _is_number(to):
        yield from act(ctx, Key(key="enter"))
    elif len(rows) == 1:
        yield from act(ctx, Tap(target=rows[0].index))
    else:
        raise OracleError(f"no single contact matches {to!r} ({len(rows)} suggestions)")
    if ctx.role(APP, "message_field") is None:
        raise OracleError(f"could not open a conversation with {to!r}")
    return ctx.obs


def _type_compose(ctx: Ctx, body: str) -> Skill:
    field = ctx.need(APP, "message_field")
    return (yield from act(ctx, TypeText(text=body, clear=True, target=None if field.focused else field.index)))


def _bubbles(ctx: Ctx) -> list[UIElement]:
    return sorted(ctx.roles(APP, "message_text"), key=lambda e: e.bounds.top)


def send_message(ctx: Ctx, to: str, body: str) -> Skill:
    """Send ``body`` to ``to`` (a contact name or a number), starting a thread if needed."""
    if not body.strip():
        raise OracleError("cannot send an empty message")
    yield from _start_chat(ctx, to)
    yield from _type_compose(ctx, body)
    yield from tap_role(ctx, APP, "send")
    last = _bubbles(ctx)
    if not last or norm(last[-1].text) != norm(body.strip()):
        raise OracleError("the sent message does not show as the last bubble")
    return ctx.obs


def save_draft(ctx: Ctx, to: str, body: str) -> Skill:
    """Type ``body`` for ``to`` without sending, and leave: the app keeps it as a draft."""
    yield from _start_chat(ctx, to)
    yield from _type_compose(ctx, body)
    yield from open_messages(ctx)
    row = yield from _list_row(ctx, to)
    if row is None or not _info(ctx, row)["draft"]:
        raise OracleError(f"no draft shows for {to!r}")
    return ctx.obs


def _selection_action(ctx: Ctx, role: str) -> Skill:
    """Tap an action of selection mode: a toolbar icon, or an item under More options."""
    if ctx.role(APP, role) is not None:
        return (yield from tap_role(ctx, APP, role))
    if ctx.role(APP, "more_options") is not None:
        yield from tap_role(ctx, APP, "more_options")
        if ctx.role(APP, role) is not None:
            return (yield from tap_role(ctx, APP, role))
        yield from back(ctx)
    return None


def mark_thread_read(ctx: Ctx, who: str) -> Skill:
    """Mark the thread with ``who`` as read via long press → Mark as read, or, in an app without that
    action (AOSP Messaging), by opening it (no-op if already read)."""
    row = yield from _list_row(ctx, who)
    if row is None:
        raise OracleError(f"no conversation with {who!r}")
    if not _unread(ctx, row):
        return ctx.obs
    if not _has(ctx, "mark_read"):
        yield from act(ctx, Tap(target=row.index))
        if ctx.role(APP, "message_field") is None:
            raise OracleError(f"conversation with {who!r} did not open")
    else:
        yield from long_press(ctx, pred=lambda e: e.index == row.index)
        done = yield from _selection_action(ctx, "mark_read")
        if done is None:
            raise OracleError(f"no mark_read action in selection mode ({ctx.family(APP)} family)")
    yield from open_messages(ctx)
    row = yield from _list_row(ctx, who)
    if row is None or _unread(ctx, row):
        raise OracleError(f"thread {who!r} is still unread")
    return ctx.obs


def delete_thread(ctx: Ctx, who: str) -> Skill:
    """Delete the whole conversation with ``who`` (long press → Delete → confirm)."""
    row = yield from _list_row(ctx, who)
    if row is None:
        raise OracleError(f"no conversation with {who!r}")
    title = _row_parts(ctx, row)[0]
    yield from long_press(ctx, pred=lambda e: e.index == row.index)
    yield from tap_role(ctx, APP, "selection_delete")
    yield from tap_role(ctx, APP, "confirm_delete")
    if any(plain(_row_parts(ctx, r)[0]) == plain(title) for r in _rows(ctx)):
        raise OracleError(f"conversation {who!r} is still listed")
    return ctx.obs


def read_last_message(ctx: Ctx, who: str) -> Skill:
    """The text of the newest message (sent or received) in the thread with ``who``."""
    yield from open_thread(ctx, who)
    bubbles = _bubbles(ctx)
    if not bubbles:
        raise OracleError(f"the conversation with {who!r} has no messages")
    return bubbles[-1].text


def count_unread_threads(ctx: Ctx) -> Skill:
    """How many conversations the list shows as unread."""
    yield from open_messages(ctx)
    seen: dict[tuple[Any, ...], bool] = {}

    def collect(_direction: str = "") -> None:
        for r in _rows(ctx):
            info = _info(ctx, r)
            seen[(r.content_desc, info["name"], info["snippet"], info["time"])] = bool(info["unread"])

    yield from sweep(ctx, collect)
    collect()
    return sum(seen.values())
