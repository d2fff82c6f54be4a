"""Provider rows (from :func:`parse_content_rows`) → ``WorldState`` records.

One function per provider the device state readers query. The URIs and the columns each
function needs (pass them as ``--projection`` so rows split unambiguously):

* contacts — ``content://com.android.contacts/data``:
  ``_id:raw_contact_id:contact_id:mimetype:data1:data2:data3`` (+ ``display_name``, ``starred``
  when the data view has them); ``starred`` also from ``content://com.android.contacts/contacts``
  (``_id:display_name:starred``);
* SMS — ``content://sms``: ``_id:address:body:type:read:date``;
* calendar — ``content://com.android.calendar/events``:
  ``_id:title:dtstart:dtend:allDay:eventLocation:description:eventTimezone:deleted``;
* call log — ``content://call_log/calls``: ``_id:number:name:type:date:duration``.

Providers store instants as epoch milliseconds; WorldState wants the phone's wall-clock
time, so each converter takes the phone's time zone (``persist.sys.timezone``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import timedelta, timezone, tzinfo

from actionmap.worldstate import CalendarEvent, Call, Contact, Message, PhoneNumber
from device.codecs import (CALL_KIND_OF_TYPE, MIME_EMAIL, MIME_NAME, MIME_ORG, MIME_PHONE, PHONE_LABEL_OF_TYPE,
                           SMS_BOX_OF_TYPE)

from ._common import ms_to_local

__all__ = [
    "contacts_from_rows", "messages_from_rows", "events_from_rows", "calls_from_rows",
    "MIME_NAME", "MIME_PHONE", "MIME_EMAIL", "MIME_ORG", "PHONE_LABELS", "SMS_BOXES", "CALL_KINDS",
]

Row = Mapping[str, str | None]
Tz = str | tzinfo | timedelta | None

# The codes are the codec table's (device.codecs), shared with the writers that encode them.
PHONE_LABELS = PHONE_LABEL_OF_TYPE  # ContactsContract.CommonDataKinds.Phone.TYPE_*
SMS_BOXES = SMS_BOX_OF_TYPE  # Telephony.TextBasedSmsColumns.MESSAGE_TYPE_* (6 = queued: outbox)
CALL_KINDS = CALL_KIND_OF_TYPE  # CallLog.Calls.*_TYPE (7 = answered on another device: incoming)


def _int(v: str | None, default: int | None = None) -> int | None:
    if v is None:
        return default
    try:
        return int(v.strip())
    except ValueError:
        return default


def _truthy(v: str | None) -> bool:
    return _int(v, 0) not in (0, None)


def contacts_from_rows(data_rows: Iterable[Row], contacts_rows: Iterable[Row] | None = None) -> list[Contact]:
    """Group ``data`` rows into contacts (by ``contact_id``, else ``raw_contact_id``).

    Name comes from the structured-name row (``data1`` = display name), else the row's
    ``display_name`` column. Phone labels follow ``data2`` (0 = custom label in ``data3``).
    ``starred`` comes from the ``contacts`` rows when given, else from a ``starred`` column.
    Contacts are returned in order of first appearance.
    """
    groups: dict[str, dict[str, object]] = {}
    for r in data_rows:
        cid = r.get("contact_id") or r.get("raw_contact_id") or r.get("_id")
        if not cid:
            continue
        g = groups.setdefault(cid, {"name": "", "fallback_name": "", "phones": [], "emails": [], "company": "",
                                    "starred": False})
        if r.get("display_name") and not g["fallback_name"]:
            g["fallback_name"] = r["display_name"]
        if _truthy(r.get("starred")):
            g["starred"] = True
        mime, d1 = r.get("mimetype") or "", r.get("data1")
        if mime == MIME_NAME and d1:
            g["name"] = d1
        elif mime == MIME_PHONE and d1:
            t = _int(r.get("data2"), 0) or 0
            label = (r.get("data3") or "custom") if t == 0 else PHONE_LABELS.get(t, "other")
            phones = g["phones"]
            assert isinstance(phones, list)
            if not any(p.number == d1 for p in phones):
                phones.append(PhoneNumber(number=d1, label=label))
        elif mime == MIME_EMAIL and d1:
            emails = g["emails"]
            assert isinstance(emails, list)
            if d1 not in emails:
                emails.append(d1)
        elif mime == MIME_ORG and d1 and not g["company"]:
            g["company"] = d1
    starred: dict[str, bool] = {}
    for r in contacts_rows or ():
        if r.get("_id"):
            starred[r["_id"]] = _truthy(r.get("starred"))
    out = []
    for cid, g in groups.items():
        name = str(g["name"] or g["fallback_name"])
        phones = g["phones"]
        assert isinstance(phones, list)
        if not name and phones:
            name = phones[0].number
        if not name:
            continue  # a raw contact with no name, number or e-mail row: nothing a task could refer to
        out.append(Contact(id=cid, name=name, phones=phones, emails=list(g["emails"]),  # type: ignore[arg-type]
                           company=str(g["company"]), starred=starred.get(cid, bool(g["starred"]))))
    return out


def messages_from_rows(rows: Iterable[Row], tz: Tz = None) -> list[Message]:
    """``content://sms`` rows → messages; ``type`` picks the box, ``date`` (ms) the local time.

    Rows with a type outside 1–6 (``0`` = "all", never stored by real apps) are left out.
    """
    out = []
    for r in rows:
        box = SMS_BOXES.get(_int(r.get("type"), 1) or 0)
        if box is None:
            continue
        out.append(Message(id=r.get("_id"), address=r.get("address") or "", body=r.get("body") or "",
                           box=box,  # type: ignore[arg-type]
                           read=_truthy(r.get("read")) if r.get("read") is not None else True,
                           time=ms_to_local(r.get("date"), tz)))
    return out


def events_from_rows(rows: Iterable[Row], tz: Tz = None, *, include_deleted: bool = False) -> list[CalendarEvent]:
    """``events`` rows → calendar events.

    All-day events are stored at UTC midnight whatever the phone's zone (CalendarContract
    rule), so their dates are read in UTC; timed events in ``tz``. ``deleted=1`` rows are
    tombstones awaiting sync and are skipped. A recurring event has ``dtend`` NULL (it
    uses ``duration``): its end stays ``None``. Rows without ``dtstart`` are skipped.
    """
    out = []
    for r in rows:
        if not include_deleted and _truthy(r.get("deleted")):
            continue
        all_day = _truthy(r.get("allDay"))
        zone: Tz = timezone.utc if all_day else tz
        start = ms_to_local(r.get("dtstart"), zone)
        if start is None:
            continue
        end = ms_to_local(r.get("dtend"), zone)
        out.append(CalendarEvent(id=r.get("_id"), title=r.get("title") or "", start=start, end=end, all_day=all_day,
                                 location=r.get("eventLocation") or "", description=r.get("description") or ""))
    return out


def calls_from_rows(rows: Iterable[Row], tz: Tz = None) -> list[Call]:
    """``call_log/calls`` rows → calls. Unknown ``type`` codes (OEM extensions) are left out."""
    out = []
    for r in rows:
        kind = CALL_KINDS.get(_int(r.get("type"), -1) or -1)
        if kind is None:
            continue
        out.append(Call(id=r.get("_id"), number=r.get("number") or "", name=r.get("name") or "",
                        kind=kind,  # type: ignore[arg-type]
                        time=ms_to_local(r.get("date"), tz), duration_s=max(0, _int(r.get("duration"), 0) or 0)))
    return out
