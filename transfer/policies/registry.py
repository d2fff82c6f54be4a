"""Policy specs → policy objects: ``oracle``, ``random[:SEED]``, and the ``micro:``, ``openai:``, ``hf:`` adapters."""

from __future__ import annotations

from .base import BasePolicy


def make_policy(spec: str) -> BasePolicy:
    kind, _, arg = spec.partition(":")
    if kind == "oracle":
        from .oracle_policy import OraclePolicy

        return OraclePolicy()
    if kind == "random":
        from .random_policy import RandomPolicy

        return RandomPolicy(seed=int(arg or 0))
    if kind in ("micro", "checkpoint"):
        from .micro import load_micro_policy  # type: ignore[import-not-found]

        return load_micro_policy(arg)
    if kind in ("openai", "vllm"):
        from .openai_policy import OpenAIPolicy  # type: ignore[import-not-found]

        return OpenAIPolicy.from_spec(arg)
    if kind == "hf":
        from .hf_policy import HFPolicy

        return HFPolicy.from_spec(arg)
    from .preflight import VALID_FORMS

    raise ValueError(f"unknown policy spec {spec!r}; valid forms: {VALID_FORMS}")
