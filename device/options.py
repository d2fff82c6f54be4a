"""How to drive a phone: :class:`DeviceOptions`, the settings every part of a ``DeviceEnv`` reads.

One pydantic model, so the CLI, a run's ``config.json``, the Gymnasium env and the farm all pass
the same validated options; the defaults suit a real phone on a desk. It lives apart from
:mod:`device.env` so that the env's parts (:mod:`device.session`, :mod:`device.episode`,
:mod:`device.screen` …) can read it without importing the coordinator.
"""

from __future__ import annotations

import os
from typing import Any, Literal

from pydantic import BaseModel, Field, model_validator

__all__ = ["DeviceOptions"]


class DeviceOptions(BaseModel):
    """How to drive a phone. Defaults suit a real phone on a desk."""

    use_u2: bool = Field(True, description="Use uiautomator2's on-device server (hierarchy, screenshots, text).")
    gestures: Literal["shell", "u2"] = Field("shell", description="Taps/swipes via `input` or uiautomator2 RPC.")
    screenshots: bool = True
    image_format: Literal["jpeg", "png"] = "jpeg"
    settle: Literal["hierarchy", "frame", "none", "fixed", "androidworld"] = Field(
        "hierarchy", description="How to wait after an action: 'hierarchy' (adaptive: until the screen agrees with "
                                 "itself, see Observer.settle), 'frame', 'none', 'fixed' (sleep settle_fixed_s, the "
                                 "peers' way; 'fixed:1.0' sets both) or 'androidworld' (three equal UIs 0.5 s apart).")
    settle_cap_s: float = Field(3.0, ge=0, le=30)
    settle_interval_s: float = Field(0.08, ge=0, le=2)
    settle_fixed_s: float = Field(1.0, ge=0, le=30, description="The sleep of settle='fixed'.")
    read_start_state: bool = Field(True, description="Read the phone's state (WorldState) at reset, alongside the "
                                                     "start screen's observation; the first read_state() returns it "
                                                     "(an evaluation always asks for it: the judge's start state).")

    @model_validator(mode="before")
    @classmethod
    def _settle_spec(cls, data: Any) -> Any:
        """``settle="fixed:1.5"`` → ``settle="fixed", settle_fixed_s=1.5`` (the CLI's form)."""
        if isinstance(data, dict) and isinstance(data.get("settle"), str) and data["settle"].startswith("fixed:"):
            try:
                secs = float(data["settle"].split(":", 1)[1])
            except ValueError:
                raise ValueError(f"bad settle {data['settle']!r}; use fixed:SECONDS, e.g. fixed:1.0") from None
            data = {**data, "settle": "fixed", "settle_fixed_s": secs}
        return data
    stay_awake: bool = Field(True, description="Keep the screen on while plugged in (restored on close).")
    no_animations: bool = Field(True, description="Animation scales to 0 (restored on close).")
    alarm_probe: bool | Literal["auto"] = Field(
        "auto", description="Read alarms by opening the Clock app (it changes the screen): always, never, or "
                            "'auto' = only for tasks whose judge needs alarms.")
    destructive: bool = Field(default_factory=lambda: os.environ.get("S2R_DESTRUCTIVE", "") == "1",
                              description="Allow pm clear / wiping storage (dedicated test phones only). "
                                          "Default from S2R_DESTRUCTIVE=1.")
    test_recipient: str | None = Field(default_factory=lambda: os.environ.get("S2R_TEST_RECIPIENT") or None,
                                       description="A phone number you own: tasks may SMS/call only it. "
                                                   "Default from S2R_TEST_RECIPIENT.")
    journal_dir: str | None = None
    unlock: bool = Field(True, description="Wake the screen and dismiss a keyguard without PIN on start.")
    adb_ime: bool = Field(True, description="If an ADB keyboard IME is installed, make it current while s2r "
                                            "drives the phone (base64 text input); the user's IME is restored "
                                            "on close. Nothing is ever installed.")
    grant_appops: bool = Field(False, description="Setup may lift the WRITE_SMS app-op of com.android.shell "
                                                  "(`appops set`, restored on close): dedicated test phones only.")
    wait_devices: float = Field(30.0, ge=0, description="Seconds to wait for a usable phone (--device all|SERIALS).")
    audit: bool = Field(True, description="Snapshot the phone at start and compare after close (device.audit): "
                                          "proves nothing s2r made is left and nothing of the phone's changed.")
    record_video: bool = Field(False, description="Record each episode's screen with `screenrecord` (device.recorder): "
                                                  "started after setup, pulled into the episode's trace, removed "
                                                  "from the phone. A run sets it per episode (--record video).")
    video_segment_s: int = Field(170, ge=1, le=180, description="Length of one screenrecord segment (its "
                                                                "--time-limit); longer episodes chain segments.")
    video_bit_rate: int = Field(4_000_000, ge=100_000, le=200_000_000, description="screenrecord --bit-rate.")
