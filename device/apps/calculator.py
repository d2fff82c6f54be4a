"""Calculator: the keypad and the display — read by role in every family.

What a person reads off a calculator is its display: the *formula* being typed and the
*result*. The result is the final answer once "=" was pressed (AOSP's ``result`` after
evaluation, Google's ``result_final``), else the live preview under the formula (AOSP's
``result`` while typing, Google's ``result_preview``); Samsung shows both in one field. Keys
are roles too (``digit_7``, ``key_mul``, ``equals`` …) so a skill presses "7 × 6 =" on any
family without naming an id or a description.
"""

from __future__ import annotations

from typing import Any, ClassVar

from actionmap.observation import UIElement

from .base import AppDriver
from .match import Matcher, norm

#: an expression character → the role of its key
KEY_ROLES: dict[str, str] = {
    **{str(d): f"digit_{d}" for d in range(10)},
    "+": "key_add", "-": "key_sub", "−": "key_sub", "*": "key_mul", "×": "key_mul", "x": "key_mul", "X": "key_mul",
    "/": "key_div", "÷": "key_div", ".": "key_point", ",": "key_point", "%": "key_percent", "^": "key_power",
    "√": "key_sqrt", "π": "key_pi", "!": "key_fact", "e": "key_e", "(": "key_lparen", ")": "key_rparen",
    "=": "equals", "⌫": "delete",
}
OPERATORS = "+−×÷*/^"
#: keys that live on the advanced pad (shown by ``advanced_toggle`` where a family has one; AOSP's
#: pager also holds ( ) and % there, and ``numeric_pad`` brings the numeric keys back)
ADVANCED_ROLES = frozenset({"key_power", "key_sqrt", "key_pi", "key_fact", "key_e"})


def shown(e: UIElement | None) -> str:
    """The text an element shows ('' for an empty field, whose content description is a placeholder)."""
    if e is None:
        return ""
    return e.text.strip()


class CalculatorDriver(AppDriver):
    app = "calculator"
    control_roles: ClassVar[tuple[str, ...]] = (
        "formula", "result", "result_preview", "equals", "clear", "delete",
        *(f"digit_{d}" for d in range(10)), "key_point", "key_add", "key_sub", "key_mul", "key_div",
        "key_percent", "key_lparen", "key_rparen", "key_parens", "key_power", "key_sqrt", "key_pi", "key_fact",
        "key_e", "advanced_toggle", "numeric_pad", "history", "more_options",
    )

    def formula(self, m: Matcher) -> str | None:
        f = m.first("formula")
        return shown(f) if f is not None else None

    def result(self, m: Matcher) -> str | None:
        """The final result when shown, else the live preview; None when the display shows neither."""
        hits = [e for e in m.find("result") if shown(e)]
        if not hits:
            return None
        return shown(hits[0])

    def visible(self, m: Matcher, screen: str | None) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if screen == "calculator":
            formula, result = self.formula(m), self.result(m)
            if [e.index for e in m.find("formula")] == [e.index for e in m.find("result")] and result is not None:
                # one field for both (Samsung): an expression still being typed is no result yet
                result = None if any(op in result.lstrip("−-") for op in OPERATORS) else result
            out["formula"] = formula
            out["result"] = result
            errs = {norm(x) for x in m.texts("errors")}
            out["error"] = result is not None and norm(result) in errs
        elif screen == "history":
            out["history"] = [shown(e) for e in m.find("history_result")]
        return out
