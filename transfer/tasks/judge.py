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
from typing import Any, Callable, Iterable

from pydantic import BaseModel, ConfigDict, Field

from actionmap.actions import Action, Answer
from actionmap.worldstate import Change, WorldState, _record_key, diff, flatten

from .match import compare, norm_path, norm_text, record_get, semantic_for, to_datetime
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


_IDENTITY: dict[str, tuple[str, ...]] = {"files": ("path",), "world_clocks": ("city",)}
"""Kinds whose records are unique by these fields: one that already exists cannot be created."""

_VIRTUAL = {("files", "name"), ("files", "dir"), ("events", "date"), ("events", "start"), ("events", "end"),
            ("contacts", "phones")}
"""Fields read through :func:`record_get` (computed, or needing conversion) rather than directly."""


def _predicate(kind: str, field: str, spec: Any) -> Callable[[Any], bool]:
    """One field spec as a predicate on the field's value, with targets normalized once.

    Equivalent to :func:`field_matches`; the fast paths cover the common literal cases and
    everything else goes through :func:`transfer.tasks.match.compare`.
    """
    op, value, tol, rel_tol, sem_o = _spec_parts(spec)
    sem = semantic_for(kind, field, sem_o)
    if op == "eq" and isinstance(value, bool):
        return lambda v: v is value
    if op == "eq" and sem == "path" and isinstance(value, str):
        t = norm_path(value)
        return lambda v: norm_path(v) == t if type(v) is str else compare(op, v, value, sem, tol, rel_tol)
    if op == "eq" and sem == "auto" and isinstance(value, str) and to_datetime(value) is None:
        t = norm_text(value)
        return lambda v: norm_text(v) == t if type(v) is str else compare(op, v, value, sem, tol, rel_tol)
    if op == "eq" and sem == "auto" and type(value) is int:
        return lambda v: v == value if type(v) is int else compare(op, v, value, sem, tol, rel_tol)
    return lambda v: compare(op, v, value, sem, tol, rel_tol)


def compile_match(kind: str, match: dict[str, Any]) -> Callable[[Any], bool]:
    """``match`` as one predicate over records (models or dicts)."""
    preds = []
    for field, spec in match.items():
        pred = _predicate(kind, field, spec)
        if kind == "world_clocks" or (kind, field) in _VIRTUAL:
            preds.append((lambda r, f=field, p=pred: p(record_get(r, kind, f))))
        else:
            preds.append((lambda r, f=field, p=pred: p(getattr(r, f, None) if not isinstance(r, dict) else r.get(f))))
    if len(preds) == 1:
        return preds[0]
    return lambda r: all(p(r) for p in preds)


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
class _Keys:
    """Flatten keys of every record, per kind and side, computed once per verdict."""

    __slots__ = ("before", "after", "cache")

    def __init__(self, before: WorldState, after: WorldState) -> None:
        self.before, self.after = before, after
        self.cache: dict[tuple[str, bool], list[str]] = {}

    def of(self, kind: str, after: bool) -> list[str]:
        k = (kind, after)
        keys = self.cache.get(k)
        if keys is None:
            state = self.after if after else self.before
            if kind == "world_clocks":
                keys = [str(x) for x in state.world_clocks or ()]
            else:
                recs = state.model_dump(mode="json", include={kind}).get(kind) or []
                keys = [_record_key(kind, r) for r in recs]
            self.cache[k] = keys
        return keys


class _Allowed:
    """Record subtrees (and fields within them) that goals account for."""

    __slots__ = ("records",)

    def __init__(self) -> None:
        self.records: dict[str, list[tuple[str, frozenset[str] | None]]] = {}

    def add(self, kind: str, key: str, rec: Any, fields: Iterable[str] | None = None) -> None:
        only = frozenset(fields) if fields is not None and _has_id(kind, rec) else None
        self.records.setdefault(kind, []).append((f"{kind}[{key}", only))

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
                  allowed: _Allowed, keys: _Keys) -> CheckResult:
    kind, op = g.kind, g.op
    field = f"{kind}[{_describe(g.match)}]"
    if op == "each" and len(g.expect) == 1:
        field += "." + next(iter(g.expect))
    recs = getattr(after, kind)
    prev = getattr(before, kind)
    if recs is None or (op == "created" and prev is None):
        return CheckResult(name=name, field=field, undetermined=True, detail=f"{kind} are unknown on this backend")
    unseen = _unseen(kind, {**g.match, **g.expect}, after)
    if unseen:
        return CheckResult(name=name, field=field, undetermined=True, detail=unseen)
    prev = prev or []
    full = {**g.match, **g.expect}

    def hits(rs: list[Any], spec: dict[str, Any]) -> list[int]:
        pred = compile_match(kind, spec)
        return [i for i, r in enumerate(rs) if pred(r)]

    if op == "each":
        idx = hits(recs, g.match)
        ak, bk = keys.of(kind, True), keys.of(kind, False)
        for i in idx:
            allowed.add(kind, ak[i], recs[i], g.expect)
        for i in hits(prev, g.match):
            allowed.add(kind, bk[i], prev[i], g.expect)
        matched = [recs[i] for i in idx]
        want = compile_match(kind, g.expect)
        ok = bool(matched) and all(want(r) for r in matched)
        actual: Any = [_summary(kind, r, g.expect) for r in matched] if matched else "no matching record"
        expected: Any = g.expect
        if len(g.expect) == 1 and matched:
            k = next(iter(g.expect))
            actual = [a[k] for a in actual]
            actual = actual[0] if len(actual) == 1 else actual
            expected = g.expect[k]
    elif op == "exists":
        idx = hits(recs, full)
        ak = keys.of(kind, True)
        for i in idx:
            allowed.add(kind, ak[i], recs[i])
        ok = bool(idx)
        actual, expected = len(idx), "at least 1"
    elif op == "absent":
        n = len(hits(recs, g.match))
        bk = keys.of(kind, False)
        for i in hits(prev, g.match):
            allowed.add(kind, bk[i], prev[i])
        ok = n == 0
        actual, expected = n, 0
    elif op == "count":
        idx = hits(recs, g.match)
        ak, bk = keys.of(kind, True), keys.of(kind, False)
        for i in idx:
            allowed.add(kind, ak[i], recs[i])
        for i in hits(prev, g.match):
            allowed.add(kind, bk[i], prev[i])
        ok = len(idx) == g.count
        actual, expected = len(idx), g.count
    else:  # created: records matching that were not there before (by flatten key)
        ident = {f: full[f] for f in _IDENTITY.get(kind, ()) if f in full}
        if ident and len(ident) == len(_IDENTITY[kind]) and hits(prev, ident):
            return CheckResult(name=name, field=field, expected=_jsonable(ident), undetermined=True,
                               detail=f"precondition not met: {kind} {_describe(ident)} existed before the episode")
        old = set(keys.of(kind, False))
        ak = keys.of(kind, True)
        fresh = [i for i, k in enumerate(ak) if k not in old]
        want = compile_match(kind, full)
        made = [i for i in fresh if want(recs[i])]
        for i in made[: g.new]:
            allowed.add(kind, ak[i], recs[i])
        ok = len(made) >= g.new
        expected = {"new": g.new, **{k: _spec_parts(v)[1] for k, v in full.items()}}
        actual = len(made) if ok or not fresh else [_summary(kind, recs[i], full) for i in fresh[:3]]
    if ok:
        detail = ""
    elif op == "each":
        detail = "a matching record has other values" if actual != "no matching record" else "no matching record"
    elif op == "absent":
        detail = f"{actual} matching record(s) still present"
    elif op == "count":
        detail = f"{actual} matching record(s), expected {g.count}"
    elif op == "created":
        detail = "no new matching record" + (" (new records shown in actual)" if isinstance(actual, list) else "")
    else:
        detail = "no matching record"
    return CheckResult(name=name, field=field, expected=_jsonable(expected), actual=_jsonable(actual), passed=ok,
                       detail=detail)


def _unseen(kind: str, spec: dict[str, Any], after: WorldState) -> str:
    """Why a record check cannot be judged here: it is about records the backend cannot see
    (``WorldState.hidden``, e.g. an SMS draft under a stock phone's restricted view); "" if none."""
    for key, values in (after.hidden or {}).items():
        k, _, f = key.partition(".")
        if k != kind or f not in spec:
            continue
        want = spec[f]
        wants = [want] if not isinstance(want, (list, tuple, set)) else list(want)
        bad = [w for w in wants if isinstance(w, str) and w in values]
        if bad:
            return f"{kind} with {f}={bad[0]} cannot be read on this backend (hidden: {', '.join(values)})"
    return ""


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
    return [c for c in changes if not _empty_list_marker(c) and not _became_unknown(c)
            and not (rx is not None and rx.match(c.path)) and not allowed.covers(c.path)]


def _became_unknown(c: Change) -> bool:
    """A scalar path present on one side only was unreadable (``None``) on the other: unknown is
    never a change. (Inside a record list a missing path means the record was added/removed.)"""
    return "[" not in c.path and (c.before is None or c.after is None)


def _empty_list_marker(c: Change) -> bool:
    """``flatten`` writes an *empty* record list as ``kind: []``; when the list gains or loses its
    last record that marker changes too, but the per-record paths already say what happened."""
    return c.path in RECORD_CHECK_KINDS and c.before in ([], None) and c.after in ([], None)


# --------------------------------------------------------------------------------------- diff
_SECTIONS: tuple[str, ...] = tuple(f for f in WorldState.model_fields if f != "hidden")


def section_diff(before: WorldState, after: WorldState) -> list[Change]:
    """Exactly :func:`actionmap.worldstate.diff`, computed faster.

    Only top-level sections that differ are looked at, and inside a record list only the
    records that differ are flattened (their keys, duplicate suffixes included, are computed
    as ``flatten`` computes them). A verdict on a lived-in phone then costs a fraction of a
    millisecond instead of a full flatten of both states.
    """
    out: list[Change] = []
    for name in _SECTIONS:
        b, a = getattr(before, name), getattr(after, name)
        if b == a:
            continue
        bd = before.model_dump(mode="json", include={name})
        ad = after.model_dump(mode="json", include={name})
        bl, al = bd.get(name), ad.get(name)
        if _record_list(bl) and _record_list(al):
            out.extend(_list_diff(name, bl, al))
        else:
            out.extend(diff(bd, ad))
    out.sort(key=lambda c: c.path)
    return out


def _record_list(v: Any) -> bool:
    return isinstance(v, list) and bool(v) and all(isinstance(x, dict) for x in v)


def _keyed(kind: str, recs: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    seen: dict[str, int] = {}
    out: dict[str, dict[str, Any]] = {}
    for rec in recs:
        key = _record_key(kind, rec)
        n = seen.get(key, 0)
        seen[key] = n + 1
        out[f"{key}#{n}" if n else key] = rec
    return out


def _list_diff(kind: str, before: list[dict[str, Any]], after: list[dict[str, Any]]) -> list[Change]:
    kb, ka = _keyed(kind, before), _keyed(kind, after)
    out: list[Change] = []
    for key in kb.keys() | ka.keys():
        rb, ra = kb.get(key), ka.get(key)
        if rb == ra:
            continue
        fb = _flatten_record(kind, key, rb)
        fa = _flatten_record(kind, key, ra)
        for p in fb.keys() | fa.keys():
            if fb.get(p) != fa.get(p):
                out.append(Change(path=p, before=fb.get(p), after=fa.get(p)))
    return out


def _flatten_record(kind: str, key: str, rec: dict[str, Any] | None) -> dict[str, Any]:
    """``flatten`` paths of one record, re-keyed with its position-dependent key."""
    if rec is None:
        return {}
    flat = flatten({kind: [rec]})
    inner = f"{kind}[{_record_key(kind, rec)}]"
    outer = f"{kind}[{key}]"
    if inner == outer:
        return flat
    return {outer + p[len(inner):]: v for p, v in flat.items()}


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
    keys = _Keys(before, after)
    checks: list[CheckResult] = []
    for g, name in zip(instance.goals, _names(instance)):
        if isinstance(g, FieldCheck):
            checks.append(_check_field(g, after, name))
        elif isinstance(g, RecordCheck):
            checks.append(_check_record(g, before, after, name, allowed, keys))
        else:
            checks.append(_check_hook(g, before, after, name))
    if instance.answer_sheet is not None:
        checks.extend(instance.answer_sheet.score(answer_fields(final_action), before))

    determined = [c for c in checks if not c.undetermined]
    failed = any(not c.passed for c in determined)
    undetermined = not failed and len(determined) < len(checks)
    success = None if undetermined else (not failed and bool(checks))
    progress = (sum(c.passed for c in determined) / len(determined)) if determined else 0.0

    unexpected = side_effects(instance, section_diff(before, after), allowed, ignore)
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


def bench_judge(n: int = 2000, template_id: str = "clock.alarm_off", seed: int = 0, batches: int = 5) -> float:
    """Milliseconds per verdict on a lived-in phone (~80 records), for ``s2r bench``.

    Best of ``batches`` timed batches, so that other load on the machine does not count.
    """
    from actionmap.actions import Complete

    from .loader import get_template
    from .solve import apply_patch, expected_after, populated_world

    inst = get_template(template_id).instantiate(seed)
    before = apply_patch(populated_world(), inst.setup)
    after = expected_after(before, inst)
    done = Complete()
    judge(inst, before, after, done)
    per = max(1, n // max(1, batches))
    best = float("inf")
    for _ in range(max(1, batches)):
        t0 = time.perf_counter()
        for _ in range(per):
            judge(inst, before, after, done)
        best = min(best, (time.perf_counter() - t0) * 1000.0 / per)
    return best


__all__ = ["DEFAULT_IGNORED", "Verdict", "answer_fields", "bench_judge", "compile_match", "judge", "record_key",
           "record_matches", "section_diff", "side_effects"]
