"""model_server's reduced_joints parameter over real DDS: the served model is the reduced one.

Checked against iDynTree's reduced model (links, sensors, frames on /tf_static) and against the
parameter-change rules (a bad joint name is refused with the reason, the old model stays).
"""

from __future__ import annotations

import numpy as np
import pytest

from ros_harness import Probe, edges_of, latched_qos, start_server

rclpy = pytest.importorskip("rclpy")

from idyntree_models_interfaces.msg import SensorList  # noqa: E402
from idyntree_models_interfaces.srv import GetModel  # noqa: E402
from rcl_interfaces.msg import Parameter, ParameterType, ParameterValue  # noqa: E402
from rcl_interfaces.srv import SetParameters  # noqa: E402
from std_msgs.msg import String  # noqa: E402
from tf2_msgs.msg import TFMessage  # noqa: E402

from idyntree_models.api import load_model  # noqa: E402

import idyntree_oracle as oracle  # noqa: E402
from conftest import MODELS  # noqa: E402

ICUB = MODELS / "urdf" / "idyntree" / "iCubGenova02.urdf"
FT = ["l_arm_ft_sensor", "r_arm_ft_sensor", "l_leg_ft_sensor", "r_leg_ft_sensor", "l_foot_ft_sensor", "r_foot_ft_sensor"]
KEEP = ["torso_pitch", "l_shoulder_pitch", "l_elbow", "r_knee", "l_knee"] + FT


@pytest.fixture
def server_and_probe():
    server = start_server(46, {"model_file": str(ICUB), "reduced_joints": KEEP})
    probe = Probe(46)
    yield server, probe
    probe.close()
    server.stop()
    print(f"--- server output ---\n{server.output()}")


def test_reduced_model_is_served_and_can_change(server_and_probe):
    server, probe = server_and_probe
    try:
        resp = probe.call(GetModel, "/model_server/get_model", GetModel.Request(format=""))
    except TimeoutError:
        raise AssertionError(f"server not ready:\n{server.output()}") from None
    assert resp.success, resp.message
    descriptions = probe.collect(String, "robot_description", latched_qos())
    sensors = probe.collect(SensorList, "robot_sensors", latched_qos())
    static = probe.collect(TFMessage, "/tf_static", latched_qos())
    probe.spin_until(lambda: descriptions and sensors and static, what="the latched topics")

    ref = oracle.reduced(ICUB.read_text(), KEEP)
    served = load_model(descriptions[-1].data.encode())
    assert set(served.joints) == set(KEEP)
    assert set(served.links) == set(ref.links)
    for name, r in ref.links.items():
        np.testing.assert_allclose(served.links[name].inertia.mass, r["mass"], atol=1e-9)
    assert {s.name for s in sensors[-1].sensors} == set(ref.sensors)
    children = {t.child_frame_id: t.header.frame_id for t in static[-1].transforms}
    edges = edges_of(static)
    # the description's root 'base_link' (a frame of 'root_link' for iDynTree) stays root_link's parent on TF
    assert children.get("root_link") == "base_link" and "base_link" not in children
    for frame, link in ref.frames.items():  # lumped links are frames of their group's link
        if frame == "base_link":
            np.testing.assert_allclose(np.linalg.inv(edges["root_link"][1]), ref.frame_transforms[frame], atol=1e-9)
            continue
        assert children.get(frame) == link, frame
        np.testing.assert_allclose(edges[frame][1], ref.frame_transforms[frame], atol=1e-9)

    # change at run time, as one string; then a bad name is refused and the model stays
    def set_param(value: str):
        req = SetParameters.Request(parameters=[Parameter(name="reduced_joints", value=ParameterValue(
            type=ParameterType.PARAMETER_STRING, string_value=value))])
        return probe.call(SetParameters, "/model_server/set_parameters", req).results[0]

    n = len(descriptions)
    assert set_param("torso_pitch, l_elbow " + " ".join(FT)).successful
    probe.spin_until(lambda: len(descriptions) > n, what="the new description")
    assert set(load_model(descriptions[-1].data.encode()).joints) == {"torso_pitch", "l_elbow", *FT}
    bad = set_param("torso_pitch no_such_joint")
    assert not bad.successful and "no_such_joint" in bad.reason
    assert set_param("").successful  # empty: the full model again
    probe.spin_until(lambda: len(load_model(descriptions[-1].data.encode()).joints) == 32, what="the full model")


def test_clearing_model_file_then_the_reduction_gives_the_whole_model_back():
    """A reduced model served from model_file mirrored its reduced URDF into robot_description; clearing model_file
    (which keeps serving the same model, from that text) and then reduced_joints reloaded from the reduction: the
    locked joints were gone for good. robot_description mirrors the file's own text."""
    from conftest import DEMO

    arm = DEMO / "demo_arm.urdf"
    full = set(load_model(arm).joints)
    reduced = {"elbow", "foot_ft_joint", "wrist_ft_joint"}  # (the F/T sensors' joints are kept: the default)
    server = start_server(69, {"model_file": str(arm), "reduced_joints": ["elbow"]})
    probe = Probe(69)
    try:
        def joints() -> set[str]:
            resp = probe.call(GetModel, "/model_server/get_model", GetModel.Request(format=""))
            assert resp.success, resp.message
            return set(load_model(resp.model.encode()).joints)

        def set_param(name: str, value: str):
            req = SetParameters.Request(parameters=[Parameter(name=name, value=ParameterValue(
                type=ParameterType.PARAMETER_STRING, string_value=value))])
            return probe.call(SetParameters, "/model_server/set_parameters", req).results[0]

        try:
            assert joints() == reduced
        except TimeoutError:
            raise AssertionError(f"server not ready:\n{server.output()}") from None
        assert set_param("model_file", "").successful
        assert joints() == reduced  # the same model goes on, now from robot_description
        assert set_param("reduced_joints", "").successful
        assert joints() == full and len(full) > 1
    finally:
        probe.close()
        server.stop()
        print(f"--- server output ---\n{server.output()}")
