"""The UI probe: the screen-driving handle that readers and writers use on a phone.

Some of a phone's state is only on its screen (the Clock app's alarms, the dial pad's number),
and some undo only goes through it (an alarm's delete). Readers and writers do that through
:class:`ScreenProbe` — open an app, read the settled screen's elements, tap, scroll, go home, and
the app's family on this phone (:mod:`device.apps`) — the :class:`device.readers.UIProbe`
protocol. They get this object, not the whole env: it holds only the input driver, the screen
view and a family lookup.

It also remembers which apps were left mid-way (opened by a probe, or seen in the foreground):
before a teardown or the next start screen they are reopened fresh at their root screen
(:meth:`ScreenProbe.refresh_apps`), since teardown and the alarm probe read those apps' screens.
"""

from __future__ import annotations

from typing import Callable

from actionmap.observation import Observation, UIElement
from device.input import InputDriver
from device.parsers import ParseError, parse_hierarchy
from device.screen import ScreenView

__all__ = ["ScreenProbe"]


class ScreenProbe:
    """A :class:`device.readers.UIProbe` over one phone's input driver and screen view."""

    def __init__(self, input: InputDriver, view: ScreenView, family: Callable[[str], str | None]):
        self.input = input
        self.view = view
        self._family = family
        self.dirty_apps: set[str] = set()  # apps that may not be at their root screen
        self._xml: str | None = None  # the last settled dump of the screen as it is now (see keep)

    # ------------------------------------------------------------------ the screen now
    def forget(self) -> None:
        """The screen is about to change: a kept dump no longer shows it."""
        self._xml = None

    def seen(self, obs: Observation, settled_xml: str | None) -> None:
        """The env observed the screen: its settled dump (when reusable) serves the next
        :meth:`probe_elements`, and the foreground app may be left mid-way."""
        if settled_xml is not None:
            self._xml = settled_xml
        if obs.foreground.app:
            self.dirty_apps.add(obs.foreground.app)

    def refresh_apps(self) -> None:
        """Apps left mid-way (an alarm expanded, an editor open) go back to their root screen."""
        self._xml = None  # the screen is about to change
        for app in sorted(self.dirty_apps - {"launcher"}):
            self.input.open_app(app, fresh=True)
        self.dirty_apps.clear()

    def _settle(self) -> None:
        """Wait for the screen to settle and keep the settled dump: the probe's next
        ``probe_elements`` reads it instead of dumping the same screen again."""
        xml, meta = self.view.settle_inside()
        self._xml = xml if meta.settled else None

    # ------------------------------------------------------------------ UIProbe
    def probe_family(self, app: str) -> str | None:
        """The family of ``app`` on this phone (see :mod:`device.apps`)."""
        return self._family(app)

    def probe_open(self, app: str) -> None:
        self._xml = None
        self.input.open_app(app)
        self.dirty_apps.add(app)
        self._settle()

    def probe_elements(self) -> list[UIElement]:
        observer, pf = self.view.observer, self.view.pf
        assert observer is not None and pf is not None
        xml, self._xml = self._xml, None
        if xml is None:
            xml, _ = observer.hierarchy_xml()
        try:
            return parse_hierarchy(xml, screen=pf.display_size).elements
        except ParseError:
            return []

    def probe_tap(self, e: UIElement) -> None:
        self._xml = None
        self.input.tap(*e.bounds.center)
        self._settle()

    def probe_scroll(self, down: bool, fraction: float = 0.6) -> None:
        """Scroll the screen's content by about ``fraction`` of its height (a page by default)."""
        geo = self.view.geometry()
        l, t, r, b = geo.content_box()
        x = (l + r) // 2
        d = max(1, int((b - t) * min(0.8, max(0.02, fraction)))) // 2
        mid = (t + b) // 2
        y0, y1 = (mid + d, mid - d) if down else (mid - d, mid + d)
        self._xml = None
        self.input.swipe(x, y0, x, y1, 400)
        self._settle()

    def probe_home(self) -> None:
        self._xml = None
        self.input.key("home")
