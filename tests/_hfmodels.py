"""Tiny real ``transformers`` checkpoints built offline, for the tests of the ``hf:PATH`` adapter
and of its preflight: a 2-layer Llama with random weights and a byte-level BPE tokenizer trained
here on the prompt text, and a tiny Llava (CLIP vision tower + Llama text model) with its
processor, each written with ``save_pretrained``. A plain helper module (no tests in it), so
test modules import it instead of each other.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

transformers = pytest.importorskip("transformers")
tokenizers = pytest.importorskip("tokenizers")
torch = pytest.importorskip("torch")

from transfer.policies.prompts import SYSTEMS  # noqa: E402

__all__ = ["CHATML", "VL_CHATML", "tokenizer", "checkpoint", "vl_checkpoint"]

CHATML = ("{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
          "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}")
SPECIALS = ["<|im_start|>", "<|im_end|>", "<pad>", "<image>"]
# the vision-language template: an image part becomes the processor's image token
VL_CHATML = ("{% for m in messages %}<|im_start|>{{ m['role'] }}\n{% for c in m['content'] %}"
             "{% if c['type'] == 'image' %}<image>{% else %}{{ c['text'] }}{% endif %}{% endfor %}<|im_end|>\n"
             "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}")


def tokenizer(with_template: bool) -> Any:
    """A byte-level BPE tokenizer trained offline on the prompt text: encodes any string losslessly."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=600, special_tokens=SPECIALS,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    corpus = [*SYSTEMS.values(), "Task: Turn on Bluetooth\n\nPrevious actions:\nNo previous actions.",
              "UI elements ([index] class 'label' grid=(left, top, right, bottom)):\n[0] TextView 'Settings'"] * 4
    tok.train_from_iterator(corpus, trainer)
    fast = transformers.PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<|im_end|>", pad_token="<pad>",
                                                additional_special_tokens=["<|im_start|>", "<image>"])
    if with_template:
        fast.chat_template = CHATML
    return fast


def checkpoint(path: Path, with_template: bool = True) -> Path:
    """A tiny random-weight Llama causal LM plus its tokenizer, as ``save_pretrained`` writes them."""
    tok = tokenizer(with_template)
    cfg = transformers.LlamaConfig(vocab_size=len(tok), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                   num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=16384,
                                   eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id, bos_token_id=None)
    torch.manual_seed(0)
    transformers.LlamaForCausalLM(cfg).save_pretrained(path)
    tok.save_pretrained(path)
    return path


def vl_checkpoint(path: Path) -> Path:
    """A tiny random-weight Llava (CLIP vision tower + Llama text model) with its processor."""
    tok = tokenizer(False)
    ip = transformers.CLIPImageProcessor(size={"shortest_edge": 28}, crop_size={"height": 28, "width": 28})
    proc = transformers.LlavaProcessor(image_processor=ip, tokenizer=tok, chat_template=VL_CHATML,
                                       image_token="<image>", patch_size=14, vision_feature_select_strategy="default",
                                       num_additional_image_tokens=1)
    cfg = transformers.LlavaConfig(
        text_config=transformers.LlamaConfig(vocab_size=len(tok), hidden_size=32, intermediate_size=64,
                                             num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                                             max_position_embeddings=16384, eos_token_id=tok.eos_token_id,
                                             pad_token_id=tok.pad_token_id, bos_token_id=None),
        vision_config=transformers.CLIPVisionConfig(hidden_size=32, intermediate_size=64, num_hidden_layers=1,
                                                    num_attention_heads=2, image_size=28, patch_size=14),
        image_token_id=tok.convert_tokens_to_ids("<image>"), vision_feature_layer=-1,
        vision_feature_select_strategy="default")
    torch.manual_seed(0)
    transformers.LlavaForConditionalGeneration(cfg).save_pretrained(path)
    proc.save_pretrained(path)
    return path
