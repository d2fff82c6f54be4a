"""The session: what one ``DeviceEnv`` changes on a phone outside any episode, and its undoing.

A session begins with the preflight (geometry, input, capabilities; the screen woken and a
keyguard without PIN dismissed) and ends at close. Everything it changes in between is
journalled *before* it is made (:class:`SessionJournal`, ``<journal_dir>/<serial>.session.json``),
so a session that crashed is undone by the next one on the same phone:

* device tweaks (stay awake, no animations; :class:`device.preflight.DeviceTweaks`);
* the current IME, switched to an installed ADB keyboard (``DeviceOptions.adb_ime``);
* the ``WRITE_SMS`` app-op of the shell (:mod:`device.appops`, only with ``grant_appops``);
* s2r's own LOCAL calendar (:mod:`device.localcal`), the only calendar setups write into;
* the run tags whose rows a teardown could not all remove (swept again at close).

Close restores each part and proves it by reading the phone's own authority again; the audit
(:mod:`device.audit`) snapshots the phone at the start and compares after close. The session
also owns the connection to uiautomator2's on-device server, which the observer, the input
driver and the writer's clipboard share.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from pydantic import BaseModel, Field

from device.adbshell import DeviceLost, Shell
from device.appops import AppOpGrant, grant_appop, restore_appop
from device.localcal import create_local_calendar, find_s2r_calendars, remove_local_calendar
from device.options import DeviceOptions
from device.parsers import ParseError
from device.preflight import DeviceTweaks, Preflight, run_preflight, wake_and_unlock
from device.writers import SettingsJournal, journal_dir

if TYPE_CHECKING:
    from device.writers import DeviceWriter, TeardownReport

__all__ = ["PhoneSession", "SessionJournal", "DeviceNotReady", "connect_u2", "u2_clipboard"]


class DeviceNotReady(RuntimeError):
    """Preflight found a problem that blocks episodes (locked, input refused, no size)."""


class SessionJournal(BaseModel):
    """What a DeviceEnv session changed outside any episode (tweaks, IME), persisted so a crashed
    session is undone by the next one (``<journal_dir>/<serial>.session.json``)."""

    raw: SettingsJournal = Field(default_factory=SettingsJournal)
    ime_old: str | None = None
    ime_switched_to: str | None = None
    ime_was_enabled: bool = True
    appops: list[AppOpGrant] = Field(default_factory=list, description="App-ops s2r lifted (--grant-appops).")
    calendars: list[str] = Field(default_factory=list, description="ids of the LOCAL calendars s2r created.")
    leftover_tags: list[str] = Field(default_factory=list,
                                     description="Run tags whose rows a teardown could not all remove (retried).")

    def restore(self, shell: Shell) -> list[str]:
        """Undo everything, each part proven by reading the phone's own authority again; the
        problems (empty = all undone). Calendars go first: their events' deletes need nothing
        lifted; app-ops go last, after every SMS s2r wrote is gone."""
        problems = []
        if self.leftover_tags:
            from device.writers import DeviceWriter

            sweeper = DeviceWriter(shell)
            for tag in list(self.leftover_tags):
                rep = sweeper.sweep_tag(tag)
                problems += rep.left
                if not rep.left:
                    self.leftover_tags.remove(tag)
        for cid in list(self.calendars):
            left = remove_local_calendar(shell, cid)
            problems += left
            if not left:
                self.calendars.remove(cid)
        problems += self.raw.restore(shell)
        if self.ime_switched_to:
            if self.ime_old:
                shell.run(["ime", "set", self.ime_old])
            if not self.ime_was_enabled:
                shell.run(["ime", "disable", self.ime_switched_to])
            self.ime_switched_to = None
        for g in reversed(list(self.appops)):
            left = restore_appop(shell, g)
            problems += left
            if not left:
                self.appops.remove(g)
        return problems


def connect_u2(shell: Shell, warnings: list[str]) -> Any:
    """uiautomator2's device handle over ``shell``'s adb connection, or None (a warning says why:
    the observer then dumps with ``uiautomator dump`` and captures with ``screencap``)."""
    try:
        import uiautomator2 as u2

        d = u2.connect(shell.device)
        d.settings["operation_delay"] = (0, 0)
        return d
    except Exception as e:  # noqa: BLE001 - fall back to `uiautomator dump` / `screencap`
        if not shell.alive():
            raise DeviceLost(f"{shell.serial} lost while starting uiautomator2: {e}") from e
        warnings.append(f"uiautomator2 unavailable ({type(e).__name__}: {str(e)[:120]}); "
                        "using uiautomator dump and screencap")
        return None


def u2_clipboard(u2: Any) -> tuple[Callable[[], str | None], Callable[[str], None]] | None:
    """The phone's clipboard through uiautomator2 (get, put), for setups that fill it; None without u2."""
    if u2 is None:
        return None
    d = u2

    def get() -> str | None:
        try:
            v = d.jsonrpc.getClipboard()
            return None if v is None else str(v)
        except Exception:  # noqa: BLE001
            return None

    def put(text: str) -> None:
        d.jsonrpc.setClipboard(None, text)

    return get, put


def _unsynced_local_calendar(shell: Shell) -> str | None:
    """The lowest-id calendar of account type LOCAL (syncs to no one's cloud), if any."""
    from device.readers import URI_CALENDARS, content_query

    try:
        rows = content_query(shell, URI_CALENDARS, ("_id", "account_type"))
    except ParseError:
        return None
    ids = [int(str(r["_id"])) for r in rows if r.get("account_type") == "LOCAL" and str(r.get("_id") or "").isdigit()]
    return str(min(ids)) if ids else None


class PhoneSession:
    """One phone's session: :meth:`open` (preflight … IME), :meth:`provide` (what setups need
    session-wide), :meth:`note_left` (teardown leftovers), :meth:`finish` (restore, audit) and
    :meth:`release` (uiautomator2's server stopped)."""

    def __init__(self, shell: Shell, options: DeviceOptions, warnings: list[str]):
        self.shell = shell
        self.serial = shell.serial
        self.options = options
        self.warnings = warnings  # shared with the env: what the user should know about this phone
        self.journal = SessionJournal()
        self.pf: Preflight | None = None
        self.u2: Any = None
        self.tweaks: DeviceTweaks | None = None
        self.root_shell = False  # adbd runs as root (a rooted emulator): set by open()
        self.ime_current: str | None = None  # the IME in use once open() made its switch
        self.audit_start: Any = None  # device.audit.PhoneSnapshot at session start
        self.audit: Any = None  # device.audit.PhoneAudit after close
        self.left_total: list[str] = []  # every teardown's `left`, and what close could not undo

    # ------------------------------------------------------------------ journal on disk
    def path(self) -> Path:
        root = Path(self.options.journal_dir) if self.options.journal_dir else journal_dir()
        return root / (re.sub(r"[^A-Za-z0-9_.-]", "_", self.serial) + ".session.json")

    def save(self) -> None:
        p = self.path()
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(self.journal.model_dump_json(indent=1), encoding="utf-8")

    # ------------------------------------------------------------------ start
    def open(self) -> Preflight:
        """Preflight, wake, undo a crashed session, audit snapshot, tweaks, uiautomator2, IME."""
        pf = run_preflight(self.shell)
        if pf.state != "device":
            raise DeviceLost(f"{self.serial}: {'; '.join(pf.problems)}")
        if self.options.unlock and (pf.screen_on is False or pf.keyguard):
            pf = wake_and_unlock(self.shell, pf)
        if not pf.ok:
            raise DeviceNotReady(f"{self.serial}: {'; '.join(pf.problems)}")
        self.pf = pf
        stale_session = self.path()
        if stale_session.exists():  # a crashed session left tweaks or an IME switch: undo them first
            try:
                SessionJournal.model_validate_json(stale_session.read_text("utf-8")).restore(self.shell)
            except ValueError:
                pass
            stale_session.unlink(missing_ok=True)
        self.journal = SessionJournal()
        # adbd as root (a rooted emulator after `adb root`) sees every SMS box; the shell user
        # (uid 2000) sees the restricted view (SmsProvider / ProviderUtil.isAccessRestricted)
        self.root_shell = self.shell.out(["id", "-u"]).strip() == "0"
        if self.options.audit:  # the phone as it is before s2r changes anything this session
            from device.audit import snapshot

            self.audit_start = snapshot(self.shell, restricted_sms=not self.root_shell)
        if self.options.stay_awake or self.options.no_animations:
            self.tweaks = DeviceTweaks(self.shell)
            self.tweaks.journal = self.journal.raw
            self.tweaks.apply(stay_awake=self.options.stay_awake, no_animations=self.options.no_animations)
            self.save()
        if self.options.use_u2:
            self.u2 = connect_u2(self.shell, self.warnings)
        if pf.capabilities is not None:  # the text routes this session really has
            from device.capabilities import text_routes

            pf.capabilities.text = text_routes(adb_ime=pf.adb_ime if self.options.adb_ime else None,
                                               ime_current=pf.ime_current, u2=self.u2 is not None)
        self.ime_current = self._switch_ime(pf)
        return pf

    def _switch_ime(self, pf: Preflight) -> str | None:
        """Make an installed ADB keyboard the current IME (journalled; :meth:`finish` restores)."""
        if not (self.options.adb_ime and pf.adb_ime and pf.ime_switch_allowed) or pf.ime_current == pf.adb_ime:
            return pf.ime_current
        self.journal.ime_old, self.journal.ime_switched_to = pf.ime_current, pf.adb_ime
        self.journal.ime_was_enabled = pf.adb_ime in pf.imes_enabled
        self.save()
        if not self.journal.ime_was_enabled:
            self.shell.run(["ime", "enable", pf.adb_ime])
        self.shell.run(["ime", "set", pf.adb_ime])
        now = self.shell.out(["settings", "get", "secure", "default_input_method"]).strip()
        if now != pf.adb_ime:
            self.warnings.append(f"could not switch to {pf.adb_ime} (still {now})")
            self.journal.restore(self.shell)
            self.save()
            return pf.ime_current
        return pf.adb_ime

    def provide(self, w: DeviceWriter) -> None:
        """The session-wide changes setups need on a stock phone, each journalled before it is made.

        * s2r calendars a crashed session left (its journal gone) are removed first;
        * ``WRITE_SMS`` for the shell (:mod:`device.appops`) — only with ``grant_appops``; without
          it SMS rows cannot be written (setups that need them are *unsupported*) and texts an
          episode sends cannot be removed (teardown lists them in ``left``).
        * s2r's own LOCAL calendar (:mod:`device.localcal`), the only calendar setups write into;
          a calendar left by a crashed session (same account) is removed first.
        """
        pf = self.pf
        assert pf is not None
        for c in find_s2r_calendars(self.shell):  # left by a crash whose journal is gone
            self.warnings += remove_local_calendar(self.shell, str(c.get("_id")))
        caps = pf.capabilities
        sms_mode = caps.sms.writable if caps is not None else "unknown"
        if sms_mode == "allowed" or self.root_shell:
            w.sms_writable, w.sms_why = True, ""
        elif self.options.grant_appops:
            def record(g: AppOpGrant) -> None:
                self.journal.appops.append(g)
                self.save()

            g, detail = grant_appop(self.shell, "WRITE_SMS", on_record=record)
            if g is None and self.journal.appops and self.journal.appops[-1].op == "WRITE_SMS":
                self.journal.appops.pop()  # recorded, but the change did not take: nothing to undo
                self.save()
            w.sms_writable = g is not None or "already allow" in detail
            w.sms_why = "" if w.sms_writable else f"SMS rows cannot be written here: {detail}"
            if not w.sms_writable:
                self.warnings.append(w.sms_why)
        else:
            w.sms_writable = False if sms_mode == "grant_needed" else None
            w.sms_why = ("SMS rows cannot be written by the shell on this phone (WRITE_SMS app-op of "
                         "com.android.shell is not allow); a dedicated test phone can allow it with --grant-appops "
                         "(s2r restores the mode at close)") if sms_mode == "grant_needed" else ""
        if caps is None or caps.calendar.local_writable is not False or self.root_shell:
            from device.writers import new_tag

            cid, detail = create_local_calendar(self.shell, new_tag())
            if cid is not None:
                self.journal.calendars.append(cid)
                self.save()
                w.calendar_id = cid
            elif self.root_shell and (local := _unsynced_local_calendar(self.shell)) is not None:
                # a rooted emulator whose provider takes no new calendar: its own LOCAL calendar
                # syncs nowhere, and the events setup writes there are tagged and removed as usual
                w.calendar_id = local
                self.warnings.append(f"{detail}; using the emulator's own LOCAL calendar {local}")
            else:
                w.calendar_why = f"no calendar s2r may write into: {detail}"
        else:
            w.calendar_why = ("no calendar s2r may write into: this phone refuses a LOCAL calendar "
                              f"({caps.calendar.detail}); an account's synced calendar is never written")

    # ------------------------------------------------------------------ during and after
    def note_left(self, rep: TeardownReport) -> None:
        """A teardown left rows behind: count them, and sweep their tag again at close."""
        self.left_total += rep.left
        if rep.tag not in self.journal.leftover_tags:
            self.journal.leftover_tags.append(rep.tag)  # retried at close
            self.save()

    def finish(self, writer: DeviceWriter | None, s2r_files: set[str]) -> None:
        """Undo the session's changes (what cannot be undone stays journalled for next time) and
        compare the phone with its start snapshot. Raises ``DeviceLost`` if the phone is gone."""
        if self.pf is not None:
            problems = self.journal.restore(self.shell)
            self.left_total += problems
            if problems:
                self.save()  # what could not be undone is tried again next time
            else:
                self.path().unlink(missing_ok=True)
        if self.audit_start is not None:
            from device.audit import compare, snapshot

            self.audit = compare(self.audit_start, snapshot(self.shell, restricted_sms=not self.root_shell),
                                 s2r_files=s2r_files)
            if writer is not None:  # what only the screen shows (alarms): teardown's own count
                self.audit.add_teardown(writer.leftovers, writer.unverified)

    def release(self) -> None:
        """Stop uiautomator2's on-device server (it holds the phone's one UiAutomation)."""
        if self.u2 is not None:
            try:
                self.u2.stop_uiautomator(wait=False)
            except Exception:  # noqa: BLE001
                pass
