"""Reading a run directory: its config (with the policies' roles) and its episode records.

Everything the report computes starts from a :class:`LoadedRun`. Loading is where the run's
input is made deterministic — one record per episode (duplicates resolved independently of
file order), sorted — and where input the report cannot use becomes a :class:`ReportError`
that says what and where, so no statistic ever sees a malformed line.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from pydantic import BaseModel, ConfigDict, ValidationError

from transfer.records import EpisodeRecord


class ReportError(Exception):
    """Input the report cannot be built from; the message says what and where."""


class RunConfig(BaseModel):
    """The keys of config.json the report reads; everything else is carried through as is."""

    model_config = ConfigDict(extra="allow")
    run_id: str = ""
    base_policy: str | None = None
    trained_policy: str | None = None
    oracle_policy: str | None = None


@dataclass
class LoadedRun:
    """A run directory as read: config.json as is and as typed, one record per episode, sorted,
    and what loading skipped or noted (malformed lines, duplicates, a missing config)."""

    run_dir: Path
    config: dict[str, Any]
    cfg: RunConfig
    records: list[EpisodeRecord]
    malformed: list[dict[str, Any]] = field(default_factory=list)
    duplicates: int = 0
    notes: list[str] = field(default_factory=list)


# ---------------------------------------------------------------------------- loading


def _prefer(a: EpisodeRecord, b: EpisodeRecord) -> EpisodeRecord:
    """Which of two records of one slot to keep, independent of file order."""
    ka = (a.counted, a.finished_at, a.model_dump_json())
    kb = (b.counted, b.finished_at, b.model_dump_json())
    return a if ka >= kb else b


def load_run(run_dir: Path | str) -> LoadedRun:
    """Read config.json and episodes.jsonl; malformed lines are skipped and reported."""
    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        raise ReportError(f"run directory not found: {run_dir}")
    notes: list[str] = []
    cfg_path = run_dir / "config.json"
    config: dict[str, Any] = {}
    if cfg_path.exists():
        try:
            config = json.loads(cfg_path.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError) as e:
            raise ReportError(f"{cfg_path} is not valid JSON: {e}") from e
        if not isinstance(config, dict):
            raise ReportError(f"{cfg_path} must hold a JSON object, found {type(config).__name__}")
    else:
        notes.append("config.json is missing; policy roles were inferred from policy names")
    try:
        cfg = RunConfig.model_validate(config)
    except ValidationError as e:
        raise ReportError(f"{cfg_path}: {e.errors()[0]['loc']}: {e.errors()[0]['msg']}") from e

    ep_path = run_dir / "episodes.jsonl"
    if not ep_path.exists():
        raise ReportError(f"no episodes.jsonl in {run_dir}: nothing to report")
    malformed: list[dict[str, Any]] = []
    by_id: dict[str, EpisodeRecord] = {}
    duplicates = 0
    with ep_path.open(encoding="utf-8", errors="replace") as fh:
        for lineno, line in enumerate(fh, 1):
            line = line.strip()
            if not line:
                continue
            try:
                rec = EpisodeRecord.model_validate_json(line)
            except ValidationError as e:
                err = e.errors()[0]
                where = ".".join(str(x) for x in err.get("loc", ())) or "line"
                malformed.append({"line": lineno, "error": f"{where}: {err.get('msg', 'invalid')}"[:200]})
                continue
            if rec.episode_id in by_id:
                duplicates += 1
                rec = _prefer(by_id[rec.episode_id], rec)
            by_id[rec.episode_id] = rec
    if not by_id:
        detail = f"; first problem: line {malformed[0]['line']}: {malformed[0]['error']}" if malformed else ""
        raise ReportError(f"{ep_path} holds no valid episode records{detail}")
    records = sorted(by_id.values(), key=lambda r: (r.task_id, r.policy, r.backend, r.target, r.repeat, r.seed,
                                                    r.episode_id))
    return LoadedRun(run_dir, config, cfg, records, malformed, duplicates, notes)


# ---------------------------------------------------------------------------- policy roles


def order_policies(names: Iterable[str], cfg: RunConfig) -> list[str]:
    """Each policy of the run once: base, trained, oracle first, then the rest by name.

    One policy may hold two roles — ``--policy trained=oracle`` makes the trained policy the
    oracle too — and must still be one row, one column and one legend entry, not two.
    """
    names = set(names)
    first = [p for p in dict.fromkeys((cfg.base_policy, cfg.trained_policy, cfg.oracle_policy)) if p and p in names]
    return first + sorted(names - set(first))


def compared_policies(policies: list[str], cfg: RunConfig, oracle: str | None) -> list[str]:
    """The policies compared with each other (ranks, PPI): all but a pure reference oracle.

    The oracle is left out as a reference, unless it is also the base or trained policy of
    the run: then it is one of the candidates the run was made to compare.
    """
    return [p for p in policies if p != oracle or p in (cfg.base_policy, cfg.trained_policy)]


def resolve_roles(cfg: RunConfig, policies: set[str], notes: list[str]) -> RunConfig:
    """Fill base/trained/oracle from conventional names when config.json does not say."""
    upd: dict[str, str] = {}
    for role, name in (("base_policy", "base"), ("trained_policy", "trained"), ("oracle_policy", "oracle")):
        if getattr(cfg, role) is None and name in policies:
            upd[role] = name
            notes.append(f"{role} not set in config.json; using the policy named '{name}'")
    return cfg.model_copy(update=upd) if upd else cfg
