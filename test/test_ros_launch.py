"""The launch file and its parameter file.

The launch file itself can only be loaded where launch_ros is installed (a ROS 2 install; not
on PyPI), so that test is skipped elsewhere.  The YAML defaults are checked everywhere against
the parameters the node really declares.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml
from ros_harness import domain_id

REPO = Path(__file__).resolve().parents[1]
LAUNCH = REPO / "launch" / "model_server.launch.py"
CONFIG = REPO / "config" / "model_server.yaml"
DEMO_ARM = REPO / "idyntree_models" / "data" / "demo_arm.urdf"


def test_config_defaults_are_the_node_parameters():
    rclpy = pytest.importorskip("rclpy")
    from rclpy.parameter import Parameter

    from idyntree_models.ros.model_server import ModelServer

    os.environ["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"
    defaults = yaml.safe_load(CONFIG.read_text())["/**"]["ros__parameters"]
    context = rclpy.Context()
    rclpy.init(context=context, domain_id=domain_id(50))
    try:
        node = ModelServer(context=context, parameter_overrides=[Parameter("model_file", value=str(DEMO_ARM))])
        declared = {name: node.get_parameter(name).value for name in defaults}
        assert set(defaults) <= set(node._parameters)
        own = set(node._parameters) - {"use_sim_time", "start_type_description_service"}
        assert own == set(defaults)  # every parameter of the node is in the file
        for name, value in defaults.items():
            if name != "model_file":
                assert declared[name] == value, name
        node.destroy_node()
    finally:
        context.try_shutdown()


def test_launch_file_loads_with_its_arguments():
    pytest.importorskip("launch_ros")
    from launch.actions import DeclareLaunchArgument
    from launch.launch_description_sources import get_launch_description_from_python_launch_file
    from launch_ros.actions import Node

    description = get_launch_description_from_python_launch_file(str(LAUNCH))
    arguments = {a.name for a in description.entities if isinstance(a, DeclareLaunchArgument)}
    defaults = yaml.safe_load(CONFIG.read_text())["/**"]["ros__parameters"]
    assert set(defaults) <= arguments
    nodes = [e for e in description.entities if isinstance(e, Node)]
    assert len(nodes) == 1
