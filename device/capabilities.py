"""What a phone lets the shell user (uid 2000, ``com.android.shell``) do: measured, not assumed.

A stock, unrooted phone refuses much of what a rooted emulator accepts, and the rules differ by
release. Before the first episode s2r probes each rule that decides whether a task's setup can
be reproduced and how the bridge must act, and reports it (``s2r devices``, ``s2r doctor
--device``, a run's ``config.json`` via ``Preflight.capabilities``):

* **SMS writes** — the telephony provider drops an insert from a caller whose ``WRITE_SMS``
  app-op is not ``allow`` (``SmsProvider.insert`` → ``AppOpsManager.noteOp(OP_WRITE_SMS)``;
  the op's default mode is ``MODE_IGNORED``: ``AppOpsManager.sOpDefaultMode``, frameworks/base
  ``core/java/android/app/AppOpsManager.java``). ``appops get com.android.shell WRITE_SMS``
  reads the mode without changing it; the shell may ``appops set`` it (it holds
  ``MANAGE_APP_OPS_MODES``), which is why "grant needed" is a state of its own.
* **SMS reads** — which boxes a query of ``content://sms`` and of each box URI
  (``content://sms/inbox`` …) shows (packages/providers/TelephonyProvider ``SmsProvider.query``).
  Read-only: no probe row is written.
* **Calendar** — a stock phone without an account has no calendar at all; a sync adapter may
  create a ``LOCAL`` one (``CalendarProvider2`` accepts calendar inserts only with
  ``caller_is_syncadapter=true``, packages/providers/CalendarProvider
  ``CalendarProvider2.java``). The probe creates such a calendar, reads it back, deletes it and
  reads again; calendars of other account types (``com.google``) are only read, never written.
* **Call log** — reading needs ``READ_CALL_LOG``, which the shell holds on some releases only
  (``CallLogProvider`` → ``SecurityException``); a write is probed only where a read can prove
  the probe row gone again.
* **Service commands** — each ``cmd`` service prints ``Can't find service: NAME`` where the
  service does not exist (frameworks/native ``cmds/cmd/cmd.cpp``) and ``Unknown command: X``
  where the release lacks the sub-command (frameworks/base ``core/java/android/os/ShellCommand.java``
  ``handleDefaultCommands``); every probe runs a read-only status or help form.
* **Text routes** — which ways of typing exist: an ADB keyboard IME (broadcast, only where one
  is installed), uiautomator2's ``setText`` and clipboard paste, and ``input text`` (ASCII).

Every probe changes nothing it does not put back, and proves it by reading again; anything it
could not prove is listed in ``Capabilities.leftovers``.
"""

from __future__ import annotations

import re
import time
import uuid
from typing import Literal

from pydantic import BaseModel, Field

from device.adbshell import DeviceCommandError, Shell, ShellResult
from device.codecs import CALL_TYPE, SMS_TYPE, SMS_TYPE_QUEUED

__all__ = ["Capabilities", "SmsCapability", "CalendarCapability", "CallLogCapability", "ServiceProbe",
           "TextCapability", "probe_capabilities", "SERVICE_PROBES", "SMS_BOXES"]

#: ``Telephony.TextBasedSmsColumns.MESSAGE_TYPE_*`` → box name (and its URI path), from the codec
#: table; a queued message is its own box here (the world keeps it in the outbox).
SMS_BOXES: dict[int, str] = {**{t: box for box, t in SMS_TYPE.items()}, SMS_TYPE_QUEUED: "queued"}
S2R_CALENDAR_ACCOUNT = "s2r"
_PROBE_CAL_NAME = "s2r-capability-probe"

_REFUSED = re.compile(r"SecurityException|Permission Denial|requires android\.permission|not allowed", re.I)
_MISSING = re.compile(r"Can't find service|Unknown command|Unknown option|No shell command implementation|"
                      r"inaccessible or not found|not found", re.I)
_ERROR = re.compile(r"Exception|^Error", re.M)


class SmsCapability(BaseModel):
    writable: Literal["allowed", "grant_needed", "no", "unknown"] = Field(
        "unknown", description="allowed: WRITE_SMS is allow; grant_needed: `appops set com.android.shell "
                               "WRITE_SMS allow` would allow it (s2r does so only with --grant-appops); "
                               "no: the phone has no way; unknown: appops unreadable.")
    appop_mode: str | None = Field(None, description="The WRITE_SMS mode of com.android.shell as appops prints it.")
    readable_boxes: list[str] = Field(default_factory=list, description="Boxes a query of content://sms shows rows of.")
    box_queries: dict[str, str] = Field(default_factory=dict, description="box → 'rows N' | 'empty' | 'refused'.")
    readable: bool | None = None
    detail: str = ""


class CalendarCapability(BaseModel):
    readable: bool | None = None
    calendars: list[dict[str, str]] = Field(default_factory=list, description="id, account_name, account_type, name.")
    synced: list[str] = Field(default_factory=list, description="Non-LOCAL accounts with a calendar (never written).")
    local_writable: bool | None = Field(None, description="A LOCAL calendar can be created (and removed) through "
                                                          "the sync-adapter URI.")
    s2r_calendar: bool = Field(False, description="s2r's own LOCAL calendar already exists.")
    detail: str = ""


class CallLogCapability(BaseModel):
    readable: bool | None = None
    writable: bool | None = None
    detail: str = ""


class ServiceProbe(BaseModel):
    command: str
    available: bool
    detail: str = ""


class TextCapability(BaseModel):
    adb_ime: str | None = None
    routes: list[str] = Field(default_factory=list, description="Text routes in the order DeviceEnv tries them.")
    u2: bool | None = Field(None, description="uiautomator2's server answered (None: not checked here).")


class Capabilities(BaseModel):
    """What the shell user may do on this phone (see the module docstring for each probe)."""

    sms: SmsCapability = Field(default_factory=SmsCapability)
    calendar: CalendarCapability = Field(default_factory=CalendarCapability)
    call_log: CallLogCapability = Field(default_factory=CallLogCapability)
    services: dict[str, ServiceProbe] = Field(default_factory=dict)
    text: TextCapability = Field(default_factory=TextCapability)
    leftovers: list[str] = Field(default_factory=list, description="Probe changes not proven undone (should be empty).")
    took_ms: float = 0.0

    def summary(self) -> str:
        """One compact line: ``sms:grant cal:local call:r- svc:6/7 text:set_text,paste,ascii``."""
        sms = {"allowed": "w", "grant_needed": "grant", "no": "ro" if self.sms.readable else "no",
               "unknown": "?"}[self.sms.writable]
        if self.calendar.local_writable:
            cal = "local"
        elif self.calendar.readable is False:
            cal = "no"
        else:
            cal = "ro" if self.calendar.calendars else "none"
        if self.calendar.synced:
            cal += "+synced"
        rw = lambda v: {True: "r", False: "-", None: "?"}[v]  # noqa: E731
        call = rw(self.call_log.readable) + {True: "w", False: "-", None: "?"}[self.call_log.writable]
        n_ok = sum(1 for s in self.services.values() if s.available)
        short = {"ime_broadcast": "ime", "u2_set_text": "set_text", "u2_paste": "paste", "input_text": "ascii"}
        text = ",".join(short.get(r, r) for r in self.text.routes) or "?"
        return f"sms:{sms} cal:{cal} call:{call} svc:{n_ok}/{len(self.services)} text:{text}"


#: service → the argv of a read-only status or help form.
SERVICE_PROBES: dict[str, list[str]] = {
    "wifi": ["cmd", "wifi", "status"],
    "bluetooth": ["cmd", "bluetooth_manager"],
    "airplane_mode": ["cmd", "connectivity", "airplane-mode"],
    "dnd": ["cmd", "notification"],
    "night_mode": ["cmd", "uimode", "night"],
    "location": ["cmd", "location", "is-location-enabled"],
    "media_session": ["cmd", "media_session"],
}


def _run(shell: Shell, argv: list[str]) -> ShellResult:
    try:
        return shell.run(argv, timeout=20)
    except DeviceCommandError as e:
        return ShellResult(rc=255, err=str(e))


def _rows(text: str) -> list[dict[str, str]]:
    """``content query`` rows (``Row: N k=v, k=v``) as dicts (values may hold ', ' only at the end)."""
    out = []
    for line in text.splitlines():
        m = re.match(r"Row: \d+ (.*)$", line.strip())
        if not m:
            continue
        row: dict[str, str] = {}
        for part in re.split(r", (?=[A-Za-z_][A-Za-z0-9_]*=)", m.group(1)):
            k, _, v = part.partition("=")
            row[k.strip()] = v
        out.append(row)
    return out


def _query(shell: Shell, uri: str, projection: str, where: str | None = None) -> tuple[list[dict[str, str]] | None, str]:
    """Rows of a ``content query``, or None when the provider refused or failed (with the text)."""
    argv = ["content", "query", "--uri", uri, "--projection", projection]
    if where:
        argv += ["--where", where]
    r = _run(shell, argv)
    text = r.text.strip()
    if _REFUSED.search(text) or _ERROR.search(text) or r.rc not in (0, None):
        return None, text[:200]
    return _rows(r.out), text[:200]


# ------------------------------------------------------------------ probes
def probe_sms(shell: Shell) -> SmsCapability:
    cap = SmsCapability()
    r = _run(shell, ["appops", "get", "com.android.shell", "WRITE_SMS"])
    text = r.text.strip()
    m = re.search(r"WRITE_SMS: (\w+)", text)
    if m:
        cap.appop_mode = m.group(1)
    elif "No operations" in text:
        cap.appop_mode = "default"  # never set: the op's default mode, MODE_IGNORED
    if cap.appop_mode == "allow":
        cap.writable = "allowed"
    elif cap.appop_mode in ("ignore", "deny", "default", "foreground", "errored"):
        cap.writable = "grant_needed"
        cap.detail = f"WRITE_SMS is {cap.appop_mode} for com.android.shell: inserts are dropped"
    else:
        cap.writable = "unknown"
        cap.detail = f"appops: {text[:120]}"
    rows, why = _query(shell, "content://sms", "_id:type")
    cap.readable = rows is not None
    if rows is None:
        cap.detail = (cap.detail + "; " if cap.detail else "") + f"sms query refused: {why[:100]}"
        return cap
    seen = {int(t) for t in (r.get("type") for r in rows) if t and t.isdigit()}
    cap.readable_boxes = [SMS_BOXES[t] for t in sorted(seen) if t in SMS_BOXES]
    for t, box in SMS_BOXES.items():
        box_rows, _ = _query(shell, f"content://sms/{box}", "_id")
        cap.box_queries[box] = "refused" if box_rows is None else (f"rows {len(box_rows)}" if box_rows else "empty")
    return cap


def _calendars(shell: Shell) -> list[dict[str, str]] | None:
    rows, _ = _query(shell, "content://com.android.calendar/calendars",
                     "_id:account_name:account_type:name:calendar_displayName")
    return rows


def _sync_uri(base: str, account: str) -> str:
    return f"{base}?caller_is_syncadapter=true&account_name={account}&account_type=LOCAL"


def probe_calendar(shell: Shell, *, write_probe: bool = True) -> tuple[CalendarCapability, list[str]]:
    cap, leftovers = CalendarCapability(), []
    before = _calendars(shell)
    cap.readable = before is not None
    if before is None:
        cap.detail = "calendar provider refused the query"
        return cap, leftovers
    cap.calendars = [{k: r.get(k, "") for k in ("_id", "account_name", "account_type", "name")} for r in before]
    cap.synced = sorted({f"{r.get('account_type')}:{r.get('account_name')}" for r in before
                         if r.get("account_type") not in ("LOCAL", None, "", "NULL")})
    cap.s2r_calendar = any(r.get("account_type") == "LOCAL" and r.get("account_name") == S2R_CALENDAR_ACCOUNT
                           for r in before)
    if not write_probe:
        cap.detail = "read only"
        return cap, leftovers
    base = "content://com.android.calendar/calendars"
    name = f"{_PROBE_CAL_NAME}-{uuid.uuid4().hex[:8]}"
    ins = _run(shell, ["content", "insert", "--uri", _sync_uri(base, S2R_CALENDAR_ACCOUNT),
                       "--bind", f"account_name:s:{S2R_CALENDAR_ACCOUNT}", "--bind", "account_type:s:LOCAL",
                       "--bind", f"name:s:{name}", "--bind", "calendar_displayName:s:s2r probe",
                       "--bind", "calendar_access_level:i:700", "--bind", f"ownerAccount:s:{S2R_CALENDAR_ACCOUNT}",
                       "--bind", "visible:i:0", "--bind", "sync_events:i:1"])
    after = _calendars(shell) or []
    made = [r for r in after if r.get("name") == name]
    if not made:
        cap.local_writable = False
        cap.detail = f"LOCAL calendar insert did not take: {ins.text.strip()[:120]}" if ins.text.strip() else \
            "LOCAL calendar insert did not take"
        return cap, leftovers
    for r in made:
        if not str(r.get("_id") or "").isdigit():
            continue
        shell.own_row(f"{base}/{r.get('_id')}")  # the probe's own calendar (its unique name): s2r made it
        _run(shell, ["content", "delete", "--uri", _sync_uri(f"{base}/{r.get('_id')}", S2R_CALENDAR_ACCOUNT)])
    again = _calendars(shell) or []
    if any(r.get("name") == name for r in again):
        leftovers.append(f"calendar probe {name} (ids {[r.get('_id') for r in made]}) could not be deleted")
        cap.local_writable = True
        cap.detail = "LOCAL calendar created but not removable"
        return cap, leftovers
    key = lambda rows: sorted(tuple(sorted(r.items())) for r in rows)  # noqa: E731
    if key(again) != key(before):
        leftovers.append("calendar list differs from before the probe")
    cap.local_writable = True
    cap.detail = "LOCAL calendar created, read back, deleted, proven gone"
    return cap, leftovers


def probe_call_log(shell: Shell, *, write_probe: bool = True) -> tuple[CallLogCapability, list[str]]:
    cap, leftovers = CallLogCapability(), []
    uri = "content://call_log/calls"
    rows, why = _query(shell, uri, "_id")
    cap.readable = rows is not None
    if rows is None:
        cap.detail = f"read refused: {why[:120]}"
        # a write cannot be proven undone without a read: not probed
        cap.writable = None
        return cap, leftovers
    if not write_probe:
        return cap, leftovers
    mark = f"s2r-probe-{uuid.uuid4().hex[:8]}"
    ins = _run(shell, ["content", "insert", "--uri", uri, "--bind", "number:s:0000", "--bind", f"name:s:{mark}",
                       "--bind", f"type:i:{CALL_TYPE['incoming']}", "--bind", "date:l:0", "--bind", "duration:i:0",
                       "--bind", "new:i:0"])
    where = f"name='{mark}'"
    got, _ = _query(shell, uri, "_id:name", where)
    if _REFUSED.search(ins.text) or not got:
        cap.writable = False
        cap.detail = f"write refused: {ins.text.strip()[:120]}" if ins.text.strip() else "write did not take"
        return cap, leftovers
    cap.writable = True
    _run(shell, ["content", "delete", "--uri", uri, "--where", where])
    still, _ = _query(shell, uri, "_id:name", where)
    if still is None or still:
        leftovers.append(f"call log probe row {mark} could not be deleted")
    after, _ = _query(shell, uri, "_id")
    if after is not None and sorted(r.get("_id", "") for r in after) != sorted(r.get("_id", "") for r in rows):
        leftovers.append("call log differs from before the probe")
    cap.detail = "probe row written, read back, deleted, proven gone"
    return cap, leftovers


def probe_services(shell: Shell) -> dict[str, ServiceProbe]:
    out: dict[str, ServiceProbe] = {}
    for name, argv in SERVICE_PROBES.items():
        r = _run(shell, argv)
        text = r.text.strip()
        if name == "bluetooth" and ("Can't find service" in text or "No shell command implementation" in text):
            # before Android 13 the service has no shell command: `svc bluetooth` does it
            r2 = _run(shell, ["svc", "bluetooth"])
            if "enable" in r2.text and not _MISSING.search(r2.text):
                out[name] = ServiceProbe(command="svc bluetooth", available=True, detail=r2.text.strip()[:80])
                continue
        sub = argv[2] if len(argv) > 2 else None
        gone = "Can't find service" in text or "No shell command implementation" in text or \
            "inaccessible or not found" in text or (sub is not None and f"Unknown command: {sub}" in text)
        ok = not gone and not _REFUSED.search(text) and "Exception" not in text
        out[name] = ServiceProbe(command=" ".join(argv), available=ok, detail=text.splitlines()[0][:80] if text else "")
    return out


def text_routes(*, adb_ime: str | None, ime_current: str | None, u2: bool | None) -> TextCapability:
    """The text routes in DeviceEnv's order: the ADB IME where installed, then uiautomator2's
    ``setText`` and clipboard paste (where its server can run), then ``input text`` (ASCII only)."""
    routes = ["ime_broadcast"] if adb_ime else []
    if u2 is not False:
        routes += ["u2_set_text", "u2_paste"]
    routes.append("input_text")
    return TextCapability(adb_ime=adb_ime, routes=routes, u2=u2)


def probe_capabilities(shell: Shell, *, adb_ime: str | None = None, ime_current: str | None = None,
                       u2: bool | None = None, write_probes: bool = True) -> Capabilities:
    """All probes (about 20 shell commands). ``write_probes=False`` reads only."""
    t0 = time.perf_counter()
    caps = Capabilities()
    caps.sms = probe_sms(shell)
    caps.calendar, left = probe_calendar(shell, write_probe=write_probes)
    caps.leftovers += left
    caps.call_log, left = probe_call_log(shell, write_probe=write_probes)
    caps.leftovers += left
    caps.services = probe_services(shell)
    caps.text = text_routes(adb_ime=adb_ime, ime_current=ime_current, u2=u2)
    caps.took_ms = (time.perf_counter() - t0) * 1e3
    return caps
