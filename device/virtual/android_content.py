"""Content providers of the virtual phone: contacts, SMS, calendar, call log, settings.

Why they are views over the sim world: on a phone, ``content query --uri content://sms``
reads the telephony provider that the Messages app also shows; here the sim world *is* that
database. Each provider turns ``WorldState`` records into rows with the real column names
(Android's contracts: ``ContactsContract``, ``Telephony.Sms``, ``CalendarContract.Events``,
``CallLog.Calls``) and turns inserts/updates/deletes back into world edits, so the Contacts
app shows a contact inserted over adb, and the device state readers
(:mod:`device.parsers.records`) read back exactly what the sim holds. Rows are encoded with
the phone's own code tables (:mod:`.android_codes`, written from the framework contracts),
never with the readers' decode tables, so a wrong code cannot round-trip unnoticed. Times
are epoch milliseconds (UTC); the world's times are local wall times of the phone's zone
(``phone.zone``, ``persist.sys.timezone``), all-day events are dated at UTC midnights; ids are stable integers derived from world ids.

The ``content`` command is ``/system/bin/content`` (frameworks/base cmds/content Content.java,
see :class:`ContentCommand`): ``Row: N col=value, ...`` / ``No result found.``; ``insert``,
``update`` and ``delete`` print nothing on success; a bad command line prints the usage and
``[ERROR] …`` on stdout, a provider's exception goes to stderr as ``Error while accessing
provider:AUTH`` and its stack trace — and the exit status is 0 either way. ``--bind`` values are
split by the rule of the phone's Android version (:func:`parse_binding`: from Android 11 every
``:`` of a value is escaped ``\\:``).

A stock phone (``knobs.permissive=False``) answers the shell user (uid 2000,
``com.android.shell``, not the default SMS app) as AOSP does (each method below names the
AOSP source it follows):

* SMS writes pass the ``WRITE_SMS`` app-op (:mod:`.android_appops`, default ``ignore``); reads
  see the restricted view (inbox and sent only).
* Calendars exist only under an account: none without ``knobs.google_account``; a LOCAL
  calendar can be made through the sync-adapter URI. Events of a synced calendar are soft
  deleted (``deleted=1, dirty=1``).
* The call log is closed to the shell on Android 11 (no READ_CALL_LOG in its manifest).
  Voicemail rows (``type=4``) are CallLogProvider's own business: inserting one needs
  ``?allow_voicemails=true`` and then WRITE_VOICEMAIL, which the shell lacks; queries,
  updates and deletes without the parameter never see them.

``permissive=True`` keeps the rooted-emulator behaviour: every write lands, one LOCAL
calendar ``_id=1`` always exists, every SMS box is readable.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime, timedelta, timezone, tzinfo
import hashlib
from typing import TYPE_CHECKING, Any, Callable
from urllib.parse import parse_qsl

from .android_appops import SHELL_PACKAGE, AppOps
from .android_codes import (ALLOW_VOICEMAILS_PARAM_KEY, CALL_KIND_OF_TYPE, CALL_TYPE, MIME_EMAIL, MIME_NAME, MIME_ORG,
                           MIME_PHONE, PHONE_LABEL_OF_TYPE, PHONE_TYPE, SMS_BOX_OF_TYPE, SMS_TYPE, VOICEMAIL_TYPE)
from .android_sql import SqlError, compile_where, sort_rows
from .shline import CommandContext, CommandHandler

if TYPE_CHECKING:
    from .phone import VirtualPhone

__all__ = ["ContentProviders", "ProviderError", "content_commands", "format_rows"]


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


# ============================================================================ providers
class ContentProviders:
    """All providers of one phone. Methods are synchronous (call through ``phone.acall``)."""

    AUTHORITIES = ("com.android.contacts", "contacts", "sms", "mms-sms", "com.android.calendar", "call_log",
                   "settings")

    def __init__(self, phone: "VirtualPhone") -> None:
        self.phone = phone
        self.contact_ids = _Ids()
        self.sms_ids = _Ids()
        self.event_ids = _Ids()
        self.call_ids = _Ids()
        self._data_ids: dict[tuple[int, str, str], int] = {}
        self._extra_rows: dict[int, list[dict[str, Any]]] = {}  # contact _id → data rows of other mimetypes
        self._raw_meta: dict[int, dict[str, Any]] = {}  # contact _id → account columns
        self._pending_raw: dict[int, dict[str, Any]] = {}  # raw contacts without a name or number yet
        self._threads: dict[str, int] = {}
        self._sms_subjects: dict[str, str] = {}  # world message id → the SMS row's ``subject`` column
        self.appops = AppOps(phone)

    # ------------------------------------------------------------------ dispatch
    def _table(self, uri: _Uri) -> str:
        a, p = uri.authority, uri.path
        if a == "contacts" and p == "phones":
            return "phones"
        if a in ("com.android.contacts", "contacts"):
            if p in ("contacts", "people"):
                return "contacts"
            if p == "raw_contacts":
                return "raw_contacts"
            if p in ("data", "data/phones", "data/emails"):
                return p
        elif a == "sms":
            if p in ("", "inbox", "sent", "draft", "outbox", "failed", "queued"):
                return "sms"
        elif a == "com.android.calendar":
            if p == "events":
                return "events"
            if p == "calendars":
                return "calendars"
        elif a == "call_log":
            if p == "calls":
                return "calls"
        elif a == "settings":
            if p in ("system", "secure", "global"):
                return "settings"
        if a not in self.AUTHORITIES:
            raise _no_provider(a)
        raise ProviderError(a, f"java.lang.IllegalArgumentException: Unknown URL {uri.text}")

    def columns(self, uri_text: str) -> list[str]:
        uri = _Uri(uri_text)
        return self._columns(self._table(uri))

    @property
    def stock(self) -> bool:
        """A stock phone: the shell is refused what AOSP refuses it (``knobs.permissive`` off)."""
        return not self.phone.knobs.permissive

    def _columns(self, table: str) -> list[str]:
        cols = {"contacts": CONTACT_COLUMNS, "raw_contacts": RAW_CONTACT_COLUMNS, "data": DATA_COLUMNS,
                "data/phones": DATA_COLUMNS, "data/emails": DATA_COLUMNS, "sms": SMS_COLUMNS,
                "events": EVENT_COLUMNS, "calendars": CALENDAR_COLUMNS, "calls": CALL_COLUMNS,
                "settings": SETTINGS_COLUMNS, "phones": LEGACY_PHONE_COLUMNS}[table]
        if self.stock and table == "events":
            return cols + STOCK_EVENT_EXTRA
        if self.stock and table == "calendars":
            return cols + STOCK_CALENDAR_EXTRA
        return cols

    def _rows(self, uri: _Uri, table: str, data: dict[str, Any], for_write: bool = False) -> list[dict[str, Any]]:
        world = data["world"]
        if table == "contacts":
            rows = self._contact_rows(world)
        elif table == "raw_contacts":
            rows = self._raw_contact_rows(world)
        elif table.startswith("data"):
            rows = self._data_rows(world)
            if table == "data/phones":
                rows = [r for r in rows if r["mimetype"] == MIME_PHONE]
            elif table == "data/emails":
                rows = [r for r in rows if r["mimetype"] == MIME_EMAIL]
        elif table == "sms":
            rows = self._sms_rows(world)
            if self.stock and not for_write:
                rows = [r for r in rows if r["type"] in (1, 2)]  # the sms_restricted view
            box = SMS_TYPE.get(uri.path)
            if box is not None:
                rows = [r for r in rows if r["type"] == box]
        elif table == "events":
            rows = self._stock_event_rows(data) if self.stock else self._event_rows(world)
        elif table == "calendars":
            rows = [dict(c) for c in self._cal_state(data)["calendars"]] if self.stock else [dict(_CALENDAR_ROW)]
        elif table == "calls":
            rows = self._call_rows(world)
            if not uri.boolean_param(ALLOW_VOICEMAILS_PARAM_KEY):  # CallLogProvider EXCLUDE_VOICEMAIL_SELECTION
                rows = [r for r in rows if r["type"] != VOICEMAIL_TYPE]
        elif table == "phones":
            rows = self._legacy_phone_rows(world)
        else:
            rows = [{"_id": i + 1, "name": k, "value": v}
                    for i, (k, v) in enumerate(self.phone.settings.list(uri.path).items())]
        if uri.id is not None:
            rows = [r for r in rows if r.get("_id") == uri.id]
        return rows

    # ------------------------------------------------------------------ public operations
    def query(self, uri_text: str, projection: Sequence[str] | None = None, where: str | None = None,
              sort: str | None = None) -> tuple[list[str], list[dict[str, Any]]]:
        """Rows of a URI (columns, rows); ``ProviderError`` as the provider would throw."""
        with self.phone._lock:  # one provider call at a time: ids are allocated as rows are read
            return self._query(uri_text, projection, where, sort)

    def _query(self, uri_text: str, projection: Sequence[str] | None, where: str | None,
               sort: str | None) -> tuple[list[str], list[dict[str, Any]]]:
        uri = _Uri(uri_text)
        self._open(uri)
        table = self._table(uri)
        if table == "calls":
            self._voicemail_access(uri, "query")
        cols = self._columns(table)
        try:
            pred = compile_where(where, cols)
            for c in projection or ():
                if c not in cols:
                    raise SqlError(f"no such column: {c} (code 1 SQLITE_ERROR)")
            rows = [r for r in self._rows(uri, table, self.phone.state_data()) if pred(r)]
            rows = sort_rows(rows, sort or self._default_sort(table), cols)
        except SqlError as e:
            raise ProviderError(uri.authority, f"android.database.sqlite.SQLiteException: {e}") from None
        shown = list(projection) if projection else cols
        return shown, [{c: r.get(c) for c in shown} for r in rows]

    @staticmethod
    def _default_sort(table: str) -> str | None:
        return {"sms": "date DESC", "calls": "date DESC", "contacts": "display_name",
                "raw_contacts": "_id", "data": "_id", "events": "_id", "phones": "name"}.get(table)

    def insert(self, uri_text: str, values: dict[str, Any]) -> str:
        """Insert a row; returns the new row's URI (``content insert`` prints nothing)."""
        with self.phone._lock:
            return self._insert(uri_text, values)

    def _insert(self, uri_text: str, values: dict[str, Any]) -> str:
        uri = _Uri(uri_text)
        self._open(uri)
        table = self._table(uri)
        values = _stored(values, table)
        if table == "sms" and not self._sms_write_allowed():
            return f"{uri.base}/0"  # ContentProvider.rejectInsert: nothing written
        cols = self._columns(table)
        for c in values:
            if c not in cols and not (table.startswith("data") and re.fullmatch(r"data(\d+)|data_sync\d", c)):
                raise ProviderError(uri.authority, f"android.database.sqlite.SQLiteException: table "
                                                   f"{table.split('/')[0]} has no column named {c} (code 1 SQLITE_ERROR)")
        if table == "raw_contacts":
            self._contacts(self.phone.state_data()["world"])  # bind existing ids before allocating
            n = self.contact_ids.fresh()
            self.contact_ids.bind(f"pending:{n}", n)
            self._pending_raw[n] = {"account_name": values.get("account_name"),
                                    "account_type": values.get("account_type"),
                                    "starred": _int(values.get("starred"))}
            return f"content://com.android.contacts/raw_contacts/{n}"
        if table.startswith("data"):
            return self._insert_data(uri, values)
        if table == "contacts":
            raise ProviderError(uri.authority, "java.lang.UnsupportedOperationException: URI: "
                                               f"{uri.text}, calling user: com.android.shell")
        if table == "sms":
            box = SMS_TYPE.get(uri.path)  # SmsProvider.insertInner: the box URI sets the type
            return self._insert_sms(values, box)
        if table == "events":
            return self._insert_event_stock(uri, values) if self.stock else self._insert_event(uri, values)
        if table == "calendars" and self.stock:
            return self._insert_calendar(uri, values)
        if table == "calls":
            if _as_integer(values.get("type")) == VOICEMAIL_TYPE:  # CallLogProvider.hasVoicemailValue
                self._allow_voicemail_request(uri)
                self._voicemail_access(uri, "insert")
            return self._insert_call(values)
        if table == "settings":
            name = values.get("name")
            if not name:
                raise ProviderError(uri.authority, "java.lang.IllegalArgumentException: Name cannot be empty")
            self.phone.settings.put(uri.path, str(name), "" if values.get("value") is None else str(values["value"]))
            return f"content://settings/{uri.path}/{name}"
        raise ProviderError(uri.authority, f"java.lang.UnsupportedOperationException: Cannot insert into URL: {uri.text}")

    def update(self, uri_text: str, values: dict[str, Any], where: str | None = None) -> int:
        """Update matching rows; returns how many."""
        with self.phone._lock:
            return self._update(uri_text, values, where)

    def _update(self, uri_text: str, values: dict[str, Any], where: str | None) -> int:
        uri = _Uri(uri_text)
        self._open(uri)
        table = self._table(uri)
        values = _stored(values, table)
        if table == "sms" and not self._sms_write_allowed():
            return 0  # the WRITE_SMS app-op refused it: ContentProvider.Transport.update returns 0
        cols = self._columns(table)
        if table in ("events", "calendars") and self.stock:
            self._verify_calendar_write(uri, table, values, where, "update")
        for c in values:
            if c not in cols:
                raise ProviderError(uri.authority, f"android.database.sqlite.SQLiteException: no such column: "
                                                   f"{c} (code 1 SQLITE_ERROR)")
        if table == "calls":
            if _as_integer(values.get("type")) == VOICEMAIL_TYPE:
                self._allow_voicemail_request(uri)
            self._voicemail_access(uri, "update")
        if table == "phones":
            raise ProviderError(uri.authority, f"java.lang.UnsupportedOperationException: URI: {uri.text}")
        targets = self._matching(uri, table, where)
        if not targets:
            return 0
        if table in ("events", "calendars") and self.stock:
            return self._update_calendar_rows(uri, table, targets, values)
        if table == "settings":
            for r in targets:
                if "value" in values:
                    self.phone.settings.put(uri.path, r["name"], "" if values["value"] is None else str(values["value"]))
            return len(targets)
        self.phone.mutate(lambda d: self._apply_update(table, d, targets, values))
        return len(targets)

    def delete(self, uri_text: str, where: str | None = None) -> int:
        """Delete matching rows; returns how many."""
        with self.phone._lock:
            return self._delete(uri_text, where)

    def _delete(self, uri_text: str, where: str | None) -> int:
        uri = _Uri(uri_text)
        self._open(uri)
        table = self._table(uri)
        if table == "sms" and not self._sms_write_allowed():
            return 0  # the WRITE_SMS app-op refused it: ContentProvider.Transport.delete returns 0
        if table in ("events", "calendars") and self.stock:
            self._verify_calendar_write(uri, table, {}, where, "delete")
        if table == "calls":
            self._voicemail_access(uri, "delete")
        if table == "phones":
            raise ProviderError(uri.authority, f"java.lang.UnsupportedOperationException: URI: {uri.text}")
        targets = self._matching(uri, table, where)
        if table in ("events", "calendars") and self.stock:
            return self._delete_calendar_rows(uri, table, targets)
        if not targets:
            return 0
        if table == "settings":
            for r in targets:
                self.phone.settings.delete(uri.path, r["name"])
            return len(targets)
        if table == "calendars":
            raise ProviderError(uri.authority, "java.lang.IllegalArgumentException: Cannot delete the local calendar")
        self.phone.mutate(lambda d: self._apply_delete(table, d, targets))
        return len(targets)

    def _matching(self, uri: _Uri, table: str, where: str | None) -> list[dict[str, Any]]:
        cols = self._columns(table)
        try:
            pred = compile_where(where, cols)
            rows = [r for r in self._rows(uri, table, self.phone.state_data(), for_write=True) if pred(r)]
            if table in ("events", "calendars") and self.stock and uri.sync_adapter:
                name, kind = uri.account  # CalendarProvider2.appendAccountToSelection
                rows = [r for r in rows if r.get("account_name") == name and r.get("account_type") == kind]
            return rows
        except SqlError as e:
            raise ProviderError(uri.authority, f"android.database.sqlite.SQLiteException: {e}") from None

    # ------------------------------------------------------------------ stock gates
    def _open(self, uri: _Uri) -> None:
        """``getContentProviderExternal``: the call log is closed to the shell on Android 11.

        The shell's manifest (frameworks/base packages/Shell/AndroidManifest.xml) of the
        Android 11 era has READ_CONTACTS and READ_SMS but no call-log permission; the
        manifests of Android 13 and later list READ_CALL_LOG and WRITE_CALL_LOG.
        CallLogProvider is guarded by both. ActivityManager then refuses to open the provider at all
        (``ContentProviderHelper.checkContentProviderPermission``), for every verb, before
        the provider runs: ``Permission Denial: opening provider ... from (null) (pid=N,
        uid=2000) requires android.permission.READ_CALL_LOG or android.permission.WRITE_CALL_LOG``.
        Android 13, 14 and 15 grant both, so the call log works there."""
        if uri.authority != "call_log" or not self.stock or self.phone.knobs.android >= 12:
            return
        pid = 4000 + (abs(hash(uri.text)) % 4000)
        raise ProviderError(
            "call_log",
            "java.lang.SecurityException: Permission Denial: opening provider "
            f"com.android.providers.contacts.CallLogProvider from (null) (pid={pid}, uid=2000) requires "
            "android.permission.READ_CALL_LOG or android.permission.WRITE_CALL_LOG",
            trace="\tat android.os.Parcel.createExceptionOrNull(Parcel.java:2373)\n"
                  "\tat android.os.Parcel.createException(Parcel.java:2357)\n"
                  "\tat android.os.Parcel.readException(Parcel.java:2340)\n"
                  "\tat android.os.Parcel.readException(Parcel.java:2282)\n"
                  "\tat android.app.IActivityManager$Stub$Proxy.getContentProviderExternal(IActivityManager.java:6477)\n"
                  "\tat com.android.commands.content.Content$Command.execute(Content.java:518)\n"
                  "\tat com.android.commands.content.Content.main(Content.java:735)\n"
                  "\tat com.android.internal.os.RuntimeInit.nativeFinishInit(Native Method)\n"
                  "\tat com.android.internal.os.RuntimeInit.main(RuntimeInit.java:399)\n")

    def _allow_voicemail_request(self, uri: _Uri) -> None:
        """``CallLogProvider.checkIsAllowVoicemailRequest``: a row of ``type=4`` (``VOICEMAIL_TYPE``)
        may be inserted, or a row changed to it, only through a URI that asks for voicemails
        (packages/providers/ContactsProvider CallLogProvider.java, ``insertInternal`` and
        ``update``: ``if (hasVoicemailValue(values)) { checkIsAllowVoicemailRequest(uri); …}``).
        The rule is the provider's, not a permission: root is held to it too."""
        if not uri.boolean_param(ALLOW_VOICEMAILS_PARAM_KEY):
            raise ProviderError(uri.authority, f"java.lang.IllegalArgumentException: Uri {uri.text} cannot be used "
                                               f"for voicemail record. Please set '{ALLOW_VOICEMAILS_PARAM_KEY}=true' "
                                               "in the uri.")

    def _voicemail_access(self, uri: _Uri, verb: str) -> None:
        """``CallLogProvider.checkVoicemailPermissionAndAddRestriction`` (and the write check of an
        insert): a URI with ``allow_voicemails=true`` needs ``READ_VOICEMAIL`` (query) or
        ``WRITE_VOICEMAIL`` (insert, update, delete) unless the caller is the default or system
        dialer (VoicemailPermissions.java). The shell is neither and its manifest
        (frameworks/base packages/Shell/AndroidManifest.xml) lists only ``ADD_VOICEMAIL``, so it is
        refused; without the parameter the provider adds ``type != 4`` to the selection (see
        :meth:`_rows`). Root (a permissive phone) holds every permission."""
        if not uri.boolean_param(ALLOW_VOICEMAILS_PARAM_KEY) or not self.stock:
            return
        perm = "READ_VOICEMAIL" if verb == "query" else "WRITE_VOICEMAIL"
        raise ProviderError(uri.authority, "java.lang.SecurityException: The caller must be the default or system "
                                           f"dialer, or have the system-only android.permission.{perm} permission: ")

    def _sms_write_allowed(self) -> bool:
        """``ContentProvider.Transport.enforceWritePermission`` for SmsProvider.

        SmsProvider calls ``setAppOps(OP_READ_SMS, OP_WRITE_SMS)`` (packages/providers/
        TelephonyProvider SmsProvider.onCreate), so every write by a caller whose WRITE_SMS
        mode is not ``allow`` is answered before the provider runs: ``rejectInsert`` (the URI
        plus ``/0``) for an insert, 0 rows for an update or delete — and ``content`` prints
        nothing either way. A permissive phone allows every write."""
        if not self.stock:
            return True
        return self.appops.note(SHELL_PACKAGE, "WRITE_SMS")

    # ------------------------------------------------------------------ calendar (stock)
    def _cal_initial(self) -> dict[str, Any]:
        """A fresh CalendarProvider2 database: no calendar, unless an account syncs one.

        The provider creates no calendar by itself; a signed-in Google account's sync
        adapter inserts ``account_type=com.google`` with the address as name and owner."""
        cals: list[dict[str, Any]] = []
        addr = self.phone.knobs.google_account
        if addr:
            cals.append({"_id": 1, "account_name": addr, "account_type": "com.google", "name": addr,
                         "calendar_displayName": addr, "calendar_color": -14069085, "calendar_access_level": 700,
                         "visible": 1, "sync_events": 1, "ownerAccount": addr, "calendar_timezone": "UTC",
                         "isPrimary": 1, "deleted": 0, "_sync_id": addr, "dirty": 0})
        return {"calendars": cals, "events": {}, "tombstones": []}

    def _cal_state(self, data: dict[str, Any]) -> dict[str, Any]:
        """The calendar provider's own tables (``sys.calendar_provider``); read-only view."""
        got = (data.get("sys") or {}).get("calendar_provider")
        return got if got is not None else self._cal_initial()

    def _cal_edit(self, fn: Callable[[dict[str, Any], dict[str, Any]], Any]) -> Any:
        """Run ``fn(calendar_state, phone_state)`` in one phone mutation."""
        def go(d: dict[str, Any]) -> Any:
            sys = d.setdefault("sys", {})
            if sys.get("calendar_provider") is None:
                sys["calendar_provider"] = self._cal_initial()
            return fn(sys["calendar_provider"], d)

        return self.phone.mutate(go)

    def _event_meta(self, cp: dict[str, Any], wid: str) -> dict[str, Any] | None:
        """Which calendar a world event is in, with its sync columns.

        Events the world was seeded with carry no record: they belong to the signed-in
        account's calendar (``_id`` 1, synced, so they have a ``_sync_id``); with no account
        they are in no calendar, and ``view_events`` (Events JOIN Calendars) hides them."""
        meta = cp["events"].get(wid)
        if meta is not None:
            return meta
        if self.phone.knobs.google_account:
            return {"calendar_id": 1, "_sync_id": hashlib.md5(wid.encode()).hexdigest()[:26], "dirty": 0}
        # an event the Calendar app created goes into its default calendar: the first visible,
        # writable one (a stock phone without an account boots with no events at all, see
        # VirtualPhone.start, so every such event is one the app made after a calendar existed)
        own = [c for c in cp["calendars"] if c.get("visible", 1) and int(c.get("calendar_access_level") or 700) >= 500]
        if own:
            return {"calendar_id": min(c["_id"] for c in own), "dirty": 1}
        return None

    def _stock_event_rows(self, data: dict[str, Any]) -> list[dict[str, Any]]:
        """``view_events``: world events joined with their calendar, plus soft-deleted rows."""
        cp = self._cal_state(data)
        cals = {c["_id"]: c for c in cp["calendars"]}
        rows = []
        for row, e in zip(self._event_rows(data["world"]), data["world"].get("events") or []):
            meta = self._event_meta(cp, str(e.get("id")))
            cal = cals.get(meta["calendar_id"]) if meta else None
            if cal is None:
                continue
            rows.append({**row, "calendar_id": cal["_id"], "calendar_displayName": cal.get("calendar_displayName"),
                         "organizer": cal.get("ownerAccount"), "_sync_id": meta.get("_sync_id"),
                         "dirty": meta.get("dirty", 0), "account_name": cal.get("account_name"),
                         "account_type": cal.get("account_type")})
        rows += [dict(t) for t in cp["tombstones"] if t.get("calendar_id") in cals]
        return rows

    def _verify_calendar_write(self, uri: _Uri, table: str, values: dict[str, Any], where: str | None,
                               verb: str) -> None:
        """``CalendarProvider2.verifyTransactionAllowed`` for updates and deletes (and, with
        ``verb="insert"``, the column rules of inserts)."""
        auth = uri.authority
        if verb in ("update", "delete"):
            if where and uri.id is not None:
                raise ProviderError(auth, f"java.lang.IllegalArgumentException: Selection not permitted for {uri.text}")
            if not where and uri.id is None and table == "events":
                raise ProviderError(auth, "java.lang.IllegalArgumentException: Selection must be specified for "
                                          f"{uri.text}")
        if verb in ("insert", "update") and table == "events":
            for c in _EVENT_PROVIDER_COLUMNS:
                if c in values:
                    raise ProviderError(auth, f"java.lang.IllegalArgumentException: Only the provider may write to {c}")
        if uri.sync_adapter:
            name, kind = uri.account
            if not name or not kind:
                raise ProviderError(auth, "java.lang.IllegalArgumentException: Sync adapters must specify an account "
                                          f"and account type: {uri.text}")
        elif verb in ("insert", "update"):
            for c in (_CAL_SYNC_COLUMNS if table == "calendars" else _EVENT_SYNC_COLUMNS):
                if c in values:
                    raise ProviderError(auth, f"java.lang.IllegalArgumentException: Only sync adapters may write to {c}")

    def _insert_calendar(self, uri: _Uri, values: dict[str, Any]) -> str:
        """``insertInTransaction`` CALENDARS: the new row gets ``max(_id) + 1``.

        Only a sync adapter may set the account columns (``Calendars.SYNC_WRITABLE_COLUMNS``),
        and it must name its account in the URI (``verifyHasAccount``). A LOCAL calendar is
        made with ``?caller_is_syncadapter=true&account_name=X&account_type=LOCAL``."""
        self._verify_calendar_write(uri, "calendars", values, None, "insert")

        def edit(cp: dict[str, Any], _d: dict[str, Any]) -> int:
            n = max([0, *(int(c["_id"]) for c in cp["calendars"])]) + 1  # INTEGER PRIMARY KEY: max(rowid)+1
            owner, account = values.get("ownerAccount"), values.get("account_name")
            row = {c: values.get(c) for c in CALENDAR_COLUMNS + STOCK_CALENDAR_EXTRA}
            row.update({"_id": n, "visible": _int(values.get("visible"), 1) if "visible" in values else 1,
                        "sync_events": _int(values.get("sync_events")), "deleted": 0,
                        "isPrimary": values.get("isPrimary", 1 if owner is not None and owner == account else 0),
                        "dirty": values.get("dirty")})
            cp["calendars"].append(row)
            return n

        return f"content://{_CALENDAR_AUTH}/calendars/{self._cal_edit(edit)}"

    def _insert_event_stock(self, uri: _Uri, values: dict[str, Any]) -> str:
        """``insertInTransaction`` EVENTS as CalendarProvider2 runs it for the shell.

        An app's insert is marked ``dirty=1`` and must pass ``validateEventData``
        (calendar_id, eventTimezone, dtstart, dtend or duration); a sync adapter's is only
        scrubbed, so it fails later with ``New events must specify a calendar id``. There is
        no foreign key: an event of a calendar that does not exist is stored, but no query
        shows it (``view_events`` joins Calendars), so nothing appears anywhere."""
        self._verify_calendar_write(uri, "events", values, None, "insert")
        auth = uri.authority
        if "dtstart" not in values:
            raise ProviderError(auth, "java.lang.RuntimeException: DTSTART field missing from event")
        sync = uri.sync_adapter
        if not sync:
            self._validate_event(auth, values)
        elif values.get("calendar_id") is None:
            raise ProviderError(auth, "java.lang.IllegalArgumentException: New events must specify a calendar id")
        cal_id = _int(values.get("calendar_id"), -1)
        cals = {c["_id"] for c in self._cal_state(self.phone.state_data())["calendars"]}
        if cal_id not in cals:
            n = self.event_ids.fresh()
            self.event_ids.bind(f"orphan:{n}", n)
            return f"content://{_CALENDAR_AUTH}/events/{n}"
        holder: dict[str, Any] = {}

        def edit(cp: dict[str, Any], d: dict[str, Any]) -> None:
            rec: dict[str, Any] = {"id": _new_id(d, "events"), "title": "", "start": _iso(values["dtstart"], self._zone),
                                   "end": None, "all_day": False, "location": "", "description": "", "tag": None}
            self._event_from_values(rec, values)
            if d["world"].get("events") is None:
                d["world"]["events"] = []
            d["world"]["events"].append(rec)
            cp["events"][rec["id"]] = {"calendar_id": cal_id, "_sync_id": values.get("_sync_id") if sync else None,
                                       "dirty": _int(values.get("dirty")) if sync else 1}
            holder["id"] = rec["id"]

        self._cal_edit(edit)
        return f"content://{_CALENDAR_AUTH}/events/{self.event_ids.of(holder['id'])}"

    @staticmethod
    def _validate_event(auth: str, values: dict[str, Any]) -> None:
        """``CalendarProvider2.validateEventData`` (an app's insert)."""
        def bad(msg: str) -> ProviderError:
            return ProviderError(auth, f"java.lang.IllegalArgumentException: {msg}")

        if values.get("calendar_id") in (None, ""):
            raise bad("Event values must include a calendar_id")
        if values.get("eventTimezone") in (None, ""):
            raise bad("Event values must include an eventTimezone")
        has_end, has_dur = values.get("dtend") is not None, bool(values.get("duration"))
        if values.get("dtstart") is None:
            raise bad("DTSTART cannot be empty.")
        if not has_end and not has_dur:
            raise bad("DTEND and DURATION cannot both be null for an event.")
        if has_end and has_dur:
            raise bad("Cannot have both DTEND and DURATION in an event")

    def _update_calendar_rows(self, uri: _Uri, table: str, targets: list[dict[str, Any]],
                              values: dict[str, Any]) -> int:
        """An app's event update marks the rows ``dirty=1``; calendar updates edit the row."""
        ids = {r["_id"] for r in targets}

        def edit(cp: dict[str, Any], d: dict[str, Any]) -> None:
            if table == "calendars":
                for c in cp["calendars"]:
                    if c["_id"] in ids:
                        c.update({k: v for k, v in values.items() if k != "_id"})
                return
            for e in d["world"].get("events") or []:
                wid = str(e.get("id"))
                if self.event_ids.of(wid) not in ids:
                    continue
                self._event_from_values(e, values)
                meta = cp["events"].setdefault(wid, dict(self._event_meta(cp, wid) or {}))
                if uri.sync_adapter:
                    meta.update({k: values[k] for k in ("_sync_id", "dirty") if k in values})
                else:
                    meta["dirty"] = 1

        self._cal_edit(edit)
        return len(targets)

    def _delete_calendar_rows(self, uri: _Uri, table: str, targets: list[dict[str, Any]]) -> int:
        """``deleteInTransaction`` for events and calendars.

        Events (``deleteEventInternal``): an app deleting a row that has a ``_sync_id`` only
        marks it ``deleted=1, dirty=1`` (the sync adapter removes it after telling the
        server), a row without one is removed; a sync adapter always removes. The world
        loses the event either way (the Calendar app hides deleted rows). Calendars
        (``deleteMatchingCalendars``): any caller may delete; the calendar's events go with it
        (the ``calendar_cleanup`` trigger)."""
        if not targets:
            return 0
        ids = {r["_id"] for r in targets}

        def drop_events(cp: dict[str, Any], d: dict[str, Any], keep: Callable[[str], bool]) -> None:
            w = d["world"]
            w["events"] = [e for e in w.get("events") or [] if keep(str(e.get("id")))]
            for wid in [k for k in cp["events"] if not keep(k)]:
                cp["events"].pop(wid)

        def edit(cp: dict[str, Any], d: dict[str, Any]) -> None:
            if table == "calendars":
                cp["calendars"] = [c for c in cp["calendars"] if c["_id"] not in ids]
                cp["tombstones"] = [t for t in cp["tombstones"] if t.get("calendar_id") not in ids]

                def in_gone(wid: str) -> bool:
                    meta = self._event_meta(cp, wid)
                    return meta is not None and meta["calendar_id"] in ids

                drop_events(cp, d, lambda wid: not in_gone(wid))
                return
            rows = {r["_id"]: r for r in targets}
            cp["tombstones"] = [t for t in cp["tombstones"] if t["_id"] not in ids or not uri.sync_adapter]
            for e in d["world"].get("events") or []:
                row = rows.get(self.event_ids.of(str(e.get("id"))))
                if row is not None and row.get("_sync_id") and not uri.sync_adapter:
                    cp["tombstones"].append({**row, "deleted": 1, "dirty": 1})
            drop_events(cp, d, lambda wid: self.event_ids.of(wid) not in ids)

        self._cal_edit(edit)
        return len(targets)

    # ------------------------------------------------------------------ legacy contacts
    def _legacy_phone_rows(self, world: dict[str, Any]) -> list[dict[str, Any]]:
        """``content://contacts/phones``: ContactsProvider LegacyApiSupport's phones view.

        One row per phone number with the legacy ``people`` columns of its contact
        (``name``/``display_name``) and ``number_key`` = the reversed dialable digits
        (``PhoneNumberUtils.getStrippedReversed``)."""
        data = self._data_rows(world)
        primary: dict[int, dict[str, int]] = {}
        for r in data:
            slot = {MIME_PHONE: "primary_phone", MIME_EMAIL: "primary_email", MIME_ORG: "primary_organization"}
            if r["mimetype"] in slot and r.get("is_primary", 1):
                primary.setdefault(r["contact_id"], {}).setdefault(slot[r["mimetype"]], r["_id"])
        rows = []
        for r in data:
            if r["mimetype"] != MIME_PHONE:
                continue
            number = r.get("data1") or ""
            rows.append({"_id": r["_id"], "person": r["contact_id"], "isprimary": r.get("is_primary", 0),
                         "number": number, "type": r.get("data2"), "label": r.get("data3"),
                         "number_key": "".join(ch for ch in number if ch.isdigit() or ch in "+*#")[::-1],
                         "name": r.get("display_name"), "display_name": r.get("display_name"), "phonetic_name": None,
                         "notes": None, "times_contacted": 0, "last_time_contacted": 0, "custom_ringtone": None,
                         "send_to_voicemail": 0, "starred": r.get("starred", 0),
                         **{k: primary.get(r["contact_id"], {}).get(k)
                            for k in ("primary_phone", "primary_email", "primary_organization")}})
        return rows

    # ------------------------------------------------------------------ contacts: world → rows
    def _contacts(self, world: dict[str, Any]) -> list[tuple[int, dict[str, Any]]]:
        return [(self.contact_ids.of(str(c.get("id") or f"name:{c.get('name')}")), c)
                for c in world.get("contacts") or []]

    def _contact_rows(self, world: dict[str, Any]) -> list[dict[str, Any]]:
        rows = []
        for cid, c in self._contacts(world):
            name = c.get("name") or (c.get("phones") or [{}])[0].get("number") or ""
            parts = name.rsplit(" ", 1)
            alt = f"{parts[1]}, {parts[0]}" if len(parts) == 2 else name
            rows.append({"_id": cid, "lookup": f"0r{cid}-{abs(hash(name)) % 10 ** 8:X}", "display_name": name,
                         "display_name_alt": alt, "starred": 1 if c.get("starred") else 0,
                         "has_phone_number": 1 if c.get("phones") else 0, "times_contacted": 0,
                         "last_time_contacted": 0, "photo_id": None, "in_visible_group": 1, "pinned": 0,
                         "display_name_source": 40 if c.get("name") else 20, "contact_last_updated_timestamp": 0})
        return rows  # a raw contact without data is not aggregated into a contact yet

    def _raw_contact_rows(self, world: dict[str, Any]) -> list[dict[str, Any]]:
        rows = []
        for cid, c in self._contacts(world):
            meta = self._raw_meta.get(cid, {})
            rows.append({"_id": cid, "contact_id": cid, "account_name": meta.get("account_name"),
                         "account_type": meta.get("account_type"), "deleted": 0, "display_name": c.get("name") or "",
                         "starred": 1 if c.get("starred") else 0, "version": 2, "dirty": 1, "sourceid": None,
                         "aggregation_mode": 0})
        for n, meta in sorted(self._pending_raw.items()):
            rows.append({"_id": n, "contact_id": None, "account_name": meta.get("account_name"),
                         "account_type": meta.get("account_type"), "deleted": 0, "display_name": None,
                         "starred": meta.get("starred", 0), "version": 1, "dirty": 1, "sourceid": None,
                         "aggregation_mode": 0})
        return rows

    def _data_id(self, cid: int, mime: str, key: str) -> int:
        k = (cid, mime, key)
        if k not in self._data_ids:
            self._data_ids[k] = max([0, *self._data_ids.values(),
                                     *(r["_id"] for rs in self._extra_rows.values() for r in rs)]) + 1
        return self._data_ids[k]

    def _data_rows(self, world: dict[str, Any]) -> list[dict[str, Any]]:
        rows: list[dict[str, Any]] = []
        for cid, c in self._contacts(world):
            name = c.get("name") or ""
            meta = self._raw_meta.get(cid, {})
            base = {"raw_contact_id": cid, "contact_id": cid, "display_name": name or
                    (c.get("phones") or [{}])[0].get("number") or "", "starred": 1 if c.get("starred") else 0,
                    "account_type": meta.get("account_type"), "account_name": meta.get("account_name"),
                    "in_visible_group": 1, "data_version": 0, "data4": None, "data5": None, "data6": None}
            if name:
                cut = name.strip().rfind(" ")
                given, family = (name[:cut], name[cut + 1:]) if cut > 0 else (name, None)
                rows.append({**base, "_id": self._data_id(cid, MIME_NAME, ""), "mimetype": MIME_NAME, "data1": name,
                             "data2": given, "data3": family, "is_primary": 0, "is_super_primary": 0})
            for i, p in enumerate(c.get("phones") or []):
                label = p.get("label") or "mobile"
                t = PHONE_TYPE.get(label, 0)
                rows.append({**base, "_id": self._data_id(cid, MIME_PHONE, p.get("number", "")), "mimetype": MIME_PHONE,
                             "data1": p.get("number", ""), "data2": t, "data3": None if t else label,
                             "data4": _e164(p.get("number", "")), "is_primary": 1 if i == 0 else 0,
                             "is_super_primary": 0})
            for i, e in enumerate(c.get("emails") or []):
                rows.append({**base, "_id": self._data_id(cid, MIME_EMAIL, e), "mimetype": MIME_EMAIL, "data1": e,
                             "data2": 1, "data3": None, "is_primary": 1 if i == 0 else 0, "is_super_primary": 0})
            if c.get("company"):
                rows.append({**base, "_id": self._data_id(cid, MIME_ORG, ""), "mimetype": MIME_ORG,
                             "data1": c["company"], "data2": 1, "data3": None, "is_primary": 0, "is_super_primary": 0})
            for extra in self._extra_rows.get(cid, []):
                rows.append({**base, **extra})
        return sorted(rows, key=lambda r: r["_id"])

    # ------------------------------------------------------------------ contacts: writes
    def _insert_data(self, uri: _Uri, values: dict[str, Any]) -> str:
        rid = _int(values.get("raw_contact_id"), -1)
        mime = str(values.get("mimetype") or "")
        if uri.path == "data/phones":
            mime = mime or MIME_PHONE
        if rid < 0:
            raise ProviderError(uri.authority, "java.lang.IllegalArgumentException: raw_contact_id is required")
        if not mime:
            raise ProviderError(uri.authority, "java.lang.IllegalArgumentException: mimetype is required")
        wid = self.contact_ids.wid(rid)
        if wid is None:
            raise ProviderError(uri.authority, f"java.lang.IllegalArgumentException: Raw contact {rid} does not exist")
        d1 = values.get("data1")
        if mime not in (MIME_NAME, MIME_PHONE, MIME_EMAIL, MIME_ORG):
            row = {"_id": self._data_id(rid, mime, f"extra:{len(self._extra_rows.get(rid, []))}"),
                   "mimetype": mime, "is_primary": _int(values.get("is_primary")), "is_super_primary": 0,
                   **{f"data{i}": values.get(f"data{i}") for i in range(1, 7)}}
            self._extra_rows.setdefault(rid, []).append(row)
            return f"content://com.android.contacts/data/{row['_id']}"
        pending = wid.startswith("pending:")

        def edit(d: dict[str, Any]) -> None:
            contacts = d["world"].setdefault("contacts", []) if d["world"].get("contacts") is not None else None
            if contacts is None:
                d["world"]["contacts"] = contacts = []
            if pending:
                meta = self._pending_raw.get(rid, {})
                rec: dict[str, Any] = {"id": _new_id(d, "contacts"), "name": "", "phones": [], "emails": [],
                                       "company": "", "starred": bool(meta.get("starred")), "tag": None}
                contacts.append(rec)
            else:
                rec = next(c for c in contacts if str(c.get("id")) == wid)
            if mime == MIME_NAME:
                name = d1 if d1 else " ".join(str(x) for x in (values.get("data2"), values.get("data3")) if x)
                rec["name"] = str(name or "")
            elif mime == MIME_PHONE and d1:
                t = _int(values.get("data2"), 2)
                label = (str(values.get("data3") or "custom")) if t == 0 else PHONE_LABEL_OF_TYPE.get(t, "other")
                rec.setdefault("phones", []).append({"number": str(d1), "label": label})
            elif mime == MIME_EMAIL and d1:
                rec.setdefault("emails", []).append(str(d1))
            elif mime == MIME_ORG and d1:
                rec["company"] = str(d1)
            if pending:
                edit.new_wid = rec["id"]  # type: ignore[attr-defined]

        self.phone.mutate(edit)
        if pending:
            new_wid = getattr(edit, "new_wid")
            meta = self._pending_raw.pop(rid, {})
            self.contact_ids.by_wid.pop(wid, None)
            self.contact_ids.bind(new_wid, rid)
            self._raw_meta[rid] = {"account_name": meta.get("account_name"), "account_type": meta.get("account_type")}
        key = "" if mime in (MIME_NAME, MIME_ORG) else str(d1 or "")
        return f"content://com.android.contacts/data/{self._data_id(rid, mime, key)}"

    def _apply_update(self, table: str, d: dict[str, Any], targets: list[dict[str, Any]], values: dict[str, Any]) -> None:
        w = d["world"]
        if table in ("contacts", "raw_contacts"):
            ids = {r["_id"] for r in targets}
            for cid_wid, c in [(self.contact_ids.of(str(c.get("id") or f"name:{c.get('name')}")), c)
                               for c in w.get("contacts") or []]:
                if cid_wid in ids:
                    if "starred" in values:
                        c["starred"] = _truthy(values["starred"])
                    if "display_name" in values and values["display_name"] is not None:
                        c["name"] = str(values["display_name"])
            for n in ids:
                if n in self._raw_meta:
                    for k in ("account_name", "account_type"):
                        if k in values:
                            self._raw_meta[n][k] = values[k]
        elif table.startswith("data"):
            for r in targets:
                self._update_data_row(w, r, values)
        elif table == "sms":
            ids = {r["_id"] for r in targets}
            for m in w.get("messages") or []:
                if self.sms_ids.of(str(m.get("id"))) in ids:
                    self._sms_from_values(m, values)
        elif table == "events":
            ids = {r["_id"] for r in targets}
            for e in w.get("events") or []:
                if self.event_ids.of(str(e.get("id"))) in ids:
                    self._event_from_values(e, values)
        elif table == "calls":
            ids = {r["_id"] for r in targets}
            for c in w.get("calls") or []:
                if self.call_ids.of(str(c.get("id"))) in ids:
                    self._call_from_values(c, values)

    def _update_data_row(self, w: dict[str, Any], row: dict[str, Any], values: dict[str, Any]) -> None:
        cid = row["contact_id"]
        for extra in self._extra_rows.get(cid, []):
            if extra["_id"] == row["_id"]:
                extra.update({k: v for k, v in values.items() if k.startswith("data") or k == "is_primary"})
                return
        wid = self.contact_ids.wid(cid)
        c = next((c for c in w.get("contacts") or [] if str(c.get("id")) == wid), None)
        if c is None:
            return
        mime, old = row["mimetype"], row["data1"]
        new = values.get("data1", old)
        if mime == MIME_NAME:
            c["name"] = str(new or "")
        elif mime == MIME_PHONE:
            for p in c.get("phones") or []:
                if p.get("number") == old:
                    self._data_ids[(cid, MIME_PHONE, str(new))] = row["_id"]
                    p["number"] = str(new)
                    if "data2" in values:
                        t = _int(values["data2"], 2)
                        p["label"] = (str(values.get("data3") or "custom") if t == 0
                                      else PHONE_LABEL_OF_TYPE.get(t, "other"))
                    break
        elif mime == MIME_EMAIL:
            c["emails"] = [str(new) if e == old else e for e in c.get("emails") or []]
            self._data_ids[(cid, MIME_EMAIL, str(new))] = row["_id"]
        elif mime == MIME_ORG:
            c["company"] = str(new or "")

    def _apply_delete(self, table: str, d: dict[str, Any], targets: list[dict[str, Any]]) -> None:
        w = d["world"]
        ids = {r["_id"] for r in targets}
        if table in ("contacts", "raw_contacts"):
            w["contacts"] = [c for c in w.get("contacts") or []
                             if self.contact_ids.of(str(c.get("id") or f"name:{c.get('name')}")) not in ids]
            for n in ids:
                self._pending_raw.pop(n, None)
                self._extra_rows.pop(n, None)
        elif table.startswith("data"):
            for r in targets:
                cid = r["contact_id"]
                extras = self._extra_rows.get(cid, [])
                if any(x["_id"] == r["_id"] for x in extras):
                    self._extra_rows[cid] = [x for x in extras if x["_id"] != r["_id"]]
                    continue
                wid = self.contact_ids.wid(cid)
                c = next((c for c in w.get("contacts") or [] if str(c.get("id")) == wid), None)
                if c is None:
                    continue
                if r["mimetype"] == MIME_NAME:
                    c["name"] = ""
                elif r["mimetype"] == MIME_PHONE:
                    c["phones"] = [p for p in c.get("phones") or [] if p.get("number") != r["data1"]]
                elif r["mimetype"] == MIME_EMAIL:
                    c["emails"] = [e for e in c.get("emails") or [] if e != r["data1"]]
                elif r["mimetype"] == MIME_ORG:
                    c["company"] = ""
        elif table == "sms":
            w["messages"] = [m for m in w.get("messages") or [] if self.sms_ids.of(str(m.get("id"))) not in ids]
        elif table == "events":
            w["events"] = [e for e in w.get("events") or [] if self.event_ids.of(str(e.get("id"))) not in ids]
        elif table == "calls":
            w["calls"] = [c for c in w.get("calls") or [] if self.call_ids.of(str(c.get("id"))) not in ids]

    # ------------------------------------------------------------------ SMS
    def _thread(self, address: str) -> int:
        key = re.sub(r"[^\d+]", "", address) or address
        if key not in self._threads:
            self._threads[key] = len(self._threads) + 1
        return self._threads[key]

    def _sms_rows(self, world: dict[str, Any]) -> list[dict[str, Any]]:
        rows = []
        for m in world.get("messages") or []:
            t = SMS_TYPE.get(m.get("box") or "inbox", 1)
            date = _ms(m.get("time"), self._zone) or 0
            read = 1 if m.get("read", True) else 0
            rows.append({"_id": self.sms_ids.of(str(m.get("id"))), "thread_id": self._thread(m.get("address") or ""),
                         "address": m.get("address") or None, "person": None, "date": date,
                         "date_sent": date if t == 1 else 0, "protocol": 0 if t == 1 else None, "read": read,
                         "status": -1, "type": t, "reply_path_present": 0 if t == 1 else None,
                         "subject": self._sms_subjects.get(str(m.get("id"))),
                         "body": m.get("body") or "", "service_center": None, "locked": 0, "sub_id": 1,
                         "error_code": 0 if t != 5 else 1, "creator": self.phone.family.packages["messages"], "seen": read})
        return rows

    def _sms_from_values(self, m: dict[str, Any], values: dict[str, Any]) -> None:
        if "subject" in values:  # a provider column the Messages world has no field for: kept beside it
            wid = str(m.get("id"))
            if values["subject"] is None:
                self._sms_subjects.pop(wid, None)
            else:
                self._sms_subjects[wid] = str(values["subject"])
        if "address" in values:
            m["address"] = "" if values["address"] is None else str(values["address"])
        if "body" in values:
            m["body"] = "" if values["body"] is None else str(values["body"])
        if "type" in values:
            box = SMS_BOX_OF_TYPE.get(_int(values["type"], 1))
            if box is not None:
                m["box"] = "outbox" if box == "outbox" else box
        if "read" in values:
            m["read"] = _truthy(values["read"])
        if "date" in values and _iso(values["date"]):
            m["time"] = _iso(values["date"], self._zone)

    def _insert_sms(self, values: dict[str, Any], box: int | None) -> str:
        holder: dict[str, Any] = {}

        def edit(d: dict[str, Any]) -> None:
            rec: dict[str, Any] = {"id": _new_id(d, "messages"), "address": "", "body": "", "box": "inbox",
                                   "read": False, "time": self.phone.now().replace(microsecond=0).isoformat()}
            vals = dict(values)
            if box is not None:
                vals["type"] = box
            vals.setdefault("type", 1)
            self._sms_from_values(rec, vals)
            if "read" not in values:
                rec["read"] = rec["box"] != "inbox"
            if d["world"].get("messages") is None:
                d["world"]["messages"] = []
            d["world"]["messages"].append(rec)
            holder["id"] = rec["id"]

        self.phone.mutate(edit)
        return f"content://sms/{self.sms_ids.of(holder['id'])}"

    @property
    def _zone(self) -> tzinfo:
        """The phone's zone: the world's times are its wall times (``persist.sys.timezone``)."""
        return getattr(self.phone, "zone", None) or timezone.utc

    @property
    def _zone_name(self) -> str:
        return str(getattr(getattr(self.phone, "knobs", None), "timezone", None) or "UTC")

    # ------------------------------------------------------------------ calendar
    def _event_rows(self, world: dict[str, Any]) -> list[dict[str, Any]]:
        rows = []
        for e in world.get("events") or []:
            all_day = bool(e.get("all_day"))
            zone = timezone.utc if all_day else self._zone  # all-day events are dated at UTC midnights
            start = _ms(e.get("start"), zone)
            end = _ms(e.get("end"), zone)
            if all_day and start is not None:  # CalendarContract: all-day events span UTC midnights
                day = 86_400_000
                start -= start % day
                if end is None or end <= start:
                    end = start + day
                elif end % day:
                    end = end - end % day + day
            rows.append({"_id": self.event_ids.of(str(e.get("id"))), "calendar_id": 1, "title": e.get("title") or "",
                         "description": e.get("description") or "", "eventLocation": e.get("location") or "",
                         "dtstart": start, "dtend": end, "duration": None, "allDay": 1 if all_day else 0,
                         "eventTimezone": "UTC" if all_day else self._zone_name,
                         "eventEndTimezone": ("UTC" if all_day else self._zone_name) if end else None, "rrule": None,
                         "hasAlarm": 0, "eventStatus": 1, "availability": 0, "deleted": 0,
                         "organizer": "Phone", "calendar_displayName": "Phone"})
        return rows

    def _event_from_values(self, e: dict[str, Any], values: dict[str, Any]) -> None:
        if "title" in values:
            e["title"] = "" if values["title"] is None else str(values["title"])
        if "description" in values:
            e["description"] = "" if values["description"] is None else str(values["description"])
        if "eventLocation" in values:
            e["location"] = "" if values["eventLocation"] is None else str(values["eventLocation"])
        if "allDay" in values:
            e["all_day"] = _truthy(values["allDay"])
        zone = timezone.utc if e.get("all_day") else self._zone
        if "dtstart" in values and _iso(values["dtstart"]):
            e["start"] = _iso(values["dtstart"], zone)
        if "dtend" in values:
            e["end"] = _iso(values["dtend"], zone) if values["dtend"] is not None else None
        elif "duration" in values and values["duration"]:
            secs = _duration_s(str(values["duration"]))
            if secs is not None and e.get("start"):
                e["end"] = (datetime.fromisoformat(e["start"]) + timedelta(seconds=secs)).isoformat(timespec="seconds")

    def _insert_event(self, uri: _Uri, values: dict[str, Any]) -> str:
        if values.get("dtstart") is None:
            raise ProviderError(uri.authority, "java.lang.IllegalArgumentException: DTSTART cannot be empty.")
        if values.get("calendar_id") is not None and _int(values["calendar_id"], -1) != 1:
            raise ProviderError(uri.authority, "java.lang.IllegalArgumentException: New events must specify a "
                                               "calendar id that exists")
        if values.get("dtend") is None and not values.get("duration") and not values.get("rrule"):
            raise ProviderError(uri.authority, "java.lang.IllegalArgumentException: DTEND and DURATION cannot "
                                               "both be null for an event.")
        holder: dict[str, Any] = {}

        def edit(d: dict[str, Any]) -> None:
            rec: dict[str, Any] = {"id": _new_id(d, "events"), "title": "", "start": _iso(values["dtstart"], self._zone),
                                   "end": None, "all_day": False, "location": "", "description": "", "tag": None}
            self._event_from_values(rec, values)
            if d["world"].get("events") is None:
                d["world"]["events"] = []
            d["world"]["events"].append(rec)
            holder["id"] = rec["id"]

        self.phone.mutate(edit)
        return f"content://com.android.calendar/events/{self.event_ids.of(holder['id'])}"

    # ------------------------------------------------------------------ call log
    def _call_rows(self, world: dict[str, Any]) -> list[dict[str, Any]]:
        rows = []
        for c in world.get("calls") or []:
            t = CALL_TYPE.get(c.get("kind") or "incoming", 1)
            rows.append({"_id": self.call_ids.of(str(c.get("id"))), "number": c.get("number") or "",
                         "presentation": 1, "date": _ms(c.get("time"), self._zone) or 0, "duration": _int(c.get("duration_s")),
                         "type": t, "new": 1 if t == 3 else 0, "name": c.get("name") or None,
                         "numbertype": 2 if c.get("name") else None, "numberlabel": None, "countryiso": "US",
                         "is_read": 0 if t == 3 else 1, "features": 0, "subscription_id": "1",
                         "geocoded_location": ""})
        return rows

    def _call_from_values(self, c: dict[str, Any], values: dict[str, Any]) -> None:
        if "number" in values:
            c["number"] = "" if values["number"] is None else str(values["number"])
        if "name" in values:
            c["name"] = "" if values["name"] is None else str(values["name"])
        if "type" in values:
            kind = CALL_KIND_OF_TYPE.get(_int(values["type"], 1))
            if kind is not None:
                c["kind"] = kind
        if "date" in values and _iso(values["date"]):
            c["time"] = _iso(values["date"], self._zone)
        if "duration" in values:
            c["duration_s"] = max(0, _int(values["duration"]))

    def _insert_call(self, values: dict[str, Any]) -> str:
        holder: dict[str, Any] = {}

        def edit(d: dict[str, Any]) -> None:
            rec: dict[str, Any] = {"id": _new_id(d, "calls"), "number": "", "name": "", "kind": "incoming",
                                   "time": self.phone.now().replace(microsecond=0).isoformat(), "duration_s": 0}
            self._call_from_values(rec, values)
            if d["world"].get("calls") is None:
                d["world"]["calls"] = []
            d["world"]["calls"].append(rec)
            holder["id"] = rec["id"]

        self.phone.mutate(edit)
        return f"content://call_log/calls/{self.call_ids.of(holder['id'])}"


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


# ============================================================================ the command
def format_value(v: Any) -> str:
    if v is None:
        return "NULL"
    if isinstance(v, bool):
        return "1" if v else "0"
    return str(v)


def format_rows(columns: Sequence[str], rows: Sequence[dict[str, Any]]) -> str:
    """``content query`` output: ``Row: N col=value, ...`` lines, or ``No result found.``"""
    if not rows:
        return "No result found.\n"
    return "".join(f"Row: {i} " + ", ".join(f"{c}={format_value(r.get(c))}" for c in columns) + "\n"
                   for i, r in enumerate(rows))


#: ``Content.USAGE`` (frameworks/base cmds/content/src/com/android/commands/content/Content.java),
#: the same text from Android 11 (R) to 15: printed to stdout before every ``[ERROR]`` line.
_CONTENT_USAGE = (
    "usage: adb shell content [subcommand] [options]\n"
    "\n"
    "usage: adb shell content insert --uri <URI> [--user <USER_ID>] --bind <BINDING> [--bind <BINDING>...]"
    " [--extra <BINDING>...]\n"
    "  <URI> a content provider URI.\n"
    "  <BINDING> binds a typed value to a column and is formatted:\n"
    "  <COLUMN_NAME>:<TYPE>:<COLUMN_VALUE> where:\n"
    "  <TYPE> specifies data type such as:\n"
    "  b - boolean, s - string, i - integer, l - long, f - float, d - double, n - null\n"
    "  Note: Omit the value for passing an empty string, e.g column:s:\n"
    "  Example:\n"
    "  # Add \"new_setting\" secure setting with value \"new_value\".\n"
    "  adb shell content insert --uri content://settings/secure --bind name:s:new_setting"
    " --bind value:s:new_value\n"
    "\n"
    "usage: adb shell content update --uri <URI> [--user <USER_ID>] [--where <WHERE>] [--extra <BINDING>...]\n"
    "  <WHERE> is a SQL style where clause in quotes (You have to escape single quotes - see example below).\n"
    "  Example:\n"
    "  # Change \"new_setting\" secure setting to \"newer_value\".\n"
    "  adb shell content update --uri content://settings/secure --bind value:s:newer_value"
    " --where \"name='new_setting'\"\n"
    "\n"
    "usage: adb shell content delete --uri <URI> [--user <USER_ID>] --bind <BINDING> [--bind <BINDING>...]"
    " [--where <WHERE>] [--extra <BINDING>...]\n"
    "  Example:\n"
    "  # Remove \"new_setting\" secure setting.\n"
    "  adb shell content delete --uri content://settings/secure --where \"name='new_setting'\"\n"
    "\n"
    "usage: adb shell content query --uri <URI> [--user <USER_ID>] [--projection <PROJECTION>] [--where <WHERE>]"
    " [--sort <SORT_ORDER>] [--extra <BINDING>...]\n"
    "  <PROJECTION> is a list of colon separated column names and is formatted:\n"
    "  <COLUMN_NAME>[:<COLUMN_NAME>...]\n"
    "  <SORT_ORDER> is the order in which rows in the result should be sorted.\n"
    "  Example:\n"
    "  # Select \"name\" and \"value\" columns from secure settings where \"name\" is equal to \"new_setting\""
    " and sort the result by name in ascending order.\n"
    "  adb shell content query --uri content://settings/secure --projection name:value"
    " --where \"name='new_setting'\" --sort \"name ASC\"\n"
    "\n"
    "usage: adb shell content call --uri <URI> --method <METHOD> [--arg <ARG>]\n"
    "       [--extra <BINDING> ...]\n"
    "  <METHOD> is the name of a provider-defined method\n"
    "  <ARG> is an optional string argument\n"
    "  <BINDING> is like --bind above, typed data of the form <KEY>:{b,s,i,l,f,d}:<VAL>\n"
    "\n"
    "usage: adb shell content read --uri <URI> [--user <USER_ID>]\n"
    "  Example:\n"
    "  adb shell 'content read --uri content://settings/system/ringtone_cache' > host.ogg\n"
    "\n"
    "usage: adb shell content write --uri <URI> [--user <USER_ID>]\n"
    "  Example:\n"
    "  adb shell 'content write --uri content://settings/system/ringtone_cache' < host.ogg\n"
    "\n"
    "usage: adb shell content gettype --uri <URI> [--user <USER_ID>]\n"
    "  Example:\n"
    "  adb shell content gettype --uri content://media/internal/audio/media/\n"
    "\n"
)

#: The API level from which ``content`` splits a binding with ``splitWithEscaping`` (Android 11, R).
ESCAPED_BINDINGS_SDK = 30


class ContentUsageError(ValueError):
    """``IllegalArgumentException`` (or its ``NumberFormatException``) thrown while ``Content.Parser``
    reads the arguments: ``content`` prints the usage and ``[ERROR] <message>`` and runs nothing."""


def split_with_escaping(argument: str, split_char: str = ":") -> list[str]:
    """``Content.Parser.splitWithEscaping`` (Android 11+): split on every ``split_char`` that is
    not escaped; ``\\`` takes the next character literally (itself removed); a ``\\`` at the
    very end is ``Invalid escaping``."""
    res: list[str] = []
    cur: list[str] = []
    i = 0
    while i < len(argument):
        c = argument[i]
        if c == "\\":
            i += 1
            if i == len(argument):
                raise ContentUsageError("Invalid escaping")
            cur.append(argument[i])  # skip the escaping char and insert the next
        elif c == split_char:
            res.append("".join(cur))
            cur = []
        else:
            cur.append(c)
        i += 1
    res.append("".join(cur))
    return res


def _java_int(text: str, bits: int) -> int:
    """``Integer.parseInt`` / ``Long.parseLong``: an optional sign and decimal digits, in range."""
    if re.fullmatch(r"[+-]?\d+", text):
        n = int(text)
        if -(1 << (bits - 1)) <= n < (1 << (bits - 1)):
            return n
    raise ContentUsageError(f'For input string: "{text}"')


#: What ``String.trim()`` removes from both ends: every char up to U+0020.
_JAVA_TRIMMED = "".join(map(chr, range(0x21)))


def _java_float(text: str) -> float:
    """``Float.parseFloat`` / ``Double.parseDouble`` (``FloatingDecimal.readJavaFormatString``):
    trimmed, a decimal with an optional exponent and ``f``/``d`` suffix, ``NaN``, ``Infinity``."""
    t = text.strip(_JAVA_TRIMMED)
    if not t:
        raise ContentUsageError("empty String")
    m = re.fullmatch(r"([+-]?)(NaN|Infinity|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)[fFdD]?", t)
    if not m or (m.group(2) in ("NaN", "Infinity") and t[-1] in "fFdD"):
        raise ContentUsageError(f'For input string: "{t}"')
    return float(m.group(1) + m.group(2))


def parse_binding(argument: str | None, sdk: int = 34) -> tuple[str, Any]:
    """One ``--bind``/``--extra`` value → ``(column, typed value)``, as ``content`` of API ``sdk`` reads it.

    frameworks/base cmds/content/src/com/android/commands/content/Content.java,
    ``Parser.parseBindValue``:

    * Android 11 (API 30) and later: ``splitWithEscaping(argument, ':')`` must give exactly three
      parts (``if (split.size() != 3) throw new IllegalArgumentException("Binding not well formed:
      " + argument)``) — so every ``:`` of the value must be written ``\\:`` and every ``\\`` as
      ``\\\\``; the escapes are removed from column, type and value alike. ``i`` is
      ``Integer.parseInt``, ``l`` ``Long.parseLong``, ``f`` ``Float.parseFloat``, ``d``
      ``Double.parseDouble``.
    * Up to Android 10 (the Q source reads ``argument.indexOf(COLON)`` twice): the column is
      up to the first ``:``, the type up to the second, the value is everything after it,
      colons and backslashes included, unescaped; ``i`` and ``l`` are both ``Long.parseLong``,
      ``f`` and ``d`` both ``Double.parseDouble``.

    ``s`` is matched exactly, the other types ignoring case; ``b`` is ``Boolean.parseBoolean``
    (``true`` in any case, anything else false); ``n`` binds null. Errors raise
    :class:`ContentUsageError` with the Java message (a ``NumberFormatException`` is an
    ``IllegalArgumentException``, so it too ends as ``[ERROR] For input string: "x"``)."""
    if not argument:
        raise ContentUsageError(f"Binding not well formed: {'null' if argument is None else argument}")
    if sdk >= ESCAPED_BINDINGS_SDK:
        split = split_with_escaping(argument, ":")
        if len(split) != 3:
            raise ContentUsageError(f"Binding not well formed: {argument}")
        column, kind, value = split
    else:
        first = argument.find(":")
        second = argument.find(":", first + 1) if first >= 0 else -1
        if first < 0 or second < 0:
            raise ContentUsageError(f"Binding not well formed: {argument}")
        column, kind, value = argument[:first], argument[first + 1:second], argument[second + 1:]
    low = kind.lower()
    if kind == "s":
        return column, value
    if low == "b":
        return column, value.lower() == "true"
    if low == "i":
        return column, _java_int(value, 32 if sdk >= ESCAPED_BINDINGS_SDK else 64)
    if low == "l":
        return column, _java_int(value, 64)
    if low in ("f", "d"):
        return column, _java_float(value)
    if low == "n":
        return column, None
    raise ContentUsageError(f"Unsupported type: {kind}")


class _Command:
    """What ``Content.Parser.parseCommand`` returns."""

    def __init__(self, verb: str) -> None:
        self.verb = verb
        self.uri: str | None = None
        self.values: dict[str, Any] = {}
        self.extras: dict[str, Any] = {}
        self.where: str | None = None
        self.sort: str | None = None
        self.projection: list[str] | None = None
        self.method: str | None = None


#: The options each operation's ``parseXxxCommand`` accepts (Android 11+); anything else is
#: ``Unsupported argument``.
_VERB_OPTIONS = {
    "insert": ("--uri", "--user", "--bind", "--extra"),
    "delete": ("--uri", "--user", "--where", "--extra"),
    "update": ("--uri", "--user", "--where", "--bind", "--extra"),
    "call": ("--uri", "--user", "--method", "--arg", "--extra"),
    "read": ("--uri", "--user"),
    "write": ("--uri", "--user"),
    "gettype": ("--uri", "--user"),
    "query": ("--uri", "--user", "--where", "--sort", "--projection", "--extra"),
}


def parse_content_args(args: Sequence[str], sdk: int = 34) -> _Command:
    """``Content.Parser.parseCommand``: the command, or :class:`ContentUsageError`."""
    it = iter(args)

    def next_arg() -> str | None:
        return next(it, None)

    def required(option: str) -> str:  # argumentValueRequired
        v = next_arg()
        if not v or v.startswith("--"):
            raise ContentUsageError(f"No value for argument: {option}")
        return v

    op = next_arg()
    if op not in _VERB_OPTIONS:
        raise ContentUsageError(f"Unsupported operation: {'null' if op is None else op}")
    cmd = _Command(op)
    allowed = _VERB_OPTIONS[op]
    while (a := next_arg()) is not None:
        if a not in allowed:
            raise ContentUsageError(f"Unsupported argument: {a}")
        if a == "--uri":
            cmd.uri = required(a)
        elif a == "--user":
            _java_int(required(a), 32)
        elif a == "--bind":
            k, v = parse_binding(next_arg(), sdk)
            cmd.values[k] = v
        elif a == "--extra":
            k, v = parse_binding(next_arg(), sdk)
            cmd.extras[k] = v
        elif a == "--where":
            cmd.where = required(a)
        elif a == "--sort":
            cmd.sort = required(a)
        elif a == "--projection":  # String.split("[\\s]*:[\\s]*"): trailing empty names dropped
            parts = re.split(r"\s*:\s*", required(a))
            while parts and parts[-1] == "":
                parts.pop()
            cmd.projection = parts
        elif a == "--method":
            cmd.method = required(a)
        elif a == "--arg":
            required(a)
    if cmd.uri is None:
        raise ContentUsageError("Content provider URI not specified. Did you specify --uri argument?")
    if op in ("insert", "update") and not cmd.values:
        raise ContentUsageError("Bindings not specified. Did you specify --bind argument(s)?")
    if op == "call" and cmd.method is None:
        raise ContentUsageError("Content provider method not specified.")
    return cmd


def _authority(uri: str) -> str:
    """``Uri.getAuthority()`` of what ``--uri`` named (``null`` without one)."""
    m = re.match(r"[A-Za-z][A-Za-z0-9+.-]*://([^/?#]*)", uri.strip())
    return m.group(1) if m else "null"


class ContentCommand:
    """``/system/bin/content`` (``exec app_process /system/bin com.android.commands.content.Content``).

    As frameworks/base cmds/content Content.java runs it:

    * a bad command line (``Parser.parseCommand`` catches the ``IllegalArgumentException``):
      ``System.out.println(USAGE); System.out.println("[ERROR] " + iae.getMessage())`` — the
      usage and the ``[ERROR]`` line on **stdout**, nothing run, and ``main`` returns normally,
      so the exit status is **0**;
    * a provider that throws (``Command.execute`` catches every ``Exception``):
      ``System.err.println("Error while accessing provider:" + providerName);
      e.printStackTrace()`` — on **stderr**, exit status **0** all the same;
    * success: ``insert``/``update``/``delete`` print nothing; ``query`` prints ``Row: N …`` or
      ``No result found.``.

    The binding rule follows the phone's Android version (:func:`parse_binding`).
    """

    def __init__(self, phone: "VirtualPhone") -> None:
        self.phone = phone
        self.providers: ContentProviders = phone.providers

    @property
    def sdk(self) -> int:
        knobs = getattr(self.phone, "knobs", None)
        return int(getattr(knobs, "sdk", 34) or 34)

    async def __call__(self, ctx: CommandContext) -> int:
        from .u2server import spend

        # `content` is a Java program: every call starts a runtime through app_process
        await spend(float(getattr(getattr(self.phone, "knobs", None), "app_process_ms", 0.0) or 0.0))
        try:
            cmd = parse_content_args(list(ctx.args), self.sdk)
        except ContentUsageError as e:
            await ctx.out(f"{_CONTENT_USAGE}\n[ERROR] {e}\n")
            return 0
        assert cmd.uri is not None
        verb, uri = cmd.verb, cmd.uri
        if verb in ("call", "read", "write", "gettype"):
            # not modelled by the virtual phone's providers (s2r never sends them)
            await ctx.err(f"Error: Unsupported operation: {verb}\n")
            return 1
        try:
            if verb == "query":
                cols, rows = await self.phone.acall(self.providers.query, uri, cmd.projection or None, cmd.where,
                                                    cmd.sort)
                await ctx.out(format_rows(cols, rows))
            elif verb == "insert":
                await self.phone.acall(self.providers.insert, uri, cmd.values)
            elif verb == "update":
                await self.phone.acall(self.providers.update, uri, cmd.values, cmd.where)
            else:
                await self.phone.acall(self.providers.delete, uri, cmd.where)
        except ProviderError as e:
            await ctx.err(f"Error while accessing provider:{_authority(uri)}\n{e.exception}\n"
                          + (e.trace if e.trace is not None else
                             "\tat android.database.DatabaseUtils.readExceptionFromParcel(DatabaseUtils.java:172)\n"
                             "\tat android.database.DatabaseUtils.readExceptionFromParcel(DatabaseUtils.java:142)\n"
                             f"\tat android.content.ContentProviderProxy.{verb}(ContentProviderNative.java:488)\n"
                             f"\tat com.android.commands.content.Content${verb.capitalize()}Command.onExecute"
                             "(Content.java:600)\n"
                             "\tat com.android.commands.content.Content$Command.execute(Content.java:522)\n"
                             "\tat com.android.commands.content.Content.main(Content.java:735)\n"
                             "\tat com.android.internal.os.RuntimeInit.nativeFinishInit(Native Method)\n"
                             "\tat com.android.internal.os.RuntimeInit.main(RuntimeInit.java:399)\n"))
            return 0  # Content.main returns normally: app_process exits 0
        return 0


def content_commands(phone: "VirtualPhone") -> dict[str, CommandHandler]:
    cmd: Callable[[CommandContext], Any] = ContentCommand(phone)
    return {"content": cmd}  # type: ignore[dict-item]
