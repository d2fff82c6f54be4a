"""Oracle skills for the Clock app (alarms, world clock, timers, stopwatch): the package's API.

Every skill starts with ``open_app`` and works from any screen of the app (a dialog, the
alarm editor, the city picker). Controls are found through the app UI layer by *role*
(``device/apps/data/clock.yaml``: ``add_alarm``, ``alarm_card``, ``tab_timer`` …), never by a
resource id, description or label written here, so the same skill runs on the simulator's two
flavors and on each phone family the data describes. What differs between families in how a
task is done is family data too: ``edits_inline`` (the alarm's card expands in the list, as on
AOSP and Pixel, rather than opening a full-screen form with Save), ``confirms_delete``,
``city_picker_toggles`` (cities are checked in the city picker rather than tapped there and
removed by long press), ``city_search_toggles`` (a city search whose results add a city, or remove
one already chosen, as on a Pixel). A first-launch tooltip over the app (``tooltip``) is tapped
away before anything else. Alarm cards are found and read by the Clock driver
(:meth:`device.apps.clock.ClockDriver.card_for`), collapsed or expanded, scrolling the list as
needed, so the skills keep working with long lists and on other screen sizes. Query skills
return what the screen shows.

The skills live by what they work on — :mod:`.alarms`, :mod:`.world` (the world clock),
:mod:`.timers` (timers and the stopwatch) — over :mod:`.screen`, which finds and reaches things
in the app; this module gathers the skills the solutions and tests call.
"""

from __future__ import annotations

from .alarms import (change_alarm_time, count_enabled_alarms, create_alarm, delete_alarm, find_alarm, list_alarms,
                     read_next_alarm, set_alarm_days, set_alarm_enabled, set_alarm_label, set_alarm_vibrate,
                     time_texts)
from .screen import APP, goto_tab, open_clock
from .timers import (delete_timer, lap_stopwatch, pause_timer, read_stopwatch, reset_stopwatch, resume_timer,
                     set_timer_label, start_stopwatch, start_timer, stop_stopwatch)
from .world import add_world_clock, read_world_clock_time, remove_world_clock

__all__ = [
    "APP", "add_world_clock", "change_alarm_time", "count_enabled_alarms", "create_alarm", "delete_alarm",
    "delete_timer", "find_alarm", "goto_tab", "lap_stopwatch", "list_alarms", "open_clock", "pause_timer",
    "read_next_alarm", "read_stopwatch", "read_world_clock_time", "remove_world_clock", "reset_stopwatch",
    "resume_timer", "set_alarm_days", "set_alarm_enabled", "set_alarm_label", "set_alarm_vibrate", "set_timer_label",
    "start_stopwatch", "start_timer", "stop_stopwatch", "time_texts",
]
