// Calculator, shared by every flavor: the expression engine and the input state. The engine is a
// small safe parser and evaluator (no eval) with the number format and error texts; the input state
// (ui().calc, adopted from world().calculator_display when a task patched it) is what the keys change
// — press, equals, the live preview, the history — so every flavor's keypad computes alike. No screen
// lives here: the `sim` flavor's are in calculator.js, ExactCalculator's (aosp) in calculator_aosp.js,
// Google Calculator's in google/calculator.js.
import { world, ui, t, stock, toast, nowIso } from '../os.js';

const MAX_LEN = 80;
// the inverse functions and exp( are the aosp flavor's (KeyMaps.java: fun_arcsin "sin⁻¹(", fun_exp "exp(");
// listed before sin( so that the longer name wins
const FUNCS = ['sin⁻¹(', 'cos⁻¹(', 'tan⁻¹(', 'exp(', 'sin(', 'cos(', 'tan(', 'ln(', 'log('];
const OPS = '+−×÷^';

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
export function fromDisplay(w) {
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
export function commit(c) { c.disp = shownText(c); world().calculator_display = c.disp; }

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

/** The result as a fraction when it is an exact ratio of small integers ("1/3"), else null. */
export function fraction(c) {
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
