"""`dumpsys battery` → BatteryReading on real and release-shaped outputs, and the virtual phone's
battery: its dump in each release's format, and the shell's `dumpsys battery set|get|unplug|reset`
as BatteryService answers them (the values freeze until `reset`; the status bar follows the level)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from device.parsers._common import ParseError
from device.parsers.battery import parse_dumpsys_battery

FIX = Path(__file__).parent / "fixtures" / "battery"
REAL = Path(__file__).parent / "fixtures" / "real-device"

#: file → (level %, °C, status, plugged, charging, updates stopped)
CASES: dict[str, tuple[float, float, str, list[str], bool, bool]] = {
    "dumpsys_battery_real_awesome_adb_usb_charging_44.txt": (44.0, 28.0, "charging", ["usb"], True, False),
    "dumpsys_battery_real_annotated_gridea_wireless_full.txt": (100.0, 35.0, "full", ["wireless"], False, False),
    "dumpsys_battery_real_samsung_page_unindented.txt": (84.0, 32.6, "charging", ["usb"], True, False),
    "dumpsys_battery_handwritten_android12_unplugged_discharging.txt": (17.0, 31.2, "discharging", [], False, False),
    "dumpsys_battery_handwritten_android14_updates_stopped_hot.txt": (84.0, 47.1, "charging", ["usb"], True, True),
    "dumpsys_battery_handwritten_android15_ac_charging.txt": (56.0, 33.4, "charging", ["ac"], True, False),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_fixture(name: str) -> None:
    r = parse_dumpsys_battery((FIX / name).read_bytes())
    level, temp, status, plugged, charging, stopped = CASES[name]
    assert (r.percent, r.temperature_c, r.status_name, r.plugged, r.charging, r.updates_stopped) == (
        level, temp, status, plugged, charging, stopped)
    assert r.health_name == "good" and r.present is True and r.scale == 100


def test_every_fixture_is_covered_and_vendor_lines_do_not_leak() -> None:
    assert {p.name for p in FIX.glob("*.txt")} == set(CASES)
    r = parse_dumpsys_battery((FIX / "dumpsys_battery_real_samsung_page_unindented.txt").read_text())
    assert r.technology == "Li-ion" and r.voltage_mv == 4063  # the first `Charge counter`, not Samsung's second
    assert parse_dumpsys_battery((FIX / "dumpsys_battery_real_annotated_gridea_wireless_full.txt")
                                 .read_text()).technology == "Li-poly"


def test_crlf_scale_and_rejects() -> None:
    text = "Current Battery Service state:\r\r\n  USB powered: true\r\r\n  level: 30\r\r\n  scale: 60\r\r\n"
    r = parse_dumpsys_battery(text)
    assert r.percent == 50.0 and r.plugged == ["usb"] and r.temperature_c is None and r.charging is None
    for bad in ("Can't find service: battery\n", "", "Permission Denial: can't dump BatteryService\n"):
        with pytest.raises(ParseError):
            parse_dumpsys_battery(bad)
    # no real-device capture of this dump is in the shared corpus: nothing there may parse as one
    for p in REAL.rglob("*.txt"):
        if "Battery Service" in p.read_text(errors="replace"):
            parse_dumpsys_battery(p.read_bytes())


def test_virtual_phone_battery_and_shell(sim_pool: Any) -> None:
    from _vshell import sh

    from device.virtual.knobs import PhoneKnobs
    from device.virtual.phone import VirtualPhone

    phone = VirtualPhone(PhoneKnobs(input_latency_ms=0, animation_ms=0, android=15, battery_level=64,
                                    battery_temp=301), pool=sim_pool).start()
    try:
        def read() -> Any:
            rc, out, _ = sh(phone, "dumpsys battery")
            assert rc == 0
            return parse_dumpsys_battery(out)

        r = read()
        assert (r.percent, r.temperature_c, r.plugged, r.status_name) == (64.0, 30.1, ["usb"], "charging")
        assert "  Charging policy: 1\n" in sh(phone, "dumpsys battery")[1]
        assert phone.state_data()["sys"]["battery"] == 64  # the status bar shows the knob's level
        # the hardware heats up mid-run
        phone.set_battery(temp=455)
        assert read().temperature_c == 45.5
        # the shell freezes the values: set prints nothing, later hardware changes stay hidden
        assert sh(phone, "dumpsys battery set temp 470") == (0, "", "")
        phone.set_battery(temp=300)
        r = read()
        assert r.temperature_c == 47.0 and r.updates_stopped
        assert sh(phone, "dumpsys battery get temp")[1] == "470\n"
        assert sh(phone, "dumpsys battery set level 12")[1] == ""
        assert phone.state_data()["sys"]["battery"] == 12
        assert sh(phone, "dumpsys battery unplug")[1] == ""
        r = read()
        assert r.plugged == [] and r.percent == 12.0 and r.status_name == "charging"  # the status stays frozen
        assert "mIsPowered=false" in sh(phone, "dumpsys power")[1]
        assert sh(phone, "dumpsys battery set level abc")[1] == "Bad value: abc\n"
        assert sh(phone, "dumpsys battery set colour 1")[1] == "Unknown set option: colour\n"
        assert sh(phone, "dumpsys battery set -f temp 480")[1].strip().isdigit()  # -f: the new sequence number
        # reset: back to the hardware's current values
        assert sh(phone, "dumpsys battery reset") == (0, "", "")
        r = read()
        assert (r.temperature_c, r.percent, r.plugged, r.updates_stopped) == (30.0, 64.0, ["usb"], False)
        assert phone.state_data()["sys"]["battery"] == 64
        phone.set_battery(plugged="none", level=19)
        r = read()
        assert (r.plugged, r.status_name, r.percent) == ([], "discharging", 19.0)
        assert "Battery service (battery) commands:" in sh(phone, "dumpsys battery help")[1]
    finally:
        phone.stop()


@pytest.mark.parametrize("android,lines", [(11, (False, False, False)), (13, (True, False, False)),
                                           (14, (True, True, False))])
def test_release_lines(android: int, lines: tuple[bool, bool, bool]) -> None:
    from device.virtual.android_dumpsys import dumpsys_battery
    from device.virtual.android_snapshot import SystemSnapshot
    from device.virtual.phone_power import BatteryState

    info = {**BatteryState(50, 250, "usb").hardware(), "updates_stopped": False}
    snap = SystemSnapshot.__new__(SystemSnapshot)
    snap.battery_info, snap.android, snap.battery = info, android, 50
    text = dumpsys_battery(snap)
    assert ("Dock powered" in text, "Charging state" in text, "Charging policy" in text) == lines
    assert parse_dumpsys_battery(text).summary() == {
        "level": 50.0, "temperature_c": 25.0, "charging": True, "plugged": ["usb"], "status": "charging",
        "health": "good", "present": True, "updates_stopped": False}
