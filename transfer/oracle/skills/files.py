"""Oracle skills for Files (DocumentsUI): navigate, create, rename, move, delete, count, size.

Every skill starts by opening Files and getting to the top of internal storage from
whatever screen the app was left on: the `sim` flavor opens there (its breadcrumb's first
crumb leads back to it); the `aosp` flavor opens on "Recent", so the skills go through the
roots drawer ("Show roots" → "Internal storage"), as a person would on a stock phone.
Folders are entered by tapping their row titles (scrolling when needed); items are selected
with a long press, and the action bar / "More options" menu does the rest.
"""

from __future__ import annotations

import re

from actionmap.actions import LongPress, Scroll, Tap
from actionmap.observation import UIElement

from ..base import Ctx, OracleError, Skill, act, back, open_app, scroll_to, tap, type_into

ROOT = "/sdcard"
STORAGE = "Internal storage"
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

def _list(ctx: Ctx) -> UIElement | None:
    return ctx.find(rid="list", pred=lambda e: e.scrollable)


def _toolbar(ctx: Ctx) -> UIElement | None:
    return ctx.find(rid="toolbar")


def toolbar_title(ctx: Ctx) -> str | None:
    tb = _toolbar(ctx)
    if tb is None:
        return None
    for e in ctx.find_all(rid="title"):
        if tb.bounds.top <= e.bounds.center[1] <= tb.bounds.bottom:
            return e.text
    return None


def _row_title(ctx: Ctx, name: str):
    """A predicate for the title of the list row called exactly ``name``."""
    def pred(e: UIElement) -> bool:
        lst = _list(ctx)
        return (e.text == name and e.resource_id.endswith("/title") and lst is not None
                and lst.bounds.top <= e.bounds.center[1] <= lst.bounds.bottom)
    return pred


def _crumbs(ctx: Ctx) -> list[UIElement]:
    return ctx.find_all(rid="breadcrumb_text")


def _overlay(ctx: Ctx) -> bool:
    """A dialog, popup menu or drawer is open."""
    if any(ctx.has(rid=r) for r in ("parentPanel", "drawer_roots")):
        return True
    return ctx.has(rid="android:id/list", cls="ListView")


def _selecting(ctx: Ctx) -> bool:
    t = toolbar_title(ctx) or ""
    return bool(re.fullmatch(r"\d+ selected", t))


def _in_picker(ctx: Ctx) -> bool:
    return ctx.has(rid="button_confirm") or ctx.has(rid="button_cancel")


def _at_storage_root(ctx: Ctx) -> bool:
    if _overlay(ctx) or _selecting(ctx) or _in_picker(ctx):
        return False
    crumbs = [c.text for c in _crumbs(ctx)]
    return toolbar_title(ctx) == STORAGE and crumbs == [STORAGE]


def rows(ctx: Ctx) -> list[tuple[str, str | None]]:
    """(title, subtitle) of every list row fully on screen (a clipped row has no subtitle)."""
    out = []
    lst = _list(ctx)
    for row in ctx.find_all(rid="item_root"):
        if lst is not None and not (lst.bounds.top <= row.bounds.center[1] <= lst.bounds.bottom):
            continue
        inside = [e for e in ctx.obs.elements if e.index != row.index and e.text
                  and row.bounds.left <= e.bounds.center[0] <= row.bounds.right
                  and row.bounds.top <= e.bounds.center[1] <= row.bounds.bottom]
        title = next((e.text for e in inside if e.resource_id.endswith("/title")), None)
        sub = next((e.text for e in inside if e.resource_id.endswith("/summary")), None)
        if title is not None:
            out.append((title, sub))
    return out


def _row_subtitle(ctx: Ctx, name: str) -> str | None:
    return next((s for t, s in rows(ctx) if t == name), None)


# --- navigation ----------------------------------------------------------------------------

def open_storage_root(ctx: Ctx) -> Skill:
    """Open Files at the top of internal storage, from any screen it was left on."""
    yield from open_app(ctx, "files")
    for _ in range(10):
        if _at_storage_root(ctx):
            return ctx.obs
        if ctx.obs.foreground.app not in (None, "files"):
            yield from open_app(ctx, "files")
            continue
        if _overlay(ctx) or _selecting(ctx) or _in_picker(ctx):
            yield from back(ctx)
            continue
        if ctx.flavor == "aosp" and ctx.has(desc="Show roots"):
            yield from tap(ctx, desc="Show roots", scroll=False)
            yield from tap(ctx, STORAGE, scroll=False, pred=lambda e: e.resource_id.endswith("/title"))
            continue
        first = next((c for c in _crumbs(ctx) if c.text == STORAGE and c.clickable), None)
        if first is not None:
            yield from act(ctx, Tap(target=first.index))
            continue
        yield from back(ctx)
    if not _at_storage_root(ctx):
        raise OracleError("could not reach the top of internal storage in Files")
    return ctx.obs


def enter(ctx: Ctx, name: str) -> Skill:
    """Tap the folder row ``name`` in the current listing and check we are inside it."""
    el = yield from scroll_to(ctx, pred=_row_title(ctx, name))
    yield from act(ctx, Tap(target=el.index))
    if toolbar_title(ctx) != name and not (ctx.flavor == "aosp" and toolbar_title(ctx) == "Downloads"):
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
    el = yield from scroll_to(ctx, pred=_row_title(ctx, name))
    yield from act(ctx, LongPress(target=el.index))
    if toolbar_title(ctx) != "1 selected":
        raise OracleError(f"long press did not select {name!r} (title {toolbar_title(ctx)!r})")
    return ctx.obs


def _menu(ctx: Ctx, label: str) -> Skill:
    yield from tap(ctx, desc="More options", scroll=False)
    return (yield from tap(ctx, label, scroll=False, pred=lambda e: e.resource_id.endswith("/title")))


def _dialog_error(ctx: Ctx) -> str | None:
    err = ctx.find(rid="textinput_error")
    return err.text if err is not None else None


def _name_dialog(ctx: Ctx, name: str, confirm: str) -> Skill:
    yield from type_into(ctx, None, name, clear=True, cls="EditText")
    yield from tap(ctx, confirm, cls="Button", scroll=False)
    err = _dialog_error(ctx)
    if err:
        yield from tap(ctx, "Cancel", cls="Button", scroll=False)
        raise OracleError(err)
    return ctx.obs


def _toast(ctx: Ctx) -> str:
    el = ctx.find(cls="Toast")
    return el.text if el is not None else ""


# --- operations ----------------------------------------------------------------------------

def create_folder(ctx: Ctx, parent_path: str, name: str) -> Skill:
    """Create folder ``name`` in ``parent_path`` (overflow → New folder); returns its path."""
    parent = norm_path(parent_path)
    yield from open_folder(ctx, parent)
    yield from _menu(ctx, "New folder")
    yield from _name_dialog(ctx, name, ctx.t("Create", "OK"))
    yield from scroll_to(ctx, pred=_row_title(ctx, name.strip()))
    return f"{parent}/{name.strip()}"


def rename_file(ctx: Ctx, path: str, new_name: str) -> Skill:
    """Rename a file or folder (select → More options → Rename); returns the new path."""
    parent, _ = split(path)
    yield from select(ctx, path)
    yield from _menu(ctx, "Rename")
    yield from _name_dialog(ctx, new_name, ctx.t("Rename", "OK"))
    yield from scroll_to(ctx, pred=_row_title(ctx, new_name.strip()))
    return f"{parent}/{new_name.strip()}"


def move_file(ctx: Ctx, path: str, dest_dir: str) -> Skill:
    """Move a file or folder into ``dest_dir`` (select → Move to… → pick folder → Move)."""
    _, name = split(path)
    dest = norm_path(dest_dir)
    yield from select(ctx, path)
    yield from _menu(ctx, ctx.t("Move to", "Move to…"))
    if not _in_picker(ctx):
        raise OracleError("the folder picker did not open")
    crumbs = _crumbs(ctx)
    if len(crumbs) > 1 and crumbs[0].text == STORAGE:
        yield from act(ctx, Tap(target=crumbs[0].index))
    for part in parts_of(dest):
        el = yield from scroll_to(ctx, pred=_row_title(ctx, part))
        yield from act(ctx, Tap(target=el.index))
        crumbs = [c.text for c in _crumbs(ctx)]
        if not crumbs or crumbs[-1] != part:  # a greyed-out row (a file, or the item itself)
            yield from tap(ctx, "Cancel", cls="Button", scroll=False)
            raise OracleError(f"{part!r} cannot be picked as a destination")
    yield from tap(ctx, ctx.t("Move here", "Move"), cls="Button", scroll=False)
    if _in_picker(ctx):
        msg = _toast(ctx)
        yield from tap(ctx, "Cancel", cls="Button", scroll=False)
        raise OracleError(f"move refused: {msg or 'still in the picker'}")
    return f"{dest}/{name}"


def delete_file(ctx: Ctx, path: str) -> Skill:
    """Delete a file or folder (select → Delete → confirm)."""
    _, name = split(path)
    yield from select(ctx, path)
    yield from tap(ctx, desc="Delete", scroll=False)
    msg = ctx.find(rid="android:id/message")
    if msg is None or not msg.text.startswith("Delete"):
        raise OracleError("no delete confirmation")
    yield from tap(ctx, "Delete", cls="Button", scroll=False)
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
    yield from scroll_to(ctx, pred=_row_title(ctx, name))
    sub = _row_subtitle(ctx, name) or ""
    m = SIZE_RE.search(sub)
    if m:
        return m.group(1)
    # a folder: its properties show the total size
    yield from select(ctx, path)
    yield from _menu(ctx, ctx.t("Details", "Properties"))
    size = ctx.find(rid="info_size")
    val = None
    if size is not None:
        inside = [e for e in ctx.obs.elements if e.resource_id.endswith("/summary")
                  and size.bounds.top <= e.bounds.center[1] <= size.bounds.bottom]
        val = inside[0].text if inside else None
    if not val:
        raise OracleError(f"no size shown for {path!r}")
    return val
