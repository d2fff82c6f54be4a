"""Episode-level metrics: SR, PR, FC, USE, over-truncation, steps, invalid actions, pass@k.

Computed from :class:`transfer.records.EpisodeRecord` lines (or judge ``Verdict`` objects).
Undetermined episodes (a backend could not read what the judge needs) and infrastructure
errors say nothing about the policy, so they are excluded from every rate and counted apart —
otherwise a flaky USB cable would read as a worse policy.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

from pydantic import BaseModel, Field

from .records import EpisodeRecord


@dataclass(frozen=True)
class _Row:
    success: bool | None
    progress: float
    side_effects: int
    false_complete: bool
    undetermined: bool
    over_truncated: bool
    steps: int
    invalid_actions: int
    error_kind: str | None
    claimed: bool
    task_id: str | None
    seed: int | None
    fields: dict[str, Any]

    @property
    def counted(self) -> bool:
        return not self.undetermined and self.error_kind != "infra" and self.success is not None


def _row(x: Any) -> _Row:
    """Normalize an EpisodeRecord, a dict of one, or a judge Verdict."""
    if isinstance(x, dict):
        x = EpisodeRecord.model_validate(x)
    g = lambda name, default=None: getattr(x, name, default)  # noqa: E731
    terminated = g("terminated_by")
    final = g("final_action")
    claimed = (terminated in ("complete", "answer")) if terminated is not None else final in ("complete", "answer")
    fields = x.model_dump() if isinstance(x, BaseModel) else {}
    return _Row(
        success=g("success"), progress=float(g("progress", 0.0) or 0.0), side_effects=len(g("side_effects", []) or []),
        false_complete=bool(g("false_complete", False)), undetermined=bool(g("undetermined", False)),
        over_truncated=bool(g("over_truncated", False)), steps=int(g("steps", 0) or 0),
        invalid_actions=int(g("invalid_actions", 0) or 0), error_kind=g("error_kind"), claimed=bool(claimed),
        task_id=g("task_id"), seed=g("seed"), fields=fields,
    )


class EpisodeMetrics(BaseModel):
    """Rates over *counted* episodes; ``None`` when there are none to count."""

    n_episodes: int = Field(description="Everything given.")
    n_counted: int = Field(description="Episodes the rates are computed over.")
    n_undetermined: int = 0
    n_infra_error: int = 0
    n_uncounted_other: int = Field(0, description="Not undetermined, not infra, but with no success value.")
    sr: float | None = Field(None, description="Success rate.")
    pr: float | None = Field(None, description="Progress rate: mean fraction of checks passed.")
    fc_rate: float | None = Field(None, description="False completes / counted episodes.")
    fc_given_claim: float | None = Field(None, description="False completes / episodes that claimed completion.")
    use_rate: float | None = Field(None, description="Episodes with an unexpected side effect / counted.")
    over_truncation_rate: float | None = Field(None, description="Goal reached but step budget ran out / counted.")
    mean_steps: float | None = None
    mean_steps_success: float | None = None
    invalid_action_rate: float | None = Field(None, description="Invalid actions / steps.")
    mean_invalid_actions: float | None = None
    pass_at_k: dict[int, float] = Field(default_factory=dict, description="Unbiased pass@k, per task then averaged.")


def _mean(xs: Sequence[float]) -> float | None:
    return sum(xs) / len(xs) if xs else None


def episode_metrics(episodes: Iterable[Any], ks: Sequence[int] = (), task_key: Sequence[str] = ("task_id",)) -> EpisodeMetrics:
    """Metrics of a set of episodes (EpisodeRecords, their dicts, or Verdicts)."""
    rows = [_row(e) for e in episodes]
    counted = [r for r in rows if r.counted]
    n_und = sum(1 for r in rows if r.undetermined)
    n_infra = sum(1 for r in rows if not r.undetermined and r.error_kind == "infra")
    n_other = len(rows) - len(counted) - n_und - n_infra
    claims = [r for r in counted if r.claimed]
    wins = [r for r in counted if r.success]
    total_steps = sum(r.steps for r in counted)
    out = EpisodeMetrics(
        n_episodes=len(rows), n_counted=len(counted), n_undetermined=n_und, n_infra_error=n_infra,
        n_uncounted_other=n_other,
        sr=_mean([1.0 if r.success else 0.0 for r in counted]),
        pr=_mean([r.progress for r in counted]),
        fc_rate=_mean([1.0 if r.false_complete else 0.0 for r in counted]),
        fc_given_claim=_mean([1.0 if r.false_complete else 0.0 for r in claims]),
        use_rate=_mean([1.0 if r.side_effects else 0.0 for r in counted]),
        over_truncation_rate=_mean([1.0 if r.over_truncated else 0.0 for r in counted]),
        mean_steps=_mean([float(r.steps) for r in counted]),
        mean_steps_success=_mean([float(r.steps) for r in wins]),
        invalid_action_rate=(sum(r.invalid_actions for r in counted) / total_steps) if total_steps else None,
        mean_invalid_actions=_mean([float(r.invalid_actions) for r in counted]),
    )
    for k in ks:
        res = pass_at_k_by_task(rows, k, task_key)
        if res.value is not None:
            out.pass_at_k[k] = res.value
    return out


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k of one task from ``n`` attempts with ``c`` successes: 1 − C(n−c,k)/C(n,k)."""
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    if not 0 <= c <= n:
        raise ValueError(f"need 0 <= c <= n, got c={c}, n={n}")
    if n < k:
        raise ValueError(f"pass@{k} needs at least {k} attempts, got {n}")
    if n - c < k:
        return 1.0
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


class PassAtK(BaseModel):
    k: int
    value: float | None = Field(description="Mean over tasks with at least k counted attempts.")
    n_tasks: int
    skipped_tasks: list[str] = Field(default_factory=list, description="Tasks with fewer than k counted attempts.")
    per_task: dict[str, float] = Field(default_factory=dict)


def pass_at_k_by_task(episodes: Iterable[Any], k: int, key: Sequence[str] = ("task_id",)) -> PassAtK:
    """pass@k per task (grouped by ``key`` fields, e.g. ``("task_id",)`` or ``("task_id", "seed")``),
    then averaged over tasks. Uncounted episodes are not attempts."""
    groups: dict[str, list[_Row]] = defaultdict(list)
    for e in episodes:
        r = e if isinstance(e, _Row) else _row(e)
        if not r.counted:
            continue
        parts = []
        for name in key:
            v = r.fields.get(name, getattr(r, name, None))
            if v is None:
                raise ValueError(f"episodes need a {name!r} to compute pass@k per task")
            parts.append(str(v))
        groups[":".join(parts)].append(r)
    per_task: dict[str, float] = {}
    skipped: list[str] = []
    for task, rs in sorted(groups.items()):
        if len(rs) < k:
            skipped.append(task)
            continue
        per_task[task] = pass_at_k(len(rs), sum(1 for r in rs if r.success), k)
    value = sum(per_task.values()) / len(per_task) if per_task else None
    return PassAtK(k=k, value=value, n_tasks=len(per_task), skipped_tasks=skipped, per_task=per_task)


def metrics_by(episodes: Iterable[Any], by: Sequence[str] = ("policy", "backend"),
               ks: Sequence[int] = ()) -> dict[str, EpisodeMetrics]:
    """:func:`episode_metrics` per group (group name = the ``by`` values joined with ``/``)."""
    groups: dict[str, list[Any]] = defaultdict(list)
    for e in episodes:
        rec = EpisodeRecord.model_validate(e) if isinstance(e, dict) else e
        groups["/".join(str(getattr(rec, b, "")) for b in by)].append(rec)
    return {g: episode_metrics(rs, ks) for g, rs in sorted(groups.items())}


__all__ = ["EpisodeMetrics", "PassAtK", "episode_metrics", "metrics_by", "pass_at_k", "pass_at_k_by_task"]
