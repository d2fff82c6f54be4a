// Files (com.android.documentsui): browse shared storage, select, delete, rename, move/copy,
// create folders, search, properties.
//
// Everything comes from world().files (WorldState FileEntry records {path, kind, size, mtime},
// paths under /sdcard). Folders that only exist implicitly (a file's parent without its own
// record) are still shown, and every mutation materialises the parents it relies on, so the
// list stays consistent: no duplicate paths, every parent exists.
//
// Flavor `sim`: a simple "Internal storage" browser (up arrow, overflow with Sort by).
// Flavor `aosp`: AOSP's DocumentsUI as LineageOS builds it (lineage-21.0, Android 14; files_aosp.js,
// each screen citing its layouts): it opens on Recent with search chips; the roots
// drawer ("Show roots": Recent, Images, Videos, Audio, Documents, Downloads, and the device's storage,
// titled with the device's name and telling its free space); a breadcrumb and a "Files in …" header;
// rows with one metadata line (none for folders); an action mode "N selected" with Share/Delete and
// an overflow; the framework's dialogs (OK / Cancel); the copy/move picker opening on Downloads; Get info.
// Flavor `google`: a Pixel ships the same DocumentsUI, built as com.google.android.documentsui (same
// layouts, Google's overlay only brands it), so every stock flavor draws the aosp screens
// (`stock()`); apps/google/files.js only gives them the Pixel's package and activities.
//
// This module: the `sim` flavor's screens and every flavor's dialogs (each hands over to its
// DocumentsUI counterpart on a stock flavor), and the app's registration. The world model and its
// helpers are files_core.js's.
import { html, registerApp, Screen, Row, Dialog, Radio, Field, Empty, Button, A, ui, go, t, stock, toast } from '../os.js';
import { ROOT, STORAGE_BYTES, SYSTEM_BYTES, CATS, parentOf, baseName, within, entries, tree, isDir,
  children, createFolder, renameEntry, moveEntries, copyEntries, deleteEntries, fmtSize, fmtDate, plural,
  iconFor, typeLabel, folderSize, subtitleFor, storageLabel, freeLabel, SORTS, sortState, sortEntries,
  press, stack, top, selection, toggleSel, routeDir, itemsFor, openEntry, crumbTo, openDelete, closeDialog,
  MENU, deleteMessage, scrimClose } from './files_core.js';
import { xBrowse, xSearch, xPicker, xInfo, xRoots, xMenuDialog, xSortSheet, xAlert, xNameDialog } from './files_aosp.js';

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
