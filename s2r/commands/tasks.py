"""``s2r tasks``: list, show and self-check the task templates."""

from __future__ import annotations

import json

import typer


def register(app: typer.Typer) -> None:
    tasks_app = typer.Typer(help="Task templates (splits real59, train, test) and their instances.",
                            no_args_is_help=True)

    def _fail(msg: str) -> None:
        from rich.console import Console

        Console(stderr=True).print(f"[red]error:[/] {msg}", markup=True, highlight=False)
        raise typer.Exit(2)

    @tasks_app.command("list")
    def list_(
        split: str = typer.Option(None, "--split", help="real59, train or test (default: all)."),
        as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
    ) -> None:
        """List templates: id, apps, difficulty, kind, golden steps."""
        from transfer.tasks import TemplateError, load_templates

        try:
            templates = load_templates(split)
        except TemplateError as e:
            _fail(str(e))
            return
        rows = [{"id": t.id, "split": t.split, "apps": t.apps, "difficulty": t.difficulty, "kind": t.kind,
                 "golden_steps": t.golden_steps, "max_steps": t.max_steps} for t in templates]
        if as_json:
            typer.echo(json.dumps(rows, indent=2, ensure_ascii=False))
            return
        from rich.console import Console
        from rich.table import Table

        table = Table(title=f"s2r tasks ({split or 'all splits'}: {len(rows)} templates)")
        cols = ("id", "apps", "difficulty", "kind", "golden steps") if split else \
            ("id", "split", "apps", "difficulty", "kind", "golden steps")
        for col in cols:
            table.add_column(col, justify="right" if col == "golden steps" else "left",
                             overflow="fold" if col in ("id", "apps") else "ellipsis")
        for r in rows:
            cells = [r["id"], r["split"], ",".join(r["apps"]), r["difficulty"], r["kind"], str(r["golden_steps"])]
            table.add_row(*(cells if not split else cells[:1] + cells[2:]))
        console = Console()
        console.print(table)
        by_d: dict[str, int] = {}
        for r in rows:
            by_d[r["difficulty"]] = by_d.get(r["difficulty"], 0) + 1
        kinds = {k: sum(1 for r in rows if r["kind"] == k) for k in ("operate", "query")}
        console.print("difficulty: " + ", ".join(f"{d} {by_d[d]}" for d in sorted(by_d))
                      + f" · operate {kinds['operate']}, query {kinds['query']}")

    @tasks_app.command("show")
    def show(
        template_id: str = typer.Argument(..., help="Template id (see `s2r tasks list`)."),
        seed: int = typer.Option(0, "--seed", min=0, help="Seed of the sample instance."),
        test_recipient: str = typer.Option(None, "--test-recipient", help="Number that send-tasks text to."),
        as_json: bool = typer.Option(False, "--json", help="Print JSON (template + instance)."),
    ) -> None:
        """Show a template and one instance of it, with its setup, goals and answer sheet."""
        from transfer.tasks import TemplateError, get_template, make_context
        from transfer.tasks.params import ParamError

        try:
            t = get_template(template_id)
            ctx = make_context(test_recipient) if test_recipient else None
            inst = t.instantiate(seed, ctx)
        except (TemplateError, ParamError) as e:
            _fail(str(e))
            return
        if as_json:
            payload = {"template": t.model_dump(mode="json", by_alias=True, exclude_none=True),
                       "instance": inst.model_dump(mode="json", by_alias=True, exclude_none=True)}
            typer.echo(json.dumps(payload, indent=2, ensure_ascii=False))
            return
        from rich.console import Console
        from rich.panel import Panel
        from rich.syntax import Syntax

        console = Console()
        head = (f"[bold]{t.id}[/]  split={t.split}  apps={','.join(t.apps)}  {t.difficulty}  {t.kind}  "
                f"golden={t.golden_steps}  max={t.max_steps}")
        console.print(Panel(head + "\n\nphrasings:\n" + "\n".join(f"  • {p}" for p in t.instructions),
                            title="template", expand=False), highlight=False)
        console.print(f"[bold]instance[/] {inst.instance_id}: {inst.prompt()}", highlight=False)
        body = {"params": inst.params, "setup": inst.setup.model_dump(mode="json", exclude_defaults=True),
                "goals": [g.model_dump(mode="json", by_alias=True, exclude_none=True) for g in inst.goals],
                "expected_changes": inst.expected_changes, "needs": inst.needs}
        if inst.answer_sheet:
            body["answer_sheet"] = inst.answer_sheet.model_dump(mode="json", exclude_defaults=True)
        console.print(Syntax(json.dumps(body, indent=2, ensure_ascii=False), "json", word_wrap=True))

    @tasks_app.command("check")
    def check(
        split: str = typer.Option(None, "--split", help="real59, train or test (default: all)."),
        seeds: int = typer.Option(3, "--seeds", min=1, help="Seeds 0..N-1 per template."),
    ) -> None:
        """Self-check the judge on every template: the solved state passes, the start does not."""
        from actionmap.actions import Complete
        from transfer.tasks import TemplateError, judge, load_templates
        from transfer.tasks.solve import apply_patch, base_world, expected_after, oracle_final_action

        try:
            templates = load_templates(split)
        except TemplateError as e:
            _fail(str(e))
            return
        bad = []
        for t in templates:
            for s in range(seeds):
                inst = t.instantiate(s)
                before = apply_patch(base_world(), inst.setup)
                solved = judge(inst, before, expected_after(before, inst), oracle_final_action(inst, before))
                start = judge(inst, before, before, Complete())
                if not solved.success or solved.side_effects:
                    bad.append(f"{inst.instance_id}: solved state not judged a clean success")
                if inst.kind == "operate" and start.success is not False:
                    bad.append(f"{inst.instance_id}: untouched start judged {start.success}")
        for b in bad:
            typer.echo(b)
        typer.echo(f"{len(templates)} templates × {seeds} seeds: {'ok' if not bad else f'{len(bad)} problem(s)'}")
        raise typer.Exit(1 if bad else 0)

    app.add_typer(tasks_app, name="tasks")
