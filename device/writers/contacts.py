"""Contacts (``content://com.android.contacts``): setup's contacts, and the tagged ones teardown
deletes.

A contact is a raw contact with data rows (name, phones, emails, company); the tag rides in a Note
data row (``vnd.android.cursor.item/note``, ``data1``). Deletes go through the raw contact with
``caller_is_syncadapter=true`` so the row is removed, not only marked deleted.
"""

from __future__ import annotations

from typing import Any

from actionmap.worldstate import Contact
from device.codecs import MIME_EMAIL, MIME_NAME, MIME_NOTE, MIME_ORG, MIME_PHONE, PHONE_TYPE, PHONE_TYPE_CUSTOM
from device.parsers import ParseError
from device.readers import URI_CONTACT_DATA, URI_RAW_CONTACTS, content_query, has_tag, marker
from device.writers.journal import CreatedRow, Journal, SetupError, TeardownReport
from device.writers.part import WriterPart
from device.writers.rows import content_insert, delete_rows_verified, max_id

__all__ = ["ContactsWriter", "EPISODE_ROWS_DESTRUCTIVE", "DELETE_URI"]

#: Deleting as the sync adapter removes the raw contact instead of marking it deleted.
DELETE_URI = URI_RAW_CONTACTS + "?caller_is_syncadapter=true"
#: Any new raw contact is the episode's — on dedicated test phones only (see DeviceWriter.EPISODE_ROWS).
EPISODE_ROWS_DESTRUCTIVE = (URI_RAW_CONTACTS, None, None)


class ContactsWriter(WriterPart):
    """The contacts part of one phone's :class:`~device.writers.DeviceWriter`."""

    def add(self, c: Contact, j: Journal) -> str:
        before = max_id(self.shell, URI_RAW_CONTACTS)
        content_insert(self.shell, URI_RAW_CONTACTS, {"starred": int(c.starred)}, self.w.phone_sdk)
        rows = content_query(self.shell, URI_RAW_CONTACTS, ("_id",))
        ids = [int(r["_id"]) for r in rows if str(r.get("_id") or "").isdigit() and int(r["_id"] or 0) > before]
        if not ids:
            raise SetupError("contacts: the raw contact did not appear (is writing contacts allowed?)")
        rid = max(ids)
        j.rows.append(CreatedRow(kind="contacts", uri=URI_RAW_CONTACTS, id=str(rid), content={}, tagged=False))
        j.save()
        data: list[dict[str, Any]] = [{"mimetype": MIME_NOTE, "data1": marker(j.tag)},
                                      {"mimetype": MIME_NAME, "data1": c.name}]
        for ph in c.phones:
            t = PHONE_TYPE.get(ph.label)
            data.append({"mimetype": MIME_PHONE, "data1": ph.number, "data2": t if t else PHONE_TYPE_CUSTOM,
                         **({} if t else {"data3": ph.label})})
        for em in c.emails:
            data.append({"mimetype": MIME_EMAIL, "data1": em, "data2": 1})
        if c.company:
            data.append({"mimetype": MIME_ORG, "data1": c.company, "data2": 1})
        for d in data:
            content_insert(self.shell, URI_CONTACT_DATA, {"raw_contact_id": rid, **d}, self.w.phone_sdk)
        rows = content_query(self.shell, URI_CONTACT_DATA, ("_id", "raw_contact_id", "mimetype", "data1"),
                             where=f"raw_contact_id={rid}")
        j.rows[-1].tagged = any(r.get("mimetype") == MIME_NOTE and marker(j.tag) in (r.get("data1") or "")
                                for r in rows)
        j.rows[-1].content = {"name": c.name}
        return f"contact {c.name!r} (raw_contact {rid}{'' if j.rows[-1].tagged else ', untagged: journal only'})"

    def delete_tagged(self, tag: str, rep: TeardownReport) -> None:
        try:
            rows = content_query(self.shell, URI_CONTACT_DATA, ("_id", "raw_contact_id", "mimetype", "data1"),
                                 where=f"mimetype='{MIME_NOTE}'")
        except ParseError:
            return
        ids = sorted({r["raw_contact_id"] for r in rows
                      if r.get("mimetype") == MIME_NOTE and has_tag(r.get("data1") or "", tag)
                      and r.get("raw_contact_id")})
        delete_rows_verified(self.shell, "contacts", URI_RAW_CONTACTS, [int(r) for r in ids if str(r).isdigit()], rep,
                             delete_uri=DELETE_URI)

    def delete_journalled(self, row: CreatedRow, rep: TeardownReport) -> None:
        """A contact whose Note did not round-trip: delete it only if it still has the name we wrote."""
        try:
            rows = content_query(self.shell, URI_CONTACT_DATA, ("_id", "raw_contact_id", "mimetype", "data1"),
                                 where=f"raw_contact_id={int(row.id)}")
        except (ParseError, ValueError):
            return
        names = {r.get("data1") for r in rows if r.get("mimetype") == MIME_NAME}
        if not rows:
            return  # already gone (deleted with its marker)
        if row.content.get("name") not in names:
            rep.left.append(f"contact raw id {row.id} changed since setup; left in place")
            return
        delete_rows_verified(self.shell, row.kind, URI_RAW_CONTACTS, [int(row.id)], rep, delete_uri=DELETE_URI)
