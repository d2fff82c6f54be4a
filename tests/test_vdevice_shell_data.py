"""The virtual phone's Android shell, its data commands, against a live sim phone: ``settings``
and ``svc``/``cmd`` toggles, ``content`` on every provider, and the file commands.

Every command runs through the same interpreter adbd uses (no adb server here). Outputs are read
back with ``device.parsers`` and state changes are checked in the sim's ``WorldState``. The other
commands are ``test_vdevice_shell.py``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator

import pytest

from device.parsers import (calls_from_rows, contacts_from_rows, events_from_rows, messages_from_rows,
                            parse_content_rows, parse_settings_get, parse_settings_list, settings_to_worldstate)
from device.parsers.detect import detect_kind
from device.virtual.knobs import PhoneKnobs
from device.virtual.phone import VirtualPhone

from _vshell import fast_phone, sh

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def phone(sim_pool) -> Iterator[VirtualPhone]:
    with fast_phone(sim_pool) as p:
        yield p


# ============================================================================ settings
@pytest.fixture()
def permissive_phone(sim_pool) -> Iterator[VirtualPhone]:
    """A rooted-emulator phone: a raw put of a service-mirrored key switches the state there
    (a stock phone keeps it apart: tests/test_vdevice_stock_services.py)."""
    p = VirtualPhone(PhoneKnobs(input_latency_ms=0, animation_ms=0, permissive=True), pool=sim_pool).start()
    try:
        yield p
    finally:
        p.stop()


def test_settings_get_put_list_map_to_worldstate(permissive_phone: VirtualPhone) -> None:
    phone = permissive_phone
    assert sh(phone, "settings put global airplane_mode_on 1")[0] == 0
    assert phone.read_state().settings.airplane_mode is True
    assert parse_settings_get(sh(phone, "settings get global airplane_mode_on")[1]) == "1"
    sh(phone, "settings put system screen_brightness 37; settings put system font_scale 1.15; "
              "settings put secure ui_night_mode 2; settings put global device_name 'Zoë’s phone'")
    s = phone.read_state().settings
    assert (s.brightness, s.font_scale, s.dark_mode, s.device_name) == (37, 1.15, True, "Zoë’s phone")
    lists = {ns: parse_settings_list(sh(phone, f"settings list {ns}")[1]) for ns in ("global", "system", "secure")}
    read = settings_to_worldstate(lists["global"], lists["system"], lists["secure"])
    world = phone.read_state().settings
    for field in ("wifi", "bluetooth", "airplane_mode", "mobile_data", "dark_mode", "do_not_disturb", "location",
                  "auto_rotate", "adaptive_brightness", "brightness", "screen_off_timeout_ms", "font_scale",
                  "ringer_mode", "media_volume", "device_name"):
        assert getattr(read, field) == getattr(world, field), field
    # the UI shows it: airplane mode in the quick settings / status bar state of the sim
    assert phone.state_data()["world"]["settings"]["airplane_mode"] is True
    sh(phone, "settings put global airplane_mode_on 0")
    # keys without a WorldState meaning are plain values; moved keys redirect; bad input is an error
    assert sh(phone, "settings put global stay_on_while_plugged_in 3; settings get system stay_on_while_plugged_in")[1] == "3\n"
    assert sh(phone, "settings get secure no_such_key")[1] == "null\n"
    assert sh(phone, "settings put secure my_key 'a b'; settings get secure my_key")[1] == "a b\n"
    assert sh(phone, "settings delete secure my_key")[1] == "Deleted 1 rows\n"
    assert sh(phone, "settings get secure my_key")[1] == "null\n"
    assert sh(phone, "settings get bogus wifi_on")[0] == 255
    sh(phone, "settings put system screen_brightness 999")  # stored raw, the world keeps a valid value
    assert sh(phone, "settings get system screen_brightness")[1] == "999\n"
    assert phone.read_state().settings.brightness == 37
    sh(phone, "settings put system screen_brightness 128")


def test_svc_and_cmd_toggles(phone: VirtualPhone) -> None:
    sh(phone, "svc wifi disable; svc data disable; svc bluetooth enable")
    s = phone.read_state().settings
    assert (s.wifi, s.mobile_data, s.bluetooth) == (False, False, True)
    assert sh(phone, "ip addr show dev wlan0")[1].count("inet ") == 0
    sh(phone, "cmd wifi set-wifi-enabled enabled; svc data enable; cmd bluetooth_manager disable")
    s = phone.read_state().settings
    assert (s.wifi, s.mobile_data, s.bluetooth) == (True, True, False)
    assert "inet 192.168.1.23/24" in sh(phone, "ip addr show dev wlan0")[1]


# ============================================================================ content providers
CONTACT_PROJ = "_id:raw_contact_id:contact_id:mimetype:data1:data2:data3:display_name:starred"


def test_content_contacts_read_insert_update_delete(phone: VirtualPhone) -> None:
    rc, out, _ = sh(phone, f"content query --uri content://com.android.contacts/data --projection {CONTACT_PROJ}")
    assert rc == 0 and detect_kind(out) == "content"
    rows = parse_content_rows(out, CONTACT_PROJ.split(":"))
    read = {c.name: c for c in contacts_from_rows(rows)}
    world = {c.name: c for c in phone.read_state().contacts or []}
    assert set(read) == set(world)
    for name, c in world.items():
        assert [p.number for p in read[name].phones] == [p.number for p in c.phones]
        assert [p.label for p in read[name].phones] == [p.label for p in c.phones]
        assert read[name].emails == c.emails and read[name].company == c.company
    # insert the way device writers do: raw contact, then data rows
    sh(phone, "content insert --uri content://com.android.contacts/raw_contacts --bind account_type:n: "
              "--bind account_name:n:")
    rid = max(int(r["_id"]) for r in parse_content_rows(
        sh(phone, "content query --uri content://com.android.contacts/raw_contacts --projection _id:contact_id")[1]))
    assert phone.read_state().contacts and "Ada Lovelace" not in {c.name for c in phone.read_state().contacts}
    sh(phone, f"content insert --uri content://com.android.contacts/data --bind raw_contact_id:i:{rid} "
              "--bind mimetype:s:vnd.android.cursor.item/name --bind data1:s:'Ada Lovelace'")
    sh(phone, f"content insert --uri content://com.android.contacts/data --bind raw_contact_id:i:{rid} "
              "--bind mimetype:s:vnd.android.cursor.item/phone_v2 --bind data1:s:'+44 20 7946 0018' --bind data2:i:3")
    ada = next(c for c in phone.read_state().contacts or [] if c.name == "Ada Lovelace")
    assert [(p.number, p.label) for p in ada.phones] == [("+44 20 7946 0018", "work")]
    where = f"contact_id={rid} AND mimetype='vnd.android.cursor.item/phone_v2'"
    rows = parse_content_rows(sh(phone, f"content query --uri content://com.android.contacts/data "
                                        f"--projection _id:data1:data2 --where \"{where}\"")[1])
    assert rows == [{"_id": rows[0]["_id"], "data1": "+44 20 7946 0018", "data2": "3"}]
    sh(phone, f"content update --uri content://com.android.contacts/data --bind data1:s:'+44 20 0000 0000' "
              f"--where \"_id={rows[0]['_id']}\"")
    ada = next(c for c in phone.read_state().contacts or [] if c.name == "Ada Lovelace")
    assert ada.phones[0].number == "+44 20 0000 0000"
    sh(phone, f"content delete --uri content://com.android.contacts/raw_contacts --where \"_id={rid}\"")
    assert "Ada Lovelace" not in {c.name for c in phone.read_state().contacts or []}
    assert sh(phone, "content query --uri content://com.android.contacts/contacts --where \"display_name='Nobody'\"")[1] \
        == "No result found.\n"


def test_content_sms_calendar_calls_round_trip(permissive_phone: VirtualPhone) -> None:
    phone = permissive_phone
    ms = 1_805_000_000_000
    sh(phone, f"content insert --uri content://sms/inbox --bind address:s:+15550001111 "
              f"--bind body:s:'Meet at 5, room=4B 👋' --bind date:l:{ms} --bind read:i:0")
    proj = "_id:address:body:type:read:date"
    rows = parse_content_rows(sh(phone, f"content query --uri content://sms --projection {proj} "
                                        "--where \"address='+15550001111'\"")[1], proj.split(":"))
    msgs = messages_from_rows(rows, "UTC")
    assert [(m.body, m.box, m.read) for m in msgs] == [("Meet at 5, room=4B 👋", "inbox", False)]
    world = [m for m in phone.read_state().messages or [] if m.address == "+15550001111"]
    assert world[0].time == msgs[0].time and world[0].body == msgs[0].body
    assert sh(phone, "content query --uri content://sms/sent --where \"address='+15550001111'\"")[1] == "No result found.\n"
    sh(phone, "content delete --uri content://sms --where \"address='+15550001111'\"")
    assert not [m for m in phone.read_state().messages or [] if m.address == "+15550001111"]

    sh(phone, f"content insert --uri content://com.android.calendar/events --bind calendar_id:i:1 "
              f"--bind title:s:'周会 review' --bind dtstart:l:{ms} --bind dtend:l:{ms + 3_600_000} "
              "--bind eventTimezone:s:UTC --bind eventLocation:s:'Room 4B, Building 2'")
    eproj = "_id:title:dtstart:dtend:allDay:eventLocation:description:eventTimezone:deleted"
    rows = parse_content_rows(sh(phone, f"content query --uri content://com.android.calendar/events "
                                        f"--projection {eproj}")[1], eproj.split(":"))
    read = {e.title: e for e in events_from_rows(rows, "UTC")}
    world = {e.title: e for e in phone.read_state().events or []}
    assert set(read) == set(world) and read["周会 review"].location == "Room 4B, Building 2"
    assert read["周会 review"].start == world["周会 review"].start
    rc, _, err = sh(phone, "content insert --uri content://com.android.calendar/events --bind title:s:x")
    assert rc == 0 and "DTSTART cannot be empty" in err  # content's main returns normally: exit 0 (Content.java)

    cproj = "_id:number:name:type:date:duration"
    rows = parse_content_rows(sh(phone, f"content query --uri content://call_log/calls --projection {cproj}")[1],
                              cproj.split(":"))
    calls = calls_from_rows(rows, "UTC")
    world_calls = phone.read_state().calls or []
    assert sorted((c.number, c.kind, c.duration_s) for c in calls) == sorted(
        (c.number, c.kind, c.duration_s) for c in world_calls)


def test_content_errors_look_like_android(phone: VirtualPhone) -> None:
    rc, _, err = sh(phone, "content query --uri content://sms --where 'nosuchcol=1'")
    assert rc == 0 and err.startswith("Error while accessing provider:sms\n")  # stderr, exit 0 (Content.java)
    assert "no such column: nosuchcol" in err
    rc, _, err = sh(phone, "content query --uri content://nope/x")
    assert rc == 0 and "Could not find provider: nope" in err
    rc, out, _ = sh(phone, "content query --uri content://settings/global --where \"name='wifi_on'\"")
    assert parse_content_rows(out) == [{"_id": parse_content_rows(out)[0]["_id"], "name": "wifi_on", "value": "1"}]


# ============================================================================ files
def test_file_commands_and_world_files_stay_consistent(phone: VirtualPhone) -> None:
    base = "/sdcard/Documents/vdev"
    rc, _, _ = sh(phone, f"mkdir -p {base}/a/b && echo 'héllo' > {base}/a/b/note.txt && ls -l {base}/a/b")
    assert rc == 0
    files = {f.path: f for f in phone.read_state().files or []}
    assert files[f"{base}/a/b/note.txt"].size == len("héllo\n".encode()) and files[f"{base}/a"].kind == "dir"
    assert sh(phone, f"stat -c '%s %F' {base}/a/b/note.txt")[1] == "7 regular file\n"
    digest = hashlib.md5("héllo\n".encode()).hexdigest()
    assert sh(phone, f"md5sum {base}/a/b/note.txt")[1] == f"{digest}  {base}/a/b/note.txt\n"
    assert sh(phone, f"find {base} -name '*.txt'")[1] == f"{base}/a/b/note.txt\n"
    sh(phone, f"mv {base}/a/b/note.txt {base}/renamed.txt")
    paths = {f.path for f in phone.read_state().files or []}
    assert f"{base}/renamed.txt" in paths and f"{base}/a/b/note.txt" not in paths
    # a rename made in the sim world (the Files app) is visible to ls, with the same bytes
    def rename(d):
        for f in d["world"]["files"]:
            if f["path"] == f"{base}/renamed.txt":
                f["path"] = f"{base}/moved.txt"
    phone.mutate(rename)
    assert sh(phone, f"ls {base}")[1].split() == ["a", "moved.txt"]
    assert sh(phone, f"cat {base}/moved.txt")[1] == "héllo\n"
    # and a delete in the sim world removes the file
    phone.mutate(lambda d: d["world"].update(files=[f for f in d["world"]["files"] if f["path"] != f"{base}/moved.txt"]))
    assert sh(phone, f"ls {base}")[1].split() == ["a"]
    assert not phone.fs.exists(f"{base}/moved.txt")
    # a file only the world knows has generated bytes of its recorded size
    invoice = next(f for f in phone.read_state().files or [] if f.path.endswith("invoice_2026_11.pdf"))
    assert phone.fs.stat(invoice.path).st_size == invoice.size
    assert sh(phone, f"rm -r {base}")[0] == 0
    assert not [f for f in phone.read_state().files or [] if f.path.startswith(base)]
    rc, _, err = sh(phone, "ls /sdcard/nope")
    assert rc == 1 and err == "ls: /sdcard/nope: No such file or directory\n"
    rc, _, err = sh(phone, "rm /sdcard/Download")
    assert rc == 1 and "Is a directory" in err
