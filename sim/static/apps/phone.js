// Phone (dialer): the dial pad, the call log (Recents) with call details, contacts, search,
// and the outgoing-call screen.
//
// The dial pad's digits are world().dialer_number (WorldState.dialer_number), so a task can
// check what was entered without a call being placed. Ending an outgoing call appends a
// WorldState `Call` record {id, number, name, kind:'outgoing', time: sim now, duration_s: 0}.
// Flavor `sim` has top tabs (Keypad, Recents, Contacts) with the dial pad on the first tab,
// All/Missed filter chips in Recents, and rows that open the call details directly.
// Flavor `aosp` is AOSP's Dialer as LineageOS builds it: LineageOS/android_packages_apps_Dialer
// @ f7033c1046818cfbe395b29e8ed1db53776953a2 (lineage-21.0), MainActivity through
// OldMainActivityPeer: the search bar toolbar, the Favorites / Recents / Contacts bottom
// navigation (no Voicemail tab without visual voicemail), the "key pad" FAB that slides the dial
// pad up over the search list, call-log cards that expand to their actions, the Call History
// activity (All / Missed / Statistics) from the overflow menu, call details, the in-call screen.
// Each of its screens cites its layouts (paths under java/com/android/ of that repository).
//
// This module: the `sim` flavor's screens and every flavor's dialogs (each hands over to its Dialer
// counterpart on the aosp flavor), and the app's registration. The world model and its helpers are
// phone_core.js's; AOSP Dialer's screens phone_aosp.js's and phone_aosp_dialpad.js's.
import { html, registerApp, Screen, Row, Section, Field, Dialog, Chip, Tabs, Empty, A, world, ui, go, back,
  replace, openApp, update, toast, nowIso } from '../os.js';
import { Avatar, sortedContacts, letterOf, digitsOf, labelText, matchContact, press, hold, openMessages } from './contacts_core.js';
import { PKG, KEYS, KEY_IDS, KIND_ICON, aosp, kindLabel, calls, contactFor, displayName, sortedCalls,
  dayOf, yesterday, when, fmtDuration, placeCall, endCall, openDialpad, pressDigit, dial, createContact,
  openContact, startSearch } from './phone_core.js';
import { xMenu, xClearDialog } from './phone_aosp_kit.js';
import { xMain, xHistory, xDetails } from './phone_aosp.js';
import { xDialpad, xSearch, xIncall } from './phone_aosp_dialpad.js';

function IconBtn(icon, desc, fn, id) {
  return html`<div class="icon-btn" ...${A('android.widget.ImageButton', { desc, id, click: true, text: '' })} ...${press(fn)}>${icon}</div>`;
}

// ------------------------------------------------------------------------------------------
// the dial pad
function Keys(onDigit, dark) {
  return html`<div style="display:grid;grid-template-columns:repeat(3,1fr);gap:4px 12px;padding:4px 28px">
    ${KEYS.map(([d, sub]) => html`<div style=${`height:58px;border-radius:29px;display:flex;flex-direction:column;align-items:center;justify-content:center;background:${dark ? 'rgba(255,255,255,.08)' : 'var(--surface)'}`}
        ...${A('android.widget.FrameLayout', { id: KEY_IDS[d], text: d, click: true, long: d === '0' })}
        ...${hold(() => onDigit(d), () => onDigit(d === '0' ? '+' : d))}>
      <span style="font-size:26px;line-height:28px">${d}</span>
      <span style="font-size:10px;letter-spacing:1px;color:${dark ? '#bbb' : 'var(--muted)'};height:12px">${sub}</span></div>`)}
  </div>`;
}

function DigitsField() {
  const num = world().dialer_number || '';
  const u = ui();
  return html`<div style="display:flex;align-items:center;padding:4px 8px 4px 56px;min-height:64px">
    <div style="flex:1" ...${A('android.widget.EditText', { id: 'digits', text: num, click: true, edit: true })}
        onClick=${() => { if (u.focus !== 'ph_digits') update(() => { u.focus = 'ph_digits'; u.keyboard = false; }); }}>
      <input class="input" data-field="ph_digits" value=${num} inputmode="none" autocomplete="off" spellcheck=${false}
        style="text-align:center;font-size:calc(30px * var(--fs));letter-spacing:1px;caret-color:transparent"
        onInput=${(e) => update(() => { world().dialer_number = e.target.value.replace(/[^0-9*#+,;]/g, ''); })}
        onFocus=${() => { if (u.focus !== 'ph_digits') update(() => { u.focus = 'ph_digits'; u.keyboard = false; }); }} />
    </div>
    <div class="icon-btn" style=${`visibility:${num ? 'visible' : 'hidden'}`}
      ...${A('android.widget.ImageButton', { id: 'deleteButton', desc: 'backspace', click: !!num, long: !!num, text: '' })}
      ...${hold(() => { const w = world(); w.dialer_number = [...(w.dialer_number || '')].slice(0, -1).join(''); },
    () => { world().dialer_number = ''; })}>⌫</div>
  </div>`;
}

function Suggestions() {
  const num = world().dialer_number || '';
  const dq = digitsOf(num);
  if (!dq) return null;
  const hits = sortedContacts().filter((c) => (c.phones || []).some((p) => digitsOf(p.number).includes(dq))).slice(0, 3);
  return html`
    ${hits.map((c) => { const p = c.phones.find((x) => digitsOf(x.number).includes(dq)); return Row({ icon: Avatar(c.name), title: c.name,
      subtitle: `${labelText(p.label)} ${p.number}`, id: 'search_result', onClick: () => placeCall(p.number, c.name) }); })}
    ${Row({ icon: '👤', title: 'Create new contact', id: 'create_new_contact', onClick: () => createContact(num) })}
    ${Row({ icon: '💬', title: 'Send SMS', id: 'send_sms', onClick: () => openMessages(num) })}`;
}

function Dialpad() {
  return html`<div style="position:absolute;inset:0;display:flex;flex-direction:column;background:var(--bg)">
    <div style="flex:1;overflow-y:auto;scrollbar-width:none" ...${A('android.widget.ListView', { id: 'dialpad_suggestions' })}>${Suggestions()}</div>
    <div style="background:var(--bg);padding-bottom:8px" ...${A('android.widget.LinearLayout', { id: 'dialpad_view' })}>
      ${DigitsField()}
      ${Keys(pressDigit)}
      <div style="display:flex;justify-content:center;padding:10px 0 4px">
        <div style="width:64px;height:64px;border-radius:32px;background:#1e8e3e;color:#fff;display:flex;align-items:center;justify-content:center;font-size:26px"
          ...${A('android.widget.ImageButton', { id: 'dialpad_floating_action_button', desc: 'dial', click: true, text: '' })} ...${press(dial)}>📞</div>
      </div>
    </div>
  </div>`;
}

function dialpad() {
  if (aosp()) return xDialpad();
  return html`<div class="screen">${Dialpad()}</div>`;
}

// ------------------------------------------------------------------------------------------
// call log
function callRow(c) {
  const name = displayName(c);
  const hit = contactFor(c.number);
  const missed = c.kind === 'missed';
  const time = when(c.time);
  return Row({
    icon: html`<span style=${`color:${missed ? '#d93025' : '#1e8e3e'};font-size:22px`}>${KIND_ICON[c.kind] || '•'}</span>`,
    title: name, subtitle: `${kindLabel(c.kind)} · ${time}`, id: 'call_log_row',
    onClick: () => go('details', { id: c.id }),
    trailing: IconBtn('📞', `Call ${name}`, () => placeCall(c.number, hit ? hit.contact.name : c.name), 'call_button'),
  });
}

function CallList(list) {
  if (!list.length) return Empty('No calls');
  const today = nowIso().slice(0, 10), yday = yesterday();
  const groups = [];
  for (const c of list) {
    const d = dayOf(c.time);
    const g = d === today ? 'Today' : d === yday ? 'Yesterday' : 'Older';
    if (!groups.length || groups[groups.length - 1][0] !== g) groups.push([g, []]);
    groups[groups.length - 1][1].push(c);
  }
  return html`${groups.map(([g, cs]) => html`${Section(g)}${cs.map(callRow)}`)}`;
}

function recentsBody(p) {
  const filter = p.filter || 'all';
  const list = sortedCalls().filter((c) => filter === 'all' || c.kind === 'missed');
  return html`<div style="padding:4px 12px" ...${A('android.widget.LinearLayout', { id: 'filter_chips' })}>
      ${Chip({ label: 'All', on: filter === 'all', id: 'filter_all', onClick: () => replace('main', { tab: 'recents', filter: 'all' }) })}
      ${Chip({ label: 'Missed', on: filter === 'missed', id: 'filter_missed', onClick: () => replace('main', { tab: 'recents', filter: 'missed' }) })}
    </div>${CallList(list)}`;
}

function contactsBody() {
  const list = sortedContacts();
  const out = [];
  let last = null;
  for (const c of list) {
    const L = letterOf(c.name);
    if (L !== last) { out.push(Section(L)); last = L; }
    out.push(Row({ icon: Avatar(c.name), title: c.name, id: 'contact_row', onClick: () => openContact(c) }));
  }
  return html`${Row({ icon: '＋', title: 'Create new contact', id: 'create_new_contact', onClick: () => createContact('') })}
    ${list.length ? out : Empty('No contacts')}`;
}

function main(p) {
  if (aosp()) return xMain(p);
  const u = ui();
  const tab = p.tab || 'keypad';
  const more = { icon: '⋮', desc: 'More options', id: 'overflow', onClick: () => { u.dialog = { kind: 'menu', where: 'main' }; } };
  const tabs = Tabs({ active: tab, onSelect: (id) => { if (id === 'keypad') openDialpad(); else replace('main', { tab: id }); }, tabs: [
    { id: 'keypad', label: 'Keypad' }, { id: 'recents', label: 'Recents' }, { id: 'contacts', label: 'Contacts' }] });
  const actions = [{ icon: '🔍', desc: 'Search', id: 'menu_search', onClick: startSearch }, more];
  if (tab === 'keypad') return Screen({ title: 'Phone', up: false, actions, tabs, scroll: false, body: Dialpad() });
  return Screen({ title: 'Phone', up: false, actions, tabs, body: tab === 'recents' ? recentsBody(p) : contactsBody() });
}

function history(p) {
  return xHistory(p);  // the Call History activity is the aosp flavor's (the sim flavor filters Recents)
}

function details({ id }) {
  if (aosp()) return xDetails({ id });
  const c = calls().find((x) => x.id === id);
  if (!c) return Screen({ title: 'Call details', body: Empty('This call is no longer in your call history') });
  const hit = contactFor(c.number);
  const name = displayName(c);
  const numLine = hit ? `${labelText(hit.phone.label)} ${c.number}` : c.number;
  const action = (icon, label, fn) => html`<div style="display:flex;flex-direction:column;align-items:center;gap:4px;width:80px"
      ...${A('android.widget.Button', { id: `call_details_${label.toLowerCase().replace(/ /g, '_')}`, text: label, click: true })} ...${press(fn)}>
    <span style="width:44px;height:44px;border-radius:22px;background:var(--primary-c);display:flex;align-items:center;justify-content:center;font-size:18px">${icon}</span>
    <span style="font-size:12px">${label}</span></div>`;
  return Screen({
    title: 'Call details',
    actions: [{ icon: '🗑', desc: 'Delete', id: 'call_detail_delete_menu_item', onClick: () => { ui().dialog = { kind: 'delete_call', id: c.id }; } }],
    body: html`
      <div style="display:flex;flex-direction:column;align-items:center;gap:6px;padding:16px">
        ${Avatar(name, 72)}
        <div style="font-size:calc(22px * var(--fs))" ...${A('android.widget.TextView', { id: 'contact_name', text: name })}>${name}</div>
        <div style="color:var(--muted)" ...${A('android.widget.TextView', { id: 'phone_number', text: c.number })}>${numLine}</div>
      </div>
      <div style="display:flex;justify-content:center;gap:8px;padding-bottom:8px">
        ${action('📞', 'Call', () => placeCall(c.number, hit ? hit.contact.name : c.name))}
        ${action('💬', 'Message', () => openMessages(c.number))}
        ${hit ? null : action('👤', 'Add contact', () => createContact(c.number))}
      </div>
      <div class="card">
        <div class="row" ...${A('android.widget.LinearLayout', { id: 'call_entry' })}>
          <div class="row-icon" style=${`color:${['missed', 'rejected', 'blocked'].includes(c.kind) ? '#d93025' : '#1e8e3e'}`}>${KIND_ICON[c.kind] || '•'}</div>
          <div class="row-text">
            <div class="row-title" ...${A('android.widget.TextView', { id: 'call_type', text: kindLabel(c.kind) })}>${kindLabel(c.kind)}</div>
            <div class="row-sub" ...${A('android.widget.TextView', { id: 'call_time', text: when(c.time) })}>${when(c.time)}</div>
          </div>
          ${c.kind === 'missed' ? null : html`<div style="color:var(--muted);font-size:13px"
            ...${A('android.widget.TextView', { id: 'call_duration', text: fmtDuration(c.duration_s || 0) })}>${fmtDuration(c.duration_s || 0)}</div>`}
        </div>
      </div>` });
}

function contact({ id }) {
  const c = (world().contacts || []).find((x) => x.id === id);
  if (!c) return Screen({ title: '', body: Empty('Contact not found') });
  return Screen({ title: c.name, body: html`
    <div style="display:flex;justify-content:center;padding:16px">${Avatar(c.name, 88)}</div>
    ${(c.phones || []).map((p) => Row({ icon: '📞', title: p.number, subtitle: labelText(p.label), id: 'phone_row', onClick: () => placeCall(p.number, c.name) }))}
    ${!(c.phones || []).length ? Empty('No phone number') : null}
    ${Row({ icon: '👤', title: 'Open in Contacts', id: 'open_contact', onClick: () => openApp('contacts', { s: 'details', p: { id: c.id } }) })}
  ` });
}

function search() {
  if (aosp()) return xSearch();
  const q = ui().fields.ph_query || '';
  const hits = sortedContacts().filter((c) => matchContact(c, q));
  const dq = digitsOf(q);
  return Screen({
    search: html`<div style="flex:1">${Field({ field: 'ph_query', hint: 'Search contacts', id: 'search_view' })}</div>`,
    body: html`
      ${hits.map((c) => Row({ icon: Avatar(c.name), title: c.name, subtitle: (c.phones[0] || {}).number || '', id: 'search_result',
        onClick: () => { const ph = (c.phones || [])[0]; if (ph) placeCall(ph.number, c.name); else toast('No phone number'); } }))}
      ${q.trim() && !hits.length && !dq ? Empty('No results') : null}
      ${dq && /^[\d\s()+\-.*#]+$/.test(q.trim()) ? Row({ icon: '📞', title: `Call ${q.trim()}`, id: 'call_number', onClick: () => placeCall(q.trim()) }) : null}`,
  });
}

function incall(p) {
  if (aosp()) return xIncall(p);
  const u = ui();
  const top = (u.tasks.phone || []).slice(-1)[0] || { p: {} };
  const set = (k) => () => { top.p = { ...top.p, [k]: !top.p[k] }; };
  const name = p.name || '';
  const btn = (icon, label, key) => html`<div style="display:flex;flex-direction:column;align-items:center;gap:6px"
      ...${A('android.widget.ToggleButton', { id: `incall_${key}`, desc: label, text: label, click: true, checkable: true, checked: !!p[key] })}
      ...${press(set(key))}>
    <span style=${`width:60px;height:60px;border-radius:30px;display:flex;align-items:center;justify-content:center;font-size:22px;background:${p[key] ? '#d3e3fd' : 'rgba(255,255,255,.12)'};color:${p[key] ? '#041e49' : '#fff'}`}>${icon}</span>
    <span style="font-size:13px">${label}</span></div>`;
  return html`<div class="screen" style="background:#1b1c1f;color:#fff" ...${A('android.widget.FrameLayout', { id: 'incall_screen' })}>
    <div style="text-align:center;padding:48px 16px 12px">
      <div style="font-size:14px;opacity:.8" ...${A('android.widget.TextView', { id: 'contactgrid_status_text', text: 'Calling…' })}>Calling…</div>
      <div style="font-size:calc(32px * var(--fs));margin-top:10px" ...${A('android.widget.TextView', { id: 'contactgrid_contact_name', text: name || p.number || 'Unknown' })}>${name || p.number || 'Unknown'}</div>
      ${name ? html`<div style="font-size:16px;opacity:.8;margin-top:6px" ...${A('android.widget.TextView', { id: 'contactgrid_bottom_text', text: p.number })}>${p.number}</div>` : null}
    </div>
    <div style="flex:1;display:flex;align-items:center;justify-content:center">
      ${p.keypad ? html`<div style="width:100%">
        <div style="text-align:center;font-size:24px;min-height:32px" ...${A('android.widget.TextView', { id: 'dtmf_dialer_field', text: p.dtmf || '' })}>${p.dtmf || ''}</div>
        ${Keys((d) => { top.p = { ...top.p, dtmf: (top.p.dtmf || '') + d }; }, true)}</div>`
      : Avatar(name || p.number || '?', 120)}
    </div>
    <div style="display:grid;grid-template-columns:repeat(3,1fr);gap:18px 8px;padding:8px 24px">
      ${btn('🔇', 'Mute', 'muted')}${btn('⠿', 'Keypad', 'keypad')}${btn('🔊', 'Speaker', 'speaker')}
      ${btn('＋', 'Add call', 'add')}${btn('⏸', 'Hold', 'hold')}${btn('⋯', 'More', 'more')}
    </div>
    <div style="display:flex;justify-content:center;padding:20px 0 28px">
      <div style="width:72px;height:56px;border-radius:28px;background:#d93025;display:flex;align-items:center;justify-content:center;font-size:26px"
        ...${A('android.widget.ImageButton', { id: 'incall_end_call', desc: 'End call', click: true, text: '' })} ...${press(() => endCall(p))}>📞</div>
    </div>
  </div>`;
}

// ------------------------------------------------------------------------------------------
// dialogs
function Menu(items, onPick) {
  return html`<div class="scrim" style="background:transparent;align-items:flex-start;justify-content:flex-end"
      onClick=${(e) => { if (e.target === e.currentTarget) update(() => { ui().dialog = null; }); }}>
    <div style="margin:8px 8px 0 0;background:var(--surface);border-radius:6px;min-width:200px;box-shadow:0 3px 10px rgba(0,0,0,.3);padding:6px 0"
        ...${A('android.widget.ListView', { id: 'android:id/list' })}>
      ${items.map((label) => html`<div style="padding:14px 20px;font-size:calc(15px * var(--fs))"
          ...${A('android.widget.TextView', { id: 'android:id/title', text: label, click: true })}
          ...${press(() => { ui().dialog = null; onPick(label); })}>${label}</div>`)}
    </div></div>`;
}

const dialogs = {
  menu: (d) => {
    if (aosp()) return xMenu(d);
    return Menu(['Clear call history', 'Settings'], (label) => {
      if (label === 'Clear call history') ui().dialog = { kind: 'clear' };
      else toast(label);
    });
  },
  clear: () => (aosp() ? xClearDialog() : Dialog({ title: 'Clear call history?', body: html`<div style="color:var(--muted)">This will delete all calls from your history</div>`, buttons: [
    { label: 'Cancel', onClick: () => { ui().dialog = null; } },
    { label: 'Clear', onClick: () => { world().calls = []; ui().dialog = null; toast('Call history cleared'); } }] })),
  delete_call: (d) => Dialog({ title: 'Delete this call from history?', buttons: [
    { label: 'Cancel', onClick: () => { ui().dialog = null; } },
    { label: 'Delete', onClick: () => { world().calls = calls().filter((c) => c.id !== d.id); ui().dialog = null; back(); } }] }),
};

registerApp({
  id: 'phone', label: 'Phone', pkg: PKG, icon: '📞', color: '#188038',
  root: { s: 'main', p: {} },
  screens: { main, dialpad, history, details, contact, search, incall },
  dialogs,
  // the sim has no ongoing-call chip to come back with, so Back keeps the call screen up; aosp:
  // Back first collapses the search bar (MainSearchController.onBackPressed)
  onBack: (r) => r.s === 'incall',
  activity: (r) => ({
    incall: 'com.android.dialer/com.android.incallui.InCallActivity',
    details: `${PKG}/.calldetails.CallDetailsActivity`,
    history: `${PKG}/.app.calllog.CallLogActivity`,
  })[r.s] || `${PKG}/.main.impl.MainActivity`,
});
