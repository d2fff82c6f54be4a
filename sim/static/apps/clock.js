// Clock (com.android.deskclock): alarms, world clock, timers, stopwatch.
//
// Flavor `sim` is our own structure: top tabs, a full-screen "Add alarm"/"Edit alarm" form
// with Save/Cancel and a delete confirmation, "Weekdays"/"Weekends" summaries, Monday-first
// day chips, cities removed by long press, Start/Stop/Lap/Reset text buttons on the stopwatch.
// Flavor `aosp` is AOSP DeskClock as its source defines it (clock_aosp.js, each screen citing its
// layout; its widgets and dialogs in clock_aosp_kit.js): bottom navigation with four tabs, alarms edited inline in an
// expandable card (the label dialog, day buttons, "Delete" without confirmation), the framework
// TimePickerDialog, the "Cities" picker with check boxes, the stopwatch's FABs. Still the
// simulator's there: the timer cards (timerCard), the stopwatch's one-piece time text, toasts
// where DeskClock shows snackbars, and the Settings screen (clock_parts.js).
// Flavor `google` (Google Clock on a Pixel) lives in apps/google/clock.js and registers its screens
// over this app's; it shares the world helpers (clock_core.js) and DeskClock's widgets.
//
// This module: the `sim` flavor's screens and every flavor's dialogs, and the app's registration
// (each screen hands over to its DeskClock counterpart when the flavor is `aosp`).
//
// World data: world().alarms / .timers / .stopwatch / .world_clocks, shaped exactly like the
// Python WorldState. Sim time (world().time) is the phone's local time; world-clock times
// come from a fixed UTC-offset table (no daylight saving), treating local time as UTC.
import { html, registerApp, Screen, Switch, SwitchRow, Button, Field, Tabs, Dialog, TimePickerBody,
  readTime, Text, Section, Empty, A, world, ui, go, replace, back, flavor, toast, now, pad2, nextId } from '../os.js';
import { PKG, DAYS, DAY_SHORT, DAY_LONG, DAY_LETTER, dayOrder, CITIES, CITY_NAMES, press, closeKb,
  closeDialog, alarms, alarmList, alarmById, timers, stopwatch, cities, cityList, h24, fmt, sortDays,
  nextAlarm, untilText, alarmSetToast, daysSummary, sortedAlarms, switchDesc, setEnabled, stripMarks,
  cityTime, openTimePicker, setupEntry, fmtSw } from './clock_core.js';
import { timerCard, settingsScreen } from './clock_parts.js';
import { timePickerAosp, labelDialogAosp, menuAosp } from './clock_aosp_kit.js';
import { alarmTabAosp, clockTabAosp, citiesScreenAosp, timerTabAosp, stopwatchTabAosp } from './clock_aosp.js';

// ------------------------------------------------------------------------------------------
// sim flavor chrome: top tabs (the aosp flavor's activity is clock_aosp.js deskClock)
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
function timerTab(p) {
  if (flavor() === 'aosp') return timerTabAosp(p);
  if (!timers().length || p.setup) return timerSetup(p);
  const body = html`${timers().map(timerCard)}`;
  return tabScreen('timer', { body, fab: { desc: 'Add timer', id: 'fab', icon: '+', onClick: () => { ui().fields.timer_digits = ''; replace('timer', { setup: true }); } } });
}

// ------------------------------------------------------------------------------------------
// Stopwatch tab (elapsed time advances only with the sim clock: S2R.tick)
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
