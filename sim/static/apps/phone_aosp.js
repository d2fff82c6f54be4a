// Phone, flavor `aosp`: AOSP Dialer's main screens — the search-bar toolbar and bottom navigation,
// Favorites, Contacts, the call log with its expanding cards, the Call History activity (All / Missed
// / Statistics) and call details. The dial pad, search and in-call screens are phone_aosp_dialpad.js's;
// the world and its helpers phone_core.js's; Dialer's widgets and dialogs phone_aosp_kit.js's.
import { html, A, world, ui, go, back, replace, openApp, toast, nowIso } from '../os.js';
import { Avatar, sortedContacts, letterOf, labelText, openMessages } from './contacts_core.js';
import { KIND_AOSP, KIND_ICON, calls, contactFor, displayName, sortedCalls, dayOf, yesterday, placeCall,
  openDialpad, createContact, openContact, startSearch } from './phone_core.js';
import { xTap, xIcon, xText, xRelative, xFullDate, xDuration } from './phone_aosp_kit.js';

// AOSP's Dialer, LineageOS/android_packages_apps_Dialer @ f7033c1046818cfbe395b29e8ed1db53776953a2
// (lineage-21.0). Paths below are under java/com/android/; classes are what uiautomator reports
// (phone_aosp_kit.js lists them).

// --- the main screen: main/impl/res/layout/main_activity.xml ------------------------------
function xToolbar() {
  // main/impl/toolbar/res/layout/toolbar_layout.xml: MainToolbar > FrameLayout > SearchBarView
  // `search_view_container` > `search_box_collapsed` (search_box_start_search, voice_search_button,
  // main_options_menu_button); strings dialer_hint_find_contact, description_start_voice_search,
  // action_menu_overflow_description
  return html`<div class="xd-toolbar" ...${A('android.view.ViewGroup', { id: 'toolbar' })}>
    <div ...${A('android.widget.FrameLayout')}>
      <div ...${A('android.widget.FrameLayout', { id: 'search_view_container' })}>
        <div class="xd-search" ...${A('android.widget.RelativeLayout', { id: 'search_box_collapsed', click: true })} ...${xTap(startSearch)}>
          <span>🔍</span>
          ${xText('search_box_start_search', 'Search contacts', 'xd-search-hint', { click: true })}
          ${xIcon('android.widget.ImageView', 'voice_search_button', 'Start voice search', '🎤', () => toast('Voice search is not available'))}
          ${xIcon('android.widget.ImageButton', 'main_options_menu_button', 'More options', '⋮', () => { ui().dialog = { kind: 'menu', where: 'main' }; })}
        </div>
      </div>
    </div>
  </div>`;
}

const X_TABS = [['favorites', 'speed_dial_tab', 'Favorites', '☆'], ['recents', 'call_log_tab', 'Recents', '🕘'], ['contacts', 'contacts_tab', 'Contacts', '👥']];
function xBottomNav(tab) {
  // main/impl/bottomnav/res/layout/bottom_nav_bar_layout.xml + bottom_nav_item.xml; tab titles
  // tab_title_speed_dial, tab_title_call_history, tab_all_contacts (BottomNavBar.java); the Voicemail
  // tab shows only with visual voicemail (OldMainActivityPeer.canVoicemailTabBeShown)
  return html`<div class="xd-nav" ...${A('android.widget.LinearLayout', { id: 'bottom_nav_bar' })}>
    ${X_TABS.map(([id, rid, label, icon]) => html`<div class="xd-navitem"
        ...${A('android.widget.LinearLayout', { id: rid, click: true, selected: tab === id })}
        ...${xTap(() => { ui().ph_expanded = null; replace('main', { tab: id }); })}>
      <div ...${A('android.widget.FrameLayout')}><span class="xd-navicon" ...${A('android.widget.ImageView', { id: 'bottom_nav_item_image', text: '' })}>${icon}</span></div>
      ${xText('bottom_nav_item_text', label, 'xd-navtext')}
    </div>`)}
  </div>`;
}

export function xMain(p) {
  const tab = X_TABS.some(([id]) => id === p.tab) ? p.tab : 'favorites';
  const body = tab === 'recents' ? xCallLog(sortedCalls(), 'all') : tab === 'contacts' ? xContacts() : xFavorites();
  return html`<div class="xd" ...${A('android.widget.RelativeLayout', { id: 'root_layout' })}>
    ${xToolbar()}
    <div class="xd-body" ...${A('android.view.ViewGroup', { id: 'coordinator_layout' })}>
      <div style="position:absolute;inset:0" ...${A('android.widget.FrameLayout', { id: 'fragment_container' })}>${body}</div>
      <div class="xd-fab" ...${A('android.widget.ImageButton', { id: 'fab', desc: 'key pad', click: true, text: '' })} ...${xTap(openDialpad)}>⠿</div>
    </div>
    ${xBottomNav(tab)}
  </div>`;
}

export function xEmpty(id, message, action) {
  // widget/res/layout/empty_content_view.xml (EmptyContentView)
  return html`<div class="xd-empty" ...${A('android.widget.LinearLayout', { id })}>
    <span style="font-size:48px" ...${A('android.widget.ImageView', { id: 'empty_list_view_image', text: '' })}>☏</span>
    ${xText('empty_list_view_message', message)}
    ${action ? html`<div class="btn" ...${A('android.widget.Button', { id: 'empty_list_view_action', text: action[0], click: true })} ...${xTap(action[1])}>${action[0]}</div>` : null}
  </div>`;
}

export function xFavorites() {
  // speeddial/res/layout/fragment_speed_dial.xml (speed_dial_root > speed_dial_recycler_view),
  // speed_dial_header_layout.xml (speed_dial_header_text favorites_header "Favorites",
  // speed_dial_add_button "Add"), favorite_item_layout.xml (avatar, name, phone_type); a tap on a
  // favorite with one number calls it (SpeedDialFragment); none: speed_dial_empty_content_view
  const favs = sortedContacts().filter((c) => c.starred);
  const addFav = () => openApp('contacts');
  if (!favs.length) {
    return html`<div style="position:absolute;inset:0" ...${A('android.widget.FrameLayout', { id: 'speed_dial_root' })}>
      ${xEmpty('speed_dial_empty_content_view', "You haven't added any favorites yet", ['Add favorite', addFav])}</div>`;
  }
  return html`<div style="position:absolute;inset:0" ...${A('android.widget.FrameLayout', { id: 'speed_dial_root' })}>
    <div class="xd-list" data-scroll-key="phone/main/favorites" ...${A('androidx.recyclerview.widget.RecyclerView', { id: 'speed_dial_recycler_view', scroll: true })}>
      <div class="xd-header" ...${A('android.widget.RelativeLayout')}>
        ${xText('speed_dial_header_text', 'Favorites')}
        <div class="btn" ...${A('android.widget.Button', { id: 'speed_dial_add_button', text: 'Add', click: true })} ...${xTap(addFav)}>Add</div>
      </div>
      <div class="xd-favs">
        ${favs.map((c) => { const ph = (c.phones || [])[0]; return html`<div class="xd-fav" ...${A('android.widget.LinearLayout', { click: true, long: true })}
            ...${xTap(() => { if (ph) placeCall(ph.number, c.name); else toast('No phone number'); })}>
          <div ...${A('android.widget.FrameLayout', { id: 'avatar_container' })}>
            <span ...${A('android.widget.QuickContactBadge', { id: 'avatar', text: '' })}>${Avatar(c.name, 72)}</span></div>
          ${xText('name', c.name, 'xd-fav-name')}
          ${ph ? xText('phone_type', labelText(ph.label), 'xd-fav-type') : null}
        </div>`; })}
      </div>
    </div>
  </div>`;
}

export function xContacts() {
  // contactsfragment/res/layout/fragment_contacts.xml (recycler_view), add_contact_row.xml
  // (click_target > photo, contact_name all_contacts_empty_add_contact_action), contact_row.xml
  // (header letter, click_target > photo, contact_name); a tap opens the contact in Contacts
  const list = sortedContacts();
  let last = null;
  return html`<div style="position:absolute;inset:0" ...${A('android.widget.FrameLayout')}>
    <div class="xd-list" data-scroll-key="phone/main/contacts" ...${A('androidx.recyclerview.widget.RecyclerView', { id: 'recycler_view', scroll: true })}>
      <div class="xd-contact" ...${A('android.widget.LinearLayout', { id: 'click_target', click: true })} ...${xTap(() => createContact(''))}>
        <span ...${A('android.widget.ImageView', { id: 'photo', text: '' })}>＋</span>${xText('contact_name', 'Create new contact')}</div>
      ${list.map((c) => {
        const L = letterOf(c.name);
        const head = L !== last ? L : null;
        last = L;
        return html`<div ...${A('android.widget.FrameLayout')} style="position:relative">
          ${head ? html`<span class="xd-letter" style="top:14px" ...${A('android.widget.TextView', { id: 'header', text: head })}>${head}</span>` : null}
          <div class="xd-contact" ...${A('android.widget.LinearLayout', { id: 'click_target', click: true })} ...${xTap(() => openContact(c))}>
            <span ...${A('android.widget.QuickContactBadge', { id: 'photo', text: '' })}>${Avatar(c.name)}</span>
            ${xText('contact_name', c.name)}</div>
        </div>`;
      })}
    </div>
    ${list.length ? null : xEmpty('empty_list_view', "You don't have any contacts yet", ['Create new contact', () => createContact('')])}
  </div>`;
}

// --- the call log: app/res/layout/call_log_fragment.xml, call_log_list_item.xml -----------
/** The row's description (app/calllog/CallLogListItemHelper.java getCallDescription): a missed call
 *  "Missed call from …", an answered one "Answered call from …", a voicemail "Voicemail from …",
 *  any other (outgoing, declined, blocked) "Call to …". */
function xCallDescription(c, name, typeOrLocation, date) {
  const head = { missed: 'Missed call from', incoming: 'Answered call from', voicemail: 'Voicemail from' }[c.kind] || 'Call to';
  return `${head} ${name}, ${typeOrLocation}, ${date}, .`;
}
const X_DAY_GROUPS = () => ({ [nowIso().slice(0, 10)]: 'Today', [yesterday()]: 'Yesterday' });

/** The actions under an expanded row (call_log_list_item_actions.xml): "Create new contact" and "Add to a
 *  contact" for a number no contact has, "Send a message", "Call details". Google Dialer's cards keep them. */
export function xEntryActions(c, hit) {
  const u = ui();
  const action = (rid, icon, text, fn) => html`<div class="xd-action" ...${A('android.widget.LinearLayout', { id: rid, click: true })} ...${xTap(fn)}>
    <span ...${A('android.widget.ImageView', { text: '' })}>${icon}</span>${xText(null, text)}</div>`;
  return html`<div class="xd-actions" ...${A('android.widget.LinearLayout', { id: 'call_log_entry_actions' })}>
    ${hit ? null : action('create_new_contact_action', '👤', 'Create new contact', () => createContact(c.number))}
    ${hit ? null : action('add_to_existing_contact_action', '👥', 'Add to a contact', () => openApp('contacts'))}
    ${action('send_message_action', '💬', 'Send a message', () => openMessages(c.number))}
    ${action('details_action', 'ⓘ', 'Call details', () => { u.ph_expanded = null; go('details', { id: c.id }); })}
  </div>`;
}

function xCallLog(list, filter) {
  const u = ui();
  if (!list.length) {
    return html`<div style="position:absolute;inset:0" ...${A('android.widget.LinearLayout', { id: 'call_log_fragment_root' })}>
      ${xEmpty('empty_list_view', filter === 'missed' ? 'You have no missed calls.' : 'Your call history is empty')}</div>`;
  }
  const groups = X_DAY_GROUPS();
  let lastGroup = null;
  const rows = list.map((c) => {
    const hit = contactFor(c.number);
    const name = displayName(c);
    // PhoneCallDetailsHelper.getCallTypeOrLocation: the number's label for a contact, else the number
    const typeOrLocation = hit ? labelText(hit.phone.label) : name === c.number ? '' : c.number;
    const date = xRelative(c.time);
    const group = groups[dayOf(c.time)] || 'Older';
    const label = group !== lastGroup ? group : null;
    lastGroup = group;
    const open = u.ph_expanded === c.id;
    return html`<div ...${A('android.widget.LinearLayout', { id: 'call_log_list_item' })}>
      ${label ? html`<div class="xd-day" ...${A('android.widget.TextView', { id: 'call_log_day_group_label', text: label })}>${label}</div>` : null}
      <div class=${'xd-card' + (open ? ' open' : '')} ...${A('android.widget.FrameLayout', { id: 'call_log_row' })}>
        <div ...${A('android.widget.LinearLayout')}>
          <div class="xd-primary" ...${A('android.widget.LinearLayout', { id: 'primary_action_view', click: true, desc: xCallDescription(c, name, typeOrLocation, date) })}
              ...${xTap(() => { u.ph_expanded = open ? null : c.id; })}>
            <div ...${A('android.widget.FrameLayout')}>
              <span ...${A('android.widget.QuickContactBadge', { id: 'quick_contact_photo', desc: `Contact details for ${name}`, click: true, text: '' })}
                ...${xTap(() => { if (hit) openContact(hit.contact); else u.ph_expanded = open ? null : c.id; })}>${Avatar(name, 40)}</span>
            </div>
            <div class="xd-lines" ...${A('android.widget.LinearLayout')}>
              <div class=${'xd-name' + (c.kind === 'missed' ? ' missed' : '')} ...${A('android.widget.TextView', { id: 'name', text: name })}>${name}</div>
              <div class="xd-sub" ...${A('android.widget.LinearLayout', { id: 'call_type' })}>
                <span class="xd-icons" style=${`color:${['missed', 'rejected', 'blocked'].includes(c.kind) ? '#d93025' : '#1e8e3e'}`}
                  ...${A('android.view.View', { id: 'call_type_icons', text: '' })}>${KIND_ICON[c.kind] || '•'}</span>
                ${xText('call_location_and_date', [typeOrLocation, date].filter(Boolean).join(', '))}
              </div>
            </div>
            ${xIcon('android.widget.ImageView', 'primary_action_button', `Call ${name}`, '📞', () => placeCall(c.number, hit ? hit.contact.name : c.name))}
          </div>
          ${open ? xEntryActions(c, hit) : null}
        </div>
      </div>
    </div>`;
  });
  return html`<div style="position:absolute;inset:0;display:flex;flex-direction:column" ...${A('android.widget.LinearLayout', { id: 'call_log_fragment_root' })}>
    <div class="xd-list" data-scroll-key=${`phone/calllog/${filter}`} ...${A('androidx.recyclerview.widget.RecyclerView', { id: 'recycler_view', scroll: true })}>${rows}</div>
  </div>`;
}

// --- Call History: app/res/layout/call_log_activity.xml (CallLogActivity) -------------------
/** The AppCompat action bar of an activity titled by its label (abc_screen_toolbar: `action_bar`). */
function xActionBar(title, onMenu) {
  return html`<div class="appbar" ...${A('android.view.ViewGroup', { id: 'action_bar' })}>
    <div class="icon-btn" ...${A('android.widget.ImageButton', { desc: 'Navigate up', click: true, text: '' })} ...${xTap(() => back())}>←</div>
    <div class="title" ...${A('android.widget.TextView', { text: title })}>${title}</div>
    ${onMenu ? html`<div style="display:flex" ...${A('android.widget.LinearLayout')}>
      <div class="icon-btn" ...${A('android.widget.ImageView', { desc: 'More options', click: true, text: '' })} ...${xTap(onMenu)}>⋮</div></div>` : null}
  </div>`;
}

export function xHistory(p) {
  // CallLogActivity.java: title call_log_activity_title "Call History", ViewPagerTabs `viewpager_header`
  // with call_log_all_title / call_log_missed_title / call_log_stats_title, the `call_log_pager`
  // ViewPager of CallLogFragments; its menu res/menu/call_log_options.xml (delete_all)
  const filter = ['all', 'missed', 'stats'].includes(p.filter) ? p.filter : 'all';
  const list = sortedCalls().filter((c) => filter === 'all' || c.kind === 'missed');
  const tabs = [['all', 'All'], ['missed', 'Missed'], ['stats', 'Statistics']];
  const body = filter === 'stats' ? xStats() : xCallLog(list, filter);
  return xHistoryFrame(filter, tabs, body, { scroll: true });
}
/** CallLogActivity's frame (call_log_activity.xml): the action bar "Call History" with its menu, the
 *  ViewPagerTabs `viewpager_header` (a tab per [filter, label], `filter`'s selected) and the
 *  `call_log_pager` (with `pagerAttrs`) showing `body`. Google Dialer's call history keeps it. */
export function xHistoryFrame(filter, tabs, body, pagerAttrs = {}) {
  return html`<div class="xd" ...${A('android.widget.LinearLayout', { id: 'calllog_frame' })}>
    ${xActionBar('Call History', () => { ui().dialog = { kind: 'menu', where: 'history' }; })}
    <div class="xd-tabs" ...${A('android.widget.HorizontalScrollView', { id: 'viewpager_header' })}>
      ${tabs.map(([id, label]) => html`<div class="xd-tab" ...${A('android.widget.TextView', { text: label, click: true, selected: id === filter })}
        ...${xTap(() => { ui().ph_expanded = null; replace('history', { filter: id }); })}>${label}</div>`)}
    </div>
    <div class="xd-body" ...${A('androidx.viewpager.widget.ViewPager', { id: 'call_log_pager', ...pagerAttrs })}>${body}</div>
  </div>`;
}

function xStats() {
  // callstats: the number of calls and their total duration per kind
  const cs = calls();
  const line = (label, list) => html`<div class="xd-row" ...${A('android.widget.LinearLayout')}>
    ${xText(null, label, '', {})}<span style="flex:1"></span>${xText(null, `${list.length} · ${xDuration(list.reduce((s, c) => s + (c.duration_s || 0), 0))}`)}</div>`;
  return html`<div class="xd-list" ...${A('androidx.recyclerview.widget.RecyclerView', { id: 'recycler_view', scroll: true })}>
    ${line('Incoming', cs.filter((c) => c.kind === 'incoming'))}${line('Outgoing', cs.filter((c) => c.kind === 'outgoing'))}
    ${line('Missed', cs.filter((c) => c.kind === 'missed'))}</div>`;
}

// --- call details: calldetails/res/layout/call_details_activity.xml ------------------------
export function xDetails({ id }) {
  // DialerToolbar `toolbar` titled call_details; recycler_view: contact_container.xml
  // (quick_contact_photo, contact_information > contact_name, phone_number, call_back_button), one
  // call_details_entry.xml per call (call_direction, call_type, call_time, call_duration — none for a
  // missed call), call_details_footer.xml (Copy number, Edit number before call, Delete)
  const c = calls().find((x) => x.id === id);
  const bar = html`<div class="appbar" ...${A('android.view.ViewGroup', { id: 'toolbar' })}>
    <div class="icon-btn" ...${A('android.widget.ImageButton', { desc: 'Navigate up', click: true, text: '' })} ...${xTap(() => back())}>←</div>
    <div class="title" ...${A('android.widget.TextView', { text: 'Call details' })}>Call details</div></div>`;
  if (!c) return html`<div class="xd" ...${A('android.widget.LinearLayout')}>${bar}</div>`;
  const hit = contactFor(c.number);
  const name = displayName(c);
  // CallDetailsHeaderViewHolder: "<label> <number>" under a contact's name, the number alone otherwise
  const numLine = hit ? `${labelText(hit.phone.label)} ${c.number}` : c.number;
  const foot = (rid, icon, label, fn) => html`<div class="xd-footer-item" ...${A('android.widget.TextView', { id: rid, text: label, click: true })} ...${xTap(fn)}>
    <span>${icon}</span>${label}</div>`;
  const missed = c.kind === 'missed';
  return html`<div class="xd" ...${A('android.widget.LinearLayout')}>
    ${bar}
    <div class="xd-body">
      <div class="xd-list" ...${A('androidx.recyclerview.widget.RecyclerView', { id: 'recycler_view', scroll: true })}>
        <div class="xd-detail-head" ...${A('android.widget.RelativeLayout')}>
          <span ...${A('android.widget.QuickContactBadge', { id: 'quick_contact_photo', click: true, text: '' })}
            ...${xTap(() => { if (hit) openContact(hit.contact); })}>${Avatar(name, 56)}</span>
          <div style="flex:1;min-width:0" ...${A('android.widget.LinearLayout', { id: 'contact_information' })}>
            <div style="font-size:calc(20px * var(--fs))" ...${A('android.widget.TextView', { id: 'contact_name', text: name })}>${name}</div>
            <div style="color:var(--muted)" ...${A('android.widget.TextView', { id: 'phone_number', text: numLine })}>${numLine}</div>
          </div>
          ${xIcon('android.widget.ImageView', 'call_back_button', 'Call', '📞', () => placeCall(c.number, hit ? hit.contact.name : c.name))}
        </div>
        <div class="xd-entry" ...${A('android.widget.RelativeLayout')}>
          <span style=${`color:${['missed', 'rejected', 'blocked'].includes(c.kind) ? '#d93025' : '#1e8e3e'}`}
            ...${A('android.view.View', { id: 'call_direction', text: '' })}>${KIND_ICON[c.kind] || '•'}</span>
          <div style="flex:1">
            <div ...${A('android.widget.TextView', { id: 'call_type', text: KIND_AOSP[c.kind] || c.kind })}>${KIND_AOSP[c.kind] || c.kind}</div>
            <div style="color:var(--muted);font-size:13px" ...${A('android.widget.TextView', { id: 'call_time', text: xFullDate(c.time) })}>${xFullDate(c.time)}</div>
          </div>
          ${missed ? null : html`<span style="color:var(--muted);font-size:13px" ...${A('android.widget.TextView', { id: 'call_duration', text: xDuration(c.duration_s || 0) })}>${xDuration(c.duration_s || 0)}</span>`}
        </div>
        <div ...${A('android.widget.LinearLayout', { id: 'footer_container' })}>
          ${foot('call_detail_action_copy', '⧉', 'Copy number', () => { world().clipboard = c.number; toast('Text copied'); })}
          ${foot('call_detail_action_edit_before_call', '✎', 'Edit number before call', () => { world().dialer_number = c.number; ui().tasks.phone = [{ s: 'main', p: {} }, { s: 'dialpad', p: {} }]; })}
          ${foot('call_detail_action_delete', '🗑', 'Delete', () => { world().calls = calls().filter((x) => x.id !== c.id); back(); })}
        </div>
      </div>
    </div>
  </div>`;
}
