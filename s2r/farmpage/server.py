"""``s2r farm serve``'s HTTP server: the page, its JSON, the screenshots. Read-only.

Three routes, all GET: ``/`` (the page, :mod:`s2r.farmpage.page`), ``/api/phones`` (the
:class:`~s2r.farmpage.collect.FarmView` as JSON, polled by the page once a second) and
``/shot?key=WHERE/SERIAL`` (the last screenshot a run's policy saw on that phone). Every answer
comes from the one shared :class:`~s2r.farmpage.collect.Collector`; a request keeps nothing once
answered, and a client that hangs up mid-answer is simply dropped.

It listens on 127.0.0.1 by default. On any other address the phones' screens would be visible to
the network, so a token is required there (``?token=``, carried by the page to its own requests).
"""

from __future__ import annotations

import hmac
import ipaddress
import secrets
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from .collect import Collector, view_json
from .page import PAGE

__all__ = ["FarmPageServer", "is_loopback"]

IDLE_S = 10.0


def is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


class FarmPageServer:
    """The page on ``host:port`` (port 0: a free one) over ``collector``."""

    def __init__(self, collector: Collector, host: str = "127.0.0.1", port: int = 0, token: str | None = None):
        self.collector = collector
        self.token = token if token is not None else (None if is_loopback(host) else secrets.token_urlsafe(18))
        self.httpd = ThreadingHTTPServer((host, port), _handler(self))
        self.httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}/" + (f"?token={self.token}" if self.token else "")

    def start(self) -> "FarmPageServer":
        self._thread = threading.Thread(target=self.httpd.serve_forever, name="s2r-farm-page", daemon=True)
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        self.httpd.serve_forever()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def _handler(srv: FarmPageServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        timeout = IDLE_S  # a client that connects and says nothing holds its thread this long, no longer

        def log_message(self, *_a: Any) -> None:
            pass

        def do_GET(self) -> None:  # noqa: N802
            url = urlsplit(self.path)
            q = parse_qs(url.query)
            if srv.token is not None:
                got = (q.get("token") or [""])[0]
                if not hmac.compare_digest(got.encode(), srv.token.encode()):
                    return self._send(403, b"forbidden: open the URL s2r farm serve printed (with its token)",
                                      "text/plain; charset=utf-8")
            if url.path == "/":
                return self._send(200, PAGE.encode(), "text/html; charset=utf-8")
            if url.path == "/api/phones":
                return self._send(200, view_json(srv.collector.view()), "application/json")
            if url.path == "/shot":
                got_shot = srv.collector.shot((q.get("key") or [""])[0])
                if got_shot is None:
                    return self._send(404, b"no screenshot", "text/plain")
                return self._send(200, got_shot[0], got_shot[1], cache=True)
            return self._send(404, b"not found", "text/plain")

        def _send(self, code: int, body: bytes, ctype: str, cache: bool = False) -> None:
            try:
                self.send_response(code)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                # a shot's URL names its sequence number: the same URL is the same image
                self.send_header("Cache-Control", "private, max-age=60" if cache else "no-store")
                self.send_header("X-Content-Type-Options", "nosniff")
                self.end_headers()
                self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):  # the client left: nothing to undo
                pass

    return Handler
