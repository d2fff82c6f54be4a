"""What the virtual phone's work costs in time: the ``timing`` knobs turned into sleeps.

Why its own module: the uiautomator2 server, ``screencap``/``uiautomator dump``/``input`` and
``content`` all charge the phone's time the same way (a published figure minus what this phone
already spent producing the answer), so the rule lives once.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

__all__ = ["phone_knob", "spend", "dump_cost_ms"]


def phone_knob(phone: Any, name: str) -> float:
    """A timing knob of the phone (0 for a phone without knobs: no added cost)."""
    return float(getattr(getattr(phone, "knobs", None), name, 0.0) or 0.0)


async def spend(ms: float, since: float | None = None) -> None:
    """Take ``ms`` of the phone's time, as the real capture or command would (the ``timing``
    knobs of :mod:`device.virtual.knobs`; 0 under ``timing="fast"``). Sleeps off the phone's
    lock, so concurrent requests overlap as they do on a phone.

    ``since`` (a ``time.perf_counter()`` taken when the work began): the figure is the phone's
    *whole* cost of that work — a published screencap time includes its encoding, a dump's
    includes the walk — so what the virtual phone itself already spent producing the answer
    (rendering the sim, encoding the frame) counts toward it, and only the rest is slept.
    Without it the cost is added whole (a runtime start that precedes the work)."""
    if since is not None:
        ms -= (time.perf_counter() - since) * 1e3
    if ms > 0:
        await asyncio.sleep(ms / 1000)


def dump_cost_ms(phone: Any, xml: str) -> float:
    """A hierarchy dump's cost: fixed part + per node (``AccessibilityNodeInfoDumper`` walks
    every node over binder)."""
    kn = getattr(phone, "knobs", None)
    return kn.dump_cost_ms(xml.count("<node ")) if kn is not None and hasattr(kn, "dump_cost_ms") else 0.0

