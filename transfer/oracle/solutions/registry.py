"""The registry of oracle solutions: template id → a skill generator built from the instance.

Each module of this package registers its templates' solutions with :func:`solution`; the
registry imports them all the first time a solution is asked for (:func:`solution_for`,
:func:`all_solutions`), so a caller never needs to know which module holds which template.
"""

from __future__ import annotations

import importlib
import pkgutil
import threading
from collections.abc import Callable
from typing import Any

from ..base import Ctx, Skill

Solution = Callable[[Ctx, Any], Skill]
_SOLUTIONS: dict[str, Solution] = {}
_loaded = False
_load_lock = threading.Lock()


def solution(*template_ids: str) -> Callable[[Solution], Solution]:
    """Register the decorated function as the solution of ``template_ids``."""

    def deco(fn: Solution) -> Solution:
        for t in template_ids:
            _SOLUTIONS[t] = fn
        return fn

    return deco


def _load() -> None:
    """Import every solution module once; safe when many runner threads ask at the same time."""
    global _loaded
    if _loaded:
        return
    with _load_lock:
        if _loaded:
            return
        package = importlib.import_module(__package__)
        for m in pkgutil.iter_modules(package.__path__):
            importlib.import_module(f"{package.__name__}.{m.name}")
        _loaded = True


def solution_for(template_id: str) -> Solution | None:
    """The solution of ``template_id``, or None when the oracle has none."""
    _load()
    return _SOLUTIONS.get(template_id)


def all_solutions() -> dict[str, Solution]:
    """Every registered solution by template id."""
    _load()
    return dict(_SOLUTIONS)
