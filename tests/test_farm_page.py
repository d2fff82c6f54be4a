"""``s2r farm serve`` watched in a real headless Chromium while ``s2r run --device vdevice:2`` runs.

Both commands are real subprocesses on the module's private adb server, with HOME pointed at a
temporary directory so the runs registry (``~/.s2r/farm/runs``) is this test's alone. The page must
show both virtual phones with their serial, model, Android release and battery, and for each phone
the run holds the run and a task; the step numbers must advance while the run goes; the screenshot
``<img>`` must load real image bytes (each episode its own). One phone heated mid-run (``dumpsys
battery set temp``, as a person could on a real phone) shows as paused by the run's farm, with why. When the run ends its registry entry is gone and no phone is
shown as held (a ``vdevice:N`` run's phones leave with it: the page lists them as absent).

The smaller checks beside it: ``dumpsys battery`` read as BatteryService prints it, the registry
dropping a dead run's entry, and clients that hang up costing the page server nothing.
"""

from __future__ import annotations

import json
import os
import queue
import re
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.timeout(300)

#: BatteryService.dumpInternal's lines (frameworks/base/services/core/java/com/android/server/BatteryService.java).
AOSP_BATTERY = """Current Battery Service state:
  AC powered: false
  USB powered: true
  Wireless powered: false
  Dock powered: false
  Max charging current: 500000
  Max charging voltage: 5000000
  Charge counter: 2735000
  status: 5
  health: 2
  present: true
  level: 100
  scale: 100
  voltage: 4350
  temperature: 312
  technology: Li-ion
"""


def test_battery_lines() -> None:
    from device.farmstatus import battery_of

    b = battery_of(AOSP_BATTERY)
    got = (b.level, b.temperature_c, b.status, b.health, b.plugged, b.charging)
    assert got == (100, 31.2, "full", "good", ["usb"], False)
    b = battery_of(AOSP_BATTERY.replace("status: 5", "status: 2").replace("health: 2", "health: 3"))
    assert (b.status, b.health, b.charging) == ("charging", "overheat", True)
    assert battery_of("cmd: Can't find service: battery").level is None


def test_registry_drops_dead_runs(tmp_path: Path) -> None:
    from device.farmstatus import RunEntry, live_runs

    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead_pid = int(dead.stdout)
    for pid in (dead_pid, os.getpid()):
        (tmp_path / f"{pid}.json").write_text(RunEntry(pid=pid, host=socket.gethostname(), port=1, token="t",
                                                       started=0).model_dump_json())
    assert [e.pid for e in live_runs(tmp_path)] == [os.getpid()]
    assert not (tmp_path / f"{dead_pid}.json").exists() and (tmp_path / f"{os.getpid()}.json").exists()


def _s2r_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "ANDROID_ADB_SERVER_PORT"}
    return {**env, "HOME": str(home), "PYTHONUNBUFFERED": "1"}


def _lines(proc: subprocess.Popen[str]) -> "queue.Queue[str]":
    q: queue.Queue[str] = queue.Queue()

    def pump() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            q.put(line)

    threading.Thread(target=pump, daemon=True).start()
    return q


def _threads(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/task"))


CARDS_JS = """() => [...document.querySelectorAll('.phone')].map(c => {
  const f = {}; c.querySelectorAll('[data-f]').forEach(d => f[d.dataset.f] = d.textContent);
  const img = c.querySelector('img.shot');
  return {...f, key: c.dataset.key, held: c.dataset.held, state: c.dataset.health,
          src: img.getAttribute('src'), loaded: img.complete && img.naturalWidth > 0};
})"""


def test_page_shows_a_running_farm(adb_host: Any, tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    from sim.browser import launch_kwargs

    home = tmp_path / "home"
    home.mkdir()
    env = _s2r_env(home)
    out = tmp_path / "run"
    t0 = time.monotonic()
    run_log = (tmp_path / "run.log").open("w")
    run = subprocess.Popen([sys.executable, "-m", "s2r.cli", "run", "--device", "vdevice:2", "--policy", "oracle",
                            "--split", "real59", "--limit", "5", "--out", str(out)], env=env,
                           stdout=run_log, stderr=subprocess.STDOUT, text=True)
    serve = subprocess.Popen([sys.executable, "-m", "s2r.cli", "farm", "serve", "--port", "0"], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    run_out: list[str] = []
    samples: list[dict[str, Any]] = []
    by_ep: dict[str, list[int]] = {}
    try:
        first = _lines(serve).get(timeout=60)
        url = re.search(r"http://127\.0\.0\.1:\d+/", first)
        assert url, first
        with sync_playwright() as pw:
            browser = pw.chromium.launch(**launch_kwargs())
            page = browser.new_page()
            page.goto(url.group(0))
            held_seen: dict[str, dict[str, Any]] = {}
            shot_ok = False
            registry = home / ".s2r" / "farm" / "runs"
            entry_checked = False
            hot: str | None = None
            paused_card: dict[str, Any] | None = None
            cooled = False
            while run.poll() is None:
                assert time.monotonic() - t0 < 240, "the run did not end"  # a hang guard, not a speed check
                cards = page.evaluate(CARDS_JS)
                for c in cards:
                    if c["serial"] == hot and c["state"] == "paused":
                        paused_card = paused_card or c
                    if c["held"] == "1":
                        samples.append(c)
                        held_seen.setdefault(c["serial"], c)
                        assert c["src"] is None or re.match(r"step \d+'s screen", c["shot"]), c  # says which
                        if c["loaded"] and not shot_ok:  # the image the browser shows is a real PNG/JPEG
                            body = page.request.get(url.group(0) + c["src"]).body()
                            shot_ok = body[:8] == b"\x89PNG\r\n\x1a\n" or body[:3] == b"\xff\xd8\xff"
                if hot is None and len(held_seen) == 2:  # heat one phone: the run's farm pauses it
                    hot = sorted(held_seen)[0]
                    r = adb_host.adb("-s", hot, "shell", "dumpsys", "battery", "set", "temp", "520")
                    assert r.returncode == 0, r
                if paused_card is not None and not cooled:  # shown: let it cool (it may work again)
                    assert adb_host.adb("-s", hot, "shell", "dumpsys", "battery", "reset").returncode == 0
                    cooled = True
                if not entry_checked and list(registry.glob("*.json")):
                    entry = next(registry.glob("*.json"))
                    assert entry.stat().st_mode & 0o777 == 0o600 and registry.stat().st_mode & 0o777 == 0o700
                    data = json.loads(entry.read_text())
                    assert data["pid"] == run.pid and data["run"] == str(out)
                    import urllib.error
                    import urllib.request

                    with pytest.raises(urllib.error.HTTPError) as refused:  # the token is not optional
                        urllib.request.urlopen(f"http://127.0.0.1:{data['port']}/status", timeout=5)
                    assert refused.value.code == 403
                    entry_checked = True
                time.sleep(0.25)
            run_out = (tmp_path / "run.log").read_text().splitlines()
            assert run.returncode == 0, "\n".join(run_out[-40:])
            assert entry_checked, "the run never registered"

            # both phones: identity and battery read by the page, and the run's task on each
            assert len(held_seen) == 2, held_seen
            recs = [json.loads(x) for x in (out / "episodes.jsonl").read_text().splitlines() if x.strip()]
            assert {r["device_serial"] for r in recs} == set(held_seen)
            tasks = {r["task_id"] for r in recs}
            for serial, c in held_seen.items():
                assert c["model"].startswith("Google Pixel") and re.fullmatch(r"\d+ \(SDK \d+\)", c["android"]), c
                assert re.fullmatch(r"\d{1,3}%", c["battery"]) and c["temperature"].endswith("°C"), c
                assert c["state"] == c["health"] == "online" and c["run"] == out.name, c
                assert c["task"].split(" #")[0] in tasks, (c, tasks)
            # steps advance within an episode while the run goes
            for c in samples:
                by_ep.setdefault(c["episode"], []).append(int(c["step"]))
            advancing = [ep for ep, steps in by_ep.items() if len(set(steps)) > 1]
            assert advancing, by_ep
            assert all(steps == sorted(steps) for steps in by_ep.values()), by_ep
            assert shot_ok, "no screenshot loaded"
            # the heated phone: paused by the run's farm, and why, on the page
            assert paused_card is not None, "the heated phone never showed as paused"
            assert "temperature 52.0 °C" in paused_card["health"], paused_card
            # each episode's own screen: a phone's image changes with its episode
            srcs = {(c["serial"], c["episode"]): c["src"] for c in samples if c["src"]}
            for serial in held_seen:
                mine_srcs = [src for (s, _ep), src in srcs.items() if s == serial]
                assert len(set(mine_srcs)) == len(mine_srcs), srcs
            assert len(set(srcs.values())) > len(held_seen), srcs  # some phone showed two episodes' screens

            # the run is over: its entry is gone and nothing shows as held
            assert not list(registry.glob("*.json"))
            deadline = time.monotonic() + 30
            while True:
                cards = page.evaluate(CARDS_JS)
                mine = [c for c in cards if c["serial"] in held_seen]
                if mine and all(c["held"] == "0" and not c["run"] and not c["src"] for c in mine):
                    break
                assert time.monotonic() < deadline, cards
                time.sleep(0.3)
            assert {c["state"] for c in mine} == {"absent"}  # a vdevice run's phones leave with it

            # clients that hang up mid-answer or say nothing cost the server nothing that lasts
            base = _threads(serve.pid)
            port = int(url.group(0).rsplit(":", 1)[1].strip("/"))
            for _ in range(20):
                with socket.create_connection(("127.0.0.1", port)) as s:
                    s.sendall(b"GET /api/phones HTTP/1.1\r\nHost: x\r\n\r\n")  # and close without reading
            deadline = time.monotonic() + 30
            while _threads(serve.pid) > base:
                assert time.monotonic() < deadline, (base, _threads(serve.pid))
                time.sleep(0.2)
            assert page.evaluate("fetch('api/phones').then(r => r.json()).then(v => v.phones.length)") == len(cards)
            browser.close()
    finally:
        for p in (run, serve):
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    p.kill()
        run_log.close()
    print(f"\nfarm page test: {time.monotonic() - t0:.1f}s, {len(samples)} held samples, "
          f"{sum(len(set(v)) for v in by_ep.values())} distinct (episode, step) seen")
