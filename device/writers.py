"""Task setup on a real phone — and the teardown that leaves it exactly as it was.

A ``StatePatch`` only *sets settings* and *adds records* (see :mod:`actionmap.patch`). On a
phone that belongs to a person, both must be undone:

* **Settings** are read before they are changed; the old value is written to a journal
  *before* the change, and teardown puts it back (by the same mechanism: ``svc``/``cmd``
  where the setting is a live radio or service, ``settings put`` otherwise; a key that was
  unset is deleted again).
* **Records** carry the run tag ``[s2r-xxxxxxxx]`` in a field that round-trips through the
  provider and that the app does not show as the record's name:

  ========  ====================================================================
  kind      where the tag lives
  ========  ====================================================================
  contacts  a Note data row (``vnd.android.cursor.item/note``, ``data1``)
  events    appended to ``description`` in the *invisible* form (readers strip it
            and fill ``tag``)
  messages  the ``subject`` column of ``content://sms``
  calls     the ``transcription`` column of ``content://call_log/calls``
  alarms    appended to the label, invisible form (readers strip it; observations
            show labels without it)
  timers    appended to the label, invisible form
  files     the first bytes of the file's content (``s2r-tag:[s2r-…]``); the path is
            also journalled, and a file that existed before setup is never written
  ========  ====================================================================

  The visible form is ``[s2r-1a2b3c4d]``; the invisible form (for text a person sees in an
  app) is U+2063 followed by the tag's hex digits in zero-width characters — fonts draw
  nothing, so a screenshot of the Clock app shows "Gym", not "Gym [s2r-…]" (see
  :func:`device.readers.invisible_marker`).

  Teardown deletes *only* records whose tag field carries a marker (by ``_id``, after
  reading the marker back) — never a record without one. Where a backend drops the tag
  column, the journal keeps the new row's ``_id`` and its content, and teardown deletes
  that id only if the row still holds exactly what setup wrote.
* Alarms have no provider: teardown finds the tagged ones in the Clock app's list through the
  Clock driver (:class:`device.readers.ClockScreen`: cards by role, collapsed or expanded, in the
  app's family) and taps their Delete; a delete counts only when the list changed, and the loop
  ends on a scan of the whole list that finds none. An alarm it cannot delete — or cannot check,
  when the list does not show — is never silent: it is a leftover
  (:attr:`TeardownReport.leftovers`, also said in ``left``), which the end-of-run audit counts.
* The journal lives on the host (``~/.cache/s2r/device-journal/<serial>.json``), written
  after every change, so a crashed run is cleaned up the next time the phone is used.
* Destructive resets (``pm clear`` of a provider, wiping shared storage) run only with
  ``destructive=True``, meant for dedicated test phones.

The phone's clock is never set: ``StatePatch.time`` is ignored on devices (reported in
:attr:`SetupReport.ignored`).
"""

from __future__ import annotations

import os
import re
import secrets
import struct
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from pydantic import BaseModel, Field

from actionmap.apps import registry
from actionmap.patch import StatePatch
from actionmap.worldstate import Alarm, CalendarEvent, Call, Contact, FileEntry, Message, Timer
from device.adbshell import DeviceCommandError, DeviceLost, Shell
from device.parsers import ParseError, parse_settings_get
from device.readers import (MIME_NOTE, URI_CALENDARS, URI_CALLS, URI_CONTACT_DATA, URI_EVENTS, URI_RAW_CONTACTS,
                            URI_SMS, AlarmCard, ClockScreen, UIProbe, content_query, has_tag, open_alarm_list,
                            invisible_marker, local_to_ms, marker, probe_alarms, probe_family, read_setting, strip_tag,
                            utc_midnight_ms, read_setting_service, ServiceUnavailable, SERVICE_MIRRORED)

__all__ = [
    "new_tag", "SettingsJournal", "RawSetting", "Journal", "SetupReport", "TeardownReport", "SetupError",
    "DeviceWriter", "real_world_effects", "set_setting", "current_setting", "delete_rows_verified", "FILE_TAG_PREFIX", "journal_dir",
]

FILE_TAG_PREFIX = b"s2r-tag:"
_MIME_NAME = "vnd.android.cursor.item/name"
_MIME_PHONE = "vnd.android.cursor.item/phone_v2"
_MIME_EMAIL = "vnd.android.cursor.item/email_v2"
_MIME_ORG = "vnd.android.cursor.item/organization"
_PHONE_TYPES = {"home": 1, "mobile": 2, "work": 3, "work_fax": 4, "home_fax": 5, "pager": 6, "other": 7,
                "callback": 8, "car": 9, "company_main": 10, "isdn": 11, "main": 12, "other_fax": 13, "radio": 14,
                "telex": 15, "tty_tdd": 16, "work_mobile": 17, "work_pager": 18, "assistant": 19, "mms": 20}
_SMS_TYPES = {"inbox": 1, "sent": 2, "draft": 3, "outbox": 4, "failed": 5}
_CALL_TYPES = {"incoming": 1, "outgoing": 2, "missed": 3, "voicemail": 4, "rejected": 5, "blocked": 6}
_CAL_DAYS = {"sun": 1, "mon": 2, "tue": 3, "wed": 4, "thu": 5, "fri": 6, "sat": 7}  # java.util.Calendar


def new_tag() -> str:
    """A fresh run tag, e.g. ``s2r-1a2b3c4d``."""
    return "s2r-" + secrets.token_hex(4)


def journal_dir() -> Path:
    """Where journals live: ``$S2R_DEVICE_JOURNAL`` or ``~/.cache/s2r/device-journal``."""
    return Path(os.environ.get("S2R_DEVICE_JOURNAL") or Path.home() / ".cache" / "s2r" / "device-journal")


class SetupError(RuntimeError):
    """The setup cannot be reproduced on this phone (the episode would be judged on a wrong start).

    ``unsupported`` is True when the reason is a capability this backend lacks (no API writes
    a world clock, a setting needs root): trying again, here or on another phone of the same
    kind, cannot help, so a runner reports the episode apart instead of retrying it as an
    infrastructure fault.
    """

    def __init__(self, message: str, *, unsupported: bool = False):
        super().__init__(message)
        self.unsupported = unsupported


# ============================================================================ settings
class RawSetting(BaseModel):
    namespace: str
    key: str
    old: str | None = Field(description="Value before s2r changed it; None = the key was unset.")


class SettingsJournal(BaseModel):
    """Raw ``settings put`` changes with their previous values (first change of a key wins)."""

    entries: list[RawSetting] = Field(default_factory=list)

    def put(self, shell: Shell, namespace: str, key: str, value: str, on_record: Callable[[], None] | None = None) -> bool:
        if not any(e.namespace == namespace and e.key == key for e in self.entries):
            old = parse_settings_get(shell.out(["settings", "get", namespace, key]))
            self.entries.append(RawSetting(namespace=namespace, key=key, old=old))
            if on_record:
                on_record()
        r = shell.run(["settings", "put", namespace, key, value])
        return r.rc in (0, None) and "Exception" not in r.text

    def restore(self, shell: Shell) -> list[str]:
        problems = []
        for e in reversed(self.entries):
            argv = (["settings", "delete", e.namespace, e.key] if e.old is None
                    else ["settings", "put", e.namespace, e.key, e.old])
            r = shell.run(argv)
            now = parse_settings_get(shell.out(["settings", "get", e.namespace, e.key]))
            if now != e.old:
                problems.append(f"{e.namespace}/{e.key}: wanted {e.old!r}, still {now!r} ({r.text.strip()[:100]})")
        self.entries.clear()
        return problems


def _onoff(v: bool) -> str:
    return "1" if v else "0"


# field → (raw namespace, key, encoder) for the settings-provider fallback
_RAW: dict[str, tuple[str, str, Callable[[Any], str]]] = {
    "wifi": ("global", "wifi_on", _onoff),
    "bluetooth": ("global", "bluetooth_on", _onoff),
    "airplane_mode": ("global", "airplane_mode_on", _onoff),
    "mobile_data": ("global", "mobile_data", _onoff),
    "dark_mode": ("secure", "ui_night_mode", lambda v: "2" if v else "1"),
    "do_not_disturb": ("global", "zen_mode", lambda v: "1" if v else "0"),
    "location": ("secure", "location_mode", lambda v: "3" if v else "0"),
    "auto_rotate": ("system", "accelerometer_rotation", _onoff),
    "adaptive_brightness": ("system", "screen_brightness_mode", _onoff),
    "brightness": ("system", "screen_brightness", str),
    "screen_off_timeout_ms": ("system", "screen_off_timeout", str),
    "font_scale": ("system", "font_scale", lambda v: repr(float(v))),
    "ringer_mode": ("global", "mode_ringer", lambda v: {"silent": "0", "vibrate": "1", "normal": "2"}[v]),
    "media_volume": ("system", "volume_music_speaker", str),
    "device_name": ("global", "device_name", str),
}


def _commands(field: str, v: Any) -> list[list[str]]:
    """The service commands that change a *live* setting (a radio, a mode), newest first.

    Writing ``wifi_on`` alone would leave the radio untouched on a real phone, so the
    service is asked first and the provider key is the fallback (and what we verify).
    """
    on = bool(v)
    table: dict[str, list[list[str]]] = {
        "wifi": [["svc", "wifi", "enable" if on else "disable"]],
        "bluetooth": [["cmd", "bluetooth_manager", "enable" if on else "disable"],
                      ["svc", "bluetooth", "enable" if on else "disable"]],
        "airplane_mode": [["cmd", "connectivity", "airplane-mode", "enable" if on else "disable"]],
        "mobile_data": [["svc", "data", "enable" if on else "disable"]],
        "dark_mode": [["cmd", "uimode", "night", "yes" if on else "no"]],
        "do_not_disturb": [["cmd", "notification", "set_dnd", "priority" if on else "off"]],
        "location": [["cmd", "location", "set-location-enabled", "true" if on else "false"]],
        "media_volume": [["cmd", "media_session", "volume", "--stream", "3", "--set", str(v)]],
        "ringer_mode": _RINGER_COMMANDS.get(v, []) if isinstance(v, str) else [],
    }
    return table.get(field, [])


#: How the shell user switches AudioService's ringer (frameworks/base services/core/java/com/
#: android/server/audio/): ``cmd audio set-ringer-mode`` (AudioManagerShellCommand, Android 15;
#: before it the verb is unknown and the command silently does nothing, which the verification
#: catches), else the ring stream through MediaShellCommand's VolumeCtrl — AudioService maps ring
#: volume 0 to VIBRATE (``getNewRingerMode``) and a raise in VIBRATE back to NORMAL without moving
#: the index (``checkForRingerModeChange``; a ring volume left at 0 comes back as 1). Into or out
#: of SILENT the volume path is refused to the shell ("Not allowed to change Do Not Disturb
#: state"), so there only ``set-ringer-mode`` works.
_RINGER_COMMANDS: dict[str, list[list[str]]] = {
    "normal": [["cmd", "audio", "set-ringer-mode", "NORMAL"],
               ["cmd", "media_session", "volume", "--stream", "2", "--adj", "raise"]],
    "vibrate": [["cmd", "audio", "set-ringer-mode", "VIBRATE"],
                ["cmd", "media_session", "volume", "--stream", "2", "--set", "0"]],
    "silent": [["cmd", "audio", "set-ringer-mode", "SILENT"]],
}
#: A service applies these synchronously (the mode is set before the command returns): a short look.
_VERIFY_AT_ONCE = {"ringer_mode": 0.75}
_AUDIO_REFUSED = re.compile(r"Not allowed to change Do Not Disturb state")


_CMD_FAILED = re.compile(r"(Unknown command|Unknown option|inaccessible or not found|not found|Exception|Error:|"
                         r"usage:|Usage:|Can't find service)")
_CMD_MISSING = re.compile(r"(Unknown command|Unknown option|inaccessible or not found|Can't find service|"
                          r"No shell command implementation)")


def current_setting(shell: Shell, field: str) -> Any:
    """A setting as the system has it: the service's own status for fields that mirror a service
    (a raw key can disagree with the radio on a stock phone), the provider key otherwise; the key
    also where this release lacks the status command."""
    if field in SERVICE_MIRRORED:
        try:
            return read_setting_service(shell, field)
        except ServiceUnavailable:
            pass
    return read_setting(shell, field)


def set_setting(shell: Shell, field: str, value: Any, raw: SettingsJournal,
                on_record: Callable[[], None] | None = None, verify_s: float = 3.0) -> str:
    """Set one ``WorldState.settings`` field and verify it through the authority the system uses.

    A field that mirrors a service (Wi-Fi, Bluetooth, airplane mode, mobile data, dark mode, Do
    Not Disturb, location, media volume, the ringer) is changed only by the service's own command and
    verified by the service's own status (:func:`current_setting`): on a stock phone a raw
    ``settings put wifi_on`` switches no radio, and ZenModeHelper writes ``zen_mode`` straight
    back, so a raw write would only *look* done. Other fields are plain provider keys
    (``settings put``, read back). Returns how it was set; raises ``SetupError`` — *unsupported*
    when this release has none of the commands — when nothing took effect.
    """
    if field not in _RAW:
        raise SetupError(f"setting {field!r} cannot be set over ADB without root", unsupported=True)
    if field in SERVICE_MIRRORED:
        tried: list[str] = []
        missing = 0
        for argv in _commands(field, value):
            r = shell.run(argv)
            text = r.text.strip()
            if r.rc not in (0, None) or _CMD_FAILED.search(text) or _CMD_MISSING.search(text):
                # a refusal by the service (this release cannot do it for the shell) counts as missing
                missing += bool(_CMD_MISSING.search(text) or _AUDIO_REFUSED.search(text))
                why = (r.err or "").strip() or text  # MediaShellCommand prints its help on stdout first
                tried.append(f"`{' '.join(argv)}`: {why.splitlines()[-1][:100] if why else f'exit {r.rc}'}")
                continue
            if _wait_for(lambda: current_setting(shell, field) == value, min(verify_s, _VERIFY_AT_ONCE.get(field, verify_s))):
                return "cmd: " + " ".join(argv)
            now = current_setting(shell, field)
            missing += field in _VERIFY_AT_ONCE and not text  # ran silently and did nothing: not on this release
            tried.append(f"`{' '.join(argv)}` ran, but the service still reports {now!r}")
        n = len(_commands(field, value))
        raise SetupError(f"setting {field}={value!r} did not take effect: " + "; ".join(tried),
                         unsupported=n > 0 and missing == n)
    ns, key, enc = _RAW[field]
    raw.put(shell, ns, key, enc(value), on_record)
    if _wait_for(lambda: read_setting(shell, field) == value, verify_s):
        return f"settings put {ns} {key} {enc(value)}"
    raise SetupError(f"setting {field}={value!r} did not take effect (read back {read_setting(shell, field)!r})")


def _wait_for(pred: Callable[[], bool], timeout: float, step: float = 0.25) -> bool:
    t0 = time.monotonic()
    while True:
        if pred():
            return True
        if time.monotonic() - t0 >= timeout:
            return False
        time.sleep(step)


# ============================================================================ journal
class SettingChange(BaseModel):
    field: str
    old: Any = None
    new: Any = None
    how: str = ""


class CreatedRow(BaseModel):
    """A provider row setup created: found again by its marker, or by id + content."""

    kind: str
    uri: str
    id: str
    content: dict[str, str] = Field(default_factory=dict, description="Column values to re-check before deleting.")
    tagged: bool = True


class CreatedFile(BaseModel):
    path: str
    size: int
    head: str = Field("", description="Hex of the first bytes written (the tag marker).")


class Journal(BaseModel):
    """Everything one setup changed on one phone, persisted so a crash can be undone later."""

    serial: str
    tag: str
    started_at: float = Field(default_factory=time.time)
    settings: list[SettingChange] = Field(default_factory=list)
    raw: SettingsJournal = Field(default_factory=SettingsJournal)
    rows: list[CreatedRow] = Field(default_factory=list)
    files: list[CreatedFile] = Field(default_factory=list)
    dirs: list[str] = Field(default_factory=list)
    alarm_labels: list[str] = Field(default_factory=list)
    timer_labels: list[str] = Field(default_factory=list)
    clipboard_old: str | None = None
    clipboard_set: bool = False
    episode_marks: dict[str, int] = Field(
        default_factory=dict, description="Highest provider _id per kind once setup was done: rows above it that "
                                          "the episode itself wrote are undone at teardown (see EPISODE_ROWS).")
    alarms_at_start: list[tuple[int, int, str]] | None = Field(
        None, description="(hour, minute, label) of every alarm the start-of-episode probe saw; on a "
                          "dedicated test phone, alarms beyond these are the episode's and are deleted.")
    settings_at_start: dict[str, Any] | None = Field(
        None, description="Every settable setting once setup was done: what the episode changes is put back.")
    permissions_at_start: dict[str, dict[str, list[Any]]] | None = Field(
        None, description="Runtime permissions ({package: {permission: [granted, flags]}}) of the apps s2r "
                          "drives once setup was done: a prompt the policy answered is undone at teardown.")
    sms_read_at_start: dict[int, str] | None = Field(
        None, description="The read flag of every SMS the shell could see once setup was done: opening a "
                          "conversation marks the phone's own messages read, and teardown puts the flags back.")
    files_at_start: list[tuple[str, int]] | None = Field(
        None, description="(path, size) of shared-storage files once setup was done (dedicated test phones): "
                          "files the episode moved are moved back, files it added are removed.")
    path: str | None = Field(None, exclude=True)

    def save(self) -> None:
        if not self.path:
            return
        p = Path(self.path)
        p.parent.mkdir(parents=True, exist_ok=True)
        tmp = p.with_suffix(".tmp")
        tmp.write_text(self.model_dump_json(indent=1), encoding="utf-8")
        tmp.replace(p)

    def discard(self) -> None:
        if self.path and Path(self.path).exists():
            Path(self.path).unlink()

    @classmethod
    def load(cls, path: Path) -> "Journal | None":
        try:
            j = cls.model_validate_json(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        j.path = str(path)
        return j

    @property
    def empty(self) -> bool:
        return not (self.settings or self.raw.entries or self.rows or self.files or self.dirs or self.alarm_labels
                    or self.timer_labels or self.clipboard_set)


class SetupReport(BaseModel):
    tag: str
    applied: list[str] = Field(default_factory=list)
    ignored: list[str] = Field(default_factory=list, description="Parts of the patch devices do not apply.")
    failed: list[str] = Field(default_factory=list)
    unsupported: list[str] = Field(default_factory=list,
                                   description="Failures that are capabilities this backend lacks (also in failed).")
    timings_ms: dict[str, float] = Field(default_factory=dict)


class TeardownReport(BaseModel):
    tag: str
    removed: dict[str, int] = Field(default_factory=dict)
    restored: list[str] = Field(default_factory=list)
    left: list[str] = Field(default_factory=list, description="What could not be undone (tell the user).")
    leftovers: list[str] = Field(default_factory=list,
                                 description="Records no provider lists (alarms, timers) that s2r's setup or the "
                                             "episode created and teardown could not delete, one entry each (each "
                                             "also said in `left`): the run's audit counts them as leftovers.")
    unverified: list[str] = Field(default_factory=list,
                                  description="What teardown could not check (an alarm list it could not read): "
                                              "the run's audit lists them as not readable.")


# ============================================================================ safety
def real_world_effects(instance: Any) -> list[tuple[str, str | None]]:
    """Goals that need the phone to act on the outside world: ``(what, address or None)``.

    A message goal that is not limited to drafts means an SMS is sent; a call goal that is
    not limited to incoming kinds means a call is placed. Detected from the instance's goals
    (and apps) so a real phone can refuse the task unless the address is a test recipient.
    """
    out: list[tuple[str, str | None]] = []
    for g in getattr(instance, "goals", []) or []:
        if getattr(g, "check", None) != "record" or g.kind not in ("messages", "calls"):
            continue
        spec = {**g.match, **g.expect}
        if g.op == "absent":
            continue
        if g.kind == "messages":
            box = spec.get("box")
            boxes = box.get("value") if isinstance(box, dict) else box
            boxes = boxes if isinstance(boxes, list) else [boxes] if boxes is not None else ["sent"]
            if set(boxes) <= {"draft", "inbox"}:
                continue
            addr = spec.get("address")
            out.append(("sends an SMS", addr.get("value") if isinstance(addr, dict) else addr))
        else:
            kind = spec.get("kind")
            kinds = kind.get("value") if isinstance(kind, dict) else kind
            kinds = kinds if isinstance(kinds, list) else [kinds] if kinds is not None else ["outgoing"]
            if "outgoing" not in kinds:
                continue
            num = spec.get("number")
            out.append(("places a call", num.get("value") if isinstance(num, dict) else num))
    return out


def _digits(s: str | None) -> str:
    return "".join(c for c in (s or "") if c.isdigit())


def refusal_reason(instance: Any, test_recipient: str | None) -> str | None:
    """Why a real phone must not run this instance (None = safe)."""
    effects = real_world_effects(instance)
    if not effects:
        return None
    if not test_recipient:
        what = ", ".join(sorted({w for w, _ in effects}))
        return (f"task {getattr(instance, 'instance_id', '?')} {what} on a real phone; configure a test recipient "
                f"(a phone you own) to allow it")
    want = _digits(test_recipient)
    bad = [a for _, a in effects if a is None or not _digits(a).endswith(want[-9:])]
    if bad:
        return f"task would contact {bad} which is not the configured test recipient {test_recipient!r}"
    return None


__all__ += ["refusal_reason"]


# ============================================================================ the episode's own rows
EPISODE_ROWS: dict[str, tuple[str, str | None, tuple[str, ...] | None]] = {
    "messages": (URI_SMS, "type", ("2", "3", "4", "5", "6")),  # sent, draft, outbox, failed, queued — not inbox
    "calls": (URI_CALLS, "type", ("2",)),                     # outgoing calls only
}
"""What a policy writes through the apps during an episode, found as rows above the marks that
:meth:`DeviceWriter.mark_episode` takes once setup is done: ``kind -> (uri, column, values)``;
only rows whose ``column`` holds one of ``values`` (None = any row) count as the episode's.
Texts and calls going *out* while s2r drives the phone are the policy's; one that *arrives*
meanwhile is never touched. Without this undo, a text sent in one episode would be "the latest
message" of the next one on the same phone."""

EPISODE_ROWS_DESTRUCTIVE: dict[str, tuple[str, str | None, tuple[str, ...] | None]] = {
    "events": (URI_EVENTS, None, None),
    "contacts": (URI_RAW_CONTACTS, None, None),
}
"""Also undone on dedicated test phones (``destructive=True``) only: any new event or contact —
on a person's phone one may come from the user or a sync adapter, so it is left alone there."""


# ============================================================================ the writer
#: From this API level (Android 11) ``content`` splits a binding on every unescaped ``:``.
ESCAPED_BINDINGS_SDK = 30
SdkSource = int | Callable[[], int | None] | None
"""The phone's API level, or a function that finds it (asked only when a value needs it), or unknown."""


def _escape_binding(text: str, sdk: int | None) -> str:
    """A column or value as ``content --bind`` of API ``sdk`` reads it back literally.

    frameworks/base cmds/content/src/com/android/commands/content/Content.java: from Android 11
    ``parseBindValue`` splits the whole binding with ``splitWithEscaping(argument, ':')`` and
    wants exactly three parts — ``\\`` makes the next character literal and is removed — so
    ``\\`` and ``:`` are escaped. Up to Android 10 the value is ``argument.substring(
    secondColonIndex + 1)``, taken as it is: nothing to escape (columns never hold a colon). An
    unknown level is taken as 11+ (a Q phone would then keep the backslashes, and the row
    read back after the insert would not match what was written)."""
    if sdk is not None and sdk < ESCAPED_BINDINGS_SDK:
        return text
    return text.replace("\\", "\\\\").replace(":", "\\:")


def _bind(col: str, value: Any, sdk: int | None = None) -> list[str]:
    """One ``--bind col:type:value`` (one argv word: quoting makes any text safe; the colons and
    backslashes of the text are escaped by the phone's rule, :func:`_escape_binding`)."""
    c = _escape_binding(col, sdk)
    if value is None:
        return ["--bind", f"{c}:n:"]
    if isinstance(value, bool):
        return ["--bind", f"{c}:i:{int(value)}"]
    if isinstance(value, int):
        return ["--bind", f"{c}:{'l' if abs(value) > 2**31 - 1 else 'i'}:{value}"]
    return ["--bind", f"{c}:s:{_escape_binding(str(value), sdk)}"]


#: What a failed ``content`` prints, whatever its exit status (``Content.main`` returns normally,
#: so the tool exits 0 after a bad binding and after a provider's exception alike).
_USAGE_ERROR = re.compile(r"^\[ERROR\] .*$", re.M)  # Parser.parseCommand: USAGE, then "[ERROR] " + message
_USAGE_TEXT = re.compile(r"^usage: adb shell content ", re.M)
_PROVIDER_FAILURE = re.compile(r"^Error while accessing provider:.*$", re.M)  # Command.execute's catch
_EXCEPTION_LINE = re.compile(r"^\s*(?:Caused by: )?(?:[A-Za-z_$][\w$]*\.)+[A-Za-z_$][\w$]*(?:Exception|Error)\b.*$",
                             re.M)


def content_failure(r: Any) -> str | None:
    """The phone's words when a ``content`` answer (a :class:`~device.adbshell.ShellResult`) is a
    failure — an ``[ERROR]`` line, the usage text, ``Error while accessing provider`` or an
    exception line, or a non-zero exit status — else None. ``content`` prints nothing when an
    insert, update or delete succeeds."""
    text = r.text or ""
    m = _USAGE_ERROR.search(text)
    if m:
        return m.group(0).strip()
    if _USAGE_TEXT.search(text):
        return "content printed its usage: " + text.strip()[-200:]
    head = _PROVIDER_FAILURE.search(text)
    exc = _EXCEPTION_LINE.search(text)
    if head or exc:
        return " ".join(x.group(0).strip() for x in (head, exc) if x)[:400]
    if r.rc not in (0, None) or re.search(r"(Permission Denial|Unknown URI)", text):
        return text.strip()[:300] or f"exit status {r.rc}"
    return None


def _content_insert(shell: Shell, uri: str, values: dict[str, Any], sdk: SdkSource = None) -> None:
    """``content insert`` one row; :class:`SetupError` with the phone's words when it did not take.
    ``sdk`` decides how the bindings are escaped; a function is asked only when a value has a
    ``:`` or ``\\`` (the rules of all versions agree on every other text)."""
    if callable(sdk):
        needs = any(isinstance(v, str) and (":" in v or "\\" in v) for v in (*values, *values.values()))
        sdk = sdk() if needs else None
    argv = ["content", "insert", "--uri", uri]
    for k, v in values.items():
        argv += _bind(k, v, sdk)
    r = shell.run(argv)
    why = content_failure(r)
    if why is not None:
        raise SetupError(f"content insert {uri} failed: {why}")


def _insert_tagged(shell: Shell, uri: str, values: dict[str, Any], tag_col: str, mark: str,
                   sdk: SdkSource = None) -> None:
    """Insert with the tag column; a provider without that column gets the row untagged
    (the journal then identifies it by id and content)."""
    try:
        _content_insert(shell, uri, {**values, tag_col: mark}, sdk)
    except SetupError as e:
        if "no column named" not in str(e) and "no such column" not in str(e):
            raise
        _content_insert(shell, uri, values, sdk)


def _max_id(shell: Shell, uri: str) -> int:
    try:
        rows = content_query(shell, uri, ("_id",))
    except ParseError:
        return 0
    return max((int(r["_id"]) for r in rows if r.get("_id") and str(r["_id"]).isdigit()), default=0)


_WHY_LEFT = {
    "messages": "the telephony provider ignored the delete (the shell's WRITE_SMS app-op is not allow; "
                "--grant-appops lets s2r remove texts on a dedicated test phone)",
    "episode messages": "the telephony provider ignored the delete (the shell's WRITE_SMS app-op is not allow; "
                        "--grant-appops lets s2r remove texts on a dedicated test phone)",
}


def delete_rows_verified(shell: Shell, kind: str, uri: str, ids: Sequence[int], rep: "TeardownReport",
                         *, delete_uri: str | None = None) -> int:
    """Delete rows by ``_id`` and query again: only rows proven gone count as removed; the rest
    go to ``rep.left`` with the reason. A row the provider only marked ``deleted=1`` (an event
    of a synced calendar, removed at the next sync) counts as gone. Returns how many are gone."""
    ids = sorted({int(i) for i in ids})
    if not ids:
        return 0
    where = "_id IN (" + ",".join(map(str, ids)) + ")"
    # one delete for all of them: `content` starts a Java runtime per call on a phone
    shell.run(["content", "delete", "--uri", delete_uri or uri, "--where", where])
    cols: tuple[str, ...] = ("_id", "deleted") if uri.startswith("content://com.android.calendar") else ("_id",)
    try:
        still = [r for r in content_query(shell, uri, cols, where=where) if (r.get("deleted") or "0") != "1"]
    except ParseError as e:
        rep.left.append(f"{kind}: could not check the deletes of {len(ids)} row(s) ({e})"[:300])
        return 0
    left = sorted(int(r["_id"]) for r in still if str(r.get("_id") or "").isdigit())
    gone = len(ids) - len(left)
    if gone:
        rep.removed[kind] = rep.removed.get(kind, 0) + gone
    if left:
        rep.left.append(f"{kind} {', '.join(map(str, left))} still on the phone after delete: "
                        + _WHY_LEFT.get(kind, "the provider did not delete it"))
    return gone


class DeviceWriter:
    """Applies ``StatePatch`` setups to one phone and undoes them (see the module docstring)."""

    def __init__(self, shell: Shell, *, family: str = "aosp", tz: str | None = None,
                 journal_root: Path | None = None, ui: UIProbe | None = None,
                 clipboard: tuple[Callable[[], str | None], Callable[[str], None]] | None = None,
                 destructive: bool = False, existing_files_ok: bool = False):
        self.shell = shell
        self.existing_files_ok = existing_files_ok
        self.family = family
        self.tz = tz
        self.root = journal_root or journal_dir()
        self.ui = ui
        self.clipboard = clipboard
        self.destructive = destructive
        # what the session found it may do (DeviceEnv fills these in; None = not known: try and verify)
        self.sms_writable: bool | None = None
        self.sms_why = ""
        self.restricted_sms = True  # the shell sees only inbox and sent SMS (not root)
        #: the phone's API level (preflight's ``sdk``); None: read from the phone when a binding needs it
        self.sdk: int | None = None
        self.calendar_id: str | None = None
        self.calendar_why = "no calendar s2r may write into (none created this session)"
        self._perm_packages: list[str] | None = None  # the apps s2r drives that this phone has
        self._perm_baseline: dict[str, dict[str, list[Any]]] | None = None
        #: every teardown's leftovers and unverified parts this session (alarms, timers: no provider
        #: shows them to the end-of-run audit, so the audit takes them from here — device.audit)
        self.leftovers: list[str] = []
        self.unverified: list[str] = []

    def _phone_sdk(self) -> int | None:
        """The phone's API level (how ``content`` reads a binding): :attr:`sdk`, else
        ``ro.build.version.sdk`` read once; None if the phone does not say."""
        if self.sdk is None:
            try:
                self.sdk = int(self.shell.getprop("ro.build.version.sdk"))
            except (ValueError, DeviceCommandError):
                return None
        return self.sdk

    # --- journal on disk ---------------------------------------------------------------------
    def journal_path(self) -> Path:
        return self.root / (re.sub(r"[^A-Za-z0-9_.-]", "_", self.shell.serial) + ".json")

    def pending(self) -> Journal | None:
        """A journal left by a run that did not tear down (crash, lost device)."""
        p = self.journal_path()
        return Journal.load(p) if p.exists() else None

    # --- setup ---------------------------------------------------------------------------------
    def apply(self, patch: StatePatch | dict[str, Any] | None, tag: str | None = None) -> tuple[Journal, SetupReport]:
        """Apply ``patch``; returns the journal (give it to :meth:`teardown`) and a report.

        Raises ``SetupError`` (after undoing what was done) if part of the patch cannot be
        reproduced on this phone.
        """
        p = patch if isinstance(patch, StatePatch) else StatePatch.model_validate(patch or {})
        missing = self.unsupported_parts(p)
        if missing:  # known before touching the phone: nothing to write, nothing to undo
            raise SetupError("; ".join(missing)[:800], unsupported=True)
        tag = tag or new_tag()
        j = Journal(serial=self.shell.serial, tag=tag, path=str(self.journal_path()))
        rep = SetupReport(tag=tag)
        j.save()
        try:
            self._apply(p, j, rep)
        except (SetupError, ParseError) as e:
            rep.failed.append(str(e))
            if getattr(e, "unsupported", False):
                rep.unsupported.append(str(e))
        if rep.failed:
            try:
                self.teardown(j)
            except DeviceLost:
                pass
            unsupported = set(rep.failed) <= set(rep.unsupported)
            raise SetupError("; ".join(rep.failed)[:800], unsupported=unsupported)
        return j, rep

    def unsupported_parts(self, p: StatePatch) -> list[str]:
        """Parts of ``p`` no phone of this kind can reproduce (checked before any write)."""
        out = [f"settings.{f} cannot be set on a device without root" for f in p.settings if f not in _RAW]
        if p.world_clocks:
            out.append("world_clocks cannot be added on a device (no API)")
        if p.clipboard is not None and self.clipboard is None:
            out.append("clipboard: no uiautomator2 connection to set it")
        if self.ui is None and any(not a.enabled for a in p.records("alarms")):
            out.append("alarms: a disabled alarm needs the Clock UI (the AlarmClock API creates enabled alarms only)")
        msgs = p.records("messages")
        if msgs and self.sms_writable is False:
            out.append(self.sms_why or "SMS rows cannot be written by the shell on this phone")
        hidden = sorted({m.box for m in msgs if m.box not in ("inbox", "sent")})
        if hidden and self.restricted_sms:
            out.append(f"messages in {', '.join(hidden)}: the shell reads SMS through the restricted view (inbox and "
                       "sent only), so such a row could not be verified or removed")
        if p.records("events") and self.calendar_id is None:
            out.append(f"events: {self.calendar_why}")
        return out

    def _apply(self, p: StatePatch, j: Journal, rep: SetupReport) -> None:
        if p.time is not None:
            rep.ignored.append("time (devices keep their own clock)")
        if p.start.route:
            rep.ignored.append("start.route (sim only)")
        for field, value in p.settings.items():
            t0 = time.perf_counter()
            old = current_setting(self.shell, field) if field in _RAW else None
            if field in _RAW and old == value:
                rep.applied.append(f"settings.{field} already {value!r}")
                continue
            if field not in _RAW:
                rep.unsupported.append(f"settings.{field} cannot be set on a device without root")
                rep.failed.append(rep.unsupported[-1])
                continue
            j.settings.append(SettingChange(field=field, old=old, new=value))
            j.save()
            j.settings[-1].how = set_setting(self.shell, field, value, j.raw, j.save)
            j.save()
            rep.applied.append(f"settings.{field}={value!r} ({j.settings[-1].how})")
            rep.timings_ms[f"settings.{field}"] = (time.perf_counter() - t0) * 1e3
        adders: dict[str, Callable[[Any, Journal], str]] = {
            "contacts": self._add_contact, "messages": self._add_message, "events": self._add_event,
            "calls": self._add_call, "alarms": self._add_alarm, "timers": self._add_timer, "files": self._add_file,
        }
        for kind in p.add:
            t0 = time.perf_counter()
            for rec in p.records(kind):
                rep.applied.append(adders[kind](rec, j))
                j.save()
            rep.timings_ms[kind] = (time.perf_counter() - t0) * 1e3
        if p.world_clocks:
            rep.unsupported.append("world_clocks cannot be added on a device (no API)")
            rep.failed.append(rep.unsupported[-1])
        if p.clipboard is not None:
            if self.clipboard is None:
                rep.unsupported.append("clipboard: no uiautomator2 connection to set it")
                rep.failed.append(rep.unsupported[-1])
            else:
                get, put = self.clipboard
                j.clipboard_old = get()
                j.clipboard_set = True
                j.save()
                put(p.clipboard)
                rep.applied.append("clipboard")

    # --- the episode's own rows ----------------------------------------------------------------
    def mark_episode(self, j: Journal) -> None:
        """Remember each provider's highest ``_id``, every settable setting and (on dedicated test
        phones) the shared-storage files now — after setup, before the policy acts. Only reads:
        they travel in one shell round trip once learnt (:meth:`Shell.prefetched`)."""
        with self.shell.prefetched("mark_episode"):
            for kind, (uri, _col, _vals) in self._episode_rows().items():
                j.episode_marks[kind] = _max_id(self.shell, uri)
            j.settings_at_start = self._settings_now()
            j.sms_read_at_start = self._sms_read_now()
            if self._perm_baseline is None:  # later episodes start from the state the last teardown proved
                self._perm_baseline = self._permissions_now()
            j.permissions_at_start = self._perm_baseline
            if self.destructive:
                j.files_at_start = self._files_now()
        j.save()

    def _settings_now(self) -> dict[str, Any] | None:
        """The settable settings as the system has them (services for service-mirrored ones)."""
        from device.readers import StateReader

        try:
            st = StateReader(self.shell).settings()
        except (ParseError, DeviceCommandError):
            return None
        return {f: v for f, v in st.model_dump().items() if f in _RAW and v is not None}

    # --- runtime permissions ---------------------------------------------------------------------
    def _permissions_now(self) -> dict[str, dict[str, list[Any]]] | None:
        """Runtime permissions of the apps s2r drives that this phone has (``dumpsys package``,
        one batch). None when they cannot be read."""
        from actionmap.apps import registry
        from device.parsers import parse_runtime_permissions

        try:
            if self._perm_packages is None:
                listed = self.shell.out(["pm", "list", "packages"])
                have = {ln.split(":", 1)[1].strip() for ln in listed.splitlines() if ln.startswith("package:")}
                self._perm_packages = sorted(registry().all_packages() & have)
            argvs = [["dumpsys", "package", p] for p in self._perm_packages]
            out: dict[str, dict[str, list[Any]]] = {}
            for pkg, r in zip(self._perm_packages, self.shell.batch(argvs)):
                perms = parse_runtime_permissions(r.out, pkg)
                if perms:
                    out[pkg] = {k: [g, sorted(f)] for k, (g, f) in perms.items()}
            return out
        except DeviceCommandError:
            return None

    def _undo_episode_permissions(self, j: Journal, rep: "TeardownReport") -> None:
        """Put back every runtime permission of the apps s2r drives as it was when the episode
        started: an "Allow"/"Don't allow" the policy tapped in a first-launch prompt is undone —
        ``pm revoke``/``pm grant`` and ``pm clear-permission-flags``/``set-permission-flags …
        user-set user-fixed`` (the shell holds GRANT/REVOKE_RUNTIME_PERMISSIONS; frameworks/base
        ``packages/Shell/AndroidManifest.xml``) — so the next episode meets the prompt again, as
        in the simulator, and the phone is handed back as it came. Proven by reading again."""
        start = j.permissions_at_start
        if not start:
            return
        now = self._permissions_now() or {}
        fixes = 0
        for pkg, perms in start.items():
            for perm, (granted, flags) in perms.items():
                cur = now.get(pkg, {}).get(perm)
                if cur is None or (cur[0] == granted and set(cur[1]) == set(flags)):
                    continue
                if cur[0] != granted:
                    self.shell.run(["pm", "grant" if granted else "revoke", pkg, perm])
                user = {"USER_SET": "user-set", "USER_FIXED": "user-fixed"}
                gone = [user[f] for f in user if f in cur[1] and f not in flags]
                back = [user[f] for f in user if f in flags and f not in cur[1]]
                if gone:
                    self.shell.run(["pm", "clear-permission-flags", pkg, perm, *gone])
                if back:
                    self.shell.run(["pm", "set-permission-flags", pkg, perm, *back])
                fixes += 1
        if not fixes:
            return
        after = self._permissions_now() or {}
        still = [f"{pkg} {perm.rsplit('.', 1)[-1]}" for pkg, perms in start.items() for perm, (g, fl) in perms.items()
                 if perm in after.get(pkg, {}) and (after[pkg][perm][0] != g
                                                   or {"USER_SET", "USER_FIXED"} & set(after[pkg][perm][1])
                                                   != {"USER_SET", "USER_FIXED"} & set(fl))]
        if fixes - len(still) > 0:
            rep.restored.append(f"{fixes - len(still)} runtime permission(s) answered during the episode put back")
        if still:
            rep.left.append(f"runtime permission(s) changed during the episode could not be put back: "
                            f"{', '.join(still)}")
        self._perm_baseline = after if not still else None  # re-read at the next episode's start

    def _sms_read_now(self) -> dict[int, str] | None:
        """``_id → read`` of the SMS rows the shell can see (None when SMS cannot be read)."""
        try:
            rows = content_query(self.shell, URI_SMS, ("_id", "read"))
        except (ParseError, DeviceCommandError):
            return None
        return {int(str(r["_id"])): str(r.get("read") or "0") for r in rows if str(r.get("_id") or "").isdigit()}

    def _undo_episode_sms_read(self, j: Journal, rep: "TeardownReport") -> None:
        """Put back the read flag of the phone's own messages that the episode changed — opening a
        conversation in Messages marks it read (the app's own update, as on a phone) — and prove
        it by reading again. Needs SMS writes (the WRITE_SMS app-op, see :mod:`device.appops`);
        without them the change is reported, never hidden."""
        if not j.sms_read_at_start:
            return
        now = self._sms_read_now() or {}
        changed = {i: old for i, old in j.sms_read_at_start.items() if i in now and now[i] != old}
        if not changed:
            return
        if self.sms_writable is False:
            rep.left.append(f"{len(changed)} of the phone's own SMS marked read during the episode (ids "
                            f"{', '.join(map(str, sorted(changed)))}): the shell may not write SMS here "
                            "(WRITE_SMS app-op; run with --grant-appops to have them put back)")
            return
        for i, old in sorted(changed.items()):
            self.shell.run(["content", "update", "--uri", f"{URI_SMS}/{int(i)}", "--bind",
                            f"read:i:{1 if old == '1' else 0}"])
        after = self._sms_read_now() or {}
        still = sorted(i for i, old in changed.items() if after.get(i) != old)
        fixed = len(changed) - len(still)
        if fixed:
            rep.restored.append(f"read flag of {fixed} SMS put back")
        if still:
            rep.left.append(f"read flag of SMS {', '.join(map(str, still))} could not be put back "
                            "(the provider ignored the update)")

    def _files_now(self) -> list[tuple[str, int]] | None:
        from device.readers import StateReader

        try:
            files = StateReader(self.shell).files(self.tz)
        except (ParseError, DeviceCommandError):
            return None
        return [(f.path, int(f.size or 0)) for f in files if f.kind != "dir"]

    def _undo_episode_settings(self, j: Journal, rep: "TeardownReport") -> None:
        """Put back every setting the episode itself changed (through the Settings app, quick
        settings …) to its value at the start of the episode, through the same service commands
        and verification setup uses. A phone is handed back with the radios and modes it had."""
        if not j.settings_at_start:
            return
        now = self._settings_now() or {}
        for field, want in j.settings_at_start.items():
            if field in now and now[field] != want:
                try:
                    set_setting(self.shell, field, want, SettingsJournal())  # back to the start: nothing to undo
                    rep.restored.append(f"episode settings.{field}={want!r}")
                except SetupError as e:
                    rep.left.append(f"settings.{field} changed by the episode could not be put back: {e}"[:300])

    def _undo_episode_files(self, j: Journal, rep: "TeardownReport") -> None:
        """Dedicated test phones: files the episode moved or renamed go back (a vanished file and a
        new one of the same size are one move); files it added are removed; a file it deleted
        cannot be brought back and is listed in ``left``."""
        if j.files_at_start is None:
            return
        now = self._files_now()
        if now is None:
            rep.left.append("files: could not list shared storage to undo the episode's file changes")
            return
        before = dict(j.files_at_start)
        after = dict(now)
        ours = {f.path for f in j.files}
        vanished = [p for p in before if p not in after]
        appeared = [p for p in after if p not in before]
        for old in vanished:
            twin = next((p for p in appeared if after[p] == before[old]
                         and p.rsplit("/", 1)[-1] == old.rsplit("/", 1)[-1]), None) or \
                next((p for p in appeared if after[p] == before[old]), None)
            if twin is None:
                if old not in ours:
                    rep.left.append(f"file {old} was deleted by the episode and cannot be restored")
                continue
            parent = old.rsplit("/", 1)[0]
            self.shell.run(["mkdir", "-p", parent])
            self.shell.run(["mv", twin, old])
            if self._exists(old) and not self._exists(twin):
                appeared.remove(twin)
                rep.removed["episode file moves undone"] = rep.removed.get("episode file moves undone", 0) + 1
            else:
                rep.left.append(f"file {old} moved by the episode to {twin}: could not move it back")
        for p in appeared:
            if p in ours:
                continue
            self.shell.run(["rm", p])
            if self._exists(p):
                rep.left.append(f"file {p} added by the episode could not be removed")
            else:
                rep.removed["episode files"] = rep.removed.get("episode files", 0) + 1

    def _episode_rows(self) -> dict[str, tuple[str, str | None, tuple[str, ...] | None]]:
        return {**EPISODE_ROWS, **(EPISODE_ROWS_DESTRUCTIVE if self.destructive else {})}

    def _undo_episode_rows(self, j: Journal, rep: TeardownReport) -> None:
        kinds = self._episode_rows()
        for kind, mark in j.episode_marks.items():
            if kind not in kinds:
                continue
            uri, col, vals = kinds[kind]
            try:  # every row, filtered here: the same query each episode, so it is read ahead with the rest
                rows = content_query(self.shell, uri, ("_id", *((col,) if col else ())))
            except ParseError:
                continue
            ids = [int(str(r.get("_id"))) for r in rows if str(r.get("_id") or "").isdigit()
                   and int(str(r.get("_id"))) > mark and not (col and (r.get(col) or "") not in (vals or ()))]
            target = uri + ("?caller_is_syncadapter=true" if kind == "contacts" else "")
            delete_rows_verified(self.shell, f"episode {kind}", uri, ids, rep, delete_uri=target)

    def _delete_hidden_episode_sms(self, j: Journal) -> str | None:
        """Drafts/outbox/failed/queued rows are outside the shell's restricted view, so they cannot
        be listed or checked; SmsProvider.delete works on the whole table, so on a dedicated test
        phone the episode's hidden rows go by selection (unverifiable). The teardown's SMS reads
        cannot see those rows either, so this runs beside them (in its own thread: the reads'
        read-ahead is not dropped by it). Returns the note for the report."""
        mark = j.episode_marks.get("messages")
        if mark is None or "messages" not in self._episode_rows():
            return None
        if self.restricted_sms and self.destructive and self.sms_writable:
            self.shell.run(["content", "delete", "--uri", URI_SMS, "--where", f"_id>{int(mark)} AND type IN (3,4,5,6)"])
            return ("episode SMS drafts/outbox/failed/queued above the episode mark deleted "
                    "(not verifiable under the restricted view)")
        return None

    # --- record adders -------------------------------------------------------------------------
    def _new_row(self, kind: str, uri: str, before: int, j: Journal, match: dict[str, str],
                 tag_col: str | None, invisible: bool = False) -> CreatedRow:
        """Find the row just inserted (``_id`` > before, matching ``match``) and journal it."""
        cols = ("_id", *match.keys(), *((tag_col,) if tag_col else ()))
        try:
            rows = content_query(self.shell, uri, tuple(dict.fromkeys(cols)))
        except ParseError:
            rows = content_query(self.shell, uri, tuple(dict.fromkeys(("_id", *match.keys()))))
            tag_col = None
        mine = [r for r in rows if str(r.get("_id") or "").isdigit() and int(r["_id"] or 0) > before
                and all((r.get(k) or "") == v for k, v in match.items())]
        if not mine:
            raise SetupError(f"{kind}: the inserted row did not appear in {uri} (is writing allowed on this phone?)")
        r = max(mine, key=lambda r: int(r["_id"] or 0))
        tagged = bool(tag_col) and has_tag(r.get(tag_col) or "", j.tag)
        row = CreatedRow(kind=kind, uri=uri, id=str(r["_id"]), content=match, tagged=tagged)
        j.rows.append(row)
        return row

    def _add_contact(self, c: Contact, j: Journal) -> str:
        before = _max_id(self.shell, URI_RAW_CONTACTS)
        _content_insert(self.shell, URI_RAW_CONTACTS, {"starred": int(c.starred)}, self._phone_sdk)
        rows = content_query(self.shell, URI_RAW_CONTACTS, ("_id",))
        ids = [int(r["_id"]) for r in rows if str(r.get("_id") or "").isdigit() and int(r["_id"] or 0) > before]
        if not ids:
            raise SetupError("contacts: the raw contact did not appear (is writing contacts allowed?)")
        rid = max(ids)
        j.rows.append(CreatedRow(kind="contacts", uri=URI_RAW_CONTACTS, id=str(rid), content={}, tagged=False))
        j.save()
        data: list[dict[str, Any]] = [{"mimetype": MIME_NOTE, "data1": marker(j.tag)},
                                      {"mimetype": _MIME_NAME, "data1": c.name}]
        for ph in c.phones:
            t = _PHONE_TYPES.get(ph.label)
            data.append({"mimetype": _MIME_PHONE, "data1": ph.number, "data2": t if t else 0,
                         **({} if t else {"data3": ph.label})})
        for em in c.emails:
            data.append({"mimetype": _MIME_EMAIL, "data1": em, "data2": 1})
        if c.company:
            data.append({"mimetype": _MIME_ORG, "data1": c.company, "data2": 1})
        for d in data:
            _content_insert(self.shell, URI_CONTACT_DATA, {"raw_contact_id": rid, **d}, self._phone_sdk)
        rows = content_query(self.shell, URI_CONTACT_DATA, ("_id", "raw_contact_id", "mimetype", "data1"),
                             where=f"raw_contact_id={rid}")
        j.rows[-1].tagged = any(r.get("mimetype") == MIME_NOTE and marker(j.tag) in (r.get("data1") or "")
                                for r in rows)
        j.rows[-1].content = {"name": c.name}
        return f"contact {c.name!r} (raw_contact {rid}{'' if j.rows[-1].tagged else ', untagged: journal only'})"

    def _add_message(self, m: Message, j: Journal) -> str:
        before = _max_id(self.shell, URI_SMS)
        when = local_to_ms(m.time, self.tz) if m.time else int(time.time() * 1000)
        _insert_tagged(self.shell, URI_SMS, {"address": m.address, "body": m.body, "type": _SMS_TYPES[m.box],
                                             "read": int(m.read), "seen": 1, "date": when}, "subject", marker(j.tag),
                       self._phone_sdk)
        row = self._new_row("messages", URI_SMS, before, j, {"address": m.address, "body": m.body}, "subject")
        return f"message to/from {m.address} (sms {row.id})"

    def _calendar_id(self) -> str:
        """s2r's own LOCAL calendar (:mod:`device.localcal`): never an account's synced one."""
        if self.calendar_id is None:
            raise SetupError(f"events: {self.calendar_why}", unsupported=True)
        return self.calendar_id

    def _add_event(self, e: CalendarEvent, j: Journal) -> str:
        before = _max_id(self.shell, URI_EVENTS)
        if e.all_day:
            start = utc_midnight_ms(e.start)
            end = utc_midnight_ms(e.end) if e.end else start + 86_400_000
            tz = "UTC"
        else:
            start = local_to_ms(e.start, self.tz)
            end = local_to_ms(e.end, self.tz) if e.end else start + 3_600_000
            tz = self.tz or "UTC"
        desc = e.description + invisible_marker(j.tag)  # the user sees descriptions: invisible form
        _content_insert(self.shell, URI_EVENTS, {
            "calendar_id": int(self._calendar_id()), "title": e.title, "dtstart": start, "dtend": end,
            "allDay": int(e.all_day), "eventTimezone": tz, "eventLocation": e.location, "description": desc},
            self._phone_sdk)
        row = self._new_row("events", URI_EVENTS, before, j, {"title": e.title}, "description", invisible=True)
        return f"event {e.title!r} (event {row.id})"

    def _add_call(self, c: Call, j: Journal) -> str:
        before = _max_id(self.shell, URI_CALLS)
        when = local_to_ms(c.time, self.tz) if c.time else int(time.time() * 1000)
        _insert_tagged(self.shell, URI_CALLS, {"number": c.number, "name": c.name, "type": _CALL_TYPES[c.kind],
                                               "date": when, "duration": c.duration_s, "new": 0},
                       "transcription", marker(j.tag), self._phone_sdk)
        row = self._new_row("calls", URI_CALLS, before, j, {"number": c.number}, "transcription")
        return f"call {c.kind} {c.number} (call {row.id})"

    def _clock_package(self) -> str | None:
        for comp in registry().components("clock", self.family):
            r = self.shell.run(["pm", "path", comp.package])
            if r.out.strip().startswith("package:"):
                return comp.package
        return None

    def _add_alarm(self, a: Alarm, j: Journal) -> str:
        if not a.enabled and self.ui is None:
            raise SetupError("alarms: a disabled alarm needs the Clock UI (the AlarmClock API creates enabled "
                             "alarms only)", unsupported=True)
        label = a.label + invisible_marker(j.tag)  # shown in the Clock app: invisible form
        argv = ["am", "start", "-a", "android.intent.action.SET_ALARM",
                "--ei", "android.intent.extra.alarm.HOUR", str(a.hour),
                "--ei", "android.intent.extra.alarm.MINUTES", str(a.minute),
                "--es", "android.intent.extra.alarm.MESSAGE", label,
                "--ez", "android.intent.extra.alarm.VIBRATE", "true" if a.vibrate else "false",
                "--ez", "android.intent.extra.alarm.SKIP_UI", "true"]
        if a.days:
            argv += ["--eial", "android.intent.extra.alarm.DAYS", ",".join(str(_CAL_DAYS[d]) for d in a.days)]
        pkg = self._clock_package()
        if pkg:
            argv += ["-p", pkg]
        j.alarm_labels.append(label)
        j.save()
        r = self.shell.run(argv)
        if r.rc not in (0, None) or re.search(r"(Error|Exception|unable to resolve)", r.text, re.I):
            raise SetupError(f"alarms: SET_ALARM failed: {r.text.strip()[:200]}")
        if not a.enabled:
            self._switch_off_alarm(j.tag, a)
        return f"alarm {a.hour:02d}:{a.minute:02d} {a.label!r}{'' if a.enabled else ' (switched off in the UI)'}"

    def _switch_off_alarm(self, tag: str, a: Alarm) -> None:
        """Turn a just-created alarm off with its switch in the Clock app's alarm list."""
        assert self.ui is not None
        try:
            for _ in range(3):
                found = self._find_tagged_alarm(tag, alarm=a)
                if found is None:
                    raise SetupError(f"alarms: the new alarm {a.hour:02d}:{a.minute:02d} is not in the Clock list")
                _screen, card = found
                sw = card.view.first("alarm_switch", within=card.card)
                if sw is None:
                    raise SetupError("alarms: no on/off switch next to the new alarm")
                if not sw.checked:
                    return
                self.ui.probe_tap(sw)
            raise SetupError("alarms: the alarm's switch did not turn off")
        except AlarmListUnreadable as e:
            raise SetupError(f"alarms: {e}") from e
        finally:
            self.ui.probe_home()

    # --- the Clock app's alarm list (read by the Clock driver: device.readers.ClockScreen) ----------
    def _clock_screen(self, els: Sequence[Any]) -> ClockScreen:
        """The screen as the Clock driver reads it, in the Clock app's family on this phone."""
        return ClockScreen(els, probe_family(self.ui, "clock"))

    def _find_tagged_alarm(self, tag: str, pages: int = 8,
                           alarm: Alarm | None = None) -> tuple[ClockScreen, AlarmCard] | None:
        """Scroll the Clock app's alarm list to an alarm whose label carries ``tag``: (the screen,
        that alarm's card), or None. Raises :class:`AlarmListUnreadable` when no page showed the list."""
        return self._find_alarm(lambda s: _alarm_box(s, tag, alarm), pages)

    def _find_alarm(self, pick: Callable[[ClockScreen], list[AlarmCard]],
                    pages: int = 8) -> tuple[ClockScreen, AlarmCard] | None:
        """Scroll the Clock app's alarm list to the first card ``pick`` finds: (the screen, the card),
        or None when a scan of the whole list found none. Raises :class:`AlarmListUnreadable` when
        no page showed the alarm list (the app is missing or hidden, or shows something else): then
        "none found" would be a guess."""
        assert self.ui is not None
        last: list[str] | None = None
        seen_list = False
        els = open_alarm_list(self.ui)
        screen = self._clock_screen(els)
        for page in range(pages):
            if page:
                els = self.ui.probe_elements()
                screen = self._clock_screen(els)
            cards = pick(screen)
            if cards:
                return screen, cards[0]
            seen_list = seen_list or screen.is_alarm_list()
            texts = [e.text for e in els if e.text]
            if texts == last or not any(e.scrollable for e in els):
                break
            last = texts
            self.ui.probe_scroll(True)
        if not seen_list:
            raise AlarmListUnreadable(f"the Clock app's alarm list did not show (the screen is "
                                      f"{screen.package or 'no app'}'s, read as {screen.family or 'generic'})")
        return None

    def _scan_alarms(self, pick: Callable[[ClockScreen], list[AlarmCard]], pages: int = 8) -> list[str] | None:
        """Every card ``pick`` finds in the whole list, as "HH:MM 'label'" (one per distinct alarm
        shown; None when the list could not be read). Goes home afterwards."""
        assert self.ui is not None
        found: dict[tuple[tuple[int, int], str], str] = {}
        try:
            last: list[str] | None = None
            seen_list = False
            els = open_alarm_list(self.ui)
            for page in range(pages):
                if page:
                    els = self.ui.probe_elements()
                screen = self._clock_screen(els)
                seen_list = seen_list or screen.is_alarm_list()
                for c in pick(screen):
                    label = screen.label(c)
                    found.setdefault((c.hm, label), f"{c.hm[0]:02d}:{c.hm[1]:02d} {label!r}")
                texts = [e.text for e in els if e.text]
                if texts == last or not any(e.scrollable for e in els):
                    break
                last = texts
                self.ui.probe_scroll(True)
        finally:
            self.ui.probe_home()
        return list(found.values()) if seen_list or found else None

    def _add_timer(self, t: Timer, j: Journal) -> str:
        label = t.label + invisible_marker(j.tag)
        argv = ["am", "start", "-a", "android.intent.action.SET_TIMER",
                "--ei", "android.intent.extra.alarm.LENGTH", str(max(1, t.duration_s)),
                "--es", "android.intent.extra.alarm.MESSAGE", label,
                "--ez", "android.intent.extra.alarm.SKIP_UI", "true"]
        pkg = self._clock_package()
        if pkg:
            argv += ["-p", pkg]
        j.timer_labels.append(label)
        j.save()
        r = self.shell.run(argv)
        if r.rc not in (0, None) or re.search(r"(Error|Exception|unable to resolve)", r.text, re.I):
            raise SetupError(f"timers: SET_TIMER failed: {r.text.strip()[:200]}")
        return f"timer {t.duration_s}s {t.label!r}"

    def _exists(self, path: str) -> bool:
        return self.shell.run(["ls", "-d", path]).rc == 0

    def _add_file(self, f: FileEntry, j: Journal) -> str:
        path = re.sub(r"/+", "/", f.path)
        if not (path.startswith("/sdcard/") or path.startswith("/storage/emulated/0/")) or "/../" in path + "/":
            raise SetupError(f"files: {f.path!r} is outside shared storage", unsupported=True)
        parent = path.rsplit("/", 1)[0]
        self._mkdirs(parent, j)
        if f.kind == "dir":
            self._mkdirs(path, j)
            return f"dir {path}"
        if self._exists(path):
            if self.existing_files_ok:  # the virtual phone's synthetic world already has it
                return f"file {path} (already there)"
            raise SetupError(f"files: {path} already exists on the phone; s2r never overwrites a user's file")
        head = (FILE_TAG_PREFIX + marker(j.tag).encode() + b"\n")
        data = (head + b"\0" * max(0, f.size - len(head)))[:f.size]
        mtime = int(local_to_ms(f.mtime, self.tz) / 1000) if f.mtime else int(time.time())
        j.files.append(CreatedFile(path=path, size=f.size, head=data[:len(head)].hex()))
        j.save()
        sync_push(self.shell, data, path, mtime=mtime)
        return f"file {path} ({f.size} B)"

    def _mkdirs(self, path: str, j: Journal) -> None:
        parts = path.split("/")
        for i in range(3, len(parts) + 1):
            d = "/".join(parts[:i])
            if d in ("/sdcard", "/storage/emulated/0", "/storage/emulated", "/storage") or self._exists(d):
                continue
            j.dirs.append(d)
            j.save()
            r = self.shell.run(["mkdir", d])
            if r.rc not in (0, None):
                raise SetupError(f"files: mkdir {d} failed: {r.text.strip()[:200]}")

    # --- teardown ------------------------------------------------------------------------------
    def teardown(self, j: Journal, alarms_now: Sequence[Alarm] | None = None) -> TeardownReport:
        """Undo a setup: delete only tagged rows/files, restore settings, then drop the journal.

        ``alarms_now``: the alarm list as last read, when nothing can have changed it since (the
        judge's final read); saves reading it again through the Clock app."""
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="teardown-hidden") as ex:
            # the episode's hidden SMS boxes go by a blind delete that nothing in the teardown reads
            # (they are outside the shell's view): it runs alongside the rest, on its own stream
            hidden = ex.submit(self._delete_hidden_episode_sms, j)
            with self.shell.prefetched("teardown"):  # its reads before each delete: one batch once learnt
                rep = self._teardown(j, alarms_now)
            note = hidden.result()
        if note:
            rep.restored.append(note)
        self.leftovers += rep.leftovers
        self.unverified += rep.unverified
        return rep

    def _teardown(self, j: Journal, alarms_now: Sequence[Alarm] | None) -> TeardownReport:
        rep = TeardownReport(tag=j.tag)
        # what the episode itself wrote through the apps (texts it sent, contacts it created ...)
        self._undo_episode_rows(j, rep)
        self._undo_episode_files(j, rep)
        # records: find every row that carries the marker (also from crashed runs' journals)
        self._delete_marked_contacts(j.tag, rep)
        for kind, uri, col in (("messages", URI_SMS, "subject"), ("events", URI_EVENTS, "description"),
                               ("calls", URI_CALLS, "transcription")):
            self._delete_marked(kind, uri, col, j.tag, rep)
        for row in j.rows:
            if row.tagged:
                continue
            self._delete_journalled(row, rep)
        # files: only ours (journalled and still starting with our marker), deepest first
        for f in reversed(j.files):
            if self._is_our_file(f):
                r = self.shell.run(["rm", f.path])
                if r.rc in (0, None):
                    rep.removed["files"] = rep.removed.get("files", 0) + 1
                    continue
            if self._exists(f.path):
                rep.left.append(f"file {f.path} changed since setup; left in place")
        for d in sorted(set(j.dirs), key=len, reverse=True):
            if self._exists(d):
                r = self.shell.run(["rmdir", d])  # never rm -r: a non-empty dir holds someone's file
                if r.rc in (0, None):
                    rep.removed["dirs"] = rep.removed.get("dirs", 0) + 1
                else:
                    rep.left.append(f"dir {d} is not empty; left in place")
        if j.alarm_labels:
            # the policy may have deleted some itself: what counts is that none is left, and the
            # delete loop ends only on a full scan that found none (or when it could not go on)
            rounds = 2 * len(j.alarm_labels) + 3
            res = self._delete_tagged_alarms(j.tag, rounds)
            if res.n is not None and not res.clean:  # stopped mid-way (a busy phone's list redrew): once more
                again = self._delete_tagged_alarms(j.tag, rounds)
                res = AlarmDeletes((res.n or 0) + (again.n or 0), again.clean, again.why)
            n = res.n or 0
            if not res.clean:
                self._tagged_alarms_left(j, res, rep)
            if self.ui is not None:
                self.ui.probe_home()
            rep.removed["alarms"] = n
        if self.destructive and j.alarms_at_start is not None and self.ui is not None:
            self._undo_episode_alarms(j, rep, alarms_now)
        if j.timer_labels:
            names = ", ".join(repr(strip_tag(x)[0]) for x in j.timer_labels)
            rep.left.append(f"timer(s) {names} carrying tag {j.tag}: no API removes timers")
            rep.leftovers += [f"timer {strip_tag(x)[0]!r} carrying tag {j.tag} (invisibly)" for x in j.timer_labels]
        self._undo_episode_sms_read(j, rep)
        self._undo_episode_permissions(j, rep)
        # settings: what the episode changed back to its start, then what setup changed back to before
        self._undo_episode_settings(j, rep)
        for ch in reversed(j.settings):
            if ch.old is None:
                continue
            try:
                set_setting(self.shell, ch.field, ch.old, SettingsJournal())
                rep.restored.append(f"settings.{ch.field}={ch.old!r}")
            except SetupError as e:
                rep.left.append(str(e))
        rep.left += j.raw.restore(self.shell)
        if j.clipboard_set and self.clipboard is not None and j.clipboard_old is not None:
            self.clipboard[1](j.clipboard_old)
            rep.restored.append("clipboard")
        j.discard()
        return rep

    def sweep_tag(self, tag: str) -> TeardownReport:
        """Delete every provider row still carrying ``tag`` (a teardown that left some: retried
        at close, and by the next session from its journal), each delete verified."""
        rep = TeardownReport(tag=tag)
        self._delete_marked_contacts(tag, rep)
        for kind, uri, col in (("messages", URI_SMS, "subject"), ("events", URI_EVENTS, "description"),
                               ("calls", URI_CALLS, "transcription")):
            self._delete_marked(kind, uri, col, tag, rep)
        return rep

    def _tagged_alarms_left(self, j: Journal, res: AlarmDeletes, rep: TeardownReport) -> None:
        """After a delete loop that did not end on a clean scan: which of the setup's alarms are still
        there — read off the list once more; where the list cannot be read, every alarm setup made and
        the loop did not delete (the policy may have deleted some, but nothing shows that it did)."""
        from collections import Counter

        still = self._scan_alarms(lambda s: _alarm_box(s, j.tag)) if self.ui is not None else None
        why = f"; {res.why}" if res.why else ""
        if still is not None:
            if not still:
                return  # the list, read whole, shows none: deleted after all
            rep.leftovers += [f"alarm {w} carrying tag {j.tag} (invisibly)" for w in still]
            rep.left.append(f"alarm(s) {', '.join(still)} carrying tag {j.tag} (invisibly) could not be deleted "
                            f"({res.n or 0} deleted{why}); delete them in the Clock app")
            return
        made = Counter(strip_tag(x)[0] for x in j.alarm_labels)
        unknown = max(0, sum(made.values()) - (res.n or 0))
        names = ", ".join(repr(x) for x in made.elements())
        rep.leftovers += [f"alarm {x!r} carrying tag {j.tag} (invisibly; the alarm list could not be read)"
                          for x in list(made.elements())[:unknown]]
        rep.left.append(f"alarm(s) {names} carrying tag {j.tag} (invisibly) could not all be deleted "
                        f"({res.n or 0} deleted{why}); delete them in the Clock app")

    def note_alarms(self, j: Journal, alarms: Sequence[Alarm]) -> None:
        """Remember the alarms the start-of-episode probe saw (see :meth:`_undo_episode_alarms`)."""
        j.alarms_at_start = [(a.hour, a.minute, a.label) for a in alarms]
        j.save()

    def _undo_episode_alarms(self, j: Journal, rep: TeardownReport, now: Sequence[Alarm] | None = None) -> None:
        """Dedicated test phones only: delete the alarms an episode added through the Clock app.

        No provider lists alarms, so without this an alarm a policy set stays on the phone and
        shows up in every later episode's alarm list (and in its side effects). Alarms are
        compared by (hour, minute, label) as a multiset against the start-of-episode probe. An
        alarm it cannot delete is a leftover (:attr:`TeardownReport.leftovers`); a list it cannot
        read is said so (:attr:`TeardownReport.unverified`): it never passes as deleted."""
        from collections import Counter

        assert self.ui is not None
        try:
            now = probe_alarms(self.ui) if now is None else now
        except DeviceLost:
            raise
        except Exception as e:  # noqa: BLE001
            now, why = None, f"could not read the alarm list ({e})"
        else:
            why = "the Clock app's alarm list did not show"
        if now is None:
            rep.left.append(f"alarms added by the episode: {why}; any it added are still on the phone")
            rep.unverified.append(f"alarms added by the episode ({why})")
            return
        start = Counter(map(tuple, j.alarms_at_start or []))
        extra = Counter((a.hour, a.minute, a.label) for a in now) - start
        if not extra:
            return
        reasons: dict[tuple[Any, ...], str] = {}
        for (h, m, label), k in extra.items():
            res = self._delete_alarms(lambda s, h=h, m=m, label=label: _plain_alarm_box(s, h, m, label),
                                      max_rounds=2 * k + 2, limit=k)
            if res.why:
                reasons[(h, m, label)] = res.why
        # a tap that changed the list may still not have deleted (a confirmation, another screen):
        # the list is read again, and what the episode added and is still there is a leftover
        try:
            after = probe_alarms(self.ui)
        except DeviceLost:
            raise
        except Exception:  # noqa: BLE001
            after = None
        if after is None:
            rep.left.append("alarms added by the episode: the alarm list could not be read again after deleting "
                            f"{sum(extra.values())} alarm(s)")
            rep.unverified.append("alarms added by the episode (the alarm list could not be read after the deletes)")
            return
        still = Counter((a.hour, a.minute, a.label) for a in after) - start
        still = Counter({key: min(k, extra[key]) for key, k in still.items() if key in extra})
        rep.removed["episode alarms"] = rep.removed.get("episode alarms", 0) + sum(extra.values()) - sum(still.values())
        for (h, m, label), k in still.items():
            what = f"alarm {h:02d}:{m:02d} {label!r} added during the episode"
            reason = reasons.get((h, m, label))
            rep.left.append(f"{what} could not be deleted" + (f" ({reason})" if reason else "")
                            + ("" if k == 1 else f" ({k} of them)"))
            rep.leftovers += [what] * k

    def _delete_marked_contacts(self, tag: str, rep: TeardownReport) -> None:
        try:
            rows = content_query(self.shell, URI_CONTACT_DATA, ("_id", "raw_contact_id", "mimetype", "data1"),
                                 where=f"mimetype='{MIME_NOTE}'")
        except ParseError:
            return
        ids = sorted({r["raw_contact_id"] for r in rows
                      if r.get("mimetype") == MIME_NOTE and has_tag(r.get("data1") or "", tag)
                      and r.get("raw_contact_id")})
        delete_rows_verified(self.shell, "contacts", URI_RAW_CONTACTS, [int(r) for r in ids if str(r).isdigit()], rep,
                             delete_uri=URI_RAW_CONTACTS + "?caller_is_syncadapter=true")

    def _delete_marked(self, kind: str, uri: str, col: str, tag: str, rep: TeardownReport) -> None:
        try:
            rows = content_query(self.shell, uri, ("_id", col))
        except ParseError:
            return
        ids = [int(str(r["_id"])) for r in rows if has_tag(r.get(col) or "", tag) and str(r.get("_id") or "").isdigit()]
        delete_rows_verified(self.shell, kind, uri, ids, rep)

    def _delete_journalled(self, row: CreatedRow, rep: TeardownReport) -> None:
        """A row whose tag did not round-trip: delete its id only if it still holds what we wrote."""
        if row.kind == "contacts":
            try:
                rows = content_query(self.shell, URI_CONTACT_DATA, ("_id", "raw_contact_id", "mimetype", "data1"),
                                     where=f"raw_contact_id={int(row.id)}")
            except (ParseError, ValueError):
                return
            names = {r.get("data1") for r in rows if r.get("mimetype") == _MIME_NAME}
            if not rows:
                return  # already gone (deleted with its marker)
            if row.content.get("name") not in names:
                rep.left.append(f"contact raw id {row.id} changed since setup; left in place")
                return
            delete_rows_verified(self.shell, row.kind, URI_RAW_CONTACTS, [int(row.id)], rep,
                                 delete_uri=URI_RAW_CONTACTS + "?caller_is_syncadapter=true")
            return
        else:
            cols = ("_id", *row.content.keys())
            try:
                rows = content_query(self.shell, row.uri, cols, where=f"_id={int(row.id)}")
            except (ParseError, ValueError):
                return
            if not rows:
                return
            if any((rows[0].get(k) or "") != v for k, v in row.content.items()):
                rep.left.append(f"{row.kind} {row.id} changed since setup; left in place")
                return
            delete_rows_verified(self.shell, row.kind, row.uri, [int(row.id)], rep)

    def _is_our_file(self, f: CreatedFile) -> bool:
        head = bytes.fromhex(f.head)
        if not self._exists(f.path):
            return False
        try:
            got = self.shell.device.sync.read_bytes(f.path)[:len(head)] if head else b""
        except Exception:  # noqa: BLE001
            return False
        st = self.shell.run(["stat", "-c", "%s", f.path]).out.strip()
        return got == head and (not st.isdigit() or int(st) == f.size)

    def _delete_tagged_alarms(self, tag: str, max_rounds: int = 20) -> "AlarmDeletes":
        """Delete alarms whose label carries ``tag`` through the Clock app UI (no API deletes alarms).

        Each round rescans from the top, so a tap a busy phone missed is simply tried again and the
        verdict (``clean``: the last scan of the whole list found none left) costs no extra scan."""
        return self._delete_alarms(lambda s: _alarm_box(s, tag), max_rounds)

    def _delete_alarms(self, pick: Callable[[ClockScreen], list[AlarmCard]], max_rounds: int = 20,
                       limit: int | None = None) -> "AlarmDeletes":
        """Delete (at most ``limit``) alarms ``pick`` finds in the Clock app's list, one by one.

        A delete counts only when the tap changed the list (a phone that ignores the tap, or
        refuses, leaves it as it was); three taps in a row that change nothing end the loop."""
        if self.ui is None:
            return AlarmDeletes(None, False, "no UI to drive the Clock app")
        n = 0
        clean = False
        why: str | None = None
        refused = 0
        try:
            for _ in range(max_rounds):
                if limit is not None and n >= limit:
                    clean = True
                    break
                try:
                    found = self._find_alarm(pick)
                    if found is None:
                        clean = True
                        break
                    screen, card = found
                    what = f"{card.hm[0]:02d}:{card.hm[1]:02d} {screen.label(card)!r}"
                    screen, delete = self._alarm_delete(screen, card, pick)
                except AlarmListUnreadable as e:
                    why = str(e)
                    break
                if delete is None:
                    why = f"no Delete found for the alarm {what}"
                    break
                before = _list_shown(screen)
                self.ui.probe_tap(delete)
                if _list_shown(self._clock_screen(self.ui.probe_elements())) != before:
                    n += 1
                    refused = 0
                    continue
                refused += 1
                why = f"tapping the Delete of the alarm {what} changed nothing ({refused}x)"
                if refused >= 3:
                    break
            else:
                why = why or f"alarms still found after {max_rounds} deletes"
        finally:
            self.ui.probe_home()
        return AlarmDeletes(n, clean, None if clean else why)

    def _alarm_delete(self, screen: ClockScreen, card: AlarmCard,
                      pick: Callable[[ClockScreen], list[AlarmCard]]) -> tuple[ClockScreen, Any]:
        """The card's Delete (the driver's ``delete`` role in the card, below its box too) and the
        screen it is on: a collapsed card is expanded first, and an expanded one whose Delete lies
        below the list's fold is lifted into view. The Delete is None when there is none."""
        assert self.ui is not None

        def first(role: str) -> Any:
            got = screen.in_card(card, role, whole=True)
            return got[0] if got else None

        delete = first("delete")
        if delete is not None:
            return screen, delete
        expand = first("expand_alarm")
        if expand is None and first("collapse_alarm") is None:
            return screen, None  # neither expandable nor expanded: this family shows no Delete in its list
        if expand is not None:
            self.ui.probe_tap(expand)
            screen = self._clock_screen(self.ui.probe_elements())  # expanded in place: no rescan from the top
            cards = pick(screen)
            if cards:
                card = cards[0]
            else:
                found = self._find_alarm(pick)
                if found is None:
                    return screen, None
                screen, card = found
            delete = first("delete")
        if delete is None:  # expanded, with its Delete below the list's fold: lift the item
            screen, lifted = self._lift_item(screen, card, pick)
            if lifted is None:
                return screen, None
            card = lifted
            delete = first("delete")
        return screen, delete

    def _lift_item(self, screen: ClockScreen, card: AlarmCard,
                   pick: Callable[[ClockScreen], list[AlarmCard]]) -> tuple[ClockScreen, AlarmCard | None]:
        """Scroll the list up by half the card's distance from the list's top, so an expanded
        card's lower part (its Delete) comes into view while its label stays on screen (a fling
        may carry the list further than the swipe). Returns the new screen and the card there."""
        assert self.ui is not None
        view = screen.list_view(card.card)
        top = card.card.bounds.top
        if view is None or top - view.top < 100:
            return screen, None
        try:
            self.ui.probe_scroll(True, fraction=(top - view.top) / 2 / view.height)  # type: ignore[call-arg]
        except TypeError:  # a probe without measured scrolls
            return screen, None
        screen = self._clock_screen(self.ui.probe_elements())
        cards = pick(screen)
        return screen, (cards[0] if cards else None)

    # --- destructive -----------------------------------------------------------------------------
    def wipe(self, what: Sequence[str]) -> list[str]:
        """``pm clear`` providers / empty shared storage — dedicated test phones only."""
        if not self.destructive:
            raise PermissionError("destructive resets need destructive=True (--destructive), "
                                  "meant for dedicated test phones")
        pkgs = {"contacts": "com.android.providers.contacts", "calls": "com.android.providers.contacts",
                "messages": "com.android.providers.telephony", "events": "com.android.providers.calendar"}
        done = []
        for w in what:
            if w in pkgs:
                r = self.shell.run(["pm", "clear", pkgs[w]])
                done.append(f"pm clear {pkgs[w]}: {r.out.strip() or r.err.strip()}")
            elif w == "files":
                for d in ("Download", "Documents", "Pictures", "Music", "Movies", "DCIM"):
                    self.shell.run(["find", f"/sdcard/{d}/", "-mindepth", "1", "-delete"])
                done.append("emptied shared storage folders")
            else:
                raise ValueError(f"cannot wipe {w!r}")
        return done


class AlarmListUnreadable(RuntimeError):
    """No page showed the Clock app's alarm list (the app is missing or hidden, or shows something else)."""


class AlarmDeletes(NamedTuple):
    """How a delete loop over the Clock app's alarm list went."""

    n: int | None
    """Alarms deleted (None: no UI to drive)."""
    clean: bool
    """The last scan of the whole list found none left (or the ``limit`` was reached)."""
    why: str | None = None
    """Why it stopped before that: the list could not be read, a card shows no Delete …"""


def _list_shown(screen: ClockScreen) -> tuple[Any, ...]:
    """What the alarm list shows, card by card (time, label, where): a delete changes it."""
    return tuple((c.hm, screen.label(c), c.card.bounds.top, c.card.bounds.bottom) for c in screen.cards())


def _plain_alarm_box(screen: ClockScreen, hour: int, minute: int, label: str) -> list[AlarmCard]:
    """The untagged cards showing this time and label (a setup's alarms, which carry a tag, are
    teardown's to delete by their tag). Cards are the Clock driver's ``alarm_card`` in the app's
    family: a container by the family's data, never a guessed region, so a Delete found in it is
    this alarm's."""
    return [c for c in screen.cards()
            if c.hm == (hour, minute) and not screen.tagged(c) and screen.label(c) == label]


def _alarm_box(screen: ClockScreen, tag: str, alarm: Alarm | None = None) -> list[AlarmCard]:
    """The cards whose label carries ``tag`` — collapsed or expanded, wherever the family shows the
    label; with ``alarm``, only those showing that alarm's label and time (one setup may add several)."""
    return [c for c in screen.cards() if screen.carries(c, tag)
            and (alarm is None or (c.hm == (alarm.hour, alarm.minute) and screen.label(c) == alarm.label))]


# ============================================================================ sync push with mtime
def sync_push(shell: Shell, data: bytes, path: str, *, mode: int = 0o644, mtime: int | None = None) -> None:
    """Push bytes with the ``sync:`` protocol, setting the file's mtime (adbutils always sends "now")."""
    try:
        conn = shell.device.open_transport(timeout=shell.timeout)
        try:
            conn.send_command("sync:")
            conn.check_okay()
            spec = f"{path},{0o100000 | mode}".encode("utf-8")
            conn.conn.sendall(b"SEND" + struct.pack("<I", len(spec)) + spec)
            for i in range(0, len(data), 64 * 1024):
                chunk = data[i:i + 64 * 1024]
                conn.conn.sendall(b"DATA" + struct.pack("<I", len(chunk)) + chunk)
            conn.conn.sendall(b"DONE" + struct.pack("<I", int(mtime if mtime is not None else time.time())))
            status = conn.read(4)
            length = struct.unpack("<I", conn.read(4))[0]
            if status != b"OKAY":
                msg = conn.read(length).decode("utf-8", "replace") if length else ""
                raise SetupError(f"push {path} failed: {msg}")
            conn.conn.sendall(b"QUIT" + struct.pack("<I", 0))
        finally:
            conn.close()
    except SetupError:
        raise
    except Exception as e:  # noqa: BLE001
        raise shell._classify(e, f"push {path}") from e

