"""Parse ``dumpsys battery``: charge, temperature, charger and charging status of a phone.

Why: a farm pauses a phone that is too hot or too flat (:mod:`device.farm`), and its page shows
each phone's battery; both read this one cheap dump. BatteryService prints ``mHealthInfo`` as
``key: value`` lines under ``Current Battery Service state:`` (frameworks/base
``services/core/java/com/android/server/BatteryService.java`` ``dumpInternal``): ``level`` of
``scale``, ``temperature`` in tenths of °C, one ``… powered: true|false`` line per charger (``Dock
powered`` from Android 13), ``status`` and ``health`` as ``BatteryManager`` codes. Releases and
vendors add lines (``Charging state``/``Charging policy`` on 14/15; Samsung's ``mSecPlugTypeSummary``,
``LED Charging`` …, sometimes a lower-case ``charge counter`` again), and a web page or a paste may
lose the indentation — only the first occurrence of each known key counts, at any indentation.
After the shell's ``dumpsys battery set`` the values are frozen and the dump says ``(UPDATES
STOPPED -- use 'reset' to restart)``: :attr:`BatteryReading.updates_stopped`.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, Field

from ._common import ParseError, normalize_text

__all__ = ["HEALTH_NAMES", "STATUS_NAMES", "BatteryReading", "parse_battery", "parse_dumpsys_battery"]

#: ``BatteryManager.BATTERY_STATUS_*``
STATUS_NAMES: dict[int, str] = {1: "unknown", 2: "charging", 3: "discharging", 4: "not charging", 5: "full"}
#: ``BatteryManager.BATTERY_HEALTH_*``
HEALTH_NAMES: dict[int, str] = {1: "unknown", 2: "good", 3: "overheat", 4: "dead", 5: "over voltage",
                                6: "unspecified failure", 7: "cold"}
_CHARGERS = (("AC powered", "ac"), ("USB powered", "usb"), ("Wireless powered", "wireless"),
             ("Dock powered", "dock"))
_LINE = re.compile(r"^[ \t]*([A-Za-z][A-Za-z ]*?)[ \t]*:[ \t]*(\S.*?)?[ \t]*$", re.MULTILINE)


class BatteryReading(BaseModel):
    """One ``dumpsys battery``: what BatteryService reports (``None``: the dump had no such line)."""

    level: int | None = Field(None, description="Charge in units of `scale` (a percentage when scale is 100).")
    scale: int = 100
    temperature_c: float | None = Field(None, description="Battery temperature, °C (the dump's tenths / 10).")
    status: int | None = Field(None, description="BatteryManager status: 2 charging, 3 discharging, 4 not "
                                                 "charging, 5 full, 1 unknown.")
    health: int | None = Field(None, description="BatteryManager health: 2 good, 3 overheat, 7 cold …")
    present: bool | None = None
    plugged: list[str] = Field(default_factory=list, description="Chargers online: ac, usb, wireless, dock.")
    voltage_mv: int | None = None
    technology: str | None = None
    updates_stopped: bool = Field(False, description="The shell froze the values (`dumpsys battery set`).")

    @property
    def percent(self) -> float | None:
        """The charge in % whatever the scale."""
        if self.level is None:
            return None
        return round(100.0 * self.level / self.scale, 1) if self.scale > 0 else float(self.level)

    @property
    def charging(self) -> bool | None:
        """The battery is being charged (status ``charging``); ``None`` when the dump has no status."""
        return None if self.status is None else self.status == 2

    @property
    def status_name(self) -> str | None:
        return None if self.status is None else STATUS_NAMES.get(self.status, str(self.status))

    @property
    def health_name(self) -> str | None:
        return None if self.health is None else HEALTH_NAMES.get(self.health, str(self.health))

    def summary(self) -> dict[str, object]:
        """JSON-ready: what a farm records and shows per phone."""
        return {"level": self.percent, "temperature_c": self.temperature_c, "charging": self.charging,
                "plugged": list(self.plugged), "status": self.status_name, "health": self.health_name,
                "present": self.present, "updates_stopped": self.updates_stopped}


def _word(v: str | None) -> str:
    """The value's first word (a paste may carry a ``# note`` after it)."""
    return (v or "").split()[0] if (v or "").split() else ""


def _int(v: str | None) -> int | None:
    m = re.match(r"-?\d+", v or "")
    return int(m.group(0)) if m else None


def parse_dumpsys_battery(text: str | bytes) -> BatteryReading:
    """Read ``dumpsys battery`` (any release, vendor lines ignored). Raises :class:`ParseError`
    when the text has no ``level:`` line (not this dump: a missing service, a permission error)."""
    t = normalize_text(text)
    fields: dict[str, str] = {}
    for m in _LINE.finditer(t):
        fields.setdefault(m.group(1), (m.group(2) or "").strip())
    level = _int(fields.get("level"))
    if level is None:
        raise ParseError("no 'level:' line: not `dumpsys battery` output")
    temp = _int(fields.get("temperature"))
    scale = _int(fields.get("scale"))
    present = fields.get("present")
    return BatteryReading(
        level=level, scale=scale if scale and scale > 0 else 100,
        temperature_c=None if temp is None else temp / 10.0,
        status=_int(fields.get("status")), health=_int(fields.get("health")),
        present=None if present is None else _word(present).lower() == "true",
        plugged=[name for key, name in _CHARGERS if _word(fields.get(key)).lower() == "true"],
        voltage_mv=_int(fields.get("voltage")), technology=_word(fields.get("technology")) or None,
        updates_stopped="UPDATES STOPPED" in t)


#: the short name the farm page reads it by
parse_battery = parse_dumpsys_battery
