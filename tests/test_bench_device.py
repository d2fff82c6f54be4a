"""``s2r bench device`` on a virtual phone behind its own private adb server: the figures are
measured, the oracle succeeds under every wait, and the fixed sleep costs what it must.

Speed figures themselves belong to the bench's output (README "Device speed"), not to these
tests: here only relations that hold on any machine are checked (a fixed 1 s sleep after each
action is slower than waiting for the screen on a phone whose captures cost little).
"""

from __future__ import annotations

import json
import os

import pytest
from typer.testing import CliRunner

pytestmark = pytest.mark.timeout(400)


def test_bench_device_figures_on_a_fast_virtual_phone() -> None:
    from s2r.cli import app

    before = os.environ.get("ADB_SERVER_SOCKET")
    r = CliRunner().invoke(app, ["bench", "device", "--device", "vdevice", "--timing", "fast", "--limit", "1",
                                 "--rules", "settle,fixed", "--json"])
    assert r.exit_code == 0, r.output
    res = json.loads(r.output.strip().splitlines()[-1])
    assert os.environ.get("ADB_SERVER_SOCKET") == before  # the private server is gone, ours untouched
    for key in ("step_ms_p50", "step_ms_p95", "act_ms", "settle_ms", "hierarchy_ms", "screencap_ms",
                "dumps_per_step", "episode_s_settle", "episode_s_fixed", "success_settle", "success_fixed",
                "settle_vs_fixed_ratio", "floor_ms"):
        assert isinstance(res[key], (int, float)) and res[key] > 0, (key, res)
    assert res["templates"] == 1 and res["timing"] == "fast"
    assert res["success_settle"] == res["success_fixed"] == 1.0, res
    assert res["dumps_per_step"] <= 2 and res["settle_methods"] == ["dumps"], res
    assert res["unsettled_steps"] == 0
    # every acting step of the fixed run slept 1 s; the settle run waited for the screen instead
    assert res["episode_s_fixed"] - res["episode_s_settle"] >= 0.5 * res["steps_measured"], res
    assert res["settle_vs_fixed_ratio"] < 1
    # the fixed run with its sleeps taken out: below the fixed run by at least its 1 s sleeps,
    # and no wait rule can beat it by much (the settle run still has to look)
    assert res["episode_s_fixed"] - res["episode_s_zero_wait"] >= 0.9 * res["steps_measured"], res
    assert 0 < res["zero_wait_vs_fixed_ratio"] < res["settle_vs_fixed_ratio"] + 0.1, res
    assert 0 < res["loop_s_settle"] < res["loop_s_fixed"] and res["overhead_s_settle"] > 0, res
    assert "episode_s_androidworld" not in res or res["episode_s_androidworld"] is None


def test_bench_device_refuses_bad_input_before_starting_a_phone() -> None:
    from s2r.cli import app

    r = CliRunner().invoke(app, ["bench", "device", "--timing", "slow"])
    assert r.exit_code == 2 and "unknown timing 'slow'" in r.output, r.output
    r = CliRunner().invoke(app, ["bench", "device", "--rules", "settle,sleepy"])
    assert r.exit_code == 2 and "sleepy" in r.output, r.output
