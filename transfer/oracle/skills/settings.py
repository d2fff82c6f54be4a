"""Oracle skills for Settings and quick settings.

Controls are found by role through the app UI layer (``device/apps/data/settings.yaml``): a
page's rows by their ``row_title``, a row's switch as the Settings driver pairs it (inside the
row, or on the same line), radio options, sliders, the search field, dialog buttons. The way to
each toggle and the labels on it are the family's wording (``ctx.words("settings", "toggles")``:
the rows to open from the homepage, then the switch's row — or the page button that turns it on
and off, where the family has a button rather than a switch), so the same skill runs on every
family whose wording the data holds. Where families differ in kind (a font size radio list or a
stepped slider; the Display page's own brightness slider or SystemUI's brightness dialog), the
family's data says which: a wording or role the family names.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from actionmap.actions import Scroll, Tap, TypeText
from actionmap.geometry import px_to_point
from actionmap.observation import UIElement

from ..base import Ctx, OracleError, Skill, act, back, norm, open_app, scroll_to_role

APP = "settings"


def _driver() -> Any:
    from device.apps import driver

    return driver(APP)


def words(ctx: Ctx, key: str) -> Any:
    return ctx.words(APP, key)


def has_words(ctx: Ctx, key: str) -> bool:
    """Whether the family's data words ``key`` (a control some families have and others lack)."""
    return key in _driver().family(ctx.family(APP)).texts


def has_role(ctx: Ctx, role: str) -> bool:
    """Whether the family's own data names ``role`` (not only the family-free heuristics)."""
    return role in _driver().family(ctx.family(APP)).roles and role not in _driver().family("generic").roles


def toggle_path(ctx: Ctx, field: str) -> dict[str, Any]:
    """How the family reaches ``field``'s switch: {"path": [row, …], "switch": label} or
    {"search": query, "switch": label}; where the page turns it on and off with a button rather than a
    switch (AOSP's Do Not Disturb), {"path": [...], "button": {"on": label, "off": label}}."""
    table = words(ctx, "toggles")
    if field not in table:
        raise OracleError(f"no oracle path for setting {field} ({ctx.family(APP)} family)")
    return dict(table[field])


def _titled(label: str) -> Callable[[UIElement], bool]:
    want = norm(label)
    return lambda e: norm(e.text) == want or norm(e.content_desc) == want


def tap_row(ctx: Ctx, label: str) -> Skill:
    """Scroll to the row titled ``label`` and open it."""
    el = yield from scroll_to_role(ctx, APP, "row_title", pred=_titled(label))
    return (yield from act(ctx, Tap(target=el.index)))


def tap_option(ctx: Ctx, label: str) -> Skill:
    """Choose the radio option labelled ``label`` (a list page or a dialog)."""
    el = yield from scroll_to_role(ctx, APP, "radio_option", pred=_titled(label))
    return (yield from act(ctx, Tap(target=el.index)))


def open_settings(ctx: Ctx) -> Skill:
    yield from open_app(ctx, "settings")
    # the app may reopen on a sub-screen, or under a window it opened (SystemUI's brightness dialog,
    # which no Settings screen names): go back to its root
    for _ in range(6):
        screen = ctx.ui(APP).screen()
        if screen == "settings_home":
            break
        if screen is None or ctx.role(APP, "navigate_up") is not None:
            yield from back(ctx)
        else:
            break
    return ctx.obs


def switch_for(ctx: Ctx, label: str) -> UIElement | None:
    """The switch on the row ``label`` (or the page's main switch labelled so), as the driver pairs them."""
    return _driver().switch_for(ctx.ui(APP), label)


def find_switch(ctx: Ctx, label: str) -> Skill:
    """The switch a person means by ``label``: the page's main switch labelled so (at its top), else the
    one on the row titled so (scrolling to it); None when that row has none."""
    sw = switch_for(ctx, label)
    if sw is None:
        yield from scroll_to_role(ctx, APP, "row_title", pred=_titled(label))
        sw = switch_for(ctx, label)
    return sw


def set_switch(ctx: Ctx, label: str, on: bool) -> Skill:
    """Make the switch on ``label``'s row read ``on`` (tap only if it differs)."""
    sw = yield from find_switch(ctx, label)
    if sw is None:
        raise OracleError(f"no switch on the row {label!r} ({ctx.family(APP)} family)")
    if sw.checked != on:
        yield from act(ctx, Tap(target=sw.index))
        sw = switch_for(ctx, label)
        if sw is None or sw.checked != on:
            raise OracleError(f"switch {label!r} did not change")
    return ctx.obs


def search_for(ctx: Ctx, query: str) -> Skill:
    """Open Settings' search, type ``query`` and open the result titled so."""
    yield from open_settings(ctx)
    yield from act(ctx, Tap(target=ctx.need(APP, "search").index))
    field = yield from scroll_to_role(ctx, APP, "search_field")
    if not field.focused:
        yield from act(ctx, Tap(target=field.index))
    yield from act(ctx, TypeText(text=query, clear=True))
    if ctx.obs.keyboard_visible:
        yield from back(ctx)
    return (yield from tap_row(ctx, query))


def open_toggle_screen(ctx: Ctx, field: str) -> Skill:
    """Navigate to the screen that holds ``field``'s switch; returns how it is set there
    (``toggle_path``'s entry)."""
    how = toggle_path(ctx, field)
    if "search" in how:
        yield from search_for(ctx, how["search"])
    else:
        yield from open_settings(ctx)
        for step in how.get("path") or []:
            yield from tap_row(ctx, step)
    return how


def _page_button(ctx: Ctx, label: str) -> UIElement | None:
    want = norm(label)
    return next((e for e in ctx.roles(APP, "page_button") if norm(e.text) == want), None)


def _button_state(ctx: Ctx, how: dict[str, Any]) -> bool:
    """A toggle set by a page button is on when the page offers to turn it off."""
    if _page_button(ctx, how["button"]["off"]) is not None:
        return True
    if _page_button(ctx, how["button"]["on"]) is not None:
        return False
    raise OracleError(f"no {how['button']['on']!r} / {how['button']['off']!r} button ({ctx.family(APP)} family)")


def set_toggle(ctx: Ctx, field: str, on: bool) -> Skill:
    """Turn a settings toggle on or off through the Settings app."""
    how = yield from open_toggle_screen(ctx, field)
    if "button" not in how:
        return (yield from set_switch(ctx, how["switch"], on))
    if _button_state(ctx, how) != on:
        el = _page_button(ctx, how["button"]["on" if on else "off"])
        assert el is not None  # _button_state found one of the two, and it is not the one showing the state
        yield from act(ctx, Tap(target=el.index))
        if _button_state(ctx, how) != on:
            raise OracleError(f"{field} did not change")
    return ctx.obs


def read_toggle(ctx: Ctx, field: str) -> Skill:
    """Whether the Settings switch (or page button) for ``field`` reads on, as its screen shows it."""
    how = yield from open_toggle_screen(ctx, field)
    if "button" in how:
        return _button_state(ctx, how)
    label = how["switch"]
    sw = yield from find_switch(ctx, label)
    if sw is None:
        raise OracleError(f"no switch on the row {label!r} ({ctx.family(APP)} family)")
    return bool(sw.checked)


def set_slider_fraction(ctx: Ctx, slider_label: str, frac: float) -> Skill:
    """Tap a slider (described ``slider_label``) at the position for ``frac`` of its range."""
    el = yield from scroll_to_role(ctx, APP, "slider", pred=_titled(slider_label))
    return (yield from tap_slider_at(ctx, el, frac))


def tap_slider_at(ctx: Ctx, el: UIElement, frac: float) -> Skill:
    """Tap the slider ``el`` at the position for ``frac`` of its range."""
    b = el.bounds
    dpr_px_pad = max(1, round(10 * ctx.obs.screen.density / 160))  # the track is inset by 10 dp
    x = b.left + dpr_px_pad + frac * (b.width - 2 * dpr_px_pad)
    y = b.center[1]
    return (yield from act(ctx, Tap(point=px_to_point(x, y, ctx.obs.screen.width, ctx.obs.screen.height))))


def open_display(ctx: Ctx) -> Skill:
    yield from open_settings(ctx)
    yield from tap_row(ctx, words(ctx, "display"))
    return ctx.obs


def open_sound(ctx: Ctx) -> Skill:
    yield from open_settings(ctx)
    yield from tap_row(ctx, words(ctx, "sound"))
    return ctx.obs


def set_brightness(ctx: Ctx, level: int) -> Skill:
    """Set brightness (0–255) with the Display → Brightness level slider (on AOSP and Pixels, the
    slider of the SystemUI brightness dialog that row opens)."""
    yield from open_display(ctx)
    yield from tap_row(ctx, words(ctx, "brightness_level"))
    if has_role(ctx, "brightness_slider"):
        # SystemUI's window over Settings: its controls are read as another package's, whichever package
        # the phone reports in front (Settings' in the simulator, SystemUI's on a phone)
        m = _driver().matcher(ctx.obs.elements, ctx.family(APP), _driver().family(ctx.family(APP)).packages[0])
        want = _titled(words(ctx, "brightness_slider"))
        el = next((e for e in m.find("brightness_slider") if want(e)), None)
        if el is None:
            raise OracleError(f"settings: no brightness_slider on screen ({ctx.family(APP)} family)")
        return (yield from tap_slider_at(ctx, el, level / 255))
    return (yield from set_slider_fraction(ctx, words(ctx, "brightness_level"), level / 255))


# --- font size: a radio list (names) or a stepped slider (AOSP's Display size and text) -------------

def _font_seekbar(ctx: Ctx) -> UIElement:
    want = norm(words(ctx, "font_slider"))
    el = next((e for e in ctx.roles(APP, "slider") if norm(e.content_desc) == want), None)
    if el is None:
        raise OracleError(f"no {want!r} slider ({ctx.family(APP)} family)")
    return el


def _font_step(ctx: Ctx) -> int:
    """The Font size SeekBar's position (its progress, as the simulator's SeekBar reports it)."""
    try:
        return int(float(_font_seekbar(ctx).text))
    except ValueError as e:
        raise OracleError(f"cannot read the font size slider's position ({ctx.family(APP)} family)") from e


def _step_button(ctx: Ctx, role: str) -> UIElement:
    """The font size's own "Make smaller" / "Make larger" button: the one on its slider's line."""
    bar = _font_seekbar(ctx).bounds
    el = next((e for e in ctx.roles(APP, role) if e.bounds.top <= bar.center[1] <= e.bounds.bottom), None)
    if el is None:
        raise OracleError(f"no {role} beside the font size slider ({ctx.family(APP)} family)")
    return el


def open_font_size(ctx: Ctx) -> Skill:
    yield from open_display(ctx)
    yield from tap_row(ctx, words(ctx, "font_size"))
    return ctx.obs


def set_font_size(ctx: Ctx, label: str) -> Skill:
    """label: Small / Default / Large / Largest (a radio option, or a step of the family's font slider)."""
    yield from open_font_size(ctx)
    if not has_words(ctx, "font_steps"):
        return (yield from tap_option(ctx, label))
    names = [norm(x) for x in words(ctx, "font_sizes")]
    if norm(label) not in names:
        raise OracleError(f"no font size {label!r} ({ctx.family(APP)} family)")
    want = names.index(norm(label))
    yield from scroll_to_role(ctx, APP, "slider", pred=_titled(words(ctx, "font_slider")))
    for _ in range(len(words(ctx, "font_steps"))):
        at = _font_step(ctx)
        if at == want:
            return ctx.obs
        yield from act(ctx, Tap(target=_step_button(ctx, "step_larger" if at < want else "step_smaller").index))
    if _font_step(ctx) != want:
        raise OracleError(f"the font size slider did not reach {label!r}")
    return ctx.obs


def read_font_size(ctx: Ctx) -> Skill:
    """The font size's name as the screen shows it (the Display row's summary, or the slider's step)."""
    if not has_words(ctx, "font_steps"):
        yield from open_display(ctx)
        summary = yield from row_summary(ctx, words(ctx, "font_size"))
        sizes = sorted(words(ctx, "font_sizes"), key=len, reverse=True)  # 'Largest' before 'Large'
        m = re.search("(" + "|".join(re.escape(x) for x in sizes) + ")", summary)
        if not m:
            raise OracleError(f"cannot read a font size in {summary!r}")
        return m.group(1)
    yield from open_font_size(ctx)
    yield from scroll_to_role(ctx, APP, "slider", pred=_titled(words(ctx, "font_slider")))
    at, names = _font_step(ctx), words(ctx, "font_sizes")
    if not 0 <= at < len(names):
        raise OracleError(f"the font size slider is at step {at}, which has no name ({ctx.family(APP)} family)")
    return names[at]


def set_screen_timeout(ctx: Ctx, label: str) -> Skill:
    """label as Android shows it: '30 seconds', '1 minute', '10 minutes'."""
    yield from open_display(ctx)
    yield from tap_row(ctx, words(ctx, "screen_timeout"))
    return (yield from tap_option(ctx, label))


def row_summary(ctx: Ctx, label: str) -> Skill:
    """The summary a person reads under the row ``label`` (scrolling to it)."""
    yield from scroll_to_role(ctx, APP, "row_title", pred=_titled(label))
    value = _driver().summary_for(ctx.ui(APP), label)
    if not value:  # the row's title is on screen, its summary maybe still under the bottom edge
        yield from act(ctx, Scroll(direction="down"))
        yield from scroll_to_role(ctx, APP, "row_title", pred=_titled(label))
        value = _driver().summary_for(ctx.ui(APP), label)
    if not value:
        raise OracleError(f"no summary under {label!r} ({ctx.family(APP)} family)")
    return value


def read_about(ctx: Ctx, row: str) -> Skill:
    """Open About phone and return the value shown under ``row`` (e.g. 'Model', 'Android version')."""
    yield from open_settings(ctx)
    yield from tap_row(ctx, words(ctx, "about_phone"))
    return (yield from row_summary(ctx, row))
