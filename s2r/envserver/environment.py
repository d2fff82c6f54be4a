"""The OpenEnv ``Environment`` one connection talks to: a handle on one session of the store.

OpenEnv's server makes one environment per WebSocket connection (``/ws``) and routes that
connection's ``reset`` / ``step`` / ``state`` / ``close`` messages to it. Here each such
environment owns one :class:`~s2r.envserver.session.Session` of the shared
:class:`~s2r.envserver.store.SessionStore` at a time: ``reset`` opens (or reopens) it, the
connection's end closes it, and everything runs as coroutines on the server's loop (the
simulator's steps on the page pool's loop) — no thread per session.
"""

from __future__ import annotations

from typing import Any

from openenv.core.env_server.interfaces import Environment
from openenv.core.env_server.types import EnvironmentMetadata
from pydantic import ValidationError

from .errors import BadRequest, EnvServerError, ResetNeeded
from .protocol import ResetOptions, S2RAction, S2RObservation, S2RState
from .session import Session
from .store import SessionStore


class S2REnvironment(Environment[S2RAction, S2RObservation, S2RState]):
    """One connection's phone session (see the module docstring)."""

    SUPPORTS_CONCURRENT_SESSIONS = True
    # OpenEnv runs only this class's constructor and close() on its executor; a single shared
    # thread for them keeps a thousand idle connections from holding a thousand threads
    REQUIRES_SINGLE_THREAD_EXECUTOR = True

    def __init__(self, store: SessionStore):
        super().__init__()
        self.store = store
        self.session: Session | None = None

    async def reset_async(self, seed: int | None = None, episode_id: str | None = None,
                          **options: Any) -> S2RObservation:
        given = dict(options)
        if seed is not None:
            given["seed"] = seed
        if episode_id is not None:
            given["episode_id"] = episode_id
        try:
            opts = ResetOptions(**given)
        except ValidationError as e:
            raise BadRequest(_why(e)) from e
        if self.session is None or self.session.closed:
            self.session = self.store.open()
        return await self.store.reset(self.session, opts)

    async def step_async(self, action: S2RAction, timeout_s: float | None = None, **kwargs: Any) -> S2RObservation:
        if self.session is None:
            raise ResetNeeded("no session yet: call reset first")
        if not isinstance(action, S2RAction):
            raise BadRequest(f"the action must be {{'text': <the policy's output>}}, got {type(action).__name__}")
        return await self.store.step(self.session, action.text)

    def reset(self, seed: int | None = None, episode_id: str | None = None, **kwargs: Any) -> S2RObservation:
        raise EnvServerError("this environment is asynchronous: the server calls reset_async")

    def step(self, action: S2RAction, timeout_s: float | None = None, **kwargs: Any) -> S2RObservation:
        raise EnvServerError("this environment is asynchronous: the server calls step_async")

    @property
    def state(self) -> S2RState:
        if self.session is None:
            return S2RState()
        return self.session.state()

    def close(self) -> None:
        """The connection ended (closed or vanished): the session and its state go with it."""
        if self.session is not None:
            self.store.close(self.session.id)
            self.session = None

    def get_metadata(self) -> EnvironmentMetadata:
        return EnvironmentMetadata(
            name="s2r-sim", version="1",
            description="Simulated Android phone apps; reset by task id and seed, by a saved phone "
                        "or by forking a session; step with the policy's raw text; reward from the judge.")


def _why(e: ValidationError) -> str:
    parts = []
    for err in e.errors():
        where = ".".join(str(x) for x in err.get("loc", ())) or "request"
        parts.append(f"{where}: {err.get('msg')}")
    return "bad reset options: " + "; ".join(parts)
