// Calendar (com.android.calendar): month grid with event dots, a day timeline, a schedule
// (agenda) list, event details with Edit/Delete, and a create/edit form with date and time
// pickers and validation.
//
// Why it looks like this: every view is a pure function of world().events and a route
// param `date` (YYYY-MM-DD), so month navigation, the selected day and the open event are
// all in the phone state and survive fork/restore. Flavor `aosp` follows Google Calendar on
// a Pixel (views in a navigation drawer — Schedule/Day/Month —, "Add title", "All-day",
// Material date picker with a text-input mode, "Save" in the top bar, "Discard this event?");
// flavor `sim` has view tabs (Month/Day/Agenda), labelled fields and Cancel/Save buttons.
import { html, registerApp, Screen, Row, SwitchRow, Field, Dialog, Empty, Section, Text, Button, Tabs, A,
  TimePickerBody, readTime, world, ui, go, replace, back, t, flavor, update, toast, nextId, nowIso, fmtTime, pad2 } from '../os.js';

const CSS = `
.cal-head { display: flex; align-items: center; padding: 0 4px; height: 44px; }
.cal-head .lbl { flex: 1; text-align: center; font-size: calc(16px * var(--fs)); font-weight: 500; }
.cal-arrow { width: 44px; height: 44px; display: flex; align-items: center; justify-content: center; font-size: 22px; border-radius: 22px; }
.cal-wd { display: grid; grid-template-columns: repeat(7, 1fr); font-size: 12px; color: var(--muted); text-align: center; padding: 2px 0 4px; }
.cal-grid { display: grid; grid-template-columns: repeat(7, 1fr); border-top: 1px solid var(--line); }
.cal-cell { height: 46px; display: flex; flex-direction: column; align-items: center; padding-top: 4px; border-bottom: 1px solid var(--line); overflow: hidden; }
.aospcal .cal-cell { height: 92px; border-right: 1px solid var(--line); align-items: stretch; }
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

const PKG = 'com.android.calendar';
const KB_H = 215; // soft keyboard height: screens and dialogs resize above it
const HOUR_H = 56; // px per hour in the day timeline

// ------------------------------------------------------------------------------------------
// dates as YYYY-MM-DD strings; arithmetic in UTC so there are no time-zone surprises
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const D = (s) => new Date(String(s).slice(0, 10) + 'T00:00:00Z');
const ds = (d) => d.toISOString().slice(0, 10);
const validDate = (s) => /^\d{4}-\d{2}-\d{2}$/.test(String(s || '')) && !Number.isNaN(D(s).getTime()) && ds(D(s)) === s;
export function addDays(s, n) { const d = D(s); d.setUTCDate(d.getUTCDate() + n); return ds(d); }
export function addMonths(s, n) {
  const [y, m, dd] = s.split('-').map(Number);
  const first = new Date(Date.UTC(y, m - 1 + n, 1));
  const last = new Date(Date.UTC(first.getUTCFullYear(), first.getUTCMonth() + 1, 0)).getUTCDate();
  first.setUTCDate(Math.min(dd, last));
  return ds(first);
}
const today = () => nowIso().slice(0, 10);
const longDate = (s) => { const d = D(s); return `${DAYS[d.getUTCDay()]}, ${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}, ${d.getUTCFullYear()}`; };
const shortDate = (s) => { const d = D(s); return `${DAYS[d.getUTCDay()].slice(0, 3)}, ${MONTHS[d.getUTCMonth()].slice(0, 3)} ${d.getUTCDate()}, ${d.getUTCFullYear()}`; };
const monthTitle = (s) => { const d = D(s); return `${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`; };
const hm = (iso) => String(iso || '').slice(11, 16) || '00:00';
const tfmt = (hhmm) => { const [h, m] = hhmm.split(':').map(Number); return fmtTime(h, m); };
const mins = (date, hhmm) => { const [h, m] = hhmm.split(':').map(Number); return Math.round(D(date).getTime() / 60000) + h * 60 + m; };
const fromMins = (n) => { const d = new Date(n * 60000); return [ds(d), `${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}`]; };

// ------------------------------------------------------------------------------------------
// events
const evs = () => world().events || []; // read-only view: a missing list stays unknown until written
const byId = (id) => evs().find((e) => e.id === id) || null;
/** First and last day (inclusive) an event covers; all-day ends are exclusive midnights as on Android. */
function span(e) {
  const sd = e.start.slice(0, 10);
  let last = sd;
  if (e.end) {
    const ed = e.end.slice(0, 10);
    const midnight = e.end.slice(11, 19) === '00:00:00' || e.end.length <= 10;
    last = (e.all_day || midnight) && ed > sd ? addDays(ed, -1) : ed;
  }
  return [sd, last < sd ? sd : last];
}
function eventsOn(date) {
  return evs().filter((e) => { const [a, b] = span(e); return a <= date && date <= b; })
    .sort((x, y) => (y.all_day - x.all_day) || x.start.localeCompare(y.start) || x.title.localeCompare(y.title));
}
function timeRange(e) {
  if (e.all_day) return 'All day';
  const s = tfmt(hm(e.start));
  if (!e.end) return s;
  return `${s} – ${tfmt(hm(e.end))}`;
}
function whenLines(e) {
  const [sd, last] = span(e);
  if (e.all_day) return [sd === last ? longDate(sd) : `${shortDate(sd)} – ${shortDate(last)}`, 'All day'];
  const ed = e.end ? e.end.slice(0, 10) : sd;
  if (ed === sd) return [longDate(sd), timeRange(e)];
  return [`${shortDate(sd)}, ${tfmt(hm(e.start))} –`, `${shortDate(ed)}, ${tfmt(hm(e.end))}`];
}

// ------------------------------------------------------------------------------------------
// navigation helpers
const VIEWS = ['month', 'day', 'schedule'];
const viewLabel = (v) => ({ month: 'Month', day: 'Day', schedule: t('Agenda', 'Schedule') }[v]);
function dayScroll(date) {
  const timed = eventsOn(date).filter((e) => !e.all_day && e.start.slice(0, 10) === date);
  const h = timed.length ? Math.min(...timed.map((e) => Number(hm(e.start).slice(0, 2)))) : 8;
  ui().scroll[`calendar/day/${JSON.stringify({ date })}`] = Math.max(0, (h - 1) * HOUR_H);
}
function setView(view, date, push = false) {
  (push ? go : replace)(view, { date });
  if (view === 'day') dayScroll(date);
}
const routeDate = (p) => (validDate(p.date) ? p.date : today());

function openDrawer() { ui().dialog = { kind: 'drawer' }; }
function arrow(desc, glyph, fn, id) {
  return html`<div class="cal-arrow" ...${A('android.widget.ImageButton', { id, desc, click: true, text: '' })}
    onClick=${() => update(fn)}>${glyph}</div>`;
}

/** The app bar and view switcher shared by the three calendar views. */
function viewScreen(view, date, body, extraTop = null) {
  const fab = { desc: 'Create new event', id: 'floating_action_button', onClick: () => openForm(null, date) };
  const actions = [
    { icon: '🔍', desc: 'Search', id: 'action_search', onClick: () => { go('search'); ui().focus = 'cal_search'; ui().keyboard = true; } },
    { icon: '📅', desc: t('Today', 'Jump to Today'), id: 'action_today', onClick: () => setView(view, today()) },
  ];
  if (flavor() === 'aosp') {
    return Screen({
      up: false, actions, fab, body,
      search: html`<div class="icon-btn" ...${A('android.widget.ImageButton', { desc: 'Open navigation drawer', id: 'drawer_toggle', click: true, text: '' })}
          onClick=${() => update(openDrawer)}>☰</div>
        <div class="title" ...${A('android.widget.TextView', { id: 'date_picker_text_view', text: monthTitle(date) })}>${monthTitle(date)}</div>`,
      tabs: extraTop,
    });
  }
  return Screen({
    title: monthTitle(date), up: false, actions, fab, body,
    tabs: html`${Tabs({ tabs: VIEWS.map((v) => ({ id: v, label: viewLabel(v) })), active: view, onSelect: (v) => setView(v, date) })}${extraTop}`,
  });
}

// ------------------------------------------------------------------------------------------
// views
function month(p) {
  const date = routeDate(p);
  const aosp = flavor() === 'aosp';
  const first = date.slice(0, 8) + '01';
  const start = addDays(first, -D(first).getUTCDay());
  const cells = [];
  for (let i = 0; i < 42; i++) {
    const d = addDays(start, i);
    const list = eventsOn(d);
    const other = d.slice(0, 7) !== date.slice(0, 7);
    const cls = 'cal-cell' + (other ? ' other' : '') + (d === today() ? ' today' : '') + (!aosp && d === date ? ' sel' : '');
    const desc = `${longDate(d)}${list.length ? `, ${list.length} event${list.length === 1 ? '' : 's'}` : ''}`;
    cells.push(html`<div class=${cls} ...${A('android.widget.TextView', { id: 'month_day', text: String(D(d).getUTCDate()), desc, click: true, selected: !aosp && d === date })}
        onClick=${() => update(() => { if (aosp) setView('day', d, true); else replace('month', { date: d }); })}>
      <div class="cal-num">${D(d).getUTCDate()}</div>
      ${aosp ? html`${list.slice(0, 2).map((e) => html`<div class="cal-chip">${e.title}</div>`)}${list.length > 2 ? html`<div class="cal-more">+${list.length - 2}</div>` : null}`
        : html`<div class="cal-dots">${list.slice(0, 3).map(() => html`<span class="cal-dot"></span>`)}</div>`}
    </div>`);
  }
  const head = html`<div class="cal-head">
      ${arrow('Previous month', '‹', () => replace('month', { date: addMonths(date, -1) }), 'prev')}
      <div class="lbl" ...${A('android.widget.TextView', { id: 'month_label', text: monthTitle(date) })}>${monthTitle(date)}</div>
      ${arrow('Next month', '›', () => replace('month', { date: addMonths(date, 1) }), 'next')}</div>
    <div class="cal-wd">${['S', 'M', 'T', 'W', 'T', 'F', 'S'].map((w) => html`<span>${w}</span>`)}</div>`;
  const grid = html`<div class=${'cal-grid' + (aosp ? ' aospcal' : '')} ...${A('android.widget.GridView', { id: 'month_grid' })}>${cells}</div>`;
  let body;
  if (aosp) body = html`<div class="aospcal">${head}${grid}</div>`;
  else {
    const list = eventsOn(date);
    body = html`${head}${grid}${Section(longDate(date))}
      ${list.length ? list.map((e) => eventRow(e)) : Empty('No events')}`;
  }
  return viewScreen('month', date, body);
}

function eventRow(e, withDate = false) {
  const sub = [withDate ? shortDate(e.start.slice(0, 10)) : null, timeRange(e), e.location || null].filter(Boolean).join(' · ');
  return Row({ icon: '●', title: e.title, subtitle: sub, id: 'event_item', desc: `${e.title}, ${sub}`, onClick: () => go('event', { id: e.id }) });
}

function layoutDay(list, date) {
  // timed events of this day as [startMin, endMin] within 0..1440, with side-by-side columns
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
  if (date === today()) { const n = nowIso(); nowLine = html`<div class="cal-now" style=${`top:${(mins('1970-01-01', hm(n)) / 60) * HOUR_H}px`}></div>`; }
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
  return viewScreen('schedule', date, out.length ? out : Empty(t('No upcoming events', 'Nothing planned. Tap to create.')));
}

function search() {
  const q = String(ui().fields.cal_search || '').trim().toLowerCase();
  const hits = q ? evs().filter((e) => [e.title, e.location, e.description].some((x) => String(x || '').toLowerCase().includes(q)))
    .sort((a, b) => a.start.localeCompare(b.start)) : [];
  return Screen({
    title: 'Search',
    search: html`<div style="flex:1">${Field({ field: 'cal_search', hint: t('Search events', 'Search'), id: 'search_src_text' })}</div>`,
    body: q ? (hits.length ? hits.map((e) => eventRow(e, true)) : Empty('No results found')) : Empty(t('Search by title, place or notes', 'Search events')),
    bottom: kbSpacer(),
  });
}

function event(p) {
  const e = byId(p.id);
  if (!e) return Screen({ title: '', body: Empty('This event no longer exists') });
  const [l1, l2] = whenLines(e);
  const actions = flavor() === 'aosp'
    ? [{ icon: '✎', desc: 'Edit event', id: 'action_edit', onClick: () => openForm(e) },
      { icon: '⋮', desc: 'More options', onClick: () => { ui().dialog = { kind: 'menu', id: e.id }; } }]
    : [{ icon: '✎', desc: 'Edit', id: 'action_edit', onClick: () => openForm(e) },
      { icon: '🗑', desc: 'Delete', id: 'action_delete', onClick: () => { ui().dialog = { kind: 'delete', id: e.id }; } }];
  return Screen({
    title: t('Event', ''), actions,
    body: html`
      <div class="cal-title" ...${A('android.widget.TextView', { id: 'event_title', text: e.title })}>${e.title}</div>
      <div class="cal-when" ...${A('android.widget.TextView', { id: 'event_date', text: l1 })}>${l1}</div>
      <div class="cal-when" ...${A('android.widget.TextView', { id: 'event_time', text: l2 })}>${l2}</div>
      <div style="height:12px"></div>
      ${e.location ? Row({ icon: '📍', title: e.location, id: 'event_location', desc: `Location: ${e.location}` }) : null}
      ${e.description ? Row({ icon: '☰', title: e.description, id: 'event_description', desc: `Description: ${e.description}` }) : null}
      ${Row({ icon: '🔔', title: e.all_day ? t('The day before at 17:00', '1 day before at 5 PM') : t('30 minutes before', '30 minutes before'), id: 'reminder' })}
      ${Row({ icon: '🗓', title: t('My calendar', 'Calendar'), subtitle: t('Local', 'Phone'), id: 'calendar_name' })}`,
  });
}

// ------------------------------------------------------------------------------------------
// the create / edit form (its values live in ui().fields)
const FORM_KEYS = ['ev_title', 'ev_loc', 'ev_desc', 'ev_allday', 'ev_sd', 'ev_st', 'ev_ed', 'ev_et'];
function openForm(e, baseDate) {
  initForm(e, baseDate);
  go('edit', { id: e ? e.id : null });
  if (!e) { ui().focus = 'ev_title'; ui().keyboard = true; }
}
function initForm(e, baseDate) {
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
    let start = d === today() ? Math.ceil((mins(d, hm(nowIso())) + 1) / 60) * 60 : mins(d, '09:00');
    const [sd, st] = fromMins(start);
    const [ed, et] = fromMins(start + 60);
    Object.assign(f, { ev_title: '', ev_loc: '', ev_desc: '', ev_allday: false, ev_sd: sd, ev_st: st, ev_ed: ed, ev_et: et });
  }
  f.ev_init = JSON.stringify(FORM_KEYS.map((k) => f[k]));
}
const dirty = () => { const f = ui().fields; return f.ev_init !== JSON.stringify(FORM_KEYS.map((k) => f[k])); };
function popScreen() { const st = ui().tasks.calendar; if (st && st.length > 1) st.pop(); ui().dialog = null; ui().focus = null; ui().keyboard = false; }

function saveForm(id) {
  const f = ui().fields;
  const title = String(f.ev_title || '').trim();
  if (!title) { toast(t('Title is required', 'Add a title to save this event')); return; }
  const allDay = !!f.ev_allday;
  if (!validDate(f.ev_sd) || !validDate(f.ev_ed)) { toast('Invalid date'); return; }
  if (allDay ? f.ev_ed < f.ev_sd : mins(f.ev_ed, f.ev_et) < mins(f.ev_sd, f.ev_st)) {
    toast(t("End time can't be before start time", "The event can't end before it starts"));
    return;
  }
  const rec = {
    title,
    start: allDay ? `${f.ev_sd}T00:00:00` : `${f.ev_sd}T${f.ev_st}:00`,
    end: allDay ? `${addDays(f.ev_ed, 1)}T00:00:00` : `${f.ev_ed}T${f.ev_et}:00`,
    all_day: allDay, location: String(f.ev_loc || '').trim(), description: String(f.ev_desc || '').trim(),
  };
  const old = id ? byId(id) : null;
  if (old) Object.assign(old, rec);
  else world().events = [...evs(), { id: nextId('e'), ...rec, tag: null }];
  world().events.sort((a, b) => a.start.localeCompare(b.start));
  popScreen();
  // show the calendar at the event's day, as the real app does after saving
  const stack = ui().tasks.calendar;
  const top = stack[stack.length - 1];
  if (!old && VIEWS.includes(top.s)) { top.p = { date: f.ev_sd }; if (top.s === 'day') dayScroll(f.ev_sd); }
  toast(t('Event saved', 'Saved'));
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
    Object.assign(f, { dp_m: String(Number(m)), dp_d: String(Number(d)), dp_y: y, dp_text: `${m}/${d}/${y}` });
    u.dialog = { kind: 'date', which, mode: 'grid', sel: date, ym: date };
  } else {
    const [h, mi] = (which === 'start' ? f.ev_st : f.ev_et).split(':').map(Number);
    const h24 = world().settings.time_24h !== false;
    Object.assign(f, { tp_h: String(h24 ? h : (h % 12 || 12)), tp_m: pad2(mi), tp_ap: h < 12 ? 'AM' : 'PM' });
    u.dialog = { kind: 'time', which };
  }
}
/** Apply a picked start or end; moving the start keeps the event's duration (as Android does). */
function applyPick(which, date, time) {
  const f = ui().fields;
  if (which === 'start') {
    const allDay = !!f.ev_allday;
    const delta = allDay ? (D(date) - D(f.ev_sd)) / 60000 : mins(date, time) - mins(f.ev_sd, f.ev_st);
    const endMins = mins(f.ev_ed, f.ev_et) + delta;
    f.ev_sd = date; f.ev_st = time;
    [f.ev_ed, f.ev_et] = fromMins(endMins);
  } else {
    f.ev_ed = date; f.ev_et = time;
  }
}

function edit(p) {
  const f = ui().fields;
  // a form opened without its values (a deep link, a restored phone): fill them in first
  if (!validDate(f.ev_sd) || !validDate(f.ev_ed) || !/^\d\d:\d\d$/.test(f.ev_st || '') || !/^\d\d:\d\d$/.test(f.ev_et || '')) initForm(p.id ? byId(p.id) : null);
  const aosp = flavor() === 'aosp';
  const allDay = !!f.ev_allday;
  const row = (which, label) => html`<div class="cal-dt">
      ${aosp ? html`<span class="lab"></span>` : html`<span class="lab" ...${A('android.widget.TextView', { id: `${which}_label`, text: label })}>${label}</span>`}
      ${pick(which, 'date', shortDate(which === 'start' ? f.ev_sd : f.ev_ed))}
      ${allDay ? null : pick(which, 'time', tfmt(which === 'start' ? f.ev_st : f.ev_et))}</div>`;
  const body = html`
    ${Field({ field: 'ev_title', hint: t('Title', 'Add title'), label: aosp ? undefined : 'Title', id: 'title' })}
    ${SwitchRow({ title: t('All day', 'All-day'), checked: allDay, onChange: (v) => { f.ev_allday = v; }, id: 'is_all_day' })}
    ${row('start', 'Start')}
    ${row('end', 'End')}
    ${Field({ field: 'ev_loc', hint: t('Location', 'Add location'), label: aosp ? undefined : 'Location', id: 'location' })}
    ${Field({ field: 'ev_desc', hint: t('Description', 'Add description'), label: aosp ? undefined : 'Description', id: 'description', multiline: true })}
    ${Row({ icon: '🔔', title: allDay ? t('The day before at 17:00', '1 day before at 5 PM') : '30 minutes before', id: 'reminder_item' })}`;
  if (aosp) {
    return Screen({
      up: false, body, bottom: kbSpacer(),
      search: html`<div class="icon-btn" ...${A('android.widget.ImageButton', { desc: 'Cancel', id: 'cancel', click: true, text: '' })}
          onClick=${() => update(() => back())}>✕</div>
        <div class="title" ...${A('android.widget.TextView', { id: 'edit_title', text: '' })}></div>
        ${Button({ label: 'Save', id: 'save', kind: 'filled', onClick: () => saveForm(p.id) })}<span style="width:8px"></span>`,
    });
  }
  return Screen({
    title: p.id ? 'Edit event' : 'New event', body,
    bottom: html`<div class="cal-bar">${Button({ label: 'Cancel', id: 'cancel', onClick: () => back() })}
      ${Button({ label: 'Save', id: 'save', kind: 'filled', onClick: () => saveForm(p.id) })}</div>${kbSpacer()}`,
  });
}

// ------------------------------------------------------------------------------------------
// dialogs
const kbOpen = () => !!(ui().keyboard && ui().focus);
const kbSpacer = () => (kbOpen() ? html`<div style=${`flex:0 0 ${KB_H}px`}></div>` : null);
const kbWrap = (node) => (kbOpen() ? html`<div style=${`position:absolute;left:0;right:0;top:0;bottom:${KB_H}px;z-index:20`}>${node}</div>` : node);
const closeDialog = () => { const u = ui(); u.dialog = null; u.focus = null; u.keyboard = false; };

function dateDialog(d) {
  const u = ui(), f = u.fields;
  const ok = (date) => {
    if (!validDate(date)) { toast(t('Invalid date', 'Invalid format.')); return; }
    applyPick(d.which, date, d.which === 'start' ? f.ev_st : f.ev_et);
    closeDialog();
  };
  if (flavor() !== 'aosp') {
    const y = String(f.dp_y || '').trim(), m = String(f.dp_m || '').trim(), dd = String(f.dp_d || '').trim();
    const iso = /^\d{4}$/.test(y) && /^\d{1,2}$/.test(m) && /^\d{1,2}$/.test(dd) ? `${y}-${pad2(Number(m))}-${pad2(Number(dd))}` : '';
    return Dialog({
      title: 'Set date',
      body: html`<div style="display:flex">
        <div style="flex:1">${Field({ field: 'dp_m', label: 'Month', hint: 'MM', type: 'number', id: 'date_month' })}</div>
        <div style="flex:1">${Field({ field: 'dp_d', label: 'Day', hint: 'DD', type: 'number', id: 'date_day' })}</div>
        <div style="flex:1.4">${Field({ field: 'dp_y', label: 'Year', hint: 'YYYY', type: 'number', id: 'date_year' })}</div></div>`,
      buttons: [{ label: 'Cancel', onClick: closeDialog }, { label: 'OK', onClick: () => ok(iso) }],
    });
  }
  // Material date picker: a month grid, or a text field after "Switch to text input mode"
  const sel = d.sel;
  const head = html`<div class="cal-dp-head" ...${A('android.widget.TextView', { id: 'mtrl_picker_header_selection_text', text: shortDate(sel).replace(/, \d{4}$/, '') })}>${shortDate(sel).replace(/, \d{4}$/, '')}</div>`;
  const toggle = html`<div class="icon-btn" style="position:absolute;right:16px;top:18px"
      ...${A('android.widget.ImageButton', { id: 'mtrl_picker_header_toggle', desc: d.mode === 'text' ? 'Switch to calendar input mode' : 'Switch to text input mode', click: true, text: '' })}
      onClick=${() => update(() => { d.mode = d.mode === 'text' ? 'grid' : 'text'; f.dp_text = `${sel.slice(5, 7)}/${sel.slice(8, 10)}/${sel.slice(0, 4)}`; u.focus = d.mode === 'text' ? 'dp_text' : null; u.keyboard = d.mode === 'text'; })}>${d.mode === 'text' ? '📅' : '✎'}</div>`;
  let body;
  if (d.mode === 'text') {
    body = html`<div style="position:relative">${head}${toggle}
      ${Field({ field: 'dp_text', label: 'Date', hint: 'mm/dd/yyyy', id: 'mtrl_picker_text_input_date', onSubmit: () => {} })}</div>`;
  } else {
    const first = d.ym.slice(0, 8) + '01';
    const lead = D(first).getUTCDay();
    const ndays = new Date(Date.UTC(Number(first.slice(0, 4)), Number(first.slice(5, 7)), 0)).getUTCDate();
    const cells = [];
    for (let i = 0; i < lead; i++) cells.push(html`<div></div>`);
    for (let i = 1; i <= ndays; i++) {
      const dd = first.slice(0, 8) + pad2(i);
      cells.push(html`<div class=${'cal-dp-day' + (dd === sel ? ' on' : '')}
        ...${A('android.widget.TextView', { id: 'month_grid_day', text: String(i), desc: longDate(dd), click: true, selected: dd === sel })}
        onClick=${() => update(() => { d.sel = dd; })}>${i}</div>`);
    }
    body = html`<div style="position:relative">${head}${toggle}
      <div class="cal-head">
        ${arrow('Change to previous month', '‹', () => { d.ym = addMonths(d.ym.slice(0, 8) + '01', -1); }, 'month_navigation_previous')}
        <div class="lbl" ...${A('android.widget.TextView', { id: 'month_navigation_fragment_toggle', text: monthTitle(d.ym) })}>${monthTitle(d.ym)}</div>
        ${arrow('Change to next month', '›', () => { d.ym = addMonths(d.ym.slice(0, 8) + '01', 1); }, 'month_navigation_next')}</div>
      <div class="cal-dp-grid">${['S', 'M', 'T', 'W', 'T', 'F', 'S'].map((w) => html`<div style="color:var(--muted);height:24px">${w}</div>`)}${cells}</div></div>`;
  }
  const parseText = () => {
    const mt = /^\s*(\d{1,2})\/(\d{1,2})\/(\d{4})\s*$/.exec(String(f.dp_text || ''));
    return mt ? `${mt[3]}-${pad2(Number(mt[1]))}-${pad2(Number(mt[2]))}` : '';
  };
  return Dialog({
    title: 'Select date', body,
    buttons: [{ label: 'Cancel', onClick: closeDialog }, { label: 'OK', onClick: () => ok(d.mode === 'text' ? parseText() : sel) }],
  });
}

function timeDialog(d) {
  const h24 = world().settings.time_24h !== false;
  return Dialog({
    title: t('Set time', 'Enter time'),
    body: TimePickerBody({ hField: 'tp_h', mField: 'tp_m', ampmField: h24 ? undefined : 'tp_ap' }),
    buttons: [{ label: 'Cancel', onClick: closeDialog }, { label: 'OK', onClick: () => {
      const tm = readTime('tp_h', 'tp_m', h24 ? undefined : 'tp_ap');
      if (!tm) { toast(t('Enter a valid time', 'Enter a valid time')); return; }
      const f = ui().fields;
      applyPick(d.which, d.which === 'start' ? f.ev_sd : f.ev_ed, `${pad2(tm.hour)}:${pad2(tm.minute)}`);
      closeDialog();
    } }],
  });
}

function deleteEvent(id) {
  world().events = evs().filter((e) => e.id !== id);
  closeDialog();
  back();
  toast(t('Event deleted', 'Event deleted'));
}

const dialogs = {
  date: dateDialog,
  time: timeDialog,
  delete: (d) => Dialog({
    title: t('Delete event?', 'Delete this event?'),
    body: Text(byId(d.id)?.title || '', { id: 'android:id/message' }),
    buttons: [{ label: 'Cancel', onClick: closeDialog }, { label: 'Delete', onClick: () => deleteEvent(d.id) }],
  }),
  discard: () => Dialog({
    title: 'Discard this event?',
    body: null,
    buttons: [{ label: 'Keep editing', onClick: closeDialog }, { label: 'Discard', onClick: popScreen }],
  }),
  menu: (d) => html`<div class="cal-menu-scrim" onClick=${(ev) => { if (ev.target === ev.currentTarget) update(closeDialog); }}>
    <div class="cal-menu" ...${A('android.widget.ListView', { id: 'android:id/list' })}>
      ${[['Delete', () => { ui().dialog = { kind: 'delete', id: d.id }; }],
        ['Duplicate', () => {
          const e = byId(d.id); ui().dialog = null;
          if (e) { const c = { ...e, id: nextId('e'), tag: null }; world().events = [...evs(), c]; replace('event', { id: c.id }); toast('Event duplicated'); }
        }],
        ['Share', () => { ui().dialog = null; toast('Share event'); }]].map(([label, fn]) => html`<div class="cal-mi"
          ...${A('android.widget.TextView', { id: 'title', text: label, click: true })}
          onClick=${(ev) => { ev.stopPropagation(); update(fn); }}>${label}</div>`)}</div></div>`,
  drawer: () => {
    const r = ui().tasks.calendar;
    const top = r[r.length - 1];
    const date = routeDate(top.p || {});
    const item = (v) => html`<div class=${'cal-dri' + (top.s === v ? ' on' : '')}
        ...${A('android.widget.CheckedTextView', { id: 'design_menu_item_text', text: viewLabel(v), click: true, checked: top.s === v, checkable: true })}
        onClick=${() => update(() => { ui().dialog = null; setView(v, date); })}>${viewLabel(v)}</div>`;
    const misc = (label) => html`<div class="cal-dri" ...${A('android.widget.CheckedTextView', { id: 'design_menu_item_text', text: label, click: true })}
        onClick=${() => update(() => { ui().dialog = null; toast(label); })}>${label}</div>`;
    return html`<div class="cal-drawer-scrim" onClick=${(ev) => { if (ev.target === ev.currentTarget) update(closeDialog); }}>
      <div class="cal-drawer" ...${A('android.widget.FrameLayout', { id: 'drawer_layout' })}>
        <div class="hdr" ...${A('android.widget.TextView', { id: 'drawer_header', text: 'Calendar' })}>Calendar</div>
        ${['schedule', 'day', 'month'].map(item)}
        <div style="border-top:1px solid var(--line);margin:8px 0"></div>
        ${misc('Settings')}${misc('Help & feedback')}</div></div>`;
  },
};

registerApp({
  id: 'calendar', label: 'Calendar', pkg: PKG, icon: '📅', color: '#4285f4',
  root: { s: 'month', p: {} },
  screens: { month, day, schedule, event, edit, search, main: month },
  dialogs: Object.fromEntries(Object.entries(dialogs).map(([k, fn]) => [k, (d) => kbWrap(fn(d))])),
  onBack: (r) => {
    if (r.s === 'edit' && flavor() === 'aosp' && dirty()) { ui().dialog = { kind: 'discard' }; return true; }
    return false;
  },
  activity: (r) => ({
    event: `${PKG}/.EventInfoActivity`,
    edit: `${PKG}/.event.EditEventActivity`,
    search: `${PKG}/.SearchActivity`,
  }[r.s] || `${PKG}/.AllInOneActivity`),
});
