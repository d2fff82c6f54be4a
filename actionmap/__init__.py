"""The shared contract of s2r: actions, observations, world state, geometry and apps.

Everything a policy emits or sees, and everything a task sets up or checks, is defined
here once, so the simulator and a real phone differ only behind the Env protocol.
"""

from .actions import (ACTION_ADAPTER, ACTION_TYPES, MAX_TEXT, TERMINAL_TYPES, Abort, Action, Answer, AnyAction,
                      Complete, DoubleTap, Drag, Key, LongPress, OpenApp, Scroll, Swipe, Tap, TypeText, Wait)
from .apps import APP_IDS, canonical_app_id, registry
from .env import Env, ErrorKind, StepInfo
from .geometry import GRID, grid_to_px, point_to_px, px_to_grid, px_to_point
from .observation import Bounds, Foreground, Observation, Screen, UIElement
from .parse import ActionParseError, parse_action, try_parse_action
from .worldstate import WorldState, diff, flatten

__all__ = [
    "ACTION_ADAPTER", "ACTION_TYPES", "APP_IDS", "GRID", "MAX_TEXT", "TERMINAL_TYPES", "Abort", "Action",
    "ActionParseError", "Answer", "AnyAction", "Bounds", "Complete", "DoubleTap", "Drag", "Env", "ErrorKind",
    "Foreground", "Key", "LongPress", "Observation", "OpenApp", "Screen", "Scroll", "StepInfo", "Swipe", "Tap",
    "TypeText", "UIElement", "Wait", "WorldState", "canonical_app_id", "diff", "flatten", "grid_to_px",
    "parse_action", "point_to_px", "px_to_grid", "px_to_point", "registry", "try_parse_action",
]
