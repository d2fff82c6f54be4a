// s2r phone OS: the state store, the component kit, the shell (status bar, navigation,
// launcher, shade, recents, keyboard, dialogs, toasts) and the hooks Python drives.
//
// Why it is built this way: a phone *is* its state. Everything the screen shows — the app
// stack, scroll offsets, the focused field and its text, an open dialog, the keyboard, the
// shade — lives in one JSON object (S2R.state) that Python owns between steps. Any page can
// render any phone at any step (S2R.load), and S2R.snapshot() hands the state back together
// with the UI elements Python turns into UIElements. Rendering is synchronous, so when an
// input event handler returns, the screen is already up to date (settling is cheap).
import { html, render } from './vendor/preact-htm.mjs';

export { html };

const S2R = (window.S2R = {
  state: null,
  apps: {},
  order: [],
  version: 1,
  renders: 0,
  gestureLock: false,
});

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
// the component kit: Material-style widgets annotated with Android class names and ids
/** Annotation attributes: which Android widget this node is, for the element extractor. */
export function A(cls, o = {}) {
  const a = { 'data-cls': cls };
  if (o.id) a['data-rid'] = o.id.includes(':id/') ? o.id : `${o.pkg || pkgOf()}:id/${o.id}`;
  if (o.desc) a['data-desc'] = o.desc;
  if (o.text !== undefined) a['data-text'] = String(o.text);
  if (o.click) a['data-click'] = '1';
  if (o.long) a['data-long'] = '1';
  if (o.checkable) a['data-checkable'] = '1';
  if (o.checked) a['data-checked'] = '1';
  if (o.selected) a['data-selected'] = '1';
  if (o.disabled) a['data-disabled'] = '1';
  if (o.scroll) a['data-scrollable'] = '1';
  if (o.edit) a['data-edit'] = '1';
  if (o.password) a['data-password'] = '1';
  if (o.hint) a['data-hint'] = o.hint;
  return a;
}
export function pkgOf(appId) {
  const id = appId || ui()?.current;
  if (!id) return S2R.apps.launcher?.pkg || 'com.android.launcher3';
  return S2R.apps[id]?.pkg || 'android';
}

// touch handling: tap, long press and double tap with touch semantics, decided from real
// touch events (Python dispatches them through CDP). A row that handles long press must
// not also fire its tap.
const LONG_MS = 500;
export function pressHandlers(onClick, onLong) {
  if (!onLong) return { onClick: (e) => { if (S2R.gestureLock || S2R.press.longFired) { S2R.press.longFired = false; return; } update(() => onClick(e)); } };
  // The long-press flag and timer live on S2R, not in this closure: a long press re-renders,
  // and the click that follows the touch must see the flag even on the freshly built handler.
  const P = S2R.press;
  return {
    onTouchStart: (e) => {
      P.longFired = false;
      clearTimeout(P.timer);
      P.timer = setTimeout(() => { P.longFired = true; update(() => onLong(e)); }, LONG_MS);
    },
    onTouchMove: () => { clearTimeout(P.timer); },
    onTouchEnd: () => { clearTimeout(P.timer); },
    onContextMenu: (e) => { e.preventDefault(); },
    onClick: (e) => {
      if (P.longFired || S2R.gestureLock) { P.longFired = false; return; }
      if (onClick) update(() => onClick(e));
    },
  };
}
S2R.press = { longFired: false, timer: null };

export function Text(text, o = {}) {
  return html`<span class=${'tv ' + (o.cls || '')} ...${A('android.widget.TextView', { id: o.id, text, desc: o.desc })}>${text}</span>`;
}

/** A screen: app bar (title, up arrow, actions) + a scrolling body + optional FAB/bottom bar. */
export function Screen({ title, up = true, actions = [], body, fab, bottom, tabs, scroll = true, search }) {
  const key = scrollKey();
  return html`<div class="screen">
    <div class="appbar" ...${A('android.view.ViewGroup', { id: 'toolbar' })}>
      ${up ? html`<div class="icon-btn" ...${A('android.widget.ImageButton', { desc: 'Navigate up', click: true, text: '' })}
          ...${pressHandlers(() => back())}>←</div>` : null}
      ${search || html`<div class="title" ...${A('android.widget.TextView', { id: 'title', text: title })}>${title}</div>`}
      ${actions.map((a) => html`<div class="icon-btn" ...${A('android.widget.ImageButton', { desc: a.desc, id: a.id, click: true, text: '' })}
          ...${pressHandlers(a.onClick)}>${a.icon}</div>`)}
    </div>
    ${tabs || null}
    <div class=${'body' + (scroll ? ' scroll' : '')} data-scroll-key=${key}
      ...${A(scroll ? 'androidx.recyclerview.widget.RecyclerView' : 'android.widget.FrameLayout', { id: 'list', scroll })}>
      <div class="body-inner">${body}</div>
    </div>
    ${fab ? html`<div class="fab" ...${A('android.widget.ImageButton', { desc: fab.desc, id: fab.id || 'fab', click: true, text: '' })}
        ...${pressHandlers(fab.onClick)}>${fab.icon || '+'}</div>` : null}
    ${bottom || null}
  </div>`;
}

/** A list row: primary and secondary text, optional leading icon and trailing widget. */
export function Row({ title, subtitle, icon, trailing, onClick, onLong, id, desc, cls = '', selected, disabled }) {
  return html`<div class=${'row ' + cls + (disabled ? ' disabled' : '')}
      ...${A('android.widget.LinearLayout', { id, desc, click: !!onClick && !disabled, long: !!onLong, selected })}
      ...${onClick || onLong ? pressHandlers(disabled ? () => {} : onClick || (() => {}), onLong) : {}}>
    ${icon ? html`<div class="row-icon" ...${A('android.widget.ImageView', { text: '' })}>${icon}</div>` : null}
    <div class="row-text">
      <div class="row-title" ...${A('android.widget.TextView', { id: 'title', text: title })}>${title}</div>
      ${subtitle ? html`<div class="row-sub" ...${A('android.widget.TextView', { id: 'summary', text: subtitle })}>${subtitle}</div>` : null}
    </div>
    ${trailing || null}
  </div>`;
}

export function Switch({ checked, onChange, id = 'switch_widget', desc, disabled }) {
  return html`<div class=${'switch' + (checked ? ' on' : '')}
      ...${A('android.widget.Switch', { id, desc, click: !disabled, checkable: true, checked, disabled, text: checked ? 'ON' : 'OFF' })}
      ...${pressHandlers((e) => { e.stopPropagation(); if (!disabled) onChange(!checked); })}><div class="knob"></div></div>`;
}

/** A settings-style row whose whole width toggles a switch (as on Android). */
export function SwitchRow({ title, subtitle, checked, onChange, id, disabled }) {
  return Row({ title, subtitle, id, disabled, onClick: () => onChange(!checked),
    trailing: Switch({ checked, onChange, disabled }) });
}

export function Checkbox({ checked, onChange, label, id }) {
  return html`<div class="check-row" ...${A('android.widget.CheckBox', { id, text: label, click: true, checkable: true, checked })}
      ...${pressHandlers(() => onChange(!checked))}>
    <span class=${'box' + (checked ? ' on' : '')}>${checked ? '✓' : ''}</span><span>${label}</span></div>`;
}

export function Radio({ checked, onSelect, label, id }) {
  return html`<div class="check-row" ...${A('android.widget.RadioButton', { id, text: label, click: true, checkable: true, checked })}
      ...${pressHandlers(() => onSelect())}>
    <span class=${'radio' + (checked ? ' on' : '')}></span><span>${label}</span></div>`;
}

export function Button({ label, onClick, id, kind = 'text', disabled, desc }) {
  return html`<div class=${'btn ' + kind + (disabled ? ' disabled' : '')}
      ...${A('android.widget.Button', { id, text: label, desc, click: !disabled, disabled })}
      ...${pressHandlers(() => { if (!disabled) onClick(); })}>${label}</div>`;
}

export function Chip({ label, on, onClick, id }) {
  return html`<div class=${'chip' + (on ? ' on' : '')}
      ...${A('android.widget.CompoundButton', { id, text: label, click: true, checkable: true, checked: !!on })}
      ...${pressHandlers(onClick)}>${label}</div>`;
}

/** A text field bound to ui.fields[field]. Focus shows the soft keyboard. */
/** `cls`: the widget class the app's layout uses (an AutoCompleteTextView, a framework subclass). */
export function Field({ field, hint, label, multiline, type = 'text', id, onSubmit, password, cls = 'android.widget.EditText' }) {
  const u = ui();
  const value = u.fields[field] ?? '';
  const focused = u.focus === field;
  const attrs = A(cls, { id: id || field, text: value, hint: hint || label, click: true, edit: true, password });
  const common = {
    class: 'input', 'data-field': field, value, placeholder: hint || label || '',
    autocomplete: 'off', autocapitalize: 'off', spellcheck: false,
    onInput: (e) => { S2R.state.ui.fields[field] = e.target.value; rerender(); },
    onFocus: () => { if (S2R.state.ui.focus !== field) update((s) => { s.ui.focus = field; s.ui.keyboard = true; }); },
    onKeyDown: (e) => { if (e.key === 'Enter' && !multiline) { e.preventDefault(); submitField(); } },
  };
  S2R.submitters[field] = onSubmit || null;
  return html`<div class=${'field' + (focused ? ' focused' : '')} ...${attrs}
      onClick=${() => { if (S2R.state.ui.focus !== field) update((s) => { s.ui.focus = field; s.ui.keyboard = true; }); }}>
    ${label ? html`<div class="field-label">${label}</div>` : null}
    ${multiline ? html`<textarea ...${common} rows="3"></textarea>`
      : html`<input ...${common} type=${password ? 'password' : type === 'number' ? 'text' : 'text'} inputmode=${type === 'number' ? 'numeric' : 'text'} />`}
  </div>`;
}
S2R.submitters = {};
function submitField() {
  const f = ui().focus;
  const fn = f && S2R.submitters[f];
  update((s) => { if (fn) fn(); else { s.ui.keyboard = false; s.ui.focus = null; } });
}

export function Tabs({ tabs, active, onSelect }) {
  return html`<div class="tabs" ...${A('android.widget.HorizontalScrollView', { id: 'tabs' })}>
    ${tabs.map((tb) => html`<div class=${'tab' + (tb.id === active ? ' on' : '')}
        ...${A('android.widget.TextView', { id: `tab_${tb.id}`, text: tb.label, desc: tb.label, click: true, selected: tb.id === active })}
        ...${pressHandlers(() => onSelect(tb.id))}>${tb.icon ? html`<span class="tab-icon">${tb.icon}</span>` : null}${tb.label}</div>`)}
  </div>`;
}

export function BottomNav({ items, active, onSelect }) {
  return html`<div class="bottomnav" ...${A('android.widget.FrameLayout', { id: 'navigation_bar' })}>
    ${items.map((tb) => html`<div class=${'navitem' + (tb.id === active ? ' on' : '')}
        ...${A('android.widget.FrameLayout', { id: `nav_${tb.id}`, desc: tb.label, click: true, selected: tb.id === active })}
        ...${pressHandlers(() => onSelect(tb.id))}>
      <div class="nav-icon">${tb.icon}</div>${Text(tb.label, { id: 'navigation_bar_item_label_view' })}</div>`)}
  </div>`;
}

/** A slider (android.widget.SeekBar): tap or drag along the track sets the value. */
export function Slider({ value, min = 0, max = 100, onChange, id = 'seekbar', desc }) {
  const frac = (value - min) / (max - min);
  const setFrom = (e) => {
    const el = e.currentTarget;
    const r = el.getBoundingClientRect();
    const x = (e.touches && e.touches[0] ? e.touches[0].clientX : e.changedTouches && e.changedTouches[0] ? e.changedTouches[0].clientX : e.clientX);
    const f = Math.min(1, Math.max(0, (x - r.left - 10) / (r.width - 20)));
    onChange(Math.round(min + f * (max - min)));
  };
  return html`<div class="slider" ...${A('android.widget.SeekBar', { id, desc, click: true, scroll: false, text: String(value) })}
      onTouchStart=${(e) => { S2R.gestureLock = true; update(() => setFrom(e)); e.stopPropagation(); }}
      onTouchMove=${(e) => { update(() => setFrom(e)); e.stopPropagation(); e.preventDefault(); }}
      onTouchEnd=${(e) => { S2R.gestureLock = false; e.stopPropagation(); }}
      onClick=${(e) => { update(() => setFrom(e)); }}>
    <div class="track"><div class="fill" style=${`width:${frac * 100}%`}></div></div>
    <div class="thumb" style=${`left:calc(${frac * 100}% * (1 - 20 / 100) + 0px)`}></div>
  </div>`;
}

/** A modal dialog; buttons = [{label, onClick}]. */
export function Dialog({ title, body, buttons = [], id = 'alertTitle' }) {
  return html`<div class="scrim" onClick=${(e) => { if (e.target === e.currentTarget) update(() => { ui().dialog = null; }); }}>
    <div class="dialog" ...${A('android.widget.FrameLayout', { id: 'parentPanel', pkg: 'android' })}>
      ${title ? html`<div class="dialog-title" ...${A('android.widget.TextView', { id: `android:id/${id}`, text: title })}>${title}</div>` : null}
      <div class="dialog-body">${body}</div>
      <div class="dialog-buttons">${buttons.map((b, i) => Button({ label: b.label, onClick: b.onClick, id: `android:id/button${i + 1}`, disabled: b.disabled }))}</div>
    </div></div>`;
}

/** Time picker in keyboard-input mode: two number fields and, in 12-hour mode, AM/PM. */
export function TimePickerBody({ hField, mField, ampmField }) {
  const u = ui();
  const ap = ampmField ? u.fields[ampmField] || 'AM' : null;
  return html`<div class="timepicker" ...${A('android.widget.TimePicker', { id: 'timePicker' })}>
    ${Field({ field: hField, hint: 'hh', label: 'Hour', type: 'number', id: 'input_hour' })}
    <div class="tp-colon">:</div>
    ${Field({ field: mField, hint: 'mm', label: 'Minute', type: 'number', id: 'input_minute' })}
    ${ampmField ? html`<div class="ampm">
      ${Radio({ label: 'AM', checked: ap === 'AM', onSelect: () => { u.fields[ampmField] = 'AM'; }, id: 'am_label' })}
      ${Radio({ label: 'PM', checked: ap === 'PM', onSelect: () => { u.fields[ampmField] = 'PM'; }, id: 'pm_label' })}
    </div>` : null}
  </div>`;
}
/** Read an hour/minute pair typed into a time picker; null if invalid. */
export function readTime(hField, mField, ampmField) {
  const f = ui().fields;
  const h = parseInt(String(f[hField] ?? '').trim(), 10), m = parseInt(String(f[mField] ?? '').trim(), 10);
  if (!Number.isFinite(h) || !Number.isFinite(m) || m < 0 || m > 59) return null;
  if (ampmField) {
    if (h < 1 || h > 12) return null;
    const pm = (f[ampmField] || 'AM') === 'PM';
    return { hour: (h % 12) + (pm ? 12 : 0), minute: m };
  }
  if (h < 0 || h > 23) return null;
  return { hour: h, minute: m };
}

export function Empty(text) {
  return html`<div class="empty" ...${A('android.widget.TextView', { id: 'empty', text })}>${text}</div>`;
}
export function Section(title) {
  return html`<div class="section" ...${A('android.widget.TextView', { id: 'section_title', text: title })}>${title}</div>`;
}

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

// ------------------------------------------------------------------------------------------
// the shell
function StatusBar() {
  const w = world(), s = w.settings;
  const d = now();
  const tm = fmtTime(d.getUTCHours(), d.getUTCMinutes());
  const icons = [];
  if (s.do_not_disturb) icons.push('⊖');
  if (s.bluetooth) icons.push('✻');
  if (s.airplane_mode) icons.push('✈');
  else if (s.wifi) icons.push('▼');
  if (s.location) icons.push('◉');
  return html`<div class="statusbar" ...${A('android.widget.FrameLayout', { id: 'com.android.systemui:id/status_bar' })}>
    <span class="sb-time" ...${A('android.widget.TextView', { id: 'com.android.systemui:id/clock', text: tm })}>${tm}</span>
    <span class="sb-icons" ...${A('android.widget.LinearLayout', { id: 'com.android.systemui:id/statusIcons', desc: statusDesc(s), text: '' })}>${icons.join(' ')}</span>
    <span class="sb-batt" ...${A('android.widget.TextView', { id: 'com.android.systemui:id/battery', text: `${S2R.state.sys.battery}%`, desc: `Battery ${S2R.state.sys.battery} percent.` })}>${S2R.state.sys.battery}%</span>
  </div>`;
}
function statusDesc(s) {
  const parts = [];
  if (s.airplane_mode) parts.push('Airplane mode'); else if (s.wifi) parts.push('Wi‑Fi signal full');
  if (s.bluetooth) parts.push('Bluetooth on');
  if (s.do_not_disturb) parts.push('Do Not Disturb');
  return parts.join(', ') || 'No signal';
}

function NavBar() {
  const gesture = S2R.state.profile.navigation === 'gesture';
  if (gesture) {
    return html`<div class="navbar gesture" ...${A('android.widget.FrameLayout', { id: 'com.android.systemui:id/navigation_bar_frame' })}><div class="handle"></div></div>`;
  }
  const key = (desc, icon, fn, id) => html`<div class="navkey"
      ...${A('android.widget.ImageView', { id: `com.android.systemui:id/${id}`, desc, click: true, text: '' })}
      ...${pressHandlers(fn)}>${icon}</div>`;
  return html`<div class="navbar" ...${A('android.widget.FrameLayout', { id: 'com.android.systemui:id/navigation_bar_frame' })}>
    ${key('Back', '◀', () => back(), 'back')}${key('Home', '●', () => home(), 'home_button')}${key('Overview', '■', () => { ui().recentsOpen = !ui().recentsOpen; ui().shade = null; }, 'recent_apps')}
  </div>`;
}

const TILES = [
  { key: 'wifi', label: 'Internet', sim: 'Wi‑Fi', icon: '▼' },
  { key: 'bluetooth', label: 'Bluetooth', icon: '✻' },
  { key: 'airplane_mode', label: 'Airplane mode', icon: '✈' },
  { key: 'do_not_disturb', label: 'Do Not Disturb', icon: '⊖' },
  { key: 'dark_mode', label: 'Dark theme', icon: '◐' },
  { key: 'auto_rotate', label: 'Auto-rotate', icon: '⟳' },
  { key: 'location', label: 'Location', icon: '◉' },
  { key: 'flashlight', label: 'Flashlight', icon: '🔦' },
];
export function setSetting(key, value) {
  const s = world().settings;
  s[key] = value;
  if (key === 'airplane_mode' && value) { s.wifi = false; s.bluetooth = false; s.mobile_data = false; }
}
function Shade() {
  const s = world().settings;
  const expanded = ui().shade === 'expanded';
  const tiles = expanded ? TILES : TILES.slice(0, 6);
  const notifs = (S2R.state.sys.notifications || []);
  return html`<div class="shade" ...${A('android.widget.FrameLayout', { id: 'com.android.systemui:id/notification_panel' })}>
    <div class="qs" ...${A('android.view.ViewGroup', { id: 'com.android.systemui:id/quick_settings_panel' })}>
      <div class="qs-tiles">
      ${tiles.map((tl) => {
        const on = !!s[tl.key];
        const label = flavor() === 'aosp' ? tl.label : tl.sim || tl.label;
        return html`<div class=${'tile' + (on ? ' on' : '')}
          ...${A('android.widget.Switch', { id: 'com.android.systemui:id/qs_tile', desc: `${label}, ${on ? 'On' : 'Off'}`, text: label, click: true, checkable: true, checked: on })}
          ...${pressHandlers(() => setSetting(tl.key, !on))}>
          <span class="tile-icon">${tl.icon}</span><span class="tile-label">${label}</span><span class="tile-state">${on ? 'On' : 'Off'}</span></div>`;
      })}
      </div>
      ${expanded ? html`<div class="qs-bright">☀ ${Slider({ value: s.brightness, min: 0, max: 255, id: 'com.android.systemui:id/slider', desc: 'Display brightness', onChange: (v) => { s.brightness = v; } })}</div>` : null}
      <div class="qs-more" ...${A('android.widget.ImageView', { id: 'com.android.systemui:id/expand_indicator', desc: expanded ? 'Collapse quick settings' : 'Expand quick settings', click: true })}
        ...${pressHandlers(() => { ui().shade = expanded ? 'notifications' : 'expanded'; })}>${expanded ? '⌃' : '⌄'}</div>
    </div>
    <div class="notifs">
      ${notifs.length ? notifs.map((n, i) => html`<div class="notif" ...${A('android.widget.FrameLayout', { id: 'com.android.systemui:id/expandableNotificationRow', click: true })}
          ...${pressHandlers(() => { sysNotifOpen(i); })}>
        ${Text(n.title, { id: 'android:id/title' })}${Text(n.text, { id: 'android:id/text' })}</div>`)
        : html`<div class="notif-empty" ...${A('android.widget.TextView', { id: 'com.android.systemui:id/no_notifications', text: 'No notifications' })}>No notifications</div>`}
    </div>
  </div>`;
}
function sysNotifOpen(i) {
  const n = S2R.state.sys.notifications[i];
  S2R.state.sys.notifications.splice(i, 1);
  ui().shade = null;
  if (n && n.app) openApp(n.app, n.route || null);
}

function Recents() {
  const list = (ui().recents || []).filter((a) => S2R.apps[a]);
  return html`<div class="recents" ...${A('android.widget.FrameLayout', { id: 'com.android.launcher3:id/overview_panel', pkg: 'com.android.launcher3' })}>
    ${list.length ? list.map((a) => html`<div class="recent-card"
        ...${A('android.widget.FrameLayout', { id: 'com.android.launcher3:id/snapshot', desc: S2R.apps[a].label, click: true })}
        ...${pressHandlers(() => openApp(a))}>
      <div class="recent-title">${S2R.apps[a].icon} ${S2R.apps[a].label}</div>
      <div class="recent-x" ...${A('android.widget.ImageView', { desc: `Dismiss ${S2R.apps[a].label}`, click: true })}
        ...${pressHandlers((e) => { e.stopPropagation(); const u = ui(); u.recents = u.recents.filter((x) => x !== a); delete u.tasks[a]; if (u.current === a) u.current = null; })}>✕</div></div>`)
      : html`<div class="empty" ...${A('android.widget.TextView', { text: 'No recent items' })}>No recent items</div>`}
    ${list.length ? Button({ label: 'Clear all', id: 'com.android.launcher3:id/clear_all', onClick: () => { const u = ui(); u.recents = []; u.tasks = {}; u.recentsOpen = false; u.current = null; u.focus = null; } }) : null}
  </div>`;
}

// soft keyboard (the IME): not part of the accessibility tree, like a real phone's IME window
const ROWS = {
  abc: ['qwertyuiop', 'asdfghjkl', '⇧zxcvbnm⌫', '#, .⏎'],
  sym: ['1234567890', '@#$_&-+()/', '*"\':;!?⌫', 'a, .⏎'],
};
function Keyboard() {
  const u = ui();
  const layer = u.kbLayer || 'abc';
  const press = (k) => {
    const f = u.focus;
    if (!f) return;
    if (k === '⇧') { u.kbShift = !u.kbShift; return; }
    if (k === '#') { u.kbLayer = 'sym'; return; }
    if (k === 'a' && layer === 'sym') { u.kbLayer = 'abc'; return; }
    if (k === '⏎') { submitField(); return; }
    const v = u.fields[f] ?? '';
    if (k === '⌫') { u.fields[f] = [...v].slice(0, -1).join(''); return; }
    const ch = k === ' ' ? ' ' : u.kbShift ? k.toUpperCase() : k;
    u.kbShift = false;
    u.fields[f] = v + ch;
  };
  return html`<div class="keyboard" onMouseDown=${(e) => e.preventDefault()}>
    ${ROWS[layer].map((row) => html`<div class="kb-row">${[...row].map((k) => html`<div class=${'key' + (k === ' ' ? ' space' : '') + ('⇧⌫#⏎'.includes(k) || (k === 'a' && layer === 'sym') ? ' fn' : '')}
      onClick=${() => update(() => press(k))}>${k === ' ' ? 'space' : k === '#' ? '?123' : k === 'a' && layer === 'sym' ? 'ABC' : u.kbShift && k.length === 1 ? k.toUpperCase() : k}</div>`)}</div>`)}
  </div>`;
}

function Launcher({ drawer }) {
  const own = S2R.apps.launcher;  // a flavor's launcher (Pixel Launcher) draws its own home and drawer
  if (drawer && own && own.drawer) return own.drawer();
  if (!drawer && own && own.home) return own.home();
  const apps = S2R.order.filter((a) => a !== 'launcher');
  const dock = ['phone', 'messages', 'clock', 'settings'].filter((a) => S2R.apps[a]);
  const icon = (a) => html`<div class="app-icon"
      ...${A('android.widget.TextView', { id: 'com.android.launcher3:id/icon', pkg: 'com.android.launcher3', text: S2R.apps[a].label, desc: S2R.apps[a].label, click: true, long: true })}
      ...${pressHandlers(() => openApp(a), () => toast(`${S2R.apps[a].label}: App info`))}>
    <div class="app-glyph" style=${`background:${S2R.apps[a].color || '#3367d6'}`}>${S2R.apps[a].icon}</div>
    <div class="app-label">${S2R.apps[a].label}</div></div>`;
  if (drawer) {
    return html`<div class="drawer" ...${A('androidx.recyclerview.widget.RecyclerView', { id: 'com.android.launcher3:id/apps_list_view', pkg: 'com.android.launcher3', scroll: true })}>
      <div class="drawer-search" ...${A('android.widget.EditText', { id: 'com.android.launcher3:id/search_box_input', pkg: 'com.android.launcher3', hint: 'Search apps', click: true })}>Search apps</div>
      <div class="grid">${apps.map(icon)}</div></div>`;
  }
  const d = now();
  return html`<div class="home" ...${A('android.view.ViewGroup', { id: 'com.android.launcher3:id/workspace', pkg: 'com.android.launcher3' })}>
    <div class="home-clock" ...${A('android.widget.TextView', { id: 'com.android.launcher3:id/clock', pkg: 'com.android.launcher3', text: fmtTime(d.getUTCHours(), d.getUTCMinutes()) })}>${fmtTime(d.getUTCHours(), d.getUTCMinutes())}</div>
    <div class="home-date">${d.toLocaleDateString('en-US', { weekday: 'long', month: 'long', day: 'numeric', timeZone: 'UTC' })}</div>
    <div class="grid home-grid">${apps.filter((a) => !dock.includes(a)).map(icon)}</div>
    <div class="drawer-hint" ...${A('android.widget.TextView', { id: 'com.android.launcher3:id/all_apps_handle', pkg: 'com.android.launcher3', desc: 'Apps list', click: true })}
      ...${pressHandlers(() => { ui().drawer = true; })}>⌃</div>
    <div class="dock" ...${A('android.view.ViewGroup', { id: 'com.android.launcher3:id/hotseat', pkg: 'com.android.launcher3' })}>${dock.map(icon)}</div>
  </div>`;
}

function PermissionDialog({ app }) {
  const label = S2R.apps[app]?.label || app;
  const grant = (ok) => () => {
    const s = S2R.state.sys;
    s.permissions_granted = [...(s.permissions_granted || []), app];
    s.permissions_user_set = [...(s.permissions_user_set || []).filter((a) => a !== app), app];
    s.permissions_denied = (s.permissions_denied || []).filter((a) => a !== app);
    if (!ok) s.permissions_denied.push(app);
    ui().dialog = null;
    if (!ok) toast('Permission denied');
  };
  return html`<div class="scrim"><div class="dialog perm" ...${A('android.widget.LinearLayout', { id: 'com.android.permissioncontroller:id/grant_dialog', pkg: 'com.android.permissioncontroller' })}>
    <div class="dialog-title" ...${A('android.widget.TextView', { id: 'com.android.permissioncontroller:id/permission_message', pkg: 'com.android.permissioncontroller', text: `Allow ${label} to send you notifications?` })}>Allow ${label} to send you notifications?</div>
    ${Button({ label: 'Allow', id: 'com.android.permissioncontroller:id/permission_allow_button', onClick: grant(true) })}
    ${Button({ label: "Don't allow", id: 'com.android.permissioncontroller:id/permission_deny_button', onClick: grant(false) })}
  </div></div>`;
}

function Phone() {
  const s = S2R.state, u = s.ui;
  const r = route();
  let content;
  if (!u.current) content = Launcher({ drawer: !!u.drawer });
  else {
    const app = S2R.apps[u.current];
    const screen = app && app.screens[r.s];
    try {
      content = screen ? screen(r.p) : html`<div class="empty">Unknown screen ${r.s}</div>`;
      // A screen of another route is a new tree, not the old one's DOM patched: a tap that changes
      // the route re-renders while its click still bubbles, and a reused ancestor would by then
      // carry the new screen's handler (a tap on "Start chat" also firing the picker's Back).
      if (content && typeof content === 'object' && !Array.isArray(content)) content.key = `${r.app}/${r.s}`;
    } catch (err) {
      console.error(err);
      S2R.lastError = String(err && err.stack || err);
      content = html`<div class="empty">${app.label} has stopped</div>`;
    }
  }
  let dialog = null;
  if (u.dialog) {
    if (u.dialog.kind === 'permission') dialog = PermissionDialog(u.dialog);
    else {
      const app = S2R.apps[u.dialog.app || u.current];
      const fn = app && app.dialogs && app.dialogs[u.dialog.kind];
      try { dialog = fn ? fn(u.dialog) : null; } catch (err) { console.error(err); S2R.lastError = String(err); }
    }
  }
  const dark = !!s.world.settings.dark_mode;
  const fontScale = s.world.settings.font_scale || 1;
  return html`<div id="phone" class=${(dark ? 'dark' : 'light') + ' ' + (s.profile.navigation === 'gesture' ? 'nav-gesture' : 'nav-3')}
      style=${`--fs:${fontScale}`} data-foreground=${u.current || 'launcher'}>
    ${StatusBar()}
    <div class="content">${content}${dialog}</div>
    ${u.keyboard && u.focus ? Keyboard() : null}
    ${u.toast ? html`<div class="toast" ...${A('android.widget.Toast', { pkg: pkgOf(), text: u.toast.text })}>${u.toast.text}</div>` : null}
    ${u.recentsOpen ? Recents() : null}
    ${u.shade ? Shade() : null}
    ${NavBar()}
  </div>`;
}

// ------------------------------------------------------------------------------------------
// render + focus + scroll restoration
const root = () => document.getElementById('root');
let scrollRestoring = false;
export function rerender() {
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
