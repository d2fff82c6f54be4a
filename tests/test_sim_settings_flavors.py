"""The simulated Settings app in its `aosp` and `google` flavors is AOSP's Settings, and reads like it.

Why: the virtual phone dumps whatever the simulator draws, so the `aosp` flavor must be AOSP Settings
of Android 14 as its sources define it (settings_aosp.js cites them per screen): the homepage's
app bar, search bar, condition cards and top-level list; SettingsLib pages with the collapsing
toolbar; PrimarySwitchPreference rows (a switch described by its title beside a row that opens a
page); MainSwitchPreference bars; radio pages; SystemUI's brightness dialog; Do Not Disturb's
button. The `google` flavor is the same app on a Pixel, with Google's overlays where captures show
them. Each test drives the screens with real taps and checks both what the screen shows (read by
the app UI layer, as a phone's dump would be) and the world a judge reads.

The screen-equivalence test reads the simulator's screen in the state of each real dump
(``tests/_recipes_settings.py``) and the real dump itself through the app UI layer: same app,
family, screen, roles and ``visible`` keys.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from actionmap.actions import Key, OpenApp, Scroll, Tap
from actionmap.geometry import px_to_point
from actionmap.observation import Observation, UIElement

pytest.importorskip("playwright")

from device.apps import driver, read_screen  # noqa: E402
from sim.env import SimEnv  # noqa: E402
from _recipes_settings import RECIPES  # noqa: E402
from _screens import compare  # noqa: E402

S_ID = "com.android.settings:id/"


@pytest.fixture(scope="module")
def envs(sim_pool: Any) -> Iterator[Callable[[str], SimEnv]]:
    """One SimEnv per flavor on the Pixel profile (1080×2400), reset by each test."""
    made: dict[str, SimEnv] = {}

    def get(flavor: str) -> SimEnv:
        if flavor not in made:
            made[flavor] = SimEnv("pixel", flavor=flavor, pool=sim_pool, screenshots=False)  # type: ignore[arg-type]
        return made[flavor]

    yield get
    for env in made.values():
        env.close()


def _start(env: SimEnv, settings: dict[str, Any] | None = None) -> Observation:
    env.reset({"settings": settings} if settings else None)
    obs, _ = env.step(OpenApp(app="settings"))
    return obs


def _el(obs: Observation, pred: Callable[[UIElement], bool], what: str) -> UIElement:
    el = next((e for e in obs.elements if pred(e)), None)
    assert el is not None, f"not on screen: {what}"
    return el


def _title(text: str) -> Callable[[UIElement], bool]:
    return lambda e: e.resource_id == "android:id/title" and e.text == text


def _tap(env: SimEnv, pred: Callable[[UIElement], bool], what: str) -> Observation:
    obs = env.observe()
    for _ in range(5):
        if any(pred(e) for e in obs.elements):
            break
        obs, _ = env.step(Scroll(direction="down"))
    obs, info = env.step(Tap(target=_el(obs, pred, what).index))
    assert info.invalid_action is None and "page_error" not in info.extra, (info.invalid_action, info.extra)
    return obs


def _read(obs: Observation, manufacturer: str | None = None) -> Any:
    return read_screen(obs.elements, package=obs.foreground.package, manufacturer=manufacturer)


# --- screen equivalence with the real dumps ---------------------------------------------------------

@pytest.mark.parametrize("key", sorted(RECIPES))
def test_the_simulators_screen_reads_like_the_real_dump(envs: Callable[[str], SimEnv], key: str) -> None:
    flavor, fn = RECIPES[key]
    env = envs(flavor)
    env.reset()
    fn(env)
    els = env.observe().elements
    assert compare(key, els) == []
    # the same with the manufacturer a virtual Pixel-profile phone reports: both read as Google's then
    assert compare(key, els, "Google") == []


def test_the_equivalence_is_not_vacuous(envs: Callable[[str], SimEnv]) -> None:
    """Without the conditions the real phone had on, the homepage lacks its condition card: the
    comparison says so (it can fail)."""
    env = envs("aosp")
    obs = _start(env)
    diff = compare("aosp/settings/settings_home_oem_skin_1080x2400", obs.elements)
    assert diff and "suggestion_expand" in diff[0]


# --- the aosp flavor: AOSP Settings' own screens ---------------------------------------------------------

def test_the_homepage_is_aosps_top_level_list(envs: Callable[[str], SimEnv]) -> None:
    env = envs("aosp")
    obs = _start(env)
    assert obs.foreground.package == "com.android.settings"
    ids = {e.resource_id for e in obs.elements}
    assert {S_ID + x for x in ("settings_homepage_container", "app_bar", "homepage_title", "search_bar",
                               "search_action_bar", "search_action_bar_title", "main_content_scrollable_container",
                               "homepage_container", "recycler_view", "text_frame")} <= ids
    assert S_ID + "title" not in ids and S_ID + "toolbar" not in ids  # the simulator's own app bar is gone
    assert S_ID + "account_avatar" not in ids  # AOSP keeps the avatar invisible without an account provider
    r = _read(obs)
    assert (r.app, r.family, r.screen) == ("settings", "aosp", "settings_home")
    assert r.visible["entries"][:4] == ["Network & internet", "Connected devices", "Apps", "Notifications"]
    assert r.visible["rows"][1] == {"title": "Connected devices", "summary": "Bluetooth, pairing"}
    # the rest of top_level_settings.xml, in its order, below the fold
    seen = list(r.visible["entries"])
    for _ in range(4):
        obs, _ = env.step(Scroll(direction="down"))
        seen += [t for t in _read(obs).visible["entries"] if t not in seen]
    assert seen == ["Network & internet", "Connected devices", "Apps", "Notifications", "Battery", "Storage",
                    "Sound & vibration", "Display", "Wallpaper & style", "Accessibility", "Security & privacy",
                    "Location", "Safety & emergency", "Passwords & accounts", "System", "About phone"]


def test_one_condition_is_a_full_tile_and_two_collapse_into_a_header(envs: Callable[[str], SimEnv]) -> None:
    env = envs("aosp")
    obs = _start(env, {"airplane_mode": True})
    tile = _el(obs, _title("Airplane mode is on"), "the airplane condition")
    off = _el(obs, lambda e: e.resource_id == S_ID + "first_action", "its action")
    assert off.text == "Turn off" and tile.bounds.top < _el(obs, _title("Network & internet"), "the list").bounds.top
    env.step(Tap(target=off.index))
    assert env.read_state().settings.airplane_mode is False
    assert not any(_title("Airplane mode is on")(e) for e in env.observe().elements)

    obs = _start(env, {"airplane_mode": True, "do_not_disturb": True})
    head = _el(obs, lambda e: e.class_name.endswith("CardView") and e.content_desc == "Show", "the condition header")
    box = _el(obs, lambda e: e.resource_id == S_ID + "header_icons_container", "its icons")
    assert sum(1 for e in obs.elements if e.resource_id == "android:id/icon" and e.bounds.top >= box.bounds.top
               and e.bounds.bottom <= box.bounds.bottom) == 2
    assert "suggestion_expand" in {c.role for c in _read(obs).controls}
    obs, _ = env.step(Tap(target=head.index))
    assert {e.text for e in obs.elements if e.resource_id == "android:id/title"} >= {"Airplane mode is on",
                                                                                     "Do Not Disturb is on"}


def test_network_and_internet_and_the_wifi_toggle(envs: Callable[[str], SimEnv]) -> None:
    env = envs("aosp")
    _start(env, {"wifi": False, "airplane_mode": False})
    obs = _tap(env, _title("Network & internet"), "Network & internet")
    r = _read(obs)
    assert (r.screen, r.visible["title"]) == ("settings_page", "Network & internet")
    assert _el(obs, lambda e: e.resource_id == S_ID + "collapsing_toolbar", "the toolbar").content_desc == "Network & internet"
    assert r.visible["toggles"] == {"Airplane mode": False}
    assert [x["title"] for x in r.visible["rows"]][:3] == ["Internet", "SIMs", "Airplane mode"]
    obs = _tap(env, _title("Internet"), "Internet")
    assert _read(obs).visible["toggles"] == {"Wi‑Fi": False}
    assert any(e.text == "To see available networks, turn Wi‑Fi on." for e in obs.elements)
    sw = driver("settings").switch_for(driver("settings").matcher(obs.elements, "aosp", obs.foreground.package), "Wi‑Fi")
    assert sw is not None and sw.resource_id == "android:id/switch_widget" and not sw.clickable  # the row toggles
    obs, _ = env.step(Tap(target=sw.index))
    assert env.read_state().settings.wifi is True and _read(obs).visible["toggles"] == {"Wi‑Fi": True}
    assert any(e.text == "HomeNet-5G" for e in obs.elements)


def test_a_primary_switch_row_toggles_by_its_switch_and_opens_its_page(envs: Callable[[str], SimEnv]) -> None:
    env = envs("aosp")
    _start(env, {"dark_mode": False})
    obs = _tap(env, _title("Display"), "Display")
    sw = _el(obs, lambda e: e.resource_id == S_ID + "switchWidget" and e.content_desc == "Dark theme", "Dark theme's switch")
    assert sw.clickable and not sw.checked
    obs, _ = env.step(Tap(target=sw.index))
    assert env.read_state().settings.dark_mode is True and _read(obs).visible["title"] == "Display"  # no navigation
    obs = _tap(env, _title("Dark theme"), "the Dark theme row")
    r = _read(obs)
    assert r.visible["title"] == "Dark theme" and r.visible["toggles"]["Use Dark theme (main switch)"] is True
    bar = _el(obs, lambda e: e.resource_id == S_ID + "settingslib_main_switch_bar", "the main switch bar")
    env.step(Tap(target=bar.index))
    assert env.read_state().settings.dark_mode is False


def test_brightness_opens_systemuis_dialog(envs: Callable[[str], SimEnv]) -> None:
    env = envs("aosp")
    _start(env, {"brightness": 40, "adaptive_brightness": False})
    obs = _tap(env, _title("Display"), "Display")
    assert _read(obs).visible["rows"][1] == {"title": "Brightness level", "summary": "16%"}
    obs = _tap(env, _title("Brightness level"), "Brightness level")
    slider = _el(obs, lambda e: e.resource_id == "com.android.systemui:id/slider", "the brightness slider")
    assert slider.content_desc == "Display brightness" and slider.package == "com.android.systemui"
    b = slider.bounds
    env.step(Tap(point=px_to_point((b.left + b.right * 3) / 4, b.center[1], 1080, 2400)))
    assert env.read_state().settings.brightness > 150
    obs, _ = env.step(Key(key="back"))
    assert _read(obs).visible["title"] == "Display"


def test_screen_timeout_is_a_page_of_radio_rows(envs: Callable[[str], SimEnv]) -> None:
    env = envs("aosp")
    _start(env, {"screen_off_timeout_ms": 60_000})
    _tap(env, _title("Display"), "Display")
    obs = _tap(env, _title("Screen timeout"), "Screen timeout")
    r = _read(obs)
    assert r.visible["title"] == "Screen timeout" and r.visible["selected"] == "1 minute"
    assert [o["label"] for o in r.visible["options"]] == ["15 seconds", "30 seconds", "1 minute", "2 minutes",
                                                           "5 minutes", "10 minutes", "30 minutes"]
    assert all(e.resource_id == "android:id/checkbox" for e in obs.elements if e.class_name.endswith("RadioButton"))
    obs = _tap(env, _title("10 minutes"), "10 minutes")
    assert env.read_state().settings.screen_off_timeout_ms == 600_000 and _read(obs).visible["selected"] == "10 minutes"


def test_font_size_steps_with_make_larger_and_smaller(envs: Callable[[str], SimEnv]) -> None:
    env = envs("aosp")
    _start(env, {"font_scale": 1.0})
    _tap(env, _title("Display"), "Display")
    obs = _tap(env, _title("Display size and text"), "Display size and text")
    bar = _el(obs, lambda e: e.class_name.endswith("SeekBar") and e.content_desc == "Font size", "the font size slider")
    assert bar.resource_id == "android:id/seekbar"
    larger = next(e for e in obs.elements if e.resource_id == S_ID + "icon_end_frame"
                  and e.bounds.top <= bar.bounds.center[1] <= e.bounds.bottom)
    assert larger.content_desc == "Make larger"
    env.step(Tap(target=larger.index))
    assert env.read_state().settings.font_scale == pytest.approx(1.15)
    obs = env.observe()
    smaller = next(e for e in obs.elements if e.resource_id == S_ID + "icon_start_frame"
                   and e.bounds.top <= bar.bounds.center[1] <= e.bounds.bottom)
    env.step(Tap(target=smaller.index))
    env.step(Tap(target=smaller.index))
    assert env.read_state().settings.font_scale == pytest.approx(0.85)


def test_do_not_disturb_is_a_button_and_the_ring_slider_sets_vibrate(envs: Callable[[str], SimEnv]) -> None:
    env = envs("aosp")
    _start(env, {"do_not_disturb": False, "ringer_mode": "normal"})
    obs = _tap(env, _title("Sound & vibration"), "Sound & vibration")
    ring = _el(obs, lambda e: e.class_name.endswith("SeekBar") and e.content_desc == "Ring volume", "the ring slider")
    b = ring.bounds
    env.step(Tap(point=px_to_point(b.left + 1, b.center[1], 1080, 2400)))
    assert env.read_state().settings.ringer_mode == "vibrate"
    assert not any(e.class_name.endswith("RadioButton") for e in env.observe().elements)  # no ring-mode list
    obs = _tap(env, _title("Do Not Disturb"), "Do Not Disturb")
    on = _el(obs, lambda e: e.resource_id == S_ID + "zen_mode_settings_turn_on_button", "Turn on now")
    assert on.text == "Turn on now" and not _read(obs).visible["toggles"]
    obs, _ = env.step(Tap(target=on.index))
    assert env.read_state().settings.do_not_disturb is True
    assert _el(obs, lambda e: e.resource_id == S_ID + "zen_mode_settings_turn_off_button", "Turn off now").text == "Turn off now"


def test_about_phone_and_the_device_name_dialog(envs: Callable[[str], SimEnv]) -> None:
    env = envs("aosp")
    _start(env)
    obs = _tap(env, _title("About phone"), "About phone")
    ws = env.read_state()
    r = _read(obs)
    rows = {x["title"]: x["summary"] for x in r.visible["rows"]}
    assert rows["Device name"] == ws.settings.device_name and rows["Model"] == ws.device.model
    obs = _tap(env, _title("Device name"), "Device name")
    r = _read(obs)
    assert (r.screen, r.visible["title"]) == ("settings_dialog", "Device name")
    assert [(c.resource_id, c.text) for c in r.controls if c.role == "dialog_button"] == [
        ("android:id/button2", "Cancel"), ("android:id/button1", "OK")]
    from actionmap.actions import TypeText

    edit = _el(obs, lambda e: e.resource_id == "android:id/edit", "the name field")
    env.step(Tap(target=edit.index))
    env.step(TypeText(text="Kitchen phone", clear=True))
    obs = env.observe()
    if obs.keyboard_visible:
        obs, _ = env.step(Key(key="back"))
    env.step(Tap(target=_el(obs, lambda e: e.resource_id == "android:id/button1", "OK").index))
    assert env.read_state().settings.device_name == "Kitchen phone"


# --- the google flavor: a Pixel's Settings ------------------------------------------------------------------

def test_a_pixels_homepage_carries_the_google_account_avatar(envs: Callable[[str], SimEnv]) -> None:
    env = envs("google")
    obs = _start(env)
    avatar = _el(obs, lambda e: e.resource_id == S_ID + "account_avatar", "the account avatar")
    assert avatar.content_desc == "Profile picture, double tap to open Google Account"
    r = _read(obs)
    assert (r.family, r.screen) == ("google", "settings_home")  # told by its own mark, no manufacturer given
    assert read_screen(obs.elements, package=obs.foreground.package, manufacturer="Google").family == "google"
    # the aosp flavor's homepage is not a Pixel's
    aosp = _start(envs("aosp"))
    assert _read(aosp).family == "aosp"


def test_a_pixels_auto_rotate_is_a_primary_switch_and_its_search_is_googles(envs: Callable[[str], SimEnv]) -> None:
    env = envs("google")
    _start(env, {"auto_rotate": False})
    obs = _tap(env, _title("Display"), "Display")
    for _ in range(4):  # to the bottom of the page, where the row and its summary show whole
        obs, _ = env.step(Scroll(direction="down"))
    sw = _el(obs, lambda e: e.resource_id == S_ID + "switchWidget" and e.content_desc == "Auto-rotate screen", "its switch")
    row = next(x for x in _read(obs, "Google").visible["rows"] if x["title"] == "Auto-rotate screen")
    assert row == {"title": "Auto-rotate screen", "summary": "Off", "switch": False}
    env.step(Tap(target=sw.index))
    assert env.read_state().settings.auto_rotate is True
    obs = _start(env)
    obs = _tap(env, lambda e: e.resource_id == S_ID + "search_action_bar", "the search bar")
    field = _el(obs, lambda e: e.editable, "the search field")
    assert field.resource_id == "com.google.android.settings.intelligence:id/open_search_view_edit_text"
    assert not any(e.resource_id.startswith("com.google.android.settings.intelligence:id/search_") for e in obs.elements)
    r = read_screen(obs.elements, package="com.google.android.settings.intelligence")
    assert (r.app, r.family, r.screen) == ("settings", "google", "search")
