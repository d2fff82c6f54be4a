"""``s2r run``: single-backend evaluation runs into a resumable run directory."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.table import Table

from s2r.commands import flavor_option, max_temp_option, min_battery_option


def register(app: typer.Typer) -> None:
    @app.command("run")
    def run_cmd(
        out: Path = typer.Option(..., "--out", help="Run directory (created; resumable)."),
        policy: list[str] = typer.Option(["oracle"], "--policy", help="NAME=SPEC or SPEC (oracle, random[:SEED], micro:PATH)."),
        sim: bool = typer.Option(False, "--sim", help="Run on simulated phones."),
        device: str = typer.Option(None, "--device", help="Run on devices: all | SERIAL[,SERIAL] | vdevice:N."),
        flavor: str = typer.Option("sim", help="Sim flavor: sim, aosp or google.", callback=flavor_option),
        profile: str = typer.Option("default", help="Sim device profile."),
        split: str = typer.Option("real59", help="Task split."),
        tasks: str = typer.Option(None, help="Comma-separated template ids (default: the whole split)."),
        seeds: int = typer.Option(1, help="Instances per template (seeds 0..N-1)."),
        repeats: int = typer.Option(1, help="Episodes per (policy, instance, backend)."),
        workers: int = typer.Option(2, help="Episodes in parallel."),
        resume: bool = typer.Option(False, "--resume", help="Continue the run in OUT without duplicates."),
        limit: int = typer.Option(0, help="Only the first N templates (quick runs)."),
        test_recipient: str = typer.Option(None, "--test-recipient", metavar="NUMBER",
                                           help="A phone number you own: tasks that send an SMS (or call) contact "
                                                "only it; on a real phone such tasks are refused without it."),
        destructive: bool = typer.Option(False, "--destructive",
                                         help="Allow resets that wipe phone data (pm clear, shared storage). "
                                              "Dedicated test phones only; off unless given."),
        vdevice_android: str = typer.Option(None, "--vdevice-android", metavar="11,14,15",
                                            help="Android releases of the virtual phones (vdevice:N), spread over "
                                                 "the farm in turn (default 14)."),
        vdevice_family: str = typer.Option(None, "--vdevice-family", metavar="aosp,google",
                                           help="Phone families of the virtual phones (vdevice:N), spread over "
                                                "the farm in turn: aosp (the AOSP apps), google (a Pixel's apps). "
                                                "Default: the vdevice spec's flavor's."),
        vdevice_permissive: bool = typer.Option(False, "--vdevice-permissive",
                                                help="Virtual phones accept every write, like a rooted emulator "
                                                     "(default: stock, unrooted phones)."),
        grant_appops: bool = typer.Option(False, "--grant-appops",
                                          help="Let setup lift the WRITE_SMS app-op for the shell (restored at "
                                               "close). Implied for s2r's own virtual phones; never assumed on "
                                               "a person's phone."),
        wait_devices: float = typer.Option(30.0, "--wait-devices", metavar="SECONDS",
                                           help="How long to wait for a phone to be attached (--device all|SERIALS)."),
        max_policy_outages: int = typer.Option(5, "--max-policy-outages", min=0, metavar="N",
                                               help="Stop the run (exit 3, resumable) after N episodes in a row "
                                                    "without an answer from a policy's model server (0: never)."),
        min_battery: float = min_battery_option(),
        max_temp: float = max_temp_option(),
        ray: str = typer.Option(None, "--ray", metavar="ADDRESS|auto|local:N",
                                help="Run on a Ray cluster (pip install 's2r[ray]'): HEAD:PORT, auto, or local:N "
                                     "for a throwaway N-node cluster on 127.0.0.1 (each node with its own "
                                     "virtual phones for --device vdevice:K)."),
        record: list[str] = typer.Option([], "--record", metavar="video",
                                         help="Keep more of each episode in its trace: video (a phone's screen "
                                              "recorded with screenrecord, pulled and removed from the phone; a "
                                              "sim episode's frames at their timing)."),
    ) -> None:
        """Run policies on one backend and write episodes.jsonl + traces."""
        from transfer.runconfig import RunConfig
        from transfer.session import Session

        if not sim and not device:
            raise typer.BadParameter("choose a backend: --sim or --device SPEC")
        dev_opts = device_run_options(vdevice_android, vdevice_permissive, grant_appops, wait_devices,
                                      vdevice_family=vdevice_family, min_battery=min_battery, max_temp=max_temp)
        preflight_or_exit(policy)
        sess = _create_or_exit(lambda: Session.create(
            out=out, policies=policy, split=split, tasks=tasks, seeds=seeds, repeats=repeats, sim=sim, flavor=flavor,
            profile=profile, device=device, workers=workers, resume=resume, limit=limit,
            test_recipient=test_recipient, destructive=destructive, device_run=dev_opts, ray=ray,
            run_config=RunConfig(max_policy_outages=max_policy_outages, record=record_kinds(record))))
        t0 = time.time()
        stopped = None
        try:
            stopped = run_until_outage(sess)
        except KeyboardInterrupt:
            Console().print(f"[yellow]interrupted[/]: finished episodes are in {out}; rerun with --resume")
            raise typer.Exit(130)
        finally:
            reports = sess.close()
        _summary(sess.rundir.records(), time.time() - t0, out)
        print_phone_reports(reports, sess.rundir.records())
        print_video_notes(sess.rundir.records())
        if stopped is not None:
            Console(stderr=True).print(f"[red]run stopped[/]: {stopped}", soft_wrap=True)
            raise typer.Exit(3)


def preflight_or_exit(policies: list[str]) -> dict[str, str]:
    """Parse and preflight every ``--policy`` before anything is created: a bad spec, a server
    that is down or a checkpoint that does not load prints one line and exits 2, and the run
    directory is not touched."""
    from transfer.policies.preflight import PreflightError, check_spec, preflight_all
    from transfer.session import parse_policies

    specs = parse_policies(policies)
    for spec in specs.values():
        try:
            check_spec(spec)
        except ValueError as e:
            Console(stderr=True).print(f"[red]error[/]: bad --policy {spec!r}: {e}", soft_wrap=True)
            raise typer.Exit(2) from None
    try:
        return preflight_all(specs)
    except (PreflightError, ValueError) as e:
        Console(stderr=True).print(f"[red]error[/]: policy preflight failed: {e}", soft_wrap=True)
        raise typer.Exit(2) from None


def run_until_outage(sess: Any) -> Any:
    """Run the session; returns what stopped it early, or None: a :class:`PolicyServerDown` (after
    its run config's ``max_policy_outages`` outage episodes in a row), or on
    a cluster (``--ray``) the one-line :class:`NoUsableHosts` of a run whose hosts are all gone
    (both exit 3; the run directory is kept for ``--resume``)."""
    from transfer.distributed.dispatcher import NoUsableHosts
    from transfer.runner import PolicyServerDown

    try:
        sess.run()
    except (PolicyServerDown, NoUsableHosts) as e:
        return e
    return None


def latest_records(recs: list) -> list:
    """One record per episode slot: a rerun (``--resume``) supersedes an infra error of the same slot."""
    by: dict[str, Any] = {}
    for r in recs:
        old = by.get(r.episode_id)
        if old is None or (r.counted, r.finished_at) >= (old.counted, old.finished_at):
            by[r.episode_id] = r
    return list(by.values())


def device_run_options(vdevice_android: str | None, vdevice_permissive: bool, grant_appops: bool,
                       wait_devices: float, vdevice_family: str | None = None, min_battery: float = 20.0,
                       max_temp: float = 45.0) -> Any:
    """The device-side options of ``run``/``paired``, validated (a bad value is a usage error)."""
    from s2r.commands.vdevice import parse_android_versions, parse_families
    from transfer.session import DeviceRunOptions

    try:
        versions = parse_android_versions(vdevice_android) if vdevice_android else []
        families = parse_families(vdevice_family) if vdevice_family is not None else []
        return DeviceRunOptions(vdevice_android=versions, vdevice_family=families,
                                vdevice_permissive=vdevice_permissive,
                                grant_appops=grant_appops, wait_devices=wait_devices,
                                min_battery=min_battery, max_temp=max_temp)
    except ValueError as e:
        raise typer.BadParameter(str(e)) from e


def record_kinds(values: list[str]) -> tuple[str, ...]:
    """``--record`` values (repeatable or comma-separated) → ``RunConfig.record``; a usage error
    names what is accepted."""
    kinds = tuple(dict.fromkeys(k.strip() for v in values for k in v.split(",") if k.strip()))
    bad = [k for k in kinds if k != "video"]
    if bad:
        raise typer.BadParameter(f"--record {', '.join(bad)}: only 'video' is recorded")
    return kinds


def print_video_notes(recs: list) -> None:
    """Once per phone, not per episode: a phone that recorded no video and why; and any recording
    a phone still holds (the recorder removes each and lists again)."""
    seen: dict[tuple[str, str], int] = {}
    for r in latest_records(recs):
        v = getattr(r, "video", None)
        if isinstance(v, dict) and v.get("none"):
            key = (r.device_serial or r.backend, str(v["none"]))
            seen[key] = seen.get(key, 0) + 1
        if isinstance(v, dict) and v.get("left_on_phone"):
            Console().print(f"[red]recording left on {r.device_serial}[/]: {', '.join(v['left_on_phone'])}")
    for (who, why), n in seen.items():
        Console().print(f"[yellow]no video[/] on {who}: {why} ({n} episode{'s' * (n != 1)} ran without it)",
                        soft_wrap=True)


def _create_or_exit(make: Callable[[], Any]) -> Any:
    """Build the session; a farm with no usable phone is the user's to fix: print why, exit 2."""
    from transfer.session import NoUsableDevices

    try:
        return make()
    except NoUsableDevices as e:
        Console(stderr=True).print(f"[red]error[/]: {e}")
        raise typer.Exit(2) from None


def print_phone_reports(reports: list[dict[str, Any]], recs: list) -> None:
    """After a device run: what teardowns could not undo, and each phone's end-of-run audit."""
    if not reports:
        return
    console = Console()
    left_eps = [r for r in recs if getattr(r, "left_on_phone", None)]
    for r in left_eps[:10]:
        console.print(f"[yellow]left on {r.device_serial}[/] after {r.episode_id}: " + "; ".join(r.left_on_phone)[:300])
    if len(left_eps) > 10:
        console.print(f"[yellow]… {len(left_eps) - 10} more episodes left something (see episodes.jsonl)[/]")
    for rep in reports:
        audit = rep.get("audit") or {}
        bad = bool(audit.get("leftovers") or audit.get("changed") or rep.get("left"))
        console.print(("[red]" if bad else "[green]") + "audit[/] " + rep.get("audit_summary", ""))
        for what in ("leftovers", "changed"):
            for line in (audit.get(what) or [])[:5]:
                console.print(f"  {what}: {line}")
        for line in (rep.get("left") or [])[:5]:
            console.print(f"  not undone: {line}")


def _summary(recs: list, elapsed: float, out: Path) -> None:
    """Print the per-(policy, backend, target) table of a finished run.

    On a terminal the table fits the window, as rich lays it out. Anywhere else — a CI log,
    ``> run.log``, a farm's captured output — rich would assume 80 columns and cut every
    header and cell to "poli…"; there the table is printed at its natural width instead, so
    the file keeps every column whole.
    """
    import io

    from rich.cells import cell_len

    by: dict[tuple[str, str, str], list] = {}
    for r in latest_records(recs):
        by.setdefault((r.policy, r.backend, r.target), []).append(r)
    title = f"run summary ({elapsed:.0f} s) — {out}"
    t = Table(title=title)
    for c in ("policy", "backend", "target", "episodes", "SR", "PR", "infra err", "policy-server outages",
              "undetermined", "unsupported", "mean steps"):
        t.add_column(c)
    for (p, b, tg), rs in sorted(by.items()):
        counted = [r for r in rs if r.counted]
        sr = sum(bool(r.success) for r in counted) / len(counted) if counted else float("nan")
        pr = sum(r.progress for r in counted) / len(counted) if counted else float("nan")
        t.add_row(p, b, tg, str(len(rs)), f"{sr:.1%}", f"{pr:.2f}", str(sum(r.error_kind == 'infra' and not r.policy_server_outage for r in rs)),
                  str(sum(r.policy_server_outage for r in rs)),
                  str(sum(r.undetermined for r in rs)), str(sum(r.error_kind == "unsupported" for r in rs)),
                  f"{sum(r.steps for r in rs) / max(1, len(rs)):.1f}")
    console = Console()
    if not console.is_terminal:
        t.min_width = cell_len(title)  # a long run path stays on the title's one line
        natural = Console(file=io.StringIO(), width=1_000_000).measure(t).maximum
        console = Console(width=max(80, natural))
    console.print(t)
