"""The farm page (``s2r farm serve``): every attached phone, its health and battery, and what a run does on it.

``collect`` merges the sources into one view (the adb server, the runs' status endpoints, the
cluster hosts), ``server`` answers HTTP, ``page`` is the HTML and its polling script.
"""

from .collect import Collector, FarmView, PhoneRow
from .server import FarmPageServer

__all__ = ["Collector", "FarmPageServer", "FarmView", "PhoneRow"]
