// Contacts: the people list (favorites first, then letter sections), search, contact details
// (call/text/email actions, star, overflow menu with Delete), and the create/edit form.
//
// Records stay in the shared WorldState `Contact` shape — {id, name, phones:[{number, label}],
// emails, company, starred, tag} — so a judge reads the same fields the device reader fills.
// Flavor `aosp` is AOSP Contacts itself (the section "Flavor `aosp`" below, each screen citing
// the AOSP layouts it follows); `sim` uses a plain title bar, Call/Text/Email buttons on the card,
// an editor with label chips and Cancel/Save at the bottom, and leaves without asking.
import { html, registerApp, Screen, Row, Section, Field, Dialog, Button, Chip, Empty, A, pressHandlers, scrollKey, rerender,
  world, ui, go, back, replace, openApp, t, flavor, update, toast, nextId } from '../os.js';

const PKG = 'com.android.contacts';
export const PHONE_LABELS = [['mobile', 'Mobile'], ['home', 'Home'], ['work', 'Work'], ['other', 'Other']];
const COLORS = ['#1a73e8', '#d93025', '#188038', '#e37400', '#9334e6', '#c5221f', '#007b83', '#b06000', '#3f51b5'];

// ------------------------------------------------------------------------------------------
// helpers
const aosp = () => flavor() === 'aosp';
/** Case- and accent-insensitive form used for sorting, sections and search. */
export function fold(s) {
  return String(s || '').normalize('NFD').replace(/[\u0300-\u036f]/g, '').toLowerCase();
}
export function digitsOf(s) { return String(s || '').replace(/\D/g, ''); }
const all = () => world().contacts || [];
const byId = (id) => all().find((c) => c.id === id) || null;
export function labelText(label) {
  const hit = PHONE_LABELS.find(([k]) => k === label);
  return hit ? hit[1] : label ? label[0].toUpperCase() + label.slice(1) : 'Phone';
}
/** Section letter of a name: A–Z after folding accents, '#' for everything else. */
export function letterOf(name) {
  const ch = fold(name).trim().charAt(0).toUpperCase();
  return /[A-Z]/.test(ch) ? ch : '#';
}
/** Contacts sorted as Android lists them: A–Z (accent-insensitive), '#' names last. */
export function sortedContacts() {
  const key = (c) => [letterOf(c.name) === '#' ? 1 : 0, fold(c.name), c.id || ''];
  return [...all()].sort((a, b) => {
    const ka = key(a), kb = key(b);
    for (let i = 0; i < ka.length; i++) { if (ka[i] < kb[i]) return -1; if (ka[i] > kb[i]) return 1; }
    return 0;
  });
}
/** True when ``fq`` (already folded) is a prefix of ``text`` or of any of its words. */
function prefixOfWords(text, fq) {
  const s = fold(text).trim();
  const words = [...s.split(/\s+/), ...s.split(/[\s\-'’.&]+/)];
  return s.startsWith(fq) || words.some((w) => w.startsWith(fq));
}
/** Search as the Contacts app does: a prefix of the name or of any of its words (accent- and
 * case-insensitive, so "li" finds "Liam" but not "Oliver"), of an email, or digits of a number.
 * With ``company``, also a prefix of the company or of its words: Contacts' own search indexes
 * the organization, the dialer's contact search does not. */
export function matchContact(c, q, { company = false } = {}) {
  const fq = fold(q).trim().replace(/\s+/g, ' ');
  if (!fq) return false;
  if (prefixOfWords(c.name, fq)) return true;
  if (company && c.company && prefixOfWords(c.company, fq)) return true;
  if ((c.emails || []).some((e) => fold(e).startsWith(fq))) return true;
  const dq = digitsOf(q);
  if (dq && /^[\d\s()+\-.*#]+$/.test(q.trim())) return (c.phones || []).some((p) => digitsOf(p.number).includes(dq));
  return false;
}
function hash(s) { let h = 0; for (const ch of String(s)) h = (h * 31 + ch.codePointAt(0)) >>> 0; return h; }
export function Avatar(name, size = 36) {
  const ch = String(name || '?').trim().charAt(0).toUpperCase() || '?';
  return html`<span style=${`display:inline-flex;align-items:center;justify-content:center;width:${size}px;height:${size}px;border-radius:50%;background:${COLORS[hash(name) % COLORS.length]};color:#fff;font-size:${Math.round(size * 0.45)}px;font-weight:500`}>${ch}</span>`;
}
/** Tap handling for our own widgets (the kit's Row/Button handle theirs). */
export function press(fn) {
  return { onClick: (e) => { if (window.S2R.gestureLock) return; e.stopPropagation(); update(() => fn(e)); } };
}
/** Tap + long press with touch semantics: a long press must not also fire the tap.
 * The gesture's state lives on the DOM node: the long press re-renders, which swaps in new
 * handler closures before the finger lifts, so state kept in a closure would be lost. */
export function hold(onClick, onLong) {
  return {
    onTouchStart: (e) => {
      const el = e.currentTarget;
      el._lpFired = false; clearTimeout(el._lpTimer);
      el._lpTimer = setTimeout(() => { el._lpFired = true; update(() => onLong()); }, 500);
    },
    onTouchMove: (e) => clearTimeout(e.currentTarget._lpTimer),
    onTouchEnd: (e) => clearTimeout(e.currentTarget._lpTimer),
    onContextMenu: (e) => e.preventDefault(),
    onClick: (e) => {
      const el = e.currentTarget;
      if (el._lpFired || window.S2R.gestureLock) { el._lpFired = false; return; }
      e.stopPropagation(); update(() => onClick(e));
    },
  };
}
function IconBtn(icon, desc, fn, id) {
  return html`<div class="icon-btn" ...${A('android.widget.ImageButton', { desc, id, click: true, text: '' })} ...${press(fn)}>${icon}</div>`;
}
function closeKeyboard() { const u = ui(); u.focus = null; u.keyboard = false; }

// ------------------------------------------------------------------------------------------
// navigation entry points (exported so the Phone app can open the editor prefilled)
export function openDetails(id) { go('details', { id }); }

function formValues() {
  const f = ui().fields;
  const np = f.ct_np || 1, ne = f.ct_ne || 1;
  const phones = [], emails = [];
  for (let i = 0; i < np; i++) phones.push({ number: String(f[`ct_phone_${i}`] ?? ''), label: f[`ct_plabel_${i}`] || 'mobile' });
  for (let i = 0; i < ne; i++) emails.push(String(f[`ct_email_${i}`] ?? ''));
  return { first: String(f.ct_first ?? ''), last: String(f.ct_last ?? ''), company: String(f.ct_company ?? ''), phones, emails };
}
/** Fill the editor's fields from a contact (edit) or from a prefill (create). */
export function beginEdit(contact, prefill = {}) {
  const f = ui().fields;
  for (const k of Object.keys(f)) if (k.startsWith('ct_phone_') || k.startsWith('ct_plabel_') || k.startsWith('ct_email_')) delete f[k];
  const name = contact ? contact.name : prefill.name || '';
  const cut = name.trim().lastIndexOf(' ');
  f.ct_first = cut > 0 ? name.trim().slice(0, cut) : name.trim();
  f.ct_last = cut > 0 ? name.trim().slice(cut + 1) : '';
  f.ct_company = contact ? contact.company || '' : prefill.company || '';
  const phones = contact ? contact.phones || [] : prefill.phone ? [{ number: prefill.phone, label: 'mobile' }] : [];
  const emails = contact ? contact.emails || [] : prefill.email ? [prefill.email] : [];
  f.ct_np = Math.max(1, phones.length);
  f.ct_ne = Math.max(1, emails.length);
  phones.forEach((p, i) => { f[`ct_phone_${i}`] = p.number; f[`ct_plabel_${i}`] = p.label || 'mobile'; });
  if (!phones.length) f.ct_plabel_0 = 'mobile';
  emails.forEach((e, i) => { f[`ct_email_${i}`] = e; });
  f.ct_form = { id: contact ? contact.id : null, init: JSON.stringify(formValues()) };
}
const dirty = () => { const fm = ui().fields.ct_form; return !!fm && fm.init !== JSON.stringify(formValues()); };

function startCreate(prefill) {
  beginEdit(null, prefill);
  go('edit', {});
  const u = ui(); u.focus = 'ct_first'; u.keyboard = true;
}
function startEdit(c) { beginEdit(c); go('edit', { id: c.id }); }
function startSearch() {
  go('search', {});
  const u = ui(); u.fields.ct_query = ''; u.focus = 'ct_query'; u.keyboard = true;
}
/** Open the Messages conversation with ``number`` (its draft, if any, back in the compose box). */
export function openMessages(number) {
  const n = String(number || '').trim();
  if (!digitsOf(n) || !window.S2R.apps.messages) { openApp('messages'); return; }
  const key = (a) => { const d = digitsOf(a); return d.length >= 10 ? d.slice(-10) : d; };
  const draft = (world().messages || []).find((m) => m.box === 'draft' && key(m.address) === key(n));
  openApp('messages', { s: 'conversation', p: { address: draft ? draft.address : n } });
  ui().fields.compose = draft ? draft.body : '';
}
function callNumber(c, number) {
  openApp('phone', { s: 'incall', p: { number, name: c ? c.name : '', ret: 'contacts' } });
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

/** The line under a search result: like Android's search snippet, the company when that is
 * what matched (not the name), else the first number or e-mail. */
export function searchSnippet(c, q) {
  const fq = fold(q).trim().replace(/\s+/g, ' ');
  if (fq && c.company && !prefixOfWords(c.name, fq) && prefixOfWords(c.company, fq)) return c.company;
  return (c.phones[0] || {}).number || (c.emails || [])[0] || '';
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

function removeItem(prefix, countKey, i, labels) {
  const f = ui().fields;
  const n = f[countKey] || 1;
  for (let j = i; j < n - 1; j++) {
    f[`${prefix}${j}`] = f[`${prefix}${j + 1}`];
    if (labels) f[`ct_plabel_${j}`] = f[`ct_plabel_${j + 1}`];
  }
  if (n > 1) {
    delete f[`${prefix}${n - 1}`];
    if (labels) delete f[`ct_plabel_${n - 1}`];
    f[countKey] = n - 1;
  } else {
    f[`${prefix}0`] = '';
  }
  closeKeyboard();
}

function save(p) {
  saveForm(p, {
    empty: () => toast("Can't save an empty contact"),
    missing: () => { toast('Contact not found'); back(); },
    saved: () => { if (!aosp()) toast('Contact saved'); },
  });
}

/**
 * Save the editor's form into the world and leave the editor: an edited contact is updated and the
 * editor goes back to its details; a new one is added and the editor is replaced by its details.
 * Every flavor's Save ends here, so all of them write the same records; what differs is passed in:
 * `dirty()` false means nothing changed (the stock editors then just close, as AOSP's
 * ContactEditorFragment does); `empty()` is what a form with no name to save does; `missing()` what
 * an edit of a contact deleted meanwhile does; `saved(name)` what is said after saving.
 */
export function saveForm({ id }, { dirty = () => true, empty = closeEditor, missing = back, saved = () => {} } = {}) {
  const v = formValues();
  const first = v.first.trim(), last = v.last.trim(), company = v.company.trim();
  const phones = v.phones.map((p) => ({ number: p.number.trim(), label: p.label || 'mobile' })).filter((p) => p.number);
  const emails = v.emails.map((e) => e.trim()).filter(Boolean);
  // Android's display name falls back to the number, then the email, then the company
  const name = [first, last].filter(Boolean).join(' ') || (phones[0] || {}).number || emails[0] || company;
  if (!name || !dirty()) { empty(); return; }
  closeKeyboard();
  if (id) {
    const c = byId(id);
    if (!c) { missing(); return; }
    Object.assign(c, { name, phones, emails, company });
    ui().fields.ct_form = null;
    back();
    saved(name);
    return;
  }
  const w = world();
  if (!w.contacts) w.contacts = [];
  const rec = { id: nextId('c'), name, phones, emails, company, starred: false, tag: null };
  w.contacts.push(rec);
  ui().fields.ct_form = null;
  replace('details', { id: rec.id });
  saved(name);
}
/** Leave the editor without saving (the stock editors' Save with nothing to save, their close button). */
export function closeEditor() {
  closeKeyboard();
  ui().fields.ct_form = null;
  back();
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

// ==========================================================================================
// Flavor `aosp`: AOSP Contacts exactly, after LineageOS/android_packages_apps_Contacts
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
function scroller(cls, id, children) {
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
function listBody(row, empty) {
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
function aospMain() {
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
function aospSnippet(c, q) {
  const fq = fold(q).trim().replace(/\s+/g, ' ');
  if (!fq || prefixOfWords(c.name, fq)) return '';
  if (c.company && prefixOfWords(c.company, fq)) return c.company;
  const email = (c.emails || []).find((e) => fold(e).startsWith(fq));
  if (email) return email;
  const dq = digitsOf(q);
  const p = dq ? (c.phones || []).find((x) => digitsOf(x.number).includes(dq)) : null;
  return p ? p.number : '';
}
function aospSearch() {
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
function aospDetails({ id }) {
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
/** The form without its empty editors: what saving would store (the stock editors' dirty check). */
function normForm() {
  const v = formValues();
  return JSON.stringify({ first: v.first.trim(), last: v.last.trim(), company: v.company.trim(),
    phones: v.phones.filter((p) => p.number.trim()).map((p) => [p.number.trim(), p.label]),
    emails: v.emails.map((e) => e.trim()).filter(Boolean) });
}
const EMPTY_FORM = JSON.stringify({ first: '', last: '', company: '', phones: [], emails: [] });
/** Whether a stock editor's form differs from how it opened; `key` names the form's member holding
 *  that start ('ainit' AOSP, 'ginit' Google: each flavor's editor notes its own). */
export function formChanged(key) {
  const fm = ui().fields.ct_form;
  return !!fm && fm[key] !== undefined && fm[key] !== normForm();
}
const aospDirty = () => formChanged('ainit');
/** Keep one empty editor below the last filled phone and e-mail (mutates the form fields), and note
 *  the form's start under `key` the first time (see formChanged). */
export function ensureEmptyEditors(key) {
  const f = ui().fields;
  const np = f.ct_np || 1, ne = f.ct_ne || 1;
  if (String(f[`ct_phone_${np - 1}`] ?? '').trim()) { f.ct_np = np + 1; f[`ct_plabel_${np}`] = 'mobile'; }
  if (String(f[`ct_email_${ne - 1}`] ?? '').trim()) f.ct_ne = ne + 1;
  // a new contact starts empty (values handed to it, as by the dialer's "Create new contact", are changes)
  if (f.ct_form && f.ct_form[key] === undefined) f.ct_form[key] = f.ct_form.id ? normForm() : EMPTY_FORM;
}
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
function aospEditor(p) {
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
const aospDialogs = {
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

// Shared with the `google` flavor (apps/google/contacts.js): the same records, form fields and
// cross-app hand-offs drawn by Google Contacts' screens.
export { byId, formValues, callNumber, removeItem, closeKeyboard, aospSnippet, listBody, scroller };
