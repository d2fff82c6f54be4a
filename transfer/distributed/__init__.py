"""Running a run's episodes on many hosts: engine-neutral accounting plus a Ray engine.

:mod:`.dispatcher` decides where each :class:`~transfer.runner.EpisodeSpec` goes, what a lost
host costs (the episode moves, counted in ``attempts``/``retried_from``) and what is written
(only by the driver, traces before the record). :mod:`.ray_engine` carries it over Ray;
:mod:`.host` is the long-lived per-host actor wrapping that host's device farm and sim pool.
"""
