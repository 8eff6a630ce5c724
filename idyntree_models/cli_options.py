"""Command-line options shared by idyntree-model-convert and idyntree-model-info.

Kept apart from the two commands so that both parse `--keep-joints`, `--lock` and `--q` the same
way and report a bad value the same way (a ModelError, printed as one line).
"""

from __future__ import annotations

import argparse
import math

from .errors import ModelError
from .model.model import Model
from .model.reduce import reduce


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


def reduce_from_args(model: Model, args: argparse.Namespace, warnings: list[str]) -> Model:
    """Apply --keep-joints / --lock when given (--lock alone is an error: nothing would be locked)."""
    if args.keep_joints is None:
        if args.lock:
            raise ModelError("--lock needs --keep-joints (the joints not kept are the ones locked)")
        return model
    keep = [j.strip() for j in args.keep_joints.split(",") if j.strip()]
    return reduce(model, keep, parse_assignments(args.lock, "--lock"), warnings=warnings)


__all__ = ["add_reduce_arguments", "parse_assignments", "reduce_from_args"]
