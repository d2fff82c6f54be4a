"""The verl agent loop ``s2r_phone`` (``experiments.trainers.verl_agent_loop``) through verl's own classes.

The loop is built the way verl's ``AgentLoopWorker`` builds one — ``hydra.utils.instantiate`` of
its registry entry with verl's generated PPO trainer config, verl's ``RLHFDataset`` class and a
real tokenizer — and ``run`` plays whole episodes on real Chromium pages. The server manager is
verl's ``LLMServerClient`` with ``generate`` answered in process by a tiny random Qwen2
(``transformers`` ``generate``: token ids in, token ids and log-probs out), or by a scripted
"model" that writes fixed actions, so the valid-action path is covered too.

verl is an optional dependency of the trainer examples; ``make test``'s set-up installs its agent
loop (``scripts/setup.sh``), so these tests run, never skip.
"""

from __future__ import annotations

import asyncio
import os
from typing import Any

import hydra
import pytest
import torch
from omegaconf import OmegaConf
from verl.experimental.agent_loop.agent_loop import (
    AgentLoopBase,
    AgentLoopOutput,
    DictConfigWrap,
    ToolListWrap,
    _agent_loop_registry,
)
from verl.utils.dataset.rl_dataset import RLHFDataset
from verl.workers.rollout.llm_server import LLMServerClient
from verl.workers.rollout.replica import TokenOutput

from experiments.trainers import verl_agent_loop
from experiments.trainers.tiny_model import tiny_model_and_tokenizer

PENALTY = 0.1
SAMPLES = [{"task": "train.settings.flashlight_on", "seed": 3}, {"task": "train.settings.airplane_off", "seed": 5}]


def trainer_config(max_turns: int) -> Any:
    """verl's full generated PPO config, with the few rollout fields an agent loop reads filled in."""
    import verl

    cfg = OmegaConf.load(os.path.join(os.path.dirname(verl.__file__), "trainer/config/_generated_ppo_trainer.yaml"))
    r = cfg.actor_rollout_ref.rollout
    r.name, r.prompt_length, r.response_length = "vllm", 4096, 4096
    r.multi_turn.max_assistant_turns = max_turns
    return cfg


class TinyServer(LLMServerClient):
    """verl's server client whose ``generate`` runs a local causal LM instead of a remote replica;
    ``script`` (texts, one per call) replaces the model's sampling with fixed replies."""

    def __init__(self, config: Any, model: Any, tokenizer: Any, script: list[str] | None = None):
        super().__init__(config, load_balancer_handle=None)
        self.model, self.tokenizer, self.script = model.eval(), tokenizer, list(script or [])
        self.calls: list[dict[str, Any]] = []
        self._lock = asyncio.Lock()

    async def generate(self, request_id: str, *, prompt_ids: list[int], sampling_params: dict[str, Any],
                       **kwargs: Any) -> TokenOutput:
        self.calls.append({"request_id": request_id, "prompt_len": len(prompt_ids), **sampling_params})
        if self.script:
            ids = self.tokenizer.encode(self.script.pop(0), add_special_tokens=False) + [self.tokenizer.eos_token_id]
            return TokenOutput(token_ids=ids, log_probs=[0.0] * len(ids), stop_reason="completed")
        async with self._lock:  # one forward at a time on the shared model
            return await asyncio.to_thread(self._sample, prompt_ids, sampling_params)

    def _sample(self, prompt_ids: list[int], sp: dict[str, Any]) -> TokenOutput:
        ids = torch.tensor([prompt_ids])
        with torch.no_grad():
            out = self.model.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=int(sp["max_tokens"]),
                                      do_sample=True, temperature=float(sp["temperature"]), top_p=float(sp["top_p"]),
                                      top_k=max(0, int(sp["top_k"])),
                                      output_scores=True, return_dict_in_generate=True)
            lps = self.model.compute_transition_scores(out.sequences, out.scores, normalize_logits=True)[0]
        new = out.sequences[0, len(prompt_ids):].tolist()
        eos = self.tokenizer.eos_token_id
        keep = new.index(eos) + 1 if eos in new else len(new)  # nothing after the end of turn
        return TokenOutput(token_ids=new[:keep], log_probs=[float(x) for x in lps[:keep]], stop_reason="completed")


def sampling_params(cfg: Any) -> dict[str, Any]:
    """What ``AgentLoopWorker.generate_sequences`` hands every agent loop."""
    r = cfg.actor_rollout_ref.rollout
    return {"temperature": r.temperature, "top_p": r.top_p, "top_k": r.top_k, "repetition_penalty": 1.0,
            "logprobs": r.calculate_log_probs}


def build_loop(cfg: Any, server: Any, tokenizer: Any, model: Any, pool: Any, entry: Any = None) -> AgentLoopBase:
    """The loop as ``AgentLoopWorker._run_agent_loop`` instantiates it from its registry ``entry``
    (default: the one ``@register`` made), plus the test's page pool."""
    entry = entry if entry is not None else _agent_loop_registry[verl_agent_loop.AGENT_NAME]
    return hydra.utils.instantiate(config=entry,
                                   trainer_config=DictConfigWrap(config=cfg), server_manager=server,
                                   tokenizer=tokenizer, processor=None, hf_model_type=model.config.model_type,
                                   dataset_cls=RLHFDataset, data_config=DictConfigWrap(cfg.data),
                                   tools=ToolListWrap([]), pool=pool, invalid_penalty=PENALTY, turn_tokens=24)


def runs(mask: list[int], value: int) -> list[tuple[int, int]]:
    """The [start, end) spans of ``mask`` equal to ``value``."""
    spans, start = [], None
    for i, m in enumerate([*mask, 1 - value]):
        if m == value and start is None:
            start = i
        elif m != value and start is not None:
            spans.append((start, i))
            start = None
    return spans


def replay(pool: Any, sample: dict[str, Any], texts: list[str]) -> tuple[Any, list[tuple[float, dict[str, Any]]]]:
    """The same texts played on a fresh env outside the loop: its first observation and each step."""
    from s2r.gym.sim import SimGymEnv

    env = SimGymEnv(task=sample["task"], seed=sample["seed"], pixels=False, pool=pool, max_steps=len(texts),
                    invalid_penalty=PENALTY)
    obs, _ = env.reset(options=sample)
    steps = []
    for t in texts:
        _, r, _, _, info = env.step(t)
        steps.append((float(r), info))
    return obs, steps


def test_verl_agent_loop_plays_judged_episodes_with_a_tiny_model(sim_pool: Any) -> None:
    """Two samples, run concurrently as verl's worker runs them: each is a 2-step episode whose
    response interleaves the model's tokens (mask 1, with log-probs) and the env's observation
    (mask 0), and whose reward is the judge's verdict minus the invalid-action penalties — the
    same rewards a fresh env gives for the same texts."""
    model, tok = tiny_model_and_tokenizer(seed=0)
    cfg = trainer_config(max_turns=2)
    server = TinyServer(cfg, model, tok)

    async def main() -> list[AgentLoopOutput]:
        loop = build_loop(cfg, server, tok, model, sim_pool)
        assert isinstance(loop, verl_agent_loop.PhoneAgentLoop) and isinstance(loop, AgentLoopBase)
        return await asyncio.gather(*(loop.run(sampling_params(cfg), raw_prompt=[], extra_info=s, index=i)
                                      for i, s in enumerate(SAMPLES)))

    outs = asyncio.run(main())
    assert len(server.calls) == 4 and all(c["max_tokens"] == 24 and c["logprobs"] for c in server.calls)
    for sample, out in zip(SAMPLES, outs):
        ex = out.extra_fields
        assert (ex["s2r_task"], ex["s2r_seed"]) == (sample["task"], sample["seed"])
        assert ex["s2r_steps"] == 2 and ex["s2r_terminated_by"] == "max_steps" and ex["s2r_judged"], ex
        assert isinstance(ex["s2r_verdict"], dict) and ex["s2r_success"] == ex["s2r_verdict"]["success"]
        judge = 1.0 if ex["s2r_success"] else 0.0
        assert out.reward_score == pytest.approx(judge - PENALTY * ex["s2r_invalid_actions"])
        assert out.num_turns == 4  # the first prompt, two actions, one observation between them

        # the token layout verl trains on: action, observation, action
        assert len(out.response_ids) == len(out.response_mask) == len(out.response_logprobs)
        model_spans, env_spans = runs(out.response_mask, 1), runs(out.response_mask, 0)
        assert len(model_spans) == 2 and len(env_spans) == 1, out.response_mask
        observation = tok.decode(out.response_ids[slice(*env_spans[0])])
        assert "UI elements" in observation and "What is the next action?" in observation
        assert all(out.response_logprobs[i] == 0.0 for i in range(*env_spans[0]))
        assert all(lp < 0.0 for s in model_spans for lp in out.response_logprobs[slice(*s)])

        # the same texts on a fresh env: the same instance, rewards and verdict
        texts = [tok.decode(out.response_ids[slice(*s)], skip_special_tokens=True) for s in model_spans]
        obs, steps = replay(sim_pool, sample, texts)
        assert f"Task: {obs['instruction']}" in tok.decode(out.prompt_ids)
        assert sum(r for r, _ in steps) == pytest.approx(out.reward_score)
        assert steps[-1][1]["verdict"] == ex["s2r_verdict"]

        # verl's own conversion: the reward sits on the last response token
        d = out.as_dict()
        assert d["rm_scores"][-1].item() == pytest.approx(out.reward_score)
        assert d["response_mask"].sum().item() == sum(e - s for s, e in model_spans)
    assert outs[0].extra_fields["s2r_instance_id"] != outs[1].extra_fields["s2r_instance_id"]


def test_verl_agent_loop_carries_valid_actions_to_the_phone(sim_pool: Any, tmp_path: Any) -> None:
    """Replies that are actions reach the phone as actions: opening Settings is carried out, and a
    premature "complete" ends the episode (terminated, not truncated) judged a failure, reward 0.
    The loop comes from an agent-loop config file, loaded as verl's worker loads
    ``rollout.agent.agent_loop_config_path`` (how a real run names it in its Ray workers)."""
    model, tok = tiny_model_and_tokenizer(seed=0)
    cfg = trainer_config(max_turns=5)
    script = ['{"type": "open_app", "app": "settings"}', '{"type": "complete"}']
    server = TinyServer(cfg, model, tok, script=script)
    path = tmp_path / "agent_loops.yaml"
    path.write_text("- name: s2r_phone\n  _target_: experiments.trainers.verl_agent_loop.PhoneAgentLoop\n"
                    "  reward: success\n  max_elements: 30\n")
    (entry,) = OmegaConf.load(path)

    async def main() -> AgentLoopOutput:
        loop = build_loop(cfg, server, tok, model, sim_pool, entry=entry)
        assert loop.loop_config.max_elements == 30 and loop.loop_config.max_steps == 5
        return await loop.run(sampling_params(cfg), raw_prompt=[], extra_info=SAMPLES[0])

    out = asyncio.run(main())
    ex = out.extra_fields
    assert ex["s2r_steps"] == 2 and ex["s2r_invalid_actions"] == 0 and ex["s2r_terminated_by"] == "complete", ex
    assert ex["s2r_judged"] and ex["s2r_verdict"]["success"] is False and out.reward_score == 0.0
    observation = tok.decode(out.response_ids[slice(*runs(out.response_mask, 0)[0])])
    assert "Step 1 done." in observation and "Task:" not in observation
    assert [tok.decode(out.response_ids[slice(*s)], skip_special_tokens=True)
            for s in runs(out.response_mask, 1)] == script
