"""The screen as the policy last saw it: the step's observation, and where the next action lands.

:class:`ScreenView` turns the :class:`~device.observe.Observer`'s captures into the step's
observation (settled by the step's rule, run tags removed, rotation followed) and keeps the
last one, because an action is read against it: a target index names one of its elements, and a
grid point is mapped through its frame and rotation onto the display (:meth:`ScreenView.geometry`,
:meth:`ScreenView.grid_px`). The action executor, the UI probe and the episode's start screen all
look through it, so there is one idea of "the screen now" per phone.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from actionmap.geometry import natural_to_display, rotated_size
from actionmap.observation import Observation, Screen, UIElement
from device.input import Geometry
from device.observe import Observer, ObserveMeta
from device.options import DeviceOptions
from device.parsers import Hierarchy
from device.preflight import Preflight
from device.readers import TAG_INVISIBLE_RE, TAG_RE, untagged

if TYPE_CHECKING:
    from device.session import PhoneSession

__all__ = ["ScreenView", "without_run_tags", "blank_observation"]

_MARKS = re.compile(f"{TAG_RE.pattern}|{TAG_INVISIBLE_RE.pattern}")


def without_run_tags(elements: list[UIElement]) -> list[UIElement]:
    """The elements as a person sees them: setup's run tags are bookkeeping, not UI.

    Markers are removed from text and descriptions, and an element that showed nothing but a
    marker (the label line of an alarm set up without a label) is dropped, as the app shows
    no label there; indices are renumbered. Untagged elements come back as they were.
    """
    out: list[UIElement] = []
    for e in elements:
        if not (_MARKS.search(e.text) or _MARKS.search(e.content_desc)):
            out.append(e.model_copy(update={"index": len(out)}) if e.index != len(out) else e)
            continue
        text, desc = untagged(e.text), untagged(e.content_desc)
        if not text.strip() and not desc.strip() and not (e.clickable or e.editable or e.checkable or e.scrollable
                                                          or e.long_clickable):
            continue
        out.append(e.model_copy(update={"index": len(out), "text": text, "content_desc": desc}))
    return out


def blank_observation(pf: Preflight | None, step: int) -> Observation:
    """An observation with no screen content (what a step returns when it could not look)."""
    w, h = pf.display_size if pf and pf.display_size else (1080, 2400)
    return Observation(screen=Screen(width=w, height=h, density=(pf.density if pf else None) or 420),
                       image_format="none", step=step)


class ScreenView:
    """The last observation of one phone and the geometry derived from it.

    The phone's facts (``pf``: natural size, rotation, bars, density) are the session's; the
    observer is attached when the session has started (:attr:`observer`)."""

    def __init__(self, session: PhoneSession, options: DeviceOptions):
        self.session = session
        self.options = options
        self.observer: Observer | None = None
        self.step = 0  # steps since the episode's start screen (the observation's `step`)
        self.last_obs: Observation | None = None
        self.last_hier: Hierarchy | None = None

    @property
    def pf(self) -> Preflight | None:
        return self.session.pf

    def restart(self) -> None:
        """A new episode: step 0, nothing seen yet."""
        self.step = 0
        self.last_obs = None

    def blank(self) -> Observation:
        return blank_observation(self.pf, self.step)

    # ------------------------------------------------------------------ looking
    def look(self, settle: bool) -> tuple[Observation, ObserveMeta, str | None]:
        """The step's observation (after the step's wait when ``settle``), how it was taken,
        and the settled dump when it may be reused for reads of this same screen."""
        observer, pf = self.observer, self.pf
        assert observer is not None and pf is not None
        # the step's own wait: the screenshot the policy reads is taken concurrently with it
        xml, meta = (observer.settle(self.options.settle, self.options.settle_cap_s, self.options.settle_interval_s,
                                     with_frame=observer.screenshots, fixed_s=self.options.settle_fixed_s)
                     if settle else (None, ObserveMeta()))
        rot = self.last_obs.screen.rotation if self.last_obs else pf.rotation
        display = rotated_size(*(pf.natural_size or (1080, 2400)), rot)
        obs, meta, hier = observer.observe(step=self.step, display=display, density=pf.density or 420,
                                           rotation=rot, xml=xml, meta=meta)
        obs.elements = without_run_tags(obs.elements)
        # nothing acts until the next step: a read of the screen may reuse the settled dump
        reusable = xml if settle and meta.settled and xml is not None and not meta.blank_retries else None
        if obs.screen.rotation != rot:  # the phone rotated: rotation-aware geometry from now on
            pf.rotation = obs.screen.rotation
        self.last_obs, self.last_hier = obs, hier
        return obs, meta, reusable

    def settle_inside(self) -> tuple[str | None, ObserveMeta]:
        """A wait inside one action (typing, a UI probe): s2r's own procedure needs the screen
        settled there whatever the step's rule, so 'fixed' and 'androidworld' (which model how
        peers end a step) use the adaptive wait here and only the step's end follows them."""
        assert self.observer is not None
        mode = self.options.settle if self.options.settle in ("hierarchy", "frame", "none") else "hierarchy"
        return self.observer.settle(mode, self.options.settle_cap_s, self.options.settle_interval_s)

    def element(self, index: int) -> UIElement | None:
        """Element ``index`` of the last observation, if there is one."""
        return self.last_obs.element(index) if self.last_obs else None

    # ------------------------------------------------------------------ geometry
    def geometry(self) -> Geometry:
        """The display the next action lands on (rotation applied) and the frame last shown."""
        pf = self.pf
        assert pf is not None and pf.natural_size is not None
        rot = self.last_obs.screen.rotation if self.last_obs else pf.rotation
        dw, dh = rotated_size(*pf.natural_size, rot)
        fw, fh = (self.last_obs.width, self.last_obs.height) if self.last_obs else (dw, dh)
        return Geometry(display_w=dw, display_h=dh, frame_w=fw, frame_h=fh, status_bar_px=pf.status_bar_px or 0,
                        nav_bar_px=pf.nav_bar_px or 0, nav_bar_side=pf.nav_bar_side)

    def grid_px(self, point: tuple[int, int], geo: Geometry) -> tuple[int, int]:
        """Grid → display px; if the frame is in the natural orientation of a rotated
        display (some capture paths), map through the rotation."""
        pf = self.pf
        assert pf is not None
        rot = self.last_obs.screen.rotation if self.last_obs else pf.rotation
        frame_landscape = geo.frame_w > geo.frame_h
        display_landscape = geo.display_w > geo.display_h
        if rot % 2 and geo.frame_w != geo.frame_h and frame_landscape != display_landscape and pf.natural_size:
            nat = Geometry(display_w=pf.natural_size[0], display_h=pf.natural_size[1],
                           frame_w=geo.frame_w, frame_h=geo.frame_h)
            x, y = nat.grid(point)
            dx, dy = natural_to_display(x, y, *pf.natural_size, rot)
            return int(dx), int(dy)
        return geo.grid(point)
