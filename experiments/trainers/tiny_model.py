"""A tiny randomly initialised causal LM and its tokenizer, built entirely in code (no downloads).

Why: the trainer examples must run end to end on a CPU-only machine with no network — in tests
and as a smoke run before pointing them at a real checkpoint. The model (a 4-layer Qwen2,
~0.3 M parameters) is far too small to act well; it exists so that every piece of a training
loop (chat template, generation, log-probabilities, gradient steps) is exercised for real.

The tokenizer is byte-level BPE trained here, in milliseconds, on a small built-in corpus of
action JSON and UI text: it encodes any string losslessly (every byte is in the vocabulary) and
keeps the phone's prompts short. It carries a ChatML template (``<|im_start|>role ... <|im_end|>``),
the same turn format as Qwen models, with ``<|im_end|>`` as end of turn and EOS.
"""

from __future__ import annotations

from typing import Any

CHATML = ("{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
          "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}")
"""The chat template: ChatML, as Qwen models use."""

SPECIAL_TOKENS = ["<|im_start|>", "<|im_end|>", "<pad>"]
VOCAB_SIZE = 512
"""Byte alphabet (256) + specials + learned merges."""

_CORPUS = [
    '{"type": "tap", "point": [500, 500]}', '{"type": "tap", "target": 3}', '{"type": "long_press", "target": 7}',
    '{"type": "scroll", "direction": "down"}', '{"type": "type", "text": "hello", "submit": true}',
    '{"type": "key", "key": "back"}', '{"type": "key", "key": "home"}', '{"type": "open_app", "app": "settings"}',
    '{"type": "answer", "fields": {"answer": "42"}}', '{"type": "complete"}', '{"type": "abort", "reason": ""}',
    '{"type": "swipe", "start": [500, 800], "end": [500, 200]}', '{"type": "wait", "seconds": 1.0}',
    "Task: Turn on the flashlight", "Previous actions:\nNo previous actions.", "What is the next action?",
    "UI elements ([index] class 'label' grid=(left, top, right, bottom)):",
    "[0] TextView 'Settings' grid=(0, 0, 1000, 60) clickable", "[1] Switch 'Bluetooth' checkable checked",
    "[2] Button 'OK' editable focused selected scrollable", "Reward: 0.0 done: false invalid action",
    "Messages Contacts Phone Clock Calendar Calculator Files Settings Alarm Timer Stopwatch",
]


def tiny_tokenizer() -> Any:
    """A byte-level BPE ``PreTrainedTokenizerFast`` with a ChatML template, built offline."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=VOCAB_SIZE, special_tokens=SPECIAL_TOKENS, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(_CORPUS * 4, trainer)
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<|im_end|>", pad_token="<pad>",
                                   additional_special_tokens=["<|im_start|>"])
    fast.chat_template = CHATML
    fast.padding_side = "left"  # decoder-only generation pads on the left
    return fast


def tiny_model_and_tokenizer(seed: int = 0) -> tuple[Any, Any]:
    """A randomly initialised 4-layer Qwen2 causal LM (float32, ~0.3 M parameters) and its tokenizer.

    The same ``seed`` gives the same weights; the tokenizer is deterministic.
    """
    import torch
    from transformers import Qwen2Config, Qwen2ForCausalLM

    tok = tiny_tokenizer()
    cfg = Qwen2Config(vocab_size=len(tok), hidden_size=64, intermediate_size=256, num_hidden_layers=4,
                      num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=32768,
                      tie_word_embeddings=True, eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id,
                      bos_token_id=None)
    torch.manual_seed(seed)
    model = Qwen2ForCausalLM(cfg)
    model.generation_config.eos_token_id = tok.eos_token_id
    model.generation_config.pad_token_id = tok.pad_token_id
    return model, tok
