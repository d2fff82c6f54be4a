"""The selector engine: uiautomator2's ``Selector`` (``UiSelector`` semantics) on a :class:`UiTree`.

Why its own module: the JSON-RPC methods that take a selector (``exist``, ``click``,
``childByText`` …) and the tests all resolve selectors the same way the real server does —
mask bits as the client sends them, ``instance``/``index``, ``child``/``sibling`` chains, Java
``Pattern.matches`` for the ``*Matches`` fields — in uiautomator's pre-order search order.
"""

from __future__ import annotations

import itertools
import re
from typing import Any, Iterable

from .u2_errors import RpcError, invalid, to_int
from .uitree import UiNode, UiTree

__all__ = ["SELECTOR_MASKS", "selector_matches", "select", "selector_str", "dedupe"]


#: uiautomator2's ``Selector`` mask bits (``uiautomator2/_selector.py``), field → bit.
SELECTOR_MASKS: dict[str, int] = {
    "text": 0x01, "textContains": 0x02, "textMatches": 0x04, "textStartsWith": 0x08,
    "className": 0x10, "classNameMatches": 0x20, "description": 0x40, "descriptionContains": 0x80,
    "descriptionMatches": 0x0100, "descriptionStartsWith": 0x0200, "checkable": 0x0400,
    "checked": 0x0800, "clickable": 0x1000, "longClickable": 0x2000, "scrollable": 0x4000,
    "enabled": 0x8000, "focusable": 0x010000, "focused": 0x020000, "selected": 0x040000,
    "packageName": 0x080000, "packageNameMatches": 0x100000, "resourceId": 0x200000,
    "resourceIdMatches": 0x400000, "index": 0x800000, "instance": 0x01000000,
}
_FLAG_ATTRS = {"checkable": "checkable", "checked": "checked", "clickable": "clickable",
               "longClickable": "long-clickable", "scrollable": "scrollable", "enabled": "enabled",
               "focusable": "focusable", "focused": "focused", "selected": "selected"}
_STR_ATTRS = {"text": "text", "description": "content-desc", "className": "class",
              "packageName": "package", "resourceId": "resource-id"}


def _active_fields(sel: dict[str, Any]) -> list[str]:
    """Fields the selector constrains: the mask bits when present (what the real server reads),
    else every known key present."""
    if isinstance(sel.get("mask"), int):
        mask = sel["mask"]
        return [k for k, bit in SELECTOR_MASKS.items() if mask & bit and k in sel]
    return [k for k in SELECTOR_MASKS if k in sel]


_regex_cache: dict[str, re.Pattern[str]] = {}


def _regex(pattern: Any) -> re.Pattern[str]:
    p = str(pattern)
    rx = _regex_cache.get(p)
    if rx is None:
        try:
            rx = re.compile(p)
        except re.error as e:
            raise RpcError(-32000, f"java.util.regex.PatternSyntaxException: {e} near index {e.pos}\n{p}") from e
        if len(_regex_cache) > 512:
            _regex_cache.clear()
        _regex_cache[p] = rx
    return rx


def selector_matches(node: UiNode, sel: dict[str, Any]) -> bool:
    """Whether ``node`` satisfies every constraint of ``sel`` except ``instance``."""
    for k in _active_fields(sel):
        v = sel[k]
        if k == "instance":
            continue
        if k in _STR_ATTRS:
            if node.get(_STR_ATTRS[k]) != str(v):
                return False
        elif k in _FLAG_ATTRS:
            if node.flag(_FLAG_ATTRS[k]) != bool(v):
                return False
        elif k == "textContains":
            if str(v) not in node.get("text"):
                return False
        elif k == "textStartsWith":
            if not node.get("text").startswith(str(v)):
                return False
        elif k == "descriptionContains":
            if str(v) not in node.get("content-desc"):
                return False
        elif k == "descriptionStartsWith":
            if not node.get("content-desc").startswith(str(v)):
                return False
        elif k.endswith("Matches"):  # Java Pattern.matches: the whole value must match
            attr = {"textMatches": "text", "classNameMatches": "class", "descriptionMatches": "content-desc",
                    "packageNameMatches": "package", "resourceIdMatches": "resource-id"}[k]
            if _regex(v).fullmatch(node.get(attr)) is None:
                return False
        elif k == "index":
            if node.index != to_int(v, "index"):
                return False
    return True


def _instance(sel: dict[str, Any]) -> int | None:
    if "instance" in _active_fields(sel):
        return to_int(sel["instance"], "instance")
    return None


def _pick(found: list[UiNode], sel: dict[str, Any]) -> list[UiNode]:
    inst = _instance(sel)
    if inst is None:
        return found
    return [found[inst]] if 0 <= inst < len(found) else []


def dedupe(nodes: Iterable[UiNode]) -> list[UiNode]:
    seen: set[int] = set()
    out = []
    for n in nodes:
        if id(n) not in seen:
            seen.add(id(n))
            out.append(n)
    return sorted(out, key=lambda n: n.order)


def select(tree: UiTree, sel: dict[str, Any]) -> list[UiNode]:
    """All nodes matching a uiautomator2 selector, in uiautomator's (pre-order) search order.

    ``instance`` picks the N-th match; each ``childOrSibling`` step searches the descendants of
    the current matches (``child``) or of their parents (``sibling``, UiSelector.fromParent),
    and that step's own ``instance`` picks among the combined matches.
    """
    if not isinstance(sel, dict):
        raise invalid("selector must be an object")
    found = _pick([n for n in tree.nodes if selector_matches(n, sel)], sel)
    kinds = sel.get("childOrSibling") or []
    subs = sel.get("childOrSiblingSelector") or []
    if len(kinds) != len(subs):
        raise invalid("childOrSibling and childOrSiblingSelector differ in length")
    for kind, sub in zip(kinds, subs):
        if not isinstance(sub, dict):
            raise invalid("childOrSiblingSelector entries must be objects")
        scope: list[UiNode] = []
        for n in found:
            if kind == "child":
                scope.extend(n.descendants())
            elif kind == "sibling":
                if n.parent is not None:
                    scope.extend(x for x in n.parent.descendants() if x is not n)
                else:
                    scope.extend(x for r in tree.roots for x in itertools.chain([r], r.descendants()) if x is not n)
            else:
                raise invalid(f"unknown childOrSibling {kind!r}")
        found = _pick([n for n in dedupe(scope) if selector_matches(n, sub)], sub)
    return found


def selector_str(sel: Any) -> str:
    if isinstance(sel, str):
        return f"UiObject[{sel}]"
    if not isinstance(sel, dict):
        return repr(sel)
    names = {"text": "TEXT", "textContains": "CONTAINS_TEXT", "textMatches": "MATCHES_TEXT",
             "textStartsWith": "START_TEXT", "className": "CLASS", "classNameMatches": "CLASS_REGEX",
             "description": "DESCRIPTION", "descriptionContains": "CONTAINS_DESCRIPTION",
             "descriptionMatches": "MATCHES_DESCRIPTION", "descriptionStartsWith": "START_DESCRIPTION",
             "packageName": "PACKAGE_NAME", "packageNameMatches": "PACKAGE_NAME_REGEX",
             "resourceId": "RESOURCE_ID", "resourceIdMatches": "RESOURCE_ID_REGEX", "index": "INDEX",
             "instance": "INSTANCE"}
    parts = [f"{names.get(k, k.upper())}={sel[k]}" for k in _active_fields(sel)]
    for kind, sub in zip(sel.get("childOrSibling") or [], sel.get("childOrSiblingSelector") or []):
        parts.append(f"{'CHILD' if kind == 'child' else 'PARENT'}={selector_str(sub)}")
    return "UiSelector[" + ", ".join(parts) + "]"

