"""Running command lines in a virtual phone's shell from a test (no adb server): the helpers
the ``test_vdevice_shell*.py`` modules share."""

from __future__ import annotations

import asyncio
from typing import Any

from device.virtual.sh_io import BufferOutput, BytesInput


def sh(phone: Any, line: str, stdin: bytes = b"") -> tuple[int, str, str]:
    """Run one command line in a fresh ``sh`` of the phone; (status, stdout, stderr)."""
    out, err = BufferOutput(), BufferOutput()

    async def go() -> int:
        return await phone.backend.new_shell().run(line, stdin=BytesInput(stdin), stdout=out, stderr=err)

    rc = asyncio.run(go())
    return rc, out.getvalue().decode("utf-8", "replace"), err.getvalue().decode("utf-8", "replace")


def sh_bytes(phone: Any, line: str) -> bytes:
    out = BufferOutput()

    async def go() -> int:
        return await phone.backend.new_shell().run(line, stdout=out)

    asyncio.run(go())
    return out.getvalue()


def home(phone: Any) -> None:
    sh(phone, "input keyevent KEYCODE_HOME")
