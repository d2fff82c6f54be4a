// Clock (com.android.deskclock): alarms, world clock, timers, stopwatch.
//
// Flavor `sim` is our own structure: top tabs, a full-screen "Add alarm"/"Edit alarm" form
// with Save/Cancel and a delete confirmation, "Weekdays"/"Weekends" summaries, Monday-first
// day chips, cities removed by long press, Start/Stop/Lap/Reset text buttons on the stopwatch.
// Flavor `aosp` follows the stock (AOSP/Pixel) DeskClock: bottom navigation with a Bedtime
// tab, alarms edited inline in an expandable card (label dialog, day buttons, "Delete"
// without confirmation), the "Cities" picker with check boxes, a play/pause FAB.
//
// World data: world().alarms / .timers / .stopwatch / .world_clocks, shaped exactly like the
// Python WorldState. Sim time (world().time) is the phone's local time; world-clock times
// come from a fixed UTC-offset table (no daylight saving), treating local time as UTC.
import { html, registerApp, Screen, Switch, SwitchRow, Checkbox, Button, Field, Tabs, BottomNav,
  Dialog, TimePickerBody, readTime, Text, Section, Empty, A, world, ui, go, replace, back, t, flavor, update,
  toast, now, fmtTime, pad2, nextId } from '../os.js';

const PKG = 'com.android.deskclock';
const DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];
const DAY_SHORT = { mon: 'Mon', tue: 'Tue', wed: 'Wed', thu: 'Thu', fri: 'Fri', sat: 'Sat', sun: 'Sun' };
const DAY_LONG = { mon: 'Monday', tue: 'Tuesday', wed: 'Wednesday', thu: 'Thursday', fri: 'Friday', sat: 'Saturday', sun: 'Sunday' };
const DAY_LETTER = { mon: 'M', tue: 'T', wed: 'W', thu: 'T', fri: 'F', sat: 'S', sun: 'S' };
// Monday first in our flavor; a US-locale Pixel starts the week on Sunday.
const dayOrder = () => (flavor() === 'aosp' ? ['sun', ...DAYS.slice(0, 6)] : DAYS);

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
const CITY_NAMES = Object.keys(CITIES).sort((a, b) => a.localeCompare(b, 'en'));

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
function press(onClick, onLong) {
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
const closeKb = () => { const u = ui(); u.focus = null; u.keyboard = false; };
const closeDialog = () => { ui().dialog = null; closeKb(); };

// ------------------------------------------------------------------------------------------
// world data access (lists may be absent in a patched world: create them on first write)
const alarms = () => world().alarms || [];
const alarmList = () => { if (!world().alarms) world().alarms = []; return world().alarms; };
const alarmById = (id) => alarms().find((a) => a.id === id);
const timers = () => world().timers || [];
const timerList = () => { if (!world().timers) world().timers = []; return world().timers; };
const stopwatch = () => {
  if (!world().stopwatch) world().stopwatch = { elapsed_ms: 0, running: false, laps: [] };
  return world().stopwatch;
};
const cities = () => world().world_clocks || [];
const cityList = () => { if (!world().world_clocks) world().world_clocks = []; return world().world_clocks; };
const h24 = () => world().settings.time_24h !== false;
const fmt = (h, m) => fmtTime(h, m);
const sortDays = (days) => DAYS.filter((d) => days.includes(d));

// ------------------------------------------------------------------------------------------
// alarm scheduling (local time = sim clock)
function nowParts() {
  const d = now();
  return { dayIdx: (d.getUTCDay() + 6) % 7, sec: d.getUTCHours() * 3600 + d.getUTCMinutes() * 60 + d.getUTCSeconds() };
}
/** Seconds until the alarm next rings and the day it rings on (index into DAYS). */
function nextRing(a) {
  const { dayIdx, sec } = nowParts();
  const at = a.hour * 3600 + a.minute * 60;
  for (let off = 0; off <= 7; off++) {
    const idx = (dayIdx + off) % 7;
    if (off === 0 && at <= sec) continue;
    if (!a.days.length || a.days.includes(DAYS[idx])) return { inSec: off * 86400 + at - sec, dayIdx: idx, off };
  }
  return { inSec: 7 * 86400, dayIdx, off: 7 };
}
function nextAlarm() {
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
  if (flavor() !== 'aosp') {
    const parts = [];
    if (d) parts.push(`${d} d`);
    if (h) parts.push(`${h} h`);
    if (m || !parts.length) parts.push(`${m} min`);
    return parts.join(' ');
  }
  const parts = [];
  if (d) parts.push(`${d} ${d === 1 ? 'day' : 'days'}`);
  if (h) parts.push(`${h} ${h === 1 ? 'hour' : 'hours'}`);
  if (m) parts.push(`${m} ${m === 1 ? 'minute' : 'minutes'}`);
  if (!parts.length) return 'less than 1 minute';
  return parts.length > 1 ? `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}` : parts[0];
}
const alarmSetToast = (a) => toast(`Alarm set for ${untilText(nextRing(a).inSec)} from now`);

function daysSummary(a) {
  const days = sortDays(a.days);
  if (days.length === 7) return 'Every day';
  if (!days.length) {
    if (flavor() !== 'aosp') return a.enabled ? (nextRing(a).off === 0 ? 'Today' : 'Tomorrow') : 'Once';
    return a.enabled ? (nextRing(a).off === 0 ? 'Today' : 'Tomorrow') : 'Not scheduled';
  }
  if (flavor() !== 'aosp') {
    if (days.join() === 'mon,tue,wed,thu,fri') return 'Weekdays';
    if (days.join() === 'sat,sun') return 'Weekends';
  }
  return dayOrder().filter((d) => days.includes(d)).map((d) => DAY_SHORT[d]).join(', ');
}
const sortedAlarms = () => alarms().map((a, i) => [a, i])
  .sort((x, y) => (x[0].hour * 60 + x[0].minute) - (y[0].hour * 60 + y[0].minute) || x[1] - y[1]).map(([a]) => a);
const switchDesc = (a) => `${fmt(a.hour, a.minute)}${a.label ? ' ' + a.label : ''} alarm`;

function setEnabled(a, on) {
  a.enabled = on;
  if (on) alarmSetToast(a);
}

// ------------------------------------------------------------------------------------------
// shared chrome: tabs (sim: top tabs; aosp: bottom navigation with Bedtime)
const TABS = () => [
  { id: 'alarm', label: 'Alarm', icon: '⏰' },
  { id: 'clock', label: 'Clock', icon: '🕒' },
  { id: 'timer', label: 'Timer', icon: '⏳' },
  { id: 'stopwatch', label: 'Stopwatch', icon: '⏱' },
  ...(flavor() === 'aosp' ? [{ id: 'bedtime', label: 'Bedtime', icon: '🛏' }] : []),
];
function tabScreen(tab, { body, fab, title }) {
  const onSelect = (id) => { if (id !== tab) { replace(id, {}); } };
  const menu = { icon: '⋮', desc: 'More options', id: 'overflow', onClick: () => { ui().dialog = { kind: 'menu' }; } };
  const label = TABS().find((x) => x.id === tab)?.label || 'Clock';
  if (flavor() === 'aosp') {
    // the FAB sits centred above the bottom navigation, as in the stock app
    const fabEl = fab ? html`<div class="fab" style="left:50%;right:auto;transform:translateX(-50%);bottom:calc(100% + 12px)"
        ...${A('android.widget.ImageButton', { desc: fab.desc, id: fab.id || 'fab', click: true, text: '' })}
        ...${press(fab.onClick)}>${fab.icon || '+'}</div>` : null;
    return Screen({ title: title || label, up: false, actions: [menu], body,
      bottom: html`<div style="position:relative;flex:0 0 auto">${fabEl}${BottomNav({ items: TABS(), active: tab, onSelect })}</div>` });
  }
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

// the expanded card lives in ui state, not in the route: the list keeps its scroll offset
function alarmCardAosp(a) {
  const time = fmt(a.hour, a.minute);
  const open = ui().clockExpanded === a.id;
  const toggle = () => { ui().clockExpanded = open ? null : a.id; };
  return html`<div class=${'ck-card' + (a.enabled ? '' : ' off')} ...${A('android.widget.FrameLayout', { id: 'alarm_item' })}>
    <div ...${A('android.widget.LinearLayout', { id: 'collapse_expand', click: true })} ...${press(toggle)}>
      ${a.label ? html`<span class="ck-lab" ...${A('android.widget.TextView', { id: 'label', text: a.label })}>${a.label}</span>` : null}
      <div class="ck-head">
        <div class="ck-head-text">
          <span class="ck-time" ...${A('android.widget.TextView', { id: 'digital_clock', text: time, click: true })}
            ...${press(() => openTimePicker('edit', a.hour, a.minute, { id: a.id }))}>${time}</span>
        </div>
        ${Switch({ checked: a.enabled, id: 'onoff', desc: switchDesc(a), onChange: (v) => setEnabled(a, v) })}
      </div>
      <div class="ck-head">
        <span class="ck-days" style="flex:1" ...${A('android.widget.TextView', { id: 'days_of_week', text: daysSummary(a) })}>${daysSummary(a)}</span>
        <div class="ck-arrow" ...${A('android.widget.ImageButton', { id: 'arrow', desc: open ? 'Collapse alarm' : 'Expand alarm', click: true, text: '' })}
          ...${press(toggle)}>${open ? '⌃' : '⌄'}</div>
      </div>
    </div>
    ${open ? html`<div ...${A('android.widget.LinearLayout', { id: 'expanded_area' })}>
      ${dayChips(a.days, (d) => { a.days = a.days.includes(d) ? a.days.filter((x) => x !== d) : sortDays([...a.days, d]); })}
      <div class="ck-line" ...${A('android.widget.TextView', { id: 'edit_label', text: a.label || 'Add label', click: true })}
        ...${press(() => { ui().fields.alarm_label = a.label; ui().dialog = { kind: 'alarm_label', id: a.id }; ui().focus = 'alarm_label'; ui().keyboard = true; })}>🏷 ${a.label || 'Add label'}</div>
      <div class="ck-line" ...${A('android.widget.TextView', { id: 'choose_ringtone', text: 'Default (Cesium)', click: true })}
        ...${press(() => toast('Alarm sound: Cesium'))}>🔔 Default (Cesium)</div>
      ${Checkbox({ label: 'Vibrate', checked: a.vibrate !== false, id: 'vibrate_onoff', onChange: (v) => { a.vibrate = v; } })}
      <div class="ck-line">${Button({ label: 'Delete', id: 'delete', onClick: () => {
        world().alarms = alarms().filter((x) => x.id !== a.id); ui().clockExpanded = null; toast('Alarm deleted');
      } })}</div>
    </div>` : null}
  </div>`;
}

function alarmTab(p) {
  const list = sortedAlarms();
  const sim = flavor() !== 'aosp';
  const next = nextAlarm();
  const fab = { desc: 'Add alarm', id: 'fab', icon: '+', onClick: () => {
    const d = now();
    if (sim) {
      ui().fields.alarm_label = '';
      go('edit', { id: null, hour: d.getUTCHours(), minute: d.getUTCMinutes(), days: [], vibrate: true });
    }
    openTimePicker(sim ? 'draft' : 'new', d.getUTCHours(), d.getUTCMinutes());
  } };
  const header = sim ? html`<div class="ck-header" ...${A('android.widget.TextView', { id: 'next_alarm_header',
    text: next ? `Next alarm in ${untilText(next.r.inSec)}` : 'All alarms are off' })}>${next ? `Next alarm in ${untilText(next.r.inSec)}` : 'All alarms are off'}</div>` : null;
  const body = html`${header}${list.length ? list.map((a) => (sim ? alarmCardSim(a) : alarmCardAosp(a)))
    : Empty(t('No alarms', 'No alarms'))}`;
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
function stripMarks(s) { return String(s).normalize('NFD').replace(/[\u0300-\u036f]/g, '').toLowerCase(); }
function cityTime(city) {
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
  if (flavor() !== 'aosp') {
    return `${day}, ${o === 0 ? 'same time' : `${o > 0 ? '+' : '−'}${ah}${am ? ':' + pad2(am) : ''} h`}`;
  }
  if (o === 0) return `${day}, same time`;
  const span = am ? `${ah} hr ${am} min` : `${ah} hr`;
  return `${day}, ${span} ${o > 0 ? 'ahead' : 'behind'}`;
}
function cityRow(city) {
  const ct = cityTime(city);
  const sim = flavor() !== 'aosp';
  const sub = ct ? diffText(ct) : 'Unknown time zone';
  const time = ct ? ct.time : '--:--';
  return html`<div class="ck-city" ...${A('android.widget.LinearLayout', { id: 'world_clock_item', long: sim, click: false })}
      ...${sim ? press(null, () => { ui().dialog = { kind: 'city_remove', city }; }) : {}}>
    <div class="ck-city-text">
      <span class="ck-city-name" ...${A('android.widget.TextView', { id: 'city_name', text: city })}>${city}</span>
      <span class="ck-city-diff" ...${A('android.widget.TextView', { id: 'hours_ahead', text: sub })}>${sub}</span>
    </div>
    <span class="ck-city-time" ...${A('android.widget.TextView', { id: 'digital_clock', text: time, desc: `${city} ${time}` })}>${time}</span>
  </div>`;
}
function clockTab() {
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
      : html`<div class="ck-sub" style="padding:32px" ...${A('android.widget.TextView', { id: 'empty', text: t('No cities added', 'No cities') })}>${t('No cities added', 'No cities')}</div>`}
  `;
  const fab = { desc: t('Add city', 'Cities'), id: 'fab', icon: '🌐', onClick: () => { ui().fields.city_search = ''; go('cities', {}); } };
  return tabScreen('clock', { body, fab });
}

function citiesScreen(p) {
  const sim = flavor() !== 'aosp';
  const q = stripMarks(String(ui().fields.city_search ?? '').trim());
  const hits = CITY_NAMES.filter((c) => !q || stripMarks(c).includes(q) || stripMarks(CITIES[c][0]).includes(q));
  const chosen = cities();
  const searchField = html`<div style="flex:1">${Field({ field: 'city_search', hint: t('Search city or country', 'Search'), id: 'search_src_text' })}</div>`;
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
  const aospRow = (c) => {
    const on = chosen.includes(c);
    const ct = cityTime(c);
    return html`<div class="ck-cb" ...${A('android.widget.CheckBox', { id: 'city_onoff', text: c, click: true, checkable: true, checked: on })}
        ...${press(() => { if (on) world().world_clocks = chosen.filter((x) => x !== c); else cityList().push(c); })}>
      <span class=${'box' + (on ? ' on' : '')}>${on ? '✓' : ''}</span>
      <div class="ck-city-text">
        <span class="ck-city-name" ...${A('android.widget.TextView', { id: 'city_name', text: c })}>${c}</span>
        <span class="ck-city-diff" ...${A('android.widget.TextView', { id: 'city_country', text: CITIES[c][0] })}>${CITIES[c][0]}</span>
      </div>
      <span class="ck-city-diff" ...${A('android.widget.TextView', { id: 'city_time', text: ct.time })}>${ct.time}</span>
    </div>`;
  };
  if (sim) {
    return Screen({ title: 'Add city', search: searchField, body: hits.length ? hits.map(simRow) : Empty('No results') });
  }
  const selected = CITY_NAMES.filter((c) => chosen.includes(c) && hits.includes(c));
  const body = hits.length ? html`
    ${!q && selected.length ? html`${Section('Selected cities')}${selected.map(aospRow)}${Section('All cities')}` : null}
    ${hits.map(aospRow)}` : Empty('No matching cities');
  if (p.searching) return Screen({ title: 'Cities', search: searchField, body });
  return Screen({ title: 'Cities', body, actions: [{ icon: '🔍', desc: 'Search', id: 'menu_item_search', onClick: () => {
    p.searching = true; ui().fields.city_search = ''; ui().focus = 'city_search'; ui().keyboard = true;
  } }] });
}

// ------------------------------------------------------------------------------------------
// Timer tab
function fmtDur(sec) {
  const h = Math.floor(sec / 3600), m = Math.floor((sec % 3600) / 60), s = sec % 60;
  if (flavor() !== 'aosp') return `${pad2(h)}:${pad2(m)}:${pad2(s)}`;
  return h ? `${h}:${pad2(m)}:${pad2(s)}` : `${m}:${pad2(s)}`;
}
function fmtTotal(sec) {
  const h = Math.floor(sec / 3600), m = Math.floor((sec % 3600) / 60), s = sec % 60;
  return [h ? `${h}h` : '', m ? `${m}m` : '', s || (!h && !m) ? `${s}s` : ''].filter(Boolean).join(' ');
}
function setupDigits() { return String(ui().fields.timer_digits ?? '').replace(/\D/g, '').slice(-6); }
function digitsToHms(dg) {
  const s6 = dg.padStart(6, '0');
  return [parseInt(s6.slice(0, 2), 10), parseInt(s6.slice(2, 4), 10), parseInt(s6.slice(4, 6), 10)];
}
function timerSetup(p) {
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
  const hasTimers = timers().length > 0;
  const body = html`
    <div class=${'ck-setup' + (dg ? ' set' : '')} ...${A('android.widget.TextView', { id: 'timer_setup_time', text: disp, desc })}>${disp}</div>
    ${flavor() !== 'aosp' ? html`<div class="ck-presets">${[[1, '01:00'], [5, '05:00'], [10, '10:00'], [15, '15:00']].map(([mins, lab]) =>
      Button({ label: lab, kind: 'tonal', id: 'preset', desc: `Preset ${mins} minutes`, onClick: () => { ui().fields.timer_digits = `${mins}00`; } }))}</div>` : null}
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
  const labelText = tm.label || t('Label', 'Add label');
  const stateBtn = done ? null : tm.running
    ? Button({ label: 'Pause', id: 'timer_pause', kind: 'filled', onClick: () => { tm.running = false; } })
    : Button({ label: fresh ? 'Start' : 'Resume', id: 'timer_resume', kind: 'filled', onClick: () => { tm.running = true; } });
  return html`<div class="ck-timer" ...${A('android.widget.LinearLayout', { id: 'timer_item' })}>
    <span class="ck-lab" style="text-align:center" ...${A('android.widget.TextView', { id: 'timer_label', text: labelText, click: true })}
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
  if (!timers().length || p.setup) return timerSetup(p);
  const body = html`${timers().map(timerCard)}`;
  return tabScreen('timer', { body, fab: { desc: 'Add timer', id: 'fab', icon: '+', onClick: () => { ui().fields.timer_digits = ''; replace('timer', { setup: true }); } } });
}

// ------------------------------------------------------------------------------------------
// Stopwatch tab (elapsed time advances only with the sim clock: S2R.tick)
function fmtSw(ms) {
  const cs = Math.floor(ms / 10) % 100, tot = Math.floor(ms / 1000);
  const h = Math.floor(tot / 3600), m = Math.floor((tot % 3600) / 60), s = tot % 60;
  return `${h ? h + ':' : ''}${pad2(m)}:${pad2(s)}.${pad2(cs)}`;
}
function stopwatchTab() {
  const sw = stopwatch();
  const sim = flavor() !== 'aosp';
  const start = () => { sw.running = true; };
  const pause = () => { sw.running = false; };
  const lap = () => { if (sw.laps.length < 99) sw.laps.push(sw.elapsed_ms); else toast('Maximum number of laps reached'); };
  const reset = () => { sw.running = false; sw.elapsed_ms = 0; sw.laps = []; };
  const laps = sw.laps.map((tot, i) => ({ n: i + 1, tot, lap: tot - (i ? sw.laps[i - 1] : 0) })).reverse();
  const btns = sim
    ? (sw.running ? [Button({ label: 'Lap', id: 'lap', kind: 'tonal', onClick: lap }), Button({ label: 'Stop', id: 'stop', kind: 'filled', onClick: pause })]
      : sw.elapsed_ms > 0 ? [Button({ label: 'Reset', id: 'reset', kind: 'tonal', onClick: reset }), Button({ label: 'Resume', id: 'resume', kind: 'filled', onClick: start })]
        : [Button({ label: 'Start', id: 'start', kind: 'filled', onClick: start })])
    : [sw.running ? Button({ label: 'Lap', id: 'right_button', onClick: lap }) : null,
      !sw.running && sw.elapsed_ms > 0 ? Button({ label: 'Reset', id: 'left_button', onClick: reset }) : null];
  const body = html`
    <div class="ck-sw" ...${A('android.widget.TextView', { id: 'stopwatch_time_text', text: fmtSw(sw.elapsed_ms) })}>${fmtSw(sw.elapsed_ms)}</div>
    <div class="ck-btns">${btns}</div>
    ${laps.map((l) => html`<div class="ck-lap" ...${A('android.widget.LinearLayout', { id: 'lap_item' })}>
      <span ...${A('android.widget.TextView', { id: 'lap_number', text: sim ? `Lap ${l.n}` : `# ${l.n}` })}>${sim ? `Lap ${l.n}` : `# ${l.n}`}</span>
      <span ...${A('android.widget.TextView', { id: 'lap_time', text: fmtSw(l.lap) })}>${fmtSw(l.lap)}</span>
      <span ...${A('android.widget.TextView', { id: 'lap_total', text: fmtSw(l.tot) })}>${fmtSw(l.tot)}</span>
    </div>`)}
  `;
  const fab = sim ? null : { desc: sw.running ? 'Pause' : 'Start', id: 'fab', icon: sw.running ? '⏸' : '▶', onClick: sw.running ? pause : start };
  return tabScreen('stopwatch', { body, fab });
}

// aosp: Bedtime is a stub tab, as on Pixel (it needs Digital Wellbeing to do anything)
function bedtimeTab() {
  const body = html`
    <div class="ck-big" style="font-size:48px">🌙</div>
    <div class="ck-sub" ...${A('android.widget.TextView', { id: 'bedtime_title', text: 'Set a regular bedtime' })}>Set a regular bedtime</div>
    <div class="ck-sub" ...${A('android.widget.TextView', { id: 'bedtime_text', text: 'Wind down with a consistent sleep schedule and a gentle wake-up alarm' })}>Wind down with a consistent sleep schedule and a gentle wake-up alarm</div>
    <div class="ck-btns">${Button({ label: 'Get started', id: 'bedtime_get_started', kind: 'filled', onClick: () => toast('Bedtime is not set up on this phone') })}</div>
  `;
  return tabScreen('bedtime', { body });
}

// Settings (overflow menu): preferences that no task checks, for realism
function settingsScreen() {
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
    return Dialog({ title: t('Set time', 'Enter time'), body: html`
      ${TimePickerBody({ hField: 'alarm_h', mField: 'alarm_m', ampmField: h24() ? undefined : 'alarm_ampm' })}
      ${d.error ? html`<span class="ck-err" ...${A('android.widget.TextView', { id: 'error', text: d.error })}>${d.error}</span>` : null}`,
    buttons: [{ label: 'Cancel', onClick: closeDialog }, { label: 'OK', onClick: ok }] });
  },
  alarm_label: (d) => Dialog({ title: 'Label', body: Field({ field: 'alarm_label', hint: 'Label', id: 'label_input' }), buttons: [
    { label: 'Cancel', onClick: closeDialog },
    { label: 'OK', onClick: () => {
      const a = alarmById(d.id);
      if (a) a.label = String(ui().fields.alarm_label ?? '').trim();
      closeDialog();
    } }] }),
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
  timer_label: (d) => Dialog({ title: 'Label', body: Field({ field: 'timer_label', hint: 'Label', id: 'label_input' }), buttons: [
    { label: 'Cancel', onClick: closeDialog },
    { label: 'OK', onClick: () => {
      const tm = timers()[d.index];
      if (tm) tm.label = String(ui().fields.timer_label ?? '').trim();
      closeDialog();
    } }] }),
  menu: () => {
    const items = flavor() === 'aosp' ? ['Screen saver', 'Settings', 'Send feedback', 'Help'] : ['Settings', 'Contact us'];
    return Dialog({ title: null, body: html`<div class="ck-menu">${items.map((it) => html`<div class="ck-line" style="padding:12px 8px"
        ...${A('android.widget.TextView', { id: 'title', text: it, click: true })}
        ...${press(() => { ui().dialog = null; if (it === 'Settings') go('settings', {}); else toast(it); })}>${it}</div>`)}</div>` });
  },
};

registerApp({
  id: 'clock', label: 'Clock', pkg: PKG, icon: '⏰', color: '#1a73e8',
  root: { s: 'alarm', p: {} },
  screens: { alarm: alarmTab, clock: clockTab, timer: timerTab, stopwatch: stopwatchTab,
    bedtime: (p) => (flavor() === 'aosp' ? bedtimeTab() : alarmTab(p)),  // sim has no Bedtime tab
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
