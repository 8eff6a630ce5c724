"""Where ROS packages and SDF models live on this machine: `package://`, `model://` and `$(find pkg)`.

Robot descriptions name files relative to a package (`package://ur_description/meshes/base.dae`,
xacro's `$(find ur_description)`) or to a Gazebo model (`model://`).  The lookups follow the tools
users already have: the ament index first (every prefix of AMENT_PREFIX_PATH, as
ament_index_python), then the ROS 1 style ROS_PACKAGE_PATH (searched recursively for package.xml,
as rospack), and for models the SDF model paths (SDF_PATH, GZ_SIM_RESOURCE_PATH,
IGN_GAZEBO_RESOURCE_PATH, and directories given as options).  No ROS installation is needed.
"""

from __future__ import annotations

import os

from lxml import etree

_IGNORE_MARKERS = ("CATKIN_IGNORE", "COLCON_IGNORE", "AMENT_IGNORE")
_crawl_cache: dict[str, dict[str, str]] = {}


def _env_list(var: str) -> list[str]:
    return [p for p in os.environ.get(var, "").split(os.pathsep) if p]


def package_name(directory: str | os.PathLike) -> str:
    """The `<name>` of a package.xml (the directory name when the file cannot be read)."""
    directory = os.fspath(directory)
    try:
        parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)
        name = etree.parse(os.path.join(directory, "package.xml"), parser).getroot().findtext("name")
    except (OSError, etree.XMLSyntaxError):
        name = None
    return (name or "").strip() or os.path.basename(os.path.normpath(directory))


def _crawl(root: str) -> dict[str, str]:
    """Packages under `root`, as rospack finds them: a directory with package.xml is a package (not descended)."""
    found: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(root, followlinks=True):
        if any(m in filenames for m in _IGNORE_MARKERS):
            dirnames[:] = []
            continue
        if "package.xml" in filenames:
            found.setdefault(package_name(dirpath), dirpath)
            dirnames[:] = []
            continue
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
    return found


def find_package(name: str) -> str | None:
    """The share (or source) directory of ROS package `name`, or None."""
    for prefix in _env_list("AMENT_PREFIX_PATH"):
        if os.path.isfile(os.path.join(prefix, "share", "ament_index", "resource_index", "packages", name)):
            return os.path.join(prefix, "share", name)
    for root in _env_list("ROS_PACKAGE_PATH"):
        if root not in _crawl_cache:
            _crawl_cache[root] = _crawl(root) if os.path.isdir(root) else {}
        if name in _crawl_cache[root]:
            return _crawl_cache[root][name]
    return None


def searched_for_packages() -> str:
    """Where find_package looked, for error messages."""
    parts = []
    ament, ros = _env_list("AMENT_PREFIX_PATH"), _env_list("ROS_PACKAGE_PATH")
    if ament:
        parts.append(f"the ament index of AMENT_PREFIX_PATH ({os.pathsep.join(ament)})")
    if ros:
        parts.append(f"ROS_PACKAGE_PATH ({os.pathsep.join(ros)})")
    if not parts:
        return "nowhere: neither AMENT_PREFIX_PATH (a sourced ROS 2 workspace) nor ROS_PACKAGE_PATH is set"
    return " and ".join(parts)


def model_paths(extra: tuple[str, ...] | list[str] = ()) -> list[str]:
    """Directories holding SDF models, in search order (options first, then the environment)."""
    out = [str(p) for p in extra]
    for var in ("SDF_PATH", "GZ_SIM_RESOURCE_PATH", "IGN_GAZEBO_RESOURCE_PATH"):
        out += _env_list(var)
    return out


def find_model_dir(name: str, extra: tuple[str, ...] | list[str] = ()) -> str | None:
    """The directory of model `name` (what `model://name/` stands for), or a package of that name."""
    for d in model_paths(extra):
        candidate = os.path.join(d, name)
        if os.path.isdir(candidate):
            return candidate
    return find_package(name)


def enclosing(path: str, marker: str) -> str | None:
    """The nearest directory at or above `path` that holds `marker` (package.xml, model.config)."""
    d = os.path.dirname(path.rstrip("/") or "/") or "."  # os.path, not pathlib: the converter never imports it
    while True:
        if os.path.isfile(os.path.join(d, marker)):
            return d
        up = os.path.dirname(d) or "."
        if up == d:
            return None
        d = up


__all__ = ["enclosing", "find_model_dir", "find_package", "model_paths", "package_name", "searched_for_packages"]
