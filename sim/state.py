"""A simulated phone's whole state, owned by Python.

A phone *is* its state: world data (settings, contacts, alarms …, shaped exactly like the
shared ``WorldState``), UI state (app stacks, scroll offsets, focused field and its text,
dialog, keyboard, shade), system state and the simulated clock. It is stored as one JSON
text per phone: capture is free (the text is immutable), a fork shares it, and any page can
render any phone by loading it. Changes from outside go through :func:`apply_patch` or
:func:`merge_patch`, which validate the result and leave the phone unchanged on error.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from actionmap.apps import canonical_app_id
from actionmap.patch import RECORD_KINDS, StatePatch
from actionmap.worldstate import ForegroundState, WorldState

from .profiles import DeviceProfile, Flavor, get_profile
from .world import default_world

STATE_VERSION = 1


class UIState(BaseModel):
    model_config = ConfigDict(extra="allow")
    current: str | None = Field(None, description="Foreground app id; None = launcher.")
    tasks: dict[str, list[dict[str, Any]]] = Field(default_factory=dict, description="Route stack per app.")
    recents: list[str] = Field(default_factory=list)
    scroll: dict[str, int] = Field(default_factory=dict)
    focus: str | None = None
    fields: dict[str, Any] = Field(default_factory=dict)
    dialog: dict[str, Any] | None = None
    keyboard: bool = False
    shade: str | None = None
    toast: dict[str, Any] | None = None
    drawer: bool = False
    recentsOpen: bool = False  # noqa: N815 - mirrors the JS field name


class SysState(BaseModel):
    model_config = ConfigDict(extra="allow")
    battery: int = Field(87, ge=0, le=100)
    notifications: list[dict[str, Any]] = Field(default_factory=list)
    animations: bool = False
    permission_prompts: list[str] = Field(default_factory=list, description="Apps that ask for a permission on first launch.")
    permissions_granted: list[str] = Field(
        default_factory=list, description="Apps whose first-launch prompt no longer shows (answered or granted).")
    permissions_user_set: list[str] = Field(
        default_factory=list, description="Apps whose prompt the user answered (Android's USER_SET flag).")
    permissions_denied: list[str] = Field(default_factory=list, description="Apps whose prompt was answered 'Don't allow'.")


class PhoneState(BaseModel):
    model_config = ConfigDict(extra="forbid")
    v: int = STATE_VERSION
    flavor: Flavor = "sim"
    profile: DeviceProfile
    world: WorldState
    ui: UIState = Field(default_factory=UIState)
    sys: SysState = Field(default_factory=SysState)
    seq: int = 1000


class PatchError(ValueError):
    """A patch that would make the state invalid; the phone is left unchanged."""


def new_state(profile: str | DeviceProfile = "default", flavor: Flavor = "sim", seed: int = 0) -> str:
    """A fresh phone: the default world on the home screen, as JSON text."""
    prof = get_profile(profile)
    w = default_world(seed, prof, flavor)
    w.settings.font_scale = prof.font_scale
    w.settings.dark_mode = prof.dark_mode
    st = PhoneState(flavor=flavor, profile=prof, world=w, sys=SysState(animations=prof.animations))
    return st.model_dump_json()


def load(text: str) -> PhoneState:
    return PhoneState.model_validate_json(text)


def world_state(text: str, foreground: dict[str, Any] | None = None) -> WorldState:
    """The shared ``WorldState`` of a phone (what the judge reads)."""
    data = json.loads(text)
    ws = WorldState.model_validate(data["world"])
    ui = data.get("ui") or {}
    app = ui.get("current") or "launcher"
    if foreground:
        ws.foreground = ForegroundState(app=foreground.get("app"), package=foreground.get("package"),
                                        activity=foreground.get("route") or foreground.get("activity"))
    else:
        stack = (ui.get("tasks") or {}).get(app) or [{}]
        ws.foreground = ForegroundState(app=app, activity=f"{app}/{stack[-1].get('s', 'home')}")
    return ws


def apply_patch(text: str, patch: StatePatch | dict[str, Any]) -> str:
    """Apply a task setup (``StatePatch``) to a phone; returns the new state text."""
    try:
        p = patch if isinstance(patch, StatePatch) else StatePatch.model_validate(patch)
    except Exception as e:  # noqa: BLE001
        raise PatchError(str(e)) from e
    data = json.loads(text)
    w = data["world"]
    w["settings"].update(p.settings)
    seq = int(data.get("seq", 1000))
    for kind, recs in p.add.items():
        model = RECORD_KINDS[kind]
        lst = w.get(kind)
        if lst is None:
            lst = w[kind] = []
        for r in recs:
            rec = model.model_validate(r).model_dump(mode="json")
            if "id" in rec and rec.get("id") is None:
                seq += 1
                rec["id"] = f"{kind[0]}{seq}"
            lst.append(rec)
    data["seq"] = seq
    for city in p.world_clocks:
        if city not in w["world_clocks"]:
            w["world_clocks"].append(city)
    if p.clipboard is not None:
        w["clipboard"] = p.clipboard
    if p.time is not None:
        w["time"] = p.time.replace(tzinfo=None).isoformat(timespec="seconds")
    if p.start.app is not None:
        app = canonical_app_id(p.start.app) or p.start.app
        ui = data["ui"]
        ui["current"] = None if app == "launcher" else app
        if app != "launcher":
            ui["tasks"][app] = []  # the page opens the app's root (and route, if given)
            if p.start.route:
                ui["tasks"][app] = [{"s": "__root__", "p": {}}, {"s": p.start.route, "p": {}}]
            ui["recents"] = [app] + [a for a in ui.get("recents", []) if a != app]
    return _validated(data)


def merge_patch(text: str, patch: dict[str, Any]) -> str:
    """RFC 7386 JSON merge patch over the whole state, validated (configure anything)."""
    data = json.loads(text)

    def merge(target: Any, p: Any) -> Any:
        if not isinstance(p, dict):
            return copy.deepcopy(p)
        if not isinstance(target, dict):
            target = {}
        for k, v in p.items():
            if v is None:
                target.pop(k, None)
            else:
                target[k] = merge(target.get(k), v)
        return target

    return _validated(merge(data, patch))


def _validated(data: dict[str, Any]) -> str:
    try:
        return PhoneState.model_validate(data).model_dump_json()
    except Exception as e:  # noqa: BLE001 - pydantic ValidationError and friends
        raise PatchError(str(e)) from e


def diff_states(a: str, b: str) -> list[dict[str, Any]]:
    """Every leaf that differs between two phone states, as JSON paths (UI included)."""
    out: list[dict[str, Any]] = []

    def walk(path: str, x: Any, y: Any) -> None:
        if isinstance(x, dict) and isinstance(y, dict):
            for k in sorted(set(x) | set(y)):
                walk(f"{path}/{k}", x.get(k), y.get(k))
        elif isinstance(x, list) and isinstance(y, list) and len(x) == len(y):
            for i, (xi, yi) in enumerate(zip(x, y)):
                walk(f"{path}/{i}", xi, yi)
        elif x != y:
            out.append({"path": path or "/", "before": x, "after": y})

    walk("", json.loads(a), json.loads(b))
    return out
