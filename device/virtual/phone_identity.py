"""The virtual phone's identity: its system properties (``getprop``), serial number and the
JSON ``info()`` record.

Why its own module: a stock Pixel's ``ro.*`` properties per release and model, and the serial a
phone reports, are one table of facts that ``getprop``, the CNXN banner, ``adb devices -l`` and
the uiautomator2 server all read; a mixin of :class:`~device.virtual.phone.VirtualPhone`.
"""

from __future__ import annotations

import json
from typing import Any

from .knobs import REAL_MODELS
from .phone_part import PhonePart

__all__ = ["PhoneIdentity"]


_BUILD_IDS = {11: "RQ3A.211001.001", 13: "TQ3A.230901.001", 14: "AP2A.240805.005", 15: "AP4A.250105.002"}
_PRODUCT_CODENAMES = {"Pixel 7": "panther", "Pixel 7 Pro": "cheetah", "Pixel 8": "shiba"}


def _slug(text: str) -> str:
    return "".join(ch if ch.isalnum() else "_" for ch in text.lower()).strip("_") or "phone"


class PhoneIdentity(PhonePart):
    """A part of :class:`~device.virtual.phone.VirtualPhone` (see the module doc)."""

    # ------------------------------------------------------------------ identity
    def properties(self) -> dict[str, str]:
        """``getprop`` values (also the adbd CNXN banner's ``ro.product.*``).

        An ``anonymous`` phone leaves out ``ro.s2r.*`` and reports the real phone its profile is
        modelled on (:data:`device.virtual.knobs.REAL_MODELS`): a Pixel 7 is ``google/panther``,
        64-bit only (``ro.product.cpu.abilist=arm64-v8a``, ``ro.zygote=zygote64``: the Pixel 7 dropped
        32-bit app support), with a Pixel-like serial number. ``persist.sys.timezone`` is the
        ``timezone`` knob.
        """
        model = self.profile.model
        anonymous = self.knobs.anonymous
        if self.family.identity is not None and model not in REAL_MODELS:
            model = "Pixel 7"  # a google-family phone is a Pixel whatever its screen profile
        manufacturer, brand, codename = REAL_MODELS.get(model) or (
            self.profile.manufacturer, self.profile.manufacturer.lower(), _PRODUCT_CODENAMES.get(model, _slug(model)))
        if self.family.identity is not None:
            manufacturer, brand = self.family.identity
        dev = self._device_info()
        release = str(self.knobs.android)
        sdk = str(self.knobs.sdk)
        build = _BUILD_IDS.get(self.knobs.android) or dev.get("build") or "AP2A.240805.005"
        fingerprint = f"{brand}/{codename}/{codename}:{release}/{build}/11520431:user/release-keys"
        density = self.profile.density
        serial = self.serialno or (self._pixel_serial() if anonymous else "S2RV00000")
        props = {
            "ro.product.model": model, "ro.product.manufacturer": manufacturer,
            "ro.product.brand": brand, "ro.product.name": codename, "ro.product.device": codename,
            "ro.product.board": codename,
            "ro.product.cpu.abi": "arm64-v8a" if anonymous else "x86_64",
            "ro.product.cpu.abilist": "arm64-v8a" if anonymous else "x86_64,arm64-v8a",
            "ro.product.locale": "en-US", "ro.product.vendor.model": model,
            "ro.product.system.manufacturer": manufacturer,
            "ro.build.version.release": release, "ro.build.version.release_or_codename": release,
            "ro.build.version.sdk": sdk, "ro.build.id": build, "ro.build.display.id": f"{build} release-keys",
            "ro.build.type": "user", "ro.build.tags": "release-keys", "ro.build.fingerprint": fingerprint,
            "ro.build.version.security_patch": "2027-03-05", "ro.build.characteristics": "nosdcard",
            "ro.serialno": serial, "ro.boot.serialno": serial,
            "ro.sf.lcd_density": str(density), "ro.hardware": codename, "ro.debuggable": "0", "ro.secure": "1",
            "ro.adb.secure": "1",
            "persist.sys.timezone": self.knobs.timezone, "persist.sys.locale": "en-US",
            "persist.sys.device_name": self.read_settings_field("device_name") or model,
            "sys.boot_completed": "1", "dev.bootcomplete": "1", "init.svc.adbd": "running",
            "service.adb.tcp.port": str(self.adbd.port if self._started else 5555),
            "gsm.operator.alpha": "T-Mobile", "gsm.sim.state": "READY", "ro.config.ringtone": "Your_New_Adventure.ogg",
            "ro.opengles.version": "196610", "ro.zygote": "zygote64" if anonymous else "zygote64_32",
            "ro.kernel.version": "5.10",
        }
        if not anonymous:
            props.update({"ro.s2r.virtual": "1", "ro.s2r.flavor": self.knobs.flavor, "ro.s2r.family": self.knobs.family})
        return props

    def _pixel_serial(self) -> str:
        """A serial number shaped like a Pixel's (14 upper-case alphanumerics), stable per phone."""
        import hashlib

        port = self.adbd.port if getattr(self, "adbd", None) is not None else 0
        digest = hashlib.sha256(f"s2r-serial:{self.knobs.seed}:{port}".encode()).hexdigest().upper()
        return digest[:5] + "FDH" + digest[5:11]

    def _device_info(self) -> dict[str, Any]:
        try:
            return json.loads(self.env.capture())["world"].get("device") or {}
        except Exception:  # noqa: BLE001 - before boot
            return {}

    def read_settings_field(self, name: str) -> Any:
        try:
            return json.loads(self.env.capture())["world"]["settings"].get(name)
        except Exception:  # noqa: BLE001
            return None

    # ------------------------------------------------------------------ info
    def info(self) -> dict[str, Any]:
        """Identity, display, knobs and what is in front — JSON-ready."""
        W, H = self.window_size()
        pkg, act = self.foreground()
        keyguard = self.keyguard_state()
        if keyguard["showing"]:  # the active window is SystemUI's shade, which hosts the keyguard
            pkg, act = "com.android.systemui", ""
        props = self.properties()
        return {
            "serial": self.serial if self._started else None,
            "port": self.port if self._started else None,
            "serialno": self.serialno,
            "model": props["ro.product.model"], "manufacturer": props["ro.product.manufacturer"],
            "product": props["ro.product.name"], "sdk": int(props["ro.build.version.sdk"]),
            "android_version": props["ro.build.version.release"],
            "profile": self.profile.name, "flavor": self.knobs.flavor, "family": self.knobs.family,
            "display": {"width": W, "height": H, "physical_width": self.profile.width_px,
                        "physical_height": self.profile.height_px, "density": self.density,
                        "physical_density": self.profile.density, "rotation": self.rotation,
                        "screen_on": self.screen_on,
                        "size_dp": [round(W * 160 / self.density), round(H * 160 / self.density)]},
            "foreground": {"package": pkg, "activity": act},
            "ime": self.settings.raw("secure", "default_input_method"),
            "knobs": self.knobs.summary(),
            "time": self.now().isoformat(timespec="seconds"),
            "timezone": self.knobs.timezone,
            "keyguard": keyguard,
        }
