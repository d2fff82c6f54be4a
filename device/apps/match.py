"""Find controls by role on one screen: selectors from the family data, applied to a flat element list.

A screen is what a policy observes: uiautomator's nodes in document order, each with pixel
bounds. Containment ("the label inside this card") is read from the bounds — a container's
box encloses its children's — so the same code reads a real dump, the virtual phone and the
simulator's page alike, with no tree to keep.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from actionmap.observation import UIElement

from .spec import FamilySpec, Sel

SYSTEM_PACKAGES = frozenset({"com.android.systemui", "android"})


def norm(s: str | None) -> str:
    """NFKC, casefold, unified dashes, any run of spaces (hair and narrow no-break ones too) as one."""
    s = unicodedata.normalize("NFKC", s or "")
    for d in ("\u2010", "\u2011", "\u2012", "\u2013", "\u2212"):
        s = s.replace(d, "-")
    return re.sub(r"\s+", " ", s).strip().casefold()



def field_value(e: UIElement) -> str:
    """A text field's value: its text, or '' when what it shows is only its hint."""
    text = e.text or ""
    if e.hint and norm(text) == norm(e.hint):
        return ""
    return text

def rid_name(e: UIElement) -> str:
    return e.resource_id.rsplit("/", 1)[-1]


def _rid_ok(e: UIElement, rid: str) -> bool:
    if ":id/" in rid:
        return e.resource_id == rid
    return e.resource_id == rid or e.resource_id.endswith(":id/" + rid) or e.resource_id.endswith("/" + rid)


def inside(e: UIElement, box: UIElement) -> bool:
    """The element's centre lies in the box (and it is not the box itself)."""
    if e.index == box.index:
        return False
    cx, cy = e.bounds.center
    b = box.bounds
    return b.left <= cx <= b.right and b.top <= cy <= b.bottom


def encloses(box: UIElement, e: UIElement) -> bool:
    """The box wholly contains the element (a container and one of its parts)."""
    if e.index == box.index:
        return False
    b, o = box.bounds, e.bounds
    return b.left <= o.left and b.top <= o.top and o.right <= b.right and o.bottom <= b.bottom


class Matcher:
    """Role lookups over one screen for one family, memoised (roles refer to each other)."""

    def __init__(self, elements: Sequence[UIElement], family: FamilySpec, package: str | None = None) -> None:
        self.elements = list(elements)
        self.family = family
        self.package = package
        self._memo: dict[str, list[UIElement]] = {}
        self._busy: set[str] = set()

    def _sel_ok(self, e: UIElement, s: Sel) -> bool:
        if s.rid is not None and not _rid_ok(e, s.rid):
            return False
        if s.rid_re is not None and not re.search(s.rid_re, rid_name(e)):
            return False
        if s.text is not None and norm(e.text) != norm(s.text):
            return False
        if s.desc is not None and norm(e.content_desc) != norm(s.desc):
            return False
        if s.label is not None and norm(s.label) not in (norm(e.text), norm(e.content_desc)):
            return False
        if s.text_re is not None and not re.search(s.text_re, norm(e.text)):
            return False
        if s.desc_re is not None and not re.search(s.desc_re, norm(e.content_desc)):
            return False
        if s.label_re is not None and not (re.search(s.label_re, norm(e.text))
                                           or re.search(s.label_re, norm(e.content_desc))):
            return False
        if s.hint is not None:
            want = norm(s.hint)
            # Android 8+ reports a field's hint; older ones show it as the empty field's text
            if want not in (norm(e.hint), norm(e.text) if not e.hint else ""):
                return False
        if s.cls is not None and not (e.class_name == s.cls or e.class_name.endswith("." + s.cls)
                                      or e.class_name.rsplit(".", 1)[-1].endswith(s.cls)):
            return False
        for flag in ("clickable", "checkable", "checked", "editable", "scrollable", "selected"):
            want_flag = getattr(s, flag)
            if want_flag is not None and bool(getattr(e, flag)) != want_flag:
                return False
        if s.own_package is not None:
            own = bool(self.package) and e.package == self.package
            if own != s.own_package:
                return False
        if s.within is not None and not any(inside(e, box) for box in self.find(s.within)):
            return False
        if s.has is not None and not any(encloses(e, part) for part in self.find(s.has)):
            return False
        return True

    def _apply(self, s: Sel) -> list[UIElement]:
        hits = [e for e in self.elements if e.package not in SYSTEM_PACKAGES or s.own_package is False]
        hits = [e for e in hits if self._sel_ok(e, s)]
        if s.innermost:
            # of nested matches keep the smallest; between two with the same box (a layout wrapping
            # one child of its size) the deeper one, which comes later in document order
            def holds(e: UIElement, o: UIElement) -> bool:
                return o is not e and encloses(e, o) and (e.bounds != o.bounds or o.index > e.index)

            hits = [e for e in hits if not any(holds(e, o) for o in hits)]
        return hits

    def find(self, role: str) -> list[UIElement]:
        """Every element that plays ``role`` on this screen (the first selector that finds any wins)."""
        if role in self._memo:
            return self._memo[role]
        if role in self._busy:  # a role defined through itself finds nothing rather than recursing
            return []
        self._busy.add(role)
        try:
            out: list[UIElement] = []
            for s in self.family.roles.get(role, []):
                out = self._apply(s)
                if out:
                    break
        finally:
            self._busy.discard(role)
        self._memo[role] = out
        return out

    def first(self, role: str, within: UIElement | None = None) -> UIElement | None:
        hits = self.find(role)
        if within is not None:
            hits = [e for e in hits if inside(e, within)]
        return hits[0] if hits else None

    def all_in(self, role: str, box: UIElement) -> list[UIElement]:
        return [e for e in self.find(role) if inside(e, box)]

    def has(self, role: str) -> bool:
        return bool(self.find(role))

    def screen(self) -> str | None:
        """The first screen of the family's data whose signature roles are all on this screen."""
        for name, sig in self.family.screens.items():
            if all(self.has(r) for r in sig.all) and (not sig.any or any(self.has(r) for r in sig.any)) \
                    and not any(self.has(r) for r in sig.none):
                return name
        return None

    def text(self, key: str, default: str | None = None) -> str:
        v = self.family.texts.get(key, default)
        if v is None:
            raise KeyError(f"{self.family.name}: no text {key!r}")
        return v[0] if isinstance(v, list) else str(v)

    def texts(self, key: str) -> list[str]:
        v = self.family.texts.get(key)
        if v is None:
            return []
        return [str(x) for x in v] if isinstance(v, list) else [str(v)]
