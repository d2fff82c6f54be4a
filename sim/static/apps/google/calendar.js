// Calendar, flavor `google`: Google Calendar as a Pixel ships it (com.google.android.calendar,
// com.android.calendar.AllInOneActivity). No source is public: each screen follows what public
// test code and dumps of the real app drive and read (find_string ids are the code corpus's):
//   GC1  dshaur/test-automation @ 20e971b4884b39d53fc4a6209edf4dd098a81d36, src/main/java/com/solvd/
//        carina/demo/mobile/gui/pages/android/calendar/: CalendarPage.java (Button "Jump to Today",
//        Button "Search", ImageButton "Create new event and more", speed_dial_event_container,
//        event Views described "<title>, All day: ", day Views "<date>, Open Day View"),
//        EventCreationPage.java (EditText `title`, android.widget.Switch, `save`, `description`),
//        EventPage.java (`title`, ImageView "More options", TextView "Delete", android:id/button1),
//        SearchPage.java (EditText "Search", a year View "2023" then the event Views).
//   GC2  HtcAygll/CalendarApp @ 584c52de78b64b0b650ae2209cf2e8356f71230b src/test/java/Tests/Page/
//        CalendarPage.java: ImageButton "Show Calendar List and Settings drawer", `search_text`,
//        `date_picker_text_view`, "More options", "Back", "Nothing planned. Tap to create.", event
//        details' date and time as Views (the time one split at ',' then '–').
//   GC3  a Korean test map of Google Calendar (find_string id 48991002725): header > toolbar >
//        ImageButton, date_picker_button, action_search, action_today; speed_dial_event_container,
//        tasks_speed_dial_container; drawer_list TextViews described "Schedule view", "Day view",
//        "3-days view", "Week view", "Month view"; alternate_timeline_holder >
//        alternate_timeline_fragment_container > Views; timely_date_picker_container; the details'
//        `title`, info_action_overflow, menu TextViews `title`, android:id/button1/button2; the
//        editor's coordinator_layout > expanded_recycler, all_day_tile > Switch, the start/end
//        date and time TextViews; framework date and time pickers (radial_picker, am_label).
//   GC4  a Portuguese Appium test (find_string id 14248697249): schedule RecyclerView of Views
//        described "<title>, …", info_action_overflow > LinearLayout `content` items (Delete first).
//   GC5  TestGoogleCalendar UiAutomator tests (find_string ids 3832802841, 28159818512): "Add title",
//        descriptions "Start date: …", "Start time: …", "Add location", "Add description", "Save",
//        info_action_edit_hit; 31863132849: Buttons "Edit" and "Close"; 1942100291: confirm_button
//        (Material date picker), Button "Delete" confirming; 533650855: mtrl_picker_header_toggle.
//   GC6  ACE task code over real Google Calendar dumps (find_string id 28388042138): in the month view
//        day Views described "25 December: 3 items" (no count when empty), in the day/week views a
//        day header "… 25 December 2024, Open Day View" / "Open Schedule View" then the events.
// Dates are written as an en-US phone writes them: GC6's en-GB "25 December: 3 items" and "… 25 December
// 2024, Open Day View" become "December 25: 3 items" and "Wednesday, December 25, 2024, Open Day View"
// (the weekday as GC4's Portuguese day header has it).
// Where evidence is missing (the details' location line, the month banner, the wording of the
// editor's error and discard dialog) the screen keeps closest to what exists and says so.
import { html, registerFlavor, A, ui, go, replace, back, update, pad2 } from '../../os.js';
import {
  D, validDate, addDays, addMonths, today, dow, DAYS, shortDate, longDate, monthName, monthTitle, hm, tfmt,
  rangeText, evs, byId, span, eventsOn, groupByDay, initForm, ensureForm, dirty, endsBeforeStart, writeForm, applyPick,
  deleteEvent, duplicateEvent, popScreen, showDayBelow, searchHits, kbSpacer, kbWrap, closeDialog, focusField, toast,
} from '../calendar_core.js';
import { TV, LL, FL, VG, VIEW, BTN, IB, IV, LV, RV, press, PopupMenu, AlertFw, EditField, FwTimePicker, openFwTime,
  MdcDatePicker, openMdcDate } from '../calendar_fw.js';

const PKG = 'com.google.android.calendar';
const CSS = `
.gcal-main { position: absolute; inset: 0; display: flex; flex-direction: column; }
.gcal-tb { height: 56px; flex: 0 0 56px; display: flex; align-items: center; padding: 0 4px; gap: 2px; }
.gcal-tb .mon { flex: 1; font-size: calc(20px * var(--fs)); padding-left: 8px; display: flex; align-items: center; gap: 4px; }
.gcal-fab { position: absolute; right: 16px; bottom: 16px; width: 56px; height: 56px; border-radius: 16px; background: var(--primary-c); display: flex; align-items: center; justify-content: center; font-size: 28px; box-shadow: 0 2px 6px rgba(0,0,0,.3); z-index: 5; }
.gcal-banner { height: 96px; box-sizing: border-box; padding: 56px 16px 0 64px; font-size: 18px; font-weight: 500; background: linear-gradient(#cfe0fc, var(--bg)); }
.gcal-day { display: flex; padding: 4px 0; }
.gcal-day .hd { width: 60px; flex: 0 0 60px; text-align: center; font-size: 12px; color: var(--muted); }
.gcal-day .hd b { display: block; font-size: 20px; color: var(--fg); } .gcal-day .hd.td b { color: var(--primary); }
.gcal-day .evs { flex: 1; padding-right: 12px; }
.gcal-ev { height: 52px; box-sizing: border-box; margin-bottom: 6px; border-radius: 8px; background: var(--primary); color: var(--bg); padding: 5px 10px; font-size: 14px; overflow: hidden; }
.gcal-ev small { display: block; font-size: 12px; opacity: .9; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.gcal-none { height: 52px; margin-bottom: 6px; padding: 14px 10px; color: var(--muted); font-size: 14px; box-sizing: border-box; }
.gcal-mgrid { display: grid; grid-template-columns: repeat(7, 1fr); }
.gcal-mgrid .wd { text-align: center; font-size: 11px; color: var(--muted); padding: 4px 0; }
.gcal-mgrid .c { height: 96px; border-top: 1px solid var(--line); padding: 2px; overflow: hidden; font-size: 12px; text-align: center; }
.gcal-mgrid .c.td b { background: var(--primary); color: var(--bg); border-radius: 10px; padding: 0 5px; }
.gcal-mgrid .c .ch { font-size: 10px; background: var(--primary); color: var(--bg); border-radius: 3px; margin-top: 2px; white-space: nowrap; overflow: hidden; text-align: left; padding: 0 2px; }
.gcal-sheet-scrim { position: absolute; inset: 0; background: rgba(0,0,0,.3); z-index: 22; }
.gcal-speed { position: absolute; right: 16px; bottom: 84px; display: flex; flex-direction: column; gap: 12px; align-items: flex-end; }
.gcal-speed > div { display: flex; align-items: center; gap: 10px; background: var(--surface); border-radius: 24px; padding: 10px 16px; font-size: 15px; }
.gcal-drawer { position: absolute; left: 0; top: 0; bottom: 0; width: 78%; background: var(--bg); border-radius: 0 16px 16px 0; padding: 16px 0; }
.gcal-drawer .it { padding: 14px 24px; font-size: 15px; border-radius: 0 24px 24px 0; margin-right: 12px; } .gcal-drawer .it.on { background: var(--primary-c); font-weight: 600; }
.gcal-title { font-size: calc(24px * var(--fs)); padding: 12px 16px 4px 64px; overflow-wrap: anywhere; }
.gcal-line { padding: 6px 16px 6px 64px; font-size: 14px; }
.gcal-form .tile { display: flex; align-items: center; min-height: 52px; padding: 0 16px 0 64px; gap: 8px; border-bottom: 1px solid var(--line); }
.gcal-form .tile .g { flex: 1; } .gcal-form .tile .v { padding: 12px 4px; font-size: 15px; }
`;
if (typeof document !== 'undefined' && !document.getElementById('css-calendar-google')) {
  const el = document.createElement('style');
  el.id = 'css-calendar-google';
  el.textContent = CSS;
  document.head.appendChild(el);
}

const VIEWS = ['schedule', 'day', '3day', 'week', 'month'];
const VIEW_LABEL = { schedule: 'Schedule', day: 'Day', '3day': '3 days', week: 'Week', month: 'Month' };
const VIEW_DESC = { schedule: 'Schedule view', day: 'Day view', '3day': '3-days view', week: 'Week view', month: 'Month view' };
const BANNER_H = 96, EV_H = 58, DAY_PAD = 8; // schedule rows, fixed so that a day can be scrolled to
const routeDate = (p) => (validDate(p && p.date) ? p.date : today());
const thisYear = (d) => d.slice(0, 4) === today().slice(0, 4);
/** An event View's description: "<title>, <start> – <end>, <location>" / "<title>, All day: , <location>" (GC1, GC2). */
function evDesc(e, date) {
  const title = e.title || '(No title)';
  let when;
  if (e.all_day) when = 'All day: ';
  else {
    const sd = e.start.slice(0, 10), ed = e.end ? e.end.slice(0, 10) : sd;
    when = sd === ed ? rangeText(hm(e.start), e.end ? hm(e.end) : null)
      : `${sd === date ? tfmt(hm(e.start)) : tfmt('00:00')} – ${ed === date ? tfmt(hm(e.end)) : tfmt('23:59')}`;
  }
  return [title, when, e.location || null].filter((x) => x !== null).join(', ');
}
const dayHeaderDesc = (d, action = 'Open Day View') => `${longDate(d)}, ${action}`;
function setView(view, date, push = false) {
  (push ? go : replace)(view, { date });
  if (view === 'schedule') scheduleScroll({ s: 'schedule', p: { date } }, scheduleGroups(), date);
}

// ------------------------------------------------------------------------------------------
// the main activity: header > toolbar, the timeline, the speed-dial FAB (GC1, GC3)
function mainScreen(view, date, content) {
  const label = thisYear(date) ? monthName(date) : monthTitle(date);
  return html`<div class="gcal-main" ...${A(FL, {})}>
    <div ...${A(FL, { id: 'header' })}><div class="gcal-tb" ...${A(VG, { id: 'toolbar' })}>
      <div class="icon-btn" ...${A(IB, { desc: 'Show Calendar List and Settings drawer', click: true, text: '' })}
        ...${press(() => { ui().dialog = { kind: 'drawer', view, date }; })}>☰</div>
      <div class="mon" ...${A(LL, { id: 'date_picker_button', click: true })} ...${press(() => { ui().dialog = { kind: 'mini', view, ym: date.slice(0, 8) + '01' }; })}>
        <span ...${A(TV, { id: 'date_picker_text_view', text: label })}>${label}</span> ▾</div>
      <div class="icon-btn" ...${A(BTN, { id: 'action_search', desc: 'Search', click: true, text: '' })}
        ...${press(() => { ui().fields.gc_search = ''; go('search', {}); focusField('gc_search'); })}>🔍</div>
      <div class="icon-btn" ...${A(BTN, { id: 'action_today', desc: 'Jump to Today', click: true, text: '' })}
        ...${press(() => setView(view, today()))}>📅</div></div></div>
    <div style="flex:1;position:relative;display:flex;flex-direction:column;min-height:0" ...${A(FL, { id: 'alternate_timeline_holder' })}>
      <div style="flex:1;display:flex;flex-direction:column;min-height:0" ...${A(FL, { id: 'alternate_timeline_fragment_container' })}>${content}</div></div>
    <div class="gcal-fab" ...${A(IB, { id: 'floating_action_button', desc: 'Create new event and more', click: true, text: '' })}
      ...${press(() => { ui().dialog = { kind: 'speed', date }; })}>+</div>
  </div>`;
}

/** Schedule: month banners, then the days that have events (and today), each with its events. */
function scheduleGroups(list = evs(), withToday = true) {
  const groups = groupByDay(list);
  if (withToday && !groups.some((g) => g.date === today())) {
    groups.push({ date: today(), events: [] });
    groups.sort((a, b) => a.date.localeCompare(b.date));
  }
  return groups;
}
function scheduleScroll(route, groups, date) {
  let y = 0, month = '';
  for (const g of groups) {
    if (g.date.slice(0, 7) !== month) { month = g.date.slice(0, 7); if (g.date >= date) break; y += BANNER_H; }
    if (g.date >= date) break;
    y += Math.max(1, g.events.length) * EV_H + DAY_PAD;
  }
  ui().scroll[`calendar/${route.s}/${JSON.stringify(route.p)}`] = y;
}
function scheduleRows(groups, { years = false } = {}) {
  const out = [];
  let month = '', year = '';
  for (const g of groups) {
    if (years && g.date.slice(0, 4) !== year) { year = g.date.slice(0, 4); out.push(html`<div class="gcal-line" ...${A(VIEW, { desc: year, text: '' })}>${year}</div>`); }
    if (g.date.slice(0, 7) !== month) {
      month = g.date.slice(0, 7);
      out.push(html`<div class="gcal-banner" ...${A(TV, { text: monthTitle(g.date) })}>${monthTitle(g.date)}</div>`);
    }
    const td = g.date === today();
    out.push(html`<div class="gcal-day" style=${`min-height:${Math.max(1, g.events.length) * EV_H}px`}>
      <div class=${'hd' + (td ? ' td' : '')} ...${A(VIEW, { desc: dayHeaderDesc(g.date), click: true, text: '' })}
        ...${press(() => setView('day', g.date, true))}>${DAYS[dow(g.date)].slice(0, 3)}<b>${D(g.date).getUTCDate()}</b></div>
      <div class="evs">${g.events.length ? g.events.map((e) => html`<div class="gcal-ev" ...${A(VIEW, { desc: evDesc(e, g.date), click: true, text: '' })}
          ...${press(() => go('event', { id: e.id }))}>${e.title || '(No title)'}<small>${evDesc(e, g.date).slice((e.title || '(No title)').length + 2)}</small></div>`)
        : html`<div class="gcal-none" ...${A(TV, { text: 'Nothing planned. Tap to create.', desc: 'Nothing planned. Tap to create.', click: true })}
          ...${press(() => openEditor(null, g.date))}>Nothing planned. Tap to create.</div>`}</div></div>`);
  }
  return out;
}
function scheduleList(groups, key, opts) {
  return html`<div class="body scroll" data-scroll-key=${key} ...${A(RV, { scroll: true })}>${scheduleRows(groups, opts)}<div style="height:160px"></div></div>`;
}
function schedule(p) {
  const date = routeDate(p);
  const key = `calendar/schedule/${JSON.stringify(p)}`;
  if (ui().scroll[key] === undefined) scheduleScroll({ s: 'schedule', p }, scheduleGroups(), date); // opens at today
  return mainScreen('schedule', date, scheduleList(scheduleGroups(), key));
}

/** Day, 3 days, week: a header View per day, then its events as Views (GC6). */
function timeline(view, p, n) {
  const date = routeDate(p);
  const days = Array.from({ length: n }, (_, i) => addDays(date, i));
  const cols = days.map((d) => html`<div style="flex:1;min-width:0;padding:0 2px">
    <div class="hd" style="text-align:center;font-size:12px;padding:4px 0" ...${A(VIEW, { desc: dayHeaderDesc(d, n === 1 ? 'Open Schedule View' : 'Open Day View'), click: true, text: '' })}
      ...${press(() => (n === 1 ? setView('schedule', d) : setView('day', d, true)))}>${DAYS[dow(d)].slice(0, 3)} <b>${D(d).getUTCDate()}</b></div>
    ${eventsOn(d).map((e) => html`<div class="gcal-ev" ...${A(VIEW, { desc: evDesc(e, d), click: true, text: '' })}
      ...${press(() => go('event', { id: e.id }))}>${e.title || '(No title)'}<small>${evDesc(e, d).slice((e.title || '(No title)').length + 2)}</small></div>`)}</div>`);
  return mainScreen(view, date, html`<div class="body scroll" data-scroll-key=${`calendar/${view}/${JSON.stringify(p)}`} ...${A(VIEW, { text: '' })}>
    <div style="display:flex;padding:4px">${cols}</div></div>`);
}
const day = (p) => timeline('day', p, 1);
const threeDay = (p) => timeline('3day', p, 3);
const week = (p) => timeline('week', { date: addDays(routeDate(p), -dow(routeDate(p))) }, 7);

/** Month: a pager (swipe sideways) of day Views "March 18: 2 items" / "Thursday, March 18" (GC6). */
function monthCellDesc(d) {
  const n = eventsOn(d).length;
  return n ? `${monthName(d)} ${D(d).getUTCDate()}: ${n} item${n === 1 ? '' : 's'}` : `${DAYS[dow(d)]}, ${monthName(d)} ${D(d).getUTCDate()}`;
}
function month(p) {
  const date = routeDate(p);
  const first = date.slice(0, 8) + '01';
  const start = addDays(first, -dow(first));
  const cells = [];
  for (let i = 0; i < 42; i++) {
    const d = addDays(start, i);
    const mine = d.slice(0, 7) === date.slice(0, 7);
    const list = eventsOn(d);
    cells.push(html`<div class=${'c' + (d === today() ? ' td' : '')} style=${mine ? '' : 'opacity:.45'}
        ...${mine ? A(VIEW, { desc: monthCellDesc(d), click: true, text: '' }) : {}} ...${press(() => setView('day', d, true))}>
      <b>${D(d).getUTCDate()}</b>${list.slice(0, 3).map((e) => html`<div class="ch">${e.title || '(No title)'}</div>`)}</div>`);
  }
  const swipe = {
    onTouchStart: (e) => { const t = e.touches[0]; window.S2R.calSwipe = { x: t.clientX, y: t.clientY }; },
    onTouchEnd: (e) => {
      const s = window.S2R.calSwipe, t = e.changedTouches[0];
      window.S2R.calSwipe = null;
      if (!s) return;
      const dx = t.clientX - s.x, dy = t.clientY - s.y;
      if (Math.abs(dx) > 60 && Math.abs(dx) > Math.abs(dy)) update(() => replace('month', { date: addMonths(first, dx < 0 ? 1 : -1) }));
    },
  };
  return mainScreen('month', date, html`<div style="flex:1" ...${A('androidx.viewpager.widget.ViewPager', { scroll: true })} ...${swipe}>
    <div class="gcal-mgrid">${['S', 'M', 'T', 'W', 'T', 'F', 'S'].map((w) => html`<div class="wd">${w}</div>`)}${cells}</div></div>`);
}

// ------------------------------------------------------------------------------------------
// search (GC1 SearchPage, GC2): Back, the search field; results after the search key
function search(p) {
  const submit = () => {
    const q = String(ui().fields.gc_search || '').trim();
    if (!q) return;
    replace('search', { q });
    ui().focus = null; ui().keyboard = false;
    scheduleScroll({ s: 'search', p: { q } }, scheduleGroups(searchHits(q), false), today());
  };
  const groups = p.q ? scheduleGroups(searchHits(p.q), false) : [];
  return html`<div class="gcal-main" ...${A(FL, {})}>
    <div class="gcal-tb" ...${A(VG, { id: 'toolbar' })}>
      <div class="icon-btn" ...${A(IB, { desc: 'Back', click: true, text: '' })} ...${press(() => back())}>←</div>
      <div style="flex:1">${EditField({ field: 'gc_search', id: 'search_text', hint: 'Search', onSubmit: submit })}</div></div>
    <div style="flex:1;display:flex;flex-direction:column;min-height:0">${p.q ? (groups.length ? scheduleList(groups, `calendar/search/${JSON.stringify(p)}`, { years: true })
      : html`<div class="gcal-line" ...${A(TV, { text: 'No results' })}>No results</div>`) : null}</div>${kbSpacer()}</div>`;
}

// ------------------------------------------------------------------------------------------
// event details (GC1 EventPage, GC2, GC3, GC4, GC5)
function event(p) {
  const e = byId(p.id);
  if (!e) { return html`<div class="gcal-main"><div class="gcal-line" ...${A(TV, { text: 'Event not found' })}>Event not found</div></div>`; }
  const [sd, last] = span(e);
  const dateDesc = e.all_day && sd !== last ? `${longDate(sd)} – ${longDate(last)}` : longDate(sd);
  // no public dump shows this line's wording: "<weekday>, <start> – <end>", so that GC2's split at ',' then '–' reads it
  const timeDesc = e.all_day ? `${DAYS[dow(sd)]}, All day` : `${DAYS[dow(sd)]}, ${rangeText(hm(e.start), e.end && e.end.slice(0, 10) === sd ? hm(e.end) : null)}`;
  return html`<div class="gcal-main" ...${A(FL, {})}>
    <div class="gcal-tb" ...${A(VG, { id: 'header_action_bar' })}>
      <div class="icon-btn" ...${A(BTN, { desc: 'Close', click: true, text: '' })} ...${press(() => back())}>✕</div><div style="flex:1"></div>
      <div class="icon-btn" ...${A(BTN, { id: 'info_action_edit_hit', desc: 'Edit', click: true, text: '' })} ...${press(() => openEditor(e))}>✎</div>
      <div class="icon-btn" ...${A(IV, { id: 'info_action_overflow', desc: 'More options', click: true, text: '' })}
        ...${press(() => { ui().dialog = { kind: 'menu', id: e.id }; })}>⋮</div></div>
    <div class="body scroll" data-scroll-key=${`calendar/event/${p.id}`} ...${A('android.widget.ScrollView', { scroll: true })}>
      <div class="gcal-title" ...${A(TV, { id: 'title', text: e.title || '(No title)' })}>${e.title || '(No title)'}</div>
      <div class="gcal-line" ...${A(VIEW, { desc: dateDesc, text: '' })}>${dateDesc}</div>
      <div class="gcal-line" ...${A(VIEW, { desc: timeDesc, text: '' })}>${timeDesc.slice(DAYS[dow(sd)].length + 2)}</div>
      ${e.location ? html`<div class="gcal-line" ...${A(TV, { text: e.location })}>📍 ${e.location}</div>` : null}
      ${e.description ? html`<div class="gcal-line" ...${A(TV, { text: e.description })}>☰ ${e.description}</div>` : null}
      <div class="gcal-line" ...${A(TV, { text: '30 minutes before' })}>🔔 30 minutes before</div></div></div>`;
}

// ------------------------------------------------------------------------------------------
// the editor (GC1 EventCreationPage, GC3, GC5): Close, Save; title; the all-day tile; start and end
// date/time TextViews described "Start date: …"; location and description fields
function openEditor(e, baseDate) {
  initForm(e || null, baseDate);
  go('edit', { id: e ? e.id : null });
  if (!e) focusField('ev_title');
}
function saveGoogle(id) {
  const f = ui().fields;
  if (!validDate(f.ev_sd) || !validDate(f.ev_ed)) return;
  // not in the evidence: Google Calendar's wording when the end precedes the start (kept from the earlier model)
  if (endsBeforeStart(f)) { toast("The event can't end before it starts"); return; }
  const [, isNew] = writeForm(id);
  popScreen();
  if (isNew) showDayBelow(f.ev_sd, VIEWS);
  const s = ui().tasks.calendar, top = s[s.length - 1];
  if (isNew && top.s === 'schedule') scheduleScroll(top, scheduleGroups(), f.ev_sd);
}
function edit(p) {
  const f = ensureForm(p.id);
  const allDay = !!f.ev_allday;
  const close = () => { if (dirty()) ui().dialog = { kind: 'discard' }; else popScreen(); };
  const when = (which) => {
    const d = which === 'start' ? f.ev_sd : f.ev_ed, t = which === 'start' ? f.ev_st : f.ev_et;
    const W = which === 'start' ? 'Start' : 'End';
    return html`<div class="tile" ...${A(LL, {})}><div class="g" style="display:flex" ...${A(LL, {})}>
      <div class="v g" ...${A(TV, { text: shortDate(d), desc: `${W} date: ${shortDate(d)}`, click: true })}
        ...${press(() => openMdcDate('date', d, { which }))}>${shortDate(d)}</div>
      ${allDay ? null : html`<div class="v" ...${A(TV, { text: tfmt(t), desc: `${W} time: ${tfmt(t)}`, click: true })}
        ...${press(() => openFwTime('time', t, { which }))}>${tfmt(t)}</div>`}</div></div>`;
  };
  return html`<div class="gcal-main" ...${A(VG, { id: 'coordinator_layout' })}>
    <div class="gcal-tb" ...${A(VG, {})}>
      <div class="icon-btn" ...${A(BTN, { desc: 'Close', click: true, text: '' })} ...${press(close)}>✕</div><div style="flex:1"></div>
      <div class="btn filled" ...${A(BTN, { id: 'save', text: 'Save', click: true })} ...${press(() => saveGoogle(p.id))}>Save</div></div>
    <div class="body scroll gcal-form" data-scroll-key=${`calendar/edit/${p.id}`} ...${A(RV, { id: 'expanded_recycler', scroll: true })}>
      <div style="padding:4px 16px 8px 64px">${EditField({ field: 'ev_title', id: 'title', hint: 'Add title' })}</div>
      <div ...${A(LL, {})}>
        <div class="tile" ...${A(VG, { id: 'all_day_tile', click: true })} ...${press(() => { f.ev_allday = !allDay; })}>
          <div class="g" ...${A(TV, { text: 'All-day' })}>All-day</div>
          <div class=${'switch' + (allDay ? ' on' : '')} ...${A('android.widget.Switch', { click: true, checkable: true, checked: allDay, text: '' })}><div class="knob"></div></div></div>
        ${when('start')}${when('end')}</div>
      <div class="tile">${EditField({ field: 'ev_loc', hint: 'Add location', style: 'flex:1' })}</div>
      <div class="tile"><div class="v g" ...${A(TV, { text: '30 minutes before' })}>30 minutes before</div></div>
      <div class="tile"><div class="v g" ...${A(TV, { text: 'Default color' })}>Default color</div></div>
      <div class="tile">${EditField({ field: 'ev_desc', hint: 'Add description', style: 'flex:1', multiline: true })}</div>
      <div style="height:180px"></div></div>${kbSpacer()}</div>`;
}

// ------------------------------------------------------------------------------------------
// dialogs
function drawer(d) {
  return html`<div class="gcal-sheet-scrim" onClick=${(e) => { if (e.target === e.currentTarget) update(closeDialog); }}>
    <div class="gcal-drawer" ...${A(FL, {})}>
      <div style="font-size:22px;padding:8px 24px 16px" ...${A(TV, { text: 'Google Calendar' })}>Google Calendar</div>
      <div ...${A(LV, { id: 'drawer_list' })}>
        ${VIEWS.map((v) => html`<div class=${'it' + (d.view === v ? ' on' : '')} ...${A(TV, { text: VIEW_LABEL[v], desc: VIEW_DESC[v] + (d.view === v ? ', Selected' : ''), click: true })}
          ...${press(() => { closeDialog(); setView(v, d.date); })}>${VIEW_LABEL[v]}</div>`)}
        <div style="border-top:1px solid var(--line);margin:8px 0"></div>
        ${['Settings', 'Help & feedback'].map((x) => html`<div class="it" ...${A(TV, { text: x, click: true })} ...${press(closeDialog)}>${x}</div>`)}</div></div></div>`;
}
function speedDial(d) {
  const item = (id, label, fn) => html`<div ...${A(LL, { id, click: true })} ...${press(() => { closeDialog(); fn(); })}>
    <span ...${A(TV, { text: label })}>${label}</span><span ...${A(IV, { id: 'speed_dial_icon', text: '' })}>●</span></div>`;
  return html`<div class="gcal-sheet-scrim" onClick=${(e) => { if (e.target === e.currentTarget) update(closeDialog); }}>
    <div class="gcal-speed">${item('tasks_speed_dial_container', 'Task', () => {})}${item('speed_dial_event_container', 'Event', () => openEditor(null, d.date))}</div></div>`;
}
/** The toolbar's month button opens a small month (timely_date_picker_container, GC3): a day jumps there. */
function mini(d) {
  const first = d.ym, start = addDays(first, -dow(first));
  const cells = [];
  for (let i = 0; i < 42; i++) {
    const x = addDays(start, i);
    cells.push(html`<div class="c" style="height:34px" ...${A(VIEW, { click: true, text: '' })} ...${press(() => { closeDialog(); setView(d.view, x); })}>${D(x).getUTCDate()}</div>`);
  }
  return html`<div class="gcal-sheet-scrim" style="background:transparent;top:56px" onClick=${(e) => { if (e.target === e.currentTarget) update(closeDialog); }}>
    <div style="background:var(--bg);padding:4px 8px" ...${A(FL, { id: 'timely_date_picker_container' })}>
      <div ...${A('androidx.viewpager.widget.ViewPager', {})}><div class="gcal-mgrid" ...${A(VIEW, { text: '' })}>${cells}</div></div></div></div>`;
}
const dialogs = {
  drawer, speed: speedDial, mini,
  menu: (d) => PopupMenu([
    { label: 'Delete', onClick: () => { ui().dialog = { kind: 'delete', id: d.id }; } },
    { label: 'Duplicate', onClick: () => { const c = duplicateEvent(d.id); if (c) replace('event', { id: c.id }); } }], { top: 56 }),
  delete: (d) => AlertFw({ message: 'Delete this event?',
    negative: { label: 'Cancel', onClick: closeDialog },
    positive: { label: 'Delete', onClick: () => { deleteEvent(d.id); closeDialog(); back(); } } }),
  discard: () => AlertFw({ message: 'Discard this event?',
    negative: { label: 'Keep editing', onClick: closeDialog },
    positive: { label: 'Discard', onClick: popScreen } }),
  date: (d) => MdcDatePicker(d, (date) => applyPick(d.which, date, d.which === 'start' ? ui().fields.ev_st : ui().fields.ev_et)),
  time: (d) => FwTimePicker(d, (h, m) => { const f = ui().fields; applyPick(d.which, d.which === 'start' ? f.ev_sd : f.ev_ed, `${pad2(h)}:${pad2(m)}`); }),
};

registerFlavor('google', 'calendar', {
  pkg: PKG,
  root: { s: 'schedule', p: {} },
  screens: { schedule, day, '3day': threeDay, week, month, search, event, edit, main: schedule },
  dialogs: Object.fromEntries(Object.entries(dialogs).map(([k, fn]) => [k, (d) => kbWrap(fn(d))])),
  onBack: (r) => {
    if (r.s === 'edit' && dirty()) { ui().dialog = { kind: 'discard' }; return true; }
    return false;
  },
  // the views, search, details and editor are screens of one activity (com.android.calendar.newapi.screen.*)
  activity: () => `${PKG}/com.android.calendar.AllInOneActivity`,
});
