"""The node's `strict` parameter: a model that loads only with warnings is refused, with the warning as the reason."""

from __future__ import annotations

import time

import pytest

from ros_harness import TIMEOUT, start_server

pytest.importorskip("rclpy")

ROBOT = """<robot name="r">
  <link name="a"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="b"><inertial><mass value="1"/><inertia ixx="-0.021" iyy="0.052" izz="0.099" ixy="0" ixz="0" iyz="0"/>
  </inertial></link>
  <joint name="j" type="revolute"><parent link="a"/><child link="b"/><axis xyz="0 0 1"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
</robot>
"""


def test_strict_parameter_refuses_what_otherwise_loads_with_a_warning(tmp_path):
    path = tmp_path / "r.urdf"
    path.write_text(ROBOT)
    lenient = start_server(54, {"model_file": str(path)})
    strict = start_server(54, {"model_file": str(path), "strict": True}, name="strict_server")
    try:
        strict.proc.wait(TIMEOUT)
        assert strict.proc.returncode == 1
        end = time.monotonic() + TIMEOUT
        while "serving model 'r'" not in lenient.output() and time.monotonic() < end:
            time.sleep(0.1)
        assert lenient.alive()  # still serving
    finally:
        strict.stop()
        lenient.stop()
    message = "link 'b': rotational inertia is not positive semi-definite"
    assert message in lenient.output() and "serving model 'r'" in lenient.output()
    assert message in strict.output() and "strict: warnings are errors" in strict.output()
