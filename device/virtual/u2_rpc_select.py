"""uiautomator2's JSON-RPC methods on selectors: existence, waiting, object info, counting,
``childBy*`` object names, scrolling and flinging a scrollable view.

Why its own module: one subject of the server's methods (the others: :mod:`.u2_rpc_device`,
:mod:`.u2_rpc_input`); a mixin over :class:`~device.virtual.u2_rpc.RpcBase`. Selectors are
resolved by :mod:`.uiselector` on the screen's tree each time, as the real server re-queries.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from typing import Any, Callable

from .u2_errors import RpcError, invalid, not_found, to_bool, to_int
from .u2_rpc import RpcBase, SelectorArg
from .uiselector import dedupe, selector_matches
from .uitree import UiNode, UiTree

__all__ = ["SelectorMethods"]


class SelectorMethods(RpcBase):
    """``exist``, ``waitForExists``/``waitUntilGone``, ``objInfo*``, ``count``/``getChildCount``,
    ``childByText``/``childByDescription``/``childByInstance``, ``scroll*``, ``fling*``."""

    async def rpc_exist(self, selector: SelectorArg) -> bool:
        try:
            return bool(await self._find_all(selector))
        except RpcError as e:
            if e.code == -32002:
                return False
            raise

    async def _wait(self, selector: SelectorArg, timeout_ms: Any, want: bool) -> bool:
        timeout = max(0, to_int(timeout_ms, "timeout")) / 1000
        deadline = time.monotonic() + timeout
        while True:
            if await self.rpc_exist(selector) == want:
                return True
            if time.monotonic() >= deadline:
                return False
            await asyncio.sleep(min(self.poll_interval, max(0.0, deadline - time.monotonic())))

    async def rpc_waitForExists(self, selector: SelectorArg, timeout: Any = 0) -> bool:
        return await self._wait(selector, timeout, True)

    async def rpc_waitUntilGone(self, selector: SelectorArg, timeout: Any = 0) -> bool:
        return await self._wait(selector, timeout, False)

    async def rpc_objInfo(self, selector: SelectorArg) -> dict[str, Any]:
        node = await self._find(selector)
        return node.obj_info(await self._screen())

    async def rpc_objInfoOfAllInstances(self, selector: SelectorArg) -> list[dict[str, Any]]:
        screen = await self._screen()
        return [n.obj_info(screen) for n in await self._find_all(selector)]

    async def rpc_count(self, selector: SelectorArg) -> int:
        return len(await self._find_all(selector))

    async def rpc_getChildCount(self, selector: SelectorArg) -> int:
        return len((await self._find(selector)).children)

    def _store(self, resolve: Callable[[UiTree], list[UiNode]]) -> str:
        name = str(uuid.uuid4())
        if len(self._named) > 4096:  # the real server keeps them until restart; bound ours
            self._named.pop(next(iter(self._named)))
        self._named[name] = resolve
        return name

    async def _child_by(self, collection: SelectorArg, child: SelectorArg, pick: Callable[[list[UiNode]], list[UiNode]]) -> str:
        outer = self._resolver(collection)
        if not isinstance(child, dict):
            raise invalid("the child pattern must be a selector object")

        def resolve(tree: UiTree) -> list[UiNode]:
            scope = dedupe(d for c in outer(tree) for d in c.descendants())
            return pick([n for n in scope if selector_matches(n, child)])

        tree = await self._tree()
        if not resolve(tree):
            raise not_found(child)
        return self._store(resolve)

    async def rpc_childByText(self, collection: SelectorArg, child: SelectorArg, text: Any,
                              allowScrollSearch: Any = False) -> str:
        want = str(text)

        def pick(cands: list[UiNode]) -> list[UiNode]:
            return [c for c in cands if c.get("text") == want or any(d.get("text") == want for d in c.descendants())][:1]
        return await self._child_by(collection, child, pick)

    async def rpc_childByDescription(self, collection: SelectorArg, child: SelectorArg, text: Any,
                                     allowScrollSearch: Any = False) -> str:
        want = str(text)

        def pick(cands: list[UiNode]) -> list[UiNode]:
            return [c for c in cands if c.get("content-desc") == want
                    or any(d.get("content-desc") == want for d in c.descendants())][:1]
        return await self._child_by(collection, child, pick)

    async def rpc_childByInstance(self, collection: SelectorArg, child: SelectorArg, instance: Any) -> str:
        i = to_int(instance, "instance")
        return await self._child_by(collection, child, lambda c: [c[i]] if 0 <= i < len(c) else [])

    # ------------------------------------------------------------------ scrolling
    @staticmethod
    def _signature(tree: UiTree, resolve: Callable[[UiTree], list[UiNode]]) -> tuple[Any, ...]:
        """What the scrollable view shows (its subtree; the whole screen if it is gone), so a
        status-bar clock ticking over does not count as "the list scrolled"."""
        found = resolve(tree)
        nodes = list(found[0].descendants()) if found else tree.nodes
        return tuple((n.get("text"), n.get("content-desc"), n.bounds) for n in nodes)

    async def _scroll_once(self, selector: SelectorArg, vertical: bool, forward: bool, ms: int) -> bool:
        """One swipe inside the scrollable view; True if the screen content changed."""
        before = await self._tree()
        found = self._resolver(selector)(before)
        if not found:
            raise not_found(selector)
        l, t, r, b = found[0].bounds
        cx, cy = (l + r) / 2, (t + b) / 2
        if vertical:
            y_hi, y_lo = t + (b - t) * 0.2, t + (b - t) * 0.8
            a, c = (y_lo, y_hi) if forward else (y_hi, y_lo)
            await self._call(self.phone.swipe, cx, a, cx, c, ms)
        else:
            x_lo, x_hi = l + (r - l) * 0.2, l + (r - l) * 0.8
            a, c = (x_hi, x_lo) if forward else (x_lo, x_hi)
            await self._call(self.phone.swipe, a, cy, c, cy, ms)
        after = await self._tree()
        resolve = self._resolver(selector)
        return self._signature(before, resolve) != self._signature(after, resolve)

    async def rpc_scrollForward(self, selector: SelectorArg, vertical: Any = True, steps: Any = 55) -> bool:
        return await self._scroll_once(selector, to_bool(vertical, "vertical"), True,
                                       max(1, to_int(steps, "steps")) * 5)

    async def rpc_scrollBackward(self, selector: SelectorArg, vertical: Any = True, steps: Any = 55) -> bool:
        return await self._scroll_once(selector, to_bool(vertical, "vertical"), False,
                                       max(1, to_int(steps, "steps")) * 5)

    async def _scroll_to_edge(self, selector: SelectorArg, vertical: Any, max_swipes: Any, steps: Any,
                              forward: bool, ms: int | None = None) -> bool:
        n = max(1, to_int(max_swipes, "maxSwipes"))
        dur = ms if ms is not None else max(1, to_int(steps, "steps")) * 5
        for _ in range(n):
            if not await self._scroll_once(selector, to_bool(vertical, "vertical"), forward, dur):
                break
        return True

    async def rpc_scrollToBeginning(self, selector: SelectorArg, vertical: Any = True, maxSwipes: Any = 500,
                                    steps: Any = 55) -> bool:
        return await self._scroll_to_edge(selector, vertical, maxSwipes, steps, False)

    async def rpc_scrollToEnd(self, selector: SelectorArg, vertical: Any = True, maxSwipes: Any = 500,
                              steps: Any = 55) -> bool:
        return await self._scroll_to_edge(selector, vertical, maxSwipes, steps, True)

    async def rpc_scrollTo(self, selector: SelectorArg, target: SelectorArg, vertical: Any = True) -> bool:
        """Scroll forward until ``target`` exists (at most 30 swipes, UiScrollable's default)."""
        for _ in range(30):
            if await self.rpc_exist(target):
                return True
            if not await self._scroll_once(selector, to_bool(vertical, "vertical"), True, 275):
                break
        return await self.rpc_exist(target)

    async def rpc_flingForward(self, selector: SelectorArg, vertical: Any = True) -> bool:
        return await self._scroll_once(selector, to_bool(vertical, "vertical"), True, 100)

    async def rpc_flingBackward(self, selector: SelectorArg, vertical: Any = True) -> bool:
        return await self._scroll_once(selector, to_bool(vertical, "vertical"), False, 100)

    async def rpc_flingToBeginning(self, selector: SelectorArg, vertical: Any = True, maxSwipes: Any = 500) -> bool:
        return await self._scroll_to_edge(selector, vertical, maxSwipes, 20, False, ms=100)

    async def rpc_flingToEnd(self, selector: SelectorArg, vertical: Any = True, maxSwipes: Any = 500) -> bool:
        return await self._scroll_to_edge(selector, vertical, maxSwipes, 20, True, ms=100)

