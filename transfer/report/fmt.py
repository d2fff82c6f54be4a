"""Number formatting shared by every rendering, and the plain-text headline.

One place decides how a rate, a gain or an interval is printed, so Markdown, HTML and the
terminal never disagree on rounding.
"""

from __future__ import annotations

import textwrap
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
    outages = summary.get("input", {}).get("policy_server_outages")
    if outages:
        parts.append(f"{outages} policy-server outage{'s' if outages != 1 else ''}")
    return "Excluded from rates: " + ", ".join(parts) + "." if parts else "No episodes excluded from rates."


def sim_gain_lines(summary: dict[str, Any], what: str = "tasks") -> list[str]:
    """The sim-only gain of trained over base as two lines laid out like the headline's
    ``sim`` row, or [] when the run has no such gain. ``what`` names the tasks ("test tasks");
    the row is labelled ``sim``, so the lines say where the rates come from."""
    g = summary.get("sim_gain") or {}
    if not g.get("available"):
        return []
    sr = g["sr"]
    return [f"{g['trained_policy']} vs {g['base_policy']} on {g['n_tasks']} {what} (95% CI, paired task bootstrap)",
            f"  {'sim':<7}{pct(sr['base']['value']):>6} → {pct(sr['trained']['value']):>6}"
            f"   gain {pt(g['gain']['value'])}  {ci_pt(g['gain']['ci'])}"]


def headline(summary: dict[str, Any], width: int = 78) -> str:
    """A few plain-text lines (≤ ``width`` columns): sim gain, device gain, retention or why
    not (the sim-only gain instead, for a run with no device cells), exclusions. Other
    commands (run, demo) print this so a user sees the verdict at once.
    """
    run = summary.get("run", {})
    h = summary.get("headline", {})
    inp = summary.get("input", {})
    lines = [f"Run {run.get('run_id', '?')} · {inp.get('episodes', 0)} episodes · {run.get('tasks', 0)} tasks"]
    if not h.get("available"):
        lines += sim_gain_lines(summary)  # a sim-only run still has the sim side of the story
        lines.append(textwrap.fill(f"No transfer headline: {h.get('reason', 'unknown reason')}.", width))
        lines.append(textwrap.fill(excluded_text(summary), width))
        return "\n".join(lines)
    sr = h["sr"]
    lines.append(f"{h['trained_policy']} vs {h['base_policy']} on {h['n_tasks']} paired tasks "
                 "(95% CIs, paired task bootstrap)")
    for side in ("sim", "device"):
        g = h[f"gain_{side}"]
        lines.append(f"  {side:<7}{pct(sr[f'{side}_base']['value']):>6} → {pct(sr[f'{side}_trained']['value']):>6}"
                     f"   gain {pt(g['value'])}  {ci_pt(g['ci'])}")
    ret = h["retention"]
    if ret.get("meaningful"):
        rci = f"  [{pct(ret['ci'][0])}, {pct(ret['ci'][1])}]" if ret.get("ci") else ""
        lines.append(f"  retention {pct(ret['value'])}{rci}")
    else:
        lines.append(textwrap.fill(ret.get("message", "retention not meaningful"), width, initial_indent="  ",
                                   subsequent_indent="  "))
    lines.append(f"  Δ_device − Δ_sim {pt(h['difference']['value'])}  {ci_pt(h['difference']['ci'])}")
    lines += family_lines(summary)
    bf = h.get("excluded_bridge_faults") or []
    if bf:
        lines.append(textwrap.fill(
            f"Excludes {len(bf)} bridge-fault task(s) (oracle passes in sim, fails on device): "
            f"{', '.join(bf[:6])}{' …' if len(bf) > 6 else ''}", width))
    lines.append(textwrap.fill(excluded_text(summary), width))
    return "\n".join(lines)


def family_lines(summary: dict[str, Any]) -> list[str]:
    """The per-family (and per-Android-version) rows of the headline, for a run whose phones fall in
    two or more groups of a dimension: whether a gain survives on one family of phones and not on
    another is the first thing a farm with mixed phones wants to know. Nothing otherwise (one
    group repeats the headline)."""
    bf = summary.get("by_family") or {}
    if not bf.get("available"):
        return []
    out: list[str] = []
    for dim in bf.get("dimensions", []):
        rows = bf.get(dim) or []
        if len(rows) < 2:
            continue
        out.append(f"  by phone {dim}: device base → trained, Δ device, retention")
        for r in rows:
            name = f"Android {r['group']}" if dim == "android" and r["group"] != "unknown" else r["group"]
            head = f"    {name:<11}{r['n_tasks']:>3} task{' ' if r['n_tasks'] == 1 else 's'} "
            if not r.get("available"):
                why = head + f"not available: {r.get('reason', '')}"
                out.append(why if len(why) <= 78 else why[:76].rstrip() + " …")
                continue
            sr = r["sr"]
            ret = r["retention"]
            rtxt = "not meaningful" if not ret.get("meaningful") else pct(ret.get("value")) + (
                f" [{pct(ret['ci'][0])}, {pct(ret['ci'][1])}]" if ret.get("ci") else "")
            out.append(f"{head}{pct(sr['device_base']['value']):>6} → {pct(sr['device_trained']['value']):>6}  "
                       f"{pt(r['gain_device']['value']):>9}  {rtxt}")
    return out
