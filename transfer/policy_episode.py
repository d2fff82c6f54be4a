"""One policy plays one episode on a backend it was lent, into an ``EpisodeRecord``.

The policy's loop on top of the episode state machine (:class:`~transfer.episode_loop.Episode`):
ask the policy, hand its output to the episode, keep its history, trace, timings and token
counts, then judge and tear down and write the record. Failures become the errors the runner
acts on (:mod:`actionmap.errors`): a setup the backend cannot do is :class:`SetupUnsupported`, a
failed backend :class:`InfraError` (retried on another one), a model server that gave no answer
:class:`PolicyServerOutage` (the episode is void; the phone is kept). A policy that raises is
the policy's fault: an invalid step, never a crash.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from actionmap.actions import TypeText
from actionmap.errors import ActionParseError, InfraError, PolicyServerOutage, SetupUnsupported
from device import farmstatus

from .episode_loop import Episode
from .policies.base import BasePolicy, StepRecord
from .records import EpisodeRecord
from .runconfig import RunConfig

if TYPE_CHECKING:
    from .runner import EpisodeSpec


def run_episode(env: Any, policy: BasePolicy, instance: Any, spec: "EpisodeSpec", *, backend_info: dict[str, Any],
                trace_dir: Path | None = None, trace_width: int | None = None, frames: str | None = None,
                config: RunConfig | None = None) -> EpisodeRecord:
    """Run one episode and judge it. Raises :class:`InfraError` on backend failure.

    ``frames`` (default ``config.frames``): ``"auto"`` captures the screen at every step only for
    a policy that reads pixels (``policy.reads_pixels``); one that reads only UI elements gets the
    same elements without the capture, and its trace keeps the first and last frames. ``"all"``
    always captures every step (a full step viewer for any policy). ``trace_width`` (default
    ``config.trace_width``): the width of the trace's frames.
    """
    config = config or RunConfig()
    frames = frames or config.frames
    t0 = time.time()
    video = config.video and trace_dir is not None
    # a phone records its own screen (device.recorder); elsewhere the trace's frames make the video
    recording = getattr(env, "set_recording", None)
    was_recording = recording(video) if recording is not None else False
    toggle = getattr(env, "set_screenshots", None)
    # the first frame is captured (the trace's, and the policy's if it reads pixels), unless
    # whoever configured the env turned capture off: that choice is kept
    configured = toggle(True) if toggle is not None else True
    if not configured:
        toggle(False)  # type: ignore[misc]
    every_step = toggle is None or (configured and (frames == "all" or getattr(policy, "reads_pixels", True)
                                                    or (video and recording is None)))
    episode = Episode(env, instance)
    try:
        episode.start()
    except Exception as e:  # noqa: BLE001
        if recording is not None:
            recording(was_recording)
        if getattr(e, "unsupported", False):
            raise SetupUnsupported(str(e)) from e
        episode_media(env, trace_dir, f"infra: reset failed: {type(e).__name__}: {e}")
        raise InfraError(f"reset failed: {type(e).__name__}: {e}") from e
    try:
        if not every_step:
            toggle(False)  # type: ignore[misc]
        loop = _PolicyLoop(episode, policy, spec, backend_info, t0)
        return loop.run(trace_dir, trace_width or config.trace_width, last_frame=configured and not every_step,
                        frame_video=video and recording is None)
    finally:
        if toggle is not None:
            toggle(configured)  # the env outlives the episode (a farm phone): leave it as found
        if recording is not None:
            recording(was_recording)


def episode_media(env: Any, trace_dir: Path | None, fault: str | None = None) -> dict[str, Any]:
    """What a phone keeps of an episode for its trace (``env.save_episode_media``): its video,
    stopped and pulled (and removed from the phone), and after a bridge or infrastructure fault
    (``fault``, or one a step reported) its span of the phone's log. Nothing elsewhere."""
    save = getattr(env, "save_episode_media", None)
    if save is None or trace_dir is None:
        return {}
    try:
        return save(trace_dir, fault)
    except Exception as e:  # noqa: BLE001 - a trace is a convenience; the episode's outcome stands
        return {"error": f"{type(e).__name__}: {e}"[:300]}


class _PolicyLoop:
    """The policy's side of one started episode: its history, trace, timings and tokens."""

    def __init__(self, episode: Episode, policy: BasePolicy, spec: "EpisodeSpec", backend_info: dict[str, Any],
                 t0: float):
        self.episode, self.policy, self.spec, self.info, self.t0 = episode, policy, spec, backend_info, t0
        self.writer: TraceWriter | None = None
        self.flavor = backend_info.get("flavor") or "sim"
        self.history: list[StepRecord] = []
        self.trace: list[dict[str, Any]] = []
        self.policy_s = 0.0
        self.model_ms: list[float] = []
        self.tokens: dict[str, int] = {}

    def run(self, trace_dir: Path | None, trace_width: int, *, last_frame: bool,
            frame_video: bool = False) -> EpisodeRecord:
        ep, instance = self.episode, self.episode.instance
        self.policy.reset(instance.prompt(), {
            "instance": instance, "task_id": instance.template_id, "seed": instance.seed, "repeat": self.spec.repeat,
            "backend": self.spec.backend, "flavor": self.flavor, "app_families": self.info.get("app_families") or {}})
        self.writer = TraceWriter(trace_dir, trace_width, video=frame_video) if trace_dir else None
        if self.writer:
            self.writer.shot(0, ep.observation)
        farmstatus.step(self.info, 0, ep.observation)  # the farm page's view of this phone
        played = time.monotonic()
        try:
            while not ep.over:
                self._step()
        except PolicyServerOutage:
            raise
        except InfraError as e:  # the phone's log of the episode, and its video so far
            episode_media(ep.env, trace_dir, f"infra: {e}")
            raise
        played = time.monotonic() - played
        media = episode_media(ep.env, trace_dir)  # the video ends with the last step, before the judge reads
        if self.writer and frame_video:
            media["video"] = self.writer.end_video()
        if self.writer and last_frame and ep.steps:  # the last screen, for the step viewer
            try:
                ep.env.set_screenshots(True)
                self.writer.shot(ep.steps, ep.env.observe())
            except Exception:  # noqa: BLE001 - a trace frame is a convenience; the episode stands
                pass
        try:
            verdict = ep.finish()  # StateReadFailed is an InfraError
        except InfraError as e:
            episode_media(ep.env, trace_dir, f"infra: {e}")
            raise
        left = ep.teardown()  # undo the setup now: what cannot be removed belongs in this record
        if self.writer:
            self.writer.finish(self.trace, verdict.model_dump(mode="json"), media, played)
        rec = self._record(verdict, left)
        if self.writer:
            for k, v in self.writer.record_fields(media, played).items():
                setattr(rec, k, v)
        return rec

    def _step(self) -> None:
        ep = self.episode
        tp = time.perf_counter()
        try:
            out = self.policy.act(ep.observation, self.history)
        except PolicyServerOutage as e:  # raised rather than returned: the same outage
            out = e
        except Exception as e:  # noqa: BLE001 - a policy crash is the policy's fault, recorded as invalid
            out = ActionParseError("bad_value", f"policy raised {type(e).__name__}: {e}"[:500], "")
        dt = time.perf_counter() - tp
        self.policy_s += dt
        if isinstance(out, PolicyServerOutage):
            ep.teardown()  # undo the setup: the episode is void, the phone stays in service
            raise PolicyServerOutage(out.server, out.detail, steps=ep.steps)
        self.model_ms.append(round(dt * 1e3, 2))
        _add_tokens(self.tokens, getattr(self.policy, "last_call", None))
        step = ep.step(out)
        farmstatus.step(self.info, step.step, step.observation)
        if step.parse_error is not None:
            rec = StepRecord(step=step.step, raw=step.parse_error.raw[:2000], invalid=step.invalid)
            self.history.append(rec)
            self.trace.append(rec.model_dump())
            return
        assert step.action is not None and step.info is not None
        info = step.info
        if step.infra:
            raise InfraError(info.error or "backend error")
        rec = StepRecord(step=step.step, action=step.action.to_json(), invalid=info.invalid_action)
        self.history.append(rec)
        self.trace.append({**rec.model_dump(), "timings_ms": info.timings_ms, "clamped": info.clamped,
                           "error": info.error, "foreground": step.observation.foreground.model_dump(),
                           **({"text": {k: v for k, v in info.extra.items() if k.startswith("text")}}
                              if isinstance(step.action, TypeText) else {})})
        if self.writer:
            self.writer.shot(step.step, step.observation)

    def _record(self, verdict: Any, left: list[str]) -> EpisodeRecord:
        ep, spec, info, instance = self.episode, self.spec, self.info, self.episode.instance
        t1 = time.time()
        timings = {"policy_s": self.policy_s, "env_s": ep.env_s, "total_s": t1 - self.t0,
                   "mean_step_ms": (ep.env_s / max(1, ep.steps - ep.invalid)) * 1e3}
        trace_dir = self.writer.path if self.writer else None
        return EpisodeRecord(
            episode_id=spec.episode_id, policy=spec.policy, policy_spec=spec.policy_spec,
            checkpoint_hash=getattr(self.policy, "checkpoint_hash", None), task_id=instance.template_id,
            seed=instance.seed, repeat=spec.repeat, split=spec.split, instruction=instance.instruction,
            difficulty=instance.difficulty, backend=spec.backend, target=spec.target,
            device_serial=info.get("serial"), device_model=info.get("model"), profile=info.get("profile"),
            flavor=self.flavor, app_families=info.get("app_families") or None,
            terminated_by=ep.ended_by or "max_steps", steps=ep.steps, invalid_actions=ep.invalid, timings=timings,
            trace_path=str(trace_dir.relative_to(trace_dir.parent.parent)) if trace_dir else None,
            started_at=self.t0, finished_at=t1, left_on_phone=left, policy_step_ms=self.model_ms,
            tokens=self.tokens, **verdict.record_fields(),
        )


def _add_tokens(acc: dict[str, int], call: dict[str, float] | None) -> None:
    """Sum the usage a model server reported for one step (servers that report none add nothing)."""
    for k in ("prompt_tokens", "completion_tokens"):
        if call and k in call:
            acc[k] = acc.get(k, 0) + int(call[k])


class TraceWriter:
    """Per-step downscaled screenshots plus a steps.jsonl (for the report's step viewer); with
    ``video``, the frames also make ``video.mp4``, each held until the next step's (a simulator's
    episode: a phone records its own screen, see :func:`episode_media`)."""

    def __init__(self, path: Path, width: int, *, video: bool = False):
        self.path = path
        self.width = width
        path.mkdir(parents=True, exist_ok=True)
        for old in path.glob("video*.mp4"):  # an earlier attempt's video is not this episode's
            old.unlink()
        self.video: Any = None
        if video:
            from device.recorder import HeldFrameVideo

            self.video = HeldFrameVideo(path / "video.mp4")

    def shot(self, step: int, obs: Any) -> None:
        if not obs.screenshot:
            return
        try:
            import cv2
            import numpy as np

            img = cv2.imdecode(np.frombuffer(obs.screenshot, np.uint8), cv2.IMREAD_COLOR)
            h = round(img.shape[0] * self.width / img.shape[1])
            small = cv2.resize(img, (self.width, h), interpolation=cv2.INTER_AREA)
            cv2.imwrite(str(self.path / f"{step:03d}.jpg"), small, [cv2.IMWRITE_JPEG_QUALITY, 70])
            if self.video is not None:
                self.video.add(small, time.monotonic())
        except Exception:  # noqa: BLE001 - a trace is a convenience; never fail an episode over it
            pass

    def end_video(self) -> dict[str, Any]:
        """Finish the frames' video now (the episode's last step is over)."""
        from device.recorder import video_info

        v, self.video = self.video, None
        if v is None or not v.close(time.monotonic()):
            return {"files": [], "none": "no frames were captured"}
        return {"files": ["video.mp4"], **video_info(v.path)}

    def finish(self, steps: list[dict[str, Any]], verdict: dict[str, Any], media: dict[str, Any] | None = None,
               played_s: float | None = None) -> None:
        with (self.path / "steps.jsonl").open("w", encoding="utf-8") as f:
            for s in steps:
                f.write(json.dumps(s, ensure_ascii=False, default=str) + "\n")
        (self.path / "verdict.json").write_text(json.dumps(verdict, ensure_ascii=False, indent=1, default=str))
        if media and media.get("video") is not None:
            (self.path / "video.json").write_text(json.dumps({**media["video"], "episode_s": played_s}, indent=1,
                                                             default=str))

    def record_fields(self, media: dict[str, Any], played_s: float) -> dict[str, Any]:
        """The record's ``video`` (files relative to the run directory, duration, the episode's
        own play time from the start screen to its last step) and ``logcat`` (the saved log)."""
        rel = f"{self.path.parent.name}/{self.path.name}"
        out: dict[str, Any] = {}
        v = media.get("video")
        if v is not None:
            out["video"] = {**{k: x for k, x in v.items() if k != "files"},
                            "files": [f"{rel}/{f}" for f in v.get("files") or []], "episode_s": round(played_s, 3)}
        lc = media.get("logcat")
        if lc and lc.get("file"):
            out["logcat"] = f"{rel}/{lc['file']}"
        return out
