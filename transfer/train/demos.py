"""Oracle demonstrations in the simulator, cached on disk as raw observations.

A demo step stores what the policy would see (the observation without its screenshot, the
instruction, the action history) and what the oracle did — not the micro policy's candidates.
So a change to the featurizer or to candidate generation re-uses the cache instead of
re-driving Chromium, which is what makes re-training take seconds instead of minutes.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

from actionmap.actions import Action
from actionmap.observation import Observation
from actionmap.parse import ActionParseError

from ..policies.base import StepRecord

CACHE_VERSION = 1


def record_episode(inst: Any, flavor: str = "sim", pool: Any = None) -> list[dict[str, Any]]:
    """Drive the oracle through one instance; return one raw record per oracle step."""
    from sim.env import SimEnv

    from ..policies.oracle_policy import OraclePolicy

    env = SimEnv(flavor=flavor, pool=pool, screenshots=False)  # type: ignore[arg-type]
    obs = env.reset(inst)
    pol = OraclePolicy()
    prompt = inst.prompt()
    pol.reset(prompt, {"instance": inst, "flavor": flavor})
    history: list[StepRecord] = []
    steps: list[dict[str, Any]] = []
    for i in range(inst.max_steps):
        a = pol.act(obs, history)
        if isinstance(a, ActionParseError) or a.type == "abort":
            break
        steps.append({"template": inst.template_id, "seed": inst.seed, "flavor": flavor, "instruction": prompt,
                      "obs": obs.model_dump(mode="json", exclude={"screenshot"}),
                      "history": [h.action for h in history], "action": a.to_json()})
        obs, info = env.step(a)
        history.append(StepRecord(step=i + 1, action=a.to_json(), invalid=info.invalid_action))
        if info.done:
            break
    return steps


def collect(instances: list[Any], cache: Path | None = None, flavor: str = "sim", pool: Any = None,
            ) -> list[dict[str, Any]]:
    """Raw demo steps for ``instances``, read from / appended to ``cache`` (gzipped JSONL) when given.

    Episodes are keyed by (template, seed, flavor), so a cache grows as more instances are asked for; a
    cached episode whose instruction no longer matches the instance (the template was edited) is
    re-recorded. Delete the cache after changing an oracle solution.
    """
    have: dict[tuple[str, int, str], list[dict[str, Any]]] = {}
    if cache is not None and Path(cache).exists():
        with gzip.open(cache, "rt") as f:
            for line in f:
                ep = json.loads(line)
                if ep.get("v") == CACHE_VERSION:
                    have[(ep["template"], ep["seed"], ep["flavor"])] = ep["steps"]
    out: list[dict[str, Any]] = []
    for inst in instances:
        key = (inst.template_id, inst.seed, flavor)
        cached = have.get(key)
        if cached is None or (cached and cached[0]["instruction"] != inst.prompt()):
            have[key] = record_episode(inst, flavor, pool)
            if cache is not None:
                Path(cache).parent.mkdir(parents=True, exist_ok=True)
                with gzip.open(cache, "at") as f:
                    f.write(json.dumps({"v": CACHE_VERSION, "template": key[0], "seed": key[1], "flavor": flavor,
                                        "steps": have[key]}) + "\n")
        out.extend(have[key])
    return out


def step_inputs(step: dict[str, Any]) -> tuple[Observation, str, list[StepRecord], Action]:
    """A cached step as the policy's inputs (observation, instruction, history) and the oracle's action."""
    obs = Observation.model_validate({**step["obs"], "image_format": "none"})
    hist = [StepRecord(step=i + 1, action=a) for i, a in enumerate(step["history"])]
    return obs, step["instruction"], hist, Action.validate_any(step["action"])
