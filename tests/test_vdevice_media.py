"""The virtual phone's ``logcat -t/-T TIME``, its background processes and its ``screenrecord`` knob,
through the REAL adb server (adbutils' wheel) as s2r's recorder and log capture use them.

* ``logcat -T``/``-t`` take ``MM-DD hh:mm:ss.mmm``, ``YYYY-MM-DD hh:mm:ss.mmm`` and ``sssss.mmm`` and
  print the lines logged since then; a bad time is ``not in time format.`` (status 1), a count of 0
  and a time with trailing text warn, as system/logging/logcat/logcat.cpp does;
* a background ``screenrecord`` (``&``, ``$!``) is in ``ps -A`` and ``pidof`` until ``kill -INT`` ends it;
  a job of several commands is its subshell ``sh``;
* ``screenrecord="no_avc"``: the codec error (twice, with the 720p retry), an empty file, status 0 —
  and :class:`device.recorder.ScreenRecorder` says the phone refuses; ``"missing"``: no command at
  all (status 127); ``vdevice:N:FLAVOR:KNOBS`` specs may set it.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

pytestmark = pytest.mark.timeout(300)

TAG = "S2rMediaTest"


@pytest.fixture(scope="module")
def dev(stock_phone: Any, adb_host: Any) -> Any:
    return adb_host.client().device(stock_phone.serial)


def _sh(dev: Any, cmd: str) -> tuple[int, str, str]:
    r = dev.shell2(cmd, v2=True)
    return r.returncode, r.stdout, r.stderr


def _messages(out: str) -> list[str]:
    return [ln.split(f"{TAG}: ", 1)[1] for ln in out.splitlines() if f"{TAG}: " in ln]


# ============================================================================ logcat -t/-T TIME
def test_logcat_takes_the_three_time_forms(dev: Any) -> None:
    assert _sh(dev, f"log -t {TAG} before")[0] == 0
    time.sleep(0.05)
    _, stamp, _ = _sh(dev, "date '+%Y-%m-%d %H:%M:%S.%N'; date +%s")
    since, epoch = stamp.split("\n")[0][:23], int(stamp.split("\n")[1])
    time.sleep(0.05)
    assert _sh(dev, f"log -t {TAG} after")[0] == 0
    for when in (since, since[5:]):  # YYYY-MM-DD hh:mm:ss.mmm, MM-DD hh:mm:ss.mmm
        rc, out, err = _sh(dev, f"logcat -d -s {TAG} -T '{when}'")
        assert (rc, err, _messages(out)) == (0, "", ["after"]), (when, out, err)
        rc, out, err = _sh(dev, f"logcat -s {TAG} -t '{when}'")  # -t TIME implies -d: it returns
        assert (rc, _messages(out)) == (0, ["after"]), (when, out, err)
    rc, out, _ = _sh(dev, f"logcat -d -s {TAG} -T {epoch - 3600}.000")  # sssss.mmm: epoch seconds
    assert _messages(out) == ["before", "after"]
    rc, out, _ = _sh(dev, f"logcat -d -s {TAG} -T {epoch + 3600}.5")
    assert rc == 0 and _messages(out) == []
    # digits alone are a line count; a count of 0 is 1, said on stderr
    assert _messages(_sh(dev, f"logcat -d -s {TAG} -T 1")[1]) == ["after"]
    rc, out, err = _sh(dev, f"logcat -d -s {TAG} -t 0")
    assert (rc, err, _messages(out)) == (0, "WARNING: -t 0 invalid, setting to 1\n", ["after"])
    # a time with more after it is used, and the rest named
    rc, out, err = _sh(dev, f"logcat -d -s {TAG} -T '{since} extra'")
    assert (rc, _messages(out)) == (0, ["after"])
    assert err == f"WARNING: -T '{since}' ' extra' time truncated\n"


def test_logcat_refuses_what_is_not_a_time(dev: Any) -> None:
    for bad in ("yesterday", "12-06 07:11:39", "2024-13-01 00:00:00.000", "1700000000,5"):
        rc, out, err = _sh(dev, f"logcat -d -T '{bad}'")
        assert (rc, out, err) == (1, "", f"logcat: -T '{bad}' not in time format.\n"), bad
    rc, _, err = _sh(dev, "logcat -t '01-01 00:00:00.000' -m 3")  # -t (a count or a time) never goes with -m
    assert (rc, err) == (1, "logcat: Cannot use -m (--max-count) and -t together.\n")
    assert _sh(dev, f"logcat -d -T '01-01 00:00:00.000' -m 1 -s {TAG}")[0] == 0  # -T does


# ============================================================================ background processes
def test_a_background_screenrecord_is_a_process_until_it_is_stopped(dev: Any) -> None:
    path = "/data/local/tmp/s2r-media-bg.mp4"
    _, out, _ = _sh(dev, f"screenrecord --time-limit 60 {path} </dev/null >/dev/null 2>&1 & echo $!")
    pid = int(out.split()[-1])
    try:
        assert _sh(dev, "pidof screenrecord") == (0, f"{pid}\n", "")
        rows = [ln.split() for ln in _sh(dev, "ps -A")[1].splitlines()]
        assert ["shell", str(pid), "screenrecord"] in [[r[0], r[1], r[-1]] for r in rows], rows[-5:]
        args = _sh(dev, f"ps -o PID,NAME,ARGS -p {pid}")[1].splitlines()
        assert args[1].split(None, 2) == [str(pid), "screenrecord", f"screenrecord --time-limit 60 {path}"]
        time.sleep(1.0)
        assert _sh(dev, f"kill -INT {pid}")[0] == 0
        deadline = time.monotonic() + 20
        while _sh(dev, f"kill -0 {pid}")[0] == 0 and time.monotonic() < deadline:
            time.sleep(0.2)
        assert _sh(dev, f"kill -0 {pid}") == (1, "", f"/system/bin/sh: kill: {pid}: No such process\n")
        assert _sh(dev, "pidof screenrecord")[0] == 1
        assert str(pid) not in _sh(dev, "ps -A -o PID")[1].split()
        assert int(_sh(dev, f"stat -c %s {path}")[1]) > 0  # SIGINT let it finish the file
    finally:
        _sh(dev, f"rm -f {path}")
    assert _sh(dev, f"ls {path}")[0] == 1


def test_a_job_of_several_commands_is_its_subshell(dev: Any) -> None:
    pid = int(_sh(dev, "sleep 60 && echo done >/dev/null & echo $!")[1].split()[-1])
    rows = {int(r.split()[0]): r.split()[-1] for r in _sh(dev, "ps -A -o PID,NAME")[1].splitlines()[1:]}
    assert rows.get(pid) == "sh", rows
    assert _sh(dev, f"kill {pid}")[0] == 0
    deadline = time.monotonic() + 10
    while pid in {int(w) for w in _sh(dev, "ps -A -o PID")[1].split()[1:]} and time.monotonic() < deadline:
        time.sleep(0.1)
    assert pid not in {int(w) for w in _sh(dev, "ps -A -o PID")[1].split()[1:]}


# ============================================================================ the screenrecord knob
def test_a_phone_without_an_avc_encoder(adb_host: Any, sim_pool: Any) -> None:
    from device.adbshell import Shell
    from device.recorder import ScreenRecorder

    phone = adb_host.start_phone(sim_pool, screenrecord="no_avc")
    dev = adb_host.client().device(phone.serial)
    path = "/data/local/tmp/s2r-media-noavc.mp4"
    error = "ERROR: unable to create video/avc codec instance\n"
    w, h = phone.window_size()
    try:
        rc, out, err = _sh(dev, f"screenrecord --time-limit 2 {path}")
        assert (rc, out) == (0, "")
        assert err == error + f"WARNING: failed at {w}x{h}, retrying at 720x1280\n" + error  # prepareEncoder twice
        assert _sh(dev, f"stat -c %s {path}")[1] == "0\n"  # main() created it; nothing was written
        assert _sh(dev, f"screenrecord --size 720x1280 {path}")[1:] == ("", error)  # a given size: no retry
        rec = ScreenRecorder(Shell(adb_host.client(), phone.serial))
        assert rec.unavailable() == "screenrecord refused: ERROR: unable to create video/avc codec instance"
        assert not [n for n in _sh(dev, "ls /data/local/tmp")[1].split() if n.startswith("s2r-rec-")]
        # the knob switched on a running phone: the command is gone, as on a build without it
        phone.knobs.screenrecord = "missing"
        assert _sh(dev, "screenrecord --help") == (127, "", "/system/bin/sh: screenrecord: inaccessible or not found\n")
    finally:
        _sh(dev, f"rm -f {path}")
        adb_host.stop_phone(phone)


def test_the_knob_from_a_vdevice_spec() -> None:
    from device.virtual.knobs import PhoneKnobs
    from transfer.device_backends import parse_vdevice_knobs

    assert parse_vdevice_knobs("vdevice:2:aosp:1@screenrecord=missing") == [{}, {"screenrecord": "missing"}]
    assert parse_vdevice_knobs("vdevice:1:aosp:screenrecord=no_avc") == [{"screenrecord": "no_avc"}]
    with pytest.raises(ValueError, match="screenrecord"):
        parse_vdevice_knobs("vdevice:1:aosp:screenrecord=broken")
    assert PhoneKnobs().screenrecord == "ok"
