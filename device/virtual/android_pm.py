"""The virtual phone's package manager: installed packages, their activities and uids, input
methods, and runtime permissions per release.

Why its own module: ``pm``, ``cmd package``, ``am start`` (what resolves, what is exported),
``ime`` and ``dumpsys package`` all read and change one table of packages.
"""

from __future__ import annotations

import base64
import time
import zlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

from .android_apk import ApkError, apk_package
from .knobs import ADB_KEYBOARD_IME, U2_IME

if TYPE_CHECKING:
    from .phone import VirtualPhone

__all__ = ["PackageManager", "pid_of", "check_runtime_permission"]

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
        def forget(sys: dict[str, Any], app: str) -> None:
            sys["permissions_user_set"] = [a for a in sys.get("permissions_user_set", []) if a != app]
            if app in sys.get("permissions_denied", []):  # not granted and no answer: the prompt is back
                sys["permissions_denied"] = [a for a in sys["permissions_denied"] if a != app]
                sys["permissions_granted"] = [a for a in sys.get("permissions_granted", []) if a != app]

        return self._user_set_flag(pkg, flags, forget)

    def set_flags(self, pkg: str, flags: list[str]) -> bool:
        """``pm set-permission-flags PKG PERM user-set``: as if the user had answered."""
        def answer(sys: dict[str, Any], app: str) -> None:
            if app not in sys.get("permissions_user_set", []):
                sys["permissions_user_set"] = [*sys.get("permissions_user_set", []), app]
            if app not in sys.get("permissions_granted", []):  # answered and not granted: a denial
                sys["permissions_granted"] = [*sys.get("permissions_granted", []), app]
                sys["permissions_denied"] = [*sys.get("permissions_denied", []), app]

        return self._user_set_flag(pkg, flags, answer)

    def _user_set_flag(self, pkg: str, flags: list[str], change: Callable[[dict[str, Any], str], None]) -> bool:
        """Set or clear the ``user-set`` flag of ``pkg``'s runtime permissions: ``change(sys, app)``
        on the world's permission state; False for an unknown package, and nothing to do for an
        app without the permission prompt or for other flags."""
        app = self.family.package_apps.get(pkg)
        if pkg not in self.packages:
            return False
        if app is None or "user-set" not in flags:
            return True
        self.phone.mutate(lambda d: change(d["sys"], app))
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
