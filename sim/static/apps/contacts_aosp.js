// Contacts, flavor `aosp`: AOSP Contacts' screens — the people list with search and selection, a
// contact's card (QuickContactActivity), the editor (ContactEditorActivity) and its dialogs, each
// citing the layouts it follows. The world, the form and saving are contacts_core.js's; contacts.js's
// registration hands every screen and dialog over to these on the aosp flavor.
import { html, A, pressHandlers, scrollKey, rerender, world, ui, back, update, toast } from '../os.js';
import { fold, digitsOf, all, byId, labelText, letterOf, sortedContacts, prefixOfWords, matchContact,
  Avatar, press, hold, closeKeyboard, openDetails, startCreate, startEdit, startSearch, openMessages,
  callNumber, removeItem, saveForm, aospDirty, ensureEmptyEditors } from './contacts_core.js';

// AOSP Contacts exactly, after LineageOS/android_packages_apps_Contacts
// @ 41570c7a7ae33052338af7730c7c64f871dc391d (AOSP-CT below). Resource ids, classes, content
// descriptions and strings are the app's; every screen cites the files it follows. Like the AOSP
// app: no Call/Text/Email buttons on the card (each entry is the action), search snippets only
// for what matched besides the name, the editor's Organization behind "More fields" when empty, a
// Spinner for a phone's type, an empty editor added below the last filled one.
// res/values/strings.xml
const CS = {
  contacts: 'Contacts',
  drawer: 'Open navigation drawer',
  search: 'Search contacts',
  create: 'Create new contact',
  favorites: 'Favorites',
  quick: (n) => `Quick contact for ${n}`,
  stopSearch: 'stop searching',
  clear: 'Clear search',
  closeSel: 'close',
  up: 'Navigate up',
  more: 'More options',
  addStar: 'Add to favorites',
  removeStar: 'Remove from favorites',
  edit: 'Edit',
  deleteQ: 'Delete this contact?',
  deleteManyQ: 'Delete selected contacts?',
  delete: 'Delete',
  cancel: 'Cancel',
  deleted: (n) => `${n} deleted`,
  deletedMany: 'Contacts deleted',
  org: 'Organization',
  about: (given) => (given ? `About ${given}` : 'About'),
  addPhone: 'Add phone number',
  addEmail: 'Add email',
  newTitle: 'Create new contact',
  editTitle: 'Edit contact',
  save: 'Save',
  saved: (n) => `${n} saved`,
  discardQ: 'Discard changes?',
  discard: 'Discard',
  moreFields: 'More fields',
  savingTo: 'Saving to',
  device: 'Device',
  name: 'Name',
  minus: 'delete',
  addPhoto: 'Add contact photo',
  changePhoto: 'Change contact photo',
  missingApp: 'No app found to handle this action.',
};
// BaseAccountType.addDataKindPhone / addDataKindEmail: the types a Spinner offers, in order
const PHONE_TYPES = [['mobile', 'Mobile'], ['home', 'Home'], ['work', 'Work'], ['fax_work', 'Work Fax'], ['fax_home', 'Home Fax'],
  ['pager', 'Pager'], ['other', 'Other'], ['callback', 'Callback'], ['car', 'Car'], ['company_main', 'Company Main'],
  ['isdn', 'ISDN'], ['main', 'Main'], ['other_fax', 'Other Fax'], ['radio', 'Radio'], ['telex', 'Telex'], ['tty_tdd', 'TTY TDD'],
  ['work_mobile', 'Work Mobile'], ['work_pager', 'Work Pager'], ['assistant', 'Assistant'], ['mms', 'MMS']];
const typeLabel = (k) => (PHONE_TYPES.find(([key]) => key === k) || [k, labelText(k)])[1];

function av(cls, o, children, style = '', klass = '') {
  return html`<div class=${klass} style=${style} ...${A(cls, o)}>${children}</div>`;
}
function tv(text, id, o = {}) {
  return html`<div class=${o.cls || ''} style=${o.style || ''} ...${A('android.widget.TextView', { id, text, desc: o.desc })}>${text}</div>`;
}
export function scroller(cls, id, children) {
  return html`<div class="body scroll" data-scroll-key=${scrollKey()} ...${A(cls, { id, scroll: true })}><div class="body-inner">${children}</div></div>`;
}
/** A Toolbar: the navigation button, a title or custom content, menu items as Buttons, the overflow
 * button (appcompat's is an ImageView in a LinearLayoutCompat, the framework's an ImageButton). */
function toolbar({ nav, title, custom, actions = [], overflow, framework = false, id = 'toolbar' }) {
  return html`<div class="appbar" ...${A('android.view.ViewGroup', { id })}>
    ${nav ? html`<div class="icon-btn" ...${A('android.widget.ImageButton', { desc: nav.desc, click: true, text: '' })} ...${press(nav.onClick)}>${nav.icon || '←'}</div>` : null}
    ${title !== undefined ? html`<div class="title" ...${A('android.widget.TextView', { text: title })}>${title}</div>` : null}
    ${custom || (title === undefined ? html`<div style="flex:1"></div>` : null)}
    ${actions.length || overflow ? html`<div style="display:flex;align-items:center"
        ...${A(framework ? 'android.widget.LinearLayout' : 'androidx.appcompat.widget.LinearLayoutCompat', {})}>
      ${actions.map((a) => a.node || html`<div class="icon-btn" ...${A('android.widget.Button', { id: a.id, desc: a.desc, click: true, long: true, text: '' })}
          ...${press(a.onClick)}>${a.icon}</div>`)}
      ${overflow ? html`<div class="icon-btn" ...${A(framework ? 'android.widget.ImageButton' : 'android.widget.ImageView', { desc: CS.more, click: true, long: true, text: '' })}
          ...${press(overflow)}>⋮</div>` : null}</div>` : null}
  </div>`;
}
/** An AlertDialog with a message (ContactDeletionInteraction, CancelEditDialogFragment): the
 * negative button (button2) left of the positive one (button1). */
function alertDialog({ title, message, positive, negative }) {
  const btn = (b, n) => html`<div class="btn" ...${A('android.widget.Button', { id: `android:id/button${n}`, text: b.label, click: true })}
      ...${press(b.onClick)}>${b.label}</div>`;
  return html`<div class="scrim" onClick=${(e) => { if (e.target === e.currentTarget) update(() => { ui().dialog = null; }); }}>
    <div class="dialog" ...${A('android.widget.FrameLayout', { id: 'android:id/parentPanel' })}>
      ${title ? html`<div class="dialog-title" ...${A('android.widget.TextView', { id: 'android:id/alertTitle', text: title })}>${title}</div>` : null}
      ${message ? html`<div class="dialog-body" style="font-size:16px;padding:4px 0 8px" ...${A('android.widget.TextView', { id: 'android:id/message', text: message })}>${message}</div>` : null}
      <div class="dialog-buttons" ...${A('android.widget.LinearLayout', { id: 'android:id/buttonPanel' })}>
        ${negative ? btn(negative, 2) : null}${btn(positive, 1)}</div></div></div>`;
}
/** A popup menu (framework or appcompat ListMenuItemView > title). */
function popupMenu(items, titleId) {
  return html`<div class="scrim" style="background:transparent;align-items:flex-start;justify-content:flex-end"
      onClick=${(e) => { if (e.target === e.currentTarget) update(() => { ui().dialog = null; }); }}>
    <div style="margin:8px 8px 0 0;background:var(--surface);border-radius:6px;min-width:200px;box-shadow:0 3px 10px rgba(0,0,0,.3);padding:6px 0"
        ...${A('android.widget.ListView', {})}>
      ${items.map(([label, fn]) => html`<div style="padding:14px 20px;font-size:calc(15px * var(--fs))" ...${A('android.widget.LinearLayout', { click: true })}
          ...${press(() => { ui().dialog = null; fn(); })}>
        <span ...${A('android.widget.TextView', { id: titleId, text: label })}>${label}</span></div>`)}
    </div></div>`;
}
/** An EditText made in code (TextFieldsEditorView): no resource id, the field's title as its hint,
 * and, as SDK 26+ reports an empty field, the hint as its text. */
function editText(field, hint, { id, cls = 'android.widget.EditText', style = '', onSubmit } = {}) {
  const u = ui();
  const value = String(u.fields[field] ?? '');
  const focus = () => { if (ui().focus !== field) update((s) => { s.ui.focus = field; s.ui.keyboard = true; }); };
  window.S2R.submitters[field] = onSubmit || null;
  return html`<div class="field" style=${'border-width:0 0 1px 0;border-radius:0;margin:4px 0;padding:6px 0;' + style}
      ...${A(cls, { id, text: value || hint, hint, click: true, long: true, edit: true })} onClick=${focus}>
    <input class="input" data-field=${field} value=${value} placeholder=${hint} autocomplete="off" autocapitalize="off" spellcheck=${false}
      onInput=${(e) => { window.S2R.state.ui.fields[field] = e.target.value; rerender(); }} onFocus=${focus}
      onKeyDown=${(e) => { if (e.key === 'Enter') { e.preventDefault(); update((s) => { if (onSubmit) onSubmit(); else { s.ui.keyboard = false; s.ui.focus = null; } }); } }} /></div>`;
}

// --- the people list, search and selection -------------------------------------------------
// PeopleActivity: res/layout/contacts_drawer_activity.xml (fragment_container > people_activity_toolbar.xml
// toolbar_parent > toolbar_frame > Toolbar toolbar; content_frame) + people_activity.xml (root,
// contacts_list_container, floating_action_button.xml: floating_action_button described
// @string/action_menu_add_new_contact_button "Create new contact", hidden while searching or selecting);
// the toolbar: the drawer toggle (@string/navigation_drawer_open), the title @string/contactsList,
// res/menu/people_options.xml menu_search (@string/hint_findContacts) — ActionBarAdapter.java;
// res/layout/contact_list_content.xml (pinned_header_list_layout > contact_list > swipe_refresh >
// @android:id/list); list/ContactListItemView.java (a row per contact: the section letter as an id-less
// TextView described by it, a star ImageView described "Favorites" on the first favorite, a
// QuickContactBadge "Quick contact for <name>", the name cliv_name_textview; in search mode no section
// headers and an id-less snippet TextView: DefaultContactListAdapter.bindView); favorites first
// (FavoritesAndContactsLoader), then everyone A–Z. Search: res/layout/search_bar_expanded.xml
// (search_back_button "stop searching", AutoCompleteTextView search_view hint "Search contacts",
// search_close_button "Clear search" while there is a query). Selection (long press):
// res/layout/selection_bar.xml (selection_close "close", selection_count_text), menu_share,
// menu_delete; ContactMultiDeletionInteraction.java's prompt.
function aospRow(c, { header, sel, snippet } = {}) {
  const selecting = !!sel;
  const on = selecting && sel.includes(c.id);
  const toggle = () => { const u = ui(); const next = on ? sel.filter((x) => x !== c.id) : [...sel, c.id]; u.ct_sel = next.length ? next : null; };
  return html`<div class="row" style=${'gap:12px;align-items:center;' + (on ? 'background:var(--primary-c)' : '')}
      ...${A('android.view.ViewGroup', { click: true, long: true })}
      ...${hold(selecting ? toggle : () => openDetails(c.id), selecting ? toggle : () => { ui().ct_sel = [c.id]; })}>
    ${header === 'star' ? html`<div style="flex:0 0 32px;align-self:flex-start;padding-top:2px;color:#e91e63;font-size:20px;text-align:center"
        ...${A('android.widget.ImageView', { desc: CS.favorites, text: '' })}>★</div>`
      : header ? html`<div style="flex:0 0 32px;align-self:flex-start;padding-top:2px;color:var(--primary);font-size:18px;text-align:center"
        ...${A('android.widget.TextView', { text: header, desc: header })}>${header}</div>`
      : header === '' ? html`<div style="flex:0 0 32px"></div>` : null}
    ${selecting ? html`<div ...${A('android.widget.CheckBox', { checkable: true, checked: on, click: true, text: '' })}><span class=${'box' + (on ? ' on' : '')}>${on ? '✓' : ''}</span></div>` : null}
    <div ...${A('android.widget.QuickContactBadge', { desc: CS.quick(c.name), click: !selecting, text: '' })}
      ...${selecting ? {} : press(() => openDetails(c.id))}>${Avatar(c.name, 40)}</div>
    <div style="flex:1;min-width:0">
      ${tv(c.name, 'cliv_name_textview', { cls: 'row-title' })}
      ${snippet ? tv(snippet, undefined, { cls: 'row-sub', desc: /^[+\d][\d\s().\-]*$/.test(snippet) ? snippet : undefined }) : null}
    </div></div>`;
}
function peopleShell(bar, body, fab) {
  return html`<div class="screen"><div style="flex:1;display:flex;flex-direction:column;min-height:0" ...${A('android.widget.LinearLayout', { id: 'fragment_container' })}>
    <div ...${A('android.widget.LinearLayout', { id: 'toolbar_parent' })}><div ...${A('android.widget.FrameLayout', { id: 'toolbar_frame' })}>${bar}</div></div>
    <div style="flex:1;display:flex;flex-direction:column;min-height:0;position:relative" ...${A('android.widget.FrameLayout', { id: 'content_frame' })}>
      <div style="flex:1;display:flex;flex-direction:column;min-height:0" ...${A('android.view.ViewGroup', { id: 'root' })}>
        <div style="flex:1;display:flex;flex-direction:column;min-height:0" ...${A('android.widget.FrameLayout', { id: 'contacts_list_container' })}>
          <div style="flex:1;display:flex;flex-direction:column;min-height:0" ...${A('android.widget.LinearLayout', { id: 'pinned_header_list_layout' })}>
            <div style="flex:1;display:flex;flex-direction:column;min-height:0" ...${A('android.widget.FrameLayout', { id: 'contact_list' })}>
              <div style="flex:1;display:flex;flex-direction:column;min-height:0" ...${A('android.view.ViewGroup', { id: 'swipe_refresh' })}>${body}</div>
            </div></div></div>
        ${fab ? html`<div class="fab" style="border-radius:28px" ...${A('android.widget.FrameLayout', { id: 'floating_action_button_container' })}>
          <div style="width:100%;height:100%;display:flex;align-items:center;justify-content:center"
            ...${A('android.widget.ImageButton', { id: 'floating_action_button', desc: CS.create, click: true, text: '' })} ...${press(() => startCreate())}>+</div></div>` : null}
      </div></div></div></div>`;
}
/** The stock apps' list (the google flavor's shares it): the ListView android:id/list of the
 *  starred first, the first of them under the star header, then everyone under a letter header
 *  where the letter changes, each drawn by `row(contact, { header, sel })`; `empty`'s text when
 *  there is no one. Also the selection (the selected ids, null outside selection mode). */
export function listBody(row, empty) {
  const u = ui();
  const sel = u.ct_sel && u.ct_sel.length ? u.ct_sel : null;
  const list = sortedContacts();
  const rows = [];
  list.filter((c) => c.starred).forEach((c, i) => rows.push(row(c, { header: i === 0 ? 'star' : '', sel })));
  let last = null;
  for (const c of list) {
    const L = letterOf(c.name);
    rows.push(row(c, { header: L !== last ? L : '', sel }));
    last = L;
  }
  const body = list.length ? scroller('android.widget.ListView', 'android:id/list', rows)
    : html`<div class="empty" ...${A('android.widget.TextView', { text: empty })}>${empty}</div>`;
  return { sel, body };
}
export function aospMain() {
  const u = ui();
  const { sel, body } = listBody(aospRow, 'Your contacts list is empty');
  if (sel) {
    const bar = html`<div style="position:relative;height:56px;display:flex;align-items:center" ...${A('android.widget.FrameLayout', { id: 'selection_bar' })}>
      <div class="icon-btn" ...${A('android.widget.ImageButton', { id: 'selection_close', desc: CS.closeSel, click: true, text: '' })} ...${press(() => { ui().ct_sel = null; })}>✕</div>
      <div style="flex:1;padding-left:24px;font-size:20px" ...${A('android.widget.TextView', { id: 'selection_count_text', text: String(sel.length) })}>${sel.length}</div>
      ${toolbar({ actions: [
        { id: 'menu_share', desc: 'Share', icon: '⇪', onClick: () => toast(CS.missingApp) },
        { id: 'menu_delete', desc: CS.delete, icon: '🗑', onClick: () => { u.dialog = { kind: 'delete', ids: [...sel] }; } },
        ...(sel.length > 1 ? [{ id: 'menu_join', desc: 'Link', icon: '🔗', onClick: () => toast('Linking is not available') }] : [])] })}
    </div>`;
    return peopleShell(bar, body, false);
  }
  const bar = toolbar({ nav: { desc: CS.drawer, icon: '☰', onClick: () => toast('No other accounts') }, title: CS.contacts,
    actions: [{ id: 'menu_search', desc: CS.search, icon: '🔍', onClick: startSearch }] });
  return peopleShell(bar, body, true);
}

/** What a search result shows under the name (the provider's snippet): nothing when the name
 * matched, else the company, e-mail or number that did. */
export function aospSnippet(c, q) {
  const fq = fold(q).trim().replace(/\s+/g, ' ');
  if (!fq || prefixOfWords(c.name, fq)) return '';
  if (c.company && prefixOfWords(c.company, fq)) return c.company;
  const email = (c.emails || []).find((e) => fold(e).startsWith(fq));
  if (email) return email;
  const dq = digitsOf(q);
  const p = dq ? (c.phones || []).find((x) => digitsOf(x.number).includes(dq)) : null;
  return p ? p.number : '';
}
export function aospSearch() {
  const u = ui();
  const q = u.fields.ct_query || '';
  const hits = sortedContacts().filter((c) => matchContact(c, q, { company: true }));
  const box = html`<div style="flex:1;display:flex;align-items:center;min-width:0" ...${A('android.widget.LinearLayout', { id: 'search_box_expanded' })}>
    <div class="icon-btn" ...${A('android.widget.ImageButton', { id: 'search_back_button', desc: CS.stopSearch, click: true, text: '' })} ...${press(() => back())}>←</div>
    <div style="flex:1;min-width:0">${editText('ct_query', CS.search, { id: 'search_view', cls: 'android.widget.AutoCompleteTextView', style: 'border:0' })}</div>
    ${q ? html`<div class="icon-btn" ...${A('android.widget.ImageView', { id: 'search_close_button', desc: CS.clear, click: true, text: '' })}
        ...${press(() => { ui().fields.ct_query = ''; ui().focus = 'ct_query'; ui().keyboard = true; })}>✕</div>` : null}
  </div>`;
  const body = scroller('android.widget.ListView', 'android:id/list', hits.map((c) => aospRow(c, { snippet: aospSnippet(c, q) })));
  return peopleShell(toolbar({ custom: box }), body, false);
}

// --- a contact's card: QuickContactActivity ----------------------------------------------------
// res/layout/quickcontact_activity.xml (multiscroller > toolbar_parent: quickcontact_header.xml photo,
// photo_touch_intercept_overlay, a framework Toolbar toolbar; quickcontact_content.xml content_scroller >
// card_container > communication_card / no_contact_data_card / about_card, ExpandingEntryCardView with
// expanding_entry_card_view.xml container > title, content_area_linear_layout);
// quickcontact_title_and_phoneticname.xml (large_title); expanding_entry_card_item.xml (EntryView, a
// RelativeLayout: icon, header, text, icon_alternate); QuickContactActivity.java:1556-1658 (a phone:
// header = the number, text = its type, description "Call <type> <number>", alternate "Text <number>";
// an e-mail: "Email <type> <address>"; the organization: header "Organization", text = the company,
// in the about card titled "About <first name>"; no phone and no e-mail: "Add phone number" / "Add
// email" entries that open the editor); res/menu/quickcontact.xml + onPrepareOptionsMenu (menu_star
// @string/menu_addStar / menu_removeStar, menu_edit @string/menu_editContact; under More options:
// Link, Delete, Share, Create shortcut, Set ringtone).
function entryView({ desc, header, text, click, alternate, icon }) {
  return html`<div class="row" style="gap:16px" ...${A('android.widget.RelativeLayout', { desc, click: !!click, long: true })} ...${click ? press(click) : {}}>
    <div class="row-icon" ...${A('android.widget.ImageView', { id: 'icon', text: '' })}>${icon}</div>
    <div style="flex:1;min-width:0">${tv(header, 'header', { cls: 'row-title' })}${text ? tv(text, 'text', { cls: 'row-sub' }) : null}</div>
    ${alternate ? html`<div class="icon-btn" ...${A('android.widget.ImageView', { id: 'icon_alternate', desc: alternate.desc, click: true, text: '' })}
        ...${press(alternate.onClick)}>💬</div>` : null}
  </div>`;
}
function card(id, title, entries) {
  return html`<div style="background:var(--surface);border-radius:12px;margin:8px 12px" ...${A('android.widget.FrameLayout', { id })}>
    <div ...${A('android.widget.LinearLayout', { id: 'container' })}>
      ${title ? html`<div style="padding:12px 16px 0;font-weight:500" ...${A('android.widget.TextView', { id: 'title', text: title })}>${title}</div>` : null}
      <div ...${A('android.widget.LinearLayout', { id: 'content_area_linear_layout' })}>${entries}</div></div></div>`;
}
export function aospDetails({ id }) {
  const c = byId(id);
  const u = ui();
  if (!c) return html`<div class="screen">${toolbar({ nav: { desc: CS.up, onClick: () => back() }, framework: true })}</div>`;
  const phones = c.phones || [], emails = c.emails || [];
  const given = (c.name || '').trim().split(/\s+/).length > 1 ? c.name.trim().slice(0, c.name.trim().lastIndexOf(' ')) : c.name;
  const comm = [
    ...phones.map((p) => entryView({ icon: '📞', header: p.number, text: labelText(p.label),
      desc: `Call ${labelText(p.label)} ${p.number}`, click: () => callNumber(c, p.number),
      alternate: { desc: `Text ${p.number}`, onClick: () => openMessages(p.number) } })),
    ...emails.map((e) => entryView({ icon: '✉', header: e, text: 'Home', desc: `Email Home ${e}`, click: () => toast(CS.missingApp) })),
  ];
  const noData = [entryView({ icon: '📞', header: CS.addPhone, click: () => startEdit(c) }),
    entryView({ icon: '✉', header: CS.addEmail, click: () => startEdit(c) })];
  const about = c.company ? [entryView({ icon: '🏢', header: CS.org, text: c.company })] : [];
  const bar = toolbar({ nav: { desc: CS.up, onClick: () => back() }, framework: true,
    actions: [
      { id: 'menu_star', desc: c.starred ? CS.removeStar : CS.addStar, icon: c.starred ? '★' : '☆', onClick: () => { c.starred = !c.starred; } },
      { id: 'menu_edit', desc: CS.edit, icon: '✎', onClick: () => startEdit(c) }],
    overflow: () => { u.dialog = { kind: 'menu', where: 'details', id: c.id }; } });
  return html`<div class="screen"><div style="flex:1;display:flex;flex-direction:column;min-height:0" ...${A('android.widget.FrameLayout', { id: 'multiscroller' })}>
    <div style="position:relative;flex:0 0 200px;background:${'var(--primary-c)'}" ...${A('android.widget.FrameLayout', { id: 'toolbar_parent' })}>
      <div style="position:absolute;inset:0;display:flex;align-items:center;justify-content:center" ...${A('android.widget.ImageView', { id: 'photo', text: '' })}>${Avatar(c.name, 96)}</div>
      <div style="position:absolute;left:0;right:0;top:0">${bar}</div>
      <div style="position:absolute;left:16px;right:16px;bottom:10px" ...${A('android.widget.LinearLayout', { id: 'title_and_phonetic_name' })}>
        <div style="font-size:calc(26px * var(--fs));white-space:nowrap;overflow:hidden;text-overflow:ellipsis" ...${A('android.widget.TextView', { id: 'large_title', text: c.name })}>${c.name}</div></div>
    </div>
    ${scroller('android.widget.ScrollView', 'content_scroller', html`<div ...${A('android.widget.LinearLayout', { id: 'card_container' })}>
      ${comm.length ? card('communication_card', null, comm) : card('no_contact_data_card', null, noData)}
      ${about.length ? card('about_card', CS.about(given), about) : null}
    </div>`)}
  </div></div>`;
}

// --- the editor: ContactEditorActivity ---------------------------------------------------------
// res/layout/contact_editor_activity.xml (fragment_container > androidx Toolbar toolbar: the close
// button described @string/cancel_button_content_description "Cancel", the title
// @string/contact_editor_title_new_contact "Create new contact" / _existing_contact "Edit contact",
// res/menu/edit_contact.xml menu_save drawn by editor_save_button.xml: Button editor_menu_save_button
// "Save"; Link/Delete under More options when editing); contact_editor_fragment.xml
// (contact_editor_scroller > raw_contacts_editor_view: photo_editor_view.xml, editor_account_header.xml
// "Saving to" / "Device", contact_editor_fields.xml kind_section_views + more_fields "More fields");
// item_kind_section.xml (kind_icon, kind_editors), structured_name_editor_view.xml and
// text_fields_editor_view.xml (editors, the type Spinner spinner showing edit_simple_spinner_item.xml
// @android:id/text1, delete_button "delete"); TextFieldsEditorView.java:303-312 (EditTexts made in
// code: generated ids, the field's title as hint "First name", "Last name", "Company", "Title",
// "Phone", "Email"); RawContactEditorView.java (sections Name, Organization, Phone, Email in that
// order; Phone and Email always shown, others hidden while empty until "More fields";
// KindSectionView.setShowOneEmptyEditor: an empty editor below the last filled one);
// ContactEditorFragment.java (Save with nothing to save closes; "<name> saved"; leaving with
// changes asks CancelEditDialogFragment "Discard changes?" Discard / Cancel).
function aospSave(p) {
  // Save with nothing to save just closes; "<name> saved" after saving (ContactEditorFragment)
  saveForm(p, { dirty: aospDirty, saved: (name) => toast(CS.saved(name)) });
}
function aospCancelEdit() {
  if (aospDirty()) { closeKeyboard(); ui().dialog = { kind: 'discard' }; return; }
  ui().fields.ct_form = null;
  back();
}
function section(icon, editors, iconDesc) {
  return html`<div style="display:flex;gap:12px;padding:4px 16px 4px 12px" ...${A('android.widget.LinearLayout', {})}>
    <div style="flex:0 0 32px;padding-top:14px;text-align:center;font-size:18px;color:var(--muted)" ...${A('android.widget.ImageView', { id: 'kind_icon', desc: iconDesc, text: '' })}>${icon}</div>
    <div style="flex:1;min-width:0" ...${A('android.widget.LinearLayout', { id: 'kind_editors' })}>${editors}</div></div>`;
}
function typedEditor(field, hint, spinner, onDelete) {
  const f = ui().fields;
  const filled = !!String(f[field] ?? '').trim();
  return html`<div style="display:flex;align-items:flex-start" ...${A('android.widget.LinearLayout', {})}>
    <div style="flex:1;min-width:0" ...${A('android.widget.LinearLayout', {})}>
      <div ...${A('android.widget.LinearLayout', { id: 'editors' })}>${editText(field, hint)}</div>
      ${spinner}</div>
    <div style="flex:0 0 44px;visibility:${filled ? 'visible' : 'hidden'}" ...${filled ? A('android.widget.FrameLayout', {}) : {}}>
      ${filled ? html`<div class="icon-btn" ...${A('android.widget.ImageView', { id: 'delete_button', desc: CS.minus, click: true, text: '' })} ...${press(onDelete)}>✕</div>` : null}</div>
  </div>`;
}
function spinnerView(label, onOpen) {
  return html`<div style="display:inline-flex;align-items:center;gap:6px;padding:6px 0;min-width:120px;border-bottom:1px solid var(--muted)"
      ...${A('android.widget.Spinner', { id: 'spinner', click: true })} ...${pressHandlers((e) => onOpen(e))}>
    <span ...${A('android.widget.TextView', { id: 'android:id/text1', text: label })}>${label}</span><span>▾</span></div>`;
}
export function aospEditor(p) {
  ensureEmptyEditors('ainit');
  const u = ui();
  const f = u.fields;
  const np = f.ct_np || 1, ne = f.ct_ne || 1;
  const editing = !!p.id;
  const showOrg = !!String(f.ct_company ?? '').trim() || !!f.ct_more || !!(editing && (byId(p.id) || {}).company);
  const openSpinner = (i) => (e) => {
    const phone = document.getElementById('phone').getBoundingClientRect();
    const r = e && e.currentTarget ? e.currentTarget.getBoundingClientRect() : { top: 200, left: 60 };
    u.dialog = { kind: 'spinner', index: i, top: Math.round(r.top - phone.top), left: Math.round(r.left - phone.left) };
    closeKeyboard();
  };
  const phones = [];
  for (let i = 0; i < np; i++) {
    phones.push(typedEditor(`ct_phone_${i}`, 'Phone', spinnerView(typeLabel(f[`ct_plabel_${i}`] || 'mobile'), openSpinner(i)),
      () => removeItem('ct_phone_', 'ct_np', i, true)));
  }
  const emails = [];
  for (let i = 0; i < ne; i++) {
    emails.push(typedEditor(`ct_email_${i}`, 'Email', spinnerView('Home', () => {}), () => removeItem('ct_email_', 'ct_ne', i, false)));
  }
  const body = html`<div ...${A('android.widget.LinearLayout', { id: 'raw_contacts_editor_view' })}>
    <div style="height:120px;display:flex;align-items:center;justify-content:center;background:var(--primary-c);position:relative" ...${A('android.widget.RelativeLayout', { id: 'photo_editor' })}>
      <div ...${A('android.widget.ImageView', { id: 'photo', text: '' })} style="font-size:48px">👤</div>
      <div style="position:absolute;inset:0" ...${A('android.view.View', { id: 'photo_touch_intercept_overlay', desc: editing ? CS.changePhoto : CS.addPhoto, click: true })}
        ...${press(() => toast(CS.missingApp))}></div></div>
    <div style="display:flex;gap:12px;padding:8px 16px 8px 12px" ...${A('android.widget.LinearLayout', { id: 'account_header_container' })}>
      <div style="flex:0 0 32px;text-align:center" ...${A('android.widget.ImageView', { id: 'account_type_icon', text: '' })}>📱</div>
      <div ...${A('android.widget.LinearLayout', {})}>${tv(CS.savingTo, 'account_type', { cls: 'row-title' })}${tv(CS.device, 'account_name', { cls: 'row-sub' })}</div></div>
    <div ...${A('android.widget.LinearLayout', { id: 'kind_section_views' })}>
      ${section('👤', html`<div ...${A('android.widget.LinearLayout', { id: 'editors' })}>${editText('ct_first', 'First name')}${editText('ct_last', 'Last name')}</div>`, CS.name)}
      ${showOrg ? section('🏢', html`<div ...${A('android.widget.LinearLayout', { id: 'editors' })}>${editText('ct_company', 'Company')}${editText('ct_title', 'Title')}</div>`) : null}
      ${section('📞', phones)}
      ${section('✉', emails)}
    </div>
    ${showOrg ? null : html`<div style="padding:14px 16px 14px 56px;color:var(--primary);font-weight:500" ...${A('android.widget.LinearLayout', { id: 'more_fields', click: true })}
        ...${press(() => { ui().fields.ct_more = true; closeKeyboard(); })}>
      <div ...${A('android.widget.TextView', { text: CS.moreFields })}>${CS.moreFields}</div></div>`}
  </div>`;
  const save = html`<div class="btn" ...${A('android.widget.Button', { id: 'editor_menu_save_button', text: CS.save, click: true })} ...${press(() => aospSave(p))}>${CS.save}</div>`;
  const bar = toolbar({ nav: { desc: CS.cancel, icon: '✕', onClick: aospCancelEdit }, title: editing ? CS.editTitle : CS.newTitle,
    actions: [{ node: save }], overflow: editing ? () => { u.dialog = { kind: 'menu', where: 'editor', id: p.id }; } : null });
  return html`<div class="screen"><div style="flex:1;display:flex;flex-direction:column;min-height:0" ...${A('android.widget.LinearLayout', { id: 'fragment_container' })}>
    ${bar}
    <div style="flex:1;display:flex;flex-direction:column;min-height:0" ...${A('android.widget.FrameLayout', { id: 'contact_editor_fragment' })}>
      ${scroller('android.widget.ScrollView', 'contact_editor_scroller', body)}</div>
    ${u.keyboard && u.focus ? html`<div style="flex:0 0 215px"></div>` : null}
  </div></div>`;
}

// --- dialogs -------------------------------------------------------------------------------------
function deleteContacts(ids) {
  const u = ui(), w = world();
  const one = ids.length === 1 ? byId(ids[0]) : null;
  w.contacts = all().filter((c) => !ids.includes(c.id));
  u.dialog = null;
  u.ct_sel = null;
  const top = (u.tasks.contacts || []).slice(-1)[0];
  if (top && top.s === 'details') back();
  toast(one ? CS.deleted(one.name) : CS.deletedMany);
}
export const aospDialogs = {
  menu: (d) => {
    const c = byId(d.id);
    if (d.where === 'editor') {
      return popupMenu([['Link', () => toast('Linking is not available')], [CS.delete, () => { if (c) ui().dialog = { kind: 'delete', ids: [c.id], from: 'editor' }; }]], 'title');
    }
    const items = [['Link', () => toast('Linking is not available')], [CS.delete, () => { if (c) ui().dialog = { kind: 'delete', ids: [c.id] }; }],
      ['Share', () => toast(CS.missingApp)], ['Create shortcut', () => toast('Shortcut created')]];
    if (c && (c.phones || []).length) items.push(['Set ringtone', () => toast(CS.missingApp)]);
    return popupMenu(items, 'android:id/title');
  },
  delete: (d) => alertDialog({
    message: (d.ids || []).length === 1 ? CS.deleteQ : CS.deleteManyQ,
    negative: { label: CS.cancel, onClick: () => { ui().dialog = null; } },
    positive: { label: CS.delete, onClick: () => {
      if (d.from === 'editor') { ui().fields.ct_form = null; back(); }
      deleteContacts(d.ids || []);
    } },
  }),
  discard: () => alertDialog({
    message: CS.discardQ,
    negative: { label: CS.cancel, onClick: () => { ui().dialog = null; } },
    positive: { label: CS.discard, onClick: () => { ui().dialog = null; ui().fields.ct_form = null; back(); } },
  }),
  // the Spinner's drop-down: a ListView of CheckedTextViews (simple_spinner_dropdown_item.xml) over the spinner
  spinner: (d) => {
    const f = ui().fields;
    const cur = f[`ct_plabel_${d.index}`] || 'mobile';
    const top = Math.max(8, Math.min(d.top || 200, 800 - 48 * 9));
    return html`<div style="position:absolute;inset:0;z-index:22" onClick=${(e) => { if (e.target === e.currentTarget) update(() => { ui().dialog = null; }); }}>
      <div style=${`position:absolute;left:${d.left || 56}px;top:${top}px;min-width:200px;max-height:${48 * 8}px;overflow:hidden;background:var(--surface);box-shadow:0 3px 10px rgba(0,0,0,.3);border-radius:4px`}
          ...${A('android.widget.ListView', {})}>
        ${PHONE_TYPES.slice(0, 7).map(([k, lab]) => html`<div style="padding:12px 16px;font-size:calc(16px * var(--fs))"
            ...${A('android.widget.CheckedTextView', { id: 'android:id/text1', text: lab, click: true, checkable: true, checked: k === cur })}
            ...${press(() => { f[`ct_plabel_${d.index}`] = k; ui().dialog = null; })}>${lab}</div>`)}
      </div></div>`;
  },
};
