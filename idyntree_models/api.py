"""The library's front door: load a model from any format, export it to any format."""

from __future__ import annotations

import errno
import gc
import logging
import os
import stat

from ._alloc import fast_bins_off
from .errors import ModelError, XacroNotAllowed
from .formats import Format, detect_format, dumper, format_from_path, get_format, loader
from .formats.base import (
    MAX_FILE_BYTES,
    Diagnostics,
    ExportOptions,
    LoadOptions,
    check_text,
    decode_utf8,
    read_file_and_place,
)
from .formats.common import report_initial_configuration, report_source_structure
from .formats.mesh_uris import report_lost_extensions, rewrite_mesh_uris
from .formats.numbers import show
from .formats.xacro import expand as expand_xacro
from .formats.xacro import uses_xacro
from .model.model import Model
from .model.spherical import add_sensor_frames, fold_three_revolute_joints
from .model.validation import locate, validate
from .output import write_text

log = logging.getLogger("idyntree_models")


def _looks_like_text(s: str) -> bool:
    # the first character that is no white space, from the head of the text: lstrip of the whole text
    # copied it (~20 us for iCubGenova02's 66 KB, every load of a text)
    head = s[:64].lstrip("\ufeff \t\r\n") or s.lstrip("\ufeff \t\r\n")
    return head[:1] in ("<", "{") or "\n" in s


def _refuse_unreadable(name: str) -> None:
    """Refuse a model file that is missing or not a regular file, in the words for each case."""
    try:
        st = os.stat(name)
    except OSError as e:  # ENOENT, but also ENAMETOOLONG for text taken for a path, ELOOP, EACCES
        why = "no such file" if isinstance(e, FileNotFoundError) else f"cannot read the file: {e.strerror}"
        if e.errno == errno.ENAMETOOLONG:
            why += " (model text must start with '<' or '{', or hold a line break)"
            name = show(name)
        raise ModelError(why, source=name) from None
    if not stat.S_ISREG(st.st_mode):
        pipe = stat.S_ISFIFO(st.st_mode) or stat.S_ISSOCK(st.st_mode)
        raise ModelError("not a regular file" + (" (to read a pipe, give - as the model file and the model on "
                                                 "standard input)" if pipe else ""), source=name)


def _read_text(source: str | bytes | os.PathLike) -> tuple[str, str | None, str | None]:
    """(text, file name for messages, the file's path with symlinks resolved or None) of a path or of a
    model given as text.

    Files (and texts) larger than `formats.base.MAX_FILE_BYTES` are refused before reading; text
    that cannot be written back (a lone surrogate in a Python str) is refused with its line.
    """
    name: str | None = None
    real: str | None = None
    if isinstance(source, bytes):
        if len(source) > MAX_FILE_BYTES:
            raise ModelError(f"the model has {len(source)} bytes, more than the {MAX_FILE_BYTES} a model may have")
        text = decode_utf8(source)
    elif isinstance(source, os.PathLike) or (isinstance(source, str) and not _looks_like_text(source)):
        name = os.fsdecode(source)  # os, not pathlib: the converter's start-up never imports pathlib (7 ms)
        check_text(name)
        if "\x00" in name:
            raise ModelError("neither model text (which starts with '<' or '{') nor a file name (it holds a NUL)")
        _refuse_unreadable(name)  # before any open: a device is never opened (a serial port's open can reset a board)
        data, real = read_file_and_place(name)
        text = decode_utf8(data, name)
    else:
        text = str(source)
        if len(text) > MAX_FILE_BYTES:
            raise ModelError(f"the model has {len(text)} characters, more than the {MAX_FILE_BYTES} a model may have")
        check_text(text)
    if not text or text.isspace():  # (text.strip() copied the whole text)
        raise ModelError("the model is empty", source=name)
    return text, name, real


def _format_of(text: str, name: str | None, format: str | None, diag: Diagnostics, opts: LoadOptions) -> tuple[str, Format]:
    """The format to read `text` with; xacro documents are expanded here, so the text returned is the model."""
    if format:
        fmt = get_format(format)
    else:
        fmt = format_from_path(name) if name else None
        if fmt is None:
            fmt = detect_format(text)  # (which looks for xacro elements first)
        elif fmt.name != "xacro" and fmt.name != "idyntree-model-json" and uses_xacro(text):
            fmt = get_format("xacro")  # e.g. a robot.urdf that is really xacro: what its users run xacro on
    if fmt.name != "xacro":
        return text, fmt
    if not opts.allow_xacro:
        raise XacroNotAllowed(
            "xacro documents are not expanded in this load (allow_xacro is off: xacro's $(eval) runs Python code, "
            "and its include reads files): expand it with xacro first", source=name)
    text = expand_xacro(text, name, opts.xacro_args, diag)
    fmt = detect_format(text)
    if fmt.name == "xacro":
        raise ModelError("the document still uses xacro after expansion", source=name)
    return text, fmt


def read_source(
    source: str | bytes | os.PathLike, format: str | None = None, **options
) -> tuple[str, str | None, Format]:
    """Return (text, name for messages, format) for a path or a model given as text.

    xacro documents come back expanded, with the format of what xacro produced; `options` are
    those of `LoadOptions` (xacro_args, allow_xacro, strict).
    """
    opts = LoadOptions.from_kwargs(**options)
    text, name, _ = _read_text(source)
    text, fmt = _format_of(text, name, format, Diagnostics(name, strict=opts.strict), opts)
    return text, name, fmt


def load_description(
    source: str | bytes | os.PathLike,
    format: str | None = None,
    *,
    warnings: list[str] | None = None,
    **options,
) -> tuple[Model, str, Format]:
    """load_model that also returns the text it read (after xacro) and its format (for the ROS node)."""
    return _load(source, format, warnings, True, options)


def _load(source, format: str | None, warnings: list[str] | None, keep_text: bool,
          options: dict) -> tuple[Model, str | None, Format]:
    opts = LoadOptions.from_kwargs(**options)
    text, name, real = _read_text(source)
    diag = Diagnostics(name, strict=opts.strict)
    if name and opts.base_dir is None:
        opts.base_dir = os.path.dirname(real or os.path.realpath(name))
    # A load allocates tens of objects per link and frees almost none, so the cyclic collector would
    # only re-scan the growing model (a fifth of the time of a 1000-link model); it runs after.
    collecting = gc.isenabled()
    try:
        text, fmt = _format_of(text, name, format, diag, opts)
        load = loader(fmt)
        gc.disable()
        with fast_bins_off(len(text)):  # (the parsed document is freed in there: see _alloc)
            if keep_text:
                model = load(text, opts, diag)
            else:
                # hand the loader the only reference to the text, so that a streaming reader (URDF) frees a
                # large document once it is parsed instead of keeping it through validation
                holder, text = [text], None
                model = load(holder.pop(), opts, diag)
            finish_model(model, opts, diag)
    except ModelError as e:
        raise diag.located(e).with_source(name) from None
    except (ValueError, KeyError, TypeError, IndexError, AttributeError) as e:  # a loader bug, reported plainly
        log.debug("internal error while reading %s", name, exc_info=True)
        raise ModelError(f"internal error while reading the model: {type(e).__name__}: {e}", source=name) from e
    finally:
        if collecting:
            gc.enable()
    if opts.base_dir:  # where relative resources (meshes) are found, for exporters that reference them
        model.metadata.setdefault("source_dir", opts.base_dir)
    model.metadata["source_format"] = fmt.name  # (what an exporter writes of its own, not as the source had it)
    if warnings is not None:
        warnings.extend(diag.warnings)
    return model, text, fmt


def load_model(
    source: str | bytes | os.PathLike,
    format: str | None = None,
    *,
    warnings: list[str] | None = None,
    **options,
) -> Model:
    """Load a model from a file path or from the model text itself.

    `format` is a name from `idyntree_models.formats.FORMATS` (detected when omitted: xacro
    documents are expanded with the xacro package first); options are those of `LoadOptions`
    (e.g. `xacro_args={"prefix": "left_"}`, `strict=True`).  Warnings are logged and, if
    `warnings` is a list, appended to it.  Raises ModelError for anything wrong with the input,
    and with `strict=True` for anything that would have been a warning.
    """
    return _load(source, format, warnings, False, options)[0]


def finish_model(model: Model, opts: LoadOptions, diag: Diagnostics) -> None:
    """Format-independent steps every loaded model goes through, then full validation."""
    from .model.topology import tree_order

    # what the loader handed over is for this model only: taken, so that a Diagnostics used again starts clean
    tree, suspects = diag.tree, diag.inertia_suspects
    diag.tree = diag.inertia_suspects = None
    if tree is None:
        try:
            tree = tree_order(model)  # the first full check of the tree for most formats: with the line
        except ModelError as e:
            raise locate(e, model, diag.source) from None
    if opts.add_sensor_frames_as_additional_frames:  # frames only: the tree stays as it is
        for name in add_sensor_frames(model):
            diag.warn(f"sensor '{name}': no frame added for it because the name is already a link or frame")
    if opts.convert_three_revolute_joints_to_spherical:
        lost: list[str] = []
        folded = fold_three_revolute_joints(model, opts.spherical_joint_tolerance, lost)
        for name in folded:
            log.info("folded three revolute joints into spherical joint '%s'", name)
        for what in lost:
            diag.warn(what)
        if folded:
            tree = suspects = None
    for w in validate(model, source=diag.source, tree=tree, inertia_suspects=suspects):
        diag.warn(w)


def export_model(model: Model, format: str, *, warnings: list[str] | None = None, **options) -> str:
    """Write the model in `format` and return the text; options are those of `ExportOptions`.

    Mesh references are rewritten as `mesh_uri` asks (formats.mesh_uris); elements of the source
    that the output format cannot hold (model.extensions) are named in one warning.
    """
    opts = ExportOptions.from_kwargs(**options)
    fmt = get_format(format)
    dump = dumper(fmt)
    diag = Diagnostics(None, strict=opts.strict)
    validate(model)
    model = rewrite_mesh_uris(model, fmt.name, opts, diag)
    report_lost_extensions(model, fmt.name, diag)
    report_initial_configuration(model, fmt.name, diag)
    report_source_structure(model, fmt.name, diag)
    try:
        text = dump(model, opts, diag)
    except ModelError:
        raise
    except (ValueError, ArithmeticError, KeyError, TypeError, IndexError, AttributeError) as e:  # an exporter bug
        log.debug("internal error while writing %s", fmt.name, exc_info=True)
        raise ModelError(f"internal error while writing {fmt.name}: {type(e).__name__}: {e}") from e
    if warnings is not None:
        warnings.extend(diag.warnings)
    return text


def save_model(model: Model, path: str | os.PathLike, format: str | None = None, *,
               warnings: list[str] | None = None, **options) -> None:
    """Export the model and write it to `path` safely (see `idyntree_models.output`).

    The format is taken from the extension when not given.  The file is replaced atomically
    (through symlinks, keeping its permissions); devices and FIFOs are written directly.  Relative
    mesh references are rebased onto the file's folder unless `output_dir` says otherwise.
    """
    name = os.fspath(path)
    if format is None:
        fmt = format_from_path(name)
        if fmt is None:
            raise ModelError(f"cannot tell the output format from '{name}': give format=")
        format = fmt.name
    options.setdefault("output_dir", os.path.dirname(os.path.abspath(name)))
    write_text(name, export_model(model, format, warnings=warnings, **options))


def convert(
    source: str | bytes | os.PathLike,
    output_format: str,
    input_format: str | None = None,
    *,
    warnings: list[str] | None = None,
    **options,
) -> str:
    """load_model + export_model, splitting the options between parser and exporter."""
    from dataclasses import fields

    export_keys = {f.name for f in fields(ExportOptions)}
    load_keys = {f.name for f in fields(LoadOptions)}
    load_opts = {k: v for k, v in options.items() if k in load_keys or k not in export_keys}
    export_opts = {k: v for k, v in options.items() if k in export_keys}
    model = load_model(source, input_format, warnings=warnings, **load_opts)
    return export_model(model, output_format, warnings=warnings, **export_opts)
