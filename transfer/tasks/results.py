"""The result of one check, shared by goal checks and answer fields."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class CheckResult(BaseModel):
    """One judged predicate: what was looked at, what was wanted, what was there.

    ``undetermined`` means the backend could not read ``field`` (it is ``None`` in the
    state); such a check is neither passed nor failed.
    """

    model_config = ConfigDict(extra="forbid")
    name: str
    field: str
    expected: Any = None
    actual: Any = None
    passed: bool = False
    undetermined: bool = False
    detail: str = Field("", description="Why it failed or was undetermined, in words.")
