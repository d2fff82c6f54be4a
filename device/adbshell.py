"""One phone's shell over the adb host protocol: argv in, (status, stdout, stderr) out.

Why a wrapper around ``adbutils.AdbDevice.shell2``:

* **Quoting is not optional.** Every command is an argv list joined with ``shlex.quote``,
  so a value (a contact name, a file name, policy text) is one word for the phone's ``sh``
  whatever it contains. A raw string is accepted only for constant command lines written
  in this package (``Shell.raw``), never for data.
* **A lost phone is not a failed command.** A socket error, a timeout or an ``AdbError``
  is checked against the adb server: if the device is gone (absent, offline,
  unauthorized) it becomes :class:`DeviceLost` — an infrastructure error the runner
  retries on another phone — otherwise :class:`DeviceCommandError`.
* Shell v2 (exit status and stderr apart) is used when the device advertises it; old
  devices get v1 with adbutils' ``echo X4EXIT:$?`` trick.
"""

from __future__ import annotations

import shlex
import socket
import time
from collections.abc import Sequence

import adbutils
from pydantic import BaseModel

__all__ = ["Shell", "ShellResult", "DeviceLost", "DeviceCommandError", "quote_argv"]


class DeviceLost(RuntimeError):
    """The phone disappeared (unplugged, adbd died, TCP link dropped): an infrastructure error."""


class DeviceCommandError(RuntimeError):
    """A command could not be run although the phone is still attached."""


class ShellResult(BaseModel):
    rc: int | None = None
    out: str = ""
    err: str = ""

    @property
    def ok(self) -> bool:
        return self.rc == 0

    @property
    def text(self) -> str:
        """stdout and stderr together (v1 merges them anyway)."""
        return self.out + (("\n" + self.err) if self.err and self.out else self.err)


def quote_argv(argv: Sequence[str]) -> str:
    """argv → one ``sh`` command line; each element is exactly one word on the phone."""
    if isinstance(argv, str):
        raise TypeError("pass an argv list, not a string (use Shell.raw for constant command lines)")
    return " ".join(shlex.quote(str(a)) for a in argv)


_LOST_STATES = {None, "offline", "unauthorized", "absent", "no permissions", "connecting", "authorizing"}


class Shell:
    """Commands on one phone. Thread-safe: every call opens its own adb stream."""

    def __init__(self, client: adbutils.AdbClient, serial: str, *, timeout: float = 30.0):
        self.client = client
        self.serial = serial
        self.timeout = timeout
        self.device = client.device(serial)
        self._v2: bool | None = None
        self.calls = 0

    # ------------------------------------------------------------------ state
    def state(self) -> str | None:
        """The adb server's view of this serial: ``device``, ``offline``, ... or None (absent)."""
        try:
            for info in self.client.list():
                if info.serial == self.serial:
                    return info.state
            return None
        except Exception:  # noqa: BLE001 - the adb server itself is unreachable
            return None

    def alive(self) -> bool:
        return self.state() == "device"

    def _classify(self, e: BaseException, what: str) -> Exception:
        st = self.state()
        if st in _LOST_STATES or st != "device":
            return DeviceLost(f"{self.serial} is {st or 'absent'} ({what}: {type(e).__name__}: {e})"[:500])
        return DeviceCommandError(f"{what}: {type(e).__name__}: {e}"[:500])

    def _use_v2(self) -> bool:
        if self._v2 is None:
            try:
                self._v2 = "shell_v2" in set(self.device.get_features().split(","))
            except Exception as e:  # noqa: BLE001
                raise self._classify(e, "features") from e
        return self._v2

    # ------------------------------------------------------------------ running
    def run(self, argv: Sequence[str], *, timeout: float | None = None) -> ShellResult:
        """Run an argv (quoted word by word) and return status, stdout and stderr."""
        return self._run(quote_argv(argv), timeout)

    def raw(self, line: str, *, timeout: float | None = None) -> ShellResult:
        """Run a constant command line written in this package (never interpolate data into it)."""
        return self._run(line, timeout)

    def _run(self, line: str, timeout: float | None) -> ShellResult:
        self.calls += 1
        try:
            r = self.device.shell2(line, timeout=timeout or self.timeout, v2=self._use_v2())
        except (adbutils.AdbError, OSError, socket.timeout, EOFError) as e:
            raise self._classify(e, line[:80]) from e
        return ShellResult(rc=r.returncode, out=r.stdout if self._v2 else r.output, err=r.stderr if self._v2 else "")

    def out(self, argv: Sequence[str], *, timeout: float | None = None) -> str:
        """stdout of a command (status ignored: many Android tools exit 0 on error anyway)."""
        return self.run(argv, timeout=timeout).out

    def exec_out(self, argv: Sequence[str], *, timeout: float | None = None) -> bytes:
        """Binary-clean stdout (``exec:``, no PTY, no CRLF translation) — for screencap."""
        self.calls += 1
        try:
            conn = self.device.open_transport(timeout=timeout or self.timeout)
            try:
                conn.send_command("exec:" + quote_argv(argv))
                conn.check_okay()
                data = conn.read_until_close(encoding=None)
            finally:
                conn.close()
        except (adbutils.AdbError, OSError, socket.timeout, EOFError) as e:
            raise self._classify(e, "exec-out") from e
        assert isinstance(data, bytes)
        return data

    def getprop(self, key: str) -> str:
        return self.out(["getprop", key]).strip()

    def wait_state(self, want: str = "device", timeout: float = 10.0) -> bool:
        t0 = time.monotonic()
        while time.monotonic() - t0 < timeout:
            if self.state() == want:
                return True
            time.sleep(0.2)
        return False
