"""Scripted oracle skills: generators that solve tasks from observations.

A skill is a generator: it yields one :class:`Action` at a time and receives the next
:class:`Observation` back (``obs = yield Tap(target=i)``). It finds controls by *role* through
the app UI layer (:mod:`device.apps`) — never by recorded coordinates, and never by a resource
id or label literal of its own — so the same skill works on every screen size, in the
simulator's flavors and on each phone family's apps. The oracle proves each task solvable
and, run on a device, tells bridge faults (s2r failed the oracle) from policy faults.

Write skills with the helpers here, e.g.::

    def add_alarm(ctx: Ctx) -> Skill:
        yield from open_app(ctx, "clock")
        yield from tap_role(ctx, "clock", "add_alarm")       # whatever this family marks as "add"
        ...
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from typing import Any

from actionmap.actions import (Abort, Action, Answer, Complete, Key, LongPress, OpenApp, Scroll, Tap, TypeText,
                               Wait)
from actionmap.observation import Observation, UIElement

Skill = Generator[Action, Observation, Any]


class OracleError(RuntimeError):
    """The oracle could not find what it expected on screen (a bridge or app fault)."""


def norm(s: str) -> str:
    """Normalize for matching: NFKC, casefold, unify dashes/hyphens and whitespace."""
    s = unicodedata.normalize("NFKC", s or "").replace("\u2011", "-").replace("\u2010", "-").replace("\u2013", "-")
    return re.sub(r"\s+", " ", s).strip().casefold()


@dataclass
class Ctx:
    """What a skill knows: the current observation, the app families, and the task's parameters.

    Skills find controls through the app UI layer (:mod:`device.apps`): ``ctx.role("clock",
    "add_alarm")`` is whatever the family of the phone's Clock marks as its add button, and
    ``ctx.words("clock", "tabs")`` the family's wording. ``families`` maps an app id to its family
    as detected on the phone (package, version, manufacturer); an app not in it takes the
    flavor's family (the simulator's ``sim`` and ``aosp`` flavors are families of their own).
    """

    obs: Observation
    flavor: str = "sim"
    params: dict[str, Any] = field(default_factory=dict)
    steps: int = 0
    max_scrolls: int = 12
    families: dict[str, str] = field(default_factory=dict)

    # --- the app UI layer --------------------------------------------------------------------
    def family(self, app: str) -> str:
        return self.families.get(app) or self.flavor

    def ui(self, app: str) -> Any:
        """The role matcher for ``app`` over the current observation (cached until it changes)."""
        from device.apps import driver

        cache = self.__dict__.setdefault("_ui_cache", {})
        if cache.get("obs") is not self.obs:  # the observation itself, not its id (ids are reused)
            cache.clear()
            cache["obs"] = self.obs
        m = cache.get(app)
        if m is None:
            pkg = self.obs.foreground.package if self.obs.foreground is not None else None
            m = cache[app] = driver(app).matcher(self.obs.elements, self.family(app), pkg)
        return m

    def role(self, app: str, role: str, *, within: UIElement | None = None) -> UIElement | None:
        return self.ui(app).first(role, within=within)

    def roles(self, app: str, role: str, *, within: UIElement | None = None) -> list[UIElement]:
        m = self.ui(app)
        return m.all_in(role, within) if within is not None else m.find(role)

    def need(self, app: str, role: str, *, within: UIElement | None = None) -> UIElement:
        """The control playing ``role``, or an OracleError naming the control and the family (a bridge fault)."""
        el = self.role(app, role, within=within)
        if el is None:
            raise OracleError(f"{app}: no {role} on screen ({self.family(app)} family)")
        return el

    def words(self, app: str, key: str) -> Any:
        """The family's wording for ``key`` (a string, or a mapping such as the tab labels)."""
        from device.apps import driver

        fam = driver(app).family(self.family(app))
        if key not in fam.texts:
            raise OracleError(f"{app}: the {self.family(app)} family has no wording {key!r}")
        return fam.texts[key]

    # --- finding ---------------------------------------------------------------------------
    def find_all(self, text: str | None = None, *, rid: str | None = None, desc: str | None = None,
                 cls: str | None = None, contains: bool = False, regex: str | None = None,
                 pred: Callable[[UIElement], bool] | None = None) -> list[UIElement]:
        out = []
        for e in self.obs.elements:
            if text is not None:
                hay = [norm(e.text), norm(e.content_desc)]
                want = norm(text)
                if not (any(want in h for h in hay) if contains else want in hay):
                    continue
            if regex is not None and not (re.search(regex, e.text) or re.search(regex, e.content_desc)):
                continue
            if rid is not None and not (e.resource_id == rid or e.resource_id.endswith("/" + rid)):
                continue
            if desc is not None and norm(e.content_desc) != norm(desc):
                continue
            if cls is not None and not (e.class_name == cls or e.class_name.endswith("." + cls)):
                continue
            if pred is not None and not pred(e):
                continue
            out.append(e)
        return out

    def find(self, text: str | None = None, **kw: Any) -> UIElement | None:
        hits = self.find_all(text, **kw)
        return hits[0] if hits else None

    def has(self, text: str | None = None, **kw: Any) -> bool:
        return self.find(text, **kw) is not None

    def switch_in_row(self, label: str) -> UIElement | None:
        """The Switch (or CheckBox) on the same row as an element labelled ``label``."""
        for lab in self.find_all(label):
            if lab.checkable:
                return lab
            cy = lab.bounds.center[1]
            cands = [e for e in self.obs.elements if e.checkable and e.class_name.endswith(("Switch", "CheckBox"))
                     and e.bounds.top - 40 <= cy <= e.bounds.bottom + 40]
            if cands:
                return min(cands, key=lambda e: abs(e.bounds.center[1] - cy))
        return None


# --- primitive skills ----------------------------------------------------------------------

def act(ctx: Ctx, action: Action) -> Skill:
    """Yield one action and take the next observation."""
    ctx.obs = yield action
    ctx.steps += 1
    return ctx.obs


def scroll_once(ctx: Ctx, direction: str = "down") -> Skill:
    """Scroll once; returns whether the screen changed (False: the list was already at that end)."""
    before = [(e.text, e.bounds) for e in ctx.obs.elements]
    yield from act(ctx, Scroll(direction=direction))  # type: ignore[arg-type]
    return [(e.text, e.bounds) for e in ctx.obs.elements] != before


def sweep(ctx: Ctx, look: Callable[[str], Any]) -> Skill:
    """Scroll the list to its top, then to its bottom, calling ``look(direction)`` on each screen before
    scrolling on; returns ``look``'s first answer that is not None, or None once the list is swept.

    Each way ends where scrolling no longer changes the screen, or after ``ctx.max_scrolls`` scrolls."""
    for direction in ("up", "down"):
        for _ in range(ctx.max_scrolls):
            found = look(direction)
            if found is not None:
                return found
            if not (yield from scroll_once(ctx, direction)):
                break
    return None


def _scroll_until(ctx: Ctx, probe: Callable[[], UIElement | None], direction: str, absent: str, stuck: str) -> Skill:
    """Scroll until ``probe`` finds its element (turning back once at the end of the list); returns it.
    Raises OracleError ``absent`` after ``ctx.max_scrolls`` scrolls, ``stuck`` when the list moves neither way."""
    el = probe()
    tries = 0
    while el is None:
        if tries >= ctx.max_scrolls:
            raise OracleError(absent)
        moved = yield from scroll_once(ctx, direction)
        tries += 1
        el = probe()
        if el is None and not moved:
            if direction == "down":  # reached the end: try the other way once
                direction = "up"
            else:
                raise OracleError(stuck)
    return el


def scroll_to(ctx: Ctx, text: str | None = None, *, direction: str = "down", **kw: Any) -> Skill:
    """Scroll until an element matching is on screen; returns it (raises OracleError if absent)."""
    return (yield from _scroll_until(ctx, lambda: ctx.find(text, **kw), direction,
                                     f"not found after scrolling: text={text!r} {kw}",
                                     f"not found (list does not move): text={text!r} {kw}"))


def tap(ctx: Ctx, text: str | None = None, *, scroll: bool = True, **kw: Any) -> Skill:
    el = (yield from scroll_to(ctx, text, **kw)) if scroll else ctx.find(text, **kw)
    if el is None:
        raise OracleError(f"nothing to tap: text={text!r} {kw}")
    return (yield from act(ctx, Tap(target=el.index)))


def scroll_to_role(ctx: Ctx, app: str, role: str, *, direction: str = "down",
                   pred: Callable[[UIElement], bool] | None = None) -> Skill:
    """Scroll until a control playing ``role`` (and meeting ``pred``) is on screen; returns it."""
    def probe() -> UIElement | None:
        return next((e for e in ctx.roles(app, role) if pred is None or pred(e)), None)

    return (yield from _scroll_until(ctx, probe, direction,
                                     f"{app}: no {role} after scrolling ({ctx.family(app)} family)",
                                     f"{app}: no {role} in the list ({ctx.family(app)} family)"))


def tap_role(ctx: Ctx, app: str, role: str, *, within: UIElement | None = None, scroll: bool = False,
             pred: Callable[[UIElement], bool] | None = None) -> Skill:
    """Tap the control playing ``role``; a missing control is an OracleError naming it and the family."""
    if scroll and within is None:
        el = yield from scroll_to_role(ctx, app, role, pred=pred)
    else:
        hits = [e for e in ctx.roles(app, role, within=within) if pred is None or pred(e)]
        if not hits:
            raise OracleError(f"{app}: no {role} on screen ({ctx.family(app)} family)")
        el = hits[0]
    return (yield from act(ctx, Tap(target=el.index)))


def long_press(ctx: Ctx, text: str | None = None, **kw: Any) -> Skill:
    el = yield from scroll_to(ctx, text, **kw)
    return (yield from act(ctx, LongPress(target=el.index)))


def type_into(ctx: Ctx, field_text: str | None, text: str, *, clear: bool = True, submit: bool = False, **kw: Any) -> Skill:
    """Tap a text field (by its hint/text/id), then type into it."""
    el = yield from scroll_to(ctx, field_text, **kw) if field_text is not None or kw else None
    if el is not None and not el.focused:
        yield from act(ctx, Tap(target=el.index))
    return (yield from act(ctx, TypeText(text=text, clear=clear, submit=submit)))


def open_app(ctx: Ctx, app: str) -> Skill:
    return (yield from act(ctx, OpenApp(app=app)))


def back(ctx: Ctx) -> Skill:
    return (yield from act(ctx, Key(key="back")))


def home(ctx: Ctx) -> Skill:
    return (yield from act(ctx, Key(key="home")))


def wait(ctx: Ctx, seconds: float) -> Skill:
    return (yield from act(ctx, Wait(seconds=seconds)))


def set_switch(ctx: Ctx, label: str, on: bool) -> Skill:
    """Make the switch on ``label``'s row read ``on`` (tap only if it differs)."""
    yield from scroll_to(ctx, label)
    sw = ctx.switch_in_row(label)
    if sw is None:
        raise OracleError(f"no switch on the row {label!r}")
    if sw.checked != on:
        yield from act(ctx, Tap(target=sw.index))
        sw = ctx.switch_in_row(label)
        if sw is None or sw.checked != on:
            raise OracleError(f"switch {label!r} did not change")
    return ctx.obs


def answer(ctx: Ctx, **fields: Any) -> Skill:
    return (yield from act(ctx, Answer(fields=fields)))


def complete(ctx: Ctx, message: str = "") -> Skill:
    return (yield from act(ctx, Complete(message=message)))


def abort(ctx: Ctx, reason: str) -> Skill:
    return (yield from act(ctx, Abort(reason=reason)))
