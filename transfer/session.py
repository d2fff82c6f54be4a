"""A run session: resolves policies, tasks and backends from CLI-level options, then runs."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from .policies.registry import make_policy
from .records import EpisodeRecord
from .runconfig import RunConfig
from .runner import EpisodeSpec, Lease, LocalExecutor, expand
from .rundir import RunDir


class NoUsableDevices(RuntimeError):
    """No phone could be used (none attached, all unauthorized or offline): the message says how to fix it."""


class DeviceRunOptions(BaseModel):
    """The device-side choices of a run (recorded in ``config.json`` as ``device_run``).

    ``vdevice_android``: Android releases of the virtual phones a ``vdevice:N`` spec starts,
    spread over the farm in turn; ``vdevice_family``: their phone families (``aosp``, ``google``:
    :mod:`device.virtual.families`), spread the same way; ``vdevice_permissive``: those phones accept every write like
    a rooted emulator (off: stock, unrooted phones); ``grant_appops``: setup may lift the
    WRITE_SMS app-op for the shell and restores it at close (implied for s2r's own virtual
    phones, never assumed on a person's phone); ``wait_devices``: seconds to wait for a phone;
    ``min_battery`` (%) / ``max_temp`` (°C): the farm pauses a phone below / above them between
    episodes until it recovers (0 turns a rule off; :mod:`device.farm_health`).
    """

    model_config = ConfigDict(extra="forbid")
    vdevice_android: list[int] = Field(default_factory=list)
    vdevice_family: list[str] = Field(default_factory=list)
    vdevice_permissive: bool = False
    grant_appops: bool = False
    wait_devices: float = Field(30.0, ge=0)
    min_battery: float = Field(20.0, ge=0, le=100)
    max_temp: float = Field(45.0, ge=0, le=100)

    def vdevice_knobs(self) -> dict[str, Any]:
        return {"permissive": True} if self.vdevice_permissive else {}

    def health_limits(self) -> Any:
        """The farm's heat-and-battery rule (:class:`device.farm_health.HealthLimits`)."""
        from device.farm_health import HealthLimits

        return HealthLimits(min_battery=self.min_battery, max_temp=self.max_temp)


def parse_policies(items: list[str]) -> dict[str, str]:
    """``--policy`` values: ``NAME=SPEC`` or a bare ``SPEC`` named after its kind.

    A prefix before ``=`` is a name only when it could not be part of a spec (no ``:``, ``/``
    or ``?``), so ``hf:/ckpt?format=qwen`` or ``openai:http://h/v1?model=m`` work unnamed.
    """
    out: dict[str, str] = {}
    for it in items:
        name, eq, spec = it.partition("=")
        if not eq or not name or any(c in name for c in ":/?"):
            spec, name = it, it.split(":")[0]
        out[name] = spec
    return out


@dataclass
class Session:
    rundir: RunDir
    specs: list[EpisodeSpec]
    instances: dict[tuple[str, int], Any]
    policies: dict[str, str]
    workers: int
    sim: Any = None
    devices: Any = None
    executor: Any = None  # None: the LocalExecutor over this machine's backends
    cluster: Any = None  # a throwaway local:N cluster this session started (closed with it)
    config: RunConfig = field(default_factory=RunConfig)  # how the executor runs each episode
    _policy_cache: dict[tuple[str, int], Any] = field(default_factory=dict)

    @classmethod
    def create(cls, *, out: Path, policies: list[str], split: str, tasks: str | None, seeds: int, repeats: int,
               sim: bool, flavor: str, profile: str, device: str | None, workers: int, resume: bool,
               limit: int = 0, extra_config: dict[str, Any] | None = None, test_recipient: str | None = None,
               destructive: bool = False, device_run: "DeviceRunOptions | None" = None,
               ray: str | None = None, run_config: RunConfig | None = None) -> "Session":
        """``test_recipient``: the one number send/call tasks may contact (it goes into the task
        instances and, on real phones, gates them); ``destructive``: allow resets that wipe
        phone data (dedicated test phones only) — never implied. ``ray``: run on a Ray cluster
        (``HEAD:PORT``, ``auto``, or ``local:N`` for a throwaway one here) instead of this
        machine's thread pool; the hosts hold the phones and pages. ``run_config``: how the
        executor runs the episodes (attempts, traces, the policy-outage stop)."""
        from .tasks.loader import get_template, load_templates
        from .tasks.model import make_context

        run_config = run_config or RunConfig()
        pols = parse_policies(policies)
        for spec in pols.values():
            make_policy(spec)  # fail fast on a bad spec
        ids = tasks.split(",") if tasks else [t.id for t in load_templates(split)]
        if limit:
            ids = ids[:limit]
        context = make_context(test_recipient) if test_recipient else None  # fails fast on a bad number
        insts = {(tid, s): get_template(tid).instantiate(s, context) for tid in ids for s in range(seeds)}
        targets: list[tuple[str, str]] = []
        sim_b = dev_b = None
        if ray:
            return cls._create_on_ray(ray, out=out, pols=pols, ids=ids, insts=insts, split=split, seeds=seeds,
                                      repeats=repeats, sim=sim, flavor=flavor, profile=profile, device=device,
                                      workers=workers, resume=resume, extra_config=extra_config,
                                      test_recipient=test_recipient, destructive=destructive,
                                      device_run=device_run or DeviceRunOptions(), run_config=run_config)
        if sim:
            from .backends import SimBackends, sim_target

            sim_b = SimBackends(pages=max(1, min(workers, 4)))
            targets.append(("sim", sim_target(profile, flavor)))
        if device:
            from .device_backends import DeviceBackends  # type: ignore[import-not-found]

            from device.env import DeviceOptions

            dr = device_run or DeviceRunOptions()
            overrides: dict[str, Any] = {"destructive": bool(destructive), "grant_appops": dr.grant_appops}
            if test_recipient:
                overrides["test_recipient"] = test_recipient
            try:
                dev_b = DeviceBackends.from_spec(device, options=DeviceOptions(**overrides),
                                                 knobs=dr.vdevice_knobs(), android=dr.vdevice_android,
                                                 family=dr.vdevice_family or None,
                                                 wait_devices=dr.wait_devices)
            except Exception as e:
                if sim_b is not None:
                    sim_b.close()
                if type(e).__name__ == "NoDevicesError":
                    raise NoUsableDevices(str(e)) from e
                raise
            if hasattr(dev_b, "farm"):  # before the first lease: the thresholds of --min-battery/--max-temp
                dev_b.farm.limits = dr.health_limits()
            targets += [("device", t) for t in dev_b.targets()]
        config = {"policies": pols, "split": split, "tasks": ids, "seeds": seeds, "repeats": repeats,
                  "backends": [t for t in targets], "flavor": flavor, "profile": profile, "device": device,
                  "test_recipient": test_recipient, "destructive": bool(destructive),
                  **({"device_run": (device_run or DeviceRunOptions()).model_dump(mode="json"),
                      "phones": dev_b.describe()} if dev_b is not None else {}),
                  **(extra_config or {})}
        rd = RunDir(out)
        rd.init(config, resume)
        specs = expand(pols, ids, range(seeds), repeats, targets, split)
        return cls(rundir=rd, specs=specs, instances=insts, policies=pols, workers=workers, sim=sim_b, devices=dev_b,
                   config=run_config)

    @classmethod
    def _create_on_ray(cls, address: str, *, out: Path, pols: dict[str, str], ids: list[str],
                       insts: dict[tuple[str, int], Any], split: str, seeds: int, repeats: int, sim: bool,
                       flavor: str, profile: str, device: str | None, workers: int, resume: bool,
                       extra_config: dict[str, Any] | None, test_recipient: str | None, destructive: bool,
                       device_run: DeviceRunOptions, run_config: RunConfig) -> "Session":
        """The same run on a cluster: hosts are checked (versions, phones, policies) before the
        run directory is touched."""
        from .backends import sim_target
        from .distributed.ray_engine import LocalCluster, RayExecutor

        cluster = None
        if address.startswith("local:"):
            n = int(address.split(":", 1)[1] or 1)
            cluster = LocalCluster(n).start()
            vdev = bool(device and device.startswith("vdevice"))
            try:
                cluster.add_hosts(device=device if vdev else None, sim_pages=max(1, min(workers, 4)) if sim else 0,
                                  device_run=device_run.model_dump(mode="json"), test_recipient=test_recipient)
            except BaseException:
                cluster.shutdown()
                raise
            address = cluster.address
        ex = RayExecutor(address, policy_specs=list(pols.values()), config=run_config)
        try:
            ex.preflight()
        except BaseException:
            if cluster is not None:
                cluster.shutdown()
            raise
        targets = ([("sim", sim_target(profile, flavor))] if sim else []) + ([("device", "farm")] if device else [])
        config = {"policies": pols, "split": split, "tasks": ids, "seeds": seeds, "repeats": repeats,
                  "backends": targets, "flavor": flavor, "profile": profile, "device": device,
                  "test_recipient": test_recipient, "destructive": bool(destructive),
                  "ray": {"address": "local" if cluster else address, "resolved": ex.address,
                          "hosts": sorted(st.info.name for st in ex.dispatcher.hosts.values())},
                  **({"device_run": device_run.model_dump(mode="json")} if device else {}), **(extra_config or {})}
        rd = RunDir(out)
        rd.init(config, resume)
        specs = expand(pols, ids, range(seeds), repeats, targets, split)
        return cls(rundir=rd, specs=specs, instances=insts, policies=pols, workers=workers, executor=ex,
                   cluster=cluster, config=run_config)

    def _lease(self, spec: EpisodeSpec) -> Lease:
        if spec.backend == "sim":
            return self.sim.lease(spec)
        return self.devices.lease(spec)

    def _policy(self, spec: EpisodeSpec) -> Any:
        # one policy object per worker thread and policy (policies keep per-episode state)
        key = (spec.policy, threading.get_ident())
        p = self._policy_cache.get(key)
        if p is None:
            p = self._policy_cache[key] = make_policy(spec.policy_spec)
            p.name = spec.policy
        return p

    def run(self) -> list[EpisodeRecord]:
        if self.executor is not None:
            return self.executor.run(self.specs, self.rundir)
        workers: int | dict[str, int] = self.workers
        if self.sim is not None and self.devices is not None:
            # paired runs: each backend gets its own workers, so the sim never waits behind
            # device episodes queued for a busy phone (and every phone stays busy)
            phones = len(self.devices.farm.devices()) if hasattr(self.devices, "farm") else 0
            workers = {"sim": self.workers, "device": max(self.workers, phones)}
        ex = LocalExecutor(self._lease, lambda s: self.instances[(s.task_id, s.seed)], self._policy,
                           workers=workers, config=self.config)
        return ex.run(self.specs, self.rundir)

    def close(self) -> list[dict[str, Any]]:
        """Close the backends. For phones: every teardown leftover and the end-of-run audit
        (start vs. after close), written to ``phone_audit.json`` in the run directory and returned."""
        reports: list[dict[str, Any]] = []
        if self.cluster is not None:  # a throwaway cluster: its hosts close their phones, then it goes
            try:
                reports = self.cluster.close_hosts()
            finally:
                self.cluster.shutdown()
        elif self.executor is not None:  # a shared cluster: its hosts keep their phones warm
            import ray

            ray.shutdown()
        for b in (self.sim, self.devices):
            if b is not None:
                try:
                    got = b.close()
                    if b is self.devices and isinstance(got, list):
                        reports = got
                except Exception:  # noqa: BLE001
                    pass
        if reports:
            import json

            (self.rundir.path / "phone_audit.json").write_text(json.dumps(reports, indent=1, ensure_ascii=False),
                                                               encoding="utf-8")
            # what each phone let the shell do, as probed at its start (config.json keeps it)
            cfg_path = self.rundir.path / "config.json"
            try:
                cfg = json.loads(cfg_path.read_text())
                caps = {r["serial"]: r.get("capabilities") for r in reports if r.get("capabilities")}
                apps = {r["serial"]: r.get("apps") for r in reports if r.get("apps")}
                for ph in cfg.get("phones") or []:
                    if ph.get("serial") in caps:
                        ph["capabilities"] = caps[ph["serial"]]
                    if ph.get("serial") in apps:  # each app's package, version and family (device.appfamilies)
                        ph["apps"] = apps[ph["serial"]]
                known = {ph.get("serial") for ph in cfg.get("phones") or []}
                cfg.setdefault("phones", []).extend({"serial": s, "capabilities": c} for s, c in caps.items()
                                                    if s not in known)
                tmp = cfg_path.with_suffix(".tmp")
                tmp.write_text(json.dumps(cfg, indent=2, sort_keys=True, default=str))
                tmp.replace(cfg_path)
            except (OSError, ValueError):
                pass
        return reports
