"""Settings as the system has them: the provider keys, and for fields that mirror a service (a
radio, a mode) the service's own status — a raw key can disagree with the radio on a stock phone.

Which key, which encoding and which status command belong to each field is the codec table's
(:mod:`device.codecs`); this module runs the commands. The writers verify their changes with
:func:`current_setting`; the state reader fills ``WorldState.settings`` with :func:`read_settings`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from actionmap.worldstate import Settings
from device.adbshell import Shell
from device.codecs import SERVICE_MIRRORED, SERVICE_READ, SETTING_SOURCES, SETTINGS
from device.parsers import ParseError, parse_settings_get, parse_settings_list, settings_to_worldstate
from device.parsers.services import service_missing

__all__ = ["SERVICE_STATUS", "SERVICE_MIRRORED", "SERVICE_READ", "ServiceUnavailable", "read_setting_service",
           "read_setting", "current_setting", "read_settings"]

#: Settings that mirror a service, whose own status is the truth: field -> (argv that prints the
#: state, parser). From the codec table; see device.parsers.services for the AOSP sources.
SERVICE_STATUS: dict[str, tuple[tuple[str, ...], Callable[[str], Any]]] = {
    f: (c.status, c.parse_status) for f, c in SETTINGS.items() if c.status is not None}


class ServiceUnavailable(ParseError):
    """The service's status command is missing on this release (or printed something else)."""


def read_setting_service(shell: Shell, field: str) -> Any:
    """One service-mirrored field, read from the service's own status output.

    Raises :class:`ServiceUnavailable` when the command is missing on this release (``Unknown
    command``, ``Can't find service``) or its output is not recognised. ``mobile_data`` has no
    status command: ``svc data`` persists ``global mobile_data`` itself, so that key is read
    (it is the service's record, not one s2r writes)."""
    if field not in SERVICE_STATUS:
        return read_setting(shell, field)
    argv, parse = SERVICE_STATUS[field]
    r = shell.run(list(argv))
    v = parse(r.out) if not service_missing(r.err) or r.out.strip() else None
    if v is None:
        raise ServiceUnavailable(f"{' '.join(argv)}: {(r.err or r.out).strip()[:160] or 'no output'}")
    return v


def read_setting(shell: Shell, field: str) -> Any:
    """One ``WorldState.settings`` field, read with ``settings get`` from its sources."""
    ns: dict[str, dict[str, str]] = {"global": {}, "system": {}, "secure": {}}
    for space, key in SETTING_SOURCES[field]:
        v = parse_settings_get(shell.out(["settings", "get", space, key]))
        if v is not None:
            ns[space][key] = v
            break
    return getattr(settings_to_worldstate(ns["global"], ns["system"], ns["secure"]), field)


def current_setting(shell: Shell, field: str) -> Any:
    """A setting as the system has it: the service's own status for fields that mirror a service
    (a raw key can disagree with the radio on a stock phone), the provider key otherwise; the key
    also where this release lacks the status command."""
    if field in SERVICE_MIRRORED:
        try:
            return read_setting_service(shell, field)
        except ServiceUnavailable:
            pass
    return read_setting(shell, field)


def read_settings(shell: Shell, notes: dict[str, str]) -> Settings:
    """Every field: ``settings list`` of the three namespaces, then, where the raw key can disagree
    with the service, the service's status (the raw value is the fallback only when this release
    lacks the status command). What could not be read is said in ``notes``."""
    spaces = {}
    for space in ("global", "system", "secure"):
        try:
            spaces[space] = parse_settings_list(shell.out(["settings", "list", space]))
        except ParseError as e:
            notes[f"settings.{space}"] = str(e)
            spaces[space] = {}
    st = settings_to_worldstate(spaces["global"], spaces["system"], spaces["secure"])
    upd: dict[str, Any] = {}
    for field in SERVICE_READ:
        try:
            upd[field] = read_setting_service(shell, field)
        except ServiceUnavailable as e:
            notes[f"settings.{field}"] = f"read from settings (service status unavailable: {e})"[:300]
    return st.model_copy(update=upd)
