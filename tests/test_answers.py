"""AnswerSheet matchers: each type on the edge cases a policy's free-text answer produces."""

from __future__ import annotations

import pytest

from transfer.tasks.answers import (AnswerField, AnswerSheet, clean_text, date_matches, duration_matches,
                                    format_duration, number_matches, parse_date, parse_duration, parse_number,
                                    parse_time, split_items, text_matches, time_matches)


# --------------------------------------------------------------------------------------- text
@pytest.mark.parametrize("answer", ["Ada Lovelace", "  ada   lovelace ", "ADA LOVELACE.", "“Ada Lovelace”", "'Ada Lovelace'!"])
def test_text_normalizes_case_space_and_surrounding_punctuation(answer: str) -> None:
    assert text_matches(answer, "Ada Lovelace")


def test_text_keeps_inner_differences() -> None:
    assert not text_matches("Ada Lovelace-King", "Ada Lovelace")
    assert not text_matches("Ada", "Ada Lovelace")


def test_text_unicode_names_nfkc_and_casefold() -> None:
    assert text_matches("ŁUKASZ ÅBERG", "Łukasz Åberg")
    # decomposed é (e + U+0301) equals the precomposed one after NFKC
    assert text_matches("Rene\u0301e", "Renée")
    # full-width letters fold to ASCII under NFKC
    assert text_matches("Ｐｉｘｅｌ ７", "Pixel 7")
    assert text_matches("STRASSE", "straße")  # casefold, not lower
    assert not text_matches("Renee", "Renée")  # accents are not stripped: a different name


def test_clean_text_never_loops_on_odd_characters() -> None:
    assert clean_text("\u3000«…»\u3000") == ""
    assert clean_text("— hi —") == "hi"


def test_strip_words() -> None:
    f = AnswerField(name="v", type="text", strip_words=["android", "version"])
    assert f.matches("Android 14", "14")
    assert f.matches("android version 14", "14")
    assert not f.matches("Android 13", "14")


# --------------------------------------------------------------------------------------- numbers
@pytest.mark.parametrize("answer", ["42", "42.0", " 42 ", "４２", "+42", 42, 42.0])
def test_number_forms(answer: object) -> None:
    assert number_matches(answer, 42)


def test_number_thousands_separator_and_negative() -> None:
    assert number_matches("1,234", 1234)
    assert number_matches("1,234,567.5", 1234567.5)
    assert number_matches("−17", -17)  # U+2212 minus sign
    assert not number_matches("12,34", 1234)


def test_number_units_only_when_declared() -> None:
    assert number_matches("42 km", 42, units=["km"])
    assert number_matches("42km", 42, units=["km", "kilometers"])
    assert number_matches("42 kilometers", 42, units=["km", "kilometers"])
    assert not number_matches("42 km", 42)                  # no unit declared
    assert not number_matches("42 miles", 42, units=["km"])  # wrong unit
    assert number_matches("15 min", 15, units=["min"])
    assert number_matches("50%", 50, units=["%"])


def test_number_tolerance_abs_and_rel() -> None:
    assert number_matches("13.37", 13.375, tol=0.005)
    assert not number_matches("13.3", 13.375, tol=0.005)
    assert number_matches("105", 100, rel_tol=0.05)
    assert not number_matches("106", 100, rel_tol=0.05)


def test_number_strict_vs_loose_sentences() -> None:
    assert parse_number("There are 5 files") is None
    assert parse_number("There are 5 files", loose=True) == 5
    assert parse_number("5 or 6", loose=True) is None  # ambiguous answers never match
    assert parse_number(True) is None
    assert parse_number("") is None
    assert parse_number(float("nan")) is None


# --------------------------------------------------------------------------------------- times
@pytest.mark.parametrize("answer", ["7:30 PM", "7:30pm", "7.30pm", "7:30 p.m.", "19:30", "1930", "730pm", "19h30",
                                    "07:30 PM", "19:30:00", "７:３０ PM"])
def test_time_forms_evening(answer: str) -> None:
    assert time_matches(answer, {"hour": 19, "minute": 30}), answer


@pytest.mark.parametrize("answer", ["7:30", "07:30", "7:30 AM", "730", "0730", "7.30 am"])
def test_time_forms_morning(answer: str) -> None:
    assert time_matches(answer, "07:30"), answer


def test_time_12h_ambiguity() -> None:
    # Without AM/PM a 12-hour reading is ambiguous: accepted unless the field is strict.
    assert time_matches("7:30", "19:30")
    assert not time_matches("7:30", "19:30", strict_ampm=True)
    # An explicit wrong half of the day is wrong.
    assert not time_matches("7:30 AM", "19:30")
    assert not time_matches("19:30", "07:30")


def test_time_noon_midnight_and_12_oclock() -> None:
    assert time_matches("noon", "12:00")
    assert time_matches("12:00 PM", "12:00")
    assert time_matches("12:00 AM", "00:00")
    assert time_matches("midnight", "00:00")
    assert time_matches("7 pm", "19:00")
    assert time_matches("7 o'clock pm", "19:00")


def test_time_tolerance_wraps_midnight() -> None:
    assert time_matches("23:58", "00:01", minutes_tol=5)
    assert not time_matches("23:50", "00:01", minutes_tol=5)
    assert time_matches("7:32 AM", "07:30", minutes_tol=2)


def test_time_rejects_non_times() -> None:
    for bad in ["7", "25:00", "7:61", "13:30 PM", "", "seven thirty", None, 730]:
        assert parse_time(bad) == set(), bad
    assert parse_time("It's set for 7:30 AM") == set()
    assert parse_time("It's set for 7:30 AM", loose=True) == {(7, 30)}
    assert parse_time("between 7:30 and 8:00", loose=True) == set()


# --------------------------------------------------------------------------------------- dates
@pytest.mark.parametrize("answer", ["2027-03-14", "March 14, 2027", "Mar 14 2027", "14 March 2027", "14th of March, 2027",
                                    "Sunday, March 14, 2027", "mar. 14th, 2027", "2027/03/14", "March 14"])
def test_date_forms(answer: str) -> None:
    assert date_matches(answer, "2027-03-14"), answer


def test_date_numeric_order_must_be_declared_when_ambiguous() -> None:
    assert date_matches("14/03/2027", "2027-03-14")               # unambiguous: 14 > 12
    assert date_matches("03/14/2027", "2027-03-14")               # unambiguous the other way
    assert not date_matches("03/04/2027", "2027-04-03")           # ambiguous under auto
    assert date_matches("03/04/2027", "2027-04-03", order="dmy")
    assert date_matches("04/03/2027", "2027-04-03", order="mdy")
    assert not date_matches("03/04/2027", "2027-04-03", order="mdy")
    assert date_matches("14/03/27", "2027-03-14", order="dmy")


def test_date_year_rules() -> None:
    assert not date_matches("March 14, 2026", "2027-03-14")
    assert not date_matches("March 14", "2027-03-14", year_optional=False)
    assert parse_date("February 30, 2027") == set()
    assert parse_date("Feb 29") == {(None, 2, 29)}


def test_date_loose_sentence() -> None:
    assert not date_matches("It is on March 14, 2027", "2027-03-14")
    assert date_matches("It is on March 14, 2027", "2027-03-14", loose=True)


# --------------------------------------------------------------------------------------- durations
@pytest.mark.parametrize("answer", ["1h 30m", "1 h 30 min", "90 min", "90 minutes", "01:30:00", "1:30",
                                    "1 hour and 30 minutes", "1.5 hours", "5400 s", "an hour and 30 minutes"])
def test_duration_forms(answer: str) -> None:
    assert duration_matches(answer, 5400), answer


def test_duration_clock_reading_and_bare_numbers() -> None:
    assert duration_matches("5:23", 323, clock="ms")
    assert not duration_matches("5:23", 323)               # hm: 5 h 23 min
    assert parse_duration("90") is None                      # bare number without a declared unit
    assert parse_duration("90", bare_unit="min") == 5400
    assert parse_duration(90) is None
    assert parse_duration("half an hour") == 1800
    assert parse_duration("90 parsecs") is None
    assert duration_matches("5 min 24 s", 323, seconds_tol=1)


def test_format_duration_round_trips() -> None:
    for secs in (0, 15, 60, 323, 3600, 5400, 5430):
        assert parse_duration(format_duration(secs)) == secs


# --------------------------------------------------------------------------------------- choice & repeated
def test_choice_aliases_and_default_yes_no() -> None:
    yn = AnswerField(name="a", type="choice", options=["yes", "no"])
    assert yn.matches("Yes.", "yes") and yn.matches("on", "yes") and yn.matches(" Enabled ", "yes")
    assert yn.matches("it's off", "no") is False  # not a declared alias: no guessing
    assert yn.matches("off", "no") and not yn.matches("on", "no")
    size = AnswerField(name="s", type="choice", options=["Small", "Default", "Large"], aliases={"Default": ["normal"]})
    assert size.matches("normal", "Default") and size.matches("DEFAULT", "Default")
    assert not size.matches("Largest", "Large")


def test_choice_needs_options_and_known_aliases() -> None:
    with pytest.raises(ValueError):
        AnswerField(name="c", type="choice")
    with pytest.raises(ValueError):
        AnswerField(name="c", type="choice", options=["a"], aliases={"b": ["x"]})


def test_split_items() -> None:
    assert split_items("Monday, Wednesday and Friday") == ["Monday", "Wednesday", "Friday"]
    assert split_items("a; b & c") == ["a", "b", "c"]
    assert split_items("1,234, 5") == ["1,234", "5"]
    assert split_items("March 14, 2027; April 2, 2027") == ["March 14, 2027", "April 2, 2027"]
    assert split_items(["x", "y"]) == ["x", "y"]


def test_repeated_set_and_sequence() -> None:
    days = AnswerField(name="d", type="choice", repeated="set", options=["mon", "wed", "fri", "sat"],
                       aliases={"mon": ["monday"], "wed": ["wednesday"], "fri": ["friday"], "sat": ["saturday"]})
    assert days.matches("Friday, Monday and Wednesday", ["mon", "wed", "fri"])
    assert days.matches(["monday", "wed", "Friday"], ["mon", "wed", "fri"])
    assert not days.matches("Monday and Friday", ["mon", "wed", "fri"])
    assert not days.matches("Monday, Wednesday, Friday, Saturday", ["mon", "wed", "fri"])
    seq = AnswerField(name="s", type="number", repeated="sequence")
    assert seq.matches("3, 1,234 and 7", [3, 1234, 7])
    assert not seq.matches("1,234, 3, 7", [3, 1234, 7])
    names = AnswerField(name="n", type="text", repeated="set")
    assert names.matches("Zoë Müller and José García", ["José García", "Zoë Müller"])


def test_phone_type_compares_digits() -> None:
    f = AnswerField(name="p", type="phone")
    assert f.matches("(415) 555-0134", "+14155550134")
    assert f.matches("+1 415 555 0134", "4155550134")
    assert not f.matches("415 555 0135", "+14155550134")


# --------------------------------------------------------------------------------------- sheet
def test_sheet_scores_fields_and_reports_missing() -> None:
    sheet = AnswerSheet(fields=[AnswerField(name="time", type="time", expected="19:30"),
                                AnswerField(name="location", type="text", expected="Café Rouge")])
    res = {c.name: c for c in sheet.score({"time": "7:30 PM", "location": "café rouge"})}
    assert res["answer.time"].passed and res["answer.location"].passed
    res = {c.name: c for c in sheet.score({"Time": "7:30 PM"})}
    assert res["answer.time"].passed            # field names compare case-insensitively
    assert not res["answer.location"].passed and res["answer.location"].detail == "no answer given"
    assert all(not c.passed for c in sheet.score(None))


def test_single_field_sheet_accepts_any_field_name() -> None:
    sheet = AnswerSheet(fields=[AnswerField(name="result", type="number", expected=1776)])
    assert sheet.score({"answer": "1,776"})[0].passed
    assert not sheet.score({"answer": "1,776", "note": "x"})[0].passed


def test_sheet_expected_from_state_is_undetermined_when_unknown() -> None:
    from actionmap.worldstate import DeviceInfo, WorldState

    sheet = AnswerSheet(fields=[AnswerField(name="model", type="text", from_state="device.model")])
    known = WorldState(device=DeviceInfo(model="Pixel 8"))
    assert sheet.score({"model": "pixel 8"}, known)[0].passed
    unknown = sheet.score({"model": "Pixel 8"}, WorldState())[0]
    assert unknown.undetermined and not unknown.passed and unknown.field == "device.model"


def test_sheet_rejects_duplicate_names_and_two_sources() -> None:
    with pytest.raises(ValueError):
        AnswerSheet(fields=[AnswerField(name="a", type="text", expected="x"), AnswerField(name="a", type="text", expected="y")])
    with pytest.raises(ValueError):
        AnswerField(name="a", type="text", expected="x", from_state="device.model")


def test_matchers_never_raise_on_garbage() -> None:
    garbage = [None, "", "\u0000", "💥", [], {}, ["a", None], 10**30, -0.0, "9" * 500, "::", "1e309"]
    types = ("text", "number", "choice", "date", "time", "duration", "phone")
    fields = [AnswerField(name=t, type=t, options=["a"] if t == "choice" else [], expected="a" if t == "choice" else "1")
              for t in types]
    sheet = AnswerSheet(fields=fields)
    for g in garbage:
        for f in fields:
            assert AnswerSheet.matches_field(f, g, f.expected) in (True, False)
        results = sheet.score({t: g for t in types})
        assert len(results) == len(types)
