"""Virtual phone commands: ``s2r vdevice start`` and ``s2r bench vdevice``.

A virtual phone is a sim phone behind an adbd server on 127.0.0.1 that the real adb server,
adbutils and uiautomator2 drive unchanged (``device/virtual``). ``start`` runs phones in the
foreground and prints the ``adb connect`` line for each; ``bench vdevice`` measures start-up
and round trips through a *private* adb server (a free port, never the shared default).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import statistics
import subprocess
import tempfile
import time
from typing import Any

import typer

from s2r.commands import flavor_option

vdevice_app = typer.Typer(help="Virtual Android phones (a sim phone behind a real adbd protocol server).",
                          no_args_is_help=True)

#: Default first port. Not 5555: an adb server probes 5555–5585 on localhost by itself and
#: would attach the phone a second time as ``emulator-5554``.
DEFAULT_PORT = 6555


def family_option(value: str | None) -> str | None:
    """``--family``: one of the virtual phone's families, or a usage error (exit 2) naming them."""
    from device.virtual.families import FAMILY_NAMES

    if value is not None and value not in FAMILY_NAMES:
        raise typer.BadParameter(f"{value!r} is not a phone family; the families are: {', '.join(FAMILY_NAMES)}")
    return value


def parse_families(text: str | None) -> list[str]:
    """``"aosp,google"`` → ``["aosp", "google"]``; raises ``ValueError`` naming the families there are."""
    from device.virtual.families import FAMILY_NAMES

    out = [f.strip() for f in (text or "").split(",") if f.strip()]
    bad = [f for f in out if f not in FAMILY_NAMES]
    if bad or not out:
        raise ValueError(f"{', '.join(map(repr, bad)) or repr(text)}: not a phone family; the families are: "
                         f"{', '.join(FAMILY_NAMES)}")
    return out


def _knobs(profile: str, flavor: str | None, seed: int, latency_ms: float, animation_ms: int | None, jitter: int,
           prompts: str | None, ime_visible: bool, drop_every: int, drop_probability: float,
           android: int = 14, permissive: bool = False, google_account: str | None = None,
           timing: str = "fast", locked: bool = False, locked_pin: str | None = None, anonymous: bool = False,
           timezone: str = "UTC", family: str | None = None) -> Any:
    from device.virtual.knobs import FlakyTransport, PhoneKnobs

    kw: dict[str, Any] = dict(profile=profile, flavor=flavor, family=family, seed=seed, input_latency_ms=latency_ms,
                              animation_ms=animation_ms, touch_jitter_px=jitter, ime_visible=ime_visible,
                              flaky=FlakyTransport(drop_every_n=drop_every, drop_probability=drop_probability),
                              android=android, permissive=permissive, google_account=google_account or None,
                              timing=timing, locked=locked, locked_pin=locked_pin or None, anonymous=anonymous,
                              timezone=timezone or "UTC")
    if animation_ms is None:  # the --timing preset's (or the knob's default)
        kw.pop("animation_ms")
    if timing not in ("fast", "realistic"):
        raise ValueError(f"unknown timing {timing!r}; choose fast or realistic")
    if prompts is not None:
        kw["permission_prompts"] = [p.strip() for p in prompts.split(",") if p.strip()]
    return PhoneKnobs(**kw)


def parse_android_versions(text: str | None) -> list[int]:
    """``"11,14,15"`` → ``[11, 14, 15]``; raises ``ValueError`` naming the releases a phone can follow."""
    from device.virtual.knobs import ANDROID_SDK

    out: list[int] = []
    for part in (text or "").split(","):
        part = part.strip()
        if not part:
            continue
        try:
            v = int(part)
        except ValueError:
            v = -1
        if v not in ANDROID_SDK:
            raise ValueError(f"unknown Android release {part!r}; choose from {', '.join(map(str, sorted(ANDROID_SDK)))}")
        out.append(v)
    if not out:
        raise ValueError("no Android release given; e.g. --android 14 or --vdevice-android 11,14,15")
    return out


@vdevice_app.command("start")
def start(
    port: int = typer.Option(DEFAULT_PORT, help="adbd port of the first phone (0 = any free port); more phones "
                                                "take the next ports."),
    profile: str = typer.Option("pixel", help="Device profile (screen size, density, model)."),
    flavor: str = typer.Option(None, help="App flavor: aosp (stock Android), google (a Pixel's apps) or sim "
                                          "(default: the family's).", callback=flavor_option),
    family: str = typer.Option(None, "--family", help="Phone family: aosp (the AOSP apps) or google (a Pixel: "
                                                      "Google's apps and identity). Default: the flavor's, else aosp.",
                               callback=family_option),
    count: int = typer.Option(1, min=1, max=32, help="How many phones."),
    connect: bool = typer.Option(False, "--connect", help="Register each phone with the adb server (adb connect)."),
    duration: float = typer.Option(0.0, help="Stop after this many seconds (0 = until Ctrl-C)."),
    seed: int = typer.Option(0, help="World seed (phone i gets seed + i)."),
    latency_ms: float = typer.Option(30.0, help="Input latency knob."),
    animation_ms: int = typer.Option(None, help="Transition length knob (0 = no animations; default 300, or "
                                                "the --timing preset's)."),
    jitter: int = typer.Option(0, help="Touch jitter knob, ±px."),
    prompts: str = typer.Option(None, help="Apps with a first-launch permission prompt, comma separated "
                                           "(default: messages,phone; '' for none)."),
    no_ime: bool = typer.Option(False, "--no-ime", help="Keep the soft keyboard from covering the screen."),
    drop_every: int = typer.Option(0, help="Flaky transport: drop the TCP connection every N streams."),
    drop_probability: float = typer.Option(0.0, help="Flaky transport: drop with this probability per stream."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON line per phone instead of text."),
    android: str = typer.Option("14", "--android", help="Android release the phones follow: 11, 13, 14 or 15 "
                                                        "(comma-separated: phone i takes the i-th, cycling)."),
    permissive: bool = typer.Option(False, "--permissive",
                                    help="Accept every write and carry ADB keyboards, like a rooted emulator "
                                         "(default: a stock, unrooted phone)."),
    timing: str = typer.Option("fast", "--timing", help="What captures and commands cost: fast (nothing added) "
                                                        "or realistic (a mid-range phone's, see device.virtual.knobs)."),
    google_account: str = typer.Option(None, "--google-account", metavar="ADDRESS",
                                       help="Sign the phone in to this Google account (a synced calendar that s2r "
                                            "must never write into). Default: no account, so no calendar."),
    locked: bool = typer.Option(False, "--locked", help="A swipe screen lock without a PIN: the phone boots to its "
                                                        "keyguard (wm dismiss-keyguard or a swipe up opens it)."),
    locked_pin: str = typer.Option(None, "--locked-pin", metavar="PIN",
                                   help="A PIN screen lock (4-16 digits): a phone s2r must not and cannot unlock."),
    anonymous: bool = typer.Option(False, "--anonymous", help="Pose as a real phone: no ro.s2r.* properties, a real "
                                                              "Pixel's identity (s2r takes its real-phone paths)."),
    timezone: str = typer.Option("UTC", "--timezone", metavar="ZONE",
                                 help="persist.sys.timezone, e.g. America/New_York: what date, the apps and alarms "
                                      "show (providers store UTC epoch millis)."),
) -> None:
    """Run virtual phone(s) in the foreground; each prints its ``adb connect`` line."""
    from device.virtual.phone import VirtualPhone

    phones: list[VirtualPhone] = []
    stop_now = False

    def _stop(*_: object) -> None:
        nonlocal stop_now
        stop_now = True

    signal.signal(signal.SIGTERM, _stop)
    try:
        for i in range(count):
            try:
                versions = parse_android_versions(android)
                knobs = _knobs(profile, flavor, seed + i, latency_ms, animation_ms, jitter, prompts, not no_ime,
                               drop_every, drop_probability, android=versions[i % len(versions)],
                               permissive=permissive, google_account=google_account, timing=timing,
                               locked=locked, locked_pin=locked_pin, anonymous=anonymous, timezone=timezone,
                               family=family)
            except ValueError as e:
                raise typer.BadParameter(str(e)) from e
            phone = VirtualPhone(knobs, port=(port + i) if port else 0)
            try:
                phone.start()
            except OSError as e:
                phone.stop()
                typer.echo(f"error: cannot listen on 127.0.0.1:{port + i if port else 0}: {e.strerror}", err=True)
                raise typer.Exit(1) from e
            phones.append(phone)
            if connect:
                from device import adb as hostadb

                hostadb.ensure_server()
                msg = hostadb.client().connect(phone.serial, timeout=20)
            else:
                msg = ""
            info = phone.info()
            if as_json:
                typer.echo(json.dumps({"serial": phone.serial, "connect": f"adb connect {phone.serial}",
                                       "registered": msg or None, **info}, ensure_ascii=False))
            else:
                typer.echo(f"adb connect {phone.serial}" + (f"    # {msg}" if msg else ""))
                kn = info["knobs"]
                kind = "permissive (rooted-emulator-like)" if kn.get("permissive") else "stock"
                typer.echo(f"  Android {kn.get('android')} {kind}, account: {kn.get('google_account') or 'none'}, "
                           f"lock: {'PIN' if kn.get('locked_pin') else 'swipe' if kn.get('locked') else 'none'}, "
                           f"time zone: {kn.get('timezone')}" + (", poses as a real phone" if kn.get("anonymous") else ""))
                typer.echo(f"  {info['model']} ({info['profile']}, family {info['family']}, flavor {info['flavor']}), "
                           f"{info['display']['width']}x{info['display']['height']} @ {info['display']['density']} dpi, "
                           f"serialno {info['serialno']}")
                typer.echo("  knobs: " + json.dumps(info["knobs"], ensure_ascii=False))
        t0 = time.time()
        while not stop_now and (duration <= 0 or time.time() - t0 < duration):
            time.sleep(0.2)
    except KeyboardInterrupt:
        pass
    finally:
        for phone in phones:
            if connect:
                try:
                    from device import adb as hostadb

                    hostadb.client().disconnect(phone.serial)
                except Exception:  # noqa: BLE001 - the adb server may be gone already
                    pass
            phone.stop()


# ============================================================================ bench
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _p50(xs: list[float]) -> float:
    return round(statistics.median(xs), 2) if xs else float("nan")


def run_bench(n: int = 20, profile: str = "pixel", flavor: str = "aosp") -> dict[str, Any]:
    """Measure a virtual phone through a private adb server; every number is measured here."""
    import adbutils

    from device.virtual.knobs import PhoneKnobs
    from device.virtual.phone import VirtualPhone

    adb = adbutils.adb_path()
    home = tempfile.mkdtemp(prefix="s2r-vbench-")
    port = _free_port()
    env = dict(os.environ, HOME=home, ANDROID_USER_HOME=os.path.join(home, ".android"),
               ANDROID_ADB_SERVER_PORT=str(port))
    env.pop("ADB_SERVER_SOCKET", None)

    def cli(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run([adb, "-P", str(port), *args], env=env, capture_output=True, timeout=timeout,
                              stdin=subprocess.DEVNULL)

    cli("start-server")
    phone: VirtualPhone | None = None
    try:
        knobs = PhoneKnobs(profile=profile, flavor=flavor)
        t0 = time.perf_counter()
        phone = VirtualPhone(knobs).start()
        t_listen = time.perf_counter()
        cli("connect", phone.serial)
        while True:
            out = cli("devices").stdout.decode()
            if any(line.split()[:2] == [phone.serial, "device"] for line in out.splitlines()[1:]):
                break
            if time.perf_counter() - t0 > 60:
                raise RuntimeError(f"{phone.serial} never reached 'device' state")
            time.sleep(0.01)
        t_device = time.perf_counter()
        client = adbutils.AdbClient(host="127.0.0.1", port=port, socket_timeout=60)
        d = client.device(phone.serial)
        for _ in range(3):
            d.shell("echo warm")
        mark = len(phone.backend.shell_times)
        rtt: list[float] = []
        for _ in range(n * 5):
            t = time.perf_counter()
            assert d.shell("echo hi") == "hi"
            rtt.append((time.perf_counter() - t) * 1000)
        inside = [s * 1000 for cmd, s in list(phone.backend.shell_times)[mark:] if cmd == "echo hi"]
        server_streams = [r.duration * 1000 for r in list(phone.adbd.server.stream_log)
                          if r.service == "shell:echo hi"] if phone.adbd.server else []
        fresh: list[float] = []
        cached: list[float] = []
        shot: list[float] = []
        dump: list[float] = []

        def one() -> tuple[float, float]:
            t = time.perf_counter()
            png = d.shell(["screencap", "-p"], encoding=None)
            t1 = time.perf_counter()
            xml = d.shell("uiautomator dump /sdcard/window_dump.xml >/dev/null && cat /sdcard/window_dump.xml")
            t2 = time.perf_counter()
            if not png.startswith(b"\x89PNG") or "<hierarchy" not in xml:
                raise RuntimeError("screencap/dump returned something else")
            return (t1 - t) * 1000, (t2 - t1) * 1000

        for i in range(n):
            d.shell("input keyevent KEYCODE_HOME" if i % 2 else "input keyevent KEYCODE_APP_SWITCH")
            time.sleep(phone.animation_ms() / 1000)  # let the transition finish, as a settle loop would
            a, b = one()
            shot.append(a)
            dump.append(b)
            fresh.append(a + b)
            a, b = one()
            cached.append(a + b)
        return {
            "start_to_device_s": round(t_device - t0, 3),
            "listen_to_device_s": round(t_device - t_listen, 3),
            "boot_s": round(t_listen - t0, 3),
            "shell_rtt_ms_p50_device": _p50(inside),
            "shell_stream_ms_p50_server": _p50(server_streams),
            "shell_rtt_ms_p50_adbutils": _p50(rtt),
            "screencap_plus_hierarchy_ms_p50": _p50(fresh),
            "screencap_plus_hierarchy_cached_ms_p50": _p50(cached),
            "screencap_ms_p50": _p50(shot),
            "hierarchy_ms_p50": _p50(dump),
            "n": n,
            "profile": profile,
            "flavor": flavor,
            "knobs": knobs.summary(),
            "adb": cli("version").stdout.decode().splitlines()[0] if cli("version").stdout else None,
        }
    finally:
        if phone is not None:
            cli("disconnect", phone.serial)
            phone.stop()
        cli("kill-server")  # the private server only


def register(app: typer.Typer) -> None:
    app.add_typer(vdevice_app, name="vdevice")
    try:
        from .sim import bench_app
    except ImportError:  # the sim commands are not there: give bench its own group
        bench_app = typer.Typer(help="Benchmarks that print JSON figures.", no_args_is_help=True)
        app.add_typer(bench_app, name="bench")

    @bench_app.command("vdevice")
    def bench_vdevice(
        n: int = typer.Option(20, min=3, help="Iterations of each measurement."),
        profile: str = typer.Option("pixel", help="Device profile."),
        flavor: str = typer.Option("aosp", help="App flavor: aosp or sim.", callback=flavor_option),
        as_json: bool = typer.Option(True, "--json/--no-json", help="Print one JSON object."),
    ) -> None:
        """Measure a virtual phone: start to `device`, shell RTT, screencap + hierarchy."""
        res = run_bench(n=n, profile=profile, flavor=flavor)
        typer.echo(json.dumps(res, indent=None if as_json else 2, ensure_ascii=False))
