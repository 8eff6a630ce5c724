"""idyntree-model-info: what a robot model contains, for any input format.

Prints the name, base link, counts, total mass, centre of mass and inertia about it, the joint,
sensor and frame tables, and with `--frame` the pose of frames in the base frame at the
configuration given by `--q`; `--json` prints the same data as JSON; `--graph` draws the
kinematic tree (DOT written here, SVG/PNG/PDF through Graphviz's `dot`).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from .api import load_model
from .cli_options import (
    HelpFormatter,
    add_load_arguments,
    add_reduce_arguments,
    exit_process,
    input_name,
    load_options_from_args,
    parse_assignments,
    read_stdin,
    reduce_from_args,
    setup_logging,
    write_stdout,
)
from .errors import ModelError, one_line
from .model.graph import to_dot
from .model.info import model_info
from .output import write_bytes, write_text

PROG = "idyntree-model-info"
GRAPH_FORMATS = {".dot": None, ".gv": None, ".svg": "svg", ".png": "png", ".pdf": "pdf"}


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        formatter_class=HelpFormatter,
        prog=PROG,
        allow_abbrev=False,
        description="Show what a robot model contains (URDF, SDFormat, iDynTree model JSON, SKEL, MJCF).",
    )
    p.add_argument("path", metavar="MODEL", nargs="?", help="model file, or - for standard input")
    p.add_argument("--frame", action="append", default=[], metavar="F",
                   help="print the pose of frame F (link or additional frame) in the base frame (repeatable)")
    p.add_argument("--q", action="extend", nargs="+", default=[], metavar="JOINT=VALUE",
                   help="joint positions for poses and mass properties (default 0; spherical: w,x,y,z)")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.add_argument("--graph", metavar="OUT", help="draw the kinematic tree to OUT.dot, .gv, .svg, .png or .pdf "
                   "(all but DOT need Graphviz's dot program)")
    add_load_arguments(p)
    add_reduce_arguments(p)
    p.add_argument("-q", "--quiet", action="store_true", help="do not print warnings")
    return p


def _fmt(x) -> str:
    return "-" if x is None else f"{x:.9g}"


def _vec(v) -> str:
    return " ".join(f"{x + 0.0:.9g}" for x in v)


def _table(headers: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)]
    out = ["  " + "  ".join(h.ljust(w) for h, w in zip(headers, widths)).rstrip()]
    out += ["  " + "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    return out


def format_text(info: dict) -> str:
    lines = [
        f"model '{info['name']}', base link '{info['base_link']}'",
        f"  {info['n_links']} links, {info['n_frames']} additional frames, {info['n_joints']} joints "
        f"({info['n_dofs']} DOF), {info['n_sensors']} sensors",
    ]
    if info["total_mass"] is None:
        lines.append("  mass properties: not finite in a double (masses and distances beyond 1.8e308)")
    else:
        lines += [f"  total mass: {info['total_mass']:.9g} kg",
                  f"  centre of mass in the base frame: {_vec(info['center_of_mass'])} m",
                  "  inertia about the centre of mass, base frame axes (kg m^2):"]
        lines += ["    " + _vec(row) for row in info["inertia_about_com"]]
    if info["configuration"]:
        lines.append("  at configuration: " + ", ".join(f"{k}={v}" for k, v in info["configuration"].items()))
    lines.append("")
    lines.append(f"joints ({info['n_joints']}):")
    rows = [[j["name"], j["type"], f"{j['parent']} -> {j['child']}", _vec(j["axis"]) if j["axis"] else "-",
             _fmt(j["lower"]), _fmt(j["upper"]), _fmt(j["effort"]), _fmt(j["velocity"]),
             f"{j['mimic']['joint']}" if j["mimic"] else ""] for j in info["joints"]]
    lines += _table(["name", "type", "parent -> child", "axis", "lower", "upper", "effort", "velocity", "mimics"], rows)
    lines.append("")
    lines.append(f"sensors ({info['n_sensors']}):")
    rows = [[s["name"], s["type"] + (f" ({s['subtype']})" if s.get("subtype") else ""),
             f"joint {s['joint']} ({s['first_link']} -> {s['second_link']}, {s['measure_direction']})" if "joint" in s
             else f"link {s.get('link', '?')}"] for s in info["sensors"]]
    lines += _table(["name", "type", "on"], rows)
    lines.append("")
    lines.append(f"additional frames ({info['n_frames']}):")
    lines += _table(["name", "parent link"], [[f["name"], f["parent"]] for f in info["frames"]])
    for name, pose in info["frame_poses"].items():
        lines.append("")
        lines.append(f"pose of '{name}' in '{pose['relative_to']}':")
        lines.append(f"  xyz {_vec(pose['xyz'])}")
        lines.append(f"  rpy {_vec(pose['rpy'])}")
        lines.append(f"  quaternion (w x y z) {_vec(pose['quaternion_wxyz'])}")
        lines += ["  " + _vec(row) for row in pose["matrix"]]
    return "\n".join(lines) + "\n"


def write_graph(model, out: str) -> str:
    """Write the DOT file, or render it with Graphviz; return a line saying what was written."""
    ext = Path(out).suffix.lower()
    if ext not in GRAPH_FORMATS:
        raise ModelError(f"--graph: cannot tell the picture format from '{out}' (use .dot, .gv, .svg, .png or .pdf)")
    dot_text = to_dot(model)
    fmt = GRAPH_FORMATS[ext]
    if fmt is None:
        write_text(out, dot_text)
        return f"wrote {out} (Graphviz DOT)"
    dot = shutil.which("dot")
    if dot is None:
        raise ModelError(
            f"--graph {out}: Graphviz's 'dot' program is not installed, so no {fmt.upper()} can be drawn "
            "(install Graphviz, e.g. apt-get install graphviz, or write a .dot file instead)"
        )
    done = subprocess.run([dot, f"-T{fmt}"], input=dot_text.encode("utf-8"), capture_output=True, timeout=300)
    if done.returncode != 0:
        raise ModelError(f"--graph {out}: dot failed: {done.stderr.decode(errors='replace').strip()}")
    write_bytes(out, done.stdout)
    return f"wrote {out} (drawn by {dot})"


def _parse(argv: list[str] | None) -> argparse.Namespace:
    p = build_parser()
    args = p.parse_args(argv)
    last = args.q[-1] if args.q else ""
    if args.path is None and last and ("=" not in last or last == "-" or os.path.exists(last)):
        # `--q j=1 model.urdf`: --q took the model too
        args.path = args.q.pop()
    if args.path is None:
        p.error("the following arguments are required: MODEL")
    return args


def run(argv: list[str] | None = None) -> int:
    args = _parse(argv)
    setup_logging(args.quiet)
    warnings: list[str] = []
    try:
        options = load_options_from_args(args)
        if args.path == "-":
            try:
                model = load_model(read_stdin(), args.input_format, warnings=warnings, **options)
            except ModelError as e:
                raise e.with_source("<stdin>") from None
        else:
            model = load_model(os.fspath(args.path), args.input_format, warnings=warnings, **options)
        model = reduce_from_args(model, args, warnings, input_name(args.path))
        config = parse_assignments(args.q, "--q")
        info = model_info(model, config, args.frame)
        if args.graph:
            print(f"{PROG}: {write_graph(model, args.graph)}", file=sys.stderr)
        write_stdout(json.dumps(info, indent=1, allow_nan=False) + "\n" if args.json else format_text(info),  # (no NaN)
                     reader_may_stop=True)
    except ModelError as e:
        print(f"{PROG}: error: {one_line(str(e))}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except Exception as e:  # last resort: one line, never a traceback
        print(f"{PROG}: internal error: {one_line(f'{type(e).__name__}: {e}')}", file=sys.stderr)
        return 3
    return 0


def main() -> None:
    exit_process(run())


if __name__ == "__main__":
    main()
