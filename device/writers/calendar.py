"""Calendar events (``content://com.android.calendar/events``): setup's events, only ever in s2r's
own LOCAL calendar (:mod:`device.localcal`), never an account's synced one; the tagged ones
teardown deletes.

The tag rides at the end of ``description`` in its invisible form (the user sees descriptions).
All-day events are stored at UTC midnight of their date (the CalendarContract rule).
"""

from __future__ import annotations

from actionmap.worldstate import CalendarEvent
from device.readers import URI_EVENTS, invisible_marker, local_to_ms, utc_midnight_ms
from device.writers.journal import Journal, SetupError, TeardownReport
from device.writers.part import WriterPart
from device.writers.rows import content_insert, delete_marked, max_id, new_row

__all__ = ["CalendarWriter", "TAG_COLUMN", "EPISODE_ROWS_DESTRUCTIVE"]

TAG_COLUMN = "description"
#: Any new event is the episode's — on dedicated test phones only (see DeviceWriter.EPISODE_ROWS).
EPISODE_ROWS_DESTRUCTIVE = (URI_EVENTS, None, None)


class CalendarWriter(WriterPart):
    """The calendar part of one phone's :class:`~device.writers.DeviceWriter`."""

    def calendar_id(self) -> str:
        """s2r's own LOCAL calendar (:mod:`device.localcal`): never an account's synced one."""
        if self.w.calendar_id is None:
            raise SetupError(f"events: {self.w.calendar_why}", unsupported=True)
        return self.w.calendar_id

    def add(self, e: CalendarEvent, j: Journal) -> str:
        before = max_id(self.shell, URI_EVENTS)
        if e.all_day:
            start = utc_midnight_ms(e.start)
            end = utc_midnight_ms(e.end) if e.end else start + 86_400_000
            tz = "UTC"
        else:
            start = local_to_ms(e.start, self.tz)
            end = local_to_ms(e.end, self.tz) if e.end else start + 3_600_000
            tz = self.tz or "UTC"
        desc = e.description + invisible_marker(j.tag)  # the user sees descriptions: invisible form
        content_insert(self.shell, URI_EVENTS, {
            "calendar_id": int(self.calendar_id()), "title": e.title, "dtstart": start, "dtend": end,
            "allDay": int(e.all_day), "eventTimezone": tz, "eventLocation": e.location, "description": desc},
            self.w.phone_sdk)
        row = new_row(self.shell, "events", URI_EVENTS, before, j, {"title": e.title}, TAG_COLUMN)
        return f"event {e.title!r} (event {row.id})"

    def delete_tagged(self, tag: str, rep: TeardownReport) -> None:
        delete_marked(self.shell, "events", URI_EVENTS, TAG_COLUMN, tag, rep)
