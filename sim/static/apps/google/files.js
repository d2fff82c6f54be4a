// Files on a Pixel (the `google` flavor): DocumentsUI as Google builds it, package
// com.google.android.documentsui, launched as com.android.documentsui.files.FilesActivity.
//
// Evidence: the Pixel's DocumentsUI is AOSP's (packages/apps/DocumentsUI) under Google's package; its
// resource ids are AOSP's — public test code drives com.google.android.documentsui by `item_root`,
// `icon_thumb`, `sub_menu_list` / `sub_menu_grid`, `option_menu_create_dir`, `action_menu_done`
// (tests/fixtures/real-apps/EVIDENCE.md, Files; repositories not pinned). So the screens are the base
// app's aosp ones (apps/files_aosp.js, each citing LineageOS/android_packages_apps_DocumentsUI
// @ a2c1dd717347fc6dae14de4e5ae0b1651eb5ed78), drawn for every stock flavor; this module only swaps the
// package, which every bare id the screens emit takes (os.js A() prefixes the app's package). On a Pixel
// the app has no launcher icon of its own (Files by Google is the one people tap); the virtual phone's
// `hidden_launcher` knob models that — the sim's launcher still lists it so every app stays reachable.
import { registerFlavor } from '../../os.js';
import { activityOf } from '../files.js';

const PKG = 'com.google.android.documentsui';

registerFlavor('google', 'files', {
  pkg: PKG,
  activity: (r) => activityOf(PKG, r),
});
