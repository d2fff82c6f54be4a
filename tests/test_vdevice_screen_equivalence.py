"""Screen equivalence on the virtual phone: its uiautomator dump of a screen reads like the real dump.

Why: the virtual phone is where s2r's device path meets the simulator's screens. For each real
fixture screen (``tests/fixtures/real-apps/<family>/<app>/``) a recipe (``tests/_recipes_<app>.py``)
drives a fresh env to the same state; here the env is a :class:`device.env.DeviceEnv` on a virtual
phone of the recipe's family, and the screen is what uiautomator2's own client dumps
(``d.dump_hierarchy()``), parsed as s2r parses any phone's dump. The app UI layer must read it as it
reads the real dump: same app, family, screen, roles and ``visible`` keys
(:func:`_screens.compare`; a recipe module's ``KNOWN_GAPS`` name the differences that come from how
the real dump was framed, and only those are allowed). One phone per family (module-scoped), each recipe from a reset env.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

import pytest

from _screens import compare, known_gaps, recipes

pytestmark = pytest.mark.timeout(900)

RECIPES = recipes()


KNOWN_GAPS = known_gaps()
#: flavor of a recipe → the family of the phone that draws it (device.virtual.knobs.PhoneKnobs)
FAMILY_OF = {"aosp": "aosp", "google": "google"}


class _Phones:
    """One virtual phone and one DeviceEnv per family, started on first use."""

    def __init__(self, adb_host: Any, sim_pool: Any, journal: Path) -> None:
        self.adb_host, self.sim_pool, self.journal = adb_host, sim_pool, journal
        self.envs: dict[str, tuple[Any, Any]] = {}

    def env(self, family: str) -> tuple[Any, Any]:
        if family not in self.envs:
            from device.env import DeviceEnv

            # the simulator's default world, as a recipe's SimEnv starts from: no first-launch prompts
            # (SimEnv has none) and events kept (a stock phone without an account has no calendar)
            phone = self.adb_host.start_phone(self.sim_pool, family=family, input_latency_ms=0, animation_ms=0,
                                              permission_prompts=[], google_account="s2r.screens@gmail.com")
            env = DeviceEnv(phone.serial, journal_dir=str(self.journal / family))
            env.start()
            self.envs[family] = (phone, env)
        return self.envs[family]

    def close(self) -> None:
        for _phone, env in self.envs.values():
            env.close()


@pytest.fixture(scope="module")
def phones(adb_host: Any, sim_pool: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[_Phones]:
    p = _Phones(adb_host, sim_pool, tmp_path_factory.mktemp("journal"))
    try:
        yield p
    finally:
        p.close()


def test_there_are_recipes_to_check() -> None:
    """The harness has something to run: at least the recipes already written (a missing
    tests/_recipes_*.py import would otherwise pass every check vacuously)."""
    assert RECIPES, "no tests/_recipes_*.py recipes found"
    for key, (flavor, fn) in RECIPES.items():
        assert flavor in FAMILY_OF, (key, flavor)
        assert callable(fn), key
        assert key.split("/", 1)[0] == flavor, (key, flavor)  # google/… recipes run on a google phone
    # every real dump of a family the simulator models has its recipe: a new fixture is checked too
    from _screens import REAL

    dumps = {str(x.relative_to(REAL))[:-len(".xml")] for fam in FAMILY_OF for x in (REAL / fam).rglob("*.xml")}
    assert dumps and dumps <= set(RECIPES), f"real dumps with no recipe: {sorted(dumps - set(RECIPES))}"


@pytest.mark.parametrize("key", sorted(RECIPES))
def test_the_virtual_phones_dump_reads_like_the_real_one(phones: _Phones, key: str) -> None:
    from device.parsers.hierarchy import parse_hierarchy

    flavor, fn = RECIPES[key]
    phone, env = phones.env(FAMILY_OF[flavor])
    env.reset()
    fn(env)
    assert env.u2 is not None, "uiautomator2 did not connect to the virtual phone"
    xml = env.u2.dump_hierarchy()
    elements = parse_hierarchy(xml).elements
    manufacturer = phone.properties()["ro.product.manufacturer"]
    assert compare(key, elements, manufacturer) == KNOWN_GAPS.get(key, [])
