"""Intents as ``am`` takes them on its command line: parsing ``<INTENT>`` arguments
(``-a``/``-d``/``-t``/``-c``/``-n``, typed extras, ``--activity-*`` flags) and naming what an
intent asks for.

Why its own module: ``am start``, ``am broadcast`` and ``screenrecord``'s intents all parse the
same ``Intent.parseCommandArgs`` syntax (frameworks/base core/java/android/content/Intent.java).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any


if TYPE_CHECKING:
    pass

__all__ = ["Intent", "IntentError", "parse_intent", "intent_kind", "short_component", "FLAG_ACTIVITY_CLEAR_TASK"]


# am's --activity-* switches (Intent.FLAG_ACTIVITY_*)
_ACTIVITY_FLAGS: dict[str, int] = {
    "--activity-clear-task": 0x00008000, "--activity-new-task": 0x10000000, "--activity-clear-top": 0x04000000,
    "--activity-single-top": 0x20000000, "--activity-no-history": 0x40000000, "--activity-reorder-to-front": 0x00020000,
    "--activity-reset-task-if-needed": 0x00200000, "--activity-exclude-from-recents": 0x00800000,
    "--activity-no-animation": 0x00010000, "--activity-multiple-task": 0x08000000,
}
FLAG_ACTIVITY_CLEAR_TASK = 0x00008000


# ============================================================================ intents
@dataclass
class Intent:
    action: str | None = None
    data: str | None = None
    mime: str | None = None
    categories: list[str] = field(default_factory=list)
    component: str | None = None
    package: str | None = None
    flags: int = 0
    extras: dict[str, Any] = field(default_factory=dict)
    wait: bool = False
    stop_first: bool = False

    def short(self) -> str:
        """``Intent.toShortString``: ``act=… cat=[…] dat=… typ=… flg=… pkg=… cmp=… (has extras)``."""
        parts = []
        if self.action:
            parts.append(f"act={self.action}")
        if self.categories:
            parts.append("cat=[" + ",".join(self.categories) + "]")
        if self.data:
            scheme, _, rest = self.data.partition(":")
            parts.append(f"dat={scheme}:" + ("/..." if rest.startswith("//") else "...") if rest else f"dat={self.data}")
        if self.mime:
            parts.append(f"typ={self.mime}")
        if self.flags:
            parts.append(f"flg=0x{self.flags:x}")
        if self.package:
            parts.append(f"pkg={self.package}")
        if self.component:
            parts.append(f"cmp={self.component}")
        if self.extras:
            parts.append("(has extras)")
        return "Intent { " + " ".join(parts) + " }"


class IntentError(ValueError):
    pass


def _typed(kind: str, value: str) -> Any:
    if kind in ("--ei",):
        return int(value)
    if kind in ("--el",):
        return int(value)
    if kind in ("--ef", "--ed"):
        return float(value)
    if kind == "--ez":
        v = value.lower()
        if v in ("true", "t", "1"):
            return True
        if v in ("false", "f", "0"):
            return False
        raise IntentError(f"Invalid boolean value: {value}")
    if kind in ("--eia", "--eial"):
        return [int(x) for x in value.split(",") if x]
    if kind in ("--ela", "--elal"):
        return [int(x) for x in value.split(",") if x]
    if kind in ("--efa", "--efal"):
        return [float(x) for x in value.split(",") if x]
    if kind in ("--esa", "--esal"):
        return [x.replace("\\,", ",") for x in re.split(r"(?<!\\),", value)]
    return value


_EXTRA_OPTS = {"--es", "-e", "--esn", "--ei", "--el", "--ef", "--ed", "--ez", "--eu", "--ecn", "--eia", "--eial",
               "--ela", "--elal", "--efa", "--efal", "--esa", "--esal"}
_SKIP_WITH_ARG = {"--user", "--display", "--windowingMode", "--activityType", "--task", "--receiver-permission",
                  "-P", "--start-profiler", "--sampling", "--attach-agent", "--attach-agent-bind", "-R",
                  "--task-overlay", "--lock-task", "--allow-background-activity-starts", "--remote-animation"}


def parse_intent(args: list[str]) -> Intent:
    """Parse ``am start``/``am broadcast`` intent arguments (``IntentCmd`` syntax)."""
    it = Intent()
    i = 0
    while i < len(args):
        a = args[i]

        def val() -> str:
            if i + 1 >= len(args):
                raise IntentError(f"Argument expected after \"{a}\"")
            return args[i + 1]

        if a == "-a":
            it.action = val()
            i += 2
        elif a == "-d":
            it.data = val()
            i += 2
        elif a == "-t":
            it.mime = val()
            i += 2
        elif a == "-c":
            it.categories.append(val())
            i += 2
        elif a == "-n":
            comp = val()
            if "/" not in comp:
                raise IntentError(f"Bad component name: {comp}")
            it.component = comp
            i += 2
        elif a == "-p":
            it.package = val()
            i += 2
        elif a in _ACTIVITY_FLAGS:
            it.flags |= _ACTIVITY_FLAGS[a]
            i += 1
        elif a == "-f":
            v = val()
            it.flags |= int(v, 16) if v.lower().startswith("0x") else int(v)
            i += 2
        elif a in ("--esn",):
            it.extras[val()] = None
            i += 2
        elif a in _EXTRA_OPTS:
            if i + 2 >= len(args):
                raise IntentError(f"Argument expected after \"{a}\"")
            key, raw = args[i + 1], args[i + 2]
            try:
                it.extras[key] = _typed(a if a != "-e" else "--es", raw)
            except ValueError as e:
                raise IntentError(str(e)) from None
            i += 3
        elif a == "-W":
            it.wait = True
            i += 1
        elif a == "-S":
            it.stop_first = True
            i += 1
        elif a in _SKIP_WITH_ARG:
            i += 2
        elif a.startswith("--activity-") or a.startswith("--receiver-") or a in ("-D", "-N", "--streaming",
                                                                                 "--track-allocation",
                                                                                 "--grant-read-uri-permission",
                                                                                 "--grant-write-uri-permission",
                                                                                 "--exclude-stopped-packages",
                                                                                 "--include-stopped-packages",
                                                                                 "--debug-log-resolution"):
            i += 1
        elif a.startswith("-"):
            raise IntentError(f"Unknown option: {a}")
        else:
            if "/" in a and ":" not in a:
                it.component = a
            elif ":" in a:
                it.data = a
            else:
                it.package = a
            i += 1
    return it


def short_component(pkg: str, activity: str) -> str:
    if activity.startswith(pkg + "."):
        activity = activity[len(pkg):]
    return f"{pkg}/{activity}"


def intent_kind(intent: "Intent") -> str | None:
    """Which of the family table's intent kinds (:data:`device.virtual.families.INTENT_KINDS`) an
    implicit intent is, by the filters the apps declare (see device.virtual.families for the
    manifests): SET_ALARM / SET_TIMER / SHOW_ALARMS|SHOW_TIMERS (DeskClock's HandleApiCalls and its
    alias), DIAL (with no data or ``tel:``) and VIEW ``tel:`` (Dialer), SENDTO or VIEW on ``sms:``,
    ``smsto:``, ``mms:``, ``mmsto:`` (Messaging's LaunchConversationActivity), INSERT of a contact
    (ContactEditorActivity), VIEW of a contacts or calendar URI, ``android.settings.*``, HOME."""
    act = intent.action or ""
    scheme = intent.data.split(":", 1)[0].lower() if intent.data and ":" in intent.data else ""
    target = intent.data.split(":", 1)[1].lstrip("/") if intent.data and ":" in intent.data else ""
    if act == "android.intent.action.SET_ALARM":
        return "set_alarm"
    if act == "android.intent.action.SET_TIMER":
        return "set_timer"
    if act in ("android.intent.action.SHOW_ALARMS", "android.intent.action.SHOW_TIMERS"):
        return "show_alarms"
    if act == "android.intent.action.INSERT" and (intent.mime or "").endswith(("/contact", "/raw_contact")):
        return "insert_contact"
    if act == "android.intent.action.INSERT" and (intent.mime or "").endswith("/event"):
        return "calendar"
    if act in ("android.intent.action.DIAL", "android.intent.action.CALL") and not intent.data:
        return "dial" if act.endswith("DIAL") else None
    if act in ("android.intent.action.VIEW", "android.intent.action.DIAL", "android.intent.action.CALL",
               "android.intent.action.SENDTO") and intent.data:
        if scheme == "tel":
            return "dial"
        if scheme in ("sms", "smsto", "mms", "mmsto"):
            return "sendto"
        if scheme == "content" and ("contacts" in target or "com.android.contacts" in target):
            return "view_contacts"
        if scheme == "content" and "calendar" in target:
            return "calendar"
        return None
    if act.startswith("android.settings.") or act == "android.intent.action.APPLICATION_PREFERENCES":
        return "settings"
    if act in ("android.intent.action.MAIN", "") and "android.intent.category.HOME" in intent.categories:
        return "home"
    return None
