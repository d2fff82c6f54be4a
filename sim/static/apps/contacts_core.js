// Contacts, shared by every flavor: the world model and its state helpers — world().contacts in the
// WorldState `Contact` shape, folding, sorting and sections, search matching and snippets, avatars,
// the press/hold input helpers, the edit form's fields (ui().fields) and saving them, the stock
// editors' dirty check, and the hand-offs to other apps (call, text). No screen lives here: the `sim`
// flavor's screens are in contacts.js, AOSP Contacts' in contacts_aosp.js, Google Contacts' in
// google/contacts.js; the Phone app reuses the helpers too.
//
// Why one module: the world model is the same in every flavor (a phone's contacts provider), so a
// contact saved through any flavor's editor must be the same record; only the screens differ.
import { html, world, ui, go, back, replace, openApp, flavor, update, nextId } from '../os.js';

export const PKG = 'com.android.contacts';
export const PHONE_LABELS = [['mobile', 'Mobile'], ['home', 'Home'], ['work', 'Work'], ['other', 'Other']];
const COLORS = ['#1a73e8', '#d93025', '#188038', '#e37400', '#9334e6', '#c5221f', '#007b83', '#b06000', '#3f51b5'];

// ------------------------------------------------------------------------------------------
// helpers
export const aosp = () => flavor() === 'aosp';
/** Case- and accent-insensitive form used for sorting, sections and search. */
export function fold(s) {
  return String(s || '').normalize('NFD').replace(/[\u0300-\u036f]/g, '').toLowerCase();
}
export function digitsOf(s) { return String(s || '').replace(/\D/g, ''); }
export const all = () => world().contacts || [];
export const byId = (id) => all().find((c) => c.id === id) || null;
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
export function prefixOfWords(text, fq) {
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
export function closeKeyboard() { const u = ui(); u.focus = null; u.keyboard = false; }

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
export const dirty = () => { const fm = ui().fields.ct_form; return !!fm && fm.init !== JSON.stringify(formValues()); };

export function startCreate(prefill) {
  beginEdit(null, prefill);
  go('edit', {});
  const u = ui(); u.focus = 'ct_first'; u.keyboard = true;
}
export function startEdit(c) { beginEdit(c); go('edit', { id: c.id }); }
export function startSearch() {
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
export function callNumber(c, number) {
  openApp('phone', { s: 'incall', p: { number, name: c ? c.name : '', ret: 'contacts' } });
}

/** The line under a search result: like Android's search snippet, the company when that is
 * what matched (not the name), else the first number or e-mail. */
export function searchSnippet(c, q) {
  const fq = fold(q).trim().replace(/\s+/g, ' ');
  if (fq && c.company && !prefixOfWords(c.name, fq) && prefixOfWords(c.company, fq)) return c.company;
  return (c.phones[0] || {}).number || (c.emails || [])[0] || '';
}

// ------------------------------------------------------------------------------------------
// the edit form: removing a phone or e-mail editor, saving, leaving, the stock editors' dirty check
export function removeItem(prefix, countKey, i, labels) {
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

// The stock editors (AOSP's ContactEditorFragment, Google's) ask before discarding changes and
// keep one empty editor below the last filled one (KindSectionView.setShowOneEmptyEditor).
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
export const aospDirty = () => formChanged('ainit');
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
