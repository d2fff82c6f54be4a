"""The codec table (device/codecs.py) against the virtual phone's own, independent tables, and the
readers and writers taking their codes from it.

The virtual phone transcribes its codes and encodings from the framework on its own
(``device/virtual/android_settings.py`` ``MAPPED``, ``android_codes.py``, ``android_services.py``,
``android_am.py``): if either side drifts — a key in another namespace, an encoding off by one, a
service the phone does not run — these checks fail instead of a round trip that agrees with itself.
"""

from __future__ import annotations

from typing import Any

import pytest

from device import codecs
from device.virtual import android_am, android_codes, android_services, android_settings

#: World values each field is checked with (every value the world knows for a finite field).
SAMPLES: dict[str, list[Any]] = {
    "wifi": [True, False], "bluetooth": [True, False], "airplane_mode": [True, False], "mobile_data": [True, False],
    "dark_mode": [True, False], "do_not_disturb": [True, False], "location": [True, False],
    "auto_rotate": [True, False], "adaptive_brightness": [True, False], "brightness": [0, 77, 255],
    "screen_off_timeout_ms": [15_000, 600_000], "font_scale": [0.85, 1.0, 1.3],
    "ringer_mode": ["silent", "vibrate", "normal"],
    "media_volume": [0, 7, 25], "device_name": ["Pixel 8", "Ada's phone"],
}


def test_every_field_has_samples() -> None:
    assert set(SAMPLES) == set(codecs.SETTINGS)


@pytest.mark.parametrize("field", sorted(codecs.SETTINGS))
def test_each_setting_is_stored_as_the_virtual_phone_stores_it(field: str) -> None:
    """The key a write uses is one the phone maps to the same field, and both sides write and read
    every value the same way."""
    c = codecs.SETTINGS[field]
    mapped = android_settings.MAPPED.get((c.namespace, c.key))
    assert mapped is not None, f"{field}: the phone has no {c.namespace}/{c.key}"
    phone_field, phone_out, phone_in = mapped
    assert phone_field == field
    for v in SAMPLES[field]:
        text = c.encode(v)
        assert text == phone_out(v), (field, v)
        assert phone_in(text) == v, (field, v)            # the phone reads back what the writer puts
        assert c.decode(c.key, phone_out(v)) == v, (field, v)  # the reader reads what the phone stores


def test_every_key_the_phone_maps_is_a_source_of_that_field() -> None:
    for (ns, key), (field, _out, _in) in android_settings.MAPPED.items():
        assert (ns, key) in codecs.SETTINGS[field].sources, (ns, key, field)


def test_service_mirrored_settings_agree_with_the_phones_services() -> None:
    """Keys the phone treats as a service's copy are fields the table changes through the service;
    every ``cmd SERVICE`` the table sends or reads is a service the phone runs; AudioService's
    records are read from the service."""
    for (ns, key), field in android_services.SERVICE_KEYS.items():
        c = codecs.SETTINGS[field]
        assert c.mirrored and (ns, key) == (c.namespace, c.key), field
    for c in codecs.SETTINGS.values():
        argvs = [list(c.status)] if c.status else []
        for v in SAMPLES[c.field]:
            argvs += c.set_commands(v)
        for argv in argvs:
            if argv[0] == "cmd":
                assert argv[1] in android_services.SERVICE_COMMANDS, (c.field, argv)
    for (ns, key), field in android_settings.AUDIO_KEYS.items():
        c = codecs.SETTINGS[field]
        assert (ns, key) == (c.namespace, c.key) and field in codecs.SERVICE_READ


def test_status_parsers_exist() -> None:
    from device.parsers import services

    for c in codecs.SETTINGS.values():
        assert (c.status is None) == (c.status_parser is None), c.field
        if c.status_parser:
            assert callable(getattr(services, c.status_parser)), c.field


def test_provider_codes_agree_with_the_phones() -> None:
    ph = android_codes
    assert codecs.SMS_TYPE == {b: t for b, t in ph.SMS_TYPE.items() if b != "queued"}
    assert codecs.SMS_TYPE_QUEUED == ph.SMS_TYPE["queued"] == ph.MESSAGE_TYPE_QUEUED
    assert codecs.SMS_BOX_OF_TYPE == ph.SMS_BOX_OF_TYPE
    assert codecs.CALL_TYPE == ph.CALL_TYPE and codecs.CALL_KIND_OF_TYPE == ph.CALL_KIND_OF_TYPE
    assert codecs.PHONE_TYPE == ph.PHONE_TYPE and codecs.PHONE_LABEL_OF_TYPE == ph.PHONE_LABEL_OF_TYPE
    assert codecs.PHONE_TYPE_CUSTOM == ph.TYPE_CUSTOM
    assert (codecs.MIME_NAME, codecs.MIME_PHONE, codecs.MIME_EMAIL, codecs.MIME_ORG, codecs.MIME_NOTE) == (
        ph.MIME_NAME, ph.MIME_PHONE, ph.MIME_EMAIL, ph.MIME_ORG, ph.MIME_NOTE)
    assert {t: d for d, t in codecs.CALENDAR_DAY.items()} == android_am._DAYS_BY_CALENDAR
    # the episode's own SMS: every box but the inbox; the restricted view hides all but inbox and sent
    assert set(codecs.SMS_EPISODE_TYPES) == set(ph.SMS_BOX_OF_TYPE) - {ph.MESSAGE_TYPE_INBOX}
    assert set(codecs.SMS_HIDDEN_TYPES) == set(ph.SMS_BOX_OF_TYPE) - {ph.MESSAGE_TYPE_INBOX, ph.MESSAGE_TYPE_SENT}


def test_readers_and_writers_use_the_one_table() -> None:
    """No copy: the parsers, readers, writers, audit and capabilities take the codec table's objects."""
    from device import audit, capabilities, writers
    from device.parsers import records, settings
    from device.readers import settings as rsettings
    from device.writers import calllog, sms

    assert settings.SETTING_SOURCES is codecs.SETTING_SOURCES
    assert records.SMS_BOXES is codecs.SMS_BOX_OF_TYPE and records.CALL_KINDS is codecs.CALL_KIND_OF_TYPE
    assert records.PHONE_LABELS is codecs.PHONE_LABEL_OF_TYPE
    assert writers._SMS_TYPES is codecs.SMS_TYPE and writers._CALL_TYPES is codecs.CALL_TYPE
    assert writers._PHONE_TYPES is codecs.PHONE_TYPE and writers._CAL_DAYS is codecs.CALENDAR_DAY
    assert set(rsettings.SERVICE_STATUS) == set(codecs.SERVICE_READ)
    assert all(rsettings.SERVICE_STATUS[f][0] == codecs.SETTINGS[f].status for f in codecs.SERVICE_READ)
    assert writers.EPISODE_ROWS["messages"] == sms.EPISODE_ROWS
    assert writers.EPISODE_ROWS["calls"] == calllog.EPISODE_ROWS
    assert all(c.key in audit.AUDIT_SETTINGS[c.namespace] for c in codecs.SETTINGS.values())
    assert {b: t for t, b in capabilities.SMS_BOXES.items() if b != "queued"} == codecs.SMS_TYPE
