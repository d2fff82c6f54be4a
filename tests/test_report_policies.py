"""A policy that holds two roles is one policy in the report, and ranks count candidates.

``s2r paired --policy base=random --policy trained=oracle`` makes ``trained`` both the trained
policy and (its spec being the oracle) the oracle of the run. The report must show it once in
the policy table, the per-task table and the scatter legend, and rank consistency must count
the two policies the run has. The paired run goes through the real CLI, the real adb server
and a virtual phone; the rest uses synthetic run directories.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from transfer.records import EpisodeRecord, episode_key
from transfer.report import build_summary
from transfer.report.plots import scatter_series

pytestmark = pytest.mark.timeout(300)

B = 300  # bootstrap replicates: enough for tests, fast
S2R = Path(sys.executable).with_name("s2r")


@pytest.fixture(scope="module")
def adb_env(adb_host: Any) -> dict[str, str]:
    """The environment of a CLI child that uses the module's private adb server, never the shared 5037."""
    env = {k: v for k, v in os.environ.items() if k not in ("ADB_SERVER_SOCKET", "ANDROID_SERIAL")}
    env.update(ANDROID_ADB_SERVER_PORT=str(adb_host.port), COLUMNS="80")
    return env


def _policy_header_count(md: str, name: str) -> int:
    """How many per-task columns of the Markdown report are the sim column of ``name``."""
    header = next(line for line in md.splitlines() if line.startswith("| task | bucket |"))
    return [c.strip() for c in header.strip("|").split("|")].count(f"{name} sim")


def test_paired_run_with_the_oracle_as_trained_shows_each_policy_once(adb_env: dict[str, str],
                                                                      tmp_path: Path) -> None:
    from s2r.commands.paired import quick_tasks

    out = tmp_path / "p"
    cmd = [str(S2R), "paired", "--out", str(out), "--policy", "base=random", "--policy", "trained=oracle",
           "--device", "vdevice:1", "--tasks", ",".join(quick_tasks("real59", 2)), "--workers", "1",
           "--bootstrap", "200", "--wait-devices", "20"]
    r = subprocess.run(cmd, env=adb_env, capture_output=True, text=True, timeout=240)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]

    cfg = json.loads((out / "config.json").read_text())
    assert (cfg["base_policy"], cfg["trained_policy"], cfg["oracle_policy"]) == ("base", "trained", "trained")
    s = json.loads((out / "summary.json").read_text())
    assert s["run"]["policies"] == ["base", "trained"]
    for backend in ("sim", "device"):
        assert [m["policy"] for m in s["metrics"] if m["backend"] == backend] == ["base", "trained"]
    assert [p for p, _ in scatter_series(s)] == ["base", "trained"]  # the scatter's legend

    md = (out / "report.md").read_text()
    assert _policy_header_count(md, "trained") == 1 and _policy_header_count(md, "base") == 1
    metrics = md.split("## Policy metrics")[1].split("\n## ")[0]
    rows = [line.split("|")[1:3] for line in metrics.splitlines() if re.match(r"\| (sim|device) \|", line)]
    assert [(b.strip(), q.strip()) for b, q in rows] == [("sim", "base"), ("sim", "trained"), ("device", "base"),
                                                         ("device", "trained")], rows
    html = (out / "report.html").read_text()
    assert html.count("<th>trained sim</th>") == 1 and "policies base, trained ·" in html

    rc = s["rank_consistency"]
    assert [p["policy"] for p in rc["policies"]] == ["base", "trained"]
    assert rc["reason"].endswith("this run has 2"), rc["reason"]

    # the headline reaches a pipe as whole lines: nothing cut or re-wrapped at 80 columns
    assert "trained vs base on " in r.stdout and "report: " + str(out / "report.html") in r.stdout


# ---------------------------------------------------------------------------- synthetic runs


def _rec(policy: str, task: str, backend: str, success: bool) -> EpisodeRecord:
    target = "sim/default" if backend == "sim" else "phone-1"
    return EpisodeRecord(episode_id=episode_key(policy, task, 0, backend, target, 0), policy=policy, task_id=task,
                         seed=0, repeat=0, backend=backend, target=target, success=success,
                         progress=1.0 if success else 0.0, steps=3)


def _write(path: Path, outcomes: dict[tuple[str, str], int], n_tasks: int, config: dict[str, Any]) -> Path:
    """outcomes[(policy, backend)] = how many of the ``n_tasks`` tasks (the first ones) pass."""
    path.mkdir(parents=True)
    recs = [_rec(p, f"t{i:02d}", b, i < k) for (p, b), k in outcomes.items() for i in range(n_tasks)]
    (path / "config.json").write_text(json.dumps(config))
    (path / "episodes.jsonl").write_text("".join(x.model_dump_json() + "\n" for x in recs))
    return path


def test_a_trained_oracle_is_ranked_and_a_pure_oracle_is_named_apart(tmp_path: Path) -> None:
    both = {("base", "sim"): 2, ("base", "device"): 1, ("mid", "sim"): 5, ("mid", "device"): 4,
            ("trained", "sim"): 9, ("trained", "device"): 8}
    s = build_summary(_write(tmp_path / "a", both, 10, {"run_id": "a", "base_policy": "base",
                                                         "trained_policy": "trained", "oracle_policy": "trained"}),
                      bootstrap=B)
    assert s["run"]["policies"] == ["base", "trained", "mid"]
    rc = s["rank_consistency"]
    assert rc["available"] and sorted(p["policy"] for p in rc["policies"]) == ["base", "mid", "trained"]
    assert sorted(p["policy"] for p in s["ppi"]) == ["base", "mid", "trained"]

    pure = {("base", "sim"): 2, ("base", "device"): 1, ("trained", "sim"): 9, ("trained", "device"): 8,
            ("oracle", "sim"): 10, ("oracle", "device"): 10}
    s = build_summary(_write(tmp_path / "b", pure, 10, {"run_id": "b", "base_policy": "base",
                                                         "trained_policy": "trained", "oracle_policy": "oracle"}),
                      bootstrap=B)
    rc = s["rank_consistency"]
    assert not rc["available"] and [p["policy"] for p in rc["policies"]] == ["base", "trained"]
    assert rc["reason"].endswith("this run has 2 besides the oracle 'oracle' (a reference, not ranked)")


def test_sim_only_run_reports_the_sim_gain_with_a_paired_ci(tmp_path: Path) -> None:
    from transfer.report import headline, write_report

    sim = {("base", "sim"): 3, ("trained", "sim"): 15}
    run = _write(tmp_path / "s", sim, 20, {"run_id": "heldout", "base_policy": "base", "trained_policy": "trained"})
    paths = write_report(run, bootstrap=B)
    s = json.loads(Path(paths.summary).read_text())
    g = s["sim_gain"]
    assert g["available"] and g["n_tasks"] == 20
    assert g["sr"]["base"]["value"] == pytest.approx(0.15) and g["sr"]["trained"]["value"] == pytest.approx(0.75)
    lo, hi = g["gain"]["ci"]
    assert g["gain"]["value"] == pytest.approx(0.60) and 0.3 < lo < 0.6 < hi < 0.9
    text = headline(s)
    assert "trained vs base on 20 tasks (95% CI, paired task bootstrap)" in text
    assert re.search(r"sim +15\.0% → +75\.0% +gain \+60\.0 pt +\[\+\d+\.\d, \+\d+\.\d\]", text), text
    assert "## Sim gain (simulator only)" in Path(paths.markdown).read_text()
    assert "Sim gain (simulator only)" in Path(paths.html).read_text()
    # no base/trained pair: no gain, and a reason instead of a number
    s2 = build_summary(_write(tmp_path / "o", {("a", "sim"): 3}, 5, {"run_id": "o"}), bootstrap=B)
    assert not s2["sim_gain"]["available"] and s2["sim_gain"]["reason"]
