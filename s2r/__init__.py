"""s2r — Sim-to-Real bridge toolkit for mobile GUI agents."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("s2r")
except PackageNotFoundError:  # running from a source tree without installation
    __version__ = "0.1.0"
