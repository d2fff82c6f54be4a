"""The stock Calendar flavors of the simulator, as the apps they model show and behave.

`aosp` is Etar, AOSP's Calendar as LineageOS ships it (LineageOS/android_packages_apps_Etar @
lineage-21.0): week view first, views in a navigation drawer, month/week/day drawn (no event
nodes), the Agenda list with day headers, Go to… with the framework date picker, search in the
overflow, the custom Cancel/Done editor that saves when left, "Delete this event?" with OK.
`google` is Google Calendar (com.google.android.calendar), modelled on public test code and dumps:
a schedule of described Views, the speed-dial FAB, a month view whose days count their items,
Material's date picker with a text mode, the details' overflow with Delete.

Why: the oracle, the probes and a policy meet these screens on a phone; each assertion here is a
fact of the real app (cited in the flavor's module) that the simulator must keep. Every phone is
fresh (clock 2027-03-15 09:30); the app layer (device.apps) must read each screen as its family.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

import pytest

from actionmap.actions import Key, OpenApp, Scroll, Tap, TypeText
from actionmap.observation import Observation

pytest.importorskip("playwright")

from device.apps import read_screen  # noqa: E402
from sim.env import SimEnv  # noqa: E402
from transfer.oracle.drive import run_skill  # noqa: E402
from transfer.oracle.skills.calendar import navigate as C  # noqa: E402
from _simhelpers import find, fresh, healthy, step  # noqa: E402

SETUP: dict[str, Any] = {"add": {"events": [
    {"title": "Retro", "start": "2027-03-16T16:00:00", "end": "2027-03-16T17:00:00"},
    {"title": "Late show", "start": "2027-06-03T21:15:00", "end": "2027-06-03T23:00:00", "location": "Odeon",
     "description": "Row F"},
]}}


def tap(env: SimEnv, obs: Observation, text: str | None = None, **kw: Any) -> Observation:
    el = find(obs, text, **kw)
    assert el is not None, (text, kw)
    return step(env, Tap(target=el.index))


def skill(env: SimEnv, fn: Any, *args: Any) -> Observation:
    return run_skill(env, lambda ctx: fn(ctx, *args), flavor=env.flavor, max_steps=60)[0]


def titles(env: SimEnv) -> list[str]:
    return sorted(e.title for e in env.read_state().events or [])


def reading(obs: Observation) -> Any:
    return read_screen(obs.elements, package=obs.foreground.package)


# --- aosp: Etar ------------------------------------------------------------------------------------

def test_etar_draws_its_views_and_lists_days_in_the_agenda() -> None:
    env = fresh("aosp", SETUP)
    obs = step(env, OpenApp(app="calendar"))
    assert (obs.foreground.package, obs.foreground.activity) == ("com.android.calendar", "calendar/week")
    assert find(obs, "March 2027") is not None and find(obs, desc="Navigate up") is not None
    fab = find(obs, rid="floating_action_button")
    assert fab is not None and fab.content_desc == ""  # no description (all_in_one_material.xml)
    # the week view is drawn: the event of tomorrow has no node
    assert find(obs, "Retro", contains=True) is None and find(obs, rid="switcher") is not None
    assert (reading(obs).family, reading(obs).screen) == ("aosp", "calendar")
    obs = tap(env, obs, desc="Navigate up")
    items = [e for e in obs.elements if e.resource_id.endswith("/design_menu_item_text")]
    assert [e.text for e in items] == ["Day", "Week", "Month", "Agenda", "Settings", "About Calendar"]
    assert [e.text for e in items if e.checked] == ["Week"]
    obs = tap(env, obs, "Month")
    assert [find(obs, rid=f"d{i}_label").text for i in range(7)] == ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"]
    assert find(obs, "Retro", contains=True) is None
    obs = tap(env, obs, desc="Navigate up")
    obs = tap(env, obs, "Agenda")
    assert find(obs, "March 15, 2027") is not None and find(obs, "Today, Monday") is not None  # title, subtitle
    r = reading(obs)
    assert r.screen == "agenda"
    first = r.visible["days"][0]
    assert (first["day"], first["events"][:1]) == ("March 16", ["Retro"])
    assert find(obs, "TOMORROW, TUESDAY", rid="day") is not None and find(obs, "16:00 – 17:00", rid="when") is not None


def test_etar_goes_to_a_date_and_searches_from_its_overflow() -> None:
    env = fresh("aosp", SETUP)
    obs = skill(env, C._agenda_at, date(2027, 6, 3))
    assert find(obs, "June 3, 2027") is not None  # the toolbar follows the date gone to
    r = reading(obs)
    assert {"day": "June 3", "events": ["Late show"]} in r.visible["days"]  # the last day listed: shown as far up as it goes
    assert find(obs, "21:15 – 23:00", rid="when") is not None and find(obs, "Odeon", rid="where") is not None
    # the overflow: Go to…, Refresh, Search (View settings only in the month view)
    obs = step(env, Key(key="back"))
    obs = step(env, OpenApp(app="calendar"))
    obs = tap(env, obs, desc="More options")
    assert [e.text for e in obs.elements if e.resource_id.endswith("/title")] == ["Go to…", "Refresh", "Search"]
    obs = tap(env, obs, "Search")
    # the SearchView expands in the toolbar (Collapse); a submitted query opens SearchActivity's results
    assert find(obs, desc="Collapse") is not None and find(obs, rid="search_src_text").focused
    assert find(obs, "June 3, 2027") is None  # the title gave way to the SearchView; the view stays below
    obs = step(env, TypeText(text="late", submit=True))
    assert find(obs, "late", rid="search_src_text") is not None
    assert reading(obs).visible["days"] == [{"day": "June 3", "events": ["Late show"]}]


def test_etar_framework_pickers() -> None:
    """The date picker names its days "dd MMMM yyyy" and pages by arrows; the time picker's
    keyboard mode refuses an impossible hour and stays open."""
    env = fresh("aosp")
    obs = step(env, OpenApp(app="calendar"))
    obs = tap(env, obs, rid="floating_action_button")
    assert find(obs, rid="title", cls="EditText").hint == "Event name"
    assert find(obs, rid="start_date").content_desc == "Start date" and find(obs, "Mon, Mar 15, 2027", rid="start_date")
    obs = step(env, Key(key="back"))  # the keyboard
    obs = tap(env, obs, rid="start_date")
    assert find(obs, "2027", rid="date_picker_header_year") is not None and find(obs, "Mon, Mar 15", rid="date_picker_header_date")
    day15 = find(obs, desc="15 March 2027")
    assert day15 is not None and day15.text == "15" and day15.checked
    obs = tap(env, obs, desc="Next month")
    obs = tap(env, obs, desc="02 April 2027")
    obs = tap(env, obs, "OK", rid="android:id/button1")
    assert find(obs, "Fri, Apr 2, 2027", rid="start_date") and find(obs, "Fri, Apr 2, 2027", rid="end_date")
    obs = tap(env, obs, rid="start_time")
    assert find(obs, rid="radial_picker") is not None and find(obs, desc="12") is not None
    obs = tap(env, obs, desc="Switch to text input mode for the time input.")
    obs = step(env, TypeText(text="25", clear=True, target=find(obs, rid="input_hour").index))
    obs = tap(env, obs, "OK", rid="android:id/button1")
    assert find(obs, "Enter a valid time", rid="label_error") is not None and find(obs, rid="input_hour") is not None


def test_etar_editor_saves_when_left_and_moves_an_early_end() -> None:
    env = fresh("aosp")
    n0 = len(env.read_state().events)
    obs = step(env, OpenApp(app="calendar"))
    obs = tap(env, obs, rid="floating_action_button")
    obs = tap(env, obs, "Done", rid="action_done")  # untouched: nothing is created
    assert find(obs, "Empty event not created.", cls="Toast") is not None and len(env.read_state().events) == n0
    obs = tap(env, obs, rid="floating_action_button")
    step(env, TypeText(text="Late call"))
    obs = step(env, Key(key="back"))  # the keyboard
    obs = tap(env, obs, rid="end_time")
    obs = tap(env, obs, desc="Switch to text input mode for the time input.")
    obs = step(env, TypeText(text="8", clear=True, target=find(obs, rid="input_hour").index))
    obs = tap(env, obs, "OK", rid="android:id/button1")
    # an end time before the start moves the end to the next day (EditEventView TimeListener)
    assert find(obs, "Tue, Mar 16, 2027", rid="end_date") is not None and find(obs, "08:30", rid="end_time") is not None
    obs = step(env, Key(key="back"))  # leaving the editor saves (EditEventFragment onPause)
    assert find(obs, "Event created.", cls="Toast") is not None and find(obs, rid="floating_action_button") is not None
    (ev,) = [e for e in healthy(env).events if e.title == "Late call"]
    assert (ev.start, ev.end) == (datetime(2027, 3, 15, 9, 30), datetime(2027, 3, 16, 8, 30))


def test_etar_details_and_delete() -> None:
    env = fresh("aosp", SETUP)
    obs = skill(env, C.open_event, "Late show", date(2027, 6, 3))
    assert obs.foreground.activity == "calendar/event"
    assert find(obs, "Thursday, June 3, 21:15 – 23:00", rid="when_datetime") is not None
    assert find(obs, "Odeon", rid="where") and find(obs, "Row F", rid="expandable_text")
    assert find(obs, desc="Edit", rid="info_action_edit") and find(obs, desc="Delete", rid="info_action_delete")
    r = reading(obs)
    assert (r.screen, r.visible["event"]["title"], r.visible["event"]["location"]) == ("event_details", "Late show", "Odeon")
    obs = tap(env, obs, desc="More options")
    assert [e.text for e in obs.elements if e.resource_id.endswith("/title")] == ["Duplicate", "Share", "Export to SD card"]
    obs = step(env, Key(key="back"))
    obs = tap(env, obs, rid="info_action_delete")
    assert find(obs, "Delete this event?", rid="android:id/message") is not None
    assert find(obs, "Cancel", rid="android:id/button2") is not None
    obs = tap(env, obs, "OK", rid="android:id/button1")
    assert "Late show" not in titles(env) and obs.foreground.activity != "calendar/event"
    # tomorrow's event reads "Tomorrow at …" (Utils.getDisplayedDatetime)
    obs = skill(env, C.open_event, "Retro", date(2027, 3, 16))
    assert find(obs, "Tomorrow at 16:00 – 17:00", rid="when_datetime") is not None


# --- google: Google Calendar -----------------------------------------------------------------------

def test_google_schedule_and_speed_dial() -> None:
    env = fresh("google", SETUP)
    obs = step(env, OpenApp(app="calendar"))
    assert (obs.foreground.package, obs.foreground.activity) == ("com.google.android.calendar", "calendar/schedule")
    for desc in ("Show Calendar List and Settings drawer", "Search", "Jump to Today", "Create new event and more"):
        assert find(obs, desc=desc) is not None, desc
    assert find(obs, "March", rid="date_picker_text_view") is not None
    # the schedule opens at today; a day's header, then its events described "<title>, <start> – <end>"
    assert find(obs, desc="Monday, March 15, 2027, Open Day View") is not None
    assert find(obs, desc="Retro, 16:00 – 17:00") is not None
    r = reading(obs)
    assert (r.family, r.screen) == ("google", "calendar")
    day = next(d for d in r.visible["days"] if d["day"].startswith("Tuesday, March 16, 2027"))
    assert "Retro" in day["events"]
    obs = tap(env, obs, desc="Create new event and more")
    assert find(obs, "Event", rid="speed_dial_event_container") is None  # the container holds the label
    assert find(obs, rid="speed_dial_event_container") is not None and find(obs, rid="tasks_speed_dial_container") is not None
    obs = tap(env, obs, rid="speed_dial_event_container")
    assert find(obs, rid="title", cls="EditText").hint == "Add title" and find(obs, "Save", rid="save") is not None
    assert reading(obs).screen == "event_editor"


def test_google_editor_pickers_and_discard() -> None:
    env = fresh("google")
    n0 = len(env.read_state().events)
    obs = skill(env, C.open_calendar)
    obs = tap(env, obs, desc="Create new event and more")
    obs = tap(env, obs, rid="speed_dial_event_container")
    step(env, TypeText(text="Kickoff"))
    obs = step(env, Key(key="back"))  # the keyboard
    obs = tap(env, obs, desc="Start date: Mon, Mar 15, 2027")
    obs = tap(env, obs, desc="Switch to text input mode")
    obs = step(env, TypeText(text="02/30/2027", clear=True, target=find(obs, rid="mtrl_picker_text_input_date").index))
    assert find(obs, "Invalid format.") is not None and not find(obs, "OK", rid="confirm_button").enabled
    obs = step(env, TypeText(text="07/08/2027", clear=True))
    obs = tap(env, obs, "OK", rid="confirm_button")
    assert find(obs, desc="Start date: Thu, Jul 8, 2027") and find(obs, desc="End date: Thu, Jul 8, 2027")
    obs = tap(env, obs, desc="End time: 11:00")
    obs = tap(env, obs, desc="Switch to text input mode for the time input.")
    obs = step(env, TypeText(text="7", clear=True, target=find(obs, rid="input_hour").index))
    obs = tap(env, obs, "OK", rid="android:id/button1")
    obs = tap(env, obs, "Save", rid="save")  # the end is before the start: refused, the editor stays
    assert find(obs, cls="Toast") is not None and find(obs, rid="save") is not None
    obs = tap(env, obs, desc="Close")
    assert find(obs, "Discard this event?") is not None
    obs = tap(env, obs, "Discard", rid="android:id/button1")
    assert find(obs, desc="Create new event and more") is not None and len(healthy(env).events) == n0


def test_google_month_cells_count_items_and_open_the_day() -> None:
    env = fresh("google", SETUP)
    n16 = sum(1 for e in env.read_state().events if e.start.date() == date(2027, 3, 16))
    obs = skill(env, C.open_month_view)
    assert find(obs, desc=f"March 16: {n16} item{'s' if n16 != 1 else ''}") is not None
    obs = step(env, Scroll(direction="right"))  # the month pager, sideways
    assert find(obs, "April", rid="date_picker_text_view") is not None
    obs = skill(env, C.go_to_date, date(2027, 6, 3))
    assert find(obs, desc="Thursday, June 3, 2027, Open Schedule View") is not None
    assert find(obs, desc="Late show, 21:15 – 23:00, Odeon") is not None


def test_google_search_details_and_delete() -> None:
    env = fresh("google", SETUP)
    obs = skill(env, C.search, "Late show")
    assert find(obs, rid="search_text") is not None and find(obs, desc="2027") is not None  # a year header
    assert find(obs, desc="Thursday, June 3, 2027, Open Day View") is not None
    obs = tap(env, obs, desc="Late show, 21:15 – 23:00, Odeon")
    assert find(obs, "Late show", rid="title", cls="TextView") is not None
    assert find(obs, desc="Thursday, June 3, 2027") and find(obs, desc="Thursday, 21:15 – 23:00")
    r = reading(obs)
    assert (r.screen, r.visible["event"]["date"]) == ("event_details", "Thursday, June 3, 2027")
    obs = tap(env, obs, rid="info_action_overflow")
    assert [e.text for e in obs.elements if e.resource_id.endswith("/title") and e.class_name.endswith("TextView")
            and e.text != "Late show"] == ["Delete", "Duplicate"]
    obs = tap(env, obs, "Delete")
    assert find(obs, "Delete", rid="android:id/button1") is not None
    obs = tap(env, obs, "Delete", rid="android:id/button1")
    assert "Late show" not in titles(env)
