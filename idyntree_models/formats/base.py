"""What every format module shares: options, and the warning collector passed to it."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field, fields

from ..errors import ModelError

log = logging.getLogger("idyntree_models")


@dataclass
class LoadOptions:
    """Parser options; each format reads the ones that apply to it."""

    convert_three_revolute_joints_to_spherical: bool = False
    add_sensor_frames_as_additional_frames: bool = True
    spherical_joint_tolerance: float = 1e-6
    model: str | None = None  # SDF: which model of a world
    skeleton: str | None = None  # SKEL: which skeleton of a world
    search_paths: tuple[str, ...] = ()  # SDF: extra model:// search directories
    base_dir: str | None = None  # directory of the file, for relative includes

    @classmethod
    def from_kwargs(cls, **kwargs) -> LoadOptions:
        return _from_kwargs(cls, kwargs, "parser")


@dataclass
class ExportOptions:
    """Exporter options; each format reads the ones that apply to it."""

    export_spherical_joints_as_three_revolute_joints: bool = True
    sdf_version: str = "1.9"
    mjcf_free_joint: bool = False  # MJCF: a <freejoint> on the base body (floating base) instead of welding it

    @classmethod
    def from_kwargs(cls, **kwargs) -> ExportOptions:
        return _from_kwargs(cls, kwargs, "exporter")


def _from_kwargs(cls, kwargs: dict, what: str):
    known = {f.name for f in fields(cls)}
    unknown = sorted(set(kwargs) - known)
    if unknown:
        raise ModelError(f"unknown {what} option(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}")
    values = {k: v for k, v in kwargs.items() if v is not None or k in ("model", "skeleton", "base_dir")}
    if "search_paths" in values:
        values["search_paths"] = tuple(values["search_paths"])
    return cls(**values)


@dataclass
class Diagnostics:
    """Collects warnings for the caller (the CLI prints them, services return them) and logs them."""

    source: str | None = None
    warnings: list[str] = field(default_factory=list)

    def warn(self, message: str) -> None:
        text = f"{self.source}: {message}" if self.source else message
        self.warnings.append(text)
        log.warning(text)
