"""A model server that is down or wrong is infrastructure, never a policy failure.

Everything goes over real HTTP on loopback to the stand-in OpenAI server, through the real
``openai`` client and the ``s2r`` command line: preflight exits 2 before the run directory
exists; outages mid-run become policy-server infra records, stop the run after N in a row, and
``--resume`` completes it to the same summary as a run the server never left.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from typer.testing import CliRunner

from actionmap.parse import ActionParseError
from s2r.cli import app
from sim.env import SimEnv
from transfer.policies.base import PolicyServerOutage
from transfer.policies.openai_policy import OpenAIPolicy
from transfer.policies.preflight import PreflightError, check_spec, preflight
from transfer.policies.standin import StandInServer, keyword_agent

from _rigs import free_port

TASKS = "settings.wifi_on,settings.dnd_on,clock.alarm_off,settings.location_off,clock.alarm_on,contacts.favorite"


@pytest.fixture()
def server():
    srv = StandInServer().start()
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def obs(sim_pool):
    return SimEnv(pool=sim_pool).reset({"start": {"app": "settings"}})


def test_no_server_exits_2_naming_the_url_and_writes_nothing(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    out = tmp_path / "run"
    # the timeout only guards against a hang (a preflight that retried for ever); the outcome is
    # what is checked: exit 2 at preflight, the URL and the reason named, no run directory
    p = subprocess.run([sys.executable, "-m", "s2r.cli", "run", "--sim", "--policy",
                        f"openai:{url}#qwen2.5-vl?format=qwen", "--split", "real59", "--limit", "2", "--out", str(out)],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 2, p.stdout + p.stderr
    assert url in p.stderr and "connection refused" in p.stderr
    assert not out.exists()


def test_wrong_model_lists_served_models_and_doctor_agrees(server: StandInServer, tmp_path: Path) -> None:
    with pytest.raises(PreflightError, match=r"does not serve 'qwen2.5-vl'; it serves: standin-vl"):
        preflight(f"openai:{server.url}#qwen2.5-vl")
    assert "probe with an image answered" in preflight(f"openai:{server.url}#standin-vl")
    assert server.images_seen == 1  # the probe carried an image
    runner = CliRunner()
    r = runner.invoke(app, ["run", "--sim", "--out", str(tmp_path / "r"), "--policy", f"openai:{server.url}#nope"])
    assert r.exit_code == 2 and "it serves: standin-vl" in r.output and not (tmp_path / "r").exists()
    r = runner.invoke(app, ["doctor", "--no-browser", "--json", "--policy", f"vlm=openai:{server.url}#standin-vl",
                            "--policy", f"openai:{server.url}#nope"])
    checks = {c["name"]: c for c in json.loads(r.output[r.output.index("["):])}
    assert checks["policy vlm"]["status"] == "ok"
    assert checks["policy openai"]["status"] == "fail" and "it serves: standin-vl" in checks["policy openai"]["detail"]


def test_micro_checkpoint_preflight(tmp_path: Path) -> None:
    assert "hash" in preflight("micro:base")
    with pytest.raises(PreflightError, match="no micro-policy checkpoint"):
        preflight(f"micro:{tmp_path / 'missing'}")
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "meta.json").write_text("{}")
    import torch

    torch.save({"not_a_layer.weight": torch.zeros(2)}, bad / "model.pt")
    with pytest.raises(PreflightError, match="does not match this code's network"):
        preflight(f"micro:{bad}")


@pytest.mark.parametrize("spec,why", [
    ("gpt:http://h/v1#m", "valid forms"),
    ("openai:htp://127.0.0.1:8000/v1#m", "not an http(s) URL"),
    ("openai:http://127.0.0.1:99999/v1#m", "not an http(s) URL"),
    ("openai:http://127.0.0.1:8000/v1", "missing #MODEL"),
    ("openai:http://127.0.0.1:8000/v1#m?format=llava", "unknown format 'llava'"),
    ("openai:http://127.0.0.1:8000/v1#m?fromat=qwen", "unknown openai policy option"),
])
def test_bad_specs_rejected_at_parse_time(spec: str, why: str, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=re.escape(why)):
        check_spec(spec)
    r = CliRunner().invoke(app, ["run", "--sim", "--out", str(tmp_path / "r"), "--policy", spec])
    assert r.exit_code == 2 and why in r.output and "openai:http(s)://HOST:PORT/v1#MODEL" in r.output
    assert not (tmp_path / "r").exists()


def test_adapter_tells_outages_from_bad_replies(server: StandInServer, obs) -> None:
    p = OpenAIPolicy(server.url, server.model, max_retries=1, timeout=0.5)
    p.reset("Turn on Bluetooth", {})
    server.script.extend([("status", 429), ("status", 429)])
    assert isinstance(p.act(obs, []), PolicyServerOutage) and p.stats["retries"] == 1
    server.fault = 503
    out = p.act(obs, [])
    assert isinstance(out, PolicyServerOutage) and "InternalServerError" in out.detail
    server.fault = None
    server.script.append(("delay", 1.2, "late"))
    server.script.append(("delay", 1.2, "late"))
    assert isinstance(p.act(obs, []), PolicyServerOutage)  # timed out twice
    server.script.append("I would rather not.")
    bad = p.act(obs, [])
    assert isinstance(bad, ActionParseError) and not isinstance(bad, PolicyServerOutage)
    assert bad.kind == "no_action"  # a reply that is not an action stays the policy's fault
    server.go_down()
    down = p.act(obs, [])
    assert isinstance(down, PolicyServerOutage) and "APIConnectionError" in down.detail
    server.come_back()
    assert not isinstance(p.act(obs, []), ActionParseError)
    assert p.last_call["prompt_tokens"] > 0 and p.last_call["server_s"] > 0  # usage and server time reported


def _run(out: Path, spec: str, *extra: str) -> tuple[int, str]:
    r = CliRunner().invoke(app, ["run", "--sim", "--out", str(out), "--policy", f"vlm={spec}", "--split", "real59",
                                 "--tasks", TASKS, "--workers", "1", *extra])
    return r.exit_code, r.output


def _summary(run: Path) -> dict:
    from transfer.report import build_summary

    s = build_summary(run, bootstrap=200, write=False)
    keep = {k: s[k] for k in ("metrics", "metrics_by_target")}
    keep["counted"], keep["excluded"] = s["input"]["counted"], s["input"]["excluded"]
    return json.loads(json.dumps(keep, sort_keys=True, default=str))


def _records(run: Path) -> list[dict]:
    return [json.loads(line) for line in (run / "episodes.jsonl").read_text().splitlines() if line.strip()]


def test_server_down_mid_run_stops_after_n_and_resume_matches_uninterrupted(tmp_path: Path) -> None:
    srv = StandInServer().start()
    spec = f"openai:{srv.url}#{srv.model}?elements=1&retries=1"
    try:
        code, output = _run(tmp_path / "full", spec)
        assert code == 0, output
        full = _records(tmp_path / "full")
        ref_requests = len(srv.requests)
        assert len(full) == 6 and ref_requests > 6
        srv.requests.clear()
        # the server dies once the first episode's replies are out (the run's probe request included)
        first = full[0]["steps"] + 1
        calls = [0]

        def dying(messages: list) -> str:
            calls[0] += 1
            if calls[0] == first:
                threading.Thread(target=srv.go_down, daemon=True).start()
            return keyword_agent(messages)

        srv.responder = dying
        code, output = _run(tmp_path / "cut", spec, "--max-policy-outages", "2")
        assert code == 3, output
        assert "stopped after 2 episodes in a row without an answer from the policy server" in output
        assert "--resume" in output
        cut = _records(tmp_path / "cut")
        outages = [r for r in cut if r["infra_source"] == "policy_server"]
        # one good episode, 2 outages, and at most the one episode already in flight (also an outage)
        assert len(cut) in (3, 4) and len(outages) == len(cut) - 1
        assert all(r["error_kind"] == "infra" and r["success"] is None and r["attempts"] == 1 for r in outages)
        assert srv.url in outages[0]["error"]
        s = _summary(tmp_path / "cut")
        assert s["counted"] == 1  # the outages are in no rate
        from transfer.report import build_summary

        assert build_summary(tmp_path / "cut", bootstrap=100, write=False)["input"]["policy_server_outages"] == len(outages)
        from transfer.report import write_report

        rep = write_report(tmp_path / "cut", bootstrap=100)
        md = rep.markdown.read_text()
        row = next(line for line in md.splitlines() if line.startswith("| sim | vlm |"))
        assert "policy-server outages" in md and f"| {len(outages)} |" in row
        assert f"{len(outages)} policy-server outages" in md  # in the exclusions line, not as infra errors
        assert "Model latency per step" in md and "policy-server<br>outages" in rep.html.read_text()
        ml = rep.data["latency"]["sim"]["model"]["vlm"]
        assert ml["n"] == full[0]["steps"] and ml["p95_ms"] >= ml["p50_ms"] > 0 and ml["tokens"]["prompt_tokens"] > 0

        srv.responder = keyword_agent
        srv.come_back()
        code, output = _run(tmp_path / "cut", spec, "--resume")
        assert code == 0, output
        assert _summary(tmp_path / "cut") == _summary(tmp_path / "full")
        recs = _records(tmp_path / "cut")
        assert len(recs) == len(cut) + 5 and all(r["tokens"].get("completion_tokens", 0) > 0 for r in recs if r["steps"])
        assert all(len(r["policy_step_ms"]) == r["steps"] for r in recs)
    finally:
        srv.stop()


def test_hf_checkpoint_preflight(tmp_path: Path) -> None:
    from _hfmodels import vl_checkpoint

    good = vl_checkpoint(tmp_path / "vl")
    assert "processor accepts an image" in preflight(f"hf:{good}")
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "config.json").write_text((good / "config.json").read_text())  # a config, no weights
    with pytest.raises(PreflightError, match="does not load"):
        preflight(f"hf:{broken}")


def test_paired_preflights_before_any_phone_or_directory(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    r = CliRunner().invoke(app, ["paired", "--out", str(tmp_path / "p"), "--device", "vdevice:1",
                                 "--policy", f"base=openai:{url}#m", "--policy", "oracle=oracle"])
    assert r.exit_code == 2 and url in r.output and not (tmp_path / "p").exists()
