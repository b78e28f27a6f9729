"""Lazy public names for acap's packages (a PEP 562 module ``__getattr__``).

Each package's ``__init__`` lists its public names once, as the imports a type checker
reads under ``if TYPE_CHECKING:``, one per line::
    if TYPE_CHECKING:
        from acap.keys._key import SigningKey as SigningKey

    __getattr__, __dir__ = exports(__name__)

At run time those lines are not executed: :func:`exports` reads them from the package's
own source, and imports a module only when one of its names is first used. ``acap
--help`` then imports no stage at all and ``acap build`` only the modules it runs
(start-up is measured: bench/run.py), while users and the other stages write
``from acap.keys import SigningKey``.

Why our own: the standard library has no lazy import (PEP 690 was declined; PEP 810
comes with Python 3.15), and scientific-python's ``lazy_loader`` parses a stub file with
``ast`` at import, which costs more than the imports it saves here (importing ``ast``
alone is milliseconds; this reads one small file with one regular expression).
"""

from __future__ import annotations

import importlib
import re
import sys
from collections.abc import Callable

__all__ = ["exports"]

#: One public name: ``from acap.x._y import Name as Name`` (the ``as`` marks it exported).
_EXPORT = re.compile(r"^\s+from (acap(?:\.\w+)*) import (\w+) as \2$", re.M)


def exports(package: str) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of a package whose names load on first use.

    Nothing is read until a name is asked for: then the package's own source gives the
    table of names (``__all__`` is answered from it too).

    Args:
        package: the package's ``__name__``; its ``__init__`` source lists the public
            names as ``from MODULE import NAME as NAME`` lines (see the module
            docstring).

    Returns:
        ``(__getattr__, __dir__)``: the functions to assign to the package's
        ``__getattr__`` and ``__dir__`` (PEP 562); ``dir(package)`` lists the public names.

    Raises:
        OSError: (from the returned function) the package's source cannot be read
            (acap is installed as files).
        AttributeError: (from the returned function) for a name not listed, as Python
            raises for any module attribute that does not exist.
    """
    where: dict[str, str] = {}

    def __getattr__(name: str) -> object:
        if not where:
            init = sys.modules[package].__file__
            assert init is not None, "acap is installed as files"
            with open(init, encoding="utf-8") as fh:
                where.update((n, m) for m, n in _EXPORT.findall(fh.read()))
        if name == "__all__":
            return sorted(where)
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        setattr(sys.modules[package], name, value)  # the next use finds it directly
        return value

    def __dir__() -> list[str]:
        names = __getattr__("__all__")
        assert isinstance(names, list)
        return names

    return __getattr__, __dir__
