"""Where a review against iDynTree and urdf_parser_py found our URDF reader silent or wrong about what it did.

The references disagree on a repeated element (urdfdom reads the first, iDynTree the last): we read the first,
and the warning now says which reader reads what (it said every reader reads the first).  A mesh scale of one
number (urdfdom refuses it, iDynTree reads 1 1 1) is read on each axis, now with a warning.  An <inertia>
missing some of its six numbers (urdfdom refuses it, iDynTree takes a zero inertia) loaded with zeros for the
missing: it is refused.  A pose beyond a double on a sensor let numpy's RuntimeWarning out and was refused
without a line.
"""

from __future__ import annotations

import warnings as python_warnings

import numpy as np
import pytest

from idyntree_models import Kinematics, load_model
from idyntree_models.errors import ModelError

urdf_parser = pytest.importorskip("urdf_parser_py.urdf")

INERTIA = '<inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/>'
LINK_A = f'<link name="a"><inertial><mass value="1"/>{INERTIA}</inertial></link>'
LINK_B = f'<link name="b"><inertial><mass value="1"/>{INERTIA}</inertial></link>'


def _parses_in_urdfdom(text: str) -> bool:
    try:
        urdf_parser.URDF.from_xml_string(text)
    except Exception:  # noqa: BLE001  (urdf_parser_py raises what it raises: any refusal)
        return False
    return True


def test_a_repeated_origin_is_the_first_and_the_warning_names_both_readers() -> None:
    text = (f'<robot name="r">{LINK_A}{LINK_B}<joint name="j" type="fixed"><parent link="a"/><child link="b"/>'
            '<origin xyz="1 0 0"/><origin xyz="2 0 0"/></joint></robot>')
    assert urdf_parser.URDF.from_xml_string(text).joints[0].origin.xyz == [1.0, 0.0, 0.0]  # urdfdom: the first
    idt = pytest.importorskip("idyntree.swig")
    loader = idt.ModelLoader()
    assert loader.loadModelFromString(text)
    model = loader.model()
    a_H_b = model.getJoint(model.getJointIndex("j")).getRestTransform(model.getLinkIndex("a"), model.getLinkIndex("b"))
    assert a_H_b.getPosition().toString().split() == ["2", "0", "0"]  # iDynTree: the last
    warnings: list[str] = []
    ours = load_model(text, "urdf", warnings=warnings)
    np.testing.assert_array_equal(Kinematics(ours).world_transforms({})["b"][:3, 3], [1.0, 0.0, 0.0])
    assert any("only the first is read, as urdfdom reads it (iDynTree reads the last)" in w for w in warnings)


def test_a_one_number_mesh_scale_is_said() -> None:
    text = (f'<robot name="r">{LINK_A[:-7]}<visual><geometry><mesh filename="m.stl" scale="2"/></geometry></visual>'
            "</link></robot>")
    assert not _parses_in_urdfdom(text)
    warnings: list[str] = []
    model = load_model(text, "urdf", warnings=warnings)
    np.testing.assert_array_equal(model.links["a"].visuals[0].scale, [2.0, 2.0, 2.0])
    assert any("mesh scale '2' has one number, read as 2 on each axis" in w for w in warnings), warnings


def test_an_inertia_missing_some_of_its_six_numbers_is_refused() -> None:
    text = '<robot name="r"><link name="a"><inertial><mass value="1"/><inertia ixx="1" iyy="1"/></inertial></link></robot>'
    assert not _parses_in_urdfdom(text)
    with pytest.raises(ModelError, match=r"<inertia> needs all six of ixx ixy ixz iyy iyz izz \(missing: ixy ixz iyz izz\)"):
        load_model(text, "urdf")


def test_a_sensor_pose_beyond_a_double_is_refused_with_its_line_and_no_numpy_warning() -> None:
    text = (f'<robot name="r">\n{LINK_A}\n<link name="f"/>\n<joint name="jf" type="fixed"><parent link="a"/>'
            '<child link="f"/><origin xyz="1e308 0 0"/></joint>\n'
            '<sensor name="s" type="accelerometer"><parent link="f"/><origin xyz="1e308 0 0"/></sensor>\n</robot>')
    with python_warnings.catch_warnings():
        python_warnings.simplefilter("error")  # (numpy's overflow warning must not reach the user)
        with pytest.raises(ModelError, match="a pose is not a finite rigid transform") as e:
            load_model(text, "urdf")
    assert e.value.line == 5
