"""Setup, teardown and the end-of-run audit on a stock phone (the virtual phone's default).

Through a private real adb server, adbutils and uiautomator2: SMS setups need the WRITE_SMS
app-op grant (and it is restored and proven at close), events go only into s2r's own LOCAL
calendar (removed at close), service-mirrored settings are set by the service's command and
verified by the service's status, a delete the provider ignores is reported as left — never as
removed — and the audit after close shows nothing left and nothing of the phone's changed.
"""

from __future__ import annotations

from typing import Any, Iterator

import pytest

from actionmap.patch import StatePatch

pytestmark = pytest.mark.timeout(600)


@pytest.fixture(scope="module")
def host(adb_host: Any) -> Any:
    return adb_host


@pytest.fixture()
def phone(host: Any, sim_pool: Any) -> Iterator[Any]:
    p = host.start_phone(sim_pool)  # a fresh phone per test: no test sees another's setup
    try:
        yield p
    finally:
        host.stop_phone(p)


def _sh(host: Any, phone: Any, line: str) -> str:
    return host.client().device(phone.serial).shell(line)


def _sms_patch(body: str, box: str = "inbox") -> StatePatch:
    return StatePatch.model_validate({"add": {"messages": [
        {"address": "+15550100", "body": body, "box": box, "time": "2026-05-01T09:00:00"}]}})


def test_sms_setup_is_unsupported_without_the_grant_and_nothing_is_written(host: Any, phone: Any,
                                                                         tmp_path: Any) -> None:
    from device.env import DeviceEnv
    from device.writers import SetupError

    env = DeviceEnv(phone.serial, journal_dir=str(tmp_path))
    try:
        env.start()
        assert env.writer.sms_writable is False and "--grant-appops" in env.writer.sms_why
        before = _sh(host, phone, "content query --uri content://sms --projection _id:body")
        with pytest.raises(SetupError) as ei:
            env.reset(_sms_patch("needs a grant"))
        assert ei.value.unsupported and "WRITE_SMS" in str(ei.value)
        assert _sh(host, phone, "content query --uri content://sms --projection _id:body") == before
        assert "needs a grant" not in str(phone.state_data()["world"])
    finally:
        env.close()
    assert env.audit is not None and env.audit.clean, env.audit
    assert "allow" not in _sh(host, phone, "appops get com.android.shell WRITE_SMS")


def test_sms_setup_with_the_grant_lands_and_the_mode_is_restored_and_proven(host: Any, phone: Any,
                                                                          tmp_path: Any) -> None:
    from device.env import DeviceEnv
    from device.writers import SetupError

    mode_before = _sh(host, phone, "appops get com.android.shell WRITE_SMS").strip()
    env = DeviceEnv(phone.serial, journal_dir=str(tmp_path), grant_appops=True)
    try:
        env.start()
        assert env.writer.sms_writable is True
        assert [g.op for g in env.session.appops] == ["WRITE_SMS"]
        assert "WRITE_SMS: allow" in _sh(host, phone, "appops get com.android.shell WRITE_SMS")
        env.reset(_sms_patch("hello from setup"))
        msgs = env.read_state().messages
        assert any(m.body == "hello from setup" for m in msgs), msgs
        # a draft cannot be read back by the shell (restricted view): unsupported, not faked
        with pytest.raises(SetupError) as ei:
            env.reset(_sms_patch("a draft", box="draft"))
        assert ei.value.unsupported and "restricted view" in str(ei.value)
        rep = env.end_episode()
        assert rep is None or not rep.left
    finally:
        env.close()
    from device.appops import effective_mode
    from device.parsers import parse_appops_mode

    def mode(text: str) -> str | None:
        return effective_mode(parse_appops_mode(text, "WRITE_SMS"), "WRITE_SMS")

    after = _sh(host, phone, "appops get com.android.shell WRITE_SMS")
    assert mode(after) == mode(mode_before) == "ignore", (mode_before, after)  # SMS writes refused again
    assert "hello from setup" not in _sh(host, phone, "content query --uri content://sms --projection body")
    assert env.audit is not None and env.audit.clean, env.audit.model_dump()


def test_a_delete_the_provider_ignores_is_reported_left_not_removed(host: Any, phone: Any, tmp_path: Any) -> None:
    """The grant is withdrawn behind s2r's back mid-episode: the telephony provider then ignores
    the teardown's delete, and the report says so instead of counting it removed."""
    from device.env import DeviceEnv

    env = DeviceEnv(phone.serial, journal_dir=str(tmp_path), grant_appops=True)
    try:
        env.start()
        env.reset(_sms_patch("stays behind"))
        _sh(host, phone, "appops set com.android.shell WRITE_SMS default")  # someone else resets it
        rep = env.end_episode()
        assert rep is not None
        assert rep.removed.get("messages", 0) == 0, rep
        assert any("still on the phone" in x and "WRITE_SMS" in x for x in rep.left), rep.left
    finally:
        _sh(host, phone, "appops set com.android.shell WRITE_SMS allow")  # let close clean up
        env.close()
    assert "stays behind" not in _sh(host, phone, "content query --uri content://sms --projection body")


def test_events_go_only_into_s2rs_own_local_calendar_removed_at_close(host: Any, sim_pool: Any,
                                                                       tmp_path: Any) -> None:
    from device.env import DeviceEnv

    p = host.start_phone(sim_pool, google_account="ada.lovelace@gmail.com")
    env = DeviceEnv(p.serial, journal_dir=str(tmp_path))
    try:
        cals_before = _sh(host, p, "content query --uri content://com.android.calendar/calendars "
                                   "--projection _id:account_name:account_type")
        assert "com.google" in cals_before
        env.start()
        cid = env.writer.calendar_id
        assert cid is not None and env.session.calendars == [cid]
        env.reset(StatePatch.model_validate({"add": {"events": [
            {"title": "Orthodontist 4417", "start": "2026-05-02T10:00:00", "end": "2026-05-02T11:00:00"}]}}))
        rows = _sh(host, p, "content query --uri content://com.android.calendar/events "
                            "--projection _id:calendar_id:title")
        line = next(ln for ln in rows.splitlines() if "title=Orthodontist 4417" in ln)
        assert f"calendar_id={cid}," in line, rows  # never the account's synced calendar
        assert any(e.title == "Orthodontist 4417" for e in env.read_state().events)
    finally:
        env.close()
        cals_after = _sh(host, p, "content query --uri content://com.android.calendar/calendars "
                                  "--projection _id:account_name:account_type")
        events_after = _sh(host, p, "content query --uri content://com.android.calendar/events --projection title")
        host.stop_phone(p)
    assert cals_after == cals_before
    assert "Orthodontist 4417" not in events_after
    assert env.audit is not None and env.audit.clean, env.audit.model_dump()


def test_service_settings_are_set_by_the_service_and_verified_by_it(host: Any, phone: Any, tmp_path: Any) -> None:
    from device.env import DeviceEnv

    env = DeviceEnv(phone.serial, journal_dir=str(tmp_path))
    try:
        env.start()
        env.reset(StatePatch.model_validate({"settings": {"do_not_disturb": True, "dark_mode": True,
                                                          "wifi": False}}))
        how = " ".join(env.setup_report.applied)
        assert "cmd notification set_dnd" in how and "cmd uimode night yes" in how, how
        assert "settings put" not in how, how  # a raw write would only look done
        assert "mZenMode=ZEN_MODE_IMPORTANT_INTERRUPTIONS" in _sh(host, phone, "dumpsys notification")
        assert "Night mode: yes" in _sh(host, phone, "cmd uimode night")
        assert "Wifi is disabled" in _sh(host, phone, "cmd wifi status")
        st = env.read_state().settings
        assert st.do_not_disturb is True and st.dark_mode is True and st.wifi is False
    finally:
        env.close()
    assert "ZEN_MODE_OFF" in _sh(host, phone, "dumpsys notification")
    assert "Night mode: no" in _sh(host, phone, "cmd uimode night")
    assert "Wifi is enabled" in _sh(host, phone, "cmd wifi status")
    assert env.audit is not None and env.audit.clean, env.audit.model_dump()


def test_a_judge_about_a_draft_is_undetermined_on_a_stock_phone() -> None:
    from actionmap.worldstate import WorldState
    from transfer.tasks.loader import get_template

    inst = get_template("messages.draft").instantiate(0)
    hidden = {"messages.box": ["draft", "outbox", "failed", "queued"]}
    before = WorldState(messages=[], hidden=hidden)
    after = WorldState(messages=[], hidden=hidden)
    from transfer.tasks.judge import judge

    v = judge(inst, before, after)
    assert v.undetermined and v.success is None, v
    assert any("hidden" in c.detail for c in v.checks), v.checks
    # where every box is visible (a rooted phone, the simulator) the same check is determined
    v2 = judge(inst, WorldState(messages=[]), WorldState(messages=[]))
    assert not v2.undetermined and v2.success is False
