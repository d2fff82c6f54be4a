"""The alarm probe and alarm teardown, through the app UI layer (the Clock driver, by role).

No provider lists alarms, so s2r reads and deletes them in the Clock app's list. These tests drive
a scripted AOSP DeskClock (:class:`FakeClock`: the alarm list as uiautomator shows it, built from
LineageOS/android_packages_apps_DeskClock @ 501626741b616e5e41ad4b316e8cc9d8989a7967 —
res/layout/alarm_clock.xml (alarms_recycler_view), alarm_time_collapsed.xml (label, onoff,
days_of_week, arrow "Expand alarm"), alarm_time_expanded.xml (edit_label with hint "Add label",
arrow "Collapse alarm", repeat_days, delete "Delete" at the card's foot), alarm_time_summary.xml
(digital_clock), desk_clock.xml (fab "Add alarm", bottom_view with page_alarm … page_stopwatch)),
read a real Google Clock dump, and check the promise that matters on a person's phone: an alarm
teardown could not delete is never silent — it is in the teardown report's ``leftovers`` (and
``left``), in the writer's running list, and in the end-of-run audit's leftover count.

The same flows on the virtual phone (the simulator's aosp flavor under com.android.deskclock) are
in tests/test_vdevice_oracle.py and, for the run's files, at the end of this module.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

import pytest

from actionmap.observation import UIElement
from actionmap.worldstate import Alarm
from device.adbshell import ShellResult
from device.parsers.hierarchy import parse_hierarchy
from device.readers import (ClockScreen, alarms_from_elements, dial_pad_number, invisible_marker, open_alarm_list,
                            probe_alarms)
from device.writers import DeviceWriter, Journal, TeardownReport, _alarm_box, new_tag

pytestmark = pytest.mark.timeout(600)

PKG = "com.android.deskclock"
W, H = 1080, 2400
LIST = (0, 231, 1080, 2071)
DAY_LONG = ("Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday")
DAY_KEY = ("sun", "mon", "tue", "wed", "thu", "fri", "sat")
REPO = Path(__file__).resolve().parents[1]


def _real(*parts: str) -> Path:
    path = REPO / "tests" / "fixtures" / "real-apps" / Path(*parts)
    assert path.exists(), f"real dump {path} is missing from the repository's fixtures"
    return path


def _time12(h: int, m: int) -> str:
    return f"{h % 12 or 12}:{m:02d}\u202f{'AM' if h < 12 else 'PM'}"


class FakeClock:
    """AOSP DeskClock as a :class:`device.readers.UIProbe` sees it (see the module docstring).

    ``refuse_delete``: the phone ignores taps on Delete (a delete the phone refuses);
    ``hidden``: the Clock app does not open (replaced or hidden: the launcher stays);
    ``family``: what ``probe_family`` answers (None: no such method, the driver reads the package)."""

    def __init__(self, alarms: list[dict[str, Any]], *, tab: str = "alarm", refuse_delete: bool = False,
                 hidden: bool = False, family: str | None = None, offset: int = 0) -> None:
        self.alarms = [{"enabled": True, "label": "", "days": [], "expanded": False, **a} for a in alarms]
        self.tab = tab
        self.offset = offset
        self.fg = "launcher"
        self.refuse_delete = refuse_delete
        self.hidden = hidden
        self.taps: list[str] = []
        self.homes = 0
        self._els: list[UIElement] = []
        self._hits: dict[int, tuple[str, Any]] = {}
        if family is not None:
            self.probe_family = lambda app: family  # type: ignore[method-assign]

    # --- the screen ------------------------------------------------------------------------
    def _heights(self) -> list[int]:
        return [900 if a["expanded"] else 330 for a in self.alarms]

    def _max_offset(self) -> int:
        content = 20 + sum(h + 20 for h in self._heights())
        return max(0, content - (LIST[3] - LIST[1]))

    def render(self) -> list[UIElement]:
        els: list[UIElement] = []
        hits: dict[int, tuple[str, Any]] = {}

        def add(rid: str, cls: str, b: tuple[int, int, int, int], *, clip: bool = False, pkg: str = PKG,
                hit: tuple[str, Any] | None = None, **kw: Any) -> bool:
            l, t, r, bt = b
            if clip:
                if bt <= LIST[1] or t >= LIST[3]:
                    return False
                cy = (t + bt) / 2
                if not LIST[1] <= cy <= LIST[3] and rid:  # a child whose centre is off the list: not shown
                    return False
                t, bt = max(t, LIST[1]), min(bt, LIST[3])
            i = len(els)
            els.append(UIElement.from_px(i, (l, t, r, bt), (W, H), resource_id=f"{pkg}:id/{rid}" if rid else "",
                                         class_name=cls, package=pkg, **kw))
            if hit is not None:
                hits[i] = hit
            return True

        add("status_bar", "android.widget.FrameLayout", (0, 0, W, 77), pkg="com.android.systemui")
        add("clock", "android.widget.TextView", (38, 13, 128, 64), pkg="com.android.systemui", text="9:30")
        if self.fg == "launcher":
            add("workspace", "android.widget.FrameLayout", (0, 77, W, 2269), pkg="com.android.launcher3")
            add("", "android.widget.TextView", (60, 300, 300, 420), pkg="com.android.launcher3", text="Clock",
                content_desc="Clock", clickable=True)
            self._els, self._hits = els, hits
            return els
        add("toolbar", "android.view.ViewGroup", (0, 77, W, 231))
        add("title_view", "android.widget.TextView", (40, 114, 900, 194), text=self.tab.capitalize())
        if self.tab == "alarm":
            add("alarms_recycler_view", "androidx.recyclerview.widget.RecyclerView", LIST, scrollable=True)
            y = LIST[1] + 20 - self.offset
            for k, (a, h) in enumerate(zip(self.alarms, self._heights())):
                self._card(add, a, k, y, h)
                y += h + 20
        else:  # the Clock tab: the big clock and a city, whose digital_clock is no alarm
            add("main_clock_frame", "android.widget.FrameLayout", (0, 231, W, 900))
            add("digital_clock", "android.widget.TextClock", (200, 300, 880, 520), text="9:30")
            add("cities", "androidx.recyclerview.widget.RecyclerView", (0, 900, W, 2071), scrollable=True)
            add("city_name", "android.widget.TextView", (60, 950, 600, 1010), text="London")
            add("digital_clock", "android.widget.TextView", (700, 950, 1000, 1060), text="2:30\u202fPM")
        add("fab", "com.google.android.material.floatingactionbutton.FloatingActionButton", (464, 1890, 618, 2044),
            content_desc="Add alarm" if self.tab == "alarm" else "Add city", clickable=True, hit=("fab", None))
        add("bottom_view", "com.google.android.material.bottomnavigation.BottomNavigationView", (0, 2071, W, 2269))
        for i, name in enumerate(("alarm", "clock", "timer", "stopwatch")):
            b = (i * 270, 2071, (i + 1) * 270, 2269)
            add(f"page_{name}", "android.widget.FrameLayout", b, content_desc=name.capitalize(), clickable=True,
                selected=self.tab == name, hit=("tab", name))
            add("navigation_bar_item_large_label_view", "android.widget.TextView",
                (b[0] + 60, 2190, b[2] - 60, 2238), text=name.capitalize())
        add("navigation_bar_frame", "android.widget.FrameLayout", (0, 2269, W, H), pkg="com.android.systemui")
        self._els, self._hits = els, hits
        return els

    def _card(self, add: Any, a: dict[str, Any], k: int, y: int, h: int) -> None:
        time = _time12(a["hour"], a["minute"])
        shown = a["label"]
        if not add("", "androidx.constraintlayout.widget.ConstraintLayout", (42, y, 1038, y + h), clip=True,
                   content_desc=f"{time} {shown or 'Alarm'}", clickable=True, hit=("card", k)):
            return
        days = ", ".join(d.capitalize() for d in DAY_KEY if d in a["days"]) or "Tomorrow"

        def kid(rid: str, cls: str, top: int, bottom: int, left: int = 84, right: int = 860, **kw: Any) -> None:
            add(rid, cls, (left, y + top, right, y + bottom), clip=True, **kw)

        if not a["expanded"]:  # alarm_time_collapsed.xml
            if shown:
                kid("label", "android.widget.TextView", 20, 80, text=shown)
            kid("digital_clock", "android.widget.TextView", 90, 230, text=time)
            kid("onoff", "android.widget.Switch", 110, 200, 860, 1000, checkable=True, checked=a["enabled"],
                clickable=True, hit=("switch", k))
            kid("days_of_week", "android.widget.TextView", 240, 300, text=days)
            kid("arrow", "android.widget.ImageButton", 230, 320, 900, 1000, content_desc="Expand alarm",
                clickable=True, hit=("arrow", k))
            return
        # alarm_time_expanded.xml: the label row on top, the Delete button at the card's foot
        kid("edit_label", "android.widget.TextView", 20, 120, text=shown or "Add label",
            hint="Add label", clickable=True)
        kid("arrow", "android.widget.ImageButton", 20, 120, 900, 1000, content_desc="Collapse alarm", clickable=True,
            hit=("arrow", k))
        kid("digital_clock", "android.widget.TextView", 130, 270, text=time)
        kid("onoff", "android.widget.Switch", 150, 240, 860, 1000, checkable=True, checked=a["enabled"],
            clickable=True, hit=("switch", k))
        kid("days_of_week", "android.widget.TextView", 280, 340, text=days)
        kid("repeat_days", "android.widget.LinearLayout", 350, 470, 84, 1000)
        for i, long in enumerate(DAY_LONG):
            kid("", "android.widget.CheckBox", 360, 460, 84 + i * 130, 84 + i * 130 + 110, text=long[0],
                content_desc=long, checkable=True, checked=DAY_KEY[i] in a["days"], clickable=True)
        kid("choose_ringtone", "android.widget.TextView", 480, 600, text="Default (Cesium)", clickable=True)
        kid("vibrate_onoff", "android.widget.CheckBox", 610, 720, text="Vibrate", checkable=True, checked=True,
            clickable=True)
        kid("delete", "android.widget.Button", 740, 860, 84, 400, text="Delete", clickable=True, hit=("delete", k))

    # --- UIProbe -----------------------------------------------------------------------------
    def probe_open(self, app: str) -> None:
        assert app == "clock"
        if not self.hidden:
            self.fg = "clock"

    def probe_elements(self) -> list[UIElement]:
        return self.render()

    def probe_tap(self, e: UIElement) -> None:
        kind, arg = self._hits.get(e.index, ("none", None))
        self.taps.append(kind)
        if kind == "tab":
            self.tab = arg
        elif kind == "arrow":
            was = self.alarms[arg]["expanded"]
            for a in self.alarms:  # AOSP keeps one card expanded at a time
                a["expanded"] = False
            self.alarms[arg]["expanded"] = not was
        elif kind == "switch":
            self.alarms[arg]["enabled"] = not self.alarms[arg]["enabled"]
        elif kind == "delete" and not self.refuse_delete:
            del self.alarms[arg]
        self.offset = min(self.offset, self._max_offset())

    def probe_scroll(self, down: bool, fraction: float = 0.6) -> None:
        step = int((LIST[3] - LIST[1]) * fraction)
        self.offset = max(0, min(self._max_offset(), self.offset + (step if down else -step)))

    def probe_home(self) -> None:
        self.homes += 1
        self.fg = "launcher"


class FakeShell:
    """A phone whose providers are empty: only the Clock UI matters to these teardowns."""

    serial = "FAKE0001"

    def run(self, argv: Any, *, timeout: float | None = None) -> ShellResult:
        return ShellResult(rc=0, out="", err="")

    def out(self, argv: Any, *, timeout: float | None = None) -> str:
        return ""

    def getprop(self, key: str) -> str:
        return ""

    @contextmanager
    def prefetched(self, plan: str) -> Iterator[None]:
        yield


def _writer(ui: FakeClock, tmp_path: Path, destructive: bool = False) -> DeviceWriter:
    return DeviceWriter(FakeShell(), journal_root=tmp_path, ui=ui, destructive=destructive)  # type: ignore[arg-type]


def _tagged(tag: str, label: str) -> str:
    return label + invisible_marker(tag)


def _journal(tmp_path: Path, tag: str, labels: list[str]) -> Journal:
    j = Journal(serial=FakeShell.serial, tag=tag, path=str(tmp_path / "j.json"))
    j.alarm_labels = [_tagged(tag, x) for x in labels]
    return j


# ============================================================================ reading
def test_alarms_are_read_by_role_on_aosp_collapsed_and_expanded_cards() -> None:
    """A collapsed card shows its label as ``label``, an expanded one as ``edit_label`` (its hint
    when empty); the days, the switch and the time are the card's own; the run tag is stripped."""
    tag = new_tag()
    clock = FakeClock([
        {"hour": 6, "minute": 45, "label": _tagged(tag, "Wake up"), "days": ["mon", "tue", "wed", "thu", "fri"]},
        {"hour": 7, "minute": 30, "label": "Gym", "expanded": True, "days": ["sat", "sun"], "enabled": False},
        {"hour": 8, "minute": 0, "expanded": False},
        {"hour": 21, "minute": 10, "label": "Late"},
    ])
    clock.fg = "clock"
    got = alarms_from_elements(clock.render())
    assert [(a.hour, a.minute, a.label, a.days, a.enabled) for a in got] == [
        (6, 45, "Wake up", ["mon", "tue", "wed", "thu", "fri"], True), (7, 30, "Gym", ["sat", "sun"], False),
        (8, 0, "", [], True), (21, 10, "Late", [], True)]  # its days row is below the list's edge
    # so the 21:10 card is read apart, on the page that shows it whole
    edge: list[Alarm] = []
    assert len(alarms_from_elements(clock.render(), clipped=edge)) == 3 and [(a.hour, a.minute) for a in edge] == [(21, 10)]
    # an expanded card without a label shows the field's hint: no label
    clock.alarms[1].update(label="")
    assert [a.label for a in alarms_from_elements(clock.render())] == ["Wake up", "", "", "Late"]
    screen = ClockScreen(clock.render())
    assert screen.family == "aosp" and screen.is_alarm_list()


def test_a_real_google_clock_list_is_read_with_its_clipped_card_apart() -> None:
    els = parse_hierarchy(_real("google", "clock", "alarm_expanded_new_sdk34_1080x2400.xml").read_text()).elements
    edge: list[Alarm] = []
    got = alarms_from_elements(els, clipped=edge)
    assert [(a.hour, a.minute, a.enabled, a.label, a.days) for a in got] == [
        (8, 25, True, "", []), (8, 30, False, "", ["mon", "tue", "wed", "thu", "fri"])]
    assert [(a.hour, a.minute, a.days) for a in edge] == [(9, 0, ["mon", "sat", "sun"])]


def test_google_clock_cards_are_found_again_collapsed_and_expanded() -> None:
    """Teardown's re-find on a real Google Clock list: the expanded card (its label an
    ``edit_label``, described 'No label specified' when empty) carrying the run tag, and an
    untagged collapsed card by its time and (empty) label; the expanded card's Delete is its own."""
    from device.writers import _plain_alarm_box

    tag = new_tag()
    xml = _real("google", "clock", "alarm_expanded_new_sdk34_1080x2400.xml").read_text()
    assert xml.count('text="Add label"') == 1
    els = parse_hierarchy(xml.replace('text="Add label"', f'text="Gym{invisible_marker(tag)}"')
                          .replace('content-desc="No label specified"', 'content-desc=""')).elements
    screen = ClockScreen(els)
    assert screen.family == "google"
    (card,) = _alarm_box(screen, tag)
    assert card.hm == (8, 25) and screen.label(card) == "Gym"
    (delete,) = screen.in_card(card, "delete", whole=True)
    assert card.card.bounds.top < delete.bounds.center[1] < card.card.bounds.bottom
    assert [c.hm for c in _plain_alarm_box(screen, 8, 30, "")] == [(8, 30)]
    assert _plain_alarm_box(screen, 8, 25, "Gym") == []  # a setup's alarm is deleted by its tag only
    assert _alarm_box(ClockScreen(els), new_tag()) == []  # another run's tag is not ours


def test_a_screen_of_another_app_shows_no_alarms() -> None:
    clock = FakeClock([{"hour": 7, "minute": 0}])
    assert alarms_from_elements(clock.render()) == []  # the launcher
    assert not ClockScreen(clock.render()).is_alarm_list()


def test_the_probe_chooses_the_alarm_tab_reads_every_page_and_goes_home() -> None:
    """Left on the Clock tab (whose city times are no alarms) and scrolled: the probe taps the
    Alarm tab, reads all pages, scrolls back to the top, and presses Home."""
    alarms = [{"hour": 5 + k, "minute": 5 * k, "label": f"A{k}" if k % 2 else ""} for k in range(9)]
    clock = FakeClock(alarms, tab="clock", family="aosp")
    got = probe_alarms(clock)
    assert got is not None and sorted((a.hour, a.minute, a.label) for a in got) == \
        [(5 + k, 5 * k, f"A{k}" if k % 2 else "") for k in range(9)]
    assert clock.taps[0] == "tab" and clock.tab == "alarm" and clock.offset == 0 and clock.fg == "launcher"


def test_the_probe_says_unknown_when_the_clock_app_does_not_open() -> None:
    assert probe_alarms(FakeClock([{"hour": 7, "minute": 0}], hidden=True)) is None


# ============================================================================ teardown
def test_tagged_alarms_are_deleted_collapsed_expanded_and_below_the_fold(tmp_path: Path) -> None:
    """The setup's alarms: one collapsed, one expanded (its label is an ``edit_label``, while the
    phone's own card above shows a ``label``), one at the bottom of a long list — each is found
    again by its tag, expanded, lifted until its Delete shows, and deleted; the phone's own stay."""
    tag = new_tag()
    own = [{"hour": 6, "minute": 0, "label": "Mine"}, {"hour": 6, "minute": 30, "label": "Also mine"}]
    ours = [{"hour": 7, "minute": 0, "label": _tagged(tag, "Standup")},
            {"hour": 7, "minute": 15, "label": _tagged(tag, "Gym"), "expanded": True}]
    filler = [{"hour": 8 + k, "minute": 0, "label": f"F{k}"} for k in range(5)]
    last = [{"hour": 21, "minute": 0, "label": _tagged(tag, "Bed")}]
    clock = FakeClock(own + ours + filler + last)
    clock.probe_open("clock")
    assert [c.hm for c in _alarm_box(ClockScreen(clock.render()), tag)] == [(7, 0), (7, 15)]
    w = _writer(clock, tmp_path)
    rep = w.teardown(_journal(tmp_path, tag, ["Standup", "Gym", "Bed"]))
    assert rep.removed.get("alarms") == 3 and rep.left == [] and rep.leftovers == [], rep
    assert sorted(a["label"] for a in clock.alarms) == sorted(["Mine", "Also mine"] + [f"F{k}" for k in range(5)])
    assert clock.fg == "launcher" and w.leftovers == []


def test_an_alarm_the_phone_will_not_delete_is_a_leftover(tmp_path: Path) -> None:
    tag = new_tag()
    clock = FakeClock([{"hour": 6, "minute": 0, "label": "Mine"}, {"hour": 7, "minute": 5, "label": _tagged(tag, "Gym")}],
                      refuse_delete=True)
    w = _writer(clock, tmp_path)
    rep = w.teardown(_journal(tmp_path, tag, ["Gym"]))
    assert rep.leftovers == [f"alarm 07:05 'Gym' carrying tag {tag} (invisibly)"], rep
    assert rep.removed.get("alarms") == 0, rep  # a tap that changed nothing deleted nothing
    assert any("'Gym'" in x and "could not be deleted" in x for x in rep.left), rep.left
    assert w.leftovers == rep.leftovers and clock.fg == "launcher"
    assert "delete" in clock.taps  # it tried


def test_alarms_behind_a_clock_app_that_does_not_open_are_leftovers_not_deleted(tmp_path: Path) -> None:
    """Replaced or hidden Clock app: no scan of the list happened, so "none found" would be a
    guess — every alarm setup made is reported left, and the episode's own alarms unverified."""
    tag = new_tag()
    clock = FakeClock([{"hour": 7, "minute": 5, "label": _tagged(tag, "Gym")}, {"hour": 9, "minute": 0}], hidden=True)
    w = _writer(clock, tmp_path, destructive=True)
    j = _journal(tmp_path, tag, ["Gym"])
    j.alarms_at_start = [(7, 5, "Gym")]
    rep = w.teardown(j)
    assert rep.removed.get("alarms") == 0 and len(rep.leftovers) == 1 and "'Gym'" in rep.leftovers[0], rep
    assert any("could not all be deleted" in x and "alarm list did not show" in x for x in rep.left), rep.left
    assert rep.unverified and "alarms added by the episode" in rep.unverified[0], rep
    assert len(clock.alarms) == 2


def test_the_episodes_own_alarm_is_deleted_and_one_it_cannot_delete_is_counted(tmp_path: Path) -> None:
    """A dedicated test phone: the alarm the policy set (expanded, as AOSP leaves a new alarm, at
    the bottom of the list) goes; the phone's own alarm with the same time stays."""
    start = [{"hour": 6, "minute": 0, "label": "Mine"}] + [{"hour": 8 + k, "minute": 0, "label": f"F{k}"}
                                                            for k in range(5)]
    clock = FakeClock(start + [{"hour": 22, "minute": 0, "label": "", "expanded": True},
                               {"hour": 6, "minute": 0, "label": "Nap"}], family="aosp")
    w = _writer(clock, tmp_path, destructive=True)
    j = Journal(serial=FakeShell.serial, tag=new_tag(), path=str(tmp_path / "j.json"))
    w.note_alarms(j, [Alarm(hour=a["hour"], minute=a["minute"], label=a["label"]) for a in start])
    rep = TeardownReport(tag=j.tag)
    w._undo_episode_alarms(j, rep)
    assert rep.removed.get("episode alarms") == 2 and rep.left == [] and rep.leftovers == [], rep
    assert sorted((a["hour"], a["label"]) for a in clock.alarms) == sorted((a["hour"], a["label"]) for a in start)
    # the same, on a phone that refuses: each alarm it added is a leftover, none passes as deleted
    clock = FakeClock(start + [{"hour": 22, "minute": 0}], refuse_delete=True)
    w = _writer(clock, tmp_path, destructive=True)
    w.note_alarms(j, [Alarm(hour=a["hour"], minute=a["minute"], label=a["label"]) for a in start])
    rep = TeardownReport(tag=j.tag)
    w._undo_episode_alarms(j, rep)
    assert rep.leftovers == ["alarm 22:00 '' added during the episode"] and len(rep.left) == 1, rep
    assert rep.removed.get("episode alarms") == 0 and "changed nothing" in rep.left[0], rep


def test_a_setup_alarm_is_switched_off_through_its_cards_switch(tmp_path: Path) -> None:
    tag = new_tag()
    clock = FakeClock([{"hour": 6, "minute": 0, "label": "Mine"},
                       {"hour": 7, "minute": 5, "label": _tagged(tag, "Gym"), "expanded": True}])
    _writer(clock, tmp_path)._switch_off_alarm(tag, Alarm(hour=7, minute=5, label="Gym", enabled=False))
    assert [a["enabled"] for a in clock.alarms] == [True, False] and clock.fg == "launcher"


def test_open_alarm_list_leaves_the_list_at_the_top() -> None:
    clock = FakeClock([{"hour": 5 + k, "minute": 0} for k in range(9)], offset=900)
    els = open_alarm_list(clock)
    assert clock.offset == 0 and ClockScreen(els).is_alarm_list()


# ============================================================================ the run's leftover count
def test_the_audit_counts_what_teardown_could_not_delete(tmp_path: Path) -> None:
    """The audit DeviceEnv.close builds (phone_audit.json, the run's summary line) counts the
    alarms teardown left, though no provider shows them to the audit's own snapshot."""
    from device.audit import PhoneAudit

    tag = new_tag()
    clock = FakeClock([{"hour": 7, "minute": 5, "label": _tagged(tag, "Gym")}], refuse_delete=True)
    w = _writer(clock, tmp_path)
    rep = w.teardown(_journal(tmp_path, tag, ["Gym"]))
    assert rep.leftovers and w.leftovers == rep.leftovers
    audit = PhoneAudit(serial=FakeShell.serial).add_teardown(w.leftovers, w.unverified)
    assert audit.leftovers == rep.leftovers
    assert audit.summary().startswith(f"{FakeShell.serial}: 1 leftover(s), 0 change(s)"), audit.summary()
    assert not audit.clean


# ============================================================================ the dial pad
def test_the_dial_pad_number_is_read_by_the_phone_driver() -> None:
    from device.apps import drivers

    if "phone" not in drivers():
        pytest.skip("no Phone driver (device/apps/phone.py) yet")
    els = [UIElement.from_px(0, (0, 77, W, 2269), (W, H), resource_id="com.android.dialer:id/dialpad_view",
                             class_name="android.widget.LinearLayout", package="com.android.dialer"),
           UIElement.from_px(1, (100, 400, 980, 560), (W, H), resource_id="com.android.dialer:id/digits",
                             class_name="android.widget.EditText", package="com.android.dialer",
                             text="+1 303-555-0115", editable=True)]
    assert dial_pad_number(els) == "+13035550115"
    launcher = [UIElement.from_px(0, (0, 77, W, 2269), (W, H), resource_id="com.android.launcher3:id/workspace",
                                  package="com.android.launcher3")]
    assert dial_pad_number(launcher) is None


# ============================================================================ a run on the virtual phone
@pytest.fixture(scope="module")
def refused_run(tmp_path_factory: pytest.TempPathFactory, adb_host: Any, stock_phone: Any) -> dict[str, Any]:
    """``s2r run --device SERIAL`` (a subprocess, as a user types it) of a task whose setup adds a
    tagged alarm, on a virtual phone whose Clock app ignores taps on Delete."""
    from device.apps import driver

    phone = stock_phone
    real_tap = phone.tap
    refused: list[tuple[float, float]] = []

    def tap(x: float, y: float) -> None:
        els = phone.elements()
        m = driver("clock").matcher(els, "aosp", PKG)
        if any(e.bounds.contains(x, y) for e in m.find("delete")):
            refused.append((x, y))
            return
        real_tap(x, y)

    phone.tap = tap
    out = tmp_path_factory.mktemp("run") / "refused"
    env = {k: v for k, v in os.environ.items() if k != "ANDROID_ADB_SERVER_PORT"}
    env.update(PYTHONUNBUFFERED="1", COLUMNS="200", S2R_DEVICE_JOURNAL=str(out.parent / "journal"))
    env.pop("S2R_DESTRUCTIVE", None)
    try:
        p = subprocess.run([sys.executable, "-m", "s2r.cli", "run", "--device", phone.serial, "--policy", "oracle",
                            "--split", "real59", "--tasks", "clock.alarm_on", "--workers", "1", "--out", str(out)],
                           capture_output=True, text=True, env=env, timeout=540)
    finally:
        phone.tap = real_tap
    assert p.returncode == 0, (p.stdout[-3000:], p.stderr[-3000:])
    return {"out": out, "stdout": " ".join(p.stdout.split()), "refused": refused, "phone": phone,
            "audit": json.loads((out / "phone_audit.json").read_text(encoding="utf-8")),
            "episodes": [json.loads(x) for x in (out / "episodes.jsonl").read_text().splitlines() if x.strip()]}


def test_an_alarm_the_phone_keeps_is_in_the_record_the_audit_and_the_summary(refused_run: dict[str, Any]) -> None:
    run = refused_run
    assert run["refused"], "the oracle's teardown never tapped Delete"
    (ep,) = run["episodes"]
    left = [x for x in ep["left_on_phone"] if "alarm" in x and "could not" in x]
    assert left, ep["left_on_phone"]
    (rep,) = run["audit"]
    alarms = [x for x in rep["audit"]["leftovers"] if x.startswith("alarm ")]
    assert alarms and all("carrying tag" in x for x in alarms), rep["audit"]
    n = len(rep["audit"]["leftovers"])
    assert n >= 1 and rep["audit_summary"].startswith(f"{rep['serial']}: {n} leftover(s)"), rep["audit_summary"]
    assert f"audit {rep['audit_summary']}" in run["stdout"] and "leftovers: alarm " in run["stdout"], run["stdout"][-2000:]
    # and they really are still on the phone: as many alarms carrying a run tag as the audit counts
    truth = [a for a in run["phone"].read_state().alarms or [] if "\u2063" in a.label]
    assert len(truth) == len(alarms), (truth, alarms)
