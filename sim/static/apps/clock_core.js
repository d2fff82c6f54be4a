// Clock, shared by every flavor: the world model and its state helpers — days and cities, the
// alarms/timers/stopwatch/world-clock lists of world(), when an alarm next rings and the toast that
// says so, world-clock times, the timer-setup keypad's state, duration formats — and the press/
// close helpers every flavor's widgets use. No screen lives here: the `sim` flavor's screens are in
// clock.js, AOSP DeskClock's in clock_aosp.js (its widgets and dialogs in clock_aosp_kit.js), Google
// Clock's in google/clock.js; what more than one flavor draws alike in clock_parts.js.
//
// Why one module: the world model is the same in every flavor (a phone's alarms and timers), so an
// alarm set through any flavor's screens must be the same record; only the screens differ.
import { world, ui, replace, flavor, stock, update, toast, now, fmtTime, pad2 } from '../os.js';

export const PKG = 'com.android.deskclock';
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
export function untilText(inSec) {
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

export function daysSummary(a) {  // sim
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

// world-clock times (CITIES' fixed offsets from the sim clock) and the city search's folding
export function stripMarks(s) { return String(s).normalize('NFD').replace(/[\u0300-\u036f]/g, '').toLowerCase(); }
export function cityTime(city) {
  const c = CITIES[city];
  if (!c) return null;
  const d = new Date(now().getTime() + c[1] * 60000);
  const dayDiff = Math.round((Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate())
    - Date.UTC(now().getUTCFullYear(), now().getUTCMonth(), now().getUTCDate())) / 86400000);
  return { time: fmt(d.getUTCHours(), d.getUTCMinutes()), offset: c[1], dayDiff };
}

// the alarm time dialog: the framework TimePickerDialog in clock mode (aosp, timePickerAosp), else
// our keyboard-input picker whose fields start at the given time
export function openTimePicker(mode, hour, minute, extra = {}) {
  if (flavor() === 'aosp') {  // the framework TimePickerDialog opens in clock mode (timePickerAosp)
    ui().dialog = { kind: 'alarm_time', mode, hour, minute, input: false, showing: 'hours', ...extra };
    return;
  }
  const f = ui().fields;
  if (h24()) { f.alarm_h = pad2(hour); } else { f.alarm_h = String(hour % 12 === 0 ? 12 : hour % 12); f.alarm_ampm = hour < 12 ? 'AM' : 'PM'; }
  f.alarm_m = pad2(minute);
  ui().dialog = { kind: 'alarm_time', mode, ...extra };
}

// ------------------------------------------------------------------------------------------
// timer durations and the timer-setup keypad
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
// the stopwatch's time text (elapsed time advances only with the sim clock: S2R.tick)
export function fmtSw(ms) {
  const cs = Math.floor(ms / 10) % 100, tot = Math.floor(ms / 1000);
  const h = Math.floor(tot / 3600), m = Math.floor((tot % 3600) / 60), s = tot % 60;
  return `${h ? h + ':' : ''}${pad2(m)}:${pad2(s)}.${pad2(cs)}`;
}
