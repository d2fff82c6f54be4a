"""The chat a text policy reads from s2r's Gymnasium envs: system prompt and one user turn per observation.

Why: the in-process trainer adapters (the verl agent loop, the rLLM env) drive ``SimGymEnv``
directly, so they see Gymnasium observations (``s2r.gym.spaces``: element dicts with numpy
boxes and a flag bit-vector) rather than the server's JSON. This module turns such an
observation into the same prompt text the TRL example uses — the task, what the last step did,
and the UI element list ``[index] Class 'label' grid=(l, t, r, b) flags`` — so a policy trained
through any of the trainers reads one format.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from s2r.gym.spaces import ELEMENT_FLAGS

SYSTEM = """You operate an Android phone to complete a task. You read the screen as a list of UI elements.
Reply with exactly one action as JSON, nothing else. Actions:
{"type": "tap", "target": INDEX}                 (or "point": [x, y] on a 0-1000 grid)
{"type": "long_press", "target": INDEX}
{"type": "type", "text": "...", "target": INDEX}  (types into that field)
{"type": "scroll", "direction": "up" | "down" | "left" | "right"}
{"type": "key", "key": "back" | "home" | "enter"}
{"type": "open_app", "app": "settings"}
{"type": "answer", "fields": {"FIELD": "..."}}    (for questions: the fields the task names; ends the task)
{"type": "complete"}                             (the task is done)"""
"""The system prompt of every trainer example: canonical s2r JSON actions with element targets (a text
policy has no pixels). One copy, so the examples' policies are told the same thing."""

SHOWN_FLAGS: tuple[str, ...] = ("clickable", "editable", "checkable", "checked", "scrollable", "focused", "selected")
"""The element flags a prompt line names (the rest of ``ELEMENT_FLAGS`` rarely helps a policy)."""
ELEMENTS_HEADER = "UI elements ([index] class 'label' grid=(left, top, right, bottom)):"
QUESTION = "What is the next action?"


def element_line(e: Mapping[str, Any]) -> str:
    """One Gymnasium element dict as a prompt line: ``[index] Class 'label' grid=(l, t, r, b) flags``."""
    label = e["text"] or e["content_desc"] or e["hint"] or str(e["resource_id"]).rsplit("/", 1)[-1]
    cls = str(e["class_name"] or "View").rsplit(".", 1)[-1]
    box = tuple(int(v) for v in e["grid_bounds"])
    bits = dict(zip(ELEMENT_FLAGS, (bool(b) for b in e["flags"])))
    flags = " ".join(f for f in SHOWN_FLAGS if bits.get(f))
    return f"[{int(e['index'])}] {cls} {label!r} grid={box} {flags}".rstrip()


def observation_text(obs: Mapping[str, Any], *, max_elements: int = 40, info: Mapping[str, Any] | None = None) -> str:
    """The user turn for a Gymnasium observation.

    ``info`` is None for the first turn (the turn then opens with the task); after a step it is
    that step's ``info``, and the turn opens with what the step did (carried out or not, and why).
    """
    if info is None:
        parts = [f"Task: {obs['instruction']}"]
    elif info.get("invalid_action") or info.get("error"):
        invalid = info.get("invalid_action")
        why = info.get("error") or (invalid if isinstance(invalid, str) else "the reply is not an action")
        parts = [f"Step {info.get('step', '?')}: not carried out ({why})."]
    else:
        parts = [f"Step {info.get('step', '?')} done."]
    lines = [element_line(e) for e in list(obs["elements"])[:max_elements]]
    parts.append(ELEMENTS_HEADER + "\n" + "\n".join(lines))
    parts.append(QUESTION)
    return "\n\n".join(parts)


def first_messages(obs: Mapping[str, Any], *, max_elements: int = 40) -> list[dict[str, str]]:
    """The chat an episode starts with: the system prompt and the first observation."""
    return [{"role": "system", "content": SYSTEM},
            {"role": "user", "content": observation_text(obs, max_elements=max_elements)}]
