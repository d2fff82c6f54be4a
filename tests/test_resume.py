"""A run killed mid-way and resumed ends with the same summary as an uninterrupted run."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

TASKS = "settings.wifi_on,settings.dnd_on,clock.alarm_off,contacts.favorite,settings.location_off,clock.alarm_on"


def _cmd(out: Path, resume: bool = False) -> list[str]:
    cmd = [sys.executable, "-m", "s2r.cli", "run", "--sim", "--policy", "rand=random:7", "--policy", "oracle",
           "--split", "real59", "--tasks", TASKS, "--out", str(out), "--workers", "1"]
    return cmd + (["--resume"] if resume else [])


def _summary(run: Path) -> dict:
    from transfer.report import build_summary

    s = build_summary(run, bootstrap=200, write=False)
    s.pop("latency", None)  # wall-clock timings differ between any two runs
    s["run"].pop("run_id", None)  # named after the directory
    return json.loads(json.dumps(s, sort_keys=True, default=str))


def _lines(p: Path) -> list[str]:
    return p.read_text().splitlines() if p.exists() else []


def test_killed_run_resumes_without_duplicates_and_same_summary(tmp_path) -> None:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    full = tmp_path / "full"
    subprocess.run(_cmd(full), check=True, env=env, capture_output=True, timeout=600)

    cut = tmp_path / "cut"
    proc = subprocess.Popen(_cmd(cut), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    eps = cut / "episodes.jsonl"
    deadline = time.time() + 300
    while len(_lines(eps)) < 3 and time.time() < deadline and proc.poll() is None:
        time.sleep(0.2)
    proc.send_signal(signal.SIGKILL)  # a crash: no chance to clean up
    proc.wait(timeout=30)
    done_before = len(_lines(eps))
    assert 3 <= done_before < 12, done_before

    subprocess.run(_cmd(cut, resume=True), check=True, env=env, capture_output=True, timeout=600)
    ids = [json.loads(line)["episode_id"] for line in _lines(eps)]
    assert len(ids) == len(set(ids)) == 12  # 2 policies x 6 tasks, none twice
    _assert_every_episode_has_a_verdict(full)
    _assert_every_episode_has_a_verdict(cut)
    assert _summary(cut) == _summary(full)


def _assert_every_episode_has_a_verdict(run: Path) -> None:
    """Two runs of nothing but infrastructure errors would also compare equal: require real verdicts."""
    eps = [json.loads(line) for line in _lines(run / "episodes.jsonl")]
    assert len(eps) == 12
    for e in eps:
        assert e["error"] is None and e["error_kind"] is None and not e["undetermined"], e
        assert isinstance(e["success"], bool) and e["checks"] and e["steps"] >= 1, e
    # the oracle solves every one of these tasks; the random policy solves fewer
    oracle = {e["task_id"]: e["success"] for e in eps if e["policy"] == "oracle"}
    assert oracle == dict.fromkeys(TASKS.split(","), True)
    summary = _summary(run)
    assert summary["input"]["counted"] == 12 and summary["input"]["excluded"] == {
        "undetermined": 0, "infra": 0, "no_verdict": 0}
    by_policy = {m["policy"]: m for m in summary["metrics"]}
    assert by_policy["oracle"]["counted"] == 6 and by_policy["oracle"]["sr"]["value"] == 1.0
    assert by_policy["rand"]["counted"] == 6 and by_policy["rand"]["sr"]["value"] < 1.0


def test_resume_refuses_a_different_run(tmp_path) -> None:
    out = tmp_path / "r"
    subprocess.run(_cmd(out), check=True, capture_output=True, timeout=600)
    other = [c if c != "rand=random:7" else "rand=random:8" for c in _cmd(out, resume=True)]
    res = subprocess.run(other, capture_output=True, text=True, timeout=120)
    assert res.returncode != 0 and "different" in (res.stdout + res.stderr)


def test_policy_specs_with_query_strings_need_no_name() -> None:
    """``--policy`` splits a leading NAME= only when it cannot belong to the spec itself."""
    from transfer.session import parse_policies

    got = parse_policies(["oracle", "rand=random:7", "hf:/ckpt/qwen?format=qwen&device=cpu",
                          "vlm=openai:http://127.0.0.1:8000/v1?model=m", "openai:http://h/v1?model=a=b"])
    assert got == {"oracle": "oracle", "rand": "random:7", "hf": "hf:/ckpt/qwen?format=qwen&device=cpu",
                   "vlm": "openai:http://127.0.0.1:8000/v1?model=m", "openai": "openai:http://h/v1?model=a=b"}
