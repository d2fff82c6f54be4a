// Pixel Launcher (com.google.android.apps.nexuslauncher/.NexusLauncherActivity): the home screen
// and the app drawer of the `google` flavor.
//
// Home, modelled on a real dump of Pixel Launcher on Android 14 — gitweiyan/Webwright
// outputs/default/android_20260614_220946/hierarchy/step_0001.xml @ 83936683c1234673d56d2a4fef4ca3b2cf326b51
// (copy: tests/fixtures/real-apps/google/launcher/pixel_launcher_home_sdk34_1080x2400.xml):
//   launcher > drag_layer > scrim_view, workspace (a scrollable ScrollView) > page (ViewGroup) > cells
//   (ViewGroup) > search_container_workspace > bc_smartspace_view > smartspace_card_pager (ViewPager) >
//   a clickable card > text_group > `date` ("Sun, Jun 14", text = description) + smartspace_subtitle_group;
//   then the app icons: TextViews WITHOUT an id whose text and description are the label, clickable and
//   long-clickable, four to a row; page_indicator; hotseat (ViewGroup) > a row of icons whose last slot is a prediction described
//   "Predicted app: <label>", and search_container_hotseat (described "Search") > g_icon "Google app",
//   end_part > mic_icon "Voice search", lens_icon "Google Lens". Left out: the empty decorative views
//   (scrim_view, overview_actions_view, the "Home" AccessibilityActionsView), which carry nothing to read.
// The app drawer: no Pixel dump pinned; it follows Launcher3, which Pixel Launcher builds on —
//   LineageOS/android_packages_apps_Launcher3 res/layout/launcher.xml @ 47a40beb963ed4adb7205471306c5b770ea86d82
//   (apps_view), res/layout/search_container_all_apps.xml @ 3978b768f73143b13cc670d2aef1853092aada8e
//   (an EditText hinted all_apps_search_bar_hint "Search apps"), LineageOS/android_packages_apps_Trebuchet
//   res/layout/all_apps_rv_layout.xml @ 8f6130fc20bcc31c621d8e45968e44fc90da75b9 (AllAppsRecyclerView
//   apps_list_view); public test code reads Pixel Launcher's drawer by the same id
//   (com.google.android.apps.nexuslauncher:id/apps_list_view). Icons there are BubbleTextViews like the home's.
// The launcher's apps are the phone's (S2R.order minus the launcher itself), labelled S2R.apps[id].label.
// Where the real launcher would start another app the sim does not have (the Google app, Lens, voice
// search) the tap does what the Pixel's search bar does without it: it opens the drawer's app search.
import { html, registerFlavor, A, ui, openApp, toast, now, pressHandlers, Field } from '../../os.js';

const PKG = 'com.google.android.apps.nexuslauncher';
// Pixel's hotseat pins the phone's dialer and messaging apps first (WW step_0001: Phone, Messages, then a
// browser); the sim has no browser, so its third pin is Contacts. The fourth slot is a prediction.
const PINNED = ['phone', 'messages', 'contacts'];
const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

if (typeof document !== 'undefined' && !document.getElementById('nexus-css')) {
  const s = document.createElement('style');
  s.id = 'nexus-css';
  s.textContent = `
.nx-home { position: absolute; inset: 0; display: flex; flex-direction: column; background: linear-gradient(#2b3a55, #1c2436); color: #fff; }
.nx-ws { flex: 1; min-height: 0; display: flex; flex-direction: column; }
.nx-smart { margin: 28px 16px 0 34px; min-height: 96px; display: flex; flex-direction: column; justify-content: center; }
.nx-date { font-size: 22px; font-weight: 400; }
.nx-sub { height: 18px; }
.nx-grid { display: grid; grid-template-columns: repeat(4, 1fr); gap: 18px 0; padding: 36px 10px 0; }
.nx-icon { display: flex; flex-direction: column; align-items: center; gap: 6px; padding: 4px 0; }
.nx-glyph { width: 54px; height: 54px; border-radius: 27px; display: flex; align-items: center; justify-content: center; font-size: 26px; color: #fff; }
.nx-label { font-size: 12px; text-align: center; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; max-width: 84px; }
.nx-pages { height: 22px; display: flex; justify-content: center; align-items: center; }
.nx-dot { width: 6px; height: 6px; border-radius: 3px; background: rgba(255,255,255,.85); }
.nx-seat { flex: 0 0 auto; padding: 0 20px 14px; }
.nx-seat-row { display: grid; grid-template-columns: repeat(4, 1fr); }
.nx-seat-row .nx-label { display: none; }
.nx-qsb { margin-top: 14px; height: 56px; border-radius: 28px; background: rgba(255,255,255,.92); display: flex; align-items: center; padding: 0 4px; color: #444; }
.nx-qsb-btn { width: 46px; height: 46px; display: flex; align-items: center; justify-content: center; font-size: 20px; }
.nx-qsb-end { margin-left: auto; display: flex; }
.nx-drawer { position: absolute; inset: 0; display: flex; flex-direction: column; background: var(--surface); color: var(--on); }
.nx-drawer-search { padding: 12px 16px 4px; }
.nx-drawer-search .field { border-radius: 28px; }
.nx-drawer-list { flex: 1; min-height: 0; overflow-y: auto; touch-action: none; }
.nx-drawer-list .nx-grid { padding-top: 16px; }
.nx-drawer-empty { padding: 48px 24px; text-align: center; color: var(--muted); }
`;
  document.head.appendChild(s);
}

const apps = () => window.S2R.order.filter((a) => a !== 'launcher' && window.S2R.apps[a]);
const label = (a) => window.S2R.apps[a].label;

/** A BubbleTextView: a TextView with no id, its text and description the app's label. */
function icon(a, { desc } = {}) {
  const app = window.S2R.apps[a];
  return html`<div class="nx-icon"
      ...${A('android.widget.TextView', { pkg: PKG, text: app.label, desc: desc || app.label, click: true, long: true })}
      ...${pressHandlers(() => openApp(a), () => toast(`${app.label}: App info`))}>
    <div class="nx-glyph" style=${`background:${app.color || '#3367d6'}`}>${app.icon}</div>
    <div class="nx-label">${app.label}</div></div>`;
}

/** The hotseat's predicted app: the most recently used app that is not pinned (Pixel predicts from
 *  usage), else the first app that is not. */
function predicted() {
  const free = apps().filter((a) => !PINNED.includes(a));
  return (ui().recents || []).find((a) => free.includes(a)) || free[0];
}

/** The Pixel's search bar opens the launcher's own app search (the drawer, its field focused). */
function openSearch() {
  const u = ui();
  u.drawer = true;
  u.fields.nx_search = '';
  u.focus = 'nx_search';
  u.keyboard = true;
}

function home() {
  // Launcher3 resets the drawer's search when all apps closes (the os closes it: Home, Back, a launch),
  // so the next time the drawer opens it lists every app
  if (ui().fields.nx_search) ui().fields.nx_search = '';
  const d = now();
  const date = `${WEEKDAYS[d.getUTCDay()]}, ${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}`;  // "Sun, Jun 14"
  const seat = PINNED.filter((a) => window.S2R.apps[a]);
  const guess = predicted();
  const onHome = apps().filter((a) => !seat.includes(a));
  const tap = (fn) => pressHandlers(fn);
  return html`<div class="nx-home" ...${A('android.widget.FrameLayout', { id: 'launcher' })}>
    <div class="nx-ws" ...${A('android.widget.FrameLayout', { id: 'drag_layer' })}>
      <div class="nx-ws" ...${A('android.widget.ScrollView', { id: 'workspace', scroll: true })}>
        <div ...${A('android.view.ViewGroup')}><div ...${A('android.view.ViewGroup')}>
          <div ...${A('android.widget.FrameLayout', { id: 'search_container_workspace' })}>
            <div ...${A('android.widget.FrameLayout', { id: 'bc_smartspace_view' })}>
              <div ...${A('androidx.viewpager.widget.ViewPager', { id: 'smartspace_card_pager', long: true })}>
                <div class="nx-smart" ...${A('android.view.ViewGroup', { click: true })} ...${tap(() => openApp('calendar'))}>
                  <div ...${A('android.widget.RelativeLayout', { id: 'text_group' })}>
                    <div class="nx-date" ...${A('android.widget.TextView', { id: 'date', text: date, desc: date, click: true })}
                      ...${tap(() => openApp('calendar'))}>${date}</div>
                    <div class="nx-sub" ...${A('android.view.ViewGroup', { id: 'smartspace_subtitle_group' })}></div>
                  </div>
                </div>
              </div>
            </div>
          </div>
          <div class="nx-grid">${onHome.map((a) => icon(a))}</div>
        </div></div>
      </div>
      <div class="nx-pages" ...${A('android.view.View', { id: 'page_indicator' })}><div class="nx-dot"></div></div>
      <div class="nx-seat" ...${A('android.view.ViewGroup', { id: 'hotseat' })}>
        <div class="nx-seat-row" ...${A('android.view.ViewGroup')}>
          ${seat.map((a) => icon(a))}
          ${guess ? icon(guess, { desc: `Predicted app: ${label(guess)}` }) : null}
        </div>
        <div class="nx-qsb" ...${A('android.widget.FrameLayout', { id: 'search_container_hotseat', desc: 'Search', click: true, long: true })}
            ...${tap(openSearch)}>
          <div class="nx-qsb-btn" ...${A('android.widget.ImageView', { id: 'g_icon', desc: 'Google app', click: true, text: '' })} ...${tap(openSearch)}>G</div>
          <div class="nx-qsb-end" ...${A('android.widget.LinearLayout', { id: 'end_part' })}>
            <div class="nx-qsb-btn" ...${A('android.widget.ImageView', { id: 'mic_icon', desc: 'Voice search', click: true, text: '' })} ...${tap(openSearch)}>🎤</div>
            <div class="nx-qsb-btn" ...${A('android.widget.ImageButton', { id: 'lens_icon', desc: 'Google Lens', click: true, text: '' })} ...${tap(openSearch)}>◎</div>
          </div>
        </div>
      </div>
    </div>
  </div>`;
}

/** The apps whose label holds the drawer's query (Launcher3's DefaultAppSearchAlgorithm matches
 *  words by prefix; a plain case-insensitive substring is close enough for the sim). */
function matches() {
  const q = (ui().fields.nx_search || '').trim().toLowerCase();
  const all = [...apps()].sort((a, b) => label(a).localeCompare(label(b)));
  return q ? all.filter((a) => label(a).toLowerCase().includes(q)) : all;
}

function drawer() {
  // the list scrolls with the os's gestures (a [data-scroll-key] container, its offset kept in state)
  const list = matches();
  // Launcher3: the search field launches the first result on the IME's action
  const submit = () => { const first = matches()[0]; if (first) openApp(first); };
  return html`<div class="nx-drawer" ...${A('android.widget.FrameLayout', { id: 'apps_view' })}>
    <div class="nx-drawer-search">${Field({ field: 'nx_search', id: 'search_container_all_apps', hint: 'Search apps', onSubmit: submit })}</div>
    <div class="nx-drawer-list" data-scroll-key="launcher/drawer" ...${A('androidx.recyclerview.widget.RecyclerView', { id: 'apps_list_view', scroll: true })}>
      ${list.length ? html`<div class="nx-grid">${list.map((a) => icon(a))}</div>`
        : html`<div class="nx-drawer-empty" ...${A('android.widget.TextView', { text: 'No apps found' })}>No apps found</div>`}
    </div>
  </div>`;
}

registerFlavor('google', 'launcher', {
  pkg: PKG,
  activity: () => `${PKG}/.NexusLauncherActivity`,
  home,
  drawer,
});
