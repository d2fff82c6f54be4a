"""A local stand-in for a VLM server that speaks the OpenAI chat-completions HTTP API.

We cannot run a GPU model here, so tests and demos talk to this server through the real
``openai`` client. It validates requests as a server would (model, messages, a decodable
image), and answers with a simple element-reading agent — or with scripted replies and
injected faults to exercise the client's error paths: HTTP 5xx and 429 (one-off or until
cleared), delays (per reply or a latency on every completion), malformed text, and an outage
(``go_down``: it stops listening and drops the connections it holds, so clients see refused and
reset connections; ``come_back`` listens again on the same port). Every completion reports
``usage`` and the time it spent in an ``x-server-time-ms`` header. Binds to 127.0.0.1.
"""

from __future__ import annotations

import base64
import json
import re
import socket
import threading
import time
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

_ELEMENT = re.compile(r"^\[(\d+)\] (\S+) '(.*)' grid=\((\d+), (\d+), (\d+), (\d+)\)(.*)$")
STOP = {"the", "a", "an", "to", "on", "off", "and", "of", "in", "for", "my", "turn", "set", "please", "it", "is"}


def keyword_agent(messages: list[dict[str, Any]]) -> str:
    """Tap the element whose label shares most words with the task; complete when none is new."""
    text = ""
    for m in messages:
        c = m.get("content")
        if isinstance(c, str):
            text += c + "\n"
        elif isinstance(c, list):
            text += "\n".join(p.get("text", "") for p in c if p.get("type") == "text") + "\n"
    task = re.search(r"Task: (.*)", text)
    words = {w for w in re.findall(r"[\w‑-]+", (task.group(1) if task else "").lower()) if w not in STOP}
    done = set(re.findall(r"'point': \((\d+), (\d+)\)", text))
    best, best_score = None, 0
    for line in text.splitlines():
        m = _ELEMENT.match(line.strip())
        if not m or not m.group(3):
            continue
        label = set(re.findall(r"[\w‑-]+", m.group(3).lower()))
        score = len(words & label)
        cx, cy = (int(m.group(4)) + int(m.group(6))) // 2, (int(m.group(5)) + int(m.group(7))) // 2
        if score > best_score and (str(cx), str(cy)) not in done:
            best, best_score = (cx, cy), score
    if best is None:
        return 'Nothing left to do.\n<tool_call>\n{"name": "mobile_use", "arguments": {"action": "terminate", "status": "success"}}\n</tool_call>'
    return (f"I will tap the matching element.\n<tool_call>\n{{\"name\": \"mobile_use\", \"arguments\": "
            f"{{\"action\": \"click\", \"coordinate\": [{best[0]}, {best[1]}]}}}}\n</tool_call>")


class StandInServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, host: str = "127.0.0.1", port: int = 0, model: str = "standin-vl",
                 responder: Any = keyword_agent, latency: float = 0.0):
        super().__init__((host, port), _Handler)
        self.model = model
        self.responder = responder
        self.latency = latency  # seconds every completion takes (a model thinking)
        self.fault: int | None = None  # an HTTP status every completion answers with, until cleared
        self.script: deque[Any] = deque()  # queued replies: str, ("status", code), ("delay", seconds, reply)
        self.requests: list[dict[str, Any]] = []
        self.images_seen = 0
        self.completions = 0
        self.down = False
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://{self.server_address[0]}:{self.server_address[1]}/v1"

    def start(self) -> "StandInServer":
        self._thread = threading.Thread(target=self.serve_forever, daemon=True, name="s2r-standin")
        self._thread.start()
        return self

    def stop(self) -> None:
        if not self.down:
            self.shutdown()
        self.down = True
        self.server_close()

    def go_down(self) -> None:
        """An outage: stop listening (new connections are refused) and drop every request on a
        kept-alive connection without a reply (the client sees the connection reset)."""
        self.down = True
        self.shutdown()
        self.server_close()

    def come_back(self) -> "StandInServer":
        """Listen again on the same address after :meth:`go_down`."""
        self.socket = socket.socket(self.address_family, self.socket_type)
        self.server_bind()
        self.server_activate()
        self.down = False
        return self.start()

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that gave up (timed out) while we slept breaks the pipe: expected, not logged."""

    def next_reply(self) -> Any:
        with self._lock:
            self.completions += 1
            return self.script.popleft() if self.script else None


class _Handler(BaseHTTPRequestHandler):
    server: StandInServer  # type: ignore[assignment]
    protocol_version = "HTTP/1.1"

    def log_message(self, *a: Any) -> None:
        pass

    def _json(self, code: int, obj: Any, headers: dict[str, str] | None = None) -> None:
        body = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:  # noqa: N802
        if self.server.down:
            return self._drop()
        if self.path.rstrip("/") == "/v1/models":
            return self._json(200, {"object": "list", "data": [{"id": self.server.model, "object": "model"}]})
        self._json(404, {"error": {"message": "not found"}})

    def _drop(self) -> None:
        """No reply at all: the connection is closed under the client (as a dying server does)."""
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def do_POST(self) -> None:  # noqa: N802
        t0 = time.perf_counter()
        if self.server.down:
            return self._drop()
        if self.path.rstrip("/") != "/v1/chat/completions":
            return self._json(404, {"error": {"message": "not found"}})
        try:
            req = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
        except ValueError:
            return self._json(400, {"error": {"message": "invalid JSON"}})
        if req.get("model") != self.server.model:
            return self._json(404, {"error": {"message": f"The model `{req.get('model')}` does not exist."}})
        msgs = req.get("messages")
        if not isinstance(msgs, list) or not msgs:
            return self._json(400, {"error": {"message": "messages must be a non-empty list"}})
        images = 0
        for m in msgs:
            for part in m.get("content") if isinstance(m.get("content"), list) else []:
                if part.get("type") == "image_url":
                    url = part["image_url"]["url"]
                    head, _, data = url.partition(",")
                    raw = base64.b64decode(data, validate=True)
                    if not (raw.startswith(b"\xff\xd8") or raw.startswith(b"\x89PNG")):
                        return self._json(400, {"error": {"message": "image is not JPEG or PNG"}})
                    images += 1
        with self.server._lock:
            self.server.images_seen += images
            self.server.requests.append(req)
        reply: Any = self.server.next_reply()
        if self.server.fault is not None and not isinstance(reply, tuple):
            reply = ("status", self.server.fault)
        if isinstance(reply, tuple) and reply[0] == "status":
            return self._json(reply[1], {"error": {"message": "injected fault"}},
                              {"Retry-After": "0"} if reply[1] == 429 else None)
        if self.server.latency:
            time.sleep(self.server.latency)
        if isinstance(reply, tuple) and reply[0] == "delay":
            time.sleep(reply[1])
            reply = reply[2]
        if self.server.down:  # went down while "thinking"
            return self._drop()
        text = reply if isinstance(reply, str) else self.server.responder(msgs)
        prompt_tokens = sum(len(_text_of(m).split()) for m in msgs) + 256 * images
        completion_tokens = len(text.split())
        self._json(200, {
            "id": f"chatcmpl-{len(self.server.requests)}", "object": "chat.completion", "created": int(time.time()),
            "model": self.server.model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                      "total_tokens": prompt_tokens + completion_tokens},
        }, {"x-server-time-ms": f"{(time.perf_counter() - t0) * 1e3:.2f}"})


def _text_of(m: dict[str, Any]) -> str:
    c = m.get("content")
    if isinstance(c, str):
        return c
    return " ".join(p.get("text", "") for p in c or [] if isinstance(p, dict))
