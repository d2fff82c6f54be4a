"""A scripted Gymnasium policy for ``settings.wifi_off``, shared by the gym tests and the
fresh-interpreter run of the README's one-liner (a helper module: no test imports a test module)."""

from __future__ import annotations

import json
from typing import Any

OPEN_SETTINGS = '{"type": "open_app", "app": "settings"}'
# the rows that lead to the Wi-Fi switch in the `sim` and `aosp` Settings apps
WIFI_PATH = ("Network & internet", "Internet", "Wi‑Fi")


def wifi_off_policy(obs: dict[str, Any], tapped: set[str]) -> str:
    """A scripted policy for ``settings.wifi_off`` that reads only the observation's elements:
    open Settings, follow the Wi-Fi rows, tap the checked switch, then say it is done."""
    if obs["foreground"] != "settings":
        return OPEN_SETTINGS
    if "switch" in tapped:
        return '{"type": "complete"}'
    for e in obs["elements"]:
        if e["class_name"].endswith("Switch") and e["flags"][4] and "Airplane" not in e["text"]:
            tapped.add("switch")
            return json.dumps({"type": "tap", "target": int(e["index"])})
    for label in WIFI_PATH:
        hit = next((e for e in obs["elements"] if e["text"] == label), None)
        if hit is not None and label not in tapped:
            tapped.add(label)
            return json.dumps({"type": "tap", "target": int(hit["index"])})
    return '{"type": "abort"}'
