"""Clock skills for timers and the stopwatch: set, start, pause, resume, label, delete; lap, reset, read."""

from __future__ import annotations

from actionmap.observation import UIElement

from ...base import Ctx, OracleError, Skill, norm, tap_role
from .screen import APP, _ensure_clear, _has, _hide_keyboard, _role, _scroll_until, _tap_el, _type_role, goto_tab

# --- timers ------------------------------------------------------------------------------------

def _timer_display(ctx: Ctx, h: int, m: int, s: int) -> str:
    return str(ctx.words(APP, "timer_display")).format(h=h, m=m, s=s)


def start_timer(ctx: Ctx, hours: int, minutes: int, seconds: int) -> Skill:
    """Set a timer on the keypad (hh mm ss, each 0–99) and start it."""
    for v, what in ((hours, "hours"), (minutes, "minutes"), (seconds, "seconds")):
        if not (isinstance(v, int) and 0 <= v <= 99):
            raise OracleError(f"{what} must be an integer 0–99, got {v!r}")
    if hours == minutes == seconds == 0:
        raise OracleError("a timer needs a non-zero duration")
    yield from goto_tab(ctx, "timer")
    if not _has(ctx, "timer_setup_time"):
        yield from tap_role(ctx, APP, "add_timer")
    zero = _timer_display(ctx, 0, 0, 0)
    for _ in range(7):
        disp = _role(ctx, "timer_setup_time")
        if disp is None or disp.text == zero:
            break
        yield from tap_role(ctx, APP, "timer_setup_delete")
    for ch in f"{hours:02d}{minutes:02d}{seconds:02d}".lstrip("0"):
        yield from tap_role(ctx, APP, "timer_digit", pred=lambda e, ch=ch: e.text.strip() == ch)
    want = _timer_display(ctx, hours, minutes, seconds)
    disp = _role(ctx, "timer_setup_time")
    if disp is None or disp.text != want:
        raise OracleError(f"timer keypad shows {disp.text if disp else None!r}, wanted {want!r}")
    yield from tap_role(ctx, APP, "timer_start")
    if not _has(ctx, "timer_card"):
        raise OracleError("no running timer after Start")
    return ctx.obs


def _timer_card(ctx: Ctx, label: str | None) -> Skill:
    def probe() -> UIElement | None:
        for card in ctx.roles(APP, "timer_card"):
            if label is None:
                return card
            lab = _role(ctx, "timer_label", within=card)
            if lab is not None and norm(lab.text) == norm(label):
                return card
        return None

    yield from goto_tab(ctx, "timer")
    yield from _scroll_until(ctx, probe, f"timer {label!r}")
    return (yield from _ensure_clear(ctx, probe, f"timer {label!r}"))


def _timer_button(ctx: Ctx, label: str | None, role: str, verify: str | None) -> Skill:
    card = yield from _timer_card(ctx, label)
    btn = _role(ctx, role, within=card)
    if btn is None:
        return False
    yield from _tap_el(ctx, btn)
    if verify is not None and not _has(ctx, verify):
        raise OracleError(f"timer did not change ({role})")
    return True


def pause_timer(ctx: Ctx, label: str | None = None) -> Skill:
    """Pause the (first, or labelled) running timer; no-op if it is not running."""
    return (yield from _timer_button(ctx, label, "timer_pause", "timer_resume"))


def resume_timer(ctx: Ctx, label: str | None = None) -> Skill:
    """Resume (or start) the (first, or labelled) paused timer; no-op if it is running."""
    return (yield from _timer_button(ctx, label, "timer_resume", "timer_pause"))


def delete_timer(ctx: Ctx, label: str | None = None) -> Skill:
    """Delete the (first, or labelled) timer."""
    card = yield from _timer_card(ctx, label)
    btn = _role(ctx, "timer_delete", within=card)
    if btn is None:
        raise OracleError("no Delete on the timer")
    yield from _tap_el(ctx, btn)
    return ctx.obs


def set_timer_label(ctx: Ctx, label: str, current_label: str | None = None) -> Skill:
    """Label the (first, or currently labelled) timer."""
    card = yield from _timer_card(ctx, current_label)
    yield from _tap_el(ctx, ctx.need(APP, "timer_label", within=card))
    yield from _type_role(ctx, "label_field", label)
    yield from _hide_keyboard(ctx)
    yield from tap_role(ctx, APP, "label_ok")
    return ctx.obs


# --- stopwatch ---------------------------------------------------------------------------------

def _sw_running(ctx: Ctx) -> bool:
    return _has(ctx, "stopwatch_pause")


def start_stopwatch(ctx: Ctx) -> Skill:
    """Start (or resume) the stopwatch; no-op if it is running."""
    yield from goto_tab(ctx, "stopwatch")
    if _sw_running(ctx):
        return ctx.obs
    yield from tap_role(ctx, APP, "stopwatch_start")
    if not _sw_running(ctx):
        raise OracleError("the stopwatch did not start")
    return ctx.obs


def stop_stopwatch(ctx: Ctx) -> Skill:
    """Pause the stopwatch; no-op if it is not running."""
    yield from goto_tab(ctx, "stopwatch")
    if not _sw_running(ctx):
        return ctx.obs
    yield from tap_role(ctx, APP, "stopwatch_pause")
    if _sw_running(ctx):
        raise OracleError("the stopwatch did not stop")
    return ctx.obs


def lap_stopwatch(ctx: Ctx) -> Skill:
    """Record a lap (the stopwatch must be running)."""
    yield from goto_tab(ctx, "stopwatch")
    if not _sw_running(ctx):
        raise OracleError("the stopwatch is not running")
    yield from tap_role(ctx, APP, "stopwatch_lap")
    return ctx.obs


def reset_stopwatch(ctx: Ctx) -> Skill:
    """Stop the stopwatch and reset it to zero, clearing laps."""
    yield from stop_stopwatch(ctx)
    if _has(ctx, "stopwatch_reset"):
        yield from tap_role(ctx, APP, "stopwatch_reset")
    return ctx.obs


def read_stopwatch(ctx: Ctx) -> Skill:
    """The stopwatch reading as shown ('00:04.00'; '4.00' where the hundredths are a view of their own)."""
    yield from goto_tab(ctx, "stopwatch")
    el = _role(ctx, "stopwatch_time")
    if el is None:
        raise OracleError("no stopwatch reading")
    hs = _role(ctx, "stopwatch_hundredths")
    return f"{el.text}.{hs.text}" if hs is not None else el.text
