"""Stage 2 of reading SDF: where an `<include>` URI points, and whether we may read it.

Model files arrive from anywhere (a ROS service call, a user's download), so an include is
treated as a request to read a file: the URI is checked before the file system is touched, only
the including file's own directory tree, the model search paths (and what `model://` and
`package://` resolve to there) and directories the caller names (`allow_include_outside`) are
read, and a file is read only if it is a regular file under the size limit.  A URI that points
elsewhere gets the same "cannot find" answer whether or not the file exists, so errors reveal
nothing about the rest of the machine.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from ...errors import ModelError
from ..xmlutil import find_children, parse_xml
from .document import MAX_NESTING, MAX_VERSION, parse_version_text

# Documented limits (docs/sdf.md, README "Reliability").
MAX_URI_LENGTH = 4096  # characters of one include URI
MAX_NAME_LENGTH = 255  # characters of one path component (the file system's own limit)
MAX_FILE_BYTES = 64 * 1024 * 1024  # one included file (or model.config)
MAX_INCLUDE_DEPTH = 32  # includes inside includes
MAX_INCLUDES = 2000  # <include> elements expanded for one model, in all files together
MAX_MODELS = 10_000  # models (top, nested, included) in one loaded model
MAX_TOTAL_BYTES = 256 * 1024 * 1024  # all included files together


def search_path_list(extra: tuple[str, ...] | list[str] = ()) -> list[str]:
    """The model search path: the caller's directories, then SDF_PATH and Gazebo's variables."""
    out = [str(p) for p in extra]
    for var in ("SDF_PATH", "GZ_SIM_RESOURCE_PATH", "IGN_GAZEBO_RESOURCE_PATH"):
        out += [p for p in os.environ.get(var, "").split(os.pathsep) if p]
    return out


def _package_roots() -> list[str]:
    """Where `package://name` may live: ROS 2 prefixes' share/ and ROS_PACKAGE_PATH."""
    out = [str(Path(p) / "share") for p in os.environ.get("AMENT_PREFIX_PATH", "").split(os.pathsep) if p]
    out += [p for p in os.environ.get("ROS_PACKAGE_PATH", "").split(os.pathsep) if p]
    return out


@dataclass
class IncludePolicy:
    """The directories includes may read from, and the running totals the limits apply to."""

    roots: list[str] = field(default_factory=list)  # real paths
    includes: int = 0
    models: int = 0
    bytes_read: int = 0

    @classmethod
    def for_load(cls, base_dir: str | None, search_paths: tuple[str, ...] | list[str],
                 allow_outside: tuple[str, ...] | list[str] = ()) -> IncludePolicy:
        dirs = ([base_dir] if base_dir else []) + search_path_list(search_paths) + _package_roots()
        dirs += [str(p) for p in allow_outside]
        roots: list[str] = []
        for d in dirs:
            real = os.path.realpath(d)
            if real not in roots:
                roots.append(real)
        return cls(roots)

    def allows(self, path: str | Path) -> bool:
        real = os.path.realpath(path)
        return any(real == root or real.startswith(root.rstrip(os.sep) + os.sep) for root in self.roots)


def check_uri(uri: str) -> str | None:
    """What is wrong with an include URI before any file is looked at (None: nothing)."""
    if len(uri) > MAX_URI_LENGTH:
        return f"the include URI is {len(uri)} characters long (at most {MAX_URI_LENGTH})"
    if any(ord(c) < 0x20 or c == "\x7f" for c in uri):
        return "the include URI contains control characters"
    if any(0xD800 <= ord(c) <= 0xDFFF for c in uri):
        return "the include URI contains an unpaired surrogate"
    longest = max((len(part) for part in uri.replace("\\", "/").split("/")), default=0)
    if longest > MAX_NAME_LENGTH:
        return f"a component of the include URI is {longest} characters long (at most {MAX_NAME_LENGTH})"
    return None


def resolve_uri(uri: str, base_dir: str | None, extra: tuple[str, ...] | list[str] = (),
                policy: IncludePolicy | None = None) -> str | None:
    """The model file an include URI names (model://, package://, file://, relative or absolute
    path), or None when there is none that the policy lets us read.
    """
    rel = uri.strip()
    package = False
    for scheme in ("model://", "file://", "package://"):
        if rel.startswith(scheme):
            rel = rel[len(scheme):]
            package = scheme == "package://"
            break
    else:
        if "://" in rel:
            return None
    if check_uri(rel) is not None or not rel:
        return None
    candidates: list[Path] = []
    if os.path.isabs(rel):
        candidates.append(Path(rel))
    else:
        if base_dir and not package:
            candidates.append(Path(base_dir) / rel)
        candidates += [Path(p) / rel for p in search_path_list(extra)]
        if package:
            candidates += [Path(p) / rel for p in _package_roots()]
    for c in candidates:
        if policy is not None and not policy.allows(c):
            continue  # outside: not even looked at
        try:
            if c.is_file():
                return str(c)
            if c.is_dir():
                f = _model_file(c, policy)
                if f is not None:
                    return f
        except (OSError, ValueError):
            continue
    return None


def _model_file(directory: Path, policy: IncludePolicy | None) -> str | None:
    """The SDF file of a model directory: model.config's highest `<sdf>` entry we support."""
    config = directory / "model.config"
    if not config.is_file():
        return None
    try:
        root = parse_xml(read_limited(str(config)), str(config))
    except ModelError:
        return None
    best: tuple[tuple[int, int], str] | None = None
    for s in find_children(root, "sdf"):
        v = parse_version_text(s.get("version") or "0.0") or (0, 0)
        name = (s.text or "").strip()
        if not name or check_uri(name) is not None:
            continue
        path = directory / name
        if policy is not None and not policy.allows(path):
            continue
        if path.is_file() and v <= MAX_VERSION and (best is None or v > best[0]):
            best = (v, str(path))
    return best[1] if best is not None else None


def read_limited(path: str, limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of a regular file no larger than `limit`, checked before reading it."""
    try:
        with open(path, "rb") as fh:
            st = os.fstat(fh.fileno())
            if not stat.S_ISREG(st.st_mode):
                raise ModelError("not a regular file", source=path)
            if st.st_size > limit:
                raise ModelError(f"the file is {st.st_size} bytes; included files may have at most {limit}",
                                 source=path)
            data = fh.read(limit + 1)
    except OSError as e:
        raise ModelError(f"cannot read the included file: {e.strerror}", source=path) from None
    if len(data) > limit:
        raise ModelError(f"the file is larger than {limit} bytes, the limit for included files", source=path)
    return data


__all__ = [
    "MAX_FILE_BYTES",
    "MAX_INCLUDES",
    "MAX_INCLUDE_DEPTH",
    "MAX_MODELS",
    "MAX_NESTING",
    "MAX_TOTAL_BYTES",
    "MAX_URI_LENGTH",
    "IncludePolicy",
    "check_uri",
    "read_limited",
    "resolve_uri",
    "search_path_list",
]
