"""Number formatting shared by every rendering, and the plain-text headline.

One place decides how a rate, a gain or an interval is printed, so Markdown, HTML and the
terminal never disagree on rounding.
"""

from __future__ import annotations

from typing import Any, Sequence

DASH = "—"


def pct(x: float | None, digits: int = 1) -> str:
    """0.339 → '33.9%'."""
    return DASH if x is None else f"{100 * x:.{digits}f}%"


def pt(x: float | None, digits: int = 1) -> str:
    """0.428 → '+42.8 pt'."""
    return DASH if x is None else f"{100 * x:+.{digits}f} pt"


def ci_pct(ci: Sequence[float] | None) -> str:
    return "" if not ci else f"[{100 * ci[0]:.1f}, {100 * ci[1]:.1f}]"


def ci_pt(ci: Sequence[float] | None) -> str:
    return "" if not ci else f"[{100 * ci[0]:+.1f}, {100 * ci[1]:+.1f}]"


def ci_to_pt(ci: Sequence[float] | None) -> str:
    """'95% CI +31.4 to +54.2 pt' style, for prose."""
    return "no CI" if not ci else f"95% CI {100 * ci[0]:+.1f} to {100 * ci[1]:+.1f}"


def num(x: float | None, digits: int = 2) -> str:
    return DASH if x is None else f"{x:.{digits}f}"


def kfrac(cell: dict[str, Any] | None) -> str:
    """{'k': 3, 'n': 4} → '3/4'."""
    if not cell or not cell.get("n"):
        return DASH
    return f"{cell['k']}/{cell['n']}"


def retention_text(ret: dict[str, Any]) -> str:
    if not ret.get("meaningful"):
        return "not meaningful"
    s = pct(ret.get("value"))
    if ret.get("ci"):
        s += f" (95% CI {pct(ret['ci'][0])} to {pct(ret['ci'][1])})"
    return s


def excluded_text(summary: dict[str, Any]) -> str:
    ex = summary.get("input", {}).get("excluded", {})
    parts = [f"{ex[k]} {label}" for k, label in (("undetermined", "undetermined"), ("infra", "infra error"),
                                                   ("no_verdict", "without a verdict")) if ex.get(k)]
    return "Excluded from rates: " + ", ".join(parts) + "." if parts else "No episodes excluded from rates."


def headline(summary: dict[str, Any]) -> str:
    """A few plain-text lines: sim gain, device gain, retention (or why not), exclusions.

    Other commands (run, demo) print this after a run so a user sees the verdict at once.
    """
    run = summary.get("run", {})
    h = summary.get("headline", {})
    lines = [f"Run {run.get('run_id', '?')}: {summary.get('input', {}).get('episodes', 0)} episodes, "
             f"{run.get('tasks', 0)} tasks, policies {', '.join(run.get('policies', []))}"]
    if not h.get("available"):
        lines.append(f"No transfer headline: {h.get('reason', 'unknown reason')}.")
        lines.append(excluded_text(summary))
        return "\n".join(lines)
    sr = h["sr"]
    lines.append(f"'{h['trained_policy']}' vs '{h['base_policy']}' on {h['n_tasks']} paired tasks:")
    lines.append(f"  sim    {pct(sr['sim_base']['value'])} → {pct(sr['sim_trained']['value'])}   gain "
                 f"{pt(h['gain_sim']['value'])} ({ci_to_pt(h['gain_sim']['ci'])})")
    lines.append(f"  device {pct(sr['device_base']['value'])} → {pct(sr['device_trained']['value'])}   gain "
                 f"{pt(h['gain_device']['value'])} ({ci_to_pt(h['gain_device']['ci'])})")
    ret = h["retention"]
    if ret.get("meaningful"):
        lines.append(f"  retention {retention_text(ret)}; Δ_device − Δ_sim {pt(h['difference']['value'])} "
                     f"({ci_to_pt(h['difference']['ci'])})")
    else:
        lines.append(f"  {ret.get('message', 'retention not meaningful')}")
    bf = h.get("excluded_bridge_faults") or []
    if bf:
        lines.append(f"  Excludes {len(bf)} bridge-fault task(s) (oracle passes in sim, fails on device): "
                     f"{', '.join(bf[:6])}{' …' if len(bf) > 6 else ''}")
    lines.append(excluded_text(summary))
    return "\n".join(lines)
