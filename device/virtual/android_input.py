"""Input and screen commands of the virtual phone: ``input``, ``screencap``, ``uiautomator``.

Why they are strict: these are the commands a device policy runs every step. ``input text``
behaves like Android's ``InputShellCommand`` — one argument only, ``%s`` is a space, and a
character the virtual keyboard map cannot type (anything outside ASCII) aborts with the same
``NullPointerException`` a phone prints — so a bridge that sends Unicode through ``input
text`` fails here exactly as it would on hardware (use the IME broadcast instead). Argument
text is always data: it reaches the sim as the typed string, never a shell.
"""

from __future__ import annotations

import struct
import time
from typing import TYPE_CHECKING

from .android_keys import resolve_keycode
from .sh_io import CommandContext, CommandHandler

if TYPE_CHECKING:
    from .phone import VirtualPhone

__all__ = ["input_commands", "android_text_escape"]

_SOURCES = {"dpad", "keyboard", "mouse", "touchpad", "gamepad", "touchnavigation", "joystick", "touchscreen",
            "stylus", "trackball", "rotaryencoder"}

_INPUT_USAGE = """Usage: input [<source>] [-d DISPLAY_ID] <command> [<arg>...]

The sources are: 
      dpad
      keyboard
      mouse
      touchpad
      gamepad
      touchnavigation
      joystick
      touchscreen
      stylus
      trackball

-d: specify the display ID.
      (Default: -1 for key event, 0 for motion event if not specified.)
The commands and default sources are:
      text <string> (Default: keyboard)
      keyevent [--longpress|--doubletap|--async|--delay <duration between keycodes in ms>] <key code number or name> ... (Default: keyboard)
      tap <x> <y> (Default: touchscreen)
      swipe <x1> <y1> <x2> <y2> [duration(ms)] (Default: touchscreen)
      draganddrop <x1> <y1> <x2> <y2> [duration(ms)] (Default: touchscreen)
      press (Default: trackball)
      roll <dx> <dy> (Default: trackball)
      motionevent <DOWN|UP|MOVE|CANCEL> <x> <y> (Default: touchscreen)
      keycombination [-t duration(ms)] <key code 1> <key code 2> ... (Default: keyboard, the key order is important here.)
"""


def android_text_escape(text: str) -> str:
    """What ``input text`` types for its argument: ``%s`` → space (Android's only escape)."""
    out: list[str] = []
    i = 0
    while i < len(text):
        if text[i] == "%" and i + 1 < len(text) and text[i + 1] == "s":
            out.append(" ")
            i += 2
            continue
        out.append(text[i])
        i += 1
    return "".join(out)


def _typable(text: str) -> bool:
    """Characters Android's VIRTUAL_KEYBOARD key character map can produce."""
    return all(0x20 <= ord(c) <= 0x7E or c in "\n\t" for c in text)


class InputCommands:
    def __init__(self, phone: "VirtualPhone") -> None:
        self.phone = phone

    def table(self) -> dict[str, CommandHandler]:
        return {"input": self.input, "screencap": self.screencap, "uiautomator": self.uiautomator}

    async def _exception(self, ctx: CommandContext, cmd: str, exc: str) -> int:
        await ctx.err(f"Exception occurred while executing '{cmd}':\n{exc}\n"
                      f"\tat com.android.server.input.InputShellCommand.onCommand(InputShellCommand.java:296)\n"
                      f"\tat com.android.modules.utils.BasicShellCommandHandler.exec(BasicShellCommandHandler.java:97)\n")
        return 255

    async def input(self, ctx: CommandContext) -> int:
        args = list(ctx.args)
        if args and args[0] in _SOURCES:
            args = args[1:]
        if len(args) >= 2 and args[0] == "-d":
            args = args[2:]
        if not args:
            await ctx.out(_INPUT_USAGE)
            return 0
        cmd, rest = args[0], args[1:]
        phone = self.phone
        if cmd in ("text", "keyevent", "tap", "swipe", "draganddrop", "press", "roll", "motionevent",
                   "keycombination"):
            # `cmd input` injects every event with INJECT_INPUT_EVENT_MODE_WAIT_FOR_FINISH
            # (frameworks/base services/core/java/com/android/server/input/InputShellCommand.java
            # injectMotionEvent), so the command returns once the app has consumed them: its cost
            # covers the delivery and the app's handling, which the virtual phone does for real
            from .costs import spend

            t_cmd = time.perf_counter()
            rc = await self._input_cmd(ctx, cmd, rest)
            await spend(phone.knobs.input_cmd_ms, since=t_cmd)
            return rc
        return await self._input_cmd(ctx, cmd, rest)

    async def _input_cmd(self, ctx: CommandContext, cmd: str, rest: list[str]) -> int:
        phone = self.phone
        if cmd == "text":
            if not rest:
                return await self._exception(ctx, cmd, "java.lang.IllegalArgumentException: Argument expected after \"text\"")
            text = android_text_escape(rest[0])
            if not _typable(text):
                return await self._exception(ctx, cmd, "java.lang.NullPointerException: Attempt to get length of "
                                                       "null array")
            for k, part in enumerate(text.split("\n")):
                if k:
                    await phone.acall(phone.key, "enter")
                if part:
                    await phone.acall(phone.input_text, part)
            return 0
        if cmd == "keyevent":
            codes = []
            flags = {a for a in rest if a.startswith("--")}
            skip_next = False
            for a in rest:
                if skip_next:
                    skip_next = False
                    continue
                if a == "--delay":
                    skip_next = True
                    continue
                if a.startswith("--"):
                    continue
                code = resolve_keycode(a)
                if code is None:
                    return await self._exception(ctx, cmd, f"java.lang.IllegalArgumentException: Unknown keycode: {a}")
                codes.append(code)
            if not codes:
                return await self._exception(ctx, cmd, "java.lang.IllegalArgumentException: Argument expected after "
                                                       "\"keyevent\"")
            for code in codes:
                await phone.acall(phone.key, code)
                if "--doubletap" in flags:
                    await phone.acall(phone.key, code)
            return 0
        if cmd in ("tap", "swipe", "draganddrop"):
            need = 2 if cmd == "tap" else 4
            if len(rest) not in (need, need + 1) or (cmd == "tap" and len(rest) != 2):
                return await self._exception(ctx, cmd, "java.lang.IllegalArgumentException: Error: Invalid arguments "
                                                       f"for command: {cmd}")
            try:
                nums = [float(v) for v in rest[:need]]
                dur = int(rest[need]) if len(rest) > need else -1
            except ValueError as e:
                bad = str(e).split("'")[-2] if "'" in str(e) else rest[0]
                return await self._exception(ctx, cmd, f"java.lang.NumberFormatException: For input string: \"{bad}\"")
            if cmd == "tap":
                from .systemui import overlay_tap

                if not overlay_tap(phone, nums[0], nums[1]):  # SystemUI's clipboard overlay takes it first
                    await phone.acall(phone.tap, nums[0], nums[1])
            elif cmd == "swipe":
                await phone.acall(phone.swipe, *nums, 300 if dur < 0 else dur)
            else:
                await phone.acall(phone.drag, *nums, 1000 if dur < 0 else dur)
            return 0
        if cmd in ("press", "roll", "motionevent", "keycombination"):
            return 0
        await ctx.err(f"Error: Unknown command: {cmd}\n")
        await ctx.err(_INPUT_USAGE)
        return 1

    async def screencap(self, ctx: CommandContext) -> int:
        args = list(ctx.args)
        png = False
        path: str | None = None
        i = 0
        while i < len(args):
            a = args[i]
            if a == "-h":
                await ctx.err("usage: screencap [-hp] [-d display-id] [FILENAME]\n   -h: this message\n"
                              "   -p: save the file as a png.\n   -d: specify the physical display ID to capture "
                              "(default: 4619827259835644672)\n           see \"dumpsys SurfaceFlinger --display-id\" "
                              "for valid display IDs.\nIf FILENAME ends with .png it will be saved as a png.\n"
                              "If FILENAME is not given, the results will be printed to stdout.\n")
                return 0
            if a == "-p":
                png = True
            elif a == "-d":
                i += 1
            elif a.startswith("-"):
                for ch in a[1:]:
                    if ch == "p":
                        png = True
                    elif ch != "h":
                        await ctx.err(f"screencap: invalid option -- '{ch}'\n")
                        return 1
            else:
                path = a
            i += 1
        if path is not None and path.endswith(".png"):
            png = True
        t_cap = time.perf_counter()
        data = await self.phone.acall(self.phone.screenshot_png)
        from .costs import spend
        from .systemui import clipboard_overlay

        overlay = clipboard_overlay(self.phone)
        if overlay.visible:  # SystemUI's clipboard overlay is on screen (Android 13+)
            data = await self.phone.acall(overlay.draw, data)
        if not png:
            data = await self.phone.acall(_raw_rgba, data)
        # the published figure is capture and encoding together: this phone's own work counts toward it
        await spend(self.phone.knobs.screencap_png_ms if png else self.phone.knobs.screencap_raw_ms, since=t_cap)
        if path is None:
            await ctx.out(data)
            return 0
        fs = self.phone.fs
        try:
            fs.write_bytes(ctx.path(path), data)
        except OSError as exc:
            await ctx.err(f"Error opening file: {path} ({exc.strerror})\n")
            return 1
        return 0

    async def uiautomator(self, ctx: CommandContext) -> int:
        """``uiautomator dump [--compressed] [FILE]`` as frameworks/base cmds/uiautomator
        (``DumpCommand.run``) behaves for the shell user.

        * Another process holds UiAutomation (uiautomator2's server runs): ``UiAutomation.connect``
          throws "UiAutomationService … already registered!" (UiAutomationManager
          ``registerUiTestAutomationServiceLocked``); the exception is uncaught, RuntimeInit's
          ``KillApplicationHandler`` logs it (to logcat, not the terminal) and SIGKILLs the
          process: the shell prints ``Killed`` and the status is 137; no file is written.
        * ``uiAutomation.waitForIdle(1000, 10000)``: the dump waits for 1 s without window
          changes, at most 10 s; a screen that keeps animating makes it print ``ERROR: could not
          get idle state.`` (stderr), write nothing and exit 0. The phone keeps animating while
          ``phone.animating_until`` (a ``time.monotonic()`` deadline, 0 = never; tests set it)
          lies ahead, or while its own transition runs.
        * Otherwise the screen's windows as the phone renders them (the app's under its decor
          chain; no clipboard overlay, which is never the active window) are written to FILE
          (``/sdcard/window_dump.xml``) and ``UI hierchary dumped to: FILE`` is printed.
        """
        args = list(ctx.args)
        if not args or args[0] != "dump":
            await ctx.err("Usage: uiautomator <subcommand> [options]\n\nAvailable subcommands:\n\n"
                          "help: displays help message\n\nruntest: executes UI automation tests\n"
                          "    runtest <class spec> [options]\n\n"
                          "dump: creates an XML dump of current UI hierarchy\n    dump [--verbose][file]\n"
                          "      [--compressed]: dumps compressed layout information.\n"
                          "      [file]: the location where the dumped XML should be stored, default is\n"
                          "      /sdcard/window_dump.xml\n\nevents: prints out accessibility events until "
                          "terminated\n")
            return 0 if args and args[0] == "help" else 1
        from .costs import dump_cost_ms, spend
        from .processes import uiautomation_holder
        from .systemui import screen_xml

        phone = self.phone
        # `uiautomator` is a script that execs app_process (frameworks/base cmds/uiautomator/
        # cmds/uiautomator/uiautomator): the runtime starts before the tool does anything else
        await spend(phone.knobs.shell_dump_ms)
        if not phone.knobs.permissive and uiautomation_holder(phone) is not None:
            await ctx.err("Killed\n")
            return 137
        if not await self._wait_for_idle():
            await ctx.err("ERROR: could not get idle state.\n")
            return 0
        target = next((a for a in args[1:] if not a.startswith("--")), "/sdcard/window_dump.xml")
        t_walk = time.perf_counter()
        xml = await phone.acall(phone.hierarchy_xml, True)
        xml = await phone.acall(lambda: screen_xml(phone, xml, overlay=False))  # active window only
        await spend(dump_cost_ms(phone, xml), since=t_walk)  # the walk, our own rendering counted in it
        data = xml.encode("utf-8")
        if target in ("/dev/tty", "/dev/stdout", "/proc/self/fd/1"):
            await ctx.out(data + f"UI hierchary dumped to: {target}\n".encode())
            return 0
        fs = phone.fs
        path = ctx.path(target)
        try:
            fs.write_bytes(path, data)
        except OSError as exc:
            await ctx.err(f"ERROR: could not write {target}: {exc.strerror}\n")
            return 1
        await ctx.out(f"UI hierchary dumped to: {target}\n")
        return 0

    async def _wait_for_idle(self, idle_s: float = 1.0, timeout_s: float = 10.0) -> bool:
        """``UiAutomation.waitForIdle(1000, 10000)`` against ``phone.animating_until``: True
        once the screen was still for ``idle_s`` (at once if it is still now and stays so)."""
        import asyncio
        import time

        until = float(getattr(self.phone, "animating_until", 0.0) or 0.0)
        now = time.monotonic()
        if until <= now:
            return True
        if until + idle_s > now + timeout_s:
            await asyncio.sleep(timeout_s)
            return False
        await asyncio.sleep(until + idle_s - now)
        return True


def _raw_rgba(png: bytes) -> bytes:
    """``screencap`` without ``-p``: a 16-byte header (w, h, format=RGBA_8888, dataspace) + pixels."""
    import cv2
    import numpy as np

    img = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR)
    rgba = cv2.cvtColor(img, cv2.COLOR_BGR2RGBA)
    h, w = rgba.shape[:2]
    return struct.pack("<IIII", w, h, 1, 0x8C20000) + rgba.tobytes()


def input_commands(phone: "VirtualPhone") -> dict[str, CommandHandler]:
    return InputCommands(phone).table()
