"""A stock phone's rules for the shell user where the virtual phone used to be too kind.

Through a private real adb server, adbutils (``shell2`` v2 for exit codes and stderr, ``logcat``,
``start_recording``/``stop_recording``) and uiautomator2, against one stock Android 14 phone and
one Android 15 phone per module:

* the ringer — a raw ``settings put global mode_ringer`` changes AudioService's record only;
  AudioService changes through ``cmd audio set-ringer-mode`` (15) or the ring stream's volume,
  refuses the shell a change into or out of SILENT, rewrites its key 500 ms later, and
  ``dumpsys audio`` says which mode it is in; DeviceEnv sets, verifies and restores it there;
* media volume — read from the service: ``volume_music_speaker`` is absent on a fresh phone and
  persisted late, a raw put of it changes nothing;
* ``am start -n`` of a missing or an unexported activity, DeskClock's SET_ALARM rules,
  ``pm grant`` of what is no runtime permission or was never requested;
* ``log``/``logcat`` (a dump and adbutils' stream, which ``stop()`` ends), ``screenrecord``
  stopped with SIGINT (a playable MP4) or killed (none), and mksh's ``wait``/``type``/``read``.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

adbutils = pytest.importorskip("adbutils")

from _rigs import AdbHost, RigPhone  # noqa: E402
from device.parsers.services import parse_ringer_mode, parse_stream_volume, parse_volume_get  # noqa: E402

pytestmark = pytest.mark.timeout(300)


class Phone(RigPhone):
    """``_rigs.RigPhone`` with the audio service's readers."""

    def ringer(self) -> str | None:
        return parse_ringer_mode(self.out("dumpsys audio"))

    def key_becomes(self, cmd: str, want: str, within: float = 60.0) -> float:
        """Poll ``cmd`` until it prints ``want``; returns how long that took."""
        t0 = time.monotonic()
        while self.out(cmd).strip() != want:
            assert time.monotonic() - t0 < within, f"{cmd!r} never printed {want!r} (now {self.out(cmd)!r})"
            time.sleep(0.05)
        return time.monotonic() - t0


@pytest.fixture(scope="module")
def p14(adb_host: AdbHost, sim_pool: Any) -> Iterator[Phone]:
    p = Phone(adb_host, sim_pool)
    try:
        yield p
    finally:
        adb_host.stop_phone(p.phone)


@pytest.fixture(scope="module")
def p15(adb_host: AdbHost, sim_pool: Any) -> Iterator[Phone]:
    p = Phone(adb_host, sim_pool, android=15)
    try:
        yield p
    finally:
        adb_host.stop_phone(p.phone)


# ============================================================================ 1. the ringer
def test_a_raw_mode_ringer_put_changes_the_key_and_nothing_else(p14: Phone) -> None:
    assert p14.out("settings get global mode_ringer") == "2\n" and p14.ringer() == "normal"
    p14.out("settings put global mode_ringer 0")
    assert p14.out("settings get global mode_ringer") == "0\n"  # stored ...
    dump = p14.out("dumpsys audio")
    assert "- mode (internal) = NORMAL\n- mode (external) = NORMAL\n" in dump  # ... but the ringer rings
    assert parse_ringer_mode(dump) == "normal" and p14.world()["ringer_mode"] == "normal"
    time.sleep(0.7)
    assert p14.out("settings get global mode_ringer") == "0\n"  # nothing observes it, nothing rewrites it

    # the ring stream at 0 is VIBRATE (AudioService.getNewRingerMode): the service's own change,
    # which it persists PERSIST_DELAY (500 ms) later
    out = p14.out("cmd media_session volume --stream 2 --set 0")
    assert out == ("[V] will control stream=2 (STREAM_RING)\n[V] will set volume to index=0\n"
                   "[V] Connecting to AudioService\n")
    assert p14.ringer() == "vibrate" and p14.world()["ringer_mode"] == "vibrate"
    assert p14.key_becomes("settings get global mode_ringer", "1") > 0.2
    ring = p14.out("dumpsys audio")
    assert parse_stream_volume(ring, "STREAM_RING") == 0 and "   Muted: true" in ring.split("- STREAM_RING:")[1][:40]
    # a raise in VIBRATE goes back to NORMAL; the ring volume, never left at 0 unmuted, is 1
    p14.out("cmd media_session volume --stream 2 --adj raise")
    assert p14.ringer() == "normal"
    assert parse_volume_get(p14.out("cmd media_session volume --stream 2 --get")) == 1
    p14.key_becomes("settings get global mode_ringer", "2")


def test_the_shell_cannot_move_the_ringer_in_or_out_of_silent_by_volume(p14: Phone) -> None:
    p14.phone.settings.service_set("ringer_mode", "silent")  # the user chose Silent in the volume panel
    assert p14.ringer() == "silent"
    for cmd in ("cmd media_session volume --stream 2 --adj raise", "cmd media_session volume --stream 2 --set 4"):
        rc, out, err = p14.sh(cmd)
        assert rc == 255 and out.startswith("[V] will control stream=2 (STREAM_RING)\n")
        assert "usage: media_session [subcommand] [options]\n" in out
        assert err == "java.lang.SecurityException: Not allowed to change Do Not Disturb state\n"
    assert p14.ringer() == "silent"
    # Android 14 has no set-ringer-mode: AudioManagerShellCommand ignores the verb, exit 0, nothing said
    assert p14.sh("cmd audio set-ringer-mode NORMAL") == (0, "", "")
    assert p14.ringer() == "silent"
    p14.phone.settings.service_set("ringer_mode", "normal")


def test_set_ringer_mode_on_15(p15: Phone) -> None:
    assert p15.sh("cmd audio set-ringer-mode SILENT") == (0, "", "")
    assert p15.ringer() == "silent" and p15.world()["ringer_mode"] == "silent"
    p15.key_becomes("settings get global mode_ringer", "0")
    assert p15.sh("cmd audio set-ringer-mode LOUD") == (
        1, "", "Error: invalid value of ringerMode, should be one of NORMAL|SILENT|VIBRATE\n")
    assert p15.sh("cmd audio set-ringer-mode") == (1, "", "Error: no ringer mode specified\n")
    rc, out, _ = p15.sh("cmd audio")
    assert rc == 255 and "  set-ringer-mode NORMAL|SILENT|VIBRATE\n" in out
    p15.out("cmd audio set-ringer-mode NORMAL")
    assert p15.ringer() == "normal"


def test_device_env_sets_and_restores_the_ringer_through_audioservice(p14: Phone, p15: Phone,
                                                                      tmp_path: Path) -> None:
    from actionmap.patch import StatePatch
    from device.adbshell import Shell
    from device.writers import SetupError, SettingsJournal, set_setting

    for p in (p14, p15):
        shell = Shell(p.host.client(), p.serial)
        how = set_setting(shell, "ringer_mode", "vibrate", SettingsJournal())
        assert p.ringer() == "vibrate", how
        assert how == ("cmd: cmd audio set-ringer-mode VIBRATE" if p is p15 else
                       "cmd: cmd media_session volume --stream 2 --set 0")
        assert set_setting(shell, "ringer_mode", "normal", SettingsJournal()).startswith("cmd: ")
        assert p.ringer() == "normal"
    # Silent: only AudioManagerShellCommand's verb can (15); on 14 the shell is refused — unsupported
    with pytest.raises(SetupError) as ei:
        set_setting(Shell(p14.host.client(), p14.serial), "ringer_mode", "silent", SettingsJournal())
    assert ei.value.unsupported and p14.ringer() == "normal"

    from device.env import DeviceEnv

    env = DeviceEnv(p15.serial, journal_dir=str(tmp_path))
    try:
        env.start()
        env.reset(StatePatch.model_validate({"settings": {"ringer_mode": "silent"}}))
        assert p15.ringer() == "silent" and env.read_state().settings.ringer_mode == "silent"
        rep = env.end_episode()
        assert rep is not None and not rep.left and p15.ringer() == "normal", rep
        # the policy puts the phone on vibrate through the UI: teardown asks AudioService to undo it
        env.reset(StatePatch.model_validate({}))
        p15.phone.settings.service_set("ringer_mode", "vibrate")
        rep = env.end_episode()
        assert rep is not None and "episode settings.ringer_mode='normal'" in rep.restored, rep
        assert p15.ringer() == "normal"
    finally:
        env.close()


# ============================================================================ 2. media volume
def test_media_volume_is_read_from_the_service_not_the_late_key(p14: Phone) -> None:
    from device.adbshell import Shell
    from device.readers import StateReader

    shell = Shell(p14.host.client(), p14.serial)
    before = StateReader(shell).settings().media_volume
    assert before == parse_volume_get(p14.out("cmd media_session volume --stream 3 --get"))
    p14.out("cmd media_session volume --stream 3 --set 11")
    assert StateReader(shell).settings().media_volume == 11  # the service, at once
    p14.key_becomes("settings get system volume_music_speaker", "11")  # the record, later
    p14.out("settings put system volume_music_speaker 3")  # a raw put: the record only
    assert StateReader(shell).settings().media_volume == 11 and p14.world()["media_volume"] == 11
    assert parse_stream_volume(p14.out("dumpsys audio"), "STREAM_MUSIC") == 11
    rc, out, err = p14.sh("cmd media_session volume --stream 3 --set 40")
    assert rc == 0 and "usage: media_session" in out
    assert err == "Error: invalid volume index 40 for stream 3 (should be in [0..25])\n"


def test_a_fresh_phone_has_no_volume_key(adb_host: AdbHost, sim_pool: Any) -> None:
    p = Phone(adb_host, sim_pool, android=13)
    try:
        assert p.out("settings get system volume_music_speaker") == "null\n"
        assert "volume_music_speaker=" not in p.out("settings list system")
        assert parse_volume_get(p.out("cmd media_session volume --stream 3 --get")) == p.world()["media_volume"]
        # Android 13's AudioManagerShellCommand has the surround verbs only
        assert p.sh("cmd audio set-ringer-mode VIBRATE") == (0, "", "") and p.ringer() == "normal"
    finally:
        adb_host.stop_phone(p.phone)


# ============================================================================ 3. am start -n
def test_am_start_of_a_missing_or_unexported_activity(p14: Phone) -> None:
    rc, out, err = p14.sh("am start -n com.android.settings/.NoSuchActivity")
    assert (rc, out) == (0, "Starting: Intent { cmp=com.android.settings/.NoSuchActivity }\n")
    assert err == "Error type 3\nError: Activity class {com.android.settings/.NoSuchActivity} does not exist.\n"
    rc, out, _ = p14.sh("am start -W -n com.android.settings/.NoSuchActivity")  # -W: on stdout
    assert rc == 0 and "Error type 3\n" in out

    fg = p14.phone.foreground()
    rc, out, err = p14.sh("am start -n com.android.settings/.SubSettings")
    assert rc == 255 and out == "Starting: Intent { cmp=com.android.settings/.SubSettings }\n"
    assert err.startswith("\nException occurred while executing 'start':\njava.lang.SecurityException: "
                          "Permission Denial: starting Intent { flg=0x10000000 cmp=com.android.settings/.SubSettings }"
                          " from null (pid="), err
    assert re.search(r"\(pid=\d+, uid=2000\) not exported from uid 1000\n\tat com\.android\.server\.wm\."
                     r"ActivityTaskSupervisor\.checkStartAnyActivityPermission", err), err
    assert p14.phone.foreground() == fg
    assert "W ActivityTaskManager: Permission Denial: starting" in p14.out("logcat -d -b system")

    rc, out, err = p14.sh("am start -a android.intent.action.VIEW -d https://example.com")
    assert rc == 0 and err.startswith("Error: Activity not started, unable to resolve Intent { act=android.intent."
                                      "action.VIEW dat=") and err.endswith(" flg=0x10000000 }\n"), err

    import uiautomator2 as u2

    d = u2.connect(p14.host.client().device(p14.serial))  # this rig's adb server, not adbutils' module default
    r = d.shell(["am", "start", "-n", "com.android.deskclock/.worldclock.CitySelectionActivity"])
    assert r.exit_code == 255 and "not exported from uid" in r.output
    r = d.shell(["am", "start", "-n", "com.android.deskclock/.DeskClock"])
    assert r.exit_code == 0 and p14.phone.foreground()[0] == "com.android.deskclock"
    p14.out("input keyevent HOME")


# ============================================================================ 4. SET_ALARM
def _set_alarm(p: Phone, extra: str) -> tuple[int, str, str]:
    return p.sh("am start -a android.intent.action.SET_ALARM --ez android.intent.extra.alarm.SKIP_UI true " + extra)


def test_set_alarm_reuses_a_matching_alarm_and_refuses_a_bad_hour(p14: Phone) -> None:
    def alarms() -> list[dict[str, Any]]:
        return list(p14.phone.state_data()["world"].get("alarms") or [])

    n = len(alarms())
    msg = "--es android.intent.extra.alarm.MESSAGE Swim"
    assert _set_alarm(p14, f"--ei android.intent.extra.alarm.HOUR 6 --ei android.intent.extra.alarm.MINUTES 45 {msg}")[0] == 0
    assert len(alarms()) == n + 1
    new = alarms()[-1]
    assert (new["hour"], new["minute"], new["label"], new["enabled"]) == (6, 45, "Swim", True)

    def off(d: dict[str, Any]) -> None:
        d["world"]["alarms"][-1]["enabled"] = False
    p14.phone.mutate(off)
    rc, out, _ = _set_alarm(p14, f"--ei android.intent.extra.alarm.HOUR 6 --ei android.intent.extra.alarm.MINUTES 45 {msg}")
    assert rc == 0 and out.startswith("Starting: Intent { act=android.intent.action.SET_ALARM")
    assert len(alarms()) == n + 1 and alarms()[-1]["enabled"] is True  # the same alarm, enabled again
    # another label, or repeat days, is another alarm
    _set_alarm(p14, "--ei android.intent.extra.alarm.HOUR 6 --ei android.intent.extra.alarm.MINUTES 45 "
                    "--eial android.intent.extra.alarm.DAYS 2,3 " + msg)
    assert len(alarms()) == n + 2 and sorted(alarms()[-1]["days"]) == ["mon", "tue"]
    # "Illegal hour" / "Illegal minute": nothing is saved (the activity still starts, and finishes)
    for bad in ("--ei android.intent.extra.alarm.HOUR 25", "--ei android.intent.extra.alarm.HOUR -1",
                "--ei android.intent.extra.alarm.HOUR 7 --ei android.intent.extra.alarm.MINUTES 60",
                "--es android.intent.extra.alarm.HOUR 7"):  # getIntExtra of a String extra: -1
        assert _set_alarm(p14, bad)[0] == 0
        assert len(alarms()) == n + 2, bad


# ============================================================================ 5. pm grant
def test_pm_grant_refuses_what_is_not_a_requested_runtime_permission(p14: Phone, p15: Phone) -> None:
    rc, out, err = p14.sh("pm grant com.android.calculator2 android.permission.CAMERA")
    assert (rc, out) == (255, "")
    assert err.startswith("\nException occurred while executing 'grant':\njava.lang.SecurityException: Package "
                          "com.android.calculator2 has not requested permission android.permission.CAMERA\n\tat "
                          "com.android.server.pm.permission.PermissionManagerServiceImpl."), err
    rc, _, err = p14.sh("pm grant com.android.messaging android.permission.INTERNET")
    assert rc == 255 and ("java.lang.SecurityException: Permission android.permission.INTERNET requested by "
                          "com.android.messaging is not a changeable permission type\n") in err
    rc, _, err = p14.sh("pm revoke com.android.messaging android.permission.NO_SUCH_THING")
    assert rc == 255 and "java.lang.IllegalArgumentException: Unknown permission: android.permission.NO_SUCH_THING\n" in err
    assert p14.sh("pm grant com.android.messaging android.permission.READ_CONTACTS") == (0, "", "")
    assert p14.sh("pm grant com.android.messaging android.permission.POST_NOTIFICATIONS") == (0, "", "")
    assert "android.permission.POST_NOTIFICATIONS: granted=true" in p14.out("dumpsys package com.android.messaging")
    assert p14.sh("pm revoke com.android.messaging android.permission.POST_NOTIFICATIONS") == (0, "", "")
    # Android 15's PermissionService: "requested by package …"; an unrequested one is only logged
    rc, _, err = p15.sh("pm grant com.android.messaging android.permission.INTERNET")
    assert rc == 255 and "Permission android.permission.INTERNET requested by package com.android.messaging" in err
    assert p15.sh("pm grant com.android.calculator2 android.permission.CAMERA") == (0, "", "")
    assert ("E PermissionService: Permission android.permission.CAMERA isn't requested by package "
            "com.android.calculator2") in p15.out("logcat -d -b system")


# ============================================================================ 6. log / logcat
def test_log_reaches_logcat_dump_and_stream(p14: Phone, tmp_path: Path) -> None:
    assert p14.sh("log -p w -t S2RTEST hello from the shell") == (0, "", "")
    dump = p14.out("logcat -d -s S2RTEST")
    m = re.fullmatch(r"--------- beginning of main\n\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} +(\d+) +(\d+) W S2RTEST : "
                     r"hello from the shell\n", dump)
    assert m and m.group(1) == m.group(2), dump  # threadtime; the log process's pid is its tid
    assert p14.sh("log -p x hi") == (1, "", "log: bad -p 'x'\n")
    p14.out("echo 'line one\nline two' | log -t S2RPIPE")
    assert [ln.split(": ", 1)[1] for ln in p14.out("logcat -d -s S2RPIPE").splitlines()[1:]] == [
        "line one", "line two", ""]

    out = tmp_path / "logcat.txt"
    ev = p14.dev.logcat(str(out), clear=True, re_filter="S2RSTREAM")
    time.sleep(0.3)
    p14.out("log -t S2RSTREAM streamed line")
    deadline = time.monotonic() + 60
    while "streamed line" not in (out.read_text() if out.exists() else ""):
        assert time.monotonic() < deadline, "the stream never showed the line"
        time.sleep(0.1)
    ev.stop(timeout=60)  # returns once the next line arrives: a phone's log is never quiet for long
    assert ev.is_done() and re.search(r"I/S2RSTREAM\( *\d+\): streamed line\n", out.read_text())


# ============================================================================ 7. screenrecord
def test_screenrecord_stopped_with_sigint_is_a_playable_mp4(p14: Phone, tmp_path: Path) -> None:
    import cv2

    video = tmp_path / "rec.mp4"
    p14.dev.start_recording(str(video))  # adbutils: `screenrecord F &`, then `kill -INT $PID; wait`
    time.sleep(1.5)
    p14.dev.stop_recording()
    cap = cv2.VideoCapture(str(video))
    frames = 0
    while cap.read()[0]:
        frames += 1
    assert video.stat().st_size > 0 and frames > 0

    # killed outright (SIGTERM): the muxer never finishes — no video
    rc, out, _ = p14.sh("screenrecord /sdcard/killed.mp4 & P=$!; sleep 1; kill -TERM $P; wait $P; echo $?; "
                        "ls -l /sdcard/killed.mp4")
    assert rc == 0 and out.splitlines()[0] == "143", out
    assert " 0 " in out.splitlines()[1], out
    p14.out("rm /sdcard/killed.mp4")


# ============================================================================ 8. mksh builtins
def test_wait_type_and_read(p14: Phone) -> None:
    assert p14.out("sleep 0.3 & wait; echo $?") == "0\n"
    assert p14.out("sleep 5 & P=$!; kill -INT $P; wait $P; echo $?") == "130\n"
    assert p14.out("false & wait $!; echo $?") == "1\n"
    assert p14.out("wait 99999; echo $?") == "127\n"
    rc, out, err = p14.sh("type ls echo exit if nosuch")
    assert (rc, err) == (1, "")
    assert out == ("ls is a tracked alias for /system/bin/ls\necho is a shell builtin\nexit is a special shell "
                   "builtin\nif is a reserved word\nnosuch not found\n")
    assert p14.out("type type") == "type is an alias for '\\builtin whence -v'\n"
    assert p14.out("printf 'a b c\\nnext\\n' | sh -c 'read X Y; echo \"$Y|$X\"; read Z; echo $Z'") == "b c|a\nnext\n"
    assert p14.out("echo -n | sh -c 'read X; echo $?'") == "1\n"
