// Calendar: the framework and library widgets the stock flavors (Etar, Google Calendar) are built
// from, as uiautomator reports them — an AppCompat Toolbar, its overflow popup, the framework
// AlertDialog, the framework DatePickerDialog and TimePickerDialog, Material's date picker.
//
// Evidence, per widget (full citations in the comment above each):
//   FW   aosp-mirror/platform_frameworks_base core/res/res/layout: alert_dialog_material.xml,
//        date_picker_material.xml, date_picker_header_material.xml (date_picker_header_year,
//        date_picker_header_date), day_picker_content_material.xml (day_picker_view_pager, prev
//        "Previous month", next "Next month"), date_picker_month_item_material.xml (month_view);
//        core/java/android/widget/SimpleMonthView.java (MonthViewTouchHelper: one virtual
//        android.view.View per day, text "18", description "dd MMMM yyyy" = "18 March 2027",
//        checked when selected); time_picker_material.xml, time_picker_header_material.xml,
//        time_picker_text_input_material.xml and RadialTimePickerView (virtual nodes described
//        "1".."12", "0".."55"), TimePickerDialog (toggle_mode "Switch to text input mode for the time
//        input."; OK validates the typed time). The same framework dialogs a real Google Calendar
//        shows: a Korean test map of com.google.android.calendar (find_string id 48991002725:
//        android:id/date_picker_header_year, prev, next, month_view > View, radial_picker >
//        RadialPickerTouchHelper, am_label, pm_label, button1/button2).
//   APPC androidx appcompat: Toolbar (title/subtitle TextViews without ids, navigation ImageButton),
//        ActionMenuItemView (an android.widget.Button described by its title when only its icon
//        shows), the overflow ImageView "More options", MenuPopupWindow (a ListView without id;
//        abc_popup_menu_item_layout.xml: ListMenuItemView > content > title) — as Google Calendar
//        dumps show it (Button "Search"/"Jump to Today": dshaur/test-automation CalendarPage.java @
//        20e971b4; LinearLayout `content` items: a Portuguese Appium test, find_string id 14248697249).
//   MDC  Material Components' MaterialDatePicker (mtrl_picker_header_selection_text,
//        mtrl_picker_header_toggle, mtrl_picker_text_input_date, month_navigation_*, confirm_button,
//        cancel_button) — Google Calendar's date picker (mtrl_picker_header_toggle in
//        com.google.android.calendar: find_string id 533650855; confirm_button: id 1942100291).
import { html, A, ui, update, pressHandlers, Field, world, pad2, rerender } from '../os.js';
import { D, validDate, addMonths, DAYS, today, dayNum, monthName, monthTitle, closeDialog, focusField } from './calendar_core.js';

export const TV = 'android.widget.TextView', LL = 'android.widget.LinearLayout', FL = 'android.widget.FrameLayout';
export const VG = 'android.view.ViewGroup', VIEW = 'android.view.View', BTN = 'android.widget.Button';
export const IB = 'android.widget.ImageButton', IV = 'android.widget.ImageView', LV = 'android.widget.ListView';
export const RV = 'androidx.recyclerview.widget.RecyclerView', SV = 'android.widget.ScrollView';
export const press = (fn) => pressHandlers(fn);

const CSS = `
.calfw-tb { height: 56px; flex: 0 0 56px; display: flex; align-items: center; padding: 0 4px; gap: 2px; background: var(--bg); }
.calfw-tb .ttl { flex: 1; min-width: 0; padding-left: 12px; display: flex; flex-direction: column; justify-content: center; }
.calfw-tb .ttl .t { font-size: calc(20px * var(--fs)); white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.calfw-tb .ttl .s { font-size: calc(13px * var(--fs)); color: var(--muted); }
.calfw-pop-scrim { position: absolute; inset: 0; z-index: 22; }
.calfw-pop { position: absolute; right: 8px; top: 8px; min-width: 196px; background: var(--surface); border-radius: 4px; box-shadow: 0 4px 14px rgba(0,0,0,.3); padding: 6px 0; }
.calfw-pop .it { padding: 13px 20px; font-size: calc(15px * var(--fs)); }
.calfw-alert { background: var(--surface); border-radius: 28px; width: 86%; padding: 22px 20px 8px; display: flex; flex-direction: column; max-height: 90%; }
.calfw-alert .msg { padding: 4px 4px 10px; font-size: calc(16px * var(--fs)); }
.calfw-alert .btns { display: flex; justify-content: flex-end; gap: 4px; margin-top: 6px; }
.calfw-dp-hdr { background: var(--primary); color: var(--bg); padding: 14px 22px 16px; border-radius: 28px 28px 0 0; margin: -22px -20px 8px; }
.calfw-dp-hdr .y { font-size: 15px; opacity: .8; } .calfw-dp-hdr .d { font-size: 30px; }
.calfw-dp-nav { display: flex; align-items: center; height: 40px; } .calfw-dp-nav .m { flex: 1; text-align: center; font-weight: 500; }
.calfw-dp-grid { display: grid; grid-template-columns: repeat(7, 1fr); text-align: center; font-size: 13px; }
.calfw-dp-grid .wd { color: var(--muted); height: 26px; }
.calfw-dp-grid .dy { height: 36px; display: flex; align-items: center; justify-content: center; border-radius: 18px; }
.calfw-dp-grid .dy.on { background: var(--primary); color: var(--bg); }
.calfw-tp-hdr { display: flex; align-items: center; justify-content: center; gap: 4px; font-size: 44px; padding: 4px 0 8px; }
.calfw-tp-hdr .n { padding: 0 6px; border-radius: 8px; opacity: .6; } .calfw-tp-hdr .n.act { opacity: 1; color: var(--primary); }
.calfw-tp-hdr .ap { display: flex; flex-direction: column; font-size: 14px; margin-left: 10px; } .calfw-tp-hdr .ap div { padding: 2px 6px; opacity: .6; } .calfw-tp-hdr .ap .on { opacity: 1; color: var(--primary); }
.calfw-dial { position: relative; width: 256px; height: 256px; margin: 0 auto; border-radius: 128px; background: var(--primary-c); }
.calfw-dial > div { position: absolute; width: 34px; height: 34px; margin: -17px 0 0 -17px; border-radius: 17px; display: flex; align-items: center; justify-content: center; font-size: 14px; }
.calfw-dial > div.inner { font-size: 12px; } .calfw-dial > div.on { background: var(--primary); color: var(--bg); }
.calfw-tpin { display: flex; align-items: flex-start; gap: 6px; padding: 8px 0; } .calfw-tpin .f { width: 84px; } .calfw-tpin .f .field { margin: 0; }
.calfw-tpin .lab { font-size: 12px; color: var(--muted); padding: 2px 4px; } .calfw-tpin .lab.err { color: #b3261e; }
.calfw-foot { display: flex; align-items: center; margin-top: 6px; } .calfw-foot .grow { flex: 1; }
`;
if (typeof document !== 'undefined' && !document.getElementById('css-calendar-fw')) {
  const el = document.createElement('style');
  el.id = 'css-calendar-fw';
  el.textContent = CSS;
  document.head.appendChild(el);
}

// ------------------------------------------------------------------------------------------
// APPC: Toolbar > navigation ImageButton, title (and subtitle) TextViews without ids, action
// Buttons described by their titles, the overflow ImageView "More options". `custom` replaces
// the title (a custom action bar view, Etar's editor).
export function Toolbar({ id = 'toolbar', nav, title, subtitle, actions = [], overflow, custom, cls = 'android.view.ViewGroup' }) {
  return html`<div class="calfw-tb" ...${A(cls, { id })}>
    ${nav ? html`<div class="icon-btn" ...${A(IB, { desc: nav.desc, click: true, text: '' })} ...${press(nav.onClick)}>${nav.icon || '☰'}</div>` : null}
    ${custom || html`<div class="ttl">
      ${title ? html`<div class="t" ...${A(TV, { text: title })}>${title}</div>` : null}
      ${subtitle ? html`<div class="s" ...${A(TV, { text: subtitle })}>${subtitle}</div>` : null}</div>`}
    ${actions.map((a) => html`<div class="icon-btn" ...${A(a.cls || BTN, { id: a.id, desc: a.desc, click: true, text: a.text || '' })}
        ...${press(a.onClick)}>${a.icon}</div>`)}
    ${overflow ? html`<div class="icon-btn" ...${A(IV, { id: overflow.id, desc: 'More options', click: true, text: '' })}
        ...${press(overflow.onClick)}>⋮</div>` : null}
  </div>`;
}

/** APPC MenuPopupWindow: a ListView without id of ListMenuItemView > content > title. */
export function PopupMenu(items, { top = 8 } = {}) {
  return html`<div class="calfw-pop-scrim" onClick=${(e) => { if (e.target === e.currentTarget) update(closeDialog); }}>
    <div class="calfw-pop" style=${`top:${top}px`} ...${A(LV, {})}>
      ${items.map((it) => html`<div class="it" ...${A(LL, { click: true })}
          onClick=${(e) => { e.stopPropagation(); update(() => { ui().dialog = null; it.onClick(); }); }}>
        <div ...${A(LL, { id: 'content' })}><span ...${A(TV, { id: 'title', text: it.label })}>${it.label}</span></div></div>`)}
    </div></div>`;
}

/**
 * FW alert_dialog_material.xml: parentPanel > topPanel > title_template > alertTitle;
 * contentPanel > scrollView > message; customPanel > custom; buttonPanel > button3, button2
 * (negative), button1 (positive), in that order.
 */
export function AlertFw({ title, message, custom, positive, negative, onScrim = closeDialog }) {
  const btn = (b, n) => (b ? html`<div class=${'btn' + (b.disabled ? ' disabled' : '')} ...${A(BTN, { id: `android:id/button${n}`, text: b.label, click: !b.disabled, disabled: b.disabled })}
      ...${press(() => { if (!b.disabled) b.onClick(); })}>${b.label}</div>` : null);
  return html`<div class="scrim" onClick=${(e) => { if (e.target === e.currentTarget) update(onScrim); }}>
    <div class="calfw-alert" ...${A(LL, { id: 'android:id/parentPanel' })}>
      ${title ? html`<div ...${A(LL, { id: 'android:id/topPanel' })}><div class="dialog-title" ...${A(TV, { id: 'android:id/alertTitle', text: title })}>${title}</div></div>` : null}
      ${message ? html`<div ...${A(LL, { id: 'android:id/contentPanel' })}><div ...${A(SV, { id: 'android:id/scrollView' })}>
        <div class="msg" ...${A(TV, { id: 'android:id/message', text: message })}>${message}</div></div></div>` : null}
      ${custom ? html`<div ...${A(FL, { id: 'android:id/customPanel' })}><div ...${A(FL, { id: 'android:id/custom' })}>${custom}</div></div>` : null}
      ${positive || negative ? html`<div ...${A(SV, { id: 'android:id/buttonPanel' })}><div class="btns">${btn(negative, 2)}${btn(positive, 1)}</div></div>` : null}
    </div></div>`;
}

// ------------------------------------------------------------------------------------------
// FW DatePickerDialog (calendar mode): the header (year, "Thu, Mar 18"), a pager of months whose
// days are virtual nodes, prev/next. d = {sel, ym}; onSet(date) is called with the picked day.
export function openFwDate(kind, date, extra = {}) {
  const u = ui();
  u.focus = null; u.keyboard = false;
  u.dialog = { kind, sel: date, ym: date.slice(0, 8) + '01', ...extra };
}
export function FwDatePicker(d, onSet) {
  const sel = d.sel;
  const hdrDate = `${DAYS[D(sel).getUTCDay()].slice(0, 3)}, ${monthName(sel).slice(0, 3)} ${dayNum(sel)}`;
  const first = d.ym;
  const lead = D(first).getUTCDay();
  const ndays = new Date(Date.UTC(Number(first.slice(0, 4)), Number(first.slice(5, 7)), 0)).getUTCDate();
  const cells = ['S', 'M', 'T', 'W', 'T', 'F', 'S'].map((w) => html`<div class="wd">${w}</div>`);
  for (let i = 0; i < lead; i++) cells.push(html`<div></div>`);
  for (let i = 1; i <= ndays; i++) {
    const day = first.slice(0, 8) + pad2(i);
    cells.push(html`<div class=${'dy' + (day === sel ? ' on' : '')}
      ...${A(VIEW, { text: String(i), desc: `${pad2(i)} ${monthName(day)} ${day.slice(0, 4)}`, click: true, checked: day === sel })}
      ...${press(() => { d.sel = day; })}>${i}</div>`);
  }
  const page = (n) => () => { d.ym = addMonths(d.ym, n); };
  const picker = html`<div ...${A('android.widget.DatePicker', { id: 'android:id/datePicker' })}>
    <div class="calfw-dp-hdr" ...${A(LL, { id: 'android:id/date_picker_header' })}>
      <div class="y" ...${A(TV, { id: 'android:id/date_picker_header_year', text: sel.slice(0, 4), click: true })}>${sel.slice(0, 4)}</div>
      <div class="d" ...${A(TV, { id: 'android:id/date_picker_header_date', text: hdrDate, click: true })}>${hdrDate}</div></div>
    <div ...${A('android.widget.ViewAnimator', { id: 'android:id/animator' })}>
      <div class="calfw-dp-nav">
        <div class="icon-btn" ...${A(IB, { id: 'android:id/prev', desc: 'Previous month', click: true, text: '' })} ...${press(page(-1))}>‹</div>
        <div class="m">${monthTitle(first)}</div>
        <div class="icon-btn" ...${A(IB, { id: 'android:id/next', desc: 'Next month', click: true, text: '' })} ...${press(page(1))}>›</div></div>
      <div ...${A('com.android.internal.widget.ViewPager', { id: 'android:id/day_picker_view_pager', scroll: true })}>
        <div class="calfw-dp-grid" ...${A(VIEW, { id: 'android:id/month_view' })}>${cells}</div></div></div></div>`;
  return AlertFw({ custom: picker,
    negative: { label: 'Cancel', onClick: closeDialog },
    positive: { label: 'OK', onClick: () => { closeDialog(); onSet(sel); } } });
}

// ------------------------------------------------------------------------------------------
// FW TimePickerDialog in clock mode (header hours:minutes and AM/PM, the radial picker), and after
// toggle_mode its text input mode. d = {hour, minute, input, showing, error}; onSet(h, m).
const HOURS_12 = [12, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];
const HOURS_24_INNER = [0, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23];
export function openFwTime(kind, hhmm, extra = {}) {
  const [hour, minute] = hhmm.split(':').map(Number);
  const u = ui();
  u.focus = null; u.keyboard = false;
  u.dialog = { kind, hour, minute, input: false, showing: 'hours', ...extra };
}
function typedTime(d, is24) {
  const f = ui().fields;
  const hs = String(f.fwtp_h ?? '').trim(), ms = String(f.fwtp_m ?? '').trim();
  const h = /^\d{1,2}$/.test(hs) ? Number(hs) : NaN, m = /^\d{1,2}$/.test(ms) ? Number(ms) : NaN;
  const ok = Number.isFinite(h) && Number.isFinite(m) && m <= 59 && (is24 ? h <= 23 : h >= 1 && h <= 12);
  return ok ? { hour: is24 ? h : (h % 12) + (d.hour >= 12 ? 12 : 0), minute: m } : null;
}
export function FwTimePicker(d, onSet) {
  const is24 = world().settings.time_24h !== false;
  const f = ui().fields;
  const pm = d.hour >= 12;
  const setPm = (v) => { d.hour = (d.hour % 12) + (v ? 12 : 0); };
  const toInput = () => { f.fwtp_h = String(is24 ? d.hour : d.hour % 12 || 12); f.fwtp_m = pad2(d.minute); d.input = true; d.error = false; focusField('fwtp_h'); };
  const toClock = () => { const t = typedTime(d, is24); if (t) { d.hour = t.hour; d.minute = t.minute; } d.input = false; ui().focus = null; ui().keyboard = false; };
  const ok = () => {
    if (!d.input) { closeDialog(); onSet(d.hour, d.minute); return; }
    const t = typedTime(d, is24);
    if (!t) { d.error = true; return; }
    closeDialog(); onSet(t.hour, t.minute);
  };
  let body;
  if (!d.input) {
    const hourText = is24 ? pad2(d.hour) : String(d.hour % 12 || 12);
    const at = (i, r) => `left:${128 + r * Math.sin((i * Math.PI) / 6)}px;top:${128 - r * Math.cos((i * Math.PI) / 6)}px`;
    const node = (value, label, i, r, inner) => {
      const on = d.showing === 'hours' ? (is24 ? value === d.hour : value % 12 === d.hour % 12) : value === d.minute;
      const pick = d.showing === 'hours' ? () => { d.hour = is24 ? value : (value % 12) + (pm ? 12 : 0); d.showing = 'minutes'; } : () => { d.minute = value; };
      return html`<div class=${(inner ? 'inner' : '') + (on ? ' on' : '')} style=${at(i, r)}
        ...${A('android.widget.RadialTimePickerView$RadialPickerTouchHelper', { desc: String(value), text: '', click: true, selected: on })} ...${press(pick)}>${label}</div>`;
    };
    const dial = d.showing === 'hours'
      ? [...HOURS_12.map((v, i) => node(is24 ? (v === 12 ? 12 : v) : v, String(v), i, 104, false)),
        ...(is24 ? HOURS_24_INNER.map((v, i) => node(v, pad2(v), i, 70, true)) : [])]
      : Array.from({ length: 12 }, (_, i) => node(i * 5, pad2(i * 5), i, 104, false));
    body = html`<div class="calfw-tp-hdr" ...${A('android.widget.RelativeLayout', { id: 'android:id/time_header' })}>
        <span class=${'n' + (d.showing === 'hours' ? ' act' : '')} ...${A(TV, { id: 'android:id/hours', text: hourText, click: true })} ...${press(() => { d.showing = 'hours'; })}>${hourText}</span>
        <span ...${A(TV, { id: 'android:id/separator', text: ':' })}>:</span>
        <span class=${'n' + (d.showing === 'minutes' ? ' act' : '')} ...${A(TV, { id: 'android:id/minutes', text: pad2(d.minute), click: true })} ...${press(() => { d.showing = 'minutes'; })}>${pad2(d.minute)}</span>
        ${is24 ? null : html`<div class="ap" ...${A('android.widget.RadioGroup', { id: 'android:id/ampm_layout' })}>
          <div class=${pm ? '' : 'on'} ...${A('android.widget.RadioButton', { id: 'android:id/am_label', text: 'AM', click: true, checkable: true, checked: !pm })} ...${press(() => setPm(false))}>AM</div>
          <div class=${pm ? 'on' : ''} ...${A('android.widget.RadioButton', { id: 'android:id/pm_label', text: 'PM', click: true, checkable: true, checked: pm })} ...${press(() => setPm(true))}>PM</div></div>`}</div>
      <div class="calfw-dial" ...${A(VIEW, { id: 'android:id/radial_picker', click: true })}>${dial}</div>`;
  } else {
    body = html`<div ...${A(TV, { id: 'android:id/input_header', text: 'Set time' })}>Set time</div>
      <div ...${A('android.widget.RelativeLayout', { id: 'android:id/input_mode' })}>
        <div class="lab" ...${A(TV, { id: 'android:id/top_label', text: 'Type in time' })}>Type in time</div>
        <div class="calfw-tpin" ...${A('android.widget.RelativeLayout', { id: 'android:id/input_block' })}>
          <div class="f">${Field({ field: 'fwtp_h', id: 'android:id/input_hour', type: 'number' })}
            ${d.error ? html`<div class="lab err" ...${A(TV, { id: 'android:id/label_error', text: 'Enter a valid time' })}>Enter a valid time</div>`
              : html`<div class="lab" ...${A(TV, { id: 'android:id/label_hour', text: 'hour' })}>hour</div>`}</div>
          <span style="font-size:28px" ...${A(TV, { id: 'android:id/input_separator', text: ':' })}>:</span>
          <div class="f">${Field({ field: 'fwtp_m', id: 'android:id/input_minute', type: 'number' })}
            ${d.error ? null : html`<div class="lab" ...${A(TV, { id: 'android:id/label_minute', text: 'minute' })}>minute</div>`}</div>
          ${is24 ? null : html`<div class="btn" ...${A('android.widget.Spinner', { id: 'android:id/am_pm_spinner', click: true })}
              ...${press(() => setPm(!pm))}><span ...${A('android.widget.CheckedTextView', { id: 'android:id/text1', text: pm ? 'PM' : 'AM' })}>${pm ? 'PM' : 'AM'}</span> ▾</div>`}
        </div></div>`;
  }
  const picker = html`<div ...${A('android.widget.TimePicker', { id: 'android:id/timePicker' })}>${body}
    <div class="calfw-foot"><div class="icon-btn" ...${A(IB, { id: 'android:id/toggle_mode', click: true, text: '',
        desc: d.input ? 'Switch to clock mode for the time input.' : 'Switch to text input mode for the time input.' })}
      ...${press(() => (d.input ? toClock() : toInput()))}>${d.input ? '🕒' : '⌨'}</div><div class="grow"></div></div></div>`;
  return AlertFw({ custom: picker,
    negative: { label: 'Cancel', onClick: closeDialog },
    positive: { label: 'OK', onClick: ok } });
}

// ------------------------------------------------------------------------------------------
// MDC MaterialDatePicker: a month grid, or a typed date after "Switch to text input mode".
// d = {sel, ym, mode}; onSet(date).
export function openMdcDate(kind, date, extra = {}) {
  const u = ui(), f = u.fields;
  u.focus = null; u.keyboard = false;
  f.mdc_text = `${date.slice(5, 7)}/${date.slice(8, 10)}/${date.slice(0, 4)}`;
  u.dialog = { kind, sel: date, ym: date.slice(0, 8) + '01', mode: 'grid', ...extra };
}
const mdcParse = (s) => {
  const m = /^\s*(\d{1,2})\/(\d{1,2})\/(\d{4})\s*$/.exec(String(s || ''));
  const iso = m ? `${m[3]}-${pad2(Number(m[1]))}-${pad2(Number(m[2]))}` : '';
  return validDate(iso) ? iso : '';
};
export function MdcDatePicker(d, onSet) {
  const f = ui().fields;
  const sel = d.mode === 'text' ? (mdcParse(f.mdc_text) || d.sel) : d.sel;
  const head = `${DAYS[D(sel).getUTCDay()].slice(0, 3)}, ${monthName(sel).slice(0, 3)} ${dayNum(sel)}`;
  const toggle = () => {
    if (d.mode === 'text') { d.sel = mdcParse(f.mdc_text) || d.sel; d.ym = d.sel.slice(0, 8) + '01'; d.mode = 'grid'; ui().focus = null; ui().keyboard = false; }
    else { f.mdc_text = `${d.sel.slice(5, 7)}/${d.sel.slice(8, 10)}/${d.sel.slice(0, 4)}`; d.mode = 'text'; focusField('mdc_text'); }
  };
  let body;
  if (d.mode === 'text') {
    const bad = String(f.mdc_text || '').trim() !== '' && !mdcParse(f.mdc_text);
    body = html`${Field({ field: 'mdc_text', label: 'Date', hint: 'mm/dd/yyyy', id: 'mtrl_picker_text_input_date', onSubmit: () => {} })}
      ${bad ? html`<div style="color:#b3261e;font-size:12px;padding:2px 16px" ...${A(TV, { id: 'textinput_error', text: 'Invalid format.' })}>Invalid format.</div>` : null}`;
  } else {
    const first = d.ym;
    const lead = D(first).getUTCDay();
    const ndays = new Date(Date.UTC(Number(first.slice(0, 4)), Number(first.slice(5, 7)), 0)).getUTCDate();
    const cells = [];
    for (let i = 0; i < lead; i++) cells.push(html`<div></div>`);
    for (let i = 1; i <= ndays; i++) {
      const day = first.slice(0, 8) + pad2(i);
      const desc = `${day === today() ? 'Today ' : ''}${DAYS[D(day).getUTCDay()]}, ${monthName(day)} ${i}`;
      cells.push(html`<div class=${'dy' + (day === sel ? ' on' : '')} ...${A(TV, { text: String(i), desc, click: true, selected: day === sel })}
        ...${press(() => { d.sel = day; })}>${i}</div>`);
    }
    body = html`<div class="calfw-dp-nav">
        <div class="m" ...${A(BTN, { id: 'month_navigation_fragment_toggle', text: monthTitle(first), desc: 'Change to year view', click: true })}>${monthTitle(first)}</div>
        <div class="icon-btn" ...${A(BTN, { id: 'month_navigation_previous', desc: 'Change to previous month', click: true, text: '' })} ...${press(() => { d.ym = addMonths(d.ym, -1); })}>‹</div>
        <div class="icon-btn" ...${A(BTN, { id: 'month_navigation_next', desc: 'Change to next month', click: true, text: '' })} ...${press(() => { d.ym = addMonths(d.ym, 1); })}>›</div></div>
      <div class="calfw-dp-grid">${['S', 'M', 'T', 'W', 'T', 'F', 'S'].map((w) => html`<div class="wd">${w}</div>`)}</div>
      <div class="calfw-dp-grid" ...${A('android.widget.GridView', { id: 'month_grid' })}>${cells}</div>`;
  }
  const okSel = d.mode === 'text' ? mdcParse(f.mdc_text) : d.sel;
  const btn = (id, label, enabled, fn) => html`<div class=${'btn' + (enabled ? '' : ' disabled')} ...${A(BTN, { id, text: label, click: enabled, disabled: !enabled })}
    ...${press(() => { if (enabled) fn(); })}>${label}</div>`;
  return html`<div class="scrim" onClick=${(e) => { if (e.target === e.currentTarget) update(closeDialog); }}>
    <div class="calfw-alert" ...${A(LL, { id: 'mtrl_calendar_main_pane' })}>
      <div style="position:relative" ...${A(LL, { id: 'mtrl_picker_header' })}>
        <div style="font-size:12px;color:var(--muted)" ...${A(TV, { id: 'mtrl_picker_title_text', text: 'Select date' })}>Select date</div>
        <div style="font-size:30px" ...${A(TV, { id: 'mtrl_picker_header_selection_text', text: head })}>${head}</div>
        <div class="icon-btn" style="position:absolute;right:0;top:14px" ...${A(IB, { id: 'mtrl_picker_header_toggle', click: true, text: '',
            desc: d.mode === 'text' ? 'Switch to calendar input mode' : 'Switch to text input mode' })} ...${press(toggle)}>${d.mode === 'text' ? '📅' : '✎'}</div></div>
      ${body}
      <div class="btns" style="display:flex;justify-content:flex-end;gap:4px;margin-top:8px">
        ${btn('cancel_button', 'Cancel', true, closeDialog)}${btn('confirm_button', 'OK', !!okSel, () => { closeDialog(); onSet(okSel); })}</div>
    </div></div>`;
}
/**
 * A text field like os.js Field, whose widget class is the app's own (TextInputEditText reports
 * android.widget.EditText, AutoCompleteTextView itself); bound to ui().fields[field].
 */
export function EditField({ field, id, hint, cls = 'android.widget.EditText', multiline = false, onSubmit, style = '' }) {
  const u = ui();
  const S2R = window.S2R;
  const value = u.fields[field] ?? '';
  const focus = () => { if (S2R.state.ui.focus !== field) update((s) => { s.ui.focus = field; s.ui.keyboard = true; }); };
  S2R.submitters[field] = onSubmit || null;
  const common = {
    class: 'input', 'data-field': field, value, placeholder: hint || '', autocomplete: 'off', autocapitalize: 'off', spellcheck: false,
    onInput: (e) => { S2R.state.ui.fields[field] = e.target.value; rerender(); }, onFocus: focus,
    onKeyDown: (e) => {
      if (e.key !== 'Enter' || multiline) return;
      e.preventDefault();
      update((s) => { const fn = S2R.submitters[field]; if (fn) fn(); else { s.ui.keyboard = false; s.ui.focus = null; } });
    },
  };
  return html`<div class=${'field' + (u.focus === field ? ' focused' : '')} style=${style}
      ...${A(cls, { id, text: value, hint, click: true, edit: true })} onClick=${focus}>
    ${multiline ? html`<textarea ...${common} rows="2"></textarea>` : html`<input ...${common} type="text" />`}</div>`;
}
