"""uiautomator2's JSON-RPC methods about the device and its screen: info, power, rotation, the
shade, toasts, screenshots and hierarchy dumps.

Why its own module: one subject of the server's ~90 methods (the others: :mod:`.u2_rpc_input`,
:mod:`.u2_rpc_select`); a mixin over :class:`~device.virtual.u2_rpc.RpcBase`.
"""

from __future__ import annotations

import asyncio
import base64
import time
from typing import Any

from .costs import dump_cost_ms, spend
from .systemui import clipboard_overlay, screen_xml
from .u2_errors import invalid, to_bool, to_float, to_int, unsupported
from .u2_rpc import RpcBase
from .uitree import parse_tree, write_tree

__all__ = ["DeviceMethods"]


class DeviceMethods(RpcBase):
    """``deviceInfo``, ``wakeUp``/``sleep``/``isScreenOn``, rotation, ``openNotification``/
    ``openQuickSettings``, toasts, ``takeScreenshot``, ``dumpWindowHierarchy``."""

    # ================================================================== device
    async def rpc_deviceInfo(self) -> dict[str, Any]:
        info = await self._call(self.phone.info)
        disp = info.get("display") or {}
        W, H = int(disp.get("width") or 0), int(disp.get("height") or 0)
        if not W or not H:
            W, H = await self._screen()
        density = int(disp.get("density") or 160)
        fg = (info.get("foreground") or {}).get("package") or (await self._call(self.phone.foreground))[0]
        return {
            "currentPackageName": fg,
            "displayHeight": H,
            "displayWidth": W,
            "displayRotation": int(disp.get("rotation") or 0),
            "displaySizeDpX": round(W * 160 / density),
            "displaySizeDpY": round(H * 160 / density),
            "naturalOrientation": int(disp.get("rotation") or 0) in (0, 2),
            "productName": info.get("product") or "",
            "screenOn": bool(disp.get("screen_on", True)),
            "sdkInt": int(info.get("sdk") or 0),
        }

    async def rpc_wakeUp(self) -> None:
        await self._call(self.phone.key, "WAKEUP")

    async def rpc_sleep(self) -> None:
        await self._call(self.phone.key, "SLEEP")

    async def rpc_isScreenOn(self) -> bool:
        on = getattr(self.phone, "screen_on", None)
        if on is None:
            info = await self._call(self.phone.info)
            on = (info.get("display") or {}).get("screen_on", True)
        return bool(on)

    async def rpc_freezeRotation(self, freeze: Any = True) -> None:
        self._rotation_frozen = to_bool(freeze, "freeze")

    async def rpc_setOrientation(self, orientation: Any) -> None:
        value = str(orientation).lower()
        if value in ("n", "natural", "0"):
            self._rotation_frozen = True
            return
        if value in ("l", "left", "r", "right", "u", "upsidedown", "1", "2", "3"):
            raise unsupported(f"setOrientation({orientation!r}): the simulated display is portrait-only")
        raise invalid(f"unknown orientation {orientation!r}")

    async def rpc_getDisplayRotation(self) -> int:
        return int(getattr(self.phone, "rotation", 0) or 0)

    async def _shade(self, which: str) -> bool:
        mutate = getattr(self.phone, "mutate", None)
        if mutate is None:  # no state access: pull the shade down with a swipe from the top edge
            W, H = await self._screen()
            await self._call(self.phone.swipe, W / 2, 2, W / 2, H * 0.6, 300)
            return True

        def open_shade(d: dict[str, Any]) -> None:
            d["ui"]["shade"] = which
        await self._call(mutate, open_shade)
        return True

    async def rpc_openNotification(self) -> bool:
        return await self._shade("notifications")

    async def rpc_openQuickSettings(self) -> bool:
        return await self._shade("quick")

    async def rpc_makeToast(self, text: Any, duration: Any = 1000) -> bool:
        """Show a toast on the phone's screen (the sim draws ``ui.toast``)."""
        msg = str(text)
        mutate = getattr(self.phone, "mutate", None)
        if mutate is not None:
            def show(d: dict[str, Any]) -> None:
                d.setdefault("ui", {})["toast"] = {"text": msg, "ttl": 2}
            await self._call(mutate, show)
        self._toast = msg
        self._toast_on_screen = msg if mutate is not None else None
        return True

    async def rpc_getLastToast(self) -> str | None:
        await self._note_toast()
        return self._toast

    async def rpc_clearLastToast(self) -> None:
        self._toast = None

    async def rpc_getLastTraversedText(self) -> str | None:
        return None

    async def rpc_clearLastTraversedText(self) -> None:
        return None

    # ================================================================== screen
    async def rpc_takeScreenshot(self, scale: Any = 1.0, quality: Any = 80) -> str:
        """The whole frame as a base64 JPEG at ``quality``. ``scale`` is accepted and *ignored*, as
        uiautomator2's server does (android-uiautomator-server ``AutomatorServiceImpl
        .takeScreenshot(float scale, int quality)``: ``uiAutomation.takeScreenshot()`` compressed
        whole, the scale never applied), so a "small" frame costs and weighs a full one."""
        to_float(scale, "scale")
        q = to_int(quality, "quality")
        s = 1.0
        q = min(max(q, 1), 100)
        t0 = time.perf_counter()
        png = await self._call(self.phone.screenshot_png)  # the capture instant: the frame is this one
        kn = getattr(self.phone, "knobs", None)
        out = await self._jpeg_b64(png, s, q)
        # the published figure is capture *and* encode: this phone's own encoding counts toward it
        await spend(kn.jpeg_ms(s) if kn is not None and hasattr(kn, "jpeg_ms") else 0.0, since=t0)
        return out

    async def _jpeg_b64(self, png: bytes, s: float, q: int) -> str:
        overlay = clipboard_overlay(self.phone)
        if overlay.visible:  # SystemUI draws its clipboard overlay over the app
            png = await self._call(overlay.draw, png)
        cached = self._jpeg_cache
        if cached is not None and cached[0] is png and cached[1] == (s, q):
            return cached[2]  # the phone handed back the very same frame object: same answer
        jpg = await asyncio.get_running_loop().run_in_executor(None, _png_to_jpeg, png, s, q)
        out = base64.b64encode(jpg).decode("ascii")
        self._jpeg_cache = (png, (s, q), out)
        return out

    async def rpc_dumpWindowHierarchy(self, compressed: Any = False, maxDepth: Any = 50,
                                      rootInActive: Any = None) -> str:
        comp = to_bool(compressed, "compressed")
        depth = None if maxDepth is None else to_int(maxDepth, "maxDepth")
        t0 = time.perf_counter()
        xml = await self._call(self.phone.hierarchy_xml, False)
        xml = await self._call(screen_xml, self.phone, xml)  # decor chain, SystemUI's overlay
        await spend(dump_cost_ms(self.phone, xml), since=t0)  # the walk's cost covers our own rendering
        if not comp and depth is None:
            return xml
        tree = parse_tree(xml)
        deepest = max((n.depth for n in tree.nodes), default=0)
        if not comp and depth is not None and deepest <= depth:
            return xml  # nothing to prune: the phone's dump, byte for byte
        return write_tree(tree, max_depth=depth, compressed=comp)


def _png_to_jpeg(png: bytes, scale: float, quality: int) -> bytes:
    import cv2
    import numpy as np

    img = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR)
    if img is None:
        raise RuntimeError("the phone returned an undecodable screenshot")
    if scale != 1.0:
        h, w = img.shape[:2]
        img = cv2.resize(img, (max(1, round(w * scale)), max(1, round(h * scale))), interpolation=cv2.INTER_AREA)
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    return buf.tobytes()
