"""Clock: the alarm list, the time pickers, the label dialog — read by role in every family.

What a person reads off the alarm list is one alarm per *card*: a card is the list item that
holds an alarm's time (``alarm_card`` — a CardView on Google Clock, an id-less
ConstraintLayout on AOSP DeskClock, the smallest container around a time anywhere else). The
time, switch, label and repeat days are the ones inside it, so a collapsed card (``label``,
``days_of_week``) and an expanded one (``edit_label``, checked day buttons,
``repeat_summary``) read the same, and the Clock tab's big ``digital_clock`` — which is not in
an alarm list — is never taken for an alarm.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

from actionmap.observation import UIElement

from .base import AppDriver
from .match import Matcher, norm

_TIME = re.compile(r"^\s*(\d{1,2})\s*[:.h]\s*(\d{2})\s*(?:([ap])\.?\s*m\.?)?\s*$", re.I)

_DAY_WORDS = {
    "sunday": "sun", "monday": "mon", "tuesday": "tue", "wednesday": "wed", "thursday": "thu", "friday": "fri",
    "saturday": "sat", "sun": "sun", "mon": "mon", "tue": "tue", "tues": "tue", "wed": "wed", "thu": "thu",
    "thur": "thu", "thurs": "thu", "fri": "fri", "sat": "sat",
}
_WEEK = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_EVERY = {"every day", "daily", "everyday"}
_WEEKDAYS = {"weekdays", "mon-fri", "mon - fri"}
_WEEKENDS = {"weekends", "sat-sun", "sat, sun"}


def hhmm(text: str | None) -> str | None:
    """'8:25 AM' (any spaces, hair space included) / '20:05' / '12:05 p.m.' → 'HH:MM' (24-hour)."""
    m = _TIME.match(norm(text))
    if not m:
        return None
    h, mi = int(m.group(1)), int(m.group(2))
    ap = (m.group(3) or "").lower()
    if ap:
        if not 1 <= h <= 12:
            return None
        h = h % 12 + (12 if ap == "p" else 0)
    if not (0 <= h <= 23 and 0 <= mi <= 59):
        return None
    return f"{h:02d}:{mi:02d}"


def day_code(word: str | None) -> str | None:
    """'Monday' / 'mon' / 'Tues.' → 'mon' …; None if the word names no weekday."""
    return _DAY_WORDS.get(norm(word).strip("."))


def days_of(text: str | None) -> list[str] | None:
    """'Mon, Tue, Wed' / 'Monday, Friday' / 'Every day' / 'Weekdays' → ['mon', …]; None if it names no day."""
    t = norm(text)
    if not t:
        return None
    if t in _EVERY:
        return list(_WEEK)
    if t in _WEEKDAYS:
        return list(_WEEK[:5])
    if t in _WEEKENDS:
        return ["sat", "sun"]
    out = []
    for part in re.split(r"[,\s]+", t):
        d = _DAY_WORDS.get(part.strip("."))
        if d is None:
            return None  # 'Tomorrow', 'Today', 'Not scheduled' …: no repeat days
        if d not in out:
            out.append(d)
    return sorted(out, key=_WEEK.index) or None


class ClockDriver(AppDriver):
    app = "clock"
    control_roles: ClassVar[tuple[str, ...]] = (
        "alarm_list", "alarm_card", "alarm_time", "alarm_switch", "alarm_label", "alarm_days", "repeat_summary",
        "day_toggle", "expand_alarm", "collapse_alarm", "schedule", "ringtone", "vibrate", "routine", "delete",
        "add_alarm", "tab", "title", "tooltip",
        "time_picker", "hour_field", "minute_field", "am", "pm", "clock_face", "face_number", "input_mode_toggle",
        "input_hour", "input_minute", "time_picker_ok", "time_picker_cancel", "label_field", "label_ok",
        "navigate_up", "sound_list", "sound_name", "selected_marker", "sound_tab",
        "provider_list", "provider_title", "dismiss", "get_started", "content_scroll",
    )

    # --- alarms ----------------------------------------------------------------------------------
    def card_time(self, m: Matcher, card: UIElement) -> str | None:
        t = m.first("alarm_time", within=card)
        return hhmm(t.text or t.content_desc) if t is not None else None

    def card_label(self, m: Matcher, card: UIElement) -> str | None:
        """The alarm's own label, or None: an empty label shows the field's hint ('Add label'), the
        family's 'no label' description, or the app's default name ('Alarm' on AOSP)."""
        lab = m.first("alarm_label", within=card)
        if lab is None:
            return None
        text = lab.text.strip()
        if not text or (lab.hint and norm(text) == norm(lab.hint)):
            return None
        if norm(lab.content_desc) in {norm(x) for x in m.texts("no_label_desc")}:
            return None
        # an expanded card's label row shows its hint as text where no hint is reported
        if norm(text) in {norm(x) for x in m.texts("no_label_text")} and not lab.content_desc:
            return None
        return text

    @staticmethod
    def day_of(e: UIElement) -> str | None:
        """The weekday a day toggle stands for ('mon' …), from its description ('Monday') or text."""
        return _DAY_WORDS.get(norm(e.content_desc).strip(".")) or _DAY_WORDS.get(norm(e.text).strip("."))

    def card_days(self, m: Matcher, card: UIElement) -> list[str] | None:
        days = m.first("alarm_days", within=card)
        if days is not None:
            return days_of(days.content_desc) or days_of(days.text)
        toggles = [e for e in m.all_in("day_toggle", card) if e.checkable]
        if toggles:
            checked = [self.day_of(e) for e in toggles if e.checked]
            got = sorted({d for d in checked if d}, key=_WEEK.index)
            if got:
                return got
            return None
        summ = m.first("repeat_summary", within=card)
        if summ is not None:
            return days_of(summ.content_desc) or days_of(summ.text)
        return None

    def alarms(self, m: Matcher) -> list[dict[str, Any]]:
        out = []
        for card in m.find("alarm_card"):
            time = self.card_time(m, card)
            if time is None:
                continue
            sw = m.first("alarm_switch", within=card)
            out.append({
                "time": time,
                "enabled": bool(sw.checked) if sw is not None else None,
                "label": self.card_label(m, card),
                "days": self.card_days(m, card),
                "expanded": m.first("collapse_alarm", within=card) is not None,
            })
        return out

    def card_for(self, m: Matcher, hour: int, minute: int, label: str | None = None) -> UIElement | None:
        """The card showing ``hour:minute`` (and ``label`` when given; None matches 'no label')."""
        want = f"{hour:02d}:{minute:02d}"
        for card in m.find("alarm_card"):
            if self.card_time(m, card) != want:
                continue
            if label is None or norm(self.card_label(m, card) or "") == norm(label):
                return card
        return None

    # --- other screens ---------------------------------------------------------------------------
    def picker_time(self, m: Matcher) -> dict[str, Any]:
        h, mi = m.first("hour_field"), m.first("minute_field")
        am, pm = m.first("am"), m.first("pm")
        period = "AM" if am is not None and am.checked else "PM" if pm is not None and pm.checked else None
        if period is None and am is None and pm is None:  # the framework's keyboard mode: an AM/PM spinner
            spinner = m.first("am_pm_spinner")
            shown = m.first("am_pm_option", within=spinner) if spinner is not None else None
            words = m.family.texts.get("am_pm") or {}
            if shown is not None and isinstance(words, dict):
                period = next((k.upper() for k, w in words.items() if norm(w) == norm(shown.text)), None)
        return {"hour": h.text if h is not None else None, "minute": mi.text if mi is not None else None,
                "period": period}

    def visible(self, m: Matcher, screen: str | None) -> dict[str, Any]:
        out: dict[str, Any] = {}
        title = m.first("title")
        if title is not None:
            out["title"] = title.text or title.content_desc
        tabs = m.find("tab")
        if tabs:
            out["tabs"] = [{"label": e.content_desc or e.text, "selected": e.selected} for e in tabs]
        if screen == "alarm_list":
            out["alarms"] = self.alarms(m)
        elif screen == "time_picker":
            out.update(self.picker_time(m))
        elif screen == "alarm_sound_picker":
            out["sounds"] = [e.text for e in m.find("sound_name")]
            mark = m.first("selected_marker")
            if mark is not None:
                row = [e for e in m.find("sound_name") if abs(e.bounds.center[1] - mark.bounds.center[1])
                       <= max(mark.bounds.height, e.bounds.height)]
                out["selected_sound"] = row[0].text if row else None
        elif screen == "music_alarm_providers_dialog":
            out["apps"] = [e.text for e in m.find("provider_title")]
        return out
