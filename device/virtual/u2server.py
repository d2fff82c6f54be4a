"""uiautomator2's on-device server, answered by the virtual phone.

Why: ``uiautomator2`` (the Python client) does not drive a phone through ``input``/
``screencap`` shell commands; it starts ``com.wetest.uia2.Main`` from ``/data/local/tmp/u2.jar``
with ``app_process`` and then talks HTTP to it on device port 9008 — through adbutils'
``create_connection(Network.TCP, 9008)``, i.e. the adb ``tcp:9008`` service, a *new* stream
per request.  To drive :class:`~device.virtual.phone.VirtualPhone` with the unmodified client
(``u2.connect(serial)``), this module is that server: a small HTTP/1.1 server over an asyncio
``(reader, writer)`` pair plus the JSON-RPC 2.0 methods the client's public API calls.

Wiring (done by whoever builds the phone)::

    from device.virtual.u2server import install_u2server
    server = install_u2server(phone)            # phone.register_tcp(9008, server.handle, on_demand=True)

With ``on_demand=True`` port 9008 is open only while uiautomator2's
``CLASSPATH=/data/local/tmp/u2.jar app_process / com.wetest.uia2.Main -p 9008`` shell command
runs (the phone's shell, :mod:`device.virtual.android_am`, calls ``phone.process_started``),
exactly as on a real phone: ``u2.connect`` pushes the jar, launches the process, polls
``GET /ping`` until ``pong``.  Nothing is tied to a connection (uiautomator2 opens one per
request), so one object serves them all; what must outlive a request — a DOWN…UP gesture in
progress, the last toast, ``childByText`` object names — lives on the server object, as it lives
in the real server's process.

What it answers
---------------
HTTP: ``GET /ping`` → ``pong``; ``POST /jsonrpc/0`` → JSON-RPC 2.0 (single or batch); anything
else → 404/405.  Keep-alive (HTTP/1.1 default, ``Connection: close`` honoured), ``Content-Length``
and ``Transfer-Encoding: chunked`` request bodies; responses always carry ``Content-Length``.
A POST body that does not follow its headers at once gets an interim ``100 Continue`` first —
that removes a ~40 ms Nagle/delayed-ACK stall on every JSON-RPC call (see :func:`_read_body`).

JSON-RPC (params positional as the client sends them; ``{}`` means "no arguments"):

* device: ``deviceInfo``, ``wakeUp``, ``sleep``, ``isScreenOn``, ``freezeRotation``,
  ``setOrientation`` (``natural`` only — the sim renders portrait), ``getDisplayRotation``,
  ``openNotification``, ``openQuickSettings``, ``makeToast`` (drawn by the sim),
  ``getLastToast`` (toasts seen after this server's input calls)/``clearLastToast``,
  ``getLastTraversedText``/``clearLastTraversedText``;
* screen: ``takeScreenshot(scale, quality)`` → base64 JPEG, ``dumpWindowHierarchy(compressed,
  maxDepth[, rootInActive])`` → uiautomator XML (the phone's, unchanged unless pruned);
* touch: ``click(x, y[, ms])``, ``swipe(x0, y0, x1, y1, steps)``, ``swipePoints(points, steps)``,
  ``drag(x0, y0, x1, y1, steps)``, ``injectInputEvent(action, x, y, meta)`` (DOWN/MOVE/UP become a
  tap, long press or swipe at UP, with Android's touch slop and long-press timeout);
* keys/text: ``pressKey(name)``, ``pressKeyCode(code[, meta])``, ``setClipboard(label, text)``,
  ``getClipboard``, ``pasteClipboard`` (Ctrl+V key events: a focused field pastes the clip — the
  path ``Device.send_keys`` takes when uiautomator2's IME is not installed, as on a stock phone),
  ``clearInputText`` (Ctrl+A, DEL);
* selectors (``UiSelector`` semantics on the dumped tree, mask bits as the client sends them,
  ``instance``/``index``, ``child``/``sibling`` chains): ``exist``, ``waitForExists``,
  ``waitUntilGone``, ``objInfo``, ``objInfoOfAllInstances``, ``count``, ``getChildCount``,
  ``click``/``longClick`` on a selector, ``getText``, ``setText``, ``clearTextField``,
  ``dragTo``, ``swipe`` on a selector, ``scrollForward``/``Backward``/``ToBeginning``/``ToEnd``/
  ``scrollTo``, ``fling*``, ``childByText``/``childByDescription``/``childByInstance`` (return an
  object name usable as a selector afterwards, like the real server's UiObject registry).

What the screen shows besides the sim's views (:func:`screen_tree`, also used by the shell's
``uiautomator dump``, ``screencap`` and ``input tap``): every app window's decor chain
(``FrameLayout`` > ``LinearLayout`` > ``FrameLayout android:id/content``, status/navigation bar
backgrounds) and, on Android 13+, SystemUI's clipboard overlay after each ``setClipboard``
(:class:`ClipboardOverlay`: ``clipboard_preview``, ``dismiss_button``; 6 s or a tap on its
dismiss button). The server's ``app_process`` is a :class:`DeviceProcess` in
:func:`process_table` (``ps``, ``kill``; it holds UiAutomation, so ``uiautomator dump`` fails).

Errors look like the real server's so the client raises the same exceptions: an unknown method is
``-32601 "method not found"``; a selector that matches nothing where an object is required is
``-32002`` with ``androidx.test.uiautomator.UiObjectNotFoundException`` in the message (the client
turns that into ``UiObjectNotFoundError``); bad arguments are ``-32602``; what the simulator cannot
do (multi-touch ``gesture``/``pinchIn``/``pinchOut``, landscape) is ``-32000`` with an
``UnsupportedOperationException`` message — never a silent success, never a crash.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import inspect
import itertools
import json
import logging
import math
import re
import time
import uuid
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable, Iterable, Protocol

__all__ = [
    "U2Server",
    "install_u2server",
    "RpcError",
    "UiNode",
    "parse_tree",
    "select",
    "selector_matches",
    "SELECTOR_MASKS",
    "U2_PORT",
]

log = logging.getLogger(__name__)

#: The device port uiautomator2's server listens on (``uiautomator2.core.DEFAULT_SERVER_PORT``).
U2_PORT = 9008

# ============================================================================ phone protocol
class PhoneLike(Protocol):
    """The part of :class:`~device.virtual.phone.VirtualPhone` this server uses (all blocking)."""

    def screenshot_png(self) -> bytes: ...
    def hierarchy_xml(self, wait_idle: bool = False) -> str: ...
    def tap(self, x: float, y: float) -> None: ...
    def long_press(self, x: float, y: float, ms: int = 800) -> None: ...
    def swipe(self, x0: float, y0: float, x1: float, y1: float, ms: int = 300) -> None: ...
    def drag(self, x0: float, y0: float, x1: float, y1: float, ms: int = 1000) -> None: ...
    def key(self, key: str | int) -> bool: ...
    def input_text(self, text: str) -> bool: ...
    def clear_text(self) -> bool: ...
    def get_clipboard(self) -> str: ...
    def set_clipboard(self, text: str) -> None: ...
    def window_size(self) -> tuple[int, int]: ...
    def foreground(self) -> tuple[str, str]: ...
    def info(self) -> dict[str, Any]: ...


# ============================================================================ costs
def _knob(phone: Any, name: str) -> float:
    """A timing knob of the phone (0 for a phone without knobs: no added cost)."""
    return float(getattr(getattr(phone, "knobs", None), name, 0.0) or 0.0)


async def spend(ms: float, since: float | None = None) -> None:
    """Take ``ms`` of the phone's time, as the real capture or command would (the ``timing``
    knobs of :mod:`device.virtual.knobs`; 0 under ``timing="fast"``). Sleeps off the phone's
    lock, so concurrent requests overlap as they do on a phone.

    ``since`` (a ``time.perf_counter()`` taken when the work began): the figure is the phone's
    *whole* cost of that work — a published screencap time includes its encoding, a dump's
    includes the walk — so what the virtual phone itself already spent producing the answer
    (rendering the sim, encoding the frame) counts toward it, and only the rest is slept.
    Without it the cost is added whole (a runtime start that precedes the work)."""
    if since is not None:
        ms -= (time.perf_counter() - since) * 1e3
    if ms > 0:
        await asyncio.sleep(ms / 1000)


def dump_cost_ms(phone: Any, xml: str) -> float:
    """A hierarchy dump's cost: fixed part + per node (``AccessibilityNodeInfoDumper`` walks
    every node over binder)."""
    kn = getattr(phone, "knobs", None)
    return kn.dump_cost_ms(xml.count("<node ")) if kn is not None and hasattr(kn, "dump_cost_ms") else 0.0


# ============================================================================ errors
class RpcError(Exception):
    """A JSON-RPC error object: ``{"code", "message", "data"}``."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data

    def to_json(self) -> dict[str, Any]:
        err: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            err["data"] = self.data
        return err


def _not_found(selector: Any) -> RpcError:
    text = f"androidx.test.uiautomator.UiObjectNotFoundException: {_selector_str(selector)}"
    return RpcError(-32002, text, text)


def _unsupported(what: str) -> RpcError:
    msg = f"java.lang.UnsupportedOperationException: {what} (virtual phone)"
    return RpcError(-32000, msg, msg)


def _invalid(msg: str) -> RpcError:
    return RpcError(-32602, f"Invalid params: {msg}")


# ============================================================================ hierarchy tree
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


# ============================================================================ selectors
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
            if node.index != _to_int(v, "index"):
                return False
    return True


def _instance(sel: dict[str, Any]) -> int | None:
    if "instance" in _active_fields(sel):
        return _to_int(sel["instance"], "instance")
    return None


def _pick(found: list[UiNode], sel: dict[str, Any]) -> list[UiNode]:
    inst = _instance(sel)
    if inst is None:
        return found
    return [found[inst]] if 0 <= inst < len(found) else []


def _dedupe(nodes: Iterable[UiNode]) -> list[UiNode]:
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
        raise _invalid("selector must be an object")
    found = _pick([n for n in tree.nodes if selector_matches(n, sel)], sel)
    kinds = sel.get("childOrSibling") or []
    subs = sel.get("childOrSiblingSelector") or []
    if len(kinds) != len(subs):
        raise _invalid("childOrSibling and childOrSiblingSelector differ in length")
    for kind, sub in zip(kinds, subs):
        if not isinstance(sub, dict):
            raise _invalid("childOrSiblingSelector entries must be objects")
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
                raise _invalid(f"unknown childOrSibling {kind!r}")
        found = _pick([n for n in _dedupe(scope) if selector_matches(n, sub)], sub)
    return found


def _selector_str(sel: Any) -> str:
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
        parts.append(f"{'CHILD' if kind == 'child' else 'PARENT'}={_selector_str(sub)}")
    return "UiSelector[" + ", ".join(parts) + "]"


# ============================================================================ param coercion
def _to_int(v: Any, name: str) -> int:
    """Jackson's coercion into a Java int/long: numbers truncate, numeric strings parse."""
    if isinstance(v, bool):
        raise _invalid(f"{name} must be a number, got a boolean")
    if isinstance(v, int):
        return v
    if isinstance(v, float):
        if not math.isfinite(v):
            raise _invalid(f"{name} must be finite")
        return int(v)
    if isinstance(v, str):
        try:
            return int(float(v.strip()))
        except ValueError:
            pass
    raise _invalid(f"{name} must be a number, got {v!r}")


def _to_float(v: Any, name: str) -> float:
    if isinstance(v, bool):
        raise _invalid(f"{name} must be a number, got a boolean")
    if isinstance(v, (int, float)) and math.isfinite(v):
        return float(v)
    if isinstance(v, str):
        try:
            return float(v.strip())
        except ValueError:
            pass
    raise _invalid(f"{name} must be a number, got {v!r}")


def _to_bool(v: Any, name: str) -> bool:
    if isinstance(v, bool):
        return v
    if v is None:
        return False
    if isinstance(v, (int, float)):
        return bool(v)
    if isinstance(v, str) and v.lower() in ("true", "false"):
        return v.lower() == "true"
    raise _invalid(f"{name} must be a boolean, got {v!r}")


# ============================================================================ HTTP
class _HttpError(Exception):
    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


@dataclass
class HttpRequest:
    method: str
    path: str
    version: str
    headers: dict[str, str]
    body: bytes

    @property
    def keep_alive(self) -> bool:
        conn = self.headers.get("connection", "").lower()
        if self.version == "HTTP/1.0":
            return "keep-alive" in conn
        return "close" not in conn


_REASONS = {200: "OK", 400: "Bad Request", 404: "Not Found", 405: "Method Not Allowed",
            411: "Length Required", 413: "Payload Too Large", 431: "Request Header Fields Too Large",
            500: "Internal Server Error", 501: "Not Implemented", 505: "HTTP Version Not Supported"}
MAX_BODY = 16 * 1024 * 1024
MAX_HEAD = 64 * 1024


CONTINUE = b"HTTP/1.1 100 Continue\r\n\r\n"
#: How long to wait for a request body before sending an interim ``100 Continue`` (seconds).
BODY_PROBE_S = 0.002


async def _read_body(reader: asyncio.StreamReader, n: int, nudge: Callable[[], Awaitable[None]] | None) -> bytes:
    """Read ``n`` body bytes; if they are not there at once, ``nudge`` the client first.

    Why: Python's ``http.client`` (uiautomator2's transport) sends a POST's headers and body in
    two ``send()`` calls on a socket without ``TCP_NODELAY``. Nagle then holds the body until the
    headers are ACKed, and the adb server, which has nothing to send back yet, delays that ACK
    by ~40 ms — every JSON-RPC call paid it (measured 60 ms instead of 15 ms per call). An
    interim ``100 Continue`` (RFC 9110 §15.2: clients must accept unsolicited 1xx responses,
    and ``http.client``/urllib3 skip them) carries the ACK at once.
    """
    if nudge is None:
        return await reader.readexactly(n)
    try:
        # cancelling readexactly while it waits consumes nothing, so no byte can be lost
        return await asyncio.wait_for(reader.readexactly(n), BODY_PROBE_S)
    except asyncio.TimeoutError:
        await nudge()
        return await reader.readexactly(n)


async def read_request(reader: asyncio.StreamReader,
                       send_continue: Callable[[], Awaitable[None]] | None = None) -> HttpRequest | None:
    """Read one HTTP/1.x request; None at a clean end of stream (between requests).

    ``send_continue`` writes ``100 Continue``: called when the client asks for it
    (``Expect: 100-continue``) or its body does not follow the headers at once.
    """
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError as e:
        if not e.partial.strip():
            return None
        raise _HttpError(400, "incomplete request head") from e
    except asyncio.LimitOverrunError as e:
        raise _HttpError(431, "request head too large") from e
    if len(head) > MAX_HEAD:
        raise _HttpError(431, "request head too large")
    lines = head.decode("iso-8859-1").split("\r\n")
    while lines and not lines[0]:  # tolerate stray CRLF between requests (RFC 9112 §2.2)
        lines.pop(0)
    try:
        method, target, version = lines[0].split(" ")
    except (ValueError, IndexError) as e:
        raise _HttpError(400, "bad request line") from e
    if not version.startswith("HTTP/1."):
        raise _HttpError(505, "only HTTP/1.x")
    headers: dict[str, str] = {}
    for line in lines[1:]:
        if not line:
            continue
        name, sep, value = line.partition(":")
        if not sep:
            raise _HttpError(400, "bad header line")
        headers[name.strip().lower()] = value.strip()
    nudge = send_continue if version == "HTTP/1.1" else None
    if nudge is not None and headers.get("expect", "").lower() == "100-continue":
        await nudge()
        nudge = None
    body = b""
    if "chunked" in headers.get("transfer-encoding", "").lower():
        chunks = bytearray()
        while True:
            size_line = await reader.readuntil(b"\r\n")
            try:
                size = int(size_line.split(b";")[0].strip(), 16)
            except ValueError as e:
                raise _HttpError(400, "bad chunk size") from e
            if size == 0:
                while (await reader.readuntil(b"\r\n")) != b"\r\n":  # trailers
                    pass
                break
            if len(chunks) + size > MAX_BODY:
                raise _HttpError(413, "body too large")
            chunks += await _read_body(reader, size, nudge)
            nudge = None
            await reader.readexactly(2)
        body = bytes(chunks)
    elif "content-length" in headers:
        try:
            length = int(headers["content-length"])
        except ValueError as e:
            raise _HttpError(400, "bad Content-Length") from e
        if length < 0:
            raise _HttpError(400, "bad Content-Length")
        if length > MAX_BODY:
            raise _HttpError(413, "body too large")
        body = await _read_body(reader, length, nudge) if length else b""
    path = target.split("?", 1)[0]
    return HttpRequest(method.upper(), path, version, headers, body)


def render_response(status: int, body: bytes, content_type: str, keep_alive: bool) -> bytes:
    head = (f"HTTP/1.1 {status} {_REASONS.get(status, 'Unknown')}\r\n"
            f"Content-Type: {content_type}\r\n"
            f"Content-Length: {len(body)}\r\n"
            f"Connection: {'keep-alive' if keep_alive else 'close'}\r\n\r\n")
    return head.encode("ascii") + body


# ============================================================================ the server
@dataclass
class _Touch:
    x0: float
    y0: float
    t0: float
    x: float
    y: float
    moved: float = 0.0


#: A selector argument: the client's Selector dict, or the name of a stored UiObject.
SelectorArg = dict[str, Any] | str

_METHOD_NOT_FOUND = -32601

#: How long a long press is held when delivered to the sim: its widgets fire their long-press
#: timer at 500 ms, Android's at 400 ms; holding 650 ms makes both agree it was a long press.
SIM_LONG_PRESS_MS = 650

#: Methods that deliver input; after each, a toast on screen is remembered for ``getLastToast``.
_INPUT_METHODS = frozenset({
    "click", "longClick", "swipe", "swipePoints", "drag", "dragTo", "pressKey",
    "pressKeyCode", "setText", "clearTextField", "pasteClipboard", "clearInputText", "scrollForward",
    "scrollBackward", "scrollToBeginning", "scrollToEnd", "scrollTo", "flingForward", "flingBackward",
    "flingToBeginning", "flingToEnd",
})


class U2Server:
    """The HTTP + JSON-RPC server. ``handle`` is the ``tcp:9008`` connection handler.

    Args:
        phone: the virtual phone (anything with :class:`PhoneLike`'s methods).
        poll_interval: seconds between hierarchy checks in ``waitForExists``/``waitUntilGone``.
        long_press_ms: a DOWN…UP held this long without moving is a long press
            (``ViewConfiguration.DEFAULT_LONG_PRESS_TIMEOUT`` is 400 ms since Android 12).
    """

    def __init__(self, phone: PhoneLike, *, poll_interval: float = 0.2, long_press_ms: int = 400) -> None:
        self.phone = phone
        self.poll_interval = poll_interval
        self.long_press_ms = long_press_ms
        self._touch: _Touch | None = None
        self._named: dict[str, Callable[[UiTree], list[UiNode]]] = {}
        self._toast: str | None = None
        self._toast_on_screen: str | None = None
        self._jpeg_cache: tuple[bytes, tuple[float, int], str] | None = None
        self._rotation_frozen = False
        self.started_at = time.time()
        #: method name → (calls, total seconds) since start; for latency reporting
        self.stats: dict[str, list[float]] = {}
        self._methods: dict[str, Callable[..., Awaitable[Any]]] = {
            name[4:]: getattr(self, name) for name in dir(self) if name.startswith("rpc_")
        }

    # ------------------------------------------------------------------ plumbing
    async def _call(self, fn: Callable[..., Any], *args: Any) -> Any:
        """Run a blocking phone method off the event loop (the phone's own pool if it has one)."""
        acall = getattr(self.phone, "acall", None)
        if acall is not None:
            return await acall(fn, *args)
        return await asyncio.get_running_loop().run_in_executor(None, lambda: fn(*args))

    @property
    def methods(self) -> list[str]:
        """The JSON-RPC method names this server answers."""
        return sorted(self._methods)

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """One connection: serve requests until the client closes or asks to."""

        async def send_continue() -> None:
            writer.write(CONTINUE)
            await writer.drain()

        try:
            while True:
                try:
                    req = await read_request(reader, send_continue)
                except _HttpError as e:
                    writer.write(render_response(e.status, e.reason.encode(), "text/plain", False))
                    await writer.drain()
                    return
                if req is None:
                    return
                status, ctype, body = await self._route(req)
                keep = req.keep_alive
                resp = render_response(status, body, ctype, keep)
                if req.method == "HEAD":  # the GET's headers, no body
                    resp = resp[: len(resp) - len(body)]
                writer.write(resp)
                await writer.drain()
                if not keep:
                    return
        except (ConnectionError, asyncio.IncompleteReadError, BrokenPipeError):
            return
        finally:
            with contextlib.suppress(Exception):
                writer.close()

    async def _route(self, req: HttpRequest) -> tuple[int, str, bytes]:
        path = req.path.rstrip("/") or "/"
        if path == "/ping":
            if req.method not in ("GET", "HEAD", "POST"):
                return 405, "text/plain", b"Method Not Allowed"
            return 200, "text/plain", b"pong"
        if path == "/jsonrpc/0":
            if req.method != "POST":
                return 405, "text/plain", b"Method Not Allowed"
            out = await self.dispatch_body(req.body)
            return 200, "application/json; charset=utf-8", out
        return 404, "text/plain", b"Not Found"

    async def dispatch_body(self, body: bytes) -> bytes:
        """A JSON-RPC request body (single or batch) → the response body."""
        try:
            payload = json.loads(body.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            return _dumps({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": f"Parse error: {e}"}})
        if isinstance(payload, list):
            if not payload:
                return _dumps({"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "Invalid Request"}})
            return _dumps([await self.dispatch(p) for p in payload])
        return _dumps(await self.dispatch(payload))

    async def dispatch(self, req: Any) -> dict[str, Any]:
        """One JSON-RPC request object → its response object (errors never escape)."""
        rid = req.get("id") if isinstance(req, dict) else None
        if not isinstance(req, dict) or not isinstance(req.get("method"), str):
            return {"jsonrpc": "2.0", "id": rid, "error": {"code": -32600, "message": "Invalid Request"}}
        name = req["method"]
        params = req.get("params")
        fn = self._methods.get(name)
        t0 = time.perf_counter()
        await spend(_knob(self.phone, "u2_rpc_ms"))  # the HTTP round trip through the adb forward
        try:
            if fn is None:
                raise RpcError(_METHOD_NOT_FOUND, "method not found", f"no method {name!r} on the uiautomator2 server")
            if params is None:
                args: list[Any] = []
                kwargs: dict[str, Any] = {}
            elif isinstance(params, list):
                args, kwargs = params, {}
            elif isinstance(params, dict):
                args, kwargs = [], params
            else:
                raise _invalid("params must be an array or an object")
            try:
                inspect.signature(fn).bind(*args, **kwargs)
            except TypeError as e:
                raise RpcError(_METHOD_NOT_FOUND, "method not found",
                               f"{name} takes no such arguments ({len(args) + len(kwargs)} given): {e}") from e
            result = await fn(*args, **kwargs)
            if name in _INPUT_METHODS:
                await self._note_toast()
            return {"jsonrpc": "2.0", "id": rid, "result": result}
        except RpcError as e:
            return {"jsonrpc": "2.0", "id": rid, "error": e.to_json()}
        except Exception as e:  # a bug or a phone failure: report it like the server's catch-all
            log.exception("u2server: %s failed", name)
            return {"jsonrpc": "2.0", "id": rid,
                    "error": {"code": -32001, "message": f"java.lang.RuntimeException: {type(e).__name__}: {e}",
                              "data": f"{type(e).__name__}: {e}"}}
        finally:
            st = self.stats.setdefault(name, [0, 0.0])
            st[0] += 1
            st[1] += time.perf_counter() - t0

    # ------------------------------------------------------------------ tree helpers
    async def _tree(self, *, wait_idle: bool = True) -> UiTree:
        xml = await self._call(self.phone.hierarchy_xml, wait_idle)
        tree, _ = await self._call(screen_tree, self.phone, xml)
        return tree

    def _resolver(self, selector: SelectorArg) -> Callable[[UiTree], list[UiNode]]:
        if isinstance(selector, str):
            found = self._named.get(selector)
            if found is None:
                raise _not_found(selector)
            return found
        if isinstance(selector, dict):
            return lambda tree: select(tree, selector)
        raise _invalid(f"a selector must be an object or an object name, got {type(selector).__name__}")

    async def _find_all(self, selector: SelectorArg) -> list[UiNode]:
        resolve = self._resolver(selector)
        return resolve(await self._tree())

    async def _find(self, selector: SelectorArg) -> UiNode:
        found = await self._find_all(selector)
        if not found:
            raise _not_found(selector)
        return found[0]

    async def _screen(self) -> tuple[int, int]:
        w, h = self.phone.window_size()  # a field read on the phone: no need for the pool
        return int(w), int(h)

    def _density(self) -> int:
        return int(getattr(self.phone, "density", 0) or 160)

    # ================================================================== device
    async def rpc_deviceInfo(self) -> dict[str, Any]:
        info = await self._call(self.phone.info)
        disp = info.get("display") or {}
        W, H = int(disp.get("width") or 0), int(disp.get("height") or 0)
        if not W or not H:
            W, H = await self._screen()
        density = int(disp.get("density") or 160)
        fg = (info.get("foreground") or {}).get("package") or (await self._call(self.phone.foreground))[0]
        return {
            "currentPackageName": fg,
            "displayHeight": H,
            "displayWidth": W,
            "displayRotation": int(disp.get("rotation") or 0),
            "displaySizeDpX": round(W * 160 / density),
            "displaySizeDpY": round(H * 160 / density),
            "naturalOrientation": int(disp.get("rotation") or 0) in (0, 2),
            "productName": info.get("product") or "",
            "screenOn": bool(disp.get("screen_on", True)),
            "sdkInt": int(info.get("sdk") or 0),
        }

    async def rpc_wakeUp(self) -> None:
        await self._call(self.phone.key, "WAKEUP")

    async def rpc_sleep(self) -> None:
        await self._call(self.phone.key, "SLEEP")

    async def rpc_isScreenOn(self) -> bool:
        on = getattr(self.phone, "screen_on", None)
        if on is None:
            info = await self._call(self.phone.info)
            on = (info.get("display") or {}).get("screen_on", True)
        return bool(on)

    async def rpc_freezeRotation(self, freeze: Any = True) -> None:
        self._rotation_frozen = _to_bool(freeze, "freeze")

    async def rpc_setOrientation(self, orientation: Any) -> None:
        value = str(orientation).lower()
        if value in ("n", "natural", "0"):
            self._rotation_frozen = True
            return
        if value in ("l", "left", "r", "right", "u", "upsidedown", "1", "2", "3"):
            raise _unsupported(f"setOrientation({orientation!r}): the simulated display is portrait-only")
        raise _invalid(f"unknown orientation {orientation!r}")

    async def rpc_getDisplayRotation(self) -> int:
        return int(getattr(self.phone, "rotation", 0) or 0)

    async def _shade(self, which: str) -> bool:
        mutate = getattr(self.phone, "mutate", None)
        if mutate is None:  # no state access: pull the shade down with a swipe from the top edge
            W, H = await self._screen()
            await self._call(self.phone.swipe, W / 2, 2, W / 2, H * 0.6, 300)
            return True

        def open_shade(d: dict[str, Any]) -> None:
            d["ui"]["shade"] = which
        await self._call(mutate, open_shade)
        return True

    async def rpc_openNotification(self) -> bool:
        return await self._shade("notifications")

    async def rpc_openQuickSettings(self) -> bool:
        return await self._shade("quick")

    async def _note_toast(self) -> None:
        """Remember a toast that appeared on screen, as the real server's accessibility listener
        does: ``getLastToast`` answers until cleared, after the toast itself is gone, and a toast
        still showing after ``clearLastToast`` is not reported again."""
        state = getattr(self.phone, "state_data", None)
        if state is None:
            return
        try:
            toast = ((await self._call(state)).get("ui") or {}).get("toast")
        except Exception:  # noqa: BLE001 - toasts are best effort; never fail the action
            return
        text = str(toast["text"]) if isinstance(toast, dict) and toast.get("text") else None
        if text is not None and text != self._toast_on_screen:
            self._toast = text
        self._toast_on_screen = text

    async def rpc_makeToast(self, text: Any, duration: Any = 1000) -> bool:
        """Show a toast on the phone's screen (the sim draws ``ui.toast``)."""
        msg = str(text)
        mutate = getattr(self.phone, "mutate", None)
        if mutate is not None:
            def show(d: dict[str, Any]) -> None:
                d.setdefault("ui", {})["toast"] = {"text": msg, "ttl": 2}
            await self._call(mutate, show)
        self._toast = msg
        self._toast_on_screen = msg if mutate is not None else None
        return True

    async def rpc_getLastToast(self) -> str | None:
        await self._note_toast()
        return self._toast

    async def rpc_clearLastToast(self) -> None:
        self._toast = None

    async def rpc_getLastTraversedText(self) -> str | None:
        return None

    async def rpc_clearLastTraversedText(self) -> None:
        return None

    # ================================================================== screen
    async def rpc_takeScreenshot(self, scale: Any = 1.0, quality: Any = 80) -> str:
        """The whole frame as a base64 JPEG at ``quality``. ``scale`` is accepted and *ignored*, as
        uiautomator2's server does (android-uiautomator-server ``AutomatorServiceImpl
        .takeScreenshot(float scale, int quality)``: ``uiAutomation.takeScreenshot()`` compressed
        whole, the scale never applied), so a "small" frame costs and weighs a full one."""
        _to_float(scale, "scale")
        q = _to_int(quality, "quality")
        s = 1.0
        q = min(max(q, 1), 100)
        t0 = time.perf_counter()
        png = await self._call(self.phone.screenshot_png)  # the capture instant: the frame is this one
        kn = getattr(self.phone, "knobs", None)
        out = await self._jpeg_b64(png, s, q)
        # the published figure is capture *and* encode: this phone's own encoding counts toward it
        await spend(kn.jpeg_ms(s) if kn is not None and hasattr(kn, "jpeg_ms") else 0.0, since=t0)
        return out

    async def _jpeg_b64(self, png: bytes, s: float, q: int) -> str:
        overlay = clipboard_overlay(self.phone)
        if overlay.visible:  # SystemUI draws its clipboard overlay over the app
            png = await self._call(overlay.draw, png)
        cached = self._jpeg_cache
        if cached is not None and cached[0] is png and cached[1] == (s, q):
            return cached[2]  # the phone handed back the very same frame object: same answer
        jpg = await asyncio.get_running_loop().run_in_executor(None, _png_to_jpeg, png, s, q)
        out = base64.b64encode(jpg).decode("ascii")
        self._jpeg_cache = (png, (s, q), out)
        return out

    async def rpc_dumpWindowHierarchy(self, compressed: Any = False, maxDepth: Any = 50,
                                      rootInActive: Any = None) -> str:
        comp = _to_bool(compressed, "compressed")
        depth = None if maxDepth is None else _to_int(maxDepth, "maxDepth")
        t0 = time.perf_counter()
        xml = await self._call(self.phone.hierarchy_xml, False)
        xml = await self._call(screen_xml, self.phone, xml)  # decor chain, SystemUI's overlay
        await spend(dump_cost_ms(self.phone, xml), since=t0)  # the walk's cost covers our own rendering
        if not comp and depth is None:
            return xml
        tree = parse_tree(xml)
        deepest = max((n.depth for n in tree.nodes), default=0)
        if not comp and depth is not None and deepest <= depth:
            return xml  # nothing to prune: the phone's dump, byte for byte
        return write_tree(tree, max_depth=depth, compressed=comp)

    # ================================================================== touch
    async def _in_screen(self, x: float, y: float) -> bool:
        W, H = await self._screen()
        return 0 <= x < W and 0 <= y < H

    async def _click_xy(self, x: Any, y: Any, ms: Any = None) -> bool:
        fx, fy = _to_float(x, "x"), _to_float(y, "y")
        if not await self._in_screen(fx, fy):
            return False  # UiDevice.click: false for points outside the display
        if ms is None:
            await self._tap(fx, fy)
        else:  # touchDown, hold ms, touchUp: Android decides tap vs long press
            await self._press(fx, fy, max(1, _to_int(ms, "milliseconds")))
        return True

    async def _press(self, x: float, y: float, held_ms: int) -> None:
        """A touch held ``held_ms`` without moving, judged as Android judges it: at least the
        long-press timeout → a long press (delivered at least :data:`SIM_LONG_PRESS_MS`, so the
        sim's own 500 ms timer agrees), else a tap."""
        if held_ms >= self.long_press_ms:
            await self._call(self.phone.long_press, x, y, max(held_ms, SIM_LONG_PRESS_MS))
        else:
            await self._tap(x, y)

    async def _tap(self, x: float, y: float) -> None:
        """One tap; SystemUI's clipboard overlay (a window above the app) takes it first."""
        if not overlay_tap(self.phone, x, y):
            await self._call(self.phone.tap, x, y)

    async def rpc_click(self, *args: Any) -> bool:
        """``click(x, y)``, ``click(x, y, ms)`` (long click), ``click(selector[, corner])``."""
        if args and isinstance(args[0], (dict, str)) and not _numeric(args[0]):
            if len(args) > 2:
                raise _invalid("click(selector[, corner])")
            node = await self._find(args[0])
            x, y = _corner(node, args[1] if len(args) > 1 else None)
            await self._tap(x, y)
            return True
        if len(args) == 2:
            return await self._click_xy(args[0], args[1])
        if len(args) == 3:
            return await self._click_xy(args[0], args[1], args[2])
        raise _invalid("click(x, y[, ms]) or click(selector[, corner])")

    async def rpc_longClick(self, selector: SelectorArg, corner: Any = None) -> bool:
        node = await self._find(selector)
        x, y = _corner(node, corner)
        await self._call(self.phone.long_press, x, y, 800)  # UiObject.longClick: timeout + margin
        return True

    async def rpc_swipe(self, *args: Any) -> bool:
        """``swipe(x0, y0, x1, y1, steps)``; ``swipe(selector, dir, steps)`` / ``(selector, dir, percent, steps)``."""
        if args and isinstance(args[0], (dict, str)) and not _numeric(args[0]):
            return await self._swipe_object(*args)
        if len(args) != 5:
            raise _invalid("swipe(x0, y0, x1, y1, steps)")
        x0, y0, x1, y1 = (_to_float(a, n) for a, n in zip(args[:4], ("x0", "y0", "x1", "y1")))
        steps = max(1, _to_int(args[4], "steps"))
        W, H = await self._screen()
        if not all(0 <= v < lim for v, lim in ((x0, W), (x1, W), (y0, H), (y1, H))):
            return False  # UiDevice.swipe: false when a point is off the display
        await self._call(self.phone.swipe, x0, y0, x1, y1, steps * 5)  # uiautomator: 5 ms per step
        return True

    async def _swipe_object(self, selector: SelectorArg, direction: Any, *rest: Any) -> bool:
        if len(rest) == 1:
            percent, steps = 1.0, _to_int(rest[0], "steps")
        elif len(rest) == 2:
            percent, steps = _to_float(rest[0], "percent"), _to_int(rest[1], "steps")
        else:
            raise _invalid("swipe(selector, direction[, percent], steps)")
        node = await self._find(selector)
        l, t, r, b = node.bounds
        cx, cy = (l + r) / 2, (t + b) / 2
        hw, hh = (r - l) * percent / 2 * 0.9, (b - t) * percent / 2 * 0.9
        d = str(direction).lower()
        vec = {"up": (cx, cy + hh, cx, cy - hh), "down": (cx, cy - hh, cx, cy + hh),
               "left": (cx + hw, cy, cx - hw, cy), "right": (cx - hw, cy, cx + hw, cy)}.get(d)
        if vec is None:
            raise _invalid(f"direction must be up/down/left/right, got {direction!r}")
        await self._call(self.phone.swipe, *vec, max(1, steps) * 5)
        return True

    async def rpc_swipePoints(self, points: Any, steps: Any) -> bool:
        """A polyline gesture. The sim takes straight swipes only, so the finger goes from the
        first point to the last one in ``steps × 5 ms`` per segment (documented approximation)."""
        if not isinstance(points, list) or len(points) < 4 or len(points) % 2:
            raise _invalid("points must be [x0, y0, x1, y1, ...] with at least two points")
        xs = [_to_float(v, "point") for v in points]
        segs = len(xs) // 2 - 1
        n = max(1, _to_int(steps, "steps"))
        await self._call(self.phone.swipe, xs[0], xs[1], xs[-2], xs[-1], n * 5 * segs)
        return True

    async def rpc_drag(self, x0: Any, y0: Any, x1: Any, y1: Any, steps: Any) -> bool:
        a, b, c, d = (_to_float(v, n) for v, n in ((x0, "x0"), (y0, "y0"), (x1, "x1"), (y1, "y1")))
        W, H = await self._screen()
        if not all(0 <= v < lim for v, lim in ((a, W), (c, W), (b, H), (d, H))):
            return False
        await self._call(self.phone.drag, a, b, c, d, max(1, _to_int(steps, "steps")) * 5)
        return True

    async def rpc_dragTo(self, selector: SelectorArg, *args: Any) -> bool:
        """``dragTo(selector, x, y, steps)`` or ``dragTo(selector, destSelector, steps)``."""
        node = await self._find(selector)
        x0, y0 = node.center
        if len(args) == 3:
            x1, y1, steps = _to_float(args[0], "x"), _to_float(args[1], "y"), _to_int(args[2], "steps")
        elif len(args) == 2 and isinstance(args[0], (dict, str)):
            dest = await self._find(args[0])
            (x1, y1), steps = dest.center, _to_int(args[1], "steps")
        else:
            raise _invalid("dragTo(selector, x, y, steps) or dragTo(selector, destSelector, steps)")
        await self._call(self.phone.drag, x0, y0, x1, y1, max(1, steps) * 5)
        return True

    async def rpc_injectInputEvent(self, action: Any, x: Any, y: Any, metaState: Any = 0) -> bool:
        """MotionEvent DOWN(0)/UP(1)/MOVE(2)/CANCEL(3): the gesture is delivered at UP.

        Android decides at UP too: moved beyond the touch slop (8 dp) → a swipe along the
        DOWN→UP line over the held time; held ≥ the long-press timeout → long press; else a tap.
        """
        act = _to_int(action, "action")
        fx, fy = _to_float(x, "x"), _to_float(y, "y")
        now = time.monotonic()
        if act == 0:
            self._touch = _Touch(fx, fy, now, fx, fy)
            return True
        t = self._touch
        if t is None:
            return act in (2, 3)  # a stray MOVE/CANCEL is harmless; a stray UP did nothing
        if act == 2:
            t.x, t.y = fx, fy
            t.moved = max(t.moved, math.hypot(fx - t.x0, fy - t.y0))
            return True
        if act == 3:
            self._touch = None
            return True
        if act != 1:
            raise _invalid(f"unsupported MotionEvent action {act}")
        self._touch = None
        t.moved = max(t.moved, math.hypot(fx - t.x0, fy - t.y0))
        held_ms = int((now - t.t0) * 1000)
        slop = 8 * self._density() / 160
        if t.moved > slop:
            await self._call(self.phone.swipe, t.x0, t.y0, fx, fy, max(held_ms, 10))
        else:
            await self._press(t.x0, t.y0, held_ms)
        await self._note_toast()  # only at UP: DOWN/MOVE must stay cheap, they time the gesture
        return True

    async def rpc_gesture(self, *args: Any) -> bool:
        raise _unsupported("two-finger gesture")

    async def rpc_pinchIn(self, *args: Any) -> bool:
        raise _unsupported("pinchIn (two fingers)")

    async def rpc_pinchOut(self, *args: Any) -> bool:
        raise _unsupported("pinchOut (two fingers)")

    # ================================================================== keys / text
    async def rpc_pressKey(self, key: Any) -> bool:
        name = str(key).strip()
        if not name:
            return False
        return bool(await self._call(self.phone.key, name))

    async def rpc_pressKeyCode(self, keyCode: Any, metaState: Any = 0) -> bool:
        return bool(await self._call(self.phone.key, _to_int(keyCode, "keyCode")))

    async def rpc_setClipboard(self, label: Any, text: Any = None) -> None:
        """``ClipboardManager.setPrimaryClip``; on Android 13+ SystemUI then shows its overlay."""
        value = "" if text is None else str(text)
        await self._call(self.phone.set_clipboard, value)
        clipboard_overlay(self.phone).clip_changed(value)

    async def rpc_getClipboard(self) -> str | None:
        text = await self._call(self.phone.get_clipboard)
        return text if text else None

    async def rpc_pasteClipboard(self) -> bool:
        """Ctrl+V injected as key events (uiautomator2's server: ``UiDevice.pressKeyCode(
        KEYCODE_V, META_CTRL_ON)``). A focused editable field handles the shortcut with
        ``TextView.onTextContextMenuItem(android.R.id.paste)`` (frameworks/base core/java/android/
        widget/TextView.java ``onKeyShortcut``) and inserts the primary clip literally; with no
        focused field the keys reach nobody. Injection itself succeeds, so the answer is true.
        """
        text = await self._call(self.phone.get_clipboard)
        if text and not await self._edit_focused(lambda cur: cur + text):
            await self._call(self.phone.input_text, text)  # a phone without state access: type it
        return True

    async def _edit_focused(self, change: Callable[[str], str]) -> bool:
        """Replace the focused field's text with ``change(text)``, literally (no IME, no key map:
        what ``TextView.paste``/``setText`` do to an ``Editable``). False if no field has focus
        or the phone has no state access."""
        mutate = getattr(self.phone, "mutate", None)
        if mutate is None:
            return False
        showing = getattr(self.phone, "keyguard_showing", None)
        if showing is not None and await self._call(showing):  # the app's fields are behind the keyguard
            return False

        def edit(d: dict[str, Any]) -> bool:
            ui = d.get("ui") or {}
            focus = ui.get("focus")
            if not focus:
                return False
            fields = ui.setdefault("fields", {})
            fields[focus] = change(str(fields.get(focus) or ""))
            return True
        return bool(await self._call(mutate, edit))

    async def rpc_clearInputText(self) -> bool:
        """Ctrl+A then DEL, injected as key events: TextView selects all (``onKeyShortcut``
        ``KEYCODE_A`` → ``selectAllText``) and DEL deletes the selection. True once injected."""
        await self._call(self.phone.clear_text)
        return True

    async def _focus(self, node: UiNode) -> bool:
        """Give ``node`` (a text field) input focus by touching it, as ACTION_FOCUS would."""
        if node.flag("focused"):
            return True
        x, y = node.center
        await self._call(self.phone.tap, x, y)
        has = getattr(self.phone, "has_focused_field", None)
        return bool(await self._call(has)) if has is not None else True

    async def rpc_setText(self, selector: SelectorArg, text: Any) -> bool:
        """UiObject.setText: focus the field, then ``ACTION_SET_TEXT`` replaces its text with the
        argument literally — any Unicode, newlines included (frameworks/base core/java/android/
        widget/TextView.java ``performAccessibilityActionInternal``). False for a view that is
        not a text field."""
        from device.parsers.hierarchy import is_editable_class

        node = await self._find(selector)
        if not is_editable_class(node.get("class")):
            return False
        if not await self._focus(node):
            return False
        value = "" if text is None else str(text)
        if await self._edit_focused(lambda _cur: value):  # ACTION_SET_TEXT: the text, literally
            return True
        await self._call(self.phone.clear_text)
        if value:
            return bool(await self._call(self.phone.input_text, value))
        return True

    async def rpc_clearTextField(self, selector: SelectorArg) -> bool:
        return await self.rpc_setText(selector, "")

    async def rpc_getText(self, selector: SelectorArg) -> str:
        return (await self._find(selector)).get("text")

    # ================================================================== selectors
    async def rpc_exist(self, selector: SelectorArg) -> bool:
        try:
            return bool(await self._find_all(selector))
        except RpcError as e:
            if e.code == -32002:
                return False
            raise

    async def _wait(self, selector: SelectorArg, timeout_ms: Any, want: bool) -> bool:
        timeout = max(0, _to_int(timeout_ms, "timeout")) / 1000
        deadline = time.monotonic() + timeout
        while True:
            if await self.rpc_exist(selector) == want:
                return True
            if time.monotonic() >= deadline:
                return False
            await asyncio.sleep(min(self.poll_interval, max(0.0, deadline - time.monotonic())))

    async def rpc_waitForExists(self, selector: SelectorArg, timeout: Any = 0) -> bool:
        return await self._wait(selector, timeout, True)

    async def rpc_waitUntilGone(self, selector: SelectorArg, timeout: Any = 0) -> bool:
        return await self._wait(selector, timeout, False)

    async def rpc_objInfo(self, selector: SelectorArg) -> dict[str, Any]:
        node = await self._find(selector)
        return node.obj_info(await self._screen())

    async def rpc_objInfoOfAllInstances(self, selector: SelectorArg) -> list[dict[str, Any]]:
        screen = await self._screen()
        return [n.obj_info(screen) for n in await self._find_all(selector)]

    async def rpc_count(self, selector: SelectorArg) -> int:
        return len(await self._find_all(selector))

    async def rpc_getChildCount(self, selector: SelectorArg) -> int:
        return len((await self._find(selector)).children)

    def _store(self, resolve: Callable[[UiTree], list[UiNode]]) -> str:
        name = str(uuid.uuid4())
        if len(self._named) > 4096:  # the real server keeps them until restart; bound ours
            self._named.pop(next(iter(self._named)))
        self._named[name] = resolve
        return name

    async def _child_by(self, collection: SelectorArg, child: SelectorArg, pick: Callable[[list[UiNode]], list[UiNode]]) -> str:
        outer = self._resolver(collection)
        if not isinstance(child, dict):
            raise _invalid("the child pattern must be a selector object")

        def resolve(tree: UiTree) -> list[UiNode]:
            scope = _dedupe(d for c in outer(tree) for d in c.descendants())
            return pick([n for n in scope if selector_matches(n, child)])

        tree = await self._tree()
        if not resolve(tree):
            raise _not_found(child)
        return self._store(resolve)

    async def rpc_childByText(self, collection: SelectorArg, child: SelectorArg, text: Any,
                              allowScrollSearch: Any = False) -> str:
        want = str(text)

        def pick(cands: list[UiNode]) -> list[UiNode]:
            return [c for c in cands if c.get("text") == want or any(d.get("text") == want for d in c.descendants())][:1]
        return await self._child_by(collection, child, pick)

    async def rpc_childByDescription(self, collection: SelectorArg, child: SelectorArg, text: Any,
                                     allowScrollSearch: Any = False) -> str:
        want = str(text)

        def pick(cands: list[UiNode]) -> list[UiNode]:
            return [c for c in cands if c.get("content-desc") == want
                    or any(d.get("content-desc") == want for d in c.descendants())][:1]
        return await self._child_by(collection, child, pick)

    async def rpc_childByInstance(self, collection: SelectorArg, child: SelectorArg, instance: Any) -> str:
        i = _to_int(instance, "instance")
        return await self._child_by(collection, child, lambda c: [c[i]] if 0 <= i < len(c) else [])

    # ------------------------------------------------------------------ scrolling
    @staticmethod
    def _signature(tree: UiTree, resolve: Callable[[UiTree], list[UiNode]]) -> tuple[Any, ...]:
        """What the scrollable view shows (its subtree; the whole screen if it is gone), so a
        status-bar clock ticking over does not count as "the list scrolled"."""
        found = resolve(tree)
        nodes = list(found[0].descendants()) if found else tree.nodes
        return tuple((n.get("text"), n.get("content-desc"), n.bounds) for n in nodes)

    async def _scroll_once(self, selector: SelectorArg, vertical: bool, forward: bool, ms: int) -> bool:
        """One swipe inside the scrollable view; True if the screen content changed."""
        before = await self._tree()
        found = self._resolver(selector)(before)
        if not found:
            raise _not_found(selector)
        l, t, r, b = found[0].bounds
        cx, cy = (l + r) / 2, (t + b) / 2
        if vertical:
            y_hi, y_lo = t + (b - t) * 0.2, t + (b - t) * 0.8
            a, c = (y_lo, y_hi) if forward else (y_hi, y_lo)
            await self._call(self.phone.swipe, cx, a, cx, c, ms)
        else:
            x_lo, x_hi = l + (r - l) * 0.2, l + (r - l) * 0.8
            a, c = (x_hi, x_lo) if forward else (x_lo, x_hi)
            await self._call(self.phone.swipe, a, cy, c, cy, ms)
        after = await self._tree()
        resolve = self._resolver(selector)
        return self._signature(before, resolve) != self._signature(after, resolve)

    async def rpc_scrollForward(self, selector: SelectorArg, vertical: Any = True, steps: Any = 55) -> bool:
        return await self._scroll_once(selector, _to_bool(vertical, "vertical"), True,
                                       max(1, _to_int(steps, "steps")) * 5)

    async def rpc_scrollBackward(self, selector: SelectorArg, vertical: Any = True, steps: Any = 55) -> bool:
        return await self._scroll_once(selector, _to_bool(vertical, "vertical"), False,
                                       max(1, _to_int(steps, "steps")) * 5)

    async def _scroll_to_edge(self, selector: SelectorArg, vertical: Any, max_swipes: Any, steps: Any,
                              forward: bool, ms: int | None = None) -> bool:
        n = max(1, _to_int(max_swipes, "maxSwipes"))
        dur = ms if ms is not None else max(1, _to_int(steps, "steps")) * 5
        for _ in range(n):
            if not await self._scroll_once(selector, _to_bool(vertical, "vertical"), forward, dur):
                break
        return True

    async def rpc_scrollToBeginning(self, selector: SelectorArg, vertical: Any = True, maxSwipes: Any = 500,
                                    steps: Any = 55) -> bool:
        return await self._scroll_to_edge(selector, vertical, maxSwipes, steps, False)

    async def rpc_scrollToEnd(self, selector: SelectorArg, vertical: Any = True, maxSwipes: Any = 500,
                              steps: Any = 55) -> bool:
        return await self._scroll_to_edge(selector, vertical, maxSwipes, steps, True)

    async def rpc_scrollTo(self, selector: SelectorArg, target: SelectorArg, vertical: Any = True) -> bool:
        """Scroll forward until ``target`` exists (at most 30 swipes, UiScrollable's default)."""
        for _ in range(30):
            if await self.rpc_exist(target):
                return True
            if not await self._scroll_once(selector, _to_bool(vertical, "vertical"), True, 275):
                break
        return await self.rpc_exist(target)

    async def rpc_flingForward(self, selector: SelectorArg, vertical: Any = True) -> bool:
        return await self._scroll_once(selector, _to_bool(vertical, "vertical"), True, 100)

    async def rpc_flingBackward(self, selector: SelectorArg, vertical: Any = True) -> bool:
        return await self._scroll_once(selector, _to_bool(vertical, "vertical"), False, 100)

    async def rpc_flingToBeginning(self, selector: SelectorArg, vertical: Any = True, maxSwipes: Any = 500) -> bool:
        return await self._scroll_to_edge(selector, vertical, maxSwipes, 20, False, ms=100)

    async def rpc_flingToEnd(self, selector: SelectorArg, vertical: Any = True, maxSwipes: Any = 500) -> bool:
        return await self._scroll_to_edge(selector, vertical, maxSwipes, 20, True, ms=100)


# ============================================================================ helpers
def _dumps(obj: Any) -> bytes:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _numeric(v: Any) -> bool:
    if isinstance(v, str):
        try:
            float(v)
            return True
        except ValueError:
            return False
    return False


def _corner(node: UiNode, corner: Any) -> tuple[float, float]:
    """The point to touch: the centre, or ``"topleft"``/``"bottomright"`` like UiObject.click(corner)."""
    l, t, r, b = node.bounds
    c = (str(corner).lower() if corner is not None else "center")
    if c in ("tl", "topleft"):
        return l + 5, t + 5
    if c in ("br", "bottomright"):
        return r - 5, b - 5
    return (l + r) / 2, (t + b) / 2


def _png_to_jpeg(png: bytes, scale: float, quality: int) -> bytes:
    import cv2
    import numpy as np

    img = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR)
    if img is None:
        raise RuntimeError("the phone returned an undecodable screenshot")
    if scale != 1.0:
        h, w = img.shape[:2]
        img = cv2.resize(img, (max(1, round(w * scale)), max(1, round(h * scale))), interpolation=cv2.INTER_AREA)
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    return buf.tobytes()


# ============================================================================ system windows
#: ``ClipboardOverlayController.CLIPBOARD_DEFAULT_TIMEOUT_MILLIS`` (frameworks/base
#: packages/SystemUI/src/com/android/systemui/clipboardoverlay/ClipboardOverlayController.java).
CLIPBOARD_OVERLAY_TIMEOUT_S = 6.0
SYSTEMUI = "com.android.systemui"
_NODE_DEFAULTS: dict[str, str] = {
    "index": "0", "text": "", "resource-id": "", "class": "", "package": "", "content-desc": "",
    "checkable": "false", "checked": "false", "clickable": "false", "enabled": "true", "focusable": "false",
    "focused": "false", "scrollable": "false", "long-clickable": "false", "password": "false",
    "selected": "false", "visible-to-user": "true", "bounds": "[0,0][0,0]", "hint": "",
}


def _node(template: dict[str, str] | None, box: tuple[int, int, int, int], **attrs: str) -> UiNode:
    """A ``<node>`` with the attribute set (and order) of the phone's own nodes."""
    keys = list(template) if template else list(_NODE_DEFAULTS)
    values = {k: _NODE_DEFAULTS.get(k, "") for k in keys}
    for k, v in attrs.items():
        values[k.replace("_", "-")] = v
    l, t, r, b = box
    values["bounds"] = f"[{l},{t}][{r},{b}]"
    return UiNode(values)


def _adopt(parent: UiNode, children: list[UiNode]) -> UiNode:
    parent.children = children
    for c in children:
        c.parent = parent
    return parent


def _reindex(tree: UiTree) -> UiTree:
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


class ClipboardOverlay:
    """SystemUI's clipboard overlay (Android 13+), as the phone's screen shows it.

    ``ClipboardListener.onPrimaryClipChanged`` (frameworks/base packages/SystemUI/src/com/
    android/systemui/clipboardoverlay/ClipboardListener.java) shows the overlay for every clip
    change; ``shouldSuppressOverlay`` hides it only for clips from ``com.android.shell`` that
    carry the ``SUPPRESS_CLIPBOARD_OVERLAY`` extra, which uiautomator2's ``setClipboard``
    (a plain ``ClipData.newPlainText``) never sets. The window (layout ``clipboard_overlay.xml``:
    ``clipboard_ui`` > ``clipboard_preview`` > ``text_preview``, ``dismiss_button`` >
    ``dismiss_image``, ``actions_container`` > ``actions`` > ``share_chip``) sits over the lower
    left of the screen until ``CLIPBOARD_DEFAULT_TIMEOUT_MILLIS`` (6 s) pass or its dismiss button
    is tapped. Android 11 has no overlay; a permissive (emulator-like) phone keeps the old
    behaviour of showing none.
    """

    def __init__(self, phone: Any) -> None:
        self.phone = phone
        self.shown_at: float | None = None
        self.text = ""

    @property
    def supported(self) -> bool:
        knobs = getattr(self.phone, "knobs", None)
        if knobs is None:
            return False
        return int(getattr(knobs, "sdk", 0)) >= 33 and not bool(getattr(knobs, "permissive", False))

    def clip_changed(self, text: str) -> None:
        """The primary clip changed: (re)show the overlay and restart its timeout."""
        if self.supported:
            self.text, self.shown_at = text, time.monotonic()

    @property
    def visible(self) -> bool:
        return self.shown_at is not None and time.monotonic() - self.shown_at < CLIPBOARD_OVERLAY_TIMEOUT_S

    def dismiss(self) -> None:
        self.shown_at = None

    def _dp(self, v: float) -> int:
        return round(v * int(getattr(self.phone, "density", 160) or 160) / 160)

    def boxes(self) -> dict[str, tuple[int, int, int, int]]:
        """Screen rectangles of the overlay's views (dimens of SystemUI's ``overlay_*``)."""
        W, H = (int(v) for v in self.phone.window_size())
        bottom = H - self._dp(48) - self._dp(12)  # above the navigation bar, 12 dp margin
        size, border = self._dp(128), self._dp(4)
        l0 = self._dp(16)
        pl, pb = l0 + border, bottom - border
        preview = (pl, pb - size, pl + size, pb)
        half = self._dp(24)
        dismiss = (preview[2] - half, preview[1] - half, preview[2] + half, preview[1] + half)
        al = preview[2] + border + self._dp(8)
        actions = (al, pb - self._dp(56), min(W, al + self._dp(104)), pb)
        chip = (actions[0] + self._dp(4), actions[1] + self._dp(8), actions[2] - self._dp(4), actions[3] - self._dp(8))
        return {"window": (0, 0, W, H), "preview": preview, "dismiss": dismiss, "actions": actions, "chip": chip}

    def hit(self, x: float, y: float) -> str | None:
        """Which overlay view a touch at (x, y) lands on (None: it passes to the app)."""
        if not self.visible:
            return None
        for name in ("dismiss", "preview", "actions"):
            l, t, r, b = self.boxes()[name]
            if l <= x < r and t <= y < b:
                return name
        return None

    def window(self, template: dict[str, str] | None) -> UiNode:
        """The overlay window's node tree (the ids of ``clipboard_overlay.xml``)."""
        bx = self.boxes()
        ui = lambda box, **a: _node(template, box, package=SYSTEMUI, **a)  # noqa: E731
        preview = _adopt(ui(bx["preview"], resource_id=f"{SYSTEMUI}:id/clipboard_preview",
                            **{"class": "android.widget.FrameLayout"}),
                         [ui(bx["preview"], resource_id=f"{SYSTEMUI}:id/text_preview", text=self.text,
                             **{"class": "android.widget.TextView"})])
        dismiss = _adopt(ui(bx["dismiss"], resource_id=f"{SYSTEMUI}:id/dismiss_button",
                            content_desc="Dismiss copied text", clickable="true", focusable="true",
                            **{"class": "android.widget.FrameLayout"}),
                         [ui(bx["dismiss"], resource_id=f"{SYSTEMUI}:id/dismiss_image",
                             **{"class": "android.widget.ImageView"})])
        chip = ui(bx["chip"], resource_id=f"{SYSTEMUI}:id/share_chip", content_desc="Share", clickable="true",
                  focusable="true", **{"class": "android.widget.LinearLayout"})
        actions = _adopt(ui(bx["actions"], resource_id=f"{SYSTEMUI}:id/actions_container",
                            **{"class": "android.widget.HorizontalScrollView"}),
                         [_adopt(ui(bx["actions"], resource_id=f"{SYSTEMUI}:id/actions",
                                    **{"class": "android.widget.LinearLayout"}), [chip])])
        root = _adopt(ui(bx["window"], resource_id=f"{SYSTEMUI}:id/clipboard_ui",
                         **{"class": "android.view.ViewGroup"}), [actions, preview, dismiss])
        return _adopt(ui(bx["window"], **{"class": "android.widget.FrameLayout"}), [root])

    def draw(self, png: bytes) -> bytes:
        """The screenshot with the overlay drawn over its lower-left corner."""
        if not self.visible:
            return png
        import cv2
        import numpy as np

        img = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR)
        if img is None:
            return png
        h, w = img.shape[:2]
        W, H = (int(v) for v in self.phone.window_size())
        sx, sy = w / max(1, W), h / max(1, H)
        bx = self.boxes()

        def rect(box: tuple[int, int, int, int], color: tuple[int, int, int], border: int = 0) -> None:
            l, t, r, b = box
            p0, p1 = (round(l * sx), round(t * sy)), (round(r * sx), round(b * sy))
            cv2.rectangle(img, p0, p1, color, -1)
            if border:
                cv2.rectangle(img, p0, p1, (48, 48, 48), border)
        rect(bx["actions"], (240, 228, 222), 2)
        rect(bx["preview"], (253, 227, 211), max(2, round(11 * sx)))  # colorAccentSecondary, overlay border
        l, t, r, b = bx["preview"]
        text = "".join(c if 32 <= ord(c) < 127 else "?" for c in self.text)[:14]
        cv2.putText(img, text, (round((l + 12) * sx), round((t + (b - t) / 2) * sy)), cv2.FONT_HERSHEY_SIMPLEX,
                    max(0.4, 1.2 * sx), (40, 40, 40), max(1, round(2 * sx)), cv2.LINE_AA)
        dl, dt, dr, db = bx["dismiss"]
        c = (round((dl + dr) / 2 * sx), round((dt + db) / 2 * sy))
        cv2.circle(img, c, max(4, round((dr - dl) / 3 * sx)), (80, 80, 80), -1)
        ok, buf = cv2.imencode(".png", img, [cv2.IMWRITE_PNG_COMPRESSION, 1])
        return buf.tobytes() if ok else png


def clipboard_overlay(phone: Any) -> ClipboardOverlay:
    """The phone's clipboard overlay (one per phone, created on first use)."""
    ov = getattr(phone, "_s2r_clipboard_overlay", None)
    if ov is None:
        ov = ClipboardOverlay(phone)
        setattr(phone, "_s2r_clipboard_overlay", ov)
    return ov


def _bottom_of(tree: UiTree, rid: str, default: int, top: bool = False) -> int:
    for r in tree.roots:
        if r.get("resource-id") == rid:
            return r.bounds[1] if top else r.bounds[3]
    return default


def add_decor(tree: UiTree, screen: tuple[int, int], density: int) -> UiTree:
    """Put the app's views under the decor chain every app window has.

    A real dump of an app window (see real dumps: Settings, Thunderbird) starts with the
    window's ``DecorView`` — ``FrameLayout`` (full screen) > ``LinearLayout`` (down to the
    navigation bar) > ``FrameLayout`` ``android:id/content`` (below the status bar) — with the
    ``statusBarBackground`` and ``navigationBarBackground`` views as the decor's last children
    (frameworks/base core/java/com/android/internal/policy/DecorView.java and
    ``R.layout.screen_simple``). The sim renders only the app's own views; this adds the rest,
    once (a tree that already has ``android:id/content`` is left alone).
    """
    if any(n.get("resource-id") == "android:id/content" for n in tree.nodes):
        return tree
    app = [r for r in tree.roots if r.get("package") and r.get("package") != SYSTEMUI]
    if not app:
        return tree
    pkg = app[0].get("package")
    mine = [r for r in app if r.get("package") == pkg]
    W, H = screen
    status = _bottom_of(tree, f"{SYSTEMUI}:id/status_bar", round(24 * density / 160))
    nav = _bottom_of(tree, f"{SYSTEMUI}:id/navigation_bar_frame", H, top=True)
    tpl = dict(mine[0].attrs)
    base = {k: v for k, v in _NODE_DEFAULTS.items() if k in tpl}

    def decor(box: tuple[int, int, int, int], cls: str, rid: str = "") -> UiNode:
        node = _node(tpl, box, package=pkg, resource_id=rid, **{"class": cls})
        node.attrs.update({k: v for k, v in base.items() if k not in ("bounds", "package", "class", "resource-id")})
        return node
    content = _adopt(decor((0, status, W, nav), "android.widget.FrameLayout", "android:id/content"), mine)
    linear = _adopt(decor((0, 0, W, nav), "android.widget.LinearLayout"), [content])
    root = _adopt(decor((0, 0, W, H), "android.widget.FrameLayout"), [
        linear, decor((0, 0, W, status), "android.view.View", "android:id/statusBarBackground"),
        decor((0, nav, W, H), "android.view.View", "android:id/navigationBarBackground")])
    at = tree.roots.index(mine[0])
    roots = [r for r in tree.roots if r not in mine]
    roots.insert(at, root)
    tree.roots = roots
    return _reindex(tree)


def screen_tree(phone: Any, xml: str, *, overlay: bool = True) -> tuple[UiTree, bool]:
    """The phone's dump as windows show it: the app under its decor chain, plus SystemUI's
    clipboard overlay window while it is up. Returns (tree, whether anything was added)."""
    tree = parse_tree(xml)
    try:
        screen = tuple(int(v) for v in phone.window_size())
    except Exception:  # noqa: BLE001 - a phone without a display: nothing to add
        return tree, False
    density = int(getattr(phone, "density", 160) or 160)
    before = len(tree.nodes)
    tree = add_decor(tree, screen, density)  # type: ignore[arg-type]
    ov = clipboard_overlay(phone) if overlay else None
    if ov is not None and ov.visible:
        tree.roots.append(ov.window(dict(tree.nodes[0].attrs) if tree.nodes else None))
        tree = _reindex(tree)
    return tree, len(tree.nodes) != before


def screen_xml(phone: Any, xml: str, *, overlay: bool = True) -> str:
    """:func:`screen_tree` as dump text (the phone's own bytes when nothing was added)."""
    tree, added = screen_tree(phone, xml, overlay=overlay)
    return write_tree(tree, max_depth=None, compressed=False) if added else xml


def overlay_tap(phone: Any, x: float, y: float) -> bool:
    """A touch that lands on the clipboard overlay: its dismiss button closes it; the rest of
    the overlay's views take the touch (True: the app below never sees it)."""
    ov = getattr(phone, "_s2r_clipboard_overlay", None)
    if ov is None:
        return False
    where = ov.hit(x, y)
    if where == "dismiss":
        ov.dismiss()
    return where is not None


# ============================================================================ keyguard window
#: ``R.string.keyguard_unlock`` (frameworks/base packages/SystemUI/res-keyguard/values/strings.xml).
KEYGUARD_UNLOCK_HINT = "Swipe up to open"
#: ``R.string.keyguard_enter_your_pin`` / ``kg_wrong_pin`` (the bouncer's message area).
KEYGUARD_ENTER_PIN = "Enter your PIN"
KEYGUARD_WRONG_PIN = "Wrong PIN"
_PIN_KEYS = ("key1", "key2", "key3", "key4", "key5", "key6", "key7", "key8", "key9", "delete_button", "key0",
             "key_enter")


class KeyguardWindow:
    """SystemUI's keyguard as the screen shows it: the lock screen and the PIN bouncer.

    The state (showing, bouncer, PIN typed so far) belongs to the phone
    (:meth:`device.virtual.phone.VirtualPhone.keyguard_state`); this draws it, dumps it and says
    which view a touch lands on. The view ids are SystemUI's:

    * Android 14–15: the notification shade window ``legacy_window_root``
      (packages/SystemUI/res/layout/super_notification_shade.xml) with ``scrim_behind``,
      ``notification_panel`` (status_bar_expanded.xml), ``keyguard_root_view`` (KeyguardRootView:
      the clock, ``date_smartspace_view`` > ``date``, ``device_entry_icon_view``,
      ``keyguard_indication_area`` > ``keyguard_indication_text_bottom``), ``shared_notification_container``
      and ``keyguard_message_area_container`` — the tree of a real Pixel lock screen dump
      (tests/fixtures/real-device/hierarchy/lockscreen_systemui_keyguard_pixel_960x2142.xml).
    * Android 11–13: ``notification_panel`` (NotificationPanelView) holds the keyguard:
      ``keyguard_status_view`` > ``keyguard_clock_container``, ``lock_icon_view`` > ``lock_icon``
      (``lock_icon`` alone on 11), ``keyguard_bottom_area`` > ``keyguard_indication_area`` >
      ``keyguard_indication_text``, ``keyguard_status_bar``.
    * The bouncer (all releases): ``keyguard_bouncer_container`` > ``keyguard_host_view`` >
      ``keyguard_security_container`` > ``keyguard_pin_view`` with ``keyguard_message_area``,
      ``pinEntry`` (a password field, PIN area) and the number pad ``key0``…``key9``,
      ``delete_button``, ``key_enter`` (packages/SystemUI/res-keyguard/layout/keyguard_pin_view.xml).
    """

    def __init__(self, phone: Any) -> None:
        self.phone = phone

    def _dp(self, v: float) -> int:
        return round(v * int(getattr(self.phone, "density", 160) or 160) / 160)

    def _android(self) -> int:
        return int(getattr(getattr(self.phone, "knobs", None), "android", 14) or 14)

    def boxes(self) -> dict[str, tuple[int, int, int, int]]:
        """Screen rectangles of the keyguard's views (effective pixels)."""
        W, H = (int(v) for v in self.phone.window_size())
        dp = self._dp
        status = dp(28)
        out: dict[str, tuple[int, int, int, int]] = {"window": (0, 0, W, H), "status": (0, 0, W, status)}
        out["clock"] = (dp(24), status + dp(16), min(W, dp(24) + dp(190)), status + dp(112))
        out["date"] = (min(W - dp(8), out["clock"][2] + dp(12)), status + dp(44), W - dp(16), status + dp(76))
        icon = dp(64)
        cy = round(H * 0.72)
        out["lock"] = (W // 2 - icon // 2, cy - icon // 2, W // 2 + icon // 2, cy + icon // 2)
        out["indication"] = (0, H - dp(48) - dp(56), W, H - dp(48))
        out["indication_text"] = (dp(32), out["indication"][1] + dp(16), W - dp(32), out["indication"][3] - dp(16))
        # the bouncer: message, PIN field, a 3 x 4 number pad in the lower half
        out["message"] = (dp(32), status + dp(96), W - dp(32), status + dp(128))
        key_w, key_h, gap = dp(88), dp(72), dp(12)
        pad_w = 3 * key_w + 2 * gap
        left = (W - pad_w) // 2
        bottom = H - dp(48) - dp(40)
        top = bottom - (4 * key_h + 3 * gap)
        out["pin"] = (left, top - dp(24) - dp(56), left + pad_w, top - dp(24))
        for i, name in enumerate(_PIN_KEYS):
            r, c = divmod(i, 3)
            x0, y0 = left + c * (key_w + gap), top + r * (key_h + gap)
            out[name] = (x0, y0, x0 + key_w, y0 + key_h)
        out["pad"] = (left, top, left + pad_w, bottom)
        return out

    def hit(self, x: float, y: float, *, bouncer: bool) -> str | None:
        """The bouncer key a touch at (x, y) lands on (None: none, or no bouncer)."""
        if not bouncer:
            return None
        bx = self.boxes()
        for name in _PIN_KEYS:
            l, t, r, b = bx[name]
            if l <= x < r and t <= y < b:
                return name
        return None

    @staticmethod
    def clock_text(now: Any, h24: bool = True) -> str:
        return now.strftime("%H:%M") if h24 else now.strftime("%I:%M").lstrip("0")

    @staticmethod
    def date_text(now: Any) -> str:
        """The smartspace date, en-US (``EEE, MMM d``): "Fri, Mar 20"."""
        return f"{now.strftime('%a')}, {now.strftime('%b')} {now.day}"

    def tree(self, state: dict[str, Any], now: Any, h24: bool = True) -> UiTree:
        """The keyguard window's nodes (one window: the notification shade, which hosts the keyguard)."""
        bx = self.boxes()
        full = bx["window"]
        ui = lambda box, **a: _node(None, box, package=SYSTEMUI, **a)  # noqa: E731
        rid = lambda name: f"{SYSTEMUI}:id/{name}"  # noqa: E731
        frame, group, view = "android.widget.FrameLayout", "android.view.ViewGroup", "android.view.View"
        text_cls, image = "android.widget.TextView", "android.widget.ImageView"
        clock_t, date_t = self.clock_text(now, h24), self.date_text(now)
        bouncer = bool(state.get("bouncer"))
        hint = "" if bouncer else KEYGUARD_UNLOCK_HINT
        android = self._android()
        clock = ui(bx["clock"], text=clock_t, content_desc=clock_t, **{"class": text_cls})
        date = ui(bx["date"], resource_id=rid("date"), text=date_t, content_desc=date_t, focusable="true",
                  **{"class": text_cls})
        indication = _adopt(ui(bx["indication"], resource_id=rid("keyguard_indication_area"),
                               **{"class": "android.widget.LinearLayout"}),
                            [ui(bx["indication_text"], text=hint,
                                resource_id=rid("keyguard_indication_text_bottom" if android >= 14
                                                else "keyguard_indication_text"), **{"class": text_cls})])
        if android >= 14:
            icon = _adopt(ui(bx["lock"], resource_id=rid("device_entry_icon_view"), clickable="true",
                             focusable="true", content_desc="Unlock", **{"class": frame}),
                          [ui(bx["lock"], resource_id=rid("device_entry_icon_bg"), **{"class": image}),
                           ui(bx["lock"], resource_id=rid("device_entry_icon_fg"), **{"class": image})])
            keyguard = _adopt(ui(full, resource_id=rid("keyguard_root_view"), **{"class": group}), [
                ui((0, bx["status"][3], full[2], full[3]), resource_id=rid("accessibility_actions_view"),
                   content_desc="Lock screen", **{"class": view}),
                clock,
                _adopt(ui(bx["date"], resource_id=rid("date_smartspace_view"), clickable="true", focusable="true",
                          **{"class": "android.widget.LinearLayout"}), [date]),
                icon, indication])
            panel = _adopt(ui(full, resource_id=rid("notification_panel"), **{"class": frame}), [
                ui(full, resource_id=rid("keyguard_long_press"), content_desc="Lock screen", **{"class": view})])
            children = [ui(full, resource_id=rid("scrim_behind"), clickable="true", **{"class": view}), panel,
                        keyguard, ui(full, resource_id=rid("shared_notification_container"), **{"class": group})]
            root = ui(full, resource_id=rid("legacy_window_root"), **{"class": frame})
        else:
            lock = ([ui(bx["lock"], resource_id=rid("lock_icon"), content_desc="Unlock", **{"class": image})]
                    if android < 12 else
                    [_adopt(ui(bx["lock"], resource_id=rid("lock_icon_view"), content_desc="Unlock",
                               **{"class": frame}),
                            [ui(bx["lock"], resource_id=rid("lock_icon"), **{"class": image})])])
            status_view = _adopt(ui((0, bx["status"][3], full[2], bx["date"][3]), resource_id=rid("keyguard_status_view"),
                                    **{"class": "android.widget.GridLayout"}), [
                _adopt(ui(bx["clock"], resource_id=rid("keyguard_clock_container"), **{"class": frame}), [clock]),
                date])
            bottom = _adopt(ui(bx["indication"], resource_id=rid("keyguard_bottom_area"), **{"class": frame}),
                            [indication])
            panel = _adopt(ui(full, resource_id=rid("notification_panel"), **{"class": frame}),
                           [*lock, status_view, bottom,
                            ui(bx["status"], resource_id=rid("keyguard_status_bar"), **{"class": "android.widget.RelativeLayout"})])
            children = [ui(full, resource_id=rid("scrim_behind"), clickable="true", **{"class": view}), panel]
            root = ui(full, **{"class": frame})
        if bouncer:
            children.append(self._bouncer(state))
        _adopt(root, children)
        return _reindex(UiTree([root], []))

    def _bouncer(self, state: dict[str, Any]) -> UiNode:
        bx = self.boxes()
        full = bx["window"]
        ui = lambda box, **a: _node(None, box, package=SYSTEMUI, **a)  # noqa: E731
        rid = lambda name: f"{SYSTEMUI}:id/{name}"  # noqa: E731
        keys = []
        for name in _PIN_KEYS:
            desc = {"delete_button": "Delete", "key_enter": "Enter"}.get(name, name[3:])
            keys.append(ui(bx[name], resource_id=rid(name), content_desc=desc, clickable="true", focusable="true",
                           **{"class": "android.view.ViewGroup" if name.startswith("key") and name != "key_enter"
                              else "android.widget.ImageButton"}))
        pin = ui(bx["pin"], resource_id=rid("pinEntry"), content_desc="PIN area", password="true", focusable="true",
                 focused="true", **{"class": "android.widget.EditText"})
        container = _adopt(ui(bx["pad"], resource_id=rid("pin_container"),
                              **{"class": "androidx.constraintlayout.widget.ConstraintLayout"}),
                           [_adopt(ui(bx["pin"], resource_id=rid("row0"), **{"class": "android.widget.RelativeLayout"}),
                                   [pin]), *keys])
        message = ui(bx["message"], resource_id=rid("keyguard_message_area"),
                     text=str(state.get("message") or KEYGUARD_ENTER_PIN), **{"class": "android.widget.TextView"})
        pin_view = _adopt(ui((0, bx["message"][1], full[2], full[3]), resource_id=rid("keyguard_pin_view"),
                             **{"class": "android.widget.LinearLayout"}), [message, container])
        security = _adopt(ui(full, resource_id=rid("keyguard_security_container"), **{"class": "android.widget.FrameLayout"}),
                          [pin_view])
        host = _adopt(ui(full, resource_id=rid("keyguard_host_view"), **{"class": "android.widget.FrameLayout"}),
                      [security])
        return _adopt(ui(full, resource_id=rid("keyguard_bouncer_container"), **{"class": "android.widget.FrameLayout"}),
                      [host])

    def xml(self, state: dict[str, Any], now: Any, h24: bool = True) -> str:
        """What ``uiautomator dump`` writes while the keyguard shows."""
        return write_tree(self.tree(state, now, h24), max_depth=None, compressed=False)

    def draw(self, state: dict[str, Any], now: Any, h24: bool = True) -> bytes:
        """A frame of the lock screen (or the bouncer) at the effective screen size, as PNG."""
        import cv2
        import numpy as np

        W, H = (int(v) for v in self.phone.window_size())
        bx = self.boxes()
        top = np.array([58, 44, 34], np.float32)  # BGR: a dark wallpaper under the keyguard scrim
        bot = np.array([24, 18, 14], np.float32)
        ramp = np.linspace(0.0, 1.0, H, dtype=np.float32)[:, None]
        img = np.repeat((top * (1 - ramp) + bot * ramp)[:, None, :], W, axis=1).astype(np.uint8)
        scale = max(0.3, W / 1080)
        white = (245, 245, 245)

        def text(t: str, box: tuple[int, int, int, int], size: float, thick: int = 2, center: bool = False) -> None:
            l, t0, r, b = box
            (tw, th), _ = cv2.getTextSize(t, cv2.FONT_HERSHEY_SIMPLEX, size * scale, max(1, round(thick * scale)))
            x = l + ((r - l) - tw) // 2 if center else l
            cv2.putText(img, t, (int(x), int((t0 + b + th) // 2)), cv2.FONT_HERSHEY_SIMPLEX, size * scale, white,
                        max(1, round(thick * scale)), cv2.LINE_AA)

        text(self.clock_text(now, h24), bx["clock"], 3.2, 6)
        text(self.date_text(now), bx["date"], 1.0, 2)
        if state.get("bouncer"):
            overlay = img.copy()
            cv2.rectangle(overlay, (0, 0), (W, H), (20, 16, 12), -1)
            img = cv2.addWeighted(overlay, 0.75, img, 0.25, 0)
            text(str(state.get("message") or KEYGUARD_ENTER_PIN), bx["message"], 1.1, 2, center=True)
            l, t0, r, b = bx["pin"]
            n = int(state.get("pin_len") or 0)
            cy, rad = (t0 + b) // 2, max(4, self._dp(6))
            for i in range(n):
                cx = (l + r) // 2 + (i - (n - 1) / 2) * rad * 3.2
                cv2.circle(img, (int(cx), cy), rad, white, -1, cv2.LINE_AA)
            cv2.line(img, (l, b), (r, b), (170, 170, 170), max(1, round(2 * scale)))
            for name in _PIN_KEYS:
                kl, kt, kr, kb = bx[name]
                c = ((kl + kr) // 2, (kt + kb) // 2)
                cv2.circle(img, c, min(kr - kl, kb - kt) // 2 - 2, (70, 60, 52), -1, cv2.LINE_AA)
                label = {"delete_button": "<x", "key_enter": "OK"}.get(name, name[3:])
                text(label, bx[name], 1.3, 3, center=True)
        else:
            l, t0, r, b = bx["lock"]  # a padlock
            cx, w = (l + r) // 2, (r - l)
            cv2.rectangle(img, (cx - w // 4, t0 + w // 2 - w // 12), (cx + w // 4, b - w // 8), white, -1)
            cv2.ellipse(img, (cx, t0 + w // 2 - w // 12), (w // 6, w // 5), 0, 180, 360, white,
                        max(2, w // 14), cv2.LINE_AA)
            text(KEYGUARD_UNLOCK_HINT, bx["indication_text"], 1.0, 2, center=True)
        ok, buf = cv2.imencode(".png", img, [cv2.IMWRITE_PNG_COMPRESSION, 1])
        return buf.tobytes()


def keyguard_window(phone: Any) -> KeyguardWindow:
    """The phone's keyguard window (one per phone, created on first use)."""
    kw = getattr(phone, "_s2r_keyguard_window", None)
    if kw is None:
        kw = KeyguardWindow(phone)
        setattr(phone, "_s2r_keyguard_window", kw)
    return kw


# ============================================================================ shell processes
@dataclass
class DeviceProcess:
    """A long-running process a shell command started (uiautomator2's ``app_process``).

    ``stop`` ends it as a signal would; ``holds_uiautomation`` marks a process connected to
    ``UiAutomation`` (only one may be: UiAutomationManager.registerUiTestAutomationServiceLocked).
    """

    pid: int
    ppid: int
    name: str
    user: str = "shell"
    holds_uiautomation: bool = False
    stop: asyncio.Event = field(default_factory=asyncio.Event)
    loop: asyncio.AbstractEventLoop | None = None
    signal: int = 0
    args: str = ""

    def kill(self, signum: int = 15) -> None:
        self.signal = signum
        if self.loop is not None and self.loop.is_running():
            self.loop.call_soon_threadsafe(self.stop.set)
        else:
            self.stop.set()


def process_table(phone: Any) -> dict[int, DeviceProcess]:
    """The phone's shell-started processes by pid (shared by ``ps``, ``kill``, ``uiautomator``)."""
    table = getattr(phone, "_s2r_processes", None)
    if table is None:
        table = {}
        setattr(phone, "_s2r_processes", table)
    return table


def uiautomation_holder(phone: Any) -> DeviceProcess | None:
    """The process holding UiAutomation now, if any."""
    return next((p for p in process_table(phone).values() if p.holds_uiautomation), None)


def install_u2server(phone: Any, *, port: int = U2_PORT, on_demand: bool = True) -> U2Server:
    """Create the server and register it on the phone's device port ``port``.

    ``on_demand=True`` (default): the port opens only while uiautomator2's ``app_process``
    command runs, as on a real phone (needs ``VirtualPhone.register_tcp(..., on_demand=)``; a
    plain adbd backend without that keyword gets an always-open port).
    """
    server = U2Server(phone)
    register = phone.register_tcp
    try:
        params = inspect.signature(register).parameters
    except (TypeError, ValueError):
        params = {}  # type: ignore[assignment]
    if "on_demand" in params:
        register(port, server.handle, on_demand=on_demand)
    else:
        register(port, server.handle)
    return server
