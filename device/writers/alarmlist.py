"""Driving the Clock app's alarm list: find an alarm by its run tag or by what it shows, scan the
whole list, and delete alarms one by one through their cards' Delete — each delete counted only
when the list changed.

No API deletes an alarm, so teardown does what a person does. Cards are the Clock driver's
``alarm_card`` in the app's family (:class:`device.readers.ClockScreen`): a container by the
family's data, never a guessed region, so a Delete found in it is that alarm's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from actionmap.worldstate import Alarm
from device.readers import AlarmCard, ClockScreen, open_alarm_list, probe_family
from device.writers.part import WriterPart

__all__ = ["ClockList", "AlarmListUnreadable", "AlarmDeletes", "alarm_box", "plain_alarm_box"]


class AlarmListUnreadable(RuntimeError):
    """No page showed the Clock app's alarm list (the app is missing or hidden, or shows something else)."""


class AlarmDeletes(NamedTuple):
    """How a delete loop over the Clock app's alarm list went."""

    n: int | None
    """Alarms deleted (None: no UI to drive)."""
    clean: bool
    """The last scan of the whole list found none left (or the ``limit`` was reached)."""
    why: str | None = None
    """Why it stopped before that: the list could not be read, a card shows no Delete …"""


class ClockList(WriterPart):
    """The Clock app's alarm list on one phone, driven through the writer's UI probe."""

    def screen(self, els: Sequence[Any]) -> ClockScreen:
        """The screen as the Clock driver reads it, in the Clock app's family on this phone."""
        return ClockScreen(els, probe_family(self.ui, "clock"))

    def find_tagged(self, tag: str, pages: int = 8,
                    alarm: Alarm | None = None) -> tuple[ClockScreen, AlarmCard] | None:
        """Scroll the Clock app's alarm list to an alarm whose label carries ``tag``: (the screen,
        that alarm's card), or None. Raises :class:`AlarmListUnreadable` when no page showed the list."""
        return self.find(lambda s: alarm_box(s, tag, alarm), pages)

    def find(self, pick: Callable[[ClockScreen], list[AlarmCard]],
             pages: int = 8) -> tuple[ClockScreen, AlarmCard] | None:
        """Scroll the Clock app's alarm list to the first card ``pick`` finds: (the screen, the card),
        or None when a scan of the whole list found none. Raises :class:`AlarmListUnreadable` when
        no page showed the alarm list (the app is missing or hidden, or shows something else): then
        "none found" would be a guess."""
        assert self.ui is not None
        last: list[str] | None = None
        seen_list = False
        els = open_alarm_list(self.ui)
        screen = self.screen(els)
        for page in range(pages):
            if page:
                els = self.ui.probe_elements()
                screen = self.screen(els)
            cards = pick(screen)
            if cards:
                return screen, cards[0]
            seen_list = seen_list or screen.is_alarm_list()
            texts = [e.text for e in els if e.text]
            if texts == last or not any(e.scrollable for e in els):
                break
            last = texts
            self.ui.probe_scroll(True)
        if not seen_list:
            raise AlarmListUnreadable(f"the Clock app's alarm list did not show (the screen is "
                                      f"{screen.package or 'no app'}'s, read as {screen.family or 'generic'})")
        return None

    def scan(self, pick: Callable[[ClockScreen], list[AlarmCard]], pages: int = 8) -> list[str] | None:
        """Every card ``pick`` finds in the whole list, as "HH:MM 'label'" (one per distinct alarm
        shown; None when the list could not be read). Goes home afterwards."""
        assert self.ui is not None
        found: dict[tuple[tuple[int, int], str], str] = {}
        try:
            last: list[str] | None = None
            seen_list = False
            els = open_alarm_list(self.ui)
            for page in range(pages):
                if page:
                    els = self.ui.probe_elements()
                screen = self.screen(els)
                seen_list = seen_list or screen.is_alarm_list()
                for c in pick(screen):
                    label = screen.label(c)
                    found.setdefault((c.hm, label), f"{c.hm[0]:02d}:{c.hm[1]:02d} {label!r}")
                texts = [e.text for e in els if e.text]
                if texts == last or not any(e.scrollable for e in els):
                    break
                last = texts
                self.ui.probe_scroll(True)
        finally:
            self.ui.probe_home()
        return list(found.values()) if seen_list or found else None

    def delete_tagged(self, tag: str, max_rounds: int = 20) -> AlarmDeletes:
        """Delete alarms whose label carries ``tag`` through the Clock app UI (no API deletes alarms).

        Each round rescans from the top, so a tap a busy phone missed is simply tried again and the
        verdict (``clean``: the last scan of the whole list found none left) costs no extra scan."""
        return self.delete(lambda s: alarm_box(s, tag), max_rounds)

    def delete(self, pick: Callable[[ClockScreen], list[AlarmCard]], max_rounds: int = 20,
               limit: int | None = None) -> AlarmDeletes:
        """Delete (at most ``limit``) alarms ``pick`` finds in the Clock app's list, one by one.

        A delete counts only when the tap changed the list (a phone that ignores the tap, or
        refuses, leaves it as it was); three taps in a row that change nothing end the loop."""
        if self.ui is None:
            return AlarmDeletes(None, False, "no UI to drive the Clock app")
        n = 0
        clean = False
        why: str | None = None
        refused = 0
        try:
            for _ in range(max_rounds):
                if limit is not None and n >= limit:
                    clean = True
                    break
                try:
                    found = self.find(pick)
                    if found is None:
                        clean = True
                        break
                    screen, card = found
                    what = f"{card.hm[0]:02d}:{card.hm[1]:02d} {screen.label(card)!r}"
                    screen, delete = self._alarm_delete(screen, card, pick)
                except AlarmListUnreadable as e:
                    why = str(e)
                    break
                if delete is None:
                    why = f"no Delete found for the alarm {what}"
                    break
                before = _list_shown(screen)
                self.ui.probe_tap(delete)
                if _list_shown(self.screen(self.ui.probe_elements())) != before:
                    n += 1
                    refused = 0
                    continue
                refused += 1
                why = f"tapping the Delete of the alarm {what} changed nothing ({refused}x)"
                if refused >= 3:
                    break
            else:
                why = why or f"alarms still found after {max_rounds} deletes"
        finally:
            self.ui.probe_home()
        return AlarmDeletes(n, clean, None if clean else why)

    def _alarm_delete(self, screen: ClockScreen, card: AlarmCard,
                      pick: Callable[[ClockScreen], list[AlarmCard]]) -> tuple[ClockScreen, Any]:
        """The card's Delete (the driver's ``delete`` role in the card, below its box too) and the
        screen it is on: a collapsed card is expanded first, and an expanded one whose Delete lies
        below the list's fold is lifted into view. The Delete is None when there is none."""
        assert self.ui is not None

        def first(role: str) -> Any:
            got = screen.in_card(card, role, whole=True)
            return got[0] if got else None

        delete = first("delete")
        if delete is not None:
            return screen, delete
        expand = first("expand_alarm")
        if expand is None and first("collapse_alarm") is None:
            return screen, None  # neither expandable nor expanded: this family shows no Delete in its list
        if expand is not None:
            self.ui.probe_tap(expand)
            screen = self.screen(self.ui.probe_elements())  # expanded in place: no rescan from the top
            cards = pick(screen)
            if cards:
                card = cards[0]
            else:
                found = self.find(pick)
                if found is None:
                    return screen, None
                screen, card = found
            delete = first("delete")
        if delete is None:  # expanded, with its Delete below the list's fold: lift the item
            screen, lifted = self._lift_item(screen, card, pick)
            if lifted is None:
                return screen, None
            card = lifted
            delete = first("delete")
        return screen, delete

    def _lift_item(self, screen: ClockScreen, card: AlarmCard,
                   pick: Callable[[ClockScreen], list[AlarmCard]]) -> tuple[ClockScreen, AlarmCard | None]:
        """Scroll the list up by half the card's distance from the list's top, so an expanded
        card's lower part (its Delete) comes into view while its label stays on screen (a fling
        may carry the list further than the swipe). Returns the new screen and the card there."""
        assert self.ui is not None
        view = screen.list_view(card.card)
        top = card.card.bounds.top
        if view is None or top - view.top < 100:
            return screen, None
        try:
            self.ui.probe_scroll(True, fraction=(top - view.top) / 2 / view.height)  # type: ignore[call-arg]
        except TypeError:  # a probe without measured scrolls
            return screen, None
        screen = self.screen(self.ui.probe_elements())
        cards = pick(screen)
        return screen, (cards[0] if cards else None)


def _list_shown(screen: ClockScreen) -> tuple[Any, ...]:
    """What the alarm list shows, card by card (time, label, where): a delete changes it."""
    return tuple((c.hm, screen.label(c), c.card.bounds.top, c.card.bounds.bottom) for c in screen.cards())


def plain_alarm_box(screen: ClockScreen, hour: int, minute: int, label: str) -> list[AlarmCard]:
    """The untagged cards showing this time and label (a setup's alarms, which carry a tag, are
    teardown's to delete by their tag). Cards are the Clock driver's ``alarm_card`` in the app's
    family: a container by the family's data, never a guessed region, so a Delete found in it is
    this alarm's."""
    return [c for c in screen.cards()
            if c.hm == (hour, minute) and not screen.tagged(c) and screen.label(c) == label]


def alarm_box(screen: ClockScreen, tag: str, alarm: Alarm | None = None) -> list[AlarmCard]:
    """The cards whose label carries ``tag`` — collapsed or expanded, wherever the family shows the
    label; with ``alarm``, only those showing that alarm's label and time (one setup may add several)."""
    return [c for c in screen.cards() if screen.carries(c, tag)
            and (alarm is None or (c.hm == (alarm.hour, alarm.minute) and screen.label(c) == alarm.label))]
