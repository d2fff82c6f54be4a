// Clock: what more than one flavor draws alike — the `ck-` stylesheet (the sim flavor's screens,
// and the timer setup, stopwatch and lap rows DeskClock's tabs reuse), the timer card (still the
// simulator's in the aosp flavor: DC timer_item.xml's single play_pause button does not show whether
// a timer runs) and the Settings screen of the overflow menu (every flavor's).
import { html, Screen, Button, Text, Section, A, ui, t, flavor, toast } from '../os.js';
import { press, timerList, fmtDur, fmtTotal } from './clock_core.js';

// ------------------------------------------------------------------------------------------
// styles (layout only; colours come from the phone theme)
if (!document.getElementById('clock-css')) {
  const el = document.createElement('style');
  el.id = 'clock-css';
  el.textContent = `
  .ck-card { background: var(--surface); border-radius: 24px; margin: 8px 12px; padding: 12px 16px; }
  .ck-head { display: flex; align-items: center; gap: 12px; }
  .ck-head-text { flex: 1; min-width: 0; }
  .ck-time { font-size: calc(40px * var(--fs)); font-weight: 400; line-height: 1.15; font-variant-numeric: tabular-nums; display: inline-block; }
  .ck-card.off .ck-time { color: var(--muted); }
  .ck-lab { font-size: calc(14px * var(--fs)); color: var(--muted); display: block; }
  .ck-days { font-size: calc(13px * var(--fs)); color: var(--muted); display: block; margin-top: 2px; }
  .ck-arrow { width: 36px; height: 36px; display: flex; align-items: center; justify-content: center; font-size: 18px; }
  .ck-chips { display: flex; justify-content: space-between; padding: 10px 4px 6px; }
  .ck-day { width: 38px; height: 38px; border-radius: 19px; border: 1px solid var(--muted); display: flex; align-items: center; justify-content: center; font-size: 14px; }
  .ck-day.on { background: var(--primary); border-color: var(--primary); color: var(--bg); }
  .ck-line { display: flex; align-items: center; gap: 12px; padding: 10px 0; min-height: 44px; }
  .ck-line .tv { flex: 1; }
  .ck-big { text-align: center; font-size: calc(56px * var(--fs)); font-weight: 300; padding: 20px 0 4px; font-variant-numeric: tabular-nums; }
  .ck-sub { text-align: center; color: var(--muted); font-size: calc(14px * var(--fs)); padding: 2px; }
  .ck-city { display: flex; align-items: center; padding: 12px 20px; gap: 12px; min-height: 64px; }
  .ck-city-text { flex: 1; min-width: 0; }
  .ck-city-name { font-size: calc(17px * var(--fs)); display: block; }
  .ck-city-diff { font-size: calc(13px * var(--fs)); color: var(--muted); display: block; }
  .ck-city-time { font-size: calc(28px * var(--fs)); font-variant-numeric: tabular-nums; }
  .ck-cb { display: flex; align-items: center; gap: 14px; padding: 10px 20px; min-height: 52px; }
  .ck-cb .ck-city-text { flex: 1; }
  .ck-keypad { display: grid; grid-template-columns: repeat(3, 1fr); gap: 10px; padding: 8px 28px; }
  .ck-keypad .btn { height: 60px; font-size: calc(24px * var(--fs)); border-radius: 30px; background: var(--surface); color: var(--on); }
  .ck-setup { text-align: center; font-size: calc(44px * var(--fs)); padding: 16px 0 8px; font-variant-numeric: tabular-nums; }
  .ck-setup.set { color: var(--primary); }
  .ck-presets { display: flex; justify-content: center; gap: 4px; }
  .ck-timer { background: var(--surface); border-radius: 24px; margin: 8px 12px; padding: 12px 16px; }
  .ck-timer-time { font-size: calc(46px * var(--fs)); font-variant-numeric: tabular-nums; display: block; text-align: center; }
  .ck-timer-total { text-align: center; color: var(--muted); display: block; font-size: calc(13px * var(--fs)); }
  .ck-btns { display: flex; justify-content: center; gap: 8px; flex-wrap: wrap; padding-top: 8px; }
  .ck-sw { text-align: center; font-size: calc(56px * var(--fs)); font-weight: 300; padding: 40px 0 16px; font-variant-numeric: tabular-nums; }
  .ck-lap { display: flex; padding: 10px 28px; font-variant-numeric: tabular-nums; }
  .ck-lap > span { flex: 1; }
  .ck-lap > span:last-child { text-align: right; }
  .ck-form-time { text-align: center; font-size: calc(56px * var(--fs)); padding: 16px 0; font-variant-numeric: tabular-nums; }
  .ck-bottom { display: flex; justify-content: space-around; padding: 8px 16px 12px; background: var(--bg); border-top: 1px solid var(--line); }
  .ck-menu { display: flex; flex-direction: column; }
  .ck-err { color: #b3261e; font-size: 13px; padding: 4px 8px; display: block; }
  .ck-header { padding: 16px 20px 4px; font-size: calc(15px * var(--fs)); color: var(--muted); }
  `;
  document.head.appendChild(el);
}
export function timerCard(tm, i) {
  const done = tm.remaining_s === 0;
  const fresh = !tm.running && tm.remaining_s === tm.duration_s;
  const labelText = tm.label || 'Label';  // aosp: DC timer_item.xml's hint, shown as text when empty
  const stateBtn = done ? null : tm.running
    ? Button({ label: 'Pause', id: 'timer_pause', kind: 'filled', onClick: () => { tm.running = false; } })
    : Button({ label: fresh ? 'Start' : 'Resume', id: 'timer_resume', kind: 'filled', onClick: () => { tm.running = true; } });
  return html`<div class="ck-timer" ...${A('android.widget.LinearLayout', { id: 'timer_item' })}>
    <span class="ck-lab" style="text-align:center" ...${A('android.widget.TextView', { id: 'timer_label', text: labelText, hint: flavor() === 'aosp' ? 'Label' : undefined, click: true })}
      ...${press(() => { ui().fields.timer_label = tm.label; ui().dialog = { kind: 'timer_label', index: i }; ui().focus = 'timer_label'; ui().keyboard = true; })}>${labelText}</span>
    <span class="ck-timer-time" ...${A('android.widget.TextView', { id: 'timer_time_text', text: fmtDur(tm.remaining_s) })}>${fmtDur(tm.remaining_s)}</span>
    <span class="ck-timer-total" ...${A('android.widget.TextView', { id: 'timer_total', text: done ? "Time's up" : `${fmtTotal(tm.duration_s)} timer${tm.running ? '' : ' · Paused'}` })}>${done ? "Time's up" : `${fmtTotal(tm.duration_s)} timer${tm.running ? '' : ' · Paused'}`}</span>
    <div class="ck-btns">
      ${stateBtn}
      ${tm.running ? Button({ label: '+1:00', id: 'timer_add_time', desc: 'Add 1 minute', onClick: () => { tm.remaining_s += 60; tm.duration_s += 60; } }) : null}
      ${!tm.running && !fresh ? Button({ label: 'Reset', id: 'reset', onClick: () => { tm.remaining_s = tm.duration_s; tm.running = false; } }) : null}
      ${Button({ label: 'Delete', id: 'delete', desc: 'Delete timer', onClick: () => { timerList().splice(i, 1); toast('Timer deleted'); } })}
    </div>
  </div>`;
}
// Settings (overflow menu): preferences that no task checks, for realism
export function settingsScreen() {
  const row = (title, value, id) => html`<div class="ck-line" style="padding:10px 20px"
      ...${A('android.widget.LinearLayout', { id, click: true })} ...${press(() => toast(`${title}: ${value}`))}>
    <div style="flex:1">${Text(title, { id: 'title' })}<br/>${Text(value, { id: 'summary', cls: 'ck-city-diff' })}</div></div>`;
  const body = html`
    ${Section('Clock')}
    ${row('Style', 'Digital', 'clock_style')}
    ${row('Automatic home clock', 'While traveling in an area where the time is different, add a clock for home', 'automatic_home_clock')}
    ${row('Home time zone', '(GMT+0:00) London', 'home_time_zone')}
    ${Section('Alarms')}
    ${row('Silence after', '10 minutes', 'auto_silence')}
    ${row('Snooze length', '10 minutes', 'snooze_length')}
    ${row('Alarm volume', '60%', 'alarm_volume')}
    ${row('Start week on', t('Monday', 'Sunday'), 'week_start')}
    ${Section('Timers')}
    ${row('Timer sound', 'Timer Expired', 'timer_ringtone')}
    ${row('Gradually increase volume', 'Off', 'timer_crescendo')}
  `;
  return Screen({ title: 'Settings', body });
}
