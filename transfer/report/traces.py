"""Reading an episode's trace folder: per-step rows and downscaled screenshots.

Traces are optional and written by another part of s2r, so everything here is lenient:
a missing folder, a torn last line or a non-image file yields less data, never an error.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

_IMAGE = re.compile(r"^(\d+)\.(jpe?g|png)$", re.IGNORECASE)
MAX_IMAGE_BYTES = 600_000
"""Screenshots larger than this are not embedded (traces hold downscaled frames)."""

_TOTAL_KEYS = ("total_ms", "total", "step_ms", "step", "wall_ms", "latency_ms")


@dataclass
class Trace:
    """What a trace folder holds, in step order.

    The runner writes ``000.jpg`` for the first observation and ``NNN.jpg`` for the screen
    after step NNN (steps count from 1; an invalid action leaves no screenshot), so the
    screen a policy saw when choosing step k is the latest image numbered below k.
    """

    path: Path | None
    steps: list[dict[str, Any]] = field(default_factory=list)
    images: list[tuple[int, Path]] = field(default_factory=list)

    @property
    def present(self) -> bool:
        return bool(self.steps or self.images)


@dataclass(frozen=True)
class Frame:
    """One stop of the step viewer: a screen and what the policy did on it."""

    image: Path | None
    row: dict[str, Any] | None
    label: str


def frames(trace: Trace) -> list[Frame]:
    """The viewer's frames: each step on the screen it was chosen on, then the final screen."""
    if not trace.steps:
        return [Frame(p, None, f"screen {n:03d}") for n, p in trace.images]
    out: list[Frame] = []
    last_k = 0
    for i, row in enumerate(trace.steps):
        k = row.get("step") if isinstance(row.get("step"), int) else i + 1
        seen = [p for n, p in trace.images if n < k]
        out.append(Frame(seen[-1] if seen else None, row, f"step {k}"))
        last_k = max(last_k, k)
    after = [p for n, p in trace.images if n >= last_k]
    if after:
        out.append(Frame(after[-1], None, f"after step {last_k}"))
    return out


def resolve_trace_dir(run_dir: Path, episode_id: str, trace_path: str | None) -> Path | None:
    """The trace folder of an episode, if it exists: the record's path, else traces/<id>/."""
    candidates: list[Path] = []
    if trace_path:
        p = Path(trace_path)
        candidates.append(p if p.is_absolute() else run_dir / p)
    candidates.append(run_dir / "traces" / episode_id)
    for c in candidates:
        try:
            if c.is_dir():
                return c
        except OSError:
            continue
    return None


def read_steps(trace_dir: Path) -> list[dict[str, Any]]:
    """Rows of ``steps.jsonl``; unreadable lines are skipped."""
    f = trace_dir / "steps.jsonl"
    rows: list[dict[str, Any]] = []
    try:
        text = f.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return rows
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(row, dict):
            rows.append(row)
    return rows


def list_images(trace_dir: Path) -> list[tuple[int, Path]]:
    """Screenshots named NNN.jpg / NNN.png with their numbers, in numeric order."""
    found: list[tuple[int, Path]] = []
    try:
        for p in trace_dir.iterdir():
            m = _IMAGE.match(p.name)
            if m and p.is_file():
                found.append((int(m.group(1)), p))
    except OSError:
        return []
    return sorted(found)


def load_trace(run_dir: Path, episode_id: str, trace_path: str | None) -> Trace:
    d = resolve_trace_dir(run_dir, episode_id, trace_path)
    if d is None:
        return Trace(None)
    return Trace(d, read_steps(d), list_images(d))


def step_latency_ms(row: dict[str, Any]) -> float | None:
    """Wall time of one step from a steps.jsonl row.

    Uses a total key when the row has one (``total_ms``, ``step_ms``, ...); otherwise the
    sum of the row's timing components, which the env records as disjoint phases.
    """
    t = row.get("timings_ms", row.get("timings"))
    if not isinstance(t, dict):
        info = row.get("info")
        t = info.get("timings_ms") if isinstance(info, dict) else None
    if not isinstance(t, dict) or not t:
        return None
    for k in _TOTAL_KEYS:
        v = t.get(k)
        if isinstance(v, (int, float)) and v >= 0:
            return float(v)
    vals = [float(v) for v in t.values() if isinstance(v, (int, float)) and v >= 0]
    return sum(vals) if vals else None


def image_kind(data: bytes) -> str | None:
    """'jpeg' or 'png' from magic bytes; None for anything else (never embedded)."""
    if data[:3] == b"\xff\xd8\xff":
        return "jpeg"
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return "png"
    return None
