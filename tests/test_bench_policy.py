"""``s2r bench policy``: phones keep stepping while the stand-in model (over real HTTP) thinks."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from s2r.cli import app


def test_bench_policy_measures_rate_capacity_and_split() -> None:
    """The figures are there and agree with each other and with what the run was made of; how
    fast they are is the bench's output (README), not this test's: a loaded machine may be slow."""
    phones, latency, seconds = 4, 0.5, 3
    r = CliRunner().invoke(app, ["bench", "policy", "--latency", str(latency), "--phones", str(phones), "--pages", "1",
                                 "--seconds", str(seconds), "--json"])
    assert r.exit_code == 0, r.output
    res = json.loads(r.output.strip().splitlines()[-1])
    assert (res["phones"], res["latency_s"], res["seconds"], res["pages"]) == (phones, latency, seconds, 1), res
    assert res["steps"] > 0
    cap = res["sim_capacity_steps_per_s"]
    assert cap > 0 and res["ideal_steps_per_s"] == round(min(phones / latency, cap), 2)
    assert res["steps_per_s"] > 0 and res["steps"] >= round(res["steps_per_s"] * seconds), res  # the window's steps are among them
    assert 0 < res["utilisation"] and abs(res["utilisation"] - res["steps_per_s"] / res["ideal_steps_per_s"]) < 0.01, res
    # every step waits out the model's latency, so no phone completes more than seconds/latency + 1
    # steps in the measured window (an upper bound that holds however fast the machine is)
    assert res["steps_per_s"] <= phones * (seconds / latency + 1) / seconds, res
    for split in (res["step_split_ms_p50"], res["step_split_ms_mean"]):
        assert set(split) == {"encode_ms", "client_ms", "server_ms", "page_ms", "step_ms"}
        assert all(isinstance(v, (int, float)) and v >= 0 for v in split.values()), split
        assert split["server_ms"] >= latency * 1e3, split  # the injected latency, as the server reports it
        assert split["page_ms"] > 0 and split["step_ms"] >= max(split["server_ms"], split["page_ms"]), split
    # a step is its encoding, the request (the server's time and the client's rest) and the page's
    # step, one after the other: so on average it is at least their sum (figures rounded to 0.1 ms)
    mean = res["step_split_ms_mean"]
    parts = mean["encode_ms"] + mean["client_ms"] + mean["server_ms"] + mean["page_ms"]
    assert mean["step_ms"] >= parts - 0.5, mean


def test_bench_policy_rejects_bad_figures() -> None:
    r = CliRunner().invoke(app, ["bench", "policy", "--latency", "-1", "--phones", "2"])
    assert r.exit_code == 2 and "latency must be >= 0" in r.output
