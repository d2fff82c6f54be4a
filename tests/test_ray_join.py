"""The join paths for real: ``s2r worker --head`` and ``s2r worker --address`` as separate
processes on 127.0.0.1, then drivers with ``--ray HEAD:PORT`` and ``--ray auto``.

Every process is started by this test and stopped by it (kills in ``finally``). Each gets its
own home (the head writes its auth token to ``~/.ray/auth_token`` there) and its own Ray temp
directory (where the head leaves the address ``--ray auto`` finds), so nothing outside the test
is read or written:

* nothing the two workers start listens beyond loopback;
* a driver given the head's address, and one given ``auto``, run episodes on the joined hosts;
* Ctrl-C (SIGINT) of the joined worker leaves cleanly (exit 0) and the next driver no longer
  sees it; that driver's device episodes have no host left, so it stops with exit 3 and one
  line naming what is missing and the fix, keeping what ran for ``--resume``.
"""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

if importlib.util.find_spec("ray") is None:
    pytest.skip("Ray is not installed (pip install 's2r[ray]')", allow_module_level=True)

from test_ray_cluster import _listeners, _loopback  # noqa: E402  (same /proc readers)


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Proc:
    """A subprocess whose output goes to files (read while it runs, never a full pipe)."""

    def __init__(self, name: str, cmd: list[str], env: dict[str, str], root: Path):
        self.out, self.err = root / f"{name}.out", root / f"{name}.err"
        with self.out.open("wb") as o, self.err.open("wb") as e:
            # its own process group, as a terminal gives a command: Ctrl-C reaches the whole group
            self.p = subprocess.Popen(cmd, env=env, stdout=o, stderr=e, stdin=subprocess.DEVNULL,
                                      start_new_session=True)

    def ctrl_c(self) -> None:
        """What Ctrl-C in its terminal does: SIGINT to the worker and every process it started."""
        os.killpg(self.p.pid, signal.SIGINT)

    def text(self) -> str:
        return self.out.read_text(errors="replace") + self.err.read_text(errors="replace")

    def wait_for(self, what: str, timeout: float) -> None:
        deadline = time.time() + timeout
        while what not in self.text() and time.time() < deadline and self.p.poll() is None:
            time.sleep(0.2)
        assert what in self.text(), f"{what!r} never came:\n{self.text()[-3000:]}"

    def stop(self) -> None:
        if self.p.poll() is None:
            self.ctrl_c()
            try:
                self.p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait(timeout=20)
        try:  # whatever of its group is left (Ray's processes)
            os.killpg(self.p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


@pytest.fixture(scope="module")
def joined(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    root = tmp_path_factory.mktemp("join")
    home = root / "home"
    home.mkdir()
    raytmp = tempfile.mkdtemp(prefix="s2rj", dir="/tmp")  # short: Ray's unix sockets live below it
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
    env.update(HOME=str(home), RAY_TMPDIR=raytmp, PYTHONUNBUFFERED="1", COLUMNS="300")
    port = _port()
    s2r = [sys.executable, "-m", "s2r.cli"]
    procs: list[Proc] = []
    try:
        head = Proc("head", s2r + ["worker", "--head", "--node-ip", "127.0.0.1", "--port", str(port), "--sim", "1",
                                   "--name", "head"], env, root)
        procs.append(head)
        head.wait_for("host head ready", 60)
        w2 = Proc("w2", s2r + ["worker", "--address", f"127.0.0.1:{port}", "--sim", "1", "--name", "w2"], env, root)
        procs.append(w2)
        w2.wait_for("host w2 ready", 60)
        yield {"head": head, "w2": w2, "port": port, "env": env, "root": root, "s2r": s2r}
    finally:
        for p in reversed(procs):
            p.stop()
        import shutil

        shutil.rmtree(raytmp, ignore_errors=True)


def _drive(j: dict[str, Any], ray: str, out: Path, *extra: str, env: dict[str, str] | None = None
           ) -> subprocess.CompletedProcess[str]:
    cmd = j["s2r"] + ["run", "--ray", ray, "--sim", "--policy", "oracle", "--split", "real59", "--limit", "2",
                      "--out", str(out), *extra]
    return subprocess.run(cmd, env=env or j["env"], capture_output=True, text=True, timeout=120)


def _records(out: Path) -> list[dict[str, Any]]:
    p = out / "episodes.jsonl"
    return [json.loads(x) for x in p.read_text().splitlines()] if p.exists() else []


def test_joined_hosts_listen_on_loopback_only_and_take_episodes(joined: dict[str, Any]) -> None:
    got = _listeners()
    assert sum(name == "gcs_server" for name, _ in got) == 1  # the head's; the joined node has none
    assert sum(name == "raylet" for name, _ in got) >= 2  # one per node
    assert [x for x in got if not _loopback(x[1])] == []
    assert f"cluster head at 127.0.0.1:{joined['port']}" in joined["head"].text()
    assert f"joined 127.0.0.1:{joined['port']}" in joined["w2"].text()

    out = joined["root"] / "by-address"
    done = _drive(joined, f"127.0.0.1:{joined['port']}", out)
    assert done.returncode == 0, done.stderr[-2000:]
    recs = _records(out)
    assert len(recs) == 2 and {r["host"] for r in recs} == {"head", "w2"}  # one page each: both get one
    assert all(r["success"] and r["attempts"] == 1 for r in recs)


def test_ray_auto_finds_the_cluster_started_here(joined: dict[str, Any]) -> None:
    out = joined["root"] / "auto"
    done = _drive(joined, "auto", out)  # no RAY_ADDRESS: the address the head left in RAY_TMPDIR
    assert done.returncode == 0, done.stderr[-2000:]
    recs = _records(out)
    assert len(recs) == 2 and {r["host"] for r in recs} <= {"head", "w2"} and all(r["success"] for r in recs)
    cfg = json.loads((out / "config.json").read_text())
    assert cfg["ray"]["hosts"] == ["head", "w2"]  # both joined hosts were found through "auto"
    assert cfg["ray"]["address"] == "auto" and cfg["ray"]["resolved"] == f"127.0.0.1:{joined['port']}"

    empty = joined["root"] / "no-cluster-here"
    empty.mkdir()
    nowhere = {**joined["env"], "RAY_TMPDIR": str(empty)}  # no head ever wrote its address here
    lost = _drive(joined, "auto", joined["root"] / "nowhere", env=nowhere)
    assert lost.returncode == 2 and "Traceback" not in lost.stderr
    assert "--ray auto found no cluster" in lost.stderr and not (joined["root"] / "nowhere").exists()


def test_sigint_leaves_cleanly_and_a_shortage_is_one_line(joined: dict[str, Any]) -> None:
    w2 = joined["w2"]
    w2.ctrl_c()
    assert w2.p.wait(timeout=60) == 0, w2.text()[-2000:]
    assert "leaving: waiting for the episodes in flight" in w2.text() and "left the cluster" in w2.text()

    out = joined["root"] / "short"
    env = {**joined["env"], "S2R_RAY_HOST_WAIT_S": "2"}
    done = _drive(joined, "auto", out, "--device", "vdevice:1", "--limit", "1", env=env)
    port = joined["port"]
    assert done.returncode == 3 and "Traceback" not in done.stderr, done.stderr[-2000:]
    stopped = [ln for ln in done.stderr.splitlines() if ln.strip()]
    assert stopped == [f"run stopped: no host can run device episodes after 2s: head has no phone; start `s2r "
                       f"worker --address 127.0.0.1:{port} --device all` on a phone host, then rerun the same "
                       "command with --resume"], done.stderr[-2000:]
    recs = _records(out)  # the sim episode ran, on the one host left: the driver no longer sees w2
    assert [(r["backend"], r["host"], r["success"]) for r in recs] == [("sim", "head", True)]
    assert json.loads((out / "config.json").read_text())["ray"]["hosts"] == ["head"]  # resumable as it is
