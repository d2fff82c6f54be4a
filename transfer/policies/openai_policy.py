"""A VLM policy behind an OpenAI-compatible chat-completions server (vLLM, SGLang, ...).

The screenshot goes as a base64 image; the reply is parsed with ``Action.parse``. Timeouts
and server errors are retried with exponential backoff; a reply that is not an action is
returned as an ``ActionParseError`` (recorded as an invalid action, never a crash). A
process-wide semaphore caps concurrent requests so a farm of phones cannot flood a server.
"""

from __future__ import annotations

import base64
import hashlib
import threading
import time
from typing import Any
from urllib.parse import parse_qs, urlparse

from actionmap.observation import Observation
from actionmap.parse import ActionParseError, parse_action

from .base import BasePolicy, PolicyOutput, StepRecord
from .prompts import SYSTEMS, user_text

_SEMAPHORES: dict[str, threading.BoundedSemaphore] = {}
_SEM_LOCK = threading.Lock()


def _semaphore(key: str, n: int) -> threading.BoundedSemaphore:
    with _SEM_LOCK:
        if key not in _SEMAPHORES:
            _SEMAPHORES[key] = threading.BoundedSemaphore(n)
        return _SEMAPHORES[key]


class OpenAIPolicy(BasePolicy):
    name = "vlm"

    def __init__(self, base_url: str, model: str, *, api_key: str = "EMPTY", prompt_format: str = "qwen",
                 history_window: int = 4, timeout: float = 60.0, max_retries: int = 3, concurrency: int = 8,
                 temperature: float = 0.0, max_tokens: int = 512, with_elements: bool = False, grid: int = 1000,
                 seed: int = 0):
        super().__init__()
        from openai import OpenAI

        if prompt_format not in SYSTEMS:
            raise ValueError(f"prompt_format must be one of {sorted(SYSTEMS)}")
        self.base_url, self.model, self.prompt_format = base_url, model, prompt_format
        self.history_window, self.timeout, self.max_retries = history_window, timeout, max_retries
        self.temperature, self.max_tokens, self.with_elements, self.grid, self.seed = (
            temperature, max_tokens, with_elements, grid, seed)
        # our own retry loop with backoff; the client's is disabled so attempts are counted here
        self.client = OpenAI(base_url=base_url, api_key=api_key, timeout=timeout, max_retries=0)
        self.sem = _semaphore(base_url, concurrency)
        self.checkpoint_hash = hashlib.sha1(f"{base_url}|{model}".encode()).hexdigest()[:12]
        self.last_raw: str | None = None
        self.stats = {"requests": 0, "retries": 0, "failures": 0}

    @classmethod
    def from_spec(cls, spec: str) -> "OpenAIPolicy":
        """``http://127.0.0.1:8000/v1#MODEL?format=qwen&elements=1`` → policy."""
        url, _, frag = spec.partition("#")
        model, _, query = frag.partition("?")
        q = {k: v[0] for k, v in parse_qs(query).items()}
        if not url or not model:
            raise ValueError("openai policy spec is URL#MODEL[?format=qwen|uitars&elements=1&grid=1000]")
        if urlparse(url).scheme not in ("http", "https"):
            raise ValueError(f"not an http(s) URL: {url}")
        return cls(url, model, prompt_format=q.get("format", "qwen"), with_elements=q.get("elements") == "1",
                   grid=int(q.get("grid", 1000)), concurrency=int(q.get("concurrency", 8)),
                   timeout=float(q.get("timeout", 60)))

    def _messages(self, obs: Observation, history: list[StepRecord]) -> list[dict[str, Any]]:
        content: list[dict[str, Any]] = []
        if obs.screenshot:
            mime = "image/jpeg" if obs.image_format == "jpeg" else "image/png"
            url = f"data:{mime};base64,{base64.b64encode(obs.screenshot).decode()}"
            content.append({"type": "image_url", "image_url": {"url": url}})
        content.append({"type": "text", "text": user_text(self.instruction, obs, history, self.history_window,
                                                          self.with_elements)})
        return [{"role": "system", "content": SYSTEMS[self.prompt_format]}, {"role": "user", "content": content}]

    def act(self, observation: Observation, history: list[StepRecord]) -> PolicyOutput:
        messages = self._messages(observation, history)
        text = self._complete(messages)
        self.last_raw = text
        if text is None:
            return ActionParseError("empty", "the model server gave no reply after retries", "")
        try:
            return parse_action(text, coords="grid", grid=self.grid)
        except ActionParseError as e:
            return e

    def _complete(self, messages: list[dict[str, Any]]) -> str | None:
        import openai

        delay = 0.5
        for attempt in range(self.max_retries + 1):
            try:
                with self.sem:
                    self.stats["requests"] += 1
                    resp = self.client.chat.completions.create(
                        model=self.model, messages=messages, temperature=self.temperature,  # type: ignore[arg-type]
                        max_tokens=self.max_tokens, seed=self.seed)
                choice = resp.choices[0] if resp.choices else None
                return (choice.message.content or "") if choice else ""
            except (openai.APITimeoutError, openai.APIConnectionError, openai.RateLimitError,
                    openai.InternalServerError) as e:
                if attempt == self.max_retries:
                    self.stats["failures"] += 1
                    self.last_error = f"{type(e).__name__}: {e}"
                    return None
                self.stats["retries"] += 1
                time.sleep(delay)
                delay *= 2
            except openai.APIStatusError as e:  # 4xx other than 429: retrying will not help
                self.stats["failures"] += 1
                self.last_error = f"{type(e).__name__}: {e}"
                return None
        return None
