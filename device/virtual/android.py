"""The adbd backend of the virtual phone: Android's shell, command by command.

:class:`AndroidBackend` plugs into :class:`device.virtual.adbd.AdbdServer`. Each ``adb shell``
line is parsed by :class:`device.virtual.sh_interp.ShellInterpreter` (``;``, ``&&``, ``||``,
``|``, ``$?``, quoting, redirections) and every simple command is dispatched to a Python
handler from the ``android_*`` modules — nothing is ever executed on the host, and argument
text is data. Unknown commands answer exactly as Android's ``sh`` does
(``/system/bin/sh: X: inaccessible or not found``, status 127).

Commands (by module):

* :mod:`.android_input` — ``input`` (tap, swipe, keyevent, text, draganddrop), ``screencap``,
  ``uiautomator dump``
* :mod:`.android_dumpsys` — ``dumpsys`` (window, activity, display, input, power, alarm, battery,
  input_method, package), ``wm size|density``, ``getprop``, ``setprop``
* :mod:`.android_settings` — ``settings get|put|delete|list|reset``, ``svc``
* :mod:`.android_content` — ``content query|insert|update|delete``
* :mod:`.android_am` — ``am`` (start, force-stop, broadcast …), ``pm``, ``monkey``, ``ime``, ``cmd``,
  ``app_process`` (uiautomator2's server)
* :mod:`.android_files` — ``ls``, ``stat``, ``mkdir``, ``mv``, ``cp``, ``rm``, ``rmdir``, ``find``,
  ``md5sum``/``sha1sum``/``sha256sum``, ``touch``, ``chmod``, ``du``, ``ln``, ``readlink`` …
* :mod:`.android_toolbox` — ``id``, ``whoami``, ``getenforce``, ``uname``, ``date``, ``ps``, ``pidof``,
  ``grep``, ``head``, ``tail``, ``wc``, ``cut``, ``sort``, ``uniq``, ``tr``, ``seq``, ``printf``, ``sh``,
  ``toybox``, ``which``, ``env``, ``test``/``[``, ``ip``, ``ifconfig``, ``logcat``, ``cat``, ``sleep``

The flaky-transport knob is applied here: :meth:`AndroidBackend.service_handler` sees every
stream the host opens and, when a drop is due, tears the TCP connection down.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from collections import deque
from typing import TYPE_CHECKING, Any

from .adbd_backend import BaseBackend
from .adbd_shell import ShellSession
from .adbd_wire import ConnectionHandler
from .sh_interp import ShellInterpreter
from .sh_io import CommandHandler

if TYPE_CHECKING:
    from .phone import VirtualPhone

__all__ = ["AndroidBackend"]

log = logging.getLogger(__name__)


class AndroidBackend(BaseBackend):
    """Android's shell and services for one :class:`~device.virtual.phone.VirtualPhone`."""

    def __init__(self, phone: "VirtualPhone") -> None:
        super().__init__(fs=phone.fs)
        self.phone = phone
        from .android_am import am_commands
        from .android_appops import appops_commands
        from .android_content import content_commands
        from .android_dumpsys import system_commands
        from .android_files import file_commands
        from .android_input import input_commands
        from .android_media import media_commands
        from .android_settings import settings_commands
        from .android_toolbox import toolbox_commands

        self.commands: dict[str, CommandHandler] = {}
        for table in (toolbox_commands(phone), file_commands(phone), system_commands(phone),
                      settings_commands(phone), content_commands(phone), am_commands(phone), input_commands(phone),
                      appops_commands(phone)):
            self.commands.update(table)
        self.commands.update(media_commands(phone, self.commands))  # screenrecord, exec, am's log lines
        #: (command line, seconds) of the last shell streams, measured inside the server
        self.shell_times: deque[tuple[str, float]] = deque(maxlen=4096)
        #: every shell command line the phone receives, in order, while this is a list (None: not recorded).
        #: Unbounded, unlike :attr:`shell_times`: a test sets it to ``[]`` to audit everything a run sent.
        self.command_log: list[str] | None = None
        self.opens = 0
        self.drops = 0
        self._flaky_rng = random.Random(f"s2r-flaky:{phone.knobs.seed}")

    # --- identity (the CNXN banner: ``adb devices -l`` prints these)
    def properties(self) -> dict[str, str]:
        props = self.phone.properties()
        return {k: props[k] for k in ("ro.product.name", "ro.product.model", "ro.product.device")}

    # --- shell
    def new_shell(self) -> ShellInterpreter:
        """A fresh ``sh``, as every ``adb shell`` command gets its own process."""
        return ShellInterpreter(self.commands, fs=self.fs, glob=self.fs.glob)

    async def run_shell(self, command: str, session: ShellSession) -> int:
        return await self.run_line(self.new_shell(), command, session)

    async def run_line(self, sh: ShellInterpreter, line: str, session: ShellSession) -> int:
        """One command line in ``sh``: a fresh shell for ``adb shell CMD``, the session's own for
        each line of an interactive ``adb shell`` (:func:`~device.virtual.adbd_shell.interactive_shell`).
        Recorded in :attr:`command_log` and :attr:`shell_times`; files it changed are synced to the
        sim world afterwards."""
        if self.command_log is not None:
            self.command_log.append(line)
        t0 = time.perf_counter()
        gen = self.phone.fs.generation
        try:
            return await sh.run_in_session(line, session)
        finally:
            self.shell_times.append((line, time.perf_counter() - t0))
            if self.phone.fs.generation != gen:
                with contextlib.suppress(Exception):
                    await asyncio.shield(self.phone.acall(self.phone.sync_files))

    # --- transport faults
    def service_handler(self, service: str) -> ConnectionHandler | None:
        """Count the host's streams; drop the TCP connection when the flaky knob says so."""
        self.opens += 1
        flaky = self.phone.knobs.flaky
        if not flaky.enabled:
            return None
        drop = bool(flaky.drop_every_n) and self.opens % flaky.drop_every_n == 0
        if not drop and flaky.drop_probability > 0:
            drop = self._flaky_rng.random() < flaky.drop_probability
        if drop:
            self.drops += 1
            log.info("flaky transport: dropping the adb connection at stream %d (%s)", self.opens, service[:40])
            asyncio.get_running_loop().call_soon(self._drop_connections)
        return None

    def _drop_connections(self) -> None:
        server = self.phone.adbd.server
        if server is None:
            return
        for conn in list(server.connections):
            conn.teardown()

    def stats(self) -> dict[str, Any]:
        return {"streams": self.opens, "drops": self.drops, "shell_commands": len(self.shell_times)}
