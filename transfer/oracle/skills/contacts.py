"""Oracle skills for the Contacts app, through the app UI layer (:mod:`device.apps.contacts`).

Every skill starts with ``open_app`` and first returns to the people list from wherever the
app was left (details, search, a half-filled editor, selection mode). Every control is a role of
the phone's Contacts family (``create_contact``, ``search``, ``first_name``, ``save``,
``star`` …) and every word the skills look for is the family's (``phone_labels``,
``star_add``/``star_remove``), so the same skills run on the simulator's ``sim`` flavor (a
"Contacts" title bar with a search icon, an editor with label chips and Cancel/Save at the
bottom), its ``aosp`` flavor (AOSP Contacts: an editor with ✕ and Save at the top, a Spinner for a
phone's type, the company behind "More fields", "Discard changes?" when leaving an edited form)
and on a phone. Contacts are reached through
search and picked by their exact (normalized) name, never by position. The soft keyboard is
closed before tapping anything it could cover, as a careful person would.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from actionmap.actions import Scroll, Tap, TypeText
from actionmap.observation import UIElement

from device.apps import driver

from ..base import Ctx, OracleError, Skill, act, back, norm, open_app, scroll_to_role

APP = "contacts"
LABELS = ("mobile", "home", "work", "other")
FIELDS = ("phone", "email", "company", "name", "first_name", "last_name")
# a form field's role by the field a skill names
FIELD_ROLES = {"first_name": "first_name", "last_name": "last_name", "company": "company",
               "phone": "phone_field", "email": "email_field"}


# --- small helpers ----------------------------------------------------------------------------

def split_name(name: str) -> tuple[str, str]:
    """First and last name as the editor takes them: the last word is the last name."""
    parts = name.strip().rsplit(" ", 1)
    return (parts[0], parts[1]) if len(parts) == 2 else (parts[0], "")


def _rid(e: UIElement, name: str) -> bool:
    """Kept for tests/test_oracle_train.py's list of helpers the solutions once used (they now ask roles)."""
    return e.resource_id == name or e.resource_id.endswith("/" + name)


def _digits(s: str) -> str:
    return re.sub(r"\D", "", s or "")


def _hide_keyboard(ctx: Ctx) -> Skill:
    """Close the soft keyboard (Back closes only the IME) so it covers nothing we tap."""
    if ctx.obs.keyboard_visible:
        yield from back(ctx)
    return ctx.obs


def _tap_el(ctx: Ctx, el: UIElement) -> Skill:
    return (yield from act(ctx, Tap(target=el.index)))


def _tap(ctx: Ctx, role: str, pred: Callable[[UIElement], bool] | None = None) -> Skill:
    """Close the keyboard, scroll the control playing ``role`` into view and tap it."""
    yield from _hide_keyboard(ctx)
    el = yield from scroll_to_role(ctx, APP, role, pred=pred)
    return (yield from _tap_el(ctx, el))


def _fields(ctx: Ctx, role: str) -> list[UIElement]:
    return sorted((e for e in ctx.roles(APP, role) if e.editable), key=lambda e: (e.bounds.top, e.bounds.left))


def _empty(e: UIElement) -> bool:
    return not e.text or bool(e.hint) and norm(e.text) == norm(e.hint)


def _nth_field(ctx: Ctx, role: str, index: int) -> UIElement | None:
    """The ``index``-th field playing ``role`` (editors give fields no ids: they are told apart by
    order; a field added to fill, index > 0, is the first empty one)."""
    fields = _fields(ctx, role)
    if index > 0:
        blank = [e for e in fields if _empty(e)]
        if blank:
            return blank[0]
    return fields[index] if len(fields) > index else None


def _shows(e: UIElement, role: str, text: str) -> bool:
    """The field reads ``text`` (a phone field may format the digits as it goes; an emptied field
    may show its hint)."""
    if e.text == text or (not text and _empty(e)):
        return True
    return role == "phone_field" and bool(_digits(text)) and _digits(e.text) == _digits(text)


def _fill(ctx: Ctx, role: str, text: str, index: int = 0) -> Skill:
    """Replace the text of the ``index``-th editor field playing ``role`` (scrolling it into view first)."""
    yield from _hide_keyboard(ctx)
    el = _nth_field(ctx, role, index)
    if el is None and ctx.role(APP, "more_fields") is not None:
        # an editor that hides empty kinds until asked (AOSP's "More fields", e.g. the company)
        yield from _tap_el(ctx, ctx.need(APP, "more_fields"))
        el = _nth_field(ctx, role, index)
    if el is None:
        yield from scroll_to_role(ctx, APP, role, pred=lambda e: e.editable and _nth_field(ctx, role, index) is not None)
        el = _nth_field(ctx, role, index)
    if el is None:
        raise OracleError(f"{APP}: no {role} #{index} in the editor ({ctx.family(APP)} family)")
    yield from act(ctx, TypeText(text=text, clear=True, target=el.index))

    def typed(e: UIElement) -> bool:
        return e.editable and _shows(e, role, text)

    got = next((e for e in ctx.roles(APP, role) if typed(e)), None)
    if got is None:  # the keyboard may cover the field it is typing into
        yield from _hide_keyboard(ctx)
        try:
            got = yield from scroll_to_role(ctx, APP, role, pred=typed)
        except OracleError:
            got = None
    if got is None:
        now = _nth_field(ctx, role, index)
        raise OracleError(f"field {role} reads {now.text if now else None!r}, wanted {text!r}")
    return ctx.obs


def _at_list(ctx: Ctx) -> bool:
    return ctx.role(APP, "create_contact") is not None


def _at_details(ctx: Ctx, name: str | None = None) -> bool:
    hit = ctx.role(APP, "contact_title")
    return hit is not None and (name is None or norm(hit.text) == norm(name))


def _in_editor(ctx: Ctx) -> bool:
    return ctx.role(APP, "first_name") is not None


# --- navigation -------------------------------------------------------------------------------

def open_contacts(ctx: Ctx) -> Skill:
    """Open Contacts on its people list, whatever screen it was left on."""
    yield from open_app(ctx, APP)
    for _ in range(8):
        if _at_list(ctx):
            return ctx.obs
        discard = ctx.role(APP, "discard")
        if discard is not None:  # leaving an edited form asks first
            yield from _tap_el(ctx, discard)
        else:  # Back closes the keyboard, a dialog or a menu, then leaves the screen
            yield from back(ctx)
        if ctx.obs.foreground.app != APP:
            yield from open_app(ctx, APP)
    if not _at_list(ctx):
        raise OracleError("could not get back to the contacts list")
    return ctx.obs


def _start_search(ctx: Ctx) -> Skill:
    return (yield from _tap(ctx, "search"))


def _result_names(ctx: Ctx) -> list[UIElement]:
    return [e for e in ctx.roles(APP, "contact_name") if e.text]


def open_contact(ctx: Ctx, name: str) -> Skill:
    """Open the details of the contact called ``name`` (exact, normalized), found by search."""
    yield from open_contacts(ctx)
    yield from _start_search(ctx)
    yield from act(ctx, TypeText(text=name, clear=True))
    want = norm(name)
    hit = next((e for e in _result_names(ctx) if norm(e.text) == want), None)
    if hit is None:
        yield from _hide_keyboard(ctx)
        hit = next((e for e in _result_names(ctx) if norm(e.text) == want), None)
    if hit is None:
        raise OracleError(f"no contact named {name!r}")
    yield from _tap_el(ctx, hit)
    if not _at_details(ctx, name):
        raise OracleError(f"details of {name!r} did not open")
    return ctx.obs


def _open_editor(ctx: Ctx, name: str) -> Skill:
    yield from open_contact(ctx, name)
    yield from _tap(ctx, "edit")
    if not _in_editor(ctx):
        raise OracleError("the contact editor did not open")
    return ctx.obs


def _save(ctx: Ctx, expect_name: str | None) -> Skill:
    yield from _hide_keyboard(ctx)
    yield from _tap(ctx, "save")
    if _in_editor(ctx):
        raise OracleError("the editor did not save (still on the form)")
    if expect_name is not None and not _at_details(ctx, expect_name):
        raise OracleError(f"after saving, the details do not show {expect_name!r}")
    return ctx.obs


def _choose_label(ctx: Ctx, label: str, number: str) -> Skill:
    """Give the phone field that reads ``number`` the label ``label`` (mobile, home, work, other)."""
    words = ctx.words(APP, "phone_labels")
    text = words.get(label.lower()) if isinstance(words, dict) else None
    if text is None:
        raise OracleError(f"unknown phone label {label!r}; known: {', '.join(LABELS)}")
    yield from _hide_keyboard(ctx)

    def below_field(g: UIElement) -> bool:
        field = next((e for e in _fields(ctx, "phone_field") if _shows(e, "phone_field", number)), None)
        if field is None:
            return False
        nxt = [x for x in ctx.roles(APP, "phone_label_group") if x.bounds.top >= field.bounds.center[1]]
        return bool(nxt) and min(nxt, key=lambda x: x.bounds.top).index == g.index

    group = yield from scroll_to_role(ctx, APP, "phone_label_group", pred=below_field)
    chip = next((e for e in ctx.roles(APP, "label_chip", within=group) if norm(e.text) == norm(text)), None)
    if chip is not None and (chip.checked or not chip.checkable):
        return ctx.obs  # the chip is on, or the Spinner already shows the label
    if chip is not None:
        return (yield from _tap_el(ctx, chip))
    if ctx.ui(APP).family.roles.get("label_option"):
        # a Spinner (AOSP): open its drop-down and pick the label
        yield from _tap_el(ctx, group)
        option = next((e for e in ctx.roles(APP, "label_option") if norm(e.text) == norm(text)), None)
        if option is not None:
            return (yield from _tap_el(ctx, option))
    raise OracleError(f"no {text!r} label to choose ({ctx.family(APP)} family)")


# --- operations -------------------------------------------------------------------------------

def create_contact(ctx: Ctx, name: str, phone: str | None = None, label: str = "mobile", email: str | None = None,
                   company: str | None = None) -> Skill:
    """Create a contact through the "Create contact" form; ends on its details screen."""
    if not name.strip() and not phone and not email and not company:
        raise OracleError("a contact needs a name, a phone, an email or a company")
    yield from open_contacts(ctx)
    yield from _tap(ctx, "create_contact")
    first, last = split_name(name)
    if first:
        yield from _fill(ctx, "first_name", first)
    if last:
        yield from _fill(ctx, "last_name", last)
    if company:
        yield from _fill(ctx, "company", company)
    if phone:
        yield from _fill(ctx, "phone_field", phone)
        yield from _choose_label(ctx, label, phone)
    if email:
        yield from _fill(ctx, "email_field", email)
    return (yield from _save(ctx, name.strip() or None))


def _shown(ctx: Ctx, role: str, value: str) -> bool:
    return any(norm(e.text) == norm(value) or norm(e.content_desc) == norm(value) for e in ctx.roles(APP, role))


def edit_contact_phone(ctx: Ctx, name: str, new_phone: str, index: int = 0) -> Skill:
    """Replace the ``index``-th phone number of ``name``."""
    yield from _open_editor(ctx, name)
    yield from _fill(ctx, "phone_field", new_phone, index)
    yield from _save(ctx, name)
    if not _shown(ctx, "phone_number", new_phone):
        raise OracleError(f"{name!r} does not show the number {new_phone!r} after saving")
    return ctx.obs


def edit_contact_field(ctx: Ctx, name: str, field: str, value: str) -> Skill:
    """Set one field of ``name``: email, company, phone, name, first_name or last_name."""
    if field not in FIELDS:
        raise OracleError(f"cannot edit field {field!r}; known: {', '.join(FIELDS)}")
    if field == "phone":
        return (yield from edit_contact_phone(ctx, name, value))
    yield from _open_editor(ctx, name)
    new_name = name
    if field == "name":
        first, last = split_name(value)
        yield from _fill(ctx, "first_name", first)
        yield from _fill(ctx, "last_name", last)
        new_name = value.strip()
    elif field in ("first_name", "last_name"):
        yield from _fill(ctx, field, value)
        first, last = split_name(name)
        new_name = " ".join(x for x in ((value, last) if field == "first_name" else (first, value)) if x.strip())
    else:
        yield from _fill(ctx, FIELD_ROLES[field], value)
    yield from _save(ctx, new_name)
    if field == "email" and value and not _shown(ctx, "email_address", value):
        raise OracleError(f"{name!r} does not show the email {value!r} after saving")
    if field == "company" and value:
        yield from scroll_to_role(ctx, APP, "organization", pred=lambda e: norm(e.text) == norm(value))
    return ctx.obs


def set_starred(ctx: Ctx, name: str, starred: bool) -> Skill:
    """Add ``name`` to favorites (``starred=True``) or remove it, tapping only if needed."""
    yield from open_contact(ctx, name)
    d = driver(APP)
    now = d.starred(ctx.ui(APP))
    if now is None:
        raise OracleError(f"no favorites button on the details screen ({ctx.family(APP)} family)")
    if now != starred:
        yield from _tap_el(ctx, ctx.need(APP, "star"))
    if d.starred(ctx.ui(APP)) != starred:
        raise OracleError(f"favorite state of {name!r} did not change")
    return ctx.obs


def delete_contact(ctx: Ctx, name: str) -> Skill:
    """Delete ``name`` through the overflow menu and its confirmation dialog."""
    yield from open_contact(ctx, name)
    yield from _tap(ctx, "more_options")
    yield from _tap(ctx, "menu_delete")
    confirm = ctx.role(APP, "confirm_delete")
    if confirm is None:
        raise OracleError("no delete confirmation")
    yield from _tap_el(ctx, confirm)
    if _at_details(ctx):  # the app returns to where the details were opened from (list or search)
        raise OracleError("the contact's details are still open after deleting")
    return ctx.obs


# --- queries ----------------------------------------------------------------------------------

def read_contact_field(ctx: Ctx, name: str, field: str, label: str | None = None) -> Skill:
    """The ``phone`` (optionally the one with ``label``), ``email`` or ``company`` shown for ``name``; '' if none."""
    if field not in ("phone", "email", "company"):
        raise OracleError(f"cannot read field {field!r}; known: phone, email, company")
    yield from open_contact(ctx, name)
    role = {"phone": "phone_number", "email": "email_address", "company": "organization"}[field]
    try:
        yield from scroll_to_role(ctx, APP, role)
    except OracleError:
        return ""
    hits = sorted(ctx.roles(APP, role), key=lambda e: e.bounds.top)
    if field == "phone" and label:
        words = ctx.words(APP, "phone_labels")
        want = norm(words.get(label.lower(), label) if isinstance(words, dict) else label)
        d = driver(APP)
        for e in hits:
            lab = d.phone_label_of(ctx.ui(APP), e)
            if lab is not None and norm(lab) == want:
                return e.text
        return ""
    return hits[0].text if hits else ""


def _list_scroll(ctx: Ctx) -> Scroll:
    lst = next((e for e in ctx.roles(APP, "contact_list") if e.scrollable), None)
    return Scroll(direction="down", target=lst.index) if lst else Scroll(direction="down")


def search_contact(ctx: Ctx, query: str) -> Skill:
    """Search Contacts for ``query``; returns the names of every result, in list order."""
    yield from open_contacts(ctx)
    yield from _start_search(ctx)
    yield from act(ctx, TypeText(text=query, clear=True))
    yield from _hide_keyboard(ctx)
    names: list[str] = []

    def collect(els: Iterable[UIElement]) -> None:
        for e in sorted(els, key=lambda e: e.bounds.top):
            if e.text not in names:
                names.append(e.text)

    collect(_result_names(ctx))
    for _ in range(ctx.max_scrolls):
        before = [(e.text, e.bounds) for e in ctx.obs.elements]
        yield from act(ctx, _list_scroll(ctx))
        collect(_result_names(ctx))
        if [(e.text, e.bounds) for e in ctx.obs.elements] == before:
            break
    return names
