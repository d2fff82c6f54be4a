"""A VLM policy behind an OpenAI-compatible chat-completions server (vLLM, SGLang, ...).

The screenshot goes as a base64 image, encoded once per observation (and scaled down only when
it exceeds the pixel budget the spec asks for); the reply is parsed with ``Action.parse``.
Timeouts, refused or reset connections, HTTP 5xx and 429 are retried with exponential backoff;
when the retries run out the step returns a :class:`PolicyServerOutage`, which the runner turns
into an infrastructure error of the policy server — a server that is down says nothing about
the policy. A reply that is not an action is an ``ActionParseError`` (an invalid action, the
policy's fault). One HTTP client per server is shared by every worker thread, so connections
are reused, and a process-wide semaphore caps concurrent requests so a farm of phones cannot
flood a server.
"""

from __future__ import annotations

import base64
import hashlib
import threading
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlparse

from actionmap.observation import Observation
from actionmap.parse import ActionParseError, parse_action

from .base import BasePolicy, PolicyOutput, PolicyServerOutage, StepRecord
from .prompts import SYSTEMS, user_text

SPEC_HELP = ("openai policy spec is openai:http(s)://HOST:PORT/v1#MODEL[?format=qwen|uitars&elements=0|1"
             "&grid=1000&concurrency=8&timeout=60&retries=3&max_pixels=N], "
             "e.g. openai:http://127.0.0.1:8000/v1#Qwen2.5-VL-7B-Instruct?format=qwen")
_SPEC_KEYS = {"format", "elements", "grid", "concurrency", "timeout", "retries", "max_pixels"}
#: Largest image each prompt format's processor takes without resizing it itself (Qwen2.5-VL's and
#: UI-TARS's ``max_pixels`` = 16384·28·28): a phone screenshot is sent as captured.
FORMAT_MAX_PIXELS = {"qwen": 12845056, "uitars": 12845056}

_SEMAPHORES: dict[str, threading.BoundedSemaphore] = {}
_CLIENTS: dict[tuple[str, str, float], Any] = {}
_SHARED_LOCK = threading.Lock()


def _semaphore(key: str, n: int) -> threading.BoundedSemaphore:
    with _SHARED_LOCK:
        if key not in _SEMAPHORES:
            _SEMAPHORES[key] = threading.BoundedSemaphore(n)
        return _SEMAPHORES[key]


def _client(base_url: str, api_key: str, timeout: float) -> Any:
    """One client (one pool of kept-alive connections) per server, shared by all threads:
    a fresh TCP connection per worker and step would cost a round trip each time."""
    from openai import OpenAI

    key = (base_url, api_key, timeout)
    with _SHARED_LOCK:
        if key not in _CLIENTS:
            # our own retry loop with backoff; the client's is disabled so attempts are counted here
            _CLIENTS[key] = OpenAI(base_url=base_url, api_key=api_key, timeout=timeout, max_retries=0)
        return _CLIENTS[key]


@dataclass(frozen=True)
class OpenAISpec:
    """A parsed ``openai:`` spec (validated before anything runs)."""

    url: str
    model: str
    prompt_format: str = "qwen"
    with_elements: bool = False
    grid: int = 1000
    concurrency: int = 8
    timeout: float = 60.0
    retries: int = 3
    max_pixels: int = 0


def parse_spec(spec: str) -> OpenAISpec:
    """``http://127.0.0.1:8000/v1#MODEL?format=qwen&elements=1`` → :class:`OpenAISpec`.

    Raises ``ValueError`` naming the valid forms for a malformed URL, a missing ``#MODEL``, an
    unknown option or ``format``, or a bad number."""
    url, _, frag = spec.partition("#")
    model, _, query = frag.partition("?")
    if not model.strip():
        raise ValueError(f"missing #MODEL in {spec!r}; {SPEC_HELP}")
    if "?" in url:  # options before the model: http://h/v1?format=qwen#m
        raise ValueError(f"options go after the model name; {SPEC_HELP}")
    u = urlparse(url)
    try:
        port_ok = u.port is None or 0 < u.port < 65536
    except ValueError:
        port_ok = False
    if u.scheme not in ("http", "https") or not u.hostname or not port_ok or " " in url:
        raise ValueError(f"not an http(s) URL: {url!r}; {SPEC_HELP}")
    q = {k: v[-1] for k, v in parse_qs(query, keep_blank_values=True).items()}
    unknown = sorted(set(q) - _SPEC_KEYS)
    if unknown:
        raise ValueError(f"unknown openai policy option(s) {unknown}; {SPEC_HELP}")
    fmt = q.get("format", "qwen")
    if fmt not in SYSTEMS:
        raise ValueError(f"unknown format {fmt!r} (one of {', '.join(sorted(SYSTEMS))}); {SPEC_HELP}")
    if q.get("elements", "0") not in ("0", "1"):
        raise ValueError(f"elements must be 0 or 1; {SPEC_HELP}")
    try:
        out = OpenAISpec(url.rstrip("/"), model, fmt, q.get("elements") == "1", int(q.get("grid", 1000)),
                         int(q.get("concurrency", 8)), float(q.get("timeout", 60)), int(q.get("retries", 3)),
                         int(q.get("max_pixels", 0)))
    except ValueError as e:
        raise ValueError(f"bad openai policy option value ({e}); {SPEC_HELP}") from e
    if out.grid < 1 or out.concurrency < 1 or out.timeout <= 0 or out.retries < 0 or out.max_pixels < 0:
        raise ValueError(f"grid, concurrency and timeout must be positive, retries and max_pixels >= 0; {SPEC_HELP}")
    return out


def encode_image(shot: bytes, image_format: str, max_pixels: int) -> str:
    """The screenshot as a data URL, scaled down (aspect kept) only if it has more than
    ``max_pixels`` pixels; the model sees the 0–1000 grid either way, so actions are unchanged."""
    mime = "image/jpeg" if image_format == "jpeg" else "image/png"
    if max_pixels:
        import cv2
        import numpy as np

        img = cv2.imdecode(np.frombuffer(shot, np.uint8), cv2.IMREAD_COLOR)
        h, w = img.shape[:2]
        if h * w > max_pixels:
            s = (max_pixels / (h * w)) ** 0.5
            img = cv2.resize(img, (max(1, int(w * s)), max(1, int(h * s))), interpolation=cv2.INTER_AREA)
            ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 90])
            if ok:
                shot, mime = buf.tobytes(), "image/jpeg"
    return f"data:{mime};base64,{base64.b64encode(shot).decode()}"


class OpenAIPolicy(BasePolicy):
    name = "vlm"

    def __init__(self, base_url: str, model: str, *, api_key: str = "EMPTY", prompt_format: str = "qwen",
                 history_window: int = 4, timeout: float = 60.0, max_retries: int = 3, concurrency: int = 8,
                 temperature: float = 0.0, max_tokens: int = 512, with_elements: bool = False, grid: int = 1000,
                 seed: int = 0, max_pixels: int = 0):
        super().__init__()
        if prompt_format not in SYSTEMS:
            raise ValueError(f"prompt_format must be one of {sorted(SYSTEMS)}")
        self.base_url, self.model, self.prompt_format = base_url, model, prompt_format
        self.history_window, self.timeout, self.max_retries = history_window, timeout, max_retries
        self.temperature, self.max_tokens, self.with_elements, self.grid, self.seed = (
            temperature, max_tokens, with_elements, grid, seed)
        budget = FORMAT_MAX_PIXELS[prompt_format]
        self.max_pixels = min(max_pixels, budget) if max_pixels else budget
        self.client = _client(base_url, api_key, timeout)
        self.sem = _semaphore(base_url, concurrency)
        self.checkpoint_hash = hashlib.sha1(f"{base_url}|{model}".encode()).hexdigest()[:12]
        self.last_raw: str | None = None
        self.last_error: str | None = None
        #: the last call's split: encode_s (prompt and image), request_s (the HTTP call, retries
        #: and backoff included), server_s (as the server reports it, if it does) and tokens
        self.last_call: dict[str, float] = {}
        self.stats = {"requests": 0, "retries": 0, "failures": 0}
        self._image_cache: tuple[bytes, str] | None = None

    @classmethod
    def from_spec(cls, spec: str) -> "OpenAIPolicy":
        """``http://127.0.0.1:8000/v1#MODEL?format=qwen&elements=1`` → policy."""
        s = parse_spec(spec)
        return cls(s.url, s.model, prompt_format=s.prompt_format, with_elements=s.with_elements, grid=s.grid,
                   concurrency=s.concurrency, timeout=s.timeout, max_retries=s.retries, max_pixels=s.max_pixels)

    def _image_url(self, obs: Observation) -> str:
        """Encode each screenshot once: an observation asked about again (after an invalid
        action, or a retry) reuses its data URL."""
        shot = obs.screenshot or b""
        # the bytes object itself is kept and compared by identity (an id alone could be reused)
        if self._image_cache is None or self._image_cache[0] is not shot:
            small = self.max_pixels < obs.screen.width * obs.screen.height
            self._image_cache = (shot, encode_image(shot, obs.image_format, self.max_pixels if small else 0))
        return self._image_cache[1]

    def _messages(self, obs: Observation, history: list[StepRecord]) -> list[dict[str, Any]]:
        content: list[dict[str, Any]] = []
        if obs.screenshot:
            content.append({"type": "image_url", "image_url": {"url": self._image_url(obs)}})
        content.append({"type": "text", "text": user_text(self.instruction, obs, history, self.history_window,
                                                          self.with_elements)})
        return [{"role": "system", "content": SYSTEMS[self.prompt_format]}, {"role": "user", "content": content}]

    def act(self, observation: Observation, history: list[StepRecord]) -> PolicyOutput:
        t0 = time.perf_counter()
        messages = self._messages(observation, history)
        self.last_call = {"encode_s": time.perf_counter() - t0}
        try:
            text = self._complete(messages)
        except PolicyServerOutage as e:
            self.last_raw = None
            return e
        self.last_raw = text
        if text is None:
            return ActionParseError("empty", "the model server refused the request", "")
        try:
            return parse_action(text, coords="grid", grid=self.grid)
        except ActionParseError as e:
            return e

    def _call(self, messages: list[dict[str, Any]]) -> str:
        with self.sem:
            self.stats["requests"] += 1
            raw = self.client.chat.completions.with_raw_response.create(
                model=self.model, messages=messages, temperature=self.temperature,  # type: ignore[arg-type]
                max_tokens=self.max_tokens, seed=self.seed)
        resp = raw.parse()
        server_ms = raw.headers.get("x-server-time-ms")
        if server_ms:
            self.last_call["server_s"] = float(server_ms) / 1e3
        usage = getattr(resp, "usage", None)
        if usage is not None:
            self.last_call["prompt_tokens"] = float(usage.prompt_tokens or 0)
            self.last_call["completion_tokens"] = float(usage.completion_tokens or 0)
        choice = resp.choices[0] if resp.choices else None
        return (choice.message.content or "") if choice else ""

    def _complete(self, messages: list[dict[str, Any]]) -> str | None:
        """The reply text; ``None`` for a request the server refused as malformed (a 4xx that
        is not about the server); raises :class:`PolicyServerOutage` when the server is down,
        overloaded or does not serve the model."""
        import openai

        delay = 0.5
        t0 = time.perf_counter()
        try:
            for attempt in range(self.max_retries + 1):
                try:
                    return self._call(messages)
                except (openai.APITimeoutError, openai.APIConnectionError, openai.RateLimitError,
                        openai.InternalServerError) as e:
                    if attempt == self.max_retries:
                        self._fail(e)
                        raise PolicyServerOutage(self.base_url, self.last_error or "") from e
                    self.stats["retries"] += 1
                    time.sleep(max(delay, _retry_after(e)))
                    delay *= 2
                except (openai.NotFoundError, openai.AuthenticationError, openai.PermissionDeniedError) as e:
                    # the server will not serve this model to us: no policy is being asked
                    self._fail(e)
                    raise PolicyServerOutage(self.base_url, self.last_error or "") from e
                except openai.APIStatusError as e:  # another 4xx: the request itself was refused
                    self._fail(e)
                    return None
            return None
        finally:
            self.last_call["request_s"] = time.perf_counter() - t0

    def _fail(self, e: Exception) -> None:
        self.stats["failures"] += 1
        self.last_error = f"{type(e).__name__}: {e}"[:400]


def _retry_after(e: Exception) -> float:
    """A 429's ``Retry-After`` seconds (capped at 30 s), else 0."""
    resp = getattr(e, "response", None)
    try:
        return min(30.0, float(resp.headers.get("retry-after", 0))) if resp is not None else 0.0
    except (TypeError, ValueError):
        return 0.0
