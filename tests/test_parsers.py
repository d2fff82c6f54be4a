"""Parsers of real Android command outputs (device/parsers): every fixture is recognised and parsed,
and ``s2r inspect`` shows what the device readers understand from a saved output.

Fixtures: the shared real-device corpus (verbatim captures from public repositories, see its
SOURCES.md) and ``tests/fixtures/android`` (hand-written samples of formats the corpus lacks,
see its README.md). Every fixture file must be recognised and parsed into something
meaningful; a new file whose name no parser claims fails :func:`test_every_fixture_parses`.
The hierarchy parser's tests are in ``test_parsers_hierarchy.py``, the state parsers' (settings,
provider rows, dumpsys, wm, getprop) in ``test_parsers_state.py``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from device.parsers import KINDS, detect_kind, parse_as, to_jsonable
from _android_fixtures import LOCAL, REAL, fixture_files, needs_real


# Which parser a fixture file belongs to, from its folder or name. A file matching none fails.
_PREFIXES = (
    ("content_query", "content"), ("settings_list", "settings"), ("dumpsys_window", "dumpsys-window"),
    ("dumpsys_activity", "dumpsys-activity"), ("dumpsys_display", "dumpsys-display"),
    ("dumpsys_input", "dumpsys-input"), ("dumpsys_alarm", "dumpsys-alarm"), ("dumpsys_power", "dumpsys-power"),
    ("wm_", "wm"), ("getprop", "getprop"), ("hierarchy", "hierarchy"),
)


def _expected_kind(p: Path) -> str | None:
    if p.suffix == ".xml" or p.parent.name == "hierarchy":
        return "hierarchy"
    return next((k for pre, k in _PREFIXES if p.name.startswith(pre)), None)


def _meaningful(kind: str, r: object) -> bool:
    if kind == "hierarchy":
        return r.node_count > 0 and r.screen is not None and len(r.elements) > 0  # type: ignore[attr-defined]
    if kind == "content":
        return bool(r) and all(len(row) >= 2 for row in r)  # type: ignore[union-attr]
    if kind in ("settings", "getprop"):
        return bool(r)
    if kind == "dumpsys-window":
        return r.focused_window is not None or r.init_size is not None  # type: ignore[attr-defined]
    if kind == "dumpsys-activity":
        return r.resumed_package is not None or bool(r.activities)  # type: ignore[attr-defined]
    if kind == "dumpsys-display":
        return r.screen_state is not None and r.physical_size is not None  # type: ignore[attr-defined]
    if kind == "dumpsys-input":
        return bool(r.viewports) and bool(r.devices)  # type: ignore[attr-defined]
    if kind == "dumpsys-alarm":
        return r.now is not None or bool(r.next_alarm_clocks)  # type: ignore[attr-defined]
    if kind == "dumpsys-power":
        return r.screen_on is not None  # type: ignore[attr-defined]
    if kind == "wm":
        return r.size is not None or r.density is not None  # type: ignore[attr-defined]
    return False


FIXTURES = fixture_files()


def test_fixture_corpus_is_present() -> None:
    assert len([p for p in FIXTURES if p.is_relative_to(LOCAL)]) >= 13
    if REAL is not None:
        assert len([p for p in FIXTURES if p.is_relative_to(REAL)]) >= 17


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_fixture_parses(path: Path) -> None:
    expected = _expected_kind(path)
    assert expected is not None, f"no parser claims fixture {path.name}: add one (and a prefix in _PREFIXES)"
    text = path.read_text("utf-8")
    assert detect_kind(text) == expected
    result = parse_as(expected, text)
    assert _meaningful(expected, result), f"{path.name} parsed into nothing useful: {result!r}"
    # CRLF line endings (Windows hosts, adb over a PTY) must not change the result
    crlf = parse_as(expected, text.replace("\n", "\r\n"))
    assert to_jsonable(crlf) == to_jsonable(result)
    json.dumps(to_jsonable(result), ensure_ascii=False)  # every result is JSON-serialisable


def test_prefix_table_covers_every_kind() -> None:
    assert {k for _, k in _PREFIXES} == set(KINDS)


# --------------------------------------------------------------------------- s2r inspect

runner = CliRunner()
_ENV = {"COLUMNS": "240", "NO_COLOR": "1"}


def _inspect(*args: str):  # type: ignore[no-untyped-def]
    from s2r.cli import app

    return runner.invoke(app, ["inspect", *args], env=_ENV)


def _fixture_for(kind: str) -> Path:
    return next(p for p in FIXTURES if _expected_kind(p) == kind)


@pytest.mark.parametrize("kind", KINDS)
def test_inspect_each_kind_table_and_json(kind: str) -> None:
    path = _fixture_for(kind)
    res = _inspect(str(path))
    assert res.exit_code == 0, res.output
    assert kind in res.output and "(guessed)" in res.output
    res = _inspect(str(path), "--kind", kind, "--json")
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert data["kind"] == kind and data["guessed"] is False
    assert data["result"] == to_jsonable(parse_as(kind, path.read_text("utf-8")))


def test_inspect_table_content() -> None:
    res = _inspect(str(LOCAL / "hierarchy_handwritten_messages_compose_tty_surrogates_1080x2400.xml"))
    assert res.exit_code == 0
    assert "13 elements (of 15 nodes; 2 dropped)" in res.output
    assert "明天见 🎉" in res.output and "See you at 5, room=4B 😀" in res.output and "editable" in res.output
    res = _inspect(str(LOCAL / "dumpsys_window_handwritten_android13_ime_1080x2400.txt"))
    assert "com.google.android.apps.messaging (messages)" in res.output
    res = _inspect(str(LOCAL / "content_query_calendar_events_handwritten.txt"))
    assert "4 rows" in res.output and "周会" in res.output


@needs_real
def test_inspect_json_keeps_chinese_and_screen_option() -> None:
    path = REAL / "hierarchy" / "wechat_contacts_tab_chinese_1080x2210.xml"  # type: ignore[operator]
    res = _inspect(str(path), "--json", "--screen", "1080x2400")
    assert res.exit_code == 0
    data = json.loads(res.output)
    assert data["result"]["screen"] == [1080, 2400] and "通讯录" in res.output
    assert any(e["text"] == "北极星-陈月慧" for e in data["result"]["elements"])


def test_inspect_errors_exit_2(tmp_path: Path) -> None:
    def err(*args: str) -> str:
        r = _inspect(*args)
        assert r.exit_code == 2, r.output
        return r.output

    assert "no such file" in err(str(tmp_path / "missing.txt"))
    (tmp_path / "empty.txt").write_text("")
    assert "empty" in err(str(tmp_path / "empty.txt"))
    (tmp_path / "junk.txt").write_text("hello\nworld\n")
    assert "cannot tell which command" in err(str(tmp_path / "junk.txt"))
    (tmp_path / "bin.dat").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\xff\xfe\xfa")
    assert "not UTF-8" in err(str(tmp_path / "bin.dat"))
    wm = LOCAL / "wm_size_density_override_handwritten.txt"
    assert "not readable as hierarchy" in err(str(wm), "--kind", "hierarchy")
    assert "unknown --kind" in err(str(wm), "--kind", "bogus")
    xml = LOCAL / "hierarchy_handwritten_messages_compose_tty_surrogates_1080x2400.xml"
    assert "--screen must look like" in err(str(xml), "--screen", "big")
    assert "applies to --kind hierarchy" in err(str(wm), "--screen", "10x10")


def test_inspect_reads_utf16_capture(tmp_path: Path) -> None:
    p = tmp_path / "settings.txt"  # PowerShell's `adb shell settings list global > settings.txt`
    p.write_bytes("wifi_on=1\r\ndevice_name=Ada’s 手机\r\n".encode("utf-16"))
    res = _inspect(str(p), "--json")
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["result"] == {"wifi_on": "1", "device_name": "Ada’s 手机"}


def test_inspect_shows_markup_like_text_verbatim(tmp_path: Path) -> None:
    p = tmp_path / "[dump].xml"
    p.write_text('<hierarchy rotation="0"><node text="[/b] [bold]x[/bold]" class="android.widget.TextView" '
                 'bounds="[0,0][100,100]" /></hierarchy>', "utf-8")
    res = _inspect(str(p))
    assert res.exit_code == 0, res.output
    assert "[/b] [bold]x[/bold]" in res.output and "[dump].xml" in res.output
