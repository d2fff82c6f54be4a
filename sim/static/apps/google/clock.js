// Flavor `google`: Google Clock (com.google.android.deskclock, activity com.android.deskclock.DeskClock)
// as a Pixel on Android 14 shows it. The world model and its helpers are the base app's
// (apps/clock_core.js); only the screens differ. Evidence, cited per screen below by key:
//   WW   real uiautomator2 dumps of Google Clock on an Android 14 emulator (1080x2400):
//        gitweiyan/Webwright @ 83936683c1234673d56d2a4fef4ca3b2cf326b51,
//        outputs/default/android_20260614_220946/hierarchy/step_00NN.xml (copies of six of them in
//        tests/fixtures/real-apps/google/clock/; step numbers as in EVIDENCE.md)
//   MDC  material-components/material-components-android @ 5a45d851e7e434b77d62403e816bb5c4b15d498c
//        (tag 1.10.0): the MaterialTimePicker (timepicker/res/layout/*.xml, MaterialTimePicker.java,
//        TimePickerTextInputPresenter.java, ChipTextInputComboView.java) and the SearchView
//        (search/res/layout/mtrl_search_view.xml)
//   AW   google-research/android_world @ d9c569f764b3a5629321858de03ff653d0f24056,
//        android_world/task_evals/single/clock.py (+ clock_test.py): the timer keypad's
//        "00h 00m 00s" / "0 hours, 0 minutes, 0 seconds", the stopwatch's Start / Pause / Lap / Reset
//   TC   public Appium / uiautomator test code driving Google Clock (tests/fixtures/real-apps/EVIDENCE.md,
//        Clock · google): label_input_field; the world clock's "Add city" FAB,
//        open_search_view_edit_text, city_name, city_selected, selectable_area; the timer card's
//        timer_text, play_pause (described "Pause" while running), tertiary_button (delete);
//        stopwatch_time_text + stopwatch_hundredths_text, lap_number, lap_time
//   DC   AOSP DeskClock (LineageOS/android_packages_apps_DeskClock @ 501626741b616e5e41ad4b316e8cc9d8989a7967),
//        which Google Clock descends from: used, and said so, where no Google Clock capture shows a
//        control (timer keypad layout, the timer list, the Clock tab's main clock and date line).
import { html, registerFlavor, A, Field, world, ui, go, replace, back, update, toast, now, pad2 } from '../../os.js';
import { press, closeDialog, closeKb, alarms, alarmById, timers, timerList, stopwatch, cities, cityList,
  DAYS, DAY_LONG, DAY_LETTER, DAY_SHORT, dayOrder, CITIES, CITY_NAMES, nextAlarm, sortedAlarms, setEnabled,
  sortDays, cityTime, stripMarks, setupEntry, fmtDur, fmtTotal } from '../clock_core.js';
import { settingsScreen } from '../clock_parts.js';
import { S, SwitchCompat, ScrollList, BareEditText, tpCommit } from '../clock_aosp_kit.js';
import { aospDays, hoursAheadAosp } from '../clock_aosp.js';

const PKG = 'com.google.android.deskclock';
const V = A;
const VG = 'android.view.ViewGroup', TV = 'android.widget.TextView', LL = 'android.widget.LinearLayout',
  FL = 'android.widget.FrameLayout', BTN = 'android.widget.Button', IV = 'android.widget.ImageView',
  CB = 'android.widget.CheckBox', CBTN = 'android.widget.CompoundButton';
// Google Clock follows the phone's 12/24-hour setting; an en-US Pixel is 12-hour, with a hair space
// before AM/PM (WW step_0004: '8:30\u200aAM'). The world has no such setting unless a task sets it.
const is24 = () => world().settings.time_24h === true;
const gtime = (h, m) => (is24() ? `${pad2(h)}:${pad2(m)}` : `${h % 12 || 12}:${pad2(m)}\u200a${h < 12 ? 'AM' : 'PM'}`);
const G = {
  tooltip: 'Set a consistent bedtime for better sleep', addLabel: 'Add label', noLabel: 'No label specified',
  schedule: 'Schedule alarm', pause: 'Pause alarm', routine: 'Google Assistant Routine', ringtone: 'Default (Cesium)',
  selectTime: 'Select time', ampm: 'Select AM or PM', addCity: 'Add city', alarmSound: 'Alarm sound',
};
// WW step_0013: the device sounds the picker lists first; below the dump's cut, AOSP's alarm sounds
const SOUNDS = ['Silent', G.ringtone, 'Argon', 'Barium', 'BeeBeep Alarm', 'Beep-Beep-Beep Alarm', 'Carbon', 'Helium',
  'Krypton', 'Neon', 'Neptunium', 'Osmium', 'Oxygen', 'Platinum', 'Promethium', 'Scandium'];
const MUSIC_APPS = [['YouTube Music', true], ['Calm', false], ['Pandora Music', false], ['Spotify Music', false]];

if (!document.getElementById('clock-google-css')) {
  const el = document.createElement('style');
  el.id = 'clock-google-css';
  el.textContent = `
  .gck-card { background: var(--surface); border-radius: 24px; margin: 8px 15px; padding: 0 15px 0 15px; }
  .gck-card.off .ck-time { color: var(--muted); }
  .gck-row { display: flex; align-items: center; min-height: 46px; gap: 8px; }
  .gck-row .grow { flex: 1; min-width: 0; }
  .gck-card .ck-time { font-size: calc(50px * var(--fs)); line-height: 58px; }
  .gck-line { min-height: 46px; display: flex; align-items: center; gap: 12px; }
  .gck-days { display: flex; justify-content: space-between; min-height: 46px; align-items: center; }
  .gck-day { width: 40px; height: 40px; border-radius: 20px; border: 1px solid var(--muted); display: flex; align-items: center; justify-content: center; }
  .gck-day.on { background: var(--primary); border-color: var(--primary); color: var(--bg); }
  .gck-fabs { position: absolute; left: 0; right: 0; bottom: 0; height: 122px; display: flex; justify-content: center; align-items: center; gap: 24px; pointer-events: none; z-index: 5; }
  .gck-fab { pointer-events: auto; width: 92px; height: 92px; border-radius: 28px; background: var(--primary-c); display: flex; align-items: center; justify-content: center; font-size: 32px; box-shadow: 0 2px 6px rgba(0,0,0,.3); }
  .gck-fab.side { width: 64px; height: 64px; border-radius: 20px; font-size: 22px; background: var(--surface); }
  .gck-tip { position: absolute; left: calc(50% + 6px); right: 12px; bottom: 0; z-index: 6; background: var(--on); color: var(--bg); border-radius: 12px; padding: 12px; font-size: 14px; }
  .gck-tpd { background: var(--surface); border-radius: 28px; width: 80%; padding: 15px 23px 8px; }
  .gck-tphead { font-size: 13px; color: var(--muted); padding: 0 0 10px; }
  .gck-disp { display: flex; align-items: center; gap: 6px; }
  .gck-num { width: 92px; height: 76px; border-radius: 10px; background: var(--bg); display: flex; align-items: center; justify-content: center; font-size: 46px; }
  .gck-num.on { background: var(--primary-c); color: var(--primary); }
  .gck-ampm { display: flex; flex-direction: column; border: 1px solid var(--muted); border-radius: 10px; margin-left: 6px; }
  .gck-ampm > div { width: 50px; height: 44px; display: flex; align-items: center; justify-content: center; }
  .gck-ampm > div.on { background: var(--primary-c); }
  .gck-face { position: relative; width: 244px; height: 244px; margin: 26px auto 14px; border-radius: 122px; background: var(--bg); }
  .gck-face > div { position: absolute; width: 46px; height: 46px; margin: -23px 0 0 -23px; border-radius: 23px; display: flex; align-items: center; justify-content: center; }
  .gck-face > div.inner { width: 36px; height: 36px; margin: -18px 0 0 -18px; font-size: 13px; }
  .gck-face > div.on { background: var(--primary); color: var(--bg); }
  .gck-tpfoot { display: flex; align-items: center; padding: 8px 0; }
  .gck-tpfoot .grow { flex: 1; }
  .gck-in { width: 92px; } .gck-in .dc-edit { height: 64px; display: flex; align-items: center; } .gck-in .input { font-size: 40px; width: 80px; }
  .gck-lab { font-size: 12px; color: var(--muted); padding: 4px 2px; }
  .gck-mp { padding: 4px 4px 0; }
  .gck-mp .row { display: flex; align-items: center; gap: 14px; min-height: 57px; }
  .gck-snd { display: flex; align-items: center; gap: 14px; min-height: 69px; padding: 0 12px 0 23px; }
  .gck-snd .grow { flex: 1; } .gck-hdr { padding: 15px 23px; color: var(--muted); font-size: 14px; }
  .gck-tabs { display: flex; border-bottom: 1px solid var(--line); } .gck-tabs > div { padding: 14px 22px; } .gck-tabs > div.on { border-bottom: 3px solid var(--primary); }
  .gck-bed { padding: 40px 10px; text-align: center; display: flex; flex-direction: column; gap: 40px; align-items: center; }
  .gck-sw { display: flex; justify-content: center; align-items: baseline; padding: 60px 0 20px; font-variant-numeric: tabular-nums; }
  .gck-sw .main { font-size: calc(72px * var(--fs)); } .gck-sw .hs { font-size: calc(42px * var(--fs)); }
  `;
  document.head.appendChild(el);
}

// --- the activity (WW step_0002/0004): toolbar(action_bar_title, overflow_action_button 'More
// options'), desk_clock_pager_frame > desk_clock_pager (the tab's page), fab_container > fab, and
// the navigation_bar whose five items are tab_menu_<tab> FrameLayouts described by their label,
// the selected one not clickable, labels navigation_bar_item_large/small_label_view.
const TABS = [['alarm', 'Alarm', '⏰'], ['clock', 'Clock', '🕒'], ['timer', 'Timer', '⏳'], ['stopwatch', 'Stopwatch', '⏱'],
  ['bedtime', 'Bedtime', '🛏']];
const gfab = (b, id, side) => (b ? html`<div class=${'gck-fab' + (side ? ' side' : '')} ...${V(BTN, { id, desc: b.desc, click: true, text: '' })}
  ...${press(b.onClick)}>${b.icon}</div>` : null);
function chrome(tab, { fragment, fab, left, right, overlay }) {
  const label = TABS.find((x) => x[0] === tab)[1];
  const nav = html`<div class="bottomnav" ...${V(FL, { id: 'navigation_bar' })}><div style="display:flex;flex:1" ...${V(VG)}>
    ${TABS.map(([id, lab, icon]) => {
      const on = id === tab;
      return html`<div class=${'navitem' + (on ? ' on' : '')} ...${V(FL, { id: `tab_menu_${id}`, desc: lab, click: !on, selected: on })}
          ...${press(() => { if (!on) { if (id === 'bedtime') ui().gTipDone = true; replace(id, {}); } })}>
        <div class="nav-icon" ...${V(FL, { id: 'navigation_bar_item_icon_container', selected: on, text: '' })}>${icon}</div>
        <span ...${V(TV, { id: on ? 'navigation_bar_item_large_label_view' : 'navigation_bar_item_small_label_view', text: lab, selected: on })}>${lab}</span>
      </div>`;
    })}</div></div>`;
  return html`<div class="screen">
    <div class="appbar" ...${V(LL, { id: 'app_bar_layout' })}><div style="display:flex;flex:1;align-items:center" ...${V(VG, { id: 'toolbar' })}>
      <div class="title" ...${V(TV, { id: 'action_bar_title', text: label })}>${label}</div>
      <div class="icon-btn" ...${V(IV, { text: '', id: 'overflow_action_button', desc: S.moreOptions, click: true, long: true, text: '' })}
        ...${press(() => { ui().dialog = { kind: 'menu' }; })}>⋮</div></div></div>
    <div class="dc-content" ...${V(VG, { id: 'desk_clock_pager_frame' })}>
      <div class="dc-frag" ...${V(VG, { id: 'desk_clock_pager' })}>${fragment}</div>
      <div class="gck-fabs" ...${V(VG, { id: 'fab_container' })}>${gfab(left, 'left_button', true)}${gfab(fab, 'fab')}${gfab(right, 'right_button', true)}</div>
      ${overlay}
    </div>
    ${nav}
  </div>`;
}

// --- Alarm tab (WW step_0002/0004/0009/0029): alarm_recycler_view of CardViews described
// '<label> Alarm' (' Alarm' without one), each holding alarm_card_layout. Collapsed: digital_clock,
// arrow 'Expand alarm', alarm_info > days_of_week, Switch onoff (and a label row when labelled,
// as AOSP's alarm_time_collapsed.xml). Expanded: edit_label ('Add label' / 'No label specified'),
// arrow 'Collapse alarm', digital_clock, alarm_info > repeat_summary, onoff, repeat_days > CheckBox
// day_button_0..6 Sunday first, blackout_title ('Schedule alarm', 'Pause alarm' once days are
// set), choose_ringtone ('Ringtone <sound>'), CheckBox vibrate_onoff, workflow_label, delete.
// A new alarm's card is expanded and scrolled into view. The first launch shows the Bedtime
// tooltip in its own window above the Bedtime tab (WW step_0002: TextView body); tapping it, or
// opening the Bedtime tab (step_0003 → step_0004), dismisses it.
const soundOf = (a) => (ui().gSounds || {})[a.id] || G.ringtone;
function openPicker(mode, hour, minute, extra = {}) {
  ui().dialog = { kind: 'alarm_time', mode, hour, minute, sel: 'hour', input: false, ...extra };
}
function reveal(a) {  // scroll a just-created card into view once, as the app does
  return (el) => {
    if (!el || ui().gReveal !== a.id) return;
    const sc = el.closest('[data-scroll-key]');
    if (!sc) return;
    ui().gReveal = null;
    const top = el.offsetTop, bottom = top + el.offsetHeight, view = sc.clientHeight;
    let want = sc.scrollTop;
    if (bottom > want + view) want = Math.min(top - 8, bottom - view + 8);
    if (top < want) want = top - 8;
    want = Math.max(0, want);
    ui().scroll[sc.dataset.scrollKey] = want;
    sc.scrollTop = want;
  };
}
function alarmCard(a) {
  const open = ui().clockExpanded === a.id;
  const time = gtime(a.hour, a.minute);
  const toggle = () => { ui().clockExpanded = open ? null : a.id; };
  const days = aospDays(a);
  const arrow = html`<div class="ck-arrow" ...${V('android.widget.ImageButton', { id: 'arrow', desc: open ? S.collapse : S.expand, click: true, text: '' })}
    ...${press(toggle)}>${open ? '⌃' : '⌄'}</div>`;
  const editLabel = () => { ui().fields.alarm_label = a.label; ui().dialog = { kind: 'alarm_label', id: a.id }; ui().focus = 'alarm_label'; ui().keyboard = true; };
  const top = open
    ? html`<div class="grow dc-label" ...${V(TV, { id: 'edit_label', text: a.label || G.addLabel, hint: G.addLabel, desc: a.label ? `${S.labelDesc} ${a.label}` : G.noLabel, click: true })}
        ...${press(editLabel)}>🏷 ${a.label || G.addLabel}</div>`
    : a.label ? html`<div class="grow dc-label" ...${V(TV, { id: 'label', text: a.label })}>${a.label}</div>` : html`<div class="grow"></div>`;
  const sound = () => { if (ui().gMusicSeen) go('ringtone', { id: a.id }); else ui().dialog = { kind: 'music_providers', id: a.id }; };
  const extra = open ? html`
    <div class="gck-days" ...${V(VG, { id: 'repeat_days' })}>${dayOrder().map((d, i) => {
      const on = a.days.includes(d);
      return html`<div class=${'gck-day' + (on ? ' on' : '')} ...${V(CB, { id: `day_button_${i}`, text: DAY_LETTER[d], desc: DAY_LONG[d], click: true, checkable: true, checked: on })}
        ...${press(() => { a.days = on ? a.days.filter((x) => x !== d) : sortDays([...a.days, d]); })}>${DAY_LETTER[d]}</div>`;
    })}</div>
    <div class="gck-line" ...${V(TV, { id: 'blackout_title', text: a.days.length ? G.pause : G.schedule, click: true })}
      ...${press(() => toast(a.days.length ? G.pause : G.schedule))}>📅 ${a.days.length ? G.pause : G.schedule}</div>
    <div class="gck-line" ...${V(TV, { id: 'choose_ringtone', text: soundOf(a), desc: `${S.ringtoneDesc} ${soundOf(a)}`, click: true })} ...${press(sound)}>🔔 ${soundOf(a)}</div>
    <div class="gck-line" ...${V(CB, { id: 'vibrate_onoff', text: S.vibrate, click: true, checkable: true, checked: a.vibrate !== false })}
      ...${press(() => { a.vibrate = a.vibrate === false; })}>📳 <span class="grow" style="flex:1">${S.vibrate}</span><span class=${'box' + (a.vibrate !== false ? ' on' : '')}>${a.vibrate !== false ? '✓' : ''}</span></div>
    <div class="gck-line" ...${V(TV, { id: 'workflow_label', text: G.routine, click: true })} ...${press(() => toast(G.routine))}>◎ ${G.routine}</div>
    <div class="gck-line"><div class="btn" ...${V(BTN, { id: 'delete', text: S.delete, click: true })}
      ...${press(() => { world().alarms = alarms().filter((x) => x.id !== a.id); ui().clockExpanded = null; toast(S.alarmDeleted); })}>🗑 ${S.delete}</div></div>` : null;
  return html`<div class=${'gck-card' + (a.enabled ? '' : ' off')} ref=${reveal(a)}
      ...${V('androidx.cardview.widget.CardView', { desc: `${a.label} Alarm`, click: true })} ...${press(toggle)}>
    <div ...${V(VG, { id: 'alarm_card_layout' })}>
      <div class="gck-row">${top}${arrow}</div>
      <span class="ck-time" ...${V(TV, { id: 'digital_clock', text: time, desc: time, click: true })}
        ...${press(() => openPicker('edit', a.hour, a.minute, { id: a.id }))}>${time}</span>
      <div class="gck-row"><div class="grow dc-days" ...${V(LL, { id: 'alarm_info' })}>
        <span ...${V(TV, { id: open ? 'repeat_summary' : 'days_of_week', text: days.text, desc: days.desc || days.text })}>${days.text}</span></div>
        ${SwitchCompat({ id: 'onoff', checked: a.enabled, onChange: (v) => setEnabled(a, v) })}</div>
      ${extra}
    </div></div>`;
}
function alarmTab() {
  const list = sortedAlarms();
  const add = () => { const d = now(); openPicker('new', (d.getUTCHours() + 1) % 24, 0); };  // WW step_0005: the next full hour
  const tip = ui().gTipDone ? null : html`<div class="gck-tip" ...${V(FL)}><div ...${V(FL)}>
    <div ...${V(VG, { click: true })} ...${press(() => { ui().gTipDone = true; })}><div ...${V(LL)}>
      <span ...${V(TV, { id: 'body', text: G.tooltip })}>${G.tooltip}</span></div></div></div></div>`;
  const fragment = html`<div class="dc-frag" ...${V(FL, { id: 'main' })}>
    ${ScrollList('alarm_recycler_view', list.map(alarmCard))}
    ${list.length ? null : html`<div class="dc-empty" ...${V(TV, { id: 'alarms_empty_view', text: S.noAlarms })}>${S.noAlarms}</div>`}</div>`;
  return chrome('alarm', { fragment, fab: { desc: S.addAlarm, icon: '+', onClick: add }, overlay: tip });
}

// --- the MaterialTimePicker (WW step_0005..0008; MDC material_timepicker_dialog.xml,
// material_clock_display.xml, material_clock_period_toggle.xml, material_clockface_view.xml):
// header_title 'Select time'; material_timepicker_view > material_clock_display > View
// material_hour_tv ("11", "8 o'clock") / material_minute_tv ("00", "0 minutes"), the active one
// checked; material_clock_period_toggle 'Select AM or PM' > CompoundButton AM / PM;
// material_clock_face > numbers (TextViews without id, "N o'clock" / "05 minutes"); picking an
// hour moves on to the minutes. The keyboard mode (MDC 1.10 material_textinput_timepicker.xml,
// ChipTextInputComboView.java): material_hour_text_input / material_minute_text_input, the
// selected one an EditText without id (focused, keyboard up), the other a Chip showing its value,
// each over a material_label 'Hour' / 'Minute'. mode button, Cancel, OK.
const HOURS = [12, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];
function picker(d) {
  const f = ui().fields;
  const pm = d.hour >= 12, h12 = d.hour % 12 || 12;
  const hourShown = is24() ? d.hour : h12;
  // MDC MaxInputValidator: a text whose value passes 12 (23) / 59 is refused, leaving the field
  // empty; TimePickerTextInputPresenter's watchers read an empty field as 0 (TimeModel.setHour:
  // 0 → 12 o'clock of the current period on a 12-hour clock)
  const max = { gtp_hour: is24() ? 23 : 12, gtp_minute: 59 };
  for (const k of Object.keys(max)) {
    const v = String(f[k] ?? '');
    if (v && !(/^\d{1,2}$/.test(v) && parseInt(v, 10) <= max[k])) f[k] = '';
  }
  const parse = () => {
    const h = parseInt(String(f.gtp_hour || '0'), 10), m = parseInt(String(f.gtp_minute || '0'), 10);
    d.hour = is24() ? h : (h % 12) + (pm ? 12 : 0);
    d.minute = m;
  };
  const select = (which) => { if (d.input) { parse(); ui().focus = `gtp_${which}`; ui().keyboard = true; } d.sel = which; };
  const toInput = () => { f.gtp_hour = pad2(hourShown); f.gtp_minute = pad2(d.minute); d.input = true; select(d.sel); };
  const toClock = () => { parse(); d.input = false; closeKb(); };
  const ok = () => { if (d.input) parse(); tpCommit(d, d.hour, d.minute); if (d.mode === 'new') ui().gReveal = ui().clockExpanded; };
  const setPm = (v) => { if (d.input) parse(); d.hour = (d.hour % 12) + (v ? 12 : 0); };
  const period = is24() ? null : html`<div class="gck-ampm" ...${V(LL, { id: 'material_clock_period_toggle', desc: G.ampm })}>
    ${[['am', 'AM', !pm], ['pm', 'PM', pm]].map(([k, w, on]) => html`<div class=${on ? 'on' : ''}
      ...${V(CBTN, { id: `material_clock_period_${k}_button`, text: w, click: true, checkable: true, checked: on })} ...${press(() => setPm(k === 'pm'))}>${w}</div>`)}</div>`;
  let body;
  if (!d.input) {
    const R = 96, C = 122, hours = d.sel === 'hour';
    const at = (i, r) => `left:${C + r * Math.sin((i * Math.PI) / 6)}px;top:${C - r * Math.cos((i * Math.PI) / 6)}px`;
    const num = (label, desc, on, pick, i, r, inner) => html`<div class=${(inner ? 'inner' : '') + (on ? ' on' : '')} style=${at(i, r)}
      ...${V(TV, { text: label, desc, click: true, selected: on })} ...${press(pick)}>${label}</div>`;
    const face = hours
      ? [...HOURS.map((v, i) => { const hv = is24() ? v % 12 : v; return num(is24() && !hv ? '00' : String(v), `${v} o'clock`, is24() ? d.hour === hv : h12 === v,
        () => { d.hour = is24() ? hv : (v % 12) + (pm ? 12 : 0); d.sel = 'minute'; }, i, R, false); }),
        ...(is24() ? HOURS.map((v, i) => num(String(v % 12 + 12), `${v % 12 + 12} o'clock`, d.hour === v % 12 + 12, () => { d.hour = v % 12 + 12; d.sel = 'minute'; }, i, R - 34, true)) : [])]
      : Array.from({ length: 12 }, (_, i) => num(pad2(i * 5), `${pad2(i * 5)} minutes`, d.minute === i * 5, () => { d.minute = i * 5; }, i, R, false));
    body = html`<div ...${V(VG, { id: 'material_timepicker_view' })}>
      <div class="gck-disp" ...${V('android.view.View', { id: 'material_clock_display_and_toggle' })}>
        <div class="gck-disp" ...${V(LL, { id: 'material_clock_display' })}>
          <div class=${'gck-num' + (hours ? ' on' : '')} ...${V('android.view.View', { id: 'material_hour_tv', text: pad2(hourShown), desc: `${hourShown} o'clock`, click: true, checkable: true, checked: hours })}
            ...${press(() => { d.sel = 'hour'; })}>${pad2(hourShown)}</div>
          <span ...${V(TV, { text: ':' })}>:</span>
          <div class=${'gck-num' + (hours ? '' : ' on')} ...${V('android.view.View', { id: 'material_minute_tv', text: pad2(d.minute), desc: `${d.minute} minutes`, click: true, checkable: true, checked: !hours })}
            ...${press(() => { d.sel = 'minute'; })}>${pad2(d.minute)}</div></div>
        ${period}</div>
      <div class="gck-face" ...${V(VG, { id: 'material_clock_face' })}>${face}</div></div>`;
  } else {
    const combo = (which, value, lab) => html`<div class="gck-in" ...${V(FL, { id: `material_${which}_text_input` })}>
      ${d.sel === which ? html`<div ...${V(LL)}>${BareEditText({ field: `gtp_${which}`, onSubmit: ok })}</div>`
        : html`<div class="gck-num" ...${V(BTN, { text: value, click: true, checkable: true })} ...${press(() => select(which))}>${value}</div>`}
      <div class="gck-lab" ...${V(TV, { id: 'material_label', text: lab })}>${lab}</div></div>`;
    body = html`<div class="gck-disp" ...${V(LL, { id: 'material_textinput_timepicker' })}><div class="gck-disp" ...${V(LL)}>
      ${combo('hour', pad2(hourShown), 'Hour')}<span ...${V(TV, { text: ':' })}>:</span>${combo('minute', pad2(d.minute), 'Minute')}</div>${period}</div>`;
  }
  const b = (id, label, fn) => html`<div class="btn" ...${V(BTN, { id, text: label, click: true })} ...${press(fn)}>${label}</div>`;
  return html`<div class="scrim" onClick=${(e) => { if (e.target === e.currentTarget) update(() => closeDialog()); }}>
    <div class="gck-tpd" ...${V(FL, { id: 'android:id/content' })}><div ...${V(VG)}>
      <div class="gck-tphead" ...${V(TV, { id: 'header_title', text: G.selectTime })}>${G.selectTime}</div>
      ${body}
      <div class="gck-tpfoot">
        <div class="icon-btn" ...${V(BTN, { id: 'material_timepicker_mode_button', desc: d.input ? S.tpToClock : S.tpToText, click: true, text: '' })}
          ...${press(() => (d.input ? toClock() : toInput()))}>${d.input ? '🕒' : '⌨'}</div>
        <div class="grow"></div>${b('material_timepicker_cancel_button', S.cancel, closeDialog)}${b('material_timepicker_ok_button', S.ok, ok)}</div>
    </div></div></div>`;
}

// --- dialogs in the app's AppCompat AlertDialog (WW step_0012: the app's own parentPanel /
// customPanel / custom ids; buttons android:id/button1 (OK) and button2): the label dialog, an
// EditText label_input_field (TC) as LabelDialogFragment's (DC) custom view; the "Music alarms
// available" card (WW step_0012: music_provider_apps rows of app_icon + title (+ premium_notice /
// download_icon), get_it_on_google_play, Button dismiss), shown on the first ringtone tap, whose
// Dismiss goes on to the sound picker.
function alertG(custom, buttons) {
  return html`<div class="scrim" onClick=${(e) => { if (e.target === e.currentTarget) update(() => closeDialog()); }}>
    <div class="dc-alert" ...${V('androidx.appcompat.widget.LinearLayoutCompat', { id: 'parentPanel' })}>
      <div ...${V(FL, { id: 'customPanel' })}><div ...${V(FL, { id: 'custom' })}>${custom}</div></div>
      ${buttons ? html`<div class="btns" ...${V('android.widget.ScrollView', { id: 'buttonPanel' })}>${buttons.map(([n, label, fn]) => html`<div class="btn"
        ...${V(BTN, { id: `android:id/button${n}`, text: label, click: true })} ...${press(fn)}>${label}</div>`)}</div>` : null}
    </div></div>`;
}
function labelDialog(field, save) {
  const ok = () => { const v = String(ui().fields[field] ?? ''); save(v.trim() ? v : ''); closeDialog(); };
  return alertG(html`<div class="msg" ...${V(TV, { id: 'android:id/message', text: S.label })}>${S.label}</div>
    ${Field({ field, id: 'label_input_field', hint: S.label, onSubmit: ok })}`, [[2, S.cancel, closeDialog], [1, S.ok, ok]]);
}
function musicProviders(d) {
  const dismiss = () => { ui().gMusicSeen = true; closeDialog(); go('ringtone', { id: d.id }); };
  return alertG(html`<div class="gck-mp" ...${V('androidx.cardview.widget.CardView')}><div ...${V(LL)}>
    <div style="font-size:22px" ...${V(TV, { text: 'Music alarms available' })}>Music alarms available</div>
    <div class="gck-lab" ...${V(TV, { text: 'Choose an app to use for music alarms' })}>Choose an app to use for music alarms</div>
    <div ...${V('androidx.recyclerview.widget.RecyclerView', { id: 'music_provider_apps' })}>${MUSIC_APPS.map(([name, premium]) => html`<div class="row"
        ...${V(LL, { click: true })} ...${press(() => toast(`${name} is not installed`))}>
      <span ...${V(IV, { text: '', id: 'app_icon' })}>♫</span><div style="flex:1" ...${V(LL)}><div ...${V(TV, { id: 'title', text: name })}>${name}</div>
        ${premium ? html`<div class="gck-lab" ...${V(TV, { id: 'premium_notice', text: 'For premium members only' })}>For premium members only</div>` : null}</div>
      ${premium ? null : html`<span ...${V(IV, { text: '', id: 'download_icon' })}>⤓</span>`}</div>`)}</div>
    <div class="gck-row" ...${V(LL)}><span class="grow" ...${V(TV, { id: 'get_it_on_google_play', text: 'Get it on Google Play' })}>Get it on Google Play</span>
      <div class="btn" ...${V(BTN, { id: 'dismiss', text: 'Dismiss', click: true })} ...${press(dismiss)}>Dismiss</div></div></div></div>`);
}
function menu() {  // the toolbar's overflow (an androidx popup: ListMenuItemView > title)
  return html`<div class="scrim" style="background:transparent" onClick=${(e) => { if (e.target === e.currentTarget) update(() => closeDialog()); }}>
    <div class="dc-menu" ...${V('android.widget.ListView')}>${['Screen saver', 'Settings', 'Send feedback', 'Help'].map((it) => html`<div
        ...${V(LL, { click: true })} ...${press(() => { ui().dialog = null; if (it === 'Settings') go('settings', {}); else toast(it); })}>
      <span ...${V(TV, { id: 'title', text: it })}>${it}</span></div>`)}</div></div>`;
}

// --- the alarm sound picker (WW step_0013/0014): coordinator_layout > app_bar_layout >
// collapsing_toolbar_layout described 'Alarm sound' (no title view) > toolbar (Navigate up, overflow);
// tabs: LinearLayouts described 'Sounds' (selected) / 'YouTube Music'; pager > ringtone_content:
// headers ringtone_item_header, 'Add new', rows of ringtone_image_container + ringtone_primary_text,
// the chosen one with sound_image_selected 'Selected' (and sound_image_playing 'Playing' once tapped).
function ringtoneScreen(p) {
  const a = alarmById(p.id);
  const cur = a ? soundOf(a) : G.ringtone;
  const row = (name) => html`<div class="gck-snd" ...${V(VG, { click: true })}
      ...${press(() => { if (!a) return; ui().gSounds = { ...(ui().gSounds || {}), [a.id]: name }; ui().gPlaying = name; })}>
    <span ...${V('androidx.cardview.widget.CardView', { id: 'ringtone_image_container' })}><span ...${V(IV, { text: '', id: 'ringtone_image' })}>♪</span></span>
    <span class="grow" ...${V(TV, { id: 'ringtone_primary_text', text: name })}>${name}</span>
    ${ui().gPlaying === name ? html`<span ...${V(IV, { text: '', id: 'sound_image_playing', desc: 'Playing' })}>▶</span>` : null}
    ${name === cur ? html`<span ...${V(IV, { text: '', id: 'sound_image_selected', desc: 'Selected' })}>✓</span>` : null}</div>`;
  const hdr = (t) => html`<div class="gck-hdr" ...${V(VG)}><span ...${V(TV, { id: 'ringtone_item_header', text: t })}>${t}</span></div>`;
  const up = () => { ui().gPlaying = null; back(); };
  return html`<div class="screen" ...${V('android.widget.ScrollView', { id: 'coordinator_layout', scroll: true })}>
    <div ...${V(LL, { id: 'app_bar_layout' })}><div ...${V(FL, { id: 'collapsing_toolbar_layout', desc: G.alarmSound })}>
      <div class="appbar" ...${V(VG, { id: 'toolbar' })}>
        <div class="icon-btn" ...${V('android.widget.ImageButton', { desc: S.navigateUp, click: true, text: '' })} ...${press(up)}>←</div>
        <div class="title">${G.alarmSound}</div>
        <div class="icon-btn" ...${V(IV, { text: '', id: 'overflow_action_button', desc: S.moreOptions, click: true, long: true, text: '' })}>⋮</div></div></div>
      <div ...${V('android.widget.HorizontalScrollView', { id: 'tabs' })}><div class="gck-tabs" ...${V(LL)}>
        <div class="on" ...${V(LL, { desc: 'Sounds', selected: true })}><span ...${V(TV, { text: 'Sounds', selected: true })}>Sounds</span></div>
        <div ...${V(LL, { desc: 'YouTube Music', click: true })} ...${press(() => toast('YouTube Music'))}><span ...${V(TV, { text: 'YouTube Music' })}>YouTube Music</span></div></div></div></div>
    <div class="dc-frag" ...${V('androidx.recyclerview.widget.RecyclerView', { id: 'pager' })}>
      ${ScrollList('ringtone_content', [hdr('Your sounds'), html`<div class="gck-snd" ...${V(VG, { click: true })} ...${press(() => toast('Add new'))}>
        <span ...${V(IV, { text: '', id: 'add_icon' })}>+</span><span ...${V(TV, { id: 'add_text', text: 'Add new' })}>Add new</span></div>`,
      hdr('Device sounds'), ...SOUNDS.map(row)])}</div></div>`;
}

// --- Bedtime tab before setup (WW step_0003): bedtime_onboarding_intro (ScrollView) > title,
// description, graphic, Button bedtime_onboarding_start 'Get started'; the fab_container is empty.
function bedtimeTab() {
  const fragment = html`<div class="body scroll" ...${V('android.widget.ScrollView', { id: 'bedtime_onboarding_intro' })}>
    <div class="gck-bed" ...${V(VG)}>
      <div style="font-size:28px" ...${V(TV, { id: 'bedtime_onboarding_intro_title', text: G.tooltip })}>${G.tooltip}</div>
      <div ...${V(TV, { id: 'bedtime_onboarding_intro_description', text: 'Choose a regular bedtime, disconnect from your device, and listen to soothing sounds' })}>
        Choose a regular bedtime, disconnect from your device, and listen to soothing sounds</div>
      <div style="font-size:96px" ...${V(IV, { text: '', id: 'bedtime_onboarding_graphic' })}>🌙</div>
      <div class="btn filled" ...${V(BTN, { id: 'bedtime_onboarding_start', text: 'Get started', click: true })}
        ...${press(() => toast('Bedtime schedule'))}>Get started</div></div></div>`;
  return chrome('bedtime', { fragment });
}

// --- Clock tab: the main clock (digital_clock, date; DC main_clock_frame.xml +
// date_and_next_alarm_time.xml, the date id also in TC) and a card per city: selectable_area >
// city_name + digital_clock (TC), hours_ahead as DC's world_clock_item.xml; FAB 'Add city' (TC).
// The city search is a Material SearchView (MDC mtrl_search_view.xml: open_search_view_toolbar
// with a 'Back' navigation button, open_search_view_edit_text, open_search_view_clear_button
// 'Clear text') over results whose city_name reads "<city>, <region>" (TC shows "Chicago, IL,
// USA"; ours name the country) and whose selected cities carry city_selected; tapping a result
// adds the city, or removes a selected one (TC), and closes the search.
function clockTab() {
  const d = now();
  const date = d.toLocaleDateString('en-US', { weekday: 'short', month: 'short', day: 'numeric', timeZone: 'UTC' });
  const next = nextAlarm();
  const nextText = next ? `${DAY_SHORT[DAYS[next.r.dayIdx]]} ${gtime(next.a.hour, next.a.minute)}` : null;
  const main = html`<div class="dc-mainclock" ...${V(LL)}>
    <span class="big" ...${V(TV, { id: 'digital_clock', text: gtime(d.getUTCHours(), d.getUTCMinutes()) })}>${gtime(d.getUTCHours(), d.getUTCMinutes())}</span>
    <div class="dc-dateline" ...${V(LL, { id: 'date_and_next_alarm_time' })}><span ...${V(TV, { id: 'date', text: date })}>${date}</span>
      ${nextText ? html`<span ...${V(TV, { id: 'nextAlarm', text: nextText, desc: `Next alarm: ${nextText}` })}>⏰ ${nextText}</span>` : null}</div></div>`;
  const item = (city) => {
    const ct = cityTime(city);
    const at = ct ? new Date(d.getTime() + ct.offset * 60000) : null;
    const t = at ? gtime(at.getUTCHours(), at.getUTCMinutes()) : '--:--';
    const sub = ct ? hoursAheadAosp(ct) : null;
    return html`<div class="dc-city" ...${V(VG, { id: 'selectable_area', click: true })}>
      <div class="grow"><span class="ck-city-name" ...${V(TV, { id: 'city_name', text: city })}>${city}</span>
        ${sub ? html`<span class="ck-city-diff" ...${V(TV, { id: 'hours_ahead', text: sub })}>${sub}</span>` : null}</div>
      <span class="ck-city-time" ...${V(TV, { id: 'digital_clock', text: t })}>${t}</span></div>`;
  };
  const fab = { desc: G.addCity, icon: '🌐', onClick: () => { ui().fields.city_search = ''; go('cities', {}); ui().focus = 'city_search'; ui().keyboard = true; } };
  return chrome('clock', { fragment: ScrollList('cities', [main, ...cities().map(item)]), fab });
}
function citySearch() {
  const q = stripMarks(String(ui().fields.city_search ?? '').trim());
  const chosen = cities();
  const hits = CITY_NAMES.filter((c) => !q || stripMarks(c).includes(q) || stripMarks(CITIES[c][0]).includes(q));
  const row = (c) => {
    const on = chosen.includes(c);
    return html`<div class="dc-cityrow" ...${V(LL, { click: true })} ...${press(() => {
      if (on) world().world_clocks = chosen.filter((x) => x !== c); else cityList().push(c);
      closeKb(); back();
    })}><span class="grow" ...${V(TV, { id: 'city_name', text: `${c}, ${CITIES[c][0]}` })}>${c}, ${CITIES[c][0]}</span>
      ${on ? html`<span ...${V(IV, { text: '', id: 'city_selected', desc: 'Selected' })}>✓</span>` : null}</div>`;
  };
  return html`<div class="screen" ...${V(FL, { id: 'open_search_view_root' })}>
    <div class="appbar" ...${V(VG, { id: 'open_search_view_toolbar' })}>
      <div class="icon-btn" ...${V('android.widget.ImageButton', { desc: 'Back', click: true, text: '' })} ...${press(() => { closeKb(); back(); })}>←</div>
      <div style="flex:1">${Field({ field: 'city_search', hint: 'Search for a city', id: 'open_search_view_edit_text' })}</div>
      ${q ? html`<div class="icon-btn" ...${V('android.widget.ImageButton', { id: 'open_search_view_clear_button', desc: 'Clear text', click: true, text: '' })}
        ...${press(() => { ui().fields.city_search = ''; })}>✕</div>` : null}</div>
    <div class="dc-frag" ...${V(FL, { id: 'open_search_view_content_container' })}>${ScrollList('search_results', hits.map(row))}</div></div>`;
}

// --- Timer tab: the keypad (AW: timer_setup_time "00h 00m 00s" / "0 hours, 0 minutes, 0
// seconds"; TC: LinearLayout timer_setup, timer_setup_digit_N, timer_setup_delete, the fab
// described 'Start'; the rest of the keypad as DC's timer_setup_digits.xml) and the timer cards
// (TC: timer_text, play_pause described 'Pause' while running, tertiary_button deleting the
// timer; not captured, so DC's: timer_label 'Label', add_one_min '+ 1:00', the list timer_view >
// recycler_view, the 'Add Timer' fab; play_pause reads DC's 'Start' while paused).
function timerCard(tm, i) {
  const done = tm.remaining_s === 0;
  const lab = tm.label || S.label;
  return html`<div class="ck-timer" ...${V(VG)}>
    <div class="gck-row"><span class="grow ck-lab" ...${V(TV, { id: 'timer_label', text: lab, hint: S.label, click: true })}
        ...${press(() => { ui().fields.timer_label = tm.label; ui().dialog = { kind: 'timer_label', index: i }; ui().focus = 'timer_label'; ui().keyboard = true; })}>${lab}</span>
      <div class="icon-btn" ...${V(BTN, { id: 'tertiary_button', desc: S.delete, click: true, text: '' })} ...${press(() => { timerList().splice(i, 1); })}>✕</div></div>
    <span class="ck-timer-time" ...${V(TV, { id: 'timer_text', text: fmtDur(tm.remaining_s) })}>${fmtDur(tm.remaining_s)}</span>
    <span class="ck-timer-total">${done ? "Time's up" : fmtTotal(tm.duration_s)}</span>
    <div class="ck-btns">
      ${tm.running ? html`<div class="btn tonal" ...${V(BTN, { id: 'add_one_min', text: '+ 1:00', desc: 'Add 1 Minute', click: true })}
        ...${press(() => { tm.remaining_s += 60; tm.duration_s += 60; })}>+ 1:00</div>` : null}
      ${done ? null : html`<div class="btn filled" ...${V(BTN, { id: 'play_pause', desc: tm.running ? S.swPause : S.timerStart, click: true, text: '' })}
        ...${press(() => { tm.running = !tm.running; })}>${tm.running ? '⏸' : '▶'}</div>`}</div></div>`;
}
function timerTab(p) {
  if (timers().length && !p.setup) {
    const fragment = html`<div class="dc-frag" ...${V(FL, { id: 'timer_view' })}>${ScrollList('recycler_view', timers().map(timerCard))}</div>`;
    return chrome('timer', { fragment, fab: { desc: S.addTimer, icon: '+', onClick: () => { ui().fields.timer_digits = ''; replace('timer', { setup: true }); } } });
  }
  const { dg, h, m, s, disp, desc, typed, del, start } = setupEntry();
  const digit = (k) => html`<div class="btn" ...${V(BTN, { id: `timer_setup_digit_${k}`, text: k, click: true })} ...${press(typed(k))}>${k}</div>`;
  const fragment = html`<div class="dc-frag" ...${V(LL, { id: 'timer_setup' })}>
    <div class=${'ck-setup' + (dg ? ' set' : '')} ...${V(TV, { id: 'timer_setup_time', text: disp, desc })}>${disp}</div>
    <div class="ck-keypad" ...${V(LL, { id: 'timer_setup_digits' })}>${['1', '2', '3', '4', '5', '6', '7', '8', '9', '00', '0'].map(digit)}
      <div class=${'btn' + (dg ? '' : ' disabled')} ...${V(BTN, { id: 'timer_setup_delete', text: '⌫', desc: S.delete, click: !!dg, disabled: !dg })}
        ...${press(del)}>⌫</div></div></div>`;
  return chrome('timer', { fragment, fab: h * 3600 + m * 60 + s > 0 ? { desc: S.timerStart, icon: '▶', onClick: start } : null,
    left: timers().length ? { desc: S.timerCancel, icon: '🗑', onClick: () => { ui().fields.timer_digits = ''; replace('timer', {}); } } : null });
}

// --- Stopwatch tab (AW: fab 'Start' / 'Pause', 'Lap' while running, 'Reset'; TC: stopwatch_circle,
// stopwatch_time_text + stopwatch_hundredths_text, laps_list rows of lap_number / lap_time; the
// split time text and the left/right buttons as DC's stopwatch_time.xml / StopwatchFragment.java).
const swMain = (ms) => {  // DC Utils.getTimeString: "h:mm:ss", "m:ss" or "s"
  const t = Math.floor(ms / 1000), h = Math.floor(t / 3600), m = Math.floor((t % 3600) / 60), sec = t % 60;
  return h ? `${h}:${pad2(m)}:${pad2(sec)}` : m ? `${m}:${pad2(sec)}` : String(sec);
};
const swFull = (ms) => `${swMain(ms)}.${pad2(Math.floor(ms / 10) % 100)}`;
function stopwatchTab() {
  const sw = stopwatch();
  const laps = sw.laps.map((tot, i) => ({ n: i + 1, tot, lap: tot - (i ? sw.laps[i - 1] : 0) })).reverse();
  const started = sw.running || sw.elapsed_ms > 0;
  const fragment = html`<div class="dc-frag">
    <div ...${V(VG, { id: 'stopwatch_time_wrapper' })}><div ...${V('android.view.View', { id: 'stopwatch_circle' })}><div class="gck-sw" ...${V(LL)}>
      <span class="main" ...${V(TV, { id: 'stopwatch_time_text', text: swMain(sw.elapsed_ms) })}>${swMain(sw.elapsed_ms)}</span>
      <span class="hs" ...${V(TV, { id: 'stopwatch_hundredths_text', text: pad2(Math.floor(sw.elapsed_ms / 10) % 100) })}>${pad2(Math.floor(sw.elapsed_ms / 10) % 100)}</span></div></div></div>
    ${laps.length ? ScrollList('laps_list', laps.map((l) => html`<div class="ck-lap" ...${V(LL, { desc: `Lap ${l.n}` })}>
      <span ...${V(TV, { id: 'lap_number', text: `# ${l.n}` })}># ${l.n}</span>
      <span ...${V(TV, { id: 'lap_time', text: swFull(l.lap) })}>${swFull(l.lap)}</span>
      <span ...${V(TV, { id: 'lap_total', text: swFull(l.tot) })}>${swFull(l.tot)}</span></div>`)) : null}</div>`;
  return chrome('stopwatch', {
    fragment,
    fab: sw.running ? { desc: S.swPause, icon: '⏸', onClick: () => { sw.running = false; } } : { desc: S.swStart, icon: '▶', onClick: () => { sw.running = true; } },
    left: started ? { desc: S.swReset, icon: '↺', onClick: () => { sw.running = false; sw.elapsed_ms = 0; sw.laps = []; } } : null,
    right: sw.running && sw.laps.length < 99 ? { desc: S.swLap, icon: '⚑', onClick: () => { sw.laps.push(sw.elapsed_ms); } } : null,
  });
}

registerFlavor('google', 'clock', {
  pkg: PKG,
  root: { s: 'alarm', p: {} },
  screens: { alarm: alarmTab, main: alarmTab, clock: clockTab, timer: timerTab, stopwatch: stopwatchTab, bedtime: bedtimeTab,
    cities: citySearch, ringtone: ringtoneScreen, settings: settingsScreen },
  dialogs: {
    alarm_time: picker,
    alarm_label: (d) => labelDialog('alarm_label', (v) => { const a = alarmById(d.id); if (a) a.label = v; }),
    timer_label: (d) => labelDialog('timer_label', (v) => { const tm = timers()[d.index]; if (tm) tm.label = v; }),
    music_providers: musicProviders,
    menu,
  },
  onBack: (r) => { if (r.s === 'ringtone') ui().gPlaying = null; return false; },
  activity: (r) => `${PKG}/com.android.deskclock.${{ ringtone: 'ringtone.RingtonePickerActivity', settings: 'settings.SettingsActivity' }[r.s] || 'DeskClock'}`,
});
