"""``s2r bench device``: what one device step costs, and real59 oracle episodes under three
ways of waiting after an action.

On a farm, time per episode is the cost of every evaluation. A step is the action, the wait
for the screen to settle and the observation; the floor for an observation on a phone is its
own cost of one hierarchy dump plus one screencap (``floor_ms``, measured here on that phone).
The oracle episodes are run with s2r's settle detection (``DeviceOptions.settle="hierarchy"``,
adaptive: see ``device.observe.Observer.settle``), with the peers' fixed 1.0 s sleep after each
action (MobileGym's CLI, droidrun, Open-AutoGLM: ``--settle fixed:1.0``) and with AndroidWorld's
rule (three equal UIs 0.5 s apart), on the same phone, and compared.

``--device vdevice`` (the default) starts one virtual phone behind a *private* adb server (a
free port and its own HOME, killed at the end; never the shared server) with the ``--timing``
preset (``realistic``: a mid-range phone's costs, see ``device.virtual.knobs``). A serial runs on
that real phone through the usual adb server, exactly as ``s2r run --device SERIAL`` would run the
oracle there: the same setups, undone at each teardown, and the same audit at close.
"""

from __future__ import annotations

import json
import os
import socket
import statistics
import subprocess
import tempfile
import time
from contextlib import contextmanager
from typing import Any, Iterator

import typer

__all__ = ["run", "bench_device", "SETTLE_RULES"]

#: The three ways of waiting after an action, as DeviceOptions updates.
SETTLE_RULES: dict[str, dict[str, Any]] = {
    "settle": {"settle": "hierarchy"},
    "fixed": {"settle": "fixed", "settle_fixed_s": 1.0},
    "androidworld": {"settle": "androidworld"},
}


def _pct(xs: list[float], q: float) -> float | None:
    """The q-quantile (nearest rank) of xs, rounded; None when there is nothing to measure."""
    if not xs:
        return None
    s = sorted(xs)
    return round(s[min(len(s) - 1, max(0, int(round(q * (len(s) - 1)))))], 1)


class _StepLog:
    """The env as the runner sees it, keeping every step's ``StepInfo`` for the figures.

    With ``floor_every`` > 0, after every that many steps the screen the step left is measured
    alone (one dump, one screencap: the floor on *these* screens, not on the launcher), and the
    time that took is kept apart (``floor_s``) so it can be taken off the episode's time."""

    def __init__(self, env: Any, floor_every: int = 0) -> None:
        self._env = env
        self.infos: list[Any] = []
        self.floor_every = floor_every
        self.floors: list[tuple[float, float]] = []
        self.floor_s = 0.0

    def step(self, action: Any) -> Any:
        obs, info = self._env.step(action)
        self.infos.append(info)
        if self.floor_every and len(self.infos) % self.floor_every == 1 and info.error is None:
            t = time.perf_counter()
            self.floors.append(floor_sample(self._env))
            self.floor_s += time.perf_counter() - t
        return obs, info

    def __getattr__(self, name: str) -> Any:
        return getattr(self._env, name)


@contextmanager
def _private_adb() -> Iterator[Any]:
    """An adb server of our own (free port, own HOME); yields an adbutils client to it."""
    import adbutils

    adb = adbutils.adb_path()
    home = tempfile.mkdtemp(prefix="s2r-dbench-")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    env = dict(os.environ, HOME=home, ANDROID_USER_HOME=os.path.join(home, ".android"),
               ANDROID_ADB_SERVER_PORT=str(port))
    env.pop("ADB_SERVER_SOCKET", None)

    def cli(*args: str) -> None:
        subprocess.run([adb, "-P", str(port), *args], env=env, capture_output=True, timeout=60,
                       stdin=subprocess.DEVNULL)

    saved = os.environ.get("ADB_SERVER_SOCKET")
    cli("start-server")
    os.environ["ADB_SERVER_SOCKET"] = f"tcp:127.0.0.1:{port}"  # device.adb.client() finds ours
    try:
        yield adbutils.AdbClient(host="127.0.0.1", port=port, socket_timeout=60)
    finally:
        cli("kill-server")  # the private server only
        if saved is None:
            os.environ.pop("ADB_SERVER_SOCKET", None)
        else:
            os.environ["ADB_SERVER_SOCKET"] = saved


def floor_sample(env: Any) -> tuple[float, float]:
    """(ms of one hierarchy dump, ms of one screencap in the observation's format), each taken
    alone on the screen as it is: this phone's own cost of an observation."""
    obs = env.observer
    assert obs is not None
    t = time.perf_counter()
    obs.hierarchy_xml()
    d = (time.perf_counter() - t) * 1e3
    t = time.perf_counter()
    fr = obs.screenshot()
    s = (time.perf_counter() - t) * 1e3
    if fr.error:
        raise RuntimeError(f"screenshot failed: {fr.error}")
    return d, s


def _floor_figures(samples: list[tuple[float, float]]) -> dict[str, float | None]:
    if not samples:
        return {"floor_ms": None, "floor_hierarchy_ms": None, "floor_screencap_ms": None}
    d = statistics.median(x for x, _ in samples)
    s = statistics.median(y for _, y in samples)
    return {"floor_ms": round(d + s, 1), "floor_hierarchy_ms": round(d, 1), "floor_screencap_ms": round(s, 1),
            "floor_samples": len(samples)}


def _episodes(backends: Any, task_ids: list[str], rule: str, log: list[Any],
              floors: list[tuple[float, float]] | None = None, pixels: bool = True) -> dict[str, Any]:
    """Every task's oracle episode under one settle rule: wall seconds and success each."""
    from transfer.policies.registry import make_policy
    from transfer.runner import EpisodeSpec, run_episode
    from transfer.tasks.loader import get_template

    secs: list[float] = []
    ok: list[bool] = []
    errors: list[str] = []
    loops: list[float] = []  # the step loop alone (act, wait, observe), seconds
    waits: list[float] = []  # the wait rule's own time after each action, seconds
    for tid in task_ids:
        spec = EpisodeSpec(policy="oracle", policy_spec="oracle", task_id=tid, seed=0, backend="device",
                           target="bench", split="real59")
        inst = get_template(tid).instantiate(0)
        lease = backends.lease(spec)
        env = lease.env
        saved = env.options
        env.options = saved.model_copy(update=SETTLE_RULES[rule])
        rec_env = _StepLog(env, floor_every=3 if floors is not None else 0)
        broken = False
        try:
            t = time.perf_counter()
            rec = run_episode(rec_env, make_policy("oracle"), inst, spec, backend_info=lease.info,
                              frames="all" if pixels else "auto")
            elapsed = time.perf_counter() - t - rec_env.floor_s
        except Exception as e:  # noqa: BLE001 - an episode that could not run is reported, not timed
            errors.append(f"{tid}: {type(e).__name__}: {str(e)[:160]}")
            broken = not env.shell.alive()
            continue
        finally:
            env.options = saved
            lease.release(broken)
        if rec.success is None:  # unsupported setup or undetermined: neither time nor success
            errors.append(f"{tid}: {rec.error_kind or 'undetermined'}")
            continue
        secs.append(elapsed)
        ok.append(bool(rec.success))
        loops.append(sum(i.timings_ms.get("total", 0.0) for i in rec_env.infos) / 1e3)
        waits.append(sum(i.timings_ms.get("settle", 0.0) for i in rec_env.infos) / 1e3)
        log.extend(rec_env.infos)
        if floors is not None:
            floors.extend(rec_env.floors)
    return {"secs": secs, "ok": ok, "errors": errors, "loops": loops, "waits": waits}


def _step_figures(infos: list[Any]) -> dict[str, Any]:
    """The split of the steps that acted (and so waited): p50s of each part."""
    acted = [i for i in infos if i.error is None and "settle" in i.timings_ms and "settle_method" in i.extra]
    t = [i.timings_ms for i in acted]
    return {
        "steps_measured": len(acted),
        "step_ms_p50": _pct([x["total"] for x in t], 0.5),
        "step_ms_p95": _pct([x["total"] for x in t], 0.95),
        "act_ms": _pct([x["act"] for x in t], 0.5),
        "settle_ms": _pct([x["settle"] for x in t], 0.5),
        "hierarchy_ms": _pct([x.get("obs_dumps", 0.0) for x in t], 0.5),
        "screencap_ms": _pct([x["obs_screencap"] for x in t if "obs_screencap" in x], 0.5),
        # the wait itself: what the settle spent beyond the dump its observation needs anyway
        # (the fixed rule's counterpart is its whole sleep, 1.0 s)
        "settle_wait_ms": _pct([max(0.0, x["settle"] - x.get("obs_dumps", 0.0)) for x in t], 0.5),
        "dumps_per_step": _pct([float(i.extra.get("dumps", 0)) for i in acted], 0.5),
        "dumps_per_step_p95": _pct([float(i.extra.get("dumps", 0)) for i in acted], 0.95),
        "unsettled_steps": sum(1 for i in acted if i.extra.get("settled") is False),
        "settle_methods": sorted({str(i.extra.get("settle_method")) for i in acted}),
    }


def run(device: str = "vdevice", timing: str = "realistic", limit: int | None = None,
        rules: tuple[str, ...] = ("settle", "fixed", "androidworld"), pixels: bool = True) -> dict[str, Any]:
    """Measure one phone; every figure in the result is measured in this call.

    ``pixels``: every step captures the screen, as for a policy that reads pixels (the oracle
    itself reads only elements; ``False`` measures that cheaper case)."""
    from device.env import DeviceOptions
    from transfer.device_backends import DeviceBackends
    from transfer.tasks.loader import load_templates

    unknown = [r for r in rules if r not in SETTLE_RULES]
    if unknown:
        raise ValueError(f"unknown settle rule(s) {unknown}; choose from {', '.join(SETTLE_RULES)}")
    tasks = [t.id for t in load_templates("real59")]
    tasks = tasks[:limit] if limit else tasks
    t_all = time.perf_counter()
    with (_private_adb() if device == "vdevice" else _no_server()) as client:
        spec = "vdevice:1" if device == "vdevice" else device
        opts = DeviceOptions(journal_dir=tempfile.mkdtemp(prefix="s2r-dbench-journal-"), screenshots=True)
        backends = DeviceBackends.from_spec(spec, client=client, options=opts,
                                            knobs={"timing": timing} if device == "vdevice" else None)
        floors: list[tuple[float, float]] = []
        try:
            # one untimed episode first: the phone's shell learns its read plans (Shell.prefetched)
            # then, so the first rule measured does not pay for what the later ones reuse
            _episodes(backends, tasks[:1], rules[0], [], None, pixels=pixels)
            per_rule: dict[str, dict[str, Any]] = {}
            logs: dict[str, list[Any]] = {}
            for rule in rules:
                logs[rule] = []
                per_rule[rule] = _episodes(backends, tasks, rule, logs[rule], floors if rule == rules[0] else None,
                                           pixels=pixels)
        finally:
            backends.close()
    res: dict[str, Any] = {"device": device, "timing": timing if device == "vdevice" else None,
                           "templates": len(tasks), "pixels": pixels, **_floor_figures(floors), **_step_figures(logs.get("settle", []))}
    for rule, r in per_rule.items():
        res[f"episode_s_{rule}"] = round(statistics.median(r["secs"]), 2) if r["secs"] else None
        res[f"episode_s_total_{rule}"] = round(sum(r["secs"]), 1)
        res[f"success_{rule}"] = round(sum(r["ok"]) / len(r["ok"]), 3) if r["ok"] else None
        res[f"episodes_{rule}"] = len(r["secs"])
        if r["errors"]:
            res[f"errors_{rule}"] = r["errors"][:10]
    for rule, r in per_rule.items():
        if r["loops"]:
            res[f"loop_s_{rule}"] = round(statistics.median(r["loops"]), 2)
            res[f"overhead_s_{rule}"] = round(statistics.median(t - lp for t, lp in zip(r["secs"], r["loops"])), 2)
    fixed = per_rule.get("fixed")
    if fixed and fixed["secs"]:
        # every wait of the fixed run taken out (its sleeps): what an episode would take if the
        # screen needed no waiting at all, with the same actions, observations, setup and reads
        zero = [t - w for t, w in zip(fixed["secs"], fixed["waits"])]
        res["episode_s_zero_wait"] = round(statistics.median(zero), 2)
        res["zero_wait_vs_fixed_ratio"] = round(statistics.median(zero) / statistics.median(fixed["secs"]), 3)
        res["zero_wait_vs_fixed_ratio_total"] = round(sum(zero) / sum(fixed["secs"]), 3)
    if res.get("loop_s_settle") and res.get("loop_s_fixed"):
        res["loop_settle_vs_fixed_ratio"] = round(res["loop_s_settle"] / res["loop_s_fixed"], 3)
    for other in ("fixed", "androidworld"):
        a, b = res.get("episode_s_settle"), res.get(f"episode_s_{other}")
        if a and b:
            res[f"settle_vs_{other}_ratio"] = round(a / b, 3)
        ta, tb = res.get("episode_s_total_settle"), res.get(f"episode_s_total_{other}")
        if ta and tb:
            res[f"settle_vs_{other}_ratio_total"] = round(ta / tb, 3)
    if res.get("settle_wait_ms") is not None and "fixed" in per_rule:
        res["settle_wait_vs_fixed_sleep"] = round(res["settle_wait_ms"] / (SETTLE_RULES["fixed"].get(
            "settle_fixed_s", 1.0) * 1e3), 3)
    if res.get("step_ms_p50") and res.get("floor_ms"):
        res["step_vs_floor_ratio"] = round(res["step_ms_p50"] / res["floor_ms"], 3)
    res["wall_s"] = round(time.perf_counter() - t_all, 1)
    return res


@contextmanager
def _no_server() -> Iterator[Any]:
    """A real phone: the usual adb server (started if needed), as ``s2r run --device`` uses."""
    from device.adb import client, ensure_server

    ensure_server()
    yield client()


#: Rows of the --no-json table: (figure, key, unit).
_ROWS = [("hierarchy dump + screencap (floor)", "floor_ms", "ms"), ("step p50", "step_ms_p50", "ms"),
         ("step p95", "step_ms_p95", "ms"), ("  act", "act_ms", "ms"), ("  settle", "settle_ms", "ms"),
         ("  hierarchy", "hierarchy_ms", "ms"), ("  screencap", "screencap_ms", "ms"),
         ("  settle beyond its dump", "settle_wait_ms", "ms"), ("dumps per step p50", "dumps_per_step", ""), ("step / floor", "step_vs_floor_ratio", "×"),
         ("episode p50, settle detection", "episode_s_settle", "s"), ("episode p50, fixed 1.0 s", "episode_s_fixed", "s"),
         ("episode p50, AndroidWorld rule", "episode_s_androidworld", "s"),
         ("episode p50, no wait at all (fixed run less its sleeps)", "episode_s_zero_wait", "s"),
         ("settle / fixed", "settle_vs_fixed_ratio", "×"),
         ("no wait at all / fixed (the lowest any rule can reach)", "zero_wait_vs_fixed_ratio", "×"),
         ("step loop p50, settle / fixed", "loop_settle_vs_fixed_ratio", "×"),
         ("setup, reads and teardown p50 (settle run)", "overhead_s_settle", "s"), ("settle wait / fixed sleep", "settle_wait_vs_fixed_sleep", "×"), ("settle / AndroidWorld", "settle_vs_androidworld_ratio", "×"),
         ("success, settle", "success_settle", ""), ("success, fixed", "success_fixed", ""),
         ("success, AndroidWorld", "success_androidworld", "")]


def bench_device(
    device: str = typer.Option("vdevice", "--device", metavar="SERIAL|vdevice",
                               help="A phone's serial, or 'vdevice' (a virtual phone on a private adb server)."),
    timing: str = typer.Option("realistic", "--timing", help="Virtual phone cost preset: realistic or fast."),
    limit: int = typer.Option(0, "--limit", min=0, help="Run only the first N real59 templates (0 = all 59)."),
    rules: str = typer.Option("settle,fixed,androidworld", "--rules",
                              help="Which waits to run episodes with (comma separated)."),
    pixels: bool = typer.Option(True, "--pixels/--no-pixels",
                                help="Capture the screen every step, as for a policy that reads pixels."),
    as_json: bool = typer.Option(True, "--json/--no-json", help="Print one JSON object (--no-json: a table)."),
) -> None:
    """Device step cost and real59 oracle episodes: settle detection vs a fixed 1 s sleep vs AndroidWorld."""
    if timing not in ("fast", "realistic"):
        raise typer.BadParameter(f"unknown timing {timing!r}; choose realistic or fast")
    try:
        res = run(device=device, timing=timing, limit=limit or None,
                  rules=tuple(r.strip() for r in rules.split(",") if r.strip()), pixels=pixels)
    except ValueError as e:
        raise typer.BadParameter(str(e)) from None
    if as_json:
        typer.echo(json.dumps(res))
        return
    from rich.console import Console
    from rich.table import Table

    t = Table(title=f"s2r bench device: {res['device']}"
                    + (f" (timing {res['timing']})" if res.get("timing") else "") + f", {res['templates']} templates")
    t.add_column("figure")
    t.add_column("measured")
    for label, key, unit in _ROWS:
        v = res.get(key)
        t.add_row(label, "—" if v is None else f"{v:g} {unit}".rstrip())
    Console().print(t)
    typer.echo(json.dumps(res, indent=2))
