"""Alarms and timers (no provider lists them): setup through the AlarmClock intents, a disabled
alarm switched off in the Clock app, and teardown's deletes through the app's alarm list
(:mod:`device.writers.alarmlist`) — of setup's alarms by their run tag, and on dedicated test
phones of the alarms the episode added.

An alarm it cannot delete — or cannot check, when the list does not show — is never silent: it is a
leftover (:attr:`TeardownReport.leftovers`, also said in ``left``), which the end-of-run audit
counts. The tag rides at the end of the label in its invisible form (the Clock app shows labels).
No API removes a timer: setup's timers are always leftovers.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from actionmap.apps import registry
from actionmap.worldstate import Alarm, Timer
from device.adbshell import DeviceLost
from device.codecs import CALENDAR_DAY
from device.readers import invisible_marker, probe_alarms, strip_tag
from device.writers.alarmlist import AlarmDeletes, AlarmListUnreadable, ClockList, alarm_box, plain_alarm_box
from device.writers.journal import Journal, SetupError, TeardownReport
from device.writers.part import WriterPart

if TYPE_CHECKING:
    from device.writers.writer import DeviceWriter

__all__ = ["AlarmsWriter"]


class AlarmsWriter(WriterPart):
    """The alarms-and-timers part of one phone's :class:`~device.writers.DeviceWriter`."""

    def __init__(self, w: DeviceWriter):
        super().__init__(w)
        self.list = ClockList(w)

    # --- setup -----------------------------------------------------------------------------------
    def clock_package(self) -> str | None:
        for comp in registry().components("clock", self.w.family):
            r = self.shell.run(["pm", "path", comp.package])
            if r.out.strip().startswith("package:"):
                return comp.package
        return None

    def _send_intent(self, argv: list[str], j: Journal, labels: list[str], label: str, what: str) -> None:
        """Start an AlarmClock intent (``argv``), addressed to the Clock app when one is installed.

        Its tagged ``label`` goes into the journal's ``labels`` first, so a run that dies right
        after still knows what to undo."""
        pkg = self.clock_package()
        if pkg:
            argv += ["-p", pkg]
        labels.append(label)
        j.save()
        r = self.shell.run(argv)
        if r.rc not in (0, None) or re.search(r"(Error|Exception|unable to resolve)", r.text, re.I):
            raise SetupError(f"{what} failed: {r.text.strip()[:200]}")

    def add(self, a: Alarm, j: Journal) -> str:
        if not a.enabled and self.ui is None:
            raise SetupError("alarms: a disabled alarm needs the Clock UI (the AlarmClock API creates enabled "
                             "alarms only)", unsupported=True)
        label = a.label + invisible_marker(j.tag)  # shown in the Clock app: invisible form
        argv = ["am", "start", "-a", "android.intent.action.SET_ALARM",
                "--ei", "android.intent.extra.alarm.HOUR", str(a.hour),
                "--ei", "android.intent.extra.alarm.MINUTES", str(a.minute),
                "--es", "android.intent.extra.alarm.MESSAGE", label,
                "--ez", "android.intent.extra.alarm.VIBRATE", "true" if a.vibrate else "false",
                "--ez", "android.intent.extra.alarm.SKIP_UI", "true"]
        if a.days:
            argv += ["--eial", "android.intent.extra.alarm.DAYS", ",".join(str(CALENDAR_DAY[d]) for d in a.days)]
        self._send_intent(argv, j, j.alarm_labels, label, "alarms: SET_ALARM")
        if not a.enabled:
            self.switch_off(j.tag, a)
        return f"alarm {a.hour:02d}:{a.minute:02d} {a.label!r}{'' if a.enabled else ' (switched off in the UI)'}"

    def switch_off(self, tag: str, a: Alarm) -> None:
        """Turn a just-created alarm off with its switch in the Clock app's alarm list."""
        assert self.ui is not None
        try:
            for _ in range(3):
                found = self.list.find_tagged(tag, alarm=a)
                if found is None:
                    raise SetupError(f"alarms: the new alarm {a.hour:02d}:{a.minute:02d} is not in the Clock list")
                _screen, card = found
                sw = card.view.first("alarm_switch", within=card.card)
                if sw is None:
                    raise SetupError("alarms: no on/off switch next to the new alarm")
                if not sw.checked:
                    return
                self.ui.probe_tap(sw)
            raise SetupError("alarms: the alarm's switch did not turn off")
        except AlarmListUnreadable as e:
            raise SetupError(f"alarms: {e}") from e
        finally:
            self.ui.probe_home()

    def add_timer(self, t: Timer, j: Journal) -> str:
        label = t.label + invisible_marker(j.tag)
        argv = ["am", "start", "-a", "android.intent.action.SET_TIMER",
                "--ei", "android.intent.extra.alarm.LENGTH", str(max(1, t.duration_s)),
                "--es", "android.intent.extra.alarm.MESSAGE", label,
                "--ez", "android.intent.extra.alarm.SKIP_UI", "true"]
        self._send_intent(argv, j, j.timer_labels, label, "timers: SET_TIMER")
        return f"timer {t.duration_s}s {t.label!r}"

    # --- the episode (dedicated test phones) -------------------------------------------------------
    def note_start(self, j: Journal, alarms: Sequence[Alarm]) -> None:
        """Remember the alarms the start-of-episode probe saw (see :meth:`undo_episode`)."""
        j.alarms_at_start = [(a.hour, a.minute, a.label) for a in alarms]
        j.save()

    def undo_episode(self, j: Journal, rep: TeardownReport, now: Sequence[Alarm] | None = None) -> None:
        """Dedicated test phones only: delete the alarms an episode added through the Clock app.

        No provider lists alarms, so without this an alarm a policy set stays on the phone and
        shows up in every later episode's alarm list (and in its side effects). Alarms are
        compared by (hour, minute, label) as a multiset against the start-of-episode probe. An
        alarm it cannot delete is a leftover (:attr:`TeardownReport.leftovers`); a list it cannot
        read is said so (:attr:`TeardownReport.unverified`): it never passes as deleted."""
        assert self.ui is not None
        try:
            now = probe_alarms(self.ui) if now is None else now
        except DeviceLost:
            raise
        except Exception as e:  # noqa: BLE001
            now, why = None, f"could not read the alarm list ({e})"
        else:
            why = "the Clock app's alarm list did not show"
        if now is None:
            rep.left.append(f"alarms added by the episode: {why}; any it added are still on the phone")
            rep.unverified.append(f"alarms added by the episode ({why})")
            return
        start = Counter(map(tuple, j.alarms_at_start or []))
        extra = Counter((a.hour, a.minute, a.label) for a in now) - start
        if not extra:
            return
        reasons: dict[tuple[Any, ...], str] = {}
        for (h, m, label), k in extra.items():
            res = self.list.delete(lambda s, h=h, m=m, label=label: plain_alarm_box(s, h, m, label),
                                   max_rounds=2 * k + 2, limit=k)
            if res.why:
                reasons[(h, m, label)] = res.why
        # a tap that changed the list may still not have deleted (a confirmation, another screen):
        # the list is read again, and what the episode added and is still there is a leftover
        try:
            after = probe_alarms(self.ui)
        except DeviceLost:
            raise
        except Exception:  # noqa: BLE001
            after = None
        if after is None:
            rep.left.append("alarms added by the episode: the alarm list could not be read again after deleting "
                            f"{sum(extra.values())} alarm(s)")
            rep.unverified.append("alarms added by the episode (the alarm list could not be read after the deletes)")
            return
        still = Counter((a.hour, a.minute, a.label) for a in after) - start
        still = Counter({key: min(k, extra[key]) for key, k in still.items() if key in extra})
        rep.removed["episode alarms"] = rep.removed.get("episode alarms", 0) + sum(extra.values()) - sum(still.values())
        for (h, m, label), k in still.items():
            what = f"alarm {h:02d}:{m:02d} {label!r} added during the episode"
            reason = reasons.get((h, m, label))
            rep.left.append(f"{what} could not be deleted" + (f" ({reason})" if reason else "")
                            + ("" if k == 1 else f" ({k} of them)"))
            rep.leftovers += [what] * k

    # --- teardown --------------------------------------------------------------------------------
    def teardown(self, j: Journal, rep: TeardownReport, alarms_now: Sequence[Alarm] | None) -> None:
        """Setup's alarms by their tag, the episode's own (dedicated test phones), setup's timers."""
        if j.alarm_labels:
            # the policy may have deleted some itself: what counts is that none is left, and the
            # delete loop ends only on a full scan that found none (or when it could not go on)
            rounds = 2 * len(j.alarm_labels) + 3
            res = self.list.delete_tagged(j.tag, rounds)
            if res.n is not None and not res.clean:  # stopped mid-way (a busy phone's list redrew): once more
                again = self.list.delete_tagged(j.tag, rounds)
                res = AlarmDeletes((res.n or 0) + (again.n or 0), again.clean, again.why)
            n = res.n or 0
            if not res.clean:
                self._tagged_left(j, res, rep)
            if self.ui is not None:
                self.ui.probe_home()
            rep.removed["alarms"] = n
        if self.destructive and j.alarms_at_start is not None and self.ui is not None:
            self.undo_episode(j, rep, alarms_now)
        if j.timer_labels:
            names = ", ".join(repr(strip_tag(x)[0]) for x in j.timer_labels)
            rep.left.append(f"timer(s) {names} carrying tag {j.tag}: no API removes timers")
            rep.leftovers += [f"timer {strip_tag(x)[0]!r} carrying tag {j.tag} (invisibly)" for x in j.timer_labels]

    def _tagged_left(self, j: Journal, res: AlarmDeletes, rep: TeardownReport) -> None:
        """After a delete loop that did not end on a clean scan: which of the setup's alarms are still
        there — read off the list once more; where the list cannot be read, every alarm setup made and
        the loop did not delete (the policy may have deleted some, but nothing shows that it did)."""
        still = self.list.scan(lambda s: alarm_box(s, j.tag)) if self.ui is not None else None
        why = f"; {res.why}" if res.why else ""
        if still is not None:
            if not still:
                return  # the list, read whole, shows none: deleted after all
            rep.leftovers += [f"alarm {w} carrying tag {j.tag} (invisibly)" for w in still]
            rep.left.append(f"alarm(s) {', '.join(still)} carrying tag {j.tag} (invisibly) could not be deleted "
                            f"({res.n or 0} deleted{why}); delete them in the Clock app")
            return
        made = Counter(strip_tag(x)[0] for x in j.alarm_labels)
        unknown = max(0, sum(made.values()) - (res.n or 0))
        names = ", ".join(repr(x) for x in made.elements())
        rep.leftovers += [f"alarm {x!r} carrying tag {j.tag} (invisibly; the alarm list could not be read)"
                          for x in list(made.elements())[:unknown]]
        rep.left.append(f"alarm(s) {names} carrying tag {j.tag} (invisibly) could not all be deleted "
                        f"({res.n or 0} deleted{why}); delete them in the Clock app")
