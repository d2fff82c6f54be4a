"""File listings of shared storage → ``FileEntry`` records: ``stat -c`` lines and toybox ``ls -laR``.

Paths are reported under ``/sdcard`` (not ``/storage/emulated/0``), as the simulator reports them.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from actionmap.worldstate import FileEntry

from ._common import ms_to_local

__all__ = ["parse_stat_lines", "parse_ls_lr", "sdcard_path"]

_STAT_LINE = re.compile(r"^(\d+)\|(-?\d+)\|([^|]+)\|(.*)$")


def parse_stat_lines(text: str, root: str, tz: Any) -> list[FileEntry]:
    """Lines of ``stat -c '%s|%Y|%F|%n'`` → entries (paths kept as printed, under ``root``)."""
    out = []
    for line in text.split("\n"):
        m = _STAT_LINE.match(line.rstrip("\r"))
        if not m:
            continue
        size, mtime, kind, path = int(m.group(1)), int(m.group(2)), m.group(3), m.group(4)
        is_dir = kind.strip().lower() == "directory"
        out.append(FileEntry(path=sdcard_path(path, root), kind="dir" if is_dir else "file",
                             size=0 if is_dir else size, mtime=None if is_dir else ms_to_local(mtime * 1000, tz)))
    return out


_LS_HEAD = re.compile(r"^(/.*):$")
_LS_ROW = re.compile(r"^([dlcbps-])[rwxsStT-]{9}[.+@]?\s+\d+\s+\S+\s+\S+\s+(\d+)\s+"
                     r"(\d{4}-\d{2}-\d{2} \d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?: [+-]\d{4})?)\s(.*)$")


def parse_ls_lr(text: str, root: str) -> list[FileEntry]:
    """``ls -laR DIR`` (toybox format, ``YYYY-MM-DD HH:MM`` dates) → entries."""
    out: list[FileEntry] = []
    cur: str | None = None
    for line in text.split("\n"):
        line = line.rstrip("\r")
        h = _LS_HEAD.match(line)
        if h:
            cur = h.group(1).rstrip("/")
            continue
        m = _LS_ROW.match(line)
        if not m or cur is None:
            continue
        name = m.group(4)
        if m.group(1) == "l":
            name = name.split(" -> ", 1)[0]
        if name in (".", ".."):
            continue
        stamp = m.group(3)[:16]
        try:
            mt = datetime.strptime(stamp, "%Y-%m-%d %H:%M")
        except ValueError:
            mt = None
        is_dir = m.group(1) == "d"
        out.append(FileEntry(path=sdcard_path(f"{cur}/{name}", root), kind="dir" if is_dir else "file",
                             size=0 if is_dir else int(m.group(2)), mtime=None if is_dir else mt))
    return out


def sdcard_path(path: str, root: str) -> str:
    """Report every path under ``/sdcard`` (not ``/storage/emulated/0``), as the sim does."""
    p = re.sub(r"/+", "/", path)
    for alias in ("/storage/emulated/0", "/storage/self/primary", "/mnt/sdcard"):
        if p == alias or p.startswith(alias + "/"):
            p = "/sdcard" + p[len(alias):]
    return p.rstrip("/") or "/"
