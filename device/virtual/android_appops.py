"""App-ops of the virtual phone: the ``appops`` command and the mode a provider checks.

Why: on a stock phone the shell user may *read* SMS but its writes pass through the
``WRITE_SMS`` app-op, whose default mode is ``ignore`` (``AppOpsManager.sOpDefaultMode``:
``MODE_IGNORED`` for ``OP_WRITE_SMS``). ``ContentProvider.Transport.insert`` checks the op
before the provider runs and, when it is not ``allow``, returns ``rejectInsert`` (the URI
with ``/0`` appended) without writing; updates and deletes return 0 rows. So a tool that
writes SMS over adb must first ``appops set com.android.shell WRITE_SMS allow`` — and a
test phone has to model that, or a setup that "worked" in the simulator silently writes
nothing on a real phone.

State: ``sys["appops"] = {package: {OP_NAME: {"mode": int | None, "time": ms | None,
"reject": ms | None}}}`` in the phone state (it survives like the rest of the phone).
``mode=None`` means the op has an entry (it was noted) but sits at its default mode.

The command follows AOSP ``AppOpsService.Shell`` (frameworks/base
services/core/java/com/android/server/appop/AppOpsService.java, ``onShellCommand``):

* ``appops get PKG OP`` with no entry → ``No operations.`` then ``Default mode: ignore``;
  with an entry → ``WRITE_SMS: allow`` plus ``; time=+1s23ms ago`` once accessed and
  ``; rejectTime=+4s ago`` once refused (``TimeUtils.formatDuration``).
* ``appops set PKG OP MODE`` prints nothing; ``MODE`` is one of ``allow``, ``ignore``,
  ``deny``, ``default``, ``foreground`` (``AppOpsManager.MODE_NAMES``) or a number.
  Setting the op's own default mode prunes an entry that was never accessed.
* ``appops reset [PKG]`` → ``Reset all modes for: user 0, package PKG``.
* Errors (stderr, exit status 255): ``Error: Unknown operation string: FOO``,
  ``Error: No UID for PKG in user 0``, ``Error: Mode X is not valid``,
  ``Error: Mode not specified.``, ``Error: Operation not specified.``,
  ``Error: Package name not specified.``.

A permissive phone (``knobs.permissive``) behaves like a rooted emulator set up for
agents, where ``appops set com.android.shell WRITE_SMS allow`` was run at build time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .sh_io import CommandContext, CommandHandler

if TYPE_CHECKING:
    from .phone import VirtualPhone

__all__ = ["AppOps", "appops_commands", "MODE_NAMES", "SHELL_PACKAGE", "format_duration"]

SHELL_PACKAGE = "com.android.shell"
#: AppOpsManager.MODE_NAMES (index = mode number)
MODE_NAMES = ("allow", "ignore", "deny", "default", "foreground")
MODE_ALLOWED, MODE_IGNORED, MODE_ERRORED, MODE_DEFAULT, MODE_FOREGROUND = range(5)

#: op code → (simple name, public name, default mode) — AppOpsManager sOpNames /
#: sOpToString / sOpDefaultMode for the ops a phone tool meets.
_OPS: dict[int, tuple[str, str, int]] = {
    0: ("COARSE_LOCATION", "android:coarse_location", MODE_ALLOWED),
    1: ("FINE_LOCATION", "android:fine_location", MODE_ALLOWED),
    2: ("GPS", "android:gps", MODE_ALLOWED),
    3: ("VIBRATE", "android:vibrate", MODE_ALLOWED),
    4: ("READ_CONTACTS", "android:read_contacts", MODE_ALLOWED),
    5: ("WRITE_CONTACTS", "android:write_contacts", MODE_ALLOWED),
    6: ("READ_CALL_LOG", "android:read_call_log", MODE_ALLOWED),
    7: ("WRITE_CALL_LOG", "android:write_call_log", MODE_ALLOWED),
    8: ("READ_CALENDAR", "android:read_calendar", MODE_ALLOWED),
    9: ("WRITE_CALENDAR", "android:write_calendar", MODE_ALLOWED),
    10: ("WIFI_SCAN", "android:wifi_scan", MODE_ALLOWED),
    11: ("POST_NOTIFICATION", "android:post_notification", MODE_ALLOWED),
    12: ("NEIGHBORING_CELLS", "android:neighboring_cells", MODE_ALLOWED),
    13: ("CALL_PHONE", "android:call_phone", MODE_ALLOWED),
    14: ("READ_SMS", "android:read_sms", MODE_ALLOWED),
    15: ("WRITE_SMS", "android:write_sms", MODE_IGNORED),
    16: ("RECEIVE_SMS", "android:receive_sms", MODE_ALLOWED),
    17: ("RECEIVE_EMERGECY_SMS", "android:receive_emergency_broadcast", MODE_ALLOWED),
    18: ("RECEIVE_MMS", "android:receive_mms", MODE_ALLOWED),
    19: ("RECEIVE_WAP_PUSH", "android:receive_wap_push", MODE_ALLOWED),
    20: ("SEND_SMS", "android:send_sms", MODE_ALLOWED),
    21: ("READ_ICC_SMS", "android:read_icc_sms", MODE_ALLOWED),
    22: ("WRITE_ICC_SMS", "android:write_icc_sms", MODE_ALLOWED),
    23: ("WRITE_SETTINGS", "android:write_settings", MODE_DEFAULT),
    24: ("SYSTEM_ALERT_WINDOW", "android:system_alert_window", MODE_DEFAULT),
    25: ("ACCESS_NOTIFICATIONS", "android:access_notifications", MODE_ALLOWED),
    26: ("CAMERA", "android:camera", MODE_ALLOWED),
    27: ("RECORD_AUDIO", "android:record_audio", MODE_ALLOWED),
    28: ("PLAY_AUDIO", "android:play_audio", MODE_ALLOWED),
    29: ("READ_CLIPBOARD", "android:read_clipboard", MODE_ALLOWED),
    30: ("WRITE_CLIPBOARD", "android:write_clipboard", MODE_ALLOWED),
    43: ("GET_USAGE_STATS", "android:get_usage_stats", MODE_DEFAULT),
    63: ("RUN_IN_BACKGROUND", "android:run_in_background", MODE_ALLOWED),
    66: ("REQUEST_INSTALL_PACKAGES", "android:request_install_packages", MODE_DEFAULT),
    70: ("RUN_ANY_IN_BACKGROUND", "android:run_any_in_background", MODE_ALLOWED),
    92: ("MANAGE_EXTERNAL_STORAGE", "android:manage_external_storage", MODE_DEFAULT),
}
_BY_NAME = {name: code for code, (name, _pub, _d) in _OPS.items()}
_BY_PUBLIC = {pub: code for code, (_n, pub, _d) in _OPS.items()}

_USAGE = """AppOps service (appops) commands:
  help
    Print this help text.
  start [--user <USER_ID>] [--attribution <ATTRIBUTION_TAG>] <PACKAGE | UID> <OP> 
    Starts a given operation for a particular application.
  stop [--user <USER_ID>] [--attribution <ATTRIBUTION_TAG>] <PACKAGE | UID> <OP> 
    Stops a given operation for a particular application.
  set [--user <USER_ID>] <[--uid] PACKAGE | UID> <OP> <MODE>
    Set the mode for a particular application and operation.
  get [--user <USER_ID>] [--attribution <ATTRIBUTION_TAG>] <PACKAGE | UID> [<OP>]
    Return the mode for a particular application and optional operation.
  query-op [--user <USER_ID>] <OP> [<MODE>]
    Print all packages that currently have the given op in the given mode.
  reset [--user <USER_ID>] [<PACKAGE>]
    Reset the given application or all applications to default modes.
  write-settings
    Immediately write pending changes to storage.
  read-settings
    Read the last written settings, replacing current state in RAM.
  options:
    <PACKAGE> an Android package name or its UID if prefixed by --uid
    <OP>      an AppOps operation.
    <MODE>    one of allow, ignore, deny, or default
    <USER_ID> the user id under which the package is installed. If --user is
              not specified, the current user is assumed.
"""


class AppOpsError(ValueError):
    """A shell error: the text after ``Error: `` (printed to stderr, status 255)."""


def op_code(text: str) -> int:
    """``AppOpsService.Shell.strOpToOp``: public name, then a number, then the debug name."""
    if text in _BY_PUBLIC:
        return _BY_PUBLIC[text]
    if text.lstrip("-").isdigit():
        return int(text)
    if text in _BY_NAME:
        return _BY_NAME[text]
    raise AppOpsError(f"Unknown operation string: {text}")


def op_name(code: int) -> str:
    """``AppOpsManager.opToName``."""
    return _OPS[code][0] if code in _OPS else f"Unknown({code})"


def mode_name(mode: int) -> str:
    """``AppOpsManager.modeToName``."""
    return MODE_NAMES[mode] if 0 <= mode < len(MODE_NAMES) else f"mode={mode}"


def parse_mode(text: str) -> int:
    """``AppOpsService.Shell.strModeToMode``."""
    if text in MODE_NAMES:
        return MODE_NAMES.index(text)
    if text.lstrip("-").isdigit():
        return int(text)
    raise AppOpsError(f"Mode {text} is not valid")


def format_duration(ms: int) -> str:
    """``android.util.TimeUtils.formatDuration(long, PrintWriter)``: ``+1d2h3m4s5ms``."""
    if ms == 0:
        return "0"
    sign = "+" if ms > 0 else "-"
    ms = abs(ms)
    millis, secs = ms % 1000, ms // 1000
    days, secs = divmod(secs, 86400)
    hours, secs = divmod(secs, 3600)
    minutes, secs = divmod(secs, 60)
    out = sign
    started = False
    for amount, unit in ((days, "d"), (hours, "h"), (minutes, "m"), (secs, "s")):
        if amount > 0 or started:
            out += f"{amount}{unit}"
            started = True
    return out + f"{millis}ms"


class AppOps:
    """The phone's app-op table (``AppOpsService``), kept in ``sys["appops"]``."""

    def __init__(self, phone: "VirtualPhone") -> None:
        self.phone = phone

    # ------------------------------------------------------------------ state
    def _table(self) -> dict[str, dict[str, dict[str, Any]]]:
        table = (self.phone.state_data().get("sys") or {}).get("appops")
        if table is None and self.phone.knobs.permissive:
            # a rooted agent emulator: the shell's SMS writes were allowed when it was built
            return {SHELL_PACKAGE: {"WRITE_SMS": {"mode": MODE_ALLOWED, "time": None, "reject": None}}}
        return table or {}

    def _edit(self, fn: Any) -> None:
        def go(d: dict[str, Any]) -> None:
            sys = d.setdefault("sys", {})
            if sys.get("appops") is None:
                sys["appops"] = self._table()
            fn(sys["appops"])

        self.phone.mutate(go)

    def entry(self, pkg: str, code: int) -> dict[str, Any] | None:
        return self._table().get(pkg, {}).get(op_name(code))

    def mode(self, pkg: str, code: int) -> int:
        """The op's effective mode for ``pkg`` (its own mode, else the op's default)."""
        ent = self.entry(pkg, code)
        if ent is not None and ent.get("mode") is not None:
            return int(ent["mode"])
        return _OPS[code][2] if code in _OPS else MODE_ALLOWED

    def allowed(self, pkg: str, name: str) -> bool:
        return self.mode(pkg, _BY_NAME[name]) == MODE_ALLOWED

    def note(self, pkg: str, name: str) -> bool:
        """``AppOpsManager.noteOp``: True when allowed; records the access or reject time."""
        code = _BY_NAME[name]
        ok = self.mode(pkg, code) == MODE_ALLOWED
        now = int(self.phone.now_epoch() * 1000)

        def edit(table: dict[str, dict[str, dict[str, Any]]]) -> None:
            ent = table.setdefault(pkg, {}).setdefault(op_name(code), {"mode": None, "time": None, "reject": None})
            ent["time" if ok else "reject"] = now

        self._edit(edit)
        return ok

    def set_mode(self, pkg: str, code: int, mode: int) -> None:
        """``setMode``: an op put back to its default mode and never accessed is pruned."""
        default = _OPS[code][2] if code in _OPS else MODE_ALLOWED

        def edit(table: dict[str, dict[str, dict[str, Any]]]) -> None:
            ops = table.setdefault(pkg, {})
            ent = ops.setdefault(op_name(code), {"mode": None, "time": None, "reject": None})
            ent["mode"] = None if mode == default else mode
            if ent["mode"] is None and ent.get("time") is None and ent.get("reject") is None:
                ops.pop(op_name(code), None)
            if not ops:
                table.pop(pkg, None)

        self._edit(edit)

    def reset(self, pkg: str | None) -> None:
        """``resetAllModes``: every op of ``pkg`` (or of all packages) back to its default."""
        def edit(table: dict[str, dict[str, dict[str, Any]]]) -> None:
            for name in [p for p in table if pkg is None or p == pkg]:
                ops = table[name]
                for op in list(ops):
                    ops[op]["mode"] = None
                    if ops[op].get("time") is None and ops[op].get("reject") is None:
                        ops.pop(op)
                if not ops:
                    table.pop(name)

        self._edit(edit)

    # ------------------------------------------------------------------ output
    def get_lines(self, pkg: str, code: int | None) -> str:
        """What ``appops get PKG [OP]`` prints."""
        ops = self._table().get(pkg, {})
        wanted = [(op, ent) for op, ent in ops.items() if code is None or op == op_name(code)]
        if not wanted:
            text = "No operations.\n"
            if code is not None and code in _OPS:
                text += f"Default mode: {mode_name(_OPS[code][2])}\n"
            return text
        now = int(self.phone.now_epoch() * 1000)
        lines = []
        for op, ent in sorted(wanted, key=lambda kv: _BY_NAME.get(kv[0], 999)):
            mode = ent.get("mode")
            if mode is None:
                mode = _OPS[_BY_NAME[op]][2] if op in _BY_NAME else MODE_ALLOWED
            line = f"{op}: {mode_name(int(mode))}"
            if ent.get("time") is not None:
                line += f"; time={format_duration(now - int(ent['time']))} ago"
            if ent.get("reject") is not None:
                line += f"; rejectTime={format_duration(now - int(ent['reject']))} ago"
            lines.append(line + "\n")
        return "".join(lines)


class AppOpsCommand:
    """``appops`` (``cmd appops``): get, set, reset, help."""

    def __init__(self, phone: "VirtualPhone") -> None:
        self.phone = phone
        self.ops: AppOps = getattr(phone, "appops", None) or AppOps(phone)

    async def __call__(self, ctx: CommandContext) -> int:
        args = list(ctx.args)
        if not args or args[0] in ("help", "-h"):
            await ctx.out(_USAGE)  # ShellCommand.handleDefaultCommands: help, then -1
            return 255
        verb, rest = args[0], args[1:]
        try:
            if verb == "get":
                pkg, code, _more = self._package_op(rest, required=False)
                await ctx.out(await self.phone.acall(self.ops.get_lines, pkg, code))
            elif verb == "set":
                pkg, code, more = self._package_op(rest, required=True)
                if not more:
                    raise AppOpsError("Mode not specified.")
                assert code is not None
                await self.phone.acall(self.ops.set_mode, pkg, code, parse_mode(more[0]))
            elif verb == "reset":
                names = [a for a in rest if not a.startswith("--") and not a.isdigit()]
                pkg = names[0] if names else None
                await self.phone.acall(self.ops.reset, pkg)
                await ctx.out(f"Reset all modes for: user 0, {'package ' + pkg if pkg else 'all packages'}\n")
            elif verb in ("write-settings", "read-settings"):
                await ctx.out("Current settings written.\n" if verb == "write-settings"
                              else "Last settings read.\n")
            else:
                await ctx.out(f"Unknown command: {verb}\n")
                return 255
        except AppOpsError as e:
            await ctx.err(f"Error: {e}\n")
            return 255
        return 0

    def _package_op(self, rest: list[str], required: bool) -> tuple[str, int | None, list[str]]:
        """``parseUserPackageOp``: PACKAGE then OP (``--user N`` skipped); the rest after them."""
        plain: list[str] = []
        skip = False
        for a in rest:
            if skip:
                skip = False
                continue
            if a in ("--user", "--attribution"):
                skip = True
            elif not a.startswith("--"):
                plain.append(a)
        if not plain:
            raise AppOpsError("Package name not specified.")
        if len(plain) < 2 and required:
            raise AppOpsError("Operation not specified.")
        code = op_code(plain[1]) if len(plain) > 1 else None
        pkg = plain[0]
        if not self.phone.packages.installed(pkg):
            raise AppOpsError(f"No UID for {pkg} in user 0")
        return pkg, code, plain[2:]


def appops_commands(phone: "VirtualPhone") -> dict[str, CommandHandler]:
    cmd: Any = AppOpsCommand(phone)
    return {"appops": cmd}
