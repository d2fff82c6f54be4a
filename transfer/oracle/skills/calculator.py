"""Oracle skills for the Calculator: type an expression on the keypad and read the result.

Keys are found through the app UI layer (:mod:`device.apps.calculator`): each expression
character names a key *role* (``7`` → ``digit_7``, ``×`` → ``key_mul``, ``=`` → ``equals``) and
the family's data says how that family marks it (AOSP's ``op_mul``, Samsung's
``calc_keypad_btn_*``, Xiaomi's ``btn_*_s``; by TalkBack's description where no id is known).
So the same skill drives the sim in both flavors and a real phone. Where a family has no
separate ``(`` / ``)`` keys it uses the one smart parentheses key; where a key lies on the other
page of a paged keypad (AOSP's advanced pad, swiped or tapped in over the numeric one) that page is
shown first; where the clear key is gone (AOSP while typing) a long press on delete clears.
"""

from __future__ import annotations

from actionmap.actions import LongPress, Tap
from actionmap.observation import UIElement
from device.apps.calculator import KEY_ROLES

from ..base import Ctx, OracleError, Skill, act, back, open_app

APP = "calculator"


def _key(ctx: Ctx, role: str) -> UIElement | None:
    return next((e for e in ctx.roles(APP, role) if e.clickable), None)


def _on_keypad(ctx: Ctx) -> bool:
    return _key(ctx, "equals") is not None and (_key(ctx, "clear") or _key(ctx, "delete")) is not None


def open_calculator(ctx: Ctx) -> Skill:
    """Open the Calculator on its keypad (leaving History or a menu if it reopens there)."""
    yield from open_app(ctx, APP)
    for _ in range(4):
        if _on_keypad(ctx):
            return ctx.obs
        yield from back(ctx)
        if ctx.obs.foreground.app != APP:
            yield from open_app(ctx, APP)
    if not _on_keypad(ctx):
        raise OracleError(f"calculator keypad not found ({ctx.family(APP)} family)")
    return ctx.obs


def press_key(ctx: Ctx, ch: str) -> Skill:
    """Tap the key for one expression character."""
    role = KEY_ROLES.get(ch)
    if role is None:
        raise OracleError(f"the calculator has no key for {ch!r}")
    el = _key(ctx, role)
    if el is None and role in ("key_lparen", "key_rparen"):
        el = _key(ctx, "key_parens")  # one smart "( )" key
    if el is None:
        # the key is on the keypad's other page (AOSP: the advanced pad peeks at the right edge and a tap
        # brings it in; Back takes the numeric pad back, whose middle lies under the advanced one)
        toggle = _key(ctx, "advanced_toggle")
        if toggle is not None:
            yield from act(ctx, Tap(target=toggle.index))
        elif _key(ctx, "numeric_pad") is not None:
            yield from back(ctx)
        el = _key(ctx, role)
    if el is None:
        raise OracleError(f"{APP}: no {role.removeprefix('key_')!r} key for {ch!r} ({ctx.family(APP)} family)")
    return (yield from act(ctx, Tap(target=el.index)))


def _shown(ctx: Ctx, role: str) -> str | None:
    el = ctx.role(APP, role)
    return el.text if el is not None else None


def read_display(ctx: Ctx) -> str:
    """What the result line shows (a result, an error, or the live preview); else the formula."""
    res = next((e.text for e in ctx.roles(APP, "result") if e.text), None)
    if res:
        return res
    formula = _shown(ctx, "formula")
    if formula is None:
        raise OracleError(f"{APP}: no display ({ctx.family(APP)} family)")
    return formula


def clear(ctx: Ctx) -> Skill:
    """Clear the display (AC / C, or a long press on delete where there is no clear key)."""
    yield from open_calculator(ctx)
    el = _key(ctx, "clear")
    if el is not None:
        yield from act(ctx, Tap(target=el.index))
    else:
        dl = _key(ctx, "delete")
        if dl is None:
            raise OracleError(f"{APP}: no clear key ({ctx.family(APP)} family)")
        yield from act(ctx, LongPress(target=dl.index))
    formula = _shown(ctx, "formula")
    if formula is not None and formula not in ("", "0"):
        raise OracleError(f"display not cleared: {formula!r}")
    return ctx.obs


def type_expression(ctx: Ctx, expression: str) -> Skill:
    """Tap the keys for ``expression`` (spaces ignored) without pressing equals."""
    for ch in expression:
        if ch.isspace():
            continue
        yield from press_key(ctx, ch)
    return ctx.obs


def compute(ctx: Ctx, expression: str) -> Skill:
    """Type ``expression`` on the keypad, press =, and return the result as shown.

    Returns the display text verbatim (Android's minus sign ``−`` and error texts such as
    "Can't divide by 0" included), so a task can check exactly what the user would see.
    """
    if not expression or not expression.strip():
        raise OracleError("empty expression")
    yield from clear(ctx)
    yield from type_expression(ctx, expression)
    yield from press_key(ctx, "=")
    res = next((e.text for e in ctx.roles(APP, "result") if e.text), None)
    if not res:
        raise OracleError("no result shown after =")
    return res
