"""report.md: the report as text tables, for pull requests, terminals and diffs."""

from __future__ import annotations

from typing import Any

from .fmt import DASH, ci_pct, ci_pt, excluded_text, headline, kfrac, num, pct, pt, retention_text


def _cell(x: Any) -> str:
    """Table-safe text: pipes and newlines would break a Markdown row."""
    return str(x).replace("|", "\\|").replace("\n", " ")


def _table(header: list[str], rows: list[list[Any]]) -> list[str]:
    out = ["| " + " | ".join(_cell(h) for h in header) + " |",
           "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(_cell(c) for c in r) + " |" for r in rows]
    return out + [""]


def _group_label(r: dict[str, Any]) -> str:
    return f"Android {r['group']}" if r["dimension"] == "android" and r["group"] != "unknown" else r["group"]


def _by_family(s: dict[str, Any]) -> list[str]:
    """Retention per phone family and per Android version; nothing for a run without device episodes."""
    bf = s.get("by_family") or {}
    if not bf.get("device_episodes"):
        return []
    L = ["## Retention by phone family and Android version", ""]
    if not bf.get("available"):
        return L + [f"Not computed: {bf.get('reason', 'not available')}.", ""]
    rows = []
    for dim in bf.get("dimensions", []):
        for r in bf.get(dim, []):
            head = [dim, _group_label(r), ", ".join(r["phones"]), r["n_tasks"]]
            if not r.get("available"):
                rows.append(head + [DASH] * 5 + [f"not available: {r['reason']}"])
                continue
            sr = r["sr"]
            note = f"{r['unpaired_tasks']} task(s) unpaired here" if r.get("unpaired_tasks") else ""
            rows.append(head + [
                f"{pct(sr['device_base']['value'])} {ci_pct(sr['device_base']['ci'])}",
                f"{pct(sr['device_trained']['value'])} {ci_pct(sr['device_trained']['ci'])}",
                f"{pt(r['gain_device']['value'])} {ci_pt(r['gain_device']['ci'])}",
                f"{pt(r['gain_sim']['value'])} {ci_pt(r['gain_sim']['ci'])}",
                retention_text(r["retention"]), note])
    L += _table(["by", "group", "phones", "tasks", "device base", "device trained", "Δ device",
                 "Δ sim (same tasks)", "retention", "note"], rows)
    return L + [bf["rule"], ""]


def render_markdown(summary: dict[str, Any]) -> str:
    s = summary
    run = s["run"]
    L: list[str] = [f"# Transfer report · {run['run_id']}", ""]
    if (s.get("config") or {}).get("synthetic"):
        L += ["> This run holds **synthetic** episodes, not measurements.", ""]
    L += ["```", headline(s), "```", ""]
    for n in s.get("notes", []):
        L.append(f"- note: {n}")
    if s.get("notes"):
        L.append("")

    h = s["headline"]
    L += ["## Headline", ""]
    if h.get("available"):
        sr = h["sr"]
        L += _table(["", "base", "trained", "gain"], [
            ["sim", f"{pct(sr['sim_base']['value'])} {ci_pct(sr['sim_base']['ci'])}",
             f"{pct(sr['sim_trained']['value'])} {ci_pct(sr['sim_trained']['ci'])}",
             f"{pt(h['gain_sim']['value'])} {ci_pt(h['gain_sim']['ci'])}"],
            ["device", f"{pct(sr['device_base']['value'])} {ci_pct(sr['device_base']['ci'])}",
             f"{pct(sr['device_trained']['value'])} {ci_pct(sr['device_trained']['ci'])}",
             f"{pt(h['gain_device']['value'])} {ci_pt(h['gain_device']['ci'])}"],
        ])
        L += [h["retention"]["message"], "",
              f"{h['n_tasks']} paired tasks, paired task bootstrap with {h['n_boot']} replicates (seed {h['seed']}). "
              + excluded_text(s), ""]
    else:
        L += [f"No transfer headline: {h.get('reason')}.", ""]

    g = s.get("sim_gain") or {}
    if g.get("available"):
        gs = g["sr"]
        L += ["## Sim gain (simulator only)", ""]
        L += _table(["", "base", "trained", "gain", "tasks"], [
            ["sim", f"{pct(gs['base']['value'])} {ci_pct(gs['base']['ci'])}",
             f"{pct(gs['trained']['value'])} {ci_pct(gs['trained']['ci'])}",
             f"{pt(g['gain']['value'])} {ci_pt(g['gain']['ci'])}", g["n_tasks"]]])
        L += [f"Every task with counted sim episodes for both policies ({kfrac(gs['base'])} and "
              f"{kfrac(gs['trained'])} successes), paired task bootstrap with {g['n_boot']} replicates.", ""]

    b = s.get("buckets")
    if b:
        L += ["## Buckets", ""]
        L += _table(["bucket", "tasks", "sim base", "sim trained", "device base", "device trained", "Δ sim",
                     "Δ device"],
                    [[r["bucket"], r["n_tasks"]] + [f"{pct(r[c]['value'])} ({kfrac(r[c])})" for c in
                                                    ("sim_base", "sim_trained", "device_base", "device_trained")]
                     + [pt(r["gain_sim"]), pt(r["gain_device"])] for r in b["rows"]])
        L += [b["rules"], ""]

    L += _by_family(s)

    L += ["## Policy metrics", ""]
    L += _table(["backend", "policy", "episodes", "counted", "excl. undet./infra/none", "policy-server outages",
                 "SR [Wilson] [task boot]", "PR", "FC", "USE"],
                [[r["backend"], r["policy"], r["episodes"], r["counted"],
                  f"{r['excluded']['undetermined']}/{r['excluded']['infra']}/{r['excluded']['no_verdict']}",
                  r.get("policy_server_outages", 0),
                  f"{pct(r['sr']['value'])} {ci_pct(r['sr']['wilson'])} {ci_pct(r['sr']['bootstrap'])}",
                  pct(r["pr"]["value"]), pct(r["fc"]["value"]), pct(r["use"]["value"])] for r in s["metrics"]])

    L += ["## Sim/device agreement", ""]
    ags = s.get("agreement") or {}
    if ags:
        rows = []
        for p, a in ags.items():
            t = a["table"]
            rows.append([p, a["n"], t[0][0], t[0][1], t[1][0], t[1][1], pct(a["agreement"]),
                         "undefined" if a["kappa"] is None else f"{a['kappa']:.2f}",
                         "" if not a.get("kappa_ci") else f"[{a['kappa_ci'][0]:.2f}, {a['kappa_ci'][1]:.2f}]",
                         a.get("note", "")])
        L += _table(["policy", "tasks", "sim✓ dev✓", "sim✓ dev✗", "sim✗ dev✓", "sim✗ dev✗", "agreement", "κ",
                     "κ 95% CI", "note"], rows)
    else:
        L += ["No policy has counted episodes on both backends.", ""]

    rc = s.get("rank_consistency") or {}
    L += ["## Rank consistency", ""]
    if rc.get("available"):
        L += [f"Pearson r = {num(rc['pearson_r'], 3)}, MMRV = {num(rc['mmrv'], 3)} over "
              f"{len(rc['policies'])} policies.", ""]
    else:
        L += [f"Not computed: {rc.get('reason', 'not available')}.", ""]

    L += ["## Combined device estimate (PPI)", ""]
    if s.get("ppi"):
        L += _table(["policy", "sim tasks", "paired", "device only", "PPI λ=1", "PPI++", "λ̂", "note"],
                    [[r["policy"], r["n_sim_tasks"], r["n_paired_tasks"],
                      f"{pct(r['device_only']['value'])} {ci_pct(r['device_only']['ci'])}",
                      f"{pct(r['ppi']['value'])} {ci_pct(r['ppi']['ci'])}",
                      f"{pct(r['ppi_tuned']['value'])} {ci_pct(r['ppi_tuned']['ci'])}", num(r["lambda"]),
                      r.get("note", "")] for r in s["ppi"]])
    else:
        L += ["Needs at least 2 paired tasks for a policy.", ""]

    L += ["## Step latency", ""]
    lat = s.get("latency") or {}
    L += _table(["backend", "samples", "mean ms", "p50 ms", "p95 ms", "source"],
                [[k, v.get("n", 0), num(v.get("mean_ms"), 0), num(v.get("p50_ms"), 0), num(v.get("p95_ms"), 0),
                  v.get("source", "")] for k, v in lat.items()]) if lat else ["No timings recorded.", ""]
    ml = [(b, p, v) for b, x in lat.items() for p, v in (x.get("model") or {}).items() if v.get("n")]
    if ml:
        L += ["Model latency per step (the policy's time, beside the environment's above):", ""]
        L += _table(["backend", "policy", "steps", "mean ms", "p50 ms", "p95 ms", "prompt tokens",
                     "completion tokens"],
                    [[b, p, v["n"], num(v.get("mean_ms"), 0), num(v.get("p50_ms"), 0), num(v.get("p95_ms"), 0),
                      (v.get("tokens") or {}).get("prompt_tokens", DASH),
                      (v.get("tokens") or {}).get("completion_tokens", DASH)] for b, p, v in ml])

    a = s.get("attribution") or {}
    L += ["## Attribution", ""]
    if a.get("available"):
        L += [a["rule"], ""]
        for key, title in (("bridge_faults", "Bridge faults (excluded from the headline)"),
                           ("sim_faults", "Sim faults"), ("oracle_fails_both", "Oracle fails on both backends")):
            items = a.get(key) or []
            L.append(f"- {title}: {len(items)}" + (": " + ", ".join(i["task_id"] for i in items) if items else ""))
        L.append("")
        w = h.get("with_bridge_faults") if h.get("available") else None
        if w:
            L += [f"With bridge-fault tasks: Δ sim {pt(w['gain_sim']['value'])}, Δ device "
                  f"{pt(w['gain_device']['value'])}; {w['retention']['message']}", ""]
    else:
        L += [f"{a.get('reason', 'not available')}.", ""]

    L += ["## Per task", ""]
    policies = run["policies"]
    rows = []
    for r in s.get("tasks", []):
        cells = []
        for p in policies:
            for bk in ("sim", "device"):
                c = r["cells"].get(f"{p}/{bk}")
                cells.append(f"{c['k']}/{c['n']}" if c and c.get("n") else DASH)
        flags = (["bridge fault"] if r["bridge_fault"] else []) + (
            ["sim≠device: " + ", ".join(r["disagree"])] if r["disagree"] else [])
        rows.append([r["task_id"], r.get("bucket") or DASH] + cells + ["; ".join(flags)])
    L += _table(["task", "bucket"] + [f"{p} {bk}" for p in policies for bk in ("sim", "device")] + ["flags"], rows)
    return "\n".join(L).rstrip() + "\n"
