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
// display_two_line, pad_operator_one_col, pad_advanced_3x5). See "flavor aosp" below for the cite of
// each screen: the display (toolbar > mode + overflow, formula, result), the pad pager (the
// numeric and operator pads, the advanced pad peeking at the right edge), the framework overflow
// menu, the history fragment, the message dialog.
// Flavor `google`: Google Calculator, in apps/google/calculator.js; it shares this module's input
// state and evaluation (cs, press, preview) and ExactCalculator's behaviour, from which it descends
// (the stock() branches below: radians by default, an error kept for editing, dated history).
import { html, registerApp, Screen, Row, Empty, Button, A, world, ui, go, back, t, flavor, stock, update, toast, pressHandlers, nowIso } from '../os.js';

const MAX_LEN = 80;
// the inverse functions and exp( are the aosp flavor's (KeyMaps.java: fun_arcsin "sin⁻¹(", fun_exp "exp(");
// listed before sin( so that the longer name wins
const FUNCS = ['sin⁻¹(', 'cos⁻¹(', 'tan⁻¹(', 'exp(', 'sin(', 'cos(', 'tan(', 'ln(', 'log('];
const OPS = '+−×÷^';

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
// evaluation: tokenizer + recursive-descent parser (standard precedence, implicit ×)
class CalcError extends Error { constructor(code) { super(code); this.code = code; } }

function tokenize(src) {
  const out = [];
  let i = 0;
  while (i < src.length) {
    const ch = src[i];
    if (/[0-9.]/.test(ch)) {
      let j = i;
      while (j < src.length && /[0-9.]/.test(src[j])) j++;
      const s = src.slice(i, j);
      if ((s.match(/\./g) || []).length > 1 || s === '.') throw new CalcError('syntax');
      out.push({ k: 'num', v: parseFloat(s) });
      i = j; continue;
    }
    const fn = FUNCS.find((f) => src.startsWith(f.slice(0, -1), i));
    if (fn) { out.push({ k: 'fn', v: fn.slice(0, -1) }); i += fn.length - 1; continue; }
    if ('+−×÷^()%!√πe²'.includes(ch)) { out.push({ k: ch }); i++; continue; }
    if (ch === '-') { out.push({ k: '−' }); i++; continue; }
    if (ch === '*') { out.push({ k: '×' }); i++; continue; }
    if (ch === '/') { out.push({ k: '÷' }); i++; continue; }
    if (ch === ' ' || ch === ',') { i++; continue; }
    throw new CalcError('syntax');
  }
  return out;
}

function factorial(x) {
  if (x < 0 || !Number.isInteger(x)) throw new CalcError('nan');
  if (x > 170) throw new CalcError('inf');
  let r = 1;
  for (let k = 2; k <= x; k++) r *= k;
  return r;
}

function evaluate(src, rad) {
  const toks = tokenize(src);
  let pos = 0;
  const peek = () => toks[pos];
  const take = (k) => { const tk = toks[pos]; if (!tk || (k && tk.k !== k)) throw new CalcError('syntax'); pos++; return tk; };
  const startsPrimary = (tk) => tk && (tk.k === 'num' || tk.k === '(' || tk.k === '√' || tk.k === 'π' || tk.k === 'e' || tk.k === 'fn');
  const trig = (f, x) => {
    if (f.endsWith('⁻¹')) {  // inverse: the angle comes out in the current mode
      if (f !== 'tan⁻¹' && Math.abs(x) > 1) throw new CalcError('nan');
      const r = f === 'sin⁻¹' ? Math.asin(x) : f === 'cos⁻¹' ? Math.acos(x) : Math.atan(x);
      return rad ? r : (r * 180) / Math.PI;
    }
    const a = rad ? x : (x * Math.PI) / 180;
    let r = f === 'sin' ? Math.sin(a) : f === 'cos' ? Math.cos(a) : Math.tan(a);
    if (f === 'tan' && !rad && Math.abs(((x % 180) + 180) % 180 - 90) < 1e-12) throw new CalcError('nan');
    if (Math.abs(r) < 1e-15) r = 0;
    return r;
  };
  function expr() {
    let v = term();
    while (peek() && (peek().k === '+' || peek().k === '−')) {
      const op = take().k;
      const r = term();
      v = op === '+' ? v + r : v - r;
    }
    return v;
  }
  function term() {
    let v = unary();
    for (;;) {
      const tk = peek();
      if (tk && (tk.k === '×' || tk.k === '÷')) {
        take();
        const r = unary();
        if (tk.k === '÷') { if (r === 0) throw new CalcError('div0'); v /= r; } else v *= r;
      } else if (startsPrimary(tk)) {
        v *= unary();  // implicit multiplication: 2π, 3(4), (1)(2)
      } else return v;
    }
  }
  function unary() {
    if (peek() && peek().k === '−') { take(); return -unary(); }
    if (peek() && peek().k === '+') { take(); return unary(); }
    return power();
  }
  function power() {
    const b = postfix();
    if (peek() && peek().k === '^') { take(); const ex = unary(); return Math.pow(b, ex); }
    return b;
  }
  function postfix() {
    let v = primary();
    while (peek() && (peek().k === '%' || peek().k === '!' || peek().k === '²')) {
      const k = take().k;
      v = k === '%' ? v / 100 : k === '²' ? v * v : factorial(v);
    }
    return v;
  }
  function primary() {
    const tk = take();
    if (tk.k === 'num') return tk.v;
    if (tk.k === 'π') return Math.PI;
    if (tk.k === 'e') return Math.E;
    if (tk.k === '(') { const v = expr(); take(')'); return v; }
    if (tk.k === '√') { const v = postfix(); if (v < 0) throw new CalcError('nan'); return Math.sqrt(v); }
    if (tk.k === 'fn') {
      take('(');
      const x = expr();
      take(')');
      if (tk.v === 'ln' || tk.v === 'log') { if (x <= 0) throw new CalcError('nan'); return tk.v === 'ln' ? Math.log(x) : Math.log10(x); }
      if (tk.v === 'exp') return Math.exp(x);
      return trig(tk.v, x);
    }
    throw new CalcError('syntax');
  }
  if (!toks.length) throw new CalcError('syntax');
  const v = expr();
  if (pos !== toks.length) throw new CalcError('syntax');
  if (Number.isNaN(v)) throw new CalcError('nan');
  if (!Number.isFinite(v)) throw new CalcError('inf');
  return v;
}

/** A number as Android shows it: up to 12 significant digits, no trailing zeros, − sign. */
function fmtNum(x) {
  if (Object.is(x, -0) || Math.abs(x) < 1e-300) x = 0;
  const ax = Math.abs(x);
  let s;
  if (ax !== 0 && (ax >= 1e12 || ax < 1e-6)) {
    const [m, e] = x.toExponential(11).split('e');
    s = `${m.includes('.') ? m.replace(/0+$/, '').replace(/\.$/, '') : m}E${parseInt(e, 10)}`;
    if (ax >= 1e12 && ax < 1e15 && Number.isInteger(x)) s = String(x);  // whole numbers up to 15 digits stay plain
  } else {
    s = x.toPrecision(12);
    if (s.includes('e')) s = String(Number(s));
    if (s.includes('.')) s = s.replace(/0+$/, '').replace(/\.$/, '');
  }
  return s.replace(/^-/, '−');
}

const ERRORS = {
  div0: () => "Can't divide by 0",
  nan: () => 'Not a number',
  inf: () => t('Value too large', 'Infinite?'),
  syntax: () => t('Error', 'Bad expression'),  // aosp: strings.xml error_syntax
};

// ------------------------------------------------------------------------------------------
// input state
function fromDisplay(w) {
  const s = String(w ?? '').replace(/-/g, '−').replace(/\*/g, '×').replace(/\//g, '÷').replace(/,/g, '').trim();
  if (!s || s === '0') return '';
  try { tokenize(s); } catch (e) { return ''; }
  return s.slice(0, MAX_LEN);
}
/** ui().calc, re-derived when the world display was changed from outside (a task setup). */
export function cs() {
  const u = ui();
  const w = world().calculator_display ?? '0';
  let c = u.calc;
  if (!c || c.disp !== w) {
    // aosp: ExactCalculator starts in radian mode (Evaluator.java: KEY_PREF_DEGREE_MODE defaults to false)
    c = u.calc = { expr: fromDisplay(w), res: null, err: null, disp: w, adv: !!c?.adv, rad: c ? !!c.rad : stock(),
      inv: !!c?.inv, hist: c?.hist || [] };
  }
  return c;
}
function shownText(c) { return c.err ? c.err : c.res !== null ? c.res : c.expr || '0'; }
function commit(c) { c.disp = shownText(c); world().calculator_display = c.disp; }

const lastCh = (s) => s.slice(-1);
const isDigitEnd = (s) => /[0-9.]$/.test(s);
const valueEnd = (s) => /[0-9.)%!πe²]$/.test(s) && !FUNCS.some((f) => s.endsWith(f));
const openCount = (s) => [...s].reduce((n, ch) => n + (ch === '(' ? 1 : ch === ')' ? -1 : 0), 0);

/** Start from the shown result (an operator after "=" continues from the answer). */
function continueFromResult(c) {
  if (c.err) { c.expr = ''; c.err = null; }
  if (c.res !== null) { c.expr = fromDisplay(c.res.replace('E', '×10^')); c.res = null; }
}
function freshIfDone(c) { if (c.res !== null || c.err) { c.expr = ''; c.res = null; c.err = null; } }

export function press(key) {
  const c = cs();
  if (stock() && c.err && key !== 'clr' && key !== '=') {
    // ExactCalculator keeps the failed formula: a key takes the display back to input and edits it
    // (Calculator.java addKeyToExpr: ERROR → INPUT; onDelete removes one token); Google's build too
    c.err = null;
  }
  const e0 = c.expr;
  if (key === 'clr') { c.expr = ''; c.res = null; c.err = null; commit(c); return; }
  if (key === 'del') {
    if (c.res !== null || c.err) { c.expr = ''; c.res = null; c.err = null; }
    else {
      const fn = FUNCS.find((f) => c.expr.endsWith(f));
      c.expr = c.expr.slice(0, c.expr.length - (fn ? fn.length : 1));
    }
    commit(c); return;
  }
  if (key === '=') { equals(c); commit(c); return; }
  if (/^[0-9]$/.test(key)) {
    freshIfDone(c);
    const num = (c.expr.match(/[0-9.]*$/) || [''])[0];
    if (num === '0') c.expr = c.expr.slice(0, -1);
    c.expr += key;
  } else if (key === '.') {
    freshIfDone(c);
    const num = (c.expr.match(/[0-9.]*$/) || [''])[0];
    if (num.includes('.')) return;
    c.expr += num ? '.' : '0.';
  } else if (OPS.includes(key)) {
    if (c.err) { if (key !== '−') return; c.err = null; c.expr = ''; }
    if (c.res !== null) continueFromResult(c);
    const last = lastCh(c.expr);
    if (!c.expr) { if (key === '−') c.expr = '−'; }
    else if (last === '(' || FUNCS.some((f) => c.expr.endsWith(f)) || last === '√') { if (key === '−') c.expr += '−'; }
    else if (OPS.includes(last)) {
      if (key === '−' && '×÷^'.includes(last)) c.expr += '−';
      else {
        let s = c.expr;
        while (s && OPS.includes(lastCh(s))) s = s.slice(0, -1);
        c.expr = s && !/[(√]$/.test(s) ? s + key : s + (key === '−' ? '−' : '');
      }
    } else if (last === '.') c.expr += key;
    else c.expr += key;
  } else if (key === '(') {
    freshIfDone(c);
    c.expr += '(';
  } else if (key === ')') {
    if (c.res !== null || c.err) return;
    if (openCount(c.expr) > 0 && valueEnd(c.expr)) c.expr += ')';
  } else if (key === '()') {
    if (c.res !== null || c.err) { freshIfDone(c); c.expr = '('; }
    else c.expr += openCount(c.expr) > 0 && valueEnd(c.expr) ? ')' : '(';
  } else if (key === '%' || key === '!' || key === '²') {
    if (c.err) return;
    if (c.res !== null) continueFromResult(c);
    if (valueEnd(c.expr)) c.expr += key;
  } else if (key === '√' || key === 'π' || key === 'e' || FUNCS.includes(key)) {
    freshIfDone(c);
    c.expr += key;
  } else return;
  if (c.expr.length > MAX_LEN) { c.expr = e0; toast(t('Too many characters', 'Too many characters')); return; }
  commit(c);
}

/** Close what the user left open and drop a dangling operator, as Android does on "=". */
function completed(expr) {
  let s = expr;
  while (s && (OPS.includes(lastCh(s)) || lastCh(s) === '(' || lastCh(s) === '√' || FUNCS.some((f) => s.endsWith(f)))) {
    const fn = FUNCS.find((f) => s.endsWith(f));
    s = s.slice(0, s.length - (fn ? fn.length : 1));
  }
  return s + ')'.repeat(Math.max(0, openCount(s)));
}

function tryEval(expr, rad) {
  try { return { v: fmtNum(evaluate(completed(expr), rad)) }; } catch (e) { return { err: e instanceof CalcError ? e.code : 'syntax' }; }
}

function equals(c) {
  if (c.res !== null || c.err || !c.expr) return;
  const full = completed(c.expr);
  if (!full) return;
  const r = tryEval(full, c.rad);
  c.expr = full;
  if (r.err) { c.err = ERRORS[r.err](); return; }
  c.res = r.v;
  c.hist = [{ expr: full, res: r.v, ...(stock() ? { t: nowIso() } : {}) }, ...(c.hist || [])].slice(0, 30);
}

/** Live preview under the formula, only once there is something to compute. */
export function preview(c) {
  if (c.res !== null || c.err || !c.expr) return '';
  if (!/[+−×÷^%!√πe(²]|sin|cos|tan|ln|log/.test(c.expr.replace(/^−/, ''))) return '';
  const r = tryEval(c.expr, c.rad);
  return r.v && r.v !== c.expr ? r.v : '';
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

// ==========================================================================================
// flavor aosp: ExactCalculator, LineageOS/android_packages_apps_ExactCalculator
// @ 92dd1417a6af570904e0d8c422f5a961ec693754 (lineage-20.0), a phone in portrait.
// Classes are what uiautomator reports (View.getAccessibilityClassName): HapticButton →
// android.widget.Button, HapticImageButton → android.widget.ImageButton, CalculatorDisplay →
// android.widget.LinearLayout, CalculatorFormula / CalculatorResult / AlignedTextView →
// android.widget.TextView, CalculatorScrollView → android.widget.HorizontalScrollView, the
// framework Toolbar, androidx GridLayout and DragLayout → android.view.ViewGroup,
// CalculatorPadViewPager → androidx.viewpager.widget.ViewPager. Wording: res/values/strings.xml
// (desc_* descriptions; mode_deg/mode_rad, clr "c" and inv shown all caps by their styles).
if (typeof document !== 'undefined' && !document.getElementById('xcalc-css')) {
  const s = document.createElement('style');
  s.id = 'xcalc-css';
  s.textContent = `
.xc { position: absolute; inset: 0; display: flex; flex-direction: column; background: var(--bg); }
.xc-main { flex: 1; display: flex; flex-direction: column; min-height: 0; }
.xc-display { flex: 0 0 auto; display: flex; flex-direction: column; background: var(--surface); box-shadow: 0 2px 4px rgba(0,0,0,.25); z-index: 2; }
.xc-toolbar { height: 48px; display: flex; align-items: center; padding: 0 0 0 16px; }
.xc-mode { flex: 0 0 auto; font-size: 16px; font-weight: 500; color: var(--muted); }
.xc-menu { margin-left: auto; display: flex; }
.xc-fscroll { overflow: hidden; display: flex; justify-content: flex-end; padding: 8px 16px 18px; }
.xc-formula { white-space: nowrap; font-size: 44px; line-height: 1.2; min-height: 53px; color: var(--on); font-variant-numeric: tabular-nums; }
.xc-result { text-align: right; white-space: nowrap; overflow: hidden; font-size: 28px; line-height: 1.2; min-height: 34px; padding: 18px 16px 36px; color: var(--muted); font-variant-numeric: tabular-nums; }
.xc-display.result .xc-result { font-size: 44px; min-height: 53px; color: var(--on); padding: 8px 16px 106px; }
.xc-display.error .xc-result, .xc-display.error .xc-formula { color: #b3261e; }
.xc-pager { flex: 1; position: relative; overflow: hidden; min-height: 0; background: #000; }
.xc-page0 { position: absolute; inset: 0; display: flex; transition: opacity .2s; }
.xc-page0.covered { opacity: .22; }
.xc-num { flex: 3; display: grid; grid-template-columns: repeat(3, 1fr); grid-template-rows: repeat(4, 1fr); background: #434343; }
.xc-op { flex: 1; display: grid; grid-template-rows: repeat(5, 1fr); background: #636363; }
.xc-adv { position: absolute; top: 0; bottom: 0; width: calc(100% * 7 / 9); left: calc(100% - 24px); display: grid;
  grid-template-columns: repeat(3, 1fr); grid-template-rows: repeat(5, 1fr); background: #1de9b6; box-shadow: -2px 0 6px rgba(0,0,0,.35); }
.xc-adv.open { left: calc(100% * 2 / 9); }
.xk { display: flex; align-items: center; justify-content: center; color: #fff; font-size: 30px; font-weight: 300; }
.xk.op { font-size: 26px; }
.xk.txt { font-size: 20px; }
.xk.adv { color: rgba(0,0,0,.87); font-size: 22px; }
.xk.adv.txt { font-size: 15px; }
.xk.adv[data-selected="1"] { background: rgba(0,0,0,.12); }
.xc-hist-item { padding: 12px 16px; display: flex; flex-direction: column; align-items: flex-end; border-top: 1px solid var(--line); }
.xc-hist-date { align-self: flex-start; font-size: 12px; color: var(--muted); }
.xc-hist-formula { font-size: 22px; white-space: nowrap; overflow: hidden; max-width: 100%; }
.xc-hist-result { font-size: 18px; color: var(--muted); }
.xc-hist-empty { display: flex; align-items: center; justify-content: center; padding: 96px 16px; color: var(--muted); font-size: 16px; }
`;
  document.head.appendChild(s);
}

const X_PAGES = ['Numbers and basic operations', 'Advanced operations'];  // desc_num_pad, desc_adv_pad

/** A pad button (HapticButton / HapticImageButton). Off the current page of the pad pager its
 *  node is not exposed (CalculatorPadViewPager.java onPageSelected: the other page's children get
 *  IMPORTANT_FOR_ACCESSIBILITY_NO_HIDE_DESCENDANTS) and a tap reaches the page, not the key. */
function xKey({ id, text, desc, key, onClick, onLong, kind = '', image = false, face, selected, shown = true }) {
  const run = onClick || (() => press(key));
  const a = shown ? A(image ? 'android.widget.ImageButton' : 'android.widget.Button',
    { id, text: image ? '' : text, desc, click: true, long: !!onLong, selected }) : {};
  return html`<div class=${'xk ' + kind} ...${a} ...${shown ? pressHandlers(run, onLong) : {}}>${face ?? text}</div>`;
}

function xDisplay(c) {
  const state = c.err ? 'error' : c.res !== null ? 'result' : 'input';
  const result = c.err || (c.res !== null ? c.res : preview(c));
  const mode = c.rad ? 'RAD' : 'DEG';
  // display_two_line.xml: CalculatorDisplay > toolbar.xml (Toolbar > mode), formula_container >
  // formula, result. The toolbar is always shown while an accessibility service is bound
  // (CalculatorDisplay.java getForceToolbarVisible); its overflow is res/menu/activity_calculator.xml.
  // After "=" the formula slides off the top and the result takes its place (Calculator.java
  // onResult); an error keeps the formula (setState: only the one-line display hides it).
  return html`<div class=${'xc-display ' + state} ...${A('android.widget.LinearLayout', { id: 'display' })}>
    <div class="xc-toolbar" ...${A('android.view.ViewGroup', { id: 'toolbar' })}>
      <span class="xc-mode" ...${A('android.widget.TextView', { id: 'mode', text: mode, desc: c.rad ? 'radian mode' : 'degree mode' })}>${mode}</span>
      <div class="xc-menu" ...${A('android.widget.LinearLayout')}>
        <div class="icon-btn" ...${A('android.widget.ImageButton', { desc: 'More options', click: true, text: '' })}
          ...${pressHandlers(() => { ui().dialog = { kind: 'menu' }; })}>⋮</div>
      </div>
    </div>
    ${state === 'result' ? null : html`<div class="xc-fscroll" ...${A('android.widget.HorizontalScrollView', { id: 'formula_container' })}>
      <span class="xc-formula" ...${A('android.widget.TextView', { id: 'formula', text: c.expr, desc: c.expr ? undefined : 'No formula', long: true })}>${c.expr}</span>
    </div>`}
    <div class="xc-result" ...${A('android.widget.TextView', { id: 'result', text: result, desc: result ? undefined : 'No result' })}>${result}</div>
  </div>`;
}

function xPads(c) {
  const adv = !!c.adv;  // the advanced pad is the pager's current page
  const done = c.res !== null;
  // pad_numeric.xml (GridLayout 4×3) and pad_operator_one_col.xml (GridLayout 5×1: `del` and `clr`
  // share the first cell — after "=" the clear key shows, Calculator.java setState; a long press on
  // `del` clears, onLongClick)
  const n = !adv;
  const d = (x) => xKey({ id: `digit_${x}`, text: x, key: x, shown: n });
  const numeric = html`<div class="xc-num" ...${n ? A('android.view.ViewGroup', { id: 'pad_numeric' }) : {}}>
    ${d('7')}${d('8')}${d('9')}${d('4')}${d('5')}${d('6')}${d('1')}${d('2')}${d('3')}
    ${xKey({ id: 'dec_point', text: '.', desc: 'point', key: '.', shown: n })}${d('0')}
    ${xKey({ id: 'eq', text: '=', desc: 'equals', key: '=', shown: n })}
  </div>`;
  const clearKey = done
    ? xKey({ id: 'clr', text: 'C', desc: 'clear', key: 'clr', kind: 'op txt', shown: n })
    : xKey({ id: 'del', desc: 'delete', key: 'del', kind: 'op txt', image: true, face: '⌫', shown: n, onLong: () => press('clr') });
  const operator = html`<div class="xc-op" ...${n ? A('android.view.ViewGroup', { id: 'pad_operator' }) : {}}>
    ${clearKey}
    ${xKey({ id: 'op_div', text: '÷', desc: 'divide', key: '÷', kind: 'op', shown: n })}
    ${xKey({ id: 'op_mul', text: '×', desc: 'multiply', key: '×', kind: 'op', shown: n })}
    ${xKey({ id: 'op_sub', text: '−', desc: 'minus', key: '−', kind: 'op', shown: n })}
    ${xKey({ id: 'op_add', text: '+', desc: 'plus', key: '+', kind: 'op', shown: n })}
  </div>`;
  // pad_advanced_3x5.xml; `inv` swaps each invertible key for its inverse (Calculator.java
  // onInverseToggled), the mode key offers the other mode (onModeChanged)
  const inv = !!c.inv;
  const k = (o) => xKey({ kind: 'adv', shown: adv, ...o });
  const pair = (plain, inverse) => (inv ? k(inverse) : k(plain));
  const advanced = html`<div class=${'xc-adv' + (adv ? ' open' : '')}
      ...${A('android.view.ViewGroup', { id: 'pad_advanced', desc: X_PAGES[1], click: !adv, text: '' })}
      ...${adv ? {} : pressHandlers(() => { cs().adv = true; })}>
    ${k({ id: 'toggle_inv', text: 'INV', desc: inv ? 'hide inverse functions' : 'show inverse functions', kind: 'adv txt', selected: inv,
      onClick: () => { cs().inv = !cs().inv; } })}
    ${k({ id: 'toggle_mode', text: c.rad ? 'DEG' : 'RAD', desc: c.rad ? 'switch to degrees' : 'switch to radians', kind: 'adv txt',
      onClick: () => { cs().rad = !cs().rad; } })}
    ${k({ id: 'op_pct', text: '%', desc: 'percent', key: '%' })}
    ${pair({ id: 'fun_sin', text: 'sin', desc: 'sine', key: 'sin(' }, { id: 'fun_arcsin', text: 'sin⁻¹', desc: 'inverse sine', key: 'sin⁻¹(' })}
    ${pair({ id: 'fun_cos', text: 'cos', desc: 'cosine', key: 'cos(' }, { id: 'fun_arccos', text: 'cos⁻¹', desc: 'inverse cosine', key: 'cos⁻¹(' })}
    ${pair({ id: 'fun_tan', text: 'tan', desc: 'tangent', key: 'tan(' }, { id: 'fun_arctan', text: 'tan⁻¹', desc: 'inverse tangent', key: 'tan⁻¹(' })}
    ${pair({ id: 'fun_ln', text: 'ln', desc: 'natural logarithm', key: 'ln(' }, { id: 'fun_exp', text: 'eˣ', desc: 'exponential function', key: 'exp(' })}
    ${pair({ id: 'fun_log', text: 'log', desc: 'logarithm', key: 'log(' }, { id: 'fun_10pow', text: '10ˣ', desc: 'ten to the power of',
      onClick: () => { press('1'); press('0'); press('^'); } })}
    ${k({ id: 'op_fact', text: '!', desc: 'factorial', key: '!' })}
    ${k({ id: 'const_pi', text: 'π', desc: 'pi', key: 'π' })}
    ${k({ id: 'const_e', text: 'e', desc: "Euler's number", key: 'e' })}
    ${k({ id: 'op_pow', text: '^', desc: 'power', key: '^' })}
    ${k({ id: 'lparen', text: '(', desc: 'left parenthesis', key: '(' })}
    ${k({ id: 'rparen', text: ')', desc: 'right parenthesis', key: ')' })}
    ${pair({ id: 'op_sqrt', text: '√', desc: 'square root', key: '√' }, { id: 'op_sqr', text: 'x²', desc: 'squared', key: '²' })}
  </div>`;
  // activity_calculator_port.xml: CalculatorPadViewPager `pad_pager` — page 0 a LinearLayout
  // (pad_numeric + pad_operator), page 1 pad_advanced, 7/9 wide, peeking 24dp at the right edge
  // (getPageWidth, pad_page_margin). Each page is described by desc_pad_pages and is clickable only
  // while it is not the current one (a tap on it selects it).
  return html`<div class="xc-pager" ...${A('androidx.viewpager.widget.ViewPager', { id: 'pad_pager', scroll: true })}>
    <div class=${'xc-page0' + (adv ? ' covered' : '')} ...${A('android.widget.LinearLayout', { desc: X_PAGES[0], click: adv, text: '' })}
        ...${adv ? pressHandlers(() => { cs().adv = false; }) : {}}>
      ${numeric}${operator}
    </div>
    ${advanced}
  </div>`;
}

function xMain() {
  const c = cs();
  // activity_calculator_main.xml: DragLayout `drag_layout` > `main_calculator`
  // (activity_calculator_port.xml: the display above the pad pager); `history_frame` stays invisible
  return html`<div class="xc" ...${A('android.view.ViewGroup', { id: 'drag_layout' })}>
    <div class="xc-main" ...${A('android.widget.LinearLayout', { id: 'main_calculator' })}>
      ${xDisplay(c)}
      ${xPads(c)}
    </div>
  </div>`;
}

const DAY_MS = 86400000;
function xDate(iso) {
  // HistoryItem.getDateString: DateUtils.getRelativeTimeSpanString(time, now, DAY_IN_MILLIS)
  const t0 = new Date(`${(iso || nowIso()).slice(0, 10)}T00:00:00Z`).getTime();
  const t1 = new Date(`${nowIso().slice(0, 10)}T00:00:00Z`).getTime();
  const days = Math.round((t1 - t0) / DAY_MS);
  if (days <= 0) return 'Today';
  if (days === 1) return 'Yesterday';
  if (days < 7) return `${days} days ago`;
  const d = new Date(t0);
  return `${['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'][d.getUTCMonth()]} ${d.getUTCDate()}`;
}

export function xHistory() {
  // fragment_history.xml: Toolbar `history_toolbar` (title_history "History", up described
  // desc_navigate_up, res/menu/fragment_history.xml "Clear" in its overflow) over RecyclerView
  // `history_recycler_view` (reverseLayout: the newest at the bottom). history_item.xml: a LinearLayout
  // not important for accessibility > `history_date`, `history_formula_container` > `history_formula`,
  // `history_result`; the current expression is the bottom item (title_current_expression). An empty
  // history is one empty_history_view.xml item ("No History").
  const c = cs();
  const items = [...(c.hist || [])].reverse().map((h, i, all) => ({
    date: i === 0 || (all[i - 1].t || '').slice(0, 10) !== (h.t || '').slice(0, 10) ? xDate(h.t) : null, formula: h.expr, result: h.res }));
  if (c.expr && c.res === null && !c.err) items.push({ date: 'Current Expression', formula: c.expr, result: preview(c) });
  const menu = () => { ui().dialog = { kind: 'menu', where: 'history' }; };
  return html`<div class="screen" ...${A('android.widget.LinearLayout')}>
    <div class="appbar" ...${A('android.view.ViewGroup', { id: 'history_toolbar' })}>
      <div class="icon-btn" ...${A('android.widget.ImageButton', { desc: 'Navigate up', click: true, text: '' })} ...${pressHandlers(() => back())}>←</div>
      <div class="title" ...${A('android.widget.TextView', { text: 'History' })}>History</div>
      <div style="display:flex" ...${A('android.widget.LinearLayout')}>
        <div class="icon-btn" ...${A('android.widget.ImageButton', { desc: 'More options', click: true, text: '' })} ...${pressHandlers(menu)}>⋮</div>
      </div>
    </div>
    <div class="body scroll" data-scroll-key="calculator/history" ...${A('androidx.recyclerview.widget.RecyclerView', { id: 'history_recycler_view', scroll: items.length > 0 })}>
      ${items.length ? html`<div style="display:flex;flex-direction:column;justify-content:flex-end;min-height:100%">
        ${items.map((h) => html`<div class="xc-hist-item">
          ${h.date ? html`<span class="xc-hist-date" ...${A('android.widget.TextView', { id: 'history_date', text: h.date })}>${h.date}</span>` : null}
          <div style="max-width:100%;overflow:hidden" ...${A('android.widget.HorizontalScrollView', { id: 'history_formula_container' })}>
            <span class="xc-hist-formula" ...${A('android.widget.TextView', { id: 'history_formula', text: h.formula })}>${h.formula}</span></div>
          <span class="xc-hist-result" ...${A('android.widget.TextView', { id: 'history_result', text: h.result, desc: h.result ? undefined : 'No result' })}>${h.result}</span>
        </div>`)}</div>`
    : html`<div class="xc-hist-empty" ...${A('android.widget.FrameLayout', { id: 'empty_history_view' })}>
          <span ...${A('android.widget.TextView', { text: 'No History' })}>🕘 No History</span></div>`}
    </div>
  </div>`;
}

/** The framework Toolbar's overflow popup (ListPopupWindow: a ListView of popup_menu_item_layout
 *  items, each titled android:id/title). */
function xMenu(items) {
  return html`<div class="scrim" style="align-items:flex-start;justify-content:flex-end;background:transparent"
      onClick=${(e) => { if (e.target === e.currentTarget) update(() => { ui().dialog = null; }); }}>
    <div style="margin:8px 8px 0 0;min-width:200px;background:var(--surface);border-radius:4px;box-shadow:0 4px 14px rgba(0,0,0,.3);padding:8px 0"
      ...${A('android.widget.ListView')}>
      ${items.map(([label, run]) => html`<div style="padding:14px 20px;font-size:calc(16px * var(--fs))" ...${A('android.widget.LinearLayout', { click: true })}
          ...${pressHandlers(() => { ui().dialog = null; run(); })}>
        <span ...${A('android.widget.TextView', { id: 'android:id/title', text: label })}>${label}</span></div>`)}
    </div></div>`;
}

/** AlertDialogFragment.showMessageDialog (dialog_message.xml in the framework's AlertDialog). */
function xMessage(d) {
  const close = () => { ui().dialog = null; };
  const btn = (id, label, run) => html`<div class="btn" ...${A('android.widget.Button', { id, text: label.toUpperCase(), click: true })}
    ...${pressHandlers(run)}>${label.toUpperCase()}</div>`;
  return html`<div class="scrim" onClick=${(e) => { if (e.target === e.currentTarget) update(close); }}>
    <div class="dialog" ...${A('android.widget.FrameLayout', { id: 'android:id/parentPanel' })}>
      ${d.title ? html`<div class="dialog-title" ...${A('android.widget.TextView', { id: 'android:id/alertTitle', text: d.title })}>${d.title}</div>` : null}
      <div class="dialog-body"><span ...${A('android.widget.TextView', { id: 'android:id/message', text: d.message })}>${d.message}</span></div>
      <div class="dialog-buttons">
        ${d.ok ? btn('android:id/button2', 'Cancel', close) : null}
        ${btn('android:id/button1', d.ok || 'Dismiss', () => { if (d.ok) cs().hist = []; close(); })}
      </div>
    </div></div>`;
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

/** The result as a fraction when it is an exact ratio of small integers ("1/3"), else null. */
function fraction(c) {
  const r = tryEval(c.expr, c.rad);
  if (!r.v) return null;
  const x = Number(r.v.replace('−', '-').replace('E', 'e'));
  if (!Number.isFinite(x) || Number.isInteger(x)) return null;
  for (let q = 2; q <= 1000; q++) {
    const p = Math.round(x * q);
    if (Math.abs(p / q - x) < 1e-12) return `${p}/${q}`.replace('-', '−');
  }
  return null;
}

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
