"""Gymnasium environments over s2r's phones: ``s2r/Sim-v0`` and ``s2r/Device-v0``.

Importing this module registers both ids (``import s2r.gym`` then ``gym.make("s2r/Sim-v0")``,
or ``gym.make("s2r.gym:s2r/Sim-v0")`` without the import). Gymnasium 0.26–0.29 also found
them through the ``gymnasium.envs`` entry point group that s2r's package metadata declares;
Gymnasium 1.x dropped that plugin loading, hence the import.

* ``s2r/Sim-v0`` — :class:`~s2r.gym.sim.SimGymEnv`, a simulated phone; deterministic, with
  exact :meth:`~s2r.gym.sim.SimGymEnv.fork`; ``gym.make_vec("s2r/Sim-v0", num_envs=N, pages=M)``
  gives :class:`~s2r.gym.vector.SimVectorEnv` (N phones on M live pages).
* ``s2r/Device-v0`` — :class:`~s2r.gym.device.DeviceGymEnv`, an Android phone over adb
  (``serial=...``) or a virtual phone of its own (``serial="vdevice"``).

Both take the policy's raw text as the action and end an episode with the judge's verdict in
``info``; see :mod:`s2r.gym.core` (episodes, rewards) and :mod:`s2r.gym.spaces` (spaces).
"""

from __future__ import annotations

from .core import PhoneTaskEnv
from .spaces import AnyText

__all__ = ["AnyText", "DeviceGymEnv", "PhoneTaskEnv", "SimGymEnv", "SimVectorEnv", "register_envs"]

SIM_ID = "s2r/Sim-v0"
DEVICE_ID = "s2r/Device-v0"


def register_envs() -> None:
    """Register ``s2r/Sim-v0`` and ``s2r/Device-v0`` with Gymnasium (idempotent).

    The device env is registered ``nondeterministic``: a phone's clock runs with wall time
    and its screen shows it, so two resets with one seed need not look alike.
    """
    from gymnasium.envs.registration import register, registry

    if SIM_ID not in registry:
        register(id=SIM_ID, entry_point="s2r.gym.sim:SimGymEnv",
                 vector_entry_point="s2r.gym.vector:SimVectorEnv", disable_env_checker=False)
    if DEVICE_ID not in registry:
        register(id=DEVICE_ID, entry_point="s2r.gym.device:DeviceGymEnv", nondeterministic=True)


def __getattr__(name: str):  # the env classes load their backends only when asked for
    if name == "SimGymEnv":
        from .sim import SimGymEnv

        return SimGymEnv
    if name == "SimVectorEnv":
        from .vector import SimVectorEnv

        return SimVectorEnv
    if name == "DeviceGymEnv":
        from .device import DeviceGymEnv

        return DeviceGymEnv
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


register_envs()
