"""Files: the file browser (a folder's listing, the roots drawer, dialogs, the picker) — read by role.

What a person reads off a folder is its rows: a *file row* is the list item around one name
(DocumentsUI's ``item_root``; the smallest clickable container around a name elsewhere), its
name the title inside it, and its details the subtitle parts inside it (one ``metadata`` line
since Android 12; ``date`` / ``size`` / ``file_type`` / ``summary`` before). Where a listing is
is read from its breadcrumb and toolbar title, never from a root's name: DocumentsUI names the
storage root after the device ("Pixel 8"), so the storage root is found as the drawer's root that
shows its free space.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

from actionmap.observation import UIElement

from .base import AppDriver
from .match import Matcher

SEP = " · "


class FilesDriver(AppDriver):
    app = "files"
    control_roles: ClassVar[tuple[str, ...]] = (
        "toolbar_title", "breadcrumb", "selection_title", "show_roots", "search", "more_options", "navigate_up",
        "file_list", "file_row", "file_name", "file_details", "delete_selected", "share_selected",
        "drawer", "root_row", "storage_root", "menu_item", "name_field", "name_error", "create_folder_ok",
        "rename_ok", "delete_message", "delete_ok", "dialog_cancel", "picker_confirm", "picker_cancel",
        "info_key", "info_value",
    )

    # --- rows --------------------------------------------------------------------------------------
    def row_name(self, m: Matcher, row: UIElement) -> str | None:
        el = m.first("file_name", within=row)
        return el.text if el is not None and el.text else None

    def row_details(self, m: Matcher, row: UIElement) -> str | None:
        """The row's subtitle as one line ('Mar 14 · 184 kB'); None when it shows none (a clipped row)."""
        name = m.first("file_name", within=row)
        parts = [e.text.strip() for e in m.all_in("file_details", row)
                 if e.text.strip() and (name is None or e.index != name.index)]
        return SEP.join(parts) if parts else None

    def rows(self, m: Matcher) -> list[tuple[UIElement, str, str | None]]:
        """(row, name, details) of every file row on screen, top to bottom."""
        out = []
        for row in m.find("file_row"):
            name = self.row_name(m, row)
            if name is not None:
                out.append((row, name, self.row_details(m, row)))
        return out

    def row_for(self, m: Matcher, name: str) -> UIElement | None:
        return next((r for r, n, _ in self.rows(m) if n == name), None)

    # --- where we are ------------------------------------------------------------------------------
    def crumbs(self, m: Matcher) -> list[str]:
        return [e.text for e in m.find("breadcrumb") if e.text]

    def title(self, m: Matcher) -> str | None:
        t = m.first("toolbar_title")
        if t is not None and t.text:
            return t.text
        crumbs = self.crumbs(m)
        return crumbs[-1] if crumbs else None

    def selected_count(self, m: Matcher) -> int | None:
        t = m.first("selection_title")
        if t is None:
            return None
        n = re.search(r"\d+", t.text or t.content_desc)
        return int(n.group()) if n else None

    def root_name(self, m: Matcher, row: UIElement) -> str | None:
        """A drawer root's title. The drawer lies over the listing, so a file's name behind it may
        share the row's box: the title drawn last (the drawer's own) wins."""
        titles = [t for t in m.all_in("root_title", row) if t.text]
        return titles[-1].text if titles else None

    def storage_root_title(self, m: Matcher) -> str | None:
        """The device storage's name as the roots drawer shows it (e.g. 'Pixel 8')."""
        row = m.first("storage_root")
        return self.root_name(m, row) if row is not None else None

    def info(self, m: Matcher) -> dict[str, str]:
        """A properties screen as {key: value}: each value is the one on its key's row."""
        out: dict[str, str] = {}
        values = m.find("info_value")
        for k in m.find("info_key"):
            kb = k.bounds
            best = None
            for v in values:
                vb = v.bounds
                same_row = vb.top < kb.bottom and kb.top < vb.bottom       # side by side
                below = 0 <= vb.top - kb.bottom <= 2 * max(1, kb.height) and abs(vb.left - kb.left) <= kb.height
                if same_row or below:
                    best = v
                    break
            if best is not None and k.text:
                out[k.text] = best.text
        return out

    def visible(self, m: Matcher, screen: str | None) -> dict[str, Any]:
        out: dict[str, Any] = {}
        title = self.title(m)
        if title is not None:
            out["title"] = title
        crumbs = self.crumbs(m)
        if crumbs:
            out["path"] = crumbs
        rows = self.rows(m)
        if rows or screen in ("folder", "files", "picker", "selection"):
            out["items"] = [n for _, n, _ in rows]
            out["details"] = {n: d for _, n, d in rows}
        n = self.selected_count(m)
        if n is not None:
            out["selected"] = n
        if screen == "roots_drawer":
            out["roots"] = [t for t in (self.root_name(m, row) for row in m.find("root_row")) if t]
            root = self.storage_root_title(m)
            if root is not None:
                out["storage_root"] = root
        elif screen == "delete_dialog":
            msg = m.first("delete_message")
            out["message"] = msg.text if msg is not None else None
        elif screen == "name_dialog":
            f = m.first("name_field")
            out["name"] = f.text if f is not None and f.text != f.hint else ""
            err = m.first("name_error")
            if err is not None:
                out["error"] = err.text
        elif screen == "menu":
            out["menu"] = [e.text for e in m.find("menu_item")]
        elif screen == "properties":
            out["properties"] = self.info(m)
        return out
