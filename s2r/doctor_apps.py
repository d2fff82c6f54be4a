"""``s2r doctor --device SERIAL --apps``: before a two-hour run, what s2r can read on this phone.

For each of the nine apps: which package answers it, its version and family
(:mod:`device.appfamilies`); then the app is opened — nothing is tapped, typed or granted — its
main screen (and, for the Clock, the alarm list the probes read) is dumped and read by the app UI
layer (:mod:`device.apps`). An app whose screens the layer recognises is *recognised*; a real59
template is *ready* when every app it uses is recognised, and otherwise listed with the reason it
would be a bridge fault. Home is pressed at the end; the phone's tweaks are put back by
:meth:`DeviceEnv.close`, which proves it by reading again.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from actionmap.apps import APP_IDS

#: where an app's first launch may be covered by the system's runtime-permission prompt
PERMISSION_PACKAGES = ("com.android.permissioncontroller", "com.google.android.permissioncontroller",
                       "com.android.packageinstaller")


class AppDoctor(BaseModel):
    package: str | None = None
    version: str | None = None
    family: str | None = None
    recognised: bool = False
    screens: list[str] = Field(default_factory=list, description="Screens the layer recognised.")
    controls: list[str] = Field(default_factory=list, description="Roles found on those screens.")
    problems: list[str] = Field(default_factory=list)
    ready: list[str] = Field(default_factory=list)
    not_ready: list[dict[str, str]] = Field(default_factory=list)


def _screen_of(env: Any, app: str, family: str | None) -> tuple[Any, list[Any]]:
    from device.apps import read_screen

    els = env.probe_elements()
    return read_screen(els, app=app, family=family), els


def check_apps(env: Any, *, split: str = "real59") -> dict[str, Any]:
    """Open each app on a started :class:`DeviceEnv`, read its screens; the doctor's JSON."""
    from device.apps import driver
    from device.readers import open_alarm_list
    from transfer.tasks.loader import load_templates

    apps = env.apps()
    out: dict[str, AppDoctor] = {}
    for app in APP_IDS:
        info = apps[app]
        d = out[app] = AppDoctor(package=info.package, version=info.version, family=info.family)
        if info.package is None:
            d.problems.append(f"{app}: not installed (no package answers it)")
            continue
        try:
            env.probe_open(app)
            reading, els = _screen_of(env, app, info.family)
            if reading.package in PERMISSION_PACKAGES:
                d.problems.append(f"{app}: a first-launch permission prompt covers it (s2r's oracle answers it on "
                                  "the first episode; the doctor changes nothing)")
                continue
            if reading.package != info.package:
                d.problems.append(f"{app}: opening it showed {reading.package or 'nothing'}, not {info.package}")
                continue
            if reading.screen is not None:
                d.screens.append(reading.screen)
            d.problems += reading.problems
            d.controls = sorted({c.role for c in reading.controls})
            if app == "clock":  # the alarm list is what the probes and teardown read
                els = open_alarm_list(env)
                m = driver("clock").matcher(els, info.family, info.package)
                if m.screen() == "alarm_list":
                    if "alarm_list" not in d.screens:
                        d.screens.append("alarm_list")
                    d.controls = sorted(set(d.controls) | {r for r in ("alarm_list", "alarm_card", "alarm_time",
                                                                        "alarm_switch", "add_alarm") if m.has(r)})
                else:
                    d.problems.append(f"clock: {info.package} {info.version or ''} ({info.family}) — alarm list "
                                      "not recognised".replace("  ", " "))
            d.recognised = bool(d.screens) and not [p for p in d.problems if "not recognised" in p]
        finally:
            env.probe_home()
    for t in load_templates(split):
        why = [f"{a}: {'; '.join(out[a].problems) or 'not recognised'}" for a in t.apps
               if a in out and not out[a].recognised]
        for a in t.apps:
            if a not in out:
                continue
            if why:
                out[a].not_ready.append({"template": t.id, "reason": "; ".join(why)})
            else:
                out[a].ready.append(t.id)
    return {"serial": env.serial, "apps": {a: d.model_dump() for a, d in out.items()}}


def doctor_apps(serial: str, *, client: Any = None, split: str = "real59") -> dict[str, Any]:
    """Start the phone as a run would (its tweaks put back on close), check its apps, close."""
    from device.env import DeviceEnv

    env = DeviceEnv(serial, client=client)
    try:
        env.start()
        return check_apps(env, split=split)
    finally:
        env.close()
