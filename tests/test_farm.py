"""The device farm on virtual phones behind a private adb server: discovery, hotplug,
parallel episodes, and a phone lost mid-run whose episode is retried on another phone."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any, Iterator

import pytest

from actionmap.actions import Action, Key, Wait
from actionmap.observation import Observation
from transfer.policies.base import BasePolicy, StepRecord

pytestmark = pytest.mark.timeout(900)


@pytest.fixture(scope="module")
def pool() -> Iterator[Any]:
    from sim.pool import SimPool
    from sim.runtime import Runtime

    p = SimPool(Runtime.get(), pages_per_profile=4)
    yield p
    Runtime.get().run(p.close())


@pytest.fixture(scope="module")
def host(adb_host: Any) -> Any:
    return adb_host


@pytest.fixture(scope="module")
def phones(host: Any, pool: Any) -> list[Any]:
    return [host.start_phone(pool, seed=i) for i in range(3)]  # stopped with the module's adb server


class Stepper(BasePolicy):
    """A deterministic policy that takes ``n`` cheap steps, then completes (tests the plumbing)."""

    name = "stepper"

    def __init__(self, n: int = 6, on_step: Any = None):
        super().__init__()
        self.n = n
        self.on_step = on_step

    def act(self, observation: Observation, history: list[StepRecord]) -> Action:
        if self.on_step:
            self.on_step(self.context, len(history))
        if len(history) >= self.n:
            from actionmap.actions import Complete

            return Complete(message="done")
        return Wait(seconds=0.2) if len(history) % 2 else Key(key="home")


def test_discovery_and_hotplug(host: Any, phones: list[Any], pool: Any, tmp_path: Path) -> None:
    from device.farm import DeviceFarm

    farm = DeviceFarm(host.client(), poll_s=0.2).start()
    try:
        serials = {d.serial for d in farm.devices() if d.status == "idle"}
        assert {p.serial for p in phones} <= serials
        t0 = time.perf_counter()
        late = host.start_phone(pool, seed=9)
        while late.serial not in {d.serial for d in farm.devices() if d.status == "idle"}:
            assert time.perf_counter() - t0 < 120, farm.events  # a failure guard, not a speed check
            time.sleep(0.1)
        joined_s = time.perf_counter() - t0
        host.stop_phone(late)
        t0 = time.perf_counter()
        while any(d.serial == late.serial and d.status == "idle" for d in farm.devices()):
            assert time.perf_counter() - t0 < 120, farm.devices()
            time.sleep(0.1)
        print(f"\nhotplug: joined in {joined_s:.2f}s, left in {time.perf_counter() - t0:.2f}s")
    finally:
        farm.close()


def test_lease_release_and_quarantine(host: Any, phones: list[Any], tmp_path: Path) -> None:
    from device.env import DeviceEnv
    from device.farm import DeviceFarm, NoDeviceAvailable

    serial = phones[0].serial
    farm = DeviceFarm(host.client(), serials=[serial], poll_s=0.2,
                      env_factory=lambda s: DeviceEnv(s, client=host.client(), journal_dir=str(tmp_path))).start()
    try:
        lease = farm.lease(timeout=60)
        assert lease.serial == serial and lease.info["virtual"] is True
        with pytest.raises(NoDeviceAvailable):
            farm.lease(timeout=0.5)  # one episode per phone
        lease.release(broken=True, error="test")
        dev = farm.devices()[0]
        # the phone still answers, so the watcher puts it back after a health check
        t0 = time.perf_counter()
        while farm.devices()[0].status != "idle":
            assert time.perf_counter() - t0 < 120, farm.devices()
            time.sleep(0.1)
        assert dev.failures == 1
        again = farm.lease(timeout=10)
        assert again.env is not lease.env, "a recovered phone gets a fresh DeviceEnv"
        again.release()
    finally:
        farm.close()


def test_parallel_episodes_and_failover_on_a_lost_phone(host: Any, phones: list[Any], tmp_path: Path) -> None:
    from device.env import DeviceEnv, DeviceOptions
    from device.farm import DeviceFarm
    from transfer.device_backends import DeviceBackends
    from transfer.rundir import RunDir
    from transfer.runner import EpisodeSpec, LocalExecutor
    from transfer.tasks.loader import get_template

    client = host.client()
    opts = DeviceOptions(journal_dir=str(tmp_path / "journal"))
    farm = DeviceFarm(client, serials=[p.serial for p in phones], poll_s=0.2,
                      env_factory=lambda s: DeviceEnv(s, client=client, options=opts)).start()
    backends = DeviceBackends(farm, lease_timeout=120)
    victim = phones[1]
    killed = threading.Event()
    busy: dict[str, list[tuple[float, float]]] = {}

    def on_step(ctx: dict[str, Any], n: int) -> None:
        # stop the victim phone in the middle of the first episode it runs
        if n == 3 and not killed.is_set() and ctx.get("serial") == victim.serial:
            killed.set()
            threading.Thread(target=victim.stop, daemon=True).start()
            time.sleep(0.5)

    class Traced(Stepper):
        def reset(self, instruction: str, context: dict[str, Any]) -> None:
            super().reset(instruction, context)
            self.context["serial"] = current.serial

    tls = threading.local()

    def lease(spec: EpisodeSpec) -> Any:
        lz = backends.lease(spec)
        tls.serial, t0 = lz.info["serial"], time.time()
        inner = lz.release

        def release(broken: bool) -> None:
            busy.setdefault(lz.info["serial"], []).append((t0, time.time()))
            inner(broken)

        lz.release = release
        return lz

    class _Cur:
        @property
        def serial(self) -> str:
            return tls.serial

    current = _Cur()
    tmpl = get_template("settings.wifi_on")
    insts = {s: tmpl.instantiate(s) for s in range(9)}
    specs = [EpisodeSpec(policy="stepper", policy_spec="stepper", task_id=tmpl.id, seed=s, backend="device",
                         target="farm") for s in range(9)]
    ex = LocalExecutor(lease, lambda s: insts[s.seed], lambda s: Traced(n=6, on_step=on_step), workers=3,
                       max_attempts=3, traces=False, progress=False)
    rd = RunDir(tmp_path / "run")
    rd.init({"test": True}, resume=False)
    t0 = time.perf_counter()
    try:
        recs = ex.run(specs, rd)
    finally:
        wall = time.perf_counter() - t0
        backends.close()
    assert killed.is_set(), "the victim phone never ran an episode"
    assert len(recs) == 9 and len({r.episode_id for r in recs}) == 9
    assert all(r.error_kind != "infra" for r in recs), [(r.error, r.attempts) for r in recs]
    moved = [r for r in recs if r.retried_from == victim.serial]
    assert moved and all(r.attempts == 2 and r.device_serial != victim.serial for r in moved)
    assert all(r.terminated_by == "complete" for r in recs)
    # the three phones really worked at the same time
    spans = sorted(s for v in busy.values() for s in v)
    overlap = any(a[1] > b[0] for a, b in zip(spans, spans[1:]))
    assert overlap and len(busy) == 3, busy
    episode_s = sum(e - s for v in busy.values() for s, e in v)
    print("\nfarm metrics:", json.dumps({"episodes": 9, "wall_s": round(wall, 1),
                                         "sum_episode_s": round(episode_s, 1),
                                         "parallel_speedup": round(episode_s / wall, 2),
                                         "retried": len(moved)}))
    # the lost phone is out of rotation, the others are idle again
    states = {d.serial: d.status for d in farm.devices()}
    assert states[victim.serial] in ("quarantined", "gone")


def test_lost_phone_is_an_infra_error_never_an_exception(host: Any, pool: Any, tmp_path: Path) -> None:
    from device.adbshell import DeviceLost
    from device.env import DeviceEnv

    phone = host.start_phone(pool, seed=5)
    env = DeviceEnv(phone.serial, client=host.client(), journal_dir=str(tmp_path))
    try:
        env.reset({"settings": {"brightness": 33}})
        phone.stop()
        t0 = time.perf_counter()
        obs, info = env.step(Key(key="back"))
        took = time.perf_counter() - t0
        assert info.error_kind == "infra" and info.error, info
        assert obs is not None and not env.health()
        with pytest.raises(DeviceLost):
            env.read_state()
        print(f"\nlost phone detected in {took:.2f}s")
        assert took < 30
    finally:
        env.close()  # must not raise on a dead phone; the journal stays for next time
        try:
            host.client().disconnect(phone.serial)
        except Exception:  # noqa: BLE001
            pass
    assert env.writer is not None and env.writer.pending() is not None


def test_reconnect_after_the_phone_restarts_on_its_port(host: Any, pool: Any, tmp_path: Path) -> None:
    from device.env import DeviceEnv
    from device.farm import DeviceFarm
    from device.virtual.phone import VirtualPhone
    from transfer.device_backends import ensure_u2server

    phone = VirtualPhone({"seed": 7}, pool=pool).start()
    ensure_u2server(phone)
    port, serial = phone.port, phone.serial
    host.client().connect(serial, timeout=10)
    host.wait_state(serial, "device")
    farm = DeviceFarm(host.client(), serials=[serial], poll_s=0.2, reconnect_every_s=0.5,
                      env_factory=lambda s: DeviceEnv(s, client=host.client(), journal_dir=str(tmp_path))).start()
    phone2 = None
    try:
        lease = farm.lease(timeout=30)
        phone.stop()  # the "cable" is pulled mid-episode
        _obs, info = lease.env.step(Key(key="home"))
        assert info.error_kind == "infra"
        lease.release(broken=True, error=info.error)
        assert farm.devices()[0].status == "quarantined"
        phone2 = VirtualPhone({"seed": 7}, pool=pool, port=port).start()  # back on the same address
        ensure_u2server(phone2)
        t0 = time.perf_counter()
        while farm.devices()[0].status != "idle":
            assert time.perf_counter() - t0 < 120, (farm.devices(), farm.events[-5:])
            time.sleep(0.2)
        print(f"\nreconnected in {time.perf_counter() - t0:.2f}s without restarting the adb server")
        again = farm.lease(timeout=10)
        obs, info = again.env.step(Key(key="home"))
        assert info.error is None and obs.foreground.app == "launcher"
        again.release()
    finally:
        farm.close()
        if phone2 is not None:
            host.stop_phone(phone2)


def test_vdevice_spec_starts_and_stops_virtual_phones(host: Any, tmp_path: Path) -> None:
    from device.env import DeviceOptions
    from transfer.device_backends import DeviceBackends, parse_device_spec
    from transfer.runner import EpisodeSpec

    assert parse_device_spec("all")[0] == "all"
    assert parse_device_spec("a, 127.0.0.1:5555") == ("serials", ["a", "127.0.0.1:5555"], 0, "")
    assert parse_device_spec("vdevice:2:sim") == ("vdevice", None, 2, "sim")
    for bad in ("", "vdevice:x", "vdevice:0"):
        with pytest.raises(ValueError):
            parse_device_spec(bad)
    b = DeviceBackends.from_spec("vdevice:1", client=host.client(), options=DeviceOptions(journal_dir=str(tmp_path)))
    try:
        serial = b.phones[0].serial
        assert host.state(serial) == "device"
        lease = b.lease(EpisodeSpec(policy="p", policy_spec="random", task_id="t", seed=0, backend="device",
                                    target="farm"))
        obs = lease.env.reset(None)
        assert lease.info["serial"] == serial and lease.info["virtual"] is True and obs.elements
        assert lease.env.u2 is not None
        lease.release(False)
    finally:
        b.close()
    assert host.state(serial) is None  # disconnected and stopped


def test_devices_cli_and_doctor_check(host: Any, phones: list[Any]) -> None:
    from typer.testing import CliRunner

    from device.preflight import check_device
    from s2r.cli import app

    r = CliRunner().invoke(app, ["devices", "--json"])
    assert r.exit_code == 0, r.output
    rows = {d["serial"]: d for d in json.loads(r.output)}
    for p in phones:
        if host.state(p.serial) == "device":
            d = rows[p.serial]
            assert d["ok"] and d["virtual"] and d["display_size"] == [1080, 2400] and d["model"] == "Pixel 7"
    r = CliRunner(env={"COLUMNS": "220"}).invoke(app, ["devices"])
    assert "Pixel 7" in r.output and "virtual" in r.output
    checks = check_device(phones[0].serial)
    by = {c.name: c for c in checks}
    assert by[f"device {phones[0].serial}"].status == "ok"
    assert by["input injection"].status == "ok" and by["uiautomator2"].status == "ok", checks


def test_a_crashed_session_is_undone_by_the_next(host: Any, pool: Any, tmp_path: Path) -> None:
    """Stay-awake, animation scales and the IME switch are journalled on disk: if the host process
    dies without close(), the next DeviceEnv on that phone puts them back first."""
    from device.env import DeviceEnv

    from device.appops import appop_mode
    from device.localcal import find_s2r_calendars
    from device.virtual.knobs import ADB_KEYBOARD_IME, DEFAULT_IME

    phone = host.start_phone(pool, seed=11, installed_imes=[DEFAULT_IME, ADB_KEYBOARD_IME])
    raw = phone.settings.raw
    keys = [("global", "animator_duration_scale"), ("global", "stay_on_while_plugged_in"),
            ("secure", "default_input_method")]
    try:
        before = [raw(*k) for k in keys]
        env = DeviceEnv(phone.serial, client=host.client(), journal_dir=str(tmp_path), grant_appops=True)
        env.start()
        assert raw("global", "animator_duration_scale") == "0"
        assert raw("secure", "default_input_method") == "com.android.adbkeyboard/.AdbIME"
        assert appop_mode(env.shell, "WRITE_SMS") == "allow" and len(find_s2r_calendars(env.shell)) == 1
        env.observer.close()  # the host process "dies" here: no close()
        env2 = DeviceEnv(phone.serial, client=host.client(), journal_dir=str(tmp_path), stay_awake=False,
                         no_animations=False, adb_ime=False)
        env2.start()
        assert [raw(*k) for k in keys] == before
        assert appop_mode(env2.shell, "WRITE_SMS") != "allow"  # the crashed session's grant is undone
        assert [c["_id"] for c in find_s2r_calendars(env2.shell)] == env2.session.calendars  # only env2's own
        env2.close()
        assert not list(tmp_path.glob("*.session.json"))
        assert find_s2r_calendars(env2.shell) == [] and env2.audit is not None and env2.audit.clean, env2.audit
    finally:
        host.stop_phone(phone)
