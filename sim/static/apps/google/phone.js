// Phone by Google (the `google` flavor): Google Dialer as a Pixel on Android 14 ships it, package
// com.google.android.dialer, main activity .extensions.GoogleDialtactsActivity. The world model, the
// call and dial-pad actions and every screen no public Google capture shows are the base app's
// (apps/phone_core.js; the aosp screens in apps/phone_aosp*.js cite LineageOS/android_packages_apps_Dialer
// @ f7033c1046818cfbe395b29e8ed1db53776953a2): Google Dialer is built from that source and keeps its ids
// wherever public test code shows them (dialpad keys, digits, contacts list, in-call).
//
// Evidence (public test code driving com.google.android.dialer; no public uiautomator dump of it):
//   OLHA  olhamarkova/appium @ 51ab33360a96491bf0d75406b676001be0fc2087 apps/android_apps/dialer/dialer_app.py
//         (dialpad_fab, one … nine / zero, dialpad_voice_call_button, incall_end_call; Recents is the 2nd
//         navigation_bar_item_icon_view) and apps/android_apps/contacts/contacts_app.py (tab_contacts; rows
//         click_target > contact_name, the first "Create new contact"; a contact opens in Google Contacts)
//   IVR   Cristian200607/IVR @ 4dd64e54fbf3edca8fd252d3800a5c1cc809771a src/main/java/userinterfaces/IVRPage.java
//         (star, pound, the key ids; Recents rows are call_log_entry_root_constraint_layout ViewGroups)
//   ROOST Shivaprasad-Waradai/MobileAutomation_Rooster @ b3db2eb9eac97e92ad16aa8a2679dbbaa03ac9e9
//         app/src/androidTest/java/com/example/mobileautomation_rooster/Device_Variables.java
//         (overflow items "Call history", "Settings", "Help & feedback")
//   MCA   material-components/material-components-android lib/java/com/google/android/material/search/res/
//         layout/mtrl_search_view.xml @ 11599231a9a2753ba4489518e3ccc443251eec52 (SearchView: open_search_view_*)
//   IDX   files of the code index whose repository was not resolved (ids for read_file): 26514819838
//         (tab_speed_dial, tab_call_history, tab_contacts), 15509589782 (Pixel 7a, API 35: tab_call_history; a
//         Recents row is androidx.cardview.widget.CardView described "HOT, Mobile, outgoing call, Just now."),
//         67423719358 (FloatingActionButton "key pad", open_search_bar_text_view, Button "Start voice search",
//         ImageView "More options", keys FrameLayout "1," … "9,WXYZ", "0", "*", "#", Button "dial"),
//         20093189783 + 47765839149 (ImageButton "key pad", EditText digits, Button "dial", ImageView call_button,
//         Button "End call", navigation_bar_item_active_indicator_view), 54181515519 (TextView
//         open_search_bar_text_view opens EditText open_search_view_edit_text), 60338280789
//         (call_log_entry_card, described), 59590572059 (android.support.v7.widget.RecyclerView
//         call_log_recycler_view), 7088301691 + 55788475441 (search_action_text "Create new contact",
//         "Add to a contact", "Send a message" under the pad), 4194719053 ("backspace", contactgrid_contact_name),
//         2151468497 (navigation_bar_item_small_label_view "Contacts"), 55788475441 (tab_voicemail),
//         646659559 (keys FrameLayout "1,", "2,ABC" > LinearLayout > TextView dialpad_key_number / _letters).
// Where nothing public shows a screen it stays AOSP's and says so below.
import { html, registerFlavor, A, ui, go, back, replace, toast, now, nowIso, fmtTime, Field } from '../../os.js';
import { Avatar, labelText } from '../contacts_core.js';
import { KIND_ICON, MONTHS, contactFor, displayName, sortedCalls, dayOf, yesterday, placeCall, openDialpad,
  startSearch } from '../phone_core.js';
import { xTap, xIcon, xPopup, xClearDialog } from '../phone_aosp_kit.js';
import { xEmpty, xEntryActions, xFavorites, xContacts, xDetails, xHistoryFrame } from '../phone_aosp.js';
import { xDialpad, xSearchResults, xIncall } from '../phone_aosp_dialpad.js';

const PKG = 'com.google.android.dialer';
const HINT = 'Search contacts & places';  // the search bar's text (IDX 67423719358 reads it by id only; wording of Google Dialer's bar)

if (typeof document !== 'undefined' && !document.getElementById('gdialer-css')) {
  const s = document.createElement('style');
  s.id = 'gdialer-css';
  s.textContent = `
.gd-bar { flex: 0 0 auto; display: flex; align-items: center; gap: 4px; margin: 8px 12px; height: 52px; border-radius: 26px; background: var(--surface); padding: 0 4px 0 16px; color: var(--muted); }
.gd-bar-text { flex: 1; font-size: calc(16px * var(--fs)); }
.gd-nav { flex: 0 0 auto; display: flex; background: var(--surface); padding: 10px 0 14px; }
.gd-item { flex: 1; display: flex; flex-direction: column; align-items: center; gap: 4px; color: var(--muted); }
.gd-icon { position: relative; width: 56px; height: 30px; display: flex; align-items: center; justify-content: center; font-size: 19px; }
.gd-ind { position: absolute; inset: 0; }
.gd-ind::before { content: ''; position: absolute; inset: 0; border-radius: 15px; background: var(--primary-c); }
.gd-icon span { position: relative; }
.gd-label { font-size: 12px; font-weight: 500; }
.gd-item[data-selected="1"] { color: var(--fg); }
.gd-head { padding: 14px 20px 6px; font-size: 14px; font-weight: 500; }
.gd-card { margin: 2px 12px; border-radius: 16px; background: var(--bg); overflow: hidden; }
.gd-card.open { background: var(--surface); margin: 6px 12px; }
.gd-entry { display: flex; align-items: center; gap: 14px; padding: 8px 4px 8px 14px; min-height: 60px; }
.gd-lines { flex: 1; min-width: 0; }
.gd-name { font-size: calc(16px * var(--fs)); white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.gd-name.missed { color: #d93025; }
.gd-sub { font-size: calc(13px * var(--fs)); color: var(--muted); white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.gd-fab { position: absolute; right: 16px; bottom: 16px; width: 56px; height: 56px; border-radius: 16px; background: var(--primary-c); display: flex; align-items: center; justify-content: center; font-size: 24px; box-shadow: 0 2px 6px rgba(0,0,0,.3); z-index: 5; }
.gd-sv { position: absolute; inset: 0; display: flex; flex-direction: column; background: var(--bg); }
.gd-sv-bar { display: flex; align-items: center; gap: 4px; padding: 6px 4px; }
.gd-sv-bar .field, .gd-sv-bar .field.focused { border: 0; box-shadow: none; background: transparent; }
`;
  document.head.appendChild(s);
}

// ------------------------------------------------------------------------------------------
// the call log's words and dates (the rows' descriptions are what a dump shows of them)
/** The kind as Google Dialer describes a row ("HOT, Mobile, outgoing call, Just now.", IDX 15509589782).
 *  Only "outgoing call" is seen in public code; the others follow it with calllogutils' type_* wording
 *  (Incoming call, Missed call, Declined call, Blocked call, Voicemail) in the same lower case. */
const KIND_DESC = { incoming: 'incoming call', outgoing: 'outgoing call', missed: 'missed call', rejected: 'declined call',
  blocked: 'blocked call', voicemail: 'voicemail' };
const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const LONG_MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October',
  'November', 'December'];

/** calllogutils/CallLogDates.newCallLogTimestampLabel (the new call log Google's descends from): "Just now",
 *  minutes ago, the time today, the weekday within a week, else the date; ``abbrev`` for the row's text,
 *  unabbreviated for its description. */
function stamp(iso, abbrev) {
  if (!iso) return '';
  const t = new Date(String(iso).slice(0, 19) + 'Z'), n = now();
  const ms = n - t;
  if (ms < 60e3) return 'Just now';
  if (ms < 3600e3) { const m = Math.floor(ms / 60e3); return abbrev ? `${m} min ago` : `${m} minute${m === 1 ? '' : 's'} ago`; }
  const days = Math.round((new Date(nowIso().slice(0, 10) + 'T00:00:00Z') - new Date(String(iso).slice(0, 10) + 'T00:00:00Z')) / 86400e3);
  if (days === 0) return fmtTime(t.getUTCHours(), t.getUTCMinutes());
  if (days < 7) return abbrev ? WEEKDAYS[t.getUTCDay()].slice(0, 3) : WEEKDAYS[t.getUTCDay()];
  const md = `${(abbrev ? MONTHS : LONG_MONTHS)[t.getUTCMonth()]} ${t.getUTCDate()}`;
  return t.getUTCFullYear() === n.getUTCFullYear() ? md : `${md}, ${t.getUTCFullYear()}`;
}

// ------------------------------------------------------------------------------------------
// the main screen: search bar, the tab's list, the key pad FAB, the Material bottom navigation
const G_TABS = [['favorites', 'tab_speed_dial', 'Favorites', '☆'], ['recents', 'tab_call_history', 'Recents', '🕘'],
  ['contacts', 'tab_contacts', 'Contacts', '👥'], ['voicemail', 'tab_voicemail', 'Voicemail', '✉']];

function gSearchBar() {
  // a Material SearchBar (its own id unseen): the text view open_search_bar_text_view (IDX 67423719358,
  // 54181515519), Button "Start voice search" and ImageView "More options" (IDX 67423719358)
  return html`<div class="gd-bar" ...${A('android.view.ViewGroup', { click: true })} ...${xTap(startSearch)}>
    <span>🔍</span>
    <span class="gd-bar-text" ...${A('android.widget.TextView', { id: 'open_search_bar_text_view', text: HINT, click: true })}>${HINT}</span>
    ${xIcon('android.widget.Button', null, 'Start voice search', '🎤', () => toast('Voice search is not available'))}
    ${xIcon('android.widget.ImageView', null, 'More options', '⋮', () => { ui().dialog = { kind: 'menu', where: 'main' }; })}
  </div>`;
}

function gNav(tab) {
  // Material BottomNavigationView as the Google Clock dump shows it (tests/fixtures/real-apps/google/clock/
  // alarm_expanded_new_sdk34_1080x2400.xml: item FrameLayout = menu id, described by its title, selected and
  // not clickable while selected > navigation_bar_item_icon_container > active_indicator (selected only) +
  // icon_view; labels_group > large_label_view (selected) or small_label_view); Dialer menu ids tab_speed_dial,
  // tab_call_history, tab_contacts (IDX 26514819838), tab_voicemail (IDX 55788475441); the bar's
  // own id is unseen. Voicemail shows as Google's Phone shows it with a voicemail number.
  return html`<div class="gd-nav" ...${A('android.widget.FrameLayout')}>
    <div style="display:flex;flex:1" ...${A('android.view.ViewGroup')}>
    ${G_TABS.map(([id, rid, label, icon]) => {
      const on = tab === id;
      return html`<div class="gd-item" data-selected=${on ? '1' : '0'}
          ...${A('android.widget.FrameLayout', { id: rid, desc: label, click: !on, selected: on, text: '' })}
          ...${xTap(() => { ui().ph_expanded = null; replace('main', { tab: id }); })}>
        <div class="gd-icon" ...${A('android.widget.FrameLayout', { id: 'navigation_bar_item_icon_container', selected: on })}>
          ${on ? html`<div class="gd-ind" ...${A('android.view.View', { id: 'navigation_bar_item_active_indicator_view', selected: on, text: '' })}></div>` : null}
          <span ...${A('android.widget.ImageView', { id: 'navigation_bar_item_icon_view', selected: on, text: '' })}>${icon}</span></div>
        <div ...${A('android.view.ViewGroup', { id: 'navigation_bar_item_labels_group', selected: on })}>
          <span class="gd-label" ...${A('android.widget.TextView', { id: on ? 'navigation_bar_item_large_label_view' : 'navigation_bar_item_small_label_view', text: label, selected: on })}>${label}</span></div>
      </div>`;
    })}</div>
  </div>`;
}

function gMain(p) {
  const tab = G_TABS.some(([id]) => id === p.tab) ? p.tab : 'favorites';
  const body = tab === 'recents' ? gCallLog(sortedCalls(), 'main/recents')
    : tab === 'voicemail' ? gVoicemail() : tab === 'contacts' ? xContacts() : xFavorites();
  // Favorites and Contacts keep AOSP's speeddial / contactsfragment layouts (OLHA: Google's Contacts tab rows
  // are the same click_target > contact_name, "Create new contact" first); no public capture of Favorites
  return html`<div class="xd" ...${A('android.widget.FrameLayout')}>
    ${gSearchBar()}
    <div class="xd-body" ...${A('android.view.ViewGroup')}>
      <div style="position:absolute;inset:0" ...${A('android.widget.FrameLayout')}>${body}</div>
      <div class="gd-fab" ...${A('android.widget.ImageButton', { id: 'dialpad_fab', desc: 'key pad', click: true, text: '' })} ...${xTap(openDialpad)}>⠿</div>
    </div>
    ${gNav(tab)}
  </div>`;
}

function gVoicemail() {
  // no public capture of the Voicemail tab: its voicemails as Recents rows, else the old Dialer's
  // empty view (app strings call_log_voicemail_empty)
  const list = sortedCalls().filter((c) => c.kind === 'voicemail');
  if (!list.length) return html`<div style="position:absolute;inset:0" ...${A('android.widget.FrameLayout')}>${xEmpty('empty_list_view', 'Your voicemail inbox is empty.')}</div>`;
  return gCallLog(list, 'main/voicemail');
}

// ------------------------------------------------------------------------------------------
// the call log (Recents, and Call history's pages)
function gCallLog(list, key) {
  // call_log_recycler_view (IDX 59590572059, class as Google's support library reports it); per day a
  // header (the new call log's new_call_log_header_text: Today / Yesterday / Older); each call a CardView
  // call_log_entry_card described "<name>, <label>, <kind>, <when>." (IDX 15509589782, 60338280789) whose
  // texts are hidden from accessibility (new_call_log_entry.xml: importantForAccessibility noHideDescendants),
  // > ViewGroup call_log_entry_root_constraint_layout (the tap target, IVR) and ImageView call_button (IDX
  // 20093189783; described as the new call log's a11y_new_call_log_entry_voice_call "call <name>").
  // A tap expands the card in place; what it then offers is unseen, so it keeps AOSP's
  // call_log_list_item_actions.xml (an older Google Dialer offered "Call details" there, code index 40417839930).
  // Consecutive calls are not grouped into one entry ("(2)"), as the aosp flavor does not group them either.
  const u = ui();
  if (!list.length) {
    return html`<div style="position:absolute;inset:0" ...${A('android.widget.FrameLayout')}>${xEmpty('empty_list_view', 'Your call history is empty')}</div>`;
  }
  const today = nowIso().slice(0, 10), yday = yesterday();
  let lastGroup = null;
  const rows = list.map((c) => {
    const hit = contactFor(c.number);
    const name = displayName(c);
    const label = hit ? labelText(hit.phone.label) : '';
    const group = dayOf(c.time) === today ? 'Today' : dayOf(c.time) === yday ? 'Yesterday' : 'Older';
    const head = group !== lastGroup ? group : null;
    lastGroup = group;
    const open = u.ph_expanded === c.id;
    const desc = `${[name, label, KIND_DESC[c.kind] || c.kind, stamp(c.time, false)].filter(Boolean).join(', ')}.`;
    const sub = [label || (name === c.number ? '' : c.number), stamp(c.time, true)].filter(Boolean).join(', ');
    const bad = ['missed', 'rejected', 'blocked'].includes(c.kind);
    return html`${head ? html`<div class="gd-head" ...${A('android.widget.TextView', { id: 'new_call_log_header_text', text: head })}>${head}</div>` : null}
      <div class=${'gd-card' + (open ? ' open' : '')} ...${A('androidx.cardview.widget.CardView', { id: 'call_log_entry_card', desc, text: '' })}>
        <div class="gd-entry" ...${A('android.view.ViewGroup', { id: 'call_log_entry_root_constraint_layout', click: true })}
            ...${xTap(() => { u.ph_expanded = open ? null : c.id; })}>
          ${Avatar(name, 40)}
          <div class="gd-lines">
            <div class=${'gd-name' + (c.kind === 'missed' ? ' missed' : '')}>${name}</div>
            <div class="gd-sub"><span style=${`color:${bad ? '#d93025' : '#1e8e3e'}`}>${KIND_ICON[c.kind] || '•'}</span> ${sub}</div>
          </div>
          ${xIcon('android.widget.ImageView', 'call_button', `call ${name}`, '📞', () => placeCall(c.number, hit ? hit.contact.name : c.name))}
        </div>
        ${open ? xEntryActions(c, hit) : null}
      </div>`;
  });
  return html`<div style="position:absolute;inset:0" ...${A('android.widget.FrameLayout')}>
    <div class="xd-list" data-scroll-key=${`phone/g/${key}`} ...${A('android.support.v7.widget.RecyclerView', { id: 'call_log_recycler_view', scroll: true })}>${rows}</div>
  </div>`;
}

function gHistory(p) {
  // Call history from the overflow (ROOST "Call history"): no public capture of the screen, so it keeps
  // AOSP's CallLogActivity (call_log_activity.xml: action bar "Call History", ViewPagerTabs viewpager_header
  // All / Missed, the call_log_pager) with Google's rows
  const filter = p.filter === 'missed' ? 'missed' : 'all';
  const list = sortedCalls().filter((c) => filter === 'all' || c.kind === 'missed');
  const tabs = [['all', 'All'], ['missed', 'Missed']];
  return xHistoryFrame(filter, tabs,
    filter === 'missed' && !list.length ? xEmpty('empty_list_view', 'You have no missed calls.') : gCallLog(list, `history/${filter}`));
}

// ------------------------------------------------------------------------------------------
// the dial pad, search, the call
function gDialpad() {
  // AOSP's DialpadFragment (dialpad_view > digits_container > digits, deleteButton "backspace"; keys
  // FrameLayout "2,ABC" > dialpad_key_number / dialpad_key_letters, as IDX 67423719358 and 646659559 read
  // Google's) with Google's call button: Button dialpad_voice_call_button described "dial" (OLHA, IDX
  // 67423719358); the matches list above it offers "Send a message" (IDX 7088301691)
  return xDialpad({ callCls: 'android.widget.Button', callId: 'dialpad_voice_call_button', sms: 'Send a message' });
}

function gSearch() {
  // the Material SearchView the bar opens (MCA mtrl_search_view.xml: open_search_view_toolbar with the
  // navigation button searchview_navigation_content_description "Back", open_search_view_edit_text,
  // open_search_view_clear_button "Clear text" while there is text, open_search_view_content_container);
  // the results are the search fragment's (AOSP search_contact_row / search_action_layout, Google's
  // search_action_text: IDX 7088301691); the SearchView covers the screen, the key pad FAB and the
  // navigation with it
  const q = ui().fields.ph_query || '';
  return html`<div class="gd-sv" ...${A('android.widget.FrameLayout', { id: 'open_search_view_root' })}>
    <div ...${A('android.widget.FrameLayout', { id: 'open_search_view_toolbar_container' })}>
      <div class="gd-sv-bar" ...${A('android.view.ViewGroup', { id: 'open_search_view_toolbar' })}>
        ${xIcon('android.widget.ImageButton', null, 'Back', '←', () => back())}
        <div style="flex:1">${Field({ field: 'ph_query', hint: HINT, id: 'open_search_view_edit_text' })}</div>
        ${q ? xIcon('android.widget.ImageButton', 'open_search_view_clear_button', 'Clear text', '✕', () => { ui().fields.ph_query = ''; }) : null}
      </div>
    </div>
    <div style="flex:1;position:relative" ...${A('android.widget.FrameLayout', { id: 'open_search_view_content_container' })}>
      ${gResults(q)}
    </div>
  </div>`;
}

/** The search fragment's list for a typed query (the base's, with Google's "Send a message"). */
const gResults = (q) => xSearchResults(q, false, 'Send a message');

function gIncall(p) {
  // InCallUI as AOSP builds it (frag_incall_voice.xml: contactgrid_contact_name, which public code reads on
  // Google's, IDX 4194719053), with Google's end-call control a Button described "End call" (IDX 20093189783)
  return xIncall(p, { endCls: 'android.widget.Button' });
}

// ------------------------------------------------------------------------------------------
// menus
function gMenu(d) {
  if (d.where === 'history') return xPopup([['Clear call history', () => { ui().dialog = { kind: 'clear' }; }]], 'title');
  // the search bar's overflow: "Call history", "Settings", "Help & feedback" (ROOST), a framework PopupMenu
  // as AOSP's MainToolbarMenu (items android:id/title)
  return xPopup([['Call history', () => go('history', { filter: 'all' })], ['Settings', () => toast('Settings')],
    ['Help & feedback', () => toast('Help & feedback')]], 'android:id/title');
}

registerFlavor('google', 'phone', {
  pkg: PKG,
  screens: { main: gMain, dialpad: gDialpad, search: gSearch, history: gHistory, details: xDetails, incall: gIncall },
  dialogs: { menu: gMenu, clear: () => xClearDialog() },
  // the in-call screen and call details keep AOSP's activities inside Google's package
  activity: (r) => ({
    incall: `${PKG}/com.android.incallui.InCallActivity`,
    details: `${PKG}/com.android.dialer.calldetails.CallDetailsActivity`,
    history: `${PKG}/com.android.dialer.app.calllog.CallLogActivity`,
  })[r.s] || `${PKG}/.extensions.GoogleDialtactsActivity`,
});
