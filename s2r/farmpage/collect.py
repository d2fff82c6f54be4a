"""The farm page's one view of the phones: the adb server's, the runs', the cluster hosts'.

Sources, merged into one row per phone (:class:`PhoneRow`):

* the adb server of this host — each phone's state (online, unauthorized, offline), and for an
  online one what it is (``getprop``, once while it stays attached) and its battery (``dumpsys
  battery``, at most every few seconds) — :class:`device.farmstatus.FactsCache`;
* the runs of this user on this host (the registry, :func:`device.farmstatus.live_runs`): for each
  phone a run holds, the run, task, episode, step and the screenshot of its last observation, and
  the run's farm's view of its phones (quarantined, paused and why);
* with ``ray_address``, each cluster host's :meth:`EpisodeHost.farm_status`: the same, read on the
  host (its phones are on its own adb server).

It is read only when asked and at most once per ``min_interval`` whoever asks (one refresh serves
every page open at the time), so a page nobody watches reads nothing, and a client that goes away
leaves nothing behind. A phone that leaves stays listed as ``absent`` for ``remember_s``.
"""

from __future__ import annotations

import base64
import json
import threading
import time
import urllib.request
from typing import Any
from urllib.parse import quote

from pydantic import BaseModel, Field

from device.farmstatus import Battery, FactsCache, HeldPhone, PhoneReading, RunEntry, RunStatus, live_runs

__all__ = ["Collector", "FarmView", "PhoneRow"]

LOCAL = "local"


class PhoneRow(BaseModel):
    """One phone on the page."""

    key: str = Field(description="WHERE/SERIAL: unique across the cluster's hosts.")
    where: str = Field(description="'local' (this host's adb server) or a cluster host's name.")
    serial: str
    adb_state: str
    health: str = Field(description="online | unauthorized | offline | absent | quarantined | paused | …")
    health_reason: str | None = None
    model: str | None = None
    manufacturer: str | None = None
    android: str | None = None
    sdk: int | None = None
    virtual: bool = False
    family: str | None = None
    app_families: dict[str, str] | None = None
    battery: Battery | None = None
    battery_at: float | None = None
    farm_state: str | None = Field(None, description="What a run's farm says: idle, busy, quarantined, paused …")
    held: HeldPhone | None = None
    shot_url: str | None = None
    last_seen: float
    error: str | None = None


class RunSummary(BaseModel):
    where: str
    pid: int
    run: str | None = None
    held: int = 0
    error: str | None = None


class FarmView(BaseModel):
    at: float
    adb_error: str | None = None
    runs: list[RunSummary] = Field(default_factory=list)
    hosts: list[dict[str, Any]] = Field(default_factory=list)
    phones: list[PhoneRow] = Field(default_factory=list)


def _health(adb_state: str) -> str:
    return {"device": "online"}.get(adb_state, adb_state or "absent")


class Collector:
    """Builds :class:`FarmView` on demand (see the module docstring)."""

    def __init__(self, client: Any = None, *, ray_address: str | None = None, min_interval: float = 1.0,
                 remember_s: float = 600.0, battery_every: float = 10.0, timeout: float = 3.0):
        if client is None:
            from device.adb import client as default_client

            client = default_client()
        self.client, self.ray_address = client, ray_address
        self.min_interval, self.remember_s, self.timeout = min_interval, remember_s, timeout
        self.cache = FactsCache(battery_every=battery_every)
        self._lock = threading.Lock()
        self._view: FarmView | None = None
        self._at = 0.0
        self._shots: dict[str, tuple[int, int, bytes, str]] = {}  # key -> publisher's pid, seq, bytes, MIME type
        self._seen: dict[str, PhoneRow] = {}
        self._families: dict[str, dict[str, str]] = {}
        if ray_address:
            from transfer.distributed.ray_engine import connect

            connect(ray_address)

    # ------------------------------------------------------------------ what the server asks
    def view(self) -> FarmView:
        with self._lock:
            if self._view is None or time.monotonic() - self._at >= self.min_interval:
                self._view = self._refresh()
                self._at = time.monotonic()
            return self._view

    def shot(self, key: str) -> tuple[bytes, str] | None:
        got = self._shots.get(key)
        return None if got is None else (got[2], got[3])

    # ------------------------------------------------------------------ one refresh
    def _refresh(self) -> FarmView:
        now = time.time()
        view = FarmView(at=now)
        rows: dict[str, PhoneRow] = {}
        try:
            states = {i.serial: i.state for i in self.client.list()}
        except Exception as e:  # noqa: BLE001 - no adb server: runs and hosts still show
            states, view.adb_error = {}, f"{type(e).__name__}: {e}"[:200]
        for r in self.cache.read(self.client, states):
            rows[f"{LOCAL}/{r.serial}"] = self._row(LOCAL, r, now)
        skip: set[tuple[str, int]] = set()
        if self.ray_address:
            skip = self._from_hosts(view, rows, now)
        for entry in live_runs():
            if (entry.host, entry.pid) in skip:
                continue  # a cluster host's process: shown through its actor
            self._from_run(entry, view, rows, now)
        for key, old in list(self._seen.items()):  # phones that left: listed a while, as absent
            if key in rows:
                continue
            if now - old.last_seen > self.remember_s:
                self._seen.pop(key, None)
                continue
            rows[key] = old.model_copy(update={"adb_state": "absent", "health": "absent", "held": None,
                                               "shot_url": None, "farm_state": None, "health_reason": None})
        for key, row in rows.items():
            if row.health != "absent":
                self._seen[key] = row
            if row.held is not None and row.held.app_families:
                self._families[key] = row.held.app_families
            row.app_families = row.app_families or self._families.get(key)
            shot = self._shots.get(key)
            if row.held is None or not row.held.shot_seq or shot is None or shot[1] != row.held.shot_seq:
                self._shots.pop(key, None)  # none yet in this episode: never the last episode's screen
            else:  # the URL names the image: the browser fetches each one once
                row.shot_url = f"shot?key={quote(key, safe='')}&v={shot[0]}.{shot[1]}"
        view.phones = sorted(rows.values(), key=lambda r: (r.where != LOCAL, r.where, r.serial))
        return view

    @staticmethod
    def _row(where: str, r: PhoneReading, now: float) -> PhoneRow:
        f = r.facts
        return PhoneRow(key=f"{where}/{r.serial}", where=where, serial=r.serial, adb_state=r.adb_state,
                        health=_health(r.adb_state), model=f and f.model, manufacturer=f and f.manufacturer,
                        android=f and f.android, sdk=f and f.sdk, virtual=bool(f and f.virtual),
                        family=f and f.family, battery=r.battery, battery_at=r.battery_at, last_seen=now,
                        error=r.error)

    def _merge(self, where: str, status: RunStatus, rows: dict[str, PhoneRow], now: float) -> None:
        """A run's (or host's) held phones and its farm's states, onto the rows."""
        for fp in status.farm:
            key = f"{where}/{fp.serial}"
            row = rows.get(key)
            if row is None:
                continue  # a farm phone that is not attached (gone) and never was seen here
            row.farm_state = fp.status
            if fp.status not in ("idle", "busy") and row.health == "online":
                row.health, row.health_reason = fp.status, fp.reason
        for h in status.held:
            key = f"{where}/{h.serial}"
            row = rows.get(key)
            if row is None:  # on an adb server this page does not read: what the run knows
                row = rows[key] = PhoneRow(key=key, where=where, serial=h.serial, adb_state="?",
                                           health="online", model=h.model, last_seen=now)
            row.held = h
            row.farm_state = row.farm_state or "busy"

    def _from_run(self, entry: RunEntry, view: FarmView, rows: dict[str, PhoneRow], now: float) -> None:
        summary = RunSummary(where=LOCAL, pid=entry.pid, run=entry.run)
        view.runs.append(summary)
        try:
            status = RunStatus.model_validate_json(self._get(entry, "/status"))
        except Exception as e:  # noqa: BLE001 - a run ending while we ask
            summary.error = f"{type(e).__name__}: {e}"[:200]
            return
        summary.run, summary.held = status.run or entry.run, len(status.held)
        self._merge(LOCAL, status, rows, now)
        for h in status.held:
            key = f"{LOCAL}/{h.serial}"
            have = self._shots.get(key)
            if h.shot_seq and (have is None or have[:2] != (entry.pid, h.shot_seq)):
                try:
                    self._shots[key] = (entry.pid, h.shot_seq,
                                        self._get(entry, f"/shot?serial={quote(h.serial, safe='')}"),
                                        h.shot_type or "image/png")
                except Exception:  # noqa: BLE001 - released meanwhile: the next refresh says so
                    pass

    def _get(self, entry: RunEntry, path: str) -> bytes:
        req = urllib.request.Request(f"http://127.0.0.1:{entry.port}{path}",
                                     headers={"Authorization": f"Bearer {entry.token}"})
        with urllib.request.urlopen(req, timeout=self.timeout) as resp:  # noqa: S310 - loopback, our own run
            return resp.read()

    def _from_hosts(self, view: FarmView, rows: dict[str, PhoneRow], now: float) -> set[tuple[str, int]]:
        """Each cluster host's phones and episodes (its actor's ``farm_status``); the (host, pid) of each."""
        import ray

        from transfer.distributed.ray_engine import NAMESPACE, host_names

        seen: set[tuple[str, int]] = set()
        try:
            names = host_names()
        except Exception as e:  # noqa: BLE001 - the cluster went away
            view.hosts.append({"name": "?", "error": f"{type(e).__name__}: {e}"[:200]})
            return seen
        calls = {}
        for full in names:
            name = full.split(":", 1)[1] if ":" in full else full
            known = {k.split("/", 1)[1]: v[1] for k, v in self._shots.items() if k.startswith(f"{name}/")}
            try:
                calls[name] = ray.get_actor(full, namespace=NAMESPACE).farm_status.remote(known)
            except Exception as e:  # noqa: BLE001 - a host leaving while we look
                view.hosts.append({"name": name, "error": f"{type(e).__name__}: {e}"[:200]})
        for name, ref in calls.items():
            try:
                got = ray.get(ref, timeout=self.timeout)
            except Exception as e:  # noqa: BLE001 - a host busy past the timeout or gone
                view.hosts.append({"name": name, "error": f"{type(e).__name__}: {e}"[:200]})
                continue
            seen.add((got.get("host", ""), int(got.get("pid", 0))))
            view.hosts.append({"name": name, "leaving": got.get("leaving"), "phones": len(got.get("phones") or [])})
            for raw in got.get("phones") or []:
                r = PhoneReading.model_validate(raw)
                rows[f"{name}/{r.serial}"] = self._row(name, r, now)
            status = RunStatus.model_validate(got["status"])
            for h in status.held:  # a host's episodes run for a driver elsewhere (its run directory)
                h.run, h.run_id = f"cluster run, host {name}", "cluster"
            self._merge(name, status, rows, now)
            for serial, s in (got.get("shots") or {}).items():
                self._shots[f"{name}/{serial}"] = (int(got.get("pid", 0)), int(s["seq"]), base64.b64decode(s["data"]),
                                                   s["type"])
        return seen


def view_json(view: FarmView) -> bytes:
    """The view as the page's JSON."""
    return json.dumps(view.model_dump(mode="json"), ensure_ascii=False).encode()
