"""The virtual phone's ``google`` family: a Pixel with Google's apps, behind the real adb protocol.

Why: s2r's numbers are only worth something on the phones people own, and a Pixel carries Google's
apps (com.google.android.deskclock, …), says ``ro.product.manufacturer=Google`` and hides DocumentsUI's
launcher entry. A google-family virtual phone must answer every way s2r (or any adb tool) finds its
apps — getprop, ``pm list packages``/``pm path``, ``cmd package resolve-activity`` by launcher and by
intent, ``am start``, uiautomator dumps — as such a Pixel does, so that ``device.appfamilies``
reads all nine apps as the ``google`` family. The expected values are the evidence cited in
``device/virtual/families.py`` (a Pixel emulator's ``pm list packages -f``, public resolve-activity
captures), written out here so that a wrong table fails. Runs on a real adb server with adbutils,
uiautomator2 and DeviceEnv, as the other vdevice tests do.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any, Iterator

import pytest

from actionmap.apps import APP_IDS

pytestmark = pytest.mark.timeout(900)

#: app id → (package, launcher component as resolve-activity prints it) on a Pixel
PIXEL = {
    "launcher": ("com.google.android.apps.nexuslauncher", "com.google.android.apps.nexuslauncher/.NexusLauncherActivity"),
    "settings": ("com.android.settings", "com.android.settings/.Settings"),
    "clock": ("com.google.android.deskclock", "com.google.android.deskclock/com.android.deskclock.DeskClock"),
    "contacts": ("com.google.android.contacts",
                 "com.google.android.contacts/com.android.contacts.activities.PeopleActivity"),
    "messages": ("com.google.android.apps.messaging",
                 "com.google.android.apps.messaging/.ui.ConversationListActivity"),
    "calendar": ("com.google.android.calendar", "com.google.android.calendar/com.android.calendar.AllInOneActivity"),
    "files": ("com.google.android.documentsui",
              "com.google.android.documentsui/com.android.documentsui.files.FilesActivity"),
    "calculator": ("com.google.android.calculator",
                   "com.google.android.calculator/com.android.calculator2.Calculator"),
    "phone": ("com.google.android.dialer", "com.google.android.dialer/.extensions.GoogleDialtactsActivity"),
}


@pytest.fixture(scope="module")
def pixel(adb_host: Any, sim_pool: Any) -> Any:
    """A google-family phone (knobs: only the family; its flavor follows). No first-launch prompts:
    the tests look at the apps' own screens."""
    return adb_host.start_phone(sim_pool, family="google", input_latency_ms=0, animation_ms=0,
                                permission_prompts=[])


@pytest.fixture(scope="module")
def dev(adb_host: Any, pixel: Any) -> Any:
    return adb_host.client().device(pixel.serial)


def _sh(dev: Any, cmd: str) -> str:
    return str(dev.shell(cmd))


# ---------------------------------------------------------------------------------------- identity
def test_a_google_phone_is_a_pixel(dev: Any, pixel: Any) -> None:
    assert _sh(dev, "getprop ro.product.manufacturer").strip() == "Google"
    assert _sh(dev, "getprop ro.product.brand").strip() == "google"
    assert _sh(dev, "getprop ro.product.model").strip().startswith("Pixel")
    assert _sh(dev, "getprop ro.s2r.family").strip() == "google"
    assert _sh(dev, "getprop ro.s2r.flavor").strip() == "google"  # the family draws its own flavor
    kn = pixel.info()["knobs"]
    assert (kn["family"], kn["flavor"]) == ("google", "google")
    assert kn["hidden_launcher"] == ["com.google.android.documentsui"]  # the google family's default


def test_the_aosp_family_is_the_default_and_unchanged() -> None:
    from device.virtual.knobs import PhoneKnobs

    k = PhoneKnobs()
    assert (k.family, k.flavor, k.hidden_launcher) == ("aosp", "aosp", [])
    assert PhoneKnobs(flavor="google").family == "google"  # a google flavor makes a google phone
    assert PhoneKnobs(flavor="sim").family == "aosp"
    with pytest.raises(ValueError, match="the families are: aosp, google"):
        PhoneKnobs(family="xiaomi")
    with pytest.raises(ValueError, match="cannot draw"):
        PhoneKnobs(family="google", flavor="aosp")


# ---------------------------------------------------------------------------------------- packages
def test_pm_lists_the_pixel_packages_and_not_the_aosp_ones(dev: Any) -> None:
    listed = {ln.split(":", 1)[1].strip() for ln in _sh(dev, "pm list packages").splitlines() if ":" in ln}
    for app, (pkg, _comp) in PIXEL.items():
        assert pkg in listed, app
    for aosp in ("com.android.deskclock", "com.android.messaging", "com.android.dialer", "com.android.calculator2",
                 "com.android.documentsui", "com.android.launcher3", "com.android.contacts", "com.android.calendar"):
        assert aosp not in listed, aosp
        assert not _sh(dev, f"pm path {aosp}").startswith("package:"), aosp


@pytest.mark.parametrize("pkg, apk", [
    ("com.google.android.deskclock", "/product/app/PrebuiltDeskClockGoogle/PrebuiltDeskClockGoogle.apk"),
    ("com.google.android.apps.messaging", "/product/priv-app/PrebuiltBugle/PrebuiltBugle.apk"),
    ("com.google.android.dialer", "/product/priv-app/GoogleDialer/GoogleDialer.apk"),
    ("com.google.android.contacts", "/product/app/GoogleContacts/GoogleContacts.apk"),
    ("com.google.android.calendar", "/product/app/CalendarGooglePrebuilt/CalendarGooglePrebuilt.apk"),
    ("com.google.android.calculator", "/product/app/CalculatorGooglePrebuilt/CalculatorGooglePrebuilt.apk"),
    ("com.google.android.documentsui", "/system/priv-app/DocumentsUIGoogle/DocumentsUIGoogle.apk"),
    ("com.android.settings", "/system_ext/priv-app/SettingsGoogle/SettingsGoogle.apk"),
    ("com.google.android.apps.nexuslauncher", "/system_ext/priv-app/NexusLauncherRelease/NexusLauncherRelease.apk"),
])
def test_pm_path_is_where_a_pixel_keeps_the_app(dev: Any, pkg: str, apk: str) -> None:
    assert _sh(dev, f"pm path {pkg}").strip() == f"package:{apk}"
    dump = _sh(dev, f"dumpsys package {pkg}")
    assert f"codePath={apk.rsplit('/', 1)[0]}" in dump
    assert "versionName=" in dump


# ---------------------------------------------------------------------------------------- resolving
def _resolve(dev: Any, args: str) -> str:
    lines = [ln.strip() for ln in _sh(dev, f"cmd package resolve-activity --brief {args}").splitlines() if ln.strip()]
    return lines[-1] if lines else ""


@pytest.mark.parametrize("app", [a for a in APP_IDS if a not in ("files", "launcher")])
def test_each_launcher_entry_resolves_to_the_pixel_app(dev: Any, app: str) -> None:
    pkg, comp = PIXEL[app]
    assert _resolve(dev, f"-c android.intent.category.LAUNCHER {pkg}") == comp


def test_documentsui_has_no_launcher_entry_but_its_activity_starts(dev: Any, pixel: Any) -> None:
    pkg, comp = PIXEL["files"]
    assert _resolve(dev, f"-c android.intent.category.LAUNCHER {pkg}") == "No activity found"
    assert _resolve(dev, f"-a android.intent.action.MAIN -n {comp}") == comp


@pytest.mark.parametrize("intent, component", [
    ("-a android.intent.action.SET_ALARM", "com.google.android.deskclock/com.android.deskclock.HandleSetApiCalls"),
    ("-a android.intent.action.SET_TIMER", "com.google.android.deskclock/com.android.deskclock.HandleSetApiCalls"),
    ("-a android.intent.action.DIAL -d tel:5551234", "com.google.android.dialer/.extensions.GoogleDialtactsActivity"),
    ("-a android.intent.action.VIEW -d tel:5551234", "com.google.android.dialer/.extensions.GoogleDialtactsActivity"),
    ("-a android.intent.action.SENDTO -d smsto:5551234",
     "com.google.android.apps.messaging/.ui.conversation.LaunchConversationActivity"),
    ("-a android.intent.action.VIEW -d content://com.android.contacts/contacts",
     "com.google.android.contacts/com.android.contacts.activities.PeopleActivity"),
    ("-c android.intent.category.HOME", "com.google.android.apps.nexuslauncher/.NexusLauncherActivity"),
])
def test_intents_resolve_to_the_pixel_apps(dev: Any, intent: str, component: str) -> None:
    assert _resolve(dev, intent) == component


def test_a_sendto_intent_opens_google_messages(dev: Any, pixel: Any) -> None:
    out = _sh(dev, "am start -W -a android.intent.action.SENDTO -d smsto:5551234")
    assert "Activity: com.google.android.apps.messaging/.ui.conversation.ConversationActivity" in out, out
    assert pixel.foreground()[0] == "com.google.android.apps.messaging"
    _sh(dev, "input keyevent KEYCODE_HOME")


# ---------------------------------------------------------------------------------------- s2r's view
def test_detect_apps_reads_all_nine_as_google(pixel: Any, tmp_path: Path) -> None:
    from device.env import DeviceEnv

    env = DeviceEnv(pixel.serial, journal_dir=str(tmp_path))
    try:
        env.start()
        apps = env.apps()
        assert set(apps) == set(APP_IDS)
        for app, x in apps.items():
            assert x.package == PIXEL[app][0], (app, x)
            assert x.version, (app, x)
            # settings is com.android.settings on both families: the phone's own family decides
            assert x.family == "google", (app, x)
        assert env.app_families() == {a: "google" for a in APP_IDS}
    finally:
        env.close()


def test_disabled_alarms_are_set_up_through_google_clock(pixel: Any, tmp_path: Path) -> None:
    """A setup with switched-off alarms goes through the Clock app's list (the AlarmClock API makes
    enabled alarms only): on a Pixel that list first shows the Bedtime tooltip over its lower cards,
    which the probe taps away, as a person would, before it reaches the switches."""
    from device.env import DeviceEnv
    from transfer.tasks import instances

    inst = next(i for i in instances("real59", [0]) if i.template_id == "clock.alarm_on")
    want = {(a["hour"], a["minute"]) for a in inst.setup.add["alarms"] if a.get("enabled") is False}
    assert len(want) >= 3
    env = DeviceEnv(pixel.serial, journal_dir=str(tmp_path))
    try:
        env.start()
        env.reset(inst)
        ws = env.read_state()
        got = {(a.hour, a.minute): a.enabled for a in ws.alarms}
        assert all(got.get(hm) is False for hm in want), (want, got)
    finally:
        env.close()


@pytest.mark.parametrize("app", [a for a in APP_IDS if a != "launcher"])
def test_am_start_shows_the_pixel_package_in_the_dump(dev: Any, pixel: Any, app: str) -> None:
    """``am start -n`` of each app's component; uiautomator's dump then belongs to the Pixel package."""
    from device.apps.base import foreground_package
    from device.parsers.hierarchy import parse_hierarchy

    pkg, comp = PIXEL[app]
    out = _sh(dev, f"am start -n {comp}")
    assert "Error" not in out, out
    xml = _sh(dev, "uiautomator dump /sdcard/window_dump.xml >/dev/null && cat /sdcard/window_dump.xml")
    els = parse_hierarchy(xml).elements
    assert foreground_package(els) == pkg, (app, {e.package for e in els})
    assert pixel.foreground()[0] == pkg
    _sh(dev, "input keyevent KEYCODE_HOME")


# ---------------------------------------------------------------------------------------- the CLI
def test_vdevice_start_prints_the_family(tmp_path: Path) -> None:
    r = subprocess.run([sys.executable, "-m", "s2r.cli", "vdevice", "start", "--family", "google", "--port", "0",
                        "--duration", "0.1", "--json"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    info = json.loads(r.stdout.strip().splitlines()[0])
    assert (info["family"], info["knobs"]["family"], info["manufacturer"]) == ("google", "google", "Google")


@pytest.mark.parametrize("args", [
    ["vdevice", "start", "--family", "xiaomi", "--duration", "0.1"],
    ["run", "--out", "{tmp}", "--device", "vdevice:2", "--vdevice-family", "aosp,xiaomi", "--policy", "oracle"],
])
def test_an_unknown_family_exits_2_naming_the_families(args: list[str], tmp_path: Path) -> None:
    args = [a.replace("{tmp}", str(tmp_path / "run")) for a in args]
    r = subprocess.run([sys.executable, "-m", "s2r.cli", *args], capture_output=True, text=True, timeout=300,
                       env={**os.environ, "COLUMNS": "200"})
    assert r.returncode == 2, (r.returncode, r.stdout[-500:], r.stderr[-2000:])
    said = " ".join(re.sub(r"[│╭╮╰╯─]", " ", r.stderr).split())  # typer's usage box, unwrapped
    assert "the families are: aosp, google" in said and "xiaomi" in said, said[-2000:]


def test_vdevice_family_options_parse() -> None:
    from s2r.commands.run import device_run_options

    opts = device_run_options(None, False, False, 30.0, vdevice_family="aosp,google")
    assert opts.vdevice_family == ["aosp", "google"]
    assert device_run_options(None, False, False, 30.0).vdevice_family == []


@pytest.fixture
def farm(adb_host: Any, tmp_path: Path) -> Iterator[Any]:
    from device.env import DeviceOptions
    from transfer.device_backends import DeviceBackends

    b = DeviceBackends.from_spec("vdevice:2", client=adb_host.client(), family=["aosp", "google"],
                                 options=DeviceOptions(journal_dir=str(tmp_path)))
    try:
        yield b
    finally:
        b.close()


def test_vdevice_family_spreads_a_farm_over_families(farm: Any) -> None:
    """``--vdevice-family aosp,google``: phone i takes family i; each lease carries its phone's app
    families (what episode records and the report's per-family table read)."""
    described = farm.describe()
    assert [(p["family"], p["flavor"]) for p in described] == [("aosp", "aosp"), ("google", "google")]
    from transfer.runner import EpisodeSpec

    spec = EpisodeSpec(policy="oracle", policy_spec="oracle", task_id="clock.set_alarm", seed=0, backend="device",
                       target="farm", split="real59")
    leases = [farm.lease(spec), farm.lease(spec)]
    try:
        # settings is com.android.settings on both phones, both say manufacturer Google: the phone's
        # own family decides (device.appfamilies.family_for)
        seen = {(lease.info["flavor"], lease.info["app_families"]["clock"], lease.info["app_families"]["messages"],
                 lease.info["app_families"]["settings"]) for lease in leases}
        assert seen == {("aosp", "aosp", "aosp", "aosp"), ("google", "google", "google", "google")}, \
            [lease.info for lease in leases]
    finally:
        for lease in leases:
            lease.release(False)


def test_a_two_family_farm_runs_each_device_episode_on_each_family(farm: Any) -> None:
    """The run's device targets are one per family (``farm:aosp``, ``farm:google``), and a lease for
    one goes only to a phone of that family: every task is then paired within each family."""
    from transfer.runner import EpisodeSpec

    assert farm.families() == ["aosp", "google"]
    assert farm.targets() == ["farm:aosp", "farm:google"]
    for target, fam in (("farm:google", "google"), ("farm:aosp", "aosp"), ("farm:google", "google")):
        spec = EpisodeSpec(policy="oracle", policy_spec="oracle", task_id="clock.set_alarm", seed=0,
                           backend="device", target=target, split="real59")
        lease = farm.lease(spec)
        try:
            assert (lease.info["target"], lease.info["flavor"], lease.info["app_families"]["clock"]) == \
                (target, fam, fam)
        finally:
            lease.release(False)
