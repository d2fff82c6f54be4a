// Files, flavors `aosp` and `google`: AOSP's DocumentsUI as LineageOS builds it — Recent with its
// search chips, the roots drawer, breadcrumbs and the "Files in …" header, rows, the action mode,
// the copy/move picker, Get info, search, and the framework's menus, sort sheet and name dialogs.
// A Pixel ships the same DocumentsUI (com.google.android.documentsui), so every stock flavor draws
// these screens (`stock()`); files.js's screens hand over to them. The world and its helpers are
// files_core.js's.
import { html, Field, Chip, A, world, ui, go, back, update, toast, now, nowIso, fmtTime, pressHandlers,
  scrollKey } from '../os.js';
import { ROOT, MONTHS, CATS, parentOf, baseName, within, ensureList, tree, isDir, children, catOf,
  materialize, moveEntries, freeName, copyEntries, fmtSize, fmtDate, plural, iconFor, typeLabel,
  folderSize, freeLabel, sortState, sortEntries, stack, top, selection, setSelection, toggleSel, routeDir,
  itemsFor, recentItems, searchItems, openEntry, crumbTo, openNewFolder, openRename, openDelete,
  startPicker, closeDialog, scrimClose } from './files_core.js';

// DocumentsUI, LineageOS/android_packages_apps_DocumentsUI
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

export function xBrowse(r) {
  const m = tree();
  const w = xWhere(r);
  if (w.path && !isDir(w.path, m)) {
    return xFrame(html`${xToolbar(w, r)}`, xMessage('Can’t load content at the moment'));
  }
  return xFrame(html`${xToolbar(w, r)}${xHeader(w, r)}`, xList(xItems(r, m), r, m));
}

export function xSearch() {
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

export function xPicker(p) {
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

export function xInfo(p) {
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
export function xRoots(d) {
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
export function xMenuDialog(d) {
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
export function xSortSheet() {
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
export function xAlert({ title, view, ok, onOk, onCancel }) {
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
export function xNameDialog(d, title, run) {
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
