"""The run directory: ``config.json``, append-only ``episodes.jsonl``, ``traces/``.

Each finished episode is one JSON line, appended and fsynced before the next is started, so
a crash or Ctrl-C loses at most the episodes in flight; resuming reads the finished
``episode_id`` set and runs only what is missing — never a duplicate.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any

from .records import EpisodeRecord


class RunDir:
    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.episodes_path = self.path / "episodes.jsonl"
        self.traces = self.path / "traces"
        self._lock = threading.Lock()

    def init(self, config: dict[str, Any], resume: bool) -> None:
        self.path.mkdir(parents=True, exist_ok=True)
        self.traces.mkdir(exist_ok=True)
        cfg = self.path / "config.json"
        if cfg.exists():
            old = json.loads(cfg.read_text())
            if not resume and self.episodes_path.exists() and self.episodes_path.stat().st_size > 0:
                raise FileExistsError(f"{self.path} already holds a run; pass --resume to continue it")
            if resume:
                keys = ("policies", "split", "seeds", "repeats", "backends")
                def norm(v: Any) -> Any:
                    return json.loads(json.dumps(v, sort_keys=True, default=str))

                changed = [k for k in keys if k in old and k in config and norm(old[k]) != norm(config[k])]
                if changed:
                    raise ValueError(f"--resume with a different {', '.join(changed)} than the run in {self.path}")
                config = {**old, **config}
        tmp = cfg.with_suffix(".tmp")
        tmp.write_text(json.dumps(config, indent=2, sort_keys=True, default=str))
        os.replace(tmp, cfg)

    def config(self) -> dict[str, Any]:
        return json.loads((self.path / "config.json").read_text())

    def records(self) -> list[EpisodeRecord]:
        if not self.episodes_path.exists():
            return []
        out = []
        with self.episodes_path.open(encoding="utf-8") as f:
            for line in f:
                line = line.strip()
                if not line:
                    continue
                try:
                    out.append(EpisodeRecord.model_validate_json(line))
                except ValueError:
                    continue  # a torn last line from a crash mid-write: that episode reruns
        return out

    def done_ids(self) -> set[str]:
        return {r.episode_id for r in self.records() if r.error_kind != "infra"}

    def append(self, rec: EpisodeRecord) -> None:
        line = rec.model_dump_json() + "\n"
        with self._lock:
            with self.episodes_path.open("a", encoding="utf-8") as f:
                f.write(line)
                f.flush()
                os.fsync(f.fileno())
