"""Oracle skills for Messages (com.android.messaging).

Threads are found by what the list shows (a contact's name, or the number when the address
has no contact); a number whose thread shows a name is resolved through the app's own search
first. Every skill starts with :func:`open_messages`, so it works from any screen, in both
flavors (``sim`` / ``aosp``), and on a real phone whose Messages app uses the same words.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from actionmap.actions import Key, Scroll, Tap, TypeText
from actionmap.observation import UIElement

from ..base import Ctx, OracleError, Skill, act, back, long_press, norm, open_app, tap

_UNREAD = re.compile(r"^\s*unread\b", re.I)


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


def _inside(outer: UIElement, inner: UIElement) -> bool:
    o, i = outer.bounds, inner.bounds
    return o.left <= i.left and o.top <= i.top and i.right <= o.right and i.bottom <= o.bottom and outer.index != inner.index


def _row_parts(ctx: Ctx, row: UIElement) -> tuple[str, str]:
    """(title, subtitle) texts shown inside a list row."""
    title = sub = ""
    for e in ctx.obs.elements:
        if _inside(row, e):
            if e.resource_id.endswith("/title") and not title:
                title = e.text
            elif e.resource_id.endswith("/summary") and not sub:
                sub = e.text
    return title, sub


def _matches(ctx: Ctx, row: UIElement, who: str) -> bool:
    title, sub = _row_parts(ctx, row)
    if norm(title) == norm(who):
        return True
    return _is_number(who) and (_same_number(title, who) or _same_number(sub, who))


def _dismiss_permission(ctx: Ctx) -> Skill:
    allow = ctx.find(rid="permission_allow_button")
    if allow is not None:
        yield from tap(ctx, rid="permission_allow_button", scroll=False)
    return ctx.obs


def open_messages(ctx: Ctx) -> Skill:
    """Open Messages on its conversation list (leaving any thread, dialog or selection)."""
    yield from open_app(ctx, "messages")
    yield from _dismiss_permission(ctx)
    for _ in range(8):
        if ctx.has(desc="Start chat") and not ctx.has(desc="Navigate up"):
            return ctx.obs
        yield from back(ctx)
        if ctx.obs.foreground.app not in (None, "messages"):
            yield from open_app(ctx, "messages")
    raise OracleError("could not reach the Messages conversation list")


def _scan(ctx: Ctx, match: Callable[[UIElement], bool], rid: str = "conversation_list_item") -> Skill:
    """Find a list row (scrolling up to the top, then down); None when it is not in the list."""
    def hit() -> UIElement | None:
        return next((e for e in ctx.find_all(rid=rid) if match(e)), None)

    for direction in ("up", "down"):
        for _ in range(ctx.max_scrolls):
            el = hit()
            if el is not None:
                return el
            before = [(e.text, e.bounds) for e in ctx.obs.elements]
            yield from act(ctx, Scroll(direction=direction))  # type: ignore[arg-type]
            if [(e.text, e.bounds) for e in ctx.obs.elements] == before:
                break
    return hit()


def _search(ctx: Ctx, query: str) -> Skill:
    """Open the app's search with ``query``; returns the matching conversation rows."""
    yield from tap(ctx, desc=ctx.t("Search", "Search conversations"), scroll=False)
    yield from act(ctx, TypeText(text=query, clear=True))
    return ctx.find_all(rid="conversation_list_item")


def _list_row(ctx: Ctx, who: str) -> Skill:
    """The conversation-list row of ``who`` (a name or a number), or None."""
    yield from open_messages(ctx)
    row = yield from _scan(ctx, lambda e: _matches(ctx, e, who))
    if row is not None or not _is_number(who):
        return row
    # a number whose thread shows a contact name: learn the name from search, then look again
    hits = yield from _search(ctx, who)
    name = next((_row_parts(ctx, h)[0] for h in hits if _matches(ctx, h, who)), None)
    yield from open_messages(ctx)
    if name is None:
        return None
    return (yield from _scan(ctx, lambda e: norm(_row_parts(ctx, e)[0]) == norm(name)))


def open_thread(ctx: Ctx, who: str) -> Skill:
    """Open the conversation with ``who`` (contact name or number); raises if there is none."""
    row = yield from _list_row(ctx, who)
    if row is None:
        hits = yield from _search(ctx, who)
        row = next((h for h in hits if _matches(ctx, h, who)), None)
        if row is None:
            raise OracleError(f"no conversation with {who!r}")
    yield from act(ctx, Tap(target=row.index))
    if not ctx.has(rid="compose_message_text"):
        raise OracleError(f"conversation with {who!r} did not open")
    return ctx.obs


def _start_chat(ctx: Ctx, to: str) -> Skill:
    """Start chat → To field → pick the contact (or the typed number) → the conversation."""
    yield from open_messages(ctx)
    yield from tap(ctx, desc="Start chat", scroll=False)
    field = ctx.find(rid="recipient_text_view")
    if field is None:
        raise OracleError("no To field on the new conversation screen")
    yield from act(ctx, TypeText(text=to, clear=True, target=None if field.focused else field.index))

    def pick(e: UIElement) -> bool:
        name, _, number = e.content_desc.rpartition(", ")
        return norm(name) == norm(to) or (_is_number(to) and _same_number(number, to))

    rows = ctx.find_all(rid="contact_picker_item")
    chosen = next((r for r in rows if pick(r)), None)
    if chosen is not None:
        yield from act(ctx, Tap(target=chosen.index))
    elif _is_number(to):
        yield from act(ctx, Key(key="enter"))
    elif len(rows) == 1:
        yield from act(ctx, Tap(target=rows[0].index))
    else:
        raise OracleError(f"no single contact matches {to!r} ({len(rows)} suggestions)")
    if not ctx.has(rid="compose_message_text"):
        raise OracleError(f"could not open a conversation with {to!r}")
    return ctx.obs


def _type_compose(ctx: Ctx, body: str) -> Skill:
    field = ctx.find(rid="compose_message_text")
    if field is None:
        raise OracleError("no compose field")
    return (yield from act(ctx, TypeText(text=body, clear=True, target=None if field.focused else field.index)))


def _bubbles(ctx: Ctx) -> list[UIElement]:
    return sorted(ctx.find_all(rid="message_text"), key=lambda e: e.bounds.top)


def send_message(ctx: Ctx, to: str, body: str) -> Skill:
    """Send ``body`` to ``to`` (a contact name or a number), starting a thread if needed."""
    if not body.strip():
        raise OracleError("cannot send an empty message")
    yield from _start_chat(ctx, to)
    yield from _type_compose(ctx, body)
    yield from tap(ctx, desc="Send SMS", scroll=False)
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
    if row is None or "draft" not in norm(row.content_desc):
        raise OracleError(f"no draft shows for {to!r}")
    return ctx.obs


def _selection_action(ctx: Ctx, label: str) -> Skill:
    """Tap an action of selection mode: a toolbar icon (sim) or under More options (aosp)."""
    if ctx.has(desc=label):
        return (yield from tap(ctx, desc=label, scroll=False))
    if ctx.has(desc="More options"):
        yield from tap(ctx, desc="More options", scroll=False)
        if ctx.has(label):
            return (yield from tap(ctx, label, scroll=False))
        yield from back(ctx)
    return None


def mark_thread_read(ctx: Ctx, who: str) -> Skill:
    """Mark the thread with ``who`` as read via long press → Mark as read (no-op if already read)."""
    row = yield from _list_row(ctx, who)
    if row is None:
        raise OracleError(f"no conversation with {who!r}")
    if not _UNREAD.match(row.content_desc):
        return ctx.obs
    yield from long_press(ctx, pred=lambda e: e.index == row.index)
    done = yield from _selection_action(ctx, "Mark as read")
    if done is None:
        raise OracleError("no Mark as read action in selection mode")
    yield from open_messages(ctx)
    row = yield from _list_row(ctx, who)
    if row is None or _UNREAD.match(row.content_desc):
        raise OracleError(f"thread {who!r} is still unread")
    return ctx.obs


def delete_thread(ctx: Ctx, who: str) -> Skill:
    """Delete the whole conversation with ``who`` (long press → Delete → confirm)."""
    row = yield from _list_row(ctx, who)
    if row is None:
        raise OracleError(f"no conversation with {who!r}")
    title = _row_parts(ctx, row)[0]
    yield from long_press(ctx, pred=lambda e: e.index == row.index)
    yield from tap(ctx, desc="Delete", scroll=False)
    yield from tap(ctx, "Delete", cls="Button", scroll=False)
    if any(norm(_row_parts(ctx, r)[0]) == norm(title) for r in ctx.find_all(rid="conversation_list_item")):
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
    seen: dict[str, bool] = {}

    def collect() -> None:
        for r in ctx.find_all(rid="conversation_list_item"):
            seen[r.content_desc] = bool(_UNREAD.match(r.content_desc))

    for direction in ("up", "down"):
        for _ in range(ctx.max_scrolls):
            collect()
            before = [(e.text, e.bounds) for e in ctx.obs.elements]
            yield from act(ctx, Scroll(direction=direction))  # type: ignore[arg-type]
            if [(e.text, e.bounds) for e in ctx.obs.elements] == before:
                break
    collect()
    return sum(seen.values())
