"""real59 oracle episodes through the device path: a virtual phone behind a private real adb
server, driven by ``DeviceEnv`` (adbutils + uiautomator2), judged from what the phone reports.

One phone serves every episode in turn, as a farm phone does, so these tests also check that
an episode leaves nothing behind that changes the next one's answer.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

import pytest

from actionmap.actions import OpenApp, Tap, TypeText

pytestmark = pytest.mark.timeout(900)


@pytest.fixture(scope="module")
def backends(tmp_path_factory: pytest.TempPathFactory, adb_host: Any) -> Iterator[Any]:
    from device.env import DeviceOptions
    from transfer.device_backends import DeviceBackends

    host = adb_host
    b = None
    try:
        b = DeviceBackends.from_spec("vdevice:1", client=host.client(),
                                     options=DeviceOptions(journal_dir=str(tmp_path_factory.mktemp("journal"))))
        yield b
    finally:
        if b is not None:
            b.close()


def _spec(task_id: str, seed: int = 0) -> Any:
    from transfer.runner import EpisodeSpec

    return EpisodeSpec(policy="oracle", policy_spec="oracle", task_id=task_id, seed=seed, backend="device",
                       target="farm", split="real59")


def _run(backends: Any, task_id: str, seed: int = 0) -> Any:
    """One oracle episode on the farm's phone, as ``s2r run --device`` runs it."""
    from transfer.policies.registry import make_policy
    from transfer.runner import run_episode
    from transfer.tasks.loader import get_template

    inst = get_template(task_id).instantiate(seed)
    lease = backends.lease(_spec(task_id, seed))
    try:
        pol = make_policy("oracle")
        return run_episode(lease.env, pol, inst, _spec(task_id, seed), backend_info=lease.info), lease.env
    finally:
        lease.release(False)


def test_a_sent_text_does_not_become_the_next_episodes_latest_message(backends: Any) -> None:
    """messages.send_test sends a text; messages.query_latest_sender then asks whose text came in
    last. The sent text must be undone with the episode, and the sender shown by contact name."""
    sent, env = _run(backends, "messages.send_test")
    assert sent.success is True, sent.checks
    # the episode's own teardown (right after its verdict) removed the text it sent
    assert env.last_teardown is not None and env.last_teardown.removed.get("episode messages", 0) >= 1, \
        env.last_teardown
    assert sent.left_on_phone == [], sent.left_on_phone
    rec, env = _run(backends, "messages.query_latest_sender")
    assert rec.success is True and rec.terminated_by == "answer", rec.checks


def test_editing_a_prefilled_field_on_the_device(backends: Any) -> None:
    """contacts.edit_number clears a field that holds a number and types a new one."""
    rec, _env = _run(backends, "contacts.edit_number")
    assert rec.success is True, rec.checks
    assert rec.steps <= 12, rec.steps  # one pass of the skill, no retries


def test_typing_falls_back_when_the_ime_broadcast_is_ignored(tmp_path: Any, adb_host: Any, sim_pool: Any) -> None:
    """On a phone whose owner installed the ADB keyboard: if it stops being the current IME behind
    s2r's back, its broadcasts do nothing; clearing and typing must then go through the next
    method, not report success."""
    from device.env import DeviceEnv
    from device.virtual.knobs import ADB_KEYBOARD_IME, DEFAULT_IME
    from transfer.tasks.loader import get_template

    inst = get_template("contacts.edit_number").instantiate(1)
    host = adb_host
    phone = host.start_phone(sim_pool, installed_imes=[DEFAULT_IME, ADB_KEYBOARD_IME])
    env = DeviceEnv(phone.serial, client=host.client(), journal_dir=str(tmp_path / "j"))
    try:
        env.reset(inst)
        assert env.input.text_methods()[0] == "ime_broadcast"
        env.shell.run(["ime", "set", "com.android.inputmethod.latin/.LatinIME"])
        obs, info = env.step(OpenApp(app="contacts"))
        # AOSP Contacts (the virtual phone's aosp flavor): the FAB "Create new contact", an editor whose
        # EditTexts have no resource id and are told apart by their hints
        obs, info = env.step(Tap(target=next(e.index for e in obs.elements if e.content_desc == "Create new contact")))
        first_name = lambda o: next(e for e in o.elements if e.editable and e.hint == "First name")  # noqa: E731
        field = first_name(obs)
        obs, info = env.step(TypeText(text="Zoë", clear=True, target=field.index))
        assert info.error is None and info.extra["text_method"] != "ime_broadcast", info.extra
        assert info.extra["text_attempts"][0]["method"] == "ime_broadcast"
        obs, info = env.step(TypeText(text="Ann", clear=True, target=field.index))  # now prefilled
        assert info.extra["text_verified"] is True, info.extra
        assert first_name(obs).text == "Ann"
    finally:
        env.shell.run(["ime", "set", env.input.ime_current or ""])
        env.close()
        host.stop_phone(phone)


def test_a_setup_the_phone_cannot_reproduce_is_reported_apart(backends: Any, tmp_path: Path) -> None:
    """clock.world_clock_add needs a world clock at setup, which no adb API writes: one attempt,
    error_kind 'unsupported', no verdict, and the phone stays in rotation."""
    from transfer.policies.registry import make_policy
    from transfer.rundir import RunDir
    from transfer.runner import LocalExecutor
    from transfer.tasks.loader import get_template

    inst = get_template("clock.world_clock_add").instantiate(0)
    ex = LocalExecutor(backends.lease, lambda s: inst, lambda s: make_policy("oracle"), workers=1, progress=False)
    rd = RunDir(tmp_path / "run")
    rd.init({}, False)
    (rec,) = ex.run([_spec("clock.world_clock_add")], rd)
    assert rec.error_kind == "unsupported" and rec.attempts == 1 and rec.success is None and not rec.counted
    assert "setup unsupported on this backend" in (rec.error or "") and "world_clocks" in (rec.error or "")
    assert [d.status for d in backends.farm.devices()] == ["idle"]


def test_dial_pad_digits_are_read_off_the_screen(backends: Any) -> None:
    """No provider holds what is typed on the dial pad; the reader takes it from the pad's
    ``digits`` field, so phone.dial is judged on a device instead of left undetermined."""
    rec, env = _run(backends, "phone.dial")
    assert rec.undetermined is False and rec.success is True, rec.checks
    env.probe_home()
    assert env.read_state().dialer_number is None and "not on screen" in env.reader.notes["dialer_number"]


def test_a_contact_the_policy_creates_is_gone_before_the_next_episode(backends: Any) -> None:
    """A virtual phone is a dedicated test phone: what a policy adds through an app is undone at
    the next reset. Here a wandering policy saved a blank "Yuki Larsen" — the very person the
    next episode asks about — and the next episode must find only the real one."""
    from device.readers import content_query
    from transfer.tasks.loader import get_template

    inst = get_template("contacts.query_phone").instantiate(0)
    lease = backends.lease(_spec("contacts.query_phone"))
    try:
        env = lease.env
        env.reset(inst)
        uri = "content://com.android.contacts/raw_contacts"
        env.shell.run(["content", "insert", "--uri", uri, "--bind", "starred:i:0"])
        rid = max(int(r["_id"] or 0) for r in content_query(env.shell, uri, ("_id",)))
        env.shell.run(["content", "insert", "--uri", "content://com.android.contacts/data", "--bind",
                       f"raw_contact_id:i:{rid}", "--bind", "mimetype:s:vnd.android.cursor.item/name",
                       "--bind", f"data1:s:{inst.params['p']['full']}"])
        assert len([c for c in env.read_state().contacts or [] if c.name == inst.params["p"]["full"]]) == 2
    finally:
        lease.release(False)
    assert env.end_episode() is not None and env.last_teardown.removed.get("episode contacts", 0) >= 1, \
        env.last_teardown
    rec, env = _run(backends, "contacts.query_phone")
    assert rec.success is True, rec.checks


def test_an_alarm_the_policy_sets_is_deleted_at_the_next_reset(backends: Any) -> None:
    """No provider lists alarms, so an alarm set through the Clock app would outlive its episode
    and become a side effect of the next; on a test phone teardown deletes what was added."""
    rec, env = _run(backends, "clock.alarm_create")
    assert rec.success is True, rec.checks
    made = next(c for c in rec.checks if c["name"] == "alarms.created")["expected"]
    rep = env.last_teardown
    assert rep is not None and rep.removed.get("episode alarms") == 1, rep
    assert rep.left == [] and rep.leftovers == [] and rep.unverified == [] and rec.left_on_phone == [], rep
    rec2, env = _run(backends, "clock.alarm_on")
    assert rec2.success is True and not rec2.side_effects, (rec2.checks, rec2.side_effects)
    left = [(a.hour, a.minute) for a in env.read_state().alarms or []]
    assert (made["hour"], made["minute"]) not in left, left


def test_setup_alarms_expanded_below_the_fold_are_still_deleted(backends: Any) -> None:
    """After clock.alarm_create (seed 1) the Clock list ends in an expanded setup alarm whose
    Delete lies below the screen; teardown lifts the item into view instead of giving up."""
    rec, env = _run(backends, "clock.alarm_create", 1)
    assert rec.success is True, rec.checks
    rep = env.last_teardown
    assert rep is not None and rep.removed.get("alarms") == 2 and not rep.left and not rep.leftovers, rep
    assert env.writer is not None and env.writer.leftovers == [], env.writer.leftovers
    rec2, env = _run(backends, "clock.alarm_create_label", 1)
    assert rec2.success is True and not rec2.side_effects, (rec2.checks, rec2.side_effects)


def test_replay_diff_finds_where_sim_and_phone_observations_part(backends: Any) -> None:
    """The same actions from the same task instance: the virtual phone shows what the sim in its
    flavor and profile shows; the sim in another flavor differs from the first screen it changes."""
    from actionmap.actions import Key
    from sim.env import SimEnv
    from transfer.replay import replay_diff
    from transfer.tasks.loader import get_template

    inst = get_template("settings.wifi_off").instantiate(0)
    actions = [OpenApp(app="settings"), Key(key="back")]
    lease = backends.lease(_spec("settings.wifi_off"))
    try:
        same = replay_diff(actions, inst, SimEnv("pixel", flavor="aosp", screenshots=False), lease.env)
        other = replay_diff(actions, inst, SimEnv("pixel", flavor="sim", screenshots=False), lease.env)
    finally:
        lease.release(False)
    assert [d.step for d in same] == [0, 1, 2]
    assert all(d.same for d in same), [(d.step, d.only_sim[:3], d.only_device[:3]) for d in same if not d.same]
    assert same[1].sim_foreground == same[1].device_foreground == "settings" and same[1].sim_elements > 5
    assert other[0].same and not other[1].same  # the launcher is shared; Settings' structure is not
    assert other[1].only_sim and other[1].only_device
