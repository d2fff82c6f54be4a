"""The uiautomator2 server's HTTP/1.1 layer, on ``h11``.

Why: uiautomator2's client talks HTTP/1.1 to the on-device server through adbd's ``tcp:9008``
service — a byte stream that arrives through the adb forward, not a socket this process
accepted. ``h11`` is sans-IO (bytes in, events out; events in, bytes out), so it parses and
frames those streams whatever carries them; this module only moves the bytes between an
asyncio ``(reader, writer)`` pair and an ``h11.Connection`` and hands each complete request to
a router.

What it keeps from the real server (NanoHTTPD in android-uiautomator-server), beyond h11's
own rules:

* keep-alive (HTTP/1.1 default, ``Connection: close`` honoured, HTTP/1.0 closes),
  ``Content-Length`` and ``Transfer-Encoding: chunked`` request bodies; responses always carry
  ``Content-Length``; ``HEAD`` gets the ``GET``'s headers and no body;
* leniency h11 does not have: a request without a ``Host`` header is served (the adb forward
  is no network, and NanoHTTPD does not ask for one), and stray CRLFs before a request line are
  skipped (RFC 9112 §2.2). Each request gets a fresh ``h11.Connection``; the bytes h11 did not
  consume (pipelined requests) carry over to the next one, so the leniency applies to each;
* an interim ``100 Continue`` when the client asks for it (``Expect: 100-continue``) *or* when a
  POST body does not follow its headers at once (see :func:`_receive_body`);
* a request h11 rejects gets the status h11 suggests (400, 431 …) and the connection closes.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from dataclasses import dataclass
from typing import Awaitable, Callable

import h11

__all__ = ["HttpRequest", "serve_http", "render_response", "MAX_BODY", "MAX_HEAD", "BODY_PROBE_S"]

_REASONS = {100: "Continue", 200: "OK", 400: "Bad Request", 404: "Not Found", 405: "Method Not Allowed",
            411: "Length Required", 413: "Payload Too Large", 431: "Request Header Fields Too Large",
            500: "Internal Server Error", 501: "Not Implemented", 505: "HTTP Version Not Supported"}
MAX_BODY = 16 * 1024 * 1024
MAX_HEAD = 64 * 1024
#: How long to wait for a request body before sending an interim ``100 Continue`` (seconds).
BODY_PROBE_S = 0.002
_READ = 65536
_HOST = re.compile(rb"\r?\nhost[ \t]*:", re.IGNORECASE)


@dataclass
class HttpRequest:
    """One complete request, as the router sees it."""

    method: str
    path: str
    version: str
    headers: dict[str, str]
    body: bytes


#: A router: request → (status, content type, body).
Router = Callable[[HttpRequest], Awaitable[tuple[int, str, bytes]]]


class _HttpError(Exception):
    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


def _response(status: int, body: bytes, content_type: str, keep_alive: bool, *,
              head_only: bool = False) -> list[h11.Response | h11.Data | h11.EndOfMessage]:
    events: list[h11.Response | h11.Data | h11.EndOfMessage] = [h11.Response(
        status_code=status, reason=_REASONS.get(status, "Unknown").encode("ascii"),
        headers=[("Content-Type", content_type), ("Content-Length", str(len(body))),
                 ("Connection", "keep-alive" if keep_alive else "close")])]
    if body and not head_only:
        events.append(h11.Data(data=body))
    events.append(h11.EndOfMessage())
    return events


def render_response(status: int, body: bytes, content_type: str, keep_alive: bool) -> bytes:
    """One response's bytes exactly as :func:`serve_http` sends it."""
    conn = h11.Connection(h11.SERVER)
    return b"".join(conn.send(e) or b"" for e in _response(status, body, content_type, keep_alive))


async def _send(conn: h11.Connection, writer: asyncio.StreamWriter, *events: h11.Event) -> None:
    writer.write(b"".join(conn.send(e) or b"" for e in events))
    await writer.drain()


async def _read_head(reader: asyncio.StreamReader, pending: bytearray) -> bytes | None:
    """Gather one request head in ``pending`` (leading CRLFs dropped); None at a clean end of
    stream between requests. A head without ``Host`` gets an empty one (see the module doc)."""
    while True:
        while pending[:2] == b"\r\n" or pending[:1] == b"\n":
            del pending[: 2 if pending[:1] == b"\r" else 1]
        end = pending.find(b"\r\n\r\n")
        if end >= 0:
            break
        if len(pending) > MAX_HEAD:
            raise _HttpError(431, "request head too large")
        data = await reader.read(_READ)
        if not data:
            if not pending:
                return None
            break  # an incomplete head: h11 reports it
        pending += data
    if end < 0:
        head = bytes(pending)
        pending.clear()
        return head
    if end + 4 > MAX_HEAD:
        raise _HttpError(431, "request head too large")
    head = bytes(pending[: end + 2])
    del pending[: end + 4]
    if not _HOST.search(head):
        head += b"Host: \r\n"
    return head + b"\r\n"


async def _receive_body(conn: h11.Connection, reader: asyncio.StreamReader,
                        nudge: Callable[[], Awaitable[None]] | None) -> bytes:
    """The request's body through h11; if it does not follow the headers at once, ``nudge``
    the client first.

    Why: Python's ``http.client`` (uiautomator2's transport) sends a POST's headers and body in
    two ``send()`` calls on a socket without ``TCP_NODELAY``. Nagle then holds the body until the
    headers are ACKed, and the adb server, which has nothing to send back yet, delays that ACK
    by ~40 ms — every JSON-RPC call paid it (measured 60 ms instead of 15 ms per call). An
    interim ``100 Continue`` (RFC 9110 §15.2: clients must accept unsolicited 1xx responses,
    and ``http.client``/urllib3 skip them) carries the ACK at once.
    """
    body = bytearray()
    while True:
        event = conn.next_event()
        if isinstance(event, h11.Data):
            body += event.data
            if len(body) > MAX_BODY:
                raise _HttpError(413, "body too large")
        elif isinstance(event, h11.EndOfMessage):
            return bytes(body)
        elif event is h11.NEED_DATA:
            if nudge is None:
                data = await reader.read(_READ)
            else:
                try:
                    # cancelling read() while it waits consumes nothing, so no byte can be lost
                    data = await asyncio.wait_for(reader.read(_READ), BODY_PROBE_S)
                except asyncio.TimeoutError:
                    await nudge()
                    nudge = None
                    continue
            conn.receive_data(data)  # b"" at end of stream: h11 then reports the cut-off body
        else:  # pragma: no cover - h11 yields nothing else while a request body is read
            raise _HttpError(400, f"unexpected {type(event).__name__}")


async def _receive(conn: h11.Connection, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                   pending: bytearray) -> HttpRequest | None:
    """Read one request into ``conn``; None at a clean end of stream between requests."""
    head = await _read_head(reader, pending)
    if head is None:
        return None
    conn.receive_data(head)
    if not head.endswith(b"\r\n\r\n"):
        conn.receive_data(b"")  # the stream ended inside the head: h11 says how it is broken
    event = conn.next_event()
    if not isinstance(event, h11.Request):  # pragma: no cover - a complete head is a Request or raises
        raise _HttpError(400, "incomplete request head")
    if pending:  # what followed the head: its body, pipelined requests (b"" would mean end of stream)
        conn.receive_data(bytes(pending))
        pending.clear()
    version = "HTTP/" + event.http_version.decode("ascii")
    if event.http_version not in (b"1.0", b"1.1"):
        raise _HttpError(505, "only HTTP/1.x")
    headers = {k.decode("iso-8859-1"): v.decode("iso-8859-1") for k, v in event.headers}

    async def send_continue() -> None:
        await _send(conn, writer, h11.InformationalResponse(status_code=100, reason=b"Continue", headers=[]))

    nudge: Callable[[], Awaitable[None]] | None = send_continue if event.http_version == b"1.1" else None
    if conn.they_are_waiting_for_100_continue:
        await send_continue()
        nudge = None
    body = await _receive_body(conn, reader, nudge)
    path = event.target.decode("iso-8859-1").split("?", 1)[0]
    return HttpRequest(event.method.decode("ascii").upper(), path, version, headers, body)


async def serve_http(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, route: Router) -> None:
    """One connection: serve requests through ``route`` until the client closes or asks to."""
    pending = bytearray()
    try:
        while True:
            conn = h11.Connection(h11.SERVER, max_incomplete_event_size=MAX_HEAD)
            try:
                req = await _receive(conn, reader, writer, pending)
            except (h11.RemoteProtocolError, _HttpError) as e:
                status = e.status if isinstance(e, _HttpError) else e.error_status_hint
                reason = e.reason if isinstance(e, _HttpError) else str(e)
                with contextlib.suppress(h11.LocalProtocolError):
                    await _send(conn, writer, *_response(status, reason.encode(), "text/plain", False))
                return
            if req is None:
                return
            status, ctype, body = await route(req)
            keep = req.version == "HTTP/1.1" and "close" not in req.headers.get("connection", "").lower()
            await _send(conn, writer, *_response(status, body, ctype, keep, head_only=req.method == "HEAD"))
            if conn.our_state is not h11.DONE or conn.their_state is not h11.DONE:
                return
            pending += conn.trailing_data[0]
    except (ConnectionError, asyncio.IncompleteReadError, BrokenPipeError):
        return
    finally:
        with contextlib.suppress(Exception):
            writer.close()
