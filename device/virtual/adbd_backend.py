"""What the adbd protocol server asks of a phone (:class:`AdbdBackend`), and two plain backends.

Why its own module: :mod:`.adbd` speaks the protocol and delegates everything a phone would
*do* — run shell commands, serve files, answer on device-local ports — to a backend. The
virtual phone's backend is :class:`device.virtual.android.AndroidBackend`; :class:`BaseBackend`
is the shared base, :class:`MinimalBackend` the protocol tests' small shell.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Awaitable, Callable, Mapping, Protocol, runtime_checkable

from .adbd_wire import ConnectionHandler
from .fs import VirtualFS
from .sh_builtins import cmd_cat, cmd_sleep
from .sh_interp import ShellInterpreter
from .sh_io import CommandContext

if TYPE_CHECKING:
    from .adbd_shell import ShellSession

__all__ = ["AdbdBackend", "BaseBackend", "MinimalBackend"]


# ============================================================================ interfaces
@runtime_checkable
class AdbdBackend(Protocol):
    """What the virtual phone must provide to the protocol server.

    Required:

    * ``fs`` – the :class:`~device.virtual.fs.VirtualFS` served by ``sync:`` (push/pull/ls).
    * ``properties()`` – ``ro.product.name`` / ``ro.product.model`` / ``ro.product.device``
      (any ``ro.*`` you like) for the CNXN banner; ``adb devices -l`` prints them.
    * ``run_shell(command, session)`` – run one command line, return the exit status.
      ``command`` is the raw text after ``shell:``/``exec:`` (parse it shell-style; see
      :class:`~device.virtual.sh_interp.ShellInterpreter`).  It may run for as long as it
      likes; when the host closes the stream, ``session.closed`` is set and the task is
      cancelled (the SIGHUP a real process gets), so put cleanup in ``finally``.
    * ``socket_handler(kind, address)`` – the handler for ``tcp:PORT`` (``kind="tcp"``,
      ``address="9008"``) or ``localabstract:NAME`` (``kind="localabstract"``) etc., or
      ``None`` for "connection refused" (the host sees the OPEN fail).

    Optional (looked up with ``getattr``):

    * ``new_shell()`` – a :class:`~device.virtual.sh_interp.ShellInterpreter` for ``adb shell``
      with no command (:func:`~device.virtual.adbd_shell.interactive_shell` keeps one for the
      session); without it each line goes to ``run_shell``.
    * ``run_line(sh, line, session) -> int`` – run one line in that interpreter (to wrap it:
      logging, timing); default ``sh.run_in_session(line, session)``.
    * ``service_handler(service) -> ConnectionHandler | None`` – consulted first for any
      OPEN, to add services (``framebuffer:``, ``reverse:``, ...) without touching adbd.
    """

    fs: VirtualFS

    def properties(self) -> Mapping[str, str]: ...

    async def run_shell(self, command: str, session: "ShellSession") -> int: ...

    def socket_handler(self, kind: str, address: str) -> ConnectionHandler | None: ...



# ============================================================================ backends
class BaseBackend:
    """Convenience base: product properties, a VirtualFS and a socket registry.

    ``register_socket("tcp", 9008, handler)`` makes ``adb forward tcp:X tcp:9008`` and
    adbutils ``create_connection(Network.TCP, 9008)`` reach ``handler(reader, writer)``.
    Registration is thread-safe (a dict assignment), so synchronous code may register
    while a :class:`ThreadedAdbd` serves.
    """

    def __init__(self, *, fs: VirtualFS | None = None, product: str = "s2r_virtual",
                 model: str = "S2R Virtual Phone", device: str = "s2r_virtual",
                 extra_properties: Mapping[str, str] | None = None) -> None:
        self.fs = fs if fs is not None else VirtualFS.android()
        self._props: dict[str, str] = {
            "ro.product.name": product,
            "ro.product.model": model,
            "ro.product.device": device,
        }
        self._props.update(extra_properties or {})
        self._sockets: dict[tuple[str, str], ConnectionHandler] = {}

    def properties(self) -> Mapping[str, str]:
        return dict(self._props)

    def register_socket(self, kind: str, address: int | str, handler: ConnectionHandler) -> None:
        self._sockets[(kind, str(address))] = handler

    def unregister_socket(self, kind: str, address: int | str) -> None:
        self._sockets.pop((kind, str(address)), None)

    def register_tcp(self, port: int, handler: ConnectionHandler) -> None:
        self.register_socket("tcp", port, handler)

    def socket_handler(self, kind: str, address: str) -> ConnectionHandler | None:
        return self._sockets.get((kind, address))

    async def run_shell(self, command: str, session: ShellSession) -> int:
        await session.write_stderr(f"/system/bin/sh: {command.split()[0] if command.split() else command}: "
                                   "inaccessible or not found\n")
        return 127


class MinimalBackend(BaseBackend):
    """The test backend: a mini Android shell (see :mod:`device.virtual.sh_interp`) with
    ``echo``, ``true``, ``false``, ``exit N``, ``cat``, ``sleep``, ``getprop``, ``pwd``,
    ``cd``, ``;``/``&&``/``||``/``|`` and ``$?``; anything else answers like Android:
    ``/system/bin/sh: X: inaccessible or not found`` with status 127.

    ``getprop`` serves :attr:`props` (seeded with Android-13-like values);
    ``extra_commands`` adds or replaces handlers.
    """

    def __init__(self, *, props: Mapping[str, str] | None = None,
                 extra_commands: Mapping[str, Callable[[CommandContext], Awaitable[int]]] | None = None,
                 **kw: Any) -> None:
        super().__init__(**kw)
        self.props: dict[str, str] = {
            "ro.build.version.sdk": "33",
            "ro.build.version.release": "13",
            "ro.product.cpu.abi": "x86_64",
            "ro.serialno": "S2RVIRTUAL0001",
            "ro.product.manufacturer": "s2r",
        }
        self.props.update({k: v for k, v in self._props.items()})
        self.props.update(props or {})
        self.commands: dict[str, Callable[[CommandContext], Awaitable[int]]] = {
            "cat": cmd_cat,
            "sleep": cmd_sleep,
            "getprop": self._getprop,
        }
        self.commands.update(extra_commands or {})

    async def _getprop(self, ctx: CommandContext) -> int:
        if not ctx.args:
            for k in sorted(self.props):
                await ctx.out(f"[{k}]: [{self.props[k]}]\n")
            return 0
        value = self.props.get(ctx.args[0], ctx.args[1] if len(ctx.args) > 1 else "")
        await ctx.out(value + "\n")
        return 0

    def new_shell(self) -> ShellInterpreter:
        """A fresh interpreter, as each ``adb shell`` gets a fresh ``sh`` process."""
        return ShellInterpreter(self.commands, fs=self.fs, glob=self.fs.glob)

    async def run_shell(self, command: str, session: ShellSession) -> int:
        return await self.new_shell().run_in_session(command, session)
