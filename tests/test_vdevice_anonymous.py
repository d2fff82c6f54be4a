"""A virtual phone that poses as a real one (knob ``anonymous``): s2r takes its real-phone paths.

The phone leaves out every ``ro.s2r.*`` property and reports the real phone its profile is
modelled on (a Pixel 7: ``google/panther``, 64-bit only, a Pixel-like serial number), so
``device.preflight.is_virtual`` is False and DeviceEnv treats it as a person's phone:

* setup never overwrites a file s2r did not create (``existing_files_ok`` is the virtual phone's
  privilege only; device/env.py passes ``pf.virtual``);
* a task with real-world effects (an SMS sent, a call placed) is refused without a matching
  ``--test-recipient`` (``UnsafeTask``; only a phone that says it is s2r's is exempt);
* an ordinary task still runs, end to end, with the oracle policy.

What s2r does with its own virtual phones goes through their handles, never their properties:
``vdevice:N`` farms (transfer/device_backends.py) start, describe, lease and stop an anonymous
phone, and its uiautomator2 server is wired by ``ensure_u2server(phone)``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Iterator

import pytest

pytestmark = pytest.mark.timeout(600)


@pytest.fixture(scope="module")
def anon(adb_host: Any, sim_pool: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """An anonymous stock phone with a DeviceEnv in its default options (a person's phone), and a
    phone that says it is s2r's, for contrast."""
    from device.env import DeviceEnv

    phone = adb_host.start_phone(sim_pool, anonymous=True, input_latency_ms=0)
    own = adb_host.start_phone(sim_pool, input_latency_ms=0)
    env = DeviceEnv(phone.serial, client=adb_host.client(), journal_dir=str(tmp_path_factory.mktemp("j")))
    env.start()
    try:
        yield {"host": adb_host, "phone": phone, "own": own, "env": env, "tmp": tmp_path_factory}
    finally:
        env.close()


def _instance(template: str, seed: int = 0, **ctx: Any) -> Any:
    from transfer.tasks.loader import get_template

    return get_template(template).instantiate(seed, context=ctx or None)


def test_an_anonymous_phone_reports_a_real_phone(anon: dict[str, Any]) -> None:
    from device.adbshell import Shell
    from device.parsers import parse_getprop
    from device.preflight import is_virtual

    host, phone, env = anon["host"], anon["phone"], anon["env"]
    props = parse_getprop(Shell(host.client(), phone.serial).out(["getprop"]))
    assert not [k for k in props if k.startswith("ro.s2r.")], props
    assert (props["ro.product.manufacturer"], props["ro.product.model"], props["ro.product.device"]) == (
        "Google", "Pixel 7", "panther")
    assert re.fullmatch(r"google/panther/panther:14/[A-Z0-9.]+/\d+:user/release-keys", props["ro.build.fingerprint"])
    assert props["ro.product.cpu.abilist"] == "arm64-v8a" and props["ro.zygote"] == "zygote64"
    assert re.fullmatch(r"[0-9A-Z]{14}", props["ro.serialno"]) and not props["ro.serialno"].startswith("S2RV")
    assert not is_virtual(props)
    line = next(x for x in host.adb("devices", "-l").stdout.decode().splitlines() if x.startswith(phone.serial))
    assert "product:panther model:Pixel_7 device:panther" in line and "s2r" not in line.lower(), line
    assert env.pf.virtual is False and env.pf.flavor == "aosp" and env.pf.manufacturer == "Google"
    assert env.writer.existing_files_ok is False
    own_props = parse_getprop(Shell(host.client(), anon["own"].serial).out(["getprop"]))
    assert own_props["ro.s2r.virtual"] == "1" and is_virtual(own_props)  # the default still says so


def test_files_s2r_did_not_create_are_left_alone(anon: dict[str, Any]) -> None:
    """A setup that would write a file already on the phone is refused there, and the file is kept
    byte for byte; on s2r's own phone the same file is taken as part of its synthetic world."""
    from device.adbshell import Shell
    from device.writers import SetupError

    host, phone, env = anon["host"], anon["phone"], anon["env"]
    inst = _instance("files.delete", 3)
    path = inst.setup.add["files"][0]["path"]
    assert path.startswith("/sdcard/Download/")
    sh = Shell(host.client(), phone.serial)
    mine = b"the owner's own file\n" * 10
    sh.device.sync.push(mine, path)
    try:
        with pytest.raises(SetupError, match="never overwrites a user's file"):
            env.reset(inst)
        assert sh.device.sync.read_bytes(path) == mine
        env.reset(None)  # the next episode's teardown leaves it too
        assert sh.device.sync.read_bytes(path) == mine
    finally:
        sh.run(["rm", "-f", path])
    # s2r's own phone: the same setup over the same existing file is accepted (existing_files_ok)
    from device.env import DeviceEnv

    own = Shell(host.client(), anon["own"].serial)
    own.device.sync.push(mine, path)
    oenv = DeviceEnv(anon["own"].serial, client=host.client(), journal_dir=str(anon["tmp"].mktemp("own")))
    try:
        oenv.start()
        assert oenv.pf.virtual is True and oenv.writer.existing_files_ok is True
        oenv.reset(inst)
        assert any("already there" in x for x in oenv.setup_report.applied), oenv.setup_report
    finally:
        oenv.close()
        own.run(["rm", "-f", path])


def test_real_world_effects_are_refused_without_a_test_recipient(anon: dict[str, Any]) -> None:
    from device.env import UnsafeTask

    env = anon["env"]
    send = _instance("messages.send_test")
    assert env.options.test_recipient is None
    with pytest.raises(UnsafeTask, match="test recipient"):
        env.reset(send)
    env.options.test_recipient = "+1 202 555 0100"  # not the task's recipient
    try:
        mine = _instance("messages.send_test", test_recipient="+1 415 555 0123")
        with pytest.raises(UnsafeTask, match="not the configured test recipient"):
            env.reset(mine)
        ok = _instance("messages.send_test", test_recipient="+1 202 555 0100")
        env.reset(ok)  # --test-recipient names the task's number: allowed
    finally:
        env.options.test_recipient = None


def test_an_ordinary_task_runs_end_to_end(anon: dict[str, Any]) -> None:
    from transfer.policies.registry import make_policy
    from transfer.runner import EpisodeSpec, run_episode

    env = anon["env"]
    inst = _instance("settings.wifi_off")
    spec = EpisodeSpec(policy="oracle", policy_spec="oracle", task_id="settings.wifi_off", seed=0, backend="device",
                       target="phone", split="real59")
    rec = run_episode(env, make_policy("oracle"), inst, spec, backend_info=env.info)
    assert rec.error is None and rec.success is True, (rec.error, rec.checks)
    assert env.pf.virtual is False and rec.left_on_phone == [], rec.left_on_phone


def test_a_vdevice_farm_drives_an_anonymous_phone_by_its_handle(adb_host: Any, tmp_path: Path) -> None:
    from device.env import DeviceOptions
    from transfer.device_backends import DeviceBackends
    from transfer.runner import EpisodeSpec

    b = DeviceBackends.from_spec("vdevice:1:aosp:anonymous", client=adb_host.client(),
                                 options=DeviceOptions(journal_dir=str(tmp_path)))
    try:
        (phone,) = b.phones
        serial = phone.serial
        assert phone.knobs.anonymous and "ro.s2r.virtual" not in phone.properties()
        assert b.describe() == [{"serial": serial, "virtual": True, "android": 14, "permissive": False,
                                 "google_account": None, "flavor": "aosp", "family": "aosp", "anonymous": True,
                                 "lock": None, "timezone": "UTC"}]
        lease = b.lease(EpisodeSpec(policy="p", policy_spec="random", task_id="t", seed=0, backend="device",
                                    target="farm"))
        assert lease.info["serial"] == serial and lease.info["virtual"] is False  # it poses as a real phone
        assert lease.env.u2 is not None  # uiautomator2's server, wired through the handle
        assert lease.env.reset(None).elements
        lease.release(False)
    finally:
        b.close()
    assert adb_host.state(serial) is None  # disconnected and stopped through the handle
