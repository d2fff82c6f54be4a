"""The judge (side effects, false complete, undetermined, progress) and episode metrics."""

from __future__ import annotations

import itertools
import json
from datetime import datetime
from typing import Any

import pytest

from actionmap.actions import Abort, Answer, Complete
from actionmap.worldstate import WorldState, diff
from transfer.metrics import episode_metrics, metrics_by, pass_at_k, pass_at_k_by_task
from transfer.records import EpisodeRecord
from transfer.tasks import TaskTemplate, Verdict, bench_judge, get_template, judge, load_templates
from transfer.tasks.judge import section_diff
from transfer.tasks.solve import apply_patch, base_world, expected_after, populated_world


def edit(state: WorldState, fn: Any) -> WorldState:
    """A copy of ``state`` with ``fn(dict)`` applied — how a test plays a policy."""
    data = state.model_dump()
    fn(data)
    return WorldState.model_validate(data)


def start(template_id: str, seed: int = 0, world: WorldState | None = None) -> tuple[Any, WorldState]:
    inst = get_template(template_id).instantiate(seed)
    return inst, apply_patch(world or base_world(), inst.setup)


def _wifi_enabled(state: WorldState) -> WorldState:
    """The end state of "Please enable Wi-Fi", from the instruction rather than the template's goals."""
    return edit(state, lambda d: d["settings"].update(wifi=True))


def tpl(**kw: Any) -> TaskTemplate:
    base = {"id": "t.unit", "apps": ["settings"], "instructions": ["x"], "golden_steps": 3}
    return TaskTemplate.model_validate({**base, **kw})


# --------------------------------------------------------------------------------------- side effects
def test_wifi_toggled_when_only_bluetooth_should_change() -> None:
    inst, before = start("settings.bluetooth_on")
    after = edit(before, lambda d: d["settings"].update(bluetooth=True, wifi=not d["settings"]["wifi"]))
    v = judge(inst, before, after, Complete())
    assert v.success is True and v.progress == 1.0
    assert v.side_effects == ["settings.wifi"]
    assert v.side_effect_changes[0].before is True and v.side_effect_changes[0].after is False
    assert not v.strict_success and not v.false_complete


def test_extra_alarm_is_a_side_effect_but_the_goal_alarm_is_not() -> None:
    inst, before = start("clock.alarm_create")
    t = inst.params["t"]
    new = {"id": "n1", "hour": t["hour"], "minute": t["minute"], "enabled": True}
    clean = edit(before, lambda d: d["alarms"].append(new))
    assert judge(inst, before, clean, Complete()).strict_success
    extra = edit(before, lambda d: d["alarms"].extend([new, {"id": "n2", "hour": 23, "minute": 59}]))
    v = judge(inst, before, extra, Complete())
    assert v.success is True
    assert v.side_effects and all(p.startswith("alarms[id=n2]") for p in v.side_effects)
    # the same alarm created twice: one is the goal, the duplicate is a side effect
    dup = edit(before, lambda d: d["alarms"].extend([new, {**new, "id": "n3"}]))
    v = judge(inst, before, dup, Complete())
    assert v.success is True and v.side_effects and all(p.startswith("alarms[id=n3]") for p in v.side_effects)


def test_turning_off_a_neighbouring_alarm_is_flagged() -> None:
    inst, before = start("clock.alarm_off")
    t = inst.params["t"]

    def off_all(d: dict[str, Any]) -> None:
        for a in d["alarms"]:
            a["enabled"] = False

    v = judge(inst, before, edit(before, off_all), Complete())
    assert v.success is True
    target = {a.id for a in before.alarms or [] if (a.hour, a.minute) == (t["hour"], t["minute"])}
    assert len(v.side_effects) == 2 and not any(f"id={i}]" in p for p in v.side_effects for i in target)
    # changing another field of the *target* alarm is also not what was asked
    v = judge(inst, before, edit(before, lambda d: [a.update(enabled=False, label="zzz") for a in d["alarms"]
                                                     if a["id"] in target]), Complete())
    assert v.success is True and [p.rsplit(".", 1)[1] for p in v.side_effects] == ["label"]


def test_volatile_paths_and_expected_changes_are_ignored() -> None:
    inst, before = start("settings.airplane_on")
    after = edit(before, lambda d: (d["settings"].update(airplane_mode=True, wifi=False, bluetooth=False),
                                    d.update(time=datetime(2030, 1, 1), foreground={"app": "settings"}, clipboard="x")))
    assert judge(inst, before, after, Complete()).strict_success


def test_records_matched_by_content_across_spellings() -> None:
    """A phone's provider spells numbers, paths and names its own way; goals still match."""
    inst, before = start("contacts.create_phone")
    p, ph = inst.params["p"], inst.params["ph"]
    device_spelling = {"id": "77", "name": p["full"].upper(), "phones": [{"number": ph["national"]}]}
    assert judge(inst, before, edit(before, lambda d: d["contacts"].append(device_spelling)), Complete()).strict_success
    wrong = {**device_spelling, "phones": [{"number": "+1 999 555 0100"}]}
    assert judge(inst, before, edit(before, lambda d: d["contacts"].append(wrong)), Complete()).success is False

    inst, before = start("files.create_folder")
    folder = {"path": f"/storage/emulated/0/documents/{inst.params['name']}/", "kind": "dir"}
    assert judge(inst, before, edit(before, lambda d: d["files"].append(folder)), Complete()).success is True


def test_created_needs_a_new_record_not_a_preexisting_one() -> None:
    """A user's own 6:30 alarm must not make 'create a 6:30 alarm' pass on a real phone."""
    inst = get_template("clock.alarm_create").instantiate(0)
    t = inst.params["t"]
    own = edit(base_world(), lambda d: d["alarms"].append({"id": "u1", "hour": t["hour"], "minute": t["minute"]}))
    before = apply_patch(own, inst.setup)
    v = judge(inst, before, before, Complete())
    assert v.success is False and v.false_complete


def test_field_becoming_unreadable_is_not_a_side_effect() -> None:
    inst, before = start("settings.wifi_on")
    after = edit(before, lambda d: (d["settings"].update(wifi=True, bluetooth=None), d.update(dialer_number=None)))
    assert judge(inst, before, after, Complete()).strict_success
    # but a record that disappears is a change
    inst, before = start("clock.alarm_off", world=populated_world())
    gone = edit(expected_after(before, inst), lambda d: d["alarms"].pop(0))
    v = judge(inst, before, gone, Complete())
    assert v.success and v.side_effects and all(p.startswith("alarms[id=a0]") for p in v.side_effects)


def test_creating_what_already_exists_is_undetermined() -> None:
    """On a phone that already shows London, "add London to the world clock" cannot be judged."""
    inst = get_template("clock.world_clock_add").instantiate(0)
    city = inst.params["city"]
    world = edit(base_world(), lambda d: d.update(world_clocks=[city]))
    before = apply_patch(world, inst.setup)
    v = judge(inst, before, before, Complete())
    assert v.undetermined and v.success is None and not v.false_complete
    assert "precondition" in v.checks[0].detail
    inst = get_template("files.create_folder").instantiate(0)
    path = f"/sdcard/Documents/{inst.params['name']}"
    before = apply_patch(edit(base_world(), lambda d: d["files"].append({"path": path, "kind": "dir"})), inst.setup)
    assert judge(inst, before, before, Complete()).undetermined


# --------------------------------------------------------------------------------------- false complete
def test_false_complete_only_when_claimed_and_failed() -> None:
    inst, before = start("settings.wifi_on")
    assert judge(inst, before, before, Complete()).false_complete
    assert not judge(inst, before, before, Abort()).false_complete
    assert not judge(inst, before, before, None).false_complete
    solved = _wifi_enabled(before)  # what "Please enable Wi-Fi" does, written by hand
    assert solved == expected_after(before, inst)
    v = judge(inst, before, solved, None, truncated=True)
    assert v.success and v.over_truncated and not v.false_complete
    assert not judge(inst, before, before, None, truncated=True).over_truncated


def test_query_answer_scoring_and_false_complete() -> None:
    inst, before = start("contacts.query_phone")
    ph = inst.params["ph"]
    assert judge(inst, before, before, Answer(fields={"phone": ph["national"]})).strict_success
    wrong = judge(inst, before, before, Answer(fields={"phone": "+1 212 555 0000"}))
    assert wrong.success is False and wrong.false_complete
    no_answer = judge(inst, before, before, Complete())
    assert no_answer.success is False and no_answer.false_complete
    assert no_answer.checks[-1].detail == "no answer given"
    gave_up = judge(inst, before, before, Abort())
    assert gave_up.success is False and not gave_up.false_complete


def test_answer_read_from_the_phone_itself() -> None:
    inst, before = start("phone.query_last_missed")
    ph = inst.params["ph"]
    assert judge(inst, before, before, Answer(fields={"number": ph["text"]})).success
    # on a phone whose newest missed call is someone else's, that number is the right answer
    later = edit(before, lambda d: d["calls"].append({"id": "x", "number": "+13035550177", "kind": "missed",
                                                       "time": datetime(2027, 3, 1, 8, 0)}))
    assert judge(inst, later, later, Answer(fields={"number": "303-555-0177"})).success
    assert not judge(inst, later, later, Answer(fields={"number": ph["text"]})).success


# --------------------------------------------------------------------------------------- undetermined
def test_unknown_field_is_undetermined_not_failed() -> None:
    inst, before = start("settings.wifi_on")
    blind = edit(before, lambda d: d["settings"].update(wifi=None))
    v = judge(inst, before, blind, Complete())
    assert v.success is None and v.undetermined and v.undetermined_fields == ["settings.wifi"]
    assert not v.false_complete and v.progress == 0.0


def test_unknown_record_list_is_undetermined() -> None:
    inst, before = start("clock.alarm_off")
    blind_before = edit(before, lambda d: d.update(alarms=None))
    v = judge(inst, blind_before, blind_before, Complete())
    assert v.undetermined and v.undetermined_fields == ["alarms[hour=%d,minute=%d].enabled" % (
        inst.params["t"]["hour"], inst.params["t"]["minute"])]
    assert v.side_effects == []


def test_a_determined_failure_outweighs_an_undetermined_check() -> None:
    inst = tpl(setup={"settings": {"wifi": False, "bluetooth": True}},
               goals=[{"check": "field", "path": "settings.wifi", "value": True},
                      {"check": "field", "path": "settings.bluetooth", "value": False}]).instantiate(0)
    before = apply_patch(base_world(), inst.setup)
    half_blind = edit(before, lambda d: d["settings"].update(wifi=None))  # wifi unknown, bluetooth still on
    v = judge(inst, before, half_blind, Complete())
    assert v.success is False and not v.undetermined and v.false_complete
    assert v.undetermined_fields == ["settings.wifi"] and v.progress == 0.0
    fixed = edit(half_blind, lambda d: d["settings"].update(bluetooth=False))
    v = judge(inst, before, fixed, Complete())
    assert v.success is None and v.undetermined and v.progress == 1.0


# --------------------------------------------------------------------------------------- progress
def test_progress_is_passed_over_determined_checks() -> None:
    inst, before = start("test.files.organize")
    assert len(inst.goals) == 5
    assert judge(inst, before, before, Complete()).progress == pytest.approx(0 / 5)
    folder = inst.params["folder"]
    made = edit(before, lambda d: d["files"].append({"path": f"/sdcard/Documents/{folder}", "kind": "dir"}))
    assert judge(inst, before, made, Complete()).progress == pytest.approx(1 / 5)
    # "move résumé.pdf and boarding_pass.pdf from Downloads into it", done by hand: same names and sizes
    names = {inst.params["a"], inst.params["b"]}

    def move(d: dict) -> None:
        for f in d["files"]:
            if f["path"].rpartition("/")[2] in names and f["path"].startswith("/sdcard/Download/"):
                f["path"] = f"/sdcard/Documents/{folder}/" + f["path"].rpartition("/")[2]

    solved = edit(made, move)
    assert judge(inst, before, solved, Complete()).progress == 1.0
    assert judge(inst, before, expected_after(before, inst), Complete()).progress == 1.0

    inst, before = start("train.settings.wifi_on_bt_off")
    half = edit(before, lambda d: d["settings"].update(wifi=True))
    v = judge(inst, before, half, Complete())
    assert v.progress == 0.5 and [c.passed for c in v.checks] == [True, False]
    assert v.checks[1].field == "settings.bluetooth" and v.checks[1].expected is False and v.checks[1].actual is True


def test_checks_report_field_expected_actual() -> None:
    inst, before = start("settings.brightness_level", seed=1)
    target = inst.params["target"]
    v = judge(inst, before, edit(before, lambda d: d["settings"].update(brightness=target + 20)), Complete())
    c = v.checks[0]
    assert c.passed and c.field == "settings.brightness" and c.actual == target + 20
    assert c.expected == {"value": target, "tol": 25.5, "rel_tol": None}
    v = judge(inst, before, edit(before, lambda d: d["settings"].update(brightness=min(255, target + 40))), Complete())
    assert not v.success


# --------------------------------------------------------------------------------------- verdict plumbing
def test_verdict_json_round_trip_and_episode_record_fields() -> None:
    inst, before = start("messages.read_thread")
    sender = inst.params["ph"]["e164"]  # "Read Alan Schmidt's unread texts": his inbox messages become read
    read = edit(before, lambda d: [m.update(read=True) for m in d["messages"] if m["address"] == sender])
    assert read != before
    v = judge(inst, before, read, Complete())
    again = Verdict.model_validate_json(v.model_dump_json())
    assert again == v
    rec = EpisodeRecord(episode_id="e", policy="oracle", task_id=inst.template_id, seed=0, backend="sim",
                        **v.record_fields())
    assert rec.success is True and rec.counted
    json.dumps(rec.model_dump(mode="json"))


def test_section_diff_equals_full_diff() -> None:
    """The judge's fast diff must give exactly actionmap's diff."""
    pairs = []
    for t in load_templates():
        for seed in (0, 1):
            inst = t.instantiate(seed)
            for world in (base_world(), populated_world()):
                before = apply_patch(world, inst.setup)
                pairs.append((before, expected_after(before, inst)))
    w = populated_world()
    pairs.append((w, edit(w, lambda d: d["messages"].reverse())))                         # reorder only
    pairs.append((w, edit(w, lambda d: d["contacts"].append(dict(d["contacts"][0])))))  # duplicate key → #1
    pairs.append((w, edit(w, lambda d: d.update(alarms=[]))))                            # list emptied
    pairs.append((base_world(), w))
    pairs.append((WorldState(), w))
    dup = edit(w, lambda d: d["files"].extend([{"path": "/sdcard/a", "size": 1}, {"path": "/sdcard/a", "size": 2}]))
    pairs.append((dup, edit(dup, lambda d: d["files"][-1].update(size=3))))
    for b, a in pairs:
        assert [c.model_dump() for c in section_diff(b, a)] == [c.model_dump() for c in diff(b, a)]


def test_compiled_matchers_agree_with_reference_matching() -> None:
    from transfer.tasks.judge import compile_match, record_matches
    from transfer.tasks.model import RecordCheck

    checked = 0
    for t in load_templates():
        inst = t.instantiate(1)
        before = apply_patch(populated_world(), inst.setup)
        after = expected_after(before, inst)
        for g in inst.goals:
            if not isinstance(g, RecordCheck):
                continue
            recs = (getattr(before, g.kind) or []) + (getattr(after, g.kind) or [])
            dumped = [r if isinstance(r, str) else r.model_dump() for r in recs]
            for spec in (g.match, g.expect, {**g.match, **g.expect}):
                fast = compile_match(g.kind, spec)
                for r in recs + dumped:
                    assert fast(r) == record_matches(r, g.kind, spec), (inst.instance_id, spec, r)
                    checked += 1
    assert checked > 10_000


def test_judge_is_fast() -> None:
    """The 1 ms-per-verdict target is measured by `s2r bench sim` (judge_ms); here only a generous bound that
    a loaded 2-core machine always meets and a real slowdown (an order of magnitude) still breaks."""
    ms = bench_judge(n=500, template_id="clock.alarm_off")
    assert 0 < ms < 20.0, f"judge took {ms:.3f} ms per verdict"


# --------------------------------------------------------------------------------------- metrics
def rec(task: str = "t", success: bool | None = True, **kw: Any) -> EpisodeRecord:
    return EpisodeRecord(episode_id=f"{task}-{kw.get('repeat', 0)}-{id(kw)}", policy=kw.pop("policy", "p"), task_id=task,
                         seed=kw.pop("seed", 0), backend=kw.pop("backend", "sim"), success=success, **kw)


def test_episode_metrics_rates_and_exclusions() -> None:
    eps = [
        rec(success=True, progress=1.0, steps=4, terminated_by="complete"),
        rec(success=True, progress=1.0, steps=10, side_effects=["settings.wifi"], over_truncated=True,
            terminated_by="max_steps", invalid_actions=2),
        rec(success=False, progress=0.5, steps=6, false_complete=True, terminated_by="complete"),
        rec(success=False, progress=0.0, steps=20, terminated_by="max_steps", invalid_actions=3),
        rec(success=None, undetermined=True, steps=3),                      # excluded
        rec(success=None, error_kind="infra", error="usb lost", steps=1),  # excluded
        rec(success=True, undetermined=True),                               # undetermined wins
    ]
    m = episode_metrics(eps)
    assert (m.n_episodes, m.n_counted, m.n_undetermined, m.n_infra_error, m.n_uncounted_other) == (7, 4, 2, 1, 0)
    assert m.sr == 0.5 and m.pr == pytest.approx(2.5 / 4)
    assert m.fc_rate == 0.25 and m.fc_given_claim == 0.5
    assert m.use_rate == 0.25 and m.over_truncation_rate == 0.25
    assert m.mean_steps == 10.0 and m.mean_steps_success == 7.0
    assert m.invalid_action_rate == pytest.approx(5 / 40) and m.mean_invalid_actions == 1.25
    empty = episode_metrics([rec(success=None, undetermined=True)])
    assert empty.n_counted == 0 and empty.sr is None and empty.pass_at_k == {}


def test_metrics_accept_verdicts_and_dicts() -> None:
    inst, before = start("settings.wifi_on")
    good = judge(inst, before, _wifi_enabled(before), Complete())
    bad = judge(inst, before, before, Complete())
    m = episode_metrics([good, bad, rec(success=True).model_dump()])
    assert m.n_counted == 3 and m.sr == pytest.approx(2 / 3) and m.fc_given_claim == pytest.approx(1 / 2)


def _brute_pass_at_k(outcomes: list[bool], k: int) -> float:
    subsets = list(itertools.combinations(range(len(outcomes)), k))
    return sum(any(outcomes[i] for i in s) for s in subsets) / len(subsets)


def test_pass_at_k_matches_enumeration() -> None:
    for n in range(1, 7):
        for c in range(n + 1):
            outcomes = [True] * c + [False] * (n - c)
            for k in range(1, n + 1):
                assert pass_at_k(n, c, k) == pytest.approx(_brute_pass_at_k(outcomes, k))
    assert pass_at_k(10, 3, 1) == pytest.approx(0.3)
    with pytest.raises(ValueError):
        pass_at_k(2, 1, 3)
    with pytest.raises(ValueError):
        pass_at_k(2, 3, 1)


def test_pass_at_k_per_task_then_averaged() -> None:
    eps = ([rec("a", True, repeat=i) for i in range(2)] + [rec("a", False, repeat=2)]       # a: n=3, c=2
           + [rec("b", False, repeat=i) for i in range(3)]                                   # b: n=3, c=0
           + [rec("c", True)]                                                                # c: n=1 < k
           + [rec("b", None, undetermined=True, repeat=9)])                                  # not an attempt
    res = pass_at_k_by_task(eps, 2)
    assert res.per_task == {"a": pytest.approx(1.0), "b": 0.0} and res.skipped_tasks == ["c"]
    assert res.value == pytest.approx(0.5) and res.n_tasks == 2
    one = pass_at_k_by_task(eps, 1)
    assert one.value == pytest.approx((2 / 3 + 0 + 1) / 3)
    assert episode_metrics(eps, ks=(1, 2)).pass_at_k == {1: pytest.approx(one.value), 2: pytest.approx(0.5)}
    per_instance = pass_at_k_by_task(eps + [rec("a", False, seed=1)], 1, key=("task_id", "seed"))
    assert set(per_instance.per_task) == {"a:0", "a:1", "b:0", "c:0"}


def test_metrics_by_group() -> None:
    eps = [rec(success=True, policy="base", backend="sim"), rec(success=False, policy="base", backend="device"),
           rec(success=True, policy="trained", backend="device")]
    groups = metrics_by(eps)
    assert set(groups) == {"base/device", "base/sim", "trained/device"}
    assert groups["base/device"].sr == 0.0 and groups["trained/device"].sr == 1.0
