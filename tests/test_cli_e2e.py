"""The command line end to end, as a user types it: ``s2r demo --quick``, ``s2r run --device vdevice:1``,
``s2r paired``, ``s2r doctor`` and ``s2r schema`` — each one a real subprocess.

Every device command here talks to a private adb server on a free port (``ADB_SERVER_SOCKET``); the
default server on 5037 is never started or touched. The demo is the slow one (about 2 min on two cores: its phones run every device episode once per family).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any, Iterator

import pytest

pytestmark = pytest.mark.timeout(900)

TEST_RECIPIENT = "+13125550177"
"""A number other than the task's default (+1 202 555 0100), so the flag visibly changes whom the task texts."""


@pytest.fixture(scope="module")
def adb_env(adb_host: Any) -> dict[str, str]:
    """The environment of a shell whose adb server is the module's private one."""
    # adb_host pointed ADB_SERVER_SOCKET at the private server; HOME stays the user's (browsers)
    assert os.environ["ADB_SERVER_SOCKET"] == f"tcp:127.0.0.1:{adb_host.port}"
    return {**os.environ, "PYTHONUNBUFFERED": "1"}


def _s2r(args: list[str], env: dict[str, str], timeout: float = 600) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in env.items() if k != "ANDROID_ADB_SERVER_PORT"}
    return subprocess.run([sys.executable, "-m", "s2r.cli", *args], capture_output=True, text=True, env=env,
                          timeout=timeout)


def _episodes(run: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (run / "episodes.jsonl").read_text().splitlines() if line.strip()]


def _pct(v: float) -> str:
    from transfer.report.fmt import pct

    return pct(v)


# ------------------------------------------------------------------------------------------- demo
@pytest.mark.slow
def test_demo_quick_end_to_end(tmp_path: Path, adb_env: dict[str, str]) -> None:
    """The bundled micro:base and micro:trained load and play; both tables are printed with the numbers the
    run measured (read back from its own summaries)."""
    out = tmp_path / "demo"
    res = _s2r(["demo", "--quick", "--fresh", "--out", str(out)], adb_env)
    assert res.returncode == 0, (res.stdout[-3000:], res.stderr[-3000:])
    text = res.stdout
    assert "1. Sim gain on the held-out test split" in text and "2. Transfer on real59" in text, text[-3000:]
    eps = _episodes(out) + _episodes(out / "heldout-test")
    specs = {e["policy"]: e["policy_spec"] for e in eps}
    assert specs["base"] == "micro:base" and specs["trained"] == "micro:trained" and specs["oracle"] == "oracle"
    for name in ("base", "trained"):
        mine = [e for e in eps if e["policy"] == name]
        assert mine and all(e["error"] is None and isinstance(e["success"], bool) for e in mine), name
    assert {e["backend"] for e in _episodes(out)} == {"sim", "device"}
    # the headline's numbers are the summary's: sim and device success rates of both policies
    summary = json.loads((out / "summary.json").read_text())
    h = summary["headline"]
    assert h["available"] is True, h
    for side in ("sim", "device"):
        row = f"  {side:<7}{_pct(h['sr'][f'{side}_base']['value']):>6} → {_pct(h['sr'][f'{side}_trained']['value']):>6}"
        assert row in text, (row, text[-2000:])
    assert re.search(rf"trained vs base on {h['n_tasks']} paired tasks", text)
    test_summary = json.loads((out / "heldout-test" / "summary.json").read_text())
    g = test_summary["sim_gain"]
    assert g["available"] and f"{_pct(g['sr']['base']['value']):>6} → {_pct(g['sr']['trained']['value']):>6}" in text
    assert (out / "report.html").stat().st_size > 1000 and (out / "heldout-test" / "report.html").exists()


# ------------------------------------------------------------------------------------- run --device
def test_run_on_a_virtual_phone_with_test_recipient_and_destructive(tmp_path: Path, adb_env: dict[str, str]) -> None:
    """``--test-recipient`` and ``--destructive`` reach the run: the texting task texts that number (not its
    default one) and is judged on it, and both flags are recorded in the run's config. (A person's phone refuses
    the task without the flag: tests/test_device_safety.py; a vdevice is a dedicated test phone.)"""
    out = tmp_path / "dev"
    res = _s2r(["run", "--device", "vdevice:1", "--policy", "oracle", "--split", "real59", "--tasks",
                "messages.send_test,settings.dnd_on", "--test-recipient", TEST_RECIPIENT, "--destructive",
                "--workers", "1", "--out", str(out)], adb_env)
    assert res.returncode == 0, (res.stdout[-3000:], res.stderr[-3000:])
    cfg = json.loads((out / "config.json").read_text())
    assert cfg["test_recipient"] == TEST_RECIPIENT and cfg["destructive"] is True
    eps = {e["task_id"]: e for e in _episodes(out)}
    assert set(eps) == {"messages.send_test", "settings.dnd_on"}
    for e in eps.values():
        assert e["backend"] == "device" and e["error"] is None and e["success"] is True, e
    texting = eps["messages.send_test"]
    assert texting["instruction"] == f"Send an SMS saying “Perfect, merci !” to {TEST_RECIPIENT}.", texting
    assert TEST_RECIPIENT in json.dumps(texting["checks"]) and "2025550100" not in json.dumps(texting["checks"])


def test_paired_from_the_command_line(tmp_path: Path, adb_env: dict[str, str]) -> None:
    """``s2r paired``: the same instance on the sim and on a virtual phone, and the transfer report."""
    out = tmp_path / "paired"
    res = _s2r(["paired", "--device", "vdevice:1", "--policy", "base=micro:base", "--policy", "oracle=oracle",
                "--tasks", "settings.dnd_on", "--bootstrap", "200", "--workers", "1", "--out", str(out)], adb_env)
    assert res.returncode == 0, (res.stdout[-3000:], res.stderr[-3000:])
    eps = _episodes(out)
    cells = {(e["policy"], e["backend"]): e for e in eps}
    assert set(cells) == {(p, b) for p in ("base", "oracle") for b in ("sim", "device")} and len(eps) == 4
    assert all(e["task_id"] == "settings.dnd_on" and e["seed"] == 0 for e in eps)
    assert all(e["error"] is None and isinstance(e["success"], bool) for e in eps)
    assert cells["oracle", "sim"]["success"] and cells["oracle", "device"]["success"]
    # the same instance on both sides: the same instruction and the same checks
    assert cells["base", "sim"]["instruction"] == cells["base", "device"]["instruction"]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["input"]["counted"] == 4 and sorted(summary["run"]["backends"]) == ["device", "sim"]
    assert "Run paired · 4 episodes · 1 tasks" in res.stdout, res.stdout[-2000:]
    assert (out / "report.html").exists()


# -------------------------------------------------------------------------------------------- doctor
def _doctor(adb_env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return _s2r(["doctor", "--no-browser", *args], adb_env, timeout=120)


def test_doctor_reports_each_check_and_agrees_with_itself(adb_env: dict[str, str]) -> None:
    """``s2r doctor``'s own output: every check has a status and a fix where it failed; the table and the
    exit code say the same as the JSON."""
    res = _doctor(adb_env, "--json")
    checks = json.loads(res.stdout)
    names = [c["name"] for c in checks]
    assert names[0] == "python" and {"pydantic", "adbutils", "uiautomator2", "adb binary", "adb server"} <= set(names)
    assert all(c["status"] in ("ok", "warn", "fail") for c in checks)
    assert all(c["fix"] for c in checks if c["status"] == "fail"), checks
    failed = [c for c in checks if c["status"] == "fail"]
    assert res.returncode == (1 if failed else 0)
    by = {c["name"]: c for c in checks}
    assert by["adb server"]["status"] == "ok" and by["adb server"]["detail"].startswith("protocol version 41 on ")
    import adbutils

    assert adbutils.__version__ in by["adbutils"]["detail"]
    table = _doctor(adb_env)
    assert table.returncode == res.returncode and "s2r doctor" in table.stdout
    assert ("all green" in table.stdout) == (not failed) and all(n in table.stdout for n in names[:3])


def test_doctor_names_the_adb_server_it_talked_to(adb_env: dict[str, str]) -> None:
    checks = {c["name"]: c for c in json.loads(_doctor(adb_env, "--json").stdout)}
    port = adb_env["ADB_SERVER_SOCKET"].rsplit(":", 1)[1]
    assert checks["adb server"]["detail"] == f"protocol version 41 on 127.0.0.1:{port}"


# -------------------------------------------------------------------------------------------- schema
def _examples() -> dict[str, tuple[Any, Any]]:
    """One valid and one invalid instance of each exported model, built from the models themselves."""
    from actionmap.env import StepInfo
    from actionmap.observation import Observation, Screen, UIElement
    from transfer.records import EpisodeRecord
    from transfer.tasks.loader import get_template
    from transfer.tasks.solve import populated_world

    el = UIElement.from_px(0, (0, 0, 540, 120), (1080, 2400), text="Wi‑Fi", class_name="android.widget.Switch",
                           checkable=True, checked=True)
    obs = Observation(screen=Screen(width=1080, height=2400, density=440), elements=[el], step=1)
    inst = get_template("clock.alarm_create").instantiate(0)
    rec = EpisodeRecord(episode_id="e1", policy="oracle", task_id=inst.template_id, seed=0, backend="sim",
                        success=True, progress=1.0, steps=3)
    dump = lambda m: json.loads(m.model_dump_json(by_alias=True))  # noqa: E731
    return {
        "Action": ({"type": "swipe", "start": [500, 800], "end": [500, 200], "duration_ms": 250},
                   {"type": "teleport"}),
        "Observation": (dump(obs), {**dump(obs), "elements": "none"}),
        "UIElement": (dump(el), {**dump(el), "index": "first"}),
        "WorldState": (dump(populated_world()), {"settings": {"brightness": "bright"}}),
        "StepInfo": (dump(StepInfo(invalid_action="bad_number: x", timings_ms={"act": 3.5})), {"done": "yes"}),
        "TaskInstance": (dump(inst), {**dump(inst), "seed": "zero"}),
        "EpisodeRecord": (dump(rec), {**dump(rec), "steps": "three"}),
    }


def test_schema_writes_every_schema_and_each_validates_its_example(tmp_path: Path, adb_env: dict[str, str]) -> None:
    import jsonschema

    from s2r.schemas import SCHEMAS

    res = _s2r(["schema", "--out", str(tmp_path)], adb_env, timeout=120)
    assert res.returncode == 0, res.stderr
    written = [Path(line) for line in res.stdout.split()]
    assert {p.name for p in written} == {f"{n}.schema.json" for n in SCHEMAS} and len(SCHEMAS) >= 6
    examples = _examples()
    assert set(examples) == set(SCHEMAS)
    for name, (good, bad) in examples.items():
        schema = json.loads((tmp_path / f"{name}.schema.json").read_text())
        jsonschema.Draft202012Validator.check_schema(schema)
        jsonschema.validate(good, schema, cls=jsonschema.Draft202012Validator)
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, schema, cls=jsonschema.Draft202012Validator)
