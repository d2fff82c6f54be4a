"""``s2r replay-diff RUN_DIR EPISODE_ID``: replay an episode on the sim and a phone, diff what a policy saw.

Why: a task that passes in the sim and fails on a phone is either a policy choosing
differently on the same screens or the phone showing something else. This tells which, and
at which step (see ``transfer/replay.py``).
"""

from __future__ import annotations

import json
from pathlib import Path

import typer


def register(app: typer.Typer) -> None:
    @app.command("replay-diff")
    def replay_diff_cmd(
        run_dir: Path = typer.Argument(..., help="Run directory holding episodes.jsonl and traces/."),
        episode_id: str = typer.Argument(..., help="The episode to replay (its episode_id)."),
        device: str = typer.Option("vdevice:1", help="SERIAL of a phone, or vdevice:1 for a virtual one."),
        flavor: str = typer.Option("aosp", help="Sim flavor to compare with (the phone's app structure)."),
        profile: str = typer.Option("pixel", help="Sim device profile to compare with (the phone's geometry)."),
        bounds: bool = typer.Option(True, "--bounds/--no-bounds",
                                    help="Compare element bounds too (off for a phone no sim profile matches)."),
        as_json: bool = typer.Option(False, "--json", help="One JSON object per step."),
    ) -> None:
        """Replay the episode's actions on the sim and on DEVICE from the same task instance; diff the elements."""
        from rich.console import Console
        from rich.markup import escape

        from sim.env import SimEnv
        from transfer.device_backends import DeviceBackends
        from transfer.replay import episode_actions, replay_diff
        from transfer.runner import EpisodeSpec
        from transfer.tasks.loader import get_template

        console = Console()
        try:
            rec, actions = episode_actions(run_dir, episode_id)
        except (OSError, KeyError, ValueError) as e:
            console.print(f"[red]error:[/] {e}")
            raise typer.Exit(2) from None
        inst = get_template(rec["task_id"]).instantiate(int(rec["seed"]))
        spec = EpisodeSpec(policy="replay", policy_spec="replay", task_id=inst.template_id, seed=inst.seed,
                           backend="device", target="replay", split=rec.get("split") or "real59")
        sim_env = SimEnv(profile, flavor=flavor, screenshots=False)  # type: ignore[arg-type]
        backends = DeviceBackends.from_spec(device)
        try:
            lease = backends.lease(spec)
            try:
                diffs = replay_diff(actions, inst, sim_env, lease.env, bounds=bounds)
            finally:
                lease.release(False)
        finally:
            backends.close()
        first = next((d.step for d in diffs if not d.same), None)
        if as_json:
            for d in diffs:
                typer.echo(json.dumps({**d.model_dump(mode="json"), "same": d.same}, ensure_ascii=False))
            return
        console.print(f"[bold]{rec['task_id']}[/] seed {inst.seed}: {len(actions)} recorded actions, "
                      f"sim {profile}/{flavor} vs {device}")
        for d in diffs:
            act = json.dumps({k: v for k, v in (d.action or {}).items() if v not in (None, False)}, ensure_ascii=False)
            mark = "[green]same[/]" if d.same else "[red]differs[/]"
            console.print(f"step {d.step:>2} {escape(act) if d.action else '(reset)'}: {mark}  "
                          f"elements sim {d.sim_elements} / device {d.device_elements}", highlight=False)
            if d.sim_foreground != d.device_foreground:
                console.print(f"    foreground: sim {d.sim_foreground} / device {d.device_foreground}", highlight=False)
            if d.sim_keyboard != d.device_keyboard:
                console.print(f"    keyboard: sim {d.sim_keyboard} / device {d.device_keyboard}", highlight=False)
            for line in d.only_sim[:12]:
                console.print(f"    [red]- sim   [/] {escape(line)}", highlight=False)
            for line in d.only_device[:12]:
                console.print(f"    [green]+ device[/] {escape(line)}", highlight=False)
        console.print("the observations never differ" if first is None else f"first difference after step {first}")
