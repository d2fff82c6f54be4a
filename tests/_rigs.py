"""What the rigs in ``conftest.py`` are made of: a private adb server and virtual phones on it.

Kept apart from ``conftest.py`` only so tests can name the :class:`AdbHost` type and call
:func:`free_port`; the fixtures themselves are in ``conftest.py``.
"""

from __future__ import annotations

import os
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import adbutils

ADB = adbutils.adb_path()


def free_port() -> int:
    """A free TCP port on 127.0.0.1 (bound then released: the caller binds it next)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class AdbHost:
    """A private adb server: ``adb(...)`` runs the CLI against it only; ``client()`` speaks to it."""

    port: int
    env: dict[str, str]
    saved: dict[str, str | None] = field(default_factory=dict)
    phones: list[Any] = field(default_factory=list)

    def adb(self, *args: str, input: bytes | None = None, timeout: float = 60) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run([ADB, "-P", str(self.port), *args], env=self.env, input=input,
                              stdin=None if input is not None else subprocess.DEVNULL,
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

    def start_phone(self, pool: Any = None, **knobs: Any) -> Any:
        """A virtual phone with its uiautomator2 server, connected here; stopped with the server."""
        from device.virtual.phone import VirtualPhone

        from transfer.device_backends import ensure_u2server

        phone = VirtualPhone(knobs, pool=pool).start()
        self.phones.append(phone)
        ensure_u2server(phone)
        self.client().connect(phone.serial, timeout=10)
        self.wait_state(phone.serial, "device")
        return phone

    def stop_phone(self, phone: Any) -> None:
        try:
            self.client().disconnect(phone.serial)
        except Exception:  # noqa: BLE001 - already gone
            pass
        phone.stop()
        if phone in self.phones:
            self.phones.remove(phone)


def start_adb_server(home: Path) -> AdbHost:
    """Start a private adb server with its own HOME and point ``ADB_SERVER_SOCKET`` at it."""
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
    """Stop the phones it started, kill only this server, and put the environment back."""
    for phone in list(host.phones):
        try:
            host.stop_phone(phone)
        except Exception:  # noqa: BLE001 - best effort at the end of a module
            pass
    host.adb("kill-server", timeout=30)
    for k, v in host.saved.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


class RigPhone:
    """A virtual phone on a private adb server, driven through adbutils' ``shell2`` (status, out, err)."""

    def __init__(self, host: AdbHost, pool: Any, **knobs: Any) -> None:
        self.host = host
        self.phone = host.start_phone(pool, input_latency_ms=0, animation_ms=0, **knobs)
        self.serial = self.phone.serial
        self.dev = host.client().device(self.phone.serial)

    def sh(self, cmd: str | list[str]) -> tuple[int, str, str]:
        r = self.dev.shell2(cmd, v2=True)
        return r.returncode, r.stdout, r.stderr

    def out(self, cmd: str) -> str:
        rc, out, err = self.sh(cmd)
        assert rc == 0, (cmd, rc, out, err)
        return out

    def world(self) -> dict[str, Any]:
        return self.phone.state_data()["world"]["settings"]

    def stop(self) -> None:
        self.host.stop_phone(self.phone)
