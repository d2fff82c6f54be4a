// Files, shared by every flavor: the world model and its state helpers — world().files as a tree
// of paths under /sdcard (implicit parents included), the mutations (create, rename, move, copy,
// delete; each materialises the parents it relies on), sizes, dates and type labels, sorting, the
// route's folder and items, the selection (tied to the screen it was made on), and the actions the
// menus and dialogs run. No screen lives here: the `sim` flavor's screens are in files.js,
// DocumentsUI's (aosp and google) in files_aosp.js.
//
// Why one module: the world model is the same in every flavor (a phone's shared storage), so a
// folder made through any flavor's dialog must be the same record; only the screens differ.
import { world, ui, go, t, stock, update, now, nowIso, fmtTime } from '../os.js';

export const ROOT = '/sdcard';
export const STORAGE_BYTES = 128e9;
export const SYSTEM_BYTES = 21.4e9;
export const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
export const CATS = {
  images: { label: 'Images', icon: '🖼', ext: ['jpg', 'jpeg', 'png', 'gif', 'webp', 'heic', 'bmp'] },
  videos: { label: 'Videos', icon: '🎬', ext: ['mp4', 'mkv', 'webm', '3gp', 'mov', 'avi'] },
  audio: { label: 'Audio', icon: '🎵', ext: ['mp3', 'm4a', 'wav', 'ogg', 'flac', 'aac', 'opus', 'mid'] },
  documents: { label: 'Documents', icon: '📄', ext: ['pdf', 'doc', 'docx', 'txt', 'xls', 'xlsx', 'ppt', 'pptx', 'odt', 'ods', 'csv', 'rtf', 'md', 'epub'] },
};

// ------------------------------------------------------------------------------------------
// paths and the file tree
export const parentOf = (p) => p.slice(0, p.lastIndexOf('/'));
export const baseName = (p) => p.slice(p.lastIndexOf('/') + 1);
export const within = (p, dir) => p.startsWith(dir + '/');
const extOf = (name) => (name.includes('.') ? name.slice(name.lastIndexOf('.') + 1).toLowerCase() : '');
export const entries = () => world().files || [];
export const ensureList = () => { if (!world().files) world().files = []; return world().files; };

/** path → entry for everything under /sdcard, with implied parent folders filled in. */
export function tree() {
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
export const isDir = (path, m = tree()) => path === ROOT || (m.get(path)?.kind === 'dir');
export const children = (dir, m = tree()) => [...m.values()].filter((e) => parentOf(e.path) === dir);
const descendants = (dir, m = tree()) => [...m.values()].filter((e) => within(e.path, dir));
export const catOf = (e) => Object.keys(CATS).find((c) => e.kind === 'file' && CATS[c].ext.includes(extOf(baseName(e.path))));

/** Create records for `path` and every missing parent (a folder we are about to rely on). */
export function materialize(path) {
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

export function createFolder(dir, name) {
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

export function renameEntry(path, name) {
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

export function moveEntries(paths, dest) {
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

export function freeName(dir, name, m) {
  if (!m.has(`${dir}/${name}`)) return name;
  const dot = name.lastIndexOf('.');
  const [stem, ext] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
  for (let i = 1; ; i++) if (!m.has(`${dir}/${stem} (${i})${ext}`)) return `${stem} (${i})${ext}`;
}

export function copyEntries(paths, dest) {
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

export function deleteEntries(paths) {
  const w = world();
  if (!w.files) return;
  w.files = w.files.filter((e) => !paths.some((p) => e.path === p || within(e.path, p)));
}

// ------------------------------------------------------------------------------------------
// formatting (Android's Formatter.formatFileSize / DocumentsUI date column)
export function fmtSize(bytes) {
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
export function fmtDate(iso) {
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
export const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;
export function iconFor(e) {
  if (e.kind === 'dir') return '📁';
  const ext = extOf(baseName(e.path));
  if (ext === 'pdf') return '📕';
  if (ext === 'apk') return '🤖';
  if (['zip', 'rar', '7z', 'tar', 'gz'].includes(ext)) return '🗜';
  const c = catOf(e);
  return c ? CATS[c].icon : '📄';
}
export function typeLabel(e) {
  if (e.kind === 'dir') return 'Folder';
  const ext = extOf(baseName(e.path));
  const c = catOf(e);
  const kind = { images: 'image', videos: 'video', audio: 'audio', documents: 'document' }[c] || 'file';
  if (ext === 'apk') return 'Android package';
  return ext ? `${ext.toUpperCase()} ${kind}` : 'File';
}
export function folderSize(path, m) { return descendants(path, m).reduce((s, e) => s + (e.kind === 'file' ? e.size || 0 : 0), 0); }
export function subtitleFor(e, m, withFolder) {
  if (e.kind === 'dir') {
    const n = children(e.path, m).length;
    return n ? plural(n, 'item', 'items') : t('Empty folder', 'Empty');
  }
  const size = fmtSize(e.size), date = fmtDate(e.mtime);
  const parts = stock() ? [date, size] : [size, date];
  if (withFolder) parts.push(parentOf(e.path) === ROOT ? storageLabel() : baseName(parentOf(e.path)));
  return parts.filter(Boolean).join(' · ');
}
export const storageLabel = () => 'Internal storage';  // the sim flavor's (DocumentsUI's is the device's name: deviceName)
export function freeLabel() {
  const used = entries().reduce((s, e) => s + (e.kind === 'file' ? e.size || 0 : 0), 0);
  return `${fmtSize(Math.max(0, STORAGE_BYTES - SYSTEM_BYTES - used))} free`;
}

// ------------------------------------------------------------------------------------------
// sorting
export const SORTS = [
  ['name', false, 'Name (A to Z)', 'Name (A to Z)'], ['name', true, 'Name (Z to A)', 'Name (Z to A)'],
  ['date', true, 'Newest first', 'Modified (newest first)'], ['date', false, 'Oldest first', 'Modified (oldest first)'],
  ['size', true, 'Largest first', 'Size (largest first)'], ['size', false, 'Smallest first', 'Size (smallest first)'],
];
export const sortState = () => ui().files_sort || { by: 'name', desc: false };
const nameCmp = (a, b) => baseName(a.path).localeCompare(baseName(b.path), 'en', { sensitivity: 'base', numeric: true }) || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
export function sortEntries(list, m) {
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
export const press = (fn) => ({ onClick: (e) => { if (window.S2R.gestureLock) return; e.stopPropagation(); update(() => fn(e)); } });
export const stack = () => ui().tasks.files || [];
export function top() { const s = stack(); return s[s.length - 1] || { s: 'main', p: {} }; }
function sig() { const s = stack(), tp = top(); return `${s.length}|${tp.s}|${JSON.stringify(tp.p || {})}`; }
export function selection() { const s = ui().files_sel; return s && s.at === sig() ? s.paths.filter((p) => tree().has(p)) : []; }
export function setSelection(paths) { ui().files_sel = paths.length ? { at: sig(), paths } : null; }
export function toggleSel(path) {
  const sel = selection();
  setSelection(sel.includes(path) ? sel.filter((p) => p !== path) : [...sel, path]);
}
/** The folder a browse route shows (null for Recent / categories / search). */
export function routeDir(r) {
  if (r.s === 'dir') return r.p.path || ROOT;
  if (r.s === 'main' && !stock()) return ROOT;
  return null;
}
export function itemsFor(r, m = tree()) {
  const dir = routeDir(r);
  if (dir) return isDir(dir, m) ? sortEntries(children(dir, m), m) : [];
  if (r.s === 'main') return recentItems(r.p.chip, m);
  if (r.s === 'cat') return recentItems(r.p.cat, m, false);
  if (r.s === 'search') return searchItems(m);
  return [];
}
export function recentItems(cat, m, limit = true) {
  const list = [...m.values()].filter((e) => e.kind === 'file' && (!cat || catOf(e) === cat));
  list.sort((a, b) => ((a.mtime || '') < (b.mtime || '') ? 1 : (a.mtime || '') > (b.mtime || '') ? -1 : nameCmp(a, b)));
  return limit ? list.slice(0, 40) : list;
}
export function searchItems(m) {
  const q = (ui().fields.fm_search || '').trim().toLowerCase();
  if (!q) return [];
  return sortEntries([...m.values()].filter((e) => baseName(e.path).toLowerCase().includes(q)), m);
}

export function openEntry(e, r) {
  if (e.kind === 'dir') go('dir', { path: e.path, root: r.p.root || 'storage' });
  else go('viewer', { path: e.path });
}
/** Jump to an ancestor folder shown in the breadcrumb (pops the stack when it is there). */
export function crumbTo(path, root, picker) {
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
// actions the menus and dialogs run
function curDir() { const tp = top(); return routeDir({ s: tp.s, p: tp.p || {} }); }
export function openNewFolder(dir) {
  if (!dir) return;
  ui().fields.fm_name = '';
  ui().dialog = { kind: 'newfolder', dir };
  ui().focus = 'fm_name'; ui().keyboard = true;
}
export function openRename(path) {
  if (!path) return;
  ui().fields.fm_name = baseName(path);
  ui().dialog = { kind: 'rename', path };
  ui().focus = 'fm_name'; ui().keyboard = true;
}
export function openDelete(paths) { if (paths.length) ui().dialog = { kind: 'delete', paths: [...paths] }; }
export function startPicker(op) {
  const paths = selection();
  if (!paths.length) return;
  ui().files_sel = null;
  // aosp: the copy / move destination picker opens on the Downloads root (see xPicker)
  if (stock()) go('picker', { op, paths, dir: `${ROOT}/Download`, root: 'downloads' });
  else go('picker', { op, paths, dir: ROOT });
}
export const closeDialog = () => { ui().dialog = null; ui().focus = null; ui().keyboard = false; };

export const MENU = {
  new_folder: { label: () => 'New folder', id: 'action_menu_create_dir', run: () => openNewFolder(curDir()) },
  sort: { label: () => 'Sort by', id: 'action_menu_sort', run: () => { ui().dialog = { kind: 'sort' }; } },
  select_all: { label: () => 'Select all', id: 'action_menu_select_all',
    run: () => { const tp = top(); setSelection(itemsFor({ s: tp.s, p: tp.p || {} }).map((e) => e.path)); } },
  copy: { label: () => t('Copy to', 'Copy to…'), id: 'action_menu_copy_to', run: () => startPicker('copy') },
  move: { label: () => t('Move to', 'Move to…'), id: 'action_menu_move_to', run: () => startPicker('move') },
  rename: { label: () => 'Rename', id: 'action_menu_rename', run: () => openRename(selection()[0]) },
  info: { label: () => t('Details', 'Properties'), id: 'action_menu_inspect', run: () => { const s = selection()[0]; ui().files_sel = null; if (s) go('info', { path: s }); } },
};

export function deleteMessage(paths) {
  const n = paths.length;
  if (!stock()) return `Delete ${plural(n, 'item', 'items')}?`;
  const m = tree();
  const dirs = paths.filter((p) => m.get(p)?.kind === 'dir').length;
  if (n === 1) return dirs ? `Delete folder "${baseName(paths[0])}" and its contents?` : `Delete "${baseName(paths[0])}"?`;
  if (dirs === n) return `Delete ${n} folders and their contents?`;
  if (dirs === 0) return `Delete ${n} files?`;
  return `Delete ${n} items?`;
}

export const scrimClose = (e) => { if (e.target === e.currentTarget) update(() => { ui().dialog = null; }); };
