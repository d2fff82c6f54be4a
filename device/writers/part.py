"""The base of a provider's part of a :class:`~device.writers.DeviceWriter`: the writer's shell,
zone, UI probe and what the session found it may do, read from the writer when used (the session
fills some in after the writer is made).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from device.adbshell import Shell
from device.forwarding import Forwarded

if TYPE_CHECKING:
    from device.readers import UIProbe
    from device.writers.writer import DeviceWriter

__all__ = ["WriterPart"]


class WriterPart:
    """One provider's setup, episode marks and teardown, over the writer ``w`` it belongs to."""

    def __init__(self, w: DeviceWriter):
        self.w = w

    shell: Forwarded[Shell] = Forwarded("w")
    tz: Forwarded[str | None] = Forwarded("w")
    ui: Forwarded[UIProbe | None] = Forwarded("w")
    destructive: Forwarded[bool] = Forwarded("w")
    sms_writable: Forwarded[bool | None] = Forwarded("w")
    restricted_sms: Forwarded[bool] = Forwarded("w")
