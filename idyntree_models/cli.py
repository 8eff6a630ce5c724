"""idyntree-model-convert: convert robot models between formats from the command line."""

from __future__ import annotations

import argparse
import logging
import os
import sys

from .api import export_model, load_model
from .cli_options import (
    HelpFormatter,
    add_reduce_arguments,
    add_xacro_and_strict_arguments,
    exit_process,
    input_name,
    load_options_from_args,
    read_stdin,
    reduce_from_args,
    setup_logging,
    write_stdout,
)
from .errors import ModelError, one_line
from .formats import FORMATS, detect_format, format_from_path, output_format
from .formats.base import FREE_BODIES, decode_utf8
from .output import Interrupted, signals_raise, write_text

log = logging.getLogger("idyntree_models")


def build_parser() -> argparse.ArgumentParser:
    names = ", ".join(FORMATS)
    written = ", ".join(name for name, f in FORMATS.items() if f.writes)
    extensions = ", ".join("/".join(f.extensions) for f in FORMATS.values())
    p = argparse.ArgumentParser(
        formatter_class=HelpFormatter,
        prog="idyntree-model-convert",
        description=f"Convert robot models between formats (read: {names}; written: {written}). "
        f"Formats are detected from the file extension ({extensions}) or, for standard input, from the content.",
    )
    p.add_argument("-i", "--input", required=True, help="input file, or - for standard input")
    p.add_argument("-o", "--output", required=True, help="output file, or - for standard output")
    p.add_argument("--input-format", help=f"input format ({names})")
    p.add_argument("--output-format", help=f"output format ({written})")
    p.add_argument(
        "--convert-three-revolute-joints-to-spherical",
        action="store_true",
        help="fold chains of three revolute joints with intersecting perpendicular axes into spherical joints",
    )
    p.add_argument("--no-sensor-frames", action="store_true", help="do not add a frame for each sensor")
    p.add_argument(
        "--no-export-spherical-joints-as-three-revolute-joints",
        action="store_true",
        help="refuse to write spherical joints as three revolute joints (URDF has no spherical joint)",
    )
    p.add_argument("--model", help="SDF world: the model to load (default: the first)")
    p.add_argument("--skeleton", help="SKEL world: the skeleton to load (default: the first)")
    p.add_argument(
        "--model-path",
        action="append",
        default=[],
        metavar="DIR",
        help="extra directory to search for model:// URIs (repeatable; SDF_PATH and GZ_SIM_RESOURCE_PATH are used too)",
    )
    p.add_argument("--mjcf-free-joint", action="store_true",
                   help="MJCF output: give the base body a free joint (floating base) instead of welding it to the world")
    add_reduce_arguments(p)
    add_xacro_and_strict_arguments(p)
    p.add_argument(
        "--mesh-uri",
        choices=("keep", "absolute", "package", "model"),
        help="how mesh references are written: keep (as read), absolute (file:// paths), package (package://), "
        "model (model://); without it, references are kept, except that SDF output writes package:// as model://, "
        "as libsdformat does; relative paths are always rebased onto the output's folder",
    )
    p.add_argument(
        "--resolve-mesh-uris",
        action="store_true",
        help="look every mesh file up (package:// through the ament index and ROS_PACKAGE_PATH, model:// through "
        "the model paths) and warn about missing ones",
    )
    p.add_argument(
        "--free-bodies",
        choices=FREE_BODIES,
        default="chain",
        help="free bodies (SDF links joined to no joint, MJCF bodies with a free joint beside others in the world): "
        "'chain' joins each to the base by three prismatic and three revolute joints (default), 'error' refuses "
        "the model",
    )
    p.add_argument(
        "--allow-include-outside",
        action="append",
        default=[],
        metavar="DIR",
        help="also read files a model refers to (SDF includes, SKEL meshes) under DIR (repeatable); by default "
        "only the model file's own directory tree and the model search paths are read",
    )
    p.add_argument("-q", "--quiet", action="store_true", help="do not print warnings")
    return p


def _output_format(args) -> str:
    if args.output_format:
        return output_format(args.output_format).name
    if args.output != "-":
        fmt = format_from_path(args.output)
        if fmt is not None:
            return output_format(fmt).name
        raise ModelError(f"cannot tell the output format from '{args.output}': give --output-format")
    raise ModelError("writing to standard output needs --output-format")


def run(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    setup_logging(args.quiet)
    try:
        with signals_raise():
            _convert(args)
    except ModelError as e:
        print(f"idyntree-model-convert: error: {one_line(str(e))}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except Interrupted as e:
        return 128 + e.signum
    except Exception as e:  # last resort: one line, never a traceback
        print(f"idyntree-model-convert: internal error: {one_line(f'{type(e).__name__}: {e}')}", file=sys.stderr)
        return 3
    return 0


def _convert(args) -> None:
    warnings: list[str] = []
    out_format = _output_format(args)
    if args.input != "-" and args.output != "-" and _same_file(args.input, args.output):
        raise ModelError("the output is the input file: write the conversion to another file (replacing the "
                         "source would lose what the model does not hold, such as its comments)", source=args.output)
    options = {**load_options_from_args(args), "free_bodies": args.free_bodies,
               "allow_include_outside": tuple(args.allow_include_outside)}
    if args.input == "-":
        text = read_stdin()
        if args.input_format is None:
            decoded = decode_utf8(text, "<stdin>")  # (not UTF-8 is said as for a file, before guessing a format)
            if not decoded.strip():
                raise ModelError("the model is empty", source="<stdin>")
            try:
                detect_format(decoded)
            except ModelError as e:
                raise ModelError(f"{e.message}; give --input-format", source="<stdin>") from None
        try:
            model = load_model(text, args.input_format, warnings=warnings, **options)
        except ModelError as e:
            raise e.with_source("<stdin>") from None
    else:
        model = load_model(os.fspath(args.input), args.input_format, warnings=warnings, **options)
    model = reduce_from_args(model, args, warnings, input_name(args.input))
    try:
        text = export_model(
            model,
            out_format,
            warnings=warnings,
            export_spherical_joints_as_three_revolute_joints=not args.no_export_spherical_joints_as_three_revolute_joints,
            mjcf_free_joint=args.mjcf_free_joint,
            mesh_uri=args.mesh_uri,
            resolve_mesh_uris=args.resolve_mesh_uris,
            output_dir=None if args.output == "-" else os.path.dirname(os.path.abspath(args.output)),
            search_paths=tuple(args.model_path),
            strict=args.strict,
        )
    except ModelError as e:  # (what the model read from the input cannot be written: say which input)
        if e.source is None:
            e.message = f"cannot be written as {out_format}: {e.element + ': ' if e.element else ''}{e.message}"
            e.element = None
            e.with_source(input_name(args.input))
        raise
    if args.output == "-":
        write_stdout(text)
    else:
        write_text(args.output, text)


def _same_file(a, b) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:  # (an output that does not exist yet, an input that does not: the load says so)
        return False


def main() -> None:
    exit_process(run())


if __name__ == "__main__":
    main()
