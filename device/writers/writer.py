"""The coordinator: :class:`DeviceWriter` applies a ``StatePatch`` setup to one phone and undoes it,
through one part per provider (settings, SMS, contacts, calendar, call log, files, alarms and
timers, runtime permissions), each with its setup, episode marks and teardown in one place.

The writer owns the journal on disk, the order of the parts, the marks of the episode's own rows
(:data:`EPISODE_ROWS`: what a policy writes through the apps is undone at teardown) and what the
session found it may do (``sms_writable``, ``calendar_id`` … — ``DeviceEnv`` fills these in).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from actionmap.patch import StatePatch
from actionmap.worldstate import Alarm
from device.adbshell import DeviceCommandError, DeviceLost, Shell
from device.parsers import ParseError
from device.readahead import read_ahead
from device.readers import UIProbe, content_query
from device.writers import calendar, calllog, contacts, sms
from device.writers.alarms import AlarmsWriter
from device.writers.calendar import CalendarWriter
from device.writers.calllog import CallLogWriter
from device.writers.contacts import ContactsWriter
from device.writers.files import FilesWriter
from device.writers.journal import Journal, SetupError, SetupReport, TeardownReport, journal_dir, new_tag
from device.writers.permissions import PermissionsWriter
from device.writers.rows import delete_journalled, delete_rows_verified, max_id
from device.writers.settings import SettingsWriter
from device.writers.sms import SmsWriter

__all__ = ["DeviceWriter", "EPISODE_ROWS", "EPISODE_ROWS_DESTRUCTIVE"]

EpisodeRows = dict[str, tuple[str, str | None, tuple[str, ...] | None]]

EPISODE_ROWS: EpisodeRows = {"messages": sms.EPISODE_ROWS, "calls": calllog.EPISODE_ROWS}
"""What a policy writes through the apps during an episode, found as rows above the marks that
:meth:`DeviceWriter.mark_episode` takes once setup is done: ``kind -> (uri, column, values)``;
only rows whose ``column`` holds one of ``values`` (None = any row) count as the episode's.
Texts (sent, draft, outbox, failed, queued — not inbox) and calls (outgoing only) going *out*
while s2r drives the phone are the policy's; one that *arrives* meanwhile is never touched.
Without this undo, a text sent in one episode would be "the latest message" of the next one on
the same phone."""

EPISODE_ROWS_DESTRUCTIVE: EpisodeRows = {"events": calendar.EPISODE_ROWS_DESTRUCTIVE,
                                         "contacts": contacts.EPISODE_ROWS_DESTRUCTIVE}
"""Also undone on dedicated test phones (``destructive=True``) only: any new event or contact —
on a person's phone one may come from the user or a sync adapter, so it is left alone there."""


class DeviceWriter:
    """Applies ``StatePatch`` setups to one phone and undoes them (see :mod:`device.writers`)."""

    def __init__(self, shell: Shell, *, family: str = "aosp", tz: str | None = None,
                 journal_root: Path | None = None, ui: UIProbe | None = None,
                 clipboard: tuple[Callable[[], str | None], Callable[[str], None]] | None = None,
                 destructive: bool = False, existing_files_ok: bool = False):
        self.shell = shell
        self.existing_files_ok = existing_files_ok
        self.family = family
        self.tz = tz
        self.root = journal_root or journal_dir()
        self.ui = ui
        self.clipboard = clipboard
        self.destructive = destructive
        # what the session found it may do (DeviceEnv fills these in; None = not known: try and verify)
        self.sms_writable: bool | None = None
        self.sms_why = ""
        self.restricted_sms = True  # the shell sees only inbox and sent SMS (not root)
        #: the phone's API level (preflight's ``sdk``); None: read from the phone when a binding needs it
        self.sdk: int | None = None
        self.calendar_id: str | None = None
        self.calendar_why = "no calendar s2r may write into (none created this session)"
        #: every teardown's leftovers and unverified parts this session (alarms, timers: no provider
        #: shows them to the end-of-run audit, so the audit takes them from here — device.audit)
        self.leftovers: list[str] = []
        self.unverified: list[str] = []
        # the parts, one per provider
        self.settings = SettingsWriter(self)
        self.sms = SmsWriter(self)
        self.contacts = ContactsWriter(self)
        self.calendar = CalendarWriter(self)
        self.calls = CallLogWriter(self)
        self.files = FilesWriter(self)
        self.alarms = AlarmsWriter(self)
        self.permissions = PermissionsWriter(self)

    def phone_sdk(self) -> int | None:
        """The phone's API level (how ``content`` reads a binding): :attr:`sdk`, else
        ``ro.build.version.sdk`` read once; None if the phone does not say."""
        if self.sdk is None:
            try:
                self.sdk = int(self.shell.getprop("ro.build.version.sdk"))
            except (ValueError, DeviceCommandError):
                return None
        return self.sdk

    # --- journal on disk ---------------------------------------------------------------------
    def journal_path(self) -> Path:
        return self.root / (re.sub(r"[^A-Za-z0-9_.-]", "_", self.shell.serial) + ".json")

    def pending(self) -> Journal | None:
        """A journal left by a run that did not tear down (crash, lost device)."""
        p = self.journal_path()
        return Journal.load(p) if p.exists() else None

    # --- setup ---------------------------------------------------------------------------------
    def apply(self, patch: StatePatch | dict[str, Any] | None, tag: str | None = None) -> tuple[Journal, SetupReport]:
        """Apply ``patch``; returns the journal (give it to :meth:`teardown`) and a report.

        Raises ``SetupError`` (after undoing what was done) if part of the patch cannot be
        reproduced on this phone.
        """
        p = patch if isinstance(patch, StatePatch) else StatePatch.model_validate(patch or {})
        missing = self.unsupported_parts(p)
        if missing:  # known before touching the phone: nothing to write, nothing to undo
            raise SetupError("; ".join(missing)[:800], unsupported=True)
        tag = tag or new_tag()
        j = Journal(serial=self.shell.serial, tag=tag, path=str(self.journal_path()))
        rep = SetupReport(tag=tag)
        j.save()
        try:
            self._apply(p, j, rep)
        except (SetupError, ParseError) as e:
            rep.failed.append(str(e))
            if getattr(e, "unsupported", False):
                rep.unsupported.append(str(e))
        if rep.failed:
            try:
                self.teardown(j)
            except DeviceLost:
                pass
            unsupported = set(rep.failed) <= set(rep.unsupported)
            raise SetupError("; ".join(rep.failed)[:800], unsupported=unsupported)
        return j, rep

    def unsupported_parts(self, p: StatePatch) -> list[str]:
        """Parts of ``p`` no phone of this kind can reproduce (checked before any write)."""
        out = SettingsWriter.unsupported(p)
        if p.world_clocks:
            out.append("world_clocks cannot be added on a device (no API)")
        if p.clipboard is not None and self.clipboard is None:
            out.append("clipboard: no uiautomator2 connection to set it")
        if self.ui is None and any(not a.enabled for a in p.records("alarms")):
            out.append("alarms: a disabled alarm needs the Clock UI (the AlarmClock API creates enabled alarms only)")
        msgs = p.records("messages")
        if msgs and self.sms_writable is False:
            out.append(self.sms_why or "SMS rows cannot be written by the shell on this phone")
        hidden = sorted({m.box for m in msgs if m.box not in ("inbox", "sent")})
        if hidden and self.restricted_sms:
            out.append(f"messages in {', '.join(hidden)}: the shell reads SMS through the restricted view (inbox and "
                       "sent only), so such a row could not be verified or removed")
        if p.records("events") and self.calendar_id is None:
            out.append(f"events: {self.calendar_why}")
        return out

    def _apply(self, p: StatePatch, j: Journal, rep: SetupReport) -> None:
        if p.time is not None:
            rep.ignored.append("time (devices keep their own clock)")
        if p.start.route:
            rep.ignored.append("start.route (sim only)")
        self.settings.apply(p, j, rep)
        adders: dict[str, Callable[[Any, Journal], str]] = {
            "contacts": self.contacts.add, "messages": self.sms.add, "events": self.calendar.add,
            "calls": self.calls.add, "alarms": self.alarms.add, "timers": self.alarms.add_timer,
            "files": self.files.add,
        }
        for kind in p.add:
            t0 = time.perf_counter()
            for rec in p.records(kind):
                rep.applied.append(adders[kind](rec, j))
                j.save()
            rep.timings_ms[kind] = (time.perf_counter() - t0) * 1e3
        if p.world_clocks:
            rep.unsupported.append("world_clocks cannot be added on a device (no API)")
            rep.failed.append(rep.unsupported[-1])
        if p.clipboard is not None:
            if self.clipboard is None:
                rep.unsupported.append("clipboard: no uiautomator2 connection to set it")
                rep.failed.append(rep.unsupported[-1])
            else:
                get, put = self.clipboard
                j.clipboard_old = get()
                j.clipboard_set = True
                j.save()
                put(p.clipboard)
                rep.applied.append("clipboard")

    # --- the episode ---------------------------------------------------------------------------
    def mark_episode(self, j: Journal) -> None:
        """Remember each provider's highest ``_id``, every settable setting and (on dedicated test
        phones) the shared-storage files now — after setup, before the policy acts. Only reads:
        they travel in one shell round trip once learnt (where the shell reads ahead)."""
        with read_ahead(self.shell, "mark_episode"):
            for kind, (uri, _col, _vals) in self.episode_rows().items():
                j.episode_marks[kind] = max_id(self.shell, uri)
            j.settings_at_start = self.settings.now()
            j.sms_read_at_start = self.sms.read_now()
            if self.permissions.baseline is None:  # later episodes start from the state the last teardown proved
                self.permissions.baseline = self.permissions.now()
            j.permissions_at_start = self.permissions.baseline
            if self.destructive:
                j.files_at_start = self.files.now()
        j.save()

    def note_alarms(self, j: Journal, alarms: Sequence[Alarm]) -> None:
        """Remember the alarms the start-of-episode probe saw (dedicated test phones: alarms beyond
        these are the episode's and are deleted at teardown)."""
        self.alarms.note_start(j, alarms)

    def episode_rows(self) -> EpisodeRows:
        return {**EPISODE_ROWS, **(EPISODE_ROWS_DESTRUCTIVE if self.destructive else {})}

    def _undo_episode_rows(self, j: Journal, rep: TeardownReport) -> None:
        kinds = self.episode_rows()
        for kind, mark in j.episode_marks.items():
            if kind not in kinds:
                continue
            uri, col, vals = kinds[kind]
            try:  # every row, filtered here: the same query each episode, so it is read ahead with the rest
                rows = content_query(self.shell, uri, ("_id", *((col,) if col else ())))
            except ParseError:
                continue
            ids = [int(str(r.get("_id"))) for r in rows if str(r.get("_id") or "").isdigit()
                   and int(str(r.get("_id"))) > mark and not (col and (r.get(col) or "") not in (vals or ()))]
            target = contacts.DELETE_URI if kind == "contacts" else uri
            delete_rows_verified(self.shell, f"episode {kind}", uri, ids, rep, delete_uri=target)

    # --- teardown ------------------------------------------------------------------------------
    def teardown(self, j: Journal, alarms_now: Sequence[Alarm] | None = None) -> TeardownReport:
        """Undo a setup: delete only tagged rows/files, restore settings, then drop the journal.

        ``alarms_now``: the alarm list as last read, when nothing can have changed it since (the
        judge's final read); saves reading it again through the Clock app."""
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="teardown-hidden") as ex:
            # the episode's hidden SMS boxes go by a blind delete that nothing in the teardown reads
            # (they are outside the shell's view): it runs alongside the rest, on its own stream
            hidden = ex.submit(self.sms.delete_hidden_episode, j)
            with read_ahead(self.shell, "teardown"):  # its reads before each delete: one batch once learnt
                rep = self._teardown(j, alarms_now)
            note = hidden.result()
        if note:
            rep.restored.append(note)
        self.leftovers += rep.leftovers
        self.unverified += rep.unverified
        return rep

    def _teardown(self, j: Journal, alarms_now: Sequence[Alarm] | None) -> TeardownReport:
        rep = TeardownReport(tag=j.tag)
        # what the episode itself wrote through the apps (texts it sent, contacts it created ...)
        self._undo_episode_rows(j, rep)
        self.files.undo_episode(j, rep)
        # records: find every row that carries the marker (also from crashed runs' journals)
        self._delete_tagged(j.tag, rep)
        for row in j.rows:
            if row.tagged:
                continue
            if row.kind == "contacts":
                self.contacts.delete_journalled(row, rep)
            else:
                delete_journalled(self.shell, row, rep)
        self.files.delete_ours(j, rep)
        self.alarms.teardown(j, rep, alarms_now)
        self.sms.undo_episode_read(j, rep)
        self.permissions.undo_episode(j, rep)
        self.settings.restore(j, rep)
        if j.clipboard_set and self.clipboard is not None and j.clipboard_old is not None:
            self.clipboard[1](j.clipboard_old)
            rep.restored.append("clipboard")
        j.discard()
        return rep

    def _delete_tagged(self, tag: str, rep: TeardownReport) -> None:
        self.contacts.delete_tagged(tag, rep)
        self.sms.delete_tagged(tag, rep)
        self.calendar.delete_tagged(tag, rep)
        self.calls.delete_tagged(tag, rep)

    def sweep_tag(self, tag: str) -> TeardownReport:
        """Delete every provider row still carrying ``tag`` (a teardown that left some: retried
        at close, and by the next session from its journal), each delete verified."""
        rep = TeardownReport(tag=tag)
        self._delete_tagged(tag, rep)
        return rep

    # the alarm part's steps, by the names they had on the writer
    def _undo_episode_alarms(self, j: Journal, rep: TeardownReport, now: Sequence[Alarm] | None = None) -> None:
        self.alarms.undo_episode(j, rep, now)

    def _switch_off_alarm(self, tag: str, a: Alarm) -> None:
        self.alarms.switch_off(tag, a)

    # --- destructive -----------------------------------------------------------------------------
    def wipe(self, what: Sequence[str]) -> list[str]:
        """``pm clear`` providers / empty shared storage — dedicated test phones only."""
        if not self.destructive:
            raise PermissionError("destructive resets need destructive=True (--destructive), "
                                  "meant for dedicated test phones")
        pkgs = {"contacts": "com.android.providers.contacts", "calls": "com.android.providers.contacts",
                "messages": "com.android.providers.telephony", "events": "com.android.providers.calendar"}
        done = []
        for w in what:
            if w in pkgs:
                r = self.shell.run(["pm", "clear", pkgs[w]])
                done.append(f"pm clear {pkgs[w]}: {r.out.strip() or r.err.strip()}")
            elif w == "files":
                for d in ("Download", "Documents", "Pictures", "Music", "Movies", "DCIM"):
                    self.shell.run(["find", f"/sdcard/{d}/", "-mindepth", "1", "-delete"])
                done.append("emptied shared storage folders")
            else:
                raise ValueError(f"cannot wipe {w!r}")
        return done
