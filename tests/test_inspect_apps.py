"""``s2r inspect --app`` reads every real app dump right: the app, its family, every control the
dump's truth lists (by role, at its bounds) and what a person reads there.

Why: the app UI layer is what the oracle, the UI probes and teardown see of a phone; the real
dumps in ``tests/fixtures/real-apps`` (Google Clock and Messages, Samsung, Xiaomi and an
OEM-skinned AOSP Settings, Pixel and One UI launchers — see SOURCES.md there) are the evidence
of what phones people own show. Each ``.truth.json`` was written from the XML by a person, not by
s2r, so these checks compare s2r's reading with an independent one. The comparisons convert the
truth's wording (``"8:25 AM"``, ``"Mon, Tue"``) with code of this file's own, not the readers'.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from s2r.cli import app as cli

from _appfixtures import REAL as FIXTURES
from _appfixtures import bounds as _bounds

TRUTHS = sorted(FIXTURES.glob("*/*/*.truth.json"))

# the truth files' role names → ours where they differ (the issue's names for the main controls)
ROLE_ALIASES = {"add_alarm_fab": "add_alarm", "label": "alarm_label", "ok": "time_picker_ok",
                "cancel": "time_picker_cancel"}
_DAYS = {"sun": "sun", "mon": "mon", "tue": "tue", "wed": "wed", "thu": "thu", "fri": "fri", "sat": "sat"}
_WEEK = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]


def _inspect(xml: Path) -> dict[str, Any]:
    res = CliRunner().invoke(cli, ["inspect", "--app", "--json", str(xml)])
    assert res.exit_code == 0, res.output
    return json.loads(res.output)


def _truth_time(s: str) -> str:
    m = re.fullmatch(r"(\d{1,2}):(\d{2})\s*([AP]M)?", s.replace("\u200a", " ").replace("\u202f", " ").strip())
    assert m, s
    h, mi = int(m.group(1)), int(m.group(2))
    if m.group(3):
        h = h % 12 + (12 if m.group(3) == "PM" else 0)
    return f"{h:02d}:{mi:02d}"


def _truth_days(a: dict[str, Any]) -> list[str] | None:
    if "days" in a:
        got = [_DAYS[p.strip().lower()[:3]] for p in a["days"].split(",")]
        return sorted(got, key=_WEEK.index)
    return sorted(a.get("repeat_days_checked") or [], key=_WEEK.index) or None


def _truth_label(a: dict[str, Any]) -> str | None:
    if a.get("label_desc") == "No label specified" or not a.get("label"):
        return None
    return a["label"]


def _check_visible(key: str, want: Any, got: dict[str, Any]) -> bool:
    """Compare one visible item; False when s2r does not model this key (reported, not passed)."""
    if key == "alarms":
        assert [(x["time"], x["enabled"], x["label"], x["days"]) for x in got["alarms"]] == \
            [(_truth_time(a["time"]), a["enabled"], _truth_label(a), _truth_days(a)) for a in want]
    elif key == "tabs" and want and isinstance(want[0], dict):
        assert got["tabs"] == want
    elif key in ("title", "result", "formula", "digits"):
        assert got[key] == want
    elif key == "sounds":
        assert got["sounds"] == want
    elif key == "selected_sound":
        assert got["selected_sound"] == want
    elif key == "apps" and isinstance(want, list):
        assert got["apps"] == want
    elif key == "conversations":
        assert [(c["name"], c["snippet"]) for c in got["conversations"]] == [(c["name"], c["snippet"]) for c in want]
    elif key == "toggles":
        assert got["toggles"] == want
    elif key in ("items", "events", "contacts"):  # names / titles, top to bottom
        names = [x if isinstance(x, str) else (x.get("name") or x.get("title")) for x in want]
        assert got[key] == names
    elif key == "contact":
        assert {k: got["contact"].get(k) for k in want} == want
    elif key in ("hour", "minute", "period"):
        assert got[key] == want
    else:
        return False
    return True


@pytest.mark.parametrize("truth", TRUTHS, ids=[str(t.relative_to(FIXTURES)) for t in TRUTHS])
def test_inspect_app_reads_the_real_dump_right(truth: Path) -> None:
    t = json.loads(truth.read_text("utf-8"))
    got = _inspect(truth.with_name(truth.name.replace(".truth.json", ".xml")))
    assert got["package"] == t["package"]
    assert got["app"] == t["app"]
    assert got["family"] == t["family"]
    assert got["screen"] is not None, got["problems"]
    # every control the truth lists is found, with its role, at its bounds
    have = {(c["role"], tuple(c["bounds"])) for c in got["controls"]}
    missing = [c for c in t["controls"]
               if (ROLE_ALIASES.get(c["role"], c["role"]), tuple(_bounds(c["bounds"]))) not in have]
    assert not missing, f"controls not recognised: {missing}"
    for c in t["controls"]:
        if "checked" in c:
            mine = [x for x in got["controls"] if x["role"] == ROLE_ALIASES.get(c["role"], c["role"])
                    and x["bounds"] == _bounds(c["bounds"])]
            assert mine[0].get("checked") == c["checked"], c
    # every visible item s2r models is read as the truth says
    for key, want in t["visible"].items():
        if key in got["visible"] or key in ("alarms", "conversations", "contacts", "contact", "events", "items",
                                            "formula", "result", "digits", "toggles"):
            assert _check_visible(key, want, got["visible"]) or key in got["visible"], key


def test_the_clock_tab_and_a_foreign_app_are_not_alarm_lists() -> None:
    """The Clock tab's big digital_clock is not an alarm; an unknown app is reported, never guessed."""
    from actionmap.observation import UIElement
    from device.apps import read_screen

    def el(i: int, b: tuple[int, int, int, int], **kw: Any) -> UIElement:
        return UIElement.from_px(i, b, (1080, 2400), **kw)

    clock_tab = [el(0, (0, 0, 1080, 2400), package="com.android.deskclock", class_name="android.widget.FrameLayout"),
                 el(1, (0, 300, 1080, 2100), package="com.android.deskclock",
                    class_name="androidx.recyclerview.widget.RecyclerView", resource_id="com.android.deskclock:id/cities"),
                 el(2, (100, 400, 900, 700), package="com.android.deskclock", text="10:42",
                    class_name="android.widget.TextClock", resource_id="com.android.deskclock:id/digital_clock")]
    r = read_screen(clock_tab)
    assert r.app == "clock" and r.family == "aosp"
    assert r.visible.get("alarms", []) == []
    foreign = [el(0, (0, 0, 1080, 2400), package="com.example.clock", class_name="android.widget.FrameLayout"),
               el(1, (100, 400, 900, 700), package="com.example.clock", text="7:30 AM")]
    r = read_screen(foreign)
    assert r.screen is None and r.problems and "com.example.clock" in r.problems[0]


def test_inspect_app_refuses_a_file_that_is_not_a_dump(tmp_path: Path) -> None:
    p = tmp_path / "x.txt"
    p.write_text("Physical size: 1080x2400\n")
    res = CliRunner().invoke(cli, ["inspect", "--app", "--json", str(p)])
    assert res.exit_code == 2 and "hierarchy" in res.output


def test_the_architecture_docs_worked_example_family_reads_an_acme_clock() -> None:
    """ARCHITECTURE.md's "adding a family is data" example, taken from the document as written."""
    import yaml

    from actionmap.observation import UIElement
    from device.apps.clock import ClockDriver
    from device.apps.spec import FamilySpec, load_spec

    doc = (Path(__file__).parent.parent / "ARCHITECTURE.md").read_text("utf-8")
    block = re.search(r"```yaml\n(.*?)```", doc[doc.index("## App UI layer"):], re.S)
    assert block is not None
    raw = yaml.safe_load(block.group(1))
    spec = load_spec("clock").model_copy(deep=True)
    spec.families["acme"] = FamilySpec(name="acme", **raw["acme"])
    drv = ClockDriver()
    drv.spec = spec

    def el(i: int, b: tuple[int, int, int, int], **kw: Any) -> UIElement:
        return UIElement.from_px(i, b, (1080, 2400), package="com.acme.clock", **kw)

    screen = [el(0, (0, 0, 1080, 2400), class_name="android.widget.FrameLayout"),
              el(1, (0, 200, 1080, 2000), class_name="androidx.recyclerview.widget.RecyclerView", scrollable=True),
              el(2, (0, 200, 1080, 500), resource_id="com.acme.clock:id/alarm_row", clickable=True),
              el(3, (40, 240, 500, 400), text="6:45 AM"),
              el(4, (40, 400, 500, 480), text="Gym"),
              el(5, (900, 280, 1040, 380), class_name="android.widget.Switch", checkable=True, checked=True),
              el(6, (0, 500, 1080, 800), resource_id="com.acme.clock:id/alarm_row", clickable=True),
              el(7, (40, 540, 500, 700), text="21:30"),
              el(8, (900, 580, 1040, 680), class_name="android.widget.Switch", checkable=True, checked=False),
              el(9, (440, 2050, 640, 2250), content_desc="New alarm", clickable=True)]
    assert drv.family_of("com.acme.clock") == "acme"
    r = drv.read(screen)
    assert r.family == "acme" and r.screen == "alarm_list", r.problems
    assert [(a["time"], a["enabled"]) for a in r.visible["alarms"]] == [("06:45", True), ("21:30", False)]
    assert [c.bounds for c in r.controls if c.role == "add_alarm"] == [[440, 2050, 640, 2250]]
