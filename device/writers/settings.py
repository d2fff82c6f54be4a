"""Settings: set a ``WorldState.settings`` field and prove it took, put back what setup and the
episode changed.

A field that mirrors a service (Wi-Fi, Bluetooth, airplane mode, mobile data, dark mode, Do Not
Disturb, location, media volume, the ringer) is changed only by the service's own command and
verified by the service's own status; other fields are plain provider keys (``settings put``,
read back). Which key, encoding, command and status belong to each field is the codec table's
(:mod:`device.codecs`). Old values are journalled before the change (:class:`SettingsJournal`),
and teardown restores them the same way.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from actionmap.patch import StatePatch
from device.adbshell import DeviceCommandError, Shell
from device.codecs import SERVICE_MIRRORED, SETTINGS
from device.parsers import ParseError
from device.readers import StateReader, current_setting, read_setting
from device.writers.journal import Journal, SettingChange, SettingsJournal, SetupError, SetupReport, TeardownReport

if TYPE_CHECKING:
    from device.writers.writer import DeviceWriter

__all__ = ["set_setting", "current_setting", "SettingsWriter"]

_AUDIO_REFUSED = re.compile(r"Not allowed to change Do Not Disturb state")
_CMD_FAILED = re.compile(r"(Unknown command|Unknown option|inaccessible or not found|not found|Exception|Error:|"
                         r"usage:|Usage:|Can't find service)")
_CMD_MISSING = re.compile(r"(Unknown command|Unknown option|inaccessible or not found|Can't find service|"
                          r"No shell command implementation)")


def set_setting(shell: Shell, field: str, value: Any, raw: SettingsJournal,
                on_record: Callable[[], None] | None = None, verify_s: float = 3.0) -> str:
    """Set one ``WorldState.settings`` field and verify it through the authority the system uses.

    A field that mirrors a service (Wi-Fi, Bluetooth, airplane mode, mobile data, dark mode, Do
    Not Disturb, location, media volume, the ringer) is changed only by the service's own command and
    verified by the service's own status (:func:`current_setting`): on a stock phone a raw
    ``settings put wifi_on`` switches no radio, and ZenModeHelper writes ``zen_mode`` straight
    back, so a raw write would only *look* done. Other fields are plain provider keys
    (``settings put``, read back). Returns how it was set; raises ``SetupError`` — *unsupported*
    when this release has none of the commands — when nothing took effect.
    """
    codec = SETTINGS.get(field)
    if codec is None:
        raise SetupError(f"setting {field!r} cannot be set over ADB without root", unsupported=True)
    if field in SERVICE_MIRRORED:
        tried: list[str] = []
        missing = 0
        commands = codec.set_commands(value)
        for argv in commands:
            r = shell.run(argv)
            text = r.text.strip()
            if r.rc not in (0, None) or _CMD_FAILED.search(text) or _CMD_MISSING.search(text):
                # a refusal by the service (this release cannot do it for the shell) counts as missing
                missing += bool(_CMD_MISSING.search(text) or _AUDIO_REFUSED.search(text))
                why = (r.err or "").strip() or text  # MediaShellCommand prints its help on stdout first
                tried.append(f"`{' '.join(argv)}`: {why.splitlines()[-1][:100] if why else f'exit {r.rc}'}")
                continue
            if _wait_for(lambda: current_setting(shell, field) == value, min(verify_s, codec.verify_s or verify_s)):
                return "cmd: " + " ".join(argv)
            now = current_setting(shell, field)
            missing += codec.verify_s is not None and not text  # ran silently and did nothing: not on this release
            tried.append(f"`{' '.join(argv)}` ran, but the service still reports {now!r}")
        n = len(commands)
        raise SetupError(f"setting {field}={value!r} did not take effect: " + "; ".join(tried),
                         unsupported=n > 0 and missing == n)
    ns, key, text = codec.namespace, codec.key, codec.encode(value)
    raw.put(shell, ns, key, text, on_record)
    if _wait_for(lambda: read_setting(shell, field) == value, verify_s):
        return f"settings put {ns} {key} {text}"
    raise SetupError(f"setting {field}={value!r} did not take effect (read back {read_setting(shell, field)!r})")


def _wait_for(pred: Callable[[], bool], timeout: float, step: float = 0.25) -> bool:
    t0 = time.monotonic()
    while True:
        if pred():
            return True
        if time.monotonic() - t0 >= timeout:
            return False
        time.sleep(step)


class SettingsWriter:
    """The settings part of one phone's :class:`~device.writers.DeviceWriter`: setup, the episode's
    start mark and teardown."""

    def __init__(self, w: DeviceWriter):
        self.w = w

    # --- setup -----------------------------------------------------------------------------------
    @staticmethod
    def unsupported(p: StatePatch) -> list[str]:
        return [f"settings.{f} cannot be set on a device without root" for f in p.settings if f not in SETTINGS]

    def apply(self, p: StatePatch, j: Journal, rep: SetupReport) -> None:
        shell = self.w.shell
        for field, value in p.settings.items():
            t0 = time.perf_counter()
            old = current_setting(shell, field) if field in SETTINGS else None
            if field in SETTINGS and old == value:
                rep.applied.append(f"settings.{field} already {value!r}")
                continue
            if field not in SETTINGS:
                rep.unsupported.append(f"settings.{field} cannot be set on a device without root")
                rep.failed.append(rep.unsupported[-1])
                continue
            j.settings.append(SettingChange(field=field, old=old, new=value))
            j.save()
            j.settings[-1].how = set_setting(shell, field, value, j.raw, j.save)
            j.save()
            rep.applied.append(f"settings.{field}={value!r} ({j.settings[-1].how})")
            rep.timings_ms[f"settings.{field}"] = (time.perf_counter() - t0) * 1e3

    # --- the episode ---------------------------------------------------------------------------------
    def now(self) -> dict[str, Any] | None:
        """The settable settings as the system has them (services for service-mirrored ones)."""
        try:
            st = StateReader(self.w.shell).settings()
        except (ParseError, DeviceCommandError):
            return None
        return {f: v for f, v in st.model_dump().items() if f in SETTINGS and v is not None}

    def undo_episode(self, j: Journal, rep: TeardownReport) -> None:
        """Put back every setting the episode itself changed (through the Settings app, quick
        settings …) to its value at the start of the episode, through the same service commands
        and verification setup uses. A phone is handed back with the radios and modes it had."""
        if not j.settings_at_start:
            return
        now = self.now() or {}
        for field, want in j.settings_at_start.items():
            if field in now and now[field] != want:
                try:
                    set_setting(self.w.shell, field, want, SettingsJournal())  # back to the start: nothing to undo
                    rep.restored.append(f"episode settings.{field}={want!r}")
                except SetupError as e:
                    rep.left.append(f"settings.{field} changed by the episode could not be put back: {e}"[:300])

    # --- teardown --------------------------------------------------------------------------------
    def restore(self, j: Journal, rep: TeardownReport) -> None:
        """What the episode changed back to its start, then what setup changed back to before."""
        self.undo_episode(j, rep)
        for ch in reversed(j.settings):
            if ch.old is None:
                continue
            try:
                set_setting(self.w.shell, ch.field, ch.old, SettingsJournal())
                rep.restored.append(f"settings.{ch.field}={ch.old!r}")
            except SetupError as e:
                rep.left.append(str(e))
        rep.left += j.raw.restore(self.w.shell)
