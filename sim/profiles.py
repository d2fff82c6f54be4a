"""Device profiles and flavors: the knobs that make one simulator look like many phones.

A *profile* sets the screen (pixels, density → CSS viewport and pixel ratio), font scale,
dark mode and navigation style. A *flavor* changes app structure and wording (``sim`` is
our own; ``aosp`` follows the AOSP apps; ``google`` follows the apps a Pixel ships, with their
``com.google.android.*`` packages). Both serve domain randomization in training and
the virtual phone's sim-to-real gap.
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import BaseModel, Field

Flavor = Literal["sim", "aosp", "google"]
FLAVORS: tuple[str, ...] = ("sim", "aosp", "google")


class DeviceProfile(BaseModel):
    name: str
    width_px: int = Field(gt=0)
    height_px: int = Field(gt=0)
    density: int = Field(gt=0, description="Android dpi; CSS pixel ratio = density / 160.")
    navigation: Literal["3button", "gesture"] = "3button"
    font_scale: float = 1.0
    dark_mode: bool = False
    model: str = "s2r Phone"
    manufacturer: str = "s2r"
    animations: bool = Field(False, description="Keep frames changing for a while after input (a device gap).")

    @property
    def dpr(self) -> float:
        return self.density / 160.0

    @property
    def viewport(self) -> tuple[int, int]:
        """CSS viewport large enough to cover the pixel size at this ratio."""
        return math.ceil(self.width_px / self.dpr - 1e-9), math.ceil(self.height_px / self.dpr - 1e-9)

    @property
    def css_size(self) -> tuple[float, float]:
        """Exact CSS size of the screen (may be fractional); screenshots are clipped to it."""
        return self.width_px / self.dpr, self.height_px / self.dpr


PROFILES: dict[str, DeviceProfile] = {
    p.name: p
    for p in [
        DeviceProfile(name="default", width_px=1080, height_px=2400, density=480, model="s2r Phone 8"),
        DeviceProfile(name="tall", width_px=1080, height_px=2412, density=420, model="s2r Phone 8 Pro"),
        DeviceProfile(name="compact", width_px=720, height_px=1560, density=320, model="s2r Phone Lite"),
        DeviceProfile(name="gesture", width_px=1080, height_px=2400, density=480, navigation="gesture", model="s2r Phone 8"),
        DeviceProfile(name="large-font", width_px=1080, height_px=2400, density=480, font_scale=1.15, model="s2r Phone 8"),
        DeviceProfile(name="dark", width_px=1080, height_px=2400, density=480, dark_mode=True, model="s2r Phone 8"),
        # The virtual phone's default: a Pixel-like 1080x2400 at 440 dpi — unlike the sim default.
        DeviceProfile(name="pixel", width_px=1080, height_px=2400, density=440, model="Pixel 7", manufacturer="Google"),
    ]
}


def get_profile(name: str | DeviceProfile) -> DeviceProfile:
    if isinstance(name, DeviceProfile):
        return name
    try:
        return PROFILES[name]
    except KeyError:
        raise ValueError(f"unknown profile {name!r}; known: {', '.join(PROFILES)}") from None
