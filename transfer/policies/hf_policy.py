"""A local Hugging Face ``transformers`` checkpoint as a policy (``hf:PATH?...``).

Why: a checkpoint on disk (a fine-tuned Qwen-VL, a small text LM) should run as a policy
without standing up a model server. The prompt is the one the OpenAI-compatible adapter
sends (:mod:`.prompts`), so a model scores the same whichever way it is served.

Two kinds of checkpoints are handled, told apart by ``config.json``:

* vision-language (the config has a vision part, e.g. Qwen2.5-VL / Qwen3-VL): the
  screenshot goes into the chat template as an image (``AutoProcessor`` +
  ``AutoModelForImageTextToText``);
* text-only causal LMs: the UI elements are listed as text (``with_elements`` is forced on,
  the model has no other way to see the screen).

The model loads lazily on the first step and is shared by every policy object of the same
checkpoint/device/dtype (the runner makes one policy per worker thread); generation on a
shared model is serialized. The reply is parsed with :func:`actionmap.parse.parse_action`;
an unparseable reply is returned as the :class:`ActionParseError` (an invalid action).
"""

from __future__ import annotations

import hashlib
import importlib.util
import io
import json
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

from actionmap.observation import Observation
from actionmap.parse import ActionParseError, parse_action

from .base import BasePolicy, PolicyOutput, StepRecord
from .prompts import SYSTEMS, user_text

INSTALL_HINT = "pip install 's2r[hf]'  (or: pip install 'transformers>=4.45')"
SPEC_HELP = ("hf policy spec is hf:PATH[?format=qwen|uitars&elements=1&device=cpu|cuda|auto"
             "&dtype=auto|float32|bfloat16|float16&max_new_tokens=256&temperature=0&seed=0&grid=1000&history=4]")
DEVICES = ("cpu", "cuda", "auto")
DTYPES = ("auto", "float32", "bfloat16", "float16")
_SPEC_KEYS = {"format", "elements", "device", "dtype", "max_new_tokens", "temperature", "seed", "grid", "history"}
_WEIGHT_SUFFIXES = (".safetensors", ".bin", ".pt", ".pth")


def is_vision_config(config: dict[str, Any]) -> bool:
    """A checkpoint is vision-language when its config carries a vision tower."""
    return any(k in config for k in ("vision_config", "vision_tower", "visual")) or "image_token_id" in config


def checkpoint_fingerprint(path: Path) -> str:
    """A cheap content fingerprint: config.json plus the name, size, head and tail of each weight file.

    Why not a full hash: multi-GB weights would take minutes to read at every run start.
    """
    h = hashlib.sha1()
    cfg = path / "config.json"
    if cfg.is_file():
        h.update(cfg.read_bytes())
    for f in sorted(p for p in path.iterdir() if p.suffix in _WEIGHT_SUFFIXES and p.is_file()):
        size = f.stat().st_size
        h.update(f"{f.name}:{size}".encode())
        with f.open("rb") as fh:
            h.update(fh.read(1 << 16))
            if size > 1 << 17:
                fh.seek(-(1 << 16), io.SEEK_END)
                h.update(fh.read())
    return h.hexdigest()[:12]


def require_transformers() -> None:
    """Fail with the fix, not a bare ModuleNotFoundError deep inside a run."""
    if importlib.util.find_spec("transformers") is None:
        raise ImportError(f"the hf: policy needs the `transformers` package, which is not installed: {INSTALL_HINT}")


@dataclass
class _Loaded:
    """A loaded checkpoint, shared by every policy object that names it."""

    model: Any
    processor: Any  # a tokenizer (text LM) or a processor (vision-language)
    vision: bool
    device: str
    lock: threading.Lock


_MODELS: dict[tuple[str, str, str], _Loaded] = {}
_MODELS_LOCK = threading.Lock()


def _resolve_device(device: str) -> str:
    import torch

    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cuda" and not torch.cuda.is_available():
        raise ValueError("device=cuda asked for, but torch sees no CUDA device (use device=cpu or device=auto)")
    return device


def _torch_dtype(dtype: str, device: str) -> Any:
    import torch

    if dtype == "auto":
        if device == "cpu":
            return torch.float32
        return torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
    return {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}[dtype]


def _dtype_kwarg(dtype: Any) -> dict[str, Any]:
    """``dtype=`` since transformers 4.56, ``torch_dtype=`` before."""
    import transformers

    major, minor = (int(x) for x in transformers.__version__.split(".")[:2])
    return {"dtype": dtype} if (major, minor) >= (4, 56) else {"torch_dtype": dtype}


def _load(path: Path, vision: bool, device: str, dtype: str) -> _Loaded:
    key = (str(path), device, dtype)
    with _MODELS_LOCK:
        if key in _MODELS:
            return _MODELS[key]
        require_transformers()
        import transformers

        dev = _resolve_device(device)
        kw = _dtype_kwarg(_torch_dtype(dtype, dev))
        if vision:
            processor = transformers.AutoProcessor.from_pretrained(path, local_files_only=True)
            auto = getattr(transformers, "AutoModelForImageTextToText", None) or getattr(
                transformers, "AutoModelForVision2Seq")
            model = auto.from_pretrained(path, local_files_only=True, **kw)
        else:
            processor = transformers.AutoTokenizer.from_pretrained(path, local_files_only=True)
            model = transformers.AutoModelForCausalLM.from_pretrained(path, local_files_only=True, **kw)
        model.to(dev)
        model.eval()
        loaded = _MODELS[key] = _Loaded(model, processor, vision, dev, threading.Lock())
        return loaded


def _plain_prompt(system: str, user: str, image_token: str | None = None) -> str:
    """The fallback when a checkpoint ships no chat template."""
    image = f"{image_token}\n" if image_token else ""
    return f"System: {system}\n\nUser: {image}{user}\n\nAssistant:"


class HFPolicy(BasePolicy):
    """A local ``transformers`` checkpoint as a policy; see the module docstring."""

    name = "hf"

    def __init__(self, path: str | Path, *, prompt_format: str = "qwen", with_elements: bool = False,
                 device: str = "cpu", dtype: str = "auto", max_new_tokens: int = 256, temperature: float = 0.0,
                 seed: int = 0, grid: int = 1000, history_window: int = 4):
        super().__init__()
        self.path = Path(path).expanduser().resolve()
        if not self.path.is_dir():
            raise ValueError(f"hf policy: checkpoint directory not found: {self.path}")
        cfg_file = self.path / "config.json"
        if not cfg_file.is_file():
            raise ValueError(f"hf policy: {self.path} has no config.json (expected a save_pretrained directory)")
        if prompt_format not in SYSTEMS:
            raise ValueError(f"hf policy: format must be one of {sorted(SYSTEMS)}, not {prompt_format!r}")
        if device not in DEVICES:
            raise ValueError(f"hf policy: device must be one of {DEVICES}, not {device!r}")
        if dtype not in DTYPES:
            raise ValueError(f"hf policy: dtype must be one of {DTYPES}, not {dtype!r}")
        if max_new_tokens < 1:
            raise ValueError("hf policy: max_new_tokens must be >= 1")
        require_transformers()
        try:
            config = json.loads(cfg_file.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as e:
            raise ValueError(f"hf policy: cannot read {cfg_file}: {e}") from e
        self.vision = is_vision_config(config)
        self.prompt_format, self.device, self.dtype = prompt_format, device, dtype
        # a text-only model sees the screen only through the element list
        self.with_elements = with_elements or not self.vision
        self.max_new_tokens, self.temperature, self.seed = max_new_tokens, temperature, seed
        self.grid, self.history_window = grid, history_window
        self.checkpoint_hash = checkpoint_fingerprint(self.path)
        self.last_prompt: str | None = None
        self.last_raw: str | None = None
        self._loaded: _Loaded | None = None

    @classmethod
    def from_spec(cls, spec: str) -> "HFPolicy":
        """``/ckpt/dir?format=qwen&elements=1&device=cpu&max_new_tokens=256`` → policy."""
        path, _, query = spec.partition("?")
        if not path:
            raise ValueError(SPEC_HELP)
        q = {k: v[-1] for k, v in parse_qs(query, keep_blank_values=True).items()}
        unknown = sorted(set(q) - _SPEC_KEYS)
        if unknown:
            raise ValueError(f"unknown hf policy option(s) {unknown}; {SPEC_HELP}")
        try:
            max_new_tokens, seed = int(q.get("max_new_tokens", 256)), int(q.get("seed", 0))
            grid, history = int(q.get("grid", 1000)), int(q.get("history", 4))
            temperature = float(q.get("temperature", 0))
        except ValueError as e:
            raise ValueError(f"bad hf policy option value ({e}); {SPEC_HELP}") from e
        return cls(path, prompt_format=q.get("format", "qwen"), with_elements=q.get("elements", "0") == "1",
                   device=q.get("device", "cpu"), dtype=q.get("dtype", "auto"), max_new_tokens=max_new_tokens,
                   temperature=temperature, seed=seed, grid=grid, history_window=history)

    def loaded(self) -> _Loaded:
        """The model, loaded on first use (a spec check at run start must not load GBs)."""
        if self._loaded is None:
            self._loaded = _load(self.path, self.vision, self.device, self.dtype)
        return self._loaded

    def _render(self, lm: _Loaded, obs: Observation, history: list[StepRecord]) -> tuple[str, Any]:
        """The prompt text as the model sees it (chat template applied) and the image, if any."""
        system = SYSTEMS[self.prompt_format]
        user = user_text(self.instruction, obs, history, self.history_window, self.with_elements)
        image = None
        if lm.vision and obs.screenshot:
            from PIL import Image

            image = Image.open(io.BytesIO(obs.screenshot)).convert("RGB")
        if lm.vision:
            content: list[dict[str, Any]] = ([{"type": "image"}] if image is not None else []) + [
                {"type": "text", "text": user}]
            messages: list[dict[str, Any]] = [
                {"role": "system", "content": [{"type": "text", "text": system}]},
                {"role": "user", "content": content}]
            template = getattr(lm.processor, "chat_template", None)
            if template:
                text = lm.processor.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
            else:
                token = getattr(lm.processor, "image_token", None) or "<image>"
                text = _plain_prompt(system, user, token if image is not None else None)
            return text, image
        messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
        if getattr(lm.processor, "chat_template", None):
            text = lm.processor.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
        else:
            text = _plain_prompt(system, user)
        return text, None

    def _generate(self, lm: _Loaded, text: str, image: Any) -> str:
        import torch

        if lm.vision:
            kw = {"images": [image]} if image is not None else {}
            inputs = lm.processor(text=[text], return_tensors="pt", **kw)
            tokenizer = getattr(lm.processor, "tokenizer", lm.processor)
        else:
            # the chat template already holds any BOS token; adding another would skew the prompt
            inputs = lm.processor(text, return_tensors="pt", add_special_tokens=False)
            tokenizer = lm.processor
        inputs = inputs.to(lm.device)
        n_in = inputs["input_ids"].shape[1]
        gen: dict[str, Any] = {"max_new_tokens": self.max_new_tokens, "do_sample": self.temperature > 0}
        if self.temperature > 0:
            gen["temperature"] = self.temperature
        pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
        if pad is not None:
            gen["pad_token_id"] = pad
        with lm.lock, torch.inference_mode():
            torch.manual_seed(self.seed)
            out = lm.model.generate(**inputs, **gen)
        return tokenizer.decode(out[0, n_in:], skip_special_tokens=True)

    def act(self, observation: Observation, history: list[StepRecord]) -> PolicyOutput:
        lm = self.loaded()
        text, image = self._render(lm, observation, history)
        self.last_prompt = text
        raw = self._generate(lm, text, image)
        self.last_raw = raw
        try:
            return parse_action(raw, coords="grid", grid=self.grid)
        except ActionParseError as e:
            return e
