"""``getprop`` → ``{key: value}``, and the device identity WorldState records.

Lines look like ``[ro.product.model]: [Pixel 7]``; a few values span lines (for example
``persist.sys.boot.reason.history``), so a value ends at the ``]`` that closes a line
followed by the next ``[key]: [`` or the end of the output.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from actionmap.worldstate import DeviceInfo

from ._common import ParseError, normalize_text

__all__ = ["parse_getprop", "device_info_from_props", "prop"]

_PROP = re.compile(r"^\[([^\]\n]+)\]: \[(.*?)\]\s*$(?=\n\[[^\]\n]+\]: \[|\s*\Z)", re.M | re.S)


def parse_getprop(text: str | bytes) -> dict[str, str]:
    """All properties; lines before the first property (warnings) are ignored."""
    t = normalize_text(text)
    out = {m.group(1): m.group(2) for m in _PROP.finditer(t.rstrip() + "\n")}
    if not out:
        raise ParseError("no '[key]: [value]' lines: not `getprop` output")
    return out


def prop(props: Mapping[str, str], *keys: str) -> str | None:
    """The first non-empty value among ``keys`` (OEMs move props between partitions)."""
    for k in keys:
        v = props.get(k)
        if v:
            return v
    return None


def device_info_from_props(props: Mapping[str, str]) -> DeviceInfo:
    sdk = prop(props, "ro.build.version.sdk", "ro.system.build.version.sdk")
    return DeviceInfo(
        manufacturer=prop(props, "ro.product.manufacturer", "ro.product.vendor.manufacturer",
                          "ro.product.system.manufacturer", "ro.product.brand"),
        model=prop(props, "ro.product.model", "ro.product.vendor.model", "ro.product.system.model"),
        android_version=prop(props, "ro.build.version.release", "ro.build.version.release_or_codename"),
        sdk=int(sdk) if sdk and sdk.strip().isdigit() else None,
        build=prop(props, "ro.build.id", "ro.build.display.id"),
    )
