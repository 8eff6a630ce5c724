"""The library's front door: load a model from any format, export it to any format."""

from __future__ import annotations

import logging
import os
from pathlib import Path

from .errors import ModelError
from .formats import Format, detect_format, dumper, format_from_path, get_format, loader
from .formats.base import Diagnostics, ExportOptions, LoadOptions
from .formats.mesh_uris import report_lost_extensions, rewrite_mesh_uris
from .formats.xacro import expand as expand_xacro
from .formats.xacro import uses_xacro
from .model.model import Model
from .model.spherical import add_sensor_frames, fold_three_revolute_joints
from .model.validation import validate

log = logging.getLogger("idyntree_models")


def _looks_like_text(s: str) -> bool:
    head = s.lstrip("\ufeff \t\r\n")[:1]
    return head in ("<", "{") or "\n" in s


def _read_text(source: str | bytes | os.PathLike) -> tuple[str, str | None]:
    """(text, file name for messages) of a path or of a model given as text."""
    name: str | None = None
    if isinstance(source, bytes):
        try:
            text = source.decode("utf-8-sig")
        except UnicodeDecodeError as e:
            raise ModelError(f"the model is not UTF-8 text ({e.reason} at byte {e.start})") from None
    elif isinstance(source, os.PathLike) or (isinstance(source, str) and not _looks_like_text(source)):
        path = Path(source)
        name = str(path)
        if not path.is_file():
            raise ModelError("no such file" if not path.exists() else "not a regular file", source=name)
        try:
            text = path.read_bytes().decode("utf-8-sig")
        except UnicodeDecodeError as e:
            raise ModelError(f"the file is not UTF-8 text ({e.reason} at byte {e.start})", source=name) from None
        except OSError as e:
            raise ModelError(f"cannot read the file: {e.strerror}", source=name) from None
    else:
        text = str(source)
    if not text.strip():
        raise ModelError("the model is empty", source=name)
    return text, name


def _format_of(text: str, name: str | None, format: str | None, diag: Diagnostics, opts: LoadOptions) -> tuple[str, Format]:
    """The format to read `text` with; xacro documents are expanded here, so the text returned is the model."""
    if format:
        fmt = get_format(format)
    else:
        fmt = (format_from_path(name) if name else None) or detect_format(text)
        if fmt.name != "xacro" and fmt.name != "idyntree-model-json" and uses_xacro(text):
            fmt = get_format("xacro")  # e.g. a robot.urdf that is really xacro: what its users run xacro on
    if fmt.name != "xacro":
        return text, fmt
    if not opts.allow_xacro:
        raise ModelError(
            "xacro documents are expanded only from files here (xacro's $(eval) runs Python code, and "
            "include reads files): expand it with xacro first, or load the file itself", source=name)
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
    text, name = _read_text(source)
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
    opts = LoadOptions.from_kwargs(**options)
    text, name = _read_text(source)
    diag = Diagnostics(name, strict=opts.strict)
    if name and opts.base_dir is None:
        opts.base_dir = str(Path(name).resolve().parent)
    try:
        text, fmt = _format_of(text, name, format, diag, opts)
        load = loader(fmt)
        model = load(text, opts, diag)
        finish_model(model, opts, diag)
    except ModelError as e:
        raise e.with_source(name) from None
    except (ValueError, KeyError, TypeError, IndexError, AttributeError) as e:  # a loader bug, reported plainly
        log.debug("internal error while reading %s", name, exc_info=True)
        raise ModelError(f"internal error while reading the model: {type(e).__name__}: {e}", source=name) from e
    if opts.base_dir:  # where relative resources (meshes) are found, for exporters that reference them
        model.metadata.setdefault("source_dir", opts.base_dir)
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
    return load_description(source, format, warnings=warnings, **options)[0]


def finish_model(model: Model, opts: LoadOptions, diag: Diagnostics) -> None:
    """Format-independent steps every loaded model goes through, then full validation."""
    from .model.topology import tree_order

    tree_order(model)
    if opts.add_sensor_frames_as_additional_frames:
        for name in add_sensor_frames(model):
            diag.warn(f"sensor '{name}': no frame added for it because the name is already a link or frame")
    if opts.convert_three_revolute_joints_to_spherical:
        for name in fold_three_revolute_joints(model, opts.spherical_joint_tolerance):
            log.info("folded three revolute joints into spherical joint '%s'", name)
    for w in validate(model, source=diag.source):
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
    text = dump(model, opts, diag)
    if warnings is not None:
        warnings.extend(diag.warnings)
    return text


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
