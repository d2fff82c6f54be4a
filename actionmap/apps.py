"""Canonical app ids and the registry that maps them to Android packages per device family.

Policies say ``open_app("clock")``; a Pixel calls that ``com.google.android.deskclock``, a
Xiaomi ``com.android.deskclock``, a Samsung ``com.sec.android.app.clockpackage``. The mapping
is data (``data/apps.yaml``) so adding a family is an edit, not a code change.
"""

from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources
from typing import Literal

import yaml
from pydantic import BaseModel

AppId = Literal["launcher", "settings", "clock", "contacts", "messages", "calendar", "files", "calculator", "phone"]
APP_IDS: tuple[str, ...] = ("launcher", "settings", "clock", "contacts", "messages", "calendar", "files",
                            "calculator", "phone")
FAMILIES: tuple[str, ...] = ("aosp", "xiaomi", "samsung")


class Component(BaseModel):
    package: str
    activity: str

    @property
    def full_activity(self) -> str:
        return self.package + self.activity if self.activity.startswith(".") else self.activity

    @property
    def component(self) -> str:
        """``package/activity`` as ``am start -n`` takes it."""
        return f"{self.package}/{self.activity}"


class AppEntry(BaseModel):
    id: str
    names: list[str]
    families: dict[str, list[Component]]


class AppRegistry(BaseModel):
    apps: dict[str, AppEntry]
    families: dict[str, str]

    def components(self, app_id: str, family: str = "aosp") -> list[Component]:
        entry = self.apps.get(app_id)
        if entry is None:
            return []
        return list(entry.families.get(family) or entry.families.get("aosp") or [])

    def family_of(self, manufacturer: str | None) -> str:
        return self.families.get((manufacturer or "").strip().lower(), "aosp")

    def app_of_package(self, package: str | None) -> str | None:
        if not package:
            return None
        for app_id, entry in self.apps.items():
            for comps in entry.families.values():
                if any(c.package == package for c in comps):
                    return app_id
        return None

    def all_packages(self) -> set[str]:
        return {c.package for e in self.apps.values() for cs in e.families.values() for c in cs}


@lru_cache(maxsize=1)
def registry() -> AppRegistry:
    raw = yaml.safe_load(resources.files("actionmap").joinpath("data/apps.yaml").read_text("utf-8"))
    apps = {k: AppEntry(id=k, names=v["names"], families=v["families"]) for k, v in raw["apps"].items()}
    return AppRegistry(apps=apps, families=raw["families"])


def _key(s: str) -> str:
    return re.sub(r"[^a-z0-9]+", "", s.lower())


def canonical_app_id(name: str | None) -> str | None:
    """Map an app name, id or package that a policy wrote to a canonical id (or None)."""
    if not name or not isinstance(name, str):
        return None
    k = _key(name)
    if not k:
        return None
    reg = registry()
    for app_id, entry in reg.apps.items():
        if k == _key(app_id) or any(k == _key(n) for n in entry.names):
            return app_id
    return reg.app_of_package(name.strip())
