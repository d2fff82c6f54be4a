"""The phone's log of one episode, kept when the episode ends in a bridge or infrastructure fault.

Why its own module: an episode that failed for reasons that are not the policy's (an action the
bridge could not carry out, a phone that stopped answering) is only understood from what the
phone logged meanwhile — and only the lines of the apps s2r drove and of ``system_server`` (which
starts, stops and kills them) belong in the trace: the rest of a phone's log is other apps'
business.

:class:`LogCapture` (one per phone, restarted at each episode's reset) notes the phone's clock at
the episode's start (its local wall time, which ``logcat`` prints too: read with ``date`` once,
then kept as an offset from this host's clock and read again every ``CLOCK_REFRESH_S``, so an
episode's reset pays no extra round trip), the
packages the episode's screens belonged to and any bridge fault a step reported. :meth:`save`
then reads ``logcat -d -v threadtime -v year -T '<start>'`` (system/logging/logcat/logcat.cpp:
``-T`` takes ``YYYY-MM-DD hh:mm:ss.mmm``), and keeps the lines whose pid is ``system_server``'s or
one of those apps' — the pids ``pidof`` names now and those ActivityManager's own lines give
(``Start proc PID:PKG/…``, ``Process PKG (pid PID) has died``), so an app that crashed or was
restarted during the episode keeps its lines. A ``logcat`` that does not take a time for ``-T``
gets the whole dump, cut at the start time here.
"""

from __future__ import annotations

import json
import re
import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from device.adbshell import DeviceCommandError, DeviceLost

__all__ = ["LINE", "LogCapture", "filter_lines"]

LINE = re.compile(r"^(?P<stamp>(?:\d{4}-)?\d\d-\d\d \d\d:\d\d:\d\d\.\d+)\s+(?P<pid>\d+)\s+(?P<tid>\d+)\s+"
                  r"(?P<prio>[VDIWEFSA])\s")
"""One ``-v threadtime`` line (with or without the ``year`` modifier)."""
CLOCK_REFRESH_S = 600.0
"""How long the phone's clock offset from this host is trusted before ``date`` is read again
(a time-zone or daylight-saving change moves the phone's wall time)."""
_CLOCK_MARGIN = timedelta(seconds=1)  # an episode's span starts this much early: a line is never lost to rounding
_PKG = r"[A-Za-z][\w]*(?:\.[\w]+)+"
_STARTED = re.compile(rf"Start proc (\d+):({_PKG})[/ ]")
_DIED = re.compile(rf"Process ({_PKG}) \(pid (\d+)\)")


def filter_lines(text: str, pids: set[int], packages: set[str], since: str) -> tuple[list[str], set[int]]:
    """The threadtime lines of ``text`` stamped at or after ``since`` (``YYYY-MM-DD hh:mm:ss.mmm``)
    whose pid is in ``pids`` or belongs to one of ``packages`` by ActivityManager's lines.
    Returns the lines and every pid they were kept for."""
    keep = set(pids)
    for line in text.splitlines():
        for m in _STARTED.finditer(line):
            if m.group(2) in packages:
                keep.add(int(m.group(1)))
        for m in _DIED.finditer(line):
            if m.group(1) in packages:
                keep.add(int(m.group(2)))
    out: list[str] = []
    for line in text.splitlines():
        m = LINE.match(line)
        if m is None:
            continue  # "--------- beginning of main" and the like
        stamp = m.group("stamp")
        start = since if len(stamp) > 18 else since[5:]  # a logcat without -v year prints MM-DD
        if stamp < start[:len(stamp)] or int(m.group("pid")) not in keep:
            continue
        out.append(line)
    return out, keep


class LogCapture:
    """One episode's span of the phone's log (see the module docstring)."""

    def __init__(self, shell: Any):
        self.shell = shell  # the plain device.adbshell.Shell
        self.since: str | None = None
        self.packages: set[str] = set()
        self.faults: list[str] = []
        self.saved: Path | None = None
        self._offset: timedelta | None = None
        self._offset_at = 0.0

    def begin(self) -> None:
        """A new episode starts now: note the phone's clock; forget the last episode."""
        self.packages, self.faults, self.saved = set(), [], None
        now = time.monotonic()
        if self._offset is None or now - self._offset_at > CLOCK_REFRESH_S:
            self._offset, self._offset_at = self._read_offset(), now
        if self._offset is None:
            self.since = None
            return
        phone = datetime.now() + self._offset - _CLOCK_MARGIN
        self.since = phone.strftime("%Y-%m-%d %H:%M:%S.") + f"{phone.microsecond // 1000:03d}"

    def _read_offset(self) -> timedelta | None:
        """The phone's local wall time minus this host's (``date``), None when it cannot be read."""
        try:
            out = self.shell.run(["date", "+%Y-%m-%d %H:%M:%S.%N"], timeout=15).out.strip()
        except (DeviceLost, DeviceCommandError):
            return None
        if not re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3,9}", out):
            return None
        return datetime.strptime(out[:26], "%Y-%m-%d %H:%M:%S.%f") - datetime.now()

    def saw(self, package: str | None) -> None:
        """A screen of ``package`` was shown during the episode (s2r drove that app)."""
        if package and "." in package:
            self.packages.add(package)

    def fault(self, detail: str) -> None:
        """A step reported a bridge fault."""
        self.faults.append(detail[:300])

    def save(self, dest: Path, fault: str | None = None) -> dict[str, Any] | None:
        """Write ``logcat.txt`` (and ``logcat.json``: what it was cut by) into ``dest`` when the
        episode had a fault (``fault``, or a bridge fault a step reported); once per episode.
        Returns what the record says about it, None when there was nothing to save."""
        why = fault or (f"bridge: {self.faults[0]}" if self.faults else None)
        if why is None or self.saved is not None or self.since is None:
            return None
        sh = self.shell
        if not sh.alive():
            sh.wait_state("device", timeout=10)  # a loose cable comes back; a lost phone does not
        try:
            names = ["system_server", *sorted(self.packages)]
            pids = {int(w) for w in sh.run(["pidof", *names], timeout=15).out.split() if w.isdigit()}
            base = ["logcat", "-d", "-v", "threadtime", "-v", "year"]
            r = sh.run([*base, "-T", self.since], timeout=60)
            if r.rc != 0 and "time format" in r.err + r.out:  # this logcat counts lines only: all of it
                r = sh.run(base, timeout=60)
        except (DeviceLost, DeviceCommandError) as e:
            return {"error": f"logcat could not be read: {e}"[:300], "fault": why}
        lines, kept = filter_lines(r.out, pids, self.packages, self.since)
        dest.mkdir(parents=True, exist_ok=True)
        name, n = "logcat.txt", 1
        while (dest / name).exists():  # an earlier attempt's log stays
            n += 1
            name = f"logcat-{n}.txt"
        (dest / name).write_text("".join(ln + "\n" for ln in lines), encoding="utf-8")
        meta = {"file": name, "fault": why, "since": self.since, "serial": sh.serial, "packages": sorted(self.packages),
                "pids": sorted(kept), "lines": len(lines)}
        (dest / name.replace(".txt", ".json")).write_text(json.dumps(meta, indent=1), encoding="utf-8")
        self.saved = dest / name
        return meta
