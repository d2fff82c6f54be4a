"""Read a phone's ``WorldState`` over ADB, without root: :class:`StateReader`.

Sources (each parsed by :mod:`device.parsers`, which keep non-ASCII text intact):

==================  ===================================================================
field               command
==================  ===================================================================
time                ``date +%s`` in the zone of ``getprop persist.sys.timezone``
settings            ``settings list global|system|secure``, services' status (:mod:`device.readers.settings`)
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

A field that cannot be read (provider missing, permission denied, unknown output) stays ``None``
— the judge then says *undetermined* instead of guessing — and the reason is kept in
:attr:`StateReader.notes`. Run tags are stripped from the text they ride in and reported in the
record's ``tag`` field (:mod:`device.readers.tags`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field

from actionmap.worldstate import (CalendarEvent, Call, Contact, DeviceInfo, FileEntry, ForegroundState, Message,
                                  Settings, WorldState)
from device.adbshell import DeviceLost, Shell
from device.parsers import (ParseError, calls_from_rows, contacts_from_rows, device_info_from_props,
                            events_from_rows, foreground_state, messages_from_rows, ms_to_local,
                            parse_dumpsys_activity, parse_dumpsys_window, parse_getprop, resolve_tz)
from device.parsers.files import parse_ls_lr, parse_stat_lines
from device.readahead import read_ahead
from device.readers.content import (CALL_COLS, CONTACT_COLS, CONTACT_DATA_COLS, EVENT_COLS, HIDDEN_SMS_BOXES,
                                    RESTRICTED_SMS_NOTE, SMS_COLS, URI_CALLS, URI_CONTACT_DATA, URI_CONTACTS,
                                    URI_EVENTS, URI_SMS, content_query)
from device.readers.probes import UIProbe, dial_pad_number, is_dialer_package, probe_alarms, probe_family
from device.readers.settings import read_settings
from device.readers.tags import MIME_NOTE, strip_tag

__all__ = ["ReaderOptions", "StateReader", "local_to_ms", "utc_midnight_ms"]


class ReaderOptions(BaseModel):
    alarm_probe: bool = Field(False, description="Read alarms by opening the Clock app (changes the screen).")
    files_root: str = "/sdcard"
    files_exclude: list[str] = Field(default_factory=lambda: ["/sdcard/Android"],
                                     description="Subtrees left out (app-private data).")
    include_hidden_files: bool = False
    fields: list[str] | None = Field(None, description="Only these WorldState fields (None = all).")


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
        with read_ahead(self.shell, "settings"):  # ~9 small reads: one shell round trip once learnt
            return read_settings(self.shell, self.notes)

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
        this read (:meth:`ReadAhead.prefetched <device.readahead.ReadAhead.prefetched>`, where the shell
        reads ahead); the Clock probe's input, a write, ends that."""
        key = "read:" + ",".join(sorted(self.options.fields)) if self.options.fields is not None else "read:all"
        with read_ahead(self.shell, key):
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
