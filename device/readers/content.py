"""Provider queries over ``content query``: the URIs and columns the readers use, and the one
function that runs a query and turns a refusal into a :class:`~device.parsers.ParseError`.

Every query passes ``--projection`` so rows split unambiguously. Shared by the state reader, the
writers (rows read back after an insert, deletes verified), the audit and the LOCAL calendar.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from device.adbshell import Shell
from device.parsers import ParseError, parse_content_rows

__all__ = ["CONTACT_DATA_COLS", "CONTACT_COLS", "SMS_COLS", "EVENT_COLS", "CALL_COLS", "URI_CONTACT_DATA",
           "URI_CONTACTS", "URI_RAW_CONTACTS", "URI_SMS", "URI_EVENTS", "URI_CALENDARS", "URI_CALLS",
           "content_query", "RESTRICTED_SMS_NOTE", "HIDDEN_SMS_BOXES"]

CONTACT_DATA_COLS = ("_id", "raw_contact_id", "contact_id", "mimetype", "data1", "data2", "data3")
CONTACT_COLS = ("_id", "display_name", "starred")
SMS_COLS = ("_id", "address", "body", "type", "read", "date")
EVENT_COLS = ("_id", "title", "dtstart", "dtend", "allDay", "eventLocation", "description", "deleted")
CALL_COLS = ("_id", "number", "name", "type", "date", "duration")

URI_CONTACT_DATA = "content://com.android.contacts/data"
URI_CONTACTS = "content://com.android.contacts/contacts"
URI_RAW_CONTACTS = "content://com.android.contacts/raw_contacts"
URI_SMS = "content://sms"
URI_EVENTS = "content://com.android.calendar/events"
URI_CALENDARS = "content://com.android.calendar/calendars"
URI_CALLS = "content://call_log/calls"

_PROVIDER_ERRORS = re.compile(r"(Error while accessing provider|SecurityException|Permission Denial|"
                              r"Unknown URI|Unknown authority|IllegalArgumentException|no such column|"
                              r"Exception occurred)", re.I)


def content_query(shell: Shell, uri: str, cols: Sequence[str], where: str | None = None,
                  sort: str | None = None) -> list[dict[str, str | None]]:
    """``content query --uri U --projection a:b:c [--where W] [--sort S]`` → rows.

    Raises ``ParseError`` when the provider refuses or prints something else (a permission
    denial, a missing provider) — callers turn that into an unknown (``None``) field.
    """
    argv = ["content", "query", "--uri", uri, "--projection", ":".join(cols)]
    if where:
        argv += ["--where", where]
    if sort:
        argv += ["--sort", sort]
    r = shell.run(argv)
    text = r.out if r.out.strip() else r.err
    if _PROVIDER_ERRORS.search(r.err or "") or (_PROVIDER_ERRORS.search(text) and "Row: 0 " not in text):
        raise ParseError(f"{uri}: {(r.err or text).strip()[:200]}")
    return parse_content_rows(text, columns=list(cols))


RESTRICTED_SMS_NOTE = "the shell's restricted view shows only inbox and sent"
HIDDEN_SMS_BOXES = ("draft", "outbox", "failed", "queued")
"""SMS boxes the shell cannot read on a stock phone (types 3-6)."""
