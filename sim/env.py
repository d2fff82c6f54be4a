"""``SimEnv``: the Env protocol over a simulated phone.

``reset`` / ``step`` / ``observe`` / ``read_state`` / ``close``, plus what only a simulator
can do: ``capture`` (the whole phone as JSON), ``restore``, ``fork`` (an exact copy, down to
the scroll position) and ``patch``. Every action runs as real input on a live page; bad
actions come back as ``StepInfo.invalid_action`` and never break the phone.

Each method that needs a page has an async twin (``areset``, ``astep``, ``aobserve``,
``ainject``) and the rest have one for symmetry (``aread_state``, ``afork``, ``aclose``), so an
async trainer drives hundreds of phones from one event loop with no thread each. The work is
written once, as coroutines on the page pool's loop (``sim.runtime``): the sync methods wait for
them from their thread (``Runtime.run``), the async twins await them from any loop
(``Runtime.arun``).
"""

from __future__ import annotations

import itertools
import json
import time
from typing import Any

from actionmap.actions import (Abort, Action, Answer, Complete, DoubleTap, Drag, Key, LongPress, OpenApp, Scroll,
                               Swipe, Tap, TypeText, Wait, check_text)
from actionmap.apps import APP_IDS, canonical_app_id
from actionmap.env import StepInfo
from actionmap.geometry import grid_to_px
from actionmap.observation import Bounds, Foreground, Observation, Screen, UIElement
from actionmap.patch import StatePatch
from actionmap.worldstate import WorldState

from . import driver
from . import state as st
from .pool import SimPool
from .profiles import DeviceProfile, Flavor, get_profile

_ids = itertools.count(1)
_default_pool: SimPool | None = None


def default_pool() -> SimPool:
    global _default_pool
    if _default_pool is None:
        _default_pool = SimPool()
    return _default_pool


class SimEnv:
    """A simulated phone. Cheap to create: it holds a page only while it steps."""

    def __init__(self, profile: str | DeviceProfile = "default", flavor: Flavor = "sim", seed: int = 0, *,
                 pool: SimPool | None = None, image_format: str = "jpeg", quality: int = 80,
                 step_seconds: float = 2.0, screenshots: bool = True, state: str | None = None):
        self.profile = get_profile(profile)
        self.flavor: Flavor = flavor
        self.seed = seed
        self.pool = pool or default_pool()
        self.rt = self.pool.rt
        self.image_format = image_format
        self.quality = quality
        self.step_seconds = step_seconds
        self.screenshots = screenshots
        self.key = f"phone{next(_ids)}"
        self._state = state or st.new_state(self.profile, flavor, seed)
        self._version = 0
        self._step = 0
        self._last_obs: Observation | None = None
        self._foreground: dict[str, Any] | None = None
        self.closed = False

    # --- state ----------------------------------------------------------------------------
    def capture(self) -> str:
        """The whole phone as JSON text (immutable: free to keep)."""
        return self._state

    def restore(self, text: str) -> None:
        st.load(text)  # validate
        self._set_state(text)

    def fork(self) -> "SimEnv":
        """An exact copy of this phone — same state, same next screenshot."""
        env = SimEnv(self.profile, self.flavor, self.seed, pool=self.pool, image_format=self.image_format,
                     quality=self.quality, step_seconds=self.step_seconds, screenshots=self.screenshots,
                     state=self._state)
        env._step = self._step
        env._foreground = dict(self._foreground) if self._foreground is not None else None  # read_state() too
        return env

    def patch(self, patch: StatePatch | dict[str, Any]) -> None:
        """Apply a task setup; raises ``PatchError`` and changes nothing if it is invalid."""
        self._set_state(st.apply_patch(self._state, patch))

    def _set_state(self, text: str) -> None:
        self._state = text
        self._version += 1

    def read_state(self) -> WorldState:
        return st.world_state(self._state, self._foreground)

    # --- async twins of the methods that need no page --------------------------------------
    # State lives in this object, not in a page, so these do no I/O; they exist so an async
    # caller writes ``await`` throughout and need not know which calls touch a page.
    async def aread_state(self) -> WorldState:
        """:meth:`read_state` for async callers (the state is held here: no page is needed)."""
        return self.read_state()

    async def afork(self) -> "SimEnv":
        """:meth:`fork` for async callers: a copy is a state text, so no page is needed."""
        return self.fork()

    async def aclose(self) -> None:
        """:meth:`close` for async callers (a phone holds no page between steps)."""
        self.close()

    # --- Env protocol -----------------------------------------------------------------------
    def reset(self, setup: Any = None) -> Observation:
        """Start an episode: a fresh default phone plus ``setup``.

        ``setup`` may be a task instance (anything with a ``setup`` StatePatch), a
        ``StatePatch`` or its dict, a full state text (resume exactly), or None.
        """
        return self.rt.run(self._areset(setup))

    async def areset(self, setup: Any = None) -> Observation:
        """:meth:`reset`, awaitable from any event loop."""
        return await self.rt.arun(self._areset(setup))

    async def _areset(self, setup: Any) -> Observation:
        if isinstance(setup, str) and setup.lstrip().startswith("{"):
            self.restore(setup)
        else:
            base = st.new_state(self.profile, self.flavor, self.seed)
            patch = getattr(setup, "setup", setup)
            self._set_state(st.apply_patch(base, patch) if patch is not None else base)
        self._step = 0
        obs, _ = await self._arun(None)
        return obs

    def set_screenshots(self, on: bool) -> bool:
        """Capture the screen with each observation or not (elements are read either way);
        returns the previous setting."""
        prev, self.screenshots = self.screenshots, on
        return prev

    def observe(self) -> Observation:
        return self.rt.run(self._aobserve())

    async def aobserve(self) -> Observation:
        """:meth:`observe`, awaitable from any event loop."""
        return await self.rt.arun(self._aobserve())

    async def _aobserve(self) -> Observation:
        obs, _ = await self._arun(None)
        return obs

    def step(self, action: Action) -> tuple[Observation, StepInfo]:
        """Carry out ``action`` and observe. A page or browser failure (or a step that never came
        back) is an infrastructure error in the ``StepInfo``, never an exception: it is not the
        policy's doing, and its caller decides what it means."""
        self._step += 1
        try:
            return self.rt.run(self._arun(action))
        except Exception as e:  # noqa: BLE001 - a page/browser failure is infrastructure, not policy
            return self._infra(e)

    async def astep(self, action: Action) -> tuple[Observation, StepInfo]:
        """:meth:`step`, awaitable from any event loop; failures are reported the same way."""
        self._step += 1
        try:
            return await self.rt.arun(self._arun(action))
        except Exception as e:  # noqa: BLE001 - a page/browser failure is infrastructure, not policy
            return self._infra(e)

    def _infra(self, e: Exception) -> tuple[Observation, StepInfo]:
        info = StepInfo(error=f"{type(e).__name__}: {e}"[:500], error_kind="infra")
        return self._last_obs or self._blank_obs(), info

    def close(self) -> None:
        self.closed = True

    # --- pixel-level input (the virtual phone's `input`/uiautomator paths) ------------------
    def inject(self, event: dict[str, Any], observe: bool = False) -> Observation | None:
        """Deliver one raw input event in *device pixels*, as a phone's input layer would.

        Events: ``{"kind": "tap", "x", "y"}``, ``{"kind": "long_press", "x", "y", "ms"}``,
        ``{"kind": "swipe", "x0", "y0", "x1", "y1", "ms"}``, ``{"kind": "key", "key": back|home|recents|enter|delete}``,
        ``{"kind": "text", "text"}`` (into the focused field), ``{"kind": "open_app", "app"}``, ``{"kind": "tick", "seconds"}``.
        Returns the new observation when ``observe`` is set. Raises ``ValueError`` on a malformed event.
        """
        return self.rt.run(self._ainject(event, observe))

    async def ainject(self, event: dict[str, Any], observe: bool = False) -> Observation | None:
        """:meth:`inject`, awaitable from any event loop."""
        return await self.rt.arun(self._ainject(event, observe))

    async def _ainject(self, ev: dict[str, Any], observe: bool) -> Observation | None:
        d = self.profile.dpr
        kind = ev.get("kind")
        async with self.pool.page(self.profile, prefer=self.key) as slot:
            if slot.loaded != (self.key, self._version):
                await driver.load(slot, self._state)
            if kind == "tap":
                await driver.tap(slot, float(ev["x"]) / d, float(ev["y"]) / d)
            elif kind == "long_press":
                await driver.long_press(slot, float(ev["x"]) / d, float(ev["y"]) / d, int(ev.get("ms", 800)))
            elif kind == "swipe":
                await driver.swipe(slot, float(ev["x0"]) / d, float(ev["y0"]) / d, float(ev["x1"]) / d,
                                   float(ev["y1"]) / d, int(ev.get("ms", 300)), hold_ms=int(ev.get("hold_ms", 0)))
            elif kind == "key":
                k = ev["key"]
                if k in ("enter", "delete") and await slot.page.evaluate("() => window.S2R.hasFocus()"):
                    await driver.key_event(slot, "Enter" if k == "enter" else "Backspace")
                elif k in ("back", "home", "recents", "enter", "delete"):
                    await slot.page.evaluate("(k) => window.S2R.key(k)", k)
                else:
                    raise ValueError(f"unknown key {k!r}")
            elif kind == "text":
                if await slot.page.evaluate("() => window.S2R.hasFocus()"):
                    await driver.insert_text(slot, str(ev["text"]))
            elif kind == "clear_text":
                if await slot.page.evaluate("() => window.S2R.hasFocus()"):
                    await driver.select_all_in_focused(slot)
                    await driver.key_event(slot, "Backspace")
            elif kind == "open_app":
                await slot.page.evaluate("(a) => window.S2R.openApp(a)", ev["app"])
            elif kind == "tick":
                await slot.page.evaluate("(s) => window.S2R.tick(s)", float(ev["seconds"]))
            elif kind == "reload":
                pass
            else:
                raise ValueError(f"unknown input event {kind!r}")
            snap, shot = await driver.observe(slot, shot=observe and self.screenshots, fmt=self.image_format,
                                              quality=self.quality)
            if snap.get("state"):
                self._state = snap["state"]
                self._version += 1
            slot.loaded = (self.key, self._version)
        self._foreground = snap["foreground"]
        obs = self._observation(snap, shot)
        self._last_obs = obs
        return obs if observe else None

    # --- execution (on the runtime's loop) ----------------------------------------------------
    async def _arun(self, action: Action | None) -> tuple[Observation, StepInfo]:
        info = StepInfo()
        t0 = time.perf_counter()
        animations = self.profile.animations or bool(json.loads(self._state)["sys"].get("animations"))
        used: list[driver.PageSlot] = []

        async def on_a_page() -> tuple[dict[str, Any], bytes, float, float, float, float]:
            async with self.pool.page(self.profile, prefer=self.key) as slot:
                used.append(slot)
                t_acq = time.perf_counter()
                # The phone's state goes into the page once; with no action it rides with the observation.
                stale = slot.loaded != (self.key, self._version)
                if stale and action is not None:
                    await driver.load(slot, self._state)
                t_load = time.perf_counter()
                if action is not None:
                    await self._execute(slot, action, info)
                t_act = time.perf_counter()
                # settle, elements and screenshot overlap (see driver.observe)
                snap, shot = await driver.observe(slot, state=self._state if stale and action is None else None,
                                                  shot=self.screenshots, fmt=self.image_format, quality=self.quality,
                                                  animations=animations)
                t_obs = time.perf_counter()
                if snap.get("state"):
                    self._state = snap["state"]
                    self._version += 1
                slot.loaded = (self.key, self._version)
            return snap, shot, t_acq, t_load, t_act, t_obs

        try:
            snap, shot, t_acq, t_load, t_act, t_obs = await on_a_page()
        except Exception:
            # A page that died while idle (crash, closed) fails the next phone that takes it.
            # An observation changes nothing, so it is simply taken again on a fresh page; a
            # step with an action is reported as an infrastructure error instead (env.step).
            if action is not None or not used or not (used[-1].dead or used[-1].page.is_closed()):
                raise
            snap, shot, t_acq, t_load, t_act, t_obs = await on_a_page()
        if snap.get("error"):
            info.extra["page_error"] = snap["error"][:500]
        self._foreground = snap["foreground"]
        obs = self._observation(snap, shot)
        info.timings_ms.update(acquire=(t_acq - t0) * 1e3, load=(t_load - t_acq) * 1e3, act=(t_act - t_load) * 1e3,
                               observe=(t_obs - t_act) * 1e3, total=(time.perf_counter() - t0) * 1e3)
        if action is not None and action.type in ("complete", "abort", "answer"):
            info.done = True
        if action is not None and action.clamped:
            info.clamped = True
        self._last_obs = obs
        return obs, info

    def _observation(self, snap: dict[str, Any], shot: bytes) -> Observation:
        W, H = self.profile.width_px, self.profile.height_px
        dpr = self.profile.dpr
        elements = []
        for e in snap["elements"]:
            l, t = max(0, min(W, round(e["l"] * dpr))), max(0, min(H, round(e["t"] * dpr)))
            r, b = max(0, min(W, round(e["r"] * dpr))), max(0, min(H, round(e["b"] * dpr)))
            if r - l < 1 or b - t < 1:
                continue
            bounds = Bounds(left=l, top=t, right=r, bottom=b)
            elements.append(UIElement(
                index=len(elements), text=e["text"], content_desc=e["desc"], resource_id=e["rid"],
                class_name=e["cls"], package=e["pkg"], bounds=bounds, grid_bounds=bounds.to_grid(W, H),
                clickable=e["click"], long_clickable=e["long"], editable=e["edit"], checkable=e["checkable"],
                checked=e["checked"], enabled=e["enabled"], focused=e["focused"], scrollable=e["scroll"],
                selected=e["selected"], visible=True, password=e["password"], hint=e["hint"]))
        fg = snap["foreground"]
        return Observation(
            screenshot=shot, image_format=self.image_format if shot else "none",
            screen=Screen(width=W, height=H, density=self.profile.density, rotation=0),
            elements=elements, foreground=Foreground(app=fg["app"], package=fg["package"], activity=fg["route"]),
            keyboard_visible=bool(snap["keyboard"]), step=self._step)

    def _blank_obs(self) -> Observation:
        return Observation(screen=Screen(width=self.profile.width_px, height=self.profile.height_px,
                                         density=self.profile.density), image_format="none", step=self._step)

    def _css(self, point: tuple[int, int]) -> tuple[float, float]:
        W, H = self.profile.width_px, self.profile.height_px
        return grid_to_px(point[0], W) / self.profile.dpr, grid_to_px(point[1], H) / self.profile.dpr

    def _resolve(self, action: Any, info: StepInfo) -> tuple[float, float] | None:
        """Point of a pointing action in CSS px; a `target` index resolves to the element's centre."""
        if getattr(action, "target", None) is not None:
            el = self._last_obs.element(action.target) if self._last_obs else None
            if el is None:
                n = len(self._last_obs.elements) if self._last_obs else 0
                info.invalid_action = f"target {action.target} is not an element of the current observation ({n} elements)"
                return None
            cx, cy = el.bounds.center
            return cx / self.profile.dpr, cy / self.profile.dpr
        if getattr(action, "point", None) is not None:
            return self._css(action.point)
        return None

    async def _execute(self, slot: driver.PageSlot, a: Action, info: StepInfo) -> None:
        tick = self.step_seconds
        if isinstance(a, (Tap, DoubleTap, LongPress)):
            p = self._resolve(a, info)
            if p is None:
                info.invalid_action = info.invalid_action or "no point"
                return
            if isinstance(a, Tap):
                await driver.tap(slot, *p)
            elif isinstance(a, DoubleTap):
                await driver.double_tap(slot, *p)
            else:
                await driver.long_press(slot, *p, a.duration_ms)
        elif isinstance(a, (Swipe, Drag)):
            x0, y0 = self._css(a.start)
            x1, y1 = self._css(a.end)
            await driver.swipe(slot, x0, y0, x1, y1, a.duration_ms, hold_ms=600 if isinstance(a, Drag) else 0)
        elif isinstance(a, Scroll):
            await self._scroll(slot, a, info)
        elif isinstance(a, TypeText):
            await self._type(slot, a, info)
        elif isinstance(a, Key):
            if a.key in ("enter", "delete") and await slot.page.evaluate("() => window.S2R.hasFocus()"):
                await driver.key_event(slot, "Enter" if a.key == "enter" else "Backspace")
            else:
                await slot.page.evaluate("(k) => window.S2R.key(k)", a.key)
        elif isinstance(a, OpenApp):
            app = canonical_app_id(a.app) or a.app
            if app not in APP_IDS:
                info.invalid_action = f"unknown app {a.app!r}; known: {', '.join(APP_IDS)}"
                return
            ok = await slot.page.evaluate("(a) => window.S2R.openApp(a)", app) if app != "launcher" else \
                await slot.page.evaluate("() => { window.S2R.key('home'); return true; }")
            if not ok:
                info.invalid_action = f"app {app!r} is not installed on this phone"
                return
        elif isinstance(a, Wait):
            tick += a.seconds
        elif isinstance(a, (Answer, Complete, Abort)):
            pass
        else:  # pragma: no cover - every schema action is handled above
            info.invalid_action = f"unsupported action {a.type}"
            return
        if tick:
            await slot.page.evaluate("(s) => window.S2R.tick(s)", tick)

    async def _scroll(self, slot: driver.PageSlot, a: Scroll, info: StepInfo) -> None:
        W, H = self.profile.css_size
        if a.target is not None or a.point is not None:
            p = self._resolve(a, info)
            if p is None:
                return
            cx, cy = p
        else:
            cx, cy = W / 2, H * 0.5
        dist_y, dist_x = H * 0.3, W * 0.35
        dx, dy = {"down": (0, -dist_y), "up": (0, dist_y), "right": (-dist_x, 0), "left": (dist_x, 0)}[a.direction]
        # keep the gesture away from the status bar and navigation edges
        y0 = min(max(cy - dy / 2, 60), H - 90)
        y1 = min(max(y0 + dy, 40), H - 70)
        x0 = min(max(cx - dx / 2, 24), W - 24)
        x1 = min(max(x0 + dx, 20), W - 20)
        await driver.swipe(slot, x0, y0, x1, y1, 300)

    async def _type(self, slot: driver.PageSlot, a: TypeText, info: StepInfo) -> None:
        try:
            check_text(a.text)
        except ValueError as e:
            info.invalid_action = str(e)
            return
        if a.target is not None:
            p = self._resolve(a, info)
            if p is None:
                return
            await driver.tap(slot, *p)
            await driver.settle(slot)
        if not await slot.page.evaluate("() => window.S2R.hasFocus()"):
            info.invalid_action = "no focused text field to type into"
            return
        if a.clear:
            await driver.select_all_in_focused(slot)
            if not a.text:
                await driver.key_event(slot, "Backspace")
        if a.text:
            await driver.insert_text(slot, a.text)
        if a.submit:
            await driver.key_event(slot, "Enter")
