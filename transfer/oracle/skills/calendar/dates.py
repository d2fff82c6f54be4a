"""How the calendar apps write dates and times, and reading a time of day back from text.

Pure functions of a date or a string (no screen): the long name of a day the app shows, the
event form's short date, the framework date picker's name for a day, and the first time of day
in a line such as "10:00 – 11:00 AM".
"""

from __future__ import annotations

import re
from datetime import date as Date
from datetime import datetime

from ...base import OracleError

MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December"]
_TIME = re.compile(r"(\d{1,2})[:.](\d{2})(?:\s*([AaPp])\.?\s?[Mm]\.?)?")


def _as_date(d: Date | datetime | str) -> Date:
    if isinstance(d, datetime):
        return d.date()
    if isinstance(d, Date):
        return d
    try:
        return datetime.fromisoformat(str(d)).date()
    except ValueError as e:
        raise OracleError(f"not a date: {d!r}") from e


def long_date(d: Date) -> str:
    """How the app names a day: 'Thursday, March 18, 2027'."""
    return f"{d:%A}, {MONTHS[d.month - 1]} {d.day}, {d.year}"


def short_date(d: Date) -> str:
    """How the event form shows a date: 'Thu, Mar 18, 2027'."""
    return f"{d:%a}, {MONTHS[d.month - 1][:3]} {d.day}, {d.year}"


def picker_day(d: Date) -> str:
    """How the framework date picker names a day: '18 March 2027' (SimpleMonthView, dd MMMM yyyy)."""
    return f"{d.day:02d} {MONTHS[d.month - 1]} {d.year}"


def parse_time(text: str) -> tuple[int, int] | None:
    """The first time of day in ``text`` as (hour, minute); a range's meridiem ("10:00 – 11:00 AM")
    applies to its start too."""
    hits = list(_TIME.finditer(text or ""))
    if not hits:
        return None
    h, m, ap = int(hits[0].group(1)), int(hits[0].group(2)), hits[0].group(3)
    if ap is None and len(hits) > 1 and hits[1].group(3) and text.find("–", hits[0].end()) >= 0:
        ap = hits[1].group(3)
    if ap is not None:
        h = h % 12 + (12 if ap.lower() == "p" else 0)
    return h, m
