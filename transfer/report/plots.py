"""The report's figures, drawn from the summary dict as PNG bytes.

PNG rather than SVG: an SVG carries namespace URLs, and the HTML report must hold no
http(s) reference at all. Figures use matplotlib's object API with the Agg canvas, so
no global backend is switched for other code in the same process, and PNG metadata is
stripped so the same summary draws the same bytes.
"""

from __future__ import annotations

import base64
import io
import warnings
from typing import Any

COLORS = {"base": "#8c96a6", "trained": "#2f6fdf", "gain": "#1f9d6b", "diff": "#d9822b",
          "sim": "#6c5ce7", "device": "#e17055"}
PALETTE = ["#2f6fdf", "#e17055", "#1f9d6b", "#8c96a6", "#d9822b", "#6c5ce7", "#c0392b", "#16a085"]


def _figure(w: float, h: float):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(w, h), dpi=100)
    FigureCanvasAgg(fig)
    return fig


def _png(fig) -> bytes:
    buf = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # missing glyphs for exotic task/policy names: boxes, not a crash
        fig.savefig(buf, format="png", metadata={"Software": None}, bbox_inches="tight")
    return buf.getvalue()


def data_uri(png: bytes, kind: str = "png") -> str:
    return f"data:image/{kind};base64," + base64.b64encode(png).decode("ascii")


def _err(v: float, ci: list[float] | None) -> tuple[float, float]:
    if not ci:
        return 0.0, 0.0
    return max(0.0, v - ci[0]), max(0.0, ci[1] - v)


def gain_chart(summary: dict[str, Any]) -> bytes | None:
    """Left: SR of base and trained on each backend; right: the two gains and their difference."""
    h = summary.get("headline") or {}
    if not h.get("available"):
        return None
    fig = _figure(9.0, 3.4)
    ax1, ax2 = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1.1, 1]})
    sr = h["sr"]
    for j, (pol, col) in enumerate((("base", "base"), ("trained", "trained"))):
        vals = [100 * sr[f"{b}_{pol}"]["value"] for b in ("sim", "device")]
        errs = [_err(sr[f"{b}_{pol}"]["value"], sr[f"{b}_{pol}"]["ci"]) for b in ("sim", "device")]
        yerr = [[100 * e[0] for e in errs], [100 * e[1] for e in errs]]
        xs = [i + (j - 0.5) * 0.38 for i in range(2)]
        name = h["base_policy"] if pol == "base" else h["trained_policy"]
        label = pol if name == pol else f"{pol} ({name})"
        bars = ax1.bar(xs, vals, 0.36, yerr=yerr, capsize=4, color=COLORS[col], label=label)
        for b, v in zip(bars, vals):
            ax1.annotate(f"{v:.1f}", (b.get_x() + b.get_width() / 2, v), xytext=(0, -12),
                         textcoords="offset points", ha="center", fontsize=8, color="white")
    ax1.set_xticks([0, 1], ["sim", "device"])
    ax1.set_ylim(0, 100)
    ax1.set_ylabel("success rate (%)")
    ax1.set_title("SR with 95% CI (paired task bootstrap)", fontsize=9)
    ax1.legend(fontsize=8, loc="upper left", frameon=False)
    labels = ["Δ sim", "Δ device", "Δ device − Δ sim"]
    keys = ["gain_sim", "gain_device", "difference"]
    cols = [COLORS["sim"], COLORS["device"], COLORS["diff"]]
    vals = [100 * h[k]["value"] for k in keys]
    errs = [_err(h[k]["value"], h[k]["ci"]) for k in keys]
    ax2.bar(range(3), vals, 0.6, yerr=[[100 * e[0] for e in errs], [100 * e[1] for e in errs]], capsize=4,
            color=cols)
    for i, v in enumerate(vals):
        ax2.annotate(f"{v:+.1f}", (i, v), xytext=(6, 3), textcoords="offset points", fontsize=8)
    ax2.axhline(0, color="#333", lw=0.8)
    ax2.set_xticks(range(3), labels, fontsize=8)
    ax2.set_ylabel("points")
    ax2.set_title("gains with 95% CI", fontsize=9)
    for ax in (ax1, ax2):
        ax.spines[["top", "right"]].set_visible(False)
    fig.tight_layout()
    return _png(fig)


def scatter_series(summary: dict[str, Any]) -> list[tuple[str, dict[tuple[float, float], int]]]:
    """One (policy, {(sim %, device %): tasks}) per policy with paired cells — the scatter's
    points and, in this order, its legend. A policy is one series even when it holds two
    roles (a trained policy that is the oracle)."""
    series = []
    for p in dict.fromkeys(summary.get("run", {}).get("policies", [])):
        pts: dict[tuple[float, float], int] = {}
        for row in summary.get("tasks", []):
            s, d = row["cells"].get(f"{p}/sim"), row["cells"].get(f"{p}/device")
            if s and d and s.get("sr") is not None and d.get("sr") is not None:
                key = (round(100 * s["sr"], 3), round(100 * d["sr"], 3))
                pts[key] = pts.get(key, 0) + 1
        if pts:
            series.append((p, pts))
    return series


def scatter_chart(summary: dict[str, Any]) -> bytes | None:
    """Per-task success, sim (x) vs device (y), one colour per policy; size = tasks on a point."""
    series = scatter_series(summary)
    if not series:
        return None
    fig = _figure(5.2, 4.6)
    ax = fig.subplots()
    ax.plot([0, 100], [0, 100], color="#999", lw=0.8, ls="--", zorder=0)
    ax.axvspan(50, 100, ymin=0, ymax=0.5, color="#e17055", alpha=0.06, lw=0)
    ax.axvspan(0, 50, ymin=0.5, ymax=1, color="#6c5ce7", alpha=0.06, lw=0)
    n = len(series)
    for i, (p, pts) in enumerate(series):
        off = (i - (n - 1) / 2) * 1.2  # small fixed offset so policies on the same point stay visible
        xs = [k[0] + off for k in pts]
        ys = [k[1] + off for k in pts]
        sizes = [18 + 22 * c for c in pts.values()]
        ax.scatter(xs, ys, s=sizes, alpha=0.6, color=PALETTE[i % len(PALETTE)], label=p, edgecolors="white",
                   linewidths=0.5)
    ax.set_xlim(-5, 105)
    ax.set_ylim(-5, 105)
    ax.set_xlabel("sim per-task success (%)")
    ax.set_ylabel("device per-task success (%)")
    ax.set_title("per-task success; marker area ∝ tasks at that point", fontsize=9)
    ax.text(98, 3, "passes in sim only", ha="right", fontsize=7, color="#b5523a")
    ax.text(2, 97, "passes on device only", va="top", fontsize=7, color="#5546c9")
    ax.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.0, 0.5), frameon=False, markerscale=0.6)
    ax.spines[["top", "right"]].set_visible(False)
    fig.tight_layout()
    return _png(fig)


def latency_chart(summary: dict[str, Any]) -> bytes | None:
    """Box plot of step latency per backend from stored quantiles (whiskers p5–p95)."""
    lat = summary.get("latency") or {}
    stats_ = []
    for b in ("sim", "device"):
        L = lat.get(b)
        if not L or not L.get("n"):
            continue
        stats_.append({"label": f"{b}\n(n={L['n']})", "whislo": L["p5_ms"], "q1": L["p25_ms"], "med": L["p50_ms"],
                       "q3": L["p75_ms"], "whishi": L["p95_ms"], "mean": L["mean_ms"], "fliers": []})
    if not stats_:
        return None
    fig = _figure(5.2, 2.6)
    ax = fig.subplots()
    import inspect

    orient = ({"orientation": "horizontal"} if "orientation" in inspect.signature(ax.bxp).parameters
              else {"vert": False})
    ax.bxp(stats_, **orient, showmeans=True, widths=0.5, patch_artist=True,
           boxprops={"facecolor": "#dfe7f7"}, meanprops={"marker": "D", "markerfacecolor": "#2f6fdf",
                                                         "markeredgecolor": "#2f6fdf", "markersize": 4})
    lo = min(s["whislo"] for s in stats_)
    hi = max(s["whishi"] for s in stats_)
    if lo > 0 and hi / lo > 20:
        ax.set_xscale("log")
    ax.set_xlabel("step latency (ms); box p25–p75, whiskers p5–p95, ◆ mean")
    ax.spines[["top", "right"]].set_visible(False)
    fig.tight_layout()
    return _png(fig)
