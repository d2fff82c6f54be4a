"""The phone's log daemon and ``logcat``: logd's ring buffers, the lines the phone writes for
what it does, and ``logcat``'s options, filters and formats.

* :class:`LogBuffer` — logd's ring buffers (main, system, crash …) as the shell user reads them
  (the shell uid is in the ``log`` group, so it sees and may clear every buffer). The phone writes
  real-shaped lines for what it does: ``am start`` logs ActivityTaskManager's ``START u0 {…}``
  (services/core/java/com/android/server/wm/ActivityStarter.java), ActivityManager's
  ``Start proc PID:PKG/UID for …`` (ProcessList.java) and ``Displayed …``
  (ActivityMetricsLogger.java); ``am force-stop`` logs ``Force stopping …``
  (ActivityManagerService.java ``forceStopPackageLocked``). Those are ``Slog`` calls, so they
  land in the *system* buffer, as on a phone.
* :func:`logcat_main` — system/logging/logcat/logcat.cpp: ``-d``, ``-c``, ``-t/-T N``, ``-t/-T
  TIME`` (``MM-DD hh:mm:ss.mmm``, ``YYYY-MM-DD hh:mm:ss.mmm`` or ``sssss.mmm``, read as logcat's
  ``parseTime`` reads them: :mod:`.android_logtime`; the lines logged at or after that time, as
  logd's reader starts at the first entry whose time is not before it), ``-m N``, ``-b``,
  ``-v FORMAT``, ``-s``, ``-e``, ``--pid``, filter specs; lines are formatted like
  liblog/logprint.cpp ``android_log_formatLogLine``; without ``-d`` it streams until the host
  closes the stream.

Why its own module: the log is one store with one reader; the screen recorder and ``exec`` are
:mod:`.android_media`.
"""


from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import re
import threading
import time
import weakref
from collections import deque
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Iterable

from .android_logtime import parse_tail
from .sh_io import CommandContext, CommandHandler

if TYPE_CHECKING:
    from .phone import VirtualPhone

__all__ = ["LogBuffer", "LogEntry", "logd_of", "logcat_main", "SYSTEM_SERVER_PID", "system_chatter"]

# ============================================================================ logd
#: log_id_t order (android/log_id.h); logcat walks buffers in this order.
LOG_IDS = ("main", "radio", "events", "system", "crash", "stats", "security", "kernel")
#: android_LogPriority: V=2 … F=7, S(ilent)=8.
PRIORITY = {"V": 2, "D": 3, "I": 4, "W": 5, "E": 6, "F": 7, "S": 8}
PRIORITY_CHAR = {v: k for k, v in PRIORITY.items()}

SYSTEM_SERVER_PID = 1203  # as ``ps -A`` shows it
_SHELL_UID = 2000


@dataclass(frozen=True)
class LogEntry:
    """One logd record."""

    seq: int
    buffer: str
    when: datetime
    pid: int
    tid: int
    uid: int
    priority: int
    tag: str
    message: str


class LogBuffer:
    """logd: bounded ring buffers shared by every reader; thread-safe (the phone writes from its
    worker threads, readers live on the adbd loop and are woken with ``call_soon_threadsafe``)."""

    def __init__(self, clock: Any, size: int = 8192) -> None:
        self._clock = clock
        self._entries: deque[LogEntry] = deque(maxlen=size)
        self._lock = threading.Lock()
        self._seq = 0
        self._waiters: set[tuple[asyncio.AbstractEventLoop, asyncio.Event]] = set()

    def write(self, buffer: str, priority: str, tag: str, message: str, *, pid: int, tid: int,
              uid: int, when: datetime | None = None) -> LogEntry:
        with self._lock:
            self._seq += 1
            entry = LogEntry(self._seq, buffer, when or self._clock(), pid, tid, uid, PRIORITY[priority], tag,
                             message)
            self._entries.append(entry)
            waiters = list(self._waiters)
        for loop, event in waiters:
            with contextlib.suppress(RuntimeError):  # a reader's loop that is closing
                loop.call_soon_threadsafe(event.set)
        return entry

    def entries(self, after: int = 0) -> list[LogEntry]:
        with self._lock:
            return [e for e in self._entries if e.seq > after]

    def clear(self, buffers: Iterable[str]) -> None:
        drop = set(buffers)
        with self._lock:
            kept = [e for e in self._entries if e.buffer not in drop]
            self._entries.clear()
            self._entries.extend(kept)

    def subscribe(self) -> asyncio.Event:
        """An event set whenever a line is written (for live readers on the running loop)."""
        event = asyncio.Event()
        with self._lock:
            self._waiters.add((asyncio.get_running_loop(), event))
        return event

    def unsubscribe(self, event: asyncio.Event) -> None:
        with self._lock:
            self._waiters = {w for w in self._waiters if w[1] is not event}

    @property
    def readers(self) -> int:
        """Live ``logcat`` readers (each one is a stream the host holds open)."""
        with self._lock:
            return len(self._waiters)


_LOGDS: "weakref.WeakKeyDictionary[Any, LogBuffer]" = weakref.WeakKeyDictionary()
_LOGDS_LOCK = threading.Lock()


def logd_of(phone: "VirtualPhone") -> LogBuffer:
    """The phone's logd, started (with its boot lines) on first use."""
    with _LOGDS_LOCK:
        buf = _LOGDS.get(phone)
        if buf is None:
            buf = _LOGDS[phone] = LogBuffer(phone.now)
            _boot_lines(phone, buf)
        return buf


def _uid_of(package: str) -> int:
    """The app uid ``ps`` shows for a package (u0_a{100 + pid % 200})."""
    from .android_am import pid_of

    return 10100 + pid_of(package) % 200


def format_uid(uid: int) -> str:
    """``UserHandle.formatUid``: ``u0a123`` for apps, the number for system uids."""
    app = uid % 100000
    return f"u{uid // 100000}a{app - 10000}" if app >= 10000 else str(app)


def _boot_lines(phone: "VirtualPhone", buf: LogBuffer) -> None:
    """What a fresh boot leaves in the system buffer (SystemServer.java, ProcessList.java)."""
    now = phone.now()
    boot = now - timedelta(seconds=40)
    buf.write("system", "I", "SystemServer", "Entered the Android system server!", pid=SYSTEM_SERVER_PID,
              tid=SYSTEM_SERVER_PID, uid=1000, when=boot)
    buf.write("system", "I", "ActivityManager",
              "Start proc 1702:com.android.systemui/u0a110 for service "
              "{com.android.systemui/com.android.systemui.SystemUIService}",
              pid=SYSTEM_SERVER_PID, tid=1236, uid=1000, when=boot + timedelta(seconds=9, milliseconds=412))
    home = phone.family.apps["launcher"]
    launcher = home.package
    from .android_am import pid_of

    buf.write("system", "I", "ActivityManager",
              f"Start proc {pid_of(launcher)}:{launcher}/{format_uid(_uid_of(launcher))} for "
              f"{_hosting_type(phone)} {{{launcher}/{home.full(home.launcher)}}}",
              pid=SYSTEM_SERVER_PID, tid=1236, uid=1000, when=boot + timedelta(seconds=14, milliseconds=87))


def _hosting_type(phone: "VirtualPhone") -> str:
    """HostingRecord's type for an activity launch: ``next-top-activity`` since Android 12."""
    return "top-activity" if phone.knobs.android <= 11 else "next-top-activity"


class ActivityLog:
    """The system_server lines an ``am`` command causes."""

    _AM_TID = 1547  # the binder thread that serves ``am``'s call
    _AM_PROC_TID = 1236  # ActivityManager's own thread

    def __init__(self, phone: "VirtualPhone") -> None:
        self.phone = phone
        self.log = logd_of(phone)
        self._am_pids = iter(range(23105, 60000, 7))

    def am_pid(self) -> int:
        """Each ``am`` run is a new ``app_process`` (its pid is what ``from pid`` names)."""
        return next(self._am_pids)

    def start_line(self, intent: Any) -> str:
        """ActivityStarter: ``START u0 {<Intent.toShortString>} …`` (the shell adds NEW_TASK)."""
        shown = dataclasses.replace(intent, flags=intent.flags | 0x10000000).short()
        inner = shown[len("Intent { "):-len(" }")] if shown.startswith("Intent { ") else shown
        android = self.phone.knobs.android
        if android <= 13:
            return f"START u0 {{{inner}}} from uid {_SHELL_UID}"
        caller = " (com.android.shell)" if android >= 15 else ""
        return f"START u0 {{{inner}}} with LAUNCH_MULTIPLE from uid {_SHELL_UID}{caller} result code=0"

    def started(self, intent: Any, package: str, activity: str, cold: bool, at: datetime, ms: int) -> None:
        """START when ``am``'s call arrived, the process start just after it, Displayed ``ms`` later."""
        from .android_am import pid_of

        sys = dict(pid=SYSTEM_SERVER_PID, uid=1000)
        self.log.write("system", "I", "ActivityTaskManager", self.start_line(intent), tid=self._AM_TID, when=at,
                       **sys)
        if cold:
            self.log.write("system", "I", "ActivityManager",
                           f"Start proc {pid_of(package)}:{package}/{format_uid(_uid_of(package))} for "
                           f"{_hosting_type(self.phone)} {{{package}/{activity}}}", tid=self._AM_PROC_TID,
                           when=at + timedelta(milliseconds=14), **sys)
        short = f"{package}/{activity[len(package):] if activity.startswith(package + '.') else activity}"
        user = " for user 0" if self.phone.knobs.android >= 13 else ""
        self.log.write("system", "I", "ActivityTaskManager", f"Displayed {short}{user}: +{_duration(ms)}",
                       tid=1262, when=at + timedelta(milliseconds=ms), **sys)

    def force_stopped(self, package: str) -> None:
        self.log.write("system", "I", "ActivityManager",
                       f"Force stopping {package} appid={_uid_of(package) % 100000} user=0: from pid "
                       f"{self.am_pid()}", pid=SYSTEM_SERVER_PID, tid=self._AM_TID, uid=1000)


def _duration(ms: int) -> str:
    """``TimeUtils.formatDuration`` without the sign: ``412ms``, ``1s87ms``."""
    return f"{ms // 1000}s{ms % 1000}ms" if ms >= 1000 else f"{ms}ms"


def _wrap_am(phone: "VirtualPhone", am: CommandHandler) -> CommandHandler:
    """``am`` as before, plus the system_server lines its ``start``/``force-stop`` cause."""
    log = ActivityLog(phone)

    async def am_logged(ctx: CommandContext) -> int:
        args = list(ctx.args)
        verb = args[0] if args else ""
        if verb in ("start", "start-activity"):
            return await _logged_start(phone, log, am, ctx, args[1:])
        status = await am(ctx)
        if verb in ("force-stop", "stop-app") and status == 0:
            for pkg in (a for a in args[1:] if not a.startswith("-") and "." in a):
                log.force_stopped(pkg)
        return status

    return am_logged


async def _logged_start(phone: "VirtualPhone", log: ActivityLog, am: CommandHandler, ctx: CommandContext,
                        rest: list[str]) -> int:
    from .android_am import IntentError, parse_intent
    packages = phone.family.packages

    try:
        intent = parse_intent(rest)
    except IntentError:
        return await am(ctx)

    def state() -> tuple[tuple[str, str], set[str]]:
        tasks = {packages.get(a, a) for a in phone.ui_overlays()["tasks"]}
        return phone.foreground(), tasks

    (before, running) = await phone.acall(state)
    at = phone.now()
    t0 = time.perf_counter()
    status = await am(ctx)
    after, _ = await phone.acall(state)
    target = intent.component.split("/", 1)[0] if intent.component else None
    if status == 0 and (after != before or (target and after[0] == target)):
        ms = int((time.perf_counter() - t0) * 1000) + 180
        log.started(intent, after[0], after[1], after[0] not in running and after[0] != before[0], at, ms)
    return status


# ============================================================================ logcat
_LOGCAT_OPTS_WITH_ARG = set("tTfrnvbPme") | {"G"}
_FORMATS = {"brief", "long", "process", "raw", "tag", "thread", "threadtime", "time"}
_ADVERBS = {"color", "descriptive", "epoch", "monotonic", "printable", "uid", "usec", "UTC", "year", "zone",
            "nsec"}


class _LogcatError(Exception):
    """``error(EXIT_FAILURE, 0, …)``: printed as ``logcat: MESSAGE`` on stderr, exit status 1."""


@dataclass
class LogcatArgs:
    dump: bool = False
    clear: bool = False
    tail: int = 0
    since: datetime | None = None  # -t/-T TIME: lines logged at or after this (the phone's local time)
    got_t: bool = False  # -t was given (it may not go with -m)
    max_count: int = 0
    buffers: tuple[str, ...] = ()
    fmt: str = "threadtime"
    year: bool = False
    regex: "re.Pattern[str] | None" = None
    pid: int = 0
    dividers: bool = False
    rules: list[tuple[str, int]] = dataclasses.field(default_factory=list)
    default_priority: int = PRIORITY["V"]
    #: what -t/-T TIME is read against: the phone's clock, and epoch seconds → its local time
    now: datetime = dataclasses.field(default_factory=datetime.now)
    epoch_to_local: Any = datetime.fromtimestamp
    #: the WARNING lines logcat prints on stderr while it reads its options
    warnings: list[str] = dataclasses.field(default_factory=list)


def _parse_logcat(argv: list[str], env: dict[str, str], a: LogcatArgs | None = None) -> LogcatArgs:
    """getopt_long(":cdDhLt:T:gG:sQf:r:n:v:b:BSpP:m:e:") as logcat.cpp does it (into ``a``, whose
    warnings stand even when a later option is an error)."""
    a = a if a is not None else LogcatArgs()
    buffers: list[str] = []
    filters: list[str] = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        i += 1
        if arg == "--":
            filters.extend(argv[i:])
            break
        if arg.startswith("--"):
            name, eq, value = arg[2:].partition("=")
            long_map = {"dump": "d", "clear": "c", "format": "v", "buffer": "b", "tail": "t", "regex": "e",
                        "max-count": "m", "dividers": "D"}
            if name == "pid":
                if not eq:
                    if i >= len(argv):
                        raise _LogcatError(f"Option '{arg}' needs an argument.")
                    value, i = argv[i], i + 1
                if not value.isdigit() or int(value) < 1:
                    raise _LogcatError(f"pid '{value}' out of range.")
                a.pid = int(value)
                continue
            if name not in long_map:
                raise _LogcatError(f"Unknown option '{_after(argv, i)}'.")
            opt = long_map[name]
            if opt in _LOGCAT_OPTS_WITH_ARG and not eq:
                if i >= len(argv):
                    raise _LogcatError(f"Option '{arg}' needs an argument.")
                value, i = argv[i], i + 1
            _apply_opt(a, opt, value, buffers)
            continue
        if arg.startswith("-") and len(arg) > 1:
            j = 1
            while j < len(arg):
                opt = arg[j]
                j += 1
                if opt in _LOGCAT_OPTS_WITH_ARG:
                    if j < len(arg):
                        value = arg[j:]
                    elif i < len(argv):
                        value, i = argv[i], i + 1
                    else:
                        raise _LogcatError(f"Option '{arg}' needs an argument.")
                    _apply_opt(a, opt, value, buffers)
                    break
                if opt not in "cdDsLgSpBhQ":
                    raise _LogcatError(f"Unknown option '{_after(argv, i)}'.")
                _apply_opt(a, opt, "", buffers)
            continue
        filters.append(arg)
    if a.max_count and a.got_t:
        raise _LogcatError("Cannot use -m (--max-count) and -t together.")
    a.buffers = tuple(b for b in LOG_IDS if b in buffers) or ("main", "system", "crash", "kernel")
    specs = filters or env.get("ANDROID_LOG_TAGS", "").split()
    for spec in specs:
        if not _add_filter(a, spec):
            raise _LogcatError(f"Invalid filter expression '{spec}'." if filters else
                               f"Invalid filter expression '{spec}' in ANDROID_LOG_TAGS.")
    return a


def _after(argv: list[str], i: int) -> str:
    """logcat.cpp names ``argv[optind]`` for an unknown option — getopt has already stepped past
    it, so that is the *next* argument, or bionic's ``(null)`` when there is none."""
    return argv[i] if i < len(argv) else "(null)"


def _apply_opt(a: LogcatArgs, opt: str, value: str, buffers: list[str]) -> None:
    if opt == "d":
        a.dump = True
    elif opt == "c":
        a.clear = True
    elif opt == "D":
        a.dividers = True
    elif opt == "s":
        a.default_priority = PRIORITY["S"]
    elif opt in "tT":
        if opt == "t":
            a.dump = a.got_t = True
        tail = parse_tail(opt, value, a.now, a.epoch_to_local)
        if tail is None:
            raise _LogcatError(f"-{opt} '{value}' not in time format.")
        if tail.warning:
            a.warnings.append(tail.warning)
        if tail.since is not None:
            a.since = tail.since  # a time wins over any count (android_logger_list_alloc_time)
        else:
            a.tail = tail.lines
    elif opt == "m":
        if not value.isdigit() or int(value) < 1:
            raise _LogcatError(f"-m '{value}' isn't an integer greater than zero.")
        a.max_count = int(value)
    elif opt == "e":
        try:
            a.regex = re.compile(value)
        except re.error as exc:
            raise _LogcatError(f"Invalid regex '{value}': {exc}") from None
    elif opt == "v":
        for verb in re.split(r"[,:; \t\n\r\f]+", value):
            if verb in _FORMATS:
                a.fmt = verb
            elif verb == "year":
                a.year = True
            elif verb not in _ADVERBS:
                raise _LogcatError(f"Invalid -v '{verb}'.")
    elif opt == "b":
        for name in (n for n in re.split(r"[,:; \t\n\r\f]+", value) if n):
            if name == "default":
                buffers.extend(("main", "system", "crash"))
            elif name == "all":
                buffers.extend(LOG_IDS)
            elif name in LOG_IDS:
                buffers.append(name)
            else:
                raise _LogcatError(f"Unknown -b buffer '{name}'.")


def _add_filter(a: LogcatArgs, spec: str) -> bool:
    """liblog ``android_log_addFilterRule``: ``tag[:prio]``; ``*`` alone is ``*:D``."""
    tag, colon, pri = spec.partition(":")
    if colon:
        p = PRIORITY.get(pri.upper()[:1] if pri else "", None)
        if p is None or len(pri) != 1:
            return False
    else:
        p = PRIORITY["D"] if tag == "*" else PRIORITY["V"]
    if tag == "*":
        a.default_priority = p
    else:
        a.rules.insert(0, (tag, p))
    return True


def _wanted(a: LogcatArgs, e: LogEntry) -> bool:
    if e.buffer not in a.buffers or (a.pid and e.pid != a.pid):
        return False
    limit = next((p for tag, p in a.rules if tag == e.tag), a.default_priority)
    if e.priority < limit:
        return False
    return a.regex is None or a.regex.search(e.message) is not None


def format_line(a: LogcatArgs, e: LogEntry) -> str:
    """liblog/logprint.cpp ``android_log_formatLogLine`` for the plain verbs."""
    stamp = e.when.strftime("%Y-%m-%d %H:%M:%S" if a.year else "%m-%d %H:%M:%S") + f".{e.when.microsecond // 1000:03d}"
    c = PRIORITY_CHAR[e.priority]
    prefix = {
        "tag": f"{c}/{e.tag:<8}: ",
        "process": f"{c}({e.pid:5d}) ",
        "thread": f"{c}({e.pid:5d}:{e.tid:5d}) ",
        "raw": "",
        "time": f"{stamp} {c}/{e.tag:<8}({e.pid:5d}): ",
        "threadtime": f"{stamp} {e.pid:5d} {e.tid:5d} {c} {e.tag:<8}: ",
        "brief": f"{c}/{e.tag:<8}({e.pid:5d}): ",
    }
    if a.fmt == "long":
        return f"[ {stamp} {e.pid:5d}:{e.tid:5d} {c}/{e.tag:<8} ]\n{e.message}\n\n"
    suffix = f"  ({e.tag})\n" if a.fmt == "process" else "\n"
    return "".join(prefix[a.fmt] + line + suffix for line in e.message.split("\n"))


class _Printer:
    """logcat's output loop: dividers (``--------- beginning of system``), ``-m`` counting."""

    def __init__(self, a: LogcatArgs, ctx: CommandContext) -> None:
        self.a = a
        self.ctx = ctx
        self.printed = 0
        self._last: str | None = None
        self._started: set[str] = set()

    @property
    def done(self) -> bool:
        return bool(self.a.max_count) and self.printed >= self.a.max_count

    async def emit(self, entries: list[LogEntry]) -> None:
        out: list[str] = []
        for e in entries:
            if self.done:
                break
            if not _wanted(self.a, e):
                continue
            if e.buffer != self._last:
                if e.buffer not in self._started or self.a.dividers:
                    word = "switch to" if e.buffer in self._started else "beginning of"
                    out.append(f"--------- {word} {e.buffer}\n")
                self._last = e.buffer
                self._started.add(e.buffer)
            out.append(format_line(self.a, e))
            self.printed += 1
        if out:
            await self.ctx.out("".join(out))


async def logcat_main(phone: "VirtualPhone", ctx: CommandContext) -> int:
    """``logcat`` as system/logging/logcat/logcat.cpp runs it for the shell user."""
    a = LogcatArgs(now=phone.now(), epoch_to_local=phone.epoch_to_local)
    try:
        _parse_logcat(list(ctx.args), ctx.env, a)
    except _LogcatError as exc:
        await ctx.err("".join(a.warnings) + f"logcat: {exc}\n")
        return 1
    if a.warnings:
        await ctx.err("".join(a.warnings))
    log = logd_of(phone)
    if a.clear:
        log.clear(a.buffers)
        return 0
    printer = _Printer(a, ctx)
    backlog = [e for e in log.entries() if e.buffer in a.buffers and (not a.pid or e.pid == a.pid)]
    if a.since is not None:
        backlog = [e for e in backlog if e.when >= a.since]
    elif a.tail:
        backlog = backlog[-a.tail:]
    last = log.entries()[-1].seq if log.entries() else 0
    await printer.emit(backlog)
    if a.dump or printer.done:
        return 0
    wake = log.subscribe()
    try:
        while not printer.done:
            try:
                await asyncio.wait_for(wake.wait(), CHATTER_S)
            except asyncio.TimeoutError:
                await phone.acall(system_chatter, phone, log)
            wake.clear()
            fresh = log.entries(last)
            if fresh:
                last = fresh[-1].seq
                await printer.emit(fresh)
    finally:
        log.unsubscribe(wake)
    return 0


#: A phone's logd is never quiet for long: system_server, the radio and the HALs log several lines a
#: second. While a ``logcat`` streams, a quiet second brings one of these.
CHATTER_S = 1.0
_COMPAT_CHANGES = (194833441, 263076149, 168419799, 171306433)


def system_chatter(phone: "VirtualPhone", log: LogBuffer) -> None:
    """One line of the background traffic every phone's log carries, unless something was
    logged within the last :data:`CHATTER_S`: the compat-framework report an app process logs
    whenever it checks a gated behaviour — ``D CompatibilityChangeReporter: Compat change id
    reported: ID; UID UID; state: ENABLED`` (frameworks/base core/java/com/android/internal/
    compat/ChangeReporter.java ``reportChange`` → ``debugLog``) — here from SystemUI (pid 1702,
    u0a110, as ``ps`` and the boot lines show it), which runs on every phone."""
    last = log.entries()[-1:]
    now = phone.now()
    if last and (now - last[0].when).total_seconds() < CHATTER_S * 0.9:
        return
    change = _COMPAT_CHANGES[int(now.timestamp()) % len(_COMPAT_CHANGES)]
    log.write("main", "D", "CompatibilityChangeReporter",
              f"Compat change id reported: {change}; UID 10110; state: ENABLED", pid=1702, tid=1702, uid=10110)
