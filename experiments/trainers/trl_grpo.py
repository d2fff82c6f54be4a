"""GRPO on phone tasks with TRL: the trainer's model acts on ``s2r env serve`` sessions, the judge scores.

Why: the environment server speaks OpenEnv, so an off-the-shelf RL trainer can train a policy
on the simulator without knowing anything of s2r but the action text format. This module is
the TRL example: ``GRPOTrainer`` with a ``rollout_func`` that plays whole multi-step episodes.

How one training step goes
--------------------------
* The dataset's prompts are keys, ``{"task": "<template id>", "seed": N}`` as JSON text; the
  trainer's sampler repeats each one ``--group`` times in a row, and ``rollout_func`` receives
  them as a list.
* For each key it opens a GRPO group on the server: one ``reset(task, seed, max_steps)``, then
  ``group - 1`` resets with ``fork_of`` that session, so every member starts from the same
  phone, byte for byte (each member's whole phone, from OpenEnv's ``state`` message, is hashed
  into ``EnvRollout.stats``). The ``--groups-per-step`` groups of a batch play at once.
* The model's prompt is the chat-templated task + UI elements of that first observation (a
  text policy: element list, no pixels). Each turn the trainer's own model generates one
  action per live member (sampling, batched), the text goes to ``step`` as-is (the server
  parses it; text that is no action costs ``invalid_penalty``), and the next observation is
  appended as a user turn. Episodes end when the server says ``done`` — at a terminal action
  or at ``max_steps``, when the judge's verdict is in ``info``.
* ``rollout_func`` returns, per member, ``prompt_ids`` (the shared first prompt),
  ``completion_ids`` (every generated turn plus the observations between them), ``logprobs``
  (the sampled tokens' log-probabilities; 0 for observation tokens), ``env_mask`` (1 on model
  tokens, 0 on observation tokens — TRL takes no loss on the latter) and the extra fields
  ``env_reward`` (the episode's summed server reward: the judge's success, or progress, minus
  invalid-action penalties), ``env_steps``, ``env_success``. TRL forwards extra fields to
  the reward functions by name; :func:`env_reward` returns ``env_reward``.

Run
---
Start a server (``s2r env serve --no-pixels``; it listens on 127.0.0.1:8770), then::

    python -m experiments.trainers.trl_grpo --url http://127.0.0.1:8770 --model tiny --steps 2 --group 2
    python -m experiments.trainers.trl_grpo --url http://127.0.0.1:8770 --model Qwen/Qwen2.5-0.5B-Instruct \\
        --steps 200 --group 8 --max-turns 8 --max-new-tokens 96 --tasks train.settings.flashlight_on,...

``--model tiny`` is a random ~0.3 M-parameter model built in code (see ``tiny_model.py``): a
smoke run, it cannot act. Any causal LM with a chat template works unchanged (path or hub id);
generation uses the trainer's model through ``transformers`` ``generate`` on its device.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import logging
import os
from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, Field

from experiments.trainers.gym_prompt import SYSTEM

log = logging.getLogger(__name__)


DEFAULT_TASKS = ("train.settings.flashlight_on", "train.settings.airplane_off", "train.settings.dnd_off",
                 "train.messages.query_unread_senders")
"""Short train tasks (a handful of taps each): the default dataset."""

_FLAGS = ("clickable", "editable", "checkable", "checked", "scrollable", "focused", "selected")


class GroupKey(BaseModel):
    """One dataset prompt: which task instance a GRPO group plays."""

    task: str
    seed: int = Field(ge=0)


class RolloutConfig(BaseModel):
    """How episodes are played: server, group size, and the per-episode budgets."""

    url: str
    token: str | None = Field(None, description="The server's token (a server beyond loopback needs one).")
    group: int = Field(ge=2, description="Sessions per GRPO group (one reset, group-1 forks).")
    max_turns: int = Field(3, ge=1, description="Actions per episode; passed to the server as max_steps.")
    max_new_tokens: int = Field(64, ge=1, description="Tokens per action.")
    temperature: float = Field(1.0, gt=0)
    max_elements: int = Field(40, ge=0, description="UI elements listed per observation.")
    reward: Literal["success", "progress"] = Field("success", description="The server's reward (from the judge).")
    chat_template_kwargs: dict[str, Any] = Field(
        default_factory=dict, description='Extra chat-template variables, e.g. {"enable_thinking": false}.')
    verify_forks: bool = Field(True, description="Fetch each member's phone after forking and record its hash.")


class RolloutStats(BaseModel):
    """What the rollouts did, for logs and tests: counts, and each group's start fingerprints."""

    groups: int = 0
    resets: int = 0
    forks: int = 0
    env_steps: int = 0
    invalid_actions: int = 0
    episodes_done: int = 0
    unfinished: int = Field(0, description="Episodes the server had not ended after max_turns actions (no verdict).")
    rewards: list[float] = Field(default_factory=list)
    start_fingerprints: list[list[str]] = Field(default_factory=list,
                                                description="Per group, each member's start (hash).")
    verdicts: list[dict[str, Any]] = Field(default_factory=list)


def element_line(e: dict[str, Any]) -> str:
    """One UI element as a prompt line: ``[index] Class 'label' grid=(l, t, r, b) flags``."""
    label = e.get("text") or e.get("content_desc") or e.get("hint") or str(e.get("resource_id", "")).rsplit("/", 1)[-1]
    cls = str(e.get("class_name") or e.get("class") or "View").rsplit(".", 1)[-1]
    g = e.get("grid_bounds") or e.get("grid") or {}
    box = tuple(g.values()) if isinstance(g, dict) else tuple(g)
    flags = " ".join(f for f in _FLAGS if e.get(f))
    return f"[{e.get('index', '?')}] {cls} {label!r} grid={box} {flags}".rstrip()


def observation_text(obs: Any, max_elements: int, first: bool) -> str:
    """The user turn for an observation: the task (first turn), what the last action did, the elements."""
    if first:
        parts = [f"Task: {obs.instruction}"]
    elif obs.invalid_action or obs.info.get("error"):
        parts = [f"Step {obs.step}: not carried out ({obs.info.get('error') or obs.invalid_action})."]
    else:
        parts = [f"Step {obs.step} done."]
    lines = [element_line(e) for e in obs.elements[:max_elements]]
    parts.append("UI elements ([index] class 'label' grid=(left, top, right, bottom)):\n" + "\n".join(lines))
    parts.append("What is the next action?")
    return "\n\n".join(parts)


def start_fingerprint(obs: Any, phone: str) -> str:
    """A hash of a member's start: the whole phone (state JSON) and what it sees (instruction, elements)."""
    blob = json.dumps({"phone": phone, "instruction": obs.instruction, "elements": obs.elements,
                       "foreground": obs.foreground, "keyboard": obs.keyboard_visible}, sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def chat_ids(tokenizer: Any, messages: list[dict[str, str]], add_generation_prompt: bool,
             **template_kwargs: Any) -> list[int]:
    """Token ids of a conversation through the tokenizer's chat template (a flat list)."""
    out = tokenizer.apply_chat_template(messages, add_generation_prompt=add_generation_prompt, tokenize=True,
                                        return_dict=False, **template_kwargs)
    return list(out["input_ids"] if isinstance(out, dict) else out)


def user_turn_ids(tokenizer: Any, text: str, eos_id: int, **template_kwargs: Any) -> list[int]:
    """The tokens that close an assistant turn and add a user turn plus the next generation prompt.

    Cut from a dummy conversation (as TRL does for tool results): everything after the
    end-of-turn token of the assistant's reply. The cut is found by counting end-of-turn tokens,
    not by matching a prefix, because some templates (Qwen3's) render an assistant turn
    differently once a user turn follows it.
    """
    dummy = [{"role": "user", "content": "x"}, {"role": "assistant", "content": "y"}]
    turns = chat_ids(tokenizer, dummy, add_generation_prompt=False, **template_kwargs).count(eos_id)
    full = chat_ids(tokenizer, [*dummy, {"role": "user", "content": text}], add_generation_prompt=True,
                    **template_kwargs)
    ends = [i for i, t in enumerate(full) if t == eos_id]
    if turns == 0 or len(ends) < turns:
        raise ValueError("the chat template ends no turn with the tokenizer's EOS token")
    return full[ends[turns - 1] + 1:]


def generate(model: Any, tokenizer: Any, seqs: Sequence[list[int]], max_new_tokens: int, temperature: float,
             stop_ids: set[int]) -> list[tuple[list[int], list[float]]]:
    """Sample one continuation per sequence (batched, left-padded): its ids, cut after the first stop
    token, and each sampled token's log-probability under the sampling distribution."""
    import torch

    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else next(iter(stop_ids))
    width = max(len(s) for s in seqs)
    device = next(model.parameters()).device
    ids = torch.tensor([[pad] * (width - len(s)) + list(s) for s in seqs], device=device)
    mask = torch.tensor([[0] * (width - len(s)) + [1] * len(s) for s in seqs], device=device)
    was_training = model.training
    model.eval()
    try:
        with torch.no_grad():
            out = model.generate(input_ids=ids, attention_mask=mask, do_sample=True, temperature=temperature,
                                 top_k=0, top_p=1.0, max_new_tokens=max_new_tokens, eos_token_id=sorted(stop_ids),
                                 pad_token_id=pad, return_dict_in_generate=True, output_scores=True)
    finally:
        model.train(was_training)
    new = out.sequences[:, width:]
    logps = torch.stack(out.scores, dim=1).float().log_softmax(-1).gather(-1, new.unsqueeze(-1)).squeeze(-1)
    results = []
    for row, lp in zip(new.tolist(), logps.tolist(), strict=True):
        n = next((i + 1 for i, t in enumerate(row) if t in stop_ids), len(row))
        results.append((row[:n], [float(x) for x in lp[:n]]))
    return results


class _Member:
    """One session of a group and the token record of its episode."""

    def __init__(self, env: Any, obs: Any):
        self.env, self.obs = env, obs
        self.completion: list[int] = []
        self.mask: list[int] = []
        self.logprobs: list[float] = []
        self.reward = 0.0
        self.steps = 0
        self.done = False
        self.info: dict[str, Any] = {}


class EnvRollout:
    """TRL's ``rollout_func``: plays each prompt's GRPO group on the server with the trainer's model."""

    def __init__(self, config: RolloutConfig):
        self.config = config
        self.stats = RolloutStats()
        self._generating: asyncio.Lock | None = None

    def __call__(self, prompts: list[Any], trainer: Any) -> dict[str, list[Any]]:
        g = self.config.group
        if len(prompts) % g:
            raise ValueError(f"{len(prompts)} prompts do not split into groups of {g}; set num_generations={g}")
        keys = [GroupKey.model_validate_json(_prompt_text(p)) for p in prompts[::g]]
        for i, key in enumerate(keys):  # the sampler repeats each prompt `group` times in a row
            if any(GroupKey.model_validate_json(_prompt_text(p)) != key for p in prompts[i * g:(i + 1) * g]):
                raise ValueError("prompts do not come in runs of `group` equal keys: num_generations != --group?")
        from trl.models import unwrap_model_for_generation

        tokenizer = trainer.processing_class
        stop = set(getattr(trainer, "eos_token_ids", None) or [tokenizer.eos_token_id])
        out: dict[str, list[Any]] = {k: [] for k in ("prompt_ids", "completion_ids", "logprobs", "env_mask",
                                                     "env_reward", "env_steps", "env_success")}
        # as TRL's own generation: the bare model (DDP/FSDP/DeepSpeed unwrapped, ZeRO-3 weights gathered),
        # gradient checkpointing off while it generates
        with unwrap_model_for_generation(trainer.model_wrapped, trainer.accelerator,
                                         gather_deepspeed3_params=trainer.args.ds3_gather_for_generation,
                                         gradient_checkpointing_kwargs=trainer.args.gradient_checkpointing_kwargs
                                         ) as model:
            played = asyncio.run(self._play_groups(keys, model, tokenizer, stop))
        for prompt_ids, members in played:
            for m in members:
                out["prompt_ids"].append(list(prompt_ids))
                out["completion_ids"].append(m.completion)
                out["logprobs"].append(m.logprobs)
                out["env_mask"].append(m.mask)
                out["env_reward"].append(m.reward)
                out["env_steps"].append(m.steps)
                out["env_success"].append(bool(m.info.get("is_success", False)))
        return out

    async def _play_groups(self, keys: list[GroupKey], model: Any, tokenizer: Any,
                           stop: set[int]) -> list[tuple[list[int], list[_Member]]]:
        """Every group of the batch at once: one group's sessions step while another's model turn runs."""
        self._generating = asyncio.Lock()  # one generate at a time on the model; the env steps overlap
        return list(await asyncio.gather(*(self._play_group(k, model, tokenizer, stop) for k in keys)))

    async def _play_group(self, key: GroupKey, model: Any, tokenizer: Any,
                          stop: set[int]) -> tuple[list[int], list[_Member]]:
        from s2r.envserver import S2RAction, S2REnv

        cfg = self.config
        clients = [S2REnv(cfg.url, cfg.token) for _ in range(cfg.group)]
        try:
            first = await clients[0].reset(task=key.task, seed=key.seed, pixels=False, max_steps=cfg.max_turns,
                                           reward=cfg.reward)
            sid = first.observation.session_id
            forks = await asyncio.gather(*(c.reset(fork_of=sid) for c in clients[1:]))
            members = [_Member(c, r.observation) for c, r in zip(clients, [first, *forks], strict=True)]
            self.stats.groups += 1
            self.stats.resets += 1
            self.stats.forks += len(forks)
            if cfg.verify_forks:  # the whole phone of every member (OpenEnv's state message), hashed
                states = await asyncio.gather(*(c.state() for c in clients))
                self.stats.start_fingerprints.append([start_fingerprint(m.obs, s.phone)
                                                      for m, s in zip(members, states, strict=True)])
            prompt_ids = chat_ids(tokenizer, [{"role": "system", "content": SYSTEM},
                                              {"role": "user", "content": observation_text(first.observation,
                                                                                           cfg.max_elements, True)}],
                                  add_generation_prompt=True, **cfg.chat_template_kwargs)
            eos = tokenizer.eos_token_id
            for turn in range(cfg.max_turns):
                live = [m for m in members if not m.done]
                if not live:
                    break
                async with self._generating or asyncio.Lock():
                    gens = await asyncio.to_thread(generate, model, tokenizer,
                                                   [prompt_ids + m.completion for m in live], cfg.max_new_tokens,
                                                   cfg.temperature, stop)
                for m, (ids, lps) in zip(live, gens, strict=True):
                    m.completion += ids
                    m.mask += [1] * len(ids)
                    m.logprobs += lps
                texts = tokenizer.batch_decode([ids for ids, _ in gens], skip_special_tokens=True)
                results = await asyncio.gather(*(m.env.step(S2RAction(text=t)) for m, t in zip(live, texts,
                                                                                               strict=True)))
                for m, (ids, _), r in zip(live, gens, results, strict=True):
                    m.obs, m.steps = r.observation, m.steps + 1
                    m.reward += float(r.reward or 0.0)
                    self.stats.env_steps += 1
                    self.stats.invalid_actions += r.observation.invalid_action is not None
                    if r.done:
                        m.done, m.info = True, dict(r.observation.info)
                        self.stats.episodes_done += 1
                        self.stats.verdicts.append(m.info.get("verdict") or {})
                    elif turn + 1 < cfg.max_turns:  # the next observation, as a user turn (no loss on it)
                        closing = [eos] if not ids or ids[-1] != eos else []  # a reply cut off by max_new_tokens
                        feedback = closing + user_turn_ids(
                            tokenizer, observation_text(r.observation, cfg.max_elements, False), eos,
                            **cfg.chat_template_kwargs)
                        m.completion += feedback
                        m.mask += [0] * len(feedback)
                        m.logprobs += [0.0] * len(feedback)
            self.stats.unfinished += sum(not m.done for m in members)
            self.stats.rewards += [m.reward for m in members]
            return prompt_ids, members
        finally:
            await asyncio.gather(*(c.close() for c in clients), return_exceptions=True)


def _prompt_text(prompt: Any) -> str:
    """The key inside a prompt: the text itself, or the last message's content for a conversational one."""
    return prompt if isinstance(prompt, str) else prompt[-1]["content"]


def env_reward(completions: list[Any], env_reward: list[float], **_: Any) -> list[float]:
    """The reward function: the server's episode reward (the judge's verdict), forwarded by rollout_func."""
    return [float(r) for r in env_reward]


def key_dataset(tasks: Sequence[str], seeds: Sequence[int]) -> Any:
    """The prompt dataset: one row per (task, seed), its prompt the JSON key rollout_func reads."""
    from datasets import Dataset

    rows = [GroupKey(task=t, seed=s) for t in tasks for s in seeds]
    return Dataset.from_dict({"prompt": [k.model_dump_json() for k in rows]})


def load_model(spec: str, seed: int = 0) -> tuple[Any, Any]:
    """``tiny`` (built in code) or a causal LM path / hub id with its tokenizer."""
    if spec == "tiny":
        from .tiny_model import tiny_model_and_tokenizer

        return tiny_model_and_tokenizer(seed)
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(spec)
    tokenizer.padding_side = "left"
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    return AutoModelForCausalLM.from_pretrained(spec, dtype="auto"), tokenizer


def build_trainer(model: Any, tokenizer: Any, rollout: EnvRollout, dataset: Any, output_dir: str, steps: int,
                  learning_rate: float = 1e-5, use_cpu: bool = False, groups_per_step: int = 1,
                  **overrides: Any) -> Any:
    """A ``GRPOTrainer`` whose completions come from ``rollout`` and whose reward is :func:`env_reward`.

    ``groups_per_step`` groups per optimiser step (batch = group x groups); ``beta=0`` (no reference model);
    bf16 on a GPU that has it; ``overrides`` go to ``GRPOConfig`` last.
    """
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    import torch
    from trl import GRPOConfig, GRPOTrainer

    g, cfg = rollout.config.group, rollout.config
    settings: dict[str, Any] = {
        "output_dir": output_dir, "max_steps": steps, "per_device_train_batch_size": g * groups_per_step,
        "num_generations": g, "gradient_accumulation_steps": 1, "learning_rate": learning_rate, "beta": 0.0,
        "logging_steps": 1, "save_strategy": "no", "report_to": [], "use_cpu": use_cpu, "dataloader_num_workers": 0,
        "bf16": not use_cpu and torch.cuda.is_available() and torch.cuda.is_bf16_supported(),
        "max_completion_length": cfg.max_turns * cfg.max_new_tokens,
        # TRL divides the logits by it when it scores the sampled tokens: the same as the sampling's
        "temperature": cfg.temperature,
    }
    args = GRPOConfig(**{**settings, **overrides})
    return GRPOTrainer(model=model, processing_class=tokenizer, reward_funcs=[env_reward], args=args,
                       train_dataset=dataset, rollout_func=rollout)


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m experiments.trainers.trl_grpo", description=__doc__.split("\n")[0])
    p.add_argument("--url", default="http://127.0.0.1:8770", help="The environment server (s2r env serve).")
    p.add_argument("--token", default=os.environ.get("S2R_ENV_TOKEN"), help="The server's token, if it has one.")
    p.add_argument("--model", default="tiny", help="'tiny' (random, built in code) or a causal LM path / hub id.")
    p.add_argument("--steps", type=int, default=2, help="Optimiser steps (one GRPO group each).")
    p.add_argument("--group", type=int, default=4, help="Sessions per GRPO group (num_generations).")
    p.add_argument("--groups-per-step", type=int, default=1, help="GRPO groups per optimiser step (played at once).")
    p.add_argument("--tasks", default=",".join(DEFAULT_TASKS), help="Comma-separated task template ids.")
    p.add_argument("--seeds", default="0-7", help="Seeds, 'A-B' or comma-separated.")
    p.add_argument("--max-turns", type=int, default=3, help="Actions per episode (the server's max_steps).")
    p.add_argument("--max-new-tokens", type=int, default=64)
    p.add_argument("--max-elements", type=int, default=40)
    p.add_argument("--temperature", type=float, default=1.0)
    p.add_argument("--chat-template-kwargs", type=json.loads, default={},
                   help='JSON of extra chat-template variables, e.g. \'{"enable_thinking": false}\' for Qwen3.')
    p.add_argument("--reward", choices=("success", "progress"), default="success")
    p.add_argument("--lr", type=float, default=1e-5)
    p.add_argument("--gradient-checkpointing", action=argparse.BooleanOptionalAction, default=True,
                   help="Recompute activations in the backward pass (saves memory on real models).")
    p.add_argument("--cpu", action="store_true", help="Train on the CPU even when a GPU is present.")
    p.add_argument("--output-dir", default="runs/trl_grpo")
    p.add_argument("--save", action="store_true", help="Save the trained model and tokenizer to --output-dir.")
    a = p.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    seeds = (list(range(int(a.seeds.split("-")[0]), int(a.seeds.split("-")[1]) + 1)) if "-" in a.seeds
             else [int(s) for s in a.seeds.split(",")])
    model, tokenizer = load_model(a.model)
    rollout = EnvRollout(RolloutConfig(url=a.url, token=a.token, group=a.group, max_turns=a.max_turns,
                                       max_new_tokens=a.max_new_tokens, temperature=a.temperature,
                                       max_elements=a.max_elements, reward=a.reward,
                                       chat_template_kwargs=a.chat_template_kwargs))
    trainer = build_trainer(model, tokenizer, rollout, key_dataset(a.tasks.split(","), seeds), a.output_dir,
                            a.steps, learning_rate=a.lr, use_cpu=a.cpu,
                            groups_per_step=a.groups_per_step, gradient_checkpointing=a.gradient_checkpointing)
    trainer.train()
    s = rollout.stats
    log.info("done: %d steps, %d groups, %d env steps (%d invalid), %d episodes judged, mean reward %.3f",
             trainer.state.global_step, s.groups, s.env_steps, s.invalid_actions, s.episodes_done,
             sum(s.rewards) / max(1, len(s.rewards)))
    if a.save:
        trainer.save_model(a.output_dir)
        tokenizer.save_pretrained(a.output_dir)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
