"""UI probes: what the readers and writers learn by driving a phone's screen (the Clock app's
alarm list, the dial pad), through a ``ui`` object the caller passes in (:class:`UIProbe`).

The probe opens an app, reads its screens by role through the app UI layer (:mod:`device.apps`)
and goes home; nothing here names a resource id or a label.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Protocol

from actionmap.observation import UIElement
from actionmap.worldstate import Alarm
from device.adbshell import DeviceLost
from device.readers.clock import ClockScreen, _norm

__all__ = ["UIProbe", "probe_family", "open_alarm_list", "scroll_to_top", "probe_alarms", "is_dialer_package",
           "dial_pad_number"]


def probe_family(ui: Any, app: str) -> str | None:
    """The family of ``app`` on the probed phone, when the probe knows it (``DeviceEnv.probe_family``);
    None lets the driver tell the family from the screen's package."""
    fn = getattr(ui, "probe_family", None)
    if fn is None:
        return None
    try:
        return fn(app)
    except DeviceLost:
        raise
    except Exception:  # noqa: BLE001 - the family is a hint: the screen's package still tells it
        return None



def _phone_driver() -> Any:
    from device.apps import driver

    try:
        return driver("phone")
    except KeyError:
        return None


def is_dialer_package(package: str | None) -> bool:
    """The package is a dialer: one the Phone driver's family data ships, or the registry's phone app."""
    if not package:
        return False
    drv = _phone_driver()
    if drv is not None and drv.family_of(package) is not None:
        return True
    from device.apps import app_of_package

    return app_of_package(package) == "phone"


def dial_pad_number(elements: Sequence[UIElement], family: str | None = None) -> str | None:
    """The number on a dialer's pad as the Phone driver reads it (``digits``), keeping only what a pad
    can enter; None when no dial pad is on screen (another app, or the dialer without its pad)."""
    from device.apps.base import foreground_package

    drv = _phone_driver()
    pkg = foreground_package(elements)
    if drv is None or not is_dialer_package(pkg):
        return None
    fam = family or drv.family_of(pkg, None, elements)
    m = drv.matcher(elements, fam, pkg)
    text = drv.read(elements, package=pkg, family=fam).visible.get("digits")
    if text is None:  # a screen the driver does not name: the number field, if it is there
        e = m.first("digits")
        if e is None:
            return None
        text = "" if e.hint and _norm(e.text) == _norm(e.hint) else (e.text or "")
    return re.sub(r"[^0-9*#+,;]", "", str(text))


class UIProbe(Protocol):
    """What the alarm probe needs from a driven phone (``DeviceEnv`` provides it).

    A probe may also offer ``probe_family(app) -> str | None``, the family of an app on the phone
    (see :func:`probe_family`)."""

    def probe_open(self, app: str) -> None: ...
    def probe_elements(self) -> list[UIElement]: ...
    def probe_tap(self, e: UIElement) -> None: ...
    def probe_scroll(self, down: bool) -> None: ...
    def probe_home(self) -> None: ...


def open_alarm_list(ui: UIProbe, max_pages: int = 8) -> list[UIElement]:
    """Open the Clock app on its Alarm tab, scrolled to the top; returns what is on screen.

    The app may resume where someone left it (another tab, a scrolled list), so the Alarm tab is
    chosen (when it is not the selected one, or the screen is not the alarm list) and the list
    scrolled up until it stops moving.
    """
    ui.probe_open("clock")
    els = ui.probe_elements()
    screen = ClockScreen(els, probe_family(ui, "clock"))
    tab = screen.alarm_tab()
    if tab is not None and (not tab.selected or not screen.is_alarm_list()):
        ui.probe_tap(tab)
        els = ui.probe_elements()
    # A first-launch tooltip (Google Clock's Bedtime hint, a popup window over the lower part of the
    # list) hides the cards' switches beneath it, and a short list does not scroll out from under
    # it. A person taps it away: that only records the hint as shown, no alarm changes.
    for _ in range(2):
        tip = ClockScreen(els, probe_family(ui, "clock")).m.first("tooltip")
        if tip is None:
            break
        ui.probe_tap(tip)
        els = ui.probe_elements()
    return scroll_to_top(ui, els, max_pages)


def scroll_to_top(ui: UIProbe, els: list[UIElement], max_pages: int = 8) -> list[UIElement]:
    """Scroll up until the screen stops changing; returns what is on screen then."""
    last = None
    for _ in range(max_pages):
        if not any(e.scrollable for e in els):
            break
        texts = [e.text for e in els if e.text]
        if texts == last:
            break
        last = texts
        ui.probe_scroll(False)
        els = ui.probe_elements()
    return els


def probe_alarms(ui: UIProbe, max_pages: int = 8) -> list[Alarm] | None:
    """Read every alarm from the Clock app's list (top to bottom), then go home.

    Alarms identical in every shown field are reported once (the list cannot tell them apart).
    None when no page showed the alarm list (the Clock app is missing, or shows something else).
    """
    els = open_alarm_list(ui)
    family = probe_family(ui, "clock")
    seen: dict[tuple[int, int, str, tuple[str, ...], bool], Alarm] = {}
    pages = 0
    found_list = False
    last_texts: list[str] | None = None
    cut: list[Alarm] = []  # items seen only cut by the list's edge, on any page
    while True:
        # an item cut by the list's edge is read on the page that shows it whole (pages overlap)
        edge: list[Alarm] = []
        screen = ClockScreen(els, family)
        got = []
        for c in screen.cards():
            (edge if screen.clipped(c) else got).append(screen.alarm(c))
        cut += edge
        found_list = found_list or bool(got) or bool(edge) or screen.is_alarm_list()
        for a in got:
            seen.setdefault((a.hour, a.minute, a.label, tuple(a.days), a.enabled), a)
        pages += 1
        texts = [e.text for e in els if e.text]
        end = pages >= max_pages or texts == last_texts or not any(e.scrollable for e in els)
        if end:
            # an item never seen whole (taller than a page, e.g. expanded) is taken from the page
            # that showed the most of it: its label and days, where some page showed them
            whole = {(b.hour, b.minute) for b in seen.values()}
            best: dict[tuple[int, int], Alarm] = {}
            for a in cut:
                k = (a.hour, a.minute)
                if k not in whole and (k not in best or (bool(a.label), len(a.days)) >
                                       (bool(best[k].label), len(best[k].days))):
                    best[k] = a
            for a in best.values():
                seen.setdefault((a.hour, a.minute, a.label, tuple(a.days), a.enabled), a)
            break
        last_texts = texts
        ui.probe_scroll(True)
        els = ui.probe_elements()
    if pages > 1:
        scroll_to_top(ui, els, max_pages)  # leave the list as the app shows it when opened
    ui.probe_home()
    if not found_list:
        return None
    return list(seen.values())
