"""A local stand-in for a VLM server that speaks the OpenAI chat-completions HTTP API.

We cannot run a GPU model here, so tests and demos talk to this server through the real
``openai`` client. It validates requests as a server would (model, messages, a decodable
image), and answers with a simple element-reading agent — or with scripted replies and
injected faults (HTTP 500s, delays, malformed text) to exercise the client's error paths.
Binds to 127.0.0.1.
"""

from __future__ import annotations

import base64
import json
import re
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
                 responder: Any = keyword_agent):
        super().__init__((host, port), _Handler)
        self.model = model
        self.responder = responder
        self.script: deque[Any] = deque()  # queued replies: str, ("status", code), ("delay", seconds, reply)
        self.requests: list[dict[str, Any]] = []
        self.images_seen = 0

    @property
    def url(self) -> str:
        return f"http://{self.server_address[0]}:{self.server_address[1]}/v1"

    def start(self) -> "StandInServer":
        threading.Thread(target=self.serve_forever, daemon=True, name="s2r-standin").start()
        return self

    def stop(self) -> None:
        self.shutdown()
        self.server_close()


class _Handler(BaseHTTPRequestHandler):
    server: StandInServer  # type: ignore[assignment]
    protocol_version = "HTTP/1.1"

    def log_message(self, *a: Any) -> None:
        pass

    def _json(self, code: int, obj: Any) -> None:
        body = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:  # noqa: N802
        if self.path.rstrip("/") == "/v1/models":
            return self._json(200, {"object": "list", "data": [{"id": self.server.model, "object": "model"}]})
        self._json(404, {"error": {"message": "not found"}})

    def do_POST(self) -> None:  # noqa: N802
        if self.path.rstrip("/") != "/v1/chat/completions":
            return self._json(404, {"error": {"message": "not found"}})
        try:
            req = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
        except ValueError:
            return self._json(400, {"error": {"message": "invalid JSON"}})
        if req.get("model") != self.server.model:
            return self._json(404, {"error": {"message": f"model {req.get('model')!r} does not exist"}})
        msgs = req.get("messages")
        if not isinstance(msgs, list) or not msgs:
            return self._json(400, {"error": {"message": "messages must be a non-empty list"}})
        for m in msgs:
            for part in m.get("content") if isinstance(m.get("content"), list) else []:
                if part.get("type") == "image_url":
                    url = part["image_url"]["url"]
                    head, _, data = url.partition(",")
                    raw = base64.b64decode(data, validate=True)
                    if not (raw.startswith(b"\xff\xd8") or raw.startswith(b"\x89PNG")):
                        return self._json(400, {"error": {"message": "image is not JPEG or PNG"}})
                    self.server.images_seen += 1
        self.server.requests.append(req)
        reply: Any = self.server.script.popleft() if self.server.script else None
        if isinstance(reply, tuple) and reply[0] == "status":
            return self._json(reply[1], {"error": {"message": "injected fault"}})
        if isinstance(reply, tuple) and reply[0] == "delay":
            time.sleep(reply[1])
            reply = reply[2]
        text = reply if isinstance(reply, str) else self.server.responder(msgs)
        self._json(200, {
            "id": f"chatcmpl-{len(self.server.requests)}", "object": "chat.completion", "created": int(time.time()),
            "model": self.server.model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 0, "completion_tokens": len(text.split()), "total_tokens": len(text.split())},
        })
