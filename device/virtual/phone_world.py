"""The virtual phone's access to the sim world: capture, read, patch and mutate its state under
the phone's lock, and keep shared storage and the world's files in step.

Why its own module: every shell command and the uiautomator2 server change the phone only
through these few locked entry points; a mixin of :class:`~device.virtual.phone.VirtualPhone`.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any, Callable, TypeVar

from actionmap.apps import registry
from actionmap.patch import StatePatch
from actionmap.worldstate import WorldState

from .phone_part import PhonePart

__all__ = ["PhoneWorld"]

T = TypeVar("T")


class PhoneWorld(PhonePart):
    """A part of :class:`~device.virtual.phone.VirtualPhone` (see the module doc)."""

    # ------------------------------------------------------------------ state access
    def capture(self) -> str:
        """The whole sim phone as JSON text (after syncing clock and storage)."""
        with self._lock:
            self._prepare_locked()
            return self.env.capture()

    def read_state(self) -> WorldState:
        """The phone's world as the judge reads it (storage and clock synced first)."""
        with self._lock:
            self._prepare_locked()
            ws = self.env.read_state()
            pkg, act = self._foreground_locked()
            ws.foreground.package = pkg
            ws.foreground.activity = act
            ws.foreground.app = self.family.package_apps.get(pkg) or registry().app_of_package(pkg)
            return ws

    def patch(self, patch: StatePatch | dict[str, Any]) -> None:
        """Apply a task setup (``StatePatch``) to the phone's world."""
        with self._lock:
            self._prepare_locked()
            self.env.patch(patch)
            data = json.loads(self.env.capture())
            if data["world"].get("time"):
                when = datetime.fromisoformat(data["world"]["time"])
                if when != self._state_time:
                    self._set_clock(when)
            self._changed_locked()

    def mutate(self, fn: Callable[[dict[str, Any]], T]) -> T:
        """Run ``fn(state_dict)`` on the sim state and keep the result if it is valid.

        The dict is the phone state (``world``, ``ui``, ``sys`` ...); ``fn`` edits it in place.
        Raises ``sim.state.PatchError`` (the phone unchanged) if the result is invalid.
        """
        from sim import state as st

        with self._lock:
            self._prepare_locked()
            before = self.env.capture()
            data = json.loads(before)
            result = fn(data)
            text = json.dumps(data)
            if text != json.dumps(json.loads(before)):
                try:
                    st.load(text)
                except Exception as e:  # noqa: BLE001
                    raise st.PatchError(str(e)) from e
                self.env.restore(text)
                self._changed_locked()
            return result

    def state_data(self) -> dict[str, Any]:
        """A fresh dict of the sim state (read-only use)."""
        with self._lock:
            self._prepare_locked()
            return json.loads(self.env.capture())

    def _prepare_locked(self) -> None:
        self._sync_clock_locked()
        self._sync_files_locked()

    def _changed_locked(self) -> None:
        self._rev += 1
        self._sync_files_locked()

    def sync_files(self) -> None:
        """Mirror shared storage ⇄ ``WorldState.files`` now (also done lazily before reads)."""
        with self._lock:
            self._sync_files_locked()

    def _sync_files_locked(self) -> None:
        data = json.loads(self.env.capture())
        files = data["world"].get("files")
        if not self.mirror.needs_sync(files):
            return
        new = self.mirror.reconcile(files)
        if new is not None:
            data["world"]["files"] = new
            self.env.restore(json.dumps(data))
            if (data.get("ui") or {}).get("current") == "files":
                self._rev += 1  # only the Files app shows shared storage: other screens stay cached
