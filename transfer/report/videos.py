"""The report's episode videos: a ``<video>`` per recorded episode, sim and device of a task side by side.

Why apart from :mod:`.html`: the page embeds everything else, but an episode's MP4 (``--record
video``: a phone's ``screenrecord``, or a simulator episode's frames) is too large to inline, so it
is the one thing the page *links* — relative to the run directory, where ``report.html`` lives.
Opened elsewhere, the videos do not play and the rest of the page is unchanged.
"""

from __future__ import annotations

import html as _html
import json
from pathlib import Path
from typing import Any

from .traces import resolve_trace_dir

__all__ = ["video_files", "video_tag", "videos_section"]

MAX_GROUPS = 24


def video_files(trace_dir: Path | None) -> list[Path]:
    """An episode's video: ``video.mp4``, else its numbered parts (segments that could not be joined)."""
    if trace_dir is None:
        return []
    one = trace_dir / "video.mp4"
    if one.is_file():
        return [one]
    return sorted(trace_dir.glob("video.part*.mp4"), key=lambda p: int("".join(c for c in p.stem if c.isdigit()) or 0))


def video_tag(run_dir: Path, trace_dir: Path | None) -> str:
    """``<video>`` elements for the episode's video files, linked relative to ``run_dir`` ('' if none)."""
    out = []
    files = video_files(trace_dir)
    for i, p in enumerate(files):
        try:
            rel = p.resolve().relative_to(run_dir.resolve()).as_posix()
        except ValueError:
            continue
        label = f"part {i + 1} of {len(files)}" if len(files) > 1 else "episode video"
        out.append(f"<div class='video'><video controls preload='metadata' src='{_html.escape(rel, quote=True)}' "
                   f"style='max-width:100%;max-height:520px'></video><div class='cap muted small'>{label}</div></div>")
    return "".join(out)


def _records(run_dir: Path) -> list[dict[str, Any]]:
    out = []
    try:
        text = (run_dir / "episodes.jsonl").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return out
    for line in text.splitlines():
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(rec, dict) and rec.get("episode_id"):
            out.append(rec)
    return out


def videos_section(run_dir: Path | None) -> str | None:
    """Every recorded episode's video, one row per (policy, task, seed, repeat) with its sim and device
    episodes side by side; None when the run recorded no video."""
    if run_dir is None:
        return None
    groups: dict[tuple[Any, ...], dict[str, tuple[dict[str, Any], str]]] = {}
    for rec in _records(run_dir):
        tag = video_tag(run_dir, resolve_trace_dir(run_dir, rec["episode_id"], rec.get("trace_path")))
        if tag:
            key = (rec.get("policy"), rec.get("task_id"), rec.get("seed"), rec.get("repeat"))
            groups.setdefault(key, {})[str(rec.get("backend"))] = (rec, tag)
    if not groups:
        return None
    rows = []
    for (policy, task, seed, repeat), sides in list(groups.items())[:MAX_GROUPS]:
        cells = []
        for backend in ("sim", "device"):
            if backend not in sides:
                continue
            rec, tag = sides[backend]
            verdict = "success" if rec.get("success") else "failure" if rec.get("success") is False else "not judged"
            cells.append(f"<div class='side'><h4>{_html.escape(backend)} · {verdict} <span class='muted small'>"
                         f"{_html.escape(str(rec.get('target') or ''))} · {_html.escape(str(rec.get('steps')))} steps"
                         f"</span></h4>{tag}</div>")
        rows.append(f"<div class='viewer'><div><b>{_html.escape(str(task))}</b> · policy "
                    f"<b>{_html.escape(str(policy))}</b> · seed {_html.escape(str(seed))} · repeat "
                    f"{_html.escape(str(repeat))}</div><div class='sides'>{''.join(cells)}</div></div>")
    more = len(groups) - MAX_GROUPS
    tail = f"<p class='muted small'>{more} more recorded episode group(s) not shown.</p>" if more > 0 else ""
    return ("<p class='muted small'>Videos are linked from the run directory (traces/&lt;episode&gt;/video.mp4): "
            "they play where report.html sits next to its traces.</p>" + "".join(rows) + tail)
