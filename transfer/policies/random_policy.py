"""A seeded random policy: the floor every trained policy must beat."""

from __future__ import annotations

import random
from typing import Any

from actionmap.actions import Complete, Key, OpenApp, Scroll, Tap, TypeText
from actionmap.apps import APP_IDS
from actionmap.observation import Observation

from .base import BasePolicy, PolicyOutput, StepRecord

WORDS = ["alarm", "Ada", "hello", "7", "30", "meeting", "test"]


class RandomPolicy(BasePolicy):
    reads_pixels = False  # UI elements only
    name = "random"

    def __init__(self, seed: int = 0, p_complete: float = 0.03):
        super().__init__()
        self.seed = seed
        self.p_complete = p_complete
        self.rng = random.Random(seed)

    def reset(self, instruction: str, context: dict[str, Any]) -> None:
        super().reset(instruction, context)
        # same (seed, task, episode seed) → same choices on every backend
        self.rng = random.Random(f"{self.seed}:{context.get('task_id')}:{context.get('seed')}:{context.get('repeat', 0)}")

    def act(self, observation: Observation, history: list[StepRecord]) -> PolicyOutput:
        r = self.rng.random()
        clickable = [e for e in observation.elements if e.clickable and e.enabled]
        if r < self.p_complete:
            return Complete(message="done")
        if observation.keyboard_visible and r < 0.25:
            return TypeText(text=self.rng.choice(WORDS))
        if r < 0.12:
            return OpenApp(app=self.rng.choice([a for a in APP_IDS if a != "launcher"]))
        if r < 0.2:
            return Scroll(direction=self.rng.choice(["up", "down"]))
        if r < 0.25:
            return Key(key="back")
        if clickable:
            return Tap(target=self.rng.choice(clickable).index)
        return Key(key="back")
