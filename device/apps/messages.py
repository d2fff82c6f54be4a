"""Messages: the conversation list, a conversation, the new-conversation picker — read by role.

What a person reads off the list is one conversation per *row*: the row is the list item that
holds a conversation's name (AOSP's ``swipeableContainer``, the smallest clickable container
around a name elsewhere), and its snippet, time, draft mark and unread badge (Google's) are the
ones inside it. A conversation is its bubbles top to bottom: a bubble's text (``message_text``)
and who said it, which every family tells in a description — the bubble's own (Google's Compose
UI) or its container's (AOSP's ConversationMessageView, the simulator's message_content) — that
starts with the family's "You said" for the phone's own messages. Date and "RCS chat with …"
separators that reuse the bubble's tag carry no such description and are not messages.

Texts are returned as the screen shows them (Samsung wraps numbers in Unicode isolation marks,
U+2068…U+2069); :func:`plain` drops such marks where a skill compares names.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

from actionmap.observation import UIElement

from .base import AppDriver
from .match import Matcher, encloses, norm

_BIDI = re.compile("[\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def plain(s: str | None) -> str:
    """The text without bidirectional formatting marks, normalised (for comparing names)."""
    return norm(_BIDI.sub("", s or ""))


def _starts_with_word(text: str, words: list[str]) -> bool:
    t = norm(text)
    return any(re.match(rf"^{re.escape(norm(w))}\b", t) for w in words if w)


class MessagesDriver(AppDriver):
    app = "messages"
    control_roles: ClassVar[tuple[str, ...]] = (
        "conversation_list", "conversation_row", "conversation_name", "conversation_snippet", "conversation_time",
        "start_chat", "search", "search_field", "more_options", "back", "title", "conversation_title", "tab",
        "selection_delete", "mark_read", "confirm_delete",
        "message_result", "recipient_field", "clear_recipient", "suggestion_row",
        "call", "message_list", "message_text", "message_field", "send", "attach", "emoji",
    )

    # --- the conversation list -----------------------------------------------------------------
    def row_info(self, m: Matcher, row: UIElement) -> dict[str, Any]:
        """What one list row shows: name, snippet, time, whether it is unread, whether it holds a draft."""
        name = m.first("conversation_name", within=row)
        snippet = m.first("conversation_snippet", within=row)
        when = m.first("conversation_time", within=row)
        unread_words = m.texts("unread")
        draft_words = {norm(w) for w in m.texts("draft")}
        desc = self.row_desc(m, row)
        # rows that say nothing in words (AOSP marks unread rows by a bold typeface only) cannot tell,
        # unless the family marks them with a badge inside the row (Google Messages' unread badge)
        unread = _starts_with_word(desc, unread_words) if unread_words and desc else None
        if not unread and m.family.roles.get("unread_badge"):
            unread = m.first("unread_badge", within=row) is not None
        return {
            "name": name.text if name is not None else None,
            "snippet": snippet.text if snippet is not None else None,
            "time": when.text if when is not None else None,
            "unread": unread,
            "draft": when is not None and norm(when.text) in draft_words,
        }

    def row_desc(self, m: Matcher, row: UIElement) -> str:
        """The row's description: its own, or the list item's around it (AOSP describes the
        ConversationListItemView that holds the clickable swipeableContainer)."""
        if row.content_desc:
            return row.content_desc
        around = [e for e in m.elements if e.content_desc and encloses(e, row)
                  and e.bounds.area <= row.bounds.area * 1.5]
        return min(around, key=lambda e: e.bounds.area).content_desc if around else ""

    def rows(self, m: Matcher) -> list[tuple[UIElement, dict[str, Any]]]:
        """Every conversation row on screen, top to bottom, with what it shows."""
        rows = sorted(m.find("conversation_row"), key=lambda e: (e.bounds.top, e.bounds.left))
        return [(r, self.row_info(m, r)) for r in rows]

    def conversations(self, m: Matcher) -> list[dict[str, Any]]:
        return [info for _r, info in self.rows(m) if info["name"] is not None]

    # --- a conversation ------------------------------------------------------------------------
    def bubble_desc(self, m: Matcher, text: UIElement) -> str:
        """Who said a bubble, in the family's words: the text's own description, else the innermost
        container around it (and around no other bubble) that has one."""
        if text.content_desc:
            return text.content_desc
        others = [o for o in m.find("message_text") if o.index != text.index]
        around = [e for e in m.elements if e.content_desc and encloses(e, text)
                  and not any(encloses(e, o) for o in others)]
        return min(around, key=lambda e: e.bounds.area).content_desc if around else ""

    def bubbles(self, m: Matcher) -> list[dict[str, Any]]:
        """The bubbles on screen top to bottom: text, whether the phone sent it (None when the family
        does not say), and the description it was read from."""
        you = m.texts("you_said")
        out = []
        for e in sorted(m.find("message_text"), key=lambda e: (e.bounds.top, e.bounds.left)):
            desc = self.bubble_desc(m, e)
            out.append({"text": e.text, "outgoing": _starts_with_word(desc, you) if you and desc else None,
                        "desc": desc, "element": e})
        return out

    def visible(self, m: Matcher, screen: str | None) -> dict[str, Any]:
        out: dict[str, Any] = {}
        title = m.first("title")
        if title is not None and (title.text or title.content_desc):
            out["title"] = title.text or title.content_desc
        tabs = m.find("tab")
        if tabs:
            out["tabs"] = [{"label": e.text or e.content_desc, "selected": e.selected} for e in tabs]
        if m.has("conversation_row") or screen == "conversation_list":
            out["conversations"] = self.conversations(m)
        if screen == "conversation" or m.has("message_text"):
            bubbles = self.bubbles(m)
            out["messages"] = [b["text"] for b in bubbles]
            out["bubbles"] = [{"text": b["text"], "outgoing": b["outgoing"]} for b in bubbles]
        if m.has("message_result"):
            out["results"] = [
                {"name": n.text if (n := m.first("result_name", within=r)) is not None else None,
                 "snippet": t.text if (t := m.first("result_snippet", within=r)) is not None else None}
                for r in sorted(m.find("message_result"), key=lambda e: e.bounds.top)]
        field = m.first("recipient_field")
        if field is not None:
            out["recipient"] = "" if field.hint and norm(field.text) == norm(field.hint) else field.text
        if m.has("suggestion_row"):
            out["suggestions"] = [
                {"name": n.text if (n := m.first("suggestion_name", within=r)) is not None else None,
                 "detail": d.text if (d := m.first("suggestion_detail", within=r)) is not None else None}
                for r in m.find("suggestion_row")]
        return out
