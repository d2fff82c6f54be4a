// Calendar, flavor `aosp`: AOSP's Calendar as LineageOS ships it today — Etar (a fork of AOSP
// Calendar that keeps its ids and layouts; LineageOS/android_packages_apps_Etar @
// b0509477aa72d3398c1e78c5cdbce2690030a46e, branch lineage-21.0, under app/src/main). The
// package stays com.android.calendar (AOSP's own, which Etar overrides on LineageOS).
//
// Screens, each with the files it follows (res/ and java/com/android/calendar/ under app/src/main):
//   main views  res/layout/all_in_one_material.xml (DrawerLayout drawer_layout > CoordinatorLayout
//               coordinator_layout > all_in_one.xml main_pane; AppBarLayout > Toolbar toolbar;
//               FloatingActionButton floating_action_button, no description; NavigationView
//               navigation_view with res/menu/calendar_view.xml: Day, Week, Month, Agenda, then
//               Settings, About Calendar). AllInOneActivity.java:499-510 (the toolbar's navigation
//               icon opens the drawer; setDisplayHomeAsUpEnabled: AppCompat describes it "Navigate
//               up"), :529-546 (the FAB creates an event at the shown time, rounded up to :30/:00),
//               :831-837 (back from a detail view returns to the previous view), :920-960 (Go to…
//               opens the framework DatePickerDialog), :1461 (a submitted search starts
//               SearchActivity); res/menu/all_in_one_title_bar.xml (Today and Info as icons — 3
//               action slots on a phone — then Go to…, Refresh, Search, View settings (month only)
//               in the overflow); CalendarToolbarHandler.java:81-101 (title "March 2027" in the
//               week and month views; "March 18, 2027" and the weekday ("Today, Monday") as
//               subtitle in the day and agenda views). The default start view is the week
//               (settings/GeneralPreferences.kt:564 DEFAULT_START_VIEW = WEEK).
//   week/day    DayFragment in res/layout/day_activity.xml (ViewSwitcher switcher > DayView): drawn
//               on a canvas (DayView.java extends View) — no per-event nodes; a tap on an event opens it.
//   month       res/layout/full_month_by_week.xml (day_names > d0_label..d6_label "SUN".."SAT",
//               MonthListView android:id/list of MonthWeekEventsView rows, drawn); a day opens the
//               day view there.
//   agenda      res/layout/agenda_fragment.xml (agenda_sticky_header_list > AgendaListView
//               agenda_events_list), agenda_day.xml (day "THURSDAY" / "TODAY, MONDAY", date "March 18"
//               — the year only when it is not this year's: agenda/AgendaByDayAdapter.java:215-236,
//               Utils.getDayOfWeekString), agenda_item.xml (GridLayout android:id/content >
//               agenda_item_color, agenda_item_text_container > title, when, where;
//               agenda/AgendaAdapter.java:160-220: "(No title)", when "10:00 – 11:00", where only
//               when set). Only days with events are listed.
//   search      SearchActivity.java:101-280 with res/layout/simple_frame_layout_material.xml
//               (main_frame > app_bar toolbar, body_frame) and res/menu/search_title_bar.xml (the
//               SearchView expanded: search_src_text, search_close_btn; Today; Settings in the
//               overflow); results in the agenda list, days as above.
//   event info  EventInfoFragment.java:801-806 (toolbar: back arrow, no title), :900-903 (the
//               headline's Edit/Delete buttons are gone on a phone), :1098-1140 and
//               res/menu/event_info_title_bar.xml (Edit, Delete as icons; Duplicate, Share, Export to SD
//               card in the overflow); res/layout/event_info.xml (event_info_scroll_view,
//               description > expandable_text, Reminders, reminder_add "Add reminder"),
//               event_info_headline.xml (event_info_headline > title, when_datetime, where); the
//               date line from Utils.getDisplayedDatetime (Utils.java:1520-1600): "Thursday, March 18,
//               10:00 – 11:00", "Today at 10:00 – 11:00", "Tomorrow"; the year only when not this year's.
//   editor      event/EditEventActivity.java:66-95 and event/EditEventFragment.java:317-348 (on a phone
//               the toolbar holds res/layout/edit_event_custom_actionbar.xml: action_cancel "Cancel",
//               action_done "Done"), res/layout/edit_event.xml > edit_event_all.xml (TextInputEditText
//               title hint "Event name"; calendars_spinner; is_all_day_label "All day" + SwitchCompat
//               is_all_day "All day event"; Buttons start_date, start_time, end_date, end_time
//               described "Start date" …; location hint "Location"; description hint "Description";
//               url hint "URL"; rrule "One-time event"; reminder_add). event/EditEventView.java:1391-1430
//               ("Thu, Mar 18, 2027", "10:00"), :1690-1880 (framework TimePickerDialog and
//               DatePickerDialog; a later start keeps the duration, an end time before the start
//               moves the end to the next day, an end date before the start becomes the start).
//               EditEventFragment.java:419-443, 566-570, 930-965: Done saves ("Event created." /
//               "Event saved."; an untouched new event: "Empty event not created."), Cancel
//               discards, leaving the screen (back) saves; then the main view shows the event's day.
//   delete      DeleteEventHelper.java:257-289: framework AlertDialog "Delete this event?",
//               Cancel / OK; the event info closes.
import { html, registerFlavor, A, ui, go, replace, back, update, nowIso, pad2 } from '../os.js';
import {
  PKG, D, validDate, addDays, today, dow, DAYS, MONTHS, shortDate, monthTitle, monthDay, hm, tfmt, mins,
  fromMins, rangeText, evs, byId, span, eventsOn, groupByDay, initForm, ensureForm, dirty, timesChanged, writeForm,
  deleteEvent, popScreen, showDayBelow, searchHits, kbSpacer, kbWrap, closeDialog, focusField, toast,
} from './calendar_core.js';
import { TV, LL, FL, VG, VIEW, BTN, IB, LV, SV, press, Toolbar, PopupMenu, AlertFw, EditField,
  FwDatePicker, openFwDate, FwTimePicker, openFwTime } from './calendar_fw.js';

const CSS = `
.etar-main { position: absolute; inset: 0; display: flex; flex-direction: column; }
.etar-pane { flex: 1; position: relative; overflow: hidden; display: flex; flex-direction: column; }
.etar-fab { position: absolute; right: 16px; bottom: 16px; width: 56px; height: 56px; border-radius: 16px; background: var(--primary); color: var(--bg);
  display: flex; align-items: center; justify-content: center; font-size: 28px; box-shadow: 0 2px 6px rgba(0,0,0,.3); z-index: 5; }
.etar-dayhead { display: flex; padding-left: 44px; border-bottom: 1px solid var(--line); }
.etar-dayhead div { flex: 1; text-align: center; font-size: 12px; padding: 4px 0; color: var(--muted); }
.etar-tl { position: relative; margin-left: 44px; }
.etar-tl .hr { position: absolute; left: -44px; width: 40px; text-align: right; font-size: 11px; color: var(--muted); transform: translateY(-6px); }
.etar-tl .ln { position: absolute; left: 0; right: 0; border-top: 1px solid var(--line); }
.etar-tl .ev { position: absolute; background: var(--primary); color: var(--bg); border-radius: 3px; padding: 1px 3px; font-size: 11px; overflow: hidden; box-sizing: border-box; }
.etar-mhead { display: flex; } .etar-mhead div { flex: 1; text-align: center; font-size: 11px; color: var(--muted); padding: 4px 0; }
.etar-week { display: flex; height: 92px; border-top: 1px solid var(--line); }
.etar-week > div { flex: 1; border-right: 1px solid var(--line); overflow: hidden; font-size: 12px; padding: 2px; }
.etar-week .o { opacity: .45; } .etar-week .td b { color: var(--primary); }
.etar-week .c { font-size: 10px; background: var(--primary); color: var(--bg); border-radius: 2px; margin-top: 1px; white-space: nowrap; overflow: hidden; }
.etar-aday { height: 56px; box-sizing: border-box; padding: 4px 16px 0; background: var(--surface); border-top: 1px solid var(--line); }
.etar-aday .d1 { font-size: 12px; color: var(--muted); } .etar-aday .d2 { font-size: 20px; }
.etar-aitem { height: 72px; box-sizing: border-box; display: flex; align-items: flex-start; padding: 8px 16px 0 16px; border-top: 1px solid var(--line); gap: 8px; }
.etar-aitem .chip { width: 16px; height: 16px; border-radius: 3px; background: var(--primary); margin-top: 4px; flex: 0 0 16px; }
.etar-aitem .tx { min-width: 0; } .etar-aitem .tx div { white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.etar-aitem .t { font-weight: 600; font-size: 17px; } .etar-aitem .w { font-size: 13px; color: var(--muted); }
.etar-drawer-scrim { position: absolute; inset: 0; background: rgba(0,0,0,.35); z-index: 22; }
.etar-drawer { position: absolute; left: 0; top: 0; bottom: 0; width: 76%; background: var(--bg); padding: 8px 0; }
.etar-dri { padding: 14px 20px; font-size: 15px; display: flex; } .etar-dri.on { background: var(--primary-c); font-weight: 600; }
.etar-head { background: var(--primary-c); padding: 8px 16px 14px 16px; }
.etar-head .t { font-size: calc(24px * var(--fs)); overflow-wrap: anywhere; } .etar-head .w { font-size: 15px; padding-top: 4px; }
.etar-sec { padding: 10px 16px; font-size: 15px; }
.etar-form { padding: 4px 16px; } .etar-form .r { display: flex; align-items: center; gap: 8px; min-height: 48px; border-bottom: 1px solid var(--line); }
.etar-form .b { padding: 10px 4px; font-size: 15px; } .etar-form .b.g { flex: 1; }
.etar-ab { display: flex; flex: 1; } .etar-ab > div { flex: 1; display: flex; justify-content: center; }
.etar-ab span { padding: 12px; font-size: 16px; font-weight: 500; }
`;
if (typeof document !== 'undefined' && !document.getElementById('css-calendar-aosp')) {
  const el = document.createElement('style');
  el.id = 'css-calendar-aosp';
  el.textContent = CSS;
  document.head.appendChild(el);
}

const VIEWS = ['day', 'week', 'month', 'agenda'];
const VIEW_LABEL = { day: 'Day', week: 'Week', month: 'Month', agenda: 'Agenda' };
const HOUR_H = 48;
const DAY_H = 56, ITEM_H = 72; // agenda_day (48dp + padding) and agenda_item rows, fixed so a date can be scrolled to
const routeDate = (p) => (validDate(p && p.date) ? p.date : today());
const isToday = (d) => d === today();
const weekStart = (d) => addDays(d, -dow(d));
/** CalendarToolbarHandler: [title, subtitle] for a view showing `date`. */
function toolbarTitle(view, date) {
  if (view === 'week' || view === 'month') return [monthTitle(date), ''];
  const wd = DAYS[dow(date)];
  const rel = isToday(date) ? `Today, ${wd}` : date === addDays(today(), 1) ? `Tomorrow, ${wd}` : date === addDays(today(), -1) ? `Yesterday, ${wd}` : wd;
  return [`${MONTHS[D(date).getUTCMonth()]} ${D(date).getUTCDate()}, ${date.slice(0, 4)}`, rel];
}
/** Scroll the agenda of route `params` so that `date` (or the next day with events) is at the top. */
function agendaScroll(params, groups, date) {
  let y = 0;
  for (const g of groups) { if (g.date >= date) break; y += DAY_H + g.events.length * ITEM_H; }
  ui().scroll[`calendar/${params.s}/${JSON.stringify(params.p)}`] = y;
}
function showView(view, date, push = false) {
  (push ? go : replace)(view, { date });
  if (view === 'agenda') agendaScroll({ s: 'agenda', p: { date } }, groupByDay(evs()), date);
}

// ------------------------------------------------------------------------------------------
// the main activity: toolbar, the view in main_pane, the FAB
function newEventAt(date) {
  let [h, m] = hm(nowIso()).split(':').map(Number);
  if (m > 30) { h += 1; m = 0; } else if (m > 0 && m < 30) m = 30;
  const [d, st] = fromMins(mins(date, '00:00') + h * 60 + m);
  openEditor(null, { date: d, time: st });
}
function mainScreen(view, date, content, { searchBar = null } = {}) {
  const [title, subtitle] = toolbarTitle(view, date);
  const tb = searchBar || Toolbar({
    nav: { desc: 'Navigate up', onClick: () => { ui().dialog = { kind: 'drawer', view, date }; } },
    title, subtitle,
    actions: [{ id: 'action_today', desc: 'Today', icon: '📅', onClick: () => showView(view, today()) },
      { id: 'action_info', desc: 'Info', icon: 'ⓘ', onClick: () => {} }],
    overflow: { onClick: () => { ui().dialog = { kind: 'menu', of: 'main', view, date }; } },
  });
  return html`<div class="etar-main" ...${A(VG, { id: 'drawer_layout' })}>
    <div class="etar-main" ...${A(VG, { id: 'coordinator_layout' })}>
      <div ...${A(LL, {})}>${tb}</div>
      <div class="etar-pane" ...${A(FL, { id: 'main_pane' })}>${content}</div>
      ${searchBar ? null : html`<div class="etar-fab" ...${A(IB, { id: 'floating_action_button', click: true, text: '' })}
        ...${press(() => newEventAt(date))}>+</div>`}
    </div>${kbSpacer()}</div>`;
}

/** DayView (week and day): drawn — one View without text; events are drawn, a tap opens one. */
function timeline(days) {
  const blocks = [];
  days.forEach((d, col) => {
    const w = 100 / days.length;
    for (const e of eventsOn(d)) {
      const s = e.all_day ? 0 : (e.start.slice(0, 10) < d ? 0 : mins('1970-01-01', hm(e.start)));
      const en = e.all_day ? 30 : !e.end ? s + 60 : e.end.slice(0, 10) > d ? 1440 : Math.max(mins('1970-01-01', hm(e.end)), s + 30);
      blocks.push(html`<div class="ev" style=${`top:${(s / 60) * HOUR_H}px;height:${((en - s) / 60) * HOUR_H - 2}px;left:${col * w}%;width:calc(${w}% - 2px)`}
        onClick=${() => update(() => go('event', { id: e.id }))}>${e.title || '(No title)'}</div>`);
    }
  });
  const rows = [];
  for (let h = 0; h < 24; h++) {
    rows.push(html`<div class="ln" style=${`top:${h * HOUR_H}px`}></div>`);
    if (h) rows.push(html`<div class="hr" style=${`top:${h * HOUR_H}px`}>${tfmt(`${pad2(h)}:00`)}</div>`);
  }
  const key = `calendar/${days.length}/${days[0]}`;
  if (ui().scroll[key] === undefined) ui().scroll[key] = 7 * HOUR_H;
  return html`<div class="etar-dayhead">${days.map((d) => html`<div>${DAYS[dow(d)].slice(0, 3).toUpperCase()} ${D(d).getUTCDate()}</div>`)}</div>
    <div style="flex:1;overflow:hidden;position:relative" ...${A('android.widget.ViewSwitcher', { id: 'switcher' })}>
      <div class="body scroll" style="height:100%" data-scroll-key=${key} ...${A(VIEW, { text: '' })}>
        <div class="etar-tl" style=${`height:${24 * HOUR_H + 8}px`}>${rows}${blocks}</div></div></div>`;
}
const weekContent = (d) => timeline([0, 1, 2, 3, 4, 5, 6].map((i) => addDays(weekStart(d), i)));
const dayContent = (d) => timeline([d]);

function monthContent(date) {
  const first = date.slice(0, 8) + '01';
  const start = weekStart(first);
  const rows = [];
  for (let w = 0; w < 6; w++) {
    const cells = [];
    for (let i = 0; i < 7; i++) {
      const d = addDays(start, w * 7 + i);
      const list = eventsOn(d);
      cells.push(html`<div class=${(d.slice(0, 7) !== date.slice(0, 7) ? 'o' : '') + (isToday(d) ? ' td' : '')}
          onClick=${() => update(() => showView('day', d, true))}><b>${D(d).getUTCDate()}</b>
        ${list.slice(0, 3).map((e) => html`<div class="c">${e.title}</div>`)}</div>`);
    }
    rows.push(html`<div class="etar-week" ...${A(VIEW, { text: '' })}>${cells}</div>`);
  }
  return html`<div ...${A(LL, { id: 'month' })}>
      <div class="etar-mhead" ...${A(LL, { id: 'day_names' })}>${[0, 1, 2, 3, 4, 5, 6].map((i) => html`<div
        ...${A(TV, { id: `d${i}_label`, text: DAYS[i].slice(0, 3).toUpperCase() })}>${DAYS[i].slice(0, 3).toUpperCase()}</div>`)}</div>
      <div ...${A(LV, { id: 'android:id/list', scroll: true })}>${rows}</div></div>`;
}

/** AgendaListView rows: agenda_day headers and agenda_item rows (ids from agenda_day.xml, agenda_item.xml). */
function agendaRows(groups) {
  const out = [];
  for (const g of groups) {
    const wd = DAYS[dow(g.date)];
    const d1 = (isToday(g.date) ? `Today, ${wd}` : g.date === addDays(today(), 1) ? `Tomorrow, ${wd}` : g.date === addDays(today(), -1) ? `Yesterday, ${wd}` : wd).toUpperCase();
    const d2 = monthDay(g.date);
    out.push(html`<div class="etar-aday" ...${A(LL, {})}>
      <div class="d1" ...${A(TV, { id: 'day', text: d1 })}>${d1}</div>
      <div class="d2" ...${A(TV, { id: 'date', text: d2 })}>${d2}</div></div>`);
    for (const e of g.events) {
      const [a, b] = span(e);
      const when = e.all_day ? (a === b ? monthDay(a) : a.slice(0, 7) === b.slice(0, 7) ? `${monthDay(a).replace(/, \d{4}$/, '')} – ${D(b).getUTCDate()}${monthDay(b).match(/, \d{4}$/)?.[0] || ''}` : `${monthDay(a)} – ${monthDay(b)}`)
        : rangeText(hm(e.start), e.end && e.end.slice(0, 10) === e.start.slice(0, 10) ? hm(e.end) : null);
      out.push(html`<div class="etar-aitem" ...${A('android.widget.GridLayout', { id: 'android:id/content', click: true })}
          ...${press(() => go('event', { id: e.id }))}>
        <div class="chip" ...${A(VIEW, { id: 'agenda_item_color', text: '' })}></div>
        <div class="tx" ...${A(LL, { id: 'agenda_item_text_container' })}>
          <div class="t" ...${A(TV, { id: 'title', text: e.title || '(No title)' })}>${e.title || '(No title)'}</div>
          <div class="w" ...${A(TV, { id: 'when', text: when })}>${when}</div>
          ${e.location ? html`<div class="w" ...${A(TV, { id: 'where', text: e.location })}>${e.location}</div>` : null}</div></div>`);
    }
  }
  return out;
}
// The list holds every day with events, opened at the day gone to; the real AgendaWindowAdapter loads
// windows of days as the list nears an end, and StickyHeaderListView pins a copy of the top day's header
// over the list (left out here: a second `date` node of the same day).
function agendaList(groups, scrollKey) {
  return html`<div style="flex:1;display:flex;min-height:0" ...${A(LL, {})}>
    <div style="flex:1;display:flex;min-height:0" ...${A(FL, { id: 'agenda_sticky_header_list' })}>
      <div class="body scroll" data-scroll-key=${scrollKey} ...${A(LV, { id: 'agenda_events_list', scroll: true })}>
        ${agendaRows(groups)}<div style="height:120px"></div></div></div></div>`;
}
function agendaContent(date) {
  const p = validDate(ui().tasks.calendar?.at(-1)?.p?.date) ? { date } : {};
  const key = `calendar/agenda/${JSON.stringify(p)}`;
  if (ui().scroll[key] === undefined) agendaScroll({ s: 'agenda', p }, groupByDay(evs()), date); // AgendaListView.goTo(today)
  return agendaList(groupByDay(evs()), key);
}
const CONTENT = { week: weekContent, day: dayContent, month: monthContent, agenda: agendaContent };
const viewScreen = (v) => (p) => mainScreen(v, routeDate(p), CONTENT[v](routeDate(p)));
const week = viewScreen('week'), day = viewScreen('day'), month = viewScreen('month'), agenda = viewScreen('agenda');

// ------------------------------------------------------------------------------------------
// search: the SearchView expanded in the main toolbar, then SearchActivity with the results
function searchView(onSubmit) {
  return html`<div style="flex:1;display:flex;align-items:center" ...${A(LL, { id: 'search_bar' })}>
    <div style="flex:1" ...${A(LL, { id: 'search_edit_frame' })}><div ...${A(LL, { id: 'search_plate' })}>
      ${EditField({ field: 'cal_search', id: 'search_src_text', hint: 'Search', cls: 'android.widget.AutoCompleteTextView', onSubmit })}</div></div>
    ${String(ui().fields.cal_search || '') ? html`<div class="icon-btn" ...${A('android.widget.ImageView', { id: 'search_close_btn', desc: 'Clear query', click: true, text: '' })}
      ...${press(() => { ui().fields.cal_search = ''; focusField('cal_search'); })}>✕</div>` : null}</div>`;
}
function search(p) {
  const submit = () => {
    const q = String(ui().fields.cal_search || '').trim();
    if (!q) return;
    const params = { q };
    replace('search', params);
    const groups = groupByDay(searchHits(q));
    agendaScroll({ s: 'search', p: params }, groups, today());
  };
  if (p.q === undefined) {
    // AllInOneActivity with its search action view expanded: Collapse, the SearchView; the view stays below
    const bar = Toolbar({ nav: { desc: 'Collapse', icon: '←', onClick: () => back() }, custom: searchView(submit) });
    const v = VIEWS.includes(p.view) ? p.view : 'week';
    return mainScreen(v, routeDate(p), CONTENT[v](routeDate(p)), { searchBar: bar });
  }
  const groups = groupByDay(searchHits(p.q));
  return html`<div class="etar-main" ...${A(LL, { id: 'main_frame' })}>
    ${Toolbar({ nav: { desc: 'Collapse', icon: '←', onClick: () => back() }, custom: searchView(submit),
      actions: [{ id: 'action_today', desc: 'Today', icon: '📅', onClick: () => agendaScroll({ s: 'search', p }, groups, today()) }],
      overflow: { onClick: () => { ui().dialog = { kind: 'menu', of: 'search' }; } } })}
    <div class="etar-pane" ...${A(FL, { id: 'body_frame' })}>${agendaList(groups, `calendar/search/${JSON.stringify(p)}`)}</div>${kbSpacer()}</div>`;
}

// ------------------------------------------------------------------------------------------
// event info
/** Utils.getDisplayedDatetime: the headline's date line. */
export function displayedDatetime(e) {
  const [sd, last] = span(e);
  const yr = (d) => (d.slice(0, 4) === today().slice(0, 4) ? '' : `, ${d.slice(0, 4)}`);
  const full = (d) => `${DAYS[dow(d)]}, ${MONTHS[D(d).getUTCMonth()]} ${D(d).getUTCDate()}${yr(d)}`;
  const abbr = (d) => `${DAYS[dow(d)].slice(0, 3)}, ${MONTHS[D(d).getUTCMonth()].slice(0, 3)} ${D(d).getUTCDate()}${yr(d)}`;
  if (e.all_day) {
    if (sd === last) return isToday(sd) ? 'Today' : sd === addDays(today(), 1) ? 'Tomorrow' : full(sd);
    return `${abbr(sd)} – ${abbr(last)}`;
  }
  const ed = e.end ? e.end.slice(0, 10) : sd;
  if (ed === sd) {
    const t = rangeText(hm(e.start), e.end ? hm(e.end) : null);
    return isToday(sd) ? `Today at ${t}` : sd === addDays(today(), 1) ? `Tomorrow at ${t}` : `${full(sd)}, ${t}`;
  }
  return `${abbr(sd)}, ${tfmt(hm(e.start))} – ${abbr(ed)}, ${tfmt(hm(e.end))}`;
}
function event(p) {
  const e = byId(p.id);
  const home = () => { const s = ui().tasks.calendar; while (s.length > 1) s.pop(); };
  const tb = Toolbar({ nav: { desc: 'Navigate up', icon: '←', onClick: home },
    actions: e ? [{ id: 'info_action_edit', desc: 'Edit', icon: '✎', onClick: () => { replace('edit', { id: e.id }); initForm(e); } },
      { id: 'info_action_delete', desc: 'Delete', icon: '🗑', onClick: () => { ui().dialog = { kind: 'delete', id: e.id }; } }] : [],
    overflow: e ? { onClick: () => { ui().dialog = { kind: 'menu', of: 'event', id: e.id }; } } : null });
  const body = e ? html`
      <div class="etar-head" ...${A(LL, { id: 'event_info_headline' })}>
        <div ...${A(LL, {})}><div class="t" ...${A(TV, { id: 'title', text: e.title || '(No title)' })}>${e.title || '(No title)'}</div></div>
        <div class="w" ...${A(TV, { id: 'when_datetime', text: displayedDatetime(e) })}>${displayedDatetime(e)}</div>
        ${e.location ? html`<div class="w" ...${A(TV, { id: 'where', text: e.location })}>${e.location}</div>` : null}</div>
      <div ...${A(LL, {})}>
        ${e.description ? html`<div class="etar-sec" ...${A(LL, { id: 'description' })}><div ...${A(TV, { id: 'expandable_text', text: e.description })}>${e.description}</div></div>` : null}
        <div class="etar-sec" style="color:var(--muted)" ...${A(TV, { text: 'Reminders' })}>Reminders</div>
        <div ...${A(LL, { id: 'reminder_items_container' })}></div>
        <div class="etar-sec" ...${A(BTN, { id: 'reminder_add', text: 'Add reminder', desc: 'Add reminder', click: true })} ...${press(() => {})}>Add reminder</div></div>`
    : html`<div class="etar-sec" ...${A(TV, { id: 'event_info_error_msg', text: 'Event not found' })}>Event not found</div>`;
  return html`<div class="etar-main" ...${A(FL, {})}><div class="etar-main" ...${A('android.widget.RelativeLayout', {})}>
    <div ...${A(LL, { id: 'bar' })}>${tb}</div>
    <div class="body scroll" data-scroll-key=${`calendar/event/${p.id}`} ...${A(SV, { id: 'event_info_scroll_view', scroll: true })}>${body}</div></div></div>`;
}

// ------------------------------------------------------------------------------------------
// the editor
function openEditor(e, { date, time, copy } = {}) {
  initForm(e || null, date);
  const f = ui().fields;
  if (!e && time) { [f.ev_sd, f.ev_st] = [date, time]; [f.ev_ed, f.ev_et] = fromMins(mins(date, time) + 60); f.ev_init = JSON.stringify(['', '', '', false, f.ev_sd, f.ev_st, f.ev_ed, f.ev_et]); }
  if (copy) { initForm(copy); f.ev_init = '[]'; }
  go('edit', { id: e ? e.id : null });
  focusField('ev_title');
}
/** Done (or leaving the screen): save unless it is an untouched new event; then the main view. */
function saveEtar(id) {
  const f = ui().fields;
  const empty = !id && !String(f.ev_title || '').trim() && !String(f.ev_loc || '').trim() && !String(f.ev_desc || '').trim() && !timesChanged();
  if (empty) { popScreen(); toast('Empty event not created.'); return; }
  const changed = !id || dirty();
  if (changed) writeForm(id);
  popScreen();
  showDayBelow(f.ev_sd, VIEWS);
  const s = ui().tasks.calendar, top = s[s.length - 1];
  if (top.s === 'agenda') agendaScroll(top, groupByDay(evs()), f.ev_sd);
  if (changed) toast(id ? 'Event saved.' : 'Event created.');
}
/** EditEventView's DateListener / TimeListener. */
function onDateSet(which, date) {
  const f = ui().fields;
  if (which === 'start') {
    const shift = (D(date) - D(f.ev_sd)) / 86400000;
    f.ev_sd = date; f.ev_ed = addDays(f.ev_ed, shift);
  } else {
    f.ev_ed = date;
    if (mins(f.ev_ed, f.ev_et) < mins(f.ev_sd, f.ev_st)) { f.ev_ed = f.ev_sd; f.ev_et = f.ev_st; }
  }
}
function onTimeSet(which, h, m) {
  const f = ui().fields;
  const t = `${pad2(h)}:${pad2(m)}`;
  if (which === 'start') {
    const dur = mins(f.ev_ed, f.ev_et) - mins(f.ev_sd, f.ev_st);
    f.ev_st = t; [f.ev_ed, f.ev_et] = fromMins(mins(f.ev_sd, t) + dur);
  } else {
    f.ev_et = t;
    if (mins(f.ev_ed, t) < mins(f.ev_sd, f.ev_st)) f.ev_ed = addDays(f.ev_sd, 1);
  }
}
function edit(p) {
  const f = ensureForm(p.id);
  const allDay = !!f.ev_allday;
  const bt = (id, desc, text, fn, grow) => html`<div class=${'b' + (grow ? ' g' : '')} ...${A(BTN, { id, desc, text, click: true })} ...${press(fn)}>${text}</div>`;
  const dt = (which) => html`<div class="r">
    ${bt(`${which}_date`, which === 'start' ? 'Start date' : 'End date', shortDate(which === 'start' ? f.ev_sd : f.ev_ed), () => openFwDate('date', which === 'start' ? f.ev_sd : f.ev_ed, { which }), true)}
    ${allDay ? null : bt(`${which}_time`, which === 'start' ? 'Start time' : 'End time', tfmt(which === 'start' ? f.ev_st : f.ev_et), () => openFwTime('time', which === 'start' ? f.ev_st : f.ev_et, { which }))}</div>`;
  const custom = html`<div class="etar-ab" ...${A(LL, {})}>
    <div ...${A(FL, {})}><span ...${A(TV, { id: 'action_cancel', text: 'Cancel', click: true })} ...${press(() => popScreen())}>✕ Cancel</span></div>
    <div ...${A(FL, {})}><span ...${A(TV, { id: 'action_done', text: 'Done', click: true })} ...${press(() => saveEtar(p.id))}>✓ Done</span></div></div>`;
  const toggleAllDay = () => { f.ev_allday = !allDay; };
  return html`<div class="etar-main" ...${A(LL, { id: 'main_frame' })}>
    ${Toolbar({ custom })}
    <div class="etar-pane" ...${A(FL, { id: 'body_frame' })}><div class="etar-pane" ...${A(LL, { id: 'edit_event' })}>
      <div class="body scroll" data-scroll-key=${`calendar/edit/${p.id}`} ...${A(SV, { id: 'scroll_view', scroll: true })}>
        <div class="etar-form" ...${A(VG, { id: 'edit_event_all' })}>
          ${EditField({ field: 'ev_title', id: 'title', hint: 'Event name' })}
          <div class="r"><div class="b g" ...${A('android.widget.Spinner', { id: 'calendars_spinner', click: true })}>
            <span ...${A(TV, { id: 'calendar_textview', text: 'Phone' })}>Phone</span></div></div>
          <div class="r"><div class="b g" ...${A(TV, { id: 'is_all_day_label', text: 'All day', click: true })} ...${press(toggleAllDay)}>All day</div>
            <div class=${'switch' + (allDay ? ' on' : '')} ...${A('android.widget.Switch', { id: 'is_all_day', desc: 'All day event', click: true, checkable: true, checked: allDay, text: '' })}
              ...${press(toggleAllDay)}><div class="knob"></div></div></div>
          ${dt('start')}${dt('end')}
          ${EditField({ field: 'ev_loc', id: 'location', hint: 'Location', cls: 'android.widget.AutoCompleteTextView' })}
          ${EditField({ field: 'ev_desc', id: 'description', hint: 'Description', multiline: true })}
          ${EditField({ field: 'ev_url', id: 'url', hint: 'URL' })}
          <div class="r">${bt('rrule', 'Repeat event', 'One-time event', () => {}, true)}</div>
          <div class="r">${bt('reminder_add', 'Add reminder', 'Add reminder', () => {}, true)}</div>
          <div style="height:160px"></div></div></div></div></div>${kbSpacer()}</div>`;
}

// ------------------------------------------------------------------------------------------
// dialogs: the drawer, the overflow popups, the pickers, delete
function drawer(d) {
  const item = (label, fn, on) => html`<div class=${'etar-dri' + (on ? ' on' : '')} ...${A(LL, { click: true, checkable: on !== undefined, checked: !!on })}
      ...${press(() => { ui().dialog = null; fn(); })}>
    <span ...${A('android.widget.CheckedTextView', { id: 'design_menu_item_text', text: label, checkable: on !== undefined, checked: !!on })}>${label}</span></div>`;
  return html`<div class="etar-drawer-scrim" onClick=${(e) => { if (e.target === e.currentTarget) update(closeDialog); }}>
    <div class="etar-drawer" ...${A(FL, { id: 'navigation_view' })}><div ...${A('androidx.recyclerview.widget.RecyclerView', { id: 'design_navigation_view' })}>
      ${VIEWS.map((v) => item(VIEW_LABEL[v], () => showView(v, d.date), d.view === v))}
      <div style="border-top:1px solid var(--line);margin:8px 0"></div>
      ${item('Settings', () => {})}${item('About Calendar', () => {})}</div></div></div>`;
}
/** The overflow popups' items (built here, not kept in state: the phone state stays plain data). */
function menuItems(d) {
  if (d.of === 'main') {
    return [{ label: 'Go to…', onClick: () => openFwDate('goto', d.date, { view: d.view }) },
      { label: 'Refresh', onClick: () => {} },
      { label: 'Search', onClick: () => { ui().fields.cal_search = ''; go('search', { view: d.view, date: d.date }); focusField('cal_search'); } },
      ...(d.view === 'month' ? [{ label: 'View settings', onClick: () => {} }] : [])];
  }
  if (d.of === 'event') {
    return [{ label: 'Duplicate', onClick: () => { const e = byId(d.id); if (e) openEditor(null, { copy: e }); } },
      { label: 'Share', onClick: () => {} }, { label: 'Export to SD card', onClick: () => {} }];
  }
  return [{ label: 'Settings', onClick: () => {} }];
}
const dialogs = {
  drawer,
  menu: (d) => PopupMenu(menuItems(d)),
  goto: (d) => FwDatePicker(d, (date) => showView(d.view, date)),
  date: (d) => FwDatePicker(d, (date) => onDateSet(d.which, date)),
  time: (d) => FwTimePicker(d, (h, m) => onTimeSet(d.which, h, m)),
  delete: (d) => AlertFw({ message: 'Delete this event?',
    negative: { label: 'Cancel', onClick: closeDialog },
    positive: { label: 'OK', onClick: () => { deleteEvent(d.id); closeDialog(); back(); } } }),
};

registerFlavor('aosp', 'calendar', {
  root: { s: 'week', p: {} },
  screens: { week, day, month, agenda, search, event, edit, main: week, schedule: agenda },
  dialogs: Object.fromEntries(Object.entries(dialogs).map(([k, fn]) => [k, (d) => kbWrap(fn(d))])),
  onBack: (r) => {
    if (r.s === 'edit') { saveEtar(r.p.id); return true; }
    return false;
  },
  activity: (r) => ({
    event: `${PKG}/.EventInfoActivity`,
    edit: `${PKG}/.event.EditEventActivity`,
    search: r.p && r.p.q !== undefined ? `${PKG}/.SearchActivity` : `${PKG}/.AllInOneActivity`,
  }[r.s] || `${PKG}/.AllInOneActivity`),
});
