"""Read the package name out of an APK (binary ``AndroidManifest.xml``), nothing more.

Why: ``adb install x.apk`` streams the APK to ``cmd package install -S N``; a phone then
knows the package by the manifest's ``package`` attribute. The virtual phone installs
nothing, but it records the package so ``pm list packages`` / ``pm path`` answer like a
phone afterwards (uiautomator2 installs its IME this way).
"""

from __future__ import annotations

import io
import struct
import zipfile

__all__ = ["apk_package", "ApkError"]


class ApkError(ValueError):
    """Not an APK, or no readable manifest."""


_RES_XML = 0x0003
_RES_STRING_POOL = 0x0001
_RES_XML_START_ELEMENT = 0x0102


def _strings(buf: bytes, off: int) -> list[str]:
    _t, header_size, _size, count, _styles, flags, strings_start, _ = struct.unpack_from("<HHIIIIII", buf, off)
    utf8 = bool(flags & 0x100)
    offsets = struct.unpack_from(f"<{count}I", buf, off + header_size)
    base = off + strings_start
    out: list[str] = []
    for o in offsets:
        p = base + o
        if utf8:
            n = buf[p]
            p += 2 if n & 0x80 else 1
            blen = buf[p]
            if blen & 0x80:
                blen = ((blen & 0x7F) << 8) | buf[p + 1]
                p += 2
            else:
                p += 1
            out.append(buf[p:p + blen].decode("utf-8", "replace"))
        else:
            n = struct.unpack_from("<H", buf, p)[0]
            p += 2
            if n & 0x8000:
                n = ((n & 0x7FFF) << 16) | struct.unpack_from("<H", buf, p)[0]
                p += 2
            out.append(buf[p:p + 2 * n].decode("utf-16-le", "replace"))
    return out


def apk_package(data: bytes) -> str:
    """The ``package`` attribute of the APK's manifest; ``ApkError`` if it cannot be read."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            manifest = zf.read("AndroidManifest.xml")
    except (zipfile.BadZipFile, KeyError, OSError) as e:
        raise ApkError(f"not an APK: {e}") from e
    try:
        t, header_size, _size = struct.unpack_from("<HHI", manifest, 0)
        if t != _RES_XML:
            raise ApkError("AndroidManifest.xml is not binary XML")
        off = header_size
        strings: list[str] = []
        while off + 8 <= len(manifest):
            ctype, chead, csize = struct.unpack_from("<HHI", manifest, off)
            if csize <= 0:
                break
            if ctype == _RES_STRING_POOL:
                strings = _strings(manifest, off)
            elif ctype == _RES_XML_START_ELEMENT:
                # header(16: type,hsize,size,line,comment) + ns, name, attrStart(2), attrSize(2), count(2), ...
                name_idx = struct.unpack_from("<I", manifest, off + 20)[0]
                attr_start, attr_size, attr_count = struct.unpack_from("<HHH", manifest, off + 24)
                if 0 <= name_idx < len(strings) and strings[name_idx] == "manifest":
                    a = off + 16 + attr_start
                    for i in range(attr_count):
                        _ns, aname, raw = struct.unpack_from("<IIi", manifest, a + i * attr_size)
                        if 0 <= aname < len(strings) and strings[aname] == "package" and 0 <= raw < len(strings):
                            return strings[raw]
                    raise ApkError("the manifest has no package attribute")
            off += csize
    except struct.error as e:
        raise ApkError(f"truncated manifest: {e}") from e
    raise ApkError("no <manifest> element")
