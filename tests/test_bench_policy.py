"""``s2r bench policy``: phones keep stepping while the stand-in model (over real HTTP) thinks."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from s2r.cli import app


def test_bench_policy_measures_rate_capacity_and_split() -> None:
    r = CliRunner().invoke(app, ["bench", "policy", "--latency", "0.5", "--phones", "4", "--pages", "1",
                                 "--seconds", "3", "--json"])
    assert r.exit_code == 0, r.output
    res = json.loads(r.output.strip().splitlines()[-1])
    assert res["phones"] == 4 and res["latency_s"] == 0.5 and res["steps"] > 0
    cap = res["sim_capacity_steps_per_s"]
    assert cap > 0 and res["ideal_steps_per_s"] == round(min(4 / 0.5, cap), 2)
    assert abs(res["utilisation"] - res["steps_per_s"] / res["ideal_steps_per_s"]) < 0.01
    # with only 4 phones each waiting half a second, the model bounds the rate: phones are not idle on a page
    assert 0.4 < res["utilisation"] <= 1.2
    split = res["step_split_ms_p50"]
    assert set(split) == {"encode_ms", "client_ms", "server_ms", "page_ms", "step_ms"}
    assert 500 <= split["server_ms"] < 1500  # the injected latency, as the server reports it
    assert split["page_ms"] > 0 and split["encode_ms"] < 50 and split["client_ms"] < split["server_ms"]


def test_bench_policy_rejects_bad_figures() -> None:
    r = CliRunner().invoke(app, ["bench", "policy", "--latency", "-1", "--phones", "2"])
    assert r.exit_code == 2 and "latency must be >= 0" in r.output
