"""``s2r env serve``: the simulator as an OpenEnv environment server.

OpenEnv's own server (``HTTPEnvServer``) keeps the connections' sessions and serves ``/reset``
``/step`` ``/state`` ``/schema`` ``/health`` over HTTP; ``/ws`` speaks its message protocol
(:mod:`.wsroute`), so TRL's OpenEnv integration and any OpenEnv client work unchanged. s2r adds
the sessions behind it (:mod:`.store`), a token gate and ``/s2r/stats`` (sessions live and
asleep, pages, hibernations). WebSocket compression is off: a base64 JPEG barely deflates, and
compressing it cost ~4 ms of CPU a step.

It binds 127.0.0.1 unless told otherwise; on any other address it refuses to start without a
token, and then every request must carry it (``Authorization: Bearer <token>``, or ``?token=``
for clients that cannot set headers).
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import threading
import time
from typing import Any
from urllib.parse import parse_qs

from .protocol import S2RAction, S2RObservation, SessionConfig
from .store import SessionStore
from .wsroute import add_ws_route

LOOPBACK = ("127.0.0.1", "localhost", "::1")


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class TokenGate:
    """ASGI middleware: every HTTP request and WebSocket handshake must carry the token."""

    def __init__(self, app: Any, token: str):
        self.app, self.token = app, token.encode()

    def _ok(self, scope: dict[str, Any]) -> bool:
        headers = dict(scope.get("headers") or [])
        auth = headers.get(b"authorization", b"")
        given = auth[7:].strip() if auth[:7].lower() == b"bearer " else headers.get(b"x-s2r-token", b"")
        if not given:
            q = parse_qs((scope.get("query_string") or b"").decode("latin-1"))
            given = (q.get("token") or [""])[0].encode()
        return bool(given) and hmac.compare_digest(given, self.token)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] not in ("http", "websocket") or self._ok(scope):
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":  # closing before accept answers the handshake with 403
            await send({"type": "websocket.close", "code": 1008, "reason": "s2r: missing or wrong token"})
            return
        body = json.dumps({"detail": "[s2r:unauthorized] missing or wrong token"}).encode()
        await send({"type": "http.response.start", "status": 401,
                    "headers": [(b"content-type", b"application/json"), (b"www-authenticate", b"Bearer")]})
        await send({"type": "http.response.body", "body": body})


class QuietHangups:
    """ASGI middleware: a client that hangs up mid-session is normal (a trainer stopped, a host
    went away); OpenEnv's server then tries to close the socket that is already gone and raises.
    The session was released by then (its ``close`` ran), so the hang-up is not logged as a crash."""

    def __init__(self, app: Any):
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "websocket":
            await self.app(scope, receive, send)
            return
        from starlette.websockets import WebSocketDisconnect
        from uvicorn.protocols.utils import ClientDisconnected

        try:
            await self.app(scope, receive, send)
        except (WebSocketDisconnect, ClientDisconnected):
            pass


def make_app(store: SessionStore, *, token: str | None = None) -> Any:
    """The ASGI app over ``store`` (OpenEnv's routes plus ``/s2r/stats``), token-gated if given."""
    import functools

    from fastapi import FastAPI
    from openenv.core.env_server.http_server import HTTPEnvServer

    from .environment import S2REnvironment

    app = FastAPI(title="s2r environment server", version="1",
                  description="Simulated phones for RL trainers, over OpenEnv's protocol.")
    server = HTTPEnvServer(functools.partial(S2REnvironment, store=store), S2RAction, S2RObservation,
                           max_concurrent_envs=store.max_sessions)
    add_ws_route(app, server)  # ahead of OpenEnv's own /ws, so it answers (see .wsroute)
    server.register_routes(app)

    @app.get("/s2r/stats")
    def stats() -> dict[str, Any]:
        return {**store.stats(), "connections": server.active_sessions}

    app.state.store, app.state.openenv = store, server
    quiet = QuietHangups(app)
    return TokenGate(quiet, token) if token else quiet


class EnvServer:
    """The server in this process: ``with EnvServer(pages=4) as srv: ... srv.url``.

    ``pages``: live pages per device profile; ``max_sessions``: sessions it may hold (one more is
    refused); ``max_live``: sessions kept in memory before the least recently used sleep.
    """

    def __init__(self, host: str = "127.0.0.1", port: int = 0, *, pages: int = 2, max_sessions: int = 1024,
                 max_live: int = 64, token: str | None = None, config: SessionConfig | None = None,
                 pool: Any = None, log_level: str = "warning"):
        if not is_loopback(host) and not token:
            raise ValueError(f"refusing to serve on {host} without a token: beyond loopback every "
                             "request must carry one (--token, or S2R_ENV_TOKEN)")
        self._own_pool = pool is None  # a pool made here is closed here; a lent one stays its owner's
        if pool is None:
            from sim.pool import SimPool

            pool = SimPool(pages_per_profile=pages)
        self.host, self.port, self.token = host, port, token
        self.store = SessionStore(pool, max_sessions=max_sessions, max_live=max_live, config=config)
        self.app = make_app(self.store, token=token)
        self.log_level = log_level
        self._server: Any = None
        self._thread: threading.Thread | None = None

    def _uvicorn(self) -> Any:
        import uvicorn

        cfg = uvicorn.Config(self.app, host=self.host, port=self.port, log_level=self.log_level,
                             ws_max_size=64 * 2**20, lifespan="on", timeout_graceful_shutdown=5,
                             # a base64 JPEG barely deflates; compressing it cost ~4 ms of CPU a step
                             ws_per_message_deflate=False)
        return uvicorn.Server(cfg)

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    def start(self, timeout: float = 30.0) -> "EnvServer":
        """Serve on a background thread; returns once the socket is bound (``url`` is then right)."""
        self._server = self._uvicorn()
        self._thread = threading.Thread(target=self._server.run, name="s2r-env-serve", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not self._server.started:
            if not self._thread.is_alive():
                raise RuntimeError(f"the environment server did not start on {self.host}:{self.port}")
            if time.monotonic() > deadline:
                raise TimeoutError(f"the environment server did not start within {timeout:.0f} s")
            time.sleep(0.02)
        self.port = self._server.servers[0].sockets[0].getsockname()[1]
        return self

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def stop(self) -> None:
        """Stop serving (open sessions end: their clients get ``HostLost``) and close the pages if
        this server made them."""
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=15)
            self._thread = None
        if self._own_pool:
            pool, self._own_pool = self.store.pool, False
            pool.rt.run(pool.close())

    def __enter__(self) -> "EnvServer":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()
