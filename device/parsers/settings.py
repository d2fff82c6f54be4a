"""``settings list|get`` output → dicts, and the keys that matter → ``WorldState.settings``.

The settings provider is the one place a phone exposes most toggles without root, but the
values are raw integers whose meaning varies: ``wifi_on`` is 2 when Wi-Fi stays on through
airplane mode and 3 when airplane mode switched it off, ``zen_mode`` 1–3 are all "Do Not Disturb on",
``ui_night_mode`` 0 means "automatic" (we cannot tell whether it is dark right now). Every
interpretation lives here, and anything we cannot interpret stays ``None`` — *unknown* to
the judge, never a wrong value.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from actionmap.worldstate import Settings

from ._common import ParseError, normalize_text

__all__ = ["parse_settings_list", "parse_settings_get", "settings_to_worldstate", "SETTING_SOURCES"]

_KEY_LINE = re.compile(r"^([A-Za-z0-9_][A-Za-z0-9_.:@/\-]*)=(.*)$")
_WARNING = re.compile(r"^(WARNING|linker|\s+at [\w.$]+\()", re.I)


def parse_settings_list(text: str | bytes) -> dict[str, str]:
    """``settings list <namespace>`` → ``{key: value}`` (values kept as printed, ``"null"`` included).

    Lines before the first ``key=value`` line (linker warnings, a shell banner) are skipped.
    A later line that is not ``key=value`` continues the previous value: the provider
    stores multi-line strings (for example a JSON blob) and ``settings list`` prints them raw.
    """
    out: dict[str, str] = {}
    last: str | None = None
    for line in normalize_text(text).split("\n"):
        m = _KEY_LINE.match(line)
        if m:
            last = m.group(1)
            out[last] = m.group(2)
        elif last is not None and line and not _WARNING.match(line):
            out[last] += "\n" + line
    while last is not None and out.get(last, "").endswith("\n"):
        out[last] = out[last].rstrip("\n")
    if not out and normalize_text(text).strip():
        raise ParseError("no key=value lines: this is not `settings list` output")
    return out


def parse_settings_get(text: str | bytes) -> str | None:
    """``settings get <ns> <key>`` → the value, ``None`` for ``null`` (the key is unset).

    Warnings printed before the value are skipped: the value is the last non-empty line.
    """
    lines = [ln for ln in normalize_text(text).split("\n") if ln.strip()]
    lines = [ln for ln in lines if not _WARNING.match(ln)] or lines
    if not lines:
        return None
    v = lines[-1].strip()
    return None if v == "null" else v


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


def _on(v: str | None) -> bool | None:
    """0 → off, any other integer → on (``bluetooth_on`` 2 = on while in airplane mode)."""
    i = _int(v)
    return None if i is None else i != 0


# WifiSettingsStore: 0 disabled, 1 enabled, 2 enabled despite airplane mode, 3 disabled *by* airplane mode
_WIFI = {0: False, 1: True, 2: True, 3: False}


_RINGER = {0: "silent", 1: "vibrate", 2: "normal"}

# Where each WorldState.settings field comes from: (namespace, key), in order of preference.
SETTING_SOURCES: dict[str, tuple[tuple[str, str], ...]] = {
    "wifi": (("global", "wifi_on"),),
    "bluetooth": (("global", "bluetooth_on"), ("secure", "bluetooth_on")),
    "airplane_mode": (("global", "airplane_mode_on"), ("system", "airplane_mode_on")),
    "mobile_data": (("global", "mobile_data"), ("secure", "mobile_data")),
    "dark_mode": (("secure", "ui_night_mode"),),
    "do_not_disturb": (("global", "zen_mode"),),
    "location": (("secure", "location_mode"), ("secure", "location_providers_allowed")),
    "auto_rotate": (("system", "accelerometer_rotation"),),
    "adaptive_brightness": (("system", "screen_brightness_mode"),),
    "brightness": (("system", "screen_brightness"),),
    "screen_off_timeout_ms": (("system", "screen_off_timeout"),),
    "font_scale": (("system", "font_scale"),),
    "ringer_mode": (("global", "mode_ringer"),),
    "media_volume": (("system", "volume_music_speaker"), ("system", "volume_music")),
    "device_name": (("global", "device_name"), ("secure", "bluetooth_name")),
}


def settings_to_worldstate(global_: Mapping[str, str] | None = None, system: Mapping[str, str] | None = None,
                           secure: Mapping[str, str] | None = None) -> Settings:
    """Interpret the three namespaces into ``Settings``; a missing or odd value is ``None``.

    Not readable here, left ``None``: ``flashlight`` (the torch state lives in the camera
    service, not in settings).
    """
    ns: dict[str, Mapping[str, str]] = {"global": global_ or {}, "system": system or {}, "secure": secure or {}}

    def raw(field: str) -> tuple[str, str | None]:
        for space, key in SETTING_SOURCES[field]:
            v = ns[space].get(key)
            if v is not None and v != "null":
                return key, v
        return "", None

    out: dict[str, object] = {}
    for field in ("bluetooth", "airplane_mode", "mobile_data", "auto_rotate"):
        out[field] = _on(raw(field)[1])
    wifi = _int(raw("wifi")[1])
    out["wifi"] = _WIFI.get(wifi) if wifi is not None else None

    zen = _int(raw("do_not_disturb")[1])
    out["do_not_disturb"] = None if zen is None else zen != 0

    night = _int(raw("dark_mode")[1])
    out["dark_mode"] = {1: False, 2: True}.get(night) if night is not None else None  # 0 = auto, 3 = custom: unknown

    key, loc = raw("location")
    if key == "location_mode":
        out["location"] = _on(loc)
    elif key == "location_providers_allowed":  # before Android 9: a list such as "gps,network"
        out["location"] = bool(loc and loc.strip())
    else:
        out["location"] = None

    mode = _int(raw("adaptive_brightness")[1])
    out["adaptive_brightness"] = None if mode is None else mode == 1

    br = _int(raw("brightness")[1])
    out["brightness"] = br if br is not None and 0 <= br <= 255 else None  # some OEMs use 0–4095: not comparable

    to = _int(raw("screen_off_timeout_ms")[1])
    out["screen_off_timeout_ms"] = to if to is not None and to >= 0 else None

    fs = _float(raw("font_scale")[1])
    out["font_scale"] = fs if fs is not None and 0 < fs <= 3 else None

    rm = _int(raw("ringer_mode")[1])
    out["ringer_mode"] = _RINGER.get(rm) if rm is not None else None

    vol = _int(raw("media_volume")[1])
    out["media_volume"] = vol if vol is not None and 0 <= vol <= 25 else None

    name = raw("device_name")[1]
    out["device_name"] = name if name else None
    return Settings.model_validate(out)
