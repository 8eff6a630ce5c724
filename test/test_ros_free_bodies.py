"""The `free_bodies` parser option as a node parameter: a real model_server over DDS (domain 57).

An SDF model with a free link is served with the free link's six-joint chain (its joints are in
the served model); setting `free_bodies` to `error` at run time is refused with the loader's reason,
and the served model stays.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ros_harness import TIMEOUT, Probe, start_server

rclpy = pytest.importorskip("rclpy")

from idyntree_models_interfaces.srv import GetModel  # noqa: E402
from rcl_interfaces.msg import Parameter, ParameterType, ParameterValue  # noqa: E402
from rcl_interfaces.srv import SetParameters  # noqa: E402

FREE = """<sdf version="1.9"><model name="m">
  <link name="base"/><link name="arm"><pose>0 0 1 0 0 0</pose></link>
  <joint name="j" type="revolute"><parent>base</parent><child>arm</child>
    <axis><xyz>0 0 1</xyz><limit><lower>-1</lower><upper>1</upper></limit></axis></joint>
  <link name="ball"><pose>1 2 3 0 0 0</pose></link>
</model></sdf>"""


def test_free_bodies_parameter(tmp_path: Path) -> None:
    path = tmp_path / "free.sdf"
    path.write_text(FREE)
    server = start_server(57, {"model_file": str(path)})
    probe = Probe(57)
    try:
        resp = probe.call(GetModel, "/model_server/get_model", GetModel.Request(format="idyntree-model-json"),
                          timeout=TIMEOUT)
        assert resp.success, server.output()
        assert '"ball_free_x"' in resp.model and '"ball_free_roll"' in resp.model
        p = Parameter(name="free_bodies", value=ParameterValue(type=ParameterType.PARAMETER_STRING,
                                                                  string_value="error"))
        result = probe.call(SetParameters, "/model_server/set_parameters",
                            SetParameters.Request(parameters=[p])).results[0]
        assert not result.successful and "joined to no joint" in result.reason
        again = probe.call(GetModel, "/model_server/get_model", GetModel.Request(format="idyntree-model-json"))
        assert again.model == resp.model
    finally:
        probe.close()
        server.stop()
