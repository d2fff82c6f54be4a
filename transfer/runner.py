"""Executing episode specs: each episode's attempts on leased backends, and the executors that run many.

Episodes are serializable work units (:class:`EpisodeSpec`) handed to an executor. The
local executor runs them on a thread pool over backends it leases (sim phones from the page
pool, devices from the farm); a distributed executor (e.g. Ray) can take the same units. One
episode is played by :func:`~transfer.policy_episode.run_episode` (a policy on the one episode
loop, :mod:`transfer.episode_loop`); how a run executes them is its :class:`RunConfig`.
An infrastructure error (a crashed page, a lost phone) is retried up to ``max_attempts`` on
a fresh backend and counted apart; it is never charged to the policy. A model server that is
down (refused, reset, timed out, 5xx, 429 after the adapter's retries) is infrastructure too,
but of the policy server (:class:`PolicyServerOutage`): the episode is recorded at once with
``infra_source="policy_server"``, the phone is neither blamed nor swapped, and after
``max_policy_outages`` such episodes in a row the run stops (:class:`PolicyServerDown`) with every
finished episode kept for ``--resume``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from concurrent.futures import CancelledError, ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from typing import Any, Protocol

from pydantic import BaseModel

from actionmap.env import Env
from actionmap.errors import (InfraError, PolicyServerDown, PolicyServerError, PolicyServerOutage,
                              SetupUnsupported, StateReadFailed)
from device import farmstatus

from .policies.base import BasePolicy
from .policy_episode import run_episode
from .records import EpisodeRecord, episode_key
from .runconfig import DEFAULT_MAX_POLICY_OUTAGES, RunConfig
from .rundir import RunDir

__all__ = ["DEFAULT_MAX_POLICY_OUTAGES", "Backend", "EpisodeSpec", "Executor", "InfraError", "Lease", "LocalExecutor",
           "PolicyServerDown", "PolicyServerError", "PolicyServerOutage", "RunConfig", "SetupUnsupported",
           "StateReadFailed", "expand", "run_episode", "run_with_retries"]


class EpisodeSpec(BaseModel):
    """A unit of work: everything needed to run one episode anywhere."""

    policy: str
    policy_spec: str
    task_id: str
    seed: int
    repeat: int = 0
    backend: str = "sim"
    target: str = "default/sim"
    split: str = ""

    @property
    def episode_id(self) -> str:
        return episode_key(self.policy, self.task_id, self.seed, self.backend, self.target, self.repeat)


class Backend(Protocol):
    """A leased environment plus what the record says about it."""

    env: Env
    info: dict[str, Any]


@dataclass
class Lease:
    env: Any
    info: dict[str, Any] = field(default_factory=dict)
    release: Callable[[bool], None] = lambda broken: None


def run_with_retries(spec: EpisodeSpec, rundir: RunDir, lease: Callable[[EpisodeSpec], Lease],
                     instance_of: Callable[[EpisodeSpec], Any], policy_of: Callable[[EpisodeSpec], BasePolicy],
                     config: RunConfig | None = None, stop: threading.Event | None = None) -> EpisodeRecord:
    """One episode with its attempts: the unit every executor runs (this machine's thread pool,
    or a cluster host's actor), so an episode is retried and recorded the same way everywhere.

    Each attempt leases a backend (``lease(spec)``; a fresh phone or page after an
    :class:`InfraError`, whose lease is released as broken), up to ``config.max_attempts``; the
    record counts them in ``attempts`` and names the backend it moved off in ``retried_from``. A
    setup the backend cannot reproduce (:class:`SetupUnsupported`) and a policy server that does
    not answer (:class:`PolicyServerOutage`) are recorded at once, without another attempt. Traces
    go to ``rundir.traces / episode_id`` when ``config.traces``. ``stop`` set before an attempt starts raises
    :class:`KeyboardInterrupt` (the run is stopping). Nothing is appended to ``rundir``: the
    caller is the run directory's one writer.
    """
    config = config or RunConfig()
    max_attempts = config.max_attempts
    inst = instance_of(spec)
    last_err = ""
    moved_from: str | None = None
    for attempt in range(1, max_attempts + 1):
        if stop is not None and stop.is_set():
            raise KeyboardInterrupt
        leased = lease(spec)
        farmstatus.hold(leased.info, spec, rundir.path, attempt)  # for the farm page (s2r farm serve)
        broken = False
        try:
            policy = policy_of(spec)
            trace = rundir.traces / spec.episode_id if config.traces else None
            rec = run_episode(leased.env, policy, inst, spec, backend_info=leased.info, trace_dir=trace, config=config)
            rec.attempts = attempt
            rec.retried_from = moved_from
            return rec
        except SetupUnsupported as e:
            return _not_played(spec, inst, attempt, moved_from, leased.info,
                               error=f"setup unsupported on this backend: {e}"[:500], error_kind="unsupported")
        except PolicyServerOutage as e:
            # another phone would wait on the same server: record it now, keep the phone
            return _not_played(spec, inst, attempt, moved_from, leased.info, error=str(e), error_kind="infra",
                               infra_source="policy_server", steps=e.steps)
        except InfraError as e:
            broken = True
            last_err = str(e)
            moved_from = leased.info.get("serial") or leased.info.get("target")
        finally:
            farmstatus.release(leased.info)
            leased.release(broken)
    return _not_played(spec, inst, max_attempts, moved_from, None, error=last_err[:500], error_kind="infra",
                       infra_source="phone" if spec.backend == "device" else "sim")


def _not_played(spec: EpisodeSpec, inst: Any, attempts: int, moved_from: str | None,
                backend_info: dict[str, Any] | None, **fields: Any) -> EpisodeRecord:
    """The record of an episode that ended in an error before it could be judged (``fields``: the
    error). ``backend_info``: the backend it stopped on, named (with the task's difficulty) when
    the episode ended there — not after its attempts ran out."""
    on = {} if backend_info is None else {
        "device_serial": backend_info.get("serial"), "device_model": backend_info.get("model"),
        "flavor": backend_info.get("flavor"), "difficulty": getattr(inst, "difficulty", None)}
    return EpisodeRecord(episode_id=spec.episode_id, policy=spec.policy, policy_spec=spec.policy_spec,
                         task_id=spec.task_id, seed=spec.seed, repeat=spec.repeat, split=spec.split,
                         backend=spec.backend, target=spec.target, terminated_by="error", attempts=attempts,
                         retried_from=moved_from, instruction=getattr(inst, "instruction", ""), **on, **fields)


class Executor(Protocol):
    def run(self, specs: list[EpisodeSpec], rundir: RunDir) -> list[EpisodeRecord]: ...


class LocalExecutor:
    """Runs specs on a thread pool; ``lease(spec)`` provides a backend for each attempt."""

    def __init__(self, lease: Callable[[EpisodeSpec], Lease], instance_of: Callable[[EpisodeSpec], Any],
                 policy_of: Callable[[EpisodeSpec], BasePolicy], workers: int | dict[str, int] = 2,
                 config: RunConfig | None = None, progress: bool = True, **settings: Any):
        """``workers``: episodes in flight — one number for all backends, or one per backend
        (``{"sim": 2, "device": 3}``). Per-backend pools keep each backend busy on its own: a
        device episode waiting for a free phone never holds a slot a sim episode could use.
        ``config``: how episodes run (attempts, traces, the policy-outage stop); ``settings``:
        :class:`RunConfig` fields that replace its own (``max_attempts=1, traces=False``)."""
        self.lease, self.instance_of, self.policy_of = lease, instance_of, policy_of
        farmstatus.watch(lease)  # the farm page shows its phones' farm states (paused, quarantined)
        self.workers, self.progress = workers, progress
        base = config or RunConfig()
        self.config = RunConfig.model_validate({**base.model_dump(), **settings}) if settings else base
        self._stop = threading.Event()

    def _one(self, spec: EpisodeSpec, rundir: RunDir) -> EpisodeRecord:
        return run_with_retries(spec, rundir, self.lease, self.instance_of, self.policy_of, self.config,
                                stop=self._stop)

    def run(self, specs: list[EpisodeSpec], rundir: RunDir) -> list[EpisodeRecord]:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        done = rundir.done_ids()
        todo = [s for s in specs if s.episode_id not in done]
        out: list[EpisodeRecord] = []
        with Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                      disable=not self.progress, transient=False) as prog:
            task = prog.add_task("episodes", total=len(specs), completed=len(specs) - len(todo))
            if isinstance(self.workers, dict):
                pools = {b: ThreadPoolExecutor(max_workers=max(1, n), thread_name_prefix=f"ep-{b}")
                         for b, n in self.workers.items()}
                spare = ThreadPoolExecutor(max_workers=max(1, max(self.workers.values(), default=1)))
            else:
                pools, spare = {}, ThreadPoolExecutor(max_workers=max(1, self.workers))
            futs = {pools.get(s.backend, spare).submit(self._one, s, rundir): s for s in todo}
            outages = _OutageRun(self.config.max_policy_outages)
            try:
                for f in as_completed(futs):
                    try:
                        rec = f.result()
                    except (KeyboardInterrupt, CancelledError):
                        if outages.stopped is None:
                            raise
                        continue  # not started: the run is stopping
                    rundir.append(rec)
                    out.append(rec)
                    prog.advance(task)
                    if outages.stopped is None and outages.see(rec):
                        self._stop.set()  # in-flight episodes finish and are kept; the rest wait for --resume
                        for g in futs:
                            g.cancel()
                if outages.stopped is not None:
                    raise outages.stopped
            except KeyboardInterrupt:
                self._stop.set()
                for f in futs:
                    f.cancel()
                raise
            finally:
                for pool in (*pools.values(), spare):
                    pool.shutdown(wait=True, cancel_futures=True)
        return out


class _OutageRun:
    """Counts policy-server outage episodes in a row, per policy (in the order they finish): an
    oracle's episodes between them neither hide a dead server nor reset its count."""

    def __init__(self, limit: int):
        self.limit = limit
        self.count: dict[str, int] = {}
        self.stopped: PolicyServerDown | None = None

    def see(self, rec: EpisodeRecord) -> bool:
        """Record one finished episode; True once the run must stop."""
        key = rec.policy_spec or rec.policy
        if getattr(rec, "infra_source", None) != "policy_server":
            if rec.error_kind != "infra":  # a phone's failure says nothing about the server either way
                self.count[key] = 0
            return False
        n = self.count[key] = self.count.get(key, 0) + 1
        if self.limit and n >= self.limit:
            last = rec.error or ""
            server = last.removeprefix("policy server ").split(": ", 1)[0]
            self.stopped = PolicyServerDown(server, n, last.removeprefix(f"policy server {server}: "))
            return True
        return False


def expand(policies: dict[str, str], task_ids: Iterable[str], seeds: Iterable[int], repeats: int,
           targets: list[tuple[str, str]], split: str) -> list[EpisodeSpec]:
    """The full cross product of (policy × task × seed × backend target × repeat)."""
    out = []
    for pname, pspec in policies.items():
        for tid in task_ids:
            for seed in seeds:
                for backend, target in targets:
                    for r in range(repeats):
                        out.append(EpisodeSpec(policy=pname, policy_spec=pspec, task_id=tid, seed=seed, repeat=r,
                                               backend=backend, target=target, split=split))
    return out
