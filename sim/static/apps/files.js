// Files (com.android.documentsui): browse shared storage, select, delete, rename, move/copy,
// create folders, search, properties.
//
// Everything comes from world().files (WorldState FileEntry records {path, kind, size, mtime},
// paths under /sdcard). Folders that only exist implicitly (a file's parent without its own
// record) are still shown, and every mutation materialises the parents it relies on, so the
// list stays consistent: no duplicate paths, every parent exists.
//
// Flavor `sim`: a simple "Internal storage" browser (up arrow, overflow with Sort by).
// Flavor `aosp`: AOSP's DocumentsUI as LineageOS builds it (lineage-21.0, Android 14; see "flavor
// aosp" below, each screen citing its layouts): it opens on Recent with search chips; the roots
// drawer ("Show roots": Recent, Images, Videos, Audio, Documents, Downloads, and the device's storage,
// titled with the device's name and telling its free space); a breadcrumb and a "Files in …" header;
// rows with one metadata line (none for folders); an action mode "N selected" with Share/Delete and
// an overflow; the framework's dialogs (OK / Cancel); the copy/move picker opening on Downloads; Get info.
// Flavor `google`: a Pixel ships the same DocumentsUI, built as com.google.android.documentsui (same
// layouts, Google's overlay only brands it), so every stock flavor draws the aosp screens below
// (`stock()`); apps/google/files.js only gives them the Pixel's package and activities.
import { html, registerApp, Screen, Row, Dialog, Radio, Field, Empty, Button, Chip, A,
  world, ui, go, back, t, stock, update, toast, now, nowIso, fmtTime, pressHandlers, scrollKey } from '../os.js';

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
  const shorter = !stock();
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
  // aosp too: base/Shared.formatTime (FORMAT_SHOW_DATE | FORMAT_SHOW_YEAR | FORMAT_ABBREV_ALL)
  return `${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}, ${d.getUTCFullYear()}`;
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
  const parts = stock() ? [date, size] : [size, date];
  if (withFolder) parts.push(parentOf(e.path) === ROOT ? storageLabel() : baseName(parentOf(e.path)));
  return parts.filter(Boolean).join(' · ');
}
const storageLabel = () => 'Internal storage';  // the sim flavor's (DocumentsUI's is the device's name: deviceName)
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
  const key = (e) => (by === 'size' ? (e.kind === 'dir' ? folderSize(e.path, m) : e.size || 0) : by === 'date' ? (e.mtime || '')
    : by === 'type' ? typeLabel(e) : null);  // 'type': the aosp flavor's Type (A to Z)
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
  if (r.s === 'main' && !stock()) return ROOT;
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
      : (e.s === 'dir' && e.p.path === path) || (e.s === 'main' && !stock() && path === ROOT);
    if (hit) { s.length = i + 1; ui().files_sel = null; return; }
    if (picker && e.s !== 'picker') break;
  }
  if (picker) go('picker', { ...top().p, dir: path });
  else go('dir', { path, root });
}

// ------------------------------------------------------------------------------------------
// pieces of UI
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
  items.push('sort');
  items.push('select_all', ...extra);
  return { up, title, actions: [searchAction(), moreAction(items)] };
}

// ------------------------------------------------------------------------------------------
// screens
function browse(p) {
  if (stock()) return xBrowse({ s: top().s === 'main' ? 'main' : 'dir', p });
  const r = top().s === 'main' ? { s: 'main', p } : { s: 'dir', p };
  const path = routeDir(r);
  const m = tree();
  const root = p.root || 'storage';
  const title = path === ROOT ? storageLabel() : root === 'downloads' && path === `${ROOT}/Download` ? 'Downloads' : baseName(path);
  if (!isDir(path, m)) {
    return Screen({ ...bar({ title, r, up: true }), body: Empty(t('This folder no longer exists', 'Can’t load content at the moment')) });
  }
  const items = itemsFor(r, m);
  const head = html`${crumbs(path, root, false)}`;
  const storage = !stock() && path === ROOT ? html`<div class="fm-storage" ...${A('android.widget.LinearLayout', { id: 'storage_summary' })}>
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
  if (stock()) return xBrowse({ s: 'main', p });
  return browse(p);
}

function cat(p) {
  if (stock()) return xBrowse({ s: 'cat', p });
  const r = { s: 'cat', p };
  const m = tree();
  const c = CATS[p.cat] || CATS.documents;
  const items = itemsFor(r, m);
  return Screen({ ...bar({ title: c.label, r, up: true }),
    body: items.length ? listing(items, r, m, { withFolder: true }) : Empty('No items') });
}

function search(p) {
  if (stock()) return xSearch();
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
  if (stock()) return xInfo(p);
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
    ${rows.map(([k, v, id]) => Row({ title: k, subtitle: v, id: `info_${id}` }))}` });
}

function picker(p) {
  if (stock()) return xPicker(p);
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
  // aosp: the copy / move destination picker opens on the Downloads root (see xPicker)
  if (stock()) go('picker', { op, paths, dir: `${ROOT}/Download`, root: 'downloads' });
  else go('picker', { op, paths, dir: ROOT });
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
  if (!stock()) return `Delete ${plural(n, 'item', 'items')}?`;
  const m = tree();
  const dirs = paths.filter((p) => m.get(p)?.kind === 'dir').length;
  if (n === 1) return dirs ? `Delete folder "${baseName(paths[0])}" and its contents?` : `Delete "${baseName(paths[0])}"?`;
  if (dirs === n) return `Delete ${n} folders and their contents?`;
  if (dirs === 0) return `Delete ${n} files?`;
  return `Delete ${n} items?`;
}

const scrimClose = (e) => { if (e.target === e.currentTarget) update(() => { ui().dialog = null; }); };

const dialogs = {
  menu: (d) => stock() ? xMenuDialog(d) : html`<div class="scrim fm-menu-scrim" onClick=${scrimClose}>
    <div class="fm-menu" ...${A('android.widget.ListView', { id: 'android:id/list' })}>
      ${(d.items || []).filter((k) => MENU[k]).map((k) => Row({ title: MENU[k].label(), id: MENU[k].id,
        onClick: () => { ui().dialog = null; MENU[k].run(); } }))}
    </div></div>`,
  roots: (d) => xRoots(d),  // the roots drawer: the aosp flavor's
  sort: () => {
    if (stock()) return xSortSheet();
    const { by, desc } = sortState();
    return Dialog({ title: 'Sort by', body: SORTS.map(([b, dsc, simL, aospL]) => Radio({ label: t(simL, aospL), checked: by === b && desc === dsc,
      id: `sort_${b}_${dsc ? 'desc' : 'asc'}`, onSelect: () => { ui().files_sort = { by: b, desc: dsc }; ui().dialog = null; } })),
    buttons: [{ label: 'Cancel', onClick: () => { ui().dialog = null; } }] });
  },
  newfolder: (d) => {
    if (stock()) return xNameDialog(d, 'New folder', () => createFolder(d.dir, ui().fields.fm_name));
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
    if (stock()) {
      return xNameDialog(d, 'Rename', () => { const err = renameEntry(d.path, ui().fields.fm_name); if (!err) ui().files_sel = null; return err; });
    }
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
    if (stock()) {
      // files/DeleteDocumentFragment.java: a MaterialAlertDialog whose view is dialog_delete_confirmation.xml
      // (a TextView without id) with delete_*_confirmation_message; OK deletes (toast plurals delete_begin)
      return xAlert({ ok: 'OK', onCancel: () => { ui().dialog = null; },
        view: html`<span class="fm-msg" ...${A('android.widget.TextView', { text: msg })}>${msg}</span>`,
        onOk: () => { const n = (d.paths || []).length; deleteEntries(d.paths || []); ui().dialog = null; ui().files_sel = null;
          toast(`Deleting ${plural(n, 'item', 'items')}.`); } });
    }
    return Dialog({ title: null, body: html`<div class="fm-msg" ...${A('android.widget.TextView', { id: 'android:id/message', text: msg })}>${msg}</div>`,
      buttons: [{ label: 'Cancel', onClick: () => { ui().dialog = null; } }, { label: 'Delete', onClick: () => {
        const n = (d.paths || []).length;
        deleteEntries(d.paths || []);
        ui().dialog = null; ui().files_sel = null;
        toast(t(`${plural(n, 'item', 'items')} deleted`, `Deleting ${plural(n, 'file', 'files')}.`));
      } }] });
  },
};

// ==========================================================================================
// flavor aosp: DocumentsUI, LineageOS/android_packages_apps_DocumentsUI
// @ a2c1dd717347fc6dae14de4e5ae0b1651eb5ed78 (lineage-21.0, Android 14), a phone (no tablet columns).
// Classes are what uiautomator reports (View.getAccessibilityClassName): CoordinatorLayout,
// DrawerLayout, DocumentsSwipeRefreshLayout and the AppCompat Toolbar → android.view.ViewGroup,
// AppBarLayout / RootItemView / KeyValueRow → android.widget.LinearLayout, CollapsingToolbarLayout /
// MaterialCardView → android.widget.FrameLayout, NestedScrollView → android.widget.ScrollView,
// RootsList → android.widget.ListView, Chip → android.widget.CompoundButton.
if (typeof document !== 'undefined' && !document.getElementById('xfm-css')) {
  const s = document.createElement('style');
  s.id = 'xfm-css';
  s.textContent = `
.xf { position: absolute; inset: 0; display: flex; flex-direction: column; background: var(--bg); }
.xf-appbar { flex: 0 0 auto; display: flex; flex-direction: column; background: var(--bg); }
.xf-toolbar { height: 56px; display: flex; align-items: center; padding: 0 4px; gap: 4px; }
.xf-title { flex: 1; font-size: calc(20px * var(--fs)); padding-left: 12px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.xf-actions { display: flex; }
.xf-crumbs { display: flex; align-items: center; padding: 0 12px; overflow: hidden; white-space: nowrap; font-size: 14px; color: var(--muted); }
.xf-crumb { display: flex; align-items: center; padding: 10px 4px; }
.xf-crumb.last { color: var(--primary); font-weight: 500; }
.xf-chips { display: flex; gap: 8px; padding: 4px 12px 8px; overflow: hidden; }
.xf-header { display: flex; align-items: center; justify-content: space-between; padding: 8px 8px 4px 24px; font-size: 14px; color: var(--muted); }
.xf-list { flex: 1; min-height: 0; overflow-y: auto; scrollbar-width: none; }
.xf-item { display: flex; align-items: center; min-height: 64px; padding: 6px 0; }
.xf-item[data-selected="1"] { background: var(--primary-c); }
.xf-item.off { opacity: .4; }
.xf-icon { width: 72px; display: flex; justify-content: center; font-size: 24px; flex: 0 0 72px; }
.xf-lines { flex: 1; min-width: 0; }
.xf-name { font-size: calc(16px * var(--fs)); overflow-wrap: anywhere; }
.xf-meta { font-size: calc(13px * var(--fs)); color: var(--muted); margin-top: 2px; }
.xf-preview { width: 48px; height: 48px; display: flex; align-items: center; justify-content: center; color: var(--muted); }
.xf-message { display: flex; flex-direction: column; align-items: center; gap: 12px; padding: 96px 24px; color: var(--muted); }
.xf-scrim { position: absolute; inset: 0; background: rgba(0,0,0,.35); z-index: 20; }
.xf-drawer { position: absolute; top: 0; bottom: 0; left: 0; width: 78%; background: var(--bg); border-radius: 0 16px 16px 0; display: flex; flex-direction: column; z-index: 21; }
.xf-drawer-title { height: 56px; display: flex; align-items: center; padding: 0 24px; font-size: 20px; color: var(--primary); }
.xf-root { display: flex; align-items: center; gap: 16px; padding: 10px 16px 10px 24px; min-height: 48px; }
.xf-root-sum { font-size: 13px; color: var(--muted); }
.xf-pickbar { flex: 0 0 auto; display: flex; justify-content: flex-end; align-items: center; gap: 8px; padding: 8px 16px 12px; border-top: 1px solid var(--line); }
.xf-sheet { position: absolute; left: 0; right: 0; bottom: 0; background: var(--surface); border-radius: 16px 16px 0 0; padding: 8px 0 16px; z-index: 21; }
.xf-sheet-title { padding: 12px 24px; font-size: 12px; letter-spacing: 1px; color: var(--muted); }
.xf-sheet-item { padding: 14px 24px; font-size: calc(15px * var(--fs)); display: flex; justify-content: space-between; }
.xf-kv { display: flex; gap: 16px; padding: 10px 24px; }
.xf-kv-key { flex: 0 0 35%; color: var(--muted); }
`;
  document.head.appendChild(s);
}

/** The storage root is titled with the device's name (base/Shared.java getDeviceName:
 *  Settings.Global.DEVICE_NAME, else the model): never "Internal storage". */
const deviceName = () => (world().settings && world().settings.device_name) || (world().device && world().device.model) || 'Phone';
const xTap = (fn) => ({ onClick: (e) => { if (window.S2R.gestureLock) return; e.stopPropagation(); update(() => fn(e)); } });
const xText = (id, text, cls = '', extra = {}) => html`<span class=${cls} ...${A('android.widget.TextView', { id, text, ...extra })}>${text}</span>`;
const shownName = (e) => ui().files_hidden || !baseName(e.path).startsWith('.');
const X_CHIPS = [['images', 'Images'], ['documents', 'Documents'], ['audio', 'Audio'], ['videos', 'Videos'], ['large', 'Large files'], ['week', 'This week']];

/** Where a browse route is: its root, the folder it lists, the toolbar title, the header title and
 *  the breadcrumb (HorizontalBreadcrumb: none in Recent, else the root's title then each folder). */
function xWhere(r) {
  if (r.s === 'main') return { root: 'recent', title: 'Recent', header: 'Recent files', crumbs: [] };
  if (r.s === 'cat') {
    const c = CATS[r.p.cat] || CATS.documents;
    return { root: r.p.cat, title: c.label, header: c.label, crumbs: [{ label: c.label, path: null }] };
  }
  const path = r.p.path || ROOT;
  const downloads = r.p.root === 'downloads';
  const base = downloads ? { label: 'Downloads', path: `${ROOT}/Download` } : { label: deviceName(), path: ROOT };
  const crumbs = [base];
  if (path !== base.path && within(path, base.path)) {
    let acc = base.path;
    for (const part of path.slice(base.path.length + 1).split('/')) { acc = `${acc}/${part}`; crumbs.push({ label: part, path: acc }); }
  }
  const title = crumbs.length > 1 ? crumbs[crumbs.length - 1].label : base.label;
  // BaseActivity.updateHeaderTitle: root_info_header_storage / _folder / _downloads
  const header = downloads ? (crumbs.length > 1 ? `Files in ${title}` : 'Files in Downloads')
    : crumbs.length > 1 ? `Files in ${title}` : `Files on ${base.label}`;
  return { root: downloads ? 'downloads' : 'storage', path, title, header, crumbs };
}

/** Recent's chips filter it (queries/SearchChipViewManager.java). */
function xChipMatch(chip, e) {
  if (!chip) return true;
  if (chip === 'large') return (e.size || 0) >= 10e6;
  if (chip === 'week') return !!e.mtime && now() - new Date(String(e.mtime).slice(0, 19) + 'Z') < 7 * 86400e3;
  return catOf(e) === chip;
}
function xItems(r, m = tree()) {
  if (r.s === 'main') return recentItems(null, m).filter((e) => xChipMatch(r.p.chip, e)).filter(shownName);
  return itemsFor(r, m).filter(shownName);
}

function xToolbar(w, r) {
  // directory_app_bar.xml Toolbar `toolbar`: navigation "Show roots" (NavigationViewManager: drawer_open),
  // the title (no id), res/menu/activity.xml option_menu_search and the overflow
  const sel = selection();
  if (sel.length) return xActionMode(sel, r);
  return html`<div class="xf-toolbar" ...${A('android.view.ViewGroup', { id: 'toolbar' })}>
    <div class="icon-btn" ...${A('android.widget.ImageButton', { desc: 'Show roots', click: true, text: '' })} ...${xTap(() => { ui().dialog = { kind: 'roots' }; })}>☰</div>
    <div class="xf-title" ...${A('android.widget.TextView', { text: w.title })}>${w.title}</div>
    <div class="xf-actions" ...${A('android.widget.LinearLayout')}>
      <div class="icon-btn" ...${A('android.widget.Button', { id: 'option_menu_search', desc: 'Search', click: true, text: '' })}
        ...${xTap(() => { ui().fields.fm_search = ''; go('search', {}); ui().focus = 'fm_search'; ui().keyboard = true; })}>🔍</div>
      <div class="icon-btn" ...${A('android.widget.ImageView', { desc: 'More options', click: true, text: '' })} ...${xTap(() => { ui().dialog = { kind: 'menu', at: r.s }; })}>⋮</div>
    </div>
  </div>`;
}

function xActionMode(sel, r) {
  // ActionModeController (AppCompat action mode: action_mode_bar > action_mode_close_button "Done",
  // action_bar_title plurals selected_count) with res/menu/action_mode_menu.xml: Share and Delete shown
  // always (MenuManager.updateShare: no folders), the rest in the overflow
  const m = tree();
  const dirs = sel.some((p) => m.get(p)?.kind === 'dir');
  return html`<div class="xf-toolbar" ...${A('android.view.ViewGroup', { id: 'action_mode_bar' })}>
    <div class="icon-btn" ...${A('android.widget.ImageView', { id: 'action_mode_close_button', desc: 'Done', click: true, text: '' })} ...${xTap(() => { ui().files_sel = null; })}>✕</div>
    <div class="xf-title" ...${A('android.widget.LinearLayout')}>${xText('action_bar_title', `${sel.length} selected`)}</div>
    <div class="xf-actions" ...${A('android.widget.LinearLayout')}>
      ${dirs ? null : html`<div class="icon-btn" ...${A('android.widget.Button', { id: 'action_menu_share', desc: 'Share', click: true, text: '' })} ...${xTap(() => toast('Share'))}>⤴</div>`}
      <div class="icon-btn" ...${A('android.widget.Button', { id: 'action_menu_delete', desc: 'Delete', click: true, text: '' })} ...${xTap(() => openDelete(sel))}>🗑</div>
      <div class="icon-btn" ...${A('android.widget.ImageView', { desc: 'More options', click: true, text: '' })} ...${xTap(() => { ui().dialog = { kind: 'menu', at: r.s, selecting: true }; })}>⋮</div>
    </div>
  </div>`;
}

function xCrumbs(w, picker) {
  // navigation_breadcrumb_item.xml: a clickable LinearLayout > breadcrumb_text (enabled only on the
  // last crumb, HorizontalBreadcrumb.onBindViewHolder) + breadcrumb_arrow between crumbs
  if (!w.crumbs.length) return null;
  return html`<div class="xf-crumbs" ...${A('androidx.recyclerview.widget.RecyclerView', { id: 'horizontal_breadcrumb' })}>
    ${w.crumbs.map((c, i) => { const last = i === w.crumbs.length - 1; return html`<div class=${'xf-crumb' + (last ? ' last' : '')}
        ...${A('android.widget.LinearLayout', { click: true })} ...${xTap(() => { if (c.path) crumbTo(c.path, w.root, picker); })}>
      <span ...${A('android.widget.TextView', { id: 'breadcrumb_text', text: c.label, disabled: !last })}>${c.label}</span>
      ${last ? null : html`<span ...${A('android.widget.ImageView', { id: 'breadcrumb_arrow', text: '' })}> › </span>`}
    </div>`; })}
  </div>`;
}

function xHeader(w, r) {
  // directory_header.xml: the breadcrumb, search_chip_row.xml (Recent), header_container > header_title,
  // sub_menu (res/menu/sub_menu.xml: sub_menu_grid "Grid view" while in list mode)
  const chip = r.s === 'main' ? r.p.chip : null;
  return html`<div ...${A('android.widget.ScrollView')}>
    <div ...${A('android.widget.LinearLayout', { id: 'directory_header' })}>
      ${xCrumbs(w, false)}
      ${r.s === 'main' ? html`<div class="xf-chips" ...${A('android.widget.HorizontalScrollView')}>
        <div style="display:flex;gap:8px" ...${A('android.widget.LinearLayout', { id: 'search_chip_group' })}>
          ${X_CHIPS.map(([k, label]) => Chip({ label, on: chip === k,
            onClick: () => { const tp = top(); tp.p = { ...(tp.p || {}) }; if (chip === k) delete tp.p.chip; else tp.p.chip = k; ui().files_sel = null; } }))}
        </div></div>` : null}
      <div class="xf-header" ...${A('android.widget.LinearLayout', { id: 'header_container' })}>
        ${xText('header_title', w.header)}
        <div ...${A('android.widget.LinearLayout', { id: 'sub_menu' })}>
          <div class="icon-btn" ...${A('android.widget.Button', { id: 'sub_menu_grid', desc: 'Grid view', click: true, text: '' })} ...${xTap(() => toast('Grid view'))}>▦</div>
        </div>
      </div>
    </div></div>`;
}

/** item_doc_list.xml: item_root > icon (icon_mime, or icon_check when selected) + android:id/title +
 *  line2 > metadata "date, size, type" (ListDocumentHolder.bind: none for a folder, ever) +
 *  preview_icon for a file ("Preview the file <name>"). */
function xRow(e, m, { onClick, onLong, selected, off } = {}) {
  const name = baseName(e.path);
  const file = e.kind !== 'dir';
  const meta = file ? [fmtDate(e.mtime), fmtSize(e.size), typeLabel(e)].filter(Boolean).join(', ') : '';
  return html`<div class=${'xf-item' + (off ? ' off' : '')}
      ...${A('android.widget.LinearLayout', { id: 'item_root', click: !!onClick, long: !!onLong, selected, disabled: off })}
      ...${onClick || onLong ? pressHandlers(onClick || (() => {}), onLong) : {}}>
    <div style="display:flex;align-items:center;flex:1;min-width:0" ...${A('android.widget.LinearLayout')}>
      <div class="xf-icon" ...${A('android.widget.FrameLayout', { id: 'icon' })}>
        <div ...${A('android.widget.FrameLayout')}>${selected
          ? html`<span ...${A('android.widget.ImageView', { id: 'icon_check', text: '' })}>✅</span>`
          : html`<span ...${A('android.widget.ImageView', { id: 'icon_mime', text: '' })}>${iconFor(e)}</span>`}</div>
      </div>
      <div class="xf-lines" ...${A('android.widget.LinearLayout')}>
        <div ...${A('android.widget.LinearLayout')}><span class="xf-name" ...${A('android.widget.TextView', { id: 'android:id/title', text: name })}>${name}</span></div>
        ${file ? html`<div ...${A('android.widget.LinearLayout', { id: 'line2' })}>${xText('metadata', meta, 'xf-meta')}</div>` : null}
      </div>
      ${file ? html`<div class="xf-preview" ...${A('android.widget.FrameLayout', { id: 'preview_icon', desc: `Preview the file ${name}`, click: true, text: '' })}
        ...${xTap(() => toast('Can’t open file'))}>⤢</div>` : null}
    </div>
  </div>`;
}

function xMessage(text) {
  // item_doc_inflated_message.xml: android:id/empty > content > artwork, message
  return html`<div class="xf-message" ...${A('android.widget.FrameLayout', { id: 'android:id/empty' })}>
    <div style="display:flex;flex-direction:column;align-items:center;gap:12px" ...${A('android.widget.LinearLayout', { id: 'content' })}>
      <span style="font-size:64px" ...${A('android.widget.ImageView', { id: 'artwork', text: '' })}>🗂</span>${xText('message', text)}</div></div>`;
}

function xList(items, r, m, picker) {
  const sel = selection();
  const selecting = sel.length > 0;
  const key = scrollKey();
  return html`<div class="xf-list" data-scroll-key=${key} ...${A('android.widget.FrameLayout', { id: 'container_directory' })}>
    <div ...${A('android.widget.LinearLayout')}>
      <div ...${A('android.view.ViewGroup', { id: 'refresh_layout' })}>
        <div ...${A('androidx.recyclerview.widget.RecyclerView', { id: 'dir_list', scroll: true })}>
          ${items.length ? items.map((e) => (picker ? xRow(e, m, {
            off: e.kind !== 'dir' || (picker.paths || []).includes(e.path),
            onClick: e.kind === 'dir' && !(picker.paths || []).includes(e.path) ? () => go('picker', { ...picker, dir: e.path }) : null })
            : xRow(e, m, { selected: sel.includes(e.path),
              onClick: () => (selecting ? toggleSel(e.path) : e.kind === 'dir' ? openEntry(e, r) : toast('Can’t open file')),
              onLong: () => toggleSel(e.path) })))
            : xMessage(r.s === 'search' ? `No matches in ${deviceName()}` : 'No items')}
        </div>
      </div>
    </div>
  </div>`;
}

/** drawer_layout.xml: coordinator_layout > drawer_layout > (the directory, the app bar, container_save). */
function xFrame(appbar, list, save) {
  return html`<div class="xf" ...${A('android.view.ViewGroup', { id: 'coordinator_layout' })}>
    <div style="flex:1;display:flex;flex-direction:column;min-height:0" ...${A('android.view.ViewGroup', { id: 'drawer_layout' })}>
      <div style="flex:1;display:flex;flex-direction:column;min-height:0" ...${A('android.view.ViewGroup')}>
        <div class="xf-appbar" ...${A('android.widget.LinearLayout', { id: 'app_bar' })}>
          <div ...${A('android.widget.FrameLayout', { id: 'collapsing_toolbar' })}>${appbar}</div>
        </div>
        ${list}
        ${save || null}
      </div>
    </div>
  </div>`;
}

function xBrowse(r) {
  const m = tree();
  const w = xWhere(r);
  if (w.path && !isDir(w.path, m)) {
    return xFrame(html`${xToolbar(w, r)}`, xMessage('Can’t load content at the moment'));
  }
  return xFrame(html`${xToolbar(w, r)}${xHeader(w, r)}`, xList(xItems(r, m), r, m));
}

function xSearch() {
  // SearchViewManager: the toolbar's SearchView expanded (collapse button described button_back "Back",
  // search_src_text hinted search_bar_hint "Search this device"); results from the whole device
  const r = { s: 'search', p: {} };
  const m = tree();
  const q = (ui().fields.fm_search || '').trim();
  const sel = selection();
  const bar = sel.length ? xActionMode(sel, r) : html`<div class="xf-toolbar" ...${A('android.view.ViewGroup', { id: 'toolbar' })}>
    <div class="icon-btn" ...${A('android.widget.ImageButton', { desc: 'Back', click: true, text: '' })} ...${xTap(() => back())}>←</div>
    <div style="flex:1" ...${A('android.widget.LinearLayout', { id: 'option_menu_search' })}>
      ${Field({ field: 'fm_search', hint: 'Search this device', id: 'search_src_text' })}</div>
  </div>`;
  const items = q ? searchItems(m).filter(shownName) : [];
  return xFrame(bar, q ? xList(items, r, m) : html`<div class="xf-list"></div>`);
}

function xPicker(p) {
  // PickActivity for a copy / move destination (DirectoryFragment.transferDocuments: the drawer titled
  // menu_copy / menu_move; picker/ActionHandler.launchHomeForCopyDestination: it opens on the default
  // root, config.xml default_root_uri = the Downloads root). Files are shown disabled; fragment_pick.xml
  // in container_save: android:id/button2 "Cancel", android:id/button1 button_move "Move" / button_copy "Copy"
  const m = tree();
  const moving = p.op !== 'copy';
  const r = { s: 'dir', p: { path: p.dir || `${ROOT}/Download`, root: p.root || 'downloads' } };
  const w = xWhere(r);
  const dir = w.path;
  const items = isDir(dir, m) ? sortEntries(children(dir, m), m).filter(shownName) : [];
  const blocked = (p.paths || []).some((x) => dir === x || within(dir, x));
  const leave = () => { const s = stack(); while (s.length > 1 && s[s.length - 1].s === 'picker') s.pop(); };
  const n = (p.paths || []).length;
  const done = () => {
    const err = moving ? moveEntries(p.paths || [], dir) : copyEntries(p.paths || [], dir);
    if (err) { toast(err); return; }
    leave();
    ui().files_sel = null;
    toast(`${moving ? 'Moving' : 'Copying'} ${plural(n, 'item', 'items')}.`);  // plurals move_begin / copy_begin
  };
  const bar = html`<div class="xf-toolbar" ...${A('android.view.ViewGroup', { id: 'toolbar' })}>
    <div class="icon-btn" ...${A('android.widget.ImageButton', { desc: 'Show roots', click: true, text: '' })} ...${xTap(() => { ui().dialog = { kind: 'roots', picker: true }; })}>☰</div>
    <div class="xf-title" ...${A('android.widget.TextView', { text: w.title })}>${w.title}</div>
    <div class="xf-actions" ...${A('android.widget.LinearLayout')}>
      <div class="icon-btn" ...${A('android.widget.ImageView', { desc: 'More options', click: true, text: '' })} ...${xTap(() => { ui().dialog = { kind: 'menu', at: 'picker' }; })}>⋮</div>
    </div></div>`;
  const header = html`<div ...${A('android.widget.ScrollView')}><div ...${A('android.widget.LinearLayout', { id: 'directory_header' })}>
    ${xCrumbs(w, true)}
    <div class="xf-header" ...${A('android.widget.LinearLayout', { id: 'header_container' })}>${xText('header_title', w.header)}</div>
  </div></div>`;
  const save = html`<div ...${A('android.view.ViewGroup', { id: 'container_save' })}>
    <div class="xf-pickbar" ...${A('android.widget.LinearLayout')}>
      <div class="btn" ...${A('android.widget.Button', { id: 'android:id/button2', text: 'Cancel', click: true })} ...${xTap(leave)}>Cancel</div>
      <div ...${A('android.widget.FrameLayout')}>
        <div class=${'btn filled' + (blocked ? ' disabled' : '')} ...${A('android.widget.Button', { id: 'android:id/button1', text: moving ? 'Move' : 'Copy', click: true, disabled: blocked })}
          ...${xTap(() => { if (!blocked) done(); })}>${moving ? 'Move' : 'Copy'}</div></div>
    </div></div>`;
  return xFrame(html`${bar}${header}`, xList(items, { s: 'picker', p }, m, p), save);
}

function xInfo(p) {
  // InspectorActivity (inspector_activity.xml): inspector_root > app_bar > toolbar (up) +
  // inspector_header_view; inspector_container > inspector_details_view titled with the document's name
  // (inspector_section_title.xml inspector_header_title) and KeyValueRows (table_key_value_row.xml):
  // Type, Size (files only), Modified — DetailsView.accept
  const m = tree();
  const e = p.path === ROOT ? { path: ROOT, kind: 'dir', size: 0, mtime: null } : m.get(p.path);
  const name = e ? (e.path === ROOT ? deviceName() : baseName(e.path)) : '';
  const rows = !e ? [] : [['Type', typeLabel(e)], ...(e.kind !== 'dir' ? [['Size', fmtSize(e.size || 0)]] : []),
    ...(e.mtime ? [['Modified', xInfoDate(e.mtime)]] : [])];
  return html`<div class="xf" ...${A('android.view.ViewGroup', { id: 'inspector_root' })}>
    <div class="xf-appbar" ...${A('android.widget.LinearLayout', { id: 'app_bar' })}>
      <div class="xf-toolbar" ...${A('android.view.ViewGroup', { id: 'toolbar' })}>
        <div class="icon-btn" ...${A('android.widget.ImageButton', { desc: 'Navigate up', click: true, text: '' })} ...${xTap(() => back())}>←</div></div>
      <div style="height:96px;display:flex;align-items:center;justify-content:center;font-size:56px" ...${A('android.widget.RelativeLayout', { id: 'inspector_header_view' })}>
        <span ...${A('android.widget.ImageView', { id: 'inspector_thumbnail', text: '' })}>${e ? iconFor(e) : ''}</span></div>
    </div>
    <div class="xf-list" ...${A('android.widget.ScrollView')}>
      <div ...${A('android.widget.LinearLayout', { id: 'inspector_container' })}>
        <div ...${A('android.widget.LinearLayout', { id: 'inspector_details_view' })}>
          <div style="padding:16px 24px 8px;font-size:18px" ...${A('android.widget.LinearLayout')}>${xText('inspector_header_title', name)}</div>
          ${rows.map(([k, v]) => html`<div class="xf-kv" ...${A('android.widget.LinearLayout')}>
            ${xText('table_row_key', k, 'xf-kv-key')}${xText('table_row_value', v)}</div>`)}
        </div>
      </div>
    </div>
  </div>`;
}
/** base/DateUtils.formatDate: DateUtils.formatDateTime(FORMAT_SHOW_DATE | FORMAT_SHOW_TIME | FORMAT_SHOW_YEAR
 *  | FORMAT_ABBREV_MONTH) — "Mar 14, 2027, 10:02 AM". */
function xInfoDate(iso) {
  const d = new Date(String(iso).slice(0, 19) + 'Z');
  return `${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}, ${d.getUTCFullYear()}, ${fmtTime(d.getUTCHours(), d.getUTCMinutes())}`;
}

// --- the roots drawer, menus, dialogs ------------------------------------------------------
function xRoots(d) {
  // drawer_layout.xml drawer_roots > roots_toolbar (the drawer title: the app's label, in the picker the
  // operation, menu_move "Move to…" / menu_copy "Copy to…") + container_roots > fragment_roots.xml
  // RootsList `roots_list` of item_root.xml RootItemViews (no id) > android:id/icon, android:id/title,
  // android:id/summary — the storage root's summary is its free space (sidebar/RootItem.java,
  // root_available_bytes "%1$s free"). The copy / move picker lists only roots that take new documents.
  const pick = d.picker ? top().p : null;
  const close = () => { ui().dialog = null; };
  const goRoot = (tail) => { close(); ui().files_sel = null; ui().tasks.files = [{ s: 'main', p: {} }, ...tail]; };
  const toPicker = (dir, root) => { close(); top().p = { ...top().p, dir, root }; };
  const roots = pick ? [
    ['⬇', 'Downloads', null, () => toPicker(`${ROOT}/Download`, 'downloads')],
    ['📱', deviceName(), freeLabel(), () => toPicker(ROOT, 'storage')],
  ] : [
    ['🕘', 'Recent', null, () => goRoot([])],
    ...Object.entries(CATS).map(([k, c]) => [c.icon, c.label, null, () => goRoot([{ s: 'cat', p: { cat: k } }])]),
    ['⬇', 'Downloads', null, () => goRoot([{ s: 'dir', p: { path: `${ROOT}/Download`, root: 'downloads' } }])],
    ['📱', deviceName(), freeLabel(), () => goRoot([{ s: 'dir', p: { path: ROOT, root: 'storage' } }])],
  ];
  const title = pick ? (pick.op === 'copy' ? 'Copy to…' : 'Move to…') : 'Files';
  return html`<div class="xf-scrim" onClick=${(e) => { if (e.target === e.currentTarget) update(close); }}></div>
    <div class="xf-drawer" ...${A('android.widget.LinearLayout', { id: 'drawer_roots' })}>
      <div class="xf-drawer-title" ...${A('android.view.ViewGroup', { id: 'roots_toolbar' })}>
        <span ...${A('android.widget.TextView', { text: title })}>${title}</span></div>
      <div style="flex:1;min-height:0;overflow-y:auto" ...${A('android.widget.FrameLayout', { id: 'container_roots' })}>
        <div ...${A('android.widget.ListView', { id: 'roots_list', scroll: true })}>
          ${roots.map(([icon, label, summary, run]) => html`<div class="xf-root" ...${A('android.widget.LinearLayout', { click: true, long: true })} ...${xTap(run)}>
            <div ...${A('android.widget.FrameLayout')}><span ...${A('android.widget.ImageView', { id: 'android:id/icon', text: '' })}>${icon}</span></div>
            <div ...${A('android.widget.LinearLayout')}>
              <div ...${A('android.widget.TextView', { id: 'android:id/title', text: label })}>${label}</div>
              ${summary ? html`<div class="xf-root-sum" ...${A('android.widget.TextView', { id: 'android:id/summary', text: summary })}>${summary}</div>` : null}
            </div></div>`)}
        </div>
      </div>
    </div>`;
}

/** An AppCompat overflow popup (MenuPopupWindow: a ListView of abc_popup_menu_item_layout items
 *  whose title is `title`). */
function xPopup(items) {
  return html`<div class="scrim fm-menu-scrim" onClick=${scrimClose}>
    <div class="fm-menu" ...${A('android.widget.ListView')}>
      ${items.map(([label, run]) => html`<div class="row" ...${A('android.widget.LinearLayout', { click: true })}
          ...${xTap(() => { ui().dialog = null; run(); })}>
        <div class="row-text"><div class="row-title" ...${A('android.widget.TextView', { id: 'title', text: label })}>${label}</div></div></div>`)}
    </div></div>`;
}
function xMenuDialog(d) {
  const tp = top();
  const r = { s: tp.s, p: tp.p || {} };
  const hidden = ui().files_hidden ? 'Don’t show hidden files' : 'Show hidden files';
  const toggleHidden = ['x', () => { ui().files_hidden = !ui().files_hidden; }];
  toggleHidden[0] = hidden;
  const sort = ['Sort by...', () => { ui().dialog = { kind: 'sort' }; }];
  if (d.selecting) {
    // files/MenuManager.updateActionMenu over res/menu/action_mode_menu.xml (showAsAction never)
    const sel = selection();
    const all = xItems(r);
    const items = [sort];
    if (sel.length < all.length) items.push(['Select all', () => setSelection(all.map((e) => e.path))]);
    else items.push(['Deselect all', () => { ui().files_sel = null; }]);
    items.push(['Copy to…', () => startPicker('copy')], ['Move to…', () => startPicker('move')],
      ['Compress', () => xCompress(sel)]);
    if (sel.length === 1) {
      items.push(['Rename', () => openRename(sel[0])], ['Get info', () => { ui().files_sel = null; go('info', { path: sel[0] }); }]);
    }
    return xPopup(items);
  }
  if (d.at === 'picker') {
    // picker/MenuManager: New folder where the folder takes one, Sort by...
    return xPopup([['New folder', () => openNewFolder(tp.p.dir || `${ROOT}/Download`)], sort]);
  }
  // files/MenuManager.updateOptionMenu over res/menu/activity.xml (showAsAction never): New window,
  // New folder in a folder, Sort by..., Select all, Get info on a folder, the hidden files toggle
  const dir = routeDir(r);
  const items = [['New window', () => { ui().tasks.files = [{ s: 'main', p: {} }]; }]];
  if (dir) items.push(['New folder', () => openNewFolder(dir)]);
  items.push(sort, ['Select all', () => setSelection(xItems(r).map((e) => e.path))]);
  if (dir) items.push(['Get info', () => go('info', { path: dir })]);
  items.push(toggleHidden);
  return xPopup(items);
}

function xCompress(paths) {
  // CompressJob: "archive.zip" (new_archive_file_name) in the folder, toast compress_begin
  const dir = parentOf(paths[0]);
  const m = tree();
  const name = freeName(dir, 'archive.zip', m);
  const size = paths.reduce((s, p) => s + (m.get(p)?.kind === 'dir' ? folderSize(p, m) : m.get(p)?.size || 0), 0);
  if (dir !== ROOT) materialize(dir);
  ensureList().push({ path: `${dir}/${name}`, kind: 'file', size: Math.round(size * 0.8), mtime: nowIso() });
  ui().files_sel = null;
  toast(`Compressing ${plural(paths.length, 'file', 'files')}.`);
}

const X_SORTS = [['name', false, 'File name (A to Z)'], ['name', true, 'File name (Z to A)'], ['size', true, 'Size (largest first)'],
  ['size', false, 'Size (smallest first)'], ['type', false, 'Type (A to Z)'], ['type', true, 'Type (Z to A)'],
  ['date', true, 'Modified (newest first)'], ['date', false, 'Modified (oldest first)']];
function xSortSheet() {
  // sorting/SortListFragment.java: a bottom sheet, dialog_sorting.xml (sort_dimension_dialog_title in all
  // caps, ListView sorting_dialog_list of sort_list_item.xml CheckedTextViews android:id/text1)
  const { by, desc } = sortState();
  return html`<div class="xf-scrim" onClick=${(e) => { if (e.target === e.currentTarget) update(() => { ui().dialog = null; }); }}></div>
    <div class="xf-sheet" ...${A('android.widget.LinearLayout')}>
      <div class="xf-sheet-title" ...${A('android.widget.TextView', { text: 'SORT BY' })}>SORT BY</div>
      <div ...${A('android.widget.ListView', { id: 'sorting_dialog_list' })}>
        ${X_SORTS.map(([b, dsc, label]) => { const on = by === b && desc === dsc; return html`<div class="xf-sheet-item"
            ...${A('android.widget.CheckedTextView', { id: 'android:id/text1', text: label, click: true, checkable: true, checked: on })}
            ...${xTap(() => { ui().files_sort = { by: b, desc: dsc }; ui().dialog = null; })}>${label}<span>${on ? '✓' : ''}</span></div>`; })}
      </div>
    </div>`;
}

/** A MaterialAlertDialog in the framework's alert_dialog layout: parentPanel > topPanel > alertTitle,
 *  customPanel > custom > the view, buttonPanel > button2 (negative), button1 (positive). */
function xAlert({ title, view, ok, onOk, onCancel }) {
  const btn = (id, label, run) => html`<div class="btn" ...${A('android.widget.Button', { id, text: label, click: true })} ...${xTap(run)}>${label}</div>`;
  return html`<div class="scrim" onClick=${scrimClose}>
    <div class="dialog" ...${A('android.widget.LinearLayout', { id: 'android:id/parentPanel' })}>
      ${title ? html`<div ...${A('android.widget.LinearLayout', { id: 'android:id/topPanel' })}>
        <div class="dialog-title" ...${A('android.widget.TextView', { id: 'android:id/alertTitle', text: title })}>${title}</div></div>` : null}
      <div class="dialog-body" ...${A('android.widget.FrameLayout', { id: 'android:id/customPanel' })}>
        <div ...${A('android.widget.FrameLayout', { id: 'android:id/custom' })}>${view}</div></div>
      <div ...${A('android.widget.ScrollView', { id: 'android:id/buttonPanel' })}>
        <div class="dialog-buttons" ...${A('android.widget.LinearLayout')}>
          ${btn('android:id/button2', 'Cancel', onCancel)}${btn('android:id/button1', ok, onOk)}</div></div>
    </div></div>`;
}
function xNameDialog(d, title, run) {
  // CreateDirectoryFragment / RenameDocumentFragment: title menu_create_dir "New folder" / menu_rename
  // "Rename", view dialog_file_name.xml (TextInputLayout input_wrapper > TextInputEditText
  // android:id/text1; an error shows in the layout's textinput_error), positive android.R.string.ok
  const ok = () => {
    const err = run();
    if (err) { ui().dialog = { ...d, err }; return; }
    closeDialog();
  };
  return xAlert({ title, ok: 'OK', onOk: ok, onCancel: closeDialog, view: html`<div ...${A('android.widget.FrameLayout')}>
    <div ...${A('android.widget.LinearLayout', { id: 'input_wrapper' })}>
      <div ...${A('android.widget.FrameLayout')}>${Field({ field: 'fm_name', id: 'android:id/text1', onSubmit: ok })}</div>
      ${d.err ? html`<div class="fm-err" ...${A('android.widget.TextView', { id: 'textinput_error', text: d.err })}>${d.err}</div>` : null}
    </div></div>` });
}

/** The activity a route is in, for the app built as `pkg` (DocumentsUI's classes keep their
 *  com.android.documentsui names in every build: AndroidManifest.xml). */
export function activityOf(pkg, r) {
  const cls = r.s === 'picker' ? 'com.android.documentsui.picker.PickActivity'
    : r.s === 'info' ? 'com.android.documentsui.inspector.InspectorActivity'
      : 'com.android.documentsui.files.FilesActivity';
  // ComponentName.flattenToShortString: a class inside the package is written from its dot
  return cls.startsWith(pkg + '.') ? `${pkg}/${cls.slice(pkg.length)}` : `${pkg}/${cls}`;
}

registerApp({
  id: 'files', label: 'Files', pkg: 'com.android.documentsui', icon: '📁', color: '#1a73e8',
  root: { s: 'main', p: {} },
  screens: { main, dir: browse, cat, search, viewer, info, picker },
  dialogs,
  // Back leaves action mode before it leaves the folder (as DocumentsUI does).
  onBack: () => { if (selection().length) { ui().files_sel = null; return true; } return false; },
  activity: (r) => activityOf('com.android.documentsui', r),
});
