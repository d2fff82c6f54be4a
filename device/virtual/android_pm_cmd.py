"""The package, input-method and service commands of the virtual phone: ``pm``, ``ime``,
``cmd`` and ``app_process`` (uiautomator2's server process).

Why its own module: these commands change or report the package manager's table
(:mod:`.android_pm`) and start Java tools; ``am`` and ``monkey`` are :mod:`.android_am`. A
mixin of :class:`~device.virtual.android_am.AmCommands`.
"""

from __future__ import annotations

import asyncio
import time
import zlib
from typing import TYPE_CHECKING, Any

from .sh_io import CommandContext

if TYPE_CHECKING:
    from .phone import VirtualPhone
from .android_intent import IntentError, intent_kind, parse_intent, short_component
from .android_pm import PackageManager, check_runtime_permission

__all__ = ["PackageCommands"]


class PackageCommands:
    """``pm``, ``ime``, ``cmd``, ``app_process`` (state set up by ``AmCommands``)."""

    phone: "VirtualPhone"
    pm: PackageManager

    # ------------------------------------------------------------------ pm
    async def pm_cmd(self, ctx: CommandContext) -> int:
        args = list(ctx.args)
        if not args:
            await ctx.out("Package manager (package) commands:\n  help\n  path [--user USER_ID] PACKAGE\n"
                          "  list packages [-f] [-d] [-e] [-s] [-3] [-i] [-l] [-u] [-U] [--user USER_ID] [FILTER]\n"
                          "  install [-r] [-t] [-g] [-S BYTES] [PATH|-]\n  uninstall [-k] [--user USER_ID] PACKAGE\n"
                          "  clear [--user USER_ID] PACKAGE\n  grant [--user USER_ID] PACKAGE PERMISSION\n"
                          "  revoke [--user USER_ID] PACKAGE PERMISSION\n"
                          "  resolve-activity [--brief] [--components] [--user USER_ID] INTENT\n")
            return 0
        verb, rest = args[0], [a for a in args[1:]]
        # drop --user N
        cleaned: list[str] = []
        skip = False
        for j, a in enumerate(rest):
            if skip:
                skip = False
                continue
            if a == "--user":
                skip = True
                continue
            cleaned.append(a)
        rest = cleaned
        if verb == "list" and rest and rest[0] == "packages":
            flags = {a for a in rest[1:] if a.startswith("-")}
            filt = next((a for a in rest[1:] if not a.startswith("-")), "")
            names = sorted(self.pm.packages)
            out = []
            for n in names:
                p = self.pm.packages[n]
                if "-3" in flags and p.system or "-s" in flags and not p.system:
                    continue
                if "-d" in flags and p.enabled or "-e" in flags and not p.enabled:
                    continue
                if filt and filt not in n:
                    continue
                line = f"package:{p.path}={n}" if "-f" in flags else f"package:{n}"
                if "-U" in flags:
                    line += f" uid:{10000 + zlib.crc32(n.encode()) % 900 if not p.system else 1000}"
                out.append(line)
            await ctx.out("".join(f"{line}\n" for line in out))
            return 0
        if verb == "path":
            if not rest or not self.pm.installed(rest[0]):
                return 1
            await ctx.out(f"package:{self.pm.packages[rest[0]].path}\n")
            return 0
        if verb == "clear":
            if not rest:
                await ctx.err("Error: no package specified\n")
                return 1
            ok = await self.phone.acall(self.pm.clear, rest[-1])
            await ctx.out("Success\n" if ok else "Failed\n")
            return 0 if ok else 1
        if verb in ("clear-permission-flags", "set-permission-flags"):
            if len(rest) < 3:
                await ctx.err("Error: no package, permission or flags specified\n")
                return 1
            known = {"review-required", "revoked-compat", "revoke-when-requested", "user-fixed", "user-set"}
            bad = [f for f in rest[2:] if f not in known]
            if bad:
                await ctx.err(f"Exception occurred while executing '{verb}':\njava.lang.IllegalArgumentException: "
                              f"Unknown flag: {bad[0]}\n")
                return 255
            fn = self.pm.clear_flags if verb.startswith("clear") else self.pm.set_flags
            ok = await self.phone.acall(fn, rest[0], list(rest[2:]))
            if not ok:
                await ctx.err(f"Exception occurred while executing '{verb}':\njava.lang.IllegalArgumentException: "
                              f"Unknown package: {rest[0]}\n")
                return 255
            return 0
        if verb in ("grant", "revoke"):
            # PackageManagerShellCommand.runGrantRevokePermission → PermissionManager
            # grant/revokeRuntimePermission; what the service throws reaches the shell through
            # BasicShellCommandHandler.exec (a blank line, "Exception occurred while executing …",
            # the stack trace; status -1 = 255) — see check_runtime_permission for the rules
            if not rest:
                await ctx.err("Error: no package specified\n")
                return 1
            if len(rest) < 2:
                await ctx.err("Error: no permission specified\n")
                return 1
            pkg, perm = rest[0], rest[1]
            if not self.pm.installed(pkg):
                await ctx.err(f"\nException occurred while executing '{verb}':\njava.lang.IllegalArgumentException: "
                              f"Unknown package: {pkg}\n")
                return 255
            why = check_runtime_permission(self.phone.knobs.android, pkg, perm, self.pm.requested(pkg))
            if why is not None:
                kind, text = why
                if not kind:  # logged by the service, nothing granted
                    from .android_logd import SYSTEM_SERVER_PID, logd_of

                    logd_of(self.phone).write("system", "E", "PermissionService", text, pid=SYSTEM_SERVER_PID,
                                              tid=1547, uid=1000)
                    return 0
                where = ("com.android.server.pm.permission.PermissionManagerServiceImpl"
                         if self.phone.knobs.android in (13, 14) else
                         "com.android.server.permission.access.permission.PermissionService"
                         if self.phone.knobs.android >= 15 else
                         "com.android.server.pm.permission.PermissionManagerService")
                method = "grantRuntimePermissionInternal" if verb == "grant" else "revokeRuntimePermissionInternal"
                cls = where.rsplit(".", 1)[1]
                await ctx.err(f"\nException occurred while executing '{verb}':\n{kind}: {text}\n"
                              f"\tat {where}.{method}({cls}.{'kt' if 'access' in where else 'java'}:1395)\n"
                              f"\tat com.android.server.pm.PackageManagerShellCommand.runGrantRevokePermission"
                              f"(PackageManagerShellCommand.java:2683)\n")
                return 255
            if perm == "android.permission.POST_NOTIFICATIONS":  # the one runtime grant the model keeps
                await self.phone.acall(self.pm.grant, pkg, verb == "grant")
            return 0
        if verb == "install":
            return await self._install(ctx, rest)
        if verb == "uninstall":
            pkg = next((a for a in rest if not a.startswith("-")), None)
            if pkg is None:
                await ctx.err("Error: package name not specified\n")
                return 1
            res = await self.phone.acall(self.pm.uninstall, pkg)
            await ctx.out(res + "\n")
            return 0 if res == "Success" else 1
        if verb == "resolve-activity":
            return await self._resolve_activity(ctx, rest)
        if verb in ("enable", "disable", "disable-user"):
            pkg = next((a for a in rest if not a.startswith("-")), "")
            if not self.pm.installed(pkg):
                await ctx.err(f"Exception occurred while executing '{verb}':\njava.lang.IllegalArgumentException: "
                              f"Unknown package: {pkg}\n")
                return 255
            self.pm.packages[pkg].enabled = verb == "enable"
            state = "enabled" if verb == "enable" else ("disabled-user" if verb == "disable-user" else "disabled")
            await ctx.out(f"Package {pkg} new state: {state}\n")
            return 0
        if verb == "dump":
            from .android_dumpsys import dumpsys_package

            pkg = rest[0] if rest else ""
            await ctx.out(dumpsys_package(self.phone, pkg))
            return 0
        await ctx.err(f"Unknown command: {verb}\n")
        return 255

    async def _install(self, ctx: CommandContext, rest: list[str]) -> int:
        size: int | None = None
        path: str | None = None
        i = 0
        while i < len(rest):
            a = rest[i]
            if a == "-S" and i + 1 < len(rest):
                size = int(rest[i + 1])
                i += 2
            elif a in ("-i", "--install-reason", "--originating-uri", "--referrer", "--abi", "--user", "-p",
                       "--pkg", "--install-location"):
                i += 2
            elif a.startswith("-"):
                i += 1
            else:
                path = a
                i += 1
        if path is not None and path != "-":
            fs = self.phone.fs
            try:
                data = fs.read_bytes(ctx.path(path))
            except OSError:
                await ctx.err(f"Error: Can't open file: {path}\nException occurred while executing 'install':\n"
                              f"java.lang.IllegalArgumentException: Error: Can't open file: {path}\n")
                return 1
        elif size is not None:
            # ``adb install`` streams exactly -S bytes and waits for our answer before closing:
            # read the announced size, never "until EOF" (that would deadlock)
            buf = bytearray()
            while len(buf) < size:
                chunk = await ctx.stdin.read(size - len(buf))
                if not chunk:
                    break
                buf += chunk
            data = bytes(buf)
            if len(data) < size:
                await ctx.out("Failure [INSTALL_FAILED_INVALID_APK: short read]\n")
                return 1
        else:
            data = await ctx.read_all()
        res = await self.phone.acall(self.pm.install, data)
        await ctx.out(res + "\n")
        return 0 if res == "Success" else 1

    async def _resolve_activity(self, ctx: CommandContext, rest: list[str]) -> int:
        """``cmd package resolve-activity [--brief|--components] INTENT``.

        An intent naming a package or component resolves within it (a launcher intent to the
        launcher activity, unless the package's launcher entry is hidden: ``hidden_launcher``); an
        implicit one (SET_ALARM, DIAL ``tel:``, SENDTO ``smsto:``, VIEW …) to the activity of the
        family's app that declares the filter (:func:`intent_kind`, :mod:`device.virtual.families`).
        ``match=`` is IntentFilter's match quality: ``0x108000`` (MATCH_CATEGORY_EMPTY +
        MATCH_ADJUSTMENT_NORMAL) for an action-only intent, ``0x208000`` (MATCH_CATEGORY_SCHEME) for
        one matched by its data scheme — as a phone prints them (a public resolve-activity capture:
        SENDTO ``sms:`` ``match=0x208000``, the launcher apps ``match=0x108000``)."""
        brief = "--brief" in rest
        comps = "--components" in rest
        try:
            intent = parse_intent([a for a in rest if a not in ("--brief", "--components")])
        except IntentError as e:
            await ctx.err(f"Error: {e}\n")
            return 1
        fam = self.phone.family
        pkg = intent.package or (intent.component.split("/")[0] if intent.component else None)
        activity: str | None = None
        kind = intent_kind(intent) if pkg is None else None
        if kind is not None:
            hit = fam.resolve(kind)
            if hit is not None and self.pm.installed(hit[0]):
                pkg, activity = hit
        if pkg is None or not self.pm.installed(pkg) or pkg not in fam.package_apps:
            await ctx.out("No activity found\n")
            return 0
        if activity is None:
            activity = fam.main_activity(pkg) or ".MainActivity"
            if intent.component:  # an explicit component resolves to itself when the package declares it
                act = intent.component.split("/", 1)[1]
                if not self.pm.has_activity(pkg, act):
                    await ctx.out("No activity found\n")
                    return 0
                activity = act
            elif "android.intent.category.LAUNCHER" in intent.categories and pkg in self.phone.knobs.hidden_launcher:
                # the launcher entry is disabled (DocumentsUI's PreBootReceiver on Android 12+ with a
                # vendor overlay: packages/apps/DocumentsUI src/com/android/documentsui/PreBootReceiver.java)
                await ctx.out("No activity found\n")
                return 0
        comp = short_component(pkg, activity)
        if comps:
            await ctx.out(comp + "\n")
            return 0
        match = "0x208000" if kind is not None and intent.data else "0x108000"
        if brief:
            await ctx.out(f"priority=0 preferredOrder=0 match={match} specificIndex=-1 isDefault=true\n"
                          f"{comp}\n")
            return 0
        full = pkg + activity if activity.startswith(".") else activity
        await ctx.out(f"Activity Resolver Table:\n  ActivityInfo:\n    name={full}\n"
                      f"    packageName={pkg}\n    enabled=true exported=true directBootAware=false\n")
        return 0

    # ------------------------------------------------------------------ ime
    async def ime(self, ctx: CommandContext) -> int:
        """``ime`` / ``cmd input_method ime``, as ``ImeShellCommandController`` answers it
        (frameworks/base services/core/java/com/android/server/inputmethod/
        ImeShellCommandController.java; InputMethodManagerService.ShellCommandImpl before it).

        ``list [-a] [-s]`` lists the enabled (``-a``: installed) IMEs; ``enable``/``disable``
        print ``Input method ID: now|already enabled|disabled for user #0`` and refuse an ID
        that is not installed (``Unknown input method ID cannot be enabled for user #0`` on
        stderr, status 255); ``set`` selects only an installed *and enabled* IME
        (``switchToInputMethodLocked``), otherwise ``Unknown input method ID cannot be selected
        for user #0`` on stderr, status 255. A stock phone has only its keyboard installed.
        """
        args = list(ctx.args)
        if not args or args[0] in ("-h", "help"):
            await ctx.out("ime <command>:\n  list [-a] [-s]\n    prints all enabled input methods.\n"
                          "      -a: see all input methods\n      -s: only a single summary line of each\n"
                          "  enable [--user <USER_ID>] <ID>\n    allows the given input method ID to be used.\n"
                          "      --user <USER_ID>: Specify which user to enable. Assumes the current user if not "
                          "specified.\n"
                          "  disable [--user <USER_ID>] <ID>\n    disallows the given input method ID to be used.\n"
                          "      --user <USER_ID>: Specify which user to disable. Assumes the current user if not "
                          "specified.\n"
                          "  set [--user <USER_ID>] <ID>\n    switches to the given input method ID.\n"
                          "      --user <USER_ID>: Specify which user to enable. Assumes the current user if not "
                          "specified.\n"
                          "  reset [--user <USER_ID>]\n    reset currently selected/enabled IMEs to the default ones "
                          "as if the device is initially booted w\n    ith the current locale.\n"
                          "      --user <USER_ID>: Specify which user to reset. Assumes the current user if not "
                          "specified.\n")
            return 0
        verb, rest = args[0], [a for a in args[1:] if a not in ("--user", "-u", "0", "current", "all")]
        if verb == "list":
            show_all = "-a" in rest
            short = "-s" in rest
            imes = self.pm.imes_installed() if show_all else self.pm.imes_enabled()
            if short:
                await ctx.out("".join(f"{i}\n" for i in imes))
            else:
                for ime in imes:
                    pkg, cls = ime.split("/", 1)
                    full = pkg + cls if cls.startswith(".") else cls
                    await ctx.out(f"{ime}:\n  mId={ime} mSettingsActivityName=null\n"
                                  "  mIsVrOnly=false mSupportsSwitchingToNextInputMethod=false\n"
                                  "  mIsDefaultResId=0x0\n  Service:\n"
                                  "    priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=false\n"
                                  f"    ServiceInfo:\n      name={full}\n      packageName={pkg}\n"
                                  "      enabled=true exported=true directBootAware=false\n"
                                  "      permission=android.permission.BIND_INPUT_METHOD\n")
            return 0
        if verb in ("enable", "disable") and rest:
            ime = rest[-1]
            res = await self.phone.acall(self.pm.enable_ime, ime, verb == "enable")
            if res == "unknown" and verb == "enable":
                await ctx.err(f"Unknown input method {ime} cannot be enabled for user #0\n")
                return 255
            state = "already " if res in ("already", "unknown") else "now "
            await ctx.out(f"Input method {ime}: {state}{verb}d for user #0\n")
            return 0
        if verb == "set" and rest:
            ime = rest[-1]
            stock = not self.phone.knobs.permissive
            ok = ime in self.pm.imes_enabled() or not stock  # a permissive phone enables it on the way
            ok = ok and await self.phone.acall(self.pm.set_ime, ime)
            if not ok:
                await ctx.err(f"Unknown input method {ime} cannot be selected for user #0\n")
                return 255
            await ctx.out(f"Input method {ime} selected for user #0\n")
            return 0
        if verb == "reset":
            default = self.phone.knobs.installed_imes[0]
            await self.phone.acall(self.phone.settings.put, "secure", "enabled_input_methods", default)
            await self.phone.acall(self.phone.settings.put, "secure", "default_input_method", default)
            await ctx.out(f"Reset current and enabled IMEs for user #0\n  Selected: {default}\n   Enabled: {default}\n")
            return 0
        await ctx.out(f"Unknown command: {verb}\n")
        return 255

    # ------------------------------------------------------------------ cmd
    async def cmd(self, ctx: CommandContext) -> int:
        args = list(ctx.args)
        if not args or args[0] == "-l":
            await ctx.out("Currently running services:\n" + "".join(
                f"  {s}\n" for s in ("activity", "alarm", "audio", "bluetooth_manager", "clipboard", "connectivity",
                                     "display", "input", "input_method", "location", "media_session",
                                     "notification", "package", "power", "settings", "statusbar", "uimode",
                                     "wifi", "window")))
            return 0
        service, rest = args[0], args[1:]
        sub = CommandContext(argv=[service, *rest], env=ctx.env, stdin=ctx.stdin, stdout=ctx.stdout,
                             stderr=ctx.stderr, shell=ctx.shell)
        if service == "package":
            return await self.pm_cmd(sub)
        if service == "activity":
            return await self.am(sub)
        if service == "input_method":
            return await self.ime(sub)
        if service in ("settings", "window", "input"):
            handler = ctx.shell.lookup({"window": "wm"}.get(service, service))
            if handler is not None:
                return await handler(sub)
        if service == "statusbar":
            verb = rest[0] if rest else ""
            shade = {"expand-notifications": "notifications", "expand-settings": "quick",
                     "collapse": None}.get(verb, "?")
            if shade == "?":
                await ctx.err(f"Unknown command: {verb}\n")
                return 255

            def set_shade(d: dict[str, Any]) -> None:
                d["ui"]["shade"] = shade
            await self.phone.acall(self.phone.mutate, set_shade)
            return 0
        from .android_services import SERVICE_COMMANDS, run_service_command

        if service in SERVICE_COMMANDS:
            return await run_service_command(self.phone, service, sub, rest)
        known = {"activity", "alarm", "bluetooth_manager", "clipboard", "connectivity", "display", "input",
                 "input_method", "location", "media_session", "notification", "package", "power", "settings",
                 "statusbar", "uimode", "wifi", "window"}
        if service not in known:
            await ctx.err(f"cmd: Can't find service: {service}\n")
            return 20
        await ctx.err(f"Unknown command: {' '.join(rest)}\n")
        return 255

    # ------------------------------------------------------------------ app_process (uiautomator2)
    async def app_process(self, ctx: CommandContext) -> int:
        """``CLASSPATH=… app_process / MAIN -p PORT``: the uiautomator2 server's process.

        It runs as the shell user until the host closes its stream or ``kill PID`` ends it
        (then the port stops answering). ``ps`` lists it as ``app_process``: frameworks/base
        cmds/app_process/app_main.cpp renames the process only for ``--nice-name``. It holds
        UiAutomation while it runs; a second one cannot (UiAutomationManager
        ``registerUiTestAutomationServiceLocked`` throws "UiAutomationService … already
        registered!", which the server prints and exits).
        """
        from .processes import DeviceProcess, process_table, uiautomation_holder

        classpath = ctx.env.get("CLASSPATH", "")
        args = list(ctx.args)
        main = next((a for a in args if not a.startswith("/") and not a.startswith("-") and "." in a), "")
        port = 9008
        if "-p" in args:
            try:
                port = int(args[args.index("-p") + 1])
            except (ValueError, IndexError):
                pass
        jars = [p for p in classpath.split(":") if p]
        missing = [j for j in jars if not self.phone.fs.isfile(j)]
        if not main or not jars or missing:
            path = ", ".join(f'zip file "{j}"' for j in jars)
            await ctx.err(f'Error: Could not find class \'{main}\'\njava.lang.ClassNotFoundException: Didn\'t find '
                          f'class "{main}" on path: DexPathList[[{path}],nativeLibraryDirectories=[/system/lib64, '
                          f'/system_ext/lib64, /system/lib64, /system_ext/lib64]]\n')
            return 1
        banner = "[server] INFO: [UiAutomator2Server] Starting Server\n"
        if not self.phone.knobs.permissive and uiautomation_holder(self.phone) is not None:
            proxy = f"{zlib.crc32(str(time.monotonic()).encode()) & 0xFFFFFFF:07x}"
            await ctx.out(banner + "java.lang.IllegalStateException: UiAutomationService android.accessibilityservice."
                          f"IAccessibilityServiceClient$Stub$Proxy@{proxy}already registered!\n")
            return 1
        opened = self.phone.process_started(port)
        always = self.phone.backend.socket_handler("tcp", str(port)) is not None
        if not opened and not always:
            await ctx.out(banner)
            await ctx.err("java.lang.IllegalStateException: this virtual phone has no uiautomator2 server "
                          f"registered on port {port}\n")
            return 1
        table = process_table(self.phone)
        pid = ctx.shell.pid + 1
        while pid in table:
            pid += 1
        proc = DeviceProcess(pid=pid, ppid=ctx.shell.pid, name="app_process", holds_uiautomation=True,
                             loop=asyncio.get_running_loop(), args=" ".join(["app_process", *args]))
        table[pid] = proc
        try:
            await ctx.out(banner + "SLF4J: Failed to load class \"org.slf4j.impl.StaticLoggerBinder\".\n"
                          "SLF4J: Defaulting to no-operation (NOP) logger implementation\n"
                          "SLF4J: See http://www.slf4j.org/codes.html#StaticLoggerBinder for further details.\n")
            await proc.stop.wait()  # until killed, or the host closes the stream (the task is cancelled)
        finally:
            table.pop(pid, None)
            if opened:
                self.phone.process_stopped(port)
        return 128 + proc.signal
