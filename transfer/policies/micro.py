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


APP_HINTS: dict[str, tuple[str, ...]] = {
    "settings": ("wi-fi", "wifi", "bluetooth", "airplane", "brightness", "dark", "theme", "font", "timeout", "location",
                 "rotate", "disturb", "dnd", "android", "model", "setting", "screen", "mobile", "data", "ringer", "volume",
                 "flashlight", "device"),
    "clock": ("alarm", "timer", "stopwatch", "clock", "wake"),
    "contacts": ("contact", "favorite", "favourite", "email", "company", "number"),
    "phone": ("call", "dial", "missed", "phone"),
    "messages": ("text", "sms", "message", "conversation", "draft", "send"),
    "calendar": ("event", "calendar", "meeting", "appointment", "schedule"),
    "files": ("file", "folder", "download", "document", "pdf", "rename", "move"),
    "calculator": ("calculate", "calculator", "times", "divided", "plus", "minus", "multiply"),
}
CAND_KEYS = ["overlap", "exact", "clickable", "editable", "checkable", "checked", "focused", "cx", "cy", "tapped",
             "has_label", "repeat", "same_as_last", "is_foreground_app", "app_hint", "span_len"]
CTX_KEYS = ["step", "keyboard", "query", "last_type", "launcher", "wants_on", "wants_off", "n_history_same_screen"]


class Featurizer:
    """Observation + instruction + history → candidates with features."""

    N_FEATS = len(CAND_KEYS) + len(CLASSES)
    N_CTX = len(CTX_KEYS)

    def candidates(self, obs: Observation, instruction: str, history: list[StepRecord]) -> list[Candidate]:
        instr = _norm(instruction.split("\nAnswer with fields")[0])
        iw = set(_words(instr))
        is_query = "Answer with fields" in instruction
        counts: dict[str, int] = {}
        tapped: dict[int, int] = {}
        last = ""
        for h in history:
            a = h.action or {}
            key = json.dumps({k: v for k, v in a.items() if k != "clamped"}, sort_keys=True) if a else "invalid"
            counts[key] = counts.get(key, 0) + 1
            if a.get("type") == "tap" and a.get("target") is not None:
                tapped[a["target"]] = tapped.get(a["target"], 0) + 1
            last = key
        wants_on = float(bool(re.search(r"\b(on|enable|activate|switch on|turn on)\b", instr)))
        wants_off = float(bool(re.search(r"\b(off|disable|deactivate|switch off|turn off)\b", instr)))
        ctx = [min(1.0, len(history) / 20), float(obs.keyboard_visible), float(is_query),
               float(last.startswith('{"clear"') or '"type": "type"' in last),
               float(obs.foreground.app in (None, "launcher")), wants_on, wants_off, 0.0]
        fg = obs.foreground.app

        def vec(cls_name: str | None = None, **f: float) -> list[float]:
            cls_vec = [0.0] * len(CLASSES)
            if cls_name is not None:
                cls_vec = [float(cls_name == c) for c in CLASSES[:-1]] + [float(cls_name not in CLASSES[:-1])]
            return [float(f.get(k, 0.0)) for k in CAND_KEYS] + cls_vec + ctx

        def rep(a: Action) -> dict[str, float]:
            key = json.dumps({k: v for k, v in a.to_json().items() if k != "clamped"}, sort_keys=True)
            return {"repeat": min(1.0, counts.get(key, 0) / 3), "same_as_last": float(key == last)}

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
            cx, cy = (e.grid_bounds.left + e.grid_bounds.right) / 2000, (e.grid_bounds.top + e.grid_bounds.bottom) / 2000
            a = Tap(target=e.index)
            out.append(Candidate("tap", a, f"{cls} {label}", vec(
                cls, overlap=overlap, exact=exact, clickable=e.clickable, editable=e.editable, checkable=e.checkable,
                checked=e.checked, focused=e.focused, cx=cx, cy=cy, tapped=min(1.0, tapped.get(e.index, 0) / 2),
                has_label=bool(label), **rep(a))))
            if is_query and e.text and _norm(e.text) not in seen_labels and len(e.text) < 80:
                seen_labels.add(_norm(e.text))
                for field in answer_fields(instruction)[:1]:
                    a = Answer(fields={field: e.text})
                    out.append(Candidate("answer", a, f"answer {e.text}", vec(
                        cls, overlap=overlap, exact=exact, cx=cx, cy=cy, has_label=True, **rep(a))))
        if focused or obs.keyboard_visible:
            for span in instruction_spans(instruction):
                a = TypeText(text=span, clear=True)
                out.append(Candidate("type", a, f"type {span}", vec(span_len=min(1.0, len(span) / 30), **rep(a))))
        for direction in ("down", "up"):
            a = Scroll(direction=direction)  # type: ignore[arg-type]
            out.append(Candidate(f"scroll_{direction}", a, f"scroll {direction}", vec(**rep(a))))
        a = Key(key="back")
        out.append(Candidate("back", a, "back", vec(**rep(a))))
        for app in APPS:
            names = " ".join(registry().apps[app].names)
            hint = float(any(h in instr for h in APP_HINTS.get(app, ())))
            ov = len(set(_words(names)) & iw) / 3
            a = OpenApp(app=app)
            out.append(Candidate("open_app", a, f"open {app} {names}", vec(
                overlap=ov, is_foreground_app=float(fg == app), app_hint=hint, **rep(a))))
        if not is_query:
            a = Complete(message="done")
            out.append(Candidate("complete", a, "complete task done", vec(**rep(a))))
        return out


class MicroNet(nn.Module):
    """Scores each candidate against the instruction."""

    def __init__(self, dim: int = DIM, hidden: int = 96):
        super().__init__()
        self.emb = nn.EmbeddingBag(BUCKETS, dim, mode="mean")
        self.kind = nn.Embedding(len(KINDS), dim)
        nf = Featurizer.N_FEATS + Featurizer.N_CTX
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
