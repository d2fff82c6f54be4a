"""The test rigs, in one place: Chromium (the sim pool), private adb servers and virtual phones.

* ``sim_pool`` — one real headless Chromium per test session (per xdist worker), shared through
  the sim runtime.
* ``adb_host`` — a PRIVATE adb server per test module: the real ``adb`` binary from adbutils'
  wheel on a free loopback port with its own HOME, never the shared default server (5037),
  which tests neither use nor kill. While the module runs, ``ADB_SERVER_SOCKET`` points at it,
  so ``device.adb.client()`` and everything built on it (DeviceEnv, the farm, the CLI in a
  subprocess) use it. It is killed when the module ends, and the environment put back.
* ``adb_host.start_phone(pool, **knobs)`` — a virtual phone (stock unless knobs say otherwise)
  connected to that server; every phone a module started is stopped with the server, so no
  phone outlives its module and no test depends on another module's phone.
* ``stock_phone`` — one stock Android 14 phone per module on ``adb_host``, for modules that need
  just one.

Ray clusters are started by the modules that test them (``tests/test_ray_*.py``): each starts
its own loopback cluster and stops it; nothing here starts Ray. Plain helpers (free ports, the
/proc listener readers) live in ``tests/_rigs.py`` and ``tests/_netproc.py``; no test imports
another test module.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from _rigs import AdbHost, start_adb_server, stop_adb_server


@pytest.fixture(scope="session")
def sim_pool():
    from sim.pool import SimPool
    from sim.runtime import Runtime

    rt = Runtime.get()
    pool = SimPool(rt, pages_per_profile=2)
    yield pool
    rt.run(pool.close())


@pytest.fixture(scope="module")
def adb_host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AdbHost]:
    host = start_adb_server(tmp_path_factory.mktemp("adbhome"))
    try:
        yield host
    finally:
        stop_adb_server(host)  # stops the phones it started too


@pytest.fixture(scope="module")
def stock_phone(adb_host: AdbHost, sim_pool: Any) -> Any:
    return adb_host.start_phone(sim_pool)


# ------------------------------------------------------------------------------ scheduling
#: The files that take longest (whole files go to one worker: `--dist loadfile`), longest first,
#: as measured on 2 cores. xdist hands files out in collection order, so these start first and
#: the short files fill in behind them; collected in name order, a long file that came last
#: (test_vdevice_oracle.py, two minutes) ran alone at the end. Order only: no test depends on it.
LONG_FILES = ("test_cli_e2e.py", "test_bench_env.py", "test_ray_join.py", "test_vdevice_oracle.py", "test_readme.py",
              "test_farm_health.py", "test_record_video.py", "test_farm_page.py", "test_trainer_verl.py",
              "test_person_phone.py", "test_farm.py", "test_ray_cluster.py",
              "test_vdevice_screen_equivalence.py", "test_vdevice_keyguard.py", "test_vdevice_family.py",
              "test_safety_commands.py", "test_content_bind.py", "test_gym.py", "test_device_stock_env.py")


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[Any]) -> None:
    """Long files first (stable: the rest keep their order)."""
    rank = {name: i for i, name in enumerate(LONG_FILES)}
    items.sort(key=lambda it: rank.get(it.path.name, len(LONG_FILES)))
