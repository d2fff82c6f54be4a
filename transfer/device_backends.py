"""Device backends for the runner: episodes leased onto phones of a :class:`device.farm.DeviceFarm`.

``DeviceBackends.from_spec(spec)``:

* ``"all"`` — every phone the adb server shows now or later (hotplug);
* ``"SERIAL,SERIAL"`` — only these phones (``HOST:PORT`` for Wi-Fi/TCP phones);
* ``"vdevice:N"`` (or ``vdevice:N:FLAVOR``) — start N of s2r's virtual phones, ``adb connect``
  them, and drive them through the very same adb path as USB phones.
  ``vdevice:N:FLAVOR:KNOBS`` shapes them (:func:`parse_vdevice_knobs`): a comma-separated list of
  ``[I@]name[=value]`` — ``locked``, ``locked_pin=1234``, ``anonymous``, ``timezone=America/New_York``,
  ``android=11``, ``family=google`` … — for every phone, or only phone ``I`` (0-based) with ``I@``; e.g.
  ``vdevice:3:aosp:timezone=America/New_York,1@anonymous,2@locked_pin=1234``. Each phone is known
  by its handle (``DeviceBackends.phones``), never by its properties: an ``anonymous`` phone that
  poses as a real one is started, described and stopped all the same.

A lease's env is the phone's :class:`device.env.DeviceEnv`. When an episode fails with an
infrastructure error (the runner raises ``InfraError`` on ``error_kind == "infra"`` or a
failed reset), the runner calls ``release(broken=True)``: the phone leaves rotation until
the farm sees it healthy again, and the runner retries the episode on another phone
(recording ``retried_from``).
"""

from __future__ import annotations

import logging
import time
from typing import Any

from device.env import DeviceEnv, DeviceOptions
from device.farm import DeviceFarm

from .runner import EpisodeSpec, Lease

__all__ = ["DeviceBackends", "parse_device_spec", "parse_vdevice_knobs", "start_virtual_phones", "ensure_u2server"]

#: Knobs a ``vdevice:N:FLAVOR:KNOBS`` spec may set, and their types.
SPEC_KNOBS: dict[str, type] = {"locked": bool, "locked_pin": str, "anonymous": bool, "timezone": str, "android": int,
                               "permissive": bool, "google_account": str, "profile": str, "timing": str,
                               "screen_timeout": bool, "family": str,
                               "battery_level": int, "battery_temp": int, "plugged": str, "screenrecord": str}


def with_family(knobs: dict[str, Any]) -> dict[str, Any]:
    """A phone's knobs with its ``family`` (if set) choosing its flavor: a stock flavor (aosp,
    google) becomes the family's own, since a google phone draws the google flavor and an aosp
    phone the aosp one (:class:`device.virtual.knobs.PhoneKnobs`); ``sim`` stays and is checked."""
    k = dict(knobs)
    if k.get("family") and k.get("flavor") in (None, "aosp", "google"):
        k["flavor"] = k["family"]
    return k


def parse_vdevice_knobs(spec: str, n: int | None = None) -> list[dict[str, Any]]:
    """The per-phone knobs of ``vdevice:N:FLAVOR:KNOBS`` (one dict per phone, ``[]`` without KNOBS).

    KNOBS is ``ITEM[,ITEM...]``, ITEM ``[I@]name[=value]``: a bare name sets a boolean knob,
    ``I@`` limits the item to phone I. Raises ``ValueError`` naming the accepted knobs."""
    parts = (spec or "").strip().split(":")
    if not parts or parts[0] != "vdevice" or len(parts) < 4 or not ":".join(parts[3:]).strip():
        return []
    if n is None:
        n = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 1
    out: list[dict[str, Any]] = [{} for _ in range(n)]
    for item in ":".join(parts[3:]).split(","):
        item = item.strip()
        if not item:
            continue
        who: list[int] = list(range(n))
        if "@" in item:
            idx, item = item.split("@", 1)
            if not idx.strip().isdigit() or not 0 <= int(idx) < n:
                raise ValueError(f"bad phone index in {spec!r}: {idx!r} (0..{n - 1})")
            who = [int(idx)]
        name, _, raw = item.partition("=")
        name = name.strip().replace("-", "_")
        kind = SPEC_KNOBS.get(name)
        if kind is None:
            raise ValueError(f"unknown vdevice knob {name!r}; known: {', '.join(sorted(SPEC_KNOBS))}")
        value: Any
        if kind is bool:
            if raw and raw.strip().lower() not in ("1", "0", "true", "false", "yes", "no", "on", "off"):
                raise ValueError(f"knob {name} is on/off, got {raw!r}")
            value = (raw.strip().lower() in ("1", "true", "yes", "on")) if raw else True
        elif not raw:
            raise ValueError(f"knob {name} needs a value: {name}=...")
        else:
            try:
                value = kind(raw.strip())
            except ValueError:
                raise ValueError(f"knob {name} takes a {kind.__name__}, got {raw!r}") from None
        for i in who:
            out[i][name] = value
    from device.virtual.knobs import PhoneKnobs

    flavor = parts[2] if len(parts) > 2 and parts[2] else "aosp"
    for k in out:  # each phone's knobs must make a valid phone
        PhoneKnobs.model_validate(with_family({"flavor": flavor, **k}))
    return out

log = logging.getLogger(__name__)


def parse_device_spec(spec: str) -> tuple[str, list[str] | None, int, str]:
    """``'all'`` → ('all', None, 0, ''); ``'a,b'`` → ('serials', [a, b], 0, ''); ``'vdevice:3'`` →
    ('vdevice', None, 3, 'aosp'). Raises ``ValueError`` with the accepted forms."""
    s = (spec or "").strip()
    if not s:
        raise ValueError("empty device spec; use 'all', 'SERIAL[,SERIAL...]' or 'vdevice:N'")
    if s == "all":
        return "all", None, 0, ""
    if s.startswith("vdevice"):
        parts = s.split(":")
        try:
            n = int(parts[1]) if len(parts) > 1 and parts[1] else 1
        except ValueError:
            raise ValueError(f"bad vdevice spec {spec!r}; use vdevice:N, vdevice:N:FLAVOR or "
                             "vdevice:N:FLAVOR:KNOBS") from None
        if not 1 <= n <= 32:
            raise ValueError(f"vdevice:N needs 1 <= N <= 32, got {n}")
        flavor = parts[2] if len(parts) > 2 and parts[2] else "aosp"
        parse_vdevice_knobs(s, n)  # a bad KNOBS part is the spec's error
        return "vdevice", None, n, flavor
    serials = [x.strip() for x in s.split(",") if x.strip()]
    if not serials:
        raise ValueError(f"no serials in {spec!r}")
    return "serials", serials, 0, ""


class DeviceBackends:
    """The runner's lease interface over a device farm (and the virtual phones it started)."""

    def __init__(self, farm: DeviceFarm, *, phones: list[Any] | None = None, lease_timeout: float = 600.0,
                 spec: str = ""):
        self.farm = farm
        self.phones = phones or []
        self.lease_timeout = lease_timeout
        self.spec = spec

    @classmethod
    def from_spec(cls, spec: str, *, options: DeviceOptions | None = None, client: Any = None,
                  lease_timeout: float = 600.0, knobs: dict[str, Any] | None = None,
                  android: list[int] | None = None, wait_devices: float = 30.0,
                  echo: Any = None, family: list[str] | None = None) -> "DeviceBackends":
        """``knobs``, ``android`` and ``family`` shape the virtual phones of a ``vdevice:N`` spec (phone i
        follows ``android[i % len]`` and ``family[i % len]``); ``wait_devices``: for ``all``/serials, how long to wait for a usable
        phone before raising ``NoDevicesError`` with the fix (``echo`` shows the wait)."""
        from device.adb import client as default_client
        from device.adb import ensure_server

        kind, serials, n, flavor = parse_device_spec(spec)
        if client is None:
            ensure_server()
            client = default_client()
        opts = options or DeviceOptions()
        phones: list[Any] = []
        if kind == "vdevice":
            phones = start_virtual_phones(client, n, {"flavor": flavor, **(knobs or {})}, android=android,
                                          per_phone=parse_vdevice_knobs(spec, n) or None, family=family)
            serials = [p.serial for p in phones]
            # phones this run started are dedicated test phones by construction: a contact or
            # event a policy creates is undone too (on a person's phone it is left alone), and
            # setup may lift the WRITE_SMS app-op (restored at close) as --grant-appops would
            opts = opts.model_copy(update={"destructive": True, "grant_appops": True})
        else:
            from device import farm as farm_mod

            waiter = getattr(farm_mod, "wait_for_devices", None)
            if waiter is not None:
                import sys

                def _echo(msg: str) -> None:
                    print(msg, file=sys.stderr, flush=True)

                waiter(client, serials, wait_devices, echo or _echo)
        farm = DeviceFarm(client, serials=serials, env_factory=lambda s: DeviceEnv(s, client=client, options=opts))
        farm.start()
        if kind != "all":
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline and not any(d.status == "idle" for d in farm.devices()):
                time.sleep(0.2)
        return cls(farm, phones=phones, lease_timeout=lease_timeout, spec=spec)

    def describe(self) -> list[dict[str, Any]]:
        """What each phone of the farm is (for ``config.json``): serial, and for s2r's virtual
        phones the knobs that make it stock or permissive and its Android release."""
        out: list[dict[str, Any]] = []
        for p in self.phones:
            k = p.knobs
            out.append({"serial": p.serial, "virtual": True, "android": k.android, "permissive": k.permissive,
                        "google_account": k.google_account, "flavor": k.flavor, "family": k.family,
                        "anonymous": k.anonymous,
                        "lock": "pin" if k.locked_pin else "swipe" if k.locked else None, "timezone": k.timezone})
        if not self.phones:
            out = [{"serial": d.serial, "virtual": False} for d in self.farm.devices()]
        return out

    def families(self) -> list[str]:
        """The phone families of the virtual phones this farm started, in first-seen order (empty for
        real phones: their apps' families are read at lease time, not known up front)."""
        out: list[str] = []
        for p in self.phones:
            fam = getattr(p.knobs, "family", None)
            if fam and fam not in out:
                out.append(fam)
        return out

    def targets(self) -> list[str]:
        """The run's device targets: ``farm`` — any phone takes any episode —, or, on a virtual farm
        of two or more families, ``farm:<family>`` per family, so that every device episode runs
        once on each family and the report can pair each task within a family (with one target,
        a task's base and trained episodes land on whichever phones are free, often of two
        different families, and pair in neither)."""
        fams = self.families()
        return [f"farm:{f}" for f in fams] if len(fams) > 1 else ["farm"]

    def lease(self, spec: EpisodeSpec) -> Lease:
        exclude: set[str] = set()
        if spec.target.startswith("farm:"):  # a phone of that family only
            fam = spec.target.split(":", 1)[1]
            exclude = {p.serial for p in self.phones if getattr(p.knobs, "family", None) != fam}
        fl = self.farm.lease(timeout=self.lease_timeout, exclude=exclude)
        info = {**fl.info, "target": spec.target}
        return Lease(env=fl.env, info=info, release=lambda broken: fl.release(broken))

    def close(self) -> list[dict[str, Any]]:
        """Close every phone (teardown, restore, audit); the per-phone closing reports."""
        self.farm.close()
        reports = list(self.farm.closing_reports)
        for p in self.phones:
            try:
                self.farm.client.disconnect(p.serial)
            except Exception:  # noqa: BLE001
                pass
            try:
                p.stop()
            except Exception as e:  # noqa: BLE001
                log.warning("stopping virtual phone %s: %s", getattr(p, "serial", "?"), e)
        for pool in {id(p.env.pool): p.env.pool for p in self.phones}.values():  # the phones' own pages
            try:
                pool.rt.run(pool.close())
            except Exception as e:  # noqa: BLE001
                log.warning("closing the virtual phones' pages: %s", e)
        return reports


def ensure_u2server(phone: Any) -> bool:
    """Serve uiautomator2's on-device server on the virtual phone's port 9008 unless it already
    does (a real phone has it once the client pushes the jar; the virtual one needs wiring)."""
    if 9008 in getattr(phone, "_on_demand", {}) or phone.backend.socket_handler("tcp", "9008") is not None:
        return True
    try:
        from device.virtual.u2server import install_u2server
    except ImportError:
        return False
    install_u2server(phone)
    return True


def start_virtual_phones(client: Any, n: int, knobs: dict[str, Any] | None = None,
                         timeout: float = 60.0, android: list[int] | None = None,
                         per_phone: list[dict[str, Any]] | None = None,
                         family: list[str] | None = None) -> list[Any]:
    """Start ``n`` virtual phones and ``adb connect`` each through ``client``'s adb server.

    ``android``: the releases to spread over the phones (phone i follows ``android[i % len]``);
    ``family``: the phone families to spread likewise (``family[i % len]``, which also picks the
    phone's stock flavor: :func:`with_family`);
    ``per_phone``: knobs of phone i (``per_phone[i]``, from :func:`parse_vdevice_knobs`), over both."""
    from device.virtual.phone import VirtualPhone
    from sim.pool import SimPool
    from sim.runtime import Runtime

    # one live page per phone: phones sharing a page wait for it and re-render each other's
    # state at every screencap or dump (a latency a real phone never has)
    pool = SimPool(Runtime.get(), pages_per_profile=max(2, n))
    phones: list[Any] = []
    try:
        for i in range(n):
            k = dict(knobs or {})
            k.setdefault("seed", i)
            if android:
                k["android"] = android[i % len(android)]
            if family:
                k["family"] = family[i % len(family)]
            if per_phone and i < len(per_phone):
                k.update(per_phone[i])
            p = VirtualPhone(with_family(k), pool=pool).start()
            phones.append(p)
            ensure_u2server(p)
            client.connect(p.serial, timeout=10)
        deadline = time.monotonic() + timeout
        pending = {p.serial for p in phones}
        while pending and time.monotonic() < deadline:
            states = {i.serial: i.state for i in client.list()}
            pending = {s for s in pending if states.get(s) != "device"}
            if pending:
                time.sleep(0.1)
        if pending:
            raise RuntimeError(f"virtual phones never came online: {sorted(pending)}")
    except Exception:
        for p in phones:
            try:
                client.disconnect(p.serial)
                p.stop()
            except Exception:  # noqa: BLE001
                pass
        raise
    return phones
