"""``Forwarded``: an attribute that reads (and, if asked, writes) through to a part its owner holds.

A coordinator such as :class:`~device.env.DeviceEnv`, or a provider's part of a writer
(:class:`~device.writers.part.WriterPart`), shows its callers what its parts know without keeping
a copy: ``pf = Forwarded("_session")`` reads ``self._session.pf`` each time it is read, so what a
part fills in later (the session fills some in once it starts) is always what callers see. One
declaration a line keeps the owner's own code about its own job.
"""

from __future__ import annotations

from typing import Any, Generic, TypeVar, overload

__all__ = ["Forwarded"]

T = TypeVar("T")
_REQUIRED: Any = object()


class Forwarded(Generic[T]):
    """``owner.<name>`` is ``owner.<via>.<attr>`` (``attr`` is the attribute's own name unless given).

    ``default``: what it reads while ``owner.<via>`` is None (not given: the part must be there).
    ``writable``: assigning sets the part's attribute (the part must be there); otherwise it is
    read-only, like a property without a setter.
    """

    def __init__(self, via: str, attr: str | None = None, *, default: Any = _REQUIRED, writable: bool = False,
                 doc: str | None = None):
        self.via, self.attr, self.default, self.writable = via, attr or "", default, writable
        self.name = ""
        self.__doc__ = doc

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name
        self.attr = self.attr or name

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> Forwarded[T]: ...

    @overload
    def __get__(self, obj: object, owner: type | None = None) -> T: ...

    def __get__(self, obj: object | None, owner: type | None = None) -> T | Forwarded[T]:
        if obj is None:
            return self
        part = getattr(obj, self.via)
        if part is None and self.default is not _REQUIRED:
            return self.default  # type: ignore[no-any-return]
        return getattr(part, self.attr)  # type: ignore[no-any-return]

    def __set__(self, obj: object, value: T) -> None:
        if not self.writable:
            raise AttributeError(f"{type(obj).__name__}.{self.name} is read-only")
        part = getattr(obj, self.via)
        assert part is not None, f"{type(obj).__name__}.{self.name}: no {self.via} yet"
        setattr(part, self.attr, value)
