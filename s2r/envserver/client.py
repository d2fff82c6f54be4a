"""Clients of ``s2r env serve``: one session (:class:`S2REnv`) and sessions spread over many
servers (:class:`SessionSpread`).

:class:`S2REnv` is OpenEnv's own ``EnvClient`` (WebSocket, one session per connection) with
s2r's types, a token, and two rules a trainer can rely on:

* a refused request raises the typed error the server meant (:mod:`.errors`), not a bare
  ``RuntimeError``;
* a connection that drops mid-session raises :class:`~.errors.HostLost` (an ``InfraError``: the
  episode in flight ends as infrastructure) and stays dropped — OpenEnv's client would quietly
  reconnect and get a *new* session, silently recreating state the server no longer has.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from typing import Any

from openenv.core.client_types import StepResult
from openenv.core.env_client import EnvClient

from .errors import EnvServerError, HostLost, SessionGone, from_wire
from .protocol import S2RAction, S2RObservation, S2RState


class S2REnv(EnvClient[S2RAction, S2RObservation, S2RState]):
    """One phone session on an s2r environment server: ``await reset(task=…, seed=…)``, ``await
    step(S2RAction(text=…))`` (or :meth:`step_text`), ``await state()``, ``await close()``."""

    def __init__(self, base_url: str, token: str | None = None, *, message_timeout_s: float = 120.0,
                 **kwargs: Any):
        super().__init__(base_url, message_timeout_s=message_timeout_s, **kwargs)
        self.base_url = base_url
        self.token = token
        self._opened = False
        self._closed = False
        self.session_id: str | None = None

    async def connect(self) -> "S2REnv":
        from websockets.asyncio.client import connect as ws_connect

        if self._ws is not None:
            return self
        if self._closed:
            raise SessionGone("this client was closed; open a new S2REnv for a new session")
        if self._opened:
            raise HostLost(f"the connection to {self.base_url} was lost; the session is gone with it")
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else None
        try:
            self._ws = await ws_connect(self._ws_url, open_timeout=self._connect_timeout,
                                        max_size=self._max_message_size, additional_headers=headers,
                                        proxy=None)
        except Exception as e:  # noqa: BLE001
            if "403" in str(e) or "401" in str(e):
                from .errors import Unauthorized

                raise Unauthorized(f"{self.base_url} refused the token: {e}") from e
            raise ConnectionError(f"could not connect to {self._ws_url}: {e}") from e
        self._opened = True
        return self

    async def _send_and_receive(self, message: dict[str, Any]) -> dict[str, Any]:
        try:
            await self._send(message)
            response = await self._receive()
        except EnvServerError:
            raise
        except (OSError, asyncio.TimeoutError, ConnectionError, EOFError) as e:
            await self._drop()
            raise HostLost(f"{self.base_url} stopped answering mid-session: {type(e).__name__}: {e}") from e
        except Exception as e:  # websockets' ConnectionClosed and kin
            if not type(e).__module__.startswith("websockets"):
                raise
            refusal = await self._last_words()
            await self._drop()
            if refusal is not None:  # the server said why before it closed (capacity: at the handshake)
                self._opened = False
                raise refusal from e
            raise HostLost(f"{self.base_url} closed the session: {e}") from e
        if response.get("type") == "error":
            err = from_wire(response.get("data", {}))
            if err.code == "capacity":  # the server refused the session and closed the connection
                await self._drop()
                self._opened = False
            raise err
        return response

    async def _last_words(self) -> EnvServerError | None:
        """An error the server sent just before it closed the connection, if one is queued."""
        if self._ws is None:
            return None
        try:
            raw = await asyncio.wait_for(self._ws.recv(), timeout=1.0)
            msg = json.loads(raw)
        except Exception:  # noqa: BLE001 - nothing was left to read
            return None
        return from_wire(msg.get("data", {})) if msg.get("type") == "error" else None

    async def _drop(self) -> None:
        ws, self._ws = self._ws, None
        if ws is not None:
            try:
                await ws.close()
            except Exception:  # noqa: BLE001 - it is already gone
                pass

    async def close(self) -> None:
        self._closed = True
        await super().close()

    # --- OpenEnv's hooks ----------------------------------------------------------------------
    def _step_payload(self, action: S2RAction) -> dict[str, Any]:
        return action.model_dump()

    def _parse_result(self, payload: dict[str, Any]) -> StepResult[S2RObservation]:
        obs = S2RObservation(**payload.get("observation", {}), reward=payload.get("reward"),
                             done=bool(payload.get("done", False)))
        self.session_id = obs.session_id
        return StepResult(observation=obs, reward=payload.get("reward"), done=bool(payload.get("done", False)))

    def _parse_state(self, payload: dict[str, Any]) -> S2RState:
        return S2RState(**payload)

    # --- conveniences -------------------------------------------------------------------------
    async def step_text(self, text: str) -> StepResult[S2RObservation]:
        """Step with the policy's raw output."""
        return await self.step(S2RAction(text=text))

    async def fork(self) -> tuple["S2REnv", StepResult[S2RObservation]]:
        """A new session on the same server, an exact copy of this one (a GRPO group member)."""
        if self.session_id is None:
            raise SessionGone("reset this session before forking it")
        twin = S2REnv(self.base_url, self.token, message_timeout_s=self._message_timeout)
        try:
            first = await twin.reset(fork_of=self.session_id)
        except BaseException:
            await twin.close()
            raise
        return twin, first


class SessionSpread:
    """Sessions spread over several servers (the hosts of a cluster): each new session goes to
    the server with the fewest this client has open; a group's forks stay on their source's
    server (a fork copies state that lives there).

    ``servers``: URLs, or ``(url, token)`` pairs where each server has its own token; ``token``
    is for the plain URLs."""

    def __init__(self, servers: Sequence[str | tuple[str, str | None]], token: str | None = None):
        if not servers:
            raise ValueError("no servers to spread sessions over")
        self.tokens: dict[str, str | None] = {}
        for s in servers:
            url, tok = (s, token) if isinstance(s, str) else s
            self.tokens[url] = tok
        self.load: dict[str, int] = {u: 0 for u in self.tokens}

    async def open(self, **reset: Any) -> tuple[S2REnv, StepResult[S2RObservation]]:
        """A new session on the least loaded server, reset with ``reset``'s options."""
        url = min(self.load, key=lambda u: self.load[u])
        env = S2REnv(url, self.tokens[url])
        self.load[url] += 1
        try:
            return env, await env.reset(**reset)
        except BaseException:
            self.load[url] -= 1
            await env.close()
            raise

    async def group(self, size: int, **reset: Any) -> list[tuple[S2REnv, StepResult[S2RObservation]]]:
        """``size`` sessions starting from one state: one reset, ``size - 1`` forks of it."""
        first = await self.open(**reset)
        members = [first]
        try:
            for twin in await asyncio.gather(*(first[0].fork() for _ in range(size - 1))):
                self.load[first[0].base_url] += 1
                members.append(twin)
        except BaseException:
            await asyncio.gather(*(self.release(e) for e, _ in members), return_exceptions=True)
            raise
        return members

    async def release(self, env: S2REnv) -> None:
        """Close ``env``'s session and count it off its server."""
        if env.base_url in self.load and not env._closed:
            self.load[env.base_url] = max(0, self.load[env.base_url] - 1)
        await env.close()
