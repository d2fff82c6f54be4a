"""System services that own a setting: ``cmd wifi|bluetooth_manager|connectivity|notification|
uimode|location|media_session`` and their ``dumpsys`` lines, as a stock phone runs them.

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

``cmd connectivity airplane-mode`` with no argument reads ``Settings.Global.AIRPLANE_MODE_ON``
itself (ConnectivityService ``ShellCmd``), so after a raw put it prints the raw key, not the
radio state — as a real phone does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Awaitable, Callable

from .shline import CommandContext

if TYPE_CHECKING:
    from .phone import VirtualPhone

__all__ = ["SERVICE_KEYS", "ZEN_REWRITE_S", "SERVICE_COMMANDS", "run_service_command", "dumpsys_notification",
           "dumpsys_bluetooth_manager", "zen_mode_name"]

#: Settings keys that are a service's persisted copy of its state → the WorldState.settings field.
SERVICE_KEYS: dict[tuple[str, str], str] = {
    ("global", "wifi_on"): "wifi", ("global", "bluetooth_on"): "bluetooth",
    ("global", "airplane_mode_on"): "airplane_mode", ("global", "mobile_data"): "mobile_data",
    ("global", "zen_mode"): "do_not_disturb", ("secure", "ui_night_mode"): "dark_mode",
}
#: Seconds until ZenModeHelper's observer has written ``zen_mode`` back.
ZEN_REWRITE_S = 0.3

_ZEN_NAMES = {0: "ZEN_MODE_OFF", 1: "ZEN_MODE_IMPORTANT_INTERRUPTIONS", 2: "ZEN_MODE_NO_INTERRUPTIONS",
              3: "ZEN_MODE_ALARMS"}
#: zen mode → NotificationManager interruption filter (ZenModeConfig.zenModeToInterruptionFilter).
_ZEN_FILTER = {0: 1, 1: 2, 2: 3, 3: 4}
#: NotificationShellCommand ``set_dnd`` argument → zen mode.
_SET_DND = {"on": 2, "none": 2, "priority": 1, "alarms": 3, "all": 0, "off": 0}
_STREAMS = ("STREAM_VOICE_CALL", "STREAM_SYSTEM", "STREAM_RING", "STREAM_MUSIC", "STREAM_ALARM",
            "STREAM_NOTIFICATION", "STREAM_BLUETOOTH_SCO", "STREAM_SYSTEM_ENFORCED", "STREAM_DTMF", "STREAM_TTS",
            "STREAM_ACCESSIBILITY", "STREAM_ASSISTANT")
#: stream → (settings key in ``system``, max index) as a Pixel ships them (media has 25 steps).
_VOLUME_KEYS = {0: ("volume_voice_earpiece", 7), 2: ("volume_ring_speaker", 7), 3: ("volume_music_speaker", 25),
                4: ("volume_alarm_speaker", 7), 5: ("volume_notification_speaker", 7)}

Handler = Callable[["VirtualPhone", CommandContext, list[str]], Awaitable[int]]


def _world(phone: "VirtualPhone") -> dict[str, Any]:
    return phone.state_data()["world"]["settings"]


async def _set(phone: "VirtualPhone", field: str, value: Any) -> None:
    await phone.acall(phone.settings.service_set, field, value)


async def _unknown(ctx: CommandContext, verb: str) -> int:
    """``BasicShellCommandHandler.handleDefaultCommands``: stdout, exit -1 (255)."""
    await ctx.out(f"Unknown command: {verb}\n")
    return 255


def zen_mode_name(phone: "VirtualPhone") -> str:
    """``Settings.Global.zenModeToString(mZenMode)`` of the phone now."""
    on = bool(_world(phone).get("do_not_disturb"))
    return _ZEN_NAMES[phone.settings.zen_level if on else 0]


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


# ============================================================================ media_session volume
async def _media_session(phone: "VirtualPhone", ctx: CommandContext, rest: list[str]) -> int:
    """MediaShellCommand ``volume`` → VolumeCtrl.run: ``[V] ...`` log lines, in argument order."""
    if not rest or rest[0] != "volume":
        if not rest or rest[0] in ("help", "-h"):
            await ctx.out("usage: media_session [subcommand] [options]\n"
                          "       media_session volume [options]\n")
            return 0
        await ctx.err(f"Error: unknown command '{rest[0]}'\n")
        return 255
    out: list[str] = []
    stream, index, do_get, do_set = 3, 5, False, False
    it = iter(rest[1:])
    try:
        for opt in it:
            if opt == "--get":
                do_get = True
                out.append("[V] will get volume\n")
            elif opt == "--stream":
                stream = int(next(it), 0)
                name = _STREAMS[stream] if 0 <= stream < len(_STREAMS) else "invalid stream"
                out.append(f"[V] will control stream={stream} ({name})\n")
            elif opt == "--set":
                index, do_set = int(next(it), 0), True
                out.append(f"[V] will set volume to index={index}\n")
            elif opt == "--show":
                pass
            else:
                await ctx.out("".join(out))
                await ctx.err(f"Error: Unknown argument {opt}\n")
                return 255
    except (StopIteration, ValueError):
        await ctx.out("".join(out))
        await ctx.err("Error: Argument expected after \"--stream\"\n")
        return 255
    out.append("[V] Connecting to AudioService\n")
    key, hi = _VOLUME_KEYS.get(stream, (None, 7))
    if do_set:
        if not 0 <= index <= hi:
            await ctx.out("".join(out))
            await ctx.err(f"Error: invalid volume index {index} for stream {stream} (should be in [0..{hi}])\n")
            return 255
        if stream == 3:
            await _set(phone, "media_volume", index)
        elif key:
            await phone.acall(phone.settings.put, "system", key, str(index))
    if do_get:
        if stream == 3:
            cur = int(_world(phone).get("media_volume") or 0)
        else:
            cur = int((phone.settings.raw("system", key) if key else None) or 0)
        out.append(f"[V] volume is {cur} in range [0..{hi}]\n")
    await ctx.out("".join(out))
    return 0


SERVICE_COMMANDS: dict[str, Handler] = {
    "wifi": _wifi, "bluetooth_manager": _bluetooth, "connectivity": _connectivity, "notification": _notification,
    "uimode": _uimode, "location": _location, "media_session": _media_session,
}


async def run_service_command(phone: "VirtualPhone", service: str, ctx: CommandContext, rest: list[str]) -> int:
    """``cmd SERVICE ...`` for a service this module models."""
    return await SERVICE_COMMANDS[service](phone, ctx, list(rest))
