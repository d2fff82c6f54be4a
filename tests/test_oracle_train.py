"""The oracle on the train split (a deterministic sample), plus its pure helpers.

Why: train templates are what policies learn from; a template the oracle cannot solve is a
bad training signal. A fixed, evenly spread sample of 25 train templates runs for seed 1,
the ``sim``, ``aosp`` and ``google`` flavors taking turns, through ``experiments/oracle_check.py`` (the
real runner and judge). The helpers that turn what the screen shows into answers are
checked directly.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from datetime import date
from pathlib import Path
from types import ModuleType

import pytest

from sim.profiles import FLAVORS

ROOT = Path(__file__).resolve().parent.parent
WORKERS = 3
SAMPLE = 25


def _oracle_check() -> ModuleType:
    name = "oracle_check"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, ROOT / "experiments" / "oracle_check.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def train_sample(n: int = SAMPLE) -> list[tuple[str, str]]:
    """``n`` train templates spread evenly over the sorted ids, the flavors taking turns."""
    from transfer.tasks.loader import load_templates

    ids = sorted(t.id for t in load_templates("train"))
    step = len(ids) / n
    picked = [ids[int(i * step)] for i in range(n)]
    return [(tid, FLAVORS[i % len(FLAVORS)]) for i, tid in enumerate(picked)]


def test_every_train_template_has_a_solution() -> None:
    from transfer.oracle.solutions import all_solutions
    from transfer.tasks.loader import load_templates

    ids = [t.id for t in load_templates("train")]
    assert len(ids) >= 80
    missing = sorted(set(ids) - set(all_solutions()))
    assert not missing, f"train templates without an oracle solution: {missing}"


def test_sample_is_deterministic_and_spread() -> None:
    a, b = train_sample(), train_sample()
    assert a == b and len(a) == SAMPLE and len({t for t, _ in a}) == SAMPLE
    apps = {t.split(".")[1] for t, _ in a}
    assert {"settings", "clock", "contacts", "messages", "calendar", "files"} <= apps
    assert {f for _, f in a} == set(FLAVORS)


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_oracle_solves_train_sample_seed1() -> None:
    pytest.importorskip("playwright")
    from concurrent.futures import ThreadPoolExecutor

    from sim.pool import SimPool
    from sim.runtime import Runtime
    from transfer.oracle.solutions import all_solutions

    oc = _oracle_check()
    all_solutions()
    jobs = train_sample()
    pool = SimPool(Runtime.get(), pages_per_profile=WORKERS)
    try:
        oc.warm_up(pool, WORKERS)
        with ThreadPoolExecutor(max_workers=WORKERS) as ex:
            outs = list(ex.map(lambda j: oc.run_one(j[0], 1, j[1], pool=pool), jobs))
    finally:
        pool.rt.run(pool.close())
    assert [(o.template_id, o.flavor) for o in outs] == jobs
    assert all(o.error is None and o.steps >= 1 for o in outs)
    # every outcome: failures() also keeps a pass that left side effects
    failed = oc.failures(outs, verbose=True)
    assert not failed, f"{len(failed)} oracle failures:\n" + json.dumps(failed, ensure_ascii=False, indent=1)[:20000]
    assert all(o.success is True and o.side_effects == [] for o in outs)
    # each episode ended the way its kind demands, in the flavor it ran in
    from transfer.tasks.loader import get_template

    for o in outs:
        want = "answer" if get_template(o.template_id).kind == "query" else "complete"
        assert o.terminated_by == want, (o.template_id, o.flavor, o.terminated_by)


# --- pure helpers: what the screen shows → answers -----------------------------------------------

def test_alarm_days_from_summaries() -> None:
    from transfer.oracle.solutions.clock import alarm_hm, parse_days

    assert parse_days("Weekdays") == ["mon", "tue", "wed", "thu", "fri"]
    assert parse_days("Weekends") == ["sat", "sun"]
    assert parse_days("Every day") == ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
    assert parse_days("Tue, Thu") == ["tue", "thu"]
    assert parse_days("Sun, Sat") == ["sun", "sat"]
    assert parse_days("Not scheduled") == []
    assert alarm_hm("06:45") == (6, 45) and alarm_hm("7:05 PM") == (19, 5) and alarm_hm("12:00 AM") == (0, 0)


def test_numbers_sizes_and_dates() -> None:
    from transfer.oracle.base import OracleError
    from transfer.oracle.skills.common import dial_form
    from transfer.oracle.solutions.calendar import parse_date_line
    from transfer.oracle.solutions.files import size_bytes

    assert dial_form("(503) 555-0169") == "5035550169"
    assert dial_form("+1 202 555 0100") == "+12025550100"
    assert size_bytes("184 kB") == 184000 and size_bytes("1.5 MB") == 1_500_000 and size_bytes("3 items") is None
    assert parse_date_line("Thu, Jul 15, 2027") == date(2027, 7, 15)
    assert parse_date_line("Sunday, August 22, 2027, 10:00 –") == date(2027, 8, 22)
    with pytest.raises(OracleError):
        parse_date_line("All day")


def test_calculator_expressions_and_recipient() -> None:
    from transfer.oracle.solutions.calculator import expression_for
    from transfer.oracle.solutions.messages import recipient_from
    from transfer.tasks.loader import get_template

    inst = get_template("calculator.expression").instantiate(3)
    p = inst.params
    assert expression_for(inst) == f"({p['a']}+{p['b']})×{p['c']}−{p['d']}"
    send = get_template("messages.send_test").instantiate(0)
    assert "".join(ch for ch in recipient_from(send) if ch.isdigit()).endswith("2025550100")


def test_skill_internals_the_solutions_rely_on_exist() -> None:
    """The solutions reuse a few non-public helpers of ``transfer.oracle.skills``; a rename
    there should fail here, by name, rather than as an oracle abort in a long sim run."""
    from transfer.oracle.skills import calendar, clock, contacts, files, messages, phone
    from transfer.oracle.skills.calendar import events as calendar_events
    from transfer.oracle.skills.calendar import navigate as calendar_navigate
    from transfer.oracle.skills.clock import alarms as clock_alarms
    from transfer.oracle.skills.clock import screen as clock_screen
    from transfer.oracle.skills.clock import world as clock_world

    needed = {
        clock: ["time_texts", "list_alarms", "find_alarm"],
        clock_alarms: ["_minutes", "_fill_time_picker", "DAYS", "DAY_NAMES"],
        clock_screen: ["_scroll_until", "_scroll"],
        clock_world: ["_city_probe", "_fold"],
        contacts: ["_tap", "_fill", "_choose_label", "_save", "_rid", "split_name", "read_contact_field",
                   "_start_search", "_hide_keyboard", "_result_names"],
        phone: ["_digits", "_key", "KEY_IDS", "_row_kind", "_rid", "dial_string", "open_dialpad", "open_recents"],
        messages: ["_row_parts", "_UNREAD", "open_thread", "open_messages"],
        calendar: ["MONTHS", "long_date", "open_month_view"],
        calendar_events: ["_edit", "_set_date", "_save"],
        calendar_navigate: ["_type", "_shown_month"],
        files: ["_menu", "_in_picker", "_crumbs", "_row_title", "_toast", "split", "norm_path", "parts_of",
                "select", "list_folder"],
    }
    missing = [f"{mod.__name__}.{name}" for mod, names in needed.items() for name in names if not hasattr(mod, name)]
    assert not missing, missing


# --- templates against the default world ----------------------------------------------------------

def _phone_before(template_id: str, seed: int):
    """The before-state of an instance on a fresh sim phone: the default world plus its setup."""
    from sim import state as sim_state
    from transfer.tasks.loader import get_template

    inst = get_template(template_id).instantiate(seed)
    return inst, sim_state.world_state(sim_state.apply_patch(sim_state.new_state(), inst.setup))


def test_train_setups_do_not_clash_with_the_default_world() -> None:
    """A record a template adds must not already exist on the phone: a second notes.txt makes a
    copy land as "notes (1).txt", a second "Piano lesson" makes "when is it?" ambiguous."""
    from sim.world import default_world
    from transfer.tasks.loader import get_template

    w = default_world(0)
    world_file_names = {f.path.rpartition("/")[2].casefold() for f in w.files if f.kind == "file"}
    world_titles = {e.title.casefold() for e in w.events}
    world_companies = {c.company.casefold() for c in w.contacts if c.company}
    for seed in range(12):
        for tid in ("train.files.copy", "train.files.move_to_download", "train.files.query_size",
                    "train.files.delete_two", "train.files.query_largest"):
            added = [f["path"].rpartition("/")[2].casefold() for f in get_template(tid).instantiate(seed).setup.add["files"]
                     if f.get("kind", "file") == "file"]
            assert added and not set(added) & world_file_names, (tid, seed, added)
        title = get_template("train.calendar.query_date").instantiate(seed).params["title"]
        assert title.casefold() not in world_titles, (seed, title)
        company = get_template("train.contacts.query_by_company").instantiate(seed).params["company"]
        assert company.casefold() not in world_companies, (seed, company)


def test_query_answers_count_what_the_phone_already_holds() -> None:
    """Answers about the phone's own data are computed from it: the default world's unread
    threads and its contacts at a company count, and the judge holds a policy to them."""
    from transfer.oracle.base import norm

    inst, before = _phone_before("train.messages.query_unread_senders", 0)
    ps = inst.params["ps"]
    digits = lambda s: "".join(ch for ch in s if ch.isdigit())[-10:]  # noqa: E731
    unread = {digits(m.address) for m in before.messages if m.box == "inbox" and not m.read}
    world_unread = {c.name for c in before.contacts if c.name not in {p["full"] for p in ps}
                    and any(digits(p.number) in unread for p in c.phones)}
    assert world_unread, "the default world has unread threads of its own"
    want = [ps[0]["full"], ps[1]["full"], *sorted(world_unread)]
    sheet = inst.answer_sheet
    assert all(r.passed for r in sheet.score({"names": want}, before))
    assert not any(r.passed for r in sheet.score({"names": want[:2]}, before))  # the setup's senders alone
    assert not any(r.passed for r in sheet.score({"names": [*want, ps[2]["full"]]}, before))  # read thread

    inst, before = _phone_before("train.contacts.query_count_company", 0)
    company = inst.params["company"]
    at = sum(norm(c.company) == norm(company) for c in before.contacts)
    assert at > inst.params["n"], "the default world has people at this company too"
    assert all(r.passed for r in inst.answer_sheet.score({"count": at}, before))
    assert not any(r.passed for r in inst.answer_sheet.score({"count": inst.params["n"]}, before))
