"""Runtime permissions of the apps s2r drives: read at the episode's start, and a first-launch prompt
the policy answered during the episode undone at teardown, so the next episode meets the prompt
again (as in the simulator) and the phone is handed back as it came.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from actionmap.apps import registry
from device.adbshell import DeviceCommandError
from device.parsers import parse_runtime_permissions
from device.writers.journal import Journal, TeardownReport
from device.writers.part import WriterPart

if TYPE_CHECKING:
    from device.writers.writer import DeviceWriter

__all__ = ["PermissionsWriter"]


class PermissionsWriter(WriterPart):
    """The runtime-permissions part of one phone's :class:`~device.writers.DeviceWriter`."""

    def __init__(self, w: DeviceWriter):
        super().__init__(w)
        self._packages: list[str] | None = None  # the apps s2r drives that this phone has
        #: the permissions the last teardown proved (later episodes start from them); None: read again
        self.baseline: dict[str, dict[str, list[Any]]] | None = None

    def now(self) -> dict[str, dict[str, list[Any]]] | None:
        """Runtime permissions of the apps s2r drives that this phone has (``dumpsys package``,
        one batch). None when they cannot be read."""
        try:
            if self._packages is None:
                listed = self.shell.out(["pm", "list", "packages"])
                have = {ln.split(":", 1)[1].strip() for ln in listed.splitlines() if ln.startswith("package:")}
                self._packages = sorted(registry().all_packages() & have)
            argvs = [["dumpsys", "package", p] for p in self._packages]
            out: dict[str, dict[str, list[Any]]] = {}
            for pkg, r in zip(self._packages, self.shell.batch(argvs)):
                perms = parse_runtime_permissions(r.out, pkg)
                if perms:
                    out[pkg] = {k: [g, sorted(f)] for k, (g, f) in perms.items()}
            return out
        except DeviceCommandError:
            return None

    def undo_episode(self, j: Journal, rep: TeardownReport) -> None:
        """Put back every runtime permission of the apps s2r drives as it was when the episode
        started: an "Allow"/"Don't allow" the policy tapped in a first-launch prompt is undone —
        ``pm revoke``/``pm grant`` and ``pm clear-permission-flags``/``set-permission-flags …
        user-set user-fixed`` (the shell holds GRANT/REVOKE_RUNTIME_PERMISSIONS; frameworks/base
        ``packages/Shell/AndroidManifest.xml``) — so the next episode meets the prompt again, as
        in the simulator, and the phone is handed back as it came. Proven by reading again."""
        start = j.permissions_at_start
        if not start:
            return
        now = self.now() or {}
        fixes = 0
        for pkg, perms in start.items():
            for perm, (granted, flags) in perms.items():
                cur = now.get(pkg, {}).get(perm)
                if cur is None or (cur[0] == granted and set(cur[1]) == set(flags)):
                    continue
                if cur[0] != granted:
                    self.shell.run(["pm", "grant" if granted else "revoke", pkg, perm])
                user = {"USER_SET": "user-set", "USER_FIXED": "user-fixed"}
                gone = [user[f] for f in user if f in cur[1] and f not in flags]
                back = [user[f] for f in user if f in flags and f not in cur[1]]
                if gone:
                    self.shell.run(["pm", "clear-permission-flags", pkg, perm, *gone])
                if back:
                    self.shell.run(["pm", "set-permission-flags", pkg, perm, *back])
                fixes += 1
        if not fixes:
            return
        after = self.now() or {}
        still = [f"{pkg} {perm.rsplit('.', 1)[-1]}" for pkg, perms in start.items() for perm, (g, fl) in perms.items()
                 if perm in after.get(pkg, {}) and (after[pkg][perm][0] != g
                                                   or {"USER_SET", "USER_FIXED"} & set(after[pkg][perm][1])
                                                   != {"USER_SET", "USER_FIXED"} & set(fl))]
        if fixes - len(still) > 0:
            rep.restored.append(f"{fixes - len(still)} runtime permission(s) answered during the episode put back")
        if still:
            rep.left.append(f"runtime permission(s) changed during the episode could not be put back: "
                            f"{', '.join(still)}")
        self.baseline = after if not still else None  # re-read at the next episode's start
