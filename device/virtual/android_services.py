"""System services that own a setting: ``cmd wifi|bluetooth_manager|connectivity|notification|
uimode|location|media_session|audio`` and their ``dumpsys`` lines, as a stock phone runs them.

Why a service layer: on a real phone a setting such as ``wifi_on`` or ``zen_mode`` is only the
*service's* persisted copy of its state. The shell user may write the key (it holds
WRITE_SECURE_SETTINGS), but nothing switches: the radio, the Do Not Disturb state, the UI mode
stay as they were, and the service rewrites its key on its own schedule. What switches state is
the service's own binder call, which is what these shell commands make. So on a stock phone
(``knobs.permissive=False``) :class:`~device.virtual.android_settings.SettingsProvider` keeps a
raw write of a key in :data:`SERVICE_KEYS` apart from the world, and the commands below change
the world (what the Settings app and quick settings show) *and* the keys the service persists.

When each service rewrites its key after a raw ``settings put`` (AOSP):

* ``global zen_mode`` — ``ZenModeHelper.SettingsObserver.update`` (frameworks/base
  services/core/java/com/android/server/notification/ZenModeHelper.java) observes the key and,
  when it differs from ``mZenMode``, calls ``setZenModeSetting(mZenMode)`` at once ("Fixing zen
  mode setting"); modelled as a rewrite :data:`ZEN_REWRITE_S` after the write.
* ``secure ui_night_mode`` — ``UiModeManagerService`` reads it only at boot and user switch and
  writes it in ``persistNightMode`` when ``setNightMode`` runs: the raw value stays until then.
* ``global wifi_on`` / ``bluetooth_on`` / ``airplane_mode_on`` / ``mobile_data`` — no observer
  switches a radio (the radios follow ``WifiManager.setWifiEnabled``, ``BluetoothAdapter``,
  ``ConnectivityManager.setAirplaneMode`` → ``ACTION_AIRPLANE_MODE_CHANGED``, which the shell may
  not broadcast, and ``TelephonyManager.setDataEnabled``); ``WifiSettingsStore``,
  ``BluetoothManagerService.persistBluetoothSetting``, ``ConnectivityService.setAirplaneMode``
  and the data settings manager rewrite the key on the service's *next state change*.

* ``global mode_ringer`` / ``system volume_music_speaker`` — AudioService's records
  (:data:`~device.virtual.android_settings.AUDIO_KEYS`): its ``SettingsObserver`` does not watch
  them, so a raw put changes the key and nothing else; the service rewrites them
  ``PERSIST_DELAY`` (500 ms) after its next ringer or volume change. The ringer changes through
  ``cmd audio set-ringer-mode`` (Android 15) or the ring stream's volume (``cmd media_session
  volume --stream 2``, AudioService's ``getNewRingerMode`` / ``checkForRingerModeChange``, refused
  into or out of SILENT); ``dumpsys audio`` prints its ``Ringer mode:`` and stream sections.

``cmd connectivity airplane-mode`` with no argument reads ``Settings.Global.AIRPLANE_MODE_ON``
itself (ConnectivityService ``ShellCmd``), so after a raw put it prints the raw key, not the
radio state — as a real phone does.

The parts: what the commands share :mod:`.android_svc_common`; AudioService :mod:`.android_audio`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .sh_io import CommandContext

if TYPE_CHECKING:
    from .phone import VirtualPhone
from .android_audio import (AudioDenied, _audio, _media_session, adjust_stream_volume, dumpsys_audio, ringer_mode,
                            set_stream_volume, stream_volume)
from .android_svc_common import (_SET_DND, _ZEN_FILTER, _ZEN_NAMES, SERVICE_KEYS, ZEN_REWRITE_S, Handler, _set,
                                 _unknown, _world, zen_mode_name)

__all__ = ["SERVICE_KEYS", "ZEN_REWRITE_S", "SERVICE_COMMANDS", "run_service_command", "dumpsys_notification",
           "dumpsys_bluetooth_manager", "zen_mode_name", "dumpsys_audio", "set_stream_volume", "adjust_stream_volume",
           "stream_volume", "ringer_mode", "AudioDenied"]


# ============================================================================ wifi
async def _wifi(phone: "VirtualPhone", ctx: CommandContext, rest: list[str]) -> int:
    """packages/modules/Wifi service/java/com/android/server/wifi/WifiShellCommand.java."""
    verb = rest[0] if rest else None
    if verb is None or verb in ("help", "-h"):
        await ctx.out("Wi-Fi (wifi) commands:\n  help or -h\n    Print this help text.\n"
                      "  set-wifi-enabled enabled|disabled\n    Enables/disables Wifi on this device.\n"
                      "  status\n    Current wifi status\n")
        return 255 if verb is None else 0
    if verb == "set-wifi-enabled":
        arg = rest[1] if len(rest) > 1 else ""
        if arg not in ("enabled", "disabled"):
            await ctx.err("Error: Invalid argument to 'set-wifi-enabled' - must be 'enabled' or 'disabled'\n")
            return 255
        await _set(phone, "wifi", arg == "enabled")
        return 0
    if verb == "status":
        on = bool(_world(phone).get("wifi"))
        text = "Wifi is enabled\n" if on else "Wifi is disabled\n"
        text += "Wifi scanning is always available\n"
        if on:
            if phone.knobs.android >= 12:
                text += "==== Primary ClientModeManager instance ====\n"
            text += "Wifi is not connected\n"
        await ctx.out(text)
        return 0
    return await _unknown(ctx, verb)


# ============================================================================ bluetooth
async def _bluetooth(phone: "VirtualPhone", ctx: CommandContext, rest: list[str]) -> int:
    """``cmd bluetooth_manager`` — BluetoothShellCommand (Android 13+).

    13 (frameworks/base services/core/java/com/android/server/BluetoothShellCommand.java) prints
    ``Enabling Bluetooth``; 14+ (packages/modules/Bluetooth service/.../BluetoothShellCommand.java)
    prints ``BluetoothShellCommand: Exec<cmd>`` then ``<cmd>: Success``. Android 11's
    BluetoothManagerService has no shell command: ``Binder.onShellCommand`` prints
    ``No shell command implementation.`` on stderr and cmd exits 0."""
    if phone.knobs.android < 13:
        await ctx.err("No shell command implementation.\n")
        return 0
    verb = rest[0] if rest else None
    if verb in ("enable", "disable"):
        await _set(phone, "bluetooth", verb == "enable")
        if phone.knobs.android == 13:
            await ctx.out("Enabling Bluetooth\n" if verb == "enable" else "Disabling Bluetooth\n")
        else:
            await ctx.out(f"BluetoothShellCommand: Exec{verb}\n{verb}: Success\n")
        return 0
    if verb is None or verb in ("help", "-h"):
        await ctx.out("Bluetooth Manager Commands:\n  help or -h\n    Print this help text.\n"
                      "  enable\n    Enable Bluetooth on this device.\n"
                      "  disable\n    Disable Bluetooth on this device.\n")
        return 255 if verb is None else 0
    return await _unknown(ctx, verb)


def dumpsys_bluetooth_manager(phone: "VirtualPhone") -> str:
    """The head of ``BluetoothManagerService.dump`` (``enabled:`` / ``state: ON|OFF``)."""
    on = bool(_world(phone).get("bluetooth"))
    return ("Bluetooth Status\n"
            f"  enabled: {'true' if on else 'false'}\n"
            f"  state: {'ON' if on else 'OFF'}\n"
            "  address: 3C:28:6D:41:7A:02\n"
            f"  name: {phone.settings.raw('secure', 'bluetooth_name') or phone.profile.model}\n")


# ============================================================================ connectivity
async def _connectivity(phone: "VirtualPhone", ctx: CommandContext, rest: list[str]) -> int:
    """ConnectivityService ``ShellCmd``: ``airplane-mode [enable|disable]``.

    With no argument it prints ``Settings.Global.getInt(AIRPLANE_MODE_ON)`` — the key, whatever
    wrote it."""
    verb = rest[0] if rest else None
    if verb == "airplane-mode":
        arg = rest[1] if len(rest) > 1 else None
        if arg in ("enable", "disable"):
            await _set(phone, "airplane_mode", arg == "enable")
            return 0
        if arg is None:
            v = await phone.acall(phone.settings.get, "global", "airplane_mode_on")
            await ctx.out("disabled\n" if (v or "0").strip() in ("0", "") else "enabled\n")
            return 0
    if verb is None or verb == "airplane-mode" or verb in ("help", "-h"):
        await ctx.out("Connectivity service commands:\n  help\n    Print this help text.\n"
                      "  airplane-mode [enable|disable]\n    Turn airplane mode on or off.\n"
                      "  airplane-mode\n    Get airplane mode.\n")
        return 0 if verb in ("help", "-h") else 255
    return await _unknown(ctx, verb)


# ============================================================================ notification (zen)
async def _notification(phone: "VirtualPhone", ctx: CommandContext, rest: list[str]) -> int:
    """NotificationShellCommand ``set_dnd on|none|priority|alarms|all|off``
    (services/core/java/com/android/server/notification/NotificationShellCommand.java):
    ``on``/``none`` = total silence, ``off``/``all`` = DND off."""
    verb = rest[0] if rest else None
    if verb == "set_dnd":
        mode = _SET_DND.get(rest[1] if len(rest) > 1 else "")
        if mode is None:
            await ctx.err("Error: java.lang.IllegalArgumentException: Invalid filter: 0\n")
            return 255

        def apply() -> None:
            if mode:
                phone.settings.zen_level = mode
            phone.settings.service_set("do_not_disturb", mode != 0)
        await phone.acall(apply)
        return 0
    if verb is None or verb in ("help", "-h"):
        await ctx.out("usage: cmd notification SUBCMD [args]\n\nSUBCMDs:\n  allow_listener COMPONENT [user_id]\n"
                      "  disallow_listener COMPONENT [user_id]\n  allow_dnd PACKAGE [user_id]\n"
                      "  disallow_dnd PACKAGE [user_id]\n  set_dnd [on|none (same as on)|priority|alarms|all|off "
                      "(same as all)]\n  post [--help | flags] TAG TEXT\n")
        return 0
    return await _unknown(ctx, verb)


def dumpsys_notification(phone: "VirtualPhone") -> str:
    """The ``Zen Mode:`` block of NotificationManagerService.dumpImpl + ZenModeHelper.dump."""
    on = bool(_world(phone).get("do_not_disturb"))
    zen = phone.settings.zen_level if on else 0
    return ("Current Notification Manager state:\n\n  Notification List:\n\n"
            "  Zen Mode:\n"
            f"    mInterruptionFilter={_ZEN_FILTER[zen]}\n"
            f"    mZenMode={_ZEN_NAMES[zen]}\n"
            "    mUser=0\n")


# ============================================================================ uimode
_NIGHT_STR = {True: "yes", False: "no", None: "auto"}


async def _uimode(phone: "VirtualPhone", ctx: CommandContext, rest: list[str]) -> int:
    """UiModeManagerService.Shell ``night [yes|no|auto]``: sets, then prints ``Night mode: X``."""
    verb = rest[0] if rest else None
    if verb == "night":
        arg = rest[1] if len(rest) > 1 else None
        if arg is not None:
            if arg not in ("yes", "no", "auto"):
                await ctx.err("Error: mode must be 'yes', 'no', or 'auto', or 'custom'\n")
                return 255
            await _set(phone, "dark_mode", {"yes": True, "no": False, "auto": None}[arg])
        v = _world(phone).get("dark_mode")
        await ctx.out(f"Night mode: {_NIGHT_STR.get(v, 'auto')}\n")
        return 0
    if verb is None or verb in ("help", "-h"):
        await ctx.out("UiModeManager service (uimode) commands:\n  help\n    Print this help text.\n"
                      "  night [yes|no|auto|custom]\n    Set or read night mode.\n")
        return 0 if verb else 255
    return await _unknown(ctx, verb)


# ============================================================================ location
async def _location(phone: "VirtualPhone", ctx: CommandContext, rest: list[str]) -> int:
    """LocationShellCommand (services/core/java/com/android/server/location/): ``set-location-enabled
    true|false`` (Boolean.parseBoolean: anything but ``true`` is false); ``is-location-enabled``
    prints ``true``/``false`` from Android 12 (Android 11's handler has no such command)."""
    args = list(rest)
    if len(args) >= 3 and args[1] == "--user":
        del args[1:3]
    verb = args[0] if args else None
    if verb == "set-location-enabled":
        if len(args) < 2:
            await ctx.err("Error: Argument expected after \"set-location-enabled\"\n")
            return 255
        await _set(phone, "location", args[1].lower() == "true")
        return 0
    if verb == "is-location-enabled" and phone.knobs.android >= 12:
        await ctx.out("true\n" if _world(phone).get("location") else "false\n")
        return 0
    if verb is None or verb in ("help", "-h"):
        await ctx.out("Location service commands:\n  help or -h\n    Print this help text.\n"
                      + ("  is-location-enabled [--user <USER_ID>]\n    Gets the master location switch enabled "
                         "state. If no user is specified,\n    the current user is assumed.\n"
                         if phone.knobs.android >= 12 else "")
                      + "  set-location-enabled [--user <USER_ID>] true|false\n"
                        "    Sets the master location switch enabled state.\n")
        return 0 if verb else 255
    return await _unknown(ctx, verb)


SERVICE_COMMANDS: dict[str, Handler] = {
    "wifi": _wifi, "bluetooth_manager": _bluetooth, "connectivity": _connectivity, "notification": _notification,
    "uimode": _uimode, "location": _location, "media_session": _media_session, "audio": _audio,
}


async def run_service_command(phone: "VirtualPhone", service: str, ctx: CommandContext, rest: list[str]) -> int:
    """``cmd SERVICE ...`` for a service this module models."""
    return await SERVICE_COMMANDS[service](phone, ctx, list(rest))
