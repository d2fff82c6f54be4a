"""The content providers' tables: column lists, the URI form, stable ids, value conversions and
the provider error — what every provider of :mod:`.android_content` and the ``content`` command share.

Why its own module: the column names are Android's contracts (``ContactsContract``,
``Telephony.Sms``, ``CalendarContract``, ``CallLog.Calls``) and the conversions (epoch millis ⇄
the world's wall times, Java int coercion) are the same for every provider.
"""

from __future__ import annotations

import re
from datetime import datetime, timezone, tzinfo
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl


if TYPE_CHECKING:
    pass

__all__ = ["ProviderError", "CONTACT_COLUMNS", "RAW_CONTACT_COLUMNS", "DATA_COLUMNS", "SMS_COLUMNS", "EVENT_COLUMNS",
           "CALENDAR_COLUMNS", "CALL_COLUMNS", "SETTINGS_COLUMNS", "LEGACY_PHONE_COLUMNS"]


class ProviderError(Exception):
    """What the provider threw; printed as ``Error while accessing provider:AUTH`` + exception.

    ``trace`` replaces the usual stack (the provider's exception read back from its parcel)
    when the failure happened elsewhere, e.g. in ActivityManager while opening the provider."""

    def __init__(self, authority: str, exception: str, trace: str | None = None) -> None:
        super().__init__(exception)
        self.authority = authority
        self.exception = exception
        self.trace = trace


def _no_provider(authority: str) -> ProviderError:
    """No provider has the authority: ``getContentProviderExternal`` returns null and
    ``Content.Command.execute`` throws ``new IllegalStateException("Could not find provider: " +
    providerName)`` itself (frameworks/base cmds/content Content.java), so its trace is the tool's own."""
    return ProviderError(authority, f"java.lang.IllegalStateException: Could not find provider: {authority}",
                         trace="\tat com.android.commands.content.Content$Command.execute(Content.java:517)\n"
                               "\tat com.android.commands.content.Content.main(Content.java:735)\n"
                               "\tat com.android.internal.os.RuntimeInit.nativeFinishInit(Native Method)\n"
                               "\tat com.android.internal.os.RuntimeInit.main(RuntimeInit.java:399)\n")


def _ms(iso: str | None, zone: tzinfo = timezone.utc) -> int | None:
    """A local wall time of ``zone`` (ISO text) → UTC epoch milliseconds, as providers store them."""
    if not iso:
        return None
    try:
        dt = datetime.fromisoformat(iso)
        return int((dt if dt.tzinfo else dt.replace(tzinfo=zone)).timestamp() * 1000)
    except ValueError:
        return None


def _iso(ms: Any, zone: tzinfo = timezone.utc) -> str | None:
    """UTC epoch milliseconds → the local wall time of ``zone`` (what the apps show)."""
    try:
        v = int(ms)
    except (TypeError, ValueError):
        return None
    return datetime.fromtimestamp(v / 1000, tz=zone).replace(tzinfo=None).isoformat(timespec="seconds")


def _int(v: Any, default: int = 0) -> int:
    try:
        return int(v)
    except (TypeError, ValueError):
        try:
            return int(float(v))
        except (TypeError, ValueError):
            return default


def _truthy(v: Any) -> bool:
    if isinstance(v, str):
        return v.strip().lower() in ("1", "true")
    return bool(v)


def _append_record(data: dict[str, Any], kind: str, rec: dict[str, Any]) -> str:
    """Add ``rec`` to the world's ``kind`` list (made when the world has none yet); its id."""
    if data["world"].get(kind) is None:
        data["world"][kind] = []
    data["world"][kind].append(rec)
    return rec["id"]


def _copy_text(record: dict[str, Any], values: dict[str, Any], fields: dict[str, str]) -> None:
    """Set ``record[field]`` from each text ``column`` of ``fields`` that ``values`` holds
    (``{field: column}``, in that order); a NULL stores as ``""``, as the world keeps no None text."""
    for name, column in fields.items():
        if column in values:
            record[name] = "" if values[column] is None else str(values[column])


def _stored(values: dict[str, Any], table: str) -> dict[str, Any]:
    """Values as the provider stores them. ``content`` binds ``b`` as a Java Boolean: SQLite-backed
    providers bind it as 1/0 (``DatabaseUtils.bindObjectToProgram``); SettingsProvider reads
    the value with ``ContentValues.getAsString``, i.e. ``"true"``/``"false"``."""
    if table == "settings":
        return {k: ("true" if v else "false") if isinstance(v, bool) else v for k, v in values.items()}
    return {k: int(v) if isinstance(v, bool) else v for k, v in values.items()}


def _as_integer(v: Any) -> int | None:
    """``ContentValues.getAsInteger``: a number's ``intValue()`` (32-bit wrap), a string through
    ``Integer.valueOf``, anything else (a Boolean, null, text that is not a number) null."""
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, (int, float)):
        if v != v or v in (float("inf"), float("-inf")):
            return None  # not a row anyone stores; the provider would not see type 4 either
        n = int(v) & 0xFFFFFFFF
        return n - (1 << 32) if n >= 1 << 31 else n
    m = re.fullmatch(r"[+-]?\d+", str(v))
    if not m or not -(1 << 31) <= int(str(v)) < (1 << 31):
        return None
    return int(str(v))


class _Ids:
    """Stable integer ``_id`` for world record ids (``c12`` → 12; others get fresh numbers)."""

    def __init__(self) -> None:
        self.by_wid: dict[str, int] = {}
        self.by_int: dict[int, str] = {}

    def of(self, wid: str) -> int:
        got = self.by_wid.get(wid)
        if got is not None:
            return got
        m = re.fullmatch(r"[A-Za-z_]*(\d{1,9})", wid)
        n = int(m.group(1)) if m else 0
        if n <= 0 or n in self.by_int:
            n = max([100000, *self.by_int]) + 1
        self.bind(wid, n)
        return n

    def bind(self, wid: str, n: int) -> None:
        self.by_wid[wid] = n
        self.by_int[n] = wid

    def wid(self, n: int) -> str | None:
        return self.by_int.get(n)

    def fresh(self) -> int:
        return max([0, *self.by_int]) + 1


def _new_id(data: dict[str, Any], kind: str) -> str:
    data["seq"] = int(data.get("seq", 1000)) + 1
    return f"{kind[0]}{data['seq']}"


# ============================================================================ schema
CONTACT_COLUMNS = ["_id", "lookup", "display_name", "display_name_alt", "starred", "has_phone_number",
                   "times_contacted", "last_time_contacted", "photo_id", "in_visible_group", "pinned",
                   "display_name_source", "contact_last_updated_timestamp"]
RAW_CONTACT_COLUMNS = ["_id", "contact_id", "account_name", "account_type", "deleted", "display_name", "starred",
                       "version", "dirty", "sourceid", "aggregation_mode"]
DATA_COLUMNS = ["_id", "raw_contact_id", "contact_id", "mimetype", "data1", "data2", "data3", "data4", "data5",
                "data6", "is_primary", "is_super_primary", "data_version", "display_name", "starred",
                "account_type", "account_name", "in_visible_group"]
SMS_COLUMNS = ["_id", "thread_id", "address", "person", "date", "date_sent", "protocol", "read", "status", "type",
               "reply_path_present", "subject", "body", "service_center", "locked", "sub_id", "error_code",
               "creator", "seen"]
EVENT_COLUMNS = ["_id", "calendar_id", "title", "description", "eventLocation", "dtstart", "dtend", "duration",
                 "allDay", "eventTimezone", "eventEndTimezone", "rrule", "hasAlarm", "eventStatus", "availability",
                 "deleted", "organizer", "calendar_displayName"]
CALENDAR_COLUMNS = ["_id", "account_name", "account_type", "name", "calendar_displayName", "calendar_color",
                    "calendar_access_level", "visible", "sync_events", "ownerAccount", "calendar_timezone",
                    "isPrimary", "deleted"]
CALL_COLUMNS = ["_id", "number", "presentation", "date", "duration", "type", "new", "name", "numbertype",
                "numberlabel", "countryiso", "is_read", "features", "subscription_id", "geocoded_location"]
SETTINGS_COLUMNS = ["_id", "name", "value"]
#: ``content://contacts/phones`` (ContactsProvider LegacyApiSupport ``sPhoneProjectionMap``: the
#: legacy ``people`` columns plus the phone's own).
LEGACY_PHONE_COLUMNS = ["_id", "person", "isprimary", "number", "type", "label", "number_key", "name",
                        "display_name", "phonetic_name", "notes", "times_contacted", "last_time_contacted",
                        "custom_ringtone", "send_to_voicemail", "starred", "primary_phone", "primary_email",
                        "primary_organization"]
#: Columns a stock CalendarProvider2 shows beyond the permissive set (the sync and account
#: columns of ``view_events`` and ``Calendars``).
STOCK_EVENT_EXTRA = ["_sync_id", "dirty", "account_name", "account_type"]
STOCK_CALENDAR_EXTRA = ["_sync_id", "dirty"]
#: CalendarContract ``Calendars.SYNC_WRITABLE_COLUMNS`` / ``Events.SYNC_WRITABLE_COLUMNS`` /
#: ``Events.PROVIDER_WRITABLE_COLUMNS`` (the ones these tables have), in the contract's order.
_CAL_SYNC_COLUMNS = ("account_name", "account_type", "_sync_id", "dirty", "ownerAccount", "calendar_timezone",
                     "calendar_access_level", "deleted")
_EVENT_SYNC_COLUMNS = ("_sync_id", "dirty")
_EVENT_PROVIDER_COLUMNS = ("account_name", "account_type", "calendar_displayName")
_CALENDAR_AUTH = "com.android.calendar"

_CALENDAR_ROW = {"_id": 1, "account_name": "Phone", "account_type": "LOCAL", "name": "Phone",
                 "calendar_displayName": "Phone", "calendar_color": -14069085, "calendar_access_level": 700,
                 "visible": 1, "sync_events": 1, "ownerAccount": "Phone", "calendar_timezone": "UTC",
                 "isPrimary": 1, "deleted": 0}


class _Uri:
    """``content://AUTHORITY/path[/ID]`` parsed."""

    def __init__(self, text: str) -> None:
        m = re.fullmatch(r"content://([^/?#]+)((?:/[^?#]*)?)(?:\?([^#]*))?", text.strip())
        if not m:  # no content provider answers for it: ActivityManager finds none
            raise _no_provider(_authority(text))
        self.text = text.strip()
        self.authority = m.group(1)
        self.params: dict[str, str] = dict(parse_qsl(m.group(3) or "", keep_blank_values=True))
        segs = [s for s in m.group(2).split("/") if s]
        self.id: int | None = None
        if segs and segs[-1].isdigit():
            self.id = int(segs.pop())
        self.path = "/".join(segs)

    @property
    def base(self) -> str:
        """The URI without its query (what ``rejectInsert`` appends ``/0`` to, less the query)."""
        return self.text.split("?", 1)[0]

    @property
    def sync_adapter(self) -> bool:
        """``CalendarContract.CALLER_IS_SYNCADAPTER`` (``QueryParameterUtils.readBooleanQueryParameter``)."""
        return self.params.get("caller_is_syncadapter", "").strip().lower() in ("true", "1")

    @property
    def account(self) -> tuple[str, str]:
        return self.params.get("account_name", ""), self.params.get("account_type", "")

    def boolean_param(self, key: str) -> bool:
        """``Uri.getBooleanQueryParameter(key, false)``: present and neither ``false`` nor ``0``."""
        v = self.params.get(key)
        return v is not None and v.lower() not in ("false", "0")




def _e164(number: str) -> str | None:
    digits = re.sub(r"[^\d+]", "", number)
    return digits if digits.startswith("+") else None


def _duration_s(text: str) -> int | None:
    """RFC 2445 durations as CalendarContract uses them: ``P3600S``, ``PT1H``, ``P1D``."""
    m = re.fullmatch(r"([+-])?P(?:(\d+)W)?(?:(\d+)D)?(?:T?(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?", text.strip())
    if not m:
        return None
    w, d, h, mi, s = (int(x or 0) for x in m.groups()[1:])
    return (((w * 7 + d) * 24 + h) * 60 + mi) * 60 + s



def _authority(uri: str) -> str:
    """``Uri.getAuthority()`` of what ``--uri`` named (``null`` without one)."""
    m = re.match(r"[A-Za-z][A-Za-z0-9+.-]*://([^/?#]*)", uri.strip())
    return m.group(1) if m else "null"

