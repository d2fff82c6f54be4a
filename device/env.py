"""``DeviceEnv``: the Env protocol over an Android phone (USB, Wi-Fi, or s2r's virtual phone).

It mirrors :class:`sim.env.SimEnv`: ``reset(setup)`` / ``step(action)`` / ``observe()`` /
``read_state()`` / ``close()``. Bad actions come back as ``StepInfo.invalid_action`` and never
raise; a phone that disappears mid-step comes back as ``StepInfo.error_kind == "infra"``
(the runner then retries the episode on another phone); an action the bridge could not
carry out faithfully (an RPC that failed on a live phone) is ``error_kind == "bridge"``.

``DeviceEnv`` is a coordinator: it wires one phone's parts together and turns each Env call into
calls on them, and owns nothing else. Each part has one job:

* :mod:`device.session` — the session: preflight, the session journal (tweaks, IME, the
  ``WRITE_SMS`` grant, s2r's LOCAL calendar), uiautomator2, the audit; undone at close;
* :mod:`device.episode` — the episode: setup, marks, start screen and start state, teardown;
* :mod:`device.executor` — carrying out actions (through :mod:`device.input`);
* :mod:`device.screen` over :mod:`device.observe` — the observation and the geometry it defines;
* :mod:`device.uiprobe` — the UI probe readers and writers drive the screen through;
* :mod:`device.readers` / :mod:`device.writers` — ``WorldState`` reads, setups and their undoing.

Everything talks to the phone through the adb server named by ``device.adb.server_addr()``
(``ADB_SERVER_SOCKET`` honoured): one :class:`~device.adbshell.Shell` per phone, made by
:func:`open_shell`, and uiautomator2 for hierarchy, screenshots and text.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Any

from actionmap.actions import Action, TypeText
from actionmap.env import StepInfo
from actionmap.observation import Observation, UIElement
from actionmap.worldstate import WorldState
from device.adbshell import DeviceCommandError, DeviceLost, Shell
from device.episode import EpisodeManager, UnsafeTask
from device.executor import ActionExecutor
from device.forwarding import Forwarded
from device.input import Geometry, InputDriver
from device.observe import Observer, ObserveMeta
from device.options import DeviceOptions
from device.preflight import DeviceTweaks, Preflight
from device.readahead import ReadAhead
from device.readers import ReaderOptions, StateReader
from device.screen import ScreenView, without_run_tags
from device.session import DeviceNotReady, PhoneSession, SessionJournal, u2_clipboard
from device.uiprobe import ScreenProbe
from device.writers import DeviceWriter, Journal, SetupReport, TeardownReport

__all__ = ["DeviceEnv", "DeviceOptions", "DeviceNotReady", "UnsafeTask", "SessionJournal", "without_run_tags",
           "open_shell"]

log = logging.getLogger(__name__)


def open_shell(serial: str, client: Any = None) -> ReadAhead:
    """The one place a ``DeviceEnv`` makes its shell to a phone (the adb server's client by default).

    It is wrapped in :class:`~device.readahead.ReadAhead`: the episode's reads learn their plan and
    come back in one batch next time, and its ``writes`` counter tells the episode whether the
    start state read at reset is still fresh."""
    from device.adb import client as default_client

    return ReadAhead(Shell(client or default_client(), serial))


class DeviceEnv:
    """A real (or virtual) phone behind the Env protocol. Cheap to construct; connects on first use."""

    def __init__(self, serial: str, *, client: Any = None, options: DeviceOptions | None = None, **overrides: Any):
        self.serial = serial
        self._options = (options or DeviceOptions()).model_copy(update=overrides)
        self.shell = open_shell(serial, client)
        self.warnings: list[str] = []
        self.closed = False
        self._session = PhoneSession(self.shell, self.options, self.warnings)
        self.view = ScreenView(self._session, self.options)
        # the parts that need a started session (see start())
        self.input: InputDriver | None = None
        self.observer: Observer | None = None
        self.probe: ScreenProbe | None = None
        self.reader: StateReader | None = None
        self.writer: DeviceWriter | None = None
        self.executor: ActionExecutor | None = None
        self.episode: EpisodeManager | None = None
        self._apps: dict[str, Any] | None = None  # device.appfamilies.AppOnPhone per app id, read once

    # ------------------------------------------------------------------ what the parts know, for callers
    @property
    def options(self) -> DeviceOptions:
        return self._options

    @options.setter
    def options(self, value: DeviceOptions) -> None:
        """New options reach every part at once (e.g. another settle rule between episodes)."""
        self._options = value
        for part in (self._session, self.view, self.episode):
            if part is not None:
                part.options = value

    pf: Forwarded[Preflight | None] = Forwarded("_session", writable=True)
    u2: Forwarded[Any] = Forwarded("_session")
    tweaks: Forwarded[DeviceTweaks | None] = Forwarded("_session")
    session: Forwarded[SessionJournal] = Forwarded(
        "_session", "journal", doc="The session's journal (what this session changed outside any episode).")
    root_shell: Forwarded[bool] = Forwarded("_session", doc="adbd runs as root (a rooted emulator): set by :meth:`start`.")
    audit_start: Forwarded[Any] = Forwarded("_session", doc="``device.audit.PhoneSnapshot`` at session start.")
    audit: Forwarded[Any] = Forwarded("_session", doc="``device.audit.PhoneAudit`` after close.")
    left_total: Forwarded[list[str]] = Forwarded(
        "_session", doc="Every teardown's ``left``, and what close could not undo, for the run summary.")
    journal: Forwarded[Journal | None] = Forwarded("episode", default=None, writable=True)
    setup_report: Forwarded[SetupReport | None] = Forwarded("episode", default=None)
    last_teardown: Forwarded[TeardownReport | None] = Forwarded("episode", default=None)
    _tz: Forwarded[str | None] = Forwarded("episode", "tz", default=None, doc="The phone's time zone, as read at start.")
    _last_obs: Forwarded[Observation | None] = Forwarded("view", "last_obs", writable=True)

    def _geometry(self) -> Geometry:
        return self.view.geometry()

    def _grid_px(self, point: tuple[int, int], geo: Geometry) -> tuple[int, int]:
        return self.view.grid_px(point, geo)

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

    @property
    def info(self) -> dict[str, Any]:
        pf = self.pf
        return {"serial": self.serial, "model": pf.model if pf else None, "virtual": pf.virtual if pf else None,
                "manufacturer": pf.manufacturer if pf else None, "family": pf.family if pf else None,
                "flavor": pf.flavor if pf else None,
                "apps": {a: x.model_dump() for a, x in self._apps.items()} if self._apps is not None else None}

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> Preflight:
        """Open the session (preflight, wake, tweaks, uiautomator2, IME), wire the parts, and clean
        up after a crashed earlier run."""
        if self.pf is not None:
            return self.pf
        session, opts, shell = self._session, self.options, self.shell
        pf = session.open()
        self.input = InputDriver(shell, family=pf.family, sdk=pf.sdk, u2=session.u2, gestures=opts.gestures,
                                 ime_current=session.ime_current)
        self.observer = Observer(shell, u2=session.u2, image_format=opts.image_format, screenshots=opts.screenshots)
        self.view.observer = self.observer
        self.probe = ScreenProbe(self.input, self.view, family=self.probe_family)
        self.reader = StateReader(shell, options=ReaderOptions(alarm_probe=opts.alarm_probe is True), ui=self.probe,
                                  permissive_view=session.root_shell)
        tz = self.reader.timezone()
        self.writer = DeviceWriter(shell, family=pf.family, tz=tz,
                                   journal_root=Path(opts.journal_dir) if opts.journal_dir else None,
                                   ui=self.probe, clipboard=u2_clipboard(session.u2), destructive=opts.destructive,
                                   existing_files_ok=pf.virtual)
        self.writer.restricted_sms = not session.root_shell
        self.writer.sdk = pf.sdk  # content's binding rules differ from Android 11 on (escaping)
        self.executor = ActionExecutor(self.input, self.observer, self.view)
        self.episode = EpisodeManager(shell, opts, session, input=self.input, reader=self.reader, writer=self.writer,
                                      view=self.view, probe=self.probe, tz=tz)
        self.episode.undo_stale()
        session.provide(self.writer)
        return pf

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
        """Undo the current setup and the session's changes; stop uiautomator2's server."""
        if self.closed:
            return
        self.closed = True
        try:
            self._teardown()
            self._session.finish(self.writer, self.episode.s2r_paths if self.episode is not None else set())
        except (DeviceLost, DeviceCommandError) as e:
            log.warning("%s: close could not finish (%s); the journal stays for next time", self.serial, e)
        if self.observer is not None:
            self.observer.close()
        self._session.release()

    def _teardown(self) -> None:
        if self.episode is not None:
            self.episode.teardown()

    def end_episode(self) -> TeardownReport | None:
        """Undo this episode's setup now (instead of at the next reset), so the runner can put
        what could not be removed into the episode's own record. None if nothing was set up."""
        return self.episode.end() if self.episode is not None else None

    # ------------------------------------------------------------------ Env protocol
    def reset(self, setup: Any = None) -> Observation:
        """Undo the previous episode's setup, apply this one (tagged), open the start screen.

        ``setup``: a task instance (anything with ``.setup``), a ``StatePatch`` or its dict, or
        None. Raises ``UnsafeTask`` for a task with real-world effects on a real phone without
        a matching test recipient, ``SetupError`` when the setup cannot be reproduced here.
        """
        self._ready()
        assert self.episode is not None
        return self.episode.reset(setup, self.observe)

    def set_recording(self, video: bool) -> bool:
        """Record the screen of the episodes from the next reset on (``screenrecord``) or not;
        returns the previous setting."""
        prev, self.options.record_video = self.options.record_video, video
        return prev

    def save_episode_media(self, dest: Path, fault: str | None = None) -> dict[str, Any]:
        """The episode's video (stopped, pulled into ``dest``, removed from the phone) and, after a
        fault, its log span: :meth:`device.episode.EpisodeManager.save_media`."""
        return self.episode.save_media(Path(dest), fault) if self.episode is not None else {}

    def set_screenshots(self, on: bool) -> bool:
        """Capture the screen with each observation or not (elements are read either way);
        returns the previous setting."""
        prev, self.options.screenshots = self.options.screenshots, on
        if self.observer is not None:
            self.observer.screenshots = on
        return prev

    def observe(self) -> Observation:
        obs, _meta = self._observe(settle=True)
        return obs

    def _observe(self, settle: bool) -> tuple[Observation, ObserveMeta]:
        self._ready()
        assert self.probe is not None
        obs, meta, settled_xml = self.view.look(settle)
        self.probe.seen(obs, settled_xml)
        if self.episode is not None:
            self.episode.logs.saw(obs.foreground.package)  # an app the episode drove: its log lines count
        return obs, meta

    def step(self, action: Action) -> tuple[Observation, StepInfo]:
        """Execute one action as real input and observe. Never raises."""
        self.view.step += 1
        if self.probe is not None:
            self.probe.forget()
        if self.episode is not None:
            self.episode.acted()
        info = StepInfo(clamped=bool(getattr(action, "clamped", False)))
        t0 = time.perf_counter()
        try:
            self._ready()
            assert self.executor is not None
            acted = self.executor.execute(action, info)
            t_act = time.perf_counter()
            obs, meta = self._observe(settle=acted)
            if isinstance(action, TypeText) and acted and not info.invalid_action:
                self.executor.verify_text(info, obs)
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
            return self.view.last_obs or self.view.blank(), info
        except Exception as e:  # noqa: BLE001 - the bridge failed on a live phone, or the phone just died
            lost = not self.shell.alive()
            info.error = f"{type(e).__name__}: {e}"[:500]
            info.error_kind = "infra" if lost else "bridge"
            if not lost and self.episode is not None:
                self.episode.logs.fault(info.error)
            return self.view.last_obs or self.view.blank(), info
        if info.error_kind == "bridge" and self.episode is not None:
            self.episode.logs.fault(info.error or "bridge")
        if action.type in ("complete", "abort", "answer"):
            info.done = True
        return obs, info

    def read_state(self) -> WorldState:
        """The phone's WorldState. Raises ``DeviceLost`` if the phone is gone."""
        self._ready()
        assert self.episode is not None
        return self.episode.read_state()

    # ------------------------------------------------------------------ the UI probe, for callers that drive it
    def probe_open(self, app: str) -> None:
        self._ready()
        assert self.probe is not None
        self.probe.probe_open(app)

    def probe_elements(self) -> list[UIElement]:
        assert self.probe is not None
        return self.probe.probe_elements()

    def probe_tap(self, e: UIElement) -> None:
        assert self.probe is not None
        self.probe.probe_tap(e)

    def probe_scroll(self, down: bool, fraction: float = 0.6) -> None:
        """Scroll the screen's content by about ``fraction`` of its height (a page by default)."""
        assert self.probe is not None
        self.probe.probe_scroll(down, fraction)

    def probe_home(self) -> None:
        assert self.probe is not None
        self.probe.probe_home()
