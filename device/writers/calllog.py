"""The call log (``content://call_log/calls``): setup's calls, and the tagged ones teardown deletes.

The tag rides in the ``transcription`` column.
"""

from __future__ import annotations

import time

from actionmap.worldstate import Call
from device.codecs import CALL_TYPE
from device.readers import URI_CALLS, local_to_ms, marker
from device.writers.journal import Journal, TeardownReport
from device.writers.part import WriterPart
from device.writers.rows import delete_marked, insert_tagged, max_id, new_row

__all__ = ["CallLogWriter", "TAG_COLUMN", "EPISODE_ROWS"]

TAG_COLUMN = "transcription"
#: The episode's own rows: outgoing calls only (see DeviceWriter.EPISODE_ROWS).
EPISODE_ROWS = (URI_CALLS, "type", (str(CALL_TYPE["outgoing"]),))


class CallLogWriter(WriterPart):
    """The call-log part of one phone's :class:`~device.writers.DeviceWriter`."""

    def add(self, c: Call, j: Journal) -> str:
        before = max_id(self.shell, URI_CALLS)
        when = local_to_ms(c.time, self.tz) if c.time else int(time.time() * 1000)
        insert_tagged(self.shell, URI_CALLS, {"number": c.number, "name": c.name, "type": CALL_TYPE[c.kind],
                                               "date": when, "duration": c.duration_s, "new": 0},
                       TAG_COLUMN, marker(j.tag), self.w.phone_sdk)
        row = new_row(self.shell, "calls", URI_CALLS, before, j, {"number": c.number}, TAG_COLUMN)
        return f"call {c.kind} {c.number} (call {row.id})"

    def delete_tagged(self, tag: str, rep: TeardownReport) -> None:
        delete_marked(self.shell, "calls", URI_CALLS, TAG_COLUMN, tag, rep)
