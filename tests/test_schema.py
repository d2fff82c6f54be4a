"""The shared contract: JSON round trips, geometry properties, schema export."""

from __future__ import annotations

import json
from datetime import datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from actionmap import (ACTION_ADAPTER, ACTION_TYPES, Action, Observation, Screen, UIElement, WorldState, diff,
                       flatten)
from actionmap.actions import MAX_TEXT, Tap, TypeText
from actionmap.apps import APP_IDS, canonical_app_id, registry
from actionmap.geometry import (display_to_natural, grid_to_px, natural_to_display, point_to_px, px_to_grid,
                                px_to_point, rotated_size)
from actionmap.worldstate import Alarm, Contact, PhoneNumber

EXAMPLES = [
    {"type": "tap", "point": [500, 500]},
    {"type": "tap", "target": 3},
    {"type": "double_tap", "point": [0, 1000]},
    {"type": "long_press", "point": [10, 20], "duration_ms": 1200},
    {"type": "swipe", "start": [500, 800], "end": [500, 200], "duration_ms": 250},
    {"type": "drag", "start": [100, 100], "end": [900, 900]},
    {"type": "scroll", "direction": "down"},
    {"type": "scroll", "direction": "left", "point": [500, 400]},
    {"type": "type", "text": "héllo 你好 👋", "clear": True, "submit": True},
    {"type": "key", "key": "back"},
    {"type": "open_app", "app": "clock"},
    {"type": "wait", "seconds": 1.5},
    {"type": "answer", "fields": {"answer": "42", "names": ["a", "b"]}},
    {"type": "complete", "message": "done"},
    {"type": "abort", "reason": "infeasible"},
]


def test_every_action_type_has_an_example() -> None:
    assert {e["type"] for e in EXAMPLES} == set(ACTION_TYPES)


@pytest.mark.parametrize("obj", EXAMPLES, ids=[e["type"] for e in EXAMPLES])
def test_action_json_round_trip(obj: dict) -> None:
    a = Action.validate_any(obj)
    assert a.type == obj["type"]
    again = Action.validate_any(json.loads(json.dumps(a.to_json())))
    assert again == a
    # the parser takes canonical JSON text too
    assert Action.parse(json.dumps(obj)) == a


def test_swipe_accepts_from_to_names() -> None:
    a = Action.validate_any({"type": "swipe", "from": [1, 2], "to": [3, 4]})
    assert a.start == (1, 2) and a.end == (3, 4)


@pytest.mark.parametrize("bad,error_type,msg", [
    ({"type": "tap"}, "value_error", "give exactly one of 'point' or 'target'"),      # neither point nor target
    ({"type": "tap", "point": [1, 2], "target": 1}, "value_error", "give exactly one of 'point' or 'target'"),
    ({"type": "tap", "point": [1001, 2]}, "less_than_equal", "less than or equal to 1000"),  # off grid
    ({"type": "type", "text": "x" * (MAX_TEXT + 1)}, "value_error", f"{MAX_TEXT + 1} characters"),  # too long
    ({"type": "type", "text": "a\x07b"}, "value_error", "control character U+0007"),
    ({"type": "key", "key": "volume_up"}, "literal_error", "'back', 'home', 'recents', 'enter' or 'delete'"),
    ({"type": "answer", "fields": {}}, "value_error", "an answer needs at least one field"),
    ({"type": "teleport"}, "union_tag_invalid", "Input tag 'teleport'"),
])
def test_invalid_canonical_actions_rejected(bad: dict, error_type: str, msg: str) -> None:
    """Each invalid action is refused by the schema itself, for its own reason (not by some crash)."""
    with pytest.raises(ValidationError) as ei:
        ACTION_ADAPTER.validate_python(bad)
    [err] = ei.value.errors()
    assert err["type"] == error_type and msg in err["msg"], err


def test_observation_round_trip_keeps_screenshot_bytes() -> None:
    el = UIElement.from_px(0, (0, 0, 540, 120), (1080, 2400), text="Wi‑Fi", class_name="android.widget.Switch",
                           checkable=True, checked=True)
    obs = Observation(screenshot=b"\x89PNG\r\n\x1a\n\x00\xff", screen=Screen(width=1080, height=2400, density=440),
                      elements=[el], keyboard_visible=True, step=3)
    again = Observation.model_validate_json(obs.model_dump_json())
    assert again.screenshot == obs.screenshot
    assert again.elements[0].grid_bounds == el.grid_bounds
    assert el.grid_bounds.right == px_to_grid(539, 1080)
    assert obs.find("Wi‑Fi")[0].checked


def test_worldstate_round_trip_and_diff() -> None:
    s = WorldState(
        time=datetime(2026, 3, 14, 9, 30),
        contacts=[Contact(id="1", name="Ada Lovelace", phones=[PhoneNumber(number="+44 20 7946 0000")])],
        alarms=[Alarm(id="a1", hour=7, minute=30, enabled=True, days=["mon", "fri"])],
        world_clocks=["Tokyo"],
    )
    again = WorldState.model_validate_json(s.model_dump_json())
    assert again == s
    t = again.model_copy(deep=True)
    t.alarms[0].enabled = False
    t.world_clocks = ["Tokyo", "Paris"]
    t.settings.wifi = True  # None → True: a newly known value is a change too
    paths = {c.path for c in diff(s, t)}
    assert paths == {"alarms[id=a1].enabled", "world_clocks[Paris]", "settings.wifi"}
    # reordering a list is not a change
    u = t.model_copy(deep=True)
    u.world_clocks = ["Paris", "Tokyo"]
    assert diff(t, u) == []
    assert s.get_path("alarms.0.hour") == 7 and s.get_path("settings.wifi") is None
    assert "contacts[id=1].name" in flatten(s)


def test_app_registry_resolves_names_and_packages() -> None:
    reg = registry()
    assert set(reg.apps) == set(APP_IDS)
    for app_id in APP_IDS:
        for fam in ("aosp", "xiaomi", "samsung"):
            assert reg.components(app_id, fam), (app_id, fam)
    assert canonical_app_id("Settings") == "settings"
    assert canonical_app_id("com.google.android.deskclock") == "clock"
    assert canonical_app_id("SMS") == "messages"
    assert canonical_app_id("Angry Birds") is None
    assert reg.family_of("Xiaomi") == "xiaomi" and reg.family_of("OnePlus") == "aosp"


# --- geometry properties -------------------------------------------------------------------

sizes = st.integers(min_value=2, max_value=4000)


@settings(max_examples=300, deadline=None)
@given(w=sizes, h=sizes, fx=st.floats(0, 1), fy=st.floats(0, 1))
def test_pixel_grid_pixel_within_one_pixel(w: int, h: int, fx: float, fy: float) -> None:
    x, y = round(fx * (w - 1)), round(fy * (h - 1))
    gx, gy = px_to_point(x, y, w, h)
    assert 0 <= gx <= 1000 and 0 <= gy <= 1000
    x2, y2 = point_to_px((gx, gy), w, h)
    # one grid step spans (size-1)/1000 px; rounding twice loses at most half a step + half a px
    assert abs(x2 - x) <= max(1, (w - 1) / 2000 + 0.5)
    assert abs(y2 - y) <= max(1, (h - 1) / 2000 + 0.5)
    if w <= 1001:
        assert abs(x2 - x) <= 1


@settings(max_examples=300, deadline=None)
@given(w=sizes, h=sizes, r=st.integers(0, 3), fx=st.floats(0, 1), fy=st.floats(0, 1))
def test_rotation_round_trip(w: int, h: int, r: int, fx: float, fy: float) -> None:
    dw, dh = rotated_size(w, h, r)
    x, y = round(fx * (dw - 1)), round(fy * (dh - 1))
    nx, ny = display_to_natural(x, y, w, h, r)
    assert 0 <= nx <= w - 1 and 0 <= ny <= h - 1
    assert natural_to_display(nx, ny, w, h, r) == (x, y)


@given(v=st.integers(-10**6, 10**6), size=sizes)
def test_grid_to_px_is_clamped(v: int, size: int) -> None:
    assert 0 <= grid_to_px(v, size) <= size - 1


def test_grid_corners() -> None:
    assert point_to_px((0, 0), 1080, 2400) == (0, 0)
    assert point_to_px((1000, 1000), 1080, 2400) == (1079, 2399)
    assert Tap(point=(500, 500)).px(1080, 2400) == (540, 1200)
    assert TypeText(text="").text == ""


def test_schema_cli_writes_schemas(tmp_path) -> None:
    from typer.testing import CliRunner

    from s2r.cli import app

    res = CliRunner().invoke(app, ["schema", "--out", str(tmp_path)])
    assert res.exit_code == 0, res.output
    names = {p.name for p in tmp_path.iterdir()}
    for n in ("Action", "Observation", "UIElement", "WorldState"):
        assert f"{n}.schema.json" in names
    action = json.loads((tmp_path / "Action.schema.json").read_text())
    assert set(action["discriminator"]["mapping"]) == set(ACTION_TYPES)
    ws = json.loads((tmp_path / "WorldState.schema.json").read_text())
    assert "settings" in ws["properties"]


def test_version_cli() -> None:
    from typer.testing import CliRunner

    from s2r.cli import app

    res = CliRunner().invoke(app, ["--version"])
    assert res.exit_code == 0 and res.output.startswith("s2r ")
