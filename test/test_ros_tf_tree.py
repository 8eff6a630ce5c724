"""The frame tree model_server publishes follows the description, as robot_state_publisher's does.

robot_state_publisher publishes every fixed joint of the URDF on /tf_static and every moving joint
on /tf (from joint_states), each as parent -> child exactly as the URDF writes it, so the TF root
is the URDF's root link.  Over real DDS, for ur10 (`world --fixed--> base_link`), panda (mimic
finger) and iCub (massless `base_link` above `root_link`, force/torque sensors): the (parent,
child) pairs published equal the URDF's joints, read by urdf_parser_py, plus one frame per sensor
as a child of its link (our addition), and the only frame that is nobody's child is the URDF root.
"""

from __future__ import annotations

import pytest
from lxml import etree

from ros_harness import Probe, latched_qos, start_server, tf_qos

rclpy = pytest.importorskip("rclpy")
urdf_parser = pytest.importorskip("urdf_parser_py.urdf")

from idyntree_models_interfaces.srv import GetModel  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402
from std_msgs.msg import String  # noqa: E402
from tf2_msgs.msg import TFMessage  # noqa: E402

from conftest import MODELS  # noqa: E402

CASES = {
    "ur10": (MODELS / "urdf/example-robot-data/robots/ur_description/urdf/ur10_robot.urdf", 55),
    "panda": (MODELS / "urdf/example-robot-data/robots/panda_description/urdf/panda.urdf", 56),
    "icub": (MODELS / "urdf/idyntree/iCubGenova02.urdf", 57),
}


def _expected(path) -> tuple[set, set, str, set]:
    """(fixed pairs, moving pairs, root link, sensor-frame pairs) by robot_state_publisher's rules."""
    robot = urdf_parser.URDF.from_xml_file(str(path))
    fixed = {(j.parent, j.child) for j in robot.joints if j.type == "fixed"}
    moving = {(j.parent, j.child) for j in robot.joints if j.type not in ("fixed", "floating")}
    root = robot.get_root()
    # iDynTree's <sensor> extension: one frame per sensor, named after it, unless the name is taken
    links = {link.name: link for link in robot.links}
    parent_of = {j.child: j for j in robot.joints}
    sensors = set()
    for el in etree.parse(str(path)).getroot().findall("sensor"):
        name = el.get("name")
        if name in links:
            continue
        if el.get("type") == "force_torque":
            joint = next(j for j in robot.joints if j.name == el.find("parent").get("joint"))
            sensors.add((joint.child, name))
        else:
            link = el.find("parent").get("link")
            mass = links[link].inertial.mass if links[link].inertial is not None else 0.0
            j = parent_of.get(link)
            if not mass > 0 and j is not None and j.type == "fixed" and not any(
                    k.parent == link for k in robot.joints):
                link = j.parent  # a massless leaf is a frame: the sensor sits on the real link
            sensors.add((link, name))
    return fixed, moving, root, sensors


@pytest.mark.parametrize("name", list(CASES))
def test_published_frame_tree_is_the_urdf_joint_tree(name):
    path, domain = CASES[name]
    fixed, moving, root, sensor_frames = _expected(path)
    robot = urdf_parser.URDF.from_xml_file(str(path))
    drive = {j.name: 0.1 for j in robot.joints if j.type not in ("fixed", "floating") and j.mimic is None}

    server = start_server(domain, {"model_file": str(path), "publish_frequency": 0.0})
    probe = Probe(domain)
    try:
        static = probe.collect(TFMessage, "/tf_static", latched_qos())
        tf = probe.collect(TFMessage, "/tf", tf_qos())
        pub = probe.node.create_publisher(JointState, "joint_states", 10)
        resp = probe.call(GetModel, "/model_server/get_model", GetModel.Request(format=""))
        assert resp.success, server.output()
        msg = JointState(name=list(drive), position=list(drive.values()))

        def moving_pairs() -> set:
            return {(t.header.frame_id, t.child_frame_id) for m in tf for t in m.transforms}

        def done() -> bool:
            pub.publish(msg)
            return bool(static) and moving_pairs() >= moving

        probe.spin_until(done, what="/tf_static and /tf of every moving joint")
        static_pairs = {(t.header.frame_id, t.child_frame_id) for t in static[-1].transforms}
    finally:
        probe.close()
        server.stop()
        print(server.output())

    assert moving_pairs() == moving  # mimic joints follow their master, as in robot_state_publisher
    assert static_pairs == fixed | sensor_frames, (
        f"missing {sorted((fixed | sensor_frames) - static_pairs)}, extra {sorted(static_pairs - fixed - sensor_frames)}")
    pairs = static_pairs | moving
    children = [c for _, c in pairs]
    assert len(children) == len(set(children))  # every frame has one parent
    assert {p for p, _ in pairs} - set(children) == {root}  # the TF root is the URDF's root link
    if name == "ur10":
        assert ("world", "base_link") in static_pairs and root == "world"


OFF_AXIS_SDF = """<sdf version="1.9"><model name="m">
  <link name="base"><pose>0 0 0.5 0 0 0</pose><inertial><mass>1</mass></inertial></link>
  <link name="arm"><pose>0 0 1 0 0 0</pose><inertial><mass>1</mass></inertial></link>
  <link name="hand"><pose>0 0 1.5 0 0 0</pose><inertial><mass>1</mass></inertial></link>
  <joint name="anchor" type="fixed"><parent>world</parent><child>base</child></joint>
  <joint name="elbow" type="revolute"><pose>0.2 0 0 0 0 0</pose><parent>base</parent><child>arm</child>
    <axis><xyz>0 0 1</xyz><limit><lower>-1</lower><upper>1</upper></limit></axis></joint>
  <joint name="wrist" type="ball"><parent>arm</parent><child>hand</child></joint>
</model></sdf>"""


def test_every_link_of_an_exported_description_has_a_transform(tmp_path):
    """An SDF (SKEL, MJCF) model is published as its URDF export, which writes a joint axis off its child's origin
    through an `_axis_offset` link, SDF's joint to the world as a `world` link and a ball joint as three revolutes:
    /tf published none of the first two, so RViz found no transform for them (18 of 173 corpus models)."""
    path = tmp_path / "m.sdf"
    path.write_text(OFF_AXIS_SDF)
    server = start_server(62, {"model_file": str(path), "publish_frequency": 0.0})
    probe = Probe(62)
    try:
        description = probe.collect(String, "robot_description", latched_qos())
        static = probe.collect(TFMessage, "/tf_static", latched_qos())
        tf = probe.collect(TFMessage, "/tf", tf_qos())
        probe.spin_until(lambda: bool(description) and bool(static), what="robot_description and /tf_static")
        robot = urdf_parser.URDF.from_xml_string(description[-1].data)
        moving = {(j.parent, j.child) for j in robot.joints if j.type not in ("fixed", "floating")}
        pub = probe.node.create_publisher(JointState, "joint_states", 10)
        names = [j.name for j in robot.joints if j.type not in ("fixed", "floating")]
        msg = JointState(name=names, position=[0.1] * len(names))

        def done() -> bool:
            pub.publish(msg)
            return {(t.header.frame_id, t.child_frame_id) for m in tf for t in m.transforms} >= moving

        probe.spin_until(done, what="/tf of every moving joint")
        pairs = {(t.header.frame_id, t.child_frame_id) for m in static[-1:] + tf for t in m.transforms}
    finally:
        probe.close()
        server.stop()
        print(server.output())
    links = {link.name for link in robot.links}
    assert {"world", "arm_axis_offset", "spherical_fake_wrist_link1", "spherical_fake_wrist_link2"} <= links, links
    framed = {c for _, c in pairs} | {p for p, _ in pairs}
    assert links <= framed, f"no transform for {sorted(links - framed)}"
    fixed = {(j.parent, j.child) for j in robot.joints if j.type == "fixed"}
    assert fixed | moving <= pairs, sorted((fixed | moving) - pairs)


def test_a_sensor_named_as_a_link_of_the_published_tree_gets_its_own_frame():
    """A sensor's frame name was checked against the model, not against the tree /tf publishes (the URDF form adds
    a `world` link for SDF's joint to the world): a camera named `world` made world -> base and base -> world."""
    from idyntree_models import load_model
    from idyntree_models.ros.served import ServedModel

    text = """<sdf version="1.9"><model name="m">
      <joint name="fix" type="fixed"><parent>world</parent><child>base</child></joint>
      <link name="base"><inertial><mass>1</mass></inertial>
        <sensor name="cam" type="camera"><pose>0 0 0.1 0 0 0</pose></sensor></link></model></sdf>"""
    model = load_model(text, format="sdf", add_sensor_frames_as_additional_frames=False)
    sensor = model.sensors.pop("cam")  # (SDF reserves the name 'world'; a model from another format may use it)
    sensor.name = "world"
    model.sensors["world"] = sensor
    served = ServedModel(model, text, "sdf")
    children = [f.child for f in served.static_frames]
    assert len(children) == len(set(children)), served.static_frames  # one parent each: no loop
    assert [s.frame for s in served.sensors] == ["world_sensor_frame"]


def test_robot_sensors_name_the_links_of_the_published_description():
    """A force/torque sensor on a joint whose axis is off its child's origin is on the `_axis_offset` link in the
    description (its joint's child there); robot_sensors named the model's child, no link of that joint, and its
    frame was published twice (on each link)."""
    from idyntree_models import export_model, load_model
    from idyntree_models.ros.served import ServedModel

    text = """<sdf version="1.9"><model name="m"><link name="base"><inertial><mass>1</mass></inertial></link>
      <link name="arm"><pose>0 0 1 0 0 0</pose><inertial><mass>1</mass></inertial></link>
      <joint name="elbow" type="revolute"><pose>0.2 0 0 0 0 0</pose><parent>base</parent><child>arm</child>
        <axis><xyz>0 0 1</xyz><limit><lower>-1</lower><upper>1</upper></limit></axis>
        <sensor name="elbow_ft" type="force_torque"><force_torque><frame>child</frame></force_torque></sensor></joint>
      </model></sdf>"""
    model = load_model(text, format="sdf")
    served = ServedModel(model, text, "sdf")
    elbow = next(j for j in urdf_parser.URDF.from_xml_string(export_model(model, "urdf")).joints if j.name == "elbow")
    (info,) = served.sensors
    assert {info.first_link, info.second_link} == {elbow.parent, elbow.child}, (info, elbow.parent, elbow.child)
    edges = [(f.parent, f.child) for f in served.static_frames if f.child.startswith("elbow_ft")]
    assert edges == [(elbow.child, "elbow_ft")] and info.frame == "elbow_ft"
