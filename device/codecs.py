"""The one codec table: how each ``WorldState.settings`` field and each provider column is encoded
on a phone.

Why one table: the state readers decode these values, the writers encode them, and both must
agree with each other and with Android. Before this table the mapping from a settings field to its
key, encoding and service lived in three places and the provider type codes in two; a change in
one copy went unnoticed by the others. The readers (:mod:`device.parsers.settings`,
:mod:`device.parsers.records`, :mod:`device.readers.settings`) and the writers
(:mod:`device.writers`) take everything from here. The virtual phone keeps its own tables,
transcribed independently from the framework (:mod:`device.virtual.android_settings`,
:mod:`device.virtual.android_codes`); ``tests/test_codecs.py`` checks the two code by code.

Settings (one :class:`SettingCodec` per field): the provider keys it lives under (first = the key
a plain write uses), the encoding, the service commands that change a field which mirrors a live
service (a radio, a mode) and the service status command that proves it. Sources of the service
behaviour are cited at each entry (frameworks/base ``services/core/java/com/android/server/``).

Provider columns: the type codes of ``content://sms`` (``Telephony.TextBasedSmsColumns``),
``content://call_log/calls`` (``CallLog.Calls``), contact phone numbers
(``ContactsContract.CommonDataKinds.Phone``), the MIME types of contact data rows, and the
``java.util.Calendar`` day numbers the AlarmClock intents take.

Pure data and pure functions: nothing here talks to a phone, and nothing under ``device`` is
imported (the parsers import this module).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = [
    "SettingCodec", "SETTINGS", "codec", "SETTING_SOURCES", "SERVICE_MIRRORED", "SERVICE_READ",
    "SMS_TYPE", "SMS_BOX_OF_TYPE", "SMS_TYPE_QUEUED", "SMS_VISIBLE_TYPES", "SMS_HIDDEN_TYPES", "SMS_EPISODE_TYPES",
    "CALL_TYPE", "CALL_KIND_OF_TYPE", "PHONE_TYPE", "PHONE_LABEL_OF_TYPE", "PHONE_TYPE_CUSTOM", "CALENDAR_DAY",
    "MIME_NAME", "MIME_PHONE", "MIME_EMAIL", "MIME_ORG", "MIME_NOTE",
]


# ============================================================================ settings: value codecs
def _int(v: str | None) -> int | None:
    if v is None:
        return None
    try:
        return int(v.strip())
    except ValueError:
        try:
            f = float(v.strip())
        except ValueError:
            return None
        return int(f) if f.is_integer() else None


def _float(v: str | None) -> float | None:
    if v is None:
        return None
    try:
        return float(v.strip())
    except ValueError:
        return None


def _onoff(v: Any) -> str:
    return "1" if v else "0"


def _on(_key: str, v: str | None) -> bool | None:
    """0 → off, any other integer → on (``bluetooth_on`` 2 = on while in airplane mode)."""
    i = _int(v)
    return None if i is None else i != 0


#: WifiSettingsStore: 0 disabled, 1 enabled, 2 enabled despite airplane mode, 3 disabled *by* airplane mode
_WIFI = {0: False, 1: True, 2: True, 3: False}
#: AudioManager.RINGER_MODE_*
_RINGER = {0: "silent", 1: "vibrate", 2: "normal"}
_RINGER_CODE = {v: str(k) for k, v in _RINGER.items()}


def _wifi(_key: str, v: str | None) -> bool | None:
    i = _int(v)
    return _WIFI.get(i) if i is not None else None


def _night(_key: str, v: str | None) -> bool | None:
    i = _int(v)
    return {1: False, 2: True}.get(i) if i is not None else None  # 0 = auto, 3 = custom: unknown


def _location(key: str, v: str | None) -> bool | None:
    if key == "location_mode":
        return _on(key, v)
    if key == "location_providers_allowed":  # before Android 9: a list such as "gps,network"
        return bool(v and v.strip())
    return None


def _ranged(lo: int, hi: int | None) -> Callable[[str, str | None], int | None]:
    def decode(_key: str, v: str | None) -> int | None:
        i = _int(v)
        return i if i is not None and lo <= i and (hi is None or i <= hi) else None
    return decode


def _font(_key: str, v: str | None) -> float | None:
    f = _float(v)
    return f if f is not None and 0 < f <= 3 else None


def _text(_key: str, v: str | None) -> str | None:
    return v if v else None


# ============================================================================ settings: service commands
def _switch(*argv: str, on: str = "enable", off: str = "disable") -> Callable[[Any], list[list[str]]]:
    return lambda v: [[*argv, on if v else off]]


#: How the shell user switches AudioService's ringer (frameworks/base services/core/java/com/
#: android/server/audio/): ``cmd audio set-ringer-mode`` (AudioManagerShellCommand, Android 15;
#: before it the verb is unknown and the command silently does nothing, which the verification
#: catches), else the ring stream through MediaShellCommand's VolumeCtrl — AudioService maps ring
#: volume 0 to VIBRATE (``getNewRingerMode``) and a raise in VIBRATE back to NORMAL without moving
#: the index (``checkForRingerModeChange``; a ring volume left at 0 comes back as 1). Into or out
#: of SILENT the volume path is refused to the shell ("Not allowed to change Do Not Disturb
#: state"), so there only ``set-ringer-mode`` works.
RINGER_COMMANDS: dict[str, list[list[str]]] = {
    "normal": [["cmd", "audio", "set-ringer-mode", "NORMAL"],
               ["cmd", "media_session", "volume", "--stream", "2", "--adj", "raise"]],
    "vibrate": [["cmd", "audio", "set-ringer-mode", "VIBRATE"],
                ["cmd", "media_session", "volume", "--stream", "2", "--set", "0"]],
    "silent": [["cmd", "audio", "set-ringer-mode", "SILENT"]],
}


def _ringer_commands(v: Any) -> list[list[str]]:
    return [list(a) for a in RINGER_COMMANDS.get(v, [])] if isinstance(v, str) else []


@dataclass(frozen=True)
class SettingCodec:
    """One ``WorldState.settings`` field as a phone keeps it."""

    field: str
    sources: tuple[tuple[str, str], ...]
    """``(namespace, key)`` it is read from, in order of preference; the first is the key written."""
    encoding: str
    """What the stored text means (``bool``, ``wifi-state``, ``night-mode``, ``int 0-255`` …)."""
    encode: Callable[[Any], str]
    """World value → the text ``settings put`` stores."""
    decode: Callable[[str, str | None], Any]
    """``(key, stored text)`` → world value; None when the text has no known meaning."""
    commands: Callable[[Any], list[list[str]]] | None = None
    """The service's own commands that change the field, newest first (None: a plain provider key)."""
    status: tuple[str, ...] | None = None
    """The command whose output proves the service's state (None: the key is the truth)."""
    status_parser: str | None = None
    """The parser of that output: a function of :mod:`device.parsers.services`, by name."""
    verify_s: float | None = None
    """A service that applies the change before its command returns: verify with this short look."""

    @property
    def namespace(self) -> str:
        return self.sources[0][0]

    @property
    def key(self) -> str:
        return self.sources[0][1]

    @property
    def mirrored(self) -> bool:
        """The key mirrors a service: a raw ``settings put`` changes the key, not the service."""
        return self.commands is not None

    def set_commands(self, value: Any) -> list[list[str]]:
        return self.commands(value) if self.commands is not None else []

    def parse_status(self, text: str) -> Any:
        """The field's value from the output of :attr:`status` (None: not recognised)."""
        from device.parsers import services  # the parsers import this table: imported when used

        assert self.status_parser is not None
        return getattr(services, self.status_parser)(text)


_SETTINGS: tuple[SettingCodec, ...] = (
    # WifiServiceImpl / WifiShellCommand: ``cmd wifi status`` ("Wifi is enabled"); ``svc wifi`` sets it
    SettingCodec("wifi", (("global", "wifi_on"),), "wifi-state (0 off, 1 on, 2 on in airplane mode, 3 off by it)",
                 _onoff, _wifi, _switch("svc", "wifi"), ("cmd", "wifi", "status"), "parse_wifi_status"),
    # BluetoothManagerService: its dump's ``enabled: true``
    SettingCodec("bluetooth", (("global", "bluetooth_on"), ("secure", "bluetooth_on")),
                 "bool (2 = on in airplane mode)",
                 _onoff, _on,
                 lambda v: [["cmd", "bluetooth_manager", "enable" if v else "disable"],
                            ["svc", "bluetooth", "enable" if v else "disable"]],
                 ("dumpsys", "bluetooth_manager"), "parse_bluetooth_dump"),
    # ConnectivityService's shell command
    SettingCodec("airplane_mode", (("global", "airplane_mode_on"), ("system", "airplane_mode_on")), "bool",
                 _onoff, _on, _switch("cmd", "connectivity", "airplane-mode"),
                 ("cmd", "connectivity", "airplane-mode"), "parse_airplane_mode"),
    # ``svc data`` persists ``global mobile_data`` itself: that key is the service's record (no status)
    SettingCodec("mobile_data", (("global", "mobile_data"), ("secure", "mobile_data")), "bool",
                 _onoff, _on, _switch("svc", "data")),
    # UiModeManagerService: ``cmd uimode night`` prints "Night mode: yes"
    SettingCodec("dark_mode", (("secure", "ui_night_mode"),), "night-mode (1 no, 2 yes; 0 auto, 3 custom unknown)",
                 lambda v: "2" if v else "1", _night, _switch("cmd", "uimode", "night", on="yes", off="no"),
                 ("cmd", "uimode", "night"), "parse_night_mode"),
    # ZenModeHelper writes ``zen_mode`` back from its own state: only NotificationManager's command sets it
    SettingCodec("do_not_disturb", (("global", "zen_mode"),), "zen-mode (0 off, 1-3 on)",
                 _onoff, _on, _switch("cmd", "notification", "set_dnd", on="priority", off="off"),
                 ("dumpsys", "notification"), "parse_zen_mode"),
    # LocationManagerService's shell command
    SettingCodec("location", (("secure", "location_mode"), ("secure", "location_providers_allowed")),
                 "location-mode (0 off, 3 high accuracy; before Android 9 a provider list)",
                 lambda v: "3" if v else "0", _location,
                 _switch("cmd", "location", "set-location-enabled", on="true", off="false"),
                 ("cmd", "location", "is-location-enabled"), "parse_location_enabled"),
    SettingCodec("auto_rotate", (("system", "accelerometer_rotation"),), "bool", _onoff, _on),
    SettingCodec("adaptive_brightness", (("system", "screen_brightness_mode"),), "bool (1 = automatic)",
                 _onoff, lambda k, v: None if _int(v) is None else _int(v) == 1),
    # some OEMs use 0-4095: not comparable, read as unknown
    SettingCodec("brightness", (("system", "screen_brightness"),), "int 0-255", str, _ranged(0, 255)),
    SettingCodec("screen_off_timeout_ms", (("system", "screen_off_timeout"),), "int ms >= 0", str, _ranged(0, None)),
    SettingCodec("font_scale", (("system", "font_scale"),), "float (0, 3]", lambda v: repr(float(v)), _font),
    # AudioService: the ringer from ``dumpsys audio``'s ``- mode (external) = …`` (``global mode_ringer``
    # is only its record); set by RINGER_COMMANDS, applied before the command returns
    SettingCodec("ringer_mode", (("global", "mode_ringer"),), "ringer (0 silent, 1 vibrate, 2 normal)",
                 lambda v: _RINGER_CODE[v], lambda k, v: _RINGER.get(_int(v)) if _int(v) is not None else None,
                 _ringer_commands, ("dumpsys", "audio"), "parse_ringer_mode", verify_s=0.75),
    # AudioService: the stream's index (MediaShellCommand → VolumeCtrl ``[V] volume is N in range``),
    # not ``system volume_music_speaker``, which AudioService writes only 500 ms after a change and
    # only under the current output device's name (absent on a fresh phone)
    SettingCodec("media_volume", (("system", "volume_music_speaker"), ("system", "volume_music")), "int 0-25",
                 str, _ranged(0, 25),
                 lambda v: [["cmd", "media_session", "volume", "--stream", "3", "--set", str(v)]],
                 ("cmd", "media_session", "volume", "--stream", "3", "--get"), "parse_volume_get"),
    SettingCodec("device_name", (("global", "device_name"), ("secure", "bluetooth_name")), "text", str, _text),
)

SETTINGS: dict[str, SettingCodec] = {c.field: c for c in _SETTINGS}
"""Every settable ``WorldState.settings`` field → its codec (``flashlight`` has none: the torch
lives in the camera service, not in settings, and no shell command sets it)."""


def codec(field: str) -> SettingCodec | None:
    return SETTINGS.get(field)


#: Where each field comes from: (namespace, key), in order of preference.
SETTING_SOURCES: dict[str, tuple[tuple[str, str], ...]] = {c.field: c.sources for c in _SETTINGS}
#: Fields whose key a raw ``settings put`` changes without changing the service.
SERVICE_MIRRORED: frozenset[str] = frozenset(c.field for c in _SETTINGS if c.mirrored)
#: Fields read from their service's status (the rest from their keys).
SERVICE_READ: tuple[str, ...] = tuple(c.field for c in _SETTINGS if c.status is not None)


# ============================================================================ provider columns
# frameworks/base core/java/android/provider/: the constants are public API, unchanged since added.

#: ``content://sms`` ``type`` of each world box (Telephony.TextBasedSmsColumns.MESSAGE_TYPE_*).
SMS_TYPE: dict[str, int] = {"inbox": 1, "sent": 2, "draft": 3, "outbox": 4, "failed": 5}
SMS_TYPE_QUEUED = 6
#: A stored ``type`` → the world's box; a queued message waits to be sent, so the world keeps it in
#: the outbox (it has no queue of its own).
SMS_BOX_OF_TYPE: dict[int, str] = {**{t: box for box, t in SMS_TYPE.items()}, SMS_TYPE_QUEUED: "outbox"}
#: What the shell sees through SmsProvider's restricted view (not the default SMS app): inbox, sent.
SMS_VISIBLE_TYPES: tuple[int, ...] = (SMS_TYPE["inbox"], SMS_TYPE["sent"])
SMS_HIDDEN_TYPES: tuple[int, ...] = tuple(t for t in sorted(SMS_BOX_OF_TYPE) if t not in SMS_VISIBLE_TYPES)
#: What a policy writes going *out* during an episode: every box but the inbox.
SMS_EPISODE_TYPES: tuple[int, ...] = tuple(t for t in sorted(SMS_BOX_OF_TYPE) if t != SMS_TYPE["inbox"])

#: ``content://call_log/calls`` ``type`` of each world call kind (CallLog.Calls.*_TYPE).
CALL_TYPE: dict[str, int] = {"incoming": 1, "outgoing": 2, "missed": 3, "voicemail": 4, "rejected": 5, "blocked": 6}
#: A stored ``type`` → the world's kind (7 = answered on another device: still an incoming call).
CALL_KIND_OF_TYPE: dict[int, str] = {**{t: kind for kind, t in CALL_TYPE.items()}, 7: "incoming"}

#: ContactsContract.CommonDataKinds.Phone.TYPE_* of each world label (0 = custom, label in ``data3``).
PHONE_TYPE: dict[str, int] = {
    "home": 1, "mobile": 2, "work": 3, "work_fax": 4, "home_fax": 5, "pager": 6, "other": 7, "callback": 8,
    "car": 9, "company_main": 10, "isdn": 11, "main": 12, "other_fax": 13, "radio": 14, "telex": 15,
    "tty_tdd": 16, "work_mobile": 17, "work_pager": 18, "assistant": 19, "mms": 20,
}
PHONE_TYPE_CUSTOM = 0
PHONE_LABEL_OF_TYPE: dict[int, str] = {t: label for label, t in PHONE_TYPE.items()}

#: ContactsContract.CommonDataKinds.*.CONTENT_ITEM_TYPE
MIME_NAME = "vnd.android.cursor.item/name"
MIME_PHONE = "vnd.android.cursor.item/phone_v2"
MIME_EMAIL = "vnd.android.cursor.item/email_v2"
MIME_ORG = "vnd.android.cursor.item/organization"
MIME_NOTE = "vnd.android.cursor.item/note"

#: java.util.Calendar day numbers (AlarmClock.EXTRA_DAYS) of the world's days.
CALENDAR_DAY: dict[str, int] = {"sun": 1, "mon": 2, "tue": 3, "wed": 4, "thu": 5, "fri": 6, "sat": 7}
