"""App-op grants for the shell user: lifted only with consent, journalled, restored and proven.

On a stock phone the telephony provider drops every SMS write whose caller's ``WRITE_SMS``
app-op is not ``allow``; the op's default mode is ``MODE_IGNORED`` for every package but the
default SMS app (``AppOpsManager.sOpDefaultMode``, frameworks/base
``core/java/android/app/AppOpsManager.java``; the check is ``SmsProvider.insert`` →
``AppOpsManager.noteOp(OP_WRITE_SMS)``, packages/providers/TelephonyProvider
``src/com/android/providers/telephony/SmsProvider.java``). The shell holds
``MANAGE_APP_OPS_MODES`` (frameworks/base ``packages/Shell/AndroidManifest.xml``), so ``appops set
com.android.shell WRITE_SMS allow`` lifts the gate for itself.

s2r does that only when the run says so (``--grant-appops``: dedicated test phones; implied for
s2r's own virtual phones), records the mode it found *before* changing it, and at close sets it
back and reads it again (``appops get``, which is the AppOpsService's own answer, not a key s2r
wrote). A grant left by a crashed run is restored by the next session on that phone.
"""

from __future__ import annotations

from collections.abc import Callable

from pydantic import BaseModel, Field

from device.adbshell import DeviceCommandError, Shell
from device.parsers.services import parse_appops_mode

__all__ = ["AppOpGrant", "appop_mode", "grant_appop", "restore_appop", "effective_mode", "SHELL_PACKAGE"]

SHELL_PACKAGE = "com.android.shell"


class AppOpGrant(BaseModel):
    """One app-op s2r changed: what it was before, so close can put it back."""

    package: str = SHELL_PACKAGE
    op: str
    old: str = Field(description="Mode before s2r changed it, as appops prints it ('default' = never set).")
    new: str = "allow"


def appop_mode(shell: Shell, op: str, package: str = SHELL_PACKAGE) -> str | None:
    """The op's mode as AppOpsService reports it (``allow`` / ``ignore`` / ``default`` …);
    None when ``appops`` did not answer in a recognisable way."""
    try:
        r = shell.run(["appops", "get", package, op], timeout=20)
    except DeviceCommandError:
        return None
    return parse_appops_mode(r.text, op)


def grant_appop(shell: Shell, op: str, package: str = SHELL_PACKAGE,
                on_record: Callable[[AppOpGrant], None] | None = None) -> tuple[AppOpGrant | None, str]:
    """Set ``op`` to ``allow`` for ``package`` and prove it through ``appops get``.

    Returns ``(grant, detail)``: ``grant`` is None when nothing had to change (already allow)
    or when the change did not take (``detail`` says which). ``on_record`` is called with the
    grant *before* the change, so a crash in between still leaves a journal entry."""
    old = appop_mode(shell, op, package)
    if old is None:
        return None, f"appops get {package} {op} gave no mode"
    if old == "allow":
        return None, f"{op} already allow for {package}"
    g = AppOpGrant(package=package, op=op, old=old)
    if on_record is not None:
        on_record(g)
    r = shell.run(["appops", "set", package, op, "allow"], timeout=20)
    now = appop_mode(shell, op, package)
    if now != "allow":
        return None, f"appops set {package} {op} allow did not take (now {now!r}; {r.text.strip()[:120]})"
    return g, f"appops set {package} {op} allow (was {old})"


def restore_appop(shell: Shell, g: AppOpGrant) -> list[str]:
    """Put an op back to the mode it had and read it again; the problems (empty = proven)."""
    target = "default" if g.old in ("default", "") else g.old
    try:
        r = shell.run(["appops", "set", g.package, g.op, target], timeout=20)
    except DeviceCommandError as e:
        return [f"appops {g.package} {g.op}: could not restore {target!r} ({e})"]
    now = appop_mode(shell, g.op, g.package)
    ok = now == target or effective_mode(now, g.op) == effective_mode(target, g.op)
    if not ok:
        return [f"appops {g.package} {g.op}: wanted {target!r}, still {now!r} ({r.text.strip()[:100]})"]
    return []


def effective_mode(mode: str | None, op: str) -> str | None:
    """What the provider does with a mode: ``default`` (never set, or MODE_DEFAULT, which the
    shell's missing permission turns into a refusal) acts as the op's default mode."""
    return _default_of(op) if mode == "default" else mode


def _default_of(op: str) -> str:
    """What ``appops get`` may print for an op reset to its default (builds differ: some print
    the default mode's name instead of ``No operations.``)."""
    return {"WRITE_SMS": "ignore"}.get(op, "default")
