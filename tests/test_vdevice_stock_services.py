"""Settings that mirror a system service, and the service commands, on a stock phone.

Through a private adb server and adbutils: a raw ``settings put`` of a service-mirrored key
leaves the service (and the world the apps show) alone, ZenModeHelper writes ``zen_mode``
back, and the service commands (``cmd wifi``, ``cmd notification set_dnd`` …) switch state
with the outputs and the keys the real services write. The readers of
:mod:`device.parsers.services` read every output back.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

adbutils = pytest.importorskip("adbutils")

from _rigs import AdbHost, RigPhone  # noqa: E402
from device.parsers import parse_dumpsys_window  # noqa: E402
from device.parsers.services import (parse_airplane_mode, parse_bluetooth_dump, parse_location_enabled,  # noqa: E402
                                     parse_night_mode, parse_volume_get, parse_wifi_status, parse_zen_mode,
                                     service_missing)

pytestmark = pytest.mark.timeout(240)


@pytest.fixture(scope="module")
def host(adb_host: AdbHost) -> AdbHost:
    return adb_host


class Phone(RigPhone):
    """The module's phone (``_rigs.RigPhone``)."""


@pytest.fixture(scope="module")
def p14(host: AdbHost, sim_pool: Any) -> Iterator[Phone]:
    p = Phone(host, sim_pool)
    try:
        yield p
    finally:
        p.stop()


def test_raw_zen_mode_is_written_back_and_set_dnd_works(p14: Phone) -> None:
    assert parse_zen_mode(p14.out("dumpsys notification")) is False
    p14.out("settings put global zen_mode 1")
    deadline = time.monotonic() + 30  # a failure guard only: the write-back comes after the put, never before
    while p14.out("settings get global zen_mode").strip() != "0":
        assert time.monotonic() < deadline, "ZenModeHelper never wrote zen_mode back"
        time.sleep(0.1)
    dump = p14.out("dumpsys notification")
    assert "    mZenMode=ZEN_MODE_OFF\n" in dump and parse_zen_mode(dump) is False
    assert p14.world()["do_not_disturb"] is False

    rc, out, err = p14.sh("cmd notification set_dnd priority")
    assert (rc, out, err) == (0, "", "")
    dump = p14.out("dumpsys notification")
    assert "    mZenMode=ZEN_MODE_IMPORTANT_INTERRUPTIONS\n" in dump and parse_zen_mode(dump) is True
    assert p14.out("settings get global zen_mode") == "1\n" and p14.world()["do_not_disturb"] is True
    p14.out("cmd notification set_dnd on")
    assert p14.out("settings get global zen_mode") == "2\n"
    assert "mZenMode=ZEN_MODE_NO_INTERRUPTIONS" in p14.out("dumpsys notification")
    p14.out("cmd notification set_dnd off")
    assert p14.out("settings get global zen_mode") == "0\n" and p14.world()["do_not_disturb"] is False


def test_wifi_raw_put_does_not_switch_the_radio(p14: Phone) -> None:
    assert p14.out("cmd wifi status").startswith("Wifi is enabled\n")
    p14.out("settings put global wifi_on 0")
    assert p14.out("settings get global wifi_on") == "0\n"  # stored ...
    status = p14.out("cmd wifi status")
    assert parse_wifi_status(status) is True and p14.world()["wifi"] is True  # ... but nothing switched
    assert p14.sh("cmd wifi set-wifi-enabled disabled") == (0, "", "")
    assert p14.out("cmd wifi status") == "Wifi is disabled\nWifi scanning is always available\n"
    assert p14.world()["wifi"] is False and p14.out("settings get global wifi_on") == "0\n"
    p14.out("svc wifi enable")
    status = p14.out("cmd wifi status")
    assert status.splitlines()[:3] == ["Wifi is enabled", "Wifi scanning is always available",
                                       "==== Primary ClientModeManager instance ===="]
    assert p14.out("settings get global wifi_on") == "1\n"


def test_night_mode(p14: Phone) -> None:
    p14.out("cmd uimode night no")
    p14.out("settings put secure ui_night_mode 2")
    assert p14.out("settings get secure ui_night_mode") == "2\n"
    assert p14.out("cmd uimode night") == "Night mode: no\n" and p14.world()["dark_mode"] is False
    assert p14.out("cmd uimode night yes") == "Night mode: yes\n"
    out = p14.out("cmd uimode night")
    assert out == "Night mode: yes\n" and parse_night_mode(out) is True and p14.world()["dark_mode"] is True
    assert p14.out("settings get secure ui_night_mode") == "2\n"
    rc, _, err = p14.sh("cmd uimode night maybe")
    assert rc == 255 and err.startswith("Error: mode must be 'yes', 'no', or 'auto'")
    p14.out("cmd uimode night no")


def test_bluetooth_airplane_location_volume_14(p14: Phone) -> None:
    p14.out("cmd bluetooth_manager enable")
    assert parse_bluetooth_dump(p14.out("dumpsys bluetooth_manager")) is True
    rc, out, _ = p14.sh("cmd bluetooth_manager disable")
    assert (rc, out) == (0, "BluetoothShellCommand: Execdisable\ndisable: Success\n")
    dump = p14.out("dumpsys bluetooth_manager")
    assert "  enabled: false\n  state: OFF\n" in dump and parse_bluetooth_dump(dump) is False
    assert p14.out("settings get global bluetooth_on") == "0\n" and p14.world()["bluetooth"] is False

    # a raw airplane_mode_on put: no radio moves, but ConnectivityService's status form reads the key
    p14.out("settings put global airplane_mode_on 1")
    assert p14.world()["airplane_mode"] is False and p14.out("cmd connectivity airplane-mode") == "enabled\n"
    p14.out("cmd connectivity airplane-mode enable")
    p14.out("cmd connectivity airplane-mode disable")
    out = p14.out("cmd connectivity airplane-mode")
    assert out == "disabled\n" and parse_airplane_mode(out) is False and p14.world()["airplane_mode"] is False
    p14.out("cmd connectivity airplane-mode enable")
    assert p14.world()["airplane_mode"] is True and p14.out("settings get global airplane_mode_on") == "1\n"
    p14.out("cmd connectivity airplane-mode disable")

    p14.out("cmd location set-location-enabled false")
    out = p14.out("cmd location is-location-enabled")
    assert out == "false\n" and parse_location_enabled(out) is False
    assert p14.out("settings get secure location_mode") == "0\n"
    p14.out("cmd location set-location-enabled true")
    assert p14.out("cmd location is-location-enabled") == "true\n" and p14.world()["location"] is True

    assert p14.out("cmd media_session volume --stream 3 --set 7") == (
        "[V] will control stream=3 (STREAM_MUSIC)\n[V] will set volume to index=7\n[V] Connecting to AudioService\n")
    out = p14.out("cmd media_session volume --stream 3 --get")
    assert out.endswith("[V] volume is 7 in range [0..25]\n") and parse_volume_get(out) == 7
    assert p14.world()["media_volume"] == 7
    # AudioService persists the stream's key PERSIST_DELAY (500 ms) after the change, not at once
    deadline = time.monotonic() + 5
    while p14.out("settings get system volume_music_speaker") != "7\n":
        assert time.monotonic() < deadline, "AudioService never persisted volume_music_speaker"
        time.sleep(0.1)


def test_unknown_service_and_subcommand(p14: Phone) -> None:
    assert p14.sh("cmd nosuchservice foo") == (20, "", "cmd: Can't find service: nosuchservice\n")
    rc, out, _ = p14.sh("cmd wifi frobnicate")
    assert (rc, out) == (255, "Unknown command: frobnicate\n")


def test_dumpsys_window_insets_14(p14: Phone) -> None:
    text = p14.out("dumpsys window")
    assert " type=statusBars frame=" in text and " type=navigationBars " in text and "InsetsSource id=3 type=ime" in text
    assert "ITYPE_" not in text and "mDreamingLockscreen=false" in text
    w = parse_dumpsys_window(text)
    assert w.status_bar is not None and w.navigation_bar is not None and w.navigation_bar_source == "insets"


@pytest.mark.parametrize("release", [11, 13, 15])
def test_other_releases(host: AdbHost, sim_pool: Any, release: int) -> None:
    p = Phone(host, sim_pool, android=release)
    try:
        text = p.out("dumpsys window")
        w = parse_dumpsys_window(text)
        assert w.status_bar is not None and w.navigation_bar is not None
        if release >= 14:
            assert "type=statusBars" in text and "ITYPE_" not in text
        else:
            assert "InsetsSource type=ITYPE_STATUS_BAR frame=" in text and "statusBars" not in text
        if release == 11:
            rc, out, err = p.sh("cmd bluetooth_manager disable")
            assert (rc, out, err) == (0, "", "No shell command implementation.\n") and service_missing(err)
            assert p.world()["bluetooth"] is False
            p.out("svc bluetooth enable")
            assert parse_bluetooth_dump(p.out("dumpsys bluetooth_manager")) is True
            p.out("svc bluetooth disable")
            assert p.world()["bluetooth"] is False
            rc, out, _ = p.sh("cmd location is-location-enabled")
            assert rc == 255 and parse_location_enabled(out) is None
            assert p.out("cmd wifi status") == "Wifi is enabled\nWifi scanning is always available\nWifi is not connected\n"
        if release == 13:
            assert p.out("cmd bluetooth_manager enable") == "Enabling Bluetooth\n" and p.world()["bluetooth"] is True
        p.out("svc data disable")
        assert p.world()["mobile_data"] is False and p.out("settings get global mobile_data") == "0\n"
    finally:
        p.stop()


def test_permissive_raw_put_still_switches(host: AdbHost, sim_pool: Any) -> None:
    p = Phone(host, sim_pool, permissive=True)
    try:
        p.out("settings put global wifi_on 0")
        assert p.world()["wifi"] is False and parse_wifi_status(p.out("cmd wifi status")) is False
        p.out("settings put global zen_mode 1")
        time.sleep(0.5)
        assert p.out("settings get global zen_mode") == "1\n" and p.world()["do_not_disturb"] is True
    finally:
        p.stop()
