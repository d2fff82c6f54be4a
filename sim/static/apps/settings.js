// Settings: network, Bluetooth, display, sound & DND, location, about phone.
// This module is the `sim` flavor (our own structure: Wi‑Fi, Bluetooth and Airplane mode on the
// homepage, "Dark mode", a Font size radio list, a Ring mode radio list). The `aosp` flavor — AOSP
// Settings of Android 14 as its sources define it — is settings_aosp.js (widgets in settings_kit.js);
// the `google` flavor (a Pixel's Settings) is google/settings.js. Both register over this app.
import { html, registerApp, Screen, Row, SwitchRow, Section, Slider, Dialog, Radio, Field, Empty,
  world, ui, go, setSetting, toast } from '../os.js';
import './settings_aosp.js';

export const FONT_SCALES = [[0.85, 'Small'], [1.0, 'Default'], [1.15, 'Large'], [1.3, 'Largest']];
export const TIMEOUTS = [[15000, '15 seconds'], [30000, '30 seconds'], [60000, '1 minute'], [120000, '2 minutes'],
  [300000, '5 minutes'], [600000, '10 minutes'], [1800000, '30 minutes']];
const NETWORKS = ['HomeNet-5G', 'CoffeeShop', 'Office-Guest', 'Neighbor_2.4'];
const PAIRED = ['Pixel Buds Pro', 'Car audio', 'JBL Flip 5'];

const S = () => world().settings;
const onoff = (v) => (v ? 'On' : 'Off');
const fontLabel = (v) => (FONT_SCALES.find(([x]) => Math.abs(x - v) < 0.01) || [v, `${v}×`])[1];
const timeoutLabel = (v) => (TIMEOUTS.find(([x]) => x === v) || [v, `${Math.round(v / 1000)} seconds`])[1];
const pct = (b) => `${Math.round((b / 255) * 100)}%`;

function main() {
  const s = S();
  return Screen({ title: 'Settings', up: false, actions: [{ icon: '🔍', desc: 'Search', id: 'search', onClick: () => go('search') }], body: html`
    ${Row({ icon: '📶', title: 'Wi‑Fi', subtitle: s.wifi ? 'On' : 'Off', onClick: () => go('wifi'), id: 'wifi_settings' })}
    ${Row({ icon: '✻', title: 'Bluetooth', subtitle: s.bluetooth ? 'On' : 'Off', onClick: () => go('bluetooth'), id: 'bluetooth_settings' })}
    ${SwitchRow({ title: 'Airplane mode', checked: s.airplane_mode, onChange: (v) => setSetting('airplane_mode', v), id: 'airplane_mode' })}
    ${Row({ icon: '☀', title: 'Display', subtitle: 'Brightness, dark mode, font size', onClick: () => go('display'), id: 'display_settings' })}
    ${Row({ icon: '🔊', title: 'Sound', subtitle: s.do_not_disturb ? 'Do not disturb is on' : 'Volume, do not disturb', onClick: () => go('sound'), id: 'sound_settings' })}
    ${Row({ icon: '📍', title: 'Location', subtitle: s.location ? 'On' : 'Off', onClick: () => go('location'), id: 'location_settings' })}
    ${Row({ icon: '🔋', title: 'Battery', subtitle: `${window.S2R.state.sys.battery}%`, onClick: () => go('battery'), id: 'battery_settings' })}
    ${Row({ icon: 'ℹ', title: 'About phone', subtitle: world().device.model, onClick: () => go('about'), id: 'about_settings' })}
  ` });
}

function mobile() {
  const s = S();
  return Screen({ title: 'Mobile network', body: html`
    ${SwitchRow({ title: 'Mobile data', subtitle: 'Access data using mobile network', checked: !!s.mobile_data, onChange: (v) => { s.mobile_data = v; }, id: 'mobile_data' })}
    ${Row({ title: 'Roaming', subtitle: 'Off' })}
  ` });
}

function wifi() {
  const s = S();
  const on = !!s.wifi && !s.airplane_mode;
  return Screen({ title: 'Wi‑Fi', body: html`
    ${SwitchRow({ title: 'Use Wi‑Fi', checked: !!s.wifi, onChange: (v) => setSetting('wifi', v), id: 'wifi_switch' })}
    ${on ? html`${Section('Available networks')}${NETWORKS.map((n, i) => Row({ icon: '📶', title: n, subtitle: i === 0 ? 'Connected' : 'Saved', onClick: () => toast(n) }))}`
      : Empty('Turn on Wi‑Fi to see available networks')}
  ` });
}

function bluetooth() {
  const s = S();
  return Screen({ title: 'Bluetooth', body: html`
    ${SwitchRow({ title: 'Use Bluetooth', checked: !!s.bluetooth, onChange: (v) => setSetting('bluetooth', v), id: 'bluetooth_switch' })}
    ${Row({ title: 'Device name', subtitle: s.device_name || world().device.model, onClick: () => { ui().fields.devname = s.device_name || ''; ui().dialog = { kind: 'devname' }; } })}
    ${s.bluetooth ? html`${Section('Previously connected devices')}${PAIRED.map((n) => Row({ icon: '🎧', title: n, subtitle: 'Paired', onClick: () => toast(`Connecting to ${n}`) }))}` : null}
  ` });
}

function display() {
  const s = S();
  const body = html`
    ${Section('Brightness')}
    ${Row({ title: 'Brightness level', subtitle: pct(s.brightness), onClick: () => go('brightness'), id: 'brightness' })}
    ${SwitchRow({ title: 'Adaptive brightness', checked: !!s.adaptive_brightness, onChange: (v) => { s.adaptive_brightness = v; }, id: 'auto_brightness' })}
    ${Section('Appearance')}
    ${SwitchRow({ title: 'Dark mode', checked: !!s.dark_mode, onChange: (v) => { s.dark_mode = v; }, id: 'dark_ui_mode' })}
    ${Row({ title: 'Screen timeout', subtitle: `After ${timeoutLabel(s.screen_off_timeout_ms)}`, onClick: () => { ui().dialog = { kind: 'timeout' }; }, id: 'screen_timeout' })}
    ${Row({ title: 'Font size', subtitle: fontLabel(s.font_scale), onClick: () => go('fontsize'), id: 'font_size' })}
    ${SwitchRow({ title: 'Auto-rotate screen', checked: !!s.auto_rotate, onChange: (v) => { s.auto_rotate = v; }, id: 'auto_rotate' })}
  `;
  return Screen({ title: 'Display', body });
}

function brightness() {
  const s = S();
  return Screen({ title: 'Brightness level', body: html`
    <div class="big mono" data-cls="android.widget.TextView" data-rid="com.android.settings:id/brightness_value" data-text=${pct(s.brightness)}>${pct(s.brightness)}</div>
    <div style="display:flex;align-items:center;padding:8px 0">☀${Slider({ value: s.brightness, min: 0, max: 255, id: 'seekbar', desc: 'Brightness level', onChange: (v) => { s.brightness = v; } })}</div>
    ${SwitchRow({ title: 'Adaptive brightness', checked: !!s.adaptive_brightness, onChange: (v) => { s.adaptive_brightness = v; }, id: 'auto_brightness' })}
  ` });
}

function fontsize() {
  const s = S();
  return Screen({ title: 'Font size', body: html`
    ${Section('Font size')}
    <div class="card" style="padding:12px 16px"><span data-cls="android.widget.TextView" data-rid="com.android.settings:id/preview_text" data-text="Preview">Preview: the quick brown fox</span></div>
    ${FONT_SCALES.map(([v, label]) => Radio({ label, checked: Math.abs(s.font_scale - v) < 0.01, onSelect: () => { s.font_scale = v; }, id: `font_${label.toLowerCase()}` }))}
  ` });
}

function sound() {
  const s = S();
  return Screen({ title: 'Sound', body: html`
    ${Row({ title: 'Media volume', subtitle: `${s.media_volume ?? 0} / 25`, id: 'media_volume' })}
    <div style="display:flex;align-items:center">🔈${Slider({ value: s.media_volume ?? 0, min: 0, max: 25, id: 'media_volume_seekbar', desc: 'Media volume', onChange: (v) => { s.media_volume = v; } })}</div>
    ${SwitchRow({ title: 'Do not disturb', checked: !!s.do_not_disturb, onChange: (v) => { s.do_not_disturb = v; }, id: 'zen_mode' })}
    ${Section('Ring mode')}
    ${['normal', 'vibrate', 'silent'].map((m) => Radio({ label: { normal: 'Ring', vibrate: 'Vibrate', silent: 'Mute' }[m], checked: s.ringer_mode === m, onSelect: () => { s.ringer_mode = m; }, id: `ring_${m}` }))}
  ` });
}

function location() {
  const s = S();
  return Screen({ title: 'Location', body: html`
    ${SwitchRow({ title: 'Use location', checked: !!s.location, onChange: (v) => { s.location = v; }, id: 'location_switch' })}
    ${Section('Recent access')}
    ${s.location ? html`${Row({ icon: '🗺', title: 'Maps', subtitle: '2 min ago' })}${Row({ icon: '☁', title: 'Weather', subtitle: '1 hr ago' })}` : Empty('Location is off')}
  ` });
}

function battery() {
  return Screen({ title: 'Battery', body: html`
    <div class="big mono" data-cls="android.widget.TextView" data-rid="com.android.settings:id/battery_percent" data-text=${`${window.S2R.state.sys.battery}%`}>${window.S2R.state.sys.battery}%</div>
    ${Row({ title: 'Battery Saver', subtitle: 'Off' })}
    ${Row({ title: 'Battery usage', subtitle: 'View usage for past 24 hours' })}
  ` });
}

function about() {
  const d = world().device, s = S();
  return Screen({ title: 'About phone', body: html`
    ${Row({ title: 'Device name', subtitle: s.device_name || d.model, id: 'device_name', onClick: () => { ui().fields.devname = s.device_name || d.model || ''; ui().dialog = { kind: 'devname' }; } })}
    ${Row({ title: 'Model', subtitle: d.model, id: 'device_model' })}
    ${Row({ title: 'Manufacturer', subtitle: d.manufacturer, id: 'manufacturer' })}
    ${Row({ title: 'Android version', subtitle: d.android_version, id: 'firmware_version' })}
    ${Row({ title: 'Build number', subtitle: d.build, id: 'build_number' })}
  ` });
}

const ENTRIES = () => [
  ['Wi‑Fi', 'wifi'], ['Internet', 'wifi'], ['Bluetooth', 'bluetooth'], ['Display', 'display'], ['Brightness level', 'brightness'],
  ['Dark theme', 'display'], ['Dark mode', 'display'], ['Font size', 'fontsize'], ['Screen timeout', 'display'],
  ['Auto-rotate screen', 'display'], ['Sound', 'sound'], ['Do Not Disturb', 'sound'],
  ['Location', 'location'], ['About phone', 'about'], ['Android version', 'about'], ['Model', 'about'],
  ['Battery', 'battery'], ['Mobile data', 'mobile'], ['Airplane mode', 'main'],
];
function search() {
  const q = (ui().fields.settings_search || '').trim().toLowerCase();
  const hits = q ? ENTRIES().filter(([label]) => label.toLowerCase().includes(q)) : [];
  return Screen({ title: 'Search', search: html`<div style="flex:1">${Field({ field: 'settings_search', hint: 'Search settings', id: 'search_src_text' })}</div>`, body: html`
    ${q && !hits.length ? Empty('No results') : hits.map(([label, screen]) => Row({ title: label, subtitle: 'Settings', onClick: () => go(screen) }))}
  ` });
}

const dialogs = {
  timeout: () => Dialog({ title: 'Screen timeout', body: TIMEOUTS.map(([v, label]) => Radio({ label, checked: S().screen_off_timeout_ms === v,
    onSelect: () => { S().screen_off_timeout_ms = v; ui().dialog = null; }, id: `timeout_${v}` })), buttons: [{ label: 'Cancel', onClick: () => { ui().dialog = null; } }] }),
  devname: () => Dialog({ title: 'Device name', body: Field({ field: 'devname', hint: 'Device name', id: 'edittext' }), buttons: [
    { label: 'Cancel', onClick: () => { ui().dialog = null; ui().focus = null; ui().keyboard = false; } },
    { label: 'Rename', onClick: () => { const v = (ui().fields.devname || '').trim(); if (v) S().device_name = v; ui().dialog = null; ui().focus = null; ui().keyboard = false; } }] }),
};

registerApp({
  id: 'settings', label: 'Settings', pkg: 'com.android.settings', icon: '⚙', color: '#5f6368',
  root: { s: 'main', p: {} },
  screens: { main, mobile, wifi, bluetooth, display, brightness, fontsize, sound, location, battery, about, search },
  dialogs,
  activity: (r) => (r.s === 'main' ? 'com.android.settings/.Settings' : `com.android.settings/.SubSettings`),
});
