// Messages (com.android.messaging): the conversation list, a conversation with bubbles and a
// compose bar, starting a conversation, selection mode (long press) with Delete, and drafts that
// survive leaving a thread.
//
// Why it looks like this: threads are not stored anywhere — they are world().messages
// grouped by address (compared by digits, as Android's telephony provider does), so a task
// that adds or checks a Message record sees exactly what the user sees. Flavor `aosp` is AOSP
// Messaging itself (messages_aosp.js, each screen citing the AOSP layouts it follows); flavor `sim`
// uses our own wording, a conversation search and a "Mark as read" action. Flavor `google` (Google
// Messages) registers its screens over these from google/messages.js.
//
// This module: the `sim` flavor's screens and dialogs, and the app's registration (which hands every
// screen and dialog to AOSP Messaging's on the aosp flavor). The threads and every action are
// messages_core.js's.
import { html, registerApp, Screen, Row, Field, Dialog, Empty, Section, Text, A, ui, go, t, flavor, update,
  toast } from '../os.js';
import { PKG, contacts, digits, isNumberLike, contactFor, nameFor, threads, threadOf, listTime, dayLabel,
  clock, openConversation, saveDraft, send, markThreads, avatar, kbSpacer, kbWrap, listSelection,
  markSelectedItem, BLOCK_ITEM, convItems, deleteConfirmed } from './messages_core.js';
import { isAosp, aospList, aospConversation, aospNewchat, aospDialogs } from './messages_aosp.js';

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
