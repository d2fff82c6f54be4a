"""A first-launch permission prompt the policy answers is undone at teardown: the phone is handed
back with the permission as it was (read from ``dumpsys package``, put back with ``pm revoke`` /
``pm clear-permission-flags … user-set user-fixed``), so the next episode meets the prompt again —
as every simulator episode does — whichever phone it lands on.

Stock virtual phone, real adb server, adbutils and uiautomator2; the prompt is answered by a tap.
"""

from __future__ import annotations

from typing import Any, Iterator

import pytest

from actionmap.actions import OpenApp, Tap

pytestmark = pytest.mark.timeout(300)

PERM = "android.permission.POST_NOTIFICATIONS"


@pytest.fixture(scope="module")
def rig(tmp_path_factory: pytest.TempPathFactory, adb_host: Any, stock_phone: Any) -> dict[str, Any]:
    return {"host": adb_host, "phone": stock_phone, "tmp": tmp_path_factory}


def _perm(env: Any, pkg: str) -> tuple[bool, frozenset[str]]:
    from device.parsers import parse_runtime_permissions

    return parse_runtime_permissions(env.shell.out(["dumpsys", "package", pkg]), pkg)[PERM]


def _prompt(env: Any) -> Any:
    obs, info = env.step(OpenApp(app="messages"))
    assert info.error is None
    return obs, next((e for e in obs.elements if e.resource_id.endswith("permission_allow_button")), None)


@pytest.mark.parametrize("answer", ["permission_allow_button", "permission_deny_button"])
def test_an_answered_prompt_is_put_back_and_asked_again(rig: dict[str, Any], answer: str) -> None:
    from device.env import DeviceEnv

    env = DeviceEnv(rig["phone"].serial, client=rig["host"].client(), journal_dir=str(rig["tmp"].mktemp("j")))
    env.start()
    try:
        env.reset(None)
        pkg = "com.android.messaging"  # the virtual phone's (AOSP) Messages
        start = _perm(env, pkg)
        assert start[0] is False and "USER_SET" not in start[1]  # a fresh phone: never asked
        obs, allow = _prompt(env)
        assert allow is not None, "a fresh phone asks on the first launch"
        button = next(e for e in obs.elements if e.resource_id.endswith(answer))
        _obs, info = env.step(Tap(target=button.index))
        assert info.error is None
        answered = _perm(env, pkg)
        assert "USER_SET" in answered[1] and answered[0] is (answer == "permission_allow_button")
        rep = env.end_episode()
        assert rep is not None and any("runtime permission" in r for r in rep.restored), rep.restored
        assert not [x for x in rep.left if "permission" in x], rep.left
        assert _perm(env, pkg) == start  # the phone's own authority says so
        env.reset(None)
        _obs, again = _prompt(env)
        assert again is not None, "the next episode meets the prompt again"
        env.end_episode()
    finally:
        env.close()
