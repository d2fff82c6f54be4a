"""Clock skills for the world clock: reading a city's time, adding and removing a city.

Cities are matched regardless of accents and case. How a city is added or removed is family
data: ``city_picker_toggles`` (cities are checked in the city picker rather than tapped there
and removed by long press), ``city_search_toggles`` (a city search whose results add a city, or
remove one already chosen, as on a Pixel).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable

from actionmap.actions import LongPress
from actionmap.observation import UIElement
from device.apps.match import inside

from ...base import Ctx, OracleError, Skill, act, back, norm, scroll_to_role, tap_role
from .screen import APP, _flag, _has, _hide_keyboard, _on_tabs, _role, _scroll_until, _tap_el, _type_role, goto_tab

def _fold(s: str) -> str:
    """Match city names regardless of accents and case ('Sao Paulo' finds 'São Paulo')."""
    s = unicodedata.normalize("NFKD", s or "")
    return norm("".join(ch for ch in s if not unicodedata.combining(ch)).replace("’", "'"))


# --- world clock -------------------------------------------------------------------------------

def _city_probe(ctx: Ctx, city: str) -> Callable[[], UIElement | None]:
    want = _fold(city)
    return lambda: next((e for e in ctx.roles(APP, "city_name") if _fold(e.text) == want), None)


def _names_city(text: str, want: str) -> bool:
    """A city picker's entry for the (folded) city: its name, or its name qualified by its region
    ('Chicago, IL, USA' on a Pixel)."""
    t = _fold(text)
    return t == want or t.startswith(want + ",")


def _city_row(ctx: Ctx, name_el: UIElement) -> UIElement | None:
    return next((r for r in ctx.roles(APP, "city_row") if inside(name_el, r)), None)


def read_world_clock_time(ctx: Ctx, city: str) -> Skill:
    """The time the Clock tab shows for ``city`` (e.g. '04:30')."""
    yield from goto_tab(ctx, "clock")
    name = yield from _scroll_until(ctx, _city_probe(ctx, city), f"world clock {city!r}")
    row = _city_row(ctx, name)
    t = _role(ctx, "city_time", within=row) if row is not None else None
    if t is None:
        raise OracleError(f"no time shown for {city!r}")
    return t.text


def _open_city_picker(ctx: Ctx, city: str, search: bool = True) -> Skill:
    """Open the city picker and (``search``) type ``city`` into its search field. AOSP's picker
    searches only the cities not yet selected (CitySelectionActivity.CityAdapter.filter), so a
    selected city is found unfiltered, at the top of the list."""
    yield from tap_role(ctx, APP, "add_city")
    if not search:
        return ctx.obs
    if not _has(ctx, "city_search_field"):
        yield from tap_role(ctx, APP, "city_search")
    yield from _type_role(ctx, "city_search_field", city)
    return ctx.obs


def _leave_picker(ctx: Ctx) -> Skill:
    for _ in range(4):
        if _on_tabs(ctx):
            return ctx.obs
        yield from back(ctx)
    if not _on_tabs(ctx):
        raise OracleError("could not leave the city picker")
    return ctx.obs


def _is_city_box(ctx: Ctx, box: UIElement, want: str) -> bool:
    """The picker's check box for the city: named by its own text or description, or on the row of
    the city's name (AOSP's box and name are separate views of one row)."""
    if _fold(box.text) == want or _fold(box.content_desc) == want:
        return True
    if box.text or box.content_desc:
        return False
    top, bottom = box.bounds.top, box.bounds.bottom
    return any(_fold(n.text) == want and top <= n.bounds.center[1] <= bottom for n in ctx.roles(APP, "city_name"))


def _city_box(ctx: Ctx, city: str) -> Skill:
    want = _fold(city)
    return (yield from scroll_to_role(ctx, APP, "city_checkbox", pred=lambda e: _is_city_box(ctx, e, want)))


def add_world_clock(ctx: Ctx, city: str) -> Skill:
    """Add ``city`` to the world clock (no-op if it is already there)."""
    yield from goto_tab(ctx, "clock")
    if (yield from _scroll_until(ctx, _city_probe(ctx, city), city, must=False)) is not None:
        return ctx.obs
    yield from _open_city_picker(ctx, city)
    want = _fold(city)
    yield from _hide_keyboard(ctx)
    if _flag(ctx, "city_picker_toggles"):
        box = yield from _city_box(ctx, city)
        if not box.checked:
            yield from _tap_el(ctx, box)
        yield from _leave_picker(ctx)
    else:
        yield from tap_role(ctx, APP, "city_name", scroll=True, pred=lambda e: _names_city(e.text, want))
    if not _on_tabs(ctx):
        yield from _leave_picker(ctx)
    yield from _scroll_until(ctx, _city_probe(ctx, city), f"added city {city!r}")
    return ctx.obs


def _chosen_in_search(ctx: Ctx, name: UIElement) -> bool:
    """Whether a search result is marked as an already chosen city (a marker on its row)."""
    top, bottom = name.bounds.top - name.bounds.height, name.bounds.bottom + name.bounds.height
    return any(top <= m.bounds.center[1] <= bottom for m in ctx.roles(APP, "city_selected"))


def _remove_by_search(ctx: Ctx, city: str) -> Skill:
    """Search the city and tap its (chosen) result, which removes it."""
    want = _fold(city)
    yield from _open_city_picker(ctx, city)
    yield from _hide_keyboard(ctx)
    name = yield from scroll_to_role(ctx, APP, "city_name", pred=lambda e: _names_city(e.text, want))
    if not _chosen_in_search(ctx, name):
        raise OracleError(f"{city!r} is not marked as chosen in the city search")
    yield from _tap_el(ctx, name)
    if not _on_tabs(ctx):
        yield from _leave_picker(ctx)
    return ctx.obs


def remove_world_clock(ctx: Ctx, city: str) -> Skill:
    """Remove ``city`` from the world clock (uncheck it in the city picker, or long press → Remove)."""
    yield from goto_tab(ctx, "clock")
    if _flag(ctx, "city_search_toggles"):
        yield from _remove_by_search(ctx, city)
    elif _flag(ctx, "city_picker_toggles"):
        yield from _open_city_picker(ctx, city, search=False)
        yield from _hide_keyboard(ctx)
        box = yield from _city_box(ctx, city)
        if box.checked:
            yield from _tap_el(ctx, box)
        yield from _leave_picker(ctx)
    else:
        name = yield from _scroll_until(ctx, _city_probe(ctx, city), f"world clock {city!r}")
        yield from act(ctx, LongPress(target=name.index))
        yield from tap_role(ctx, APP, "remove_city_confirm")
    if _city_probe(ctx, city)() is not None:
        raise OracleError(f"{city!r} is still listed")
    return ctx.obs
