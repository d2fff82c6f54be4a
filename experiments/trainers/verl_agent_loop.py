"""verl agent loop ``s2r_phone``: verl's rollout plays whole phone episodes on s2r's simulator, in process.

Why: verl trains multi-turn policies through agent loops — an ``AgentLoopBase`` subclass whose
``run`` alternates the trainer's own inference server with an environment and hands back one
token sequence with a mask. This loop makes the environment an s2r ``SimGymEnv`` (pages of a
shared headless Chromium, no server between), so verl's PPO/GRPO trains a phone policy with
rewards from s2r's judge.

One ``run`` (one dataset sample)
--------------------------------
* The sample names its task instance in ``extra_info`` (the usual verl parquet column):
  ``{"task": "<template id>", "seed": N}`` (top-level ``task``/``seed`` fields work too).
  verl calls ``run`` ``rollout.n`` times per sample; the env is deterministic, so every member
  of a GRPO group starts from the same phone (same task, seed, screen) without sharing state.
* ``areset`` the env on that instance; the chat is the system prompt plus the first observation
  as text (``gym_prompt``: task + UI elements). Its tokens (verl's Continuous Token builder,
  i.e. the chat template) are the prompt.
* Each turn: ``server_manager.generate`` (token ids in, token ids and log-probs out) writes one
  action; its tokens join the response with mask 1. The decoded text goes to ``astep`` as is
  (text that is no action costs ``invalid_penalty``). Unless the episode is over, the next
  observation is appended as a user turn, its tokens with mask 0.
* The episode ends at a terminal action or at the env's step budget, and the judge scores it;
  ``reward_score`` is the episode's summed env reward (the judge's success — or progress — minus
  the invalid-action penalties), so verl's reward manager is not consulted. If the response
  budget (``rollout.response_length``) runs out first, the episode is not judged:
  ``reward_score`` is the penalties so far and ``extra_fields["s2r_judged"]`` is False.

Knobs: the env's step budget is ``max_steps`` if given, else ``rollout.multi_turn.max_assistant_turns``,
else each task's own. Loop arguments (``pages``, ``reward``, ``invalid_penalty``, ``max_steps``,
``max_elements``, ``turn_tokens``, ``flavor``) come from the agent-loop config file entry, which
verl passes to the constructor.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from uuid import uuid4

from pydantic import BaseModel, Field
from verl.experimental.agent_loop.agent_loop import (
    AgentLoopBase,
    AgentLoopOutput,
    register,
)
from verl.utils.profiler import simple_timer

from experiments.trainers.gym_prompt import first_messages, observation_text

AGENT_NAME = "s2r_phone"
"""The name samples give in their ``agent_name`` column (and the agent-loop config's ``name``)."""


class EpisodeKey(BaseModel):
    """Which task instance one sample plays."""

    task: str
    seed: int = Field(ge=0, le=2**32 - 1)


def episode_key(sample: Mapping[str, Any]) -> EpisodeKey:
    """The sample's task instance: ``extra_info["task"/"seed"]``, else top-level ``task``/``seed``."""
    extra = sample.get("extra_info")
    source = extra if isinstance(extra, Mapping) and "task" in extra else sample
    if "task" not in source:
        raise ValueError("an s2r_phone sample names its task instance: extra_info={'task': <template id>, "
                         f"'seed': N}}; got fields {sorted(sample)}")
    return EpisodeKey(task=str(source["task"]), seed=int(source.get("seed", 0)))


class PhoneLoopConfig(BaseModel):
    """The loop's own arguments (from the agent-loop config entry)."""

    pages: int | None = Field(None, ge=1, description="Live pages per device profile (None: sim.env's default).")
    flavor: str = "sim"
    reward: str = Field("success", description="The env's reward: 'success' (the judge) or 'progress'.")
    invalid_penalty: float = Field(0.1, ge=0)
    max_steps: int | None = Field(None, ge=1, description="Env step budget (None: max_assistant_turns, else the task's).")
    max_elements: int = Field(40, ge=0, description="UI elements listed per observation.")
    turn_tokens: int = Field(128, ge=1, description="Most tokens generated for one action.")


@register(AGENT_NAME)
class PhoneAgentLoop(AgentLoopBase):
    """Plays one s2r phone episode per ``run``: see the module docstring."""

    def __init__(self, *args: Any, pages: int | None = None, flavor: str = "sim", reward: str = "success",
                 invalid_penalty: float = 0.1, max_steps: int | None = None, max_elements: int = 40,
                 turn_tokens: int = 128, pool: Any = None, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.prompt_length = int(self.rollout_config.prompt_length)
        self.response_length = int(self.rollout_config.response_length)
        turns = self.rollout_config.multi_turn.get("max_assistant_turns") if "multi_turn" in self.rollout_config else None
        self.loop_config = PhoneLoopConfig(pages=pages, flavor=flavor, reward=reward, invalid_penalty=invalid_penalty,
                                           max_steps=max_steps or turns, max_elements=max_elements,
                                           turn_tokens=turn_tokens)
        self.pool = pool

    def make_env(self, key: EpisodeKey) -> Any:
        """A text-observation ``SimGymEnv`` on the sample's task (the shared page pool)."""
        from s2r.gym.sim import SimGymEnv

        c = self.loop_config
        return SimGymEnv(task=key.task, seed=key.seed, flavor=c.flavor, max_steps=c.max_steps, reward=c.reward,
                         invalid_penalty=c.invalid_penalty, pixels=False, pages=c.pages, pool=self.pool)

    async def run(self, sampling_params: dict[str, Any], priority: int = 0, **kwargs: Any) -> AgentLoopOutput:
        key = episode_key(kwargs)
        c = self.loop_config
        metrics: dict[str, Any] = {}
        env = self.make_env(key)
        try:
            with simple_timer("tool_calls", metrics):
                obs, start = await env.areset(options={"task": key.task, "seed": key.seed})
            messages = first_messages(obs, max_elements=c.max_elements)
            ids = await self.ct_build_initial_tokens(messages)
            mask: list[int] = []
            logprobs: list[float] = []
            full_determinism = bool(self.rollout_config.get("full_determinism", False))
            request_id = f"det-{int(priority)}" if full_determinism else uuid4().hex
            total, steps, invalid, observed, info = 0.0, 0, 0, 0, {}
            over, ended = False, "response_length"
            while len(mask) < self.response_length:
                params = {**sampling_params, "max_tokens": min(c.turn_tokens, self.response_length - len(mask))}
                with simple_timer("generate_sequences", metrics):
                    out = await self.server_manager.generate(request_id=request_id, prompt_ids=ids,
                                                             sampling_params=params)
                if metrics.get("num_preempted") is None:
                    metrics["num_preempted"] = out.num_preempted if out.num_preempted is not None else -1
                merged, mask, lps = await self.ct_merge_assistant_token(
                    ids, out.token_ids, mask, logprobs if (logprobs or out.log_probs) else None,
                    assistant_logprobs=out.log_probs or None)
                ids, logprobs = merged.token_ids, lps or []
                text = self.tokenizer.decode(out.token_ids, skip_special_tokens=True)
                with simple_timer("tool_calls", metrics):
                    obs, reward, terminated, truncated, info = await env.astep(text)
                total += float(reward)
                steps += 1
                invalid += int(bool(info.get("invalid_action")))
                if terminated or truncated:
                    over, ended = True, str(info.get("terminated_by", "max_steps" if truncated else "action"))
                    break
                before = [*messages, {"role": "assistant", "content": text}]
                messages = [*before, {"role": "user",
                                      "content": observation_text(obs, max_elements=c.max_elements, info=info)}]
                merged, next_mask, lps = await self.ct_merge_context_msg(before, messages, ids, mask,
                                                                         logprobs or None)
                if len(next_mask) >= self.response_length:  # the observation does not fit: stop unjudged
                    break
                ids, mask, logprobs = merged.token_ids, next_mask, lps or []
                observed += 1
        finally:
            env.close()

        verdict = info.get("verdict") if over else None
        response_ids = ids[len(ids) - len(mask):] if mask else []
        prompt_ids = ids[: len(ids) - len(mask)]
        n = self.response_length
        extra = {
            "s2r_task": key.task, "s2r_seed": key.seed, "s2r_instance_id": start.get("instance_id"),
            "s2r_steps": steps, "s2r_invalid_actions": invalid, "s2r_terminated_by": ended, "s2r_judged": verdict is not None,
            "s2r_success": bool(info.get("is_success", False)), "s2r_verdict": verdict,
            "turn_scores": [], "tool_rewards": [],  # the schema verl's own loops keep
            "reward_extra_info": {"s2r_success": float(bool(info.get("is_success", False))),
                                  "s2r_progress": float(verdict["progress"]) if verdict else 0.0,
                                  "s2r_steps": float(steps), "s2r_invalid_actions": float(invalid)},
        }
        return AgentLoopOutput(prompt_ids=prompt_ids, response_ids=response_ids[:n], response_mask=mask[:n],
                               response_logprobs=logprobs[:n] if logprobs else None, reward_score=total,
                               num_turns=1 + steps + observed, metrics=metrics, extra_fields=extra)
