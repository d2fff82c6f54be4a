"""The Android output fixtures the parser tests read: ``tests/fixtures/android`` (hand-written
samples) and the shared real-device corpus (``tests/fixtures/real-device``, or
``$S2R_REAL_DEVICE_FIXTURES``)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LOCAL = ROOT / "tests" / "fixtures" / "android"


def _real_dir() -> Path | None:
    # the corpus of real captures is vendored in tests/fixtures/real-device
    for cand in (os.environ.get("S2R_REAL_DEVICE_FIXTURES"), ROOT / "tests" / "fixtures" / "real-device"):
        if cand and Path(cand).is_dir():
            return Path(cand)
    return None


REAL = _real_dir()
needs_real = pytest.mark.skipif(REAL is None, reason="shared real-device fixtures not found "
                                                     "(set S2R_REAL_DEVICE_FIXTURES)")


def fixture_files() -> list[Path]:
    files = sorted(p for p in LOCAL.rglob("*") if p.is_file() and p.suffix != ".md")
    if REAL is not None:
        files += sorted(p for p in REAL.rglob("*") if p.is_file() and p.suffix != ".md")
    return files


def real(rel: str) -> str:
    if REAL is None:
        pytest.skip("shared real-device fixtures not found")
    return (REAL / rel).read_text("utf-8")


def local(name: str) -> str:
    return (LOCAL / name).read_text("utf-8")
