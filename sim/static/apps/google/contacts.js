// google flavor: Google Contacts (com.google.android.contacts, PeopleActivity), the View-based
// app a Pixel on Android 14 ships. Records, form fields and hand-offs to Phone and Messages are
// the base app's (apps/contacts_core.js), so every flavor changes the world the same way.
//
// Evidence (keys as in device/apps/data/contacts.yaml; unpinned = read in a public file whose
// repository could not be pinned). No real dump of Google Contacts was found; these are the
// locators public tests use against it:
//   G-BN  buihngoc22/ngocnhbui_testmobile src/test/java/pageObjects/ContactPage.java @ 01e6e33f:
//         desc "Create contact"; Button toolbar_button (Save); EditTexts reading "First name",
//         "Last name", "Company", "Phone", "Email"; large_title; organization_name; RelativeLayouts
//         described "Call Mobile …" / "Email Home …" holding a TextView header; "More options" →
//         TextView "Delete" → android:id/button1; "Navigate up"; the list's rows are ViewGroups in
//         the ListView android:id/list and the name is a TextView described by the name.
//   G-TH  Tung-Thanh-Huynh/AppiumD src/test/java/TestContactAppAndroid.java @ 32e831af: open_search_bar
//         → open_search_view_edit_text; results: ViewGroups in search_result_list; the details' header
//         TextViews; More options → TextView title "Delete" → android:id/button1; then "Back".
//   G-DB  Douglas019BR/bdd-android-study features/steps/maps.py: open_search_bar_text_view "Search
//         contacts"; android:id/list; toolbar_button; "Navigate up".
//   G-DH  Dhakshath11/Allwright apps/mobile/sample/screens/android/*.screen.ts @ e81d48fc: the
//         details' menu_star, menu_insert_or_edit ("Edit contact"), large_title, organization_name;
//         editor headers "Create contact" / "Edit contact"; the editor's close button "Cancel".
//   unpinned: the list item's name TextView cliv_name_textview (AOSP's ContactListItemView id, so its
//         section headers are AOSP's: a letter described by itself, a star described "Favorites");
//         floating_action_button; a Carina toolbar (ImageButton "Navigate up", menu_insert_or_edit,
//         menu_star, ImageView "More options"); verb_video among the details' buttons; menu_delete
//         in selection mode; the editor's phone type as a Spinner reading "Mobile", described
//         "Mobile Phone", with text_input_end_icon "Show dropdown menu" (a Material exposed dropdown:
//         its items are material-components-android m3_auto_complete_simple_item.xml @ 27510627,
//         TextViews without ids, in a ListPopupWindow's ListView).
// Not in the evidence, so kept plain (no ids): the toolbars, the details' Call and Text buttons,
// the photo, the dialogs' wording beyond the buttons, the search view's clear button.
import { html, registerFlavor, A, rerender, world, ui, go, back, update, toast } from '../../os.js';
import { sortedContacts, matchContact, labelText, Avatar, press, hold, openDetails, beginEdit,
  openMessages, byId, callNumber, removeItem, closeKeyboard, saveForm, closeEditor, formChanged,
  ensureEmptyEditors } from '../contacts_core.js';
import { aospSnippet, listBody, scroller } from '../contacts_aosp.js';

const PKG = 'com.google.android.contacts';
// the AOSP class names Google Contacts keeps for its list (the brief's PeopleActivity); the details'
// and editor's own class names are not pinned
const ACT = { main: 'com.android.contacts.activities.PeopleActivity', search: 'com.android.contacts.activities.PeopleActivity',
  details: 'com.android.contacts.quickcontact.QuickContactActivity', edit: 'com.android.contacts.activities.ContactEditorActivity' };
// the phone types the exposed dropdown offers (ContactsContract's, Google's wording not pinned)
const TYPES = [['mobile', 'Mobile'], ['work', 'Work'], ['home', 'Home'], ['main', 'Main'], ['fax_work', 'Work fax'],
  ['fax_home', 'Home fax'], ['pager', 'Pager'], ['other', 'Other']];
const typeText = (k) => (TYPES.find(([key]) => key === k) || [k, labelText(k)])[1];

// --- building blocks -----------------------------------------------------------------------------
function tv(text, id, o = {}) {
  return html`<div class=${o.cls || ''} style=${o.style || ''} ...${A('android.widget.TextView', { id, text, desc: o.desc })}>${text}</div>`;
}
function iconBtn(cls, { id, desc, icon, onClick }) {
  return html`<div class="icon-btn" ...${A(cls, { id, desc, click: true, text: '' })} ...${press(onClick)}>${icon}</div>`;
}
/** A View EditText bound to ui.fields[field]: no id, its hint, and (SDK 26+) the hint as its text when empty. */
function editText(field, hint, { id, onSubmit, style = '' } = {}) {
  const u = ui();
  const value = String(u.fields[field] ?? '');
  const focus = () => { if (ui().focus !== field) update((s) => { s.ui.focus = field; s.ui.keyboard = true; }); };
  window.S2R.submitters[field] = onSubmit || null;
  return html`<div class="field" style=${'margin:6px 0;' + style} ...${A('android.widget.EditText', { id, text: value || hint, hint, click: true, long: true, edit: true })} onClick=${focus}>
    <input class="input" data-field=${field} value=${value} placeholder=${hint} autocomplete="off" autocapitalize="off" spellcheck=${false}
      onInput=${(e) => { window.S2R.state.ui.fields[field] = e.target.value; rerender(); }} onFocus=${focus}
      onKeyDown=${(e) => { if (e.key === 'Enter') { e.preventDefault(); update((s) => { if (onSubmit) onSubmit(); else { s.ui.keyboard = false; s.ui.focus = null; } }); } }} /></div>`;
}
function alertDialog({ title, positive, negative }) {
  const btn = (b, n) => html`<div class="btn" ...${A('android.widget.Button', { id: `android:id/button${n}`, text: b.label, click: true })} ...${press(b.onClick)}>${b.label}</div>`;
  return html`<div class="scrim" onClick=${(e) => { if (e.target === e.currentTarget) update(() => { ui().dialog = null; }); }}>
    <div class="dialog" ...${A('android.widget.FrameLayout', { id: 'android:id/parentPanel' })}>
      <div class="dialog-title" ...${A('android.widget.TextView', { id: 'android:id/alertTitle', text: title })}>${title}</div>
      <div class="dialog-buttons" ...${A('android.widget.LinearLayout', { id: 'android:id/buttonPanel' })}>${btn(negative, 2)}${btn(positive, 1)}</div></div></div>`;
}
/** The toolbar's overflow popup: clickable rows around a TextView with the app's id `title` (G-TH). */
function popupMenu(items) {
  return html`<div class="scrim" style="background:transparent;align-items:flex-start;justify-content:flex-end"
      onClick=${(e) => { if (e.target === e.currentTarget) update(() => { ui().dialog = null; }); }}>
    <div style="margin:8px 8px 0 0;background:var(--surface);border-radius:6px;min-width:200px;box-shadow:0 3px 10px rgba(0,0,0,.3);padding:6px 0"
        ...${A('android.widget.ListView', {})}>
      ${items.map(([label, fn]) => html`<div style="padding:14px 20px;font-size:calc(15px * var(--fs))" ...${A('android.widget.LinearLayout', { click: true })}
          ...${press(() => { ui().dialog = null; fn(); })}><span ...${A('android.widget.TextView', { id: 'title', text: label })}>${label}</span></div>`)}
    </div></div>`;
}
const col = 'flex:1;display:flex;flex-direction:column;min-height:0;position:relative';
// each screen's root is keyed so Preact does not reuse one screen's nodes for the next (a click
// that changes screens would bubble on into a reused node's new handler)

// --- the people list -------------------------------------------------------------------------------
function startSearch() { go('search', {}); const u = ui(); u.fields.ct_query = ''; u.focus = 'ct_query'; u.keyboard = true; }
function startCreate() { beginEdit(null); go('edit', {}); const u = ui(); u.focus = 'ct_first'; u.keyboard = true; }

/** A list item (G-BN: a ViewGroup row; the name a TextView described by it, id cliv_name_textview —
 * AOSP's ContactListItemView, whose search snippet is an id-less TextView under the name showing
 * what matched besides the name). */
function personRow(c, { header, sel, snippet } = {}) {
  const selecting = !!sel;
  const on = selecting && sel.includes(c.id);
  const toggle = () => { const next = on ? sel.filter((x) => x !== c.id) : [...sel, c.id]; ui().ct_sel = next.length ? next : null; };
  return html`<div class="row" style=${'gap:12px;align-items:center;' + (on ? 'background:var(--primary-c)' : '')}
      ...${A('android.view.ViewGroup', { click: true, long: true, selected: on })}
      ...${hold(selecting ? toggle : () => openDetails(c.id), selecting ? toggle : () => { ui().ct_sel = [c.id]; })}>
    ${header === 'star' ? html`<div style="flex:0 0 28px;color:#e91e63;font-size:18px;text-align:center" ...${A('android.widget.ImageView', { desc: 'Favorites', text: '' })}>★</div>`
      : header ? html`<div style="flex:0 0 28px;color:var(--primary);font-size:18px;text-align:center" ...${A('android.widget.TextView', { text: header, desc: header })}>${header}</div>`
      : header === '' ? html`<div style="flex:0 0 28px"></div>` : null}
    <div ...${A('android.widget.ImageView', { text: '' })}>${on ? html`<span style="display:inline-flex;width:40px;height:40px;border-radius:20px;background:var(--primary);color:var(--bg);align-items:center;justify-content:center">✓</span>` : Avatar(c.name, 40)}</div>
    <div style="flex:1;min-width:0">${tv(c.name, 'cliv_name_textview', { cls: 'row-title', desc: c.name })}
      ${snippet ? tv(snippet, undefined, { cls: 'row-sub' }) : null}</div>
  </div>`;
}
function main() {
  const { sel, body } = listBody(personRow, 'No contacts yet');
  const bar = sel
    ? html`<div class="appbar" ...${A('android.view.ViewGroup', {})}>
        ${iconBtn('android.widget.ImageButton', { desc: 'Close', icon: '✕', onClick: () => { ui().ct_sel = null; } })}
        ${tv(String(sel.length), undefined, { cls: 'title' })}
        ${iconBtn('android.widget.Button', { id: 'menu_delete', desc: 'Delete', icon: '🗑', onClick: () => { ui().dialog = { kind: 'delete', ids: [...sel] }; } })}</div>`
    : html`<div style="padding:8px 12px" ...${A('android.widget.FrameLayout', {})}>
        <div style="display:flex;align-items:center;gap:8px;height:52px;border-radius:26px;background:var(--surface);padding:0 8px"
            ...${A('android.view.ViewGroup', { id: 'open_search_bar', click: true })} ...${press(startSearch)}>
          <span style="padding:0 6px">🔍</span>${tv('Search contacts', 'open_search_bar_text_view', { style: 'flex:1;color:var(--muted)' })}</div></div>`;
  return html`<div class="screen" key="gc-main"><div style=${col} ...${A('androidx.drawerlayout.widget.DrawerLayout', {})}>
    ${bar}
    <div style=${col} ...${A('androidx.slidingpanelayout.widget.SlidingPaneLayout', {})}>${body}</div>
    ${sel ? null : html`<div class="fab" style="border-radius:16px" ...${A('android.widget.ImageButton', { id: 'floating_action_button', desc: 'Create contact', click: true, text: '' })}
        ...${press(startCreate)}>+</div>`}
  </div></div>`;
}

// --- search (G-TH: open_search_view_edit_text; results in search_result_list) ----------------------------
function search() {
  const q = ui().fields.ct_query || '';
  const hits = sortedContacts().filter((c) => matchContact(c, q, { company: true }));
  return html`<div class="screen" key="gc-search">
    <div class="appbar" ...${A('android.view.ViewGroup', {})}>
      ${iconBtn('android.widget.ImageButton', { desc: 'Back', icon: '←', onClick: () => back() })}
      <div style="flex:1;min-width:0">${editText('ct_query', 'Search contacts', { id: 'open_search_view_edit_text', style: 'border:0;margin:0' })}</div>
      ${q ? iconBtn('android.widget.ImageButton', { desc: 'Clear text', icon: '✕', onClick: () => { const u = ui(); u.fields.ct_query = ''; u.focus = 'ct_query'; u.keyboard = true; } }) : null}
    </div>
    ${scroller('androidx.recyclerview.widget.RecyclerView', 'search_result_list', hits.map((c) => personRow(c, { snippet: aospSnippet(c, q) })))}
    ${ui().keyboard && ui().focus ? html`<div style="flex:0 0 215px"></div>` : null}</div>`;
}

// --- a contact's details ------------------------------------------------------------------------------
function entry({ desc, header, text, onClick, icon }) {
  return html`<div class="row" style="gap:16px" ...${A('android.widget.RelativeLayout', { desc, click: !!onClick, long: true })} ...${onClick ? press(onClick) : {}}>
    <div class="row-icon" ...${A('android.widget.ImageView', { text: '' })}>${icon}</div>
    <div style="flex:1;min-width:0">${tv(header, 'header', { cls: 'row-title' })}${text ? tv(text, 'text', { cls: 'row-sub' }) : null}</div></div>`;
}
function details({ id }) {
  const c = byId(id);
  const u = ui();
  const nav = iconBtn('android.widget.ImageButton', { desc: 'Navigate up', icon: '←', onClick: () => back() });
  if (!c) return html`<div class="screen" key="gc-details"><div class="appbar" ...${A('android.view.ViewGroup', {})}>${nav}</div></div>`;
  const phones = c.phones || [], emails = c.emails || [];
  const call = () => { if (phones.length) callNumber(c, phones[0].number); };
  const verb = (label, icon, fn, vid) => html`<div style="display:flex;flex-direction:column;align-items:center;gap:6px;width:76px"
      ...${A('android.widget.Button', { id: vid, text: label, desc: label, click: true })} ...${press(fn)}>
    <span style="width:48px;height:48px;border-radius:24px;background:var(--primary-c);display:flex;align-items:center;justify-content:center;font-size:20px">${icon}</span>
    <span style="font-size:13px">${label}</span></div>`;
  const bar = html`<div class="appbar" ...${A('android.view.ViewGroup', {})}>${nav}<div style="flex:1"></div>
    <div style="display:flex;align-items:center" ...${A('androidx.appcompat.widget.LinearLayoutCompat', {})}>
      ${iconBtn('android.widget.Button', { id: 'menu_star', desc: c.starred ? 'Remove from favorites' : 'Add to favorites', icon: c.starred ? '★' : '☆', onClick: () => { c.starred = !c.starred; } })}
      ${iconBtn('android.widget.Button', { id: 'menu_insert_or_edit', desc: 'Edit contact', icon: '✎', onClick: () => { beginEdit(c); go('edit', { id: c.id }); } })}
      ${iconBtn('android.widget.ImageView', { desc: 'More options', icon: '⋮', onClick: () => { u.dialog = { kind: 'menu', id: c.id }; } })}</div></div>`;
  const info = [
    ...phones.map((p) => entry({ icon: '📞', header: p.number, text: labelText(p.label), desc: `Call ${labelText(p.label)} ${p.number}`, onClick: () => callNumber(c, p.number) })),
    ...emails.map((e) => entry({ icon: '✉', header: e, text: 'Home', desc: `Email Home ${e}`, onClick: () => toast('No app can perform this action') })),
  ];
  return html`<div class="screen" key="gc-details">${bar}${scroller('android.widget.ScrollView', undefined, html`
    <div style="display:flex;flex-direction:column;align-items:center;padding:8px 16px;gap:6px" ...${A('android.widget.LinearLayout', {})}>
      <div ...${A('android.widget.ImageView', { text: '' })}>${Avatar(c.name, 96)}</div>
      ${tv(c.name, 'large_title', { style: 'font-size:calc(26px * var(--fs));text-align:center' })}
      ${c.company ? tv(c.company, 'organization_name', { style: 'color:var(--muted)' }) : null}</div>
    <div style="display:flex;justify-content:center;gap:6px;padding:8px 0 12px" ...${A('android.widget.LinearLayout', {})}>
      ${verb('Call', '📞', call)}${verb('Text', '💬', () => openMessages((phones[0] || {}).number))}
      ${verb('Video', '🎥', () => toast('Video calling is not available'), 'verb_video')}</div>
    ${info.length ? html`<div class="card" style="margin:8px 12px;background:var(--surface);border-radius:12px" ...${A('android.widget.LinearLayout', {})}>
      ${tv('Contact info', undefined, { style: 'padding:12px 16px 0;font-weight:500' })}${info}</div>` : null}`)}</div>`;
}

// --- the editor ---------------------------------------------------------------------------------------
// the form's start, its dirty check and the empty editors are the base app's (apps/contacts_core.js),
// noted under the Google editor's own key
const dirty = () => formChanged('ginit');
/** Save: an empty form just closes the editor, as does an edit of a contact deleted meanwhile. */
const save = (p) => saveForm(p, { missing: closeEditor });
function cancel() {
  if (dirty()) { closeKeyboard(); ui().dialog = { kind: 'discard' }; return; }
  ui().fields.ct_form = null;
  back();
}
function editor(p) {
  ensureEmptyEditors('ginit');
  const u = ui();
  const f = u.fields;
  const np = f.ct_np || 1, ne = f.ct_ne || 1;
  const title = p.id ? 'Edit contact' : 'Create contact';
  const phones = [];
  for (let i = 0; i < np; i++) {
    const lab = typeText(f[`ct_plabel_${i}`] || 'mobile');
    const filled = !!String(f[`ct_phone_${i}`] ?? '').trim();
    phones.push(html`<div style="display:flex;align-items:flex-start;gap:4px">
      <div style="flex:1;min-width:0">${editText(`ct_phone_${i}`, 'Phone')}
        <div style="display:inline-flex;align-items:center;gap:4px;position:relative;min-width:150px;border-bottom:1px solid var(--muted)"
            ...${A('android.widget.Spinner', { text: lab, desc: `${lab} Phone`, click: true, long: true })}
            ...${press((e) => { const ph = document.getElementById('phone').getBoundingClientRect(); const r = e.currentTarget.getBoundingClientRect();
              closeKeyboard(); ui().dialog = { kind: 'labels', index: i, top: Math.round(r.bottom - ph.top), left: Math.round(r.left - ph.left) }; })}>
          <span style="flex:1;padding:6px 0">${lab}</span>
          <span ...${A('android.widget.ImageButton', { id: 'text_input_end_icon', desc: 'Show dropdown menu', click: true, checkable: true, text: '' })}>▾</span></div></div>
      ${filled ? iconBtn('android.widget.ImageButton', { desc: 'Delete', icon: '✕', onClick: () => removeItem('ct_phone_', 'ct_np', i, true) }) : null}</div>`);
  }
  const emails = [];
  for (let i = 0; i < ne; i++) emails.push(editText(`ct_email_${i}`, 'Email'));
  const bar = html`<div class="appbar" ...${A('android.view.ViewGroup', {})}>
    ${iconBtn('android.widget.ImageButton', { desc: 'Cancel', icon: '✕', onClick: cancel })}
    ${tv(title, undefined, { cls: 'title' })}
    <div class="btn filled" style="margin-right:8px" ...${A('android.widget.Button', { id: 'toolbar_button', text: 'Save', click: true })} ...${press(() => save(p))}>Save</div></div>`;
  const form = html`<div style="padding:0 16px 24px" ...${A('android.widget.LinearLayout', {})}>
    <div style="display:flex;justify-content:center;padding:8px 0" ...${A('android.widget.ImageView', { desc: 'Add contact photo', click: true, text: '' })}
      ...${press(() => toast('No camera or gallery app'))}><span style="font-size:48px">👤</span></div>
    ${editText('ct_first', 'First name')}${editText('ct_last', 'Last name')}${editText('ct_company', 'Company')}
    ${phones}${emails}</div>`;
  return html`<div class="screen" key="gc-edit">${bar}${scroller('android.widget.ScrollView', undefined, form)}
    ${u.keyboard && u.focus ? html`<div style="flex:0 0 215px"></div>` : null}</div>`;
}

// --- dialogs ----------------------------------------------------------------------------------------
function deleteContacts(ids) {
  const u = ui(), w = world();
  w.contacts = (w.contacts || []).filter((c) => !ids.includes(c.id));
  u.dialog = null;
  u.ct_sel = null;
  const top = (u.tasks.contacts || []).slice(-1)[0];
  if (top && top.s === 'details') back();
}
const dialogs = {
  menu: (d) => {
    const c = byId(d.id);
    return popupMenu([
      ['Delete', () => { if (c) ui().dialog = { kind: 'delete', ids: [c.id] }; }],
      ['Share', () => toast('No app can perform this action')],
      ['Add to Home screen', () => toast('Added to Home screen')],
      ['Block numbers', () => toast('Numbers blocked')],
    ]);
  },
  delete: (d) => alertDialog({
    title: (d.ids || []).length === 1 ? 'Delete this contact?' : `Delete ${(d.ids || []).length} contacts?`,
    negative: { label: 'Cancel', onClick: () => { ui().dialog = null; } },
    positive: { label: 'Delete', onClick: () => deleteContacts(d.ids || []) },
  }),
  discard: () => alertDialog({
    title: 'Discard changes?',
    negative: { label: 'Cancel', onClick: () => { ui().dialog = null; } },
    positive: { label: 'Discard', onClick: () => { ui().dialog = null; ui().fields.ct_form = null; back(); } },
  }),
  // the exposed dropdown's popup: a ListView of TextViews without ids, under the field
  labels: (d) => {
    const f = ui().fields;
    const top = Math.max(8, Math.min(d.top || 200, 800 - 48 * TYPES.length));
    return html`<div style="position:absolute;inset:0;z-index:22" onClick=${(e) => { if (e.target === e.currentTarget) update(() => { ui().dialog = null; }); }}>
      <div style=${`position:absolute;left:${d.left || 16}px;top:${top}px;min-width:200px;background:var(--surface);box-shadow:0 3px 10px rgba(0,0,0,.3);border-radius:4px`}
          ...${A('android.widget.ListView', {})}>
        ${TYPES.map(([k, lab]) => html`<div style="padding:12px 16px;font-size:calc(16px * var(--fs))" ...${A('android.widget.TextView', { text: lab, click: true })}
            ...${press(() => { f[`ct_plabel_${d.index}`] = k; ui().dialog = null; })}>${lab}</div>`)}
      </div></div>`;
  },
};

registerFlavor('google', 'contacts', {
  pkg: PKG,
  screens: { main, search, details, edit: editor },
  dialogs,
  onBack: (r) => {
    const u = ui();
    if (r.s === 'main' && u.ct_sel) { u.ct_sel = null; return true; }
    if (r.s === 'edit' && dirty()) { closeKeyboard(); u.dialog = { kind: 'discard' }; return true; }
    if (r.s === 'edit') u.fields.ct_form = null;
    return false;
  },
  activity: (r) => `${PKG}/${ACT[r.s] || ACT.main}`,
});
