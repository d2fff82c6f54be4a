"""The end-of-run proof: what the phone holds after s2r is done, compared with before it began.

Teardown checks each deletion as it goes; this audit is the independent check over the whole
session. :func:`snapshot` reads, through the same authorities the system uses (the contacts,
telephony and calendar providers, the call log where the shell may read it, the settings
provider, the services' own status commands, ``appops``, shared storage), everything s2r can
touch. :func:`compare` of the snapshot at session start with the one after close gives:

* ``leftovers`` — something s2r created that is still there (a row carrying a run tag, s2r's
  own calendar account, a file starting with s2r's marker);
* ``changed`` — something of the phone's own (present at start) that is gone or different;
* ``added`` — rows without an s2r tag that appeared during the run (what an episode's policy
  wrote through an app and teardown could not remove, or what arrived meanwhile: reported,
  never deleted by the audit);
* ``unreadable`` — what this phone does not let the shell read (so the audit cannot vouch for it).

The audit writes nothing. Alarms and timers have no provider (the Clock UI would have to be
driven), so its snapshots cannot see them; teardown checks them in the Clock app instead, and
what it could not delete (:attr:`device.writers.TeardownReport.leftovers`) or could not read
(``unverified``) is added here by :meth:`PhoneAudit.add_teardown` — so the run's leftover count
and ``phone_audit.json`` carry every alarm s2r or an episode left, not only provider rows.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, Field

from device.adbshell import DeviceCommandError, Shell
from device.codecs import SETTINGS
from device.parsers import ParseError, parse_settings_get
from device.readahead import read_ahead
from device.readers import (SERVICE_STATUS, TAG_INVISIBLE_RE, TAG_RE, URI_CALENDARS, URI_CALLS, URI_CONTACT_DATA,
                            URI_EVENTS, URI_RAW_CONTACTS, URI_SMS, ServiceUnavailable, content_query,
                            read_setting_service)

__all__ = ["PhoneSnapshot", "PhoneAudit", "snapshot", "compare", "AUDIT_SETTINGS"]

#: Provider tables the audit reads: name → (uri, columns, key columns).
_TABLES: dict[str, tuple[str, tuple[str, ...]]] = {
    "raw_contacts": (URI_RAW_CONTACTS, ("_id", "deleted", "starred")),
    "contact_data": (URI_CONTACT_DATA, ("_id", "raw_contact_id", "mimetype", "data1", "data2")),
    "sms": (URI_SMS, ("_id", "address", "body", "type", "read", "subject")),
    "calendars": (URI_CALENDARS, ("_id", "account_name", "account_type", "name")),
    "events": (URI_EVENTS, ("_id", "calendar_id", "title", "dtstart", "description", "deleted")),
    "calls": (URI_CALLS, ("_id", "number", "type", "date", "transcription")),
}
#: Settings keys s2r may change besides the settings fields' own keys: the session's tweaks and IME switch.
_SESSION_KEYS: dict[str, tuple[str, ...]] = {
    "global": ("stay_on_while_plugged_in", "window_animation_scale", "transition_animation_scale",
               "animator_duration_scale"),
    "secure": ("default_input_method", "enabled_input_methods"),
}
#: Settings keys s2r may change (setups — every codec's key —, tweaks, the IME switch), by namespace.
AUDIT_SETTINGS: dict[str, tuple[str, ...]] = {
    ns: tuple(dict.fromkeys([c.key for c in SETTINGS.values() if c.namespace == ns] + list(_SESSION_KEYS.get(ns, ()))))
    for ns in ("global", "system", "secure")}
#: Settings keys that only record a service's state (AudioService writes them late, or not at all
#: on a fresh phone), → the service field that is read instead.
_MIRRORED_BY: dict[str, str] = {f"{c.namespace}/{c.key}": c.field
                                for c in (SETTINGS["ringer_mode"], SETTINGS["media_volume"])}
_FILE_ROOTS = ("/sdcard/Download", "/sdcard/Documents", "/sdcard/DCIM", "/sdcard/Pictures", "/sdcard/Music",
               "/sdcard/Movies")


class PhoneSnapshot(BaseModel):
    serial: str
    taken_at: float = Field(default_factory=time.time)
    tables: dict[str, list[dict[str, Any]]] = Field(default_factory=dict)
    settings: dict[str, str | None] = Field(default_factory=dict, description="'ns/key' → value.")
    services: dict[str, Any] = Field(default_factory=dict, description="Service-reported states.")
    appops: dict[str, str | None] = Field(default_factory=dict)
    files: dict[str, str] = Field(default_factory=dict, description="Paths of files under the shared-storage roots.")
    unreadable: list[str] = Field(default_factory=list)


class PhoneAudit(BaseModel):
    """The comparison of two snapshots (see the module docstring)."""

    serial: str
    leftovers: list[str] = Field(default_factory=list)
    changed: list[str] = Field(default_factory=list)
    added: list[str] = Field(default_factory=list)
    unreadable: list[str] = Field(default_factory=list)
    took_ms: float = 0.0

    @property
    def clean(self) -> bool:
        return not (self.leftovers or self.changed)

    def add_teardown(self, leftovers: Sequence[str], unverified: Sequence[str] = ()) -> "PhoneAudit":
        """Take in what teardown knows and no provider shows: the alarms (and timers) it could not
        delete are leftovers, one entry each; the alarm lists it could not read are not readable."""
        self.leftovers += list(leftovers)
        self.unreadable += [x for x in unverified if x not in self.unreadable]
        return self

    def summary(self) -> str:
        return (f"{self.serial}: {len(self.leftovers)} leftover(s), {len(self.changed)} change(s) to the phone's own "
                f"data, {len(self.added)} untagged addition(s)"
                + (f"; not readable here: {', '.join(self.unreadable)}" if self.unreadable else ""))


def _tagged(row: dict[str, Any]) -> bool:
    return any(isinstance(v, str) and (TAG_RE.search(v) or TAG_INVISIBLE_RE.search(v)) for v in row.values())


def snapshot(shell: Shell, *, restricted_sms: bool = True) -> PhoneSnapshot:
    """Read everything the audit compares (about 30 shell commands; changes nothing).

    ``restricted_sms``: the shell reads SMS through the restricted view (not root), so drafts,
    outbox, failed and queued rows are outside what the audit can vouch for."""
    with read_ahead(shell, "audit"):  # reads only: one shell round trip once learnt
        return _snapshot(shell, restricted_sms)


def _snapshot(shell: Shell, restricted_sms: bool) -> PhoneSnapshot:
    snap = PhoneSnapshot(serial=shell.serial)
    if restricted_sms:
        snap.unreadable.append("SMS drafts/outbox/failed/queued (the shell's restricted view)")
    for name, (uri, cols) in _TABLES.items():
        try:
            snap.tables[name] = content_query(shell, uri, cols)
        except (ParseError, DeviceCommandError) as e:
            try:  # a provider without one of the columns: the id and whatever else it has
                snap.tables[name] = content_query(shell, uri, cols[:2])
            except (ParseError, DeviceCommandError):
                snap.unreadable.append(f"{name} ({str(e)[:80]})")
    for ns, keys in AUDIT_SETTINGS.items():
        for k in keys:
            try:
                snap.settings[f"{ns}/{k}"] = parse_settings_get(shell.out(["settings", "get", ns, k]))
            except DeviceCommandError:
                snap.unreadable.append(f"settings {ns}/{k}")
    for field in SERVICE_STATUS:
        try:
            snap.services[field] = read_setting_service(shell, field)
        except (ServiceUnavailable, ParseError, DeviceCommandError):
            pass  # this release lacks the status command: the settings key above stands in
    from device.appops import appop_mode, effective_mode

    # the mode as the provider applies it ("No operations." and an explicit `default` both ignore)
    snap.appops["com.android.shell/WRITE_SMS"] = effective_mode(appop_mode(shell, "WRITE_SMS"), "WRITE_SMS")
    try:  # paths only: a roots that does not exist prints its error on stderr, the rest still lists
        out = shell.run(["find", *_FILE_ROOTS, "-maxdepth", "3", "-type", "f"], timeout=60).out
    except DeviceCommandError:
        out = ""
        snap.unreadable.append("shared storage")
    for line in out.splitlines():
        path = line.strip()
        if path.startswith("/"):
            snap.files[path] = ""
    return snap


def _rows(snap: PhoneSnapshot, table: str) -> dict[str, dict[str, Any]]:
    return {str(r.get("_id")): r for r in snap.tables.get(table, []) if r.get("_id") is not None}


def _describe(table: str, r: dict[str, Any]) -> str:
    show = {k: v for k, v in r.items() if k != "_id" and v not in (None, "")}
    text = ", ".join(f"{k}={str(v)[:40]!r}" for k, v in list(show.items())[:4])
    return f"{table} {r.get('_id')} ({text})"


def compare(before: PhoneSnapshot, after: PhoneSnapshot, *, s2r_files: set[str] | None = None) -> PhoneAudit:
    """What ``after`` holds that s2r left, and what of ``before`` changed (see the module docstring)."""
    t0 = time.perf_counter()
    audit = PhoneAudit(serial=after.serial, unreadable=sorted(set(before.unreadable) | set(after.unreadable)))
    s2r_cal_ids = {str(r.get("_id")) for r in after.tables.get("calendars", []) if r.get("account_name") == "s2r"}
    for table in _TABLES:
        if table not in before.tables or table not in after.tables:
            continue
        b, a = _rows(before, table), _rows(after, table)
        for rid, row in a.items():
            if table == "events" and (row.get("deleted") or "0") == "1" and rid not in b:
                continue  # an added event deleted as a non-sync-adapter: gone at the next sync
            if rid not in b:
                ours = _tagged(row) or (table == "calendars" and row.get("account_name") == "s2r") or (
                    table == "events" and str(row.get("calendar_id")) in s2r_cal_ids)
                (audit.leftovers if ours else audit.added).append(_describe(table, row))
            elif row != b[rid]:
                diffs = [f"{k}: {b[rid].get(k)!r} → {row.get(k)!r}" for k in row if row.get(k) != b[rid].get(k)]
                audit.changed.append(f"{table} {rid}: " + "; ".join(diffs)[:200])
        for rid, row in b.items():
            if rid not in a and not (_tagged(row) or (table == "calendars" and row.get("account_name") == "s2r")):
                audit.changed.append(f"{_describe(table, row)} is gone")  # (s2r's own, left by a crash: cleaned)
    for k, v in before.settings.items():
        # a key that is only AudioService's record of a state read from the service itself: the
        # service is the authority (it writes the key late, under the output device's name, and
        # may create it where a fresh phone has none), so the key alone is no change of the phone's
        if _MIRRORED_BY.get(k) in before.services and _MIRRORED_BY[k] in after.services:
            continue
        if after.settings.get(k, v) != v:
            audit.changed.append(f"setting {k}: {v!r} → {after.settings.get(k)!r}")
    for k, v in before.services.items():
        if k in after.services and after.services[k] != v:
            audit.changed.append(f"service state {k}: {v!r} → {after.services[k]!r}")
    for k, v in before.appops.items():
        if after.appops.get(k, v) != v:
            audit.changed.append(f"app-op {k}: {v!r} → {after.appops.get(k)!r}")
    for path in after.files:
        if path not in before.files:
            ours = path in (s2r_files or set())
            (audit.leftovers if ours else audit.added).append(f"file {path}")
    for path in before.files:
        if path not in after.files:
            audit.changed.append(f"file {path} is gone")
    audit.took_ms = (time.perf_counter() - t0) * 1e3
    return audit
