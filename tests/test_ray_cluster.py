"""A real Ray cluster on 127.0.0.1: two nodes, each host with its own adb server and virtual
phone, driven by ``s2r paired --ray ADDRESS`` in a subprocess (the real adb server, adbutils and
uiautomator2 underneath, exactly as the local farm).

One cluster serves the module (it starts in seconds and the module shuts it down itself):

* nothing Ray (or a phone) starts listens beyond loopback, and token auth is on;
* a node removed without grace mid-run: the run completes, the moved episodes carry
  ``attempts == 2`` and ``retried_from`` naming the lost host and the phone (or sim target) the
  episode had there, and the summary equals the same run on the local executor;
* SIGKILL of the driver, a host re-added on a new node, then ``--resume``: the same summary, no
  duplicate ids, and the re-added host runs episodes.
"""

from __future__ import annotations

import importlib.util
import ipaddress
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

if importlib.util.find_spec("ray") is None:  # not imported here: the cluster sets Ray's environment first
    pytest.skip("Ray is not installed (pip install 's2r[ray]')", allow_module_level=True)

TASKS = "settings.wifi_on,settings.dnd_on"
EPISODES = 2 * 2 * 2  # policies x tasks x backends


def _cmd(out: Path, ray: str | None, resume: bool = False) -> list[str]:
    cmd = [sys.executable, "-m", "s2r.cli", "paired", "--policy", "base=random:7", "--policy", "trained=oracle",
           "--device", "vdevice:1", "--split", "real59", "--tasks", TASKS, "--out", str(out), "--bootstrap", "200"]
    return cmd + (["--ray", ray] if ray else []) + (["--resume"] if resume else [])


def _summary(run: Path) -> dict[str, Any]:
    from transfer.report import build_summary

    s = build_summary(run, bootstrap=200, write=False)
    for k in ("latency", "config"):  # wall-clock timings; the run's own metadata (phones' ports, hosts)
        s.pop(k, None)
    s["run"].pop("run_id", None)
    return json.loads(json.dumps(s, sort_keys=True, default=str))


def _records(run: Path) -> list[dict[str, Any]]:
    p = run / "episodes.jsonl"
    return [json.loads(x) for x in p.read_text().splitlines()] if p.exists() else []


def _wait_for(pred: Any, proc: subprocess.Popen[bytes], timeout: float = 120) -> None:
    deadline = time.time() + timeout
    while not pred() and time.time() < deadline and proc.poll() is None:
        time.sleep(0.2)
    assert pred(), "the driver never got there"


@pytest.fixture(scope="module")
def local_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[subprocess.Popen[bytes], Path]]:
    """The same run on the local executor, started first: it runs while the cluster starts."""
    out = tmp_path_factory.mktemp("local") / "run"
    proc = subprocess.Popen(_cmd(out, None), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
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


def _running_on_phone(host: str, serials: list[str]) -> bool:
    """Whether ``host`` is running an episode on one of its phones now (its host actor says)."""
    import ray

    try:
        actor = ray.get_actor(f"s2r-host:{host}", namespace="s2r")
        return any(p in serials for p in ray.get(actor.running.remote(), timeout=10).values())
    except Exception:  # noqa: BLE001 - not up yet
        return False


def _tree(root: int) -> dict[int, str]:
    """This process and its descendants (Ray's processes, the hosts and their phones): pid -> name."""
    kids: dict[int, list[int]] = {}
    names: dict[int, str] = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                stat = (d / "stat").read_text()
            except OSError:
                continue
            name, rest = stat[stat.index("(") + 1:stat.rindex(")")], stat[stat.rindex(")") + 2:].split()
            names[int(d.name)] = name
            kids.setdefault(int(rest[1]), []).append(int(d.name))
    out, todo = {}, [root]
    while todo:
        pid = todo.pop()
        out[pid] = names.get(pid, "?")
        todo += kids.get(pid, [])
    return out


def _listeners() -> list[tuple[str, str]]:
    """(process name, address) of every listening TCP socket of the tree, from /proc/net/tcp{,6}."""
    listen: dict[str, str] = {}
    for table, width in (("/proc/net/tcp", 8), ("/proc/net/tcp6", 32)):
        for line in Path(table).read_text().splitlines()[1:]:
            f = line.split()
            if f[3] == "0A":  # TCP_LISTEN
                raw = bytes.fromhex(f[1].split(":")[0])
                # the kernel prints each 32-bit word in host (little-endian) order
                ip = b"".join(raw[i:i + 4][::-1] for i in range(0, len(raw), 4))
                listen[f[9]] = str(ipaddress.ip_address(ip))
    got = []
    for pid, name in _tree(os.getpid()).items():
        try:
            fds = list(Path(f"/proc/{pid}/fd").iterdir())
        except OSError:
            continue
        for fd in fds:
            try:
                link = os.readlink(fd)
            except OSError:
                continue
            if link.startswith("socket:[") and link[8:-1] in listen:
                got.append((name, listen[link[8:-1]]))
    return got


def _loopback(ip: str) -> bool:
    a = ipaddress.ip_address(ip)
    return a.is_loopback or bool(getattr(a, "ipv4_mapped", None) and a.ipv4_mapped.is_loopback)


def test_every_listener_on_loopback_and_token_auth_on(cluster: Any) -> None:
    got = _listeners()
    assert any(name == "gcs_server" for name, _ in got) and any(name == "raylet" for name, _ in got)
    assert [x for x in got if not _loopback(x[1])] == []
    assert os.environ["RAY_AUTH_MODE"] == "token" and len(os.environ["RAY_AUTH_TOKEN"]) >= 32
    _, err = cluster.intruder.communicate(timeout=120)
    assert cluster.intruder.returncode != 0 and b"AuthenticationError" in err  # a wrong token is refused


def test_node_lost_mid_run_moves_episodes_and_summary_is_unchanged(cluster: Any, local_summary: dict[str, Any],
                                                                    tmp_path: Path) -> None:
    out = tmp_path / "ray"
    proc = subprocess.Popen(_cmd(out, cluster.address), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _wait_for(lambda: len(_records(out)) >= 2 and _running_on_phone("node-1", cluster.phones["node-1"]), proc)
    cluster.kill_node(1)  # node-1 and its phone vanish without grace, an episode running on its phone
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
    assert all(r["error_kind"] is None for r in recs)  # nothing charged to a policy, no infra left
    assert b"host node-1 lost" in err
    assert _summary(out) == local_summary


def test_driver_killed_then_resume_with_a_readded_host(cluster: Any, local_summary: dict[str, Any],
                                                       tmp_path: Path) -> None:
    out = tmp_path / "cut"
    proc = subprocess.Popen(_cmd(out, cluster.address), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _wait_for(lambda: len(_records(out)) >= 2, proc)
    proc.send_signal(signal.SIGKILL)  # a crash: the hosts keep their phones warm
    proc.wait(timeout=30)
    before = len(_records(out))
    assert 2 <= before < EPISODES
    i = cluster.add_node()  # a host re-added on a new node
    cluster.add_host(i, device="vdevice:1", sim_pages=1, device_run={})
    done = subprocess.run(_cmd(out, cluster.address, resume=True), capture_output=True, timeout=300)
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    recs = _records(out)
    ids = [r["episode_id"] for r in recs]
    assert len(ids) == len(set(ids)) == EPISODES
    assert f"node-{i}" in {r["host"] for r in recs[before:]}  # the re-added host got work
    assert _summary(out) == local_summary
