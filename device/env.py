"""``DeviceEnv``: the Env protocol over an Android phone (USB, Wi-Fi, or s2r's virtual phone).

It mirrors :class:`sim.env.SimEnv`: ``reset(setup)`` / ``step(action)`` / ``observe()`` /
``read_state()`` / ``close()``. Bad actions come back as ``StepInfo.invalid_action`` and never
raise; a phone that disappears mid-step comes back as ``StepInfo.error_kind == "infra"``
(the runner then retries the episode on another phone); an action the bridge could not
carry out faithfully (an RPC that failed on a live phone) is ``error_kind == "bridge"``.

Everything talks to the phone through the adb server named by ``device.adb.server_addr()``
(``ADB_SERVER_SOCKET`` honoured) — adbutils for the shell, uiautomator2 for hierarchy,
screenshots and text. Per phone, :mod:`device.preflight` measures geometry and input once;
:mod:`device.writers` applies task setups with run tags and undoes them on the next reset
and on close; :mod:`device.readers` fills ``WorldState``.
"""

from __future__ import annotations

import logging
import os
import re
import time
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, model_validator

from actionmap.actions import (Abort, Action, Answer, Complete, DoubleTap, Drag, Key, LongPress, OpenApp, Scroll,
                               Swipe, Tap, TypeText, Wait, check_text)
from actionmap.env import StepInfo
from actionmap.geometry import natural_to_display, rotated_size
from actionmap.observation import Observation, Screen, UIElement
from actionmap.patch import StatePatch
from actionmap.worldstate import WorldState
from device.adbshell import DeviceCommandError, DeviceLost, Shell
from device.input import Geometry, InputDriver
from device.observe import Observer, ObserveMeta
from device.parsers import Hierarchy, ParseError, parse_hierarchy
from device.preflight import DeviceTweaks, Preflight, run_preflight, wake_and_unlock
from device.readers import TAG_INVISIBLE_RE, TAG_RE, ReaderOptions, StateReader, untagged
from device.appops import AppOpGrant, grant_appop, restore_appop
from device.localcal import create_local_calendar, find_s2r_calendars, remove_local_calendar
from device.writers import (DeviceWriter, Journal, SettingsJournal, SetupError, SetupReport, TeardownReport,
                            journal_dir, refusal_reason)

__all__ = ["DeviceEnv", "DeviceOptions", "DeviceNotReady", "UnsafeTask"]

log = logging.getLogger(__name__)
_MARKS = re.compile(f"{TAG_RE.pattern}|{TAG_INVISIBLE_RE.pattern}")
def without_run_tags(elements: list[UIElement]) -> list[UIElement]:
    """The elements as a person sees them: setup's run tags are bookkeeping, not UI.

    Markers are removed from text and descriptions, and an element that showed nothing but a
    marker (the label line of an alarm set up without a label) is dropped, as the app shows
    no label there; indices are renumbered. Untagged elements come back as they were.
    """
    out: list[UIElement] = []
    for e in elements:
        if not (_MARKS.search(e.text) or _MARKS.search(e.content_desc)):
            out.append(e.model_copy(update={"index": len(out)}) if e.index != len(out) else e)
            continue
        text, desc = untagged(e.text), untagged(e.content_desc)
        if not text.strip() and not desc.strip() and not (e.clickable or e.editable or e.checkable or e.scrollable
                                                          or e.long_clickable):
            continue
        out.append(e.model_copy(update={"index": len(out), "text": text, "content_desc": desc}))
    return out


def _unsynced_local_calendar(shell: Shell) -> str | None:
    """The lowest-id calendar of account type LOCAL (syncs to no one's cloud), if any."""
    from device.readers import URI_CALENDARS, content_query

    try:
        rows = content_query(shell, URI_CALENDARS, ("_id", "account_type"))
    except ParseError:
        return None
    ids = [int(str(r["_id"])) for r in rows if r.get("account_type") == "LOCAL" and str(r.get("_id") or "").isdigit()]
    return str(min(ids)) if ids else None


class DeviceNotReady(RuntimeError):
    """Preflight found a problem that blocks episodes (locked, input refused, no size)."""


class UnsafeTask(RuntimeError):
    """The task would act on the outside world (send an SMS, place a call) from a real phone.

    Like an unsupported setup it is deterministic (every phone with these options refuses it),
    so ``unsupported`` tells a runner not to retry it as an infrastructure fault."""

    unsupported = True


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


class DeviceOptions(BaseModel):
    """How to drive a phone. Defaults suit a real phone on a desk."""

    use_u2: bool = Field(True, description="Use uiautomator2's on-device server (hierarchy, screenshots, text).")
    gestures: Literal["shell", "u2"] = Field("shell", description="Taps/swipes via `input` or uiautomator2 RPC.")
    screenshots: bool = True
    image_format: Literal["jpeg", "png"] = "jpeg"
    settle: Literal["hierarchy", "frame", "none", "fixed", "androidworld"] = Field(
        "hierarchy", description="How to wait after an action: 'hierarchy' (adaptive: until the screen agrees with "
                                 "itself, see Observer.settle), 'frame', 'none', 'fixed' (sleep settle_fixed_s, the "
                                 "peers' way; 'fixed:1.0' sets both) or 'androidworld' (three equal UIs 0.5 s apart).")
    settle_cap_s: float = Field(3.0, ge=0, le=30)
    settle_interval_s: float = Field(0.08, ge=0, le=2)
    settle_fixed_s: float = Field(1.0, ge=0, le=30, description="The sleep of settle='fixed'.")
    read_start_state: bool = Field(True, description="Read the phone's state (WorldState) at reset, alongside the "
                                                     "start screen's observation; the first read_state() returns it "
                                                     "(an evaluation always asks for it: the judge's start state).")

    @model_validator(mode="before")
    @classmethod
    def _settle_spec(cls, data: Any) -> Any:
        """``settle="fixed:1.5"`` → ``settle="fixed", settle_fixed_s=1.5`` (the CLI's form)."""
        if isinstance(data, dict) and isinstance(data.get("settle"), str) and data["settle"].startswith("fixed:"):
            try:
                secs = float(data["settle"].split(":", 1)[1])
            except ValueError:
                raise ValueError(f"bad settle {data['settle']!r}; use fixed:SECONDS, e.g. fixed:1.0") from None
            data = {**data, "settle": "fixed", "settle_fixed_s": secs}
        return data
    stay_awake: bool = Field(True, description="Keep the screen on while plugged in (restored on close).")
    no_animations: bool = Field(True, description="Animation scales to 0 (restored on close).")
    alarm_probe: bool | Literal["auto"] = Field(
        "auto", description="Read alarms by opening the Clock app (it changes the screen): always, never, or "
                            "'auto' = only for tasks whose judge needs alarms.")
    destructive: bool = Field(default_factory=lambda: os.environ.get("S2R_DESTRUCTIVE", "") == "1",
                              description="Allow pm clear / wiping storage (dedicated test phones only). "
                                          "Default from S2R_DESTRUCTIVE=1.")
    test_recipient: str | None = Field(default_factory=lambda: os.environ.get("S2R_TEST_RECIPIENT") or None,
                                       description="A phone number you own: tasks may SMS/call only it. "
                                                   "Default from S2R_TEST_RECIPIENT.")
    journal_dir: str | None = None
    unlock: bool = Field(True, description="Wake the screen and dismiss a keyguard without PIN on start.")
    adb_ime: bool = Field(True, description="If an ADB keyboard IME is installed, make it current while s2r "
                                            "drives the phone (base64 text input); the user's IME is restored "
                                            "on close. Nothing is ever installed.")
    grant_appops: bool = Field(False, description="Setup may lift the WRITE_SMS app-op of com.android.shell "
                                                  "(`appops set`, restored on close): dedicated test phones only.")
    wait_devices: float = Field(30.0, ge=0, description="Seconds to wait for a usable phone (--device all|SERIALS).")
    audit: bool = Field(True, description="Snapshot the phone at start and compare after close (device.audit): "
                                          "proves nothing s2r made is left and nothing of the phone's changed.")


class DeviceEnv:
    """A real (or virtual) phone behind the Env protocol. Cheap to construct; connects on first use."""

    def __init__(self, serial: str, *, client: Any = None, options: DeviceOptions | None = None, **overrides: Any):
        from device.adb import client as default_client

        self.serial = serial
        self.options = (options or DeviceOptions()).model_copy(update=overrides)
        self.shell = Shell(client or default_client(), serial)
        self.pf: Preflight | None = None
        self.u2: Any = None
        self.input: InputDriver | None = None
        self.observer: Observer | None = None
        self.reader: StateReader | None = None
        self.writer: DeviceWriter | None = None
        self.tweaks: DeviceTweaks | None = None
        self.journal: Journal | None = None
        self.setup_report: SetupReport | None = None
        self.last_teardown: TeardownReport | None = None
        self.warnings: list[str] = []
        self._tz: str | None = None
        self._step = 0
        self._last_obs: Observation | None = None
        self._last_hier: Hierarchy | None = None
        self._state_cache: WorldState | None = None
        #: Shell.writes when reset's start-state read began (None: the alarm probe's read, kept
        #: whatever reset did after it, since the probe must not run again on the start screen)
        self._state_cache_writes: int | None = None
        self._text_ctx: tuple[UIElement | None, str, str] = (None, "", "")
        self._dirty_apps: set[str] = set()
        self._probe_xml: str | None = None  # a UI probe's last settled dump (see _probe_settle)
        self._alarms_read: list[Any] | None = None  # alarms as read since the last action
        self.session = SessionJournal()
        self.closed = False
        self.root_shell = False  # adbd runs as root (a rooted emulator): set by start()
        self.audit_start: Any = None  # device.audit.PhoneSnapshot at session start
        self.audit: Any = None  # device.audit.PhoneAudit after close
        self.left_total: list[str] = []  # every teardown's `left`, for the run summary
        self._s2r_paths: set[str] = set()
        self._apps: dict[str, Any] | None = None  # device.appfamilies.AppOnPhone per app id, read once

    def apps(self) -> dict[str, Any]:
        """Each app id's package, version and family on this phone (read once; reads only)."""
        if self._apps is None:
            from device.appfamilies import detect_apps

            inp, _o, _r, _w = self._ready()
            assert self.pf is not None
            self._apps = detect_apps(self.shell, inp.resolve_app, manufacturer=self.pf.manufacturer,
                                     flavor=self.pf.flavor, virtual=self.pf.virtual)
        return self._apps

    def app_families(self) -> dict[str, str]:
        """app id → the family s2r reads its screens by (installed apps only)."""
        return {a: x.family for a, x in self.apps().items() if x.family}

    def probe_family(self, app: str) -> str | None:
        """The family of ``app`` on this phone, for the UI probes (see :mod:`device.apps`)."""
        x = self.apps().get(app)
        return x.family if x is not None else None

    # ------------------------------------------------------------------ lifecycle
    @property
    def info(self) -> dict[str, Any]:
        pf = self.pf
        return {"serial": self.serial, "model": pf.model if pf else None, "virtual": pf.virtual if pf else None,
                "manufacturer": pf.manufacturer if pf else None, "family": pf.family if pf else None,
                "flavor": pf.flavor if pf else None,
                "apps": {a: x.model_dump() for a, x in self._apps.items()} if self._apps is not None else None}

    def start(self) -> Preflight:
        """Preflight, wake, tweaks, uiautomator2, and clean up after a crashed earlier run."""
        if self.pf is not None:
            return self.pf
        pf = run_preflight(self.shell)
        if pf.state != "device":
            raise DeviceLost(f"{self.serial}: {'; '.join(pf.problems)}")
        if self.options.unlock and (pf.screen_on is False or pf.keyguard):
            pf = wake_and_unlock(self.shell, pf)
        if not pf.ok:
            raise DeviceNotReady(f"{self.serial}: {'; '.join(pf.problems)}")
        self.pf = pf
        stale_session = self._session_path()
        if stale_session.exists():  # a crashed session left tweaks or an IME switch: undo them first
            try:
                SessionJournal.model_validate_json(stale_session.read_text("utf-8")).restore(self.shell)
            except ValueError:
                pass
            stale_session.unlink(missing_ok=True)
        self.session = SessionJournal()
        # adbd as root (a rooted emulator after `adb root`) sees every SMS box; the shell user
        # (uid 2000) sees the restricted view (SmsProvider / ProviderUtil.isAccessRestricted)
        self.root_shell = self.shell.out(["id", "-u"]).strip() == "0"
        if self.options.audit:  # the phone as it is before s2r changes anything this session
            from device.audit import snapshot

            self.audit_start = snapshot(self.shell, restricted_sms=not self.root_shell)
        if self.options.stay_awake or self.options.no_animations:
            self.tweaks = DeviceTweaks(self.shell)
            self.tweaks.journal = self.session.raw
            self.tweaks.apply(stay_awake=self.options.stay_awake, no_animations=self.options.no_animations)
            self._save_session()
        if self.options.use_u2:
            self.u2 = self._connect_u2()
        if pf.capabilities is not None:  # the text routes this session really has
            from device.capabilities import text_routes

            pf.capabilities.text = text_routes(adb_ime=pf.adb_ime if self.options.adb_ime else None,
                                               ime_current=pf.ime_current, u2=self.u2 is not None)
        self.input = InputDriver(self.shell, family=pf.family, sdk=pf.sdk, u2=self.u2, gestures=self.options.gestures,
                                 ime_current=self._switch_ime(pf))
        self.observer = Observer(self.shell, u2=self.u2, image_format=self.options.image_format,
                                 screenshots=self.options.screenshots)
        self.reader = StateReader(self.shell, options=ReaderOptions(alarm_probe=self.options.alarm_probe is True),
                                  ui=self, permissive_view=self.root_shell)
        self._tz = self.reader.timezone()
        self.writer = DeviceWriter(self.shell, family=pf.family, tz=self._tz,
                                   journal_root=Path(self.options.journal_dir) if self.options.journal_dir else None,
                                   ui=self, clipboard=self._clipboard_fns(), destructive=self.options.destructive,
                                   existing_files_ok=pf.virtual)
        self.writer.restricted_sms = not self.root_shell
        self.writer.sdk = pf.sdk  # content's binding rules differ from Android 11 on (escaping)
        stale = self.writer.pending()
        if stale is not None:
            self.last_teardown = self.writer.teardown(stale)
            log.warning("%s: undid a setup left by an earlier run: %s", self.serial, self.last_teardown)
        for c in find_s2r_calendars(self.shell):  # left by a crash whose journal is gone
            self.warnings += remove_local_calendar(self.shell, str(c.get("_id")))
        self._grant_and_calendar(pf)
        return pf

    def _grant_and_calendar(self, pf: Preflight) -> None:
        """The session-wide changes setups need on a stock phone, each journalled before it is made.

        * ``WRITE_SMS`` for the shell (:mod:`device.appops`) — only with ``grant_appops``; without
          it SMS rows cannot be written (setups that need them are *unsupported*) and texts an
          episode sends cannot be removed (teardown lists them in ``left``).
        * s2r's own LOCAL calendar (:mod:`device.localcal`), the only calendar setups write into;
          a calendar left by a crashed session (same account) is removed first.
        """
        caps = pf.capabilities
        w = self.writer
        assert w is not None
        sms_mode = caps.sms.writable if caps is not None else "unknown"
        if sms_mode == "allowed" or self.root_shell:
            w.sms_writable, w.sms_why = True, ""
        elif self.options.grant_appops:
            def record(g: AppOpGrant) -> None:
                self.session.appops.append(g)
                self._save_session()

            g, detail = grant_appop(self.shell, "WRITE_SMS", on_record=record)
            if g is None and self.session.appops and self.session.appops[-1].op == "WRITE_SMS":
                self.session.appops.pop()  # recorded, but the change did not take: nothing to undo
                self._save_session()
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
                self.session.calendars.append(cid)
                self._save_session()
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

    def _session_path(self) -> Path:
        root = Path(self.options.journal_dir) if self.options.journal_dir else journal_dir()
        return root / (re.sub(r"[^A-Za-z0-9_.-]", "_", self.serial) + ".session.json")

    def _save_session(self) -> None:
        p = self._session_path()
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(self.session.model_dump_json(indent=1), encoding="utf-8")

    def _switch_ime(self, pf: Preflight) -> str | None:
        """Make an installed ADB keyboard the current IME (journalled; :meth:`close` restores)."""
        if not (self.options.adb_ime and pf.adb_ime and pf.ime_switch_allowed) or pf.ime_current == pf.adb_ime:
            return pf.ime_current
        self.session.ime_old, self.session.ime_switched_to = pf.ime_current, pf.adb_ime
        self.session.ime_was_enabled = pf.adb_ime in pf.imes_enabled
        self._save_session()
        if not self.session.ime_was_enabled:
            self.shell.run(["ime", "enable", pf.adb_ime])
        self.shell.run(["ime", "set", pf.adb_ime])
        now = self.shell.out(["settings", "get", "secure", "default_input_method"]).strip()
        if now != pf.adb_ime:
            self.warnings.append(f"could not switch to {pf.adb_ime} (still {now})")
            self.session.restore(self.shell)
            self._save_session()
            return pf.ime_current
        return pf.adb_ime

    def _connect_u2(self) -> Any:
        try:
            import uiautomator2 as u2

            d = u2.connect(self.shell.device)
            d.settings["operation_delay"] = (0, 0)
            return d
        except Exception as e:  # noqa: BLE001 - fall back to `uiautomator dump` / `screencap`
            if not self.shell.alive():
                raise DeviceLost(f"{self.serial} lost while starting uiautomator2: {e}") from e
            self.warnings.append(f"uiautomator2 unavailable ({type(e).__name__}: {str(e)[:120]}); "
                                 "using uiautomator dump and screencap")
            return None

    def _clipboard_fns(self) -> tuple[Any, Any] | None:
        if self.u2 is None:
            return None
        d = self.u2

        def get() -> str | None:
            try:
                v = d.jsonrpc.getClipboard()
                return None if v is None else str(v)
            except Exception:  # noqa: BLE001
                return None

        def put(text: str) -> None:
            d.jsonrpc.setClipboard(None, text)

        return get, put

    def _ready(self) -> tuple[InputDriver, Observer, StateReader, DeviceWriter]:
        if self.pf is None:
            self.start()
        assert self.input and self.observer and self.reader and self.writer
        return self.input, self.observer, self.reader, self.writer

    def health(self) -> bool:
        """Quick check between episodes: the phone answers a shell command."""
        try:
            return self.shell.alive() and self.shell.run(["echo", "ok"], timeout=10).out.strip() == "ok"
        except (DeviceLost, DeviceCommandError):
            return False

    def close(self) -> None:
        """Undo the current setup and the tweaks; stop uiautomator2's server."""
        if self.closed:
            return
        self.closed = True
        try:
            self._teardown()
            if self.pf is not None:
                problems = self.session.restore(self.shell)
                self.left_total += problems
                if problems:
                    self._save_session()  # what could not be undone is tried again next time
                else:
                    self._session_path().unlink(missing_ok=True)
            if self.audit_start is not None:
                from device.audit import compare, snapshot

                self.audit = compare(self.audit_start, snapshot(self.shell, restricted_sms=not self.root_shell),
                                     s2r_files=self._s2r_paths)
                if self.writer is not None:  # what only the screen shows (alarms): teardown's own count
                    self.audit.add_teardown(self.writer.leftovers, self.writer.unverified)
        except (DeviceLost, DeviceCommandError) as e:
            log.warning("%s: close could not finish (%s); the journal stays for next time", self.serial, e)
        if self.observer is not None:
            self.observer.close()
        if self.u2 is not None:
            try:
                self.u2.stop_uiautomator(wait=False)
            except Exception:  # noqa: BLE001
                pass

    def _teardown(self) -> None:
        if self.journal is not None and self.writer is not None:
            alarms, self._alarms_read = self._alarms_read, None
            self.last_teardown = self.writer.teardown(self.journal, alarms_now=alarms)
            self.journal = None
            if self.last_teardown.left:
                self.left_total += self.last_teardown.left
                if self.last_teardown.tag not in self.session.leftover_tags:
                    self.session.leftover_tags.append(self.last_teardown.tag)  # retried at close
                    self._save_session()

    def end_episode(self) -> TeardownReport | None:
        """Undo this episode's setup now (instead of at the next reset), so the runner can put
        what could not be removed into the episode's own record. None if nothing was set up."""
        if self.journal is None or self.writer is None:
            return None
        self._probe_xml = None
        if self.input is not None:  # apps the episode left mid-way go back to their root screen first:
            self._refresh_dirty_apps(self.input)  # teardown reads their screens (the Clock app's list)
        self._teardown()
        return self.last_teardown

    # ------------------------------------------------------------------ Env protocol
    def reset(self, setup: Any = None) -> Observation:
        """Undo the previous episode's setup, apply this one (tagged), open the start screen.

        ``setup``: a task instance (anything with ``.setup``), a ``StatePatch`` or its dict, or
        None. Raises ``UnsafeTask`` for a task with real-world effects on a real phone without
        a matching test recipient, ``SetupError`` when the setup cannot be reproduced here.
        """
        inp, _obs, reader, writer = self._ready()
        assert self.pf is not None
        self._probe_xml = None  # the last episode's screen is not this one's
        if isinstance(setup, str):
            raise ValueError("a device cannot restore a full sim state; pass a task instance or a StatePatch")
        # apps the last episode left mid-way (an alarm expanded, an editor open) go back to their
        # root screen first: teardown and the alarm probe read those apps' screens
        self._refresh_dirty_apps(inp)
        self._teardown()
        if hasattr(setup, "goals") and not self.pf.virtual:
            reason = refusal_reason(setup, self.options.test_recipient)
            if reason:
                raise UnsafeTask(reason)
        raw = getattr(setup, "setup", setup)
        patch = raw if isinstance(raw, StatePatch) else StatePatch.model_validate(raw or {})
        inp.key("home")
        self._state_cache, self._state_cache_writes = None, None
        self.journal, self.setup_report = writer.apply(patch)
        self._s2r_paths |= {f.path for f in self.journal.files}
        probe = self.options.alarm_probe
        reader.options.alarm_probe = probe is True or (probe == "auto" and "alarms" in (getattr(setup, "needs", None)
                                                                                       or []))
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=2, thread_name_prefix="reset") as ex:
            marks = None
            if reader.options.alarm_probe:  # read alarms now: the probe leaves the start screen alone
                writer.mark_episode(self.journal)  # what the policy writes from here on is undone at teardown
                self._state_cache = reader.read()
                if writer.destructive and self._state_cache.alarms is not None:
                    writer.note_alarms(self.journal, self._state_cache.alarms)  # alarms the episode adds go too
            else:
                # the marks only read (providers' highest ids, settings, permissions): they are
                # taken while the start screen opens, and are in before anything can act
                marks = ex.submit(writer.mark_episode, self.journal)
            # apps this setup or the probe left mid-way go back to their root screen, and home
            # again; a setup that used no screen and started no activity (alarms and timers it
            # set went through the Clock app's intents: the journal has their labels) left the
            # phone at home
            launched = bool(self.journal.alarm_labels or self.journal.timer_labels)
            if self._dirty_apps or reader.options.alarm_probe or launched:
                self._refresh_dirty_apps(inp)
                inp.key("home")
            if patch.start.app and patch.start.app != "launcher":
                why = inp.open_app(patch.start.app, fresh=True)
                if why:
                    if marks is not None:
                        marks.result()  # the teardown needs them
                    raise SetupError(f"start screen: {why}")
            self._step = 0
            self._last_obs = None
            # the start state (the judge's "before") is read while the start screen is observed:
            # different adb streams, and nothing acts in between, so both see the same phone
            state = None
            if self._state_cache is None and self.options.read_start_state:
                self._state_cache_writes = self.shell.writes
                state = ex.submit(reader.read)
            obs = self.observe()
            if marks is not None:
                marks.result()
            if state is not None:
                self._state_cache = state.result()
        return obs

    def set_screenshots(self, on: bool) -> bool:
        """Capture the screen with each observation or not (elements are read either way);
        returns the previous setting."""
        prev, self.options.screenshots = self.options.screenshots, on
        if self.observer is not None:
            self.observer.screenshots = on
        return prev

    def _refresh_dirty_apps(self, inp: InputDriver) -> None:
        self._probe_xml = None  # the screen is about to change
        for app in sorted(self._dirty_apps - {"launcher"}):
            inp.open_app(app, fresh=True)
        self._dirty_apps.clear()

    def observe(self) -> Observation:
        obs, _meta = self._observe(settle=True)
        return obs

    def _geometry(self) -> Geometry:
        assert self.pf is not None and self.pf.natural_size is not None
        rot = self._last_obs.screen.rotation if self._last_obs else self.pf.rotation
        dw, dh = rotated_size(*self.pf.natural_size, rot)
        fw, fh = (self._last_obs.width, self._last_obs.height) if self._last_obs else (dw, dh)
        return Geometry(display_w=dw, display_h=dh, frame_w=fw, frame_h=fh, status_bar_px=self.pf.status_bar_px or 0,
                        nav_bar_px=self.pf.nav_bar_px or 0, nav_bar_side=self.pf.nav_bar_side)

    def _observe(self, settle: bool) -> tuple[Observation, ObserveMeta]:
        _inp, observer, _r, _w = self._ready()
        assert self.pf is not None
        # the step's own wait: the screenshot the policy reads is taken concurrently with it
        xml, meta = (observer.settle(self.options.settle, self.options.settle_cap_s, self.options.settle_interval_s,
                                     with_frame=observer.screenshots, fixed_s=self.options.settle_fixed_s)
                     if settle else (None, ObserveMeta()))
        rot = self._last_obs.screen.rotation if self._last_obs else self.pf.rotation
        display = rotated_size(*(self.pf.natural_size or (1080, 2400)), rot)
        obs, meta, hier = observer.observe(step=self._step, display=display, density=self.pf.density or 420,
                                           rotation=rot, xml=xml, meta=meta)
        obs.elements = without_run_tags(obs.elements)
        if settle and meta.settled and xml is not None and not meta.blank_retries:
            self._probe_xml = xml  # nothing acts until the next step: a read of the screen reuses it
        if obs.screen.rotation != rot:  # the phone rotated: rotation-aware geometry from now on
            self.pf.rotation = obs.screen.rotation
        self._last_obs, self._last_hier = obs, hier
        if obs.foreground.app:
            self._dirty_apps.add(obs.foreground.app)
        return obs, meta

    def step(self, action: Action) -> tuple[Observation, StepInfo]:
        """Execute one action as real input and observe. Never raises."""
        self._step += 1
        self._probe_xml = None
        self._alarms_read = None
        info = StepInfo(clamped=bool(getattr(action, "clamped", False)))
        t0 = time.perf_counter()
        try:
            self._ready()
            acted = self._execute(action, info)
            t_act = time.perf_counter()
            obs, meta = self._observe(settle=acted)
            if isinstance(action, TypeText) and acted and not info.invalid_action:
                self._verify_text(info, obs)
            t_obs = time.perf_counter()
            if meta.screenshot != "ok":
                info.extra["screenshot"] = meta.screenshot
                if meta.screenshot_error:
                    info.extra["screenshot_error"] = meta.screenshot_error
            if not meta.settled:
                info.extra["settled"] = False
            if meta.blank_retries:
                info.extra["blank_dump_retries"] = meta.blank_retries
            info.timings_ms.update(act=(t_act - t0) * 1e3, settle=meta.settle_ms, observe=(t_obs - t_act) * 1e3,
                                   total=(time.perf_counter() - t0) * 1e3, **{f"obs_{k}": v for k, v in
                                                                            meta.timings_ms.items()})
            info.extra["dumps"] = meta.dumps
            if acted:
                info.extra["settle_method"] = meta.settle_method
        except DeviceLost as e:
            info.error, info.error_kind = str(e)[:500], "infra"
            return self._last_obs or self._blank_obs(), info
        except Exception as e:  # noqa: BLE001 - the bridge failed on a live phone, or the phone just died
            lost = not self.shell.alive()
            info.error = f"{type(e).__name__}: {e}"[:500]
            info.error_kind = "infra" if lost else "bridge"
            return self._last_obs or self._blank_obs(), info
        if action.type in ("complete", "abort", "answer"):
            info.done = True
        return obs, info

    def read_state(self) -> WorldState:
        """The phone's WorldState. Raises ``DeviceLost`` if the phone is gone."""
        _i, _o, reader, _w = self._ready()
        fresh = self._state_cache_writes is None or self._state_cache_writes == self.shell.writes
        if self._step == 0 and self._state_cache is not None and fresh:  # the read made by reset, used once
            ws, self._state_cache = self._state_cache, None
            ws.foreground = reader.foreground()
            ws.time = reader.now(self._tz)
            return ws
        ws = reader.read()
        # the alarm list stays valid until the next action; teardown reuses it (see step())
        self._alarms_read = list(ws.alarms) if ws.alarms is not None else None
        return ws

    # ------------------------------------------------------------------ execution
    def _blank_obs(self) -> Observation:
        w, h = self.pf.display_size if self.pf and self.pf.display_size else (1080, 2400)
        return Observation(screen=Screen(width=w, height=h, density=(self.pf.density if self.pf else None) or 420),
                           image_format="none", step=self._step)

    def _element(self, index: int, info: StepInfo) -> UIElement | None:
        el = self._last_obs.element(index) if self._last_obs else None
        if el is None:
            n = len(self._last_obs.elements) if self._last_obs else 0
            info.invalid_action = f"target {index} is not an element of the current observation ({n} elements)"
        return el

    def _point(self, a: Any, geo: Geometry, info: StepInfo) -> tuple[int, int] | None:
        if getattr(a, "target", None) is not None:
            el = self._element(a.target, info)
            return None if el is None else geo.frame_px(*el.bounds.center)
        if getattr(a, "point", None) is not None:
            return self._grid_px(a.point, geo)
        return None

    def _grid_px(self, point: tuple[int, int], geo: Geometry) -> tuple[int, int]:
        """Grid → display px; if the frame is in the natural orientation of a rotated
        display (some capture paths), map through the rotation."""
        assert self.pf is not None
        rot = self._last_obs.screen.rotation if self._last_obs else self.pf.rotation
        frame_landscape = geo.frame_w > geo.frame_h
        display_landscape = geo.display_w > geo.display_h
        if rot % 2 and geo.frame_w != geo.frame_h and frame_landscape != display_landscape and self.pf.natural_size:
            nat = Geometry(display_w=self.pf.natural_size[0], display_h=self.pf.natural_size[1],
                           frame_w=geo.frame_w, frame_h=geo.frame_h)
            x, y = nat.grid(point)
            dx, dy = natural_to_display(x, y, *self.pf.natural_size, rot)
            return int(dx), int(dy)
        return geo.grid(point)

    def _execute(self, a: Action, info: StepInfo) -> bool:
        """Carry out ``a``; returns whether it touched the phone (then the screen must settle)."""
        inp = self.input
        assert inp is not None
        geo = self._geometry()
        if isinstance(a, (Tap, DoubleTap, LongPress)):
            p = self._point(a, geo, info)
            if p is None:
                info.invalid_action = info.invalid_action or "no point"
                return False
            if isinstance(a, Tap):
                inp.tap(*p)
            elif isinstance(a, DoubleTap):
                info.extra["double_tap"] = inp.double_tap(*p)
            else:
                inp.long_press(*p, a.duration_ms)
            info.extra["px"] = list(p)
            return True
        if isinstance(a, Swipe):
            (x0, y0), (x1, y1) = self._grid_px(a.start, geo), self._grid_px(a.end, geo)
            inp.swipe(x0, y0, x1, y1, a.duration_ms)
            return True
        if isinstance(a, Drag):
            (x0, y0), (x1, y1) = self._grid_px(a.start, geo), self._grid_px(a.end, geo)
            info.extra["drag"] = inp.drag(x0, y0, x1, y1, a.duration_ms)
            return True
        if isinstance(a, Scroll):
            return self._scroll(a, geo, info)
        if isinstance(a, TypeText):
            return self._type(a, geo, info)
        if isinstance(a, Key):
            inp.key(a.key)
            return True
        if isinstance(a, OpenApp):
            why = inp.open_app(a.app)
            if why:
                info.invalid_action = why
                return False
            return True
        if isinstance(a, Wait):
            time.sleep(a.seconds)
            return True
        if isinstance(a, (Answer, Complete, Abort)):
            return False
        info.invalid_action = f"unsupported action {a.type}"  # pragma: no cover
        return False

    def _scroll(self, a: Scroll, geo: Geometry, info: StepInfo) -> bool:
        """A swipe inside the content area (or the targeted scrollable), away from gesture edges."""
        left, top, right, bottom = geo.content_box()
        if a.target is not None or a.point is not None:
            p = self._point(a, geo, info)
            if p is None:
                return False
            cx, cy = p
            if a.target is not None:
                el = self._last_obs.element(a.target) if self._last_obs else None
                if el is not None and el.bounds.area:
                    l2, t2 = geo.frame_px(el.bounds.left, el.bounds.top)
                    r2, b2 = geo.frame_px(el.bounds.right, el.bounds.bottom)
                    if r2 - l2 > 40 and b2 - t2 > 40:
                        left, top, right, bottom = max(left, l2 + 8), max(top, t2 + 8), min(right, r2 - 8), \
                            min(bottom, b2 - 8)
                        if right <= left or bottom <= top:
                            left, top, right, bottom = geo.content_box()
        else:
            cx, cy = (left + right) // 2, (top + bottom) // 2
        cx, cy = min(max(cx, left), right), min(max(cy, top), bottom)
        if a.direction in ("up", "down"):
            dist = int((bottom - top) * 0.45)
            sign = -1 if a.direction == "down" else 1  # down reveals content below: the finger moves up
            y0 = min(max(cy - sign * dist // 2, top), bottom)
            y1 = min(max(y0 + sign * dist, top), bottom)
            x0 = x1 = cx
        else:
            dist = int((right - left) * 0.5)
            sign = -1 if a.direction == "right" else 1
            x0 = min(max(cx - sign * dist // 2, left), right)
            x1 = min(max(x0 + sign * dist, left), right)
            y0 = y1 = cy
        assert self.input is not None
        self.input.swipe(x0, y0, x1, y1, 400)
        info.extra["px"] = [x0, y0, x1, y1]
        return True

    # ------------------------------------------------------------------ text
    def _focused(self, settled_xml: str | None = None) -> tuple[UIElement | None, bool]:
        """The focused editable element, and whether the IME is up: from the dump a settle just
        took (a dump is the dearest thing on a real phone: never take the same screen twice),
        else from a fresh one."""
        assert self.observer is not None and self.pf is not None
        xml = settled_xml if settled_xml is not None else self.observer.hierarchy_xml()[0]
        try:
            w, h = self._last_obs.width, self._last_obs.height  # type: ignore[union-attr]
        except AttributeError:
            w, h = self.pf.display_size or (1080, 2400)
        try:
            hier = parse_hierarchy(xml, screen=(w, h))
        except ParseError:
            return None, False
        el = next((e for e in hier.elements if e.focused and e.editable), None)
        el = el or next((e for e in hier.elements if e.focused), None)
        win = self.observer.window()
        return el, bool(win and win.ime_visible)

    @staticmethod
    def _field_text(el: UIElement | None) -> str:
        if el is None:
            return ""
        return "" if el.hint and el.text == el.hint else el.text

    def _type(self, a: TypeText, geo: Geometry, info: StepInfo) -> bool:
        try:
            check_text(a.text)
        except ValueError as e:
            info.invalid_action = str(e)
            return False
        inp, observer = self.input, self.observer
        assert inp is not None and observer is not None
        if a.target is not None:
            p = self._point(a, geo, info)
            if p is None:
                return False
            inp.tap(*p)
            xml, meta = self._inner_settle()
            el, ime = self._focused(xml if meta.settled else None)
        else:
            el, ime = self._focused()
        target = self._last_obs.element(a.target) if a.target is not None and self._last_obs else None
        deadline = time.perf_counter() + 1.5
        # a busy phone may not have moved focus yet after a settled tap on a text field; a tap on
        # anything else will never focus it, so an un-editable target is not waited for
        waits = target is not None and (target.editable or "EditText" in (target.class_name or ""))
        while waits and not (el is not None and el.bounds.contains(*target.bounds.center)) \
                and time.perf_counter() < deadline:
            time.sleep(0.1)
            el, ime = self._focused()
        if el is None and not ime:
            info.invalid_action = "no focused text field to type into"
            return False
        original = self._field_text(el)
        expected = a.text if a.clear else original + a.text
        methods = inp.text_methods()
        info.extra["text_expected"] = expected
        self._text_ctx = (el, original, expected)
        used = None
        now = original
        for i, m in enumerate(methods):
            if a.clear and (i == 0 or now):
                inp.clear_text(m, now)
            if not a.text:
                used = m if a.clear else None
                break
            att = inp.type_with(m, a.text, current="" if a.clear and el is not None else original)
            if not att.ok:
                info.extra.setdefault("text_attempts", []).append(att.model_dump())
                continue
            used = m
            if el is None or el.password:
                break
            xml, meta = self._inner_settle()
            now_el, _ = self._focused(xml if meta.settled else None)
            now = self._field_text(now_el)
            if now == expected or now not in (original, ""):  # it took, or it did something: never type twice
                break
            # the field still holds what it held (or only got cleared): the method had no effect
            info.extra.setdefault("text_attempts", []).append({"method": m, "ok": False, "detail": "field unchanged"})
            used = None
        info.extra["text_method"] = used
        if a.text and used is None:
            info.error, info.error_kind = "no text input method changed the field", "bridge"
        if a.submit:
            inp.key("enter")
        return True

    def _verify_text(self, info: StepInfo, obs: Observation) -> None:
        """Read the field back: a mismatch is reported, never hidden."""
        el, _before, expected = self._text_ctx
        if el is None:
            info.extra["text_verified"] = "no focused node to read back"
            return
        if el.password:
            info.extra["text_verified"] = "password field (not readable)"
            return
        cand = [e for e in obs.elements if e.editable and e.focused] or \
               [e for e in obs.elements if e.editable and e.resource_id and e.resource_id == el.resource_id]
        if not cand:
            cand = [e for e in obs.elements if e.editable and e.bounds == el.bounds]
        actual = self._field_text(cand[0]) if cand else None
        if actual is None:
            info.extra["text_verified"] = "field no longer on screen"
        elif actual == expected or (info.extra.get("text_expected") and actual == info.extra["text_expected"]):
            info.extra["text_verified"] = True
        else:
            info.extra["text_verified"] = False
            info.extra["text_mismatch"] = {"expected": expected, "actual": actual}

    def _inner_settle(self) -> tuple[str | None, ObserveMeta]:
        """A wait inside one action (typing, a UI probe): s2r's own procedure needs the screen
        settled there whatever the step's rule, so 'fixed' and 'androidworld' (which model how
        peers end a step) use the adaptive wait here and only the step's end follows them."""
        assert self.observer is not None
        mode = self.options.settle if self.options.settle in ("hierarchy", "frame", "none") else "hierarchy"
        return self.observer.settle(mode, self.options.settle_cap_s, self.options.settle_interval_s)

    # ------------------------------------------------------------------ UIProbe (alarm reading)
    def _probe_settle(self) -> None:
        """Wait for the screen to settle and keep the settled dump: the probe's next
        ``probe_elements`` reads it instead of dumping the same screen again."""
        assert self.observer is not None
        xml, meta = self._inner_settle()
        self._probe_xml = xml if meta.settled else None

    def probe_open(self, app: str) -> None:
        inp, _observer, _r, _w = self._ready()
        self._probe_xml = None
        inp.open_app(app)
        self._dirty_apps.add(app)
        self._probe_settle()

    def probe_elements(self) -> list[UIElement]:
        assert self.observer is not None and self.pf is not None
        xml, self._probe_xml = self._probe_xml, None
        if xml is None:
            xml, _ = self.observer.hierarchy_xml()
        try:
            return parse_hierarchy(xml, screen=self.pf.display_size).elements
        except ParseError:
            return []

    def probe_tap(self, e: UIElement) -> None:
        assert self.input is not None and self.observer is not None
        self._probe_xml = None
        self.input.tap(*e.bounds.center)
        self._probe_settle()

    def probe_scroll(self, down: bool, fraction: float = 0.6) -> None:
        """Scroll the screen's content by about ``fraction`` of its height (a page by default)."""
        geo = self._geometry()
        l, t, r, b = geo.content_box()
        x = (l + r) // 2
        d = max(1, int((b - t) * min(0.8, max(0.02, fraction)))) // 2
        mid = (t + b) // 2
        y0, y1 = (mid + d, mid - d) if down else (mid - d, mid + d)
        assert self.input is not None and self.observer is not None
        self._probe_xml = None
        self.input.swipe(x, y0, x, y1, 400)
        self._probe_settle()

    def probe_home(self) -> None:
        assert self.input is not None
        self._probe_xml = None
        self.input.key("home")
