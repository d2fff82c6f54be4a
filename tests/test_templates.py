"""The template library: splits, counts, and a judge self-check on every template.

For every template and seeds 0–2, the state a correct episode leaves (built without a UI by
``solve.expected_after``) must be judged a clean success, and the untouched start must not
pass an operate task — on an empty phone and on a lived-in one.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from actionmap.actions import Complete
from transfer.tasks import TemplateError, get_template, instances, judge, load_templates
from transfer.tasks.loader import REAL59_SIZE, parse_file, validate_templates
from transfer.tasks.solve import apply_patch, base_world, expected_after, oracle_final_action, populated_world

ALL = load_templates()
REAL59_APPS = {"settings", "clock", "contacts", "messages", "calendar", "files", "calculator", "phone"}


def test_split_counts_and_disjoint_ids() -> None:
    by = Counter(t.split for t in ALL)
    assert by["real59"] == REAL59_SIZE == 59
    assert by["train"] >= 80
    assert 15 <= by["test"] <= 30
    ids = [t.id for t in ALL]
    assert len(ids) == len(set(ids))
    real = {t.id for t in load_templates("real59")}
    assert real.isdisjoint(t.id for t in load_templates("train"))
    assert real.isdisjoint(t.id for t in load_templates("test"))


def test_real59_composition() -> None:
    real = load_templates("real59")
    per_app = Counter(t.apps[0] for t in real)
    assert all(len(t.apps) == 1 and t.apps[0] in REAL59_APPS for t in real)
    assert per_app == {"settings": 16, "clock": 9, "contacts": 10, "messages": 7, "calendar": 7, "files": 5,
                       "calculator": 3, "phone": 2}
    assert {t.difficulty for t in real} == {"L1", "L2", "L3"}
    assert {t.kind for t in real} == {"operate", "query"}
    # sending is only ever to the configured test recipient
    for t in real:
        inst = t.instantiate(0)
        for g in inst.goals:
            if getattr(g, "kind", None) == "messages" and getattr(g, "op", None) == "created" \
                    and g.match.get("box") != "draft":
                assert g.match["address"] == inst.params.get("test_recipient", {}).get("e164", g.match["address"])
                assert "{test_recipient" in " ".join(t.instructions)


def test_train_covers_the_same_apps() -> None:
    apps = {a for t in load_templates("train") for a in t.apps}
    assert REAL59_APPS <= apps


@pytest.mark.parametrize("template", ALL, ids=lambda t: t.id)
def test_judge_self_check(template) -> None:  # type: ignore[no-untyped-def]
    for seed in range(3):
        inst = template.instantiate(seed)
        assert "{" not in inst.instruction and "}" not in inst.instruction, inst.instruction
        assert inst.max_steps >= inst.golden_steps
        for world in (base_world(), populated_world()):
            before = apply_patch(world, inst.setup)
            after = expected_after(before, inst)
            v = judge(inst, before, after, oracle_final_action(inst, before))
            assert v.success is True and v.progress == 1.0, (inst.instance_id, [c for c in v.checks if not c.passed])
            assert v.side_effects == [], (inst.instance_id, v.side_effects)
            untouched = judge(inst, before, before, Complete())
            if inst.kind == "operate":
                assert untouched.success is False and untouched.false_complete, inst.instance_id
            else:  # a query is not answered by saying "done"
                assert untouched.success is False


def test_instructions_are_natural_text() -> None:
    for t in ALL:
        for p in t.instructions:
            head = p.lstrip("“\"'")
            assert head[:1].isupper() or head.startswith("{"), (t.id, p)
            assert p.rstrip()[-1] in ".?!)”", (t.id, p)
            assert not re.search(r"\b(tomorrow|yesterday|today|next week)\b", p, re.I), (t.id, p)


def test_instances_helper_and_get_template_errors() -> None:
    inst = instances("real59", [0, 1])
    assert len(inst) == 118 and inst[0].split == "real59" and inst[1].seed == 1
    with pytest.raises(TemplateError, match="did you mean"):
        get_template("settings.wifi_onn")
    with pytest.raises(TemplateError, match="unknown split"):
        load_templates("validation")


# --------------------------------------------------------------------------------------- loader errors
def _write(tmp: Path, name: str, text: str) -> Path:
    p = tmp / name
    p.write_text(text, encoding="utf-8")
    return p


def test_loader_reports_file_and_template(tmp_path: Path) -> None:
    bad = _write(tmp_path, "x.yaml", "split: train\ntemplates:\n- {id: a.b, apps: [clock], instructions: ['Hi {who}.'], golden_steps: 2,\n"
                                      "   goals: [{check: field, path: settings.wifi, value: true}]}\n")
    with pytest.raises(TemplateError, match=r"x\.yaml template a\.b: .*who"):
        parse_file(bad)
    with pytest.raises(TemplateError, match="not valid YAML"):
        parse_file(_write(tmp_path, "y.yaml", "split: [unclosed"))
    with pytest.raises(TemplateError, match="unknown split"):
        parse_file(_write(tmp_path, "z.yaml", "split: prod\ntemplates: []\n"))
    with pytest.raises(TemplateError, match="expected a mapping"):
        parse_file(_write(tmp_path, "w.yaml", "- 1\n- 2\n"))


def test_validation_catches_duplicates_bad_instances_and_real59_size(tmp_path: Path) -> None:
    t = get_template("settings.wifi_on")
    with pytest.raises(TemplateError, match="duplicate template id"):
        validate_templates([t, t.model_copy(update={"split": "train"})])
    short = [x.model_copy(update={"split": "real59"}) for x in load_templates("train")[:3]]
    with pytest.raises(TemplateError, match="real59 has 3 templates"):
        validate_templates(short)
    broken = t.model_copy(update={"id": "x.broken", "setup": {"settings": {"wifi": "{nope}"}}})
    with pytest.raises(TemplateError, match="x.broken seed 0"):
        validate_templates([broken])


# --------------------------------------------------------------------------------------- CLI
def test_cli_list_show_check() -> None:
    from s2r.cli import app

    runner = CliRunner()
    res = runner.invoke(app, ["tasks", "list", "--split", "real59", "--json"])
    assert res.exit_code == 0, res.output
    import json

    rows = json.loads(res.output)
    assert len(rows) == 59 and {"id", "apps", "difficulty", "kind", "golden_steps"} <= set(rows[0])
    res = runner.invoke(app, ["tasks", "show", "clock.alarm_off", "--seed", "2", "--json"])
    assert res.exit_code == 0, res.output
    payload = json.loads(res.output)
    assert payload["instance"]["instance_id"] == "clock.alarm_off:2" and payload["instance"]["goals"]
    assert payload["instance"] == json.loads(get_template("clock.alarm_off").instantiate(2).model_dump_json(
        by_alias=True, exclude_none=True))
    res = runner.invoke(app, ["tasks", "show", "no.such.task"])
    assert res.exit_code == 2 and "no task template" in res.output
    res = runner.invoke(app, ["tasks", "list"])
    assert res.exit_code == 0 and "templates" in res.output
    res = runner.invoke(app, ["tasks", "check", "--split", "test", "--seeds", "1"])
    assert res.exit_code == 0 and res.output.strip().endswith("ok")
