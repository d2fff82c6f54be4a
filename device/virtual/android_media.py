"""The phone's log daemon and screen recorder: ``logcat``'s buffers, ``screenrecord``, ``exec``.

Why here: ``logcat`` (a toybox-side command) and ``screenrecord`` both read what the phone *did*
and *showed*; they share the phone's clock and render path, and neither needs the sim world.

* the log daemon and ``logcat`` are :mod:`.android_logd` (re-exported here);
* :class:`ScreenRecord` — frameworks/av/cmds/screenrecord/screenrecord.cpp: options, messages,
  ``--verbose`` lines and exit codes follow the tool; frames come from the same render as
  ``screencap``. The file is an MP4 (MPEG-4 Part 2 video: the AVC encoder of the phone is the one
  thing the host's OpenCV cannot provide), which players and ``cv2.VideoCapture`` read back.
  The ``screenrecord`` knob (:class:`~device.virtual.knobs.PhoneKnobs`) models phones that cannot
  record: ``missing`` — no binary, so the shell's own ``inaccessible or not found`` and status 127
  (the command is not installed at all; switched on a running phone, its runs answer the same);
  ``no_avc`` — ``MediaCodec::CreateByType("video/avc", encoder)`` fails, so ``prepareEncoder``
  prints ``ERROR: unable to create video/avc codec instance`` (again after the 720p retry when no
  ``--size`` was given), the file ``main()`` created stays empty, and the status is 0.
* background jobs (``screenrecord FILE &``) are processes of the phone: ``ps -A``, ``pidof`` and
  ``kill`` see them (:func:`~device.virtual.processes.track_jobs`, applied to every command here).
* ``exec`` — the ``sh`` builtin; ``adb logcat`` runs ``export ANDROID_LOG_TAGS="…"; exec logcat …``.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import tempfile
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .android_logd import SYSTEM_SERVER_PID, LogBuffer, LogEntry, _wrap_am, logcat_main, logd_of
from .sh_interp import ShellInterpreter
from .sh_io import CommandContext, CommandHandler, NullOutput, ShellExit

if TYPE_CHECKING:
    from .phone import VirtualPhone

__all__ = ["LogBuffer", "LogEntry", "logd_of", "logcat_main", "media_commands", "ScreenRecord", "SYSTEM_SERVER_PID"]


# ============================================================================ exec
async def cmd_exec(ctx: CommandContext) -> int:
    """``exec CMD ARGS…``: the command replaces the shell, so nothing after it on the line runs."""
    if not ctx.args:
        return 0
    name = ctx.args[0]
    handler = ctx.shell.lookup(name)
    if handler is None:
        await ctx.err(f"{ctx.shell.shell_name}: exec: {name}: inaccessible or not found\n")
        raise ShellExit(127)
    sub = CommandContext(argv=list(ctx.args), env=ctx.env, stdin=ctx.stdin, stdout=ctx.stdout,
                         stderr=ctx.stderr, shell=ctx.shell)
    raise ShellExit(int(await handler(sub) or 0) & 0xFF)


# ============================================================================ screenrecord
_MIN_BIT_RATE, _MAX_BIT_RATE = 100_000, 200 * 1_000_000
_MAX_TIME_LIMIT = 180
_UINT32_MAX = 4294967295
_CAPTURE_FPS = 10
_SIGHUP, _SIGINT = 1, 2
_AVC_ERROR = "ERROR: unable to create video/avc codec instance\n"
_MEDIA_SCAN = "android.intent.action.MEDIA_SCANNER_SCAN_FILE"
_LONG_OPTS = {"help": False, "verbose": False, "size": True, "bit-rate": True, "time-limit": True,
              "bugreport": False, "show-device-info": False, "show-frame-time": False, "rotate": False,
              "output-format": True, "codec-name": True, "monotonic-time": False, "persistent-surface": False,
              "bframes": True, "display-id": True}


def screenrecord_usage(android: int) -> str:
    """screenrecord.cpp ``usage()`` (v1.3; the time limit became optional in Android 14)."""
    if android >= 14:
        limit = ("--time-limit TIME\n    Set the maximum recording time, in seconds.  Default is 180. Set to 0\n"
                 "    to remove the time limit.\n")
    else:
        limit = "--time-limit TIME\n    Set the maximum recording time, in seconds.  Default / maximum is 180.\n"
    return ("Usage: screenrecord [options] <filename>\n\n"
            "Android screenrecord v1.3.  Records the device's display to a .mp4 file.\n\n"
            "Options:\n"
            "--size WIDTHxHEIGHT\n"
            "    Set the video size, e.g. \"1280x720\".  Default is the device's main\n"
            "    display resolution (if supported), 1280x720 if not.  For best results,\n"
            "    use a size supported by the AVC encoder.\n"
            "--bit-rate RATE\n"
            "    Set the video bit rate, in bits per second.  Value may be specified as\n"
            "    bits or megabits, e.g. '4000000' is equivalent to '4M'.  Default 20Mbps.\n"
            "--bugreport\n"
            "    Add additional information, such as a timestamp overlay, that is helpful\n"
            "    in videos captured to illustrate bugs.\n"
            + limit +
            "--display-id ID\n"
            "    specify the physical display ID to record. Default is the primary display.\n"
            "    see \"dumpsys SurfaceFlinger --display-id\" for valid display IDs.\n"
            "--verbose\n"
            "    Display interesting information on stdout.\n"
            "--help\n"
            "    Show this message.\n\n"
            "Recording continues until Ctrl-C is hit or the time limit is reached.\n\n")


class _Usage(Exception):
    """A message for stderr, then exit status ``code`` (``return 2`` in main())."""

    def __init__(self, message: str, code: int = 2) -> None:
        super().__init__(message)
        self.message = message
        self.code = code


@dataclass
class RecordOptions:
    verbose: bool = False
    size: tuple[int, int] | None = None
    bit_rate: int = 20_000_000
    time_limit: float = _MAX_TIME_LIMIT
    output_format: str = "mp4"
    filename: str = ""
    help: bool = False


def _parse_size(text: str) -> tuple[int, int]:
    m = re.fullmatch(r"([+-]?\d+)x([+-]?\d+)", text)
    if not m:
        raise _Usage(f"Invalid size '{text}', must be width x height\n")
    w, h = int(m.group(1)), int(m.group(2))
    if w == 0 or h == 0:
        raise _Usage(f"Invalid size {w}x{h}, width and height may not be zero\n")
    return w, h


def _parse_bit_rate(text: str) -> int:
    m = re.fullmatch(r"([+-]?\d+)([mM]?)", text)
    if not m:
        raise _Usage(f"Unrecognized value: {text}\n")
    rate = int(m.group(1)) * (1_000_000 if m.group(2) else 1)
    if rate < _MIN_BIT_RATE or rate > _MAX_BIT_RATE:
        raise _Usage(f"Bit rate {rate}bps outside acceptable range [{_MIN_BIT_RATE},{_MAX_BIT_RATE}]\n")
    return rate


def _parse_time_limit(text: str, android: int) -> float:
    if android < 14:  # atoi(); 0 and > 180 are refused
        m = re.match(r"\s*([+-]?\d+)", text)
        value = int(m.group(1)) if m else 0
        if value == 0 or value > _MAX_TIME_LIMIT:
            raise _Usage(f"Time limit {value}s outside acceptable range [1,{_MAX_TIME_LIMIT}]\n")
        return float(value)
    m = re.fullmatch(r"\s*([+-]?\d+)( .*)?", text)
    if not m:
        raise _Usage("Error parsing time limit argument\n")
    value = int(m.group(1))
    if value < 0 or value > _UINT32_MAX:
        raise _Usage(f"Time limit {value}s outside acceptable range [0,{_UINT32_MAX}] seconds\n")
    return float(value or _UINT32_MAX)


def parse_screenrecord(argv: list[str], android: int) -> tuple[RecordOptions, list[str]]:
    """getopt_long(argc, argv, "", longOptions) — long options only; returns (options, notes)."""
    o = RecordOptions()
    notes: list[str] = []
    rest: list[str] = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        i += 1
        if arg == "--":
            rest.extend(argv[i:])
            break
        if not arg.startswith("--") or arg == "-":
            if arg.startswith("-") and arg != "-":
                raise _Usage(f"screenrecord: unknown option -- {arg[1:2]}\n")
            rest.append(arg)
            continue
        name, eq, value = arg[2:].partition("=")
        if name not in _LONG_OPTS:
            raise _Usage(f"screenrecord: unknown option -- {name}\n")
        if _LONG_OPTS[name] and not eq:
            if i >= len(argv):
                raise _Usage(f"screenrecord: option requires an argument -- {name}\n")
            value, i = argv[i], i + 1
        if name == "help":
            o.help = True
            return o, notes
        if name == "verbose":
            o.verbose = True
        elif name == "size":
            o.size = _parse_size(value)
        elif name == "bit-rate":
            o.bit_rate = _parse_bit_rate(value)
        elif name == "time-limit":
            o.time_limit = _parse_time_limit(value, android)
            if o.verbose and android >= 14:
                notes.append(f"Time limit set to {int(min(o.time_limit, _UINT32_MAX))} seconds\n")
        elif name == "output-format":
            if value not in ("mp4", "h264", "webm", "3gpp", "frames", "raw-frames"):
                raise _Usage(f"Unknown format '{value}'\n")
            o.output_format = value
    if len(rest) != 1:
        raise _Usage("Must specify output file (see --help).\n")
    o.filename = rest[0]
    return o, notes


def _content_area(video: tuple[int, int], display: tuple[int, int]) -> tuple[int, int, int, int]:
    """setDisplayProjection(): the display scaled into the video, aspect kept, centred."""
    vw, vh = video
    aspect = display[1] / display[0]
    if vh > int(vw * aspect):
        ow, oh = vw, int(vw * aspect)
    else:
        ow, oh = int(vh / aspect), vh
    return ow, oh, (vw - ow) // 2, (vh - oh) // 2


class ScreenRecord:
    """``screenrecord`` for one phone (see the module docstring)."""

    def __init__(self, phone: "VirtualPhone") -> None:
        self.phone = phone

    async def __call__(self, ctx: CommandContext) -> int:
        if self.phone.knobs.screenrecord == "missing":  # the knob switched on a running phone
            await ctx.err(f"{ctx.shell.shell_name}: {ctx.argv[0]}: inaccessible or not found\n")
            return 127
        android = self.phone.knobs.android
        try:
            opts, notes = parse_screenrecord(list(ctx.args), android)
        except _Usage as exc:
            await ctx.err(exc.message)
            return exc.code
        if opts.help:
            await ctx.err(screenrecord_usage(android))
            return 0
        for note in notes:
            await ctx.out(note)
        path = ctx.path(opts.filename)
        if opts.output_format in ("mp4", "webm", "3gpp"):
            try:  # main() creates the file first, for a clear message
                if not self.phone.fs.exists(path):
                    self.phone.fs.write_bytes(path, b"")
            except OSError as exc:
                await ctx.err(f"Unable to open '{opts.filename}': {exc.strerror}\n")
                return 1
        display = self.phone.window_size()
        video = opts.size or (display[0] & ~1, display[1] & ~1)
        if opts.verbose:
            if android <= 11:
                await ctx.out(f"Main display is {display[0]}x{display[1]} @60.00fps (orientation=0)\n")
            else:
                await ctx.out(f"Display is {display[0]}x{display[1]} @60.00fps (orientation=ROTATION_0), "
                              "layerStack=0\n")
            await ctx.out(f"Configuring recorder for {video[0]}x{video[1]} video/avc at "
                          f"{opts.bit_rate / 1_000_000:.2f}Mbps\n")
        if opts.output_format != "mp4" or self.phone.knobs.screenrecord == "no_avc":
            return await self._no_avc(ctx, opts, video)
        ow, oh, ox, oy = _content_area(video, display)
        if opts.verbose:
            await ctx.out(f"Content area is {ow}x{oh} at offset x={ox} y={oy}\n")
        if ctx.job is not None:  # main(): sigaction(SIGINT / SIGHUP, signalCatcher) — stop, then finish
            ctx.job.catch(_SIGINT, _SIGHUP)
        frames, seconds, timed_out = await self._record(path, opts, video, (ow, oh, ox, oy), ctx.job)
        if opts.verbose:
            if timed_out:
                await ctx.out("Time limit reached\n")
            await ctx.out(f"Encoder stopping; recorded {frames} frames in {seconds} seconds\n"
                          "Stopping encoder and muxer\n")
        await self._notify_media_scanner(ctx, opts)
        return 0

    async def _no_avc(self, ctx: CommandContext, opts: RecordOptions, video: tuple[int, int]) -> int:
        """Raw H.264 (and the other encoder paths; every path on a ``no_avc`` phone) need the AVC
        encoder this phone lacks: the tool's own failure path (prepareEncoder, then the 720p
        retry).  recordScreen() returns UNKNOWN_ERROR (INT32_MIN), which the shell sees as exit
        status 0; an MP4's file, created by main() before recording, is left empty."""
        await ctx.err(_AVC_ERROR)
        if opts.size is None:
            fallback = (720, 1280) if video[0] < video[1] else (1280, 720)
            if video[0] != fallback[0] and video[1] != fallback[1]:
                await ctx.err(f"WARNING: failed at {video[0]}x{video[1]}, retrying at {fallback[0]}x{fallback[1]}\n")
                if opts.verbose:
                    await ctx.out(f"Configuring recorder for {fallback[0]}x{fallback[1]} video/avc at "
                                  f"{opts.bit_rate / 1_000_000:.2f}Mbps\n")
                await ctx.err(_AVC_ERROR)
        return 0

    async def _record(self, path: str, opts: RecordOptions, video: tuple[int, int],
                      area: tuple[int, int, int, int], job: Any = None) -> tuple[int, int, bool]:
        """Capture frames until the time limit, a caught signal (SIGINT — ``kill -INT``, as
        adbutils' ``stop_recording`` sends it — or SIGHUP, the host hanging up: screenrecord's
        ``signalCatcher`` only sets ``gStopRequested``, so the encoder drains and the muxer writes
        a playable MP4). Any other signal kills the process mid-file: the muxer never finishes,
        and what is left is no playable video."""
        import cv2

        fd, tmp = tempfile.mkstemp(suffix=".mp4", prefix="screenrecord-")
        os.close(fd)
        writer = cv2.VideoWriter(tmp, cv2.VideoWriter_fourcc(*"mp4v"), _CAPTURE_FPS, video)
        recorder = _FrameSink(writer, video, area)
        start = time.monotonic()
        timed_out = False
        finish = True
        try:
            while job is None or not job.signalled.is_set():
                elapsed = time.monotonic() - start
                if elapsed > opts.time_limit:
                    timed_out = True
                    break
                png = await self.phone.acall(self.phone.screenshot_png)
                await self.phone.acall(recorder.add, png, elapsed)
                delay = max(0.0, recorder.next_due - (time.monotonic() - start))
                if job is None:
                    await asyncio.sleep(delay)
                else:
                    with contextlib.suppress(asyncio.TimeoutError):
                        await asyncio.wait_for(job.signalled.wait(), delay)
        except asyncio.CancelledError:
            finish = job is None or not job.signal  # killed outright (SIGTERM, SIGKILL …): no moov, no video
            raise
        finally:
            if finish:
                self._finish(recorder, tmp, path)
            else:
                with contextlib.suppress(Exception):
                    recorder.close()
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
        return recorder.count, int(time.monotonic() - start), timed_out

    def _finish(self, recorder: "_FrameSink", tmp: str, path: str) -> None:
        try:
            recorder.close()
            with open(tmp, "rb") as fh:
                data = fh.read()
            with contextlib.suppress(OSError):
                self.phone.fs.write_bytes(path, data)
        finally:
            with contextlib.suppress(OSError):
                os.unlink(tmp)

    async def _notify_media_scanner(self, ctx: CommandContext, opts: RecordOptions) -> None:
        """notifyMediaScanner(): ``am broadcast`` of the new file; its output shows with --verbose."""
        argv = ["/system/bin/am", "broadcast", "-a", _MEDIA_SCAN, "-d", f"file://{opts.filename}"]
        if opts.verbose:
            await ctx.out("Executing: " + " ".join(argv) + "\n")
        shell = ShellInterpreter(ctx.shell.commands, fs=ctx.shell.fs)
        handler = shell.lookup("am")
        if handler is None:
            return
        out = ctx.stdout if opts.verbose else NullOutput()
        sub = CommandContext(argv=argv, env=ctx.env, stdin=ctx.stdin, stdout=out,
                             stderr=ctx.stderr if opts.verbose else NullOutput(), shell=shell)
        with contextlib.suppress(Exception):
            await handler(sub)


class _FrameSink:
    """Turns screenshots into constant-rate video frames (a frame repeats while nothing changes,
    as the virtual display only redraws on change)."""

    def __init__(self, writer: Any, video: tuple[int, int], area: tuple[int, int, int, int]) -> None:
        self.writer = writer
        self.video = video
        self.area = area
        self.count = 0
        self._png = b""
        self._frame: Any = None
        self._lock = threading.Lock()

    @property
    def next_due(self) -> float:
        return self.count / _CAPTURE_FPS

    def add(self, png: bytes, elapsed: float) -> None:
        with self._lock:
            if png != self._png:
                self._png, self._frame = png, self._compose(png)
            due = max(1, int(elapsed * _CAPTURE_FPS) + 1 - self.count)
            for _ in range(due):
                self.writer.write(self._frame)
                self.count += 1

    def _compose(self, png: bytes) -> Any:
        import cv2
        import numpy as np

        img = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR)
        ow, oh, ox, oy = self.area
        canvas = np.zeros((self.video[1], self.video[0], 3), np.uint8)
        canvas[oy:oy + oh, ox:ox + ow] = cv2.resize(img, (ow, oh), interpolation=cv2.INTER_AREA)
        return canvas

    def close(self) -> None:
        with self._lock:
            self.writer.release()


# ============================================================================ registration
def media_commands(phone: "VirtualPhone", commands: dict[str, CommandHandler]) -> dict[str, CommandHandler]:
    """``screenrecord`` (unless the phone has none), ``exec`` and the logging ``am`` for
    :class:`~device.virtual.android.AndroidBackend` — and ``commands`` with them, each one
    entering a background job it runs in the phone's process table (``ps``, ``pidof``, ``kill``)."""
    from .processes import track_jobs

    table: dict[str, CommandHandler] = dict(commands)
    table["exec"] = cmd_exec
    if phone.knobs.screenrecord != "missing":
        table["screenrecord"] = ScreenRecord(phone)
    if "am" in commands:
        table["am"] = _wrap_am(phone, commands["am"])
    return track_jobs(phone, table)
