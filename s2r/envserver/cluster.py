"""Environment sessions on the hosts of an s2r Ray cluster.

Every host a worker started with ``--sim PAGES`` (``s2r worker``) also serves environment
sessions on those pages: its :class:`~transfer.distributed.host.EpisodeHost` starts an
:class:`~s2r.envserver.app.EnvServer` next to its episodes (:func:`host_server`), at the address
the cluster knows the host by. A client asks the cluster for them (:func:`cluster_servers`) and
spreads its sessions over them (:class:`~s2r.envserver.client.SessionSpread`). GPU nodes train;
CPU hosts serve phones.

A server on a loopback address needs no token (the machine's own users only); on any other it
gets a fresh random token, which reaches clients only through the cluster (Ray's authenticated
channel). A host that leaves or dies takes its sessions with it: their clients get
:class:`~s2r.envserver.errors.HostLost`, and no session is recreated elsewhere.
"""

from __future__ import annotations

import secrets
from typing import Any

from .app import EnvServer, is_loopback
from .client import SessionSpread


def host_server(pool: Any, host: str | None = None, **options: Any) -> EnvServer:
    """Start the env server of a cluster host on its page pool, at ``host`` (default: the
    address Ray knows this node by)."""
    if host is None:
        import ray

        host = ray.util.get_node_ip_address() if ray.is_initialized() else "127.0.0.1"
    token = None if is_loopback(host) else secrets.token_urlsafe(24)
    return EnvServer(host, 0, pool=pool, token=token, **options).start()


def endpoint(server: EnvServer | None) -> dict[str, Any] | None:
    """What a host tells the cluster about its env server (None: it serves none)."""
    if server is None or not server.running:
        return None
    return {"url": server.url, "token": server.token, "pages": server.store.pool.pages_per_profile,
            "max_sessions": server.store.max_sessions}


def cluster_servers(address: str, timeout: float = 30.0) -> list[dict[str, Any]]:
    """The env servers of the cluster at ``address``: ``[{"host", "url", "token", "pages", …}]``,
    one per host that serves sessions (hosts that do not answer within ``timeout`` are left out)."""
    import ray

    from transfer.distributed.ray_engine import NAMESPACE, connect, host_names

    connect(address)
    out: list[dict[str, Any]] = []
    for full in host_names():
        try:
            actor = ray.get_actor(full, namespace=NAMESPACE)
            ep = ray.get(actor.env_endpoint.remote(), timeout=timeout)
        except Exception:  # noqa: BLE001 - a host that is going or gone serves nothing
            continue
        if ep:
            out.append({"host": full.split(":", 1)[1], **ep})
    return sorted(out, key=lambda e: e["host"])


def spread(servers: list[dict[str, Any]]) -> SessionSpread:
    """A :class:`SessionSpread` over ``servers`` (as :func:`cluster_servers` lists them)."""
    return SessionSpread([(s["url"], s.get("token")) for s in servers])
