"""``s2r doctor``: is this machine ready to run the sim, drive phones and train?

Each check reports ok / warn / fail with a one-line fix, so a fresh machine tells its user
exactly what is missing instead of failing deep inside a run.
"""

from __future__ import annotations

import importlib
import platform
import subprocess
import sys


from device.checks import Check  # noqa: E402 - one Check type for every layer (device reports them too)


def _version(mod: str) -> str | None:
    try:
        from importlib.metadata import version

        return version(mod)
    except Exception:  # noqa: BLE001
        try:
            return getattr(importlib.import_module(mod), "__version__", "?")
        except Exception:  # noqa: BLE001
            return None


def check_python() -> Check:
    ok = sys.version_info >= (3, 11)
    return Check("python", "ok" if ok else "fail", platform.python_version(),
                 "" if ok else "install Python 3.11 or newer")


def check_packages() -> list[Check]:
    fixes = {
        "torch": "pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu",
    }
    out = []
    for dist in ("pydantic", "adbutils", "uiautomator2", "playwright", "opencv-python-headless", "torch", "numpy",
                 "typer", "rich", "matplotlib", "openai"):
        v = _version(dist)
        if v is None and dist == "opencv-python-headless":
            v = _version("opencv-python")
        out.append(Check(dist, "ok" if v else "fail", v or "not installed", "" if v else fixes.get(dist, f"pip install {dist}")))
    return out


def check_chromium() -> Check:
    from sim.browser import find_chromium, is_headless_shell, launch_kwargs

    exe = find_chromium()
    try:
        from playwright.sync_api import sync_playwright

        with sync_playwright() as p:
            browser = p.chromium.launch(**launch_kwargs())  # type: ignore[arg-type]
            version = browser.version
            page = browser.new_page()
            page.set_content("<p id=x>ok</p>")
            ok = page.inner_text("#x") == "ok"
            browser.close()
        if not ok:
            return Check("chromium", "fail", f"{exe}: page did not render", "reinstall chromium")
        detail = f"{version} headless ({exe or 'playwright bundled'})"
        shell = is_headless_shell(exe)
        if exe is not None and not shell:
            # works, but the full browser costs more memory per page (see sim.browser)
            detail += "; apt-get install chromium-headless-shell for leaner pages"
        return Check("chromium", "ok", detail, data={"path": exe, "headless_shell": shell})
    except Exception as e:  # noqa: BLE001
        fix = "apt-get install -y chromium" if exe is None else "check that the browser starts: chromium --headless --no-sandbox"
        if exe is None:
            fix += "  (or: python -m playwright install chromium)"
        return Check("chromium", "fail", f"{exe or 'no chromium found'}: {str(e).splitlines()[0][:160]}", fix)


def check_adb() -> list[Check]:
    try:
        import adbutils
    except Exception as e:  # noqa: BLE001
        return [Check("adb", "fail", f"adbutils missing: {e}", "pip install adbutils")]
    try:
        path = adbutils.adb_path()
        out = subprocess.run([path, "version"], capture_output=True, text=True, timeout=15).stdout
        ver = out.splitlines()[0].replace("Android Debug Bridge version ", "") if out else "?"
        checks = [Check("adb binary", "ok", f"{ver} ({path})", data={"path": path})]
    except Exception as e:  # noqa: BLE001
        return [Check("adb binary", "fail", str(e)[:160], "pip install --force-reinstall adbutils (its wheel bundles adb)")]
    try:
        from device.adb import ensure_server, server_addr

        sv = ensure_server()
        host, port = server_addr()  # ADB_SERVER_SOCKET / ANDROID_ADB_SERVER_PORT, as adb itself reads them
        checks.append(Check("adb server", "ok", f"protocol version {sv} on {host}:{port}"))
    except Exception as e:  # noqa: BLE001
        checks.append(Check("adb server", "fail", str(e)[:160], f"{path} start-server"))
    return checks


def run_checks(browser: bool = True) -> list[Check]:
    checks = [check_python(), *check_packages()]
    if browser:
        checks.append(check_chromium())
    checks.extend(check_adb())
    return checks


def check_device(serial: str) -> list[Check]:
    """Preflight one attached phone (delegates to the device layer)."""
    try:
        from device.preflight import check_device as _check  # type: ignore[attr-defined]
    except ImportError as e:
        return [Check(f"device {serial}", "fail", f"device preflight unavailable: {e}")]
    return _check(serial)


def check_policy(spec: str) -> Check:
    """Preflight one policy spec (``doctor --policy SPEC``), the same check ``run`` makes first."""
    from transfer.policies.preflight import PreflightError, preflight
    from transfer.session import parse_policies

    name, spec_only = next(iter(parse_policies([spec]).items()))
    try:
        detail = preflight(spec_only)
    except PreflightError as e:
        return Check(f"policy {name}", "fail", str(e)[:300], "start the model server, or fix the spec or checkpoint")
    return Check(f"policy {name}", "ok", detail[:300])
