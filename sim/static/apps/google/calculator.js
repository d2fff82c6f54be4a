// Google Calculator (com.google.android.calculator, activity com.android.calculator2.Calculator) as a
// Pixel on Android 14 ships it: the `google` flavor of the Calculator.
//
// No real dump of Google Calculator is pinned (tests/fixtures/real-apps/EVIDENCE.md, Gaps); the screen
// follows public test code written against the app, and AOSP's ExactCalculator (from which it descends)
// where that says nothing:
//   GC-EM  EugeneMac/CalculatorTestsAppium src/Selectors.java, src/Calculator.java, src/UITests.java
//          @ 0672937d9c6b15ac348e68b86c578c4ed4d7c0f7: keys are ImageButtons described by their face —
//          digits "0".."9", "plus", "minus", "multiply", "divide", one parentheses key "left or right
//          parenthesis"; the live preview is the TextView `result_preview` ("56088" for 123×456 before =,
//          no digit grouping, "−198" with the minus sign); the overflow is an ImageView "More options"
//          whose menu items are TextViews `title` ("Help").
//   GC-DV  Denorivan/AndroidTetsFirst src/test/java/CalcTest.java @ 59a55c16cc7a3cd61ee41a4dc1104f2e19d731bd:
//          digit_9, op_add, digit_3, eq, then `result_final` reads "12" — the answer after = is result_final.
//   GC-SJ  SanthoshJeeva440/robotframework_appium page_object/android_page_object/po_calc_android.robot
//          @ 97646a3feda620b51c04ae1eb0d59d77af60db32: clr, parens, op_add, op_sub, digit_0..9, eq, and the
//          always-shown scientific keys op_sqrt, op_pow.
//   GC-SON sashipuhan4545/SonimSMAT New_SanityLocators.java @ 37f8fcfdf93e830355fe78751d9f333e30e86dc3:
//          op_sub, op_mul, op_div, del, clr.
//   unpinned public test files (repositories not pinned; EVIDENCE.md "verified: no"): `formula` (an
//          EditText in the builds with ImageButton keys), `op_pct`, `dec_point`, `const_pi`, `op_fact`,
//          `collapse_expand` (then fun_sin / fun_cos / fun_ln / fun_log, toggle_mode, toggle_inv),
//          `main_calculator`, descriptions "point", "clear", "delete", "equals", and the scientific toggle
//          described "Show scientific buttons" / "Hide scientific buttons".
// Layout (portrait): the display (overflow, formula, then result_preview while typing or result_final
// after =); the scientific row √ π ^ ! with the expand arrow, which opens two more rows (RAD/DEG sin cos
// tan, INV e ln log); the pad AC ( ) % ÷ / 7 8 9 × / 4 5 6 − / 1 2 3 + / 0 . ⌫ =.
// The pads' containers carry no id (none is known for Google's build). From ExactCalculator, for lack of
// Google evidence: `display`, the History screen (fragment_history.xml,
// shared with the aosp flavor: calculator_aosp.js xHistory), the error texts, radians by default.
import { html, registerFlavor, A, ui, go, update, toast, pressHandlers } from '../../os.js';
import { cs, press, preview } from '../calculator_core.js';
import { xHistory } from '../calculator_aosp.js';

const PKG = 'com.google.android.calculator';

if (typeof document !== 'undefined' && !document.getElementById('gcalc-css')) {
  const s = document.createElement('style');
  s.id = 'gcalc-css';
  s.textContent = `
.gc { position: absolute; inset: 0; display: flex; flex-direction: column; background: var(--bg); }
.gc-display { flex: 1; min-height: 0; display: flex; flex-direction: column; padding: 0 20px 8px; overflow: hidden; }
.gc-top { display: flex; justify-content: flex-end; padding: 4px 0 0; flex: 0 0 auto; margin-right: -12px; }
.gc-lines { flex: 1; min-height: 0; display: flex; flex-direction: column; justify-content: flex-end; align-items: stretch; }
.gc-formula { text-align: right; font-size: 52px; line-height: 1.15; color: var(--on); overflow-wrap: anywhere; font-variant-numeric: tabular-nums; min-height: 60px; }
.gc-preview { text-align: right; font-size: 30px; min-height: 40px; color: var(--muted); overflow-wrap: anywhere; font-variant-numeric: tabular-nums; }
.gc.done .gc-formula { font-size: 30px; min-height: 36px; color: var(--muted); }
.gc.done .gc-preview { font-size: 56px; min-height: 64px; color: var(--on); }
.gc-preview.err { color: #b3261e; font-size: 30px !important; }
.gc-sci { flex: 0 0 auto; display: grid; grid-template-columns: repeat(5, 1fr); gap: 4px 8px; padding: 4px 14px 8px; }
.gc-pad { flex: 0 0 auto; display: grid; grid-template-columns: repeat(4, 1fr); gap: 10px; padding: 4px 14px 14px; }
.gk { display: flex; align-items: center; justify-content: center; border-radius: 40px; min-height: 68px; font-size: 30px; color: var(--on); background: var(--surface); font-variant-numeric: tabular-nums; }
.gk.op { background: var(--primary-c); }
.gk.fn { background: #c4eed0; color: #072711; }
.dark .gk.fn { background: #1e4d2b; color: #c4eed0; }
.gk.eq { background: var(--primary); color: var(--bg); }
.gk.sci { min-height: 40px; font-size: 18px; background: transparent; border-radius: 20px; }
.gk.sci[data-selected="1"] { background: var(--primary-c); }
.gc-menu { margin: 8px 8px 0 0; min-width: 200px; background: var(--surface); border-radius: 4px; box-shadow: 0 4px 14px rgba(0,0,0,.3); padding: 8px 0; }
`;
  document.head.appendChild(s);
}

/** A key: an ImageButton described by its face (GC-EM); the face is drawn, not exposed as text. */
function key({ id, desc, face, k, cls = '', onClick, selected }) {
  return html`<div class=${'gk ' + cls} ...${A('android.widget.ImageButton', { id, desc, click: true, text: '', selected })}
    ...${pressHandlers(onClick || (() => press(k)))}>${face}</div>`;
}
const digit = (d) => key({ id: `digit_${d}`, desc: d, face: d, k: d });

function display(c) {
  const done = c.res !== null || !!c.err;
  // while typing the preview line is result_preview (GC-EM); after = the answer is result_final (GC-DV);
  // an error is the final line too (ExactCalculator shows it in place of the result)
  const text = c.err || (c.res !== null ? c.res : preview(c));
  return html`<div class="gc-display" ...${A('android.view.ViewGroup', { id: 'display' })}>
    <div class="gc-top">
      <div class="icon-btn" ...${A('android.widget.ImageView', { desc: 'More options', click: true, text: '' })}
        ...${pressHandlers(() => { ui().dialog = { kind: 'menu' }; })}>⋮</div>
    </div>
    <div class="gc-lines">
      <div class="gc-formula" ...${A('android.widget.EditText', { id: 'formula', text: c.expr, long: true })}>${c.expr}</div>
      <div class=${'gc-preview' + (c.err ? ' err' : '')}
        ...${A('android.widget.TextView', { id: done ? 'result_final' : 'result_preview', text })}>${text}</div>
    </div>
  </div>`;
}

function scientific(c) {
  const open = !!c.adv;  // the expanded panel: ui().calc.adv, as the aosp flavor's advanced pad
  const inv = !!c.inv;
  const k = (o) => key({ cls: 'sci', ...o });
  const pair = (plain, inverse) => k(inv ? inverse : plain);
  const row0 = html`
    ${k({ id: 'op_sqrt', desc: 'square root', face: '√', k: '√' })}
    ${k({ id: 'const_pi', desc: 'pi', face: 'π', k: 'π' })}
    ${k({ id: 'op_pow', desc: 'power', face: '^', k: '^' })}
    ${k({ id: 'op_fact', desc: 'factorial', face: '!', k: '!' })}
    ${k({ id: 'collapse_expand', desc: open ? 'Hide scientific buttons' : 'Show scientific buttons', face: open ? '⌃' : '⌄',
      onClick: () => { cs().adv = !cs().adv; } })}`;
  const more = open ? html`
    ${k({ id: 'toggle_mode', desc: c.rad ? 'switch to degrees' : 'switch to radians', face: c.rad ? 'DEG' : 'RAD',
      onClick: () => { cs().rad = !cs().rad; } })}
    ${pair({ id: 'fun_sin', desc: 'sine', face: 'sin', k: 'sin(' }, { id: 'fun_arcsin', desc: 'inverse sine', face: 'sin⁻¹', k: 'sin⁻¹(' })}
    ${pair({ id: 'fun_cos', desc: 'cosine', face: 'cos', k: 'cos(' }, { id: 'fun_arccos', desc: 'inverse cosine', face: 'cos⁻¹', k: 'cos⁻¹(' })}
    ${pair({ id: 'fun_tan', desc: 'tangent', face: 'tan', k: 'tan(' }, { id: 'fun_arctan', desc: 'inverse tangent', face: 'tan⁻¹', k: 'tan⁻¹(' })}
    <div></div>
    ${k({ id: 'toggle_inv', desc: inv ? 'hide inverse functions' : 'show inverse functions', face: 'INV', selected: inv,
      onClick: () => { cs().inv = !cs().inv; } })}
    ${k({ id: 'const_e', desc: "Euler's number", face: 'e', k: 'e' })}
    ${pair({ id: 'fun_ln', desc: 'natural logarithm', face: 'ln', k: 'ln(' }, { id: 'fun_exp', desc: 'exponential function', face: 'eˣ', k: 'exp(' })}
    ${pair({ id: 'fun_log', desc: 'logarithm', face: 'log', k: 'log(' }, { id: 'fun_10pow', desc: 'ten to the power of', face: '10ˣ',
      onClick: () => { press('1'); press('0'); press('^'); } })}` : null;
  return html`<div class="gc-sci" ...${A('android.view.ViewGroup')}>${row0}${more}</div>`;
}

function pad() {
  return html`<div class="gc-pad" ...${A('android.view.ViewGroup')}>
    ${key({ id: 'clr', desc: 'clear', face: 'AC', k: 'clr', cls: 'fn' })}
    ${key({ id: 'parens', desc: 'left or right parenthesis', face: '( )', k: '()', cls: 'op' })}
    ${key({ id: 'op_pct', desc: 'percent', face: '%', k: '%', cls: 'op' })}
    ${key({ id: 'op_div', desc: 'divide', face: '÷', k: '÷', cls: 'op' })}
    ${digit('7')}${digit('8')}${digit('9')}${key({ id: 'op_mul', desc: 'multiply', face: '×', k: '×', cls: 'op' })}
    ${digit('4')}${digit('5')}${digit('6')}${key({ id: 'op_sub', desc: 'minus', face: '−', k: '−', cls: 'op' })}
    ${digit('1')}${digit('2')}${digit('3')}${key({ id: 'op_add', desc: 'plus', face: '+', k: '+', cls: 'op' })}
    ${digit('0')}${key({ id: 'dec_point', desc: 'point', face: '.', k: '.' })}
    ${key({ id: 'del', desc: 'delete', face: '⌫', k: 'del' })}
    ${key({ id: 'eq', desc: 'equals', face: '=', k: '=', cls: 'eq' })}
  </div>`;
}

function main() {
  const c = cs();
  const done = c.res !== null || !!c.err;
  return html`<div class=${'gc' + (done ? ' done' : '')} ...${A('android.widget.LinearLayout', { id: 'main_calculator' })}>
    ${display(c)}
    ${scientific(c)}
    ${pad()}
  </div>`;
}

/** The overflow: an AppCompat popup whose items are TextViews `title` (GC-EM "Help"). Google's menu also
 *  offers Choose theme, Privacy policy and Send feedback (unpinned); they leave the app or change
 *  nothing the world records, so the sim lists History and Help only. */
function menu(d) {
  const close = () => { ui().dialog = null; };
  const items = d.where === 'history'
    ? [['Clear', () => { ui().dialog = { kind: 'message', message: 'Clear history and memory?', ok: 'Clear' }; }]]
    : [['History', () => { close(); go('history'); }], ['Help', () => { close(); toast('Help'); }]];
  return html`<div class="scrim" style="align-items:flex-start;justify-content:flex-end;background:transparent"
      onClick=${(e) => { if (e.target === e.currentTarget) update(close); }}>
    <div class="gc-menu" ...${A('android.widget.ListView')}>
      ${items.map(([label, run]) => html`<div style="padding:14px 20px;font-size:calc(16px * var(--fs))" ...${A('android.widget.LinearLayout', { click: true })}
          ...${pressHandlers(() => { close(); run(); })}>
        <span ...${A('android.widget.TextView', { id: 'title', text: label })}>${label}</span></div>`)}
    </div></div>`;
}

registerFlavor('google', 'calculator', {
  pkg: PKG,
  screens: { main, history: () => xHistory() },
  dialogs: { menu },
  activity: () => `${PKG}/com.android.calculator2.Calculator`,
});
