// Phone (dialer), shared by every flavor: the world model and its state helpers — the call log of
// world().calls (matched to contacts by Android's loose number compare), its dates and durations,
// the dial pad's digits (world().dialer_number), placing and ending a call (which appends the
// outgoing Call record) and the routes every flavor opens. No screen lives here: the `sim` flavor's
// screens are in phone.js, AOSP Dialer's in phone_aosp.js and phone_aosp_dialpad.js (their widgets,
// styles, menus and dialogs in phone_aosp_kit.js), Google Dialer's in google/phone.js.
//
// Why one module: the world model is the same in every flavor (a phone's call log), so a call
// placed through any flavor's dial pad must be the same record; only the screens differ.
import { world, ui, go, replace, openApp, flavor, stock, toast, nextId, now, nowIso, fmtTime } from '../os.js';
import { beginEdit, digitsOf } from './contacts_core.js';

export const PKG = 'com.android.dialer';
export const KEYS = [['1', ''], ['2', 'ABC'], ['3', 'DEF'], ['4', 'GHI'], ['5', 'JKL'], ['6', 'MNO'], ['7', 'PQRS'], ['8', 'TUV'],
  ['9', 'WXYZ'], ['*', ''], ['0', '+'], ['#', '']];
export const KEY_IDS = { 1: 'one', 2: 'two', 3: 'three', 4: 'four', 5: 'five', 6: 'six', 7: 'seven', 8: 'eight', 9: 'nine',
  0: 'zero', '*': 'star', '#': 'pound' };
const KIND_SIM = { missed: 'Missed call', incoming: 'Incoming', outgoing: 'Outgoing', rejected: 'Declined', blocked: 'Blocked', voicemail: 'Voicemail' };
export const KIND_AOSP = { missed: 'Missed call', incoming: 'Incoming call', outgoing: 'Outgoing call', rejected: 'Declined call', blocked: 'Blocked call', voicemail: 'Voicemail' };
export const KIND_ICON = { missed: '↙', incoming: '↙', outgoing: '↗', rejected: '⊘', blocked: '⊘', voicemail: '✉' };
export const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

// ------------------------------------------------------------------------------------------
// the call log
export const aosp = () => flavor() === 'aosp';
export const kindLabel = (k) => (aosp() ? KIND_AOSP : KIND_SIM)[k] || k;
export const calls = () => world().calls || [];
/** Same number as Android's loose compare: equal digits, or equal up to a short country code. */
export function sameNumber(a, b) {
  const da = digitsOf(a), db = digitsOf(b);
  if (!da || !db) return false;
  if (da === db) return true;
  const [s, l] = da.length <= db.length ? [da, db] : [db, da];
  return s.length >= 7 && l.endsWith(s) && l.length - s.length <= 3;
}
export function contactFor(number) {
  for (const c of world().contacts || []) {
    const p = (c.phones || []).find((x) => sameNumber(x.number, number));
    if (p) return { contact: c, phone: p };
  }
  return null;
}
export const displayName = (call) => (contactFor(call.number) || {}).contact?.name || call.name || call.number;
/** Calls newest first; equal times keep the later-added record first; undated calls last. */
export function sortedCalls(list = calls()) {
  return list.map((c, i) => [c, i]).sort(([a, ia], [b, ib]) => {
    const ta = a.time ? String(a.time).slice(0, 19) : '', tb = b.time ? String(b.time).slice(0, 19) : '';
    if (ta !== tb) return ta < tb ? 1 : -1;
    return ib - ia;
  }).map(([c]) => c);
}
export const dayOf = (iso) => (iso ? String(iso).slice(0, 10) : '');
export function yesterday() { const d = now(); d.setUTCDate(d.getUTCDate() - 1); return d.toISOString().slice(0, 10); }
export function when(iso) {
  if (!iso) return '';
  const d = new Date(String(iso).slice(0, 19) + 'Z');
  if (isNaN(d)) return '';
  const tm = fmtTime(d.getUTCHours(), d.getUTCMinutes());
  const day = dayOf(iso);
  if (day === nowIso().slice(0, 10)) return tm;
  if (day === yesterday()) return `Yesterday, ${tm}`;
  return `${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}, ${tm}`;
}
export function fmtDuration(s) {
  const m = Math.floor(s / 60), sec = s % 60;
  if (s >= 3600) return `${Math.floor(s / 3600)} hr ${m % 60} min`;
  return m ? `${m} min ${sec} sec` : `${sec} sec`;
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
export function endCall(p) {
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
export function pressDigit(d) {
  const w = world();
  w.dialer_number = (w.dialer_number || '') + d;
  const u = ui(); u.focus = 'ph_digits'; u.keyboard = false;
}
export function dial() {
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
export function createContact(number) {
  beginEdit(null, { phone: number });
  openApp('contacts', { s: 'edit', p: {} });
}
export function openContact(c) {
  // a stock dialer opens the contact in the Contacts app (AOSP: ContactsFragment; Google Dialer too)
  if (stock()) openApp('contacts', { s: 'details', p: { id: c.id } });
  else go('contact', { id: c.id });
}
export function startSearch() {
  ui().ph_expanded = null;
  go('search', {});
  const u = ui(); u.fields.ph_query = ''; u.focus = 'ph_query'; u.keyboard = true;
}
