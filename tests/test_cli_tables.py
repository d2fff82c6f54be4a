"""Run summaries written to a file or a pipe keep every column whole.

A farm's log is a file, not a terminal: rich would lay a table out for 80 columns there and
cut headers and cells to "poli…", "back…", "targ…". ``s2r run`` prints its summary table at
its natural width when stdout is not a terminal, and ``paired``/``demo`` print their
headline as plain lines (no markup, no re-wrapping).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.timeout(300)

S2R = Path(sys.executable).with_name("s2r")
COLUMNS = ("policy", "backend", "target", "episodes", "SR", "PR", "infra err", "policy-server outages",
           "undetermined", "unsupported", "mean steps")


def _table_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line[:1] in "┏┃┡│└"]


def test_run_summary_in_a_log_file_keeps_every_column(tmp_path: Path) -> None:
    from s2r.commands.paired import quick_tasks

    out = tmp_path / ("a-long-run-directory-name-as-farm-jobs-make-them-" * 2) / "r"
    log = tmp_path / "run.log"
    env = dict(os.environ, COLUMNS="80")  # what a CI runner exports; the log must still be whole
    with log.open("w") as fh:
        r = subprocess.run([str(S2R), "run", "--sim", "--out", str(out), "--workers", "1",
                            "--policy", "base-policy-with-a-long-name=random", "--policy", "oracle",
                            "--tasks", quick_tasks("real59", 1)[0]],
                           stdout=fh, stderr=subprocess.PIPE, text=True, env=env, timeout=240)
    assert r.returncode == 0, r.stderr[-3000:]
    text = log.read_text()
    assert "…" not in text, text
    lines = _table_lines(text)
    header = " ".join(lines[1:3])
    for col in COLUMNS:
        assert f" {col} " in header, (col, header)
    rows = [line for line in lines if line.startswith("│")]
    assert [row.split("│")[1].strip() for row in rows] == ["base-policy-with-a-long-name", "oracle"]
    assert all(row.split("│")[3].strip() == "default/sim" for row in rows)
    assert max(len(line) for line in lines) > 80  # wider than rich's default for a non-terminal
    title = next(line for line in text.splitlines() if "run summary (" in line)
    assert title.strip().endswith(str(out)), title  # the whole path on the title's one line


def test_headline_text_is_printed_as_is(capsys: pytest.CaptureFixture[str]) -> None:
    from s2r.commands.paired import print_plain

    long = "Run " + "x" * 150 + " · 12 episodes · 3 tasks"
    print_plain(long + "\n[bold]policy[/] vs base on 3 paired tasks")
    got = capsys.readouterr().out
    assert got == long + "\n[bold]policy[/] vs base on 3 paired tasks\n"
