"""What a setup changed on one phone, kept so it can be undone — also after a crash.

The journal (:class:`Journal`) lives on the host (``~/.cache/s2r/device-journal/<serial>.json``),
written after every change, so a crashed run is cleaned up the next time the phone is used. It
holds the settings changed (with their old values), the rows, files and folders created, the
labels of alarms and timers set, and the episode's start marks that teardown puts the phone back
to. Also here: the reports of a setup and a teardown, :class:`SetupError`, and run tags.
"""

from __future__ import annotations

import os
import secrets
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from device.adbshell import Shell
from device.parsers import parse_settings_get

__all__ = ["new_tag", "journal_dir", "SetupError", "RawSetting", "SettingsJournal", "SettingChange", "CreatedRow",
           "CreatedFile", "Journal", "SetupReport", "TeardownReport"]


def new_tag() -> str:
    """A fresh run tag, e.g. ``s2r-1a2b3c4d``."""
    return "s2r-" + secrets.token_hex(4)


def journal_dir() -> Path:
    """Where journals live: ``$S2R_DEVICE_JOURNAL`` or ``~/.cache/s2r/device-journal``."""
    return Path(os.environ.get("S2R_DEVICE_JOURNAL") or Path.home() / ".cache" / "s2r" / "device-journal")


class SetupError(RuntimeError):
    """The setup cannot be reproduced on this phone (the episode would be judged on a wrong start).

    ``unsupported`` is True when the reason is a capability this backend lacks (no API writes
    a world clock, a setting needs root): trying again, here or on another phone of the same
    kind, cannot help, so a runner reports the episode apart instead of retrying it as an
    infrastructure fault.
    """

    def __init__(self, message: str, *, unsupported: bool = False):
        super().__init__(message)
        self.unsupported = unsupported


class RawSetting(BaseModel):
    namespace: str
    key: str
    old: str | None = Field(description="Value before s2r changed it; None = the key was unset.")


class SettingsJournal(BaseModel):
    """Raw ``settings put`` changes with their previous values (first change of a key wins)."""

    entries: list[RawSetting] = Field(default_factory=list)

    def put(self, shell: Shell, namespace: str, key: str, value: str, on_record: Callable[[], None] | None = None) -> bool:
        if not any(e.namespace == namespace and e.key == key for e in self.entries):
            old = parse_settings_get(shell.out(["settings", "get", namespace, key]))
            self.entries.append(RawSetting(namespace=namespace, key=key, old=old))
            if on_record:
                on_record()
        r = shell.run(["settings", "put", namespace, key, value])
        return r.rc in (0, None) and "Exception" not in r.text

    def restore(self, shell: Shell) -> list[str]:
        problems = []
        for e in reversed(self.entries):
            argv = (["settings", "delete", e.namespace, e.key] if e.old is None
                    else ["settings", "put", e.namespace, e.key, e.old])
            r = shell.run(argv)
            now = parse_settings_get(shell.out(["settings", "get", e.namespace, e.key]))
            if now != e.old:
                problems.append(f"{e.namespace}/{e.key}: wanted {e.old!r}, still {now!r} ({r.text.strip()[:100]})")
        self.entries.clear()
        return problems


class SettingChange(BaseModel):
    field: str
    old: Any = None
    new: Any = None
    how: str = ""


class CreatedRow(BaseModel):
    """A provider row setup created: found again by its marker, or by id + content."""

    kind: str
    uri: str
    id: str
    content: dict[str, str] = Field(default_factory=dict, description="Column values to re-check before deleting.")
    tagged: bool = True


class CreatedFile(BaseModel):
    path: str
    size: int
    head: str = Field("", description="Hex of the first bytes written (the tag marker).")


class Journal(BaseModel):
    """Everything one setup changed on one phone, persisted so a crash can be undone later."""

    serial: str
    tag: str
    started_at: float = Field(default_factory=time.time)
    settings: list[SettingChange] = Field(default_factory=list)
    raw: SettingsJournal = Field(default_factory=SettingsJournal)
    rows: list[CreatedRow] = Field(default_factory=list)
    files: list[CreatedFile] = Field(default_factory=list)
    dirs: list[str] = Field(default_factory=list)
    alarm_labels: list[str] = Field(default_factory=list)
    timer_labels: list[str] = Field(default_factory=list)
    clipboard_old: str | None = None
    clipboard_set: bool = False
    episode_marks: dict[str, int] = Field(
        default_factory=dict, description="Highest provider _id per kind once setup was done: rows above it that "
                                          "the episode itself wrote are undone at teardown (see EPISODE_ROWS).")
    alarms_at_start: list[tuple[int, int, str]] | None = Field(
        None, description="(hour, minute, label) of every alarm the start-of-episode probe saw; on a "
                          "dedicated test phone, alarms beyond these are the episode's and are deleted.")
    settings_at_start: dict[str, Any] | None = Field(
        None, description="Every settable setting once setup was done: what the episode changes is put back.")
    permissions_at_start: dict[str, dict[str, list[Any]]] | None = Field(
        None, description="Runtime permissions ({package: {permission: [granted, flags]}}) of the apps s2r "
                          "drives once setup was done: a prompt the policy answered is undone at teardown.")
    sms_read_at_start: dict[int, str] | None = Field(
        None, description="The read flag of every SMS the shell could see once setup was done: opening a "
                          "conversation marks the phone's own messages read, and teardown puts the flags back.")
    files_at_start: list[tuple[str, int]] | None = Field(
        None, description="(path, size) of shared-storage files once setup was done (dedicated test phones): "
                          "files the episode moved are moved back, files it added are removed.")
    path: str | None = Field(None, exclude=True)

    def save(self) -> None:
        if not self.path:
            return
        p = Path(self.path)
        p.parent.mkdir(parents=True, exist_ok=True)
        tmp = p.with_suffix(".tmp")
        tmp.write_text(self.model_dump_json(indent=1), encoding="utf-8")
        tmp.replace(p)

    def discard(self) -> None:
        if self.path and Path(self.path).exists():
            Path(self.path).unlink()

    @classmethod
    def load(cls, path: Path) -> "Journal | None":
        try:
            j = cls.model_validate_json(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        j.path = str(path)
        return j

    @property
    def empty(self) -> bool:
        return not (self.settings or self.raw.entries or self.rows or self.files or self.dirs or self.alarm_labels
                    or self.timer_labels or self.clipboard_set)


class SetupReport(BaseModel):
    tag: str
    applied: list[str] = Field(default_factory=list)
    ignored: list[str] = Field(default_factory=list, description="Parts of the patch devices do not apply.")
    failed: list[str] = Field(default_factory=list)
    unsupported: list[str] = Field(default_factory=list,
                                   description="Failures that are capabilities this backend lacks (also in failed).")
    timings_ms: dict[str, float] = Field(default_factory=dict)


class TeardownReport(BaseModel):
    tag: str
    removed: dict[str, int] = Field(default_factory=dict)
    restored: list[str] = Field(default_factory=list)
    left: list[str] = Field(default_factory=list, description="What could not be undone (tell the user).")
    leftovers: list[str] = Field(default_factory=list,
                                 description="Records no provider lists (alarms, timers) that s2r's setup or the "
                                             "episode created and teardown could not delete, one entry each (each "
                                             "also said in `left`): the run's audit counts them as leftovers.")
    unverified: list[str] = Field(default_factory=list,
                                  description="What teardown could not check (an alarm list it could not read): "
                                              "the run's audit lists them as not readable.")
