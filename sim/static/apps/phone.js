// Phone (dialer): the dial pad, the call log (Recents) with call details, contacts, search,
// and the outgoing-call screen.
//
// The dial pad's digits are world().dialer_number (WorldState.dialer_number), so a task can
// check what was entered without a call being placed. Ending an outgoing call appends a
// WorldState `Call` record {id, number, name, kind:'outgoing', time: sim now, duration_s: 0}.
// Flavor `aosp` follows the Pixel Phone app: bottom navigation (Favorites, Recents, Contacts,
// Voicemail), a "key pad" FAB that opens the dial pad, rows that expand to Message/History,
// and a Call history screen (All/Missed) in the overflow menu. Flavor `sim` has top tabs
// (Keypad, Recents, Contacts) with the dial pad on the first tab, All/Missed filter chips in
// Recents, and rows that open the call details directly.
import { html, registerApp, Screen, Row, Section, Field, Dialog, Chip, Tabs, BottomNav, Empty, A,
  world, ui, go, back, replace, openApp, t, flavor, update, toast, nextId, now, nowIso, fmtTime } from '../os.js';
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
function openDialpad() {
  if (aosp()) go('dialpad', {});
  else replace('main', { tab: 'keypad' });
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
  if (aosp()) openApp('contacts', { s: 'details', p: { id: c.id } });
  else go('contact', { id: c.id });
}
function startSearch() {
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
  return html`<div class="screen">${Dialpad()}</div>`;
}

// ------------------------------------------------------------------------------------------
// call log
function callRow(c) {
  const name = displayName(c);
  const hit = contactFor(c.number);
  const missed = c.kind === 'missed';
  const u = ui();
  const kindIcon = html`<span style=${`color:${missed || c.kind === 'rejected' || c.kind === 'blocked' ? '#d93025' : '#1e8e3e'};margin-right:4px`}
    ...${A('android.widget.ImageView', { id: 'call_type_icons', desc: kindLabel(c.kind), text: '' })}>${KIND_ICON[c.kind] || '•'}</span>`;
  const time = when(c.time);
  if (aosp()) {
    const open = u.ph_expanded === c.id;
    const sub = [hit ? labelText(hit.phone.label) : name === c.number ? '' : c.number, time].filter(Boolean).join(' • ');
    return html`<div>
      <div class="row" ...${A('android.widget.LinearLayout', { id: 'call_log_row', click: true })}
          ...${press(() => { u.ph_expanded = open ? null : c.id; })}>
        <div class="row-icon" ...${A('android.widget.ImageView', { text: '' })}>${Avatar(name)}</div>
        <div class="row-text">
          <div class="row-title" style=${missed ? 'color:#d93025' : ''} ...${A('android.widget.TextView', { id: 'primary_text', text: name })}>${name}</div>
          <div class="row-sub">${kindIcon}<span ...${A('android.widget.TextView', { id: 'secondary_text', text: sub })}>${sub}</span></div>
        </div>
        ${IconBtn('📞', `Call ${name}`, () => placeCall(c.number, hit ? hit.contact.name : c.name), 'call_button')}
      </div>
      ${open ? html`<div style="display:flex;gap:4px;padding:0 16px 8px 60px" ...${A('android.widget.LinearLayout', { id: 'call_log_entry_actions' })}>
        ${ExpandAction('💬', 'Message', () => openMessages(c.number))}
        ${ExpandAction('🕘', 'History', () => { u.ph_expanded = null; go('details', { id: c.id }); })}
        ${hit ? null : ExpandAction('👤', 'Add contact', () => createContact(c.number))}
      </div>` : null}
    </div>`;
  }
  return Row({
    icon: html`<span style=${`color:${missed ? '#d93025' : '#1e8e3e'};font-size:22px`}>${KIND_ICON[c.kind] || '•'}</span>`,
    title: name, subtitle: `${kindLabel(c.kind)} · ${time}`, id: 'call_log_row',
    onClick: () => go('details', { id: c.id }),
    trailing: IconBtn('📞', `Call ${name}`, () => placeCall(c.number, hit ? hit.contact.name : c.name), 'call_button'),
  });
}
function ExpandAction(icon, label, fn) {
  return html`<div style="display:flex;flex-direction:column;align-items:center;width:76px;padding:6px 0;gap:2px;font-size:12px"
    ...${A('android.widget.Button', { id: `call_log_action_${label.toLowerCase().replace(/ /g, '_')}`, text: label, click: true })} ...${press(fn)}>
    <span style="font-size:18px">${icon}</span>${label}</div>`;
}

function CallList(list) {
  if (!list.length) return Empty(t('No calls', 'Your call history is empty'));
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
  if (aosp()) return CallList(list);
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

function favoritesBody() {
  const favs = sortedContacts().filter((c) => c.starred);
  if (!favs.length) return Empty('No favorites yet');
  return html`<div style="display:grid;grid-template-columns:repeat(3,1fr);gap:16px 8px;padding:16px 12px">
    ${favs.map((c) => html`<div style="display:flex;flex-direction:column;align-items:center;gap:6px"
        ...${A('android.widget.FrameLayout', { id: 'contact_tile', click: true })}
        ...${press(() => { const ph = (c.phones || [])[0]; if (ph) placeCall(ph.number, c.name); else toast('No phone number'); })}>
      ${Avatar(c.name, 72)}
      <span style="font-size:13px;text-align:center;overflow-wrap:anywhere" ...${A('android.widget.TextView', { id: 'contact_tile_name', text: c.name })}>${c.name}</span>
    </div>`)}</div>`;
}

function main(p) {
  const u = ui();
  const tab = p.tab || (aosp() ? 'favorites' : 'keypad');
  const more = { icon: '⋮', desc: 'More options', id: 'overflow', onClick: () => { u.dialog = { kind: 'menu', where: 'main' }; } };
  if (aosp()) {
    const bar = html`<div style="flex:1;margin:0 4px 0 12px;height:44px;border-radius:22px;background:var(--surface);display:flex;align-items:center;padding:0 16px;color:var(--muted)"
        ...${A('android.widget.TextView', { id: 'search_view_container', text: 'Search contacts & places', click: true })} ...${press(startSearch)}>🔍  Search contacts & places</div>`;
    const body = tab === 'recents' ? recentsBody(p) : tab === 'contacts' ? contactsBody() : tab === 'voicemail'
      ? Empty('No voicemail') : favoritesBody();
    // the FAB floats above the bottom navigation (the kit's FAB sits at the screen's bottom edge)
    const fab = html`<div class="fab" style="bottom:calc(100% + 16px)"
      ...${A('android.widget.ImageButton', { desc: 'key pad', id: 'dialpad_fab', click: true, text: '' })} ...${press(openDialpad)}>⠿</div>`;
    return Screen({ up: false, search: bar, actions: [more], body,
      bottom: html`<div style="position:relative">${fab}${BottomNav({ active: tab, onSelect: (id) => { u.ph_expanded = null; replace('main', { tab: id }); }, items: [
        { id: 'favorites', label: 'Favorites', icon: '★' }, { id: 'recents', label: 'Recents', icon: '🕘' },
        { id: 'contacts', label: 'Contacts', icon: '👥' }, { id: 'voicemail', label: 'Voicemail', icon: '✉' }] })}</div>` });
  }
  const tabs = Tabs({ active: tab, onSelect: (id) => { if (id === 'keypad') openDialpad(); else replace('main', { tab: id }); }, tabs: [
    { id: 'keypad', label: 'Keypad' }, { id: 'recents', label: 'Recents' }, { id: 'contacts', label: 'Contacts' }] });
  const actions = [{ icon: '🔍', desc: 'Search', id: 'menu_search', onClick: startSearch }, more];
  if (tab === 'keypad') return Screen({ title: 'Phone', up: false, actions, tabs, scroll: false, body: Dialpad() });
  return Screen({ title: 'Phone', up: false, actions, tabs, body: tab === 'recents' ? recentsBody(p) : contactsBody() });
}

function history(p) {
  const filter = p.filter || 'all';
  const list = sortedCalls().filter((c) => filter === 'all' || c.kind === 'missed');
  return Screen({ title: 'Call history',
    actions: [{ icon: '⋮', desc: 'More options', id: 'overflow', onClick: () => { ui().dialog = { kind: 'menu', where: 'history' }; } }],
    tabs: Tabs({ active: filter, onSelect: (id) => replace('history', { filter: id }), tabs: [{ id: 'all', label: 'All' }, { id: 'missed', label: 'Missed' }] }),
    body: CallList(list) });
}

function details({ id }) {
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
  const q = ui().fields.ph_query || '';
  const hits = sortedContacts().filter((c) => matchContact(c, q));
  const dq = digitsOf(q);
  return Screen({
    search: html`<div style="flex:1">${Field({ field: 'ph_query', hint: t('Search contacts', 'Search contacts & places'), id: 'search_view' })}</div>`,
    body: html`
      ${hits.map((c) => Row({ icon: Avatar(c.name), title: c.name, subtitle: (c.phones[0] || {}).number || '', id: 'search_result',
        onClick: () => { const ph = (c.phones || [])[0]; if (ph) placeCall(ph.number, c.name); else toast('No phone number'); } }))}
      ${q.trim() && !hits.length && !dq ? Empty('No results') : null}
      ${dq && /^[\d\s()+\-.*#]+$/.test(q.trim()) ? Row({ icon: '📞', title: `Call ${q.trim()}`, id: 'call_number', onClick: () => placeCall(q.trim()) }) : null}`,
  });
}

function incall(p) {
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
      <div style="font-size:14px;opacity:.8" ...${A('android.widget.TextView', { id: 'contactgrid_status_text', text: t('Calling…', 'Calling') })}>${t('Calling…', 'Calling')}</div>
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
    const items = d.where === 'history' ? ['Clear call history'] : aosp() ? ['Call history', 'Settings', 'Help & feedback'] : ['Clear call history', 'Settings'];
    return Menu(items, (label) => {
      if (label === 'Call history') go('history', { filter: 'all' });
      else if (label === 'Clear call history') ui().dialog = { kind: 'clear' };
      else toast(label);
    });
  },
  clear: () => Dialog({ title: 'Clear call history?', body: html`<div style="color:var(--muted)">This will delete all calls from your history</div>`, buttons: [
    { label: 'Cancel', onClick: () => { ui().dialog = null; } },
    { label: t('Clear', 'OK'), onClick: () => { world().calls = []; ui().dialog = null; toast('Call history cleared'); } }] }),
  delete_call: (d) => Dialog({ title: 'Delete this call from history?', buttons: [
    { label: 'Cancel', onClick: () => { ui().dialog = null; } },
    { label: 'Delete', onClick: () => { world().calls = calls().filter((c) => c.id !== d.id); ui().dialog = null; back(); } }] }),
};

registerApp({
  id: 'phone', label: 'Phone', pkg: PKG, icon: '📞', color: '#188038',
  root: { s: 'main', p: {} },
  screens: { main, dialpad, history, details, contact, search, incall },
  dialogs,
  // the sim has no ongoing-call chip to come back with, so Back keeps the call screen up
  onBack: (r) => r.s === 'incall',
  activity: (r) => ({
    incall: 'com.android.dialer/com.android.incallui.InCallActivity',
    details: `${PKG}/.calldetails.CallDetailsActivity`,
    history: `${PKG}/.app.calllog.CallLogActivity`,
  })[r.s] || `${PKG}/.main.impl.MainActivity`,
});
