"""The backend-neutral world state that task setups write and judges read.

Every field is optional: ``None`` means *this backend cannot read it* (for example the
timer on a phone whose Clock app exposes no provider). A judge that needs a ``None`` field
returns *undetermined*, never *failed* — that is what keeps device verdicts honest.

Times are naive local datetimes of the phone's own clock (the sim's simulated clock, or the
device's ``date``), so a task written as "at 7:30" means the same thing on both backends.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
Day = Literal["mon", "tue", "wed", "thu", "fri", "sat", "sun"]


class _M(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Settings(_M):
    wifi: bool | None = None
    bluetooth: bool | None = None
    airplane_mode: bool | None = None
    mobile_data: bool | None = None
    dark_mode: bool | None = None
    do_not_disturb: bool | None = None
    location: bool | None = None
    auto_rotate: bool | None = None
    flashlight: bool | None = None
    adaptive_brightness: bool | None = None
    brightness: int | None = Field(None, ge=0, le=255)
    screen_off_timeout_ms: int | None = Field(None, ge=0)
    font_scale: float | None = Field(None, gt=0, le=3)
    ringer_mode: Literal["normal", "vibrate", "silent"] | None = None
    media_volume: int | None = Field(None, ge=0, le=25)
    device_name: str | None = None


class PhoneNumber(_M):
    number: str
    label: str = "mobile"


class Contact(_M):
    id: str | None = None
    name: str
    phones: list[PhoneNumber] = Field(default_factory=list)
    emails: list[str] = Field(default_factory=list)
    company: str = ""
    starred: bool = False
    tag: str | None = Field(None, description="Run tag of a record s2r created (device teardown removes only these).")


class Message(_M):
    id: str | None = None
    address: str
    body: str
    box: Literal["inbox", "sent", "draft", "outbox", "failed"] = "inbox"
    read: bool = True
    time: datetime | None = None


class CalendarEvent(_M):
    id: str | None = None
    title: str
    start: datetime
    end: datetime | None = None
    all_day: bool = False
    location: str = ""
    description: str = ""
    tag: str | None = None


class Alarm(_M):
    id: str | None = None
    hour: int = Field(ge=0, le=23)
    minute: int = Field(ge=0, le=59)
    enabled: bool = True
    label: str = ""
    days: list[Day] = Field(default_factory=list, description="Repeat days; empty = one-off.")
    vibrate: bool = True


class Timer(_M):
    duration_s: int = Field(ge=0)
    remaining_s: int = Field(ge=0)
    running: bool = False
    label: str = ""


class Stopwatch(_M):
    elapsed_ms: int = Field(0, ge=0)
    running: bool = False
    laps: list[int] = Field(default_factory=list)


class FileEntry(_M):
    path: str = Field(description="Absolute path under shared storage, e.g. /sdcard/Download/a.pdf.")
    kind: Literal["file", "dir"] = "file"
    size: int = Field(0, ge=0)
    mtime: datetime | None = None


class Call(_M):
    id: str | None = None
    number: str
    name: str = ""
    kind: Literal["incoming", "outgoing", "missed", "rejected", "blocked", "voicemail"] = "incoming"
    time: datetime | None = None
    duration_s: int = Field(0, ge=0)


class DeviceInfo(_M):
    manufacturer: str | None = None
    model: str | None = None
    android_version: str | None = None
    sdk: int | None = None
    build: str | None = None


class ForegroundState(_M):
    app: str | None = None
    package: str | None = None
    activity: str | None = Field(None, description="Activity on a phone, route in the sim.")


class WorldState(_M):
    """Everything a task may set up or check, on any backend."""

    time: datetime | None = Field(None, description="The phone's local clock.")
    settings: Settings = Field(default_factory=Settings)
    contacts: list[Contact] | None = None
    messages: list[Message] | None = None
    events: list[CalendarEvent] | None = None
    alarms: list[Alarm] | None = None
    timers: list[Timer] | None = None
    stopwatch: Stopwatch | None = None
    world_clocks: list[str] | None = Field(None, description="World-clock city names.")
    files: list[FileEntry] | None = None
    calls: list[Call] | None = None
    dialer_number: str | None = Field(None, description="Digits currently entered on the dial pad.")
    calculator_display: str | None = None
    device: DeviceInfo = Field(default_factory=DeviceInfo)
    foreground: ForegroundState = Field(default_factory=ForegroundState)
    clipboard: str | None = None
    hidden: dict[str, list[str]] = Field(
        default_factory=dict,
        description="Record values this backend cannot see, as 'kind.field' → values: {'messages.box': "
                    "['draft', 'outbox', 'failed', 'queued']} on a stock phone, whose shell reads SMS through the "
                    "restricted view. A check about such records is undetermined, never failed or passed.")

    def get_path(self, path: str) -> Any:
        """Read a dotted path (``settings.wifi``, ``alarms``); ``None`` when unknown."""
        cur: Any = self
        for part in path.split("."):
            if cur is None:
                return None
            if isinstance(cur, BaseModel):
                cur = getattr(cur, part, None)
            elif isinstance(cur, dict):
                cur = cur.get(part)
            elif isinstance(cur, list) and part.isdigit():
                i = int(part)
                cur = cur[i] if i < len(cur) else None
            else:
                return None
        return cur


_RECORD_KEYS: dict[str, tuple[str, ...]] = {
    "contacts": ("id", "name"),
    "messages": ("id", "address", "time", "body"),
    "events": ("id", "title", "start"),
    "alarms": ("id", "hour", "minute", "label"),
    "timers": ("duration_s", "label"),
    "files": ("path",),
    "calls": ("id", "number", "time"),
}


def record_key(kind: str, rec: dict[str, Any]) -> str:
    """A stable key for a list record: its id when it has one, else its natural key."""
    keys = _RECORD_KEYS.get(kind, ())
    if "id" in keys and rec.get("id") is not None:
        return f"id={rec['id']}"
    return "|".join(str(rec.get(k)) for k in keys if k != "id")


def flatten(state: WorldState | dict[str, Any]) -> dict[str, Any]:
    """Flatten to ``path → scalar``; list records are keyed, so reordering is not a change.

    Paths look like ``settings.wifi``, ``alarms[id=3].enabled``, ``world_clocks[Tokyo]``.
    Unknown (``None``) values are left out: an unknown field never counts as a change.
    """
    data = state.model_dump(mode="json") if isinstance(state, BaseModel) else state
    out: dict[str, Any] = {}

    def walk(prefix: str, v: Any, kind: str = "") -> None:
        if v is None:
            return
        if isinstance(v, dict):
            for k, sub in v.items():
                walk(f"{prefix}.{k}" if prefix else k, sub, k if not prefix else kind)
        elif isinstance(v, list):
            if not v and kind in _RECORD_KEYS:
                return  # an empty record list holds no paths; its records appearing are the change
            if all(not isinstance(x, (dict, list)) for x in v):
                if kind in ("world_clocks",) and prefix == kind:
                    for x in v:
                        out[f"{prefix}[{x}]"] = True
                else:
                    out[prefix] = list(v)
                return
            seen: dict[str, int] = {}
            for rec in v:
                key = record_key(kind, rec) if isinstance(rec, dict) else str(rec)
                n = seen.get(key, 0)
                seen[key] = n + 1
                walk(f"{prefix}[{key}{'#' + str(n) if n else ''}]", rec, kind)
        else:
            out[prefix] = v

    walk("", data)
    return out


class Change(BaseModel):
    path: str
    before: Any = None
    after: Any = None


def diff(before: WorldState | dict[str, Any], after: WorldState | dict[str, Any]) -> list[Change]:
    """Field-level differences between two states (paths as in :func:`flatten`).

    A section that is unknown (``None``) on either side is not compared: a backend that
    cannot read alarms has not changed them.
    """
    da = before.model_dump(mode="json") if isinstance(before, BaseModel) else before
    db = after.model_dump(mode="json") if isinstance(after, BaseModel) else after
    unknown = {k for k in set(da) | set(db) if da.get(k) is None or db.get(k) is None}
    a, b = flatten(da), flatten(db)
    out = []
    for p in sorted(set(a) | set(b)):
        if p.split(".", 1)[0].split("[", 1)[0] in unknown:
            continue
        if p not in b and "[" not in p:
            continue  # a scalar that became unreadable is unknown, not changed
        if a.get(p) != b.get(p):
            out.append(Change(path=p, before=a.get(p), after=b.get(p)))
    return out


_record_key = record_key  # backward-compatible name
