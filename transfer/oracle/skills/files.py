"""Oracle skills for Files (DocumentsUI): navigate, create, rename, move, delete, count, size.

Every control is found through the app UI layer (:mod:`device.apps.files`, data in
``device/apps/data/files.yaml``): file rows, the breadcrumb, the roots drawer, the overflow's
items (by the family's wording), the dialogs' buttons. Every skill starts by opening Files and
getting to the top of internal storage from whatever screen the app was left on: an app with
one root (the `sim` flavor) opens there and its breadcrumb's first crumb leads back to it;
DocumentsUI opens on "Recent", so the skills go through the roots drawer to the root that
shows its free space — the device's storage, whatever the phone calls it (DocumentsUI names it
after the device, e.g. "Pixel 8"). Folders are entered by tapping their row names (scrolling
when needed); items are selected with a long press, and the action bar / overflow menu does
the rest.
"""

from __future__ import annotations

import re
from typing import Any

from actionmap.actions import LongPress, Scroll, Tap, TypeText
from actionmap.observation import UIElement

from ..base import Ctx, OracleError, Skill, act, back, norm, open_app, scroll_to_role, tap_role

ROOT = "/sdcard"
SIZE_RE = re.compile(r"(\d+(?:[.,]\d+)?\s?(?:B|kB|KB|MB|GB|TB|PB))\b")


# --- paths ---------------------------------------------------------------------------------

def norm_path(path: str) -> str:
    """``/storage/emulated/0/Download/`` → ``/sdcard/Download``; must lie in shared storage."""
    p = (path or "").strip()
    for alias in ("/storage/emulated/0", "/storage/self/primary", "/mnt/sdcard"):
        if p == alias or p.startswith(alias + "/"):
            p = ROOT + p[len(alias):]
    p = re.sub(r"/+", "/", p).rstrip("/") or "/"
    if p != ROOT and not p.startswith(ROOT + "/"):
        raise OracleError(f"not a shared-storage path: {path!r}")
    if any(part in (".", "..") for part in p.split("/")):
        raise OracleError(f"relative components in path: {path!r}")
    return p


def split(path: str) -> tuple[str, str]:
    p = norm_path(path)
    if p == ROOT:
        raise OracleError("the storage root has no parent")
    return p.rsplit("/", 1)[0], p.rsplit("/", 1)[1]


def parts_of(path: str) -> list[str]:
    p = norm_path(path)
    return [] if p == ROOT else p[len(ROOT) + 1:].split("/")


# --- reading the screen --------------------------------------------------------------------

APP = "files"


def _drv() -> Any:
    from device.apps import driver

    return driver(APP)


def toolbar_title(ctx: Ctx) -> str | None:
    t = ctx.role(APP, "toolbar_title")
    return t.text if t is not None else None


def _row_title(ctx: Ctx, name: str):
    """A predicate for the name of the list row called exactly ``name``."""
    def pred(e: UIElement) -> bool:
        return e.text == name
    return pred


def _find_row_title(ctx: Ctx, name: str) -> Skill:
    """Scroll the listing until the row called ``name`` shows; returns its name element."""
    return (yield from scroll_to_role(ctx, APP, "file_name", pred=_row_title(ctx, name)))


def _crumbs(ctx: Ctx) -> list[UIElement]:
    return ctx.roles(APP, "breadcrumb")


def _overlay(ctx: Ctx) -> bool:
    """A dialog, popup menu or drawer is open."""
    return any(ctx.role(APP, r) is not None for r in ("dialog", "drawer", "popup_menu"))


def _selecting(ctx: Ctx) -> bool:
    return ctx.role(APP, "selection_title") is not None


def _in_picker(ctx: Ctx) -> bool:
    return ctx.role(APP, "picker_confirm") is not None or ctx.role(APP, "picker_cancel") is not None


def _root_title(ctx: Ctx) -> str | None:
    """The storage root's name as this phone shows it (learnt from the roots drawer or the breadcrumb)."""
    return ctx.__dict__.get("_files_root")


def _at_storage_root(ctx: Ctx) -> bool:
    """A listing whose breadcrumb is the storage root alone.

    The root's name is the device's (DocumentsUI) or the app's own wording; it is learnt, not
    assumed: from the roots drawer's storage row, or — in an app with a single root and no
    drawer — from the breadcrumb's only crumb.
    """
    if _overlay(ctx) or _selecting(ctx) or _in_picker(ctx):
        return False
    crumbs = [c.text for c in _crumbs(ctx)]
    if len(crumbs) != 1:
        return False
    root = _root_title(ctx)
    if root is None:
        if ctx.role(APP, "show_roots") is not None:  # several roots: only the drawer tells which is storage
            return False
        ctx.__dict__["_files_root"] = root = crumbs[0]
    return crumbs == [root] and toolbar_title(ctx) in (root, None)


def rows(ctx: Ctx) -> list[tuple[str, str | None]]:
    """(title, subtitle) of every list row fully on screen (a clipped row has no subtitle)."""
    return [(n, d) for _, n, d in _drv().rows(ctx.ui(APP))]


def _row_subtitle(ctx: Ctx, name: str) -> str | None:
    return next((s for t, s in rows(ctx) if t == name), None)


# --- navigation ----------------------------------------------------------------------------

def open_storage_root(ctx: Ctx) -> Skill:
    """Open Files at the top of internal storage, from any screen it was left on."""
    yield from open_app(ctx, APP)
    for _ in range(10):
        if _at_storage_root(ctx):
            return ctx.obs
        if ctx.obs.foreground.app not in (None, APP):
            yield from open_app(ctx, APP)
            continue
        if _overlay(ctx) or _selecting(ctx) or _in_picker(ctx):
            yield from back(ctx)
            continue
        if ctx.role(APP, "show_roots") is not None:
            yield from tap_role(ctx, APP, "show_roots")
            row = ctx.need(APP, "storage_root")
            name = _drv().root_name(ctx.ui(APP), row)
            if name:
                ctx.__dict__["_files_root"] = name
            title = next((t for t in reversed(ctx.roles(APP, "root_title", within=row)) if t.text == name), None)
            yield from act(ctx, Tap(target=(title or row).index))
            continue
        root = _root_title(ctx)
        first = next((c for c in _crumbs(ctx) if c.clickable and (root is None or c.text == root)), None)
        if first is not None:
            yield from act(ctx, Tap(target=first.index))
            continue
        yield from back(ctx)
    if not _at_storage_root(ctx):
        raise OracleError(f"could not reach the top of internal storage in Files ({ctx.family(APP)} family)")
    return ctx.obs


def enter(ctx: Ctx, name: str) -> Skill:
    """Tap the folder row ``name`` in the current listing and check we are inside it."""
    el = yield from _find_row_title(ctx, name)
    yield from act(ctx, Tap(target=el.index))
    if toolbar_title(ctx) != name:
        crumbs = [c.text for c in _crumbs(ctx)]
        if not crumbs or crumbs[-1] != name:
            raise OracleError(f"did not open folder {name!r} (title {toolbar_title(ctx)!r})")
    return ctx.obs


def open_folder(ctx: Ctx, path: str) -> Skill:
    """Show the folder ``path`` (e.g. ``/sdcard/Download``) in Files."""
    yield from open_storage_root(ctx)
    for part in parts_of(path):
        yield from enter(ctx, part)
    return ctx.obs


def select(ctx: Ctx, path: str) -> Skill:
    """Open the item's folder and long-press it into selection ("1 selected")."""
    parent, name = split(path)
    yield from open_folder(ctx, parent)
    el = yield from _find_row_title(ctx, name)
    yield from act(ctx, LongPress(target=el.index))
    if _drv().selected_count(ctx.ui(APP)) != 1:
        raise OracleError(f"long press did not select {name!r} (title {toolbar_title(ctx)!r})")
    return ctx.obs


def _menu(ctx: Ctx, key: str) -> Skill:
    """Overflow → the item the family words ``key`` (e.g. 'Move to…')."""
    yield from tap_role(ctx, APP, "more_options")
    labels = _labels(ctx, key)
    return (yield from tap_role(ctx, APP, "menu_item", pred=lambda e: norm(e.text) in labels))


def _labels(ctx: Ctx, key: str) -> set[str]:
    w = ctx.words(APP, key)
    return {norm(x) for x in (w if isinstance(w, list) else [w])}


def _dialog_error(ctx: Ctx) -> str | None:
    err = ctx.role(APP, "name_error")
    return err.text if err is not None else None


def _name_dialog(ctx: Ctx, name: str, confirm: str) -> Skill:
    field = ctx.need(APP, "name_field")
    if not field.focused:
        yield from act(ctx, Tap(target=field.index))
    yield from act(ctx, TypeText(text=name, clear=True))
    yield from tap_role(ctx, APP, confirm)
    err = _dialog_error(ctx)
    if err:
        yield from tap_role(ctx, APP, "dialog_cancel")
        raise OracleError(err)
    return ctx.obs


def _toast(ctx: Ctx) -> str:
    el = ctx.role(APP, "toast")
    return el.text if el is not None else ""


# --- operations ----------------------------------------------------------------------------

def create_folder(ctx: Ctx, parent_path: str, name: str) -> Skill:
    """Create folder ``name`` in ``parent_path`` (overflow → New folder); returns its path."""
    parent = norm_path(parent_path)
    yield from open_folder(ctx, parent)
    yield from _menu(ctx, "new_folder")
    yield from _name_dialog(ctx, name, "create_folder_ok")
    yield from _find_row_title(ctx, name.strip())
    return f"{parent}/{name.strip()}"


def rename_file(ctx: Ctx, path: str, new_name: str) -> Skill:
    """Rename a file or folder (select → More options → Rename); returns the new path."""
    parent, _ = split(path)
    yield from select(ctx, path)
    yield from _menu(ctx, "rename")
    yield from _name_dialog(ctx, new_name, "rename_ok")
    yield from _find_row_title(ctx, new_name.strip())
    return f"{parent}/{new_name.strip()}"


def _pick(ctx: Ctx, part: str) -> Skill:
    """In the folder picker, enter ``part`` (a greyed-out row cannot be entered)."""
    el = yield from _find_row_title(ctx, part)
    yield from act(ctx, Tap(target=el.index))
    crumbs = [c.text for c in _crumbs(ctx)]
    if not crumbs or crumbs[-1] != part:  # a greyed-out row (a file, or the item itself)
        yield from tap_role(ctx, APP, "picker_cancel")
        raise OracleError(f"{part!r} cannot be picked as a destination")
    return ctx.obs


def _transfer(ctx: Ctx, path: str, dest_dir: str, menu_key: str, verb: str) -> Skill:
    """Select ``path``, overflow → Move to… / Copy to…, pick ``dest_dir`` in the picker, confirm."""
    _, name = split(path)
    dest = norm_path(dest_dir)
    yield from select(ctx, path)
    yield from _menu(ctx, menu_key)
    if not _in_picker(ctx):
        raise OracleError("the folder picker did not open")
    crumbs = _crumbs(ctx)
    if (not crumbs or crumbs[0].text != _root_title(ctx)) and ctx.role(APP, "show_roots") is not None:
        # the picker opened on another root (DocumentsUI: Downloads): its drawer leads to the storage root
        yield from tap_role(ctx, APP, "show_roots")
        yield from act(ctx, Tap(target=ctx.need(APP, "storage_root").index))
        crumbs = _crumbs(ctx)
    if len(crumbs) > 1 and crumbs[0].text == _root_title(ctx):
        yield from act(ctx, Tap(target=crumbs[0].index))
    for part in parts_of(dest):
        yield from _pick(ctx, part)
    yield from tap_role(ctx, APP, "picker_confirm")
    if _in_picker(ctx):
        msg = _toast(ctx)
        yield from tap_role(ctx, APP, "picker_cancel")
        raise OracleError(f"{verb} refused: {msg or 'still in the picker'}")
    return f"{dest}/{name}"


def move_file(ctx: Ctx, path: str, dest_dir: str) -> Skill:
    """Move a file or folder into ``dest_dir`` (select → Move to… → pick folder → Move)."""
    return (yield from _transfer(ctx, path, dest_dir, "move_to", "move"))


def copy_file(ctx: Ctx, path: str, dest_dir: str) -> Skill:
    """Copy a file into ``dest_dir`` (select → Copy to… → pick the folder → Copy)."""
    return (yield from _transfer(ctx, path, dest_dir, "copy_to", "copy"))


def delete_file(ctx: Ctx, path: str) -> Skill:
    """Delete a file or folder (select → Delete → confirm)."""
    _, name = split(path)
    yield from select(ctx, path)
    yield from tap_role(ctx, APP, "delete_selected")
    if ctx.role(APP, "delete_message") is None:
        raise OracleError("no delete confirmation")
    yield from tap_role(ctx, APP, "delete_ok")
    if any(t == name for t, _ in rows(ctx)):
        raise OracleError(f"{name!r} is still listed after delete")
    return norm_path(path)


def list_folder(ctx: Ctx, dir_path: str) -> Skill:
    """Every row of a folder as {name: subtitle}, scrolling through the whole list."""
    yield from open_folder(ctx, dir_path)
    seen: dict[str, str | None] = {}

    def collect() -> None:
        for t, s in rows(ctx):
            if s is not None or t not in seen:
                seen[t] = s
    for _ in range(ctx.max_scrolls):  # to the top first (the list keeps its scroll position)
        before = [(e.text, e.bounds) for e in ctx.obs.elements]
        yield from act(ctx, Scroll(direction="up"))
        if [(e.text, e.bounds) for e in ctx.obs.elements] == before:
            break
    collect()
    for _ in range(ctx.max_scrolls * 2):
        before = [(e.text, e.bounds) for e in ctx.obs.elements]
        yield from act(ctx, Scroll(direction="down"))
        if [(e.text, e.bounds) for e in ctx.obs.elements] == before:
            break
        collect()
    return seen


def count_files(ctx: Ctx, dir_path: str, include_folders: bool = False) -> Skill:
    """How many files ``dir_path`` holds directly (folders too if ``include_folders``)."""
    seen = yield from list_folder(ctx, dir_path)
    # a file's row always shows its size; a folder's shows its item count (or nothing)
    return sum(1 for sub in seen.values() if include_folders or SIZE_RE.search(sub or ""))


def read_file_size(ctx: Ctx, path: str) -> Skill:
    """The size Files shows for ``path`` (e.g. "184 kB"), from its row or, for a folder, its details."""
    parent, name = split(path)
    yield from open_folder(ctx, parent)
    yield from _find_row_title(ctx, name)
    sub = _row_subtitle(ctx, name) or ""
    m = SIZE_RE.search(sub)
    if m:
        return m.group(1)
    # a folder: its properties show the total size
    yield from select(ctx, path)
    yield from _menu(ctx, "properties")
    info = {norm(k): v for k, v in _drv().info(ctx.ui(APP)).items()}
    val = next((info[k] for k in _labels(ctx, "size_key") if k in info), None)
    if not val:
        raise OracleError(f"no size shown for {path!r}")
    return val
