// Calendar, flavor `sim` (our own app, package com.android.calendar): a month grid with event
// dots and the selected day's events listed under it, a day timeline, an agenda list, event
// details with Edit/Delete, and a create/edit form with labelled fields, Month/Day/Year and
// keyboard time dialogs and validation.
//
// Why it looks like this: every view is a pure function of world().events and a route param
// `date` (YYYY-MM-DD), so month navigation, the selected day and the open event are all in the
// phone state and survive fork/restore. The stock flavors register their own screens over these
// (registerFlavor): `aosp` is Etar/AOSP Calendar (calendar_aosp.js), `google` Google Calendar
// (google/calendar.js); dates, events and the form's values are shared (calendar_core.js).
import { html, registerApp, Screen, Row, SwitchRow, Field, Dialog, Empty, Section, Text, Button, Tabs, A,
  TimePickerBody, readTime, world, ui, go, replace, back, update, toast, nowIso, fmtTime, pad2 } from '../os.js';
import { PKG, D, validDate, addDays, addMonths, today, longDate, shortDate, monthTitle, hm, tfmt, mins,
  evs, byId, span, eventsOn, timeRange, whenLines, initForm, ensureForm, endsBeforeStart, writeForm, applyPick,
  deleteEvent, popScreen, showDayBelow, searchHits, kbSpacer, kbWrap, closeDialog } from './calendar_core.js';
import './calendar_aosp.js';

const CSS = `
.cal-head { display: flex; align-items: center; padding: 0 4px; height: 44px; }
.cal-head .lbl { flex: 1; text-align: center; font-size: calc(16px * var(--fs)); font-weight: 500; }
.cal-arrow { width: 44px; height: 44px; display: flex; align-items: center; justify-content: center; font-size: 22px; border-radius: 22px; }
.cal-wd { display: grid; grid-template-columns: repeat(7, 1fr); font-size: 12px; color: var(--muted); text-align: center; padding: 2px 0 4px; }
.cal-grid { display: grid; grid-template-columns: repeat(7, 1fr); border-top: 1px solid var(--line); }
.cal-cell { height: 46px; display: flex; flex-direction: column; align-items: center; padding-top: 4px; border-bottom: 1px solid var(--line); overflow: hidden; }
.cal-num { width: 26px; height: 26px; border-radius: 13px; display: flex; align-items: center; justify-content: center; font-size: 13px; margin: 0 auto; }
.cal-cell.other .cal-num { color: var(--muted); opacity: .55; }
.cal-cell.today .cal-num { background: var(--primary); color: var(--bg); opacity: 1; }
.cal-cell.sel .cal-num { outline: 2px solid var(--primary); }
.cal-dots { display: flex; gap: 2px; margin-top: 2px; height: 6px; }
.cal-dot { width: 5px; height: 5px; border-radius: 3px; background: var(--primary); }
.cal-chip { font-size: 10px; background: var(--primary); color: var(--bg); border-radius: 3px; margin: 1px 2px 0; padding: 0 2px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.cal-more { font-size: 10px; color: var(--muted); padding-left: 3px; }
.cal-allday { display: flex; flex-wrap: wrap; gap: 4px; padding: 4px 8px 6px 56px; border-bottom: 1px solid var(--line); min-height: 8px; }
.cal-adchip { background: var(--primary); color: var(--bg); border-radius: 4px; padding: 3px 8px; font-size: 13px; }
.cal-tl { position: relative; margin-left: 52px; margin-right: 8px; }
.cal-hour { position: absolute; left: -52px; width: 46px; text-align: right; font-size: 11px; color: var(--muted); transform: translateY(-6px); }
.cal-line { position: absolute; left: 0; right: 0; border-top: 1px solid var(--line); }
.cal-ev { position: absolute; background: var(--primary-c); border-left: 4px solid var(--primary); border-radius: 4px; padding: 2px 6px;
  font-size: 13px; overflow: hidden; box-sizing: border-box; }
.cal-ev small { display: block; color: var(--muted); font-size: 11px; }
.cal-now { position: absolute; left: 0; right: 0; border-top: 2px solid #d93025; }
.cal-dayhdr { padding: 10px 16px 2px; font-size: 13px; color: var(--primary); font-weight: 500; }
.cal-title { font-size: calc(24px * var(--fs)); padding: 8px 16px 4px 60px; overflow-wrap: anywhere; }
.cal-when { padding: 0 16px 0 60px; color: var(--muted); font-size: calc(14px * var(--fs)); }
.cal-dt { display: flex; align-items: center; gap: 6px; padding: 6px 16px; min-height: 48px; }
.cal-dt .lab { width: 48px; color: var(--muted); font-size: 14px; }
.cal-pick { padding: 10px 8px; border-radius: 6px; font-size: calc(15px * var(--fs)); }
.cal-pick.d { flex: 1; }
.cal-bar { display: flex; justify-content: flex-end; gap: 8px; padding: 8px 16px; border-top: 1px solid var(--line); background: var(--bg); }
.cal-dp-head { font-size: 26px; padding: 4px 0 10px; }
.cal-dp-grid { display: grid; grid-template-columns: repeat(7, 1fr); text-align: center; font-size: 13px; }
.cal-dp-day { height: 36px; display: flex; align-items: center; justify-content: center; border-radius: 18px; }
.cal-dp-day.on { background: var(--primary); color: var(--bg); }
.cal-drawer-scrim { position: absolute; inset: 0; background: rgba(0,0,0,.35); z-index: 22; }
.cal-drawer { position: absolute; left: 0; top: 0; bottom: 0; width: 78%; background: var(--bg); border-radius: 0 16px 16px 0; padding: 12px 0; }
.cal-drawer .hdr { font-size: 22px; padding: 12px 24px 16px; }
.cal-dri { padding: 14px 24px; font-size: 15px; border-radius: 0 24px 24px 0; margin-right: 12px; }
.cal-dri.on { background: var(--primary-c); font-weight: 600; }
.cal-menu-scrim { position: absolute; inset: 0; z-index: 22; }
.cal-menu { position: absolute; right: 8px; top: 8px; min-width: 180px; background: var(--surface); border-radius: 6px; box-shadow: 0 4px 14px rgba(0,0,0,.3); padding: 6px 0; }
.cal-mi { padding: 13px 20px; font-size: 15px; }
`;
if (typeof document !== 'undefined' && !document.getElementById('css-calendar')) {
  const el = document.createElement('style');
  el.id = 'css-calendar';
  el.textContent = CSS;
  document.head.appendChild(el);
}

const HOUR_H = 56; // px per hour in the day timeline

// ------------------------------------------------------------------------------------------
// navigation helpers
const VIEWS = ['month', 'day', 'schedule'];
const VIEW_LABEL = { month: 'Month', day: 'Day', schedule: 'Agenda' };
function dayScroll(date) {
  const timed = eventsOn(date).filter((e) => !e.all_day && e.start.slice(0, 10) === date);
  const h = timed.length ? Math.min(...timed.map((e) => Number(hm(e.start).slice(0, 2)))) : 8;
  ui().scroll[`calendar/day/${JSON.stringify({ date })}`] = Math.max(0, (h - 1) * HOUR_H);
}
function setView(view, date) {
  replace(view, { date });
  if (view === 'day') dayScroll(date);
}
const routeDate = (p) => (validDate(p.date) ? p.date : today());

function arrow(desc, glyph, fn, id) {
  return html`<div class="cal-arrow" ...${A('android.widget.ImageButton', { id, desc, click: true, text: '' })}
    onClick=${() => update(fn)}>${glyph}</div>`;
}

/** The app bar and view tabs shared by the three calendar views. */
function viewScreen(view, date, body, extraTop = null) {
  return Screen({
    title: monthTitle(date), up: false, body,
    fab: { desc: 'Create new event', id: 'floating_action_button', onClick: () => openForm(null, date) },
    actions: [
      { icon: '🔍', desc: 'Search', id: 'action_search', onClick: () => { go('search'); ui().focus = 'cal_search'; ui().keyboard = true; } },
      { icon: '📅', desc: 'Today', id: 'action_today', onClick: () => setView(view, today()) },
    ],
    tabs: html`${Tabs({ tabs: VIEWS.map((v) => ({ id: v, label: VIEW_LABEL[v] })), active: view, onSelect: (v) => setView(v, date) })}${extraTop}`,
  });
}

// ------------------------------------------------------------------------------------------
// views
function month(p) {
  const date = routeDate(p);
  const first = date.slice(0, 8) + '01';
  const start = addDays(first, -D(first).getUTCDay());
  const cells = [];
  for (let i = 0; i < 42; i++) {
    const d = addDays(start, i);
    const list = eventsOn(d);
    const other = d.slice(0, 7) !== date.slice(0, 7);
    const cls = 'cal-cell' + (other ? ' other' : '') + (d === today() ? ' today' : '') + (d === date ? ' sel' : '');
    const desc = `${longDate(d)}${list.length ? `, ${list.length} event${list.length === 1 ? '' : 's'}` : ''}`;
    cells.push(html`<div class=${cls} ...${A('android.widget.TextView', { id: 'month_day', text: String(D(d).getUTCDate()), desc, click: true, selected: d === date })}
        onClick=${() => update(() => replace('month', { date: d }))}>
      <div class="cal-num">${D(d).getUTCDate()}</div>
      <div class="cal-dots">${list.slice(0, 3).map(() => html`<span class="cal-dot"></span>`)}</div>
    </div>`);
  }
  const list = eventsOn(date);
  const body = html`<div class="cal-head">
      ${arrow('Previous month', '‹', () => replace('month', { date: addMonths(date, -1) }), 'prev')}
      <div class="lbl" ...${A('android.widget.TextView', { id: 'month_label', text: monthTitle(date) })}>${monthTitle(date)}</div>
      ${arrow('Next month', '›', () => replace('month', { date: addMonths(date, 1) }), 'next')}</div>
    <div class="cal-wd">${['S', 'M', 'T', 'W', 'T', 'F', 'S'].map((w) => html`<span>${w}</span>`)}</div>
    <div class="cal-grid" ...${A('android.widget.GridView', { id: 'month_grid' })}>${cells}</div>
    ${Section(longDate(date))}
    ${list.length ? list.map((e) => eventRow(e)) : Empty('No events')}`;
  return viewScreen('month', date, body);
}

function eventRow(e, withDate = false) {
  const sub = [withDate ? shortDate(e.start.slice(0, 10)) : null, timeRange(e), e.location || null].filter(Boolean).join(' · ');
  return Row({ icon: '●', title: e.title, subtitle: sub, id: 'event_item', desc: `${e.title}, ${sub}`, onClick: () => go('event', { id: e.id }) });
}

/** Timed events of a day as [startMin, endMin] within 0..1440, with side-by-side columns. */
export function layoutDay(list, date) {
  const items = list.filter((e) => !e.all_day).map((e) => {
    const sd = e.start.slice(0, 10);
    const s = sd < date ? 0 : mins('1970-01-01', hm(e.start));
    let en;
    if (!e.end) en = s + 60;
    else { const ed = e.end.slice(0, 10); en = ed > date ? 1440 : mins('1970-01-01', hm(e.end)); }
    return { e, s, en: Math.max(en, s + 30) };
  }).sort((a, b) => a.s - b.s || b.en - a.en);
  const out = [];
  let cluster = [], clusterEnd = -1;
  const flush = () => {
    const cols = [];
    for (const it of cluster) {
      let c = cols.findIndex((end) => end <= it.s);
      if (c < 0) { c = cols.length; cols.push(0); }
      cols[c] = it.en; it.col = c;
    }
    for (const it of cluster) { it.ncol = cols.length; out.push(it); }
    cluster = [];
  };
  for (const it of items) {
    if (cluster.length && it.s >= clusterEnd) flush();
    cluster.push(it); clusterEnd = Math.max(clusterEnd, it.en);
  }
  flush();
  return out;
}

function day(p) {
  const date = routeDate(p);
  const list = eventsOn(date);
  const allDay = list.filter((e) => e.all_day);
  const hours = [];
  for (let h = 0; h < 24; h++) {
    hours.push(html`<div class="cal-line" style=${`top:${h * HOUR_H}px`}></div>`);
    if (h) hours.push(html`<div class="cal-hour" style=${`top:${h * HOUR_H}px`} ...${A('android.widget.TextView', { id: 'hour_label', text: fmtTime(h, 0) })}>${fmtTime(h, 0)}</div>`);
  }
  const blocks = layoutDay(list, date).map((it) => {
    const top = (it.s / 60) * HOUR_H, h = ((it.en - it.s) / 60) * HOUR_H - 2;
    const w = 100 / it.ncol;
    const range = timeRange(it.e);
    return html`<div class="cal-ev" style=${`top:${top}px;height:${h}px;left:${it.col * w}%;width:calc(${w}% - 2px)`}
        ...${A('android.widget.TextView', { id: 'event_chip', text: it.e.title, desc: `${it.e.title}, ${range}${it.e.location ? `, ${it.e.location}` : ''}`, click: true })}
        onClick=${() => update(() => go('event', { id: it.e.id }))}>${it.e.title}<small>${range}${it.e.location ? ` · ${it.e.location}` : ''}</small></div>`;
  });
  let nowLine = null;
  if (date === today()) nowLine = html`<div class="cal-now" style=${`top:${(mins('1970-01-01', hm(nowIso())) / 60) * HOUR_H}px`}></div>`;
  const top = html`<div class="cal-head">
      ${arrow('Previous day', '‹', () => setView('day', addDays(date, -1)), 'prev')}
      <div class="lbl" ...${A('android.widget.TextView', { id: 'day_label', text: longDate(date) })}>${longDate(date)}</div>
      ${arrow('Next day', '›', () => setView('day', addDays(date, 1)), 'next')}</div>
    <div class="cal-allday">${allDay.map((e) => html`<div class="cal-adchip"
        ...${A('android.widget.TextView', { id: 'event_chip', text: e.title, desc: `${e.title}, All day`, click: true })}
        onClick=${() => update(() => go('event', { id: e.id }))}>${e.title}</div>`)}</div>`;
  const body = html`<div class="cal-tl" style=${`height:${24 * HOUR_H + 20}px;margin-top:8px`}>${hours}${blocks}${nowLine}</div>`;
  return viewScreen('day', date, body, top);
}

function schedule(p) {
  const date = routeDate(p);
  const from = date.slice(0, 8) + '01';
  const list = evs().filter((e) => span(e)[1] >= from).sort((a, b) => a.start.localeCompare(b.start) || a.title.localeCompare(b.title));
  const out = [];
  let lastMonth = '', lastDay = '';
  for (const e of list) {
    const d = e.start.slice(0, 10) < from ? from : e.start.slice(0, 10);
    if (d.slice(0, 7) !== lastMonth) { lastMonth = d.slice(0, 7); out.push(Section(monthTitle(d))); }
    if (d !== lastDay) {
      lastDay = d;
      const lbl = shortDate(d) + (d === today() ? ' · Today' : '');
      out.push(html`<div class="cal-dayhdr" ...${A('android.widget.TextView', { id: 'agenda_day', text: lbl })}>${lbl}</div>`);
    }
    out.push(eventRow(e));
  }
  return viewScreen('schedule', date, out.length ? out : Empty('No upcoming events'));
}

function search() {
  const q = String(ui().fields.cal_search || '').trim();
  const hits = searchHits(q);
  return Screen({
    title: 'Search',
    search: html`<div style="flex:1">${Field({ field: 'cal_search', hint: 'Search events', id: 'search_src_text' })}</div>`,
    body: q ? (hits.length ? hits.map((e) => eventRow(e, true)) : Empty('No results found')) : Empty('Search by title, place or notes'),
    bottom: kbSpacer(),
  });
}

function event(p) {
  const e = byId(p.id);
  if (!e) return Screen({ title: '', body: Empty('This event no longer exists') });
  const [l1, l2] = whenLines(e);
  return Screen({
    title: 'Event',
    actions: [{ icon: '✎', desc: 'Edit', id: 'action_edit', onClick: () => openForm(e) },
      { icon: '🗑', desc: 'Delete', id: 'action_delete', onClick: () => { ui().dialog = { kind: 'delete', id: e.id }; } }],
    body: html`
      <div class="cal-title" ...${A('android.widget.TextView', { id: 'event_title', text: e.title })}>${e.title}</div>
      <div class="cal-when" ...${A('android.widget.TextView', { id: 'event_date', text: l1 })}>${l1}</div>
      <div class="cal-when" ...${A('android.widget.TextView', { id: 'event_time', text: l2 })}>${l2}</div>
      <div style="height:12px"></div>
      ${e.location ? Row({ icon: '📍', title: e.location, id: 'event_location', desc: `Location: ${e.location}` }) : null}
      ${e.description ? Row({ icon: '☰', title: e.description, id: 'event_description', desc: `Description: ${e.description}` }) : null}
      ${Row({ icon: '🔔', title: e.all_day ? 'The day before at 17:00' : '30 minutes before', id: 'reminder' })}
      ${Row({ icon: '🗓', title: 'My calendar', subtitle: 'Local', id: 'calendar_name' })}`,
  });
}

// ------------------------------------------------------------------------------------------
// the create / edit form (its values live in ui().fields)
function openForm(e, baseDate) {
  initForm(e, baseDate);
  go('edit', { id: e ? e.id : null });
  if (!e) { ui().focus = 'ev_title'; ui().keyboard = true; }
}

function saveForm(id) {
  const f = ui().fields;
  if (!String(f.ev_title || '').trim()) { toast('Title is required'); return; }
  if (!validDate(f.ev_sd) || !validDate(f.ev_ed)) { toast('Invalid date'); return; }
  if (endsBeforeStart(f)) { toast("End time can't be before start time"); return; }
  const [, isNew] = writeForm(id);
  popScreen();
  // show the calendar at the event's day, as the real app does after saving
  if (isNew) { showDayBelow(f.ev_sd, VIEWS); const s = ui().tasks.calendar; if (s[s.length - 1].s === 'day') dayScroll(f.ev_sd); }
  toast('Event saved');
}

function pick(which, kind, value) {
  return html`<div class=${'cal-pick ' + (kind === 'date' ? 'd' : 't')}
    ...${A('android.widget.TextView', { id: `${which}_${kind}`, text: value, click: true })}
    onClick=${() => update(() => openPicker(which, kind))}>${value}</div>`;
}
function openPicker(which, kind) {
  const u = ui(), f = u.fields;
  u.focus = null; u.keyboard = false;
  const date = which === 'start' ? f.ev_sd : f.ev_ed;
  if (kind === 'date') {
    const [y, m, d] = date.split('-');
    Object.assign(f, { dp_m: String(Number(m)), dp_d: String(Number(d)), dp_y: y });
    u.dialog = { kind: 'date', which };
  } else {
    const [h, mi] = (which === 'start' ? f.ev_st : f.ev_et).split(':').map(Number);
    const h24 = world().settings.time_24h !== false;
    Object.assign(f, { tp_h: String(h24 ? h : (h % 12 || 12)), tp_m: pad2(mi), tp_ap: h < 12 ? 'AM' : 'PM' });
    u.dialog = { kind: 'time', which };
  }
}

function edit(p) {
  const f = ensureForm(p.id);
  const allDay = !!f.ev_allday;
  const row = (which, label) => html`<div class="cal-dt">
      <span class="lab" ...${A('android.widget.TextView', { id: `${which}_label`, text: label })}>${label}</span>
      ${pick(which, 'date', shortDate(which === 'start' ? f.ev_sd : f.ev_ed))}
      ${allDay ? null : pick(which, 'time', tfmt(which === 'start' ? f.ev_st : f.ev_et))}</div>`;
  const body = html`
    ${Field({ field: 'ev_title', hint: 'Title', label: 'Title', id: 'title' })}
    ${SwitchRow({ title: 'All day', checked: allDay, onChange: (v) => { f.ev_allday = v; }, id: 'is_all_day' })}
    ${row('start', 'Start')}
    ${row('end', 'End')}
    ${Field({ field: 'ev_loc', hint: 'Location', label: 'Location', id: 'location' })}
    ${Field({ field: 'ev_desc', hint: 'Description', label: 'Description', id: 'description', multiline: true })}
    ${Row({ icon: '🔔', title: allDay ? 'The day before at 17:00' : '30 minutes before', id: 'reminder_item' })}`;
  return Screen({
    title: p.id ? 'Edit event' : 'New event', body,
    bottom: html`<div class="cal-bar">${Button({ label: 'Cancel', id: 'cancel', onClick: () => back() })}
      ${Button({ label: 'Save', id: 'save', kind: 'filled', onClick: () => saveForm(p.id) })}</div>${kbSpacer()}`,
  });
}

// ------------------------------------------------------------------------------------------
// dialogs
function dateDialog(d) {
  const f = ui().fields;
  const y = String(f.dp_y || '').trim(), m = String(f.dp_m || '').trim(), dd = String(f.dp_d || '').trim();
  const iso = /^\d{4}$/.test(y) && /^\d{1,2}$/.test(m) && /^\d{1,2}$/.test(dd) ? `${y}-${pad2(Number(m))}-${pad2(Number(dd))}` : '';
  const ok = () => {
    if (!validDate(iso)) { toast('Invalid date'); return; }
    applyPick(d.which, iso, d.which === 'start' ? f.ev_st : f.ev_et);
    closeDialog();
  };
  return Dialog({
    title: 'Set date',
    body: html`<div style="display:flex">
      <div style="flex:1">${Field({ field: 'dp_m', label: 'Month', hint: 'MM', type: 'number', id: 'date_month' })}</div>
      <div style="flex:1">${Field({ field: 'dp_d', label: 'Day', hint: 'DD', type: 'number', id: 'date_day' })}</div>
      <div style="flex:1.4">${Field({ field: 'dp_y', label: 'Year', hint: 'YYYY', type: 'number', id: 'date_year' })}</div></div>`,
    buttons: [{ label: 'Cancel', onClick: closeDialog }, { label: 'OK', onClick: ok }],
  });
}

function timeDialog(d) {
  const h24 = world().settings.time_24h !== false;
  return Dialog({
    title: 'Set time',
    body: TimePickerBody({ hField: 'tp_h', mField: 'tp_m', ampmField: h24 ? undefined : 'tp_ap' }),
    buttons: [{ label: 'Cancel', onClick: closeDialog }, { label: 'OK', onClick: () => {
      const tm = readTime('tp_h', 'tp_m', h24 ? undefined : 'tp_ap');
      if (!tm) { toast('Enter a valid time'); return; }
      const f = ui().fields;
      applyPick(d.which, d.which === 'start' ? f.ev_sd : f.ev_ed, `${pad2(tm.hour)}:${pad2(tm.minute)}`);
      closeDialog();
    } }],
  });
}

const dialogs = {
  date: dateDialog,
  time: timeDialog,
  delete: (d) => Dialog({
    title: 'Delete event?',
    body: Text(byId(d.id)?.title || '', { id: 'android:id/message' }),
    buttons: [{ label: 'Cancel', onClick: closeDialog },
      { label: 'Delete', onClick: () => { deleteEvent(d.id); closeDialog(); back(); toast('Event deleted'); } }],
  }),
};

registerApp({
  id: 'calendar', label: 'Calendar', pkg: PKG, icon: '📅', color: '#4285f4',
  root: { s: 'month', p: {} },
  screens: { month, day, schedule, event, edit, search, main: month },
  dialogs: Object.fromEntries(Object.entries(dialogs).map(([k, fn]) => [k, (d) => kbWrap(fn(d))])),
  activity: (r) => ({
    event: `${PKG}/.EventInfoActivity`,
    edit: `${PKG}/.event.EditEventActivity`,
    search: `${PKG}/.SearchActivity`,
  }[r.s] || `${PKG}/.AllInOneActivity`),
});
