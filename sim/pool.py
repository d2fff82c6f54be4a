"""A small pool of live pages that many logical phones share.

A logical phone is only its state text; it holds a page just for the length of a step.
While its policy thinks (a VLM call takes seconds) the page serves other phones, so
thousands of phones fit where one page per phone would fit hundreds. A crashed page or
browser is replaced; the phone's last committed state is intact, so its episode can be
reported as an infrastructure error and retried.

The pages of one device profile share one browser context (a pool page keeps no cookies
or storage; a phone is the state it loads), so with ``--process-per-site`` they share one
renderer process too, and a second page costs its document rather than a process. Each page
still gets a browser window of its own: pages that were tabs of one window would be
background tabs, which Chromium does not render (no animation frames, timers throttled to
1 Hz), and every capture of one would stall for a second.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from . import driver
from .profiles import DeviceProfile
from .runtime import Runtime


@dataclass
class _Lane:
    """The pages of one profile: idle ones (least recently used first), who waits, how many exist."""

    idle: list[driver.PageSlot] = field(default_factory=list)
    waiters: deque[asyncio.Future[driver.PageSlot | None]] = field(default_factory=deque)
    count: int = 0


class SimPool:
    """Up to ``pages_per_profile`` live pages per device profile, lent out one step at a time.

    ``shared_context=False`` gives every page a context (and so a renderer process) of its
    own: more memory, but a crash then takes down only that page.
    """

    def __init__(self, runtime: Runtime | None = None, pages_per_profile: int = 2, shared_context: bool = True):
        if pages_per_profile < 1:
            raise ValueError(f"pages_per_profile must be at least 1, not {pages_per_profile}")
        self.rt = runtime or Runtime.get()
        self.pages_per_profile = pages_per_profile
        self.shared_context = shared_context
        self._lanes: dict[str, _Lane] = {}
        self._all: list[driver.PageSlot] = []
        self._contexts: dict[str, Any] = {}
        self._context_ids: dict[str, tuple[Any, str]] = {}  # profile -> (context, its DevTools browserContextId)
        self._context_locks: dict[str, asyncio.Lock] = {}
        self._browser_cdp: dict[int, tuple[Any, Any]] = {}  # id(browser) -> (browser, its DevTools session)
        self.replaced = 0

    @property
    def live_pages(self) -> int:
        return sum(1 for s in self._all if not s.dead)

    def _lane(self, profile: DeviceProfile) -> _Lane:
        lane = self._lanes.get(profile.name)
        if lane is None:
            lane = self._lanes[profile.name] = _Lane()
        return lane

    def _context_lock(self, profile: DeviceProfile) -> asyncio.Lock:
        return self._context_locks.setdefault(profile.name, asyncio.Lock())

    async def _context(self, browser: Any, profile: DeviceProfile) -> Any:
        """The profile's shared context, made anew after a browser relaunch or a close (lock held)."""
        ctx = self._contexts.get(profile.name)
        if ctx is None or ctx.browser is not browser or not browser.is_connected():
            ctx = await driver.new_context(browser, profile)
            ctx.on("close", lambda c, name=profile.name: self._contexts.pop(name, None)
                   if self._contexts.get(name) is c else None)
            self._contexts[profile.name] = ctx
        return ctx

    async def _browser_session(self, browser: Any) -> Any:
        known = self._browser_cdp.get(id(browser))
        if known is None or known[0] is not browser:
            known = self._browser_cdp[id(browser)] = (browser, await browser.new_browser_cdp_session())
        return known[1]

    async def _window_page(self, browser: Any, ctx: Any, profile: DeviceProfile) -> Any:
        """A blank page of ``ctx`` in a new browser window (lock held: one page event at a time)."""
        known = self._context_ids.get(profile.name)
        cid = known[1] if known is not None and known[0] is ctx else None
        if cid is None:
            # The context's first page opens its first window; it also tells us the context's id.
            page = await ctx.new_page()
            s = await ctx.new_cdp_session(page)
            try:
                info = await s.send("Target.getTargetInfo")
                self._context_ids[profile.name] = (ctx, info["targetInfo"]["browserContextId"])
            finally:
                await s.detach()
            return page
        bs = await self._browser_session(browser)
        async with ctx.expect_page(timeout=30_000) as ev:
            await bs.send("Target.createTarget", {"url": "about:blank", "browserContextId": cid, "newWindow": True})
        return await ev.value

    async def _new_slot(self, profile: DeviceProfile) -> driver.PageSlot:
        browser = await self.rt.ensure_browser(profile.dpr)
        ctx = page = None
        if self.shared_context:
            async with self._context_lock(profile):
                ctx = await self._context(browser, profile)
                try:
                    page = await self._window_page(browser, ctx, profile)
                except Exception:
                    if not any(not s.dead and s.context is ctx for s in self._all):
                        # a context that cannot open a page (e.g. its browser died) is not reused
                        self._contexts.pop(profile.name, None)
                    raise
        slot = await driver.open_slot(browser, self.rt.server.url, profile, context=ctx, page=page)
        self._all.append(slot)
        return slot

    async def _take(self, profile: DeviceProfile, prefer: str | None = None) -> driver.PageSlot:
        """An idle page (one that still shows phone ``prefer`` if any: it need not be reloaded),
        else a new one while under the cap, else the next page given back."""
        lane = self._lane(profile)
        while True:
            if lane.idle:
                i = next((k for k, s in enumerate(lane.idle)
                          if prefer is not None and s.loaded is not None and s.loaded[0] == prefer), 0)
                return lane.idle.pop(i)
            if lane.count < self.pages_per_profile:
                lane.count += 1
                try:
                    return await self._new_slot(profile)
                except BaseException:
                    lane.count -= 1
                    self._wake(lane, None)  # let a waiter try in our place
                    raise
            fut: asyncio.Future[driver.PageSlot | None] = asyncio.get_running_loop().create_future()
            lane.waiters.append(fut)
            try:
                slot = await fut
            except asyncio.CancelledError:
                if fut in lane.waiters:
                    lane.waiters.remove(fut)
                elif fut.done() and not fut.cancelled() and fut.exception() is None:
                    handed = fut.result()  # handed to us as we were cancelled: pass it on
                    if handed is not None:
                        self._release(lane, handed)
                    else:
                        self._wake(lane, None)
                raise
            if slot is not None:
                return slot
            # None: a page was discarded, so there is room to open a fresh one

    @staticmethod
    def _wake(lane: _Lane, slot: driver.PageSlot | None) -> bool:
        while lane.waiters:
            fut = lane.waiters.popleft()
            if not fut.done():
                fut.set_result(slot)
                return True
        return False

    def _forget(self, lane: _Lane, slot: driver.PageSlot) -> None:
        """Take ``slot`` off the pool's books (the caller closes it), freeing its place under the cap."""
        if slot in self._all:
            self._all.remove(slot)
        lane.count -= 1

    def _release(self, lane: _Lane, slot: driver.PageSlot) -> None:
        if not self._wake(lane, slot):
            lane.idle.append(slot)

    async def _give(self, slot: driver.PageSlot, broken: bool) -> None:
        lane = self._lane(slot.profile)
        if broken or slot.dead or slot.page.is_closed():
            self.replaced += 1
            self._forget(lane, slot)  # the next taker opens a fresh page
            self._wake(lane, None)
            await slot.close()
            return
        self._release(lane, slot)

    @asynccontextmanager
    async def page(self, profile: DeviceProfile, prefer: str | None = None) -> AsyncIterator[driver.PageSlot]:
        """Hold a page for one unit of work; a page that raised is replaced, not reused.

        ``prefer``: the key of the phone about to use it; a page still showing that phone is
        picked when idle, which spares reloading the phone into another page.
        """
        slot = await self._take(profile, prefer)
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

    async def trim(self, profile: DeviceProfile, keep: int = 1) -> int:
        """Close idle pages of ``profile`` until at most ``keep`` pages remain; returns how many closed.

        A pool sized for a burst of phones holds its pages (each tens of MB once stepped)
        until closed; this hands back what a quieter phase does not need. Pages in use are
        left alone, and the cap is unchanged, so a later burst opens pages again. The pages
        kept are the most recently used (their phones are likeliest to step again).
        """
        lane = self._lane(profile)
        closed = 0
        while lane.count > max(0, keep) and lane.idle:
            slot = lane.idle.pop(0)  # least recently used first
            self._forget(lane, slot)
            closed += 1
            await slot.close()
        return closed

    async def close(self) -> None:
        for s in list(self._all):
            await s.close()
        for ctx in list(self._contexts.values()):
            try:
                await ctx.close()
            except Exception:  # noqa: BLE001 - a context of a dead browser is gone already
                pass
        self._all.clear()
        for lane in self._lanes.values():
            for fut in lane.waiters:
                if not fut.done():
                    fut.set_exception(RuntimeError("the page pool was closed"))
        self._lanes.clear()
        self._contexts.clear()
        self._context_ids.clear()
        for _, session in self._browser_cdp.values():
            try:
                await session.detach()
            except Exception:  # noqa: BLE001 - the browser may be gone
                pass
        self._browser_cdp.clear()
