"""Oracle solutions: one per task template, each a plan over the per-app skills.

A *solution* solves every instance of one template (``clock.create_alarm``,
``test.clock.alarm_before_event`` …) from the instance's parameters and what the screen shows:
it composes the skills of :mod:`transfer.oracle.skills` (which know one app's screens, not any
task) and ends with the task's ``complete`` or ``answer``. One module per app (``clock.py`` …)
and ``multi.py`` for templates that span apps register theirs with :func:`solution`;
:mod:`.registry` finds them by template id.
"""

from __future__ import annotations

from .registry import Solution, all_solutions, solution, solution_for

__all__ = ["Solution", "all_solutions", "solution", "solution_for"]
