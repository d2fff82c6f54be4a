"""Apps and intents on the virtual phone: ``am``, ``pm``, ``monkey``, ``ime``, ``cmd``, ``app_process``.

Why here and how: every way a script starts or stops an app — ``am start -n``, a launcher
intent, ``monkey -p``, an ``AlarmClock``/``ContactsContract`` intent, ``am force-stop`` — must
land in the sim exactly as the same gesture by a user would (the app opens, its task is
removed, the alarm exists), and print what ``am`` prints. Packages are the AOSP packages
the sim's apps report, plus framework packages and the IMEs a test rig installs (ADB
Keyboard, uiautomator2's), so ``pm list packages`` and ``cmd package resolve-activity``
answer like a Pixel with AOSP apps.

``am broadcast`` implements the ADB Keyboard protocol (``ADB_INPUT_TEXT``, ``ADB_INPUT_B64``,
``ADB_INPUT_CHARS``, ``ADB_INPUT_CODE``, ``ADB_EDITOR_CODE``, ``ADB_CLEAR_TEXT``) and
uiautomator2's (``ADB_KEYBOARD_INPUT_TEXT`` …): text reaches the focused field only while that
IME is the selected input method, as on a phone. Policy text thus never passes through a
shell word split (the ``--es msg`` value is one argv element).

Its parts: the package manager :mod:`.android_pm`, intents :mod:`.android_intent`, and the
``pm``/``ime``/``cmd``/``app_process`` commands :mod:`.android_pm_cmd`; this module is ``am``
(start, force-stop, broadcast and the keyboard protocols) and ``monkey``.
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import re
import time
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from .knobs import ADB_KEYBOARD_IME, U2_IME
from .sh_io import CommandContext, CommandHandler

if TYPE_CHECKING:
    from .phone import VirtualPhone
from .android_intent import FLAG_ACTIVITY_CLEAR_TASK, Intent, IntentError, parse_intent, short_component
from .android_pm import PackageManager, pid_of
from .android_pm_cmd import PackageCommands

__all__ = ["PackageManager", "am_commands", "Intent", "parse_intent", "pid_of",
           # re-exported where callers have always found them
           "IntentError", "next_alarm"]

_DAYS_BY_CALENDAR = {1: "sun", 2: "mon", 3: "tue", 4: "wed", 5: "thu", 6: "fri", 7: "sat"}


# ============================================================================ commands
_AM_USAGE = """Activity manager (activity) commands:
  help
      Print this help text.
  start-activity [-D] [-N] [-W] [-P <FILE>] [--start-profiler <FILE>] [--user <USER_ID> | current] <INTENT>
      Start an Activity.
  force-stop [--user <USER_ID> | all | current] <PACKAGE>
      Completely stop the given application package.
  broadcast [--user <USER_ID> | all | current] [--receiver-permission <PERMISSION>] <INTENT>
      Send a broadcast Intent.
"""


class AmCommands(PackageCommands):
    """``am`` and ``monkey``; with :class:`~device.virtual.android_pm_cmd.PackageCommands`, every command of this family."""

    def __init__(self, phone: "VirtualPhone") -> None:
        self.phone = phone
        self.pm: PackageManager = phone.packages

    def table(self) -> dict[str, CommandHandler]:
        return {"am": self.am, "pm": self.pm_cmd, "monkey": self.monkey, "ime": self.ime, "cmd": self.cmd,
                "app_process": self.app_process, "app_process64": self.app_process}

    # ------------------------------------------------------------------ am
    async def am(self, ctx: CommandContext) -> int:
        args = list(ctx.args)
        if not args or args[0] in ("help", "-h"):
            await ctx.out(_AM_USAGE)
            return 0
        verb, rest = args[0], args[1:]
        if verb in ("start", "start-activity"):
            return await self._am_start(ctx, rest)
        if verb in ("force-stop", "kill", "stop-app"):
            pkgs = [a for a in rest if not a.startswith("--") and a not in ("all", "current", "0")]
            for pkg in pkgs:
                await self.phone.acall(self.phone.force_stop, pkg)
            return 0
        if verb == "kill-all":
            return 0
        if verb == "broadcast":
            return await self._am_broadcast(ctx, rest)
        if verb in ("startservice", "start-service", "start-foreground-service", "startforegroundservice"):
            intent = await _intent(ctx, rest)
            if intent is None:
                return 1
            await ctx.out(f"Starting service: {intent.short()}\n")
            await ctx.err("Error: Not found; no service started.\n")
            return 0
        if verb == "get-current-user":
            await ctx.out("0\n")
            return 0
        if verb == "instrument":
            target = rest[-1] if rest else ""
            await ctx.out(f"INSTRUMENTATION_STATUS: Error=Unable to find instrumentation info for: ComponentInfo{{{target}}}\n"
                          "INSTRUMENTATION_STATUS_CODE: -1\n")
            await ctx.err(f"android.util.AndroidException: INSTRUMENTATION_FAILED: {target}\n")
            return 1
        if verb == "stack" or verb == "task":
            return 0
        await ctx.err(f"Unknown command: {verb}\n")
        return 255

    async def _am_start(self, ctx: CommandContext, args: list[str]) -> int:
        """ActivityManagerShellCommand.runStartActivity (frameworks/base services/core/java/com/
        android/server/am/ActivityManagerShellCommand.java): ``Starting: <intent>`` on stdout, then
        ``intent.addFlags(FLAG_ACTIVITY_NEW_TASK)`` and the start; a failed start is reported on
        ``PrintWriter out = mWaitOption ? pw : getErrPrintWriter()`` and the command still returns 0
        — ``START_CLASS_NOT_FOUND`` prints ``NO_CLASS_ERROR_CODE`` ("Error type 3") and ``Error:
        Activity class {…} does not exist.``, ``START_INTENT_NOT_RESOLVED`` ``Error: Activity not
        started, unable to resolve <intent>``. An activity that is not exported is refused by
        ActivityTaskSupervisor.checkStartAnyActivityPermission (ActivityStackSupervisor on
        Android 11) with ``SecurityException("Permission Denial: starting <intent> from null
        (pid=…, uid=2000) not exported from uid <app uid>")``, which nothing in the command catches:
        BasicShellCommandHandler.exec prints it after ``Exception occurred while executing
        'start':`` and the status stays -1 (255)."""
        intent = await _intent(ctx, args)
        if intent is None:
            return 255
        await ctx.out(f"Starting: {intent.short()}\n")
        t0 = time.perf_counter()
        result = await self.phone.acall(self.resolve_and_start, intent)
        report = ctx.out if intent.wait else ctx.err
        started = dataclasses.replace(intent, flags=intent.flags | 0x10000000).short()
        if result.startswith("error:"):
            msg = result[len("error:"):]
            if msg.startswith("class"):
                await report(f"Error type 3\nError: Activity class {{{intent.component}}} does not exist.\n")
                return 0
            if msg.startswith("denied:"):
                return await self._denied(ctx, args, started, int(msg.split(":", 1)[1]))
            await report(f"Error: Activity not started, unable to resolve {started}\n")
            return 0
        if intent.wait:
            ms = int((time.perf_counter() - t0) * 1000)
            await ctx.out(f"Status: ok\nLaunchState: {'COLD' if result.endswith('#cold') else 'HOT'}\n"
                          f"Activity: {result.split('#')[0]}\nTotalTime: {ms}\nWaitTime: {ms + 3}\nComplete\n")
        return 0

    async def _denied(self, ctx: CommandContext, args: list[str], intent_text: str, owner_uid: int) -> int:
        from .android_logd import SYSTEM_SERVER_PID, logd_of

        verb = (ctx.args[0] if ctx.args else "start") or "start"
        pid = ctx.shell.new_pid()  # the ``cmd activity`` process that made the binder call
        msg = (f"Permission Denial: starting {intent_text} from null (pid={pid}, uid=2000) "
               f"not exported from uid {owner_uid}")
        supervisor = "ActivityTaskSupervisor" if self.phone.knobs.android >= 12 else "ActivityStackSupervisor"
        logd_of(self.phone).write("system", "W", "ActivityTaskManager", msg, pid=SYSTEM_SERVER_PID, tid=1547, uid=1000)
        frames = [f"com.android.server.wm.{supervisor}.checkStartAnyActivityPermission({supervisor}.java:1142)",
                  "com.android.server.wm.ActivityStarter.executeRequest(ActivityStarter.java:1107)",
                  "com.android.server.wm.ActivityStarter.execute(ActivityStarter.java:721)",
                  "com.android.server.wm.ActivityTaskManagerService.startActivityAsUser(ActivityTaskManagerService.java:1284)",
                  "com.android.server.am.ActivityManagerService.startActivityAsUserWithFeature(ActivityManagerService.java:3143)",
                  "com.android.server.am.ActivityManagerShellCommand.runStartActivity(ActivityManagerShellCommand.java:865)",
                  "com.android.server.am.ActivityManagerShellCommand.onCommand(ActivityManagerShellCommand.java:241)",
                  "com.android.modules.utils.BasicShellCommandHandler.exec(BasicShellCommandHandler.java:97)",
                  "android.os.ShellCommand.exec(ShellCommand.java:38)",
                  "com.android.server.am.ActivityManagerService.onShellCommand(ActivityManagerService.java:10158)",
                  "android.os.Binder.shellCommand(Binder.java:1092)",
                  "android.os.Binder.onTransact(Binder.java:912)"]
        await ctx.err(f"\nException occurred while executing '{verb}':\njava.lang.SecurityException: {msg}\n"
                      + "".join(f"\tat {f}\n" for f in frames))
        return 255

    def resolve_and_start(self, intent: Intent) -> str:
        """Carry out an activity intent on the sim. Returns ``component[#cold]`` or ``error:...``."""
        phone = self.phone
        fam = phone.family
        act = intent.action or ""
        extras = intent.extras
        ax = "android.intent.extra.alarm."
        running_before = set(phone.ui_overlays()["tasks"])

        def started(pkg: str, activity: str | None = None) -> str:
            app = fam.package_apps.get(pkg)
            cold = app not in running_before
            comp = short_component(pkg, activity or fam.main_activity(pkg) or ".MainActivity")
            return comp + ("#cold" if cold else "")

        def started_kind(kind: str) -> str:
            """What ``am start`` reports for an intent of this kind on this family's phone."""
            hit = fam.started(kind)
            assert hit is not None, kind
            return started(*hit)

        if intent.component:
            pkg, cls = intent.component.split("/", 1)
            if not self.pm.installed(pkg):
                return "error:resolve"
            if pkg not in fam.package_apps or not self.pm.has_activity(pkg, cls):
                return "error:class"
            if not self.pm.exported(pkg, cls):
                return f"error:denied:{self.pm.uid(pkg)}"
            if intent.stop_first or intent.flags & FLAG_ACTIVITY_CLEAR_TASK:
                phone.force_stop(pkg)  # a cleared task starts again at the app's root screen
            if act == "android.intent.action.SET_ALARM" or act == "android.intent.action.SET_TIMER":
                pass  # handled below (DeskClock's HandleApiCalls)
            else:
                phone.open_app(fam.package_apps[pkg])
                return started(pkg, cls)
        if act == "android.intent.action.SET_ALARM":
            self._handle_set_alarm(extras)
            return started_kind("set_alarm")
        if act == "android.intent.action.SET_TIMER":
            length = extras.get(ax + "LENGTH")
            if length is not None:
                secs = max(1, int(length))
                rec2 = {"duration_s": secs, "remaining_s": secs, "running": True,
                        "label": str(extras.get(ax + "MESSAGE") or "")}

                def add_timer(d: dict[str, Any]) -> None:
                    if d["world"].get("timers") is None:
                        d["world"]["timers"] = []
                    d["world"]["timers"].append(rec2)
                phone.mutate(add_timer)
            if not extras.get(ax + "SKIP_UI") or length is None:
                phone.open_app("clock", "timer")
            return started_kind("set_timer")
        if act in ("android.intent.action.SHOW_ALARMS", "android.intent.action.SHOW_TIMERS"):
            phone.open_app("clock", "__root__" if act.endswith("ALARMS") else "timer")
            return started_kind("show_alarms")
        if act == "android.intent.action.INSERT" and (intent.mime or "").endswith(("/contact", "/raw_contact")):
            self._contact_editor(extras)
            return started_kind("insert_contact")
        if act == "android.intent.action.INSERT" and (intent.mime or "").endswith("/event"):
            phone.open_app("calendar")
            return started_kind("calendar")
        if act in ("android.intent.action.VIEW", "android.intent.action.DIAL", "android.intent.action.CALL",
                   "android.intent.action.SENDTO") and intent.data:
            scheme = intent.data.split(":", 1)[0].lower()
            target = intent.data.split(":", 1)[1].lstrip("/") if ":" in intent.data else ""
            if scheme == "tel":
                number = re.sub(r"[^\d+*#]", "", target)

                def dial(d: dict[str, Any]) -> None:
                    d["world"]["dialer_number"] = number
                phone.mutate(dial)
                # a stock Dialer opens on its dial pad (the sim flavor has no such screen)
                phone.open_app("phone", "dialpad" if phone.knobs.flavor in ("aosp", "google") else None)
                return started_kind("dial")
            if scheme in ("sms", "smsto", "mms", "mmsto"):
                address = target.split("?", 1)[0]
                phone.open_app("messages")
                if address:
                    def conv(d: dict[str, Any]) -> None:
                        ui = d["ui"]
                        ui["tasks"]["messages"] = [{"s": "__root__", "p": {}},
                                                   {"s": "conversation", "p": {"address": address}}]
                    phone.mutate(conv)
                return started_kind("sendto")
            if scheme == "content" and ("contacts" in target or "com.android.contacts" in target):
                phone.open_app("contacts")
                return started_kind("view_contacts")
            if scheme == "content" and "calendar" in target:
                phone.open_app("calendar")
                return started_kind("calendar")
            return "error:resolve"
        if act.startswith("android.settings.") or act == "android.intent.action.APPLICATION_PREFERENCES":
            phone.open_app("settings")
            return started_kind("settings")
        if act == "android.intent.action.MAIN" or not act:
            if "android.intent.category.HOME" in intent.categories:
                phone.open_app("launcher")
                return started_kind("home")
            pkg = intent.package
            if pkg and self.pm.installed(pkg) and pkg in fam.package_apps:
                phone.open_app(fam.package_apps[pkg])
                return started(pkg)
            return "error:resolve"
        return "error:resolve"

    def _handle_set_alarm(self, extras: dict[str, Any]) -> None:
        """DeskClock's ``HandleApiCalls.handleSetAlarm`` (packages/apps/DeskClock src/com/android/
        deskclock/HandleApiCalls.java). An hour outside 0–23 or minutes outside 0–59 end it
        (``notifyVoiceFailure``, "Illegal hour"): nothing is saved and the invisible activity
        finishes. No hour opens the alarm list to create one. Otherwise it looks for an alarm with
        the same hour and minutes — and the same label if ``EXTRA_MESSAGE`` was given, the same
        repeat days (none when ``EXTRA_DAYS`` is absent: "not recurring"), the same vibrate if
        ``EXTRA_VIBRATE`` was given (``setSelectionFromIntent``) — and enables the first match;
        only when none matches is a new alarm added (enabled, vibrate on unless told otherwise).
        ``getIntExtra`` / ``getBooleanExtra`` read an extra of another type as the default."""
        phone = self.phone
        ax = "android.intent.extra.alarm."

        def int_extra(name: str, default: int) -> int:
            v = extras.get(ax + name, default)
            return v if isinstance(v, int) and not isinstance(v, bool) else default

        hour = -1
        if ax + "HOUR" in extras:
            hour = int_extra("HOUR", -1)
            if hour < 0 or hour > 23:
                return  # "Illegal hour"
        minutes = int_extra("MINUTES", 0)
        if minutes < 0 or minutes > 59:
            return  # "Illegal minute"
        skip_ui = extras.get(ax + "SKIP_UI") is True
        if hour == -1:  # "Missing alarm time; opening UI"
            phone.open_app("clock", "__root__")
            return
        raw_days = extras.get(ax + "DAYS")
        days = [_DAYS_BY_CALENDAR[d] for d in raw_days or [] if d in _DAYS_BY_CALENDAR] \
            if isinstance(raw_days, list) else []
        has_label = ax + "MESSAGE" in extras
        label = extras.get(ax + "MESSAGE")
        label = label if isinstance(label, str) else ""
        vib = extras.get(ax + "VIBRATE")
        has_vibrate = ax + "VIBRATE" in extras

        def set_alarm(d: dict[str, Any]) -> None:
            from .android_content import _new_id

            alarms = d["world"].get("alarms")
            if alarms is None:
                alarms = d["world"]["alarms"] = []
            for a in alarms:
                if (int(a.get("hour", -1)) == hour and int(a.get("minute", -1)) == minutes
                        and (not has_label or (a.get("label") or "") == label)
                        and set(a.get("days") or []) == set(days)
                        and (not has_vibrate or bool(a.get("vibrate", True)) == (vib is True))):
                    a["enabled"] = True  # "Updated alarm"
                    return
            rec = {"hour": hour, "minute": minutes, "enabled": True, "label": label, "days": days,
                   "vibrate": (vib is True) if has_vibrate else True}
            rec["id"] = _new_id(d, "alarms")
            alarms.append(rec)  # "Created new alarm"
        phone.mutate(set_alarm)
        if not skip_ui:
            phone.open_app("clock", "__root__")

    def _contact_editor(self, extras: dict[str, Any]) -> None:
        """``ContactsContract.Intents.Insert``: the editor opens prefilled; nothing is saved."""
        from .phone import first_launch_prompt

        name = str(extras.get("name") or "").strip()
        phone_no = str(extras.get("phone") or "")
        email = str(extras.get("email") or "")
        company = str(extras.get("company") or "")

        def edit(d: dict[str, Any]) -> None:
            ui = d["ui"]
            f = ui.setdefault("fields", {})
            for k in [k for k in f if k.startswith(("ct_phone_", "ct_plabel_", "ct_email_"))]:
                del f[k]
            cut = name.rfind(" ")
            f["ct_first"], f["ct_last"] = (name[:cut], name[cut + 1:]) if cut > 0 else (name, "")
            f["ct_company"] = company
            f["ct_np"], f["ct_ne"] = 1, 1
            f["ct_phone_0"], f["ct_plabel_0"] = phone_no, "mobile"
            if email:
                f["ct_email_0"] = email
            f["ct_form"] = {"id": None, "init": "{}"}  # prefilled = unsaved changes, as on a phone
            ui["current"] = "contacts"
            ui["tasks"]["contacts"] = [{"s": "__root__", "p": {}}, {"s": "edit", "p": {}}]
            ui["recents"] = ["contacts"] + [a for a in ui.get("recents", []) if a != "contacts"]
            ui["dialog"] = ui["shade"] = None
            ui["focus"], ui["keyboard"] = "ct_first", True
            first_launch_prompt(d, "contacts")

        self.phone.mutate(edit)
        with self.phone._lock:
            self.phone._last_action_at = time.monotonic()

    # ------------------------------------------------------------------ broadcast / ADB keyboard
    async def _am_broadcast(self, ctx: CommandContext, args: list[str]) -> int:
        intent = await _intent(ctx, args)
        if intent is None:
            return 255
        if intent.flags == 0:
            intent.flags = 0x400000  # am broadcast adds FLAG_RECEIVER_INCLUDE_BACKGROUND
        await ctx.out(f"Broadcasting: {intent.short()}\n")
        code, data = await self.phone.acall(self.deliver_broadcast, intent)
        tail = f", data=\"{data}\"" if data is not None else ""
        await ctx.out(f"Broadcast completed: result={code}{tail}\n")
        return 0

    def deliver_broadcast(self, intent: Intent) -> tuple[int, str | None]:
        """Deliver to the receivers the phone has: the IMEs. Returns (result code, data)."""
        act = intent.action or ""
        ex = intent.extras
        ime = self.pm.current_ime()
        if ime not in self.pm.imes_installed():
            # a receiver exists only if its package is installed: a `default_input_method` key that
            # names an absent IME (a raw settings put) reaches no one, and the IMMS falls back
            ime = ""
        phone = self.phone
        if act.startswith("ADB_") and not act.startswith("ADB_KEYBOARD_"):
            if ime != ADB_KEYBOARD_IME:
                return 0, None
            if act == "ADB_INPUT_TEXT" and ex.get("msg") is not None:
                phone.input_text(str(ex["msg"]))
            elif act == "ADB_INPUT_B64" and ex.get("msg") is not None:
                try:
                    text = base64.b64decode(str(ex["msg"]), validate=False).decode("utf-8")
                except (binascii.Error, UnicodeDecodeError):
                    return 0, None
                phone.input_text(text)
            elif act == "ADB_INPUT_CHARS" and isinstance(ex.get("chars"), list):
                phone.input_text("".join(chr(c) for c in ex["chars"] if 0 <= c < 0x110000))
            elif act == "ADB_INPUT_CODE" and ex.get("code") is not None:
                phone.key(int(ex["code"]))
            elif act == "ADB_EDITOR_CODE":
                phone.key("enter")
            elif act == "ADB_CLEAR_TEXT":
                phone.clear_text()
            return 0, None
        if act.startswith("ADB_KEYBOARD_"):
            if ime != U2_IME:
                return 0, None
            if act == "ADB_KEYBOARD_INPUT_TEXT":
                raw = ex.get("text")
                try:
                    text = base64.b64decode(str(raw or ""), validate=False).decode("utf-8")
                except (binascii.Error, UnicodeDecodeError):
                    return 0, "invalid base64"
                phone.input_text(text)
            elif act == "ADB_KEYBOARD_CLEAR_TEXT":
                phone.clear_text()
            elif act == "ADB_KEYBOARD_HIDE":
                phone.hide_keyboard()
            elif act in ("ADB_KEYBOARD_SMART_ENTER", "ADB_KEYBOARD_EDITOR_CODE"):
                phone.key("enter")
            elif act == "ADB_KEYBOARD_GET_CLIPBOARD":
                return -1, base64.b64encode(phone.get_clipboard().encode()).decode()
            elif act == "ADB_KEYBOARD_SET_CLIPBOARD":
                try:
                    phone.set_clipboard(base64.b64decode(str(ex.get("text") or "")).decode("utf-8"))
                except (binascii.Error, UnicodeDecodeError):
                    return 0, "invalid base64"
            return -1, "success"
        return 0, None

    # ------------------------------------------------------------------ monkey
    async def monkey(self, ctx: CommandContext) -> int:
        args = list(ctx.args)
        pkgs: list[str] = []
        cats: list[str] = []
        count = 0
        i = 0
        lines = [f"  bash arg: {a}" for a in args]
        while i < len(args):
            a = args[i]
            if a == "-p" and i + 1 < len(args):
                pkgs.append(args[i + 1])
                i += 2
            elif a == "-c" and i + 1 < len(args):
                cats.append(args[i + 1])
                i += 2
            elif a in ("-s", "--throttle", "--pct-touch", "--pct-motion", "--pct-syskeys", "--pct-appswitch") and \
                    i + 1 < len(args):
                i += 2
            elif a.isdigit():
                count = int(a)
                i += 1
            else:
                i += 1
        await ctx.out("\n".join(lines) + "\n" + "args: [" + ", ".join(args) + "]\n")
        for a in args:
            await ctx.out(f' arg: "{a}"\n')
        for p in pkgs + cats:
            await ctx.out(f'data="{p}"\n')
        apps = self.phone.family.package_apps
        launchable = [p for p in pkgs if self.pm.installed(p) and p in apps]
        if not launchable:
            await ctx.out("** No activities found to run, monkey aborted.\n")
            return 252
        t0 = time.perf_counter()
        if count > 0:
            await self.phone.acall(self.phone.open_app, apps[launchable[0]])
        ms = int((time.perf_counter() - t0) * 1000)
        await ctx.out(f"Events injected: {count}\n## Network stats: elapsed time={ms}ms "
                      f"(0ms mobile, 0ms wifi, {ms}ms not connected)\n")
        return 0


def am_commands(phone: "VirtualPhone") -> dict[str, CommandHandler]:
    return AmCommands(phone).table()


def next_alarm(alarms: list[dict[str, Any]], now: datetime) -> tuple[datetime, dict[str, Any]] | None:
    """The next trigger time of the enabled alarms (repeat days or one-off), from ``now``."""
    days = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
    best: tuple[datetime, dict[str, Any]] | None = None
    for a in alarms:
        if not a.get("enabled", True):
            continue
        for k in range(0, 8):
            day = now + timedelta(days=k)
            t = day.replace(hour=int(a.get("hour", 0)), minute=int(a.get("minute", 0)), second=0, microsecond=0)
            if t <= now:
                continue
            rep = a.get("days") or []
            if rep and days[t.weekday()] not in rep:
                continue
            if best is None or t < best[0]:
                best = (t, a)
            break
    return best


async def _intent(ctx: CommandContext, args: list[str]) -> Intent | None:
    """The intent of an ``am`` command line (``Intent.parseCommandArgs``); a bad one prints
    ``Error: …`` on stderr and gives None (each command picks its own exit status)."""
    try:
        return parse_intent(args)
    except IntentError as e:
        await ctx.err(f"Error: {e}\n")
        return None
