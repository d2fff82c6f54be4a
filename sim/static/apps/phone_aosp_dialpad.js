// Phone, flavor `aosp`: AOSP Dialer's dial pad (sliding up over the search list), its regular search
// and the in-call screen. The main screens are phone_aosp.js's; the world and its helpers
// phone_core.js's; Dialer's widgets and dialogs phone_aosp_kit.js's.
import { html, Field, A, world, ui, back, openApp, update, toast } from '../os.js';
import { Avatar, sortedContacts, digitsOf, labelText, matchContact, hold, openMessages } from './contacts_core.js';
import { KEY_IDS, placeCall, endCall, openDialpad, pressDigit, dial, createContact } from './phone_core.js';
import { xTap, xIcon, xText } from './phone_aosp_kit.js';

// AOSP's Dialer, LineageOS/android_packages_apps_Dialer @ f7033c1046818cfbe395b29e8ed1db53776953a2
// (lineage-21.0). Paths below are under java/com/android/; classes are what uiautomator reports
// (phone_aosp_kit.js lists them).

// --- the dial pad: dialpadview/res/layout/dialpad_fragment.xml ------------------------------
const X_KEY_LETTERS = { 1: '', 2: 'ABC', 3: 'DEF', 4: 'GHI', 5: 'JKL', 6: 'MNO', 7: 'PQRS', 8: 'TUV', 9: 'WXYZ', 0: '+', '*': null, '#': null };
function xKeys(onDigit) {
  // dialpad.xml rows of DialpadKeyButton (dialpad_key.xml: dialpad_key_layout > dialpad_key_number,
  // dialpad_key_icon_or_letters_layout > dialpad_key_letters); DialpadView.java describes a key
  // "<n>,<letters>" ("2,ABC", "1,"), 0 / * / # by their face; a long press on 0 enters "+"
  return html`<div class="xd-keys" ...${A('android.widget.LinearLayout', { id: 'dialpad' })}>
    ${['1', '2', '3', '4', '5', '6', '7', '8', '9', '*', '0', '#'].map((d) => {
      const letters = X_KEY_LETTERS[d];
      const desc = d === '0' || d === '*' || d === '#' ? d : `${d},${letters}`;
      return html`<div class="xd-key" ...${A('android.widget.FrameLayout', { id: KEY_IDS[d], desc, click: true, long: d === '0' || d === '1', text: '' })}
          ...${hold(() => onDigit(d), () => onDigit(d === '0' ? '+' : d))}>
        <div style="display:flex;flex-direction:column;align-items:center" ...${A('android.widget.LinearLayout', { id: 'dialpad_key_layout' })}>
          <span class="xd-key-number" ...${A('android.widget.TextView', { id: 'dialpad_key_number', text: d })}>${d}</span>
          ${letters === null ? null : html`<div ...${A('android.widget.LinearLayout', { id: 'dialpad_key_icon_or_letters_layout', text: '' })}>
            ${letters ? html`<span class="xd-key-letters" ...${A('android.widget.TextView', { id: 'dialpad_key_letters', text: letters })}>${letters}</span>`
              : html`<span class="xd-key-letters">${d === '1' ? '∞' : ''}</span>`}</div>`}
        </div>
      </div>`;
    })}
  </div>`;
}

export function xSearchResults(q, dialpadQuery, smsLabel = 'Send SMS') {
  // searchfragment/list/res/layout/fragment_search.xml (recycler_view): search_contact_row.xml rows
  // (photo, primary, secondary "<label> <number>") and search_action_layout.xml rows
  // (search_action_text); NewSearchFragment.getActions: on the dial pad "Create new contact",
  // "Add to a contact", "Send SMS"; in regular search a dialable query adds "Call <number>"
  const dq = digitsOf(q);
  const hits = dialpadQuery
    ? sortedContacts().filter((c) => dq && (c.phones || []).some((p) => digitsOf(p.number).includes(dq)))
    : sortedContacts().filter((c) => q.trim() && matchContact(c, q));
  const dialable = /^[\d\s()+\-.*#,;]+$/.test(q.trim()) && !!dq;
  const actions = [];
  if (q.trim().length > 1 && (dialpadQuery || dialable)) {
    if (dialpadQuery) actions.push(['Create new contact', () => createContact(q.trim())], ['Add to a contact', () => openApp('contacts')]);
    if (!dialpadQuery) actions.push([`Call ${q.trim()}`, () => placeCall(q.trim())]);
    actions.push([smsLabel, () => openMessages(q.trim())]);
  }
  const row = (c) => {
    const ph = (c.phones || []).find((p) => !dq || digitsOf(p.number).includes(dq)) || (c.phones || [])[0];
    return html`<div class="xd-row" ...${A('android.widget.RelativeLayout', { click: true })}
        ...${xTap(() => { if (ph) placeCall(ph.number, c.name); else toast('No phone number'); })}>
      <span ...${A('android.widget.QuickContactBadge', { id: 'photo', text: '' })}>${Avatar(c.name)}</span>
      <div style="flex:1;min-width:0" ...${A('android.widget.LinearLayout')}>
        ${xText('primary', c.name, 'xd-name')}
        ${ph ? html`<div class="xd-sub">${xText('secondary', `${labelText(ph.label)} ${ph.number}`)}</div>` : null}
      </div></div>`;
  };
  return html`<div style="position:absolute;inset:0;background:var(--bg)" ...${A('android.widget.FrameLayout')}>
    <div class="xd-list" ...${A('androidx.recyclerview.widget.RecyclerView', { id: 'recycler_view', scroll: true })}>
      ${hits.slice(0, 20).map(row)}
      ${actions.map(([label, fn]) => html`<div class="xd-row" ...${A('android.widget.FrameLayout', { click: true })} ...${xTap(fn)}>
        <span ...${A('android.widget.ImageView', { id: 'search_action_image', text: '' })}>${label.startsWith('Call') ? '📞' : label === smsLabel ? '💬' : '👤'}</span>
        ${xText('search_action_text', label)}</div>`)}
    </div></div>`;
}

export function xDialpad(opts = {}) {
  // MainSearchController.showDialpad: the toolbar slides up, the search fragment
  // (search_fragment_container) lists what the digits match, the DialpadFragment
  // (dialpad_fragment_container) slides up; the bottom navigation hides (OldMainActivityPeer
  // onSearchOpen). dialpad_view_unthemed.xml: DialpadView `dialpad_view` > `digits_container` >
  // DigitsEditText `digits`, `deleteButton` (description_delete_button "backspace", disabled while the
  // digits are empty, DialpadFragment.updateDeleteButtonEnabledState) > dialpad.xml; the dial FAB
  // `dialpad_floating_action_button` (description_dial_button "dial")
  const num = world().dialer_number || '';
  const u = ui();
  const focus = () => { if (u.focus !== 'ph_digits') update(() => { u.focus = 'ph_digits'; u.keyboard = false; }); };
  const del = hold(() => { const w = world(); w.dialer_number = [...(w.dialer_number || '')].slice(0, -1).join(''); },
    () => { world().dialer_number = ''; });
  return html`<div class="xd" ...${A('android.widget.RelativeLayout', { id: 'root_layout' })}>
    <div class="xd-body" ...${A('android.view.ViewGroup', { id: 'coordinator_layout' })}>
      <div style="position:absolute;inset:0" ...${A('android.widget.FrameLayout', { id: 'search_fragment_container' })}>${xSearchResults(num, true, opts.sms)}</div>
      <div class="xd-pad" ...${A('android.widget.FrameLayout', { id: 'dialpad_fragment_container' })}>
        <div ...${A('android.widget.RelativeLayout')}>
          <div ...${A('android.widget.LinearLayout', { id: 'dialpad_view', click: true })}>
            <div class="xd-digits" ...${A('android.widget.LinearLayout', { id: 'digits_container' })}>
              <div style="flex:1" ...${A('android.widget.EditText', { id: 'digits', text: num, click: true, long: true, edit: true })} onClick=${focus}>
                <input class="input" data-field="ph_digits" value=${num} inputmode="none" autocomplete="off" spellcheck=${false}
                  style="text-align:center;font-size:calc(32px * var(--fs));letter-spacing:1px;caret-color:transparent;width:100%"
                  onInput=${(e) => update(() => { world().dialer_number = e.target.value.replace(/[^0-9*#+,;]/g, ''); })} onFocus=${focus} />
              </div>
              <div class="xd-iconbtn" style=${num ? '' : 'opacity:.38'}
                ...${A('android.widget.ImageButton', { id: 'deleteButton', desc: 'backspace', click: true, long: true, disabled: !num, text: '' })}
                ...${num ? del : {}}>⌫</div>
            </div>
            ${xKeys(pressDigit)}
          </div>
          <div class="xd-dial" ...${A(opts.callCls || 'android.widget.ImageButton', { id: opts.callId || 'dialpad_floating_action_button', desc: 'dial', click: true, text: '' })} ...${xTap(dial)}>📞</div>
        </div>
      </div>
    </div>
  </div>`;
}

// --- regular search: main/impl/toolbar/res/layout/expanded_search_bar.xml --------------------
export function xSearch() {
  // search_box_expanded: search_back_button (action_menu_back_from_search "stop searching"), EditText
  // search_view (hint dialer_hint_find_contact), search_clear_button (description_clear_search) while
  // there is text; the search fragment lists the matches below, the FAB opens the dial pad
  const q = ui().fields.ph_query || '';
  return html`<div class="xd" ...${A('android.widget.RelativeLayout', { id: 'root_layout' })}>
    <div class="xd-toolbar" ...${A('android.view.ViewGroup', { id: 'toolbar' })}>
      <div ...${A('android.widget.FrameLayout', { id: 'search_view_container' })}>
        <div class="xd-search" style="padding-left:4px" ...${A('android.widget.RelativeLayout', { id: 'search_box_expanded' })}>
          ${xIcon('android.widget.ImageButton', 'search_back_button', 'stop searching', '←', () => back())}
          <div style="flex:1">${Field({ field: 'ph_query', hint: 'Search contacts', id: 'search_view' })}</div>
          ${q ? xIcon('android.widget.ImageView', 'search_clear_button', 'Clear search', '✕', () => { ui().fields.ph_query = ''; }) : null}
        </div>
      </div>
    </div>
    <div class="xd-body" ...${A('android.view.ViewGroup', { id: 'coordinator_layout' })}>
      <div style="position:absolute;inset:0" ...${A('android.widget.FrameLayout', { id: 'search_fragment_container' })}>${xSearchResults(q, false)}</div>
      <div class="xd-fab" ...${A('android.widget.ImageButton', { id: 'fab', desc: 'key pad', click: true, text: '' })} ...${xTap(() => { back(); openDialpad(); })}>⠿</div>
    </div>
  </div>`;
}

// --- in call: incallui/incall/impl/res/layout/frag_incall_voice.xml -------------------------
export function xIncall(p, opts = {}) {
  // incall_ui_container > incall_contact_grid (contactgrid_avatar, incall_contactgrid_top_row.xml
  // contactgrid_status_text incall_connecting "Calling…", contactgrid_contact_name,
  // incall_contactgrid_bottom_row.xml contactgrid_bottom_text), incall_pager (incall_button_grid.xml:
  // six CheckableLabeledButtons incall_first_button …, labelled incall_label_mute, _dialpad, _speaker,
  // _add_call, _hold), incall_dialpad_container (incall_dialpad_fragment.xml: dialpad_view > digits, the
  // keys), incall_end_call (incall_content_description_end_call)
  const u = ui();
  const top = (u.tasks.phone || []).slice(-1)[0] || { p: {} };
  const set = (k) => () => { top.p = { ...top.p, [k]: !top.p[k] }; };
  const name = p.name || '';
  const shown = name || p.number || 'Unknown';
  const ids = ['incall_first_button', 'incall_second_button', 'incall_third_button', 'incall_fourth_button', 'incall_fifth_button'];
  const btns = [['🔇', 'Mute', 'muted'], ['⠿', 'Keypad', 'keypad'], ['🔊', 'Speaker', 'speaker'], ['＋', 'Add call', 'add'], ['⏸', 'Hold', 'hold']];
  return html`<div class="xd-incall" ...${A('android.widget.FrameLayout')}>
    <div style="flex:1;display:flex;flex-direction:column" ...${A('android.widget.RelativeLayout', { id: 'incall_ui_container' })}>
      <div style="display:flex;flex-direction:column;align-items:center;gap:6px;padding:40px 16px 12px" ...${A('android.widget.LinearLayout', { id: 'incall_contact_grid' })}>
        <span ...${A('android.widget.ImageView', { id: 'contactgrid_avatar', text: '' })}>${Avatar(shown, 72)}</span>
        <div ...${A('android.widget.LinearLayout')}>${xText('contactgrid_status_text', 'Calling…', '', {})}</div>
        <div style="font-size:calc(32px * var(--fs))" ...${A('android.widget.TextView', { id: 'contactgrid_contact_name', text: shown })}>${shown}</div>
        ${name ? html`<div style="opacity:.8" ...${A('android.widget.LinearLayout')}>${xText('contactgrid_bottom_text', p.number)}</div>` : null}
      </div>
      <div style="flex:1;display:flex;align-items:center;justify-content:center">
        ${p.keypad ? html`<div style="width:100%" ...${A('android.widget.FrameLayout', { id: 'incall_dialpad_container' })}>
          <div ...${A('android.widget.LinearLayout', { id: 'dialpad_view' })}>
            <div style="text-align:center;font-size:24px;min-height:32px" ...${A('android.widget.EditText', { id: 'digits', text: p.dtmf || '' })}>${p.dtmf || ''}</div>
            ${xKeys((d) => { top.p = { ...top.p, dtmf: (top.p.dtmf || '') + d }; })}</div></div>`
        : html`<div style="display:grid;grid-template-columns:repeat(3,1fr);gap:18px 8px;padding:8px 24px;width:100%" ...${A('androidx.viewpager.widget.ViewPager', { id: 'incall_pager' })}>
          ${btns.map(([icon, label, key], i) => html`<div class="xd-incall-btn"
              ...${A('android.widget.LinearLayout', { id: ids[i], desc: label, click: true, checkable: true, checked: !!p[key], text: '' })} ...${xTap(set(key))}>
            <span class="ic">${icon}</span><span style="font-size:13px">${label}</span></div>`)}</div>`}
      </div>
      <div style="display:flex;justify-content:center;padding:20px 0 28px">
        <div style="width:72px;height:56px;border-radius:28px;background:#d93025;display:flex;align-items:center;justify-content:center;font-size:26px"
          ...${A(opts.endCls || 'android.widget.ImageButton', { id: 'incall_end_call', desc: 'End call', click: true, text: '' })} ...${xTap(() => endCall(p))}>📞</div>
      </div>
    </div>
  </div>`;
}
