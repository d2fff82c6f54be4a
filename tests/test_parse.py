"""``Action.parse`` over real-looking agent outputs, malformed and hostile ones included.

The contract: a known format yields the right action; anything else yields
``ActionParseError`` (keeping the raw text) — never another exception.
"""

from __future__ import annotations

import json
import logging
import typing

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from actionmap import Action, ActionParseError, try_parse_action
from actionmap.parse import ParseReason

QWEN_TOOL_CALL = """I need to open the clock to set an alarm.
<tool_call>
{"name": "mobile_use", "arguments": {"action": "click", "coordinate": [538, 912]}}
</tool_call>"""

UITARS = """Thought: The Wi-Fi toggle is at the top of the quick settings panel. I'll tap it.
Action: click(start_box='<|box_start|>(312,145)<|box_end|>')"""

AUTOGLM = """<think>用户要求打开设置</think>
<answer>do(action="Launch", app="设置")</answer>"""

GOOD: list[tuple[str, object, dict, dict]] = [
    # (id, raw, parse options, expected canonical JSON subset)
    ("qwen-tool-call", QWEN_TOOL_CALL, {}, {"type": "tap", "point": (538, 912)}),
    ("qwen-json-type", '{"action": "type", "text": "7:30 alarm"}', {}, {"type": "type", "text": "7:30 alarm"}),
    ("qwen-swipe", '{"action": "swipe", "coordinate": [500, 800], "coordinate2": [500, 200]}', {},
     {"type": "swipe", "start": (500, 800), "end": (500, 200)}),
    ("qwen-system-button", '{"action": "system_button", "button": "Back"}', {}, {"type": "key", "key": "back"}),
    ("qwen-open", '{"action": "open", "text": "Clock"}', {}, {"type": "open_app", "app": "clock"}),
    ("qwen-terminate", '{"action": "terminate", "status": "success"}', {}, {"type": "complete"}),
    ("qwen-terminate-fail", '{"action": "terminate", "status": "failure"}', {}, {"type": "abort"}),
    ("qwen-long-press", '{"action": "long_press", "coordinate": [100, 200], "time": 2}', {},
     {"type": "long_press", "duration_ms": 2000}),
    ("qwen-wait", '{"action": "wait", "time": 3}', {}, {"type": "wait", "seconds": 3.0}),
    ("qwen-answer", '{"action": "answer", "text": "Tokyo"}', {}, {"type": "answer", "fields": {"answer": "Tokyo"}}),
    ("json-fenced", 'Here you go:\n```json\n{"action": "click", "coordinate": [10, 10]}\n```', {},
     {"type": "tap", "point": (10, 10)}),
    ("qwen25-pixels", '{"action": "click", "coordinate": [540, 1200]}', {"coords": "px", "screen": (1080, 2400)},
     {"type": "tap", "point": (500, 500)}),
    ("norm-floats", '{"action": "click", "coordinate": [0.5, 0.25]}', {"coords": "norm"},
     {"type": "tap", "point": (500, 250)}),
    ("uitars-box", UITARS, {}, {"type": "tap", "point": (312, 145)}),
    ("uitars-point", "Action: click(point='<point>200 300</point>')", {}, {"type": "tap", "point": (200, 300)}),
    ("uitars-4box", "Action: click(start_box='(100,100,200,300)')", {}, {"type": "tap", "point": (150, 200)}),
    ("uitars-type", "Thought: type it\nAction: type(content='hello\\nworld')", {},
     {"type": "type", "text": "hello\nworld"}),
    ("uitars-scroll", "Action: scroll(start_box='(500,500)', direction='down')", {},
     {"type": "scroll", "direction": "down", "point": (500, 500)}),
    ("uitars-drag", "Action: drag(start_box='(100,800)', end_box='(100,200)')", {},
     {"type": "drag", "start": (100, 800), "end": (100, 200)}),
    ("uitars-home", "Action: press_home()", {}, {"type": "key", "key": "home"}),
    ("uitars-back", "Action: press_back()", {}, {"type": "key", "key": "back"}),
    ("uitars-finished", "Action: finished(content='All set')", {}, {"type": "complete", "message": "All set"}),
    ("uitars-open-app", "Action: open_app(app_name='Settings')", {}, {"type": "open_app", "app": "settings"}),
    ("uitars-hotkey", "Action: hotkey(key='enter')", {}, {"type": "key", "key": "enter"}),
    ("uitars-long-press", "Action: long_press(start_box='(5,5)')", {}, {"type": "long_press", "point": (5, 5)}),
    ("autoglm-launch", AUTOGLM, {"grid": 999}, {"type": "open_app", "app": "设置"}),
    ("autoglm-tap", 'do(action="Tap", element=[999, 0])', {"grid": 999}, {"type": "tap", "point": (1000, 0)}),
    ("autoglm-type", 'do(action="Type", text="你好，世界 👋")', {"grid": 999}, {"type": "type", "text": "你好，世界 👋"}),
    ("autoglm-swipe", 'do(action="Swipe", start=[500, 800], end=[500, 100])', {"grid": 999},
     {"type": "swipe", "start": (501, 801), "end": (501, 100)}),
    ("autoglm-double", 'do(action="Double Tap", element=[100, 100])', {"grid": 999}, {"type": "double_tap"}),
    ("autoglm-long", 'do(action="Long Press", element=[100, 100])', {"grid": 999}, {"type": "long_press"}),
    ("autoglm-back", 'do(action="Back")', {"grid": 999}, {"type": "key", "key": "back"}),
    ("autoglm-home", 'do(action="Home")', {"grid": 999}, {"type": "key", "key": "home"}),
    ("autoglm-wait", 'do(action="Wait", duration="2 seconds")', {"grid": 999}, {"type": "wait", "seconds": 2.0}),
    ("autoglm-finish", 'finish(message="任务完成")', {"grid": 999}, {"type": "complete", "message": "任务完成"}),
    ("autoglm-takeover", 'do(action="Take_over", message="login needed")', {"grid": 999}, {"type": "abort"}),
    ("aw-click-index", {"action_type": "click", "index": 4}, {}, {"type": "tap", "target": 4}),
    ("aw-click-xy", {"action_type": "click", "x": 10, "y": 990}, {}, {"type": "tap", "point": (10, 990)}),
    ("aw-input", {"action_type": "input_text", "text": "Ada", "index": 2}, {}, {"type": "type", "target": 2}),
    ("aw-back", {"action_type": "navigate_back"}, {}, {"type": "key", "key": "back"}),
    ("aw-home", {"action_type": "navigate_home"}, {}, {"type": "key", "key": "home"}),
    ("aw-enter", {"action_type": "keyboard_enter"}, {}, {"type": "key", "key": "enter"}),
    ("aw-scroll", {"action_type": "scroll", "direction": "up"}, {}, {"type": "scroll", "direction": "up"}),
    ("aw-status", {"action_type": "status", "goal_status": "complete"}, {}, {"type": "complete"}),
    ("aw-infeasible", {"action_type": "status", "goal_status": "infeasible"}, {}, {"type": "abort"}),
    ("aw-open-app", {"action_type": "open_app", "app_name": "Contacts"}, {}, {"type": "open_app", "app": "contacts"}),
    ("swipe-direction-only", {"action": "swipe", "direction": "up"}, {}, {"type": "scroll", "direction": "down"}),
    ("nested-json-in-text", '{"action": "type", "text": "{\\"a\\": [1, 2]}"}', {}, {"type": "type", "text": '{"a": [1, 2]}'}),
    ("shell-metachars", '{"type": "type", "text": "\'; reboot; $(id) `ls` | > /sdcard/x &"}', {},
     {"type": "type", "text": "'; reboot; $(id) `ls` | > /sdcard/x &"}),
    ("slight-overshoot-clamped", '{"action": "click", "coordinate": [1010, -3]}', {},
     {"type": "tap", "point": (1000, 0), "clamped": True}),
    ("string-numbers", '{"action": "click", "coordinate": ["12", "34"]}', {}, {"type": "tap", "point": (12, 34)}),
]

BAD: list[tuple[str, object, dict, str, str]] = [
    # (id, raw, parse options, expected kind, text the reason must contain)
    ("empty", "", {}, "empty", "empty output"),
    ("whitespace", "   \n ", {}, "empty", "empty output"),
    ("prose", "I think I should tap the button.", {}, "no_action", "no action found"),
    ("unknown-action", '{"action": "teleport", "coordinate": [1, 2]}', {}, "unknown_action", "'teleport'"),
    ("missing-coordinate", '{"action": "click"}', {}, "missing_field", "needs a point or an element index"),
    ("missing-type", '{"coordinate": [1, 2]}', {}, "missing_field", "no action type"),
    ("huge-number", '{"action": "click", "coordinate": [1e308, 5]}', {}, "out_of_range", "point.x = 1e+308 outside 0..1000"),
    ("huge-int", '{"action": "click", "coordinate": [' + "9" * 400 + ', 5]}', {}, "out_of_range", "point.x = 9999"),
    ("nan", '{"action": "click", "coordinate": [NaN, 5]}', {}, "bad_number", "point.x is not finite"),
    ("infinity", '{"action": "click", "coordinate": [Infinity, 5]}', {}, "bad_number", "point.x is not finite"),
    ("negative", '{"action": "click", "coordinate": [-400, 5]}', {}, "out_of_range", "point.x = -400 outside 0..1000"),
    ("bool-coordinate", '{"action": "click", "coordinate": [true, 5]}', {}, "bad_number", "point.x is not a number: True"),
    ("word-coordinate", '{"action": "click", "coordinate": ["abc", 5]}', {}, "bad_number", "point.x is not a number: 'abc'"),
    ("three-numbers", '{"action": "click", "coordinate": [1, 2, 3]}', {}, "bad_point", "point is not a point: [1, 2, 3]"),
    ("point-without-y", '{"action": "click", "coordinate": {"x": 1}}', {}, "bad_point", "point object needs x and y"),
    ("truncated-json", '{"action": "click", "coordinate": [1, ', {}, "bad_json", "invalid JSON"),
    ("control-chars", '{"action": "type", "text": "a\\u0000b"}', {}, "bad_text", "text contains control character U+0000"),
    ("too-long-text", json.dumps({"action": "type", "text": "x" * 5000}), {}, "bad_text", "text is 5000 characters; at most 4096 allowed"),
    ("text-not-string", '{"action": "type", "text": ["a"]}', {}, "wrong_type", "text must be a string"),
    ("fields-not-object", '{"action": "answer", "fields": [1]}', {}, "wrong_type", "answer fields must be an object"),
    ("too-long-output", "x" * 70_000, {}, "too_long", "output is 70000 characters"),
    ("not-utf8", b"\xff\xfe\x00", {}, "bad_text", "not UTF-8"),
    ("list-not-object", [1, 2, 3], {}, "no_action", "got list"),
    ("none", None, {}, "no_action", "got NoneType"),
    ("bad-key", '{"action": "system_button", "button": "Power"}', {}, "unknown_key", "unknown key 'Power'"),
    ("bad-direction", '{"action": "scroll", "direction": "sideways"}', {}, "bad_direction", "got 'sideways'"),
    ("python-injection", "Action: click(start_box=__import__('os').system('id'))", {}, "not_literal",
     "arguments of click() are not literals"),
    ("dunder-call", "__import__('os').system('echo pwned')", {}, "no_action", "no action found"),
    ("px-without-screen", '{"action": "click", "coordinate": [1, 2]}', {"coords": "px"}, "bad_options",
     "coords='px' needs screen"),
    ("deep-nesting", "[" * 100_000, {}, "too_long", "output is 100000 characters"),
    ("deep-nesting-json", '{"a":' * 5000 + "1" + "}" * 5000, {}, "bad_json", "invalid JSON"),
    ("negative-index", {"action_type": "click", "index": -1}, {}, "bad_index", "small non-negative integer: -1"),
    ("bad-status", {"action_type": "status", "goal_status": "maybe"}, {}, "bad_status", "unknown status 'maybe'"),
    ("negative-wait", '{"action": "wait", "time": -5}', {}, "invalid_action", "wait.seconds: Input should be greater"),
    ("endless-wait", '{"action": "wait", "time": 99999}', {}, "invalid_action", "wait.seconds: Input should be less"),
    ("short-long-press", '{"action": "long_press", "coordinate": [1, 2], "duration_ms": 4}', {}, "invalid_action",
     "long_press.duration_ms"),
]


@pytest.mark.parametrize("raw,opts,expected", [g[1:] for g in GOOD], ids=[g[0] for g in GOOD])
def test_parses_known_formats(raw: object, opts: dict, expected: dict) -> None:
    a = Action.parse(raw, **opts)
    for k, v in expected.items():
        assert getattr(a, k) == v, (k, getattr(a, k), v)


@pytest.mark.parametrize("raw,opts,kind,reason", [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_rejects_malformed_with_typed_error(raw: object, opts: dict, kind: str, reason: str) -> None:
    with pytest.raises(ActionParseError) as ei:
        Action.parse(raw, **opts)
    assert ei.value.kind == kind, ei.value
    assert reason in ei.value.reason, ei.value
    assert isinstance(ei.value.raw, str)
    if isinstance(raw, str) and len(raw) < 60_000:
        assert ei.value.raw == raw  # the exact text is kept for the run record


def test_injection_never_executes(tmp_path) -> None:
    marker = tmp_path / "pwned"
    raw = f"Action: click(start_box=open('{marker}', 'w').write('x'))"
    err = try_parse_action(raw)
    assert isinstance(err, ActionParseError)
    assert not marker.exists()


DELIBERATE_KINDS = set(typing.get_args(ParseReason)) - {"internal_error", "bad_value"}
"""Every kind the parser raises on purpose; ``internal_error`` means the parser itself crashed."""

_FUZZ_KEYS = ["action", "type", "action_type", "coordinate", "coordinate2", "text", "x", "y", "index", "direction",
              "start", "end", "key", "button", "app", "status", "goal_status", "fields", "point", "time", "duration",
              "duration_ms", "seconds", "message", "target"]
_FUZZ_VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True), st.text(max_size=20),
    st.sampled_from(["click", "swipe", "long_press", "wait", "type", "scroll", "answer", "status", "key", "up"]),
    st.lists(st.one_of(st.integers(), st.floats(), st.text(max_size=3)), max_size=5),
    st.dictionaries(st.sampled_from(["x", "y", "a"]), st.integers(), max_size=3))


@settings(max_examples=400, deadline=None)
@given(st.one_of(
    st.text(max_size=300),
    st.binary(max_size=200),
    st.dictionaries(st.sampled_from(_FUZZ_KEYS), _FUZZ_VALUES, max_size=6),
    st.dictionaries(st.sampled_from(_FUZZ_KEYS), _FUZZ_VALUES, max_size=6).map(lambda d: json.dumps(d, default=str)),
    st.recursive(st.none() | st.integers() | st.text(max_size=5), lambda c: st.lists(c) | st.dictionaries(st.text(max_size=5), c), max_leaves=20),
))
def test_fuzz_only_typed_errors(raw: object) -> None:
    """Arbitrary input yields an action or a deliberate rejection — never a parser crash in disguise."""
    res = try_parse_action(raw)
    assert isinstance(res, (Action, ActionParseError))
    if isinstance(res, ActionParseError):
        assert res.kind in DELIBERATE_KINDS, (res.kind, res.reason, raw)


class _HostileDict(dict):
    """A mapping that fails on lookup: the one way left to make the converter itself crash."""

    def __contains__(self, key: object) -> bool:
        raise RuntimeError("lookup exploded")


def test_unanticipated_crash_is_a_distinct_logged_kind(caplog: pytest.LogCaptureFixture) -> None:
    """The catch-all keeps the contract but is reported as a parser bug, not as a policy mistake."""
    with caplog.at_level(logging.ERROR, logger="actionmap.parse"):
        res = try_parse_action(_HostileDict(action="click"))
    assert isinstance(res, ActionParseError)
    assert (res.kind, res.reason) == ("internal_error", "RuntimeError: lookup exploded")
    bugs = [r for r in caplog.records if r.name == "actionmap.parse" and r.levelno == logging.ERROR]
    assert len(bugs) == 1 and "parse_action bug" in bugs[0].getMessage() and bugs[0].exc_info is not None
