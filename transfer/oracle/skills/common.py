"""Skills every app shares, used by the per-app skills and by the solutions.

They cover what no one app's skills own: pressing and holding an element when a plain long
press does not open its menu, tapping an element only once it is clear of floating buttons,
waiting out a toast, reading a row's summary text, running a skill again after a misread
touch (for one name or for each of several), and a number in the form every app matches.
Everything is located from the current observation (text, resource id, role) — never from
stored coordinates.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from actionmap.actions import Drag, LongPress, Scroll, Tap, Wait
from actionmap.geometry import px_to_point
from actionmap.observation import UIElement

from ..base import Ctx, OracleError, Skill, act, scroll_to


def grid_center(ctx: Ctx, el: UIElement, dy_frac: float = 0.0) -> tuple[int, int]:
    """The element's centre as a grid point (optionally moved down by a fraction of the screen)."""
    cx, cy = el.bounds.center
    w, h = ctx.obs.screen.width, ctx.obs.screen.height
    return px_to_point(cx, min(h - 1, cy + dy_frac * h), w, h)


def hold(ctx: Ctx, el: UIElement, opened: Callable[[], bool]) -> Skill:
    """Long-press ``el``; if ``opened()`` is still false, press, hold and slide a little instead.

    Why: in the sim a long press whose menu/dialog appears under the finger receives the
    release as a click on that overlay's scrim, which dismisses it again. Sliding the held
    finger past the touch slop suppresses that click (as on Android, where the long press has
    already fired and a slide does not cancel it).
    """
    yield from act(ctx, LongPress(target=el.index))
    if opened():
        return True
    for e in ctx.obs.elements:  # the same element, re-found in the new observation
        if e.resource_id == el.resource_id and e.text == el.text and e.bounds == el.bounds:
            el = e
            break
    yield from act(ctx, Drag(start=grid_center(ctx, el), end=grid_center(ctx, el, 0.025), duration_ms=1000))
    return opened()


def overlaps(a: UIElement, b: UIElement) -> bool:
    x, y = a.bounds.center
    return b.bounds.contains(x, y)


def wait_toast(ctx: Ctx, max_waits: int = 3) -> Skill:
    """Wait while a toast is showing.

    Why: the sim leaves out of the observation whatever a toast covers (a FAB, tabs), so a
    check that a tap target is clear of the FAB would pass while the FAB is merely hidden.
    """
    for _ in range(max_waits):
        if not ctx.find_all(cls="Toast"):
            break
        yield from act(ctx, Wait(seconds=1.0))
    return ctx.obs


def _intersects(a: UIElement, b: UIElement) -> bool:
    return a.bounds.left < b.bounds.right and b.bounds.left < a.bounds.right and \
        a.bounds.top < b.bounds.bottom and b.bounds.top < a.bounds.bottom


def tap_clear(ctx: Ctx, app: str, find: Callable[[], UIElement | None], what: str) -> Skill:
    """Tap the element ``find()`` returns, first scrolling its list so that it lies wholly inside
    the list and clear of floating buttons — the list and the buttons as ``app``'s family marks
    them (roles ``scroll_list`` and ``fab``).

    Why: a tap lands on whatever is on top; on Android a FAB floats over the list and the list's
    clipped edge sits under other bars, so a row partly hidden there must be scrolled into the
    open before tapping. If the list cannot move further, the element is tapped when at least
    its centre is free.
    """
    def the_list() -> UIElement | None:
        return ctx.role(app, "scroll_list")

    def state(el: UIElement) -> tuple[bool, bool, bool]:
        """(fully clear, centre free, needs scrolling down)."""
        lst = the_list()
        fabs = ctx.roles(app, "fab")
        under = any(_intersects(el, f) for f in fabs)
        centre_covered = any(overlaps(el, f) for f in fabs)
        cy = el.bounds.center[1]
        if lst is None:
            return not under, not centre_covered, True
        inside = el.bounds.top >= lst.bounds.top and el.bounds.bottom <= lst.bounds.bottom - 2
        centre_in = lst.bounds.top < cy < lst.bounds.bottom - 4
        down = under or el.bounds.bottom > lst.bounds.bottom - 2
        return inside and not under, centre_in and not centre_covered, down

    yield from wait_toast(ctx)
    for _ in range(4):
        el = find()
        if el is None:
            raise OracleError(f"not on screen: {what}")
        clear, _free, down = state(el)
        if clear:
            return (yield from act(ctx, Tap(target=el.index)))
        before = [(e.text, e.bounds) for e in ctx.obs.elements]
        lst = the_list()
        yield from act(ctx, Scroll(direction="down" if down else "up", target=lst.index if lst is not None else None))
        if [(e.text, e.bounds) for e in ctx.obs.elements] == before:
            break
    el = find()
    if el is None:
        raise OracleError(f"not on screen: {what}")
    if state(el)[1]:
        return (yield from act(ctx, Tap(target=el.index)))
    raise OracleError(f"{what} stays covered or outside its list")


def row_summary(ctx: Ctx, title: str, *, scroll: bool = True) -> Skill:
    """The text just below a row titled ``title`` (a preference summary, a contact field value)."""
    el = (yield from scroll_to(ctx, title)) if scroll else ctx.find(title)
    if el is None:
        raise OracleError(f"no row {title!r}")
    below = [e for e in ctx.obs.elements if e.text and e.index != el.index and e.bounds.top >= el.bounds.bottom - 4
             and abs(e.bounds.left - el.bounds.left) < 40 and e.bounds.top - el.bounds.bottom < 120]
    if not below:
        raise OracleError(f"no summary under {title!r}")
    return min(below, key=lambda e: e.bounds.top).text


class Ambiguous(OracleError):
    """What the screen shows does not single out one answer (e.g. two alarms with the same
    label): trying again cannot help, so :func:`retrying` lets it through at once."""


def retrying(ctx: Ctx, make: Callable[[], Skill], tries: int = 2) -> Skill:
    """Run the skill ``make()``; if it raises :class:`OracleError`, run it again from the start.

    Only for skills that are safe to repeat (navigation, opening, reading): each restarts
    from ``open_app``. Why: a real touch can be misread (a tap held too long becomes a long
    press and opens selection mode instead of the item); a person would simply try again.
    """
    for i in range(max(1, tries)):
        if i:  # give a busy phone a moment before trying again
            yield from act(ctx, Wait(seconds=1.0))
        try:
            return (yield from make())
        except Ambiguous:
            raise
        except OracleError:
            if i == tries - 1:
                raise
    return None



def each_retrying(ctx: Ctx, names: Sequence[str], skill: Callable[[Ctx, str], Skill], tries: int = 3) -> Skill:
    """``skill(ctx, name)`` for each of ``names`` in turn, each run with :func:`retrying` (``tries`` times)."""
    for name in names:
        yield from retrying(ctx, lambda name=name: skill(ctx, name), tries=tries)  # type: ignore[misc]
    return ctx.obs

def dial_form(number: str) -> str:
    """A number as digits (keeping a leading '+'), the form every app's number matching accepts."""
    s = number.strip()
    digits = "".join(ch for ch in s if ch.isdigit())
    return ("+" if s.startswith("+") else "") + digits
