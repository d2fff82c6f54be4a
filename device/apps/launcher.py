"""Launcher: the home screen, the app drawer and the overview, by role.

What a person reads off a home screen is the labels of its app icons: those on the workspace
page and those in the hotseat (the dock), in reading order. Icons are the launcher's own views;
widgets — another app's views hosted in the launcher's window, such as Samsung's Clock widget —
are listed by their host's description and never taken for icons, nor do they make the screen
that app's: the screen belongs to the package that draws the window (the launcher).
"""

from __future__ import annotations

from typing import Any, ClassVar

from actionmap.observation import UIElement

from .base import AppDriver, Control
from .match import Matcher, inside


def _reading_order(els: list[UIElement]) -> list[UIElement]:
    return sorted(els, key=lambda e: (e.bounds.top, e.bounds.left))


def icon_label(e: UIElement) -> str:
    """An icon's label: its text (a predicted hotseat app is described 'Predicted app: X', labelled X)."""
    return (e.text or e.content_desc or "").strip()


class LauncherDriver(AppDriver):
    app = "launcher"
    control_roles: ClassVar[tuple[str, ...]] = (
        "workspace", "hotseat", "page_indicator", "app_icon", "hotseat_icon", "hotseat_prediction", "folder_icon",
        "folder_name",
        "widget", "clock_widget", "weather_refresh", "search_bar", "google_app", "voice_search", "lens",
        "smartspace_date", "apps_list", "drawer_icon", "all_apps_search", "all_apps_handle", "overview",
        "recent_task", "clear_all",
    )

    def workspace_icons(self, m: Matcher) -> list[UIElement]:
        """Icons on the workspace page: not those of the hotseat, which the workspace may enclose."""
        seats = m.find("hotseat")
        return _reading_order([e for e in m.find("app_icon") if not any(inside(e, h) for h in seats)])

    def hotseat_icons(self, m: Matcher) -> list[UIElement]:
        return _reading_order(m.find("hotseat_icon"))

    def controls(self, m: Matcher) -> list[Control]:
        """As the base, with app_icon meaning a workspace icon (the hotseat's are hotseat_icon)."""
        ws = {e.index for e in self.workspace_icons(m)}
        return [c for c in super().controls(m) if c.role != "app_icon" or c.index in ws]

    def folders(self, m: Matcher) -> list[str]:
        """Each folder's name: its label view's text, else its description."""
        out = []
        for f in _reading_order(m.find("folder_icon")):
            name = m.first("folder_name", within=f)
            label = (name.text if name is not None and name.text else f.content_desc or f.text).strip()
            if label:
                out.append(label)
        return out

    def widgets(self, m: Matcher) -> list[str]:
        """Each widget's name, as its host describes it ('Digital clock. Double tap and drag to move.')."""
        out = []
        for w in _reading_order(m.find("widget")):
            d = (w.content_desc or "").split(". ")[0].strip().rstrip(".")
            if d:
                out.append(d)
        return out

    def visible(self, m: Matcher, screen: str | None) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if screen == "launcher_home":
            ws = [icon_label(e) for e in self.workspace_icons(m)]
            seat = [icon_label(e) for e in self.hotseat_icons(m)]
            out["workspace_icons"] = [x for x in ws if x]
            out["hotseat"] = [x for x in seat if x]
            out["apps"] = out["workspace_icons"] + out["hotseat"]
            out["folders"] = self.folders(m)
            out["widgets"] = self.widgets(m)
            date = m.first("smartspace_date")
            if date is not None:
                out["smartspace_date"] = date.text or date.content_desc
            out["search_bar"] = m.has("search_bar")
        elif screen == "app_drawer":
            out["apps"] = [icon_label(e) for e in _reading_order(m.find("drawer_icon")) if icon_label(e)]
        elif screen == "overview":
            out["recent_apps"] = [e.content_desc or e.text for e in m.find("recent_task")]
        return out
