"""uiautomator2's on-device server, answered by the virtual phone.

Why: ``uiautomator2`` (the Python client) does not drive a phone through ``input``/
``screencap`` shell commands; it starts ``com.wetest.uia2.Main`` from ``/data/local/tmp/u2.jar``
with ``app_process`` and then talks HTTP to it on device port 9008 — through adbutils'
``create_connection(Network.TCP, 9008)``, i.e. the adb ``tcp:9008`` service, a *new* stream
per request.  To drive :class:`~device.virtual.phone.VirtualPhone` with the unmodified client
(``u2.connect(serial)``), this module is that server: :class:`U2Server` composes the HTTP/1.1
layer (:mod:`.u2_http`, on ``h11``) over an asyncio ``(reader, writer)`` pair with the JSON-RPC
2.0 methods the client's public API calls (:mod:`.u2_rpc` and its groups by subject), and
:func:`install_u2server` puts it on the phone's device port 9008.

Its parts, one job each: :mod:`.uitree` (the dump's node model and XML writer),
:mod:`.uiselector` (``UiSelector`` semantics), :mod:`.u2_errors` (the JSON-RPC errors),
:mod:`.u2_rpc` (dispatch and shared state), :mod:`.u2_rpc_device`, :mod:`.u2_rpc_input`,
:mod:`.u2_rpc_select` (the methods), :mod:`.systemui` and :mod:`.keyguard` (SystemUI's windows
over the app), :mod:`.processes` (the ``app_process`` the server runs as), :mod:`.costs`
(what the work costs in the phone's time).

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
that removes a ~40 ms Nagle/delayed-ACK stall on every JSON-RPC call (see :mod:`.u2_http`).

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

What the screen shows besides the sim's views (:func:`~device.virtual.systemui.screen_tree`, also used by the shell's
``uiautomator dump``, ``screencap`` and ``input tap``): every app window's decor chain
(``FrameLayout`` > ``LinearLayout`` > ``FrameLayout android:id/content``, status/navigation bar
backgrounds) and, on Android 13+, SystemUI's clipboard overlay after each ``setClipboard``
(:class:`~device.virtual.systemui.ClipboardOverlay`: ``clipboard_preview``, ``dismiss_button``; 6 s or a tap on its
dismiss button). The server's ``app_process`` is a :class:`~device.virtual.processes.DeviceProcess` in
:func:`~device.virtual.processes.process_table` (``ps``, ``kill``; it holds UiAutomation, so ``uiautomator dump`` fails).

Errors look like the real server's so the client raises the same exceptions: an unknown method is
``-32601 "method not found"``; a selector that matches nothing where an object is required is
``-32002`` with ``androidx.test.uiautomator.UiObjectNotFoundException`` in the message (the client
turns that into ``UiObjectNotFoundError``); bad arguments are ``-32602``; what the simulator cannot
do (multi-touch ``gesture``/``pinchIn``/``pinchOut``, landscape) is ``-32000`` with an
``UnsupportedOperationException`` message — never a silent success, never a crash.
"""

from __future__ import annotations

import inspect
from typing import Any

from .costs import dump_cost_ms, spend
from .keyguard import KEYGUARD_WRONG_PIN, KeyguardWindow, keyguard_window
from .processes import DeviceProcess, process_table, uiautomation_holder
from .systemui import ClipboardOverlay, add_decor, clipboard_overlay, overlay_tap, screen_tree, screen_xml
from .u2_errors import RpcError
from .u2_http import HttpRequest, render_response, serve_http
from .u2_rpc import PhoneLike
from .u2_rpc_device import DeviceMethods
from .u2_rpc_input import InputMethods
from .u2_rpc_select import SelectorMethods
from .uiselector import SELECTOR_MASKS, select, selector_matches
from .uitree import UiNode, UiTree, parse_tree, write_tree

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
    # the parts, re-exported under the names they had when this module held them all
    "UiTree", "write_tree", "render_response", "spend", "dump_cost_ms", "ClipboardOverlay", "clipboard_overlay",
    "add_decor", "screen_tree", "screen_xml", "overlay_tap", "KeyguardWindow", "keyguard_window",
    "KEYGUARD_WRONG_PIN", "DeviceProcess", "process_table", "uiautomation_holder", "PhoneLike",
]

#: The device port uiautomator2's server listens on (``uiautomator2.core.DEFAULT_SERVER_PORT``).
U2_PORT = 9008


class U2Server(DeviceMethods, InputMethods, SelectorMethods):
    """The HTTP + JSON-RPC server. ``handle`` is the ``tcp:9008`` connection handler.

    Args:
        phone: the virtual phone (anything with :class:`~device.virtual.u2_rpc.PhoneLike`'s methods).
        poll_interval: seconds between hierarchy checks in ``waitForExists``/``waitUntilGone``.
        long_press_ms: a DOWN…UP held this long without moving is a long press
            (``ViewConfiguration.DEFAULT_LONG_PRESS_TIMEOUT`` is 400 ms since Android 12).
    """

    async def handle(self, reader: Any, writer: Any) -> None:
        """One connection: serve requests until the client closes or asks to."""
        await serve_http(reader, writer, self._route)

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

