"""Task model: parameter spaces, placeholders, deterministic instances, template validation."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from transfer.tasks import TaskInstance, TaskTemplate, difficulty_for_steps, get_template, make_context
from transfer.tasks.model import default_max_steps, stable_seed
from transfer.tasks.params import (ParamError, eval_expr, placeholders, render, resolve, sample_params, time_value)

ROOT = Path(__file__).resolve().parents[1]


def tpl(**kw: Any) -> TaskTemplate:
    base = {"id": "t.unit", "apps": ["clock"], "instructions": ["Do {x}."], "golden_steps": 6,
            "params": {"x": {"type": "int", "min": 1, "max": 9}},
            "goals": [{"check": "field", "path": "settings.wifi", "value": True}]}
    return TaskTemplate.model_validate({**base, **kw})


# --------------------------------------------------------------------------------------- params
def test_each_param_type_samples_in_its_space() -> None:
    from transfer.tasks.model import TaskTemplate as T

    specs = T.model_validate({
        "id": "p", "apps": ["clock"], "instructions": ["x"], "golden_steps": 1,
        "goals": [{"check": "field", "path": "settings.wifi", "value": True}],
        "params": {
            "c": {"type": "choice", "values": [{"value": 0.85, "text": "Small"}, {"value": 1.3, "text": "Largest"}]},
            "e": {"type": "enum", "values": ["a", "b"]},
            "i": {"type": "int", "min": 10, "max": 50, "step": 10},
            "t": {"type": "time", "hours": [5, 7], "minute_step": 15},
            "d": {"type": "date", "start": "2027-03-01", "end": "2027-03-31", "weekdays_only": True},
            "dd": {"type": "date", "dates": ["2027-03-14"]},
            "n": {"type": "name"},
            "f": {"type": "name", "part": "first"},
            "s": {"type": "string", "pool": "cities"},
            "k": {"type": "string", "values": ["x", "y", "z"], "k": 2},
            "ph": {"type": "phone"},
            "dv": {"type": "derived", "expr": "i * 2 + t.hour"},
        }}).params
    for seed in range(30):
        v = sample_params(specs, random.Random(seed))
        assert v["c"]["text"] in ("Small", "Largest") and v["e"] in ("a", "b")
        assert v["i"] in (10, 20, 30, 40, 50)
        assert 5 <= v["t"]["hour"] <= 7 and v["t"]["minute"] in (0, 15, 30, 45)
        assert v["t"]["text"] in (v["t"]["text12"], v["t"]["text24"])
        assert v["d"]["iso"].startswith("2027-03-") and v["d"]["weekday"] not in ("Saturday", "Sunday")
        assert v["dd"]["text"] == "March 14, 2027" and v["dd"]["weekday"] == "Sunday"
        assert v["n"]["full"] == f"{v['n']['first']} {v['n']['last']}" and isinstance(v["f"], str)
        assert len(v["k"]) == 2 and len(set(v["k"])) == 2
        assert v["ph"]["e164"].startswith("+1") and len(v["ph"]["digits"]) == 10 and "555" in v["ph"]["e164"]
        assert v["dv"] == v["i"] * 2 + v["t"]["hour"]


def test_time_value_renders_both_clocks() -> None:
    t = time_value(19, 5, "12h")
    assert (t["text12"], t["text24"], t["text"]) == ("7:05 PM", "19:05", "7:05 PM")
    assert time_value(0, 0, "24h")["text12"] == "12:00 AM" and time_value(12, 30)["text12"] == "12:30 PM"


def test_distinct_from_resamples() -> None:
    t = tpl(params={"a": {"type": "choice", "values": [1, 2]}, "b": {"type": "choice", "values": [1, 2], "distinct_from": ["a"]}},
            instructions=["{a} {b}"])
    for s in range(20):
        p = t.instantiate(s).params
        assert p["a"] != p["b"]
    with pytest.raises(ParamError):
        tpl(params={"a": {"type": "choice", "values": [1]}, "b": {"type": "choice", "values": [1], "distinct_from": ["a"]}},
            instructions=["{a} {b}"]).instantiate(0)


def test_placeholders_typed_and_rendered() -> None:
    env = {"t": time_value(7, 30, "12h"), "n": 3, "xs": [1, 2], "names": ["Ada", "Zoë", "José"]}
    assert resolve("{t.hour}", env) == 7 and resolve("{n}", env) == 3
    assert resolve("{t.minute:02d}", env) == "30"
    assert resolve("at {t}", env) == "at 7:30 AM"
    assert resolve(["{*xs}", "{n}"], env) == [1, 2, 3]
    assert render("{names}", env) == "Ada, Zoë and José"
    assert render("{{literal}} {n}", env) == "{literal} 3"
    assert placeholders({"a": ["{t.hour} {n}", {"b": "{*xs}"}]}) == {"t", "n", "xs"}
    for bad in ("{missing}", "{t.nope}", "{*n}"):
        with pytest.raises(ParamError):
            resolve([bad], env)


def test_safe_expressions() -> None:
    env = {"a": 6, "t": time_value(8, 0)}
    assert eval_expr("a * 7 - 2", env) == 40
    assert eval_expr("add_minutes(t, -90)['text24']", env) == "06:30"
    assert eval_expr("'yes' if a > 5 else 'no'", env) == "yes"
    assert eval_expr("f'{a:03d}'", env) == "006"
    for bad in ("__import__('os')", "a.__class__", "open('x')", "(lambda: 1)()", "a ** 99", "[x for x in 'ab']"):
        with pytest.raises(ParamError):
            eval_expr(bad, env)


# --------------------------------------------------------------------------------------- determinism
def test_same_seed_same_json_and_seeds_differ() -> None:
    t = get_template("contacts.create_company")
    a, b = t.instantiate(5).model_dump_json(), t.instantiate(5).model_dump_json()
    assert a == b
    assert len({t.instantiate(s).model_dump_json() for s in range(10)}) == 10
    assert stable_seed("x", 1) == stable_seed("x", 1) != stable_seed("x", 2)


def test_instances_identical_in_another_process() -> None:
    """Python salts hash() per process; instances must not depend on it."""
    ids = ["contacts.create_company", "messages.read_thread", "calendar.query_time_location", "test.files.organize"]
    here = {i: get_template(i).instantiate(3).model_dump_json() for i in ids}
    code = ("import json,sys; from transfer.tasks import get_template; "
            f"print(json.dumps({{i: get_template(i).instantiate(3).model_dump_json() for i in {ids!r}}}))")
    env = {**os.environ, "PYTHONHASHSEED": "12345", "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == here


def test_instance_json_round_trip_keeps_unicode() -> None:
    for s in range(40):
        inst = get_template("contacts.create_phone").instantiate(s)
        again = TaskInstance.model_validate_json(inst.model_dump_json())
        assert again == inst
        if any(ord(c) > 127 for c in inst.instruction):
            raw = json.dumps(inst.model_dump(mode="json"), ensure_ascii=False)
            assert inst.params["p"]["full"] in raw
            break
    else:  # pragma: no cover - the name pools guarantee non-ASCII names appear
        pytest.fail("no non-ASCII name in 40 seeds")


def test_context_test_recipient() -> None:
    t = get_template("messages.send_test")
    default = t.instantiate(0)
    mine = t.instantiate(0, {"test_recipient": "+44 7700 900123"})
    assert "+44 7700 900123" in mine.instruction and mine.goals[0].match["address"] == "+447700900123"
    assert default.goals[0].match["address"] == make_context()["test_recipient"]["e164"]
    with pytest.raises(ParamError):
        make_context("n/a")


# --------------------------------------------------------------------------------------- validation
def test_difficulty_and_budget_follow_golden_steps() -> None:
    assert [difficulty_for_steps(n) for n in (1, 4, 5, 10, 11, 20, 21)] == ["L1", "L1", "L2", "L2", "L3", "L3", "L4"]
    t = tpl(golden_steps=12)
    assert t.difficulty == "L3" and t.max_steps == default_max_steps(12) and 2 * 12 < t.max_steps <= 3 * 12 + 6
    with pytest.raises(ValidationError, match="disagrees"):
        tpl(golden_steps=3, difficulty="L3")
    with pytest.raises(ValidationError, match="max_steps"):
        tpl(golden_steps=8, max_steps=5)


@pytest.mark.parametrize("bad, msg", [
    ({"instructions": ["Do {y}."]}, "not bound"),
    ({"apps": ["telegram"]}, "unknown app"),
    ({"kind": "query"}, "answer"),
    ({"goals": []}, "at least one goal"),
    ({"goals": [{"check": "field", "path": "settings.wifi", "op": "roughly", "value": 1}]}, "unknown op"),
    ({"goals": [{"check": "record", "kind": "notes", "match": {}}]}, "unknown record kind"),
    ({"goals": [{"check": "record", "kind": "alarms", "op": "count"}]}, "count"),
    ({"goals": [{"check": "hook", "hook": "nope"}]}, "unknown check hook"),
    ({"params": {"x": {"type": "int", "min": 5, "max": 1}}}, "max"),
    ({"params": {"x": {"type": "string", "pool": "nope"}}}, "unknown pool"),
    ({"params": {"x": {"type": "derived", "expr": "open('f')"}}}, "only these functions"),
    ({"id": "Bad Id"}, "pattern"),
    ({"extra_field": 1}, "Extra inputs"),
])
def test_bad_templates_are_rejected_with_a_reason(bad: dict[str, Any], msg: str) -> None:
    with pytest.raises((ValidationError, ParamError), match=msg):
        tpl(**bad)


def test_setup_must_be_a_valid_state_patch() -> None:
    t = tpl(setup={"settings": {"warp_drive": True}})
    with pytest.raises(ValidationError, match="unknown settings"):
        t.instantiate(0)
    t = tpl(setup={"add": {"alarms": [{"hour": 25, "minute": 0}]}})
    with pytest.raises(ValidationError):
        t.instantiate(0)


def test_needs_derived_from_goals_and_answers() -> None:
    assert get_template("settings.wifi_on").instantiate(0).needs == ["settings.wifi"]
    assert get_template("clock.alarm_off").instantiate(0).needs == ["alarms"]
    assert get_template("settings.about_model").instantiate(0).needs == ["device.model"]
    assert get_template("phone.query_last_missed").instantiate(0).needs == ["calls"]
    assert get_template("train.calculator.enter_sum").instantiate(0).needs == ["calculator_display"]


def test_prompt_names_answer_fields() -> None:
    inst = get_template("calendar.query_time_location").instantiate(0)
    assert '"time": <time>' in inst.prompt() and '"location": <text>' in inst.prompt()
    assert get_template("settings.wifi_on").instantiate(0).prompt() == get_template("settings.wifi_on").instantiate(0).instruction


def test_bad_seed() -> None:
    with pytest.raises(ParamError):
        get_template("settings.wifi_on").instantiate(-1)
