"""Prompt formats for VLM policies served over an OpenAI-compatible API.

Two formats cover most open GUI agents: Qwen-VL-style JSON actions on the 0–1000 grid
(Qwen2.5/3-VL, GUI-Owl, MobileGym-trained models) and UI-TARS-style function calls. The
reply is parsed by :func:`actionmap.parse.parse_action`, which accepts both.
"""

from __future__ import annotations

from actionmap.observation import Observation

from .base import StepRecord

QWEN_SYSTEM = """You are a GUI agent operating an Android phone. You see a screenshot of the phone.
Coordinates are integers on a 0-1000 grid over the whole screenshot: (0,0) is the top-left corner, (1000,1000) the bottom-right.
Reply with your reasoning in one short sentence, then exactly one action as JSON inside <tool_call></tool_call>:
{"name": "mobile_use", "arguments": {"action": ACTION, ...}}
Actions:
- {"action": "click", "coordinate": [x, y]}
- {"action": "long_press", "coordinate": [x, y]}
- {"action": "swipe", "coordinate": [x1, y1], "coordinate2": [x2, y2]}
- {"action": "type", "text": "..."}            (types into the focused field)
- {"action": "system_button", "button": "Back" | "Home" | "Enter"}
- {"action": "open", "text": "App name"}
- {"action": "wait", "time": seconds}
- {"action": "answer", "text": "..."}           (for questions: the answer, which ends the task)
- {"action": "terminate", "status": "success" | "failure"}"""

UITARS_SYSTEM = """You are a GUI agent. You are given a task and your action history, with screenshots. You need to perform the next action to complete the task.

## Output Format
```
Thought: ...
Action: ...
```

## Action Space
click(start_box='(x1,y1)')
long_press(start_box='(x1,y1)')
type(content='')
scroll(start_box='(x1,y1)', direction='down or up or right or left')
open_app(app_name='')
drag(start_box='(x1,y1)', end_box='(x2,y2)')
press_home()
press_back()
finished(content='')  # when the task is done; put the answer of a question in content

Coordinates are on a 0-1000 grid over the screenshot."""

SYSTEMS = {"qwen": QWEN_SYSTEM, "uitars": UITARS_SYSTEM}


def history_text(history: list[StepRecord], window: int) -> str:
    if not history:
        return "No previous actions."
    lines = []
    for h in history[-window:]:
        if h.invalid and h.action is None:
            lines.append(f"Step {h.step}: (invalid output: {h.invalid})")
        else:
            lines.append(f"Step {h.step}: {h.action}" + (f" — not executed: {h.invalid}" if h.invalid else ""))
    return "\n".join(lines)


def user_text(instruction: str, obs: Observation, history: list[StepRecord], window: int, with_elements: bool) -> str:
    parts = [f"Task: {instruction}", f"Previous actions:\n{history_text(history, window)}"]
    if with_elements:
        parts.append("UI elements ([index] class 'label' grid=(left, top, right, bottom)):\n" + obs.describe(limit=120))
    parts.append("What is the next action?")
    return "\n\n".join(parts)
