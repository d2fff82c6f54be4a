"""Finding and reaching things in the Clock app: the part every Clock skill stands on.

The Clock family's roles and flags (``_role``, ``_flag``), scrolling its list until something
shows (``_scroll_until``), bringing an element clear of the list's edges and the floating button
before a tap (``_ensure_clear``, ``_tap_clear``), typing into a field by role, and getting to the
app's tabbed main screen and one of its tabs from any screen of the app (``open_clock``,
``goto_tab``) — past a first-launch permission prompt or tooltip.
"""

from __future__ import annotations

from collections.abc import Callable

from actionmap.actions import Scroll, Tap, TypeText
from actionmap.observation import UIElement
from device.apps.clock import ClockDriver

from ...base import Ctx, OracleError, Skill, act, back, open_app, scroll_to_role
from ..common import tap_clear


APP = "clock"


_DRIVER: list[ClockDriver] = []


def _drv() -> ClockDriver:
    """The Clock driver that reads cards (alarm time, label, days) off the matcher ``ctx.ui`` gives."""
    if not _DRIVER:
        _DRIVER.append(ClockDriver())
    return _DRIVER[0]


# --- small readers ---------------------------------------------------------------------------

def _flag(ctx: Ctx, key: str) -> bool:
    """A yes/no of the family's data (``edits_inline``, ``confirms_delete`` …)."""
    return bool(ctx.words(APP, key))


def _role(ctx: Ctx, role: str, within: UIElement | None = None) -> UIElement | None:
    return ctx.role(APP, role, within=within)


def _has(ctx: Ctx, role: str) -> bool:
    return ctx.role(APP, role) is not None


def _list(ctx: Ctx) -> UIElement | None:
    return _role(ctx, "scroll_list")


def _fabs(ctx: Ctx) -> list[UIElement]:
    return ctx.roles(APP, "fab")


def _signature(ctx: Ctx) -> list[tuple[str, str, object]]:
    return [(e.text, e.content_desc, e.bounds) for e in ctx.obs.elements]


def _scroll(ctx: Ctx, direction: str) -> Skill:
    lst = _list(ctx)
    action = Scroll(direction=direction, target=lst.index) if lst is not None else Scroll(direction=direction)  # type: ignore[arg-type]
    return (yield from act(ctx, action))


def _scroll_until(ctx: Ctx, probe: Callable[[], UIElement | None], what: str, *, must: bool = True,
                  first: str = "down") -> Skill:
    """Scroll the list (towards ``first`` to that end, then back the other way) until ``probe`` finds something."""
    hit = probe()
    for direction in (("up", "down") if first == "up" else ("down", "up")):
        tries = 0
        while hit is None and tries < ctx.max_scrolls:
            before = _signature(ctx)
            yield from _scroll(ctx, direction)
            tries += 1
            hit = probe()
            if hit is None and _signature(ctx) == before:
                break  # this end of the list is reached
        if hit is not None:
            break
    if hit is None and must:
        raise OracleError(f"not found in the list: {what}")
    return hit


def _overlaps(a: UIElement, b: UIElement) -> bool:
    return a.bounds.left < b.bounds.right and b.bounds.left < a.bounds.right and \
        a.bounds.top < b.bounds.bottom and b.bounds.top < a.bounds.bottom


def _ensure_clear(ctx: Ctx, refind: Callable[[], UIElement | None], what: str) -> Skill:
    """Scroll until the element is wholly inside the list and not under a floating button. An
    element nearly as tall as the list (an expanded alarm card on a Pixel) cannot be: its top is
    brought into the list instead, where its time and switch are."""
    el = refind()
    for _ in range(3):
        if el is None:
            raise OracleError(f"lost sight of {what}")
        lst = _list(ctx)
        if lst is None:
            return el
        lb, b = lst.bounds, el.bounds
        tall = b.bottom - b.top >= 0.6 * (lb.bottom - lb.top)
        under_fab = any(_overlaps(el, f) for f in _fabs(ctx))
        if b.top <= lb.top + 1:
            direction = "up"
        elif tall:
            return el
        elif b.bottom >= lb.bottom - 1 or under_fab:
            direction = "down"
        else:
            return el
        before = _signature(ctx)
        yield from _scroll(ctx, direction)
        el = refind()
        if _signature(ctx) == before:
            return el
    return el


def _tap_clear(ctx: Ctx, find: Callable[[], UIElement | None], what: str) -> Skill:
    """Tap what ``find()`` returns once it is clear of the list's edges and the FAB
    (:func:`transfer.oracle.skills.common.tap_clear` with the Clock family's ``scroll_list`` and ``fab``)."""
    return (yield from tap_clear(ctx, APP, find, what))


def _tap_el(ctx: Ctx, el: UIElement) -> Skill:
    return (yield from act(ctx, Tap(target=el.index)))


def _type_role(ctx: Ctx, role: str, text: str) -> Skill:
    """Type ``text`` into the field playing ``role`` (scrolled to and focused first), replacing its text."""
    el = yield from scroll_to_role(ctx, APP, role)
    if not el.focused:
        yield from act(ctx, Tap(target=el.index))
    return (yield from act(ctx, TypeText(text=text, clear=True, submit=False)))


def _hide_keyboard(ctx: Ctx) -> Skill:
    if ctx.obs.keyboard_visible:
        yield from back(ctx)
    return ctx.obs


# --- navigation ------------------------------------------------------------------------------

def _on_tabs(ctx: Ctx) -> bool:
    return _has(ctx, "tab_alarm") and _has(ctx, "tab_stopwatch")


def _in_dialog(ctx: Ctx) -> bool:
    return _has(ctx, "dialog") or _has(ctx, "time_picker")


def open_clock(ctx: Ctx) -> Skill:
    """Open the Clock app and get back to its tabbed main screen (closing dialogs, editors)."""
    yield from open_app(ctx, APP)
    for _ in range(8):
        allow = _role(ctx, "permission_allow")
        if allow is not None:  # a first-launch runtime permission prompt
            yield from _tap_el(ctx, allow)
            continue
        tip = _role(ctx, "tooltip")
        if tip is not None:  # a first-launch tooltip (Pixel: over the Add alarm button); a tap dismisses it
            yield from _tap_el(ctx, tip)
            continue
        dialog = _in_dialog(ctx)
        if _on_tabs(ctx) and not dialog and not ctx.obs.keyboard_visible:
            return ctx.obs
        if ctx.obs.foreground.app not in (None, APP) or \
                not (dialog or ctx.obs.keyboard_visible or _has(ctx, "navigate_up")):
            yield from open_app(ctx, APP)
            if _on_tabs(ctx):
                return ctx.obs
        yield from back(ctx)
    raise OracleError("could not reach the Clock app's main screen")


def goto_tab(ctx: Ctx, tab: str) -> Skill:
    """Open the Clock app on ``tab`` (alarm, clock, timer, stopwatch — the keys of the family's tabs)."""
    tabs = ctx.words(APP, "tabs")
    if tab not in tabs:
        raise OracleError(f"unknown Clock tab {tab!r}; known: {', '.join(tabs)}")
    yield from open_clock(ctx)
    el = ctx.need(APP, f"tab_{tab}")
    if not el.selected:
        yield from act(ctx, Tap(target=el.index))
    return ctx.obs
