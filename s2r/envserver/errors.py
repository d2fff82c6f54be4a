"""The environment server's typed errors, and how they cross the wire.

OpenEnv's WebSocket protocol answers a failed request with ``{"type": "error", "data":
{"message", "code"}}`` and keeps the session open; its codes say only *where* a request failed
(``EXECUTION_ERROR``, ``VALIDATION_ERROR``, ``CAPACITY_REACHED`` …). s2r's errors say *what*
failed — an unknown task, a bad seed, a session that is gone — so a trainer can tell its own
mistake from a lost host. Each error's message starts with ``[s2r:<code>]``; any OpenEnv client
shows it as text, and :class:`~s2r.envserver.client.S2REnv` raises the matching class again.
"""

from __future__ import annotations

import re

from actionmap.errors import InfraError


class EnvServerError(Exception):
    """An environment-server request that was refused. ``code`` names the kind on the wire."""

    code = "error"

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message

    def wire(self) -> str:
        """The message as it travels: ``[s2r:<code>] <message>``."""
        return f"[s2r:{self.code}] {self.message}"

    def __str__(self) -> str:
        return self.wire()


class BadRequest(EnvServerError):
    """A malformed request: an unknown option, a seed out of range, an action without text."""

    code = "bad_request"


class UnknownTask(BadRequest):
    """``reset(task=…)`` named no task template the server knows (the message lists close ids)."""

    code = "unknown_task"


class ResetNeeded(EnvServerError):
    """A step with no running episode: before the first reset, or after the episode ended."""

    code = "reset_needed"


class SessionGone(EnvServerError):
    """The session (or the one ``fork_of`` names) is closed or was never opened on this server.
    A session is never recreated behind a client's back: its state is gone with it."""

    code = "session_gone"


class CapacityFull(EnvServerError):
    """The server holds as many sessions as it may (``--max-sessions``); it stays up and says so."""

    code = "capacity"


class Unauthorized(EnvServerError):
    """The request carried no token, or the wrong one (a server beyond loopback needs one)."""

    code = "unauthorized"


class HostLost(EnvServerError, InfraError):
    """The server stopped answering mid-session (a host lost, a connection dropped). The episode
    in flight ends as infrastructure: it is no result of the policy's."""

    code = "host_lost"


_CLASSES: dict[str, type[EnvServerError]] = {c.code: c for c in (
    EnvServerError, BadRequest, UnknownTask, ResetNeeded, SessionGone, CapacityFull, Unauthorized, HostLost)}
# OpenEnv's own codes, for failures its server catches before s2r sees the request
_OPENENV: dict[str, type[EnvServerError]] = {
    "CAPACITY_REACHED": CapacityFull, "VALIDATION_ERROR": BadRequest, "INVALID_JSON": BadRequest,
    "UNKNOWN_TYPE": BadRequest, "FACTORY_ERROR": EnvServerError, "SESSION_ERROR": EnvServerError,
    "EXECUTION_ERROR": EnvServerError,
}
_WIRE = re.compile(r"\[s2r:([a-z_]+)\]\s*(.*)", re.S)


def from_wire(data: dict[str, object]) -> EnvServerError:
    """The typed error an OpenEnv error response carries (its ``data``)."""
    message = str(data.get("message", "unknown error"))
    m = _WIRE.search(message)
    if m:
        return _CLASSES.get(m.group(1), EnvServerError)(m.group(2))
    code = str(data.get("code", ""))
    cls = _OPENENV.get(code.upper() if code else "", EnvServerError)
    return cls(f"{message} ({code})" if code else message)
