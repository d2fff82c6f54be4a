"""``s2r bench device`` on a virtual phone behind its own private adb server: the figures are
measured, the oracle succeeds under every wait, and the fixed sleep costs what it must.

Speed figures themselves belong to the bench's output (README "Device speed"), not to these
tests: the speed of one run is noise (±15% on one template), so here only relations that hold by
construction are checked — the figures agree with each other, and the fixed rule's run costs at
least its 1 s sleeps, whatever the machine's speed.
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
    assert res["episodes_settle"] == res["episodes_fixed"] == 1 and "errors_settle" not in res, res
    assert res["success_settle"] == res["success_fixed"] == 1.0, res
    assert res["dumps_per_step"] >= 1 and set(res["settle_methods"]) <= {"dumps", "frame-check"}, res
    assert res["unsettled_steps"] == 0
    # the floor is its two parts; a step's p50 covers its parts' p50s (each step's total includes
    # its act and its settle); p95 is not below p50
    assert abs(res["floor_ms"] - res["floor_hierarchy_ms"] - res["floor_screencap_ms"]) <= 0.15, res
    assert res["step_ms_p95"] >= res["step_ms_p50"] >= max(res["act_ms"], res["settle_ms"]), res
    # the ratios are the figures they are made of
    assert res["settle_vs_fixed_ratio"] == round(res["episode_s_settle"] / res["episode_s_fixed"], 3), res
    assert res["step_vs_floor_ratio"] == round(res["step_ms_p50"] / res["floor_ms"], 3), res
    assert abs(res["zero_wait_vs_fixed_ratio"] - res["episode_s_zero_wait"] / res["episode_s_fixed"]) < 0.01, res
    # every acting step of the fixed run slept 1 s inside its step loop: taking its waits out
    # takes at least those seconds off the episode, and no more than the loop they were part of
    fixed_sleeps = res["episode_s_fixed"] - res["episode_s_zero_wait"]
    assert fixed_sleeps >= 0.9 * res["steps_measured"], res
    assert fixed_sleeps <= res["loop_s_fixed"] + 0.01 and 0 < res["zero_wait_vs_fixed_ratio"] < 1, res
    # an episode is its step loop and the setup, reads and teardown around it
    for rule in ("settle", "fixed"):
        assert 0 < res[f"loop_s_{rule}"] < res[f"episode_s_{rule}"] and res[f"overhead_s_{rule}"] > 0, res
    assert "episode_s_androidworld" not in res or res["episode_s_androidworld"] is None


def test_bench_device_refuses_bad_input_before_starting_a_phone() -> None:
    from s2r.cli import app

    r = CliRunner().invoke(app, ["bench", "device", "--timing", "slow"])
    assert r.exit_code == 2 and "unknown timing 'slow'" in r.output, r.output
    r = CliRunner().invoke(app, ["bench", "device", "--rules", "settle,sleepy"])
    assert r.exit_code == 2 and "sleepy" in r.output, r.output
