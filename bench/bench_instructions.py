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

--simulate runs cachegrind instead, with its cache and branch-predictor simulations, and adds what an
instruction costs beyond itself: L1 and last-level cache misses and mispredicted branches (conditional
and indirect), with KCachegrind's cycle estimate CEst = Ir + 10 (branch mispredicts) + 10 (L1 misses)
+ 100 (last-level misses).  The machine has no hardware counters to read (a VM: `perf` lists no cpu
events), so the simulation is the nearest measure of why a time ratio is larger than the instruction
ratio.  Its predictor is simpler than a real core's (which predicts an interpreter's dispatch better),
so the estimate is a model of the gap, not a second clock.
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
elif sys.argv[1] in ("parse", "visit", "numbers", "objects"):  # bench_floor.py's floors: nothing checked
    sys.path.insert(0, sys.argv[4])
    from bench_floor import floors, objects
    data = text.encode()
    load = (lambda: objects(data)) if sys.argv[1] == "objects" else floors(data)[sys.argv[1]]
else:
    import idyntree.swig as idt
    def load():
        if not idt.ModelLoader().loadModelFromString(text):
            raise SystemExit("iDynTree failed")
for _ in range(int(sys.argv[3])):
    load()
"""


# cachegrind's summary, per event: (the line's label, which of its numbers)
_EVENTS = {"Ir": ("I   refs", 0), "I1m": ("I1  misses", 0), "D1m": ("D1  misses", 0), "LLm": ("LL misses", 0),
           "Bc": ("Branches", 1), "Bi": ("Branches", 2), "Bcm": ("Mispredicts", 1), "Bim": ("Mispredicts", 2)}


def counts(side: str, path: Path, loads: int, simulate: bool = False) -> dict[str, int]:
    """What a run of `loads` loads executes: its instructions ("Ir"), and with `simulate` cachegrind's events."""
    # the ROS wheels' bootstrapper would re-execute the interpreter, which callgrind would not follow
    # (OpenBLAS's idle threads spin for a while after a call: their instructions depended on the timing)
    env = {**os.environ, "_ROS_WHEELS_BOOTSTRAP_COMPLETE": "1", "PYTHONHASHSEED": "0", "OPENBLAS_NUM_THREADS": "1"}
    here = str(Path(__file__).resolve().parent)
    # without address-space randomisation (setarch -R) two runs agree to 0.02%; with it, to ~3% (malloc's paths)
    norandom = ["setarch", "-R"] if shutil.which("setarch") else []
    # -P: the package comes from the environment (PYTHONPATH, the install), never from the current directory, so
    # that PYTHONPATH=<another checkout> counts that checkout wherever this runs
    tool = (["--tool=cachegrind", "--cache-sim=yes", "--branch-sim=yes", "--cachegrind-out-file=/dev/null"] if simulate
            else ["--tool=callgrind", "--callgrind-out-file=/dev/null"])
    cmd = [*norandom, "valgrind", *tool, sys.executable, "-P", "-c", _RUN, side, str(path), str(loads), here]
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, check=True)
    if not simulate:
        return {"Ir": int(re.findall(r"Collected : (\d+)", out.stderr)[-1])}
    found = {}
    for event, (label, k) in _EVENTS.items():
        line = re.findall(rf"== {label}:\s*([^\n]*)", out.stderr)[-1]
        found[event] = int(re.findall(r"[\d,]+", line)[k].replace(",", ""))
    return found


def per_load(side: str, path: Path, loads: int, simulate: bool = False) -> dict[str, float]:
    many, few = counts(side, path, 2 + loads, simulate), counts(side, path, 2, simulate)
    return {event: (many[event] - few[event]) / loads for event in many}


def cycle_estimate(c: dict[str, float]) -> float:
    """KCachegrind's CEst (its global bus events are none here)."""
    return c["Ir"] + 10 * (c["Bcm"] + c["Bim"]) + 10 * (c["I1m"] + c["D1m"]) + 100 * c["LLm"]


def simulated_row(label: str, side: str, c: dict[str, float], ref: dict[str, float] | None = None) -> list[str]:
    """One side's events per load (M or k); with `ref`, the ratio to the reference's beside each but the
    last-level misses (too few for one) and the branches."""

    def cell(text: str, f) -> str:
        return text if ref is None else f"{text} ({f(c) / f(ref):.2f})"

    l1 = lambda x: x["I1m"] + x["D1m"]  # noqa: E731
    return [label, side, cell(f"{c['Ir'] / 1e6:.2f}", lambda x: x["Ir"]), cell(f"{l1(c) / 1e3:.0f}", l1),
            f"{c['LLm'] / 1e3:.1f}", f"{c['Bc'] / 1e6:.2f} / {c['Bi'] / 1e6:.2f}",
            cell(f"{c['Bcm'] / 1e3:.0f} / {c['Bim'] / 1e3:.0f}", lambda x: x["Bcm"] + x["Bim"]),
            cell(f"{cycle_estimate(c) / 1e6:.2f}", cycle_estimate)]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--loads", type=int, default=20, help="loads counted per side (besides two warming ones)")
    p.add_argument("--models", default=",".join(MODELS), help="comma-separated: " + ", ".join(MODELS))
    p.add_argument("--floors", action="store_true",
                   help="also count bench_floor.py's floors (parse, visit, numbers: lxml and Python with no model logic; "
                        "objects: the model's objects made with nothing checked)")
    p.add_argument("--simulate", action="store_true",
                   help="cachegrind's cache and branch simulations too, and the cycle estimate they give")
    args = p.parse_args()
    sides = (["parse", "visit", "numbers", "objects"] if args.floors else []) + ["ours"]
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed (Debian: apt-get install valgrind)")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for key in args.models.split(","):
            path = find_model(MODELS[key])
            if path is None:
                rows.append([key, "model not present"] + [""] * (6 if args.simulate else len(sides)))
                continue
            path = path.resolve()  # (dartpy reads a relative path as a URI relative to /)
            count = lambda side, file: per_load(side, file, args.loads, args.simulate)  # noqa: E731
            if key == "skel":
                label, ref_name, ref = "SKEL biped.skel vs dartpy", "dartpy", count("dartpy", path)
                found = {"ours": count("ours-file", path)}
            elif key == "sdf":
                sdf = Path(tmp) / "model.sdf"
                sdf.write_text(export_model(load_model(path), "sdf"))
                label, ref_name, ref = "SDF iCubGenova04 vs our URDF load", "ours, URDF", count("ours-file", path)
                found = {"ours": count("ours-file", sdf)}
            else:
                label = f"URDF {path.name if key != 'icub04' else 'iCubGenova04'} vs iDynTree"
                ref_name, ref = "iDynTree", count("idyntree", path)
                found = {side: count(side, path) for side in sides}
            if args.simulate:
                rows.append(simulated_row(label, ref_name, ref))
                rows += [simulated_row("", side, c, ref) for side, c in found.items()]
            else:
                rows.append([label, f"{ref['Ir'] / 1e6:.2f} M"] + [
                    f"{found[side]['Ir'] / 1e6:.2f} M ({found[side]['Ir'] / ref['Ir']:.2f})" if side in found else ""
                    for side in sides])
            print(f"[{key}] done", file=sys.stderr)
    if args.simulate:
        print(table(rows, ["load", "side", "instructions M (ratio)", "L1 misses k (ratio)", "LL misses k",
                           "branches M (cond / indirect)", "mispredicts k (cond / indirect) (ratio)",
                           "cycle estimate M (ratio)"]))
        print(f"\n(cachegrind with its cache and branch simulations, {args.loads} loads per side after two warming "
              "ones; CEst = Ir + 10 mispredicts + 10 L1 misses + 100 LL misses)")
    else:
        print(table(rows, ["load", "reference"] + [f"{s} (ratio)" for s in sides]))
        print(f"\n(callgrind, {args.loads} loads per side after two warming ones)")


if __name__ == "__main__":
    main()
