"""The episode record: one line of ``episodes.jsonl`` per finished episode.

Append-only and self-describing, so a run directory can be re-reported, merged with
another run, or resumed after a crash without re-running anything already recorded.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Backend = Literal["sim", "device"]


def episode_key(policy: str, task_id: str, seed: int, backend: str, target: str, repeat: int) -> str:
    """Deterministic id of an episode *slot*: the same slot is never run twice in a run."""
    raw = json.dumps([policy, task_id, seed, backend, target, repeat])
    return hashlib.sha1(raw.encode()).hexdigest()[:16]


class EpisodeRecord(BaseModel):
    model_config = ConfigDict(extra="allow")

    episode_id: str = Field(description="episode_key(...) of the slot this episode filled.")
    run_id: str = ""
    policy: str = Field(description="Name the run gave the policy (e.g. base, trained, oracle).")
    policy_spec: str = ""
    checkpoint_hash: str | None = None
    task_id: str = Field(description="Template id.")
    seed: int
    repeat: int = 0
    split: str = ""
    instruction: str = ""
    difficulty: str | None = None
    backend: Backend
    target: str = Field("", description="Sim profile/flavor or device serial: what the episode ran on.")
    device_serial: str | None = None
    device_model: str | None = None
    profile: str | None = None
    flavor: str | None = None
    app_families: dict[str, str] | None = Field(None, description="On a phone: app id → the family s2r read its "
                                                                  "screens by (device.appfamilies).")

    success: bool | None = Field(None, description="None when undetermined or errored.")
    progress: float = 0.0
    side_effects: list[str] = Field(default_factory=list)
    false_complete: bool = False
    undetermined: bool = False
    undetermined_fields: list[str] = Field(default_factory=list)
    over_truncated: bool = False
    terminated_by: Literal["complete", "abort", "answer", "max_steps", "error"] = "max_steps"
    steps: int = 0
    invalid_actions: int = 0
    checks: list[dict[str, Any]] = Field(default_factory=list)

    error: str | None = None
    error_kind: Literal["policy", "infra", "bridge", "unsupported"] | None = Field(
        None, description="unsupported = the backend cannot reproduce the task's setup (not retried, not counted).")
    infra_source: Literal["policy_server", "phone", "sim"] | None = Field(
        None, description="For infra errors: what failed — the policy's model server (down, refusing, rate "
                          "limiting), a phone, or a simulator page.")
    attempts: int = Field(1, description="1 + infrastructure retries before this record.")
    retried_from: str | None = Field(None, description="Device serial an infra failure moved this episode off "
                                                       "(HOST/PHONE when it moved between hosts).")
    host: str | None = Field(None, description="The cluster host that ran the episode (None: run on this machine).")
    left_on_phone: list[str] = Field(default_factory=list,
                                     description="What this episode's teardown could not remove or restore (devices).")

    timings: dict[str, float] = Field(default_factory=dict)
    policy_step_ms: list[float] = Field(default_factory=list,
                                        description="The policy's time per step (a model server's round trip).")
    tokens: dict[str, int] = Field(default_factory=dict,
                                   description="prompt_tokens / completion_tokens summed, when the server reports usage.")
    trace_path: str | None = None
    started_at: float = 0.0
    finished_at: float = 0.0

    @property
    def policy_server_outage(self) -> bool:
        """An infrastructure error of the policy's model server (not of the phone)."""
        return self.error_kind == "infra" and self.infra_source == "policy_server"

    @property
    def counted(self) -> bool:
        """Does this episode count toward success rates? (Not undetermined, not an infra error.)"""
        return not self.undetermined and self.error_kind != "infra" and self.success is not None
