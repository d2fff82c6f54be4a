"""A private adb server for tests: the real adb binary from adbutils' wheel on a free port.

Never the shared default server (5037), which tests neither use nor kill; everything binds
to 127.0.0.1 and the server is killed when the test module ends.
"""

from __future__ import annotations

import os
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import adbutils

ADB = adbutils.adb_path()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class AdbHost:
    """A private adb server: ``adb(...)`` runs the CLI against it only."""

    port: int
    env: dict[str, str]

    def adb(self, *args: str, input: bytes | None = None, timeout: float = 60) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run([ADB, "-P", str(self.port), *args], env=self.env, input=input,
                              stdin=None if input is not None else subprocess.DEVNULL,
                              capture_output=True, timeout=timeout)

    def client(self) -> "adbutils.AdbClient":
        return adbutils.AdbClient(host="127.0.0.1", port=self.port, socket_timeout=30)

    def state(self, serial: str) -> str | None:
        for line in self.adb("devices").stdout.decode().splitlines()[1:]:
            parts = line.split()
            if len(parts) >= 2 and parts[0] == serial:
                return parts[1]
        return None

    def wait_state(self, serial: str, want: str, timeout: float = 20) -> float:
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < timeout:
            if self.state(serial) == want:
                return time.perf_counter() - t0
            time.sleep(0.02)
        raise AssertionError(f"{serial} never became {want!r} (now {self.state(serial)!r})")


def private_adb_server(home: Path) -> Iterator[AdbHost]:
    """Start a private adb server with its own HOME; yield it; kill only it."""
    env = dict(os.environ, HOME=str(home), ANDROID_USER_HOME=str(home / ".android"),
               ANDROID_ADB_SERVER_PORT=str(free_port()))
    env.pop("ADB_SERVER_SOCKET", None)
    env.pop("ANDROID_SERIAL", None)
    h = AdbHost(int(env["ANDROID_ADB_SERVER_PORT"]), env)
    r = h.adb("start-server", timeout=60)
    assert r.returncode == 0, r.stderr
    try:
        yield h
    finally:
        h.adb("kill-server", timeout=30)  # our private server only
