"""Helpers for tests that start real processes and servers (not a test module: tests import it,
never each other).

* ``/proc`` readers: a process tree, the TCP listeners it holds, whether processes are gone;
* ``free_port()``: a free port on 127.0.0.1;
* :class:`HeldModel`: the stand-in model server (real HTTP on 127.0.0.1) whose answers the test
  can hold back, so that an episode is certainly in flight while the test acts on its host
  (an episode cannot end before the policy answers its first step).
"""

from __future__ import annotations

import ipaddress
import os
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any


def free_port() -> int:
    """A port free on 127.0.0.1 now (the OS picks it)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _stat(pid: int) -> tuple[str, str, int, int] | None:
    """(name, state, parent pid, start time) of ``pid`` from /proc/PID/stat, or None if gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    name, rest = stat[stat.index("(") + 1:stat.rindex(")")], stat[stat.rindex(")") + 2:].split()
    return name, rest[0], int(rest[1]), int(rest[19])


def tree(root: int) -> dict[int, str]:
    """``root`` and its descendants (by parent pid, whatever their session): pid -> name."""
    kids: dict[int, list[int]] = {}
    names: dict[int, str] = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            got = _stat(int(d.name))
            if got is not None:
                names[int(d.name)] = got[0]
                kids.setdefault(got[2], []).append(int(d.name))
    out, todo = {}, [root]
    while todo:
        pid = todo.pop()
        out[pid] = names.get(pid, "?")
        todo += kids.get(pid, [])
    return out


def snapshot(root: int) -> dict[int, tuple[str, int]]:
    """``root``'s tree as pid -> (name, start time): enough to tell the same processes later,
    after they are re-parented (a process whose parent dies moves to init and out of any tree)."""
    out: dict[int, tuple[str, int]] = {}
    for pid in tree(root):
        got = _stat(pid)
        if got is not None:
            out[pid] = (got[0], got[3])
    return out


def still_running(snap: dict[int, tuple[str, int]]) -> dict[int, str]:
    """The processes of ``snap`` that still run (a zombie has ended; a reused pid is another process)."""
    out = {}
    for pid, (name, start) in snap.items():
        got = _stat(pid)
        if got is not None and got[3] == start and got[1] not in ("Z", "X"):
            out[pid] = name
    return out


def wait_gone(snap: dict[int, tuple[str, int]], timeout: float = 60.0) -> dict[int, str]:
    """Wait (a failure guard, not a speed check) until none of ``snap`` runs; what still runs."""
    deadline = time.monotonic() + timeout
    while still_running(snap) and time.monotonic() < deadline:
        time.sleep(0.2)
    return still_running(snap)


def kill_all(snap: dict[int, tuple[str, int]]) -> None:
    """SIGKILL whatever of ``snap`` still runs (a test's last cleanup)."""
    import signal

    for pid in still_running(snap):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def listeners(root: int | None = None) -> list[tuple[str, str]]:
    """(process name, address) of every listening TCP socket of ``root``'s tree (this process by
    default), from /proc/net/tcp{,6}."""
    listen: dict[str, str] = {}
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            f = line.split()
            if f[3] == "0A":  # TCP_LISTEN
                raw = bytes.fromhex(f[1].split(":")[0])
                # the kernel prints each 32-bit word in host (little-endian) order
                ip = b"".join(raw[i:i + 4][::-1] for i in range(0, len(raw), 4))
                listen[f[9]] = str(ipaddress.ip_address(ip))
    got = []
    for pid, name in tree(os.getpid() if root is None else root).items():
        try:
            fds = list(Path(f"/proc/{pid}/fd").iterdir())
        except OSError:
            continue
        for fd in fds:
            try:
                link = os.readlink(fd)
            except OSError:
                continue
            if link.startswith("socket:[") and link[8:-1] in listen:
                got.append((name, listen[link[8:-1]]))
    return got


def loopback(ip: str) -> bool:
    a = ipaddress.ip_address(ip)
    return a.is_loopback or bool(getattr(a, "ipv4_mapped", None) and a.ipv4_mapped.is_loopback)


class HeldModel:
    """The stand-in model server whose answers to episodes wait while the test holds it.

    Preflight probes are answered at once (a run checks its policy before any episode); every
    other completion waits until :meth:`release`, so an episode that asked is in flight until
    then, whatever the machine's speed. Use :attr:`spec` as a ``--policy``."""

    PROBE = "reply with one short sentence"  # the preflight probe's task (transfer.policies.preflight)

    def __init__(self) -> None:
        from transfer.policies.standin import StandInServer, keyword_agent

        self._answer = keyword_agent
        self._open = threading.Event()
        self._open.set()
        self._lock = threading.Lock()
        self.waiting = 0  # completions held back now
        self.server = StandInServer(responder=self._respond).start()

    @property
    def spec(self) -> str:
        # a long client timeout and no retries: a held request is waited for, never sent twice
        return f"openai:{self.server.url}#{self.server.model}?timeout=600&retries=0"

    def _respond(self, messages: list[dict[str, Any]]) -> str:
        text = " ".join(p.get("text", "") for m in messages if isinstance(m.get("content"), list)
                        for p in m["content"] if isinstance(p, dict))
        if self.PROBE not in text:
            with self._lock:
                self.waiting += 1
            try:
                self._open.wait(600)
            finally:
                with self._lock:
                    self.waiting -= 1
        return self._answer(messages)

    @property
    def held(self) -> bool:
        return not self._open.is_set()

    def hold(self) -> None:
        self._open.clear()

    def release(self) -> None:
        self._open.set()

    def wait_waiting(self, n: int, alive: Callable[[], bool], timeout: float = 180.0) -> None:
        """Wait until ``n`` completions are held (``n`` episodes in flight), while ``alive()``."""
        deadline = time.monotonic() + timeout
        while self.waiting < n and alive() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert self.waiting >= n, f"{self.waiting} of {n} episodes reached the model"

    def close(self) -> None:
        self.release()
        self.server.stop()
