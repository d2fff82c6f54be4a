"""Recipes that bring a fresh phone to the state of each real Contacts dump (see tests/_screens.py).

None yet: tests/fixtures/real-apps/ holds no Contacts dump of any family (AOSP or Google; see
EVIDENCE.md, "Gaps"). The simulator's Google Contacts is modelled on public tests' locators
instead (sim/static/apps/google/contacts.js). A recipe goes here with the first real dump:
``"<family>/contacts/<dump stem>": (flavor, fn)``, ``fn(env)`` driving a fresh env with
``env.step`` / ``env.observe`` only.
"""

from __future__ import annotations

from typing import Any

RECIPES: dict[str, tuple[str, Any]] = {}
