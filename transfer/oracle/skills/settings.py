"""Oracle skills for Settings and quick settings."""

from __future__ import annotations

from actionmap.actions import Tap
from actionmap.geometry import px_to_point

from ..base import Ctx, OracleError, Skill, act, back, open_app, scroll_to, set_switch, tap

# WorldState settings field → (sim label path, aosp label path, switch label) for toggles.
TOGGLES: dict[str, tuple[list[str], list[str], str, str]] = {
    # field: (sim path, aosp path, sim switch label, aosp switch label)
    "wifi": (["Wi‑Fi"], ["Network & internet", "Internet"], "Use Wi‑Fi", "Wi‑Fi"),
    "bluetooth": (["Bluetooth"], ["Connected devices", "Connection preferences", "Bluetooth"], "Use Bluetooth", "Use Bluetooth"),
    "airplane_mode": ([], ["Network & internet"], "Airplane mode", "Airplane mode"),
    "dark_mode": (["Display"], ["Display"], "Dark mode", "Dark theme"),
    "auto_rotate": (["Display"], ["Display"], "Auto-rotate screen", "Auto-rotate screen"),
    "adaptive_brightness": (["Display"], ["Display"], "Adaptive brightness", "Adaptive brightness"),
    "do_not_disturb": (["Sound"], ["Sound & vibration", "Do Not Disturb"], "Do not disturb", "Do Not Disturb"),
    "location": (["Location"], ["Location"], "Use location", "Use location"),
    "mobile_data": ([], ["Network & internet", "SIMs"], "Mobile data", "Mobile data"),
}
SIM_MOBILE = ["Battery"]  # placeholder: the sim flavor reaches Mobile data only through search


def open_settings(ctx: Ctx) -> Skill:
    yield from open_app(ctx, "settings")
    # the app may reopen on a sub-screen: go back to its root
    for _ in range(6):
        if ctx.has("Settings", rid="title") or ctx.has("Settings", cls="TextView") and not ctx.has(desc="Navigate up"):
            break
        if ctx.has(desc="Navigate up"):
            yield from back(ctx)
        else:
            break
    return ctx.obs


def set_toggle(ctx: Ctx, field: str, on: bool) -> Skill:
    """Turn a settings toggle on or off through the Settings app."""
    if field not in TOGGLES:
        raise OracleError(f"no oracle path for setting {field}")
    sim_path, aosp_path, sim_label, aosp_label = TOGGLES[field]
    path, label = (aosp_path, aosp_label) if ctx.flavor == "aosp" else (sim_path, sim_label)
    if field == "mobile_data" and ctx.flavor != "aosp":
        yield from open_settings(ctx)
        yield from tap(ctx, desc="Search")
        yield from act(ctx, __import__("actionmap").TypeText(text="Mobile data"))
        yield from tap(ctx, "Mobile data", cls="TextView", pred=lambda e: e.resource_id.endswith("title"))
        return (yield from set_switch(ctx, "Mobile data", on))
    yield from open_settings(ctx)
    for step in path:
        yield from tap(ctx, step)
    return (yield from set_switch(ctx, label, on))


def set_slider_fraction(ctx: Ctx, slider_desc: str, frac: float) -> Skill:
    """Tap a SeekBar at the position for ``frac`` of its range."""
    el = yield from scroll_to(ctx, desc=slider_desc, cls="SeekBar")
    b = el.bounds
    dpr_px_pad = max(1, round(10 * ctx.obs.screen.density / 160))  # the track is inset by 10 dp
    x = b.left + dpr_px_pad + frac * (b.width - 2 * dpr_px_pad)
    y = b.center[1]
    return (yield from act(ctx, Tap(point=px_to_point(x, y, ctx.obs.screen.width, ctx.obs.screen.height))))


def set_brightness(ctx: Ctx, level: int) -> Skill:
    """Set brightness (0–255) with the Display → Brightness level slider."""
    yield from open_settings(ctx)
    yield from tap(ctx, "Display")
    yield from tap(ctx, "Brightness level")
    return (yield from set_slider_fraction(ctx, "Brightness level", level / 255))


def set_font_size(ctx: Ctx, label: str) -> Skill:
    """label: Small / Default / Large / Largest."""
    yield from open_settings(ctx)
    yield from tap(ctx, "Display")
    yield from tap(ctx, ctx.t("Font size", "Display size and text"))
    return (yield from tap(ctx, label, cls="RadioButton"))


def set_screen_timeout(ctx: Ctx, label: str) -> Skill:
    """label as Android shows it: '30 seconds', '1 minute', '10 minutes'."""
    yield from open_settings(ctx)
    yield from tap(ctx, "Display")
    yield from tap(ctx, "Screen timeout")
    return (yield from tap(ctx, label, cls="RadioButton"))


def read_about(ctx: Ctx, row: str) -> Skill:
    """Open About phone and return the value shown under ``row`` (e.g. 'Model', 'Android version')."""
    yield from open_settings(ctx)
    yield from tap(ctx, "About phone")
    title = yield from scroll_to(ctx, row)
    below = [e for e in ctx.obs.elements if e.text and e.bounds.top >= title.bounds.bottom - 2
             and abs(e.bounds.left - title.bounds.left) < 40 and e.index != title.index]
    if not below:
        raise OracleError(f"no value under {row!r}")
    return min(below, key=lambda e: e.bounds.top).text
