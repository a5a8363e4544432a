"""A package's public calls, looked up when first used (a module ``__getattr__``, PEP 562), so
importing the package loads none of its modules."""
from __future__ import annotations

from importlib import import_module
from typing import Callable


def lazy_attributes(package: str, where: dict[str, tuple[str, str]]
                    ) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for ``package``: ``where[name]`` is ``(module,
    attribute)``, the module relative to the package. A value found is cached in the
    package's namespace, so the lookup runs once per name."""

    def __getattr__(name: str):
        if name not in where:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module, attribute = where[name]
        value = getattr(import_module(f"{package}.{module}"), attribute)
        setattr(import_module(package), name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(import_module(package))) | set(where))

    return __getattr__, __dir__
