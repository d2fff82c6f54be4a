// Flavor `google`: Settings on a Pixel (Android 14). A Pixel's Settings is AOSP's com.android.settings
// (activity .Settings) built with Google's overlays, so every screen is the `aosp` flavor's
// (../settings_aosp.js, its layouts cited there) except where a capture of a Pixel or of Google's
// emulator image shows otherwise. Evidence (public captures found through the code index; where the index
// did not name the repository, the index's file id is given):
//   AW-TR  Rchintalapati0111/Android_world_challenge · results.md (a 386,500-character version of the file,
//          index id 40215968414): the a11y lists of android_world's recorded episode "Turn brightness to
//          the max value" on Google's emulator image — the homepage rows and summaries
//          "Network & internet / Mobile, Wi‑Fi, hotspot" … "Accessibility / Display, interaction, audio",
//          the avatar described "Profile picture, double tap to open Google Account", the Display page
//          ("Brightness level / 0%", "Lock screen / Show all notification content", "Dark theme / Will
//          never turn on automatically" with a clickable switch described "Dark theme", "Screen saver",
//          "Display size and text", "Colors", "Auto-rotate screen / On" with a clickable switch described
//          "Auto-rotate screen": a PrimarySwitchPreference, where AOSP has a plain switch row), and
//          "Brightness level" opening one control described "Display brightness" (SystemUI's dialog)
//   HOME-C public test code over a recorded Pixel-emulator homepage dump (index id 59944881541):
//          settings_homepage_container, the avatar [891,289][1017,415], search_action_bar [42,605][1038,742],
//          main_content_scrollable_container, rows "Network & internet Mobile, Wi‑Fi, hotspot" …
//   TAP    a public agent's README session on an emulator (index id 71194907441): tapping search_action_bar
//          opens com.google.android.settings.intelligence, whose field is open_search_view_edit_text and
//          whose results are android:id/title rows
//   AW-SRCH another android_world run's log (index id 67130038376): the search activity seen is
//          com.google.android.settings.intelligence/com.google.android.settings.intelligence.modules.search…
//          (cut off after "search.": SearchActivity is assumed)
// No public capture was found of the Pixel-only homepage rows below "Accessibility" (Digital Wellbeing,
// Google, Tips & support): the AOSP list is kept there.
import { html, registerFlavor, world, go } from '../../os.js';
import { homeScreen, displayScreen, searchScreen, screens as aospScreens, dialogs as aospDialogs, activityOf } from '../settings_aosp.js';
import { Page, PrimarySwitchPref, MainSwitchBar } from '../settings_kit.js';

const AVATAR = 'Profile picture, double tap to open Google Account';
const SEARCH_PKG = 'com.google.android.settings.intelligence';
const SEARCH_ACTIVITY = `${SEARCH_PKG}/${SEARCH_PKG}.modules.search.SearchActivity`;

// AW-TR: on Google's build auto-rotate is a PrimarySwitchPreference whose summary reads the state
const rotate = (s) => PrimarySwitchPref({ title: 'Auto-rotate screen', summary: s.auto_rotate ? 'On' : 'Off', checked: !!s.auto_rotate,
  onChange: (v) => { s.auto_rotate = v; }, onClick: () => go('autorotate') });
// the page that row opens (SmartAutoRotatePreferenceFragment; not in AW-TR: its main switch as AOSP words it)
function autorotate() {
  const s = world().settings;
  return Page({ title: 'Auto-rotate screen', body: html`
    ${MainSwitchBar({ label: 'Use Auto-rotate', checked: !!s.auto_rotate, onChange: (v) => { s.auto_rotate = v; } })}
  ` });
}

registerFlavor('google', 'settings', {
  pkg: 'com.android.settings',
  root: { s: 'main', p: {} },
  screens: {
    ...aospScreens,
    main: () => homeScreen({ avatar: AVATAR }),
    display: () => displayScreen({ rotate }),
    autorotate,
    search: () => searchScreen({ field: `${SEARCH_PKG}:id/open_search_view_edit_text`, pkg: SEARCH_PKG, ids: false }),
  },
  dialogs: { ...aospDialogs },
  activity: (r) => activityOf(r, SEARCH_ACTIVITY),
});
