"""Replay one episode's actions on the simulator and on a phone, and diff what a policy saw.

Why: when a policy succeeds in the sim and fails on a phone, the question is whether the
phone showed it something different (a bridge-fidelity fault, or a true sim-to-real gap such
as a dialog the sim lacks) or the same screens and it still chose differently. Replaying the
recorded actions on both, from the same task instance, and diffing the UI elements after every
step answers it: the first step whose elements differ is where the two worlds parted.

Elements are compared without their index (one extra element shifts every index after it);
bounds can be left out for a real phone whose geometry differs from every sim profile.
"""

from __future__ import annotations

import difflib
import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from actionmap import Action
from actionmap.observation import Observation, UIElement


class StepDiff(BaseModel):
    """What differs between the two observations after one step (step 0: after reset)."""

    step: int
    action: dict[str, Any] | None = None
    sim_elements: int
    device_elements: int
    only_sim: list[str] = []
    only_device: list[str] = []
    sim_foreground: str | None = None
    device_foreground: str | None = None
    sim_keyboard: bool = False
    device_keyboard: bool = False
    sim_invalid: str | None = None
    device_invalid: str | None = None

    @property
    def same(self) -> bool:
        return not self.only_sim and not self.only_device and self.sim_foreground == self.device_foreground \
            and self.sim_keyboard == self.device_keyboard


def element_line(e: UIElement, bounds: bool = True) -> str:
    """One element as a comparable line: class, resource id, text, description, flags (and bounds)."""
    cls = (e.class_name or "").rsplit(".", 1)[-1]
    rid = (e.resource_id or "").rsplit("/", 1)[-1]
    flags = "".join(c for c, on in (("c", e.clickable), ("e", e.editable), ("k", e.checked), ("s", e.scrollable),
                                   ("f", e.focused)) if on)
    line = f"{cls} #{rid} {e.text or ''!r} {e.content_desc or ''!r} [{flags}]"
    if bounds:
        b = e.bounds
        line += f" {b.left},{b.top},{b.right},{b.bottom}"
    return line


CLOCK_IDS: frozenset[str] = frozenset({"clock"})
"""Resource ids of elements that show the time of day (status bar, launcher clock), left out by
default: the sim's clock moves by a fixed step per action and a phone's follows wall time, so
they differ as soon as a minute turns over on one side and not yet on the other."""


DECOR_IDS: frozenset[str] = frozenset({"android:id/content", "android:id/statusBarBackground",
                                       "android:id/navigationBarBackground"})
_DECOR_CLASSES = ("android.widget.FrameLayout", "android.widget.LinearLayout")


def is_window_decor(e: UIElement) -> bool:
    """A node of an app window's decor chain (the root FrameLayout, its LinearLayout, the
    ``android:id/content`` frame and the bar backgrounds: PhoneWindow's DecorView on every
    phone, frameworks/base ``core/java/com/android/internal/policy/DecorView.java``). The
    simulator draws no window frames, so a diff leaves these out rather than report every
    screen as different."""
    if e.resource_id in DECOR_IDS:
        return True
    return (not e.resource_id and e.class_name in _DECOR_CLASSES and not (e.text or e.content_desc)
            and not (e.clickable or e.long_clickable or e.scrollable or e.checkable or e.editable)
            and e.bounds.left == 0 and e.bounds.top == 0)


def diff_observations(step: int, action: Action | None, sim: Observation, dev: Observation, *, bounds: bool = True,
                      sim_invalid: str | None = None, device_invalid: str | None = None,
                      ignore_ids: frozenset[str] = CLOCK_IDS) -> StepDiff:
    def keep(e: UIElement) -> bool:
        return (e.resource_id or "").rsplit("/", 1)[-1] not in ignore_ids and not is_window_decor(e)

    a = [element_line(e, bounds) for e in sim.elements if keep(e)]
    b = [element_line(e, bounds) for e in dev.elements if keep(e)]
    only_sim: list[str] = []
    only_dev: list[str] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if op in ("replace", "delete"):
            only_sim.extend(a[i1:i2])
        if op in ("replace", "insert"):
            only_dev.extend(b[j1:j2])
    return StepDiff(step=step, action=action.to_json() if action is not None else None, sim_elements=len(a),
                    device_elements=len(b), only_sim=only_sim, only_device=only_dev,
                    sim_foreground=sim.foreground.app, device_foreground=dev.foreground.app,
                    sim_keyboard=sim.keyboard_visible, device_keyboard=dev.keyboard_visible,
                    sim_invalid=sim_invalid, device_invalid=device_invalid)


def replay_diff(actions: list[Action], instance: Any, sim_env: Any, device_env: Any, *,
                bounds: bool = True, ignore_ids: frozenset[str] = CLOCK_IDS) -> list[StepDiff]:
    """Reset both envs to ``instance``, step both through ``actions``; one :class:`StepDiff` per observation.

    Stops after an action that ends the episode (complete, answer, abort) on either side.
    """
    sim_obs = sim_env.reset(instance)
    dev_obs = device_env.reset(instance)
    out = [diff_observations(0, None, sim_obs, dev_obs, bounds=bounds, ignore_ids=ignore_ids)]
    for i, a in enumerate(actions, start=1):
        sim_obs, si = sim_env.step(a)
        dev_obs, di = device_env.step(a)
        out.append(diff_observations(i, a, sim_obs, dev_obs, bounds=bounds, sim_invalid=si.invalid_action,
                                     device_invalid=di.invalid_action, ignore_ids=ignore_ids))
        if si.done or di.done:
            break
    return out


def episode_actions(run_dir: Path, episode_id: str) -> tuple[dict[str, Any], list[Action]]:
    """The episode record and its recorded actions, from a run directory's ``episodes.jsonl`` and trace."""
    run_dir = Path(run_dir)
    rec = None
    with (run_dir / "episodes.jsonl").open() as f:
        for line in f:
            r = json.loads(line)
            if r.get("episode_id") == episode_id:
                rec = r
    if rec is None:
        raise KeyError(f"no episode {episode_id!r} in {run_dir / 'episodes.jsonl'}")
    if not rec.get("trace_path"):
        raise KeyError(f"episode {episode_id!r} has no trace to replay")
    actions = []
    with (run_dir / rec["trace_path"] / "steps.jsonl").open() as f:
        for line in f:
            s = json.loads(line)
            if s.get("action"):
                actions.append(Action.validate_any(s["action"]))
    return rec, actions
