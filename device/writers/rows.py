"""Provider rows through ``content``: inserts with bindings escaped by the phone's rule, the row
just inserted found again, deletes by ``_id`` verified by querying again.

Shared by the provider writers (:mod:`device.writers.sms`, ``contacts``, ``calendar``,
``calllog``) and the coordinator's undo of the episode's own rows.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from device.adbshell import Shell
from device.parsers import ParseError
from device.readers import content_query, has_tag
from device.writers.journal import CreatedRow, Journal, SetupError, TeardownReport

__all__ = ["ESCAPED_BINDINGS_SDK", "SdkSource", "content_failure", "content_insert", "insert_tagged", "max_id",
           "new_row", "delete_rows_verified", "delete_marked", "delete_journalled"]

#: From this API level (Android 11) ``content`` splits a binding on every unescaped ``:``.
ESCAPED_BINDINGS_SDK = 30
SdkSource = int | Callable[[], int | None] | None
"""The phone's API level, or a function that finds it (asked only when a value needs it), or unknown."""


def _escape_binding(text: str, sdk: int | None) -> str:
    """A column or value as ``content --bind`` of API ``sdk`` reads it back literally.

    frameworks/base cmds/content/src/com/android/commands/content/Content.java: from Android 11
    ``parseBindValue`` splits the whole binding with ``splitWithEscaping(argument, ':')`` and
    wants exactly three parts — ``\\`` makes the next character literal and is removed — so
    ``\\`` and ``:`` are escaped. Up to Android 10 the value is ``argument.substring(
    secondColonIndex + 1)``, taken as it is: nothing to escape (columns never hold a colon). An
    unknown level is taken as 11+ (a Q phone would then keep the backslashes, and the row
    read back after the insert would not match what was written)."""
    if sdk is not None and sdk < ESCAPED_BINDINGS_SDK:
        return text
    return text.replace("\\", "\\\\").replace(":", "\\:")


def _bind(col: str, value: Any, sdk: int | None = None) -> list[str]:
    """One ``--bind col:type:value`` (one argv word: quoting makes any text safe; the colons and
    backslashes of the text are escaped by the phone's rule, :func:`_escape_binding`)."""
    c = _escape_binding(col, sdk)
    if value is None:
        return ["--bind", f"{c}:n:"]
    if isinstance(value, bool):
        return ["--bind", f"{c}:i:{int(value)}"]
    if isinstance(value, int):
        return ["--bind", f"{c}:{'l' if abs(value) > 2**31 - 1 else 'i'}:{value}"]
    return ["--bind", f"{c}:s:{_escape_binding(str(value), sdk)}"]


#: What a failed ``content`` prints, whatever its exit status (``Content.main`` returns normally,
#: so the tool exits 0 after a bad binding and after a provider's exception alike).
_USAGE_ERROR = re.compile(r"^\[ERROR\] .*$", re.M)  # Parser.parseCommand: USAGE, then "[ERROR] " + message
_USAGE_TEXT = re.compile(r"^usage: adb shell content ", re.M)
_PROVIDER_FAILURE = re.compile(r"^Error while accessing provider:.*$", re.M)  # Command.execute's catch
_EXCEPTION_LINE = re.compile(r"^\s*(?:Caused by: )?(?:[A-Za-z_$][\w$]*\.)+[A-Za-z_$][\w$]*(?:Exception|Error)\b.*$",
                             re.M)


def content_failure(r: Any) -> str | None:
    """The phone's words when a ``content`` answer (a :class:`~device.adbshell.ShellResult`) is a
    failure — an ``[ERROR]`` line, the usage text, ``Error while accessing provider`` or an
    exception line, or a non-zero exit status — else None. ``content`` prints nothing when an
    insert, update or delete succeeds."""
    text = r.text or ""
    m = _USAGE_ERROR.search(text)
    if m:
        return m.group(0).strip()
    if _USAGE_TEXT.search(text):
        return "content printed its usage: " + text.strip()[-200:]
    head = _PROVIDER_FAILURE.search(text)
    exc = _EXCEPTION_LINE.search(text)
    if head or exc:
        return " ".join(x.group(0).strip() for x in (head, exc) if x)[:400]
    if r.rc not in (0, None) or re.search(r"(Permission Denial|Unknown URI)", text):
        return text.strip()[:300] or f"exit status {r.rc}"
    return None


def content_insert(shell: Shell, uri: str, values: dict[str, Any], sdk: SdkSource = None) -> None:
    """``content insert`` one row; :class:`SetupError` with the phone's words when it did not take.
    ``sdk`` decides how the bindings are escaped; a function is asked only when a value has a
    ``:`` or ``\\`` (the rules of all versions agree on every other text)."""
    if callable(sdk):
        needs = any(isinstance(v, str) and (":" in v or "\\" in v) for v in (*values, *values.values()))
        sdk = sdk() if needs else None
    argv = ["content", "insert", "--uri", uri]
    for k, v in values.items():
        argv += _bind(k, v, sdk)
    r = shell.run(argv)
    why = content_failure(r)
    if why is not None:
        raise SetupError(f"content insert {uri} failed: {why}")


def insert_tagged(shell: Shell, uri: str, values: dict[str, Any], tag_col: str, mark: str,
                   sdk: SdkSource = None) -> None:
    """Insert with the tag column; a provider without that column gets the row untagged
    (the journal then identifies it by id and content)."""
    try:
        content_insert(shell, uri, {**values, tag_col: mark}, sdk)
    except SetupError as e:
        if "no column named" not in str(e) and "no such column" not in str(e):
            raise
        content_insert(shell, uri, values, sdk)


def max_id(shell: Shell, uri: str) -> int:
    try:
        rows = content_query(shell, uri, ("_id",))
    except ParseError:
        return 0
    return max((int(r["_id"]) for r in rows if r.get("_id") and str(r["_id"]).isdigit()), default=0)


_WHY_LEFT = {
    "messages": "the telephony provider ignored the delete (the shell's WRITE_SMS app-op is not allow; "
                "--grant-appops lets s2r remove texts on a dedicated test phone)",
    "episode messages": "the telephony provider ignored the delete (the shell's WRITE_SMS app-op is not allow; "
                        "--grant-appops lets s2r remove texts on a dedicated test phone)",
}


def delete_rows_verified(shell: Shell, kind: str, uri: str, ids: Sequence[int], rep: TeardownReport,
                         *, delete_uri: str | None = None) -> int:
    """Delete rows by ``_id`` and query again: only rows proven gone count as removed; the rest
    go to ``rep.left`` with the reason. A row the provider only marked ``deleted=1`` (an event
    of a synced calendar, removed at the next sync) counts as gone. Returns how many are gone."""
    ids = sorted({int(i) for i in ids})
    if not ids:
        return 0
    where = "_id IN (" + ",".join(map(str, ids)) + ")"
    # one delete for all of them: `content` starts a Java runtime per call on a phone
    shell.run(["content", "delete", "--uri", delete_uri or uri, "--where", where])
    cols: tuple[str, ...] = ("_id", "deleted") if uri.startswith("content://com.android.calendar") else ("_id",)
    try:
        still = [r for r in content_query(shell, uri, cols, where=where) if (r.get("deleted") or "0") != "1"]
    except ParseError as e:
        rep.left.append(f"{kind}: could not check the deletes of {len(ids)} row(s) ({e})"[:300])
        return 0
    left = sorted(int(r["_id"]) for r in still if str(r.get("_id") or "").isdigit())
    gone = len(ids) - len(left)
    if gone:
        rep.removed[kind] = rep.removed.get(kind, 0) + gone
    if left:
        rep.left.append(f"{kind} {', '.join(map(str, left))} still on the phone after delete: "
                        + _WHY_LEFT.get(kind, "the provider did not delete it"))
    return gone



def new_row(shell: Shell, kind: str, uri: str, before: int, j: Journal, match: dict[str, str],
            tag_col: str | None) -> CreatedRow:
    """Find the row just inserted (``_id`` > before, matching ``match``) and journal it."""
    cols = ("_id", *match.keys(), *((tag_col,) if tag_col else ()))
    try:
        rows = content_query(shell, uri, tuple(dict.fromkeys(cols)))
    except ParseError:
        rows = content_query(shell, uri, tuple(dict.fromkeys(("_id", *match.keys()))))
        tag_col = None
    mine = [r for r in rows if str(r.get("_id") or "").isdigit() and int(r["_id"] or 0) > before
            and all((r.get(k) or "") == v for k, v in match.items())]
    if not mine:
        raise SetupError(f"{kind}: the inserted row did not appear in {uri} (is writing allowed on this phone?)")
    r = max(mine, key=lambda r: int(r["_id"] or 0))
    tagged = bool(tag_col) and has_tag(r.get(tag_col) or "", j.tag)
    row = CreatedRow(kind=kind, uri=uri, id=str(r["_id"]), content=match, tagged=tagged)
    j.rows.append(row)
    return row


def delete_marked(shell: Shell, kind: str, uri: str, col: str, tag: str, rep: TeardownReport) -> None:
    """Delete every row of ``uri`` whose ``col`` carries the run tag ``tag`` (verified)."""
    try:
        rows = content_query(shell, uri, ("_id", col))
    except ParseError:
        return
    ids = [int(str(r["_id"])) for r in rows if has_tag(r.get(col) or "", tag) and str(r.get("_id") or "").isdigit()]
    delete_rows_verified(shell, kind, uri, ids, rep)


def delete_journalled(shell: Shell, row: CreatedRow, rep: TeardownReport) -> None:
    """A row whose tag did not round-trip: delete its id only if it still holds what we wrote."""
    cols = ("_id", *row.content.keys())
    try:
        rows = content_query(shell, row.uri, cols, where=f"_id={int(row.id)}")
    except (ParseError, ValueError):
        return
    if not rows:
        return
    if any((rows[0].get(k) or "") != v for k, v in row.content.items()):
        rep.left.append(f"{row.kind} {row.id} changed since setup; left in place")
        return
    delete_rows_verified(shell, row.kind, row.uri, [int(row.id)], rep)
