"""Running command lines in a virtual phone's shell from a test (no adb server): the helpers
the ``test_vdevice_shell*.py`` modules share."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from device.virtual.knobs import PhoneKnobs
from device.virtual.phone import VirtualPhone
from device.virtual.sh_io import BufferOutput, BytesInput


@contextmanager
def fast_phone(pool: Any) -> Iterator[VirtualPhone]:
    """A virtual phone with no input latency and no animations (what these modules test is the
    shell, not timing), stopped on exit."""
    p = VirtualPhone(PhoneKnobs(input_latency_ms=0, animation_ms=0), pool=pool).start()
    try:
        yield p
    finally:
        p.stop()


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
