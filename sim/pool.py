"""A small pool of live pages that many logical phones share.

A logical phone is only its state text; it holds a page just for the length of a step.
While its policy thinks (a VLM call takes seconds) the page serves other phones, so
thousands of phones fit where one page per phone would fit hundreds. A crashed page or
browser is replaced; the phone's last committed state is intact, so its episode can be
reported as an infrastructure error and retried.

The pages of one device profile share one browser context: in headless Chromium every
context is a browser window of its own, and a window per page costs tens of megabytes that
buy nothing here (a pool page keeps no cookies or storage; a phone is the state it loads).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from . import driver
from .profiles import DeviceProfile
from .runtime import Runtime


class SimPool:
    def __init__(self, runtime: Runtime | None = None, pages_per_profile: int = 2, shared_context: bool = True):
        self.rt = runtime or Runtime.get()
        self.pages_per_profile = pages_per_profile
        self.shared_context = shared_context
        self._queues: dict[str, asyncio.Queue[driver.PageSlot]] = {}
        self._counts: dict[str, int] = {}
        self._all: list[driver.PageSlot] = []
        self._contexts: dict[str, Any] = {}
        self._context_locks: dict[str, asyncio.Lock] = {}
        self.replaced = 0

    @property
    def live_pages(self) -> int:
        return sum(1 for s in self._all if not s.dead)

    def _queue(self, profile: DeviceProfile) -> asyncio.Queue[driver.PageSlot]:
        q = self._queues.get(profile.name)
        if q is None:
            q = self._queues[profile.name] = asyncio.Queue()
            self._counts[profile.name] = 0
        return q

    async def _context(self, browser: Any, profile: DeviceProfile) -> Any:
        """The profile's shared context, made anew after a browser relaunch or a close."""
        lock = self._context_locks.setdefault(profile.name, asyncio.Lock())
        async with lock:
            ctx = self._contexts.get(profile.name)
            if ctx is None or ctx.browser is not browser or not browser.is_connected():
                ctx = await driver.new_context(browser, profile)
                ctx.on("close", lambda c, name=profile.name: self._contexts.pop(name, None)
                       if self._contexts.get(name) is c else None)
                self._contexts[profile.name] = ctx
            return ctx

    async def _new_slot(self, profile: DeviceProfile) -> driver.PageSlot:
        browser = await self.rt.ensure_browser()
        ctx = await self._context(browser, profile) if self.shared_context else None
        try:
            slot = await driver.open_slot(browser, self.rt.server.url, profile, context=ctx)
        except Exception:
            if ctx is not None and not any(not s.dead and s.context is ctx for s in self._all):
                # a context that cannot open a page (e.g. its browser died) is not reused
                self._contexts.pop(profile.name, None)
            raise
        self._all.append(slot)
        return slot

    async def _take(self, profile: DeviceProfile) -> driver.PageSlot:
        q = self._queue(profile)
        if q.empty() and self._counts[profile.name] < self.pages_per_profile:
            self._counts[profile.name] += 1
            try:
                return await self._new_slot(profile)
            except BaseException:
                self._counts[profile.name] -= 1
                raise
        return await q.get()

    async def _give(self, slot: driver.PageSlot, broken: bool) -> None:
        q = self._queue(slot.profile)
        if broken or slot.dead or slot.page.is_closed():
            self.replaced += 1
            if slot in self._all:
                self._all.remove(slot)
            await slot.close()
            self._counts[slot.profile.name] -= 1  # the next taker opens a fresh page
            return
        q.put_nowait(slot)

    @asynccontextmanager
    async def page(self, profile: DeviceProfile) -> AsyncIterator[driver.PageSlot]:
        """Hold a page for one unit of work; a page that raised is replaced, not reused."""
        slot = await self._take(profile)
        broken = False
        try:
            slot.uses += 1
            yield slot
        except BaseException:
            broken = True
            raise
        finally:
            await self._give(slot, broken)

    async def warm(self, profile: DeviceProfile, n: int | None = None) -> None:
        """Open pages ahead of time (concurrently) so the first phones do not pay for page start-up."""
        n = self.pages_per_profile if n is None else min(n, self.pages_per_profile)
        got = await asyncio.gather(*(self._take(profile) for _ in range(n)), return_exceptions=True)
        for s in got:
            if isinstance(s, driver.PageSlot):
                await self._give(s, False)
        for s in got:
            if isinstance(s, BaseException):
                raise s

    async def close(self) -> None:
        for s in list(self._all):
            await s.close()
        for ctx in list(self._contexts.values()):
            try:
                await ctx.close()
            except Exception:  # noqa: BLE001 - a context of a dead browser is gone already
                pass
        self._all.clear()
        self._queues.clear()
        self._counts.clear()
        self._contexts.clear()
