"""Google Calculator and Files (DocumentsUI as a Pixel builds it) in the simulator's `google` flavor.

Google Calculator (sim/static/apps/google/calculator.js) is modelled on public test code written
against com.google.android.calculator: ImageButton keys described by their face, one smart
parentheses key, `result_preview` while typing and `result_final` after "=". Files on a Pixel is
AOSP's DocumentsUI under com.google.android.documentsui: the same screens as the aosp flavor, only
the package differs. Both are read by the app UI layer's `google` family.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from _screens import reading
from actionmap.actions import Key, OpenApp, Tap
from actionmap.observation import Observation
from sim.env import SimEnv
from transfer.oracle.base import Ctx, Skill
from transfer.oracle.drive import run_skill
from transfer.oracle.skills import calculator as C
from transfer.oracle.skills import files as F

GC = "com.google.android.calculator"
DOCS = "com.google.android.documentsui"


def fresh(app: str, flavor: str = "google") -> SimEnv:
    env = SimEnv("pixel", flavor, screenshots=False)
    env.reset({"start": {"app": app}})
    return env


def run(env: SimEnv, make: Callable[[Ctx], Skill]) -> Any:
    _, _, value = run_skill(env, make, flavor=env.flavor, max_steps=80)
    return value


def rid(obs: Observation, name: str, pkg: str = GC) -> Any:
    return next((e for e in obs.elements if e.resource_id == f"{pkg}:id/{name}"), None)


# --------------------------------------------------------------------------------------- calculator
def test_calculator_is_google_calculator() -> None:
    env = fresh("calculator")
    obs = env.observe()
    assert obs.foreground.package == GC
    r = reading(obs.elements)
    assert (r.app, r.family, r.screen) == ("calculator", "google", "calculator")
    # keys are ImageButtons described by their face, with no text (GC-EM); AC, the one "( )" key and % on the pad
    keys = {e.resource_id.split("/")[-1]: e for e in obs.elements if e.class_name == "android.widget.ImageButton"}
    assert {f"digit_{d}" for d in range(10)} <= set(keys)
    assert {k: keys[k].content_desc for k in ("digit_7", "op_add", "op_mul", "parens", "eq", "clr")} == {
        "digit_7": "7", "op_add": "plus", "op_mul": "multiply", "parens": "left or right parenthesis",
        "eq": "equals", "clr": "clear"}
    assert all(k.text == "" for k in keys.values())
    assert "lparen" not in keys and "rparen" not in keys
    assert {c.role for c in r.controls} >= {"key_parens", "key_percent", "key_sqrt", "key_pi", "key_power",
                                            "key_fact", "clear", "delete", "equals", "formula", "advanced_toggle"}
    # every id is Google Calculator's own (the package prefixes the app's ids)
    assert not any(e.resource_id.startswith("com.android.calculator2:") for e in obs.elements)


def test_preview_while_typing_then_final_result() -> None:
    env = fresh("calculator")
    run(env, C.clear)
    run(env, lambda c: C.type_expression(c, "123×456"))
    obs = env.observe()
    assert rid(obs, "formula").text == "123×456"
    assert rid(obs, "result_preview").text == "56088" and rid(obs, "result_final") is None
    assert reading(obs.elements).visible == {"formula": "123×456", "result": "56088", "error": False}
    run(env, lambda c: C.press_key(c, "="))
    obs = env.observe()
    assert rid(obs, "result_final").text == "56088" and rid(obs, "result_preview") is None
    assert reading(obs.elements).visible["result"] == "56088"
    assert env.read_state().calculator_display == "56088"


@pytest.mark.parametrize(("expr", "shown"), [
    ("(12+30)×4−5", "163"),   # the smart parentheses key opens, then closes
    ("50%×8", "4"),
    ("753−951", "−198"),       # Android's minus sign (GC-EM UITests: "−198")
    ("2^10+√16", "1028"),      # the scientific row's keys, shown without expanding
    ("7÷0", "Can't divide by 0"),
])
def test_compute(expr: str, shown: str) -> None:
    env = fresh("calculator")
    assert run(env, lambda c: C.compute(c, expr)) == shown
    r = reading(env.observe().elements)
    assert r.visible["result"] == shown and r.visible["error"] is (shown == "Can't divide by 0")


def test_scientific_panel_expands_and_history_opens() -> None:
    env = fresh("calculator")
    obs = env.observe()
    assert rid(obs, "fun_sin") is None
    toggle = rid(obs, "collapse_expand")
    assert toggle.content_desc == "Show scientific buttons"
    obs, _ = env.step(Tap(target=toggle.index))
    assert rid(obs, "fun_sin").content_desc == "sine" and rid(obs, "const_e") is not None
    assert rid(obs, "collapse_expand").content_desc == "Hide scientific buttons"
    assert run(env, lambda c: C.compute(c, "e×2")) == "5.43656365692"
    # the overflow ("More options") lists History; the history shows what was computed
    obs = env.observe()
    more = next(e for e in obs.elements if e.content_desc == "More options")
    obs, _ = env.step(Tap(target=more.index))
    item = next(e for e in obs.elements if e.resource_id == f"{GC}:id/title" and e.text == "History")
    obs, _ = env.step(Tap(target=item.index))
    r = reading(obs.elements)
    assert (r.screen, r.family) == ("history", "google") and "5.43656365692" in r.visible["history"]
    obs, _ = env.step(Key(key="back"))
    assert reading(obs.elements).screen == "calculator"


# --------------------------------------------------------------------------------------- files
def _shape(obs: Observation, pkg: str) -> list[tuple[str, str, str, str]]:
    """The app's elements as (class, bare id, text, description): what must not differ between builds."""
    out = []
    for e in obs.elements:
        if e.package != pkg:
            continue
        out.append((e.class_name, e.resource_id.replace(f"{pkg}:id/", ""), e.text, e.content_desc))
    return out


def test_files_is_documentsui_under_googles_package() -> None:
    g, a = fresh("files"), fresh("files", "aosp")
    for env in (g, a):
        run(env, lambda c: F.open_folder(c, "/sdcard/Download"))
    og, oa = g.observe(), a.observe()
    assert og.foreground.package == DOCS and oa.foreground.package == "com.android.documentsui"
    assert _shape(og, DOCS) == _shape(oa, "com.android.documentsui")
    assert not any(e.resource_id.startswith("com.android.documentsui:") for e in og.elements)
    r = reading(og.elements)
    assert (r.app, r.family) == ("files", "google") and r.visible["items"] == reading(oa.elements).visible["items"]
    assert "setup.apk" in r.visible["items"]


def test_files_oracle_flow_in_google() -> None:
    env = fresh("files")
    made = run(env, lambda c: F.create_folder(c, "/sdcard/Documents", "Pixel notes"))
    assert made == "/sdcard/Documents/Pixel notes"
    run(env, lambda c: F.rename_file(c, "/sdcard/Documents/notes.txt", "todo.txt"))
    run(env, lambda c: F.move_file(c, "/sdcard/Documents/todo.txt", "/sdcard/Documents/Pixel notes"))
    paths = {f.path for f in env.read_state().files or []}
    assert "/sdcard/Documents/Pixel notes/todo.txt" in paths and "/sdcard/Documents/notes.txt" not in paths
    # reopened from the launcher, Files is still Google's build
    obs, _ = env.step(Key(key="home"))
    obs, _ = env.step(OpenApp(app="files"))
    assert obs.foreground.package == DOCS
