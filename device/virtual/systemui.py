"""SystemUI's windows over the app, as the phone's screen shows them: every app window's decor
chain and the clipboard overlay (Android 13+).

Why its own module: the uiautomator2 server and the shell's ``uiautomator dump``, ``screencap``
and ``input tap`` must all see the same screen — the sim draws only the app's own views, and
this adds what Android's window manager and SystemUI put around and above them. The keyguard,
SystemUI's other window, is :mod:`.keyguard`.
"""

from __future__ import annotations

import time
from typing import Any

from .phone_part import attached
from .uitree import NODE_DEFAULTS, UiNode, UiTree, adopt, make_node, parse_tree, reindex, write_tree

__all__ = ["SYSTEMUI", "CLIPBOARD_OVERLAY_TIMEOUT_S", "ClipboardOverlay", "clipboard_overlay", "add_decor",
           "screen_tree", "screen_xml", "overlay_tap"]

#: ``ClipboardOverlayController.CLIPBOARD_DEFAULT_TIMEOUT_MILLIS`` (frameworks/base
#: packages/SystemUI/src/com/android/systemui/clipboardoverlay/ClipboardOverlayController.java).
CLIPBOARD_OVERLAY_TIMEOUT_S = 6.0
SYSTEMUI = "com.android.systemui"


class ClipboardOverlay:
    """SystemUI's clipboard overlay (Android 13+), as the phone's screen shows it.

    ``ClipboardListener.onPrimaryClipChanged`` (frameworks/base packages/SystemUI/src/com/
    android/systemui/clipboardoverlay/ClipboardListener.java) shows the overlay for every clip
    change; ``shouldSuppressOverlay`` hides it only for clips from ``com.android.shell`` that
    carry the ``SUPPRESS_CLIPBOARD_OVERLAY`` extra, which uiautomator2's ``setClipboard``
    (a plain ``ClipData.newPlainText``) never sets. The window (layout ``clipboard_overlay.xml``:
    ``clipboard_ui`` > ``clipboard_preview`` > ``text_preview``, ``dismiss_button`` >
    ``dismiss_image``, ``actions_container`` > ``actions`` > ``share_chip``) sits over the lower
    left of the screen until ``CLIPBOARD_DEFAULT_TIMEOUT_MILLIS`` (6 s) pass or its dismiss button
    is tapped. Android 11 has no overlay; a permissive (emulator-like) phone keeps the old
    behaviour of showing none.
    """

    def __init__(self, phone: Any) -> None:
        self.phone = phone
        self.shown_at: float | None = None
        self.text = ""

    @property
    def supported(self) -> bool:
        knobs = getattr(self.phone, "knobs", None)
        if knobs is None:
            return False
        return int(getattr(knobs, "sdk", 0)) >= 33 and not bool(getattr(knobs, "permissive", False))

    def clip_changed(self, text: str) -> None:
        """The primary clip changed: (re)show the overlay and restart its timeout."""
        if self.supported:
            self.text, self.shown_at = text, time.monotonic()

    @property
    def visible(self) -> bool:
        return self.shown_at is not None and time.monotonic() - self.shown_at < CLIPBOARD_OVERLAY_TIMEOUT_S

    def dismiss(self) -> None:
        self.shown_at = None

    def _dp(self, v: float) -> int:
        return round(v * int(getattr(self.phone, "density", 160) or 160) / 160)

    def boxes(self) -> dict[str, tuple[int, int, int, int]]:
        """Screen rectangles of the overlay's views (dimens of SystemUI's ``overlay_*``)."""
        W, H = (int(v) for v in self.phone.window_size())
        bottom = H - self._dp(48) - self._dp(12)  # above the navigation bar, 12 dp margin
        size, border = self._dp(128), self._dp(4)
        l0 = self._dp(16)
        pl, pb = l0 + border, bottom - border
        preview = (pl, pb - size, pl + size, pb)
        half = self._dp(24)
        dismiss = (preview[2] - half, preview[1] - half, preview[2] + half, preview[1] + half)
        al = preview[2] + border + self._dp(8)
        actions = (al, pb - self._dp(56), min(W, al + self._dp(104)), pb)
        chip = (actions[0] + self._dp(4), actions[1] + self._dp(8), actions[2] - self._dp(4), actions[3] - self._dp(8))
        return {"window": (0, 0, W, H), "preview": preview, "dismiss": dismiss, "actions": actions, "chip": chip}

    def hit(self, x: float, y: float) -> str | None:
        """Which overlay view a touch at (x, y) lands on (None: it passes to the app)."""
        if not self.visible:
            return None
        for name in ("dismiss", "preview", "actions"):
            l, t, r, b = self.boxes()[name]
            if l <= x < r and t <= y < b:
                return name
        return None

    def window(self, template: dict[str, str] | None) -> UiNode:
        """The overlay window's node tree (the ids of ``clipboard_overlay.xml``)."""
        bx = self.boxes()
        ui = lambda box, **a: make_node(template, box, package=SYSTEMUI, **a)  # noqa: E731
        preview = adopt(ui(bx["preview"], resource_id=f"{SYSTEMUI}:id/clipboard_preview",
                            **{"class": "android.widget.FrameLayout"}),
                         [ui(bx["preview"], resource_id=f"{SYSTEMUI}:id/text_preview", text=self.text,
                             **{"class": "android.widget.TextView"})])
        dismiss = adopt(ui(bx["dismiss"], resource_id=f"{SYSTEMUI}:id/dismiss_button",
                            content_desc="Dismiss copied text", clickable="true", focusable="true",
                            **{"class": "android.widget.FrameLayout"}),
                         [ui(bx["dismiss"], resource_id=f"{SYSTEMUI}:id/dismiss_image",
                             **{"class": "android.widget.ImageView"})])
        chip = ui(bx["chip"], resource_id=f"{SYSTEMUI}:id/share_chip", content_desc="Share", clickable="true",
                  focusable="true", **{"class": "android.widget.LinearLayout"})
        actions = adopt(ui(bx["actions"], resource_id=f"{SYSTEMUI}:id/actions_container",
                            **{"class": "android.widget.HorizontalScrollView"}),
                         [adopt(ui(bx["actions"], resource_id=f"{SYSTEMUI}:id/actions",
                                    **{"class": "android.widget.LinearLayout"}), [chip])])
        root = adopt(ui(bx["window"], resource_id=f"{SYSTEMUI}:id/clipboard_ui",
                         **{"class": "android.view.ViewGroup"}), [actions, preview, dismiss])
        return adopt(ui(bx["window"], **{"class": "android.widget.FrameLayout"}), [root])

    def draw(self, png: bytes) -> bytes:
        """The screenshot with the overlay drawn over its lower-left corner."""
        if not self.visible:
            return png
        import cv2
        import numpy as np

        img = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR)
        if img is None:
            return png
        h, w = img.shape[:2]
        W, H = (int(v) for v in self.phone.window_size())
        sx, sy = w / max(1, W), h / max(1, H)
        bx = self.boxes()

        def rect(box: tuple[int, int, int, int], color: tuple[int, int, int], border: int = 0) -> None:
            l, t, r, b = box
            p0, p1 = (round(l * sx), round(t * sy)), (round(r * sx), round(b * sy))
            cv2.rectangle(img, p0, p1, color, -1)
            if border:
                cv2.rectangle(img, p0, p1, (48, 48, 48), border)
        rect(bx["actions"], (240, 228, 222), 2)
        rect(bx["preview"], (253, 227, 211), max(2, round(11 * sx)))  # colorAccentSecondary, overlay border
        l, t, r, b = bx["preview"]
        text = "".join(c if 32 <= ord(c) < 127 else "?" for c in self.text)[:14]
        cv2.putText(img, text, (round((l + 12) * sx), round((t + (b - t) / 2) * sy)), cv2.FONT_HERSHEY_SIMPLEX,
                    max(0.4, 1.2 * sx), (40, 40, 40), max(1, round(2 * sx)), cv2.LINE_AA)
        dl, dt, dr, db = bx["dismiss"]
        c = (round((dl + dr) / 2 * sx), round((dt + db) / 2 * sy))
        cv2.circle(img, c, max(4, round((dr - dl) / 3 * sx)), (80, 80, 80), -1)
        ok, buf = cv2.imencode(".png", img, [cv2.IMWRITE_PNG_COMPRESSION, 1])
        return buf.tobytes() if ok else png


def clipboard_overlay(phone: Any) -> ClipboardOverlay:
    """The phone's clipboard overlay (one per phone, created on first use)."""
    return attached(phone, "_s2r_clipboard_overlay", lambda: ClipboardOverlay(phone))


def _bottom_of(tree: UiTree, rid: str, default: int, top: bool = False) -> int:
    for r in tree.roots:
        if r.get("resource-id") == rid:
            return r.bounds[1] if top else r.bounds[3]
    return default


def add_decor(tree: UiTree, screen: tuple[int, int], density: int) -> UiTree:
    """Put the app's views under the decor chain every app window has.

    A real dump of an app window (see real dumps: Settings, Thunderbird) starts with the
    window's ``DecorView`` — ``FrameLayout`` (full screen) > ``LinearLayout`` (down to the
    navigation bar) > ``FrameLayout`` ``android:id/content`` (below the status bar) — with the
    ``statusBarBackground`` and ``navigationBarBackground`` views as the decor's last children
    (frameworks/base core/java/com/android/internal/policy/DecorView.java and
    ``R.layout.screen_simple``). The sim renders only the app's own views; this adds the rest,
    once (a tree that already has ``android:id/content`` is left alone).
    """
    if any(n.get("resource-id") == "android:id/content" for n in tree.nodes):
        return tree
    app = [r for r in tree.roots if r.get("package") and r.get("package") != SYSTEMUI]
    if not app:
        return tree
    pkg = app[0].get("package")
    mine = [r for r in app if r.get("package") == pkg]
    W, H = screen
    status = _bottom_of(tree, f"{SYSTEMUI}:id/status_bar", round(24 * density / 160))
    nav = _bottom_of(tree, f"{SYSTEMUI}:id/navigation_bar_frame", H, top=True)
    tpl = dict(mine[0].attrs)
    base = {k: v for k, v in NODE_DEFAULTS.items() if k in tpl}

    def decor(box: tuple[int, int, int, int], cls: str, rid: str = "") -> UiNode:
        node = make_node(tpl, box, package=pkg, resource_id=rid, **{"class": cls})
        node.attrs.update({k: v for k, v in base.items() if k not in ("bounds", "package", "class", "resource-id")})
        return node
    content = adopt(decor((0, status, W, nav), "android.widget.FrameLayout", "android:id/content"), mine)
    linear = adopt(decor((0, 0, W, nav), "android.widget.LinearLayout"), [content])
    root = adopt(decor((0, 0, W, H), "android.widget.FrameLayout"), [
        linear, decor((0, 0, W, status), "android.view.View", "android:id/statusBarBackground"),
        decor((0, nav, W, H), "android.view.View", "android:id/navigationBarBackground")])
    at = tree.roots.index(mine[0])
    roots = [r for r in tree.roots if r not in mine]
    roots.insert(at, root)
    tree.roots = roots
    return reindex(tree)


def screen_tree(phone: Any, xml: str, *, overlay: bool = True) -> tuple[UiTree, bool]:
    """The phone's dump as windows show it: the app under its decor chain, plus SystemUI's
    clipboard overlay window while it is up. Returns (tree, whether anything was added)."""
    tree = parse_tree(xml)
    try:
        screen = tuple(int(v) for v in phone.window_size())
    except Exception:  # noqa: BLE001 - a phone without a display: nothing to add
        return tree, False
    density = int(getattr(phone, "density", 160) or 160)
    before = len(tree.nodes)
    tree = add_decor(tree, screen, density)  # type: ignore[arg-type]
    ov = clipboard_overlay(phone) if overlay else None
    if ov is not None and ov.visible:
        tree.roots.append(ov.window(dict(tree.nodes[0].attrs) if tree.nodes else None))
        tree = reindex(tree)
    return tree, len(tree.nodes) != before


def screen_xml(phone: Any, xml: str, *, overlay: bool = True) -> str:
    """:func:`screen_tree` as dump text (the phone's own bytes when nothing was added)."""
    tree, added = screen_tree(phone, xml, overlay=overlay)
    return write_tree(tree, max_depth=None, compressed=False) if added else xml


def overlay_tap(phone: Any, x: float, y: float) -> bool:
    """A touch that lands on the clipboard overlay: its dismiss button closes it; the rest of
    the overlay's views take the touch (True: the app below never sees it)."""
    ov = getattr(phone, "_s2r_clipboard_overlay", None)
    if ov is None:
        return False
    where = ov.hit(x, y)
    if where == "dismiss":
        ov.dismiss()
    return where is not None

