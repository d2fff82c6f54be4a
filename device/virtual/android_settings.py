"""The settings provider of the virtual phone (``settings``, ``svc``, ``cmd wifi`` ...).

Why it maps onto the sim: a ``settings put global airplane_mode_on 1`` on a phone changes
what the Settings app shows. Keys that have a ``WorldState.settings`` meaning (the same
table the device readers use, :data:`device.parsers.settings.SETTING_SOURCES`) are read
from and written to the sim's world, so the UI and the judge see them; every other key is
kept as the plain string a provider stores. Values are printed in the encodings real
phones use (``wifi_on=1``, ``location_mode=3``, ``ui_night_mode=2``, ``font_scale=1.0``),
so :func:`device.parsers.settings.settings_to_worldstate` reads back what was written.
"""

from __future__ import annotations

import hashlib
import time
from typing import TYPE_CHECKING, Any, Callable

from .sh_io import CommandContext, CommandHandler

if TYPE_CHECKING:
    from .phone import VirtualPhone

__all__ = ["SettingsProvider", "NAMESPACES", "settings_commands", "MAPPED", "AUDIO_KEYS", "PERSIST_DELAY_S"]

NAMESPACES = ("system", "secure", "global")
_INVALID = object()


def _bool_out(v: Any) -> str | None:
    return None if v is None else ("1" if v else "0")


def _int_in(lo: int, hi: int) -> Callable[[str], Any]:
    def parse(s: str) -> Any:
        try:
            v = int(s.strip())
        except ValueError:
            try:
                f = float(s.strip())
            except ValueError:
                return _INVALID
            if not f.is_integer():
                return _INVALID
            v = int(f)
        return v if lo <= v <= hi else _INVALID
    return parse


def _on_in(s: str) -> Any:
    v = _int_in(-(1 << 31), 1 << 31)(s)
    return _INVALID if v is _INVALID else v != 0


def _wifi_in(s: str) -> Any:
    v = _int_in(0, 3)(s)
    return _INVALID if v is _INVALID else v in (1, 2)


def _night_in(s: str) -> Any:
    v = _int_in(0, 3)(s)
    if v is _INVALID:
        return _INVALID
    return {1: False, 2: True}.get(v)  # 0 = automatic, 3 = custom: not a known state


def _font_in(s: str) -> Any:
    try:
        f = float(s.strip())
    except ValueError:
        return _INVALID
    return f if 0 < f <= 3 else _INVALID


def _float_out(v: Any) -> str | None:
    return None if v is None else str(float(v))


_RINGER_OUT = {"silent": "0", "vibrate": "1", "normal": "2"}
_RINGER_IN = {0: "silent", 1: "vibrate", 2: "normal"}


def _ringer_in(s: str) -> Any:
    v = _int_in(0, 2)(s)
    return _INVALID if v is _INVALID else _RINGER_IN[v]


#: (namespace, key) → (WorldState.settings field, world → text, text → world)
MAPPED: dict[tuple[str, str], tuple[str, Callable[[Any], str | None], Callable[[str], Any]]] = {
    ("global", "wifi_on"): ("wifi", _bool_out, _wifi_in),
    ("global", "bluetooth_on"): ("bluetooth", _bool_out, _on_in),
    ("global", "airplane_mode_on"): ("airplane_mode", _bool_out, _on_in),
    ("global", "mobile_data"): ("mobile_data", _bool_out, _on_in),
    ("global", "zen_mode"): ("do_not_disturb", _bool_out, _on_in),
    ("global", "device_name"): ("device_name", lambda v: None if v is None else str(v), lambda s: s),
    ("global", "mode_ringer"): ("ringer_mode", lambda v: _RINGER_OUT.get(v) if v else None, _ringer_in),
    ("secure", "location_mode"): ("location", lambda v: None if v is None else ("3" if v else "0"), _on_in),
    ("secure", "ui_night_mode"): ("dark_mode", lambda v: None if v is None else ("2" if v else "1"), _night_in),
    ("system", "accelerometer_rotation"): ("auto_rotate", _bool_out, _on_in),
    ("system", "screen_brightness"): ("brightness", lambda v: None if v is None else str(int(v)), _int_in(0, 255)),
    ("system", "screen_brightness_mode"): ("adaptive_brightness", _bool_out, _on_in),
    ("system", "screen_off_timeout"): ("screen_off_timeout_ms", lambda v: None if v is None else str(int(v)),
                                       _int_in(0, 1 << 31)),
    ("system", "font_scale"): ("font_scale", _float_out, _font_in),
    ("system", "volume_music_speaker"): ("media_volume", lambda v: None if v is None else str(int(v)),
                                         _int_in(0, 25)),
}

#: Keys Android moved to another namespace: reads and writes are redirected there, as
#: ``SettingsProvider`` does (``Settings.Secure.getString("bluetooth_on")`` reads global).
MOVED: dict[tuple[str, str], str] = {
    ("secure", "bluetooth_on"): "global", ("secure", "wifi_on"): "global", ("secure", "mobile_data"): "global",
    ("secure", "adb_enabled"): "global", ("secure", "data_roaming"): "global",
    ("secure", "development_settings_enabled"): "global", ("secure", "device_provisioned"): "global",
    ("system", "airplane_mode_on"): "global", ("system", "auto_time"): "global", ("system", "auto_time_zone"): "global",
    ("system", "stay_on_while_plugged_in"): "global", ("system", "wifi_sleep_policy"): "global",
    ("system", "mode_ringer"): "global", ("system", "window_animation_scale"): "global",
    ("system", "transition_animation_scale"): "global", ("system", "animator_duration_scale"): "global",
}


def _defaults(phone: "VirtualPhone") -> dict[str, dict[str, str]]:
    seed = phone.knobs.seed
    android_id = hashlib.sha256(f"s2r-android-id:{seed}:{phone.profile.name}".encode()).hexdigest()[:16]
    ime = phone.knobs.installed_imes[0]
    return {
        "global": {
            "adb_enabled": "1", "adb_wifi_enabled": "0", "animator_duration_scale": "1.0", "auto_time": "1",
            "auto_time_zone": "1", "boot_count": "3", "captive_portal_mode": "1", "data_roaming": "0",
            "development_settings_enabled": "1", "device_provisioned": "1", "heads_up_notifications_enabled": "1",
            "package_verifier_user_consent": "1", "stay_on_while_plugged_in": "0", "transition_animation_scale": "1.0",
            "usb_mass_storage_enabled": "1", "verifier_verify_adb_installs": "0", "window_animation_scale": "1.0",
            "wifi_sleep_policy": "2", "low_power": "0", "theater_mode_on": "0",
        },
        "system": {
            "dtmf_tone": "1", "haptic_feedback_enabled": "1", "lockscreen_sounds_enabled": "1",
            "notification_sound": "content://media/internal/audio/media/28?title=Eureka&canonical=1",
            "pointer_location": "0", "show_touches": "0", "sound_effects_enabled": "1", "time_12_24": "24",
            "user_rotation": "0", "vibrate_when_ringing": "0", "volume_alarm_speaker": "6",
            "volume_ring_speaker": "5", "volume_notification_speaker": "5", "peak_refresh_rate": "90.0",
            "min_refresh_rate": "60.0",
        },
        "secure": {
            "accessibility_enabled": "0", "android_id": android_id, "default_input_method": ime,
            "enabled_input_methods": ime, "install_non_market_apps": "1", "lock_screen_show_notifications": "1",
            "mock_location": "0", "screensaver_enabled": "0", "selected_input_method_subtype": "-1",
            "show_ime_with_hard_keyboard": "0", "skip_first_use_hints": "1",
            "sysui_qs_tiles": "internet,bt,flashlight,dnd,alarm,airplane,rotation,location,dark",
            "user_setup_complete": "1", "bluetooth_name": phone.profile.model,
        },
    }


#: Keys AudioService persists itself (frameworks/base services/core/java/com/android/server/audio/
#: AudioService.java): ``setRingerModeInt`` posts ``MSG_PERSIST_RINGER_MODE`` and a stream's
#: ``setIndex`` posts ``MSG_PERSIST_VOLUME`` with ``PERSIST_DELAY`` (500 ms); the volume key is
#: ``VolumeStreamState.getSettingNameForDevice`` — ``volume_music`` + ``_`` + the output device's
#: name (``speaker`` here). Nothing in AudioService observes these keys (its ``SettingsObserver``
#: watches ``mode_ringer_streams_affected``, ``dock_audio_media_enabled``, ``master_mono`` …, and
#: reads ``mode_ringer`` / the volumes only at boot in ``readPersistedSettings`` /
#: ``VolumeStreamState.readSettings``), so a raw ``settings put`` changes the key and nothing else.
AUDIO_KEYS: dict[tuple[str, str], str] = {("global", "mode_ringer"): "ringer_mode",
                                           ("system", "volume_music_speaker"): "media_volume"}
#: AudioService ``PERSIST_DELAY`` in seconds.
PERSIST_DELAY_S = 0.5


class SettingsProvider:
    """``Settings.System/Secure/Global`` of the phone: mapped keys live in the sim world."""

    def __init__(self, phone: "VirtualPhone") -> None:
        self.phone = phone
        self._plain: dict[str, dict[str, str]] = _defaults(phone)
        self._defaults = {ns: dict(v) for ns, v in self._plain.items()}
        self._raw_mapped: dict[tuple[str, str], str] = {}  # a mapped key holding a value the world cannot
        #: service-mirrored keys written raw on a stock phone: key -> (stored text, world value then, deadline)
        self._shadow: dict[tuple[str, str], tuple[str, Any, float | None]] = {}
        #: ZenModeHelper's mZenMode while DND is on (1 priority, 2 total silence, 3 alarms)
        self.zen_level = 1
        #: AUDIO_KEYS as the provider stores them (None = absent). A fresh phone has ``mode_ringer``
        #: (SettingsProvider's DatabaseHelper loads it) but no ``volume_music_speaker``: AudioService
        #: writes a device's volume key only once that volume changed.
        self._audio_stored: dict[tuple[str, str], Any] = {("global", "mode_ringer"): _INVALID,
                                                          ("system", "volume_music_speaker"): None}
        #: the service's value last seen (_INVALID: not yet), and a persist AudioService has posted:
        #: key -> (text, due)
        self._audio_seen: dict[tuple[str, str], Any] = {k: _INVALID for k in AUDIO_KEYS}
        self._audio_due: dict[tuple[str, str], tuple[str | None, float]] = {}
        self._audio_looked: dict[tuple[str, str], float] = {}  # when each key was last looked at
        #: AudioService's other stream indexes (device ``speaker``): stream -> index
        self.stream_index: dict[int, int] = {0: 5, 1: 5, 2: 5, 4: 6, 5: 5}

    # ------------------------------------------------------------------ keys AudioService persists
    def _audio_text(self, key: tuple[str, str], world: dict[str, Any]) -> str | None:
        """What the provider holds for an AUDIO_KEYS key now: AudioService persists its state
        PERSIST_DELAY_S after the state changed (seen here at the latest when the key is read)."""
        field = AUDIO_KEYS[key]
        now = time.monotonic()
        cur = world.get(field)
        if not self._stock():  # a rooted emulator set up for agents: the key is the state, at once
            self._audio_seen[key] = cur
            self._audio_due.pop(key, None)
            self._audio_stored[key] = MAPPED[key][1](cur)
            return self._audio_stored[key]
        if self._audio_seen.get(key) is _INVALID:  # first look at the booted phone
            self._audio_seen[key] = cur
            if self._audio_stored.get(key) is _INVALID:
                self._audio_stored[key] = MAPPED[key][1](cur) or "2"
        if cur != self._audio_seen.get(key):
            # changed behind the provider's back (the volume keys, the Settings app): at the
            # earliest right after the last look, so AudioService's persist is due from then
            self._audio_seen[key] = cur
            self._audio_due[key] = (MAPPED[key][1](cur), self._audio_looked.get(key, now) + PERSIST_DELAY_S)
        self._audio_looked[key] = now
        due = self._audio_due.get(key)
        if due is not None and now >= due[1]:
            self._audio_stored[key] = due[0]
            self._audio_due.pop(key, None)
        return self._audio_stored.get(key)

    def audio_changed(self, field: str) -> None:
        """AudioService changed ``field`` just now: its persist message is due PERSIST_DELAY_S later."""
        world = self.phone.state_data()["world"]["settings"]
        for key, f in AUDIO_KEYS.items():
            if f == field:
                self._audio_text(key, world)  # settles what was due before this change
                self._audio_seen[key] = world.get(f)
                self._audio_due[key] = (MAPPED[key][1](world.get(f)), time.monotonic() + PERSIST_DELAY_S)

    # ------------------------------------------------------------------ service-mirrored keys
    def _stock(self) -> bool:
        return not self.phone.knobs.permissive

    def _shadow_value(self, key: tuple[str, str], world: dict[str, Any]) -> str | None:
        """The raw text a stock phone still stores for a service-mirrored key, if any.

        The entry ends when its service rewrites the key: ZenModeHelper within
        :data:`ZEN_REWRITE_S`, every other service on its next state change (the world field
        moved away from the value it had at the raw write) — see :mod:`.android_services`."""
        from .android_services import SERVICE_KEYS

        entry = self._shadow.get(key)
        if entry is None:
            return None
        text, seen, deadline = entry
        if (deadline is not None and time.monotonic() >= deadline) or world.get(SERVICE_KEYS[key]) != seen:
            self._shadow.pop(key, None)
            return None
        return text

    def _service_text(self, key: tuple[str, str], world: dict[str, Any]) -> str | None:
        """What the service itself persists for ``key`` (zen_mode keeps its level, not 1/0)."""
        field, out, _ = MAPPED[key]
        if key == ("global", "zen_mode") and world.get(field):
            return str(self.zen_level)
        return out(world.get(field))

    def service_set(self, field: str, value: Any) -> None:
        """A system service changed its state: the world follows and the service's keys are its own again."""
        from .android_services import SERVICE_KEYS

        for key, f in SERVICE_KEYS.items():
            if f == field:
                self._shadow.pop(key, None)
                self._raw_mapped.pop(key, None)

        def put(d: dict[str, Any]) -> None:
            d["world"]["settings"][field] = value
        self.phone.mutate(put)
        if field in AUDIO_KEYS.values():
            self.audio_changed(field)

    @staticmethod
    def resolve(namespace: str, key: str) -> tuple[str, str]:
        return MOVED.get((namespace, key), namespace), key

    def raw(self, namespace: str, key: str) -> str | None:
        """A plain (unmapped) value, without touching the sim (cheap, any thread)."""
        ns, key = self.resolve(namespace, key)
        return self._plain.get(ns, {}).get(key)

    def get(self, namespace: str, key: str) -> str | None:
        ns, key = self.resolve(namespace, key)
        if (ns, key) in AUDIO_KEYS:
            if not self._stock() and (ns, key) in self._raw_mapped:
                return self._raw_mapped[(ns, key)]
            return self._audio_text((ns, key), self.phone.state_data()["world"]["settings"])
        if (ns, key) in MAPPED:
            world = self.phone.state_data()["world"]["settings"]
            shadow = self._shadow_value((ns, key), world)
            if shadow is not None:
                return shadow
            if (ns, key) in self._raw_mapped:
                return self._raw_mapped[(ns, key)]
            return self._service_text((ns, key), world)
        return self._plain.get(ns, {}).get(key)

    def put(self, namespace: str, key: str, value: str) -> None:
        ns, key = self.resolve(namespace, key)
        if (ns, key) in AUDIO_KEYS:
            # the key is AudioService's record; on a stock phone writing it changes the record only
            # (the ringer and the stream stay, and the service overwrites the key at its next change)
            self._audio_text((ns, key), self.phone.state_data()["world"]["settings"])
            self._audio_stored[(ns, key)] = value
            self._audio_due.pop((ns, key), None)
            if self._stock():
                return
            field, _, parse = MAPPED[(ns, key)]
            v = parse(value)
            if v is _INVALID:
                self._raw_mapped[(ns, key)] = value
                return
            self._raw_mapped.pop((ns, key), None)

            def put_world(d: dict[str, Any]) -> None:  # a rooted emulator: the world follows the key
                d["world"]["settings"][field] = v
            self.phone.mutate(put_world)
            return
        if (ns, key) in MAPPED and self._stock():
            from .android_services import SERVICE_KEYS, ZEN_REWRITE_S

            if (ns, key) in SERVICE_KEYS:
                world = self.phone.state_data()["world"]["settings"]
                deadline = time.monotonic() + ZEN_REWRITE_S if key == "zen_mode" else None
                self._shadow[(ns, key)] = (value, world.get(SERVICE_KEYS[(ns, key)]), deadline)
                return
        if (ns, key) in MAPPED:
            field, _, parse = MAPPED[(ns, key)]
            v = parse(value)
            if v is _INVALID:
                self._raw_mapped[(ns, key)] = value  # a provider stores any string
                return
            self._raw_mapped.pop((ns, key), None)

            def put(d: dict[str, Any]) -> None:
                d["world"]["settings"][field] = v
            self.phone.mutate(put)
            return
        self._plain.setdefault(ns, {})[key] = value

    def delete(self, namespace: str, key: str) -> int:
        """Remove a key; a mapped key returns to its default (the world field cannot be "absent")."""
        ns, key = self.resolve(namespace, key)
        if (ns, key) in AUDIO_KEYS:
            had = self._audio_text((ns, key), self.phone.state_data()["world"]["settings"]) is not None
            self._audio_stored[(ns, key)] = None
            return 1 if had else 0
        if (ns, key) in MAPPED:
            self._raw_mapped.pop((ns, key), None)
            self._shadow.pop((ns, key), None)
            return 1
        return 1 if self._plain.get(ns, {}).pop(key, None) is not None else 0

    def reset(self, namespace: str) -> None:
        self._plain[namespace] = dict(self._defaults.get(namespace, {}))

    def list(self, namespace: str) -> dict[str, str]:
        out = dict(self._plain.get(namespace, {}))
        world = self.phone.state_data()["world"]["settings"]
        for (ns, key) in MAPPED:
            if ns != namespace:
                continue
            if (ns, key) in AUDIO_KEYS:
                text = self._raw_mapped.get((ns, key)) if not self._stock() else None
                text = text or self._audio_text((ns, key), world)
                if text is not None:
                    out[key] = text
                continue
            val = (self._shadow_value((ns, key), world) or self._raw_mapped.get((ns, key))
                   or self._service_text((ns, key), world))
            if val is not None:
                out[key] = val
        return dict(sorted(out.items()))


# ============================================================================ commands
_USAGE = """Settings provider (settings) commands:
  help
      Print this help text.
  get [--user <USER_ID> | current] NAMESPACE KEY
      Retrieve the current value of KEY.
  put [--user <USER_ID> | current] NAMESPACE KEY VALUE [TAG] [default]
      Change the contents of KEY to VALUE.
  delete [--user <USER_ID> | current] NAMESPACE KEY
      Delete the entry for KEY.
  reset [--user <USER_ID> | current] NAMESPACE {PACKAGE_NAME | RESET_MODE}
      Reset the global/secure table for a package with mode.
  list [--user <USER_ID> | current] NAMESPACE
      Print all defined keys.
NAMESPACE is one of {system, secure, global}, case-insensitive
"""


class SettingsCommands:
    def __init__(self, phone: "VirtualPhone") -> None:
        self.phone = phone
        self.provider = phone.settings

    def table(self) -> dict[str, CommandHandler]:
        return {"settings": self.settings, "svc": self.svc}

    async def settings(self, ctx: CommandContext) -> int:
        args = list(ctx.args)
        words: list[str] = []
        i = 0
        while i < len(args):
            a = args[i]
            if a == "--user" and i + 1 < len(args):
                i += 2
                continue
            if a in ("--lazy", "--default"):
                i += 1
                continue
            words.append(a)
            i += 1
        if not words or words[0] in ("help", "-h", "--help"):
            await ctx.out(_USAGE)
            return 0
        verb, rest = words[0], words[1:]
        need = {"get": 2, "put": 3, "delete": 2, "list": 1, "reset": 2}
        if verb not in need or len(rest) < need[verb] or rest[0].lower() not in NAMESPACES:
            await ctx.err("Bad arguments\n")
            return 255
        ns = rest[0].lower()
        if verb == "get":
            value = await self.phone.acall(self.provider.get, ns, rest[1])
            await ctx.out(("null" if value is None else value) + "\n")
        elif verb == "put":
            await self.phone.acall(self.provider.put, ns, rest[1], rest[2])
        elif verb == "delete":
            n = await self.phone.acall(self.provider.delete, ns, rest[1])
            await ctx.out(f"Deleted {n} rows\n")
        elif verb == "list":
            values = await self.phone.acall(self.provider.list, ns)
            await ctx.out("".join(f"{k}={v}\n" for k, v in values.items()))
        else:
            if ns == "system":
                await ctx.err("Bad arguments\n")
                return 255
            await self.phone.acall(self.provider.reset, ns)
        return 0

    async def svc(self, ctx: CommandContext) -> int:
        args = ctx.args
        if len(args) == 1 and args[0] in _SVC_HELP:
            # a sub-command without its verb prints that command's long help (Svc.java: the
            # command throws IllegalArgumentException and Svc prints longHelp()), exit 0
            await ctx.out(_SVC_HELP[args[0]])
            return 0
        if len(args) < 2:
            await ctx.out("Available commands:\n    help     Show information about the subcommands\n"
                          "    power    Control the power manager\n    data     Control mobile data connectivity\n"
                          "    wifi     Control the Wi-Fi manager\n    usb      Control Usb state\n"
                          "    nfc      Control NFC functions\n    bluetooth Control Bluetooth service\n")
            return 0
        service, verb = args[0], args[1]
        fields = {"wifi": "wifi", "data": "mobile_data", "bluetooth": "bluetooth"}
        if service in fields and verb in ("enable", "disable"):
            # svc calls the service (WifiManager.setWifiEnabled, TelephonyManager.setDataEnabled,
            # BluetoothAdapter.enable/disable: frameworks/base cmds/svc/src/com/android/commands/svc/),
            # so the radio switches and the service persists its own key.
            await self.phone.acall(self.provider.service_set, fields[service], verb == "enable")
            return 0
        if service == "power" and verb == "stayon" and len(args) > 2:
            val = {"true": "7", "false": "0", "usb": "2", "ac": "1", "wireless": "4"}.get(args[2])
            if val is None:
                await ctx.err(f"svc power stayon: unknown argument '{args[2]}'\n")
                return 1
            await self.phone.acall(self.provider.put, "global", "stay_on_while_plugged_in", val)
            return 0
        await ctx.err(f"svc {service}: unknown command '{verb}'\n")
        return 1


#: ``svc X`` long help, from frameworks/base cmds/svc/src/com/android/commands/svc/*Command.java.
_SVC_HELP = {
    "wifi": "Control the Wi-Fi manager\n\nusage: svc wifi [enable|disable]\n         Turn Wi-Fi on or off.\n\n",
    "data": "Control mobile data connectivity\n\nusage: svc data [enable|disable]\n         Turn mobile data on "
            "or off.\n\n",
    "bluetooth": "Control the Bluetooth service\n\nusage: svc bluetooth [enable|disable]\n         Turn Bluetooth on "
                 "or off.\n\n",
}


def settings_commands(phone: "VirtualPhone") -> dict[str, CommandHandler]:
    return SettingsCommands(phone).table()
