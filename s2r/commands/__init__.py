"""CLI command groups; each module exposes ``register(app)``."""

from __future__ import annotations

import typer


def flavor_option(value: str | None) -> str | None:
    """``--flavor``: one of the simulator's app flavors, or a usage error (exit 2) naming them."""
    from sim.profiles import FLAVORS

    if value is not None and value not in FLAVORS:
        raise typer.BadParameter(f"{value!r} is not an app flavor; the flavors are: {', '.join(FLAVORS)}")
    return value
