"""Huge models: load time and peak memory, each case in a fresh process.

    .venv/bin/python bench/bench_scale.py [--sizes 10000,30000,100000] [--formats urdf,json,skel]

URDF: synthetic trees (bench/common.py); JSON: our export of the same tree; SKEL: a serial chain of
revolute joints (the shape that made the old cycle check quadratic).  Peak memory is the child's
peak resident set size (Linux VmHWM), which includes the interpreter and numpy (~60 MB); CPU
time is shown next to wall time because the machine is shared.
Targets (issue 11): a 100,000-link URDF in under 5 s and 500 MB; SKEL linear in the number of bodies.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from common import synthetic_urdf, table  # noqa: E402

# Peak memory is the child's VmHWM (its address space's high-water mark, new at exec): getrusage's
# ru_maxrss starts from the parent's at fork, and this parent holds the big models it writes.
_CHILD = r"""
import json, sys, time
from idyntree_models import load_model
import logging
logging.disable(logging.WARNING)

def hwm_mb():
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmHWM:")) / 1024

path = sys.argv[1]
base = hwm_mb()
t, c = time.perf_counter(), time.process_time()
model = load_model(path)
seconds, cpu = time.perf_counter() - t, time.process_time() - c
print(json.dumps({"seconds": seconds, "cpu": cpu, "peak_mb": hwm_mb(), "start_mb": base, "links": len(model.links),
                  "joints": len(model.joints)}))
"""


def skel_chain(n: int) -> str:
    bodies, joints = [], []
    for i in range(n):
        bodies.append(f'<body name="b{i}"><transformation>0 0 {0.1 * i:.1f} 0 0 0</transformation><inertia><mass>1</mass>'
                      "<moment_of_inertia><ixx>0.1</ixx><iyy>0.1</iyy><izz>0.1</izz><ixy>0</ixy><ixz>0</ixz><iyz>0</iyz>"
                      "</moment_of_inertia></inertia></body>")
        parent = "world" if i == 0 else f"b{i - 1}"
        joints.append(f'<joint type="revolute" name="j{i}"><parent>{parent}</parent><child>b{i}</child>'
                      "<axis><xyz>1 0 0</xyz></axis></joint>")
    return ('<skel version="1.0"><world name="w"><skeleton name="chain">' + "".join(bodies) + "".join(joints)
            + "</skeleton></world></skel>")


def measure(path: Path) -> dict:
    out = subprocess.run([sys.executable, "-c", _CHILD, str(path)], capture_output=True, text=True, check=True,
                         cwd=REPO, timeout=3600)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,30000,100000")
    parser.add_argument("--formats", default="urdf,json,skel")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in (int(s) for s in args.sizes.split(",")):
            for fmt in args.formats.split(","):
                if fmt == "urdf":
                    path = Path(tmp) / f"tree{n}.urdf"
                    path.write_text(synthetic_urdf(n))
                elif fmt == "json":
                    from idyntree_models import export_model, load_model

                    path = Path(tmp) / f"tree{n}.json"
                    path.write_text(export_model(load_model(synthetic_urdf(n), "urdf"), "json"))
                else:
                    path = Path(tmp) / f"chain{n}.skel"
                    path.write_text(skel_chain(n))
                r = measure(path)
                rows.append([fmt, n, f"{path.stat().st_size / 1e6:.1f}", r["links"], f"{r['seconds']:.2f}", f"{r['cpu']:.2f}",
                             f"{r['peak_mb']:.0f}", f"{r['peak_mb'] - r['start_mb']:.0f}"])
                print(f"{fmt} {n}: {r['seconds']:.2f} s, peak {r['peak_mb']:.0f} MB", file=sys.stderr, flush=True)
    print(table(rows, ["format", "links in file", "MB", "model links", "load s", "CPU s", "peak RSS MB", "growth MB"]))


if __name__ == "__main__":
    main()
