// s2r phone OS, the component kit: Material-style widgets annotated with the Android class names
// and resource ids uiautomator would report (A), so the element extractor (os.js S2R.snapshot) sees
// what a real phone's accessibility tree shows; touch handling with Android's tap / long-press
// semantics; text fields bound to ui().fields; dialogs and the keyboard-input time picker.
import { html } from './vendor/preact-htm.mjs';
import { S2R, ui, update, rerender, back, scrollKey } from './os_core.js';

// the component kit: Material-style widgets annotated with Android class names and ids
/** Annotation attributes: which Android widget this node is, for the element extractor. */
export function A(cls, o = {}) {
  const a = { 'data-cls': cls };
  if (o.id) a['data-rid'] = o.id.includes(':id/') ? o.id : `${o.pkg || pkgOf()}:id/${o.id}`;
  if (o.desc) a['data-desc'] = o.desc;
  if (o.text !== undefined) a['data-text'] = String(o.text);
  if (o.click) a['data-click'] = '1';
  if (o.long) a['data-long'] = '1';
  if (o.checkable) a['data-checkable'] = '1';
  if (o.checked) a['data-checked'] = '1';
  if (o.selected) a['data-selected'] = '1';
  if (o.disabled) a['data-disabled'] = '1';
  if (o.scroll) a['data-scrollable'] = '1';
  if (o.edit) a['data-edit'] = '1';
  if (o.password) a['data-password'] = '1';
  if (o.hint) a['data-hint'] = o.hint;
  return a;
}
export function pkgOf(appId) {
  const id = appId || ui()?.current;
  if (!id) return S2R.apps.launcher?.pkg || 'com.android.launcher3';
  return S2R.apps[id]?.pkg || 'android';
}

// touch handling: tap, long press and double tap with touch semantics, decided from real
// touch events (Python dispatches them through CDP). A row that handles long press must
// not also fire its tap.
const LONG_MS = 500;
export function pressHandlers(onClick, onLong) {
  if (!onLong) return { onClick: (e) => { if (S2R.gestureLock || S2R.press.longFired) { S2R.press.longFired = false; return; } update(() => onClick(e)); } };
  // The long-press flag and timer live on S2R, not in this closure: a long press re-renders,
  // and the click that follows the touch must see the flag even on the freshly built handler.
  const P = S2R.press;
  return {
    onTouchStart: (e) => {
      P.longFired = false;
      clearTimeout(P.timer);
      P.timer = setTimeout(() => { P.longFired = true; update(() => onLong(e)); }, LONG_MS);
    },
    onTouchMove: () => { clearTimeout(P.timer); },
    onTouchEnd: () => { clearTimeout(P.timer); },
    onContextMenu: (e) => { e.preventDefault(); },
    onClick: (e) => {
      if (P.longFired || S2R.gestureLock) { P.longFired = false; return; }
      if (onClick) update(() => onClick(e));
    },
  };
}
S2R.press = { longFired: false, timer: null };

export function Text(text, o = {}) {
  return html`<span class=${'tv ' + (o.cls || '')} ...${A('android.widget.TextView', { id: o.id, text, desc: o.desc })}>${text}</span>`;
}

/** A screen: app bar (title, up arrow, actions) + a scrolling body + optional FAB/bottom bar. */
export function Screen({ title, up = true, actions = [], body, fab, bottom, tabs, scroll = true, search }) {
  const key = scrollKey();
  return html`<div class="screen">
    <div class="appbar" ...${A('android.view.ViewGroup', { id: 'toolbar' })}>
      ${up ? html`<div class="icon-btn" ...${A('android.widget.ImageButton', { desc: 'Navigate up', click: true, text: '' })}
          ...${pressHandlers(() => back())}>←</div>` : null}
      ${search || html`<div class="title" ...${A('android.widget.TextView', { id: 'title', text: title })}>${title}</div>`}
      ${actions.map((a) => html`<div class="icon-btn" ...${A('android.widget.ImageButton', { desc: a.desc, id: a.id, click: true, text: '' })}
          ...${pressHandlers(a.onClick)}>${a.icon}</div>`)}
    </div>
    ${tabs || null}
    <div class=${'body' + (scroll ? ' scroll' : '')} data-scroll-key=${key}
      ...${A(scroll ? 'androidx.recyclerview.widget.RecyclerView' : 'android.widget.FrameLayout', { id: 'list', scroll })}>
      <div class="body-inner">${body}</div>
    </div>
    ${fab ? html`<div class="fab" ...${A('android.widget.ImageButton', { desc: fab.desc, id: fab.id || 'fab', click: true, text: '' })}
        ...${pressHandlers(fab.onClick)}>${fab.icon || '+'}</div>` : null}
    ${bottom || null}
  </div>`;
}

/** A list row: primary and secondary text, optional leading icon and trailing widget. */
export function Row({ title, subtitle, icon, trailing, onClick, onLong, id, desc, cls = '', selected, disabled }) {
  return html`<div class=${'row ' + cls + (disabled ? ' disabled' : '')}
      ...${A('android.widget.LinearLayout', { id, desc, click: !!onClick && !disabled, long: !!onLong, selected })}
      ...${onClick || onLong ? pressHandlers(disabled ? () => {} : onClick || (() => {}), onLong) : {}}>
    ${icon ? html`<div class="row-icon" ...${A('android.widget.ImageView', { text: '' })}>${icon}</div>` : null}
    <div class="row-text">
      <div class="row-title" ...${A('android.widget.TextView', { id: 'title', text: title })}>${title}</div>
      ${subtitle ? html`<div class="row-sub" ...${A('android.widget.TextView', { id: 'summary', text: subtitle })}>${subtitle}</div>` : null}
    </div>
    ${trailing || null}
  </div>`;
}

export function Switch({ checked, onChange, id = 'switch_widget', desc, disabled }) {
  return html`<div class=${'switch' + (checked ? ' on' : '')}
      ...${A('android.widget.Switch', { id, desc, click: !disabled, checkable: true, checked, disabled, text: checked ? 'ON' : 'OFF' })}
      ...${pressHandlers((e) => { e.stopPropagation(); if (!disabled) onChange(!checked); })}><div class="knob"></div></div>`;
}

/** A settings-style row whose whole width toggles a switch (as on Android). */
export function SwitchRow({ title, subtitle, checked, onChange, id, disabled }) {
  return Row({ title, subtitle, id, disabled, onClick: () => onChange(!checked),
    trailing: Switch({ checked, onChange, disabled }) });
}

export function Checkbox({ checked, onChange, label, id }) {
  return html`<div class="check-row" ...${A('android.widget.CheckBox', { id, text: label, click: true, checkable: true, checked })}
      ...${pressHandlers(() => onChange(!checked))}>
    <span class=${'box' + (checked ? ' on' : '')}>${checked ? '✓' : ''}</span><span>${label}</span></div>`;
}

export function Radio({ checked, onSelect, label, id }) {
  return html`<div class="check-row" ...${A('android.widget.RadioButton', { id, text: label, click: true, checkable: true, checked })}
      ...${pressHandlers(() => onSelect())}>
    <span class=${'radio' + (checked ? ' on' : '')}></span><span>${label}</span></div>`;
}

export function Button({ label, onClick, id, kind = 'text', disabled, desc }) {
  return html`<div class=${'btn ' + kind + (disabled ? ' disabled' : '')}
      ...${A('android.widget.Button', { id, text: label, desc, click: !disabled, disabled })}
      ...${pressHandlers(() => { if (!disabled) onClick(); })}>${label}</div>`;
}

export function Chip({ label, on, onClick, id }) {
  return html`<div class=${'chip' + (on ? ' on' : '')}
      ...${A('android.widget.CompoundButton', { id, text: label, click: true, checkable: true, checked: !!on })}
      ...${pressHandlers(onClick)}>${label}</div>`;
}

/** A text field bound to ui.fields[field]. Focus shows the soft keyboard. */
/** `cls`: the widget class the app's layout uses (an AutoCompleteTextView, a framework subclass). */
export function Field({ field, hint, label, multiline, type = 'text', id, onSubmit, password, cls = 'android.widget.EditText' }) {
  const u = ui();
  const value = u.fields[field] ?? '';
  const focused = u.focus === field;
  const attrs = A(cls, { id: id || field, text: value, hint: hint || label, click: true, edit: true, password });
  const common = {
    class: 'input', 'data-field': field, value, placeholder: hint || label || '',
    autocomplete: 'off', autocapitalize: 'off', spellcheck: false,
    onInput: (e) => { S2R.state.ui.fields[field] = e.target.value; rerender(); },
    onFocus: () => { if (S2R.state.ui.focus !== field) update((s) => { s.ui.focus = field; s.ui.keyboard = true; }); },
    onKeyDown: (e) => { if (e.key === 'Enter' && !multiline) { e.preventDefault(); submitField(); } },
  };
  S2R.submitters[field] = onSubmit || null;
  return html`<div class=${'field' + (focused ? ' focused' : '')} ...${attrs}
      onClick=${() => { if (S2R.state.ui.focus !== field) update((s) => { s.ui.focus = field; s.ui.keyboard = true; }); }}>
    ${label ? html`<div class="field-label">${label}</div>` : null}
    ${multiline ? html`<textarea ...${common} rows="3"></textarea>`
      : html`<input ...${common} type=${password ? 'password' : type === 'number' ? 'text' : 'text'} inputmode=${type === 'number' ? 'numeric' : 'text'} />`}
  </div>`;
}
S2R.submitters = {};
export function submitField() {
  const f = ui().focus;
  const fn = f && S2R.submitters[f];
  update((s) => { if (fn) fn(); else { s.ui.keyboard = false; s.ui.focus = null; } });
}

export function Tabs({ tabs, active, onSelect }) {
  return html`<div class="tabs" ...${A('android.widget.HorizontalScrollView', { id: 'tabs' })}>
    ${tabs.map((tb) => html`<div class=${'tab' + (tb.id === active ? ' on' : '')}
        ...${A('android.widget.TextView', { id: `tab_${tb.id}`, text: tb.label, desc: tb.label, click: true, selected: tb.id === active })}
        ...${pressHandlers(() => onSelect(tb.id))}>${tb.icon ? html`<span class="tab-icon">${tb.icon}</span>` : null}${tb.label}</div>`)}
  </div>`;
}

export function BottomNav({ items, active, onSelect }) {
  return html`<div class="bottomnav" ...${A('android.widget.FrameLayout', { id: 'navigation_bar' })}>
    ${items.map((tb) => html`<div class=${'navitem' + (tb.id === active ? ' on' : '')}
        ...${A('android.widget.FrameLayout', { id: `nav_${tb.id}`, desc: tb.label, click: true, selected: tb.id === active })}
        ...${pressHandlers(() => onSelect(tb.id))}>
      <div class="nav-icon">${tb.icon}</div>${Text(tb.label, { id: 'navigation_bar_item_label_view' })}</div>`)}
  </div>`;
}

/** A slider (android.widget.SeekBar): tap or drag along the track sets the value. */
export function Slider({ value, min = 0, max = 100, onChange, id = 'seekbar', desc }) {
  const frac = (value - min) / (max - min);
  const setFrom = (e) => {
    const el = e.currentTarget;
    const r = el.getBoundingClientRect();
    const x = (e.touches && e.touches[0] ? e.touches[0].clientX : e.changedTouches && e.changedTouches[0] ? e.changedTouches[0].clientX : e.clientX);
    const f = Math.min(1, Math.max(0, (x - r.left - 10) / (r.width - 20)));
    onChange(Math.round(min + f * (max - min)));
  };
  return html`<div class="slider" ...${A('android.widget.SeekBar', { id, desc, click: true, scroll: false, text: String(value) })}
      onTouchStart=${(e) => { S2R.gestureLock = true; update(() => setFrom(e)); e.stopPropagation(); }}
      onTouchMove=${(e) => { update(() => setFrom(e)); e.stopPropagation(); e.preventDefault(); }}
      onTouchEnd=${(e) => { S2R.gestureLock = false; e.stopPropagation(); }}
      onClick=${(e) => { update(() => setFrom(e)); }}>
    <div class="track"><div class="fill" style=${`width:${frac * 100}%`}></div></div>
    <div class="thumb" style=${`left:calc(${frac * 100}% * (1 - 20 / 100) + 0px)`}></div>
  </div>`;
}

/** A modal dialog; buttons = [{label, onClick}]. */
export function Dialog({ title, body, buttons = [], id = 'alertTitle' }) {
  return html`<div class="scrim" onClick=${(e) => { if (e.target === e.currentTarget) update(() => { ui().dialog = null; }); }}>
    <div class="dialog" ...${A('android.widget.FrameLayout', { id: 'parentPanel', pkg: 'android' })}>
      ${title ? html`<div class="dialog-title" ...${A('android.widget.TextView', { id: `android:id/${id}`, text: title })}>${title}</div>` : null}
      <div class="dialog-body">${body}</div>
      <div class="dialog-buttons">${buttons.map((b, i) => Button({ label: b.label, onClick: b.onClick, id: `android:id/button${i + 1}`, disabled: b.disabled }))}</div>
    </div></div>`;
}

/** Time picker in keyboard-input mode: two number fields and, in 12-hour mode, AM/PM. */
export function TimePickerBody({ hField, mField, ampmField }) {
  const u = ui();
  const ap = ampmField ? u.fields[ampmField] || 'AM' : null;
  return html`<div class="timepicker" ...${A('android.widget.TimePicker', { id: 'timePicker' })}>
    ${Field({ field: hField, hint: 'hh', label: 'Hour', type: 'number', id: 'input_hour' })}
    <div class="tp-colon">:</div>
    ${Field({ field: mField, hint: 'mm', label: 'Minute', type: 'number', id: 'input_minute' })}
    ${ampmField ? html`<div class="ampm">
      ${Radio({ label: 'AM', checked: ap === 'AM', onSelect: () => { u.fields[ampmField] = 'AM'; }, id: 'am_label' })}
      ${Radio({ label: 'PM', checked: ap === 'PM', onSelect: () => { u.fields[ampmField] = 'PM'; }, id: 'pm_label' })}
    </div>` : null}
  </div>`;
}
/** Read an hour/minute pair typed into a time picker; null if invalid. */
export function readTime(hField, mField, ampmField) {
  const f = ui().fields;
  const h = parseInt(String(f[hField] ?? '').trim(), 10), m = parseInt(String(f[mField] ?? '').trim(), 10);
  if (!Number.isFinite(h) || !Number.isFinite(m) || m < 0 || m > 59) return null;
  if (ampmField) {
    if (h < 1 || h > 12) return null;
    const pm = (f[ampmField] || 'AM') === 'PM';
    return { hour: (h % 12) + (pm ? 12 : 0), minute: m };
  }
  if (h < 0 || h > 23) return null;
  return { hour: h, minute: m };
}

export function Empty(text) {
  return html`<div class="empty" ...${A('android.widget.TextView', { id: 'empty', text })}>${text}</div>`;
}
export function Section(title) {
  return html`<div class="section" ...${A('android.widget.TextView', { id: 'section_title', text: title })}>${title}</div>`;
}
