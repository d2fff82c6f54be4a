"""The app UI layer: one driver per app that knows each phone family's screens by role.

Everything s2r does on a phone through the screen — the oracle's skills, the UI probes that read
what no provider exposes (alarms, the dial pad), teardown's deletes — asks a driver for a
*role* (``add_alarm``, ``alarm_card``, ``send`` …) and for what a person reads on a screen; the
driver's data (``data/<app>.yaml``) says how each family (``aosp``, ``google``, ``samsung``,
``xiaomi``, the simulator's ``sim``) marks it, and a family-free ``generic`` block finds
controls by role heuristics when the family is unknown. See ARCHITECTURE.md, "App UI layer".
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from actionmap.observation import UIElement

from .base import AppDriver, Control, ScreenReading, foreground_package
from .match import Matcher

__all__ = ["AppDriver", "Control", "Matcher", "ScreenReading", "app_of_package", "driver", "drivers",
           "foreground_package", "read_screen"]


def _classes() -> dict[str, type[AppDriver]]:
    from .clock import ClockDriver

    found: dict[str, type[AppDriver]] = {ClockDriver.app: ClockDriver}
    import importlib

    for name in ("messages", "contacts", "calendar", "files", "calculator", "phone", "settings", "launcher"):
        try:
            mod = importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as e:
            if e.name != f"{__name__}.{name}":
                raise
            continue
        for obj in vars(mod).values():
            if isinstance(obj, type) and issubclass(obj, AppDriver) and obj is not AppDriver and \
                    getattr(obj, "app", None) == name:
                found[name] = obj
    return found


@lru_cache(maxsize=1)
def drivers() -> dict[str, AppDriver]:
    """Every app's driver, by canonical app id."""
    return {app: cls() for app, cls in _classes().items()}


def driver(app: str) -> AppDriver:
    try:
        return drivers()[app]
    except KeyError:
        raise KeyError(f"no UI driver for app {app!r}; known: {', '.join(sorted(drivers()))}") from None


def app_of_package(package: str | None) -> str | None:  # noqa: D401
    """The app whose family data ships ``package`` (the registry in actionmap/data/apps.yaml as fallback)."""
    if not package:
        return None
    for app, d in drivers().items():
        if d.family_of(package) is not None:
            return app
    from actionmap.apps import registry

    return registry().app_of_package(package)


def read_screen(elements: Sequence[UIElement], *, package: str | None = None, app: str | None = None,
                family: str | None = None, manufacturer: str | None = None) -> ScreenReading:
    """Read one screen: which app and family it belongs to, the controls by role, what it shows."""
    package = package or foreground_package(elements)
    app = app or app_of_package(package)
    if app is None or app not in drivers():
        return ScreenReading(package=package, app=app, family=None, screen=None,
                             problems=[f"{app or 'unknown app'}: {package or 'unknown package'} — no UI driver "
                                       "knows this app"])
    return driver(app).read(elements, package=package, family=family, manufacturer=manufacturer)
