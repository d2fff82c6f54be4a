"""Calculator in the simulator: keypad input through oracle skills, results in WorldState.

The expected values are computed here by Python from the same expressions, so the test
checks the app's parser (precedence, parentheses, percent, implicit ×) and its Android-style
number formatting, not a table of memorised answers.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

import pytest

from actionmap.actions import Key, Tap
from sim import state as st
from sim.env import SimEnv
from transfer.oracle.base import Ctx, OracleError, Skill
from transfer.oracle.drive import run_skill
from transfer.oracle.skills import calculator as C

FLAVORS = ["sim", "aosp", "google"]


def fresh(flavor: str) -> SimEnv:
    env = SimEnv(flavor=flavor, screenshots=False)  # the skills read elements, not pixels
    env.reset({"start": {"app": "calculator"}})
    return env


def run(env: SimEnv, make: Callable[[Ctx], Skill]) -> Any:
    _, _, value = run_skill(env, make, flavor=env.flavor, max_steps=60)
    return value


def android_format(x: float) -> str:
    """How Android shows a result: ≤12 significant digits, no trailing zeros, '−' sign."""
    s = f"{x:.12g}"
    if "e" in s:
        mant, exp = s.split("e")
        s = f"{mant}E{int(exp)}"
    return s.replace("-", "−")


def py_value(expr: str) -> float:
    """The expression evaluated by Python (the reference), from the same keypad text."""
    e = expr.replace("×", "*").replace("÷", "/").replace("−", "-").replace("%", "/100").replace("^", "**")
    return float(eval(e, {"__builtins__": {}}, {}))  # noqa: S307 - test-only, literal arithmetic from this file


CASES = ["12+30", "7×6", "2+3×4", "(2+3)×4", "1÷3", "3−8", "0.1+0.2", "50%×8", "100−2×(3+4)÷7", "9.75×4"]


@pytest.mark.parametrize("flavor", FLAVORS)
def test_compute_matches_reference(flavor: str) -> None:
    env = fresh(flavor)
    for expr in CASES:
        shown = run(env, lambda c: C.compute(c, expr))
        assert shown == android_format(py_value(expr)), expr
        assert env.read_state().calculator_display == shown
    st.load(env.capture())


@pytest.mark.parametrize("flavor", FLAVORS)
def test_errors_clear_and_delete(flavor: str) -> None:
    env = fresh(flavor)
    assert run(env, lambda c: C.compute(c, "10÷0")) == "Can't divide by 0"
    assert env.read_state().calculator_display == "Can't divide by 0"
    # a digit after an error starts over (sim); ExactCalculator keeps the failed formula and edits it
    # (Calculator.java addKeyToExpr: ERROR → INPUT), its trailing 0 replaced by the digit; Google's
    # build descends from it and behaves the same
    start = {"sim": "", "aosp": "10÷", "google": "10÷"}[flavor]
    run(env, lambda c: C.type_expression(c, "5"))
    assert env.read_state().calculator_display == start + "5"
    run(env, lambda c: C.type_expression(c, "×4"))
    assert env.read_state().calculator_display == start + "5×4"
    run(env, lambda c: C.press_key(c, "⌫"))
    assert env.read_state().calculator_display == start + "5×"
    # "=" drops the dangling operator, as Android does
    run(env, lambda c: C.press_key(c, "="))
    assert env.read_state().calculator_display == {"sim": "5", "aosp": "2", "google": "2"}[flavor]
    # an operator after a result continues from it
    run(env, lambda c: C.type_expression(c, "+1="))
    assert env.read_state().calculator_display == {"sim": "6", "aosp": "3", "google": "3"}[flavor]
    run(env, C.clear)
    assert env.read_state().calculator_display == "0"
    # nonsense keys are ignored instead of corrupting the formula
    run(env, lambda c: C.type_expression(c, "×÷..3"))
    assert env.read_state().calculator_display == "0.3"
    assert run(env, lambda c: C.compute(c, "2×(3")) == "6"  # open parenthesis closed on "="
    st.load(env.capture())
    assert not any("has stopped" in e.text for e in env.observe().elements)


def test_aosp_advanced_panel_and_flavor_differences() -> None:
    aosp, sim = fresh("aosp"), fresh("sim")
    assert run(aosp, lambda c: C.compute(c, "2^10")) == "1024"
    assert run(aosp, lambda c: C.compute(c, "√16+5!")) == "124"
    assert run(aosp, lambda c: C.compute(c, "2π")) == android_format(2 * math.pi)
    ca, cs = Ctx(aosp.observe(), flavor="aosp"), Ctx(sim.observe(), flavor="sim")
    # AOSP (pad_operator_one_col.xml): after "=" the clear key "C" stands where delete was; ( and ) live on
    # the advanced pad, which peeks at the right edge; sim: C, ( and ) and delete always on the pad
    assert ca.has("C", cls="Button") and ca.find(rid="com.android.calculator2:id/clr").content_desc == "clear"
    assert ca.find(rid="com.android.calculator2:id/del") is None and not ca.has(desc="left parenthesis")
    assert ca.has(desc="multiply") and ca.has(desc="Advanced operations")
    assert cs.has("C", cls="Button") and cs.has(desc="left parenthesis") and cs.has(desc="multiply")
    assert not cs.has(desc="square root") and cs.role("calculator", "advanced_toggle") is None
    with pytest.raises(OracleError, match="no 'power' key"):
        run(sim, lambda c: C.compute(c, "2^3"))
    # while typing, delete stands there (a long press clears); the peeking advanced pad comes in on a tap
    # and hides the numeric keys it covers; Back takes the numeric pad back (Calculator.java onBackPressed)
    run(aosp, lambda c: C.type_expression(c, "7"))
    ca = Ctx(aosp.observe(), flavor="aosp")
    assert ca.find(rid="com.android.calculator2:id/clr") is None and ca.find(desc="delete").long_clickable
    obs, _ = aosp.step(Tap(target=ca.need("calculator", "advanced_toggle").index))
    assert Ctx(obs).has(desc="sine") and Ctx(obs).has(desc="natural logarithm") and Ctx(obs).has(desc="left parenthesis")
    assert not Ctx(obs).has("7", cls="Button") and Ctx(obs, flavor="aosp").role("calculator", "numeric_pad") is not None
    obs, _ = aosp.step(Tap(target=Ctx(obs).find(desc="show inverse functions").index))
    assert Ctx(obs).has(desc="inverse sine") and not Ctx(obs).has(desc="sine")
    obs, _ = aosp.step(Key(key="back"))
    assert Ctx(obs).has("7", cls="Button") and not Ctx(obs).has(desc="inverse sine")
    assert aosp.read_state().calculator_display == "7"


def test_display_patched_from_outside_is_adopted() -> None:
    env = SimEnv(flavor="sim", screenshots=False)
    base = json.loads(env.capture())
    base["world"]["calculator_display"] = "−12.5"
    base["ui"]["current"] = "calculator"
    base["ui"]["tasks"] = {"calculator": []}
    env.reset(json.dumps(base))
    run(env, lambda c: C.type_expression(c, "+2.5"))
    run(env, lambda c: C.press_key(c, "="))
    assert env.read_state().calculator_display == "−10"
    assert run(env, C.clear) is not None and env.read_state().calculator_display == "0"
