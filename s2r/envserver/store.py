"""Every session of one server: who exists, who is live, who sleeps, and how many may exist.

At most ``max_live`` sessions are live (in memory as objects); the least recently used idle one
is hibernated when another wakes (``Session.hibernate``), so a thousand sessions can wait on
four pages. At most ``max_sessions`` exist; one more is refused with :class:`CapacityFull` and
nothing else changes. A closed session is forgotten: its id then answers :class:`SessionGone`
— state is never recreated behind a client's back.

The store is touched from the server's event loop and, for a session's close, from OpenEnv's
session thread, so its table is guarded by a lock.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from .errors import BadRequest, CapacityFull, SessionGone
from .protocol import ResetOptions, S2RObservation, SessionConfig
from .session import Session


class SessionStore:
    """The sessions of one server over one page pool (``pool``: a ``sim.pool.SimPool``)."""

    def __init__(self, pool: Any, *, max_sessions: int = 1024, max_live: int = 64,
                 config: SessionConfig | None = None):
        if max_sessions < 1 or max_live < 1:
            raise ValueError(f"max_sessions and max_live must be >= 1, got {max_sessions}, {max_live}")
        self.pool = pool
        self.max_sessions = max_sessions
        self.max_live = max_live
        self.config = config or SessionConfig()
        self._sessions: OrderedDict[str, Session] = OrderedDict()  # least recently used first
        self._lock = threading.Lock()
        self.hibernations = 0
        self.wakes = 0

    # --- the table ----------------------------------------------------------------------------
    def open(self) -> Session:
        """A new, empty session; :class:`CapacityFull` when ``max_sessions`` exist."""
        with self._lock:
            if len(self._sessions) >= self.max_sessions:
                raise CapacityFull(f"this server holds {len(self._sessions)} sessions, its most "
                                   f"(--max-sessions {self.max_sessions}); close some or use another server")
            s = Session(self.pool, self.config)
            self._sessions[s.id] = s
            return s

    def get(self, sid: str) -> Session:
        with self._lock:
            s = self._sessions.get(sid)
        if s is None or s.closed:
            raise SessionGone(f"session {sid!r} is closed or was never opened on this server")
        return s

    def close(self, sid: str) -> None:
        """Forget a session (its client closed or vanished); its page was only ever lent per step."""
        with self._lock:
            s = self._sessions.pop(sid, None)
        if s is not None:
            s.closed = True
            s.live = s.frozen = None

    # --- use ----------------------------------------------------------------------------------
    async def reset(self, session: Session, opts: ResetOptions) -> S2RObservation:
        """Reset ``session`` as ``opts`` say; a fork copies the live or sleeping source exactly."""
        session.busy += 1
        try:
            if opts.fork_of is not None:
                extra = sorted(k for k in opts.model_dump(exclude_unset=True) if k not in ("fork_of", "episode_id"))
                if extra:
                    raise BadRequest(f"fork_of copies its source whole; it takes no other options, got {extra}")
                src = self.get(opts.fork_of)
                if src is session:
                    raise BadRequest("a session cannot be forked into itself")
                src.busy += 1
                try:
                    if src.hibernated:
                        self.wakes += 1
                    session.fork_from(src)
                finally:
                    src.busy -= 1
                self._touch(src)
                obs = await session.first_observation()
            else:
                session.config = self.config.with_options(opts)
                obs = await session.reset(opts)
        finally:
            session.busy -= 1
        self._touch(session)
        return obs

    async def step(self, session: Session, text: str) -> S2RObservation:
        if session.closed:
            raise SessionGone(f"session {session.id!r} is closed")
        if session.hibernated:
            self.wakes += 1
        session.busy += 1
        try:
            return await session.step(text)
        finally:
            session.busy -= 1
            self._touch(session)

    def _touch(self, session: Session) -> None:
        """Mark ``session`` most recently used, then put the least recent idle ones to sleep
        until no more than ``max_live`` are live."""
        with self._lock:
            if session.id in self._sessions:
                self._sessions.move_to_end(session.id)
            live = [s for s in self._sessions.values() if s.live is not None]
        over = len(live) - self.max_live
        for s in live:
            if over <= 0:
                break
            if s.hibernate():
                self.hibernations += 1
                over -= 1

    # --- figures ------------------------------------------------------------------------------
    def stats(self) -> dict[str, Any]:
        with self._lock:
            sessions = list(self._sessions.values())
        asleep = [s for s in sessions if s.hibernated]
        return {"sessions": len(sessions), "live": sum(1 for s in sessions if s.live is not None),
                "hibernated": len(asleep), "hibernated_bytes": sum(s.frozen_bytes() for s in asleep),
                "max_sessions": self.max_sessions, "max_live": self.max_live,
                "live_pages": self.pool.live_pages, "pages_per_profile": self.pool.pages_per_profile,
                "hibernations": self.hibernations, "wakes": self.wakes}
