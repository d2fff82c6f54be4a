"""The episode on a phone: setup, start marks, the start screen and state, and teardown.

:class:`EpisodeManager` is the task side of a ``DeviceEnv`` (android_env's task manager plays
this part there): ``reset`` undoes the last episode, refuses a task with real-world effects on a
real phone without a test recipient (:func:`device.writers.refusal_reason`), applies the setup
with run tags (:class:`device.writers.DeviceWriter`), takes the episode marks (what the policy
changes from here on is put back at teardown) and opens the start screen.

**Reads travel together where they only read**: the marks are taken while the start screen
opens, and the judge's start state (``WorldState``) is read while the start screen is observed —
different adb streams, and nothing acts in between, so both see the same phone. The first
:meth:`EpisodeManager.read_state` returns that read only while nothing has written to the phone
since (``ReadAhead.writes`` counts every command not known to be a read).

**Teardown** confirms every delete by querying again; rows it could not remove are counted by
the session and their tag swept again at close (:meth:`device.session.PhoneSession.note_left`).

**What the episode leaves for its trace** (:meth:`EpisodeManager.save_media`): with
``options.record_video`` the screen is recorded from the start screen on (:mod:`device.recorder`),
and the phone's clock at reset and the apps the episode showed are noted so that a fault's log can
be cut to the episode (:mod:`device.logcapture`).
"""

from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable

from actionmap.observation import Observation
from actionmap.patch import StatePatch
from actionmap.worldstate import WorldState
from device.adbshell import DeviceCommandError, DeviceLost, Shell
from device.input import InputDriver
from device.logcapture import LogCapture
from device.options import DeviceOptions
from device.readers import StateReader
from device.recorder import Recording, ScreenRecorder
from device.screen import ScreenView
from device.session import PhoneSession
from device.uiprobe import ScreenProbe
from device.writers import DeviceWriter, Journal, SetupError, SetupReport, TeardownReport, refusal_reason

__all__ = ["EpisodeManager", "UnsafeTask"]

log = logging.getLogger(__name__)


class UnsafeTask(RuntimeError):
    """The task would act on the outside world (send an SMS, place a call) from a real phone.

    Like an unsupported setup it is deterministic (every phone with these options refuses it),
    so ``unsupported`` tells a runner not to retry it as an infrastructure fault."""

    unsupported = True


class EpisodeManager:
    """Setup, marks, start screen, start state and teardown of the episodes on one phone."""

    def __init__(self, shell: Shell, options: DeviceOptions, session: PhoneSession, *, input: InputDriver,
                 reader: StateReader, writer: DeviceWriter, view: ScreenView, probe: ScreenProbe,
                 tz: str | None):
        self.shell = shell
        self.options = options
        self.session = session
        self.input = input
        self.reader = reader
        self.writer = writer
        self.view = view
        self.probe = probe
        self.tz = tz
        self.journal: Journal | None = None  # the current episode's setup (None: nothing to undo)
        self.setup_report: SetupReport | None = None
        self.last_teardown: TeardownReport | None = None
        self.s2r_paths: set[str] = set()  # files episodes pushed (the audit tells them from the phone's own)
        self._state_cache: WorldState | None = None
        #: ReadAhead.writes when reset's start-state read began (None: the alarm probe's read, kept
        #: whatever reset did after it, since the probe must not run again on the start screen)
        self._state_cache_writes: int | None = None
        self._alarms_read: list[Any] | None = None  # alarms as read since the last action
        # the episode's video and log span use the plain shell: neither is a write the start state cares about
        plain = getattr(shell, "shell", shell)
        self.logs = LogCapture(plain)
        self.recorder = ScreenRecorder(plain, segment_s=options.video_segment_s, bit_rate=options.video_bit_rate)
        self.recording: Recording | None = None
        self.video_note: str | None = None  # why this phone records no video

    def undo_stale(self) -> None:
        """Undo a setup an earlier run left on this phone (its journal is on disk)."""
        stale = self.writer.pending()
        if stale is not None:
            self.last_teardown = self.writer.teardown(stale)
            log.warning("%s: undid a setup left by an earlier run: %s", self.shell.serial, self.last_teardown)

    def acted(self) -> None:
        """An action is about to change the phone: what was read of it before is stale."""
        self._state_cache = None
        self._alarms_read = None

    # ------------------------------------------------------------------ reset
    def reset(self, setup: Any, observe: Callable[[], Observation]) -> Observation:
        """Undo the previous episode's setup, apply this one (tagged), open the start screen and
        observe it with ``observe``. See :meth:`device.env.DeviceEnv.reset`."""
        inp, reader, writer, pf = self.input, self.reader, self.writer, self.session.pf
        assert pf is not None
        self.probe.forget()  # the last episode's screen is not this one's
        self._drop_recording()
        if isinstance(setup, str):
            raise ValueError("a device cannot restore a full sim state; pass a task instance or a StatePatch")
        # apps the last episode left mid-way (an alarm expanded, an editor open) go back to their
        # root screen first: teardown and the alarm probe read those apps' screens
        self.probe.refresh_apps()
        self.teardown()
        self.logs.begin()  # the phone's clock now: where this episode's log span starts
        if hasattr(setup, "goals") and not pf.virtual:
            reason = refusal_reason(setup, self.options.test_recipient)
            if reason:
                raise UnsafeTask(reason)
        raw = getattr(setup, "setup", setup)
        patch = raw if isinstance(raw, StatePatch) else StatePatch.model_validate(raw or {})
        inp.key("home")
        self._state_cache, self._state_cache_writes = None, None
        self.journal, self.setup_report = writer.apply(patch)
        self.s2r_paths |= {f.path for f in self.journal.files}
        probe = self.options.alarm_probe
        reader.options.alarm_probe = probe is True or (probe == "auto" and "alarms" in (getattr(setup, "needs", None)
                                                                                       or []))
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
            if self.probe.dirty_apps or reader.options.alarm_probe or launched:
                self.probe.refresh_apps()
                inp.key("home")
            if patch.start.app and patch.start.app != "launcher":
                why = inp.open_app(patch.start.app, fresh=True)
                if why:
                    if marks is not None:
                        marks.result()  # the teardown needs them
                    raise SetupError(f"start screen: {why}")
            self.view.restart()
            # the start state (the judge's "before") is read while the start screen is observed:
            # different adb streams, and nothing acts in between, so both see the same phone
            state = None
            if self._state_cache is None and self.options.read_start_state:
                self._state_cache_writes = self.shell.writes
                state = ex.submit(reader.read)
            obs = observe()
            if self.options.record_video:
                self._start_video()  # after setup, on the start screen, before the first step
            if marks is not None:
                marks.result()
            if state is not None:
                self._state_cache = state.result()
        return obs

    # ------------------------------------------------------------------ state
    def read_state(self) -> WorldState:
        """The phone's WorldState: reset's start-state read once (while nothing has written to
        the phone since and no action came between), else a fresh read."""
        reader = self.reader
        fresh = self._state_cache_writes is None or self._state_cache_writes == self.shell.writes
        if self._state_cache is not None and fresh:  # the read made by reset, used once
            ws, self._state_cache = self._state_cache, None
            ws.foreground = reader.foreground()
            ws.time = reader.now(self.tz)
            return ws
        ws = reader.read()
        # the alarm list stays valid until the next action; teardown reuses it (see acted())
        self._alarms_read = list(ws.alarms) if ws.alarms is not None else None
        return ws

    # ------------------------------------------------------------------ video and logs
    def _start_video(self) -> None:
        why = self.recorder.unavailable()
        if why is None:
            try:
                self.recording = self.recorder.start()
            except (DeviceLost, DeviceCommandError) as e:
                why = f"screenrecord did not start: {e}"[:300]
        self.video_note = why

    def _drop_recording(self) -> None:
        """A recording nobody saved (the episode ended elsewhere): stopped and removed."""
        rec, self.recording = self.recording, None
        if rec is not None:
            try:
                left = rec.abandon()
                if left:
                    log.warning("%s: recordings left on the phone: %s", self.shell.serial, left)
            except (DeviceLost, DeviceCommandError) as e:
                log.warning("%s: could not remove a recording: %s", self.shell.serial, e)

    def save_media(self, dest: Path, fault: str | None = None) -> dict[str, Any]:
        """Stop the episode's recording, pull it into ``dest`` (``video.mp4``), remove it from the
        phone and list again; and, when the episode had a fault (``fault``, or a bridge fault a
        step reported), save its span of the phone's log (``logcat.txt``). Each happens once per
        episode. Returns what the record says: ``video`` (or why there is none) and ``logcat``."""
        out: dict[str, Any] = {}
        rec, self.recording = self.recording, None
        plain = self.logs.shell
        if (rec is not None or fault) and not plain.alive():
            plain.wait_state("device", timeout=10)  # a loose cable comes back; a lost phone does not
        if rec is not None:
            try:
                rec.stop()
                info = rec.pull(dest)
            except (DeviceLost, DeviceCommandError, OSError) as e:
                info = {"files": [], "error": f"the recording could not be saved: {e}"[:300]}
            try:
                left = rec.remove()
            except (DeviceLost, DeviceCommandError) as e:
                left = [f"not verified: {e}"[:200]]
            info["left_on_phone"] = left
            out["video"] = info
        elif self.options.record_video and self.video_note:
            out["video"] = {"files": [], "none": self.video_note}
        logs = self.logs.save(dest, fault)
        if logs is not None:
            out["logcat"] = logs
        return out

    # ------------------------------------------------------------------ teardown
    def teardown(self) -> None:
        """Undo the current episode's setup (and what the episode changed since its marks)."""
        self._drop_recording()
        if self.journal is not None:
            alarms, self._alarms_read = self._alarms_read, None
            self.last_teardown = self.writer.teardown(self.journal, alarms_now=alarms)
            self.journal = None
            if self.last_teardown.left:
                self.session.note_left(self.last_teardown)

    def end(self) -> TeardownReport | None:
        """Undo this episode's setup now (instead of at the next reset). None if nothing was set up."""
        if self.journal is None:
            return None
        # apps the episode left mid-way go back to their root screen first: teardown reads
        # their screens (the Clock app's list)
        self.probe.refresh_apps()
        self.teardown()
        return self.last_teardown
