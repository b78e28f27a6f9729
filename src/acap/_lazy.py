"""Lazy public names for acap's packages (a PEP 562 module ``__getattr__``).

Each package's ``__init__`` lists its public names, by the private module that
defines them, and imports a module only when one of its names is first used.
``acap --help`` then imports no stage at all and ``acap build`` only the stages it
runs (start-up is measured: bench/run.py), while users and the other stages write
``from acap.keys import SigningKey``. Type checkers read the ``TYPE_CHECKING``
imports each ``__init__`` keeps beside its table; a test keeps the two equal.

Why our own: the standard library has no lazy import (PEP 690 was declined, PEP 810
comes with Python 3.15), and scientific-python's ``lazy_loader`` reads a stub file
with ``ast`` at every import, which costs more than the imports it saves here.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping, Sequence

__all__ = ["exports"]


def exports(package: str, table: Mapping[str, Sequence[str]]
            ) -> tuple[Callable[[str], object], list[str]]:
    """The ``__getattr__`` and ``__all__`` of a package whose names load on first use.

    Args:
        package: the package's ``__name__``.
        table: module -> the public names it defines. A module is named relative to
            the package (``"_key"``) or absolutely (``"acap.errors"``).

    Returns:
        ``(__getattr__, __all__)``: the function to assign to the package's
        ``__getattr__`` (PEP 562), and every public name, sorted.

    Raises:
        AttributeError: (from the returned function) for a name not in ``table``, as
            Python raises for any module attribute that does not exist.
    """
    where = {name: (module if module.startswith("acap.") else f"{package}.{module}")
             for module, names in table.items() for name in names}

    def __getattr__(name: str) -> object:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        setattr(sys.modules[package], name, value)  # the next use finds it directly
        return value

    return __getattr__, sorted(where)
