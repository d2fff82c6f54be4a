"""The virtual phone's clock and time zone: sim time that advances with wall time at the knob's
rate, and conversions between the world's local wall times and epoch seconds.

Why its own module: every provider, ``date``, the alarm manager and the keyguard's clock read
one clock; a mixin of :class:`~device.virtual.phone.VirtualPhone`.
"""

from __future__ import annotations

import json
import time
from datetime import datetime, timedelta
from typing import Any

from .phone_part import PhonePart

__all__ = ["PhoneClock"]


class PhoneClock(PhonePart):
    """A part of :class:`~device.virtual.phone.VirtualPhone` (see the module doc)."""

    # ------------------------------------------------------------------ clock
    def now(self) -> datetime:
        """The phone's local wall clock (naive, in :attr:`zone`), following wall time at ``clock_rate``."""
        elapsed = (time.monotonic() - self._clock_wall) * self.knobs.clock_rate
        return self._clock_sim + timedelta(seconds=elapsed)

    def now_epoch(self) -> float:
        """The phone's clock as epoch seconds: its local wall time read in its zone."""
        return self.local_to_epoch(self.now())

    def local_to_epoch(self, when: datetime | str) -> float:
        """A naive local wall time of the phone (a ``datetime`` or ISO text) → epoch seconds.

        What a provider stores for a time an app shows (CalendarContract ``dtstart``, ``Sms.DATE``,
        ``CallLog.Calls.DATE`` are UTC epoch milliseconds). A wall time the zone skips (the spring
        DST gap) or repeats (the autumn one) is read with ``fold=0``, as ``java.time`` resolves a
        local time before the transition. An aware ``datetime`` keeps its own offset."""
        dt = datetime.fromisoformat(when) if isinstance(when, str) else when
        if dt.tzinfo is None:
            dt = dt.replace(tzinfo=self.zone)
        return dt.timestamp()

    def epoch_to_local(self, ts: float) -> datetime:
        """Epoch seconds → the naive local wall time the phone's apps show for it."""
        return datetime.fromtimestamp(ts, tz=self.zone).replace(tzinfo=None)

    def utc_offset(self, when: datetime | None = None) -> timedelta:
        """The zone's offset from UTC at a local wall time (now by default)."""
        dt = (when or self.now()).replace(tzinfo=self.zone)
        return dt.utcoffset() or timedelta(0)

    def _set_clock(self, when: datetime) -> None:
        self._clock_sim = when
        self._clock_wall = time.monotonic()
        self._state_time = when

    def _sync_clock_locked(self, data: dict[str, Any] | None = None) -> bool:
        """Advance the sim's clock (time, running timers, stopwatch, a toast's time on screen) to the phone's clock.

        Done in Python on the state (what ``S2R.tick`` does in the page), only when a whole
        second passed; the render cache is invalidated only when the screen would change
        (the minute shown in the status bar, a running timer or stopwatch).
        """
        target = self.now().replace(microsecond=0)
        delta = int((target - self._state_time).total_seconds())
        if delta < 1:
            return False
        own = data is None
        if own:
            data = json.loads(self.env.capture())
        w = data["world"]
        try:
            cur = datetime.fromisoformat(w.get("time") or target.isoformat())
        except ValueError:
            cur = target
        if cur != self._state_time:  # someone set the time (a patch): re-anchor on it
            self._set_clock(cur)
            return False
        visible = (cur.minute != target.minute) or (cur.hour != target.hour)
        w["time"] = target.isoformat(timespec="seconds")
        for tm in w.get("timers") or []:
            if tm.get("running"):
                tm["remaining_s"] = max(0, int(tm.get("remaining_s", 0)) - delta)
                if tm["remaining_s"] == 0:
                    tm["running"] = False
                visible = True
        sw = w.get("stopwatch")
        if sw and sw.get("running"):
            sw["elapsed_ms"] = int(sw.get("elapsed_ms", 0)) + delta * 1000
            visible = True
        ui = data.get("ui") or {}
        toast = ui.get("toast")
        if toast:
            # A toast's ttl is counted in clock ticks in the page (one per sim step); here it is
            # seconds of the phone's clock, so "ttl 2" is Android's LENGTH_SHORT (2 s). Without
            # this a toast stayed up until something else cleared it, and policies saw it for
            # steps after the sim had removed it.
            toast["ttl"] = float(toast.get("ttl", 0)) - delta
            if toast["ttl"] <= 0:
                ui["toast"] = None
                visible = True
        self._state_time = target
        if own:
            self.env.restore(json.dumps(data))
        if visible:
            self._rev += 1
        return True
