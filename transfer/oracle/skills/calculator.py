"""Oracle skills for the Calculator: type an expression on the keypad and read the result.

Keys are found by resource id (digits) or content description (everything else), the way
TalkBack names them, so the same skill drives the sim in both flavors and a real AOSP
calculator. The ``×`` key is described "multiply" in the sim flavor and "times" in AOSP;
``(`` / ``)`` are separate keys in the sim flavor and one smart "parentheses" key in AOSP.
"""

from __future__ import annotations

from actionmap.actions import Tap

from ..base import Ctx, OracleError, Skill, act, back, open_app

# expression character → content description of its key (None: a digit, found by id)
KEYS: dict[str, str] = {
    "+": "plus", "-": "minus", "−": "minus", "/": "divide", "÷": "divide", ".": "point", ",": "point",
    "%": "percent", "^": "power", "√": "square root", "π": "pi", "!": "factorial", "e": "Euler's number",
    "=": "equals", "⌫": "delete", "*": "multiply", "×": "multiply", "x": "multiply", "X": "multiply",
    "(": "left parenthesis", ")": "right parenthesis",
}
MULTIPLY = ("multiply", "times")
ADVANCED = {"power", "square root", "pi", "factorial", "Euler's number"}
SHOW_ADVANCED = "Show advanced functions"


def _key(ctx: Ctx, desc: str):
    return ctx.find(desc=desc, pred=lambda e: e.clickable)


def _on_keypad(ctx: Ctx) -> bool:
    return ctx.find(desc="equals") is not None and ctx.find(desc="clear") is not None


def open_calculator(ctx: Ctx) -> Skill:
    """Open the Calculator on its keypad (leaving History or a menu if it reopens there)."""
    yield from open_app(ctx, "calculator")
    for _ in range(4):
        if _on_keypad(ctx):
            return ctx.obs
        yield from back(ctx)
        if ctx.obs.foreground.app != "calculator":
            yield from open_app(ctx, "calculator")
    if not _on_keypad(ctx):
        raise OracleError("calculator keypad not found")
    return ctx.obs


def press_key(ctx: Ctx, ch: str) -> Skill:
    """Tap the key for one expression character (digits by id, the rest by description)."""
    if ch.isdigit() and len(ch) == 1:
        el = ctx.find(ch, rid=f"digit_{ch}") or ctx.find(ch, cls="Button")
        if el is None:
            raise OracleError(f"no key for digit {ch}")
        return (yield from act(ctx, Tap(target=el.index)))
    if ch not in KEYS:
        raise OracleError(f"the calculator has no key for {ch!r}")
    desc = KEYS[ch]
    if desc == "multiply":
        el = next((k for k in (_key(ctx, d) for d in MULTIPLY) if k is not None), None)
    elif desc in ("left parenthesis", "right parenthesis"):
        el = _key(ctx, desc) or _key(ctx, "parentheses")
    else:
        el = _key(ctx, desc)
    if el is None and desc in ADVANCED:
        toggle = _key(ctx, SHOW_ADVANCED)
        if toggle is not None:
            yield from act(ctx, Tap(target=toggle.index))
            el = _key(ctx, desc)
    if el is None:
        raise OracleError(f"no {desc!r} key on this calculator ({ctx.flavor} flavor)")
    return (yield from act(ctx, Tap(target=el.index)))


def read_display(ctx: Ctx) -> str:
    """What the result line shows (a result, an error, or the live preview); else the formula."""
    res = ctx.find(rid="result")
    if res is not None and res.text:
        return res.text
    formula = ctx.find(rid="formula")
    if formula is None:
        raise OracleError("calculator display not found")
    return formula.text


def clear(ctx: Ctx) -> Skill:
    """Clear the display (AC / C)."""
    yield from open_calculator(ctx)
    el = _key(ctx, "clear")
    if el is None:
        raise OracleError("no clear key")
    yield from act(ctx, Tap(target=el.index))
    formula = ctx.find(rid="formula")
    if formula is not None and formula.text not in ("", "0"):
        raise OracleError(f"display not cleared: {formula.text!r}")
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
    eq = _key(ctx, "equals")
    if eq is None:
        raise OracleError("no equals key")
    yield from act(ctx, Tap(target=eq.index))
    res = ctx.find(rid="result")
    if res is None or not res.text:
        raise OracleError("no result shown after =")
    return res.text
