"""``s2r bench env``'s server side: an ``s2r env serve`` in a subprocess, and what it weighs.

The server is measured as it is deployed — its own process, the trainer (here the bench) in
another — so its figures carry the wire, the JSON and the second Python process. What it
weighs is read from ``/proc`` for the server's process and every descendant (the Playwright
driver and Chromium's processes): RSS, and PSS (shared pages split among the processes that
share them, so the sum over a tree counts each page once).
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Self

from pydantic import BaseModel

from sim.bench import _cpu_s, _descendants, _pss_kb


class TreeMemory(BaseModel):
    """Memory of one process tree, in MB."""

    rss_mb: float
    pss_mb: float
    python_rss_mb: float  # the server's own process: what its sessions hold, without Chromium
    processes: int


def _rss_kb(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def tree_pids(pid: int) -> list[int]:
    """``pid`` and every process below it."""
    return [pid, *_descendants(pid)]


def tree_memory(pid: int) -> TreeMemory:
    """RSS and PSS of ``pid`` and its descendants (the server and its Chromium)."""
    pids = tree_pids(pid)
    return TreeMemory(rss_mb=round(sum(_rss_kb(p) for p in pids) / 1024, 1),
                      pss_mb=round(sum(_pss_kb(p) for p in pids) / 1024, 1),
                      python_rss_mb=round(_rss_kb(pid) / 1024, 1), processes=len(pids))


def settled_memory(pid: int, wait_s: float = 1.0) -> TreeMemory:
    """The tree's memory once in-flight work has drained: the lower of two reads ``wait_s`` apart
    (a read mid-step catches a screenshot being encoded or a frame being drawn)."""
    time.sleep(wait_s)
    a = tree_memory(pid)
    time.sleep(wait_s / 2)
    b = tree_memory(pid)
    return a if a.pss_mb <= b.pss_mb else b


def tree_cpu_s(pid: int) -> float:
    """User + system CPU seconds of ``pid`` and its descendants so far."""
    return _cpu_s(tree_pids(pid))


_URL = re.compile(r"serving on (http://\S+)")


class ServerProcess:
    """``s2r env serve`` on a free loopback port in a subprocess: ``with ServerProcess(pages=4) as
    srv: ... srv.url, srv.pid``. Stopped with Ctrl-C's signal (the server closes its browser),
    then killed if it does not stop."""

    def __init__(self, *, pages: int, max_live: int, max_sessions: int, image_format: str = "jpeg",
                 start_timeout_s: float = 90.0):
        self.args = [sys.executable, "-m", "s2r.cli", "env", "serve", "--host", "127.0.0.1", "--port", "0",
                     "--pages", str(pages), "--max-live", str(max_live), "--max-sessions", str(max_sessions),
                     "--image-format", image_format]
        self.start_timeout_s = start_timeout_s
        self.proc: subprocess.Popen[str] | None = None
        self.url = ""
        self._log = tempfile.TemporaryFile(mode="w+")  # noqa: SIM115 - the server's stderr; closed on exit

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def log_tail(self, n: int = 2000) -> str:
        self._log.flush()
        self._log.seek(0)
        return self._log.read()[-n:]

    def start(self) -> Self:
        env = {**os.environ, "S2R_ENV_LOG": os.environ.get("S2R_ENV_LOG", "warning"), "PYTHONUNBUFFERED": "1"}
        self.proc = subprocess.Popen(self.args, stdout=subprocess.PIPE, stderr=self._log, text=True, env=env)
        found: list[str] = []

        def read() -> None:
            assert self.proc is not None and self.proc.stdout is not None
            for line in self.proc.stdout:  # keeps draining after the URL so the pipe never fills
                m = _URL.search(line)
                if m and not found:
                    found.append(m.group(1))

        threading.Thread(target=read, name="s2r-bench-env-serve-stdout", daemon=True).start()
        deadline = time.monotonic() + self.start_timeout_s
        while not found:
            if self.proc.poll() is not None:
                raise RuntimeError(f"s2r env serve exited ({self.proc.returncode}):\n{self.log_tail()}")
            if time.monotonic() > deadline:
                self.stop()
                raise TimeoutError(f"s2r env serve did not start within {self.start_timeout_s:.0f} s:\n"
                                   f"{self.log_tail()}")
            time.sleep(0.05)
        self.url = found[0]
        return self

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGINT)
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
        self._log.close()


def stats(url: str) -> dict[str, Any]:
    """The server's ``/s2r/stats`` (sessions live and asleep, pages, connections)."""
    import json
    import urllib.request

    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback: never via a proxy
    with opener.open(f"{url}/s2r/stats", timeout=30) as r:
        return json.loads(r.read())
