"""Retention per phone family and per Android version: the headline, group by group.

A farm may mix phone families (whose screens s2r reads as ``aosp``, ``google``, ``samsung``,
``xiaomi``: :mod:`device.appfamilies`) and Android releases. The headline pools them; this
module splits the device side of it. For each group of device episodes it computes what
:func:`transfer.report.gains.transfer_stats` computes for the headline — the same paired task
bootstrap over the same (bridge-fault-free) paired tasks, with the headline's seed — with
the device cells restricted to the group's episodes and the sim cells left whole, so the
retention of a group is its device gain over the sim gain *on the same tasks*.

Which group an episode is in:

* **family** — the family of the task's app on the phone the episode ran on: the record's
  ``app_families[app]`` for each app of the task's template (``apps``), else that phone's
  ``apps[app].family`` in ``config.json``; a task whose apps fall in two families is
  ``a+b``. With neither, the phone's ``flavor`` (``config.json``, else the record's), else
  ``unknown``.
* **android** — the phone's ``android`` in ``config.json`` ``phones`` (by ``device_serial``,
  else the record's target); a real phone without one: the record's own ``android`` /
  ``android_version`` if it carries one, else ``unknown``.

A group needs :data:`MIN_TASKS` paired tasks (counted device episodes of both policies on
the group's phones); with fewer it says so instead of showing a number.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Iterable

from transfer.records import EpisodeRecord

from .cells import build_cells
from .gains import transfer_stats

MIN_TASKS = 3
"""Fewest paired tasks a group needs for its rates, gains and retention to be reported."""

DIMENSIONS = ("family", "android")
UNKNOWN = "unknown"

RULE = ("Each device episode is grouped by the family of its task's app on the phone it ran on (the record's "
        "app_families, else the phone's apps in config.json; a task whose apps fall in two families counts as "
        "'a+b'; with neither, the phone's flavor) and by the phone's Android version (config.json phones, else "
        "the record's own, else 'unknown'). Per group: the headline's paired task bootstrap over the headline's "
        "paired tasks that have counted device episodes of both policies on that group's phones; the sim side "
        "is the whole simulator run on those same tasks, so retention = the group's device gain / the sim gain "
        f"on its tasks. A group with fewer than {MIN_TASKS} such tasks is not reported.")


# ---------------------------------------------------------------------------- grouping


@lru_cache(maxsize=1)
def _template_apps() -> dict[str, tuple[str, ...]]:
    """Template id → its apps, from the template library; {} when the library cannot load."""
    try:
        from transfer.tasks.loader import load_templates

        return {t.id: tuple(t.apps) for t in load_templates()}
    except Exception:  # noqa: BLE001 - a report must not fail because the library does
        return {}


def _phones(config: dict[str, Any]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for ph in config.get("phones") or []:
        if isinstance(ph, dict) and ph.get("serial"):
            out[str(ph["serial"])] = ph
    return out


def _serial(r: EpisodeRecord) -> str:
    return r.device_serial or r.target or UNKNOWN


def _extra(r: EpisodeRecord, *keys: str) -> Any:
    extra = r.model_extra or {}
    for k in keys:
        if extra.get(k) not in (None, ""):
            return extra[k]
    return None


def family_of(r: EpisodeRecord, phone: dict[str, Any], apps: Iterable[str] | None) -> str:
    """The family group of one device episode (see the module docstring)."""
    rec_fam = r.app_families or {}
    cfg_apps = phone.get("apps") if isinstance(phone.get("apps"), dict) else {}
    if apps is None and rec_fam:  # a task the library does not know: the phone's families, if they agree
        fams = set(rec_fam.values())
        if len(fams) == 1:
            return fams.pop()
    found: list[str] = []
    for app in apps or ():
        fam = rec_fam.get(app)
        if not fam:
            entry = cfg_apps.get(app)
            fam = entry.get("family") if isinstance(entry, dict) else None
        if fam:
            found.append(str(fam))
    if found:
        return "+".join(sorted(set(found)))
    return str(phone.get("flavor") or r.flavor or UNKNOWN)


def android_of(r: EpisodeRecord, phone: dict[str, Any]) -> str:
    """The Android version group of one device episode (see the module docstring)."""
    v = phone.get("android") if phone.get("android") not in (None, "") else phone.get("android_version")
    if v in (None, ""):
        v = _extra(r, "android", "android_version")
    return UNKNOWN if v in (None, "") else str(v)


def group_records(records: Iterable[EpisodeRecord], config: dict[str, Any],
                  policies: Iterable[str]) -> dict[str, dict[str, list[EpisodeRecord]]]:
    """dimension → group → the device episodes of ``policies`` in it."""
    phones = _phones(config)
    apps = _template_apps()
    want = set(policies)
    out: dict[str, dict[str, list[EpisodeRecord]]] = {d: {} for d in DIMENSIONS}
    for r in records:
        if r.backend != "device" or r.policy not in want:
            continue
        phone = phones.get(_serial(r), {})
        out["family"].setdefault(family_of(r, phone, apps.get(r.task_id)), []).append(r)
        out["android"].setdefault(android_of(r, phone), []).append(r)
    return out


def _order(dim: str, groups: Iterable[str]) -> list[str]:
    """Groups by name (Android versions numerically), 'unknown' last."""
    def key(g: str) -> tuple:
        nums = tuple(int(x) for x in re.findall(r"\d+", g)) if dim == "android" else ()
        return (g == UNKNOWN, nums == () if dim == "android" else False, nums, g)
    return sorted(groups, key=key)


# ---------------------------------------------------------------------------- statistics


def _group_row(dim: str, group: str, recs: list[EpisodeRecord], cells: dict, base: str, trained: str,
               tasks: list[str], n_boot: int, seed: int, min_gain: float) -> dict[str, Any]:
    dev = build_cells(recs)
    db, dt = dev.get((base, "device"), {}), dev.get((trained, "device"), {})
    paired = [t for t in tasks if t in db and t in dt and db[t].counted and dt[t].counted]
    touched = sorted({t for t, c in {**db, **dt}.items() if c.counted})
    row: dict[str, Any] = {
        "dimension": dim, "group": group,
        "phones": sorted({_serial(r) for r in recs}),
        "n_tasks": len(paired),
        "unpaired_tasks": len([t for t in touched if t not in set(paired)]),
        "device_episodes": {"base": sum(c.counted for c in db.values()),
                            "trained": sum(c.counted for c in dt.values())},
    }
    if len(paired) < MIN_TASKS:
        why = (f"only {len(paired)} paired task{'' if len(paired) == 1 else 's'} on these phones (counted device "
               f"episodes of both '{base}' and '{trained}', and in the headline); at least {MIN_TASKS} are needed "
               "for a task bootstrap")
        if row["unpaired_tasks"]:
            why += f"; {row['unpaired_tasks']} more task(s) ran here for one policy only or are not in the headline"
        row.update(available=False, reason=why)
        return row
    gcells = {(base, "sim"): cells[(base, "sim")], (trained, "sim"): cells[(trained, "sim")],
              (base, "device"): db, (trained, "device"): dt}
    # the headline's seed label: a group holding every headline task reproduces the headline exactly
    row.update(transfer_stats(gcells, base, trained, paired, n_boot, seed, "transfer", min_gain))
    row["available"] = True
    return row


def retention_by_group(records: list[EpisodeRecord], config: dict[str, Any], cells: dict, base: str | None,
                       trained: str | None, headline: dict[str, Any], tasks: list[str], *, n_boot: int,
                       seed: int, min_gain: float) -> dict[str, Any]:
    """The ``by_family`` section of summary.json.

    ``cells`` are the summary's (policy, backend) cells, ``headline``/``tasks`` its headline
    and the headline's paired tasks (bridge faults already left out).
    """
    n_dev = sum(1 for r in records if r.backend == "device")
    out: dict[str, Any] = {"device_episodes": n_dev, "min_tasks": MIN_TASKS, "rule": RULE,
                           "dimensions": list(DIMENSIONS)}
    if not n_dev:
        out.update(available=False, reason="the run has no device episodes")
        return out
    if not headline.get("available") or not base or not trained:
        out.update(available=False, reason=headline.get("reason") or "no transfer headline")
        return out
    groups = group_records(records, config, (base, trained))
    out.update(available=True, base_policy=base, trained_policy=trained, n_headline_tasks=len(tasks))
    for dim in DIMENSIONS:
        out[dim] = [_group_row(dim, g, groups[dim][g], cells, base, trained, tasks, n_boot, seed, min_gain)
                    for g in _order(dim, groups[dim])]
    return out
