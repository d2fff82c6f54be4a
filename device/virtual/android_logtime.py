"""The times ``logcat -t TIME`` / ``-T TIME`` accept, read as the phone's logcat reads them.

Why its own module: a time argument goes through two layers of C — logcat's ``parseTime``
(system/logging/logcat/logcat.cpp) tries three formats in turn, and liblog's
``log_time::strptime`` (system/logging/liblog/log_time.cpp) runs bionic's ``strptime`` on the
plain parts and reads its own ``%q`` (fractional seconds) and ``%s`` (epoch seconds) — and what
is accepted, what is silently normalised and where the parse stops (the rest is "truncated",
with a warning) all follow from those, so they are modelled here once, apart from the log store.

* logcat.cpp ``Run``, options ``t``/``T``: an argument made only of digits is a line count
  (``0``, an empty one or one too large for ``size_t`` warns ``-t 0 invalid, setting to 1``);
  anything else must parse as a time, or ``logcat: -T 'X' not in time format.`` and exit 1; a
  time followed by more text warns ``WARNING: -T 'TIME' 'REST' time truncated`` and is used.
* logcat.cpp ``parseTime``: ``%m-%d %H:%M:%S.%q``, then ``%Y-%m-%d %H:%M:%S.%q``, then
  ``%s.%q`` — so ``MM-DD hh:mm:ss.mmm``, ``YYYY-MM-DD hh:mm:ss.mmm`` and ``sssss.mmm`` (the dot
  is required; ``%q`` takes 0–9 digits).
* log_time.cpp: fields not in the format come from ``localtime(now)`` (``MM-DD`` is this year),
  the result goes through ``mktime`` (so ``02-30`` is the 1st or 2nd of March, seconds up to 61
  roll over), and ``%s`` is epoch seconds read in the phone's zone.
* bionic ``strptime`` (NetBSD's): each numeric field takes digits while the value can still fit
  its range (``conv_num``: ``%m`` 1–12, ``%d`` 1–31, ``%H`` 0–23, ``%M`` 0–59, ``%S`` 0–61,
  ``%Y`` 0–9999), a blank in the format matches any run of blanks, other characters must match.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

__all__ = ["TailArg", "parse_tail"]

_LIMITS = {"m": (1, 12), "d": (1, 31), "H": (0, 23), "M": (0, 59), "S": (0, 61), "Y": (0, 9999)}
_FORMATS = ("%m-%d %H:%M:%S.", "%Y-%m-%d %H:%M:%S.")
_SIZE_MAX = 2**64 - 1
_DIGITS = "0123456789"


class TailArg:
    """What ``-t``/``-T`` set: a line count, or a time (a naive local wall time of the phone),
    and the warning logcat printed on stderr while reading it, if any."""

    def __init__(self, lines: int = 0, since: datetime | None = None, warning: str = "") -> None:
        self.lines, self.since, self.warning = lines, since, warning


def _conv_num(s: str, i: int, llim: int, ulim: int) -> tuple[int, int] | None:
    """NetBSD ``conv_num``: digits while ``result * 10 <= ulim`` (and the limit has digits left)."""
    if i >= len(s) or s[i] not in _DIGITS:
        return None
    result, rulim = 0, ulim
    while True:
        result = result * 10 + int(s[i])
        rulim //= 10
        i += 1
        if not (result * 10 <= ulim and rulim and i < len(s) and s[i] in _DIGITS):
            break
    if result < llim or result > ulim:
        return None
    return result, i


def _strptime(s: str, i: int, fmt: str, tm: dict[str, int]) -> int | None:
    """The part of bionic ``strptime`` these formats use; returns where it stopped, or None."""
    f = 0
    while f < len(fmt):
        c = fmt[f]
        if c == "%":
            got = _conv_num(s, i, *_LIMITS[fmt[f + 1]])
            if got is None:
                return None
            tm[fmt[f + 1]], i = got
            f += 2
            continue
        if c.isspace():
            while i < len(s) and s[i].isspace():
                i += 1
        elif i >= len(s) or s[i] != c:
            return None
        else:
            i += 1
        f += 1
    return i


def _fraction(s: str, i: int) -> tuple[int, int]:
    """``%q``: up to nine digits of a second (nanoseconds); zero digits is 0."""
    ns, mul = 0, 1_000_000_000
    while i < len(s) and s[i] in _DIGITS and mul > 1:
        mul //= 10
        ns += int(s[i]) * mul
        i += 1
    return ns, i


def _mktime(tm: dict[str, int], ns: int) -> datetime:
    """``mktime``: out-of-range days and seconds roll over into the next month / minute."""
    year = tm["Y"]
    if year < 1:
        return datetime.min
    return datetime(year, tm["m"], 1) + timedelta(days=tm["d"] - 1, hours=tm["H"], minutes=tm["M"],
                                                  seconds=tm["S"], microseconds=ns // 1000)


def parse_time(text: str, now: datetime, epoch_to_local: Callable[[float], datetime]) -> tuple[datetime, int] | None:
    """logcat.cpp ``parseTime``: the time and how much of ``text`` it used, or None."""
    for fmt in _FORMATS:
        tm = {"Y": now.year, "m": now.month, "d": now.day, "H": now.hour, "M": now.minute, "S": now.second}
        i = _strptime(text, 0, fmt, tm)
        if i is not None:
            ns, i = _fraction(text, i)
            return _mktime(tm, ns), i
    i = 0
    while i < len(text) and text[i] in _DIGITS:
        i += 1
    if i >= len(text) or text[i] != ".":
        return None
    ns, end = _fraction(text, i + 1)
    try:
        when = epoch_to_local(int(text[:i] or "0")) + timedelta(microseconds=ns // 1000)
    except (OverflowError, OSError, ValueError):
        when = datetime.max
    return when, end


def parse_tail(opt: str, value: str, now: datetime, epoch_to_local: Callable[[float], datetime]) -> TailArg | None:
    """``-t``/``-T`` VALUE as logcat.cpp reads it; None when it is not in time format (logcat
    then exits with ``-OPT 'VALUE' not in time format.``)."""
    if all(c in _DIGITS for c in value):  # strspn(optarg, "0123456789") == strlen(optarg)
        n = int(value) if value else 0
        if n < 1 or n > _SIZE_MAX:
            return TailArg(1, warning=f"WARNING: -{opt} {value} invalid, setting to 1\n")
        return TailArg(n)
    got = parse_time(value, now, epoch_to_local)
    if got is None:
        return None
    when, used = got
    warning = ""
    if used < len(value):
        warning = f"WARNING: -{opt} '{value[:used]}' '{value[used:]}' time truncated\n"
    return TailArg(0, when, warning)
