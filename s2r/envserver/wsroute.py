"""``/ws``: one session per WebSocket connection, OpenEnv's message protocol, answered by s2r.

OpenEnv's server (``HTTPEnvServer``) keeps the sessions (create, capacity, destroy) and serves
the HTTP routes; this route, registered ahead of its own ``/ws``, speaks the same messages
(``reset`` / ``step`` / ``state`` / ``close``, OpenEnv's response and error types) with one
difference that matters at a thousand sessions: OpenEnv's handler keeps a connection's last
observation and response alive while it waits for the next message — a base64 screenshot, about
0.24 MB of server memory per idle connection, so a hibernated session (a 5 kB text) still weighed
that much. Here each reply is built in a call of its own and dropped once sent (measured with
``s2r bench env``: 0.24 → 0.04 MB per hibernated session). OpenEnv's ``mcp`` messages are not
served: s2r's environment has no tools.
"""

from __future__ import annotations

import inspect
import json
from typing import Any


async def _answer(server: Any, sid: str, env: Any, raw: str) -> str | None:
    """The reply to one message, as JSON text (None: the client said close)."""
    from openenv.core.env_server.serialization import deserialize_action, serialize_observation
    from openenv.core.env_server.types import (WSCloseMessage, WSErrorCode, WSErrorResponse, WSObservationResponse,
                                               WSResetMessage, WSStateMessage, WSStateResponse, WSStepMessage)
    from pydantic import ValidationError

    try:
        msg = json.loads(raw)
    except json.JSONDecodeError as e:
        return WSErrorResponse(data={"message": f"Invalid JSON: {e}", "code": WSErrorCode.INVALID_JSON}).model_dump_json()
    kind = msg.get("type", "")
    try:
        if kind == "reset":
            data = WSResetMessage(**msg).data
            obs = await env.reset_async(**server._get_valid_kwargs(inspect.signature(env.reset_async), data))
            server._update_session_activity(sid)
            return WSObservationResponse(data=serialize_observation(obs)).model_dump_json()
        if kind == "step":
            action = deserialize_action(WSStepMessage(**msg).data, server.action_cls)
            obs = await env.step_async(action)
            server._update_session_activity(sid, increment_step=True)
            return WSObservationResponse(data=serialize_observation(obs)).model_dump_json()
        if kind == "state":
            WSStateMessage(**msg)
            return WSStateResponse(data=env.state.model_dump()).model_dump_json()
        if kind == "close":
            WSCloseMessage(**msg)
            return None
        return WSErrorResponse(data={"message": f"Unknown message type: {kind}",
                                     "code": WSErrorCode.UNKNOWN_TYPE}).model_dump_json()
    except ValidationError as e:
        return WSErrorResponse(data={"message": "Invalid message", "code": WSErrorCode.VALIDATION_ERROR,
                                     "errors": e.errors()}).model_dump_json()
    except Exception as e:  # noqa: BLE001 - the session stays open; the client gets the typed error
        return WSErrorResponse(data={"message": str(e), "code": WSErrorCode.EXECUTION_ERROR}).model_dump_json()


def add_ws_route(app: Any, server: Any) -> None:
    """s2r's ``/ws``: OpenEnv's protocol, registered ahead of OpenEnv's own so it answers.

    OpenEnv's handler keeps a connection's last observation and response alive in its frame
    while it waits for the next message: a base64 screenshot and its objects, ~0.24 MB of the
    server's memory per connection, so a hibernated session (a 5 kB text) still weighed that
    much. Here each message's reply is built in a call of its own and dropped once sent."""
    from fastapi import WebSocket, WebSocketDisconnect
    from openenv.core.env_server.exceptions import EnvironmentFactoryError, SessionCapacityError
    from openenv.core.env_server.types import WSErrorCode, WSErrorResponse

    async def ws(websocket: WebSocket) -> None:
        await websocket.accept()
        sid = None
        try:
            sid, env = await server._create_session()
            while True:
                reply = await _answer(server, sid, env, await websocket.receive_text())
                if reply is None:
                    break
                await websocket.send_text(reply)
                reply = None  # noqa: F841 - an idle connection holds no screenshot
        except WebSocketDisconnect:
            pass
        except (SessionCapacityError, EnvironmentFactoryError) as e:
            code = WSErrorCode.CAPACITY_REACHED if isinstance(e, SessionCapacityError) else WSErrorCode.FACTORY_ERROR
            await websocket.send_text(WSErrorResponse(data={"message": str(e), "code": code}).model_dump_json())
        finally:
            if sid:
                await server._destroy_session(sid)
            try:
                await websocket.close()
            except RuntimeError:
                pass

    ws.__annotations__["websocket"] = WebSocket  # a real class: FastAPI injects by it (annotations here are strings)
    app.add_api_websocket_route("/ws", ws)
