"""The transfer report: summary.json, report.md and a self-contained report.html.

``build_summary`` computes every number once; the renderers only format it, so the
terminal, Markdown and HTML never disagree. ``headline`` is the few-line verdict other
commands print after a run.
"""

from __future__ import annotations

from .fmt import headline, sim_gain_lines
from .load import ReportError, load_run
from .summary import build_summary, compute_summary, summary_json
from .writer import ReportPaths, write_report

__all__ = ["ReportError", "ReportPaths", "build_summary", "compute_summary", "headline", "load_run", "sim_gain_lines",
           "summary_json", "write_report"]
