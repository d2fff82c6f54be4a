"""The Files driver reads real and AOSP-modelled DocumentsUI screens right, and the oracle's Files
skills find every control through it.

Why: what the oracle, the UI probes and teardown know of a phone's files through the screen is
what ``device.apps`` reads off the file browser — the rows of a folder (name, details), where
the listing is (breadcrumb, title), the roots drawer, the dialogs and the picker — in each
family's own layout. DocumentsUI names its storage root after the device ("Pixel 8"), so no
reading may rely on a name such as "Internal storage". Real dumps with a person's truth
(``fixtures/real-apps/<family>/files``, when there are any) and small dumps modelled on
DocumentsUI's layouts (``fixtures/apps/files``, each citing the layout files it follows) are the
evidence; a screen no family describes is reported as unknown.
"""

from __future__ import annotations

import io
import json
import re
import tokenize
from pathlib import Path
from typing import Any

import pytest

from actionmap.observation import UIElement
from device.apps import driver, read_screen
from device.apps.spec import load_spec
from _appfixtures import drive as _drive
from _appfixtures import elements as _elements

ROOT = Path(__file__).parent.parent
FIXTURES = Path(__file__).parent / "fixtures"
REAL = FIXTURES / "real-apps"
OWN = FIXTURES / "apps" / "files"
APP = "files"
PKG = "com.android.documentsui"

# a truth file's role names → ours where they differ
ROLE_ALIASES = {"row": "file_row", "item": "file_row", "file_title": "file_name", "name": "file_name",
                "overflow": "more_options", "drawer_toggle": "show_roots", "title": "toolbar_title"}



def _bounds(s: str | list[int]) -> tuple[int, ...]:
    return tuple(s) if isinstance(s, list) else tuple(int(x) for x in re.findall(r"-?\d+", s))


def _read(name: str, **kw: Any):
    return read_screen(_elements(OWN / name), **kw)


def _control(r: Any, role: str) -> Any:
    hits = [c for c in r.controls if c.role == role]
    assert hits, f"no {role} in {sorted({c.role for c in r.controls})}"
    return hits[0]


# --- (1) real dumps with a person's truth ------------------------------------------------------

# --- (2) dumps modelled on DocumentsUI's layouts -----------------------------------------------

def test_a_folder_listing_on_android_14() -> None:
    """item_doc_list.xml: `android:id/title` and one `metadata` line; a folder shows no details."""
    r = _read("aosp_download_folder_a14.xml")
    assert (r.package, r.app, r.family, r.screen) == (PKG, APP, "aosp", "folder")
    assert r.visible["title"] == "Download"
    assert r.visible["path"] == ["Pixel 8", "Download"]
    assert r.visible["items"] == ["Receipts", "invoice_2026_11.pdf", "lease_agreement.pdf", "setup.apk"]
    assert r.visible["details"] == {"Receipts": None, "invoice_2026_11.pdf": "Mar 14, 184 kB, PDF document",
                                    "lease_agreement.pdf": "Feb 2, 379 kB, PDF document",
                                    "setup.apk": "Mar 12, 8.42 MB, Android package"}
    assert _control(r, "show_roots").content_desc == "Show roots"
    assert _control(r, "toolbar_title").resource_id == ""  # the Toolbar's own title view
    assert [c.text for c in r.controls if c.role == "breadcrumb"] == ["Pixel 8", "Download"]
    rows = [c for c in r.controls if c.role == "file_row"]
    assert len(rows) == 4 and rows[1].bounds == [0, 742, 1080, 932]
    assert _control(r, "more_options").bounds == [926, 142, 1080, 290]


def test_a_folder_listing_on_android_10_joins_date_size_and_type() -> None:
    r = _read("aosp_download_folder_a10.xml")
    assert (r.family, r.screen) == ("aosp", "files")
    assert r.visible["items"] == ["Receipts", "invoice_2026_11.pdf", "setup.apk"]
    assert r.visible["details"]["invoice_2026_11.pdf"] == "Mar 14 · 184 kB · PDF document"
    assert r.visible["details"]["Receipts"] is None


def test_the_storage_root_is_the_drawer_root_that_tells_its_free_space() -> None:
    """Named after the device, never 'Internal storage'; an app root with a summary is not it."""
    r = _read("aosp_roots_drawer_a14.xml")
    assert (r.family, r.screen) == ("aosp", "roots_drawer")
    assert r.visible["roots"] == ["Recent", "Images", "Videos", "Audio", "Documents", "Downloads", "Pixel 8",
                                  "Photos"]
    assert r.visible["storage_root"] == "Pixel 8"
    assert _control(r, "storage_root").bounds == [0, 1292, 840, 1452]


def test_the_new_folder_dialog() -> None:
    r = _read("aosp_new_folder_dialog.xml")
    assert (r.family, r.screen) == ("aosp", "name_dialog")
    assert r.visible == {"name": "Taxes"}
    ok = _control(r, "create_folder_ok")
    assert (ok.resource_id, ok.text) == ("android:id/button1", "OK")
    assert _control(r, "dialog_cancel").resource_id == "android:id/button2"
    assert _control(r, "name_field").resource_id == "android:id/text1"


def test_the_move_picker_confirms_with_its_own_button() -> None:
    r = _read("aosp_move_picker_a14.xml")
    assert (r.family, r.screen) == ("aosp", "picker")
    assert r.visible["path"] == ["Pixel 8", "Documents"]
    assert r.visible["items"] == ["Receipts", "Work", "notes.txt"]
    move = _control(r, "picker_confirm")
    assert (move.resource_id, move.text) == ("android:id/button1", "Move")
    assert _control(r, "picker_cancel").text == "Cancel"
    assert "dialog_cancel" not in {c.role for c in r.controls}  # the picker's Cancel is no dialog's


def test_get_info_reads_each_value_beside_its_key() -> None:
    r = _read("aosp_get_info_a14.xml")
    assert (r.family, r.screen) == ("aosp", "properties")
    assert r.visible["properties"] == {"Type": "Folder", "Size": "1.23 MB", "Modified": "Mar 14, 2027, 10:02 AM"}


def test_googles_build_is_read_with_the_same_layouts() -> None:
    els = [e.model_copy(update={"package": "com.google.android.documentsui",
                                "resource_id": e.resource_id.replace(PKG + ":", "com.google.android.documentsui:")})
           if e.package == PKG else e for e in _elements(OWN / "aosp_download_folder_a14.xml")]
    r = read_screen(els)
    assert (r.family, r.screen, r.visible["title"]) == ("google", "folder", "Download")
    assert r.visible["items"][1:] == ["invoice_2026_11.pdf", "lease_agreement.pdf", "setup.apk"]


# --- (3) what is not a file browser --------------------------------------------------------------

def test_a_foreign_file_manager_is_not_recognised() -> None:
    r = read_screen(_elements(OWN / "aosp_download_folder_a14.xml"), package="com.example.files")
    assert r.app is None and r.screen is None and "com.example.files" in r.problems[0]


@pytest.mark.parametrize("xml", sorted(REAL.glob("*/*/*.xml")), ids=lambda p: f"{p.parent.name}-{p.stem}")
def test_other_apps_screens_are_no_file_browser(xml: Path) -> None:
    if xml.parent.name == APP:
        pytest.skip("a Files dump")
    els = _elements(xml)
    for fam in (None, "generic", "aosp", "google", "samsung", "xiaomi", "sim"):
        r = driver(APP).read(els, family=fam)
        assert r.screen is None and r.problems, (fam, r.screen)


def test_the_calendars_delete_dialog_is_no_files_dialog() -> None:
    els = _elements(FIXTURES / "apps" / "calendar" / "aosp_etar_delete_dialog.xml")
    for fam in ("generic", "aosp", "sim"):
        assert driver(APP).read(els, family=fam).screen is None


def test_an_unknown_screen_of_files_is_not_guessed() -> None:
    """DocumentsUI with nothing the data describes (an empty window with a message)."""
    els = [UIElement.from_px(0, (0, 0, 1080, 2400), (1080, 2400), package=PKG, class_name="android.widget.FrameLayout"),
           UIElement.from_px(1, (100, 1000, 980, 1100), (1080, 2400), package=PKG, text="Can't load content at the moment")]
    r = read_screen(els)
    assert (r.app, r.family, r.screen) == (APP, "aosp", None) and r.problems


# --- the data is cited; the skills hold no literal the data owns -------------------------------

def test_every_selector_of_a_phone_family_is_cited() -> None:
    spec = load_spec(APP)
    uncited = [(fam, role) for fam in ("aosp", "google", "samsung", "xiaomi", "sim")
               for role, sels in spec.families[fam].roles.items() for s in sels if not s.cite]
    assert not uncited, uncited


def test_no_root_is_known_by_a_name() -> None:
    """Neither the data nor the skills name the storage root ('Internal storage' is the simulator's)."""
    raw = (ROOT / "device/apps/data/files.yaml").read_text("utf-8")
    for path in SKILL_FILES:
        assert "Internal storage" not in path.read_text("utf-8"), path.name
    assert "Internal storage" not in re.sub(r"#.*", "", raw)


SKILL_FILES = [ROOT / "transfer/oracle/skills/files.py", ROOT / "transfer/oracle/solutions/files.py"]


def _strings(path: Path) -> set[str]:
    out, prev = set(), None
    for tok in tokenize.generate_tokens(io.StringIO(path.read_text("utf-8")).readline):
        if tok.type == tokenize.STRING and not tok.string.startswith(('"""', "'''", 'f"', "f'")) and \
                not (prev is not None and prev.string == "["):
            out.add(tok.string[1:-1])
        if tok.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT):
            prev = tok
    return out


@pytest.mark.parametrize("path", SKILL_FILES, ids=lambda p: p.parent.name)
def test_the_files_skills_hold_no_id_or_label_literal(path: Path) -> None:
    spec = load_spec(APP)
    keys = {r for f in spec.families.values() for r in f.roles} | {k for f in spec.families.values() for k in f.texts}
    values: set[str] = set()
    for fam in spec.families.values():
        for sels in fam.roles.values():
            for s in sels:
                values |= {v for v in (s.rid, s.desc, s.text, s.label) if v}
                values |= {v.rsplit("/", 1)[-1] for v in (s.rid,) if v and ":id/" in v}
        for v in fam.texts.values():
            values |= set(v) if isinstance(v, list) else {v} if isinstance(v, str) else set()
    found = sorted(s for s in _strings(path) if s in values and s not in keys)
    assert not found, f"literals the data owns, in {path.name}: {found}"
    src = path.read_text("utf-8")
    for pattern in (r"\bctx\.t\(", r"\bctx\.flavor\b", r"\brid=", r"\bdesc=", r"\bctx\.(find|find_all|has)\("):
        assert not re.search(pattern, src), (path.name, pattern)


# --- the skills reach the storage root through the drawer, whatever its name --------------------



def _obs(els: list[UIElement]) -> Any:
    from actionmap.observation import Foreground, Observation, Screen

    return Observation(screen=Screen(width=1080, height=2400), elements=els, image_format="none",
                       foreground=Foreground(app=APP, package=PKG))


def test_open_storage_root_learns_the_roots_name_from_the_drawer() -> None:
    from actionmap.actions import OpenApp, Tap
    from transfer.oracle.base import Ctx
    from transfer.oracle.skills import files as F

    folder = _elements(OWN / "aosp_download_folder_a14.xml")
    drawer = _elements(OWN / "aosp_roots_drawer_a14.xml")
    # the storage root itself: the listing with one crumb, titled with the device's name
    gone = {e.index for e in folder if e.text == "Download" or e.resource_id.endswith(":id/breadcrumb_arrow")}
    at_root = [e for e in folder if e.index not in gone] + \
        [e.model_copy(update={"text": "Pixel 8"}) for e in folder if e.text == "Download" and not e.resource_id]
    at_root = [e.model_copy(update={"index": i}) for i, e in enumerate(sorted(at_root, key=lambda e: e.index))]
    ctx = Ctx(obs=_obs(folder), flavor="aosp", families={APP: "aosp"})
    actions, _ = _drive(F.open_storage_root(ctx), [_obs(folder), _obs(drawer), _obs(at_root)])
    show_roots = next(e for e in folder if e.content_desc == "Show roots")
    pixel = next(e for e in drawer if e.text == "Pixel 8")
    assert actions == [OpenApp(app=APP), Tap(target=show_roots.index), Tap(target=pixel.index)]
    assert F._root_title(ctx) == "Pixel 8"


# --- the simulator's aosp flavor is read with DocumentsUI's own selectors --------------------------

def test_the_aosp_family_holds_no_simulator_fallback() -> None:
    """The simulator's aosp flavor follows DocumentsUI's layouts, so the aosp family needs none."""
    spec = load_spec(APP)
    assert not [(role, s.cite) for role, sels in spec.families["aosp"].roles.items() for s in sels
                if "s2r simulator" in (s.cite or "")]


def test_the_simulators_aosp_files_reads_through_documentsuis_selectors() -> None:
    pytest.importorskip("playwright")
    import sys

    sys.path.insert(0, str(Path(__file__).parent))
    from _simhelpers import fresh, run, step

    from actionmap.actions import Tap
    from transfer.oracle.skills import files as F

    env = fresh("aosp", {"start": {"app": "files"}})
    try:
        world = env.read_state()
        device = world.device.model  # Settings.Global.DEVICE_NAME falls back to the model
        r = read_screen(env.observe().elements, app=APP, family="aosp")
        assert (r.package, r.screen, r.visible["title"]) == (PKG, "files", "Recent"), r.problems
        obs = step(env, Tap(target=_control(r, "show_roots").index))
        r = read_screen(obs.elements, app=APP, family="aosp")
        assert r.screen == "roots_drawer" and r.visible["storage_root"] == device, r.problems
        assert r.visible["roots"] == ["Recent", "Images", "Videos", "Audio", "Documents", "Downloads", device]
        run(env, F.open_folder, path="/sdcard/Download")
        r = read_screen(env.observe().elements, app=APP, family="aosp")
        want = sorted(f.path.rsplit("/", 1)[1] for f in world.files or [] if f.path.rsplit("/", 1)[0] == "/sdcard/Download")
        assert r.screen == "folder" and r.visible["path"] == [device, "Download"] and sorted(r.visible["items"]) == want
        # one metadata line per file ("date, size, type"), none for a folder (ListDocumentHolder.bind)
        assert r.visible["details"]["setup.apk"].split(", ")[1] == "8.42 MB"
        run(env, F.select, path="/sdcard/Download/setup.apk")
        r = read_screen(env.observe().elements, app=APP, family="aosp")
        assert r.screen == "selection" and r.visible["selected"] == 1
        obs = step(env, Tap(target=_control(r, "delete_selected").index))
        r = read_screen(obs.elements, app=APP, family="aosp")
        assert r.screen == "delete_dialog" and r.visible["message"] == 'Delete "setup.apk"?'
        assert _control(r, "delete_ok").resource_id == "android:id/button1" and _control(r, "delete_ok").text == "OK"
    finally:
        env.close()
