"""Ray carries the dispatcher's episodes: one detached, named actor per host, placed on its node.

Ray never re-runs an episode by itself: the actors have ``max_restarts=0`` and
``max_task_retries=0`` (a rerun could repeat a side effect on a real phone); a lost actor or
node surfaces as :class:`~transfer.distributed.dispatcher.HostLost` and only the dispatcher
moves the episode. Token authentication is always on (``RAY_AUTH_MODE=token``) and the dashboard
off. A cluster on one machine is started from Python with every node on ``127.0.0.1``: Ray's CLI
rewrites a loopback address to the interface address, and ``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0``
keeps a loopback address as given when a driver connects.

A host that is leaving (Ctrl-C on its worker) refuses new attempts; the engine reports such a
refusal as the host lost only once nothing else of that host is in flight here, so the episodes
it is draining come back as results instead of being moved and run twice.
"""

from __future__ import annotations

import ipaddress
import os
import secrets
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from ..records import EpisodeRecord
from ..runconfig import RunConfig
from ..rundir import RunDir
from ..runner import EpisodeSpec
from .dispatcher import Dispatcher, HostInfo, HostLost, NoUsableHosts, Result, Started
from .host import HOST_PREFIX, NAMESPACE, EpisodeHost, versions

__all__ = ["RayEngine", "RayExecutor", "LocalCluster", "connect", "spawn_host", "secure_env", "host_names"]


TOKEN_FILE = os.path.expanduser("~/.ray/auth_token")  # where Ray itself looks for the token


def secure_env(loopback: bool, persist: bool = False) -> None:
    """Token auth on (a fresh token unless one is configured: kept in this process's environment,
    or with ``persist`` saved where Ray reads it, for a head other hosts join), usage stats off,
    and for a cluster on this machine: keep every address on loopback."""
    os.environ["RAY_AUTH_MODE"] = "token"
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    if not (os.environ.get("RAY_AUTH_TOKEN") or os.environ.get("RAY_AUTH_TOKEN_PATH")
            or os.path.exists(TOKEN_FILE)):
        token = secrets.token_hex(32)
        if persist:
            os.makedirs(os.path.dirname(TOKEN_FILE), exist_ok=True)
            fd = os.open(TOKEN_FILE, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w") as f:
                f.write(token)
        else:
            os.environ["RAY_AUTH_TOKEN"] = token
    if loopback:
        os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
        consts = sys.modules.get("ray._private.ray_constants")
        if consts is not None:  # Ray was imported before: it read the variable already
            consts.ENABLE_RAY_CLUSTER = False
    if "ray" in sys.modules:  # Ray read its config at import: make this process see token mode too
        try:
            from ray._raylet import Config

            Config.initialize("")
        except Exception:  # noqa: BLE001 - older Ray: the environment is read at start
            pass


def is_loopback(host: str) -> bool:
    if host in ("localhost", ""):
        return True
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return False
    mapped = getattr(ip, "ipv4_mapped", None)
    return ip.is_loopback or bool(mapped and mapped.is_loopback)


def _reachable(address: str, timeout: float = 3.0) -> None:
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        raise NoUsableHosts(f"bad --ray address {address!r}; use HEAD:PORT, auto or local:N")
    try:
        socket.create_connection((host, int(port)), timeout=timeout).close()
    except OSError as e:
        raise NoUsableHosts(f"cannot reach the Ray head at {address} ({e.strerror or e}); start it with "
                            f"`s2r worker --head` there, or check the address and firewall") from None


def resolve(address: str) -> str:
    """``auto`` as Ray means it: ``RAY_ADDRESS``, else the cluster last started on this machine
    (the address file a head writes; see ``ray._private.services.get_ray_address_from_environment``),
    resolved here so that a loopback cluster is joined on loopback. Any other address is as given."""
    if address != "auto":
        return address
    env = os.environ.get("RAY_ADDRESS", "").strip()
    if env and env != "auto":
        return env
    from ray._private.utils import read_ray_address

    found = read_ray_address()
    if not found:
        raise NoUsableHosts("--ray auto found no cluster: RAY_ADDRESS is unset and no head was started on this "
                            "machine; start one with `s2r worker --head`, or pass --ray HEAD:PORT")
    return found


def connect(address: str) -> None:
    """Connect this process to a running cluster as a driver (token auth, no dashboard)."""
    if "ray" in sys.modules and sys.modules["ray"].is_initialized():
        return
    try:
        import ray  # noqa: F401
    except ImportError:
        raise NoUsableHosts("--ray needs Ray on this machine and every host: pip install 's2r[ray]'") from None
    address = resolve(address)
    _reachable(address)
    host = address.rpartition(":")[0]
    secure_env(is_loopback(host))
    import ray

    kw: dict[str, Any] = {"_node_ip_address": "127.0.0.1"} if is_loopback(host) else {}
    ray.init(address=address, namespace=NAMESPACE, logging_level="ERROR", log_to_driver=False, **kw)


def host_names() -> list[str]:
    import ray

    return sorted(a["name"] for a in ray.util.list_named_actors(all_namespaces=True)
                  if a.get("namespace") == NAMESPACE and a["name"].startswith(HOST_PREFIX))


def spawn_host(name: str, node_id: str, *, device: str | None = None, sim_pages: int = 0,
               adb_port: int | None = None, device_run: dict[str, Any] | None = None,
               test_recipient: str | None = None, slots: int = 4, wait: bool = True) -> Any:
    """Create the detached named host actor on node ``node_id`` (hard affinity: it must run
    where the phones are). The actor runs episodes on threads, up to its phones and pages."""
    import ray
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    cls = ray.remote(EpisodeHost)
    actor = cls.options(name=HOST_PREFIX + name, namespace=NAMESPACE, lifetime="detached", max_restarts=0,
                        max_task_retries=0, max_concurrency=max(4, slots + 4), num_cpus=0,
                        scheduling_strategy=NodeAffinitySchedulingStrategy(node_id, soft=False),
                        ).remote(name, device=device, sim_pages=sim_pages, adb_port=adb_port,
                                 device_run=device_run, test_recipient=test_recipient)
    if wait:
        ray.get(actor.info.remote(), timeout=300)  # constructed: its farm started (or its error is known)
    return actor


def _lost(e: BaseException) -> HostLost:
    import ray.exceptions as rx

    if isinstance(e, getattr(rx, "NodeDiedError", ())):
        return HostLost("node_died", str(e)[:200])
    if isinstance(e, (rx.ObjectLostError,)):
        return HostLost("object_lost", str(e)[:200])
    return HostLost("actor_died", f"{type(e).__name__}: {str(e)[:200]}")


#: How a host that refused an attempt because it is leaving is named in the driver's lines.
LEAVING = "the host's worker is leaving (Ctrl-C or SIGTERM there); it takes no new episode"


@dataclass(eq=False)
class _Attempt:
    """One attempt in flight on a host actor: first its ``lease`` call (which phone), then its
    ``run`` call. Each is called once; a cancelled attempt never gets its second call.
    ``refused``: the host answered that it is leaving (reported by :meth:`RayEngine.wait` once
    the host has nothing else in flight)."""

    actor: Any
    spec_json: str
    ref: Any
    key: str = ""
    ticket: str | None = None
    cancelled: bool = False
    refused: bool = False


class RayEngine:
    """The dispatcher's :class:`~transfer.distributed.dispatcher.Engine` over named host actors.
    An attempt is two actor calls (see :class:`_Attempt`): the driver learns the phone from the
    first, before the episode runs, and reports it as :class:`Started`."""

    def __init__(self, driver: str | None = None, info_timeout: float = 30.0):
        self.driver = driver or uuid.uuid4().hex
        self.info_timeout = info_timeout
        self.actors: dict[str, Any] = {}  # incarnation key -> actor handle
        self.begun: set[str] = set()

    def hosts(self) -> list[HostInfo]:
        import ray

        out: list[HostInfo] = []
        for full in host_names():
            try:
                actor = ray.get_actor(full, namespace=NAMESPACE)
                key = actor._actor_id.hex()
                raw = ray.get(actor.info.remote(), timeout=self.info_timeout)
                if raw.get("leaving"):  # its worker is draining it: not a host to send work to
                    continue
                if key not in self.begun:  # a driver takes over the host: cancel an old driver's work
                    ray.get(actor.begin.remote(self.driver), timeout=self.info_timeout)
                    self.begun.add(key)
            except Exception:  # noqa: BLE001 - a host leaving while we look: it is not there
                continue
            self.actors[key] = actor
            out.append(HostInfo(name=raw["name"], key=key, capacity=raw["capacity"], versions=raw["versions"],
                                error=raw.get("error")))
        return out

    def submit(self, host: HostInfo, spec: EpisodeSpec) -> _Attempt:
        actor, spec_json = self.actors[host.key], spec.model_dump_json()
        return _Attempt(actor, spec_json, actor.lease.remote(spec_json, self.driver), key=host.key)

    def wait(self, handles: list[_Attempt], timeout: float) -> list[tuple[_Attempt, Started | Result | HostLost]]:
        import ray

        live = [h for h in handles if not h.cancelled]
        news = self._refusals(live)
        by_ref = {h.ref: h for h in live if not h.refused}
        if news or not by_ref:
            return news
        refs = list(by_ref)
        ready, rest = ray.wait(refs, num_returns=1, timeout=timeout)
        if ready and rest:  # whatever else is done too, without waiting
            more, _ = ray.wait(rest, num_returns=len(rest), timeout=0)
            ready += more
        for r in ready:
            h, got = self._news(by_ref[r])
            if got is None:
                h.refused = True
            else:
                news.append((h, got))
        return news + self._refusals(live)

    @staticmethod
    def _refusals(live: list[_Attempt]) -> list[tuple[_Attempt, Started | Result | HostLost]]:
        """Attempts a leaving host refused, once nothing else of that host is in flight: reported
        earlier, the host would be marked lost and the episodes it is still draining moved."""
        busy = {h.key for h in live if not h.refused}
        out: list[tuple[_Attempt, Started | Result | HostLost]] = []
        for h in live:
            if h.refused and h.key not in busy:
                h.refused = False  # reported once
                h.cancelled = True
                out.append((h, HostLost("leaving", LEAVING)))
        return out

    def _news(self, h: _Attempt) -> tuple[_Attempt, Started | Result | HostLost | None]:
        """What one finished call says; ``None`` when the host refused it because it is leaving."""
        import ray

        try:
            got = ray.get(h.ref)
        except Exception as e:  # noqa: BLE001 - an episode's own errors come back as records
            return h, _lost(e)
        if got.get("leaving"):
            return h, None
        if h.ticket is None:  # the phone is taken: run the episode on it (the attempt's one run)
            h.ticket = got["ticket"]
            h.ref = h.actor.run.remote(h.ticket, h.spec_json, self.driver)
            return h, Started(got.get("phone"))
        return h, Result(record=got["record"], traces=got["traces"])

    def cancel(self, handle: _Attempt) -> None:
        import ray

        handle.cancelled = True
        try:
            ray.cancel(handle.ref, force=False)
        except Exception:  # noqa: BLE001
            pass

    def check_policies(self, specs: list[str]) -> list[str]:
        import ray

        bad: list[str] = []
        for actor in self.actors.values():
            try:
                bad += ray.get(actor.check_policies.remote(specs), timeout=120)
            except Exception:  # noqa: BLE001 - a host lost now is handled by the run
                pass
        return bad


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class LocalCluster:
    """A throwaway N-node cluster on this machine (``--ray local:N``), all on 127.0.0.1: each node
    gets one host with its own adb server and, for ``vdevice:K``, its own K virtual phones."""

    n: int
    cluster: Any = None
    nodes: list[Any] = field(default_factory=list)
    adb_ports: list[int] = field(default_factory=list)
    started_s: float = 0.0

    @property
    def address(self) -> str:
        return self.cluster.address

    def start(self, *, num_cpus: int = 1) -> "LocalCluster":
        t0 = time.perf_counter()
        secure_env(loopback=True)  # before Ray reads its config
        from ray.cluster_utils import Cluster

        common = {"node_ip_address": "127.0.0.1", "include_dashboard": False, "num_cpus": num_cpus,
                  "object_store_memory": 80 * 1024 * 1024}
        self.cluster = Cluster(initialize_head=True, head_node_args=dict(common), shutdown_at_exit=True)
        self.nodes = [self.cluster.head_node]
        for _ in range(self.n - 1):
            self.nodes.append(self.cluster.add_node(wait=False, **common))
        self.cluster.wait_for_nodes()
        connect(self.address)
        self.started_s = time.perf_counter() - t0
        return self

    def add_host(self, i: int, **kw: Any) -> Any:
        """Start host ``node-i`` on node ``i`` with a private adb server."""
        port = _free_port()
        self.adb_ports.append(port)
        return spawn_host(f"node-{i}", self.nodes[i].node_id, adb_port=port, **kw)

    def add_hosts(self, **kw: Any) -> list[Any]:
        """One host per node, started side by side; returns once each has its farm up."""
        import ray

        actors = [self.add_host(i, wait=False, **kw) for i in range(len(self.nodes))]
        ray.get([a.info.remote() for a in actors], timeout=600)
        return actors

    def add_node(self, **kw: Any) -> int:
        """One more node (a re-added host); its index."""
        node = self.cluster.add_node(node_ip_address="127.0.0.1", include_dashboard=False, num_cpus=1,
                                     object_store_memory=80 * 1024 * 1024, **kw)
        self.nodes.append(node)
        return len(self.nodes) - 1

    def kill_node(self, i: int) -> None:
        """Remove node ``i`` without grace, as a machine that loses power: every process it ran is
        dead when this returns — its Ray daemons, their workers and whatever they started (phones).

        Why wait for the workers: Ray's ``remove_node`` kills the node's daemons, but a worker notices
        its raylet is gone only a moment later and may finish an episode in that moment; a host that
        went away mid-episode must not still report it."""
        node = self.nodes[i]
        pids: set[int] = set()
        for infos in node.all_processes.values():
            for info in infos:
                proc = getattr(info, "process", None)
                if proc is not None and proc.pid:
                    pids |= {proc.pid, *_descendants(proc.pid)}
        self.cluster.remove_node(node, allow_graceful=False)
        _kill_and_reap(pids)

    def close_hosts(self) -> list[dict[str, Any]]:
        """Close every live host (teardown, restore, audit); their phones' closing reports."""
        import ray

        reports: list[dict[str, Any]] = []
        for full in host_names():
            try:
                actor = ray.get_actor(full, namespace=NAMESPACE)
                reports += ray.get(actor.close.remote(), timeout=120)
                ray.kill(actor)
            except Exception:  # noqa: BLE001 - a lost host has nothing left to close
                pass
        return reports

    def shutdown(self) -> None:
        import ray
        from adbutils import adb_path

        try:
            ray.shutdown()
        finally:
            if self.cluster is not None:
                self.cluster.shutdown()
            for port in self.adb_ports:  # our own adb servers only
                subprocess.run([adb_path(), "-P", str(port), "kill-server"], capture_output=True, timeout=30,
                               check=False)


class RayExecutor:
    """:class:`~transfer.runner.Executor` over a Ray cluster (same ``run(specs, rundir)``)."""

    def __init__(self, address: str, *, policy_specs: list[str] | None = None, config: RunConfig | None = None,
                 episode_deadline_s: float = 1800.0, host_wait_s: float = 60.0):
        """``config``: the run's :class:`~transfer.runconfig.RunConfig` (attempts, the policy-outage stop)."""
        config = config or RunConfig()
        self.address = address
        self.policy_specs = policy_specs or []
        self.engine = RayEngine()
        # how long a run waits for a host that can take its episodes (all lost, none joined yet)
        host_wait_s = float(os.environ.get("S2R_RAY_HOST_WAIT_S", host_wait_s))
        self.dispatcher = Dispatcher(self.engine, driver_versions=versions(), max_attempts=config.max_attempts,
                                     episode_deadline_s=episode_deadline_s, host_wait_s=host_wait_s,
                                     max_policy_outages=config.max_policy_outages)

    def preflight(self) -> None:
        """Connect, adopt the hosts and check them (versions, phones, policies): a one-line
        :class:`NoUsableHosts` naming the host and the fix before any episode runs."""
        self.address = resolve(self.address)
        connect(self.address)
        self.dispatcher.join_address = self.address
        self.dispatcher.refresh_hosts()
        if not self.dispatcher.hosts:
            why = list(self.dispatcher.refused.values()) or [
                f"no s2r host has joined the cluster at {self.address}; run `s2r worker --address "
                f"{self.address}` on each phone host"]
            raise NoUsableHosts("; ".join(why))
        bad = self.engine.check_policies(self.policy_specs)
        if bad:
            raise NoUsableHosts(bad[0] + "; copy the checkpoint to the same path on every host")

    def run(self, specs: list[EpisodeSpec], rundir: RunDir) -> list[EpisodeRecord]:
        if not self.dispatcher.hosts:
            self.preflight()
        return self.dispatcher.run(specs, rundir)


_POPEN_LOCK = threading.Lock()


@contextmanager
def _own_sessions() -> Iterator[bool]:
    """Ray processes started inside get a session of their own (``setsid``); yields whether.

    A terminal's Ctrl-C, a shell's or a service manager's stop reach every process of the
    worker's process group. Ray blocks SIGINT in the processes it starts, but not SIGTERM or
    SIGHUP: a raylet stopped with the worker takes the host actor down before the worker has
    drained, and the drain then talks to a dead actor. In their own sessions those signals reach
    the worker alone, which drains and then stops the node itself (:func:`stop_node`). They still
    die with the worker if it is killed (the kernel's parent-death signal, Ray's fate sharing);
    where the kernel cannot do that (not Linux), Ray's reaper kills the worker's process group
    instead, so the processes are left in it.
    """
    from ray._private import services
    from ray._private.utils import detect_fate_sharing_support

    base = getattr(services, "ConsolePopen", None)
    if base is None or not sys.platform.startswith("linux") or not detect_fate_sharing_support():
        yield False
        return

    class _SessionPopen(base):  # type: ignore[misc, valid-type]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            kwargs["start_new_session"] = True
            super().__init__(*args, **kwargs)

    with _POPEN_LOCK:
        services.ConsolePopen = _SessionPopen
        try:
            yield True
        finally:
            services.ConsolePopen = base


def start_node(*, head: bool, address: str | None = None, node_ip: str | None = None, port: int = 6379,
               num_cpus: int | None = None, dashboard: bool = False) -> Any:
    """Start (``head``) or join a Ray node in this process's care, the way ``ray start`` would but
    from Python, so that a loopback address stays loopback. Returns Ray's node object; the node's
    processes end with :func:`stop_node` (or with this process). They run in sessions of their
    own (:func:`_own_sessions`): a signal to the worker's process group does not stop the node
    under a host that is still draining."""
    import ray._private.node as rnode
    from ray._private.parameter import RayParams

    ip = node_ip or (address.rpartition(":")[0] if address and is_loopback(address.rpartition(":")[0]) else None)
    secure_env(loopback=bool(ip and is_loopback(ip)), persist=head)
    if not ip:
        from ray._private.services import get_node_ip_address

        ip = get_node_ip_address()
    params: dict[str, Any] = {"node_ip_address": ip, "include_dashboard": dashboard, "min_worker_port": 0,
                              "max_worker_port": 0, "num_gpus": 0}
    if num_cpus is not None:
        params["num_cpus"] = num_cpus
    if head:
        params["gcs_server_port"] = port
    else:
        assert address, "joining needs the head's address"
        _reachable(address)
        params.update(gcs_address=address, include_log_monitor=False, node_manager_port=0)
    p = RayParams(**params)
    if not head and not dashboard:
        p.dashboard_agent_listen_port = None
    with _own_sessions():
        node = rnode.Node(p, head=head, shutdown_at_exit=True, spawn_reaper=True)
    if head:  # what `ray start --head` leaves for `--ray auto` (Ray's own lookup) on this machine
        from ray._private.utils import write_ray_address

        write_ray_address(node.gcs_address)
    return node


def stop_node(node: Any, *, graceful: bool = True) -> None:
    """Stop the node's processes (each is given a second to exit on SIGTERM with ``graceful``,
    then killed; the raylet stops the workers it started, host actors included); a head also
    removes the address ``--ray auto`` would find."""
    if getattr(node, "head", False):
        from ray._common.utils import reset_ray_address
        from ray._private.utils import read_ray_address

        if read_ray_address() == node.gcs_address:  # not a newer cluster's
            reset_ray_address()
    node.kill_all_processes(check_alive=False, allow_graceful=graceful)


def _descendants(pid: int) -> set[int]:
    """Every process below ``pid`` (read from /proc; empty where there is none)."""
    children: dict[int, list[int]] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return set()
    for name in entries:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read().decode("utf-8", "replace")
            ppid = int(stat[stat.rindex(")") + 2:].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(name))
    out: set[int] = set()
    todo = [pid]
    while todo:
        for c in children.get(todo.pop(), []):
            if c not in out:
                out.add(c)
                todo.append(c)
    return out


def _kill_and_reap(pids: set[int], timeout: float = 30.0) -> None:
    """SIGKILL ``pids`` and wait until none is running (zombies of other parents count as gone)."""
    import signal

    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    deadline = time.monotonic() + timeout
    alive = set(pids)
    while alive and time.monotonic() < deadline:
        for pid in list(alive):
            try:
                os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                pass
            try:
                with open(f"/proc/{pid}/stat", "rb") as f:
                    state = f.read().decode("utf-8", "replace")
                if state[state.rindex(")") + 2:].split()[0] == "Z":
                    alive.discard(pid)
            except (OSError, ValueError, IndexError):
                alive.discard(pid)
        if alive:
            time.sleep(0.05)
