"""URDF export and xacro expansion: what keeping everything (pass-through, names, exact rotations) costs.

Usage: .venv/bin/python bench/bench_urdf_export.py
- URDF -> URDF export time per model (a first export, and a repeated one), and how many of its
  rotations needed the exact-rpy search (the rest are rebuilt bit for bit by the quick try),
  against the iDynTree wheel's URDF exporter;
- xacro: expanding test/data/xacro/arm.urdf.xacro in-process (load_model) against running the
  `xacro` command (a whole process, as robot_state_publisher users do).
"""

from __future__ import annotations

import logging
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import idyntree.swig as idt  # noqa: E402

from idyntree_models import export_model, load_model  # noqa: E402
from idyntree_models.formats import urdf_export  # noqa: E402
from idyntree_models.model.transforms import matrix_to_rpy, rpy_xyz_to_transform  # noqa: E402

from common import MODELS, REPO, median_ms, synthetic_urdf, table  # noqa: E402

logging.disable(logging.WARNING)


def _rotations(model) -> list[np.ndarray]:
    out = [j.rest_transform[:3, :3] for j in model.joints.values()]
    out += [f.link_H_frame[:3, :3] for f in model.frames.values()]
    out += [s.link_H_geometry[:3, :3] for link in model.links.values() for s in (*link.visuals, *link.collisions)]
    return out


def _slow(rot: np.ndarray) -> bool:
    rpy = [float(a) for a in matrix_to_rpy(rot)]
    quick = [urdf_export._shortest(a, 1e-15 * max(1.0, abs(a)) + 4.0 * np.spacing(abs(a) or 1.0)) for a in rpy]
    for cand in ([a if c is None else c for a, c in zip(rpy, quick)], rpy):
        if np.array_equal(rpy_xyz_to_transform(cand, (0.0, 0.0, 0.0))[:3, :3], rot):
            return False
    return True


def idyntree_export_ms(text: str) -> float:
    loader = idt.ModelLoader()
    assert loader.loadModelFromString(text)
    model = loader.model().copy()

    import tempfile

    out = Path(tempfile.mkdtemp()) / "model.urdf"

    def run():  # its Python binding can only write to a file (exportModelToString needs a C++ string&)
        exporter = idt.ModelExporter()
        exporter.init(model)
        if not exporter.exportModelToFile(str(out)):
            raise RuntimeError("iDynTree export failed")

    return median_ms(run, repeat=10)


def main() -> None:
    workloads = [
        ("iCubGenova02", (MODELS / "urdf/idyntree/iCubGenova02.urdf").read_text()),
        ("iCubGenova04", (MODELS / "urdf/icub-models/iCubGenova04/model.urdf").read_text()),
        ("pr2", (MODELS / "urdf/example-robot-data/robots/pr2_description/urdf/pr2.urdf").read_text()),
        ("synthetic tree (1000 links)", synthetic_urdf(1000)),
    ]
    rows = []
    for name, text in workloads:
        model = load_model(text, "urdf")
        rots = _rotations(model)
        slow = sum(_slow(r) for r in rots)
        first = median_ms(lambda m=model: (urdf_export._EXACT.clear(), export_model(m, "urdf")), repeat=10)
        again = median_ms(lambda m=model: export_model(m, "urdf"), repeat=10)
        rows.append([name, len(rots), slow, first, again, idyntree_export_ms(text)])
    print("URDF export (median ms of 10). first: the process's first export of these rotations (the CLI's case);"
          "\nagain: a later export of the same model (a node's conversions), exact_rpy's answers remembered\n")
    print(table(rows, ["model", "rotations", "needing the search", "ours first ms", "ours again ms",
                       "iDynTree ModelExporter (to a file) ms"]))

    arm = REPO / "test" / "data" / "xacro" / "arm.urdf.xacro"
    in_process = median_ms(lambda: load_model(arm, xacro_args={"with_tool": "true"}), repeat=20)
    xacro = Path(sys.executable).parent / "xacro"
    times = []
    for _ in range(5):
        t = time.perf_counter()
        subprocess.run([str(xacro), str(arm), "with_tool:=true"], capture_output=True, check=True)
        times.append((time.perf_counter() - t) * 1e3)
    print("\nxacro (test/data/xacro/arm.urdf.xacro)\n")
    print(table([["load_model (expand + read), in process", in_process],
                 ["`xacro` command, a process", float(np.median(times))]], ["what", "median ms"]))


if __name__ == "__main__":
    main()
