"""Oracle skills: what a person does in one app, whatever the task (add an alarm, open a thread).

A *skill* is a generator over one app's screens (:mod:`transfer.oracle.base` says how one is
written): it finds controls by role through the app UI layer (:mod:`device.apps`) and knows
nothing of task templates — the solutions (:mod:`transfer.oracle.solutions`) combine skills
into a task's plan. One module or package per app (settings, clock, contacts, phone, messages,
calendar, files, calculator), and :mod:`.common` for the moves every app shares (tapping clear
of a floating button, holding, retrying, reading a row's summary).
"""
