"""What the policy sees on a phone: screenshot, UI elements, foreground app.

* **Screenshot**: uiautomator2's ``takeScreenshot`` RPC (JPEG, fast) or ``screencap -p`` over
  ``exec:`` (PNG, binary-clean). A failed capture or an all-black frame (a ``FLAG_SECURE``
  window, a screen that went off) is *reported*, never passed off as a real frame (the frame
  images themselves: :mod:`device.frames`).
* **Elements**: the uiautomator hierarchy (``dumpWindowHierarchy`` RPC, else
  ``uiautomator dump /dev/tty``) parsed by :func:`device.parsers.parse_hierarchy` against
  the frame size: invisible and zero-area nodes are dropped; an empty or root-only dump
  (taken mid-transition) is retried.
* **Foreground**: ``dumpsys window`` (focused window; IME visibility; rotation) → canonical
  app through the registry.

Each capture's cost is measured (``dump_ms``, ``small_frame_ms``); *when* to look after an
action is the settle's job (:mod:`device.settle`, which :class:`Observer` inherits), and it
chooses how to sample by those costs.
"""

from __future__ import annotations

import base64
import threading
import time
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Literal

from actionmap.observation import Foreground, Observation, Screen
from device.adbshell import DeviceLost, Shell
from device.frames import SMALL_FRAME_SCALE, FrameInfo, frame_stats, frames_agree, is_black
from device.parsers import (Hierarchy, ParseError, WindowInfo, foreground_state, parse_dumpsys_power,
                            parse_dumpsys_window, parse_hierarchy)
from device.settle import ObserveMeta, SettleMode, Settling

__all__ = ["Observer", "FrameInfo", "ObserveMeta", "SettleMode", "frame_stats", "frames_agree", "is_black",
           "HierarchyUnavailable"]


class HierarchyUnavailable(DeviceLost):
    """No window hierarchy could be taken after every recovery. A :class:`DeviceLost`, so
    ``DeviceEnv.step`` reports ``error_kind="infra"`` and the runner retries the episode
    elsewhere, instead of the policy being shown an empty screen."""


def _ema(old: float | None, new: float, weight: float = 0.3) -> float:
    return new if old is None else (1 - weight) * old + weight * new


class Observer(Settling):
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

    # --- timed captures (what the settle samples with) ---------------------------------------
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
