"""The UI-tree model of a uiautomator dump and its XML writer.

Why: the uiautomator2 server answers selectors and prunes dumps on the tree of the phone's
``uiautomator`` XML, and SystemUI's windows (:mod:`.systemui`, :mod:`.keyguard`) add nodes to
it; all of them need one node model, one parser and one writer that produces exactly what
``AccessibilityNodeInfoDumper`` writes (attribute order kept, ``index`` renumbered).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from typing import Any, Iterable

__all__ = ["UiNode", "UiTree", "parse_tree", "write_tree", "NODE_DEFAULTS", "make_node", "adopt", "reindex"]

_BOUNDS_RE = re.compile(r"\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]")


@dataclass(eq=False)
class UiNode:
    """One ``<node>`` of a uiautomator dump, with its place in the tree."""

    attrs: dict[str, str]
    parent: "UiNode | None" = None
    children: list["UiNode"] = field(default_factory=list)
    depth: int = 0
    order: int = 0  # pre-order position (uiautomator's search order)

    def get(self, name: str) -> str:
        return self.attrs.get(name, "")

    def flag(self, name: str) -> bool:
        return self.attrs.get(name, "false").strip().lower() == "true"

    @property
    def bounds(self) -> tuple[int, int, int, int]:
        m = _BOUNDS_RE.search(self.attrs.get("bounds", ""))
        if not m:
            return 0, 0, 0, 0
        return int(m.group(1)), int(m.group(2)), int(m.group(3)), int(m.group(4))

    @property
    def center(self) -> tuple[float, float]:
        l, t, r, b = self.bounds
        return (l + r) / 2, (t + b) / 2

    @property
    def index(self) -> int:
        try:
            return int(self.attrs.get("index", "0"))
        except ValueError:
            return 0

    def descendants(self) -> Iterable["UiNode"]:
        for c in self.children:
            yield c
            yield from c.descendants()

    def obj_info(self, screen: tuple[int, int] | None = None) -> dict[str, Any]:
        """The real server's ``ObjInfo`` record (``UiObject.info`` in the client)."""
        l, t, r, b = self.bounds
        bounds = {"left": l, "top": t, "right": r, "bottom": b}
        if screen is not None:
            W, H = screen
            vis = {"left": min(max(l, 0), W), "top": min(max(t, 0), H),
                   "right": min(max(r, 0), W), "bottom": min(max(b, 0), H)}
        else:
            vis = dict(bounds)
        return {
            "bounds": bounds, "visibleBounds": vis, "childCount": len(self.children),
            "className": self.get("class"), "contentDescription": self.get("content-desc") or None,
            "packageName": self.get("package"), "resourceName": self.get("resource-id") or None,
            "text": self.get("text"), "checkable": self.flag("checkable"), "checked": self.flag("checked"),
            "clickable": self.flag("clickable"), "enabled": self.flag("enabled"),
            "focusable": self.flag("focusable"), "focused": self.flag("focused"),
            "longClickable": self.flag("long-clickable"), "scrollable": self.flag("scrollable"),
            "selected": self.flag("selected"),
        }


@dataclass
class UiTree:
    roots: list[UiNode]
    nodes: list[UiNode]  # pre-order
    rotation: int = 0


def parse_tree(xml: str) -> UiTree:
    """Parse a uiautomator dump into a tree (pre-order node list kept)."""
    text = xml[xml.find("<hierarchy"):] if "<hierarchy" in xml else xml
    text = text[: text.rfind("</hierarchy>") + len("</hierarchy>")] if "</hierarchy>" in text else text
    root = ET.fromstring(text)
    nodes: list[UiNode] = []

    def walk(el: ET.Element, parent: UiNode | None, depth: int) -> UiNode:
        node = UiNode(dict(el.attrib), parent, [], depth, len(nodes))
        nodes.append(node)
        node.children = [walk(c, node, depth + 1) for c in el if c.tag == "node"]
        return node

    roots = [walk(c, None, 0) for c in root if c.tag == "node"]
    try:
        rotation = int(root.attrib.get("rotation", "0"))
    except ValueError:
        rotation = 0
    return UiTree(roots, nodes, rotation)


# ---------------------------------------------------------------------------- XML writing
_XML_ESC = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;", "\n": "&#10;",
            "\r": "&#13;", "\t": "&#9;"}
_XML_NEEDS = re.compile("[&<>\"'\n\r\t\U00010000-\U0010FFFF]")


def _xml_attr(s: str) -> str:
    return _XML_NEEDS.sub(lambda m: _XML_ESC.get(m.group(0)) or f"&#{ord(m.group(0))};", s)


def _important(n: UiNode) -> bool:
    """What a compressed dump keeps (uiautomator drops views not important for accessibility)."""
    return bool(n.get("text") or n.get("content-desc") or n.get("resource-id")
                or any(n.flag(f) for f in ("clickable", "long-clickable", "checkable", "scrollable",
                                           "focusable", "focused", "selected")))


def write_tree(tree: UiTree, *, max_depth: int | None, compressed: bool) -> str:
    """Serialise (a pruned copy of) the tree as uiautomator writes it.

    ``max_depth``: nodes deeper than this are dropped (depth 0 = the window roots, as in
    ``AccessibilityNodeInfoDumper``). ``compressed``: unimportant containers are spliced out,
    their children taking their place (sibling ``index`` renumbered).
    """
    parts = ["<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>",
             f'<hierarchy rotation="{tree.rotation}">']

    def kept_children(n: UiNode) -> list[UiNode]:
        out: list[UiNode] = []
        for c in n.children:
            if compressed and not _important(c) and c.children:
                out.extend(kept_children(c))
            elif compressed and not _important(c):
                continue
            else:
                out.append(c)
        return out

    def emit(n: UiNode, index: int, depth: int) -> None:
        attrs = dict(n.attrs)
        attrs["index"] = str(index)
        head = "<node " + " ".join(f'{k}="{_xml_attr(v)}"' for k, v in attrs.items())
        kids = kept_children(n) if max_depth is None or depth < max_depth else []
        if not kids:
            parts.append(head + " />")
            return
        parts.append(head + ">")
        for i, c in enumerate(kids):
            emit(c, i, depth + 1)
        parts.append("</node>")

    roots: list[UiNode] = []
    for r in tree.roots:
        if compressed and not _important(r) and r.children and len(tree.roots) > 1:
            roots.extend(kept_children(r))
        else:
            roots.append(r)
    for i, r in enumerate(roots):
        emit(r, i, 0)
    parts.append("</hierarchy>")
    return "".join(parts)



# ---------------------------------------------------------------------------- building nodes
NODE_DEFAULTS: dict[str, str] = {
    "index": "0", "text": "", "resource-id": "", "class": "", "package": "", "content-desc": "",
    "checkable": "false", "checked": "false", "clickable": "false", "enabled": "true", "focusable": "false",
    "focused": "false", "scrollable": "false", "long-clickable": "false", "password": "false",
    "selected": "false", "visible-to-user": "true", "bounds": "[0,0][0,0]", "hint": "",
}


def make_node(template: dict[str, str] | None, box: tuple[int, int, int, int], **attrs: str) -> UiNode:
    """A ``<node>`` with the attribute set (and order) of the phone's own nodes."""
    keys = list(template) if template else list(NODE_DEFAULTS)
    values = {k: NODE_DEFAULTS.get(k, "") for k in keys}
    for k, v in attrs.items():
        values[k.replace("_", "-")] = v
    l, t, r, b = box
    values["bounds"] = f"[{l},{t}][{r},{b}]"
    return UiNode(values)


def adopt(parent: UiNode, children: list[UiNode]) -> UiNode:
    parent.children = children
    for c in children:
        c.parent = parent
    return parent


def reindex(tree: UiTree) -> UiTree:
    """Recompute depth and pre-order after the tree was rebuilt."""
    nodes: list[UiNode] = []

    def walk(n: UiNode, depth: int) -> None:
        n.depth, n.order = depth, len(nodes)
        nodes.append(n)
        for c in n.children:
            walk(c, depth + 1)
    for r in tree.roots:
        r.parent = None
        walk(r, 0)
    tree.nodes = nodes
    return tree

