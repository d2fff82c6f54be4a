"""Content providers of the virtual phone: contacts, SMS, calendar, call log, settings.

Why they are views over the sim world: on a phone, ``content query --uri content://sms``
reads the telephony provider that the Messages app also shows; here the sim world *is* that
database. Each provider turns ``WorldState`` records into rows with the real column names
(Android's contracts: ``ContactsContract``, ``Telephony.Sms``, ``CalendarContract.Events``,
``CallLog.Calls``) and turns inserts/updates/deletes back into world edits, so the Contacts
app shows a contact inserted over adb, and the device state readers
(:mod:`device.parsers.records`) read back exactly what the sim holds. Times are epoch
milliseconds in the phone's zone (UTC); ids are stable integers derived from world ids.

The ``content`` command prints ``Row: N col=value, ...`` / ``No result found.`` and the
provider errors the way ``/system/bin/content`` does (frameworks/base cmds/content
Content.java: ``insert``, ``update`` and ``delete`` print nothing on success).

A stock phone (``knobs.permissive=False``) answers the shell user (uid 2000,
``com.android.shell``, not the default SMS app) as AOSP does (each method below names the
AOSP source it follows):

* SMS writes pass the ``WRITE_SMS`` app-op (:mod:`.android_appops`, default ``ignore``); reads
  see the restricted view (inbox and sent only).
* Calendars exist only under an account: none without ``knobs.google_account``; a LOCAL
  calendar can be made through the sync-adapter URI. Events of a synced calendar are soft
  deleted (``deleted=1, dirty=1``).
* The call log is closed to the shell on Android 11 (no READ_CALL_LOG in its manifest).

``permissive=True`` keeps the rooted-emulator behaviour: every write lands, one LOCAL
calendar ``_id=1`` always exists, every SMS box is readable.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime, timedelta, timezone
import hashlib
from typing import TYPE_CHECKING, Any, Callable
from urllib.parse import parse_qsl

from device.parsers.records import CALL_KINDS, MIME_EMAIL, MIME_NAME, MIME_ORG, MIME_PHONE, PHONE_LABELS, SMS_BOXES

from .android_appops import SHELL_PACKAGE, AppOps
from .android_sql import SqlError, compile_where, sort_rows
from .shline import CommandContext, CommandHandler

if TYPE_CHECKING:
    from .phone import VirtualPhone

__all__ = ["ContentProviders", "ProviderError", "content_commands", "format_rows"]

_LABEL_TYPES = {v: k for k, v in PHONE_LABELS.items()}
_BOX_TYPES = {"inbox": 1, "sent": 2, "draft": 3, "outbox": 4, "failed": 5}
_CALL_TYPES = {"incoming": 1, "outgoing": 2, "missed": 3, "voicemail": 4, "rejected": 5, "blocked": 6}


class ProviderError(Exception):
    """What the provider threw; printed as ``Error while accessing provider:AUTH`` + exception.

    ``trace`` replaces the usual stack (the provider's exception read back from its parcel)
    when the failure happened elsewhere, e.g. in ActivityManager while opening the provider."""

    def __init__(self, authority: str, exception: str, trace: str | None = None) -> None:
        super().__init__(exception)
        self.authority = authority
        self.exception = exception
        self.trace = trace


def _ms(iso: str | None) -> int | None:
    if not iso:
        return None
    try:
        return int(datetime.fromisoformat(iso).replace(tzinfo=timezone.utc).timestamp() * 1000)
    except ValueError:
        return None


def _iso(ms: Any) -> str | None:
    try:
        v = int(ms)
    except (TypeError, ValueError):
        return None
    return datetime.fromtimestamp(v / 1000, tz=timezone.utc).replace(tzinfo=None).isoformat(timespec="seconds")


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
        if not m:
            raise ProviderError(text, f"java.lang.IllegalArgumentException: Invalid URI: {text}")
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
            raise ProviderError(a, f"java.lang.IllegalArgumentException: Unknown authority {a}")
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
            box = {"inbox": 1, "sent": 2, "draft": 3, "outbox": 4, "failed": 5, "queued": 6}.get(uri.path)
            if box is not None:
                rows = [r for r in rows if r["type"] == box]
        elif table == "events":
            rows = self._stock_event_rows(data) if self.stock else self._event_rows(world)
        elif table == "calendars":
            rows = [dict(c) for c in self._cal_state(data)["calendars"]] if self.stock else [dict(_CALENDAR_ROW)]
        elif table == "calls":
            rows = self._call_rows(world)
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
            box = {"inbox": 1, "sent": 2, "draft": 3, "outbox": 4, "failed": 5}.get(uri.path)
            return self._insert_sms(values, box)
        if table == "events":
            return self._insert_event_stock(uri, values) if self.stock else self._insert_event(uri, values)
        if table == "calendars" and self.stock:
            return self._insert_calendar(uri, values)
        if table == "calls":
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
        if table == "sms" and not self._sms_write_allowed():
            return 0  # the WRITE_SMS app-op refused it: ContentProvider.Transport.update returns 0
        cols = self._columns(table)
        if table in ("events", "calendars") and self.stock:
            self._verify_calendar_write(uri, table, values, where, "update")
        for c in values:
            if c not in cols:
                raise ProviderError(uri.authority, f"android.database.sqlite.SQLiteException: no such column: "
                                                   f"{c} (code 1 SQLITE_ERROR)")
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
            rec: dict[str, Any] = {"id": _new_id(d, "events"), "title": "", "start": _iso(values["dtstart"]),
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
                t = _LABEL_TYPES.get(label, 0)
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
                label = (str(values.get("data3") or "custom")) if t == 0 else PHONE_LABELS.get(t, "other")
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
                        p["label"] = str(values.get("data3") or "custom") if t == 0 else PHONE_LABELS.get(t, "other")
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
            t = _BOX_TYPES.get(m.get("box") or "inbox", 1)
            date = _ms(m.get("time")) or 0
            read = 1 if m.get("read", True) else 0
            rows.append({"_id": self.sms_ids.of(str(m.get("id"))), "thread_id": self._thread(m.get("address") or ""),
                         "address": m.get("address") or None, "person": None, "date": date,
                         "date_sent": date if t == 1 else 0, "protocol": 0 if t == 1 else None, "read": read,
                         "status": -1, "type": t, "reply_path_present": 0 if t == 1 else None,
                         "subject": self._sms_subjects.get(str(m.get("id"))),
                         "body": m.get("body") or "", "service_center": None, "locked": 0, "sub_id": 1,
                         "error_code": 0 if t != 5 else 1, "creator": "com.android.messaging", "seen": read})
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
            box = SMS_BOXES.get(_int(values["type"], 1))
            if box is not None:
                m["box"] = "outbox" if box == "outbox" else box
        if "read" in values:
            m["read"] = _truthy(values["read"])
        if "date" in values and _iso(values["date"]):
            m["time"] = _iso(values["date"])

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

    # ------------------------------------------------------------------ calendar
    def _event_rows(self, world: dict[str, Any]) -> list[dict[str, Any]]:
        rows = []
        for e in world.get("events") or []:
            start = _ms(e.get("start"))
            end = _ms(e.get("end"))
            all_day = bool(e.get("all_day"))
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
                         "eventTimezone": "UTC", "eventEndTimezone": "UTC" if end else None, "rrule": None,
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
        if "dtstart" in values and _iso(values["dtstart"]):
            e["start"] = _iso(values["dtstart"])
        if "dtend" in values:
            e["end"] = _iso(values["dtend"]) if values["dtend"] is not None else None
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
            rec: dict[str, Any] = {"id": _new_id(d, "events"), "title": "", "start": _iso(values["dtstart"]),
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
            t = _CALL_TYPES.get(c.get("kind") or "incoming", 1)
            rows.append({"_id": self.call_ids.of(str(c.get("id"))), "number": c.get("number") or "",
                         "presentation": 1, "date": _ms(c.get("time")) or 0, "duration": _int(c.get("duration_s")),
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
            kind = CALL_KINDS.get(_int(values["type"], 1))
            if kind is not None:
                c["kind"] = kind
        if "date" in values and _iso(values["date"]):
            c["time"] = _iso(values["date"])
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


_CONTENT_USAGE = """usage: adb shell content [subcommand] [options]

usage: adb shell content insert --uri <URI> [--user <USER_ID>] --bind <BINDING> [--bind <BINDING>...] [--extra <BINDING>...]
  <URI> a content provider URI.
  <BINDING> binds a typed value to a column and is formatted:
  <COLUMN_NAME>:<TYPE>:<COLUMN_VALUE> where:
  <TYPE> specifies data type such as:
  b - boolean, s - string, i - integer, l - long, f - float, d - double, n - null
  Note: Omit the value for passing an empty string, e.g column:s:
  Example:
  # Add "new_setting" secure setting with value "new_value".
  adb shell content insert --uri content://settings/secure --bind name:s:new_setting --bind value:s:new_value

usage: adb shell content update --uri <URI> [--user <USER_ID>] [--where <WHERE>] [--extra <BINDING>...]
  <WHERE> is a SQL style where clause in quotes (You have to escape single quotes - see example below).

usage: adb shell content delete --uri <URI> [--user <USER_ID>] --bind <BINDING> [--bind <BINDING>...] [--where <WHERE>] [--extra <BINDING>...]

usage: adb shell content query --uri <URI> [--user <USER_ID>] [--projection <PROJECTION>] [--where <WHERE>] [--sort <SORT_ORDER>]  [--extra <BINDING>...]
  <PROJECTION> is a list of colon separated column names and is formatted:
  <COLUMN_NAME>[:<COLUMN_NAME>...]
  <SORT_ORDER> is the order in which rows in the result should be sorted.
"""


def _parse_bind(spec: str) -> tuple[str, Any]:
    """``name:type:value`` (the value may contain colons) → (name, typed value)."""
    parts = spec.split(":", 2)
    if len(parts) < 2:
        raise ValueError(f"Binding not well formed: {spec}")
    name, kind = parts[0], parts[1]
    value = parts[2] if len(parts) > 2 else ""
    if kind == "s":
        return name, value
    if kind in ("i", "l"):
        return name, int(value)
    if kind in ("f", "d"):
        return name, float(value)
    if kind == "b":
        return name, 1 if value.strip().lower() == "true" else 0
    if kind == "n":
        return name, None
    raise ValueError(f"Unsupported type: {kind}")


class ContentCommand:
    def __init__(self, phone: "VirtualPhone") -> None:
        self.phone = phone
        self.providers: ContentProviders = phone.providers

    async def __call__(self, ctx: CommandContext) -> int:
        from .u2server import spend

        # `content` is a Java program: every call starts a runtime through app_process
        await spend(float(getattr(getattr(self.phone, "knobs", None), "app_process_ms", 0.0) or 0.0))
        args = list(ctx.args)
        if not args or args[0] in ("-h", "--help", "help"):
            await ctx.out(_CONTENT_USAGE)
            return 0
        verb, rest = args[0], args[1:]
        opts: dict[str, str] = {}
        binds: dict[str, Any] = {}
        i = 0
        try:
            while i < len(rest):
                a = rest[i]
                if a in ("--uri", "--projection", "--where", "--sort", "--user", "--method", "--arg", "--extra"):
                    if i + 1 >= len(rest):
                        raise ValueError(f"Argument expected after \"{a}\"")
                    if a == "--extra":
                        k, v = _parse_bind(rest[i + 1])
                        binds.setdefault("__extra__", {})[k] = v
                    else:
                        opts[a[2:]] = rest[i + 1]
                    i += 2
                elif a == "--bind":
                    if i + 1 >= len(rest):
                        raise ValueError('Argument expected after "--bind"')
                    k, v = _parse_bind(rest[i + 1])
                    binds[k] = v
                    i += 2
                else:
                    raise ValueError(f"Unsupported argument: {a}")
        except ValueError as e:
            await ctx.err(f"Error: {e}\n")
            await ctx.err(_CONTENT_USAGE)
            return 1
        binds.pop("__extra__", None)
        if verb not in ("query", "insert", "update", "delete"):
            await ctx.err(f"Error: Unsupported operation: {verb}\n" if verb in ("call", "read", "write", "gettype")
                          else f"Error: Unknown command: {verb}\n")
            await ctx.err(_CONTENT_USAGE)
            return 1
        uri = opts.get("uri")
        if not uri:
            await ctx.err("Error: Content provider URI not specified\n")
            await ctx.err(_CONTENT_USAGE)
            return 1
        if verb == "insert" and not binds:
            await ctx.err("Error: Bindings not specified\n")
            await ctx.err(_CONTENT_USAGE)
            return 1
        try:
            if verb == "query":
                projection = [c for c in opts["projection"].split(":") if c] if opts.get("projection") else None
                cols, rows = await self.phone.acall(self.providers.query, uri, projection, opts.get("where"),
                                                    opts.get("sort"))
                await ctx.out(format_rows(cols, rows))
            elif verb == "insert":
                await self.phone.acall(self.providers.insert, uri, binds)
            elif verb == "update":
                await self.phone.acall(self.providers.update, uri, binds, opts.get("where"))
            else:
                await self.phone.acall(self.providers.delete, uri, opts.get("where"))
        except ProviderError as e:
            if e.trace is not None:
                await ctx.err(f"Error while accessing provider:{e.authority}\n{e.exception}\n{e.trace}")
                return 1
            await ctx.err(f"Error while accessing provider:{e.authority}\n{e.exception}\n"
                          f"\tat android.database.DatabaseUtils.readExceptionFromParcel(DatabaseUtils.java:172)\n"
                          f"\tat android.content.ContentProviderProxy.{verb}(ContentProviderNative.java:488)\n"
                          f"\tat com.android.commands.content.Content$Command.execute(Content.java:512)\n"
                          f"\tat com.android.commands.content.Content.main(Content.java:735)\n")
            return 1
        return 0


def content_commands(phone: "VirtualPhone") -> dict[str, CommandHandler]:
    cmd: Callable[[CommandContext], Any] = ContentCommand(phone)
    return {"content": cmd}  # type: ignore[dict-item]
