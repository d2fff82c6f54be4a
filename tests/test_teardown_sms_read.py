"""Opening a conversation marks the phone's own messages read (the Messages app's own update, as
on a phone); the episode's teardown puts every read flag back and proves it by reading the
provider again — or, where the shell may not write SMS, says so in the episode's report.

Stock virtual phone, real adb server, adbutils and uiautomator2; the tap goes through the UI.
"""

from __future__ import annotations

from typing import Any, Iterator

import pytest

from actionmap.actions import OpenApp, Tap

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def rig(tmp_path_factory: pytest.TempPathFactory, adb_host: Any, stock_phone: Any) -> dict[str, Any]:
    return {"host": adb_host, "phone": stock_phone, "tmp": tmp_path_factory}


def _read_flags(env: Any) -> dict[int, str]:
    from device.readers import URI_SMS, content_query

    return {int(str(r["_id"])): str(r["read"]) for r in content_query(env.shell, URI_SMS, ("_id", "read", "type"))
            if str(r.get("type")) == "1"}


def _open_an_unread_conversation(env: Any) -> None:
    from device.readers import URI_SMS, content_query

    rows = content_query(env.shell, URI_SMS, ("_id", "address", "body", "read", "type", "date"))
    unread = [r for r in rows if str(r.get("type")) == "1" and str(r.get("read")) == "0"]
    assert unread, "the phone should start with unread messages"
    obs, info = env.step(OpenApp(app="messages"))
    assert info.error is None
    allow = next((e for e in obs.elements if e.resource_id.endswith("permission_allow_button")), None)
    if allow is not None:  # the first launch asks for notifications, as on a fresh phone
        obs, info = env.step(Tap(target=allow.index))
        assert info.error is None
    addr = unread[-1]["address"]
    latest = max((r for r in rows if r["address"] == addr), key=lambda r: int(str(r.get("date") or 0)))
    snippet = str(latest["body"])[:12]  # a conversation row shows its latest message
    row = next((e for e in obs.elements if snippet in (e.text or "")), None)
    assert row is not None, f"no conversation row shows {snippet!r}"
    _obs, info = env.step(Tap(target=row.index))
    assert info.error is None


@pytest.mark.parametrize("grant", [True, False], ids=["sms-writable", "stock-no-grant"])
def test_read_flags_the_episode_changed_are_put_back(rig: dict[str, Any], grant: bool) -> None:
    from device.env import DeviceEnv

    env = DeviceEnv(rig["phone"].serial, client=rig["host"].client(), journal_dir=str(rig["tmp"].mktemp("j")),
                    grant_appops=grant)
    env.start()
    try:
        env.reset(None)
        before = _read_flags(env)
        _open_an_unread_conversation(env)
        during = _read_flags(env)
        changed = sorted(i for i in before if during.get(i) != before[i])
        assert changed, "opening the conversation should have marked messages read"
        rep = env.end_episode()
        assert rep is not None
        after = _read_flags(env)
        if grant:
            assert after == before
            assert any("read flag of" in r and "put back" in r for r in rep.restored), rep.restored
            assert not [x for x in rep.left if "SMS" in x], rep.left
        else:
            assert [i for i in changed if after.get(i) != before[i]] == changed  # nothing could change them
            msg = next(x for x in rep.left if "marked read" in x)
            assert "WRITE_SMS" in msg and all(str(i) in msg for i in changed)
    finally:
        env.close()
    if not grant:  # leave the shared phone as the other case found it
        from device.readers import URI_SMS

        env2 = DeviceEnv(rig["phone"].serial, client=rig["host"].client(),
                         journal_dir=str(rig["tmp"].mktemp("j2")), grant_appops=True)
        env2.start()
        try:
            for i in changed:
                env2.shell.run(["content", "update", "--uri", f"{URI_SMS}/{i}", "--bind", f"read:i:{before[i]}"])
        finally:
            env2.close()


def test_a_draft_the_episode_left_is_deleted_beside_the_teardown_reads(rig: dict[str, Any]) -> None:
    """A draft (or outbox row) the episode left is outside the shell's view, so teardown deletes
    the episode's hidden boxes by selection; it runs beside the teardown's reads. The phone's
    own store (the virtual phone's truth, unrestricted) shows it gone, and the phone's older
    texts untouched."""
    from device.env import DeviceEnv
    from device.readers import URI_SMS

    phone, addr = rig["phone"], "+15550007777"
    env = DeviceEnv(phone.serial, client=rig["host"].client(), journal_dir=str(rig["tmp"].mktemp("j3")),
                    grant_appops=True, destructive=True)  # a dedicated test phone (as vdevice:N runs are)
    env.start()
    try:
        env.reset(None)
        kept = sorted((m.address, m.body, m.box) for m in phone.read_state().messages or [])
        for box in (3, 4):  # draft, outbox: what an interrupted send leaves
            env.shell.run(["content", "insert", "--uri", URI_SMS, "--bind", f"address:s:{addr}",
                           "--bind", f"body:s:left behind {box}", "--bind", f"type:i:{box}"])
        assert sorted(m.box for m in phone.read_state().messages or [] if m.address == addr) == ["draft", "outbox"]
        rep = env.end_episode()
        assert rep is not None and any("drafts/outbox" in r for r in rep.restored), rep.restored
        assert not [m for m in phone.read_state().messages or [] if m.address == addr]
        assert sorted((m.address, m.body, m.box) for m in phone.read_state().messages or []) == kept
    finally:
        env.close()
