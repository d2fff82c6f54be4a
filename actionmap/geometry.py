"""Screen geometry shared by every backend.

Policies point on a 0–1000 integer grid laid over the *whole* screen the observation
shows (system bars included) — the convention Qwen-VL, AutoGLM, GUI-Owl and MobileGym
policies emit. Keeping the grid resolution-free is what lets one policy run on a
1080×2400 simulator frame and on a 1440×3120 phone without retraining.

Pixel = round(v / 1000 × (size − 1)), clamped to [0, size − 1]; the inverse rounds back,
so pixel → grid → pixel is exact to within one pixel for any screen size ≤ 1001 px per
grid step (every phone).
"""

from __future__ import annotations

import math

GRID = 1000
"""Grid resolution: valid grid coordinates are the integers 0..GRID inclusive."""


def clamp(v: float, lo: float, hi: float) -> float:
    return lo if v < lo else hi if v > hi else v


def grid_to_px(v: float, size: int) -> int:
    """Grid coordinate (0–1000) → pixel index on an axis of ``size`` pixels."""
    if size <= 0:
        raise ValueError(f"axis size must be positive, got {size}")
    return int(clamp(round(v / GRID * (size - 1)), 0, size - 1))


def px_to_grid(p: float, size: int) -> int:
    """Pixel position on an axis of ``size`` pixels → grid coordinate (0–1000)."""
    if size <= 0:
        raise ValueError(f"axis size must be positive, got {size}")
    if size == 1:
        return 0
    return int(clamp(round(p / (size - 1) * GRID), 0, GRID))


def norm_to_grid(f: float) -> int:
    """A [0, 1] float (as some policies emit) → grid coordinate."""
    return int(clamp(round(f * GRID), 0, GRID))


def grid_to_norm(v: float) -> float:
    return clamp(v / GRID, 0.0, 1.0)


def point_to_px(point: tuple[int, int], width: int, height: int) -> tuple[int, int]:
    """Grid point → pixel point on a ``width``×``height`` frame (clamped to w−1, h−1)."""
    return grid_to_px(point[0], width), grid_to_px(point[1], height)


def px_to_point(x: float, y: float, width: int, height: int) -> tuple[int, int]:
    """Pixel point → grid point."""
    return px_to_grid(x, width), px_to_grid(y, height)


def rotated_size(natural_w: int, natural_h: int, rotation: int) -> tuple[int, int]:
    """Size of the displayed frame for a display whose natural (rotation 0) size is given.

    Android rotations: 0 = natural, 1 = 90° counter-clockwise (landscape), 2 = 180°, 3 = 270°.
    """
    r = rotation % 4
    return (natural_w, natural_h) if r % 2 == 0 else (natural_h, natural_w)


def display_to_natural(x: float, y: float, natural_w: int, natural_h: int, rotation: int) -> tuple[float, float]:
    """Map a pixel in the displayed (rotated) frame to the natural (rotation 0) frame.

    Why: some capture paths (raw framebuffers, a few OEM ``screencap`` builds) return the
    natural orientation while ``input`` expects display coordinates, or vice versa. This and
    :func:`natural_to_display` are exact inverses on the pixel lattice.
    """
    r = rotation % 4
    W, H = natural_w, natural_h
    if r == 0:
        return x, y
    if r == 1:  # display is W'=H wide, H'=W tall; natural x = W-1-y', natural y = x'
        return (W - 1) - y, x
    if r == 2:
        return (W - 1) - x, (H - 1) - y
    return y, (H - 1) - x  # r == 3


def natural_to_display(x: float, y: float, natural_w: int, natural_h: int, rotation: int) -> tuple[float, float]:
    """Inverse of :func:`display_to_natural`."""
    r = rotation % 4
    W, H = natural_w, natural_h
    if r == 0:
        return x, y
    if r == 1:
        return y, (W - 1) - x
    if r == 2:
        return (W - 1) - x, (H - 1) - y
    return (H - 1) - y, x  # r == 3


def is_finite_number(v: object) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
