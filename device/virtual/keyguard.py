"""SystemUI's keyguard window: the lock screen and the PIN bouncer, drawn, dumped and hit-tested.

Why its own module: the keyguard's state belongs to the phone
(:class:`~device.virtual.phone_keyguard.Keyguard`); what the screen shows while it is up — the
view tree of a real Pixel's lock screen per release, a frame of it, which key a touch lands on —
is this module's one job.
"""

from __future__ import annotations

from typing import Any

from .phone_part import attached
from .systemui import SYSTEMUI
from .uitree import UiNode, UiTree, adopt, make_node, reindex, write_tree

__all__ = ["KeyguardWindow", "keyguard_window", "KEYGUARD_UNLOCK_HINT", "KEYGUARD_ENTER_PIN", "KEYGUARD_WRONG_PIN"]

#: ``R.string.keyguard_unlock`` (frameworks/base packages/SystemUI/res-keyguard/values/strings.xml).
KEYGUARD_UNLOCK_HINT = "Swipe up to open"
#: ``R.string.keyguard_enter_your_pin`` / ``kg_wrong_pin`` (the bouncer's message area).
KEYGUARD_ENTER_PIN = "Enter your PIN"
KEYGUARD_WRONG_PIN = "Wrong PIN"
_PIN_KEYS = ("key1", "key2", "key3", "key4", "key5", "key6", "key7", "key8", "key9", "delete_button", "key0",
             "key_enter")


class KeyguardWindow:
    """SystemUI's keyguard as the screen shows it: the lock screen and the PIN bouncer.

    The state (showing, bouncer, PIN typed so far) belongs to the phone
    (:meth:`device.virtual.phone.VirtualPhone.keyguard_state`); this draws it, dumps it and says
    which view a touch lands on. The view ids are SystemUI's:

    * Android 14–15: the notification shade window ``legacy_window_root``
      (packages/SystemUI/res/layout/super_notification_shade.xml) with ``scrim_behind``,
      ``notification_panel`` (status_bar_expanded.xml), ``keyguard_root_view`` (KeyguardRootView:
      the clock, ``date_smartspace_view`` > ``date``, ``device_entry_icon_view``,
      ``keyguard_indication_area`` > ``keyguard_indication_text_bottom``), ``shared_notification_container``
      and ``keyguard_message_area_container`` — the tree of a real Pixel lock screen dump
      (tests/fixtures/real-device/hierarchy/lockscreen_systemui_keyguard_pixel_960x2142.xml).
    * Android 11–13: ``notification_panel`` (NotificationPanelView) holds the keyguard:
      ``keyguard_status_view`` > ``keyguard_clock_container``, ``lock_icon_view`` > ``lock_icon``
      (``lock_icon`` alone on 11), ``keyguard_bottom_area`` > ``keyguard_indication_area`` >
      ``keyguard_indication_text``, ``keyguard_status_bar``.
    * The bouncer (all releases): ``keyguard_bouncer_container`` > ``keyguard_host_view`` >
      ``keyguard_security_container`` > ``keyguard_pin_view`` with ``keyguard_message_area``,
      ``pinEntry`` (a password field, PIN area) and the number pad ``key0``…``key9``,
      ``delete_button``, ``key_enter`` (packages/SystemUI/res-keyguard/layout/keyguard_pin_view.xml).
    """

    def __init__(self, phone: Any) -> None:
        self.phone = phone

    def _dp(self, v: float) -> int:
        return round(v * int(getattr(self.phone, "density", 160) or 160) / 160)

    def _android(self) -> int:
        return int(getattr(getattr(self.phone, "knobs", None), "android", 14) or 14)

    def boxes(self) -> dict[str, tuple[int, int, int, int]]:
        """Screen rectangles of the keyguard's views (effective pixels)."""
        W, H = (int(v) for v in self.phone.window_size())
        dp = self._dp
        status = dp(28)
        out: dict[str, tuple[int, int, int, int]] = {"window": (0, 0, W, H), "status": (0, 0, W, status)}
        out["clock"] = (dp(24), status + dp(16), min(W, dp(24) + dp(190)), status + dp(112))
        out["date"] = (min(W - dp(8), out["clock"][2] + dp(12)), status + dp(44), W - dp(16), status + dp(76))
        icon = dp(64)
        cy = round(H * 0.72)
        out["lock"] = (W // 2 - icon // 2, cy - icon // 2, W // 2 + icon // 2, cy + icon // 2)
        out["indication"] = (0, H - dp(48) - dp(56), W, H - dp(48))
        out["indication_text"] = (dp(32), out["indication"][1] + dp(16), W - dp(32), out["indication"][3] - dp(16))
        # the bouncer: message, PIN field, a 3 x 4 number pad in the lower half
        out["message"] = (dp(32), status + dp(96), W - dp(32), status + dp(128))
        key_w, key_h, gap = dp(88), dp(72), dp(12)
        pad_w = 3 * key_w + 2 * gap
        left = (W - pad_w) // 2
        bottom = H - dp(48) - dp(40)
        top = bottom - (4 * key_h + 3 * gap)
        out["pin"] = (left, top - dp(24) - dp(56), left + pad_w, top - dp(24))
        for i, name in enumerate(_PIN_KEYS):
            r, c = divmod(i, 3)
            x0, y0 = left + c * (key_w + gap), top + r * (key_h + gap)
            out[name] = (x0, y0, x0 + key_w, y0 + key_h)
        out["pad"] = (left, top, left + pad_w, bottom)
        return out

    def hit(self, x: float, y: float, *, bouncer: bool) -> str | None:
        """The bouncer key a touch at (x, y) lands on (None: none, or no bouncer)."""
        if not bouncer:
            return None
        bx = self.boxes()
        for name in _PIN_KEYS:
            l, t, r, b = bx[name]
            if l <= x < r and t <= y < b:
                return name
        return None

    @staticmethod
    def clock_text(now: Any, h24: bool = True) -> str:
        return now.strftime("%H:%M") if h24 else now.strftime("%I:%M").lstrip("0")

    @staticmethod
    def date_text(now: Any) -> str:
        """The smartspace date, en-US (``EEE, MMM d``): "Fri, Mar 20"."""
        return f"{now.strftime('%a')}, {now.strftime('%b')} {now.day}"

    def tree(self, state: dict[str, Any], now: Any, h24: bool = True) -> UiTree:
        """The keyguard window's nodes (one window: the notification shade, which hosts the keyguard)."""
        bx = self.boxes()
        full = bx["window"]
        ui = lambda box, **a: make_node(None, box, package=SYSTEMUI, **a)  # noqa: E731
        rid = lambda name: f"{SYSTEMUI}:id/{name}"  # noqa: E731
        frame, group, view = "android.widget.FrameLayout", "android.view.ViewGroup", "android.view.View"
        text_cls, image = "android.widget.TextView", "android.widget.ImageView"
        clock_t, date_t = self.clock_text(now, h24), self.date_text(now)
        bouncer = bool(state.get("bouncer"))
        hint = "" if bouncer else KEYGUARD_UNLOCK_HINT
        android = self._android()
        clock = ui(bx["clock"], text=clock_t, content_desc=clock_t, **{"class": text_cls})
        date = ui(bx["date"], resource_id=rid("date"), text=date_t, content_desc=date_t, focusable="true",
                  **{"class": text_cls})
        indication = adopt(ui(bx["indication"], resource_id=rid("keyguard_indication_area"),
                               **{"class": "android.widget.LinearLayout"}),
                            [ui(bx["indication_text"], text=hint,
                                resource_id=rid("keyguard_indication_text_bottom" if android >= 14
                                                else "keyguard_indication_text"), **{"class": text_cls})])
        if android >= 14:
            icon = adopt(ui(bx["lock"], resource_id=rid("device_entry_icon_view"), clickable="true",
                             focusable="true", content_desc="Unlock", **{"class": frame}),
                          [ui(bx["lock"], resource_id=rid("device_entry_icon_bg"), **{"class": image}),
                           ui(bx["lock"], resource_id=rid("device_entry_icon_fg"), **{"class": image})])
            keyguard = adopt(ui(full, resource_id=rid("keyguard_root_view"), **{"class": group}), [
                ui((0, bx["status"][3], full[2], full[3]), resource_id=rid("accessibility_actions_view"),
                   content_desc="Lock screen", **{"class": view}),
                clock,
                adopt(ui(bx["date"], resource_id=rid("date_smartspace_view"), clickable="true", focusable="true",
                          **{"class": "android.widget.LinearLayout"}), [date]),
                icon, indication])
            panel = adopt(ui(full, resource_id=rid("notification_panel"), **{"class": frame}), [
                ui(full, resource_id=rid("keyguard_long_press"), content_desc="Lock screen", **{"class": view})])
            children = [ui(full, resource_id=rid("scrim_behind"), clickable="true", **{"class": view}), panel,
                        keyguard, ui(full, resource_id=rid("shared_notification_container"), **{"class": group})]
            root = ui(full, resource_id=rid("legacy_window_root"), **{"class": frame})
        else:
            lock = ([ui(bx["lock"], resource_id=rid("lock_icon"), content_desc="Unlock", **{"class": image})]
                    if android < 12 else
                    [adopt(ui(bx["lock"], resource_id=rid("lock_icon_view"), content_desc="Unlock",
                               **{"class": frame}),
                            [ui(bx["lock"], resource_id=rid("lock_icon"), **{"class": image})])])
            status_view = adopt(ui((0, bx["status"][3], full[2], bx["date"][3]), resource_id=rid("keyguard_status_view"),
                                    **{"class": "android.widget.GridLayout"}), [
                adopt(ui(bx["clock"], resource_id=rid("keyguard_clock_container"), **{"class": frame}), [clock]),
                date])
            bottom = adopt(ui(bx["indication"], resource_id=rid("keyguard_bottom_area"), **{"class": frame}),
                            [indication])
            panel = adopt(ui(full, resource_id=rid("notification_panel"), **{"class": frame}),
                           [*lock, status_view, bottom,
                            ui(bx["status"], resource_id=rid("keyguard_status_bar"), **{"class": "android.widget.RelativeLayout"})])
            children = [ui(full, resource_id=rid("scrim_behind"), clickable="true", **{"class": view}), panel]
            root = ui(full, **{"class": frame})
        if bouncer:
            children.append(self._bouncer(state))
        adopt(root, children)
        return reindex(UiTree([root], []))

    def _bouncer(self, state: dict[str, Any]) -> UiNode:
        bx = self.boxes()
        full = bx["window"]
        ui = lambda box, **a: make_node(None, box, package=SYSTEMUI, **a)  # noqa: E731
        rid = lambda name: f"{SYSTEMUI}:id/{name}"  # noqa: E731
        keys = []
        for name in _PIN_KEYS:
            desc = {"delete_button": "Delete", "key_enter": "Enter"}.get(name, name[3:])
            keys.append(ui(bx[name], resource_id=rid(name), content_desc=desc, clickable="true", focusable="true",
                           **{"class": "android.view.ViewGroup" if name.startswith("key") and name != "key_enter"
                              else "android.widget.ImageButton"}))
        pin = ui(bx["pin"], resource_id=rid("pinEntry"), content_desc="PIN area", password="true", focusable="true",
                 focused="true", **{"class": "android.widget.EditText"})
        container = adopt(ui(bx["pad"], resource_id=rid("pin_container"),
                              **{"class": "androidx.constraintlayout.widget.ConstraintLayout"}),
                           [adopt(ui(bx["pin"], resource_id=rid("row0"), **{"class": "android.widget.RelativeLayout"}),
                                   [pin]), *keys])
        message = ui(bx["message"], resource_id=rid("keyguard_message_area"),
                     text=str(state.get("message") or KEYGUARD_ENTER_PIN), **{"class": "android.widget.TextView"})
        pin_view = adopt(ui((0, bx["message"][1], full[2], full[3]), resource_id=rid("keyguard_pin_view"),
                             **{"class": "android.widget.LinearLayout"}), [message, container])
        security = adopt(ui(full, resource_id=rid("keyguard_security_container"), **{"class": "android.widget.FrameLayout"}),
                          [pin_view])
        host = adopt(ui(full, resource_id=rid("keyguard_host_view"), **{"class": "android.widget.FrameLayout"}),
                      [security])
        return adopt(ui(full, resource_id=rid("keyguard_bouncer_container"), **{"class": "android.widget.FrameLayout"}),
                      [host])

    def xml(self, state: dict[str, Any], now: Any, h24: bool = True) -> str:
        """What ``uiautomator dump`` writes while the keyguard shows."""
        return write_tree(self.tree(state, now, h24), max_depth=None, compressed=False)

    def draw(self, state: dict[str, Any], now: Any, h24: bool = True) -> bytes:
        """A frame of the lock screen (or the bouncer) at the effective screen size, as PNG."""
        import cv2
        import numpy as np

        W, H = (int(v) for v in self.phone.window_size())
        bx = self.boxes()
        top = np.array([58, 44, 34], np.float32)  # BGR: a dark wallpaper under the keyguard scrim
        bot = np.array([24, 18, 14], np.float32)
        ramp = np.linspace(0.0, 1.0, H, dtype=np.float32)[:, None]
        img = np.repeat((top * (1 - ramp) + bot * ramp)[:, None, :], W, axis=1).astype(np.uint8)
        scale = max(0.3, W / 1080)
        white = (245, 245, 245)

        def text(t: str, box: tuple[int, int, int, int], size: float, thick: int = 2, center: bool = False) -> None:
            l, t0, r, b = box
            (tw, th), _ = cv2.getTextSize(t, cv2.FONT_HERSHEY_SIMPLEX, size * scale, max(1, round(thick * scale)))
            x = l + ((r - l) - tw) // 2 if center else l
            cv2.putText(img, t, (int(x), int((t0 + b + th) // 2)), cv2.FONT_HERSHEY_SIMPLEX, size * scale, white,
                        max(1, round(thick * scale)), cv2.LINE_AA)

        text(self.clock_text(now, h24), bx["clock"], 3.2, 6)
        text(self.date_text(now), bx["date"], 1.0, 2)
        if state.get("bouncer"):
            overlay = img.copy()
            cv2.rectangle(overlay, (0, 0), (W, H), (20, 16, 12), -1)
            img = cv2.addWeighted(overlay, 0.75, img, 0.25, 0)
            text(str(state.get("message") or KEYGUARD_ENTER_PIN), bx["message"], 1.1, 2, center=True)
            l, t0, r, b = bx["pin"]
            n = int(state.get("pin_len") or 0)
            cy, rad = (t0 + b) // 2, max(4, self._dp(6))
            for i in range(n):
                cx = (l + r) // 2 + (i - (n - 1) / 2) * rad * 3.2
                cv2.circle(img, (int(cx), cy), rad, white, -1, cv2.LINE_AA)
            cv2.line(img, (l, b), (r, b), (170, 170, 170), max(1, round(2 * scale)))
            for name in _PIN_KEYS:
                kl, kt, kr, kb = bx[name]
                c = ((kl + kr) // 2, (kt + kb) // 2)
                cv2.circle(img, c, min(kr - kl, kb - kt) // 2 - 2, (70, 60, 52), -1, cv2.LINE_AA)
                label = {"delete_button": "<x", "key_enter": "OK"}.get(name, name[3:])
                text(label, bx[name], 1.3, 3, center=True)
        else:
            l, t0, r, b = bx["lock"]  # a padlock
            cx, w = (l + r) // 2, (r - l)
            cv2.rectangle(img, (cx - w // 4, t0 + w // 2 - w // 12), (cx + w // 4, b - w // 8), white, -1)
            cv2.ellipse(img, (cx, t0 + w // 2 - w // 12), (w // 6, w // 5), 0, 180, 360, white,
                        max(2, w // 14), cv2.LINE_AA)
            text(KEYGUARD_UNLOCK_HINT, bx["indication_text"], 1.0, 2, center=True)
        ok, buf = cv2.imencode(".png", img, [cv2.IMWRITE_PNG_COMPRESSION, 1])
        return buf.tobytes()


def keyguard_window(phone: Any) -> KeyguardWindow:
    """The phone's keyguard window (one per phone, created on first use)."""
    return attached(phone, "_s2r_keyguard_window", lambda: KeyguardWindow(phone))

