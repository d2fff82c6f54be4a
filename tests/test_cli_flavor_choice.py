"""An unknown ``--flavor`` is a usage error (exit 2) naming the flavors there are, before anything starts.

Why: a typo in a flavor used to reach the simulator's page pool and end in a traceback mid-run."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from s2r.cli import app as cli


@pytest.mark.parametrize("argv", [
    ["run", "--sim", "--flavor", "pixelish", "--out", "x"],
    ["paired", "--policy", "base=random", "--device", "vdevice:1", "--flavor", "pixelish", "--out", "x"],
    ["sim", "serve", "--flavor", "pixelish"],
    ["vdevice", "start", "--flavor", "pixelish"],
    ["bench", "vdevice", "--flavor", "pixelish"],
    ["bench", "sim", "--flavor", "pixelish"],
    ["train", "bc", "--out", "x", "--flavors", "sim,pixelish"],
    ["train", "grpo", "--out", "x", "--flavors", "pixelish,aosp"],
], ids=["run", "paired", "sim serve", "vdevice start", "bench vdevice", "bench sim", "train bc", "train grpo"])
def test_an_unknown_flavor_exits_2_naming_the_flavors(argv: list[str], tmp_path) -> None:
    res = CliRunner().invoke(cli, argv)
    assert res.exit_code == 2, res.output
    assert "pixelish" in res.output and "sim, aosp, google" in res.output
    assert not (tmp_path / "x").exists()
