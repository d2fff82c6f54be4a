"""Helpers every parser shares: line-ending repair, the parse error, and phone-clock times.

Why a module of its own: adb output reaches us through very different pipes (a PTY that
turns ``\\n`` into ``\\r\\n``, Windows hosts, logs copied from bug reports), so every parser
first normalises the text the same way, and every failure is the same typed error that a
caller (or ``s2r inspect``) can report cleanly.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

__all__ = ["ParseError", "normalize_text", "ms_to_local", "resolve_tz", "component_of", "full_activity"]


class ParseError(ValueError):
    """The text is not the command output the parser was asked to read."""


_CR_RUN = re.compile(r"\r+\n|\r")


def normalize_text(text: str | bytes) -> str:
    """Decode (UTF-8) and turn CRLF, CRCRLF (adb over a PTY) and lone CR into LF.

    Also drops a UTF-8 byte-order mark, which Windows editors add to saved captures.
    """
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode("utf-8", errors="replace")
    if not isinstance(text, str):
        raise ParseError(f"expected text, got {type(text).__name__}")
    if text.startswith("\ufeff"):
        text = text[1:]
    return _CR_RUN.sub("\n", text) if "\r" in text else text


_OFFSET = re.compile(r"^(?:UTC|GMT)?\s*([+-])(\d{1,2})(?::?(\d{2}))?$", re.I)


def resolve_tz(tz: str | tzinfo | timedelta | None) -> tzinfo:
    """A tzinfo from an IANA name (``Europe/Berlin``), an offset (``+05:30``, ``GMT+8``,
    a ``timedelta``), a tzinfo, or ``None`` (UTC)."""
    if tz is None:
        return timezone.utc
    if isinstance(tz, tzinfo):
        return tz
    if isinstance(tz, timedelta):
        return timezone(tz)
    if isinstance(tz, str):
        s = tz.strip()
        if s.upper() in ("", "UTC", "GMT", "Z"):
            return timezone.utc
        m = _OFFSET.match(s)
        if m:
            sign = -1 if m.group(1) == "-" else 1
            return timezone(sign * timedelta(hours=int(m.group(2)), minutes=int(m.group(3) or 0)))
        try:
            return ZoneInfo(s)
        except (ZoneInfoNotFoundError, ValueError) as e:
            raise ParseError(f"unknown time zone {tz!r} (use an IANA name such as 'Europe/Berlin' or an offset "
                             f"such as '+02:00')") from e
    raise ParseError(f"unsupported time zone value {tz!r}")


def ms_to_local(ms: int | str | None, tz: str | tzinfo | timedelta | None = None) -> datetime | None:
    """Epoch milliseconds (as providers store them) → naive local datetime of the phone.

    WorldState times are naive local times of the phone's own clock, so the zone the phone
    is set to (``persist.sys.timezone``) decides the wall time. ``None``/``NULL``/junk → ``None``.
    """
    if ms is None:
        return None
    try:
        v = int(str(ms).strip())
    except ValueError:
        return None
    zone = resolve_tz(tz)  # an unknown zone is the caller's error: let ParseError through
    try:
        return datetime.fromtimestamp(v / 1000, tz=zone).replace(tzinfo=None)
    except (OverflowError, OSError, ValueError):
        return None


_COMPONENT = re.compile(r"^([A-Za-z][\w.]*)/([\w.$]+)$")


def full_activity(package: str, activity: str) -> str:
    """``.Settings`` → ``com.android.settings.Settings``; a fully qualified name is kept."""
    return package + activity if activity.startswith(".") else activity


def component_of(s: str) -> tuple[str, str] | None:
    """``pkg/.Act`` or ``pkg/full.Act`` → (package, fully qualified activity); else ``None``."""
    m = _COMPONENT.match(s.strip())
    if not m:
        return None
    return m.group(1), full_activity(m.group(1), m.group(2))
