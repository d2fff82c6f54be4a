"""The farm's heat-and-battery rule: when a phone must rest, and when it may work again.

Why: a phone that runs episodes back to back heats up, and one on a weak USB port drains; a hot
phone throttles (slower frames, different timings than the run measured elsewhere) and a flat one
dies mid-episode. So between episodes — never during one — the farm reads one ``dumpsys battery``
(:mod:`device.parsers.battery`) and *pauses* a phone that is below ``min_battery`` % or above
``max_temp`` °C: its lease goes to nothing until it recovers. Hysteresis keeps it from flapping: it
resumes at ``min_battery + battery_margin`` % and ``max_temp - temp_margin`` °C.

The battery rule holds whether or not the phone charges: a phone on a USB port that gives less
than it draws under load (500 mA) drains while "charging", and an idle paused phone charges
fastest. A phone below the threshold with no charger online stays paused until a person plugs it
in; its reason says so. A phone without a battery (``present: false``: a board on mains power) has
no battery rule; an unreadable dump pauses nothing (the reading is recorded as missing).
"""

from __future__ import annotations

import logging
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from .parsers.battery import BatteryReading, parse_dumpsys_battery

__all__ = ["HealthLimits", "read_battery", "verdict"]

log = logging.getLogger(__name__)


class HealthLimits(BaseModel):
    """When the farm pauses a phone (``0`` turns a rule off) and when it resumes it."""

    model_config = ConfigDict(extra="forbid")
    min_battery: float = Field(20.0, ge=0, le=100, description="Pause below this charge, % (0: never).")
    max_temp: float = Field(45.0, ge=0, le=100, description="Pause above this battery temperature, °C (0: never).")
    battery_margin: float = Field(5.0, ge=0, le=50, description="Resume at min_battery + this, %.")
    temp_margin: float = Field(3.0, ge=0, le=30, description="Resume at max_temp - this, °C.")
    recheck_s: float = Field(5.0, gt=0, description="A paused phone is read again this often.")
    fresh_s: float = Field(30.0, ge=0, description="At lease time, a reading younger than this is not repeated.")

    @property
    def enabled(self) -> bool:
        return self.min_battery > 0 or self.max_temp > 0


def read_battery(client: Any, serial: str, timeout: float = 10.0) -> BatteryReading | None:
    """One ``dumpsys battery`` of the phone (``None``: it did not answer with one)."""
    from .adbshell import Shell

    try:
        res = Shell(client, serial).run(["dumpsys", "battery"], timeout=timeout)
        return parse_dumpsys_battery(res.out)
    except Exception as e:  # noqa: BLE001 - a phone that cannot say is not paused for it
        log.debug("%s: dumpsys battery: %s", serial, e)
        return None


def verdict(r: BatteryReading | None, limits: HealthLimits, paused: bool) -> str | None:
    """Why the phone must rest (``None``: it may work). ``paused``: it rests now, so it must have
    recovered past the hysteresis margin to work again."""
    if r is None or not limits.enabled:
        return None
    why: list[str] = []
    temp = r.temperature_c
    if limits.max_temp > 0 and temp is not None:
        bound = limits.max_temp - limits.temp_margin if paused else limits.max_temp
        if temp > bound:
            why.append(f"temperature {temp:.1f} °C > {bound:g} °C" if not paused
                       else f"temperature {temp:.1f} °C, resumes at ≤ {bound:g} °C")
    level = r.percent
    if limits.min_battery > 0 and level is not None and r.present is not False:
        bound = limits.min_battery + limits.battery_margin if paused else limits.min_battery
        if level < bound:
            power = "charging" if r.plugged else "no charger online: plug it in"
            why.append(f"battery {level:g} % < {bound:g} % ({power})" if not paused
                       else f"battery {level:g} %, resumes at ≥ {bound:g} % ({power})")
    return "; ".join(why) or None
