"""Per-family screen data: how each phone family's app shows a control, as data.

Why data: a new phone family (or a new version of an app) is a new block in
``device/apps/data/<app>.yaml`` — which package it ships, which screens it has, and for each
*role* (``add_alarm``, ``alarm_card``, ``send`` …) the ways that family's layout marks it — not
new code. Each selector carries the evidence it came from (``cite``): an app's own layout in
its AOSP source, or a real dump. The reading code (``device/apps/<app>.py``) only ever asks for
roles, so no resource id or label literal lives outside this data.

A selector is a conjunction: every field it sets must hold. A role lists selectors in order of
preference; the first that finds anything wins. ``within``/``has`` relate roles to each other
(a label is the one *inside* an alarm card; a card is the smallest container that *has* an
alarm time), which is how the family-free ``generic`` data finds controls by role heuristics.
"""

from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, field_validator


class Sel(BaseModel):
    """One way a family marks a control. Every field set must match."""

    model_config = ConfigDict(extra="forbid")
    rid: str | None = Field(None, description="Resource id: a bare name ('onoff' matches 'pkg:id/onoff' and a "
                                                "Compose test tag 'onoff'), or a full 'android:id/title'.")
    rid_re: str | None = Field(None, description="Regular expression searched in the id's name ('^day_button_').")
    text: str | None = Field(None, description="Exact text (case, dashes and spaces normalised).")
    desc: str | None = Field(None, description="Exact content description (normalised).")
    label: str | None = Field(None, description="Exact text or content description (normalised).")
    text_re: str | None = Field(None, description="Regular expression searched in the normalised text.")
    desc_re: str | None = Field(None, description="Regular expression searched in the normalised description.")
    label_re: str | None = Field(None, description="Regular expression searched in text or description.")
    hint: str | None = Field(None, description="A text field's hint (or, on older Android, its placeholder text).")
    cls: str | None = Field(None, description="Widget class: the simple name or a suffix ('Switch', 'CardView').")
    clickable: bool | None = None
    checkable: bool | None = None
    checked: bool | None = None
    editable: bool | None = None
    scrollable: bool | None = None
    selected: bool | None = None
    own_package: bool | None = Field(None, description="True: the node belongs to the app's package (not the "
                                                         "status bar, not another app's widget).")
    within: str | None = Field(None, description="Role the control must lie inside.")
    has: str | None = Field(None, description="Role the control must contain (a container).")
    innermost: bool = Field(False, description="Of nested matches keep only the smallest (cards around a time).")
    cite: str | None = Field(None, description="Where this was seen: the app's source layout or a real dump.")

    @field_validator("rid_re", "text_re", "desc_re", "label_re")
    @classmethod
    def _compiles(cls, v: str | None) -> str | None:
        if v is not None:
            re.compile(v)
        return v


class ScreenSpec(BaseModel):
    """A screen is recognised when all of ``all`` and at least one of ``any`` (if given) are found."""

    model_config = ConfigDict(extra="forbid")
    all: list[str] = Field(default_factory=list)
    any: list[str] = Field(default_factory=list)
    none: list[str] = Field(default_factory=list, description="Roles whose presence rules the screen out.")


class FamilySpec(BaseModel):
    """One family's version of an app: packages, screens, roles, wording."""

    model_config = ConfigDict(extra="forbid")
    name: str = ""
    packages: list[str] = Field(default_factory=list)
    manufacturers: list[str] = Field(default_factory=list,
                                     description="When a package is shared between families (com.android.deskclock "
                                                 "on AOSP and on MIUI), the manufacturer decides.")
    detect: list[str] = Field(default_factory=list,
                              description="Roles whose presence on a screen tells this family apart from "
                                          "others shipping the same package, when the manufacturer is not known "
                                          "(a saved dump): any one of them suffices.")
    evidence: list[str] = Field(default_factory=list)
    screens: dict[str, ScreenSpec] = Field(default_factory=dict)
    roles: dict[str, list[Sel]] = Field(default_factory=dict)
    texts: dict[str, Any] = Field(default_factory=dict, description="Wording a skill types or looks for, by key.")


class AppSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")
    app: str
    families: dict[str, FamilySpec]

    def family(self, name: str) -> FamilySpec:
        """The named family's data over the family-free ``generic`` data (roles a family does not name
        fall back to the heuristics)."""
        generic = self.families.get("generic") or FamilySpec(name="generic")
        fam = self.families.get(name)
        if fam is None or name == "generic":
            return generic
        return FamilySpec(
            name=name, packages=fam.packages, manufacturers=fam.manufacturers, detect=fam.detect,
            evidence=fam.evidence,
            screens={**generic.screens, **fam.screens} if fam.screens else generic.screens,
            roles={**generic.roles, **fam.roles}, texts={**generic.texts, **fam.texts},
        )


DATA_PACKAGE = "device.apps"


@lru_cache(maxsize=None)
def load_spec(app: str) -> AppSpec:
    """Read ``device/apps/data/<app>.yaml`` (validated; a typo in a selector field is an error)."""
    raw = yaml.safe_load(resources.files(DATA_PACKAGE).joinpath(f"data/{app}.yaml").read_text("utf-8"))
    fams = {k: FamilySpec(name=k, **(v or {})) for k, v in (raw.get("families") or {}).items()}
    return AppSpec(app=app, families=fams)
