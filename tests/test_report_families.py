"""Retention per phone family and per Android version (summary.json ``by_family``, report.md, report.html).

Synthetic run directories from EpisodeRecord objects: a Pixel (Google apps, Android 14, in
config.json with its release) keeps most of the sim gain; a Samsung (a real phone: no release
in config.json, the records carry theirs, and no ``app_families``: its family is the phone's
flavor) keeps none; a Xiaomi ran one task only, too few to report. The numbers are checked
against a hand computation.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from transfer.records import EpisodeRecord, episode_key
from transfer.report import build_summary, write_report
from transfer.report.families import MIN_TASKS, android_of, family_of
from transfer.tasks.loader import load_templates

B = 400  # bootstrap replicates: enough for tests, fast
N = 12  # tasks per big group

# single-app templates, none of them Settings (the Pixel reads Settings as aosp, everything else as google)
TASKS = [t.id for t in load_templates() if len(t.apps) == 1 and t.apps[0] != "settings"][:2 * N + 2]
APPS = ("launcher", "settings", "clock", "contacts", "messages", "calendar", "files", "calculator", "phone")
PIXEL_FAMILIES = {a: ("aosp" if a == "settings" else "google") for a in APPS}
CONFIG = {"run_id": "fam", "base_policy": "base", "trained_policy": "trained",
          "phones": [{"serial": "pixel-1", "virtual": True, "android": 14, "flavor": "aosp"},
                     {"serial": "sm-1", "virtual": False, "flavor": "samsung"},
                     {"serial": "mi-1", "virtual": False, "android": "12", "flavor": "xiaomi",
                      "apps": {a: {"package": f"com.miui.{a}", "version": "1", "family": "xiaomi"} for a in APPS}}]}


def rec(policy: str, task: str, backend: str, repeat: int, success: bool, serial: str | None = None,
        **kw: Any) -> EpisodeRecord:
    target = serial or "sim/default"
    return EpisodeRecord(episode_id=episode_key(policy, task, 0, backend, target, repeat), policy=policy,
                         task_id=task, seed=0, repeat=repeat, backend=backend, target=target,
                         device_serial=serial, success=success, progress=1.0 if success else 0.0, steps=4, **kw)


def phone_kw(serial: str) -> dict[str, Any]:
    if serial == "pixel-1":
        return {"app_families": PIXEL_FAMILIES, "flavor": "aosp"}
    if serial == "sm-1":
        return {"flavor": "samsung", "android": "13"}  # a real phone: its release rides on the record
    return {"flavor": "xiaomi"}  # no app_families: config.json's apps say xiaomi


def records() -> list[EpisodeRecord]:
    """Per task i of a 12-task group: base passes in sim iff i % 4 == 0, trained iff i % 4 != 3
    (sim gain 9/12 − 3/12 = +50 pt in each group). On the Pixel base does as in sim and trained
    also fails i == 6 (device gain 8/12 − 3/12 = +41.7 pt, retention 5/6); on the Samsung trained
    does no better than base (device gain 0, retention 0). The Xiaomi ran one task; the last task
    ran base on the Pixel and trained on the Samsung (paired in the headline, in no group)."""
    out: list[EpisodeRecord] = []
    for n, task in enumerate(TASKS):
        i = n % N
        sim_b, sim_t = i % 4 == 0, i % 4 != 3
        if n < N:
            phones, dev_b, dev_t = ("pixel-1", "pixel-1"), sim_b, sim_t and i != 6
        elif n < 2 * N:
            phones, dev_b, dev_t = ("sm-1", "sm-1"), sim_b, sim_b
        elif n == 2 * N:
            phones, dev_b, dev_t = ("mi-1", "mi-1"), True, True
        else:
            phones, dev_b, dev_t = ("pixel-1", "sm-1"), False, True
        for r in range(2):
            out += [rec("base", task, "sim", r, sim_b), rec("trained", task, "sim", r, sim_t),
                    rec("base", task, "device", r, dev_b, phones[0], **phone_kw(phones[0])),
                    rec("trained", task, "device", r, dev_t, phones[1], **phone_kw(phones[1]))]
    return out


def write_run(path: Path, recs: list[EpisodeRecord], config: dict[str, Any] = CONFIG) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    (path / "config.json").write_text(json.dumps(config), encoding="utf-8")
    (path / "episodes.jsonl").write_text("".join(r.model_dump_json() + "\n" for r in recs), encoding="utf-8")
    return path


def brackets(est: dict[str, Any]) -> bool:
    lo, hi = est["ci"]
    return lo <= est["value"] <= hi


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Any:
    assert len(TASKS) == 2 * N + 2
    return write_report(write_run(tmp_path_factory.mktemp("fam") / "run", records()), bootstrap=B)


def test_groups_and_hand_computed_numbers(report: Any) -> None:
    bf = report.data["by_family"]
    assert bf["available"] and bf["min_tasks"] == MIN_TASKS and bf["dimensions"] == ["family", "android"]
    assert bf["n_headline_tasks"] == 2 * N + 2 == report.data["headline"]["n_tasks"]
    assert [r["group"] for r in bf["family"]] == ["google", "samsung", "xiaomi"]
    assert [r["group"] for r in bf["android"]] == ["12", "13", "14"]
    fam = {r["group"]: r for r in bf["family"]}
    andr = {r["group"]: r for r in bf["android"]}

    keeps, loses = fam["google"], fam["samsung"]
    for g in (keeps, loses):
        assert g["available"] and g["n_tasks"] == N
        assert g["unpaired_tasks"] == 1  # the task whose two policies ran on different phones
        assert g["sr"]["sim_base"]["value"] == pytest.approx(3 / 12)
        assert g["sr"]["sim_trained"]["value"] == pytest.approx(9 / 12)
        assert g["gain_sim"]["value"] == pytest.approx(0.5)
        assert g["counts"]["device_base"] == {"k": 6, "n": 24}
        for est in (g["sr"]["device_base"], g["sr"]["device_trained"], g["gain_device"], g["gain_sim"],
                    g["difference"], g["retention"]):
            assert brackets(est), est
        assert g["gain_sim"]["ci"][0] > 0  # the sim gain is clear of zero, so retention means something
        assert g["retention"]["meaningful"]
    assert keeps["phones"] == ["pixel-1"] and loses["phones"] == ["sm-1"]
    # counted device episodes on the phones, the cross-phone task's one side included
    assert keeps["device_episodes"] == {"base": 2 * N + 2, "trained": 2 * N}
    assert loses["device_episodes"] == {"base": 2 * N, "trained": 2 * N + 2}

    # the Pixel keeps 5/6 of the gain
    assert keeps["sr"]["device_base"]["value"] == pytest.approx(3 / 12)
    assert keeps["sr"]["device_trained"]["value"] == pytest.approx(8 / 12)
    assert keeps["counts"]["device_trained"] == {"k": 16, "n": 24}
    assert keeps["gain_device"]["value"] == pytest.approx(5 / 12)
    assert keeps["retention"]["value"] == pytest.approx(5 / 6, abs=1e-6)
    assert keeps["gain_device"]["ci"][0] > 0 and keeps["retention"]["ci"][0] < 5 / 6 < keeps["retention"]["ci"][1]
    # the Samsung keeps none of it
    assert loses["sr"]["device_base"]["value"] == pytest.approx(3 / 12)
    assert loses["sr"]["device_trained"]["value"] == pytest.approx(3 / 12)
    assert loses["gain_device"]["value"] == 0.0 and loses["gain_device"]["ci"] == [0.0, 0.0]
    assert loses["retention"]["value"] == 0.0 and loses["difference"]["value"] == pytest.approx(-0.5)

    # one task on the Xiaomi (family from config.json's apps): says so, no number
    x = fam["xiaomi"]
    assert not x["available"] and x["n_tasks"] == 1 and "only 1 paired task" in x["reason"]
    assert "sr" not in x and "retention" not in x and "gain_device" not in x

    # Android: 14 is the Pixel (config.json), 13 the Samsung (the records' own), 12 the Xiaomi
    for a, f in (("14", "google"), ("13", "samsung")):
        assert andr[a]["available"] and andr[a]["phones"] == fam[f]["phones"]
        assert andr[a]["counts"] == fam[f]["counts"] and andr[a]["n_tasks"] == fam[f]["n_tasks"]
        for k in ("sr", "gain_sim", "gain_device", "difference", "retention"):
            assert andr[a][k] == fam[f][k]  # the same tasks and the headline's seed: the same intervals
    assert not andr["12"]["available"]

    # the groups split the headline's device episodes (less the task paired across two phones)
    h = report.data["headline"]
    assert sum(fam[g]["counts"]["device_trained"]["n"] for g in ("google", "samsung")) + 2 + 2 == \
        h["counts"]["device_trained"]["n"]


def test_rendered_table(report: Any) -> None:
    md = report.markdown.read_text(encoding="utf-8")
    sec = md.split("## Retention by phone family and Android version")[1].split("\n## ")[0]
    rows = {line.split("|")[2].strip(): line for line in sec.splitlines() if line.startswith("| family")
            or line.startswith("| android")}
    assert set(rows) == {"google", "samsung", "xiaomi", "Android 12", "Android 13", "Android 14"}
    assert "+41.7 pt" in rows["google"] and "83.3%" in rows["google"] and "+50.0 pt" in rows["google"]
    assert "+0.0 pt" in rows["samsung"] and "0.0%" in rows["samsung"]
    assert "not available: only 1 paired task" in rows["xiaomi"]
    html = report.html.read_text(encoding="utf-8")
    assert "<section id='families'><h2>Retention by phone family and Android version</h2>" in html
    assert "href='#families'" in html and "Android 14" in html and "not available: only 1 paired task" in html


def test_the_headline_carries_the_per_family_rows(report: Any) -> None:
    """What `s2r run`/`paired`/`demo` print: one line per family and per Android version, ≤ 78 columns."""
    from transfer.report import headline

    text = headline(report.data)
    rows = {ln.split()[0] if not ln.strip().startswith("Android") else " ".join(ln.split()[:2]): ln
            for ln in text.splitlines() if ln.startswith("    ")}
    assert set(rows) == {"google", "samsung", "xiaomi", "Android 12", "Android 13", "Android 14"}
    assert "25.0% →  66.7%" in rows["google"] and "+41.7 pt" in rows["google"] and "83.3% [" in rows["google"]
    assert "25.0% →  25.0%" in rows["samsung"] and "0.0% [" in rows["samsung"]
    assert "not available: only 1 paired task" in rows["xiaomi"]
    assert rows["Android 14"].split("tasks", 1)[1] == rows["google"].split("tasks", 1)[1]
    assert " 1 task  not available" in rows["xiaomi"]
    assert all(len(ln) <= 78 for ln in text.splitlines())


def test_one_family_reproduces_the_headline(tmp_path: Path) -> None:
    recs = [r for r in records() if r.task_id in TASKS[:N]]  # the Pixel's tasks only
    s = build_summary(write_run(tmp_path / "one", recs), bootstrap=B)
    h, (g,) = s["headline"], s["by_family"]["family"]
    assert g["group"] == "google" and g["n_tasks"] == h["n_tasks"] == N and g["unpaired_tasks"] == 0
    for k in ("sr", "gain_sim", "gain_device", "difference", "retention", "counts", "seed", "n_boot"):
        assert g[k] == h[k], k
    assert [r["group"] for r in s["by_family"]["android"]] == ["14"]
    from transfer.report import headline

    assert "by phone" not in headline(s)  # one group would only repeat the headline


def test_a_run_without_device_episodes_has_no_table(tmp_path: Path) -> None:
    recs = [r for r in records() if r.backend == "sim"]
    p = write_report(write_run(tmp_path / "sim", recs), bootstrap=B)
    bf = p.data["by_family"]
    assert not bf["available"] and bf["device_episodes"] == 0 and "no device episodes" in bf["reason"]
    assert "Retention by phone family" not in p.markdown.read_text(encoding="utf-8")
    assert "Retention by phone family" not in p.html.read_text(encoding="utf-8")


def test_no_roles_says_why(tmp_path: Path) -> None:
    s = build_summary(write_run(tmp_path / "r", records(), {"run_id": "r", "phones": CONFIG["phones"]}), bootstrap=B)
    assert s["headline"]["available"]  # the policies are named base and trained
    recs = [r.model_copy(update={"policy": "a" if r.policy == "base" else "b"}) for r in records()]
    s = build_summary(write_run(tmp_path / "n", recs, {"run_id": "n"}), bootstrap=B)
    assert not s["by_family"]["available"] and "base_policy" in s["by_family"]["reason"]


def test_family_and_android_rules() -> None:
    pixel = rec("base", "x", "device", 0, True, "pixel-1", app_families=PIXEL_FAMILIES, flavor="aosp")
    assert family_of(pixel, {}, ["clock"]) == "google"
    assert family_of(pixel, {}, ["settings"]) == "aosp"  # the task's app decides, not the phone
    assert family_of(pixel, {}, ["settings", "clock"]) == "aosp+google"
    assert family_of(pixel, {}, None) == "aosp"  # a task the library lacks, families disagree: the flavor
    assert family_of(rec("b", "x", "device", 0, True, "p", app_families={"clock": "google"}), {}, None) == "google"
    assert family_of(pixel, {"flavor": "aosp"}, None) == "aosp"
    bare = rec("base", "x", "device", 0, True, "r-1", flavor="samsung")
    assert family_of(bare, {}, ["clock"]) == "samsung"  # the record's flavor
    assert family_of(bare, {"flavor": "xiaomi"}, ["clock"]) == "xiaomi"  # config.json's flavor first
    assert family_of(bare, {"apps": {"clock": {"family": "google"}}}, ["clock"]) == "google"
    assert family_of(rec("base", "x", "device", 0, True, "r-2", flavor=None), {}, ["clock"]) == "unknown"
    assert android_of(bare, {"android": 14}) == "14"
    assert android_of(bare, {}) == "unknown"
    assert android_of(rec("b", "x", "device", 0, True, "r", android_version="11"), {}) == "11"
    assert android_of(rec("b", "x", "device", 0, True, "r", android="13"), {"android": 12}) == "12"
