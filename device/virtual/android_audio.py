"""AudioService of the virtual phone: streams, volume indexes and the ringer mode as a stock
phone keeps them, ``dumpsys audio``, ``cmd audio`` and ``cmd media_session volume`` (each
citing the AOSP source it follows).

Why its own module: one service with its own model (stream aliases, ranges, the ringer's
interplay with Do Not Disturb); the other services are :mod:`.android_services`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .sh_io import CommandContext

if TYPE_CHECKING:
    from .phone import VirtualPhone
from .android_svc_common import _STREAMS, _world, zen_mode_name

__all__ = ["dumpsys_audio", "set_stream_volume", "adjust_stream_volume", "stream_volume", "ringer_mode", "AudioDenied"]


# ============================================================================ AudioService: streams and the ringer
#: AudioSystem.STREAM_NAMES (frameworks/base media/java/android/media/AudioSystem.java).
_STREAM_NAMES = _STREAMS
#: A voice-capable phone's aliases (AudioService ``STREAM_VOLUME_ALIAS_VOICE``): system,
#: notification and DTMF follow the ring stream.
_ALIAS = {0: 0, 1: 2, 2: 2, 3: 3, 4: 4, 5: 2, 6: 6, 7: 7, 8: 2, 9: 3, 10: 3, 11: 3}
#: stream → (min, max) UI index as a Pixel ships them (``MIN_STREAM_VOLUME`` / ``MAX_STREAM_VOLUME``
#: with the product's ``ro.config.media_vol_steps=25``): voice call and alarm cannot go below 1.
_RANGE = {0: (1, 7), 1: (0, 7), 2: (0, 7), 3: (0, 25), 4: (1, 7), 5: (0, 7), 6: (0, 15), 7: (0, 7), 8: (0, 7),
          9: (0, 15), 10: (0, 15), 11: (0, 15)}
_RINGER_NAMES = {"silent": "SILENT", "vibrate": "VIBRATE", "normal": "NORMAL"}
_RINGER_BY_NAME = {v: k for k, v in _RINGER_NAMES.items()}
#: Settings.System.MODE_RINGER_STREAMS_AFFECTED as ZenModeHelper's RingerModeDelegate leaves it on a
#: phone: system, ring, notification, system-enforced and DTMF (aliased to ring) — 0x1a6.
_RINGER_AFFECTED = (1 << 1) | (1 << 2) | (1 << 5) | (1 << 7) | (1 << 8)
_DND_DENIED = "java.lang.SecurityException: Not allowed to change Do Not Disturb state"


class AudioDenied(Exception):
    """AudioService threw (``SecurityException`` …): the text ``e.toString()`` gives."""


def ringer_mode(phone: "VirtualPhone", world: dict[str, Any] | None = None) -> str:
    """AudioService's ``mRingerModeExternal`` (what ``AudioManager.getRingerMode`` returns)."""
    return str((world if world is not None else _world(phone)).get("ringer_mode") or "normal")


def stream_index(phone: "VirtualPhone", stream: int, world: dict[str, Any] | None = None) -> int:
    """The stream's stored index on the speaker (kept while the stream is muted)."""
    alias = _ALIAS.get(stream, stream)
    if alias == 3:
        return int((world if world is not None else _world(phone)).get("media_volume") or 0)
    lo, _ = _RANGE.get(alias, (0, 7))
    return max(lo, int(phone.settings.stream_index.get(alias, 5)))


def _muted(phone: "VirtualPhone", stream: int, world: dict[str, Any] | None = None) -> bool:
    """``VolumeStreamState.mIsMuted``: streams the ringer mode affects are muted unless NORMAL
    (``AudioService.muteRingerModeStreams``); total-silence DND also mutes alarm and media."""
    w = world if world is not None else _world(phone)
    alias = _ALIAS.get(stream, stream)
    if ringer_mode(phone, w) != "normal" and (_RINGER_AFFECTED >> stream) & 1:
        return True
    zen = phone.settings.zen_level if w.get("do_not_disturb") else 0
    return zen == 2 and alias in (3, 4)


def stream_volume(phone: "VirtualPhone", stream: int, world: dict[str, Any] | None = None) -> int:
    """``AudioService.getStreamVolume``: "by convention getStreamVolume() returns 0 when a stream
    is muted"."""
    w = world if world is not None else _world(phone)
    return 0 if _muted(phone, stream, w) else stream_index(phone, stream, w)


def _would_toggle_zen(phone: "VirtualPhone", new_mode: str) -> bool:
    """``AudioService.wouldToggleZenMode``: into or out of SILENT."""
    return (ringer_mode(phone) == "silent") != (new_mode == "silent")


def _set_ringer(phone: "VirtualPhone", mode: str) -> None:
    """``setRingerMode`` → ``setRingerModeInt``: the ring stream is never left at 0 once unmuted
    (``muteRingerModeStreams``: "ring and notifications volume should never be 0 when not
    silenced"); ``MSG_PERSIST_RINGER_MODE`` rewrites ``global mode_ringer`` PERSIST_DELAY later."""
    if mode == "normal" and phone.settings.stream_index.get(2, 5) == 0:
        phone.settings.stream_index[2] = 1
    if ringer_mode(phone) != mode:
        phone.settings.service_set("ringer_mode", mode)


def _set_index(phone: "VirtualPhone", alias: int, index: int) -> None:
    if alias == 3:
        if int(_world(phone).get("media_volume") or 0) != index:
            phone.settings.service_set("media_volume", index)
    else:
        phone.settings.stream_index[alias] = index


def set_stream_volume(phone: "VirtualPhone", stream: int, index: int, caller_has_dnd_access: bool = False) -> None:
    """``AudioService.setStreamVolume`` for a shell-side caller (frameworks/base services/core/java/
    com/android/server/audio/AudioService.java): on the ui-sounds stream (the ring stream on a
    phone) index 0 means VIBRATE and any other index NORMAL (``getNewRingerMode``, the phone has a
    vibrator); a change into or out of SILENT by a caller without Do Not Disturb access throws
    ``SecurityException("Not allowed to change Do Not Disturb state")`` before anything changes."""
    alias = _ALIAS.get(stream, stream)
    new_mode = ("vibrate" if index == 0 else "normal") if alias == 2 else ringer_mode(phone)
    if alias == 2 and _would_toggle_zen(phone, new_mode) and not caller_has_dnd_access:
        raise AudioDenied(_DND_DENIED)
    _set_index(phone, alias, index)
    if alias == 2:
        _set_ringer(phone, new_mode)


def adjust_stream_volume(phone: "VirtualPhone", stream: int, direction: int) -> None:
    """``AudioService.adjustStreamVolume`` (direction -1 lower, 0 same, 1 raise) with
    ``checkForRingerModeChange`` on the ring stream: NORMAL at index 1 lowers into VIBRATE;
    VIBRATE raises back to NORMAL without moving the index, and lowers towards SILENT (SystemUI's
    VolumePolicy: volumeDownToEnterSilent) — refused to a caller without Do Not Disturb access, as
    is raising out of SILENT."""
    alias = _ALIAS.get(stream, stream)
    lo, hi = _RANGE.get(alias, (0, 7))
    idx = stream_index(phone, alias)
    if alias == 2:
        mode = ringer_mode(phone)
        new_mode, adjust = mode, True
        if mode == "normal":
            if direction < 0 and idx == 1:
                new_mode = "vibrate"
        elif mode == "vibrate":
            new_mode = "silent" if direction < 0 else "normal" if direction > 0 else mode
            adjust = False
        else:
            new_mode = "vibrate" if direction > 0 else mode
            adjust = False
        if new_mode != mode and _would_toggle_zen(phone, new_mode):
            raise AudioDenied(_DND_DENIED)
        if new_mode != mode:
            _set_ringer(phone, new_mode)
        if not adjust:
            return
    if direction:
        _set_index(phone, alias, min(hi, max(lo, idx + direction)))


def dumpsys_audio(phone: "VirtualPhone") -> str:
    """The stream and ringer sections of ``AudioService.dump`` (``dumpStreamStates`` →
    ``VolumeStreamState.dump``: ``   Muted: …``, ``   Min: …``, ``   Max: …``,
    ``   streamVolume:N``, ``   Current: 2 (speaker): N, 40000000 (default): N``; then
    ``dumpRingerMode``: ``- mode (internal) = NORMAL`` / ``- mode (external) = …`` with
    ``RINGER_MODE_NAMES = {"SILENT", "VIBRATE", "NORMAL"}``)."""
    w = _world(phone)
    out = ["\nStream volumes (device: index)\n"]
    for stream, name in enumerate(_STREAM_NAMES):
        lo, hi = _RANGE.get(_ALIAS.get(stream, stream), (0, 7))
        idx = stream_index(phone, stream, w)
        out.append(f"- {name}:\n   Muted: {'true' if _muted(phone, stream, w) else 'false'}\n"
                   f"   Min: {lo}\n   Max: {hi}\n   streamVolume:{stream_volume(phone, stream, w)}\n"
                   f"   Current: 2 (speaker): {idx}, 40000000 (default): {idx}\n   Devices: speaker\n")
    mode = _RINGER_NAMES[ringer_mode(phone, w)]
    zen = zen_mode_name(phone)
    muted = _RINGER_AFFECTED if mode != "NORMAL" else 0
    out.append("\n- mute affected streams = 0x6f\n")  # AudioSystem.DEFAULT_MUTE_STREAMS_AFFECTED
    out.append("\nRinger mode: \n"
               f"- mode (internal) = {mode}\n- mode (external) = {mode}\n- zen mode:{zen}\n"
               f"- ringer mode affected streams = 0x{_RINGER_AFFECTED:x} ({_stream_list(_RINGER_AFFECTED)})\n"
               f"- ringer mode muted streams = 0x{muted:x}" + (f" ({_stream_list(muted)})" if muted else "") + "\n"
               "- delegate = ZenModeHelper\n")
    return "".join(out)


def _stream_list(mask: int) -> str:
    """``dumpRingerModeStreams``: the names of the set bits, comma-separated."""
    return ",".join(n for i, n in enumerate(_STREAM_NAMES) if mask >> i & 1)


# ============================================================================ cmd audio
#: AudioManagerShellCommand's verbs by release (services/core/java/com/android/server/audio/
#: AudioManagerShellCommand.java): the surround-format commands came first, the sound-dose and
#: volume ones with Android 14, ``set-ringer-mode`` (and the device/group volume verbs) with 15.
_AUDIO_VERBS = {
    13: ("set-surround-format-enabled", "get-is-surround-format-enabled", "set-encoded-surround-mode",
         "get-encoded-surround-mode"),
    14: ("set-sound-dose-value", "get-sound-dose-value", "reset-sound-dose-timeout", "set-volume", "adj-mute",
         "adj-unmute"),
    15: ("set-ringer-mode", "set-device-volume", "adj-volume", "set-group-volume", "adj-group-volume"),
}


def _audio_verbs(android: int) -> set[str]:
    return {v for rel, verbs in _AUDIO_VERBS.items() if android >= rel for v in verbs}


def _audio_help(android: int) -> str:
    lines = ["Audio manager commands:", "  help", "    Print this help text.", "",
             "  set-surround-format-enabled SURROUND_FORMAT IS_ENABLED",
             "    Enables/disabled the SURROUND_FORMAT based on IS_ENABLED",
             "  get-is-surround-format-enabled SURROUND_FORMAT", "    Returns if the SURROUND_FORMAT is enabled",
             "  set-encoded-surround-mode SURROUND_SOUND_MODE",
             "    Sets the encoded surround sound mode to SURROUND_SOUND_MODE",
             "  get-encoded-surround-mode", "    Returns the encoded surround sound mode"]
    if android >= 14:
        lines += ["  set-sound-dose-value", "    Sets the current sound dose value", "  get-sound-dose-value",
                  "    Returns the current sound dose value", "  reset-sound-dose-timeout",
                  "    Resets the sound dose timeout used for momentary exposure"]
    if android >= 15:
        lines += ["  set-ringer-mode NORMAL|SILENT|VIBRATE", "    Sets the Ringer mode to one of NORMAL|SILENT|VIBRATE"]
    if android >= 14:
        lines += ["  set-volume STREAM_TYPE VOLUME_INDEX", "    Sets the volume for STREAM_TYPE to VOLUME_INDEX"]
    if android >= 15:
        lines += ["  set-device-volume STREAM_TYPE VOLUME_INDEX NATIVE_DEVICE_TYPE",
                  "    Sets for NATIVE_DEVICE_TYPE the STREAM_TYPE volume to VOLUME_INDEX"]
    if android >= 14:
        lines += ["  adj-mute STREAM_TYPE", "    mutes the STREAM_TYPE", "  adj-unmute STREAM_TYPE",
                  "    unmutes the STREAM_TYPE"]
    if android >= 15:
        lines += ["  adj-volume STREAM_TYPE <RAISE|LOWER|MUTE|UNMUTE>",
                  "    Adjusts the STREAM_TYPE volume given the specified direction",
                  "  set-group-volume GROUP_ID VOLUME_INDEX", "    Sets the volume for GROUP_ID to VOLUME_INDEX",
                  "  adj-group-volume GROUP_ID <RAISE|LOWER|MUTE|UNMUTE>",
                  "    Adjusts the group volume for GROUP_ID given the specified direction"]
    return "\n".join(lines) + "\n"


async def _audio(phone: "VirtualPhone", ctx: CommandContext, rest: list[str]) -> int:
    """``cmd audio`` — AudioService.onShellCommand → AudioManagerShellCommand (Android 13+).

    Its ``onCommand`` has no default branch: a verb this release lacks (``set-ringer-mode``
    before Android 15, even ``help``) prints nothing and exits 0; no verb prints the help and
    exits 255 (``handleDefaultCommands``). ``set-ringer-mode`` calls
    ``AudioManager.setRingerModeInternal`` (the shell holds STATUS_BAR_SERVICE, which
    ``enforceVolumeController`` asks for), so no Do Not Disturb check applies. Android 11's
    AudioService has no shell command: ``Binder.onShellCommand`` prints ``No shell command
    implementation.`` on stderr, exit 0."""
    android = phone.knobs.android
    if android < 13:
        await ctx.err("No shell command implementation.\n")
        return 0
    verb = rest[0] if rest else None
    if verb is None:
        await ctx.out(_audio_help(android))
        return 255
    if verb not in _audio_verbs(android):
        return 0
    args = rest[1:]
    if verb == "set-ringer-mode":
        if not args:
            await ctx.err("Error: no ringer mode specified\n")
            return 1
        mode = _RINGER_BY_NAME.get(args[0])
        if mode is None:
            await ctx.err("Error: invalid value of ringerMode, should be one of NORMAL|SILENT|VIBRATE\n")
            return 1
        await phone.acall(_set_ringer, phone, mode)
        return 0
    if verb in ("set-volume", "adj-mute", "adj-unmute"):
        try:
            stream = int(args[0]) if args else None
            index = int(args[1]) if verb == "set-volume" and len(args) > 1 else None
        except ValueError as exc:
            bad = str(exc).rsplit(" ", 1)[-1].strip("'")
            await ctx.err(f"Error: wrong format for argument {bad}\n")
            return await _shell_exception(ctx, verb, f"java.lang.IllegalArgumentException: Wrong format for argument {bad}")
        if stream is None or (verb == "set-volume" and index is None):
            await ctx.err("Error: no argument provided\n")
            return await _shell_exception(ctx, verb, "java.lang.IllegalArgumentException: No argument provided")
        if verb == "set-volume":
            await ctx.out(f"calling AudioManager.setStreamVolume({stream}, {index}, 0)\n")
            lo, hi = _RANGE.get(_ALIAS.get(stream, stream), (0, 7))
            try:  # AudioManager.setStreamVolume: the shell's own package, no DND access
                await phone.acall(set_stream_volume, phone, stream, min(hi, max(lo, int(index or 0))))
            except AudioDenied as exc:
                return await _shell_exception(ctx, verb, str(exc))
        else:
            word = "ADJUST_MUTE" if verb == "adj-mute" else "ADJUST_UNMUTE"
            await ctx.out(f"calling AudioManager.adjustStreamVolume({stream}, AudioManager.{word}, 0)\n")
        return 0
    return 0  # surround-format and sound-dose verbs: nothing the phone models changes


async def _shell_exception(ctx: CommandContext, verb: str, text: str) -> int:
    """BasicShellCommandHandler.exec's catch: an empty line, ``Exception occurred while executing
    'VERB':`` and the stack trace on stderr; the result stays -1 (exit status 255)."""
    await ctx.err(f"\nException occurred while executing '{verb}':\n{text}\n")
    return 255


# ============================================================================ media_session volume
_MEDIA_HELP = ("usage: media_session [subcommand] [options]\n"
               "       media_session dispatch KEY\n"
               "       media_session dispatch KEY\n"
               "       media_session list-sessions\n"
               "       media_session monitor <tag>\n"
               "       media_session volume [options]\n\n"
               "media_session dispatch: dispatch a media key to the system.\n"
               "                KEY may be: play, pause, play-pause, mute, headsethook,\n"
               "                stop, next, previous, rewind, record, fast-forword.\n"
               "media_session list-sessions: print a list of the current sessions.\n"
               "media_session monitor: monitor updates to the specified session.\n"
               "                       Use the tag from list-sessions.\n"
               "media_session volume:  the options are as follows: \n"
               "\t\t--stream STREAM selects the stream to control, see AudioManager.STREAM_*\n"
               "\t\t                controls AudioManager.STREAM_MUSIC if no stream is specified\n"
               "\t\t--set INDEX     sets the volume index value\n"
               "\t\t--adj DIRECTION adjusts the volume, use raise|same|lower for the direction\n"
               "\t\t--get           outputs the current volume\n"
               "\t\t--show          shows the UI during the volume change\n"
               "\texamples:\n"
               "\t\tadb shell media volume --show --stream 3 --set 11\n"
               "\t\tadb shell media volume --stream 0 --adj lower\n"
               "\t\tadb shell media volume --stream 3 --get\n\n\n")


def _decode(text: str) -> int:
    """``Integer.decode``: decimal, ``0x``/``#`` hex, leading-0 octal, optional sign."""
    t = text.strip()
    sign = -1 if t.startswith("-") else 1
    body = t.lstrip("+-")
    try:
        if body.lower().startswith("0x"):
            return sign * int(body[2:], 16)
        if body.startswith("#"):
            return sign * int(body[1:], 16)
        if len(body) > 1 and body.startswith("0"):
            return sign * int(body[1:], 8)
        return sign * int(body, 10)
    except ValueError:
        raise ValueError(f'java.lang.NumberFormatException: For input string: "{text}"') from None


async def _media_session(phone: "VirtualPhone", ctx: CommandContext, rest: list[str]) -> int:
    """MediaShellCommand (frameworks/base services/core/java/com/android/server/media/
    MediaShellCommand.java) and its ``volume`` verb, VolumeCtrl.run (VolumeCtrl.java): ``[V] …``
    log lines in argument order on stdout; the call goes to ``IAudioService.setStreamVolume`` /
    ``adjustStreamVolume`` as package ``com.android.server.media`` (which holds no Do Not Disturb
    access, so a ring-volume change into or out of SILENT throws). ``showError`` prints the help on
    stdout and the message on stderr; a thrown exception ends the command with -1 (exit 255),
    VolumeCtrl's own validation errors just return (exit 0)."""
    if not rest:  # TextUtils.isEmpty(cmd) → handleDefaultCommands(null): help, -1
        await ctx.out(_MEDIA_HELP)
        return 255
    if rest[0] != "volume":
        await ctx.out(_MEDIA_HELP)
        await ctx.err(f"Error: unknown command '{rest[0]}'\n")
        return 255
    out: list[str] = []

    async def fail(text: str) -> int:
        await ctx.out("".join(out) + _MEDIA_HELP)
        await ctx.err(text + "\n")
        return 255

    stream, index, mode, do_get, adjustment = 3, 5, 0, False, None
    it = iter(rest[1:])
    for opt in it:
        try:
            if opt == "--show":
                pass
            elif opt == "--get":
                do_get = True
                out.append("[V] will get volume\n")
            elif opt in ("--stream", "--set", "--adj"):
                arg = next(it, None)
                if arg is None:
                    return await fail(f'java.lang.IllegalArgumentException: Argument expected after "{opt}"')
                if opt == "--stream":
                    stream = _decode(arg)
                    name = _STREAM_NAMES[stream] if 0 <= stream < len(_STREAM_NAMES) else "invalid stream"
                    out.append(f"[V] will control stream={stream} ({name})\n")
                elif opt == "--set":
                    index, mode = _decode(arg), 1
                    out.append(f"[V] will set volume to index={index}\n")
                else:
                    mode, adjustment = 2, arg
                    out.append("[V] will adjust volume\n")
            else:
                return await fail(f"java.lang.IllegalArgumentException: Unknown argument {opt}")
        except ValueError as exc:
            return await fail(str(exc))
    direction = 0
    if mode == 2:
        direction = {"raise": 1, "same": 0, "lower": -1}.get(adjustment or "", 9)
        if direction == 9:
            await ctx.out("".join(out) + _MEDIA_HELP)
            await ctx.err(f"Error: no valid volume adjustment, was {adjustment}, expected lower|same|raise\n")
            return 0
    out.append("[V] Connecting to AudioService\n")
    if (mode or do_get) and not 0 <= stream < len(_STREAM_NAMES):  # ensureValidStreamType
        return await fail(f"java.lang.IllegalArgumentException: Bad stream type {stream}")
    lo, hi = _RANGE.get(_ALIAS.get(stream, stream), (0, 7))
    if mode == 1 and not lo <= index <= hi:
        await ctx.out("".join(out) + _MEDIA_HELP)
        await ctx.err(f"Error: invalid volume index {index} for stream {stream} (should be in [{lo}..{hi}])\n")
        return 0
    try:
        if mode == 1:
            await phone.acall(set_stream_volume, phone, stream, index)
        elif mode == 2:
            await phone.acall(adjust_stream_volume, phone, stream, direction)
    except AudioDenied as exc:
        return await fail(str(exc))
    if do_get:
        cur = await phone.acall(stream_volume, phone, stream)
        out.append(f"[V] volume is {cur} in range [{lo}..{hi}]\n")
    await ctx.out("".join(out))
    return 0
