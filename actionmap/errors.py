"""Who is at fault when an episode goes wrong: the one place s2r's error types are defined.

A step's result names its fault with :data:`ErrorKind` — the policy, the infrastructure or the
bridge — and every exception below belongs to one of them:

* the **policy**: :class:`ActionParseError`, output that is not a valid action, with a
  :data:`ParseReason` saying why. The episode goes on; the step counts as invalid.
* the **infrastructure**: :class:`InfraError`, a crashed page or a lost phone (the episode is
  retried on a fresh backend), and the model-server family under :class:`PolicyServerError` —
  :class:`PolicyServerOutage` (a step got no answer from the policy's model server, so its
  episode is void: recorded as ``infra`` with ``infra_source="policy_server"``, the phone kept)
  and :class:`PolicyServerDown` (a run stopped after too many such episodes in a row). A model
  server's trouble is never a parse failure: it says nothing about the policy.
* neither: :class:`SetupUnsupported`, a start state this backend cannot reproduce (recorded as
  ``unsupported``, outside every rate).

:class:`StateReadFailed` is the infrastructure error of an episode whose final ``WorldState``
could not be read (nothing to judge).
"""

from __future__ import annotations

import json
from typing import Any, Literal

ErrorKind = Literal["policy", "infra", "bridge"]
"""Who is at fault in a step's result: the policy's output, the infrastructure (a crashed page,
a lost USB phone), or the bridge (an action s2r could not carry out faithfully on this backend)."""

ParseReason = Literal["empty", "too_long", "no_action", "bad_json", "unknown_action", "missing_field",
                      "bad_number", "bad_point", "bad_index", "unknown_key", "bad_direction", "bad_status",
                      "not_literal", "wrong_type", "invalid_action", "bad_options", "out_of_range", "bad_text",
                      "internal_error", "bad_value"]
"""Why a policy's output was rejected. Each rejection ``actionmap.parse.parse_action`` makes on purpose
has its own reason:

* ``bad_number`` — a coordinate, duration or wait is not a finite number (a bool, NaN, ``"abc"``);
* ``bad_point`` — a point is not two numbers (or a four-number box);
* ``bad_index`` — an element index is not a small non-negative integer;
* ``unknown_key`` / ``bad_direction`` / ``bad_status`` — a key, scroll direction or terminal status we do not know;
* ``not_literal`` — a function-call action whose arguments are expressions, not literals (never evaluated);
* ``wrong_type`` — a field of the wrong JSON type (text that is not a string, answer fields that are not an object);
* ``invalid_action`` — the action schema refused the converted action;
* ``bad_options`` — the caller's options are unusable (``coords="px"`` without a screen size).

``internal_error`` is the last resort: an exception the parser did not anticipate. It still keeps the
contract (only :class:`ActionParseError` escapes) but is logged as a parser bug, so a crash can never pass
for a deliberate rejection. ``bad_value`` is no longer produced by the parser; it stays in the type for
callers that wrap other failures (a policy that raised) in an :class:`ActionParseError`.
"""

MAX_RAW = 65_536
"""Longest policy output we try to parse; longer output is rejected whole (and an error keeps no more of it)."""


# ------------------------------------------------------------------------------ the policy's fault
class ActionParseError(ValueError):
    """Policy output that is not a valid action. ``raw`` keeps the exact input text; ``kind`` is
    its :data:`ParseReason`."""

    def __init__(self, kind: ParseReason, reason: str, raw: Any):
        self.kind = kind
        self.reason = reason
        try:
            self.raw = raw if isinstance(raw, str) else json.dumps(raw, default=repr, ensure_ascii=False)[:MAX_RAW]
        except Exception:  # noqa: BLE001 - raw may be anything; never fail while reporting
            self.raw = repr(raw)[:MAX_RAW]
        super().__init__(f"{kind}: {reason}")

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "reason": self.reason, "raw": self.raw}

    def __reduce__(self) -> tuple[Any, ...]:  # pickles whole (another process, a Ray host)
        return type(self), (self.kind, self.reason, self.raw), self.__dict__


# ------------------------------------------------------------------------------ the infrastructure's
class InfraError(RuntimeError):
    """The infrastructure failed, not the policy. Raised plain, it is the backend's (a page crash, a
    lost device): the episode is retried elsewhere and never charged to the policy."""


class StateReadFailed(InfraError):
    """The backend's ``WorldState`` could not be read at the end of an episode: nothing to judge."""

    def __init__(self, cause: BaseException):
        super().__init__(f"reading state failed: {cause}")
        self.cause = cause


class PolicyServerError(InfraError):
    """A policy's model server did not serve (the family's base; ``server`` is its address,
    ``detail`` what went wrong). The phone is fine: it is neither blamed nor put aside."""

    def __init__(self, server: str, detail: str, message: str | None = None):
        super().__init__(message if message is not None else f"policy server {server}: {detail}"[:500])
        self.server, self.detail = server, detail

    def __reduce__(self) -> tuple[Any, ...]:  # pickles whole (another process, a Ray host)
        return type(self), (self.server, self.detail), self.__dict__


class PolicyServerOutage(PolicyServerError):
    """A step got no answer from the model server: refused, reset, timed out, 5xx, 429 after the
    adapter's retries, or it no longer serves the model.

    An adapter returns (or raises) it from ``act`` in place of an action. The episode loop then
    voids the episode — recorded as an infrastructure error with ``infra_source="policy_server"``,
    outside every rate, and ``--resume`` reruns it — with ``steps`` the steps taken before it.
    """

    def __init__(self, server: str, detail: str, steps: int = 0):
        super().__init__(server, detail)
        self.steps = steps

    def __reduce__(self) -> tuple[Any, ...]:
        return type(self), (self.server, self.detail, self.steps), self.__dict__


class PolicyServerDown(PolicyServerError):
    """A run stopped after ``count`` policy-server outage episodes in a row (``last_error`` the last
    one's detail); every finished episode is kept for ``--resume``."""

    def __init__(self, server: str, count: int, last_error: str):
        super().__init__(server, last_error, message=(
            f"stopped after {count} episodes in a row without an answer from the policy server {server} "
            f"(last: {last_error[:200]}); nothing was counted for them — start the server and rerun with --resume"))
        self.count, self.last_error = count, last_error

    def __reduce__(self) -> tuple[Any, ...]:
        return type(self), (self.server, self.count, self.last_error), self.__dict__


# ------------------------------------------------------------------------------ no one's
class SetupUnsupported(RuntimeError):
    """This backend cannot reproduce the task's start state (e.g. no API writes a world clock on a
    phone). Retrying cannot help: the episode is recorded with ``error_kind="unsupported"``,
    outside success rates and apart from infrastructure errors. Backends signal it by raising
    from ``reset`` an exception whose ``unsupported`` attribute is true."""
