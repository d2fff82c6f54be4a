"""Which package answers each app id on a phone, its version and the family s2r reads it by.

Why: a Pixel ships Google's Clock but AOSP's Settings, and hides DocumentsUI's launcher entry on
Android 12+ (its "Files" icon is Files by Google) — s2r must find each app on the phone it has,
say which family of screens it will read, and still open an app whose launcher entry is hidden
by the activity the app itself exports. Runs on the stock virtual phone over the real adb server.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from actionmap.actions import OpenApp
from actionmap.apps import APP_IDS


@pytest.fixture(scope="module")
def pixel_files_hidden(adb_host: Any, sim_pool: Any) -> Any:
    """A stock phone whose DocumentsUI has no launcher entry, as on an Android 12+ Pixel."""
    return adb_host.start_phone(sim_pool, hidden_launcher=["com.android.documentsui"])


def test_every_app_is_found_with_its_version_and_family(stock_phone: Any, tmp_path: Path) -> None:
    from device.env import DeviceEnv

    env = DeviceEnv(stock_phone.serial, journal_dir=str(tmp_path))
    try:
        env.start()
        apps = env.apps()
        assert set(apps) == set(APP_IDS)
        for app, x in apps.items():
            assert x.package is not None, app
            assert x.version, f"{app}: no versionName read from dumpsys package {x.package}"
            # the virtual phone serves the simulator's aosp flavor under AOSP's package names
            assert x.family == "aosp", (app, x)
        assert apps["clock"].package == "com.android.deskclock"
        assert env.probe_family("clock") == "aosp"
        assert env.info["apps"]["messages"]["package"] == "com.android.messaging"
    finally:
        env.close()


def test_an_app_without_a_launcher_entry_still_opens(pixel_files_hidden: Any, tmp_path: Path) -> None:
    from device.adbshell import Shell
    from device.adb import client
    from device.env import DeviceEnv

    shell = Shell(client(), pixel_files_hidden.serial)
    # the phone's own resolver: no launcher activity for DocumentsUI, yet the package is installed
    launcher = shell.out(["cmd", "package", "resolve-activity", "--brief", "-c", "android.intent.category.LAUNCHER",
                          "com.android.documentsui"])
    assert "No activity found" in launcher
    assert shell.out(["pm", "path", "com.android.documentsui"]).startswith("package:")
    env = DeviceEnv(pixel_files_hidden.serial, journal_dir=str(tmp_path))
    try:
        env.reset()
        files = env.apps()["files"]
        assert (files.package, files.activity) == ("com.android.documentsui", ".files.FilesActivity")
        obs, info = env.step(OpenApp(app="files"))
        assert not info.invalid_action and info.error is None, info
        assert obs.foreground.package == "com.android.documentsui"
    finally:
        env.close()


def test_s2r_devices_shows_each_apps_family(stock_phone: Any) -> None:
    r = subprocess.run([sys.executable, "-m", "s2r.cli", "devices", "--json", "--no-probe", "-s", stock_phone.serial],
                       capture_output=True, text=True, timeout=180)
    assert r.returncode == 0, r.stderr[-2000:]
    (phone,) = json.loads(r.stdout)
    assert phone["apps"]["calculator"]["family"] == "aosp"
    assert phone["apps"]["calculator"]["package"] == "com.android.calculator2"
    assert phone["apps"]["files"]["version"]


def test_version_and_family_readers_on_real_outputs() -> None:
    from device.appfamilies import family_for, parse_version_name

    text = ("Packages:\n  Package [com.google.android.deskclock] (c0ffee):\n    versionCode=72000000 minSdk=31\n"
            "    versionName=7.2 (2023.08.01)\n    apkSigningVersion=3\n"
            "  Package [com.google.android.deskclock] (bad):\n    versionName=6.0\n")
    assert parse_version_name(text) == "7.2 (2023.08.01)"
    assert parse_version_name("Unable to find package: x\n") is None
    assert family_for("clock", "com.google.android.deskclock", "Google") == "google"
    assert family_for("clock", "com.android.deskclock", "Google") == "aosp"
    assert family_for("clock", "com.android.deskclock", "Xiaomi") == "xiaomi"
    assert family_for("clock", "com.example.clock", "Google") == "generic"
    assert family_for("clock", "com.android.deskclock", None, flavor="sim", virtual=True) == "sim"
    assert family_for("clock", None, "Google") is None


@pytest.fixture(scope="module")
def used_phone(adb_host: Any, sim_pool: Any) -> Any:
    """A stock phone whose apps were opened before (no first-launch permission prompts left)."""
    return adb_host.start_phone(sim_pool, permission_prompts=[])


def _doctor(serial: str) -> tuple[int, dict[str, Any]]:
    r = subprocess.run([sys.executable, "-m", "s2r.cli", "doctor", "--device", serial, "--apps", "--json"],
                       capture_output=True, text=True, timeout=300)
    assert r.stdout.strip(), r.stderr[-2000:]
    return r.returncode, json.loads(r.stdout)


def test_doctor_apps_recognises_all_nine_apps_and_every_real59_template_is_ready(used_phone: Any) -> None:
    from transfer.tasks.loader import load_templates

    rc, rep = _doctor(used_phone.serial)
    assert rc == 0, rep
    assert set(rep["apps"]) == set(APP_IDS)
    for app, a in rep["apps"].items():
        assert a["recognised"], (app, a["problems"])
        assert a["family"] == "aosp" and a["version"] and a["screens"], (app, a)
        assert a["not_ready"] == [], (app, a["not_ready"])
    assert "alarm_list" in rep["apps"]["clock"]["screens"]
    ready = {t for a in rep["apps"].values() for t in a["ready"]}
    assert ready == {t.id for t in load_templates("real59")}


def test_doctor_apps_says_what_covers_an_app_and_which_templates_wait(stock_phone: Any) -> None:
    """A fresh phone: Messages asks for permissions on first launch; the doctor taps nothing."""
    rc, rep = _doctor(stock_phone.serial)
    assert rc == 1
    msgs = rep["apps"]["messages"]
    assert not msgs["recognised"] and "permission prompt" in " ".join(msgs["problems"])
    assert msgs["ready"] == [] and msgs["not_ready"]
    assert all("messages" in x["reason"] for x in msgs["not_ready"])
    assert rep["apps"]["settings"]["recognised"]
