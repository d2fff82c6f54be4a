// Messages, flavor `aosp`: AOSP Messaging's screens — the conversation list, a conversation, the
// contact picker that starts one, and its dialogs, each citing the layouts it follows. The threads
// and what every action does are messages_core.js's; messages.js's registration hands every screen
// and dialog over to these on the aosp flavor.
import { html, A, pressHandlers, scrollKey, rerender, world, ui, go, back, openApp, flavor, update, toast,
  now, fmtTime } from '../os.js';
import { contacts, digits, addrKey, isNumberLike, contactFor, nameFor, threadOf, MONTHS, parse, dayNum,
  openConversation, saveDraft, send, deleteThreads, avatar, kbSpacer, listSelection } from './messages_core.js';

// AOSP Messaging exactly, after LineageOS/android_packages_apps_Messaging
// @ 46d8c06e4aedb90d1f77ffca9e6b513fe3414051 (AOSP-MSG below). Resource ids, classes, content
// descriptions and strings are the app's; every screen cites the files it follows. What the
// AOSP app does not have, this flavor does not have either: no conversation search, no "Mark as
// read" (opening a conversation reads it), no day separators. One deviation is kept on purpose:
// AOSP tells an unread conversation only by a bold typeface, which no accessibility node carries,
// so an unread row's description starts with "Unread, " (sim-only; see messages.yaml `unread`).
export const isAosp = () => flavor() === 'aosp';
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

export function aospList() {
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
export function aospConversation({ address }) {
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
export function pickerMatches(q) {
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
export function aospNewchat() {
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
export const aospDialogs = {
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
