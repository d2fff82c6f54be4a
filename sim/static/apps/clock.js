// Clock (com.android.deskclock): alarms, world clock, timers, stopwatch.
//
// Flavor `sim` is our own structure: top tabs, a full-screen "Add alarm"/"Edit alarm" form
// with Save/Cancel and a delete confirmation, "Weekdays"/"Weekends" summaries, Monday-first
// day chips, cities removed by long press, Start/Stop/Lap/Reset text buttons on the stopwatch.
// Flavor `aosp` is AOSP DeskClock as its source defines it (the second half of this module, each
// screen citing its layout): bottom navigation with four tabs, alarms edited inline in an
// expandable card (the label dialog, day buttons, "Delete" without confirmation), the framework
// TimePickerDialog, the "Cities" picker with check boxes, the stopwatch's FABs. Still the
// simulator's there: the timer cards (timerCard), the stopwatch's one-piece time text, toasts
// where DeskClock shows snackbars, and the Settings screen.
// Flavor `google` (Google Clock on a Pixel) lives in apps/google/clock.js and registers its screens
// over this app's; it shares the world helpers and AOSP widgets this module exports.
//
// World data: world().alarms / .timers / .stopwatch / .world_clocks, shaped exactly like the
// Python WorldState. Sim time (world().time) is the phone's local time; world-clock times
// come from a fixed UTC-offset table (no daylight saving), treating local time as UTC.
import { html, registerApp, Screen, Switch, SwitchRow, Button, Field, Tabs,
  Dialog, TimePickerBody, readTime, Text, Section, Empty, A, world, ui, go, replace, back, t, flavor, stock, update,
  toast, now, fmtTime, pad2, nextId, rerender, scrollKey } from '../os.js';

const PKG = 'com.android.deskclock';
export const DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];
export const DAY_SHORT = { mon: 'Mon', tue: 'Tue', wed: 'Wed', thu: 'Thu', fri: 'Fri', sat: 'Sat', sun: 'Sun' };
export const DAY_LONG = { mon: 'Monday', tue: 'Tuesday', wed: 'Wednesday', thu: 'Thursday', fri: 'Friday', sat: 'Saturday', sun: 'Sunday' };
export const DAY_LETTER = { mon: 'M', tue: 'T', wed: 'W', thu: 'T', fri: 'F', sat: 'S', sun: 'S' };
// Monday first in our flavor; a US-locale phone starts the week on Sunday (AOSP DeskClock's
// days_of_week.xml, and Google Clock's day_button_0 = Sunday in the real dumps).
export const dayOrder = () => (stock() ? ['sun', ...DAYS.slice(0, 6)] : DAYS);

// City → [country, UTC offset in minutes]. Standard time, no DST: the sim clock is treated as UTC.
export const CITIES = {
  'Abidjan': ["Côte d'Ivoire", 0], 'Accra': ['Ghana', 0], 'Addis Ababa': ['Ethiopia', 180], 'Adelaide': ['Australia', 570],
  'Amsterdam': ['Netherlands', 60], 'Anchorage': ['United States', -540], 'Athens': ['Greece', 120],
  'Auckland': ['New Zealand', 720], 'Bangkok': ['Thailand', 420], 'Barcelona': ['Spain', 60], 'Beijing': ['China', 480],
  'Berlin': ['Germany', 60], 'Bogotá': ['Colombia', -300], 'Boston': ['United States', -300], 'Brussels': ['Belgium', 60],
  'Buenos Aires': ['Argentina', -180], 'Cairo': ['Egypt', 120], 'Cape Town': ['South Africa', 120],
  'Caracas': ['Venezuela', -240], 'Casablanca': ['Morocco', 60], 'Chicago': ['United States', -360],
  'Copenhagen': ['Denmark', 60], 'Denver': ['United States', -420], 'Dhaka': ['Bangladesh', 360], 'Dubai': ['United Arab Emirates', 240],
  'Dublin': ['Ireland', 0], 'Havana': ['Cuba', -300], 'Helsinki': ['Finland', 120], 'Ho Chi Minh City': ['Vietnam', 420],
  'Hong Kong': ['Hong Kong', 480], 'Honolulu': ['United States', -600], 'Istanbul': ['Türkiye', 180],
  'Jakarta': ['Indonesia', 420], 'Jerusalem': ['Israel', 120], 'Johannesburg': ['South Africa', 120],
  'Karachi': ['Pakistan', 300], 'Kathmandu': ['Nepal', 345], 'Kolkata': ['India', 330], 'Kuala Lumpur': ['Malaysia', 480],
  'Lagos': ['Nigeria', 60], 'Lima': ['Peru', -300], 'Lisbon': ['Portugal', 0], 'London': ['United Kingdom', 0],
  'Los Angeles': ['United States', -480], 'Madrid': ['Spain', 60], 'Manila': ['Philippines', 480],
  'Melbourne': ['Australia', 600], 'Mexico City': ['Mexico', -360], 'Miami': ['United States', -300],
  'Moscow': ['Russia', 180], 'Mumbai': ['India', 330], 'Nairobi': ['Kenya', 180], 'New Delhi': ['India', 330],
  'New York': ['United States', -300], 'Oslo': ['Norway', 60], 'Paris': ['France', 60], 'Phoenix': ['United States', -420],
  'Prague': ['Czechia', 60], 'Reykjavík': ['Iceland', 0], 'Rio de Janeiro': ['Brazil', -180], 'Riyadh': ['Saudi Arabia', 180],
  'Rome': ['Italy', 60], 'San Francisco': ['United States', -480], 'Santiago': ['Chile', -240],
  'São Paulo': ['Brazil', -180], 'Seattle': ['United States', -480], 'Seoul': ['South Korea', 540],
  'Shanghai': ['China', 480], 'Singapore': ['Singapore', 480], "St. John's": ['Canada', -210],
  'Stockholm': ['Sweden', 60], 'Sydney': ['Australia', 600], 'Taipei': ['Taiwan', 480], 'Tehran': ['Iran', 210],
  'Tokyo': ['Japan', 540], 'Toronto': ['Canada', -300], 'Vancouver': ['Canada', -480], 'Vienna': ['Austria', 60],
  'Warsaw': ['Poland', 60], 'Zürich': ['Switzerland', 60],
};
export const CITY_NAMES = Object.keys(CITIES).sort((a, b) => a.localeCompare(b, 'en'));

// ------------------------------------------------------------------------------------------
// styles (layout only; colours come from the phone theme)
if (!document.getElementById('clock-css')) {
  const el = document.createElement('style');
  el.id = 'clock-css';
  el.textContent = `
  .ck-card { background: var(--surface); border-radius: 24px; margin: 8px 12px; padding: 12px 16px; }
  .ck-head { display: flex; align-items: center; gap: 12px; }
  .ck-head-text { flex: 1; min-width: 0; }
  .ck-time { font-size: calc(40px * var(--fs)); font-weight: 400; line-height: 1.15; font-variant-numeric: tabular-nums; display: inline-block; }
  .ck-card.off .ck-time { color: var(--muted); }
  .ck-lab { font-size: calc(14px * var(--fs)); color: var(--muted); display: block; }
  .ck-days { font-size: calc(13px * var(--fs)); color: var(--muted); display: block; margin-top: 2px; }
  .ck-arrow { width: 36px; height: 36px; display: flex; align-items: center; justify-content: center; font-size: 18px; }
  .ck-chips { display: flex; justify-content: space-between; padding: 10px 4px 6px; }
  .ck-day { width: 38px; height: 38px; border-radius: 19px; border: 1px solid var(--muted); display: flex; align-items: center; justify-content: center; font-size: 14px; }
  .ck-day.on { background: var(--primary); border-color: var(--primary); color: var(--bg); }
  .ck-line { display: flex; align-items: center; gap: 12px; padding: 10px 0; min-height: 44px; }
  .ck-line .tv { flex: 1; }
  .ck-big { text-align: center; font-size: calc(56px * var(--fs)); font-weight: 300; padding: 20px 0 4px; font-variant-numeric: tabular-nums; }
  .ck-sub { text-align: center; color: var(--muted); font-size: calc(14px * var(--fs)); padding: 2px; }
  .ck-city { display: flex; align-items: center; padding: 12px 20px; gap: 12px; min-height: 64px; }
  .ck-city-text { flex: 1; min-width: 0; }
  .ck-city-name { font-size: calc(17px * var(--fs)); display: block; }
  .ck-city-diff { font-size: calc(13px * var(--fs)); color: var(--muted); display: block; }
  .ck-city-time { font-size: calc(28px * var(--fs)); font-variant-numeric: tabular-nums; }
  .ck-cb { display: flex; align-items: center; gap: 14px; padding: 10px 20px; min-height: 52px; }
  .ck-cb .ck-city-text { flex: 1; }
  .ck-keypad { display: grid; grid-template-columns: repeat(3, 1fr); gap: 10px; padding: 8px 28px; }
  .ck-keypad .btn { height: 60px; font-size: calc(24px * var(--fs)); border-radius: 30px; background: var(--surface); color: var(--on); }
  .ck-setup { text-align: center; font-size: calc(44px * var(--fs)); padding: 16px 0 8px; font-variant-numeric: tabular-nums; }
  .ck-setup.set { color: var(--primary); }
  .ck-presets { display: flex; justify-content: center; gap: 4px; }
  .ck-timer { background: var(--surface); border-radius: 24px; margin: 8px 12px; padding: 12px 16px; }
  .ck-timer-time { font-size: calc(46px * var(--fs)); font-variant-numeric: tabular-nums; display: block; text-align: center; }
  .ck-timer-total { text-align: center; color: var(--muted); display: block; font-size: calc(13px * var(--fs)); }
  .ck-btns { display: flex; justify-content: center; gap: 8px; flex-wrap: wrap; padding-top: 8px; }
  .ck-sw { text-align: center; font-size: calc(56px * var(--fs)); font-weight: 300; padding: 40px 0 16px; font-variant-numeric: tabular-nums; }
  .ck-lap { display: flex; padding: 10px 28px; font-variant-numeric: tabular-nums; }
  .ck-lap > span { flex: 1; }
  .ck-lap > span:last-child { text-align: right; }
  .ck-form-time { text-align: center; font-size: calc(56px * var(--fs)); padding: 16px 0; font-variant-numeric: tabular-nums; }
  .ck-bottom { display: flex; justify-content: space-around; padding: 8px 16px 12px; background: var(--bg); border-top: 1px solid var(--line); }
  .ck-menu { display: flex; flex-direction: column; }
  .ck-err { color: #b3261e; font-size: 13px; padding: 4px 8px; display: block; }
  .ck-header { padding: 16px 20px 4px; font-size: calc(15px * var(--fs)); color: var(--muted); }
  `;
  document.head.appendChild(el);
}

// ------------------------------------------------------------------------------------------
// input helpers for our own widgets (the kit's Row/Button cover the rest). A long press must
// not also fire the tap, exactly as the kit's rows behave; the timer is input mechanics only.
const LONG_MS = 500;
export function press(onClick, onLong) {
  const click = (e) => {
    e.stopPropagation();
    if (window.S2R.gestureLock) return;
    if (onClick) update(() => onClick(e));
  };
  if (!onLong) return { onClick: click };
  let timer = null, longFired = false;
  return {
    onTouchStart: () => { longFired = false; clearTimeout(timer); timer = setTimeout(() => { longFired = true; update(() => onLong()); }, LONG_MS); },
    onTouchMove: () => { clearTimeout(timer); },
    onTouchEnd: () => { clearTimeout(timer); },
    onContextMenu: (e) => { e.preventDefault(); },
    onClick: (e) => { if (longFired) { longFired = false; e.stopPropagation(); return; } click(e); },
  };
}
export const closeKb = () => { const u = ui(); u.focus = null; u.keyboard = false; };
export const closeDialog = () => { ui().dialog = null; closeKb(); };

// ------------------------------------------------------------------------------------------
// world data access (lists may be absent in a patched world: create them on first write)
export const alarms = () => world().alarms || [];
export const alarmList = () => { if (!world().alarms) world().alarms = []; return world().alarms; };
export const alarmById = (id) => alarms().find((a) => a.id === id);
export const timers = () => world().timers || [];
export const timerList = () => { if (!world().timers) world().timers = []; return world().timers; };
export const stopwatch = () => {
  if (!world().stopwatch) world().stopwatch = { elapsed_ms: 0, running: false, laps: [] };
  return world().stopwatch;
};
export const cities = () => world().world_clocks || [];
export const cityList = () => { if (!world().world_clocks) world().world_clocks = []; return world().world_clocks; };
export const h24 = () => world().settings.time_24h !== false;
export const fmt = (h, m) => fmtTime(h, m);
export const sortDays = (days) => DAYS.filter((d) => days.includes(d));

// ------------------------------------------------------------------------------------------
// alarm scheduling (local time = sim clock)
function nowParts() {
  const d = now();
  return { dayIdx: (d.getUTCDay() + 6) % 7, sec: d.getUTCHours() * 3600 + d.getUTCMinutes() * 60 + d.getUTCSeconds() };
}
/** Seconds until the alarm next rings and the day it rings on (index into DAYS). */
export function nextRing(a) {
  const { dayIdx, sec } = nowParts();
  const at = a.hour * 3600 + a.minute * 60;
  for (let off = 0; off <= 7; off++) {
    const idx = (dayIdx + off) % 7;
    if (off === 0 && at <= sec) continue;
    if (!a.days.length || a.days.includes(DAYS[idx])) return { inSec: off * 86400 + at - sec, dayIdx: idx, off };
  }
  return { inSec: 7 * 86400, dayIdx, off: 7 };
}
export function nextAlarm() {
  let best = null;
  for (const a of alarms()) {
    if (!a.enabled) continue;
    const r = nextRing(a);
    if (!best || r.inSec < best.r.inSec) best = { a, r };
  }
  return best;
}
function untilText(inSec) {
  const mins = Math.ceil(inSec / 60);
  const d = Math.floor(mins / 1440), h = Math.floor((mins % 1440) / 60), m = mins % 60;
  const parts = [];
  if (d) parts.push(`${d} d`);
  if (h) parts.push(`${h} h`);
  if (m || !parts.length) parts.push(`${m} min`);
  return parts.join(' ');
}
/** aosp: DC alarms/AlarmUtils.java formatToast with res/values/strings.xml alarm_set (minutes floored). */
export function aospSetText(inSec) {
  const mins = Math.floor(inSec / 60);
  const d = Math.floor(mins / 1440), h = Math.floor((mins % 1440) / 60), m = mins % 60;
  const q = (n, one, many) => `${n} ${n === 1 ? one : many}`;
  const parts = [d && q(d, 'day', 'days'), h && q(h, 'hour', 'hours'), m && q(m, 'minute', 'minutes')].filter(Boolean);
  if (!parts.length) return 'Alarm set for less than 1 minute from now.';
  const span = parts.length === 3 ? `${parts[0]}, ${parts[1]}, and ${parts[2]}` : parts.join(' and ');
  return `Alarm set for ${span} from now.`;
}
export const alarmSetToast = (a) => toast(stock() ? aospSetText(nextRing(a).inSec)
  : `Alarm set for ${untilText(nextRing(a).inSec)} from now`);

function daysSummary(a) {  // sim
  const days = sortDays(a.days);
  if (days.length === 7) return 'Every day';
  if (!days.length) return a.enabled ? (nextRing(a).off === 0 ? 'Today' : 'Tomorrow') : 'Once';
  if (days.join() === 'mon,tue,wed,thu,fri') return 'Weekdays';
  if (days.join() === 'sat,sun') return 'Weekends';
  return dayOrder().filter((d) => days.includes(d)).map((d) => DAY_SHORT[d]).join(', ');
}
export const sortedAlarms = () => alarms().map((a, i) => [a, i])
  .sort((x, y) => (x[0].hour * 60 + x[0].minute) - (y[0].hour * 60 + y[0].minute) || x[1] - y[1]).map(([a]) => a);
export const switchDesc = (a) => `${fmt(a.hour, a.minute)}${a.label ? ' ' + a.label : ''} alarm`;

export function setEnabled(a, on) {
  a.enabled = on;
  if (on) alarmSetToast(a);
}

// ------------------------------------------------------------------------------------------
// sim flavor chrome: top tabs (the aosp flavor's activity is deskClock, below)
const TABS = () => [
  { id: 'alarm', label: 'Alarm', icon: '⏰' },
  { id: 'clock', label: 'Clock', icon: '🕒' },
  { id: 'timer', label: 'Timer', icon: '⏳' },
  { id: 'stopwatch', label: 'Stopwatch', icon: '⏱' },
];
function tabScreen(tab, { body, fab, title }) {
  const onSelect = (id) => { if (id !== tab) { replace(id, {}); } };
  const menu = { icon: '⋮', desc: 'More options', id: 'overflow', onClick: () => { ui().dialog = { kind: 'menu' }; } };
  return Screen({ title: title || 'Clock', up: false, actions: [menu], body, fab,
    tabs: Tabs({ tabs: TABS(), active: tab, onSelect }) });
}

// ------------------------------------------------------------------------------------------
// Alarm tab
function dayChips(days, onToggle) {
  return html`<div class="ck-chips">${dayOrder().map((d) => {
    const on = days.includes(d);
    return html`<div class=${'ck-day' + (on ? ' on' : '')}
      ...${A('android.widget.CompoundButton', { id: `day_button_${dayOrder().indexOf(d)}`, text: DAY_LETTER[d], desc: DAY_LONG[d], click: true, checkable: true, checked: on })}
      ...${press(() => onToggle(d))}>${DAY_LETTER[d]}</div>`;
  })}</div>`;
}

function openTimePicker(mode, hour, minute, extra = {}) {
  if (flavor() === 'aosp') {  // the framework TimePickerDialog opens in clock mode (timePickerAosp)
    ui().dialog = { kind: 'alarm_time', mode, hour, minute, input: false, showing: 'hours', ...extra };
    return;
  }
  const f = ui().fields;
  if (h24()) { f.alarm_h = pad2(hour); } else { f.alarm_h = String(hour % 12 === 0 ? 12 : hour % 12); f.alarm_ampm = hour < 12 ? 'AM' : 'PM'; }
  f.alarm_m = pad2(minute);
  ui().dialog = { kind: 'alarm_time', mode, ...extra };
}

function alarmCardSim(a) {
  const time = fmt(a.hour, a.minute);
  const edit = () => {
    ui().fields.alarm_label = a.label;
    go('edit', { id: a.id, hour: a.hour, minute: a.minute, days: [...a.days], vibrate: a.vibrate !== false });
  };
  return html`<div class=${'ck-card' + (a.enabled ? '' : ' off')}
      ...${A('android.widget.LinearLayout', { id: 'alarm_item', click: true, long: true })}
      ...${press(edit, () => { ui().dialog = { kind: 'alarm_delete', id: a.id }; })}>
    <div class="ck-head">
      <div class="ck-head-text">
        <span class="ck-time" ...${A('android.widget.TextView', { id: 'digital_clock', text: time })}>${time}</span>
        ${a.label ? html`<span class="ck-lab" ...${A('android.widget.TextView', { id: 'label', text: a.label })}>${a.label}</span>` : null}
        <span class="ck-days" ...${A('android.widget.TextView', { id: 'days_of_week', text: daysSummary(a) })}>${daysSummary(a)}</span>
      </div>
      ${Switch({ checked: a.enabled, id: 'onoff', desc: switchDesc(a), onChange: (v) => setEnabled(a, v) })}
    </div>
  </div>`;
}

function alarmTab(p) {
  if (flavor() === 'aosp') return alarmTabAosp(p);
  const list = sortedAlarms();
  const next = nextAlarm();
  const fab = { desc: 'Add alarm', id: 'fab', icon: '+', onClick: () => {
    const d = now();
    ui().fields.alarm_label = '';
    go('edit', { id: null, hour: d.getUTCHours(), minute: d.getUTCMinutes(), days: [], vibrate: true });
    openTimePicker('draft', d.getUTCHours(), d.getUTCMinutes());
  } };
  const header = html`<div class="ck-header" ...${A('android.widget.TextView', { id: 'next_alarm_header',
    text: next ? `Next alarm in ${untilText(next.r.inSec)}` : 'All alarms are off' })}>${next ? `Next alarm in ${untilText(next.r.inSec)}` : 'All alarms are off'}</div>`;
  const body = html`${header}${list.length ? list.map(alarmCardSim) : Empty('No alarms')}`;
  return tabScreen('alarm', { body, fab });
}

// sim flavor: the Add/Edit alarm form (p: {id|null, hour, minute, days, vibrate}; label in fields)
function edit(p) {
  if (!Number.isInteger(p.hour) || !Number.isInteger(p.minute)) {  // opened by a deep link without a draft
    const d = now();
    Object.assign(p, { id: p.id || null, hour: d.getUTCHours(), minute: d.getUTCMinutes(), days: [], vibrate: true });
  }
  if (!Array.isArray(p.days)) p.days = [];
  const isNew = !p.id;
  const time = fmt(p.hour, p.minute);
  const save = () => {
    const label = String(ui().fields.alarm_label ?? '').trim();
    let a = isNew ? null : alarmById(p.id);
    if (!isNew && !a) { toast('Alarm no longer exists'); closeKb(); back(); return; }
    if (isNew) {
      a = { id: nextId('a'), hour: p.hour, minute: p.minute, enabled: true, label, days: sortDays(p.days), vibrate: !!p.vibrate };
      alarmList().push(a);
    } else {
      const moved = a.hour !== p.hour || a.minute !== p.minute;
      Object.assign(a, { hour: p.hour, minute: p.minute, label, days: sortDays(p.days), vibrate: !!p.vibrate });
      if (moved) a.enabled = true;
    }
    closeKb();
    back();
    if (a.enabled) alarmSetToast(a); else toast('Alarm saved');
  };
  const body = html`
    <div class="ck-form-time" ...${A('android.widget.TextView', { id: 'edit_time', text: time, desc: `Alarm time ${time}`, click: true })}
      ...${press(() => openTimePicker('draft', p.hour, p.minute))}>${time}</div>
    ${Field({ field: 'alarm_label', label: 'Alarm name', hint: 'Alarm name', id: 'alarm_name' })}
    ${Section('Repeat')}
    ${dayChips(p.days, (d) => { p.days = p.days.includes(d) ? p.days.filter((x) => x !== d) : sortDays([...p.days, d]); })}
    ${SwitchRow({ title: 'Vibrate', checked: !!p.vibrate, id: 'vibrate', onChange: (v) => { p.vibrate = v; } })}
    ${SwitchRow({ title: 'Snooze', subtitle: '5 minutes, 3 times', checked: true, id: 'snooze', onChange: () => toast('Snooze is always on') })}
    ${isNew ? null : html`<div class="actions-row">${Button({ label: 'Delete', id: 'delete', onClick: () => { ui().dialog = { kind: 'alarm_delete', id: p.id, fromEdit: true }; } })}</div>`}
  `;
  const bottom = html`<div class="ck-bottom">
    ${Button({ label: 'Cancel', id: 'cancel', onClick: () => { closeKb(); back(); } })}
    ${Button({ label: 'Save', id: 'save', kind: 'filled', onClick: save })}
  </div>`;
  return Screen({ title: isNew ? 'Add alarm' : 'Edit alarm', body, bottom });
}

// ------------------------------------------------------------------------------------------
// Clock tab (world clock)
export function stripMarks(s) { return String(s).normalize('NFD').replace(/[\u0300-\u036f]/g, '').toLowerCase(); }
export function cityTime(city) {
  const c = CITIES[city];
  if (!c) return null;
  const d = new Date(now().getTime() + c[1] * 60000);
  const dayDiff = Math.round((Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate())
    - Date.UTC(now().getUTCFullYear(), now().getUTCMonth(), now().getUTCDate())) / 86400000);
  return { time: fmt(d.getUTCHours(), d.getUTCMinutes()), offset: c[1], dayDiff };
}
function diffText(ct) {
  const o = ct.offset, ah = Math.floor(Math.abs(o) / 60), am = Math.abs(o) % 60;
  const day = ct.dayDiff > 0 ? 'Tomorrow' : ct.dayDiff < 0 ? 'Yesterday' : 'Today';
  return `${day}, ${o === 0 ? 'same time' : `${o > 0 ? '+' : '−'}${ah}${am ? ':' + pad2(am) : ''} h`}`;
}
function cityRow(city) {  // sim
  const ct = cityTime(city);
  const sub = ct ? diffText(ct) : 'Unknown time zone';
  const time = ct ? ct.time : '--:--';
  return html`<div class="ck-city" ...${A('android.widget.LinearLayout', { id: 'world_clock_item', long: true, click: false })}
      ...${press(null, () => { ui().dialog = { kind: 'city_remove', city }; })}>
    <div class="ck-city-text">
      <span class="ck-city-name" ...${A('android.widget.TextView', { id: 'city_name', text: city })}>${city}</span>
      <span class="ck-city-diff" ...${A('android.widget.TextView', { id: 'hours_ahead', text: sub })}>${sub}</span>
    </div>
    <span class="ck-city-time" ...${A('android.widget.TextView', { id: 'digital_clock', text: time, desc: `${city} ${time}` })}>${time}</span>
  </div>`;
}
function clockTab() {
  if (flavor() === 'aosp') return clockTabAosp();
  const d = now();
  const time = fmt(d.getUTCHours(), d.getUTCMinutes());
  const date = d.toLocaleDateString('en-US', { weekday: 'short', month: 'short', day: 'numeric', timeZone: 'UTC' });
  const next = nextAlarm();
  const nextText = next ? `${DAY_SHORT[DAYS[next.r.dayIdx]]} ${fmt(next.a.hour, next.a.minute)}` : null;
  const body = html`
    <div class="ck-big" ...${A('android.widget.TextClock', { id: 'main_clock', text: time })}>${time}</div>
    <div class="ck-sub" ...${A('android.widget.TextView', { id: 'date', text: date })}>${date}</div>
    ${nextText ? html`<div class="ck-sub" ...${A('android.widget.TextView', { id: 'nextAlarm', text: `⏰ ${nextText}`,
      desc: `Next alarm: ${DAY_LONG[DAYS[next.r.dayIdx]]} ${fmt(next.a.hour, next.a.minute)}` })}>⏰ ${nextText}</div>` : null}
    ${cities().length ? html`<div style="height:12px"></div>${cities().map(cityRow)}`
      : html`<div class="ck-sub" style="padding:32px" ...${A('android.widget.TextView', { id: 'empty', text: 'No cities added' })}>No cities added</div>`}
  `;
  const fab = { desc: 'Add city', id: 'fab', icon: '🌐', onClick: () => { ui().fields.city_search = ''; go('cities', {}); } };
  return tabScreen('clock', { body, fab });
}

function citiesScreen(p) {
  if (flavor() === 'aosp') return citiesScreenAosp(p);
  const q = stripMarks(String(ui().fields.city_search ?? '').trim());
  const hits = CITY_NAMES.filter((c) => !q || stripMarks(c).includes(q) || stripMarks(CITIES[c][0]).includes(q));
  const chosen = cities();
  const searchField = html`<div style="flex:1">${Field({ field: 'city_search', hint: 'Search city or country', id: 'search_src_text' })}</div>`;
  const simRow = (c) => {
    const added = chosen.includes(c);
    const ct = cityTime(c);
    return html`<div class="ck-city" ...${A('android.widget.LinearLayout', { id: 'city_item', click: true })}
        ...${press(() => {
          if (added) { toast(`${c} is already added`); return; }
          cityList().push(c); closeKb(); back(); toast(`${c} added`);
        })}>
      <div class="ck-city-text">
        <span class="ck-city-name" ...${A('android.widget.TextView', { id: 'city_name', text: c })}>${c}</span>
        <span class="ck-city-diff" ...${A('android.widget.TextView', { id: 'city_country', text: added ? `${CITIES[c][0]} · Added` : CITIES[c][0] })}>${added ? `${CITIES[c][0]} · Added` : CITIES[c][0]}</span>
      </div>
      <span class="ck-city-diff" ...${A('android.widget.TextView', { id: 'city_time', text: ct.time })}>${ct.time}</span>
    </div>`;
  };
  return Screen({ title: 'Add city', search: searchField, body: hits.length ? hits.map(simRow) : Empty('No results') });
}

// ------------------------------------------------------------------------------------------
// Timer tab
export function fmtDur(sec) {
  const h = Math.floor(sec / 3600), m = Math.floor((sec % 3600) / 60), s = sec % 60;
  if (!stock()) return `${pad2(h)}:${pad2(m)}:${pad2(s)}`;
  return h ? `${h}:${pad2(m)}:${pad2(s)}` : `${m}:${pad2(s)}`;
}
export function fmtTotal(sec) {
  const h = Math.floor(sec / 3600), m = Math.floor((sec % 3600) / 60), s = sec % 60;
  return [h ? `${h}h` : '', m ? `${m}m` : '', s || (!h && !m) ? `${s}s` : ''].filter(Boolean).join(' ');
}
export function setupDigits() { return String(ui().fields.timer_digits ?? '').replace(/\D/g, '').slice(-6); }
function digitsToHms(dg) {
  const s6 = dg.padStart(6, '0');
  return [parseInt(s6.slice(0, 2), 10), parseInt(s6.slice(2, 4), 10), parseInt(s6.slice(4, 6), 10)];
}
// the timer-setup keypad's state, shared by every flavor's setup screen: the typed digits (at
// most six, no leading zeros), read as h/m/s, the handler a digit key runs, the delete key's, and
// Start's (a running timer of the typed length, nothing when it is zero; back to the timer list)
export function setupEntry() {
  const dg = setupDigits();
  const [h, m, s] = digitsToHms(dg);
  const disp = `${pad2(h)}h ${pad2(m)}m ${pad2(s)}s`;
  const desc = `${h} hours, ${m} minutes, ${s} seconds`;
  const typed = (k) => () => {
    const cur = setupDigits();
    if (!cur && /^0+$/.test(k)) return;
    ui().fields.timer_digits = (cur + k).slice(0, 6).length === (cur + k).length ? cur + k : cur;
  };
  const del = () => { ui().fields.timer_digits = setupDigits().slice(0, -1); };
  const start = () => {
    const dur = h * 3600 + m * 60 + s;
    if (dur <= 0) return;
    timerList().push({ duration_s: dur, remaining_s: dur, running: true, label: '' });
    ui().fields.timer_digits = '';
    replace('timer', {});
  };
  return { dg, h, m, s, disp, desc, typed, del, start };
}
function timerSetup(p) {
  const { dg, h, m, s, disp, desc, typed, del, start } = setupEntry();
  const hasTimers = timers().length > 0;
  const body = html`
    <div class=${'ck-setup' + (dg ? ' set' : '')} ...${A('android.widget.TextView', { id: 'timer_setup_time', text: disp, desc })}>${disp}</div>
    <div class="ck-presets">${[[1, '01:00'], [5, '05:00'], [10, '10:00'], [15, '15:00']].map(([mins, lab]) =>
      Button({ label: lab, kind: 'tonal', id: 'preset', desc: `Preset ${mins} minutes`, onClick: () => { ui().fields.timer_digits = `${mins}00`; } }))}</div>
    <div class="ck-keypad">
      ${['1', '2', '3', '4', '5', '6', '7', '8', '9'].map((k) => Button({ label: k, id: `timer_setup_digit_${k}`, onClick: typed(k) }))}
      ${Button({ label: '00', id: 'timer_setup_digit_00', onClick: typed('00') })}
      ${Button({ label: '0', id: 'timer_setup_digit_0', onClick: typed('0') })}
      ${Button({ label: '⌫', id: 'timer_setup_delete', desc: 'Delete', onClick: del, disabled: !dg })}
    </div>
    ${hasTimers ? html`<div class="ck-btns">${Button({ label: 'Cancel', id: 'timer_cancel', onClick: () => { ui().fields.timer_digits = ''; replace('timer', {}); } })}</div>` : null}
  `;
  return tabScreen('timer', { body, fab: dg && h * 3600 + m * 60 + s > 0 ? { desc: 'Start', id: 'fab', icon: '▶', onClick: start } : null });
}
function timerCard(tm, i) {
  const done = tm.remaining_s === 0;
  const fresh = !tm.running && tm.remaining_s === tm.duration_s;
  const labelText = tm.label || 'Label';  // aosp: DC timer_item.xml's hint, shown as text when empty
  const stateBtn = done ? null : tm.running
    ? Button({ label: 'Pause', id: 'timer_pause', kind: 'filled', onClick: () => { tm.running = false; } })
    : Button({ label: fresh ? 'Start' : 'Resume', id: 'timer_resume', kind: 'filled', onClick: () => { tm.running = true; } });
  return html`<div class="ck-timer" ...${A('android.widget.LinearLayout', { id: 'timer_item' })}>
    <span class="ck-lab" style="text-align:center" ...${A('android.widget.TextView', { id: 'timer_label', text: labelText, hint: flavor() === 'aosp' ? 'Label' : undefined, click: true })}
      ...${press(() => { ui().fields.timer_label = tm.label; ui().dialog = { kind: 'timer_label', index: i }; ui().focus = 'timer_label'; ui().keyboard = true; })}>${labelText}</span>
    <span class="ck-timer-time" ...${A('android.widget.TextView', { id: 'timer_time_text', text: fmtDur(tm.remaining_s) })}>${fmtDur(tm.remaining_s)}</span>
    <span class="ck-timer-total" ...${A('android.widget.TextView', { id: 'timer_total', text: done ? "Time's up" : `${fmtTotal(tm.duration_s)} timer${tm.running ? '' : ' · Paused'}` })}>${done ? "Time's up" : `${fmtTotal(tm.duration_s)} timer${tm.running ? '' : ' · Paused'}`}</span>
    <div class="ck-btns">
      ${stateBtn}
      ${tm.running ? Button({ label: '+1:00', id: 'timer_add_time', desc: 'Add 1 minute', onClick: () => { tm.remaining_s += 60; tm.duration_s += 60; } }) : null}
      ${!tm.running && !fresh ? Button({ label: 'Reset', id: 'reset', onClick: () => { tm.remaining_s = tm.duration_s; tm.running = false; } }) : null}
      ${Button({ label: 'Delete', id: 'delete', desc: 'Delete timer', onClick: () => { timerList().splice(i, 1); toast('Timer deleted'); } })}
    </div>
  </div>`;
}
function timerTab(p) {
  if (flavor() === 'aosp') return timerTabAosp(p);
  if (!timers().length || p.setup) return timerSetup(p);
  const body = html`${timers().map(timerCard)}`;
  return tabScreen('timer', { body, fab: { desc: 'Add timer', id: 'fab', icon: '+', onClick: () => { ui().fields.timer_digits = ''; replace('timer', { setup: true }); } } });
}

// ------------------------------------------------------------------------------------------
// Stopwatch tab (elapsed time advances only with the sim clock: S2R.tick)
export function fmtSw(ms) {
  const cs = Math.floor(ms / 10) % 100, tot = Math.floor(ms / 1000);
  const h = Math.floor(tot / 3600), m = Math.floor((tot % 3600) / 60), s = tot % 60;
  return `${h ? h + ':' : ''}${pad2(m)}:${pad2(s)}.${pad2(cs)}`;
}
function stopwatchTab() {
  if (flavor() === 'aosp') return stopwatchTabAosp();
  const sw = stopwatch();
  const start = () => { sw.running = true; };
  const pause = () => { sw.running = false; };
  const lap = () => { if (sw.laps.length < 99) sw.laps.push(sw.elapsed_ms); else toast('Maximum number of laps reached'); };
  const reset = () => { sw.running = false; sw.elapsed_ms = 0; sw.laps = []; };
  const laps = sw.laps.map((tot, i) => ({ n: i + 1, tot, lap: tot - (i ? sw.laps[i - 1] : 0) })).reverse();
  const btns = sw.running ? [Button({ label: 'Lap', id: 'lap', kind: 'tonal', onClick: lap }), Button({ label: 'Stop', id: 'stop', kind: 'filled', onClick: pause })]
    : sw.elapsed_ms > 0 ? [Button({ label: 'Reset', id: 'reset', kind: 'tonal', onClick: reset }), Button({ label: 'Resume', id: 'resume', kind: 'filled', onClick: start })]
      : [Button({ label: 'Start', id: 'start', kind: 'filled', onClick: start })];
  const body = html`
    <div class="ck-sw" ...${A('android.widget.TextView', { id: 'stopwatch_time_text', text: fmtSw(sw.elapsed_ms) })}>${fmtSw(sw.elapsed_ms)}</div>
    <div class="ck-btns">${btns}</div>
    ${laps.map((l) => html`<div class="ck-lap" ...${A('android.widget.LinearLayout', { id: 'lap_item' })}>
      <span ...${A('android.widget.TextView', { id: 'lap_number', text: `Lap ${l.n}` })}>Lap ${l.n}</span>
      <span ...${A('android.widget.TextView', { id: 'lap_time', text: fmtSw(l.lap) })}>${fmtSw(l.lap)}</span>
      <span ...${A('android.widget.TextView', { id: 'lap_total', text: fmtSw(l.tot) })}>${fmtSw(l.tot)}</span>
    </div>`)}
  `;
  return tabScreen('stopwatch', { body });
}

// Settings (overflow menu): preferences that no task checks, for realism
export function settingsScreen() {
  const row = (title, value, id) => html`<div class="ck-line" style="padding:10px 20px"
      ...${A('android.widget.LinearLayout', { id, click: true })} ...${press(() => toast(`${title}: ${value}`))}>
    <div style="flex:1">${Text(title, { id: 'title' })}<br/>${Text(value, { id: 'summary', cls: 'ck-city-diff' })}</div></div>`;
  const body = html`
    ${Section('Clock')}
    ${row('Style', 'Digital', 'clock_style')}
    ${row('Automatic home clock', 'While traveling in an area where the time is different, add a clock for home', 'automatic_home_clock')}
    ${row('Home time zone', '(GMT+0:00) London', 'home_time_zone')}
    ${Section('Alarms')}
    ${row('Silence after', '10 minutes', 'auto_silence')}
    ${row('Snooze length', '10 minutes', 'snooze_length')}
    ${row('Alarm volume', '60%', 'alarm_volume')}
    ${row('Start week on', t('Monday', 'Sunday'), 'week_start')}
    ${Section('Timers')}
    ${row('Timer sound', 'Timer Expired', 'timer_ringtone')}
    ${row('Gradually increase volume', 'Off', 'timer_crescendo')}
  `;
  return Screen({ title: 'Settings', body });
}

// ------------------------------------------------------------------------------------------
// dialogs
const dialogs = {
  alarm_time: (d) => {
    if (flavor() === 'aosp') return timePickerAosp(d);
    const ok = () => {
      const tm = readTime('alarm_h', 'alarm_m', h24() ? undefined : 'alarm_ampm');
      if (!tm) { d.error = h24() ? 'Enter a valid time (00:00–23:59)' : 'Enter a valid time (1:00–12:59)'; return; }
      if (d.mode === 'draft') {
        const p = ui().tasks.clock[ui().tasks.clock.length - 1].p;
        p.hour = tm.hour; p.minute = tm.minute;
        closeDialog();
        return;
      }
      if (d.mode === 'new') {
        const a = { id: nextId('a'), hour: tm.hour, minute: tm.minute, enabled: true, label: '', days: [], vibrate: true };
        alarmList().push(a);
        ui().clockExpanded = a.id;
        closeDialog();
        alarmSetToast(a);
        return;
      }
      const a = alarmById(d.id);
      closeDialog();
      if (!a) { toast('Alarm no longer exists'); return; }
      a.hour = tm.hour; a.minute = tm.minute; a.enabled = true;
      alarmSetToast(a);
    };
    return Dialog({ title: 'Set time', body: html`
      ${TimePickerBody({ hField: 'alarm_h', mField: 'alarm_m', ampmField: h24() ? undefined : 'alarm_ampm' })}
      ${d.error ? html`<span class="ck-err" ...${A('android.widget.TextView', { id: 'error', text: d.error })}>${d.error}</span>` : null}`,
    buttons: [{ label: 'Cancel', onClick: closeDialog }, { label: 'OK', onClick: ok }] });
  },
  alarm_label: (d) => (flavor() === 'aosp' ? labelDialogAosp('alarm_label', (v) => { const a = alarmById(d.id); if (a) a.label = v; })
    : Dialog({ title: 'Label', body: Field({ field: 'alarm_label', hint: 'Label', id: 'label_input' }), buttons: [
    { label: 'Cancel', onClick: closeDialog },
    { label: 'OK', onClick: () => {
      const a = alarmById(d.id);
      if (a) a.label = String(ui().fields.alarm_label ?? '').trim();
      closeDialog();
    } }] })),
  alarm_delete: (d) => {
    const a = alarmById(d.id);
    const what = a ? `${fmt(a.hour, a.minute)}${a.label ? ' · ' + a.label : ''}` : '';
    return Dialog({ title: 'Delete alarm?', body: Text(what, { id: 'message' }), buttons: [
      { label: 'Cancel', onClick: closeDialog },
      { label: 'Delete', onClick: () => {
        world().alarms = alarms().filter((x) => x.id !== d.id);
        closeDialog();
        if (d.fromEdit) back();
        toast('Alarm deleted');
      } }] });
  },
  city_remove: (d) => Dialog({ title: `Remove ${d.city}?`, body: Text('The city will be removed from your world clock list.', { id: 'message' }), buttons: [
    { label: 'Cancel', onClick: closeDialog },
    { label: 'Remove', onClick: () => { world().world_clocks = cities().filter((c) => c !== d.city); closeDialog(); toast(`${d.city} removed`); } }] }),
  timer_label: (d) => (flavor() === 'aosp' ? labelDialogAosp('timer_label', (v) => { const tm = timers()[d.index]; if (tm) tm.label = v; })
    : Dialog({ title: 'Label', body: Field({ field: 'timer_label', hint: 'Label', id: 'label_input' }), buttons: [
    { label: 'Cancel', onClick: closeDialog },
    { label: 'OK', onClick: () => {
      const tm = timers()[d.index];
      if (tm) tm.label = String(ui().fields.timer_label ?? '').trim();
      closeDialog();
    } }] })),
  menu: () => {
    if (flavor() === 'aosp') return menuAosp();
    const items = ['Settings', 'Contact us'];
    return Dialog({ title: null, body: html`<div class="ck-menu">${items.map((it) => html`<div class="ck-line" style="padding:12px 8px"
        ...${A('android.widget.TextView', { id: 'title', text: it, click: true })}
        ...${press(() => { ui().dialog = null; if (it === 'Settings') go('settings', {}); else toast(it); })}>${it}</div>`)}</div>` });
  },
};

// ==========================================================================================
// Flavor `aosp`: AOSP DeskClock as its own source lays it out. Every screen below follows
// LineageOS/android_packages_apps_DeskClock @ 501626741b616e5e41ad4b316e8cc9d8989a7967 (cited
// per screen as "DC <path>") and the framework pieces it uses, aosp-mirror/platform_frameworks_base
// (cited "FW <path>"). Classes are the accessibility class names uiautomator prints
// (ConstraintLayout/Toolbar = android.view.ViewGroup, SwitchCompat = android.widget.Switch,
// FloatingActionButton = android.widget.Button, TextTime/AutoSizingTextView = android.widget.TextView).
// Only nodes a dump shows are annotated; plain <div>s are layout only.

// Strings (DC res/values/strings.xml, cm_strings.xml; FW core/res/res/values/strings.xml)
export const S = {
  label: 'Label', labelDesc: 'Label', noLabel: 'No label specified', defaultLabel: 'Alarm', addLabel: 'Add label',
  expand: 'Expand alarm', collapse: 'Collapse alarm', vibrate: 'Vibrate', delete: 'Delete', ringtoneDesc: 'Ringtone',
  ringtone: 'Default (Cesium)', today: 'Today', tomorrow: 'Tomorrow', everyDay: 'Every day', noAlarms: 'No Alarms',
  addAlarm: 'Add alarm', cities: 'Cities', addTimer: 'Add Timer', timerStart: 'Start', timerCancel: 'Cancel',
  swStart: 'Start', swPause: 'Pause', swLap: 'Lap', swReset: 'Reset', swShare: 'Share',
  selectedCities: 'Selected Cities', alarmDeleted: 'Alarm deleted',
  ok: 'OK', cancel: 'Cancel', moreOptions: 'More options', navigateUp: 'Navigate up', search: 'Search',
  searchHint: 'Search…', clearQuery: 'Clear query',
  // FW time picker (time_picker_*.xml strings)
  tpSetTime: 'Set time', tpTypeIn: 'Type in time', tpHour: 'hour', tpMinute: 'minute', tpError: 'Enter a valid time',
  tpToText: 'Switch to text input mode for the time input.', tpToClock: 'Switch to clock mode for the time input.',
};
const DC_TABS = [
  { id: 'alarm', page: 'page_alarm', label: 'Alarm', icon: '⏰' },
  { id: 'clock', page: 'page_clock', label: 'Clock', icon: '🕒' },
  { id: 'timer', page: 'page_timer', label: 'Timer', icon: '⏳' },
  { id: 'stopwatch', page: 'page_stopwatch', label: 'Stopwatch', icon: '⏱' },
];
const V = (cls, o = {}) => A(cls, o);
const VG = 'android.view.ViewGroup', TV = 'android.widget.TextView', LL = 'android.widget.LinearLayout',
  FL = 'android.widget.FrameLayout', RV = 'androidx.recyclerview.widget.RecyclerView';

if (!document.getElementById('clock-aosp-css')) {
  const el = document.createElement('style');
  el.id = 'clock-aosp-css';
  el.textContent = `
  .dc-content { flex: 1; position: relative; display: flex; flex-direction: column; min-height: 0; }
  .dc-frag { flex: 1; position: relative; display: flex; flex-direction: column; min-height: 0; }
  .dc-fabs { position: absolute; left: 0; right: 0; bottom: 12px; height: 72px; display: flex; justify-content: center;
    align-items: center; gap: 28px; z-index: 5; pointer-events: none; }
  .dc-fab { pointer-events: auto; width: 64px; height: 64px; border-radius: 20px; background: var(--primary-c); display: flex;
    align-items: center; justify-content: center; font-size: 26px; box-shadow: 0 2px 6px rgba(0,0,0,.3); }
  .dc-fab.side { width: 48px; height: 48px; border-radius: 16px; font-size: 20px; background: var(--surface); }
  .dc-fab-slot { width: 48px; height: 48px; }
  .dc-empty { position: absolute; left: 0; right: 0; top: 40%; text-align: center; color: var(--muted); font-size: calc(18px * var(--fs)); padding-bottom: 72px; }
  .dc-card { background: var(--surface); border-radius: 24px; margin: 8px 12px; padding: 6px 8px 6px 16px; }
  .dc-row { display: flex; align-items: center; gap: 8px; }
  .dc-row .grow { flex: 1; min-width: 0; }
  .dc-label { min-height: 40px; display: flex; align-items: center; color: var(--muted); font-size: calc(15px * var(--fs)); }
  .dc-card .ck-time { font-size: calc(44px * var(--fs)); }
  .dc-card.off .ck-time { color: var(--muted); font-weight: 400; }
  .dc-days { color: var(--muted); font-size: calc(14px * var(--fs)); min-height: 32px; display: flex; align-items: center; }
  .dc-daybtns { display: flex; justify-content: space-between; padding: 6px 0; }
  .dc-daybtn { width: 38px; height: 38px; border-radius: 19px; border: 1px solid var(--muted); display: flex; align-items: center; justify-content: center; font-size: 14px; }
  .dc-daybtn.on { background: var(--primary); border-color: var(--primary); color: var(--bg); }
  .dc-line { min-height: 44px; display: flex; align-items: center; gap: 12px; }
  .dc-line .grow { flex: 1; }
  .dc-mainclock { text-align: center; padding: 16px 24px 14px; }
  .dc-mainclock .big { font-size: calc(64px * var(--fs)); font-weight: 300; font-variant-numeric: tabular-nums; display: block; }
  .dc-dateline { display: flex; justify-content: center; gap: 8px; color: var(--muted); font-size: calc(14px * var(--fs)); }
  .dc-city { display: flex; align-items: center; gap: 12px; background: var(--surface); border-radius: 24px; margin: 8px 12px; padding: 20px 16px; }
  .dc-city .grow { flex: 1; min-width: 0; }
  .dc-cityrow { display: flex; align-items: center; gap: 12px; padding: 10px 16px; min-height: 52px; }
  .dc-cityrow .idx { width: 28px; font-weight: 700; font-size: 20px; }
  .dc-cityrow .grow { flex: 1; }
  .dc-cityhdr { padding: 12px 16px 4px 56px; color: var(--muted); font-size: calc(14px * var(--fs)); }
  .dc-tpd { background: var(--surface); border-radius: 28px; width: 88%; max-height: 92%; display: flex; flex-direction: column; position: relative; }
  .dc-tphead { display: flex; align-items: center; justify-content: center; gap: 2px; padding: 20px 16px 8px; }
  .dc-tphead .num { font-size: calc(52px * var(--fs)); padding: 0 6px; border-radius: 8px; font-variant-numeric: tabular-nums; }
  .dc-tphead .num.act { color: var(--primary); background: var(--primary-c); }
  .dc-tphead .sep { font-size: calc(52px * var(--fs)); }
  .dc-ampm { display: flex; flex-direction: column; margin-left: 10px; }
  .dc-ampm > div { padding: 4px 8px; font-size: calc(16px * var(--fs)); color: var(--muted); border-radius: 6px; }
  .dc-ampm > div.on { color: var(--primary); font-weight: 600; }
  .dc-dial { position: relative; width: 256px; height: 256px; margin: 8px auto; border-radius: 128px; background: var(--bg); }
  .dc-dial > div { position: absolute; width: 36px; height: 36px; margin: -18px 0 0 -18px; border-radius: 18px; display: flex; align-items: center; justify-content: center; font-size: 15px; }
  .dc-dial > div.inner { font-size: 12px; width: 30px; height: 30px; margin: -15px 0 0 -15px; }
  .dc-dial > div.on { background: var(--primary); color: var(--bg); }
  .dc-tpfoot { display: flex; align-items: center; padding: 4px 12px 12px; }
  .dc-tpfoot .grow { flex: 1; }
  .dc-tpinput { padding: 8px 24px 4px; }
  .dc-tpinput .hdr { font-size: calc(26px * var(--fs)); padding: 12px 0 8px; }
  .dc-tpinput .top { color: var(--muted); font-size: 14px; padding: 4px 0 8px; }
  .dc-inblock { display: flex; align-items: flex-start; gap: 4px; }
  .dc-infield { width: 84px; }
  .dc-infield .field { margin: 0; }
  .dc-infield .lab { font-size: 12px; color: var(--muted); padding: 2px 4px; min-height: 16px; }
  .dc-infield .lab.err { color: #b3261e; }
  .dc-insep { font-size: 28px; padding-top: 6px; }
  .dc-spinner { margin-left: auto; margin-top: 6px; min-width: 76px; padding: 8px 12px; border-bottom: 1px solid var(--muted); display: flex; align-items: center; gap: 6px; }
  .dc-popup { position: absolute; background: var(--surface); box-shadow: 0 4px 12px rgba(0,0,0,.35); border-radius: 4px; z-index: 30; min-width: 110px; }
  .dc-popup > div { padding: 12px 16px; }
  .dc-alert { background: var(--surface); border-radius: 28px; width: 86%; padding: 20px 20px 8px; display: flex; flex-direction: column; }
  .dc-alert .msg { padding: 4px 4px 8px; font-size: calc(16px * var(--fs)); }
  .dc-alert .btns { display: flex; justify-content: flex-end; gap: 4px; margin-top: 8px; }
  .dc-edit { border-bottom: 2px solid var(--primary); padding: 4px 2px; margin: 0 4px; }
  .dc-edit .input { font-size: calc(17px * var(--fs)); }
  .dc-menu { position: absolute; top: 8px; right: 8px; background: var(--surface); border-radius: 4px; box-shadow: 0 4px 12px rgba(0,0,0,.35); z-index: 30; min-width: 180px; padding: 4px 0; }
  .dc-menu > div { padding: 14px 20px; }
  .dc-switch { flex: 0 0 52px; }
  `;
  document.head.appendChild(el);
}

// --- small widgets --------------------------------------------------------------------------
/** androidx SwitchCompat: uiautomator prints an android.widget.Switch without text or description. */
export function SwitchCompat({ id, checked, onChange }) {
  return html`<div class=${'switch dc-switch' + (checked ? ' on' : '')}
      ...${V('android.widget.Switch', { id, click: true, checkable: true, checked, text: '' })}
      ...${press(() => onChange(!checked))}><div class="knob"></div></div>`;
}
/** A FloatingActionButton of desk_clock.xml's fab_container (android.widget.Button, described). */
function Fab(b, id, side) {
  if (!b) return side ? html`<div class="dc-fab-slot"></div>` : null;
  return html`<div class=${'dc-fab' + (side ? ' side' : '')} ...${V('android.widget.Button', { id, desc: b.desc, click: true, text: '' })}
    ...${press(b.onClick)}>${b.icon}</div>`;
}
/** A scrolling list (RecyclerView/ListView) with the app's id; the phone keeps its scroll offset. */
export function ScrollList(id, children, cls = RV) {
  return html`<div class="body scroll" data-scroll-key=${scrollKey()} ...${V(cls, { id, scroll: true })}>
    <div class="body-inner">${children}</div></div>`;
}
/** An EditText without a resource id (LabelDialogFragment's AppCompatEditText), bound to ui.fields[field]. */
export function BareEditText({ field, onSubmit }) {
  const u = ui();
  const value = u.fields[field] ?? '';
  window.S2R.submitters[field] = onSubmit || null;
  const focus = () => { if (window.S2R.state.ui.focus !== field) update((s) => { s.ui.focus = field; s.ui.keyboard = true; }); };
  return html`<div class=${'dc-edit' + (u.focus === field ? ' focused' : '')}
      ...${V('android.widget.EditText', { text: value, click: true, edit: true })} onClick=${focus}>
    <input class="input" data-field=${field} value=${value} autocomplete="off" autocapitalize="off" spellcheck=${false}
      onInput=${(e) => { window.S2R.state.ui.fields[field] = e.target.value; rerender(); }} onFocus=${focus}
      onKeyDown=${(e) => { if (e.key === 'Enter') { e.preventDefault(); if (onSubmit) update(() => onSubmit()); } }} />
  </div>`;
}
/**
 * An AlertDialog (androidx.appcompat abc_alert_dialog_material.xml): parentPanel > contentPanel >
 * scrollView > message; customPanel > custom > the custom view; buttonPanel > button3, button2
 * (negative), button1 (positive) in that order (FW alert_dialog_button_bar_material.xml).
 */
export function AlertAosp({ message, custom, positive, negative }) {
  const btn = (b, n) => (b ? html`<div class="btn" ...${V('android.widget.Button', { id: `android:id/button${n}`, text: b.label, click: true })}
      ...${press(b.onClick)}>${b.label}</div>` : null);
  return html`<div class="scrim" onClick=${(e) => { if (e.target === e.currentTarget) update(() => closeDialog()); }}>
    <div class="dc-alert" ...${V(LL, { id: 'android:id/parentPanel' })}>
      ${message ? html`<div ...${V(LL, { id: 'android:id/contentPanel' })}><div ...${V('android.widget.ScrollView', { id: 'android:id/scrollView' })}>
        <div class="msg" ...${V(TV, { id: 'android:id/message', text: message })}>${message}</div></div></div>` : null}
      ${custom ? html`<div ...${V(FL, { id: 'android:id/customPanel' })}><div ...${V(FL, { id: 'android:id/custom' })}>${custom}</div></div>` : null}
      <div ...${V('android.widget.ScrollView', { id: 'android:id/buttonPanel' })}><div class="btns">${btn(negative, 2)}${btn(positive, 1)}</div></div>
    </div></div>`;
}

// --- the activity: DC res/layout/desk_clock.xml + res/menu/bottom_navigation_menu.xml ----------
// Toolbar(toolbar) > title_view and the overflow "More options" (DeskClock.java: the selected tab's
// label as title); CoordinatorLayout(content) > fragment_container (the tab's fragment) and
// fab_container > left_button, fab, right_button; BottomNavigationView(bottom_view), whose item
// views carry their menu item's id (page_alarm …) and title (MDC NavigationBarItemView).
function deskClock(tab, { fragment, fab, left, right }) {
  const label = DC_TABS.find((x) => x.id === tab).label;
  const nav = html`<div class="bottomnav" ...${V(FL, { id: 'bottom_view' })}><div style="display:flex;flex:1" ...${V(VG)}>
    ${DC_TABS.map((tb) => {
      const on = tb.id === tab;
      return html`<div class=${'navitem' + (on ? ' on' : '')}
          ...${V(FL, { id: tb.page, desc: tb.label, click: true, selected: on })} ...${press(() => { if (!on) replace(tb.id, {}); })}>
        <div class="nav-icon" ...${V('android.widget.ImageView', { id: 'navigation_bar_item_icon_view', selected: on, text: '' })}>${tb.icon}</div>
        <span ...${V(TV, { id: on ? 'navigation_bar_item_large_label_view' : 'navigation_bar_item_small_label_view', text: tb.label, selected: on })}>${tb.label}</span>
      </div>`;
    })}</div></div>`;
  return html`<div class="screen">
    <div class="appbar" ...${V(VG, { id: 'toolbar' })}>
      <div class="title" ...${V(TV, { id: 'title_view', text: label })}>${label}</div>
      <div class="icon-btn" ...${V('android.widget.ImageView', { desc: S.moreOptions, click: true, text: '' })}
        ...${press(() => { ui().dialog = { kind: 'menu' }; })}>⋮</div>
    </div>
    <div class="dc-content" ...${V(VG, { id: 'content' })}>
      <div class="dc-frag" ...${V(FL, { id: 'fragment_container' })}>${fragment}</div>
      <div class="dc-fabs" ...${V(VG, { id: 'fab_container' })}>${Fab(left, 'left_button', true)}${Fab(fab, 'fab')}${Fab(right, 'right_button', true)}</div>
    </div>
    ${nav}
  </div>`;
}

// --- Alarm tab: DC res/layout/alarm_clock.xml; items alarm_time_collapsed.xml /
// alarm_time_expanded.xml (+ alarm_time_summary.xml, days_of_week.xml), bound as
// alarms/dataadapter/{AlarmItemViewHolder,CollapsedAlarmViewHolder,ExpandedAlarmViewHolder}.java
/** data/Weekdays.java toString: short names (a single day by its long name), 'Every day' for all seven. */
export function aospDays(a) {
  const days = dayOrder().filter((d) => a.days.includes(d));
  if (!days.length) return { text: nextRing(a).off === 0 ? S.today : S.tomorrow, desc: '' };  // Alarm.isTomorrow
  if (days.length === 7) return { text: S.everyDay, desc: S.everyDay };
  const long = days.map((d) => DAY_LONG[d]).join(', ');
  return { text: days.length === 1 ? long : days.map((d) => DAY_SHORT[d]).join(', '), desc: long };
}
function alarmItemAosp(a) {
  const time = fmt(a.hour, a.minute);
  const open = ui().clockExpanded === a.id;
  const expand = () => { ui().clockExpanded = a.id; };
  const collapse = () => { ui().clockExpanded = null; };
  const days = aospDays(a);
  const switchEl = SwitchCompat({ id: 'onoff', checked: a.enabled, onChange: (v) => setEnabled(a, v) });
  const clock = html`<span class="ck-time" ...${V(TV, { id: 'digital_clock', text: time, click: true })}
    ...${press(() => { openTimePicker('edit', a.hour, a.minute, { id: a.id }); if (!open) expand(); })}>${time}</span>`;
  const arrow = html`<div class="ck-arrow" ...${V('android.widget.ImageButton', { id: 'arrow', desc: open ? S.collapse : S.expand, click: true, text: '' })}
    ...${press(open ? collapse : expand)}>${open ? '⌃' : '⌄'}</div>`;
  const daysRow = html`<div class="grow dc-days" ...${V(LL, { id: 'ellipse_layout' })}>
    <span ...${V(TV, { id: 'days_of_week', text: days.text, desc: days.desc })}>${days.text}</span></div>`;
  const editLabel = () => { ui().fields.alarm_label = a.label; ui().dialog = { kind: 'alarm_label', id: a.id }; ui().focus = 'alarm_label'; ui().keyboard = true; };
  const head = open
    ? html`<div class="dc-row"><div class="grow dc-label" ...${V(TV, { id: 'edit_label', text: a.label || S.addLabel, hint: S.addLabel,
        desc: a.label ? `${S.labelDesc} ${a.label}` : S.noLabel, click: true })} ...${press(editLabel)}>🏷 ${a.label || S.addLabel}</div>${arrow}</div>`
    : html`<div class="dc-row">${a.label ? html`<div class="grow dc-label" ...${V(TV, { id: 'label', text: a.label, hint: S.addLabel,
        desc: `${S.labelDesc} ${a.label}`, click: true })} ...${press(expand)}>${a.label}</div>` : html`<div class="grow"></div>`}${arrow}</div>`;
  const desc = `${time} ${a.label || S.defaultLabel}`;  // AlarmItemViewHolder.onBindItemView
  return html`<div class=${'dc-card' + (a.enabled ? '' : ' off')} ...${V(VG, { desc, click: true })} ...${press(open ? collapse : expand)}>
    ${head}
    <div class="dc-row"><div class="grow">${clock}</div>${switchEl}</div>
    <div class="dc-row">${daysRow}</div>
    ${open ? html`
      <div class="dc-daybtns" ...${V(VG, { id: 'repeat_days' })}>${dayOrder().map((d, i) => {
        const on = a.days.includes(d);
        return html`<div class=${'dc-daybtn' + (on ? ' on' : '')}
          ...${V('android.widget.CheckBox', { id: `day_button_${i}`, text: DAY_LETTER[d], desc: DAY_LONG[d], click: true, checkable: true, checked: on })}
          ...${press(() => { a.days = on ? a.days.filter((x) => x !== d) : sortDays([...a.days, d]); })}>${DAY_LETTER[d]}</div>`;
      })}</div>
      <div class="dc-line" ...${V(TV, { id: 'choose_ringtone', text: S.ringtone, desc: `${S.ringtoneDesc} ${S.ringtone}`, click: true })}
        ...${press(() => toast('Alarm sound: Cesium'))}>🔔 ${S.ringtone}</div>
      <div class="dc-line" ...${V('android.widget.CheckBox', { id: 'vibrate_onoff', text: S.vibrate, click: true, checkable: true, checked: a.vibrate !== false })}
        ...${press(() => { a.vibrate = a.vibrate === false; })}>📳 <span class="grow">${S.vibrate}</span><span class=${'box' + (a.vibrate !== false ? ' on' : '')}>${a.vibrate !== false ? '✓' : ''}</span></div>
      <div class="dc-line"><div class="btn" ...${V('android.widget.Button', { id: 'delete', text: S.delete, click: true })}
        ...${press(() => { world().alarms = alarms().filter((x) => x.id !== a.id); ui().clockExpanded = null; toast(S.alarmDeleted); })}>🗑 ${S.delete}</div></div>` : null}
  </div>`;
}
function alarmTabAosp() {
  const list = sortedAlarms();
  const add = { desc: S.addAlarm, icon: '+', onClick: () => { const d = now(); openTimePicker('new', d.getUTCHours(), d.getUTCMinutes()); } };
  const fragment = html`<div class="dc-frag" ...${V(FL, { id: 'main' })}>
    ${ScrollList('alarms_recycler_view', list.map(alarmItemAosp))}
    ${list.length ? null : html`<div class="dc-empty" ...${V(TV, { id: 'alarms_empty_view', text: S.noAlarms, desc: S.noAlarms })}>${S.noAlarms}</div>`}
  </div>`;
  return deskClock('alarm', { fragment, fab: add });
}

// --- Clock tab: DC res/layout/clock_fragment.xml (RecyclerView cities) whose first item is
// main_clock_frame.xml (+ date_and_next_alarm_time.xml), then one world_clock_item.xml (+
// world_clock_city_container.xml) per city, bound as ClockFragment.java (CityViewHolder,
// MainClockViewHolder), Utils.refreshAlarm / updateDate / createHoursDifferentString.
export function plural(n, one, many) { return `${n} ${n === 1 ? one : many}`; }
export function hoursAheadAosp(ct) {
  const o = ct.offset, ah = Math.floor(Math.abs(o) / 60), am = Math.abs(o) % 60;
  if (o === 0) return null;  // same time: hours_ahead is GONE
  const ahead = o > 0;
  const span = am && ah ? `${plural(ah, 'hr', 'hr')} ${plural(am, 'min', 'min')}` : am ? plural(am, 'minute', 'minutes') : plural(ah, 'hour', 'hours');
  const s = `${span} ${ahead ? 'ahead' : 'behind'}`;
  if (ct.dayDiff > 0) return `Tomorrow, ${s}`;
  if (ct.dayDiff < 0) return `Yesterday, ${s}`;
  return s;
}
function clockTabAosp() {
  const d = now();
  const time = fmt(d.getUTCHours(), d.getUTCMinutes());
  const date = d.toLocaleDateString('en-US', { weekday: 'short', month: 'short', day: 'numeric', timeZone: 'UTC' });
  const dateDesc = d.toLocaleDateString('en-US', { weekday: 'long', month: 'long', day: 'numeric', timeZone: 'UTC' });
  const next = nextAlarm();
  const nextText = next ? `${DAY_SHORT[DAYS[next.r.dayIdx]]} ${fmt(next.a.hour, next.a.minute)}` : null;  // AlarmUtils.getFormattedTime
  const nextDesc = nextText ? `Next alarm: ${nextText}` : '';
  const main = html`<div class="dc-mainclock" ...${V(LL)}>
    <span class="big" ...${V(TV, { id: 'digital_clock', text: time })}>${time}</span>
    <div class="dc-dateline" ...${V(LL, { id: 'date_and_next_alarm_time' })}>
      <span ...${V(TV, { id: 'date', text: date, desc: dateDesc })}>${date}</span>
      ${nextText ? html`<span ...${V(TV, { id: 'nextAlarmIcon', text: 'A', desc: nextDesc })}>⏰</span>
        <span ...${V(TV, { id: 'nextAlarm', text: nextText, desc: nextDesc })}>${nextText}</span>` : null}
    </div></div>`;
  const item = (city) => {
    const ct = cityTime(city);
    const sub = ct ? hoursAheadAosp(ct) : null;
    const t2 = ct ? ct.time : '--:--';
    return html`<div class="dc-city" ...${V(LL)}>
      <div class="grow" ...${V(LL, { id: 'city_container' })}>
        <span class="ck-city-name" ...${V(TV, { id: 'city_name', text: city })}>${city}</span>
        ${sub ? html`<span class="ck-city-diff" ...${V(TV, { id: 'hours_ahead', text: sub })}>${sub}</span>` : null}
      </div>
      <span class="ck-city-time" ...${V(TV, { id: 'digital_clock', text: t2 })}>${t2}</span>
    </div>`;
  };
  const fragment = ScrollList('cities', [main, ...cities().map(item)]);
  const fab = { desc: S.cities, icon: '🌐', onClick: () => { ui().fields.city_search = ''; go('cities', {}); } };
  return deskClock('clock', { fragment, fab });
}

// --- the Cities picker: DC worldclock/CitySelectionActivity.java (res/layout/cities_activity.xml:
// ListView cities_list; city_list_header.xml 'Selected Cities'; city_list_item.xml: index,
// CheckBox city_onoff described by the city's name, city_name, city_time; the row toggles it) under
// the activity's action bar (Navigate up, title, the search item's androidx SearchView
// (abc_search_view.xml: search_button 'Search'; expanded: search_src_text, search_close_btn)).
function citiesScreenAosp(p) {
  // CitySelectionActivity.CityAdapter.filter: upper-cased, " -.'" removed (City.removeSpecialCharacters),
  // a prefix of the name (City.matches), and only unselected cities while filtering
  const clean = (x) => String(x).toUpperCase().replace(/[ \-.']/g, '');
  const q = clean(String(ui().fields.city_search ?? '').trim());
  const chosen = cities();
  const filtering = !!q;
  const shown = filtering ? CITY_NAMES.filter((c) => !chosen.includes(c) && clean(c).startsWith(q)) : CITY_NAMES;
  const row = (c, showIndex) => {
    const on = chosen.includes(c);
    const ct = cityTime(c);
    return html`<div class="dc-cityrow" ...${V(LL, { click: true })}
        ...${press(() => { if (on) world().world_clocks = chosen.filter((x) => x !== c); else cityList().push(c); })}>
      <span class="idx" ...${showIndex ? V(TV, { id: 'index', text: c[0] }) : {}}>${showIndex ? c[0] : ''}</span>
      <span class=${'box' + (on ? ' on' : '')} ...${V('android.widget.CheckBox', { id: 'city_onoff', desc: c, checkable: true, checked: on, text: '' })}>${on ? '✓' : ''}</span>
      <span class="grow ck-city-name" ...${V(TV, { id: 'city_name', text: c })}>${c}</span>
      <span class="ck-city-diff" ...${V(TV, { id: 'city_time', text: ct.time })}>${ct.time}</span>
    </div>`;
  };
  // getShowIndex: never while filtering nor on the selected cities; the first city of the full list
  // and every change of initial
  const selected = CITY_NAMES.filter((c) => chosen.includes(c));
  const header = !filtering && selected.length ? html`<div class="dc-cityhdr" ...${V(TV, { text: S.selectedCities })}>${S.selectedCities}</div>
    ${selected.map((c) => row(c, false))}` : null;
  const all = shown.map((c, i) => row(c, !filtering && (i === 0 || c[0] !== shown[i - 1][0])));
  const up = html`<div class="icon-btn" ...${V('android.widget.ImageButton', { desc: S.navigateUp, click: true, text: '' })}
    ...${press(() => { closeKb(); back(); })}>←</div>`;
  const search = p.searching
    ? html`<div style="flex:1;display:flex;align-items:center" ...${V(LL, { id: 'search_bar' })}>
        <div style="flex:1" ...${V(LL, { id: 'search_plate' })}>${Field({ field: 'city_search', hint: S.searchHint, id: 'search_src_text' })}</div>
        <div class="icon-btn" ...${V('android.widget.ImageView', { id: 'search_close_btn', desc: S.clearQuery, click: true, text: '' })}
          ...${press(() => { if (ui().fields.city_search) ui().fields.city_search = ''; else { p.searching = false; closeKb(); } })}>✕</div></div>`
    : html`<div class="title" ...${V(TV, { text: S.cities })}>${S.cities}</div>
        <div ...${V(LL, { id: 'search_bar' })}><div class="icon-btn" ...${V('android.widget.ImageView', { id: 'search_button', desc: S.search, click: true, text: '' })}
          ...${press(() => { p.searching = true; ui().fields.city_search = ''; ui().focus = 'city_search'; ui().keyboard = true; })}>🔍</div></div>
        <div class="icon-btn" ...${V('android.widget.ImageView', { desc: S.moreOptions, click: true, text: '' })} ...${press(() => toast('Sort by time'))}>⋮</div>`;
  return html`<div class="screen">
    <div class="appbar" ...${V(VG, { id: 'action_bar' })}>${up}${search}</div>
    ${ScrollList('cities_list', [header, ...all], 'android.widget.ListView')}
  </div>`;
}

// --- Timer tab: DC res/layout/timer_fragment.xml (timer_view > RecyclerView recycler_view, or the
// TimerSetupView timer_setup: timer_setup_view.xml, timer_setup_digits.xml) and the FABs of
// timer/TimerFragment.java (fab 'Add Timer' / 'Start', left_button 'Cancel' while timers exist).
// The timer cards themselves are still the simulator's (see timerCard; DC timer_item.xml's single
// play_pause button does not show whether a timer runs).
function timerTabAosp(p) {
  if (timers().length && !p.setup) {
    const fragment = html`<div class="dc-frag" ...${V(FL, { id: 'timer_view' })}>${ScrollList('recycler_view', timers().map(timerCard))}</div>`;
    return deskClock('timer', { fragment, fab: { desc: S.addTimer, icon: '+', onClick: () => { ui().fields.timer_digits = ''; replace('timer', { setup: true }); } } });
  }
  const { dg, h, m, s, disp, desc, typed, del, start } = setupEntry();
  const digit = (k) => html`<div class="btn" ...${V('android.widget.Button', { id: `timer_setup_digit_${k}`, text: k, click: true })} ...${press(typed(k))}>${k}</div>`;
  const fragment = html`<div class="dc-frag" ...${V(VG, { id: 'timer_setup' })}>
    <div class=${'ck-setup' + (dg ? ' set' : '')} ...${V(TV, { id: 'timer_setup_time', text: disp, desc })}>${disp}</div>
    <div class="ck-keypad" ...${V(LL, { id: 'timer_setup_digits' })}>
      ${['1', '2', '3', '4', '5', '6', '7', '8', '9', '00', '0'].map(digit)}
      <div class=${'btn' + (dg ? '' : ' disabled')} ...${V('android.widget.Button', { id: 'timer_setup_delete', text: '⌫', desc: 'Delete', click: !!dg, disabled: !dg })}
        ...${press(del)}>⌫</div>
    </div></div>`;
  const valid = h * 3600 + m * 60 + s > 0;
  return deskClock('timer', { fragment, fab: valid ? { desc: S.timerStart, icon: '▶', onClick: start } : null,
    left: timers().length ? { desc: S.timerCancel, icon: '🗑', onClick: () => { ui().fields.timer_digits = ''; replace('timer', {}); } } : null });
}

// --- Stopwatch tab: DC res/layout/stopwatch_fragment.xml (stopwatch_time.xml, RecyclerView
// laps_list of lap_view.xml rows) and the FABs of stopwatch/StopwatchFragment.java: fab
// 'Start'/'Pause'; left_button 'Reset' and right_button 'Lap' (running) / 'Share' (paused).
function stopwatchTabAosp() {
  const sw = stopwatch();
  const laps = sw.laps.map((tot, i) => ({ n: i + 1, tot, lap: tot - (i ? sw.laps[i - 1] : 0) })).reverse();
  const num = (n) => (sw.laps.length >= 10 ? `# ${pad2(n)}` : `# ${n}`);  // LapsAdapter.formatLapNumber
  const fragment = html`<div class="dc-frag">
    <div ...${V(VG, { id: 'stopwatch_time_wrapper' })}>
      <div class="ck-sw" ...${V(TV, { id: 'stopwatch_time_text', text: fmtSw(sw.elapsed_ms) })}>${fmtSw(sw.elapsed_ms)}</div></div>
    ${laps.length ? ScrollList('laps_list', laps.map((l) => html`<div class="ck-lap" ...${V(LL)}>
      <span ...${V(TV, { id: 'lap_number', text: num(l.n) })}>${num(l.n)}</span>
      <span ...${V(TV, { id: 'lap_time', text: fmtSw(l.lap) })}>${fmtSw(l.lap)}</span>
      <span ...${V(TV, { id: 'lap_total', text: fmtSw(l.tot) })}>${fmtSw(l.tot)}</span></div>`)) : null}
  </div>`;
  const started = sw.running || sw.elapsed_ms > 0;
  return deskClock('stopwatch', {
    fragment,
    fab: sw.running ? { desc: S.swPause, icon: '⏸', onClick: () => { sw.running = false; } } : { desc: S.swStart, icon: '▶', onClick: () => { sw.running = true; } },
    left: started ? { desc: S.swReset, icon: '↺', onClick: () => { sw.running = false; sw.elapsed_ms = 0; sw.laps = []; } } : null,
    right: !started ? null : sw.running
      ? (sw.laps.length < 99 ? { desc: S.swLap, icon: '⚑', onClick: () => { sw.laps.push(sw.elapsed_ms); } } : null)
      : { desc: S.swShare, icon: '⇪', onClick: () => toast('Share') },
  });
}

// --- the time picker: DC alarms/TimePickerDialogFragment.java opens the framework
// android.app.TimePickerDialog (FW core/java/android/app/TimePickerDialog.java) around
// FW res/layout/time_picker_dialog.xml (TimePicker timePicker) in clock mode:
// time_picker_material.xml (time_header, radial_picker, toggle_mode, the dialog's button bar beside
// it), time_picker_header_material.xml (hours, separator, minutes, ampm_layout > am_label, pm_label);
// after toggle_mode the text input mode, input_header + time_picker_text_input_material.xml
// (top_label, input_block > input_hour, label_hour, input_separator, input_minute, label_minute,
// label_error; Spinner am_pm_spinner whose items are simple_spinner_dropdown_item text1), as
// TimePickerClockDelegate.java / TextInputTimePickerView.java drive them. OK validates the typed
// time (TimePickerDialog.show: the positive button closes only on validateInput()).
const HOURS_12 = [12, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];
const HOURS_24_INNER = [0, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23];
function tpParse(d) {
  const f = ui().fields;
  const hs = String(f.tp_hour ?? '').trim(), ms = String(f.tp_minute ?? '').trim();
  const h = /^\d+$/.test(hs) ? parseInt(hs, 10) : NaN, m = /^\d+$/.test(ms) ? parseInt(ms, 10) : NaN;
  const hOk = Number.isFinite(h) && (h24() ? h >= 0 && h <= 23 : h >= 1 && h <= 12);
  const mOk = Number.isFinite(m) && m >= 0 && m <= 59;
  const toDay = (x) => (h24() ? x : (x % 12) + (d.hour >= 12 ? 12 : 0));
  return { ok: hOk && mOk, h, m, hour: Number.isFinite(h) ? toDay(Math.min(Math.max(h, h24() ? 0 : 1), h24() ? 23 : 12)) : null,
    minute: Number.isFinite(m) ? Math.min(Math.max(m, 0), 59) : null };
}
export function tpCommit(d, hour, minute) {
  closeDialog();
  if (d.mode === 'draft') {  // the sim's Add/Edit alarm form, when a deep link opens it
    const p = ui().tasks.clock[ui().tasks.clock.length - 1].p;
    p.hour = hour; p.minute = minute;
    return;
  }
  if (d.mode === 'new') {
    const a = { id: nextId('a'), hour, minute, enabled: true, label: '', days: [], vibrate: true };
    alarmList().push(a);
    ui().clockExpanded = a.id;
    alarmSetToast(a);
    return;
  }
  const a = alarmById(d.id);
  if (!a) { toast('Alarm no longer exists'); return; }
  a.hour = hour; a.minute = minute; a.enabled = true;
  alarmSetToast(a);
}
function timePickerAosp(d) {
  const is24 = h24();
  const pm = d.hour >= 12;
  const f = ui().fields;
  const toInput = () => { f.tp_hour = String(is24 ? d.hour : d.hour % 12 || 12); f.tp_minute = pad2(d.minute); d.input = true; d.error = false; };
  const toClock = () => {
    const r = tpParse(d);
    if (r.hour !== null) d.hour = r.hour;
    if (r.minute !== null) d.minute = r.minute;
    d.input = false; d.spinner = false; closeKb();
  };
  const ok = () => {
    if (!d.input) { tpCommit(d, d.hour, d.minute); return; }
    const r = tpParse(d);
    if (!r.ok) { d.error = true; return; }
    tpCommit(d, r.hour, r.minute);
  };
  const setPm = (v) => { d.hour = (d.hour % 12) + (v ? 12 : 0); };
  const btn = (label, n, onClick) => html`<div class="btn" ...${V('android.widget.Button', { id: `android:id/button${n}`, text: label, click: true })}
    ...${press(onClick)}>${label}</div>`;
  let body;
  if (!d.input) {
    const hourText = is24 ? pad2(d.hour) : String(d.hour % 12 || 12);
    const showing = d.showing || 'hours';
    const R = 104, C = 128;
    const at = (i, r) => `left:${C + r * Math.sin((i * Math.PI) / 6)}px;top:${C - r * Math.cos((i * Math.PI) / 6)}px`;
    const node = (value, label, i, r, inner) => {
      const on = showing === 'hours' ? value === d.hour || (!is24 && value % 12 === d.hour % 12 && !inner) : value === d.minute;
      const pick = showing === 'hours'
        ? () => { d.hour = is24 ? value : (value % 12) + (pm ? 12 : 0); d.showing = 'minutes'; }
        : () => { d.minute = value; };
      return html`<div class=${(inner ? 'inner' : '') + (on ? ' on' : '')} style=${at(i, r)}
        ...${V('android.widget.RadialTimePickerView$RadialPickerTouchHelper', { desc: String(value), text: '', click: true, selected: on })} ...${press(pick)}>${label}</div>`;
    };
    const dial = showing === 'hours'
      ? [...HOURS_12.map((v, i) => node(is24 ? v % 12 === 0 ? 12 : v : v, String(v), i, R, false)),
        ...(is24 ? HOURS_24_INNER.map((v, i) => node(v, pad2(v), i, R - 34, true)) : [])]
      : Array.from({ length: 12 }, (_, i) => node(i * 5, pad2(i * 5), i, R, false));
    body = html`
      <div class="dc-tphead" ...${V('android.widget.RelativeLayout', { id: 'android:id/time_header' })}>
        <span class=${'num' + (showing === 'hours' ? ' act' : '')} ...${V(TV, { id: 'android:id/hours', text: hourText, click: true })}
          ...${press(() => { d.showing = 'hours'; })}>${hourText}</span>
        <span class="sep" ...${V(TV, { id: 'android:id/separator', text: ':' })}>:</span>
        <span class=${'num' + (showing === 'minutes' ? ' act' : '')} ...${V(TV, { id: 'android:id/minutes', text: pad2(d.minute), click: true })}
          ...${press(() => { d.showing = 'minutes'; })}>${pad2(d.minute)}</span>
        ${is24 ? null : html`<div class="dc-ampm" ...${V('android.widget.RadioGroup', { id: 'android:id/ampm_layout' })}>
          <div class=${pm ? '' : 'on'} ...${V('android.widget.RadioButton', { id: 'android:id/am_label', text: 'AM', click: true, checkable: true, checked: !pm })}
            ...${press(() => setPm(false))}>AM</div>
          <div class=${pm ? 'on' : ''} ...${V('android.widget.RadioButton', { id: 'android:id/pm_label', text: 'PM', click: true, checkable: true, checked: pm })}
            ...${press(() => setPm(true))}>PM</div></div>`}
      </div>
      <div class="dc-dial" ...${V('android.view.View', { id: 'android:id/radial_picker', click: true })}>${dial}</div>`;
  } else {
    const err = !!d.error;
    body = html`<div class="dc-tpinput">
      <div class="hdr" ...${V(TV, { id: 'android:id/input_header', text: S.tpSetTime })}>${S.tpSetTime}</div>
      <div ...${V('android.widget.RelativeLayout', { id: 'android:id/input_mode' })}>
        <div class="top" ...${V(TV, { id: 'android:id/top_label', text: S.tpTypeIn })}>${S.tpTypeIn}</div>
        <div class="dc-inblock">
          <div ...${V('android.widget.RelativeLayout', { id: 'android:id/input_block' })} style="display:flex;gap:4px">
            <div class="dc-infield">${Field({ field: 'tp_hour', id: 'android:id/input_hour', type: 'number' })}
              ${err ? html`<div class="lab err" ...${V(TV, { id: 'android:id/label_error', text: S.tpError })}>${S.tpError}</div>`
                : html`<div class="lab" ...${V(TV, { id: 'android:id/label_hour', text: S.tpHour })}>${S.tpHour}</div>`}</div>
            <span class="dc-insep" ...${V(TV, { id: 'android:id/input_separator', text: ':' })}>:</span>
            <div class="dc-infield">${Field({ field: 'tp_minute', id: 'android:id/input_minute', type: 'number' })}
              ${err ? html`<div class="lab"></div>` : html`<div class="lab" ...${V(TV, { id: 'android:id/label_minute', text: S.tpMinute })}>${S.tpMinute}</div>`}</div>
          </div>
          ${is24 ? null : html`<div class="dc-spinner" ...${V('android.widget.Spinner', { id: 'android:id/am_pm_spinner', click: true })}
              ...${press(() => { d.spinner = !d.spinner; closeKb(); })}>
            <span ...${V('android.widget.CheckedTextView', { id: 'android:id/text1', text: pm ? 'PM' : 'AM', checkable: true })}>${pm ? 'PM' : 'AM'}</span> ▾</div>`}
        </div>
      </div></div>`;
  }
  const popup = d.input && d.spinner && !is24 ? html`<div class="dc-popup" style="right:24px;top:170px" ...${V('android.widget.ListView')}>
    ${['AM', 'PM'].map((w) => html`<div ...${V('android.widget.CheckedTextView', { id: 'android:id/text1', text: w, click: true, checkable: true, checked: (w === 'PM') === pm })}
      ...${press(() => { setPm(w === 'PM'); d.spinner = false; })}>${w}</div>`)}</div>` : null;
  return html`<div class="scrim" onClick=${(e) => { if (e.target === e.currentTarget) update(() => closeDialog()); }}>
    <div class="dc-tpd" ...${V(FL, { id: 'android:id/content' })}
      onClickCapture=${(e) => {  // an open dropdown takes the touch outside it, and closes
        if (d.spinner && !e.target.closest('.dc-popup')) { e.stopPropagation(); update(() => { d.spinner = false; }); }
      }}>
      <div ...${V('android.widget.TimePicker', { id: 'android:id/timePicker' })}>
        ${body}
        <div class="dc-tpfoot" ...${V(LL)}>
          <div class="icon-btn" ...${V('android.widget.ImageButton', { id: 'android:id/toggle_mode', desc: d.input ? S.tpToClock : S.tpToText, click: true, text: '' })}
            ...${press(() => (d.input ? toClock() : toInput()))}>${d.input ? '🕒' : '⌨'}</div>
          <div class="grow"></div>
          <div style="display:flex" ...${V('android.widget.ScrollView', { id: 'android:id/buttonPanel' })}>
            ${btn(S.cancel, 2, closeDialog)}${btn(S.ok, 1, ok)}</div>
        </div>
      </div>
      ${popup}
    </div></div>`;
}

// --- the label dialog: DC LabelDialogFragment.java (alarms and timers alike): an AlertDialog with
// the message 'Label', an AppCompatEditText without id holding the label (keyboard shown), OK
// (positive) and Cancel; IME done = OK; a label of only spaces is stored empty (setLabel).
function labelDialogAosp(field, save) {
  const okFn = () => {
    const v = String(ui().fields[field] ?? '');
    save(v.trim() ? v : '');
    closeDialog();
  };
  return AlertAosp({ message: S.label, custom: BareEditText({ field, onSubmit: okFn }),
    positive: { label: S.ok, onClick: okFn }, negative: { label: S.cancel, onClick: closeDialog } });
}

// --- the overflow menu: DC actionbarmenu/NightModeMenuItemController.java ('Screen saver') and
// SettingsMenuItemController.java ('Settings'), an androidx popup (abc_popup_menu_item_layout.xml:
// ListMenuItemView > title).
function menuAosp() {
  const items = ['Screen saver', 'Settings'];
  return html`<div class="scrim" style="background:transparent" onClick=${(e) => { if (e.target === e.currentTarget) update(() => closeDialog()); }}>
    <div class="dc-menu" ...${V('android.widget.ListView')}>${items.map((it) => html`<div ...${V(LL, { click: true })}
        ...${press(() => { ui().dialog = null; if (it === 'Settings') go('settings', {}); else toast(it); })}>
      <span ...${V(TV, { id: 'title', text: it })}>${it}</span></div>`)}</div></div>`;
}

registerApp({
  id: 'clock', label: 'Clock', pkg: PKG, icon: '⏰', color: '#1a73e8',
  root: { s: 'alarm', p: {} },
  screens: { alarm: alarmTab, clock: clockTab, timer: timerTab, stopwatch: stopwatchTab,
    bedtime: alarmTab,  // neither flavor has a Bedtime tab (Google Clock's; DC bottom_navigation_menu.xml has four)
    main: alarmTab, edit, cities: citiesScreen, settings: settingsScreen },
  dialogs,
  onBack: (r) => {
    if (r.s === 'cities' && r.p.searching) { r.p.searching = false; ui().fields.city_search = ''; return true; }
    return false;
  },
  activity: (r) => ({
    edit: `${PKG}/.alarms.AlarmEditActivity`,
    cities: `${PKG}/.worldclock.CitySelectionActivity`,
    settings: `${PKG}/.settings.SettingsActivity`,
  }[r.s] || `${PKG}/.DeskClock`),
});
