"""CLI command groups; each module exposes ``register(app)``."""

from __future__ import annotations

import typer


def flavor_option(value: str | None) -> str | None:
    """``--flavor``: one of the simulator's app flavors, or a usage error (exit 2) naming them."""
    from sim.profiles import FLAVORS

    if value is not None and value not in FLAVORS:
        raise typer.BadParameter(f"{value!r} is not an app flavor; the flavors are: {', '.join(FLAVORS)}")
    return value


def flavors_option(value: str | None) -> str | None:
    """``--flavors a,b``: each one of the simulator's app flavors, or a usage error (exit 2) naming them."""
    from sim.profiles import FLAVORS

    if value is None:
        return None
    names = [f.strip() for f in value.split(",") if f.strip()]
    bad = [f for f in names if f not in FLAVORS]
    if bad or not names:
        raise typer.BadParameter(f"{', '.join(bad) or repr(value)}: not an app flavor; the flavors are: {', '.join(FLAVORS)}")
    return ",".join(names)
