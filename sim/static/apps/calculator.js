// Calculator (com.android.calculator2): a keypad calculator with a formula line, a result
// line, live preview, history, and a small safe expression parser (no eval).
//
// world().calculator_display is what the main display shows: the formula while typing
// ("12×3", "0" when empty), the result after "=" ("36"), or the error text ("Can't divide
// by 0"). The formula itself lives in ui().calc (UI state); when a task patches the display
// from outside, the app adopts the new value as the current input.
//
// Flavor `sim`: C ( ) ÷ / 7 8 9 × / 4 5 6 − / 1 2 3 + / % 0 . = with ⌫ beside the display.
// Flavor `aosp`: AOSP's ExactCalculator as a phone in portrait shows it — LineageOS/
// android_packages_apps_ExactCalculator @ 92dd1417a6af570904e0d8c422f5a961ec693754 (lineage-20.0,
// the AOSP layout; values-w230dp-h475dp-port/layout.xml picks activity_calculator_port,
// display_two_line, pad_operator_one_col, pad_advanced_3x5). See calculator_aosp.js for the cite of
// each screen: the display (toolbar > mode + overflow, formula, result), the pad pager (the
// numeric and operator pads, the advanced pad peeking at the right edge), the framework overflow
// menu, the history fragment, the message dialog.
// Flavor `google`: Google Calculator, in apps/google/calculator.js; it shares the input state and
// evaluation (calculator_core.js: cs, press, preview) and ExactCalculator's behaviour, from which it
// descends (calculator_core.js's stock() branches: radians by default, an error kept for editing,
// dated history).
//
// This module: the `sim` flavor's screens, every flavor's dialogs and the app's registration; the
// engine and input state are calculator_core.js's, ExactCalculator's screens calculator_aosp.js's.
import { html, registerApp, Screen, Row, Empty, Button, A, ui, go, back, flavor, update, toast } from '../os.js';
import { fromDisplay, cs, commit, press, preview, fraction } from './calculator_core.js';
import { xMain, xHistory, xMenu, xMessage } from './calculator_aosp.js';

if (typeof document !== 'undefined' && !document.getElementById('calc-css')) {
  const s = document.createElement('style');
  s.id = 'calc-css';
  s.textContent = `
.calc { position: absolute; inset: 0; display: flex; flex-direction: column; background: var(--bg); }
.calc-top { display: flex; justify-content: flex-end; padding: 4px 4px 0; flex: 0 0 auto; background: var(--surface); }
.calc-display { flex: 1; display: flex; flex-direction: column; justify-content: flex-end; align-items: stretch; padding: 8px 20px 12px; min-height: 0; overflow: hidden; background: var(--surface); border-radius: 0 0 28px 28px; }
.calc-formula { text-align: right; font-size: 44px; line-height: 1.15; overflow-wrap: anywhere; color: var(--on); font-variant-numeric: tabular-nums; }
.calc-result { text-align: right; font-size: 28px; min-height: 36px; color: var(--muted); overflow-wrap: anywhere; font-variant-numeric: tabular-nums; }
.calc.done .calc-formula { font-size: 26px; color: var(--muted); }
.calc.done .calc-result { font-size: 48px; color: var(--on); }
.calc-result.err { color: #b3261e; font-size: 28px !important; }
.calc-delrow { display: flex; justify-content: flex-end; }
.calc-pad { flex: 0 0 auto; padding: 8px 10px 12px; display: grid; grid-template-columns: repeat(4, 1fr); gap: 10px; }
.btn.ck { min-height: 64px; padding: 0; border-radius: 32px; font-size: 26px; font-weight: 400; color: var(--on); background: var(--surface); }
.btn.ck.op { background: var(--primary-c); color: var(--on); font-size: 28px; }
.btn.ck.fn { background: #d3e3fd; color: #041e49; font-size: 22px; }
.dark .btn.ck.fn { background: #3b4a66; color: #d3e3fd; }
.btn.ck.eq { background: var(--primary); color: var(--bg); font-size: 30px; }
.btn.ck.adv { min-height: 40px; font-size: 17px; background: transparent; border-radius: 20px; }
`;
  document.head.appendChild(s);
}
// ------------------------------------------------------------------------------------------
// UI
const K = (label, key, { id, desc, kind = 'ck' } = {}) => Button({ label, id, desc, kind, onClick: () => press(key) });
const digit = (d) => K(d, d, { id: `digit_${d}` });
const MUL_DESC = () => 'multiply';

function display(c) {
  const done = c.res !== null || !!c.err;
  const formula = c.expr || (done ? '' : '0');
  const result = c.err || (c.res !== null ? c.res : preview(c));
  return html`<div class="calc-display" ...${A('android.widget.LinearLayout', { id: 'display' })}>
    <div class="calc-formula" ...${A('android.widget.TextView', { id: 'formula', text: formula })}>${formula}</div>
    <div class=${'calc-result' + (c.err ? ' err' : '')} ...${A('android.widget.TextView', { id: 'result', text: result })}>${result}</div>
    <div class="calc-delrow">${Button({ label: '⌫', id: 'del', desc: 'delete', kind: 'ck adv', onClick: () => press('del') })}</div>
  </div>`;
}

function simPad() {
  return html`<div class="calc-pad" ...${A('android.widget.GridLayout', { id: 'pad_numeric' })}>
    ${K('C', 'clr', { id: 'clr', desc: 'clear', kind: 'ck fn' })}${K('(', '(', { id: 'lparen', desc: 'left parenthesis', kind: 'ck fn' })}
    ${K(')', ')', { id: 'rparen', desc: 'right parenthesis', kind: 'ck fn' })}${K('÷', '÷', { id: 'op_div', desc: 'divide', kind: 'ck op' })}
    ${digit('7')}${digit('8')}${digit('9')}${K('×', '×', { id: 'op_mul', desc: MUL_DESC(), kind: 'ck op' })}
    ${digit('4')}${digit('5')}${digit('6')}${K('−', '−', { id: 'op_sub', desc: 'minus', kind: 'ck op' })}
    ${digit('1')}${digit('2')}${digit('3')}${K('+', '+', { id: 'op_add', desc: 'plus', kind: 'ck op' })}
    ${K('%', '%', { id: 'op_pct', desc: 'percent', kind: 'ck fn' })}${digit('0')}${K('.', '.', { id: 'dec_point', desc: 'point' })}${K('=', '=', { id: 'eq', desc: 'equals', kind: 'ck eq' })}
  </div>`;
}

function main() {
  if (flavor() === 'aosp') return xMain();
  const c = cs();
  const done = c.res !== null || !!c.err;
  return html`<div class=${'calc' + (done ? ' done' : '')} ...${A('android.widget.FrameLayout', { id: 'main_calculator' })}>
    <div class="calc-top">
      <div class="icon-btn" ...${A('android.widget.ImageButton', { id: 'history', desc: 'History', click: true, text: '' })}
        onClick=${() => { if (!window.S2R.gestureLock) update(() => go('history')); }}>🕘</div>
      <div class="icon-btn" ...${A('android.widget.ImageButton', { id: 'more', desc: 'More options', click: true, text: '' })}
        onClick=${() => { if (!window.S2R.gestureLock) update(() => { ui().dialog = { kind: 'menu' }; }); }}>⋮</div>
    </div>
    ${display(c)}
    ${simPad()}
  </div>`;
}

function history() {
  if (flavor() === 'aosp') return xHistory();
  const c = cs();
  const list = c.hist || [];
  return Screen({ title: 'History', actions: list.length ? [{ icon: '🗑', desc: 'Clear history', id: 'clear_history', onClick: () => { cs().hist = []; } }] : [],
    body: list.length ? list.map((h) => Row({ title: h.res, subtitle: h.expr, id: 'history_item',
      onClick: () => { const cc = cs(); cc.expr = fromDisplay(h.res); cc.res = null; cc.err = null; commit(cc); back(); } }))
      : Empty('No history yet') });
}

const dialogs = {
  menu: (d) => {
    if (flavor() !== 'aosp') {
      return html`<div class="scrim" style="align-items:flex-start;justify-content:flex-end;background:transparent"
          onClick=${(e) => { if (e.target === e.currentTarget) update(() => { ui().dialog = null; }); }}>
        <div style="margin:8px 8px 0 0;min-width:180px;background:var(--surface);border-radius:8px;box-shadow:0 4px 14px rgba(0,0,0,.3);padding:6px 0"
          ...${A('android.widget.ListView', { id: 'android:id/list' })}>
          ${Row({ title: 'History', id: 'menu_history', onClick: () => { ui().dialog = null; go('history'); } })}
          ${Row({ title: 'Help', id: 'menu_help', onClick: () => { ui().dialog = null; toast('Type an expression and tap ='); } })}
        </div></div>`;
    }
    // res/menu/fragment_history.xml: menu_clear_history "Clear" → dialog_clear (HistoryFragment.java)
    if (d.where === 'history') return xMenu([['Clear', () => { ui().dialog = { kind: 'message', message: 'Clear history and memory?', ok: 'Clear' }; }]]);
    // res/menu/activity_calculator.xml; menu_leading and menu_fraction only with a result shown
    // (Calculator.java onPrepareOptionsMenu)
    const c = cs();
    const items = [['History', () => go('history')]];
    if (c.res !== null) {
      items.push(['Answer with leading digits', () => { ui().dialog = { kind: 'message', title: 'Answer with leading digits', message: c.res }; }]);
      const f = fraction(c);
      if (f) items.push(['Answer as fraction', () => { ui().dialog = { kind: 'message', title: 'Answer as fraction', message: f }; }]);
    }
    items.push(['Open source licenses', () => toast('Open source licenses')]);
    return xMenu(items);
  },
  message: (d) => xMessage(d),
};

registerApp({
  id: 'calculator', label: 'Calculator', pkg: 'com.android.calculator2', icon: '🧮', color: '#5f6368',
  root: { s: 'main', p: {} },
  screens: { main, history },
  dialogs,
  // aosp: Back first returns from the advanced pad to the numeric one (Calculator.java onBackPressed)
  onBack: (r) => {
    if (flavor() !== 'aosp' || r.s !== 'main' || !ui().calc?.adv) return false;
    ui().calc.adv = false;
    return true;
  },
  activity: () => 'com.android.calculator2/.Calculator',
});
