"""Names of a package imported from their modules on first use (PEP 562).

`import idyntree_models` and `import idyntree_models.model` then cost next to nothing, and a
command such as idyntree-model-convert loads only the modules its work needs.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable


def lazy_exports(package: str, table: dict[str, str]) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """The module-level `__getattr__` and `__dir__` of `package`, whose name N comes from table[N]
    (a module, relative to the package); each name is kept in the package once imported."""

    def __getattr__(name: str) -> object:
        if name not in table:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(table[name], package), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(table))

    return __getattr__, __dir__


class LazyPattern:
    """re.compile(pattern, flags), compiled the first time one of its methods is asked for.

    A module-level pattern costs 0.1-2 ms to compile at import (~10 ms for the converter's 24), and most
    serve only odd documents (a DOCTYPE, a namespace prefix, a JSON file): compiled on demand, a
    conversion that never needs one never pays for it.  Each attribute asked for is then kept on the
    instance, so a pattern in a loop costs a plain attribute read.
    """

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self._args = (pattern, flags)

    def __getattr__(self, name: str) -> object:  # (only for what the instance does not hold yet)
        if name.startswith("__"):
            raise AttributeError(name)
        import re

        value = getattr(re.compile(*self._args), name)
        setattr(self, name, value)
        return value
