"""TRL's GRPOTrainer trains against a live environment server: two real optimiser steps of a tiny
random model on the CPU, each step one GRPO group of two forked sessions playing a settings task
on the simulator through ``experiments/trainers/trl_grpo.py``'s ``rollout_func``."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import torch

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # experiments/ is a folder of the repository, not an installed package
    sys.path.insert(0, str(ROOT))

from experiments.trainers.tiny_model import tiny_model_and_tokenizer  # noqa: E402
from experiments.trainers.trl_grpo import EnvRollout, RolloutConfig, build_trainer, key_dataset  # noqa: E402
from s2r.envserver import EnvServer  # noqa: E402

GROUP, TURNS, NEW_TOKENS = 2, 2, 12


def test_grpo_trainer_steps_real_sessions(tmp_path: Path, sim_pool: Any) -> None:
    model, tokenizer = tiny_model_and_tokenizer(seed=0)
    with EnvServer(pool=sim_pool) as srv:  # the session's page pool: 2 pages per profile
        rollout = EnvRollout(RolloutConfig(url=srv.url, group=GROUP, max_turns=TURNS, max_new_tokens=NEW_TOKENS,
                                           max_elements=12))
        trainer = build_trainer(model, tokenizer, rollout, key_dataset(["train.settings.flashlight_on"], [0, 1]),
                                str(tmp_path), steps=2, use_cpu=True, gradient_checkpointing=False)
        trainer.train()
        for _ in range(100):  # each session closes on the server's thread when its client disconnects
            if srv.store.stats()["sessions"] == 0:
                break
            time.sleep(0.05)
        live = srv.store.stats()

    assert trainer.state.global_step == 2
    s = rollout.stats
    # two optimiser steps, one group each: one reset and one fork per group
    assert (s.groups, s.resets, s.forks) == (2, 2, 2)
    # every member's whole phone (state message) and first observation are identical within its group,
    # and the groups (seeds 0 and 1, or the same seed twice) were each fingerprinted
    assert len(s.start_fingerprints) == 2 and all(len(fp) == GROUP and len(set(fp)) == 1
                                                  for fp in s.start_fingerprints)
    # each episode stepped the server until it ended (a terminal action or the max_steps budget) and was judged
    assert s.episodes_done == 2 * GROUP and s.unfinished == 0
    assert 2 * GROUP <= s.env_steps <= 2 * GROUP * TURNS
    assert len(s.verdicts) == 2 * GROUP and all(v for v in s.verdicts)
    # the reward TRL logged is the server's: the mean of the episodes' summed rewards, per step
    logged = [h["rewards/env_reward/mean"] for h in trainer.state.log_history if "rewards/env_reward/mean" in h]
    assert len(logged) == 2
    for step, mean in enumerate(logged):
        episode_rewards = s.rewards[step * GROUP:(step + 1) * GROUP]
        assert abs(mean - sum(episode_rewards) / GROUP) < 1e-5
    # the rollouts were trained on: a loss and a finite gradient norm per step; the completion length TRL
    # counts is the model's tokens only (env_mask took the observations between turns out of the loss)
    losses = [h for h in trainer.state.log_history if "loss" in h and "grad_norm" in h]
    assert len(losses) == 2 and all(torch.isfinite(torch.tensor(float(h["grad_norm"]))) for h in losses)
    assert all(0 < h["completions/mean_length"] <= TURNS * NEW_TOKENS for h in losses)
    # every session the rollouts opened was closed again
    assert live["sessions"] == 0, live
