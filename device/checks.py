"""One diagnostic finding (``s2r doctor`` prints these): a name, ok/warn/fail, what was seen, the fix.

It lives outside the CLI so that the packages below it (``device``, ``sim``, ``transfer``) can
report checks without importing the command-line layer.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["Check"]


@dataclass
class Check:
    name: str
    status: str  # "ok" | "warn" | "fail"
    detail: str
    fix: str = ""
    data: dict[str, object] = field(default_factory=dict)
