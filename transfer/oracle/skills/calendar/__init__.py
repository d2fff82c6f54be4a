"""Oracle skills for Calendar: the package's API.

Events are reached the way a user of each app reaches them, always through roles of the app UI
layer (:mod:`device.apps.calendar`, data in ``device/apps/data/calendar.yaml``):

- a family whose month view names its days (``month_day``, the `sim` flavor) pages the month
  view and taps the day, whose events are then listed;
- a family whose month view counts each day's events (``month_cell``, Google Calendar) pages the
  month view sideways and taps the day, which opens that day's view;
- otherwise (AOSP/Etar, whose month and day views are drawn) the Agenda view is sent to the date
  with the overflow's "Go to…" and the framework date picker.

A known event is found through the app's search (the results list its day's header above it).
Dates are typed where the picker has a text mode (Material's), picked in the framework's calendar
(its days are named "18 March 2027") or typed into Month/Day/Year fields; times go through the time
picker's keyboard mode. A control a family lacks is an OracleError that names it and the family.

The skills live by what they do — :mod:`.navigate` (reaching a day or an event) and
:mod:`.events` (the event form and the operations on one event) — over :mod:`.dates` (how the
apps write dates and times); this module gathers what the solutions and tests call.
"""

from __future__ import annotations

from .dates import MONTHS, long_date, parse_time, picker_day, short_date
from .events import create_event, delete_event, list_events, move_event, read_event, rename_event
from .navigate import (APP, day_rows, go_to_date, open_calendar, open_event, open_month_view, search, show_month,
                       this_year)

__all__ = [
    "APP", "MONTHS", "create_event", "day_rows", "delete_event", "go_to_date", "list_events", "long_date",
    "move_event", "open_calendar", "open_event", "open_month_view", "parse_time", "picker_day", "read_event",
    "rename_event", "search", "short_date", "show_month", "this_year",
]
