// Calculator (com.android.calculator2): a keypad calculator with a formula line, a result
// line, live preview, history, and a small safe expression parser (no eval).
//
// world().calculator_display is what the main display shows: the formula while typing
// ("12×3", "0" when empty), the result after "=" ("36"), or the error text ("Can't divide
// by 0"). The formula itself lives in ui().calc (UI state); when a task patches the display
// from outside, the app adopts the new value as the current input.
//
// Flavor `sim`: C ( ) ÷ / 7 8 9 × / 4 5 6 − / 1 2 3 + / % 0 . = with ⌫ beside the display.
// Flavor `aosp`: the stock Pixel-style pad — AC () % ÷ … 0 . ⌫ = — a "()" smart-parenthesis
// key, and the advanced-functions row (√ π ^ !) with a toggle that expands
// RAD/DEG, sin, cos, tan, ln, log, e. Content descriptions follow AOSP ("times" for ×).
import { html, registerApp, Screen, Row, Empty, Button, A, world, ui, go, back, t, flavor, update, toast } from '../os.js';

const MAX_LEN = 80;
const FUNCS = ['sin(', 'cos(', 'tan(', 'ln(', 'log('];
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
.calc-mode { font-size: 12px; color: var(--muted); text-align: left; min-height: 14px; }
.calc-delrow { display: flex; justify-content: flex-end; }
.calc-pad { flex: 0 0 auto; padding: 8px 10px 12px; display: grid; grid-template-columns: repeat(4, 1fr); gap: 10px; }
.calc-adv { flex: 0 0 auto; padding: 8px 10px 0; display: grid; grid-template-columns: repeat(5, 1fr); gap: 6px; }
.btn.ck { min-height: 64px; padding: 0; border-radius: 32px; font-size: 26px; font-weight: 400; color: var(--on); background: var(--surface); }
.btn.ck.op { background: var(--primary-c); color: var(--on); font-size: 28px; }
.btn.ck.fn { background: #d3e3fd; color: #041e49; font-size: 22px; }
.dark .btn.ck.fn { background: #3b4a66; color: #d3e3fd; }
.btn.ck.eq { background: var(--primary); color: var(--bg); font-size: 30px; }
.btn.ck.adv { min-height: 40px; font-size: 17px; background: transparent; border-radius: 20px; }
.btn.ck.tog { min-height: 40px; font-size: 16px; background: transparent; }
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
    if ('+−×÷^()%!√πe'.includes(ch)) { out.push({ k: ch }); i++; continue; }
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
    while (peek() && (peek().k === '%' || peek().k === '!')) {
      v = take().k === '%' ? v / 100 : factorial(v);
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
  syntax: () => t('Error', 'Malformed expression'),
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
function cs() {
  const u = ui();
  const w = world().calculator_display ?? '0';
  let c = u.calc;
  if (!c || c.disp !== w) {
    c = u.calc = { expr: fromDisplay(w), res: null, err: null, disp: w, adv: !!c?.adv, rad: !!c?.rad, hist: c?.hist || [] };
  }
  return c;
}
function shownText(c) { return c.err ? c.err : c.res !== null ? c.res : c.expr || '0'; }
function commit(c) { c.disp = shownText(c); world().calculator_display = c.disp; }

const lastCh = (s) => s.slice(-1);
const isDigitEnd = (s) => /[0-9.]$/.test(s);
const valueEnd = (s) => /[0-9.)%!πe]$/.test(s) && !FUNCS.some((f) => s.endsWith(f));
const openCount = (s) => [...s].reduce((n, ch) => n + (ch === '(' ? 1 : ch === ')' ? -1 : 0), 0);

/** Start from the shown result (an operator after "=" continues from the answer). */
function continueFromResult(c) {
  if (c.err) { c.expr = ''; c.err = null; }
  if (c.res !== null) { c.expr = fromDisplay(c.res.replace('E', '×10^')); c.res = null; }
}
function freshIfDone(c) { if (c.res !== null || c.err) { c.expr = ''; c.res = null; c.err = null; } }

function press(key) {
  const c = cs();
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
  } else if (key === '%' || key === '!') {
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
  c.hist = [{ expr: full, res: r.v }, ...(c.hist || [])].slice(0, 30);
}

/** Live preview under the formula, only once there is something to compute. */
function preview(c) {
  if (c.res !== null || c.err || !c.expr) return '';
  if (!/[+−×÷^%!√πe(]|sin|cos|tan|ln|log/.test(c.expr.replace(/^−/, ''))) return '';
  const r = tryEval(c.expr, c.rad);
  return r.v && r.v !== c.expr ? r.v : '';
}

// ------------------------------------------------------------------------------------------
// UI
const K = (label, key, { id, desc, kind = 'ck' } = {}) => Button({ label, id, desc, kind, onClick: () => press(key) });
const digit = (d) => K(d, d, { id: `digit_${d}` });
const MUL_DESC = () => t('multiply', 'times');

function display(c) {
  const done = c.res !== null || !!c.err;
  const formula = c.expr || (done ? '' : '0');
  const result = c.err || (c.res !== null ? c.res : preview(c));
  return html`<div class="calc-display" ...${A('android.widget.LinearLayout', { id: 'display' })}>
    ${flavor() === 'aosp' ? html`<div class="calc-mode" ...${A('android.widget.TextView', { id: 'mode', text: c.rad ? 'RAD' : 'DEG' })}>${c.rad ? 'RAD' : 'DEG'}</div>` : null}
    <div class="calc-formula" ...${A('android.widget.TextView', { id: 'formula', text: formula })}>${formula}</div>
    <div class=${'calc-result' + (c.err ? ' err' : '')} ...${A('android.widget.TextView', { id: 'result', text: result })}>${result}</div>
    ${flavor() !== 'aosp' ? html`<div class="calc-delrow">${Button({ label: '⌫', id: 'del', desc: 'delete', kind: 'ck adv', onClick: () => press('del') })}</div>` : null}
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

function aospPad(c) {
  const toggle = Button({ label: c.adv ? '⌃' : '⌄', id: 'toggle_advanced_pad', desc: c.adv ? 'Hide advanced functions' : 'Show advanced functions',
    kind: 'ck tog', onClick: () => { cs().adv = !cs().adv; } });
  const adv = html`<div class="calc-adv" ...${A('android.widget.GridLayout', { id: 'pad_advanced' })}>
    ${K('√', '√', { id: 'op_sqrt', desc: 'square root', kind: 'ck adv' })}${K('π', 'π', { id: 'const_pi', desc: 'pi', kind: 'ck adv' })}
    ${K('^', '^', { id: 'op_pow', desc: 'power', kind: 'ck adv' })}${K('!', '!', { id: 'op_fact', desc: 'factorial', kind: 'ck adv' })}${toggle}
    ${c.adv ? html`
      ${Button({ label: c.rad ? 'RAD' : 'DEG', id: 'toggle_mode', desc: c.rad ? 'switch to degrees' : 'switch to radians', kind: 'ck adv', onClick: () => { cs().rad = !cs().rad; } })}
      ${K('sin', 'sin(', { id: 'fun_sin', desc: 'sine', kind: 'ck adv' })}${K('cos', 'cos(', { id: 'fun_cos', desc: 'cosine', kind: 'ck adv' })}
      ${K('tan', 'tan(', { id: 'fun_tan', desc: 'tangent', kind: 'ck adv' })}<span></span>
      ${K('ln', 'ln(', { id: 'fun_ln', desc: 'natural logarithm', kind: 'ck adv' })}${K('log', 'log(', { id: 'fun_log', desc: 'logarithm', kind: 'ck adv' })}
      ${K('e', 'e', { id: 'const_e', desc: "Euler's number", kind: 'ck adv' })}` : null}
  </div>`;
  return html`${adv}<div class="calc-pad" ...${A('android.widget.GridLayout', { id: 'pad_numeric' })}>
    ${K('AC', 'clr', { id: 'clr', desc: 'clear', kind: 'ck fn' })}${K('( )', '()', { id: 'parens', desc: 'parentheses', kind: 'ck fn' })}
    ${K('%', '%', { id: 'op_pct', desc: 'percent', kind: 'ck fn' })}${K('÷', '÷', { id: 'op_div', desc: 'divide', kind: 'ck op' })}
    ${digit('7')}${digit('8')}${digit('9')}${K('×', '×', { id: 'op_mul', desc: MUL_DESC(), kind: 'ck op' })}
    ${digit('4')}${digit('5')}${digit('6')}${K('−', '−', { id: 'op_sub', desc: 'minus', kind: 'ck op' })}
    ${digit('1')}${digit('2')}${digit('3')}${K('+', '+', { id: 'op_add', desc: 'plus', kind: 'ck op' })}
    ${digit('0')}${K('.', '.', { id: 'dec_point', desc: 'point' })}${K('⌫', 'del', { id: 'del', desc: 'delete' })}${K('=', '=', { id: 'eq', desc: 'equals', kind: 'ck eq' })}
  </div>`;
}

function main() {
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
    ${flavor() === 'aosp' ? aospPad(c) : simPad()}
  </div>`;
}

function history() {
  const c = cs();
  const list = c.hist || [];
  return Screen({ title: 'History', actions: list.length ? [{ icon: '🗑', desc: t('Clear history', 'Clear'), id: 'clear_history', onClick: () => { cs().hist = []; } }] : [],
    body: list.length ? list.map((h) => Row({ title: h.res, subtitle: h.expr, id: 'history_item',
      onClick: () => { const cc = cs(); cc.expr = fromDisplay(h.res); cc.res = null; cc.err = null; commit(cc); back(); } }))
      : Empty(t('No history yet', 'No history')) });
}

const dialogs = {
  menu: () => html`<div class="scrim" style="align-items:flex-start;justify-content:flex-end;background:transparent"
      onClick=${(e) => { if (e.target === e.currentTarget) update(() => { ui().dialog = null; }); }}>
    <div style="margin:8px 8px 0 0;min-width:180px;background:var(--surface);border-radius:8px;box-shadow:0 4px 14px rgba(0,0,0,.3);padding:6px 0"
      ...${A('android.widget.ListView', { id: 'android:id/list' })}>
      ${Row({ title: 'History', id: 'menu_history', onClick: () => { ui().dialog = null; go('history'); } })}
      ${Row({ title: t('Help', 'Help & feedback'), id: 'menu_help', onClick: () => { ui().dialog = null; toast(t('Type an expression and tap =', 'Use the keys to enter an expression')); } })}
    </div></div>`,
};

registerApp({
  id: 'calculator', label: 'Calculator', pkg: 'com.android.calculator2', icon: '🧮', color: '#5f6368',
  root: { s: 'main', p: {} },
  screens: { main, history },
  dialogs,
  activity: () => 'com.android.calculator2/.Calculator',
});
