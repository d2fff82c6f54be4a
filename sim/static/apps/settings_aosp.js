// Flavor `aosp` of Settings: AOSP Settings (com.android.settings) of Android 14 as its sources define
// it; the widgets are in settings_kit.js (with their layouts cited). Per screen below, the preference
// XML it follows (AOSP-SET = aosp-mirror/platform_packages_apps_settings; the Android 14 trees read
// are named where the AOSP mirror's stored version is an older one):
//   home       res/xml/top_level_settings.xml @ 0437f524dda985dd6283642a8735fd51fe35e52a (keys, order, titles;
//              summaries as the controllers set them, as captures of Google's emulator image show them (AW-TR,
//              HOME-C in google/settings.js: "Mobile, Wi‑Fi, hotspot", "Bluetooth, pairing",
//              "Assistant, recent apps, default apps", "Notification history, conversations", "100%",
//              "39% used - 4.84 GB free", "Volume, haptics, Do Not Disturb", "Dark theme, font size, brightness",
//              "Colors, themed icons, app grid", "Display, interaction, audio"; the rows after those from the
//              strings the XML names, not seen in a capture); the condition cards of
//              ConditionContextualCardController (AOSP-SET homepage_condition_header.xml / _full_tile.xml; the
//              real dump tests/fixtures/real-apps/aosp/settings/ shows the collapsed header). Condition titles
//              "Airplane mode is on" (network_provider_settings.xml names condition_airplane_title),
//              "Mobile data is off", "Do Not Disturb is on" and their summaries and actions are AOSP's strings
//              as remembered, not re-read: strings.xml was not available to read
//   network    res/xml/network_provider_internet.xml @ 01824b9e57371dd731c9376c011d0608cb971d46
//   wifi       res/xml/network_provider_settings.xml, nxp-imx-android/aosp_platform_packages_apps_Settings
//              @ 4a09de43b5f6e1fb9736617ce127700c55c2a2f4 (Android 14: main_toggle_wifi "Wi‑Fi")
//   mobile     res/xml/mobile_network_settings.xml (MobileNetworkSettings, titled by the carrier)
//   connected  res/xml/connected_devices.xml, connected_devices_advanced.xml, bluetooth_screen.xml
//   display    res/xml/display_settings.xml, ClownUI-udc/packages_apps_Settings @ 10cc0673792aa37f7b1c03824cde3b1521f7e7c0
//              (an Android 14 tree: the Brightness / Lock display / Appearance / Color / Other display
//              controls categories, PrimarySwitchPreference for Adaptive brightness and Dark theme,
//              Screen timeout as its own ScreenTimeoutSettings page, "Display size and text"); the summaries
//              "Show all notification content", "Will never turn on automatically", "Clock" as AW-TR shows them
//   brightness SystemUI's BrightnessDialog (the Display page fires SHOW_BRIGHTNESS_DIALOG): a slider
//              described "Display brightness" (an emulator capture in EVIDENCE.md shows exactly that)
//   textsize   res/xml/accessibility_text_reading_options.xml @ f0e00b8bf7a679ec512a0544956868d9abb2b9d7,
//              res/layout/preference_labeled_slider.xml @ 2677d78026c34d5b847dffb54b9b79ad2cfe94e1,
//              res/layout/icon_discrete_slider.xml @ 74274acc17f653e30c67362d8e31874e93cb025b
//   sound      res/xml/sound_settings.xml, CalyxOS/platform_packages_apps_Settings @ 426323e722cd8d0af13605251e8ae57e7902ee0d
//   dnd        res/xml/zen_mode_settings.xml (the "Turn on now" / "Turn off now" button, not a switch)
//   location   res/xml/location_settings.xml (MainSwitchPreference "Use location")
//   about      res/xml/my_device_info.xml, CalyxOS/platform_packages_apps_Settings @ 06a36bc023b1019b521a604ea35b6b481e776642
//   search     SettingsIntelligence's SearchActivity (com.android.settings.intelligence):
//              LineageOS/android_packages_apps_SettingsIntelligence res/layout/search_panel.xml @ 2d1f70c640b0abfe652ff4763d80a958b2baca49
//              (a framework SearchView, whose field is android:id/search_src_text, over list_results rows)
// Not modelled (rows that open nothing but a toast): Apps, Notifications, Storage, Wallpaper & style,
// Accessibility, Security & privacy, Safety & emergency, Passwords & accounts, System. Identity values
// (phone number, IMEI, addresses) are left out of About phone: the world has none.
// Gaps kept on purpose, where the sim has no state or no system UI to show: the brightness slider is
// linear (SystemUI's is gamma-mapped); the SeekBars carry their position as text, which a real
// uiautomator dump does not; the ringer is set by the Ring volume slider only (0 = vibrate, as AudioService
// does on a phone with a vibrator) — AOSP Settings has no control that silences the ringer (that is
// SystemUI's volume dialog, which the sim does not draw).
import { html, registerFlavor, A, world, ui, go, back, update, setSetting, toast, scrollKey, Field,
  Slider } from '../os.js';
import { TIMEOUTS } from './settings.js';
import { LL, FL, VG, TV, IV, IB, SV, RV, BTN, CARD, GRID, T, Page, Category, Pref, SwitchPref, PrimarySwitchPref,
  MainSwitchBar, RadioPref, VolumePref, Footer, AlertDialog, DialogEdit, tap } from './settings_kit.js';

const S = () => world().settings;
export const NETWORKS = ['HomeNet-5G', 'CoffeeShop', 'Office-Guest'];
export const PAIRED = ['Pixel Buds Pro', 'Car audio', 'JBL Flip 5'];
// the carrier of the phone's SIM (the Android emulator's operator name)
export const CARRIER = 'T-Mobile';
// Android 14's font scale steps (FontSizeData over entryvalues_font_size: 0.85 … 2.0 with nonlinear scaling)
export const FONT_STEPS = [0.85, 1.0, 1.15, 1.3, 1.5, 1.8, 2.0];
const fontIndex = (v) => FONT_STEPS.reduce((best, x, i) => (Math.abs(x - v) < Math.abs(FONT_STEPS[best] - v) ? i : best), 0);
const pct = (b) => `${Math.round((b / 255) * 100)}%`;
const timeoutLabel = (v) => (TIMEOUTS.find(([x]) => x === v) || [v, `${Math.round(v / 1000)} seconds`])[1];
const notModelled = (title) => () => toast(title);

// ------------------------------------------------------------------------------------------
// homepage (SettingsHomepageActivity)

/** The conditions ConditionManager shows on the homepage, in its order (AirplaneMode, CellularData, Dnd). */
export function conditions() {
  const s = S();
  const out = [];
  if (s.airplane_mode) out.push({ glyph: '✈', title: 'Airplane mode is on', summary: 'Network unavailable', action: 'Turn off', run: () => setSetting('airplane_mode', false) });
  // mobile data read as off under airplane mode is the world's shorthand, not the data setting: no condition then
  if (s.mobile_data === false && !s.airplane_mode) out.push({ glyph: '⊘', title: 'Mobile data is off', summary: 'Internet is available only via Wi‑Fi', action: 'Turn on', run: () => { s.mobile_data = true; } });
  if (s.do_not_disturb) out.push({ glyph: '⊖', title: 'Do Not Disturb is on', summary: 'Phone muted', action: 'Turn off', run: () => { s.do_not_disturb = false; } });
  return out;
}

function conditionTile(c) {
  return html`<div class="ap-card" ...${A(CARD, {})}>
    <div class="ap-cond-full" ...${A(LL, { id: 'content', click: true })} ...${tap(() => {})}>
      <span class="row-icon" ...${A(IV, { id: 'android:id/icon', text: '' })}>${c.glyph}</span>
      <div style="flex:1" ...${A(LL, {})}>${T(c.title, 'android:id/title', 'row-title')}${T(c.summary, 'android:id/summary', 'row-sub')}</div>
      <div class="btn text" ...${A(BTN, { id: 'first_action', text: c.action, click: true })} ...${tap(c.run)}>${c.action}</div>
    </div></div>`;
}

/** Two or more conditions collapse into one header card (its icons and the expand indicator); tapping it expands them. */
function conditionCards() {
  const cs = conditions();
  if (!cs.length) return null;
  let cards;
  if (cs.length === 1 || ui().apConditionsOpen) {
    // expanded: every condition as its full tile (AOSP pairs them into half tiles and adds a collapse
    // footer, homepage_condition_footer.xml, which was not read: left out)
    cards = html`${cs.map(conditionTile)}`;
  } else {
    cards = html`<div class="ap-card" ...${A(CARD, { desc: 'Show', click: true })} ...${tap(() => { ui().apConditionsOpen = true; })}>
      <div class="ap-cond-head" ...${A(LL, {})}>
        <div class="ap-cond-icons" ...${A(LL, { id: 'header_icons_container' })}>${cs.map((c) => html`<span ...${A(IV, { id: 'android:id/icon', text: '' })}>${c.glyph}</span>`)}</div>
        <span ...${A(IV, { id: 'expand_indicator', text: '' })}>⌄</span>
      </div></div>`;
  }
  return html`<div class="ap-cards" ...${A(LL, {})}><div ...${A(GRID, { id: 'card_container' })}>${cards}</div></div>`;
}

/** The top-level entries of top_level_settings.xml that an AOSP phone shows (communal, emergency when
 *  configured off, support without a provider are hidden), each [title, summary, glyph, onClick]. */
export function homeEntries() {
  const s = S(), d = world().device;
  const location = s.location ? 'On - 2 apps have access to location' : 'Off';
  return [
    ['Network & internet', 'Mobile, Wi‑Fi, hotspot', '📶', () => go('network')],
    ['Connected devices', 'Bluetooth, pairing', '🔗', () => go('connected')],
    ['Apps', 'Assistant, recent apps, default apps', '▦', notModelled('Apps')],
    ['Notifications', 'Notification history, conversations', '🔔', notModelled('Notifications')],
    ['Battery', `${window.S2R.state.sys.battery}%`, '🔋', () => go('battery')],
    ['Storage', '39% used - 4.84 GB free', '▤', notModelled('Storage')],
    ['Sound & vibration', 'Volume, haptics, Do Not Disturb', '🔊', () => go('sound')],
    ['Display', 'Dark theme, font size, brightness', '☀', () => go('display')],
    ['Wallpaper & style', 'Colors, themed icons, app grid', '🎨', notModelled('Wallpaper & style')],
    ['Accessibility', 'Display, interaction, audio', '♿', notModelled('Accessibility')],
    ['Security & privacy', 'App security, device lock, permissions', '🛡', notModelled('Security & privacy')],
    ['Location', location, '📍', () => go('location')],
    ['Safety & emergency', 'Emergency SOS, medical info, alerts', '✱', notModelled('Safety & emergency')],
    ['Passwords & accounts', 'Saved passwords, autofill, synced accounts', '🔑', notModelled('Passwords & accounts')],
    ['System', 'Languages, gestures, time, backup', 'ⓘ', notModelled('System')],
    ['About phone', s.device_name || d.model, '📱', () => go('about')],
  ];
}

/** SettingsHomepageActivity: app bar (avatar where an account provider sets one, the title, the search
 *  bar), the contextual cards, then the top-level list (homepage_preference rows: icon_frame + text_frame). */
export function homeScreen({ avatar, entries } = {}) {
  const rows = (entries || homeEntries()).map(([title, summary, glyph, onClick]) => html`<div class="ap-hrow"
      ...${A(LL, { click: true })} ...${tap(onClick)}>
    <div ...${A(LL, { id: 'icon_frame' })}><span class="ap-hicon" ...${A(IV, { id: 'android:id/icon', text: '' })}>${glyph}</span></div>
    <div class="row-text" ...${A(LL, { id: 'text_frame' })}>
      <div class="row-title" ...${A(TV, { id: 'android:id/title', text: title })}>${title}</div>
      <div class="row-sub" ...${A(TV, { id: 'android:id/summary', text: summary })}>${summary}</div>
    </div></div>`);
  return html`<div class="screen"><div class="ap-home" style="position:absolute;inset:0" data-scroll-key=${scrollKey()}
      ...${A(SV, { id: 'settings_homepage_container', scroll: true })}>
    <div ...${A(LL, { id: 'app_bar' })}><div ...${A(LL, { id: 'app_bar_container' })}>
      <div class="ap-home-bar" ...${A(LL, { id: 'homepage_app_bar_regular_phone_view' })}>
        ${avatar ? html`<div class="ap-avatar" ...${A(IV, { id: 'account_avatar', desc: avatar, click: true, text: '' })}
            ...${tap(() => toast('Google Account'))}>●</div>` : null}
        <div class="ap-home-title" ...${A(TV, { id: 'homepage_title', text: 'Settings' })}>Settings</div>
        <div class="ap-search" ...${A(FL, { id: 'search_bar' })}>
          <div class="ap-search-bar" ...${A(VG, { id: 'search_action_bar', click: true })} ...${tap(() => { ui().fields.settings_search = ''; go('search'); })}>
            <span class="icon-btn" ...${A(IB, { text: '' })}>🔍</span>${T('Search settings', 'search_action_bar_title')}
          </div></div>
      </div></div></div>
    <div ...${A(SV, { id: 'main_content_scrollable_container', scroll: true })}>
      <div ...${A(LL, { id: 'homepage_container' })}>
        <div ...${A(FL, { id: 'contextual_cards_content' })}>${conditionCards()}</div>
        <div ...${A(FL, { id: 'main_content' })}><div ...${A(LL, { id: 'container_material' })}>
          <div ...${A(FL, { id: 'android:id/list_container' })}><div style="padding-bottom:48px" ...${A(RV, { id: 'recycler_view' })}>${rows}</div></div>
        </div></div>
      </div></div>
  </div></div>`;
}

// ------------------------------------------------------------------------------------------
// Network & internet

function internetSummary(s) {
  if (s.airplane_mode) return 'Airplane mode is on';
  if (s.wifi) return NETWORKS[0];
  return s.mobile_data ? CARRIER : 'Off';
}

function network() {
  const s = S();
  return Page({ title: 'Network & internet', body: html`
    ${Pref({ title: 'Internet', summary: internetSummary(s), glyph: '📶', onClick: () => go('wifi') })}
    ${Pref({ title: 'SIMs', summary: CARRIER, glyph: '▯', onClick: () => go('mobile') })}
    ${SwitchPref({ title: 'Airplane mode', glyph: '✈', checked: !!s.airplane_mode, onChange: (v) => setSetting('airplane_mode', v) })}
    ${Pref({ title: 'Hotspot & tethering', summary: 'Off', glyph: '◎', onClick: notModelled('Hotspot & tethering') })}
    ${Pref({ title: 'Data Saver', summary: 'Off', glyph: '◔', onClick: notModelled('Data Saver') })}
    ${Pref({ title: 'VPN', summary: 'None', glyph: '🔒', onClick: notModelled('VPN') })}
    ${Pref({ title: 'Private DNS', summary: 'Automatic', onClick: notModelled('Private DNS') })}
  ` });
}

/** Internet (NetworkProviderSettings): the airplane message, the Wi‑Fi toggle, the networks, the footer. */
function wifi() {
  const s = S();
  const on = !!s.wifi && !s.airplane_mode;
  return Page({ title: 'Internet', body: html`
    ${s.airplane_mode ? html`<div class="ap-footer" ...${A(LL, {})}>${T('Airplane mode is on', undefined)}</div>` : null}
    ${SwitchPref({ title: 'Wi‑Fi', checked: !!s.wifi, onChange: (v) => setSetting('wifi', v) })}
    ${on ? html`${NETWORKS.map((n, i) => Pref({ title: n, summary: i === 0 ? 'Connected' : 'Saved', glyph: '📶', onClick: () => toast(n) }))}` : null}
    ${Pref({ title: 'Network preferences', onClick: notModelled('Network preferences') })}
    ${Pref({ title: 'Saved networks', onClick: notModelled('Saved networks') })}
    ${Pref({ title: 'Non-carrier data usage', onClick: notModelled('Non-carrier data usage') })}
    ${on ? null : Footer('To see available networks, turn Wi‑Fi on.')}
  ` });
}

/** MobileNetworkSettings for the one SIM (titled by its carrier). */
function mobile() {
  const s = S();
  return Page({ title: CARRIER, body: html`
    ${SwitchPref({ title: 'Mobile data', summary: 'Access data using mobile network', checked: !!s.mobile_data, onChange: (v) => { s.mobile_data = v; } })}
    ${SwitchPref({ title: 'Roaming', summary: 'Connect to data services when roaming', checked: !!ui().apRoaming, onChange: (v) => { ui().apRoaming = v; } })}
    ${Pref({ title: 'App data usage', onClick: notModelled('App data usage') })}
    ${Pref({ title: 'Data warning & limit', onClick: notModelled('Data warning & limit') })}
  ` });
}

// ------------------------------------------------------------------------------------------
// Connected devices

function connected() {
  const s = S();
  return Page({ title: 'Connected devices', body: html`
    ${Pref({ title: 'Pair new device', glyph: '+', onClick: notModelled('Pair new device') })}
    ${Category('Saved devices')}
    ${PAIRED.map((n) => Pref({ title: n, glyph: '🎧', onClick: () => toast(s.bluetooth ? `Connecting to ${n}` : 'Bluetooth will turn on') }))}
    ${Pref({ title: 'See all', onClick: notModelled('See all') })}
    ${Pref({ title: 'Connection preferences', summary: 'Bluetooth, Android Auto', glyph: '⚙', onClick: () => go('connprefs') })}
  ` });
}

function connprefs() {
  const s = S();
  return Page({ title: 'Connection preferences', body: html`
    ${Pref({ title: 'Bluetooth', summary: s.bluetooth ? 'On' : 'Off', glyph: '✻', onClick: () => go('bluetooth') })}
    ${Pref({ title: 'Cast', glyph: '▭', onClick: notModelled('Cast') })}
    ${Pref({ title: 'Printing', glyph: '⎙', onClick: notModelled('Printing') })}
    ${Pref({ title: 'Files received via Bluetooth', glyph: '⇩', onClick: notModelled('Files received via Bluetooth') })}
    ${Pref({ title: 'Android Auto', glyph: '🚗', onClick: notModelled('Android Auto') })}
  ` });
}

/** BluetoothDashboardFragment: the main switch "Use Bluetooth", the device name, pairing, the footer. */
function bluetooth() {
  const s = S(), d = world().device;
  return Page({ title: 'Bluetooth', body: html`
    ${MainSwitchBar({ label: 'Use Bluetooth', checked: !!s.bluetooth, onChange: (v) => setSetting('bluetooth', v) })}
    ${Pref({ title: 'Device name', summary: s.device_name || d.model, onClick: () => openDeviceName() })}
    ${s.bluetooth ? Pref({ title: 'Pair new device', glyph: '+', onClick: notModelled('Pair new device') }) : null}
    ${Footer('When Bluetooth is turned on, your device can communicate with other nearby Bluetooth devices.')}
  ` });
}

// ------------------------------------------------------------------------------------------
// Display

/** The Display page; `rotate(s)` draws the auto-rotate row (a plain SwitchPreference on AOSP). */
export function displayScreen({ rotate } = {}) {
  const s = S();
  const rot = rotate || ((st) => SwitchPref({ title: 'Auto-rotate screen', checked: !!st.auto_rotate, onChange: (v) => { st.auto_rotate = v; } }));
  return Page({ title: 'Display', body: html`
    ${Category('Brightness')}
    ${Pref({ title: 'Brightness level', summary: pct(s.brightness ?? 0), onClick: () => go('brightness') })}
    ${PrimarySwitchPref({ title: 'Adaptive brightness', checked: !!s.adaptive_brightness, onChange: (v) => { s.adaptive_brightness = v; }, onClick: () => go('autobright') })}
    ${Category('Lock display')}
    ${Pref({ title: 'Lock screen', summary: 'Show all notification content', onClick: notModelled('Lock screen') })}
    ${Pref({ title: 'Screen timeout', summary: `After ${timeoutLabel(s.screen_off_timeout_ms)} of inactivity`, onClick: () => go('timeout') })}
    ${Category('Appearance')}
    ${PrimarySwitchPref({ title: 'Dark theme', summary: s.dark_mode ? 'Will never turn off automatically' : 'Will never turn on automatically',
      checked: !!s.dark_mode, onChange: (v) => { s.dark_mode = v; }, onClick: () => go('darkmode') })}
    ${Pref({ title: 'Display size and text', onClick: () => go('textsize') })}
    ${Category('Color')}
    ${Pref({ title: 'Colors', onClick: notModelled('Colors') })}
    ${Category('Other display controls')}
    ${rot(s)}
    ${Pref({ title: 'Screen saver', summary: 'Clock', onClick: notModelled('Screen saver') })}
  ` });
}

/** SystemUI's BrightnessDialog over the Display page: brightness_slider > slider ("Display brightness"). */
function brightness() {
  const s = S();
  return html`<div class="screen" style="background:rgba(0,0,0,.35)" onClick=${(e) => { if (e.target === e.currentTarget) update(() => back()); }}>
    <div class="ap-card" style="margin:24px 16px;padding:12px" ...${A(FL, { id: 'com.android.systemui:id/brightness_slider' })}>
      ${Slider({ value: s.brightness ?? 0, min: 0, max: 255, id: 'com.android.systemui:id/slider', desc: 'Display brightness',
        onChange: (v) => { s.brightness = v; } })}
    </div></div>`;
}

function autobright() {
  const s = S();
  return Page({ title: 'Adaptive brightness', body: html`
    ${MainSwitchBar({ label: 'Use adaptive brightness', checked: !!s.adaptive_brightness, onChange: (v) => { s.adaptive_brightness = v; } })}
  ` });
}

function darkmode() {
  const s = S();
  return Page({ title: 'Dark theme', body: html`
    ${MainSwitchBar({ label: 'Use Dark theme', checked: !!s.dark_mode, onChange: (v) => { s.dark_mode = v; } })}
    ${Pref({ title: 'Schedule', summary: 'None', onClick: notModelled('Schedule') })}
    ${Footer('Dark theme uses a black background to help keep battery alive longer on some screens. Dark theme schedules wait to turn on until your screen is off.')}
  ` });
}

/** ScreenTimeoutSettings: one radio row per timeout (a RadioButtonPickerFragment). */
function timeout() {
  const s = S();
  return Page({ title: 'Screen timeout', body: html`
    ${TIMEOUTS.map(([v, label]) => RadioPref({ title: label, checked: s.screen_off_timeout_ms === v, onSelect: () => { s.screen_off_timeout_ms = v; } }))}
  ` });
}

/** LabeledSeekBarPreference (preference_labeled_slider.xml + icon_discrete_slider.xml): title, summary, then
 *  seekbar_frame > icon_start_frame ("Make smaller") > icon_start, the SeekBar, icon_end_frame ("Make larger"). */
function labeledSeekBar({ title, summary, index, steps, onStep }) {
  const btn = (which, desc, glyph, d) => html`<span class="icon-btn" ...${A(FL, { id: `icon_${which}_frame`, desc, click: true, text: '' })}
      ...${tap(() => onStep(Math.max(0, Math.min(steps - 1, index + d))))}><span ...${A(IV, { id: `icon_${which}`, text: '' })}>${glyph}</span></span>`;
  return html`<div class="ap-slider-row" ...${A('android.widget.RelativeLayout', {})}>
    <div>${T(title, 'android:id/title', 'row-title')}</div><div>${T(summary, 'android:id/summary', 'row-sub')}</div>
    <div class="ap-step" ...${A(LL, { id: 'seekbar_frame' })}>${btn('start', 'Make smaller', '−', -1)}
      ${Slider({ value: index, min: 0, max: steps - 1, id: 'android:id/seekbar', desc: title, onChange: (v) => onStep(v) })}
      ${btn('end', 'Make larger', '+', +1)}</div>
  </div>`;
}

/** Display size and text (TextReadingPreferenceFragment). Display size, bold and high contrast text have no
 *  world state: they are kept in the page's own UI state. */
function textsize() {
  const s = S(), u = ui();
  const zoom = u.apZoom ?? 1;
  return Page({ title: 'Display size and text', body: html`
    <div class="ap-preview" ...${A(LL, {})}><span style=${`font-size:${15 * (s.font_scale || 1)}px`}>Preview</span></div>
    ${labeledSeekBar({ title: 'Font size', summary: 'Make text bigger or smaller', index: fontIndex(s.font_scale ?? 1), steps: FONT_STEPS.length,
      onStep: (i) => { s.font_scale = FONT_STEPS[i]; } })}
    ${labeledSeekBar({ title: 'Display size', summary: 'Make everything bigger or smaller', index: zoom, steps: 4, onStep: (i) => { u.apZoom = i; } })}
    ${SwitchPref({ title: 'Bold text', checked: !!u.apBold, onChange: (v) => { u.apBold = v; } })}
    ${SwitchPref({ title: 'High contrast text', summary: 'Change text color to black or white. Maximizes contrast with the background.', checked: !!u.apContrast, onChange: (v) => { u.apContrast = v; } })}
    <div class="ap-btn" ...${A(BTN, { text: 'Reset settings', click: true })} ...${tap(() => { s.font_scale = 1.0; u.apZoom = 1; u.apBold = false; u.apContrast = false; })}>Reset settings</div>
  ` });
}

// ------------------------------------------------------------------------------------------
// Sound & vibration

function sound() {
  const s = S();
  const ring = s.ringer_mode === 'normal' || !s.ringer_mode ? 5 : 0;
  return Page({ title: 'Sound & vibration', body: html`
    ${VolumePref({ title: 'Media volume', glyph: '♪', value: s.media_volume ?? 0, max: 25, onChange: (v) => { s.media_volume = v; } })}
    ${VolumePref({ title: 'Call volume', glyph: '📞', value: ui().apCallVol ?? 4, max: 7, onChange: (v) => { ui().apCallVol = v; } })}
    ${VolumePref({ title: 'Ring volume', glyph: '🔔', value: ring, max: 7, onChange: (v) => { s.ringer_mode = v === 0 ? 'vibrate' : 'normal'; } })}
    ${VolumePref({ title: 'Notification volume', glyph: '🔔', value: ring ? ui().apNotifVol ?? 5 : 0, max: 7, onChange: (v) => { ui().apNotifVol = v; } })}
    ${VolumePref({ title: 'Alarm volume', glyph: '⏰', value: ui().apAlarmVol ?? 6, max: 7, onChange: (v) => { ui().apAlarmVol = v; } })}
    ${Pref({ title: 'Do Not Disturb', summary: s.do_not_disturb ? 'On' : 'Off', onClick: () => go('dnd') })}
    ${Pref({ title: 'Phone ringtone', onClick: notModelled('Phone ringtone') })}
    ${Pref({ title: 'Media', onClick: notModelled('Media') })}
    ${Pref({ title: 'Vibration & haptics', summary: 'On', onClick: notModelled('Vibration & haptics') })}
    ${Pref({ title: 'Default notification sound', onClick: notModelled('Default notification sound') })}
    ${Pref({ title: 'Default alarm sound', onClick: notModelled('Default alarm sound') })}
  ` });
}

/** ZenModeSettings: Do Not Disturb is turned on and off by the page's button, then what may interrupt it. */
function dnd() {
  const s = S();
  const on = !!s.do_not_disturb;
  return Page({ title: 'Do Not Disturb', body: html`
    <div ...${A(LL, {})}><div class="ap-btn" ...${A(BTN, { id: on ? 'zen_mode_settings_turn_off_button' : 'zen_mode_settings_turn_on_button', text: on ? 'Turn off now' : 'Turn on now', click: true })}
      ...${tap(() => { s.do_not_disturb = !on; })}>${on ? 'Turn off now' : 'Turn on now'}</div></div>
    ${Category('What can interrupt Do Not Disturb')}
    ${Pref({ title: 'People', onClick: notModelled('People') })}
    ${Pref({ title: 'Apps', onClick: notModelled('Apps') })}
    ${Pref({ title: 'Alarms & other interruptions', onClick: notModelled('Alarms & other interruptions') })}
    ${Category('General')}
    ${Pref({ title: 'Schedules', onClick: notModelled('Schedules') })}
    ${Pref({ title: 'Duration for Quick Settings', onClick: notModelled('Duration for Quick Settings') })}
    ${Pref({ title: 'Display options for hidden notifications', onClick: notModelled('Display options for hidden notifications') })}
  ` });
}

// ------------------------------------------------------------------------------------------
// Location, Battery, About phone

function location() {
  const s = S();
  return Page({ title: 'Location', body: html`
    ${MainSwitchBar({ label: 'Use location', checked: !!s.location, onChange: (v) => { s.location = v; } })}
    ${s.location ? html`${Category('Recent access')}${Pref({ title: 'Maps', summary: '2 min ago', glyph: '🗺', onClick: notModelled('Maps') })}${Pref({ title: 'Weather', summary: '1 hr ago', glyph: '☁', onClick: notModelled('Weather') })}` : null}
    ${Pref({ title: 'App location permissions', summary: s.location ? '2 of 28 apps have access to location' : undefined, onClick: notModelled('App location permissions') })}
    ${Pref({ title: 'Location services', onClick: notModelled('Location services') })}
  ` });
}

function battery() {
  const b = window.S2R.state.sys.battery;
  return Page({ title: 'Battery', body: html`
    <div class="big mono" ...${A(TV, { text: `${b}%` })}>${b}%</div>
    ${Pref({ title: 'Battery usage', onClick: notModelled('Battery usage') })}
    ${Pref({ title: 'Battery Saver', summary: 'Off', onClick: notModelled('Battery Saver') })}
    ${SwitchPref({ title: 'Battery percentage', summary: 'Show battery percentage in status bar', checked: ui().apBattPct !== false, onChange: (v) => { ui().apBattPct = v; } })}
  ` });
}

function openDeviceName() {
  const s = S();
  ui().fields.devname = s.device_name || world().device.model || '';
  ui().dialog = { kind: 'devname' };
}

/** About phone (MyDeviceInfoFragment): the entity header, then Basic info, Legal & regulatory, Device details. */
function about() {
  const d = world().device, s = S();
  const name = s.device_name || d.model;
  return Page({ title: 'About phone', body: html`
    <div class="ap-bigtitle" ...${A(LL, { id: 'entity_header' })}>${T(name, 'entity_header_title')}</div>
    ${Category('Basic info')}
    ${Pref({ title: 'Device name', summary: name, onClick: () => openDeviceName() })}
    ${Category('Legal & regulatory')}
    ${Pref({ title: 'Legal information', onClick: notModelled('Legal information') })}
    ${Pref({ title: 'Regulatory labels', onClick: notModelled('Regulatory labels') })}
    ${Category('Device details')}
    ${Pref({ title: 'SIM status', summary: CARRIER, onClick: notModelled('SIM status') })}
    ${Pref({ title: 'Model', summary: d.model, onClick: notModelled('Model') })}
    ${Pref({ title: 'Android version', summary: d.android_version, onClick: notModelled('Android version') })}
    ${Category('Device identifiers')}
    ${Pref({ title: 'Build number', summary: d.build })}
  ` });
}

// ------------------------------------------------------------------------------------------
// search (SettingsIntelligence)

const SEARCHABLE = [
  ['Internet', 'Network & internet', 'wifi'], ['Wi‑Fi', 'Network & internet > Internet', 'wifi'],
  ['Airplane mode', 'Network & internet', 'network'], ['Mobile data', `Network & internet > SIMs > ${CARRIER}`, 'mobile'],
  ['Bluetooth', 'Connected devices > Connection preferences', 'bluetooth'], ['Display', 'Settings', 'display'],
  ['Brightness level', 'Display', 'display'], ['Dark theme', 'Display', 'display'], ['Screen timeout', 'Display', 'timeout'],
  ['Font size', 'Display > Display size and text', 'textsize'], ['Auto-rotate screen', 'Display', 'display'],
  ['Sound & vibration', 'Settings', 'sound'], ['Do Not Disturb', 'Sound & vibration', 'dnd'], ['Location', 'Settings', 'location'],
  ['Battery', 'Settings', 'battery'], ['About phone', 'Settings', 'about'], ['Android version', 'About phone', 'about'],
  ['Model', 'About phone', 'about'],
];

/** A search screen (SettingsIntelligence search_panel.xml: search_bar card > search_toolbar > the search
 *  field, then layout_results > list_results): `field` is the field's id, `pkg` the search app's package. */
export function searchScreen({ field, pkg, view = 'search_view', ids = true }) {
  const q = (ui().fields.settings_search || '').trim().toLowerCase();
  const hits = q ? SEARCHABLE.filter(([label]) => label.toLowerCase().includes(q)) : [];
  // where only the field's id is known (Google's search app), the containers carry none
  const id = (x) => (ids ? `${pkg}:id/${x}` : undefined);
  return html`<div class="ap-page" ...${A(LL, { id: id('search_panel') })}>
    <div ...${A(FL, { id: id('search_bar_container') })}><div class="ap-search" ...${A(CARD, { id: id('search_bar') })}>
      <div class="ap-search-bar" ...${A(VG, { id: id('search_toolbar') })}>
        <div class="icon-btn" ...${A(IB, { desc: 'Navigate up', click: true, text: '' })} ...${tap(() => back())}>←</div>
        <div style="flex:1" ...${A(LL, { id: id(view) })}>${Field({ field: 'settings_search', hint: 'Search settings', id: field })}</div>
      </div></div></div>
    <div style="flex:1;display:flex;min-height:0" ...${A(FL, { id: id('layout_results') })}>
      <div class="ap-list" data-scroll-key=${scrollKey()} ...${A(RV, { id: id('list_results'), scroll: true })}>
        ${hits.map(([title, crumb, screen]) => Pref({ title, summary: crumb, onClick: () => go(screen) }))}
      </div></div></div>`;
}

export const dialogs = {
  devname: () => AlertDialog({ title: 'Device name', body: DialogEdit('devname'), negative: 'Cancel', positive: 'OK',
    onPositive: () => { const v = (ui().fields.devname || '').trim(); if (v) S().device_name = v; ui().dialog = null; ui().focus = null; ui().keyboard = false; } }),
};

export const screens = {
  main: () => homeScreen(), network, wifi, mobile, connected, connprefs, bluetooth, display: () => displayScreen(), brightness,
  autobright, darkmode, timeout, textsize, sound, dnd, location, battery, about,
  search: () => searchScreen({ field: 'android:id/search_src_text', pkg: 'com.android.settings.intelligence' }),
};

/** The activity a route is: the homepage through the .Settings alias, pages in SubSettings, the
 *  brightness slider in SystemUI's BrightnessDialog, search in SettingsIntelligence. */
export function activityOf(r, searchActivity) {
  if (r.s === 'main') return 'com.android.settings/.Settings';
  if (r.s === 'brightness') return 'com.android.systemui/.settings.brightness.BrightnessDialog';
  if (r.s === 'search') return searchActivity;
  return 'com.android.settings/.SubSettings';
}

registerFlavor('aosp', 'settings', {
  root: { s: 'main', p: {} },
  screens,
  dialogs,
  activity: (r) => activityOf(r, 'com.android.settings.intelligence/.search.SearchActivity'),
});
