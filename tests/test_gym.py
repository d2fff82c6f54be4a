"""``s2r.gym``: the Gymnasium environments ``s2r/Sim-v0`` and ``s2r/Device-v0`` and the sim vector env.

Everything runs for real: Chromium pages behind the simulator, and for the device env the
real adb server (adbutils' binary, a private port), adbutils and uiautomator2 against a
virtual stock phone. Gymnasium's own ``check_env`` judges API conformance.
"""

from __future__ import annotations

import json
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any, Iterator

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.error import ResetNeeded
from gymnasium.utils.env_checker import check_env, data_equivalence

import s2r.gym  # noqa: F401 - registers the envs
from s2r.gym.sim import SimGymEnv, shared_pool

pytestmark = pytest.mark.timeout(300)

ROOT = Path(__file__).resolve().parents[1]
from _gympolicy import OPEN_SETTINGS, wifi_off_policy  # noqa: E402


def run_episode(env: gym.Env, **reset: Any) -> tuple[float, bool, bool, dict[str, Any], int]:
    obs, _ = env.reset(**reset)
    tapped: set[str] = set()
    total, steps = 0.0, 0
    while True:
        obs, r, term, trunc, info = env.step(wifi_off_policy(obs, tapped))
        total, steps = total + float(r), steps + 1
        if term or trunc:
            return total, term, trunc, info, steps


def checked_env(env: gym.Env) -> None:
    """Gymnasium's check_env on the unwrapped env (its spec lets it remake it), warnings = failures."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped)
    msgs = [str(w.message) for w in caught if "gymnasium" in w.filename or "WARN" in str(w.message)]
    assert not msgs, msgs


# ============================================================================ registration
def test_registered_on_import_and_listed_as_entry_point() -> None:
    from importlib.metadata import entry_points

    assert {"s2r/Sim-v0", "s2r/Device-v0"} <= set(gym.registry)
    assert gym.spec("s2r/Device-v0").nondeterministic and not gym.spec("s2r/Sim-v0").nondeterministic
    eps = {ep.name: ep for ep in entry_points(group="gymnasium.envs")}
    assert eps["s2r"].value == "s2r.gym:register_envs"
    eps["s2r"].load()()  # idempotent: no "Overriding environment" warning, ids unchanged
    assert gym.spec("s2r/Sim-v0").entry_point == "s2r.gym.sim:SimGymEnv"


def test_done_when_command_runs_an_episode() -> None:
    """The issue's one-liner, in a fresh interpreter: gym.make by id after `import s2r.gym`."""
    code = (
        "import gymnasium as gym, s2r.gym, json, sys\n"
        "sys.path.insert(0, 'tests')\n"
        "from _gympolicy import wifi_off_policy\n"
        "env = gym.make('s2r/Sim-v0', task='settings.wifi_off')\n"
        "obs, info = env.reset(seed=0)\n"
        "tapped = set()\n"
        "while True:\n"
        "    obs, r, term, trunc, info = env.step(wifi_off_policy(obs, tapped))\n"
        "    if term or trunc: break\n"
        "print(json.dumps({'reward': r, 'term': term, 'shape': list(obs['screenshot'].shape),"
        " 'success': info['verdict']['success']}))\n"
        "env.close()\n"
    )
    p = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=180)
    assert p.returncode == 0, p.stderr[-3000:]
    out = json.loads(p.stdout.strip().splitlines()[-1])
    assert out == {"reward": 1.0, "term": True, "shape": [2400, 1080, 3], "success": True}


# ============================================================================ Sim-v0
@pytest.fixture(scope="module")
def sim_env() -> Iterator[gym.Env]:
    env = gym.make("s2r/Sim-v0", task="settings.wifi_off")
    yield env
    env.close()


def test_sim_passes_check_env(sim_env: gym.Env) -> None:
    checked_env(sim_env)
    a, _ = sim_env.reset(seed=123)
    b, _ = sim_env.reset(seed=123)
    assert a in sim_env.observation_space and data_equivalence(a, b, exact=True)
    assert a["screenshot"].shape == (2400, 1080, 3) and a["screenshot"].dtype == np.uint8
    assert a["screenshot"].std() > 5  # a real rendered screen, not a blank frame
    assert a["instruction"] == "Turn off Wi-Fi." and a["foreground"] == "launcher"
    assert a["screen_size"].tolist() == [1080, 2400] and len(a["elements"]) > 5


def test_sim_episode_success_reward_and_verdict(sim_env: gym.Env) -> None:
    total, term, trunc, info, steps = run_episode(sim_env, seed=7)
    assert (term, trunc, info["terminated_by"], total) == (True, False, "complete", 1.0)
    assert info["verdict"]["success"] is True and info["is_success"] and info["verdict"]["side_effects"] == []
    assert info["step"] == steps == 4  # open settings, Wi-Fi row, switch, complete
    with pytest.raises(ResetNeeded):
        sim_env.step('{"type": "back"}')


def test_progress_reward_false_complete_and_truncation(sim_pool: Any) -> None:
    env = SimGymEnv(task="settings.wifi_off", reward="progress", pixels=False, pool=sim_pool, max_steps=2)
    env.reset(seed=1)
    _, r, term, trunc, info = env.step('{"type": "complete"}')
    assert (r, term, trunc) == (0.0, True, False)
    assert info["verdict"] == {"success": False, "progress": 0.0, "side_effects": [], "undetermined": False,
                               "undetermined_fields": [], "false_complete": True, "over_truncated": False}
    env.reset(seed=1)
    _, r1, term1, trunc1, info1 = env.step('{"type": "wait", "seconds": 1}')
    assert (term1, trunc1, "verdict" in info1) == (False, False, False)
    _, r2, term2, trunc2, info2 = env.step('{"type": "wait", "seconds": 1}')
    assert (term2, trunc2, info2["terminated_by"], info2["verdict"]["success"]) == (False, True, "max_steps", False)


def test_invalid_output_is_a_normal_step_with_a_penalty(sim_pool: Any) -> None:
    env = SimGymEnv(task="settings.wifi_off", pixels=False, pool=sim_pool, invalid_penalty=0.25)
    before, _ = env.reset(seed=3)
    obs, r, term, trunc, info = env.step("I think I should look around first.")
    assert (r, term, trunc) == (-0.25, False, False) and info["step"] == 1 and info["action"] is None
    assert info["invalid_action"].startswith("no_action")
    assert data_equivalence(obs, before, exact=True) and obs is not before
    obs, r, _, _, info = env.step('{"type": "tap", "target": 999}')  # parses, but no such element
    assert r == -0.25 and info["action"]["target"] == 999 and "not an element" in info["invalid_action"]
    obs, r, _, _, info = env.step('{"action": "click", "coordinate": [500, 500]}')  # Qwen mobile_use format
    assert r == 0.0 and info["invalid_action"] is None and info["action"]["type"] == "tap"


def test_bad_input_fails_at_once_with_the_choices(sim_pool: Any) -> None:
    with pytest.raises(ValueError, match=r"unknown task 'settings\.wifi_of'.*did you mean settings\.wifi_off"):
        gym.make("s2r/Sim-v0", task="settings.wifi_of")
    with pytest.raises(ValueError, match=r"unknown split 'dev'; valid splits: real59, train, test"):
        SimGymEnv(split="dev", pool=sim_pool)
    with pytest.raises(ValueError, match=r"reward must be one of 'success', 'progress'"):
        SimGymEnv(reward="dense", pool=sim_pool)
    with pytest.raises(ValueError, match=r"not in split|of split 'test'"):
        SimGymEnv(task="settings.wifi_off", split="test", pool=sim_pool)
    env = SimGymEnv(task="settings.wifi_off", pixels=False, pool=sim_pool)
    with pytest.raises(ResetNeeded):
        env.step(OPEN_SETTINGS)
    for bad in (-1, 2**32, 2**40):
        with pytest.raises(ValueError, match=r"seed must be an int in \[0, 4294967295\]"):
            env.reset(seed=bad)
    with pytest.raises(TypeError, match="seed must be None or an int"):
        env.reset(seed="7")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"options\['seed'\] must be an int in \[0, 4294967295\]"):
        env.reset(options={"seed": -3})
    with pytest.raises(ValueError, match=r"unknown reset options \['level'\]; valid: task, seed"):
        env.reset(options={"level": 2})
    with pytest.raises(ValueError, match="unknown task 'nope'"):
        env.reset(options={"task": "nope"})
    assert env.instance is None  # none of that touched the phone
    env.reset(seed=0, options={"task": "clock.alarm_off", "seed": 4})
    assert env.instance.instance_id == "clock.alarm_off:4"
    for bad in (7, None, b'{"type": "back"}', {"type": "back"}):
        with pytest.raises(TypeError, match="raw output as a str"):
            env.step(bad)  # type: ignore[arg-type]
    assert env._steps == 0


def test_fork_copies_a_phone_mid_episode_exactly(sim_pool: Any) -> None:
    env = SimGymEnv(task="settings.wifi_off", pool=sim_pool)
    env.reset(seed=11)
    env.step(OPEN_SETTINGS)
    twin = env.fork()
    a = env.step('{"type": "scroll", "direction": "down"}')
    b = twin.step('{"type": "scroll", "direction": "down"}')
    assert data_equivalence(a, b, exact=True)  # obs (pixels included), reward, flags, info
    env.step('{"type": "key", "key": "home"}')
    assert env.current_observation()["foreground"] == "launcher"
    assert twin.current_observation()["foreground"] == "settings"


# ============================================================================ vector env
def test_vector_env_steps_8_phones_on_2_pages() -> None:
    vec = gym.make_vec("s2r/Sim-v0", num_envs=8, pages=2, task="settings.wifi_off", pixels=False, max_steps=2)
    try:
        assert type(vec).__name__ == "SimVectorEnv" and vec.metadata["autoreset_mode"].value == "NextStep"
        obs, infos = vec.reset(seed=100)
        assert obs in vec.observation_space
        assert len(set(infos["seed"].tolist())) == 8  # seeds 100..107: 8 different instances
        apps = ["settings", "clock"] * 4
        obs, rew, term, trunc, infos = vec.step(tuple(json.dumps({"type": "open_app", "app": a}) for a in apps))
        assert list(obs["foreground"]) == apps and not term.any() and not trunc.any()
        assert shared_pool(2).live_pages <= 2  # 8 phones, each its own state, on 2 pages
        obs, rew, term, trunc, infos = vec.step(("garbage",) * 8)
        assert trunc.all() and not term.any() and rew.tolist() == [-0.1] * 8
        assert infos["_verdict"].all() and list(infos["terminated_by"]) == ["max_steps"] * 8
        # next-step autoreset: the action is ignored, each phone starts a fresh episode
        obs, rew, term, trunc, infos = vec.step(("garbage",) * 8)
        assert rew.tolist() == [0.0] * 8 and not term.any() and not trunc.any()
        assert list(obs["foreground"]) == ["launcher"] * 8 and infos["_task"].all()
        # group rollouts: every group of 4 starts from one identical state
        obs, infos = vec.reset(seed=5, options={"group_size": 4})
        seeds = infos["seed"].tolist()
        assert seeds[:4] == [seeds[0]] * 4 and seeds[4:] == [seeds[4]] * 4 and seeds[0] != seeds[4]
        assert infos["_forked_from"].tolist() == [False, True, True, True, False, True, True, True]
        # a partial reset: only the marked phones start again, the others keep their screen
        vec.step(tuple(json.dumps({"type": "open_app", "app": a}) for a in apps))
        obs, infos = vec.reset(options={"reset_mask": np.array([True] + [False] * 7)})
        assert list(obs["foreground"]) == ["launcher"] + apps[1:] and infos["_task"].tolist() == [True] + [False] * 7
        steps = [e._steps for e in vec.unwrapped.envs]
        assert steps == [0] + [1] * 7
        with pytest.raises(ValueError, match="one action per sub-env"):
            vec.step(("x",) * 7)
        with pytest.raises(TypeError, match=r"actions\[2\] must be"):
            vec.step(("x", "y", 3, "z", "a", "b", "c", "d"))
        with pytest.raises(ValueError, match="group_size must be an int >= 1 that divides num_envs=8"):
            vec.reset(options={"group_size": 3})
        assert [e._steps for e in vec.unwrapped.envs] == steps  # the bad batches stepped nothing
    finally:
        vec.close()


# ============================================================================ Device-v0
@pytest.fixture(scope="module")
def phone(adb_host: Any) -> Any:
    return adb_host.start_phone()  # its own browser: the gym env's pool is separate


@pytest.fixture(scope="module")
def device_env(adb_host: Any, phone: Any) -> Iterator[gym.Env]:
    env = gym.make("s2r/Device-v0", serial=phone.serial, adb=f"127.0.0.1:{adb_host.port}", task="settings.wifi_off")
    yield env
    env.close()


def test_device_passes_check_env_on_a_virtual_phone(device_env: gym.Env, phone: Any) -> None:
    checked_env(device_env)
    obs, info = device_env.reset(seed=2)
    assert obs in device_env.observation_space and info["task"] == "settings.wifi_off"
    w, h = phone.profile.width_px, phone.profile.height_px
    assert obs["screenshot"].shape == (h, w, 3) and obs["screen_size"].tolist() == [w, h]
    assert obs["foreground"] == "launcher" and obs["screenshot"].std() > 5


def test_device_episode_is_judged_from_the_phone(device_env: gym.Env, adb_host: Any, phone: Any) -> None:
    total, term, trunc, info, _ = run_episode(device_env, seed=5)
    assert (term, total, info["verdict"]["success"], info["left_on_phone"]) == (True, 1.0, True, [])
    # the verdict was read from the phone's own authority (the Wi-Fi service) while Wi-Fi was off;
    # teardown then handed the phone back with the radio the episode found on
    sh = lambda *a: adb_host.adb("-s", phone.serial, "shell", *a).stdout.decode().strip()  # noqa: E731
    assert sh("cmd", "wifi", "status").startswith("Wifi is enabled") and sh("settings", "get", "global", "wifi_on") == "1"
    with pytest.raises(ValueError, match="already driven in this process with options"):
        gym.make("s2r/Device-v0", serial=phone.serial, adb=f"127.0.0.1:{adb_host.port}",
                 options={"grant_appops": True})


def test_device_bad_input(device_env: gym.Env, adb_host: Any) -> None:
    with pytest.raises(ValueError, match="adb must be 'HOST:PORT'"):
        gym.make("s2r/Device-v0", serial="emulator-5554", adb="localhost")
    with pytest.raises(ValueError, match=r"unknown device options \['rooted'\]"):
        gym.make("s2r/Device-v0", serial="emulator-5554", options={"rooted": True})
    with pytest.raises(ValueError, match="unknown task 'wifi_off'.*settings.wifi_off"):
        gym.make("s2r/Device-v0", serial="emulator-5554", task="wifi_off")
    device_env.reset(seed=1)
    with pytest.raises(TypeError, match="raw output as a str"):
        device_env.step(3)  # type: ignore[arg-type]
    _, r, term, _, info = device_env.step("```json\n{not json\n```")
    assert r == -0.1 and not term and info["invalid_action"].split(":")[0] in ("bad_json", "no_action")


def test_vdevice_starts_and_stops_its_own_phone(adb_host: Any) -> None:
    env = gym.make("s2r/Device-v0", serial="vdevice", adb=f"127.0.0.1:{adb_host.port}", task="settings.wifi_off",
                   pixels=False, knobs={"android": 13})
    serial = env.unwrapped.serial
    try:
        assert adb_host.state(serial) == "device" and env.unwrapped.device.pf.sdk == 33
        obs, _ = env.reset(seed=0)
        assert "screenshot" not in obs and obs["foreground"] == "launcher"
        _, _, _, _, info = env.step(OPEN_SETTINGS)
        assert info["action"]["app"] == "settings" and info["invalid_action"] is None
    finally:
        env.close()
    assert adb_host.state(serial) in (None, "offline")
    assert env.unwrapped.virtual_phone is None
