"""The local ``transformers`` adapter (``hf:PATH``) on a tiny real checkpoint built offline.

The checkpoint is a 2-layer Llama with random weights and a byte-level BPE tokenizer trained
here on the prompt text, saved with ``save_pretrained`` and loaded back through
``make_policy("hf:...")``: loading, the chat template, tokenization, generation and parsing
are all the real code paths. Only where a known reply is needed is ``generate`` replaced
(the stand-in for a trained model); everything around it stays real.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

transformers = pytest.importorskip("transformers")
tokenizers = pytest.importorskip("tokenizers")
torch = pytest.importorskip("torch")

from actionmap.actions import Tap  # noqa: E402
from actionmap.parse import ActionParseError  # noqa: E402
from sim.env import SimEnv  # noqa: E402
from transfer.policies.base import StepRecord  # noqa: E402
from transfer.policies.hf_policy import HFPolicy  # noqa: E402
from transfer.policies.prompts import SYSTEMS  # noqa: E402
from transfer.policies.registry import make_policy  # noqa: E402

from _hfmodels import checkpoint as _checkpoint, vl_checkpoint as _vl_checkpoint  # noqa: E402

TASK = "settings.query_bluetooth"


@pytest.fixture(scope="module")
def ckpt(tmp_path_factory) -> Path:
    return _checkpoint(tmp_path_factory.mktemp("tiny-llama"))


@pytest.fixture(scope="module")
def obs(sim_pool):
    return SimEnv(pool=sim_pool, screenshots=False).reset({"start": {"app": "settings"}})


def _reply_with(monkeypatch, policy: HFPolicy, text: str) -> list[dict[str, Any]]:
    """Replace only ``generate``: it returns the prompt ids followed by the real token ids of ``text``."""
    lm = policy.loaded()
    tok = lm.processor
    calls: list[dict[str, Any]] = []

    def generate(**kw: Any) -> Any:
        calls.append(kw)
        reply = tok(text + tok.eos_token, return_tensors="pt", add_special_tokens=False)["input_ids"]
        return torch.cat([kw["input_ids"], reply], dim=1)

    monkeypatch.setattr(lm.model, "generate", generate)
    return calls


def test_random_model_runs_a_real59_episode_as_invalid_actions(ckpt: Path, sim_pool, monkeypatch) -> None:
    from transfer.runner import EpisodeSpec, run_episode
    from transfer.tasks.loader import get_template

    policy = make_policy(f"hf:{ckpt}?max_new_tokens=8")
    assert isinstance(policy, HFPolicy) and not policy.vision and policy.with_elements  # forced on: text-only
    model = policy.loaded().model
    real_generate = model.generate
    new_tokens: list[int] = []

    def spy(**kw: Any) -> Any:  # the real generate, observed
        out = real_generate(**kw)
        new_tokens.append(out.shape[1] - kw["input_ids"].shape[1])
        return out

    monkeypatch.setattr(model, "generate", spy)
    inst = get_template(TASK).instantiate(0)
    spec = EpisodeSpec(policy="hf", policy_spec=f"hf:{ckpt}", task_id=TASK, seed=0, backend="sim",
                       target="default/sim", split=inst.split)
    env = SimEnv("default", "sim", pool=sim_pool, screenshots=False)
    try:
        rec = run_episode(env, policy, inst, spec, backend_info={"flavor": "sim", "profile": "default"})
    finally:
        env.close()
    # random weights babble: every step is recorded as an invalid action, the episode runs out its steps
    assert rec.steps == inst.max_steps and rec.invalid_actions == rec.steps
    assert rec.terminated_by == "max_steps" and not rec.success
    assert rec.checkpoint_hash == policy.checkpoint_hash and len(policy.checkpoint_hash or "") == 12
    assert policy.last_raw is not None and policy.last_prompt is not None
    # the model really generated once per step, within max_new_tokens; the history told it of the invalid outputs
    assert len(new_tokens) == rec.steps and all(1 <= n <= 8 for n in new_tokens)
    assert "(invalid output:" in policy.last_prompt


def test_prompt_has_instruction_elements_and_chat_template(ckpt: Path, obs) -> None:
    policy = make_policy(f"hf:{ckpt}?max_new_tokens=4")
    policy.reset("Turn on Bluetooth", {})
    out = policy.act(obs, [])
    assert isinstance(out, ActionParseError)
    prompt = policy.last_prompt
    assert prompt is not None
    assert prompt.startswith("<|im_start|>system\n" + SYSTEMS["qwen"]) and prompt.endswith("<|im_start|>assistant\n")
    assert "Task: Turn on Bluetooth" in prompt and "UI elements (" in prompt
    labels = [e.label for e in obs.elements if e.label][:5]
    assert labels and all(repr(lab) in prompt for lab in labels)
    assert "Bluetooth" in [e.text for e in obs.elements]


def test_known_reply_is_parsed_into_an_action(ckpt: Path, obs, monkeypatch) -> None:
    policy = make_policy(f"hf:{ckpt}?max_new_tokens=64")
    calls = _reply_with(monkeypatch, policy, 'Open the Bluetooth row.\n<tool_call>{"name": "mobile_use", '
                                             '"arguments": {"action": "click", "coordinate": [500, 120]}}</tool_call>')
    policy.reset("Turn on Bluetooth", {})
    a = policy.act(obs, [])
    assert isinstance(a, Tap) and a.point == (500, 120)
    # greedy by default, the budget passed through, and the ids handed in are the real tokenized prompt
    kw = calls[-1]
    assert kw["do_sample"] is False and kw["max_new_tokens"] == 64
    tok = policy.loaded().processor
    assert tok.decode(kw["input_ids"][0]) == policy.last_prompt


def test_uitars_format_and_history(ckpt: Path, obs, monkeypatch) -> None:
    policy = make_policy(f"hf:{ckpt}?format=uitars")
    _reply_with(monkeypatch, policy, "Thought: go back\nAction: press_back()")
    policy.reset("x", {})
    a = policy.act(obs, [StepRecord(step=1, action={"type": "tap", "point": [10, 20]})])
    assert a.to_json()["type"] == "key" and a.to_json()["key"] == "back"
    assert "press_back()" in (policy.last_prompt or "") and "Step 1:" in (policy.last_prompt or "")


def test_vision_language_checkpoint_sees_the_screenshot(tmp_path: Path, sim_pool, monkeypatch) -> None:
    path = _vl_checkpoint(tmp_path / "tiny-llava")
    obs = SimEnv(pool=sim_pool).reset({"start": {"app": "settings"}})
    assert obs.screenshot
    policy = make_policy(f"hf:{path}?max_new_tokens=6")
    assert isinstance(policy, HFPolicy) and policy.vision and not policy.with_elements
    model = policy.loaded().model
    assert type(model).__name__ == "LlavaForConditionalGeneration"
    real_generate, seen = model.generate, []

    def spy(**kw: Any) -> Any:  # the real generate, observed
        seen.append(kw)
        return real_generate(**kw)

    monkeypatch.setattr(model, "generate", spy)
    policy.reset("Turn on Bluetooth", {})
    out = policy.act(obs, [])
    assert isinstance(out, ActionParseError)  # random weights: an invalid action, not a crash
    prompt = policy.last_prompt or ""
    assert prompt.startswith("<|im_start|>system\n" + SYSTEMS["qwen"]) and "<image>Task: Turn on Bluetooth" in prompt
    assert "UI elements (" not in prompt  # the screen comes as pixels, not as an element list
    assert tuple(seen[-1]["pixel_values"].shape) == (1, 3, 28, 28)


def test_no_chat_template_uses_plain_format(tmp_path: Path, obs) -> None:
    path = _checkpoint(tmp_path / "plain", with_template=False)
    policy = make_policy(f"hf:{path}?max_new_tokens=2")
    policy.reset("Turn on Bluetooth", {})
    assert isinstance(policy.act(obs, []), ActionParseError)
    prompt = policy.last_prompt or ""
    assert prompt.startswith("System: ") and prompt.endswith("\n\nAssistant:") and "Task: Turn on Bluetooth" in prompt


def test_bad_specs_and_missing_dirs_are_clear(ckpt: Path, tmp_path: Path, monkeypatch) -> None:
    with pytest.raises(ValueError, match="checkpoint directory not found"):
        make_policy(f"hf:{tmp_path / 'nope'}")
    with pytest.raises(ValueError, match="no config.json"):
        make_policy(f"hf:{tmp_path}")
    with pytest.raises(ValueError, match="hf:PATH"):
        make_policy("hf:")
    with pytest.raises(ValueError, match="unknown hf policy option"):
        make_policy(f"hf:{ckpt}?temprature=1")
    with pytest.raises(ValueError, match="format must be one of"):
        make_policy(f"hf:{ckpt}?format=llava")
    with pytest.raises(ValueError, match="device must be one of"):
        make_policy(f"hf:{ckpt}?device=tpu")
    with pytest.raises(ValueError, match="bad hf policy option value"):
        make_policy(f"hf:{ckpt}?max_new_tokens=lots")
    with pytest.raises(ValueError, match="hf:PATH"):
        make_policy("nosuch:x")
    # without transformers installed, the error names the fix
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda n, *a: None if n == "transformers" else real(n, *a))
    with pytest.raises(ImportError, match=r"pip install 's2r\[hf\]'"):
        make_policy(f"hf:{ckpt}")
