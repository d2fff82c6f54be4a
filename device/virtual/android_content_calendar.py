"""The calendar provider (``com.android.calendar``) of the virtual phone: events and calendars as
rows, and the stock rules for writing them (calendars only under an account, the sync-adapter
URI, soft deletes of synced events), each citing the AOSP CalendarProvider2 source it follows.

Why its own module: one provider of :class:`~device.virtual.android_content.ContentProviders`,
a mixin over its dispatch.
"""

from __future__ import annotations

import hashlib
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any, Callable

from .android_content_schema import (_CAL_SYNC_COLUMNS, _CALENDAR_AUTH, _EVENT_PROVIDER_COLUMNS, _EVENT_SYNC_COLUMNS,
                                     CALENDAR_COLUMNS, STOCK_CALENDAR_EXTRA, ProviderError, _append_record, _copy_text,
                                     _duration_s, _Ids, _int, _iso, _ms, _new_id, _truthy, _Uri)

if TYPE_CHECKING:
    from .phone import VirtualPhone

__all__ = ["CalendarRows"]


class CalendarRows:
    """A part of :class:`~device.virtual.android_content.ContentProviders` (state set up there)."""

    phone: "VirtualPhone"
    contact_ids: _Ids
    sms_ids: _Ids
    event_ids: _Ids
    call_ids: _Ids

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
            holder["id"] = self._add_event(d, values)
            cp["events"][holder["id"]] = {"calendar_id": cal_id, "_sync_id": values.get("_sync_id") if sync else None,
                                          "dirty": _int(values.get("dirty")) if sync else 1}

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

    def _add_event(self, d: dict[str, Any], values: dict[str, Any]) -> str:
        """A new event of the world ``d`` made from the row ``values``; its id."""
        rec: dict[str, Any] = {"id": _new_id(d, "events"), "title": "", "start": _iso(values["dtstart"], self._zone),
                               "end": None, "all_day": False, "location": "", "description": "", "tag": None}
        self._event_from_values(rec, values)
        return _append_record(d, "events", rec)

    def _event_from_values(self, e: dict[str, Any], values: dict[str, Any]) -> None:
        _copy_text(e, values, {"title": "title", "description": "description", "location": "eventLocation"})
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
            holder["id"] = self._add_event(d, values)

        self.phone.mutate(edit)
        return f"content://com.android.calendar/events/{self.event_ids.of(holder['id'])}"
