"""The Contacts driver of the app UI layer reads every family's screens right.

Why: the oracle's Contacts skills, the UI probes and teardown see a phone's Contacts app only
through ``device.apps`` — a number read off the wrong row is a wrong answer, an editor field
found by the wrong hint is a contact saved wrong. Evidence:

* real dumps (``tests/fixtures/real-apps``) of Contacts, when there are
  any (none was found yet: EVIDENCE.md, Gaps) — each read as its ``.truth.json`` says;
* dumps written by hand after AOSP Contacts' own layouts and code (``tests/fixtures/apps/
  contacts/aosp_*.xml``, each naming what it follows) and the simulator's screens as the virtual
  phone serves them (``virtual_*.xml``; the aosp flavor's are AOSP Contacts' layouts, read through
  the same AOSP selectors);
* screens of no known app, or of no known Contacts screen, reported as not recognised.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from actionmap.observation import UIElement
from device.apps import driver, read_screen
from device.apps.messages import plain
from device.apps.spec import load_spec
from device.parsers.hierarchy import parse_hierarchy
from _appfixtures import elements as _elements

HERE = Path(__file__).parent
REAL = HERE / "fixtures" / "real-apps"
MINE = HERE / "fixtures" / "apps" / "contacts"



def _bounds(s: str) -> list[int]:
    return [int(x) for x in re.findall(r"-?\d+", s)]


def _controls(reading: Any) -> dict[str, list[list[int]]]:
    out: dict[str, list[list[int]]] = {}
    for c in reading.controls:
        out.setdefault(c.role, []).append(c.bounds)
    return out


# --- 1. real dumps -------------------------------------------------------------------------------

# --- 2. AOSP layouts and the simulator -----------------------------------------------------------

def test_aosp_people_list() -> None:
    r = read_screen(_elements(MINE / "aosp_people_list_1080x2400.xml"))
    assert (r.app, r.family, r.screen) == ("contacts", "aosp", "contact_list")
    # the section letters ("A", "B", "Z") are in the rows but are not names
    assert r.visible["contacts"] == ["Ann Lee", "Anya Petrova", "Bo Chen", "Zoë Ångström"]
    have = _controls(r)
    assert have["create_contact"] == [[860, 2150, 1036, 2326]]
    assert have["search"] == [[796, 154, 930, 286]]
    assert have["contact_row"] == [[0, 308 + i * 187, 1080, 495 + i * 187] for i in range(4)]
    assert "save" not in have and "contact_title" not in have


def test_aosp_contact_details() -> None:
    r = read_screen(_elements(MINE / "aosp_contact_details_1080x2400.xml"))
    assert (r.app, r.family, r.screen) == ("contacts", "aosp", "contact_details")
    c = r.visible["contact"]
    assert c["name"] == "Ann Lee"
    # the numbers are the headers of the rows described "Call <label> <number>", wrapped LTR
    assert [plain(p) for p in c["phones"]] == ["(650) 555-0134", "(650) 555-0177"]
    assert c["emails"] == ["ann@example.org"]
    assert r.visible["phone_labels"] == ["Mobile", "Work"]
    assert r.visible["company"] == "Initech"  # the about card's "Organization" entry, not its header
    assert r.visible["starred"] is False
    have = _controls(r)
    assert have["star"] == [[660, 154, 794, 286]] and have["edit"] == [[796, 154, 930, 286]]
    assert have["more_options"] == [[948, 154, 1069, 286]]
    # the Organization header is a `header` too, but not in a "Call …"/"Email …" row
    assert len(have["phone_number"]) == 2 and len(have["email_address"]) == 1


def test_aosp_contact_editor() -> None:
    r = read_screen(_elements(MINE / "aosp_contact_editor_1080x2400.xml"))
    assert (r.app, r.family, r.screen) == ("contacts", "aosp", "contact_editor")
    # EditTexts without resource ids, told apart by their hints; empty ones show the hint as text
    assert r.visible["form"] == {"first_name": "Ann", "last_name": "Lee", "company": None,
                                 "phones": ["(650) 555-0134", ""], "emails": [""]}
    have = _controls(r)
    assert have["save"] == [[820, 165, 1036, 275]]
    assert have["first_name"] == [[176, 922, 1036, 1076]] and have["last_name"] == [[176, 1076, 1036, 1230]]
    assert len(have["phone_field"]) == 2 and len(have["email_field"]) == 1
    assert "company" not in have  # AOSP keeps Organization under "More fields"


def test_the_simulator_flavors() -> None:
    """The simulator's `sim` screens through the `sim` family; its aosp flavor (AOSP Contacts' own
    layouts) through the `aosp` family's AOSP selectors, as a real AOSP phone's dumps are read."""
    r = read_screen(_elements(MINE / "virtual_sim_contact_editor_1080x2400.xml"), family="sim")
    assert (r.family, r.screen) == ("sim", "contact_editor")
    assert r.visible["form"] == {"first_name": "José", "last_name": "Chen", "company": "",
                                 "phones": ["+1 747 555 1362"], "emails": [""]}
    assert {"save", "add_phone", "phone_label_group"} <= set(_controls(r))

    r = read_screen(_elements(MINE / "virtual_aosp_contact_details_1080x2400.xml"))
    assert (r.family, r.screen) == ("aosp", "contact_details")
    assert r.visible["contact"] == {"name": "José Chen", "phones": ["+1 747 555 1362"], "emails": []}
    assert r.visible["phone_labels"] == ["Work"] and r.visible["starred"] is True
    assert {"star", "edit", "more_options", "back"} <= set(_controls(r))

    r = read_screen(_elements(MINE / "virtual_aosp_contact_list_1080x2400.xml"))
    assert (r.family, r.screen) == ("aosp", "contact_list")
    names = r.visible["contacts"]
    assert names[:5] == ["José Chen", "Lucas Dubois", "Oliver Haddad", "Priya Smith", "Zoë Ångström"]
    assert "Favorites" not in names and "A" not in names  # section headers are not names
    d = driver("contacts")
    m = d.matcher(_elements(MINE / "virtual_aosp_contact_list_1080x2400.xml"), "aosp", "com.android.contacts")
    headers = [e.text or e.content_desc for e in d.top_down(m.find("section_header"))]
    assert headers[:2] == ["Favorites", "A"]  # the star on the first favorite, then the first letter
    assert {"create_contact", "search", "contact_list"} <= set(_controls(r))

    r = read_screen(_elements(MINE / "virtual_aosp_contact_editor_1080x2400.xml"))
    assert (r.family, r.screen) == ("aosp", "contact_editor")
    # id-less EditTexts found by their hints; AOSP keeps an empty editor below the last filled one
    # and the empty Organization behind "More fields"
    assert r.visible["form"] == {"first_name": "José", "last_name": "Chen", "company": None,
                                 "phones": ["+1 747 555 1362", ""], "emails": [""]}
    have = _controls(r)
    assert {"save", "phone_label_group"} <= set(have) and "add_phone" not in have
    m = d.matcher(_elements(MINE / "virtual_aosp_contact_editor_1080x2400.xml"), "aosp", "com.android.contacts")
    spinner = d.top_down(m.find("phone_label_group"))[0]
    assert [e.text for e in m.all_in("label_chip", spinner)] == ["Work"]  # the phone's type, in a Spinner
    assert m.first("more_fields") is not None


def test_google_contacts_as_public_test_code_locates_it() -> None:
    """No Google Contacts dump exists; its data follows public Appium locators (G-BN, G-TH in
    contacts.yaml). Screens built from exactly those locators read right: rows described
    "Call Mobile …" hold the number in ``header``; editor fields are EditTexts whose empty text
    is their name (no hint attribute, no id); Save is ``toolbar_button``."""
    pkg = "com.google.android.contacts"
    g = lambda i, b, **kw: _el(i, b, package=pkg, **kw)  # noqa: E731
    details = [g(0, (0, 0, 1080, 2400), class_name="android.widget.FrameLayout"),
               g(1, (0, 600, 1080, 700), class_name="android.widget.TextView", text="Ngoc Bui",
                 resource_id=f"{pkg}:id/large_title"),
               g(2, (0, 700, 1080, 760), class_name="android.widget.TextView", text="Initech",
                 resource_id=f"{pkg}:id/organization_name"),
               g(3, (0, 900, 1080, 1100), class_name="android.widget.RelativeLayout",
                 content_desc="Call Mobile 1 (234) 567-89", clickable=True),
               g(4, (200, 920, 800, 990), class_name="android.widget.TextView", text="1 (234) 567-89",
                 resource_id=f"{pkg}:id/header"),
               g(5, (0, 1100, 1080, 1300), class_name="android.widget.RelativeLayout",
                 content_desc="Email Home ngoc@example.org", clickable=True),
               g(6, (200, 1120, 800, 1190), class_name="android.widget.TextView", text="ngoc@example.org",
                 resource_id=f"{pkg}:id/header"),
               g(7, (0, 1300, 1080, 1500), class_name="android.widget.RelativeLayout", content_desc="Birthday"),
               g(8, (200, 1320, 800, 1390), class_name="android.widget.TextView", text="October 3, 2023",
                 resource_id=f"{pkg}:id/header")]
    r = read_screen(details)
    assert (r.family, r.screen) == ("google", "contact_details")
    assert r.visible["contact"] == {"name": "Ngoc Bui", "phones": ["1 (234) 567-89"], "emails": ["ngoc@example.org"]}
    assert r.visible["company"] == "Initech"

    editor = [g(0, (0, 0, 1080, 2400), class_name="android.widget.FrameLayout"),
              g(1, (850, 150, 1050, 270), class_name="android.widget.Button", text="Save",
                resource_id=f"{pkg}:id/toolbar_button", clickable=True),
              g(2, (150, 600, 1030, 740), class_name="android.widget.EditText", text="Ngoc"),
              g(3, (150, 760, 1030, 900), class_name="android.widget.EditText", text="Last name"),
              g(4, (150, 920, 1030, 1060), class_name="android.widget.EditText", text="Company"),
              g(5, (150, 1080, 1030, 1220), class_name="android.widget.EditText", text="Phone"),
              g(6, (150, 1240, 1030, 1380), class_name="android.widget.EditText", text="Email")]
    for e in editor[2:]:
        e.editable = True
    r = read_screen(editor)
    assert (r.family, r.screen) == ("google", "contact_editor")
    have = _controls(r)
    assert have["save"] == [[850, 150, 1050, 270]]
    assert have["last_name"] == [[150, 760, 1030, 900]] and have["phone_field"] == [[150, 1080, 1030, 1220]]
    # without a hint attribute (older Android) a typed field no longer shows its name, so it is
    # not found (None) — never guessed to be another field; the empty ones read empty
    assert "first_name" not in have
    assert r.visible["form"] == {"first_name": None, "last_name": "", "company": "", "phones": [""], "emails": [""]}


def test_google_contacts_phone_type_is_an_exposed_dropdown() -> None:
    """G-KT (contacts.yaml): Google Contacts' editor shows a phone's type as an android.widget.Spinner
    reading "Mobile", described "Mobile Phone", beside text_input_end_icon "Show dropdown menu"; its
    popup is a ListView of id-less TextViews (Material's m3_auto_complete_simple_item). The list's
    section headers and search snippets are AOSP's ContactListItemView's (cliv_name_textview)."""
    pkg = "com.google.android.contacts"
    g = lambda i, b, **kw: _el(i, b, package=pkg, **kw)  # noqa: E731
    editor = [g(0, (0, 0, 720, 1280), class_name="android.widget.FrameLayout"),
              g(1, (0, 176, 720, 1232), class_name="android.widget.ScrollView", scrollable=True),
              g(2, (104, 603, 608, 716), class_name="android.widget.EditText", text="First name", editable=True),
              g(3, (104, 1055, 608, 1168), class_name="android.widget.EditText", text="415-555-0130", hint="Phone",
                editable=True),
              g(4, (104, 1195, 446, 1232), class_name="android.widget.Spinner", text="Mobile",
                content_desc="Mobile Phone", clickable=True),
              g(5, (350, 1203, 446, 1232), class_name="android.widget.ImageButton", content_desc="Show dropdown menu",
                resource_id=f"{pkg}:id/text_input_end_icon", clickable=True)]
    d = driver("contacts")
    m = d.matcher(editor, "google", pkg)
    assert [e.index for e in m.find("phone_label_group")] == [4]
    assert m.find("label_option") == []  # no popup open
    popup = [g(0, (104, 1232, 500, 1700), class_name="android.widget.ListView"),
             *[g(i + 1, (104, 1232 + 58 * i, 500, 1290 + 58 * i), class_name="android.widget.TextView", text=t, clickable=True)
               for i, t in enumerate(["Mobile", "Work", "Home", "Other"])]]
    m = d.matcher(popup, "google", pkg)
    assert [e.text for e in m.find("label_option")] == ["Mobile", "Work", "Home", "Other"]

    row = [g(0, (0, 0, 1080, 2400), class_name="android.widget.FrameLayout"),
           g(1, (0, 300, 1080, 2400), class_name="android.widget.ListView", resource_id="android:id/list", scrollable=True),
           g(2, (0, 300, 1080, 450), class_name="android.view.ViewGroup", clickable=True),
           g(3, (40, 330, 110, 400), class_name="android.widget.ImageView", content_desc="Favorites"),
           g(4, (290, 340, 1000, 400), class_name="android.widget.TextView", text="Ada Lovelace",
             content_desc="Ada Lovelace", resource_id=f"{pkg}:id/cliv_name_textview"),
           g(5, (0, 450, 1080, 600), class_name="android.view.ViewGroup", clickable=True),
           g(6, (40, 480, 110, 550), class_name="android.widget.TextView", text="B", content_desc="B"),
           g(7, (290, 490, 1000, 550), class_name="android.widget.TextView", text="Bo Chen",
             content_desc="Bo Chen", resource_id=f"{pkg}:id/cliv_name_textview")]
    m = d.matcher(row, "google", pkg)
    assert [e.content_desc for e in m.find("section_header")] == ["Favorites", "B"]
    assert [e.index for e in m.find("contact_row")] == [2, 5]


def test_the_skills_helpers() -> None:
    """What the oracle's skills ask the driver: a number's label, the star's state."""
    d = driver("contacts")
    m = d.matcher(_elements(MINE / "aosp_contact_details_1080x2400.xml"), "aosp", "com.android.contacts")
    assert [d.phone_label_of(m, e) for e in d.top_down(m.find("phone_number"))] == ["Mobile", "Work"]
    assert d.starred(m) is False


# --- 3. not recognised, never guessed ------------------------------------------------------------

def _el(i: int, b: tuple[int, int, int, int], **kw: Any) -> UIElement:
    return UIElement.from_px(i, b, (1080, 2400), **kw)


def test_an_unknown_app_is_not_read_as_contacts() -> None:
    xml = (MINE / "aosp_contact_details_1080x2400.xml").read_text("utf-8")
    els = parse_hierarchy(xml.replace("com.android.contacts", "com.example.crm")).elements
    r = read_screen(els)
    assert r.package == "com.example.crm" and r.app is None and r.screen is None
    assert r.problems and "com.example.crm" in r.problems[0]


def test_a_contacts_screen_the_data_does_not_know_is_not_recognised() -> None:
    """AOSP Contacts' settings page: the app is known, the screen is not — reported, no readings."""
    pkg = "com.android.contacts"
    els = [_el(0, (0, 0, 1080, 2400), package=pkg, class_name="android.widget.FrameLayout"),
           _el(1, (0, 132, 1080, 308), package=pkg, class_name="android.view.ViewGroup", resource_id=f"{pkg}:id/toolbar"),
           _el(2, (0, 154, 147, 286), package=pkg, class_name="android.widget.ImageButton", content_desc="Navigate up",
               clickable=True),
           _el(3, (180, 180, 700, 260), package=pkg, class_name="android.widget.TextView", text="Settings"),
           _el(4, (0, 308, 1080, 2400), package=pkg, class_name="androidx.recyclerview.widget.RecyclerView",
               resource_id=f"{pkg}:id/recycler_view", scrollable=True),
           _el(5, (44, 340, 900, 420), package=pkg, class_name="android.widget.TextView", text="Sort by",
               resource_id="android:id/title")]
    r = read_screen(els)
    assert (r.app, r.family) == ("contacts", "aosp")
    assert r.screen is None and r.visible == {} and "not recognised" in r.problems[0]


# --- the data itself -----------------------------------------------------------------------------

def test_every_phone_family_selector_cites_its_evidence_and_roles_resolve() -> None:
    spec = load_spec("contacts")
    for name, fam in spec.families.items():
        full = spec.family(name)
        for role, sels in fam.roles.items():
            for s in sels:
                if name in ("aosp", "google", "samsung", "xiaomi", "sim"):
                    assert s.cite, f"{name}.{role}: a selector without cite"
                for ref in (s.within, s.has):
                    assert ref is None or ref in full.roles, f"{name}.{role} refers to an undefined role {ref!r}"
        for sig in full.screens.values():
            for r in [*sig.all, *sig.any, *sig.none]:
                assert r in full.roles, f"{name}: screen role {r!r} is undefined"
        labels = full.texts.get("phone_labels")
        assert isinstance(labels, dict) and set(labels) == {"mobile", "home", "work", "other"}, name
    d = driver("contacts")
    assert d.family_of("com.google.android.contacts") == "google"
    assert d.family_of("com.android.contacts") == "aosp"
    assert d.family_of("com.android.contacts", "Xiaomi") == "xiaomi"
    assert d.family_of("com.samsung.android.app.contacts") == "samsung"
