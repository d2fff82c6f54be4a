"""The Calendar driver reads real and AOSP-modelled calendar screens right, and the oracle's Calendar
skills find every control through it.

Why: what the oracle and the UI probes know of a phone's calendar through the screen is what
``device.apps`` reads off it — the events a view shows (their titles), an event's details, the
editor's fields — in each family's own layout. AOSP's calendar on LineageOS is Etar (a fork of
AOSP Calendar that keeps its ids); its month and day views are drawn, so its events are read in
the Agenda view. Real dumps with a person's truth (``fixtures/real-apps/<family>/calendar``, when
there are any) and small dumps modelled on Etar's layouts (``fixtures/apps/calendar``, each citing
the layout files it follows) are the evidence; a screen no family describes is reported as unknown.
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
OWN = FIXTURES / "apps" / "calendar"
APP = "calendar"
ETAR = "org.lineageos.etar"

# a truth file's role names → ours where they differ
ROLE_ALIASES = {"fab": "create_event", "create_event_fab": "create_event", "event_chip": "event",
                "speed_dial_event": "new_event_option", "title_edit_text": "title_field", "drawer": "drawer_toggle"}



def _bounds(s: str | list[int]) -> tuple[int, ...]:
    return tuple(s) if isinstance(s, list) else tuple(int(x) for x in re.findall(r"-?\d+", s))


def _read(name: str, **kw: Any):
    return read_screen(_elements(OWN / name), **kw)


def _control(r: Any, role: str) -> Any:
    hits = [c for c in r.controls if c.role == role]
    assert hits, f"no {role} in {sorted({c.role for c in r.controls})}"
    return hits[0]


# --- (1) real dumps with a person's truth ------------------------------------------------------

# --- (2) dumps modelled on Etar's layouts --------------------------------------------------------

def test_etars_agenda_lists_the_events_titles() -> None:
    r = _read("aosp_etar_agenda.xml")
    assert (r.package, r.app, r.family, r.screen) == (ETAR, APP, "aosp", "agenda")
    assert r.visible["events"] == ["Company offsite", "Dentist", "Team lunch", "Piano lesson, level 2"]
    assert r.visible["title"] == "March 18, 2027"
    fab = _control(r, "create_event")
    assert fab.resource_id == f"{ETAR}:id/floating_action_button" and fab.content_desc == ""
    rows = [c for c in r.controls if c.role == "event"]
    assert [c.resource_id for c in rows] == ["android:id/content"] * 4
    assert rows[1].bounds == [0, 560, 1080, 760]


def test_etars_event_editor_fields() -> None:
    """An empty field reports its hint as its text: it reads as empty."""
    r = _read("aosp_etar_edit_event.xml")
    assert (r.family, r.screen) == ("aosp", "event_editor")
    assert r.visible["fields"] == {"title": "Dentist", "all_day": False, "start_date": "Thu, Mar 18, 2027",
                                   "start_time": "10:00 AM", "end_date": "Thu, Mar 18, 2027", "end_time": "11:00 AM",
                                   "location": "Main St 5", "description": ""}
    assert _control(r, "save").resource_id == f"{ETAR}:id/action_done"
    assert _control(r, "cancel_edit").resource_id == f"{ETAR}:id/action_cancel"
    assert _control(r, "all_day").resource_id == f"{ETAR}:id/is_all_day"


def test_etars_event_details() -> None:
    r = _read("aosp_etar_event_info.xml")
    assert (r.family, r.screen) == ("aosp", "event_details")
    assert r.visible["event"] == {"title": "Dentist", "date": "Thursday, March 18, 2027, 10:00 – 11:00 AM",
                                  "time": None, "location": "Main St 5", "description": "Bring the X-rays"}
    assert _control(r, "edit_event").resource_id == f"{ETAR}:id/info_action_edit"
    assert _control(r, "delete_event").resource_id == f"{ETAR}:id/info_action_delete"


def test_etars_delete_confirmation() -> None:
    r = _read("aosp_etar_delete_dialog.xml")
    assert (r.family, r.screen) == ("aosp", "delete_dialog")
    ok = _control(r, "confirm_delete")
    assert (ok.resource_id, ok.text) == ("android:id/button1", "OK")


def test_google_calendars_described_chips() -> None:
    """Chips only have a description: the title is what comes before the time or 'All day'."""
    r = _read("google_schedule.xml")
    assert (r.package, r.family, r.screen) == ("com.google.android.calendar", "google", "calendar")
    assert r.visible["events"] == ["Company offsite", "Dentist", "Piano lesson, level 2"]
    assert r.visible["month"] == "March 2027"
    assert _control(r, "create_event").content_desc == "Create new event and more"
    assert _control(r, "drawer_toggle").content_desc == "Show Calendar List and Settings drawer"


def test_aosps_own_calendar_package_is_the_aosp_family_and_miuis_is_xiaomis() -> None:
    els = [e.model_copy(update={"package": "com.android.calendar",
                                "resource_id": e.resource_id.replace(ETAR + ":", "com.android.calendar:")})
           if e.package == ETAR else e for e in _elements(OWN / "aosp_etar_agenda.xml")]
    assert read_screen(els).family == "aosp"
    assert read_screen(els, manufacturer="Xiaomi").family == "xiaomi"


# --- (3) what is not a calendar --------------------------------------------------------------------

def test_a_foreign_calendar_app_is_not_recognised() -> None:
    r = read_screen(_elements(OWN / "aosp_etar_agenda.xml"), package="com.example.calendar")
    assert r.app is None and r.screen is None and "com.example.calendar" in r.problems[0]


@pytest.mark.parametrize("xml", sorted(REAL.glob("*/*/*.xml")), ids=lambda p: f"{p.parent.name}-{p.stem}")
def test_other_apps_screens_are_no_calendar(xml: Path) -> None:
    if xml.parent.name == APP:
        pytest.skip("a calendar dump")
    els = _elements(xml)
    for fam in (None, "generic", "aosp", "google", "samsung", "xiaomi", "sim"):
        r = driver(APP).read(els, family=fam)
        assert r.screen is None and r.problems, (fam, r.screen)


def test_a_conversation_row_is_no_event() -> None:
    """'Name, text, 08:30' (a messages row) has no time right after its first comma."""
    row = UIElement.from_px(1, (0, 300, 1080, 480), (1080, 2400), package="com.example.x", clickable=True,
                            content_desc="Evelyn Smith, Call me when you're free, 08:30")
    chip = UIElement.from_px(2, (0, 500, 1080, 600), (1080, 2400), package="com.example.x", clickable=True,
                             content_desc="Dentist, 10:00 – 11:00")
    m = driver(APP).matcher([row, chip], "generic", "com.example.x")
    assert [e.index for e in m.find("event")] == [2]


def test_an_unknown_screen_of_the_calendar_is_not_guessed() -> None:
    """Etar's settings (a preference list) is none of the screens the data describes."""
    els = [UIElement.from_px(0, (0, 0, 1080, 2400), (1080, 2400), package=ETAR, class_name="android.widget.FrameLayout"),
           UIElement.from_px(1, (60, 300, 900, 360), (1080, 2400), package=ETAR, text="General settings",
                             resource_id="android:id/title"),
           UIElement.from_px(2, (60, 420, 900, 480), (1080, 2400), package=ETAR, text="Week starts on",
                             resource_id="android:id/title")]
    r = read_screen(els)
    assert (r.app, r.family, r.screen) == (APP, "aosp", None) and r.problems


# --- the data is cited; the skills hold no literal the data owns -------------------------------

def test_every_selector_of_a_phone_family_is_cited() -> None:
    spec = load_spec(APP)
    uncited = [(fam, role) for fam in ("aosp", "google", "samsung", "xiaomi", "sim")
               for role, sels in spec.families[fam].roles.items() for s in sels if not s.cite]
    assert not uncited, uncited


SKILL_FILES = [*sorted((ROOT / "transfer/oracle/skills/calendar").glob("*.py")),
               ROOT / "transfer/oracle/solutions/calendar.py"]


def _strings(path: Path) -> set[str]:
    out, prev = set(), None
    for tok in tokenize.generate_tokens(io.StringIO(path.read_text("utf-8")).readline):
        if tok.type == tokenize.STRING and not tok.string.startswith(('"""', "'''", 'f"', "f'")) and \
                not (prev is not None and prev.string == "["):
            out.add(tok.string[1:-1])
        if tok.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT):
            prev = tok
    return out


# the keys of ``read_event``'s answer, which happen to be AOSP's field ids too
NOT_CONTROLS = {"title", "date", "location", "description"}


@pytest.mark.parametrize("path", SKILL_FILES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_the_calendar_skills_hold_no_id_or_label_literal(path: Path) -> None:
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
    found = sorted(s for s in _strings(path) if s in values and s not in keys and s not in NOT_CONTROLS)
    assert not found, f"literals the data owns, in {path.name}: {found}"
    src = path.read_text("utf-8")
    for pattern in (r"\bctx\.t\(", r"\bctx\.flavor\b", r"\brid=", r"\bdesc=", r"\bctx\.(find|find_all|has)\("):
        assert not re.search(pattern, src), (path.name, pattern)


# --- the skills drive Etar's details, editor and delete dialog -------------------------------------



def _obs(els: list[UIElement]) -> Any:
    from actionmap.observation import Foreground, Observation, Screen

    return Observation(screen=Screen(width=1080, height=2400), elements=els, image_format="none",
                       foreground=Foreground(app=APP, package=ETAR))


def _idx(els: list[UIElement], rid: str) -> int:
    return next(e.index for e in els if e.resource_id.endswith(":id/" + rid) or e.resource_id == rid)


def test_the_skills_rename_an_event_through_etars_editor() -> None:
    from actionmap.actions import Tap, TypeText
    from transfer.oracle.base import Ctx
    from transfer.oracle.skills.calendar import events as Cal

    info = _elements(OWN / "aosp_etar_event_info.xml")
    editor = _elements(OWN / "aosp_etar_edit_event.xml")
    ctx = Ctx(obs=_obs(info), flavor="aosp", families={APP: "aosp"})

    def rename() -> Any:
        yield from Cal._edit(ctx)
        yield from Cal._type(ctx, "title_field", "Dentist (moved)")
        return (yield from Cal._save(ctx))

    actions, _ = _drive(rename(), [_obs(editor), _obs(editor), _obs(info)])
    assert actions == [Tap(target=_idx(info, "info_action_edit")),
                       TypeText(text="Dentist (moved)", clear=True, target=_idx(editor, "title")),
                       Tap(target=_idx(editor, "action_done"))]


def test_the_skills_delete_through_etars_menu_and_confirm_with_ok() -> None:
    from actionmap.actions import Tap
    from transfer.oracle.base import Ctx, tap_role
    from transfer.oracle.skills.calendar import navigate as Cal

    info = _elements(OWN / "aosp_etar_event_info.xml")
    dialog = _elements(OWN / "aosp_etar_delete_dialog.xml")
    agenda = _elements(OWN / "aosp_etar_agenda.xml")
    ctx = Ctx(obs=_obs(info), flavor="aosp", families={APP: "aosp"})

    def delete() -> Any:
        assert Cal._has(ctx, "delete_event")
        yield from tap_role(ctx, APP, "delete_event")
        yield from tap_role(ctx, APP, "confirm_delete")
        return Cal._has(ctx, "event_title")

    actions, still_there = _drive(delete(), [_obs(dialog), _obs(agenda)])
    assert actions == [Tap(target=_idx(info, "info_action_delete")), Tap(target=_idx(dialog, "android:id/button1"))]
    assert still_there is False
