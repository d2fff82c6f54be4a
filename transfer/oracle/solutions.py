"""Template id → oracle solution: a skill generator built from the instance's parameters.

Solutions are registered per app module (``transfer/oracle/solutions_*.py``) with
:func:`solution`. Each one solves any instance of its template from observations alone.
"""

from __future__ import annotations

import importlib
import pkgutil
import threading
from collections.abc import Callable
from typing import Any

from .base import Ctx, Skill

Solution = Callable[[Ctx, Any], Skill]
_SOLUTIONS: dict[str, Solution] = {}
_loaded = False
_load_lock = threading.Lock()


def solution(*template_ids: str) -> Callable[[Solution], Solution]:
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
        from . import solved

        for m in pkgutil.iter_modules(solved.__path__):
            importlib.import_module(f"{solved.__name__}.{m.name}")
        _loaded = True


def solution_for(template_id: str) -> Solution | None:
    _load()
    return _SOLUTIONS.get(template_id)


def all_solutions() -> dict[str, Solution]:
    _load()
    return dict(_SOLUTIONS)
