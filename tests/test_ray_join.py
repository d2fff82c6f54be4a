"""The join paths for real: ``s2r worker --head`` and ``s2r worker --address`` as separate
processes on 127.0.0.1, then drivers with ``--ray HEAD:PORT`` and ``--ray auto``.

Every process is started by this test and stopped by it (kills in ``finally``). Each gets its
own home (the head writes its auth token to ``~/.ray/auth_token`` there) and its own Ray temp
directory (where the head leaves the address ``--ray auto`` finds), so nothing outside the test
is read or written:

* nothing the two workers start listens beyond loopback;
* a driver given the head's address, and one given ``auto``, run episodes on the joined hosts;
* Ctrl-C of a worker with an episode in flight: it takes no new episode, the one in flight
  finishes there, it exits 0 with ``left the cluster`` and none of its processes is left; the
  driver loses nothing;
* a second stop during that wait leaves at once (exit 130) with one line naming the episode and
  page left leased; the driver moves that episode; SIGKILL of a worker mid-episode: the same move,
  and its Ray processes go with it;
* Ctrl-C (SIGINT) of the joined worker leaves cleanly (exit 0) and the next driver no longer
  sees it; that driver's device episodes have no host left, so it stops with exit 3 and one
  line naming what is missing and the fix, keeping what ran for ``--resume``.

An episode is "in flight" for certain: its policy is the stand-in model server, held
(:class:`_netproc.HeldModel`), and an episode cannot end before its first step is answered.
Waits have generous timeouts; they guard against a hang, they do not measure speed.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import signal
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

from _netproc import HeldModel, free_port, kill_all, listeners, loopback, snapshot, wait_gone  # noqa: E402

LEAVING = "leaving: waiting for the episodes in flight …"


class Proc:
    """A subprocess whose output goes to files (read while it runs, never a full pipe)."""

    def __init__(self, name: str, cmd: list[str], env: dict[str, str], root: Path):
        self.out, self.err = root / f"{name}.out", root / f"{name}.err"
        self.seen: dict[int, tuple[str, int]] = {}  # its process tree, as last looked at
        with self.out.open("wb") as o, self.err.open("wb") as e:
            # its own process group, as a terminal gives a command: Ctrl-C reaches the whole group
            self.p = subprocess.Popen(cmd, env=env, stdout=o, stderr=e, stdin=subprocess.DEVNULL,
                                      start_new_session=True)

    def look(self) -> dict[int, tuple[str, int]]:
        """Its process tree now (Ray's processes run in sessions of their own: a process group
        signal does not find them, this does), kept for :meth:`stop`."""
        if self.p.poll() is None:
            self.seen.update(snapshot(self.p.pid))
        return dict(self.seen)

    def ctrl_c(self) -> None:
        """What Ctrl-C in its terminal does: SIGINT to the worker and every process in its group."""
        os.killpg(self.p.pid, signal.SIGINT)

    def sigterm(self) -> None:
        """What a service manager's or a shell's stop does: SIGTERM to the whole process group."""
        os.killpg(self.p.pid, signal.SIGTERM)

    def lines(self) -> list[str]:
        """The lines a worker prints itself on leaving (Ray adds its own news of other nodes to
        the same streams: a raylet that ended elsewhere in the cluster, say)."""
        return [ln for ln in self.out.read_text(errors="replace").splitlines()
                if ln.startswith(("leaving:", "left the cluster", "audit ", "interrupted"))]

    def text(self) -> str:
        return self.out.read_text(errors="replace") + self.err.read_text(errors="replace")

    def wait_for(self, what: str, timeout: float) -> None:
        deadline = time.time() + timeout
        while what not in self.text() and time.time() < deadline and self.p.poll() is None:
            time.sleep(0.2)
        assert what in self.text(), f"{what!r} never came:\n{self.text()[-3000:]}"

    def stop(self) -> None:
        self.look()
        if self.p.poll() is None:
            self.ctrl_c()
            try:
                self.p.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait(timeout=20)
        try:  # whatever of its group is left
            os.killpg(self.p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        kill_all(self.seen)  # and of its tree (Ray's processes)


@pytest.fixture(scope="module")
def joined(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    root = tmp_path_factory.mktemp("join")
    home = root / "home"
    home.mkdir()
    raytmp = tempfile.mkdtemp(prefix="s2rj", dir="/tmp")  # short: Ray's unix sockets live below it
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
    env.update(HOME=str(home), RAY_TMPDIR=raytmp, PYTHONUNBUFFERED="1", COLUMNS="300")
    port = free_port()
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
        yield {"head": head, "w2": w2, "port": port, "env": env, "root": root, "s2r": s2r, "procs": procs}
    finally:
        for p in reversed(procs):
            p.stop()
        shutil.rmtree(raytmp, ignore_errors=True)


@pytest.fixture(scope="module")
def model() -> Iterator[HeldModel]:
    """The model server of the drivers' ``held`` policy, open unless a test holds it."""
    m = HeldModel()
    try:
        yield m
    finally:
        m.close()


def _join(j: dict[str, Any], name: str) -> Proc:
    """Another worker joining the cluster with one sim page (stopped by the fixture at the latest)."""
    w = Proc(name, j["s2r"] + ["worker", "--address", f"127.0.0.1:{j['port']}", "--sim", "1", "--name", name],
             j["env"], j["root"])
    j["procs"].append(w)
    w.wait_for(f"host {name} ready", 90)
    return w


def _held_run(j: dict[str, Any], model: HeldModel, out: Path, limit: int) -> Proc:
    """A driver running ``limit`` sim episodes with the held model as policy (stopped by the fixture)."""
    d = Proc(out.name, j["s2r"] + ["run", "--ray", f"127.0.0.1:{j['port']}", "--sim", "--policy",
                                   f"held={model.spec}", "--split", "real59", "--limit", str(limit), "--out",
                                   str(out)], j["env"], j["root"])
    j["procs"].append(d)
    return d


def _in_flight(line: str) -> dict[str, str]:
    """The episodes a worker's leaving line names: ``… N in flight: EP on PHONE, …`` → {EP: PHONE}."""
    named = line.split(" in flight: ", 1)[1].split(" (Ctrl-C again", 1)[0]
    return {} if named == "none" else dict(x.split(" on ", 1) for x in named.split(", "))


def _drive(j: dict[str, Any], ray: str, out: Path, *extra: str, env: dict[str, str] | None = None
           ) -> subprocess.CompletedProcess[str]:
    cmd = j["s2r"] + ["run", "--ray", ray, "--sim", "--policy", "oracle", "--split", "real59", "--limit", "2",
                      "--out", str(out), *extra]
    return subprocess.run(cmd, env=env or j["env"], capture_output=True, text=True, timeout=120)


def _records(out: Path) -> list[dict[str, Any]]:
    p = out / "episodes.jsonl"
    return [json.loads(x) for x in p.read_text().splitlines()] if p.exists() else []


def test_joined_hosts_listen_on_loopback_only_and_take_episodes(joined: dict[str, Any]) -> None:
    got = listeners()
    assert sum(name == "gcs_server" for name, _ in got) == 1  # the head's; the joined node has none
    assert sum(name == "raylet" for name, _ in got) >= 2  # one per node
    assert [x for x in got if not loopback(x[1])] == []
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


def test_hosts_serve_env_sessions_a_client_spreads_over_them_and_a_lost_host_is_infra(
        joined: dict[str, Any]) -> None:
    """Every ``--sim`` host serves trainers' sessions; ``s2r env hosts`` lists them, one client
    spreads sessions over them, and a host killed mid-episode ends that session as
    infrastructure while the others go on."""
    import asyncio

    from actionmap.errors import InfraError
    from s2r.envserver import HostLost
    from s2r.envserver.cluster import spread

    w = _join(joined, "wenv")

    def servers() -> list[dict[str, Any]]:
        got = subprocess.run(joined["s2r"] + ["env", "hosts", "--ray", f"127.0.0.1:{joined['port']}", "--json",
                                              "--show-tokens"], env=joined["env"], capture_output=True, text=True,
                             timeout=120)
        assert got.returncode == 0, got.stderr[-2000:]
        return json.loads(got.stdout)

    listed = servers()
    assert {s["host"] for s in listed} == {"head", "w2", "wenv"}
    assert all(s["url"].startswith("http://127.0.0.1:") and s["token"] is None for s in listed)  # loopback
    assert all(loopback(a) for _, a in listeners())
    by_url = {s["url"]: s["host"] for s in listed}

    async def go() -> None:
        sp = spread(listed)
        opened = [await sp.open(task="train.calculator.add", seed=i) for i in range(3)]
        hosts = {by_url[env.base_url]: env for env, _ in opened}
        assert set(hosts) == {"head", "w2", "wenv"}  # one session on each host
        for env in hosts.values():
            r = await env.step_text('{"type": "open_app", "app": "calculator"}')
            assert r.observation.step == 1
        kill_all(w.look())  # the host is lost mid-episode
        with pytest.raises(HostLost) as lost:
            await hosts["wenv"].step_text('{"type": "answer", "fields": {"result": 1}}')
        assert isinstance(lost.value, InfraError)
        r = await hosts["head"].step_text('{"type": "answer", "fields": {"result": 1}}')
        assert r.done and r.observation.info["terminated_by"] == "answer"  # the others go on
        for env, _ in opened:
            await sp.release(env)
    asyncio.run(go())
    assert {s["host"] for s in servers()} == {"head", "w2"}


def test_the_farm_page_shows_a_cluster_hosts_phones_and_their_runs_steps(joined: dict[str, Any]) -> None:
    """``s2r farm serve --ray``: a host's phones (read on that host) and, while a driver's run holds
    one through the cluster, its task and advancing steps."""
    import re
    import urllib.request

    j = joined
    w = Proc("wdev", j["s2r"] + ["worker", "--address", f"127.0.0.1:{j['port']}", "--device", "vdevice:1",
                                 "--name", "wdev"], j["env"], j["root"])
    j["procs"].append(w)
    page = Proc("farmpage", j["s2r"] + ["farm", "serve", "--port", "0", "--ray", f"127.0.0.1:{j['port']}"],
                j["env"], j["root"])
    j["procs"].append(page)
    try:
        w.wait_for("host wdev ready", 120)
        page.wait_for("farm page: http", 90)
        url = re.search(r"farm page: (http://127\.0\.0\.1:\d+/)", page.text()).group(1)

        def rows() -> list[dict[str, Any]]:
            with urllib.request.urlopen(url + "api/phones", timeout=30) as r:
                return [p for p in json.loads(r.read())["phones"] if p["where"] == "wdev"]

        deadline = time.time() + 60
        while not rows() and time.time() < deadline:
            time.sleep(1)
        (phone,) = rows()
        assert phone["health"] == "online" and phone["virtual"] and phone["model"] and phone["android"]
        assert phone["battery"] and phone["battery"]["level"] > 0 and phone["held"] is None

        out = j["root"] / "farm-ray"
        d = Proc(out.name, j["s2r"] + ["run", "--ray", f"127.0.0.1:{j['port']}", "--device", "all", "--policy",
                                       "oracle", "--split", "real59", "--limit", "2", "--out", str(out)],
                 j["env"], j["root"])
        j["procs"].append(d)
        steps: list[tuple[str, int]] = []
        while d.p.poll() is None and time.time() < deadline + 240:
            held = rows()[0]["held"]
            if held:
                steps.append((held["episode"], held["step"]))
            time.sleep(0.5)
        assert d.p.wait(timeout=60) == 0, d.text()[-2000:]
        recs = _records(out)
        assert len(recs) == 2 and {r["host"] for r in recs} == {"wdev"}
        assert {e for e, _ in steps} <= {r["episode_id"] for r in recs} and steps
        assert any(b > a for (e1, a), (e2, b) in zip(steps, steps[1:]) if e1 == e2)  # steps advance
    finally:
        page.stop()
        w.stop()


def test_ctrl_c_with_an_episode_in_flight_drains_it_then_leaves(joined: dict[str, Any], model: HeldModel) -> None:
    w3 = _join(joined, "w3")
    out = joined["root"] / "drained"
    model.hold()
    try:
        driver = _held_run(joined, model, out, limit=5)
        model.wait_waiting(3, alive=lambda: driver.p.poll() is None)  # head, w2 and w3: one episode each
        procs = w3.look()
        assert any(name == "raylet" for name, _ in procs.values())
        w3.ctrl_c()
        w3.wait_for(LEAVING, 120)
        assert model.held and w3.p.poll() is None  # it waits: its episode cannot have ended
    finally:
        model.release()
    assert w3.p.wait(timeout=300) == 0, w3.text()[-2000:]
    lines = w3.lines()
    assert len(lines) == 2 and lines[0].startswith(LEAVING), w3.text()[-2000:]
    drained = _in_flight(lines[0])
    assert list(drained.values()) == ["default/sim"], lines[0]  # its one page, named with its episode
    assert lines[1] == "left the cluster", w3.text()[-2000:]  # drained and closed, nothing else
    assert wait_gone(procs) == {}  # the worker's Ray node went with it

    assert driver.p.wait(timeout=300) == 0, driver.text()[-2000:]
    recs = _records(out)
    ids = [r["episode_id"] for r in recs]
    assert len(ids) == len(set(ids)) == 5 and all(r["error_kind"] is None for r in recs)  # nothing lost
    (ep,) = drained
    on_w3 = [r for r in recs if r["host"] == "w3"]
    # the episode in flight finished where it was, once; w3 took nothing after Ctrl-C (an episode
    # the driver offered it then was moved: attempts 2, from w3's page)
    assert [(r["episode_id"], r["attempts"]) for r in on_w3] == [(ep, 1)]
    assert all(r["host"] != "w3" and r["attempts"] == 2 for r in recs if (r["retried_from"] or "").startswith("w3/"))


def test_a_second_stop_leaves_at_once_and_a_killed_worker_loses_nothing(joined: dict[str, Any],
                                                                        model: HeldModel) -> None:
    w4 = _join(joined, "w4")
    out = joined["root"] / "abandoned"
    model.hold()
    try:
        driver = _held_run(joined, model, out, limit=3)
        model.wait_waiting(3, alive=lambda: driver.p.poll() is None)
        procs = w4.look()
        w4.sigterm()  # a service manager's stop: every process of the group gets it
        w4.wait_for(LEAVING, 120)
        w4.ctrl_c()  # the second stop: leave now
        assert w4.p.wait(timeout=120) == 130, w4.text()[-2000:]
        assert model.held  # it left while its episode was still waiting for the model
        assert wait_gone(procs) == {}
    finally:
        model.release()
    lines = w4.lines()
    assert len(lines) == 2 and lines[0].startswith(LEAVING), w4.text()[-2000:]
    (ep, page), = _in_flight(lines[0]).items()
    assert lines[-1].startswith("left the cluster at once (second Ctrl-C while waiting for the episodes in "
                                f"flight): 1 episode(s) left leased on host w4: {ep} on {page}; "), lines[-1]
    assert "are released as this node stops, and drivers move those episodes to another host" in lines[-1]
    assert driver.p.wait(timeout=300) == 0, driver.text()[-2000:]
    recs = {r["episode_id"]: r for r in _records(out)}
    assert len(recs) == 3 and all(r["error_kind"] is None for r in recs.values())
    moved = recs[ep]
    assert (moved["host"] != "w4", moved["attempts"], moved["retried_from"]) == (True, 2, "w4/default/sim")

    # SIGKILL of a worker (no chance to drain): its node goes with it, the driver moves the episode
    w5 = _join(joined, "w5")
    out = joined["root"] / "killed"
    model.hold()
    try:
        driver = _held_run(joined, model, out, limit=3)
        model.wait_waiting(3, alive=lambda: driver.p.poll() is None)
        procs = w5.look()
        w5.p.kill()
        assert w5.p.wait(timeout=60) == -signal.SIGKILL
        assert wait_gone(procs) == {}  # nothing of its Ray node outlives it
    finally:
        model.release()
    assert driver.p.wait(timeout=300) == 0, driver.text()[-2000:]
    recs = {r["episode_id"]: r for r in _records(out)}
    assert len(recs) == 3 and all(r["error_kind"] is None for r in recs.values())
    assert [(r["attempts"], r["retried_from"]) for r in recs.values() if r["attempts"] > 1] == [(2, "w5/default/sim")]
    assert "w5" not in {r["host"] for r in recs.values()}


def test_sigint_leaves_cleanly_and_a_shortage_is_one_line(joined: dict[str, Any]) -> None:
    w2 = joined["w2"]
    procs = w2.look()
    w2.ctrl_c()
    assert w2.p.wait(timeout=120) == 0, w2.text()[-2000:]
    assert w2.lines() == [f"{LEAVING} 0 in flight: none (Ctrl-C again leaves at once)", "left the cluster"]
    assert wait_gone(procs) == {}

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
