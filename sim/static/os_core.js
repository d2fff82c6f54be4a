// s2r phone OS, the state store: the one JSON object a phone is (S2R.state), the helpers that read
// and change it (world, ui, flavor, t, update, nextId, sim time, toasts, settings), navigation (one
// route stack per app, like Android's tasks) and the app registry (registerApp, registerFlavor).
//
// Why apart from the shell: apps and the component kit change state and ask for a redraw; they
// never need the shell's widgets. os.js says how to draw the phone (onRender: os_shell.js's Phone), so
// update() redraws synchronously without this module importing the shell.
export const S2R = (window.S2R = {
  state: null,
  apps: {},
  order: [],
  version: 1,
  renders: 0,
  gestureLock: false,
});

/** How the phone is drawn: os.js hands its renderer over once, when it loads. */
let draw = null;
export function onRender(fn) { draw = fn; }
/** Draw the phone from S2R.state now (synchronously). */
export function rerender() { if (draw) draw(); }

// ------------------------------------------------------------------------------------------
// state helpers
export function st() { return S2R.state; }
export function world() { return S2R.state.world; }
export function ui() { return S2R.state.ui; }
export function flavor() { return (S2R.state && S2R.state.flavor) || 'sim'; }
/** True on the flavors that model a real phone's own apps (every flavor but our own `sim`). */
export function stock() { return flavor() !== 'sim'; }
/**
 * Pick a string by flavor: t('Wi-Fi', 'Internet'[, googleText]). Google's apps descend from
 * AOSP's and mostly keep its strings, so `google` falls back to the AOSP text.
 */
export function t(simText, aospText, googleText) {
  const f = flavor();
  if (f === 'google' && googleText !== undefined) return googleText;
  return f !== 'sim' && aospText !== undefined ? aospText : simText;
}

/** Mutate state and re-render synchronously. */
export function update(fn) {
  try { fn(S2R.state); } finally { rerender(); }
}
export function nextId(prefix) {
  const s = S2R.state;
  s.seq = (s.seq || 0) + 1;
  return `${prefix}${s.seq}`;
}
export function now() { return new Date((world().time || '2027-01-01T09:00:00') + 'Z'); }
export function nowIso() { return (world().time || '2027-01-01T09:00:00').slice(0, 19); }
export function pad2(n) { return String(n).padStart(2, '0'); }
export function fmtTime(h, m, h24) {
  if (h24 === undefined) h24 = world().settings.time_24h !== false;
  if (h24) return `${pad2(h)}:${pad2(m)}`;
  const ap = h < 12 ? 'AM' : 'PM';
  const hh = h % 12 === 0 ? 12 : h % 12;
  return `${hh}:${pad2(m)} ${ap}`;
}
export function toast(text) { S2R.state.ui.toast = { text, ttl: 2 }; }
export function setSetting(key, value) {
  const s = world().settings;
  s[key] = value;
  if (key === 'airplane_mode' && value) { s.wifi = false; s.bluetooth = false; s.mobile_data = false; }
}

// ------------------------------------------------------------------------------------------
// navigation: one task (route stack) per app, like Android's recents
export function route() {
  const u = ui();
  if (!u.current) return { app: 'launcher', s: u.drawer ? 'drawer' : 'home', p: {} };
  const stack = u.tasks[u.current] || [];
  const top = stack[stack.length - 1] || S2R.apps[u.current]?.root || { s: 'main', p: {} };
  return { app: u.current, s: top.s, p: top.p || {} };
}
export function go(screen, params = {}) {
  const u = ui();
  if (!u.current) return;
  u.tasks[u.current].push({ s: screen, p: params });
  u.focus = null; u.keyboard = false; u.dialog = null;
}
export function replace(screen, params = {}) {
  const u = ui();
  const stack = u.tasks[u.current];
  stack[stack.length - 1] = { s: screen, p: params };
  u.focus = null; u.keyboard = false; u.dialog = null;
}
export function back() {
  const u = ui();
  if (u.shade) { u.shade = null; return; }
  if (u.recentsOpen) { u.recentsOpen = false; return; }
  if (u.keyboard) { u.keyboard = false; u.focus = null; return; }
  if (u.dialog) { u.dialog = null; return; }
  if (!u.current) { u.drawer = false; return; }
  const app = S2R.apps[u.current];
  if (app && app.onBack && app.onBack(route()) === true) return;
  const stack = u.tasks[u.current];
  if (stack && stack.length > 1) { stack.pop(); u.focus = null; return; }
  u.current = null; u.focus = null;
}
export function home() {
  const u = ui();
  u.current = null; u.drawer = false; u.shade = null; u.recentsOpen = false;
  u.dialog = null; u.focus = null; u.keyboard = false;
}
export function openApp(id, screen) {
  const u = ui();
  const app = S2R.apps[id];
  if (!app) return false;
  u.shade = null; u.recentsOpen = false; u.drawer = false; u.dialog = null; u.focus = null; u.keyboard = false;
  if (!u.tasks[id] || !u.tasks[id].length) u.tasks[id] = [JSON.parse(JSON.stringify(app.root))];
  if (screen) u.tasks[id] = [JSON.parse(JSON.stringify(app.root)), screen];
  u.current = id;
  u.recents = [id, ...(u.recents || []).filter((a) => a !== id)].slice(0, 12);
  // first launch of an app may show a runtime-permission dialog (a sim-to-real gap knob)
  const perm = S2R.state.sys.permission_prompts || [];
  if (perm.includes(id) && !(S2R.state.sys.permissions_granted || []).includes(id)) {
    u.dialog = { kind: 'permission', app: id };
  }
  return true;
}
export function scrollKey() { const r = route(); return `${r.app}/${r.s}/${JSON.stringify(r.p)}`; }

// ------------------------------------------------------------------------------------------
// app registry
/**
 * registerApp({id, label, pkg, icon, color, root: {s, p}, screens: {name: (params) => vnode},
 *              dialogs: {kind: (dialog) => vnode}, activity: (route) => string, onBack?})
 */
export function registerApp(app) {
  S2R.apps[app.id] = new Proxy(app, { get: flavored });
  if (!S2R.order.includes(app.id)) S2R.order.push(app.id);
}

/**
 * registerFlavor('google', 'clock', {pkg, label, root, screens, dialogs, activity, onBack, ...})
 *
 * Why: a flavor that models another vendor's app (Google Clock beside AOSP DeskClock) shares
 * the app's world model and state helpers but not its screens. Its screens live in their own
 * module (apps/<flavor>/<app>.js) and replace the base app's members while that flavor is the
 * phone's: `screens` and `dialogs` are merged by name (a flavor may add or replace a screen),
 * every other member (pkg, root, activity, onBack, the launcher's home/drawer) replaces the
 * base one. The base app stays what every other flavor sees.
 */
export function registerFlavor(name, appId, overrides) {
  S2R.flavors[name] = S2R.flavors[name] || {};
  S2R.flavors[name][appId] = { ...overrides, _merged: {} };
}
S2R.flavors = {};
const MERGED = new Set(['screens', 'dialogs']);
function flavored(app, key) {
  const o = S2R.state && S2R.flavors[S2R.state.flavor] && S2R.flavors[S2R.state.flavor][app.id];
  if (!o || !(key in o) || key === '_merged') return app[key];
  if (!MERGED.has(key)) return o[key];
  return o._merged[key] || (o._merged[key] = { ...(app[key] || {}), ...o[key] });
}
