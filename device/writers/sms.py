"""SMS (``content://sms``): setup's messages, the read flags the episode changed, the episode's
own hidden rows, and the tagged rows teardown deletes.

The tag rides in the ``subject`` column. The shell reads SMS through SmsProvider's restricted view
(inbox and sent only) unless the phone is permissive; writes need the shell's ``WRITE_SMS`` app-op
(:mod:`device.appops`).
"""

from __future__ import annotations

import time

from actionmap.worldstate import Message
from device.adbshell import DeviceCommandError
from device.codecs import SMS_EPISODE_TYPES, SMS_HIDDEN_TYPES, SMS_TYPE
from device.parsers import ParseError
from device.readers import URI_SMS, content_query, local_to_ms, marker
from device.writers.journal import Journal, TeardownReport
from device.writers.part import WriterPart
from device.writers.rows import delete_marked, insert_tagged, max_id, new_row

__all__ = ["SmsWriter", "TAG_COLUMN", "EPISODE_ROWS"]

TAG_COLUMN = "subject"
#: The episode's own rows: sent, draft, outbox, failed, queued — not inbox (see DeviceWriter.EPISODE_ROWS).
EPISODE_ROWS = (URI_SMS, "type", tuple(str(t) for t in SMS_EPISODE_TYPES))


class SmsWriter(WriterPart):
    """The SMS part of one phone's :class:`~device.writers.DeviceWriter`."""

    # --- setup -----------------------------------------------------------------------------------
    def add(self, m: Message, j: Journal) -> str:
        before = max_id(self.shell, URI_SMS)
        when = local_to_ms(m.time, self.tz) if m.time else int(time.time() * 1000)
        insert_tagged(self.shell, URI_SMS, {"address": m.address, "body": m.body, "type": SMS_TYPE[m.box],
                                            "read": int(m.read), "seen": 1, "date": when}, TAG_COLUMN, marker(j.tag),
                      self.w.phone_sdk)
        row = new_row(self.shell, "messages", URI_SMS, before, j, {"address": m.address, "body": m.body}, TAG_COLUMN)
        return f"message to/from {m.address} (sms {row.id})"

    # --- the episode -----------------------------------------------------------------------------
    def read_now(self) -> dict[int, str] | None:
        """``_id → read`` of the SMS rows the shell can see (None when SMS cannot be read)."""
        try:
            rows = content_query(self.shell, URI_SMS, ("_id", "read"))
        except (ParseError, DeviceCommandError):
            return None
        return {int(str(r["_id"])): str(r.get("read") or "0") for r in rows if str(r.get("_id") or "").isdigit()}

    def undo_episode_read(self, j: Journal, rep: TeardownReport) -> None:
        """Put back the read flag of the phone's own messages that the episode changed — opening a
        conversation in Messages marks it read (the app's own update, as on a phone) — and prove
        it by reading again. Needs SMS writes (the WRITE_SMS app-op, see :mod:`device.appops`);
        without them the change is reported, never hidden."""
        if not j.sms_read_at_start:
            return
        now = self.read_now() or {}
        changed = {i: old for i, old in j.sms_read_at_start.items() if i in now and now[i] != old}
        if not changed:
            return
        if self.sms_writable is False:
            rep.left.append(f"{len(changed)} of the phone's own SMS marked read during the episode (ids "
                            f"{', '.join(map(str, sorted(changed)))}): the shell may not write SMS here "
                            "(WRITE_SMS app-op; run with --grant-appops to have them put back)")
            return
        for i, old in sorted(changed.items()):
            self.shell.run(["content", "update", "--uri", f"{URI_SMS}/{int(i)}", "--bind",
                            f"read:i:{1 if old == '1' else 0}"])
        after = self.read_now() or {}
        still = sorted(i for i, old in changed.items() if after.get(i) != old)
        fixed = len(changed) - len(still)
        if fixed:
            rep.restored.append(f"read flag of {fixed} SMS put back")
        if still:
            rep.left.append(f"read flag of SMS {', '.join(map(str, still))} could not be put back "
                            "(the provider ignored the update)")

    def delete_hidden_episode(self, j: Journal) -> str | None:
        """Drafts/outbox/failed/queued rows are outside the shell's restricted view, so they cannot
        be listed or checked; SmsProvider.delete works on the whole table, so on a dedicated test
        phone the episode's hidden rows go by selection (unverifiable). The teardown's SMS reads
        cannot see those rows either, so this runs beside them (in its own thread: the reads'
        read-ahead is not dropped by it). Returns the note for the report."""
        mark = j.episode_marks.get("messages")
        if mark is None or "messages" not in self.w.episode_rows():
            return None
        if self.restricted_sms and self.destructive and self.sms_writable:
            hidden = ",".join(map(str, SMS_HIDDEN_TYPES))
            self.shell.run(["content", "delete", "--uri", URI_SMS, "--where",
                            f"_id>{int(mark)} AND type IN ({hidden})"])
            return ("episode SMS drafts/outbox/failed/queued above the episode mark deleted "
                    "(not verifiable under the restricted view)")
        return None

    # --- teardown --------------------------------------------------------------------------------
    def delete_tagged(self, tag: str, rep: TeardownReport) -> None:
        delete_marked(self.shell, "messages", URI_SMS, TAG_COLUMN, tag, rep)
