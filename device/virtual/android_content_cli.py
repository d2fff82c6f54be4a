"""``/system/bin/content``: the command's argument parsing (``--bind`` by the Android version's
rule), its output format, and running a verb on the phone's providers.

Why its own module: the command line and its usage text follow frameworks/base cmds/content
Content.java; the providers it calls are :mod:`.android_content`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Callable


from .android_content_schema import ProviderError, _authority
from .sh_io import CommandContext, CommandHandler

if TYPE_CHECKING:
    from .android_content import ContentProviders
    from .phone import VirtualPhone

__all__ = ["content_commands", "format_rows", "format_value", "ContentCommand", "ContentUsageError", "parse_binding",
           "parse_content_args", "split_with_escaping", "ESCAPED_BINDINGS_SDK"]


def format_value(v: Any) -> str:
    if v is None:
        return "NULL"
    if isinstance(v, bool):
        return "1" if v else "0"
    return str(v)


def format_rows(columns: Sequence[str], rows: Sequence[dict[str, Any]]) -> str:
    """``content query`` output: ``Row: N col=value, ...`` lines, or ``No result found.``"""
    if not rows:
        return "No result found.\n"
    return "".join(f"Row: {i} " + ", ".join(f"{c}={format_value(r.get(c))}" for c in columns) + "\n"
                   for i, r in enumerate(rows))


#: ``Content.USAGE`` (frameworks/base cmds/content/src/com/android/commands/content/Content.java),
#: the same text from Android 11 (R) to 15: printed to stdout before every ``[ERROR]`` line.
_CONTENT_USAGE = (
    "usage: adb shell content [subcommand] [options]\n"
    "\n"
    "usage: adb shell content insert --uri <URI> [--user <USER_ID>] --bind <BINDING> [--bind <BINDING>...]"
    " [--extra <BINDING>...]\n"
    "  <URI> a content provider URI.\n"
    "  <BINDING> binds a typed value to a column and is formatted:\n"
    "  <COLUMN_NAME>:<TYPE>:<COLUMN_VALUE> where:\n"
    "  <TYPE> specifies data type such as:\n"
    "  b - boolean, s - string, i - integer, l - long, f - float, d - double, n - null\n"
    "  Note: Omit the value for passing an empty string, e.g column:s:\n"
    "  Example:\n"
    "  # Add \"new_setting\" secure setting with value \"new_value\".\n"
    "  adb shell content insert --uri content://settings/secure --bind name:s:new_setting"
    " --bind value:s:new_value\n"
    "\n"
    "usage: adb shell content update --uri <URI> [--user <USER_ID>] [--where <WHERE>] [--extra <BINDING>...]\n"
    "  <WHERE> is a SQL style where clause in quotes (You have to escape single quotes - see example below).\n"
    "  Example:\n"
    "  # Change \"new_setting\" secure setting to \"newer_value\".\n"
    "  adb shell content update --uri content://settings/secure --bind value:s:newer_value"
    " --where \"name='new_setting'\"\n"
    "\n"
    "usage: adb shell content delete --uri <URI> [--user <USER_ID>] --bind <BINDING> [--bind <BINDING>...]"
    " [--where <WHERE>] [--extra <BINDING>...]\n"
    "  Example:\n"
    "  # Remove \"new_setting\" secure setting.\n"
    "  adb shell content delete --uri content://settings/secure --where \"name='new_setting'\"\n"
    "\n"
    "usage: adb shell content query --uri <URI> [--user <USER_ID>] [--projection <PROJECTION>] [--where <WHERE>]"
    " [--sort <SORT_ORDER>] [--extra <BINDING>...]\n"
    "  <PROJECTION> is a list of colon separated column names and is formatted:\n"
    "  <COLUMN_NAME>[:<COLUMN_NAME>...]\n"
    "  <SORT_ORDER> is the order in which rows in the result should be sorted.\n"
    "  Example:\n"
    "  # Select \"name\" and \"value\" columns from secure settings where \"name\" is equal to \"new_setting\""
    " and sort the result by name in ascending order.\n"
    "  adb shell content query --uri content://settings/secure --projection name:value"
    " --where \"name='new_setting'\" --sort \"name ASC\"\n"
    "\n"
    "usage: adb shell content call --uri <URI> --method <METHOD> [--arg <ARG>]\n"
    "       [--extra <BINDING> ...]\n"
    "  <METHOD> is the name of a provider-defined method\n"
    "  <ARG> is an optional string argument\n"
    "  <BINDING> is like --bind above, typed data of the form <KEY>:{b,s,i,l,f,d}:<VAL>\n"
    "\n"
    "usage: adb shell content read --uri <URI> [--user <USER_ID>]\n"
    "  Example:\n"
    "  adb shell 'content read --uri content://settings/system/ringtone_cache' > host.ogg\n"
    "\n"
    "usage: adb shell content write --uri <URI> [--user <USER_ID>]\n"
    "  Example:\n"
    "  adb shell 'content write --uri content://settings/system/ringtone_cache' < host.ogg\n"
    "\n"
    "usage: adb shell content gettype --uri <URI> [--user <USER_ID>]\n"
    "  Example:\n"
    "  adb shell content gettype --uri content://media/internal/audio/media/\n"
    "\n"
)

#: The API level from which ``content`` splits a binding with ``splitWithEscaping`` (Android 11, R).
ESCAPED_BINDINGS_SDK = 30


class ContentUsageError(ValueError):
    """``IllegalArgumentException`` (or its ``NumberFormatException``) thrown while ``Content.Parser``
    reads the arguments: ``content`` prints the usage and ``[ERROR] <message>`` and runs nothing."""


def split_with_escaping(argument: str, split_char: str = ":") -> list[str]:
    """``Content.Parser.splitWithEscaping`` (Android 11+): split on every ``split_char`` that is
    not escaped; ``\\`` takes the next character literally (itself removed); a ``\\`` at the
    very end is ``Invalid escaping``."""
    res: list[str] = []
    cur: list[str] = []
    i = 0
    while i < len(argument):
        c = argument[i]
        if c == "\\":
            i += 1
            if i == len(argument):
                raise ContentUsageError("Invalid escaping")
            cur.append(argument[i])  # skip the escaping char and insert the next
        elif c == split_char:
            res.append("".join(cur))
            cur = []
        else:
            cur.append(c)
        i += 1
    res.append("".join(cur))
    return res


def _java_int(text: str, bits: int) -> int:
    """``Integer.parseInt`` / ``Long.parseLong``: an optional sign and decimal digits, in range."""
    if re.fullmatch(r"[+-]?\d+", text):
        n = int(text)
        if -(1 << (bits - 1)) <= n < (1 << (bits - 1)):
            return n
    raise ContentUsageError(f'For input string: "{text}"')


#: What ``String.trim()`` removes from both ends: every char up to U+0020.
_JAVA_TRIMMED = "".join(map(chr, range(0x21)))


def _java_float(text: str) -> float:
    """``Float.parseFloat`` / ``Double.parseDouble`` (``FloatingDecimal.readJavaFormatString``):
    trimmed, a decimal with an optional exponent and ``f``/``d`` suffix, ``NaN``, ``Infinity``."""
    t = text.strip(_JAVA_TRIMMED)
    if not t:
        raise ContentUsageError("empty String")
    m = re.fullmatch(r"([+-]?)(NaN|Infinity|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)[fFdD]?", t)
    if not m or (m.group(2) in ("NaN", "Infinity") and t[-1] in "fFdD"):
        raise ContentUsageError(f'For input string: "{t}"')
    return float(m.group(1) + m.group(2))


def parse_binding(argument: str | None, sdk: int = 34) -> tuple[str, Any]:
    """One ``--bind``/``--extra`` value → ``(column, typed value)``, as ``content`` of API ``sdk`` reads it.

    frameworks/base cmds/content/src/com/android/commands/content/Content.java,
    ``Parser.parseBindValue``:

    * Android 11 (API 30) and later: ``splitWithEscaping(argument, ':')`` must give exactly three
      parts (``if (split.size() != 3) throw new IllegalArgumentException("Binding not well formed:
      " + argument)``) — so every ``:`` of the value must be written ``\\:`` and every ``\\`` as
      ``\\\\``; the escapes are removed from column, type and value alike. ``i`` is
      ``Integer.parseInt``, ``l`` ``Long.parseLong``, ``f`` ``Float.parseFloat``, ``d``
      ``Double.parseDouble``.
    * Up to Android 10 (the Q source reads ``argument.indexOf(COLON)`` twice): the column is
      up to the first ``:``, the type up to the second, the value is everything after it,
      colons and backslashes included, unescaped; ``i`` and ``l`` are both ``Long.parseLong``,
      ``f`` and ``d`` both ``Double.parseDouble``.

    ``s`` is matched exactly, the other types ignoring case; ``b`` is ``Boolean.parseBoolean``
    (``true`` in any case, anything else false); ``n`` binds null. Errors raise
    :class:`ContentUsageError` with the Java message (a ``NumberFormatException`` is an
    ``IllegalArgumentException``, so it too ends as ``[ERROR] For input string: "x"``)."""
    if not argument:
        raise ContentUsageError(f"Binding not well formed: {'null' if argument is None else argument}")
    if sdk >= ESCAPED_BINDINGS_SDK:
        split = split_with_escaping(argument, ":")
        if len(split) != 3:
            raise ContentUsageError(f"Binding not well formed: {argument}")
        column, kind, value = split
    else:
        first = argument.find(":")
        second = argument.find(":", first + 1) if first >= 0 else -1
        if first < 0 or second < 0:
            raise ContentUsageError(f"Binding not well formed: {argument}")
        column, kind, value = argument[:first], argument[first + 1:second], argument[second + 1:]
    low = kind.lower()
    if kind == "s":
        return column, value
    if low == "b":
        return column, value.lower() == "true"
    if low == "i":
        return column, _java_int(value, 32 if sdk >= ESCAPED_BINDINGS_SDK else 64)
    if low == "l":
        return column, _java_int(value, 64)
    if low in ("f", "d"):
        return column, _java_float(value)
    if low == "n":
        return column, None
    raise ContentUsageError(f"Unsupported type: {kind}")


class _Command:
    """What ``Content.Parser.parseCommand`` returns."""

    def __init__(self, verb: str) -> None:
        self.verb = verb
        self.uri: str | None = None
        self.values: dict[str, Any] = {}
        self.extras: dict[str, Any] = {}
        self.where: str | None = None
        self.sort: str | None = None
        self.projection: list[str] | None = None
        self.method: str | None = None


#: The options each operation's ``parseXxxCommand`` accepts (Android 11+); anything else is
#: ``Unsupported argument``.
_VERB_OPTIONS = {
    "insert": ("--uri", "--user", "--bind", "--extra"),
    "delete": ("--uri", "--user", "--where", "--extra"),
    "update": ("--uri", "--user", "--where", "--bind", "--extra"),
    "call": ("--uri", "--user", "--method", "--arg", "--extra"),
    "read": ("--uri", "--user"),
    "write": ("--uri", "--user"),
    "gettype": ("--uri", "--user"),
    "query": ("--uri", "--user", "--where", "--sort", "--projection", "--extra"),
}


def parse_content_args(args: Sequence[str], sdk: int = 34) -> _Command:
    """``Content.Parser.parseCommand``: the command, or :class:`ContentUsageError`."""
    it = iter(args)

    def next_arg() -> str | None:
        return next(it, None)

    def required(option: str) -> str:  # argumentValueRequired
        v = next_arg()
        if not v or v.startswith("--"):
            raise ContentUsageError(f"No value for argument: {option}")
        return v

    op = next_arg()
    if op not in _VERB_OPTIONS:
        raise ContentUsageError(f"Unsupported operation: {'null' if op is None else op}")
    cmd = _Command(op)
    allowed = _VERB_OPTIONS[op]
    while (a := next_arg()) is not None:
        if a not in allowed:
            raise ContentUsageError(f"Unsupported argument: {a}")
        if a == "--uri":
            cmd.uri = required(a)
        elif a == "--user":
            _java_int(required(a), 32)
        elif a == "--bind":
            k, v = parse_binding(next_arg(), sdk)
            cmd.values[k] = v
        elif a == "--extra":
            k, v = parse_binding(next_arg(), sdk)
            cmd.extras[k] = v
        elif a == "--where":
            cmd.where = required(a)
        elif a == "--sort":
            cmd.sort = required(a)
        elif a == "--projection":  # String.split("[\\s]*:[\\s]*"): trailing empty names dropped
            parts = re.split(r"\s*:\s*", required(a))
            while parts and parts[-1] == "":
                parts.pop()
            cmd.projection = parts
        elif a == "--method":
            cmd.method = required(a)
        elif a == "--arg":
            required(a)
    if cmd.uri is None:
        raise ContentUsageError("Content provider URI not specified. Did you specify --uri argument?")
    if op in ("insert", "update") and not cmd.values:
        raise ContentUsageError("Bindings not specified. Did you specify --bind argument(s)?")
    if op == "call" and cmd.method is None:
        raise ContentUsageError("Content provider method not specified.")
    return cmd


class ContentCommand:
    """``/system/bin/content`` (``exec app_process /system/bin com.android.commands.content.Content``).

    As frameworks/base cmds/content Content.java runs it:

    * a bad command line (``Parser.parseCommand`` catches the ``IllegalArgumentException``):
      ``System.out.println(USAGE); System.out.println("[ERROR] " + iae.getMessage())`` — the
      usage and the ``[ERROR]`` line on **stdout**, nothing run, and ``main`` returns normally,
      so the exit status is **0**;
    * a provider that throws (``Command.execute`` catches every ``Exception``):
      ``System.err.println("Error while accessing provider:" + providerName);
      e.printStackTrace()`` — on **stderr**, exit status **0** all the same;
    * success: ``insert``/``update``/``delete`` print nothing; ``query`` prints ``Row: N …`` or
      ``No result found.``.

    The binding rule follows the phone's Android version (:func:`parse_binding`).
    """

    def __init__(self, phone: "VirtualPhone") -> None:
        self.phone = phone
        self.providers: "ContentProviders" = phone.providers

    @property
    def sdk(self) -> int:
        knobs = getattr(self.phone, "knobs", None)
        return int(getattr(knobs, "sdk", 34) or 34)

    async def __call__(self, ctx: CommandContext) -> int:
        from .costs import spend

        # `content` is a Java program: every call starts a runtime through app_process
        await spend(float(getattr(getattr(self.phone, "knobs", None), "app_process_ms", 0.0) or 0.0))
        try:
            cmd = parse_content_args(list(ctx.args), self.sdk)
        except ContentUsageError as e:
            await ctx.out(f"{_CONTENT_USAGE}\n[ERROR] {e}\n")
            return 0
        assert cmd.uri is not None
        verb, uri = cmd.verb, cmd.uri
        if verb in ("call", "read", "write", "gettype"):
            # not modelled by the virtual phone's providers (s2r never sends them)
            await ctx.err(f"Error: Unsupported operation: {verb}\n")
            return 1
        try:
            if verb == "query":
                cols, rows = await self.phone.acall(self.providers.query, uri, cmd.projection or None, cmd.where,
                                                    cmd.sort)
                await ctx.out(format_rows(cols, rows))
            elif verb == "insert":
                await self.phone.acall(self.providers.insert, uri, cmd.values)
            elif verb == "update":
                await self.phone.acall(self.providers.update, uri, cmd.values, cmd.where)
            else:
                await self.phone.acall(self.providers.delete, uri, cmd.where)
        except ProviderError as e:
            await ctx.err(f"Error while accessing provider:{_authority(uri)}\n{e.exception}\n"
                          + (e.trace if e.trace is not None else
                             "\tat android.database.DatabaseUtils.readExceptionFromParcel(DatabaseUtils.java:172)\n"
                             "\tat android.database.DatabaseUtils.readExceptionFromParcel(DatabaseUtils.java:142)\n"
                             f"\tat android.content.ContentProviderProxy.{verb}(ContentProviderNative.java:488)\n"
                             f"\tat com.android.commands.content.Content${verb.capitalize()}Command.onExecute"
                             "(Content.java:600)\n"
                             "\tat com.android.commands.content.Content$Command.execute(Content.java:522)\n"
                             "\tat com.android.commands.content.Content.main(Content.java:735)\n"
                             "\tat com.android.internal.os.RuntimeInit.nativeFinishInit(Native Method)\n"
                             "\tat com.android.internal.os.RuntimeInit.main(RuntimeInit.java:399)\n"))
            return 0  # Content.main returns normally: app_process exits 0
        return 0


def content_commands(phone: "VirtualPhone") -> dict[str, CommandHandler]:
    cmd: Callable[[CommandContext], Any] = ContentCommand(phone)
    return {"content": cmd}  # type: ignore[dict-item]
