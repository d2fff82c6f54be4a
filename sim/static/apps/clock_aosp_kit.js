// Clock, flavor `aosp`: AOSP DeskClock's strings, stylesheet, small widgets (SwitchCompat, the FABs,
// scrolling lists, the label EditText, AppCompat's AlertDialog) and dialogs (the framework time
// picker, the label dialog, the overflow menu). Its screens are in clock_aosp.js; Google Clock
// (google/clock.js) reuses the widgets, strings and the time picker's commit.
import { html, Field, A, ui, go, update, toast, pad2, nextId, rerender, scrollKey } from '../os.js';
import { press, closeKb, closeDialog, alarmList, alarmById, h24, alarmSetToast } from './clock_core.js';

// AOSP DeskClock as its own source lays it out. Everything below follows
// LineageOS/android_packages_apps_DeskClock @ 501626741b616e5e41ad4b316e8cc9d8989a7967 (cited
// per screen as "DC <path>") and the framework pieces it uses, aosp-mirror/platform_frameworks_base
// (cited "FW <path>"). Classes are the accessibility class names uiautomator prints
// (ConstraintLayout/Toolbar = android.view.ViewGroup, SwitchCompat = android.widget.Switch,
// FloatingActionButton = android.widget.Button, TextTime/AutoSizingTextView = android.widget.TextView).
// Only nodes a dump shows are annotated; plain <div>s are layout only.

// Strings (DC res/values/strings.xml, cm_strings.xml; FW core/res/res/values/strings.xml)
export const S = {
  label: 'Label', labelDesc: 'Label', noLabel: 'No label specified', defaultLabel: 'Alarm', addLabel: 'Add label',
  expand: 'Expand alarm', collapse: 'Collapse alarm', vibrate: 'Vibrate', delete: 'Delete', ringtoneDesc: 'Ringtone',
  ringtone: 'Default (Cesium)', today: 'Today', tomorrow: 'Tomorrow', everyDay: 'Every day', noAlarms: 'No Alarms',
  addAlarm: 'Add alarm', cities: 'Cities', addTimer: 'Add Timer', timerStart: 'Start', timerCancel: 'Cancel',
  swStart: 'Start', swPause: 'Pause', swLap: 'Lap', swReset: 'Reset', swShare: 'Share',
  selectedCities: 'Selected Cities', alarmDeleted: 'Alarm deleted',
  ok: 'OK', cancel: 'Cancel', moreOptions: 'More options', navigateUp: 'Navigate up', search: 'Search',
  searchHint: 'Search…', clearQuery: 'Clear query',
  // FW time picker (time_picker_*.xml strings)
  tpSetTime: 'Set time', tpTypeIn: 'Type in time', tpHour: 'hour', tpMinute: 'minute', tpError: 'Enter a valid time',
  tpToText: 'Switch to text input mode for the time input.', tpToClock: 'Switch to clock mode for the time input.',
};
export const DC_TABS = [
  { id: 'alarm', page: 'page_alarm', label: 'Alarm', icon: '⏰' },
  { id: 'clock', page: 'page_clock', label: 'Clock', icon: '🕒' },
  { id: 'timer', page: 'page_timer', label: 'Timer', icon: '⏳' },
  { id: 'stopwatch', page: 'page_stopwatch', label: 'Stopwatch', icon: '⏱' },
];
export const V = (cls, o = {}) => A(cls, o);
export const VG = 'android.view.ViewGroup', TV = 'android.widget.TextView', LL = 'android.widget.LinearLayout',
  FL = 'android.widget.FrameLayout', RV = 'androidx.recyclerview.widget.RecyclerView';

if (!document.getElementById('clock-aosp-css')) {
  const el = document.createElement('style');
  el.id = 'clock-aosp-css';
  el.textContent = `
  .dc-content { flex: 1; position: relative; display: flex; flex-direction: column; min-height: 0; }
  .dc-frag { flex: 1; position: relative; display: flex; flex-direction: column; min-height: 0; }
  .dc-fabs { position: absolute; left: 0; right: 0; bottom: 12px; height: 72px; display: flex; justify-content: center;
    align-items: center; gap: 28px; z-index: 5; pointer-events: none; }
  .dc-fab { pointer-events: auto; width: 64px; height: 64px; border-radius: 20px; background: var(--primary-c); display: flex;
    align-items: center; justify-content: center; font-size: 26px; box-shadow: 0 2px 6px rgba(0,0,0,.3); }
  .dc-fab.side { width: 48px; height: 48px; border-radius: 16px; font-size: 20px; background: var(--surface); }
  .dc-fab-slot { width: 48px; height: 48px; }
  .dc-empty { position: absolute; left: 0; right: 0; top: 40%; text-align: center; color: var(--muted); font-size: calc(18px * var(--fs)); padding-bottom: 72px; }
  .dc-card { background: var(--surface); border-radius: 24px; margin: 8px 12px; padding: 6px 8px 6px 16px; }
  .dc-row { display: flex; align-items: center; gap: 8px; }
  .dc-row .grow { flex: 1; min-width: 0; }
  .dc-label { min-height: 40px; display: flex; align-items: center; color: var(--muted); font-size: calc(15px * var(--fs)); }
  .dc-card .ck-time { font-size: calc(44px * var(--fs)); }
  .dc-card.off .ck-time { color: var(--muted); font-weight: 400; }
  .dc-days { color: var(--muted); font-size: calc(14px * var(--fs)); min-height: 32px; display: flex; align-items: center; }
  .dc-daybtns { display: flex; justify-content: space-between; padding: 6px 0; }
  .dc-daybtn { width: 38px; height: 38px; border-radius: 19px; border: 1px solid var(--muted); display: flex; align-items: center; justify-content: center; font-size: 14px; }
  .dc-daybtn.on { background: var(--primary); border-color: var(--primary); color: var(--bg); }
  .dc-line { min-height: 44px; display: flex; align-items: center; gap: 12px; }
  .dc-line .grow { flex: 1; }
  .dc-mainclock { text-align: center; padding: 16px 24px 14px; }
  .dc-mainclock .big { font-size: calc(64px * var(--fs)); font-weight: 300; font-variant-numeric: tabular-nums; display: block; }
  .dc-dateline { display: flex; justify-content: center; gap: 8px; color: var(--muted); font-size: calc(14px * var(--fs)); }
  .dc-city { display: flex; align-items: center; gap: 12px; background: var(--surface); border-radius: 24px; margin: 8px 12px; padding: 20px 16px; }
  .dc-city .grow { flex: 1; min-width: 0; }
  .dc-cityrow { display: flex; align-items: center; gap: 12px; padding: 10px 16px; min-height: 52px; }
  .dc-cityrow .idx { width: 28px; font-weight: 700; font-size: 20px; }
  .dc-cityrow .grow { flex: 1; }
  .dc-cityhdr { padding: 12px 16px 4px 56px; color: var(--muted); font-size: calc(14px * var(--fs)); }
  .dc-tpd { background: var(--surface); border-radius: 28px; width: 88%; max-height: 92%; display: flex; flex-direction: column; position: relative; }
  .dc-tphead { display: flex; align-items: center; justify-content: center; gap: 2px; padding: 20px 16px 8px; }
  .dc-tphead .num { font-size: calc(52px * var(--fs)); padding: 0 6px; border-radius: 8px; font-variant-numeric: tabular-nums; }
  .dc-tphead .num.act { color: var(--primary); background: var(--primary-c); }
  .dc-tphead .sep { font-size: calc(52px * var(--fs)); }
  .dc-ampm { display: flex; flex-direction: column; margin-left: 10px; }
  .dc-ampm > div { padding: 4px 8px; font-size: calc(16px * var(--fs)); color: var(--muted); border-radius: 6px; }
  .dc-ampm > div.on { color: var(--primary); font-weight: 600; }
  .dc-dial { position: relative; width: 256px; height: 256px; margin: 8px auto; border-radius: 128px; background: var(--bg); }
  .dc-dial > div { position: absolute; width: 36px; height: 36px; margin: -18px 0 0 -18px; border-radius: 18px; display: flex; align-items: center; justify-content: center; font-size: 15px; }
  .dc-dial > div.inner { font-size: 12px; width: 30px; height: 30px; margin: -15px 0 0 -15px; }
  .dc-dial > div.on { background: var(--primary); color: var(--bg); }
  .dc-tpfoot { display: flex; align-items: center; padding: 4px 12px 12px; }
  .dc-tpfoot .grow { flex: 1; }
  .dc-tpinput { padding: 8px 24px 4px; }
  .dc-tpinput .hdr { font-size: calc(26px * var(--fs)); padding: 12px 0 8px; }
  .dc-tpinput .top { color: var(--muted); font-size: 14px; padding: 4px 0 8px; }
  .dc-inblock { display: flex; align-items: flex-start; gap: 4px; }
  .dc-infield { width: 84px; }
  .dc-infield .field { margin: 0; }
  .dc-infield .lab { font-size: 12px; color: var(--muted); padding: 2px 4px; min-height: 16px; }
  .dc-infield .lab.err { color: #b3261e; }
  .dc-insep { font-size: 28px; padding-top: 6px; }
  .dc-spinner { margin-left: auto; margin-top: 6px; min-width: 76px; padding: 8px 12px; border-bottom: 1px solid var(--muted); display: flex; align-items: center; gap: 6px; }
  .dc-popup { position: absolute; background: var(--surface); box-shadow: 0 4px 12px rgba(0,0,0,.35); border-radius: 4px; z-index: 30; min-width: 110px; }
  .dc-popup > div { padding: 12px 16px; }
  .dc-alert { background: var(--surface); border-radius: 28px; width: 86%; padding: 20px 20px 8px; display: flex; flex-direction: column; }
  .dc-alert .msg { padding: 4px 4px 8px; font-size: calc(16px * var(--fs)); }
  .dc-alert .btns { display: flex; justify-content: flex-end; gap: 4px; margin-top: 8px; }
  .dc-edit { border-bottom: 2px solid var(--primary); padding: 4px 2px; margin: 0 4px; }
  .dc-edit .input { font-size: calc(17px * var(--fs)); }
  .dc-menu { position: absolute; top: 8px; right: 8px; background: var(--surface); border-radius: 4px; box-shadow: 0 4px 12px rgba(0,0,0,.35); z-index: 30; min-width: 180px; padding: 4px 0; }
  .dc-menu > div { padding: 14px 20px; }
  .dc-switch { flex: 0 0 52px; }
  `;
  document.head.appendChild(el);
}

// --- small widgets --------------------------------------------------------------------------
/** androidx SwitchCompat: uiautomator prints an android.widget.Switch without text or description. */
export function SwitchCompat({ id, checked, onChange }) {
  return html`<div class=${'switch dc-switch' + (checked ? ' on' : '')}
      ...${V('android.widget.Switch', { id, click: true, checkable: true, checked, text: '' })}
      ...${press(() => onChange(!checked))}><div class="knob"></div></div>`;
}
/** A FloatingActionButton of desk_clock.xml's fab_container (android.widget.Button, described). */
export function Fab(b, id, side) {
  if (!b) return side ? html`<div class="dc-fab-slot"></div>` : null;
  return html`<div class=${'dc-fab' + (side ? ' side' : '')} ...${V('android.widget.Button', { id, desc: b.desc, click: true, text: '' })}
    ...${press(b.onClick)}>${b.icon}</div>`;
}
/** A scrolling list (RecyclerView/ListView) with the app's id; the phone keeps its scroll offset. */
export function ScrollList(id, children, cls = RV) {
  return html`<div class="body scroll" data-scroll-key=${scrollKey()} ...${V(cls, { id, scroll: true })}>
    <div class="body-inner">${children}</div></div>`;
}
/** An EditText without a resource id (LabelDialogFragment's AppCompatEditText), bound to ui.fields[field]. */
export function BareEditText({ field, onSubmit }) {
  const u = ui();
  const value = u.fields[field] ?? '';
  window.S2R.submitters[field] = onSubmit || null;
  const focus = () => { if (window.S2R.state.ui.focus !== field) update((s) => { s.ui.focus = field; s.ui.keyboard = true; }); };
  return html`<div class=${'dc-edit' + (u.focus === field ? ' focused' : '')}
      ...${V('android.widget.EditText', { text: value, click: true, edit: true })} onClick=${focus}>
    <input class="input" data-field=${field} value=${value} autocomplete="off" autocapitalize="off" spellcheck=${false}
      onInput=${(e) => { window.S2R.state.ui.fields[field] = e.target.value; rerender(); }} onFocus=${focus}
      onKeyDown=${(e) => { if (e.key === 'Enter') { e.preventDefault(); if (onSubmit) update(() => onSubmit()); } }} />
  </div>`;
}
/**
 * An AlertDialog (androidx.appcompat abc_alert_dialog_material.xml): parentPanel > contentPanel >
 * scrollView > message; customPanel > custom > the custom view; buttonPanel > button3, button2
 * (negative), button1 (positive) in that order (FW alert_dialog_button_bar_material.xml).
 */
export function AlertAosp({ message, custom, positive, negative }) {
  const btn = (b, n) => (b ? html`<div class="btn" ...${V('android.widget.Button', { id: `android:id/button${n}`, text: b.label, click: true })}
      ...${press(b.onClick)}>${b.label}</div>` : null);
  return html`<div class="scrim" onClick=${(e) => { if (e.target === e.currentTarget) update(() => closeDialog()); }}>
    <div class="dc-alert" ...${V(LL, { id: 'android:id/parentPanel' })}>
      ${message ? html`<div ...${V(LL, { id: 'android:id/contentPanel' })}><div ...${V('android.widget.ScrollView', { id: 'android:id/scrollView' })}>
        <div class="msg" ...${V(TV, { id: 'android:id/message', text: message })}>${message}</div></div></div>` : null}
      ${custom ? html`<div ...${V(FL, { id: 'android:id/customPanel' })}><div ...${V(FL, { id: 'android:id/custom' })}>${custom}</div></div>` : null}
      <div ...${V('android.widget.ScrollView', { id: 'android:id/buttonPanel' })}><div class="btns">${btn(negative, 2)}${btn(positive, 1)}</div></div>
    </div></div>`;
}

// --- the time picker: DC alarms/TimePickerDialogFragment.java opens the framework
// android.app.TimePickerDialog (FW core/java/android/app/TimePickerDialog.java) around
// FW res/layout/time_picker_dialog.xml (TimePicker timePicker) in clock mode:
// time_picker_material.xml (time_header, radial_picker, toggle_mode, the dialog's button bar beside
// it), time_picker_header_material.xml (hours, separator, minutes, ampm_layout > am_label, pm_label);
// after toggle_mode the text input mode, input_header + time_picker_text_input_material.xml
// (top_label, input_block > input_hour, label_hour, input_separator, input_minute, label_minute,
// label_error; Spinner am_pm_spinner whose items are simple_spinner_dropdown_item text1), as
// TimePickerClockDelegate.java / TextInputTimePickerView.java drive them. OK validates the typed
// time (TimePickerDialog.show: the positive button closes only on validateInput()).
const HOURS_12 = [12, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];
const HOURS_24_INNER = [0, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23];
function tpParse(d) {
  const f = ui().fields;
  const hs = String(f.tp_hour ?? '').trim(), ms = String(f.tp_minute ?? '').trim();
  const h = /^\d+$/.test(hs) ? parseInt(hs, 10) : NaN, m = /^\d+$/.test(ms) ? parseInt(ms, 10) : NaN;
  const hOk = Number.isFinite(h) && (h24() ? h >= 0 && h <= 23 : h >= 1 && h <= 12);
  const mOk = Number.isFinite(m) && m >= 0 && m <= 59;
  const toDay = (x) => (h24() ? x : (x % 12) + (d.hour >= 12 ? 12 : 0));
  return { ok: hOk && mOk, h, m, hour: Number.isFinite(h) ? toDay(Math.min(Math.max(h, h24() ? 0 : 1), h24() ? 23 : 12)) : null,
    minute: Number.isFinite(m) ? Math.min(Math.max(m, 0), 59) : null };
}
export function tpCommit(d, hour, minute) {
  closeDialog();
  if (d.mode === 'draft') {  // the sim's Add/Edit alarm form, when a deep link opens it
    const p = ui().tasks.clock[ui().tasks.clock.length - 1].p;
    p.hour = hour; p.minute = minute;
    return;
  }
  if (d.mode === 'new') {
    const a = { id: nextId('a'), hour, minute, enabled: true, label: '', days: [], vibrate: true };
    alarmList().push(a);
    ui().clockExpanded = a.id;
    alarmSetToast(a);
    return;
  }
  const a = alarmById(d.id);
  if (!a) { toast('Alarm no longer exists'); return; }
  a.hour = hour; a.minute = minute; a.enabled = true;
  alarmSetToast(a);
}
export function timePickerAosp(d) {
  const is24 = h24();
  const pm = d.hour >= 12;
  const f = ui().fields;
  const toInput = () => { f.tp_hour = String(is24 ? d.hour : d.hour % 12 || 12); f.tp_minute = pad2(d.minute); d.input = true; d.error = false; };
  const toClock = () => {
    const r = tpParse(d);
    if (r.hour !== null) d.hour = r.hour;
    if (r.minute !== null) d.minute = r.minute;
    d.input = false; d.spinner = false; closeKb();
  };
  const ok = () => {
    if (!d.input) { tpCommit(d, d.hour, d.minute); return; }
    const r = tpParse(d);
    if (!r.ok) { d.error = true; return; }
    tpCommit(d, r.hour, r.minute);
  };
  const setPm = (v) => { d.hour = (d.hour % 12) + (v ? 12 : 0); };
  const btn = (label, n, onClick) => html`<div class="btn" ...${V('android.widget.Button', { id: `android:id/button${n}`, text: label, click: true })}
    ...${press(onClick)}>${label}</div>`;
  let body;
  if (!d.input) {
    const hourText = is24 ? pad2(d.hour) : String(d.hour % 12 || 12);
    const showing = d.showing || 'hours';
    const R = 104, C = 128;
    const at = (i, r) => `left:${C + r * Math.sin((i * Math.PI) / 6)}px;top:${C - r * Math.cos((i * Math.PI) / 6)}px`;
    const node = (value, label, i, r, inner) => {
      const on = showing === 'hours' ? value === d.hour || (!is24 && value % 12 === d.hour % 12 && !inner) : value === d.minute;
      const pick = showing === 'hours'
        ? () => { d.hour = is24 ? value : (value % 12) + (pm ? 12 : 0); d.showing = 'minutes'; }
        : () => { d.minute = value; };
      return html`<div class=${(inner ? 'inner' : '') + (on ? ' on' : '')} style=${at(i, r)}
        ...${V('android.widget.RadialTimePickerView$RadialPickerTouchHelper', { desc: String(value), text: '', click: true, selected: on })} ...${press(pick)}>${label}</div>`;
    };
    const dial = showing === 'hours'
      ? [...HOURS_12.map((v, i) => node(is24 ? v % 12 === 0 ? 12 : v : v, String(v), i, R, false)),
        ...(is24 ? HOURS_24_INNER.map((v, i) => node(v, pad2(v), i, R - 34, true)) : [])]
      : Array.from({ length: 12 }, (_, i) => node(i * 5, pad2(i * 5), i, R, false));
    body = html`
      <div class="dc-tphead" ...${V('android.widget.RelativeLayout', { id: 'android:id/time_header' })}>
        <span class=${'num' + (showing === 'hours' ? ' act' : '')} ...${V(TV, { id: 'android:id/hours', text: hourText, click: true })}
          ...${press(() => { d.showing = 'hours'; })}>${hourText}</span>
        <span class="sep" ...${V(TV, { id: 'android:id/separator', text: ':' })}>:</span>
        <span class=${'num' + (showing === 'minutes' ? ' act' : '')} ...${V(TV, { id: 'android:id/minutes', text: pad2(d.minute), click: true })}
          ...${press(() => { d.showing = 'minutes'; })}>${pad2(d.minute)}</span>
        ${is24 ? null : html`<div class="dc-ampm" ...${V('android.widget.RadioGroup', { id: 'android:id/ampm_layout' })}>
          <div class=${pm ? '' : 'on'} ...${V('android.widget.RadioButton', { id: 'android:id/am_label', text: 'AM', click: true, checkable: true, checked: !pm })}
            ...${press(() => setPm(false))}>AM</div>
          <div class=${pm ? 'on' : ''} ...${V('android.widget.RadioButton', { id: 'android:id/pm_label', text: 'PM', click: true, checkable: true, checked: pm })}
            ...${press(() => setPm(true))}>PM</div></div>`}
      </div>
      <div class="dc-dial" ...${V('android.view.View', { id: 'android:id/radial_picker', click: true })}>${dial}</div>`;
  } else {
    const err = !!d.error;
    body = html`<div class="dc-tpinput">
      <div class="hdr" ...${V(TV, { id: 'android:id/input_header', text: S.tpSetTime })}>${S.tpSetTime}</div>
      <div ...${V('android.widget.RelativeLayout', { id: 'android:id/input_mode' })}>
        <div class="top" ...${V(TV, { id: 'android:id/top_label', text: S.tpTypeIn })}>${S.tpTypeIn}</div>
        <div class="dc-inblock">
          <div ...${V('android.widget.RelativeLayout', { id: 'android:id/input_block' })} style="display:flex;gap:4px">
            <div class="dc-infield">${Field({ field: 'tp_hour', id: 'android:id/input_hour', type: 'number' })}
              ${err ? html`<div class="lab err" ...${V(TV, { id: 'android:id/label_error', text: S.tpError })}>${S.tpError}</div>`
                : html`<div class="lab" ...${V(TV, { id: 'android:id/label_hour', text: S.tpHour })}>${S.tpHour}</div>`}</div>
            <span class="dc-insep" ...${V(TV, { id: 'android:id/input_separator', text: ':' })}>:</span>
            <div class="dc-infield">${Field({ field: 'tp_minute', id: 'android:id/input_minute', type: 'number' })}
              ${err ? html`<div class="lab"></div>` : html`<div class="lab" ...${V(TV, { id: 'android:id/label_minute', text: S.tpMinute })}>${S.tpMinute}</div>`}</div>
          </div>
          ${is24 ? null : html`<div class="dc-spinner" ...${V('android.widget.Spinner', { id: 'android:id/am_pm_spinner', click: true })}
              ...${press(() => { d.spinner = !d.spinner; closeKb(); })}>
            <span ...${V('android.widget.CheckedTextView', { id: 'android:id/text1', text: pm ? 'PM' : 'AM', checkable: true })}>${pm ? 'PM' : 'AM'}</span> ▾</div>`}
        </div>
      </div></div>`;
  }
  const popup = d.input && d.spinner && !is24 ? html`<div class="dc-popup" style="right:24px;top:170px" ...${V('android.widget.ListView')}>
    ${['AM', 'PM'].map((w) => html`<div ...${V('android.widget.CheckedTextView', { id: 'android:id/text1', text: w, click: true, checkable: true, checked: (w === 'PM') === pm })}
      ...${press(() => { setPm(w === 'PM'); d.spinner = false; })}>${w}</div>`)}</div>` : null;
  return html`<div class="scrim" onClick=${(e) => { if (e.target === e.currentTarget) update(() => closeDialog()); }}>
    <div class="dc-tpd" ...${V(FL, { id: 'android:id/content' })}
      onClickCapture=${(e) => {  // an open dropdown takes the touch outside it, and closes
        if (d.spinner && !e.target.closest('.dc-popup')) { e.stopPropagation(); update(() => { d.spinner = false; }); }
      }}>
      <div ...${V('android.widget.TimePicker', { id: 'android:id/timePicker' })}>
        ${body}
        <div class="dc-tpfoot" ...${V(LL)}>
          <div class="icon-btn" ...${V('android.widget.ImageButton', { id: 'android:id/toggle_mode', desc: d.input ? S.tpToClock : S.tpToText, click: true, text: '' })}
            ...${press(() => (d.input ? toClock() : toInput()))}>${d.input ? '🕒' : '⌨'}</div>
          <div class="grow"></div>
          <div style="display:flex" ...${V('android.widget.ScrollView', { id: 'android:id/buttonPanel' })}>
            ${btn(S.cancel, 2, closeDialog)}${btn(S.ok, 1, ok)}</div>
        </div>
      </div>
      ${popup}
    </div></div>`;
}

// --- the label dialog: DC LabelDialogFragment.java (alarms and timers alike): an AlertDialog with
// the message 'Label', an AppCompatEditText without id holding the label (keyboard shown), OK
// (positive) and Cancel; IME done = OK; a label of only spaces is stored empty (setLabel).
export function labelDialogAosp(field, save) {
  const okFn = () => {
    const v = String(ui().fields[field] ?? '');
    save(v.trim() ? v : '');
    closeDialog();
  };
  return AlertAosp({ message: S.label, custom: BareEditText({ field, onSubmit: okFn }),
    positive: { label: S.ok, onClick: okFn }, negative: { label: S.cancel, onClick: closeDialog } });
}

// --- the overflow menu: DC actionbarmenu/NightModeMenuItemController.java ('Screen saver') and
// SettingsMenuItemController.java ('Settings'), an androidx popup (abc_popup_menu_item_layout.xml:
// ListMenuItemView > title).
export function menuAosp() {
  const items = ['Screen saver', 'Settings'];
  return html`<div class="scrim" style="background:transparent" onClick=${(e) => { if (e.target === e.currentTarget) update(() => closeDialog()); }}>
    <div class="dc-menu" ...${V('android.widget.ListView')}>${items.map((it) => html`<div ...${V(LL, { click: true })}
        ...${press(() => { ui().dialog = null; if (it === 'Settings') go('settings', {}); else toast(it); })}>
      <span ...${V(TV, { id: 'title', text: it })}>${it}</span></div>`)}</div></div>`;
}
