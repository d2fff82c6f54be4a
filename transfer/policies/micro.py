"""A small trainable policy that reads the instruction and the UI elements (not pixels).

It scores a list of candidate actions — tap element *i*, type a span of the instruction
into the focused field, scroll, back, open an app, answer with an element's text, complete —
with a few-hundred-kilobyte torch model that runs on a CPU in milliseconds. It is small on
purpose: it trains in the simulator in minutes on a laptop, which is what lets ``s2r demo``
show the whole sim-to-real story (train in sim → evaluate on sim and on a phone) without a GPU.

Text is embedded by hashing words and character trigrams into an ``EmbeddingBag``, so the
vocabulary is open (any script, any app). Hand-made overlap features (does this element's
label appear in the instruction?) give the model a useful prior; training decides how to
use them.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import unicodedata
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from torch import nn

from actionmap.actions import Action, Answer, Complete, Key, OpenApp, Scroll, Tap, TypeText
from actionmap.apps import APP_IDS, registry
from actionmap.observation import Observation, UIElement

from .base import BasePolicy, PolicyOutput, StepRecord

BUCKETS = 1 << 15
DIM = 48
CLASSES = ["TextView", "Button", "ImageButton", "ImageView", "EditText", "Switch", "CheckBox", "RadioButton",
           "LinearLayout", "FrameLayout", "SeekBar", "RecyclerView", "CompoundButton", "ViewGroup", "other"]
KINDS = ["tap", "type", "scroll_down", "scroll_up", "back", "open_app", "answer", "complete"]
APPS = [a for a in APP_IDS if a != "launcher"]
MAX_ELEMENTS = 80


def _norm(s: str) -> str:
    return re.sub(r"\s+", " ", unicodedata.normalize("NFKC", s or "").replace("\u2011", "-")).strip().lower()


def _words(s: str) -> list[str]:
    return re.findall(r"[\w'@.+:-]+", _norm(s))


def _h(s: str) -> int:
    return zlib.crc32(s.encode("utf-8")) % BUCKETS


def text_ids(s: str) -> list[int]:
    """Hashed word and char-trigram ids of a text (empty text → one 'empty' id)."""
    ids = []
    for w in _words(s)[:40]:
        ids.append(_h("w:" + w))
        p = f"#{w}#"
        ids.extend(_h("c:" + p[i:i + 3]) for i in range(max(1, len(p) - 2)))
    return ids or [_h("<empty>")]


_SPAN_PATTERNS = [
    r'"([^"]+)"', r"“([^”]+)”", r"'([^']{2,})'",                     # quoted
    r"\+?\d[\d\s()-]{5,}\d",                                      # phone numbers
    r"[\w.+-]+@[\w-]+\.[\w.]+",                                   # emails
    r"\b\d{1,2}:\d{2}\s?(?:[ap]\.?m\.?)?", r"\b\d{1,2}\s?[ap]\.?m\.?\b",  # times
    r"\b\d+(?:[.,]\d+)?\b",                                       # numbers
    r"(?:[A-Z][\w'’-]+)(?:\s+[A-Z][\w'’-]+)*",                    # capitalized names / titles
]


def instruction_spans(instruction: str, limit: int = 12) -> list[str]:
    """Candidate texts to type or answer: quoted strings, numbers, times, names, emails."""
    text = instruction.split("\nAnswer with fields")[0]
    out: list[str] = []
    for pat in _SPAN_PATTERNS:
        for m in re.finditer(pat, text, flags=re.I if "ap" in pat else 0):
            s = (m.group(1) if m.groups() else m.group(0)).strip().strip(".,;")
            if s and s not in out and s.lower() not in ("turn", "set", "open", "what", "the", "please", "add",
                                                         "create", "delete", "save", "make", "change", "show"):
                out.append(s)
    return out[:limit]


def answer_fields(instruction: str) -> list[str]:
    return re.findall(r'"(\w+)": <', instruction) or ["answer"]


@dataclass
class Candidate:
    kind: str
    action: Action
    text: str
    feats: list[float]


class Featurizer:
    """Observation + instruction + history → candidates with features."""

    N_FEATS = 26

    def candidates(self, obs: Observation, instruction: str, history: list[StepRecord]) -> list[Candidate]:
        instr = _norm(instruction.split("\nAnswer with fields")[0])
        iw = set(_words(instr))
        is_query = "Answer with fields" in instruction
        tapped: dict[int, int] = {}
        last_kind = ""
        for h in history:
            a = h.action or {}
            if a.get("type") == "tap" and a.get("target") is not None:
                tapped[a["target"]] = tapped.get(a["target"], 0) + 1
            last_kind = a.get("type", "") if a else "invalid"
        step_frac = min(1.0, len(history) / 20)
        ctx = [step_frac, float(obs.keyboard_visible), float(is_query), float(last_kind == "type"),
               float(obs.foreground.app in (None, "launcher"))]
        out: list[Candidate] = []
        focused = any(e.focused and e.editable for e in obs.elements)
        seen_labels: set[str] = set()
        for e in obs.elements[:MAX_ELEMENTS * 2]:
            label = e.text or e.content_desc or e.hint
            if not (e.clickable or e.checkable or e.editable or label):
                continue
            if len(out) >= MAX_ELEMENTS:
                break
            lw = set(_words(label))
            overlap = len(lw & iw) / max(1, len(lw)) if lw else 0.0
            exact = float(bool(label) and _norm(label) in instr)
            cls = e.class_name.rsplit(".", 1)[-1]
            cls_vec = [float(cls == c) for c in CLASSES[:-1]] + [float(cls not in CLASSES[:-1])]
            cx, cy = (e.grid_bounds.left + e.grid_bounds.right) / 2000, (e.grid_bounds.top + e.grid_bounds.bottom) / 2000
            feats = [overlap, exact, float(e.clickable), float(e.editable), float(e.checkable), float(e.checked),
                     float(e.focused), cx, cy, min(1.0, tapped.get(e.index, 0) / 2), float(bool(label))] + cls_vec
            out.append(Candidate("tap", Tap(target=e.index), f"{cls} {label}", feats + ctx))
            if is_query and e.text and _norm(e.text) not in seen_labels and len(e.text) < 80:
                seen_labels.add(_norm(e.text))
                for field in answer_fields(instruction)[:1]:
                    out.append(Candidate("answer", Answer(fields={field: e.text}), f"answer {e.text}",
                                         [overlap, exact] + [0.0] * 9 + cls_vec + ctx))
        if focused or obs.keyboard_visible:
            for span in instruction_spans(instruction):
                out.append(Candidate("type", TypeText(text=span, clear=True), f"type {span}",
                                     [1.0, 0.0] + [0.0] * 9 + [0.0] * len(CLASSES) + ctx))
        zero = [0.0] * (11 + len(CLASSES))
        out.append(Candidate("scroll_down", Scroll(direction="down"), "scroll down", zero + ctx))
        out.append(Candidate("scroll_up", Scroll(direction="up"), "scroll up", zero + ctx))
        out.append(Candidate("back", Key(key="back"), "back", zero + ctx))
        for app in APPS:
            names = " ".join(registry().apps[app].names)
            ov = len(set(_words(names)) & iw) / 3
            out.append(Candidate("open_app", OpenApp(app=app), f"open {app} {names}",
                                 [ov, 0.0] + [0.0] * 9 + [0.0] * len(CLASSES) + ctx))
        if not is_query:
            out.append(Candidate("complete", Complete(message="done"), "complete task done", zero + ctx))
        return out


class MicroNet(nn.Module):
    """Scores each candidate against the instruction."""

    def __init__(self, dim: int = DIM, hidden: int = 96):
        super().__init__()
        self.emb = nn.EmbeddingBag(BUCKETS, dim, mode="mean")
        self.kind = nn.Embedding(len(KINDS), dim)
        nf = Featurizer.N_FEATS + 5
        self.mlp = nn.Sequential(nn.Linear(dim * 4 + nf, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(),
                                 nn.Linear(hidden, 1))
        nn.init.normal_(self.emb.weight, std=0.1)

    def embed(self, texts: list[str]) -> torch.Tensor:
        ids, offs = [], []
        for t in texts:
            offs.append(len(ids))
            ids.extend(text_ids(t))
        return self.emb(torch.tensor(ids, dtype=torch.long), torch.tensor(offs, dtype=torch.long))

    def forward(self, instruction: str, cands: list[Candidate]) -> torch.Tensor:
        ie = self.embed([instruction.split("\nAnswer with fields")[0]])  # (1, d)
        ce = self.embed([c.text for c in cands])  # (n, d)
        ke = self.kind(torch.tensor([KINDS.index(c.kind) for c in cands]))
        feats = torch.tensor([c.feats for c in cands], dtype=torch.float32)
        x = torch.cat([ie.expand_as(ce), ce, ie * ce, ke, feats], dim=1)
        return self.mlp(x).squeeze(1)


class MicroPolicy(BasePolicy):
    """Greedy (eval) or sampling (training) policy over candidate actions."""

    name = "micro"

    def __init__(self, net: MicroNet | None = None, *, sample: bool = False, temperature: float = 1.0, seed: int = 0,
                 checkpoint_hash: str | None = None):
        super().__init__()
        self.net = net or MicroNet()
        self.feat = Featurizer()
        self.sample = sample
        self.temperature = temperature
        self.gen = torch.Generator().manual_seed(seed)
        self.checkpoint_hash = checkpoint_hash
        self.trajectory: list[dict[str, Any]] = []

    def reset(self, instruction: str, context: dict[str, Any]) -> None:
        super().reset(instruction, context)
        self.trajectory = []

    @torch.no_grad()
    def act(self, observation: Observation, history: list[StepRecord]) -> PolicyOutput:
        cands = self.feat.candidates(observation, self.instruction, history)
        logits = self.net(self.instruction, cands)
        logp = torch.log_softmax(logits / self.temperature, dim=0)
        if self.sample:
            i = int(torch.multinomial(logp.exp(), 1, generator=self.gen).item())
        else:
            i = int(torch.argmax(logp).item())
        self.trajectory.append({"cands": cands, "choice": i, "logp": float(logp[i]), "instruction": self.instruction})
        return cands[i].action

    # --- persistence ------------------------------------------------------------------------
    def save(self, path: str | Path, meta: dict[str, Any] | None = None) -> str:
        """Save weights + metadata; returns the checkpoint hash (of the weights)."""
        p = Path(path)
        p.mkdir(parents=True, exist_ok=True)
        state = {k: v.detach().cpu().to(torch.float16) if v.dtype == torch.float32 else v
                 for k, v in self.net.state_dict().items()}
        torch.save(state, p / "model.pt")
        digest = hashlib.sha256((p / "model.pt").read_bytes()).hexdigest()[:16]
        info = {"kind": "s2r-micro", "buckets": BUCKETS, "dim": DIM, "hash": digest, **(meta or {})}
        (p / "meta.json").write_text(json.dumps(info, indent=2, sort_keys=True))
        self.checkpoint_hash = digest
        return digest


def load_micro_policy(path: str | Path, **kw: Any) -> MicroPolicy:
    """Load a checkpoint directory written by :meth:`MicroPolicy.save` (or a bundled name)."""
    p = Path(path)
    if not p.exists():
        bundled = Path(__file__).resolve().parent.parent / "checkpoints" / str(path)
        if bundled.exists():
            p = bundled
        else:
            raise FileNotFoundError(f"no micro-policy checkpoint at {path} (bundled: base, trained)")
    meta = json.loads((p / "meta.json").read_text())
    net = MicroNet()
    state = torch.load(p / "model.pt", map_location="cpu", weights_only=True)
    net.load_state_dict({k: v.float() if v.dtype == torch.float16 else v for k, v in state.items()})
    net.eval()
    pol = MicroPolicy(net, checkpoint_hash=meta.get("hash"), **kw)
    return pol


def logprob_of(net: MicroNet, step: dict[str, Any], temperature: float = 1.0) -> torch.Tensor:
    logits = net(step["instruction"], step["cands"])
    return torch.log_softmax(logits / temperature, dim=0)[step["choice"]]


def entropy_of(net: MicroNet, step: dict[str, Any]) -> torch.Tensor:
    logp = torch.log_softmax(net(step["instruction"], step["cands"]), dim=0)
    return -(logp.exp() * logp).sum()


__all__ = ["MicroNet", "MicroPolicy", "Featurizer", "load_micro_policy", "logprob_of", "instruction_spans", "math"]
