"""Loading and validating the template library (``templates/*.yaml``).

Each YAML file names its split (``split: real59``) and lists templates. Loading validates
everything a run would otherwise discover halfway through: unique ids, every template
instantiates for seeds 0–9 with all placeholders bound and a valid StatePatch setup, and
``real59`` holds exactly 59 templates.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable

import yaml
from pydantic import ValidationError

from .model import TaskInstance, TaskTemplate
from .params import ParamError

TEMPLATE_DIR = Path(__file__).parent / "templates"
SPLITS: tuple[str, ...] = ("real59", "train", "test")
REAL59_SIZE = 59
VALIDATION_SEEDS = range(10)


class TemplateError(ValueError):
    """A template file or template that cannot be loaded; the message names file and id."""


def _first_error(e: ValidationError) -> str:
    errs = e.errors()
    parts = []
    for err in errs[:3]:
        loc = ".".join(str(x) for x in err.get("loc", ()))
        parts.append(f"{loc}: {err.get('msg')}" if loc else str(err.get("msg")))
    return "; ".join(parts) + (f" (+{len(errs) - 3} more)" if len(errs) > 3 else "")


def parse_file(path: Path) -> list[TaskTemplate]:
    """Templates of one YAML file, each tagged with the file's split."""
    try:
        raw = yaml.safe_load(path.read_text("utf-8"))
    except yaml.YAMLError as e:
        raise TemplateError(f"{path.name}: not valid YAML: {e}") from None
    if not isinstance(raw, dict) or "split" not in raw or not isinstance(raw.get("templates"), list):
        raise TemplateError(f"{path.name}: expected a mapping with 'split' and a 'templates' list")
    split = raw["split"]
    if split not in SPLITS:
        raise TemplateError(f"{path.name}: unknown split {split!r}; known: {list(SPLITS)}")
    out = []
    for i, t in enumerate(raw["templates"]):
        tid = t.get("id", f"#{i}") if isinstance(t, dict) else f"#{i}"
        if not isinstance(t, dict):
            raise TemplateError(f"{path.name} template {tid}: expected a mapping")
        try:
            out.append(TaskTemplate.model_validate({**t, "split": split}))
        except ValidationError as e:
            raise TemplateError(f"{path.name} template {tid}: {_first_error(e)}") from None
        except ParamError as e:
            raise TemplateError(f"{path.name} template {tid}: {e}") from None
    return out


def validate_templates(templates: Iterable[TaskTemplate], seeds: Iterable[int] = VALIDATION_SEEDS) -> None:
    """Raise :class:`TemplateError` listing every problem found."""
    problems: list[str] = []
    seen: dict[str, str] = {}
    counts: dict[str, int] = {}
    seeds = list(seeds)
    for t in templates:
        if t.id in seen:
            problems.append(f"duplicate template id {t.id!r} (splits {seen[t.id]} and {t.split})")
        seen[t.id] = t.split
        counts[t.split] = counts.get(t.split, 0) + 1
        for s in seeds:
            try:
                t.instantiate(s)
            except (ValidationError, ParamError, KeyError, TypeError, ValueError) as e:
                msg = _first_error(e) if isinstance(e, ValidationError) else str(e)
                problems.append(f"{t.id} seed {s}: {msg}")
                break
    if counts.get("real59", 0) not in (0, REAL59_SIZE):
        problems.append(f"real59 has {counts.get('real59', 0)} templates; it must have exactly {REAL59_SIZE}")
    if problems:
        raise TemplateError("invalid task templates:\n  " + "\n  ".join(problems))


@lru_cache(maxsize=4)
def _load_dir(directory: str) -> tuple[TaskTemplate, ...]:
    files = sorted(Path(directory).glob("*.yaml"))
    if not files:
        raise TemplateError(f"no template files in {directory}")
    templates: list[TaskTemplate] = []
    for f in files:
        templates.extend(parse_file(f))
    validate_templates(templates)
    return tuple(templates)


def load_templates(split: str | None = None, directory: Path | str | None = None) -> list[TaskTemplate]:
    """All templates, or those of one split (``real59``, ``train``, ``test``)."""
    if split is not None and split not in SPLITS:
        raise TemplateError(f"unknown split {split!r}; known: {list(SPLITS)}")
    all_t = _load_dir(str(directory or TEMPLATE_DIR))
    return [t for t in all_t if split is None or t.split == split]


def get_template(template_id: str, directory: Path | str | None = None) -> TaskTemplate:
    for t in load_templates(directory=directory):
        if t.id == template_id:
            return t
    import difflib

    ids = [t.id for t in load_templates(directory=directory)]
    close = difflib.get_close_matches(template_id, ids, n=3)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    raise TemplateError(f"no task template {template_id!r}{hint}")


def instances(split: str | None, seeds: Iterable[int], context: dict[str, Any] | None = None) -> list[TaskInstance]:
    """Every template of ``split`` instantiated at every seed (template-major order)."""
    seeds = list(seeds)
    return [t.instantiate(s, context) for t in load_templates(split) for s in seeds]


def split_summary() -> dict[str, dict[str, Any]]:
    """Counts per split by difficulty, kind and app — what ``s2r tasks list`` prints at the bottom."""
    out: dict[str, dict[str, Any]] = {}
    for t in load_templates():
        s = out.setdefault(t.split, {"templates": 0, "difficulty": {}, "kind": {}, "apps": {}})
        s["templates"] += 1
        s["difficulty"][t.difficulty] = s["difficulty"].get(t.difficulty, 0) + 1
        s["kind"][t.kind] = s["kind"].get(t.kind, 0) + 1
        for a in t.apps:
            s["apps"][a] = s["apps"].get(a, 0) + 1
    return out
