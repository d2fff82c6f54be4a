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
  ``getClipboard``, ``pasteClipboard`` (commits the clipboard into the focused field — the path
  ``Device.send_keys`` takes when uiautomator2's IME is not installed), ``clearInputText``;
* selectors (``UiSelector`` semantics on the dumped tree, mask bits as the client sends them,
  ``instance``/``index``, ``child``/``sibling`` chains): ``exist``, ``waitForExists``,
  ``waitUntilGone``, ``objInfo``, ``objInfoOfAllInstances``, ``count``, ``getChildCount``,
  ``click``/``longClick`` on a selector, ``getText``, ``setText``, ``clearTextField``,
  ``dragTo``, ``swipe`` on a selector, ``scrollForward``/``Backward``/``ToBeginning``/``ToEnd``/
  ``scrollTo``, ``fling*``, ``childByText``/``childByDescription``/``childByInstance`` (return an
  object name usable as a selector afterwards, like the real server's UiObject registry).

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
        return parse_tree(xml)

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
        s = _to_float(scale, "scale")
        q = _to_int(quality, "quality")
        if not 0 < s <= 1.0:
            raise _invalid(f"scale must be in (0, 1], got {s}")
        q = min(max(q, 1), 100)
        png = await self._call(self.phone.screenshot_png)
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
        xml = await self._call(self.phone.hierarchy_xml, False)
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
            await self._call(self.phone.tap, fx, fy)
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
            await self._call(self.phone.tap, x, y)

    async def rpc_click(self, *args: Any) -> bool:
        """``click(x, y)``, ``click(x, y, ms)`` (long click), ``click(selector[, corner])``."""
        if args and isinstance(args[0], (dict, str)) and not _numeric(args[0]):
            if len(args) > 2:
                raise _invalid("click(selector[, corner])")
            node = await self._find(args[0])
            x, y = _corner(node, args[1] if len(args) > 1 else None)
            await self._call(self.phone.tap, x, y)
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
        await self._call(self.phone.set_clipboard, "" if text is None else str(text))

    async def rpc_getClipboard(self) -> str | None:
        text = await self._call(self.phone.get_clipboard)
        return text if text else None

    async def rpc_pasteClipboard(self) -> bool:
        """Paste into the focused field: the clipboard text is committed as typed, literally."""
        text = await self._call(self.phone.get_clipboard)
        if not text:
            return False
        return bool(await self._call(self.phone.input_text, text))

    async def rpc_clearInputText(self) -> bool:
        return bool(await self._call(self.phone.clear_text))

    async def _focus(self, node: UiNode) -> bool:
        """Give ``node`` (a text field) input focus by touching it, as ACTION_FOCUS would."""
        if node.flag("focused"):
            return True
        x, y = node.center
        await self._call(self.phone.tap, x, y)
        has = getattr(self.phone, "has_focused_field", None)
        return bool(await self._call(has)) if has is not None else True

    async def rpc_setText(self, selector: SelectorArg, text: Any) -> bool:
        """UiObject.setText: replace the field's text (false for a view that is not a field)."""
        from device.parsers.hierarchy import is_editable_class

        node = await self._find(selector)
        if not is_editable_class(node.get("class")):
            return False
        if not await self._focus(node):
            return False
        await self._call(self.phone.clear_text)
        value = "" if text is None else str(text)
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
