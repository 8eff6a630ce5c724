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
