"""uiautomator2's on-device server (``device.virtual.u2server``): its own logic, without a phone.

Selector semantics and dump pruning on real uiautomator dumps, JSON-RPC errors, and HTTP/1.1
framing (keep-alive, chunked bodies, ``100 Continue``, malformed requests) — fast, no phone.
The unmodified toolchain end to end is ``test_vdevice_u2.py``.
"""

from __future__ import annotations

import asyncio
import json
import socket
import time
from typing import Any

import pytest

from actionmap.observation import UIElement
from device.parsers.hierarchy import parse_hierarchy, to_hierarchy_xml
from device.virtual.u2server import (
    SELECTOR_MASKS, U2Server, parse_tree, render_response, select, write_tree,
)

pytestmark = pytest.mark.timeout(300)


# ============================================================================ pure logic
def _el(i: int, box: tuple[int, int, int, int], **kw: Any) -> UIElement:
    return UIElement.from_px(i, box, (1080, 2400), **kw)


def _sel(**kw: Any) -> dict[str, Any]:
    """Exactly what ``uiautomator2._selector.Selector(**kw)`` sends."""
    from uiautomator2._selector import Selector

    return json.loads(json.dumps(Selector(**kw)))


@pytest.fixture(scope="module")
def tree_xml() -> str:
    els = [
        _el(0, (0, 0, 1080, 2400), class_name="android.widget.FrameLayout", package="com.x"),
        _el(1, (0, 100, 1080, 1000), class_name="androidx.recyclerview.widget.RecyclerView", package="com.x",
            scrollable=True, resource_id="com.x:id/list"),
        _el(2, (0, 100, 1080, 300), class_name="android.widget.LinearLayout", package="com.x", clickable=True),
        _el(3, (20, 120, 500, 280), text="Wi‑Fi 网络 👋", class_name="android.widget.TextView", package="com.x"),
        _el(4, (600, 120, 1000, 280), class_name="android.widget.Switch", package="com.x", checkable=True,
            checked=True, content_desc="Wi-Fi toggle"),
        _el(5, (0, 300, 1080, 500), class_name="android.widget.LinearLayout", package="com.x", clickable=True),
        _el(6, (20, 320, 500, 480), text="Bluetooth", class_name="android.widget.TextView", package="com.x"),
        _el(7, (600, 320, 1000, 480), class_name="android.widget.Switch", package="com.x", checkable=True),
        _el(8, (0, 1000, 1080, 1300), class_name="android.widget.FrameLayout", package="com.x"),  # bare wrapper
        _el(9, (0, 1000, 1080, 1200), text="", hint="Search", class_name="android.widget.EditText",
            package="com.x", resource_id="com.x:id/search", focused=True),
    ]
    return to_hierarchy_xml(els, screen=(1080, 2400))


def test_selector_mask_semantics(tree_xml: str) -> None:
    tree = parse_tree(tree_xml)
    texts = lambda s: [n.get("text") or n.get("class").rsplit(".", 1)[-1] for n in select(tree, s)]  # noqa: E731
    assert texts(_sel(text="Bluetooth")) == ["Bluetooth"]
    assert texts(_sel(text="Bluetoot")) == []  # exact, not contains
    assert texts(_sel(textContains="网络")) == ["Wi‑Fi 网络 👋"]
    assert texts(_sel(textStartsWith="Blue")) == ["Bluetooth"]
    assert texts(_sel(textMatches="Blue")) == []  # Java Pattern.matches: whole value
    assert texts(_sel(textMatches="Blue.*")) == ["Bluetooth"]
    assert texts(_sel(className="android.widget.Switch")) == ["Switch", "Switch"]
    assert texts(_sel(className="android.widget.Switch", checked=True)) == ["Switch"]
    assert texts(_sel(className="android.widget.Switch", checked=False)) == ["Switch"]
    assert len(select(tree, _sel(className="android.widget.Switch", instance=1))) == 1
    assert select(tree, _sel(className="android.widget.Switch", instance=1))[0].flag("checked") is False
    assert select(tree, _sel(className="android.widget.Switch", instance=2)) == []
    assert texts(_sel(description="Wi-Fi toggle")) == ["Switch"]
    assert texts(_sel(descriptionContains="toggle")) == ["Switch"]
    assert texts(_sel(resourceId="com.x:id/search")) == ["EditText"]
    assert texts(_sel(resourceIdMatches=r".*:id/se.*")) == ["EditText"]
    assert texts(_sel(focused=True)) == ["EditText"]
    assert texts(_sel(scrollable=True)) == ["RecyclerView"]
    assert len(select(tree, _sel(packageName="com.x"))) == 10
    # index = position among siblings: both rows' switches are index 1 in their row
    assert texts(_sel(className="android.widget.Switch", index=1)) == ["Switch", "Switch"]
    # a bit present in the mask but a False/0 default value still constrains (clickable=False)
    assert "LinearLayout" not in texts(_sel(className="android.widget.LinearLayout", clickable=False))
    # the mask is authoritative: a key without its bit is ignored, as by the real server
    raw = _sel(text="Bluetooth")
    raw["textContains"] = "nope"
    assert texts(raw) == ["Bluetooth"]
    assert raw["mask"] == SELECTOR_MASKS["text"]


def test_selector_child_and_sibling_chains(tree_xml: str) -> None:
    from uiautomator2._selector import Selector

    tree = parse_tree(tree_xml)
    row = Selector(className="android.widget.LinearLayout", instance=1).child(className="android.widget.Switch")
    found = select(tree, json.loads(json.dumps(row)))
    assert len(found) == 1 and found[0].flag("checked") is False
    sib = Selector(text="Bluetooth").sibling(className="android.widget.Switch")
    found = select(tree, json.loads(json.dumps(sib)))
    assert len(found) == 1 and found[0].bounds == (600, 320, 1000, 480)
    # update_instance on a chained selector applies to the last child step
    chain = Selector(scrollable=True).child(className="android.widget.TextView")
    chain.update_instance(1)
    assert [n.get("text") for n in select(tree, json.loads(json.dumps(chain)))] == ["Bluetooth"]


def test_write_tree_prunes_depth_and_compresses(tree_xml: str) -> None:
    tree = parse_tree(tree_xml)
    shallow = write_tree(tree, max_depth=1, compressed=False)
    h = parse_hierarchy(shallow)
    assert [e.class_name.rsplit(".", 1)[-1] for e in h.elements] == ["FrameLayout", "RecyclerView", "FrameLayout"]
    full = parse_hierarchy(write_tree(tree, max_depth=None, compressed=False))
    assert [e.text for e in full.elements] == [e.text for e in parse_hierarchy(tree_xml).elements]
    assert "&#128075;" in write_tree(tree, max_depth=None, compressed=False)  # emoji as a char ref
    comp = parse_hierarchy(write_tree(tree, max_depth=None, compressed=True))
    assert "Wi‑Fi 网络 👋" in [e.text for e in comp.elements]
    # the bare wrapper is spliced out; its EditText moves up and keeps its attributes
    assert len(comp.elements) == len(full.elements) - 1
    assert [e.resource_id for e in comp.elements if e.editable] == ["com.x:id/search"]


class _NoPhone:
    """A phone with a screen size and nothing else: routing and errors must not need more, and
    optional phone features (state access for toasts) degrade instead of failing."""

    def window_size(self) -> tuple[int, int]:
        return 1080, 2400

    def __getattr__(self, name: str) -> Any:
        raise AttributeError(name)


def _rpc(server: U2Server, method: str, params: Any) -> dict[str, Any]:
    body = json.dumps({"jsonrpc": "2.0", "id": 7, "method": method, "params": params}).encode()
    return json.loads(asyncio.run(server.dispatch_body(body)))


def test_jsonrpc_errors_without_a_phone() -> None:
    server = U2Server(_NoPhone())  # type: ignore[arg-type]
    r = _rpc(server, "noSuchMethod", [])
    assert r["id"] == 7 and r["error"]["code"] == -32601 and "method not found" in r["error"]["message"]
    r = _rpc(server, "pinchIn", [{"mask": 0}, 50, 10])
    assert r["error"]["code"] == -32000 and "UnsupportedOperationException" in r["error"]["message"]
    r = _rpc(server, "setOrientation", ["left"])
    assert r["error"]["code"] == -32000
    r = _rpc(server, "click", [[1], 2])
    assert r["error"]["code"] == -32602
    r = _rpc(server, "click", [5000, 10])  # off screen: UiDevice.click returns false, no touch
    assert r == {"jsonrpc": "2.0", "id": 7, "result": False}
    r = _rpc(server, "waitForExists", [{"mask": 1, "text": "x"}, 10, 1, 2, 3])
    assert r["error"]["code"] == -32601  # no overload with that arity, like jsonrpc4j
    parse = json.loads(asyncio.run(server.dispatch_body(b"{not json")))
    assert parse["error"]["code"] == -32700
    batch = json.loads(asyncio.run(server.dispatch_body(
        b'[{"jsonrpc":"2.0","id":1,"method":"makeToast","params":["hi \xe2\x9c\x8b",1000]},'
        b'{"jsonrpc":"2.0","id":2,"method":"getLastToast","params":{}}]')))
    assert [x["result"] for x in batch] == [True, "hi ✋"]
    assert "deviceInfo" in server.methods and "dumpWindowHierarchy" in server.methods


def test_http_framing_keepalive_chunked_and_errors() -> None:
    server = U2Server(_NoPhone())  # type: ignore[arg-type]

    async def exchange(raw: bytes) -> bytes:
        reader = asyncio.StreamReader()
        reader.feed_data(raw)
        reader.feed_eof()
        out = bytearray()

        class W:
            def write(self, b: bytes) -> None:
                out.extend(b)

            async def drain(self) -> None:
                return None

            def close(self) -> None:
                return None

        await server.handle(reader, W())  # type: ignore[arg-type]
        return bytes(out)

    body = json.dumps({"jsonrpc": "2.0", "id": 3, "method": "getLastToast", "params": {}}).encode()
    chunked = b"%x\r\n%s\r\n0\r\n\r\n" % (len(body), body)
    raw = (b"GET /ping HTTP/1.1\r\nHost: x\r\n\r\n"
           b"POST /jsonrpc/0 HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked +
           b"GET /nope HTTP/1.1\r\nConnection: close\r\n\r\n"
           b"GET /ping HTTP/1.1\r\n\r\n")  # after Connection: close: never answered
    out = asyncio.run(exchange(raw))
    responses = out.split(b"HTTP/1.1 ")[1:]
    assert len(responses) == 3
    assert responses[0].startswith(b"200") and responses[0].endswith(b"\r\n\r\npong")
    assert b'"id":3' in responses[1] and b'"result":null' in responses[1]
    assert responses[2].startswith(b"404") and b"Connection: close" in responses[2]
    bad = asyncio.run(exchange(b"BROKEN\r\n\r\n"))
    assert bad.startswith(b"HTTP/1.1 400")
    wrong = asyncio.run(exchange(b"GET /jsonrpc/0 HTTP/1.1\r\n\r\n"))
    assert wrong.startswith(b"HTTP/1.1 405")
    assert render_response(200, b"x", "text/plain", True).endswith(b"Content-Length: 1\r\nConnection: keep-alive\r\n\r\nx")
    # Expect: 100-continue gets the interim response before the final one
    expect = (b"POST /jsonrpc/0 HTTP/1.1\r\nExpect: 100-continue\r\nConnection: close\r\n"
              b"Content-Length: %d\r\n\r\n" % len(body) + body)
    out = asyncio.run(exchange(expect))
    assert out.startswith(b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK")


def test_late_body_gets_100_continue_and_http_client_accepts_it() -> None:
    """A body that does not follow its headers at once (http.client + Nagle + delayed ACK)
    is nudged with an interim 100 Continue; Python's http.client skips it transparently."""
    from http.client import HTTPConnection

    server = U2Server(_NoPhone())  # type: ignore[arg-type]
    seen: list[bytes] = []

    async def main() -> tuple[int, bytes]:
        srv = await asyncio.start_server(server.handle, "127.0.0.1", 0)
        port = srv.sockets[0].getsockname()[1]

        def client() -> tuple[int, bytes]:
            c = HTTPConnection("127.0.0.1", port, timeout=10)
            c.request("POST", "/jsonrpc/0", json.dumps({"jsonrpc": "2.0", "id": 5, "method": "getLastToast",
                                                        "params": {}}), {"Content-Type": "application/json"})
            r = c.getresponse()
            status, data = r.status, r.read()
            c.close()
            return status, data

        def raw() -> None:
            with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
                b = b'{"jsonrpc":"2.0","id":9,"method":"getLastTraversedText","params":{}}'
                s.sendall(b"POST /jsonrpc/0 HTTP/1.1\r\nConnection: close\r\nContent-Length: %d\r\n\r\n" % len(b))
                time.sleep(0.05)  # the body comes late
                s.sendall(b)
                buf = b""
                while chunk := s.recv(65536):
                    buf += chunk
                seen.append(buf)

        loop = asyncio.get_running_loop()
        try:
            await loop.run_in_executor(None, raw)
            return await loop.run_in_executor(None, client)
        finally:
            srv.close()
            await srv.wait_closed()

    status, data = asyncio.run(main())
    assert seen[0].startswith(b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK") and b'"id":9' in seen[0]
    assert status == 200 and json.loads(data) == {"jsonrpc": "2.0", "id": 5, "result": None}
