"""``s2r/Device-v0``: a Gymnasium env over an Android phone (``device.env.DeviceEnv``).

The phone is reached through an adb server: the one ``device.adb`` names (``ADB_SERVER_SOCKET``
honoured), one at ``adb="HOST:PORT"``, or an ``adbutils.AdbClient`` passed as ``client``.
``serial="vdevice"`` starts a virtual phone of s2r's own (``device.virtual``; ``knobs`` shape it),
``adb connect``s it to that server and stops it when the env closes.

A stock phone runs one UiAutomation at a time (uiautomator2's server holds it), so the envs of
one process that name the same phone share one ``DeviceEnv`` session: the phone is prepared
once (preflight, tweaks, uiautomator2) and restored when the last of them closes. Episodes of
envs sharing a phone must not overlap.

Setups a phone cannot reproduce (``device.writers.SetupError`` with ``unsupported``, or a task
refused as unsafe on a real phone) are skipped when the env samples among several tasks:
``reset`` draws another and lists the skipped ones in ``info["skipped"]``. A task named alone
raises the setup's error instead.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from actionmap.actions import Action
from actionmap.env import StepInfo
from actionmap.observation import Observation
from actionmap.worldstate import WorldState

from .core import PhoneTaskEnv

VDEVICE = "vdevice"


@dataclass
class _Session:
    """One phone driven by this process: its DeviceEnv, who uses it, and the virtual phone (if ours)."""

    env: Any
    client: Any
    options: dict[str, Any]
    phone: Any = None
    users: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)


_sessions: dict[tuple[str, int, str], _Session] = {}
_sessions_lock = threading.Lock()


def _client(adb: str | None, client: Any) -> Any:
    """The adb client for ``adb="HOST:PORT"``, the one given, or ``device.adb``'s (server started)."""
    import adbutils

    from device.adb import client as default_client
    from device.adb import ensure_server

    if client is not None:
        if adb is not None:
            raise ValueError("give either adb='HOST:PORT' or client=AdbClient, not both")
        return client
    if adb is None:
        ensure_server()
        return default_client()
    if not isinstance(adb, str):
        raise TypeError(f"adb must be 'HOST:PORT' of an adb server, got {adb!r}")
    host, sep, port = adb.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"adb must be 'HOST:PORT' of an adb server (e.g. '127.0.0.1:5037'), got {adb!r}")
    return adbutils.AdbClient(host=host, port=int(port), socket_timeout=30)


def _open(serial: str, client: Any, options: dict[str, Any], knobs: dict[str, Any] | None) -> _Session:
    """The session of ``serial`` (started now, or the one this process already drives)."""
    from device.env import DeviceEnv, DeviceOptions

    phone = None
    if serial == VDEVICE:
        from transfer.device_backends import start_virtual_phones

        phone = start_virtual_phones(client, 1, {"flavor": "aosp", **(knobs or {})})[0]
        serial = phone.serial
        # a phone this env started is a dedicated test phone (as `--device vdevice:N` makes it)
        options = {"destructive": True, "grant_appops": True, **options}
    elif knobs:
        raise ValueError("knobs shape a virtual phone; they need serial='vdevice'")
    key = (str(client.host), int(client.port), serial)
    with _sessions_lock:
        s = _sessions.get(key)
        if s is not None and not s.env.closed:
            if s.options != options:
                raise ValueError(f"phone {serial} is already driven in this process with options {s.options}; "
                                 f"a second env on it must use the same options, not {options}")
            s.users += 1
            return s
        env = DeviceEnv(serial, client=client, options=DeviceOptions(**options))
        s = _Session(env=env, client=client, options=options, phone=phone, users=1)
        try:
            env.start()
        except BaseException:
            _stop_phone(s)
            raise
        _sessions[key] = s
        return s


def _stop_phone(s: _Session) -> None:
    if s.phone is None:
        return
    try:
        s.client.disconnect(s.phone.serial)
    except Exception:  # noqa: BLE001 - already gone from the server
        pass
    s.phone.stop()
    pool = s.phone.env.pool
    pool.rt.run(pool.close())


def _release(s: _Session) -> None:
    """One user less; the last one restores the phone (and stops it if this process started it)."""
    with _sessions_lock:
        s.users -= 1
        if s.users > 0:
            return
        for k, v in list(_sessions.items()):
            if v is s:
                del _sessions[k]
    try:
        s.env.close()
    finally:
        _stop_phone(s)


class DeviceGymEnv(PhoneTaskEnv):
    """``s2r/Device-v0``. Arguments (all keyword):

    * ``serial`` — the phone (``adb devices``), or ``"vdevice"`` for a virtual phone of its own;
      ``adb`` — ``"HOST:PORT"`` of the adb server, or ``client`` — an ``adbutils.AdbClient``;
    * ``knobs`` — a virtual phone's ``PhoneKnobs`` (``android``, ``permissive``, ...);
      ``options`` — ``device.env.DeviceOptions`` fields (``grant_appops``, ``test_recipient``, ...);
    * ``task``, ``split``, ``seed``, ``max_steps``, ``reward``, ``invalid_penalty``, ``pixels``,
      ``image_size``, ``coords``, ``grid`` — as for ``s2r/Sim-v0``.

    The observation's screenshot has the phone's natural (portrait) size unless ``image_size``
    is given; a frame of another size (the phone rotated) is scaled to it (``info["frame"]``).
    """

    def __init__(self, *, serial: str, adb: str | None = None, client: Any = None,
                 knobs: dict[str, Any] | None = None, options: dict[str, Any] | None = None,
                 task: str | Sequence[str] | None = None, split: str | None = None, seed: int | None = None,
                 max_steps: int | None = None, reward: str = "success", invalid_penalty: float = 0.1,
                 pixels: bool = True, image_size: tuple[int, int] | None = None, coords: str = "grid",
                 grid: int = 1000, render_mode: str | None = None):
        if not isinstance(serial, str) or not serial:
            raise TypeError(f"serial must be a phone's serial or {VDEVICE!r}, got {serial!r}")
        if options is not None and not isinstance(options, dict):
            raise TypeError(f"options must be a dict of DeviceOptions fields, got {options!r}")
        from device.env import DeviceOptions

        bad = sorted(set(options or {}) - set(DeviceOptions.model_fields))
        if bad:
            raise ValueError(f"unknown device options {bad}; valid: {', '.join(DeviceOptions.model_fields)}")
        self._session: _Session | None = None
        # the task arguments are checked before a phone is touched
        PhoneTaskEnv.__init__(self, task=task, split=split, seed=seed, max_steps=max_steps, reward=reward,
                              invalid_penalty=invalid_penalty, pixels=pixels, image_size=image_size,
                              coords=coords, grid=grid, render_mode=render_mode, screen=(1, 1))
        self._session = _open(serial, _client(adb, client), dict(options or {}), knobs)
        self.device = self._session.env
        self.serial = self.device.serial
        pf = self.device.pf
        natural = pf.natural_size or pf.display_size or (1080, 2400)
        w, h = self.image_size or natural
        self.frame = (h, w) if pixels else None
        from .spaces import observation_space

        self.observation_space = observation_space(self.frame)

    def _backend_reset(self, instance: Any) -> Observation:
        self._check_open()
        self.device.set_screenshots(self.pixels)
        return self.device.reset(instance)

    def _backend_step(self, action: Action) -> tuple[Observation, StepInfo]:
        self._check_open()
        return self.device.step(action)

    def _backend_state(self) -> WorldState:
        self._check_open()
        return self.device.read_state()

    def _backend_capture(self) -> Observation:
        self._check_open()
        was = self.device.set_screenshots(True)
        try:
            return self.device.observe()
        finally:
            self.device.set_screenshots(was)

    def _backend_end(self) -> Any:
        return self.device.end_episode()

    def _end_episode(self) -> dict[str, Any]:
        """Undo the episode's setup now, so what could not be removed is in this episode's info."""
        assert self._episode is not None
        return {"left_on_phone": self._episode.teardown(quiet=False)}

    def _skippable(self, error: Exception) -> bool:
        from device.env import UnsafeTask

        return isinstance(error, UnsafeTask) or bool(getattr(error, "unsupported", False))

    def _check_open(self) -> None:
        if self._session is None:
            from gymnasium.error import ClosedEnvironmentError

            raise ClosedEnvironmentError("this Device-v0 env is closed")

    @property
    def virtual_phone(self) -> Any:
        """The virtual phone this env started (``serial="vdevice"``), else None."""
        return self._session.phone if self._session is not None else None

    def close(self) -> None:
        """Release the phone: the last env on it restores it (and stops a virtual phone it started)."""
        s, self._session = self._session, None
        if s is not None:
            _release(s)
