"""``s2r env serve`` end to end: real uvicorn on 127.0.0.1, OpenEnv's WebSocket protocol, real
Chromium pages behind it; the client is s2r's ``S2REnv`` (OpenEnv's ``EnvClient``) or a raw
WebSocket where a misbehaving client is the point."""

from __future__ import annotations

import asyncio
import base64
import json

import httpx
import pytest
import websockets

from actionmap.errors import InfraError
from transfer.tasks.loader import get_template
from s2r.envserver import (BadRequest, CapacityFull, EnvServer, HostLost, ResetNeeded, S2RAction, S2REnv,
                           SessionGone, Unauthorized, UnknownTask)

TASK = "train.calculator.add"


@pytest.fixture(scope="module")
def server():
    with EnvServer(pages=2, max_live=3, max_sessions=40) as srv:
        yield srv


def run(coro):
    return asyncio.run(coro)


def stats(srv: EnvServer) -> dict:
    return httpx.get(srv.url + "/s2r/stats", headers={"Authorization": f"Bearer {srv.token}"} if srv.token else None).json()


def test_reset_by_task_and_seed_observes_and_repeats_exactly(server):
    async def go():
        a, b = S2REnv(server.url), S2REnv(server.url)
        try:
            ra = await a.reset(task=TASK, seed=3)
            rb = await b.reset(task=TASK, seed=3)
            o = ra.observation
            assert "89309" in o.instruction and o.session_id and o.session_id != rb.observation.session_id
            assert o.image_format == "jpeg" and base64.b64decode(o.screenshot)[:2] == b"\xff\xd8"
            assert (o.width, o.height) == (o.screen_width, o.screen_height) and o.elements
            assert o.info["task"] == TASK and o.info["seed"] == 3 and ra.reward == 0.0 and not ra.done
            sa, sb = await a.state(), await b.state()
            assert sa.phone == sb.phone and json.loads(sa.phone) and sa.task == TASK and sa.phase == "running"
        finally:
            await a.close()
            await b.close()
    run(go())


def test_image_size_and_png_are_what_was_asked(server):
    async def go():
        env = S2REnv(server.url)
        try:
            o = (await env.reset(task=TASK, seed=1, image_format="png", image_size=[270, 600])).observation
            assert (o.image_format, o.width, o.height) == ("png", 270, 600)
            assert base64.b64decode(o.screenshot)[:8] == b"\x89PNG\r\n\x1a\n"
            o = (await env.reset(task=TASK, seed=1, pixels=False)).observation
            assert o.screenshot == "" and o.image_format == "none" and o.elements
        finally:
            await env.close()
    run(go())


def test_policy_text_that_is_no_action_is_an_observation_not_an_error(server):
    async def go():
        env = S2REnv(server.url)
        try:
            await env.reset(task=TASK, seed=2)
            r = await env.step(S2RAction(text="I think I should tap the button"))
            assert r.observation.invalid_action and r.reward == pytest.approx(-0.1) and not r.done
            r = await env.step_text('{"type": "open_app", "app": "calculator"}')
            assert r.observation.invalid_action is None and r.observation.step == 2
            assert r.observation.info["action"]["type"] == "open_app"
        finally:
            await env.close()
    run(go())


def test_an_answer_ends_the_episode_with_the_judges_verdict(server):
    async def go():
        right, wrong = S2REnv(server.url), S2REnv(server.url)
        try:
            await right.reset(task=TASK, seed=3)
            await wrong.reset(task=TASK, seed=3)
            r = await right.step_text('{"type": "answer", "fields": {"result": 167169}}')
            w = await wrong.step_text('{"type": "answer", "fields": {"result": 5}}')
            assert r.done and w.done
            assert r.observation.info["terminated_by"] == "answer" and r.observation.info["verdict"]["success"]
            assert r.reward == 1.0 and w.reward == 0.0 and not w.observation.info["verdict"]["success"]
            with pytest.raises(ResetNeeded):
                await right.step_text('{"type": "complete"}')
        finally:
            await right.close()
            await wrong.close()
    run(go())


def test_a_grpo_group_of_eight_forks_starts_byte_identical_and_then_diverges(server):
    async def go():
        src = S2REnv(server.url)
        members = []
        try:
            await src.reset(task=TASK, seed=7)
            await src.step_text('{"type": "open_app", "app": "calculator"}')
            members = [await src.fork() for _ in range(7)]
            envs = [src] + [m for m, _ in members]
            phones = [(await e.state()).phone for e in envs]
            assert len(phones) == 8 and len(set(phones)) == 1  # compared as the JSON text itself
            assert all(first.observation.step == 1 for _, first in members)
            assert len({e.session_id for e in envs}) == 8
            await envs[1].step_text('{"type": "tap", "target": 3}')
            after = [(await e.state()).phone for e in envs]
            assert after[0] == phones[0] and all(p == phones[0] for p in after[2:])
            steps = [(await e.state()).step_count for e in envs]
            assert steps[1] == 2 and steps[0] == 1
        finally:
            for e in [src] + [m for m, _ in members]:
                await e.close()
    run(go())


def test_sessions_beyond_max_live_sleep_as_json_and_wake_where_they_were(server):
    async def go():
        envs = [S2REnv(server.url) for _ in range(6)]
        try:
            for i, e in enumerate(envs):
                await e.reset(task=TASK, seed=i)
            await envs[0].step_text('{"type": "open_app", "app": "calculator"}')
            st = stats(server)
            assert st["live"] <= 3 and st["hibernated"] >= 3 and st["hibernated_bytes"] > 0
            oldest = envs[1]
            before = await oldest.state()
            assert before.hibernated
            r = await oldest.step_text('{"type": "open_app", "app": "calculator"}')
            assert r.observation.step == 1 and r.observation.foreground.get("app") == "calculator"
            woke = await oldest.state()
            assert not woke.hibernated and woke.step_count == 1
            expected = get_template(TASK).instantiate(1).answer_sheet.fields[0].expected
            r = await oldest.step_text(json.dumps({"type": "answer", "fields": {"result": expected}}))
            assert r.done and r.observation.info["verdict"]["success"]  # judged from the start state it slept with
        finally:
            for e in envs:
                await e.close()
    run(go())


def test_reset_from_a_saved_phone_restores_it_exactly(server):
    async def go():
        a, b = S2REnv(server.url), S2REnv(server.url)
        try:
            await a.reset(task=TASK, seed=4)
            await a.step_text('{"type": "open_app", "app": "calculator"}')
            saved = (await a.state()).phone
            r = await b.reset(state=saved, task=TASK, seed=4)
            assert (await b.state()).phone == saved and r.observation.foreground.get("app") == "calculator"
            with pytest.raises(BadRequest, match="saved phone"):
                await b.reset(state='{"not": "a phone"}')
        finally:
            await a.close()
            await b.close()
    run(go())


def test_bad_requests_get_typed_errors_and_the_session_survives(server):
    async def go():
        env = S2REnv(server.url)
        try:
            with pytest.raises(ResetNeeded):
                await env.step_text('{"type": "complete"}')
            with pytest.raises(UnknownTask, match="calculator.add"):
                await env.reset(task="train.calculator.ad", seed=1)
            with pytest.raises(BadRequest, match="seed"):
                await env.reset(task=TASK, seed=-1)
            with pytest.raises(BadRequest, match="colour"):
                await env.reset(task=TASK, colour="red")
            with pytest.raises(SessionGone):
                await env.reset(fork_of="no-such-session")
            r = await env.reset(task=TASK, seed=1)  # the same connection still works
            assert r.observation.instruction
        finally:
            await env.close()
        with pytest.raises(SessionGone):
            await env.step_text('{"type": "complete"}')
    run(go())


def test_malformed_messages_and_a_vanished_client_release_the_session(server):
    async def go():
        base = stats(server)["sessions"]
        ws_url = server.url.replace("http", "ws", 1) + "/ws"
        async with websockets.connect(ws_url, proxy=None) as ws:
            await ws.send("{not json")
            assert json.loads(await ws.recv())["data"]["code"] == "INVALID_JSON"
            await ws.send(json.dumps({"type": "reset", "data": {"task": TASK, "seed": 1}}))
            assert json.loads(await ws.recv())["type"] == "observation"
            await ws.send(json.dumps({"type": "step", "data": {"nope": 1}}))
            err = json.loads(await ws.recv())
            assert err["type"] == "error" and err["data"]["code"] == "VALIDATION_ERROR"
            await ws.send(json.dumps({"type": "step", "data": {"text": '{"type": "open_app", "app": "calculator"}'}}))
            assert json.loads(await ws.recv())["type"] == "observation"
            assert stats(server)["sessions"] == base + 1
            ws.transport.abort()  # the client vanishes mid-episode: no close message, no close frame
        for _ in range(100):
            if stats(server)["sessions"] == base:
                break
            await asyncio.sleep(0.05)
        assert stats(server)["sessions"] == base
    run(go())


def test_a_flood_beyond_capacity_is_refused_and_the_server_stays_up():
    with EnvServer(pages=1, max_sessions=2) as srv:
        async def go():
            a, b, c = S2REnv(srv.url), S2REnv(srv.url), S2REnv(srv.url)
            try:
                await a.reset(task=TASK, seed=1)
                await b.reset(task=TASK, seed=2)
                with pytest.raises(CapacityFull):
                    await c.reset(task=TASK, seed=3)
                r = await a.step_text('{"type": "open_app", "app": "calculator"}')
                assert r.observation.step == 1
                await b.close()
                d = S2REnv(srv.url)
                await asyncio.sleep(0.2)
                assert (await d.reset(task=TASK, seed=4)).observation.instruction
                await d.close()
            finally:
                await a.close()
                await c.close()
        run(go())


def test_a_token_is_required_when_set_and_beyond_loopback():
    with pytest.raises(ValueError, match="token"):
        EnvServer("0.0.0.0", pages=1)
    with EnvServer(pages=1, token="s3cret") as srv:
        assert httpx.get(srv.url + "/health").status_code == 401
        assert httpx.get(srv.url + "/health", headers={"Authorization": "Bearer s3cret"}).status_code == 200
        assert httpx.get(srv.url + "/health", params={"token": "s3cret"}).status_code == 200

        async def go():
            with pytest.raises(Unauthorized):
                await S2REnv(srv.url, token="wrong").reset(task=TASK, seed=1)
            env = S2REnv(srv.url, token="s3cret")
            try:
                assert (await env.reset(task=TASK, seed=1)).observation.instruction
            finally:
                await env.close()
        run(go())


def test_a_server_lost_mid_episode_is_infrastructure_and_never_silently_recreated():
    srv = EnvServer(pages=1).start()

    async def go():
        env = S2REnv(srv.url, message_timeout_s=20)
        await env.reset(task=TASK, seed=1)
        await asyncio.to_thread(srv.stop)
        with pytest.raises(HostLost) as lost:
            await env.step_text('{"type": "open_app", "app": "calculator"}')
        assert isinstance(lost.value, InfraError)
        with pytest.raises(HostLost):  # and not a fresh session on a reconnect
            await env.step_text('{"type": "open_app", "app": "calculator"}')
        await env.close()
    try:
        run(go())
    finally:
        srv.stop()
