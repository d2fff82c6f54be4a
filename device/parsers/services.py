"""What system services print about their own state → typed values.

A setting that mirrors a service (Wi-Fi, Bluetooth, airplane mode, Do Not Disturb, dark mode,
location, media volume) is only what the *service* says it is: a raw ``settings put`` of
``wifi_on`` or ``zen_mode`` leaves the service untouched on a stock phone (ZenModeHelper even
writes ``zen_mode`` back), so setup, teardown and the judge read these through the service.
Each parser returns ``None`` for text it does not recognise (a service missing on this
release prints ``Unknown command`` / ``Can't find service``) — *unknown*, never a guess.

Sources (AOSP):

* ``cmd wifi status`` — ``WifiShellCommand.java`` (``"Wifi is enabled"`` / ``"Wifi is disabled"``
  on the first line, then ``Wifi scanning is …``; 12+ adds ``==== Primary ClientModeManager
  instance ====`` before the connection lines).
* ``cmd connectivity airplane-mode`` — ``ConnectivityService`` ``ShellCmd`` (prints ``enabled`` /
  ``disabled`` from ``Settings.Global.AIRPLANE_MODE_ON`` — the key, so a raw put shows there).
* ``cmd bluetooth_manager enable|disable`` — ``BluetoothShellCommand`` (13+); Android 11 answers
  ``No shell command implementation.`` (``Binder.onShellCommand``), which :func:`service_missing`
  recognises.
* ``cmd uimode night`` — ``UiModeManagerService.Shell`` (``"Night mode: yes|no|auto|custom"``).
* ``cmd location is-location-enabled`` — ``LocationShellCommand.java`` (``true`` / ``false``;
  Android 11 has no such command and prints ``Unknown command: is-location-enabled``).
* ``cmd media_session volume --stream 3 --get`` — ``VolumeCtrl.java`` (``[V] will control
  stream=3 (STREAM_MUSIC)`` … ``[V] volume is 5 in range [0..15]``; older ``media`` used ``[v]``).
* ``dumpsys audio`` — ``AudioService.dumpRingerMode`` (``- mode (internal) = NORMAL``,
  ``- mode (external) = VIBRATE`` from ``RINGER_MODE_NAMES = {"SILENT", "VIBRATE", "NORMAL"}``;
  the external mode is what ``AudioManager.getRingerMode`` returns) and ``dumpStreamStates``
  (``- STREAM_MUSIC:`` then ``   streamVolume:N``, the index ``getStreamVolume`` returns — 0 while
  the stream is muted). The ringer has no other read-out for the shell: ``global mode_ringer``
  is only AudioService's record, written 500 ms after a change and not observed.
* ``dumpsys notification`` — ``ZenModeHelper.dump`` (``    mZenMode=`` +
  ``Settings.Global.zenModeToString``: ``ZEN_MODE_OFF``, ``ZEN_MODE_IMPORTANT_INTERRUPTIONS``,
  ``ZEN_MODE_NO_INTERRUPTIONS``, ``ZEN_MODE_ALARMS``).
* ``dumpsys bluetooth_manager`` — ``BluetoothManagerService.dump`` (``  enabled: true``,
  ``  state: ON``).
* ``appops get <pkg> <op>`` — ``AppOpsService.Shell`` (``"WRITE_SMS: allow; time=…"``,
  ``"No operations."`` when the op is at its default).
"""

from __future__ import annotations

import re

from ._common import normalize_text

__all__ = ["SERVICE_MISSING", "service_missing", "parse_wifi_status", "parse_airplane_mode", "parse_night_mode",
           "parse_location_enabled", "parse_volume_get", "parse_zen_mode", "parse_bluetooth_dump",
           "parse_appops_mode", "parse_ringer_mode", "parse_stream_volume"]

SERVICE_MISSING = re.compile(r"(Unknown command|Unknown option|Can't find service|inaccessible or not found|"
                             r"\bnot found\b|No shell command implementation|Exception|Error:|[Uu]sage:)")
"""What a service prints when the command does not exist on this release (or failed)."""


def service_missing(text: str | bytes) -> bool:
    """True when a service command's output says the command is not there / did not run."""
    return bool(SERVICE_MISSING.search(normalize_text(text)))


def _lines(text: str | bytes) -> list[str]:
    return [ln.strip() for ln in normalize_text(text).split("\n") if ln.strip()]


def parse_wifi_status(text: str | bytes) -> bool | None:
    """``cmd wifi status`` → Wi-Fi on/off from its first line."""
    for ln in _lines(text)[:3]:
        m = re.match(r"Wifi is (enabled|disabled)", ln)
        if m:
            return m.group(1) == "enabled"
    return None


def parse_airplane_mode(text: str | bytes) -> bool | None:
    """``cmd connectivity airplane-mode`` → on/off."""
    ln = _lines(text)
    return {"enabled": True, "disabled": False}.get(ln[-1].lower()) if ln else None


def parse_night_mode(text: str | bytes) -> bool | None:
    """``cmd uimode night`` → dark on/off (``auto``/``custom``: depends on the hour → unknown)."""
    for ln in _lines(text):
        m = re.match(r"Night mode: (\w+)", ln)
        if m:
            return {"yes": True, "no": False}.get(m.group(1))
    return None


def parse_location_enabled(text: str | bytes) -> bool | None:
    """``cmd location is-location-enabled`` → on/off."""
    ln = _lines(text)
    return {"true": True, "false": False}.get(ln[-1].lower()) if ln else None


def parse_volume_get(text: str | bytes) -> int | None:
    """``cmd media_session volume --stream N --get`` → the stream's index."""
    m = re.search(r"volume is (\d+) in range", normalize_text(text))
    return int(m.group(1)) if m else None


_RINGER_MODES = {"SILENT": "silent", "VIBRATE": "vibrate", "NORMAL": "normal"}


def parse_ringer_mode(text: str | bytes, which: str = "external") -> str | None:
    """``dumpsys audio`` → the ringer mode (``"normal"``, ``"vibrate"``, ``"silent"``).

    ``which="external"`` reads ``- mode (external) = …`` (``AudioManager.getRingerMode``, what the
    Settings app and the volume panel show); ``"internal"`` the mode the streams are muted by."""
    m = re.search(rf"^- mode \({which}\) = (\w+)\s*$", normalize_text(text), re.M)
    return _RINGER_MODES.get(m.group(1)) if m else None


def parse_stream_volume(text: str | bytes, stream: str = "STREAM_MUSIC") -> int | None:
    """``dumpsys audio`` → ``streamVolume:`` of one stream (``- STREAM_MUSIC:`` section)."""
    t = normalize_text(text)
    m = re.search(rf"^- {re.escape(stream)}:\n((?:   .*\n?)+)", t, re.M)
    if not m:
        return None
    v = re.search(r"^   streamVolume:\s*(\d+)", m.group(1), re.M)
    return int(v.group(1)) if v else None


_ZEN = {"ZEN_MODE_OFF": 0, "ZEN_MODE_IMPORTANT_INTERRUPTIONS": 1, "ZEN_MODE_NO_INTERRUPTIONS": 2,
        "ZEN_MODE_ALARMS": 3, "OFF": 0, "IMPORTANT_INTERRUPTIONS": 1, "NO_INTERRUPTIONS": 2, "ALARMS": 3}


def parse_zen_mode(text: str | bytes) -> bool | None:
    """``dumpsys notification`` → Do Not Disturb on (any zen mode but OFF) / off.

    ZenModeHelper prints ``mZenMode=`` + ``Global.zenModeToString`` (a name); some builds
    print the integer."""
    m = re.search(r"\bmZenMode=(\w+)", normalize_text(text))
    if not m:
        return None
    v = m.group(1)
    mode = int(v) if v.isdigit() else _ZEN.get(v)
    return None if mode is None else mode != 0


def parse_bluetooth_dump(text: str | bytes) -> bool | None:
    """``dumpsys bluetooth_manager`` → on/off (``state: ON``, else ``enabled: true|false``)."""
    t = normalize_text(text)
    m = re.search(r"^\s*state: (\w+)", t, re.M)
    if m and m.group(1) in ("ON", "OFF", "BLE_ON"):
        return m.group(1) == "ON"
    m = re.search(r"^\s*enabled: (true|false)", t, re.M)
    return None if not m else m.group(1) == "true"


def parse_appops_mode(text: str | bytes, op: str) -> str | None:
    """``appops get PKG OP`` → the op's mode (``allow``, ``ignore``, ``deny``, ``default`` …).

    ``No operations.`` (or no line for the op) means the op is at its default mode, reported
    as ``"default"``; ``None`` only for text that is not appops output at all."""
    t = normalize_text(text)
    m = re.search(rf"\b{re.escape(op)}: (\w+)", t)
    if m:
        return m.group(1)
    if "No operations." in t or not t.strip():
        return "default"
    if service_missing(t) or re.search(r"Unknown|SecurityException|Error", t):
        return None
    return "default"


# ------------------------------------------------------------------------- runtime permissions
_PKG_HEAD = re.compile(r"^\s*Package \[([^\]]+)\]")
_USER_HEAD = re.compile(r"^\s*User (\d+):")
_PERM_LINE = re.compile(r"^\s*([\w.]+): granted=(true|false)(?:, flags=\[\s*([^\]]*)\])?")


def parse_runtime_permissions(text: str, package: str | None = None, user: int = 0) -> dict[str, tuple[bool, frozenset[str]]]:
    """``dumpsys package PKG`` → ``{permission: (granted, flags)}`` of one user's ``runtime
    permissions:`` block (frameworks/base ``PermissionManagerServiceImpl`` dump: ``NAME:
    granted=true, flags=[ USER_SET|USER_SENSITIVE_WHEN_GRANTED]``). Only the first listing of the
    package counts (an updated system app is listed again under ``Hidden system packages:``), and
    only that user's block (a work profile's grants are not the owner's). Missing → ``{}``."""
    out: dict[str, tuple[bool, frozenset[str]]] = {}
    in_pkg = package is None
    seen_pkg = False
    in_user = in_block = False
    for line in text.splitlines():
        m = _PKG_HEAD.match(line)
        if m:
            if seen_pkg:
                break  # the first listing is the active one
            in_pkg = package is None or m.group(1) == package
            seen_pkg = in_pkg
            in_user = in_block = False
            continue
        if line.startswith("Hidden system packages:") and seen_pkg:
            break
        if not in_pkg:
            continue
        m = _USER_HEAD.match(line)
        if m:
            in_user, in_block = int(m.group(1)) == user, False
            continue
        if in_user and line.strip() == "runtime permissions:":
            in_block = True
            continue
        if in_block:
            m = _PERM_LINE.match(line)
            if m is None:
                in_block = False
                continue
            flags = frozenset(f.strip() for f in (m.group(3) or "").split("|") if f.strip())
            out[m.group(1)] = (m.group(2) == "true", flags)
    return out
