"""The ``s2r`` command line. Each area registers its commands from ``s2r/commands/``.

Heavy imports (Playwright, torch) happen inside commands, so ``s2r --help`` stays instant.
"""

from __future__ import annotations

import importlib
import pkgutil

import typer

from . import __version__

app = typer.Typer(
    name="s2r",
    help="Sim-to-Real bridge toolkit for mobile GUI agents.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"s2r {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Print the version and exit."),
) -> None:
    """Sim-to-Real bridge toolkit for mobile GUI agents."""


def _register_all() -> None:
    from . import commands

    for mod in sorted(m.name for m in pkgutil.iter_modules(commands.__path__)):
        module = importlib.import_module(f"{commands.__name__}.{mod}")
        register = getattr(module, "register", None)
        if register is not None:
            register(app)


_register_all()

if __name__ == "__main__":
    app()
