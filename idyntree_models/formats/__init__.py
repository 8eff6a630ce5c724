"""The one table of model formats.

The CLI, the Python API and the ROS services all dispatch through `FORMATS`, so a format added
here is available everywhere at once.  Each entry names the module that implements it; a module
provides `load(text, options, diag) -> Model` and/or `dump(model, options, diag) -> str`;
content sniffing for text without a file name is `detect_format` below.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from types import ModuleType

from ..errors import ModelError, UnsupportedFormatError


@dataclass(frozen=True)
class Format:
    name: str
    module: str
    extensions: tuple[str, ...]
    description: str
    writes: bool = True  # has a `dump` (said here so that the CLI's help need not import every module)

    def implementation(self) -> ModuleType | None:
        try:
            return importlib.import_module(f"{__name__}.{self.module}")
        except ModuleNotFoundError as e:
            if e.name == f"{__name__}.{self.module}":
                return None
            raise

    @property
    def can_load(self) -> bool:
        mod = self.implementation()
        return mod is not None and hasattr(mod, "load")

    @property
    def can_dump(self) -> bool:
        mod = self.implementation()
        return mod is not None and hasattr(mod, "dump")


FORMATS: dict[str, Format] = {
    f.name: f
    for f in (
        Format("urdf", "urdf", (".urdf",), "URDF with iDynTree's sensor and spherical-joint extensions"),
        Format("sdf", "sdf", (".sdf", ".world"), "SDFormat 1.4 to 1.11"),
        Format("idyntree-model-json", "idyntree_json", (".json",), "iDynTree model JSON, version 1"),
        Format("skel", "skel", (".skel",), "DART SKEL", writes=False),
        Format("mjcf", "mjcf", (".mjcf", ".xml"), "MuJoCo MJCF"),
        Format("xacro", "xacro", (".xacro",), "xacro macros, expanded by the xacro package, then read as URDF (or SDF)",
               writes=False),
    )
}

ALIASES = {"json": "idyntree-model-json"}


def get_format(name: str) -> Format:
    key = ALIASES.get(name.lower(), name.lower())
    if key not in FORMATS:
        raise ModelError(f"unknown format '{name}' (known: {', '.join(FORMATS)})")
    return FORMATS[key]


def output_format(name: str | Format) -> Format:
    """A format to write, refused (with the formats that are written) before any input is read for it."""
    if isinstance(name, Format):
        fmt: Format | None = name
    else:
        try:
            fmt = get_format(name)
        except ModelError:
            fmt = None
    if fmt is None or not fmt.writes:
        written = ", ".join(n for n, f in FORMATS.items() if f.writes)
        what = f"unknown format '{name}'" if fmt is None else f"{fmt.name} is read, not written"
        raise UnsupportedFormatError(f"{what} (formats written: {written})")
    return fmt


def format_from_path(path: str) -> Format | None:
    lower = path.lower()
    for fmt in FORMATS.values():
        if any(lower.endswith(ext) for ext in fmt.extensions):
            return fmt
    return None


def detect_format(text: str) -> Format:
    """Guess the format of a model given as text: a leading `{` or the XML root element."""
    stripped = text.lstrip("\ufeff \t\r\n")
    if stripped.startswith("{"):
        return FORMATS["idyntree-model-json"]
    from .xacro import uses_xacro
    from .xmlutil import root_tag

    if uses_xacro(stripped):
        return FORMATS["xacro"]

    tag = root_tag(stripped)
    by_root = {"robot": "urdf", "sdf": "sdf", "skel": "skel", "mujoco": "mjcf"}
    if tag in by_root:
        return FORMATS[by_root[tag]]
    if tag is None:
        raise ModelError("cannot tell the model format: the text is neither JSON nor XML")
    from .numbers import show

    raise ModelError(f"cannot tell the model format from the root element <{show(tag)}> (expected robot, sdf, skel or "
                     "mujoco)")


def loader(fmt: Format):
    mod = fmt.implementation()
    if mod is None or not hasattr(mod, "load"):
        raise UnsupportedFormatError(f"reading {fmt.name} is not supported yet")
    return mod.load


def dumper(fmt: Format):
    output_format(fmt)  # (refuses a format that is read only, saying which are written)
    mod = fmt.implementation()
    if mod is None or not hasattr(mod, "dump"):
        raise UnsupportedFormatError(f"writing {fmt.name} is not supported")
    return mod.dump


__all__ = ["ALIASES", "FORMATS", "Format", "detect_format", "dumper", "format_from_path", "get_format", "loader",
           "output_format"]
