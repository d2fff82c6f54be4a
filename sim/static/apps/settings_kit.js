// The AOSP Settings component kit: the views com.android.settings and SettingsLib inflate, annotated
// as uiautomator reports them (class by accessibility class name, ids in the app's package unless
// they are framework ids). Used by the `aosp` flavor (settings_aosp.js) and the `google` flavor
// (google/settings.js): Pixel's Settings is the same com.android.settings with Google's overlays.
//
// Evidence (each widget below names its layout):
//   AOSP-SET  aosp-mirror/platform_packages_apps_settings
//             res/layout/settings_homepage_container.xml @ 1ab4e254dcaf97fb1363a63e61cf7c60ab6f5a0e
//             res/layout/settings_homepage_app_bar_regular_phone_layout.xml @ 0fa644da445c7be43ec834d7585f954b4fc6684f
//             res/layout/search_bar.xml @ 352c149d7db98aa6071595a0bac7df406024bad8
//             res/layout/homepage_condition_header.xml @ 3ef480e8957487ba547db5c1f480bfac1a9d356c
//             res/layout/conditional_card_header.xml @ 8d9dadb1a2b4770897a345cf5639b2d23e24d2ab (desc "Show")
//             res/layout/homepage_condition_full_tile.xml @ 08d8ed80b6258e855dea4095f54c9ae02bf60fa7
//   AOSP-SLIB aosp-mirror/platform_frameworks_base packages/SettingsLib:
//             CollapsingToolbarBaseActivity/res/layout-v31/collapsing_toolbar_base_layout.xml @ 2694cd8c42a98431b3e75e3fc461f8c7a7a12fd2
//             MainSwitchPreference/res/layout-v33/settingslib_main_switch_bar.xml @ 015bf100434929f5ee219e5af8bc92223ff6b65a
//             res/layout/preference_two_target.xml @ 401c4b1d00d6f831eb30d1853683ca525d50f192,
//             res/layout/preference_widget_primary_switch.xml @ 1e1351d5f202f004ca1d4a716c15050de3b7638d
//             (PrimarySwitchPreference: the switch `switchWidget`, described by the row's title)
//   AX        androidx preference: a row is LinearLayout > icon_frame(android:id/icon) + RelativeLayout
//             (android:id/title, android:id/summary) + android:id/widget_frame; a SwitchPreference's widget
//             is android:id/switch_widget; a SelectorWithWidgetPreference's (radio) android:id/checkbox
//   AN        tests/fixtures/real-apps/aosp/settings/settings_home_oem_skin_1080x2400.xml (a real homepage):
//             settings_homepage_container and main_content_scrollable_container both scrollable ScrollViews,
//             homepage rows LinearLayout > icon_frame + text_frame, the collapsed condition card
//             (CardView described "Show" > header_icons_container > android:id/icon …, expand_indicator)
//             inside contextual_cards_content > GridView card_container
import { html, A, ui, back, update, pressHandlers, scrollKey, Slider, Field } from '../os.js';

export const LL = 'android.widget.LinearLayout', FL = 'android.widget.FrameLayout', VG = 'android.view.ViewGroup',
  TV = 'android.widget.TextView', IV = 'android.widget.ImageView', IB = 'android.widget.ImageButton',
  RL = 'android.widget.RelativeLayout', SW = 'android.widget.Switch', SV = 'android.widget.ScrollView',
  RV = 'androidx.recyclerview.widget.RecyclerView', BTN = 'android.widget.Button', RB = 'android.widget.RadioButton',
  CARD = 'androidx.cardview.widget.CardView', GRID = 'android.widget.GridView', ET = 'android.widget.EditText';

// styles (layout only; colours come from the phone theme)
if (!document.getElementById('settings-aosp-css')) {
  const el = document.createElement('style');
  el.id = 'settings-aosp-css';
  el.textContent = `
  .ap-home { overflow-y: auto; touch-action: none; scrollbar-width: none; }
  .ap-home-bar { padding: 8px 0 4px; }
  .ap-avatar { width: 40px; height: 40px; border-radius: 20px; background: var(--primary-c); margin: 6px 16px 0 auto; display: flex; align-items: center; justify-content: center; }
  .ap-home-title { font-size: calc(36px * var(--fs)); padding: 28px 24px 20px; }
  .ap-search { margin: 4px 16px 12px; border-radius: 28px; background: var(--surface); }
  .ap-search-bar { display: flex; align-items: center; height: 52px; padding: 0 8px; gap: 8px; }
  .ap-search-bar .tv { color: var(--muted); }
  .ap-hrow { display: flex; align-items: center; min-height: 76px; padding: 8px 16px; gap: 16px; }
  .ap-hicon { width: 40px; height: 40px; border-radius: 20px; background: var(--primary-c); display: flex; align-items: center; justify-content: center; font-size: 18px; flex: 0 0 40px; }
  .ap-cards { margin: 0 12px; }
  .ap-card { background: var(--surface); border-radius: 20px; margin: 6px 0; }
  .ap-cond-head { display: flex; align-items: center; padding: 14px 16px; gap: 12px; }
  .ap-cond-icons { flex: 1; display: flex; gap: 14px; font-size: 18px; }
  .ap-cond-full { display: flex; align-items: center; padding: 12px 16px; gap: 12px; min-height: 72px; }
  .ap-page { position: absolute; inset: 0; display: flex; flex-direction: column; }
  .ap-appbar { flex: 0 0 auto; background: var(--bg); }
  .ap-toolbar { height: 56px; display: flex; align-items: center; padding: 0 4px; }
  .ap-bigtitle { font-size: calc(30px * var(--fs)); padding: 16px 24px 20px; }
  .ap-list { flex: 1; overflow-y: auto; touch-action: none; scrollbar-width: none; padding-bottom: 48px; }
  .ap-cat { padding: 18px 24px 6px; font-size: 14px; color: var(--primary); font-weight: 500; }
  .ap-pref { padding-left: 24px; }
  .ap-wf { display: flex; align-items: center; }
  .ap-div { width: 1px; height: 32px; background: var(--line); }
  .ap-mainbar { margin: 8px 16px; border-radius: 28px; background: var(--primary-c); display: flex; align-items: center; min-height: 72px; padding: 0 20px; }
  .ap-mainbar .tv { flex: 1; font-size: calc(18px * var(--fs)); }
  .ap-radio { width: 20px; height: 20px; border-radius: 10px; border: 2px solid var(--muted); flex: 0 0 20px; }
  .ap-radio.on { border: 6px solid var(--primary); }
  .ap-slider-row { padding: 8px 24px 8px 24px; }
  .ap-step { display: flex; align-items: center; gap: 4px; }
  .ap-btn { padding: 10px 20px; border-radius: 20px; background: var(--primary); color: var(--bg); display: inline-block; margin: 12px 24px; }
  .ap-footer { padding: 16px 24px; color: var(--muted); font-size: 14px; }
  .ap-preview { margin: 12px 24px; padding: 16px; border-radius: 16px; background: var(--surface); }
  `;
  document.head.appendChild(el);
}

/**
 * Click handlers for this app's controls. Why the stopPropagation: a tap that navigates re-renders
 * synchronously, and Preact may reuse the DOM nodes on the click's bubbling path for the next
 * screen's controls (an ancestor of the tapped row becoming the new page's "Navigate up"), which
 * would then receive the same click.
 */
export const tap = (fn) => pressHandlers((e) => { if (e && e.stopPropagation) e.stopPropagation(); fn(e); });

const T = (text, id, cls = '') => html`<span class=${'tv ' + cls} ...${A(TV, { id, text })}>${text}</span>`;
const icon = (glyph, id = 'android:id/icon') => html`<span class="row-icon" ...${A(IV, { id, text: '' })}>${glyph}</span>`;

/**
 * A SettingsLib sub-page (SubSettings): CollapsingToolbarBaseActivity's content_parent > app_bar >
 * collapsing_toolbar (the title is drawn by the toolbar layout, so it is only the view's description)
 * > action_bar (Toolbar with the "Navigate up" button); content_frame > main_content >
 * container_material > android:id/list_container > recycler_view (the preference list).
 */
export function Page({ title, body }) {
  const key = scrollKey();
  return html`<div class="ap-page" ...${A(VG, { id: 'content_parent' })}>
    <div class="ap-appbar" ...${A(LL, { id: 'app_bar' })}>
      <div ...${A(FL, { id: 'collapsing_toolbar', desc: title, text: '' })}>
        <div class="ap-toolbar" ...${A(VG, { id: 'action_bar' })}>
          <div class="icon-btn" ...${A(IB, { desc: 'Navigate up', click: true, text: '' })} ...${tap(() => back())}>←</div>
        </div>
        <div class="ap-bigtitle">${title}</div>
      </div>
    </div>
    <div style="flex:1;display:flex;min-height:0" ...${A(FL, { id: 'content_frame' })}>
      <div style="flex:1;display:flex;min-height:0" ...${A(FL, { id: 'main_content' })}>
        <div style="flex:1;display:flex;min-height:0" ...${A(LL, { id: 'container_material' })}>
          <div style="flex:1;display:flex;min-height:0" ...${A(FL, { id: 'android:id/list_container' })}>
            <div class="ap-list" data-scroll-key=${key} ...${A(RV, { id: 'recycler_view', scroll: true })}>${body}</div>
          </div>
        </div>
      </div>
    </div>
  </div>`;
}

/** PreferenceCategory (preference_category_material_settings): its title is an android:id/title. */
export function Category(title) {
  return html`<div class="ap-cat" ...${A(LL, {})}>${T(title, 'android:id/title')}</div>`;
}

/** A Preference row (AX): clickable LinearLayout > icon_frame > android:id/icon, RelativeLayout > title, summary, widget_frame. */
export function Pref({ title, summary, glyph, onClick, widget, divider }) {
  return html`<div class="row ap-pref" ...${A(LL, { click: !!onClick })} ...${onClick ? tap(onClick) : {}}>
    ${glyph ? html`<div ...${A(LL, { id: 'icon_frame' })}>${icon(glyph)}</div>` : null}
    <div class="row-text" ...${A(RL, {})}>
      <div class="row-title" ...${A(TV, { id: 'android:id/title', text: title })}>${title}</div>
      ${summary ? html`<div class="row-sub" ...${A(TV, { id: 'android:id/summary', text: summary })}>${summary}</div>` : null}
    </div>
    ${divider ? html`<div class="ap-wf" ...${A(LL, { id: 'two_target_divider' })}><span class="ap-div"></span></div>` : null}
    ${widget ? html`<div class="ap-wf" ...${A(LL, { id: 'android:id/widget_frame' })}>${widget}</div>` : null}
  </div>`;
}

const switchView = (checked, o = {}) => html`<div class=${'switch' + (checked ? ' on' : '')}
    ...${A(SW, { id: o.id || 'android:id/switch_widget', desc: o.desc, click: !!o.onToggle, checkable: true, checked, text: '' })}
    ...${o.onToggle ? tap(() => o.onToggle(!checked)) : {}}><div class="knob"></div></div>`;

/** SwitchPreference: the whole row toggles; its switch (android:id/switch_widget) is not clickable itself. */
export function SwitchPref({ title, summary, checked, onChange, glyph }) {
  return Pref({ title, summary, glyph, onClick: () => onChange(!checked), widget: switchView(checked) });
}

/** PrimarySwitchPreference (SettingsLib TwoTargetPreference): the row opens a page, the switch (switchWidget,
 *  described by the title, clickable) toggles. */
export function PrimarySwitchPref({ title, summary, checked, onChange, onClick, glyph }) {
  return Pref({ title, summary, glyph, onClick, divider: true,
    widget: switchView(checked, { id: 'switchWidget', desc: title, onToggle: onChange }) });
}

/** MainSwitchPreference (AOSP-SLIB settingslib_main_switch_bar): the bar is clickable, its switch is not. */
export function MainSwitchBar({ label, checked, onChange }) {
  return html`<div ...${A(LL, {})}>
    <div ...${A(LL, { id: 'settingslib_main_switch_bar', click: true })} ...${tap(() => onChange(!checked))}>
      <div ...${A(LL, {})}>
        <div class="ap-mainbar" ...${A(LL, { id: 'frame' })}>
          ${T(label, 'switch_text')}
          ${switchView(checked)}
        </div>
      </div>
    </div>
  </div>`;
}

/** SelectorWithWidgetPreference (a radio row): widget_frame > RadioButton (android:id/checkbox) + title. */
export function RadioPref({ title, summary, checked, onSelect }) {
  return html`<div class="row ap-pref" ...${A(LL, { click: true })} ...${tap(onSelect)}>
    <div class="ap-wf" ...${A(LL, { id: 'android:id/widget_frame' })}>
      <span class=${'ap-radio' + (checked ? ' on' : '')} ...${A(RB, { id: 'android:id/checkbox', checkable: true, checked, text: '' })}></span>
    </div>
    <div class="row-text" ...${A(LL, {})}>
      <div class="row-title" ...${A(TV, { id: 'android:id/title', text: title })}>${title}</div>
      ${summary ? html`<div class="row-sub" ...${A(TV, { id: 'android:id/summary', text: summary })}>${summary}</div>` : null}
    </div>
  </div>`;
}

/** VolumeSeekBarPreference (preference_volume_slider): icon, title and the SeekBar described by the title. */
export function VolumePref({ title, glyph, value, max, onChange }) {
  return html`<div class="ap-slider-row" ...${A(LL, {})}>
    <div style="display:flex;align-items:center;gap:16px">${glyph ? html`<div ...${A(LL, { id: 'icon_frame' })}>${icon(glyph)}</div>` : null}
      <div style="flex:1" ...${A(LL, {})}>${T(title, 'android:id/title', 'row-title')}
        ${Slider({ value, min: 0, max, id: 'android:id/seekbar', desc: title, onChange })}</div></div>
  </div>`;
}

/** A footer (SettingsLib FooterPreference): its text is an android:id/title. */
export function Footer(text) {
  return html`<div class="ap-footer" ...${A(LL, {})}>${T(text, 'android:id/title')}</div>`;
}

/**
 * The framework AlertDialog (alert_dialog_material.xml): parentPanel > topPanel > alertTitle,
 * customPanel > the body, buttonPanel > button2 (negative, left) and button1 (positive, right).
 */
export function AlertDialog({ title, body, positive, negative, onPositive, onNegative }) {
  const close = () => { ui().dialog = null; ui().focus = null; ui().keyboard = false; };
  const btn = (id, label, fn) => html`<div class="btn text" ...${A(BTN, { id, text: label, click: true })}
      ...${tap(() => { (fn || close)(); })}>${label}</div>`;
  return html`<div class="scrim" onClick=${(e) => { if (e.target === e.currentTarget) update(close); }}>
    <div class="dialog" ...${A(LL, { id: 'android:id/parentPanel' })}>
      <div ...${A(LL, { id: 'android:id/topPanel' })}>
        <div class="dialog-title" ...${A(TV, { id: 'android:id/alertTitle', text: title })}>${title}</div></div>
      <div class="dialog-body" ...${A(FL, { id: 'android:id/customPanel' })}>${body}</div>
      <div class="dialog-buttons" ...${A(LL, { id: 'android:id/buttonPanel' })}>
        ${negative ? btn('android:id/button2', negative, onNegative) : null}${positive ? btn('android:id/button1', positive, onPositive) : null}
      </div>
    </div></div>`;
}

/** An EditText inside a preference dialog (androidx EditTextPreferenceDialogFragmentCompat: android:id/edit). */
export const DialogEdit = (field) => Field({ field, id: 'android:id/edit' });

export { T, icon, switchView };
