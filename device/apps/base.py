"""What every app driver shares: the reading's shape, the family lookup, the foreground package.

A driver (``device/apps/<app>.py``) knows one app's screens by role. Its data says how each
family marks each role; its code says what a person reads off a screen of that app (alarms,
conversations, a contact …). :class:`ScreenReading` is that reading, the JSON that
``s2r inspect --app`` prints, and what the oracle, the UI probes and teardown consume.

A screen no driver recognises is reported as such (``screen: null`` with the package), never
guessed: a probe that cannot read a screen makes its check undetermined.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field

from actionmap.observation import UIElement

from .match import SYSTEM_PACKAGES, Matcher
from .spec import AppSpec, FamilySpec, load_spec

# packages that draw over an app without being it: the status bar, input methods
OVERLAY_HINTS = ("inputmethod", "keyboard", ".ime", "systemui")


class Control(BaseModel):
    """One recognised control: its role and where it is."""

    model_config = ConfigDict(extra="forbid")
    role: str
    resource_id: str = ""
    text: str = ""
    content_desc: str = ""
    bounds: list[int] = Field(description="[left, top, right, bottom] in pixels.")
    checked: bool | None = None
    index: int | None = Field(None, description="The element's index in the observation (what a Tap targets).")


class ScreenReading(BaseModel):
    """What s2r reads off one app screen."""

    model_config = ConfigDict(extra="forbid")
    package: str | None
    app: str | None
    family: str | None
    screen: str | None = Field(None, description="The recognised screen, or null when none matched.")
    controls: list[Control] = Field(default_factory=list)
    visible: dict[str, Any] = Field(default_factory=dict)
    problems: list[str] = Field(default_factory=list, description="What could not be read, in words.")


def control(role: str, e: UIElement) -> Control:
    b = e.bounds
    return Control(role=role, resource_id=e.resource_id, text=e.text, content_desc=e.content_desc,
                   bounds=[b.left, b.top, b.right, b.bottom], checked=e.checked if e.checkable else None,
                   index=e.index)


def foreground_package(elements: Sequence[UIElement]) -> str | None:
    """The app a screen belongs to: the package covering the most area, leaving out the status bar,
    the navigation bar and keyboards (they draw over every app)."""
    area: Counter[str] = Counter()
    for e in elements:
        if not e.package or e.package in SYSTEM_PACKAGES or any(h in e.package for h in OVERLAY_HINTS):
            continue
        area[e.package] += 0  # keep the key even for zero-area nodes
    if not area:
        return None
    # the package's largest single node, not the sum: nested nodes would count the same pixels again
    best = {p: max((e.bounds.area for e in elements if e.package == p), default=0) for p in area}
    return max(best, key=lambda p: (best[p], -list(best).index(p)))


class AppDriver:
    """Base for one app's driver. Subclasses set ``app`` and implement :meth:`visible`."""

    app: ClassVar[str]
    #: roles listed in ``controls`` (in this order); others may exist for internal use
    control_roles: ClassVar[tuple[str, ...]] = ()

    def __init__(self) -> None:
        self.spec: AppSpec = load_spec(self.app)

    # --- families ------------------------------------------------------------------------------
    def packages(self) -> dict[str, list[str]]:
        return {name: f.packages for name, f in self.spec.families.items() if f.packages}

    def family_of(self, package: str | None, manufacturer: str | None = None,
                  elements: Sequence[UIElement] | None = None) -> str | None:
        """The family whose data describes ``package``; None when no family ships that package.

        A package several families ship (com.android.settings on AOSP, Samsung and MIUI) is told
        apart by the phone's manufacturer, or, on a saved dump where that is not known, by a
        family's ``detect`` roles found on the screen."""
        if not package:
            return None
        owners = [n for n, f in self.spec.families.items() if package in f.packages]
        if not owners:
            return None
        maker = (manufacturer or "").strip().lower()
        for n in owners:
            if maker and maker in [m.lower() for m in self.spec.families[n].manufacturers]:
                return n
        if len(owners) > 1 and elements is not None and not maker:
            for n in owners:
                fam = self.spec.family(n)
                if fam.detect and any(Matcher(elements, fam, package).has(r) for r in fam.detect):
                    return n
        plain = [n for n in owners if not self.spec.families[n].manufacturers]
        return (plain or owners)[0]

    def family(self, name: str | None) -> FamilySpec:
        return self.spec.family(name or "generic")

    def matcher(self, elements: Sequence[UIElement], family: str | None, package: str | None = None) -> Matcher:
        return Matcher(elements, self.family(family), package)

    # --- reading -------------------------------------------------------------------------------
    def controls(self, m: Matcher) -> list[Control]:
        roles = self.control_roles or tuple(m.family.roles)
        out: list[Control] = []
        for role in roles:
            out.extend(control(role, e) for e in m.find(role))
        return out

    def visible(self, m: Matcher, screen: str | None) -> dict[str, Any]:
        """What a person reads on this screen (per app)."""
        return {}

    def read(self, elements: Sequence[UIElement], *, package: str | None = None, family: str | None = None,
             manufacturer: str | None = None) -> ScreenReading:
        package = package or foreground_package(elements)
        family = family or self.family_of(package, manufacturer, elements) or "generic"
        m = self.matcher(elements, family, package)
        screen = m.screen()
        problems: list[str] = []
        visible: dict[str, Any] = {}
        if screen is None:
            problems.append(f"{self.app}: {package or 'unknown package'} ({family}) — screen not recognised")
        else:
            visible = self.visible(m, screen)
        return ScreenReading(package=package, app=self.app, family=family, screen=screen,
                             controls=self.controls(m), visible=visible, problems=problems)
