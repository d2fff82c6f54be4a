"""Reference worlds, patch application and goal solving — for tests and oracle planning only.

The judge is only trustworthy if, for every template, the state a correct episode leaves is
judged a success and the untouched start is not. This module builds both without any UI:
``apply_patch`` applies a setup to a base world the way a backend would (records get fresh
ids, as a phone's providers and the sim assign them), and ``expected_after`` applies the
goals themselves (or a template's explicit ``solve`` edits) to produce a solved world.
"""

from __future__ import annotations

import copy
from datetime import datetime
from typing import Any

from actionmap.actions import Action, Answer, Complete
from actionmap.patch import RECORD_KINDS, StatePatch
from actionmap.worldstate import DeviceInfo, Settings, Stopwatch, WorldState

from .judge import record_matches
from .model import FieldCheck, HookCheck, RecordCheck, TaskInstance
from .params import phone_value

_ID_KINDS = {k for k, m in RECORD_KINDS.items() if "id" in m.model_fields}


class SolveError(ValueError):
    """The goals alone do not say how to build a solved state; add a ``solve`` section."""


def base_world(**overrides: Any) -> WorldState:
    """An empty phone on which every field is readable (nothing ``None``)."""
    data: dict[str, Any] = {
        "time": datetime(2027, 2, 15, 9, 0),
        "settings": Settings(wifi=True, bluetooth=False, airplane_mode=False, mobile_data=True, dark_mode=False,
                             do_not_disturb=False, location=True, auto_rotate=False, flashlight=False,
                             adaptive_brightness=False, brightness=128, screen_off_timeout_ms=30_000,
                             font_scale=1.0, ringer_mode="normal", media_volume=8, device_name="Pixel 7"),
        "contacts": [], "messages": [], "events": [], "alarms": [], "timers": [], "stopwatch": Stopwatch(),
        "world_clocks": [], "files": [], "calls": [], "dialer_number": "", "calculator_display": "",
        "device": DeviceInfo(manufacturer="Google", model="Pixel 7", android_version="14", sdk=34, build="UQ1A"),
        "clipboard": "",
    }
    data.update(overrides)
    return WorldState.model_validate(data)


def populated_world() -> WorldState:
    """A lived-in phone (a few dozen records) — what the judge benchmark and side-effect tests use."""
    st = base_world()
    contacts = [{"id": f"u{i}", "name": f"Person {i}", "phones": [{"number": phone_value(650, 100 + i, 0)["e164"]}]}
                for i in range(12)]
    messages = [{"id": f"m{i}", "address": phone_value(650, 100 + i % 6, 0)["e164"], "body": f"Message {i}",
                 "box": "inbox" if i % 3 else "sent", "time": datetime(2026, 12, 1 + i % 28, 10, i % 60)}
                for i in range(24)]
    events = [{"id": f"e{i}", "title": f"Event {i}", "start": datetime(2026, 12, 1 + i, 14, 0)} for i in range(8)]
    alarms = [{"id": f"a{i}", "hour": 6 + i, "minute": 15, "enabled": i % 2 == 0} for i in range(4)]
    files = [{"path": f"/sdcard/Pictures/IMG_{i:04d}.jpg", "size": 1000 * i} for i in range(16)]
    calls = [{"id": f"c{i}", "number": phone_value(650, 100 + i, 0)["e164"], "kind": "incoming",
              "time": datetime(2026, 12, 2, 8 + i, 0)} for i in range(6)]
    data = st.model_dump()
    data.update(contacts=contacts, messages=messages, events=events, alarms=alarms, files=files, calls=calls,
                world_clocks=["Honolulu"])
    return WorldState.model_validate(data)


def apply_patch(state: WorldState, patch: StatePatch, id_prefix: str = "s") -> WorldState:
    """Apply a setup as a backend would: set settings, add records (with new ids), open the app."""
    data = state.model_dump()
    data["settings"].update(patch.settings)
    for kind, recs in patch.add.items():
        lst = data.get(kind) or []
        for r in recs:
            rec = RECORD_KINDS[kind].model_validate(r).model_dump()
            if kind in _ID_KINDS and rec.get("id") is None:
                rec["id"] = f"{id_prefix}{len(lst) + 1}"
            lst.append(rec)
        data[kind] = lst
    if patch.world_clocks:
        data["world_clocks"] = list(data.get("world_clocks") or []) + [c for c in patch.world_clocks
                                                                       if c not in (data.get("world_clocks") or [])]
    if patch.clipboard is not None:
        data["clipboard"] = patch.clipboard
    if patch.time is not None:
        data["time"] = patch.time
    data["foreground"] = {"app": patch.start.app}
    return WorldState.model_validate(data)


# --------------------------------------------------------------------------------------- solving
def _value(spec: Any) -> Any:
    if isinstance(spec, dict) and "op" in spec:
        v = spec.get("value")
        if spec["op"] == "in" and isinstance(v, list):
            return v[0]
        return v
    return spec


def _coerce(kind: str, field: str, value: Any) -> Any:
    if kind == "contacts" and field == "phones":
        return [{"number": v} for v in (value if isinstance(value, list) else [value])]
    if kind == "contacts" and field == "emails":
        return value if isinstance(value, list) else [value]
    if kind == "events" and field in ("start", "end") and isinstance(value, str):
        return datetime.fromisoformat(value if len(value) > 10 else value + "T00:00:00")
    return value


def _set_path(data: dict[str, Any], path: str, value: Any) -> None:
    parts = path.split(".")
    cur: Any = data
    for p in parts[:-1]:
        cur = cur.setdefault(p, {}) if isinstance(cur, dict) else cur[int(p)]
    cur[parts[-1]] = value


def _field_target(g: FieldCheck) -> Any:
    if g.op in ("eq", "approx", "ge", "le", "contains", "startswith", "endswith", "date"):
        return g.value
    if g.op == "in":
        return g.value[0] if isinstance(g.value, list) else g.value
    if g.op == "gt":
        return g.value + 1
    if g.op == "lt":
        return g.value - 1
    if g.op == "ne" and isinstance(g.value, bool):
        return not g.value
    raise SolveError(f"cannot solve field op {g.op!r} on {g.path}; add a 'solve' section")


def _new_record(kind: str, spec: dict[str, Any], data: dict[str, Any]) -> Any:
    if kind == "world_clocks":
        return _value(spec.get("city") or spec.get("name"))
    fields = {f: _coerce(kind, f, _value(v)) for f, v in spec.items() if f not in ("name", "dir") or kind != "files"}
    if kind == "files" and "path" not in fields and "name" in spec and "dir" in spec:
        fields["path"] = f"{_value(spec['dir']).rstrip('/')}/{_value(spec['name'])}"
    if kind == "timers":
        fields.setdefault("remaining_s", fields.get("duration_s", 0))
    try:
        rec = RECORD_KINDS[kind].model_validate(fields).model_dump()
    except Exception as e:
        raise SolveError(f"cannot build a {kind} record from goal fields {sorted(fields)}: {e}") from None
    if kind in _ID_KINDS:
        rec["id"] = f"new{len(data.get(kind) or []) + 1}"
    return rec


def _solve_record(g: RecordCheck, data: dict[str, Any]) -> None:
    kind = g.kind
    recs = data.get(kind)
    if recs is None:
        raise SolveError(f"{kind} unknown in the before-state")
    full = {**g.match, **g.expect}
    if g.op == "each":
        for r in recs:
            if record_matches(r, kind, g.match):
                for f, v in g.expect.items():
                    r[f] = _coerce(kind, f, _value(v))
    elif g.op == "absent":
        data[kind] = [r for r in recs if not record_matches(r, kind, g.match)]
    elif g.op == "exists":
        if not any(record_matches(r, kind, full) for r in recs):
            recs.append(_new_record(kind, full, data))
    elif g.op == "created":
        for _ in range(g.new):
            recs.append(_new_record(kind, full, data))
    elif g.op == "count":
        n = sum(record_matches(r, kind, g.match) for r in recs)
        if n != g.count:
            raise SolveError(f"cannot solve count={g.count} on {kind}; add a 'solve' section")


def _apply_ops(ops: list[dict[str, Any]], data: dict[str, Any]) -> None:
    from .hooks import SOLVE_HOOKS

    for op in ops:
        if "set" in op:
            _set_path(data, op["set"], op.get("value"))
        elif "add" in op:
            kind = op["add"]
            data.setdefault(kind, [])
            data[kind].append(_new_record(kind, op.get("record", {}), data))
        elif "remove" in op:
            kind = op["remove"]
            data[kind] = [r for r in data.get(kind) or [] if not record_matches(r, kind, op.get("match", {}))]
        elif "update" in op:
            kind = op["update"]
            for r in data.get(kind) or []:
                if record_matches(r, kind, op.get("match", {})):
                    for f, v in (op.get("values") or {}).items():
                        r[f] = _coerce(kind, f, v)
        elif "hook" in op:
            fn = SOLVE_HOOKS.get(op["hook"])
            if fn is None:
                raise SolveError(f"unknown solve hook {op['hook']!r}")
            fn(op.get("args", {}), data)
        else:
            raise SolveError(f"unknown solve op {sorted(op)}; use set/add/remove/update/hook")


def expected_after(before: WorldState, instance: TaskInstance) -> WorldState:
    """The world a correct episode leaves: the goals (or the ``solve`` edits) applied to ``before``."""
    from .hooks import SOLVE_HOOKS

    data = copy.deepcopy(before.model_dump())
    if instance.solve is not None:
        _apply_ops(instance.solve, data)
    else:
        for g in instance.goals:
            if isinstance(g, FieldCheck):
                _set_path(data, g.path, _field_target(g))
            elif isinstance(g, RecordCheck):
                _solve_record(g, data)
            elif isinstance(g, HookCheck):
                fn = SOLVE_HOOKS.get(g.hook)
                if fn is None:
                    raise SolveError(f"hook goal {g.hook!r} has no solve hook; add a 'solve' section")
                fn(g.args, data)
    return WorldState.model_validate(data)


def oracle_final_action(instance: TaskInstance, before: WorldState | None = None) -> Action:
    """The action a perfect policy ends with: the right ``Answer`` for queries, else ``Complete``."""
    if instance.answer_sheet is not None:
        return Answer(fields=instance.answer_sheet.oracle_answer(before))
    return Complete()


__all__ = ["SolveError", "apply_patch", "base_world", "expected_after", "oracle_final_action", "populated_world"]
