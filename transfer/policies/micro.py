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

import functools
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

from actionmap.actions import Action, Answer, Complete, Key, LongPress, OpenApp, Scroll, Tap, TypeText
from actionmap.apps import APP_IDS, registry
from actionmap.observation import Observation, UIElement

from .base import BasePolicy, PolicyOutput, StepRecord

BUCKETS = 1 << 15
DIM = 48
CLASSES = ["TextView", "Button", "ImageButton", "ImageView", "EditText", "Switch", "CheckBox", "RadioButton",
           "LinearLayout", "FrameLayout", "SeekBar", "RecyclerView", "CompoundButton", "ViewGroup", "other"]
KINDS = ["tap", "long_press", "type", "enter", "scroll_down", "scroll_up", "back", "open_app", "answer", "complete"]
APPS = [a for a in APP_IDS if a != "launcher"]
MAX_ELEMENTS = 80


def _norm(s: str) -> str:
    return re.sub(r"\s+", " ", unicodedata.normalize("NFKC", s or "").replace("\u2011", "-")).strip().lower()


def _words(s: str) -> list[str]:
    return re.findall(r"[\w'@.+:-]+", _norm(s))


def _h(s: str) -> int:
    return zlib.crc32(s.encode("utf-8")) % BUCKETS


@functools.lru_cache(maxsize=1 << 16)
def _text_ids(s: str) -> tuple[int, ...]:
    ids = []
    for w in _words(s)[:40]:
        ids.append(_h("w:" + w))
        p = f"#{w}#"
        ids.extend(_h("c:" + p[i:i + 3]) for i in range(max(1, len(p) - 2)))
    return tuple(ids) or (_h("<empty>"),)


def text_ids(s: str) -> list[int]:
    """Hashed word and char-trigram ids of a text (empty text → one 'empty' id); memoized, as
    the same labels recur on every step."""
    return list(_text_ids(s))


_SPAN_PATTERNS = [
    ("quoted", r'"([^"]+)"'), ("quoted", r"“([^”]+)”"), ("quoted", r"'([^']{2,})'"),
    ("phone", r"\+?\(?\d[\d\s()-]{5,}\d"),
    ("email", r"[\w.+-]+@[\w-]+\.[\w.]+"),
    ("time", r"\b\d{1,2}:\d{2}\s?(?:[ap]\.?m\.?)?"), ("time", r"(?<!:)\b\d{1,2}\s?[ap]\.?m\.?\b"),
    ("file", r"\b[\w-]+\.[a-z0-9]{2,4}\b"),
    ("number", r"\b\d+(?:[.,]\d+)?\b"),
    ("name", r"(?:[^\W\d_][\w’-]+)(?:\s+[^\W\d_][\w’-]+)*"),
]
SPAN_KINDS = ["quoted", "phone", "email", "time", "file", "number", "name", "part", "derived"]
_STOP = {"turn", "set", "open", "what", "the", "please", "add", "create", "delete", "save", "make", "change", "show",
         "which", "how", "when", "where", "is", "are", "remove", "put", "push", "give", "start", "send", "schedule",
         "move", "rename", "clear", "count", "list", "check", "switch", "look", "enter", "read", "mark", "i", "my",
         "update", "lock", "let", "take", "dim", "mute", "find", "copy", "wake", "in", "on", "a", "an"}
MONTH_NAMES = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
               "november", "december"]


def _derived(kind: str, s: str) -> list[str]:
    """Texts a form field wants that the instruction only implies: a time's hour and minutes, a phone's digits."""
    if kind == "time":
        m = re.match(r"(\d{1,2})(?::(\d{2}))?\s?([ap])?", s, flags=re.I)
        if not m:
            return []
        h, mins, ap = int(m.group(1)), m.group(2) or "00", (m.group(3) or "").lower()
        h24 = (h % 12) + (12 if ap == "p" else 0) if ap else h
        return [str(h), f"{h24:02d}", str(h24), mins]
    if kind == "phone":
        digits = re.sub(r"[^\d+]", "", s)
        return [digits, digits.lstrip("+"), "+1" + digits if not digits.startswith("+") else digits[2:]]
    return []


def typed_spans(instruction: str, limit: int = 24) -> list[tuple[str, str]]:
    """(text, kind) candidates to type or answer: quoted strings, numbers, times, names, emails, and
    what they imply (a name's first and last word, a time's hour and minutes, a date's month number,
    a phone number's bare digits)."""
    text = instruction.split("\nAnswer with fields")[0]
    out: list[tuple[str, str]] = []
    seen: set[str] = set()

    def add(s: str, kind: str) -> None:
        s = s.strip() if kind == "quoted" else s.strip().strip(".,;:!?")
        if kind != "derived" and (not s or s.lower() in _STOP):
            return
        if s.lower() not in seen:
            seen.add(s.lower())
            out.append((s, kind))

    for kind, pat in _SPAN_PATTERNS:
        for m in re.finditer(pat, text, flags=re.I if kind == "time" else 0):
            s = (m.group(1) if m.groups() else m.group(0)).strip()
            words = s.split()
            if kind == "name":  # each run of capitalized words (any script), minus verbs and a trailing 's
                runs: list[list[str]] = [[]]
                for w in words:
                    if w[0].isupper() and w.lower() not in _STOP:
                        runs[-1].append(re.sub(r"['’]s$", "", w))
                    elif runs[-1]:
                        runs.append([])
                for run in runs:
                    if run:
                        add(" ".join(run), kind)
                        for w in run if 1 < len(run) <= 3 else []:
                            add(w, "part")
                continue
            add(s, kind)
            if kind == "quoted" and 1 < len(words) <= 3:
                for w in words:
                    add(w, "part")
            for d in _derived(kind, s):
                add(d, "derived")
    for m in re.finditer(r"\b(" + "|".join(MONTH_NAMES) + r")\b", text, flags=re.I):
        add(str(MONTH_NAMES.index(m.group(1).lower()) + 1), "derived")
    return out[:limit]


def instruction_spans(instruction: str, limit: int = 24) -> list[str]:
    """Candidate texts to type or answer (see :func:`typed_spans`)."""
    return [s for s, _ in typed_spans(instruction, limit)]


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
             "has_label", "repeat", "same_as_last", "is_foreground_app", "app_hint", "span_len",
             "row_overlap", "rid_overlap", "toggle_wanted", "toggle_unwanted", "long_clickable", "field_overlap",
             "span_in_field", "n_tapped_row"] + [f"span_{k}" for k in SPAN_KINDS]
CTX_KEYS = ["step", "keyboard", "query", "last_type", "launcher", "wants_on", "wants_off", "goal_done",
            "goal_undone", "in_task_app", "last_tap", "last_open", "last_back", "last_scroll", "screen_overlap"]


def _overlap(words: set[str], iw: set[str]) -> float:
    return len(words & iw) / max(1, len(words)) if words else 0.0


def _rid_words(rid: str) -> set[str]:
    tail = rid.rsplit("/", 1)[-1].lower()
    ws = set(re.split(r"[_\W]+", tail)) - {""}
    if "wifi" in ws:
        ws.add("wi-fi")
    return ws


class Featurizer:
    """Observation + instruction + history → candidates with features.

    An element's own label is often empty or unhelpful (a Switch says "OFF", a row container
    says nothing), so each element also reads its *row*: the labels of the elements sharing
    its vertical band, and its resource id's words. A toggle knows whether tapping it moves
    it toward the state the instruction wants.
    """

    N_FEATS = len(CAND_KEYS) + len(CLASSES)
    N_CTX = len(CTX_KEYS)

    def candidates(self, obs: Observation, instruction: str, history: list[StepRecord]) -> list[Candidate]:
        instr = _norm(instruction.split("\nAnswer with fields")[0])
        iw = set(_words(instr)) - _STOP
        is_query = "Answer with fields" in instruction
        counts: dict[str, int] = {}
        tapped: dict[int, int] = {}
        last, last_a = "", {}
        for h in history:
            a = h.action or {}
            key = json.dumps({k: v for k, v in a.items() if k != "clamped"}, sort_keys=True) if a else "invalid"
            counts[key] = counts.get(key, 0) + 1
            if a.get("type") == "tap" and a.get("target") is not None:
                tapped[a["target"]] = tapped.get(a["target"], 0) + 1
            last, last_a = key, a
        wants_on = bool(re.search(r"\b(on|enable|activate|switch on|turn on)\b", instr))
        wants_off = bool(re.search(r"\b(off|disable|deactivate|switch off|turn off|lock)\b", instr))
        fg = obs.foreground.app
        els = [e for e in obs.elements if e.visible]

        rows: dict[int, str] = {}
        for e in els:
            top, bot = e.grid_bounds.top, e.grid_bounds.bottom
            if bot - top > 150:  # a container spanning many rows has no single row label
                rows[e.index] = ""
                continue
            mid = (top + bot) / 2
            rows[e.index] = " ".join(o.text or o.content_desc for o in els if (o.text or o.content_desc)
                                     and o.grid_bounds.top <= mid <= o.grid_bounds.bottom
                                     and o.grid_bounds.bottom - o.grid_bounds.top <= 150)
        row_ov = {i: _overlap(set(_words(r)), iw) for i, r in rows.items()}
        goal_done = goal_undone = 0.0
        for e in els:
            if e.checkable and row_ov.get(e.index, 0) > 0.3 and (wants_on != wants_off):
                if e.checked == wants_on:
                    goal_done = 1.0
                else:
                    goal_undone = 1.0
        screen_words = set()
        for e in els:
            screen_words |= set(_words(e.text or e.content_desc))
        lt = last_a.get("type")
        ctx = [min(1.0, len(history) / 20), float(obs.keyboard_visible), float(is_query), float(lt == "type"),
               float(fg in (None, "launcher")), float(wants_on), float(wants_off), goal_done, goal_undone,
               float(fg is not None and fg != "launcher" and any(h in instr for h in APP_HINTS.get(fg, ()))),
               float(lt == "tap"), float(lt == "open_app"), float(lt == "key"), float(lt == "scroll"),
               _overlap(iw, screen_words)]

        def vec(cls_name: str | None = None, **f: float) -> list[float]:
            cls_vec = [0.0] * len(CLASSES)
            if cls_name is not None:
                cls_vec = [float(cls_name == c) for c in CLASSES[:-1]] + [float(cls_name not in CLASSES[:-1])]
            return [float(f.get(k, 0.0)) for k in CAND_KEYS] + cls_vec + ctx

        def rep(a: Action) -> dict[str, float]:
            key = json.dumps({k: v for k, v in a.to_json().items() if k != "clamped"}, sort_keys=True)
            return {"repeat": min(1.0, counts.get(key, 0) / 3), "same_as_last": float(key == last)}

        out: list[Candidate] = []
        seen_labels: set[str] = set()
        editables: list[tuple[UIElement, str]] = []
        n_el = 0
        for e in els:
            label = e.text or e.content_desc or e.hint
            if not (e.clickable or e.checkable or e.editable or e.long_clickable or label):
                continue
            if n_el >= MAX_ELEMENTS:
                break
            n_el += 1
            lw = set(_words(label))
            rw = _rid_words(e.resource_id)
            row = rows.get(e.index, "")
            overlap = _overlap(lw, iw)
            exact = float(bool(label) and len(_norm(label)) > 1 and _norm(label) in instr)
            cls = e.class_name.rsplit(".", 1)[-1]
            g = e.grid_bounds
            cx, cy = (g.left + g.right) / 2000, (g.top + g.bottom) / 2000
            toggle = e.checkable and (wants_on != wants_off) and row_ov.get(e.index, 0) > 0
            common = dict(overlap=overlap, exact=exact, clickable=e.clickable, editable=e.editable,
                          checkable=e.checkable, checked=e.checked, focused=e.focused, cx=cx, cy=cy,
                          has_label=bool(label), row_overlap=row_ov.get(e.index, 0.0), rid_overlap=_overlap(rw, iw),
                          toggle_wanted=float(toggle and e.checked != wants_on),
                          toggle_unwanted=float(toggle and e.checked == wants_on), long_clickable=e.long_clickable,
                          n_tapped_row=min(1.0, sum(tapped.get(o.index, 0) for o in els if rows.get(o.index) == row
                                                    and row) / 2))
            desc = f"{cls} {label} | {row} | {' '.join(sorted(rw))}"
            a = Tap(target=e.index)
            out.append(Candidate("tap", a, desc, vec(cls, tapped=min(1.0, tapped.get(e.index, 0) / 2), **common,
                                                   **rep(a))))
            if e.long_clickable or (e.clickable and (overlap > 0 or row_ov.get(e.index, 0) > 0)):
                a = LongPress(target=e.index)
                out.append(Candidate("long_press", a, f"long press {desc}", vec(cls, **common, **rep(a))))
            if e.editable:
                editables.append((e, f"{label} {e.hint} {' '.join(sorted(rw))}"))
            if is_query and e.text and _norm(e.text) not in seen_labels and len(e.text) < 80:
                seen_labels.add(_norm(e.text))
                for field in answer_fields(instruction)[:1]:
                    a = Answer(fields={field: e.text})
                    out.append(Candidate("answer", a, f"answer {e.text} | {row}", vec(cls, **common, **rep(a))))
        if is_query and re.search(r"\byes\b.*\bno\b", instruction, flags=re.I):
            for field in answer_fields(instruction)[:1]:
                for yn in ("yes", "no"):
                    a = Answer(fields={field: yn})
                    out.append(Candidate("answer", a, f"answer {yn}", vec(**rep(a))))
        spans = typed_spans(instruction)
        targets: list[tuple[int | None, str, bool]] = []
        if obs.keyboard_visible or any(e.focused for e, _ in editables):
            fe = next(((e, t) for e, t in editables if e.focused), None)
            targets.append((None, fe[1] if fe else "", True))
        targets += [(e.index, t, False) for e, t in editables if not e.focused][:6]
        for target, field, focused in targets:
            fw = set(_words(field))
            for span, kind in spans:
                a = TypeText(text=span, clear=True, target=target)
                sw = set(_words(span))
                out.append(Candidate("type", a, f"type {span} into {field}", vec(
                    "EditText", span_len=min(1.0, len(span) / 30), focused=float(focused),
                    field_overlap=_overlap(fw, iw), span_in_field=float(bool(sw) and sw <= fw),
                    **{f"span_{kind}": 1.0}, **rep(a))))
        if obs.keyboard_visible:
            a = Key(key="enter")
            out.append(Candidate("enter", a, "enter", vec(**rep(a))))
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


@dataclass
class Packed:
    """One decision's inputs as tensors, built once so that training epochs only run the network."""

    ids: torch.Tensor      # hashed text ids: the instruction's, then each candidate's
    offsets: torch.Tensor  # start of each bag in ``ids`` (instruction first)
    kinds: torch.Tensor    # (n,) candidate kind indices
    feats: torch.Tensor    # (n, N_FEATS + N_CTX)


def pack(instruction: str, cands: list[Candidate]) -> Packed:
    ids: list[int] = []
    offs: list[int] = []
    for t in [instruction.split("\nAnswer with fields")[0]] + [c.text for c in cands]:
        offs.append(len(ids))
        ids.extend(_text_ids(t))
    return Packed(torch.tensor(ids, dtype=torch.long), torch.tensor(offs, dtype=torch.long),
                  torch.tensor([KINDS.index(c.kind) for c in cands], dtype=torch.long),
                  torch.tensor([c.feats for c in cands], dtype=torch.float32))


class MicroNet(nn.Module):
    """Scores each candidate against the instruction."""

    def __init__(self, dim: int = DIM, hidden: int = 128):
        super().__init__()
        self.emb = nn.EmbeddingBag(BUCKETS, dim, mode="mean")
        self.kind = nn.Embedding(len(KINDS), dim)
        nf = Featurizer.N_FEATS + Featurizer.N_CTX
        self.mlp = nn.Sequential(nn.Linear(dim * 4 + nf, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(),
                                 nn.Linear(hidden, 1))
        nn.init.normal_(self.emb.weight, std=1.0)

    def score(self, packs: list[Packed]) -> list[torch.Tensor]:
        """Logits for several decisions in one pass (one tensor of candidate scores per decision)."""
        ids = torch.cat([p.ids for p in packs])
        offs, base, owner, first, nbags = [], 0, [], [], 0
        for k, p in enumerate(packs):
            first.append(nbags)            # the instruction's bag opens each decision's run of bags
            offs.append(p.offsets + base)
            owner += [k] * len(p.kinds)
            base += len(p.ids)
            nbags += len(p.offsets)
        bags = self.emb(ids, torch.cat(offs))
        starts = torch.tensor(first)
        ie = bags[starts][torch.tensor(owner)]                       # each candidate's instruction
        keep = torch.ones(len(bags), dtype=torch.bool)
        keep[starts] = False
        ce = bags[keep]
        ke = self.kind(torch.cat([p.kinds for p in packs]))
        x = torch.cat([ie, ce, ie * ce, ke, torch.cat([p.feats for p in packs])], dim=1)
        return list(self.mlp(x).squeeze(1).split([len(p.kinds) for p in packs]))

    def forward(self, instruction: str, cands: list[Candidate]) -> torch.Tensor:
        return self.score([pack(instruction, cands)])[0]


class MicroPolicy(BasePolicy):
    """Greedy (eval) or sampling (training) policy over candidate actions."""

    reads_pixels = False  # UI elements only

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


def packed(step: dict[str, Any]) -> Packed:
    """A recorded decision's packed inputs (memoized on the step)."""
    if "packed" not in step:
        step["packed"] = pack(step["instruction"], step["cands"])
    return step["packed"]


def logprob_of(net: MicroNet, step: dict[str, Any], temperature: float = 1.0) -> torch.Tensor:
    logits = net.score([packed(step)])[0]
    return torch.log_softmax(logits / temperature, dim=0)[step["choice"]]


def entropy_of(net: MicroNet, step: dict[str, Any]) -> torch.Tensor:
    logp = torch.log_softmax(net.score([packed(step)])[0], dim=0)
    return -(logp.exp() * logp).sum()


__all__ = ["MicroNet", "MicroPolicy", "Featurizer", "load_micro_policy", "logprob_of", "instruction_spans", "math"]
