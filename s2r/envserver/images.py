"""The screenshot a session sends: the simulator's own encoding when no size is asked for
(no re-encode on the hot path), else scaled with OpenCV's area filter and encoded as asked."""

from __future__ import annotations

import asyncio
import base64

from actionmap.observation import Observation

from .protocol import SessionConfig


def _scaled(data: bytes, fmt: str, size: tuple[int, int], quality: int) -> bytes:
    import cv2
    import numpy as np

    img = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if img is None:
        raise ValueError("the screenshot could not be decoded")
    img = cv2.resize(img, size, interpolation=cv2.INTER_AREA)
    if fmt == "png":
        ok, out = cv2.imencode(".png", img)
    else:
        ok, out = cv2.imencode(".jpg", img, [int(cv2.IMWRITE_JPEG_QUALITY), quality])
    if not ok:
        raise ValueError(f"the screenshot could not be encoded as {fmt}")
    return out.tobytes()


async def screenshot(obs: Observation, cfg: SessionConfig) -> tuple[str, str, int, int]:
    """``(base64, format, width, height)`` of ``obs``'s screenshot as ``cfg`` asks for it; a
    scale runs on a worker thread so other sessions' steps are not held up by it."""
    if not cfg.pixels or not obs.screenshot:
        return "", "none", 0, 0
    if cfg.image_size is None or cfg.image_size == (obs.width, obs.height):
        return base64.b64encode(obs.screenshot).decode("ascii"), obs.image_format, obs.width, obs.height
    data = await asyncio.to_thread(_scaled, obs.screenshot, cfg.image_format, cfg.image_size, cfg.quality)
    w, h = cfg.image_size
    return base64.b64encode(data).decode("ascii"), cfg.image_format, w, h
