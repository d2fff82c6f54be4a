"""What every part of :class:`~device.virtual.phone.VirtualPhone` shares: the state the phone
owns, declared once, and the helper objects a phone carries.

Why its own module: the phone is composed of mixins with one job each (identity, clock, world,
screen, input, power); each reads the same state, which ``VirtualPhone.__init__`` sets up.
:class:`PhonePart` declares that state for all of them in one place. :func:`attached` gives
the per-phone objects other modules hang on a phone (the keyguard window, the clipboard
overlay, the process table), created on first use.
"""

from __future__ import annotations

import random
import threading
from typing import TYPE_CHECKING, Any, Callable, TypeVar

if TYPE_CHECKING:
    from zoneinfo import ZoneInfo

    from sim.env import SimEnv

    from .adbd import ThreadedAdbd
    from .android import AndroidBackend
    from .android_storage import PhoneFS, StorageMirror
    from .families import Family
    from .knobs import PhoneKnobs

__all__ = ["PhonePart", "attached"]

T = TypeVar("T")


class PhonePart:
    """A part of :class:`~device.virtual.phone.VirtualPhone` (see its module doc); the state it
    uses is set up by ``VirtualPhone.__init__``."""

    knobs: "PhoneKnobs"
    family: "Family"
    env: "SimEnv"
    zone: "ZoneInfo"
    fs: "PhoneFS"
    mirror: "StorageMirror"
    backend: "AndroidBackend"
    adbd: "ThreadedAdbd"
    _lock: threading.RLock
    _rng: random.Random


def attached(phone: Any, name: str, make: Callable[[], T]) -> T:
    """The object a phone carries as ``name``, made by ``make()`` on first use (one per phone)."""
    obj = getattr(phone, name, None)
    if obj is None:
        obj = make()
        setattr(phone, name, obj)
    return obj
