"""The launch file and its parameter file.

The YAML defaults are checked here against the parameters the node really declares; the launch
file itself is run for real with `ros2 launch` in test_ros_cli.py.
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
            if name not in ("model_file", "robot_description"):  # the description mirrors the file
                assert declared[name] == value, name
        node.destroy_node()
    finally:
        context.try_shutdown()
