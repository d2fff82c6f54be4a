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
"""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import binascii
import re
import time
import zlib
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from .android_apk import ApkError, apk_package
from .knobs import ADB_KEYBOARD_IME, U2_IME
from .shline import CommandContext, CommandHandler

if TYPE_CHECKING:
    from .phone import VirtualPhone

__all__ = ["PackageManager", "am_commands", "Intent", "parse_intent", "pid_of"]

#: Framework and provider packages every phone carries (the apps of the nine app ids come from
#: the phone's family: :mod:`device.virtual.families`).
_SYSTEM_APK = {
    "android": "/system/framework/framework-res.apk",
    "com.android.systemui": "/system_ext/priv-app/SystemUI/SystemUI.apk",
    "com.android.phone": "/system/priv-app/TeleService/TeleService.apk",
    "com.android.shell": "/system/priv-app/Shell/Shell.apk",
    "com.android.providers.contacts": "/system/priv-app/ContactsProvider/ContactsProvider.apk",
    "com.android.providers.telephony": "/system/priv-app/TelephonyProvider/TelephonyProvider.apk",
    "com.android.providers.calendar": "/system/priv-app/CalendarProvider/CalendarProvider.apk",
    "com.android.providers.settings": "/system/priv-app/SettingsProvider/SettingsProvider.apk",
    "com.android.providers.media.module": "/apex/com.android.mediaprovider/priv-app/MediaProvider/MediaProvider.apk",
    "com.android.permissioncontroller": "/apex/com.android.permission/priv-app/PermissionController/PermissionController.apk",
    "com.android.inputmethod.latin": "/system/app/LatinIME/LatinIME.apk",
    "com.android.bluetooth": "/apex/com.android.btservices/app/Bluetooth/Bluetooth.apk",
    "com.android.wallpaper": "/product/app/WallpaperPicker/WallpaperPicker.apk",
}
#: Which provider data ``pm clear`` wipes: package → world fields (an app's own: its family entry's ``clears``).
_CLEARS: dict[str, tuple[str, ...]] = {
    "com.android.providers.contacts": ("contacts", "calls"),
    "com.android.providers.telephony": ("messages",),
    "com.android.providers.calendar": ("events",),
}
#: IME service of packages a test rig installs.
_KNOWN_IMES = {"com.android.adbkeyboard": ADB_KEYBOARD_IME, "com.github.uiautomator": U2_IME,
               "com.android.inputmethod.latin": "com.android.inputmethod.latin/.LatinIME"}
_DAYS_BY_CALENDAR = {1: "sun", 2: "mon", 3: "tue", 4: "wed", 5: "thu", 6: "fri", 7: "sat"}


def pid_of(package: str) -> int:
    """A stable pid for a package's process (real pids differ per boot; ours per name)."""
    return 2000 + zlib.crc32(package.encode()) % 28000


def _hash(text: str) -> str:
    return f"{zlib.crc32(text.encode()):08x}"[:7]


# am's --activity-* switches (Intent.FLAG_ACTIVITY_*)
_ACTIVITY_FLAGS: dict[str, int] = {
    "--activity-clear-task": 0x00008000, "--activity-new-task": 0x10000000, "--activity-clear-top": 0x04000000,
    "--activity-single-top": 0x20000000, "--activity-no-history": 0x40000000, "--activity-reorder-to-front": 0x00020000,
    "--activity-reset-task-if-needed": 0x00200000, "--activity-exclude-from-recents": 0x00800000,
    "--activity-no-animation": 0x00010000, "--activity-multiple-task": 0x08000000,
}
FLAG_ACTIVITY_CLEAR_TASK = 0x00008000


@dataclass
class _Package:
    name: str
    path: str
    system: bool
    version_name: str = "14"
    version_code: int = 34
    installed_at: float = field(default_factory=time.time)
    enabled: bool = True


class PackageManager:
    """Installed packages and input methods of one phone."""

    def __init__(self, phone: "VirtualPhone") -> None:
        self.phone = phone
        self.family = phone.family
        self.packages: dict[str, _Package] = {}
        release, sdk = str(phone.knobs.android), phone.knobs.sdk
        for app in self.family.apps.values():
            # an app whose manifest has no versionName gets the platform's (Soong AppsDefaultVersionName)
            self.packages[app.package] = _Package(app.package, app.apk, True, app.version_name or release,
                                                  app.version_code or sdk)
        for pkg, path in _SYSTEM_APK.items():
            self.packages.setdefault(pkg, _Package(pkg, path, True, release, sdk))
        for ime in phone.knobs.installed_imes:
            pkg = ime.split("/", 1)[0]
            if pkg not in self.packages:
                self.packages[pkg] = _Package(pkg, self._data_path(pkg), False, "1.0", 1)

    @staticmethod
    def _data_path(pkg: str) -> str:
        h = base64.urlsafe_b64encode(zlib.crc32(pkg.encode()).to_bytes(4, "big") * 4).decode().rstrip("=")
        return f"/data/app/~~{h[:22]}==/{pkg}-{h[::-1][:22]}==/base.apk"

    # --- queries
    def installed(self, pkg: str) -> bool:
        return pkg in self.packages

    def main_activity(self, pkg: str) -> str | None:
        """The launcher activity of one of the family's apps (``.X`` or a full class), else None."""
        return self.family.main_activity(pkg)

    def has_activity(self, pkg: str, activity: str) -> bool:
        app = self.family.by_package(pkg)
        return app is not None and app.declares(activity)

    def exported(self, pkg: str, activity: str) -> bool:
        app = self.family.by_package(pkg)
        return app is None or app.exported(activity)

    def requested(self, pkg: str) -> frozenset[str] | None:
        """The runtime permissions the package's manifest asks for (None: not modelled)."""
        app = self.family.by_package(pkg)
        return app.requested if app is not None else None

    def uid(self, pkg: str) -> int:
        """The package's uid, as ``dumpsys package`` prints it (Settings runs as system, 1000)."""
        p = self.packages.get(pkg)
        return 1000 if p is not None and p.system and pkg in ("android", "com.android.settings") \
            else 10000 + zlib.crc32(pkg.encode()) % 900

    def imes_installed(self) -> list[str]:
        return [ime for pkg, ime in _KNOWN_IMES.items() if pkg in self.packages]

    def imes_enabled(self) -> list[str]:
        raw = self.phone.settings.raw("secure", "enabled_input_methods") or ""
        return [i for i in raw.split(":") if i and i in self.imes_installed()]

    def current_ime(self) -> str:
        return self.phone.settings.raw("secure", "default_input_method") or ""

    # --- changes
    def enable_ime(self, ime: str, on: bool) -> str:
        if ime not in self.imes_installed():
            return "unknown"
        enabled = self.imes_enabled()
        if on:
            if ime in enabled:
                return "already"
            enabled.append(ime)
        else:
            if ime not in enabled:
                return "already"
            enabled.remove(ime)
            if self.current_ime() == ime:
                self.phone.settings.put("secure", "default_input_method", enabled[0] if enabled else "")
        self.phone.settings.put("secure", "enabled_input_methods", ":".join(enabled))
        return "done"

    def set_ime(self, ime: str) -> bool:
        if ime not in self.imes_installed():
            return False
        if ime not in self.imes_enabled():
            self.enable_ime(ime, True)
        self.phone.settings.put("secure", "default_input_method", ime)
        return True

    def install(self, data: bytes) -> str:
        """Record an APK's package; returns ``Success`` or a ``Failure [...]`` line."""
        try:
            pkg = apk_package(data)
        except ApkError:
            return "Failure [INSTALL_PARSE_FAILED_NOT_APK: Failed to parse APK]"
        if pkg in self.packages and self.packages[pkg].system:
            return "Failure [INSTALL_FAILED_UPDATE_INCOMPATIBLE: Existing package signatures do not match]"
        self.packages[pkg] = _Package(pkg, self._data_path(pkg), False, "1.0", 1)
        return "Success"

    def uninstall(self, pkg: str) -> str:
        p = self.packages.get(pkg)
        if p is None or p.system:
            return "Failure [DELETE_FAILED_INTERNAL_ERROR]"
        del self.packages[pkg]
        ime = _KNOWN_IMES.get(pkg)
        if ime is not None:
            self.enable_ime(ime, False)
        return "Success"

    def clear(self, pkg: str) -> bool:
        """``pm clear``: wipe the package's own data (and revoke its runtime permissions)."""
        if pkg not in self.packages:
            return False
        entry = self.family.by_package(pkg)
        fields = entry.clears if entry is not None else _CLEARS.get(pkg, ())
        app = entry.app if entry is not None else None

        def wipe(d: dict[str, Any]) -> None:
            w = d["world"]
            for f in fields:
                if f == "stopwatch":
                    w[f] = {"elapsed_ms": 0, "running": False, "laps": []}
                elif f == "calculator_display":
                    w[f] = "0"
                elif f == "dialer_number":
                    w[f] = ""
                else:
                    w[f] = []
            if app is not None:
                sys = d["sys"]
                for key in ("permissions_granted", "permissions_user_set", "permissions_denied"):
                    sys[key] = [a for a in sys.get(key, []) if a != app]
                ui = d["ui"]
                ui["tasks"].pop(app, None)
                ui["recents"] = [a for a in ui.get("recents", []) if a != app]
                if ui.get("current") == app:
                    ui["current"] = None
                    ui["dialog"] = None
                    ui["focus"], ui["keyboard"] = None, False

        self.phone.mutate(wipe)
        return True

    def grant(self, pkg: str, grant: bool) -> bool:
        """``pm grant|revoke PKG PERM`` on the one runtime permission the model has (an app's
        first-launch prompt, POST_NOTIFICATIONS). As PermissionManagerService does for the shell
        (frameworks/base ``services/core/java/com/android/server/pm/permission/
        PermissionManagerServiceImpl.java``), a grant or revoke leaves the flags alone: an app
        whose prompt the user answered (USER_SET) does not ask again after a revoke; one that was
        only granted from the shell asks again once revoked."""
        app = self.family.package_apps.get(pkg)
        if pkg not in self.packages:
            return False
        if app is None:
            return True

        def edit(d: dict[str, Any]) -> None:
            sys = d["sys"]
            gate = [a for a in sys.get("permissions_granted", []) if a != app]
            denied = [a for a in sys.get("permissions_denied", []) if a != app]
            user_set = app in sys.get("permissions_user_set", [])
            if grant or user_set:
                gate.append(app)  # granted, or answered: the prompt stays away
            if not grant and user_set:
                denied.append(app)
            sys["permissions_granted"], sys["permissions_denied"] = gate, denied

        self.phone.mutate(edit)
        return True

    def clear_flags(self, pkg: str, flags: list[str]) -> bool:
        """``pm clear-permission-flags PKG PERM user-set user-fixed``: the user's answer is
        forgotten, so a permission that is not granted is asked for again at the next launch."""
        app = self.family.package_apps.get(pkg)
        if pkg not in self.packages:
            return False
        if app is None or "user-set" not in flags:
            return True

        def edit(d: dict[str, Any]) -> None:
            sys = d["sys"]
            sys["permissions_user_set"] = [a for a in sys.get("permissions_user_set", []) if a != app]
            if app in sys.get("permissions_denied", []):  # not granted and no answer: the prompt is back
                sys["permissions_denied"] = [a for a in sys["permissions_denied"] if a != app]
                sys["permissions_granted"] = [a for a in sys.get("permissions_granted", []) if a != app]

        self.phone.mutate(edit)
        return True

    def set_flags(self, pkg: str, flags: list[str]) -> bool:
        """``pm set-permission-flags PKG PERM user-set``: as if the user had answered."""
        app = self.family.package_apps.get(pkg)
        if pkg not in self.packages:
            return False
        if app is None or "user-set" not in flags:
            return True

        def edit(d: dict[str, Any]) -> None:
            sys = d["sys"]
            if app not in sys.get("permissions_user_set", []):
                sys["permissions_user_set"] = [*sys.get("permissions_user_set", []), app]
            if app not in sys.get("permissions_granted", []):  # answered and not granted: a denial
                sys["permissions_granted"] = [*sys.get("permissions_granted", []), app]
                sys["permissions_denied"] = [*sys.get("permissions_denied", []), app]

        self.phone.mutate(edit)
        return True


# ============================================================================ permissions
_P = "android.permission."
#: Platform permissions by protection (frameworks/base core/res/AndroidManifest.xml): "dangerous"
#: (runtime), "development" (signature|…|development: ``pm grant`` may grant them too), "normal" /
#: "signature" (install-time: not changeable). The release a permission first exists in, where later.
_PERMISSIONS: dict[str, tuple[str, int]] = {
    **{_P + n: ("dangerous", 11) for n in (
        "READ_CALENDAR", "WRITE_CALENDAR", "CAMERA", "READ_CONTACTS", "WRITE_CONTACTS", "GET_ACCOUNTS",
        "ACCESS_FINE_LOCATION", "ACCESS_COARSE_LOCATION", "ACCESS_BACKGROUND_LOCATION", "RECORD_AUDIO",
        "READ_PHONE_STATE", "READ_PHONE_NUMBERS", "CALL_PHONE", "ANSWER_PHONE_CALLS", "READ_CALL_LOG",
        "WRITE_CALL_LOG", "ADD_VOICEMAIL", "USE_SIP", "BODY_SENSORS", "SEND_SMS", "RECEIVE_SMS", "READ_SMS",
        "RECEIVE_WAP_PUSH", "RECEIVE_MMS", "READ_EXTERNAL_STORAGE", "WRITE_EXTERNAL_STORAGE",
        "ACTIVITY_RECOGNITION", "ACCESS_MEDIA_LOCATION")},
    **{_P + n: ("dangerous", 12) for n in ("BLUETOOTH_SCAN", "BLUETOOTH_CONNECT", "BLUETOOTH_ADVERTISE", "UWB_RANGING")},
    **{_P + n: ("dangerous", 13) for n in ("READ_MEDIA_IMAGES", "READ_MEDIA_VIDEO", "READ_MEDIA_AUDIO",
                                           "NEARBY_WIFI_DEVICES", "BODY_SENSORS_BACKGROUND")},
    # the model's first-launch prompt asks for it on every release it runs (see android_dumpsys)
    _P + "POST_NOTIFICATIONS": ("dangerous", 11),
    _P + "READ_MEDIA_VISUAL_USER_SELECTED": ("dangerous", 14),
    **{_P + n: ("development", 11) for n in (
        "WRITE_SECURE_SETTINGS", "DUMP", "READ_LOGS", "SET_ANIMATION_SCALE", "CHANGE_CONFIGURATION",
        "PACKAGE_USAGE_STATS", "SET_DEBUG_APP", "SET_PROCESS_LIMIT", "SET_ALWAYS_FINISH",
        "SIGNAL_PERSISTENT_PROCESSES", "SYSTEM_ALERT_WINDOW")},
    **{_P + n: ("normal", 11) for n in (
        "INTERNET", "ACCESS_NETWORK_STATE", "CHANGE_NETWORK_STATE", "ACCESS_WIFI_STATE", "CHANGE_WIFI_STATE",
        "VIBRATE", "WAKE_LOCK", "RECEIVE_BOOT_COMPLETED", "FOREGROUND_SERVICE", "BLUETOOTH", "BLUETOOTH_ADMIN",
        "NFC", "MODIFY_AUDIO_SETTINGS", "READ_SYNC_SETTINGS", "WRITE_SYNC_SETTINGS", "DISABLE_KEYGUARD",
        "USE_FULL_SCREEN_INTENT", "SET_WALLPAPER", "EXPAND_STATUS_BAR", "REQUEST_DELETE_PACKAGES")},
    "com.android.alarm.permission.SET_ALARM": ("normal", 11),
    **{_P + n: ("signature", 11) for n in (
        "WRITE_SETTINGS", "MODIFY_PHONE_STATE", "DEVICE_POWER", "SHUTDOWN", "INTERACT_ACROSS_USERS",
        "MANAGE_DOCUMENTS", "READ_PRIVILEGED_PHONE_STATE", "STATUS_BAR", "BIND_NOTIFICATION_LISTENER_SERVICE",
        "SCHEDULE_EXACT_ALARM", "REQUEST_INSTALL_PACKAGES")},
}
def check_runtime_permission(android: int, pkg: str, perm: str,
                             requested: frozenset[str] | None = None) -> tuple[str, str] | None:
    """Why ``pm grant|revoke PKG PERM`` is refused, as ``(exception class, message)``; ``("", …)``
    when the service only logs it and returns; None when the grant goes through.

    * Android 11 — PermissionManagerService.grantRuntimePermissionInternal: ``Unknown permission:
      X``, then BasePermission.enforceDeclaredUsedAndRuntimeOrDevelopment: first "Package P has not
      requested permission X", then "Permission X requested by P is not a changeable permission type".
    * Android 13/14 — PermissionManagerServiceImpl.grantRuntimePermissionInternal: ``Unknown
      permission: X``; the type check first ("… is not a changeable permission type" unless the
      permission is runtime or development), then "Package P has not requested permission X".
    * Android 15 — services/permission … access/permission/PermissionService.kt
      (``PermissionManager.USE_ACCESS_CHECKING_SERVICE = SdkLevel.isAtLeastV()``):
      ``IllegalArgumentException("Unknown permission X")``, "Permission X requested by package P is
      not a changeable permission type"; a permission the app never asked for is only logged
      ("Permission X isn't requested by package P") and the call returns."""
    spec = _PERMISSIONS.get(perm)
    if spec is None or android < spec[1]:
        return ("java.lang.IllegalArgumentException",
                f"Unknown permission {perm}" if android >= 15 else f"Unknown permission: {perm}")
    changeable = spec[0] in ("dangerous", "development")
    asked = requested is None or perm in requested  # packages not modelled (``requested`` None): as asked
    by = "package " if android >= 15 else ""
    not_changeable = ("java.lang.SecurityException",
                      f"Permission {perm} requested by {by}{pkg} is not a changeable permission type")
    not_requested = ("java.lang.SecurityException", f"Package {pkg} has not requested permission {perm}")
    if android <= 11:
        return not_requested if not asked else None if changeable else not_changeable
    if not changeable:
        return not_changeable
    if not asked:
        return ("", f"Permission {perm} isn't requested by package {pkg}") if android >= 15 else not_requested
    return None


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


def _short_component(pkg: str, activity: str) -> str:
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


class AmCommands:
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
            try:
                intent = parse_intent(rest)
            except IntentError as e:
                await ctx.err(f"Error: {e}\n")
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
        try:
            intent = parse_intent(args)
        except IntentError as e:
            await ctx.err(f"Error: {e}\n")
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
        from .android_media import SYSTEM_SERVER_PID, logd_of

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
            comp = _short_component(pkg, activity or fam.main_activity(pkg) or ".MainActivity")
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
        try:
            intent = parse_intent(args)
        except IntentError as e:
            await ctx.err(f"Error: {e}\n")
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
                    from .android_media import SYSTEM_SERVER_PID, logd_of

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
        comp = _short_component(pkg, activity)
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
        from .u2server import DeviceProcess, process_table, uiautomation_holder

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
