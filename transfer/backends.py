"""Backends the executor leases episodes onto: simulated phones and (later) devices.

Targets are strings: ``PROFILE/FLAVOR`` for the sim (``default/sim``, ``pixel/aosp``) and a
serial for a device.
"""

from __future__ import annotations

from typing import Any

from .runner import EpisodeSpec, Lease


def sim_target(profile: str = "default", flavor: str = "sim") -> str:
    return f"{profile}/{flavor}"


class SimBackends:
    """Leases a fresh logical sim phone per attempt (cheap: a phone is just its state)."""

    def __init__(self, pages: int = 2):
        from sim.pool import SimPool
        from sim.runtime import Runtime

        self.pool = SimPool(Runtime.get(), pages_per_profile=pages)

    def lease(self, spec: EpisodeSpec) -> Lease:
        from sim.env import SimEnv

        profile, _, flavor = spec.target.partition("/")
        env = SimEnv(profile or "default", flavor or "sim", pool=self.pool)  # type: ignore[arg-type]
        info: dict[str, Any] = {"profile": profile, "flavor": flavor or "sim", "target": spec.target}
        return Lease(env=env, info=info)

    def close(self) -> None:
        self.pool.rt.run(self.pool.close())
