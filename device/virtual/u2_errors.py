"""The uiautomator2 server's JSON-RPC error vocabulary and the argument checks that raise it.

Why its own module: the selector engine and every group of JSON-RPC methods report bad
arguments, missing objects and what the simulator cannot do the same way the real server
(jsonrpc4j + Jackson in android-uiautomator-server) does, so the client raises the same
exceptions: ``-32002`` with ``UiObjectNotFoundException``, ``-32602`` for bad params, ``-32000``
with ``UnsupportedOperationException``.
"""

from __future__ import annotations

import math
from typing import Any

__all__ = ["RpcError", "not_found", "unsupported", "invalid", "to_int", "to_float", "to_bool"]


class RpcError(Exception):
    """A JSON-RPC error object: ``{"code", "message", "data"}``."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data

    def to_json(self) -> dict[str, Any]:
        err: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            err["data"] = self.data
        return err


def not_found(selector: Any) -> RpcError:
    from .uiselector import selector_str

    text = f"androidx.test.uiautomator.UiObjectNotFoundException: {selector_str(selector)}"
    return RpcError(-32002, text, text)


def unsupported(what: str) -> RpcError:
    msg = f"java.lang.UnsupportedOperationException: {what} (virtual phone)"
    return RpcError(-32000, msg, msg)


def invalid(msg: str) -> RpcError:
    return RpcError(-32602, f"Invalid params: {msg}")


def to_int(v: Any, name: str) -> int:
    """Jackson's coercion into a Java int/long: numbers truncate, numeric strings parse."""
    if isinstance(v, bool):
        raise invalid(f"{name} must be a number, got a boolean")
    if isinstance(v, int):
        return v
    if isinstance(v, float):
        if not math.isfinite(v):
            raise invalid(f"{name} must be finite")
        return int(v)
    if isinstance(v, str):
        try:
            return int(float(v.strip()))
        except ValueError:
            pass
    raise invalid(f"{name} must be a number, got {v!r}")


def to_float(v: Any, name: str) -> float:
    if isinstance(v, bool):
        raise invalid(f"{name} must be a number, got a boolean")
    if isinstance(v, (int, float)) and math.isfinite(v):
        return float(v)
    if isinstance(v, str):
        try:
            return float(v.strip())
        except ValueError:
            pass
    raise invalid(f"{name} must be a number, got {v!r}")


def to_bool(v: Any, name: str) -> bool:
    if isinstance(v, bool):
        return v
    if v is None:
        return False
    if isinstance(v, (int, float)):
        return bool(v)
    if isinstance(v, str) and v.lower() in ("true", "false"):
        return v.lower() == "true"
    raise invalid(f"{name} must be a boolean, got {v!r}")


