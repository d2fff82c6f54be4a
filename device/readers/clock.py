"""The Clock app's alarm list, read off one screen: alarm cards, their times, labels, days and switches.

No provider lists alarms, so they are read where a person reads them. The screen is read through
the app UI layer (:mod:`device.apps`): the Clock driver knows each family's alarm list by role
(``alarm_card``, ``alarm_time``, ``alarm_label``, ``alarm_switch``, ``delete`` …), so nothing here
names a resource id or a label. Driving the app (opening it, scrolling, tapping) is
:mod:`device.readers.probes`; deleting alarms is :mod:`device.writers.alarms`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, NamedTuple

from actionmap.observation import Bounds, UIElement
from actionmap.worldstate import DAYS, Alarm
from device.readers.tags import has_tag, strip_tag, untagged

__all__ = ["parse_alarm_time", "parse_alarm_days", "AlarmCard", "ClockScreen", "alarms_from_elements"]

_AMPM = re.compile(r"(am|pm|a\.m\.|p\.m\.|上午|下午|午前|午後|오전|오후)", re.I)
_HM = re.compile(r"(\d{1,2})\s*[:.hH]\s*(\d{2})")
_PM_WORDS = ("pm", "p.m.", "下午", "午後", "오후")
_DAY_NAMES = {
    "mon": "mon", "monday": "mon", "tue": "tue", "tues": "tue", "tuesday": "tue", "wed": "wed", "wednesday": "wed",
    "thu": "thu", "thur": "thu", "thurs": "thu", "thursday": "thu", "fri": "fri", "friday": "fri",
    "sat": "sat", "saturday": "sat", "sun": "sun", "sunday": "sun",
}


def parse_alarm_time(text: str) -> tuple[int, int] | None:
    """``'7:30 AM'``, ``'07:30'``, ``'7:30\u202fPM'``, ``'下午7:30'`` → (hour, minute) in 24 h."""
    t = text.replace("\u202f", " ").replace("\xa0", " ")
    m = _HM.search(t)
    if not m:
        return None
    h, mi = int(m.group(1)), int(m.group(2))
    ap = _AMPM.search(t)
    if ap:
        if h > 12:
            return None
        pm = ap.group(1).lower() in _PM_WORDS
        h = (h % 12) + (12 if pm else 0)
    if not (0 <= h <= 23 and 0 <= mi <= 59):
        return None
    return h, mi


def parse_alarm_days(text: str) -> list[str] | None:
    """A Clock app's repeat summary → days (``[]`` = one-off); ``None`` if unrecognised."""
    t = text.strip().lower()
    if not t or t in ("today", "tomorrow", "not scheduled", "once", "never", "one time", "ring once"):
        return []
    if t in ("every day", "daily", "everyday"):
        return list(DAYS)
    if t == "weekdays":
        return list(DAYS[:5])
    if t == "weekends":
        return ["sat", "sun"]
    words = [w for w in re.split(r"[\s,、，·]+", t) if w]
    days = []
    for w in words:
        d = _DAY_NAMES.get(w.rstrip("."))
        if d is None:
            return None
        days.append(d)
    return [d for d in DAYS if d in days]


def _rid_package(elements: Sequence[UIElement]) -> str | None:
    """The app package the elements' resource ids name, for element lists that carry no package
    attribute (hand-made lists, tools that leave it out; uiautomator's dumps always carry one)."""
    from collections import Counter

    from device.apps.base import OVERLAY_HINTS
    from device.apps.match import SYSTEM_PACKAGES

    pkgs = Counter(e.resource_id.split(":id/", 1)[0] for e in elements if ":id/" in e.resource_id)
    for pkg, _n in pkgs.most_common():
        if pkg not in SYSTEM_PACKAGES and not any(h in pkg for h in OVERLAY_HINTS):
            return pkg
    return None


class AlarmCard(NamedTuple):
    """One alarm's list item on one screen."""

    card: UIElement
    """The driver's ``alarm_card``: the list item around the alarm's time."""
    hm: tuple[int, int]
    view: Any
    """A :class:`device.apps.match.Matcher` over this card alone (and the list around it): each card
    resolves its roles by itself, so a collapsed card's ``label`` and an expanded one's ``edit_label``
    on the same screen are both found."""
    extent: Bounds
    """From the card's top to the next card's: an expanded card's controls (its Delete) may lie
    below the item's own box."""


class ClockScreen:
    """One screen of the Clock app, read by the Clock driver (``device.apps.driver("clock")``).

    ``family``: the app's family on this phone (the probe's ``probe_family``); without it the
    driver tells it from the screen's package (``family_of``), and a package no family ships is
    read with the family-free ``generic`` roles."""

    def __init__(self, elements: Sequence[UIElement], family: str | None = None, package: str | None = None):
        from device.apps import driver
        from device.apps.base import foreground_package

        self.elements = list(elements)
        self.driver: Any = driver("clock")
        self.package = package or foreground_package(self.elements) or _rid_package(self.elements)
        self.family = family or self.driver.family_of(self.package, None, self.elements)
        self.m = self.driver.matcher(self.elements, self.family, self.package)
        self._cards: list[AlarmCard] | None = None

    # --- what the screen is ----------------------------------------------------------------
    def is_alarm_list(self) -> bool:
        """The screen is the Alarm tab's list (with alarms, or empty with its add button)."""
        return self.m.screen() == "alarm_list"

    def alarm_tab(self) -> UIElement | None:
        """The Alarm tab of the app's tab bar: the family's ``tab_alarm``, else the ``tab`` that the
        family's wording names the alarm tab."""
        own = self.m.first("tab_alarm")
        if own is not None:
            return own
        words = self.m.family.texts.get("tabs") or {}
        want = words.get("alarm") if isinstance(words, dict) else None
        names = {_norm(w) for w in (want if isinstance(want, list) else [want]) if w}
        if not names:
            return None
        tabs = [e for e in self.m.find("tab") if _norm(e.content_desc) in names or _norm(e.text) in names]
        return next((e for e in tabs if e.clickable), None) or (tabs[0] if tabs else None)

    def list_view(self, card: UIElement) -> Bounds | None:
        """The scrolling list the card lies in (the ``alarm_list`` role, else the smallest scrolling
        container around it)."""
        from device.apps.match import inside

        lists = [e for e in self.m.find("alarm_list") if inside(card, e)] or \
                [e for e in self.elements if e.scrollable and inside(card, e)]
        return min(lists, key=lambda e: e.bounds.area).bounds if lists else None

    # --- the cards ---------------------------------------------------------------------------
    def cards(self) -> list[AlarmCard]:
        """Every alarm card with a readable time, top to bottom (a card nested in another card
        around the same time is the same alarm: the outer one is kept)."""
        if self._cards is None:
            self._cards = self._find_cards()
        return list(self._cards)

    def _find_cards(self) -> list[AlarmCard]:
        from device.apps.match import encloses

        found = sorted(self.m.find("alarm_card"), key=lambda e: (e.bounds.top, -e.bounds.area))
        heads: list[tuple[UIElement, tuple[int, int]]] = []
        times: set[int] = set()
        for card in found:
            t = self.m.first("alarm_time", within=card)
            hm = parse_alarm_time(t.text or t.content_desc) if t is not None else None
            if t is None or hm is None or t.index in times or any(encloses(c, card) for c, _ in heads):
                continue
            times.add(t.index)
            heads.append((card, hm))
        out = []
        for i, (card, hm) in enumerate(heads):
            nxt = next((c.bounds.top for c, _ in heads[i + 1:] if c.bounds.top > card.bounds.top), 10 ** 6)
            b = card.bounds
            extent = Bounds(left=b.left, top=b.top, right=b.right, bottom=max(b.bottom, nxt - 1))
            out.append(AlarmCard(card, hm, self._card_view(card, extent), extent))
        return out

    def _card_view(self, card: UIElement, extent: Bounds) -> Any:
        from device.apps.match import encloses

        own = [e for e in self.elements if e.index == card.index or encloses(e, card) or _within(e, extent)]
        return self.driver.matcher(own, self.family, self.package)

    def in_card(self, c: AlarmCard, role: str, whole: bool = False) -> list[UIElement]:
        """Elements playing ``role`` in this card (``whole``: anywhere in its extent, below its box too)."""
        box = c.extent if whole else c.card.bounds
        return [e for e in c.view.find(role) if _within(e, box)]

    def label(self, c: AlarmCard) -> str:
        """The alarm's label as a person reads it ('' for none), run-tag markers stripped."""
        return untagged(self.driver.card_label(c.view, c.card) or "")

    def carries(self, c: AlarmCard, tag: str) -> bool:
        """The card shows text carrying the run tag (its label, wherever the family shows it: the
        marker is s2r's own, so any text of the card that carries it is this alarm's)."""
        return any(has_tag(e.text, tag) or has_tag(e.content_desc, tag) for e in c.view.elements
                   if e.index != c.card.index and _within(e, c.card.bounds))

    def tagged(self, c: AlarmCard) -> bool:
        """The card carries some run tag (a setup's alarm)."""
        return any(strip_tag(e.text)[1] or strip_tag(e.content_desc)[1] for e in c.view.elements
                   if e.index != c.card.index and _within(e, c.card.bounds))

    def alarm(self, c: AlarmCard) -> Alarm:
        sw = c.view.first("alarm_switch", within=c.card)
        days = self.driver.card_days(c.view, c.card) or []
        return Alarm(hour=c.hm[0], minute=c.hm[1], enabled=bool(sw.checked) if sw is not None else True,
                     label=self.label(c), days=[d for d in DAYS if d in days])  # type: ignore[arg-type]

    def clipped(self, c: AlarmCard) -> bool:
        """The card touches the top or bottom edge of its scrolling list: part of it (its label, its
        days) may be scrolled out of view."""
        view = self.list_view(c.card)
        if view is None:
            return False
        return c.card.bounds.top <= view.top + 1 or c.card.bounds.bottom >= view.bottom - 1


def _norm(s: str | None) -> str:
    from device.apps.match import norm

    return norm(s)


def _within(e: UIElement, box: Bounds) -> bool:
    cx, cy = e.bounds.center
    return box.left <= cx <= box.right and box.top <= cy <= box.bottom


def alarms_from_elements(elements: Sequence[UIElement], clipped: list[Alarm] | None = None, *,
                         family: str | None = None, package: str | None = None) -> list[Alarm]:
    """Alarms shown in a Clock app's alarm list, read by the Clock driver in the app's family.

    Each ``alarm_card`` with a readable ``alarm_time`` is one alarm; its switch, label and repeat
    days are the ones the driver finds in that card (a collapsed card's label and an expanded
    one's alike). The run-tag marker is stripped from labels. Vibrate is not shown in the list and
    is reported as the default (True).

    With ``clipped`` (a list to fill), an alarm whose card touches the top or bottom edge of the
    scrolling list goes there instead of into the result: part of it (its label, its days) may be
    scrolled out of view, and read as it shows it would be a different alarm.
    """
    screen = ClockScreen(elements, family, package)
    out = []
    for c in screen.cards():
        a = screen.alarm(c)
        (clipped if clipped is not None and screen.clipped(c) else out).append(a)
    return out
