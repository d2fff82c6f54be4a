"""Shared fixtures: one real headless Chromium per test session, shared through the sim runtime."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def sim_pool():
    from sim.pool import SimPool
    from sim.runtime import Runtime

    rt = Runtime.get()
    pool = SimPool(rt, pages_per_profile=2)
    yield pool
    rt.run(pool.close())
