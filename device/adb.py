"""The adb server: the one shared by every phone on this host.

We use the adb binary bundled in adbutils' wheel (no system adb needed) and never kill
a running server: ``kill-server`` drops every other phone attached to it.
"""

from __future__ import annotations

import os
import subprocess

import adbutils


def adb_path() -> str:
    return adbutils.adb_path()


def server_addr() -> tuple[str, int]:
    """Address of the adb server, honouring ``ADB_SERVER_SOCKET=tcp:HOST:PORT`` like adb does."""
    sock = os.environ.get("ADB_SERVER_SOCKET", "")
    if sock.startswith("tcp:"):
        parts = sock.split(":")
        if len(parts) == 3:
            return parts[1] or "127.0.0.1", int(parts[2])
        return "127.0.0.1", int(parts[1])
    return "127.0.0.1", int(os.environ.get("ANDROID_ADB_SERVER_PORT", "5037"))


def client() -> adbutils.AdbClient:
    host, port = server_addr()
    return adbutils.AdbClient(host=host, port=port, socket_timeout=30)


def ensure_server(timeout: float = 20.0) -> int:
    """Start the adb server if none is running; return its protocol version."""
    c = client()
    try:
        return int(c.server_version())
    except Exception:  # noqa: BLE001 - not running yet
        pass
    host, port = server_addr()
    subprocess.run([adb_path(), "-P", str(port), "start-server"], capture_output=True, timeout=timeout, check=False)
    return int(client().server_version())
