"""What the app-layer tests share: the real dumps and the small modelled ones, and how to read them.

``fixtures/real-apps/<family>/<app>/*.xml`` are real phones' screens, each with a ``.truth.json``
a person wrote from the XML (see SOURCES.md and EVIDENCE.md there); ``fixtures/apps/<app>/*.xml``
are small dumps modelled on the apps' own layouts, each citing them at its top.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from actionmap.observation import UIElement
from device.parsers.hierarchy import parse_hierarchy

FIXTURES = Path(__file__).parent / "fixtures"
REAL = FIXTURES / "real-apps"
OWN = FIXTURES / "apps"


def truths(app: str) -> list[Path]:
    """The real dumps' truth files of one app (whatever family folder they sit in)."""
    return sorted(t for t in REAL.glob("*/*/*.truth.json") if json.loads(t.read_text("utf-8")).get("app") == app)


def dump_of(truth: Path) -> Path:
    return truth.with_name(truth.name.replace(".truth.json", ".xml"))


def elements(xml: Path) -> list[UIElement]:
    return parse_hierarchy(xml.read_text("utf-8")).elements


def bounds(s: str | list[int] | tuple[int, ...]) -> list[int]:
    """'[l,t][r,b]' (or a list) → [l, t, r, b]."""
    return list(s) if isinstance(s, (list, tuple)) else [int(x) for x in re.findall(r"-?\d+", s)]


def missing_controls(reading: Any, truth_controls: list[dict[str, Any]],
                     aliases: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """The truth's controls the reading does not list with that role at those bounds."""
    aliases = aliases or {}
    have = {(c.role, tuple(c.bounds)) for c in reading.controls}
    return [c for c in truth_controls if (aliases.get(c["role"], c["role"]), tuple(bounds(c["bounds"]))) not in have]


def drive(gen: Any, replies: list[Any]) -> tuple[list[Any], Any]:
    """Run an oracle skill offline: each action it yields is answered with the next observation;
    returns (the actions, the skill's return value)."""
    actions: list[Any] = []
    try:
        action = next(gen)
        for obs in replies:
            actions.append(action)
            action = gen.send(obs)
        actions.append(action)
    except StopIteration as stop:
        return actions, stop.value
    raise AssertionError(f"the skill wants more than {len(replies)} observations: {actions}")
