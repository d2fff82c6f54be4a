// Messages, shared by every flavor: the world model and its state helpers — threads (world().messages
// grouped by address, compared by digits as Android's telephony provider does), their contacts,
// times and day labels, opening a conversation, drafts, sending, deleting and marking threads, the
// list's selection, what the menus' items and the delete confirmation do, and the avatar and soft
// keyboard helpers every flavor's screens use. No screen lives here: the `sim` flavor's screens are in
// messages.js, AOSP Messaging's in messages_aosp.js, Google Messages' in google/messages.js.
//
// Why one module: the world model is the same in every flavor (a phone's SMS provider), so a message
// sent through any flavor's compose bar must be the same record; only the screens differ.
import { html, world, ui, go, replace, back, toast, nextId, now, nowIso, fmtTime } from '../os.js';

const KB_H = 215; // the soft keyboard's height: screens resize above it (adjustResize)
export const PKG = 'com.android.messaging';

// ------------------------------------------------------------------------------------------
// data: threads are messages grouped by address
const msgs = () => world().messages || []; // read-only view: a missing list stays unknown until written
export const contacts = () => world().contacts || [];
export const digits = (s) => String(s || '').replace(/\D/g, '');
/** Address identity: the last 10 digits of a phone number (so +1 415… and 415… match). */
export function addrKey(a) {
  const d = digits(a);
  if (d.length >= 10) return d.slice(-10);
  if (d.length) return d;
  return String(a || '').trim().toLowerCase();
}
export const isNumberLike = (s) => /^[+\d][\d\s().\-]*$/.test(String(s || '').trim()) && digits(s).length >= 3;
export function contactFor(addr) {
  const k = addrKey(addr);
  return contacts().find((c) => (c.phones || []).some((p) => addrKey(p.number) === k)) || null;
}
export const nameFor = (addr) => contactFor(addr)?.name || addr;

export function threads() {
  const by = new Map();
  for (const m of msgs()) {
    const k = addrKey(m.address);
    if (!by.has(k)) by.set(k, { key: k, address: m.address, all: [], bubbles: [], draft: null, last: null, unread: 0, latest: '' });
    const th = by.get(k);
    th.all.push(m);
    if (m.box === 'draft') th.draft = m;
    else th.bubbles.push(m);
    if (m.box === 'inbox' && !m.read) th.unread++;
    if ((m.time || '') >= th.latest) th.latest = m.time || '';
  }
  for (const th of by.values()) {
    th.bubbles.sort((a, b) => (a.time || '').localeCompare(b.time || ''));
    th.last = th.bubbles[th.bubbles.length - 1] || null;
    if (th.last) th.address = th.last.address;
    th.name = nameFor(th.address);
  }
  return [...by.values()].sort((a, b) => b.latest.localeCompare(a.latest));
}
export const threadOf = (addr) => threads().find((th) => th.key === addrKey(addr)) || null;

// ------------------------------------------------------------------------------------------
// time labels
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
export const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
export const parse = (iso) => new Date(String(iso || '').slice(0, 19) + 'Z');
export const dayNum = (d) => Math.floor(d.getTime() / 86400000);
export function listTime(iso) {
  if (!iso) return '';
  const d = parse(iso), n = now();
  const diff = dayNum(n) - dayNum(d);
  if (diff <= 0) return fmtTime(d.getUTCHours(), d.getUTCMinutes());
  if (diff === 1) return 'Yesterday';
  if (diff < 7) return DAYS[d.getUTCDay()].slice(0, 3);
  if (d.getUTCFullYear() === n.getUTCFullYear()) return `${MONTHS[d.getUTCMonth()].slice(0, 3)} ${d.getUTCDate()}`;
  return `${d.getUTCMonth() + 1}/${d.getUTCDate()}/${String(d.getUTCFullYear()).slice(2)}`;
}
export function dayLabel(iso) {
  const d = parse(iso), n = now();
  const diff = dayNum(n) - dayNum(d);
  if (diff === 0) return 'Today';
  if (diff === 1) return 'Yesterday';
  const base = `${DAYS[d.getUTCDay()]}, ${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}`;
  return d.getUTCFullYear() === n.getUTCFullYear() ? base : `${base}, ${d.getUTCFullYear()}`;
}
export const clock = (iso) => { const d = parse(iso); return fmtTime(d.getUTCHours(), d.getUTCMinutes()); };

// ------------------------------------------------------------------------------------------
// actions
const convKey = (address) => `messages/conversation/${JSON.stringify({ address })}`;
function scrollToBottom(address) { ui().scroll[convKey(address)] = 1000000; }

export function openConversation(address, how = 'go') {
  const th = threadOf(address);
  const addr = th ? th.address : String(address).trim();
  const k = addrKey(addr);
  for (const m of msgs()) if (addrKey(m.address) === k && m.box === 'inbox' && !m.read) m.read = true;
  ui().msel = []; ui().mlong = null;
  (how === 'replace' ? replace : go)('conversation', { address: addr });
  ui().fields.compose = th && th.draft ? th.draft.body : '';
  scrollToBottom(addr);
}

/** Save (or clear) the draft of a conversation from the compose field — done when leaving it. */
export function saveDraft(address) {
  const k = addrKey(address);
  const text = String(ui().fields.compose ?? '');
  const list = msgs();
  const keep = list.filter((m) => !(m.box === 'draft' && addrKey(m.address) === k));
  if (text.trim()) {
    const old = list.find((m) => m.box === 'draft' && addrKey(m.address) === k);
    keep.push({ id: old ? old.id : nextId('m'), address, body: text, box: 'draft', read: true, time: nowIso() });
  }
  world().messages = keep;
  ui().fields.compose = '';
}

export function send(address) {
  const text = String(ui().fields.compose ?? '');
  if (!text.trim()) return;
  const k = addrKey(address);
  const list = msgs().filter((m) => !(m.box === 'draft' && addrKey(m.address) === k));
  list.push({ id: nextId('m'), address, body: text.trim(), box: 'sent', read: true, time: nowIso() });
  world().messages = list;
  ui().fields.compose = '';
  scrollToBottom(address);
}

export function deleteThreads(keys) {
  const ks = new Set(keys);
  world().messages = msgs().filter((m) => !ks.has(addrKey(m.address)));
}
export function markThreads(keys, read) {
  const ks = new Set(keys);
  if (read) {
    for (const m of msgs()) if (ks.has(addrKey(m.address)) && m.box === 'inbox') m.read = true;
    return;
  }
  // mark as unread: the newest received message becomes unread again
  for (const th of threads()) {
    if (!ks.has(th.key)) continue;
    const inbox = th.bubbles.filter((m) => m.box === 'inbox');
    if (inbox.length) inbox[inbox.length - 1].read = false;
  }
}
// ------------------------------------------------------------------------------------------
// widgets every flavor's screens use: the avatar, and room for the soft keyboard
const COLORS = ['#1a73e8', '#d93025', '#188038', '#e37400', '#9334e6', '#c5221f', '#007b83', '#b06000'];
export function avatar(name) {
  let h = 0;
  for (const ch of String(name)) h = (h * 31 + ch.codePointAt(0)) >>> 0;
  const letter = /^[+\d(]/.test(name) ? '👤' : [...String(name).trim()][0]?.toUpperCase() || '?';
  return html`<div class="msg-avatar" style=${`background:${COLORS[h % COLORS.length]}`}>${letter}</div>`;
}
export const kbSpacer = () => (ui().keyboard && ui().focus ? html`<div style=${`flex:0 0 ${KB_H}px`}></div>` : null);
export const kbWrap = (node) => (ui().keyboard && ui().focus
  ? html`<div style=${`position:absolute;left:0;right:0;top:0;bottom:${KB_H}px;z-index:20`}>${node}</div>` : node);

// ------------------------------------------------------------------------------------------
// the list's selection and what the menus do
/** The conversation list's selection, as every flavor's list keeps it: the threads, the selected
 *  keys still among them, whether selection mode is on, and the toggle a long press (or a tap
 *  while selecting) runs on a row. */
export function listSelection() {
  const u = ui();
  const ths = threads();
  const sel = (u.msel || []).filter((k) => ths.some((th) => th.key === k));
  const toggle = (k) => { const s = new Set(u.msel || []); if (s.has(k)) s.delete(k); else s.add(k); u.msel = [...s]; };
  return { ths, sel, selecting: sel.length > 0, toggle };
}

// What the menus' items and the delete confirmation do, shared with the google flavor's own menus
// and dialog (apps/google/messages.js), so every flavor changes the world the same way.
/** The selection menu's "Mark as read" (when a selected conversation is unread) or "Mark as unread";
 *  either ends the selection. */
export function markSelectedItem() {
  const u = ui();
  const sel = u.msel || [];
  const anyUnread = threads().some((th) => sel.includes(th.key) && th.unread > 0);
  return anyUnread ? ['Mark as read', () => { markThreads(sel, true); u.msel = []; }] : ['Mark as unread', () => { markThreads(sel, false); u.msel = []; }];
}
export const BLOCK_ITEM = ['Block', () => toast('Blocking is not available')];
/** A conversation menu's "Delete" (which asks first: the `delete` dialog) and "Details". */
export function convItems(address) {
  const u = ui();
  return {
    delete: ['Delete', () => { u.dialog = { kind: 'delete', keys: [addrKey(address)], from: 'conv' }; }],
    details: ['Details', () => toast(`${nameFor(address)} · ${address}`)],
  };
}
/** "Delete" confirmed: the conversations go, the dialog and the selection end, and a conversation
 *  deleted from inside it is left (its compose box cleared). */
export function deleteConfirmed(d) {
  deleteThreads(d.keys);
  const u = ui();
  u.dialog = null; u.msel = [];
  if (d.from === 'conv') { u.fields.compose = ''; u.focus = null; u.keyboard = false; back(); }
}
