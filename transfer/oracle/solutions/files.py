"""Oracle solutions for Files (DocumentsUI) templates.

Every operation is retried (``_util.retrying``) when it fails on the way: a tap on a row that
the app takes for a long press selects the row instead of opening it. Retrying is safe here
because names are unique in a folder: a step that already happened cannot happen twice.

Folders are created, and files renamed, moved, copied and deleted with ``skills.files``;
sizes and counts are read from the folder listing (a file's row shows its size, a folder's
shows its item count or nothing).
"""

from __future__ import annotations

import re
from typing import Any

from ..base import Ctx, OracleError, Skill, answer, complete
from ..skills import files as F
from ..skills.common import retrying
from .registry import solution

DL, DOCS = "/sdcard/Download", "/sdcard/Documents"
_UNITS = {"B": 1, "KB": 1000, "MB": 1000 ** 2, "GB": 1000 ** 3, "TB": 1000 ** 4, "PB": 1000 ** 5}
_SIZE = re.compile(r"(\d+(?:[.,]\d+)?)\s?(B|kB|KB|MB|GB|TB|PB)\b")


def size_bytes(text: str) -> float | None:
    """'184 kB' → 184000 (DocumentsUI shows decimal units)."""
    m = _SIZE.search(text or "")
    if not m:
        return None
    return float(m.group(1).replace(",", ".")) * _UNITS[m.group(2).upper()]


def copy_file(ctx: Ctx, path: str, dest_dir: str) -> Skill:
    """Copy a file into ``dest_dir`` (select → Copy to… → pick the folder → Copy)."""
    return (yield from F.copy_file(ctx, path, dest_dir))


# --- operate -------------------------------------------------------------------------------------

@solution("files.create_folder")
def solve_create_folder(ctx: Ctx, inst: Any) -> Skill:
    yield from retrying(ctx, lambda: F.create_folder(ctx, DOCS, inst.params["name"]), tries=3)
    yield from complete(ctx)


@solution("train.files.create_folder_download")
def solve_create_folder_download(ctx: Ctx, inst: Any) -> Skill:
    yield from retrying(ctx, lambda: F.create_folder(ctx, DL, inst.params["name"]), tries=3)
    yield from complete(ctx)


@solution("train.files.create_nested")
def solve_create_nested(ctx: Ctx, inst: Any) -> Skill:
    outer = yield from retrying(ctx, lambda: F.create_folder(ctx, DOCS, inst.params["a"]), tries=3)
    yield from retrying(ctx, lambda: F.create_folder(ctx, outer, inst.params["b"]), tries=3)
    yield from complete(ctx)


@solution("files.rename")
def solve_rename(ctx: Ctx, inst: Any) -> Skill:
    yield from retrying(ctx, lambda: F.rename_file(ctx, f"{DL}/{inst.params['f']}", inst.params["new"]), tries=3)
    yield from complete(ctx)


@solution("train.files.rename_folder")
def solve_rename_folder(ctx: Ctx, inst: Any) -> Skill:
    yield from retrying(ctx, lambda: F.rename_file(ctx, f"{DOCS}/{inst.params['old']}", inst.params["new"]), tries=3)
    yield from complete(ctx)


@solution("files.move")
def solve_move(ctx: Ctx, inst: Any) -> Skill:
    yield from retrying(ctx, lambda: F.move_file(ctx, f"{DL}/{inst.params['f']}", f"{DOCS}/{inst.params['folder']}"), tries=3)
    yield from complete(ctx)


@solution("train.files.move_to_download")
def solve_move_to_download(ctx: Ctx, inst: Any) -> Skill:
    yield from retrying(ctx, lambda: F.move_file(ctx, f"{DOCS}/{inst.params['folder']}/{inst.params['f']}", DL), tries=3)
    yield from complete(ctx)


@solution("train.files.copy")
def solve_copy(ctx: Ctx, inst: Any) -> Skill:
    yield from retrying(ctx, lambda: copy_file(ctx, f"{DL}/{inst.params['f']}", DOCS), tries=3)
    yield from complete(ctx)


@solution("files.delete")
def solve_delete(ctx: Ctx, inst: Any) -> Skill:
    yield from retrying(ctx, lambda: F.delete_file(ctx, f"{DL}/{inst.params['f']}"), tries=3)
    yield from complete(ctx)


@solution("train.files.delete_two")
def solve_delete_two(ctx: Ctx, inst: Any) -> Skill:
    for name in (inst.params["a"], inst.params["b"]):
        yield from retrying(ctx, lambda name=name: F.delete_file(ctx, f"{DL}/{name}"), tries=3)
    yield from complete(ctx)


@solution("test.files.organize")
def solve_organize(ctx: Ctx, inst: Any) -> Skill:
    folder = yield from retrying(ctx, lambda: F.create_folder(ctx, DOCS, inst.params["folder"]), tries=3)
    for name in (inst.params["a"], inst.params["b"]):
        yield from retrying(ctx, lambda name=name: F.move_file(ctx, f"{DL}/{name}", folder), tries=3)
    yield from complete(ctx)


@solution("test.files.rename_and_move")
def solve_rename_and_move(ctx: Ctx, inst: Any) -> Skill:
    new_path = yield from retrying(ctx, lambda: F.rename_file(ctx, f"{DL}/{inst.params['f']}", inst.params["new"]), tries=3)
    yield from retrying(ctx, lambda: F.move_file(ctx, new_path, f"{DOCS}/{inst.params['folder']}"), tries=3)
    yield from complete(ctx)


# --- queries -------------------------------------------------------------------------------------

@solution("files.query_count")
def solve_query_count(ctx: Ctx, inst: Any) -> Skill:
    n = yield from retrying(ctx, lambda: F.count_files(ctx, f"{DOCS}/{inst.params['folder']}"), tries=3)
    yield from answer(ctx, count=n)


@solution("train.files.query_folder_count")
def solve_query_folder_count(ctx: Ctx, inst: Any) -> Skill:
    seen = yield from retrying(ctx, lambda: F.list_folder(ctx, DOCS), tries=3)
    yield from answer(ctx, count=sum(1 for sub in seen.values() if size_bytes(sub or "") is None))


@solution("train.files.query_size")
def solve_query_size(ctx: Ctx, inst: Any) -> Skill:
    shown = yield from retrying(ctx, lambda: F.read_file_size(ctx, f"{DL}/{inst.params['f']}"), tries=3)
    b = size_bytes(shown)
    if b is None:
        raise OracleError(f"cannot read a size in {shown!r}")
    yield from answer(ctx, size=f"{round(b / 1000)} kB")


@solution("train.files.query_largest")
def solve_query_largest(ctx: Ctx, inst: Any) -> Skill:
    seen = yield from retrying(ctx, lambda: F.list_folder(ctx, DL), tries=3)
    sized = [(size_bytes(sub or ""), name) for name, sub in seen.items()]
    sized = [(b, n) for b, n in sized if b is not None]
    if not sized:
        raise OracleError("no file sizes shown in Download")
    best = max(b for b, _ in sized)
    top = [n for b, n in sized if b == best]
    if len(top) != 1:
        raise OracleError(f"several files show the largest size: {top}")
    yield from answer(ctx, name=top[0])
