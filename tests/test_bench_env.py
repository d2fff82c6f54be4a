"""``s2r bench env``, run small through the command line: every figure is there, carries its
conditions and agrees with the others; how fast they are is the bench's output, not this test's."""

from __future__ import annotations

import json
import math

from typer.testing import CliRunner

from s2r.cli import app
from s2r.envserver.bench import TARGETS

SESSIONS, PAGES, DURATION, ALIVE = 4, 2, 1.0, 20

RATES = ("steps_per_s_server", "steps_per_s_inprocess", "server_vs_inprocess_ratio")
LATENCIES = ("step_ms_p50", "step_ms_p95", "reset_ms_p50", "reset_ms_p95", "fork_ms_p50", "fork_ms_p95",
             "step_ms_loaded_p50", "step_ms_loaded_p95", "step_ms_inprocess_p50")
MEMORY = ("mb_per_session_live", "mb_per_session_hibernated", "pss_mb_per_session_live",
          "pss_mb_per_session_hibernated", "python_mb_per_session_live", "python_mb_per_session_hibernated",
          "server_mb_base")


def test_bench_env_reports_every_figure_with_its_conditions() -> None:
    r = CliRunner().invoke(app, ["bench", "env", "--sessions", str(SESSIONS), "--pages", str(PAGES), "--duration",
                                 str(DURATION), "--rounds", "1", "--alive", str(ALIVE), "--json"])
    assert r.exit_code == 0, r.output
    res = json.loads(r.output.strip().splitlines()[-1])
    # the conditions travel with the figures
    assert (res["sessions"], res["pages"], res["duration_s"], res["rounds"]) == (SESSIONS, PAGES, DURATION, 1), res
    assert res["image_format"] == "jpeg" and res["cpus"] >= 1 and res["screenshots"] == "every step"
    # steps/s both ways, from steps that were counted; the ratio is theirs
    for k in RATES:
        assert isinstance(res[k], (int, float)) and res[k] > 0, (k, res[k])
    assert res["steps_server"] > 0 and res["steps_inprocess"] > 0
    assert abs(res["server_vs_inprocess_ratio"] - res["steps_per_s_server"] / res["steps_per_s_inprocess"]) < 0.01
    # latencies over the wire: positive, and each p95 at least its p50
    for k in LATENCIES:
        assert isinstance(res[k], (int, float)) and res[k] > 0, (k, res[k])
    for k in ("step_ms", "reset_ms", "fork_ms", "step_ms_loaded"):
        assert res[f"{k}_p95"] >= res[f"{k}_p50"], (k, res)
    # a fork is the connection plus the fork message (each timed within the same samples)
    assert 0 < res["connect_ms_p50"] and 0 < res["fork_message_ms_p50"] <= res["fork_ms_p95"]
    # memory: figures from the server's process tree, which has Chromium below it
    for k in MEMORY:
        assert isinstance(res[k], (int, float)) and math.isfinite(res[k]), (k, res[k])
    assert res["server_mb_base"] > 50 and res["server_mb_alive"] > 0
    assert res["cpu_ms_per_step_server"] > 0 and res["cpu_ms_per_step_inprocess"] > 0
    wire_cpu = res["cpu_ms_per_step_server"] + res["cpu_ms_per_step_client"]
    assert abs(res["cpu_bound_ratio"] - res["cpu_ms_per_step_inprocess"] / wire_cpu) < 0.01, res
    # every session asked for was open at once, all but max_live asleep, and the oldest woke and answered
    assert res["sessions_alive_max"] == res["alive_sessions_open"] == ALIVE and res["alive_verified"] is True, res
    assert res["alive_hibernated"] == ALIVE - res["alive_max_live"] and res["alive_live"] == res["alive_max_live"]
    assert res["alive_sample_asleep"] == res["alive_sample_woken"] > 0
    assert res["kb_hibernated_text_per_session"] > 0
    # every target is judged from the figure it names
    assert set(res["targets"]) == set(TARGETS)
    for k, t in res["targets"].items():
        assert t["measured"] == res[k] and isinstance(t["met"], bool), (k, t)


def test_bench_env_refuses_an_unknown_image_format() -> None:
    r = CliRunner().invoke(app, ["bench", "env", "--image-format", "gif"])
    assert r.exit_code == 2 and "jpeg or png" in r.output
