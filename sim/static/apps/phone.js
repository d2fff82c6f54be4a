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
// Each screen below cites its layouts (paths under java/com/android/ of that repository).
import { html, registerApp, Screen, Row, Section, Field, Dialog, Chip, Tabs, Empty, A,
  world, ui, go, back, replace, openApp, flavor, stock, update, toast, nextId, now, nowIso, fmtTime, pressHandlers } from '../os.js';
import { Avatar, beginEdit, sortedContacts, letterOf, digitsOf, labelText, matchContact, press, hold, openMessages } from './contacts.js';

const PKG = 'com.android.dialer';
const KEYS = [['1', ''], ['2', 'ABC'], ['3', 'DEF'], ['4', 'GHI'], ['5', 'JKL'], ['6', 'MNO'], ['7', 'PQRS'], ['8', 'TUV'],
  ['9', 'WXYZ'], ['*', ''], ['0', '+'], ['#', '']];
export const KEY_IDS = { 1: 'one', 2: 'two', 3: 'three', 4: 'four', 5: 'five', 6: 'six', 7: 'seven', 8: 'eight', 9: 'nine',
  0: 'zero', '*': 'star', '#': 'pound' };
const KIND_SIM = { missed: 'Missed call', incoming: 'Incoming', outgoing: 'Outgoing', rejected: 'Declined', blocked: 'Blocked', voicemail: 'Voicemail' };
const KIND_AOSP = { missed: 'Missed call', incoming: 'Incoming call', outgoing: 'Outgoing call', rejected: 'Declined call', blocked: 'Blocked call', voicemail: 'Voicemail' };
const KIND_ICON = { missed: '↙', incoming: '↙', outgoing: '↗', rejected: '⊘', blocked: '⊘', voicemail: '✉' };
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

// ------------------------------------------------------------------------------------------
// helpers
const aosp = () => flavor() === 'aosp';
const kindLabel = (k) => (aosp() ? KIND_AOSP : KIND_SIM)[k] || k;
const calls = () => world().calls || [];
/** Same number as Android's loose compare: equal digits, or equal up to a short country code. */
export function sameNumber(a, b) {
  const da = digitsOf(a), db = digitsOf(b);
  if (!da || !db) return false;
  if (da === db) return true;
  const [s, l] = da.length <= db.length ? [da, db] : [db, da];
  return s.length >= 7 && l.endsWith(s) && l.length - s.length <= 3;
}
function contactFor(number) {
  for (const c of world().contacts || []) {
    const p = (c.phones || []).find((x) => sameNumber(x.number, number));
    if (p) return { contact: c, phone: p };
  }
  return null;
}
const displayName = (call) => (contactFor(call.number) || {}).contact?.name || call.name || call.number;
/** Calls newest first; equal times keep the later-added record first; undated calls last. */
function sortedCalls(list = calls()) {
  return list.map((c, i) => [c, i]).sort(([a, ia], [b, ib]) => {
    const ta = a.time ? String(a.time).slice(0, 19) : '', tb = b.time ? String(b.time).slice(0, 19) : '';
    if (ta !== tb) return ta < tb ? 1 : -1;
    return ib - ia;
  }).map(([c]) => c);
}
const dayOf = (iso) => (iso ? String(iso).slice(0, 10) : '');
function yesterday() { const d = now(); d.setUTCDate(d.getUTCDate() - 1); return d.toISOString().slice(0, 10); }
function when(iso) {
  if (!iso) return '';
  const d = new Date(String(iso).slice(0, 19) + 'Z');
  if (isNaN(d)) return '';
  const tm = fmtTime(d.getUTCHours(), d.getUTCMinutes());
  const day = dayOf(iso);
  if (day === nowIso().slice(0, 10)) return tm;
  if (day === yesterday()) return `Yesterday, ${tm}`;
  return `${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}, ${tm}`;
}
function fmtDuration(s) {
  const m = Math.floor(s / 60), sec = s % 60;
  if (s >= 3600) return `${Math.floor(s / 3600)} hr ${m % 60} min`;
  return m ? `${m} min ${sec} sec` : `${sec} sec`;
}
function IconBtn(icon, desc, fn, id) {
  return html`<div class="icon-btn" ...${A('android.widget.ImageButton', { desc, id, click: true, text: '' })} ...${press(fn)}>${icon}</div>`;
}

// ------------------------------------------------------------------------------------------
// actions
/** Place an outgoing call: the in-call screen; the log record is written when it ends. */
export function placeCall(number, name, ret) {
  const n = String(number || '').trim();
  if (!digitsOf(n)) { toast('Invalid number'); return; }
  const hit = contactFor(n);
  world().dialer_number = '';
  const p = { number: n, name: name || (hit ? hit.contact.name : ''), ret: ret || null };
  if (ui().current === 'phone') go('incall', p);
  else openApp('phone', { s: 'incall', p });
}
function endCall(p) {
  const u = ui();
  if (p.number) {
    const w = world();
    if (!w.calls) w.calls = [];
    w.calls.push({ id: nextId('k'), number: p.number, name: p.name || '', kind: 'outgoing', time: nowIso(), duration_s: 0 });
  }
  const stack = u.tasks.phone || [];
  if (stack.length > 1) stack.pop();
  else u.tasks.phone = [{ s: 'main', p: {} }];
  u.focus = null; u.keyboard = false; u.dialog = null;
  if (p.ret && p.ret !== 'phone' && window.S2R.apps[p.ret] && (u.tasks[p.ret] || []).length) {
    u.current = p.ret;
    u.recents = [p.ret, ...(u.recents || []).filter((a) => a !== p.ret)];
  }
  toast('Call ended');
}
export function openDialpad() {
  // every stock dialer (AOSP's, Google's) slides the pad up over the search list; the sim has a Keypad tab
  if (stock()) { ui().ph_expanded = null; go('dialpad', {}); } else replace('main', { tab: 'keypad' });
  const u = ui(); u.focus = 'ph_digits'; u.keyboard = false;
}
function pressDigit(d) {
  const w = world();
  w.dialer_number = (w.dialer_number || '') + d;
  const u = ui(); u.focus = 'ph_digits'; u.keyboard = false;
}
function dial() {
  const w = world();
  const n = (w.dialer_number || '').trim();
  if (!n) {
    // an empty dial pad recalls the last number dialled, as the Pixel dialer does
    const last = sortedCalls().find((c) => c.kind === 'outgoing');
    if (last) w.dialer_number = last.number;
    return;
  }
  placeCall(n);
}
function createContact(number) {
  beginEdit(null, { phone: number });
  openApp('contacts', { s: 'edit', p: {} });
}
function openContact(c) {
  // a stock dialer opens the contact in the Contacts app (AOSP: ContactsFragment; Google Dialer too)
  if (stock()) openApp('contacts', { s: 'details', p: { id: c.id } });
  else go('contact', { id: c.id });
}
function startSearch() {
  ui().ph_expanded = null;
  go('search', {});
  const u = ui(); u.fields.ph_query = ''; u.focus = 'ph_query'; u.keyboard = true;
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

// ==========================================================================================
// flavor aosp: AOSP's Dialer, LineageOS/android_packages_apps_Dialer
// @ f7033c1046818cfbe395b29e8ed1db53776953a2 (lineage-21.0). Paths below are under java/com/android/.
// Classes are what uiautomator reports (View.getAccessibilityClassName): MainToolbar / DialerToolbar /
// the AppCompat action bar and CoordinatorLayout → android.view.ViewGroup, SearchBarView, CardView and
// DialpadKeyButton → android.widget.FrameLayout, BottomNavBar / BottomNavItem → android.widget.LinearLayout,
// the FABs → android.widget.ImageButton, BidiTextView / DialpadTextView → android.widget.TextView,
// DigitsEditText → android.widget.EditText, CallTypeIconsView → android.view.View.
if (typeof document !== 'undefined' && !document.getElementById('xdialer-css')) {
  const s = document.createElement('style');
  s.id = 'xdialer-css';
  s.textContent = `
.xd { position: absolute; inset: 0; display: flex; flex-direction: column; background: var(--bg); }
.xd-toolbar { flex: 0 0 auto; padding: 8px 12px; }
.xd-search { height: 48px; border-radius: 24px; background: var(--surface); display: flex; align-items: center; padding: 0 4px 0 16px; gap: 8px; color: var(--muted); box-shadow: 0 1px 3px rgba(0,0,0,.2); }
.xd-search-hint { flex: 1; font-size: calc(16px * var(--fs)); }
.xd-body { flex: 1; position: relative; min-height: 0; }
.xd-list { position: absolute; inset: 0; overflow-y: auto; scrollbar-width: none; }
.xd-fab { position: absolute; right: 16px; bottom: 16px; width: 56px; height: 56px; border-radius: 16px; background: var(--primary-c); display: flex; align-items: center; justify-content: center; font-size: 24px; box-shadow: 0 2px 6px rgba(0,0,0,.3); z-index: 5; }
.xd-nav { flex: 0 0 auto; display: flex; border-top: 1px solid var(--line); background: var(--bg); }
.xd-navitem { flex: 1; display: flex; flex-direction: column; align-items: center; padding: 8px 0 10px; gap: 2px; color: var(--muted); }
.xd-navitem[data-selected="1"] { color: var(--primary); }
.xd-navicon { font-size: 20px; padding: 2px 20px; border-radius: 14px; }
.xd-navitem[data-selected="1"] .xd-navicon { background: var(--primary-c); }
.xd-navtext { font-size: 11px; letter-spacing: .5px; font-weight: 500; }
.xd-day { padding: 16px 24px 6px; font-size: 11px; letter-spacing: .8px; font-weight: 500; color: var(--muted); text-transform: uppercase; }
.xd-card { margin: 2px 8px; border-radius: 8px; background: var(--bg); }
.xd-card.open { background: var(--surface); box-shadow: 0 1px 4px rgba(0,0,0,.25); margin: 8px; }
.xd-primary { display: flex; align-items: center; gap: 16px; padding: 10px 8px 10px 16px; }
.xd-lines { flex: 1; min-width: 0; }
.xd-name { font-size: calc(16px * var(--fs)); white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.xd-name.missed { color: #d93025; }
.xd-sub { display: flex; align-items: center; gap: 4px; font-size: calc(14px * var(--fs)); color: var(--muted); }
.xd-icons { font-size: 14px; }
.xd-iconbtn { width: 44px; height: 44px; display: flex; align-items: center; justify-content: center; border-radius: 22px; font-size: 20px; flex: 0 0 44px; }
.xd-actions { padding: 4px 0 8px; border-top: 1px solid var(--line); }
.xd-action { display: flex; align-items: center; gap: 24px; padding: 12px 24px; font-size: calc(15px * var(--fs)); }
.xd-empty { display: flex; flex-direction: column; align-items: center; gap: 12px; padding: 96px 24px; color: var(--muted); text-align: center; }
.xd-favs { display: grid; grid-template-columns: repeat(3, 1fr); gap: 16px 8px; padding: 8px 12px 16px; }
.xd-fav { display: flex; flex-direction: column; align-items: center; gap: 4px; }
.xd-fav-name { font-size: 14px; text-align: center; overflow-wrap: anywhere; }
.xd-fav-type { font-size: 12px; color: var(--muted); }
.xd-header { display: flex; align-items: center; justify-content: space-between; padding: 16px 16px 8px 24px; font-size: 14px; font-weight: 500; }
.xd-contact { display: flex; align-items: center; gap: 16px; padding: 8px 16px 8px 72px; min-height: 48px; position: relative; }
.xd-letter { position: absolute; left: 24px; font-size: 18px; color: var(--primary); }
.xd-pad { position: absolute; left: 0; right: 0; bottom: 0; background: var(--bg); box-shadow: 0 -2px 6px rgba(0,0,0,.15); }
.xd-digits { display: flex; align-items: center; padding: 8px 8px 8px 64px; min-height: 72px; }
.xd-keys { display: grid; grid-template-columns: repeat(3, 1fr); padding: 0 24px; }
.xd-key { height: 64px; display: flex; flex-direction: column; align-items: center; justify-content: center; border-radius: 32px; }
.xd-key-number { font-size: 30px; line-height: 34px; }
.xd-key-letters { font-size: 11px; letter-spacing: 1.5px; color: var(--muted); height: 14px; }
.xd-dial { margin: 12px auto 20px; width: 64px; height: 64px; border-radius: 32px; background: #1e8e3e; color: #fff; display: flex; align-items: center; justify-content: center; font-size: 26px; }
.xd-row { display: flex; align-items: center; gap: 16px; padding: 8px 16px; min-height: 56px; }
.xd-tabs { display: flex; background: var(--bg); border-bottom: 1px solid var(--line); flex: 0 0 auto; }
.xd-tab { flex: 1; text-align: center; padding: 14px 0 12px; font-size: 14px; font-weight: 500; color: var(--muted); border-bottom: 2px solid transparent; }
.xd-tab[data-selected="1"] { color: var(--primary); border-bottom-color: var(--primary); }
.xd-detail-head { display: flex; align-items: center; gap: 16px; padding: 16px; }
.xd-entry { display: flex; align-items: center; gap: 16px; padding: 12px 16px; }
.xd-footer-item { display: flex; align-items: center; gap: 24px; padding: 14px 24px; font-size: calc(15px * var(--fs)); }
.xd-incall { position: absolute; inset: 0; display: flex; flex-direction: column; background: #1b1c1f; color: #fff; }
.xd-incall-btn { display: flex; flex-direction: column; align-items: center; gap: 6px; }
.xd-incall-btn .ic { width: 60px; height: 60px; border-radius: 30px; display: flex; align-items: center; justify-content: center; font-size: 22px; background: rgba(255,255,255,.12); }
.xd-incall-btn[data-checked="1"] .ic { background: #d3e3fd; color: #041e49; }
`;
  document.head.appendChild(s);
}

/** A tap handler that stops at its own view (a nested clickable view takes the tap, as on Android). */
const xTap = (fn) => { const h = pressHandlers(fn); return { onClick: (e) => { e.stopPropagation(); h.onClick(e); } }; };
const xIcon = (cls, id, desc, glyph, fn, extra = {}) => html`<div class="xd-iconbtn"
    ...${A(cls, { id, desc, click: !!fn, text: '', ...extra })} ...${fn ? xTap(fn) : {}}>${glyph}</div>`;
const xText = (id, text, cls = '', extra = {}) => html`<span class=${cls} ...${A('android.widget.TextView', { id, text, ...extra })}>${text}</span>`;

/** DateUtils.getRelativeTimeSpanString(time, now, MINUTE_IN_MILLIS, FORMAT_ABBREV_RELATIVE). */
function xRelative(iso) {
  if (!iso) return '';
  const t0 = new Date(String(iso).slice(0, 19) + 'Z'), t1 = now();
  const ms = t1 - t0;
  if (ms < 0) return xDate(iso);
  if (ms < 3600e3) return `${Math.floor(ms / 60e3)} min. ago`;
  if (ms < 86400e3) return `${Math.floor(ms / 3600e3)} hr. ago`;
  const days = Math.round((new Date(nowIso().slice(0, 10) + 'T00:00:00Z') - new Date(String(iso).slice(0, 10) + 'T00:00:00Z')) / 86400e3);
  if (days === 1) return 'Yesterday';
  if (days < 7) return `${days} days ago`;
  return xDate(iso);
}
function xDate(iso) {
  const d = new Date(String(iso).slice(0, 19) + 'Z');
  return d.getUTCFullYear() === now().getUTCFullYear() ? `${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}`
    : `${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}, ${d.getUTCFullYear()}`;
}
const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const LONG_MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
/** calllogutils/CallLogDates.java formatDate: DateUtils.formatDateTime(SHOW_TIME | SHOW_DATE | SHOW_WEEKDAY | SHOW_YEAR). */
function xFullDate(iso) {
  if (!iso) return '';
  const d = new Date(String(iso).slice(0, 19) + 'Z');
  return `${WEEKDAYS[d.getUTCDay()]}, ${LONG_MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}, ${d.getUTCFullYear()}, ${fmtTime(d.getUTCHours(), d.getUTCMinutes())}`;
}
/** calllogutils/CallLogDurations.java formatDuration: "1m 1s", "45s". */
function xDuration(s) {
  const m = Math.floor(s / 60), sec = s % 60;
  return s >= 60 ? `${m}m ${sec}s` : `${sec}s`;
}
const xNumberLabel = (call) => { const hit = contactFor(call.number); return hit ? labelText(hit.phone.label) : ''; };

// --- the main screen: main/impl/res/layout/main_activity.xml ------------------------------
function xToolbar() {
  // main/impl/toolbar/res/layout/toolbar_layout.xml: MainToolbar > FrameLayout > SearchBarView
  // `search_view_container` > `search_box_collapsed` (search_box_start_search, voice_search_button,
  // main_options_menu_button); strings dialer_hint_find_contact, description_start_voice_search,
  // action_menu_overflow_description
  return html`<div class="xd-toolbar" ...${A('android.view.ViewGroup', { id: 'toolbar' })}>
    <div ...${A('android.widget.FrameLayout')}>
      <div ...${A('android.widget.FrameLayout', { id: 'search_view_container' })}>
        <div class="xd-search" ...${A('android.widget.RelativeLayout', { id: 'search_box_collapsed', click: true })} ...${xTap(startSearch)}>
          <span>🔍</span>
          ${xText('search_box_start_search', 'Search contacts', 'xd-search-hint', { click: true })}
          ${xIcon('android.widget.ImageView', 'voice_search_button', 'Start voice search', '🎤', () => toast('Voice search is not available'))}
          ${xIcon('android.widget.ImageButton', 'main_options_menu_button', 'More options', '⋮', () => { ui().dialog = { kind: 'menu', where: 'main' }; })}
        </div>
      </div>
    </div>
  </div>`;
}

const X_TABS = [['favorites', 'speed_dial_tab', 'Favorites', '☆'], ['recents', 'call_log_tab', 'Recents', '🕘'], ['contacts', 'contacts_tab', 'Contacts', '👥']];
function xBottomNav(tab) {
  // main/impl/bottomnav/res/layout/bottom_nav_bar_layout.xml + bottom_nav_item.xml; tab titles
  // tab_title_speed_dial, tab_title_call_history, tab_all_contacts (BottomNavBar.java); the Voicemail
  // tab shows only with visual voicemail (OldMainActivityPeer.canVoicemailTabBeShown)
  return html`<div class="xd-nav" ...${A('android.widget.LinearLayout', { id: 'bottom_nav_bar' })}>
    ${X_TABS.map(([id, rid, label, icon]) => html`<div class="xd-navitem"
        ...${A('android.widget.LinearLayout', { id: rid, click: true, selected: tab === id })}
        ...${xTap(() => { ui().ph_expanded = null; replace('main', { tab: id }); })}>
      <div ...${A('android.widget.FrameLayout')}><span class="xd-navicon" ...${A('android.widget.ImageView', { id: 'bottom_nav_item_image', text: '' })}>${icon}</span></div>
      ${xText('bottom_nav_item_text', label, 'xd-navtext')}
    </div>`)}
  </div>`;
}

function xMain(p) {
  const tab = X_TABS.some(([id]) => id === p.tab) ? p.tab : 'favorites';
  const body = tab === 'recents' ? xCallLog(sortedCalls(), 'all') : tab === 'contacts' ? xContacts() : xFavorites();
  return html`<div class="xd" ...${A('android.widget.RelativeLayout', { id: 'root_layout' })}>
    ${xToolbar()}
    <div class="xd-body" ...${A('android.view.ViewGroup', { id: 'coordinator_layout' })}>
      <div style="position:absolute;inset:0" ...${A('android.widget.FrameLayout', { id: 'fragment_container' })}>${body}</div>
      <div class="xd-fab" ...${A('android.widget.ImageButton', { id: 'fab', desc: 'key pad', click: true, text: '' })} ...${xTap(openDialpad)}>⠿</div>
    </div>
    ${xBottomNav(tab)}
  </div>`;
}

function xEmpty(id, message, action) {
  // widget/res/layout/empty_content_view.xml (EmptyContentView)
  return html`<div class="xd-empty" ...${A('android.widget.LinearLayout', { id })}>
    <span style="font-size:48px" ...${A('android.widget.ImageView', { id: 'empty_list_view_image', text: '' })}>☏</span>
    ${xText('empty_list_view_message', message)}
    ${action ? html`<div class="btn" ...${A('android.widget.Button', { id: 'empty_list_view_action', text: action[0], click: true })} ...${xTap(action[1])}>${action[0]}</div>` : null}
  </div>`;
}

function xFavorites() {
  // speeddial/res/layout/fragment_speed_dial.xml (speed_dial_root > speed_dial_recycler_view),
  // speed_dial_header_layout.xml (speed_dial_header_text favorites_header "Favorites",
  // speed_dial_add_button "Add"), favorite_item_layout.xml (avatar, name, phone_type); a tap on a
  // favorite with one number calls it (SpeedDialFragment); none: speed_dial_empty_content_view
  const favs = sortedContacts().filter((c) => c.starred);
  const addFav = () => openApp('contacts');
  if (!favs.length) {
    return html`<div style="position:absolute;inset:0" ...${A('android.widget.FrameLayout', { id: 'speed_dial_root' })}>
      ${xEmpty('speed_dial_empty_content_view', "You haven't added any favorites yet", ['Add favorite', addFav])}</div>`;
  }
  return html`<div style="position:absolute;inset:0" ...${A('android.widget.FrameLayout', { id: 'speed_dial_root' })}>
    <div class="xd-list" data-scroll-key="phone/main/favorites" ...${A('androidx.recyclerview.widget.RecyclerView', { id: 'speed_dial_recycler_view', scroll: true })}>
      <div class="xd-header" ...${A('android.widget.RelativeLayout')}>
        ${xText('speed_dial_header_text', 'Favorites')}
        <div class="btn" ...${A('android.widget.Button', { id: 'speed_dial_add_button', text: 'Add', click: true })} ...${xTap(addFav)}>Add</div>
      </div>
      <div class="xd-favs">
        ${favs.map((c) => { const ph = (c.phones || [])[0]; return html`<div class="xd-fav" ...${A('android.widget.LinearLayout', { click: true, long: true })}
            ...${xTap(() => { if (ph) placeCall(ph.number, c.name); else toast('No phone number'); })}>
          <div ...${A('android.widget.FrameLayout', { id: 'avatar_container' })}>
            <span ...${A('android.widget.QuickContactBadge', { id: 'avatar', text: '' })}>${Avatar(c.name, 72)}</span></div>
          ${xText('name', c.name, 'xd-fav-name')}
          ${ph ? xText('phone_type', labelText(ph.label), 'xd-fav-type') : null}
        </div>`; })}
      </div>
    </div>
  </div>`;
}

function xContacts() {
  // contactsfragment/res/layout/fragment_contacts.xml (recycler_view), add_contact_row.xml
  // (click_target > photo, contact_name all_contacts_empty_add_contact_action), contact_row.xml
  // (header letter, click_target > photo, contact_name); a tap opens the contact in Contacts
  const list = sortedContacts();
  let last = null;
  return html`<div style="position:absolute;inset:0" ...${A('android.widget.FrameLayout')}>
    <div class="xd-list" data-scroll-key="phone/main/contacts" ...${A('androidx.recyclerview.widget.RecyclerView', { id: 'recycler_view', scroll: true })}>
      <div class="xd-contact" ...${A('android.widget.LinearLayout', { id: 'click_target', click: true })} ...${xTap(() => createContact(''))}>
        <span ...${A('android.widget.ImageView', { id: 'photo', text: '' })}>＋</span>${xText('contact_name', 'Create new contact')}</div>
      ${list.map((c) => {
        const L = letterOf(c.name);
        const head = L !== last ? L : null;
        last = L;
        return html`<div ...${A('android.widget.FrameLayout')} style="position:relative">
          ${head ? html`<span class="xd-letter" style="top:14px" ...${A('android.widget.TextView', { id: 'header', text: head })}>${head}</span>` : null}
          <div class="xd-contact" ...${A('android.widget.LinearLayout', { id: 'click_target', click: true })} ...${xTap(() => openContact(c))}>
            <span ...${A('android.widget.QuickContactBadge', { id: 'photo', text: '' })}>${Avatar(c.name)}</span>
            ${xText('contact_name', c.name)}</div>
        </div>`;
      })}
    </div>
    ${list.length ? null : xEmpty('empty_list_view', "You don't have any contacts yet", ['Create new contact', () => createContact('')])}
  </div>`;
}

// --- the call log: app/res/layout/call_log_fragment.xml, call_log_list_item.xml -----------
/** The row's description (app/calllog/CallLogListItemHelper.java getCallDescription): a missed call
 *  "Missed call from …", an answered one "Answered call from …", a voicemail "Voicemail from …",
 *  any other (outgoing, declined, blocked) "Call to …". */
function xCallDescription(c, name, typeOrLocation, date) {
  const head = { missed: 'Missed call from', incoming: 'Answered call from', voicemail: 'Voicemail from' }[c.kind] || 'Call to';
  return `${head} ${name}, ${typeOrLocation}, ${date}, .`;
}
const X_DAY_GROUPS = () => ({ [nowIso().slice(0, 10)]: 'Today', [yesterday()]: 'Yesterday' });

/** The actions under an expanded row (call_log_list_item_actions.xml): "Create new contact" and "Add to a
 *  contact" for a number no contact has, "Send a message", "Call details". Google Dialer's cards keep them. */
function xEntryActions(c, hit) {
  const u = ui();
  const action = (rid, icon, text, fn) => html`<div class="xd-action" ...${A('android.widget.LinearLayout', { id: rid, click: true })} ...${xTap(fn)}>
    <span ...${A('android.widget.ImageView', { text: '' })}>${icon}</span>${xText(null, text)}</div>`;
  return html`<div class="xd-actions" ...${A('android.widget.LinearLayout', { id: 'call_log_entry_actions' })}>
    ${hit ? null : action('create_new_contact_action', '👤', 'Create new contact', () => createContact(c.number))}
    ${hit ? null : action('add_to_existing_contact_action', '👥', 'Add to a contact', () => openApp('contacts'))}
    ${action('send_message_action', '💬', 'Send a message', () => openMessages(c.number))}
    ${action('details_action', 'ⓘ', 'Call details', () => { u.ph_expanded = null; go('details', { id: c.id }); })}
  </div>`;
}

function xCallLog(list, filter) {
  const u = ui();
  if (!list.length) {
    return html`<div style="position:absolute;inset:0" ...${A('android.widget.LinearLayout', { id: 'call_log_fragment_root' })}>
      ${xEmpty('empty_list_view', filter === 'missed' ? 'You have no missed calls.' : 'Your call history is empty')}</div>`;
  }
  const groups = X_DAY_GROUPS();
  let lastGroup = null;
  const rows = list.map((c) => {
    const hit = contactFor(c.number);
    const name = displayName(c);
    // PhoneCallDetailsHelper.getCallTypeOrLocation: the number's label for a contact, else the number
    const typeOrLocation = hit ? labelText(hit.phone.label) : name === c.number ? '' : c.number;
    const date = xRelative(c.time);
    const group = groups[dayOf(c.time)] || 'Older';
    const label = group !== lastGroup ? group : null;
    lastGroup = group;
    const open = u.ph_expanded === c.id;
    return html`<div ...${A('android.widget.LinearLayout', { id: 'call_log_list_item' })}>
      ${label ? html`<div class="xd-day" ...${A('android.widget.TextView', { id: 'call_log_day_group_label', text: label })}>${label}</div>` : null}
      <div class=${'xd-card' + (open ? ' open' : '')} ...${A('android.widget.FrameLayout', { id: 'call_log_row' })}>
        <div ...${A('android.widget.LinearLayout')}>
          <div class="xd-primary" ...${A('android.widget.LinearLayout', { id: 'primary_action_view', click: true, desc: xCallDescription(c, name, typeOrLocation, date) })}
              ...${xTap(() => { u.ph_expanded = open ? null : c.id; })}>
            <div ...${A('android.widget.FrameLayout')}>
              <span ...${A('android.widget.QuickContactBadge', { id: 'quick_contact_photo', desc: `Contact details for ${name}`, click: true, text: '' })}
                ...${xTap(() => { if (hit) openContact(hit.contact); else u.ph_expanded = open ? null : c.id; })}>${Avatar(name, 40)}</span>
            </div>
            <div class="xd-lines" ...${A('android.widget.LinearLayout')}>
              <div class=${'xd-name' + (c.kind === 'missed' ? ' missed' : '')} ...${A('android.widget.TextView', { id: 'name', text: name })}>${name}</div>
              <div class="xd-sub" ...${A('android.widget.LinearLayout', { id: 'call_type' })}>
                <span class="xd-icons" style=${`color:${['missed', 'rejected', 'blocked'].includes(c.kind) ? '#d93025' : '#1e8e3e'}`}
                  ...${A('android.view.View', { id: 'call_type_icons', text: '' })}>${KIND_ICON[c.kind] || '•'}</span>
                ${xText('call_location_and_date', [typeOrLocation, date].filter(Boolean).join(', '))}
              </div>
            </div>
            ${xIcon('android.widget.ImageView', 'primary_action_button', `Call ${name}`, '📞', () => placeCall(c.number, hit ? hit.contact.name : c.name))}
          </div>
          ${open ? xEntryActions(c, hit) : null}
        </div>
      </div>
    </div>`;
  });
  return html`<div style="position:absolute;inset:0;display:flex;flex-direction:column" ...${A('android.widget.LinearLayout', { id: 'call_log_fragment_root' })}>
    <div class="xd-list" data-scroll-key=${`phone/calllog/${filter}`} ...${A('androidx.recyclerview.widget.RecyclerView', { id: 'recycler_view', scroll: true })}>${rows}</div>
  </div>`;
}

// --- Call History: app/res/layout/call_log_activity.xml (CallLogActivity) -------------------
/** The AppCompat action bar of an activity titled by its label (abc_screen_toolbar: `action_bar`). */
function xActionBar(title, onMenu) {
  return html`<div class="appbar" ...${A('android.view.ViewGroup', { id: 'action_bar' })}>
    <div class="icon-btn" ...${A('android.widget.ImageButton', { desc: 'Navigate up', click: true, text: '' })} ...${xTap(() => back())}>←</div>
    <div class="title" ...${A('android.widget.TextView', { text: title })}>${title}</div>
    ${onMenu ? html`<div style="display:flex" ...${A('android.widget.LinearLayout')}>
      <div class="icon-btn" ...${A('android.widget.ImageView', { desc: 'More options', click: true, text: '' })} ...${xTap(onMenu)}>⋮</div></div>` : null}
  </div>`;
}

function xHistory(p) {
  // CallLogActivity.java: title call_log_activity_title "Call History", ViewPagerTabs `viewpager_header`
  // with call_log_all_title / call_log_missed_title / call_log_stats_title, the `call_log_pager`
  // ViewPager of CallLogFragments; its menu res/menu/call_log_options.xml (delete_all)
  const filter = ['all', 'missed', 'stats'].includes(p.filter) ? p.filter : 'all';
  const list = sortedCalls().filter((c) => filter === 'all' || c.kind === 'missed');
  const tabs = [['all', 'All'], ['missed', 'Missed'], ['stats', 'Statistics']];
  const body = filter === 'stats' ? xStats() : xCallLog(list, filter);
  return xHistoryFrame(filter, tabs, body, { scroll: true });
}
/** CallLogActivity's frame (call_log_activity.xml): the action bar "Call History" with its menu, the
 *  ViewPagerTabs `viewpager_header` (a tab per [filter, label], `filter`'s selected) and the
 *  `call_log_pager` (with `pagerAttrs`) showing `body`. Google Dialer's call history keeps it. */
function xHistoryFrame(filter, tabs, body, pagerAttrs = {}) {
  return html`<div class="xd" ...${A('android.widget.LinearLayout', { id: 'calllog_frame' })}>
    ${xActionBar('Call History', () => { ui().dialog = { kind: 'menu', where: 'history' }; })}
    <div class="xd-tabs" ...${A('android.widget.HorizontalScrollView', { id: 'viewpager_header' })}>
      ${tabs.map(([id, label]) => html`<div class="xd-tab" ...${A('android.widget.TextView', { text: label, click: true, selected: id === filter })}
        ...${xTap(() => { ui().ph_expanded = null; replace('history', { filter: id }); })}>${label}</div>`)}
    </div>
    <div class="xd-body" ...${A('androidx.viewpager.widget.ViewPager', { id: 'call_log_pager', ...pagerAttrs })}>${body}</div>
  </div>`;
}

function xStats() {
  // callstats: the number of calls and their total duration per kind
  const cs = calls();
  const line = (label, list) => html`<div class="xd-row" ...${A('android.widget.LinearLayout')}>
    ${xText(null, label, '', {})}<span style="flex:1"></span>${xText(null, `${list.length} · ${xDuration(list.reduce((s, c) => s + (c.duration_s || 0), 0))}`)}</div>`;
  return html`<div class="xd-list" ...${A('androidx.recyclerview.widget.RecyclerView', { id: 'recycler_view', scroll: true })}>
    ${line('Incoming', cs.filter((c) => c.kind === 'incoming'))}${line('Outgoing', cs.filter((c) => c.kind === 'outgoing'))}
    ${line('Missed', cs.filter((c) => c.kind === 'missed'))}</div>`;
}

// --- call details: calldetails/res/layout/call_details_activity.xml ------------------------
function xDetails({ id }) {
  // DialerToolbar `toolbar` titled call_details; recycler_view: contact_container.xml
  // (quick_contact_photo, contact_information > contact_name, phone_number, call_back_button), one
  // call_details_entry.xml per call (call_direction, call_type, call_time, call_duration — none for a
  // missed call), call_details_footer.xml (Copy number, Edit number before call, Delete)
  const c = calls().find((x) => x.id === id);
  const bar = html`<div class="appbar" ...${A('android.view.ViewGroup', { id: 'toolbar' })}>
    <div class="icon-btn" ...${A('android.widget.ImageButton', { desc: 'Navigate up', click: true, text: '' })} ...${xTap(() => back())}>←</div>
    <div class="title" ...${A('android.widget.TextView', { text: 'Call details' })}>Call details</div></div>`;
  if (!c) return html`<div class="xd" ...${A('android.widget.LinearLayout')}>${bar}</div>`;
  const hit = contactFor(c.number);
  const name = displayName(c);
  // CallDetailsHeaderViewHolder: "<label> <number>" under a contact's name, the number alone otherwise
  const numLine = hit ? `${labelText(hit.phone.label)} ${c.number}` : c.number;
  const foot = (rid, icon, label, fn) => html`<div class="xd-footer-item" ...${A('android.widget.TextView', { id: rid, text: label, click: true })} ...${xTap(fn)}>
    <span>${icon}</span>${label}</div>`;
  const missed = c.kind === 'missed';
  return html`<div class="xd" ...${A('android.widget.LinearLayout')}>
    ${bar}
    <div class="xd-body">
      <div class="xd-list" ...${A('androidx.recyclerview.widget.RecyclerView', { id: 'recycler_view', scroll: true })}>
        <div class="xd-detail-head" ...${A('android.widget.RelativeLayout')}>
          <span ...${A('android.widget.QuickContactBadge', { id: 'quick_contact_photo', click: true, text: '' })}
            ...${xTap(() => { if (hit) openContact(hit.contact); })}>${Avatar(name, 56)}</span>
          <div style="flex:1;min-width:0" ...${A('android.widget.LinearLayout', { id: 'contact_information' })}>
            <div style="font-size:calc(20px * var(--fs))" ...${A('android.widget.TextView', { id: 'contact_name', text: name })}>${name}</div>
            <div style="color:var(--muted)" ...${A('android.widget.TextView', { id: 'phone_number', text: numLine })}>${numLine}</div>
          </div>
          ${xIcon('android.widget.ImageView', 'call_back_button', 'Call', '📞', () => placeCall(c.number, hit ? hit.contact.name : c.name))}
        </div>
        <div class="xd-entry" ...${A('android.widget.RelativeLayout')}>
          <span style=${`color:${['missed', 'rejected', 'blocked'].includes(c.kind) ? '#d93025' : '#1e8e3e'}`}
            ...${A('android.view.View', { id: 'call_direction', text: '' })}>${KIND_ICON[c.kind] || '•'}</span>
          <div style="flex:1">
            <div ...${A('android.widget.TextView', { id: 'call_type', text: KIND_AOSP[c.kind] || c.kind })}>${KIND_AOSP[c.kind] || c.kind}</div>
            <div style="color:var(--muted);font-size:13px" ...${A('android.widget.TextView', { id: 'call_time', text: xFullDate(c.time) })}>${xFullDate(c.time)}</div>
          </div>
          ${missed ? null : html`<span style="color:var(--muted);font-size:13px" ...${A('android.widget.TextView', { id: 'call_duration', text: xDuration(c.duration_s || 0) })}>${xDuration(c.duration_s || 0)}</span>`}
        </div>
        <div ...${A('android.widget.LinearLayout', { id: 'footer_container' })}>
          ${foot('call_detail_action_copy', '⧉', 'Copy number', () => { world().clipboard = c.number; toast('Text copied'); })}
          ${foot('call_detail_action_edit_before_call', '✎', 'Edit number before call', () => { world().dialer_number = c.number; ui().tasks.phone = [{ s: 'main', p: {} }, { s: 'dialpad', p: {} }]; })}
          ${foot('call_detail_action_delete', '🗑', 'Delete', () => { world().calls = calls().filter((x) => x.id !== c.id); back(); })}
        </div>
      </div>
    </div>
  </div>`;
}

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

function xSearchResults(q, dialpadQuery, smsLabel = 'Send SMS') {
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

function xDialpad(opts = {}) {
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
function xSearch() {
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
function xIncall(p, opts = {}) {
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

// --- menus and dialogs ----------------------------------------------------------------------
/** A framework PopupMenu (main/impl/toolbar/MainToolbarMenu.java extends android.widget.PopupMenu:
 *  a ListView of popup_menu_item_layout items titled android:id/title), or the AppCompat overflow of
 *  an action bar (abc_popup_menu_item_layout: items titled `title`). */
function xPopup(items, titleId) {
  return html`<div class="scrim" style="background:transparent;align-items:flex-start;justify-content:flex-end"
      onClick=${(e) => { if (e.target === e.currentTarget) update(() => { ui().dialog = null; }); }}>
    <div style="margin:8px 8px 0 0;background:var(--surface);border-radius:6px;min-width:200px;box-shadow:0 3px 10px rgba(0,0,0,.3);padding:6px 0"
        ...${A('android.widget.ListView')}>
      ${items.map(([label, fn]) => html`<div style="padding:14px 20px;font-size:calc(15px * var(--fs))" ...${A('android.widget.LinearLayout', { click: true })}
          ...${xTap(() => { ui().dialog = null; fn(); })}>
        <span ...${A('android.widget.TextView', { id: titleId, text: label })}>${label}</span></div>`)}
    </div></div>`;
}
function xMenu(d) {
  if (d.where === 'history') return xPopup([['Clear call history', () => { ui().dialog = { kind: 'clear' }; }]], 'title');
  // main/impl/toolbar/res/menu/main_menu.xml: menu_call_history, menu_helplines, settings
  // (clear_frequents and the simulator submenu hidden)
  return xPopup([['Call history', () => go('history', { filter: 'all' })], ['Helplines', () => toast('Helplines')],
    ['Settings', () => toast('Settings')]], 'android:id/title');
}
function xClearDialog() {
  // app/calllog/ClearCallLogDialog.java: clearCallLogConfirmation_title, clearCallLogConfirmation,
  // negative android.R.string.cancel, positive android.R.string.ok (the framework's AlertDialog)
  const close = () => { ui().dialog = null; };
  const btn = (id, label, fn) => html`<div class="btn" ...${A('android.widget.Button', { id, text: label, click: true })} ...${xTap(fn)}>${label}</div>`;
  return html`<div class="scrim" onClick=${(e) => { if (e.target === e.currentTarget) update(close); }}>
    <div class="dialog" ...${A('android.widget.LinearLayout', { id: 'android:id/parentPanel' })}>
      <div class="dialog-title" ...${A('android.widget.TextView', { id: 'android:id/alertTitle', text: 'Clear call history?' })}>Clear call history?</div>
      <div class="dialog-body" style="color:var(--muted)" ...${A('android.widget.TextView', { id: 'android:id/message', text: 'This will delete all calls from your history' })}>This will delete all calls from your history</div>
      <div class="dialog-buttons" ...${A('android.widget.LinearLayout')}>
        ${btn('android:id/button2', 'Cancel', close)}
        ${btn('android:id/button1', 'OK', () => { world().calls = []; close(); })}
      </div>
    </div></div>`;
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

// Shared with the google flavor's module (apps/google/phone.js): Google Dialer descends from AOSP's, so
// the screens where no Google capture is public stay AOSP's, drawn under Google's package.
export { KIND_ICON, MONTHS, contactFor, displayName, sortedCalls, dayOf, yesterday, createContact, startSearch, xTap,
  xIcon, xText, xEmpty, xEntryActions, xFavorites, xContacts, xDetails, xDialpad, xSearchResults, xIncall, xPopup, xClearDialog,
  xActionBar, xHistoryFrame };
