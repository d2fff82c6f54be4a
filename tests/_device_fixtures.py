"""Shared plumbing for the device tests: a PRIVATE adb server and virtual phones on it.

Never the default server (5037): each test module starts its own ``adb`` server on a free
port with its own HOME, points ``ADB_SERVER_SOCKET`` at it (so ``device.adb.client()`` and
everything built on it use it), and kills only that server at the end.
"""

from __future__ import annotations

import os
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import adbutils

ADB = adbutils.adb_path()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class AdbHost:
    port: int
    env: dict[str, str]
    saved: dict[str, str | None]

    def adb(self, *args: str, timeout: float = 30) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run([ADB, "-P", str(self.port), *args], env=self.env, stdin=subprocess.DEVNULL,
                              capture_output=True, timeout=timeout)

    def client(self) -> adbutils.AdbClient:
        return adbutils.AdbClient(host="127.0.0.1", port=self.port, socket_timeout=30)

    def state(self, serial: str) -> str | None:
        for info in self.client().list():
            if info.serial == serial:
                return info.state
        return None

    def wait_state(self, serial: str, want: str, timeout: float = 20) -> float:
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < timeout:
            if self.state(serial) == want:
                return time.perf_counter() - t0
            time.sleep(0.05)
        raise AssertionError(f"{serial} never became {want!r} (now {self.state(serial)!r})")


def start_adb_server(home: Path) -> AdbHost:
    port = free_port()
    env = dict(os.environ, HOME=str(home), ANDROID_USER_HOME=str(home / ".android"),
               ANDROID_ADB_SERVER_PORT=str(port))
    env.pop("ADB_SERVER_SOCKET", None)
    env.pop("ANDROID_SERIAL", None)
    saved = {k: os.environ.get(k) for k in ("ADB_SERVER_SOCKET", "ANDROID_ADB_SERVER_PORT")}
    host = AdbHost(port, env, saved)
    r = host.adb("start-server", timeout=60)
    assert r.returncode == 0, r.stderr
    os.environ["ADB_SERVER_SOCKET"] = f"tcp:127.0.0.1:{port}"
    os.environ.pop("ANDROID_ADB_SERVER_PORT", None)
    return host


def stop_adb_server(host: AdbHost) -> None:
    host.adb("kill-server", timeout=30)  # our private server only
    for k, v in host.saved.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


def start_phone(host: AdbHost, pool: Any = None, **knobs: Any) -> Any:
    from device.virtual.phone import VirtualPhone

    from transfer.device_backends import ensure_u2server

    phone = VirtualPhone(knobs, pool=pool).start()
    ensure_u2server(phone)
    host.client().connect(phone.serial, timeout=10)
    host.wait_state(phone.serial, "device")
    return phone


def stop_phone(host: AdbHost, phone: Any) -> None:
    try:
        host.client().disconnect(phone.serial)
    except Exception:  # noqa: BLE001
        pass
    phone.stop()
