"""The local sim server: serves the phone UI and the phones' state as JSON.

One process, bound to 127.0.0.1 unless told otherwise. Python's pool pages load the UI
from here and are driven directly; a person running ``s2r sim serve`` opens a phone in a
browser and drives it by hand, the page syncing its state back through this API.
"""

from __future__ import annotations

import json
import mimetypes
import threading
import uuid
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

from . import state as st

STATIC = Path(str(resources.files("sim").joinpath("static")))


class PhoneStore:
    """Logical phones by id: each is one immutable JSON text (capture is free, fork shares it)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._phones: dict[str, str] = {}
        self._initial: dict[str, str] = {}

    def create(self, text: str | None = None, phone_id: str | None = None, **kw: Any) -> str:
        pid = phone_id or uuid.uuid4().hex[:12]
        text = text or st.new_state(**kw)
        with self._lock:
            self._phones[pid] = text
            self._initial[pid] = text
        return pid

    def get(self, pid: str) -> str:
        with self._lock:
            return self._phones[pid]

    def put(self, pid: str, text: str) -> None:
        with self._lock:
            if pid not in self._phones:
                raise KeyError(pid)
            self._phones[pid] = text

    def fork(self, pid: str) -> str:
        return self.create(self.get(pid))

    def reset(self, pid: str) -> str:
        with self._lock:
            self._phones[pid] = self._initial[pid]
            return self._phones[pid]

    def delete(self, pid: str) -> None:
        with self._lock:
            self._phones.pop(pid, None)
            self._initial.pop(pid, None)

    def ids(self) -> list[str]:
        with self._lock:
            return list(self._phones)

    def __contains__(self, pid: object) -> bool:
        with self._lock:
            return pid in self._phones


class _Handler(BaseHTTPRequestHandler):
    server: "SimServer"  # type: ignore[assignment]
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt: str, *args: Any) -> None:  # quiet
        pass

    # --- helpers -------------------------------------------------------------------------
    def _send(self, code: int, body: bytes, ctype: str = "application/json") -> None:
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-cache" if ctype.startswith("application/json") else "max-age=3600")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, obj: Any, code: int = 200) -> None:
        self._send(code, json.dumps(obj, ensure_ascii=False).encode())

    def _error(self, code: int, msg: str) -> None:
        self._json({"error": msg}, code)

    def _body(self) -> Any:
        n = int(self.headers.get("Content-Length") or 0)
        if n > 32 * 1024 * 1024:
            raise ValueError("request body too large")
        raw = self.rfile.read(n) if n else b""
        return json.loads(raw) if raw else {}

    # --- routes --------------------------------------------------------------------------
    def do_GET(self) -> None:  # noqa: N802
        u = urlparse(self.path)
        parts = [p for p in u.path.split("/") if p]
        store = self.server.store
        try:
            if not parts:
                self.send_response(HTTPStatus.FOUND)
                self.send_header("Location", "/phone.html")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            if parts[0] == "api":
                if parts[1:] == ["phones"]:
                    return self._json({"phones": store.ids()})
                if len(parts) >= 3 and parts[1] == "phones":
                    pid = parts[2]
                    if pid not in store:
                        if pid == "default":
                            store.create(phone_id="default", **self.server.defaults)
                        else:
                            return self._error(404, f"no phone {pid}")
                    text = store.get(pid)
                    if len(parts) == 3 or parts[3] == "state":
                        return self._send(200, text.encode())
                    if parts[3] == "world":
                        return self._send(200, st.world_state(text).model_dump_json().encode())
                    if parts[3] == "diff":
                        other = parse_qs(u.query).get("against", [""])[0]
                        return self._json(st.diff_states(store.get(other), text))
                return self._error(404, "unknown endpoint")
            return self._static(parts)
        except KeyError as e:
            self._error(404, f"not found: {e}")
        except Exception as e:  # noqa: BLE001 - a bad request must not kill the server
            self._error(400, str(e))

    do_HEAD = do_GET

    def _static(self, parts: list[str]) -> None:
        p = (STATIC / "/".join(parts)).resolve()
        if STATIC.resolve() not in p.parents or not p.is_file():
            return self._error(404, "not found")
        ctype = mimetypes.guess_type(p.name)[0] or "application/octet-stream"
        if p.suffix in (".js", ".mjs"):
            ctype = "text/javascript; charset=utf-8"
        self._send(200, p.read_bytes(), ctype)

    def _guarded(self, handler: Any) -> None:
        """Run a write handler; map errors to status codes so a bad request never kills the server."""
        try:
            handler([p for p in urlparse(self.path).path.split("/") if p])
        except st.PatchError as e:
            self._error(422, str(e))
        except KeyError as e:
            self._error(404, f"not found: {e}")
        except Exception as e:  # noqa: BLE001
            self._error(400, str(e))

    def do_POST(self) -> None:  # noqa: N802
        self._guarded(self._post)

    def do_PUT(self) -> None:  # noqa: N802
        self._guarded(self._put)

    def do_PATCH(self) -> None:  # noqa: N802
        self._guarded(self._patch)

    def _post(self, parts: list[str]) -> None:
        store = self.server.store
        body = self._body()
        if parts == ["api", "phones"]:
            pid = store.create(profile=body.get("profile", "default"), flavor=body.get("flavor", "sim"),
                               seed=int(body.get("seed", 0)))
            return self._json({"id": pid}, 201)
        if len(parts) == 4 and parts[:2] == ["api", "phones"]:
            pid, verb = parts[2], parts[3]
            if verb == "fork":
                return self._json({"id": store.fork(pid)}, 201)
            if verb == "reset":
                store.reset(pid)
                return self._json({"ok": True})
            if verb == "patch":  # a task setup (StatePatch)
                store.put(pid, st.apply_patch(store.get(pid), body))
                return self._json({"ok": True})
        self._error(404, "unknown endpoint")

    def _put(self, parts: list[str]) -> None:
        if len(parts) == 4 and parts[:2] == ["api", "phones"] and parts[3] == "state":
            n = int(self.headers.get("Content-Length") or 0)
            text = self.rfile.read(n).decode()
            self.server.store.put(parts[2], st.merge_patch(text, {}))  # validates
            return self._json({"ok": True})
        self._error(404, "unknown endpoint")

    def _patch(self, parts: list[str]) -> None:
        if len(parts) == 3 and parts[:2] == ["api", "phones"]:
            store = self.server.store
            store.put(parts[2], st.merge_patch(store.get(parts[2]), self._body()))
            return self._json({"ok": True})
        self._error(404, "unknown endpoint")


class SimServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, host: str = "127.0.0.1", port: int = 0, store: PhoneStore | None = None,
                 defaults: dict[str, Any] | None = None):
        super().__init__((host, port), _Handler)
        self.store = store or PhoneStore()
        self.defaults = defaults or {}
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> "SimServer":
        self._thread = threading.Thread(target=self.serve_forever, name="s2r-sim-server", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self.shutdown()
        self.server_close()
