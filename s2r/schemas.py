"""JSON Schemas of every model that crosses a boundary, for users writing other-language clients."""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter

# name → "module:attribute"; optional entries are skipped until their module exists.
SCHEMAS: dict[str, str] = {
    "Action": "actionmap.actions:AnyAction",
    "Observation": "actionmap.observation:Observation",
    "UIElement": "actionmap.observation:UIElement",
    "WorldState": "actionmap.worldstate:WorldState",
    "StepInfo": "actionmap.env:StepInfo",
    "TaskInstance": "transfer.tasks.model:TaskInstance",
    "EpisodeRecord": "transfer.records:EpisodeRecord",
}
REQUIRED = ("Action", "Observation", "UIElement", "WorldState", "StepInfo")


def schema_of(spec: str) -> dict[str, Any]:
    mod, attr = spec.split(":")
    obj = getattr(importlib.import_module(mod), attr)
    return TypeAdapter(obj).json_schema()


def write_schemas(out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, spec in SCHEMAS.items():
        try:
            sch = schema_of(spec)
        except (ImportError, AttributeError):
            if name in REQUIRED:
                raise
            continue
        sch.setdefault("title", name)
        p = out / f"{name}.schema.json"
        p.write_text(json.dumps(sch, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        written.append(p)
    return written
