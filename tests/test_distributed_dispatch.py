"""The cluster dispatcher's accounting without any engine: injected actor deaths, node-down
events, stale results, passed deadlines, unsupported setups, refused hosts and re-added hosts.

The fake engine runs each submitted episode at once and answers ``wait`` from a script (first
the phone the attempt took, as a host's ``lease`` call does, then the outcome), so every rule
the dispatcher promises (exactly-once records, moved episodes counted in ``attempts`` with
``retried_from`` naming the lost host and phone, capacity per host, a one-line stop when every
host is gone) is checked exactly.
"""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from transfer.distributed.dispatcher import (Dispatcher, HostInfo, HostLost, NoUsableHosts, Result, Started,
                                             version_problem)
from transfer.records import EpisodeRecord
from transfer.rundir import RunDir
from transfer.runner import EpisodeSpec, expand

V = {"s2r": "0.1.0", "ray": "2.60.0", "python": "3.11.9"}
Script = Callable[[HostInfo, EpisodeSpec, int], "Result | HostLost | None"]


def _record(spec: EpisodeSpec, **kw: Any) -> dict[str, Any]:
    fields: dict[str, Any] = {"success": True, "terminated_by": "complete", "steps": 2,
                              "trace_path": f"traces/{spec.episode_id}", **kw}
    return EpisodeRecord(episode_id=spec.episode_id, policy=spec.policy, policy_spec=spec.policy_spec,
                         task_id=spec.task_id, seed=spec.seed, backend=spec.backend,  # type: ignore[arg-type]
                         target=spec.target, **fields).model_dump(mode="json")


def ok(host: HostInfo, spec: EpisodeSpec, n: int) -> Result:
    return Result(_record(spec, device_serial=f"{host.name}-phone"), {"steps.jsonl": b"{}\n"})


class FakeEngine:
    """Hosts by incarnation; ``script(host, spec, n)`` gives each attempt's outcome (None: it
    never answers). Each attempt first reports the phone it took (``HOST-pN``, N its submit
    number: kept in ``phones``) unless the outcome is a :class:`HostLost` marked ``early`` (the
    host died before taking one). Tracks episodes in flight per host to check capacity."""

    def __init__(self, hosts: list[HostInfo], script: Script = ok):
        self.host_list, self.script = list(hosts), script
        self.ids = itertools.count()
        self.pending: dict[int, tuple[HostInfo, Result | HostLost | None]] = {}
        self.inflight: dict[str, int] = {}
        self.peak: dict[str, int] = {}
        self.cancelled: list[int] = []
        self._phone: dict[int, str] = {}
        self.submitted: list[tuple[str, str]] = []
        self.unstarted: set[int] = set()
        self.phones: dict[str, list[str]] = {}  # episode id -> the phones its attempts took

    def hosts(self) -> list[HostInfo]:
        return list(self.host_list)

    def submit(self, host: HostInfo, spec: EpisodeSpec) -> int:
        h = next(self.ids)
        self.submitted.append((host.name, spec.episode_id))
        got = self.pending[h] = (host, self.script(host, spec, len(self.submitted)))
        if not getattr(got[1], "early", False):
            self.unstarted.add(h)
            self.phones.setdefault(spec.episode_id, []).append(f"{host.name}-p{len(self.submitted)}")
        self._phone[h] = f"{host.name}-p{len(self.submitted)}"
        self.inflight[host.key] = self.inflight.get(host.key, 0) + 1
        self.peak[host.key] = max(self.peak.get(host.key, 0), self.inflight[host.key])
        return h

    def wait(self, handles: list[int], timeout: float) -> list[tuple[int, Started | Result | HostLost]]:
        out: list[tuple[int, Started | Result | HostLost]] = []
        for h in handles:
            if h in self.unstarted:  # news of the phone first; the outcome on a later wait
                self.unstarted.discard(h)
                out.append((h, Started(self._phone[h])))
                continue
            host, got = self.pending[h]
            if got is not None:
                out.append((h, got))
                self._done(h, host)
        return out

    def _done(self, h: int, host: HostInfo) -> None:
        del self.pending[h]
        self.inflight[host.key] -= 1

    def cancel(self, handle: int) -> None:
        self.cancelled.append(handle)
        if handle in self.pending:
            self._done(handle, self.pending[handle][0])


def host(name: str, sim: int = 2, device: int = 2, key: str | None = None, **kw: Any) -> HostInfo:
    return HostInfo(name=name, key=key or name, capacity={"sim": sim, "device": device}, versions=dict(V), **kw)


def specs(n_tasks: int = 6) -> list[EpisodeSpec]:
    return expand({"base": "random:7", "trained": "oracle"}, [f"t{i}" for i in range(n_tasks)], [0], 1,
                  [("sim", "default/sim"), ("device", "farm")], "real59")


def run(engine: FakeEngine, rd: RunDir, **kw: Any) -> tuple[Dispatcher, list[EpisodeRecord]]:
    kw = {"refresh_s": 0.01, **kw}
    d = Dispatcher(engine, driver_versions=dict(V), host_wait_s=0.5, echo=lambda m: None, **kw)
    return d, d.run(specs(), rd)


@pytest.fixture
def rd(tmp_path: Path) -> RunDir:
    r = RunDir(tmp_path / "run")
    r.init({"policies": {}}, resume=False)
    return r


def lines(rd: RunDir) -> list[dict[str, Any]]:
    return [json.loads(x) for x in rd.episodes_path.read_text().splitlines()]


def test_every_episode_once_on_both_hosts_within_capacity(rd: RunDir) -> None:
    eng = FakeEngine([host("a", sim=1, device=1), host("b", sim=2, device=1)])
    _, recs = run(eng, rd)
    got = lines(rd)
    assert len(got) == len({r["episode_id"] for r in got}) == len(specs()) == 24
    assert {r["host"] for r in got} == {"a", "b"}
    assert all(r["attempts"] == 1 and r["retried_from"] is None for r in got)
    assert eng.peak["a"] <= 2 and eng.peak["b"] <= 3  # never more than its phones + pages
    for r in got:  # the trace is written before its record
        assert (rd.path / r["trace_path"] / "steps.jsonl").read_bytes() == b"{}\n"


def test_actor_death_moves_every_episode_in_flight_and_drops_late_results(rd: RunDir) -> None:
    # a's first episode finds its actor dead; its other episode in flight would answer later
    def script(h: HostInfo, spec: EpisodeSpec, n: int) -> Result | HostLost:
        if h.name == "a" and n == 1:
            return HostLost("actor_died", "ActorDiedError")
        return ok(h, spec, n)

    eng = FakeEngine([host("a"), host("b")], script)
    d, _ = run(eng, rd)
    got = lines(rd)
    assert len(got) == len({r["episode_id"] for r in got}) == 24
    moved = [r for r in got if r["attempts"] == 2]
    # the lost host AND the phone the episode had taken there
    assert moved and all(r["retried_from"] == f"a/{eng.phones[r['episode_id']][0]}" and r["host"] == "b"
                         for r in moved)
    assert all(eng.phones[r["episode_id"]][0].startswith("a-p") for r in moved)
    assert d.stats.hosts_lost == ["a"]
    assert all(r["error_kind"] is None for r in got)  # nothing charged to a policy
    # a's other episodes in flight at its death were cancelled, not written when they answer
    assert eng.cancelled and len(moved) == 1 + len(eng.cancelled)


def test_node_down_mid_run_moves_its_episodes_and_a_readded_host_gets_work(rd: RunDir) -> None:
    eng = FakeEngine([host("a"), host("b")])
    calls = {"n": 0}

    def script(h: HostInfo, spec: EpisodeSpec, n: int) -> Result | HostLost:
        calls["n"] += 1
        if h.name == "b" and h.key == "b" and calls["n"] > 6:
            return HostLost("node_died", "node b died")
        if calls["n"] == 10:  # b comes back as a new incarnation (a re-added host)
            eng.host_list = [host("a"), host("b", key="b#2")]
        return ok(h, spec, n)

    eng.script = script
    # hosts are looked up every round (refresh_s=0), so the re-added b is seen at the round after
    # it appears, however fast or loaded the machine (with a timed refresh, a quick run could hand
    # every remaining episode to a before the next lookup)
    d, _ = run(eng, rd, refresh_s=0.0)
    got = lines(rd)
    assert len(got) == len({r["episode_id"] for r in got}) == 24
    moved = [r for r in got if r["attempts"] == 2]
    assert moved and all(r["retried_from"] == f"b/{eng.phones[r['episode_id']][0]}" for r in moved)
    assert d.stats.hosts_lost == ["b"]
    assert any(name == "b" and eid in {r["episode_id"] for r in got}
               for name, eid in eng.submitted[12:])  # the re-added b ran episodes again


def test_deadline_marks_host_down_and_its_late_result_is_void(rd: RunDir) -> None:
    now = [0.0]

    def script(h: HostInfo, spec: EpisodeSpec, n: int) -> Result | None:
        if h.name == "slow":
            now[0] += 100.0  # the clock moves past every deadline while it hangs
            return None
        return ok(h, spec, n)

    eng = FakeEngine([host("slow", sim=1, device=1), host("fast")], script)
    d, _ = run(eng, rd, episode_deadline_s=50.0, clock=lambda: now[0])
    got = lines(rd)
    assert len(got) == len({r["episode_id"] for r in got}) == 24
    assert {r["host"] for r in got} == {"fast"}
    assert d.stats.hosts_lost == ["slow"]
    moved = [r for r in got if r["attempts"] == 2]
    assert len(moved) == 2 and all(r["retried_from"] == f"slow/{eng.phones[r['episode_id']][0]}" for r in moved)


def test_phone_infra_error_moves_to_another_host_but_unsupported_and_policy_server_do_not(rd: RunDir) -> None:
    def script(h: HostInfo, spec: EpisodeSpec, n: int) -> Result:
        if spec.task_id == "t0" and spec.backend == "device" and h.name == "a":
            return Result(_record(spec, error_kind="infra", infra_source="phone", error="adb gone", attempts=1,
                                  retried_from="emu-1", success=None, terminated_by="error"))
        if spec.task_id == "t1" and spec.backend == "device":
            return Result(_record(spec, error_kind="unsupported", error="no clock API", success=None,
                                  terminated_by="error"))
        if spec.task_id == "t2" and spec.policy == "base":
            return Result(_record(spec, error_kind="infra", infra_source="policy_server", success=None,
                                  terminated_by="error", error="policy server x: refused"))
        return ok(h, spec, n)

    eng = FakeEngine([host("a", device=1), host("b", device=0)] + [host("c", sim=0, device=1)], script)
    d, _ = run(eng, rd)
    got = {(r["task_id"], r["policy"], r["backend"]): r for r in lines(rd)}
    assert len(got) == 24
    moved = [r for r in lines(rd) if r["task_id"] == "t0" and r["backend"] == "device" and r["attempts"] == 2]
    assert all(r["retried_from"] == "a/emu-1" and r["host"] == "c" and r["error_kind"] is None for r in moved)
    assert moved  # at least one t0 device episode went to a first
    assert all(got[("t1", p, "device")]["error_kind"] == "unsupported" and got[("t1", p, "device")]["attempts"] == 1
               for p in ("base", "trained"))  # recorded once: retrying cannot help
    assert got[("t2", "base", "sim")]["infra_source"] == "policy_server"  # the phone is not blamed
    assert d.stats.hosts_lost == []


def test_resume_skips_recorded_episodes(rd: RunDir) -> None:
    first = specs()[:5]
    for s in first:
        rd.append(EpisodeRecord.model_validate(_record(s)))
    eng = FakeEngine([host("a")])
    run(eng, rd)
    ids = [r["episode_id"] for r in lines(rd)]
    assert len(ids) == len(set(ids)) == 24
    assert not {eid for _, eid in eng.submitted} & {s.episode_id for s in first}


def test_refused_hosts_name_both_versions_and_no_host_is_one_line(rd: RunDir) -> None:
    old = host("old")
    old.versions = {**V, "ray": "2.9.0"}
    why = version_problem(V, old)
    assert why == ("host old refused: it runs ray 2.9.0 (driver: 2.60.0); install the same versions on every "
                   "host and restart `s2r worker` there")
    empty = host("bare", sim=0, device=0)
    with pytest.raises(NoUsableHosts) as e:
        run(FakeEngine([old, empty]), rd)
    msg = str(e.value)
    assert "\n" not in msg and "host old refused" in msg and "host bare has no usable phone" in msg
    assert not rd.episodes_path.exists()  # nothing a resume could not continue


def test_dispatch_overhead_with_64_hosts(tmp_path: Path) -> None:
    """The driver's own cost per episode (placing, settling, accounting) with 64 hosts."""

    class Sink(RunDir):
        def append(self, rec: EpisodeRecord) -> None:  # the file write is measured apart
            self.n = getattr(self, "n", 0) + 1

    rd = Sink(tmp_path / "x")
    rd.init({}, resume=False)
    many = expand({"p": "oracle"}, [f"t{i}" for i in range(500)], range(4), 1, [("sim", "default/sim")], "s")
    eng = FakeEngine([host(f"h{i:02d}", sim=4, device=0) for i in range(64)],
                     lambda h, s, n: Result({"episode_id": s.episode_id, "policy": s.policy, "task_id": s.task_id,
                                             "seed": s.seed, "backend": "sim", "success": True}))
    d = Dispatcher(eng, driver_versions=dict(V), echo=lambda m: None)
    t0 = time.perf_counter()
    d.run(many, rd)
    per_ep_ms = (time.perf_counter() - t0) / len(many) * 1e3
    print(f"dispatch overhead with 64 hosts: {per_ep_ms:.3f} ms/episode over {len(many)} episodes")
    assert rd.n == 2000 and per_ep_ms <= 5.0


def test_host_lost_before_its_attempt_took_a_phone_names_the_target(rd: RunDir) -> None:
    """A host that dies before it names a phone: ``retried_from`` says where the episode was aimed."""
    def script(h: HostInfo, spec: EpisodeSpec, n: int) -> Result | HostLost:
        if h.name == "a" and n == 1:
            lost = HostLost("actor_died", "died while leasing")
            lost.early = True  # type: ignore[attr-defined]
            return lost
        return ok(h, spec, n)

    eng = FakeEngine([host("a"), host("b")], script)
    run(eng, rd)
    first = specs()[0]
    rec = next(r for r in lines(rd) if r["episode_id"] == first.episode_id)
    assert rec["attempts"] == 2 and rec["retried_from"] == f"a/{first.target}" and rec["host"] == "b"


def test_every_host_lost_mid_run_stops_with_one_line_and_resume_continues(rd: RunDir) -> None:
    """All hosts gone and none back within the wait: one line naming each lost host, why, and the
    fix; the episodes recorded so far stay, and ``--resume`` on a host that joined finishes the run."""
    def script(h: HostInfo, spec: EpisodeSpec, n: int) -> Result | HostLost:
        if n > 4:
            return HostLost("node_died" if h.name == "a" else "actor_died", f"{h.name} went away")
        return ok(h, spec, n)

    eng = FakeEngine([host("a", sim=1, device=1), host("b", sim=1, device=1)], script)
    d = Dispatcher(eng, driver_versions=dict(V), refresh_s=0.01, host_wait_s=0.2, echo=lambda m: None,
                   join_address="10.1.2.3:6379")
    t0 = time.monotonic()
    with pytest.raises(NoUsableHosts) as e:
        d.run(specs(), rd)
    assert time.monotonic() - t0 < 120  # a guard: with a 0.2 s host wait it gives up at once ("after 0s" below)
    backends = "/".join(sorted({s.backend for s in specs()}))
    assert str(e.value) == (f"no host can run {backends} episodes after 0s: a lost (node died), b lost (actor died); "
                            "start `s2r worker --address 10.1.2.3:6379 --device all` on a phone host, then rerun "
                            "the same command with --resume")
    kept = lines(rd)
    assert 1 <= len(kept) <= 4 and all(r["error_kind"] is None for r in kept)  # nothing charged, nothing lost
    # --resume: the same run directory on a host that joined finishes it, without duplicates
    rd2 = RunDir(rd.path)
    rd2.init({"policies": {}}, resume=True)
    eng2 = FakeEngine([host("c")])
    run(eng2, rd2)
    ids = [r["episode_id"] for r in lines(rd2)]
    assert len(ids) == len(set(ids)) == 24
    assert not {eid for _, eid in eng2.submitted} & {r["episode_id"] for r in kept}
