// s2r phone OS, the module every app imports: it draws the phone, turns touches on its frame into
// scrolling and system gestures, and installs the hooks Python drives; over the state store, the
// component kit and the shell (status bar, navigation, launcher, shade, recents, keyboard, dialogs,
// toasts), each its own module.
//
// Why it is built this way: a phone *is* its state. Everything the screen shows — the app
// stack, scroll offsets, the focused field and its text, an open dialog, the keyboard, the
// shade — lives in one JSON object (S2R.state) that Python owns between steps. Any page can
// render any phone at any step (S2R.load), and S2R.snapshot() hands the state back together
// with the UI elements Python turns into UIElements. Rendering is synchronous, so when an
// input event handler returns, the screen is already up to date (settling is cheap).
//
// The parts: the state store, navigation and app registry (os_core.js), the component kit
// (os_kit.js), the shell (os_shell.js). This module renders the shell's Phone() (render + focus +
// scroll restoration), handles the frame's gestures, installs the hooks Python calls (S2R.load, key,
// tick, snapshot) and re-exports the store's helpers and the kit, so apps import from here alone.
import { render } from './vendor/preact-htm.mjs';
import { S2R, onRender, rerender, ui, update, route, back, home, openApp } from './os_core.js';
import { pkgOf, submitField } from './os_kit.js';
import { Phone } from './os_shell.js';

export { html } from './vendor/preact-htm.mjs';
export { st, world, ui, flavor, stock, t, update, nextId, now, nowIso, pad2, fmtTime, toast, setSetting, route, go,
  replace, back, home, openApp, scrollKey, registerApp, registerFlavor, rerender } from './os_core.js';
export { A, pkgOf, pressHandlers, Text, Screen, Row, Switch, SwitchRow, Checkbox, Radio, Button, Chip, Field, Tabs,
  BottomNav, Slider, Dialog, TimePickerBody, readTime, Empty, Section } from './os_kit.js';

// ------------------------------------------------------------------------------------------
// render + focus + scroll restoration
const root = () => document.getElementById('root');
let scrollRestoring = false;
function renderPhone() {
  if (!S2R.state) return;
  render(Phone(), root());
  S2R.renders++;
  if (S2R.onChange) S2R.onChange();
  // restore scroll offsets from state (a phone is its state, down to the scroll position)
  scrollRestoring = true;
  for (const el of document.querySelectorAll('[data-scroll-key]')) {
    const want = S2R.state.ui.scroll[el.dataset.scrollKey] || 0;
    if (Math.abs(el.scrollTop - want) > 0.5) el.scrollTop = want;
  }
  scrollRestoring = false;
  // keep DOM focus in step with ui.focus
  const f = S2R.state.ui.focus;
  const want = f ? document.querySelector(`[data-field="${CSS.escape(f)}"]`) : null;
  if (want && document.activeElement !== want) {
    want.focus({ preventScroll: true });
    const n = want.value.length;
    try { want.setSelectionRange(n, n); } catch (e) { /* not a text input */ }
  } else if (!f && document.activeElement && document.activeElement.dataset && document.activeElement.dataset.field) {
    document.activeElement.blur();
  }
}
onRender(renderPhone);

// ------------------------------------------------------------------------------------------
// gestures on the phone frame: JS-driven scrolling (deterministic, with momentum from the
// last move), the shade pulled from the status bar, gesture navigation at the edges.
let g = null;
function onTouchStart(e) {
  // a new touch starts a new press: a long press whose click never arrived (the screen
  // changed under the finger) must not swallow this one
  S2R.press.longFired = false;
  if (e.touches.length !== 1) return;
  const tch = e.touches[0];
  const phone = document.getElementById('phone');
  const pr = phone.getBoundingClientRect();
  const x = tch.clientX - pr.left, y = tch.clientY - pr.top;
  const sc = e.target.closest && e.target.closest('[data-scroll-key], .drawer, .recents');
  g = { x0: x, y0: y, x, y, lastDy: 0, lastDx: 0, sc, st0: sc ? sc.scrollTop : 0, moved: false, h: pr.height, w: pr.width, target: e.target };
}
function onTouchMove(e) {
  if (!g || S2R.gestureLock) return;
  const tch = e.touches[0];
  const pr = document.getElementById('phone').getBoundingClientRect();
  const x = tch.clientX - pr.left, y = tch.clientY - pr.top;
  g.lastDx = x - g.x; g.lastDy = y - g.y; g.x = x; g.y = y;
  if (Math.abs(x - g.x0) > 8 || Math.abs(y - g.y0) > 8) g.moved = true;
  if (g.sc && g.moved && Math.abs(y - g.y0) >= Math.abs(x - g.x0) && !(g.y0 < 28 || g.y0 > g.h - 24)) {
    g.sc.scrollTop = g.st0 - (y - g.y0);
    e.preventDefault();
  }
}
function onTouchEnd() {
  if (!g) return;
  const gg = g; g = null;
  if (S2R.gestureLock || !gg.moved) return;
  const dx = gg.x - gg.x0, dy = gg.y - gg.y0;
  const u = ui();
  S2R.gestureLock = true; setTimeout(() => { S2R.gestureLock = false; }, 0);
  // shade: pull down from the status bar
  if (gg.y0 < 28 && dy > 60) { update(() => { u.shade = u.shade ? 'expanded' : 'notifications'; u.recentsOpen = false; }); return; }
  if (u.shade && dy < -60) { update(() => { u.shade = null; }); return; }
  const gesture = S2R.state.profile.navigation === 'gesture';
  if (gesture && gg.y0 > gg.h - 24 && dy < -80) { update(() => home()); return; }
  if (gesture && (gg.x0 < 16 || gg.x0 > gg.w - 16) && Math.abs(dx) > 60) { update(() => back()); return; }
  // launcher: swipe up opens the app drawer, down closes it
  if (!u.current && !u.shade && Math.abs(dy) > 80 && Math.abs(dy) > Math.abs(dx)) {
    if (dy < 0 && !u.drawer) { update(() => { u.drawer = true; }); return; }
    if (dy > 0 && u.drawer && (!gg.sc || gg.sc.scrollTop <= 0)) { update(() => { u.drawer = false; }); return; }
  }
  if (gg.sc && Math.abs(dy) >= Math.abs(dx)) {
    // momentum: deterministic, from the last move event
    const fling = Math.max(-1500, Math.min(1500, -gg.lastDy * 6));
    const max = gg.sc.scrollHeight - gg.sc.clientHeight;
    const target = Math.max(0, Math.min(max, gg.sc.scrollTop + fling));
    gg.sc.scrollTop = target;
    if (gg.sc.dataset.scrollKey) update(() => { u.scroll[gg.sc.dataset.scrollKey] = Math.round(gg.sc.scrollTop); });
  }
}

// ------------------------------------------------------------------------------------------
// hooks Python calls
S2R.load = function (state) {
  S2R.state = typeof state === 'string' ? JSON.parse(state) : state;
  const u = S2R.state.ui;
  u.scroll = u.scroll || {}; u.fields = u.fields || {}; u.tasks = u.tasks || {};
  // Python may name an app without a stack (open it at its root) or with a '__root__' marker
  for (const [id, stack] of Object.entries(u.tasks)) {
    const app = S2R.apps[id];
    if (!app) continue;
    if (!stack.length) stack.push(JSON.parse(JSON.stringify(app.root)));
    if (stack[0].s === '__root__') stack[0] = JSON.parse(JSON.stringify(app.root));
  }
  if (u.current && !S2R.apps[u.current]) u.current = null;
  if (u.current && !(u.tasks[u.current] || []).length) u.tasks[u.current] = [JSON.parse(JSON.stringify(S2R.apps[u.current].root))];
  document.documentElement.classList.toggle('anim', !!(S2R.state.sys && S2R.state.sys.animations));
  rerender();
  return true;
};
S2R.getState = () => JSON.stringify(S2R.state);
S2R.openApp = (id) => { let ok = false; update(() => { ok = openApp(id); }); return ok; };
S2R.key = (k) => {
  update(() => {
    if (k === 'back') back();
    else if (k === 'home') home();
    else if (k === 'recents') { ui().recentsOpen = !ui().recentsOpen; ui().shade = null; }
    else if (k === 'enter') { if (ui().focus) submitField(); }
    else if (k === 'delete') { const f = ui().focus; if (f) { const v = ui().fields[f] ?? ''; ui().fields[f] = [...v].slice(0, -1).join(''); } }
  });
};
/** Advance simulated time by `sec` seconds: clock, timers, stopwatch, toasts. */
S2R.tick = (sec) => {
  update((s) => {
    const d = new Date((s.world.time || '2027-01-01T09:00:00') + 'Z');
    d.setUTCSeconds(d.getUTCSeconds() + Math.round(sec));
    s.world.time = d.toISOString().slice(0, 19);
    for (const tm of s.world.timers || []) {
      if (tm.running) { tm.remaining_s = Math.max(0, tm.remaining_s - Math.round(sec)); if (tm.remaining_s === 0) tm.running = false; }
    }
    const sw = s.world.stopwatch;
    if (sw && sw.running) sw.elapsed_ms += Math.round(sec * 1000);
    if (s.ui.toast) { s.ui.toast.ttl -= 1; if (s.ui.toast.ttl <= 0) s.ui.toast = null; }
  });
};
S2R.hasFocus = () => !!(S2R.state.ui.focus && document.querySelector(`[data-field="${CSS.escape(S2R.state.ui.focus)}"]`));

/** Elements for the policy, and the foreground, in one pass (Python converts to UIElement). */
S2R.snapshot = function (withState) {
  const phone = document.getElementById('phone');
  const pr = phone.getBoundingClientRect();
  const out = [];
  const nodes = phone.querySelectorAll('[data-cls]');
  const W = pr.width, H = pr.height;
  for (const el of nodes) {
    let r = el.getBoundingClientRect();
    let l = Math.max(r.left, pr.left), tp = Math.max(r.top, pr.top), rt = Math.min(r.right, pr.right), bt = Math.min(r.bottom, pr.bottom);
    // clip by scrolling ancestors
    const sc = el.parentElement && el.parentElement.closest('[data-scroll-key], .drawer, .recents');
    if (sc) {
      const cr = sc.getBoundingClientRect();
      l = Math.max(l, cr.left); tp = Math.max(tp, cr.top); rt = Math.min(rt, cr.right); bt = Math.min(bt, cr.bottom);
    }
    if (rt - l < 1 || bt - tp < 1) continue;
    // covered by an overlay (dialog scrim, keyboard, shade)? sample the centre
    const cx = (l + rt) / 2, cy = (tp + bt) / 2;
    const top = document.elementFromPoint(cx, cy);
    if (top && !(el === top || el.contains(top) || top.contains(el))) {
      // a sibling overlay is on top; keep only if some other point is visible
      const p2 = document.elementFromPoint(l + 2, tp + 2);
      if (!p2 || !(el === p2 || el.contains(p2))) continue;
    }
    const d = el.dataset;
    let text = d.text;
    if (text === undefined) {
      text = el.querySelector('[data-cls]') ? '' : (el.textContent || '').trim();
    }
    const pkgAttr = d.rid && d.rid.includes(':id/') ? d.rid.split(':id/')[0] : null;
    out.push({
      cls: d.cls, rid: d.rid || '', desc: d.desc || '', text: text || '', hint: d.hint || '',
      pkg: pkgAttr && pkgAttr !== 'android' ? pkgAttr : pkgOf(),
      l: l - pr.left, t: tp - pr.top, r: rt - pr.left, b: bt - pr.top,
      click: d.click === '1', long: d.long === '1', checkable: d.checkable === '1', checked: d.checked === '1',
      selected: d.selected === '1', enabled: d.disabled !== '1', scroll: d.scrollable === '1', edit: d.edit === '1',
      password: d.password === '1',
      focused: !!(d.edit === '1' && el.querySelector('[data-field]') && el.querySelector('[data-field]').dataset.field === S2R.state.ui.focus),
    });
  }
  const r = route();
  const app = S2R.apps[r.app];
  const fg = {
    app: r.app, package: app ? app.pkg : '',
    activity: app ? (app.activity ? app.activity(r) : app.pkg + '/.' + r.s) : '',
    route: `${r.app}/${r.s}`,
  };
  return { elements: out, foreground: fg, keyboard: !!(S2R.state.ui.keyboard && S2R.state.ui.focus), w: W, h: H,
           state: withState ? JSON.stringify(S2R.state) : null, error: S2R.lastError || null };
};

window.addEventListener('touchstart', onTouchStart, { passive: true, capture: true });
window.addEventListener('touchmove', onTouchMove, { passive: false, capture: true });
window.addEventListener('touchend', onTouchEnd, { passive: true, capture: true });
// keep scroll offsets in state when something scrolls for another reason
document.addEventListener('scroll', (e) => {
  const el = e.target;
  if (scrollRestoring || !el.dataset || !el.dataset.scrollKey || !S2R.state) return;
  S2R.state.ui.scroll[el.dataset.scrollKey] = Math.round(el.scrollTop);
}, true);

S2R.ready = true;
