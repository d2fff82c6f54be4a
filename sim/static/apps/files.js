// Files (com.android.documentsui): browse shared storage, select, delete, rename, move/copy,
// create folders, search, properties.
//
// Everything comes from world().files (WorldState FileEntry records {path, kind, size, mtime},
// paths under /sdcard). Folders that only exist implicitly (a file's parent without its own
// record) are still shown, and every mutation materialises the parents it relies on, so the
// list stays consistent: no duplicate paths, every parent exists.
//
// Flavor `sim`: a simple "Internal storage" browser (up arrow, overflow with Sort by).
// Flavor `aosp`: stock DocumentsUI — opens on "Recent" with category chips, a roots drawer
// ("Show roots": Recent, Images, Videos, Audio, Documents, Downloads, Internal storage),
// a breadcrumb and a sort header, "N selected" action mode with Share/Delete and an overflow
// (Select all, Copy to…, Move to…, Rename, Properties), DocumentsUI's delete wording.
import { html, registerApp, Screen, Row, Section, Dialog, Radio, Field, Empty, Button, Chip, A,
  world, ui, go, t, flavor, update, toast, now, nowIso, fmtTime } from '../os.js';

const ROOT = '/sdcard';
const STORAGE_BYTES = 128e9;
const SYSTEM_BYTES = 21.4e9;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const CATS = {
  images: { label: 'Images', icon: '🖼', ext: ['jpg', 'jpeg', 'png', 'gif', 'webp', 'heic', 'bmp'] },
  videos: { label: 'Videos', icon: '🎬', ext: ['mp4', 'mkv', 'webm', '3gp', 'mov', 'avi'] },
  audio: { label: 'Audio', icon: '🎵', ext: ['mp3', 'm4a', 'wav', 'ogg', 'flac', 'aac', 'opus', 'mid'] },
  documents: { label: 'Documents', icon: '📄', ext: ['pdf', 'doc', 'docx', 'txt', 'xls', 'xlsx', 'ppt', 'pptx', 'odt', 'ods', 'csv', 'rtf', 'md', 'epub'] },
};

// static styles for this app (not state)
if (typeof document !== 'undefined' && !document.getElementById('fm-css')) {
  const s = document.createElement('style');
  s.id = 'fm-css';
  s.textContent = `
[data-foreground="files"] .row[data-selected="1"] { background: var(--primary-c); }
.fm-crumbs { display: flex; align-items: center; gap: 2px; padding: 2px 12px 6px; overflow: hidden; white-space: nowrap; font-size: 14px; color: var(--muted); flex: 0 0 auto; }
.fm-crumb { padding: 6px 6px; border-radius: 8px; }
.fm-crumb.last { color: var(--primary); font-weight: 500; }
.fm-sep { opacity: .6; }
.fm-sortbar { display: flex; align-items: center; justify-content: space-between; padding: 0 16px 4px; font-size: 13px; color: var(--muted); flex: 0 0 auto; }
.fm-sortbtn { padding: 6px 8px; border-radius: 8px; color: var(--on); font-weight: 500; }
.fm-chips { display: flex; padding: 0 8px 4px; flex: 0 0 auto; overflow: hidden; }
.fm-menu-scrim { align-items: flex-start !important; justify-content: flex-end !important; background: transparent !important; }
.fm-menu { margin: 8px 8px 0 0; min-width: 196px; background: var(--surface); border-radius: 8px; box-shadow: 0 4px 14px rgba(0,0,0,.3); padding: 6px 0; }
.fm-menu .row { min-height: 48px; }
.fm-drawer-scrim { justify-content: flex-start !important; align-items: stretch !important; }
.fm-drawer { width: 80%; background: var(--bg); padding: 12px 0; overflow-y: auto; border-radius: 0 16px 16px 0; }
.fm-drawer-title { font-size: 22px; padding: 12px 24px 16px; }
.fm-divider { height: 1px; background: var(--line); margin: 8px 0; }
.fm-err { color: #b3261e; font-size: 13px; padding: 0 16px 4px; }
.fm-msg { padding: 4px 4px 8px; font-size: calc(15px * var(--fs)); }
.fm-pickbar { display: flex; justify-content: flex-end; gap: 8px; padding: 8px 16px 12px; border-top: 1px solid var(--line); background: var(--bg); flex: 0 0 auto; }
.fm-preview { display: flex; flex-direction: column; align-items: center; gap: 8px; padding: 48px 16px; }
.fm-preview .glyph { font-size: 96px; }
.fm-storage { margin: 8px 16px; padding: 12px 16px; border-radius: 16px; background: var(--surface); }
.fm-bar { height: 8px; border-radius: 4px; background: var(--line); margin-top: 8px; overflow: hidden; }
.fm-bar > div { height: 100%; background: var(--primary); }
`;
  document.head.appendChild(s);
}

// ------------------------------------------------------------------------------------------
// paths and the file tree
const parentOf = (p) => p.slice(0, p.lastIndexOf('/'));
const baseName = (p) => p.slice(p.lastIndexOf('/') + 1);
const within = (p, dir) => p.startsWith(dir + '/');
const extOf = (name) => (name.includes('.') ? name.slice(name.lastIndexOf('.') + 1).toLowerCase() : '');
const entries = () => world().files || [];
const ensureList = () => { if (!world().files) world().files = []; return world().files; };

/** path → entry for everything under /sdcard, with implied parent folders filled in. */
function tree() {
  const m = new Map();
  for (const e of entries()) {
    if (!e || typeof e.path !== 'string' || !within(e.path, ROOT)) continue;
    if (!m.has(e.path) || e.kind === 'dir') m.set(e.path, e);
  }
  for (const p of [...m.keys()]) {
    for (let d = parentOf(p); d !== ROOT && within(d, ROOT); d = parentOf(d)) {
      if (!m.has(d)) m.set(d, { path: d, kind: 'dir', size: 0, mtime: null, implied: true });
    }
  }
  return m;
}
const isDir = (path, m = tree()) => path === ROOT || (m.get(path)?.kind === 'dir');
const children = (dir, m = tree()) => [...m.values()].filter((e) => parentOf(e.path) === dir);
const descendants = (dir, m = tree()) => [...m.values()].filter((e) => within(e.path, dir));
const catOf = (e) => Object.keys(CATS).find((c) => e.kind === 'file' && CATS[c].ext.includes(extOf(baseName(e.path))));

/** Create records for `path` and every missing parent (a folder we are about to rely on). */
function materialize(path) {
  const list = ensureList();
  const have = new Set(list.map((e) => e.path));
  const need = [];
  for (let d = path; d !== ROOT && within(d, ROOT); d = parentOf(d)) if (!have.has(d)) need.unshift(d);
  for (const d of need) list.push({ path: d, kind: 'dir', size: 0, mtime: null });
}

function validName(name) {
  const n = (name || '').trim();
  if (!n) return [null, t('Name can’t be empty', 'Name can’t be empty')];
  if (n.includes('/') || n === '.' || n === '..' || n.length > 255) return [null, t('Invalid name', 'Invalid file name')];
  return [n, null];
}
const CONFLICT = () => t('A file with this name already exists', 'A file with this name already exists.');

function createFolder(dir, name) {
  const [n, err] = validName(name);
  if (err) return err;
  const m = tree();
  if (!isDir(dir, m)) return t('Folder not found', 'Failed to create folder');
  if (m.has(`${dir}/${n}`)) return CONFLICT();
  if (dir !== ROOT) materialize(dir);
  ensureList().push({ path: `${dir}/${n}`, kind: 'dir', size: 0, mtime: nowIso() });
  return null;
}

/** Re-root `from` (and everything inside it) at `to`. */
function repath(from, to) {
  for (const e of ensureList()) {
    if (e.path === from) e.path = to;
    else if (within(e.path, from)) e.path = to + e.path.slice(from.length);
  }
}

function renameEntry(path, name) {
  const [n, err] = validName(name);
  if (err) return err;
  if (n === baseName(path)) return null;
  const m = tree();
  if (!m.has(path)) return t('File not found', 'Failed to rename document');
  const to = `${parentOf(path)}/${n}`;
  if (m.has(to)) return CONFLICT();
  materialize(path);
  repath(path, to);
  return null;
}

function moveEntries(paths, dest) {
  const m = tree();
  if (!isDir(dest, m)) return t('Folder not found', 'File operation failed.');
  for (const p of paths) {
    if (!m.has(p)) return t('File not found', 'File operation failed.');
    if (dest === p || within(dest, p)) return t('Can’t move a folder into itself', 'Can’t move a folder into itself');
    if (parentOf(p) !== dest && m.has(`${dest}/${baseName(p)}`)) return CONFLICT();
  }
  const names = paths.map(baseName);
  if (new Set(names).size !== names.length) return CONFLICT();
  if (dest !== ROOT) materialize(dest);
  let moved = 0;
  for (const p of paths) {
    if (parentOf(p) === dest) continue;
    materialize(p);
    repath(p, `${dest}/${baseName(p)}`);
    moved++;
  }
  return moved ? null : t('Already in this folder', 'Already in this folder');
}

function freeName(dir, name, m) {
  if (!m.has(`${dir}/${name}`)) return name;
  const dot = name.lastIndexOf('.');
  const [stem, ext] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
  for (let i = 1; ; i++) if (!m.has(`${dir}/${stem} (${i})${ext}`)) return `${stem} (${i})${ext}`;
}

function copyEntries(paths, dest) {
  const m = tree();
  if (!isDir(dest, m)) return t('Folder not found', 'File operation failed.');
  for (const p of paths) {
    if (!m.has(p)) return t('File not found', 'File operation failed.');
    if (dest === p || within(dest, p)) return t('Can’t copy a folder into itself', 'Can’t copy a folder into itself');
  }
  if (dest !== ROOT) materialize(dest);
  const list = ensureList();
  for (const p of paths) {
    const cur = tree();
    const to = `${dest}/${freeName(dest, baseName(p), cur)}`;
    for (const e of [cur.get(p), ...descendants(p, cur)]) {
      list.push({ path: to + e.path.slice(p.length), kind: e.kind, size: e.size || 0, mtime: nowIso() });
    }
  }
  return null;
}

function deleteEntries(paths) {
  const w = world();
  if (!w.files) return;
  w.files = w.files.filter((e) => !paths.some((p) => e.path === p || within(e.path, p)));
}

// ------------------------------------------------------------------------------------------
// formatting (Android's Formatter.formatFileSize / DocumentsUI date column)
function fmtSize(bytes) {
  let r = Number(bytes) || 0, mult = 1, suffix = 'B';
  for (const u of ['kB', 'MB', 'GB', 'TB', 'PB']) { if (r > 900) { r /= 1000; mult *= 1000; suffix = u; } }
  const shorter = flavor() !== 'aosp';
  let digits;
  if (mult === 1 || r >= 100) digits = 0;
  else if (r < 1) digits = 2;
  else if (r < 10) digits = shorter ? 1 : 2;
  else digits = shorter ? 0 : 2;
  return `${r.toFixed(digits)} ${suffix}`;
}
function fmtDate(iso) {
  if (!iso) return '';
  const d = new Date(String(iso).slice(0, 19) + 'Z');
  if (Number.isNaN(d.getTime())) return '';
  const n = now();
  if (d.getUTCFullYear() === n.getUTCFullYear() && d.getUTCMonth() === n.getUTCMonth() && d.getUTCDate() === n.getUTCDate()) {
    return fmtTime(d.getUTCHours(), d.getUTCMinutes());
  }
  if (d.getUTCFullYear() === n.getUTCFullYear()) return `${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}`;
  return flavor() === 'aosp' ? `${d.getUTCMonth() + 1}/${d.getUTCDate()}/${String(d.getUTCFullYear()).slice(2)}`
    : `${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}, ${d.getUTCFullYear()}`;
}
const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;
function iconFor(e) {
  if (e.kind === 'dir') return '📁';
  const ext = extOf(baseName(e.path));
  if (ext === 'pdf') return '📕';
  if (ext === 'apk') return '🤖';
  if (['zip', 'rar', '7z', 'tar', 'gz'].includes(ext)) return '🗜';
  const c = catOf(e);
  return c ? CATS[c].icon : '📄';
}
function typeLabel(e) {
  if (e.kind === 'dir') return 'Folder';
  const ext = extOf(baseName(e.path));
  const c = catOf(e);
  const kind = { images: 'image', videos: 'video', audio: 'audio', documents: 'document' }[c] || 'file';
  if (ext === 'apk') return 'Android package';
  return ext ? `${ext.toUpperCase()} ${kind}` : 'File';
}
function folderSize(path, m) { return descendants(path, m).reduce((s, e) => s + (e.kind === 'file' ? e.size || 0 : 0), 0); }
function subtitleFor(e, m, withFolder) {
  if (e.kind === 'dir') {
    const n = children(e.path, m).length;
    return n ? plural(n, 'item', 'items') : t('Empty folder', 'Empty');
  }
  const size = fmtSize(e.size), date = fmtDate(e.mtime);
  const parts = flavor() === 'aosp' ? [date, size] : [size, date];
  if (withFolder) parts.push(parentOf(e.path) === ROOT ? storageLabel() : baseName(parentOf(e.path)));
  return parts.filter(Boolean).join(' · ');
}
const storageLabel = () => 'Internal storage';
function freeLabel() {
  const used = entries().reduce((s, e) => s + (e.kind === 'file' ? e.size || 0 : 0), 0);
  return `${fmtSize(Math.max(0, STORAGE_BYTES - SYSTEM_BYTES - used))} free`;
}

// ------------------------------------------------------------------------------------------
// sorting
const SORTS = [
  ['name', false, 'Name (A to Z)', 'Name (A to Z)'], ['name', true, 'Name (Z to A)', 'Name (Z to A)'],
  ['date', true, 'Newest first', 'Modified (newest first)'], ['date', false, 'Oldest first', 'Modified (oldest first)'],
  ['size', true, 'Largest first', 'Size (largest first)'], ['size', false, 'Smallest first', 'Size (smallest first)'],
];
const sortState = () => ui().files_sort || { by: 'name', desc: false };
const nameCmp = (a, b) => baseName(a.path).localeCompare(baseName(b.path), 'en', { sensitivity: 'base', numeric: true }) || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
function sortEntries(list, m) {
  const { by, desc } = sortState();
  const key = (e) => (by === 'size' ? (e.kind === 'dir' ? folderSize(e.path, m) : e.size || 0) : by === 'date' ? (e.mtime || '') : null);
  const cmp = (a, b) => {
    if (a.kind !== b.kind) return a.kind === 'dir' ? -1 : 1;  // folders first, always
    let c = 0;
    if (by !== 'name') { const ka = key(a), kb = key(b); c = ka < kb ? -1 : ka > kb ? 1 : 0; }
    if (c === 0) c = nameCmp(a, b);
    return desc ? -c : c;
  };
  return [...list].sort(cmp);
}

// ------------------------------------------------------------------------------------------
// routes, selection
const press = (fn) => ({ onClick: (e) => { if (window.S2R.gestureLock) return; e.stopPropagation(); update(() => fn(e)); } });
const stack = () => ui().tasks.files || [];
function top() { const s = stack(); return s[s.length - 1] || { s: 'main', p: {} }; }
function sig() { const s = stack(), tp = top(); return `${s.length}|${tp.s}|${JSON.stringify(tp.p || {})}`; }
function selection() { const s = ui().files_sel; return s && s.at === sig() ? s.paths.filter((p) => tree().has(p)) : []; }
function setSelection(paths) { ui().files_sel = paths.length ? { at: sig(), paths } : null; }
function toggleSel(path) {
  const sel = selection();
  setSelection(sel.includes(path) ? sel.filter((p) => p !== path) : [...sel, path]);
}
/** The folder a browse route shows (null for Recent / categories / search). */
function routeDir(r) {
  if (r.s === 'dir') return r.p.path || ROOT;
  if (r.s === 'main' && flavor() !== 'aosp') return ROOT;
  return null;
}
function itemsFor(r, m = tree()) {
  const dir = routeDir(r);
  if (dir) return isDir(dir, m) ? sortEntries(children(dir, m), m) : [];
  if (r.s === 'main') return recentItems(r.p.chip, m);
  if (r.s === 'cat') return recentItems(r.p.cat, m, false);
  if (r.s === 'search') return searchItems(m);
  return [];
}
function recentItems(cat, m, limit = true) {
  const list = [...m.values()].filter((e) => e.kind === 'file' && (!cat || catOf(e) === cat));
  list.sort((a, b) => ((a.mtime || '') < (b.mtime || '') ? 1 : (a.mtime || '') > (b.mtime || '') ? -1 : nameCmp(a, b)));
  return limit ? list.slice(0, 40) : list;
}
function searchItems(m) {
  const q = (ui().fields.fm_search || '').trim().toLowerCase();
  if (!q) return [];
  return sortEntries([...m.values()].filter((e) => baseName(e.path).toLowerCase().includes(q)), m);
}

function openEntry(e, r) {
  if (e.kind === 'dir') go('dir', { path: e.path, root: r.p.root || 'storage' });
  else go('viewer', { path: e.path });
}
/** Jump to an ancestor folder shown in the breadcrumb (pops the stack when it is there). */
function crumbTo(path, root, picker) {
  const s = stack();
  for (let i = s.length - 1; i >= 0; i--) {
    const e = s[i];
    const hit = picker ? e.s === 'picker' && e.p.dir === path
      : (e.s === 'dir' && e.p.path === path) || (e.s === 'main' && flavor() !== 'aosp' && path === ROOT);
    if (hit) { s.length = i + 1; ui().files_sel = null; return; }
    if (picker && e.s !== 'picker') break;
  }
  if (picker) go('picker', { ...top().p, dir: path });
  else go('dir', { path, root });
}

// ------------------------------------------------------------------------------------------
// pieces of UI
const hamburger = () => html`<div class="icon-btn" ...${A('android.widget.ImageButton', { desc: 'Show roots', click: true, text: '' })}
  ...${press(() => { ui().dialog = { kind: 'roots' }; })}>☰</div>`;
const titleEl = (text) => html`<div class="title" ...${A('android.widget.TextView', { id: 'title', text })}>${text}</div>`;
const moreAction = (items) => ({ icon: '⋮', desc: 'More options', id: 'more', onClick: () => { ui().dialog = { kind: 'menu', items }; } });
const searchAction = () => ({ icon: '🔍', desc: 'Search', id: 'option_menu_search', onClick: () => { ui().fields.fm_search = ''; go('search', {}); ui().focus = 'fm_search'; ui().keyboard = true; } });

function crumbs(path, root, picker) {
  const base = !picker && root === 'downloads' && (path === `${ROOT}/Download` || within(path, `${ROOT}/Download`))
    ? { path: `${ROOT}/Download`, label: 'Downloads' } : { path: ROOT, label: storageLabel() };
  const list = [base];
  if (path !== base.path) {
    let acc = base.path;
    for (const part of path.slice(base.path.length + 1).split('/')) { acc = `${acc}/${part}`; list.push({ path: acc, label: part }); }
  }
  return html`<div class="fm-crumbs" ...${A('android.widget.HorizontalScrollView', { id: 'horizontal_breadcrumb' })}>
    ${list.map((c, i) => html`${i ? html`<span class="fm-sep">›</span>` : null}<span class=${'fm-crumb' + (i === list.length - 1 ? ' last' : '')}
      ...${A('android.widget.TextView', { id: 'breadcrumb_text', text: c.label, click: true })}
      ...${press(() => crumbTo(c.path, root, picker))}>${c.label}</span>`)}
  </div>`;
}

function sortBar() {
  const { by, desc } = sortState();
  const label = { name: 'Name', date: 'Modified', size: 'Size' }[by];
  return html`<div class="fm-sortbar">
    <span class="fm-sortbtn" ...${A('android.widget.Button', { id: 'sort_dimen_dropdown', text: label, desc: `Sort by ${label}`, click: true })}
      ...${press(() => { ui().dialog = { kind: 'sort' }; })}>${label} ${desc ? '↓' : '↑'}</span>
    <span ...${A('android.widget.ImageView', { id: 'sort_arrow', desc: desc ? 'Descending' : 'Ascending', text: '' })}></span>
  </div>`;
}

function listing(items, r, m, { withFolder = false } = {}) {
  const sel = selection();
  const selecting = sel.length > 0;
  return items.map((e) => Row({
    id: 'item_root',
    icon: sel.includes(e.path) ? '✅' : iconFor(e),
    title: baseName(e.path),
    subtitle: subtitleFor(e, m, withFolder),
    selected: sel.includes(e.path),
    onClick: () => (selecting ? toggleSel(e.path) : openEntry(e, r)),
    onLong: () => toggleSel(e.path),
  }));
}

/** The app bar: action mode ("N selected") when items are selected, else the browse bar. */
function bar({ title, r, up, extra = [] }) {
  const sel = selection();
  if (sel.length) {
    const items = ['select_all', 'copy', 'move'];
    if (sel.length === 1) items.push('rename', 'info');
    return {
      up: false,
      search: html`<div class="icon-btn" ...${A('android.widget.ImageButton', { id: 'action_mode_close_button', desc: t('Clear selection', 'Done'), click: true, text: '' })}
          ...${press(() => { ui().files_sel = null; })}>✕</div>${titleEl(`${sel.length} selected`)}`,
      actions: [
        { icon: '⤴', desc: 'Share', id: 'action_menu_share', onClick: () => toast(t('Sharing…', 'Share via')) },
        { icon: '🗑', desc: 'Delete', id: 'action_menu_delete', onClick: () => openDelete(sel) },
        moreAction(items),
      ],
    };
  }
  const dir = routeDir(r);
  const items = [];
  if (dir) items.push('new_folder');
  if (flavor() !== 'aosp') items.push('sort');
  items.push('select_all', ...extra);
  if (flavor() === 'aosp') return { up: false, search: html`${hamburger()}${titleEl(title)}`, actions: [searchAction(), moreAction(items)] };
  return { up, title, actions: [searchAction(), moreAction(items)] };
}

// ------------------------------------------------------------------------------------------
// screens
function browse(p) {
  const r = top().s === 'main' ? { s: 'main', p } : { s: 'dir', p };
  const path = routeDir(r);
  const m = tree();
  const root = p.root || 'storage';
  const title = path === ROOT ? storageLabel() : root === 'downloads' && path === `${ROOT}/Download` ? 'Downloads' : baseName(path);
  if (!isDir(path, m)) {
    return Screen({ ...bar({ title, r, up: true }), body: Empty(t('This folder no longer exists', 'Can’t load content at the moment')) });
  }
  const items = itemsFor(r, m);
  const head = html`${crumbs(path, root, false)}${flavor() === 'aosp' ? sortBar() : null}`;
  const storage = flavor() !== 'aosp' && path === ROOT ? html`<div class="fm-storage" ...${A('android.widget.LinearLayout', { id: 'storage_summary' })}>
      ${html`<span ...${A('android.widget.TextView', { id: 'storage_free', text: freeLabel() })}>${freeLabel()}</span>`}
      <div class="fm-bar"><div style=${`width:${Math.min(100, Math.round((1 - freeBytesFrac()) * 100))}%`}></div></div></div>` : null;
  return Screen({
    ...bar({ title, r, up: r.s !== 'main' }),
    tabs: head,
    body: html`${storage}${items.length ? listing(items, r, m) : Empty(t('This folder is empty', 'No items'))}`,
  });
}
function freeBytesFrac() {
  const used = entries().reduce((s, e) => s + (e.kind === 'file' ? e.size || 0 : 0), 0);
  return Math.max(0, STORAGE_BYTES - SYSTEM_BYTES - used) / STORAGE_BYTES;
}

function main(p) {
  if (flavor() !== 'aosp') return browse(p);
  // aosp: DocumentsUI opens on Recent, with category chips that filter it
  const r = { s: 'main', p };
  const m = tree();
  const items = itemsFor(r, m);
  const chips = html`<div class="fm-chips" ...${A('android.widget.HorizontalScrollView', { id: 'search_chip_group' })}>
    ${Object.entries(CATS).map(([k, c]) => Chip({ label: c.label, on: p.chip === k, id: 'search_chip',
      onClick: () => { if (p.chip === k) delete p.chip; else p.chip = k; ui().files_sel = null; } }))}</div>`;
  return Screen({
    ...bar({ title: 'Recent', r }),
    tabs: chips,
    body: html`${Section(p.chip ? `Recent ${CATS[p.chip].label.toLowerCase()}` : 'Recent files')}
      ${items.length ? listing(items, r, m, { withFolder: true }) : Empty('No items')}`,
  });
}

function cat(p) {
  const r = { s: 'cat', p };
  const m = tree();
  const c = CATS[p.cat] || CATS.documents;
  const items = itemsFor(r, m);
  return Screen({ ...bar({ title: c.label, r, up: true }),
    body: items.length ? listing(items, r, m, { withFolder: true }) : Empty('No items') });
}

function search(p) {
  const r = { s: 'search', p };
  const m = tree();
  const q = (ui().fields.fm_search || '').trim();
  const items = itemsFor(r, m);
  const sel = selection();
  const head = sel.length ? bar({ title: 'Search', r, up: true })
    : { up: true, search: html`<div style="flex:1">${Field({ field: 'fm_search', hint: t('Search files', 'Search files…'), id: 'search_src_text' })}</div>` };
  return Screen({ ...head,
    body: !q ? Empty(t('Type a name to search', 'Search for files')) : items.length ? listing(items, r, m, { withFolder: true })
      : Empty(t('No results', `No matches in ${storageLabel()}`)) });
}

function viewer(p) {
  const m = tree();
  const e = m.get(p.path);
  if (!e) return Screen({ title: baseName(p.path || ''), body: Empty(t('File not found', 'Can’t open file')) });
  return Screen({ title: baseName(e.path),
    actions: [{ icon: '⤴', desc: 'Share', id: 'action_menu_share', onClick: () => toast(t('Sharing…', 'Share via')) },
      { icon: 'ⓘ', desc: t('Details', 'Properties'), id: 'action_menu_inspect', onClick: () => go('info', { path: e.path }) }],
    body: html`<div class="fm-preview">
      <div class="glyph">${iconFor(e)}</div>
      <span ...${A('android.widget.TextView', { id: 'file_name', text: baseName(e.path) })}>${baseName(e.path)}</span>
      <span ...${A('android.widget.TextView', { id: 'file_size', text: fmtSize(e.size) })}>${fmtSize(e.size)}</span>
      <span ...${A('android.widget.TextView', { id: 'preview_note', text: t('No preview available', 'Can’t open file') })}>${t('No preview available', 'Can’t open file')}</span>
    </div>` });
}

function info(p) {
  const m = tree();
  const e = p.path === ROOT ? { path: ROOT, kind: 'dir', size: 0, mtime: null } : m.get(p.path);
  if (!e) return Screen({ title: t('Details', 'Properties'), body: Empty(t('File not found', 'Properties could not be loaded')) });
  const size = e.kind === 'dir' ? folderSize(e.path, m) : e.size || 0;
  const rows = [
    ['Name', baseName(e.path), 'name'],
    ['Type', typeLabel(e), 'type'],
    ['Size', fmtSize(size), 'size'],
  ];
  if (e.kind === 'dir') rows.push([t('Contains', 'Number of Children'), plural(children(e.path, m).length, 'item', 'items'), 'children']);
  rows.push([t('Modified', 'Modified'), fmtDate(e.mtime) || t('Unknown', 'Unknown'), 'date'],
    [t('Location', 'Path'), parentOf(e.path), 'path']);
  return Screen({ title: t('Details', baseName(e.path)), body: html`
    ${flavor() === 'aosp' ? Section('Properties') : null}
    ${rows.map(([k, v, id]) => Row({ title: k, subtitle: v, id: `info_${id}` }))}` });
}

function picker(p) {
  const m = tree();
  const dir = p.dir || ROOT;
  const items = isDir(dir, m) ? sortEntries(children(dir, m), m) : [];
  const n = (p.paths || []).length;
  const moving = p.op !== 'copy';
  const blocked = (p.paths || []).some((x) => dir === x || within(dir, x));
  const leave = () => { const s = stack(); while (s.length > 1 && s[s.length - 1].s === 'picker') s.pop(); };
  const done = () => {
    const err = moving ? moveEntries(p.paths || [], dir) : copyEntries(p.paths || [], dir);
    if (err) { toast(err); return; }
    leave();
    ui().files_sel = null;
    toast(moving ? t(`Moved ${plural(n, 'item', 'items')}`, `Moving ${plural(n, 'file', 'files')}.`)
      : t(`Copied ${plural(n, 'item', 'items')}`, `Copying ${plural(n, 'file', 'files')}.`));
  };
  const title = t(`${moving ? 'Move' : 'Copy'} ${plural(n, 'item', 'items')} to…`, dir === ROOT ? storageLabel() : baseName(dir));
  return Screen({
    title, up: true,
    tabs: crumbs(dir, 'storage', true),
    body: items.length ? items.map((e) => Row({ id: 'item_root', icon: iconFor(e), title: baseName(e.path), subtitle: subtitleFor(e, m),
      disabled: e.kind !== 'dir' || (p.paths || []).includes(e.path),
      onClick: e.kind === 'dir' ? () => go('picker', { ...p, dir: e.path }) : undefined })) : Empty(t('This folder is empty', 'No items')),
    bottom: html`<div class="fm-pickbar">
      ${Button({ label: 'Cancel', id: 'button_cancel', onClick: leave })}
      ${Button({ label: moving ? t('Move here', 'Move') : t('Copy here', 'Copy'), id: 'button_confirm', kind: 'filled', disabled: blocked, onClick: done })}
    </div>`,
  });
}

// ------------------------------------------------------------------------------------------
// actions and dialogs
function curDir() { const tp = top(); return routeDir({ s: tp.s, p: tp.p || {} }); }
function openNewFolder(dir) {
  if (!dir) return;
  ui().fields.fm_name = '';
  ui().dialog = { kind: 'newfolder', dir };
  ui().focus = 'fm_name'; ui().keyboard = true;
}
function openRename(path) {
  if (!path) return;
  ui().fields.fm_name = baseName(path);
  ui().dialog = { kind: 'rename', path };
  ui().focus = 'fm_name'; ui().keyboard = true;
}
function openDelete(paths) { if (paths.length) ui().dialog = { kind: 'delete', paths: [...paths] }; }
function startPicker(op) {
  const paths = selection();
  if (!paths.length) return;
  ui().files_sel = null;
  go('picker', { op, paths, dir: ROOT });
}
const closeDialog = () => { ui().dialog = null; ui().focus = null; ui().keyboard = false; };

const MENU = {
  new_folder: { label: () => 'New folder', id: 'action_menu_create_dir', run: () => openNewFolder(curDir()) },
  sort: { label: () => 'Sort by', id: 'action_menu_sort', run: () => { ui().dialog = { kind: 'sort' }; } },
  select_all: { label: () => 'Select all', id: 'action_menu_select_all',
    run: () => { const tp = top(); setSelection(itemsFor({ s: tp.s, p: tp.p || {} }).map((e) => e.path)); } },
  copy: { label: () => t('Copy to', 'Copy to…'), id: 'action_menu_copy_to', run: () => startPicker('copy') },
  move: { label: () => t('Move to', 'Move to…'), id: 'action_menu_move_to', run: () => startPicker('move') },
  rename: { label: () => 'Rename', id: 'action_menu_rename', run: () => openRename(selection()[0]) },
  info: { label: () => t('Details', 'Properties'), id: 'action_menu_inspect', run: () => { const s = selection()[0]; ui().files_sel = null; if (s) go('info', { path: s }); } },
};

function deleteMessage(paths) {
  const n = paths.length;
  if (flavor() !== 'aosp') return `Delete ${plural(n, 'item', 'items')}?`;
  const m = tree();
  const dirs = paths.filter((p) => m.get(p)?.kind === 'dir').length;
  if (n === 1) return dirs ? `Delete folder "${baseName(paths[0])}" and its contents?` : `Delete "${baseName(paths[0])}"?`;
  if (dirs === n) return `Delete ${n} folders and their contents?`;
  if (dirs === 0) return `Delete ${n} files?`;
  return `Delete ${n} items?`;
}

const scrimClose = (e) => { if (e.target === e.currentTarget) update(() => { ui().dialog = null; }); };

const dialogs = {
  menu: (d) => html`<div class="scrim fm-menu-scrim" onClick=${scrimClose}>
    <div class="fm-menu" ...${A('android.widget.ListView', { id: 'android:id/list' })}>
      ${(d.items || []).filter((k) => MENU[k]).map((k) => Row({ title: MENU[k].label(), id: MENU[k].id,
        onClick: () => { ui().dialog = null; MENU[k].run(); } }))}
    </div></div>`,
  roots: () => {
    const go2 = (stackTail) => { ui().dialog = null; ui().files_sel = null; ui().tasks.files = [{ s: 'main', p: {} }, ...stackTail]; };
    return html`<div class="scrim fm-drawer-scrim" onClick=${scrimClose}>
      <div class="fm-drawer" ...${A('android.widget.FrameLayout', { id: 'drawer_roots' })}>
        <div class="fm-drawer-title" ...${A('android.widget.TextView', { id: 'drawer_title', text: 'Files' })}>Files</div>
        <div ...${A('androidx.recyclerview.widget.RecyclerView', { id: 'roots_list' })}>
          ${Row({ icon: '🕘', title: 'Recent', id: 'root_recent', onClick: () => go2([]) })}
          ${Object.entries(CATS).map(([k, c]) => Row({ icon: c.icon, title: c.label, id: `root_${k}`, onClick: () => go2([{ s: 'cat', p: { cat: k } }]) }))}
          ${Row({ icon: '⬇', title: 'Downloads', id: 'root_downloads', onClick: () => go2([{ s: 'dir', p: { path: `${ROOT}/Download`, root: 'downloads' } }]) })}
          <div class="fm-divider"></div>
          ${Row({ icon: '📱', title: storageLabel(), subtitle: freeLabel(), id: 'root_storage', onClick: () => go2([{ s: 'dir', p: { path: ROOT, root: 'storage' } }]) })}
        </div>
      </div></div>`;
  },
  sort: () => {
    const { by, desc } = sortState();
    return Dialog({ title: 'Sort by', body: SORTS.map(([b, dsc, simL, aospL]) => Radio({ label: t(simL, aospL), checked: by === b && desc === dsc,
      id: `sort_${b}_${dsc ? 'desc' : 'asc'}`, onSelect: () => { ui().files_sort = { by: b, desc: dsc }; ui().dialog = null; } })),
    buttons: [{ label: 'Cancel', onClick: () => { ui().dialog = null; } }] });
  },
  newfolder: (d) => {
    const ok = () => {
      const err = createFolder(d.dir, ui().fields.fm_name);
      if (err) { ui().dialog = { ...d, err }; return; }
      closeDialog();
      toast(t('Folder created', `Created folder "${(ui().fields.fm_name || '').trim()}"`));
    };
    return Dialog({ title: 'New folder', body: html`${Field({ field: 'fm_name', hint: 'Folder name', id: 'android:id/text1', onSubmit: ok })}
      ${d.err ? html`<div class="fm-err" ...${A('android.widget.TextView', { id: 'textinput_error', text: d.err })}>${d.err}</div>` : null}`,
    buttons: [{ label: 'Cancel', onClick: closeDialog }, { label: t('Create', 'OK'), onClick: ok }] });
  },
  rename: (d) => {
    const ok = () => {
      const err = renameEntry(d.path, ui().fields.fm_name);
      if (err) { ui().dialog = { ...d, err }; return; }
      closeDialog();
      ui().files_sel = null;
    };
    return Dialog({ title: 'Rename', body: html`${Field({ field: 'fm_name', hint: t('New name', 'Name'), id: 'android:id/text1', onSubmit: ok })}
      ${d.err ? html`<div class="fm-err" ...${A('android.widget.TextView', { id: 'textinput_error', text: d.err })}>${d.err}</div>` : null}`,
    buttons: [{ label: 'Cancel', onClick: closeDialog }, { label: t('Rename', 'OK'), onClick: ok }] });
  },
  delete: (d) => {
    const msg = deleteMessage(d.paths || []);
    return Dialog({ title: null, body: html`<div class="fm-msg" ...${A('android.widget.TextView', { id: 'android:id/message', text: msg })}>${msg}</div>`,
      buttons: [{ label: 'Cancel', onClick: () => { ui().dialog = null; } }, { label: 'Delete', onClick: () => {
        const n = (d.paths || []).length;
        deleteEntries(d.paths || []);
        ui().dialog = null; ui().files_sel = null;
        toast(t(`${plural(n, 'item', 'items')} deleted`, `Deleting ${plural(n, 'file', 'files')}.`));
      } }] });
  },
};

registerApp({
  id: 'files', label: 'Files', pkg: 'com.android.documentsui', icon: '📁', color: '#1a73e8',
  root: { s: 'main', p: {} },
  screens: { main, dir: browse, cat, search, viewer, info, picker },
  dialogs,
  // Back leaves action mode before it leaves the folder (as DocumentsUI does).
  onBack: () => { if (selection().length) { ui().files_sel = null; return true; } return false; },
  activity: (r) => (r.s === 'picker' ? 'com.android.documentsui/.picker.PickActivity'
    : r.s === 'info' ? 'com.android.documentsui/.inspector.InspectorActivity'
      : 'com.android.documentsui/.files.FilesActivity'),
});
