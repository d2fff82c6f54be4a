"""Transfer statistics against known answers: intervals, κ, rank metrics, coverage."""

from __future__ import annotations

import math

import numpy as np
import pytest

from transfer import stats

# ---------------------------------------------------------------------------- Wilson


def test_z_value() -> None:
    assert stats.z_value(0.95) == pytest.approx(1.959964, abs=1e-6)
    assert stats.z_value(0.90) == pytest.approx(1.644854, abs=1e-6)
    with pytest.raises(ValueError):
        stats.z_value(1.0)


@pytest.mark.parametrize("k,n,lo,hi", [
    (5, 10, 0.236593, 0.763407),   # textbook 95% Wilson for 5/10
    (0, 10, 0.0, 0.277533),
    (10, 10, 0.722467, 1.0),
    (1, 20, 0.008881, 0.236131),
    (80, 236, 0.281599, 0.401525),
])
def test_wilson_known_values(k: int, n: int, lo: float, hi: float) -> None:
    got = stats.wilson_interval(k, n)
    assert got is not None
    assert got[0] == pytest.approx(lo, abs=2e-6)
    assert got[1] == pytest.approx(hi, abs=2e-6)


def test_wilson_edge_cases() -> None:
    assert stats.wilson_interval(0, 0) is None
    with pytest.raises(ValueError):
        stats.wilson_interval(3, 2)
    with pytest.raises(ValueError):
        stats.wilson_interval(-1, 2)


# ---------------------------------------------------------------------------- kappa


def test_kappa_hand_computed() -> None:
    # n=50, po=0.7, sim pass 0.5, device pass 0.6 → pe=0.5, κ=0.4
    a = stats.cohen_kappa([[20, 5], [10, 15]])
    assert a.n == 50
    assert a.agreement == pytest.approx(0.7)
    assert a.expected_agreement == pytest.approx(0.5)
    assert a.kappa == pytest.approx(0.4)
    # po=0.85, sim pass 0.6, device pass 0.45 → pe=0.6*0.45+0.4*0.55=0.49, κ=0.36/0.51
    assert stats.cohen_kappa([[45, 15], [0, 40]]).kappa == pytest.approx(0.36 / 0.51)


def test_kappa_perfect_and_opposite() -> None:
    assert stats.cohen_kappa([[5, 0], [0, 5]]).kappa == pytest.approx(1.0)
    assert stats.cohen_kappa([[0, 5], [5, 0]]).kappa == pytest.approx(-1.0)


def test_kappa_degenerate_marginals() -> None:
    both_pass = stats.cohen_kappa([[10, 0], [0, 0]])
    assert both_pass.kappa is None and both_pass.agreement == 1.0
    assert "undefined" in both_pass.note and "pass" in both_pass.note
    both_fail = stats.cohen_kappa([[0, 0], [0, 7]])
    assert both_fail.kappa is None and "fail" in both_fail.note
    # one side constant: po = pe = 0.8 → κ = 0, with a note
    one = stats.cohen_kappa([[8, 2], [0, 0]])
    assert one.kappa == pytest.approx(0.0) and one.note
    empty = stats.cohen_kappa([[0, 0], [0, 0]])
    assert empty.kappa is None and empty.n == 0
    with pytest.raises(ValueError):
        stats.cohen_kappa([[1, 2, 3]])


def test_agreement_table_from_verdicts() -> None:
    sim = [True, True, False, False, True]
    dev = [True, False, False, True, True]
    a = stats.agreement_table(sim, dev)
    assert a.table == ((2, 1), (1, 1))
    # po = 3/5; sim pass 3/5, dev pass 3/5 → pe = .36 + .16 = .52
    assert a.kappa == pytest.approx((0.6 - 0.52) / 0.48)
    ci = stats.kappa_bootstrap_ci(sim, dev, n_boot=300, seed=1)
    assert ci is not None and -1.0 <= ci[0] <= ci[1] <= 1.0


# ---------------------------------------------------------------------------- rank consistency


def test_pearson_and_mmrv_tiny_example() -> None:
    sim, real = [0.1, 0.5, 0.3], [0.2, 0.4, 0.6]
    # dx = (-.2, .2, 0), dy = (-.2, 0, .2): r = .04 / sqrt(.08 * .08) = 0.5
    assert stats.pearson_r(sim, real) == pytest.approx(0.5)
    # only pair (1, 2) is mis-ordered by sim, weight |0.4 - 0.6| = 0.2 → max per policy (0, .2, .2)
    assert stats.mmrv(sim, real) == pytest.approx(0.4 / 3)


def test_mmrv_perfect_order_and_degenerate() -> None:
    assert stats.mmrv([0.1, 0.2, 0.9], [0.3, 0.5, 0.8]) == 0.0
    assert stats.mmrv([0.5], [0.5]) is None
    assert stats.pearson_r([0.1, 0.2], [0.3, 0.4]) is None      # fewer than 3 policies
    assert stats.pearson_r([0.1, 0.2, 0.3], [0.5, 0.5, 0.5]) is None  # constant side
    # reversed order: every policy's worst violation is its largest real gap
    assert stats.mmrv([0.3, 0.2, 0.1], [0.1, 0.2, 0.3]) == pytest.approx((0.2 + 0.1 + 0.2) / 3)


# ---------------------------------------------------------------------------- buckets


def test_bucket_rules() -> None:
    assert stats.bucket_of(0.0, 1.0) == "Uplift"
    assert stats.bucket_of(0.25, 0.5) == "Uplift"       # ties pass
    assert stats.bucket_of(0.5, 0.75) == "Stable-pass"
    assert stats.bucket_of(0.0, 0.25) == "Mid"
    assert stats.bucket_of(1.0, 0.0) == "Mid"           # regression
    assert "≥ 0.5" in stats.bucket_rules(0.5)


# ---------------------------------------------------------------------------- paired transfer


def _cells(sb: list[int], st: list[int], db: list[int], dt: list[int], k: int) -> tuple[np.ndarray, np.ndarray]:
    s = np.array([sb, st, db, dt], dtype=float).T
    return s, np.full_like(s, k)


def test_paired_transfer_point_values() -> None:
    s, n = _cells([0, 1, 4, 4], [4, 4, 4, 3], [0, 0, 4, 3], [3, 4, 4, 2], 4)
    r = stats.paired_transfer(s, n, n_boot=500, seed=3)
    assert r.sr["sim_base"].value == pytest.approx(9 / 16)
    assert r.gain_sim.value == pytest.approx((15 - 9) / 16)
    assert r.gain_device.value == pytest.approx((13 - 7) / 16)
    assert r.difference.value == pytest.approx(0.0)
    # deterministic for a seed
    assert stats.paired_transfer(s, n, n_boot=500, seed=3).to_dict() == r.to_dict()


def test_retention_not_meaningful_when_sim_gain_is_zero() -> None:
    rng = np.random.default_rng(0)
    base = rng.integers(0, 5, 40)
    s, n = _cells(list(base), list(base), list(rng.integers(0, 5, 40)), list(rng.integers(0, 5, 40)), 4)
    r = stats.paired_transfer(s, n, n_boot=300, seed=1)
    assert r.gain_sim.value == 0.0
    assert not r.retention.meaningful and r.retention.value is None and r.retention.ci is None
    assert "not meaningful" in r.retention.message and "Δ_device − Δ_sim" in r.retention.message
    assert r.difference.ci is not None  # the difference stays reported


def test_retention_not_meaningful_when_ci_includes_zero() -> None:
    # 10-task run, a 10 pt sim gain carried by one task: above 5 pt but the CI reaches 0
    s, n = _cells([0] * 10, [1] + [0] * 9, [0] * 10, [1] + [0] * 9, 1)
    r = stats.paired_transfer(s, n, n_boot=400, seed=2)
    assert r.gain_sim.value == pytest.approx(0.1)
    assert r.gain_sim.ci[0] <= 0.0
    assert not r.retention.meaningful and "includes 0" in r.retention.message


def test_retention_not_meaningful_when_trained_is_worse() -> None:
    s, n = _cells([1] * 30, [0] * 30, [1] * 30, [0] * 20 + [1] * 10, 1)
    r = stats.paired_transfer(s, n, n_boot=300, seed=2)
    assert not r.retention.meaningful and "worse than base" in r.retention.message


def test_paired_transfer_rejects_bad_input() -> None:
    with pytest.raises(ValueError):
        stats.paired_transfer(np.zeros((0, 4)), np.zeros((0, 4)))
    with pytest.raises(ValueError):
        stats.paired_transfer(np.zeros((3, 4)), np.zeros((3, 4)))       # a cell without episodes
    with pytest.raises(ValueError):
        stats.paired_transfer(np.full((3, 4), 2.0), np.ones((3, 4)))    # more successes than episodes


# Population for the coverage test: tasks are drawn from three types; within a type each
# cell's per-task success probability is Beta with a known mean. The estimator targets
# (E p_td − E p_bd) / (E p_ts − E p_bs) over this task population.
TYPES = np.array([0.4, 0.3, 0.3])
MEANS = np.array([  # sim_base, sim_trained, device_base, device_trained
    [0.10, 0.85, 0.10, 0.75],
    [0.85, 0.92, 0.80, 0.88],
    [0.05, 0.20, 0.05, 0.15],
])
CONC = 8.0


def _population_truth() -> tuple[float, float]:
    e = TYPES @ MEANS
    d_sim, d_dev = e[1] - e[0], e[3] - e[2]
    return d_dev / d_sim, d_dev - d_sim


def test_bootstrap_ci_coverage_against_known_truth() -> None:
    """~95% of paired-bootstrap CIs cover the population retention and difference."""
    true_ret, true_diff = _population_truth()
    rng = np.random.default_rng(12345)
    reps, n_tasks, k = 200, 59, 3
    cover_ret = cover_diff = meaningful = 0
    for i in range(reps):
        types = rng.choice(3, size=n_tasks, p=TYPES)
        m = MEANS[types]
        p = rng.beta(CONC * m, CONC * (1 - m))
        succ = rng.binomial(k, p).astype(float)
        r = stats.paired_transfer(succ, np.full_like(succ, k), n_boot=300, seed=i)
        if r.retention.meaningful:
            meaningful += 1
            lo, hi = r.retention.ci
            cover_ret += lo <= true_ret <= hi
        lo, hi = r.difference.ci
        cover_diff += lo <= true_diff <= hi
    assert meaningful == reps  # a ~37 pt sim gain is always big enough here
    assert 0.88 <= cover_ret / reps <= 0.99, cover_ret / reps
    assert 0.88 <= cover_diff / reps <= 0.99, cover_diff / reps


def test_cluster_bootstrap_wider_than_wilson_for_correlated_repeats() -> None:
    # all-or-nothing tasks: 10 repeats per task behave like one observation per task
    succ = np.array([10.0] * 12 + [0.0] * 18)
    den = np.full(30, 10.0)
    (boot,) = stats.cluster_bootstrap_ratio(succ, den, n_boot=1000, seed=4)
    wil = stats.wilson_interval(120, 300)
    assert boot[0] <= 0.4 <= boot[1]
    assert (boot[1] - boot[0]) > 2 * (wil[1] - wil[0])


# ---------------------------------------------------------------------------- PPI


def test_ppi_equals_device_mean_without_sim_only_tasks() -> None:
    f = np.array([0, 1, 1, 0.5, 1, 0])
    y = np.array([0, 1, 0.5, 0.5, 1, 0])
    r = stats.ppi_mean([], f, y)
    assert r.ppi.value == pytest.approx(y.mean()) and r.ppi_tuned.value == pytest.approx(y.mean())
    assert r.ppi.ci == pytest.approx(r.device_only.ci)
    assert r.note


def test_ppi_formula_and_coverage() -> None:
    """θ(λ=1) = mean_sim_all + mean(device − sim); CIs cover the true device mean ~95%,
    and with many correlated sim-only tasks PPI++ is tighter than device-only."""
    f_only, f_p, y_p = [0.2, 0.4, 1.0], [0.0, 1.0], [0.5, 1.0]
    r = stats.ppi_mean(f_only, f_p, y_p)
    assert r.ppi.value == pytest.approx(np.mean(f_only + f_p) + np.mean(np.subtract(y_p, f_p)))

    rng = np.random.default_rng(7)
    cover = narrower = 0
    reps = 300
    for _ in range(reps):
        q = rng.beta(2, 2, size=220)                           # latent task easiness
        sim = np.clip(q + rng.normal(0.05, 0.08, 220), 0, 1)   # sim is optimistic, but correlated
        dev = np.clip(q + rng.normal(0.0, 0.08, 220), 0, 1)
        res = stats.ppi_mean(sim[20:], sim[:20], dev[:20])
        # truth: population mean of dev, estimated once with a huge sample below
        cover += res.ppi_tuned.ci[0] <= TRUE_DEV <= res.ppi_tuned.ci[1]
        narrower += (res.ppi_tuned.ci[1] - res.ppi_tuned.ci[0]) < (res.device_only.ci[1] - res.device_only.ci[0])
    assert 0.88 <= cover / reps <= 0.99, cover / reps
    assert narrower / reps > 0.9


def _true_dev() -> float:
    rng = np.random.default_rng(99)
    q = rng.beta(2, 2, size=2_000_000)
    return float(np.clip(q + rng.normal(0.0, 0.08, q.size), 0, 1).mean())


TRUE_DEV = _true_dev()


def test_ppi_needs_two_paired_tasks() -> None:
    assert stats.ppi_mean([0.1, 0.2], [0.5], [0.5]) is None
    assert math.isclose(stats.ppi_mean([0.1], [0.5, 0.7], [0.4, 0.8]).n_sim_tasks, 3)
