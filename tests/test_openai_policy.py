"""The OpenAI-compatible VLM adapter, through the real `openai` client, against a local stand-in server."""

from __future__ import annotations

import pytest

from actionmap.actions import Complete, Tap
from actionmap.parse import ActionParseError
from sim.env import SimEnv
from transfer.policies.base import PolicyServerOutage, StepRecord
from transfer.policies.openai_policy import OpenAIPolicy
from transfer.policies.standin import StandInServer


@pytest.fixture()
def server():
    srv = StandInServer().start()
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def obs(sim_pool):
    return SimEnv(pool=sim_pool).reset({"start": {"app": "settings"}})


def _policy(server: StandInServer, **kw) -> OpenAIPolicy:
    p = OpenAIPolicy(server.url, server.model, with_elements=True, **kw)
    p.reset("Turn on Bluetooth", {})
    return p


def test_screenshot_sent_and_reply_parsed(server, obs) -> None:
    p = _policy(server)
    a = p.act(obs, [])
    assert isinstance(a, Tap)
    # the keyword agent chose the Bluetooth row: the point lies inside that element
    el = [e for e in obs.elements if e.text == "Bluetooth"][0]
    gb = el.grid_bounds
    assert gb.left <= a.point[0] <= gb.right and gb.top <= a.point[1] <= gb.bottom, (a.point, gb)
    assert server.images_seen == 1
    req = server.requests[-1]
    assert req["messages"][0]["role"] == "system" and "0-1000 grid" in req["messages"][0]["content"]


def test_uitars_format(server, obs) -> None:
    server.script.append("Thought: open it\nAction: click(start_box='(500,120)')")
    p = OpenAIPolicy.from_spec(f"{server.url}#{server.model}?format=uitars")
    p.reset("x", {})
    a = p.act(obs, [StepRecord(step=1, action={"type": "key", "key": "back"})])
    assert isinstance(a, Tap) and a.point == (500, 120)
    assert "press_back()" in server.requests[-1]["messages"][0]["content"]


def test_server_errors_are_retried_with_backoff(server, obs) -> None:
    server.script.extend([("status", 500), ("status", 503), '{"action": "terminate", "status": "success"}'])
    p = _policy(server, max_retries=3)
    a = p.act(obs, [])
    assert isinstance(a, Complete)
    assert p.stats["retries"] == 2 and p.stats["requests"] == 3


def test_timeouts_are_retried_then_reported(server, obs) -> None:
    server.script.extend([("delay", 1.5, "late"), ("delay", 1.5, "late")])
    p = _policy(server, timeout=0.5, max_retries=1)
    out = p.act(obs, [])
    # a server that never answers is the server's outage (infrastructure), not an unparseable reply
    assert isinstance(out, PolicyServerOutage) and not isinstance(out, ActionParseError)
    assert "APITimeoutError" in out.detail and p.stats["failures"] == 1


def test_malformed_output_is_a_typed_error_not_a_crash(server, obs) -> None:
    server.script.extend(["I am not sure what to do here.", '{"action": "click", "coordinate": [NaN, 3]}'])
    p = _policy(server)
    e1, e2 = p.act(obs, []), p.act(obs, [])
    assert isinstance(e1, ActionParseError) and e1.kind == "no_action" and e1.raw.startswith("I am not sure")
    assert isinstance(e2, ActionParseError) and e2.kind == "bad_number" and e2.reason == "point.x is not finite"


def test_unknown_model_is_not_retried(server, obs) -> None:
    p = OpenAIPolicy(server.url, "no-such-model", max_retries=3)
    p.reset("x", {})
    out = p.act(obs, [])
    assert isinstance(out, PolicyServerOutage) and p.stats["requests"] == 1


def test_bad_spec_rejected() -> None:
    with pytest.raises(ValueError):
        OpenAIPolicy.from_spec("ftp://x#m")
    with pytest.raises(ValueError):
        OpenAIPolicy.from_spec("http://127.0.0.1:1/v1")
