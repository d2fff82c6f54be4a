"""``settings list|get`` output → dicts, and the keys that matter → ``WorldState.settings``.

The settings provider is the one place a phone exposes most toggles without root, but the
values are raw integers whose meaning varies: ``wifi_on`` is 2 when Wi-Fi stays on through
airplane mode and 3 when airplane mode switched it off, ``zen_mode`` 1–3 are all "Do Not Disturb on",
``ui_night_mode`` 0 means "automatic" (we cannot tell whether it is dark right now). Every
interpretation lives in the codec table (:mod:`device.codecs`), and anything it cannot interpret
stays ``None`` — *unknown* to the judge, never a wrong value.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from actionmap.worldstate import Settings
from device.codecs import SETTING_SOURCES, SETTINGS

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


def settings_to_worldstate(global_: Mapping[str, str] | None = None, system: Mapping[str, str] | None = None,
                           secure: Mapping[str, str] | None = None) -> Settings:
    """Interpret the three namespaces into ``Settings`` by the codec table; a missing or odd value is ``None``.

    Not readable here, left ``None``: ``flashlight`` (the torch state lives in the camera
    service, not in settings).
    """
    ns: dict[str, Mapping[str, str]] = {"global": global_ or {}, "system": system or {}, "secure": secure or {}}
    out: dict[str, object] = {}
    for field, c in SETTINGS.items():
        out[field] = None
        for space, key in c.sources:  # the first source that holds a value decides
            v = ns[space].get(key)
            if v is not None and v != "null":
                out[field] = c.decode(key, v)
                break
    return Settings.model_validate(out)
