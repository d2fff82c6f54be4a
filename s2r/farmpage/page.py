"""The farm page itself: one HTML document whose script polls ``api/phones`` once a second.

One card per phone, each field in an element named by ``data-f`` (serial, where, model, android,
family, battery, temperature, charging, health, run, task, episode, step, updated, and ``shot``:
which step's screen the image is — a policy that reads no pixels has the run take no screenshot
after the first, and the page takes none itself); a card is
``data-held="1"`` while a run holds its phone. The screenshot ``<img>`` changes its source only
when the run has a new one (its URL names the screenshot's sequence number). Text goes in through
``textContent``, never as markup.
"""

from __future__ import annotations

__all__ = ["PAGE"]

PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>s2r farm</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
 body{font:14px system-ui,sans-serif;margin:1rem;background:#f6f7f9;color:#222}
 h1{font-size:1.2rem;margin:0 0 .3rem} #meta{color:#666;margin-bottom:1rem}
 #phones{display:flex;flex-wrap:wrap;gap:1rem}
 .phone{background:#fff;border:1px solid #ddd;border-radius:8px;padding:.7rem;width:330px;display:flex;gap:.7rem}
 .phone[data-held="1"]{border-color:#3a7}
 figure{margin:0;width:120px} figcaption{font-size:11px;color:#777}
 .phone img{width:120px;min-height:60px;object-fit:contain;background:#eee;border-radius:4px}
 .phone img:not([src]){visibility:hidden}
 dl{margin:0;display:grid;grid-template-columns:auto 1fr;gap:.1rem .5rem;font-size:12.5px}
 dt{color:#777} dd{margin:0;overflow-wrap:anywhere}
 .h-online{color:#176} .h-bad{color:#b22;font-weight:600}
 #err{color:#b22}
</style></head>
<body>
<h1>s2r farm</h1>
<div id="meta">loading…</div><div id="err"></div>
<div id="phones"></div>
<script>
"use strict";
const tok = new URLSearchParams(location.search).get("token");
const withTok = u => tok ? u + (u.includes("?") ? "&" : "?") + "token=" + encodeURIComponent(tok) : u;
const FIELDS = [["serial","serial"],["where","host"],["model","model"],["android","Android"],["family","family"],
  ["battery","battery"],["temperature","temp."],["charging","charging"],["health","health"],["run","run"],
  ["task","task"],["episode","episode"],["step","step"],["updated","updated"]];
const cards = new Map();
function card(key) {
  let c = cards.get(key);
  if (c) return c;
  c = document.createElement("div"); c.className = "phone"; c.dataset.key = key;
  const fig = document.createElement("figure");
  const img = document.createElement("img"); img.className = "shot"; img.alt = "screen";
  const cap = document.createElement("figcaption"); cap.dataset.f = "shot";
  fig.append(img, cap); c.appendChild(fig);
  const dl = document.createElement("dl");
  for (const [f, label] of FIELDS) {
    const dt = document.createElement("dt"); dt.textContent = label;
    const dd = document.createElement("dd"); dd.dataset.f = f;
    dl.append(dt, dd);
  }
  c.appendChild(dl); document.getElementById("phones").appendChild(c); cards.set(key, c);
  return c;
}
function ago(t, now) {
  if (!t) return "";
  const s = Math.max(0, now - t);
  return s < 90 ? s.toFixed(0) + " s ago" : (s / 60).toFixed(0) + " min ago";
}
function families(p) {
  const by = {};
  for (const [app, fam] of Object.entries(p.app_families || {})) (by[fam] = by[fam] || []).push(app);
  const per = Object.entries(by).map(([f, apps]) => f + ": " + apps.join(", ")).join("; ");
  return per || p.family || "";
}
function render(v) {
  const now = v.at;
  const seen = new Set();
  for (const p of v.phones) {
    seen.add(p.key);
    const c = card(p.key), h = p.held, b = p.battery || {};
    const set = (f, t) => { c.querySelector(`[data-f="${f}"]`).textContent = t == null ? "" : String(t); };
    set("serial", p.serial); set("where", p.where === "local" ? "this host" : p.where);
    set("model", [p.manufacturer, p.model].filter(Boolean).join(" ") + (p.virtual ? " (virtual)" : ""));
    set("android", p.android ? p.android + (p.sdk ? " (SDK " + p.sdk + ")" : "") : "");
    set("family", families(p));
    const frozen = b.updates_stopped ? " (frozen by dumpsys battery set)" : "";
    set("battery", b.level != null ? Math.round(b.level) + "%" + frozen : "");
    set("temperature", b.temperature_c != null
      ? b.temperature_c.toFixed(1) + " °C" + (b.health && b.health !== "good" ? " (" + b.health + ")" : "") : "");
    const plugged = b.plugged && b.plugged.length ? " (" + b.plugged.join(", ") + ")" : "";
    set("charging", b.status ? b.status + plugged : "");
    set("health", p.health + (p.health_reason ? ": " + p.health_reason : "") + (p.error ? " — " + p.error : ""));
    const hd = c.querySelector('[data-f="health"]'); hd.className = p.health === "online" ? "h-online" : "h-bad";
    set("run", h ? h.run_id : p.health === "absent" ? ""
      : p.farm_state === "idle" ? "idle (in a run's farm)" : "idle");
    set("task", h ? h.task + " #" + h.seed : "");
    set("episode", h ? h.episode + (h.attempt > 1 ? " (attempt " + h.attempt + ")" : "") : "");
    set("step", h ? h.step : ""); set("updated", h ? ago(h.updated, now) : "");
    c.querySelector('[data-f="run"]').title = h ? h.run : "";
    c.dataset.held = h ? "1" : "0"; c.dataset.serial = p.serial; c.dataset.health = p.health;
    const img = c.querySelector("img.shot");
    if (p.shot_url) {
      const src = withTok(p.shot_url);
      if (img.getAttribute("src") !== src) img.setAttribute("src", src);
    } else if (img.hasAttribute("src")) { img.removeAttribute("src"); }
    // the run's own screens only: a policy that reads no pixels takes none after the first
    set("shot", !h ? "" : h.shot_step == null ? "no screen yet"
      : "step " + h.shot_step + "'s screen" + (h.step > h.shot_step ? " (later steps took none)" : ""));
  }
  for (const [key, c] of cards) if (!seen.has(key)) { c.remove(); cards.delete(key); }
  const runs = v.runs.map(r => (r.run || "?").split("/").pop() + " (pid " + r.pid + ", " + r.held + " held)")
    .join(", ");
  const hosts = v.hosts.map(h => h.name + (h.error ? " (" + h.error + ")" : "")).join(", ");
  document.getElementById("meta").textContent = v.phones.length + " phone(s)"
    + (runs ? " · runs: " + runs : " · no run") + (hosts ? " · hosts: " + hosts : "")
    + " · " + new Date(v.at * 1000).toLocaleTimeString();
  document.getElementById("err").textContent = v.adb_error ? "adb server: " + v.adb_error : "";
  document.body.dataset.polls = String(Number(document.body.dataset.polls || 0) + 1);
}
async function tick() {
  try {
    const r = await fetch(withTok("api/phones"), {cache: "no-store"});
    if (!r.ok) throw new Error("HTTP " + r.status);
    render(await r.json());
  } catch (e) {
    document.getElementById("err").textContent = "farm server: " + e;
  } finally { setTimeout(tick, 1000); }
}
tick();
</script>
</body></html>
"""
