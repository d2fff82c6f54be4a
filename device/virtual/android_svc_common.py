"""What the virtual phone's service commands share: the settings keys each service persists,
zen mode names, the audio stream names and the small helpers that read and set the world.

Why its own module: :mod:`.android_services` (wifi, bluetooth, connectivity, notification,
uimode, location) and :mod:`.android_audio` (AudioService, ``cmd audio``, ``media_session``)
both use them; the settings provider reads :data:`SERVICE_KEYS`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Awaitable, Callable

from .sh_io import CommandContext

if TYPE_CHECKING:
    from .phone import VirtualPhone

__all__ = ["SERVICE_KEYS", "ZEN_REWRITE_S", "zen_mode_name", "Handler"]

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
