"""``s2r devices``: the phones the adb server sees, each with its preflight status."""

from __future__ import annotations

import json

import typer


def register(app: typer.Typer) -> None:
    @app.command()
    def devices(
        as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
        serial: list[str] = typer.Option(None, "--serial", "-s", help="Only these serials (repeatable)."),
        no_probe: bool = typer.Option(False, "--no-probe", help="Skip the input-injection and capability probes."),
    ) -> None:
        """List attached phones (USB and TCP) with geometry, input, IME, lock status and capabilities
        (what the shell user may do: SMS, calendar, call log, service commands, text routes)."""
        from concurrent.futures import ThreadPoolExecutor

        from device.adb import client, ensure_server, server_addr
        from device.adbshell import Shell
        from device.preflight import Preflight, run_preflight

        try:
            ensure_server()
            c = client()
            infos = c.list(extended=True)
        except Exception as e:  # noqa: BLE001
            host, port = server_addr()
            typer.echo(f"cannot reach the adb server at {host}:{port}: {e}", err=True)
            raise typer.Exit(2) from e
        if serial:
            infos = [i for i in infos if i.serial in set(serial)]

        apps: dict[str, dict[str, object]] = {}

        def one(info: object) -> Preflight:
            s = getattr(info, "serial")
            state = getattr(info, "state")
            if state != "device":
                return Preflight(serial=s, state=state, problems=[f"adb state is {state}"])
            try:
                shell = Shell(c, s)
                pf = run_preflight(shell, probe_input=not no_probe, capabilities=not no_probe)
            except Exception as e:  # noqa: BLE001
                return Preflight(serial=s, state=state, problems=[f"{type(e).__name__}: {e}"[:200]])
            try:  # which package answers each app id, its version and the family s2r reads it by
                from device.appfamilies import detect_apps
                from device.input import InputDriver

                inp = InputDriver(shell, family=pf.family, sdk=pf.sdk)
                apps[s] = detect_apps(shell, inp.resolve_app, manufacturer=pf.manufacturer, flavor=pf.flavor,
                                      virtual=pf.virtual)
            except Exception as e:  # noqa: BLE001 - the preflight stands; say why the apps are unknown
                pf.warnings.append(f"could not read the phone's apps: {type(e).__name__}: {e}"[:200])
            return pf

        with ThreadPoolExecutor(max_workers=max(1, min(8, len(infos)))) as pool:
            results = list(pool.map(one, infos))
        if as_json:
            typer.echo(json.dumps([{**r.model_dump(mode="json"), "ok": r.ok, "display_size": r.display_size,
                                    "apps": ({a: x.model_dump(mode="json") for a, x in apps[r.serial].items()}
                                             if r.serial in apps else None)}
                                   for r in results], indent=2, ensure_ascii=False))
            raise typer.Exit(0 if all(r.ok for r in results) else 1)
        from rich.console import Console
        from rich.table import Table

        t = Table(title=f"phones on the adb server {':'.join(map(str, server_addr()))}")
        for col in ("serial", "state", "model", "android", "screen", "input", "lock", "ime", "capabilities",
                    "app families", "status"):
            t.add_column(col)

        def families(serial: str) -> str:
            by: dict[str, list[str]] = {}
            for a, x in (apps.get(serial) or {}).items():
                by.setdefault(x.family or "missing", []).append(a)
            return "\n".join(f"{f}: {', '.join(v)}" for f, v in sorted(by.items())) or "?"

        for r in results:
            size = "x".join(map(str, r.display_size)) if r.display_size else "?"
            t.add_row(
                r.serial, r.state or "absent",
                f"{r.manufacturer or '?'} {r.model or '?'}" + (" [cyan](virtual)[/]" if r.virtual else ""),
                f"{r.android_version or '?'} (SDK {r.sdk or '?'})",
                f"{size} {r.density or '?'}dpi r{r.rotation}",
                {True: "[green]ok[/]", False: "[red]refused[/]", None: "?"}[r.input_injection],
                {True: "[red]locked[/]", False: "[green]open[/]", None: "?"}[r.keyguard],
                (r.adb_ime or r.ime_current or "?").split("/")[-1],
                r.capabilities.summary() if r.capabilities else "-",
                families(r.serial),
                "[green]ready[/]" if r.ok else "[red]" + "; ".join(r.problems)[:80] + "[/]",
            )
        console = Console()
        console.print(t)
        if any(r.capabilities for r in results):
            console.print("capabilities: sms w=writable grant=needs --grant-appops ro=read only · cal local=s2r may "
                          "create its LOCAL calendar (+synced: an account calendar, never written) · call r/w · "
                          "svc: service commands present · text: routes in the order tried")
        if not results:
            from device.farm import NO_PHONE_FIX

            console.print(f"no phones attached. {NO_PHONE_FIX}")
        else:
            from device.farm import STATE_FIXES

            for r in results:
                if r.state in STATE_FIXES and r.state != "device":
                    console.print(f"{r.serial} is {r.state}: {STATE_FIXES[r.state]}")
        raise typer.Exit(0 if all(r.ok for r in results) else 1)
