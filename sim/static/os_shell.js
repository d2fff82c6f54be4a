// s2r phone OS, the shell: the status bar, the navigation bar, the notification shade with its
// quick settings, recents, the soft keyboard, the launcher (unless a flavor draws its own), the
// runtime-permission dialog, and Phone(), which puts them around the foreground app's screen and
// dialog. Everything is drawn from S2R.state; os.js renders Phone() and handles the gestures.
import { html } from './vendor/preact-htm.mjs';
import { S2R, world, ui, flavor, update, now, fmtTime, toast, route, back, home, openApp, setSetting } from './os_core.js';
import { A, pkgOf, pressHandlers, Text, Slider, Button, submitField } from './os_kit.js';

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

/** The whole phone: status bar, the foreground app's screen (or the launcher) and dialog, keyboard, toast, recents, shade, navigation bar. */
export function Phone() {
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
