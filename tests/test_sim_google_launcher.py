"""Pixel Launcher in the simulator's `google` flavor (sim/static/apps/google/launcher.js).

Its home page is modelled on a real Pixel Launcher dump (tests/fixtures/real-apps/google/launcher/):
the app UI layer must read the sim's home as it reads the real one (same roles, same visible keys),
every app must open from the home page, the drawer and the drawer's search, and the other flavors
keep their own launcher.
"""

from __future__ import annotations

import pytest

from _recipes_launcher import RECIPES
from _screens import compare, reading
from actionmap.actions import Key, OpenApp, Scroll, Tap, TypeText
from actionmap.observation import Observation, UIElement
from sim.env import SimEnv

PKG = "com.google.android.apps.nexuslauncher"
#: the phone's apps (S2R.order minus the launcher) and their launcher labels
LABELS = {"phone": "Phone", "messages": "Messages", "contacts": "Contacts", "clock": "Clock", "calendar": "Calendar",
          "calculator": "Calculator", "files": "Files", "settings": "Settings"}


def home(flavor: str = "google") -> tuple[SimEnv, Observation]:
    env = SimEnv("pixel", flavor, screenshots=False)
    env.reset()
    obs, _ = env.step(Key(key="home"))
    return env, obs


def icon(obs: Observation, label: str) -> UIElement:
    """The launcher icon labelled ``label`` (a TextView of the launcher's package)."""
    return next(e for e in obs.elements if e.package == PKG and e.class_name.endswith("TextView") and e.text == label)


@pytest.mark.parametrize("key", sorted(RECIPES))
def test_screen_reads_like_the_real_dump(key: str) -> None:
    flavor, drive = RECIPES[key]
    env = SimEnv("pixel", flavor, screenshots=False)
    env.reset()
    drive(env)
    assert compare(key, env.observe().elements) == []


def test_home_lists_every_app_as_pixel_launcher_does() -> None:
    _, obs = home()
    r = reading(obs.elements)
    assert (r.app, r.family, r.screen) == ("launcher", "google", "launcher_home")
    assert obs.foreground.package == PKG
    assert set(r.visible["workspace_icons"]) | set(r.visible["hotseat"]) == set(LABELS.values())
    assert r.visible["search_bar"] is True and r.visible["smartspace_date"] == "Mon, Mar 15"  # the sim's date
    # icons are BubbleTextViews: no id, the label as text and description (the prediction says so)
    icons = [e for e in obs.elements if e.package == PKG and e.class_name == "android.widget.TextView" and e.text]
    assert icons and all(e.resource_id == "" and e.clickable and e.long_clickable for e in icons if e.text in LABELS.values())
    described = {e.content_desc for e in icons if e.text in LABELS.values()}
    assert {d for d in described if not d.startswith("Predicted app: ")} <= set(LABELS.values())
    assert sum(d.startswith("Predicted app: ") for d in described) == 1
    # the hotseat sits below the workspace's icons, the search bar below the hotseat's icons
    ws = [e for e in icons if e.text in r.visible["workspace_icons"] and e.content_desc == e.text]
    seat = [e for e in icons if e.text in r.visible["hotseat"] and e.bounds.top > max(w.bounds.bottom for w in ws)]
    qsb = next(e for e in obs.elements if e.resource_id == f"{PKG}:id/search_container_hotseat")
    assert len(seat) == 4 and all(qsb.bounds.top >= s.bounds.bottom for s in seat)


@pytest.mark.parametrize("app", sorted(LABELS))
def test_every_app_opens_from_the_home_page(app: str) -> None:
    env, obs = home()
    obs, _ = env.step(Tap(target=icon(obs, LABELS[app]).index))
    assert obs.foreground.app == app
    own = {"calculator": "com.google.android.calculator", "files": "com.google.android.documentsui"}
    if app in own:
        assert obs.foreground.package == own[app]


def test_drawer_lists_and_opens_apps() -> None:
    env, obs = home()
    obs, _ = env.step(Scroll(direction="down"))  # the finger moves up: all apps
    r = reading(obs.elements)
    assert (r.screen, r.family) == ("app_drawer", "google")
    assert r.visible["apps"] == sorted(LABELS.values())
    assert {c.role for c in r.controls} >= {"apps_list", "drawer_icon", "all_apps_search"}
    obs, _ = env.step(Tap(target=icon(obs, "Files").index))
    assert (obs.foreground.app, obs.foreground.package) == ("files", "com.google.android.documentsui")
    obs, _ = env.step(Key(key="home"))
    assert reading(obs.elements).screen == "launcher_home"


def test_search_bar_searches_the_apps() -> None:
    env, obs = home()
    qsb = next(e for e in obs.elements if e.content_desc == "Search" and e.package == PKG)
    obs, _ = env.step(Tap(target=qsb.index))
    field = next(e for e in obs.elements if e.resource_id == f"{PKG}:id/search_container_all_apps")
    assert field.focused and field.hint == "Search apps"
    obs, _ = env.step(TypeText(text="calc"))
    assert reading(obs.elements).visible["apps"] == ["Calculator"]
    obs, _ = env.step(Key(key="enter"))  # the IME's action launches the first result
    assert obs.foreground.app == "calculator"
    obs, _ = env.step(Key(key="home"))
    obs, _ = env.step(Scroll(direction="down"))  # reopened, the drawer lists every app again
    assert reading(obs.elements).visible["apps"] == sorted(LABELS.values())


def test_hotseat_predicts_the_last_app_used() -> None:
    env, _ = home()
    env.step(OpenApp(app="calculator"))
    obs, _ = env.step(Key(key="home"))
    r = reading(obs.elements)
    assert r.visible["hotseat"][-1] == "Calculator"
    pred = [c for c in r.controls if c.role == "hotseat_prediction"]
    assert len(pred) == 1
    assert pred[0].content_desc == "Predicted app: Calculator"


@pytest.mark.parametrize("flavor", ["sim", "aosp"])
def test_other_flavors_keep_their_launcher(flavor: str) -> None:
    env, obs = home(flavor)
    assert obs.foreground.package == "com.android.launcher3"
    assert not any(e.package == PKG for e in obs.elements)
    r = reading(obs.elements)
    assert r.screen == "launcher_home" and set(r.visible["apps"]) == set(LABELS.values())
