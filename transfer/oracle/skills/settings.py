"""Oracle skills for Settings and quick settings.

Controls are found by role through the app UI layer (``device/apps/data/settings.yaml``): a
page's rows by their ``row_title``, a row's switch as the Settings driver pairs it (inside the
row, or on the same line), radio options, sliders, the search field, dialog buttons. The way to
each toggle and the labels on it are the family's wording (``ctx.words("settings", "toggles")``:
the rows to open from the homepage, then the switch's row), so the same skill runs on every
family whose wording the data holds.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from actionmap.actions import Tap, TypeText
from actionmap.geometry import px_to_point
from actionmap.observation import UIElement

from ..base import Ctx, OracleError, Skill, act, back, norm, open_app, scroll_to_role

APP = "settings"


def _driver() -> Any:
    from device.apps import driver

    return driver(APP)


def words(ctx: Ctx, key: str) -> Any:
    return ctx.words(APP, key)


def toggle_path(ctx: Ctx, field: str) -> dict[str, Any]:
    """How the family reaches ``field``'s switch: {"path": [row, …], "switch": label} or
    {"search": query, "switch": label}."""
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
    # the app may reopen on a sub-screen: go back to its root
    for _ in range(6):
        if ctx.ui(APP).screen() == "settings_home":
            break
        if ctx.role(APP, "navigate_up") is not None:
            yield from back(ctx)
        else:
            break
    return ctx.obs


def switch_for(ctx: Ctx, label: str) -> UIElement | None:
    """The switch on the row ``label`` (or the page's main switch labelled so), as the driver pairs them."""
    return _driver().switch_for(ctx.ui(APP), label)


def set_switch(ctx: Ctx, label: str, on: bool) -> Skill:
    """Make the switch on ``label``'s row read ``on`` (tap only if it differs)."""
    yield from scroll_to_role(ctx, APP, "row_title", pred=_titled(label))
    sw = switch_for(ctx, label)
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
    """Navigate to the screen that holds ``field``'s switch; returns the switch's row label."""
    how = toggle_path(ctx, field)
    if "search" in how:
        yield from search_for(ctx, how["search"])
    else:
        yield from open_settings(ctx)
        for step in how.get("path") or []:
            yield from tap_row(ctx, step)
    return how["switch"]


def set_toggle(ctx: Ctx, field: str, on: bool) -> Skill:
    """Turn a settings toggle on or off through the Settings app."""
    label = yield from open_toggle_screen(ctx, field)
    return (yield from set_switch(ctx, label, on))


def read_toggle(ctx: Ctx, field: str) -> Skill:
    """Whether the Settings switch for ``field`` is on, as its screen shows it."""
    label = yield from open_toggle_screen(ctx, field)
    yield from scroll_to_role(ctx, APP, "row_title", pred=_titled(label))
    sw = switch_for(ctx, label)
    if sw is None:
        raise OracleError(f"no switch on the row {label!r} ({ctx.family(APP)} family)")
    return bool(sw.checked)


def set_slider_fraction(ctx: Ctx, slider_label: str, frac: float) -> Skill:
    """Tap a slider (described ``slider_label``) at the position for ``frac`` of its range."""
    el = yield from scroll_to_role(ctx, APP, "slider", pred=_titled(slider_label))
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
    """Set brightness (0–255) with the Display → Brightness level slider."""
    yield from open_display(ctx)
    yield from tap_row(ctx, words(ctx, "brightness_level"))
    return (yield from set_slider_fraction(ctx, words(ctx, "brightness_level"), level / 255))


def set_font_size(ctx: Ctx, label: str) -> Skill:
    """label: Small / Default / Large / Largest."""
    yield from open_display(ctx)
    yield from tap_row(ctx, words(ctx, "font_size"))
    return (yield from tap_option(ctx, label))


def set_screen_timeout(ctx: Ctx, label: str) -> Skill:
    """label as Android shows it: '30 seconds', '1 minute', '10 minutes'."""
    yield from open_display(ctx)
    yield from tap_row(ctx, words(ctx, "screen_timeout"))
    return (yield from tap_option(ctx, label))


def row_summary(ctx: Ctx, label: str) -> Skill:
    """The summary a person reads under the row ``label`` (scrolling to it)."""
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
