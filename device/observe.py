"""What the policy sees on a phone: screenshot, UI elements, foreground app — and when to look.

* **Screenshot**: uiautomator2's ``takeScreenshot`` RPC (JPEG, fast) or ``screencap -p`` over
  ``exec:`` (PNG, binary-clean). A failed capture or an all-black frame (a ``FLAG_SECURE``
  window, a screen that went off) is *reported*, never passed off as a real frame.
* **Elements**: the uiautomator hierarchy (``dumpWindowHierarchy`` RPC, else
  ``uiautomator dump /dev/tty``) parsed by :func:`device.parsers.parse_hierarchy` against
  the frame size: invisible and zero-area nodes are dropped; an empty or root-only dump
  (taken mid-transition) is retried.
* **Foreground**: ``dumpsys window`` (focused window; IME visibility; rotation) → canonical
  app through the registry.
* **Settle**: instead of sleeping a fixed time after an action, the screen is sampled until it
  agrees with itself, with a cap; how it is sampled follows the measured cost of a dump
  (:meth:`Observer.settle`). The settled dump is the observation's.
"""

from __future__ import annotations

import base64
import hashlib
import re
import threading
import time
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Literal

from pydantic import BaseModel, Field

from actionmap.observation import Foreground, Observation, Screen
from device.adbshell import DeviceLost, Shell
from device.parsers import (Hierarchy, ParseError, WindowInfo, foreground_state, parse_dumpsys_power,
                            parse_dumpsys_window, parse_hierarchy)

__all__ = ["Observer", "FrameInfo", "ObserveMeta", "frame_stats", "is_black", "HierarchyUnavailable"]


class HierarchyUnavailable(DeviceLost):
    """No window hierarchy could be taken after every recovery. A :class:`DeviceLost`, so
    ``DeviceEnv.step`` reports ``error_kind="infra"`` and the runner retries the episode
    elsewhere, instead of the policy being shown an empty screen."""

SettleMode = Literal["hierarchy", "frame", "none", "fixed", "androidworld"]

#: The scale of the frames a frame-difference check compares (uiautomator2 ``takeScreenshot``).
SMALL_FRAME_SCALE = 0.2
#: Width frames are reduced to before the comparison halves them (0.2 × a 1080-px-wide frame).
COMPARE_WIDTH = 216


def _ema(old: float | None, new: float, weight: float = 0.3) -> float:
    return new if old is None else (1 - weight) * old + weight * new


def frames_agree(a: bytes, b: bytes, *, level: int = 40, tolerance: float = 0.0005) -> bool:
    """Whether two captures show the same screen: both reduced to one size in grey (area
    averaging smooths JPEG and scaling noise), and at most ``tolerance`` of the pixels differ by
    more than ``level``. A blinking text cursor (Editor's 500 ms blink, a few pixels) stays
    under it; a spinner, a video or a transition does not."""
    if a == b:
        return True
    import cv2
    import numpy as np

    def grey(data: bytes) -> Any:
        if not data:
            return None
        size = _image_size(data)
        # a whole-frame JPEG (uiautomator2 ignores `scale`) is decoded at 1/4 by libjpeg itself
        flag = cv2.IMREAD_REDUCED_GRAYSCALE_4 if size and size[0] >= 4 * COMPARE_WIDTH else cv2.IMREAD_GRAYSCALE
        return cv2.imdecode(np.frombuffer(data, np.uint8), flag)

    ia, ib = grey(a), grey(b)
    if ia is None or ib is None:
        return False
    # one comparison size whatever the captures' sizes: about 1/5 of a phone's width, halved
    w = max(8, min(ib.shape[1], COMPARE_WIDTH) // 2)
    h = max(8, round(w * ib.shape[0] / ib.shape[1]))
    ra = cv2.resize(ia, (w, h), interpolation=cv2.INTER_AREA)
    rb = cv2.resize(ib, (w, h), interpolation=cv2.INTER_AREA)
    return float((cv2.absdiff(ra, rb) > level).mean()) <= tolerance


class FrameInfo(BaseModel):
    data: bytes = b""
    format: Literal["png", "jpeg", "none"] = "none"
    width: int = 0
    height: int = 0
    mean: float | None = None
    std: float | None = None
    source: str = ""
    error: str | None = None

    @property
    def black(self) -> bool:
        return self.mean is not None and is_black(self.mean, self.std or 0.0)


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


def is_black(mean: float, std: float) -> bool:
    return mean < 4.0 and std < 4.0


def frame_stats(data: bytes) -> tuple[int, int, float, float] | None:
    """(width, height, mean, std) of an encoded image; None if it does not decode."""
    import cv2
    import numpy as np

    arr = np.frombuffer(data, np.uint8)
    img = cv2.imdecode(arr, cv2.IMREAD_REDUCED_GRAYSCALE_4)
    if img is None:
        return None
    w, h = _image_size(data) or (img.shape[1] * 4, img.shape[0] * 4)
    return w, h, float(img.mean()), float(img.std())


def _image_size(data: bytes) -> tuple[int, int] | None:
    """Width and height from the PNG IHDR or the JPEG SOF marker (no full decode)."""
    if data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) >= 24:
        return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    if data[:2] == b"\xff\xd8":
        i = 2
        while i + 9 < len(data):
            if data[i] != 0xFF:
                i += 1
                continue
            m = data[i + 1]
            if m in (0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF):
                return int.from_bytes(data[i + 7:i + 9], "big"), int.from_bytes(data[i + 5:i + 7], "big")
            if m in (0xD8, 0x01) or 0xD0 <= m <= 0xD7:
                i += 2
                continue
            i += 2 + int.from_bytes(data[i + 2:i + 4], "big")
    return None


_VOLATILE = re.compile(r'(resource-id="com\.android\.systemui:id/clock"[^>]*?)text="[^"]*"|'
                       r'text="[^"]*"([^>]*?resource-id="com\.android\.systemui:id/clock")')


class Observer:
    """Takes observations of one phone."""

    def __init__(self, shell: Shell, *, u2: Any = None, image_format: Literal["jpeg", "png"] = "jpeg",
                 quality: int = 80, screenshots: bool = True):
        self.shell = shell
        self.u2 = u2
        self.image_format = image_format
        self.quality = quality
        self.screenshots = screenshots
        self._u2_shot_ok = u2 is not None
        self._u2_dump_ok = u2 is not None
        self._u2_failures = 0
        self._frame_check_ok = u2 is not None
        #: measured costs (moving averages, ms): what the settle strategy is chosen by
        self.dump_ms: float | None = None
        self.small_frame_ms: float | None = None
        self.recoveries: list[str] = []  # how hierarchy dumps were recovered (for StepInfo / tests)
        self._window_pending: Any = None  # `dumpsys window` read with the settled dump (a Future)
        self._dump_done = threading.Condition()  # a dump came back (the confirming frame's cue)
        self._dump_back = 0.0
        #: What the settles did, in order (the newest 256): ``(event, time.perf_counter(), value)``.
        #: ``settle`` (a settle began; value: its cap, s), ``dump-start``, ``dump-back`` (value: the
        #: dump's ms), ``frame-due`` (when the confirming frame is to be asked; value: the dump
        #: estimate it is timed by, ms), ``frame-asked``, ``frame-retaken`` (the dump outlasted its
        #: estimate: confirmed again after it), ``unsettled`` (a round that did not agree; value: s
        #: since the settle began), and how it ended: ``settled`` or ``capped`` (value: the same).
        #: For tests and debugging: the order of events as the code saw them.
        self.events: deque[tuple[str, float, float]] = deque(maxlen=256)
        self._pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix=f"observe-{shell.serial}")

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)

    def _safe_screenshot(self) -> FrameInfo:
        try:
            return self.screenshot()
        except Exception as e:  # noqa: BLE001 - a failed capture is reported, a lost phone is raised
            if not self.shell.alive():
                raise
            return FrameInfo(error=f"{type(e).__name__}: {e}"[:200])

    def _screen_off(self) -> bool:
        try:
            return parse_dumpsys_power(self.shell.out(["dumpsys", "power"])).screen_on is False
        except ParseError:
            return False

    # --- raw captures ----------------------------------------------------------------------------
    def screenshot(self) -> FrameInfo:
        errs = []
        if self._u2_shot_ok and self.image_format == "jpeg":
            try:
                b64 = self.u2.jsonrpc.takeScreenshot(1, self.quality)
                if b64:
                    data = base64.b64decode(b64)
                    st = frame_stats(data)
                    if st:
                        return FrameInfo(data=data, format="jpeg", width=st[0], height=st[1], mean=st[2], std=st[3],
                                         source="u2")
                    errs.append("u2 screenshot does not decode")
                else:
                    errs.append("u2 takeScreenshot returned nothing")
            except Exception as e:  # noqa: BLE001
                if not self.shell.alive():
                    raise
                errs.append(f"u2: {type(e).__name__}: {e}"[:150])
                self._u2_shot_ok = False
        data = self.shell.exec_out(["screencap", "-p"], timeout=30)
        st = frame_stats(data) if data else None
        if st is None:
            errs.append(f"screencap -p gave {len(data)} bytes that do not decode "
                        f"({data[:60]!r})")
            return FrameInfo(source="screencap", error="; ".join(errs))
        return FrameInfo(data=data, format="png", width=st[0], height=st[1], mean=st[2], std=st[3], source="screencap")

    def hierarchy_xml(self) -> tuple[str, str]:
        """The window hierarchy as uiautomator XML, and where it came from (``u2`` | ``uiautomator``).

        Only one UiAutomation may be registered at a time (``UiAutomationManager
        .registerUiTestAutomationServiceLocked`` throws ``IllegalStateException: UiAutomationService
        ... already registered!``, frameworks/base ``services/accessibility/java/com/android/server/
        accessibility/UiAutomationManager.java``), so while uiautomator2's server runs,
        ``uiautomator dump`` cannot. Recovery, in order: the u2 dump; the u2 server restarted and its
        dump again; the u2 server stopped, ``uiautomator dump`` (retried while it prints ``ERROR:
        could not get idle state.`` — ``DumpCommand`` gives up after ``waitForIdle`` times out on a
        screen that keeps animating, and exits 0 without a file), the u2 server started again.
        A dump that still fails raises :class:`HierarchyUnavailable` (an infrastructure error):
        an empty screen is never handed to the policy in place of the real one.
        """
        errors: list[str] = []
        if self.u2 is not None and self._u2_dump_ok:
            for attempt in range(2):
                try:
                    xml = self.u2.jsonrpc.dumpWindowHierarchy(False, 50)
                    if xml and "<hierarchy" in str(xml):
                        self._u2_failures = 0
                        return str(xml), "u2"
                    errors.append(f"u2 dump {attempt + 1}: {str(xml)[:80]!r}")
                except Exception as e:  # noqa: BLE001 - the server died or lost UiAutomation
                    if not self.shell.alive():
                        raise
                    errors.append(f"u2 dump {attempt + 1}: {type(e).__name__}: {str(e)[:120]}")
                if attempt == 0 and not self._restart_u2(errors):
                    break
            self._u2_failures += 1
            if self._u2_failures >= 3:  # the server cannot dump here: the shell from now on
                self._u2_dump_ok = False
        xml = self._shell_dump(errors)
        if xml is not None:
            return xml, "uiautomator"
        self.recoveries.append("failed: " + " | ".join(errors)[-300:])
        raise HierarchyUnavailable(f"{self.shell.serial}: no window hierarchy after every recovery "
                                   f"({' | '.join(errors)[-400:]})")

    def _restart_u2(self, errors: list[str]) -> bool:
        """Stop and start uiautomator2's server (the Python client relaunches its ``app_process``)."""
        try:
            self.u2.stop_uiautomator()
        except Exception as e:  # noqa: BLE001
            errors.append(f"u2 stop: {type(e).__name__}: {str(e)[:80]}")
        try:
            self.u2.start_uiautomator()
        except Exception as e:  # noqa: BLE001
            if not self.shell.alive():
                raise
            errors.append(f"u2 restart: {type(e).__name__}: {str(e)[:120]}")
            return False
        self.recoveries.append("u2 server restarted")
        self._u2_shot_ok = self.image_format == "jpeg"
        return True

    def _shell_dump(self, errors: list[str], tries: int = 5) -> str | None:
        """``uiautomator dump /dev/tty`` with uiautomator2's server stopped for the duration."""
        stopped = False
        try:
            for attempt in range(tries):
                if self.u2 is not None and not stopped:
                    try:
                        self.u2.stop_uiautomator()
                        stopped = True
                    except Exception as e:  # noqa: BLE001
                        errors.append(f"u2 stop: {type(e).__name__}: {str(e)[:80]}")
                out = self.shell.exec_out(["uiautomator", "dump", "/dev/tty"], timeout=30).decode("utf-8", "replace")
                if "<hierarchy" in out and "</hierarchy>" in out:
                    self.recoveries.append(f"uiautomator dump (attempt {attempt + 1})")
                    return out
                line = out.strip().splitlines()[-1][:160] if out.strip() else "(no output)"
                errors.append(f"uiautomator dump {attempt + 1}: {line}")
                if "already registered" in out:
                    stopped = False  # someone (a restarted u2 server) holds UiAutomation again
                time.sleep(0.2 * (attempt + 1))
            return None
        finally:
            if stopped:
                try:
                    self.u2.start_uiautomator()
                    self._u2_shot_ok = self.image_format == "jpeg"
                except Exception as e:  # noqa: BLE001 - screenshots and text fall back on their own
                    if not self.shell.alive():
                        raise
                    errors.append(f"u2 restart: {type(e).__name__}: {str(e)[:80]}")

    def window(self) -> WindowInfo | None:
        try:
            return parse_dumpsys_window(self.shell.out(["dumpsys", "window"]))
        except ParseError:
            return None

    # --- settle ------------------------------------------------------------------------------------
    def _timed_dump(self, meta: ObserveMeta | None = None) -> tuple[str, str]:
        """One hierarchy dump, its cost folded into :attr:`dump_ms` (a moving average) and
        added to ``meta.timings_ms["dumps"]``."""
        t = time.perf_counter()
        self.events.append(("dump-start", t, 0.0))
        try:
            out = self.hierarchy_xml()
        finally:  # a confirming frame waiting for this dump's end goes now (also when it failed)
            with self._dump_done:
                self._dump_back = time.perf_counter()
                self._dump_done.notify_all()
        ms = (self._dump_back - t) * 1e3
        self.events.append(("dump-back", self._dump_back, ms))
        self.dump_ms = _ema(self.dump_ms, ms)
        if meta is not None:
            meta.timings_ms["dumps"] = meta.timings_ms.get("dumps", 0.0) + ms
        return out

    def _timed_shot(self, meta: ObserveMeta) -> FrameInfo:
        """The policy's screenshot, its duration recorded as ``meta.timings_ms["screencap"]``."""
        t = time.perf_counter()
        fr = self._safe_screenshot()
        meta.timings_ms["screencap"] = (time.perf_counter() - t) * 1e3
        return fr

    def small_frame(self) -> FrameInfo:
        """A low-quality JPEG of the screen (uiautomator2's ``takeScreenshot(scale, quality)``),
        its cost folded into :attr:`small_frame_ms`. Only for telling frames apart. The server
        ignores ``scale`` (it encodes the whole frame), so the saving is only the lower quality;
        :func:`frames_agree` reduces both frames to one small size itself."""
        t = time.perf_counter()
        try:
            b64 = self.u2.jsonrpc.takeScreenshot(SMALL_FRAME_SCALE, 60)
            data = base64.b64decode(b64) if b64 else b""
        except Exception as e:  # noqa: BLE001 - the frame check is an optimisation: fall back to dumps
            if not self.shell.alive():
                raise
            self._frame_check_ok = False
            return FrameInfo(error=f"{type(e).__name__}: {e}"[:200])
        self.small_frame_ms = _ema(self.small_frame_ms, (time.perf_counter() - t) * 1e3)
        return FrameInfo(data=data, format="jpeg", source="u2-small")

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

    # --- the observation -----------------------------------------------------------------------------
    def observe(self, *, step: int, display: tuple[int, int], density: int, rotation: int = 0,
                xml: str | None = None, meta: ObserveMeta | None = None,
                blank_retries: int = 3) -> tuple[Observation, ObserveMeta, Hierarchy | None]:
        meta = meta or ObserveMeta()
        t0 = time.perf_counter()
        # the screenshot and `dumpsys window` run while this thread dumps the hierarchy:
        # three independent adb streams, so a phone serves them at the same time
        have = meta.frame if self.screenshots and meta.frame is not None and not meta.frame.error else None
        meta.frame = None
        shot_f = self._pool.submit(self._timed_shot, meta) if self.screenshots and have is None else None
        pending, self._window_pending = self._window_pending, None
        win_f = pending if pending is not None and xml is not None else self._pool.submit(self.window)
        if xml is None:
            xml, meta.hierarchy_source = self._timed_dump(meta)
            meta.dumps += 1
        frame = have or (shot_f.result() if shot_f is not None else FrameInfo())
        t_shot = time.perf_counter()
        if frame.error:
            meta.screenshot, meta.screenshot_error = "failed", frame.error
        elif frame.data and frame.black:
            meta.screenshot = "off" if self._screen_off() else "secure"
        W, H = (frame.width, frame.height) if frame.width else display
        # hierarchy: parse against the frame; retry blank dumps (transitions, secure windows)
        hier: Hierarchy | None = None
        for attempt in range(blank_retries + 1):
            if xml is None:
                xml, meta.hierarchy_source = self._timed_dump(meta)
                meta.dumps += 1
            try:
                hier = parse_hierarchy(xml, screen=(W, H))
            except ParseError as e:
                meta.hierarchy_warnings.append(str(e)[:200])
                hier = None
            if hier is not None and not hier.blank:
                break
            if attempt < blank_retries:
                meta.blank_retries += 1
                time.sleep(0.15 * (attempt + 1))
                xml = None
        if hier is None:
            raise HierarchyUnavailable(f"{self.shell.serial}: the window hierarchy does not parse after "
                                       f"{blank_retries + 1} dumps ({'; '.join(meta.hierarchy_warnings)[-300:]})")
        meta.hierarchy_warnings += hier.warnings
        t_dump = time.perf_counter()
        win = win_f.result()
        fg = foreground_state(win, None)
        if fg.package is None and hier is not None and hier.packages:
            pkgs = [p for p in hier.packages if p != "com.android.systemui"]
            if pkgs:
                from actionmap.apps import registry

                fg = fg.model_copy(update={"package": pkgs[0], "app": registry().app_of_package(pkgs[0])})
        kb = bool(win.ime_visible) if win is not None and win.ime_visible is not None else False
        rot = win.rotation if win is not None and win.rotation is not None else rotation
        t_fg = time.perf_counter()
        obs = Observation(
            screenshot=frame.data if not frame.error else b"",
            image_format=frame.format if frame.data and not frame.error else "none",
            screen=Screen(width=W, height=H, density=density or 420, rotation=rot),
            elements=list(hier.elements) if hier is not None else [],
            foreground=Foreground(app=fg.app, package=fg.package or "", activity=fg.activity or ""),
            keyboard_visible=kb, step=step)
        meta.timings_ms.update(screenshot=(t_shot - t0) * 1e3, hierarchy=(t_dump - t_shot) * 1e3,
                               foreground=(t_fg - t_dump) * 1e3)
        return obs, meta, hier
