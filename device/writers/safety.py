"""The real-world-effects policy: which tasks would make a phone act on the outside world (send an
SMS, place a call), and whether a real phone may run them (only towards a configured test recipient).
"""

from __future__ import annotations

from typing import Any

__all__ = ["real_world_effects", "refusal_reason"]


def real_world_effects(instance: Any) -> list[tuple[str, str | None]]:
    """Goals that need the phone to act on the outside world: ``(what, address or None)``.

    A message goal that is not limited to drafts means an SMS is sent; a call goal that is
    not limited to incoming kinds means a call is placed. Detected from the instance's goals
    (and apps) so a real phone can refuse the task unless the address is a test recipient.
    """
    out: list[tuple[str, str | None]] = []
    for g in getattr(instance, "goals", []) or []:
        if getattr(g, "check", None) != "record" or g.kind not in ("messages", "calls"):
            continue
        spec = {**g.match, **g.expect}
        if g.op == "absent":
            continue
        if g.kind == "messages":
            box = spec.get("box")
            boxes = box.get("value") if isinstance(box, dict) else box
            boxes = boxes if isinstance(boxes, list) else [boxes] if boxes is not None else ["sent"]
            if set(boxes) <= {"draft", "inbox"}:
                continue
            addr = spec.get("address")
            out.append(("sends an SMS", addr.get("value") if isinstance(addr, dict) else addr))
        else:
            kind = spec.get("kind")
            kinds = kind.get("value") if isinstance(kind, dict) else kind
            kinds = kinds if isinstance(kinds, list) else [kinds] if kinds is not None else ["outgoing"]
            if "outgoing" not in kinds:
                continue
            num = spec.get("number")
            out.append(("places a call", num.get("value") if isinstance(num, dict) else num))
    return out


def _digits(s: str | None) -> str:
    return "".join(c for c in (s or "") if c.isdigit())


def refusal_reason(instance: Any, test_recipient: str | None) -> str | None:
    """Why a real phone must not run this instance (None = safe)."""
    effects = real_world_effects(instance)
    if not effects:
        return None
    if not test_recipient:
        what = ", ".join(sorted({w for w, _ in effects}))
        return (f"task {getattr(instance, 'instance_id', '?')} {what} on a real phone; configure a test recipient "
                f"(a phone you own) to allow it")
    want = _digits(test_recipient)
    bad = [a for _, a in effects if a is None or not _digits(a).endswith(want[-9:])]
    if bad:
        return f"task would contact {bad} which is not the configured test recipient {test_recipient!r}"
    return None
