"""Write summary.json, report.md and report.html into a run directory."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from transfer import stats

from .html import render_html
from .markdown import render_markdown
from .summary import build_summary, summary_json, write_text_atomic


@dataclass(frozen=True)
class ReportPaths:
    summary: Path
    markdown: Path
    html: Path
    data: dict[str, Any]


def write_report(run_dir: Path | str, *, bootstrap: int = stats.DEFAULT_BOOTSTRAP, seed: int = stats.DEFAULT_SEED,
                 min_gain: float = stats.MIN_GAIN) -> ReportPaths:
    """Compute the summary once and render all three files from it."""
    run_dir = Path(run_dir)
    summary = build_summary(run_dir, bootstrap=bootstrap, seed=seed, min_gain=min_gain, write=False)
    paths = ReportPaths(run_dir / "summary.json", run_dir / "report.md", run_dir / "report.html", summary)
    write_text_atomic(paths.summary, summary_json(summary))
    write_text_atomic(paths.markdown, render_markdown(summary))
    write_text_atomic(paths.html, render_html(summary, run_dir))
    return paths
