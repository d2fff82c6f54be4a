"""The transfer report: summary.json, report.md and a self-contained report.html.

``build_summary`` computes every number once; the renderers only format it.
"""

from __future__ import annotations

from .fmt import headline
from .summary import ReportError, build_summary, compute_summary, load_run, summary_json

__all__ = ["ReportError", "build_summary", "compute_summary", "headline", "load_run", "summary_json",
           "write_report", "ReportPaths"]


def __getattr__(name: str):  # lazy: writing HTML pulls in matplotlib, which most callers do not need
    if name in ("write_report", "ReportPaths"):
        from . import writer

        return getattr(writer, name)
    raise AttributeError(name)
