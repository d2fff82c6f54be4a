"""Settle detection on a virtual phone through a private real adb server, adbutils and
uiautomator2: the wait after an action follows what a dump costs on the phone, the settled dump
is the observation, a screen that never stops moving is capped and flagged, and the timing
knobs make the phone's captures cost what they cost on a real one.

The phone's own uiautomator2 server counts what it was asked for (``U2Server.stats``), so the
number of dumps a step took is read on the phone's side, not from s2r's bookkeeping. Orders of
events are read from the observer's own event log (``Observer.events``) and the phone's stream
log, never from how long something took on a machine that may be loaded.
"""

from __future__ import annotations

import time
from typing import Any, Iterator

import pytest

from actionmap.actions import Key, OpenApp

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def rig(tmp_path_factory: pytest.TempPathFactory, adb_host: Any, sim_pool: Any) -> Iterator[dict[str, Any]]:
    from device.env import DeviceEnv
    from device.virtual.u2server import install_u2server

    phone = adb_host.start_phone(sim_pool)  # stopped with the module's adb server
    server = install_u2server(phone)  # a server of our own on port 9008: its request counts are read here
    env = DeviceEnv(phone.serial, client=adb_host.client(), journal_dir=str(tmp_path_factory.mktemp("journal")),
                    settle_cap_s=1.5)
    env.start()
    try:
        yield {"host": adb_host, "phone": phone, "server": server, "env": env}
    finally:
        env.close()


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
    # what the fast phone's captures cost it (the knobs' `fast` preset), pinned: on a loaded test
    # machine the measured round trips can pass the 150 ms that makes a dump count as expensive
    env.observer.dump_ms, env.observer.small_frame_ms = 40.0, 20.0
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
    """Count the small frames and dumps the observer asks for (when each frame was asked, when
    each dump came back). A dump is not handed back before its round's confirming frame has been
    asked for (the observer's ``frame-asked`` after the round's ``frame-due``), so the order the
    rule promises does not hang on how fast a loaded machine schedules the frame's thread; code
    that waited for the dump before asking would hold the dump until the guard below, and show
    up in the observer's events as a frame asked after the dump came back."""
    obs = env.observer
    asked: list[float] = []
    back: list[float] = []
    small, dump = obs.small_frame, obs.hierarchy_xml

    def logged_small() -> Any:
        asked.append(time.perf_counter())
        return small()

    def round_frame_asked() -> bool:
        ev = [e for e, _t, _v in list(obs.events)]
        due = max((i for i, e in enumerate(ev) if e == "frame-due"), default=None)
        return due is not None and "frame-asked" in ev[due:]

    def logged_dump() -> Any:
        try:
            return dump()
        finally:
            guard = time.monotonic() + 20  # a failure guard, not a bound
            while not round_frame_asked() and time.monotonic() < guard:
                time.sleep(0.005)
            back.append(time.perf_counter())

    obs.small_frame, obs.hierarchy_xml = logged_small, logged_dump
    return asked, back


def _last_settle(env: Any) -> tuple[float, list[tuple[str, float, float]]]:
    """The cap of the observer's most recent settle and its events, in order."""
    ev = list(env.observer.events)
    start = max(i for i, e in enumerate(ev) if e[0] == "settle")
    return ev[start][2], ev[start + 1:]


def _rounds(events: list[tuple[str, float, float]]) -> list[dict[str, Any]]:
    """A frame-checked settle's events per dump: when it started and came back, when its
    confirming frame was due (and the dump estimate that timed it), when the frame was asked, and
    whether it was taken again after the dump."""
    rounds: list[dict[str, Any]] = []
    for e, t, v in events:
        if e == "frame-due":
            rounds.append({"due": t, "estimate_ms": v, "retaken": False})
        elif e == "dump-start":
            rounds[-1]["start"] = t
        elif e == "dump-back":
            rounds[-1]["back"] = t
        elif e == "frame-asked":
            rounds[-1]["asked"] = t
        elif e == "frame-retaken":
            assert rounds[-1]["back"] <= t, events  # taken again only once the dump is back
            rounds[-1]["retaken"] = True
    return rounds


def test_the_confirming_frame_is_captured_as_the_dump_ends(rig: dict[str, Any], costs: Any) -> None:
    """The second frame is asked for before the dump comes back (timed by the dump's measured
    cost), so only its encoding follows the dump; one frame per dump, and one more only for a
    dump that outran its estimate (confirmed again after it)."""
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
    _cap, events = _last_settle(env)
    rounds = _rounds(events)
    assert len(rounds) == info.extra["dumps"] == len(back) >= 1, events
    retaken = [r for r in rounds if r["retaken"]]
    assert len(asked) == len(rounds) + len(retaken), (asked, events)  # one confirming frame per dump, + retakes
    for r in rounds:
        assert r["estimate_ms"] >= 600, r  # timed by the dump's measured cost (the phone spends 600 ms on one)
        assert r["start"] < r["due"] <= r["asked"] < r["back"], r  # asked as due, while the dump was still walked
    for r in retaken:  # an extra frame only for a dump that outran the estimate that timed its frame:
        assert r["back"] - r["due"] > 0.02, r  # it came back well after the frame was due (captured before its end)


def test_a_dump_longer_than_its_estimate_is_confirmed_after_it(rig: dict[str, Any], costs: Any) -> None:
    """A confirming frame captured well before the dump ended proves nothing about the dump's
    end: it is taken again once the dump is back."""
    env = rig["env"]
    costs(dump_ms=700.0, screencap_jpeg_ms=30.0)
    env.step(Key(key="home"))
    env.step(Key(key="home"))
    env.observer.dump_ms = 160.0  # the estimate is far short of what the dump will take
    env.observer.small_frame_ms = 30.0  # the knob's frame cost (a loaded machine may have measured more)
    asked, back = _frame_log(env)
    try:
        obs, info = env.step(Key(key="home"))
    finally:
        del env.observer.small_frame, env.observer.hierarchy_xml
    assert info.error is None and info.extra["settle_method"] == "frame-check", info.extra
    assert len(back) == 1 and len(asked) == 2, (asked, back)
    assert asked[0] < back[0] <= asked[1]  # the early one, then one after the dump
    [r] = _rounds(_last_settle(env)[1])
    assert r["retaken"] and r["estimate_ms"] == 160.0 and r["asked"] < r["back"], r


def test_a_screen_that_never_settles_is_capped_and_flagged(rig: dict[str, Any], costs: Any) -> None:
    env, phone = rig["env"], rig["phone"]
    costs(dump_ms=300.0, screencap_jpeg_ms=20.0)
    env.step(Key(key="home"))
    phone.animating_until = time.monotonic() + 60  # a spinner: every frame differs
    obs, info = env.step(OpenApp(app="clock"))
    assert info.error is None and info.extra.get("settled") is False, info.extra
    assert obs.foreground.app == "clock" and obs.elements  # the last observation, never an empty screen
    # the cap ended it, at the round that crossed it: every round disagreed, each one before the
    # cap went on, and the first past the cap was the last (the observer's own log)
    cap, events = _last_settle(env)
    ends = [(e, since) for e, _t, since in events if e in ("settled", "unsettled", "capped")]
    assert cap == 1.5 and ends and len(ends) == info.extra["dumps"], (cap, events, info.extra)
    assert [e for e, _ in ends] == ["unsettled"] * (len(ends) - 1) + ["capped"], ends
    assert all(since <= cap for _, since in ends[:-1]) and ends[-1][1] > cap, ends
    assert info.timings_ms["settle"] >= cap * 1e3, info.timings_ms  # it waited out the cap, not less


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
        assert info.error is None and info.timings_ms["settle"] >= 600, info.timings_ms  # the sleep, then one dump
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

    costs(screencap_png_ms=kn.screencap_png_ms, input_cmd_ms=kn.input_cmd_ms, dump_ms=kn.dump_ms,
          dump_node_ms=kn.dump_node_ms)
    png = d.shell(["screencap", "-p"], encoding=None)
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert timed(lambda: d.shell(["screencap", "-p"], encoding=None)) >= 0.65  # at least the preset's cost
    assert timed(lambda: d.shell("input keyevent KEYCODE_UNKNOWN")) >= 0.12
    # `content` starts a Java runtime on every call; a batch spreads the queries over parallel lanes
    assert kn.app_process_ms == 500.0
    costs(app_process_ms=300.0)
    q = ["content", "query", "--uri", "content://settings/system", "--projection", "name"]
    assert timed(lambda: d.shell(q)) >= 0.3
    from device.adbshell import Shell

    sh = Shell(rig["host"].client(), rig["phone"].serial)
    one = _query_streams(rig["phone"], lambda: sh.batch([q] * 4, lanes=1), 1)
    assert one[0].service.count("content://settings/system") == 4  # one shell line, the four in turn
    assert one[0].duration >= 1.2  # four runtime starts in turn: at least four times the cost
    lanes = _query_streams(rig["phone"], lambda: sh.batch([q] * 4, lanes=4), 4)
    assert all(s.service.count("content://settings/system") == 1 for s in lanes)  # one query per lane
    assert _peak_open(lanes) >= 2, [(s.opened, s.closed) for s in lanes]  # the lanes ran at the same time
    costs(app_process_ms=0.0)
    dev = u2.connect(rig["host"].client().device(rig["phone"].serial))  # this rig's adb server, not the module default
    xml = dev.dump_hierarchy()
    nodes = xml.count("<node ")
    assert timed(dev.dump_hierarchy) >= (250 + 6 * nodes) / 1000


def _query_streams(phone: Any, run: Any, n: int) -> list[Any]:
    """The ``n`` shell streams that carried ``run``'s settings queries, from the phone's own stream
    log (when each opened and closed on the phone)."""
    def mine() -> list[Any]:
        return [s for s in list(phone.adbd.server.stream_log)
                if s.opened >= t0 and "content://settings/system" in s.service]

    t0 = time.perf_counter()
    run()
    guard = time.monotonic() + 20  # a stream is logged as it closes: a moment after its answer
    while len(mine()) < n and time.monotonic() < guard:
        time.sleep(0.01)
    found = mine()
    assert len(found) == n, [s.service for s in found]
    return found


def _peak_open(streams: list[Any]) -> int:
    """The most of ``streams`` open at one instant on the phone."""
    marks = sorted([(s.opened, 1) for s in streams] + [(s.closed, -1) for s in streams], key=lambda m: (m[0], m[1]))
    peak = now = 0
    for _, d in marks:
        now += d
        peak = max(peak, now)
    return peak


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
