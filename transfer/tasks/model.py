"""Task templates and instances: what a task *means*, independent of where it runs.

A template is data (YAML): instruction phrasings with ``{slots}``, a typed parameter space,
a setup written as a :class:`actionmap.patch.StatePatch`, and goals written as predicates over
:class:`actionmap.worldstate.WorldState`. ``TaskTemplate.instantiate(seed)`` binds the slots
deterministically — the same (template id, seed) gives byte-identical JSON in any process —
so a policy meets *the same* task in the simulator and on a phone, and one judge scores both.
"""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Callable, Iterable
from typing import Annotated, Any, Literal, Union

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, TypeAdapter, field_validator, model_validator

from actionmap.apps import APP_IDS
from actionmap.patch import StatePatch

from .answers import AnswerField, AnswerSheet
from .match import OPS
from .params import ParamError, ParamSpec, placeholders, render, resolve, sample_params

Difficulty = Literal["L1", "L2", "L3", "L4"]
Kind = Literal["operate", "query"]
RECORD_CHECK_KINDS = ("contacts", "messages", "events", "alarms", "timers", "files", "calls", "world_clocks")

DEFAULT_TEST_RECIPIENT = "+1 202 555 0100"
"""Where tasks that *send* a message send it. Fictional by default; a device run should pass
its own test phone through ``instantiate(seed, context=make_context(test_recipient=...))``."""


def difficulty_for_steps(golden_steps: int) -> Difficulty:
    """L1: 1–4 golden steps, L2: 5–10, L3: 11–20, L4: more."""
    if golden_steps <= 4:
        return "L1"
    if golden_steps <= 10:
        return "L2"
    if golden_steps <= 20:
        return "L3"
    return "L4"


def default_max_steps(golden_steps: int) -> int:
    """A budget of about 2.5× the expert's steps plus slack for recovery from one mistake."""
    return math.ceil(2.5 * golden_steps) + 5


def stable_seed(template_id: str, seed: int) -> int:
    """A 64-bit RNG seed from sha256 — never Python's salted ``hash()``."""
    return int.from_bytes(hashlib.sha256(f"{template_id}:{seed}".encode()).digest()[:8], "big")


def make_context(test_recipient: str | None = None) -> dict[str, Any]:
    """Run-level values templates may refer to (``{test_recipient.text}``)."""
    num = (test_recipient or DEFAULT_TEST_RECIPIENT).strip()
    digits = "".join(c for c in num if c.isdigit())
    if len(digits) < 3:
        raise ParamError(f"test recipient {num!r} is not a phone number")
    return {"test_recipient": {"e164": "+" + digits, "digits": digits, "text": num, "national": num}}


# --------------------------------------------------------------------------------------- goal specs
def _one_of(what: str, known: Callable[[], Iterable[str]]) -> AfterValidator:
    """A field's check that its value is one of ``known()`` (asked when validating: the check hooks'
    table is filled by an import that cannot come first)."""

    def check(v: str) -> str:
        names = list(known())
        if v not in names:
            raise ValueError(f"unknown {what} {v!r}; known: {names}")
        return v

    return AfterValidator(check)


def _hook_names() -> list[str]:
    from .hooks import CHECK_HOOKS

    return sorted(CHECK_HOOKS)


OpName = Annotated[str, _one_of("op", lambda: OPS)]
RecordKind = Annotated[str, _one_of("record kind", lambda: RECORD_CHECK_KINDS)]
HookName = Annotated[str, _one_of("check hook", _hook_names)]


class _Spec(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)
    name: str | None = None


class FieldCheck(_Spec):
    """A predicate on one state path: ``{check: field, path: settings.wifi, op: eq, value: true}``."""

    check: Literal["field"] = "field"
    path: str = Field(min_length=1)
    op: OpName = "eq"
    value: Any = None
    tol: float | None = Field(None, ge=0)
    rel_tol: float | None = Field(None, ge=0)
    as_: Literal["auto", "text", "phone", "address", "path", "exact"] | None = Field(None, alias="as")

    def needs(self) -> list[str]:
        return [self.path]


class RecordCheck(_Spec):
    """A predicate on a list of records, matched by *content* (records a task adds have no id).

    ``op``: ``each`` (≥1 record matches ``match`` and every match satisfies ``expect``; the
    default when ``expect`` is given), ``exists`` (some record matches match ∪ expect; default
    otherwise), ``created`` (at least ``new`` matching records that were not in the before-state),
    ``absent`` (none matches), ``count`` (exactly ``count`` match).
    A match value may be a literal (typed equality) or ``{op: contains, value: ...}``.
    """

    check: Literal["record"] = "record"
    kind: RecordKind
    match: dict[str, Any] = Field(default_factory=dict)
    expect: dict[str, Any] = Field(default_factory=dict)
    op: Literal["each", "exists", "created", "absent", "count"] | None = None
    count: int | None = Field(None, ge=0)
    new: int = Field(1, ge=1)

    @model_validator(mode="after")
    def _defaults(self) -> "RecordCheck":
        if self.op is None:
            self.op = "each" if self.expect else "exists"
        if self.op == "count" and self.count is None:
            raise ValueError("op 'count' needs 'count'")
        if self.op == "each" and not self.expect:
            raise ValueError("op 'each' needs 'expect'")
        for spec in list(self.match.values()) + list(self.expect.values()):
            if isinstance(spec, dict) and "op" in spec and spec["op"] not in OPS:
                raise ValueError(f"unknown matcher op {spec['op']!r}; known: {list(OPS)}")
        return self

    def needs(self) -> list[str]:
        return [self.kind]


class HookCheck(_Spec):
    """A predicate written in Python (``hooks.CHECK_HOOKS``), for what data cannot express."""

    check: Literal["hook"] = "hook"
    hook: HookName
    args: dict[str, Any] = Field(default_factory=dict)
    changes: list[str] = Field(default_factory=list, description="Path globs this goal is allowed to change.")

    def needs(self) -> list[str]:
        from .hooks import CHECK_HOOKS

        return list(CHECK_HOOKS[self.hook].needs)


GoalSpec = Annotated[Union[FieldCheck, RecordCheck, HookCheck], Field(discriminator="check")]
GOAL_ADAPTER: TypeAdapter[Any] = TypeAdapter(GoalSpec)


def goal_needs(goals: list[Any], answer: AnswerSheet | None, extra: list[str] = ()) -> list[str]:  # type: ignore[assignment]
    out: list[str] = []
    for g in goals:
        out.extend(g.needs())
    if answer:
        for f in answer.fields:
            out.extend(f.needs())
    out.extend(extra)
    return sorted(dict.fromkeys(out))


# --------------------------------------------------------------------------------------- instance
class TaskInstance(BaseModel):
    """One concrete task: everything a runner, a policy prompt and the judge need, as JSON."""

    model_config = ConfigDict(extra="forbid")
    instance_id: str
    template_id: str
    seed: int
    split: str = ""
    kind: Kind
    apps: list[str]
    difficulty: Difficulty
    golden_steps: int
    max_steps: int
    instruction: str
    params: dict[str, Any] = Field(default_factory=dict)
    setup: StatePatch = Field(default_factory=StatePatch)
    goals: list[GoalSpec] = Field(default_factory=list)
    expected_changes: list[str] = Field(default_factory=list)
    answer_sheet: AnswerSheet | None = None
    needs: list[str] = Field(default_factory=list)
    solve: list[dict[str, Any]] | None = Field(None, description="Explicit oracle edits (tests/oracle only).")

    def prompt(self) -> str:
        """The instruction, plus the answer format for query tasks."""
        if self.answer_sheet is None:
            return self.instruction
        return f"{self.instruction}\nAnswer with fields {self.answer_sheet.format_hint()}."


# --------------------------------------------------------------------------------------- template
class TaskTemplate(BaseModel):
    """A family of tasks; see the module docstring and ``templates/*.yaml``."""

    model_config = ConfigDict(extra="forbid")
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9_.\-]*$")
    split: str = ""
    apps: list[str] = Field(min_length=1)
    kind: Kind = "operate"
    instructions: list[str] = Field(min_length=1)
    params: dict[str, ParamSpec] = Field(default_factory=dict)
    golden_steps: int = Field(ge=1)
    difficulty: Difficulty | None = None
    max_steps: int | None = Field(None, ge=1)
    setup: dict[str, Any] = Field(default_factory=dict)
    goals: list[GoalSpec] = Field(default_factory=list)
    expected_changes: list[str] = Field(default_factory=list)
    answer: list[AnswerField] | None = None
    needs: list[str] = Field(default_factory=list)
    solve: list[dict[str, Any]] | None = None
    description: str = ""
    tags: list[str] = Field(default_factory=list)

    @field_validator("apps")
    @classmethod
    def _apps(cls, v: list[str]) -> list[str]:
        bad = [a for a in v if a not in APP_IDS]
        if bad:
            raise ValueError(f"unknown app ids {bad}; canonical ids: {list(APP_IDS)}")
        return v

    @model_validator(mode="after")
    def _consistent(self) -> "TaskTemplate":
        if self.difficulty is None:
            self.difficulty = difficulty_for_steps(self.golden_steps)
        elif self.difficulty != difficulty_for_steps(self.golden_steps):
            raise ValueError(f"difficulty {self.difficulty} disagrees with golden_steps={self.golden_steps} "
                             f"({difficulty_for_steps(self.golden_steps)})")
        if self.max_steps is None:
            self.max_steps = default_max_steps(self.golden_steps)
        elif self.max_steps < self.golden_steps:
            raise ValueError(f"max_steps {self.max_steps} < golden_steps {self.golden_steps}")
        if self.kind == "query" and not self.answer:
            raise ValueError("a query task needs an 'answer' sheet")
        if self.kind == "operate" and not self.goals:
            raise ValueError("an operate task needs at least one goal")
        bound = set(self.params) | set(make_context())
        used = placeholders([self.instructions, self.setup, [g.model_dump(by_alias=True) for g in self.goals],
                             self.expected_changes, [a.model_dump() for a in self.answer or []], self.solve or []])
        unbound = used - bound
        if unbound:
            raise ValueError(f"placeholders not bound by params: {sorted(unbound)}")
        return self

    def needs_fields(self) -> list[str]:
        sheet = AnswerSheet(fields=self.answer) if self.answer else None
        return goal_needs(self.goals, sheet, self.needs)

    def instantiate(self, seed: int, context: dict[str, Any] | None = None) -> TaskInstance:
        """Bind parameters for ``seed``; the result depends only on (id, seed, context)."""
        if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
            raise ParamError(f"seed must be a non-negative int, got {seed!r}")
        rng = random.Random(stable_seed(self.id, seed))
        ctx = make_context()
        for k, v in (context or {}).items():
            ctx.update(make_context(v) if k == "test_recipient" and isinstance(v, str) else {k: v})
        params = sample_params(self.params, rng, ctx)
        env = {**ctx, **params}
        instruction = render(rng.choice(self.instructions), env)
        setup = StatePatch.model_validate(resolve(self.setup, env))
        goals = [GOAL_ADAPTER.validate_python(resolve(g.model_dump(by_alias=True, exclude_none=True), env))
                 for g in self.goals]
        sheet = None
        if self.answer:
            sheet = AnswerSheet(fields=[AnswerField.model_validate(resolve(a.model_dump(exclude_none=True), env))
                                        for a in self.answer])
        return TaskInstance(
            instance_id=f"{self.id}:{seed}", template_id=self.id, seed=seed, split=self.split, kind=self.kind,
            apps=list(self.apps), difficulty=self.difficulty or difficulty_for_steps(self.golden_steps),
            golden_steps=self.golden_steps, max_steps=self.max_steps or default_max_steps(self.golden_steps),
            instruction=instruction, params=params, setup=setup, goals=goals,
            expected_changes=[render(p, env) for p in self.expected_changes], answer_sheet=sheet,
            needs=goal_needs(goals, sheet, self.needs),
            solve=resolve(self.solve, env) if self.solve is not None else None,
        )


__all__ = ["DEFAULT_TEST_RECIPIENT", "Difficulty", "FieldCheck", "GOAL_ADAPTER", "GoalSpec", "HookCheck", "Kind",
           "RecordCheck", "TaskInstance", "TaskTemplate", "default_max_steps", "difficulty_for_steps",
           "make_context", "stable_seed"]
