"""``s2r paired`` and ``s2r demo``: paired sim/device evaluations and the transfer report."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import typer
from rich.console import Console

from s2r.commands import flavor_option, max_temp_option, min_battery_option


def _roles(policies: dict[str, str]) -> dict[str, str]:
    """Which named policy plays base / trained / oracle in the report."""
    names = list(policies)
    roles: dict[str, str] = {}
    for role in ("base", "trained", "oracle"):
        if role in policies:
            roles[f"{role}_policy"] = role
    if "oracle_policy" not in roles:
        for n, s in policies.items():
            if s == "oracle":
                roles["oracle_policy"] = n
    rest = [n for n in names if n not in roles.values()]
    if "base_policy" not in roles and rest:
        roles["base_policy"] = rest.pop(0)
    if "trained_policy" not in roles and rest:
        roles["trained_policy"] = rest.pop(0)
    return roles


def quick_tasks(split: str, n: int = 10) -> list[str]:
    """The ``n`` templates of ``split`` with the fewest expert steps (ties by id).

    A quick demo is bounded by its longest episodes — a policy that has not learned a task
    wanders until its step budget (2.5× the expert's steps + 5) runs out — so the shortest tasks
    keep it within minutes. The choice depends only on the task definitions, not on any policy.
    """
    from transfer.tasks.loader import load_templates

    return [t.id for t in sorted(load_templates(split), key=lambda t: (t.golden_steps, t.id))[:n]]


def run_paired(*, out: Path, policies: list[str], sim_flavor: str, sim_profile: str, device: str, split: str,
               tasks: str | None, seeds: int, repeats: int, workers: int, resume: bool, limit: int = 0,
               bootstrap: int = 2000, device_run: Any = None, max_policy_outages: int = 5,
               show_headline: bool = True, ray: str | None = None, record: list[str] | None = None) -> dict:
    from s2r.commands.run import _create_or_exit, preflight_or_exit, record_kinds, run_until_outage
    from transfer.report import headline, write_report
    from transfer.runconfig import RunConfig
    from transfer.session import Session, parse_policies

    pols = parse_policies(policies)
    preflight_or_exit(policies)  # before the run directory or any phone is touched
    sess = _create_or_exit(lambda: Session.create(
        out=out, policies=policies, split=split, tasks=tasks, seeds=seeds, repeats=repeats, sim=True,
        flavor=sim_flavor, profile=sim_profile, device=device, workers=workers, resume=resume, limit=limit,
        extra_config={"paired": True, **_roles(pols)}, device_run=device_run, ray=ray,
        run_config=RunConfig(max_policy_outages=max_policy_outages, record=record_kinds(record or []))))
    console = Console()
    t0 = time.time()
    try:
        stopped = run_until_outage(sess)
    except KeyboardInterrupt:
        console.print(f"[yellow]interrupted[/]: finished episodes are kept in {out}; rerun with --resume")
        raise typer.Exit(130)
    finally:
        reports = sess.close()
    from s2r.commands.run import print_phone_reports, print_video_notes

    print_phone_reports(reports, sess.rundir.records())
    print_video_notes(sess.rundir.records())
    if stopped is not None:
        Console(stderr=True).print(f"[red]run stopped[/]: {stopped}", soft_wrap=True)
        raise typer.Exit(3)
    paths = write_report(out, bootstrap=bootstrap)
    import json

    summary = json.loads(Path(paths.summary).read_text())
    if show_headline:
        print_plain(headline(summary))
        print_plain(f"report: {paths.html}   ({time.time() - t0:.0f} s)")
    return summary


def print_plain(text: str) -> None:
    """Print report text as it is: no rich markup (a policy named "[bold]" stays text) and
    no re-wrapping, so a log file keeps each line whole — the headline wraps itself at 78."""
    Console().print(text, markup=False, highlight=False, soft_wrap=True)


def register(app: typer.Typer) -> None:
    @app.command("paired")
    def paired(
        out: Path = typer.Option(..., "--out", help="Run directory (resumable)."),
        policy: list[str] = typer.Option(..., "--policy", help="NAME=SPEC, repeatable (base=..., trained=..., oracle=oracle)."),
        sim: bool = typer.Option(True, "--sim/--no-sim", help="Run on the simulator (always paired)."),
        flavor: str = typer.Option("sim", help="Sim flavor: sim, aosp or google.", callback=flavor_option),
        profile: str = typer.Option("default", help="Sim device profile."),
        device: str = typer.Option(..., "--device", help="all | SERIAL[,SERIAL] | vdevice:N."),
        split: str = typer.Option("real59"), tasks: str = typer.Option(None), seeds: int = typer.Option(1),
        repeats: int = typer.Option(1), workers: int = typer.Option(2), resume: bool = typer.Option(False, "--resume"),
        limit: int = typer.Option(0, help="Only the first N templates."),
        bootstrap: int = typer.Option(2000, help="Bootstrap replicates for the CIs."),
        vdevice_android: str = typer.Option(None, "--vdevice-android", metavar="11,14,15",
                                            help="Android releases of the virtual phones, spread over the farm."),
        vdevice_family: str = typer.Option(None, "--vdevice-family", metavar="aosp,google",
                                           help="Phone families of the virtual phones (aosp, google), spread over "
                                                "the farm."),
        vdevice_permissive: bool = typer.Option(False, "--vdevice-permissive",
                                                help="Virtual phones accept every write (rooted-emulator-like)."),
        grant_appops: bool = typer.Option(False, "--grant-appops",
                                          help="Let setup lift the WRITE_SMS app-op (restored at close); implied "
                                               "for s2r's own virtual phones."),
        wait_devices: float = typer.Option(30.0, "--wait-devices", metavar="SECONDS",
                                           help="How long to wait for a phone to be attached."),
        max_policy_outages: int = typer.Option(5, "--max-policy-outages", min=0, metavar="N",
                                               help="Stop (exit 3, resumable) after N episodes in a row without "
                                                    "an answer from a policy's model server (0: never)."),
        min_battery: float = min_battery_option(),
        max_temp: float = max_temp_option(),
        ray: str = typer.Option(None, "--ray", metavar="ADDRESS|auto|local:N",
                                help="Run on a Ray cluster (pip install 's2r[ray]'): HEAD:PORT, auto, or local:N "
                                     "for a throwaway N-node cluster on 127.0.0.1 (each node with its own "
                                     "virtual phones for --device vdevice:K)."),
        record: list[str] = typer.Option([], "--record", metavar="video",
                                         help="Keep more of each episode in its trace: video (a phone's screen "
                                              "recorded with screenrecord; a sim episode's frames at their "
                                              "timing). The report's step viewer plays them side by side."),
    ) -> None:
        """Run the same policies on the same task instances in the sim and on devices; write the transfer report."""
        from s2r.commands.run import device_run_options

        run_paired(out=out, policies=policy, sim_flavor=flavor, sim_profile=profile, device=device, split=split,
                   tasks=tasks, seeds=seeds, repeats=repeats, workers=workers, resume=resume, limit=limit,
                   bootstrap=bootstrap, max_policy_outages=max_policy_outages, ray=ray, record=record,
                   device_run=device_run_options(vdevice_android, vdevice_permissive, grant_appops, wait_devices,
                                                 vdevice_family=vdevice_family, min_battery=min_battery,
                                                 max_temp=max_temp))

    @app.command("demo")
    def demo(
        out: Path = typer.Option(Path("runs/demo"), "--out", help="Run directory."),
        quick: bool = typer.Option(False, "--quick", help="The 10 shortest tasks of each split (≈3 min)."),
        resume: bool = typer.Option(True, "--resume/--fresh", help="Continue a previous demo run in OUT."),
        workers: int = typer.Option(2, help="Sim episodes in flight."),
        phones: int = typer.Option(4, help="Virtual phones (each runs one device episode at a time; they take the "
                                               "families in turn)."),
        vdevice_family: str = typer.Option("aosp,google", "--vdevice-family", metavar="aosp,google",
                                           help="Phone families the virtual phones take in turn (AOSP's apps, "
                                                "a Pixel's Google apps): the report's per-family table compares them."),
    ) -> None:
        """The whole story with no phone and no GPU: base vs trained (and the oracle) on sim and a virtual phone."""
        import shutil

        from s2r.commands.run import device_run_options, preflight_or_exit

        device_run = device_run_options(None, False, False, 30.0, vdevice_family)
        t0 = time.time()
        # the bundled checkpoints must load before an old demo directory is wiped
        preflight_or_exit(DEMO_POLICIES)
        if not resume and out.exists():
            shutil.rmtree(out)
        Console().print("[bold]s2r demo[/]: micro policy [cyan]base[/] vs [cyan]trained[/] "
                        "(trained in the sim: oracle-demo cloning, then GRPO), with the oracle for attribution — "
                        "the reference study's two tables: the sim gain on the held-out test split, then real59 "
                        "in the simulator vs virtual Android phones over adb "
                        f"({', '.join(device_run.vdevice_family) or 'aosp'} families)", soft_wrap=True)
        resume = resume and out.exists()
        test = run_heldout_test(out / HELDOUT_DIR, quick=quick, workers=workers, resume=resume)
        real = run_paired(out=out, policies=DEMO_POLICIES, sim_flavor="sim",
                          # a device episode mostly waits on the phone (gestures, settling), so a few
                          # phones run side by side with the sim's own workers on two cores
                          sim_profile="default", device=f"vdevice:{max(1, phones)}", split="real59",
                          tasks=",".join(quick_tasks("real59")) if quick else None, seeds=1, repeats=1,
                          workers=workers, resume=resume, show_headline=False, device_run=device_run)
        print_demo_tables(test, real, out, time.time() - t0)


DEMO_POLICIES = ["base=micro:base", "trained=micro:trained", "oracle=oracle"]
HELDOUT_DIR = "heldout-test"
"""The demo's sim-only run on the ``test`` split, inside its run directory (``s2r report`` reads it)."""
HELDOUT_SEEDS = 2
"""Instances per test template; the same in ``--quick`` and in full, so one resumes the other."""


def run_heldout_test(out: Path, *, quick: bool, workers: int, resume: bool) -> dict:
    """The reference study's first table: base and trained in the simulator alone on the
    held-out ``test`` split (templates neither training stage saw), with its report written.

    ``--quick`` takes the 10 shortest test templates; the full demo all 21, each with
    :data:`HELDOUT_SEEDS` instances — about a minute of the demo's time on two cores.
    """
    from s2r.commands.run import _create_or_exit, run_until_outage
    from transfer.report import write_report
    from transfer.session import Session

    sess = _create_or_exit(lambda: Session.create(
        out=out, policies=DEMO_POLICIES[:2], split="test", tasks=",".join(quick_tasks("test")) if quick else None,
        seeds=HELDOUT_SEEDS, repeats=1, sim=True, flavor="sim", profile="default", device=None, workers=workers,
        resume=resume and out.exists(), extra_config={"base_policy": "base", "trained_policy": "trained"}))
    try:
        stopped = run_until_outage(sess)
    except KeyboardInterrupt:
        Console().print(f"[yellow]interrupted[/]: finished episodes are kept in {out}; rerun the demo to resume")
        raise typer.Exit(130)
    finally:
        sess.close()
    if stopped is not None:
        Console(stderr=True).print(f"[red]run stopped[/]: {stopped}", soft_wrap=True)
        raise typer.Exit(3)
    import json

    return json.loads(Path(write_report(out).summary).read_text())


def print_demo_tables(test: dict, real: dict, out: Path, elapsed: float) -> None:
    """Both tables of the reference study, one after the other, as plain whole lines."""
    from transfer.report import headline, sim_gain_lines

    lines = sim_gain_lines(test, what="held-out test tasks") or [
        f"No sim gain on the test split: {(test.get('sim_gain') or {}).get('reason', 'no episodes')}."]
    print_plain("\n".join([
        "", "1. Sim gain on the held-out test split (templates neither policy was trained on)", *lines,
        "", "2. Transfer on real59: simulator vs a virtual phone, the same task instances", headline(real),
        "", f"reports: {out / 'report.html'}  ·  test split: {out / HELDOUT_DIR / 'report.html'}   "
            f"({elapsed:.0f} s)"]))
