"""When to look: waiting after an action until the phone's screen agrees with itself.

Instead of sleeping a fixed time after an action, the screen is sampled until it agrees with
itself, with a cap; how it is sampled follows the measured cost of a dump
(:meth:`Settling.settle`). The settled dump *is* the observation's: it is never dumped again.

:class:`Settling` is the settle half of :class:`device.observe.Observer` (a mixin: it samples
through the observer's own captures — ``_timed_dump``, ``_timed_shot``, ``small_frame``,
``window`` — its worker pool and its measured costs ``dump_ms`` / ``small_frame_ms``, and logs to
its ``events``), kept apart so that *what* is captured and *when* it is worth capturing can be
read one at a time. :class:`ObserveMeta` records how a settle and the observation after it went.
"""

from __future__ import annotations

import hashlib
import re
import threading
import time
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, Field

from device.frames import FrameInfo, frames_agree
from device.parsers import WindowInfo

__all__ = ["Settling", "SettleMode", "ObserveMeta"]

SettleMode = Literal["hierarchy", "frame", "none", "fixed", "androidworld"]

_VOLATILE = re.compile(r'(resource-id="com\.android\.systemui:id/clock"[^>]*?)text="[^"]*"|'
                       r'text="[^"]*"([^>]*?resource-id="com\.android\.systemui:id/clock")')


class ObserveMeta(BaseModel):
    """How an observation was taken (goes into ``StepInfo.extra`` / timings)."""

    screenshot: str = Field("ok", description="ok | secure (all black) | failed | off")
    screenshot_error: str | None = None
    dumps: int = 0
    settled: bool = True
    settle_ms: float = 0.0
    settle_method: str = Field("dumps", description="dumps | frame-check | androidworld")
    frame_checks: int = 0
    frame: FrameInfo | None = Field(None, exclude=True, description="A full frame the settle took (reused).")
    blank_retries: int = 0
    hierarchy_source: str = ""
    hierarchy_warnings: list[str] = Field(default_factory=list)
    timings_ms: dict[str, float] = Field(default_factory=dict)


class Settling:
    """The settle strategies of an :class:`~device.observe.Observer` (see the module's docstring)."""

    # what the observer provides (set in its ``__init__``)
    u2: Any
    screenshots: bool
    dump_ms: float | None
    small_frame_ms: float | None
    events: deque[tuple[str, float, float]]
    _pool: ThreadPoolExecutor
    _u2_shot_ok: bool
    _frame_check_ok: bool
    _window_pending: Future[WindowInfo | None] | None
    _dump_done: threading.Condition
    _dump_back: float

    if TYPE_CHECKING:  # the observer's captures the strategies sample through
        def _timed_dump(self, meta: ObserveMeta | None = None) -> tuple[str, str]: ...
        def _timed_shot(self, meta: ObserveMeta) -> FrameInfo: ...
        def small_frame(self) -> FrameInfo: ...
        def screenshot(self) -> FrameInfo: ...
        def window(self) -> WindowInfo | None: ...

    def frame_check_pays(self) -> bool:
        """Whether a frame difference is the cheaper way to confirm a dump: only with
        uiautomator2's screenshots, once a dump has proved expensive (≥ 150 ms), and while a
        small frame costs clearly less than the second dump it replaces (< 0.8 ×, measured: a
        fast phone keeps two dumps). The first frame runs alongside the dump and the second is
        captured as the dump ends, so what follows the dump is the second's encoding."""
        if self.u2 is None or not self._u2_shot_ok or not self._frame_check_ok or self.dump_ms is None:
            return False
        if self.dump_ms < 150.0:
            return False
        return self.small_frame_ms is None or self.small_frame_ms < 0.8 * self.dump_ms

    def settle(self, mode: SettleMode = "hierarchy", cap_s: float = 3.0, interval_s: float = 0.08,
               min_wait_s: float = 0.0, *, with_frame: bool = False,
               fixed_s: float = 1.0) -> tuple[str | None, ObserveMeta]:
        """Wait until the screen has settled after an action; returns the settled dump (which
        *is* the observation's: never dumped again) and how the wait went.

        * ``hierarchy`` — adaptive. While dumps are cheap, sample until two consecutive dumps
          agree, no more often than every ``interval_s`` (a dump that itself took longer is not
          followed by a sleep). Once dumps prove expensive (a real phone: hundreds of ms), one
          dump is confirmed by a frame difference instead: a frame taken as the dump starts and a
          small frame captured as it ends (asked for early by the dump's measured cost, so only
          its encoding follows the dump; one that turns out captured well before the end is
          taken again after it); equal frames mean the screen did not move while it was walked.
          With ``with_frame`` the first frame is the full screenshot the policy will see, taken
          concurrently with the dump (``meta.frame``), so the observation costs no extra capture.
        * ``frame`` — full frames until two agree. ``none`` — nothing.
        * ``fixed`` — sleep ``fixed_s`` (what MobileGym's CLI, droidrun and Open-AutoGLM do: 1 s).
        * ``androidworld`` — AndroidWorld's ``_get_stable_state`` (google-research/android_world
          ``android_world/env/interface.py``): the UI must equal the previous sample three times
          in a row, samples 0.5 s apart, at most 6 s.

        A screen still moving at ``cap_s`` ends the wait with the last dump and
        ``meta.settled=False``; a dump that fails every recovery raises
        :class:`HierarchyUnavailable`, never an empty screen.
        """
        meta = ObserveMeta()
        t0 = time.perf_counter()
        self.events.append(("settle", t0, cap_s))
        if min_wait_s:
            time.sleep(min_wait_s)
        xml: str | None = None
        if mode == "fixed":
            time.sleep(fixed_s)
        elif mode == "androidworld":
            xml = self._settle_androidworld(meta)
        elif mode == "frame":
            self._settle_frames(meta, cap_s, interval_s, t0)
        elif mode == "hierarchy":
            if self.frame_check_pays():
                xml = self._settle_frame_checked(meta, cap_s, t0, with_frame)
            else:
                xml = self._settle_dumps(meta, cap_s, interval_s, t0)
        meta.settle_ms = (time.perf_counter() - t0) * 1e3
        return xml, meta

    def _settle_dumps(self, meta: ObserveMeta, cap_s: float, interval_s: float, t0: float) -> str:
        prev: str | None = None
        while True:
            ts = time.perf_counter()
            xml, meta.hierarchy_source = self._timed_dump(meta)
            meta.dumps += 1
            key = _VOLATILE.sub(r"\1\2", xml)
            if prev is not None and key == prev:
                self._settled(t0)
                return xml
            prev = key
            if self._capped(t0, cap_s):
                meta.settled = False
                return xml
            time.sleep(max(0.0, interval_s - (time.perf_counter() - ts)))

    def _settle_frame_checked(self, meta: ObserveMeta, cap_s: float, t0: float, with_frame: bool) -> str:
        meta.settle_method = "frame-check"
        while True:
            first = self._pool.submit(self._timed_shot, meta) if with_frame else self._pool.submit(self.small_frame)
            # the focused window as the dump starts: if the check passes, nothing moved meanwhile,
            # so it belongs with this dump and `observe` need not ask again
            win = self._pool.submit(self.window)
            t_dump = time.perf_counter()
            due = t_dump + self._late_lead_s()
            self.events.append(("frame-due", due, self.dump_ms if self.dump_ms is not None else -1.0))
            late = self._pool.submit(self._late_frame, t_dump, due)
            xml, meta.hierarchy_source = self._timed_dump(meta)
            meta.dumps += 1
            before = first.result()
            issued, after = late.result()
            if self._captured_before(issued, self._dump_back):
                self.events.append(("frame-retaken", time.perf_counter(), 0.0))
                after = self.small_frame()  # the dump outlasted its estimate: confirm after it, as the rule says
            meta.frame_checks += 1
            if with_frame:
                meta.frame = before
            if not self._frame_check_ok or before.error or after.error:  # no frames: confirm with dumps
                meta.settle_method, meta.frame = "dumps", None  # a frame from before the dumps is stale
                return self._settle_dumps(meta, cap_s, 0.0, t0)
            if frames_agree(before.data, after.data):
                self._window_pending = win
                self._settled(t0)
                return xml
            if self._capped(t0, cap_s):
                meta.settled = False
                return xml

    def _settled(self, t0: float) -> None:
        now = time.perf_counter()
        self.events.append(("settled", now, now - t0))

    def _capped(self, t0: float, cap_s: float) -> bool:
        """Whether the cap ends a settle whose last round did not agree (logged either way)."""
        now = time.perf_counter()
        capped = now - t0 > cap_s
        self.events.append(("capped" if capped else "unsettled", now, now - t0))
        return capped

    #: The share of a small frame's round trip spent before its capture (the request's way to
    #: the phone); the capture comes first on the phone, the JPEG encoding after it
    #: (``AutomatorServiceImpl.takeScreenshot``: ``uiAutomation.takeScreenshot()``, then
    #: ``Bitmap.compress``), so most of the round trip follows the capture instant.
    CAPTURE_SHARE = 0.2

    def _late_lead_s(self) -> float:
        """When the confirming frame is asked for, after the dump starts: so that its capture
        lands as the dump ends (the dump's measured cost, less the part of the frame's own round
        trip that comes before its capture). Its encoding and way back then overlap nothing
        else's wait — instead of the whole frame following the dump."""
        if self.dump_ms is None or self.small_frame_ms is None:
            return 1e9  # not measured yet: after the dump
        return max(0.0, self.dump_ms - self.CAPTURE_SHARE * self.small_frame_ms) / 1e3

    def _late_frame(self, dump_started: float, at: float) -> tuple[float, FrameInfo]:
        """A small frame asked for at ``at`` (perf_counter), or at once if the dump started at
        ``dump_started`` came back first; returns when it was asked for, and the frame."""
        with self._dump_done:
            self._dump_done.wait_for(lambda: self._dump_back >= dump_started or time.perf_counter() >= at,
                                     timeout=max(0.0, at - time.perf_counter()))
        issued = time.perf_counter()
        self.events.append(("frame-asked", issued, 0.0))
        return issued, self.small_frame()

    def _captured_before(self, issued: float, t_back: float, tolerance_s: float = 0.02) -> bool:
        """Whether a confirming frame asked for at ``issued`` was captured clearly before the
        dump that came back at ``t_back`` had ended (a dump longer than its estimate): the
        capture comes about :data:`CAPTURE_SHARE` of the frame's round trip after its request,
        and the dump's walk ended about as long before its answer arrived."""
        way = self.CAPTURE_SHARE * (self.small_frame_ms or 0.0) / 1e3
        return issued + way < t_back - way - tolerance_s

    def _settle_frames(self, meta: ObserveMeta, cap_s: float, interval_s: float, t0: float) -> None:
        prev: str | None = None
        while True:
            fr = self.screenshot()
            key = hashlib.sha1(fr.data).hexdigest() if fr.data else ""
            meta.dumps += 1
            if prev is not None and key == prev:
                return
            prev = key
            if time.perf_counter() - t0 > cap_s:
                meta.settled = False
                return
            time.sleep(interval_s)

    def _settle_androidworld(self, meta: ObserveMeta, threshold: int = 3, sleep_s: float = 0.5,
                             timeout_s: float = 6.0) -> str:
        meta.settle_method = "androidworld"
        xml, meta.hierarchy_source = self._timed_dump(meta)
        meta.dumps += 1
        prior = _VOLATILE.sub(r"\1\2", xml)
        stable, elapsed = 0, 0.0
        while stable < threshold and elapsed < timeout_s:
            time.sleep(sleep_s)
            elapsed += sleep_s
            xml, meta.hierarchy_source = self._timed_dump(meta)
            meta.dumps += 1
            key = _VOLATILE.sub(r"\1\2", xml)
            if key == prior:
                stable += 1
            else:
                stable, prior = 0, key
        meta.settled = stable >= threshold
        return xml
