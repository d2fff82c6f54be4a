"""adb services a USB phone offers, through the REAL adb server and adbutils: ``logcat``
(dump and live stream), ``adb reverse`` end to end, ``framebuffer:`` and ``screenrecord``.

A private adb server on a free port (never 5037); everything binds to 127.0.0.1.
"""

from __future__ import annotations

import re
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np
import pytest

adbutils = pytest.importorskip("adbutils")

from _rigs import AdbHost, free_port  # noqa: E402
from device.virtual.knobs import PhoneKnobs  # noqa: E402
from device.virtual.phone import VirtualPhone  # noqa: E402

pytestmark = pytest.mark.timeout(120)

#: logcat -v threadtime (liblog logprint.cpp): "MM-DD HH:MM:SS.mmm  PID  TID P TAG     : message"
THREADTIME = re.compile(r"^(\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}) +(\d+) +(\d+) ([VDIWEF]) (.*?) *: (.*)$")
BRIEF = re.compile(r"^([VDIWEF])/(.+?) *\( *(\d+)\): (.*)$")


@pytest.fixture(scope="module")
def host(adb_host: AdbHost) -> AdbHost:
    return adb_host  # the module's private adb server (conftest.py)


@pytest.fixture(scope="module")
def phone(host: AdbHost, sim_pool) -> Iterator[VirtualPhone]:
    p = VirtualPhone(PhoneKnobs(input_latency_ms=0, animation_ms=0), pool=sim_pool).start()
    try:
        assert b"connected to" in host.adb("connect", p.serial).stdout
        host.wait_state(p.serial, "device")
        yield p
    finally:
        host.adb("disconnect", p.serial)
        p.stop()


def _adb(host: AdbHost, phone: VirtualPhone, *args: str, **kw: object):
    return host.adb("-s", phone.serial, *args, **kw)  # type: ignore[arg-type]


def _device(host: AdbHost, phone: VirtualPhone) -> "adbutils.AdbDevice":
    return host.client().device(phone.serial)


def _open_streams(phone: VirtualPhone) -> int:
    server = phone.adbd.server
    assert server is not None
    return sum(len(c.streams) for c in server.connections)


def _wait(pred, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return True
        time.sleep(0.05)
    return pred()


# ============================================================================ logcat
def test_logcat_dump_is_threadtime_and_options_work(host: AdbHost, phone: VirtualPhone) -> None:
    _adb(host, phone, "shell", "am start -n com.android.settings/.Settings")
    r = _adb(host, phone, "logcat", "-d")  # the CLI: export ANDROID_LOG_TAGS=...; exec logcat -d
    assert r.returncode == 0, r.stderr
    lines = r.stdout.decode().splitlines()
    assert lines[0] == "--------- beginning of system"
    parsed = [THREADTIME.match(line) for line in lines[1:]]
    assert parsed and all(parsed), lines
    starts = [m for m in parsed if m and m.group(5) == "ActivityTaskManager" and m.group(6).startswith("START u0 ")]
    assert starts and "cmp=com.android.settings/.Settings} with LAUNCH_MULTIPLE from uid 2000" in starts[-1].group(6)
    assert int(starts[-1].group(2)) == 1203  # system_server

    brief = _adb(host, phone, "shell", "logcat -d -v brief -s ActivityTaskManager").stdout.decode().splitlines()
    assert brief[0] == "--------- beginning of system"
    assert brief[1:] and all(BRIEF.match(x) and x.startswith("I/ActivityTaskManager(") for x in brief[1:])
    tail = _adb(host, phone, "shell", "logcat -t 1").stdout.decode().splitlines()
    assert len(tail) == 2 and THREADTIME.match(tail[1])
    assert _adb(host, phone, "shell", "logcat -d -b crash").stdout == b""
    bad = _adb(host, phone, "shell", "logcat -d -b nosuch")
    assert (bad.returncode, bad.stderr) == (1, b"logcat: Unknown -b buffer 'nosuch'.\n")
    assert _adb(host, phone, "shell", "logcat -c").returncode == 0
    assert _adb(host, phone, "shell", "logcat -d").stdout == b""


def test_live_logcat_shows_am_start_and_ends_when_closed(host: AdbHost, phone: VirtualPhone) -> None:
    from device.virtual.android_media import logd_of

    d = _device(host, phone)
    d.shell("input keyevent KEYCODE_HOME")
    before = _open_streams(phone)
    conn = d.shell("logcat -v threadtime", stream=True)
    seen = b""
    try:
        assert _wait(lambda: logd_of(phone).readers == 1)
        threading.Thread(target=lambda: d.shell("am start -n com.android.deskclock/.DeskClock"), daemon=True).start()
        conn.conn.settimeout(15)
        deadline = time.monotonic() + 15
        while b"cmp=com.android.deskclock/" not in seen and time.monotonic() < deadline:
            chunk = conn.conn.recv(65536)
            if not chunk:
                break
            seen += chunk
    finally:
        conn.close()
    line = next(x for x in seen.decode().splitlines() if "cmp=com.android.deskclock/" in x)
    m = THREADTIME.match(line)
    assert m and m.group(5) == "ActivityTaskManager" and m.group(6).startswith("START u0 {flg=0x10000000 cmp=")
    assert _wait(lambda: logd_of(phone).readers == 0 and _open_streams(phone) == before), _open_streams(phone)


# ============================================================================ adb reverse
class _EchoServer:
    """A real TCP server on the host: answers each chunk with ``echo:`` + chunk."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.peers = 0
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.peers += 1
            threading.Thread(target=self._echo, args=(conn,), daemon=True).start()

    @staticmethod
    def _echo(conn: socket.socket) -> None:
        with conn:
            while data := conn.recv(65536):
                conn.sendall(b"echo:" + data)


def test_reverse_reaches_a_host_server_from_the_device(host: AdbHost, phone: VirtualPhone) -> None:
    echo = _EchoServer()
    d = _device(host, phone)
    try:
        d.reverse("tcp:8081", f"tcp:{echo.port}")
        assert [(i.remote, i.local) for i in d.reverse_list()] == [("tcp:8081", f"tcp:{echo.port}")]
        listing = _adb(host, phone, "reverse", "--list").stdout.decode()
        assert listing == f"host-{_serial_fd(phone)} tcp:8081 tcp:{echo.port}\n\n"
        with phone.adbd.reverse_connect(8081) as app:  # a device app connecting to localhost:8081
            app.settimeout(10)
            app.sendall(b"hello from the phone")
            assert app.recv(100) == b"echo:hello from the phone"
        assert echo.peers == 1
        again = _adb(host, phone, "reverse", "--no-rebind", "tcp:8081", "tcp:1")
        assert (again.returncode, again.stderr) == (1, b"adb: error: cannot rebind existing socket\n")
        low = _adb(host, phone, "reverse", "tcp:80", f"tcp:{echo.port}")
        assert low.stderr == b"adb: error: cannot bind listener: Permission denied\n"
        dead = free_port()
        d.reverse("tcp:8082", f"tcp:{dead}")  # nothing listens there on the host
        with pytest.raises(ConnectionRefusedError):
            phone.adbd.reverse_connect(8082)
        assert _adb(host, phone, "reverse", "--remove", "tcp:8081").returncode == 0
        gone = _adb(host, phone, "reverse", "--remove", "tcp:8081")
        assert gone.stderr == b"adb: error: listener 'tcp:8081' not found\n"
        with pytest.raises(ConnectionRefusedError):
            phone.adbd.reverse_connect(8081)
    finally:
        d.reverse_remove_all()
        echo.sock.close()
    assert d.reverse_list() == []


def _serial_fd(phone: VirtualPhone) -> str:
    server = phone.adbd.server
    assert server is not None
    rule = next(iter(server.reverse_listeners.values()))
    return rule.conn.transport_serial.removeprefix("host-")


# ============================================================================ framebuffer / screenrecord
def test_framebuffer_matches_wm_size_and_screencap(host: AdbHost, phone: VirtualPhone) -> None:
    d = _device(host, phone)
    d.shell("input keyevent KEYCODE_HOME")
    size = re.search(r"Physical size: (\d+)x(\d+)", d.shell("wm size"))
    assert size
    img = d.framebuffer()  # adbutils: "framebuffer:" service, version-2 header + RGBA
    assert img.mode == "RGBA" and img.size == (int(size.group(1)), int(size.group(2)))
    png = _adb(host, phone, "exec-out", "screencap", "-p").stdout
    ref = cv2.cvtColor(cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)
    fb = np.asarray(img)[:, :, :3]
    assert fb.shape == ref.shape
    assert float(np.abs(fb.astype(int) - ref.astype(int)).mean()) < 2.0


def test_screenrecord_writes_an_mp4_of_the_screen(host: AdbHost, phone: VirtualPhone, tmp_path: Path) -> None:
    t0 = time.monotonic()
    r = _adb(host, phone, "shell", "screenrecord --time-limit 2 --size 540x1200 /sdcard/rec.mp4")
    took = time.monotonic() - t0
    assert (r.returncode, r.stdout, r.stderr) == (0, b"", b"")
    assert 1.8 < took < 15
    local = tmp_path / "rec.mp4"
    assert _adb(host, phone, "pull", "/sdcard/rec.mp4", str(local)).returncode == 0
    cap = cv2.VideoCapture(str(local))
    frames = []
    while True:
        ok, frame = cap.read()
        if not ok:
            break
        frames.append(frame)
    cap.release()
    assert len(frames) >= 1 and frames[0].shape == (1200, 540, 3)
    png = _adb(host, phone, "exec-out", "screencap", "-p").stdout
    shot = cv2.resize(cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR), (540, 1200))
    assert float(np.abs(frames[-1].astype(int) - shot.astype(int)).mean()) < 12.0
    usage = _adb(host, phone, "shell", "screenrecord --help")
    assert usage.returncode == 0 and usage.stderr.startswith(b"Usage: screenrecord [options] <filename>\n")
    bad = _adb(host, phone, "shell", "screenrecord --bit-rate 1 /sdcard/x.mp4")
    assert (bad.returncode, bad.stderr) == (2, b"Bit rate 1bps outside acceptable range [100000,200000000]\n")
    none = _adb(host, phone, "shell", "screenrecord")
    assert (none.returncode, none.stderr) == (2, b"Must specify output file (see --help).\n")
