"""The one judge: scores a task instance from two WorldStates, on any backend.

A reference study judged real-device runs with a VLM over screenshots and measured it wrong
10.2% of the time; s2r reads state instead. ``judge(instance, before, after, final_action)``
evaluates each goal against ``after`` (and ``before`` where a goal is about change), scores
the answer of a query task from the final ``Answer`` action, lists *unexpected side effects*
(changed paths no goal or ``expected_changes`` glob accounts for), and flags a *false
complete* (the policy declared success and was wrong).

A check whose state the backend cannot read (``None``) is *undetermined*: the verdict is
undetermined unless some other, determined check already failed — never a failure.
"""

from __future__ import annotations

import re
import time
from functools import lru_cache
from typing import Any, Iterable

from pydantic import BaseModel, ConfigDict, Field

from actionmap.actions import Action, Answer
from actionmap.worldstate import Change, WorldState, _record_key, diff

from .match import compare, norm_text, record_get, semantic_for, values_equal
from .model import RECORD_CHECK_KINDS, FieldCheck, HookCheck, RecordCheck, TaskInstance
from .results import CheckResult

DEFAULT_IGNORED: tuple[str, ...] = (
    "time", "foreground", "stopwatch.elapsed_ms", "timers[*].remaining_s", "files[*].mtime",
    # scratch state a policy may touch on the way without harming anyone:
    "clipboard", "calculator_display", "dialer_number",
)
"""Paths whose change is never a side effect: clocks that tick, where the screen is, scratch."""


class Verdict(BaseModel):
    """The judgement of one episode."""

    model_config = ConfigDict(extra="forbid")
    success: bool | None = Field(description="None when undetermined.")
    progress: float = Field(0.0, ge=0.0, le=1.0, description="Passed / determined checks.")
    checks: list[CheckResult] = Field(default_factory=list)
    side_effects: list[str] = Field(default_factory=list, description="Changed paths no goal expected.")
    side_effect_changes: list[Change] = Field(default_factory=list)
    false_complete: bool = False
    undetermined: bool = False
    undetermined_fields: list[str] = Field(default_factory=list)
    over_truncated: bool = Field(False, description="Goal reached, but the step budget ran out first.")
    final_action: str | None = None

    @property
    def strict_success(self) -> bool:
        """Succeeded *and* left nothing else changed."""
        return bool(self.success) and not self.side_effects

    def record_fields(self) -> dict[str, Any]:
        """The fields of :class:`transfer.records.EpisodeRecord` this verdict fills."""
        return {
            "success": self.success, "progress": self.progress, "side_effects": list(self.side_effects),
            "false_complete": self.false_complete, "undetermined": self.undetermined,
            "undetermined_fields": list(self.undetermined_fields), "over_truncated": self.over_truncated,
            "checks": [c.model_dump(mode="json") for c in self.checks],
        }


# --------------------------------------------------------------------------------------- matching
def _spec_parts(spec: Any) -> tuple[str, Any, float | None, float | None, str | None]:
    if isinstance(spec, dict) and "op" in spec:
        return spec["op"], spec.get("value"), spec.get("tol"), spec.get("rel_tol"), spec.get("as")
    return "eq", spec, None, None, None


def field_matches(rec: Any, kind: str, field: str, spec: Any) -> bool:
    op, value, tol, rel_tol, sem = _spec_parts(spec)
    actual = record_get(rec, kind, field)
    return compare(op, actual, value, semantic_for(kind, field, sem), tol, rel_tol)


def record_matches(rec: Any, kind: str, match: dict[str, Any]) -> bool:
    """Does a record (model or dict) satisfy every field spec in ``match``?"""
    for field, spec in match.items():
        if not field_matches(rec, kind, field, spec):
            return False
    return True


def record_key(kind: str, rec: Any) -> str:
    """The key :func:`actionmap.worldstate.flatten` gives this record (``id=3`` or natural key)."""
    if kind == "world_clocks":
        return str(rec)
    data = rec.model_dump(mode="json") if isinstance(rec, BaseModel) else rec
    return _record_key(kind, data)


def _has_id(kind: str, rec: Any) -> bool:
    return kind != "world_clocks" and record_get(rec, kind, "id") is not None


def _describe(match: dict[str, Any]) -> str:
    parts = []
    for k, v in match.items():
        op, val, *_ = _spec_parts(v)
        parts.append(f"{k}{'=' if op == 'eq' else ' ' + op + ' '}{val}")
    return ",".join(parts)


def _summary(kind: str, rec: Any, keys: Iterable[str]) -> dict[str, Any]:
    out = {}
    for k in keys:
        v = record_get(rec, kind, k)
        out[k] = v.isoformat() if hasattr(v, "isoformat") else v
    return out


# --------------------------------------------------------------------------------------- checks
class _Allowed:
    """Record subtrees (and fields within them) that goals account for."""

    __slots__ = ("records",)

    def __init__(self) -> None:
        self.records: dict[str, list[tuple[str, frozenset[str] | None]]] = {}

    def add(self, kind: str, rec: Any, fields: Iterable[str] | None = None) -> None:
        prefix = f"{kind}[{record_key(kind, rec)}"
        only = frozenset(fields) if fields is not None and _has_id(kind, rec) else None
        self.records.setdefault(kind, []).append((prefix, only))

    def covers(self, path: str) -> bool:
        kind = path.split("[", 1)[0]
        for prefix, only in self.records.get(kind, ()):
            if path.startswith(prefix) and len(path) > len(prefix) and path[len(prefix)] in "]#":
                if only is None:
                    return True
                rest = path[path.index("]", len(prefix)) + 1:]
                head = re.match(r"\.([A-Za-z_]+)", rest)
                if head and head.group(1) in only:
                    return True
        return False


def _check_field(g: FieldCheck, after: WorldState, name: str) -> CheckResult:
    actual = after.get_path(g.path)
    expected: Any = g.value
    if g.op == "approx":
        expected = {"value": g.value, "tol": g.tol, "rel_tol": g.rel_tol}
    elif g.op != "eq":
        expected = {"op": g.op, "value": g.value}
    if actual is None:
        return CheckResult(name=name, field=g.path, expected=expected, undetermined=True,
                           detail=f"{g.path} is unknown on this backend")
    ok = compare(g.op, actual, g.value, semantic_for("", g.path, g.as_), g.tol, g.rel_tol)
    return CheckResult(name=name, field=g.path, expected=expected, actual=_jsonable(actual), passed=ok,
                       detail="" if ok else f"{g.path} is {actual!r}")


def _check_record(g: RecordCheck, before: WorldState, after: WorldState, name: str,
                  allowed: _Allowed) -> CheckResult:
    kind, op = g.kind, g.op
    field = f"{kind}[{_describe(g.match)}]"
    if op == "each" and len(g.expect) == 1:
        field += "." + next(iter(g.expect))
    recs = getattr(after, kind)
    prev = getattr(before, kind)
    if recs is None or (op == "created" and prev is None):
        return CheckResult(name=name, field=field, undetermined=True, detail=f"{kind} are unknown on this backend")
    full = {**g.match, **g.expect}
    if op == "each":
        matched = [r for r in recs if record_matches(r, kind, g.match)]
        for r in matched:
            allowed.add(kind, r, g.expect)
        for r in prev or ():
            if record_matches(r, kind, g.match):
                allowed.add(kind, r, g.expect)
        ok = bool(matched) and all(record_matches(r, kind, g.expect) for r in matched)
        actual: Any = [_summary(kind, r, g.expect) for r in matched] if matched else "no matching record"
        expected: Any = g.expect
        if len(g.expect) == 1 and matched:
            k = next(iter(g.expect))
            actual = [a[k] for a in actual]
            actual = actual[0] if len(actual) == 1 else actual
            expected = g.expect[k]
    elif op == "exists":
        matched = [r for r in recs if record_matches(r, kind, full)]
        for r in matched:
            allowed.add(kind, r)
        ok = bool(matched)
        actual, expected = len(matched), "at least 1"
    elif op == "absent":
        matched = [r for r in recs if record_matches(r, kind, g.match)]
        for r in prev or ():
            if record_matches(r, kind, g.match):
                allowed.add(kind, r)
        ok = not matched
        actual, expected = len(matched), 0
    elif op == "count":
        matched = [r for r in recs if record_matches(r, kind, g.match)]
        for r in list(matched) + [r for r in prev or () if record_matches(r, kind, g.match)]:
            allowed.add(kind, r)
        ok = len(matched) == g.count
        actual, expected = len(matched), g.count
    else:  # created
        old = {record_key(kind, r) for r in prev or ()}
        fresh = [r for r in recs if record_key(kind, r) not in old]
        made = [r for r in fresh if record_matches(r, kind, full)]
        for r in made[: g.new]:
            allowed.add(kind, r)
        ok = len(made) >= g.new
        expected = {"new": g.new, **{k: _spec_parts(v)[1] for k, v in full.items()}}
        actual = len(made) if ok or not fresh else [_summary(kind, r, full) for r in fresh[:3]]
    return CheckResult(name=name, field=field, expected=_jsonable(expected), actual=_jsonable(actual), passed=ok,
                       detail="" if ok else f"{op} failed")


def _check_hook(g: HookCheck, before: WorldState, after: WorldState, name: str) -> CheckResult:
    from .hooks import CHECK_HOOKS

    out = CHECK_HOOKS[g.hook].fn(g.args, before, after)
    field = out.field or g.hook
    if out.passed is None:
        return CheckResult(name=name, field=field, expected=_jsonable(out.expected), undetermined=True,
                           detail=f"{field} is unknown on this backend")
    return CheckResult(name=name, field=field, expected=_jsonable(out.expected), actual=_jsonable(out.actual),
                       passed=bool(out.passed))


def _jsonable(v: Any) -> Any:
    if hasattr(v, "isoformat"):
        return v.isoformat()
    if isinstance(v, list):
        return [_jsonable(x) for x in v]
    if isinstance(v, dict):
        return {k: _jsonable(x) for k, x in v.items()}
    return v


def _names(instance: TaskInstance) -> list[str]:
    names, seen = [], {}
    for i, g in enumerate(instance.goals):
        base = g.name or (g.path if isinstance(g, FieldCheck) else
                          f"{g.kind}.{g.op}" if isinstance(g, RecordCheck) else g.hook)
        n = seen.get(base, 0)
        seen[base] = n + 1
        names.append(base if not n else f"{base}#{n}")
    return names


# --------------------------------------------------------------------------------------- side effects
@lru_cache(maxsize=1024)
def _glob_regex(globs: tuple[str, ...]) -> re.Pattern[str] | None:
    """Globs over flatten paths: ``*`` matches anything; a glob also covers its subtree."""
    if not globs:
        return None
    alts = ["".join(".*" if ch == "*" else re.escape(ch) for ch in g) for g in globs]
    return re.compile(r"(?:" + "|".join(alts) + r")(?=$|[.\[#])")


def side_effects(instance: TaskInstance, changes: list[Change], allowed: _Allowed,
                 ignore: tuple[str, ...] = DEFAULT_IGNORED) -> list[Change]:
    globs = tuple(ignore) + tuple(instance.expected_changes)
    globs += tuple(g.path for g in instance.goals if isinstance(g, FieldCheck))
    globs += tuple(c for g in instance.goals if isinstance(g, HookCheck) for c in g.changes)
    from .hooks import CHECK_HOOKS

    globs += tuple(c for g in instance.goals if isinstance(g, HookCheck) for c in CHECK_HOOKS[g.hook].changes)
    rx = _glob_regex(globs)
    return [c for c in changes if not _empty_list_marker(c) and not (rx is not None and rx.match(c.path))
            and not allowed.covers(c.path)]


def _empty_list_marker(c: Change) -> bool:
    """``flatten`` writes an *empty* record list as ``kind: []``; when the list gains or loses its
    last record that marker changes too, but the per-record paths already say what happened."""
    return c.path in RECORD_CHECK_KINDS and c.before in ([], None) and c.after in ([], None)


# --------------------------------------------------------------------------------------- judge
def answer_fields(final_action: Action | dict[str, Any] | None) -> dict[str, Any] | None:
    if isinstance(final_action, Answer):
        return dict(final_action.fields)
    if isinstance(final_action, dict) and final_action.get("type") == "answer":
        return dict(final_action.get("fields") or {})
    return None


def judge(instance: TaskInstance, before: WorldState, after: WorldState, final_action: Action | None = None, *,
          truncated: bool = False, ignore: tuple[str, ...] = DEFAULT_IGNORED) -> Verdict:
    """Score one episode. ``truncated``: the episode ended because the step budget ran out."""
    allowed = _Allowed()
    checks: list[CheckResult] = []
    for g, name in zip(instance.goals, _names(instance)):
        if isinstance(g, FieldCheck):
            checks.append(_check_field(g, after, name))
        elif isinstance(g, RecordCheck):
            checks.append(_check_record(g, before, after, name, allowed))
        else:
            checks.append(_check_hook(g, before, after, name))
    if instance.answer_sheet is not None:
        checks.extend(instance.answer_sheet.score(answer_fields(final_action), before))

    determined = [c for c in checks if not c.undetermined]
    failed = any(not c.passed for c in determined)
    undetermined = not failed and len(determined) < len(checks)
    success = None if undetermined else (not failed and bool(checks))
    progress = (sum(c.passed for c in determined) / len(determined)) if determined else 0.0

    unexpected = side_effects(instance, diff(before, after), allowed, ignore)
    ftype = getattr(final_action, "type", None) if final_action is not None else None
    if isinstance(final_action, dict):
        ftype = final_action.get("type")
    return Verdict(
        success=success, progress=progress, checks=checks,
        side_effects=[c.path for c in unexpected], side_effect_changes=unexpected,
        false_complete=ftype in ("complete", "answer") and success is False,
        undetermined=undetermined, undetermined_fields=sorted({c.field for c in checks if c.undetermined}),
        over_truncated=bool(truncated and success), final_action=ftype,
    )


def bench_judge(n: int = 2000, template_id: str = "clock.alarm_off", seed: int = 0) -> float:
    """Milliseconds per verdict on a populated phone (dozens of records); for ``s2r bench``."""
    from actionmap.actions import Complete

    from .loader import get_template
    from .solve import apply_patch, expected_after, populated_world

    inst = get_template(template_id).instantiate(seed)
    before = apply_patch(populated_world(), inst.setup)
    after = expected_after(before, inst)
    done = Complete()
    judge(inst, before, after, done)
    t0 = time.perf_counter()
    for _ in range(n):
        judge(inst, before, after, done)
    return (time.perf_counter() - t0) * 1000.0 / n


__all__ = ["DEFAULT_IGNORED", "Verdict", "answer_fields", "bench_judge", "judge", "record_key", "record_matches",
           "values_equal", "norm_text"]
