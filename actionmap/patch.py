"""State patches: how a task's setup is written, once, for both backends.

A patch only *sets settings* and *adds records*; it never deletes what a phone already has.
That is what makes the same setup safe on a researcher's real phone (records we add carry
a run tag and are removed at teardown) and exact in the simulator (which starts from a
known base world, so the added records are the whole story).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from .worldstate import Alarm, Call, CalendarEvent, Contact, FileEntry, Message, Settings, Timer

RECORD_KINDS: dict[str, type[BaseModel]] = {
    "contacts": Contact,
    "messages": Message,
    "events": CalendarEvent,
    "alarms": Alarm,
    "timers": Timer,
    "files": FileEntry,
    "calls": Call,
}


class StartScreen(BaseModel):
    model_config = ConfigDict(extra="forbid")
    app: str | None = Field(None, description="Canonical app id to open before the episode; None = home screen.")
    route: str | None = Field(None, description="Sim-only deep route inside the app (ignored on devices).")


class StatePatch(BaseModel):
    """A backend-neutral change to a phone's world."""

    model_config = ConfigDict(extra="forbid")
    settings: dict[str, Any] = Field(default_factory=dict)
    add: dict[str, list[dict[str, Any]]] = Field(default_factory=dict)
    world_clocks: list[str] = Field(default_factory=list, description="World-clock cities to add.")
    clipboard: str | None = None
    time: datetime | None = Field(None, description="Sim clock; devices keep their own clock and ignore this.")
    start: StartScreen = Field(default_factory=StartScreen)

    @field_validator("settings")
    @classmethod
    def _settings(cls, v: dict[str, Any]) -> dict[str, Any]:
        unknown = set(v) - set(Settings.model_fields)
        if unknown:
            raise ValueError(f"unknown settings: {sorted(unknown)}")
        Settings.model_validate(v)
        return v

    @field_validator("add")
    @classmethod
    def _add(cls, v: dict[str, list[dict[str, Any]]]) -> dict[str, list[dict[str, Any]]]:
        for kind, recs in v.items():
            model = RECORD_KINDS.get(kind)
            if model is None:
                raise ValueError(f"cannot add records of kind {kind!r}; known: {sorted(RECORD_KINDS)}")
            for r in recs:
                model.model_validate(r)
        return v

    def records(self, kind: str) -> list[BaseModel]:
        model = RECORD_KINDS[kind]
        return [model.model_validate(r) for r in self.add.get(kind, [])]
