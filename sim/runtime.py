"""The browsers of this process, driven from a background asyncio thread.

Playwright's sync API is bound to one thread; a runner wants many phones stepping at once
from many threads. So the async API runs on a private event loop in a daemon thread and
every caller submits coroutines to it (:meth:`Runtime.run` from a thread, :meth:`Runtime.arun`
from any event loop). Chromium does the rendering in
its own processes, so pages step in parallel while Python only waits.

There is one browser per device pixel ratio in use (most runs use one): a browser whose
windows have the phone's pixel ratio renders and captures it at device pixels without the
rescaling pass an emulated ratio costs (see :func:`sim.browser.launch_kwargs`).
"""

from __future__ import annotations

import asyncio
import atexit
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

from .browser import launch_kwargs
from .server import PhoneStore, SimServer

T = TypeVar("T")


class Runtime:
    _instance: "Runtime | None" = None
    _lock = threading.Lock()

    def __init__(self, host: str = "127.0.0.1") -> None:
        self.store = PhoneStore()
        self.server = SimServer(host=host, store=self.store).start()
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run_loop, name="s2r-sim-runtime", daemon=True)
        self._thread.start()
        self.playwright: Any = None
        self.browsers: dict[float, Any] = {}
        self._launching: dict[float, asyncio.Future[Any]] = {}
        self.executable: str | None = None  # the Chromium last launched (None: Playwright's own)
        self._closed = False
        self.run(self._start())

    def _run_loop(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_forever()

    async def _start(self) -> None:
        from playwright.async_api import async_playwright

        self.playwright = await async_playwright().start()

    @property
    def browser(self) -> Any:
        """The first live browser (None before any page was opened)."""
        return next((b for b in self.browsers.values() if b.is_connected()), None)

    async def ensure_browser(self, dpr: float = 1.0) -> Any:
        """The browser for pages of pixel ratio ``dpr``, launched on first use and relaunched
        if it crashed (pages on it are then gone). Concurrent callers share one launch."""
        key = round(float(dpr), 4)
        b = self.browsers.get(key)
        if b is not None and b.is_connected():
            return b
        pending = self._launching.get(key)
        if pending is None:
            kw = launch_kwargs(device_scale_factor=key)
            self.executable = kw.get("executable_path")  # type: ignore[assignment]
            pending = self._launching[key] = asyncio.ensure_future(self.playwright.chromium.launch(**kw))
            try:
                self.browsers[key] = await pending
            finally:
                self._launching.pop(key, None)
            return self.browsers[key]
        return await asyncio.shield(pending)

    @classmethod
    def get(cls) -> "Runtime":
        with cls._lock:
            if cls._instance is None or cls._instance._closed:
                cls._instance = Runtime()
                atexit.register(cls._instance.close)
            return cls._instance

    def run(self, coro: Coroutine[Any, Any, T], timeout: float | None = 120.0) -> T:
        """Run a coroutine on the runtime's loop from any thread and wait for its result."""
        if threading.current_thread() is self._thread:
            coro.close()  # never started: close it so it is not reported as never awaited
            raise RuntimeError("Runtime.run called from the runtime thread; await the coroutine instead")
        fut = asyncio.run_coroutine_threadsafe(coro, self.loop)
        return fut.result(timeout)

    async def arun(self, coro: Coroutine[Any, Any, T]) -> T:
        """Await a coroutine on the runtime's loop from any event loop (the async twin of :meth:`run`).

        Pages belong to the runtime's loop, so work on them must run there. A caller already on
        that loop awaits it directly; a caller on another loop (a trainer's own) is bridged with
        ``run_coroutine_threadsafe`` and waits without blocking its loop, so one loop can drive
        hundreds of phones with no thread each. Cancelling the caller cancels the work.
        """
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is self.loop:
            return await coro
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, self.loop))

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True

        async def _stop() -> None:
            try:
                for b in list(self.browsers.values()):
                    try:
                        await b.close()
                    except Exception:  # noqa: BLE001 - a crashed browser is gone either way
                        pass
            finally:
                if self.playwright is not None:
                    await self.playwright.stop()

        try:
            self.run(_stop(), timeout=30)
        except Exception:  # noqa: BLE001 - best effort at shutdown
            pass
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.server.stop()
