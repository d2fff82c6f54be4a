"""One episode as a small state machine — reset → act/observe → judge → record — driven a step at a time.

Every place s2r plays an episode goes through :class:`Episode`: the runner's policy loop
(:func:`transfer.policy_episode.run_episode`), the Gymnasium envs (``s2r.gym``, whose ``step``
is one call here) and the oracle's skill driver (:func:`transfer.oracle.drive.run_skill`). So a
step is carried out, counted and ended the same way everywhere, and the judge
(``transfer.tasks.judge.judge``) is called in one place, from the states read before and after.

Phases (``Episode.phase``):

* ``new`` → :meth:`Episode.start` sets the task instance up on the backend (``env.reset``) and
  reads the start ``WorldState`` — or :meth:`Episode.attach` drives on the screen as it is (no
  setup, so nothing to judge);
* ``running`` → :meth:`Episode.step` carries out one action — an :class:`Action`, the policy's raw
  text (parsed) or the :class:`ActionParseError` it produced (an invalid step) — and observes.
  The episode is over (``ended_by``) when an action ends it (``complete``, ``answer``,
  ``abort``), the backend fails (``"infra"``), or the step budget is spent (``"max_steps"``);
* ``over`` → :meth:`Episode.finish` reads the final state and judges (``judged``);
* :meth:`Episode.teardown` undoes a phone's setup; what it could not remove is returned for the record.

Each phase that calls the backend has an async twin (:meth:`Episode.astart`,
:meth:`Episode.aattach`, :meth:`Episode.astep`, :meth:`Episode.afinish`) for trainers that drive
many episodes from one event loop. A phase is written once, as a generator that yields the
backend calls it needs (``("step", action)``); :func:`drive_phase` carries them out with the env's sync
methods and :func:`adrive_phase` awaits its async twins (``astep`` …) — so the sync and async
episodes cannot drift apart.

Failures are reported, not decided here: a backend error on a step ends the episode with
``ended_by == "infra"``, and each caller says what that means to it (the runner retries on
another phone; a Gymnasium env truncates).
"""

from __future__ import annotations

import asyncio
import copy
import time
from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import Any, Literal

from actionmap.actions import Action
from actionmap.env import StepInfo
from actionmap.errors import ActionParseError, StateReadFailed
from actionmap.observation import Observation
from actionmap.worldstate import WorldState

Phase = Literal["new", "running", "over", "judged"]
Call = tuple[str, tuple[Any, ...]]
"""One backend call a phase asks for: the env method's (sync) name and its arguments."""
PhaseRun = Generator[Call, Any, Any]
"""A phase, written once: it yields :data:`Call` s and is sent their results (or thrown their errors)."""


def drive_phase(env: Any, phase: PhaseRun) -> Any:
    """Run ``phase`` to its end, carrying out its calls with ``env``'s sync methods."""
    try:
        name, args = next(phase)
        while True:
            try:
                result = getattr(env, name)(*args)
            except Exception as e:  # noqa: BLE001 - the phase decides what a failure means
                name, args = phase.throw(e)
            else:
                name, args = phase.send(result)
    except StopIteration as done:
        return done.value


async def adrive_phase(env: Any, phase: PhaseRun) -> Any:
    """Run ``phase`` to its end, awaiting ``env``'s async twins (``a`` + the name). A backend
    without a twin for a call has its sync method run on a worker thread, so the caller's loop
    is never blocked."""
    try:
        name, args = next(phase)
        while True:
            twin = getattr(env, "a" + name, None)
            try:
                if twin is not None:
                    result = await twin(*args)
                else:
                    result = await asyncio.to_thread(getattr(env, name), *args)
            except Exception as e:  # noqa: BLE001 - the phase decides what a failure means
                name, args = phase.throw(e)
            else:
                name, args = phase.send(result)
    except StopIteration as done:
        return done.value


class EpisodeStateError(RuntimeError):
    """A call out of order: a step before the start or after the end, a judge before the end."""


@dataclass
class StepOutcome:
    """What one :meth:`Episode.step` did.

    ``action``: the action carried out, or None when the output was not an action
    (``parse_error`` then says why); ``info``: the backend's report (None when nothing ran);
    ``observation``: the screen after the step (the one before when nothing ran); ``invalid``:
    why the step counts as invalid, if it does; ``ended_by``: set on the step that ended the episode.
    """

    step: int
    observation: Observation | None
    action: Action | None = None
    info: StepInfo | None = None
    parse_error: ActionParseError | None = None
    invalid: str | None = None
    ended_by: str | None = None

    @property
    def infra(self) -> bool:
        return self.info is not None and self.info.error_kind == "infra"


class Episode:
    """One episode of ``instance`` on ``env`` (anything with the ``actionmap.env.Env`` methods it
    uses: ``reset``, ``step``, ``read_state`` and, for a phone, ``end_episode``).

    ``max_steps``: the step budget (default: the instance's own); ``parse``: how raw text given to
    :meth:`step` becomes an action (default ``Action.parse`` on the 0–1000 grid).
    """

    def __init__(self, env: Any, instance: Any = None, *, max_steps: int | None = None,
                 parse: Callable[[str], Action] | None = None):
        self.env, self.instance = env, instance
        self.budget: int = max_steps or (instance.max_steps if instance is not None else 0)
        self.parse = parse or Action.parse
        self.phase: Phase = "new"
        self.observation: Observation | None = None
        self.before: WorldState | None = None
        self.after: WorldState | None = None
        self.verdict: Any = None
        self.steps = 0
        self.invalid = 0
        self.final: Action | None = None
        self.ended_by: str | None = None
        self.env_s = 0.0  # time spent in the backend's step

    # --- reset --------------------------------------------------------------------------------
    def start(self) -> Observation:
        """Set the instance up on the backend and observe, then read the start state.

        Exceptions propagate as raised (a caller tells a setup the backend cannot do from a lost
        phone); ``observation`` is set once the reset itself succeeded.
        """
        return drive_phase(self.env, self._start())

    async def astart(self) -> Observation:
        """:meth:`start` on the backend's async twins (``areset``, ``aread_state``)."""
        return await adrive_phase(self.env, self._start())

    def _start(self) -> PhaseRun:
        self._expect("new", "start")
        self.observation = yield ("reset", (self.instance,))
        self.before = yield ("read_state", ())
        self.phase = "running"
        return self.observation

    def attach(self, observation: Observation | None = None, *, before: WorldState | None = None) -> Observation:
        """Drive on the screen as it is (``observation``, else observed now), with no setup.
        Without ``before`` there is no start state, so such an episode is never judged; with it
        (a start state the caller read: e.g. GRPO's rollouts from a forked page whose setup
        already ran) it is judged from that state like any other."""
        return drive_phase(self.env, self._attach(observation, before))

    async def aattach(self, observation: Observation | None = None, *,
                      before: WorldState | None = None) -> Observation:
        """:meth:`attach` on the backend's async twin (``aobserve``)."""
        return await adrive_phase(self.env, self._attach(observation, before))

    def _attach(self, observation: Observation | None, before: WorldState | None) -> PhaseRun:
        self._expect("new", "attach")
        self.observation = observation if observation is not None else (yield ("observe", ()))
        self.before = before
        self.phase = "running"
        return self.observation

    # --- act / observe ------------------------------------------------------------------------
    @property
    def over(self) -> bool:
        return self.ended_by is not None

    @property
    def truncated(self) -> bool:
        """The step budget ran out before an action ended the episode."""
        return self.ended_by == "max_steps"

    def step(self, action: str | Action | ActionParseError) -> StepOutcome:
        """Carry out one action and observe; a step whose output is not an action counts as an
        invalid step (nothing runs). Ends the episode on a terminal action, an infrastructure
        error or the last step of the budget."""
        return drive_phase(self.env, self._step(action))

    async def astep(self, action: str | Action | ActionParseError) -> StepOutcome:
        """:meth:`step` on the backend's async twin (``astep``)."""
        return await adrive_phase(self.env, self._step(action))

    def _step(self, action: str | Action | ActionParseError) -> PhaseRun:
        if self.over:
            raise EpisodeStateError(f"the episode is over ({self.ended_by}); no more steps")
        self._expect("running", "step")
        self.steps += 1
        if isinstance(action, str):
            try:
                action = self.parse(action)
            except ActionParseError as e:
                action = e
        if isinstance(action, ActionParseError):
            self.invalid += 1
            out = StepOutcome(self.steps, self.observation, parse_error=action,
                              invalid=f"{action.kind}: {action.reason}")
        else:
            t0 = time.perf_counter()
            obs, info = yield ("step", (action,))
            self.env_s += time.perf_counter() - t0
            self.observation = obs
            if info.invalid_action:
                self.invalid += 1
            if info.error_kind == "infra":
                self.ended_by = "infra"
            elif info.done:
                self.final, self.ended_by = action, action.type
            out = StepOutcome(self.steps, obs, action=action, info=info, invalid=info.invalid_action)
        if self.ended_by is None and self.budget and self.steps >= self.budget:
            self.ended_by = "max_steps"
        if self.over:
            self.phase = "over"
            out.ended_by = self.ended_by
        return out

    # --- judge --------------------------------------------------------------------------------
    def finish(self) -> Any:
        """Read the final state and judge the episode (``transfer.tasks.judge.judge``) — the
        one place every episode is judged. Raises :class:`StateReadFailed` when the state cannot
        be read."""
        return drive_phase(self.env, self._finish())

    async def afinish(self) -> Any:
        """:meth:`finish` on the backend's async twin (``aread_state``)."""
        return await adrive_phase(self.env, self._finish())

    def _finish(self) -> PhaseRun:
        from .tasks.judge import judge

        self._expect("over", "finish")
        if self.before is None:
            raise EpisodeStateError("an attached episode has no start state to judge from")
        if self.ended_by == "infra":
            raise EpisodeStateError("the backend failed: the episode's end state is unknown, nothing to judge")
        try:
            self.after = yield ("read_state", ())
        except Exception as e:  # noqa: BLE001 - any failure to read is the backend's
            raise StateReadFailed(e) from e
        self.verdict = judge(self.instance, self.before, self.after, self.final, truncated=self.truncated)
        self.phase = "judged"
        return self.verdict

    # --- record -------------------------------------------------------------------------------
    def teardown(self, *, quiet: bool = True) -> list[str]:
        """Undo the episode's setup on a phone (``env.end_episode``; a backend without one has
        nothing to undo). Returns what could not be removed, for the episode's record. ``quiet``:
        a teardown that fails is reported in that list instead of raised (the phone's health is
        checked when it is released)."""
        end = getattr(self.env, "end_episode", None)
        if end is None:
            return []
        try:
            report = end()
        except Exception as e:  # noqa: BLE001
            if not quiet:
                raise
            return [f"teardown did not finish: {type(e).__name__}: {e}"[:300]]
        return list(getattr(report, "left", None) or [])

    def fork(self, env: Any) -> "Episode":
        """This episode, mid-way, on ``env`` (an exact copy of this episode's phone)."""
        twin = copy.copy(self)
        twin.env = env
        return twin

    def _expect(self, phase: Phase, what: str) -> None:
        if self.phase != phase:
            raise EpisodeStateError(f"{what}() needs an episode that is {phase}, this one is {self.phase}")
