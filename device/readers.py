"""Read a phone's ``WorldState`` over ADB, without root.

Sources (each parsed by :mod:`device.parsers`, which keep non-ASCII text intact):

==================  ===================================================================
field               command
==================  ===================================================================
time                ``date +%s`` in the zone of ``getprop persist.sys.timezone``
settings            ``settings list global|system|secure``
contacts            ``content query`` on ``com.android.contacts/data`` and ``/contacts``
messages            ``content query --uri content://sms``
events              ``content query --uri content://com.android.calendar/events``
calls               ``content query --uri content://call_log/calls``
files               ``find /sdcard/ -mindepth 1 -exec stat -c … {} +`` (else ``ls -laR``)
foreground          ``dumpsys window`` (focused window), ``dumpsys activity activities``
device              ``getprop``
alarms              optional UI probe: open Clock, read the alarm list, go back
dialer_number       the dial pad's number field, when a dialer shows it (never navigates)
==================  ===================================================================

Screens are read through the app UI layer (:mod:`device.apps`): the Clock driver finds the
alarm list's cards, times, labels, switches and Delete buttons by role, the Phone driver the dial
pad's number, each in the app's family on the phone — no resource id or label is named here.

Every ``content query`` passes ``--projection`` so rows split unambiguously. A field that
cannot be read (provider missing, permission denied, unknown output) stays ``None`` — the
judge then says *undetermined* instead of guessing — and the reason is kept in
:attr:`StateReader.notes`.

Run tags: records that s2r's setup creates carry a marker ``[s2r-xxxxxxxx]`` (see
:mod:`device.writers`); readers strip it from the text it rides in and report it in the
record's ``tag`` field where the schema has one, so a judge sees the same title or label
as in the simulator.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any, NamedTuple, Protocol

from pydantic import BaseModel, Field

from actionmap.observation import Bounds, UIElement
from actionmap.worldstate import (DAYS, Alarm, CalendarEvent, Call, Contact, DeviceInfo, FileEntry,
                                  ForegroundState, Message, Settings, WorldState)
from device.adbshell import DeviceLost, Shell
from device.parsers import (ParseError, calls_from_rows, contacts_from_rows, device_info_from_props,
                            events_from_rows, foreground_state, messages_from_rows, ms_to_local,
                            parse_content_rows, parse_dumpsys_activity, parse_dumpsys_window, parse_getprop,
                            parse_settings_get, parse_settings_list, resolve_tz, settings_to_worldstate)
from device.parsers.services import (parse_airplane_mode, parse_bluetooth_dump, parse_location_enabled,
                                     parse_night_mode, parse_ringer_mode, parse_volume_get, parse_wifi_status,
                                     parse_zen_mode, service_missing)
from device.parsers.settings import SETTING_SOURCES

__all__ = [
    "StateReader", "ReaderOptions", "TAG_RE", "marker", "invisible_marker", "has_tag", "strip_tag", "untagged", "content_query", "parse_stat_lines",
    "parse_ls_lr", "alarms_from_elements", "open_alarm_list", "parse_alarm_time", "parse_alarm_days", "UIProbe", "read_setting",
    "CONTACT_DATA_COLS", "SMS_COLS", "EVENT_COLS", "CALL_COLS", "MIME_NOTE", "read_setting_service",
    "SERVICE_STATUS", "SERVICE_MIRRORED", "ServiceUnavailable", "RESTRICTED_SMS_NOTE", "HIDDEN_SMS_BOXES",
    "ClockScreen", "AlarmCard", "probe_family", "dial_pad_number", "is_dialer_package", "scroll_to_top",
]

# ------------------------------------------------------------------------------------------ run tags
TAG_RE = re.compile(r"\s*\[(s2r-[0-9a-f]{6,16})\]")
MIME_NOTE = "vnd.android.cursor.item/note"
# An invisible form for fields the user sees (alarm labels, event descriptions): U+2063 INVISIBLE
# SEPARATOR, then the tag's hex digits two bits per character in four zero-width characters
# (default-ignorable code points: fonts draw nothing, so screenshots and labels look untouched).
_ZW = "\u200b\u200c\u200d\u2060"
_ZW_START = "\u2063"
TAG_INVISIBLE_RE = re.compile(_ZW_START + "([" + _ZW + "]{12,32})")


def marker(tag: str) -> str:
    """The visible marker a tagged record carries in a hidden field: ``[s2r-1a2b3c4d]``."""
    if not re.fullmatch(r"s2r-[0-9a-f]{6,16}", tag):
        raise ValueError(f"not a run tag: {tag!r}")
    return f"[{tag}]"


def invisible_marker(tag: str) -> str:
    """The same tag in zero-width characters, for fields the user sees."""
    marker(tag)  # validate
    out = [_ZW_START]
    for h in tag[4:]:
        v = int(h, 16)
        out += [_ZW[v >> 2], _ZW[v & 3]]
    return "".join(out)


def strip_tag(text: str) -> tuple[str, str | None]:
    """Remove a run-tag marker (either form): ``'Standup [s2r-1a2b3c4d]'`` → ``('Standup', 's2r-1a2b3c4d')``."""
    m = TAG_RE.search(text)
    if m:
        return (text[:m.start()] + text[m.end():]), m.group(1)
    m = TAG_INVISIBLE_RE.search(text)
    if m and len(m.group(1)) % 2 == 0:
        code = m.group(1)
        hexd = "".join("%x" % (_ZW.index(code[i]) << 2 | _ZW.index(code[i + 1])) for i in range(0, len(code), 2))
        end = m.end()
        if text[m.start() - 1:m.start()] == " " and text[end:end + 1] == " ":
            end += 1  # a marker alone between two words ("07:00 <tag> alarm") goes with one space
        return (text[:m.start()] + text[end:]), "s2r-" + hexd
    return text, None


def has_tag(text: str, tag: str) -> bool:
    return marker(tag) in text or invisible_marker(tag) in text


def untagged(text: str) -> str:
    """``text`` without any run-tag markers (what a person reads on the screen)."""
    for _ in range(8):
        text, tag = strip_tag(text)
        if tag is None:
            break
    return text


# ------------------------------------------------------------------------------------------ queries
CONTACT_DATA_COLS = ("_id", "raw_contact_id", "contact_id", "mimetype", "data1", "data2", "data3")
CONTACT_COLS = ("_id", "display_name", "starred")
SMS_COLS = ("_id", "address", "body", "type", "read", "date")
EVENT_COLS = ("_id", "title", "dtstart", "dtend", "allDay", "eventLocation", "description", "deleted")
CALL_COLS = ("_id", "number", "name", "type", "date", "duration")

URI_CONTACT_DATA = "content://com.android.contacts/data"
URI_CONTACTS = "content://com.android.contacts/contacts"
URI_RAW_CONTACTS = "content://com.android.contacts/raw_contacts"
URI_SMS = "content://sms"
URI_EVENTS = "content://com.android.calendar/events"
URI_CALENDARS = "content://com.android.calendar/calendars"
URI_CALLS = "content://call_log/calls"

_PROVIDER_ERRORS = re.compile(r"(Error while accessing provider|SecurityException|Permission Denial|"
                              r"Unknown URI|Unknown authority|IllegalArgumentException|no such column|"
                              r"Exception occurred)", re.I)


def content_query(shell: Shell, uri: str, cols: Sequence[str], where: str | None = None,
                  sort: str | None = None) -> list[dict[str, str | None]]:
    """``content query --uri U --projection a:b:c [--where W] [--sort S]`` → rows.

    Raises ``ParseError`` when the provider refuses or prints something else (a permission
    denial, a missing provider) — callers turn that into an unknown (``None``) field.
    """
    argv = ["content", "query", "--uri", uri, "--projection", ":".join(cols)]
    if where:
        argv += ["--where", where]
    if sort:
        argv += ["--sort", sort]
    r = shell.run(argv)
    text = r.out if r.out.strip() else r.err
    if _PROVIDER_ERRORS.search(r.err or "") or (_PROVIDER_ERRORS.search(text) and "Row: 0 " not in text):
        raise ParseError(f"{uri}: {(r.err or text).strip()[:200]}")
    return parse_content_rows(text, columns=list(cols))


RESTRICTED_SMS_NOTE = "the shell's restricted view shows only inbox and sent"
HIDDEN_SMS_BOXES = ("draft", "outbox", "failed", "queued")
"""SMS boxes the shell cannot read on a stock phone (types 3-6)."""

# ------------------------------------------------------------------------------------------ files
_STAT_LINE = re.compile(r"^(\d+)\|(-?\d+)\|([^|]+)\|(.*)$")


def parse_stat_lines(text: str, root: str, tz: Any) -> list[FileEntry]:
    """Lines of ``stat -c '%s|%Y|%F|%n'`` → entries (paths kept as printed, under ``root``)."""
    out = []
    for line in text.split("\n"):
        m = _STAT_LINE.match(line.rstrip("\r"))
        if not m:
            continue
        size, mtime, kind, path = int(m.group(1)), int(m.group(2)), m.group(3), m.group(4)
        is_dir = kind.strip().lower() == "directory"
        out.append(FileEntry(path=_sdcard_path(path, root), kind="dir" if is_dir else "file",
                             size=0 if is_dir else size, mtime=None if is_dir else ms_to_local(mtime * 1000, tz)))
    return out


_LS_HEAD = re.compile(r"^(/.*):$")
_LS_ROW = re.compile(r"^([dlcbps-])[rwxsStT-]{9}[.+@]?\s+\d+\s+\S+\s+\S+\s+(\d+)\s+"
                     r"(\d{4}-\d{2}-\d{2} \d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?: [+-]\d{4})?)\s(.*)$")


def parse_ls_lr(text: str, root: str) -> list[FileEntry]:
    """``ls -laR DIR`` (toybox format, ``YYYY-MM-DD HH:MM`` dates) → entries."""
    out: list[FileEntry] = []
    cur: str | None = None
    for line in text.split("\n"):
        line = line.rstrip("\r")
        h = _LS_HEAD.match(line)
        if h:
            cur = h.group(1).rstrip("/")
            continue
        m = _LS_ROW.match(line)
        if not m or cur is None:
            continue
        name = m.group(4)
        if m.group(1) == "l":
            name = name.split(" -> ", 1)[0]
        if name in (".", ".."):
            continue
        stamp = m.group(3)[:16]
        try:
            mt = datetime.strptime(stamp, "%Y-%m-%d %H:%M")
        except ValueError:
            mt = None
        is_dir = m.group(1) == "d"
        out.append(FileEntry(path=_sdcard_path(f"{cur}/{name}", root), kind="dir" if is_dir else "file",
                             size=0 if is_dir else int(m.group(2)), mtime=None if is_dir else mt))
    return out


def _sdcard_path(path: str, root: str) -> str:
    """Report every path under ``/sdcard`` (not ``/storage/emulated/0``), as the sim does."""
    p = re.sub(r"/+", "/", path)
    for alias in ("/storage/emulated/0", "/storage/self/primary", "/mnt/sdcard"):
        if p == alias or p.startswith(alias + "/"):
            p = "/sdcard" + p[len(alias):]
    return p.rstrip("/") or "/"


# ------------------------------------------------------------------------------------------ alarms (UI)
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


# The Clock app's screens are read through the app UI layer (device.apps): the Clock driver knows
# each family's alarm list by role (alarm_card, alarm_time, alarm_label, alarm_switch, delete …),
# so nothing here names a resource id or a label.
def probe_family(ui: Any, app: str) -> str | None:
    """The family of ``app`` on the probed phone, when the probe knows it (``DeviceEnv.probe_family``);
    None lets the driver tell the family from the screen's package."""
    fn = getattr(ui, "probe_family", None)
    if fn is None:
        return None
    try:
        return fn(app)
    except DeviceLost:
        raise
    except Exception:  # noqa: BLE001 - the family is a hint: the screen's package still tells it
        return None


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


def _phone_driver() -> Any:
    from device.apps import driver

    try:
        return driver("phone")
    except KeyError:
        return None


def is_dialer_package(package: str | None) -> bool:
    """The package is a dialer: one the Phone driver's family data ships, or the registry's phone app."""
    if not package:
        return False
    drv = _phone_driver()
    if drv is not None and drv.family_of(package) is not None:
        return True
    from device.apps import app_of_package

    return app_of_package(package) == "phone"


def dial_pad_number(elements: Sequence[UIElement], family: str | None = None) -> str | None:
    """The number on a dialer's pad as the Phone driver reads it (``digits``), keeping only what a pad
    can enter; None when no dial pad is on screen (another app, or the dialer without its pad)."""
    from device.apps.base import foreground_package

    drv = _phone_driver()
    pkg = foreground_package(elements)
    if drv is None or not is_dialer_package(pkg):
        return None
    fam = family or drv.family_of(pkg, None, elements)
    m = drv.matcher(elements, fam, pkg)
    text = drv.read(elements, package=pkg, family=fam).visible.get("digits")
    if text is None:  # a screen the driver does not name: the number field, if it is there
        e = m.first("digits")
        if e is None:
            return None
        text = "" if e.hint and _norm(e.text) == _norm(e.hint) else (e.text or "")
    return re.sub(r"[^0-9*#+,;]", "", str(text))


class UIProbe(Protocol):
    """What the alarm probe needs from a driven phone (``DeviceEnv`` provides it).

    A probe may also offer ``probe_family(app) -> str | None``, the family of an app on the phone
    (see :func:`probe_family`)."""

    def probe_open(self, app: str) -> None: ...
    def probe_elements(self) -> list[UIElement]: ...
    def probe_tap(self, e: UIElement) -> None: ...
    def probe_scroll(self, down: bool) -> None: ...
    def probe_home(self) -> None: ...


def open_alarm_list(ui: UIProbe, max_pages: int = 8) -> list[UIElement]:
    """Open the Clock app on its Alarm tab, scrolled to the top; returns what is on screen.

    The app may resume where someone left it (another tab, a scrolled list), so the Alarm tab is
    chosen (when it is not the selected one, or the screen is not the alarm list) and the list
    scrolled up until it stops moving.
    """
    ui.probe_open("clock")
    els = ui.probe_elements()
    screen = ClockScreen(els, probe_family(ui, "clock"))
    tab = screen.alarm_tab()
    if tab is not None and (not tab.selected or not screen.is_alarm_list()):
        ui.probe_tap(tab)
        els = ui.probe_elements()
    # A first-launch tooltip (Google Clock's Bedtime hint, a popup window over the lower part of the
    # list) hides the cards' switches beneath it, and a short list does not scroll out from under
    # it. A person taps it away: that only records the hint as shown, no alarm changes.
    for _ in range(2):
        tip = ClockScreen(els, probe_family(ui, "clock")).m.first("tooltip")
        if tip is None:
            break
        ui.probe_tap(tip)
        els = ui.probe_elements()
    return scroll_to_top(ui, els, max_pages)


def scroll_to_top(ui: UIProbe, els: list[UIElement], max_pages: int = 8) -> list[UIElement]:
    """Scroll up until the screen stops changing; returns what is on screen then."""
    last = None
    for _ in range(max_pages):
        if not any(e.scrollable for e in els):
            break
        texts = [e.text for e in els if e.text]
        if texts == last:
            break
        last = texts
        ui.probe_scroll(False)
        els = ui.probe_elements()
    return els


def probe_alarms(ui: UIProbe, max_pages: int = 8) -> list[Alarm] | None:
    """Read every alarm from the Clock app's list (top to bottom), then go home.

    Alarms identical in every shown field are reported once (the list cannot tell them apart).
    None when no page showed the alarm list (the Clock app is missing, or shows something else).
    """
    els = open_alarm_list(ui)
    family = probe_family(ui, "clock")
    seen: dict[tuple[int, int, str, tuple[str, ...], bool], Alarm] = {}
    pages = 0
    found_list = False
    last_texts: list[str] | None = None
    cut: list[Alarm] = []  # items seen only cut by the list's edge, on any page
    while True:
        # an item cut by the list's edge is read on the page that shows it whole (pages overlap)
        edge: list[Alarm] = []
        screen = ClockScreen(els, family)
        got = []
        for c in screen.cards():
            (edge if screen.clipped(c) else got).append(screen.alarm(c))
        cut += edge
        found_list = found_list or bool(got) or bool(edge) or screen.is_alarm_list()
        for a in got:
            seen.setdefault((a.hour, a.minute, a.label, tuple(a.days), a.enabled), a)
        pages += 1
        texts = [e.text for e in els if e.text]
        end = pages >= max_pages or texts == last_texts or not any(e.scrollable for e in els)
        if end:
            # an item never seen whole (taller than a page, e.g. expanded) is taken from the page
            # that showed the most of it: its label and days, where some page showed them
            whole = {(b.hour, b.minute) for b in seen.values()}
            best: dict[tuple[int, int], Alarm] = {}
            for a in cut:
                k = (a.hour, a.minute)
                if k not in whole and (k not in best or (bool(a.label), len(a.days)) >
                                       (bool(best[k].label), len(best[k].days))):
                    best[k] = a
            for a in best.values():
                seen.setdefault((a.hour, a.minute, a.label, tuple(a.days), a.enabled), a)
            break
        last_texts = texts
        ui.probe_scroll(True)
        els = ui.probe_elements()
    if pages > 1:
        scroll_to_top(ui, els, max_pages)  # leave the list as the app shows it when opened
    ui.probe_home()
    if not found_list:
        return None
    return list(seen.values())


# ------------------------------------------------------------------------------------------ reader
class ReaderOptions(BaseModel):
    alarm_probe: bool = Field(False, description="Read alarms by opening the Clock app (changes the screen).")
    files_root: str = "/sdcard"
    files_exclude: list[str] = Field(default_factory=lambda: ["/sdcard/Android"],
                                     description="Subtrees left out (app-private data).")
    include_hidden_files: bool = False
    fields: list[str] | None = Field(None, description="Only these WorldState fields (None = all).")


# Settings that mirror a service: the service's own status is the truth (a raw key can disagree).
# field -> (argv that prints the state, parser). See device.parsers.services for the AOSP sources.
SERVICE_STATUS: dict[str, tuple[tuple[str, ...], Callable[[str], Any]]] = {
    "wifi": (("cmd", "wifi", "status"), parse_wifi_status),
    "bluetooth": (("dumpsys", "bluetooth_manager"), parse_bluetooth_dump),
    "airplane_mode": (("cmd", "connectivity", "airplane-mode"), parse_airplane_mode),
    "do_not_disturb": (("dumpsys", "notification"), parse_zen_mode),
    "dark_mode": (("cmd", "uimode", "night"), parse_night_mode),
    "location": (("cmd", "location", "is-location-enabled"), parse_location_enabled),
    # AudioService: the stream's index (MediaShellCommand → VolumeCtrl ``[V] volume is N in range``),
    # not ``system volume_music_speaker``, which AudioService writes only 500 ms after a change and
    # only under the current output device's name (absent on a fresh phone); the ringer from
    # ``dumpsys audio``'s ``- mode (external) = …`` (``global mode_ringer`` is only its record).
    "media_volume": (("cmd", "media_session", "volume", "--stream", "3", "--get"), parse_volume_get),
    "ringer_mode": (("dumpsys", "audio"), parse_ringer_mode),
}
SERVICE_MIRRORED = frozenset(SERVICE_STATUS) | {"mobile_data"}
"""Fields whose settings key a raw ``settings put`` changes without changing the service."""
#: The fields :meth:`StateReader.settings` reads from their services (the rest come from the keys).
SERVICE_READ = ("wifi", "bluetooth", "airplane_mode", "do_not_disturb", "dark_mode", "location", "media_volume",
                "ringer_mode")


class ServiceUnavailable(ParseError):
    """The service's status command is missing on this release (or printed something else)."""


def read_setting_service(shell: Shell, field: str) -> Any:
    """One service-mirrored field, read from the service's own status output.

    Raises :class:`ServiceUnavailable` when the command is missing on this release (``Unknown
    command``, ``Can't find service``) or its output is not recognised. ``mobile_data`` has no
    status command: ``svc data`` persists ``global mobile_data`` itself, so that key is read
    (it is the service's record, not one s2r writes)."""
    if field == "mobile_data":
        return read_setting(shell, field)
    if field not in SERVICE_STATUS:
        return read_setting(shell, field)
    argv, parse = SERVICE_STATUS[field]
    r = shell.run(list(argv))
    v = parse(r.out) if not service_missing(r.err) or r.out.strip() else None
    if v is None:
        raise ServiceUnavailable(f"{' '.join(argv)}: {(r.err or r.out).strip()[:160] or 'no output'}")
    return v


def read_setting(shell: Shell, field: str) -> Any:
    """One ``WorldState.settings`` field, read with ``settings get`` from its sources."""
    ns: dict[str, dict[str, str]] = {"global": {}, "system": {}, "secure": {}}
    for space, key in SETTING_SOURCES[field]:
        v = parse_settings_get(shell.out(["settings", "get", space, key]))
        if v is not None:
            ns[space][key] = v
            break
    return getattr(settings_to_worldstate(ns["global"], ns["system"], ns["secure"]), field)


class StateReader:
    """Fills a ``WorldState`` from one phone. Stateless between calls except the time zone."""

    def __init__(self, shell: Shell, *, options: ReaderOptions | None = None, ui: UIProbe | None = None,
                 props: dict[str, str] | None = None, permissive_view: bool = False):
        """``permissive_view``: the shell sees every SMS box (a rooted/permissive phone);
        False (stock): only inbox and sent, and :attr:`unseen` says which boxes are hidden."""
        self.shell = shell
        self.options = options or ReaderOptions()
        self.ui = ui
        self._props = props
        self.notes: dict[str, str] = {}
        self.unseen: dict[str, list[str]] = {}
        self.permissive_view = permissive_view
        self.timings_ms: dict[str, float] = {}

    # --- identity / clock ----------------------------------------------------------------
    def props(self) -> dict[str, str]:
        if self._props is None:
            self._props = parse_getprop(self.shell.out(["getprop"]))
        return self._props

    def timezone(self) -> str | None:
        """The phone's zone (``getprop persist.sys.timezone``), read once per reader (a session):
        the wall times of the WorldState (event start/end, SMS and call dates, file times, the
        clock) are local times of this zone; providers store UTC epoch milliseconds."""
        cached = getattr(self, "_tz_read", None)
        if cached is not None:
            if cached[1]:
                self.notes["timezone"] = cached[1]
            return cached[0]
        tz = self.shell.getprop("persist.sys.timezone") or self.props().get("persist.sys.timezone")
        note = ""
        if tz:
            try:
                resolve_tz(tz)
            except ParseError:
                note = f"unknown zone {tz!r}; times read as UTC"
                self.notes["timezone"] = note
                tz = None
        self._tz_read = (tz or None, note)
        return tz or None

    def now(self, tz: str | None) -> datetime | None:
        out = self.shell.out(["date", "+%s"]).strip()
        return ms_to_local(int(out) * 1000, tz) if out.isdigit() else None

    def device(self) -> DeviceInfo:
        return device_info_from_props(self.props())

    # --- settings --------------------------------------------------------------------------
    def settings(self) -> Settings:
        with self.shell.prefetched("settings"):  # ~9 small reads: one shell round trip once learnt
            return self._settings()

    def _settings(self) -> Settings:
        spaces = {}
        for space in ("global", "system", "secure"):
            try:
                spaces[space] = parse_settings_list(self.shell.out(["settings", "list", space]))
            except ParseError as e:
                self.notes[f"settings.{space}"] = str(e)
                spaces[space] = {}
        st = settings_to_worldstate(spaces["global"], spaces["system"], spaces["secure"])
        # where the raw key can disagree with the service, the service wins (the raw value is
        # the fallback only when this release lacks the status command)
        upd: dict[str, Any] = {}
        for field in SERVICE_READ:
            try:
                upd[field] = read_setting_service(self.shell, field)
            except ServiceUnavailable as e:
                self.notes[f"settings.{field}"] = f"read from settings (service status unavailable: {e})"[:300]
        return st.model_copy(update=upd)

    # --- providers -----------------------------------------------------------------------------
    def contacts(self) -> list[Contact]:
        data = content_query(self.shell, URI_CONTACT_DATA, CONTACT_DATA_COLS)
        try:
            crow = content_query(self.shell, URI_CONTACTS, CONTACT_COLS)
        except ParseError as e:
            self.notes["contacts.starred"] = str(e)
            crow = None
        contacts = contacts_from_rows(data, crow)
        tags: dict[str, str] = {}
        for r in data:
            if r.get("mimetype") == MIME_NOTE and r.get("data1"):
                _t, tag = strip_tag(r["data1"] or "")
                cid = r.get("contact_id") or r.get("raw_contact_id")
                if tag and cid:
                    tags[cid] = tag
        return [c.model_copy(update={"tag": tags.get(c.id or "")}) if c.id in tags else c for c in contacts]

    def messages(self, tz: str | None) -> list[Message]:
        rows = content_query(self.shell, URI_SMS, SMS_COLS)
        if not self.permissive_view:
            # SmsProvider: a caller that is not the default SMS app (the shell) sees only inbox
            # and sent rows (TelephonyProvider SmsProvider.query, "restricted view")
            self.notes["messages"] = RESTRICTED_SMS_NOTE
            self.unseen["messages.box"] = list(HIDDEN_SMS_BOXES)
        return messages_from_rows(rows, tz)

    def events(self, tz: str | None) -> list[CalendarEvent]:
        rows = content_query(self.shell, URI_EVENTS, EVENT_COLS)
        # a synced event deleted by a non-sync-adapter stays as a deleted=1 row until the next sync
        rows = [r for r in rows if (r.get("deleted") or "0") != "1"]
        out = []
        for ev in events_from_rows(rows, tz):
            desc, tag = strip_tag(ev.description)
            title, tag2 = strip_tag(ev.title)
            out.append(ev.model_copy(update={"description": desc.rstrip("\n") if tag else desc, "title": title,
                                             "tag": tag or tag2}))
        return out

    def calls(self, tz: str | None) -> list[Call]:
        return calls_from_rows(content_query(self.shell, URI_CALLS, CALL_COLS), tz)

    # --- files ------------------------------------------------------------------------------------
    def files(self, tz: str | None) -> list[FileEntry]:
        root = self.options.files_root.rstrip("/")
        r = self.shell.run(["find", root + "/", "-mindepth", "1", "-exec", "stat", "-c", "%s|%Y|%F|%n", "{}", "+"],
                           timeout=60)
        entries = parse_stat_lines(r.out, root, tz) if r.out.strip() else []
        if not entries:
            r2 = self.shell.run(["ls", "-laR", root + "/"], timeout=60)
            entries = parse_ls_lr(r2.out, root)
            if not entries and (r.rc not in (0, None) and r2.rc not in (0, None)):
                raise ParseError(f"cannot list {root}: {(r.err or r2.err or r2.out).strip()[:200]}")
        out = []
        for e in entries:
            if any(e.path == x or e.path.startswith(x.rstrip("/") + "/") for x in self.options.files_exclude):
                continue
            if not self.options.include_hidden_files and any(p.startswith(".") for p in e.path.split("/")):
                continue
            out.append(e)
        out.sort(key=lambda e: e.path)
        return out

    # --- foreground -----------------------------------------------------------------------------
    def foreground(self) -> ForegroundState:
        win = None
        try:
            win = parse_dumpsys_window(self.shell.out(["dumpsys", "window"]))
        except ParseError as e:
            self.notes["foreground.window"] = str(e)
        act = None
        if win is None or win.package is None:
            try:
                act = parse_dumpsys_activity(self.shell.out(["dumpsys", "activity", "activities"]))
            except ParseError as e:
                self.notes["foreground.activity"] = str(e)
        return foreground_state(win, act)

    # --- everything ---------------------------------------------------------------------------------
    def dialer_number(self) -> str | None:
        """The digits on the dial pad, read off the screen when a dialer shows its pad.

        No provider holds what is typed on the pad, but the pad's number field shows it: the Phone
        driver (``device.apps.driver("phone")``) reads it by role (``digits``) in the dialer's
        family. The dialer formats it ("+1 303-555-0115"), so only the characters a pad can enter
        are kept. Reads the current screen only — never navigates."""
        if self.ui is None:
            self.notes["dialer_number"] = "read from the screen, and no UI is attached"
            return None
        els = self.ui.probe_elements()
        got = dial_pad_number(els, probe_family(self.ui, "phone"))
        if got is None:
            self.notes["dialer_number"] = "the dial pad is not on screen"
        return got

    def _want(self, field: str) -> bool:
        return self.options.fields is None or field in self.options.fields

    def _try(self, field: str, fn: Callable[[], Any]) -> Any:
        t0 = time.perf_counter()
        try:
            return fn()
        except DeviceLost:
            raise
        except (ParseError, ValueError) as e:
            self.notes[field] = str(e)[:300]
            return None
        finally:
            self.timings_ms[field] = (time.perf_counter() - t0) * 1e3

    def read(self) -> WorldState:
        """The whole readable state; unreadable fields stay ``None`` (see :attr:`notes`).

        Its twenty-odd read-only commands run in one shell round trip once the shell has seen
        this read (:meth:`Shell.prefetched`); the Clock probe's input, a write, ends that."""
        key = "read:" + ",".join(sorted(self.options.fields)) if self.options.fields is not None else "read:all"
        with self.shell.prefetched(key):
            return self._read()

    def _read(self) -> WorldState:
        self.notes = {}
        self.unseen = {}
        self.timings_ms = {}
        tz = self.timezone()
        ws = WorldState()
        if self._want("time"):
            ws.time = self._try("time", lambda: self.now(tz))
        if self._want("settings"):
            ws.settings = self._try("settings", self.settings) or Settings()
        if self._want("contacts"):
            ws.contacts = self._try("contacts", self.contacts)
        if self._want("messages"):
            ws.messages = self._try("messages", lambda: self.messages(tz))
        if self._want("events"):
            ws.events = self._try("events", lambda: self.events(tz))
        if self._want("calls"):
            ws.calls = self._try("calls", lambda: self.calls(tz))
        if self._want("files"):
            ws.files = self._try("files", lambda: self.files(tz))
        if self._want("device"):
            ws.device = self._try("device", self.device) or DeviceInfo()
        if self._want("alarms") and self.options.alarm_probe and self.ui is not None:
            ws.alarms = self._try("alarms", lambda: probe_alarms(self.ui))  # type: ignore[arg-type]
        elif self._want("alarms"):
            self.notes.setdefault("alarms", "no provider exposes alarms; enable the Clock UI probe to read them")
        if self._want("foreground"):
            ws.foreground = self._try("foreground", self.foreground) or ForegroundState()
        if self._want("dialer_number"):
            pkg = ws.foreground.package if ws.foreground is not None else None
            if pkg and not is_dialer_package(pkg):  # the pad is on screen only in a dialer: no dump needed
                self.notes["dialer_number"] = "the dial pad is not on screen"
            else:
                ws.dialer_number = self._try("dialer_number", self.dialer_number)
        for f in ("timers", "stopwatch", "world_clocks", "calculator_display"):
            self.notes.setdefault(f, "not readable over ADB without root")
        ws.hidden = {k: list(v) for k, v in self.unseen.items()}
        return ws


def local_to_ms(dt: datetime, tz: str | None) -> int:
    """A naive phone-local datetime → epoch milliseconds in the phone's zone."""
    zone = resolve_tz(tz)
    return int(dt.replace(tzinfo=zone).timestamp() * 1000) if dt.tzinfo is None else int(dt.timestamp() * 1000)


def utc_midnight_ms(dt: datetime) -> int:
    """All-day events are stored at UTC midnight of their date (CalendarContract rule)."""
    from datetime import timezone

    d = datetime(dt.year, dt.month, dt.day, tzinfo=timezone.utc)
    return int(d.timestamp() * 1000)


__all__ += ["local_to_ms", "utc_midnight_ms", "probe_alarms"]
