"""Tasks that mean the same thing in the simulator and on a real phone.

A task's setup is a :class:`actionmap.patch.StatePatch` and its success is predicates over
:class:`actionmap.worldstate.WorldState`, so one judge (:func:`judge`) scores both backends.
Templates are YAML data in ``templates/`` (splits ``real59``, ``train``, ``test``); an
instance is fully determined by (template id, seed).
"""

from .answers import AnswerField, AnswerSheet
from .judge import Verdict, bench_judge, judge
from .loader import SPLITS, TemplateError, get_template, instances, load_templates
from .model import (FieldCheck, GoalSpec, HookCheck, RecordCheck, TaskInstance, TaskTemplate, difficulty_for_steps,
                    make_context)
from .results import CheckResult

__all__ = [
    "AnswerField", "AnswerSheet", "CheckResult", "FieldCheck", "GoalSpec", "HookCheck", "RecordCheck", "SPLITS",
    "TaskInstance", "TaskTemplate", "TemplateError", "Verdict", "bench_judge", "difficulty_for_steps",
    "get_template", "instances", "judge", "load_templates", "make_context",
]
