"""Oracle solutions for Contacts templates.

Steps that open a contact from a list are retried (``_util.retrying``): a tap the app takes
for a long press selects the row instead of opening it. Creating is never retried (a second
attempt could add a duplicate).

Contacts are created, edited, starred and deleted with ``skills.contacts``; numbers are typed
the way the instruction writes them. Query answers are read from the contact card (or, for
favorites, from the people list's Favorites section; for "who works at X", from the search
results, whose line shows the company a result matched on). Rows, names, headers and fields
are the family's roles in the app UI layer (:mod:`device.apps.contacts`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from actionmap.actions import TypeText
from actionmap.observation import UIElement

from ..base import Ctx, OracleError, Skill, act, answer, complete, norm
from ..skills import contacts as K
from ..skills.common import Ambiguous, each_retrying, retrying
from .registry import solution

# --- helpers -------------------------------------------------------------------------------------


def create_contact_phones(ctx: Ctx, name: str, phones: list[tuple[str, str]], email: str | None = None,
                          company: str | None = None) -> Skill:
    """Create a contact with several labelled phone numbers (``[(number, 'mobile'|'work'|...)]``)."""
    yield from K.open_contacts(ctx)
    yield from K._tap(ctx, "create_contact")
    first, last = K.split_name(name)
    if first:
        yield from K._fill(ctx, "first_name", first)
    if last:
        yield from K._fill(ctx, "last_name", last)
    if company:
        yield from K._fill(ctx, "company", company)
    for i, (number, label) in enumerate(phones):
        if i > 0 and K._nth_field(ctx, "phone_field", i) is None:
            yield from K._tap(ctx, "add_phone")
        yield from K._fill(ctx, "phone_field", number, i)
        yield from K._choose_label(ctx, label, number)
    if email:
        yield from K._fill(ctx, "email_field", email)
    return (yield from K._save(ctx, name.strip() or None))


def _section_titles(ctx: Ctx) -> list[UIElement]:
    return sorted(ctx.roles(K.APP, "section_header"), key=lambda e: e.bounds.top)


def _is_favorites(ctx: Ctx, header: UIElement) -> bool:
    words = ctx.words(K.APP, "favorites")
    return any(norm(w) in norm(header.text or header.content_desc) for w in ([words] if isinstance(words, str) else words))


def list_favorites(ctx: Ctx) -> Skill:
    """Names in the people list's Favorites section (scrolling until the section ends)."""
    yield from K.open_contacts(ctx)
    names: list[str] = []
    in_favs = False
    for _ in range(ctx.max_scrolls):
        headers = {e.index for e in _section_titles(ctx)}
        items = sorted([*_section_titles(ctx), *K._result_names(ctx)], key=lambda e: e.bounds.top)
        ended = False
        for e in items:
            if e.index in headers:
                if _is_favorites(ctx, e):
                    in_favs = True
                    continue
                if in_favs:
                    ended = True
                    break
                continue
            if in_favs and e.text not in names:
                names.append(e.text)
        if ended or not headers:
            break
        if not in_favs and _section_titles(ctx):
            break  # the list starts with a letter: no favorites
        before = [(e.text, e.bounds) for e in ctx.obs.elements]
        yield from act(ctx, K._list_scroll(ctx))
        if [(e.text, e.bounds) for e in ctx.obs.elements] == before:
            break
    return names


def search_rows(ctx: Ctx, query: str) -> Skill:
    """Search Contacts for ``query``; every result as ``(name, line under it)``, in list order.

    The line under a result is Android's search snippet: the company when that is what
    matched, else the first number or e-mail.
    """
    yield from K.open_contacts(ctx)
    yield from K._start_search(ctx)
    yield from act(ctx, TypeText(text=query, clear=True))
    yield from K._hide_keyboard(ctx)
    rows: dict[str, str] = {}

    def collect() -> None:
        found = sorted(ctx.roles(K.APP, "contact_row"), key=lambda e: e.bounds.top)
        if not found:  # results without row containers: names only, each confirmed on its card
            for e in sorted(K._result_names(ctx), key=lambda e: e.bounds.top):
                rows.setdefault(e.text, "")
        for row in found:
            name = next((e.text for e in ctx.roles(K.APP, "contact_name", within=row) if e.text), None)
            if name and name not in rows:
                rows[name] = next((e.text for e in ctx.roles(K.APP, "contact_snippet", within=row) if e.text), "")

    collect()
    for _ in range(ctx.max_scrolls):
        before = [(e.text, e.bounds) for e in ctx.obs.elements]
        yield from act(ctx, K._list_scroll(ctx))
        collect()
        if [(e.text, e.bounds) for e in ctx.obs.elements] == before:
            break
    return list(rows.items())


def contacts_with_company(ctx: Ctx, company: str) -> Skill:
    """Names of contacts whose company is ``company``.

    Contacts finds contacts by company through search and shows the company under a result
    that matched on it; a result whose line does not show it (it matched on its name, or an
    app without snippets) is confirmed on its card. If search finds none (an app whose search
    ignores companies), every contact of the list is opened in turn — slow, but the only way
    left on screen.
    """
    rows = yield from search_rows(ctx, company)
    out = [name for name, line in rows if norm(line) == norm(company)]
    candidates = [name for name, line in rows if norm(line) != norm(company)]
    if not rows:
        candidates = yield from all_contact_names(ctx)
    for name in candidates:
        shown = yield from retrying(ctx, lambda name=name: K.read_contact_field(ctx, name, "company"), tries=3)
        if norm(shown) == norm(company):
            out.append(name)
    return out


def all_contact_names(ctx: Ctx) -> Skill:
    """Every name in the people list (favorites appear twice on screen, once here)."""
    yield from K.open_contacts(ctx)
    names: list[str] = []
    for _ in range(ctx.max_scrolls * 2):
        for e in sorted(K._result_names(ctx), key=lambda e: e.bounds.top):
            if e.text not in names:
                names.append(e.text)
        before = [(e.text, e.bounds) for e in ctx.obs.elements]
        yield from act(ctx, K._list_scroll(ctx))
        if [(e.text, e.bounds) for e in ctx.obs.elements] == before:
            break
    return names


def _p(inst: Any, key: str = "p") -> str:
    return inst.params[key]["full"]


# --- create --------------------------------------------------------------------------------------

# template → the form's fields besides the name, from the instance's parameters
_CREATE_FIELDS: dict[str, Callable[[dict[str, Any]], dict[str, str]]] = {
    "contacts.create_phone": lambda p: {"phone": p["ph"]["text"]},
    "contacts.create_email": lambda p: {"email": p["email"]},
    "contacts.create_company": lambda p: {"phone": p["ph"]["text"], "company": p["company"]},
    "train.contacts.create_phone_email": lambda p: {"phone": p["ph"]["text"], "email": p["email"]},
}


@solution(*_CREATE_FIELDS)
def solve_create(ctx: Ctx, inst: Any) -> Skill:
    yield from K.create_contact(ctx, _p(inst), **_CREATE_FIELDS[inst.template_id](inst.params))
    yield from complete(ctx)


@solution("train.contacts.create_two_phones")
def solve_create_two_phones(ctx: Ctx, inst: Any) -> Skill:
    yield from create_contact_phones(ctx, _p(inst), [(inst.params["ph"]["text"], "mobile"),
                                                      (inst.params["ph2"]["text"], "work")])
    yield from complete(ctx)


@solution("train.contacts.create_first_only")
def solve_create_first_only(ctx: Ctx, inst: Any) -> Skill:
    yield from K.create_contact(ctx, inst.params["first"], phone=inst.params["ph"]["text"])
    yield from complete(ctx)


# --- edit ----------------------------------------------------------------------------------------

@solution("contacts.edit_number")
def solve_edit_number(ctx: Ctx, inst: Any) -> Skill:
    yield from retrying(ctx, lambda: K.edit_contact_phone(ctx, _p(inst), inst.params["ph2"]["text"]), tries=3)
    yield from complete(ctx)


def _new_email(p: dict[str, Any]) -> str:
    return p["email"] if "email" in p else p["new"]


# template → (the field it sets, its new value from the instance's parameters)
_EDITS: dict[str, tuple[str, Callable[[dict[str, Any]], str]]] = {
    "train.contacts.add_email": ("email", _new_email),
    "train.contacts.edit_email": ("email", _new_email),
    "train.contacts.set_company": ("company", lambda p: p["company"]),
    "train.contacts.remove_company": ("company", lambda p: ""),
    "train.contacts.rename": ("name", lambda p: p["q"]["full"]),
}


@solution(*_EDITS)
def solve_edit_field(ctx: Ctx, inst: Any) -> Skill:
    field, value = _EDITS[inst.template_id]
    new = value(inst.params)
    yield from retrying(ctx, lambda: K.edit_contact_field(ctx, _p(inst), field, new), tries=3)
    yield from complete(ctx)


def _starring(on: bool) -> Callable[[Ctx, str], Skill]:
    return lambda ctx, name: K.set_starred(ctx, name, on)


def _two(inst: Any) -> list[str]:
    return [rec["name"] for rec in inst.params["ps"][:2]]


def _one(inst: Any) -> list[str]:
    return [_p(inst)]


# template → (what it does to a contact, the contacts it names)
_EACH: dict[str, tuple[Callable[[Ctx, str], Skill], Callable[[Any], list[str]]]] = {
    "contacts.favorite": (_starring(True), _one),
    "contacts.unfavorite": (_starring(False), _one),
    "train.contacts.star_two": (_starring(True), _two),
    "contacts.delete": (K.delete_contact, _one),
    "train.contacts.delete_two": (K.delete_contact, _two),
}


@solution(*_EACH)
def solve_each_contact(ctx: Ctx, inst: Any) -> Skill:
    skill, names = _EACH[inst.template_id]
    yield from each_retrying(ctx, names(inst), skill)
    yield from complete(ctx)


# --- queries -------------------------------------------------------------------------------------

# template → what it asks, as (answer field, contact-card field, phone label) in answer order
_CARD_QUERIES: dict[str, list[tuple[str, str, str | None]]] = {
    "contacts.query_phone": [("phone", "phone", None)],
    "train.contacts.query_work_number": [("phone", "phone", "work")],
    "contacts.query_email": [("email", "email", None)],
    "contacts.query_company": [("company", "company", None)],
    "test.query.contact_card": [("company", "company", None), ("email", "email", None)],
}


@solution(*_CARD_QUERIES)
def solve_query_card(ctx: Ctx, inst: Any) -> Skill:
    fields: dict[str, Any] = {}
    for key, field, label in _CARD_QUERIES[inst.template_id]:
        fields[key] = yield from retrying(ctx, lambda f=field, lb=label: K.read_contact_field(ctx, _p(inst), f, label=lb),
                                          tries=3)
    yield from answer(ctx, **fields)


@solution("train.contacts.query_favorites")
def solve_query_favorites(ctx: Ctx, inst: Any) -> Skill:
    names = yield from list_favorites(ctx)
    if not names:
        raise OracleError("no Favorites section in the people list")
    yield from answer(ctx, names=names)


@solution("train.contacts.query_by_company")
def solve_query_by_company(ctx: Ctx, inst: Any) -> Skill:
    names = yield from contacts_with_company(ctx, inst.params["company"])
    if len(names) != 1:
        raise Ambiguous(f"{len(names)} contacts work at {inst.params['company']!r}: {names}")
    yield from answer(ctx, name=names[0])


@solution("train.contacts.query_count_company")
def solve_query_count_company(ctx: Ctx, inst: Any) -> Skill:
    names = yield from contacts_with_company(ctx, inst.params["company"])
    yield from answer(ctx, count=len(names))


__all__ = ["all_contact_names", "contacts_with_company", "create_contact_phones", "list_favorites", "search_rows"]
