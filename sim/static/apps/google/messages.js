// google flavor: Google Messages (com.google.android.apps.messaging), as a Pixel on Android 14/15
// ships it. The world is the base app's (apps/messages_core.js): threads are messages grouped by
// address, drafts are saved on leaving a thread, and every action here calls the base helpers so
// a judge sees the same records whichever flavor drew the screen.
//
// Evidence (keys as in device/apps/data/messages.yaml; unpinned = the string was read in a public
// file whose repository could not be pinned):
//   KK    Keval-Kalariya/ADB-Based-System-Alert window_dump.xml @ 60079c7a — a real Google Messages
//         conversation (tests/fixtures/real-apps/google/messages/conversation_rcs_compose_ui_720x1536.xml):
//         the Compose screen `ConversationScreenUi` (test tags without a package: top_app_bar,
//         top_app_bar_title_row, monogram_test_tag, GlideMonogram, message_list, message_text,
//         text_separator, ComposeRowIcon:Shortcuts / :Emotive, Compose:Draft:Send), the icon
//         buttons as a clickable View around a described View and a Button, bubble descriptions
//         "You said  <text> <time> ." / "<name> said  <text> <time> .", and the View containers
//         conversation_and_compose_container_full_view > conversation_list_root_container >
//         home_fragment_container | conversation_root_container > fragment_container, all inside
//         ConversationListActivity's window.
//   G-SS  ShrihanSubbu/Selenium_Startup src/test/java/Mobile/FirstAppiumTest.java @ cd107a64 (Android 15):
//         Button desc "Start chat"; EditText resource-id "ContactSearchField".
//   G-SZ  saidzaman/googleMessagesMobileAutomation src/test/java/pages/MessagingPage.java @ f27c99f5:
//         start_chat_fab; "Create group"; the To field's "Type names, phone numbers, or emails";
//         the compose field's "Text message"; the send Button inside the ComposeView.
//   G-HS  harshas-git/ForReferenceAndFuture AutomatePhoneSmsApp/Pages/SmsAppPage.cs @ b2d25d1d:
//         AccessibilityId "Start chat"; ContactSuggestionList, a View whose child Views are the contacts.
//   G-PA  PabloAcker/tercerParcialQA .../MessageContactScreen.java @ 524bd05a: compose_message_text,
//         message_text.
//   unpinned: swipeableContainer as an android.view.ViewGroup row with conversation_name /
//         conversation_snippet (index 1) / conversation_timestamp TextViews; the row's "Draft"
//         TextView; a long press then "More options" → TextView id title "Mark as unread" and the
//         unread mark unread_badge_view_with_message_count_stub; search: action_zero_state_search →
//         EditText zero_state_search_box_auto_complete, results zero_state_search_results with the
//         header zero_state_search_chat_header and the swipeableContainer rows in
//         zero_state_search_chat_results.
// Not in any evidence found, so kept plain (no invented ids): the list's RecyclerView, the avatar,
// the selection bar's buttons (described, no ids), the delete prompt's wording, the search field's
// hint, the new-conversation title and the suggestion row's second line (the number).
import { html, registerFlavor, A, pressHandlers, scrollKey, rerender, ui, go, back, openApp, update, toast, fmtTime, now } from '../../os.js';
import { threads, threadOf, contactFor, nameFor, digits, isNumberLike, openConversation, send,
  listSelection, markSelectedItem, BLOCK_ITEM, convItems, deleteConfirmed, avatar, listTime, parse, dayNum,
  kbSpacer, kbWrap } from '../messages_core.js';
import { pickerMatches } from '../messages_aosp.js';

const PKG = 'com.google.android.apps.messaging';
const ACTIVITY = `${PKG}/.ui.ConversationListActivity`; // KK: the conversation is a fragment of this activity

const CSS = `
.gm-bar { display: flex; align-items: center; height: 64px; padding: 0 4px; gap: 2px; flex: 0 0 auto; }
.gm-bar .title { flex: 1; font-size: calc(20px * var(--fs)); padding-left: 12px; }
.gm-ib { position: relative; width: 48px; height: 48px; display: flex; align-items: center; justify-content: center; border-radius: 24px; flex: 0 0 48px; }
.gm-ib > div { width: 100%; height: 100%; display: flex; align-items: center; justify-content: center; font-size: 20px; position: relative; }
.gm-btn { position: absolute; inset: 6px; pointer-events: none; }
.gm-row { display: flex; gap: 14px; align-items: center; padding: 10px 16px; }
.gm-row.sel { background: var(--primary-c); }
.gm-text { flex: 1; min-width: 0; }
.gm-name { font-size: calc(16px * var(--fs)); white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.gm-snip { font-size: calc(14px * var(--fs)); color: var(--muted); white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.gm-row.unread .gm-name, .gm-row.unread .gm-snip { font-weight: 700; color: var(--on); }
.gm-time { font-size: 12px; color: var(--muted); align-self: flex-start; padding-top: 4px; white-space: nowrap; }
.gm-time.draft { color: #d93025; }
.gm-badge { min-width: 10px; height: 10px; border-radius: 5px; background: var(--primary); align-self: center; }
.gm-efab { position: absolute; right: 16px; bottom: 16px; height: 56px; border-radius: 16px; background: var(--primary-c);
  display: flex; align-items: center; gap: 10px; padding: 0 20px 0 16px; font-size: 15px; font-weight: 500;
  box-shadow: 0 2px 6px rgba(0,0,0,.3); z-index: 5; }
.gm-thread { display: flex; flex-direction: column; gap: 6px; padding: 8px 10px 12px; }
.gm-item { display: flex; flex-direction: column; }
.gm-item.out { align-items: flex-end; }
.gm-bubble { max-width: 78%; padding: 10px 14px; border-radius: 20px; font-size: calc(15px * var(--fs)); overflow-wrap: anywhere; white-space: pre-wrap; }
.gm-item.in .gm-bubble { background: var(--surface); }
.gm-item.out .gm-bubble { background: var(--primary); color: var(--bg); }
.gm-sep { text-align: center; font-size: 12px; color: var(--muted); padding: 8px 0; }
.gm-compose { display: flex; align-items: center; gap: 4px; padding: 6px 8px 8px; flex: 0 0 auto; background: var(--bg); }
.gm-pill { flex: 1; display: flex; align-items: center; min-width: 0; background: var(--surface); border-radius: 24px; }
.gm-pill .field { flex: 1; border: 0; background: transparent; margin: 0; min-width: 0; }
.gm-field { position: relative; flex: 1; min-width: 0; }
.gm-ph { position: absolute; left: 12px; top: 50%; transform: translateY(-50%); color: var(--muted); }
.gm-menu-scrim { position: absolute; inset: 0; z-index: 22; }
.gm-menu { position: absolute; right: 8px; top: 8px; min-width: 200px; background: var(--surface); border-radius: 6px;
  box-shadow: 0 4px 14px rgba(0,0,0,.3); padding: 6px 0; }
.gm-menu > div { padding: 13px 20px; font-size: calc(15px * var(--fs)); }
`;
if (typeof document !== 'undefined' && !document.getElementById('css-gmessages')) {
  const el = document.createElement('style');
  el.id = 'css-gmessages';
  el.textContent = CSS;
  document.head.appendChild(el);
}

// --- building blocks -----------------------------------------------------------------------------
/** Android attributes with a Compose test tag as the resource id (KK: tags carry no package). */
function tag(cls, testTag, o = {}) {
  const a = A(cls, o);
  if (testTag) a['data-rid'] = testTag;
  return a;
}
/** A Compose icon button as KK dumps it: a clickable View around a View described by the icon's
 * label, which holds the Button node (pointer events pass through to the clickable View). */
function iconButton(desc, icon, onClick, testTag) {
  return html`<div class="gm-ib" ...${tag('android.view.View', testTag, { click: true })} ...${pressHandlers(onClick)}>
    <div ...${A('android.view.View', { desc, text: '' })}>${icon}<div class="gm-btn" ...${A('android.widget.Button', { text: '' })}></div></div></div>`;
}
function tv(text, id, cls = '', style = '') {
  return html`<div class=${cls} style=${style} ...${A('android.widget.TextView', { id, text })}>${text}</div>`;
}
/** A scrolling container whose offset lives in the phone state (the route's scroll key). */
function scrollBox(cls, id, children, o = {}) {
  const attrs = o.testTag ? tag(cls, o.testTag, { scroll: true }) : A(cls, { id, scroll: true });
  return html`<div class="body scroll" data-scroll-key=${scrollKey() + (o.suffix || '')} ...${attrs}>
    <div class="body-inner">${children}</div></div>`;
}
/** A text field bound to ui.fields[field]; ``testTag`` for Compose fields (no package), ``id`` for
 * View ones. ``text`` is what the node reports when empty (a View EditText its hint, SDK 26+). */
function field(fieldName, { id, testTag, hint, emptyText = '', placeholder, onSubmit, cls = 'android.widget.EditText' }) {
  const u = ui();
  const value = String(u.fields[fieldName] ?? '');
  const focus = () => { if (ui().focus !== fieldName) update((s) => { s.ui.focus = fieldName; s.ui.keyboard = true; }); };
  window.S2R.submitters[fieldName] = onSubmit || null;
  const o = { id, text: value || emptyText, hint, click: true, long: true, edit: true };
  return html`<div class="field gm-field" style="border:0;margin:0;background:transparent" ...${testTag ? tag(cls, testTag, o) : A(cls, o)} onClick=${focus}>
    <input class="input" data-field=${fieldName} value=${value} autocomplete="off" autocapitalize="off" spellcheck=${false}
      onInput=${(e) => { window.S2R.state.ui.fields[fieldName] = e.target.value; rerender(); }} onFocus=${focus}
      onKeyDown=${(e) => { if (e.key === 'Enter') { e.preventDefault(); update((s) => { if (onSubmit) onSubmit(); else { s.ui.keyboard = false; s.ui.focus = null; } }); } }} />
    ${placeholder && !value ? html`<div class="gm-ph" ...${A('android.widget.TextView', { text: placeholder })}>${placeholder}</div>` : null}</div>`;
}
/** A popup menu: the rows are clickable layouts around a TextView with the app's id `title`
 * (unpinned: "More options" → TextView com.google.android.apps.messaging:id/title "Mark as unread"). */
function popupMenu(items) {
  return html`<div class="gm-menu-scrim" onClick=${(e) => { if (e.target === e.currentTarget) update(() => { ui().dialog = null; }); }}>
    <div class="gm-menu" ...${A('android.widget.ListView', {})}>${items.map(([label, fn]) => html`<div
        ...${A('android.widget.LinearLayout', { click: true })} onClick=${(e) => { e.stopPropagation(); update(() => { ui().dialog = null; fn(); }); }}>
      <span ...${A('android.widget.TextView', { id: 'title', text: label })}>${label}</span></div>`)}</div></div>`;
}
/** android.app.AlertDialog: title, negative (button2) left of positive (button1). */
function alertDialog({ title, positive, negative }) {
  const btn = (b, n) => html`<div class="btn" ...${A('android.widget.Button', { id: `android:id/button${n}`, text: b.label, click: true })}
      ...${pressHandlers(b.onClick)}>${b.label}</div>`;
  return html`<div class="scrim" onClick=${(e) => { if (e.target === e.currentTarget) update(() => { ui().dialog = null; }); }}>
    <div class="dialog" ...${A('android.widget.FrameLayout', { id: 'android:id/parentPanel' })}>
      <div class="dialog-title" ...${A('android.widget.TextView', { id: 'android:id/alertTitle', text: title })}>${title}</div>
      <div class="dialog-buttons" ...${A('android.widget.LinearLayout', { id: 'android:id/buttonPanel' })}>${btn(negative, 2)}${btn(positive, 1)}</div>
    </div></div>`;
}
/** KK's window: the View containers ConversationListActivity draws the list and a thread in.
 * Each screen's root is keyed: Preact would otherwise reuse the old screen's nodes for the new one,
 * and the click that changed screens would bubble on into a reused node's new handler (the FAB's
 * tap reaching the picker's Back). */
function frame(pane, body, key) {
  const vg = (id, children, style = '') => html`<div style=${'flex:1;display:flex;flex-direction:column;min-height:0;position:relative;' + style}
      ...${A('android.view.ViewGroup', { id })}>${children}</div>`;
  return html`<div class="screen" key=${key}>${vg('conversation_and_compose_container_full_view', pane === 'list'
    ? vg('conversation_list_root_container', vg('home_fragment_container', body))
    : vg('conversation_root_container', vg('fragment_container', body)))}</div>`;
}

// --- time strings: KK's "Mon 12:37 pm" in bubble descriptions and separators ------------------------
const SHORT_DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const SHORT_MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
function stamp(iso) {
  if (!iso) return '';
  const d = parse(iso), n = now();
  const hm = fmtTime(d.getUTCHours(), d.getUTCMinutes()).replace(/ (AM|PM)$/, (m, ap) => ` ${ap.toLowerCase()}`);
  const diff = dayNum(n) - dayNum(d);
  if (diff <= 0) return hm;
  if (diff < 7) return `${SHORT_DAYS[d.getUTCDay()]} ${hm}`;
  return `${SHORT_MONTHS[d.getUTCMonth()]} ${d.getUTCDate()} ${hm}`;
}

// --- the conversation list ----------------------------------------------------------------------
function startChat() { go('newchat'); const u = ui(); u.fields.to = ''; u.focus = 'to'; u.keyboard = true; }

/** One conversation as a swipeableContainer row (unpinned evidence above). */
function row(th, { sel = [], selecting = false, toggle } = {}) {
  const unread = th.unread > 0 && !th.draft;
  const isSel = sel.includes(th.key);
  const m = th.last;
  const snippet = th.draft ? th.draft.body : m ? m.body : '';
  const when = th.draft ? 'Draft' : m ? listTime(m.time) : '';
  const onClick = () => { if (selecting) toggle(th.key); else openConversation(th.address); };
  return html`<div class=${'row gm-row' + (unread ? ' unread' : '') + (isSel ? ' sel' : '')}
      ...${A('android.view.ViewGroup', { id: 'swipeableContainer', click: true, long: true, selected: isSel })}
      ...${pressHandlers(onClick, toggle ? () => toggle(th.key) : undefined)}>
    <div ...${A('android.widget.ImageView', { text: '' })}>${isSel ? html`<div class="msg-avatar" style="background:var(--primary)">✓</div>` : avatar(th.name)}</div>
    <div class="gm-text">${tv(th.name, 'conversation_name', 'gm-name')}${tv(snippet, 'conversation_snippet', 'gm-snip')}</div>
    ${tv(when, 'conversation_timestamp', 'gm-time' + (th.draft ? ' draft' : ''))}
    ${unread ? html`<div class="gm-badge" ...${A('android.view.View', { id: 'unread_badge_view_with_message_count_stub', text: '' })}></div>` : null}
  </div>`;
}

function list() {
  const { ths, sel, selecting, toggle } = listSelection();
  const rows = ths.map((th) => row(th, { sel, selecting, toggle }));
  const body = ths.length ? scrollBox('androidx.recyclerview.widget.RecyclerView', undefined, rows)
    : html`<div class="empty" ...${A('android.widget.TextView', { text: 'No conversations' })}>No conversations</div>`;
  // the list is View-based: selection mode's bar is an action bar of described, clickable items
  const item = (cls, desc, icon, fn) => html`<div class="gm-ib" ...${A(cls, { desc, click: true, text: '' })} ...${pressHandlers(fn)}>${icon}</div>`;
  const bar = selecting
    ? html`<div class="gm-bar appbar" ...${A('android.view.ViewGroup', {})}>
        ${item('android.widget.ImageButton', 'Navigate up', '✕', () => { ui().msel = []; })}
        ${tv(String(sel.length), undefined, 'title')}
        ${item('android.widget.Button', 'Archive', '🗃', () => toast('Archive is not available'))}
        ${item('android.widget.Button', 'Delete', '🗑', () => { ui().dialog = { kind: 'delete', keys: sel }; })}
        ${item('android.widget.ImageView', 'More options', '⋮', () => { ui().dialog = { kind: 'menu', menu: 'sel' }; })}</div>`
    : html`<div class="gm-bar appbar" ...${A('android.view.ViewGroup', {})}>
        ${tv('Messages', undefined, 'title')}
        <div class="gm-ib" ...${A('android.widget.ImageButton', { id: 'action_zero_state_search', desc: 'Search', click: true, text: '' })}
          ...${pressHandlers(() => { go('search'); const v = ui(); v.fields.gm_search = ''; v.focus = 'gm_search'; v.keyboard = true; })}>🔍</div></div>`;
  const fab = selecting ? null : html`<div class="gm-efab" ...${A('android.widget.Button', { id: 'start_chat_fab', desc: 'Start chat', text: 'Start chat', click: true })}
      ...${pressHandlers(startChat)}>💬 Start chat</div>`;
  return frame('list', html`${bar}${body}${fab}`, 'gm-list');
}

// --- search (the zero-state search: unpinned evidence above) ---------------------------------------
function search() {
  const q = String(ui().fields.gm_search || '').trim();
  const ql = q.toLowerCase();
  const qd = digits(q);
  const hits = q ? threads().filter((th) => th.name.toLowerCase().includes(ql) || (qd.length >= 3 && digits(th.address).includes(qd))
    || th.bubbles.some((m) => m.body.toLowerCase().includes(ql))) : [];
  const results = q ? html`
    ${hits.length ? tv('Conversations', 'zero_state_search_chat_header', 'section') : html`<div class="empty" ...${A('android.widget.TextView', { text: 'No results' })}>No results</div>`}
    ${hits.length ? html`<div ...${A('androidx.recyclerview.widget.RecyclerView', { id: 'zero_state_search_chat_results' })}>${hits.map((th) => row(th))}</div>` : null}` : null;
  return frame('list', html`
    <div class="gm-bar appbar" ...${A('android.view.ViewGroup', {})}>
      ${iconButton('Back', '←', () => back())}
      ${field('gm_search', { id: 'zero_state_search_box_auto_complete', hint: 'Search', emptyText: 'Search' })}
      ${q ? iconButton('Clear', '✕', () => { const u = ui(); u.fields.gm_search = ''; u.focus = 'gm_search'; u.keyboard = true; }) : null}
    </div>
    ${scrollBox('androidx.recyclerview.widget.RecyclerView', 'zero_state_search_results', results)}${kbSpacer()}`, 'gm-search');
}

// --- a conversation (KK) --------------------------------------------------------------------------
function conversation({ address }) {
  const u = ui();
  const th = threadOf(address);
  const name = nameFor(address);
  const bubbles = th ? th.bubbles : [];
  const items = [];
  let lastDay = null;
  bubbles.forEach((m, i) => {
    const day = dayNum(parse(m.time));
    if (m.time && day !== lastDay) {
      lastDay = day;
      items.push(html`<div class="gm-sep" ...${tag('android.view.View', 'text_separator')}><div ...${A('android.view.View', {})}>
        <span ...${tag('android.widget.TextView', 'message_text', { text: stamp(m.time) })}>${stamp(m.time)}</span></div></div>`);
    }
    const incoming = m.box === 'inbox';
    const newest = i === bubbles.length - 1;
    // KK: the newest sent bubble's status joins its description (", , Delivered"); the status
    // line under it is an empty View in the dump
    const status = m.box === 'failed' ? ', , Not sent' : m.box === 'outbox' ? ', , Sending' : newest && !incoming ? ', , Delivered' : '';
    const desc = `${incoming ? name : 'You'} said  ${m.body} ${stamp(m.time)} .${status}`;
    items.push(html`<div class=${'gm-item ' + (incoming ? 'in' : 'out')} ...${A('android.view.View', { click: true })}>
      <div class="gm-bubble" ...${A('android.view.View', { click: true, long: true })}><div ...${A('android.view.View', {})}><div ...${A('android.view.View', {})}>
        <span ...${tag('android.widget.TextView', 'message_text', { text: m.body, desc })}>${m.body}</span></div></div></div>
      ${newest && !incoming ? html`<div class="msg-stamp" ...${A('android.view.View', { text: '' })}>${status.slice(4)}</div>` : null}
    </div>`);
  });
  const isNumber = !!digits(address);
  const top = html`<div class="gm-bar appbar" ...${tag('android.view.View', 'top_app_bar')}>
    ${iconButton('Back', '←', () => back())}
    <div style="flex:1;min-width:0;display:flex" ...${A('android.view.View', {})}>
      <div style="display:flex;align-items:center;gap:10px;min-width:0" ...${tag('android.view.View', 'top_app_bar_title_row', { click: true })}
          ...${pressHandlers(() => { const c = contactFor(address); if (c && window.S2R.apps.contacts) openApp('contacts', { s: 'details', p: { id: c.id } }); })}>
        <div ...${tag('android.view.View', 'monogram_test_tag')}><div ...${tag('android.view.View', 'GlideMonogram', { text: '' })}>${avatar(name)}</div></div>
        ${tv(name, undefined, 'gm-name')}</div></div>
    ${isNumber ? iconButton('Call', '📞', () => openApp('phone', { s: 'incall', p: { number: address, name: contactFor(address) ? name : '', ret: 'messages' } })) : null}
    ${iconButton('More', '⋮', () => { ui().dialog = { kind: 'menu', menu: 'conv', address }; })}</div>`;
  const text = String(u.fields.compose ?? '');
  const compose = html`<div class="gm-compose" ...${A('android.view.View', {})}>
    <div class="gm-pill" ...${A('android.view.View', {})}>
      ${iconButton('Show attach content screen', '＋', () => toast('No attachments available'), 'ComposeRowIcon:Shortcuts')}
      ${field('compose', { id: 'compose_message_text', hint: 'Text message', emptyText: 'Text message' })}
      ${iconButton('Show attach emoji and stickers screen', '☺', () => toast('No stickers available'), 'ComposeRowIcon:Emotive')}
    </div>
    <div ...${A('android.view.View', {})}>${iconButton('Send message', '➤', () => { if (text.trim()) send(address); }, 'Compose:Draft:Send')}</div>
  </div>`;
  return frame('conversation', html`<div style="flex:1;display:flex;flex-direction:column;min-height:0" ...${A('androidx.compose.ui.platform.ComposeView', {})}>
    <div style="flex:1;display:flex;flex-direction:column;min-height:0" ...${tag('android.view.View', 'ConversationScreenUi')}>
      ${top}
      ${scrollBox('android.view.View', undefined, html`<div class="gm-thread">${items}</div>`, { testTag: 'message_list' })}
      ${compose}${kbSpacer()}
    </div></div>`, 'gm-conversation');
}

// --- starting a chat: the Compose contact picker (G-SS, G-SZ, G-HS) ----------------------------------
function newchat() {
  const u = ui();
  const q = String(u.fields.to || '');
  const open = (addr) => openConversation(addr, 'replace');
  const all = [...(window.S2R.state.world.contacts || [])].sort((a, b) => a.name.localeCompare(b.name));
  const entries = q.trim() ? pickerMatches(q).map((e) => ({ c: e.c, p: e.p }))
    : all.flatMap((c) => (c.phones || []).map((p) => ({ c, p })));
  const commit = () => {
    const v = String(ui().fields.to || '').trim();
    if (!v) return;
    if (isNumberLike(v)) open(v);
    else if (entries.length) open(entries[0].p.number);
    else toast('No matching contacts');
  };
  const item = (name, detail, onClick) => html`<div class="row gm-row" ...${A('android.view.View', { click: true })} ...${pressHandlers(onClick)}>
    <div ...${tag('android.view.View', 'GlideMonogram', { text: '' })}>${avatar(name)}</div>
    <div class="gm-text">${tv(name, undefined, 'gm-name')}${detail ? tv(detail, undefined, 'gm-snip') : null}</div></div>`;
  const rows = [
    q.trim() ? null : html`<div class="row gm-row" ...${A('android.view.View', { click: true })} ...${pressHandlers(() => toast('Group chats are not available'))}>
      <div style="font-size:22px;width:40px;text-align:center">👥</div>${tv('Create group', undefined, 'gm-name')}</div>`,
    ...entries.map((e) => item(e.c.name, e.p.number, () => open(e.p.number))),
  ];
  return html`<div class="screen" key="gm-newchat" ...${A('androidx.compose.ui.platform.ComposeView', {})}>
    <div class="gm-bar appbar" ...${A('android.view.View', {})}>
      ${iconButton('Back', '←', () => back())}${tv('New conversation', undefined, 'title')}</div>
    <div style="display:flex;align-items:center;gap:8px;padding:0 16px" ...${A('android.view.View', {})}>
      ${tv('To', undefined, 'gm-snip')}
      ${field('to', { testTag: 'ContactSearchField', placeholder: 'Type names, phone numbers, or emails', onSubmit: commit })}</div>
    ${scrollBox('android.view.View', undefined, rows, { testTag: 'ContactSuggestionList' })}${kbSpacer()}</div>`;
}

// --- dialogs ----------------------------------------------------------------------------------------
const dialogs = {
  // the items are the base app's (apps/messages_core.js); here the selection menu has no "Select all" and
  // the conversation menu lists Details first
  menu: (d) => {
    if (d.menu === 'sel') return popupMenu([markSelectedItem(), BLOCK_ITEM]);
    if (d.menu === 'conv') {
      const items = convItems(d.address);
      return popupMenu([items.details, items.delete]);
    }
    return null;
  },
  delete: (d) => {
    const n = d.keys.length;
    return alertDialog({
      title: `Delete ${n} conversation${n === 1 ? '' : 's'}?`,
      negative: { label: 'Cancel', onClick: () => { ui().dialog = null; } },
      positive: { label: 'Delete', onClick: () => deleteConfirmed(d) },
    });
  },
};

registerFlavor('google', 'messages', {
  pkg: PKG,
  screens: { list, main: list, search, conversation, newchat },
  dialogs: Object.fromEntries(Object.entries(dialogs).map(([k, fn]) => [k, (d) => kbWrap(fn(d))])),
  activity: () => ACTIVITY,
});
