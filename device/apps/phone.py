"""Phone (dialer): the dial pad, the call log, call details and the in-call screen, by role.

What a person reads off the dial pad is the number in its ``digits`` field (AOSP's
DigitsEditText, Google Dialer's ``digits``, the simulator's). The dialer formats what was
typed ("+1 303-555-0115") and an empty field may show its hint, so ``digits`` keeps only the
characters a pad can enter — what was dialled, as the UI probe of the dial pad reads it — and
``number_shown`` the field as displayed. A call-log row is read by the texts *inside* it: its
name (``call_log_name``) and the kind of call, told by the family's wording (``call_kinds``). A row
whose texts are hidden from accessibility (Google Dialer's call-log cards: the new call log's entry is
``noHideDescendants``) is read off its description instead, a comma-separated list with the kind as one
item and the name first ("Ann Lee, Mobile, missed call, 5 minutes ago.").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, ClassVar

from actionmap.observation import UIElement

from .base import AppDriver
from .match import Matcher, field_value, inside, norm

#: what a dial pad can enter, as the dialler keeps it (device/readers/probes.py dial_pad_number keeps the same)
PAD_CHARS = re.compile(r"[^0-9*#+,;]")

#: dial-pad key roles by the character each enters
KEY_ROLES = {"1": "key_1", "2": "key_2", "3": "key_3", "4": "key_4", "5": "key_5", "6": "key_6", "7": "key_7",
             "8": "key_8", "9": "key_9", "0": "key_0", "*": "key_star", "#": "key_pound"}


def pad_digits(text: str | None) -> str:
    """'+1 (303) 555-0115' → '+13035550115': what was entered on the pad."""
    return PAD_CHARS.sub("", text or "")


def field_text(e: UIElement | None) -> str:
    """A text field's own text: '' when it shows only its hint, or when there is no such field."""
    return "" if e is None else field_value(e)


class PhoneDriver(AppDriver):
    app = "phone"
    control_roles: ClassVar[tuple[str, ...]] = (
        "digits", "delete", "call", *KEY_ROLES.values(), "dialpad",
        "main_nav", "open_dialpad", "keypad_tab", "favorites_tab", "recents_tab", "contacts_tab", "overflow",
        "call_history_item", "missed_tab", "missed_filter", "search", "search_field",
        "call_list", "call_log_row", "call_log_name", "details_action",
        "details_name", "details_number", "details_type", "details_time", "details_duration",
        "end_call", "in_call_name", "title",
    )

    def family_of(self, package: str | None, manufacturer: str | None = None,
                  elements: Sequence[UIElement] | None = None) -> str | None:
        """The base's (each family ships its own dialer package; the screen is not needed)."""
        return super().family_of(package, manufacturer)

    # --- the dial pad ----------------------------------------------------------------------------
    def digits(self, m: Matcher) -> str | None:
        """The number on the dial pad (pad characters only); None when no pad is on screen."""
        el = m.first("digits")
        return pad_digits(field_text(el)) if el is not None else None

    # --- the call log ----------------------------------------------------------------------------
    def kind_of(self, m: Matcher, text: str | None, *, prefix: bool = True) -> str | None:
        """The kind of call a label names, by the family's wording (``call_kinds``): the label itself
        ('Missed call', 'Incoming · 07:30'), or with ``prefix`` a description that starts with it
        ('Missed call from Ann, Mobile, 2 min ago'); None if it names none."""
        head = norm(text).split(" · ")[0].split(" • ")[0].strip()
        if not head:
            return None
        kinds = m.family.texts.get("call_kinds") or {}
        best: tuple[int, str] | None = None
        for kind, words in kinds.items():
            for w in words if isinstance(words, list) else [words]:
                nw = norm(str(w))
                if head == nw:
                    return str(kind)
                if prefix and re.match(re.escape(nw) + r"(?!\w)", head) and (best is None or len(nw) > best[0]):
                    best = (len(nw), str(kind))
        return best[1] if best else None

    def parts(self, m: Matcher, box: UIElement) -> list[UIElement]:
        return [e for e in m.elements if inside(e, box)]

    def row_kind(self, m: Matcher, row: UIElement) -> str | None:
        """The kind of call a row shows: a label inside it that is a kind word ('Missed call'), else one
        that starts with it (AOSP describes a row 'Missed call from Ann, …'), else a description that lists
        it as one of its items (Google Dialer: 'Ann, Mobile, missed call, 5 minutes ago.')."""
        parts = self.parts(m, row)
        for prefix in (False, True):
            for e in parts:
                for s in (e.content_desc, e.text):
                    k = self.kind_of(m, s, prefix=prefix) if s else None
                    if k:
                        return k
        for e in [row, *parts]:
            described = self.described(m, e.content_desc)
            if described is not None:
                return described[1]
        return None

    def described(self, m: Matcher, desc: str | None) -> tuple[str, str] | None:
        """(name, kind) of a description that lists a call's parts: 'Ann Lee, Mobile, missed call, Just now.'
        → ('Ann Lee', 'missed'); None unless one item past the first is a kind word of the family's."""
        items = [i.strip() for i in (desc or "").rstrip(". ").split(",")]
        if len(items) < 2 or not items[0]:
            return None
        for item in items[1:]:
            k = self.kind_of(m, item, prefix=False)
            if k:
                return items[0], k
        return None

    def row_name(self, m: Matcher, row: UIElement) -> str:
        el = m.first("call_log_name", within=row)
        if el is not None and el.text:
            return el.text
        # a card read by its description (the texts inside it are hidden; an expanded card's actions are not names)
        for e in [row, *self.parts(m, row)]:
            described = self.described(m, e.content_desc)
            if described is not None:
                return described[0]
        texts = [e.text for e in sorted(self.parts(m, row), key=lambda e: (e.bounds.top, e.bounds.left)) if e.text]
        return texts[0] if texts else ""

    def calls(self, m: Matcher) -> list[dict[str, Any]]:
        rows = sorted(m.find("call_log_row"), key=lambda e: e.bounds.top)
        return [{"name": self.row_name(m, r), "kind": self.row_kind(m, r)} for r in rows]

    def entries(self, m: Matcher) -> list[dict[str, Any]]:
        """The calls listed on a call-details screen, top to bottom: kind, time, duration of each
        (read inside each entry, so one call's time is never paired with another's duration)."""
        out = []
        for entry in sorted(m.find("details_entry"), key=lambda e: e.bounds.top):
            def txt(role: str, box: UIElement = entry) -> str:
                el = m.first(role, within=box)
                return el.text if el is not None else ""

            ctype = txt("details_type")
            out.append({"kind": self.kind_of(m, ctype) or ctype, "time": txt("details_time"),
                        "duration": txt("details_duration")})
        return out

    def details(self, m: Matcher) -> dict[str, Any]:
        """The call-details screen: name (empty when it is the number), number line, and the newest
        call's kind, time and duration."""
        def txt(role: str) -> str:
            el = m.first(role)
            return el.text if el is not None else ""

        name, number = txt("details_name"), txt("details_number")
        entries = self.entries(m)
        first = entries[0] if entries else {"kind": self.kind_of(m, txt("details_type")) or txt("details_type"),
                                            "time": txt("details_time"), "duration": txt("details_duration")}
        return {"name": "" if name == number else name, "number": number, **first}

    # --- reading ---------------------------------------------------------------------------------
    def visible(self, m: Matcher, screen: str | None) -> dict[str, Any]:
        out: dict[str, Any] = {}
        title = m.first("title")
        if title is not None and (title.text or title.content_desc):
            out["title"] = title.text or title.content_desc
        if screen == "dialpad":
            el = m.first("digits")
            out["digits"] = pad_digits(field_text(el))
            out["number_shown"] = field_text(el)
        elif screen in ("call_log", "call_history"):
            out["calls"] = self.calls(m)
        elif screen == "call_details":
            out["call"] = self.details(m)
            out["calls"] = self.entries(m)
        elif screen == "in_call":
            who = m.first("in_call_name")
            out["in_call"] = who.text if who is not None else None
        return out
