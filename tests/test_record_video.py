"""Episode video (``--record video``) and the phone's log after a fault, on virtual phones and the simulator.

* a device run on ``vdevice:2`` leaves one playable MP4 per episode in its trace (OpenCV reads frames, and the
  video lasts as long as the episode played, within 20 %), and no recording on either phone — listed through adb;
* a simulator run (``s2r run --sim --record video``, a real subprocess) gets a video from its frames too;
* a phone without ``screenrecord`` runs its episodes without video and says so once;
* a lost connection in the middle of an episode (the virtual phone's flaky-transport knob, armed by the policy
  as it takes its first step) saves ``logcat.txt`` with only the lines of the driven app and ``system_server``.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.timeout(600)


def _video(path: Path) -> tuple[int, float]:
    import cv2

    cap = cv2.VideoCapture(str(path))
    assert cap.isOpened(), path
    frames, fps = int(cap.get(cv2.CAP_PROP_FRAME_COUNT)), float(cap.get(cv2.CAP_PROP_FPS))
    ok, first = cap.read()
    cap.release()
    assert ok and first is not None and first.size > 0, path
    return frames, frames / fps


def _phone_recordings(client: Any, serial: str) -> list[str]:
    out = client.device(serial).shell("ls /data/local/tmp")
    return [n for n in out.split() if n.startswith("s2r-rec-")]


def test_device_run_records_one_video_per_episode_and_leaves_none(adb_host: Any, tmp_path: Path) -> None:
    """``s2r run --device vdevice:2 --policy oracle --split real59 --limit 2 --record video`` (the same session
    the command builds): a playable MP4 per device episode whose length is the episode's, nothing left on the
    phones."""
    from transfer.runconfig import RunConfig
    from transfer.session import Session

    sess = Session.create(out=tmp_path / "run", policies=["oracle"], split="real59", tasks=None, seeds=1, repeats=1,
                          sim=False, flavor="sim", profile="default", device="vdevice:2", workers=2, resume=False,
                          limit=2, run_config=RunConfig(record=("video",)))
    try:
        recs = sess.run()
        serials = [p.serial for p in sess.devices.phones]
        left = {s: _phone_recordings(adb_host.client(), s) for s in serials}
    finally:
        sess.close()
    assert left == {s: [] for s in serials}, left
    assert len(recs) == 2 and {r.device_serial for r in recs} <= set(serials)
    for r in recs:
        assert r.error is None and r.steps > 0, r
        v = r.video  # type: ignore[attr-defined]
        assert v["files"] == [f"traces/{r.episode_id}/video.mp4"] and v["left_on_phone"] == [], v
        frames, seconds = _video(tmp_path / "run" / v["files"][0])
        assert frames > 0
        # the video covers the episode's play (the start screen to its last step), as the record measured it
        played = v["episode_s"]
        assert played > 0 and abs(seconds - played) <= 0.2 * played, (seconds, played, v)
        assert abs(played - (r.timings["policy_s"] + r.timings["env_s"])) <= 0.2 * played, (played, r.timings)
        assert json.loads((tmp_path / "run" / r.trace_path / "video.json").read_text())["segments"] >= 1
        assert not (tmp_path / "run" / r.trace_path / "logcat.txt").exists()  # no fault, no log


def test_sim_run_records_its_frames_as_a_video(adb_host: Any, tmp_path: Path) -> None:
    """``s2r run --sim --record video``: each frame held until the next step's, so the video lasts as the
    episode played."""
    out = tmp_path / "sim"
    env = {k: v for k, v in os.environ.items() if k != "ANDROID_ADB_SERVER_PORT"}
    res = subprocess.run([sys.executable, "-m", "s2r.cli", "run", "--sim", "--policy", "oracle", "--split", "real59",
                          "--limit", "1", "--record", "video", "--workers", "1", "--out", str(out)],
                         capture_output=True, text=True, env=env, timeout=400, check=False)
    assert res.returncode == 0, (res.stdout[-2000:], res.stderr[-2000:])
    (rec,) = [json.loads(x) for x in (out / "episodes.jsonl").read_text().splitlines() if x.strip()]
    v = rec["video"]
    assert rec["backend"] == "sim" and v["files"] == [f"traces/{rec['episode_id']}/video.mp4"], rec
    frames, seconds = _video(out / v["files"][0])
    assert frames > 0 and abs(seconds - v["episode_s"]) <= 0.2 * v["episode_s"], (seconds, v)
    shots = sorted((out / rec["trace_path"]).glob("[0-9][0-9][0-9].jpg"))
    assert len(shots) == rec["steps"] + 1  # every step was captured for the video
    assert "no video" not in res.stdout


def test_a_phone_without_screenrecord_runs_without_video_and_says_so_once(
        adb_host: Any, sim_pool: Any, tmp_path: Path, caplog: pytest.LogCaptureFixture,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A build without the binary (the shell answers ``inaccessible or not found``): both episodes run and
    are judged, neither has a video, and the phone's note is given once — logged once and printed once."""
    from s2r.commands.run import print_video_notes
    from transfer.runconfig import RunConfig
    from transfer.session import Session

    phone = adb_host.start_phone(sim_pool, screenrecord="missing")  # its system image has no screenrecord
    assert "not found" in adb_host.client().device(phone.serial).shell("screenrecord --help")
    caplog.set_level(logging.WARNING, logger="device.recorder")
    sess = Session.create(out=tmp_path / "run", policies=["oracle"], split="real59", tasks="settings.dnd_on",
                          seeds=2, repeats=1, sim=False, flavor="sim", profile="default", device=phone.serial,
                          workers=1, resume=False, run_config=RunConfig(record=("video",)))
    try:
        recs = sess.run()
    finally:
        sess.close()
    assert len(recs) == 2
    for r in recs:
        assert r.error is None and r.success is True, r
        assert r.video == {"files": [], "none": "this phone has no screenrecord", "episode_s": r.video["episode_s"]}
        assert not list((tmp_path / "run" / r.trace_path).glob("video*.mp4"))
    said = [m for m in caplog.messages if "no screenrecord" in m]
    assert len(said) == 1, caplog.messages
    print_video_notes(recs)
    out = capsys.readouterr().out
    assert out.count("no video") == 1 and "2 episodes ran without it" in out, out


class _ArmsAGlitch:
    """The oracle, except that as it takes its second step (the app is open) it arms the phone's
    flaky-transport knob so that the adb connection drops a few streams later (a loose cable in the middle
    of the episode)."""

    def __init__(self, phone: Any) -> None:
        from transfer.policies.registry import make_policy

        self.inner = make_policy("oracle")
        self.phone = phone
        self.name, self.reads_pixels, self.checkpoint_hash = "oracle", False, None

    def reset(self, instruction: str, context: dict[str, Any]) -> None:
        self.inner.reset(instruction, context)

    def act(self, observation: Any, history: list[Any]) -> Any:
        from device.virtual.knobs import FlakyTransport

        if len(history) == 1:
            self.phone.knobs.flaky = FlakyTransport(drop_every_n=self.phone.backend.opens + 2)
        return self.inner.act(observation, history)


def test_a_fault_saves_the_log_of_the_driven_app_and_system_server(adb_host: Any, sim_pool: Any,
                                                                     tmp_path: Path) -> None:
    from actionmap.errors import InfraError
    from device.env import DeviceEnv
    from device.logcapture import LINE
    from device.virtual.knobs import FlakyTransport
    from transfer.runconfig import RunConfig
    from transfer.runner import EpisodeSpec, run_episode
    from transfer.tasks.loader import get_template

    phone = adb_host.start_phone(sim_pool)
    env = DeviceEnv(phone.serial, journal_dir=str(tmp_path / "journal"), destructive=True)
    inst = get_template("settings.dnd_on").instantiate(0)
    spec = EpisodeSpec(policy="oracle", policy_spec="oracle", task_id=inst.template_id, seed=0, backend="device",
                       target="farm")
    trace = tmp_path / "traces" / spec.episode_id
    try:
        env.start()
        try:  # a lost phone is an infrastructure fault; a call that failed while it was back, a bridge fault
            run_episode(env, _ArmsAGlitch(phone), inst, spec, backend_info={"serial": phone.serial}, trace_dir=trace,
                        config=RunConfig())
        except InfraError:
            pass
    finally:
        phone.knobs.flaky = FlakyTransport()
        adb_host.wait_state(phone.serial, "device")
        env.close()
    assert phone.backend.drops >= 1  # the glitch happened
    meta = json.loads((trace / "logcat.json").read_text())
    assert meta["fault"].startswith(("infra: ", "bridge: ")) and "com.android.settings" in meta["packages"], meta
    lines = (trace / "logcat.txt").read_text().splitlines()
    assert lines and meta["lines"] == len(lines)
    pids = {int(LINE.match(ln).group("pid")) for ln in lines}  # type: ignore[union-attr]
    dev = adb_host.client().device(phone.serial)
    apps = {int(p) for pkg in meta["packages"] for p in dev.shell(f"pidof {pkg}").split()}
    assert pids <= {1203} | apps and 1203 in pids, (pids, apps)  # system_server and the driven apps only
    assert any("com.android.settings" in ln for ln in lines)
    assert all(ln[:23] >= meta["since"] for ln in lines)  # the episode's span only
    # the phone's log holds more than that (its boot, other processes): none of it is in the file
    everything = adb_host.client().device(phone.serial).shell("logcat -d -v threadtime -v year").splitlines()
    assert len([ln for ln in everything if LINE.match(ln)]) > len(lines)


def test_paired_report_plays_sim_and_device_videos_side_by_side(adb_host: Any, tmp_path: Path) -> None:
    """``s2r paired --record video``: the report links both videos of the task instance in one row."""
    out = tmp_path / "paired"
    env = {k: v for k, v in os.environ.items() if k != "ANDROID_ADB_SERVER_PORT"}
    res = subprocess.run([sys.executable, "-m", "s2r.cli", "paired", "--device", "vdevice:1", "--policy", "oracle=oracle",
                          "--tasks", "settings.dnd_on", "--bootstrap", "200", "--workers", "1", "--record", "video",
                          "--out", str(out)], capture_output=True, text=True, env=env, timeout=500, check=False)
    assert res.returncode == 0, (res.stdout[-2000:], res.stderr[-2000:])
    recs = {json.loads(x)["backend"]: json.loads(x) for x in (out / "episodes.jsonl").read_text().splitlines() if x}
    assert set(recs) == {"sim", "device"}
    page = (out / "report.html").read_text()
    section = page[page.index("<section id='videos'>"):]
    section = section[:section.index("</section>")]
    row = section[section.index("<div class='viewer'>"):]
    srcs = [f"src='{recs[b]['video']['files'][0]}'" for b in ("sim", "device")]
    assert all(s in row for s in srcs) and row.index(srcs[0]) < row.index(srcs[1]), row[:1500]
    assert "<div class='sides'>" in row and row.count("<video ") == 2
    for b in ("sim", "device"):
        assert _video(out / recs[b]["video"]["files"][0])[0] > 0


def test_a_long_episode_is_recorded_in_chained_segments_joined_into_one_video(adb_host: Any, sim_pool: Any,
                                                                               tmp_path: Path) -> None:
    """screenrecord stops at its time limit: a new segment starts just before, and the pulled segments make one
    video as long as the recording ran (here 2-second segments stand for the 170-second ones)."""
    import time

    from device.adbshell import Shell
    from device.recorder import ScreenRecorder

    phone = adb_host.start_phone(sim_pool)
    shell = Shell(adb_host.client(), phone.serial)
    rec = ScreenRecorder(shell, segment_s=2)
    assert rec.unavailable() is None
    r = rec.start("chain")
    shell.run(["am", "start", "-n", "com.android.settings/.Settings"])
    time.sleep(5)
    r.stop()
    info = r.pull(tmp_path)
    assert info["segments"] >= 3 and info["files"] == ["video.mp4"], info
    assert not list(tmp_path.glob("video.part*.mp4"))  # joined, the parts gone
    frames, seconds = _video(tmp_path / "video.mp4")
    assert frames > 0 and abs(seconds - info["span_s"]) <= 0.2 * info["span_s"], (seconds, info)
    assert len(_phone_recordings(adb_host.client(), phone.serial)) == info["segments"]
    assert r.remove() == [] and _phone_recordings(adb_host.client(), phone.serial) == []
