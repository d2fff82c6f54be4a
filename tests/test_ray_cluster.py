"""A real Ray cluster on 127.0.0.1: two nodes, each host with its own adb server and virtual
phone, driven by ``s2r paired --ray ADDRESS`` in a subprocess (the real adb server, adbutils and
uiautomator2 underneath, exactly as the local farm).

One cluster serves the module (it starts in seconds and the module shuts it down itself):

* nothing Ray (or a phone) starts listens beyond loopback, and token auth is on;
* a node removed without grace mid-run: the run completes, the moved episodes carry
  ``attempts == 2`` and ``retried_from`` naming the lost host and the phone (or sim target) the
  episode had there, and the summary equals the same run on the local executor. The policy
  ``trained`` is the stand-in model server (:class:`_netproc.HeldModel`), held while the node is
  removed: the episode on that node's phone cannot finish first, so it is certainly moved;
* SIGKILL of the driver, a host re-added on a new node, then ``--resume``: the same summary, no
  duplicate ids, and the re-added host runs episodes.
"""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

if importlib.util.find_spec("ray") is None:  # not imported here: the cluster sets Ray's environment first
    pytest.skip("Ray is not installed (pip install 's2r[ray]')", allow_module_level=True)

from _netproc import HeldModel, listeners, loopback  # noqa: E402

TASKS = "settings.wifi_on,settings.dnd_on"
EPISODES = 2 * 2 * 2  # policies x tasks x backends


def _cmd(out: Path, ray: str | None, trained: str, resume: bool = False) -> list[str]:
    """The run: ``base`` is random:7, ``trained`` the held stand-in model (``trained`` is its spec)."""
    cmd = [sys.executable, "-m", "s2r.cli", "paired", "--policy", "base=random:7", "--policy", f"trained={trained}",
           "--device", "vdevice:1", "--split", "real59", "--tasks", TASKS, "--out", str(out), "--bootstrap", "200"]
    return cmd + (["--ray", ray] if ray else []) + (["--resume"] if resume else [])


def _summary(run: Path) -> dict[str, Any]:
    from transfer.report import build_summary

    s = build_summary(run, bootstrap=200, write=False)
    # wall-clock timings; the run's own metadata (phones' ports, hosts); the per-family table, which
    # groups by what config.json says of each phone (a Ray run's hosts describe their phones apart)
    for k in ("latency", "config", "by_family"):
        s.pop(k, None)
    s["run"].pop("run_id", None)
    return json.loads(json.dumps(s, sort_keys=True, default=str))


def _records(run: Path) -> list[dict[str, Any]]:
    p = run / "episodes.jsonl"
    return [json.loads(x) for x in p.read_text().splitlines()] if p.exists() else []


@contextmanager
def _driver(cmd: list[str], stderr: int) -> Iterator[subprocess.Popen[bytes]]:
    """A driver process that is gone when the block ends, whatever the test found."""
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=stderr)
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=30)


def _wait_for(pred: Any, proc: subprocess.Popen[bytes], timeout: float = 120) -> None:
    deadline = time.time() + timeout
    while not pred() and time.time() < deadline and proc.poll() is None:
        time.sleep(0.2)
    assert pred(), "the driver never got there"


@pytest.fixture(scope="module")
def model() -> Iterator[HeldModel]:
    """The ``trained`` policy's model server, open unless a test holds it."""
    m = HeldModel()
    try:
        yield m
    finally:
        m.close()


@pytest.fixture(scope="module")
def local_run(tmp_path_factory: pytest.TempPathFactory, model: HeldModel
              ) -> Iterator[tuple[subprocess.Popen[bytes], Path]]:
    """The same run on the local executor, started first: it runs while the cluster starts."""
    out = tmp_path_factory.mktemp("local") / "run"
    proc = subprocess.Popen(_cmd(out, None, model.spec), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        yield proc, out
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=30)


@pytest.fixture(scope="module")
def cluster(local_run: Any) -> Iterator[Any]:
    from transfer.distributed.ray_engine import LocalCluster

    t0 = time.perf_counter()
    c = LocalCluster(2).start()
    # a driver holding the wrong token, started now so that its refusal overlaps the rest
    c.intruder = subprocess.Popen(  # type: ignore[attr-defined]
        [sys.executable, "-c", "import ray; ray.init(address=%r, _node_ip_address='127.0.0.1')" % c.address],
        env={**os.environ, "RAY_AUTH_TOKEN": "0" * 64}, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    import ray

    actors = c.add_hosts(device="vdevice:1", sim_pages=1, device_run={})
    c.phones = {i["name"]: [p["serial"] for p in i["phones"]]  # type: ignore[attr-defined]
                for i in ray.get([a.info.remote() for a in actors])}
    print(f"\ncluster up in {c.started_s:.1f}s, hosts with phones in {time.perf_counter() - t0:.1f}s")
    try:
        yield c
    finally:
        if c.intruder.poll() is None:  # type: ignore[attr-defined]
            c.intruder.kill()  # type: ignore[attr-defined]
        c.close_hosts()
        c.shutdown()


@pytest.fixture(scope="module")
def local_summary(local_run: tuple[subprocess.Popen[bytes], Path]) -> dict[str, Any]:
    proc, out = local_run
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err.decode()[-2000:]
    return _summary(out)


def _running(host: str) -> dict[str, str | None]:
    """The episodes ``host`` runs now and the phone (or sim target) of each (its host actor says)."""
    import ray

    try:
        actor = ray.get_actor(f"s2r-host:{host}", namespace="s2r")
        return ray.get(actor.running.remote(), timeout=10)
    except Exception:  # noqa: BLE001 - not up yet
        return {}


def test_every_listener_on_loopback_and_token_auth_on(cluster: Any) -> None:
    got = listeners()
    assert any(name == "gcs_server" for name, _ in got) and any(name == "raylet" for name, _ in got)
    assert [x for x in got if not loopback(x[1])] == []
    assert os.environ["RAY_AUTH_MODE"] == "token" and len(os.environ["RAY_AUTH_TOKEN"]) >= 32
    _, err = cluster.intruder.communicate(timeout=120)
    assert cluster.intruder.returncode != 0 and b"AuthenticationError" in err  # a wrong token is refused


def test_node_lost_mid_run_moves_episodes_and_summary_is_unchanged(
        cluster: Any, local_summary: dict[str, Any], local_run: tuple[subprocess.Popen[bytes], Path],
        model: HeldModel, tmp_path: Path) -> None:
    # the slots are the local run's: the episodes of `trained` on a phone wait for the held model
    trained = {r["episode_id"] for r in _records(local_run[1]) if r["policy"] == "trained" and r["backend"] == "device"}
    assert len(trained) == 2
    out = tmp_path / "ray"
    held: dict[str, str | None] = {}

    def phone_held() -> bool:
        held.update({e: p for e, p in _running("node-1").items() if e in trained and p in cluster.phones["node-1"]})
        return bool(held)

    model.hold()  # each phone takes one of them and keeps it until release: node-1's phone certainly does
    with _driver(_cmd(out, cluster.address, model.spec), subprocess.PIPE) as proc:
        try:
            _wait_for(phone_held, proc)
            cluster.kill_node(1)  # node-1 and its phone vanish without grace, an episode running on its phone
        finally:
            model.release()
        _, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err.decode()[-2000:]
    recs = _records(out)
    ids = [r["episode_id"] for r in recs]
    assert len(ids) == len(set(ids)) == EPISODES
    assert {r["host"] for r in recs} == {"node-0", "node-1"}
    moved = [r for r in recs if r["attempts"] == 2]
    lost_phone = cluster.phones["node-1"]
    assert len(lost_phone) == 1 and lost_phone != cluster.phones["node-0"]
    where = {"device": f"node-1/{lost_phone[0]}", "sim": "node-1/default/sim"}  # the host AND its phone
    assert any(r["backend"] == "device" for r in moved)  # the one killed on node-1's phone
    assert moved and [(r["retried_from"], r["host"]) for r in moved] == [(where[r["backend"]], "node-0")
                                                                         for r in moved]
    (ep, phone), = held.items()  # the episode held on node-1's phone when the node went
    assert ep in {r["episode_id"] for r in moved} and phone == lost_phone[0]
    assert all(r["error_kind"] is None for r in recs)  # nothing charged to a policy, no infra left
    assert b"host node-1 lost" in err
    assert _summary(out) == local_summary


def test_driver_killed_then_resume_with_a_readded_host(cluster: Any, local_summary: dict[str, Any],
                                                       model: HeldModel, tmp_path: Path) -> None:
    out = tmp_path / "cut"
    with _driver(_cmd(out, cluster.address, model.spec), subprocess.DEVNULL) as proc:
        _wait_for(lambda: len(_records(out)) >= 2, proc)
        proc.send_signal(signal.SIGKILL)  # a crash: the hosts keep their phones warm
        proc.wait(timeout=30)
    before = len(_records(out))
    assert 2 <= before < EPISODES
    i = cluster.add_node()  # a host re-added on a new node
    cluster.add_host(i, device="vdevice:1", sim_pages=1, device_run={})
    done = subprocess.run(_cmd(out, cluster.address, model.spec, resume=True), capture_output=True, timeout=300)
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    recs = _records(out)
    ids = [r["episode_id"] for r in recs]
    assert len(ids) == len(set(ids)) == EPISODES
    assert f"node-{i}" in {r["host"] for r in recs[before:]}  # the re-added host got work
    assert _summary(out) == local_summary


def test_a_leaving_hosts_refusal_waits_until_it_has_nothing_in_flight() -> None:
    """A host whose worker is leaving refuses new attempts; reported at once, the host would be
    marked lost and the episodes it is still draining moved and run twice. The engine holds the
    refusal back until that host has nothing else in flight (no Ray call is needed to see it)."""
    from transfer.distributed.ray_engine import RayEngine, _Attempt

    draining = _Attempt(actor=None, spec_json="{}", ref=object(), key="w3")
    refused = _Attempt(actor=None, spec_json="{}", ref=object(), key="w3", refused=True)
    elsewhere = _Attempt(actor=None, spec_json="{}", ref=object(), key="head")
    assert RayEngine._refusals([draining, refused, elsewhere]) == []  # w3 still runs one
    # its last one came back: reported (whatever other hosts run), not waited on
    (h, lost), = RayEngine(driver="d").wait([refused, elsewhere], timeout=0)
    assert h is refused and lost.kind == "leaving" and h.cancelled
    assert RayEngine._refusals([refused]) == []  # reported once
