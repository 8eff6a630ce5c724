"""Batched forward kinematics (the level-by-level path taken from BATCH_THRESHOLD configurations on).

The batch path computes every transform differently from the one-configuration path (structure of
arrays, joint motion as a sum of constant terms, BLAS products), so each is checked against the other on
every model of the corpus that has moving joints (revolute, prismatic, spherical, axes off the child
origin, mimic joints), and against the iDynTree wheel's KinDynComputations directly on iCubGenova02.
"""

from __future__ import annotations

import logging

import numpy as np
import pytest

from idyntree_models import Kinematics, ModelError, load_model
from idyntree_models.model import JointType
from idyntree_models.model.kinematics import BATCH_THRESHOLD

import idyntree_oracle as oracle
from conftest import corpus_files, model_file, rel_id

N = BATCH_THRESHOLD + 21
FILES = corpus_files("urdf", "*.urdf") + corpus_files("sdf", "*.sdf") + corpus_files("skel", "*.skel")


def _kinematics(path) -> Kinematics:
    logging.disable(logging.WARNING)
    try:
        model = load_model(path)
    except ModelError:
        pytest.skip("a bad-input file (its error is tested elsewhere)")
    finally:
        logging.disable(logging.NOTSET)
    kin = Kinematics(model)
    if kin.nq == 0:
        pytest.skip("no moving joints")
    return kin


def _random_q(kin: Kinematics, n: int, rng: np.random.Generator) -> np.ndarray:
    q = rng.uniform(-np.pi, np.pi, (n, kin.nq))
    for name, col in kin.position_index.items():
        if kin.model.joints[name].type is JointType.SPHERICAL:
            q[:, col:col + 4] = rng.normal(size=(n, 4))  # not normalised: both paths normalise
    return q


def _chunk_sizes(monkeypatch) -> list[int]:
    """The sizes of the chunks the batches that follow are computed in, as they are computed."""
    from idyntree_models.model import kinematics

    sizes: list[int] = []
    chunk = kinematics._BatchPlan._chunk

    def spy(self, q, *args):
        sizes.append(len(q))
        return chunk(self, q, *args)

    monkeypatch.setattr(kinematics._BatchPlan, "_chunk", spy)
    return sizes


@pytest.mark.parametrize("path", FILES, ids=rel_id)
def test_batch_equals_one_configuration_at_a_time(path):
    kin = _kinematics(path)
    q = _random_q(kin, N, np.random.default_rng(3))
    base = np.eye(4)
    base[:3, :3] = np.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    base[:3, 3] = (0.5, -1.0, 2.0)
    batch = kin.compute_q(q, base_pose=base)
    assert batch.shape == (N, len(kin.frame_names), 4, 4)
    for i in range(N):
        np.testing.assert_allclose(batch[i], kin.compute_q(q[i], base_pose=base)[0], atol=1e-12, err_msg=f"row {i}")


def test_batch_against_idyntree():
    path = model_file("urdf/idyntree/iCubGenova02.urdf")
    kin = _kinematics(path)
    ref = oracle.load(path.read_text())
    rng = np.random.default_rng(11)
    q = _random_q(kin, N, rng)
    batch = kin.compute_q(q)
    for i in (0, 7, N - 1):
        config = {name: q[i, col] for name, col in kin.position_index.items()}
        for name, t in oracle.world_transforms(ref, config).items():
            np.testing.assert_allclose(batch[i, kin.frame_index[name]], t, atol=1e-9, err_msg=f"{name}, row {i}")


def test_out_and_per_configuration_base_poses():
    kin = _kinematics(model_file("urdf/idyntree/icub_sensorised.urdf"))
    rng = np.random.default_rng(5)
    q = _random_q(kin, N, rng)
    bases = np.tile(np.eye(4), (N, 1, 1))
    bases[:, :3, 3] = rng.normal(size=(N, 3))
    out = np.full((N, len(kin.frame_names), 4, 4), np.nan)
    assert kin.compute_q(q, base_pose=bases, out=out) is out
    plain = kin.compute_q(q)
    np.testing.assert_allclose(out, bases[:, None] @ plain, atol=1e-12)
    with pytest.raises(ModelError, match="C-contiguous float64 array of shape"):
        kin.compute_q(q, out=np.empty((N - 1, len(kin.frame_names), 4, 4)))
    with pytest.raises(ModelError, match="base_pose"):
        kin.compute_q(q, base_pose=bases[:3])


def test_batch_refuses_a_zero_quaternion():
    kin = _kinematics(model_file("urdf/idyntree/spherical_joint.urdf"))
    q = _random_q(kin, N, np.random.default_rng(0))
    col = next(c for n, c in kin.position_index.items() if kin.model.joints[n].type is JointType.SPHERICAL)
    q[4, col:col + 4] = 0.0
    with pytest.raises(ModelError, match="non-zero finite quaternions"):
        kin.compute_q(q)


@pytest.mark.parametrize("chunked", [False, True], ids=["one-chunk", "chunks"])
@pytest.mark.parametrize("rel", ["urdf/idyntree/iCubGenova02.urdf", "sdf/sdformat/test/integration/model/robot/model.sdf"])
def test_large_batches_equal_small_ones(rel, chunked, monkeypatch):
    """Large batches take other code than the corpus test's N configurations: one chunk of more than
    STACKED_BELOW configurations computes frames that are each alone on their link one product per frame
    (small chunks: one stacked product), and small chunks split the batch, the last one shorter.  Each
    row must be what a small batch gives for it.  iCubGenova02 has nine lone frames in a row;
    the SDF robot has a ball joint (its buffer rows are reordered) and lone frames."""
    from idyntree_models.model import kinematics

    kin = _kinematics(model_file(rel))
    n = kinematics.STACKED_BELOW + 89  # 601: chunked, one of 151 and three of 150; compared in batches of N, the
    # last rows (fewer than N) one configuration at a time
    monkeypatch.setattr(kinematics, "CHUNK_BYTES", 1 if chunked else 1 << 40)  # the smallest chunks, or one
    sizes = _chunk_sizes(monkeypatch)
    q = _random_q(kin, n, np.random.default_rng(8))
    large = kin.compute_q(q)
    assert sizes == ([151, 150, 150, 150] if chunked else [n])
    for start in range(0, n, N):
        small = kin.compute_q(q[start:start + N]) if n - start >= N else np.concatenate(
            [kin.compute_q(row) for row in q[start:start + N]])
        np.testing.assert_allclose(large[start:start + N], small, atol=1e-12, err_msg=f"rows from {start}")


def test_an_axis_that_is_no_unit_vector_moves_as_its_direction_on_both_paths():
    """A model built or edited in code may hold an axis of any length (a loaded one is validated): the rotation
    block became a scaled matrix (det 2.3 for an axis of length 2), and the batch path read the Joint again later."""
    from conftest import DEMO

    model = load_model(DEMO / "demo_arm.urdf")
    config = {"elbow": 0.5, "finger_left_joint": 0.01, "torso_yaw": -0.3}
    unit = Kinematics(model)
    reference = unit.compute_q(np.tile(unit.positions(config)[0], (20, 1)))
    for name in ("elbow", "finger_left_joint"):
        model.joints[name].axis = model.joints[name].axis * 2.0
    kin = Kinematics(model)
    q = kin.positions(config)
    np.testing.assert_allclose(kin.compute_q(q)[0], reference[0], atol=1e-12)
    np.testing.assert_allclose(kin.compute_q(np.tile(q[0], (20, 1))), reference, atol=1e-12)
    model.joints["elbow"].axis = np.zeros(3)
    with pytest.raises(ModelError, match="joint 'elbow': its axis .* is no direction"):
        Kinematics(model)


@pytest.mark.parametrize("n", [None, 2, 20])
def test_positions_of_another_width_are_refused(n):
    """An extra column was ignored without a word, and a missing one was an IndexError."""
    from conftest import DEMO

    kin = Kinematics(load_model(DEMO / "demo_arm.urdf"))
    q = kin.positions({})[0] if n is None else np.tile(kin.positions({})[0], (n, 1))
    for bad in (np.concatenate([q, np.zeros(q.shape[:-1] + (1,))], axis=-1), q[..., :-1], q[None, None]):
        with pytest.raises(ModelError, match=rf"positions must be an array of shape \({kin.nq},\)"):
            kin.compute_q(bad)
    kin.compute_q(q)  # the right width


@pytest.mark.parametrize(("n", "expected"), [(129, [129]), (257, [129, 128]), (300, [150, 150])])
def test_chunks_hold_at_least_min_chunk_and_every_row_is_its_own_configuration(n, expected, monkeypatch):
    """Balanced chunks used to cut 129 configurations into two of 65 (cheaper in one: a chunk's numpy calls cost more
    than the misses they save); across chunks each row keeps its own base pose and lands in the caller's array."""
    from idyntree_models.model import kinematics

    from conftest import DEMO

    kin = Kinematics(load_model(DEMO / "demo_arm.urdf"))
    monkeypatch.setattr(kinematics, "CHUNK_BYTES", 1)  # the cache asks for chunks of one
    sizes = _chunk_sizes(monkeypatch)
    rng = np.random.default_rng(11)
    q = _random_q(kin, n, rng)
    bases = np.tile(np.eye(4), (n, 1, 1))
    bases[:, :3, 3] = rng.normal(size=(n, 3))
    bases[:, :3, :3] = np.linalg.qr(rng.normal(size=(n, 3, 3)))[0]
    out = np.full((n, len(kin.frame_names), 4, 4), np.nan)
    assert kin.compute_q(q, base_pose=bases, out=out) is out
    assert sizes == expected
    for i in range(n):
        np.testing.assert_allclose(out[i], kin.compute_q(q[i], base_pose=bases[i])[0], atol=1e-12, err_msg=f"row {i}")


@pytest.mark.parametrize(("entries", "expected"), [
    ({"index0": ("1", "Data", "48K"), "index2": ("2", "Unified", "2048K")}, 2 << 20),
    ({"index2": ("2", "Unified", "4M"), "index3": ("3", "Unified", "260M")}, 4 << 20),
    ({"index2": ("2", "Unified", " 512 k \n")}, 512 << 10),
    ({"index2": ("2", "Unified", "1G")}, 1 << 30),
    ({"index2": ("2", "Unified", "1048576")}, 1 << 20),
    ({"index0": ("1", "Data", None), "index2": ("2", "Unified", "2048K")}, 2 << 20),  # a broken entry first
    ({"index1": ("2", "Instruction", "64K"), "index2": ("2", "Data", "256K")}, 256 << 10),
    ({"index2": ("2", "Unified", "0K")}, 1 << 20),
    ({"index2": ("2", "Unified", "1_0K")}, 1 << 20),
    ({"index2": ("2", "Unified", "big")}, 1 << 20),
    ({"index0": ("1", "Data", "48K")}, 1 << 20),  # no L2
    ({}, 1 << 20),
], ids=["L1-and-L2", "M", "spaces", "G", "bytes", "broken-entry", "instruction-L2", "zero", "underscore", "words",
        "no-L2", "no-cache"])
def test_l2_size_is_read_from_sysfs_or_taken_as_1_mib(entries, expected, tmp_path):
    """sysfs's cache entries as the kernel writes them, and the odd ones: an unreadable entry does not end the
    search, and a size that is no size falls back to 1 MiB rather than to a chunk size of zero."""
    from idyntree_models.model import kinematics

    for name, (level, kind, size) in entries.items():
        (tmp_path / name).mkdir()
        (tmp_path / name / "level").write_text(level + "\n")
        (tmp_path / name / "type").write_text(kind + "\n")
        if size is not None:
            (tmp_path / name / "size").write_text(size + "\n")
    assert kinematics._l2_bytes.__wrapped__(tmp_path) == expected
    assert kinematics._l2_bytes.__wrapped__(tmp_path / "absent") == 1 << 20


def test_l2_size_read_from_sysfs_is_the_one_glibc_reports():
    """glibc's getconf asks the CPU itself (cpuid on x86), not sysfs: run on cpu0, whose cache sysfs is read."""
    import os
    import shutil
    import subprocess

    from idyntree_models.model import kinematics

    size = kinematics._l2_bytes()
    assert size >= 64 << 10 and size % 1024 == 0
    getconf = shutil.which("getconf")
    if getconf is None or 0 not in os.sched_getaffinity(0):
        pytest.skip("no getconf, or cpu0 is not ours to run on")
    reported = subprocess.run([getconf, "LEVEL2_CACHE_SIZE"], capture_output=True, text=True, timeout=30,
                              preexec_fn=lambda: os.sched_setaffinity(0, {0})).stdout.strip()
    if not reported.isdigit() or int(reported) <= 0:
        pytest.skip("getconf does not report the L2 cache here")
    assert size == int(reported)
