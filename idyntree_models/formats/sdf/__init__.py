"""SDFormat 1.4 to 1.11: import with the specification's frame semantics, export to SDF 1.9.

Reading goes through stages, one module each, as libsdformat separates them:

1. `document`: the XML (lenient repairs, strict version, typed value readers, the legacy
   flattened form of nested models);
2. `uris`: where an `<include>` points and whether it may be read (containment, size limits);
3. `frames`: the frame graph of the chosen model (build, validate, resolve; `FrameKind`);
4. `reader`: the model resolved in its own frame (`SdfGraph`), comparable with libsdformat
   even when it is not a tree;
5. `to_model`: the tree `Model`, with the choices of docs/sdf.md (free bodies, split joints, ...).

`writer` writes SDF 1.9 (with `gazebo` for URDF's `<gazebo>` extensions, `inertia` computing
SDF 1.11's automatic inertials).
"""

from __future__ import annotations

from ...model.model import Model
from ..base import Diagnostics, LoadOptions
from ..xmlutil import root_tag
from .document import IDYNTREE_NS, MAX_VERSION, MIN_VERSION
from .frames import FrameGraph, FrameKind
from .reader import UNLIMITED, SdfGraph, SdfJoint, SdfSensor, read_sdf
from .to_model import graph_to_model, read_link
from .uris import resolve_uri, search_path_list
from .writer import dump


def detect(text: str) -> bool:
    return root_tag(text) == "sdf"


def load(text: str | bytes, options: LoadOptions, diag: Diagnostics) -> Model:
    """The tree model of the file's chosen model (docs/sdf.md)."""
    return graph_to_model(read_sdf(text, options, diag), diag, options)


__all__ = [
    "IDYNTREE_NS",
    "MAX_VERSION",
    "MIN_VERSION",
    "UNLIMITED",
    "FrameGraph",
    "FrameKind",
    "SdfGraph",
    "SdfJoint",
    "SdfSensor",
    "detect",
    "dump",
    "graph_to_model",
    "load",
    "read_link",
    "read_sdf",
    "resolve_uri",
    "search_path_list",
]
