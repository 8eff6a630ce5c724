"""model_server over real DDS: latched topics, /tf against FK and iDynTree, services, model changes.

Each test starts its own server process and probe node on its own ROS_DOMAIN_ID (40-49, 67),
discovery on loopback only.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
import pytest

from ros_harness import TIMEOUT, Probe, compose_world, edges_of, latched_qos, msg_to_matrix, start_server, tf_qos

rclpy = pytest.importorskip("rclpy")

from idyntree_models_interfaces.msg import SensorList  # noqa: E402
from idyntree_models_interfaces.srv import ConvertModel, GetModel  # noqa: E402
from rcl_interfaces.msg import Parameter, ParameterType, ParameterValue  # noqa: E402
from rcl_interfaces.srv import GetParameters, SetParameters, SetParametersAtomically  # noqa: E402
from rclpy.qos import QoSProfile, ReliabilityPolicy  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402
from std_msgs.msg import String  # noqa: E402
from tf2_msgs.msg import TFMessage  # noqa: E402

from idyntree_models.api import export_model, load_model  # noqa: E402
from idyntree_models.model.kinematics import Kinematics  # noqa: E402
from idyntree_models.model.model import JointType  # noqa: E402
from idyntree_models.model.spherical import three_revolute_to_quaternion  # noqa: E402

from conftest import DEMO, MODELS, OVERFLOW  # noqa: E402

ICUB = MODELS / "urdf" / "idyntree" / "iCubGenova02.urdf"
DEMO_ARM = DEMO / "demo_arm.urdf"


@pytest.fixture
def ros(request):
    """(start server, probe) for one domain; everything is stopped at the end, also on failure."""
    started = []

    def make(domain: int, params: dict):
        server = start_server(domain, params)
        probe = Probe(domain)
        started.append((server, probe))
        return server, probe

    yield make
    for server, probe in started:
        probe.close()
        server.stop()
        print(f"--- server output ---\n{server.output()}")  # shown by pytest when the test failed


def wait_ready(server, probe) -> None:
    """The server answers get_model (so it loaded its model and published the latched topics)."""
    try:
        resp = probe.call(GetModel, "/model_server/get_model", GetModel.Request(format=""))
    except TimeoutError:
        raise AssertionError(f"server not ready; its output:\n{server.output()}") from None
    assert resp.success, resp.message


def joint_state(names, positions, stamp=None) -> JointState:
    msg = JointState()
    msg.name = list(names)
    msg.position = [float(p) for p in positions]
    if stamp is not None:
        msg.header.stamp = stamp
    return msg


def publish_until(probe, pub, msg, done, what: str) -> None:
    """Publish every 0.2 s until `done` (the first messages may go out before discovery)."""
    end = time.monotonic() + TIMEOUT
    while not done():
        if time.monotonic() > end:
            raise TimeoutError(f"timed out waiting for {what}")
        msg.header.stamp = probe.node.get_clock().now().to_msg()
        pub.publish(msg)
        probe.spin_for(0.2)


def oracle():
    import idyntree_oracle

    return idyntree_oracle


# -- latched topics ----------------------------------------------------------------------------

def test_latched_topics_reach_late_subscribers(ros):
    server, probe = ros(40, {"model_file": str(ICUB)})
    wait_ready(server, probe)
    probe.spin_for(1.0)  # subscribe well after the server published
    descriptions = probe.collect(String, "robot_description", latched_qos())
    sensors = probe.collect(SensorList, "robot_sensors", latched_qos())
    static = probe.collect(TFMessage, "/tf_static", latched_qos())
    probe.spin_until(lambda: descriptions and sensors and static, what="the three latched topics")
    probe.spin_for(0.5)
    assert len(static) == 1 and len(sensors) == 1 and len(descriptions) == 1

    text = ICUB.read_text()
    assert descriptions[0].data == text  # a URDF without spherical joints is published as given

    ref = oracle().load(text)
    # sensors: the same set and semantics as iDynTree reads
    got = {s.name: s for s in sensors[0].sensors}
    assert set(got) == set(ref.sensors)
    children = {t.child_frame_id: t.header.frame_id for t in static[0].transforms}
    edges = edges_of(static)
    for name, r in ref.sensors.items():
        s = got[name]
        assert s.type == r["type"] == "force_torque"
        assert (s.first_link, s.second_link, s.parent_joint) == (r["first_link"], r["second_link"],
                                                                   r["parent_joint"])
        assert s.applied_wrench_link == r["applied_wrench_link"]
        assert s.measure_direction == ("parent_to_child" if r["applied_wrench_link"] == r["second_link"]
                                       else "child_to_parent")
        # the sensor frame is on /tf_static, on its second link, where iDynTree puts the sensor
        assert children[s.frame_id] == s.second_link
        np.testing.assert_allclose(edges[s.frame_id][1], r["second_link_H_sensor"], atol=1e-9)
    # every additional frame of iDynTree's model, on its link, once; the massless root 'base_link' (a
    # frame of 'root_link' for iDynTree) stays the parent of 'root_link', as the URDF and robot_state_publisher say
    assert children.get("root_link") == "base_link" and "base_link" not in children
    for frame, link in ref.frames.items():
        if frame != "base_link":
            assert children.get(frame) == link, frame
    assert len(children) == len(static[0].transforms)
    # every fixed joint between two links
    for name, j in ref.joints.items():
        if j["type"] == "fixed":
            a, b = sorted(j["links"])
            assert children.get(a) == b or children.get(b) == a, name


# -- /tf against our kinematics and iDynTree -------------------------------------------------------

def test_tf_composes_to_fk_and_idyntree_world_poses(ros):
    server, probe = ros(41, {"model_file": str(ICUB)})
    model = load_model(ICUB)
    kin = Kinematics(model)
    rng = np.random.default_rng(41)
    config = {j.name: float(rng.uniform(-0.6, 0.6)) for j in model.joints.values() if j.dofs == 1 and not j.mimic}
    assert len(config) == 26

    static = probe.collect(TFMessage, "/tf_static", latched_qos())
    tf = probe.collect(TFMessage, "/tf", tf_qos())
    pub = probe.node.create_publisher(JointState, "joint_states", 10)
    wait_ready(server, probe)
    publish_until(probe, pub, joint_state(config, config.values()), lambda: static and tf, "/tf_static and /tf")

    msg = tf[-1]
    assert {t.child_frame_id for t in msg.transforms} == {model.joints[n].child for n in config}
    stamps = {(t.header.stamp.sec, t.header.stamp.nanosec) for t in msg.transforms}
    assert len(stamps) == 1  # one stamp, the joint_states one
    tree = compose_world(edges_of([static[-1], msg]), "base_link")  # the URDF's root, above root_link
    base_H_tree = np.linalg.inv(tree[model.default_base_link])
    world = {frame: base_H_tree @ t for frame, t in tree.items()}  # relative to the base, as iDynTree's

    ours = kin.world_transforms(config)
    ref = oracle().load(ICUB.read_text())
    theirs = oracle().world_transforms(ref, config)
    assert set(theirs) <= set(world)
    for frame, t in theirs.items():
        np.testing.assert_allclose(world[frame], t, atol=1e-9, err_msg=frame)
        np.testing.assert_allclose(world[frame], ours[frame], atol=1e-9, err_msg=frame)


def test_spherical_mimic_prefix_and_bad_joint_states(ros):
    """Spherical joints driven by their exported revolute names, mimic joints, frame_prefix."""
    server, probe = ros(42, {"model_file": str(DEMO_ARM), "frame_prefix": "r1/", "publish_frequency": 0.0})
    model = load_model(DEMO_ARM)
    kin = Kinematics(model)
    tf = probe.collect(TFMessage, "/tf", tf_qos())
    static = probe.collect(TFMessage, "/tf_static", latched_qos())
    descriptions = probe.collect(String, "robot_description", latched_qos())
    pub = probe.node.create_publisher(JointState, "joint_states", 10)
    wait_ready(server, probe)

    # bad messages first: a size mismatch is dropped, unknown names are ignored
    bad = joint_state(["elbow", "torso_yaw"], [0.3])
    for _ in range(3):
        bad.header.stamp = probe.node.get_clock().now().to_msg()
        pub.publish(bad)
        probe.spin_for(0.2)

    x, y, z = 0.3, -0.4, 0.5
    names = ["spherical_rev_shoulder_x", "spherical_rev_shoulder_y", "spherical_rev_shoulder_z",
             "finger_left_joint", "no_such_joint", "elbow", "torso_yaw"]
    positions = [x, y, z, 0.03, 1.0, -1.1, 0.7]
    publish_until(probe, pub, joint_state(names, positions), lambda: tf and static and descriptions,
                  "/tf from the spherical joint")
    assert all(len(m.transforms) == 7 for m in tf)  # never the 2-joint message
    assert "2 names but 1 positions" in server.output()

    # /tf follows the published description's tree: the shoulder is its three revolutes through the massless
    # links, so every link of the description has a transform (RViz's RobotModel asks for each)
    urdf = load_model(descriptions[-1].data.encode())
    moved = [n for n in names if n in urdf.joints] + ["finger_right_joint"]
    assert set(edges_of([tf[-1]])) == {"r1/" + urdf.joints[n].child for n in moved}
    edges = edges_of([static[-1], tf[-1]])
    assert all(k.startswith("r1/") and p.startswith("r1/") for k, (p, _) in edges.items())
    assert {"r1/" + n for n in urdf.links} <= set(compose_world(edges, "r1/base_link"))
    world = compose_world(edges, "r1/base_link")
    config = {"shoulder": three_revolute_to_quaternion(x, y, z), "finger_left_joint": 0.03, "elbow": -1.1,
              "torso_yaw": 0.7}
    expected = kin.world_transforms(config)
    for frame, t in expected.items():
        np.testing.assert_allclose(world["r1/" + frame], t, atol=1e-9, err_msg=frame)
    # the mimic finger moved with its master
    assert not np.allclose(expected["finger_right"], kin.world_transforms({})["finger_right"])

    # the published description is URDF with the shoulder as the three revolutes named above
    assert {"spherical_rev_shoulder_x", "spherical_rev_shoulder_y", "spherical_rev_shoulder_z"} <= set(urdf.joints)
    assert all(j.type is not JointType.SPHERICAL for j in urdf.joints.values())
    # and that unfolded URDF, driven with the same angles, puts the frames where we do
    unfolded = Kinematics(urdf).world_transforms({n: p for n, p in zip(names, positions) if n in urdf.joints})
    for frame in expected:
        if frame in unfolded:
            np.testing.assert_allclose(unfolded[frame], expected[frame], atol=1e-9, err_msg=frame)
    assert server.alive()


# -- services ----------------------------------------------------------------------------------

def test_services_convert_and_get_model_including_bad_requests(ros):
    server, probe = ros(43, {"model_file": str(DEMO_ARM)})
    wait_ready(server, probe)
    text = DEMO_ARM.read_text()

    req = ConvertModel.Request(model=text, input_format="", output_format="idyntree-model-json")
    resp = probe.call(ConvertModel, "/model_server/convert_model", req)
    assert resp.success, resp.message
    converted = load_model(resp.model.encode())
    original = load_model(DEMO_ARM)
    assert set(converted.links) == set(original.links)
    assert set(converted.sensors) == set(original.sensors)
    cfg = {"elbow": -0.7, "torso_yaw": 0.4, "shoulder": three_revolute_to_quaternion(0.1, 0.2, 0.3)}
    a, b = Kinematics(converted).world_transforms(cfg), Kinematics(original).world_transforms(cfg)
    for frame in b:
        np.testing.assert_allclose(a[frame], b[frame], atol=1e-9, err_msg=frame)

    bad_cases = [
        (ConvertModel.Request(model="hello world", output_format="urdf"), "cannot tell the model format"),
        (ConvertModel.Request(model=text, output_format="obj"), "unknown format 'obj'"),
        (ConvertModel.Request(model=text, output_format=""), "output_format is empty"),
        (ConvertModel.Request(model='<robot name="r">\n<link name="a"/>\n<joint name="j" type="revolute">\n'
                                    '<parent link="a"/><child link="zz"/></joint>\n</robot>',
                              output_format="urdf"), "zz"),
        # a model text that looks like a path is still text, never a file read by the server
        (ConvertModel.Request(model=str(DEMO_ARM), output_format="urdf"), "cannot tell the model format"),
    ]
    for req, expected in bad_cases:
        resp = probe.call(ConvertModel, "/model_server/convert_model", req)
        assert not resp.success
        assert expected in resp.message, resp.message
        assert resp.model == ""

    resp = probe.call(GetModel, "/model_server/get_model", GetModel.Request(format=""))
    assert resp.success and resp.model == text and list(resp.warnings) == []
    resp = probe.call(GetModel, "/model_server/get_model", GetModel.Request(format="idyntree-model-json"))
    assert resp.success
    # what JSON cannot hold is said to the caller, as convert_model says it (the response had no warnings)
    assert [w for w in resp.warnings if "'tool_tip_joint' ('tool_tip')" in w], list(resp.warnings)
    assert [w for w in resp.warnings if "mimic" in w and "finger_right_joint" in w], list(resp.warnings)
    served = load_model(resp.model.encode())
    assert set(served.frames) == set(original.frames)
    resp = probe.call(GetModel, "/model_server/get_model", GetModel.Request(format="stl"))
    assert not resp.success and "unknown format 'stl'" in resp.message
    assert server.alive()


def test_convert_model_reads_no_file_unless_allowed(ros, tmp_path):
    """A request naming a file (here a SKEL mesh) reads nothing, and says the same whether it exists or not."""
    mesh = tmp_path / "secret.obj"
    mesh.write_text("v 0 0 0\nv 1 2 3\n")
    skel = ('<skel><world name="w"><skeleton name="s"><body name="b"><inertia><mass>1</mass></inertia>'
            "<visualization_shape><geometry><mesh><file_name>{}</file_name><scale>1 1 1</scale></mesh></geometry></visualization_shape>"
            '</body><joint type="free" name="j"><parent>world</parent><child>b</child></joint></skeleton></world></skel>')

    def convert(probe, path: str):
        req = ConvertModel.Request(model=skel.format(path), output_format="idyntree-model-json")
        resp = probe.call(ConvertModel, "/model_server/convert_model", req)
        assert resp.success, resp.message
        notes = [w.replace(path, "PATH") for w in resp.warnings if "mesh" in w]
        return load_model(resp.model.encode()).links["b"].inertia.inertia, notes

    server, probe = ros(58, {"model_file": str(DEMO_ARM)})
    wait_ready(server, probe)
    inertia, notes = convert(probe, str(mesh))
    assert np.array_equal(inertia, np.eye(3))  # DART's default: the mesh was not read
    assert notes and "reading files is disabled" in notes[0]
    assert convert(probe, str(tmp_path / "missing.obj"))[1] == notes  # nothing learnt about the file system

    server2, probe2 = ros(59, {"model_file": str(DEMO_ARM), "allow_file_access": True})
    wait_ready(server2, probe2)
    _, notes = convert(probe2, str(mesh))
    assert notes and "outside the model file's directory tree" in notes[0]  # allowed, but still contained
    assert server.alive() and server2.alive()


# -- model changes -----------------------------------------------------------------------------

def set_parameter(probe, name: str, value: str):
    p = Parameter(name=name, value=ParameterValue(type=ParameterType.PARAMETER_STRING, string_value=value))
    resp = probe.call(SetParameters, "/model_server/set_parameters", SetParameters.Request(parameters=[p]))
    return resp.results[0]


def get_parameter(probe, name: str):
    resp = probe.call(GetParameters, "/model_server/get_parameters", GetParameters.Request(names=[name]))
    return resp.values[0].string_value


def set_parameters(probe, **values: str):
    params = [Parameter(name=k, value=ParameterValue(type=ParameterType.PARAMETER_STRING, string_value=v))
              for k, v in values.items()]
    if len(params) == 1:
        resp = probe.call(SetParameters, "/model_server/set_parameters", SetParameters.Request(parameters=params))
        return resp.results
    resp = probe.call(SetParametersAtomically, "/model_server/set_parameters_atomically",
                      SetParametersAtomically.Request(parameters=params))
    return [resp.result]


def served_name(probe) -> str:
    resp = probe.call(GetModel, "/model_server/get_model", GetModel.Request(format="idyntree-model-json"))
    assert resp.success, resp.message
    return load_model(resp.model.encode(), "idyntree-model-json").name


def test_model_file_wins_and_parameters_show_what_is_served(ros):
    """model_file beats robot_description at start and at run time; the parameters say what is served."""
    sensorised = MODELS / "urdf" / "idyntree" / "icub_sensorised.urdf"
    server, probe = ros(47, {"model_file": str(DEMO_ARM), "robot_description": sensorised.read_text()})
    wait_ready(server, probe)
    assert served_name(probe) == "demo_arm"  # the file won over the description given with it
    assert "both model_file and robot_description are set: using model_file" in server.output()
    assert get_parameter(probe, "model_file") == str(DEMO_ARM)
    assert get_parameter(probe, "robot_description") == DEMO_ARM.read_text()  # mirrors the served file

    # robot_description alone while a file is served: refused, nothing changes
    (result,) = set_parameters(probe, robot_description=sensorised.read_text())
    assert not result.successful and "model_file" in result.reason and "precedence" in result.reason
    assert served_name(probe) == "demo_arm" and get_parameter(probe, "robot_description") == DEMO_ARM.read_text()

    # clearing model_file keeps the same model, now served from its text
    (result,) = set_parameters(probe, model_file="")
    assert result.successful, result.reason
    assert served_name(probe) == "demo_arm"
    # now robot_description is the source: a new one replaces the model
    (result,) = set_parameters(probe, robot_description=sensorised.read_text())
    assert result.successful, result.reason
    assert served_name(probe) == load_model(sensorised).name
    # both in one call: the file wins again, and the description mirrors it
    results = set_parameters(probe, model_file=str(DEMO_ARM), robot_description="ignored")
    assert all(r.successful for r in results), [r.reason for r in results]
    assert served_name(probe) == "demo_arm"
    assert get_parameter(probe, "robot_description") == DEMO_ARM.read_text()
    # each loader warning is printed once, through the node's logger (icub_sensorised's <gazebo> sensors)
    out = server.output()
    for line in ("13 <gazebo> sensor description(s) are not in the model",):
        assert out.count(line) == 1, out
        assert f"[model_server]: {line}" in out, out


def test_bad_description_refused_good_one_replaces_frames(ros):
    server, probe = ros(44, {"robot_description": DEMO_ARM.read_text()})
    wait_ready(server, probe)

    bad = '<robot name="broken">\n  <link name="a"/>\n  <joint name="j" type="fixed">\n' \
          '    <parent link="a"/>\n  </joint>\n</robot>'
    result = set_parameter(probe, "robot_description", bad)
    assert not result.successful
    assert "line 3" in result.reason and "joint name='j'" in result.reason and "child" in result.reason, result.reason
    # a model the loader accepts whose URDF description, the tree the node publishes, cannot be written (a joint axis
    # 1e308 m off its child's origin, as a fuzzed SKEL file had): refused with the URDF exporter's reason
    far = json.loads(export_model(load_model(
        '<robot name="r"><link name="a"/><link name="b"/><joint name="j" type="continuous"><parent link="a"/>'
        '<child link="b"/><axis xyz="0 1 0"/></joint></robot>', "urdf"), "idyntree-model-json"))
    far["joints"][0]["axis"]["origin"] = [1e308, 0.0, 0.0]
    result = set_parameter(probe, "robot_description", json.dumps(far))
    assert not result.successful
    assert "joint 'j'" in result.reason and "axis passes 1e+308 m from the child link origin" in result.reason, \
        result.reason
    result = set_parameter(probe, "robot_description", "   ")
    assert not result.successful and "empty" in result.reason
    resp = probe.call(GetModel, "/model_server/get_model", GetModel.Request(format=""))
    assert resp.success and resp.model == DEMO_ARM.read_text()  # the old model is still served

    new_file = MODELS / "urdf" / "idyntree" / "icub_sensorised.urdf"
    new_model = load_model(new_file)
    result = set_parameter(probe, "robot_description", new_file.read_text())
    assert result.successful, result.reason
    resp = probe.call(GetModel, "/model_server/get_model", GetModel.Request(format=""))
    assert resp.model == new_file.read_text()

    # a subscriber arriving now gets only the new, complete frame set
    static = probe.collect(TFMessage, "/tf_static", latched_qos())
    sensors = probe.collect(SensorList, "robot_sensors", latched_qos())
    probe.spin_until(lambda: static and sensors, what="the new latched topics")
    probe.spin_for(0.5)
    assert len(static) == 1
    children = {t.child_frame_id for t in static[0].transforms}
    expected = {j.child for j in new_model.joints.values() if j.type is JointType.FIXED} | set(new_model.frames)
    assert children == expected
    old = load_model(DEMO_ARM)
    assert not (children & (set(old.frames) | set(old.links)))  # nothing stale
    assert {s.name for s in sensors[0].sensors} == set(new_model.sensors)

    # and /tf now follows the new model
    tf = probe.collect(TFMessage, "/tf", tf_qos())
    pub = probe.node.create_publisher(JointState, "joint_states", 10)
    moving = [j.name for j in new_model.joints.values() if j.dofs == 1][:3]
    publish_until(probe, pub, joint_state(moving, [0.1, 0.2, 0.3]), lambda: tf, "/tf of the new model")
    assert {t.child_frame_id for t in tf[-1].transforms} == {new_model.joints[n].child for n in moving}


@pytest.mark.parametrize("param", ["description_from_topic", "use_robot_description_topic"])
def test_description_from_topic(ros, param):
    """Either name turns it on: ours, or robot_state_publisher's (its constructor declares
    use_robot_description_topic)."""
    server, probe = ros(45 if param == "description_from_topic" else 61, {param: True})
    pub = probe.node.create_publisher(String, "robot_description", latched_qos())
    static = probe.collect(TFMessage, "/tf_static", latched_qos())
    pub.publish(String(data=DEMO_ARM.read_text()))
    probe.spin_until(lambda: static, what="/tf_static after the description was published")
    resp = probe.call(GetModel, "/model_server/get_model", GetModel.Request(format=""))
    assert resp.success and resp.model == DEMO_ARM.read_text()
    pub.publish(String(data="<robot name='x'><link name='a'/><link name='b'/></robot>"))
    probe.spin_until(lambda: "rejected" in server.output(), what="the rejection of a bad description")
    assert "root" in server.output().split("rejected", 1)[1]  # two root links: says why
    resp = probe.call(GetModel, "/model_server/get_model", GetModel.Request(format=""))
    assert resp.model == DEMO_ARM.read_text()
    if param != "description_from_topic":
        return
    # the model comes from the topic: a model_file is refused with the reason (it replaced the topic's model);
    # a new option rebuilds the model last received (it was refused as "robot_description is empty")
    result = set_parameter(probe, "model_file", str(ICUB))
    assert not result.successful and "comes from the robot_description topic" in result.reason
    assert served_name(probe) == "demo_arm"
    n = len(static)
    assert set_parameter(probe, "frame_prefix", "t/").successful
    probe.spin_until(lambda: len(static) > n, what="/tf_static with the new prefix")
    assert all(t.header.frame_id.startswith("t/") for t in static[-1].transforms)
    # options rebuild from the text received, not from the reduced model served (which would stay reduced)
    def served_joints() -> set[str]:
        resp = probe.call(GetModel, "/model_server/get_model", GetModel.Request(format="idyntree-model-json"))
        return set(load_model(resp.model.encode(), "idyntree-model-json").joints)

    full = set(load_model(DEMO_ARM).joints)
    assert set_parameter(probe, "reduced_joints", "elbow").successful
    assert "elbow" in served_joints() < full
    assert set_parameter(probe, "frame_prefix", "u/").successful
    assert set_parameter(probe, "reduced_joints", "").successful
    assert served_joints() == full


def test_server_without_model_exits_with_reason(tmp_path: Path):
    import sys

    from ros_harness import Process

    proc = Process([sys.executable, "-m", "idyntree_models.ros.model_server"], 46)
    try:
        proc.proc.wait(TIMEOUT)
    finally:
        proc.stop()
    assert proc.proc.returncode == 1
    assert "no model" in proc.output()
    bad = Process([sys.executable, "-m", "idyntree_models.ros.model_server", "--ros-args", "-p",
                   f"model_file:={tmp_path / 'missing.urdf'}"], 46)
    try:
        bad.proc.wait(TIMEOUT)
    finally:
        bad.stop()
    assert bad.proc.returncode == 1 and "missing.urdf" in bad.output() and "no such file" in bad.output()


# -- robustness: bad joint_states, bad prefix, bursts, /tf during conversions ----------------------

def _only_finite_messages_reach_tf(probe, messages: list[JointState]) -> None:
    """Send `messages` (the last one finite, the others refused by the server) again and again until /tf
    shows the server has matched us too (discovery is not symmetric); then no more /tf messages than
    rounds sent may have arrived (one per round: the finite one), and every value in them is finite."""
    tf = probe.collect(TFMessage, "/tf", tf_qos())
    pub = probe.node.create_publisher(JointState, "joint_states", 10)
    probe.spin_until(lambda: pub.get_subscription_count() > 0, what="the server's joint_states subscription")
    sent = 0

    def send() -> bool:
        nonlocal sent
        for msg in messages:
            pub.publish(msg)
        sent += 1
        probe.spin_for(0.2)
        return bool(tf)

    probe.spin_until(send, what="/tf of the finite message")
    probe.spin_for(0.5)
    assert 1 <= len(tf) <= sent, "a refused message reached /tf"
    for msg in tf:
        for stamped in msg.transforms:
            t = stamped.transform
            values = [t.translation.x, t.translation.y, t.translation.z, t.rotation.x, t.rotation.y,
                      t.rotation.z, t.rotation.w]
            assert all(np.isfinite(values)), (stamped.child_frame_id, values)


def test_non_finite_positions_dropped_and_bad_prefix_refused(ros):
    server, probe = ros(51, {"model_file": str(DEMO_ARM), "publish_frequency": 0.0})
    wait_ready(server, probe)
    _only_finite_messages_reach_tf(
        probe, [joint_state(["elbow"], [value]) for value in (float("nan"), float("inf"), -float("inf"), 0.25)])
    # the server may have matched us only in time for the finite message of a round (discovery is not symmetric):
    # a non-finite one sent now is refused, and said, by a server that is known to receive us
    pub = probe.node.create_publisher(JointState, "joint_states", 10)
    said = "non-finite position for joint(s) elbow; message ignored"
    deadline = time.monotonic() + TIMEOUT
    while said not in server.output() and time.monotonic() < deadline:
        pub.publish(joint_state(["elbow"], [float("nan")]))
        probe.spin_for(0.2)
    assert said in server.output()
    for bad in ("/r1/", "r 1/", "r1//", "ü/"):
        (result,) = set_parameters(probe, frame_prefix=bad)
        assert not result.successful and "frame_prefix" in result.reason, (bad, result.reason)
    (result,) = set_parameters(probe, frame_prefix="r1/")
    assert result.successful, result.reason
    assert server.alive()




def test_finite_positions_that_overflow_are_dropped(ros):
    """Finite positions whose pose is not finite: a mimic multiplier of 1e308 turns shoulder = 3 into an
    infinite angle (a NaN rotation), a prismatic joint at 1e308 on an origin at 1e308 into an infinite
    translation.  Such a message is dropped with the joints named, as a NaN position is; a message whose
    poses are finite, next to it, still reaches /tf."""
    server, probe = ros(68, {"model_file": str(OVERFLOW), "publish_frequency": 0.0})
    wait_ready(server, probe)
    _only_finite_messages_reach_tf(probe, [
        joint_state(["shoulder", "slide"], [3.0, 0.5]),  # finger_joint: 3e308 rad
        joint_state(["shoulder", "slide"], [0.5, 1e308]),  # slider at 2e308 m
        joint_state(["shoulder", "slide"], [0.5, -1e308]),  # finite: published
    ])
    # throttled: the first refused message received is named. The server may have matched us only in time for the
    # finite message of a round (discovery is not symmetric; seen once in a full run): a refused one sent now
    # reaches a server known to receive us. The node's log comes through a pipe, which may deliver it after /tf
    said = ("the positions give joint(s) finger_joint a non-finite pose; message ignored",
            "the positions give joint(s) slide a non-finite pose; message ignored")
    pub = probe.node.create_publisher(JointState, "joint_states", 10)
    publish_until(probe, pub, joint_state(["shoulder", "slide"], [3.0, 0.5]),
                  lambda: any(s in server.output() for s in said), "the warning naming the refused joints")
    assert server.alive()


def test_burst_of_100_conversions_all_answered(ros):
    server, probe = ros(52, {"model_file": str(DEMO_ARM)})
    wait_ready(server, probe)
    from rclpy.qos import QoSProfile

    client = probe.node.create_client(ConvertModel, "/model_server/convert_model",
                                      qos_profile=QoSProfile(depth=1000))
    probe.spin_until(client.service_is_ready, what="convert_model")
    text = DEMO_ARM.read_text()
    futures = [client.call_async(ConvertModel.Request(model=text, output_format=fmt))
               for fmt in ("idyntree-model-json", "sdf", "urdf", "mjcf") * 25]
    probe.spin_until(lambda: all(f.done() for f in futures), timeout=300, what="100 answers")
    assert all(f.result().success for f in futures), [f.result().message for f in futures if not f.result().success]
    assert server.alive()


@pytest.mark.parametrize("executor", ["single", "multi"])
def test_tf_goes_on_while_a_long_conversion_runs(ros, monkeypatch, executor):
    """joint_states -> /tf has a thread of its own: a conversion run by the executor does not hold it up."""
    import sys

    monkeypatch.setenv("IDYNTREE_MODELS_EXECUTOR", executor)

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
    from common import synthetic_urdf

    big = synthetic_urdf(4000)  # a conversion of several hundred ms at least
    server, probe = ros(53, {"model_file": str(DEMO_ARM), "publish_frequency": 0.0})
    wait_ready(server, probe)
    arrivals: list[float] = []
    probe.node.create_subscription(TFMessage, "/tf", lambda _: arrivals.append(time.monotonic()), tf_qos())
    pub = probe.node.create_publisher(JointState, "joint_states", 10)
    client = probe.node.create_client(ConvertModel, "/model_server/convert_model")
    probe.spin_until(lambda: pub.get_subscription_count() > 0 and client.service_is_ready(), what="the server")
    start = time.monotonic()
    future = client.call_async(ConvertModel.Request(model=big, output_format="urdf"))
    while not future.done():
        pub.publish(joint_state(["elbow"], [0.1]))
        probe.spin_for(0.02)
    end = time.monotonic()
    assert future.result().success, future.result().message
    # A server that converts in the thread that publishes /tf answers the queued joint_states only
    # after the conversion: nothing arrives in the first half of it. Ours keeps publishing.
    first_half = [t for t in arrivals if start < t < (start + end) / 2]
    assert len(first_half) >= 3, f"{len(first_half)} /tf messages in the first half of a {end - start:.2f} s conversion"


@pytest.mark.parametrize("path,domain", [("thread", 46), ("executor", 67)])
def test_every_joint_states_message_makes_its_own_tf_message(ros, monkeypatch, path, domain):
    """No joint_states message is skipped or merged: 400 at 200 Hz give 400 /tf messages, each with its stamp.

    The values are checked against the model's forward kinematics computed with 4x4 matrices
    (Kinematics.joint_transforms), a different path from the quaternion rows the server publishes.
    Both joint_states paths: the server's own thread (the default) and the executor subscription it
    falls back to (IDYNTREE_MODELS_TF_PATH=executor, or an rclpy whose binding the thread cannot use).
    """
    from builtin_interfaces.msg import Time

    monkeypatch.setenv("IDYNTREE_MODELS_TF_PATH", path)  # read by the server process it starts
    server, probe = ros(domain, {"model_file": str(DEMO_ARM), "publish_frequency": 0.0})
    wait_ready(server, probe)
    received: dict[int, object] = {}
    probe.node.create_subscription(TFMessage, "/tf", lambda m: received.setdefault(m.transforms[0].header.stamp.sec, m),
                                   QoSProfile(depth=1000, reliability=ReliabilityPolicy.RELIABLE))
    pub = probe.node.create_publisher(JointState, "joint_states", 10)
    probe.spin_until(lambda: pub.get_subscription_count() > 0, what="the server's joint_states subscription")
    probe.spin_for(1.0)  # our /tf subscription matched too
    names = ["torso_yaw", "elbow", "finger_left_joint"]
    n = 400
    for i in range(n):
        pub.publish(joint_state(names, [0.01 * i - 2.0, 1.5 - 0.007 * i, 0.0001 * i], Time(sec=1000 + i)))
        probe.spin_for(0.005)
    probe.spin_until(lambda: len(received) >= n, timeout=30, what=f"{n} /tf messages")
    probe.spin_for(0.5)
    assert sorted(received) == [1000 + i for i in range(n)]
    kin = Kinematics(load_model(DEMO_ARM))
    for i in (0, 123, 399):
        q = [0.01 * i - 2.0, 1.5 - 0.007 * i, 0.0001 * i]
        local = kin.joint_transforms(dict(zip(names, q)))[0]
        got = {t.child_frame_id: msg_to_matrix(t.transform) for t in received[1000 + i].transforms}
        for name in names:
            j = kin.joint_index[name]
            assert np.allclose(got[kin.joints[j].child], local[j], atol=1e-9), (i, name)


def test_joint_states_as_robot_state_publisher_reads_them(ros):
    """A message that cannot be read (a truncated big-endian one) is dropped and the next ones are served (it
    used to stop /tf for good); a name given twice takes its first position; with ignore_timestamp every
    message is published with its own stamp, unthrottled (robot_state_publisher's callbackJointState); a
    joint_states naming one revolute of a spherical joint moves that one alone."""
    import struct

    server, probe = ros(60, {"model_file": str(DEMO_ARM), "ignore_timestamp": True})
    tf = probe.collect(TFMessage, "/tf", tf_qos())
    pub = probe.node.create_publisher(JointState, "joint_states", 10)
    wait_ready(server, probe)
    publish_until(probe, pub, joint_state(["elbow"], [0.1]), lambda: tf, "/tf")

    # big-endian CDR of a JointState, cut short: rclpy's deserializer raises on it
    body = struct.pack(">iI", 5, 0) + struct.pack(">I", 1) + b"\0" + b"\0" * 3 + struct.pack(">I", 1)
    body += struct.pack(">I", 6) + b"elbow\0" + b"\0" * 2 + struct.pack(">I", 1) + struct.pack(">d", 0.2)
    pub.publish(b"\0\0\0\0" + body[:-4])
    probe.spin_for(0.5)
    assert "joint_states: undecodable message" in server.output()

    n = len(tf)
    for k in range(5):  # 5 ms apart, one stamp: throttling at 20 Hz would publish one
        pub.publish(joint_state(["elbow", "elbow"], [0.3 + 0.1 * k, 9.0], stamp=rclpy.time.Time(seconds=7).to_msg()))
        time.sleep(0.005)
    probe.spin_until(lambda: len(tf) >= n + 5, what="the five /tf messages")
    got = tf[n:n + 5]
    assert all((m.transforms[0].header.stamp.sec, m.transforms[0].header.stamp.nanosec) == (7, 0) for m in got)
    model = load_model(DEMO_ARM)
    kin = Kinematics(model)
    elbow = model.joints["elbow"]
    for k, m in enumerate(got):  # (the first of the two positions)
        want = np.linalg.inv(kin.world_transforms({})[elbow.parent]) @ kin.world_transforms(
            {"elbow": 0.3 + 0.1 * k})[elbow.child]
        np.testing.assert_allclose(msg_to_matrix(m.transforms[0].transform), want, atol=1e-9)

    n = len(tf)
    pub.publish(joint_state(["spherical_rev_shoulder_y"], [0.4], stamp=rclpy.time.Time(seconds=8).to_msg()))
    probe.spin_until(lambda: len(tf) > n, what="/tf of one revolute of the shoulder")
    assert [t.child_frame_id for t in tf[n].transforms] == ["spherical_fake_shoulder_link2"]



def test_unstamped_joint_states_are_said_not_to_move_tf(ros):
    """`ros2 topic pub` sends stamp 0: the first message is published, then none (as robot_state_publisher: at most
    publish_frequency per second of stamps), and the robot looked frozen without a word."""
    server, probe = ros(72, {"model_file": str(DEMO_ARM)})
    tf = probe.collect(TFMessage, "/tf", tf_qos())
    pub = probe.node.create_publisher(JointState, "joint_states", 10)
    wait_ready(server, probe)
    while not tf:  # (the first ones may go out before discovery)
        pub.publish(joint_state(["elbow"], [0.1], stamp=rclpy.time.Time(seconds=0).to_msg()))
        probe.spin_for(0.2)
    n = len(tf)
    for k in range(5):
        pub.publish(joint_state(["elbow"], [0.5 + 0.1 * k], stamp=rclpy.time.Time(seconds=0).to_msg()))
        probe.spin_for(0.1)
    end = time.monotonic() + TIMEOUT
    while "does not advance past the last published one" not in server.output() and time.monotonic() < end:
        probe.spin_for(0.2)
    assert len(tf) == n  # nothing more was published ...
    assert "joint_states: stamp 0.000000000 does not advance past the last published one" in server.output()
    assert server.output().count("does not advance past") == 1  # ... and it is said once (throttled), not per message
