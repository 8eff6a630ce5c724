"""URDF load time and forward kinematics against the iDynTree wheel, in one run on one machine.

Usage: .venv/bin/python bench/bench_urdf.py
Load: our load_model (parse, iDynTree semantics, full validation) against iDynTree's C++
ModelLoader.loadModelFromString.  Forward kinematics of all frames: ours for one configuration
and for 1000 at once, against KinDynComputations.setRobotState + getWorldTransform per frame
(the way Python code uses iDynTree).
"""

from __future__ import annotations

import logging
import sys

import numpy as np

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent))
import idyntree.swig as idt  # noqa: E402

from idyntree_models import Kinematics, load_model  # noqa: E402
from idyntree_models.model import JointType  # noqa: E402

from common import MODELS, median_ms, synthetic_urdf, table  # noqa: E402

logging.disable(logging.WARNING)


def workloads() -> list[tuple[str, str]]:
    return [
        ("iCubGenova02 (105 URDF links)", (MODELS / "urdf/idyntree/iCubGenova02.urdf").read_text()),
        ("iCubGenova04 (213 URDF links)", (MODELS / "urdf/icub-models/iCubGenova04/model.urdf").read_text()),
        ("synthetic tree (1000 links)", synthetic_urdf(1000)),
    ]


def idyntree_load(text: str):
    loader = idt.ModelLoader()
    if not loader.loadModelFromString(text):
        raise RuntimeError("iDynTree failed")
    return loader.model().copy()


def random_positions(model, kin: Kinematics, n: int, rng) -> dict[str, np.ndarray]:
    out = {}
    for name in kin.position_names:
        j = model.joints[name]
        if j.type is JointType.SPHERICAL:
            q = rng.normal(size=(n, 4))
            out[name] = q / np.linalg.norm(q, axis=1, keepdims=True)
        else:
            out[name] = rng.uniform(-1, 1, n)
    return out


def main() -> None:
    rng = np.random.default_rng(0)
    load_rows, fk_rows = [], []
    for label, text in workloads():
        ours = median_ms(lambda: load_model(text), repeat=20)
        ref = median_ms(lambda: idyntree_load(text), repeat=20)
        load_rows.append([label, ours, ref, ours / ref])

        model = load_model(text)
        kin = Kinematics(model)
        ref_model = idyntree_load(text)
        kd = idt.KinDynComputations()
        kd.loadRobotModel(ref_model)
        n_frames = ref_model.getNrOfFrames()
        s = idt.VectorDynSize.FromPython(rng.uniform(-1, 1, ref_model.getNrOfDOFs()))
        ds = idt.VectorDynSize(ref_model.getNrOfDOFs())
        base, zero, g = idt.Transform.Identity(), idt.Twist.Zero(), idt.Vector3.FromPython([0, 0, -9.81])

        def ref_fk():
            kd.setRobotState(base, s, zero, ds, g)
            return [kd.getWorldTransform(f) for f in range(n_frames)]

        one = {k: v[0] for k, v in random_positions(model, kin, 1, rng).items()}
        batch = random_positions(model, kin, 1000, rng)
        q_one = kin.positions(one)
        ours_one = median_ms(lambda: kin.compute_q(q_one))
        ours_dict = median_ms(lambda: kin.world_transforms(one))
        q_batch = kin.positions(batch)
        ref_one = median_ms(ref_fk)
        ours_batch = median_ms(lambda: kin.compute_q(q_batch), repeat=5, warmup=1)
        fk_rows.append([label, n_frames, ours_one * 1e3, ours_dict * 1e3, ref_one * 1e3, ours_batch,
                        ours_batch / 1000 * 1e3, ours_one / (ours_batch / 1000)])
    print("## Load time (median ms)\n")
    print(table(load_rows, ["model", "ours ms", "iDynTree C++ ms", "ratio"]))
    print("\n## Forward kinematics of all frames\n")
    print(table(fk_rows, ["model", "frames", "ours 1 config us (array)", "ours 1 config us (dict)",
                          "iDynTree loop us", "ours 1000 configs ms", "ours per config in batch us",
                          "batch gain x"]))


if __name__ == "__main__":
    main()
