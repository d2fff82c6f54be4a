"""Files app in the simulator: oracle skills drive real headless Chromium, WorldState is checked.

Every flow runs in both flavors from a fresh phone; bad inputs must be refused without
crashing the app or corrupting the file list (no duplicate paths, every parent exists).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from actionmap.actions import Key, LongPress, Tap, TypeText
from sim import state as st
from sim.env import SimEnv
from transfer.oracle.base import Ctx, OracleError, Skill, back, tap
from transfer.oracle.drive import run_skill
from transfer.oracle.skills import files as F

FLAVORS = ["sim", "aosp", "google"]  # google: DocumentsUI as a Pixel builds it (the aosp screens)


def fresh(flavor: str, **patch: Any) -> SimEnv:
    env = SimEnv(flavor=flavor, screenshots=False)  # the skills read elements, not pixels
    env.reset({"start": {"app": "files"}, **patch})
    return env


def run(env: SimEnv, make: Callable[[Ctx], Skill]) -> Any:
    _, _, value = run_skill(env, make, flavor=env.flavor, max_steps=60)
    return value


def files_of(env: SimEnv) -> dict[str, Any]:
    return {f.path: f for f in env.read_state().files or []}


def assert_consistent(env: SimEnv) -> None:
    """The state validates, paths are unique, and every entry's parent folder exists."""
    st.load(env.capture())
    recs = env.read_state().files or []
    paths = [f.path for f in recs]
    assert len(paths) == len(set(paths)), "duplicate paths"
    dirs = {f.path for f in recs if f.kind == "dir"} | {"/sdcard"}
    for p in paths:
        assert p.rsplit("/", 1)[0] in dirs, f"parent of {p} missing"
    obs = env.observe()
    assert not any("has stopped" in e.text for e in obs.elements)


@pytest.mark.parametrize("flavor", FLAVORS)
def test_create_rename_move_delete(flavor: str) -> None:
    env = fresh(flavor)
    before = files_of(env)
    new_dir = run(env, lambda c: F.create_folder(c, "/sdcard/Documents", "Trips 2027 ✈"))
    assert new_dir == "/sdcard/Documents/Trips 2027 ✈"
    got = files_of(env)
    assert got[new_dir].kind == "dir" and got[new_dir].mtime is not None

    renamed = run(env, lambda c: F.rename_file(c, "/sdcard/Documents/notes.txt", "notes é.txt"))
    got = files_of(env)
    assert "/sdcard/Documents/notes.txt" not in got
    assert got[renamed].size == before["/sdcard/Documents/notes.txt"].size  # same file, new name

    moved = run(env, lambda c: F.move_file(c, renamed, new_dir))
    assert moved == f"{new_dir}/notes é.txt" and moved in files_of(env)

    # moving a folder carries its children along
    run(env, lambda c: F.move_file(c, new_dir, "/sdcard/Download"))
    got = files_of(env)
    assert "/sdcard/Download/Trips 2027 ✈" in got and "/sdcard/Download/Trips 2027 ✈/notes é.txt" in got
    assert not any(p.startswith("/sdcard/Documents/Trips") for p in got)

    run(env, lambda c: F.delete_file(c, "/sdcard/Download/setup.apk"))
    got = files_of(env)
    assert "/sdcard/Download/setup.apk" not in got
    assert len(got) == len(before)  # one folder created, one file deleted
    assert_consistent(env)


@pytest.mark.parametrize("flavor", FLAVORS)
def test_queries_read_the_screen(flavor: str) -> None:
    env = fresh(flavor, add={"files": [{"path": "/sdcard/Download/Work/report.pdf", "size": 5_000,
                                        "mtime": "2027-03-15T08:00:00"}]})
    world = env.read_state().files or []
    want = sum(1 for f in world if f.kind == "file" and f.path.rsplit("/", 1)[0] == "/sdcard/Download")
    assert run(env, lambda c: F.count_files(c, "/sdcard/Download")) == want == 3
    # the implied folder "Work" (no record of its own) is listed and counted as a folder
    assert run(env, lambda c: F.count_files(c, "/sdcard/Download", include_folders=True)) == 4
    assert run(env, lambda c: F.count_files(c, "/sdcard/Download/Work")) == 1
    size = run(env, lambda c: F.read_file_size(c, "/sdcard/Download/setup.apk"))
    assert size == {"sim": "8.4 MB", "aosp": "8.42 MB", "google": "8.42 MB"}[flavor]  # Formatter.formatShortFileSize vs formatFileSize
    # deleting the implied folder removes its contents and leaves the list consistent
    run(env, lambda c: F.delete_file(c, "/sdcard/Download/Work"))
    assert not any("/Work" in p for p in files_of(env))
    assert_consistent(env)


@pytest.mark.parametrize("flavor", FLAVORS)
def test_bad_inputs_are_refused(flavor: str) -> None:
    env = fresh(flavor)
    before = sorted(files_of(env))
    with pytest.raises(OracleError, match="already exists"):
        run(env, lambda c: F.create_folder(c, "/sdcard", "Download"))
    with pytest.raises(OracleError, match="empty"):
        run(env, lambda c: F.create_folder(c, "/sdcard", "   "))
    with pytest.raises(OracleError, match="already exists"):
        run(env, lambda c: F.rename_file(c, "/sdcard/Documents/notes.txt", "resume.docx"))
    with pytest.raises(OracleError, match="cannot be picked"):
        run(env, lambda c: F.move_file(c, "/sdcard/Documents", "/sdcard/Documents"))
    with pytest.raises(OracleError, match="not a shared-storage path"):
        run(env, lambda c: F.open_folder(c, "/etc"))
    assert sorted(files_of(env)) == before
    assert_consistent(env)


def test_flavors_differ() -> None:
    sim, aosp = fresh("sim"), fresh("aosp")
    o_sim, o_aosp = sim.observe(), aosp.observe()
    # sim opens on the storage browser; AOSP DocumentsUI opens on Recent with a roots drawer
    assert F.toolbar_title(Ctx(o_sim)) == "Internal storage" and not Ctx(o_sim).has(desc="Show roots")
    assert F.toolbar_title(Ctx(o_aosp, flavor="aosp")) == "Recent" and Ctx(o_aosp).has(desc="Show roots")
    assert Ctx(o_aosp).has("Images", cls="CompoundButton")
    # DocumentsUI titles the storage root with the device's name, never "Internal storage"
    model = aosp.read_state().device.model
    run(aosp, lambda c: F.open_storage_root(c))
    obs = aosp.observe()
    assert F.toolbar_title(Ctx(obs, flavor="aosp")) == model and not Ctx(obs).has("Internal storage")
    msgs = {}
    for env in (sim, aosp):
        run(env, lambda c: F.select(c, "/sdcard/Download/setup.apk"))
        obs, _ = env.step(Tap(target=Ctx(env.observe()).find(desc="Delete").index))
        msgs[env.flavor] = Ctx(obs, flavor=env.flavor).role("files", "delete_message").text
        env.step(Key(key="back"))  # cancel: nothing deleted
        assert "/sdcard/Download/setup.apk" in files_of(env)
    assert msgs == {"sim": "Delete 1 item?", "aosp": 'Delete "setup.apk"?'}


def test_selection_back_and_search() -> None:
    env = fresh("sim")
    run(env, lambda c: F.open_folder(c, "/sdcard/Pictures"))
    ctx = Ctx(env.observe())
    first = ctx.find("IMG_2041.jpg")
    obs, _ = env.step(LongPress(target=first.index))
    obs, _ = env.step(Tap(target=Ctx(obs).find("IMG_2042.jpg").index))  # a tap in action mode adds to it
    assert F.toolbar_title(Ctx(obs)) == "2 selected"
    obs, _ = env.step(Key(key="back"))  # back leaves action mode, not the folder
    assert F.toolbar_title(Ctx(obs)) == "Pictures"
    obs, _ = env.step(Tap(target=Ctx(obs).find(desc="Search").index))
    obs, _ = env.step(TypeText(text="img_20"))
    assert [t for t, _ in F.rows(Ctx(obs))] == ["IMG_2041.jpg", "IMG_2042.jpg"]
    assert_consistent(env)


@pytest.mark.parametrize("flavor", FLAVORS)
def test_screens_sort_and_details(flavor: str) -> None:
    """Sort by size, open a file, its details; AOSP's roots drawer and a category root."""
    env = fresh(flavor)

    def tour(c: Ctx) -> Skill:
        yield from F.open_folder(c, "/sdcard/Download")
        yield from tap(c, desc="More options", scroll=False)
        if c.flavor != "sim":  # res/menu/activity.xml "Sort by..." → SortListFragment's sheet
            yield from tap(c, "Sort by...", scroll=False)
            yield from tap(c, "Size (largest first)", cls="CheckedTextView", scroll=False)
        else:
            yield from tap(c, "Sort by", scroll=False)
            yield from tap(c, "Largest first", cls="RadioButton", scroll=False)
        order = [t for t, _ in F.rows(c)]
        if c.flavor != "sim":
            # no viewer behind a file here ("Can't open file"); Get info is in the selection's overflow
            yield from tap(c, "boarding_pass.pdf", rid="android:id/title")
            yield from F.select(c, "/sdcard/Download/boarding_pass.pdf")
            yield from tap(c, desc="More options", scroll=False)
            yield from tap(c, "Get info", scroll=False)
            details = {t.text for t in c.find_all(rid="table_row_value")} | {t.text for t in c.find_all(rid="inspector_header_title")}
        else:
            yield from tap(c, "boarding_pass.pdf", rid="title")
            yield from tap(c, desc="Details", scroll=False)
            details = {t.text for t in c.find_all(rid="summary")}
        cat_rows: list[str] = []
        if c.flavor != "sim":
            yield from back(c)  # Get info → folder (the drawer lives on browse screens)
            yield from tap(c, desc="Show roots", scroll=False)
            yield from tap(c, "Images", rid="android:id/title", scroll=False)
            cat_rows = [t for t, _ in F.rows(c)]
        return order, details, cat_rows

    order, details, cat_rows = run(env, tour)
    assert order == ["setup.apk", "invoice_2026_11.pdf", "boarding_pass.pdf"]
    # sim: name, location and size; AOSP (inspector/DetailsView.java): the name as the title, Type, Size, Modified
    want = {"sim": {"boarding_pass.pdf", "/sdcard/Download", "96 kB"}, "aosp": {"boarding_pass.pdf", "PDF document", "96.00 kB"}}
    want["google"] = want["aosp"]
    assert want[flavor] <= details
    if flavor != "sim":
        assert cat_rows == ["IMG_2041.jpg", "IMG_2042.jpg", "PXL_20261101_101500.jpg"]
    assert_consistent(env)
