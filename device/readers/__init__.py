"""Read a phone's state over ADB, without root — one module per job:

* :mod:`~device.readers.state` — :class:`StateReader`, the whole ``WorldState`` (its table of sources);
* :mod:`~device.readers.settings` — settings from their keys and their services' status;
* :mod:`~device.readers.content` — provider URIs, columns and :func:`content_query`;
* :mod:`~device.readers.tags` — the run-tag markers records carry;
* :mod:`~device.readers.clock` — the Clock app's alarm list read off one screen;
* :mod:`~device.readers.probes` — UI probes (alarms, the dial pad) through a ``ui`` the caller passes.

Names are re-exported here, where callers import them from.
"""

from device.parsers.files import parse_ls_lr, parse_stat_lines
from device.readers.clock import AlarmCard, ClockScreen, alarms_from_elements, parse_alarm_days, parse_alarm_time
from device.readers.content import (CALL_COLS, CONTACT_COLS, CONTACT_DATA_COLS, EVENT_COLS, HIDDEN_SMS_BOXES,
                                    RESTRICTED_SMS_NOTE, SMS_COLS, URI_CALENDARS, URI_CALLS, URI_CONTACT_DATA,
                                    URI_CONTACTS, URI_EVENTS, URI_RAW_CONTACTS, URI_SMS, content_query)
from device.readers.probes import (UIProbe, dial_pad_number, is_dialer_package, open_alarm_list, probe_alarms,
                                   probe_family, scroll_to_top)
from device.readers.settings import (SERVICE_MIRRORED, SERVICE_READ, SERVICE_STATUS, ServiceUnavailable,
                                     current_setting, read_setting, read_setting_service, read_settings)
from device.readers.state import ReaderOptions, StateReader, local_to_ms, utc_midnight_ms
from device.readers.tags import (MIME_NOTE, TAG_INVISIBLE_RE, TAG_RE, has_tag, invisible_marker, marker, strip_tag,
                                 untagged)

__all__ = [
    "StateReader", "ReaderOptions", "TAG_RE", "TAG_INVISIBLE_RE", "marker", "invisible_marker", "has_tag", "strip_tag",
    "untagged", "content_query", "parse_stat_lines", "parse_ls_lr", "alarms_from_elements", "open_alarm_list",
    "parse_alarm_time", "parse_alarm_days", "UIProbe", "read_setting", "read_settings", "current_setting",
    "CONTACT_DATA_COLS", "CONTACT_COLS", "SMS_COLS", "EVENT_COLS", "CALL_COLS", "MIME_NOTE", "read_setting_service",
    "SERVICE_STATUS", "SERVICE_MIRRORED", "SERVICE_READ", "ServiceUnavailable", "RESTRICTED_SMS_NOTE",
    "HIDDEN_SMS_BOXES", "ClockScreen", "AlarmCard", "probe_family", "dial_pad_number", "is_dialer_package",
    "scroll_to_top", "local_to_ms", "utc_midnight_ms", "probe_alarms", "URI_CONTACT_DATA", "URI_CONTACTS",
    "URI_RAW_CONTACTS", "URI_SMS", "URI_EVENTS", "URI_CALENDARS", "URI_CALLS",
]
