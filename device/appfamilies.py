"""Which app each of the nine app ids is on this phone, and which family's screens it shows.

Why per app, not per manufacturer: a Pixel ships Google's Clock but AOSP's Settings; a Samsung
may carry Google Messages beside its own; MIUI ships its own Clock under AOSP's package name.
So for each app id s2r asks the phone which package answers it (``cmd package resolve-activity``
by the launcher category, and, where the launcher entry is hidden, by the registry's own
activity — :meth:`device.input.InputDriver.resolve_app`), reads that package's ``versionName``
(``dumpsys package``), and takes the family whose data ships that package
(:meth:`device.apps.base.AppDriver.family_of`; the manufacturer decides a shared package).

The result is recorded in ``config.json`` (per phone) and in each episode record, shown by
``s2r devices``, and handed to the oracle and the UI probes, which read screens by it.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, Field

from actionmap.apps import APP_IDS

_VERSION = re.compile(r"^\s*versionName=(\S.*?)\s*$", re.M)


class AppOnPhone(BaseModel):
    """One app id on one phone."""

    app: str
    package: str | None = Field(None, description="The package that answers the app id (None: not installed).")
    activity: str | None = None
    version: str | None = Field(None, description="versionName from dumpsys package.")
    family: str | None = Field(None, description="The family whose screens s2r reads it by; 'generic' when no "
                                                 "family's data ships this package (role heuristics only).")

    def short(self) -> str:
        if self.package is None:
            return "not installed"
        return f"{self.family} ({self.package} {self.version or '?'})"


def parse_version_name(dumpsys_package: str) -> str | None:
    """The first ``versionName=`` of ``dumpsys package PKG`` (the installed one; an updated system
    app lists its update first, then the factory image's)."""
    m = _VERSION.search(dumpsys_package or "")
    return m.group(1) if m else None


def family_for(app: str, package: str | None, manufacturer: str | None, flavor: str | None = None,
               virtual: bool = False) -> str | None:
    """The family of ``package`` as ``app``: the virtual phone's flavor when it serves the
    simulator's ``sim`` screens; else the family data's owner of the package; else 'generic'.

    A package several families ship (com.android.settings: AOSP's, a Pixel's, Samsung's, MIUI's) is
    the manufacturer's family's on a real phone. s2r's own virtual phone says which family it is
    (``ro.s2r.flavor`` = the stock flavor it draws, ``aosp`` or ``google``), and that decides: its
    manufacturer is its profile's (a Pixel-like profile says Google even on an ``aosp`` phone)."""
    if package is None:
        return None
    if virtual and flavor == "sim":
        return "sim"
    from device.apps import drivers

    d = drivers().get(app)
    if d is None:
        return None
    if virtual and flavor:
        owners = [n for n, f in d.spec.families.items() if package in f.packages]
        if flavor in owners:
            return flavor
    return d.family_of(package, manufacturer) or "generic"


def detect_apps(shell: Any, resolve: Any, *, manufacturer: str | None, flavor: str | None = None,
                virtual: bool = False, apps: tuple[str, ...] = APP_IDS) -> dict[str, AppOnPhone]:
    """Each app id's package, version and family on this phone. ``resolve(app)`` is
    :meth:`InputDriver.resolve_app` (canonical id, component or None). Reads only."""
    out: dict[str, AppOnPhone] = {}
    versions: dict[str, str | None] = {}
    for app in apps:
        _id, comp = resolve(app)
        if comp is None:
            out[app] = AppOnPhone(app=app)
            continue
        pkg = comp.package
        if pkg not in versions:
            versions[pkg] = parse_version_name(shell.out(["dumpsys", "package", pkg]))
        out[app] = AppOnPhone(app=app, package=pkg, activity=comp.activity, version=versions[pkg],
                              family=family_for(app, pkg, manufacturer, flavor, virtual))
    return out
