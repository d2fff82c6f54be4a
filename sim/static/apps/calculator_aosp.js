// Calculator, flavor `aosp`: ExactCalculator's screens — the display (toolbar with mode and
// overflow, formula, result), the pad pager (numeric and operator pads, the advanced pad peeking at
// the right edge), the history fragment, the framework overflow menu and the message dialog, each
// citing the layouts it follows. The engine and input state are calculator_core.js's.
import { html, A, ui, back, update, pressHandlers, nowIso } from '../os.js';
import { cs, press, preview } from './calculator_core.js';

// ExactCalculator, LineageOS/android_packages_apps_ExactCalculator
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

export function xMain() {
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
export function xMenu(items) {
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
export function xMessage(d) {
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
