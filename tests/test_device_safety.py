"""Safety of driving a person's phone: tagging, restore, refusals, text that is never a command.

The first half tests the pure rules (no phone); the second half runs setup + teardown on a
virtual phone through a private adb server, adbutils and uiautomator2, and compares the
whole WorldState before and after.
"""

from __future__ import annotations

import shlex
from datetime import datetime
from pathlib import Path
from typing import Any, Iterator

import pytest

from actionmap.observation import UIElement
from actionmap.patch import StatePatch
from actionmap.worldstate import WorldState, flatten
from device.adbshell import quote_argv
from device.input import input_text_arg
from device.readers import (alarms_from_elements, content_query, invisible_marker, untagged, marker, parse_alarm_days, parse_alarm_time, parse_ls_lr,
                            parse_stat_lines, strip_tag)
from device.writers import DeviceWriter, Journal, new_tag, real_world_effects, refusal_reason

pytestmark = pytest.mark.timeout(600)

NASTY = "'; reboot; $(id) `ls` | > /sdcard/x &"


# ============================================================================ pure rules
def test_argv_quoting_keeps_every_word_intact() -> None:
    words = ["content", "insert", "--bind", f"data1:s:{NASTY}", "王小明 😀", "a\nb", "", "$HOME"]
    assert shlex.split(quote_argv(words)) == words
    with pytest.raises(TypeError):
        quote_argv("echo hi")  # type: ignore[arg-type]


def test_input_text_arg_is_ascii_only_and_spaces_become_percent_s() -> None:
    assert input_text_arg("a b") == "a%sb"
    assert input_text_arg(NASTY) == NASTY.replace(" ", "%s")
    assert shlex.split(quote_argv(["input", "text", input_text_arg(NASTY) or ""]))[2] == NASTY.replace(" ", "%s")
    assert input_text_arg("你好") is None
    assert input_text_arg("emoji 😀") is None
    assert input_text_arg("100%s sure") is None  # would be typed as a space: refused, not mistyped
    assert input_text_arg("") is None


def test_marker_and_strip_tag_round_trip() -> None:
    tag = new_tag()
    assert tag.startswith("s2r-") and len(tag) == 12
    assert strip_tag(f"Standup {marker(tag)}") == ("Standup", tag)
    assert strip_tag("Lunch [s2r] with 王") == ("Lunch [s2r] with 王", None)
    with pytest.raises(ValueError):
        marker("not-a-tag")
    inv = invisible_marker(tag)
    assert all(c in "\u2063\u200b\u200c\u200d\u2060" for c in inv) and len(inv) == 17
    assert strip_tag("Gym" + inv) == ("Gym", tag)
    assert untagged(f"a{inv} b {marker(tag)}") == "a b"


def test_observations_show_labels_as_a_person_sees_them() -> None:
    """A policy never sees run tags: not in a label, not in a description, and not as the empty
    label line of an alarm set up without a label (found by diffing sim and phone observations)."""
    from device.env import without_run_tags

    tag = new_tag()
    inv = invisible_marker(tag)
    screen = (1080, 2400)
    els = [UIElement.from_px(0, (77, 656, 1004, 712), screen, text=inv, resource_id="com.android.deskclock:id/label"),
           UIElement.from_px(1, (77, 712, 352, 838), screen, text="07:00", resource_id="com.android.deskclock:id/digital_clock",
                             clickable=True),
           UIElement.from_px(2, (861, 731, 1004, 819), screen, text="ON", content_desc=f"07:00 {inv} alarm",
                             checkable=True, checked=True),
           UIElement.from_px(3, (77, 900, 1004, 950), screen, text="Gym" + inv),
           UIElement.from_px(4, (77, 960, 1004, 990), screen, text=f"see {marker(tag)} there")]
    seen = without_run_tags(els)
    assert [e.text for e in seen] == ["07:00", "ON", "Gym", "see there"]
    assert [e.index for e in seen] == [0, 1, 2, 3]
    assert seen[1].content_desc == "07:00 alarm" and seen[1].checked
    # an element that takes input stays even when its only text was a tag
    field = UIElement.from_px(0, (0, 0, 100, 50), screen, text=inv, editable=True)
    assert without_run_tags([field])[0].text == ""


def _instance(template: str, **ctx: Any) -> Any:
    from transfer.tasks.loader import get_template

    return get_template(template).instantiate(0, context=ctx or None)


def test_real_world_effects_detected_from_goals() -> None:
    send = _instance("messages.send_test")
    assert [w for w, _ in real_world_effects(send)] == ["sends an SMS"]
    assert real_world_effects(_instance("messages.draft")) == []
    assert refusal_reason(send, None) and "test recipient" in refusal_reason(send, None)  # type: ignore[operator]
    mine = _instance("messages.send_test", test_recipient="+44 7700 900123")
    assert refusal_reason(mine, "+44 7700 900123") is None
    assert "not the configured test recipient" in (refusal_reason(send, "+44 7700 900123") or "")
    assert refusal_reason(_instance("messages.draft"), None) is None


def test_alarm_list_parsing_from_clock_ids() -> None:
    def el(i: int, rid: str, text: str, b: tuple[int, int, int, int], **kw: Any) -> UIElement:
        return UIElement.from_px(i, b, (1080, 2400), resource_id=f"com.android.deskclock:id/{rid}", text=text, **kw)

    els = [
        el(0, "alarm_item", "", (0, 300, 1080, 600)),
        el(1, "digital_clock", "6:45\u202fAM", (40, 320, 500, 420)),
        el(2, "label", f"Wake up {marker('s2r-00aa11bb')}", (40, 430, 600, 480)),
        el(3, "days_of_week", "Mon, Tue, Wed, Thu, Fri", (40, 490, 700, 540)),
        el(4, "onoff", "", (900, 320, 1040, 400), checkable=True, checked=True),
        el(5, "alarm_item", "", (0, 620, 1080, 900)),
        el(6, "digital_clock", "20:05", (40, 640, 500, 740)),
        el(7, "days_of_week", "Not scheduled", (40, 790, 700, 840)),
        el(8, "onoff", "", (900, 640, 1040, 720), checkable=True, checked=False),
    ]
    a, b = alarms_from_elements(els)
    assert (a.hour, a.minute, a.label, a.days, a.enabled) == (6, 45, "Wake up", ["mon", "tue", "wed", "thu", "fri"], True)
    assert (b.hour, b.minute, b.label, b.days, b.enabled) == (20, 5, "", [], False)
    # scrolled so that the second item is cut by the list's bottom edge (its label out of view):
    # it is held apart, to be read on the page that shows it whole
    lst = el(9, "alarm_recycler_view", "", (0, 250, 1080, 850), scrollable=True)
    cut = [*els[:4], lst, el(5, "alarm_item", "", (0, 620, 1080, 850)), els[6], els[8]]
    edge: list[Any] = []
    full = alarms_from_elements(cut, clipped=edge)
    assert [(x.hour, x.minute) for x in full] == [(6, 45)] and [(x.hour, x.minute) for x in edge] == [(20, 5)]
    assert len(alarms_from_elements(cut)) == 2  # without the option, everything shown is read
    assert parse_alarm_time("下午7:30") == (19, 30)
    assert parse_alarm_time("12:00 AM") == (0, 0)
    assert parse_alarm_days("Sun, Sat") == ["sat", "sun"]
    assert parse_alarm_days("Every day") == ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
    assert parse_alarm_days("gibberish") is None


def test_alarm_probe_reads_an_item_taller_than_a_page() -> None:
    """An expanded alarm is never seen whole (it touches the list's edge on every page); it is
    read from the page that shows its label, not lost and not split into two alarms."""
    from device.readers import probe_alarms

    def el(i: int, rid: str, text: str, b: tuple[int, int, int, int], **kw: Any) -> UIElement:
        return UIElement.from_px(i, b, (1080, 2400), resource_id=f"com.android.deskclock:id/{rid}", text=text, **kw)

    lst = (0, 250, 1080, 2000)
    pages = [
        [el(0, "alarm_recycler_view", "", lst, scrollable=True),
         el(1, "alarm_item", "", (0, 300, 1080, 600)), el(2, "digital_clock", "06:15", (40, 380, 500, 480)),
         el(3, "label", "Water plants", (40, 320, 600, 370)),
         el(4, "alarm_item", "", (0, 620, 1080, 2000)), el(5, "label", "Bedtime", (40, 640, 600, 690)),
         el(6, "digital_clock", "09:25", (40, 700, 500, 800))],
        [el(0, "alarm_recycler_view", "", lst, scrollable=True),
         el(4, "alarm_item", "", (0, 250, 1080, 1500)), el(7, "days_of_week", "Tomorrow", (40, 300, 600, 350)),
         el(8, "alarm_item", "", (0, 1520, 1080, 1800)), el(9, "digital_clock", "07:00", (40, 1560, 500, 1660))],
    ]

    class Pages:  # the paging a Clock app's list does, as a UIProbe sees it
        i = 0

        def probe_open(self, app: str) -> None: ...
        def probe_elements(self) -> list[UIElement]: return pages[self.i]
        def probe_tap(self, e: UIElement) -> None: ...
        def probe_scroll(self, down: bool) -> None: self.i = min(self.i + 1, 1) if down else max(self.i - 1, 0)
        def probe_home(self) -> None: ...

    got = probe_alarms(Pages())
    assert sorted((a.hour, a.minute, a.label) for a in got or []) == [(6, 15, "Water plants"), (7, 0, ""),
                                                                        (9, 25, "Bedtime")]


def test_file_listings_keep_non_ascii_names() -> None:
    stat = ("4096|1700000000|directory|/sdcard/Download\n"
            "1234|1700000000|regular file|/sdcard/Download/报告 final (1).pdf\n"
            "0|1700000060|regular empty file|/storage/emulated/0/Music/café.mp3\n")
    got = parse_stat_lines(stat, "/sdcard", "UTC")
    assert [(e.path, e.kind, e.size) for e in got] == [
        ("/sdcard/Download", "dir", 0), ("/sdcard/Download/报告 final (1).pdf", "file", 1234),
        ("/sdcard/Music/café.mp3", "file", 0)]
    assert got[1].mtime == datetime(2023, 11, 14, 22, 13, 20)
    ls = ("/sdcard/:\ntotal 8\ndrwxrwx--- 2 u0_a1 sdcard_rw 3452 2023-11-14 22:13 Download\n\n"
          "/sdcard/Download:\ntotal 4\n-rw-rw---- 1 u0_a1 sdcard_rw 12 2023-11-14 22:14 日本語 メモ.txt\n")
    got = parse_ls_lr(ls, "/sdcard")
    assert [(e.path, e.kind, e.size) for e in got] == [("/sdcard/Download", "dir", 0),
                                                        ("/sdcard/Download/日本語 メモ.txt", "file", 12)]


def test_destructive_wipe_needs_the_flag(tmp_path: Path) -> None:
    class NoShell:  # never reached: the flag is checked before any command
        serial = "x"

    w = DeviceWriter(NoShell(), journal_root=tmp_path)  # type: ignore[arg-type]
    with pytest.raises(PermissionError, match="destructive"):
        w.wipe(["contacts"])


def test_journal_persists_and_reloads(tmp_path: Path) -> None:
    j = Journal(serial="127.0.0.1:5555", tag=new_tag(), path=str(tmp_path / "j.json"))
    j.dirs.append("/sdcard/Download/s2r")
    j.save()
    back = Journal.load(tmp_path / "j.json")
    assert back is not None and back.dirs == ["/sdcard/Download/s2r"] and back.tag == j.tag and not back.empty
    back.discard()
    assert not (tmp_path / "j.json").exists()


# ============================================================================ on a virtual phone
_TWEAKED = {"stay_on_while_plugged_in": "7", "window_animation_scale": "0", "transition_animation_scale": "0",
            "animator_duration_scale": "0"}
"""What DeviceEnv's tweaks set (device/preflight.py DeviceTweaks)."""
_DEFAULTS: dict[str, str | None] = {}
"""The phone's own values of those settings, read before the env started."""


@pytest.fixture(scope="module")
def phone_env(tmp_path_factory: pytest.TempPathFactory, adb_host: Any, sim_pool: Any
              ) -> Iterator[tuple[Any, Any, Any]]:
    from device.env import DeviceEnv

    host = adb_host
    phone = None
    env = None
    try:
        phone = host.start_phone(sim_pool)
        _DEFAULTS.update({k: phone.settings.raw("global", k) for k in _TWEAKED})  # before s2r touches the phone
        env = DeviceEnv(phone.serial, journal_dir=str(tmp_path_factory.mktemp("journal")), alarm_probe=True,
                        grant_appops=True)  # a dedicated test phone: SMS setups may lift WRITE_SMS
        env.start()
        yield host, phone, env
    finally:
        if env is not None:
            env.close()


def _comparable(ws: WorldState) -> dict[str, Any]:
    """Flattened state minus what moves on its own (the clock, the screen in front)."""
    flat = flatten(ws)
    return {k: v for k, v in flat.items() if not (k == "time" or k.startswith("foreground."))}


SETUP = {
    "settings": {"wifi": False, "brightness": 40, "dark_mode": True, "font_scale": 1.15},
    "add": {
        "contacts": [{"name": "Zoë 测试", "phones": [{"number": "+1 202 555 0199", "label": "mobile"}],
                      "emails": ["zoe@example.org"], "company": "ACME, Ltd."}],
        "messages": [{"address": "+1 202 555 0199", "body": f"hi 👋 {NASTY}", "box": "inbox", "read": False,
                      "time": "2027-01-01T08:00:00"}],
        "events": [{"title": "Dentist 🦷", "start": "2027-01-03T10:00:00", "end": "2027-01-03T11:00:00",
                    "location": "Main St", "description": "bring card"}],
        "calls": [{"number": "+1 202 555 0199", "name": "Zoë 测试", "kind": "missed", "time": "2027-01-01T07:00:00"}],
        "alarms": [{"hour": 5, "minute": 15, "label": "Gym", "days": ["mon", "wed"]},
                   {"hour": 22, "minute": 30, "label": "Off 🌙", "enabled": False}],
        "files": [{"path": "/sdcard/Download/s2r-test/说明 notes.txt", "kind": "file", "size": 300,
                   "mtime": "2026-12-30T12:00:00"}],
    },
}


def test_setup_applies_tags_and_teardown_restores_everything(phone_env: tuple[Any, Any, Any]) -> None:
    _host, phone, env = phone_env
    env.reset(None)
    before = env.read_state()
    assert before.alarms is not None, env.reader.notes
    obs = env.reset(StatePatch.model_validate(SETUP))
    assert obs.elements, "the phone shows something after reset"
    tag = env.journal.tag
    mid = env.read_state()
    # settings took effect, and the phone's own world (the sim) agrees
    s = mid.settings
    assert (s.wifi, s.brightness, s.dark_mode, s.font_scale) == (False, 40, True, 1.15)
    truth = phone.read_state()
    assert (truth.settings.wifi, truth.settings.brightness, truth.settings.dark_mode) == (False, 40, True)
    # records exist with their text intact, and carry the tag where the schema has one
    zoe = [c for c in mid.contacts or [] if c.name == "Zoë 测试"]
    assert len(zoe) == 1 and zoe[0].tag == tag and zoe[0].company == "ACME, Ltd."
    assert any(m.body == f"hi 👋 {NASTY}" for m in mid.messages or [])
    ev = next(e for e in mid.events or [] if e.title == "Dentist 🦷")
    assert ev.description == "bring card" and ev.tag == tag
    assert any(e.description == "bring card" + invisible_marker(tag) for e in truth.events or [])  # rides in the field
    assert any(a.hour == 5 and a.minute == 15 and a.label == "Gym" for a in mid.alarms or [])
    assert any(a.label == "Gym" + invisible_marker(tag) for a in truth.alarms or [])
    off = [a for a in mid.alarms or [] if a.label == "Off 🌙"]  # switched off through the Clock UI
    assert len(off) == 1 and (off[0].hour, off[0].minute, off[0].enabled) == (22, 30, False)
    from actionmap.actions import OpenApp

    obs, _ = env.step(OpenApp(app="clock"))  # the policy sees the label as a person does
    assert any(e.text == "Gym" for e in obs.elements) and not any("s2r" in e.text for e in obs.elements)
    f = next(f for f in mid.files or [] if f.path.endswith("说明 notes.txt"))
    assert f.size == 300 and f.mtime == datetime(2026, 12, 30, 12, 0)
    assert not phone.fs.exists("/sdcard/x"), "policy-like text in a record ran as a command"
    # a record the *user* made with the same name (untagged) must survive teardown
    env.shell.run(["content", "insert", "--uri", "content://com.android.contacts/raw_contacts",
                   "--bind", "starred:i:0"])
    rid = max(int(r["_id"] or 0) for r in content_query(env.shell, "content://com.android.contacts/raw_contacts",
                                                         ("_id",)))
    env.shell.run(["content", "insert", "--uri", "content://com.android.contacts/data", "--bind",
                   f"raw_contact_id:i:{rid}", "--bind", "mimetype:s:vnd.android.cursor.item/name",
                   "--bind", "data1:s:Zoë 测试"])
    user_state = env.read_state()
    assert len([c for c in user_state.contacts or [] if c.name == "Zoë 测试"]) == 2
    # teardown (what the next reset and close do)
    env._teardown()
    rep = env.last_teardown
    assert rep is not None and not [x for x in rep.left if "alarm" not in x], rep
    after = env.read_state()
    left = [c for c in after.contacts or [] if c.name == "Zoë 测试"]
    assert len(left) == 1 and left[0].tag is None, "the untagged user contact must stay, the tagged one go"
    # remove the user's contact ourselves, then everything must equal the state before setup
    env.shell.run(["content", "delete", "--uri", "content://com.android.contacts/raw_contacts",
                   "--where", f"_id={rid}"])
    final = env.read_state()
    diff = {k: (v, _comparable(final).get(k)) for k, v in _comparable(before).items() if _comparable(final).get(k) != v}
    extra = sorted(set(_comparable(final)) - set(_comparable(before)))
    assert not diff and not extra, (diff, extra)
    assert env.writer.pending() is None, "the journal is dropped after a full teardown"


def test_crashed_run_is_cleaned_up_from_the_journal(phone_env: tuple[Any, Any, Any]) -> None:
    _host, phone, env = phone_env
    from device.env import DeviceEnv

    env.reset(None)
    before = _comparable(env.read_state())
    env.writer.apply({"settings": {"brightness": 77},
                      "add": {"events": [{"title": "Crash test", "start": "2027-02-01T09:00:00"}]}})
    env.journal = None  # the process "dies" without tearing down
    assert env.writer.pending() is not None
    fresh = DeviceEnv(env.serial, journal_dir=env.options.journal_dir, alarm_probe=True, grant_appops=True)
    fresh.start()  # finds the journal on disk and undoes it
    # the crashed session's journal goes first: its LOCAL calendar (and the event in it) is deleted,
    # then the crashed setup's journal restores the brightness
    assert fresh.last_teardown is not None and "settings.brightness=128" in " ".join(fresh.last_teardown.restored)
    assert not any(e.title == "Crash test" for e in fresh.read_state().events or [])
    after = _comparable(fresh.read_state())
    assert after == before
    fresh.close()
    # the fresh env undid the "crashed" env's session (its tweaks): put them back for the tests after
    env.tweaks.apply(stay_awake=env.options.stay_awake, no_animations=env.options.no_animations)


def test_unsafe_task_refused_on_a_real_phone_only(phone_env: tuple[Any, Any, Any]) -> None:
    _host, _phone, env = phone_env
    from device.env import UnsafeTask

    send = _instance("messages.send_test")
    env.reset(send)  # the virtual phone is exempt: nothing leaves it
    env.pf.virtual = False  # pretend: a real phone
    try:
        with pytest.raises(UnsafeTask, match="test recipient"):
            env.reset(send)
        env.options.test_recipient = "+1 202 555 0100"
        env.reset(send)  # the task's recipient is the configured test phone: allowed
    finally:
        env.pf.virtual = True
        env.options.test_recipient = None


def test_stay_awake_and_animation_tweaks_are_restored(phone_env: tuple[Any, Any, Any]) -> None:
    """The env's tweaks take effect, and undoing them gives back the values the phone had before the env
    started (read in the fixture, so the check holds whichever test ran first)."""
    _host, phone, env = phone_env
    from device.preflight import DeviceTweaks

    raw = phone.settings.raw
    now = lambda: {k: raw("global", k) for k in _TWEAKED}  # noqa: E731
    # AOSP defaults (SettingsProvider res/values/defaults.xml): not plugged-in stay-on, animations at 1x
    assert _DEFAULTS == {"stay_on_while_plugged_in": "0", "window_animation_scale": "1.0",
                         "transition_animation_scale": "1.0", "animator_duration_scale": "1.0"}, _DEFAULTS
    assert now() == _TWEAKED  # the env's tweaks took effect
    assert env.tweaks is not None
    assert env.session.raw.restore(env.shell) == []  # what close() runs for the tweaks
    assert now() == _DEFAULTS
    t = DeviceTweaks(env.shell)  # a standalone set of tweaks on the untouched phone: same round trip
    t.apply()
    assert now() == _TWEAKED
    assert t.restore() == [] and now() == _DEFAULTS
    env.tweaks.apply(stay_awake=env.options.stay_awake, no_animations=env.options.no_animations)  # for later tests
    assert now() == _TWEAKED


def test_timer_setup_is_tagged_and_reported_as_left(phone_env: tuple[Any, Any, Any]) -> None:
    _host, phone, env = phone_env
    j, rep = env.writer.apply({"add": {"timers": [{"duration_s": 300, "remaining_s": 300, "label": "Tea 🍵"}]}})
    timers = phone.read_state().timers or []
    assert any(t.label == "Tea 🍵" + invisible_marker(j.tag) and t.duration_s == 300 for t in timers), timers
    down = env.writer.teardown(j)
    assert any("timer" in x and j.tag in x for x in down.left), down  # no API removes timers: say so


def test_setup_that_cannot_be_reproduced_is_refused_and_undone(phone_env: tuple[Any, Any, Any]) -> None:
    _host, phone, env = phone_env
    from device.writers import SetupError

    before = phone.read_state().settings.brightness
    with pytest.raises(SetupError, match="world_clocks"):
        env.writer.apply({"settings": {"brightness": 3}, "world_clocks": ["Tokyo"]})
    assert phone.read_state().settings.brightness == before  # the part that was applied is undone
    assert env.writer.pending() is None
    with pytest.raises(SetupError, match="outside shared storage"):
        env.writer.apply({"add": {"files": [{"path": "/data/local/tmp/evil", "size": 1}]}})
