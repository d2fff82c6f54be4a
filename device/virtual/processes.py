"""The phone's table of long-running processes a shell command started (uiautomator2's ``app_process``).

Why its own module: ``ps``, ``kill``, ``pidof``, ``uiautomator dump`` (which fails while another
process holds UiAutomation) and ``app_process`` all read or change the same table.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from .phone_part import attached

__all__ = ["DeviceProcess", "process_table", "uiautomation_holder"]


@dataclass
class DeviceProcess:
    """A long-running process a shell command started (uiautomator2's ``app_process``).

    ``stop`` ends it as a signal would; ``holds_uiautomation`` marks a process connected to
    ``UiAutomation`` (only one may be: UiAutomationManager.registerUiTestAutomationServiceLocked).
    """

    pid: int
    ppid: int
    name: str
    user: str = "shell"
    holds_uiautomation: bool = False
    stop: asyncio.Event = field(default_factory=asyncio.Event)
    loop: asyncio.AbstractEventLoop | None = None
    signal: int = 0
    args: str = ""

    def kill(self, signum: int = 15) -> None:
        self.signal = signum
        if self.loop is not None and self.loop.is_running():
            self.loop.call_soon_threadsafe(self.stop.set)
        else:
            self.stop.set()


def process_table(phone: Any) -> dict[int, DeviceProcess]:
    """The phone's shell-started processes by pid (shared by ``ps``, ``kill``, ``uiautomator``)."""
    return attached(phone, "_s2r_processes", dict)


def uiautomation_holder(phone: Any) -> DeviceProcess | None:
    """The process holding UiAutomation now, if any."""
    return next((p for p in process_table(phone).values() if p.holds_uiautomation), None)

