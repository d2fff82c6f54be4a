"""The small toybox commands an ``adb shell`` user expects: ``id``, ``date``, ``ps``, ``pidof``,
``grep``, ``head``, ``tail``, ``wc``, ``sh -c``, ``test``, ``ip``, ``logcat`` …

Why: scripts pipe dumps through ``grep`` (``dumpsys window | grep mCurrentFocus``), check
who they are (``id``, ``whoami``), read the clock (``date +%s``) and look for processes
(``pidof``, ``ps -A``). Output formats follow toybox on Android 14; the clock is the phone's
(sim) clock in UTC; processes are the phone's running apps with stable pids.
The text filters (``grep``, ``head``, ``sort`` …) are :mod:`.android_textutils`.
"""

from __future__ import annotations

import re
from datetime import datetime, timezone, tzinfo
from typing import TYPE_CHECKING

from .android_am import pid_of
from .sh_builtins import cmd_cat, cmd_sleep
from .sh_interp import ShellInterpreter
from .sh_io import CommandContext, CommandHandler, find_job

if TYPE_CHECKING:
    from .phone import VirtualPhone
from .android_textutils import TextFilters

__all__ = ["toolbox_commands", "TOYBOX"]


_ID = ("uid=2000(shell) gid=2000(shell) groups=2000(shell),1004(input),1007(log),1011(adb),1015(sdcard_rw),"
       "1028(sdcard_r),1078(ext_data_rw),1079(ext_obb_rw),3001(net_bt_admin),3002(net_bt),3003(inet),"
       "3006(net_bw_stats),3009(readproc),3011(uhid),3012(readtracefs) context=u:r:shell:s0")
_ROOT_ID = ("uid=0(root) gid=0(root) groups=0(root),1004(input),1007(log),1011(adb),1015(sdcard_rw),1028(sdcard_r),"
            "1078(ext_data_rw),1079(ext_obb_rw),3001(net_bt_admin),3002(net_bt),3003(inet),3006(net_bw_stats),"
            "3009(readproc),3011(uhid),3012(readtracefs) context=u:r:su:s0")
_SYSTEM_PROCS = [("root", 1, 0, "init"), ("root", 2, 0, "[kthreadd]"), ("logd", 301, 1, "logd"),
                 ("system", 318, 1, "servicemanager"), ("root", 412, 1, "zygote64"), ("root", 413, 1, "zygote"),
                 ("system", 1203, 412, "system_server"), ("shell", 1450, 1, "adbd"),
                 ("radio", 1611, 412, "com.android.phone"), ("u0_a110", 1702, 412, "com.android.systemui"),
                 ("u0_a112", 2101, 412, "com.android.providers.media.module")]

#: Commands ``toybox X`` dispatches (the rest of the phone's commands are separate binaries).
TOYBOX = {"cat", "chmod", "cp", "date", "du", "echo", "find", "grep", "head", "id", "ls", "md5sum", "mkdir", "mv",
          "pidof", "ps", "rm", "rmdir", "sha1sum", "sha256sum", "sleep", "stat", "tail", "touch", "uname", "wc",
          "whoami", "which", "env", "printenv", "realpath", "readlink", "basename", "dirname", "ln", "test",
          "true", "false", "printf", "cut", "sort", "uniq", "tr", "seq", "ifconfig", "getenforce"}


def _strftime(fmt: str, dt: datetime, zone: tzinfo = timezone.utc) -> str:
    """toybox ``date +FMT`` of the local wall time ``dt`` in ``zone`` (``%s`` is epoch seconds,
    ``%Z`` the zone's abbreviation — EST/EDT —, ``%z`` its offset)."""
    aware = dt if dt.tzinfo else dt.replace(tzinfo=zone)
    epoch = int(aware.timestamp())
    name = aware.tzname() or "UTC"
    off = aware.utcoffset()
    mins = int(off.total_seconds() // 60) if off is not None else 0
    out: list[str] = []
    i = 0
    while i < len(fmt):
        c = fmt[i]
        if c == "%" and i + 1 < len(fmt):
            k = fmt[i + 1]
            i += 2
            if k == "s":
                out.append(str(epoch))
            elif k == "N":
                out.append(f"{dt.microsecond * 1000:09d}")
            elif k == "Z":
                out.append("UTC" if name in ("UTC", "Z") else name)
            elif k == "z":
                out.append(f"{'+' if mins >= 0 else '-'}{abs(mins) // 60:02d}{abs(mins) % 60:02d}")
            elif k == "e":
                out.append(f"{dt.day:2d}")
            elif k == "%":
                out.append("%")
            else:
                try:
                    out.append(dt.strftime("%" + k))
                except ValueError:
                    out.append("%" + k)
            continue
        out.append(c)
        i += 1
    return "".join(out)


class Toolbox(TextFilters):
    """The small toybox commands (the text filters come from :class:`TextFilters`)."""

    def __init__(self, phone: "VirtualPhone") -> None:
        self.phone = phone

    def table(self) -> dict[str, CommandHandler]:
        return {"id": self.id, "whoami": self.whoami, "getenforce": self.getenforce, "uname": self.uname,
                "date": self.date, "ps": self.ps, "pidof": self.pidof, "grep": self.grep, "egrep": self.egrep,
                "fgrep": self.fgrep, "head": self.head, "tail": self.tail, "wc": self.wc, "cat": cmd_cat,
                "sleep": cmd_sleep, "sh": self.sh, "toybox": self.toybox, "which": self.which, "env": self.env,
                "printenv": self.printenv, "test": self.test, "[": self.test, "printf": self.printf,
                "cut": self.cut, "sort": self.sort, "uniq": self.uniq, "tr": self.tr, "seq": self.seq,
                "ip": self.ip, "ifconfig": self.ifconfig, "logcat": self.logcat, "log": self.log, "kill": self.kill,
                "echo": self.echo, "true": self.true, "false": self.false}

    # --- identity
    def _root(self) -> bool:
        """A permissive phone models a rooted emulator after ``adb root``: adbd (and every shell
        it starts) runs as uid 0 (packages/modules/adb ``daemon/main.cpp`` drops privileges
        only when ``ro.debuggable`` is 0 or ``service.adb.root`` is unset)."""
        knobs = getattr(self.phone, "knobs", None)
        return bool(getattr(knobs, "permissive", False))

    async def id(self, ctx: CommandContext) -> int:
        a = "".join(ctx.args)
        name, num = ("root", "0") if self._root() else ("shell", "2000")
        if "u" in a or "g" in a:
            await ctx.out(f"{name}\n" if "n" in a else f"{num}\n")
        else:
            await ctx.out((_ROOT_ID if self._root() else _ID) + "\n")
        return 0

    async def whoami(self, ctx: CommandContext) -> int:
        await ctx.out("root\n" if self._root() else "shell\n")
        return 0

    async def getenforce(self, ctx: CommandContext) -> int:
        await ctx.out("Enforcing\n")
        return 0

    async def uname(self, ctx: CommandContext) -> int:
        parts = {"s": "Linux", "n": "localhost", "r": "5.10.198-android13-4-00050-g12f3388846c3-ab11186220",
                 "v": "#1 SMP PREEMPT Mon Dec 11 17:00:00 UTC 2023", "m": "x86_64", "o": "Toybox"}
        flags = "".join(a.lstrip("-") for a in ctx.args) or "s"
        if "a" in flags:
            flags = "snrvmo"
        await ctx.out(" ".join(parts[f] for f in "snrvmo" if f in flags) + "\n")
        return 0

    async def echo(self, ctx: CommandContext) -> int:
        from .sh_builtins import echo_escapes  # the builtin's semantics, reused for ``toybox echo``

        args = ctx.args
        newline, escapes = True, True
        while args and re.fullmatch(r"-[neE]+", args[0]):
            for ch in args[0][1:]:
                newline = newline and ch != "n"
                escapes = ch == "e" or (escapes and ch != "E")
            args = args[1:]
        text = " ".join(args)
        if escapes:
            text, stop = echo_escapes(text)
            newline = newline and not stop
        await ctx.out(text + ("\n" if newline else ""))
        return 0

    async def true(self, ctx: CommandContext) -> int:
        return 0

    async def false(self, ctx: CommandContext) -> int:
        return 1

    # --- time
    async def date(self, ctx: CommandContext) -> int:
        fmt = "%a %b %e %H:%M:%S %Z %Y"
        utc = False
        for a in ctx.args:
            if a.startswith("+"):
                fmt = a[1:]
            elif a in ("-u", "--utc"):
                utc = True
            elif a.startswith("-s") or re.fullmatch(r"\d{8,12}(\.\d\d)?", a):
                await ctx.err("date: cannot set date: Operation not permitted\n")
                return 1
            elif a.startswith("-"):
                await ctx.err(f"date: Unknown option '{a.lstrip('-')[:1]}' (see \"date --help\")\n")
                return 1
        now = await self.phone.acall(self.phone.now)
        zone = getattr(self.phone, "zone", None) or timezone.utc
        if utc:  # -u: the same instant, as UTC wall time
            now = now.replace(tzinfo=zone).astimezone(timezone.utc)
        await ctx.out(_strftime(fmt, now, zone) + "\n")
        return 0

    # --- processes
    async def _procs(self) -> list[tuple[str, int, int, str]]:
        """(user, pid, ppid, name): system daemons, the running apps, the current IME and the
        processes shell commands started (uiautomator2's ``app_process``, owned by shell)."""
        from .processes import process_table

        def gather() -> tuple[str, list[str]]:
            pkg, _ = self.phone.foreground()
            return pkg, self.phone.ui_overlays()["tasks"]

        fg, tasks = await self.phone.acall(gather)
        packages = self.phone.family.packages
        pkgs = [packages["launcher"], fg] + [packages[a] for a in tasks if a in packages]
        ime = self.phone.packages.current_ime().split("/")[0]
        if ime:
            pkgs.append(ime)
        procs = list(_SYSTEM_PROCS)
        seen = {p[3] for p in procs}
        for p in pkgs:
            if p and p not in seen:
                seen.add(p)
                procs.append((f"u0_a{100 + pid_of(p) % 200}", pid_of(p), 412, p))
        for proc in sorted(process_table(self.phone).values(), key=lambda q: q.pid):
            procs.append((proc.user, proc.pid, proc.ppid, proc.name))
        return procs

    async def ps(self, ctx: CommandContext) -> int:
        """toybox ``ps``: ``-A``/``-e`` every process, ``-u USER[,USER]`` / ``-p PID`` / bare PIDs
        select; without a selection, this shell's own processes (toys/posix/ps.c)."""
        args = list(ctx.args)
        flags = ""
        users: set[str] = set()
        pids: set[int] = set()
        fields: list[str] = []
        i = 0
        while i < len(args):
            a = args[i]
            if a == "-o" and i + 1 < len(args):
                fields += [f.split("=")[0].upper() for f in args[i + 1].split(",") if f]
                i += 2
                continue
            if a in ("-u", "-U", "-p") and i + 1 < len(args):
                vals = [v for v in args[i + 1].split(",") if v]
                if a == "-p":
                    pids |= {int(v) for v in vals if v.isdigit()}
                else:
                    users |= set(vals)
                i += 2
                continue
            if a.startswith("-"):
                flags += a.lstrip("-")
            elif a.isdigit():
                pids.add(int(a))
            i += 1
        header = "USER           PID  PPID        VSZ    RSS WCHAN            ADDR S NAME                       \n"
        rows = []
        if "A" in flags or "e" in flags or pids or users:
            for user, pid, ppid, name in await self._procs():
                if pids and pid not in pids:
                    continue
                if users and user not in users and not (user == "shell" and "2000" in users):
                    continue
                rows.append((user, pid, ppid, name))
        else:
            rows = [("shell", ctx.shell.pid, 1450, "sh"), ("shell", ctx.shell.pid + 1, ctx.shell.pid, "ps")]
        if fields:
            await ctx.out(await self._ps_fields(fields, rows))
            return 0 if rows else 1
        out = [header]
        for user, pid, ppid, name in rows:
            vsz = 14_000_000 + pid * 7919 % 3_000_000 if "." in name or name.startswith(("system", "app_")) \
                else 10_800_000 + pid * 31 % 90_000
            rss = 90_000 + pid * 131 % 160_000 if "." in name or name == "app_process" else 2_000 + pid * 17 % 9_000
            out.append(f"{user:<12}{pid:>6}{ppid:>6}{vsz:>11}{rss:>7} 0                   0 S {name}\n")
        await ctx.out("".join(out))
        return 0 if rows else 1

    async def _ps_fields(self, fields: list[str], rows: list[tuple[str, int, int, str]]) -> str:
        """``ps -o FIELD,...``: the chosen columns (toybox pads each to its header/values; the
        last one is left unpadded). ARGS/CMDLINE is the command line: for uiautomator2's server
        ``app_process / com.wetest.uia2.Main -p 9008``."""
        from .processes import process_table

        table = process_table(self.phone)

        def value(f: str, row: tuple[str, int, int, str]) -> str:
            user, pid, ppid, name = row
            proc = table.get(pid)
            return {"USER": user, "UID": "2000" if user == "shell" else "0", "PID": str(pid), "PPID": str(ppid),
                    "S": "S", "NAME": name, "COMM": name[:15],
                    "CMD": name, "ARGS": proc.args if proc is not None and proc.args else name,
                    "CMDLINE": proc.args if proc is not None and proc.args else name}.get(f, "-")
        cols = [[f] + [value(f, r) for r in rows] for f in fields]
        right = {"PID", "PPID", "UID"}
        widths = [max(len(v) for v in c) for c in cols]
        lines = []
        for k in range(len(rows) + 1):
            cells = []
            for j, c in enumerate(cols):
                last = j == len(cols) - 1
                cells.append(c[k] if last else c[k].rjust(widths[j]) if fields[j] in right else c[k].ljust(widths[j]))
            lines.append(" ".join(cells) + "\n")
        return "".join(lines)

    async def pidof(self, ctx: CommandContext) -> int:
        names = [a for a in ctx.args if not a.startswith("-")]
        found = [str(pid) for _u, pid, _pp, name in await self._procs() if name in names]
        if not found:
            return 1
        await ctx.out(" ".join(found) + "\n")
        return 0

    async def kill(self, ctx: CommandContext) -> int:
        """``kill [-SIGNAL|-s SIGNAL] PID...`` — mksh's builtin, which ``adb shell`` runs.

        The shell user (uid 2000) may signal only its own processes (kill(2): EPERM for
        another uid's, ESRCH for no such pid); errors read ``/system/bin/sh: kill: PID: REASON``
        (mksh ``c_kill``: ``bi_errorf("%s: %s", p, cstrerror(errno))``), status 1. Ending
        uiautomator2's ``app_process`` closes its port, as on a phone.
        """
        from .processes import process_table

        sigs = {"HUP": 1, "INT": 2, "QUIT": 3, "KILL": 9, "TERM": 15, "STOP": 19, "CONT": 18, "USR1": 10, "USR2": 12}
        args = list(ctx.args)
        signum = 15
        if args[:1] == ["-s"] and len(args) > 1:
            name = args[1].upper().removeprefix("SIG")
            signum, args = sigs.get(name, -1), args[2:]
        elif args and args[0].startswith("-") and len(args[0]) > 1:
            raw = args[0][1:].upper().removeprefix("SIG")
            signum = int(raw) if raw.isdigit() else sigs.get(raw, -1)
            args = args[1:]
        if signum < 0:
            await ctx.err("/system/bin/sh: kill: bad signal\n")
            return 1
        if not args:
            await ctx.err("/system/bin/sh: kill: usage: kill [-s signame | -signum | -signame] { job | pid | pgrp } ...\n"
                          "       kill -l [exit_status ...]\n")
            return 1
        table = process_table(self.phone)
        owners = {pid: user for user, pid, _pp, _n in await self._procs()}
        status = 0
        for a in args:
            if not a.lstrip("-").isdigit():
                await ctx.err(f"/system/bin/sh: kill: {a}: arguments must be jobs or process IDs\n")
                status = 1
                continue
            pid = int(a)
            proc = table.get(pid)
            if proc is not None:
                if signum:
                    proc.kill(signum)
                continue
            job = find_job(pid)  # a shell's background job (``screenrecord f &`` … ``kill -INT $!``)
            if job is not None:
                job.kill(signum)
                continue
            if pid in (ctx.shell.pid, ctx.shell.pid + 1):
                continue  # the shell itself (or this kill): nothing the phone's state depends on
            # another uid's process: EPERM. (adbd runs as shell too; ending it is not modelled.)
            reason = "No such process" if pid not in owners else "Operation not permitted"
            await ctx.err(f"/system/bin/sh: kill: {a}: {reason}\n")
            status = 1
        return status

    # --- shells and lookup
    async def sh(self, ctx: CommandContext) -> int:
        args = list(ctx.args)
        if len(args) >= 2 and args[0] == "-c":  # sh -c CMD [NAME [ARG...]]: NAME is $0
            sub = ShellInterpreter(ctx.shell.commands, fs=ctx.shell.fs, cwd=ctx.shell.cwd, env=ctx.env,
                                   glob=ctx.shell.glob, args=args[3:],
                                   shell_name=args[2] if len(args) > 2 else ctx.shell.shell_name)
            return await sub.run(args[1], stdin=ctx.stdin, stdout=ctx.stdout, stderr=ctx.stderr)
        if args:
            try:
                script = self.phone.fs.read_text(ctx.path(args[0]))
            except OSError as exc:
                await ctx.err(f"sh: {args[0]}: {exc.strerror}\n")
                return 127
            sub = ShellInterpreter(ctx.shell.commands, fs=ctx.shell.fs, cwd=ctx.shell.cwd, env=ctx.env,
                                   glob=ctx.shell.glob, args=args[1:])
            return await sub.run(script, stdin=ctx.stdin, stdout=ctx.stdout, stderr=ctx.stderr)
        script = (await ctx.read_all()).decode("utf-8", "replace")
        sub = ShellInterpreter(ctx.shell.commands, fs=ctx.shell.fs, cwd=ctx.shell.cwd, env=ctx.env, glob=ctx.shell.glob)
        return await sub.run(script, stdout=ctx.stdout, stderr=ctx.stderr)

    async def toybox(self, ctx: CommandContext) -> int:
        if not ctx.args:
            await ctx.out(" ".join(sorted(TOYBOX)) + "\n")
            return 0
        name = ctx.args[0]
        handler = ctx.shell.lookup(name)
        if name not in TOYBOX or handler is None:
            await ctx.err(f"toybox: Unknown command {name}\n")
            return 1
        sub = CommandContext(argv=list(ctx.args), env=ctx.env, stdin=ctx.stdin, stdout=ctx.stdout,
                             stderr=ctx.stderr, shell=ctx.shell)
        return await handler(sub)

    async def which(self, ctx: CommandContext) -> int:
        status = 0
        for name in ctx.args:
            if name.startswith("-"):
                continue
            if ctx.shell.lookup(name) is not None:
                await ctx.out(f"/system/bin/{name}\n")
            else:
                status = 1
        return status

    async def env(self, ctx: CommandContext) -> int:
        await ctx.out("".join(f"{k}={v}\n" for k, v in sorted(ctx.env.items())))
        return 0

    async def printenv(self, ctx: CommandContext) -> int:
        if ctx.args:
            v = ctx.env.get(ctx.args[0])
            if v is None:
                return 1
            await ctx.out(v + "\n")
            return 0
        return await self.env(ctx)

    async def test(self, ctx: CommandContext) -> int:
        args = list(ctx.args)
        if ctx.name == "[":
            if not args or args[-1] != "]":
                await ctx.err("[: missing ]\n")
                return 2
            args = args[:-1]
        fs = self.phone.fs

        def ev(a: list[str]) -> bool:
            if not a:
                return False
            if a[0] == "!":
                return not ev(a[1:])
            if len(a) == 1:
                return a[0] != ""
            if len(a) == 2:
                op, v = a
                p = ctx.path(v)
                return {"-e": fs.exists(p), "-f": fs.isfile(p), "-d": fs.isdir(p), "-L": fs.islink(p),
                        "-h": fs.islink(p), "-s": fs.isfile(p) and fs.stat(p).st_size > 0, "-r": fs.exists(p),
                        "-w": fs.exists(p), "-x": fs.exists(p), "-z": v == "", "-n": v != ""}.get(op, False)
            if len(a) >= 3 and a[1] in ("=", "==", "!=", "-eq", "-ne", "-lt", "-le", "-gt", "-ge"):
                x, op, y = a[0], a[1], a[2]
                if op in ("=", "=="):
                    res = x == y
                elif op == "!=":
                    res = x != y
                else:
                    try:
                        xi, yi = int(x), int(y)
                    except ValueError:
                        return False
                    res = {"-eq": xi == yi, "-ne": xi != yi, "-lt": xi < yi, "-le": xi <= yi, "-gt": xi > yi,
                           "-ge": xi >= yi}[op]
                if len(a) > 3 and a[3] in ("-a", "-o"):
                    return (res and ev(a[4:])) if a[3] == "-a" else (res or ev(a[4:]))
                return res
            return False

        return 0 if ev(args) else 1

    # --- network and logs
    async def _wifi(self) -> bool:
        return (await self.phone.acall(self.phone.settings.get, "global", "wifi_on")) == "1"

    async def ip(self, ctx: CommandContext) -> int:
        args = ctx.args
        if not args or args[0] not in ("addr", "a", "address", "route", "r", "link"):
            await ctx.err("Usage: ip [ OPTIONS ] OBJECT { COMMAND | help }\n")
            return 255
        wifi = await self._wifi()
        if args[0] in ("route", "r"):
            if wifi:
                await ctx.out("192.168.1.0/24 dev wlan0 proto kernel scope link src 192.168.1.23 \n")
            return 0
        out = ("1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue state UNKNOWN group default qlen 1000\n"
               "    link/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00\n    inet 127.0.0.1/8 scope host lo\n"
               "       valid_lft forever preferred_lft forever\n")
        wl = ("22: wlan0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc mq state UP group default qlen 3000\n"
              "    link/ether 02:00:00:44:55:66 brd ff:ff:ff:ff:ff:ff\n"
              + ("    inet 192.168.1.23/24 brd 192.168.1.255 scope global wlan0\n"
                 "       valid_lft forever preferred_lft forever\n" if wifi else ""))
        if "wlan0" in args:
            await ctx.out(wl)
        else:
            await ctx.out(out + wl)
        return 0

    async def ifconfig(self, ctx: CommandContext) -> int:
        wifi = await self._wifi()
        iface = ctx.args[0] if ctx.args else "wlan0"
        if iface not in ("wlan0", "lo"):
            await ctx.err(f"ifconfig: {iface}: No such device\n")
            return 1
        if iface == "lo":
            await ctx.out("lo        Link encap:Local Loopback\n          inet addr:127.0.0.1  Mask:255.0.0.0 \n"
                          "          UP LOOPBACK RUNNING  MTU:65536  Metric:1\n")
            return 0
        addr = "          inet addr:192.168.1.23  Bcast:192.168.1.255  Mask:255.255.255.0 \n" if wifi else ""
        await ctx.out("wlan0     Link encap:UNSPEC    Driver cnss_pci\n" + addr +
                      "          UP BROADCAST RUNNING MULTICAST  MTU:1500  Metric:1\n")
        return 0

    async def logcat(self, ctx: CommandContext) -> int:
        """``logcat`` over the phone's logd (system/logging/logcat/logcat.cpp; see
        :func:`device.virtual.android_media.logcat_main`): ``-d`` dumps, plain ``logcat`` streams
        until the host closes the stream."""
        from .android_logd import logcat_main

        return await logcat_main(self.phone, ctx)

    async def log(self, ctx: CommandContext) -> int:
        """toybox ``log [-p PRI] [-t TAG] [MESSAGE...]`` (toys/android/log.c): the words joined by
        spaces (cut at 1024 bytes, "log cut at 1024 bytes"), or each line of stdin when there are
        none, go to ``__android_log_write`` — the *main* buffer — with priority ``-p``
        (``d e f i s v w``, case-insensitive; default INFO) and tag ``-t`` (default ``log``). The
        record carries the ``log`` process's own pid (the shell forks it) and the shell's uid."""
        from .android_logd import logd_of

        args = list(ctx.args)
        pri, tag = "I", "log"
        words: list[str] = []
        i = 0
        while i < len(args):
            a = args[i]
            if a == "--":
                words += args[i + 1:]
                break
            if a.startswith("-") and len(a) > 1 and not words:
                opt, val = a[1], a[2:]
                if opt not in "pt":
                    await ctx.err(f"log: Unknown option '{a[1:]}' (see \"log --help\")\n")
                    return 1
                if not val:
                    if i + 1 >= len(args):
                        await ctx.err(f"log: Missing argument to -{opt} (see \"log --help\")\n")
                        return 1
                    val, i = args[i + 1], i + 1
                if opt == "p":
                    idx = "defisvw".find(val[:1].lower()) if len(val) == 1 else -1
                    if idx < 0:
                        await ctx.err(f"log: bad -p '{val}'\n")
                        return 1
                    pri = "DEFISVW"[idx]
                else:
                    tag = val
                i += 1
                continue
            words.append(a)
            i += 1
        pid = ctx.shell.new_pid()
        uid = 0 if self._root() else 2000
        log = logd_of(self.phone)
        if words:
            text = " ".join(words)
            if len(text.encode("utf-8", "surrogateescape")) >= 1024:
                text = text.encode("utf-8", "surrogateescape")[:1024].decode("utf-8", "ignore")
                await ctx.err("log: log cut at 1024 bytes\n")
            lines = [text]
        else:  # do_lines(0, '\n', log_line), then the (empty) buffer once more
            data = (await ctx.read_all()).decode("utf-8", "surrogateescape")
            lines = [ln for ln in data.split("\n")[:-1 if data.endswith("\n") else None]] + [""]
        if pri != "S":
            for line in lines:
                log.write("main", pri, tag, line, pid=pid, tid=pid, uid=uid)
        return 0


def toolbox_commands(phone: "VirtualPhone") -> dict[str, CommandHandler]:
    return Toolbox(phone).table()
