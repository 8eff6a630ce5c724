"""The performance targets (issue 13), each measured against its reference in the same run.

    .venv/bin/python bench/bench_targets.py [--repeat N] [--skip-idyntree-10000]

Ours and the reference are timed alternately (machine load hits both alike); each row prints the
medians, ratio = ours / reference (for batched kinematics: one call / per-configuration cost in a
batch, the gain) and the target.  References: the iDynTree wheel's C++ ModelLoader, dartpy's
SkelParser, a bare `python -c "import numpy, lxml.etree"` process in the same venv, and for SDF
our own URDF load of the same model.  Models come from ../shared/models, else the vendored copy;
a row whose model is missing says so.
"""

from __future__ import annotations

import argparse
import gc
import logging
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import dartpy  # noqa: E402
import idyntree.swig as idt  # noqa: E402

from idyntree_models import Kinematics, export_model, load_model  # noqa: E402

from common import find_model, paired_ms, synthetic_urdf  # noqa: E402

logging.disable(logging.WARNING)
BIN = Path(sys.executable).parent
ICUB02 = "urdf/idyntree/iCubGenova02.urdf"
ICUB04 = "urdf/icub-models/iCubGenova04/model.urdf"  # ergoCubSN000 is not in the corpus: its closest relative
TIAGO = "urdf/example-robot-data/robots/tiago_description/robots/tiago_dual.urdf"
BIPED = "skel/dart/biped.skel"


def idyntree_load(text: str) -> None:
    if not idt.ModelLoader().loadModelFromString(text):
        raise RuntimeError("iDynTree failed")


def urdf_rows(repeat: int) -> list[list[str]]:
    rows = []
    for label, rel in (("iCubGenova02", ICUB02), ("iCubGenova04 (for ergoCubSN000)", ICUB04), ("tiago_dual", TIAGO),
                       ("synthetic 1000-link tree", None)):
        path = find_model(rel) if rel else None
        if rel and path is None:
            rows.append([f"URDF load {label}", "model not present", "", "", "<= 1.0", ""])
            continue
        text = path.read_text() if path else synthetic_urdf(1000)
        ours, ref = paired_ms(lambda: load_model(text, "urdf"), lambda: idyntree_load(text), repeat)
        rows.append(_row(f"URDF load {label}", ours, f"iDynTree C++ {ref:.2f} ms", ours / ref, 1.0))
    return rows


def big_tree_row(skip_reference: bool) -> list[list[str]]:
    text = synthetic_urdf(10000)
    times = []
    for _ in range(3):
        gc.collect()
        t = time.perf_counter()
        load_model(text, "urdf")
        times.append(time.perf_counter() - t)
    gc.collect()
    tracemalloc.start()
    model = load_model(text, "urdf")
    gc.collect()
    retained = tracemalloc.get_traced_memory()[0] / 2**20
    tracemalloc.stop()
    del model
    ref = "not run"
    if not skip_reference:
        t = time.perf_counter()
        idyntree_load(text)
        ref = f"iDynTree C++ {time.perf_counter() - t:.2f} s"
    ours = statistics.median(times)
    met = ours <= 0.5 and retained <= 25.0
    return [["URDF load synthetic 10000-link tree", f"{ours:.3f} s, {retained:.1f} MiB retained", ref, "",
             "<= 0.5 s, <= 25 MiB", "yes" if met else "no"]]


def cli_row(repeat: int) -> list[list[str]]:
    # the bytecode as set-up leaves it: a source changed since (a checkout) with PYTHONDONTWRITEBYTECODE set made
    # every run compile urdf.py and xmlutil.py again, 15 ms of a 110 ms process (only what is stale is compiled)
    import compileall

    compileall.compile_dir(Path(__file__).resolve().parent.parent / "idyntree_models", quiet=1)
    src = find_model(ICUB02)
    with tempfile.TemporaryDirectory() as d:
        convert = [str(BIN / "idyntree-model-convert"), "-i", str(src), "-o", str(Path(d) / "out.urdf"), "-q"]
        bare = [str(BIN / "python"), "-c", "import numpy, lxml.etree"]
        ours, ref = paired_ms(lambda: subprocess.run(convert, check=True), lambda: subprocess.run(bare, check=True),
                              repeat)
    return [_row("CLI urdf->urdf iCubGenova02, whole process", ours,
                 f"python -c 'import numpy, lxml.etree' {ref:.1f} ms", ours / ref, 1.3)]


def fk_rows(repeat: int) -> list[list[str]]:
    kin = Kinematics(load_model(find_model(ICUB02)))
    q = np.random.default_rng(0).uniform(-1, 1, (1000, kin.nq))
    rows = []
    burst = 20  # one call is timed as users call it, in a loop (warm caches): the mean of 20 in a row

    def calls() -> None:
        for _ in range(burst):
            kin.compute_q(q[0])

    for n in (1, 10, 100, 1000):
        batch = q[:n]
        per, one = paired_ms(lambda: kin.compute_q(batch), calls, max(repeat, repeat * 10 // n))
        per, one = per / n, one / burst
        rows.append([f"batched FK iCubGenova02 ({len(kin.frame_names)} frames), {n} configurations",
                     f"{per * 1e3:.1f} us per configuration", f"one call {one * 1e3:.1f} us",
                     f"{one / per:.1f}x cheaper", ">= 10x" if n >= 100 else "(shown)",
                     ("yes" if one / per >= 10 else "no") if n >= 100 else ""])
    return rows


def skel_row(repeat: int) -> list[list[str]]:
    path = find_model(BIPED)
    if path is None:
        return [["SKEL load biped.skel", "model not present", "", "", "<= 2.0", ""]]
    ours, ref = paired_ms(lambda: load_model(path), lambda: dartpy.utils.SkelParser.readWorld(str(path)), repeat)
    return [_row("SKEL load biped.skel", ours, f"dartpy {ref:.2f} ms", ours / ref, 2.0)]


def sdf_row(repeat: int) -> list[list[str]]:
    urdf = find_model(ICUB04)
    if urdf is None:
        return [["SDF load iCubGenova04 as SDF", "model not present", "", "", "<= 1.5", ""]]
    with tempfile.TemporaryDirectory() as d:
        sdf = Path(d) / "model.sdf"
        sdf.write_text(export_model(load_model(urdf), "sdf"))
        ours, ref = paired_ms(lambda: load_model(sdf), lambda: load_model(urdf), repeat)
    return [_row("SDF load iCubGenova04 as SDF", ours, f"our URDF load {ref:.2f} ms", ours / ref, 1.5)]


def _row(what: str, ours_ms: float, ref: str, ratio: float, target: float) -> list[str]:
    return [what, f"{ours_ms:.2f} ms", ref, f"{ratio:.2f}", f"<= {target}", "yes" if ratio <= target else "no"]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=21, help="timed runs of each side per row")
    p.add_argument("--skip-idyntree-10000", action="store_true", help="do not time iDynTree on the 10000-link tree")
    args = p.parse_args()
    rows = (urdf_rows(args.repeat) + big_tree_row(args.skip_idyntree_10000) + cli_row(args.repeat)
            + fk_rows(args.repeat) + skel_row(args.repeat) + sdf_row(args.repeat))
    header = ["what", "ours", "reference", "ratio", "target", "met"]
    widths = [max(len(r[i]) for r in rows + [header]) for i in range(len(header))]
    line = lambda r: "| " + " | ".join(c.ljust(w) for c, w in zip(r, widths)) + " |"  # noqa: E731
    print(line(header))
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for r in rows:
        print(line(r))
    print(f"\n(medians of {args.repeat} alternating runs per side; {interpreter()})")


def interpreter() -> str:
    """Which Python ran the rows: a shared, unoptimised build runs them 15-30% slower (README, "The interpreter")."""
    try:
        with open("/proc/self/maps") as f:
            linked = "runs from libpython.so" if "libpython" in f.read() else "statically linked"
    except OSError:
        linked = "linking unknown"
    return f"Python {platform.python_version()}, {os.path.realpath(sys.executable)}, {linked}"


if __name__ == "__main__":
    main()
