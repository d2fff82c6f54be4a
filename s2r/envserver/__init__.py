"""``s2r env serve``: the simulator as an environment server for RL trainers (OpenEnv's protocol).

* :class:`EnvServer` — the server (in this process, or ``s2r env serve`` on the command line);
* :class:`S2REnv` — one session from a client (OpenEnv's ``EnvClient``); :class:`SessionSpread`
  — sessions spread over several servers;
* :class:`S2RAction` / :class:`S2RObservation` / :class:`S2RState` — what travels;
* :mod:`.errors` — the typed refusals (unknown task, bad request, session gone, capacity, host lost).
"""

from .app import EnvServer, make_app
from .client import S2REnv, SessionSpread
from .errors import (BadRequest, CapacityFull, EnvServerError, HostLost, ResetNeeded, SessionGone, UnknownTask,
                     Unauthorized)
from .protocol import ResetOptions, S2RAction, S2RObservation, S2RState, SessionConfig

__all__ = ["BadRequest", "CapacityFull", "EnvServer", "EnvServerError", "HostLost", "ResetNeeded", "ResetOptions",
           "S2RAction", "S2REnv", "S2RObservation", "S2RState", "SessionConfig", "SessionGone", "SessionSpread",
           "Unauthorized", "UnknownTask", "make_app"]
