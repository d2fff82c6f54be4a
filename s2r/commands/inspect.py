"""``s2r inspect FILE``: show what s2r's device readers understand from a saved command output.

Why: when a phone misbehaves, the first question is "what did we read?". Saving the output
of ``adb shell uiautomator dump``, ``dumpsys window``, ``settings list global`` … and running
``s2r inspect`` on it runs exactly the parser the device layer uses and prints the result.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer

_KIND_HELP = ("hierarchy|content|settings|dumpsys-window|dumpsys-activity|dumpsys-display|dumpsys-alarm|"
              "dumpsys-input|dumpsys-power|wm|getprop (guessed from the content when absent)")
_MAX_BYTES = 64 * 1024 * 1024


def _fail(msg: str) -> None:
    typer.echo(f"s2r inspect: {msg}", err=True)
    raise typer.Exit(2)


def _read_text(path: Path) -> str:
    try:
        if not path.is_file():
            _fail(f"{path}: no such file")
        if path.stat().st_size > _MAX_BYTES:
            _fail(f"{path}: larger than {_MAX_BYTES // (1024 * 1024)} MiB; not a command output")
        data = path.read_bytes()
    except OSError as e:
        _fail(f"{path}: cannot read ({e.strerror or e})")
    if not data.strip():
        _fail(f"{path}: the file is empty")
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):  # PowerShell's `>` writes UTF-16
        return data.decode("utf-16")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        _fail(f"{path}: not UTF-8 text (binary file?)")
    if "\x00" in text:
        _fail(f"{path}: contains NUL bytes; not a text capture")
    return text


def _flags(e: Any) -> str:
    names = ("clickable", "long_clickable", "editable", "checkable", "checked", "scrollable", "focused", "selected",
             "password")
    out = [n.replace("_", "-") for n in names if getattr(e, n)]
    if not e.enabled:
        out.append("disabled")
    if not e.visible:
        out.append("invisible")
    return " ".join(out)


def _render(kind: str, result: Any, console: Any) -> None:
    """Print a parsed result as tables. Every value from the capture goes through ``Text`` so
    that app text such as ``[/b]`` is shown, not taken for rich markup."""
    from rich.table import Table as RichTable
    from rich.text import Text

    class Table(RichTable):
        def add_row(self, *cells: Any, **kw: Any) -> None:
            super().add_row(*(Text(c) if isinstance(c, str) else c for c in cells), **kw)

    def kv(title: str, pairs: list[tuple[str, Any]]) -> None:
        t = Table(title=title, show_header=False)
        t.add_column("field", style="bold")
        t.add_column("value")
        for k, v in pairs:
            t.add_row(k, "—" if v is None else str(v))
        console.print(t)

    if kind == "hierarchy":
        h = result
        t = Table(title=f"{len(h.elements)} elements (of {h.node_count} nodes; {h.dropped} dropped) · "
                        f"screen {h.screen[0] if h.screen else '?'}×{h.screen[1] if h.screen else '?'}"
                        f"{' (inferred)' if h.screen_inferred else ''} · rotation {h.rotation}")
        for col in ("#", "class", "text / desc", "resource-id", "bounds", "flags"):
            t.add_column(col, overflow="fold")
        for e in h.elements:
            label = e.text or (f"[{e.content_desc}]" if e.content_desc else "") or (f"hint: {e.hint}" if e.hint else "")
            b = e.bounds
            t.add_row(str(e.index), e.class_name.rsplit(".", 1)[-1], label, e.resource_id.rsplit("/", 1)[-1],
                      f"[{b.left},{b.top}][{b.right},{b.bottom}]", _flags(e))
        console.print(t)
        for w in h.warnings:
            console.print(Text("warning: ", style="yellow") + Text(w))
        if h.blank:
            console.print("[yellow]blank dump: a caller should retry[/]")
    elif kind == "content":
        if not result:
            console.print("no rows (No result found.)")
            return
        cols: list[str] = []
        for r in result:
            cols.extend(c for c in r if c not in cols)
        t = Table(title=f"{len(result)} rows")
        for c in cols:
            t.add_column(c, overflow="fold")
        for r in result:
            t.add_row(*("NULL" if r.get(c) is None else str(r.get(c, "")) for c in cols))
        console.print(t)
    elif kind in ("settings", "getprop"):
        t = Table(title=f"{len(result)} {'settings' if kind == 'settings' else 'properties'}")
        t.add_column("key", style="bold")
        t.add_column("value", overflow="fold")
        for k, v in result.items():
            t.add_row(k, v)
        console.print(t)
        if kind == "getprop":
            from device.parsers import device_info_from_props

            kv("device", list(device_info_from_props(result).model_dump().items()))
    elif kind == "dumpsys-window":
        from device.parsers import foreground_state

        fg = foreground_state(result)
        kv("dumpsys window", [
            ("focused window", result.focused_window.title if result.focused_window else None),
            ("focused app", f"{result.focused_app_package}/{result.focused_app_activity}"
             if result.focused_app_package else None),
            ("foreground", f"{fg.package} ({fg.app or 'unknown app'})" if fg.package else None),
            ("natural size", result.init_size), ("current size", result.cur_size), ("app area", result.app_size),
            ("density", result.density), ("rotation", result.rotation),
            ("status bar", result.status_bar), ("navigation bar", result.navigation_bar),
            ("IME visible", result.ime_visible),
        ])
    elif kind == "dumpsys-activity":
        kv("dumpsys activity", [("resumed package", result.resumed_package),
                                ("resumed activity", result.resumed_activity), ("read from", result.source),
                                ("task stack", "\n".join(result.activities) or None)])
    elif kind == "dumpsys-display":
        kv("dumpsys display", [("screen state", result.screen_state), ("screen on", result.screen_on),
                               ("physical size", result.physical_size), ("logical size", result.logical_size),
                               ("app size", result.app_size), ("density", result.density),
                               ("rotation", result.rotation), ("viewports", len(result.viewports))])
    elif kind == "dumpsys-input":
        t = Table(title="viewports")
        for c in ("kind", "display", "orientation", "logical frame", "device size", "active"):
            t.add_column(c)
        for v in result.viewports:
            t.add_row(str(v.kind), str(v.display_id), str(v.orientation), str(v.logical_frame), str(v.device_size),
                      str(v.active))
        console.print(t)
        t = Table(title=f"{len(result.devices)} input devices")
        for c in ("id", "name", "classes", "path"):
            t.add_column(c, overflow="fold")
        for d in result.devices:
            t.add_row(str(d.id), d.name, " | ".join(d.classes), d.path or "")
        console.print(t)
    elif kind == "dumpsys-alarm":
        kv("dumpsys alarm", [("phone clock", result.now), ("pending alarms", result.pending_alarm_count)]
           + [(f"next alarm clock (user {n.user})", n.time or n.time_ms) for n in result.next_alarm_clocks])
        t = Table(title="alarms with an alarm-clock record")
        for c in ("package", "trigger time", "tag"):
            t.add_column(c, overflow="fold")
        for a in result.alarm_clocks:
            t.add_row(a.package or "", str(a.trigger_time), a.tag or "")
        console.print(t)
    elif kind == "dumpsys-power":
        kv("dumpsys power", [("wakefulness", result.wakefulness), ("display power", result.display_power),
                             ("screen on", result.screen_on), ("plugged", result.plugged),
                             ("battery level", result.battery_level)])
    elif kind == "wm":
        kv("wm", [("physical size", result.physical_size), ("override size", result.override_size),
                  ("effective size", result.size), ("physical density", result.physical_density),
                  ("override density", result.override_density), ("effective density", result.density)])


def _inspect_app(file: Path, text: str, *, family: str | None, manufacturer: str | None, as_json: bool) -> None:
    """``s2r inspect --app``: one JSON object (or tables) of what the app layer reads on the dump."""
    from device.apps import drivers, read_screen
    from device.parsers import ParseError, detect_kind
    from device.parsers.hierarchy import parse_hierarchy

    if detect_kind(text) not in (None, "hierarchy"):
        _fail(f"{file}: --app reads a uiautomator hierarchy dump; this looks like {detect_kind(text)}")
    try:
        h = parse_hierarchy(text)
    except ParseError as e:
        _fail(f"{file}: not readable as a hierarchy dump: {e}")
    if family is not None:
        known = sorted({f for d in drivers().values() for f in d.spec.families})
        if family not in known:
            _fail(f"unknown --family {family!r}; known: {', '.join(known)}")
    reading = read_screen(h.elements, family=family, manufacturer=manufacturer)
    out = reading.model_dump(mode="json")
    for c in out["controls"]:
        c.pop("index", None)
        if c.get("checked") is None:
            c.pop("checked", None)
    if as_json:
        typer.echo(json.dumps(out, ensure_ascii=False, indent=2))
        return
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    console = Console()
    head = Text(str(file), style="bold") + Text(
        f" — {reading.app or 'unknown app'} · {reading.package or '?'} · family {reading.family or '?'} · "
        f"screen {reading.screen or 'not recognised'}")
    console.print(head)
    for p in reading.problems:
        console.print(Text(p, style="yellow"))
    t = Table(title=f"{len(reading.controls)} controls by role")
    for c in ("role", "resource id", "text", "description", "bounds"):
        t.add_column(c, overflow="fold")
    for c in reading.controls:
        t.add_row(*(Text(x) for x in (c.role, c.resource_id, c.text, c.content_desc, str(c.bounds))))
    console.print(t)
    if reading.visible:
        console.print(Text("what a person reads here", style="bold"))
        console.print(Text(json.dumps(reading.visible, ensure_ascii=False, indent=2)))


def register(app: typer.Typer) -> None:
    @app.command()
    def inspect(
        file: Path = typer.Argument(..., help="A saved command output (uiautomator dump, dumpsys, settings, …)."),
        kind: str = typer.Option(None, "--kind", "-k", help=_KIND_HELP),
        as_json: bool = typer.Option(False, "--json", help="Print JSON instead of tables."),
        screen: str = typer.Option(None, "--screen", help="Screen WxH for a hierarchy (default: from the dump)."),
        app: bool = typer.Option(False, "--app", help="Read a saved hierarchy dump through the app UI layer: "
                                                      "which app and family, the screen, its controls by role "
                                                      "and what the probes would read."),
        family: str = typer.Option(None, "--family", help="With --app: read as this family "
                                                          "(default: from the dump's package)."),
        manufacturer: str = typer.Option(None, "--manufacturer",
                                         help="With --app: the phone's maker, for a package several families "
                                              "ship (com.android.deskclock on AOSP and MIUI)."),
    ) -> None:
        """Parse a saved Android command output the way the device readers do and show the result."""
        from device.parsers import KINDS, ParseError, detect_kind, parse_as, to_jsonable

        text = _read_text(file)
        if app:
            _inspect_app(file, text, family=family, manufacturer=manufacturer, as_json=as_json)
            return
        if family or manufacturer:
            _fail("--family and --manufacturer apply to --app only")
        if kind is not None and kind not in KINDS:
            _fail(f"unknown --kind {kind!r}; expected one of: {', '.join(KINDS)}")
        detected = kind or detect_kind(text)
        if detected is None:
            first = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
            _fail(f"{file}: cannot tell which command printed this (first line: {first[:80]!r}); "
                  f"pass --kind ({', '.join(KINDS)})")
        kwargs: dict[str, Any] = {}
        if screen:
            if detected != "hierarchy":
                _fail("--screen applies to --kind hierarchy only")
            try:
                w, h = (int(x) for x in screen.lower().split("x"))
                if w <= 0 or h <= 0:
                    raise ValueError
            except ValueError:
                _fail(f"--screen must look like 1080x2400, got {screen!r}")
            kwargs["screen"] = (w, h)
        try:
            result = parse_as(detected, text, **kwargs)
        except ParseError as e:
            _fail(f"{file}: not readable as {detected}: {e}")
        if as_json:
            typer.echo(json.dumps({"file": str(file), "kind": detected, "guessed": kind is None,
                                   "result": to_jsonable(result)}, ensure_ascii=False, indent=2))
            return
        from rich.console import Console

        console = Console()
        from rich.text import Text

        console.print(Text(str(file), style="bold") + Text(f" — {detected}{' (guessed)' if kind is None else ''}"))
        _render(detected, result, console)
