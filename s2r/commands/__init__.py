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


def min_battery_option() -> typer.models.OptionInfo:
    """``--min-battery``, shared by ``s2r run`` and ``s2r paired`` (the farm's heat-and-battery rule)."""
    return typer.Option(20.0, "--min-battery", min=0, max=100, metavar="PERCENT",
                        help="Pause a phone whose battery is below this between episodes, until it is back at "
                             "+5 % (0: never).")


def max_temp_option() -> typer.models.OptionInfo:
    """``--max-temp``, shared by ``s2r run`` and ``s2r paired``."""
    return typer.Option(45.0, "--max-temp", min=0, max=100, metavar="CELSIUS",
                        help="Pause a phone whose battery is hotter than this between episodes, until it is "
                             "3 °C cooler (0: never).")
