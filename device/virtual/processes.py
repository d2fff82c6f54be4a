"""The phone's table of long-running processes the shell user started: uiautomator2's
``app_process``, and every background job of a shell (``screenrecord FILE &``).

Why its own module: ``ps``, ``kill``, ``pidof``, ``uiautomator dump`` (which fails while another
process holds UiAutomation) and ``app_process`` all read or change the same table.

A background job is a process of the phone as on a real one: mksh forks for ``cmd &`` and the
child execs ``cmd`` (bionic/toybox ``ps -A`` and ``pidof`` then list it under its argv[0]'s base
name — toybox toys/posix/ps.c ``NAME``, toys/lsb/pidof.c — owned by ``shell``, its pid the ``$!``
the shell printed); a job of several commands is a forked subshell, listed as ``sh``. It stays in
the table while it runs, whether or not the shell that started it is still there (adbd's shell
protocol hangs up only the shell it started: packages/modules/adb daemon/shell_service.cpp), and
a signal sent to its pid reaches the job (``kill -INT`` stops a recording, ``kill -0`` tests it).
Not modelled: the reparenting to init (``PPID`` stays the starting shell's pid) and the
commands a subshell job forks (only the subshell is listed).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .phone_part import attached
from .sh_io import CommandContext, CommandHandler, Job

__all__ = ["DeviceProcess", "process_table", "track_jobs", "uiautomation_holder"]

#: Commands that keep their own entry in the table (uiautomator2's server: ``app_process``).
SELF_TRACKED = frozenset({"app_process"})


@dataclass
class DeviceProcess:
    """A long-running process a shell command started (uiautomator2's ``app_process``, a
    background job).

    ``stop`` ends it as a signal would; ``holds_uiautomation`` marks a process connected to
    ``UiAutomation`` (only one may be: UiAutomationManager.registerUiTestAutomationServiceLocked).
    ``job``: the shell job it is, whose :meth:`~device.virtual.sh_io.Job.kill` takes its signals.
    """

    pid: int
    ppid: int
    name: str
    user: str = "shell"
    holds_uiautomation: bool = False
    stop: asyncio.Event = field(default_factory=asyncio.Event)
    loop: asyncio.AbstractEventLoop | None = None
    signal: int = 0
    args: str = ""
    job: Job | None = None

    def kill(self, signum: int = 15) -> None:
        if self.job is not None:
            self.job.kill(signum)
            return
        self.signal = signum
        if self.loop is not None and self.loop.is_running():
            self.loop.call_soon_threadsafe(self.stop.set)
        else:
            self.stop.set()


def process_table(phone: Any) -> dict[int, DeviceProcess]:
    """The phone's shell-started processes by pid (shared by ``ps``, ``kill``, ``uiautomator``)."""
    return attached(phone, "_s2r_processes", dict)


def uiautomation_holder(phone: Any) -> DeviceProcess | None:
    """The process holding UiAutomation now, if any."""
    return next((p for p in process_table(phone).values() if p.holds_uiautomation), None)


def adopt_job(phone: Any, job: Job, ctx: CommandContext) -> DeviceProcess:
    """Enter a background job in the phone's table (until it ends), named for the command it
    execs (``ctx``: its first command of the phone), or ``sh`` for a subshell job."""
    table = process_table(phone)
    if job.simple:
        name, args = ctx.argv[0].rsplit("/", 1)[-1], " ".join(ctx.argv)
    else:
        name, args = "sh", ctx.shell.shell_name
    proc = DeviceProcess(pid=job.pid, ppid=ctx.shell.pid, name=name, args=args, job=job,
                         loop=asyncio.get_running_loop())
    table[job.pid] = proc
    job.process = proc

    def ended(_task: Any) -> None:
        if table.get(job.pid) is proc:
            del table[job.pid]

    if job.task is None or job.task.done():
        ended(None)
    else:
        job.task.add_done_callback(ended)
    return proc


def track_jobs(phone: Any, commands: Mapping[str, CommandHandler]) -> dict[str, CommandHandler]:
    """``commands`` such that each one run as (the first command of the phone in) a background
    job enters that job in :func:`process_table` (see the module docstring)."""

    def tracked(handler: CommandHandler) -> CommandHandler:
        async def run(ctx: CommandContext) -> int:
            job = ctx.job
            if job is not None and job.process is None and not job.done:
                adopt_job(phone, job, ctx)
            return await handler(ctx)

        run.__wrapped__ = handler  # type: ignore[attr-defined]
        return run

    return {name: h if name in SELF_TRACKED else tracked(h) for name, h in commands.items()}
