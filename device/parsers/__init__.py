"""Parsers of the text Android commands print, for reading phone state over ADB without root.

Pure functions: text in, typed values out — no I/O, so they are tested on real captures
(``tests/fixtures/real-device``, ``tests/fixtures/android``) and reused by the virtual
phone. Every parser normalises line endings, skips warnings printed before the output, keeps
non-ASCII text intact and raises :class:`ParseError` (a ``ValueError``) on text it does not
recognise.
"""

from ._common import ParseError, component_of, ms_to_local, normalize_text, resolve_tz
from .alarm import AlarmClockEntry, AlarmDump, NextAlarmClock, parse_dumpsys_alarm
from .battery import BatteryReading, parse_dumpsys_battery
from .content import NO_RESULT, parse_content_rows
from .detect import KINDS, detect_kind, parse_as, to_jsonable
from .dumpsys import (ActivityInfo, DisplayState, FocusedWindow, InputDevice, InputInfo, PowerInfo, Viewport,
                      WindowInfo, foreground_state, parse_dumpsys_activity, parse_dumpsys_display,
                      parse_dumpsys_input, parse_dumpsys_power, parse_dumpsys_window, parse_viewports)
from .getprop import device_info_from_props, parse_getprop
from .hierarchy import Hierarchy, is_blank_dump, is_editable_class, parse_hierarchy, to_hierarchy_xml
from .records import calls_from_rows, contacts_from_rows, events_from_rows, messages_from_rows
from .settings import parse_settings_get, parse_settings_list, settings_to_worldstate
from .wm import WmInfo, parse_wm, parse_wm_density, parse_wm_size

__all__ = [
    "KINDS", "NO_RESULT", "ActivityInfo", "BatteryReading", "parse_dumpsys_battery", "AlarmClockEntry", "AlarmDump", "DisplayState", "FocusedWindow",
    "Hierarchy", "InputDevice", "InputInfo", "NextAlarmClock", "ParseError", "PowerInfo", "Viewport", "WindowInfo",
    "WmInfo", "calls_from_rows", "component_of", "contacts_from_rows", "detect_kind", "device_info_from_props",
    "events_from_rows", "foreground_state", "is_blank_dump", "is_editable_class", "messages_from_rows",
    "ms_to_local", "normalize_text", "parse_as", "parse_content_rows", "parse_dumpsys_activity",
    "parse_dumpsys_alarm", "parse_dumpsys_display", "parse_dumpsys_input", "parse_dumpsys_power",
    "parse_dumpsys_window", "parse_getprop", "parse_hierarchy", "parse_settings_get", "parse_settings_list",
    "parse_viewports", "parse_wm", "parse_wm_density", "parse_wm_size", "resolve_tz", "settings_to_worldstate",
    "to_hierarchy_xml", "to_jsonable",
]
from .services import (parse_airplane_mode, parse_appops_mode, parse_bluetooth_dump, parse_location_enabled,  # noqa: E402
                       parse_night_mode, parse_runtime_permissions, parse_volume_get, parse_wifi_status,
                       parse_zen_mode, service_missing)

__all__ += ["parse_airplane_mode", "parse_appops_mode", "parse_bluetooth_dump", "parse_location_enabled",
            "parse_night_mode", "parse_runtime_permissions", "parse_volume_get", "parse_wifi_status", "parse_zen_mode", "service_missing"]
