"""What every format module shares: options, and the warning collector passed to it."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field, fields

from ..errors import ModelError

log = logging.getLogger("idyntree_models")

FREE_BODIES = ("chain", "error")


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
    xacro_args: dict[str, str] | None = None  # xacro: values of <xacro:arg> (NAME:=VALUE on xacro's command line)
    allow_xacro: bool = True  # False: refuse xacro documents (their $(eval) runs Python code); see api.read_source
    strict: bool = False  # every warning is an error
    # SDF: links joined to nothing are free bodies; "chain" joins each to the base through six
    # 1-DOF joints (docs/sdf.md), "error" refuses the model
    free_bodies: str = "chain"
    # SDF: directories includes may read besides the file's own tree and the model search paths
    allow_include_outside: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.free_bodies not in FREE_BODIES:
            raise ModelError(f"free_bodies must be one of {', '.join(FREE_BODIES)}, got '{self.free_bodies}'")

    @classmethod
    def from_kwargs(cls, **kwargs) -> LoadOptions:
        return _from_kwargs(cls, kwargs, "parser")


@dataclass
class ExportOptions:
    """Exporter options; each format reads the ones that apply to it."""

    export_spherical_joints_as_three_revolute_joints: bool = True
    sdf_version: str = "1.9"
    mjcf_free_joint: bool = False  # MJCF: a <freejoint> on the base body (floating base) instead of welding it
    mesh_uri: str | None = None  # keep | absolute | package | model; None: keep, except SDF (package:// -> model://)
    resolve_mesh_uris: bool = False  # look every mesh file up (package:// through the ament index), warn if missing
    output_dir: str | None = None  # where the output goes: relative mesh paths are rebased onto it
    search_paths: tuple[str, ...] = ()  # model:// search directories, for resolving mesh URIs
    strict: bool = False  # every warning is an error

    @classmethod
    def from_kwargs(cls, **kwargs) -> ExportOptions:
        return _from_kwargs(cls, kwargs, "exporter")


def _from_kwargs(cls, kwargs: dict, what: str):
    known = {f.name for f in fields(cls)}
    unknown = sorted(set(kwargs) - known)
    if unknown:
        raise ModelError(f"unknown {what} option(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}")
    values = {k: v for k, v in kwargs.items() if v is not None or k in ("model", "skeleton", "base_dir")}
    for key in ("search_paths", "allow_include_outside"):
        if key in values:
            if isinstance(values[key], (str, bytes)):
                values[key] = (values[key],)
            values[key] = tuple(str(p) for p in values[key])
    if values.get("xacro_args") is not None:
        args = values["xacro_args"]
        if not isinstance(args, dict):
            raise ModelError(f"xacro_args must be a mapping of argument names to values, got {type(args).__name__}")
        values["xacro_args"] = {str(k): str(v) for k, v in args.items()}
    return cls(**values)


STRICT_NOTE = "(strict: warnings are errors)"
_LINE_PREFIX = re.compile(r"^line \d+: ")


@dataclass
class Diagnostics:
    """Collects warnings for the caller (the CLI prints them, services return them) and logs them.

    Each distinct warning is kept and logged once.  With `strict`, a warning is raised as a
    ModelError instead, for users who accept no model that needed one.
    """

    source: str | None = None
    warnings: list[str] = field(default_factory=list)
    strict: bool = False
    _seen: set[str] = field(default_factory=set, repr=False)

    def warn(self, message: str) -> None:
        if self.strict:
            raise ModelError(f"{message} {STRICT_NOTE}", source=self.source)
        key = _LINE_PREFIX.sub("", message)  # the same warning from the reader (with a line) and from validation
        if key in self._seen:
            return
        self._seen.add(key)
        text = f"{self.source}: {message}" if self.source else message
        self.warnings.append(text)
        log.warning(text)
