"""Oracle solutions for Calculator templates: the expression is keyed in and the result read.

The answer is the display text as shown (``1,234``, ``−52``), which the number matcher
parses; operate tasks leave the result on screen.
"""

from __future__ import annotations

from typing import Any

from ..base import Ctx, OracleError, Skill, answer, complete
from ..skills import calculator as Calc
from .registry import solution

_EXPRESSIONS: dict[str, str] = {
    "calculator.multiply": "{a}×{b}",
    "calculator.divide": "{a}÷{b}",
    "calculator.expression": "({a}+{b})×{c}−{d}",
    "train.calculator.add": "{a}+{b}",
    "train.calculator.subtract": "{a}−{b}",
    "train.calculator.percent": "{x}×{p}%",
    "train.calculator.square": "{a}×{a}",
    "train.calculator.enter_sum": "{a}+{b}",
    "train.calculator.enter_product": "{a}×{b}",
    "test.calculator.minutes": "{h}×60+{m}",
}


def expression_for(inst: Any) -> str:
    try:
        return _EXPRESSIONS[inst.template_id].format(**inst.params)
    except KeyError as e:
        raise OracleError(f"no expression for {inst.template_id} ({e})") from None


@solution("calculator.multiply", "calculator.divide", "calculator.expression", "train.calculator.add",
          "train.calculator.subtract", "train.calculator.percent", "train.calculator.square")
def solve_compute(ctx: Ctx, inst: Any) -> Skill:
    shown = yield from Calc.compute(ctx, expression_for(inst))
    yield from answer(ctx, result=shown)


@solution("test.calculator.minutes")
def solve_minutes(ctx: Ctx, inst: Any) -> Skill:
    shown = yield from Calc.compute(ctx, expression_for(inst))
    yield from answer(ctx, minutes=shown)


@solution("train.calculator.enter_sum", "train.calculator.enter_product")
def solve_enter(ctx: Ctx, inst: Any) -> Skill:
    yield from Calc.compute(ctx, expression_for(inst))
    yield from complete(ctx)
