"""Task setup on a real phone — and the teardown that leaves it exactly as it was.

A ``StatePatch`` only *sets settings* and *adds records* (see :mod:`actionmap.patch`). On a
phone that belongs to a person, both must be undone:

* **Settings** are read before they are changed; the old value is written to a journal
  *before* the change, and teardown puts it back (by the same mechanism: ``svc``/``cmd``
  where the setting is a live radio or service, ``settings put`` otherwise; a key that was
  unset is deleted again).
* **Records** carry the run tag ``[s2r-xxxxxxxx]`` in a field that round-trips through the
  provider and that the app does not show as the record's name:

  ========  ====================================================================
  kind      where the tag lives
  ========  ====================================================================
  contacts  a Note data row (``vnd.android.cursor.item/note``, ``data1``)
  events    appended to ``description`` in the *invisible* form (readers strip it
            and fill ``tag``)
  messages  the ``subject`` column of ``content://sms``
  calls     the ``transcription`` column of ``content://call_log/calls``
  alarms    appended to the label, invisible form (readers strip it; observations
            show labels without it)
  timers    appended to the label, invisible form
  files     the first bytes of the file's content (``s2r-tag:[s2r-…]``); the path is
            also journalled, and a file that existed before setup is never written
  ========  ====================================================================

  The visible form is ``[s2r-1a2b3c4d]``; the invisible form (for text a person sees in an
  app) is U+2063 followed by the tag's hex digits in zero-width characters — fonts draw
  nothing, so a screenshot of the Clock app shows "Gym", not "Gym [s2r-…]" (see
  :func:`device.readers.invisible_marker`).

  Teardown deletes *only* records whose tag field carries a marker (by ``_id``, after
  reading the marker back) — never a record without one. Where a backend drops the tag
  column, the journal keeps the new row's ``_id`` and its content, and teardown deletes
  that id only if the row still holds exactly what setup wrote.
* Alarms have no provider: teardown finds the tagged ones in the Clock app's list through the
  Clock driver (:class:`device.readers.ClockScreen`: cards by role, collapsed or expanded, in the
  app's family) and taps their Delete; a delete counts only when the list changed, and the loop
  ends on a scan of the whole list that finds none. An alarm it cannot delete — or cannot check,
  when the list does not show — is never silent: it is a leftover
  (:attr:`TeardownReport.leftovers`, also said in ``left``), which the end-of-run audit counts.
* The journal lives on the host (``~/.cache/s2r/device-journal/<serial>.json``), written
  after every change, so a crashed run is cleaned up the next time the phone is used.
* Destructive resets (``pm clear`` of a provider, wiping shared storage) run only with
  ``destructive=True``, meant for dedicated test phones.

The phone's clock is never set: ``StatePatch.time`` is ignored on devices (reported in
:attr:`SetupReport.ignored`).

One module per job: :mod:`~device.writers.writer` (the coordinator, :class:`DeviceWriter`), one
part per provider — :mod:`~device.writers.settings`, :mod:`~device.writers.sms`,
:mod:`~device.writers.contacts`, :mod:`~device.writers.calendar`, :mod:`~device.writers.calllog`,
:mod:`~device.writers.files`, :mod:`~device.writers.alarms` (driving the Clock app's list:
:mod:`~device.writers.alarmlist`), :mod:`~device.writers.permissions` — each with its setup,
episode marks and teardown; :mod:`~device.writers.rows` (``content`` inserts and verified
deletes), :mod:`~device.writers.journal` (the journal and the reports) and
:mod:`~device.writers.safety` (the real-world-effects policy). Names are re-exported here, where
callers import them from. Keys, encodings and type codes come from :mod:`device.codecs`.
"""


from device.codecs import CALENDAR_DAY as _CAL_DAYS
from device.codecs import CALL_TYPE as _CALL_TYPES
from device.codecs import PHONE_TYPE as _PHONE_TYPES
from device.codecs import SMS_TYPE as _SMS_TYPES
from device.readers import current_setting
from device.writers.alarmlist import AlarmDeletes, AlarmListUnreadable
from device.writers.alarmlist import alarm_box as _alarm_box
from device.writers.alarmlist import plain_alarm_box as _plain_alarm_box
from device.writers.files import FILE_TAG_PREFIX, sync_push
from device.writers.journal import (CreatedFile, CreatedRow, Journal, RawSetting, SettingChange, SettingsJournal,
                                    SetupError, SetupReport, TeardownReport, journal_dir, new_tag)
from device.writers.rows import ESCAPED_BINDINGS_SDK, SdkSource, content_failure, delete_rows_verified
from device.writers.rows import _bind as _bind
from device.writers.safety import real_world_effects, refusal_reason
from device.writers.settings import set_setting
from device.writers.writer import EPISODE_ROWS, EPISODE_ROWS_DESTRUCTIVE, DeviceWriter

__all__ = [
    "new_tag", "SettingsJournal", "RawSetting", "Journal", "SetupReport", "TeardownReport", "SetupError",
    "DeviceWriter", "real_world_effects", "set_setting", "current_setting", "delete_rows_verified", "FILE_TAG_PREFIX",
    "journal_dir", "refusal_reason", "content_failure", "sync_push", "EPISODE_ROWS", "EPISODE_ROWS_DESTRUCTIVE",
    "ESCAPED_BINDINGS_SDK", "SdkSource", "SettingChange", "CreatedRow", "CreatedFile", "AlarmDeletes",
    "AlarmListUnreadable",
]
# the codec table's encoders and the alarm list's pickers, by the private names tests know them by
_PRIVATE = (_CAL_DAYS, _CALL_TYPES, _PHONE_TYPES, _SMS_TYPES, _alarm_box, _plain_alarm_box, _bind)
