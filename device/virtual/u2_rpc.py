"""The uiautomator2 server's JSON-RPC 2.0 core: dispatch, and the state and plumbing every method shares.

Why its own module: the methods themselves come in groups by subject (:mod:`.u2_rpc_device`,
:mod:`.u2_rpc_input`, :mod:`.u2_rpc_select`), each a mixin over :class:`RpcBase`; this is what
they share — the phone, what must outlive a request (a DOWN…UP gesture in progress, the last
toast, ``childByText`` object names), running blocking phone calls off the event loop, finding
nodes for a selector — and the dispatcher that turns a request body into a response body the
way jsonrpc4j does (positional params, arity checked, errors as the real server's).
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
import time
from dataclasses import dataclass
from typing import Any, Awaitable, Callable, Protocol

from .costs import phone_knob, spend
from .systemui import screen_tree
from .u2_errors import RpcError, invalid, not_found
from .uiselector import select
from .uitree import UiNode, UiTree

__all__ = ["RpcBase", "PhoneLike", "SelectorArg", "Touch", "SIM_LONG_PRESS_MS", "corner_point", "is_numeric"]

log = logging.getLogger("device.virtual.u2server")


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


@dataclass
class Touch:
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



class RpcBase:
    """State and plumbing shared by the JSON-RPC method groups, and the dispatcher.

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
        self._touch: Touch | None = None
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
        await spend(phone_knob(self.phone, "u2_rpc_ms"))  # the HTTP round trip through the adb forward
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
                raise invalid("params must be an array or an object")
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
                raise not_found(selector)
            return found
        if isinstance(selector, dict):
            return lambda tree: select(tree, selector)
        raise invalid(f"a selector must be an object or an object name, got {type(selector).__name__}")

    async def _find_all(self, selector: SelectorArg) -> list[UiNode]:
        resolve = self._resolver(selector)
        return resolve(await self._tree())

    async def _find(self, selector: SelectorArg) -> UiNode:
        found = await self._find_all(selector)
        if not found:
            raise not_found(selector)
        return found[0]

    async def _screen(self) -> tuple[int, int]:
        w, h = self.phone.window_size()  # a field read on the phone: no need for the pool
        return int(w), int(h)

    def _density(self) -> int:
        return int(getattr(self.phone, "density", 0) or 160)

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



def _dumps(obj: Any) -> bytes:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def is_numeric(v: Any) -> bool:
    if isinstance(v, str):
        try:
            float(v)
            return True
        except ValueError:
            return False
    return False


def corner_point(node: UiNode, corner: Any) -> tuple[float, float]:
    """The point to touch: the centre, or ``"topleft"``/``"bottomright"`` like UiObject.click(corner)."""
    l, t, r, b = node.bounds
    c = (str(corner).lower() if corner is not None else "center")
    if c in ("tl", "topleft"):
        return l + 5, t + 5
    if c in ("br", "bottomright"):
        return r - 5, b - 5
    return (l + r) / 2, (t + b) / 2

