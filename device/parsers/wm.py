"""``wm size`` / ``wm density`` → physical and override values; the override is what apps see.

A phone whose user picked a smaller display size (or a test harness that ran
``wm size 1080x1920``) reports both lines; screenshots, uiautomator bounds and ``input tap``
coordinates all follow the override, so :attr:`WmInfo.size` prefers it.
"""

from __future__ import annotations

import re

from pydantic import BaseModel

from ._common import ParseError, normalize_text

__all__ = ["WmInfo", "parse_wm"]

_SIZE = re.compile(r"^\s*(Physical|Override) size:\s*(\d+)\s*x\s*(\d+)\s*$", re.M | re.I)
_DENSITY = re.compile(r"^\s*(Physical|Override) density:\s*(\d+)\s*$", re.M | re.I)


class WmInfo(BaseModel):
    physical_size: tuple[int, int] | None = None
    override_size: tuple[int, int] | None = None
    physical_density: int | None = None
    override_density: int | None = None

    @property
    def size(self) -> tuple[int, int] | None:
        """Effective (width, height) in the natural orientation: the override wins."""
        return self.override_size or self.physical_size

    @property
    def density(self) -> int | None:
        return self.override_density or self.physical_density


def parse_wm(text: str | bytes) -> WmInfo:
    """Parse ``wm size``, ``wm density`` or both concatenated (the first display's lines)."""
    t = normalize_text(text)
    info = WmInfo()
    for m in _SIZE.finditer(t):
        v = (int(m.group(2)), int(m.group(3)))
        if m.group(1).lower() == "physical":
            info.physical_size = info.physical_size or v
        else:
            info.override_size = info.override_size or v
    for m in _DENSITY.finditer(t):
        d = int(m.group(2))
        if m.group(1).lower() == "physical":
            info.physical_density = info.physical_density or d
        else:
            info.override_density = info.override_density or d
    if info.size is None and info.density is None:
        raise ParseError("no 'Physical size:'/'Override size:' or '… density:' line: not `wm size|density` output")
    return info


def parse_wm_size(text: str | bytes) -> tuple[int, int]:
    """The effective size, or ``ParseError``."""
    size = parse_wm(text).size
    if size is None:
        raise ParseError("no size line in `wm size` output")
    return size


def parse_wm_density(text: str | bytes) -> int:
    """The effective density, or ``ParseError``."""
    d = parse_wm(text).density
    if d is None:
        raise ParseError("no density line in `wm density` output")
    return d


__all__ += ["parse_wm_size", "parse_wm_density"]
