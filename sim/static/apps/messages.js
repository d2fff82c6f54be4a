// Messages (com.android.messaging): the conversation list, a conversation with bubbles and a
// compose bar, starting a conversation, selection mode (long press) with Delete, and drafts that
// survive leaving a thread.
//
// Why it looks like this: threads are not stored anywhere — they are world().messages
// grouped by address (compared by digits, as Android's telephony provider does), so a task
// that adds or checks a Message record sees exactly what the user sees. Flavor `aosp` is AOSP
// Messaging itself (the section "Flavor `aosp`" below, each screen citing the AOSP layouts it
// follows); flavor `sim` uses our own wording, a conversation search and a "Mark as read" action.
import { html, registerApp, Screen, Row, Field, Dialog, Empty, Section, Text, A, pressHandlers, scrollKey, rerender,
  world, ui, go, replace, back, openApp, t, flavor, update, toast, nextId, now, nowIso, fmtTime, pad2 } from '../os.js';

const CSS = `
.msg-avatar { width: 40px; height: 40px; border-radius: 20px; display: flex; align-items: center; justify-content: center;
  color: #fff; font-size: 18px; font-weight: 500; }
.row.msg-unread .row-title, .row.msg-unread .row-sub { font-weight: 700; color: var(--on); }
.row.msg-sel { background: var(--primary-c); }
.msg-time { font-size: 12px; color: var(--muted); white-space: nowrap; align-self: flex-start; padding-top: 4px; }
.msg-unread .msg-time { font-weight: 700; color: var(--on); }
.msg-draft { color: #d93025; font-size: 12px; align-self: flex-start; padding-top: 4px; }
.msg-dot { width: 8px; height: 8px; border-radius: 4px; background: var(--primary); display: inline-block; margin-left: 6px; }
.msg-thread { padding: 8px 10px 12px; display: flex; flex-direction: column; gap: 4px; }
.msg-day { text-align: center; font-size: 12px; color: var(--muted); margin: 10px 0 4px; }
.msg-b { max-width: 78%; display: flex; flex-direction: column; }
.msg-b.in { align-self: flex-start; }
.msg-b.out { align-self: flex-end; align-items: flex-end; }
.msg-bubble { padding: 9px 13px; border-radius: 18px; font-size: calc(15px * var(--fs)); overflow-wrap: anywhere; white-space: pre-wrap; }
.msg-b.in .msg-bubble { background: var(--surface); border-bottom-left-radius: 4px; }
.msg-b.out .msg-bubble { background: var(--primary); color: var(--bg); border-bottom-right-radius: 4px; }
.msg-b.failed .msg-bubble { background: #f9dedc; color: #410e0b; }
.msg-stamp { font-size: 11px; color: var(--muted); padding: 1px 6px; }
.msg-compose { display: flex; align-items: center; padding: 4px 6px 6px; gap: 2px; background: var(--bg); border-top: 1px solid var(--line); }
.msg-compose .field { flex: 1; margin: 4px 4px; border-radius: 22px; background: var(--surface); border-color: transparent; }
.msg-send { width: 44px; height: 44px; border-radius: 22px; background: var(--primary); color: var(--bg); display: flex;
  align-items: center; justify-content: center; font-size: 18px; flex: 0 0 44px; }
.msg-send.disabled { opacity: .35; }
.msg-efab { position: absolute; right: 16px; bottom: 16px; height: 56px; border-radius: 16px; background: var(--primary-c);
  display: flex; align-items: center; gap: 10px; padding: 0 20px 0 16px; font-size: 15px; font-weight: 500;
  box-shadow: 0 2px 6px rgba(0,0,0,.3); z-index: 5; }
.msg-menu-scrim { position: absolute; inset: 0; z-index: 22; }
.msg-menu { position: absolute; right: 8px; top: 8px; min-width: 190px; background: var(--surface); border-radius: 6px;
  box-shadow: 0 4px 14px rgba(0,0,0,.3); padding: 6px 0; }
.msg-menu-item { padding: 13px 20px; font-size: calc(15px * var(--fs)); }
.msg-to { display: flex; align-items: center; }
.msg-to .field { flex: 1; }
.msg-tolabel { padding-left: 16px; color: var(--muted); font-size: 15px; }
.msg-hit { background: #fff3b0; color: #000; }
`;
if (typeof document !== 'undefined' && !document.getElementById('css-messages')) {
  const el = document.createElement('style');
  el.id = 'css-messages';
  el.textContent = CSS;
  document.head.appendChild(el);
}

const KB_H = 215; // the soft keyboard's height: screens resize above it (adjustResize)
const PKG = 'com.android.messaging';

// ------------------------------------------------------------------------------------------
// data: threads are messages grouped by address
const msgs = () => world().messages || []; // read-only view: a missing list stays unknown until written
const contacts = () => world().contacts || [];
const digits = (s) => String(s || '').replace(/\D/g, '');
/** Address identity: the last 10 digits of a phone number (so +1 415… and 415… match). */
export function addrKey(a) {
  const d = digits(a);
  if (d.length >= 10) return d.slice(-10);
  if (d.length) return d;
  return String(a || '').trim().toLowerCase();
}
const isNumberLike = (s) => /^[+\d][\d\s().\-]*$/.test(String(s || '').trim()) && digits(s).length >= 3;
function contactFor(addr) {
  const k = addrKey(addr);
  return contacts().find((c) => (c.phones || []).some((p) => addrKey(p.number) === k)) || null;
}
const nameFor = (addr) => contactFor(addr)?.name || addr;

function threads() {
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
const threadOf = (addr) => threads().find((th) => th.key === addrKey(addr)) || null;

// ------------------------------------------------------------------------------------------
// time labels
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const parse = (iso) => new Date(String(iso || '').slice(0, 19) + 'Z');
const dayNum = (d) => Math.floor(d.getTime() / 86400000);
function listTime(iso) {
  if (!iso) return '';
  const d = parse(iso), n = now();
  const diff = dayNum(n) - dayNum(d);
  if (diff <= 0) return fmtTime(d.getUTCHours(), d.getUTCMinutes());
  if (diff === 1) return 'Yesterday';
  if (diff < 7) return DAYS[d.getUTCDay()].slice(0, 3);
  if (d.getUTCFullYear() === n.getUTCFullYear()) return `${MONTHS[d.getUTCMonth()].slice(0, 3)} ${d.getUTCDate()}`;
  return `${d.getUTCMonth() + 1}/${d.getUTCDate()}/${String(d.getUTCFullYear()).slice(2)}`;
}
function dayLabel(iso) {
  const d = parse(iso), n = now();
  const diff = dayNum(n) - dayNum(d);
  if (diff === 0) return 'Today';
  if (diff === 1) return 'Yesterday';
  const base = `${DAYS[d.getUTCDay()]}, ${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}`;
  return d.getUTCFullYear() === n.getUTCFullYear() ? base : `${base}, ${d.getUTCFullYear()}`;
}
const clock = (iso) => { const d = parse(iso); return fmtTime(d.getUTCHours(), d.getUTCMinutes()); };

// ------------------------------------------------------------------------------------------
// actions
const convKey = (address) => `messages/conversation/${JSON.stringify({ address })}`;
function scrollToBottom(address) { ui().scroll[convKey(address)] = 1000000; }

function openConversation(address, how = 'go') {
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
function saveDraft(address) {
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

function send(address) {
  const text = String(ui().fields.compose ?? '');
  if (!text.trim()) return;
  const k = addrKey(address);
  const list = msgs().filter((m) => !(m.box === 'draft' && addrKey(m.address) === k));
  list.push({ id: nextId('m'), address, body: text.trim(), box: 'sent', read: true, time: nowIso() });
  world().messages = list;
  ui().fields.compose = '';
  scrollToBottom(address);
}

function deleteThreads(keys) {
  const ks = new Set(keys);
  world().messages = msgs().filter((m) => !ks.has(addrKey(m.address)));
}
function markThreads(keys, read) {
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
// widgets
const COLORS = ['#1a73e8', '#d93025', '#188038', '#e37400', '#9334e6', '#c5221f', '#007b83', '#b06000'];
function avatar(name) {
  let h = 0;
  for (const ch of String(name)) h = (h * 31 + ch.codePointAt(0)) >>> 0;
  const letter = /^[+\d(]/.test(name) ? '👤' : [...String(name).trim()][0]?.toUpperCase() || '?';
  return html`<div class="msg-avatar" style=${`background:${COLORS[h % COLORS.length]}`}>${letter}</div>`;
}
const kbSpacer = () => (ui().keyboard && ui().focus ? html`<div style=${`flex:0 0 ${KB_H}px`}></div>` : null);
const kbWrap = (node) => (ui().keyboard && ui().focus
  ? html`<div style=${`position:absolute;left:0;right:0;top:0;bottom:${KB_H}px;z-index:20`}>${node}</div>` : node);

function menuItem(label, fn, id = 'title') {
  return html`<div class="msg-menu-item" ...${A('android.widget.TextView', { id, text: label, click: true })}
    onClick=${(e) => { e.stopPropagation(); update(() => { ui().dialog = null; fn(); }); }}>${label}</div>`;
}
function Menu(items) {
  return html`<div class="msg-menu-scrim" onClick=${(e) => { if (e.target === e.currentTarget) update(() => { ui().dialog = null; }); }}>
    <div class="msg-menu" ...${A('android.widget.ListView', { id: 'android:id/list' })}>${items.map(([l, f]) => menuItem(l, f))}</div></div>`;
}

// ------------------------------------------------------------------------------------------
// screens
/** The conversation list's selection, as every flavor's list keeps it: the threads, the selected
 *  keys still among them, whether selection mode is on, and the toggle a long press (or a tap
 *  while selecting) runs on a row. */
function listSelection() {
  const u = ui();
  const ths = threads();
  const sel = (u.msel || []).filter((k) => ths.some((th) => th.key === k));
  const toggle = (k) => { const s = new Set(u.msel || []); if (s.has(k)) s.delete(k); else s.add(k); u.msel = [...s]; };
  return { ths, sel, selecting: sel.length > 0, toggle };
}
function list() {
  const u = ui();
  const { ths, sel, selecting, toggle } = listSelection();
  const rows = ths.map((th) => {
    const unread = th.unread > 0;
    const isSel = sel.includes(th.key);
    let sub, trailing, desc;
    if (th.draft) {
      sub = th.draft.body;
      trailing = html`<span class="msg-draft" ...${A('android.widget.TextView', { id: 'conversation_timestamp', text: 'Draft' })}>Draft</span>`;
      desc = `${unread ? t('Unread, ', 'Unread conversation, ') : ''}${th.name}, Draft: ${th.draft.body}`;
    } else {
      const m = th.last;
      sub = m ? (m.box === 'inbox' ? m.body : `You: ${m.body}`) : '';
      const tm = m ? listTime(m.time) : '';
      trailing = html`<span class="msg-time" ...${A('android.widget.TextView', { id: 'conversation_timestamp', text: tm })}>${tm}${unread ? html`<span class="msg-dot"></span>` : null}</span>`;
      desc = `${unread ? t('Unread, ', 'Unread conversation, ') : ''}${th.name}, ${sub}, ${tm}`;
    }
    return Row({
      title: th.name, subtitle: sub, icon: isSel ? html`<div class="msg-avatar" style="background:var(--primary)">✓</div>` : avatar(th.name),
      trailing, id: 'conversation_list_item', desc, selected: isSel,
      cls: (unread ? 'msg-unread ' : '') + (isSel ? 'msg-sel' : ''),
      onClick: () => {
        // the kit's press handlers are rebuilt by the re-render a long press causes, so the
        // click that follows the held touch would undo it: swallow that one click here
        if (u.mlong === th.key) { u.mlong = null; return; }
        u.mlong = null;
        if (selecting) toggle(th.key); else openConversation(th.address);
      },
      onLong: () => { toggle(th.key); u.mlong = th.key; },
    });
  });
  const body = ths.length ? rows : Empty(t('No conversations yet', "Once you start a new conversation, you'll see it listed here"));
  if (selecting) {
    const anyUnread = ths.some((th) => sel.includes(th.key) && th.unread > 0);
    const readAct = anyUnread ? ['Mark as read', '✉', () => { markThreads(sel, true); u.msel = []; }]
      : ['Mark as unread', '✉', () => { markThreads(sel, false); u.msel = []; }];
    const actions = flavor() === 'aosp'
      ? [{ icon: '🗑', desc: 'Delete', id: 'action_delete', onClick: () => { u.dialog = { kind: 'delete', keys: sel }; } },
        { icon: '⋮', desc: 'More options', onClick: () => { u.dialog = { kind: 'menu', menu: 'sel' }; } }]
      : [{ icon: readAct[1], desc: readAct[0], id: 'action_mark_read', onClick: readAct[2] },
        { icon: '🗑', desc: 'Delete', id: 'action_delete', onClick: () => { u.dialog = { kind: 'delete', keys: sel }; } }];
    return Screen({ title: `${sel.length} selected`, up: true, actions, body });
  }
  return Screen({
    title: 'Messages', up: false, body,
    actions: [{ icon: '🔍', desc: t('Search', 'Search conversations'), id: 'action_search', onClick: () => { go('search'); ui().focus = 'msg_search'; ui().keyboard = true; } },
      { icon: '⋮', desc: 'More options', onClick: () => { u.dialog = { kind: 'menu', menu: 'list' }; } }],
    bottom: html`<div class="msg-efab" ...${A('android.widget.Button', { id: 'start_chat_fab', desc: 'Start chat', text: 'Start chat', click: true })}
      onClick=${() => update(() => { go('newchat'); ui().fields.to = ''; ui().focus = 'to'; ui().keyboard = true; })}>💬 Start chat</div>`,
  });
}

function search() {
  const q = String(ui().fields.msg_search || '').trim();
  const ql = q.toLowerCase();
  const qd = digits(q);
  let body = null;
  if (q) {
    const ths = threads();
    const convs = ths.filter((th) => th.name.toLowerCase().includes(ql) || (qd.length >= 3 && digits(th.address).includes(qd)));
    const hits = [];
    for (const th of ths) for (const m of th.bubbles) if (m.body.toLowerCase().includes(ql)) hits.push([th, m]);
    hits.sort((a, b) => (b[1].time || '').localeCompare(a[1].time || ''));
    body = !convs.length && !hits.length ? Empty(t('No results', 'No results found')) : html`
      ${convs.length ? Section(t('Conversations', 'Conversations')) : null}
      ${convs.map((th) => Row({ title: th.name, subtitle: th.address, icon: avatar(th.name), id: 'conversation_list_item',
        desc: `${th.name}, ${th.address}`, onClick: () => openConversation(th.address) }))}
      ${hits.length ? Section('Messages') : null}
      ${hits.map(([th, m]) => Row({ title: th.name, subtitle: m.body, icon: avatar(th.name), id: 'message_search_item',
        desc: `${th.name}, ${m.body}, ${listTime(m.time)}`, trailing: Text(listTime(m.time), { id: 'conversation_timestamp', cls: 'msg-time' }),
        onClick: () => openConversation(th.address) }))}`;
  } else {
    body = Empty(t('Search your conversations', 'Search by name, number, or message'));
  }
  return Screen({
    title: 'Search',
    search: html`<div style="flex:1">${Field({ field: 'msg_search', hint: t('Search messages', 'Search conversations'), id: 'search_src_text' })}</div>`,
    body, bottom: kbSpacer(),
  });
}

function conversation({ address }) {
  const th = threadOf(address);
  const name = nameFor(address);
  const bubbles = th ? th.bubbles : [];
  const out = [];
  let lastDay = '';
  for (const m of bubbles) {
    const day = (m.time || '').slice(0, 10);
    if (m.time && day !== lastDay) {
      lastDay = day;
      out.push(html`<div class="msg-day" ...${A('android.widget.TextView', { id: 'day_separator', text: dayLabel(m.time) })}>${dayLabel(m.time)}</div>`);
    }
    const dir = m.box === 'inbox' ? 'in' : 'out';
    const status = m.box === 'failed' ? t('Not sent', 'Not sent. Tap to retry.') : m.box === 'outbox' ? 'Sending…' : m.time ? clock(m.time) : '';
    const who = m.box === 'inbox' ? name : t('You', 'You');
    out.push(html`<div class=${`msg-b ${dir}${m.box === 'failed' ? ' failed' : ''}`}
        ...${A('android.widget.LinearLayout', { id: 'message_content', desc: `${who} said ${m.body}, ${status}` })}>
      <div class="msg-bubble" ...${A('android.widget.TextView', { id: 'message_text', text: m.body })}>${m.body}</div>
      <div class="msg-stamp" ...${A('android.widget.TextView', { id: 'message_status', text: status })}>${status}</div></div>`);
  }
  const text = String(ui().fields.compose ?? '');
  const canSend = !!text.trim();
  const bottom = html`<div class="msg-compose" ...${A('android.widget.LinearLayout', { id: 'compose_message_view' })}>
      ${Field({ field: 'compose', hint: t('Type a message', 'Text message'), id: 'compose_message_text' })}
      <div class=${'msg-send' + (canSend ? '' : ' disabled')}
        ...${A('android.widget.ImageButton', { id: 'send_message_button', desc: 'Send SMS', click: canSend, disabled: !canSend })}
        onClick=${() => update(() => send(address))}>➤</div></div>${kbSpacer()}`;
  return Screen({
    title: name,
    actions: [{ icon: '📞', desc: t('Call', 'Call'), id: 'action_call', onClick: () => toast(`Calling ${name}…`) },
      { icon: '⋮', desc: 'More options', onClick: () => { ui().dialog = { kind: 'menu', menu: 'conv', address }; } }],
    body: out.length ? html`<div class="msg-thread" ...${A('android.widget.LinearLayout', { id: 'message_list' })}>${out}</div>`
      : Empty(contactFor(address) ? t(`Start a conversation with ${name}`, `Start a conversation with ${name}`) : t('Send a message', `Texting ${address}`)),
    bottom,
  });
}

function newchat() {
  const q = String(ui().fields.to || '').trim();
  const ql = q.toLowerCase();
  const qd = digits(q);
  const entries = [];
  for (const c of [...contacts()].sort((a, b) => a.name.localeCompare(b.name))) {
    for (const p of c.phones || []) {
      if (!q || c.name.toLowerCase().includes(ql) || (qd.length >= 2 && digits(p.number).includes(qd))) entries.push([c, p]);
    }
  }
  const open = (addr) => openConversation(addr, 'replace');
  const submit = () => {
    const v = String(ui().fields.to || '').trim();
    if (!v) return;
    const exact = entries.find(([c]) => c.name.toLowerCase() === v.toLowerCase());
    if (exact) open(exact[1].number);
    else if (isNumberLike(v)) open(v);
    else if (entries.length === 1) open(entries[0][1].number);
    else toast(t('Enter a valid name or number', 'Not a valid recipient'));
  };
  const label = (p) => (p.label ? p.label[0].toUpperCase() + p.label.slice(1) : 'Mobile');
  return Screen({
    title: t('New message', 'New conversation'),
    body: html`
      <div class="msg-to"><span class="msg-tolabel" ...${A('android.widget.TextView', { id: 'to_label', text: 'To' })}>To</span>
        ${Field({ field: 'to', hint: t('Name or number', 'Type a name, phone number, or email'), id: 'recipient_text_view', onSubmit: submit })}</div>
      ${q && isNumberLike(q) ? Row({ icon: avatar(q), title: t(`Send to ${q}`, `Send to ${q}`), id: 'send_to_number', onClick: () => open(q) }) : null}
      ${Section(q ? t('Contacts', 'Contacts') : t('All contacts', 'Top contacts'))}
      ${entries.length ? entries.map(([c, p]) => Row({ icon: avatar(c.name), title: c.name, subtitle: `${label(p)} ${p.number}`,
        id: 'contact_picker_item', desc: `${c.name}, ${p.number}`, onClick: () => open(p.number) }))
        : Empty(t('No matching contacts', 'No contacts found'))}`,
    bottom: kbSpacer(),
  });
}

// ------------------------------------------------------------------------------------------
// dialogs
// What the menus' items and the delete confirmation do, shared with the google flavor's own menus
// and dialog (apps/google/messages.js), so every flavor changes the world the same way.
/** The selection menu's "Mark as read" (when a selected conversation is unread) or "Mark as unread";
 *  either ends the selection. */
function markSelectedItem() {
  const u = ui();
  const sel = u.msel || [];
  const anyUnread = threads().some((th) => sel.includes(th.key) && th.unread > 0);
  return anyUnread ? ['Mark as read', () => { markThreads(sel, true); u.msel = []; }] : ['Mark as unread', () => { markThreads(sel, false); u.msel = []; }];
}
const BLOCK_ITEM = ['Block', () => toast('Blocking is not available')];
/** A conversation menu's "Delete" (which asks first: the `delete` dialog) and "Details". */
function convItems(address) {
  const u = ui();
  return {
    delete: ['Delete', () => { u.dialog = { kind: 'delete', keys: [addrKey(address)], from: 'conv' }; }],
    details: ['Details', () => toast(`${nameFor(address)} · ${address}`)],
  };
}
/** "Delete" confirmed: the conversations go, the dialog and the selection end, and a conversation
 *  deleted from inside it is left (its compose box cleared). */
function deleteConfirmed(d) {
  deleteThreads(d.keys);
  const u = ui();
  u.dialog = null; u.msel = [];
  if (d.from === 'conv') { u.fields.compose = ''; u.focus = null; u.keyboard = false; back(); }
}
const dialogs = {
  menu: (d) => {
    const u = ui();
    if (d.menu === 'sel') {
      return Menu([markSelectedItem(), ['Select all', () => { u.msel = threads().map((th) => th.key); }], BLOCK_ITEM]);
    }
    if (d.menu === 'conv') {
      const items = convItems(d.address);
      return Menu([items.delete, items.details]);
    }
    return Menu([
      ['Mark all as read', () => { markThreads(threads().map((th) => th.key), true); }],
      [t('Archived', 'Archived'), () => toast('No archived conversations')],
      ['Settings', () => toast('Settings')],
    ]);
  },
  delete: (d) => {
    const n = d.keys.length;
    const title = flavor() === 'aosp' ? `Delete ${n} conversation${n === 1 ? '' : 's'}?`
      : n === 1 ? 'Delete this conversation?' : `Delete ${n} conversations?`;
    return Dialog({
      title,
      body: Text(t('Messages in it will be permanently deleted.', "This can't be undone."), { id: 'android:id/message' }),
      buttons: [
        { label: 'Cancel', onClick: () => { ui().dialog = null; } },
        { label: 'Delete', onClick: () => {
          deleteConfirmed(d);
          toast(n === 1 ? t('Conversation deleted', 'Conversation deleted') : `${n} conversations deleted`);
        } },
      ],
    });
  },
};

// ==========================================================================================
// Flavor `aosp`: AOSP Messaging exactly, after LineageOS/android_packages_apps_Messaging
// @ 46d8c06e4aedb90d1f77ffca9e6b513fe3414051 (AOSP-MSG below). Resource ids, classes, content
// descriptions and strings are the app's; every screen cites the files it follows. What the
// AOSP app does not have, this flavor does not have either: no conversation search, no "Mark as
// read" (opening a conversation reads it), no day separators. One deviation is kept on purpose:
// AOSP tells an unread conversation only by a bold typeface, which no accessibility node carries,
// so an unread row's description starts with "Unread, " (sim-only; see messages.yaml `unread`).
const isAosp = () => flavor() === 'aosp';
// res/values/strings.xml
const S = {
  app: 'Messaging',
  start: 'Start new conversation',
  emptyList: 'Once you start a new conversation, you\u2019ll see it listed here',
  draft: 'Draft',
  sending: 'Sending\u2026',
  failed: 'Not sent. Tap to try again.',
  compose: 'Send message',
  send: 'Send Message',
  attach: 'Add an attachment',
  call: 'Make a call',
  to: 'To',
  back: 'Back',
  up: 'Navigate up', // appcompat abc_action_bar_up_description
  more: 'More options', // appcompat abc_action_menu_overflow_description
  dialpad: 'Switch between entering text and numbers',
  deleteText: 'Delete text',
  frequents: 'Frequents',
  allContacts: 'All contacts',
  sendTo: (d) => `Send to ${d}`,
  invalid: 'Invalid contact',
  deleteOne: 'Delete this conversation?',
  deleteMany: 'Delete these conversations?',
  delete: 'Delete',
  cancel: 'Cancel',
  youSaid: 'You said',
  said: (who) => `${who} said`,
};

// --- time strings: src/com/android/messaging/util/Dates.java -------------------------------
const SHORT_DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const SHORT_MONTHS = MONTHS.map((m) => m.slice(0, 3));
function aospStamp(iso, abbreviated) {
  if (!iso) return '';
  const d = parse(iso), n = now();
  const diff = n.getTime() - d.getTime();
  const h24 = world().settings.time_24h !== false;
  const hm = fmtTime(d.getUTCHours(), d.getUTCMinutes());
  const hmTight = h24 ? hm : hm.replace(' ', ''); // "EEE h:mmaa"
  if (diff < 60000) return abbreviated ? 'Just now' : 'Now';
  if (diff < 3600000) { const k = Math.floor(diff / 60000); return `${k} min${k === 1 ? '' : 's'}`; }
  if (dayNum(n) === dayNum(d)) return hm;
  if (diff < 7 * 86400000) return abbreviated ? SHORT_DAYS[d.getUTCDay()] : `${SHORT_DAYS[d.getUTCDay()]} ${hmTight}`;
  if (diff < 365 * 86400000) {
    const md = `${SHORT_MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}`;
    return abbreviated ? md : `${md}, ${hmTight}`;
  }
  const num = `${d.getUTCMonth() + 1}/${d.getUTCDate()}/${String(d.getUTCFullYear()).slice(2)}`;
  return abbreviated ? num : `${num}, ${hmTight}`;
}

// --- shared pieces ----------------------------------------------------------------------------
const LLC = 'androidx.appcompat.widget.LinearLayoutCompat';
function tv(text, id, o = {}) {
  return html`<div class=${'tv ' + (o.cls || '')} style=${o.style || ''} ...${A('android.widget.TextView', { id, text, desc: o.desc, selected: o.selected })}>${text}</div>`;
}
function box(cls, o, children, style = '', klass = '') {
  return html`<div class=${klass} style=${style} ...${A(cls, o)}>${children}</div>`;
}
/** A scrolling list whose offset lives in the phone state (the route's scroll key). */
function scroller(cls, id, children, { suffix = '', style = '' } = {}) {
  const key = scrollKey() + suffix;
  return html`<div class="body scroll" style=${style} data-scroll-key=${key} ...${A(cls, { id, scroll: true })}>
    <div class="body-inner">${children}</div></div>`;
}
/** The AppCompat action bar (res/layout/abc_screen_toolbar.xml: action_bar_container > Toolbar
 * action_bar): up button, title or custom view, action items (Buttons), the overflow ImageView. */
function actionBar({ up, title, custom, actions = [], overflow }) {
  return html`<div class="appbar" ...${A('android.widget.FrameLayout', { id: 'action_bar_container' })}>
    <div style="display:flex;align-items:center;gap:4px;flex:1;height:100%;min-width:0" ...${A('android.view.ViewGroup', { id: 'action_bar' })}>
      ${up ? html`<div class="icon-btn" ...${A('android.widget.ImageButton', { desc: S.up, click: true, text: '' })} ...${pressHandlers(up.onClick)}>${up.icon || '←'}</div>` : null}
      ${title !== undefined ? html`<div class="title" ...${A('android.widget.TextView', { text: title })}>${title}</div>` : null}
      ${custom || (title === undefined ? html`<div style="flex:1"></div>` : null)}
      ${actions.length || overflow ? html`<div style="display:flex;align-items:center" ...${A(LLC, {})}>
        ${actions.map((a) => html`<div class="icon-btn" ...${A('android.widget.Button', { id: a.id, desc: a.desc, click: true, long: true, text: '' })}
            ...${pressHandlers(a.onClick)}>${a.icon}</div>`)}
        ${overflow ? html`<div class="icon-btn" ...${A('android.widget.ImageView', { desc: S.more, click: true, long: true, text: '' })}
            ...${pressHandlers(overflow)}>⋮</div>` : null}</div>` : null}
    </div></div>`;
}
/** An action-bar overflow menu (appcompat abc_popup_menu_item_layout: ListMenuItemView > title). */
function popupMenu(items) {
  return html`<div class="msg-menu-scrim" onClick=${(e) => { if (e.target === e.currentTarget) update(() => { ui().dialog = null; }); }}>
    <div class="msg-menu" ...${A('android.widget.ListView', {})}>${items.map(([label, fn]) => html`<div class="msg-menu-item"
        ...${A('android.widget.LinearLayout', { click: true })}
        onClick=${(e) => { e.stopPropagation(); update(() => { ui().dialog = null; fn(); }); }}>
      <span ...${A('android.widget.TextView', { id: 'title', text: label })}>${label}</span></div>`)}</div></div>`;
}
/** android.app.AlertDialog (framework alert_dialog_material.xml): title, message, and the
 * button bar with the negative button (button2) left of the positive one (button1). */
function alertDialog({ title, message, positive, negative }) {
  const btn = (b, n) => html`<div class="btn" ...${A('android.widget.Button', { id: `android:id/button${n}`, text: b.label, click: true })}
      ...${pressHandlers(b.onClick)}>${b.label}</div>`;
  return html`<div class="scrim" onClick=${(e) => { if (e.target === e.currentTarget) update(() => { ui().dialog = null; }); }}>
    <div class="dialog" ...${A('android.widget.FrameLayout', { id: 'android:id/parentPanel' })}>
      ${title ? html`<div class="dialog-title" ...${A('android.widget.TextView', { id: 'android:id/alertTitle', text: title })}>${title}</div>` : null}
      ${message ? html`<div class="dialog-body" ...${A('android.widget.TextView', { id: 'android:id/message', text: message })}>${message}</div>` : null}
      <div class="dialog-buttons" ...${A('android.widget.LinearLayout', { id: 'android:id/buttonPanel' })}>
        ${negative ? btn(negative, 2) : null}${btn(positive, 1)}</div></div></div>`;
}
/** A PlainTextEditText / EditText bound to ui.fields[field]; as SDK 26+ reports it, an empty field
 * gives its hint as its text. ``wrap`` styles the box. */
function editText(field, { id, hint, cls = 'android.widget.EditText', onSubmit, style = '', inputStyle = '' }) {
  const u = ui();
  const value = String(u.fields[field] ?? '');
  const focus = () => { if (ui().focus !== field) update((s) => { s.ui.focus = field; s.ui.keyboard = true; }); };
  window.S2R.submitters[field] = onSubmit || null;
  return html`<div class="field" style=${style} ...${A(cls, { id, text: value || hint, hint, click: true, long: true, edit: true })} onClick=${focus}>
    <input class="input" style=${inputStyle} data-field=${field} value=${value} placeholder=${hint} autocomplete="off" autocapitalize="off" spellcheck=${false}
      onInput=${(e) => { window.S2R.state.ui.fields[field] = e.target.value; rerender(); }} onFocus=${focus}
      onKeyDown=${(e) => { if (e.key === 'Enter') { e.preventDefault(); update((s) => { if (onSubmit) onSubmit(); else { s.ui.keyboard = false; s.ui.focus = null; } }); } }} /></div>`;
}
function avatarView(name, id, o = {}) {
  return html`<div ...${A('android.widget.ImageView', { id, click: o.click, long: o.long, text: '' })} ...${o.onClick ? { onClick: (e) => { e.stopPropagation(); update(() => o.onClick()); } } : {}}>${avatar(name)}</div>`;
}

// --- the conversation list ---------------------------------------------------------------------
// res/layout/conversation_list_activity.xml + conversation_list_fragment.xml (RecyclerView
// @android:id/list, list_empty_view no_conversations_view, ImageView start_new_conversation_button
// described @string/start_new_conversation); ConversationListActivity.java (title @string/app_name,
// overflow res/menu/conversation_list_fragment_menu.xml: Archived, Blocked contacts, Settings);
// res/layout/conversation_list_item_view.xml + ConversationListItemView.java (row click and long
// click on swipeableContainer; snippet, "Draft" or the time in conversation_timestamp; the item's
// description from buildContentDescription); selection mode: BugleActionBarActivity.CustomActionMode
// (no title, up button with a cancel icon) and res/menu/conversation_list_fragment_select_menu.xml;
// the delete prompt: AbstractConversationListActivity.onActionBarDelete.
function rowDescription(th, unread) {
  const m = th.last;
  let d;
  if (th.draft) d = `Unsent message to ${th.name}: ${th.draft.body}. Time: ${aospStamp(th.latest, true)}.`;
  else if (!m) d = '';
  else if (m.box === 'inbox') d = `Message from ${th.name}: ${m.body}. Time: ${aospStamp(m.time, true)}.`;
  else if (m.box === 'outbox') d = `Sending message to ${th.name}: ${m.body}. Time: ${aospStamp(m.time, true)}.`;
  else if (m.box === 'failed') d = `Failed message to ${th.name}: ${m.body}. Time: ${aospStamp(m.time, true)}.`;
  else d = `Message to ${th.name}: ${m.body}. Time: ${aospStamp(m.time, true)}.`;
  return unread ? `Unread, ${d}` : d;
}

function aospList() {
  const u = ui();
  const { ths, sel, selecting, toggle } = listSelection();
  const rows = ths.map((th) => {
    const unread = th.unread > 0 && !th.draft;
    const isSel = sel.includes(th.key);
    const m = th.last;
    const snippet = th.draft ? th.draft.body : m ? m.body : '';
    const stamp = th.draft ? S.draft : !m ? '' : m.box === 'outbox' ? S.sending : m.box === 'failed' ? S.failed : aospStamp(m.time, true);
    const c = contactFor(th.address);
    // a long press's trailing click is swallowed by the kit's press handlers (os.js S2R.press)
    const onClick = () => { if (selecting) toggle(th.key); else openConversation(th.address); };
    return html`<div ...${A('android.widget.FrameLayout', { desc: rowDescription(th, unread), selected: isSel })}>
      <div class=${'row ' + (unread ? 'msg-unread ' : '') + (isSel ? 'msg-sel' : '')} style="align-items:flex-start"
          ...${A('android.widget.FrameLayout', { id: 'swipeableContainer', click: true, long: true, selected: isSel })}
          ...${pressHandlers(onClick, () => toggle(th.key))}>
        <div style="display:flex;gap:16px;flex:1;min-width:0" ...${A('android.widget.LinearLayout', { id: 'swipeableContent', selected: isSel })}>
          <div style="flex:0 0 40px" ...${A('android.widget.FrameLayout', {})}>
            ${isSel ? html`<div ...${A('android.widget.ImageView', { id: 'conversation_checkmark', text: '' })}><div class="msg-avatar" style="background:var(--primary)">✓</div></div>`
              : avatarView(th.name, 'conversation_icon', { click: !selecting, long: !selecting,
                onClick: selecting ? null : () => { if (c && window.S2R.apps.contacts) openApp('contacts', { s: 'details', p: { id: c.id } }); } })}
          </div>
          <div style="flex:1;min-width:0" ...${A('android.widget.LinearLayout', {})}>
            <div ...${A('android.widget.LinearLayout', {})}><div ...${A('android.widget.LinearLayout', {})}>
              ${tv(th.name, 'conversation_name', { cls: 'row-title' })}</div></div>
            ${tv(snippet, 'conversation_snippet', { cls: 'row-sub', style: th.draft ? 'font-style:italic' : '' })}
            ${tv(stamp, 'conversation_timestamp', { cls: th.draft || (m && m.box === 'failed') ? 'msg-draft' : 'msg-time', style: 'display:inline-block;padding-top:2px' })}
          </div>
        </div>
      </div></div>`;
  });
  const body = ths.length ? scroller('androidx.recyclerview.widget.RecyclerView', 'android:id/list', rows)
    : html`<div class="body" ...${A('android.widget.LinearLayout', { id: 'no_conversations_view' })}>
        <div ...${A('android.widget.ImageView', { id: 'empty_image_hint', text: '' })} style="text-align:center;font-size:48px;padding-top:96px">💬</div>
        <div class="empty" style="padding-top:16px" ...${A('android.widget.TextView', { id: 'empty_text_hint', text: S.emptyList })}>${S.emptyList}</div></div>`;
  const bar = selecting
    ? actionBar({
      up: { icon: '✕', onClick: () => { u.msel = []; } },
      actions: [
        { icon: '🗃', desc: 'Archive', id: 'action_archive', onClick: () => toast('Archive is not available') },
        { icon: '🗑', desc: S.delete, id: 'action_delete', onClick: () => { u.dialog = { kind: 'delete', keys: sel }; } },
        ...(sel.length === 1 && !contactFor(threadOf(sel[0]) ? threadOf(sel[0]).address : sel[0])
          ? [{ icon: '👤', desc: 'Add contact', id: 'action_add_contact', onClick: () => toast('Add contact is not available') }] : []),
        ...(sel.length === 1 ? [{ icon: '⊘', desc: 'Block', id: 'action_block', onClick: () => toast('Blocking is not available') }] : []),
      ] })
    : actionBar({ title: S.app, overflow: () => { u.dialog = { kind: 'menu', menu: 'list' }; } });
  return html`<div class="screen">${bar}
    <div style="flex:1;display:flex;flex-direction:column;position:relative;min-height:0" ...${A('android.widget.FrameLayout', { id: 'android:id/content' })}>
      ${body}
      <div class="fab" style="border-radius:28px" ...${A('android.widget.ImageView', { id: 'start_new_conversation_button', desc: S.start, click: true, text: '' })}
        ...${pressHandlers(() => { go('newchat'); ui().fields.to = ''; ui().focus = 'to'; ui().keyboard = true; })}>💬</div>
    </div></div>`;
}

// --- a conversation ----------------------------------------------------------------------------
// res/layout/conversation_activity.xml + conversation_fragment.xml (RecyclerView @android:id/list,
// conversation_compose_divider, message_compose_view_container); action bar: up button,
// action_bar_conversation_name.xml (conversation_title_container > conversation_title), the menu
// res/menu/conversation_menu.xml (action_call "Make a call" as an action; Add contact, People &
// options, Archive, Delete under More options: ConversationFragment.onPrepareOptionsMenu);
// res/layout/conversation_message_view.xml + ConversationMessageView.java (the row described
// "<sender> said, <text>, <status>" / "You said, …"; message_status the time, "Sending…", "Not sent.
// Tap to try again.", none inside a cluster); res/layout/compose_message_view.xml +
// ComposeMessageView.java (attach_media_button, compose_message_text hint "Send message",
// send_message_button "Send Message" shown only while there is text to send, else self_send_icon).
function clusters(a, b) {
  if (!a || !b) return false;
  const dir = (m) => (m.box === 'inbox' ? 'in' : 'out');
  return dir(a) === dir(b) && a.box === b.box && Math.abs(parse(b.time) - parse(a.time)) < 60000;
}
function aospConversation({ address }) {
  const u = ui();
  const th = threadOf(address);
  const name = nameFor(address);
  const bubbles = th ? th.bubbles : [];
  const rows = bubbles.map((m, i) => {
    const incoming = m.box === 'inbox';
    let status = '';
    if (m.box === 'outbox') status = S.sending;
    else if (m.box === 'failed') status = S.failed;
    else if (!clusters(m, bubbles[i + 1])) status = aospStamp(m.time, false);
    const desc = [incoming ? S.said(name) : S.youSaid, m.body, status].filter(Boolean).join(', ');
    return html`<div class=${`msg-b ${incoming ? 'in' : 'out'}${m.box === 'failed' ? ' failed' : ''}`}
        style="max-width:none;flex-direction:row;align-items:flex-end;gap:8px" ...${A('android.widget.FrameLayout', { desc, long: true })}>
      ${incoming ? avatarView(name, 'conversation_icon', { click: true }) : null}
      <div style="display:flex;flex-direction:column;max-width:78%" ...${A('android.widget.LinearLayout', { id: 'message_content' })}>
        <div style="display:flex;flex-direction:column" ...${A('android.widget.LinearLayout', { id: 'message_text_and_info' })}>
          <div class="msg-bubble" ...${A('android.widget.TextView', { id: 'message_text', text: m.body })}>${m.body}</div>
          ${status ? html`<div ...${A('android.view.ViewGroup', { id: 'message_metadata' })}>
            <div class="msg-stamp" ...${A('android.widget.TextView', { id: 'message_status', text: status })}>${status}</div></div>` : null}
        </div></div></div>`;
  });
  const text = String(u.fields.compose ?? '');
  const canSend = !!text.trim();
  const isNumber = !!digits(address);
  const compose = html`<div class="msg-compose" ...${A('android.widget.LinearLayout', { id: 'message_compose_view_container' })}>
    <div class="icon-btn" ...${A('android.widget.ImageButton', { id: 'attach_media_button', desc: S.attach, click: true, text: '' })}
      ...${pressHandlers(() => toast('No attachments available'))}>📎</div>
    ${editText('compose', { id: 'compose_message_text', hint: S.compose, style: 'flex:1;margin:4px 4px;border-radius:22px;background:var(--surface);border-color:transparent' })}
    <div ...${A('android.widget.FrameLayout', {})}>
      ${canSend ? html`<div class="msg-send" ...${A('android.widget.ImageButton', { id: 'send_message_button', desc: S.send, click: true, text: '' })}
          ...${pressHandlers(() => send(address))}>➤</div>`
        : html`<div ...${A('android.widget.ImageView', { id: 'self_send_icon', click: true, text: '' })}>${avatar('Me')}</div>`}
    </div></div>${kbSpacer()}`;
  const title = html`<div style="flex:1;min-width:0" ...${A('android.widget.RelativeLayout', { id: 'conversation_title_container' })}>
    <div class="title" style="padding-left:4px" ...${A('android.widget.TextView', { id: 'conversation_title', text: name })}>${name}</div></div>`;
  return html`<div class="screen">
    ${actionBar({ up: { onClick: () => back() }, custom: title,
      actions: isNumber ? [{ icon: '📞', desc: S.call, id: 'action_call',
        onClick: () => { saveDraft(address); openApp('phone', { s: 'incall', p: { number: address, name: contactFor(address) ? name : '', ret: 'messages' } }); } }] : [],
      overflow: () => { u.dialog = { kind: 'menu', menu: 'conv', address }; } })}
    <div style="flex:1;display:flex;flex-direction:column;min-height:0" ...${A('android.widget.FrameLayout', { id: 'android:id/content' })}>
      <div style="flex:1;display:flex;flex-direction:column;min-height:0;position:relative" ...${A('android.widget.FrameLayout', {})}>
        ${scroller('androidx.recyclerview.widget.RecyclerView', 'android:id/list', html`<div class="msg-thread">${rows}</div>`)}
      </div>
      ${compose}
    </div></div>`;
}

// --- starting a conversation: the contact picker -------------------------------------------
// res/layout/contact_picker_fragment.xml (Toolbar toolbar: navigation "Back" (@string/back), a
// MaxHeightScrollView around ContactRecipientAutoCompleteView recipient_text_view hint "To", the
// res/menu/compose_menu.xml actions action_ime_dialpad_toggle / action_delete_text; contact_pager;
// compose_contact_divider); res/layout/custom_header_view_pager.xml (ViewPagerTabs tab_strip with
// all-caps tabs @string/contact_picker_frequents_tab_title / all_contacts_tab_title, ViewPager
// pager); frequent_contacts_list_view.xml / all_contacts_list_view.xml (ListViews);
// contact_list_item_view.xml + ContactListItemView.java (clickable item: alphabet_header, contact_icon,
// contact_name, contact_details = the number, contact_detail_type = its label; a contact's further
// numbers show no name); typing filters ContactRecipientAdapter's drop-down (a "Send to <number>" entry
// first for a valid destination, then matching contacts, ContactDropdownLayouter); Enter commits the
// first entry, or the text, which ContactRecipientAutoCompleteView prunes as "Invalid contact".
function pickerMatches(q) {
  const qn = String(q || '').trim();
  const ql = qn.toLowerCase();
  const qd = digits(qn);
  const out = [];
  if (!qn) return out;
  const fold = (s) => String(s || '').normalize('NFD').replace(/[\u0300-\u036f]/g, '').toLowerCase();
  const fq = fold(ql);
  for (const c of [...contacts()].sort((a, b) => a.name.localeCompare(b.name))) {
    const nameHit = fold(c.name).split(/[\s\-']+/).some((w) => w.startsWith(fq)) || fold(c.name).startsWith(fq);
    let first = true;
    for (const p of c.phones || []) {
      if (nameHit || (qd.length >= 1 && /^[+\d\s().\-]+$/.test(qn) && digits(p.number).includes(qd))) {
        out.push({ c, p, first }); first = false;
      }
    }
  }
  return out;
}
function typeLabel(p) { return p.label ? p.label[0].toUpperCase() + p.label.slice(1) : 'Mobile'; }
function contactItem({ name, number, label, first, header, onClick }) {
  return html`<div class="row" style="gap:12px" ...${A('android.widget.LinearLayout', { click: true })} ...${pressHandlers(onClick)}>
    ${header !== undefined ? html`<div style="flex:0 0 40px;font-size:20px;color:var(--primary)" ...${A('android.widget.TextView', { id: 'alphabet_header', text: header })}>${header}</div>` : null}
    <div style="flex:0 0 40px" ...${A('android.widget.FrameLayout', {})}>${first ? avatarView(name, 'contact_icon', { click: true }) : null}</div>
    <div style="flex:1;min-width:0" ...${A('android.widget.LinearLayout', {})}>
      ${first ? html`<div ...${A('android.widget.LinearLayout', {})}>${tv(name, 'contact_name', { cls: 'row-title' })}</div>` : null}
      ${number !== undefined ? html`<div style="display:flex;gap:8px" ...${A('android.widget.LinearLayout', {})}>
        ${tv(number, 'contact_details', { cls: 'row-sub', style: 'flex:1' })}${tv(label, 'contact_detail_type', { cls: 'row-sub' })}</div>` : null}
    </div></div>`;
}
function aospNewchat() {
  const u = ui();
  const q = String(u.fields.to || '');
  const open = (addr) => openConversation(addr, 'replace');
  const entries = pickerMatches(q);
  const sendTo = q.trim() && isNumberLike(q) ? q.trim() : null;
  const commit = () => {
    const v = String(ui().fields.to || '').trim();
    if (!v) return;
    if (isNumberLike(v)) open(v);
    else if (entries.length) open(entries[0].p.number);
    else { ui().fields.to = ''; toast(S.invalid); }
  };
  const all = [...contacts()].sort((a, b) => a.name.localeCompare(b.name));
  const freq = all.filter((c) => c.starred);
  const tab = u.mpick_tab || (freq.length ? 'frequents' : 'all');
  let lastLetter = null;
  const listed = (tab === 'frequents' ? freq : all).flatMap((c) => (c.phones || []).map((p, i) => {
    let header;
    if (tab === 'all') {
      const L = ([...String(c.name).trim()][0] || '#').toUpperCase();
      header = i === 0 && L !== lastLetter ? L : '';
      if (i === 0) lastLetter = L;
    }
    return contactItem({ name: c.name, number: p.number, label: typeLabel(p), first: i === 0, header, onClick: () => open(p.number) });
  }));
  const tabView = (id, label) => html`<div class=${'tab' + (tab === id ? ' on' : '')}
      ...${A('android.widget.TextView', { text: label.toUpperCase(), click: true, selected: tab === id })}
      ...${pressHandlers(() => { ui().mpick_tab = id; })}>${label.toUpperCase()}</div>`;
  // the drop-down is a popup anchored below compose_contact_divider, over the tabs and the pager
  const dropdown = q.trim() ? html`<div style="position:absolute;left:0;right:0;top:2px;max-height:calc(100% - 2px);overflow:hidden;background:var(--bg);z-index:6;box-shadow:0 4px 8px rgba(0,0,0,.2)"
      ...${A('android.widget.ListView', {})}>
    ${sendTo ? contactItem({ name: S.sendTo(sendTo), first: true, onClick: () => open(sendTo) }) : null}
    ${entries.map((e) => contactItem({ name: e.c.name, number: e.p.number, label: typeLabel(e.p), first: e.first, onClick: () => open(e.p.number) }))}
  </div>` : null;
  const menu = q ? { id: 'action_delete_text', desc: S.deleteText, icon: '✕', onClick: () => { ui().fields.to = ''; ui().focus = 'to'; ui().keyboard = true; } }
    : { id: 'action_ime_dialpad_toggle', desc: S.dialpad, icon: '⌨', onClick: () => { ui().focus = 'to'; ui().keyboard = true; } };
  return html`<div class="screen"><div style="flex:1;display:flex;flex-direction:column;min-height:0" ...${A('android.widget.LinearLayout', {})}>
    <div class="appbar" ...${A('android.view.ViewGroup', { id: 'toolbar' })}>
      <div class="icon-btn" ...${A('android.widget.ImageButton', { desc: S.back, click: true, text: '' })} ...${pressHandlers(() => back())}>←</div>
      <div style="flex:1;min-width:0" ...${A('android.widget.ScrollView', {})}>
        ${editText('to', { id: 'recipient_text_view', hint: S.to, cls: 'android.widget.MultiAutoCompleteTextView', onSubmit: commit, style: 'margin:4px 0;border:0' })}</div>
      <div style="display:flex" ...${A(LLC, {})}><div class="icon-btn" ...${A('android.widget.Button', { id: menu.id, desc: menu.desc, click: true, long: true, text: '' })}
        ...${pressHandlers(menu.onClick)}>${menu.icon}</div></div>
    </div>
    <div style="flex:1;position:relative;display:flex;flex-direction:column;min-height:0" ...${A('android.widget.FrameLayout', {})}>
      <div style="flex:1;display:flex;flex-direction:column;min-height:0" ...${A('android.widget.LinearLayout', { id: 'contact_pager' })}>
        <div class="tabs" ...${A('android.widget.HorizontalScrollView', { id: 'tab_strip' })}>
          <div style="display:flex;flex:1" ...${A('android.widget.LinearLayout', {})}>${tabView('frequents', S.frequents)}${tabView('all', S.allContacts)}</div></div>
        <div style="flex:1;display:flex;flex-direction:column;min-height:0;position:relative" ...${A('android.widget.FrameLayout', {})}>
          <div style="flex:1;display:flex;flex-direction:column;min-height:0" ...${A('androidx.viewpager.widget.ViewPager', { id: 'pager' })}>
            ${scroller('android.widget.ListView', tab === 'frequents' ? 'frequent_contacts_list' : 'all_contacts_list', listed)}
          </div>
        </div>
      </div>
      <div style="position:absolute;left:0;right:0;top:0;height:2px" ...${A('android.view.View', { id: 'compose_contact_divider' })}></div>
      ${dropdown}
    </div>${kbSpacer()}</div></div>`;
}

// --- dialogs -------------------------------------------------------------------------------------
const aospDialogs = {
  menu: (d) => {
    const u = ui();
    if (d.menu === 'conv') {
      const items = [];
      if (!contactFor(d.address)) items.push(['Add contact', () => toast('Add contact is not available')]);
      items.push(['People & options', () => toast(`${nameFor(d.address)} · ${d.address}`)]);
      items.push(['Archive', () => toast('Archive is not available')]);
      items.push([S.delete, () => { u.dialog = { kind: 'delete', keys: [addrKey(d.address)], from: 'conv' }; }]);
      return popupMenu(items);
    }
    return popupMenu([
      ['Archived', () => toast('No archived conversations')],
      ['Blocked contacts', () => toast('No blocked contacts')],
      ['Settings', () => toast('Settings')],
    ]);
  },
  delete: (d) => alertDialog({
    title: d.keys.length === 1 ? S.deleteOne : S.deleteMany,
    negative: { label: S.cancel, onClick: () => { ui().dialog = null; } },
    positive: { label: S.delete, onClick: () => {
      deleteThreads(d.keys);
      const u = ui();
      u.dialog = null; u.msel = [];
      if (d.from === 'conv') { u.fields.compose = ''; u.focus = null; u.keyboard = false; back(); }
    } },
  }),
};
const byFlavor = (simFn, aospFn) => (p) => (isAosp() ? aospFn(p) : simFn(p));

registerApp({
  id: 'messages', label: 'Messages', pkg: PKG, icon: '💬', color: '#1967d2',
  root: { s: 'list', p: {} },
  screens: { list: byFlavor(list, aospList), search, conversation: byFlavor(conversation, aospConversation),
    newchat: byFlavor(newchat, aospNewchat), main: byFlavor(list, aospList) },
  dialogs: Object.fromEntries(Object.entries(dialogs).map(([k, fn]) => [k, (d) => kbWrap(isAosp() ? aospDialogs[k](d) : fn(d))])),
  onBack: (r) => {
    const u = ui();
    if (r.s === 'list' && (u.msel || []).length) { u.msel = []; return true; }
    if (r.s === 'conversation') saveDraft(r.p.address);
    return false;
  },
  activity: (r) => ({
    conversation: `${PKG}/.ui.conversation.ConversationActivity`,
    newchat: `${PKG}/.ui.conversation.ConversationActivity`,
    search: `${PKG}/.ui.conversationlist.ConversationListActivity`,
  }[r.s] || `${PKG}/.ui.conversationlist.ConversationListActivity`),
});

// Shared with the `google` flavor (apps/google/messages.js): the same threads, drafts and sends
// drawn by another app's screens, so every flavor changes the world the same way.
export { threads, threadOf, contactFor, nameFor, digits, isNumberLike, openConversation, saveDraft, send,
  deleteThreads, markThreads, listSelection, markSelectedItem, BLOCK_ITEM, convItems, deleteConfirmed, avatar, listTime, parse, dayNum, kbSpacer, kbWrap, scroller, editText, pickerMatches, KB_H };
