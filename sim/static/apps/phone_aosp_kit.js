// Phone, flavor `aosp`: AOSP Dialer's stylesheet, small widgets (taps that stop at their own view,
// icon buttons, texts), date and duration formats, and its menus and dialogs (the popup menus, Clear
// call history). Its screens are in phone_aosp.js and phone_aosp_dialpad.js; Google Dialer
// (google/phone.js) reuses these pieces where no Google capture is public.
import { html, A, world, ui, go, update, toast, now, nowIso, fmtTime, pressHandlers } from '../os.js';
import { labelText } from './contacts_core.js';
import { MONTHS, contactFor } from './phone_core.js';

// AOSP's Dialer, LineageOS/android_packages_apps_Dialer
// @ f7033c1046818cfbe395b29e8ed1db53776953a2 (lineage-21.0). Paths below are under java/com/android/.
// Classes are what uiautomator reports (View.getAccessibilityClassName): MainToolbar / DialerToolbar /
// the AppCompat action bar and CoordinatorLayout → android.view.ViewGroup, SearchBarView, CardView and
// DialpadKeyButton → android.widget.FrameLayout, BottomNavBar / BottomNavItem → android.widget.LinearLayout,
// the FABs → android.widget.ImageButton, BidiTextView / DialpadTextView → android.widget.TextView,
// DigitsEditText → android.widget.EditText, CallTypeIconsView → android.view.View.
if (typeof document !== 'undefined' && !document.getElementById('xdialer-css')) {
  const s = document.createElement('style');
  s.id = 'xdialer-css';
  s.textContent = `
.xd { position: absolute; inset: 0; display: flex; flex-direction: column; background: var(--bg); }
.xd-toolbar { flex: 0 0 auto; padding: 8px 12px; }
.xd-search { height: 48px; border-radius: 24px; background: var(--surface); display: flex; align-items: center; padding: 0 4px 0 16px; gap: 8px; color: var(--muted); box-shadow: 0 1px 3px rgba(0,0,0,.2); }
.xd-search-hint { flex: 1; font-size: calc(16px * var(--fs)); }
.xd-body { flex: 1; position: relative; min-height: 0; }
.xd-list { position: absolute; inset: 0; overflow-y: auto; scrollbar-width: none; }
.xd-fab { position: absolute; right: 16px; bottom: 16px; width: 56px; height: 56px; border-radius: 16px; background: var(--primary-c); display: flex; align-items: center; justify-content: center; font-size: 24px; box-shadow: 0 2px 6px rgba(0,0,0,.3); z-index: 5; }
.xd-nav { flex: 0 0 auto; display: flex; border-top: 1px solid var(--line); background: var(--bg); }
.xd-navitem { flex: 1; display: flex; flex-direction: column; align-items: center; padding: 8px 0 10px; gap: 2px; color: var(--muted); }
.xd-navitem[data-selected="1"] { color: var(--primary); }
.xd-navicon { font-size: 20px; padding: 2px 20px; border-radius: 14px; }
.xd-navitem[data-selected="1"] .xd-navicon { background: var(--primary-c); }
.xd-navtext { font-size: 11px; letter-spacing: .5px; font-weight: 500; }
.xd-day { padding: 16px 24px 6px; font-size: 11px; letter-spacing: .8px; font-weight: 500; color: var(--muted); text-transform: uppercase; }
.xd-card { margin: 2px 8px; border-radius: 8px; background: var(--bg); }
.xd-card.open { background: var(--surface); box-shadow: 0 1px 4px rgba(0,0,0,.25); margin: 8px; }
.xd-primary { display: flex; align-items: center; gap: 16px; padding: 10px 8px 10px 16px; }
.xd-lines { flex: 1; min-width: 0; }
.xd-name { font-size: calc(16px * var(--fs)); white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.xd-name.missed { color: #d93025; }
.xd-sub { display: flex; align-items: center; gap: 4px; font-size: calc(14px * var(--fs)); color: var(--muted); }
.xd-icons { font-size: 14px; }
.xd-iconbtn { width: 44px; height: 44px; display: flex; align-items: center; justify-content: center; border-radius: 22px; font-size: 20px; flex: 0 0 44px; }
.xd-actions { padding: 4px 0 8px; border-top: 1px solid var(--line); }
.xd-action { display: flex; align-items: center; gap: 24px; padding: 12px 24px; font-size: calc(15px * var(--fs)); }
.xd-empty { display: flex; flex-direction: column; align-items: center; gap: 12px; padding: 96px 24px; color: var(--muted); text-align: center; }
.xd-favs { display: grid; grid-template-columns: repeat(3, 1fr); gap: 16px 8px; padding: 8px 12px 16px; }
.xd-fav { display: flex; flex-direction: column; align-items: center; gap: 4px; }
.xd-fav-name { font-size: 14px; text-align: center; overflow-wrap: anywhere; }
.xd-fav-type { font-size: 12px; color: var(--muted); }
.xd-header { display: flex; align-items: center; justify-content: space-between; padding: 16px 16px 8px 24px; font-size: 14px; font-weight: 500; }
.xd-contact { display: flex; align-items: center; gap: 16px; padding: 8px 16px 8px 72px; min-height: 48px; position: relative; }
.xd-letter { position: absolute; left: 24px; font-size: 18px; color: var(--primary); }
.xd-pad { position: absolute; left: 0; right: 0; bottom: 0; background: var(--bg); box-shadow: 0 -2px 6px rgba(0,0,0,.15); }
.xd-digits { display: flex; align-items: center; padding: 8px 8px 8px 64px; min-height: 72px; }
.xd-keys { display: grid; grid-template-columns: repeat(3, 1fr); padding: 0 24px; }
.xd-key { height: 64px; display: flex; flex-direction: column; align-items: center; justify-content: center; border-radius: 32px; }
.xd-key-number { font-size: 30px; line-height: 34px; }
.xd-key-letters { font-size: 11px; letter-spacing: 1.5px; color: var(--muted); height: 14px; }
.xd-dial { margin: 12px auto 20px; width: 64px; height: 64px; border-radius: 32px; background: #1e8e3e; color: #fff; display: flex; align-items: center; justify-content: center; font-size: 26px; }
.xd-row { display: flex; align-items: center; gap: 16px; padding: 8px 16px; min-height: 56px; }
.xd-tabs { display: flex; background: var(--bg); border-bottom: 1px solid var(--line); flex: 0 0 auto; }
.xd-tab { flex: 1; text-align: center; padding: 14px 0 12px; font-size: 14px; font-weight: 500; color: var(--muted); border-bottom: 2px solid transparent; }
.xd-tab[data-selected="1"] { color: var(--primary); border-bottom-color: var(--primary); }
.xd-detail-head { display: flex; align-items: center; gap: 16px; padding: 16px; }
.xd-entry { display: flex; align-items: center; gap: 16px; padding: 12px 16px; }
.xd-footer-item { display: flex; align-items: center; gap: 24px; padding: 14px 24px; font-size: calc(15px * var(--fs)); }
.xd-incall { position: absolute; inset: 0; display: flex; flex-direction: column; background: #1b1c1f; color: #fff; }
.xd-incall-btn { display: flex; flex-direction: column; align-items: center; gap: 6px; }
.xd-incall-btn .ic { width: 60px; height: 60px; border-radius: 30px; display: flex; align-items: center; justify-content: center; font-size: 22px; background: rgba(255,255,255,.12); }
.xd-incall-btn[data-checked="1"] .ic { background: #d3e3fd; color: #041e49; }
`;
  document.head.appendChild(s);
}

/** A tap handler that stops at its own view (a nested clickable view takes the tap, as on Android). */
export const xTap = (fn) => { const h = pressHandlers(fn); return { onClick: (e) => { e.stopPropagation(); h.onClick(e); } }; };
export const xIcon = (cls, id, desc, glyph, fn, extra = {}) => html`<div class="xd-iconbtn"
    ...${A(cls, { id, desc, click: !!fn, text: '', ...extra })} ...${fn ? xTap(fn) : {}}>${glyph}</div>`;
export const xText = (id, text, cls = '', extra = {}) => html`<span class=${cls} ...${A('android.widget.TextView', { id, text, ...extra })}>${text}</span>`;

/** DateUtils.getRelativeTimeSpanString(time, now, MINUTE_IN_MILLIS, FORMAT_ABBREV_RELATIVE). */
export function xRelative(iso) {
  if (!iso) return '';
  const t0 = new Date(String(iso).slice(0, 19) + 'Z'), t1 = now();
  const ms = t1 - t0;
  if (ms < 0) return xDate(iso);
  if (ms < 3600e3) return `${Math.floor(ms / 60e3)} min. ago`;
  if (ms < 86400e3) return `${Math.floor(ms / 3600e3)} hr. ago`;
  const days = Math.round((new Date(nowIso().slice(0, 10) + 'T00:00:00Z') - new Date(String(iso).slice(0, 10) + 'T00:00:00Z')) / 86400e3);
  if (days === 1) return 'Yesterday';
  if (days < 7) return `${days} days ago`;
  return xDate(iso);
}
function xDate(iso) {
  const d = new Date(String(iso).slice(0, 19) + 'Z');
  return d.getUTCFullYear() === now().getUTCFullYear() ? `${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}`
    : `${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}, ${d.getUTCFullYear()}`;
}
const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const LONG_MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
/** calllogutils/CallLogDates.java formatDate: DateUtils.formatDateTime(SHOW_TIME | SHOW_DATE | SHOW_WEEKDAY | SHOW_YEAR). */
export function xFullDate(iso) {
  if (!iso) return '';
  const d = new Date(String(iso).slice(0, 19) + 'Z');
  return `${WEEKDAYS[d.getUTCDay()]}, ${LONG_MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}, ${d.getUTCFullYear()}, ${fmtTime(d.getUTCHours(), d.getUTCMinutes())}`;
}
/** calllogutils/CallLogDurations.java formatDuration: "1m 1s", "45s". */
export function xDuration(s) {
  const m = Math.floor(s / 60), sec = s % 60;
  return s >= 60 ? `${m}m ${sec}s` : `${sec}s`;
}
const xNumberLabel = (call) => { const hit = contactFor(call.number); return hit ? labelText(hit.phone.label) : ''; };

// --- menus and dialogs ----------------------------------------------------------------------
/** A framework PopupMenu (main/impl/toolbar/MainToolbarMenu.java extends android.widget.PopupMenu:
 *  a ListView of popup_menu_item_layout items titled android:id/title), or the AppCompat overflow of
 *  an action bar (abc_popup_menu_item_layout: items titled `title`). */
export function xPopup(items, titleId) {
  return html`<div class="scrim" style="background:transparent;align-items:flex-start;justify-content:flex-end"
      onClick=${(e) => { if (e.target === e.currentTarget) update(() => { ui().dialog = null; }); }}>
    <div style="margin:8px 8px 0 0;background:var(--surface);border-radius:6px;min-width:200px;box-shadow:0 3px 10px rgba(0,0,0,.3);padding:6px 0"
        ...${A('android.widget.ListView')}>
      ${items.map(([label, fn]) => html`<div style="padding:14px 20px;font-size:calc(15px * var(--fs))" ...${A('android.widget.LinearLayout', { click: true })}
          ...${xTap(() => { ui().dialog = null; fn(); })}>
        <span ...${A('android.widget.TextView', { id: titleId, text: label })}>${label}</span></div>`)}
    </div></div>`;
}
export function xMenu(d) {
  if (d.where === 'history') return xPopup([['Clear call history', () => { ui().dialog = { kind: 'clear' }; }]], 'title');
  // main/impl/toolbar/res/menu/main_menu.xml: menu_call_history, menu_helplines, settings
  // (clear_frequents and the simulator submenu hidden)
  return xPopup([['Call history', () => go('history', { filter: 'all' })], ['Helplines', () => toast('Helplines')],
    ['Settings', () => toast('Settings')]], 'android:id/title');
}
export function xClearDialog() {
  // app/calllog/ClearCallLogDialog.java: clearCallLogConfirmation_title, clearCallLogConfirmation,
  // negative android.R.string.cancel, positive android.R.string.ok (the framework's AlertDialog)
  const close = () => { ui().dialog = null; };
  const btn = (id, label, fn) => html`<div class="btn" ...${A('android.widget.Button', { id, text: label, click: true })} ...${xTap(fn)}>${label}</div>`;
  return html`<div class="scrim" onClick=${(e) => { if (e.target === e.currentTarget) update(close); }}>
    <div class="dialog" ...${A('android.widget.LinearLayout', { id: 'android:id/parentPanel' })}>
      <div class="dialog-title" ...${A('android.widget.TextView', { id: 'android:id/alertTitle', text: 'Clear call history?' })}>Clear call history?</div>
      <div class="dialog-body" style="color:var(--muted)" ...${A('android.widget.TextView', { id: 'android:id/message', text: 'This will delete all calls from your history' })}>This will delete all calls from your history</div>
      <div class="dialog-buttons" ...${A('android.widget.LinearLayout')}>
        ${btn('android:id/button2', 'Cancel', close)}
        ${btn('android:id/button1', 'OK', () => { world().calls = []; close(); })}
      </div>
    </div></div>`;
}
