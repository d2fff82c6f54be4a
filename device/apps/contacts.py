"""Contacts: the people list, search, a contact's details and the editor — read by role.

On the list a person reads names, one per *row* (the clickable list item around a name). On the
details screen they read the contact: the big name (``contact_title``), each phone number with
its label and each e-mail — AOSP and Google show every entry as a row described "Call <label>
<number>" / "Email <label> <address>" whose ``header`` is the value, so the value is the one
inside such a row, never a number that merely appears elsewhere — and the company. In the
editor they read the form's fields, found by their hints ("First name", "Phone" …) where the
app gives them no ids; a field that shows only its hint is empty.

Texts are returned as the screen shows them (AOSP wraps numbers in bidirectional marks).
"""

from __future__ import annotations

from typing import Any, ClassVar

from actionmap.observation import UIElement

from .base import AppDriver
from .match import Matcher, norm


def _value(m: Matcher, role: str, e: UIElement | None) -> str | None:
    """A field's typed text: '' when it shows only its hint — the hint Android 8+ reports, or on
    older Android the hint the family's data found the empty field by; None when it is not on screen."""
    if e is None:
        return None
    hints = {norm(e.hint)} if e.hint else {norm(s.hint) for s in m.family.roles.get(role, []) if s.hint}
    return "" if norm(e.text) in hints else e.text


class ContactsDriver(AppDriver):
    app = "contacts"
    control_roles: ClassVar[tuple[str, ...]] = (
        "contact_list", "contact_row", "contact_name", "section_header", "create_contact", "search", "search_field",
        "more_options", "back", "title",
        "contact_title", "phone_number", "phone_label", "email_address", "organization", "star", "edit",
        "menu_delete", "confirm_delete",
        "first_name", "last_name", "company", "phone_field", "email_field", "phone_label_group", "add_phone",
        "save", "discard",
    )

    @staticmethod
    def top_down(els: list[UIElement]) -> list[UIElement]:
        return sorted(els, key=lambda e: (e.bounds.top, e.bounds.left))

    def names(self, m: Matcher) -> list[str]:
        """The names on the list (or the search results), top to bottom, as shown (a favorite that
        the list shows twice is read twice)."""
        return [e.text or e.content_desc for e in self.top_down(m.find("contact_name")) if e.text or e.content_desc]

    def contact(self, m: Matcher) -> dict[str, Any]:
        title = m.first("contact_title")
        return {
            "name": (title.text or title.content_desc) if title is not None else None,
            "phones": [e.text for e in self.top_down(m.find("phone_number")) if e.text],
            "emails": [e.text for e in self.top_down(m.find("email_address")) if e.text],
        }

    def phone_label_of(self, m: Matcher, number: UIElement) -> str | None:
        """The label shown under a phone number (the first label between its bottom and 40 px below)."""
        for lab in self.top_down(m.find("phone_label")):
            if number.bounds.bottom - 4 <= lab.bounds.top <= number.bounds.bottom + 40:
                return lab.text
        return None

    def starred(self, m: Matcher) -> bool | None:
        """Whether the star reads "remove from favorites" (True), "add to favorites" (False), or neither (None)."""
        star = m.first("star")
        if star is None:
            return None
        desc = norm(star.content_desc)
        if desc in {norm(x) for x in m.texts("star_remove")}:
            return True
        if desc in {norm(x) for x in m.texts("star_add")}:
            return False
        return None

    def form(self, m: Matcher) -> dict[str, Any]:
        return {
            "first_name": _value(m, "first_name", m.first("first_name")),
            "last_name": _value(m, "last_name", m.first("last_name")),
            "company": _value(m, "company", m.first("company")),
            "phones": [_value(m, "phone_field", e) for e in self.top_down(m.find("phone_field"))],
            "emails": [_value(m, "email_field", e) for e in self.top_down(m.find("email_field"))],
        }

    def visible(self, m: Matcher, screen: str | None) -> dict[str, Any]:
        out: dict[str, Any] = {}
        title = m.first("title")
        if title is not None and title.text:
            out["title"] = title.text
        if screen in ("contact_list", "search"):
            out["contacts"] = self.names(m)
        elif screen == "contact_details":
            out["contact"] = self.contact(m)
            out["phone_labels"] = [self.phone_label_of(m, e) for e in self.top_down(m.find("phone_number")) if e.text]
            org = m.first("organization")
            if org is not None and org.text:
                out["company"] = org.text
            starred = self.starred(m)
            if starred is not None:
                out["starred"] = starred
        elif screen == "contact_editor":
            out["form"] = self.form(m)
        return out
