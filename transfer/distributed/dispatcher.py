"""Engine-neutral accounting of a run spread over hosts (no Ray import: testable alone).

Rules it enforces, whatever carries the work:

* **At most once per attempt**: an episode is sent to one host; the engine never re-runs it by
  itself (a rerun could repeat a side effect on a real phone). Only this dispatcher moves it.
* **Exactly-once records**: the driver is the only writer. A result is accepted only from the
  host and ticket it was sent to while that host is up; a late result from a host declared lost
  is dropped. Traces are written before the record is appended.
* **Lost hosts**: an actor death, node death, lost object or a passed per-episode deadline marks
  the host down and moves the episode to another host, counted in ``attempts`` with
  ``retried_from = "HOST/PHONE"``: the engine reports the phone (or sim page) an attempt took
  when it starts (:class:`Started`), before anything runs, so a host lost mid-episode still
  names it (``HOST/TARGET`` if it was lost before it took one). A phone/sim infrastructure
  error that the host could not absorb moves the episode the same way. Neither is charged to
  the policy.
* **Capacity**: at most as many episodes in flight per host and backend as it has phones or pages.
* **Shortage**: when no host can take the episodes left (all lost, none joined back) for
  ``host_wait_s``, the run stops with one line naming the lost hosts and the fix
  (:class:`NoUsableHosts`); what was recorded stays for ``--resume``.
"""

from __future__ import annotations

import sys
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from ..records import EpisodeRecord
from ..runner import EpisodeSpec, _OutageRun
from ..rundir import RunDir
from ..session import NoUsableDevices

LOST_KINDS = ("actor_died", "node_died", "object_lost", "deadline", "leaving")


class HostLost(Exception):
    """A host stopped answering for one episode: ``kind`` is one of :data:`LOST_KINDS`."""

    def __init__(self, kind: str, detail: str = ""):
        super().__init__(f"{kind}: {detail}"[:300])
        self.kind, self.detail = kind, detail


class NoUsableHosts(NoUsableDevices):
    """No host can take the run's episodes (none joined, versions differ, no usable phone):
    the message names the hosts and the fix."""


@dataclass
class HostInfo:
    """What a host says about itself. ``key`` names one incarnation (a re-added host with the
    same name is a new key); ``capacity``: episodes it can run at once per backend."""

    name: str
    key: str
    capacity: dict[str, int]
    versions: dict[str, str] = field(default_factory=dict)
    error: str | None = None


@dataclass
class Started:
    """An attempt took its phone (or sim page) and is running: ``phone`` is its serial or target.
    The handle stays in flight; its :class:`Result` or :class:`HostLost` comes later."""

    phone: str | None


@dataclass
class Result:
    """One finished attempt on a host: the record (as a dict) and its trace files."""

    record: dict[str, Any]
    traces: dict[str, bytes] = field(default_factory=dict)


class Engine(Protocol):
    """What carries episodes to hosts. ``wait`` returns handles with news: :class:`Started` once
    (the attempt took its phone; the handle stays in flight), then their :class:`Result` or
    :class:`HostLost`; it must never resubmit anything itself."""

    def hosts(self) -> list[HostInfo]: ...

    def submit(self, host: HostInfo, spec: EpisodeSpec) -> Any: ...

    def wait(self, handles: list[Any], timeout: float) -> list[tuple[Any, Started | Result | HostLost]]: ...

    def cancel(self, handle: Any) -> None: ...


@dataclass
class _Work:
    spec: EpisodeSpec
    prior: int = 0  # attempts already spent on other hosts
    moved_from: str | None = None
    avoid: set[str] = field(default_factory=set)  # host names it failed on


@dataclass
class _Ticket:
    work: _Work
    host: HostInfo
    deadline: float
    phone: str | None = None  # what the attempt took on the host, once it said (Started)


@dataclass
class _HostState:
    info: HostInfo
    up: bool = True
    busy: dict[str, int] = field(default_factory=dict)

    def free(self, backend: str) -> int:
        return self.info.capacity.get(backend, 0) - self.busy.get(backend, 0)


@dataclass
class DispatchStats:
    dispatched: int = 0
    moved: int = 0
    stale_dropped: int = 0
    hosts_lost: list[str] = field(default_factory=list)
    dispatch_s: float = 0.0


def version_problem(driver: dict[str, str], host: HostInfo) -> str | None:
    """A one-line reason to refuse a host whose s2r, Ray or Python version differs, or None."""
    diff = [f"{k} {host.versions.get(k, '?')} (driver: {v})" for k, v in driver.items() if host.versions.get(k) != v]
    if not diff:
        return None
    return (f"host {host.name} refused: it runs " + ", ".join(diff) +
            "; install the same versions on every host and restart `s2r worker` there")


class Dispatcher:
    """Runs specs over an :class:`Engine`'s hosts and writes the run directory (the only writer)."""

    def __init__(self, engine: Engine, *, driver_versions: dict[str, str] | None = None, max_attempts: int = 3,
                 episode_deadline_s: float = 1800.0, refresh_s: float = 2.0, host_wait_s: float = 60.0,
                 max_policy_outages: int = 5, echo: Callable[[str], None] | None = None,
                 clock: Callable[[], float] = time.monotonic, join_address: str = "HEAD:PORT"):
        """``join_address``: the cluster address the shortage message tells a new host to join."""
        self.engine = engine
        self.driver_versions = driver_versions or {}
        self.max_attempts, self.deadline_s = max_attempts, episode_deadline_s
        self.refresh_s, self.host_wait_s, self.max_policy_outages = refresh_s, host_wait_s, max_policy_outages
        self.echo = echo or (lambda m: print(m, file=sys.stderr, flush=True))
        self.clock, self.join_address = clock, join_address
        self.lost_why: dict[str, str] = {}  # host name -> why it was declared lost (the latest)
        self.hosts: dict[str, _HostState] = {}  # by incarnation key
        self.refused: dict[str, str] = {}
        self.stats = DispatchStats()
        self._queue: deque[_Work] = deque()
        self._tickets: dict[Any, _Ticket] = {}

    # ------------------------------------------------------------------ hosts
    def refresh_hosts(self) -> None:
        """Adopt hosts that joined (or came back as a new incarnation); refuse mismatched ones."""
        for info in self.engine.hosts():
            if info.key in self.hosts or info.key in self.refused:
                continue
            why = info.error or version_problem(self.driver_versions, info)
            if why is None and not any(v > 0 for v in info.capacity.values()):
                why = (f"host {info.name} has no usable phone or page; attach a phone (or pass --sim) "
                       "and restart `s2r worker` there")
            if why:
                self.refused[info.key] = why
                self.echo(why)
                continue
            self.hosts[info.key] = _HostState(info)

    def mark_down(self, key: str, why: str) -> None:
        """The host is lost: every episode in flight there moves now; what it sends later is void."""
        st = self.hosts.get(key)
        if st is None or not st.up:
            return
        st.up = False
        self.stats.hosts_lost.append(st.info.name)
        self.lost_why[st.info.name] = why
        self.echo(f"host {st.info.name} lost ({why}); its episodes move to other hosts")
        for handle in [h for h, t in self._tickets.items() if t.host.key == key]:
            t = self._tickets.pop(handle)
            self.engine.cancel(handle)
            self._move(t, t.host.name, self._queue)

    def _pick(self, work: _Work) -> _HostState | None:
        best: _HostState | None = None
        for st in self.hosts.values():
            if not st.up or st.free(work.spec.backend) <= 0:
                continue
            if work.avoid and st.info.name in work.avoid and self._others_up(work):
                continue
            if best is None or st.busy.get(work.spec.backend, 0) < best.busy.get(work.spec.backend, 0):
                best = st
        return best

    def _others_up(self, work: _Work) -> bool:
        return any(st.up and st.info.name not in work.avoid and st.info.capacity.get(work.spec.backend, 0) > 0
                   for st in self.hosts.values())

    def _can_serve(self, backend: str) -> bool:
        return any(st.up and st.info.capacity.get(backend, 0) > 0 for st in self.hosts.values())

    # ------------------------------------------------------------------ the loop
    def run(self, specs: list[EpisodeSpec], rundir: RunDir) -> list[EpisodeRecord]:
        done = rundir.done_ids()
        queue = self._queue = deque(_Work(s) for s in specs if s.episode_id not in done)
        tickets = self._tickets = {}
        out: list[EpisodeRecord] = []
        outages = _OutageRun(self.max_policy_outages)
        self.refresh_hosts()
        last_refresh = self.clock()
        starved_since: float | None = None
        try:
            while queue or tickets:
                if self.clock() - last_refresh >= self.refresh_s:
                    self.refresh_hosts()
                    last_refresh = self.clock()
                if outages.stopped is None:
                    self._fill(queue, tickets)
                if not tickets:
                    if outages.stopped is not None:
                        break
                    starved_since = starved_since or self.clock()
                    if self.clock() - starved_since > self.host_wait_s:
                        raise NoUsableHosts(self._starved_message(queue))
                    time.sleep(min(0.5, self.refresh_s))
                    last_refresh = -1e18  # look for hosts again at once
                    continue
                starved_since = None
                for handle, got in self.engine.wait(list(tickets), timeout=self._wait_timeout(tickets)):
                    if isinstance(got, Started):  # the attempt runs on this phone: kept for retried_from
                        if handle in tickets:
                            tickets[handle].phone = got.phone
                        continue
                    t = tickets.pop(handle, None)
                    if t is None:  # a late result of an episode already moved off a lost host
                        self.stats.stale_dropped += 1
                        continue
                    rec = self._settle(t, got, queue, rundir)
                    if rec is not None:
                        out.append(rec)
                        if outages.stopped is None and outages.see(rec):
                            queue.clear()  # in-flight episodes finish and are kept; the rest wait for --resume
                self._expire(tickets, queue)
        except KeyboardInterrupt:
            for h in tickets:
                self.engine.cancel(h)
            raise
        if outages.stopped is not None:
            raise outages.stopped
        return out

    def _fill(self, queue: deque[_Work], tickets: dict[Any, _Ticket]) -> None:
        t0 = time.perf_counter()
        waiting: list[_Work] = []
        while queue:
            work = queue.popleft()
            st = self._pick(work)
            if st is None:
                waiting.append(work)
                if not any(s.up and s.free(b) > 0 for s in self.hosts.values() for b in s.info.capacity):
                    break  # every slot is taken: the rest waits as it is
                continue
            handle = self.engine.submit(st.info, work.spec)
            st.busy[work.spec.backend] = st.busy.get(work.spec.backend, 0) + 1
            tickets[handle] = _Ticket(work, st.info, self.clock() + self.deadline_s)
            self.stats.dispatched += 1
        queue.extendleft(reversed(waiting))
        self.stats.dispatch_s += time.perf_counter() - t0

    def _wait_timeout(self, tickets: dict[Any, _Ticket]) -> float:
        soonest = min(t.deadline for t in tickets.values()) - self.clock()
        return max(0.0, min(self.refresh_s, soonest))

    def _expire(self, tickets: dict[Any, _Ticket], queue: deque[_Work]) -> None:
        now = self.clock()
        for handle in [h for h, t in tickets.items() if t.deadline <= now]:
            t = tickets.pop(handle)
            self.engine.cancel(handle)
            self._settle(t, HostLost("deadline", f"no result within {self.deadline_s:.0f}s"), queue, None)

    def _release(self, t: _Ticket) -> _HostState | None:
        st = self.hosts.get(t.host.key)
        if st is not None:
            st.busy[t.work.spec.backend] = max(0, st.busy.get(t.work.spec.backend, 0) - 1)
        return st

    def _settle(self, t: _Ticket, got: Result | HostLost, queue: deque[_Work],
                rundir: RunDir | None) -> EpisodeRecord | None:
        """One finished handle: accept, move, or drop it. Returns the record appended, if any."""
        st = self._release(t)
        if isinstance(got, HostLost):
            self._move(t, t.host.name, queue)
            self.mark_down(t.host.key, _WHY.get(got.kind, got.kind))  # and the rest of its episodes with it
            return None
        if st is None or not st.up:  # cannot happen while mark_down moves all: kept as a guard
            self.stats.stale_dropped += 1
            self._move(t, t.host.name, queue)
            return None
        rec = EpisodeRecord.model_validate(got.record)
        if rec.episode_id != t.work.spec.episode_id:
            self.stats.stale_dropped += 1
            self._move(t, None, queue)
            return None
        rec.host = t.host.name
        rec.attempts = t.work.prior + rec.attempts
        if t.work.moved_from is not None:
            rec.retried_from = t.work.moved_from
        if (rec.error_kind == "infra" and rec.infra_source in ("phone", "sim")
                and rec.attempts < self.max_attempts and self._others_up(t.work)):
            t.work.avoid.add(t.host.name)
            self._move(t, f"{t.host.name}/{rec.retried_from or rec.device_serial or rec.target}", queue,
                       spent=rec.attempts - t.work.prior, record_host=False)
            return None
        if rundir is not None:
            self._write(rundir, rec, got.traces)
        return rec

    def _move(self, t: _Ticket, lost_host: str | None, queue: deque[_Work], spent: int = 1,
              record_host: bool = True) -> None:
        """Put the episode back at the head of the queue; ``spent`` attempts are counted."""
        w = t.work
        w.prior += spent
        if lost_host is not None:
            w.moved_from = f"{lost_host}/{t.phone or w.spec.target}" if record_host else lost_host
            w.avoid.add(t.host.name)
        self.stats.moved += 1
        queue.appendleft(w)

    @staticmethod
    def _write(rundir: RunDir, rec: EpisodeRecord, traces: dict[str, bytes]) -> None:
        if traces:
            base = rundir.traces / rec.episode_id
            for rel, data in traces.items():
                p = (base / rel).resolve()
                if base.resolve() not in p.parents:
                    continue  # a trace file names a path inside its own directory only
                p.parent.mkdir(parents=True, exist_ok=True)
                p.write_bytes(data)
        rundir.append(rec)

    def _starved_message(self, queue: deque[_Work]) -> str:
        """One line: which episodes cannot run, which hosts are gone and why, and the fix."""
        backends = sorted({w.spec.backend for w in queue})
        up = sorted({st.info.name for st in self.hosts.values() if st.up})
        lost = sorted({st.info.name for st in self.hosts.values() if not st.up} - set(up))
        parts = [f"no host can run {'/'.join(backends)} episodes after {self.host_wait_s:.0f}s"]
        said = [f"{n} lost ({self.lost_why.get(n, 'lost')})" for n in lost]
        lacks = " or ".join("phone" if b == "device" else "sim page" for b in backends)
        said += [f"{n} has no {lacks}" for n in up]
        if not self.hosts and not self.refused:
            said.append("no host joined")
        head = parts[0] + ": " + ", ".join(said) if said else parts[0]
        what = "--device all" if "device" in backends else "--sim PAGES"
        return "; ".join([head, *self.refused.values(),
                          f"start `s2r worker --address {self.join_address} {what}` on a "
                          f"{'phone host' if 'device' in backends else 'host'}, then rerun the same command "
                          "with --resume"])


#: How a lost host's reason reads in messages.
_WHY = {"node_died": "node died", "actor_died": "actor died", "object_lost": "result lost",
        "deadline": "no result within the episode deadline", "leaving": "its worker is leaving"}


def trace_files(trace_dir: Path) -> dict[str, bytes]:
    """A finished episode's trace directory as ``{relative path: bytes}`` (what travels back)."""
    if not trace_dir.is_dir():
        return {}
    return {str(p.relative_to(trace_dir)): p.read_bytes() for p in sorted(trace_dir.rglob("*")) if p.is_file()}
