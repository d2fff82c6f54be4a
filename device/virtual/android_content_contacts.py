"""The contacts provider (``com.android.contacts``, and the legacy ``contacts`` authority) of the
virtual phone: contacts, raw contacts and data rows over the world's contacts, and their writes.

Why its own module: one provider of :class:`~device.virtual.android_content.ContentProviders`,
a mixin over its dispatch.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .android_codes import MIME_EMAIL, MIME_NAME, MIME_ORG, MIME_PHONE, PHONE_LABEL_OF_TYPE, PHONE_TYPE
from .android_content_schema import ProviderError, _e164, _Ids, _int, _new_id, _truthy, _Uri

if TYPE_CHECKING:
    from .phone import VirtualPhone

__all__ = ["ContactRows"]


class ContactRows:
    """A part of :class:`~device.virtual.android_content.ContentProviders` (state set up there)."""

    phone: "VirtualPhone"
    contact_ids: _Ids
    sms_ids: _Ids
    event_ids: _Ids
    call_ids: _Ids

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
