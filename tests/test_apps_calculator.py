"""The Calculator driver reads real and AOSP-modelled calculator screens right, and the oracle's
Calculator skills find every key through it.

Why: what the oracle and the UI probes know of a phone's calculator is what ``device.apps``
reads off its display — the formula and the result (the final result once "=" was pressed, else
the live preview) — and which key plays which role, in each family's own ids. Real dumps with
a person's truth (``fixtures/real-apps/<family>/calculator``, when there are any) and small dumps
modelled on AOSP ExactCalculator's layouts (``fixtures/apps/calculator``, each citing the layout
files it follows) are the evidence; a screen no family describes is reported as unknown.
"""

from __future__ import annotations

import io
import json
import re
import tokenize
from pathlib import Path
from typing import Any

import pytest

from actionmap.observation import UIElement
from device.apps import driver, read_screen
from device.apps.spec import load_spec
from _appfixtures import drive as _drive
from _appfixtures import elements as _elements

ROOT = Path(__file__).parent.parent
FIXTURES = Path(__file__).parent / "fixtures"
REAL = FIXTURES / "real-apps"
OWN = FIXTURES / "apps" / "calculator"
APP = "calculator"

# a truth file's role names → ours where they differ
ROLE_ALIASES = {"equals_key": "equals", "eq": "equals", "clear_key": "clear", "delete_key": "delete",
                "result_final": "result", "digit": "digit_key"}



def _bounds(s: str | list[int]) -> tuple[int, ...]:
    return tuple(s) if isinstance(s, list) else tuple(int(x) for x in re.findall(r"-?\d+", s))


def _read(name: str, **kw: Any):
    return read_screen(_elements(OWN / name), **kw)


def _control(r: Any, role: str) -> Any:
    hits = [c for c in r.controls if c.role == role]
    assert hits, f"no {role} in {sorted({c.role for c in r.controls})}"
    return hits[0]


# --- (1) real dumps with a person's truth ------------------------------------------------------

# --- (2) dumps modelled on the AOSP layouts ----------------------------------------------------

def test_exactcalculator_lineage21_while_typing() -> None:
    """input_pad.xml: AOSP's ids; the live preview stands in `result` while typing; no clear key."""
    r = _read("aosp_exact_typing_lineage21.xml")
    assert (r.package, r.app, r.family, r.screen) == ("com.android.calculator2", APP, "aosp", "calculator")
    assert r.visible == {"formula": "12×3", "result": "36", "error": False}
    roles = {c.role for c in r.controls}
    assert {f"digit_{d}" for d in range(10)} | {"key_add", "key_sub", "key_mul", "key_div", "key_point",
                                                 "key_percent", "key_lparen", "key_rparen", "equals",
                                                 "delete"} <= roles
    assert "clear" not in roles  # lineage-21 has none: a long press on delete clears
    assert _control(r, "equals").resource_id == "com.android.calculator2:id/eq"
    assert _control(r, "equals").bounds == [810, 2112, 1080, 2380]
    assert _control(r, "key_mul").content_desc == "multiply"
    assert _control(r, "digit_7").text == "7" and _control(r, "digit_7").bounds == [0, 1308, 270, 1576]


def test_exactcalculator_lineage20_after_equals_has_a_clear_key() -> None:
    r = _read("aosp_exact_result_lineage20.xml")
    assert (r.family, r.screen) == ("aosp", "calculator")
    assert r.visible == {"formula": "12×3", "result": "36", "error": False}
    assert _control(r, "clear").resource_id.endswith(":id/clr")
    assert "delete" not in {c.role for c in r.controls}


def test_google_calculator_reads_the_final_result() -> None:
    r = _read("google_result_final.xml")
    assert (r.package, r.family, r.screen) == ("com.google.android.calculator", "google", "calculator")
    assert r.visible["formula"] == "9+3" and r.visible["result"] == "12"
    assert _control(r, "result").resource_id.endswith(":id/result_final")
    assert _control(r, "equals").resource_id.endswith(":id/eq")


def test_samsungs_one_field_is_no_result_before_equals() -> None:
    r = _read("samsung_one_field.xml")
    assert (r.family, r.screen) == ("samsung", "calculator")
    assert r.visible["formula"] == "5+2" and r.visible["result"] is None
    assert _control(r, "digit_5").resource_id.endswith("calc_keypad_btn_05")


def test_the_preview_is_the_result_when_no_final_one_shows() -> None:
    """Google's build shows `result_preview` while typing, `result_final` after "="."""
    els = _elements(OWN / "google_result_final.xml")
    els = [e.model_copy(update={"resource_id": e.resource_id.replace("result_final", "result_preview"),
                                "text": "12" if e.resource_id.endswith("result_final") else e.text}) for e in els]
    r = read_screen(els)
    assert r.visible["result"] == "12" and _control(r, "result").resource_id.endswith("result_preview")


def test_an_error_is_read_as_one() -> None:
    els = [e.model_copy(update={"text": "Can't divide by 0"}) if e.resource_id.endswith(":id/result") else e
           for e in _elements(OWN / "aosp_exact_result_lineage20.xml")]
    r = read_screen(els)
    assert r.visible["result"] == "Can't divide by 0" and r.visible["error"] is True


# --- (3) what is not a calculator ---------------------------------------------------------------

def test_a_foreign_calculator_app_is_not_recognised() -> None:
    r = read_screen(_elements(OWN / "aosp_exact_typing_lineage21.xml"), package="com.example.calc")
    assert r.app is None and r.screen is None and "com.example.calc" in r.problems[0]


@pytest.mark.parametrize("xml", sorted(REAL.glob("*/*/*.xml")), ids=lambda p: f"{p.parent.name}-{p.stem}")
def test_other_apps_screens_are_no_calculator(xml: Path) -> None:
    """A real screen of another app, read as a calculator of any family, is not guessed to be one."""
    if xml.parent.name == APP:
        pytest.skip("a calculator dump")
    els = _elements(xml)
    for fam in (None, "generic", "aosp", "google", "samsung", "xiaomi", "sim"):
        r = driver(APP).read(els, family=fam)
        assert r.screen is None and r.problems, (fam, r.screen)


def test_an_unknown_screen_of_the_calculator_is_not_guessed() -> None:
    """ExactCalculator's history (no keypad) is not the calculator screen."""
    hist = [UIElement.from_px(0, (0, 0, 1080, 2400), (1080, 2400), package="com.android.calculator2",
                              class_name="android.widget.FrameLayout"),
            UIElement.from_px(1, (0, 300, 1080, 2400), (1080, 2400), package="com.android.calculator2",
                              resource_id="com.android.calculator2:id/history_recycler_view", scrollable=True,
                              class_name="androidx.recyclerview.widget.RecyclerView"),
            UIElement.from_px(2, (40, 400, 1040, 500), (1080, 2400), package="com.android.calculator2",
                              resource_id="com.android.calculator2:id/history_result", text="36")]
    r = read_screen(hist)
    assert (r.app, r.family, r.screen) == (APP, "aosp", "history")
    assert r.visible == {"history": ["36"]}
    r = read_screen(hist[:1] + [UIElement.from_px(1, (40, 400, 1040, 500), (1080, 2400),
                                                  package="com.android.calculator2", text="Settings")])
    assert (r.app, r.screen) == (APP, None) and r.problems


# --- the data is cited; the skills hold no literal the data owns -------------------------------

def test_every_selector_of_a_phone_family_is_cited() -> None:
    spec = load_spec(APP)
    uncited = [(fam, role) for fam in ("aosp", "google", "samsung", "xiaomi", "sim")
               for role, sels in spec.families[fam].roles.items() for s in sels if not s.cite]
    assert not uncited, uncited


SKILL_FILES = [ROOT / "transfer/oracle/skills/calculator.py", ROOT / "transfer/oracle/solutions/calculator.py"]


def _strings(path: Path) -> set[str]:
    """The module's plain string literals, leaving out subscripts (``inst.params["a"]``)."""
    out, prev = set(), None
    for tok in tokenize.generate_tokens(io.StringIO(path.read_text("utf-8")).readline):
        if tok.type == tokenize.STRING and not tok.string.startswith(('"""', "'''", 'f"', "f'")) and \
                not (prev is not None and prev.string == "["):
            out.add(tok.string[1:-1])
        if tok.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT):
            prev = tok
    return out


# expression characters a skill maps to key roles (the key's face is not how it is found)
NOT_CONTROLS = {"+", "-", "−", "*", "×", "x", "X", "/", "÷", ".", ",", "%", "^", "√", "π", "!", "e", "(", ")", "=",
                "⌫", "0"}


@pytest.mark.parametrize("path", SKILL_FILES, ids=lambda p: p.parent.name)
def test_the_calculator_skills_hold_no_id_or_label_literal(path: Path) -> None:
    spec = load_spec(APP)
    keys = {r for f in spec.families.values() for r in f.roles} | {k for f in spec.families.values() for k in f.texts}
    values: set[str] = set()
    for fam in spec.families.values():
        for sels in fam.roles.values():
            for s in sels:
                values |= {v for v in (s.rid, s.desc, s.text, s.label) if v}
                values |= {v.rsplit("/", 1)[-1] for v in (s.rid,) if v and ":id/" in v}
    found = sorted(s for s in _strings(path) if s in values and s not in keys and s not in NOT_CONTROLS)
    assert not found, f"literals the data owns, in {path.name}: {found}"
    src = path.read_text("utf-8")
    for pattern in (r"\bctx\.t\(", r"\bctx\.flavor\b", r"\brid=", r"\bdesc=", r"\bctx\.(find|find_all|has)\("):
        assert not re.search(pattern, src), (path.name, pattern)


# --- the skills drive AOSP's keypad ---------------------------------------------------------------



def _obs(els: list[UIElement], package: str = "com.android.calculator2") -> Any:
    from actionmap.observation import Foreground, Observation, Screen

    return Observation(screen=Screen(width=1080, height=2400), elements=els, image_format="none",
                       foreground=Foreground(app=APP, package=package))


def test_the_skills_key_an_expression_on_aosps_pad_and_clear_with_a_long_press() -> None:
    from actionmap.actions import LongPress, Tap
    from transfer.oracle.base import Ctx
    from transfer.oracle.skills import calculator as C

    els = _elements(OWN / "aosp_exact_typing_lineage21.xml")
    idx = {e.resource_id.rsplit("/", 1)[-1]: e.index for e in els if e.resource_id}
    ctx = Ctx(obs=_obs(els), flavor="aosp", families={APP: "aosp"})
    actions, _ = _drive(C.type_expression(ctx, "(7×4)−1÷2"), [_obs(els)] * 9)
    assert actions == [Tap(target=idx[k]) for k in ("lparen", "digit_7", "op_mul", "digit_4", "rparen", "op_sub",
                                                    "digit_1", "op_div", "digit_2")]
    # lineage-21 has no clear key: a long press on delete clears (the formula then reads empty)
    cleared = [e.model_copy(update={"text": ""}) if e.resource_id.endswith(":id/formula") else e for e in els]
    actions, _ = _drive(C.clear(ctx), [_obs(els), _obs(cleared)])
    assert actions[-1] == LongPress(target=idx["del"])


def test_the_compute_skill_reads_googles_final_result() -> None:
    from actionmap.actions import Tap
    from transfer.oracle.base import Ctx
    from transfer.oracle.skills import calculator as C

    els = _elements(OWN / "google_result_final.xml")
    pkg = "com.google.android.calculator"
    idx = {e.resource_id.rsplit("/", 1)[-1]: e.index for e in els if e.resource_id}
    empty = [e.model_copy(update={"text": ""}) if e.resource_id.endswith((":id/formula", ":id/result_final")) else e
             for e in els]
    ctx = Ctx(obs=_obs(empty, pkg), flavor="aosp", families={APP: "google"})
    replies = [_obs(empty, pkg)] * 5 + [_obs(els, pkg)]
    actions, shown = _drive(C.compute(ctx, "9+3"), replies)
    assert actions[-4:] == [Tap(target=idx["digit_9"]), Tap(target=idx["op_add"]), Tap(target=idx["digit_3"]),
                            Tap(target=idx["eq"])]
    assert shown == "12"


# --- the simulator's aosp flavor is read with AOSP's own selectors --------------------------------

def test_the_aosp_family_holds_no_simulator_fallback() -> None:
    """The simulator's aosp flavor follows ExactCalculator's layouts, so the aosp family needs none."""
    spec = load_spec(APP)
    assert not [(role, s.cite) for role, sels in spec.families["aosp"].roles.items() for s in sels
                if "s2r simulator" in (s.cite or "")]


def test_the_simulators_aosp_calculator_reads_through_exactcalculators_selectors() -> None:
    pytest.importorskip("playwright")
    import sys

    sys.path.insert(0, str(Path(__file__).parent))
    from _simhelpers import fresh, run, step

    from actionmap.actions import Tap
    from transfer.oracle.skills import calculator as C

    env = fresh("aosp", {"start": {"app": "calculator"}})
    try:
        run(env, C.type_expression, expression="12×3")
        r = read_screen(env.observe().elements, app=APP, family="aosp")
        assert (r.package, r.screen) == ("com.android.calculator2", "calculator"), r.problems
        # while typing: the formula and the live preview in `result`; `del`, no `clr` (pad_operator_one_col.xml)
        assert r.visible == {"formula": "12×3", "result": "36", "error": False}
        roles = {c.role for c in r.controls}
        assert {"delete", "equals", "key_mul", "advanced_toggle"} <= roles and "clear" not in roles
        assert "key_power" not in roles  # on the advanced pad, which only peeks
        run(env, C.press_key, ch="=")
        r = read_screen(env.observe().elements, app=APP, family="aosp")
        # after "=": the result takes the formula's place (Calculator.onResult), `clr` stands where `del` was
        assert r.visible["result"] == "36" and r.visible["formula"] is None
        assert _control(r, "clear").resource_id == "com.android.calculator2:id/clr"
        # the advanced pad, tapped in, shows its keys and covers the numeric ones
        obs = step(env, Tap(target=_control(r, "advanced_toggle").index))
        r = read_screen(obs.elements, app=APP, family="aosp")
        roles = {c.role for c in r.controls}
        assert {"key_power", "key_sqrt", "key_lparen", "key_percent", "numeric_pad"} <= roles and "digit_7" not in roles
        # History is the overflow's first item (res/menu/activity_calculator.xml)
        step(env, Tap(target=_control(r, "numeric_pad").index))
        obs = step(env, Tap(target=next(e for e in env.observe().elements if e.content_desc == "More options").index))
        obs = step(env, Tap(target=next(e for e in obs.elements if e.text == "History").index))
        r = read_screen(obs.elements, app=APP, family="aosp")
        assert r.screen == "history" and r.visible == {"history": ["36"]}, (r.screen, r.problems)
    finally:
        env.close()
