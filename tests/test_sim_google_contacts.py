"""The simulator's `google` flavor of Contacts: Google Contacts' own screens, driven for real.

What is checked: the screens carry Google Contacts' package, ids and descriptions as public tests
of the app locate them (sim/static/apps/google/contacts.js cites each), the app UI layer reads
them through the `google` family's cited selectors, and the editor's exposed-dropdown phone type,
"Discard changes?", the overflow's Delete and an empty Save change the world as the other
flavors do. (No real dump of Google Contacts has been found, so there is no screen-equivalence
recipe: tests/_recipes_contacts.py.)
"""

from __future__ import annotations

from typing import Any

import pytest

from actionmap.actions import Key, LongPress, OpenApp, Tap, TypeText

pytest.importorskip("playwright")

from _recipes_contacts import RECIPES  # noqa: E402
from _simhelpers import find, healthy, step  # noqa: E402
from device.apps import read_screen  # noqa: E402
from sim.env import SimEnv  # noqa: E402
from transfer.oracle.drive import run_skill  # noqa: E402
from transfer.oracle.skills import contacts as C  # noqa: E402
from transfer.oracle.solutions.contacts import create_contact_phones, list_favorites  # noqa: E402

PKG = "com.google.android.contacts"


def fresh(setup: dict[str, Any] | None = None) -> SimEnv:
    env = SimEnv("pixel", "google", screenshots=False)
    env.reset(setup)
    return env


def run(env: SimEnv, skill: Any, **kw: Any) -> Any:
    return run_skill(env, lambda ctx: skill(ctx, **kw), flavor="google", max_steps=120)[2]


def by_name(env: SimEnv, name: str) -> Any:
    hits = [c for c in env.read_state().contacts or [] if c.name == name]
    assert len(hits) == 1, name
    return hits[0]


def test_no_real_google_contacts_dump_has_a_recipe_yet() -> None:
    assert RECIPES == {}


def test_the_list_is_google_contacts() -> None:
    env = fresh()
    obs = step(env, OpenApp(app="contacts"))
    assert obs.foreground.package == PKG
    r = read_screen(obs.elements)
    assert (r.app, r.family, r.screen) == ("contacts", "google", "contact_list")
    assert find(obs, desc="Create contact", rid="floating_action_button") is not None
    bar = find(obs, rid="open_search_bar")
    assert bar.clickable and find(obs, "Search contacts", rid="open_search_bar_text_view") is not None
    names = find(obs, rid="cliv_name_textview")
    assert names.content_desc == names.text  # the name's TextView is described by the name (G-BN)
    starred = sorted(c.name for c in env.read_state().contacts if c.starred)
    assert sorted(run(env, list_favorites)) == starred  # the star header leads the favorites section


def test_search_details_and_overflow_are_google_contacts() -> None:
    env = fresh()
    world = env.read_state().contacts
    target = next(c for c in world if c.company and c.emails and c.phones)
    obs = step(env, OpenApp(app="contacts"))
    obs = step(env, Tap(target=find(obs, rid="open_search_bar").index))
    field = find(obs, rid="open_search_view_edit_text")
    assert field.focused and field.hint == "Search contacts"
    obs = step(env, TypeText(text=target.company))
    r = read_screen(obs.elements)
    assert r.screen == "search" and target.name in r.visible["contacts"]
    assert find(obs, rid="search_result_list") is not None and find(obs, desc="Back") is not None
    obs = run_skill(env, lambda ctx: C.open_contact(ctx, target.name), flavor="google")[0]
    r = read_screen(obs.elements)
    assert (r.screen, r.visible["contact"]["name"]) == ("contact_details", target.name)
    assert r.visible["contact"]["phones"] == [p.number for p in target.phones]
    assert r.visible["contact"]["emails"] == target.emails and r.visible["company"] == target.company
    assert find(obs, target.company, rid="organization_name") is not None
    assert find(obs, desc="Edit contact", rid="menu_insert_or_edit") is not None
    assert find(obs, rid="menu_star").content_desc in ("Add to favorites", "Remove from favorites")
    assert find(obs, desc="Navigate up", cls="ImageButton") is not None and find(obs, rid="verb_video") is not None
    entry = find(obs, pred=lambda e: e.content_desc.startswith("Call ") and e.class_name.endswith("RelativeLayout"))
    assert entry is not None and find(obs, target.phones[0].number, rid="header") is not None
    obs = step(env, Tap(target=find(obs, desc="More options").index))
    delete = find(obs, "Delete", rid=f"{PKG}:id/title")
    assert delete is not None
    obs = step(env, Tap(target=delete.index))
    obs = step(env, Tap(target=find(obs, "Cancel", rid="android:id/button2").index))  # Cancel keeps it
    assert by_name(env, target.name).id == target.id
    healthy(env)


def test_two_typed_phones_through_the_exposed_dropdown() -> None:
    env = fresh()
    run(env, create_contact_phones, name="Ada Lovelace", phones=[("+44 20 7946 0000", "mobile"), ("+44 20 7946 0001", "work")],
        email="ada@example.org")
    c = by_name(env, "Ada Lovelace")
    assert [(p.number, p.label) for p in c.phones] == [("+44 20 7946 0000", "mobile"), ("+44 20 7946 0001", "work")]
    assert c.emails == ["ada@example.org"]
    assert run(env, C.read_contact_field, name="Ada Lovelace", field="phone", label="work") == "+44 20 7946 0001"
    # the editor shows each phone's type as a Spinner described "<type> Phone", and an empty phone
    # editor below the last filled one
    obs = run_skill(env, lambda ctx: C._open_editor(ctx, "Ada Lovelace"), flavor="google")[0]
    obs = step(env, Key(key="back")) if obs.keyboard_visible else obs
    spinners = [e for e in obs.elements if e.class_name.endswith("Spinner")]
    assert [(s.text, s.content_desc) for s in spinners][:2] == [("Mobile", "Mobile Phone"), ("Work", "Work Phone")]
    assert find(obs, desc="Show dropdown menu", rid="text_input_end_icon") is not None
    form = read_screen(obs.elements).visible["form"]
    assert form["phones"] == ["+44 20 7946 0000", "+44 20 7946 0001", ""] and form["first_name"] == "Ada"
    assert find(obs, "Save", rid="toolbar_button").class_name == "android.widget.Button"


def test_discard_empty_save_and_selection_leave_the_world_alone() -> None:
    env = fresh()
    before = env.read_state().contacts
    obs = step(env, OpenApp(app="contacts"))
    obs = step(env, Tap(target=find(obs, desc="Create contact").index))
    first = find(obs, pred=lambda e: e.editable and e.hint == "First name")
    assert first.focused and find(obs, "Create contact", cls="TextView") is not None
    obs = step(env, Key(key="back"))  # the keyboard
    obs = step(env, Tap(target=find(obs, "Save", rid="toolbar_button").index))  # nothing to save: closes
    assert find(obs, desc="Create contact", rid="floating_action_button") is not None
    obs = step(env, Tap(target=find(obs, desc="Create contact").index))
    step(env, TypeText(text="Temp"))
    step(env, Key(key="back"))  # the keyboard
    obs = step(env, Key(key="back"))  # leaving an edited form asks first
    assert find(obs, "Discard changes?") is not None
    obs = step(env, Tap(target=find(obs, "Discard", rid="android:id/button1").index))
    assert find(obs, desc="Create contact") is not None
    # a long press selects without opening; Back leaves selection mode
    row = next(c for c in read_screen(obs.elements).controls if c.role == "contact_row")
    obs = step(env, LongPress(target=row.index))
    assert find(obs, desc="Delete", rid="menu_delete") is not None and find(obs, "1") is not None
    obs = step(env, Key(key="back"))
    assert find(obs, desc="Create contact") is not None
    assert env.read_state().contacts == before
    healthy(env)
