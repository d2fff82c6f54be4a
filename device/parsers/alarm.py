"""``dumpsys alarm`` → the next alarm clock and the alarms that carry an alarm-clock record.

What this dump can and cannot tell (why ``WorldState.alarms`` is not built from it):

* ``Next alarm clock information:`` gives, per user, the trigger time of the *next* alarm
  set with ``AlarmManager.setAlarmClock`` (what the lock screen shows) — one time, no label,
  no repeat days, no package (on every release we know of);
* each pending alarm with an ``Alarm clock:`` block is such an alarm: we read its package,
  tag and ``triggerTime``. Clock apps usually register only their *next* occurrence, so
  disabled alarms, labels, repeat days and vibrate settings never appear here;
* ``nowRTC=`` is the phone's wall clock at dump time, which is useful on its own.

Some apps misuse ``setAlarmClock`` (Samsung Calendar registers its midnight rollover), so a
next-alarm time is evidence, not proof, that the Clock app has an alarm at that time.
Times are read as printed — already in the phone's local zone — and returned naive.
"""

from __future__ import annotations

import re
from datetime import datetime

from pydantic import BaseModel, Field

from ._common import ParseError, normalize_text

__all__ = ["NextAlarmClock", "AlarmClockEntry", "AlarmDump", "parse_dumpsys_alarm"]


class NextAlarmClock(BaseModel):
    user: int
    pending_send: bool | None = None
    time_ms: int = Field(description="Trigger time, epoch ms (0 = none).")
    time: datetime | None = Field(None, description="The same instant as the dump printed it (phone-local, naive).")


class AlarmClockEntry(BaseModel):
    """A pending alarm that carries an AlarmClockInfo (``Alarm clock:`` block)."""

    package: str | None = None
    tag: str | None = None
    type: str | None = Field(None, description="RTC_WAKEUP, RTC, ELAPSED_WAKEUP, ELAPSED.")
    trigger_time: datetime | None = None
    show_intent_package: str | None = None


class AlarmDump(BaseModel):
    now_rtc_ms: int | None = None
    now: datetime | None = Field(None, description="The phone's local clock at dump time.")
    next_alarm_clocks: list[NextAlarmClock] = Field(default_factory=list)
    alarm_clocks: list[AlarmClockEntry] = Field(default_factory=list)
    pending_alarm_count: int | None = None

    def next_for_user(self, user: int = 0) -> NextAlarmClock | None:
        return next((n for n in self.next_alarm_clocks if n.user == user and n.time_ms > 0), None)


_TS = r"(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(?:\.\d{1,3})?)"
_NOW = re.compile(r"\bnowRTC=(\d+)(?:=" + _TS + r")?")
_NEXT = re.compile(r"^\s*user:(\d+)\s+pendingSend:(true|false)\s+time:(-?\d+)(?:\s*=\s*" + _TS + r")?", re.M)
_ALARM_HEAD = re.compile(r"^\s*(RTC_WAKEUP|RTC|ELAPSED_WAKEUP|ELAPSED|ELAPSED_REALTIME_WAKEUP|ELAPSED_REALTIME)"
                         r" #\d+: Alarm\{[0-9a-fA-F]+ [^\n]*?\s([A-Za-z][\w.]*)\}\s*$", re.M)
_TAG = re.compile(r"^\s*tag=(.*)$", re.M)
_TRIGGER = re.compile(r"^\s*triggerTime=" + _TS, re.M)
_SHOW = re.compile(r"^\s*showIntent=PendingIntent\{[^\n]*?\s([a-z][\w]*(?:\.[\w]+)+)[\s}:]", re.M)
_PENDING = re.compile(r"^\s*Pending alarms?(?: batches)?:\s*(\d+)", re.M)


def _ts(s: str | None) -> datetime | None:
    if not s:
        return None
    for fmt in ("%Y-%m-%d %H:%M:%S.%f", "%Y-%m-%d %H:%M:%S"):
        try:
            return datetime.strptime(s, fmt)
        except ValueError:
            continue
    return None


def parse_dumpsys_alarm(text: str | bytes) -> AlarmDump:
    """Read ``nowRTC``, the ``Next alarm clock information`` lines and ``Alarm clock:`` blocks."""
    t = normalize_text(text)
    out = AlarmDump()
    if m := _NOW.search(t):
        out.now_rtc_ms = int(m.group(1))
        out.now = _ts(m.group(2))
    for m in _NEXT.finditer(t):
        out.next_alarm_clocks.append(NextAlarmClock(user=int(m.group(1)), pending_send=m.group(2) == "true",
                                                    time_ms=int(m.group(3)), time=_ts(m.group(4))))
    if m := _PENDING.search(t):
        out.pending_alarm_count = int(m.group(1))
    heads = list(_ALARM_HEAD.finditer(t))
    for i, h in enumerate(heads):
        block = t[h.end():heads[i + 1].start() if i + 1 < len(heads) else len(t)]
        if "Alarm clock:" not in block:
            continue
        tag = _TAG.search(block)
        trig = _TRIGGER.search(block)
        show = _SHOW.search(block[block.index("Alarm clock:"):]) if "showIntent=" in block else None
        out.alarm_clocks.append(AlarmClockEntry(package=h.group(2), type=h.group(1),
                                                tag=tag.group(1).strip() if tag else None,
                                                trigger_time=_ts(trig.group(1)) if trig else None,
                                                show_intent_package=show.group(1) if show else None))
    if (out.now_rtc_ms is None and not out.next_alarm_clocks and not out.alarm_clocks
            and "Next alarm clock information" not in t):
        raise ParseError("no nowRTC, 'Next alarm clock information' or alarm list: not `dumpsys alarm` output")
    return out
