"""The /tf fast path: joint poses as quaternion rows (JointPoses) and joint_states decoded from raw CDR.

JointPoses is checked against the 4x4 matrix kinematics on every corpus model and against iDynTree's
own joint transforms; JointStateDecoder against rclpy's serializer, on the bytes it really produces.
"""

from __future__ import annotations

import logging

import numpy as np
import pytest

from idyntree_models import Kinematics, ModelError, load_model
from idyntree_models.model import JointType
from idyntree_models.model.kinematics import JointPoses
from idyntree_models.model.transforms import quat_to_matrix

from conftest import DEMO, corpus_files, model_file, rel_id

FILES = corpus_files("urdf", "*.urdf") + corpus_files("sdf", "*.sdf") + corpus_files("skel", "*.skel")


def _rows_to_matrices(rows: np.ndarray) -> np.ndarray:
    out = np.tile(np.eye(4), (len(rows), 1, 1))
    out[:, :3, 3] = rows[:, :3]
    out[:, :3, :3] = quat_to_matrix(rows[:, [6, 3, 4, 5]])  # (x, y, z, w) -> (w, x, y, z)
    return out


def _moving(kin: Kinematics) -> np.ndarray:
    return np.array([i for i, j in enumerate(kin.joints) if j.type in (JointType.REVOLUTE, JointType.PRISMATIC)],
                    dtype=int)


def _kinematics_and_moving(path) -> tuple[Kinematics, np.ndarray]:
    """The corpus file's kinematics and its revolute and prismatic joints; the test is skipped for a
    bad-input file (its error is tested elsewhere) and for a model without such joints."""
    logging.disable(logging.WARNING)
    try:
        kin = Kinematics(load_model(path))
    except ModelError:
        pytest.skip("a bad-input file (its error is tested elsewhere)")
    finally:
        logging.disable(logging.NOTSET)
    moving = _moving(kin)
    if not len(moving):
        pytest.skip("no revolute or prismatic joint")
    return kin, moving


@pytest.mark.parametrize("path", FILES, ids=rel_id)
def test_joint_poses_equal_the_matrix_kinematics(path):
    kin, moving = _kinematics_and_moving(path)
    rng = np.random.default_rng(5)
    # the order the server uses (revolute block first: slices) and a shuffled one (index arrays)
    kinds = [kin.joints[i].type is JointType.REVOLUTE for i in moving]
    for order in (moving[np.argsort(np.logical_not(kinds), kind="stable")], rng.permutation(moving)):
        poses = JointPoses(kin, order)
        for _ in range(4):
            q = kin.positions({})[0]
            for name, col in kin.position_index.items():
                if kin.model.joints[name].type is not JointType.SPHERICAL:
                    q[col] = rng.uniform(-4.0, 4.0)
            rows = poses.compute(q)
            assert np.all(rows[:, 6] >= 0.0), "w >= 0, as /tf publishers usually send"
            np.testing.assert_allclose(np.linalg.norm(rows[:, 3:], axis=1), 1.0, atol=1e-12)
            np.testing.assert_allclose(_rows_to_matrices(rows), kin.joint_transforms_q(q)[0][order], atol=1e-12)


@pytest.mark.filterwarnings("error::RuntimeWarning")
@pytest.mark.parametrize("path", FILES, ids=rel_id)
def test_positions_up_to_finite_below_give_finite_poses(path):
    """The node publishes JointPoses results unchecked when every position is at most `finite_below`
    in magnitude: at that magnitude, in every sign pattern tried, each pose must be finite (and numpy
    silent); a model whose constants leave no such margin says 0."""
    kin, moving = _kinematics_and_moving(path)
    poses = JointPoses(kin, moving)
    assert 0.0 <= poses.finite_below <= 1e300
    rng = np.random.default_rng(2)
    for _ in range(4):
        q = kin.positions({})[0]
        for name, col in kin.position_index.items():
            if kin.model.joints[name].type is not JointType.SPHERICAL:
                q[col] = poses.finite_below * rng.choice((-1.0, 1.0))
        assert np.isfinite(poses.compute(q)).all()


def test_joint_poses_against_idyntree():
    import idyntree.swig as idt

    import idyntree_oracle as oracle

    path = model_file("urdf/idyntree/iCubGenova02.urdf")
    kin = Kinematics(load_model(path))
    model = oracle.load(path.read_text()).model
    moving = _moving(kin)
    poses = JointPoses(kin, moving)
    q = np.random.default_rng(9).uniform(-2.0, 2.0, kin.nq)
    rows = _rows_to_matrices(poses.compute(q))
    positions = idt.VectorDynSize(model.getNrOfPosCoords())
    positions.zero()
    for i in moving:
        j = model.getJoint(model.getJointIndex(kin.joints[i].name))
        positions.setVal(j.getPosCoordsOffset(), float(q[kin.position_index[kin.joints[i].name]]))
    for k, i in enumerate(moving):
        joint = kin.joints[i]
        j = model.getJoint(model.getJointIndex(joint.name))
        t = j.getTransform(positions, model.getLinkIndex(joint.parent), model.getLinkIndex(joint.child))
        np.testing.assert_allclose(rows[k], oracle._t(t), atol=1e-9, err_msg=joint.name)


def test_joint_poses_refuse_spherical_joints():
    kin = Kinematics(load_model(DEMO / "demo_arm.urdf"))
    spherical = [i for i, j in enumerate(kin.joints) if j.type is JointType.SPHERICAL]
    assert spherical
    with pytest.raises(ModelError, match="revolute and prismatic"):
        JointPoses(kin, np.array(spherical))


rclpy = pytest.importorskip("rclpy")


@pytest.mark.parametrize("frame_id", ["", "a", "ab", "abc", "base_link", "x" * 13])
@pytest.mark.parametrize("names", [[], ["j1"], ["joint_a", "b", "ccc", "dddd"], ["épaule", "coude_ü", "x" * 7]])
def test_joint_state_decoder_reads_what_rclpy_writes(frame_id, names):
    from rclpy.serialization import serialize_message
    from sensor_msgs.msg import JointState

    from idyntree_models.ros.tf_codec import JointStateDecoder

    decoder = JointStateDecoder()
    for velocity in ([], [2.5] * len(names)):
        msg = JointState(name=names, position=[1.0 / (i + 3) for i in range(len(names))], velocity=velocity)
        msg.header.frame_id, msg.header.stamp.sec, msg.header.stamp.nanosec = frame_id, -7, 999_999_999
        raw = serialize_message(msg)
        for _ in range(2):  # names decoded, then recognised by their bytes
            sec, nanosec, got_names, positions = decoder.decode(raw)
            assert (sec, nanosec, list(got_names)) == (-7, 999_999_999, names)
            assert positions.tolist() == list(msg.position)


def test_joint_state_decoder_notices_a_changed_name_list_and_bad_bytes():
    from rclpy.serialization import serialize_message
    from sensor_msgs.msg import JointState

    from idyntree_models.ros.tf_codec import JointStateDecoder

    decoder = JointStateDecoder()
    a = serialize_message(JointState(name=["left", "right"], position=[1.0, 2.0]))
    b = serialize_message(JointState(name=["left", "rigid"], position=[3.0, 4.0]))  # same length, other bytes
    assert decoder.decode(a)[2] == ("left", "right")
    assert decoder.decode(b)[2] == ("left", "rigid")
    assert decoder.decode(b"\x00\x00" + a[2:]) is None  # big-endian CDR: the caller deserializes
    with pytest.raises(ValueError):
        decoder.decode(a[:60])  # positions cut short
