"""Settle detection on a virtual phone through a private real adb server, adbutils and
uiautomator2: the wait after an action follows what a dump costs on the phone, the settled dump
is the observation, a screen that never stops moving is capped and flagged, and the timing
knobs make the phone's captures cost what they cost on a real one.

The phone's own uiautomator2 server counts what it was asked for (``U2Server.stats``), so the
number of dumps a step took is read on the phone's side, not from s2r's bookkeeping.
"""

from __future__ import annotations

import time
from typing import Any, Iterator

import pytest

from actionmap.actions import Key, OpenApp

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def rig(tmp_path_factory: pytest.TempPathFactory, sim_pool: Any) -> Iterator[dict[str, Any]]:
    from _device_fixtures import start_adb_server, stop_adb_server

    from device.env import DeviceEnv
    from device.virtual.phone import VirtualPhone
    from device.virtual.u2server import install_u2server

    host = start_adb_server(tmp_path_factory.mktemp("adbhome"))
    phone = env = None
    try:
        phone = VirtualPhone({}, pool=sim_pool).start()
        server = install_u2server(phone)
        host.client().connect(phone.serial, timeout=10)
        host.wait_state(phone.serial, "device")
        env = DeviceEnv(phone.serial, client=host.client(), journal_dir=str(tmp_path_factory.mktemp("journal")),
                        settle_cap_s=1.5)
        env.start()
        yield {"host": host, "phone": phone, "server": server, "env": env}
    finally:
        if env is not None:
            env.close()
        if phone is not None:
            try:
                host.client().disconnect(phone.serial)
            except Exception:  # noqa: BLE001
                pass
            phone.stop()
        stop_adb_server(host)


def _dumps_on_phone(server: Any) -> int:
    return int(server.stats.get("dumpWindowHierarchy", [0, 0.0])[0])


@pytest.fixture()
def costs(rig: dict[str, Any]) -> Iterator[Any]:
    """Set cost knobs for one test; back to ``fast`` (and fresh cost estimates) after it."""
    from device.virtual.knobs import TIMING_PRESETS

    phone, env = rig["phone"], rig["env"]

    def set_costs(**kn: float) -> None:
        for k, v in kn.items():
            setattr(phone.knobs, k, v)
        env.observer.dump_ms = env.observer.small_frame_ms = None

    yield set_costs
    set_costs(**TIMING_PRESETS["fast"])
    phone.animating_until = 0.0


def test_fast_phone_keeps_two_dumps_and_the_settled_one_is_the_observation(rig: dict[str, Any], costs: Any) -> None:
    env, server = rig["env"], rig["server"]
    env.step(Key(key="home"))
    before = _dumps_on_phone(server)
    obs, info = env.step(OpenApp(app="settings"))
    assert info.error is None and obs.foreground.app == "settings", info
    assert info.extra["settle_method"] == "dumps" and info.extra["dumps"] == 2, info.extra
    assert _dumps_on_phone(server) - before == 2  # the observation did not dump a third time
    assert "settled" not in info.extra


def test_an_expensive_dump_is_confirmed_by_a_frame_difference(rig: dict[str, Any], costs: Any) -> None:
    env, server = rig["env"], rig["server"]
    costs(dump_ms=400.0, screencap_jpeg_ms=20.0)
    env.step(Key(key="home"))  # measures the dump: from now on it proves expensive
    before = _dumps_on_phone(server)
    obs, info = env.step(OpenApp(app="contacts"))
    assert info.error is None and obs.foreground.app == "contacts", info
    assert info.extra["settle_method"] == "frame-check" and info.extra["dumps"] == 1, info.extra
    assert _dumps_on_phone(server) - before == 1  # one dump's cost, not two
    assert info.timings_ms["obs_dumps"] >= 400, info.timings_ms
    assert obs.elements and obs.screenshot  # the frame taken alongside the dump is the policy's


def _frame_log(env: Any) -> tuple[list[float], list[float]]:
    """When each confirming small frame was asked for, and when each dump came back."""
    obs = env.observer
    asked: list[float] = []
    back: list[float] = []
    small, dump = obs.small_frame, obs.hierarchy_xml

    def logged_small() -> Any:
        asked.append(time.perf_counter())
        return small()

    def logged_dump() -> Any:
        try:
            return dump()
        finally:
            back.append(time.perf_counter())

    obs.small_frame, obs.hierarchy_xml = logged_small, logged_dump
    return asked, back


def test_the_confirming_frame_is_captured_as_the_dump_ends(rig: dict[str, Any], costs: Any) -> None:
    """The second frame is asked for before the dump comes back (timed by the dump's measured
    cost), so only its encoding follows the dump; one frame, one dump."""
    env = rig["env"]
    costs(dump_ms=600.0, screencap_jpeg_ms=60.0)
    env.step(Key(key="home"))
    env.step(Key(key="home"))  # both costs measured
    asked, back = _frame_log(env)
    try:
        obs, info = env.step(OpenApp(app="contacts"))
    finally:
        del env.observer.small_frame, env.observer.hierarchy_xml
    assert info.error is None and obs.foreground.app == "contacts", info
    assert info.extra["settle_method"] == "frame-check", info.extra
    rounds = info.extra["dumps"]
    assert len(back) == rounds and len(asked) == rounds, (asked, back)  # one confirming frame per dump
    assert asked[-1] < back[-1], (asked, back)  # asked while the dump was still being walked


def test_a_dump_longer_than_its_estimate_is_confirmed_after_it(rig: dict[str, Any], costs: Any) -> None:
    """A confirming frame captured well before the dump ended proves nothing about the dump's
    end: it is taken again once the dump is back."""
    env = rig["env"]
    costs(dump_ms=700.0, screencap_jpeg_ms=30.0)
    env.step(Key(key="home"))
    env.step(Key(key="home"))
    env.observer.dump_ms = 160.0  # the estimate is far short of what the dump will take
    asked, back = _frame_log(env)
    try:
        obs, info = env.step(Key(key="home"))
    finally:
        del env.observer.small_frame, env.observer.hierarchy_xml
    assert info.error is None and info.extra["settle_method"] == "frame-check", info.extra
    assert len(back) == 1 and len(asked) == 2, (asked, back)
    assert asked[0] < back[0] <= asked[1]  # the early one, then one after the dump


def test_a_screen_that_never_settles_is_capped_and_flagged(rig: dict[str, Any], costs: Any) -> None:
    env, phone = rig["env"], rig["phone"]
    costs(dump_ms=300.0, screencap_jpeg_ms=20.0)
    env.step(Key(key="home"))
    phone.animating_until = time.monotonic() + 60  # a spinner: every frame differs
    t0 = time.perf_counter()
    obs, info = env.step(OpenApp(app="clock"))
    took = time.perf_counter() - t0
    assert info.error is None and info.extra.get("settled") is False, info.extra
    assert 1.5 <= took < 1.5 + 2.0, took  # the cap, and the round that crossed it
    assert obs.foreground.app == "clock" and obs.elements  # the last observation, never an empty screen
    assert info.extra["dumps"] >= 2


def test_frames_agree_tells_a_spinner_from_a_still_screen(rig: dict[str, Any], costs: Any) -> None:
    from device.observe import frames_agree

    phone = rig["phone"]
    still = phone.screenshot_png()
    assert frames_agree(still, phone.screenshot_png())
    phone.animating_until = time.monotonic() + 5
    a = phone.screenshot_png()
    time.sleep(0.3)
    assert not frames_agree(a, phone.screenshot_png())


def test_fixed_and_androidworld_rules(rig: dict[str, Any], costs: Any) -> None:
    from device.env import DeviceOptions

    env, server = rig["env"], rig["server"]
    saved = env.options
    try:
        env.options = saved.model_copy(update=DeviceOptions(settle="fixed:0.6").model_dump(
            include={"settle", "settle_fixed_s"}))
        assert (env.options.settle, env.options.settle_fixed_s) == ("fixed", 0.6)
        before = _dumps_on_phone(server)
        obs, info = env.step(Key(key="home"))
        assert info.error is None and 600 <= info.timings_ms["settle"] < 3000, info.timings_ms  # the sleep, then one dump (loose: a loaded CI)
        assert _dumps_on_phone(server) - before == 1  # the sleep, then one observation
        env.options = saved.model_copy(update={"settle": "androidworld"})
        obs, info = env.step(OpenApp(app="settings"))
        # three equal UIs in a row, 0.5 s apart: four dumps and at least 1.5 s
        assert info.extra["dumps"] == 4 and info.timings_ms["settle"] >= 1500, (info.extra, info.timings_ms)
    finally:
        env.options = saved
    with pytest.raises(ValueError, match="fixed:SECONDS"):
        DeviceOptions(settle="fixed:soon")


def test_realistic_preset_costs_through_adb(rig: dict[str, Any], costs: Any) -> None:
    """``screencap -p``, ``input`` and uiautomator2's dump take the preset's time on the phone;
    under ``fast`` they take what rendering takes."""
    import uiautomator2 as u2

    from device.virtual.knobs import PhoneKnobs

    kn = PhoneKnobs(timing="realistic")
    assert (kn.dump_ms, kn.dump_node_ms, kn.screencap_png_ms, kn.screencap_jpeg_ms, kn.u2_rpc_ms, kn.input_cmd_ms,
            kn.animation_ms) == (250.0, 6.0, 650.0, 150.0, 40.0, 120.0, 400)
    assert PhoneKnobs(timing="realistic", dump_ms=10).dump_ms == 10  # an explicit knob wins
    assert PhoneKnobs().dump_ms == 0 and PhoneKnobs().animation_ms == 300  # fast: today's phone
    d = rig["host"].client().device(rig["phone"].serial)

    def timed(fn: Any) -> float:
        t = time.perf_counter()
        fn()
        return time.perf_counter() - t

    fast_shot = timed(lambda: d.shell(["screencap", "-p"], encoding=None))
    costs(screencap_png_ms=kn.screencap_png_ms, input_cmd_ms=kn.input_cmd_ms, dump_ms=kn.dump_ms,
          dump_node_ms=kn.dump_node_ms)
    png = d.shell(["screencap", "-p"], encoding=None)
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert timed(lambda: d.shell(["screencap", "-p"], encoding=None)) >= 0.65 > fast_shot
    assert timed(lambda: d.shell("input keyevent KEYCODE_UNKNOWN")) >= 0.12
    # `content` starts a Java runtime on every call; a batch spreads the queries over parallel lanes
    assert kn.app_process_ms == 500.0
    costs(app_process_ms=300.0)
    q = ["content", "query", "--uri", "content://settings/system", "--projection", "name"]
    assert timed(lambda: d.shell(q)) >= 0.3
    from device.adbshell import Shell

    sh = Shell(rig["host"].client(), rig["phone"].serial)
    one_line = timed(lambda: sh.batch([q] * 4, lanes=1))
    four_lanes = timed(lambda: sh.batch([q] * 4, lanes=4))
    assert one_line >= 1.2 and four_lanes < one_line - 0.4  # four runtime starts in turn vs. at once
    costs(app_process_ms=0.0)
    dev = u2.connect(rig["host"].client().device(rig["phone"].serial))  # this rig's adb server, not the module default
    xml = dev.dump_hierarchy()
    nodes = xml.count("<node ")
    assert timed(dev.dump_hierarchy) >= (250 + 6 * nodes) / 1000


def test_a_failed_dump_releases_the_confirming_frame(rig: dict[str, Any]) -> None:
    """A dump that fails every recovery is an infrastructure error; the confirming frame waiting
    for its end is released at once instead of holding a worker (and the process's exit)."""
    import threading

    from device.observe import HierarchyUnavailable, Observer

    env = rig["env"]
    obs = Observer(env.shell, u2=env.u2)
    obs.dump_ms, obs.small_frame_ms = 600.0, None  # expensive dumps; the frame's cost not known yet

    def broken() -> Any:
        raise HierarchyUnavailable("no window hierarchy after every recovery")

    obs.hierarchy_xml = broken  # type: ignore[method-assign]
    assert obs.frame_check_pays()
    with pytest.raises(HierarchyUnavailable):
        obs.settle("hierarchy", cap_s=1.0)
    done = threading.Thread(target=obs._pool.shutdown, kwargs={"wait": True})
    done.start()
    done.join(10)
    assert not done.is_alive()  # every worker, the confirming frame's included, has finished
