"""Transfer statistics: rates with intervals, gains, retention, agreement, rank consistency.

Everything here is plain numpy over small arrays, so a report over thousands of episodes
and thousands of bootstrap replicates takes well under a second.

Why these estimators:

* **Wilson** intervals for a proportion over episodes: unlike the normal (Wald) interval it
  behaves at 0/n and n/n, which small device runs hit all the time.
* **Cluster bootstrap over tasks**: repeats of the same task are correlated (a task is easy
  or hard for everyone), so treating episodes as independent understates uncertainty. The
  task is the unit a user generalizes over, so the task is what we resample.
* **Paired bootstrap for retention**: resampling task ids and keeping each task's cells
  (both policies × both backends × repeats) together preserves the strong correlation
  between a task's sim and device outcomes; that correlation is what makes Δ_device/Δ_sim
  estimable from ~60 tasks at all.
* **Cohen's κ** for sim/device agreement: raw agreement is inflated when almost every task
  passes (or fails) on both sides; κ corrects for the agreement expected by chance.
* **Pearson r and MMRV** (SIMPLER, Li et al. 2024) say whether sim ranks policies the way
  real phones do — what a user choosing between checkpoints cares about.
* **Prediction-powered inference** (Angelopoulos et al. 2023; PPI++ power tuning) combines
  many cheap sim outcomes with few paired device outcomes for a tighter device estimate,
  the idea SureSim applies to robot policies.

Rates are fractions in [0, 1]; the report turns them into percentages and points.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any, Sequence

import numpy as np

CONFIDENCE = 0.95
DEFAULT_BOOTSTRAP = 2000
DEFAULT_SEED = 20240611
MIN_GAIN = 0.05
"""Smallest sim gain (as a fraction, 5 pt) over which a retention ratio is reported."""

TRANSFER_COLUMNS = ("sim_base", "sim_trained", "device_base", "device_trained")
"""Column order of the (tasks × 4) arrays :func:`paired_transfer` takes."""


# ---------------------------------------------------------------------------- basics


def z_value(confidence: float = CONFIDENCE) -> float:
    """Two-sided standard-normal quantile for ``confidence`` (1.959964 for 0.95).

    Solved by bisection on ``math.erf`` so the module needs nothing beyond numpy.
    """
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    target = confidence  # P(|Z| <= z) = erf(z / sqrt 2)
    lo, hi = 0.0, 40.0
    for _ in range(200):
        mid = (lo + hi) / 2
        if math.erf(mid / math.sqrt(2.0)) < target:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def wilson_interval(successes: int, n: int, confidence: float = CONFIDENCE) -> tuple[float, float] | None:
    """Wilson score interval for ``successes``/``n``; None when ``n`` is 0."""
    if n < 0 or successes < 0 or successes > n:
        raise ValueError(f"need 0 <= successes <= n, got {successes}/{n}")
    if n == 0:
        return None
    z = z_value(confidence)
    p = successes / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def percentile_ci(samples: np.ndarray, confidence: float = CONFIDENCE) -> tuple[float, float] | None:
    """Percentile interval of bootstrap replicates; non-finite replicates are ignored."""
    s = np.asarray(samples, dtype=float)
    s = s[np.isfinite(s)]
    if s.size == 0:
        return None
    alpha = (1.0 - confidence) / 2.0
    lo, hi = np.percentile(s, [100 * alpha, 100 * (1 - alpha)])
    return float(lo), float(hi)


def task_weights(n_tasks: int, n_boot: int, rng: np.random.Generator) -> np.ndarray:
    """(n_boot × n_tasks) multiplicities of a with-replacement resample of task ids.

    Draw n_tasks ids with replacement per replicate and count each; weights let every
    statistic be a matrix product instead of a Python loop over replicates.
    """
    if n_tasks <= 0:
        raise ValueError("need at least one task to bootstrap")
    if n_boot <= 0:
        raise ValueError(f"bootstrap replicates must be positive, got {n_boot}")
    idx = rng.integers(0, n_tasks, size=(n_boot, n_tasks))
    flat = (np.arange(n_boot)[:, None] * n_tasks + idx).ravel()
    return np.bincount(flat, minlength=n_boot * n_tasks).reshape(n_boot, n_tasks).astype(float)


def cluster_bootstrap_ratio(
    numerators: np.ndarray,
    denominators: np.ndarray,
    *,
    n_boot: int = DEFAULT_BOOTSTRAP,
    seed: int = DEFAULT_SEED,
    confidence: float = CONFIDENCE,
) -> list[tuple[float, float] | None]:
    """Percentile CIs of pooled ratios Σnum/Σden under resampling of tasks (rows).

    ``numerators`` is (tasks × m) — e.g. successes, progress sums, false completes — and
    ``denominators`` (tasks,) the counted episodes of each task. Returns one CI per column.
    """
    num = np.atleast_2d(np.asarray(numerators, dtype=float).T).T
    den = np.asarray(denominators, dtype=float)
    if num.shape[0] != den.shape[0]:
        raise ValueError("numerators and denominators must have one row per task")
    if den.size == 0:
        return [None] * num.shape[1]
    w = task_weights(den.size, n_boot, np.random.default_rng(seed))
    wd = w @ den
    with np.errstate(invalid="ignore", divide="ignore"):
        reps = (w @ num) / wd[:, None]
    return [percentile_ci(reps[:, j], confidence) for j in range(num.shape[1])]


# ---------------------------------------------------------------------------- results


@dataclass(frozen=True)
class Estimate:
    """A point value with an optional interval (both fractions unless said otherwise)."""

    value: float | None
    ci: tuple[float, float] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"value": self.value, "ci": list(self.ci) if self.ci is not None else None}


@dataclass(frozen=True)
class Retention:
    """Δ_device/Δ_sim, or why it is not reported."""

    meaningful: bool
    value: float | None
    ci: tuple[float, float] | None
    raw_ratio: float | None
    message: str
    undefined_replicates: int = 0

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["ci"] = list(self.ci) if self.ci is not None else None
        return d


@dataclass(frozen=True)
class TransferResult:
    """Output of :func:`paired_transfer`."""

    n_tasks: int
    n_boot: int
    seed: int
    sr: dict[str, Estimate]
    gain_sim: Estimate
    gain_device: Estimate
    difference: Estimate
    retention: Retention

    def to_dict(self) -> dict[str, Any]:
        return {
            "n_tasks": self.n_tasks,
            "n_boot": self.n_boot,
            "seed": self.seed,
            "sr": {k: v.to_dict() for k, v in self.sr.items()},
            "gain_sim": self.gain_sim.to_dict(),
            "gain_device": self.gain_device.to_dict(),
            "difference": self.difference.to_dict(),
            "retention": self.retention.to_dict(),
        }


def _pt(x: float) -> str:
    return f"{100 * x:+.1f} pt"


def _ci_pt(ci: tuple[float, float] | None) -> str:
    return "no CI" if ci is None else f"95% CI {100 * ci[0]:+.1f} to {100 * ci[1]:+.1f}"


def paired_transfer(
    successes: np.ndarray,
    counts: np.ndarray,
    *,
    n_boot: int = DEFAULT_BOOTSTRAP,
    seed: int = DEFAULT_SEED,
    confidence: float = CONFIDENCE,
    min_gain: float = MIN_GAIN,
) -> TransferResult:
    """Gains on both backends and retention, with a paired bootstrap over tasks.

    ``successes`` and ``counts`` are (tasks × 4) arrays in :data:`TRANSFER_COLUMNS` order:
    counted successes and counted episodes of each task in each cell. Every task must have
    at least one counted episode in every cell (the caller restricts to paired tasks).

    SR of a cell is pooled: Σ successes / Σ episodes, which with equal repeats is the mean
    over tasks of per-task success. Replicates keep each task's four cells together.
    Retention is reported only when the sim gain is at least ``min_gain`` *and* its CI
    excludes 0; the difference Δ_device − Δ_sim is always reported.
    """
    s = np.asarray(successes, dtype=float)
    n = np.asarray(counts, dtype=float)
    if s.ndim != 2 or s.shape[1] != 4 or s.shape != n.shape:
        raise ValueError("successes and counts must both be (tasks × 4) arrays")
    if s.shape[0] == 0:
        raise ValueError("no paired tasks: every task needs counted episodes for both policies on both backends")
    if (n <= 0).any():
        raise ValueError("every paired task needs at least one counted episode in each cell")
    if (s < 0).any() or (s > n).any():
        raise ValueError("successes must lie between 0 and the episode count")

    point = s.sum(0) / n.sum(0)
    w = task_weights(s.shape[0], n_boot, np.random.default_rng(seed))
    reps = (w @ s) / (w @ n)  # (B × 4); every replicate has ≥1 task, every task n ≥ 1

    d_sim, d_dev = point[1] - point[0], point[3] - point[2]
    r_sim, r_dev = reps[:, 1] - reps[:, 0], reps[:, 3] - reps[:, 2]
    sr = {c: Estimate(float(point[i]), percentile_ci(reps[:, i], confidence)) for i, c in enumerate(TRANSFER_COLUMNS)}
    gain_sim = Estimate(float(d_sim), percentile_ci(r_sim, confidence))
    gain_dev = Estimate(float(d_dev), percentile_ci(r_dev, confidence))
    diff = Estimate(float(d_dev - d_sim), percentile_ci(r_dev - r_sim, confidence))

    zero = r_sim == 0
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio_reps = np.where(zero, np.nan, r_dev / np.where(zero, 1.0, r_sim))
    undefined = int(zero.sum())
    raw = float(d_dev / d_sim) if d_sim != 0 else None
    lo_sim = gain_sim.ci[0] if gain_sim.ci else 0.0
    hi_sim = gain_sim.ci[1] if gain_sim.ci else 0.0
    pct = f"{100 * confidence:.0f}%"
    diff_txt = f"the difference Δ_device − Δ_sim is {_pt(diff.value)} ({_ci_pt(diff.ci)})"
    if abs(d_sim) < min_gain:
        meaningful = False
        msg = (f"Retention not meaningful: the sim gain is only {_pt(d_sim)} ({_ci_pt(gain_sim.ci)}), below the "
               f"{100 * min_gain:.0f} pt needed for a ratio to mean anything; {diff_txt}.")
    elif lo_sim <= 0.0 <= hi_sim:
        meaningful = False
        msg = (f"Retention not meaningful: the sim gain {_pt(d_sim)} has a {pct} CI that includes 0 "
               f"({_ci_pt(gain_sim.ci)}), so the ratio can take any value; {diff_txt}.")
    elif d_sim < 0:
        meaningful = False
        msg = (f"Retention not meaningful: the trained policy is worse than base in sim ({_pt(d_sim)}, "
               f"{_ci_pt(gain_sim.ci)}); there is no gain to retain; {diff_txt}.")
    else:
        meaningful = True
        rci = percentile_ci(ratio_reps, confidence)
        msg = (f"Retention {100 * d_dev / d_sim:.1f}% of the sim gain"
               + (f" ({pct} CI {100 * rci[0]:.1f}% to {100 * rci[1]:.1f}%)" if rci else "")
               + f"; {diff_txt}.")
    retention = Retention(
        meaningful=meaningful,
        value=raw if meaningful else None,
        ci=percentile_ci(ratio_reps, confidence) if meaningful else None,
        raw_ratio=raw,
        message=msg,
        undefined_replicates=undefined,
    )
    return TransferResult(s.shape[0], n_boot, seed, sr, gain_sim, gain_dev, diff, retention)


# ---------------------------------------------------------------------------- agreement


@dataclass(frozen=True)
class Agreement:
    """2×2 table of per-task pass/fail, sim rows × device columns."""

    table: tuple[tuple[int, int], tuple[int, int]]
    n: int
    agreement: float | None
    expected_agreement: float | None
    kappa: float | None
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["table"] = [list(r) for r in self.table]
        return d


def cohen_kappa(table: Sequence[Sequence[int]]) -> Agreement:
    """Cohen's κ of a 2×2 table ``[[sim pass & device pass, sim pass & device fail],
    [sim fail & device pass, sim fail & device fail]]``.

    Degenerate marginals: when both backends give one and the same verdict on every task,
    chance agreement is 1 and κ = 0/0; it is reported as None with a note (agreement is
    then 100%, but nothing distinguishes it from chance). When only one side is constant κ
    is well defined (and 0 if the other side agrees as often as chance).
    """
    t = np.asarray(table, dtype=float)
    if t.shape != (2, 2) or (t < 0).any():
        raise ValueError("need a 2×2 table of non-negative counts")
    tab = ((int(t[0, 0]), int(t[0, 1])), (int(t[1, 0]), int(t[1, 1])))
    n = int(t.sum())
    if n == 0:
        return Agreement(tab, 0, None, None, None, "no tasks with counted episodes on both backends")
    po = float((t[0, 0] + t[1, 1]) / n)
    sim_pass, dev_pass = t[0].sum() / n, t[:, 0].sum() / n
    pe = float(sim_pass * dev_pass + (1 - sim_pass) * (1 - dev_pass))
    if pe >= 1.0 - 1e-12:
        verdict = "pass" if sim_pass == 1 else "fail"
        return Agreement(tab, n, po, pe, None,
                         f"κ undefined: every task is a {verdict} on both backends (chance agreement is 100%)")
    kappa = (po - pe) / (1 - pe)
    note = ""
    if sim_pass in (0.0, 1.0) or dev_pass in (0.0, 1.0):
        note = "one backend gives the same verdict on every task; κ measures agreement beyond that"
    return Agreement(tab, n, po, pe, float(kappa), note)


def agreement_table(sim_pass: Sequence[bool], device_pass: Sequence[bool]) -> Agreement:
    """κ and raw agreement from per-task verdicts on the two backends (same task order)."""
    a = np.asarray(sim_pass, dtype=bool)
    b = np.asarray(device_pass, dtype=bool)
    if a.shape != b.shape:
        raise ValueError("sim and device verdicts must cover the same tasks")
    table = [[int((a & b).sum()), int((a & ~b).sum())], [int((~a & b).sum()), int((~a & ~b).sum())]]
    return cohen_kappa(table)


def kappa_bootstrap_ci(
    sim_pass: Sequence[bool], device_pass: Sequence[bool], *, n_boot: int = DEFAULT_BOOTSTRAP,
    seed: int = DEFAULT_SEED, confidence: float = CONFIDENCE,
) -> tuple[float, float] | None:
    """Percentile CI of κ over resampled tasks; replicates with κ undefined are dropped."""
    a = np.asarray(sim_pass, dtype=float)
    b = np.asarray(device_pass, dtype=float)
    if a.size < 2:
        return None
    w = task_weights(a.size, n_boot, np.random.default_rng(seed))
    tot = w.sum(1)
    po = (w @ (a * b + (1 - a) * (1 - b))) / tot
    pa, pb = (w @ a) / tot, (w @ b) / tot
    pe = pa * pb + (1 - pa) * (1 - pb)
    with np.errstate(invalid="ignore", divide="ignore"):
        k = np.where(pe < 1 - 1e-12, (po - pe) / (1 - pe), np.nan)
    return percentile_ci(k, confidence)


# ---------------------------------------------------------------------------- rank consistency


def pearson_r(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Pearson correlation; None for fewer than 3 points or a constant side."""
    a, b = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if a.shape != b.shape:
        raise ValueError("x and y must have the same length")
    if a.size < 3:
        return None
    da, db = a - a.mean(), b - b.mean()
    den = math.sqrt(float((da * da).sum()) * float((db * db).sum()))
    if den == 0.0:
        return None
    return float((da * db).sum() / den)


def mmrv(sim: Sequence[float], real: Sequence[float]) -> float | None:
    """Mean Maximum Rank Violation (SIMPLER): lower is better, 0 = sim ranks like real.

    For each policy i, the worst pair (i, j) whose order sim gets wrong, weighted by how
    far apart the two are on the real backend; averaged over policies. Follows SIMPLER's
    reference implementation, strict comparisons included.
    """
    s, r = np.asarray(sim, dtype=float), np.asarray(real, dtype=float)
    if s.shape != r.shape:
        raise ValueError("sim and real must have the same length")
    if s.size < 2:
        return None
    wrong = (r[:, None] > r[None, :]) != (s[:, None] > s[None, :])
    viol = np.where(wrong, np.abs(r[:, None] - r[None, :]), 0.0)
    return float(viol.max(axis=1).mean())


# ---------------------------------------------------------------------------- buckets


BUCKETS = ("Uplift", "Stable-pass", "Mid")


def bucket_rules(threshold: float = 0.5) -> str:
    """Human-readable bucket rules, printed in the report next to the table."""
    return (f"Buckets are derived from sim outcomes only. A policy passes a task in sim when its per-task success "
            f"rate over counted repeats is ≥ {threshold:g} (a majority; ties pass). Uplift: base fails and trained "
            f"passes. Stable-pass: both pass. Mid: everything else (both fail, or base passes and trained fails — "
            f"a regression).")


def bucket_of(base_sim_sr: float, trained_sim_sr: float, threshold: float = 0.5) -> str:
    """MobileGym-style bucket of one task from its per-task sim success rates."""
    base_pass, trained_pass = base_sim_sr >= threshold, trained_sim_sr >= threshold
    if trained_pass and not base_pass:
        return "Uplift"
    if trained_pass and base_pass:
        return "Stable-pass"
    return "Mid"


# ---------------------------------------------------------------------------- PPI


@dataclass(frozen=True)
class PPIResult:
    """Prediction-powered estimate of the device SR from all sim tasks + paired tasks."""

    n_sim_tasks: int
    n_paired_tasks: int
    device_only: Estimate
    ppi: Estimate
    ppi_tuned: Estimate
    lam: float
    note: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "n_sim_tasks": self.n_sim_tasks, "n_paired_tasks": self.n_paired_tasks,
            "device_only": self.device_only.to_dict(), "ppi": self.ppi.to_dict(),
            "ppi_tuned": self.ppi_tuned.to_dict(), "lambda": self.lam, "note": self.note,
        }


def _clip_ci(c: float, half: float) -> tuple[float, float]:
    return max(0.0, c - half), min(1.0, c + half)


def ppi_mean(
    sim_only: Sequence[float], sim_paired: Sequence[float], device_paired: Sequence[float],
    confidence: float = CONFIDENCE,
) -> PPIResult | None:
    """Device success rate from sim outcomes on all tasks, rectified on the paired tasks.

    Inputs are per-task success rates: ``sim_only`` for tasks run in sim only (the
    "unlabeled" set U, size N_u), ``sim_paired``/``device_paired`` for tasks run on both (L, n).
    With sim_all = U ∪ L:

        θ_λ = mean_L(device) + λ · (mean_all(sim) − mean_L(sim))

    λ = 1 is exactly "mean of sim over all tasks + mean of (device − sim) over paired
    tasks" — classic PPI, the form SureSim uses. Because mean_all(sim) − mean_L(sim) =
    a·(mean_U(sim) − mean_L(sim)) with a = N_u/(N_u + n), U and L are disjoint and

        Var θ_λ = Var_L(device − λa·sim)/n + (λa)²·Var(sim)/N_u,

    which is exact (no overlap between the two means). PPI++ picks the λ minimizing it,
    λ̂ = Cov(device, sim) / (a·Var(sim)·(1 + n/N_u)), clipped to [0, 1]. With no sim-only
    tasks every λ gives the plain device mean. Normal (CLT) intervals. Returns None with
    fewer than 2 paired tasks.
    """
    u = np.asarray(sim_only, dtype=float)
    f = np.asarray(sim_paired, dtype=float)
    y = np.asarray(device_paired, dtype=float)
    if f.shape != y.shape:
        raise ValueError("sim_paired and device_paired must cover the same tasks")
    n, n_u = y.size, u.size
    if n < 2:
        return None
    z = z_value(confidence)
    a = n_u / (n_u + n)
    f_all = np.concatenate([u, f])
    var_f = float(f_all.var(ddof=1)) if f_all.size > 1 else 0.0

    def est(lam: float) -> Estimate:
        mu = lam * a
        theta = float(y.mean() + lam * (f_all.mean() - f.mean()))
        var = float((y - mu * f).var(ddof=1)) / n + (mu * mu * var_f / n_u if n_u else 0.0)
        return Estimate(theta, _clip_ci(theta, z * math.sqrt(max(var, 0.0))))

    plain = Estimate(float(y.mean()), _clip_ci(float(y.mean()), z * float(y.std(ddof=1)) / math.sqrt(n)))
    lam = 0.0
    if n_u and var_f > 0:
        cov = float(np.cov(y, f, ddof=1)[0, 1])
        lam = min(1.0, max(0.0, cov / (a * var_f * (1 + n / n_u))))
    note = "" if n_u else "no sim-only tasks: every estimate equals the plain device SR"
    return PPIResult(n_u + n, n, plain, est(1.0), est(lam), float(lam), note)
