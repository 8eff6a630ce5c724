"""What every format module shares: options, and the warning collector passed to it."""

from __future__ import annotations

import logging
import os
import stat
from dataclasses import field, fields

from .._lazy import LazyPattern
from .._record import Record, record
from ..errors import STRICT_NOTE, ModelError
from .numbers import show

log = logging.getLogger("idyntree_models")

FREE_BODIES = ("chain", "error")
MAX_FILE_BYTES = 256 * 1024 * 1024
"""Largest model file (or model text) any reader accepts, in bytes; larger ones are refused before
reading.  The largest real robot description we know (iCub, 213 links) is under 1 MB and a
100,000-link URDF is 46 MB, so the limit only stops a wrong file or a hostile one from exhausting
memory.  Referenced files (SDF includes, SKEL meshes) have the same limit."""


def line_at(data: str | bytes, offset: int) -> int:
    """1-based line of `offset`, counting LF, CRLF and lone CR line ends (as XML does)."""
    head = data[:offset]
    nl, cr = ("\n", "\r") if isinstance(head, str) else (b"\n", b"\r")
    crlf = cr + nl
    return head.count(nl) + head.count(cr) - head.count(crlf) + 1


def decode_utf8(data: bytes, source: str | None = None) -> str:
    """The text of a model given as bytes (a leading BOM dropped), or ModelError with the line."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        if data[:2] in (b"\xff\xfe", b"\xfe\xff"):  # (a Windows editor's "Unicode": say what it is)
            raise ModelError("the model is UTF-16 text (it starts with a UTF-16 byte order mark): save it as UTF-8",
                             source=source, line=1) from None
        raise ModelError(
            f"the model is not UTF-8 text ({e.reason} at byte {e.start}: {data[e.start:e.start + 4]!r})",
            source=source,
            line=line_at(data, e.start),
        ) from None


def check_text(text: str, source: str | None = None) -> None:
    """Refuse text that cannot be written back: lone surrogates (only a Python `str` can hold them)."""
    if text.isascii():
        return
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as e:
        raise ModelError(
            f"the model text holds a lone UTF-16 surrogate (U+{ord(text[e.start]):04X}), which is no character",
            source=source,
            line=line_at(text, e.start),
        ) from None


def read_file_limited(path: str, source: str | None = None, limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of a regular file of at most `limit` bytes; larger, or not regular: ModelError.

    The size is checked before reading and again while reading (files under /proc report size 0).
    """
    return _read_file(path, source, limit, False)[0]


def read_file_and_place(path: str, source: str | None = None, limit: int = MAX_FILE_BYTES) -> tuple[bytes, str | None]:
    """read_file_limited, and the file's path with every symlink resolved (None where it cannot be told).

    Right after a load has run, the system calls of a model file are several times slower than warm
    (a stat 4 -> 43 us, realpath's six lstats 39 -> 106 us here): the path comes from the open file
    (one readlink of /proc/self/fd on Linux) and a file that fits is read in one call, not two.
    """
    return _read_file(path, source, limit, True)


def _read_file(path: str, source: str | None, limit: int, place: bool) -> tuple[bytes, str | None]:
    name = source or path
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as e:
        raise ModelError(f"cannot read the file: {e.strerror}", source=name) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise ModelError("not a regular file", source=name)
        if st.st_size > limit:
            raise ModelError(
                f"the file has {st.st_size} bytes, more than the {limit} a model may have", source=name
            )
        chunks = []
        total = 0
        want = st.st_size + 1 if st.st_size else 1 << 20  # (one more byte than fstat says: a grown file is seen)
        while True:
            chunk = os.read(fd, want)
            if not chunk:
                break
            total += len(chunk)
            if total > limit:
                raise ModelError(f"the file has more than the {limit} bytes a model may have", source=name)
            chunks.append(chunk)
            if total == st.st_size and len(chunk) < want:  # all that fstat said, in a short read: the end
                break
            want = 1 << 20
        return b"".join(chunks), _resolved(fd) if place else None
    except OSError as e:
        raise ModelError(f"cannot read the file: {e.strerror}", source=name) from None
    finally:
        os.close(fd)


def _resolved(fd: int) -> str | None:
    """The path of an open file (Linux's /proc; None elsewhere, and for a file unlinked since)."""
    try:
        real = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return None
    return real if real.startswith("/") and not real.endswith(" (deleted)") else None


class FileAccessRefused(ModelError):
    """A file a model refers to (SDF include, SKEL mesh) that this load may not read.

    The message never depends on whether the file exists: the check is made on the name alone,
    before the file system is touched, so a refused reference reveals nothing about the machine.
    """


def _inside(path: str, roots: list[str]) -> bool:
    return any(path == root or path.startswith(root.rstrip(os.sep) + os.sep) for root in roots)


def referenced_file(ref: str, options: LoadOptions, what: str) -> str:
    """The path of a file the model refers to, if this load may read it; else FileAccessRefused.

    Readable: files under the model file's own directory (`base_dir`), the model search paths and
    the `allow_include_outside` directories, and nothing at all without `allow_file_access` (the
    ROS services, unless the node is told otherwise).  `file://` URIs are paths; other schemes are
    refused.  The name is checked first, then (for symbolic links) the real path.
    """
    if not options.allow_file_access:
        raise FileAccessRefused(f"{what} '{ref}' is not read: reading files is disabled for this load")
    path = ref[len("file://"):] if ref.startswith("file://") else ref
    if "://" in path:
        raise FileAccessRefused(f"{what} '{ref}': only file paths and file:// URIs are read")
    if "\x00" in path:
        raise FileAccessRefused(f"{what} '{show(ref)}' is not a file name (it holds a NUL)")
    if not os.path.isabs(path):
        if not options.base_dir:
            raise FileAccessRefused(f"{what} '{ref}' is relative and the model was given as text, not as a file: "
                                    "there is no directory to look in")
        path = os.path.join(options.base_dir, path)
    path = os.path.normpath(path)
    roots = [os.path.normpath(os.path.abspath(d)) for d in
             ([options.base_dir] if options.base_dir else []) + list(options.search_paths)
             + list(options.allow_include_outside)]
    hint = ("outside the model file's directory tree and every allowed directory; allow its directory with "
            "--allow-include-outside DIR (API: allow_include_outside)")
    if not _inside(path, roots):
        raise FileAccessRefused(f"{what} '{ref}' is {hint}")
    real = os.path.realpath(path)
    if not _inside(real, [os.path.realpath(r) for r in roots]):
        raise FileAccessRefused(f"{what} '{ref}' leads through a symbolic link to a file {hint}")
    return real


@record
class LoadOptions(Record):
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
    # free bodies (SDF links joined to nothing, MJCF bodies with a free joint beside others in the world):
    # "chain" joins each to the base through six 1-DOF joints (docs/sdf.md), "error" refuses the model
    free_bodies: str = "chain"
    # files a model refers to (SDF includes, SKEL meshes) are read only inside base_dir, the search
    # paths and these directories (CLI --allow-include-outside DIR)
    allow_include_outside: tuple[str, ...] = ()
    # False: read no file at all besides the model itself (the ROS services, unless told otherwise)
    allow_file_access: bool = True

    def __post_init__(self) -> None:
        if self.free_bodies not in FREE_BODIES:
            raise ModelError(f"free_bodies must be one of {', '.join(FREE_BODIES)}, got '{self.free_bodies}'")

    @classmethod
    def from_kwargs(cls, **kwargs) -> LoadOptions:
        return _from_kwargs(cls, kwargs, "parser")


@record
class ExportOptions(Record):
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
    if not kwargs:  # (nearly every load: the checks below cost ten times the defaults)
        return cls()
    known = {f.name for f in fields(cls)}
    unknown = sorted(set(kwargs) - known)
    if unknown:
        raise ModelError(f"unknown {what} option(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}")
    values = {k: v for k, v in kwargs.items() if v is not None or k in ("model", "skeleton", "base_dir")}
    kinds = {f.name: f.type for f in fields(cls)}
    for key, value in values.items():
        values[key] = _typed(key, kinds[key], value, what)
    for key in ("search_paths", "allow_include_outside"):
        if key in values:
            if isinstance(values[key], (str, bytes, os.PathLike)):
                values[key] = (values[key],)
            try:
                values[key] = tuple(os.fspath(p) for p in values[key])
            except TypeError:
                raise ModelError(f"{what} option {key} must be a directory or a list of them, got "
                                 f"{show(repr(values[key]))}") from None
    if values.get("xacro_args") is not None:
        args = values["xacro_args"]
        if not isinstance(args, dict):
            raise ModelError(f"xacro_args must be a mapping of argument names to values, got {type(args).__name__}")
        values["xacro_args"] = {str(k): str(v) for k, v in args.items()}
    return cls(**values)


def _typed(key: str, kind: str, value, what: str):
    """An option's value of the type its field declares: options come from config files and ROS parameters as text,
    and a truthy "false" must not turn a switch on (allow_xacro="false" expanded xacro, which runs Python)."""
    def wrong(expected: str) -> ModelError:
        return ModelError(f"{what} option {key} must be {expected}, got {show(repr(value))} ({type(value).__name__})")

    if value is None:
        return None
    if kind == "bool":
        if type(value).__name__ not in ("bool", "bool_"):  # (numpy's bool too)
            raise wrong("True or False")
        return bool(value)
    if kind == "float":
        if isinstance(value, bool) or not isinstance(value, (int, float)) and type(value).__name__ not in ("float64",
                                                                                                           "float32"):
            raise wrong("a number")
        return float(value)
    if kind.startswith("str"):
        if key in ("base_dir", "output_dir") and isinstance(value, os.PathLike):
            return os.fspath(value)
        if not isinstance(value, str):
            raise wrong("a string")
    return value


_LINE_PREFIX = LazyPattern(r"^line \d+: ")
_ANY_LINE_PREFIX = LazyPattern(r"^line \d+( of [^:]*)?: ")


@record
class Diagnostics(Record):
    """Collects warnings for the caller (the CLI prints them, services return them) and logs them.

    Each distinct warning is kept and logged once.  With `strict`, a warning is raised as a
    ModelError instead, for users who accept no model that needed one.
    """

    source: str | None = None
    warnings: list[str] = field(default_factory=list)
    strict: bool = False
    quiet: bool = False  # collect without logging (a preparation whose warnings the real export says)
    lines_of: str = ""  # whose line numbers the findings give, when not the file's (a xacro file's expansion)
    _documents: dict = field(default_factory=dict, repr=False)  # included documents: id(root) -> (root, file)
    # the TreeOrder of the model exactly as the loader returns it, when the loader ordered it last (finish_model's
    # first check, already made: 23 ms of a 10,000-link load); None where the loader changed links or joints after
    tree: object = field(default=None, repr=False, compare=False)
    # the links validation's inertia screen (validation.inertia_suspects) singles out, when the loader screened
    # every inertia the model has (16 ms of a 10,000-link load to gather them again); None: screened by validation
    inertia_suspects: list | None = field(default=None, repr=False, compare=False)
    _seen: set[str] = field(default_factory=set, repr=False)

    def included(self, root, source: str | None) -> None:
        """`root` is the root element of a document the model's file includes (an SDF <include>): findings about its
        elements name that file (`at`)."""
        if source != self.source:
            self._documents[id(root)] = (root, source)  # (the root kept: lxml hands back the same proxy while alive)

    def at(self, el) -> str:
        """Where `el` is, for a warning: `line N` of the model's file, or `FILE, line N` of a file it includes."""
        line = f"line {el.sourceline}"
        if self._documents:
            entry = self._documents.get(id(el.getroottree().getroot()))
            if entry is not None:
                return f"{entry[1]}, {line}"
        return line

    def located(self, e: ModelError) -> ModelError:
        """`e` with its line said as `lines_of`'s: a file:line would point into the file, at the wrong place. (An
        error in a file the model's file includes keeps its own file and line.)"""
        if self.lines_of and e.line and e.source in (None, self.source):
            e.element = f"line {e.line} of {self.lines_of}" + (f": {e.element}" if e.element else "")
            e.line = None
            e.args = (str(e),)
        return e

    def warn(self, message: str) -> None:
        if self.lines_of:
            message = _LINE_PREFIX.sub(lambda m: f"{m.group(0)[:-2]} of {self.lines_of}: ", message, count=1)
        if self.strict:
            raise ModelError(f"{message} {STRICT_NOTE}", source=self.source)
        key = _ANY_LINE_PREFIX.sub("", message)  # the same warning from the reader (with a line) and from validation
        if key in self._seen:
            return
        self._seen.add(key)
        text = f"{self.source}: {message}" if self.source else message
        self.warnings.append(text)
        if not self.quiet:
            log.warning(text)
