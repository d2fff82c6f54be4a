"""Oracle solutions for Messages templates.

Threads are opened, marked, deleted and drafted with ``skills.messages``. Query answers come
from the conversation list (rows, their unread marker) or from a conversation's bubbles,
whose description says who sent each one (the family's "You said …" for the phone's own
messages). Controls and bubbles are found through the app UI layer (:mod:`device.apps`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from actionmap.actions import Tap, TypeText

from device.apps import driver

from ..base import Ctx, OracleError, Skill, act, answer, back, complete, norm, scroll_once, tap_role
from ..skills import messages as M
from ..skills.common import dial_form, each_retrying, retrying
from .registry import solution

_PHONE = re.compile(r"\+?\d[\d\s().\-]{5,}\d")


def recipient_from(inst: Any) -> str:
    """The number the instruction tells us to text (the run's test recipient)."""
    m = _PHONE.search(inst.instruction)
    if m is None:
        raise OracleError(f"no phone number in the instruction {inst.instruction!r}")
    return m.group(0).strip()


def thread_bubbles(ctx: Ctx) -> Skill:
    """Every bubble of the open conversation, oldest first, as (outgoing, text).

    Scrolls to the top, then pages down; consecutive pages overlap and are merged on the
    longest overlap of (outgoing, text, status) tuples."""
    def page() -> list[tuple[bool, str, str]]:
        return [(bool(b["outgoing"]), b["text"], b["desc"]) for b in driver(M.APP).bubbles(ctx.ui(M.APP))]

    if ctx.obs.keyboard_visible:
        yield from back(ctx)
    for _ in range(ctx.max_scrolls):
        if not (yield from scroll_once(ctx, "up")):
            break
    seen = page()
    for _ in range(ctx.max_scrolls):
        if not (yield from scroll_once(ctx, "down")):
            break
        new = page()
        k = next((k for k in range(min(len(seen), len(new)), 0, -1) if seen[-k:] == new[:k]), 0)
        seen.extend(new[k:])
    return [(o, t) for o, t, _d in seen]


def visible_bubbles(ctx: Ctx) -> list[tuple[bool, str]]:
    """(outgoing, text) of the bubbles on screen, top to bottom."""
    return [(bool(b["outgoing"]), b["text"]) for b in driver(M.APP).bubbles(ctx.ui(M.APP))]


def conversation_rows(ctx: Ctx) -> Skill:
    """(title, summary, unread) of every conversation, top (newest) to bottom."""
    yield from M.open_messages(ctx)
    rows: list[tuple[str, str, bool]] = []
    for _ in range(ctx.max_scrolls):
        for r in sorted(M._rows(ctx), key=lambda e: e.bounds.top):
            title, sub = M._row_parts(ctx, r)
            item = (title, sub, M._unread(ctx, r))
            if item not in rows:
                rows.append(item)
        if not (yield from scroll_once(ctx, "down")):
            break
    return rows


def open_thread(ctx: Ctx, who: str) -> Skill:
    """``skills.messages.open_thread``, tried up to three times (it restarts from the list).

    Why three: when a tap is held long enough to count as a long press, the sim app selects
    the row and then swallows the *next* click on that row as the long press's own trailing
    click — so the second tap is lost too."""
    return (yield from retrying(ctx, lambda: M.open_thread(ctx, who), tries=3))


def draft_in_thread(ctx: Ctx, who: str, body: str) -> Skill:
    """Open the existing conversation with ``who``, type ``body`` and leave it unsent."""
    yield from open_thread(ctx, who)
    field = ctx.need(M.APP, "message_field")
    if not field.focused:
        yield from act(ctx, Tap(target=field.index))
    yield from act(ctx, TypeText(text=body, clear=True))
    yield from M.open_messages(ctx)
    return ctx.obs


# --- operate -------------------------------------------------------------------------------------

@solution("messages.read_thread")
def solve_read_thread(ctx: Ctx, inst: Any) -> Skill:
    yield from open_thread(ctx, inst.params["p"]["full"])
    yield from complete(ctx)


# template → (what it does to a conversation, the conversations it names). The skills take
# "(503) 555-0169" for a name, not a number: numbers go in by their digits.
_THREAD_OPS: dict[str, tuple[Callable[[Ctx, str], Skill], Callable[[dict[str, Any]], list[str]]]] = {
    "messages.mark_read_number": (M.mark_thread_read, lambda p: [dial_form(p["ph"]["text"])]),
    "train.messages.mark_two_read": (M.mark_thread_read, lambda p: [x["full"] for x in p["ps"][:2]]),
    "messages.delete_thread": (M.delete_thread, lambda p: [p["p"]["full"]]),
    "train.messages.delete_two_threads": (M.delete_thread, lambda p: [dial_form(x["phone"]["text"]) for x in p["ps"][:2]]),
}


@solution(*_THREAD_OPS)
def solve_thread_op(ctx: Ctx, inst: Any) -> Skill:
    skill, threads = _THREAD_OPS[inst.template_id]
    yield from each_retrying(ctx, threads(inst.params), skill)
    yield from complete(ctx)


@solution("messages.draft", "train.messages.draft_number")
def solve_draft(ctx: Ctx, inst: Any) -> Skill:
    p = inst.params
    to = p["p"]["full"] if inst.template_id == "messages.draft" else dial_form(p["ph"]["text"])
    yield from M.save_draft(ctx, to, p["body"])
    yield from complete(ctx)


@solution("train.messages.reply_draft")
def solve_reply_draft(ctx: Ctx, inst: Any) -> Skill:
    yield from draft_in_thread(ctx, inst.params["p"]["full"], inst.params["body"])
    yield from complete(ctx)


@solution("messages.send_test")
def solve_send_test(ctx: Ctx, inst: Any) -> Skill:
    yield from M.send_message(ctx, dial_form(recipient_from(inst)), inst.params["body"])
    yield from complete(ctx)


@solution("train.messages.send_two")
def solve_send_two(ctx: Ctx, inst: Any) -> Skill:
    to = dial_form(recipient_from(inst))
    yield from M.send_message(ctx, to, inst.params["one"])
    yield from M.send_message(ctx, to, inst.params["two"])
    yield from complete(ctx)


# --- queries -------------------------------------------------------------------------------------

# template → (whose message: the phone's own?, which one: the newest -1 or the first 0, the error when
# there is none). The newest is often on screen as the conversation opens; the first needs all of it.
_THREAD_QUERIES: dict[str, tuple[bool, int, str]] = {
    "messages.query_last": (False, -1, "no message from them in the conversation"),
    "train.messages.query_first": (False, 0, "no message from them in the conversation"),
    "train.messages.query_my_reply": (True, -1, "I sent nothing in this conversation"),
}


@solution(*_THREAD_QUERIES)
def solve_query_message(ctx: Ctx, inst: Any) -> Skill:
    mine, which, none = _THREAD_QUERIES[inst.template_id]
    yield from open_thread(ctx, inst.params["p"]["full"])
    texts = [t for out, t in visible_bubbles(ctx) if out == mine] if which == -1 else []
    if not texts:
        bubbles = yield from thread_bubbles(ctx)
        texts = [t for out, t in bubbles if out == mine]
    if not texts:
        raise OracleError(none)
    yield from answer(ctx, message=texts[which])


@solution("train.messages.query_thread_count")
def solve_query_thread_count(ctx: Ctx, inst: Any) -> Skill:
    yield from open_thread(ctx, inst.params["p"]["full"])
    bubbles = yield from thread_bubbles(ctx)
    yield from answer(ctx, count=sum(1 for out, _t in bubbles if not out))


@solution("messages.query_latest_sender")
def solve_query_latest_sender(ctx: Ctx, inst: Any) -> Skill:
    yield from M.open_messages(ctx)
    rows = sorted(M._rows(ctx), key=lambda e: e.bounds.top)
    if not rows:
        raise OracleError("no conversations")
    title, _sub = M._row_parts(ctx, rows[0])
    yield from answer(ctx, name=title)


@solution("train.messages.query_unread_senders")
def solve_query_unread_senders(ctx: Ctx, inst: Any) -> Skill:
    rows = yield from conversation_rows(ctx)
    yield from answer(ctx, names=[t for t, _s, unread in rows if unread])


@solution("train.messages.query_sender_of")
def solve_query_sender_of(ctx: Ctx, inst: Any) -> Skill:
    body = inst.instruction.split("“", 1)[-1].rsplit("”", 1)[0] if "“" in inst.instruction else inst.params["th"]["last_body"]
    yield from M.open_messages(ctx)
    if ctx.role(M.APP, "search") is None or not M._has(ctx, "message_result"):
        # no conversation search (AOSP Messaging), or one whose results are conversations, not
        # messages (Google Messages): each row's snippet is its newest message
        rows = yield from conversation_rows(ctx)
        names = list(dict.fromkeys(t for t, sub, _u in rows if norm(sub) == norm(body)))
        if len(names) != 1:
            raise OracleError(f"{len(names)} conversations end with {body!r}: {names}")
        return (yield from answer(ctx, name=names[0]))
    yield from tap_role(ctx, M.APP, "search")
    field = ctx.need(M.APP, "search_field")
    if not field.focused:
        yield from act(ctx, Tap(target=field.index))
    yield from act(ctx, TypeText(text=body, clear=True))
    names = []
    for r in ctx.roles(M.APP, "message_result"):
        name = ctx.role(M.APP, "result_name", within=r)
        snippet = ctx.role(M.APP, "result_snippet", within=r)
        title, sub = (name.text if name else ""), (snippet.text if snippet else "")
        if norm(sub) == norm(body) and title not in names:
            names.append(title)
    if len(names) != 1:
        raise OracleError(f"{len(names)} senders of {body!r}: {names}")
    yield from answer(ctx, name=names[0])
