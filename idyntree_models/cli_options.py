"""Command-line options shared by idyntree-model-convert and idyntree-model-info.

Kept apart from the two commands so that both parse `--keep-joints`, `--lock` and `--q` the same
way and report a bad value the same way (a ModelError, printed as one line).
"""

from __future__ import annotations

import argparse
import logging
import math
import os
import sys
from typing import NoReturn

from .errors import ModelError, one_line
from .formats.base import MAX_FILE_BYTES
from .model.model import Model


class HelpFormatter(argparse.HelpFormatter):
    """argparse's, given the terminal width as shutil.get_terminal_size finds it: argparse imports
    shutil for that when a parser is built (3 ms of the converter's start-up, and bz2 and lzma with it)."""

    def __init__(self, prog: str, **kwargs) -> None:
        kwargs.setdefault("width", _columns() - 2)
        super().__init__(prog, **kwargs)


def _columns() -> int:
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns if columns > 0 else 80


def add_load_arguments(p: argparse.ArgumentParser) -> None:
    """Parser options of every command that reads a model (idyntree-model-convert spells out the same ones)."""
    p.add_argument("--input-format", help="input format (default: from the extension or the content)")
    p.add_argument(
        "--convert-three-revolute-joints-to-spherical",
        action="store_true",
        help="fold chains of three revolute joints with intersecting perpendicular axes into spherical joints",
    )
    p.add_argument("--no-sensor-frames", action="store_true", help="do not add a frame for each sensor")
    p.add_argument("--model", help="SDF world: the model to load (default: the first)")
    p.add_argument("--skeleton", help="SKEL world: the skeleton to load (default: the first)")
    p.add_argument("--model-path", action="append", default=[], metavar="DIR",
                   help="extra directory to search for model:// URIs (repeatable)")
    add_xacro_and_strict_arguments(p)


def add_xacro_and_strict_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--xacro-arg", action="append", default=[], metavar="NAME:=VALUE",
                   help="argument of a xacro input (as NAME:=VALUE on xacro's command line; repeatable)")
    p.add_argument("--strict", action="store_true", help="treat every warning as an error")


def xacro_args(items: list[str]) -> dict[str, str]:
    """--xacro-arg NAME:=VALUE strings as a dict; ModelError naming a malformed one."""
    out: dict[str, str] = {}
    for item in items:
        name, sep, value = item.partition(":=")
        if not sep or not name.strip():
            raise ModelError(f"--xacro-arg needs NAME:=VALUE, got '{item}'")
        out[name.strip()] = value
    return out


def load_options_from_args(args: argparse.Namespace) -> dict:
    return {
        "convert_three_revolute_joints_to_spherical": args.convert_three_revolute_joints_to_spherical,
        "add_sensor_frames_as_additional_frames": not args.no_sensor_frames,
        "model": args.model,
        "skeleton": args.skeleton,
        "search_paths": tuple(args.model_path),
        "xacro_args": xacro_args(args.xacro_arg),
        "strict": args.strict,
    }


def add_reduce_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--keep-joints",
        metavar="J1,J2,...",
        help="reduced model: keep only these joints (comma-separated); the others are locked and each rigid group "
        "of links is lumped into one link, as iDynTree's loadReducedModelFromFile",
    )
    p.add_argument(
        "--lock",
        action="append",
        default=[],
        metavar="JOINT=VALUE",
        help="with --keep-joints: the position of a locked joint (repeatable; default 0; a spherical joint takes "
        "a quaternion w,x,y,z)",
    )


def parse_assignments(items: list[str], option: str) -> dict[str, object]:
    """`JOINT=VALUE` strings to {joint: float or [w, x, y, z]}; ModelError naming a bad one."""
    out: dict[str, object] = {}
    for item in items:
        name, sep, raw = item.partition("=")
        name = name.strip()
        if not sep or not name or not raw.strip():
            raise ModelError(f"{option} takes JOINT=VALUE, got '{item}'")
        try:
            values = [float(v) for v in raw.replace(",", " ").split()]
        except ValueError:
            raise ModelError(f"{option} {item}: the value must be a number (or four, w,x,y,z)") from None
        if not all(math.isfinite(v) for v in values) or len(values) not in (1, 4):
            raise ModelError(f"{option} {item}: the value must be one finite number, or four (w,x,y,z)")
        out[name] = values[0] if len(values) == 1 else values
    return out


def reduce_from_args(model: Model, args: argparse.Namespace, warnings: list[str], source: str | None = None) -> Model:
    """Apply --keep-joints / --lock when given (--lock alone is an error: nothing would be locked).

    `source` names the input in an error about its joints (an unknown one, a lock outside limits under --strict)."""
    if args.keep_joints is None:
        if args.lock:
            raise ModelError("--lock needs --keep-joints (the joints not kept are the ones locked)")
        return model
    from .model.reduce import reduce  # only reduced models pay for reduction and kinematics

    keep = [j.strip() for j in args.keep_joints.split(",") if j.strip()]
    locked = parse_assignments(args.lock, "--lock")
    try:
        return reduce(model, keep, locked, warnings=warnings, strict=args.strict)
    except ModelError as e:
        raise e.with_source(source) from None


class _OneLineFormatter(logging.Formatter):
    """Warnings on stderr, one line each, whatever the names in them hold."""

    def format(self, record: logging.LogRecord) -> str:
        return one_line(super().format(record))


def setup_logging(quiet: bool) -> None:
    """Warnings (the library's and Python's own, numpy's say) to stderr, one line each."""
    handler = logging.StreamHandler()
    handler.setFormatter(_OneLineFormatter("%(levelname)s: %(message)s"))
    logging.basicConfig(level=logging.ERROR if quiet else logging.WARNING, handlers=[handler], force=True)
    logging.captureWarnings(True)


def input_name(path: str) -> str:
    """How messages name a command's model: its file, or <stdin> for `-`."""
    return "<stdin>" if path == "-" else os.fspath(path)


def read_stdin() -> bytes:
    """The model on standard input, at most a model's size; a closed one is said, not an internal error."""
    if sys.stdin is None:
        raise ModelError("standard input is closed: give the model as a file", source="<stdin>")
    try:
        text = sys.stdin.buffer.read(MAX_FILE_BYTES + 1)
    except OSError as e:
        raise ModelError(f"cannot read the model: {e.strerror or e}", source="<stdin>") from None
    if len(text) > MAX_FILE_BYTES:
        raise ModelError(f"the model has more than the {MAX_FILE_BYTES} bytes a model may have", source="<stdin>")
    return text


def write_stdout(text: str, *, reader_may_stop: bool = False) -> None:
    """`reader_may_stop`: a reader that closes the pipe early (`| head`) has what it wanted, so BrokenPipeError is
    raised as it is, for the command to end quietly; a model cut short is an error."""
    if sys.stdout is None:
        raise ModelError("cannot write the output: standard output is closed", source="<stdout>")
    try:
        sys.stdout.buffer.write(text.encode("utf-8"))
        sys.stdout.flush()
    except BrokenPipeError:
        if not reader_may_stop:
            raise ModelError("cannot write the output: the reader closed the pipe", source="<stdout>") from None
        raise
    except OSError as e:
        raise ModelError(f"cannot write the output: {e.strerror or e}", source="<stdout>") from None


def exit_process(code: int) -> NoReturn:
    """End a command's process at once, once its output is out.

    The interpreter's orderly teardown (freeing numpy's, lxml's and the model's objects one by one)
    took 40 ms, a sixth of converting iCubGenova02, for nothing a command needs: the output file
    is written and fsynced by then, and the streams and log handlers are flushed here.  Only the
    console entry points call this; `run()` returns its code to in-process callers.
    """
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        if stream is None:  # (closed when the command started: nothing was written there)
            continue
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe: nothing more can be said there
            code = code or 1
    os._exit(code)


__all__ = ["add_load_arguments", "add_reduce_arguments", "exit_process", "load_options_from_args", "parse_assignments",
           "reduce_from_args"]
