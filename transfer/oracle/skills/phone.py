"""Oracle skills for the Phone (dialer) app: dial, call, and read the call log.

Every skill starts with ``open_app`` and gets back to the app's main screen from wherever it
was left (call details, search, the dial pad, an unfinished call — which it ends). Controls are
found by role through the app UI layer (``device/apps/data/phone.yaml``): the dial pad's
``digits``, its ``key_0`` … ``key_pound``, ``call``, ``end_call``, the call log's
``call_log_row`` and so on, each as the phone's family marks it. Where families differ in the
way there (the ``sim`` flavor's Keypad tab and Missed chip, AOSP's dial-pad button and its
overflow → Call history → Missed), the family's data names the roles to tap (``dialpad_path``,
``recents_path``, ``missed_path``). Digits are entered on the keys, a '+' by long-pressing 0 as
on a phone; call-log rows are read by the call kind shown *inside* each row (the family's
``call_kinds`` wording) and opened for their details, never picked by position alone.
"""

from __future__ import annotations

from typing import Any

from actionmap.actions import LongPress, Scroll, Tap
from actionmap.observation import UIElement

from ..base import Ctx, OracleError, Skill, act, back, norm, open_app, scroll_to_role

APP = "phone"
# the dial pad's key roles by the character each enters (device.apps.phone.KEY_ROLES)
KEY_IDS = {"1": "key_1", "2": "key_2", "3": "key_3", "4": "key_4", "5": "key_5", "6": "key_6", "7": "key_7",
           "8": "key_8", "9": "key_9", "0": "key_0", "*": "key_star", "#": "key_pound"}
KINDS = ("incoming", "outgoing", "missed", "rejected", "blocked", "voicemail")


def _driver() -> Any:
    from device.apps import driver

    return driver(APP)


def _rid(e: UIElement, name: str) -> bool:
    """``e``'s resource id is ``name`` (bare or full). Kept for callers outside; skills ask for roles."""
    return e.resource_id == name or e.resource_id.endswith("/" + name)


def _tap_el(ctx: Ctx, el: UIElement) -> Skill:
    return (yield from act(ctx, Tap(target=el.index)))


def dial_string(number: str) -> str:
    """What the dial pad can enter for ``number``: digits, '*', '#' and a '+' (spaces, dashes dropped)."""
    return "".join(ch for ch in number if ch in KEY_IDS or ch == "+")


def kind_of(ctx: Ctx, text: str) -> str | None:
    """Map a call-type label ('Missed call', 'Incoming · 07:30') to a Call.kind, by the family's wording."""
    return _driver().kind_of(ctx.ui(APP), text)


def _path(ctx: Ctx, key: str) -> list[str]:
    """The roles to tap, in order, for ``key`` (the family's data)."""
    roles = ctx.words(APP, key)
    return [str(r) for r in roles]


def _tap_path(ctx: Ctx, key: str) -> Skill:
    for role in _path(ctx, key):
        yield from _tap_el(ctx, (yield from scroll_to_role(ctx, APP, role)))
    return ctx.obs


# --- navigation -------------------------------------------------------------------------------

def _at_main(ctx: Ctx) -> bool:
    return ctx.role(APP, "main_nav") is not None


def open_phone(ctx: Ctx) -> Skill:
    """Open Phone on its main screen; a call left running is ended first."""
    yield from open_app(ctx, "phone")
    for _ in range(8):
        if _at_main(ctx):
            return ctx.obs
        end = ctx.role(APP, "end_call")
        if end is not None:
            yield from _tap_el(ctx, end)
        else:
            yield from back(ctx)
        if ctx.obs.foreground.app != "phone":
            yield from open_app(ctx, "phone")
    raise OracleError("could not get back to the Phone main screen")


def open_dialpad(ctx: Ctx) -> Skill:
    yield from open_phone(ctx)
    yield from _tap_path(ctx, "dialpad_path")
    if ctx.role(APP, "digits") is None:
        raise OracleError(f"the dial pad did not open ({ctx.family(APP)} family)")
    return ctx.obs


def _digits(ctx: Ctx) -> str:
    """The number on the dial pad, as entered: the pad's characters of what the field shows ('' when
    it shows only its hint; a dialer's formatting — spaces, dashes — dropped)."""
    from device.apps.phone import field_text, pad_digits

    return pad_digits(field_text(ctx.role(APP, "digits")))


def _key(ctx: Ctx, role: str) -> UIElement:
    """The dial pad's control playing ``role`` (``key_5``, ``delete`` …), as a tap target."""
    el = next((e for e in ctx.roles(APP, role) if e.clickable), None)
    if el is None:
        raise OracleError(f"{APP}: no dial pad key {role} ({ctx.family(APP)} family)")
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
        yield from act(ctx, LongPress(target=_key(ctx, "delete").index))
        if _digits(ctx):
            raise OracleError("could not clear the dial pad")
    for ch in want:
        if ch == "+":
            yield from act(ctx, LongPress(target=_key(ctx, KEY_IDS["0"]).index))
        else:
            yield from act(ctx, Tap(target=_key(ctx, KEY_IDS[ch]).index))
    if _digits(ctx) != want:
        raise OracleError(f"the dial pad shows {_digits(ctx)!r}, wanted {want!r}")
    return ctx.obs


def call_number(ctx: Ctx, number: str, hang_up: bool = True) -> Skill:
    """Dial ``number`` and press call; with ``hang_up`` end the call (which logs it)."""
    yield from dial_number(ctx, number)
    yield from _tap_el(ctx, ctx.need(APP, "call"))
    end = ctx.role(APP, "end_call")
    if end is None:
        raise OracleError("the call did not start")
    if hang_up:
        yield from _tap_el(ctx, end)
        if ctx.role(APP, "end_call") is not None:
            raise OracleError("the call did not end")
    return ctx.obs


# --- queries ----------------------------------------------------------------------------------

def _row_kind(ctx: Ctx, row: UIElement) -> str | None:
    """The kind of call a call-log row shows (the family's wording, inside the row)."""
    return _driver().row_kind(ctx.ui(APP), row)


def row_name(ctx: Ctx, row: UIElement) -> str:
    """The name (or number) a call-log row shows."""
    return _driver().row_name(ctx.ui(APP), row)


def has_missed_filter(ctx: Ctx) -> bool:
    """The family's data names a way to a list of missed calls only (``missed_path``)."""
    from device.apps import driver

    return "missed_path" in driver(APP).family(ctx.family(APP)).texts


def open_recents(ctx: Ctx, missed: bool = False) -> Skill:
    """Show the call log, newest first; with ``missed`` only missed calls where the family has a way
    there (sim: Recents tab → Missed chip; aosp: overflow → Call history → Missed). A family whose data
    names none (google) shows the whole log: callers pick the missed calls by each row's kind."""
    yield from open_phone(ctx)
    yield from _tap_path(ctx, "missed_path" if missed and has_missed_filter(ctx) else "recents_path")
    return ctx.obs


def open_row_details(ctx: Ctx, row: UIElement) -> Skill:
    """Open a call-log row's call details: a tap opens them, or expands the row to its details action."""
    yield from _tap_el(ctx, row)
    if ctx.role(APP, "details_type") is None:
        if ctx.role(APP, "details_action") is None and ctx.role(APP, "call_log_row") is not None:
            # the row expanded in place: its actions may lie below the visible part of the list
            try:
                yield from scroll_to_role(ctx, APP, "details_action")
            except OracleError:
                pass
        hist = ctx.role(APP, "details_action")
        if hist is None:
            raise OracleError(f"the call-log row opened neither its details nor its actions ({ctx.family(APP)} family)")
        yield from _tap_el(ctx, hist)
    if ctx.role(APP, "details_type") is None:
        raise OracleError("the call details did not open")
    return ctx.obs


def _read_details(ctx: Ctx) -> dict[str, Any]:
    m = ctx.ui(APP)
    if m.first("details_name") is None or m.first("details_number") is None or m.first("details_type") is None:
        raise OracleError("the call details screen did not open")
    d = _driver().details(m)
    return {"name": d["name"], "number": d["number"], "kind": d["kind"], "time": d["time"]}


def _scroll_list(ctx: Ctx) -> Skill:
    lst = ctx.role(APP, "call_list")
    return (yield from act(ctx, Scroll(direction="down", target=lst.index) if lst else Scroll(direction="down")))


def read_last_call(ctx: Ctx, kind: str | None = None) -> Skill:
    """Name, number and kind (and the shown time) of the newest call, or the newest call of ``kind``.

    Returns ``{}`` when the log has no such call.
    """
    if kind is not None and kind not in KINDS:
        raise OracleError(f"unknown call kind {kind!r}; known: {', '.join(KINDS)}")
    yield from open_recents(ctx, missed=kind == "missed")
    row = None
    for _ in range(ctx.max_scrolls + 1):
        rows = sorted(ctx.roles(APP, "call_log_row"), key=lambda e: e.bounds.top)
        for r in rows:
            k = _row_kind(ctx, r)
            if k is not None and (kind is None or k == kind):
                row = r
                break
        if row is not None:
            break
        before = [(e.text, e.bounds) for e in ctx.obs.elements]
        yield from _scroll_list(ctx)
        if [(e.text, e.bounds) for e in ctx.obs.elements] == before:
            break
    if row is None:
        return {}
    yield from open_row_details(ctx, row)
    return _read_details(ctx)


def find_row(ctx: Ctx, who: str) -> Skill:
    """Scroll the open call log to the newest row showing ``who`` (its name or number); returns it."""
    return (yield from scroll_to_role(ctx, APP, "call_log_row", pred=lambda r: norm(row_name(ctx, r)) == norm(who)))
