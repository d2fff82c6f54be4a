"""report.html: one self-contained file — inline CSS, figures and screenshots as data URIs.

It must open offline and from an e-mail attachment, so it references nothing outside
itself: no CDN, no web font, no external script — except episode videos (``--record video``),
too large to inline, which are linked relative to the run directory (:mod:`.videos`). Every string from the run (task ids,
instructions, policy names, actions) is escaped.
"""

from __future__ import annotations

import base64
import html as _html
import json
from pathlib import Path
from typing import Any

from . import plots
from .fmt import DASH, ci_pct, ci_pt, excluded_text, kfrac, num, pct, pt
from .traces import MAX_IMAGE_BYTES, frames, image_kind, load_trace, step_latency_ms
from .videos import video_tag, videos_section

MAX_VIEWER_PAIRS = 12
MAX_FRAMES = 40

CSS = """
:root{--fg:#1d2330;--muted:#667085;--line:#e4e7ec;--bg:#fff;--soft:#f6f8fb;--good:#1f9d6b;--bad:#c0392b;
--accent:#2f6fdf;--warn:#b7791f}
*{box-sizing:border-box}body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans",
"Noto Sans CJK SC",sans-serif;color:var(--fg);background:var(--bg)}
main{max-width:1180px;margin:0 auto;padding:24px 28px 80px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:34px 0 10px;padding-top:8px;border-top:1px solid var(--line)}
h3{font-size:14px;margin:18px 0 6px}.muted{color:var(--muted)}.small{font-size:12px}
nav{position:sticky;top:0;background:#fffffff0;border-bottom:1px solid var(--line);padding:8px 28px;z-index:5;
font-size:13px}nav a{margin-right:14px;color:var(--accent);text-decoration:none}
table{border-collapse:collapse;margin:6px 0 10px;font-variant-numeric:tabular-nums}
th,td{border-bottom:1px solid var(--line);padding:4px 9px;text-align:right;vertical-align:top}
th{background:var(--soft);font-weight:600}td.l,th.l{text-align:left}
.ci{color:var(--muted);font-size:12px;white-space:nowrap}
.hero{display:grid;grid-template-columns:repeat(4,1fr);gap:12px;margin:16px 0 6px}
.card{border:1px solid var(--line);border-radius:10px;padding:12px 14px;background:var(--soft)}
.card .k{font-size:12px;color:var(--muted);text-transform:uppercase;letter-spacing:.04em}
.card .v{font-size:26px;font-weight:650;margin:2px 0}.card .c{font-size:12px;color:var(--muted)}
.card.ret .v{color:var(--accent)}.card.nm .v{font-size:16px;color:var(--warn)}
.msg{border-left:3px solid var(--accent);background:var(--soft);padding:8px 12px;margin:8px 0}
.msg.warn{border-color:var(--warn)}
.pass{color:var(--good)}.fail{color:var(--bad)}.dis{background:#fff4e5}
img.fig{max-width:100%;height:auto;border:1px solid var(--line);border-radius:6px}
.cm td,.cm th{text-align:center;min-width:70px}.cmwrap{display:flex;flex-wrap:wrap;gap:26px}
.viewer{border:1px solid var(--line);border-radius:10px;padding:10px 12px;margin:14px 0}
.viewer .sides{display:grid;grid-template-columns:1fr 1fr;gap:14px}
.viewer .side h4{margin:4px 0;font-size:13px}.frame img{max-width:100%;max-height:520px;border:1px solid var(--line);
border-radius:6px;display:block;margin:0 auto}.frame .cap{font:12px/1.4 ui-monospace,Menlo,Consolas,monospace;
background:var(--soft);padding:4px 6px;margin-top:4px;word-break:break-word;white-space:pre-wrap}
.noshot{height:140px;display:flex;align-items:center;justify-content:center;border:1px dashed var(--line);
color:var(--muted);border-radius:6px}
.ctrl button{font:inherit;padding:2px 10px;margin-right:6px;border:1px solid var(--line);background:#fff;
border-radius:6px;cursor:pointer}.ctrl .pos{color:var(--muted);font-size:12px}
details summary{cursor:pointer;color:var(--accent)}
section{scroll-margin-top:64px}table.stack td .ci{display:block}
code{background:var(--soft);padding:0 3px;border-radius:3px}
@media (max-width:800px){.hero{grid-template-columns:1fr 1fr}.viewer .sides{grid-template-columns:1fr}}
"""

JS = """
document.querySelectorAll('.viewer').forEach(function(v){
  var i=0, max=parseInt(v.getAttribute('data-frames'),10)||1, pos=v.querySelector('.pos');
  function show(){
    v.querySelectorAll('.side').forEach(function(s){
      var fs=s.querySelectorAll('.frame'); if(!fs.length) return;
      var k=Math.min(i, fs.length-1);
      for(var j=0;j<fs.length;j++){ fs[j].hidden=(j!==k); }
    });
    if(pos) pos.textContent='step '+(i+1)+' / '+max;
  }
  var p=v.querySelector('.prev'), n=v.querySelector('.next');
  if(p) p.onclick=function(){ if(i>0){i--;show();} };
  if(n) n.onclick=function(){ if(i<max-1){i++;show();} };
  show();
});
"""


def e(x: Any) -> str:
    return _html.escape("" if x is None else str(x), quote=True)


def _val_ci(v: float | None, ci: list[float] | None, kind: str = "pct") -> str:
    if kind == "pt":
        return f"{e(pt(v))} <span class='ci'>{e(ci_pt(ci))}</span>"
    return f"{e(pct(v))} <span class='ci'>{e(ci_pct(ci))}</span>"


def _img(png: bytes | None, alt: str) -> str:
    if not png:
        return f"<p class='muted'>{e(alt)}: not enough data to draw.</p>"
    return f"<img class='fig' alt='{e(alt)}' src='{plots.data_uri(png)}'>"


# ---------------------------------------------------------------------------- sections


def _hero(s: dict[str, Any]) -> str:
    h = s["headline"]
    if not h.get("available"):
        return f"<div class='msg warn'><b>No transfer headline.</b> {e(h.get('reason'))}</div>"
    sr = h["sr"]
    ret = h["retention"]
    cards = [
        ("sim gain", pt(h["gain_sim"]["value"]), f"95% CI {ci_pt(h['gain_sim']['ci'])} · "
         f"{pct(sr['sim_base']['value'])} → {pct(sr['sim_trained']['value'])}", ""),
        ("device gain", pt(h["gain_device"]["value"]), f"95% CI {ci_pt(h['gain_device']['ci'])} · "
         f"{pct(sr['device_base']['value'])} → {pct(sr['device_trained']['value'])}", ""),
    ]
    if ret.get("meaningful"):
        cards.append(("retention", pct(ret["value"]), f"95% CI {ci_pct(ret['ci'])} (paired task bootstrap)", "ret"))
    else:
        cards.append(("retention", "not meaningful", "the sim gain is too small or uncertain — see below", "nm"))
    cards.append(("Δ device − Δ sim", pt(h["difference"]["value"]), f"95% CI {ci_pt(h['difference']['ci'])}", ""))
    out = ["<div class='hero'>"]
    for k, v, c, cls in cards:
        out.append(f"<div class='card {cls}'><div class='k'>{e(k)}</div><div class='v'>{e(v)}</div>"
                   f"<div class='c'>{e(c)}</div></div>")
    out.append("</div>")
    out.append(f"<div class='msg{'' if ret.get('meaningful') else ' warn'}'>{e(ret['message'])}</div>")
    scope = (f"'{h['trained_policy']}' vs '{h['base_policy']}' on {h['n_tasks']} paired tasks "
             f"(counted episodes for both policies on both backends), {h['n_boot']} bootstrap replicates.")
    if h.get("excluded_bridge_faults"):
        scope += (f" Excludes {len(h['excluded_bridge_faults'])} bridge-fault task(s) where the oracle passes in "
                  "sim but fails on the device — see Attribution for figures with them.")
    if h.get("unpaired_tasks"):
        scope += f" {h['unpaired_tasks']} task(s) lack a paired cell and are not in the headline."
    out.append(f"<p class='muted small'>{e(scope)} {e(excluded_text(s))}</p>")
    return "".join(out)


def _sim_gain(s: dict[str, Any]) -> str:
    """Trained vs base in the simulator alone, over every task both have sim verdicts on (a
    sim-only run, such as a held-out test split, has this and no transfer headline)."""
    g = s.get("sim_gain") or {}
    if not g.get("available"):
        return f"<p class='muted'>No sim gain: {e(g.get('reason', 'not available'))}.</p>"
    sr = g["sr"]
    return ("<table><tr><th class='l'></th><th>base</th><th>trained</th><th>gain</th><th>tasks</th></tr>"
            f"<tr><td class='l'>sim</td><td>{_val_ci(sr['base']['value'], sr['base']['ci'])}</td>"
            f"<td>{_val_ci(sr['trained']['value'], sr['trained']['ci'])}</td>"
            f"<td>{_val_ci(g['gain']['value'], g['gain']['ci'], 'pt')}</td><td>{g['n_tasks']}</td></tr></table>"
            f"<p class='muted small'>'{e(g['trained_policy'])}' vs '{e(g['base_policy'])}' on every task with counted "
            f"sim episodes for both ({kfrac(sr['base'])} and {kfrac(sr['trained'])} successes), paired task "
            f"bootstrap with {g['n_boot']} replicates; unlike the headline it needs no device cells.</p>")


def _buckets(s: dict[str, Any]) -> str:
    b = s.get("buckets")
    if not b:
        return "<p class='muted'>No bucket table: it needs the base and trained policies on both backends.</p>"
    rows = ["<table><tr><th class='l'>bucket</th><th>tasks</th><th>sim base</th><th>sim trained</th>"
            "<th>device base</th><th>device trained</th><th>Δ sim</th><th>Δ device</th></tr>"]
    for r in b["rows"]:
        tag = "th" if r["bucket"] == "All" else "td"
        cells = "".join(f"<{tag}>{e(pct(r[c]['value']))} <span class='ci'>{e(kfrac(r[c]))}</span></{tag}>"
                        for c in ("sim_base", "sim_trained", "device_base", "device_trained"))
        rows.append(f"<tr><{tag} class='l'>{e(r['bucket'])}</{tag}><{tag}>{r['n_tasks']}</{tag}>{cells}"
                    f"<{tag}>{e(pt(r['gain_sim']))}</{tag}><{tag}>{e(pt(r['gain_device']))}</{tag}></tr>")
    rows.append("</table>")
    reg = b.get("regressions") or []
    extra = f" Regressions inside Mid (base passes, trained fails in sim): {len(reg)}." if reg else ""
    return "".join(rows) + f"<p class='muted small'>{e(b['rules'])}{e(extra)}</p>"


def _by_family(s: dict[str, Any]) -> str:
    """Retention per phone family and per Android version (the headline's bootstrap, group by group)."""
    bf = s.get("by_family") or {}
    if not bf.get("available"):
        return f"<p class='muted'>Not computed: {e(bf.get('reason', 'not available'))}.</p>"
    out = ["<table class='stack'><tr><th class='l'>by</th><th class='l'>group</th><th class='l'>phones</th>"
           "<th>tasks</th><th>device base</th><th>device trained</th><th>Δ device</th><th>Δ sim<br>"
           "<span class='ci'>same tasks</span></th><th>retention</th><th class='l'>note</th></tr>"]
    for dim in bf.get("dimensions", []):
        for r in bf.get(dim, []):
            label = f"Android {r['group']}" if dim == "android" and r["group"] != "unknown" else r["group"]
            head = (f"<tr><td class='l'>{e(dim)}</td><td class='l'>{e(label)}</td>"
                    f"<td class='l small'>{e(', '.join(r['phones']))}</td><td>{r['n_tasks']}</td>")
            if not r.get("available"):
                out.append(head + f"<td class='muted'>{DASH}</td>" * 5
                           + f"<td class='l small muted'>not available: {e(r['reason'])}</td></tr>")
                continue
            sr, ret = r["sr"], r["retention"]
            rtxt = _val_ci(ret["value"], ret["ci"]) if ret.get("meaningful") else "not meaningful"
            note = f"{r['unpaired_tasks']} task(s) unpaired here" if r.get("unpaired_tasks") else ""
            out.append(head + f"<td>{_val_ci(sr['device_base']['value'], sr['device_base']['ci'])}</td>"
                       f"<td>{_val_ci(sr['device_trained']['value'], sr['device_trained']['ci'])}</td>"
                       f"<td>{_val_ci(r['gain_device']['value'], r['gain_device']['ci'], 'pt')}</td>"
                       f"<td>{_val_ci(r['gain_sim']['value'], r['gain_sim']['ci'], 'pt')}</td>"
                       f"<td title='{e(ret['message'])}'>{rtxt}</td><td class='l small muted'>{e(note)}</td></tr>")
    out.append(f"</table><p class='muted small'>{e(bf['rule'])}</p>")
    return "".join(out)


def _metrics_table(rows: list[dict[str, Any]], by_target: bool = False) -> str:
    if not rows:
        return "<p class='muted'>No episodes.</p>"
    head = ("<tr><th class='l'>backend</th>" + ("<th class='l'>target</th>" if by_target else "")
            + "<th class='l'>policy</th><th>episodes</th><th>counted</th><th>excluded<br><span class='ci'>undet. / "
              "infra / no verdict</span></th><th>policy-server<br>outages</th><th>SR <span class='ci'>Wilson · task bootstrap</span></th>"
              "<th>PR</th><th>FC</th><th>USE</th><th>steps</th></tr>")
    out = ["<table class='stack'>", head]
    for r in rows:
        ex = r["excluded"]
        sr = r["sr"]
        out.append(
            f"<tr><td class='l'>{e(r['backend'])}</td>"
            + (f"<td class='l'>{e(r.get('target'))}</td>" if by_target else "")
            + f"<td class='l'>{e(r['policy'])}</td><td>{r['episodes']}</td><td>{r['counted']}</td>"
            f"<td>{ex['undetermined']} / {ex['infra']} / {ex['no_verdict']}</td>"
            f"<td>{r.get('policy_server_outages', 0)}</td>"
            f"<td>{e(pct(sr['value']))} <span class='ci'>{e(ci_pct(sr['wilson']))} · {e(ci_pct(sr['bootstrap']))}"
            f"</span></td>"
            + "".join(f"<td>{_val_ci(r[m]['value'], r[m]['bootstrap'])}</td>" for m in ("pr", "fc", "use"))
            + f"<td>{e(num(r.get('mean_steps'), 1))}</td></tr>")
    out.append("</table>")
    return "".join(out)


def _agreement(s: dict[str, Any]) -> str:
    ags = s.get("agreement") or {}
    if not ags:
        return "<p class='muted'>No policy has counted episodes on both backends.</p>"
    out = ["<div class='cmwrap'>"]
    for p, a in ags.items():
        t = a["table"]
        kappa = "undefined" if a["kappa"] is None else f"{a['kappa']:.2f}"
        kci = f" {ci_pt_plain(a.get('kappa_ci'))}" if a.get("kappa_ci") else ""
        out.append(
            f"<div><h3>{e(p)}</h3><table class='cm'><tr><th></th><th>device pass</th><th>device fail</th></tr>"
            f"<tr><th>sim pass</th><td class='pass'>{t[0][0]}</td><td class='dis'>{t[0][1]}</td></tr>"
            f"<tr><th>sim fail</th><td class='dis'>{t[1][0]}</td><td class='fail'>{t[1][1]}</td></tr></table>"
            f"<div class='small'>Cohen's κ = <b>{e(kappa)}</b><span class='ci'>{e(kci)}</span> · raw agreement "
            f"{e(pct(a['agreement']))} · {a['n']} tasks</div>"
            + (f"<div class='small muted'>{e(a['note'])}</div>" if a.get("note") else "") + "</div>")
    out.append("</div><p class='muted small'>Per-task verdict = majority over counted repeats (success rate ≥ "
               f"{e(s['settings']['pass_threshold'])}). κ interval: task bootstrap, replicates with κ undefined "
               "dropped.</p>")
    return "".join(out)


def ci_pt_plain(ci: list[float] | None) -> str:
    return "" if not ci else f"[{ci[0]:.2f}, {ci[1]:.2f}]"


def _ranks(s: dict[str, Any]) -> str:
    rc = s.get("rank_consistency") or {}
    pts = rc.get("policies") or []
    out = []
    if pts:
        out.append("<table><tr><th class='l'>policy</th><th>sim SR</th><th>device SR</th><th>tasks</th></tr>")
        for p in pts:
            out.append(f"<tr><td class='l'>{e(p['policy'])}</td><td>{e(pct(p['sim_sr']))}</td>"
                       f"<td>{e(pct(p['device_sr']))}</td><td>{p['tasks']}</td></tr>")
        out.append("</table>")
    if rc.get("available"):
        r = "undefined" if rc["pearson_r"] is None else f"{rc['pearson_r']:.3f}"
        out.append(f"<p>Pearson r = <b>{e(r)}</b> · MMRV = <b>{e(num(rc['mmrv'], 3))}</b> (0 = sim orders policies "
                   "exactly as the device does; each policy's worst mis-ordered pair, weighted by the pair's device "
                   "SR gap, averaged).</p>")
        if rc.get("reason"):
            out.append(f"<p class='muted'>{e(rc['reason'])}</p>")
    else:
        out.append(f"<p class='muted'>Pearson r and MMRV: {e(rc.get('reason', 'not available'))}.</p>")
    return "".join(out)


def _attribution(s: dict[str, Any]) -> str:
    a = s.get("attribution") or {}
    out = []
    if not a.get("available"):
        out.append(f"<p class='muted'>{e(a.get('reason', 'not available'))}.</p>")
    else:
        out.append(f"<p class='small'>{e(a['rule'])}</p>")
        if a.get("reason"):
            out.append(f"<p class='muted'>{e(a['reason'])}</p>")
        for key, title in (("bridge_faults", "Bridge faults (excluded from the headline)"),
                           ("sim_faults", "Sim faults (oracle fails only in sim)"),
                           ("oracle_fails_both", "Oracle fails on both backends (task or judge suspect)")):
            items = a.get(key) or []
            out.append(f"<h3>{e(title)}: {len(items)}</h3>")
            if items:
                out.append("<table><tr><th class='l'>task</th><th>oracle sim</th><th>oracle device</th></tr>"
                           + "".join(f"<tr><td class='l'>{e(i['task_id'])}</td><td>{e(pct(i['oracle_sim_sr']))}</td>"
                                     f"<td>{e(pct(i['oracle_device_sr']))}</td></tr>" for i in items) + "</table>")
        h = s.get("headline") or {}
        w = h.get("with_bridge_faults")
        if w:
            out.append("<h3>Headline with and without bridge-fault tasks</h3>"
                       "<table class='stack'><tr><th class='l'></th>"
                       "<th>tasks</th><th>Δ sim</th><th>Δ device</th><th>retention</th><th>Δ device − Δ sim</th></tr>")
            for label, x in (("without (headline)", h), ("with", w)):
                ret = x["retention"]
                rtxt = (_val_ci(ret["value"], ret["ci"]) if ret.get("meaningful") else "not meaningful")
                out.append(f"<tr><td class='l'>{e(label)}</td><td>{x['n_tasks']}</td>"
                           f"<td>{_val_ci(x['gain_sim']['value'], x['gain_sim']['ci'], 'pt')}</td>"
                           f"<td>{_val_ci(x['gain_device']['value'], x['gain_device']['ci'], 'pt')}</td>"
                           f"<td>{rtxt}</td><td>{_val_ci(x['difference']['value'], x['difference']['ci'], 'pt')}</td>"
                           "</tr>")
            out.append("</table>")
        if s.get("metrics_excluding_bridge_faults"):
            out.append("<details><summary>Policy metrics excluding bridge-fault tasks</summary>"
                       + _metrics_table(s["metrics_excluding_bridge_faults"]) + "</details>")
    be = a.get("bridge_error_episodes") or {}
    if be:
        out.append("<h3>Episodes the env classified as bridge errors</h3><table><tr><th class='l'>task</th>"
                   "<th>sim</th><th>device</th></tr>"
                   + "".join(f"<tr><td class='l'>{e(t)}</td><td>{v.get('sim', 0)}</td><td>{v.get('device', 0)}</td>"
                             "</tr>" for t, v in sorted(be.items())) + "</table>")
    return "".join(out)


def _ppi(s: dict[str, Any]) -> str:
    rows = s.get("ppi") or []
    if not rows:
        return "<p class='muted'>Needs at least 2 paired tasks for a policy.</p>"
    out = ["<table class='stack'><tr><th class='l'>policy</th><th>sim tasks</th><th>paired tasks</th>"
           "<th>device SR (paired only)"
           "</th><th>PPI, λ=1</th><th>PPI++, λ̂</th><th>λ̂</th><th class='l'>note</th></tr>"]
    for r in rows:
        out.append(f"<tr><td class='l'>{e(r['policy'])}</td><td>{r['n_sim_tasks']}</td><td>{r['n_paired_tasks']}</td>"
                   f"<td>{_val_ci(r['device_only']['value'], r['device_only']['ci'])}</td>"
                   f"<td>{_val_ci(r['ppi']['value'], r['ppi']['ci'])}</td>"
                   f"<td>{_val_ci(r['ppi_tuned']['value'], r['ppi_tuned']['ci'])}</td>"
                   f"<td>{e(num(r['lambda'], 2))}</td><td class='l small muted'>{e(r.get('note'))}</td></tr>")
    out.append("</table><p class='muted small'>Prediction-powered estimate of the device SR: the sim mean over all "
               "sim tasks, rectified by the mean device − sim difference on paired tasks (task-level success "
               "rates; normal 95% intervals). PPI++ tunes λ to the sim/device correlation and is never worse "
               "asymptotically. Useful when sim covers many more tasks than the phones did.</p>")
    return "".join(out)


def _latency(s: dict[str, Any]) -> str:
    lat = s.get("latency") or {}
    if not lat:
        return "<p class='muted'>No timings recorded.</p>"
    out = [_img(plots.latency_chart(s), "step latency per backend"),
           "<table><tr><th class='l'>backend</th><th>samples</th><th>mean</th><th>p50</th><th>p95</th><th>p99</th>"
           "<th class='l'>source</th></tr>"]
    for b, L in lat.items():
        if not L.get("n"):
            out.append(f"<tr><td class='l'>{e(b)}</td><td>0</td><td>{DASH}</td><td>{DASH}</td><td>{DASH}</td>"
                       f"<td>{DASH}</td><td class='l muted'>{e(L.get('source'))}</td></tr>")
            continue
        out.append(f"<tr><td class='l'>{e(b)}</td><td>{L['n']}</td><td>{L['mean_ms']:.0f} ms</td>"
                   f"<td>{L['p50_ms']:.0f} ms</td><td>{L['p95_ms']:.0f} ms</td><td>{L['p99_ms']:.0f} ms</td>"
                   f"<td class='l muted small'>{e(L['source'])}</td></tr>")
    out.append("</table>")
    out.append(_model_latency(s))
    return "".join(out)


def _model_latency(s: dict[str, Any]) -> str:
    """The policy's time per step (a model's round trip) beside the environment's, and tokens."""
    ml = [(b, p, v) for b, L in (s.get("latency") or {}).items() for p, v in (L.get("model") or {}).items()
          if v.get("n")]
    if not ml:
        return ""
    out = ["<h3>Model latency per step</h3><table><tr><th class='l'>backend</th><th class='l'>policy</th>"
           "<th>steps</th><th>mean</th><th>p50</th><th>p95</th><th>prompt tokens</th><th>completion tokens</th></tr>"]
    for b, p, v in ml:
        t = v.get("tokens") or {}
        out.append(f"<tr><td class='l'>{e(b)}</td><td class='l'>{e(p)}</td><td>{v['n']}</td><td>{v['mean_ms']:.0f} ms</td>"
                   f"<td>{v['p50_ms']:.0f} ms</td><td>{v['p95_ms']:.0f} ms</td>"
                   f"<td>{t.get('prompt_tokens', DASH)}</td><td>{t.get('completion_tokens', DASH)}</td></tr>")
    out.append("</table>")
    return "".join(out)


def _tasks(s: dict[str, Any]) -> str:
    policies = s["run"]["policies"]
    head = ("<tr><th class='l'>task</th><th class='l'>bucket</th>"
            + "".join(f"<th>{e(p)} sim</th><th>{e(p)} device</th>" for p in policies)
            + "<th class='l'>flags</th></tr>")
    out = ["<table>", head]
    for r in s.get("tasks", []):
        cells = []
        for p in policies:
            for b in ("sim", "device"):
                c = r["cells"].get(f"{p}/{b}")
                if not c or not c.get("n"):
                    extra = f" <span class='ci'>({c['excluded']} excl.)</span>" if c and c.get("excluded") else ""
                    cells.append(f"<td class='muted'>{DASH}{extra}</td>")
                    continue
                cls = "pass" if c["sr"] >= s["settings"]["pass_threshold"] else "fail"
                if p in r["disagree"]:
                    cls += " dis"
                extra = f" <span class='ci'>+{c['excluded']} excl.</span>" if c.get("excluded") else ""
                cells.append(f"<td class='{cls}'>{c['k']}/{c['n']}{extra}</td>")
        flags = []
        if r["bridge_fault"]:
            flags.append("bridge fault")
        if r["disagree"]:
            flags.append("sim≠device: " + ", ".join(r["disagree"]))
        if not r["in_headline"] and not r["bridge_fault"]:
            flags.append("not paired")
        title = f" title='{e(r['instruction'])}'" if r.get("instruction") else ""
        out.append(f"<tr><td class='l'{title}>{e(r['task_id'])}</td><td class='l'>{e(r.get('bucket') or DASH)}</td>"
                   + "".join(cells) + f"<td class='l small'>{e('; '.join(flags))}</td></tr>")
    out.append("</table><p class='muted small'>Cells: counted successes / counted episodes; orange = the backends "
               "disagree on this task for this policy. Hover a task id for its instruction.</p>")
    return "".join(out)


# ---------------------------------------------------------------------------- step viewer


def _action_text(row: dict[str, Any]) -> str:
    a = row.get("action")
    if isinstance(a, dict):
        t = a.get("type", "?")
        rest = {k: v for k, v in a.items() if k not in ("type", "clamped") and v not in (None, False, "", [], {})}
        txt = t + (" " + json.dumps(rest, ensure_ascii=False, sort_keys=True) if rest else "")
    elif a is not None:
        txt = str(a)
    elif row.get("raw"):
        txt = f"raw output: {row['raw']}"
    else:
        txt = "(no action recorded)"
    info = row.get("info") if isinstance(row.get("info"), dict) else {}
    inv = row.get("invalid") or row.get("invalid_action") or info.get("invalid_action")
    err = row.get("error") or info.get("error")
    if inv:
        txt += f"  ✗ invalid: {inv}"
    if err:
        txt += f"  ! {err}"
    ms = step_latency_ms(row)
    if ms is not None:
        txt += f"  ({ms:.0f} ms)"
    return txt[:400]


def _image_tag(path: Path | None, alt: str) -> str:
    if path is None:
        return "<div class='noshot'>no screenshot</div>"
    try:
        data = path.read_bytes() if path.stat().st_size <= MAX_IMAGE_BYTES else b""
    except OSError:
        data = b""
    kind = image_kind(data)
    if not kind:
        return "<div class='noshot'>screenshot unreadable or too large</div>"
    return f"<img alt='{e(alt)}' src='data:image/{kind};base64,{base64.b64encode(data).decode('ascii')}'>"


def _side(run_dir: Path, backend: str, ep: dict[str, Any] | None) -> tuple[str, int]:
    if ep is None:
        return f"<div class='side'><h4>{e(backend)}</h4><p class='muted'>no counted episode</p></div>", 1
    verdict = "success" if ep.get("success") else "failure"
    head = (f"<h4>{e(backend)} · <span class='{'pass' if ep.get('success') else 'fail'}'>{verdict}</span> "
            f"<span class='muted small'>{e(ep.get('target'))} · repeat {e(ep.get('repeat'))} · {e(ep.get('steps'))} "
            f"steps · ended by {e(ep.get('terminated_by'))}</span></h4>")
    tr = load_trace(run_dir, ep["episode_id"], ep.get("trace"))
    if not tr.present:
        return (f"<div class='side'>{head}<p class='muted small'>No trace recorded for episode "
                f"<code>{e(ep['episode_id'])}</code>.</p></div>"), 1
    fr = frames(tr)
    shown = fr[:MAX_FRAMES]
    html = [video_tag(run_dir, tr.path)]  # the episode's video (--record video), linked from the run directory
    for i, f in enumerate(shown):
        cap = _action_text(f.row) if f.row is not None else "(final screen)" if f.label.startswith("after") else ""
        html.append(f"<div class='frame'{'' if i == 0 else ' hidden'}>{_image_tag(f.image, f'{backend} {f.label}')}"
                    f"<div class='cap'>{e(f.label)}: {e(cap)}</div></div>")
    tail = f"<p class='muted small'>first {MAX_FRAMES} of {len(fr)} frames shown</p>" if len(fr) > MAX_FRAMES else ""
    return f"<div class='side'>{head}{''.join(html)}{tail}</div>", max(len(shown), 1)


def _viewer(s: dict[str, Any], run_dir: Path | None) -> str:
    items = s.get("viewer") or []
    if not items:
        return ("<p class='muted'>Sim and device agree on every task (per-task majority), so there is nothing to "
                "compare.</p>")
    if run_dir is None:
        return "<p class='muted'>Run directory not available: traces cannot be shown.</p>"
    out = []
    for it in items[:MAX_VIEWER_PAIRS]:
        sim_html, ns = _side(run_dir, "sim", it.get("sim"))
        dev_html, nd = _side(run_dir, "device", it.get("device"))
        frames = max(ns, nd)
        out.append(
            f"<div class='viewer' data-frames='{frames}'><div><b>{e(it['task_id'])}</b> · policy "
            f"<b>{e(it['policy'])}</b> · {e(it['direction'])} (sim {e(pct(it['sim_sr']))}, device "
            f"{e(pct(it['device_sr']))})</div>"
            f"<div class='ctrl'><button class='prev' type='button'>◀ prev</button><button class='next' "
            f"type='button'>next ▶</button><span class='pos'>step 1 / {frames}</span></div>"
            f"<div class='sides'>{sim_html}{dev_html}</div></div>")
    if len(items) > MAX_VIEWER_PAIRS:
        rest = ", ".join(f"{i['task_id']} ({i['policy']})" for i in items[MAX_VIEWER_PAIRS:])
        out.append(f"<p class='muted small'>{len(items) - MAX_VIEWER_PAIRS} more disagreement(s) not shown: "
                   f"{e(rest)}</p>")
    return "".join(out)


# ---------------------------------------------------------------------------- page


def render_html(summary: dict[str, Any], run_dir: Path | str | None = None) -> str:
    """The whole report page as one string."""
    s = summary
    run = s["run"]
    rd = Path(run_dir) if run_dir is not None else None
    inp = s["input"]
    meta = (f"{inp['episodes']} episodes ({inp['counted']} counted) · {run['tasks']} tasks · policies "
            f"{', '.join(run['policies'])} · sim targets {', '.join(run['targets'].get('sim', [])) or DASH} · "
            f"device targets {', '.join(run['targets'].get('device', [])) or DASH}")
    if run.get("split"):
        meta += f" · split {run['split']}"
    issues = []
    if inp.get("malformed_lines"):
        issues.append(f"{inp['malformed_lines']} malformed line(s) in episodes.jsonl were skipped")
    if inp.get("duplicates_dropped"):
        issues.append(f"{inp['duplicates_dropped']} duplicate record(s) of an episode slot were dropped")
    issues += s.get("notes", [])
    if (s.get("config") or {}).get("synthetic"):
        issues.insert(0, "this run holds synthetic episodes, not measurements")
    sections = [
        ("headline", "Headline", _hero(s)),
        ("simgain", "Sim gain (simulator only)", _sim_gain(s)),
        ("buckets", "Buckets (reference-study layout)", _buckets(s)),
        *([("families", "Retention by phone family and Android version", _by_family(s))]
          if (s.get("by_family") or {}).get("device_episodes") else []),
        ("gains", "Gains", _img(plots.gain_chart(s), "gain chart")),
        ("metrics", "Policy metrics", _metrics_table(s["metrics"])
         + "<p class='muted small'>SR success rate, PR mean progress, FC false-complete rate, USE rate of episodes "
           "with unintended side effects — over counted episodes. Intervals: Wilson over episodes and cluster "
           "bootstrap over tasks (95%).</p>"
         + ("<details><summary>By target (device serial / sim profile)</summary>"
            + _metrics_table(s["metrics_by_target"], by_target=True) + "</details>"
            if len({r.get('target') for r in s.get('metrics_by_target', [])}) > 2 else "")),
        ("scatter", "Sim vs device per task", _img(plots.scatter_chart(s), "per-task scatter")),
        ("agreement", "Sim/device agreement", _agreement(s)),
        ("ranks", "Does sim rank policies like the device?", _ranks(s)),
        ("ppi", "Combined device estimate (prediction-powered)", _ppi(s)),
        ("latency", "Step latency", _latency(s)),
        ("attribution", "Attribution", _attribution(s)),
        ("tasks", "Per task", _tasks(s)),
        ("viewer", "Where sim and device disagree", _viewer(s, rd)),
        *([("videos", "Episode videos", v)] if (v := videos_section(rd)) else []),
    ]
    nav = "".join(f"<a href='#{k}'>{e(t.split(' (')[0])}</a>" for k, t, _ in sections)
    body = "".join(f"<section id='{k}'><h2>{e(t)}</h2>{c}</section>" for k, t, c in sections)
    issue_html = "".join(f"<div class='msg warn small'>{e(i)}</div>" for i in issues)
    return (
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width,initial-scale=1'>"
        f"<title>s2r transfer report · {e(run['run_id'])}</title><style>{CSS}</style></head><body>"
        f"<nav>{nav}</nav><main><h1>Transfer report · {e(run['run_id'])}</h1><div class='muted'>{e(meta)}</div>"
        f"{issue_html}{body}"
        "<p class='muted small'>Generated by s2r report from summary.json; every number above is computed from "
        "episodes.jsonl.</p></main>"
        f"<script>{JS}</script></body></html>\n"
    )
