"""Captured frames as images: their size, brightness and whether two show the same screen.

A capture is a :class:`FrameInfo` (the encoded bytes, their format and size, and the mean and
spread of their grey levels). An all-black frame (a ``FLAG_SECURE`` window, a screen that went
off) is told apart by :func:`is_black`, so it is *reported*, never passed off as a real frame;
:func:`frames_agree` is what the settle (:mod:`device.settle`) compares two frames with. Pure
functions over bytes: no phone here, which keeps them testable on saved captures.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel

__all__ = ["FrameInfo", "frame_stats", "is_black", "frames_agree", "image_size", "SMALL_FRAME_SCALE",
           "COMPARE_WIDTH"]

#: The scale of the frames a frame-difference check compares (uiautomator2 ``takeScreenshot``).
SMALL_FRAME_SCALE = 0.2
#: Width frames are reduced to before the comparison halves them (0.2 × a 1080-px-wide frame).
COMPARE_WIDTH = 216


def frames_agree(a: bytes, b: bytes, *, level: int = 40, tolerance: float = 0.0005) -> bool:
    """Whether two captures show the same screen: both reduced to one size in grey (area
    averaging smooths JPEG and scaling noise), and at most ``tolerance`` of the pixels differ by
    more than ``level``. A blinking text cursor (Editor's 500 ms blink, a few pixels) stays
    under it; a spinner, a video or a transition does not."""
    if a == b:
        return True
    import cv2
    import numpy as np

    def grey(data: bytes) -> Any:
        if not data:
            return None
        size = image_size(data)
        # a whole-frame JPEG (uiautomator2 ignores `scale`) is decoded at 1/4 by libjpeg itself
        flag = cv2.IMREAD_REDUCED_GRAYSCALE_4 if size and size[0] >= 4 * COMPARE_WIDTH else cv2.IMREAD_GRAYSCALE
        return cv2.imdecode(np.frombuffer(data, np.uint8), flag)

    ia, ib = grey(a), grey(b)
    if ia is None or ib is None:
        return False
    # one comparison size whatever the captures' sizes: about 1/5 of a phone's width, halved
    w = max(8, min(ib.shape[1], COMPARE_WIDTH) // 2)
    h = max(8, round(w * ib.shape[0] / ib.shape[1]))
    ra = cv2.resize(ia, (w, h), interpolation=cv2.INTER_AREA)
    rb = cv2.resize(ib, (w, h), interpolation=cv2.INTER_AREA)
    return float((cv2.absdiff(ra, rb) > level).mean()) <= tolerance


class FrameInfo(BaseModel):
    data: bytes = b""
    format: Literal["png", "jpeg", "none"] = "none"
    width: int = 0
    height: int = 0
    mean: float | None = None
    std: float | None = None
    source: str = ""
    error: str | None = None

    @property
    def black(self) -> bool:
        return self.mean is not None and is_black(self.mean, self.std or 0.0)


def is_black(mean: float, std: float) -> bool:
    return mean < 4.0 and std < 4.0


def frame_stats(data: bytes) -> tuple[int, int, float, float] | None:
    """(width, height, mean, std) of an encoded image; None if it does not decode."""
    import cv2
    import numpy as np

    arr = np.frombuffer(data, np.uint8)
    img = cv2.imdecode(arr, cv2.IMREAD_REDUCED_GRAYSCALE_4)
    if img is None:
        return None
    w, h = image_size(data) or (img.shape[1] * 4, img.shape[0] * 4)
    return w, h, float(img.mean()), float(img.std())


def image_size(data: bytes) -> tuple[int, int] | None:
    """Width and height from the PNG IHDR or the JPEG SOF marker (no full decode)."""
    if data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) >= 24:
        return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    if data[:2] == b"\xff\xd8":
        i = 2
        while i + 9 < len(data):
            if data[i] != 0xFF:
                i += 1
                continue
            m = data[i + 1]
            if m in (0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF):
                return int.from_bytes(data[i + 7:i + 9], "big"), int.from_bytes(data[i + 5:i + 7], "big")
            if m in (0xD8, 0x01) or 0xD0 <= m <= 0xD7:
                i += 2
                continue
            i += 2 + int.from_bytes(data[i + 2:i + 4], "big")
    return None
