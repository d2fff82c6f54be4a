"""Policies: the one object used unchanged on every backend."""

from .base import Policy, PolicyOutput, StepRecord
from .registry import make_policy

__all__ = ["Policy", "PolicyOutput", "StepRecord", "make_policy"]
