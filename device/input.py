"""Schema actions → real input on a phone (``input`` over the shell, or uiautomator2 RPC).

Geometry: a grid point (0–1000 over the whole screen) becomes a pixel of the *display as it
is now* (rotation applied, ``wm size`` override honoured) with the shared rounding rule of
:mod:`actionmap.geometry`, clamped to the screen. ``input tap`` and uiautomator2 both take
display coordinates, so no further rotation is needed; a screenshot of another size than
the display (a scaled capture) is mapped by the ratio of the two.

Text: policy text is data, never a command line. A stock phone has only its own keyboard
(no ADB keyboard), so the routes that need no third-party IME come first after the IME one:

1. as base64 to an ADB keyboard IME (``am broadcast -a ADB_INPUT_B64 --es msg <b64>`` or
   uiautomator2's ``ADB_KEYBOARD_INPUT_TEXT``) — only when such an IME is installed and is the
   current one (``DeviceOptions.adb_ime``); base64 has no shell metacharacters;
2. uiautomator2's ``setText`` on the focused node: accessibility ``ACTION_SET_TEXT``
   (``AccessibilityNodeInfo.ACTION_SET_TEXT``, frameworks/base
   ``core/java/android/view/accessibility/AccessibilityNodeInfo.java``), no shell, any Unicode;
3. uiautomator2's clipboard paste (``setClipboard`` + ``pasteClipboard``, which injects Ctrl+V:
   a field may ignore it). Android 13+ shows SystemUI's clipboard overlay whenever the clipboard
   is set (``ClipboardListener`` → ``ClipboardOverlayController``, frameworks/base
   ``packages/SystemUI/src/com/android/systemui/clipboardoverlay/``): its dismiss button is
   tapped afterwards, once the user's clipboard has been put back;
4. as ASCII only, through ``input text`` with every argument ``shlex``-quoted and spaces as
   Android's ``%s``.

The caller reads the focused field back and reports a mismatch (:mod:`device.executor`).
"""

from __future__ import annotations

import base64
import re
import time
from typing import Any, Literal

from pydantic import BaseModel

from actionmap.apps import APP_IDS, Component, canonical_app_id, registry
from actionmap.geometry import grid_to_px
from device.adbshell import Shell

__all__ = ["InputDriver", "Geometry", "KEYCODES", "input_text_arg", "TextAttempt"]

KEYCODES: dict[str, str] = {"back": "KEYCODE_BACK", "home": "KEYCODE_HOME", "recents": "KEYCODE_APP_SWITCH",
                            "enter": "KEYCODE_ENTER", "delete": "KEYCODE_DEL"}

_ADB_IME_ACTIONS = {
    # IME id → (text action, extra key, clear action)
    "com.android.adbkeyboard/.AdbIME": ("ADB_INPUT_B64", "msg", "ADB_CLEAR_TEXT"),
    "com.github.uiautomator/.AdbKeyboard": ("ADB_KEYBOARD_INPUT_TEXT", "text", "ADB_KEYBOARD_CLEAR_TEXT"),
    "com.github.uiautomator/.FastInputIME": ("ADB_KEYBOARD_INPUT_TEXT", "text", "ADB_KEYBOARD_CLEAR_TEXT"),
}


_DISMISS = re.compile(r'<node[^>]*resource-id="com\.android\.systemui:id/dismiss_button"[^>]*?'
                      r'bounds="\[(\d+),(\d+)\]\[(\d+),(\d+)\]"')


class Geometry(BaseModel):
    """The display the next action lands on, and the frame the policy saw."""

    display_w: int
    display_h: int
    frame_w: int
    frame_h: int
    status_bar_px: int = 0
    nav_bar_px: int = 0
    nav_bar_side: str | None = "bottom"

    def grid(self, point: tuple[int, int]) -> tuple[int, int]:
        """Grid point → display pixel (clamped)."""
        return grid_to_px(point[0], self.display_w), grid_to_px(point[1], self.display_h)

    def frame_px(self, x: float, y: float) -> tuple[int, int]:
        """A pixel of the observation's frame → display pixel (clamped)."""
        sx = self.display_w / self.frame_w if self.frame_w else 1.0
        sy = self.display_h / self.frame_h if self.frame_h else 1.0
        return (min(max(round(x * sx), 0), self.display_w - 1), min(max(round(y * sy), 0), self.display_h - 1))

    def content_box(self) -> tuple[int, int, int, int]:
        """Where a scroll may start and end: below the status bar, above the navigation
        bar, and away from the edges where gesture navigation turns a swipe into *back*."""
        W, H = self.display_w, self.display_h
        top = max(self.status_bar_px, int(H * 0.04)) + int(H * 0.03)
        bottom = H - max(self.nav_bar_px if self.nav_bar_side == "bottom" else 0, int(H * 0.03)) - int(H * 0.05)
        left = int(W * 0.12) + (self.nav_bar_px if self.nav_bar_side == "left" else 0)
        right = W - int(W * 0.12) - (self.nav_bar_px if self.nav_bar_side == "right" else 0)
        return left, top, right, max(top + 1, bottom)


def input_text_arg(text: str) -> str | None:
    """Text as ``input text`` takes it (spaces → ``%s``), or None if it cannot be typed that way.

    ``input text`` types ASCII printable characters only; a literal ``%s`` would turn into a
    space, so such text is refused rather than mistyped. Quoting for the shell is separate
    (the argv is ``shlex``-quoted by :class:`~device.adbshell.Shell`).
    """
    if not text or any(not (0x20 <= ord(c) < 0x7F) for c in text) or "%s" in text:
        return None
    return text.replace(" ", "%s")


class TextAttempt(BaseModel):
    method: str
    ok: bool
    detail: str = ""


class InputDriver:
    """Input on one phone. Gestures go through ``input`` (default) or uiautomator2."""

    def __init__(self, shell: Shell, *, family: str = "aosp", sdk: int | None = None, u2: Any = None,
                 gestures: Literal["shell", "u2"] = "shell", ime_current: str | None = None):
        self.shell = shell
        self.family = family
        self.sdk = sdk or 0
        self.u2 = u2
        self.gestures = gestures if u2 is not None else "shell"
        self.ime_current = ime_current
        self._apps: dict[str, Component | None] = {}
        self._u2_broken: set[str] = set()
        self.only_methods: list[str] | None = None  # restrict text methods (tests, debugging)

    # --- gestures ----------------------------------------------------------------------------
    def _u2_call(self, name: str, fn: Any) -> bool:
        """Run a uiautomator2 call unless it failed before; False → use the shell instead."""
        if self.u2 is None or name in self._u2_broken:
            return False
        try:
            fn()
            return True
        except Exception:  # noqa: BLE001 - an RPC the server lacks: remember and fall back
            if not self.shell.alive():
                raise
            self._u2_broken.add(name)
            return False

    def _input(self, *args: Any) -> None:
        r = self.shell.run(["input", *[str(a) for a in args]])
        if r.rc not in (0, None) or re.search(r"Exception|Error|Unknown command", r.text):
            raise RuntimeError(f"input {' '.join(map(str, args))}: {r.text.strip()[:200]}")

    def tap(self, x: int, y: int) -> None:
        if self.gestures == "u2" and self._u2_call("click", lambda: self.u2.click(x, y)):
            return
        self._input("tap", x, y)

    def double_tap(self, x: int, y: int) -> str:
        """Two taps inside the double-tap window (300 ms): one RPC pair, or one shell line."""
        if self.u2 is not None and self._u2_call("double_click", lambda: self.u2.double_click(x, y, 0.05)):
            return "u2"
        # one shell session, two `input tap`: no adb round trip between them (ints only: safe line)
        r = self.shell.raw(f"input tap {int(x)} {int(y)}; input tap {int(x)} {int(y)}")
        if r.rc not in (0, None):
            raise RuntimeError(f"double tap: {r.text.strip()[:200]}")
        return "shell"

    def long_press(self, x: int, y: int, ms: int) -> None:
        """A timed swipe that does not move: what Android's long-press detector sees."""
        if self.gestures == "u2" and self._u2_call("long_click", lambda: self.u2.long_click(x, y, ms / 1000)):
            return
        self._input("swipe", x, y, x, y, ms)

    def swipe(self, x0: int, y0: int, x1: int, y1: int, ms: int) -> None:
        if self.gestures == "u2" and self._u2_call(
                "swipe", lambda: self.u2.swipe(x0, y0, x1, y1, duration=max(0.01, ms / 1000))):
            return
        self._input("swipe", x0, y0, x1, y1, ms)

    def drag(self, x0: int, y0: int, x1: int, y1: int, ms: int) -> str:
        """Press, hold, move, release: ``input draganddrop`` (Android 10+), else a slow swipe."""
        if self.sdk >= 29 or self.sdk == 0:
            r = self.shell.run(["input", "draganddrop", str(x0), str(y0), str(x1), str(y1), str(ms)])
            if r.rc in (0, None) and not re.search(r"Exception|Error|Unknown|usage", r.text, re.I):
                return "draganddrop"
        if self.u2 is not None and self._u2_call("drag", lambda: self.u2.drag(x0, y0, x1, y1, ms / 1000)):
            return "u2"
        self._input("swipe", x0, y0, x1, y1, max(ms, 1000))
        return "swipe"

    def key(self, name: str) -> None:
        self._input("keyevent", KEYCODES[name])

    # --- apps ----------------------------------------------------------------------------------
    def resolve_app(self, app: str) -> tuple[str | None, Component | None]:
        """Canonical id and the launchable component on this phone (None if not installed)."""
        app_id = canonical_app_id(app) or (app if app in APP_IDS else None)
        if app_id is None:
            return None, None
        if app_id in self._apps:
            return app_id, self._apps[app_id]
        comp = None
        for c in registry().components(app_id, self.family):
            r, comp = self._resolve(["-c", "android.intent.category.LAUNCHER", c.package])
            if comp is not None:
                break
            old = r.rc not in (0, None) or "Unknown command" in r.text or "No activity found" not in r.text
            if not self.shell.run(["pm", "path", c.package]).out.strip().startswith("package:"):
                continue
            if old:  # old Android without `cmd package resolve-activity`: installed is all we can know
                comp = c
                break
            # installed without a launcher entry: a Pixel's DocumentsUI on Android 12+ (its
            # LauncherActivity alias is disabled at boot — packages/apps/DocumentsUI
            # PreBootReceiver.java — and "Files" on the home screen is Files by Google); the app's
            # own exported activity, as the registry names it, still starts
            _r, comp = self._resolve(["-a", "android.intent.action.MAIN", "-n", c.component])
            if comp is not None:
                break
        self._apps[app_id] = comp
        return app_id, comp

    def _resolve(self, intent: list[str]) -> tuple[Any, Component | None]:
        """``cmd package resolve-activity --brief INTENT``: (the result, the component it names)."""
        r = self.shell.run(["cmd", "package", "resolve-activity", "--brief", *intent])
        lines = [ln.strip() for ln in r.out.split("\n") if ln.strip()]
        found = next((ln for ln in reversed(lines) if re.fullmatch(r"[\w.]+/[\w.$]+", ln)), None)
        if not found:
            return r, None
        pkg, act = found.split("/", 1)
        return r, Component(package=pkg, activity=act)

    def open_app(self, app: str, *, fresh: bool = False) -> str | None:
        """Open an app by canonical id or name; returns why not (None = opened).

        ``fresh`` clears the app's task first (``--activity-clear-task``): the app opens at its
        root screen, as a reset simulator phone does, without killing its process (a
        force-stop would also cancel the app's alarms on a real phone).
        """
        app_id, comp = self.resolve_app(app)
        if app_id is None:
            return f"unknown app {app!r}; known: {', '.join(APP_IDS)}"
        if app_id == "launcher":
            self.key("home")
            return None
        if comp is None:
            return f"app {app_id!r} is not installed on this phone"
        r = self.shell.run(["am", "start", "-n", comp.component, "-a", "android.intent.action.MAIN",
                            "-c", "android.intent.category.LAUNCHER", *(["--activity-clear-task"] if fresh else [])])
        if r.rc not in (0, None) or re.search(r"^Error|Exception|does not exist", r.text, re.M):
            r2 = self.shell.run(["monkey", "-p", comp.package, "-c", "android.intent.category.LAUNCHER", "1"])
            if "No activities found" in r2.text or "Error" in r2.text:
                return f"could not start {comp.component}: {r.text.strip()[:150]}"
        return None

    # --- text ------------------------------------------------------------------------------------
    def text_methods(self) -> list[str]:
        out = []
        if self.ime_current in _ADB_IME_ACTIONS:
            out.append("ime_broadcast")
        if self.u2 is not None:
            out += ["u2_set_text", "u2_paste"]
        out.append("input_text")
        if self.only_methods is not None:
            out = [m for m in self.only_methods if m != "ime_broadcast" or self.ime_current in _ADB_IME_ACTIONS]
        return [m for m in out if m not in self._u2_broken]

    def clear_text(self, method: str, current: str | None) -> None:
        """Empty the focused field by the method that will type into it."""
        if method == "ime_broadcast" and self.ime_current:
            action = _ADB_IME_ACTIONS[self.ime_current][2]
            self.shell.run(["am", "broadcast", "-a", action])
            return
        if method == "u2_set_text" and self.u2 is not None:
            try:
                from uiautomator2._selector import Selector

                self.u2.jsonrpc.setText(Selector(focused=True), "")
                return
            except Exception:  # noqa: BLE001 - fall through to the keys
                if not self.shell.alive():
                    raise
        if method == "u2_paste" and self.u2 is not None:
            try:
                self.u2.jsonrpc.clearInputText()  # Ctrl+A, DEL
                return
            except Exception:  # noqa: BLE001
                if not self.shell.alive():
                    raise
        # keys: move to the end, then delete every character (bounded)
        n = len(current or "")
        if n:
            self.shell.raw("input keyevent KEYCODE_MOVE_END")
            for i in range(0, n, 50):
                self.shell.raw("input keyevent " + " ".join(["KEYCODE_DEL"] * min(50, n - i)))

    def _u2_paste(self, text: str) -> TextAttempt:
        """Paste ``text`` through the clipboard, then put back what the clipboard held."""
        u2 = self.u2
        try:
            old = u2.jsonrpc.getClipboard()
        except Exception:  # noqa: BLE001 - Android 10+ may refuse a background read
            old = None
        u2.jsonrpc.setClipboard(None, text)
        u2.jsonrpc.pasteClipboard()
        notes = []
        if old is not None and old != text:
            try:
                u2.jsonrpc.setClipboard(None, old)
            except Exception as e:  # noqa: BLE001
                notes.append(f"clipboard not restored ({type(e).__name__})")
        elif old is None:
            notes.append("clipboard was unreadable: not restored")
        notes.append(self.dismiss_clipboard_overlay())
        return TextAttempt(method="u2_paste", ok=True, detail="; ".join(n for n in notes if n))

    def _u2_set_text(self, text: str, current: str) -> TextAttempt:
        """Set the focused field to ``current + text`` through uiautomator2."""
        from uiautomator2._selector import Selector

        ok = self.u2.jsonrpc.setText(Selector(focused=True), current + text)
        return TextAttempt(method="u2_set_text", ok=bool(ok) or ok is None)

    def type_with(self, method: str, text: str, *, current: str = "") -> TextAttempt:
        """Type ``text`` by one method. Never passes ``text`` through a shell unescaped."""
        if method == "ime_broadcast":
            assert self.ime_current is not None
            action, extra, _ = _ADB_IME_ACTIONS[self.ime_current]
            b64 = base64.b64encode(text.encode("utf-8")).decode("ascii")
            r = self.shell.run(["am", "broadcast", "-a", action, "--es", extra, b64])
            ok = r.rc in (0, None) and "Exception" not in r.text
            return TextAttempt(method=method, ok=ok, detail=r.text.strip()[:120])
        if method in ("u2_paste", "u2_set_text"):
            try:
                return self._u2_paste(text) if method == "u2_paste" else self._u2_set_text(text, current)
            except Exception as e:  # noqa: BLE001
                if not self.shell.alive():
                    raise
                self._u2_broken.add(method)
                return TextAttempt(method=method, ok=False, detail=f"{type(e).__name__}: {e}"[:120])
        if method == "input_text":
            ok = True
            for i, line in enumerate(text.split("\n")):
                if i:
                    self.key("enter")
                for j, chunk in enumerate(line.split("\t")):
                    if j:
                        self.shell.raw("input keyevent KEYCODE_TAB")
                    if not chunk:
                        continue
                    arg = input_text_arg(chunk)
                    if arg is None:
                        return TextAttempt(method=method, ok=False,
                                           detail="`input text` types printable ASCII only (no '%s')")
                    r = self.shell.run(["input", "text", arg])
                    ok = ok and r.rc in (0, None) and "Exception" not in r.text
            return TextAttempt(method=method, ok=ok)
        raise ValueError(f"unknown text method {method!r}")

    def _dump(self) -> str:
        try:
            return str(self.u2.jsonrpc.dumpWindowHierarchy(False, 50) or "")
        except Exception:  # noqa: BLE001 - no dump, no overlay handling
            if not self.shell.alive():
                raise
            return ""

    def dismiss_clipboard_overlay(self, wait_s: float = 0.6) -> str:
        """Tap SystemUI's clipboard overlay away (Android 13+), proven by a second dump.

        The overlay is a ``com.android.systemui`` window (``clipboard_preview``, ``dismiss_button``)
        that stays until it times out; it covers the lower left of the screen the policy sees
        next. Only its own dismiss button is tapped: BACK would go to the app or the keyboard.
        Returns what happened ("" when no overlay showed).
        """
        if self.u2 is None or (self.sdk and self.sdk < 33):
            return ""
        deadline = time.perf_counter() + wait_s
        xml = self._dump()
        while "com.android.systemui:id/clipboard" not in xml and time.perf_counter() < deadline:
            time.sleep(0.1)  # SystemUI shows it a moment after the clip changes
            xml = self._dump()
        if "com.android.systemui:id/clipboard" not in xml and _DISMISS.search(xml) is None:
            return ""
        m = _DISMISS.search(xml)
        if m is None:
            return "clipboard overlay shown without a dismiss button: left to time out"
        l, t, r, b = map(int, m.groups())
        self._input("tap", (l + r) // 2, (t + b) // 2)
        for _ in range(10):
            time.sleep(0.1)
            if _DISMISS.search(self._dump()) is None:
                return "clipboard overlay dismissed"
        return "clipboard overlay still shown after its dismiss button was tapped"

    def pause(self, seconds: float) -> None:
        time.sleep(max(0.0, seconds))
