"""The telephony providers of the virtual phone: SMS (``sms``, ``mms-sms``) and the call log
(``call_log``) as rows over the world's messages and calls, and their inserts.

Why its own module: two small providers of :class:`~device.virtual.android_content.ContentProviders`,
a mixin over its dispatch.
"""

from __future__ import annotations

import re
from datetime import timezone, tzinfo
from typing import TYPE_CHECKING, Any

from .android_codes import CALL_KIND_OF_TYPE, CALL_TYPE, SMS_BOX_OF_TYPE, SMS_TYPE
from .android_content_schema import _append_record, _copy_text, _Ids, _int, _iso, _ms, _new_id, _truthy

if TYPE_CHECKING:
    from .phone import VirtualPhone

__all__ = ["TelephonyRows"]


class TelephonyRows:
    """A part of :class:`~device.virtual.android_content.ContentProviders` (state set up there)."""

    phone: "VirtualPhone"
    contact_ids: _Ids
    sms_ids: _Ids
    event_ids: _Ids
    call_ids: _Ids

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
        _copy_text(m, values, {"address": "address", "body": "body"})
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
            holder["id"] = _append_record(d, "messages", rec)

        self.phone.mutate(edit)
        return f"content://sms/{self.sms_ids.of(holder['id'])}"

    @property
    def _zone(self) -> tzinfo:
        """The phone's zone: the world's times are its wall times (``persist.sys.timezone``)."""
        return getattr(self.phone, "zone", None) or timezone.utc

    @property
    def _zone_name(self) -> str:
        return str(getattr(getattr(self.phone, "knobs", None), "timezone", None) or "UTC")

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
        _copy_text(c, values, {"number": "number", "name": "name"})
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
            holder["id"] = _append_record(d, "calls", rec)

        self.phone.mutate(edit)
        return f"content://call_log/calls/{self.call_ids.of(holder['id'])}"
