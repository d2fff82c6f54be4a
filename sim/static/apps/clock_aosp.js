// Clock, flavor `aosp`: AOSP DeskClock's screens — the activity (toolbar, fragment, FABs, bottom
// navigation) and its Alarm, Clock, Timer and Stopwatch tabs, and the Cities picker. The world and
// its helpers are clock_core.js's; DeskClock's widgets, strings and dialogs are clock_aosp_kit.js's.
import { html, Field, world, ui, go, replace, back, toast, now, pad2 } from '../os.js';
import { DAYS, DAY_SHORT, DAY_LONG, DAY_LETTER, dayOrder, CITY_NAMES, press, closeKb, alarms, timers,
  stopwatch, cities, cityList, fmt, sortDays, nextRing, nextAlarm, sortedAlarms, setEnabled, cityTime,
  openTimePicker, setupEntry, fmtSw } from './clock_core.js';
import { timerCard } from './clock_parts.js';
import { S, DC_TABS, V, FL, VG, TV, LL, SwitchCompat, Fab, ScrollList } from './clock_aosp_kit.js';

// Every screen here follows LineageOS/android_packages_apps_DeskClock @ 501626741b616e5e41ad4b316e8cc9d8989a7967 (cited
// per screen as "DC <path>") and the framework pieces it uses, aosp-mirror/platform_frameworks_base
// (cited "FW <path>"). Classes are the accessibility class names uiautomator prints
// (ConstraintLayout/Toolbar = android.view.ViewGroup, SwitchCompat = android.widget.Switch,
// FloatingActionButton = android.widget.Button, TextTime/AutoSizingTextView = android.widget.TextView).
// Only nodes a dump shows are annotated; plain <div>s are layout only.

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
export function alarmTabAosp() {
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
export function clockTabAosp() {
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
export function citiesScreenAosp(p) {
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
export function timerTabAosp(p) {
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
export function stopwatchTabAosp() {
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
