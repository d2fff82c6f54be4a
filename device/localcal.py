"""s2r's own LOCAL calendar: the only calendar a device setup ever writes events into.

A stock phone without an account has no calendar at all, so an event insert has nowhere to go;
a phone signed in to Google has a ``com.google`` calendar that syncs to the person's cloud and
must never be written. CalendarProvider2 lets a *sync adapter* create a calendar of account
type ``LOCAL`` (``caller_is_syncadapter=true&account_name=…&account_type=LOCAL`` on the URI;
without it the provider throws ``UnsupportedOperationException``: packages/providers/
CalendarProvider ``src/com/android/providers/calendar/CalendarProvider2.java``,
``insertInTransaction`` → ``CALENDARS``). s2r creates one such calendar per session, named with
the session's tag, hosts every setup event in it, and deletes it at close — deleting a calendar
deletes its events (``CalendarProvider2.deleteMatchingCalendars`` → ``Events`` of that
``calendar_id``) — then queries again to prove both are gone. A calendar left by a crashed
session is found by its account name and removed the same way.
"""

from __future__ import annotations

import re

from device.adbshell import Shell
from device.parsers import ParseError
from device.readers import URI_CALENDARS, URI_EVENTS, content_query

__all__ = ["S2R_ACCOUNT", "calendar_sync_uri", "find_s2r_calendars", "create_local_calendar",
           "remove_local_calendar"]

S2R_ACCOUNT = "s2r"
"""account_name of every calendar s2r creates (account_type LOCAL): nothing else uses it."""
_COLS = ("_id", "account_name", "account_type", "name", "calendar_displayName")


def calendar_sync_uri(base: str, account: str = S2R_ACCOUNT) -> str:
    """``base`` as a LOCAL sync adapter of ``account`` (the only caller allowed to add calendars)."""
    return f"{base}?caller_is_syncadapter=true&account_name={account}&account_type=LOCAL"


def find_s2r_calendars(shell: Shell) -> list[dict[str, str | None]]:
    """Every calendar s2r created on this phone (LOCAL, account ``s2r``), this session's or not."""
    try:
        rows = content_query(shell, URI_CALENDARS, _COLS)
    except ParseError:
        return []
    return [r for r in rows if r.get("account_type") == "LOCAL" and r.get("account_name") == S2R_ACCOUNT]


def create_local_calendar(shell: Shell, tag: str) -> tuple[str | None, str]:
    """Create s2r's LOCAL calendar for session ``tag``; ``(id, detail)``, id None if it did not take."""
    name = f"s2r-{re.sub(r'[^A-Za-z0-9-]', '', tag)}"
    r = shell.run(["content", "insert", "--uri", calendar_sync_uri(URI_CALENDARS),
                   "--bind", f"account_name:s:{S2R_ACCOUNT}", "--bind", "account_type:s:LOCAL",
                   "--bind", f"name:s:{name}", "--bind", "calendar_displayName:s:s2r test calendar",
                   "--bind", "calendar_access_level:i:700", "--bind", f"ownerAccount:s:{S2R_ACCOUNT}",
                   "--bind", "visible:i:1", "--bind", "sync_events:i:1", "--bind", "calendar_color:i:-14069085"])
    mine = [c for c in find_s2r_calendars(shell) if c.get("name") == name]
    if not mine:
        return None, f"LOCAL calendar insert did not take: {r.text.strip()[:160] or 'no row'}"
    if str(mine[0]["_id"]).isdigit():  # s2r made it: its row URI may be deleted
        shell.own_row(f"{URI_CALENDARS}/{mine[0]['_id']}")
    return str(mine[0]["_id"]), f"created LOCAL calendar {name} (id {mine[0]['_id']})"


def remove_local_calendar(shell: Shell, cal_id: str) -> list[str]:
    """Delete one s2r calendar (and with it its events) and prove both gone; the problems."""
    if not str(cal_id).isdigit():
        return [f"calendar id {cal_id!r} is not an id"]
    cid = int(cal_id)
    if not any(c.get("_id") == str(cid) for c in find_s2r_calendars(shell)):
        return []  # already gone (or never ours: only s2r's own account is ever deleted)
    # a journalled id (or one left by a crash) that is, on the phone, a calendar of s2r's own
    # account — which nothing else uses: s2r made it, so its row URI may be deleted
    shell.own_row(f"{URI_CALENDARS}/{cid}")
    shell.run(["content", "delete", "--uri", calendar_sync_uri(f"{URI_CALENDARS}/{cid}")])
    problems = []
    if any(c.get("_id") == str(cid) for c in find_s2r_calendars(shell)):
        problems.append(f"s2r calendar {cid} is still on the phone after delete")
    try:
        left = content_query(shell, URI_EVENTS, ("_id", "calendar_id"), where=f"calendar_id={cid}")
    except ParseError:
        left = []
    for ev in left:  # a provider that does not cascade: remove them as the calendar's sync adapter
        if str(ev.get("_id") or "").isdigit():
            shell.run(["content", "delete", "--uri", calendar_sync_uri(URI_EVENTS), "--where", f"_id={int(ev['_id'])}"])
    if left:
        try:
            still = content_query(shell, URI_EVENTS, ("_id",), where=f"calendar_id={cid}")
        except ParseError:
            still = []
        if still:
            problems.append(f"{len(still)} event(s) of s2r calendar {cid} could not be deleted")
    return problems
