"""The transfer report end to end: run directory in, summary/Markdown/HTML out."""

from __future__ import annotations

import importlib.util
import io
import json
import random
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from transfer.records import EpisodeRecord, episode_key
from transfer.report import ReportError, build_summary, headline, write_report

ROOT = Path(__file__).resolve().parents[1]
B = 300  # bootstrap replicates: enough for tests, fast


def _load_reference_study():
    spec = importlib.util.spec_from_file_location("reference_study", ROOT / "experiments" / "reference_study.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules["reference_study"] = mod
    spec.loader.exec_module(mod)
    return mod


ref = _load_reference_study()


def rec(policy: str, task: str, backend: str, repeat: int, success: bool | None, **kw: Any) -> EpisodeRecord:
    target = kw.pop("target", "sim/default" if backend == "sim" else "phone-1")
    return EpisodeRecord(
        episode_id=episode_key(policy, task, 0, backend, target, repeat), policy=policy, task_id=task, seed=0,
        repeat=repeat, backend=backend, target=target, success=success,
        progress=1.0 if success else 0.0, steps=kw.pop("steps", 5), **kw)


def write_run(path: Path, records: list[EpisodeRecord], config: dict[str, Any] | None = None) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    cfg = {"run_id": "t", "base_policy": "base", "trained_policy": "trained"} if config is None else config
    (path / "config.json").write_text(json.dumps(cfg, ensure_ascii=False), encoding="utf-8")
    (path / "episodes.jsonl").write_text("".join(r.model_dump_json() + "\n" for r in records), encoding="utf-8")
    return path


def grid(outcomes: dict[tuple[str, str], list[list[bool]]], tasks: list[str]) -> list[EpisodeRecord]:
    """outcomes[(policy, backend)][task index] = verdicts per repeat."""
    out = []
    for (policy, backend), per_task in outcomes.items():
        for t, verdicts in zip(tasks, per_task):
            out += [rec(policy, t, backend, r, v) for r, v in enumerate(verdicts)]
    return out


# ---------------------------------------------------------------------------- reference study


def test_reference_study_reproduction(tmp_path: Path) -> None:
    run = ref.write_run(tmp_path / "ref", repeats=4)
    s = build_summary(run, bootstrap=B)
    h = s["headline"]
    assert h["n_tasks"] == 59 and h["counts"]["sim_trained"] == {"k": 181, "n": 236}
    assert abs(100 * h["gain_sim"]["value"] - 42.8) <= 0.1
    assert abs(100 * h["gain_device"]["value"] - 40.7) <= 0.1
    assert abs(100 * h["retention"]["value"] - 95.1) <= 0.1
    assert h["retention"]["meaningful"]
    assert {r["bucket"]: r["n_tasks"] for r in s["buckets"]["rows"]} == {
        "Uplift": 23, "Stable-pass": 18, "Mid": 18, "All": 59}
    for c, v in (("sim_base", 33.9), ("device_base", 32.2), ("sim_trained", 76.7), ("device_trained", 72.9)):
        assert round(100 * h["sr"][c]["value"], 1) == v
    assert ref.check(s) == []
    # the CI is a real interval around the point
    lo, hi = h["retention"]["ci"]
    assert lo < h["retention"]["value"] < hi


def test_reference_study_thirteen_repeats_prints_95_1(tmp_path: Path) -> None:
    s = build_summary(ref.write_run(tmp_path / "ref13", repeats=13), bootstrap=B)
    assert f"{100 * s['headline']['retention']['value']:.1f}" == "95.1"
    assert ref.check(s) == []


def test_reference_study_script_and_bad_repeats(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert ref.main(["--out", str(tmp_path / "r"), "--bootstrap", "200"]) == 0
    assert "reproduced" in capsys.readouterr().out
    assert ref.main(["--out", str(tmp_path / "r"), "--bootstrap", "200"]) == 2  # exists, no --force
    assert ref.main(["--out", str(tmp_path / "r5"), "--repeats", "5"]) == 2
    assert "try one of" in capsys.readouterr().err


# ---------------------------------------------------------------------------- files, determinism


def test_report_files_self_contained_and_deterministic(tmp_path: Path) -> None:
    run = ref.write_run(tmp_path / "ref", repeats=4)
    p1 = write_report(run, bootstrap=B)
    first = p1.summary.read_bytes()
    html = p1.html.read_text(encoding="utf-8")
    assert p1.markdown.read_text(encoding="utf-8").startswith("# Transfer report")
    # self-contained: no resource loaded from anywhere but the file itself
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", html, re.I)
    assert not re.search(r"url\(\s*['\"]?(https?:)?//", html, re.I)
    assert "@import" not in html and "http://" not in html and "https://" not in html
    assert not re.search(r"<script[^>]+src=", html, re.I)
    srcs = re.findall(r"""src=['"]([^'"]+)['"]""", html)
    assert srcs and all(u.startswith("data:image/") for u in srcs)
    for section in ("Headline", "Buckets", "Gains", "agreement", "Attribution", "Per task", "disagree"):
        assert section in html
    assert "κ" in html and "ref-task-01" in html
    # byte-identical summary on a rebuild, and when episodes.jsonl is shuffled
    p2 = write_report(run, bootstrap=B)
    assert p2.summary.read_bytes() == first
    lines = (run / "episodes.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    random.Random(3).shuffle(lines)
    (run / "episodes.jsonl").write_text("".join(lines), encoding="utf-8")
    assert write_report(run, bootstrap=B).summary.read_bytes() == first
    assert json.loads(first)["settings"]["bootstrap"] == B


def test_cli_report(tmp_path: Path) -> None:
    from s2r.cli import app

    run = ref.write_run(tmp_path / "ref", repeats=4)
    res = CliRunner().invoke(app, ["report", str(run), "--bootstrap", "200"])
    assert res.exit_code == 0, res.output
    assert "retention" in res.output and "report.html" in res.output and "Stable-pass" in res.output
    assert (run / "report.html").exists() and (run / "summary.json").exists() and (run / "report.md").exists()
    bad = CliRunner().invoke(app, ["report", str(tmp_path / "missing")])
    assert bad.exit_code == 2 and "not found" in bad.output


# ---------------------------------------------------------------------------- exclusions, messages


def test_undetermined_and_infra_excluded_and_counted(tmp_path: Path) -> None:
    tasks = [f"t{i}" for i in range(6)]
    recs = grid({("base", "sim"): [[False, False]] * 6, ("trained", "sim"): [[True, True]] * 6,
                 ("base", "device"): [[False, False]] * 6, ("trained", "device"): [[True, True]] * 6}, tasks)
    recs += [
        rec("trained", "t0", "device", 5, None, undetermined=True, undetermined_fields=["alarms"]),
        rec("trained", "t1", "device", 6, None, error="usb lost", error_kind="infra", terminated_by="error"),
        rec("trained", "t2", "device", 7, False, error="adb died", error_kind="infra", terminated_by="error"),
        rec("base", "t3", "sim", 8, None, terminated_by="error", error="judge crashed"),
        rec("trained", "t4", "device", 9, False, error="tap off target", error_kind="bridge"),
    ]
    s = build_summary(write_run(tmp_path / "run", recs), bootstrap=B)
    assert s["input"]["excluded"] == {"undetermined": 1, "infra": 2, "no_verdict": 1}
    assert s["input"]["counted"] == 48 + 1  # 6 tasks × 4 cells × 2 repeats, + the bridge-error failure
    row = next(r for r in s["metrics"] if r["backend"] == "device" and r["policy"] == "trained")
    assert row["episodes"] == 16 and row["counted"] == 13
    assert row["excluded"] == {"undetermined": 1, "infra": 2, "no_verdict": 0}
    assert row["sr"]["k"] == 12 and row["sr"]["value"] == pytest.approx(12 / 13)  # bridge error counts as a failure
    assert row["bridge_errors"] == 1
    assert s["attribution"]["bridge_error_episodes"] == {"t4": {"device": 1}}
    assert "1 undetermined, 2 infra error, 1 without a verdict" in headline(s)


def test_not_meaningful_retention_when_sim_gain_is_zero(tmp_path: Path) -> None:
    tasks = [f"t{i}" for i in range(20)]
    same = [[i % 2 == 0] * 2 for i in range(20)]
    recs = grid({("base", "sim"): same, ("trained", "sim"): same,
                 ("base", "device"): [[i % 3 == 0] * 2 for i in range(20)],
                 ("trained", "device"): [[i % 4 == 0] * 2 for i in range(20)]}, tasks)
    p = write_report(write_run(tmp_path / "run", recs), bootstrap=B)
    h = p.data["headline"]
    assert h["gain_sim"]["value"] == 0.0
    assert not h["retention"]["meaningful"] and h["retention"]["value"] is None
    assert "not meaningful" in h["retention"]["message"]
    assert h["difference"]["ci"] is not None
    assert "not meaningful" in headline(p.data)
    assert "not meaningful" in p.html.read_text(encoding="utf-8")
    assert "not meaningful" in p.markdown.read_text(encoding="utf-8")


def test_no_roles_means_no_headline_but_a_report(tmp_path: Path) -> None:
    recs = grid({("a", "sim"): [[True]] * 3, ("a", "device"): [[False]] * 3}, ["x", "y", "z"])
    p = write_report(write_run(tmp_path / "run", recs, config={"run_id": "r"}), bootstrap=B)
    assert p.data["headline"]["available"] is False and "base_policy" in p.data["headline"]["reason"]
    assert p.data["agreement"]["a"]["table"] == [[0, 3], [0, 0]]
    assert "No transfer headline" in headline(p.data)


# ---------------------------------------------------------------------------- attribution, ranks, PPI


def test_bridge_faults_excluded_from_headline(tmp_path: Path) -> None:
    tasks = [f"t{i:02d}" for i in range(30)]
    outcomes = {("base", "sim"): [[i < 10] * 2 for i in range(30)],
                ("trained", "sim"): [[i < 25] * 2 for i in range(30)],
                ("base", "device"): [[i < 10 and i not in (3, 4)] * 2 for i in range(30)],
                ("trained", "device"): [[i < 24 and i not in (3, 4)] * 2 for i in range(30)],
                ("oracle", "sim"): [[True] * 2 for _ in range(30)],
                ("oracle", "device"): [[i not in (3, 4)] * 2 for i in range(30)]}
    cfg = {"run_id": "bf", "base_policy": "base", "trained_policy": "trained", "oracle_policy": "oracle"}
    p = write_report(write_run(tmp_path / "run", grid(outcomes, tasks), cfg), bootstrap=B)
    s = p.data
    assert [b["task_id"] for b in s["attribution"]["bridge_faults"]] == ["t03", "t04"]
    h = s["headline"]
    assert h["n_tasks"] == 28 and h["excluded_bridge_faults"] == ["t03", "t04"]
    assert h["gain_device"]["value"] == pytest.approx((22 - 8) / 28)
    assert h["with_bridge_faults"]["n_tasks"] == 30
    assert h["with_bridge_faults"]["gain_device"]["value"] == pytest.approx((22 - 8) / 30)
    assert "metrics_excluding_bridge_faults" in s
    assert "Excludes 2 bridge-fault task(s)" in headline(s)
    # the oracle is a reference, not a ranked candidate; agreement excludes bridge faults for policies
    assert all(p_["policy"] != "oracle" for p_ in s["rank_consistency"]["policies"])
    assert s["agreement"]["trained"]["n"] == 28 and s["agreement"]["oracle"]["n"] == 30
    assert "Bridge faults" in p.html.read_text(encoding="utf-8")


def test_rank_consistency_with_three_policies(tmp_path: Path) -> None:
    tasks = [f"t{i}" for i in range(10)]
    # sim SR: a .1, b .5, c .3; device SR: a .2, b .4, c .6 → the tiny example of test_stats
    outcomes = {}
    for name, ns, nd in (("a", 1, 2), ("b", 5, 4), ("c", 3, 6)):
        outcomes[(name, "sim")] = [[i < ns] for i in range(10)]
        outcomes[(name, "device")] = [[i < nd] for i in range(10)]
    s = build_summary(write_run(tmp_path / "run", grid(outcomes, tasks), {"run_id": "rk"}), bootstrap=B)
    rc = s["rank_consistency"]
    assert rc["available"]
    assert rc["mmrv"] == pytest.approx(0.4 / 3, abs=1e-6)
    assert rc["pearson_r"] == pytest.approx(0.5, abs=1e-6)


def test_rank_consistency_splits_checkpoints(tmp_path: Path) -> None:
    tasks = [f"t{i}" for i in range(10)]
    recs = []
    for ck, ns, nd in (("aaa", 1, 2), ("bbb", 5, 4), ("ccc", 3, 6)):
        for i, t in enumerate(tasks):
            recs.append(rec("trained", t, "sim", 0, i < ns, checkpoint_hash=ck, target=f"sim-{ck}"))
            recs.append(rec("trained", t, "device", 0, i < nd, checkpoint_hash=ck, target=f"phone-{ck}"))
    s = build_summary(write_run(tmp_path / "run", recs, {"run_id": "ck"}), bootstrap=B)
    rc = s["rank_consistency"]
    assert [p["policy"] for p in rc["policies"]] == ["trained@aaa", "trained@bbb", "trained@ccc"]
    assert rc["mmrv"] == pytest.approx(0.4 / 3, abs=1e-6)


def test_ppi_uses_sim_only_tasks(tmp_path: Path) -> None:
    tasks = [f"t{i:03d}" for i in range(120)]
    recs = []
    for i, t in enumerate(tasks):
        easy = i % 3 != 0
        for pol, boost in (("base", False), ("trained", True)):
            ok = easy or (boost and i % 2 == 0)
            recs += [rec(pol, t, "sim", r, ok) for r in range(2)]
            if i < 30:  # only 30 tasks run on the phone
                recs += [rec(pol, t, "device", r, ok and i % 7 != 0) for r in range(2)]
    s = build_summary(write_run(tmp_path / "run", recs), bootstrap=B)
    ppi = {r["policy"]: r for r in s["ppi"]}
    assert ppi["trained"]["n_sim_tasks"] == 120 and ppi["trained"]["n_paired_tasks"] == 30
    assert s["headline"]["n_tasks"] == 30 and s["headline"]["unpaired_tasks"] == 90
    d, q = ppi["trained"]["device_only"]["ci"], ppi["trained"]["ppi_tuned"]["ci"]
    assert q[1] - q[0] <= d[1] - d[0] + 1e-9


# ---------------------------------------------------------------------------- traces, viewer


def _jpeg(color: tuple[int, int, int]) -> bytes:
    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (36, 80), color).save(buf, format="JPEG")
    return buf.getvalue()


def test_step_viewer_with_and_without_traces(tmp_path: Path) -> None:
    tasks = ["闹钟-设置", "t1", "t2", "t3"]
    recs = grid({("base", "sim"): [[False]] * 4, ("trained", "sim"): [[True]] * 4,
                 ("base", "device"): [[False]] * 4, ("trained", "device"): [[False], [True], [True], [False]]}, tasks)
    recs = [r.model_copy(update={"instruction": "设置 7:30 的闹钟 ⏰"}) if r.task_id == "闹钟-设置" else r for r in recs]
    run = write_run(tmp_path / "run", recs)
    # traces for the disagreeing task 闹钟-设置 (trained), in the runner's layout: 000.jpg is the first
    # screen, NNN.jpg the screen after step NNN; the invalid step 2 left no screenshot
    for r in recs:
        if r.task_id == "闹钟-设置" and r.policy == "trained":
            d = run / "traces" / r.episode_id
            d.mkdir(parents=True)
            color = (40, 160, 90) if r.backend == "sim" else (200, 60, 40)
            for i in (0, 1, 3):
                (d / f"{i:03d}.jpg").write_bytes(_jpeg(color))
            (d / "004.jpg").write_bytes(b"not an image")
            steps = [{"step": 1, "action": {"type": "open_app", "app": "clock"}, "timings_ms": {"total": 120}},
                     {"step": 2, "raw": "tap(闹钟", "invalid": "bad_value: unclosed call"},
                     {"step": 3, "action": {"type": "type", "text": "7:30 闹钟"}, "timings_ms": {"act": 40, "observe": 60}}]
            (d / "steps.jsonl").write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in steps)
                                           + "{torn line", encoding="utf-8")
    p = write_report(run, bootstrap=B)
    html = p.html.read_text(encoding="utf-8")
    # per side: step 1 on 000.jpg, steps 2 and 3 on 001.jpg, the final screen 004.jpg is unreadable
    assert html.count("data:image/jpeg;base64,") == 6
    assert html.count("screenshot unreadable") == 2
    assert "7:30 闹钟" in html and "open_app" in html and "闹钟-设置" in html
    assert "✗ invalid: bad_value: unclosed call" in html and "raw output: tap(闹钟" in html
    assert "No trace recorded" in html  # t3 disagrees too but has no traces
    assert "class='viewer'" in html and "◀ prev" in html
    raw = p.summary.read_text(encoding="utf-8")
    assert "设置 7:30 的闹钟 ⏰" in raw  # non-ASCII kept as is
    # per-step latency comes from the traces when they exist
    lat = p.data["latency"]["sim"]
    assert lat["n"] == 2 and "steps.jsonl" in lat["source"] and lat["p50_ms"] == pytest.approx(110)


# ---------------------------------------------------------------------------- bad input


def test_bad_input_gives_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(ReportError, match="not found"):
        build_summary(tmp_path / "nope")
    d = tmp_path / "empty"
    d.mkdir()
    with pytest.raises(ReportError, match="no episodes.jsonl"):
        build_summary(d)
    (d / "config.json").write_text("{not json", encoding="utf-8")
    (d / "episodes.jsonl").write_text("", encoding="utf-8")
    with pytest.raises(ReportError, match="not valid JSON"):
        build_summary(d)
    (d / "config.json").write_text("{}", encoding="utf-8")
    (d / "episodes.jsonl").write_text('{"policy": "x"}\n', encoding="utf-8")
    with pytest.raises(ReportError, match="no valid episode records"):
        build_summary(d)
    with pytest.raises(ReportError, match="bootstrap"):
        build_summary(ref.write_run(tmp_path / "r"), bootstrap=5)


def test_malformed_lines_and_duplicates_are_skipped_and_counted(tmp_path: Path) -> None:
    tasks = ["a", "b", "c"]
    recs = grid({("base", "sim"): [[False]] * 3, ("trained", "sim"): [[True]] * 3,
                 ("base", "device"): [[False]] * 3, ("trained", "device"): [[True]] * 3}, tasks)
    run = write_run(tmp_path / "run", recs)
    with (run / "episodes.jsonl").open("a", encoding="utf-8") as fh:
        fh.write(recs[0].model_copy(update={"success": None, "undetermined": True}).model_dump_json() + "\n")
        fh.write('{"episode_id": "x", "policy": "base"}\n')
        fh.write('{"truncated": ')
    s = build_summary(run, bootstrap=B)
    assert s["input"]["malformed_lines"] == 2 and s["input"]["duplicates_dropped"] == 1
    assert s["input"]["episodes"] == 12 and s["input"]["excluded"]["undetermined"] == 0  # counted copy kept
    html = write_report(run, bootstrap=B).html.read_text(encoding="utf-8")
    assert "2 malformed line(s)" in html


def test_replay_diff_reads_an_episode_from_a_run_directory(tmp_path: Path) -> None:
    """`s2r replay-diff` finds the episode and its recorded actions; a missing one is a clear error."""
    import json as _json

    from s2r.cli import app
    from transfer.replay import episode_actions

    run = tmp_path / "run"
    (run / "traces" / "e1").mkdir(parents=True)
    (run / "episodes.jsonl").write_text(_json.dumps({"episode_id": "e1", "task_id": "settings.wifi_off", "seed": 0,
                                                     "trace_path": "traces/e1"}) + "\n")
    (run / "traces" / "e1" / "steps.jsonl").write_text(
        _json.dumps({"step": 1, "action": {"type": "open_app", "app": "settings"}}) + "\n"
        + _json.dumps({"step": 2, "action": {"type": "complete"}}) + "\n")
    rec, actions = episode_actions(run, "e1")
    assert rec["task_id"] == "settings.wifi_off" and [a.type for a in actions] == ["open_app", "complete"]
    bad = CliRunner().invoke(app, ["replay-diff", str(run), "nope"])
    assert bad.exit_code == 2 and "no episode 'nope'" in bad.output
