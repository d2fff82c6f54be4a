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

The providers, one module each: :mod:`.android_content_contacts`, :mod:`.android_content_telephony`
(SMS, call log), :mod:`.android_content_calendar`; their shared tables :mod:`.android_content_schema`;
the ``content`` command :mod:`.android_content_cli`. This module is the dispatch: a URI to its
table, the stock gates, and query/insert/update/delete over the world.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .android_appops import SHELL_PACKAGE, AppOps
from .android_codes import ALLOW_VOICEMAILS_PARAM_KEY, MIME_EMAIL, MIME_PHONE, SMS_TYPE, VOICEMAIL_TYPE
from .android_sql import SqlError, compile_where, sort_rows
from .android_content_schema import (_CALENDAR_ROW, CALENDAR_COLUMNS, CALL_COLUMNS, CONTACT_COLUMNS, DATA_COLUMNS,
                                     EVENT_COLUMNS, LEGACY_PHONE_COLUMNS, RAW_CONTACT_COLUMNS, SETTINGS_COLUMNS,
                                     SMS_COLUMNS, STOCK_CALENDAR_EXTRA, STOCK_EVENT_EXTRA, ProviderError,
                                     _as_integer, _Ids, _int, _new_id, _no_provider, _stored, _Uri)
from .android_content_calendar import CalendarRows
from .android_content_cli import _CONTENT_USAGE, ContentUsageError, content_commands, format_rows, parse_binding
from .android_content_contacts import ContactRows
from .android_content_telephony import TelephonyRows

if TYPE_CHECKING:
    from .phone import VirtualPhone

__all__ = ["ContentProviders", "ProviderError", "content_commands", "format_rows",
           # re-exported where callers have always found them
           "ContentUsageError", "parse_binding", "_CONTENT_USAGE", "_new_id"]


# ============================================================================ providers
class ContentProviders(ContactRows, TelephonyRows, CalendarRows):
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
