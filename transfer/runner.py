"""Running episodes: one policy, one task instance, one backend → one ``EpisodeRecord``.

Episodes are serializable work units (:class:`EpisodeSpec`) handed to an executor. The
local executor runs them on a thread pool over backends it leases (sim phones from the page
pool, devices from the farm); a distributed executor (e.g. Ray) can take the same units.
An infrastructure error (a crashed page, a lost phone) is retried up to ``max_attempts`` on
a fresh backend and counted apart; it is never charged to the policy. A model server that is
down (refused, reset, timed out, 5xx, 429 after the adapter's retries) is infrastructure too,
but of the policy server: the episode is recorded at once with ``infra_source="policy_server"``,
the phone is neither blamed nor swapped, and after ``max_policy_outages`` such episodes in a row
the run stops (:class:`PolicyServerDown`) with every finished episode kept for ``--resume``.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import CancelledError, ThreadPoolExecutor, as_completed
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel

from actionmap.actions import Action, TypeText
from actionmap.env import Env
from actionmap.parse import ActionParseError

from .policies.base import BasePolicy, PolicyServerOutage, StepRecord
from .records import EpisodeRecord, episode_key
from .rundir import RunDir

#: Policy-server outage episodes in a row that stop a run (0: never stop).
DEFAULT_MAX_POLICY_OUTAGES = 5
_MAX_POLICY_OUTAGES: ContextVar[int] = ContextVar("max_policy_outages", default=DEFAULT_MAX_POLICY_OUTAGES)


@contextmanager
def policy_outage_limit(n: int) -> Iterator[None]:
    """Executors built inside this block stop a run after ``n`` policy-server outage episodes in a
    row (for callers that build their executor through a session)."""
    token = _MAX_POLICY_OUTAGES.set(n)
    try:
        yield
    finally:
        _MAX_POLICY_OUTAGES.reset(token)


class InfraError(RuntimeError):
    """The backend failed (page crash, device lost): retry elsewhere, do not blame the policy."""


class PolicyServerError(InfraError):
    """The policy's model server did not answer a step (after the adapter's retries). The phone
    is fine: the episode is not retried elsewhere and the phone is not put aside."""

    def __init__(self, server: str, detail: str, steps: int = 0):
        super().__init__(f"policy server {server}: {detail}"[:500])
        self.server, self.detail, self.steps = server, detail, steps


class PolicyServerDown(RuntimeError):
    """A run stopped after ``count`` policy-server outage episodes in a row."""

    def __init__(self, server: str, count: int, last_error: str):
        super().__init__(f"stopped after {count} episodes in a row without an answer from the policy server "
                         f"{server} (last: {last_error[:200]}); nothing was counted for them — start the "
                         "server and rerun with --resume")
        self.server, self.count, self.last_error = server, count, last_error


class SetupUnsupported(RuntimeError):
    """This backend cannot reproduce the task's start state (e.g. no API writes a world clock on a
    phone). Retrying cannot help: the episode is recorded with ``error_kind="unsupported"``,
    outside success rates and apart from infrastructure errors. Backends signal it by raising
    from ``reset`` an exception whose ``unsupported`` attribute is true."""


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


def run_episode(env: Any, policy: BasePolicy, instance: Any, spec: EpisodeSpec, *, backend_info: dict[str, Any],
                trace_dir: Path | None = None, trace_width: int = 270, frames: str = "auto") -> EpisodeRecord:
    """Run one episode and judge it. Raises :class:`InfraError` on backend failure.

    ``frames``: ``"auto"`` captures the screen at every step only for a policy that reads
    pixels (``policy.reads_pixels``); one that reads only UI elements gets the same elements
    without the capture, and its trace keeps the first and last frames. ``"all"`` always
    captures every step (a full step viewer for any policy).
    """
    from .tasks.judge import judge

    t0 = time.time()
    timings: dict[str, float] = {"policy_s": 0.0, "env_s": 0.0}
    toggle = getattr(env, "set_screenshots", None)
    # the first frame is captured (the trace's, and the policy's if it reads pixels), unless
    # whoever configured the env turned capture off: that choice is kept
    configured = toggle(True) if toggle is not None else True
    if not configured:
        toggle(False)  # type: ignore[misc]
    every_step = toggle is None or (configured and (frames == "all" or getattr(policy, "reads_pixels", True)))
    try:
        obs = env.reset(instance)
        before = env.read_state()
    except Exception as e:  # noqa: BLE001
        if getattr(e, "unsupported", False):
            raise SetupUnsupported(str(e)) from e
        raise InfraError(f"reset failed: {type(e).__name__}: {e}") from e
    try:
        if not every_step:
            toggle(False)  # type: ignore[misc]
        return _run_steps(env, policy, instance, spec, backend_info, trace_dir, trace_width, obs, before,
                          t0, timings, judge, last_frame=configured and not every_step)
    finally:
        if toggle is not None:
            toggle(configured)  # the env outlives the episode (a farm phone): leave it as found


def _run_steps(env: Any, policy: BasePolicy, instance: Any, spec: EpisodeSpec, backend_info: dict[str, Any],
               trace_dir: Path | None, trace_width: int, obs: Any, before: Any, t0: float,
               timings: dict[str, float], judge: Callable[..., Any], last_frame: bool) -> EpisodeRecord:
    flavor = backend_info.get("flavor") or "sim"
    policy.reset(instance.prompt(), {"instance": instance, "task_id": instance.template_id, "seed": instance.seed,
                                      "repeat": spec.repeat, "backend": spec.backend, "flavor": flavor,
                                      "app_families": backend_info.get("app_families") or {}})
    history: list[StepRecord] = []
    steps = invalid = 0
    final: Action | None = None
    terminated = "max_steps"
    trace: list[dict[str, Any]] = []
    writer = _TraceWriter(trace_dir, trace_width) if trace_dir else None
    if writer:
        writer.shot(0, obs)
    model_ms: list[float] = []
    tokens: dict[str, int] = {}
    while steps < instance.max_steps:
        tp = time.perf_counter()
        try:
            out = policy.act(obs, history)
        except PolicyServerOutage as e:  # raised rather than returned: the same outage
            out = e
        except Exception as e:  # noqa: BLE001 - a policy crash is the policy's fault, recorded as invalid
            out = ActionParseError("bad_value", f"policy raised {type(e).__name__}: {e}"[:500], "")
        dt = time.perf_counter() - tp
        timings["policy_s"] += dt
        if isinstance(out, PolicyServerOutage):
            _end_quietly(env)  # undo the setup: the episode is void, the phone stays in service
            raise PolicyServerError(out.server, out.detail, steps)
        model_ms.append(round(dt * 1e3, 2))
        _add_tokens(tokens, getattr(policy, "last_call", None))
        steps += 1
        if isinstance(out, ActionParseError):
            invalid += 1
            rec = StepRecord(step=steps, raw=out.raw[:2000], invalid=f"{out.kind}: {out.reason}")
            history.append(rec)
            trace.append(rec.model_dump())
            continue
        te = time.perf_counter()
        obs, info = env.step(out)
        timings["env_s"] += time.perf_counter() - te
        if info.error_kind == "infra":
            raise InfraError(info.error or "backend error")
        rec = StepRecord(step=steps, action=out.to_json(), invalid=info.invalid_action)
        if info.invalid_action:
            invalid += 1
        history.append(rec)
        trace.append({**rec.model_dump(), "timings_ms": info.timings_ms, "clamped": info.clamped,
                      "error": info.error, "foreground": obs.foreground.model_dump(),
                      **({"text": {k: v for k, v in info.extra.items() if k.startswith("text")}}
                         if isinstance(out, TypeText) else {})})
        if writer:
            writer.shot(steps, obs)
        if info.done:
            final = out
            terminated = out.type
            break
    if writer and last_frame and steps:  # the last screen, for the step viewer
        try:
            env.set_screenshots(True)
            writer.shot(steps, env.observe())
        except Exception:  # noqa: BLE001 - a trace frame is a convenience; the episode stands
            pass
    try:
        after = env.read_state()
    except Exception as e:  # noqa: BLE001
        raise InfraError(f"reading state failed: {e}") from e
    verdict = judge(instance, before, after, final, truncated=terminated == "max_steps")
    left: list[str] = []
    end = getattr(env, "end_episode", None)
    if end is not None:  # undo the setup now: what cannot be removed belongs in this record
        try:
            rep = end()
            left = list(getattr(rep, "left", None) or [])
        except Exception as e:  # noqa: BLE001 - the verdict stands; the phone's health is checked on release
            left = [f"teardown did not finish: {type(e).__name__}: {e}"[:300]]
    if writer:
        writer.finish(trace, verdict.model_dump(mode="json"))
    t1 = time.time()
    timings["total_s"] = t1 - t0
    timings["mean_step_ms"] = (timings["env_s"] / max(1, steps - invalid)) * 1e3
    return EpisodeRecord(
        episode_id=spec.episode_id, policy=spec.policy, policy_spec=spec.policy_spec,
        checkpoint_hash=getattr(policy, "checkpoint_hash", None), task_id=instance.template_id, seed=instance.seed,
        repeat=spec.repeat, split=spec.split, instruction=instance.instruction, difficulty=instance.difficulty,
        backend=spec.backend, target=spec.target, device_serial=backend_info.get("serial"),
        device_model=backend_info.get("model"), profile=backend_info.get("profile"), flavor=flavor,
        app_families=backend_info.get("app_families") or None,
        terminated_by=terminated, steps=steps, invalid_actions=invalid, timings=timings,
        trace_path=str(trace_dir.relative_to(trace_dir.parent.parent)) if trace_dir else None,
        started_at=t0, finished_at=t1, left_on_phone=left, policy_step_ms=model_ms, tokens=tokens,
        **verdict.record_fields(),
    )


def _add_tokens(acc: dict[str, int], call: dict[str, float] | None) -> None:
    """Sum the usage a model server reported for one step (servers that report none add nothing)."""
    for k in ("prompt_tokens", "completion_tokens"):
        if call and k in call:
            acc[k] = acc.get(k, 0) + int(call[k])


def _end_quietly(env: Any) -> None:
    end = getattr(env, "end_episode", None)
    if end is not None:
        try:
            end()
        except Exception:  # noqa: BLE001 - the phone's health is checked when it is released
            pass


class _TraceWriter:
    """Per-step downscaled screenshots plus a steps.jsonl (for the report's step viewer)."""

    def __init__(self, path: Path, width: int):
        self.path = path
        self.width = width
        path.mkdir(parents=True, exist_ok=True)

    def shot(self, step: int, obs: Any) -> None:
        if not obs.screenshot:
            return
        try:
            import cv2
            import numpy as np

            img = cv2.imdecode(np.frombuffer(obs.screenshot, np.uint8), cv2.IMREAD_COLOR)
            h = round(img.shape[0] * self.width / img.shape[1])
            small = cv2.resize(img, (self.width, h), interpolation=cv2.INTER_AREA)
            cv2.imwrite(str(self.path / f"{step:03d}.jpg"), small, [cv2.IMWRITE_JPEG_QUALITY, 70])
        except Exception:  # noqa: BLE001 - a trace is a convenience; never fail an episode over it
            pass

    def finish(self, steps: list[dict[str, Any]], verdict: dict[str, Any]) -> None:
        with (self.path / "steps.jsonl").open("w", encoding="utf-8") as f:
            for s in steps:
                f.write(json.dumps(s, ensure_ascii=False, default=str) + "\n")
        (self.path / "verdict.json").write_text(json.dumps(verdict, ensure_ascii=False, indent=1, default=str))


def run_with_retries(spec: EpisodeSpec, rundir: RunDir, lease: Callable[[EpisodeSpec], Lease],
                     instance_of: Callable[[EpisodeSpec], Any], policy_of: Callable[[EpisodeSpec], BasePolicy],
                     max_attempts: int = 3, traces: bool = True,
                     stop: threading.Event | None = None) -> EpisodeRecord:
    """One episode with its attempts: the unit every executor runs (this machine's thread pool,
    or a cluster host's actor), so an episode is retried and recorded the same way everywhere.

    Each attempt leases a backend (``lease(spec)``; a fresh phone or page after an
    :class:`InfraError`, whose lease is released as broken), up to ``max_attempts``; the record
    counts them in ``attempts`` and names the backend it moved off in ``retried_from``. A setup the
    backend cannot reproduce (:class:`SetupUnsupported`) and a policy server that does not answer
    (:class:`PolicyServerError`) are recorded at once, without another attempt. Traces go to
    ``rundir.traces / episode_id`` when ``traces``. ``stop`` set before an attempt starts raises
    :class:`KeyboardInterrupt` (the run is stopping). Nothing is appended to ``rundir``: the
    caller is the run directory's one writer.
    """
    inst = instance_of(spec)
    last_err = ""
    moved_from: str | None = None
    for attempt in range(1, max_attempts + 1):
        if stop is not None and stop.is_set():
            raise KeyboardInterrupt
        leased = lease(spec)
        broken = False
        try:
            policy = policy_of(spec)
            trace = rundir.traces / spec.episode_id if traces else None
            rec = run_episode(leased.env, policy, inst, spec, backend_info=leased.info, trace_dir=trace)
            rec.attempts = attempt
            rec.retried_from = moved_from
            return rec
        except SetupUnsupported as e:
            return EpisodeRecord(episode_id=spec.episode_id, policy=spec.policy, policy_spec=spec.policy_spec,
                                 task_id=spec.task_id, seed=spec.seed, repeat=spec.repeat, split=spec.split,
                                 backend=spec.backend, target=spec.target, terminated_by="error",
                                 error=f"setup unsupported on this backend: {e}"[:500], error_kind="unsupported",
                                 attempts=attempt, retried_from=moved_from, device_serial=leased.info.get("serial"),
                                 device_model=leased.info.get("model"), flavor=leased.info.get("flavor"),
                                 instruction=getattr(inst, "instruction", ""),
                                 difficulty=getattr(inst, "difficulty", None))
        except PolicyServerError as e:
            # another phone would wait on the same server: record it now, keep the phone
            return EpisodeRecord(episode_id=spec.episode_id, policy=spec.policy, policy_spec=spec.policy_spec,
                                 task_id=spec.task_id, seed=spec.seed, repeat=spec.repeat, split=spec.split,
                                 backend=spec.backend, target=spec.target, terminated_by="error",
                                 error=str(e), error_kind="infra", infra_source="policy_server",
                                 steps=e.steps, attempts=attempt, retried_from=moved_from,
                                 device_serial=leased.info.get("serial"), device_model=leased.info.get("model"),
                                 flavor=leased.info.get("flavor"), instruction=getattr(inst, "instruction", ""),
                                 difficulty=getattr(inst, "difficulty", None))
        except InfraError as e:
            broken = True
            last_err = str(e)
            moved_from = leased.info.get("serial") or leased.info.get("target")
        finally:
            leased.release(broken)
    return EpisodeRecord(episode_id=spec.episode_id, policy=spec.policy, policy_spec=spec.policy_spec,
                         task_id=spec.task_id, seed=spec.seed, repeat=spec.repeat, split=spec.split,
                         backend=spec.backend, target=spec.target, terminated_by="error", error=last_err[:500],
                         error_kind="infra", infra_source="phone" if spec.backend == "device" else "sim",
                         attempts=max_attempts, retried_from=moved_from,
                         instruction=getattr(inst, "instruction", ""))


class Executor(Protocol):
    def run(self, specs: list[EpisodeSpec], rundir: RunDir) -> list[EpisodeRecord]: ...


class LocalExecutor:
    """Runs specs on a thread pool; ``lease(spec)`` provides a backend for each attempt."""

    def __init__(self, lease: Callable[[EpisodeSpec], Lease], instance_of: Callable[[EpisodeSpec], Any],
                 policy_of: Callable[[EpisodeSpec], BasePolicy], workers: int | dict[str, int] = 2,
                 max_attempts: int = 3, traces: bool = True, progress: bool = True,
                 max_policy_outages: int | None = None):
        """``workers``: episodes in flight — one number for all backends, or one per backend
        (``{"sim": 2, "device": 3}``). Per-backend pools keep each backend busy on its own: a
        device episode waiting for a free phone never holds a slot a sim episode could use.
        ``max_policy_outages``: policy-server outage episodes in a row that stop the run (0 never;
        default: :func:`policy_outage_limit`'s, else 5)."""
        self.lease, self.instance_of, self.policy_of = lease, instance_of, policy_of
        self.workers, self.max_attempts, self.traces, self.progress = workers, max_attempts, traces, progress
        self.max_policy_outages = _MAX_POLICY_OUTAGES.get() if max_policy_outages is None else max_policy_outages
        self._stop = threading.Event()

    def _one(self, spec: EpisodeSpec, rundir: RunDir) -> EpisodeRecord:
        return run_with_retries(spec, rundir, self.lease, self.instance_of, self.policy_of,
                                max_attempts=self.max_attempts, traces=self.traces, stop=self._stop)

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
            outages = _OutageRun(self.max_policy_outages)
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
