"""Settings: the homepage, preference pages, the main on/off bar, radio lists and dialogs, by role.

Every family ships a Settings app and draws it from the same preference rows, so the reading
here is general rather than fitted to one layout: a *row* is the smallest clickable container
around a title; its summary, switch, check box or radio button is the one inside it, or — where
a dump has dropped the wrappers — the one on the same line as the title. ``toggles`` maps each
row label that has a switch or check box to its state; a page's main on/off bar (AOSP's
MainSwitchBar, Samsung's switch bar) is listed as ``"<label> (main switch)"``. Radio lists
(a timeout, a network type) are read as ``options`` with the ``selected`` one.

Samsung, MIUI and Google's Pixels ship AOSP's package name (com.android.settings; MIUI's
mobile-network pages come from com.android.phone): when the manufacturer is not known, a family is
chosen only on its own marks on the screen (``family_marker``: One UI's collapsing app bar, MIUI's
``miui:id`` action bar, the Pixel homepage's Google Account avatar, Google's search field), never
guessed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from actionmap.observation import UIElement

from .base import AppDriver, ScreenReading, foreground_package
from .match import Matcher, encloses, inside, norm


def _reading_order(els: Sequence[UIElement]) -> list[UIElement]:
    return sorted(els, key=lambda e: (e.bounds.top, e.bounds.left))


class SettingsDriver(AppDriver):
    app = "settings"
    control_roles: ClassVar[tuple[str, ...]] = (
        "title", "navigate_up", "search", "search_bar", "search_field", "homepage_scroll", "suggestion_expand",
        "list", "menu_item", "main_switch_bar", "main_switch", "row_switch", "radio_option", "slider",
        "dialog", "dialog_button", "edit_field",
    )

    # --- which family ----------------------------------------------------------------------------
    def family_of(self, package: str | None, manufacturer: str | None = None,
                  elements: Sequence[UIElement] | None = None) -> str | None:
        """The family of ``package``: the manufacturer decides when known (one none of the package's
        owners names falls to the family without a manufacturer, or to none: a Pixel's
        com.android.phone is not MIUI); without it, a family whose own marks (``family_marker``)
        are on the screen ``elements``; else the package's family without a manufacturer."""
        if not package:
            return None
        owners = [n for n, f in self.spec.families.items() if package in f.packages]
        if not owners:
            return None
        plain = [n for n in owners if not self.spec.families[n].manufacturers]
        maker = (manufacturer or "").strip().lower()
        if maker:
            if not any(maker in [x.lower() for x in self.spec.families[n].manufacturers] for n in owners):
                return plain[0] if plain else None
            return super().family_of(package, manufacturer)
        if elements is not None:
            for n in owners:
                if "family_marker" in self.spec.families[n].roles and \
                        Matcher(elements, self.family(n), package).has("family_marker"):
                    return n
            return plain[0] if plain else None
        return super().family_of(package, manufacturer)

    def read(self, elements: Sequence[UIElement], *, package: str | None = None, family: str | None = None,
             manufacturer: str | None = None) -> ScreenReading:
        package = package or foreground_package(elements)
        if family is None:
            family = self.family_of(package, manufacturer, elements) or "generic"
        return super().read(elements, package=package, family=family, manufacturer=manufacturer)

    # --- rows ------------------------------------------------------------------------------------
    def main_bars(self, m: Matcher) -> list[UIElement]:
        return m.find("main_switch_bar")

    def titles(self, m: Matcher) -> list[UIElement]:
        """Row titles top to bottom (not the main bar's own text)."""
        bars = self.main_bars(m)
        return _reading_order([t for t in m.find("row_title") if t.text and not any(inside(t, b) for b in bars)])

    def row_of(self, m: Matcher, title: UIElement) -> UIElement | None:
        """The smallest row container around ``title``."""
        rows = [r for r in m.find("row") if encloses(r, title) or inside(title, r)]
        return min(rows, key=lambda r: r.bounds.area) if rows else None

    def _same_line(self, title: UIElement, cands: Sequence[UIElement]) -> UIElement | None:
        """Of ``cands``, the one on the title's line (vertical overlap), nearest to it."""
        b = title.bounds
        line = [e for e in cands if e.bounds.top <= b.center[1] <= e.bounds.bottom
                or b.top <= e.bounds.center[1] <= b.bottom]
        return min(line, key=lambda e: abs(e.bounds.center[1] - b.center[1])) if line else None

    def toggles_all(self, m: Matcher) -> list[UIElement]:
        """Every switch and check box on screen (radio buttons are options, not toggles)."""
        seen: dict[int, UIElement] = {}
        for role in ("switch", "checkbox"):
            for e in m.find(role):
                seen.setdefault(e.index, e)
        return list(seen.values())

    def switch_of(self, m: Matcher, title: UIElement) -> UIElement | None:
        """The switch or check box on ``title``'s row: inside its row, else on the same line."""
        if title.checkable and title.index in {e.index for e in self.toggles_all(m)}:
            return title
        cands = [e for e in self.toggles_all(m) if not any(inside(e, b) for b in self.main_bars(m))]
        row = self.row_of(m, title)
        if row is not None:
            mine = [e for e in cands if inside(e, row)]
            return mine[0] if mine else None
        free = [e for e in cands if not any(inside(e, r) for r in m.find("row"))]
        return self._same_line(title, free)

    def summary_of(self, m: Matcher, title: UIElement) -> UIElement | None:
        row = self.row_of(m, title)
        if row is not None:
            s = m.first("summary", within=row)
            if s is not None:
                return s
        # no row container: the summary just under the title, in its column
        b = title.bounds
        below = [e for e in m.find("summary") if e.bounds.top >= b.bottom - 4 and abs(e.bounds.left - b.left) < 40
                 and e.bounds.top - b.bottom < 120]
        return min(below, key=lambda e: e.bounds.top) if below else None

    def title_for(self, m: Matcher, label: str) -> UIElement | None:
        want = norm(label)
        return next((t for t in self.titles(m) if norm(t.text) == want), None)

    def switch_for(self, m: Matcher, label: str) -> UIElement | None:
        """The switch a person means by ``label``: the one on the row titled so, or the page's main
        switch when its bar carries that label."""
        t = self.title_for(m, label)
        if t is not None:
            sw = self.switch_of(m, t)
            if sw is not None:
                return sw
        for bar in self.main_bars(m):
            if norm(label) in {norm(x) for x in self._bar_labels(m, bar)}:
                sw = m.first("main_switch", within=bar)
                if sw is not None:
                    return sw
        return None

    def summary_for(self, m: Matcher, label: str) -> str | None:
        t = self.title_for(m, label)
        s = self.summary_of(m, t) if t is not None else None
        return s.text if s is not None else None

    # --- the main on/off bar -----------------------------------------------------------------------
    def _bar_labels(self, m: Matcher, bar: UIElement) -> list[str]:
        """What names a main bar: the label before the state in its switch's text or the bar's
        description ('Opcje programisty, Włączony'), else its switch_text ('Use Wi‑Fi')."""
        out: list[str] = []
        sw = m.first("main_switch", within=bar)
        for s in ((sw.text if sw is not None else ""), bar.content_desc):
            if s and "," in s:
                out.append(s.split(",")[0].strip())
        txt = m.first("main_switch_text", within=bar)
        if txt is not None and txt.text:
            out.append(txt.text.strip())
        return out

    def main_switch_label(self, m: Matcher, bar: UIElement) -> str:
        labels = self._bar_labels(m, bar)
        if labels:
            return labels[0]
        title = m.first("title")
        return (title.text or title.content_desc) if title is not None else ""

    # --- what a person reads -----------------------------------------------------------------------
    def toggles(self, m: Matcher) -> dict[str, bool]:
        out: dict[str, bool] = {}
        for bar in self.main_bars(m):
            sw = m.first("main_switch", within=bar)
            if sw is not None:
                out[f"{self.main_switch_label(m, bar)} (main switch)"] = bool(sw.checked)
        for t in self.titles(m):
            sw = self.switch_of(m, t)
            if sw is not None and t.text not in out:
                out[t.text] = bool(sw.checked)
        return out

    def rows(self, m: Matcher) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for t in self.titles(m):
            s = self.summary_of(m, t)
            row: dict[str, Any] = {"title": t.text, "summary": s.text if s is not None else None}
            sw = self.switch_of(m, t)
            if sw is not None:
                row["switch"] = bool(sw.checked)
            out.append(row)
        return out

    def option_checked(self, m: Matcher, opt: UIElement) -> bool:
        if opt.checkable:
            return bool(opt.checked)
        for row in m.find("radio_row"):
            if inside(opt, row):
                rb = m.first("radio_button", within=row)
                if rb is not None:
                    return bool(rb.checked)
        rb = self._same_line(opt, m.find("radio_button"))
        return bool(rb.checked) if rb is not None else False

    def options(self, m: Matcher) -> list[dict[str, Any]]:
        return [{"label": o.text, "checked": self.option_checked(m, o)}
                for o in _reading_order(m.find("radio_option")) if o.text]

    def controls(self, m: Matcher) -> list[Any]:
        """As the base, less the row switches that are in fact a main bar's switch."""
        bars = self.main_bars(m)
        drop = {e.index for e in m.find("row_switch") if any(inside(e, b) for b in bars)}
        return [c for c in super().controls(m) if not (c.role == "row_switch" and c.index in drop)]

    def visible(self, m: Matcher, screen: str | None) -> dict[str, Any]:
        out: dict[str, Any] = {}
        title = m.first("title")
        if title is not None and (title.text or title.content_desc):
            out["title"] = (title.text or title.content_desc).strip()
        out["toggles"] = self.toggles(m)
        out["entries"] = [t.text for t in self.titles(m)]
        out["rows"] = self.rows(m)
        opts = self.options(m)
        if opts:
            out["options"] = opts
            out["selected"] = next((o["label"] for o in opts if o["checked"]), None)
        return out
