"""Oracle skills for the Phone (dialer) app: dial, call, and read the call log.

Every skill starts with ``open_app`` and gets back to the app's main screen from wherever it
was left (call details, search, the dial pad, an unfinished call — which it ends). Flavors:
``sim`` has top tabs (Keypad, Recents, Contacts) with the dial pad on the first one and
All/Missed chips in Recents; ``aosp`` (Pixel Phone) has bottom navigation, a "key pad" FAB
that opens the dial pad, call-log rows that expand to Message/History, and All/Missed tabs
under overflow → Call history. Digits are entered on the dial pad keys (found by resource
id), a '+' by long-pressing 0 as on a phone; call-log rows are read by the call-type marker
inside each row and opened for their details, never picked by position alone.
"""

from __future__ import annotations

from typing import Any

from actionmap.actions import LongPress, Scroll, Tap
from actionmap.observation import UIElement

from ..base import Ctx, OracleError, Skill, act, back, norm, open_app, scroll_to

KEY_IDS = {"1": "one", "2": "two", "3": "three", "4": "four", "5": "five", "6": "six", "7": "seven", "8": "eight",
           "9": "nine", "0": "zero", "*": "star", "#": "pound"}
# call-type wording (both flavors, as shown in rows and in call details) → WorldState Call.kind
KIND_WORDS = {"missed call": "missed", "missed": "missed", "incoming call": "incoming", "incoming": "incoming",
              "outgoing call": "outgoing", "outgoing": "outgoing", "declined call": "rejected", "declined": "rejected",
              "blocked call": "blocked", "blocked": "blocked", "voicemail": "voicemail"}
KINDS = ("incoming", "outgoing", "missed", "rejected", "blocked", "voicemail")


def _rid(e: UIElement, name: str) -> bool:
    return e.resource_id == name or e.resource_id.endswith("/" + name)


def _tap_el(ctx: Ctx, el: UIElement) -> Skill:
    return (yield from act(ctx, Tap(target=el.index)))


def dial_string(number: str) -> str:
    """What the dial pad can enter for ``number``: digits, '*', '#' and a '+' (spaces, dashes dropped)."""
    return "".join(ch for ch in number if ch in KEY_IDS or ch == "+")


def kind_of(text: str) -> str | None:
    """Map a call-type label ('Missed call', 'Incoming · 07:30') to a Call.kind."""
    head = norm(text).split(" · ")[0].split(" • ")[0]
    return KIND_WORDS.get(head)


# --- navigation -------------------------------------------------------------------------------

def _at_main(ctx: Ctx) -> bool:
    if ctx.flavor == "aosp":
        return ctx.has(rid="navigation_bar", pred=lambda e: "dialer" in e.resource_id)
    return ctx.has("Keypad", rid="tab_keypad")


def open_phone(ctx: Ctx) -> Skill:
    """Open Phone on its main screen; a call left running is ended first."""
    yield from open_app(ctx, "phone")
    for _ in range(8):
        if _at_main(ctx):
            return ctx.obs
        end = ctx.find(desc="End call")
        if end is not None:
            yield from _tap_el(ctx, end)
        else:
            yield from back(ctx)
        if ctx.obs.foreground.app != "phone":
            yield from open_app(ctx, "phone")
    raise OracleError("could not get back to the Phone main screen")


def open_dialpad(ctx: Ctx) -> Skill:
    yield from open_phone(ctx)
    if ctx.flavor == "aosp":
        yield from _tap_el(ctx, (yield from scroll_to(ctx, desc="key pad")))
    else:
        yield from _tap_el(ctx, (yield from scroll_to(ctx, "Keypad", rid="tab_keypad")))
    if not ctx.has(rid="digits"):
        raise OracleError("the dial pad did not open")
    return ctx.obs


def _digits(ctx: Ctx) -> str:
    el = ctx.find(rid="digits")
    return el.text if el is not None else ""


def _key(ctx: Ctx, rid: str) -> UIElement:
    el = ctx.find(rid=rid, pred=lambda e: e.clickable)
    if el is None:
        raise OracleError(f"no dial pad key {rid}")
    return el


# --- operations -------------------------------------------------------------------------------

def dial_number(ctx: Ctx, number: str) -> Skill:
    """Enter ``number`` on the dial pad (clearing what was there) without calling."""
    want = dial_string(number)
    if not any(ch.isdigit() for ch in want):
        raise OracleError(f"nothing to dial in {number!r}")
    yield from open_dialpad(ctx)
    if _digits(ctx):
        # a long press on backspace clears the whole number
        yield from act(ctx, LongPress(target=_key(ctx, "deleteButton").index))
        if _digits(ctx):
            raise OracleError("could not clear the dial pad")
    for ch in want:
        if ch == "+":
            yield from act(ctx, LongPress(target=_key(ctx, "zero").index))
        else:
            yield from act(ctx, Tap(target=_key(ctx, KEY_IDS[ch]).index))
    if _digits(ctx) != want:
        raise OracleError(f"the dial pad shows {_digits(ctx)!r}, wanted {want!r}")
    return ctx.obs


def call_number(ctx: Ctx, number: str, hang_up: bool = True) -> Skill:
    """Dial ``number`` and press call; with ``hang_up`` end the call (which logs it)."""
    yield from dial_number(ctx, number)
    dial = ctx.find(desc="dial")
    if dial is None:
        raise OracleError("no call button on the dial pad")
    yield from _tap_el(ctx, dial)
    end = ctx.find(desc="End call")
    if end is None:
        raise OracleError("the call did not start")
    if hang_up:
        yield from _tap_el(ctx, end)
        if ctx.has(desc="End call"):
            raise OracleError("the call did not end")
    return ctx.obs


# --- queries ----------------------------------------------------------------------------------

def _row_kind(ctx: Ctx, row: UIElement) -> str | None:
    b = row.bounds
    for e in ctx.obs.elements:
        if e.index == row.index or not (b.top <= e.bounds.center[1] <= b.bottom and b.left <= e.bounds.center[0] <= b.right):
            continue
        for s in (e.content_desc, e.text):
            k = kind_of(s) if s else None
            if k:
                return k
    return None


def open_recents(ctx: Ctx, missed: bool = False) -> Skill:
    """Show the call log, newest first; with ``missed`` only missed calls (sim: chip, aosp: Call history)."""
    yield from open_phone(ctx)
    if ctx.flavor == "aosp":
        if missed:
            yield from _tap_el(ctx, (yield from scroll_to(ctx, desc="More options")))
            yield from _tap_el(ctx, (yield from scroll_to(ctx, "Call history", rid="android:id/title")))
            yield from _tap_el(ctx, (yield from scroll_to(ctx, "Missed", rid="tab_missed")))
        else:
            yield from _tap_el(ctx, (yield from scroll_to(ctx, desc="Recents")))
    else:
        yield from _tap_el(ctx, (yield from scroll_to(ctx, "Recents", rid="tab_recents")))
        if missed:
            yield from _tap_el(ctx, (yield from scroll_to(ctx, "Missed", rid="filter_missed")))
    return ctx.obs


def _read_details(ctx: Ctx) -> dict[str, Any]:
    name = ctx.find(rid="contact_name")
    number = ctx.find(rid="phone_number")
    ctype = ctx.find(rid="call_type")
    when = ctx.find(rid="call_time")
    if name is None or number is None or ctype is None:
        raise OracleError("the call details screen did not open")
    return {"name": "" if name.text == number.text else name.text, "number": number.text,
            "kind": kind_of(ctype.text) or ctype.text, "time": when.text if when else ""}


def read_last_call(ctx: Ctx, kind: str | None = None) -> Skill:
    """Name, number and kind (and the shown time) of the newest call, or the newest call of ``kind``.

    Returns ``{}`` when the log has no such call.
    """
    if kind is not None and kind not in KINDS:
        raise OracleError(f"unknown call kind {kind!r}; known: {', '.join(KINDS)}")
    yield from open_recents(ctx, missed=kind == "missed")
    row = None
    for _ in range(ctx.max_scrolls + 1):
        rows = sorted(ctx.find_all(rid="call_log_row"), key=lambda e: e.bounds.top)
        for r in rows:
            k = _row_kind(ctx, r)
            if k is not None and (kind is None or k == kind):
                row = r
                break
        if row is not None:
            break
        before = [(e.text, e.bounds) for e in ctx.obs.elements]
        lst = ctx.find(rid="list", pred=lambda e: e.scrollable)
        yield from act(ctx, Scroll(direction="down", target=lst.index) if lst else Scroll(direction="down"))
        if [(e.text, e.bounds) for e in ctx.obs.elements] == before:
            break
    if row is None:
        return {}
    yield from _tap_el(ctx, row)
    if ctx.flavor == "aosp":
        hist = ctx.find("History", rid="call_log_action_history")
        if hist is None:
            raise OracleError("the call-log row did not expand")
        yield from _tap_el(ctx, hist)
    return _read_details(ctx)
