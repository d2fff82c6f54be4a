"""Checks a policy spec before the first episode: a server that is down, a model it does not
serve, a checkpoint that does not load — each is the user's to fix, and each would otherwise
surface only as a run full of failed episodes that say nothing about the policy.

``check_spec`` is the parse-time check (no network, no weights); ``preflight`` proves the policy
can answer: ``openai:`` — ``GET /v1/models`` lists the model and one completion with a small
image returns text; ``hf:`` — the checkpoint loads and its processor accepts an image;
``micro:`` — the checkpoint exists and its weights fit the network this code builds.
"""

from __future__ import annotations

import time
from typing import Any

VALID_FORMS = ("oracle, random[:SEED], micro:PATH|base|trained, "
               "openai:http(s)://HOST:PORT/v1#MODEL[?format=qwen|uitars&...], hf:PATH[?format=qwen|uitars&...]")


class PreflightError(RuntimeError):
    """The policy cannot run as specified; the message is one line saying why."""


def check_spec(spec: str) -> None:
    """Reject a malformed spec at parse time (``ValueError`` naming the valid forms); nothing runs."""
    kind, _, arg = spec.partition(":")
    if kind == "oracle" and not arg:
        return
    if kind == "random":
        if arg and not arg.lstrip("-").isdigit():
            raise ValueError(f"random policy seed must be an integer, not {arg!r}; valid forms: {VALID_FORMS}")
        return
    if kind in ("micro", "checkpoint"):
        if not arg:
            raise ValueError(f"micro policy needs a checkpoint: micro:PATH; valid forms: {VALID_FORMS}")
        return
    if kind in ("openai", "vllm"):
        from .openai_policy import parse_spec

        parse_spec(arg)
        return
    if kind == "hf":
        from .hf_policy import HFPolicy

        HFPolicy.from_spec(arg)  # reads config.json only: the weights load lazily
        return
    raise ValueError(f"unknown policy spec {spec!r}; valid forms: {VALID_FORMS}")


def preflight(spec: str) -> str:
    """Prove ``spec`` can act; returns a one-line detail, raises :class:`PreflightError`."""
    try:
        check_spec(spec)
    except ValueError as e:
        raise PreflightError(str(e)) from None
    kind, _, arg = spec.partition(":")
    if kind in ("openai", "vllm"):
        return _openai(arg)
    if kind == "hf":
        return _hf(arg)
    if kind in ("micro", "checkpoint"):
        return _micro(arg)
    return "built in"


def probe_png(width: int = 56, height: int = 112) -> bytes:
    """A small phone-shaped image (PNG), enough for a server or processor to accept one."""
    import cv2
    import numpy as np

    img = np.full((height, width, 3), 240, np.uint8)
    img[: height // 8] = (90, 60, 30)
    ok, buf = cv2.imencode(".png", img)
    assert ok
    return buf.tobytes()


def _openai(arg: str, models_timeout: float = 5.0) -> str:
    import httpx

    from .openai_policy import SYSTEMS, encode_image, parse_spec

    s = parse_spec(arg)
    try:
        r = httpx.get(f"{s.url}/models", timeout=models_timeout, headers={"Authorization": "Bearer EMPTY"})
    except httpx.TimeoutException:
        raise PreflightError(f"the model server at {s.url} did not answer GET /models within {models_timeout:g} s")
    except httpx.HTTPError as e:
        raise PreflightError(f"cannot reach the model server at {s.url}: {_why(e)}") from None
    if r.status_code != 200:
        raise PreflightError(f"the model server at {s.url} answered GET /models with HTTP {r.status_code}")
    try:
        served = [str(m.get("id")) for m in r.json().get("data") or []]
    except (ValueError, AttributeError):
        raise PreflightError(f"{s.url}/models is not an OpenAI-compatible model list") from None
    if s.model not in served:
        raise PreflightError(f"the model server at {s.url} does not serve {s.model!r}; it serves: "
                             + (", ".join(served) or "no models"))
    msgs = [{"role": "system", "content": SYSTEMS[s.prompt_format]},
            {"role": "user", "content": [{"type": "image_url", "image_url": {"url": encode_image(probe_png(), "png", 0)}},
                                         {"type": "text", "text": "Task: reply with one short sentence."}]}]
    t0 = time.perf_counter()
    try:
        c = httpx.post(f"{s.url}/chat/completions", timeout=s.timeout, headers={"Authorization": "Bearer EMPTY"},
                       json={"model": s.model, "messages": msgs, "max_tokens": 16, "temperature": 0})
    except httpx.TimeoutException:
        raise PreflightError(f"the model server at {s.url} did not complete a probe request within {s.timeout:g} s")
    except httpx.HTTPError as e:
        raise PreflightError(f"cannot reach the model server at {s.url}: {_why(e)}") from None
    try:
        text = c.json()["choices"][0]["message"]["content"] if c.status_code == 200 else None
    except (ValueError, KeyError, IndexError, TypeError):
        text = None
    if not isinstance(text, str):
        raise PreflightError(f"the model server at {s.url} answered a probe completion with an image with HTTP "
                             f"{c.status_code} and no text: {c.text[:160]!r}")
    return f"{s.model} at {s.url}: probe with an image answered in {time.perf_counter() - t0:.2f} s"


def _why(e: Exception) -> str:
    msg = str(e) or type(e).__name__
    return "connection refused" if "refused" in msg.lower() else msg.splitlines()[0][:160]


def _hf(arg: str) -> str:
    from actionmap.observation import Observation, Screen

    from .hf_policy import HFPolicy

    pol = HFPolicy.from_spec(arg)
    try:
        lm = pol.loaded()
    except Exception as e:  # noqa: BLE001 - any failure to load is the user's to fix
        raise PreflightError(f"hf checkpoint {pol.path} does not load: {type(e).__name__}: {e}"[:300]) from None
    if not lm.vision:
        return f"{pol.path}: text-only checkpoint loaded (it reads the UI elements, not the screenshot)"
    obs = Observation(screenshot=probe_png(), image_format="png", screen=Screen(width=56, height=112))
    pol.reset("Open the settings.", {})
    try:
        text, image = pol._render(lm, obs, [])
        lm.processor(text=[text], images=[image], return_tensors="pt")
    except Exception as e:  # noqa: BLE001
        raise PreflightError(f"hf checkpoint {pol.path}: its processor does not accept an image: "
                             f"{type(e).__name__}: {e}"[:300]) from None
    return f"{pol.path}: loaded; its processor accepts an image"


def _micro(arg: str) -> str:
    from .micro import load_micro_policy

    try:
        pol: Any = load_micro_policy(arg)
    except FileNotFoundError as e:
        raise PreflightError(str(e)) from None
    except Exception as e:  # noqa: BLE001 - a checkpoint written by other code: weights that do not fit
        raise PreflightError(f"micro checkpoint {arg} does not match this code's network: "
                             f"{type(e).__name__}: {str(e).splitlines()[0]}"[:300]) from None
    return f"micro checkpoint {arg} (hash {pol.checkpoint_hash})"


def preflight_all(specs: dict[str, str]) -> dict[str, str]:
    """Every named spec preflighted once (the same spec named twice is checked once)."""
    seen: dict[str, str] = {}
    for spec in specs.values():
        if spec not in seen:
            seen[spec] = preflight(spec)
    return seen
