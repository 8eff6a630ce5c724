"""Instructions per load, ours against each row's reference, counted by valgrind's callgrind.

    .venv/bin/python bench/bench_instructions.py [--loads N] [--models icub02,icub04,tiago,skel,sdf] [--floors]

References as in bench_targets.py: the iDynTree wheel's C++ ModelLoader for the URDF rows, dartpy's
SkelParser.readWorld for biped.skel, and our own URDF load of iCubGenova04 for the same model as SDF.

Why a second measure beside bench_targets.py's times: on a shared 2-core machine a load's time moves
by 2x between runs (and between machines, the ratio by 1.2-1.9), while the instructions a load executes
do not depend on the neighbours.  Each side runs in its own process under callgrind twice, with 2 and
with 2 + N loads; the difference divided by N is one load, without the interpreter's start-up, the
imports and the first, warming load.  An instruction of the interpreter is not an instruction of
compiled C++ (Python's take more cache misses and branches each), so the ratio of instructions is
a floor under the ratio of times, not the same number.  Needs valgrind (Debian: valgrind).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_targets import BIPED, ICUB02, ICUB04, TIAGO  # noqa: E402
from idyntree_models import export_model, load_model  # noqa: E402

from common import find_model, table  # noqa: E402

MODELS = {"icub02": ICUB02, "icub04": ICUB04, "tiago": TIAGO, "skel": BIPED, "sdf": ICUB04}
# gc off: a collection's place among the loads (and so its count) moved with the allocations of each run
_RUN = """
import gc, logging, sys
logging.disable(logging.WARNING)
text = open(sys.argv[2]).read()
gc.disable()
if sys.argv[1] == "ours":
    from idyntree_models import load_model
    load = lambda: load_model(text, "urdf")
elif sys.argv[1] == "ours-file":  # (the SKEL and SDF rows load the file, as bench_targets.py does)
    from idyntree_models import load_model
    load = lambda: load_model(sys.argv[2])
elif sys.argv[1] == "dartpy":
    import dartpy
    def load():
        if dartpy.utils.SkelParser.readWorld(sys.argv[2]) is None:
            raise SystemExit("dartpy failed")
elif sys.argv[1] in ("parse", "visit", "numbers"):  # bench_floor.py's floors: no check, no object of the model
    sys.path.insert(0, sys.argv[4])
    from bench_floor import floors
    load = floors(text.encode())[sys.argv[1]]
else:
    import idyntree.swig as idt
    def load():
        if not idt.ModelLoader().loadModelFromString(text):
            raise SystemExit("iDynTree failed")
for _ in range(int(sys.argv[3])):
    load()
"""


def instructions(side: str, path: Path, loads: int) -> int:
    # the ROS wheels' bootstrapper would re-execute the interpreter, which callgrind would not follow
    # (OpenBLAS's idle threads spin for a while after a call: their instructions depended on the timing)
    env = {**os.environ, "_ROS_WHEELS_BOOTSTRAP_COMPLETE": "1", "PYTHONHASHSEED": "0", "OPENBLAS_NUM_THREADS": "1"}
    here = str(Path(__file__).resolve().parent)
    # without address-space randomisation (setarch -R) two runs agree to 0.02%; with it, to ~3% (malloc's paths)
    norandom = ["setarch", "-R"] if shutil.which("setarch") else []
    # -P: the package comes from the environment (PYTHONPATH, the install), never from the current directory, so
    # that PYTHONPATH=<another checkout> counts that checkout wherever this runs
    cmd = [*norandom, "valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, "-P", "-c",
           _RUN, side, str(path), str(loads), here]
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, check=True)
    return int(re.findall(r"Collected : (\d+)", out.stderr)[-1])


def per_load(side: str, path: Path, loads: int) -> float:
    return (instructions(side, path, 2 + loads) - instructions(side, path, 2)) / loads


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--loads", type=int, default=20, help="loads counted per side (besides two warming ones)")
    p.add_argument("--models", default=",".join(MODELS), help="comma-separated: " + ", ".join(MODELS))
    p.add_argument("--floors", action="store_true",
                   help="also count bench_floor.py's floors (parse, visit, numbers: lxml and Python with no model logic)")
    args = p.parse_args()
    sides = (["parse", "visit", "numbers"] if args.floors else []) + ["ours"]
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed (Debian: apt-get install valgrind)")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for key in args.models.split(","):
            path = find_model(MODELS[key])
            if path is None:
                rows.append([key, "model not present", "", ""])
                continue
            path = path.resolve()  # (dartpy reads a relative path as a URI relative to /)
            if key == "skel":
                label, ref = "SKEL biped.skel vs dartpy", per_load("dartpy", path, args.loads)
                counts = [None] * (len(sides) - 1) + [per_load("ours-file", path, args.loads)]
            elif key == "sdf":
                sdf = Path(tmp) / "model.sdf"
                sdf.write_text(export_model(load_model(path), "sdf"))
                label, ref = "SDF iCubGenova04 vs our URDF load", per_load("ours-file", path, args.loads)
                counts = [None] * (len(sides) - 1) + [per_load("ours-file", sdf, args.loads)]
            else:
                label = f"URDF {path.name if key != 'icub04' else 'iCubGenova04'} vs iDynTree"
                ref = per_load("idyntree", path, args.loads)
                counts = [per_load(side, path, args.loads) for side in sides]
            rows.append([label, f"{ref / 1e6:.2f} M"]
                        + [f"{n / 1e6:.2f} M ({n / ref:.2f})" if n is not None else "" for n in counts])
            print(f"[{key}] done", file=sys.stderr)
    print(table(rows, ["load", "reference"] + [f"{s} (ratio)" for s in sides]))
    print(f"\n(callgrind, {args.loads} loads per side after two warming ones)")


if __name__ == "__main__":
    main()
