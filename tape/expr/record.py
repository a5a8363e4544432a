"""Plain value classes for the modules every ``tape`` run imports, in place of ``@dataclass``.

Creating a dataclass generates and compiles its methods at import time (~0.3 ms each, plus the
``dataclasses`` module): a dozen of them would be ~4 ms of every cold start. A class
here writes its ``__init__`` by hand and names its fields in ``_fields``; ``Record`` supplies
what the dataclass did: ``repr`` (``Name(a=1, b=2)``, without the fields in ``_unshown``),
``==`` between instances of the same class on the fields (``__hash__`` None, as for a mutable
dataclass). ``Frozen`` adds hashing and refuses assignment like ``frozen=True``.
"""
from __future__ import annotations


class Record:
    """Base of a mutable value class (see the module docstring)."""

    __slots__ = ()
    _fields: tuple = ()     # in order: repr and == use them
    _unshown: tuple = ()    # fields left out of repr (still compared)
    __hash__ = None         # type: ignore[assignment]

    def __repr__(self) -> str:
        shown = ", ".join(f"{f}={getattr(self, f)!r}" for f in self._fields
                          if f not in self._unshown)
        return f"{type(self).__qualname__}({shown})"

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return self._key() == other._key()
        return NotImplemented

    def _key(self) -> tuple:
        return tuple(getattr(self, f) for f in self._fields)


class Frozen(Record):
    """Base of an immutable, hashable value class; ``__init__`` sets fields with
    ``object.__setattr__``."""

    __slots__ = ()

    def __hash__(self) -> int:
        return hash(self._key())

    def __setattr__(self, name, value):
        from dataclasses import FrozenInstanceError

        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name):
        from dataclasses import FrozenInstanceError

        raise FrozenInstanceError(f"cannot delete field {name!r}")
