// Contacts: the people list (favorites first, then letter sections), search, contact details
// (call/text/email actions, star, overflow menu with Delete), and the create/edit form.
//
// Records stay in the shared WorldState `Contact` shape — {id, name, phones:[{number, label}],
// emails, company, starred, tag} — so a judge reads the same fields the device reader fills.
// Flavor `aosp` is AOSP Contacts itself (contacts_aosp.js, each screen citing the AOSP layouts it
// follows); `sim` uses a plain title bar, Call/Text/Email buttons on the card,
// an editor with label chips and Cancel/Save at the bottom, and leaves without asking.
// Flavor `google` (Google Contacts) registers its screens over these from google/contacts.js.
//
// This module: the `sim` flavor's screens and dialogs, and the app's registration (which hands
// every screen and dialog to AOSP Contacts' on the aosp flavor). The world model, the form and
// saving are contacts_core.js's.
import { html, registerApp, Screen, Row, Section, Field, Dialog, Button, Chip, Empty, A, world, ui, back,
  t, update, toast } from '../os.js';
import { PKG, PHONE_LABELS, aosp, all, byId, labelText, letterOf, sortedContacts, matchContact, Avatar,
  press, hold, closeKeyboard, openDetails, dirty, startCreate, startEdit, startSearch, openMessages,
  callNumber, searchSnippet, removeItem, saveForm, aospDirty } from './contacts_core.js';
import { aospMain, aospSearch, aospDetails, aospEditor, aospDialogs } from './contacts_aosp.js';

function IconBtn(icon, desc, fn, id) {
  return html`<div class="icon-btn" ...${A('android.widget.ImageButton', { desc, id, click: true, text: '' })} ...${press(fn)}>${icon}</div>`;
}

// ------------------------------------------------------------------------------------------
// screens
function contactRow(c, sel) {
  const selecting = !!sel;
  const on = selecting && sel.includes(c.id);
  const toggle = () => { const u = ui(); u.ct_sel = on ? sel.filter((x) => x !== c.id) : [...sel, c.id]; };
  const icon = on ? html`<span style="display:inline-flex;align-items:center;justify-content:center;width:36px;height:36px;border-radius:50%;background:var(--primary);color:var(--bg)">✓</span>` : Avatar(c.name);
  // the kit's Row would also fire the tap after a long press; this row keeps them apart
  return html`<div class="row" style=${on ? 'background:var(--primary-c)' : ''}
      ...${A('android.widget.LinearLayout', { id: 'contact_row', click: true, long: true, selected: on })}
      ...${hold(selecting ? toggle : () => openDetails(c.id), selecting ? toggle : () => { ui().ct_sel = [c.id]; })}>
    <div class="row-icon" ...${A('android.widget.ImageView', { text: '' })}>${icon}</div>
    <div class="row-text"><div class="row-title" ...${A('android.widget.TextView', { id: 'title', text: c.name })}>${c.name}</div></div>
  </div>`;
}

function main() {
  const u = ui();
  const sel = u.ct_sel || null;
  const list = sortedContacts();
  const starred = list.filter((c) => c.starred);
  const groups = [];
  for (const c of list) {
    const L = letterOf(c.name);
    if (!groups.length || groups[groups.length - 1][0] !== L) groups.push([L, []]);
    groups[groups.length - 1][1].push(c);
  }
  const body = html`
    ${!list.length ? Empty(t('No contacts yet', 'No contacts')) : null}
    ${starred.length ? html`${Section(t('Favorites', '★ Favorites'))}${starred.map((c) => contactRow(c, sel))}` : null}
    ${groups.map(([L, cs]) => html`${Section(L)}${cs.map((c) => contactRow(c, sel))}`)}
    ${list.length ? html`<div style="text-align:center;color:var(--muted);padding:16px;font-size:13px"
        ...${A('android.widget.TextView', { id: 'contacts_count', text: `${list.length} contacts` })}>${list.length} contacts</div>` : null}
  `;
  if (sel) {
    return Screen({
      title: `${sel.length} selected`, up: true,
      actions: [
        { icon: '☑', desc: 'Select all', id: 'menu_select_all', onClick: () => { u.ct_sel = list.map((c) => c.id); } },
        { icon: '🗑', desc: 'Delete', id: 'menu_delete', onClick: () => { if (sel.length) u.dialog = { kind: 'delete', ids: [...sel] }; } },
      ],
      body,
    });
  }
  const more = { icon: '⋮', desc: 'More options', id: 'overflow', onClick: () => { u.dialog = { kind: 'menu', where: 'main' }; } };
  if (aosp()) {
    const bar = html`<div style="flex:1;margin:0 4px 0 12px;height:44px;border-radius:22px;background:var(--surface);display:flex;align-items:center;padding:0 16px;color:var(--muted)"
        ...${A('android.widget.TextView', { id: 'open_search_bar', text: 'Search contacts', click: true })} ...${press(startSearch)}>🔍  Search contacts</div>`;
    return Screen({ up: false, search: bar, actions: [more], body,
      fab: { desc: 'Create contact', id: 'floating_action_button', icon: '+', onClick: () => startCreate() } });
  }
  return Screen({
    title: 'Contacts', up: false,
    actions: [{ icon: '🔍', desc: 'Search contacts', id: 'menu_search', onClick: startSearch }, more],
    body, fab: { desc: 'Create contact', id: 'floating_action_button', icon: '+', onClick: () => startCreate() },
  });
}

function search() {
  const q = ui().fields.ct_query || '';
  const hits = sortedContacts().filter((c) => matchContact(c, q, { company: true }));
  return Screen({
    search: html`<div style="flex:1">${Field({ field: 'ct_query', hint: 'Search contacts', id: 'search_view' })}</div>`,
    actions: q ? [{ icon: '✕', desc: 'Clear query', id: 'search_close_btn', onClick: () => { ui().fields.ct_query = ''; ui().focus = 'ct_query'; ui().keyboard = true; } }] : [],
    body: html`
      ${q.trim() && !hits.length ? Empty(t('No contacts found', 'No results')) : null}
      ${hits.map((c) => Row({ icon: Avatar(c.name), title: c.name, subtitle: searchSnippet(c, q),
        id: 'contact_row', onClick: () => openDetails(c.id) }))}`,
  });
}

function ActionButton(icon, label, fn, disabled) {
  return html`<div style=${`display:flex;flex-direction:column;align-items:center;gap:6px;width:72px;opacity:${disabled ? 0.4 : 1}`}
      ...${A('android.widget.Button', { id: `action_${label.toLowerCase()}`, text: label, desc: label, click: !disabled, disabled })}
      ...${press(() => { if (!disabled) fn(); })}>
    <span style="width:48px;height:48px;border-radius:24px;background:var(--primary-c);display:flex;align-items:center;justify-content:center;font-size:20px">${icon}</span>
    <span style="font-size:13px">${label}</span></div>`;
}

/** One line of the contact card: an icon, the value, its label under it, an optional trailing action. */
function InfoRow({ icon, value, label, valueId, labelId, onClick, trailing }) {
  return html`<div class="row" ...${A('android.widget.LinearLayout', { id: 'info_row', click: !!onClick })} ...${onClick ? press(onClick) : {}}>
    <div class="row-icon" ...${A('android.widget.ImageView', { text: '' })}>${icon}</div>
    <div class="row-text">
      <div class="row-title" ...${A('android.widget.TextView', { id: valueId, text: value })}>${value}</div>
      ${label ? html`<div class="row-sub" ...${A('android.widget.TextView', { id: labelId, text: label })}>${label}</div>` : null}
    </div>${trailing || null}</div>`;
}

function details({ id }) {
  const c = byId(id);
  const u = ui();
  if (!c) return Screen({ title: '', body: Empty('Contact not found') });
  const phones = c.phones || [], emails = c.emails || [];
  const call = () => {
    if (phones.length === 1) callNumber(c, phones[0].number);
    else if (phones.length > 1) u.dialog = { kind: 'pick', id: c.id, verb: 'call' };
  };
  const text = (number) => openMessages(number || (phones[0] || {}).number);
  const actions = [
    { icon: c.starred ? '★' : '☆', desc: c.starred ? 'Remove from favorites' : 'Add to favorites', id: 'menu_star',
      onClick: () => { c.starred = !c.starred; if (!aosp()) toast(c.starred ? 'Added to favorites' : 'Removed from favorites'); } },
    { icon: '✎', desc: t('Edit', 'Edit contact'), id: 'menu_edit', onClick: () => startEdit(c) },
    { icon: '⋮', desc: 'More options', id: 'overflow', onClick: () => { u.dialog = { kind: 'menu', where: 'details', id: c.id }; } },
  ];
  const body = html`
    <div style="display:flex;flex-direction:column;align-items:center;padding:12px 16px 8px;gap:8px">
      ${Avatar(c.name, 96)}
      <div style="font-size:calc(26px * var(--fs));text-align:center" ...${A('android.widget.TextView', { id: 'large_title', text: c.name })}>${c.name}</div>
      ${aosp() && c.company ? html`<div style="color:var(--muted)" ...${A('android.widget.TextView', { id: 'organization', text: c.company })}>${c.company}</div>` : null}
    </div>
    <div style="display:flex;justify-content:center;gap:8px;padding:8px 0 12px">
      ${ActionButton('📞', 'Call', call, !phones.length)}
      ${ActionButton('💬', 'Text', () => text(), !phones.length)}
      ${aosp() ? ActionButton('🎥', 'Video', () => toast('Video calling is not available'), !phones.length) : null}
      ${ActionButton('✉', 'Email', () => toast('No app can perform this action'), !emails.length)}
    </div>
    <div class="card">
      <div style="padding:12px 16px 4px;font-weight:500" ...${A('android.widget.TextView', { id: 'card_title', text: 'Contact info' })}>Contact info</div>
      ${!phones.length && !emails.length && (aosp() || !c.company) ? html`<div style="padding:8px 16px 12px;color:var(--muted)"
          ...${A('android.widget.TextView', { id: 'empty_info', text: t('No contact info', 'Add phone number') })}>${t('No contact info', 'Add phone number')}</div>` : null}
      ${phones.map((p) => InfoRow({ icon: '📞', value: p.number, label: labelText(p.label), valueId: 'phone_number', labelId: 'phone_label',
        onClick: () => callNumber(c, p.number),
        trailing: IconBtn('💬', t(`Text ${p.number}`, 'Send message'), () => text(p.number), 'send_message') }))}
      ${emails.map((e) => InfoRow({ icon: '✉', value: e, label: 'Email', valueId: 'email_address', labelId: 'email_label',
        onClick: () => toast('No app can perform this action') }))}
      ${!aosp() && c.company ? InfoRow({ icon: '🏢', value: c.company, label: 'Company', valueId: 'organization', labelId: 'organization_label' }) : null}
    </div>
    ${aosp() ? html`<div class="card">
      <div style="padding:12px 16px 4px;font-weight:500">Contact settings</div>
      ${Row({ icon: '🔔', title: 'Set ringtone', subtitle: 'Default', onClick: () => toast('Default ringtone') })}
      ${Row({ icon: '✆', title: 'Route to voicemail', subtitle: 'Off', onClick: () => toast('Route to voicemail') })}
    </div>` : null}
  `;
  return Screen({ title: '', actions, body });
}

function LabelChips(i) {
  const f = ui().fields;
  const cur = f[`ct_plabel_${i}`] || 'mobile';
  const known = PHONE_LABELS.some(([k]) => k === cur);
  const chips = known ? PHONE_LABELS : [...PHONE_LABELS, [cur, labelText(cur)]];
  return html`<div style="display:flex;flex-wrap:wrap;padding:0 12px" ...${A('android.widget.LinearLayout', { id: `label_group_${i}`, desc: `Label for phone ${i + 1}` })}>
    ${chips.map(([k, lab]) => Chip({ label: lab, on: cur === k, id: `label_${k}`, onClick: () => { f[`ct_plabel_${i}`] = k; } }))}</div>`;
}

function save(p) {
  saveForm(p, {
    empty: () => toast("Can't save an empty contact"),
    missing: () => { toast('Contact not found'); back(); },
    saved: () => { if (!aosp()) toast('Contact saved'); },
  });
}

function cancelEdit() {
  if (aosp() && dirty()) { closeKeyboard(); ui().dialog = { kind: 'discard' }; return; }
  ui().fields.ct_form = null;
  back();
}

function editor(p) {
  const f = ui().fields;
  const np = f.ct_np || 1, ne = f.ct_ne || 1;
  const editing = !!p.id;
  const title = editing ? 'Edit contact' : t('New contact', 'Create contact');
  const phoneFields = [];
  for (let i = 0; i < np; i++) {
    phoneFields.push(html`<div style="display:flex;align-items:center">
        <div style="flex:1">${Field({ field: `ct_phone_${i}`, label: 'Phone', type: 'number', id: `phone_${i}` })}</div>
        ${np > 1 || f[`ct_phone_${i}`] ? IconBtn('✕', 'Remove phone', () => removeItem('ct_phone_', 'ct_np', i, true), 'remove_phone') : null}
      </div>${LabelChips(i)}`);
  }
  const emailFields = [];
  for (let i = 0; i < ne; i++) {
    emailFields.push(html`<div style="display:flex;align-items:center">
        <div style="flex:1">${Field({ field: `ct_email_${i}`, label: 'Email', id: `email_${i}` })}</div>
        ${ne > 1 || f[`ct_email_${i}`] ? IconBtn('✕', 'Remove email', () => removeItem('ct_email_', 'ct_ne', i, false), 'remove_email') : null}
      </div>`);
  }
  const addBtn = (label, key) => html`<div style="padding:0 8px">${Button({ label, id: `add_${key}`, onClick: () => {
    const k = key === 'phone' ? 'ct_np' : 'ct_ne';
    const n = f[k] || 1; f[k] = n + 1;
    if (key === 'phone') f[`ct_plabel_${n}`] = 'mobile';
    closeKeyboard();
  } })}</div>`;
  const body = html`
    ${aosp() ? html`<div style="display:flex;flex-direction:column;align-items:center;padding:8px 0 4px;gap:6px">
      <span style="width:88px;height:88px;border-radius:44px;background:var(--primary-c);display:flex;align-items:center;justify-content:center;font-size:34px">👤</span>
      <span ...${A('android.widget.Button', { id: 'add_picture', text: 'Add picture', click: true })} ...${press(() => toast('No camera or gallery app'))}
        style="color:var(--primary);font-weight:500">Add picture</span></div>` : null}
    ${Field({ field: 'ct_first', label: 'First name', id: 'first_name' })}
    ${Field({ field: 'ct_last', label: 'Last name', id: 'last_name' })}
    ${Field({ field: 'ct_company', label: 'Company', id: 'company' })}
    ${phoneFields}
    ${addBtn(t('Add phone', 'Add phone'), 'phone')}
    ${emailFields}
    ${addBtn('Add email', 'email')}
  `;
  if (aosp()) {
    const bar = html`${IconBtn('✕', 'Cancel', cancelEdit, 'close')}
      <div class="title" ...${A('android.widget.TextView', { id: 'title', text: title })}>${title}</div>
      <div style="padding-right:8px">${Button({ label: 'Save', kind: 'filled', id: 'editor_menu_save_button', onClick: () => save(p) })}</div>`;
    return Screen({ up: false, search: bar, body });
  }
  const bottom = html`<div style="display:flex;justify-content:flex-end;gap:8px;padding:8px 16px;border-top:1px solid var(--line);background:var(--bg)">
    ${Button({ label: 'Cancel', id: 'cancel', onClick: cancelEdit })}
    ${Button({ label: 'Save', kind: 'filled', id: 'save', onClick: () => save(p) })}</div>`;
  return Screen({ title, body, bottom });
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
    const u = ui();
    if (d.where === 'details') {
      const c = byId(d.id);
      const items = aosp() ? ['Delete', 'Share', 'Add to Home screen', 'Block numbers'] : ['Share', 'Delete', 'Block number'];
      return Menu(items, (label) => {
        if (!c) return;
        if (label === 'Delete') u.dialog = { kind: 'delete', ids: [c.id] };
        else if (label === 'Share') toast('No app can perform this action');
        else if (label.startsWith('Block')) toast(`${(c.phones[0] || {}).number || c.name} blocked`);
        else toast('Added to Home screen');
      });
    }
    const items = aosp() ? ['Select', 'Settings', 'Help & feedback'] : ['Select', 'Settings'];
    return Menu(items, (label) => {
      if (label === 'Select') u.ct_sel = [];
      else toast(label);
    });
  },
  delete: (d) => {
    const ids = d.ids || [];
    const one = ids.length === 1 ? byId(ids[0]) : null;
    const title = ids.length === 1 ? t('Delete contact?', 'Delete this contact?') : `Delete ${ids.length} contacts?`;
    const msg = one ? t(`${one.name} will be deleted from this phone.`, 'This contact will be permanently deleted from your device.')
      : 'These contacts will be permanently deleted from your device.';
    return Dialog({ title, body: html`<div style="color:var(--muted)" ...${A('android.widget.TextView', { id: 'android:id/message', text: msg })}>${msg}</div>`, buttons: [
      { label: 'Cancel', onClick: () => { ui().dialog = null; } },
      { label: 'Delete', onClick: () => {
        const u = ui(), w = world();
        w.contacts = all().filter((c) => !ids.includes(c.id));
        u.dialog = null;
        u.ct_sel = null;
        const top = (u.tasks.contacts || []).slice(-1)[0];
        if (top && top.s === 'details') back();
        toast(ids.length === 1 ? t('Contact deleted', '1 contact deleted') : `${ids.length} contacts deleted`);
      } }] });
  },
  pick: (d) => {
    const c = byId(d.id);
    const phones = c ? c.phones : [];
    return Dialog({ title: t('Choose number', 'Call with'), body: phones.map((p) => Row({ icon: '📞', title: p.number, subtitle: labelText(p.label), id: 'number_choice',
      onClick: () => { ui().dialog = null; callNumber(c, p.number); } })),
    buttons: [{ label: 'Cancel', onClick: () => { ui().dialog = null; } }] });
  },
  discard: () => Dialog({ title: 'Discard changes?', buttons: [
    { label: 'Keep editing', onClick: () => { ui().dialog = null; } },
    { label: 'Discard', onClick: () => { ui().dialog = null; ui().fields.ct_form = null; back(); } }] }),
};

registerApp({
  id: 'contacts', label: 'Contacts', pkg: PKG, icon: '👤', color: '#1e8e3e',
  root: { s: 'main', p: {} },
  screens: { main: (p) => (aosp() ? aospMain(p) : main(p)), search: (p) => (aosp() ? aospSearch(p) : search(p)),
    details: (p) => (aosp() ? aospDetails(p) : details(p)), edit: (p) => (aosp() ? aospEditor(p) : editor(p)) },
  dialogs: Object.fromEntries([...new Set([...Object.keys(dialogs), ...Object.keys(aospDialogs)])].map((k) =>
    [k, (d) => (aosp() && aospDialogs[k] ? aospDialogs[k](d) : dialogs[k] ? dialogs[k](d) : null)])),
  onBack: (r) => {
    const u = ui();
    if (r.s === 'main' && u.ct_sel) { u.ct_sel = null; return true; }
    if (aosp()) {
      if (r.s === 'edit' && aospDirty()) { closeKeyboard(); u.dialog = { kind: 'discard' }; return true; }
      if (r.s === 'edit') u.fields.ct_form = null;
      return false;
    }
    if (r.s === 'edit' && aosp() && dirty()) { u.dialog = { kind: 'discard' }; return true; }
    if (r.s === 'edit') u.fields.ct_form = null;
    return false;
  },
  activity: (r) => ({
    main: `${PKG}/.activities.PeopleActivity`, search: `${PKG}/.activities.PeopleActivity`,
    details: `${PKG}/.activities.QuickContactActivity`, edit: `${PKG}/.activities.ContactEditorActivity`,
  })[r.s] || `${PKG}/.activities.PeopleActivity`,
});
