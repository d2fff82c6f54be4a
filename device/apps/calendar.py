"""Calendar: the calendar views, an event's details, the event editor and its pickers — read by role.

What a person reads off a calendar view is its *events*: an event is a chip in a day or month
view (the simulator's ``event_chip``; Google Calendar's Views described "<title>, <time> …" or
"<title>, All day: …") or a row in an agenda, a day's list or search results (AOSP/Etar's
``agenda_item``). An event's title is the chip's text, the title inside the row, or — for a
chip that only has a description — the description up to its time or "All day". AOSP's and
Etar's month, week and day views are drawn on a canvas: their events are readable in the
Agenda view, in search results and on the event's details.

Lists group events by day: a *day header* (Etar's agenda ``date`` "March 18", Google's
"Thursday, March 18, 2027, Open Day View") is followed by that day's events, so
:meth:`CalendarDriver.day_groups` reads which day each event on screen belongs to.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

from actionmap.observation import UIElement

from .base import AppDriver
from .match import Matcher, field_value, inside, norm

# "<title>, <time or All day> …": where a described chip's title ends
_DESC_TITLE = re.compile(r"^(.*?),\s*(?:all[ -]day\b|\d{1,2}[:.]\d{2}|\d{1,2}\s?[ap]\.?\s?m\b)", re.I)
# the time part of a described chip: "All day: " / "All day" / "10:00 – 11:00 AM", then ", <place>"
_DESC_WHEN = re.compile(r"^(all[ -]day:?\s*|[^,]*?\d{1,2}[:.]\d{2}[^,]*)(?:,\s*(.*))?$", re.I)
_MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december"]
# "March 18", "March 18, 2027", "Thursday, March 18, 2027, Open Day View", "18 March 2027"
_MD = re.compile(r"\b([A-Za-z]{3,})\.? (\d{1,2})(?:, (\d{4}))?\b")
_DM = re.compile(r"\b(\d{1,2}) ([A-Za-z]{3,})\.?(?: (\d{4}))?\b")
_COUNT = re.compile(r"(\d+)\s+(?:events?|items?)\b", re.I)


def month_index(name: str) -> int | None:
    """1-12 for an English month name or its three-letter abbreviation."""
    n = name.lower()
    return next((i + 1 for i, m in enumerate(_MONTHS) if n == m or (len(n) == 3 and m.startswith(n))), None)


def parse_day(text: str) -> tuple[int | None, int, int] | None:
    """(year or None, month, day) named in a header or line ("March 18", "18 March 2027" …)."""
    for rx, order in ((_MD, "md"), (_DM, "dm")):
        for hit in rx.finditer(text or ""):
            mon, day = (hit.group(1), hit.group(2)) if order == "md" else (hit.group(2), hit.group(1))
            mi = month_index(mon)
            if mi is not None and 1 <= int(day) <= 31:
                return (int(hit.group(3)) if hit.group(3) else None, mi, int(day))
    return None


def cell_count(desc: str) -> int:
    """How many events a month cell's description names ("…, 2 events", "March 18: 1 item"); none: 0."""
    hit = _COUNT.search(desc or "")
    return int(hit.group(1)) if hit else 0


def inner_text(m: Matcher, box: UIElement) -> str:
    """The first non-empty text inside ``box`` (a row's own label)."""
    for e in m.elements:
        if e.index != box.index and e.text.strip() and inside(e, box):
            return e.text.strip()
    return ""


def field_text(e: UIElement | None) -> str | None:
    """A form field's value ('' when it only shows its hint); None when there is no such field."""
    return None if e is None else field_value(e)


class CalendarDriver(AppDriver):
    app = "calendar"
    control_roles: ClassVar[tuple[str, ...]] = (
        "create_event", "new_event_option", "drawer_toggle", "view_month", "prev_month", "next_month", "month_label",
        "view_title", "month_day", "day_label", "event", "search", "search_field",
        "event_title", "event_date", "event_time", "event_location", "event_description", "edit_event",
        "delete_event", "more_options", "menu_item", "confirm_delete",
        "title_field", "all_day", "start_date", "start_time", "end_date", "end_time", "location_field",
        "description_field", "save", "cancel_edit", "discard",
        "date_text_mode", "date_text_field", "date_month", "date_day", "date_year", "time_text_mode",
        "time_hour_field", "time_minute_field", "am", "pm", "dialog_ok", "permission_allow", "navigate_up",
    )

    # --- events ------------------------------------------------------------------------------------
    def event_title(self, m: Matcher, e: UIElement) -> str:
        """The title an event's chip or row shows."""
        if e.text.strip():
            return e.text.strip()
        t = m.first("event_row_title", within=e)
        if t is not None and t.text.strip():
            return t.text.strip()
        d = e.content_desc.strip()
        hit = _DESC_TITLE.match(d)
        if hit:
            return hit.group(1).strip()
        return d.split(",")[0].strip() if d else inner_text(m, e)

    def events(self, m: Matcher) -> list[str]:
        """Titles of the events on screen, top to bottom (each once per chip or row)."""
        out = []
        for e in m.find("event"):
            t = self.event_title(m, e)
            if t:
                out.append(t)
        return out

    def row_info(self, m: Matcher, e: UIElement) -> dict[str, str]:
        """What an event's row or chip says: title, when (its time or "All day"), where."""
        title = self.event_title(m, e)
        when = m.first("event_when", within=e)
        where = m.first("event_where", within=e)
        out = {"title": title, "time": when.text.strip() if when is not None else "",
               "place": where.text.strip() if where is not None else ""}
        d = e.content_desc.strip()
        if when is None and d and norm(d).startswith(norm(title) + ","):
            rest = _DESC_WHEN.match(d[len(title) + 1:].strip())
            if rest:
                out["time"] = rest.group(1).strip().rstrip(":").strip()
                out["place"] = (rest.group(2) or "").strip()
        return out

    def day_groups(self, m: Matcher) -> list[tuple[str | None, list[UIElement]]]:
        """The events on screen by day: (the day header's text or description, its events), top to
        bottom; events above the first header come first with ``None`` (their day is off screen)."""
        heads = sorted(m.find("day_header"), key=lambda h: (h.bounds.top, h.bounds.left))
        groups: list[tuple[str | None, list[UIElement]]] = []
        cur: list[UIElement] = []
        label: str | None = None
        hi = 0
        for e in sorted(m.find("event"), key=lambda x: (x.bounds.top, x.bounds.left)):
            while hi < len(heads) and heads[hi].bounds.top <= e.bounds.top + 2:
                if cur or label is not None:
                    groups.append((label, cur))
                label, cur = (heads[hi].text.strip() or heads[hi].content_desc.strip()), []
                hi += 1
            cur.append(e)
        if cur or label is not None:
            groups.append((label, cur))
        for h in heads[hi:]:
            groups.append((h.text.strip() or h.content_desc.strip(), []))
        return groups

    def event_for(self, m: Matcher, title: str) -> UIElement | None:
        want = norm(title)
        return next((e for e in m.find("event") if norm(self.event_title(m, e)) == want), None)

    # --- the other screens -------------------------------------------------------------------------
    def row_value(self, m: Matcher, role: str) -> str | None:
        """A details line: its text, else the label inside its row, else its description."""
        e = m.first(role)
        if e is None:
            return None
        return e.text.strip() or inner_text(m, e) or e.content_desc.strip()

    def details(self, m: Matcher) -> dict[str, Any]:
        return {k: self.row_value(m, r) for k, r in (
            ("title", "event_title"), ("date", "event_date"), ("time", "event_time"),
            ("location", "event_location"), ("description", "event_description"))}

    def editor(self, m: Matcher) -> dict[str, Any]:
        sw = m.first("all_day")
        return {
            "title": field_text(m.first("title_field")),
            "all_day": bool(sw.checked) if sw is not None else None,
            "start_date": field_text(m.first("start_date")), "start_time": field_text(m.first("start_time")),
            "end_date": field_text(m.first("end_date")), "end_time": field_text(m.first("end_time")),
            "location": field_text(m.first("location_field")),
            "description": field_text(m.first("description_field")),
        }

    def visible(self, m: Matcher, screen: str | None) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if screen in ("event_editor",):
            out["fields"] = self.editor(m)
            return out
        if screen == "event_details":
            out["event"] = self.details(m)
            out["title"] = out["event"]["title"]
            return out
        if screen in ("date_picker", "time_picker", "discard_dialog", "delete_dialog", "menu"):
            if screen == "menu":
                out["menu"] = [e.text for e in m.find("menu_item")]
            return out
        heads = m.find("day_header")
        if heads:
            out["days"] = [{"day": label, "events": [self.event_title(m, e) for e in evs]} for label, evs in self.day_groups(m)]
        for role, key in (("month_label", "month"), ("day_label", "day")):
            e = m.first(role)
            if e is not None and e.text:
                out[key] = e.text
        vt = m.first("view_title")
        title = out.get("day") or out.get("month") or (vt.text if vt is not None else None)
        if title:
            out["title"] = title
        out["events"] = self.events(m)
        if screen == "search":
            f = m.first("search_field")
            out["query"] = field_text(f) or ""
        return out
