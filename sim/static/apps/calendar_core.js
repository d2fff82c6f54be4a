// Calendar, shared by every flavor: dates, the events of the world, the create/edit form's values
// (ui().fields) and the helpers that save or delete an event. No screen lives here: the `sim`
// flavor's screens are in calendar.js, AOSP's (Etar) in calendar_aosp.js, Google Calendar's in
// google/calendar.js; the framework and AppCompat widgets they share in calendar_fw.js.
//
// Why one module: the world model is the same in every flavor (a phone's calendar provider), so
// an event saved through any flavor's editor must be the same record; only the screens differ.
import { html, world, ui, toast, nextId, nowIso, fmtTime, pad2 } from '../os.js';

export const PKG = 'com.android.calendar';
export const KB_H = 215; // soft keyboard height: screens and dialogs resize above it

// ------------------------------------------------------------------------------------------
// dates as YYYY-MM-DD strings; arithmetic in UTC so there are no time-zone surprises
export const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
export const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
export const D = (s) => new Date(String(s).slice(0, 10) + 'T00:00:00Z');
export const ds = (d) => d.toISOString().slice(0, 10);
export const validDate = (s) => /^\d{4}-\d{2}-\d{2}$/.test(String(s || '')) && !Number.isNaN(D(s).getTime()) && ds(D(s)) === s;
export function addDays(s, n) { const d = D(s); d.setUTCDate(d.getUTCDate() + n); return ds(d); }
export function addMonths(s, n) {
  const [y, m, dd] = s.split('-').map(Number);
  const first = new Date(Date.UTC(y, m - 1 + n, 1));
  const last = new Date(Date.UTC(first.getUTCFullYear(), first.getUTCMonth() + 1, 0)).getUTCDate();
  first.setUTCDate(Math.min(dd, last));
  return ds(first);
}
export const today = () => nowIso().slice(0, 10);
export const dow = (s) => D(s).getUTCDay();
export const dayNum = (s) => D(s).getUTCDate();
export const monthName = (s) => MONTHS[D(s).getUTCMonth()];
/** 'Thursday, March 18, 2027' */
export const longDate = (s) => `${DAYS[dow(s)]}, ${monthName(s)} ${dayNum(s)}, ${s.slice(0, 4)}`;
/** 'Thu, Mar 18, 2027' (DateUtils SHOW_WEEKDAY|SHOW_DATE|SHOW_YEAR|ABBREV_ALL) */
export const shortDate = (s) => `${DAYS[dow(s)].slice(0, 3)}, ${monthName(s).slice(0, 3)} ${dayNum(s)}, ${s.slice(0, 4)}`;
/** 'March 2027' */
export const monthTitle = (s) => `${monthName(s)} ${s.slice(0, 4)}`;
/** DateUtils FORMAT_SHOW_DATE: 'March 18', with the year only when it is not this year's. */
export const monthDay = (s) => `${monthName(s)} ${dayNum(s)}${s.slice(0, 4) === today().slice(0, 4) ? '' : `, ${s.slice(0, 4)}`}`;
export const hm = (iso) => String(iso || '').slice(11, 16) || '00:00';
export const h24 = () => world().settings.time_24h !== false;
export const tfmt = (hhmm) => { const [h, m] = hhmm.split(':').map(Number); return fmtTime(h, m); };
export const mins = (date, hhmm) => { const [h, m] = hhmm.split(':').map(Number); return Math.round(D(date).getTime() / 60000) + h * 60 + m; };
export const fromMins = (n) => { const d = new Date(n * 60000); return [ds(d), `${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}`]; };
/**
 * A time range as DateUtils.formatDateRange prints it: '10:00 – 11:00' in 24-hour mode,
 * '10:00 – 11:00 AM' when both ends share the meridiem, else '11:00 AM – 1:00 PM'.
 */
export function rangeText(a, b) {
  if (!b || a === b) return tfmt(a);
  if (h24()) return `${tfmt(a)} – ${tfmt(b)}`;
  const pa = Number(a.slice(0, 2)) < 12, pb = Number(b.slice(0, 2)) < 12;
  return pa === pb ? `${tfmt(a).replace(/ [AP]M$/, '')} – ${tfmt(b)}` : `${tfmt(a)} – ${tfmt(b)}`;
}

// ------------------------------------------------------------------------------------------
// events
export const evs = () => world().events || []; // read-only view: a missing list stays unknown until written
export const byId = (id) => evs().find((e) => e.id === id) || null;
/** First and last day (inclusive) an event covers; all-day ends are exclusive midnights as on Android. */
export function span(e) {
  const sd = e.start.slice(0, 10);
  let last = sd;
  if (e.end) {
    const ed = e.end.slice(0, 10);
    const midnight = e.end.slice(11, 19) === '00:00:00' || e.end.length <= 10;
    last = (e.all_day || midnight) && ed > sd ? addDays(ed, -1) : ed;
  }
  return [sd, last < sd ? sd : last];
}
/** The events a day shows: all-day first, then by start time and title. */
export function eventsOn(date) {
  return evs().filter((e) => { const [a, b] = span(e); return a <= date && date <= b; })
    .sort((x, y) => (y.all_day - x.all_day) || x.start.localeCompare(y.start) || x.title.localeCompare(y.title));
}
/** Every event in date order (an agenda, search results). */
export const byStart = (list) => [...list].sort((a, b) => a.start.localeCompare(b.start) || a.title.localeCompare(b.title));
/** The `sim` flavor's time line: 'All day', '10:00' or '10:00 – 11:00' (each end in the phone's format). */
export function timeRange(e) {
  if (e.all_day) return 'All day';
  const s = tfmt(hm(e.start));
  return e.end ? `${s} – ${tfmt(hm(e.end))}` : s;
}
export function whenLines(e) {
  const [sd, last] = span(e);
  if (e.all_day) return [sd === last ? longDate(sd) : `${shortDate(sd)} – ${shortDate(last)}`, 'All day'];
  const ed = e.end ? e.end.slice(0, 10) : sd;
  if (ed === sd) return [longDate(sd), timeRange(e)];
  return [`${shortDate(sd)}, ${tfmt(hm(e.start))} –`, `${shortDate(ed)}, ${tfmt(hm(e.end))}`];
}
/** Days (with their events) from a list, in order; a multi-day event is listed on its first day. */
export function groupByDay(list, from = null) {
  const out = [];
  for (const e of byStart(list)) {
    let d = e.start.slice(0, 10);
    if (from && d < from && span(e)[1] >= from) d = from;
    const g = out.length && out[out.length - 1].date === d ? out[out.length - 1] : null;
    if (g) g.events.push(e); else out.push({ date: d, events: [e] });
  }
  out.sort((a, b) => a.date.localeCompare(b.date));
  for (const g of out) g.events.sort((x, y) => (y.all_day - x.all_day) || x.start.localeCompare(y.start) || x.title.localeCompare(y.title));
  return out;
}

// ------------------------------------------------------------------------------------------
// the create / edit form: its values live in ui().fields so a restored phone keeps them
export const FORM_KEYS = ['ev_title', 'ev_loc', 'ev_desc', 'ev_allday', 'ev_sd', 'ev_st', 'ev_ed', 'ev_et'];
export function initForm(e, baseDate) {
  const f = ui().fields;
  if (e) {
    const [sd, last] = span(e);
    f.ev_title = e.title; f.ev_loc = e.location || ''; f.ev_desc = e.description || ''; f.ev_allday = !!e.all_day;
    f.ev_sd = sd; f.ev_st = e.all_day ? '09:00' : hm(e.start);
    if (e.all_day) { f.ev_ed = last; f.ev_et = '10:00'; }
    else if (e.end) { f.ev_ed = e.end.slice(0, 10); f.ev_et = hm(e.end); }
    else { [f.ev_ed, f.ev_et] = fromMins(mins(sd, hm(e.start)) + 60); }
  } else {
    const d = validDate(baseDate) ? baseDate : today();
    const start = d === today() ? Math.ceil((mins(d, hm(nowIso())) + 1) / 60) * 60 : mins(d, '09:00');
    const [sd, st] = fromMins(start);
    const [ed, et] = fromMins(start + 60);
    Object.assign(f, { ev_title: '', ev_loc: '', ev_desc: '', ev_allday: false, ev_sd: sd, ev_st: st, ev_ed: ed, ev_et: et });
  }
  f.ev_init = JSON.stringify(FORM_KEYS.map((k) => f[k]));
}
/** A form opened without its values (a deep link, a restored phone): fill them in first. */
export function ensureForm(id) {
  const f = ui().fields;
  if (!validDate(f.ev_sd) || !validDate(f.ev_ed) || !/^\d\d:\d\d$/.test(f.ev_st || '') || !/^\d\d:\d\d$/.test(f.ev_et || '')) initForm(id ? byId(id) : null);
  return f;
}
export const dirty = () => { const f = ui().fields; return f.ev_init !== JSON.stringify(FORM_KEYS.map((k) => f[k])); };
/** Only the start and end moved since the form opened (Etar's isEmptyNewEvent looks at those). */
export const timesChanged = () => { const f = ui().fields; const i = JSON.parse(f.ev_init || '[]'); return ['ev_allday', 'ev_sd', 'ev_st', 'ev_ed', 'ev_et'].some((k) => f[k] !== i[FORM_KEYS.indexOf(k)]); };
export const endsBeforeStart = (f) => (f.ev_allday ? f.ev_ed < f.ev_sd : mins(f.ev_ed, f.ev_et) < mins(f.ev_sd, f.ev_st));
/** The record the form describes (all-day ends are the next midnight, as Android stores them). */
export function formRecord() {
  const f = ui().fields;
  const allDay = !!f.ev_allday;
  return {
    title: String(f.ev_title || '').trim(),
    start: allDay ? `${f.ev_sd}T00:00:00` : `${f.ev_sd}T${f.ev_st}:00`,
    end: allDay ? `${addDays(f.ev_ed, 1)}T00:00:00` : `${f.ev_ed}T${f.ev_et}:00`,
    all_day: allDay, location: String(f.ev_loc || '').trim(), description: String(f.ev_desc || '').trim(),
  };
}
/** Write the form's record: update event `id`, or add a new one. Returns [event, isNew]. */
export function writeForm(id) {
  const rec = formRecord();
  const old = id ? byId(id) : null;
  let ev = old;
  if (old) Object.assign(old, rec);
  else { ev = { id: nextId('e'), ...rec, tag: null }; world().events = [...evs(), ev]; }
  world().events.sort((a, b) => a.start.localeCompare(b.start));
  return [ev, !old];
}
/** Apply a picked start or end; moving the start keeps the event's duration (as Android does). */
export function applyPick(which, date, time) {
  const f = ui().fields;
  if (which === 'start') {
    const delta = f.ev_allday ? (D(date) - D(f.ev_sd)) / 60000 : mins(date, time) - mins(f.ev_sd, f.ev_st);
    const endMins = mins(f.ev_ed, f.ev_et) + delta;
    f.ev_sd = date; f.ev_st = time;
    [f.ev_ed, f.ev_et] = fromMins(endMins);
  } else {
    f.ev_ed = date; f.ev_et = time;
  }
}
export function deleteEvent(id) { world().events = evs().filter((e) => e.id !== id); }
export function duplicateEvent(id) {
  const e = byId(id);
  if (!e) return null;
  const c = { ...e, id: nextId('e'), tag: null };
  world().events = [...evs(), c];
  return c;
}
/** Pop the top screen of the calendar's task (the editor), closing any dialog and the keyboard. */
export function popScreen() { const s = ui().tasks.calendar; if (s && s.length > 1) s.pop(); closeDialog(); }
/** The main view under the editor: after a save it shows the event's day (as the apps do). */
export function showDayBelow(date, views) {
  const s = ui().tasks.calendar;
  const top = s && s[s.length - 1];
  if (top && views.includes(top.s)) top.p = { ...(top.p || {}), date };
}
/** Search: events whose title, place or notes hold the query (case-insensitive). */
export function searchHits(q) {
  const s = String(q || '').trim().toLowerCase();
  return s ? byStart(evs().filter((e) => [e.title, e.location, e.description].some((x) => String(x || '').toLowerCase().includes(s)))) : [];
}

// ------------------------------------------------------------------------------------------
// keyboard and dialogs
export const kbOpen = () => !!(ui().keyboard && ui().focus);
export const kbSpacer = () => (kbOpen() ? html`<div style=${`flex:0 0 ${KB_H}px`}></div>` : null);
export const kbWrap = (node) => (kbOpen() ? html`<div style=${`position:absolute;left:0;right:0;top:0;bottom:${KB_H}px;z-index:20`}>${node}</div>` : node);
export function closeDialog() { const u = ui(); u.dialog = null; u.focus = null; u.keyboard = false; }
export function focusField(field) { const u = ui(); u.focus = field; u.keyboard = true; }
export { toast };
