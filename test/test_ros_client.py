"""The estimator-side client, the example estimator and the demo, against a real model_server."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from ros_harness import TIMEOUT, Probe, Process, domain_id, start_server

pytest.importorskip("rclpy")

from sensor_msgs.msg import JointState  # noqa: E402

from idyntree_models.api import load_model  # noqa: E402
from idyntree_models.model.kinematics import Kinematics  # noqa: E402

from conftest import DEMO, MODELS  # noqa: E402

ICUB = MODELS / "urdf" / "idyntree" / "iCubGenova02.urdf"


def test_client_sees_sensors_model_and_transforms():
    from idyntree_models.ros.client import ModelClient

    server = start_server(47, {"model_file": str(ICUB), "publish_frequency": 0.0})
    probe = Probe(47)
    try:
        client = ModelClient(probe.node, executor=probe.executor)
        assert client.wait(lambda: client.sensors and client.static, TIMEOUT), server.output()
        reference = load_model(ICUB)
        assert {s.name for s in client.sensors} == set(reference.sensors)
        model = client.get_model(TIMEOUT)
        assert set(model.links) == set(reference.links) and set(model.frames) == set(reference.frames)

        config = {j.name: 0.0 for j in reference.joints.values() if j.dofs == 1}
        config.update({"l_elbow": 0.5, "torso_pitch": 0.2, "l_shoulder_pitch": -0.4})
        pub = probe.node.create_publisher(JointState, "joint_states", 10)
        msg = JointState(name=list(config), position=list(config.values()))
        while not client.wait(lambda: client.tf_messages > 0, 0.3):
            msg.header.stamp = probe.node.get_clock().now().to_msg()
            pub.publish(msg)
        fk = Kinematics(reference).world_transforms(config)
        h = client.lookup("root_link", "l_arm_ft_sensor")
        np.testing.assert_allclose(h, fk["l_arm_ft_sensor"], atol=1e-9)
        h = client.lookup("l_arm_ft_sensor", "r_foot_ft_sensor")
        np.testing.assert_allclose(h, np.linalg.solve(fk["l_arm_ft_sensor"], fk["r_foot_ft_sensor"]), atol=1e-9)
        with pytest.raises(KeyError, match="not connected"):
            client.lookup("root_link", "no_such_frame")
    finally:
        probe.close()
        server.stop()


def test_example_estimator_prints_sensors_and_ft_poses():
    server = start_server(48, {"model_file": str(ICUB)})
    try:
        est = Process([sys.executable, "-m", "idyntree_models.ros.example_estimator", "--timeout", "20"], 48)
        est.proc.wait(60)
        out = est.output()
        est.stop()
        assert est.proc.returncode == 0, out + server.output()
        assert "6 sensors" in out and "l_arm_ft_sensor" in out and "force/torque sensor frames" in out
        # the model's name is the same everywhere: the file's <robot name>, the server's log, the estimator
        name = load_model(ICUB).name
        assert name == "iCubGenova02" and f"model '{name}'" in out and f"serving model '{name}'" in server.output(), out
    finally:
        server.stop()


def test_demo_runs_and_stops_its_server():
    demo = Process([sys.executable, "-m", "idyntree_models.demo", "--domain-id", str(domain_id(49))], 49)
    try:
        demo.proc.wait(120)
    finally:
        demo.stop()
    out = demo.output()
    assert demo.proc.returncode == 0, out
    assert "demo finished" in out and "model_server stopped" in out
    assert "= library FK: False" not in out and out.count("= library FK: True") == 4
    assert DEMO.is_dir()


def test_example_estimator_finds_a_server_in_another_namespace(tmp_path):
    """The client took get_model from --server but robot_sensors from its own namespace: for a server in /r2 it
    printed '72 sensors' from the model, then '0 sensors', and exited 0. The sensors now follow the server's name,
    resolved as ROS resolves names (absolute, or relative to the estimator's namespace); none arriving is an error."""
    import yaml

    params = tmp_path / "params.yaml"
    params.write_text(yaml.safe_dump({"/**": {"ros__parameters": {"model_file": str(ICUB)}}}))
    server = Process([sys.executable, "-m", "idyntree_models.ros.model_server", "--ros-args", "-r", "__node:=ms2",
                      "-r", "__ns:=/r2", "--params-file", str(params)], 71)
    estimator = [sys.executable, "-m", "idyntree_models.ros.example_estimator", "--timeout", "20"]
    try:
        for args in (["--server", "/r2/ms2"], ["--server", "ms2", "--ros-args", "-r", "__ns:=/r2"],
                     ["--server", "r2/ms2"]):
            est = Process(estimator + args, 71)
            est.proc.wait(60)
            out = est.output()
            est.stop()
            assert est.proc.returncode == 0, out + server.output()
            assert "6 sensors (frames in TF" in out and "l_arm_ft_sensor" in out, out
        est = Process(estimator + ["--server", "/r2/ms2", "--ros-args", "-r", "/r2/robot_sensors:=/elsewhere"], 71)
        est.proc.wait(60)
        out = est.output()
        est.stop()
        assert est.proc.returncode == 1 and "the model has 6 sensors, but none arrived on /elsewhere" in out, out
    finally:
        server.stop()
