"""Android key codes (``KeyEvent.KEYCODE_*``) and what each one does on the virtual phone.

Why a table: ``input keyevent`` takes a number (``4``), a constant (``KEYCODE_BACK``) or the
short name (``BACK``), and uiautomator2's ``press`` sends names such as ``"back"`` or
``"volume_up"``. One resolver gives all of them the same meaning, so the shell command and
the phone API (used by the uiautomator2 server) cannot disagree.
"""

from __future__ import annotations

__all__ = ["KEYCODES", "CODE_NAMES", "resolve_keycode", "key_effect"]

#: KeyEvent constants (the subset a phone user or a test harness sends, plus letters/digits).
KEYCODES: dict[str, int] = {
    "UNKNOWN": 0, "SOFT_LEFT": 1, "SOFT_RIGHT": 2, "HOME": 3, "BACK": 4, "CALL": 5, "ENDCALL": 6,
    "STAR": 17, "POUND": 18, "DPAD_UP": 19, "DPAD_DOWN": 20, "DPAD_LEFT": 21, "DPAD_RIGHT": 22,
    "DPAD_CENTER": 23, "VOLUME_UP": 24, "VOLUME_DOWN": 25, "POWER": 26, "CAMERA": 27, "CLEAR": 28,
    "COMMA": 55, "PERIOD": 56, "ALT_LEFT": 57, "ALT_RIGHT": 58, "SHIFT_LEFT": 59, "SHIFT_RIGHT": 60,
    "TAB": 61, "SPACE": 62, "SYM": 63, "EXPLORER": 64, "ENVELOPE": 65, "ENTER": 66, "DEL": 67,
    "GRAVE": 68, "MINUS": 69, "EQUALS": 70, "LEFT_BRACKET": 71, "RIGHT_BRACKET": 72, "BACKSLASH": 73,
    "SEMICOLON": 74, "APOSTROPHE": 75, "SLASH": 76, "AT": 77, "NUM": 78, "HEADSETHOOK": 79, "FOCUS": 80,
    "PLUS": 81, "MENU": 82, "NOTIFICATION": 83, "SEARCH": 84, "MEDIA_PLAY_PAUSE": 85, "MEDIA_STOP": 86,
    "MEDIA_NEXT": 87, "MEDIA_PREVIOUS": 88, "PAGE_UP": 92, "PAGE_DOWN": 93, "ESCAPE": 111,
    "FORWARD_DEL": 112, "CTRL_LEFT": 113, "CTRL_RIGHT": 114, "MOVE_HOME": 122, "MOVE_END": 123,
    "VOLUME_MUTE": 164, "APP_SWITCH": 187, "SETTINGS": 176, "BRIGHTNESS_DOWN": 220, "BRIGHTNESS_UP": 221,
    "SLEEP": 223, "WAKEUP": 224, "ASSIST": 219, "VOICE_ASSIST": 231, "SYSTEM_NAVIGATION_DOWN": 281,
    "SYSTEM_NAVIGATION_UP": 280, "ALL_APPS": 284, "SCREENSHOT": 120, "CUT": 277, "COPY": 278, "PASTE": 279,
}
KEYCODES.update({str(d): 7 + d for d in range(10)})  # KEYCODE_0..KEYCODE_9 = 7..16
KEYCODES.update({chr(c): 29 + c - ord("A") for c in range(ord("A"), ord("Z") + 1)})  # KEYCODE_A..Z = 29..54

CODE_NAMES: dict[int, str] = {}
for _name, _code in KEYCODES.items():
    CODE_NAMES.setdefault(_code, _name)

#: uiautomator2 / human aliases → KeyEvent names.
_ALIASES = {
    "RECENT": "APP_SWITCH", "RECENTS": "APP_SWITCH", "RECENT_APPS": "APP_SWITCH", "OVERVIEW": "APP_SWITCH",
    "DELETE": "DEL", "BACKSPACE": "DEL", "RETURN": "ENTER", "VOLUMEUP": "VOLUME_UP", "VOLUMEDOWN": "VOLUME_DOWN",
    "MUTE": "VOLUME_MUTE", "CENTER": "DPAD_CENTER", "UP": "DPAD_UP", "DOWN": "DPAD_DOWN", "LEFT": "DPAD_LEFT",
    "RIGHT": "DPAD_RIGHT",
}

#: Characters typed by character keys (what the focused field receives).
_CHARS = {"SPACE": " ", "COMMA": ",", "PERIOD": ".", "MINUS": "-", "EQUALS": "=", "LEFT_BRACKET": "[",
          "RIGHT_BRACKET": "]", "BACKSLASH": "\\", "SEMICOLON": ";", "APOSTROPHE": "'", "SLASH": "/", "AT": "@",
          "PLUS": "+", "STAR": "*", "POUND": "#", "GRAVE": "`", "TAB": "\t"}


def resolve_keycode(key: str | int) -> int | None:
    """``4`` / ``"4"`` / ``"KEYCODE_BACK"`` / ``"BACK"`` / ``"back"`` → 4; None if unknown.

    Like ``KeyEvent.keyCodeFromString``: a number is taken as is (any code is injectable);
    a name is looked up with and without the ``KEYCODE_`` prefix.
    """
    if isinstance(key, int):
        return key if 0 <= key <= 400 else None
    s = str(key).strip()
    if s.lstrip("-").isdigit():
        n = int(s)
        return n if 0 <= n <= 400 else None
    name = s.upper()
    if name.startswith("KEYCODE_"):
        name = name[len("KEYCODE_"):]
    name = _ALIASES.get(name, name)
    return KEYCODES.get(name)


def key_effect(code: int) -> tuple[str, str | None]:
    """What the phone does for a key code: ``(kind, arg)``.

    kinds: ``sim`` (arg = back|home|recents|enter|delete, a sim key), ``text`` (arg = the
    character typed into the focused field), ``power`` (arg = toggle|on|off), ``volume``,
    ``none`` (accepted and ignored, like a key no app handles).
    """
    name = CODE_NAMES.get(code, "")
    if name == "BACK" or name == "ESCAPE":
        return "sim", "back"
    if name == "HOME":
        return "sim", "home"
    if name == "APP_SWITCH":
        return "sim", "recents"
    if name in ("ENTER", "DPAD_CENTER"):
        return "sim", "enter"
    if name == "DEL":
        return "sim", "delete"
    if name == "POWER":
        return "power", "toggle"
    if name == "WAKEUP":
        return "power", "on"
    if name == "SLEEP":
        return "power", "off"
    if name in ("VOLUME_UP", "VOLUME_DOWN", "VOLUME_MUTE"):
        return "volume", name.lower()
    if name in _CHARS:
        return "text", _CHARS[name]
    if len(name) == 1 and (name.isdigit() or name.isalpha()):
        return "text", name.lower()
    return "none", None
