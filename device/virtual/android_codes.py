"""The virtual phone's own integer codes and MIME types, as the Android providers store them.

Why a table of its own: the state readers decode provider rows with
:mod:`device.parsers.records`; if the virtual phone *encoded* rows with those very tables, a
wrong code (say an SMS box off by one) would round-trip unnoticed through every test. So the
phone writes its rows from these tables, transcribed from the framework contracts, and a test
(``tests/test_content_bind.py``) checks that the readers' tables agree with them code by code.

Sources (frameworks/base, ``core/java/android/provider/``; the constants are part of the public
API and have not changed since they were added):

* ``Telephony.java`` — ``Telephony.TextBasedSmsColumns``: ``MESSAGE_TYPE_ALL = 0``,
  ``MESSAGE_TYPE_INBOX = 1``, ``MESSAGE_TYPE_SENT = 2``, ``MESSAGE_TYPE_DRAFT = 3``,
  ``MESSAGE_TYPE_OUTBOX = 4``, ``MESSAGE_TYPE_FAILED = 5``, ``MESSAGE_TYPE_QUEUED = 6``.
* ``CallLog.java`` — ``CallLog.Calls``: ``INCOMING_TYPE = 1``, ``OUTGOING_TYPE = 2``,
  ``MISSED_TYPE = 3``, ``VOICEMAIL_TYPE = 4``, ``REJECTED_TYPE = 5``, ``BLOCKED_TYPE = 6``,
  ``ANSWERED_EXTERNALLY_TYPE = 7``; ``ALLOW_VOICEMAILS_PARAM_KEY = "allow_voicemails"``.
* ``ContactsContract.java`` — ``CommonDataKinds.Phone``: ``TYPE_CUSTOM = 0`` (BaseTypes),
  ``TYPE_HOME = 1`` … ``TYPE_MMS = 20`` (below); the ``CONTENT_ITEM_TYPE`` of
  ``StructuredName`` (``vnd.android.cursor.item/name``), ``Phone`` (``…/phone_v2``),
  ``Email`` (``…/email_v2``), ``Organization`` (``…/organization``), ``Note`` (``…/note``).

The names on the right-hand side are the sim world's words (``Message.box``, ``Call.kind``,
``PhoneNumber.label``); the codes on the left are Android's.
"""

from __future__ import annotations

__all__ = [
    "SMS_TYPE", "SMS_BOX_OF_TYPE", "CALL_TYPE", "CALL_KIND_OF_TYPE", "PHONE_TYPE", "PHONE_LABEL_OF_TYPE",
    "MIME_NAME", "MIME_PHONE", "MIME_EMAIL", "MIME_ORG", "MIME_NOTE", "VOICEMAIL_TYPE",
    "ALLOW_VOICEMAILS_PARAM_KEY",
]

# --- Telephony.TextBasedSmsColumns.MESSAGE_TYPE_* -----------------------------------------------
MESSAGE_TYPE_ALL = 0
MESSAGE_TYPE_INBOX = 1
MESSAGE_TYPE_SENT = 2
MESSAGE_TYPE_DRAFT = 3
MESSAGE_TYPE_OUTBOX = 4
MESSAGE_TYPE_FAILED = 5
MESSAGE_TYPE_QUEUED = 6

#: ``content://sms`` ``type`` of each world box (and of the box-named URIs ``content://sms/inbox`` …).
SMS_TYPE: dict[str, int] = {"inbox": MESSAGE_TYPE_INBOX, "sent": MESSAGE_TYPE_SENT, "draft": MESSAGE_TYPE_DRAFT,
                            "outbox": MESSAGE_TYPE_OUTBOX, "failed": MESSAGE_TYPE_FAILED,
                            "queued": MESSAGE_TYPE_QUEUED}
#: A stored ``type`` → the world's box. A queued message waits to be sent: the world keeps it in
#: the outbox (it has no queue of its own). ``MESSAGE_TYPE_ALL`` is a query filter, never stored.
SMS_BOX_OF_TYPE: dict[int, str] = {MESSAGE_TYPE_INBOX: "inbox", MESSAGE_TYPE_SENT: "sent",
                                   MESSAGE_TYPE_DRAFT: "draft", MESSAGE_TYPE_OUTBOX: "outbox",
                                   MESSAGE_TYPE_FAILED: "failed", MESSAGE_TYPE_QUEUED: "outbox"}

# --- CallLog.Calls.*_TYPE ------------------------------------------------------------------------
INCOMING_TYPE = 1
OUTGOING_TYPE = 2
MISSED_TYPE = 3
VOICEMAIL_TYPE = 4
REJECTED_TYPE = 5
BLOCKED_TYPE = 6
ANSWERED_EXTERNALLY_TYPE = 7
#: ``CallLog.Calls.ALLOW_VOICEMAILS_PARAM_KEY``: the URI query parameter CallLogProvider wants
#: before it lets a ``type=4`` row through (:meth:`ContentProviders._check_voicemail`).
ALLOW_VOICEMAILS_PARAM_KEY = "allow_voicemails"

#: The ``type`` column of each world call kind.
CALL_TYPE: dict[str, int] = {"incoming": INCOMING_TYPE, "outgoing": OUTGOING_TYPE, "missed": MISSED_TYPE,
                             "voicemail": VOICEMAIL_TYPE, "rejected": REJECTED_TYPE, "blocked": BLOCKED_TYPE}
#: A stored ``type`` → the world's kind; a call answered on another device was still an
#: incoming call to this phone.
CALL_KIND_OF_TYPE: dict[int, str] = {INCOMING_TYPE: "incoming", OUTGOING_TYPE: "outgoing", MISSED_TYPE: "missed",
                                     VOICEMAIL_TYPE: "voicemail", REJECTED_TYPE: "rejected",
                                     BLOCKED_TYPE: "blocked", ANSWERED_EXTERNALLY_TYPE: "incoming"}

# --- ContactsContract.CommonDataKinds.Phone.TYPE_* ----------------------------------------------
TYPE_CUSTOM = 0  # ContactsContract.CommonDataKinds.BaseTypes: the label is in ``data3`` (LABEL)
PHONE_TYPE: dict[str, int] = {
    "home": 1,           # TYPE_HOME
    "mobile": 2,         # TYPE_MOBILE
    "work": 3,           # TYPE_WORK
    "work_fax": 4,       # TYPE_FAX_WORK
    "home_fax": 5,       # TYPE_FAX_HOME
    "pager": 6,          # TYPE_PAGER
    "other": 7,          # TYPE_OTHER
    "callback": 8,       # TYPE_CALLBACK
    "car": 9,            # TYPE_CAR
    "company_main": 10,  # TYPE_COMPANY_MAIN
    "isdn": 11,          # TYPE_ISDN
    "main": 12,          # TYPE_MAIN
    "other_fax": 13,     # TYPE_OTHER_FAX
    "radio": 14,         # TYPE_RADIO
    "telex": 15,         # TYPE_TELEX
    "tty_tdd": 16,       # TYPE_TTY_TDD
    "work_mobile": 17,   # TYPE_WORK_MOBILE
    "work_pager": 18,    # TYPE_WORK_PAGER
    "assistant": 19,     # TYPE_ASSISTANT
    "mms": 20,           # TYPE_MMS
}
PHONE_LABEL_OF_TYPE: dict[int, str] = {v: k for k, v in PHONE_TYPE.items()}

# --- ContactsContract.CommonDataKinds.*.CONTENT_ITEM_TYPE ----------------------------------------
MIME_NAME = "vnd.android.cursor.item/name"
MIME_PHONE = "vnd.android.cursor.item/phone_v2"
MIME_EMAIL = "vnd.android.cursor.item/email_v2"
MIME_ORG = "vnd.android.cursor.item/organization"
MIME_NOTE = "vnd.android.cursor.item/note"
