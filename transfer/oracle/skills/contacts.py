"""Oracle skills for the Contacts app: create, edit, star, delete, read and search contacts.

Every skill starts with ``open_app`` and first returns to the people list from wherever the
app was left (details, search, a half-filled editor, selection mode), in both flavors:
``sim`` has a "Contacts" title bar with a search icon and an editor with Cancel/Save at the
bottom; ``aosp`` (Google Contacts) has a "Search contacts" bar, an editor with ✕ and Save at
the top, and asks "Discard changes?" when leaving an edited form. Contacts are reached
through search and picked by their exact (normalized) name, never by position. The soft
keyboard is closed before tapping anything it could cover, as a careful person would.
"""

from __future__ import annotations

from collections.abc import Iterable

from actionmap.actions import Scroll, Tap, TypeText
from actionmap.observation import UIElement

from ..base import Ctx, OracleError, Skill, act, back, norm, open_app, scroll_to

LABELS = {"mobile": "Mobile", "home": "Home", "work": "Work", "other": "Other"}
FIELDS = ("phone", "email", "company", "name", "first_name", "last_name")


# --- small helpers ----------------------------------------------------------------------------

def split_name(name: str) -> tuple[str, str]:
    """First and last name as the editor takes them: the last word is the last name."""
    parts = name.strip().rsplit(" ", 1)
    return (parts[0], parts[1]) if len(parts) == 2 else (parts[0], "")


def _rid(e: UIElement, name: str) -> bool:
    return e.resource_id == name or e.resource_id.endswith("/" + name)


def _hide_keyboard(ctx: Ctx) -> Skill:
    """Close the soft keyboard (Back closes only the IME) so it covers nothing we tap."""
    if ctx.obs.keyboard_visible:
        yield from back(ctx)
    return ctx.obs


def _tap_el(ctx: Ctx, el: UIElement) -> Skill:
    return (yield from act(ctx, Tap(target=el.index)))


def _tap(ctx: Ctx, text: str | None = None, **kw: object) -> Skill:
    yield from _hide_keyboard(ctx)
    el = yield from scroll_to(ctx, text, **kw)
    return (yield from _tap_el(ctx, el))


def _fill(ctx: Ctx, rid: str, text: str) -> Skill:
    """Replace the text of the editor field ``rid`` (scrolling it into view first)."""
    yield from _hide_keyboard(ctx)
    el = yield from scroll_to(ctx, rid=rid, pred=lambda e: e.editable)
    yield from act(ctx, TypeText(text=text, clear=True, target=el.index))
    got = ctx.find(rid=rid, pred=lambda e: e.editable)
    if got is None:  # the keyboard may cover the field it is typing into
        yield from _hide_keyboard(ctx)
        got = yield from scroll_to(ctx, rid=rid, pred=lambda e: e.editable)
    if got is None or got.text != text:
        raise OracleError(f"field {rid} reads {got.text if got else None!r}, wanted {text!r}")
    return ctx.obs


def _at_list(ctx: Ctx) -> bool:
    return ctx.has(desc="Create contact")


def _at_details(ctx: Ctx, name: str | None = None) -> bool:
    hit = ctx.find(rid="large_title")
    return hit is not None and (name is None or norm(hit.text) == norm(name))


# --- navigation -------------------------------------------------------------------------------

def open_contacts(ctx: Ctx) -> Skill:
    """Open Contacts on its people list, whatever screen it was left on."""
    yield from open_app(ctx, "contacts")
    for _ in range(8):
        if _at_list(ctx):
            return ctx.obs
        discard = ctx.find("Discard", cls="Button")
        if discard is not None:  # aosp: leaving an edited form asks first
            yield from _tap_el(ctx, discard)
        else:  # Back closes the keyboard, a dialog or a menu, then leaves the screen
            yield from back(ctx)
        if ctx.obs.foreground.app != "contacts":
            yield from open_app(ctx, "contacts")
    if not _at_list(ctx):
        raise OracleError("could not get back to the contacts list")
    return ctx.obs


def _start_search(ctx: Ctx) -> Skill:
    if ctx.flavor == "aosp" or ctx.has("Search contacts", rid="open_search_bar"):
        return (yield from _tap(ctx, "Search contacts", rid="open_search_bar"))
    return (yield from _tap(ctx, desc="Search contacts"))


def _result_names(ctx: Ctx) -> list[UIElement]:
    return [e for e in ctx.obs.elements if _rid(e, "title") and e.class_name.endswith("TextView") and e.text]


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
    yield from _tap(ctx, desc=ctx.t("Edit", "Edit contact"))
    if not ctx.has(rid="first_name"):
        raise OracleError("the contact editor did not open")
    return ctx.obs


def _save(ctx: Ctx, expect_name: str | None) -> Skill:
    yield from _hide_keyboard(ctx)
    yield from _tap(ctx, "Save", cls="Button")
    if ctx.has(rid="first_name"):
        raise OracleError("the editor did not save (still on the form)")
    if expect_name is not None and not _at_details(ctx, expect_name):
        raise OracleError(f"after saving, the details do not show {expect_name!r}")
    return ctx.obs


def _choose_label(ctx: Ctx, label: str, index: int = 0) -> Skill:
    text = LABELS.get(label.lower())
    if text is None:
        raise OracleError(f"unknown phone label {label!r}; known: {', '.join(LABELS)}")
    yield from _hide_keyboard(ctx)
    group = yield from scroll_to(ctx, rid=f"label_group_{index}")
    b = group.bounds
    chip = ctx.find(text, cls="CompoundButton", pred=lambda e: b.top <= e.bounds.center[1] <= b.bottom)
    if chip is None:
        raise OracleError(f"no {text!r} label chip")
    if not chip.checked:
        yield from _tap_el(ctx, chip)
    return ctx.obs


# --- operations -------------------------------------------------------------------------------

def create_contact(ctx: Ctx, name: str, phone: str | None = None, label: str = "mobile", email: str | None = None,
                   company: str | None = None) -> Skill:
    """Create a contact through the "Create contact" form; ends on its details screen."""
    if not name.strip() and not phone and not email and not company:
        raise OracleError("a contact needs a name, a phone, an email or a company")
    yield from open_contacts(ctx)
    yield from _tap(ctx, desc="Create contact")
    first, last = split_name(name)
    if first:
        yield from _fill(ctx, "first_name", first)
    if last:
        yield from _fill(ctx, "last_name", last)
    if company:
        yield from _fill(ctx, "company", company)
    if phone:
        yield from _fill(ctx, "phone_0", phone)
        yield from _choose_label(ctx, label, 0)
    if email:
        yield from _fill(ctx, "email_0", email)
    return (yield from _save(ctx, name.strip() or None))


def edit_contact_phone(ctx: Ctx, name: str, new_phone: str, index: int = 0) -> Skill:
    """Replace the ``index``-th phone number of ``name``."""
    yield from _open_editor(ctx, name)
    yield from _fill(ctx, f"phone_{index}", new_phone)
    yield from _save(ctx, name)
    if not ctx.has(new_phone, rid="phone_number"):
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
        yield from _fill(ctx, {"email": "email_0", "company": "company"}[field], value)
    yield from _save(ctx, new_name)
    if field == "email" and value and not ctx.has(value, rid="email_address"):
        raise OracleError(f"{name!r} does not show the email {value!r} after saving")
    if field == "company" and value:
        yield from scroll_to(ctx, value, rid="organization")
    return ctx.obs


def set_starred(ctx: Ctx, name: str, starred: bool) -> Skill:
    """Add ``name`` to favorites (``starred=True``) or remove it, tapping only if needed."""
    yield from open_contact(ctx, name)
    star = ctx.find(desc="Add to favorites") or ctx.find(desc="Remove from favorites")
    if star is None:
        raise OracleError("no favorites button on the details screen")
    if (star.content_desc == "Remove from favorites") != starred:
        yield from _tap_el(ctx, star)
    want = "Remove from favorites" if starred else "Add to favorites"
    if not ctx.has(desc=want):
        raise OracleError(f"favorite state of {name!r} did not change")
    return ctx.obs


def delete_contact(ctx: Ctx, name: str) -> Skill:
    """Delete ``name`` through the overflow menu and its confirmation dialog."""
    yield from open_contact(ctx, name)
    yield from _tap(ctx, desc="More options")
    yield from _tap(ctx, "Delete", rid="android:id/title")
    confirm = ctx.find("Delete", cls="Button")
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
    rid = {"phone": "phone_number", "email": "email_address", "company": "organization"}[field]
    try:
        yield from scroll_to(ctx, rid=rid)
    except OracleError:
        return ""
    hits = sorted(ctx.find_all(rid=rid), key=lambda e: e.bounds.top)
    if field == "phone" and label:
        want = norm(LABELS.get(label.lower(), label))
        for e in hits:
            lab = next((x for x in ctx.obs.elements if _rid(x, "phone_label")
                        and e.bounds.bottom - 4 <= x.bounds.top <= e.bounds.bottom + 40), None)
            if lab is not None and norm(lab.text) == want:
                return e.text
        return ""
    return hits[0].text if hits else ""


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
        lst = ctx.find(rid="list", pred=lambda e: e.scrollable)
        yield from act(ctx, Scroll(direction="down", target=lst.index) if lst else Scroll(direction="down"))
        collect(_result_names(ctx))
        if [(e.text, e.bounds) for e in ctx.obs.elements] == before:
            break
    return names
