"""The URDF reader's all-links-at-once numeric work gives what the one-element code gives, bit for bit.

Poses and rotated inertias of a URDF load are computed stacked (formats/urdf.py `_Numbers`) and each
element holds a view of its row; the six inertia numbers are converted in one go (`float_attrs`).
Checked here against the one-element functions and against poses computed straight from the file's
numbers with lxml, and for independence of the per-element arrays.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from lxml import etree

from idyntree_models import ModelError, load_model
from idyntree_models.formats.xmlutil import XmlReader
from idyntree_models.model.model import FrameJoint, Inertia, Joint, JointType, Limits, assemble, maker
from idyntree_models.model.transforms import rpy_xyz_to_transform, rpy_xyz_to_transforms, unit_rows, unit_vector

from conftest import urdf_files


def test_stacked_poses_are_bit_identical():
    rng = np.random.default_rng(3)
    rpy = rng.uniform(-4, 4, (5000, 3))
    rpy[::5] = np.round(rpy[::5], 2)
    rpy[1::7] = [0.0, -0.0, math.pi / 2]
    rpy[2::11] = [-math.pi, 1e-300, 0.0]
    xyz = rng.normal(size=(5000, 3))
    stacked = rpy_xyz_to_transforms(rpy, xyz)
    for k in range(len(rpy)):
        assert stacked[k].tobytes() == rpy_xyz_to_transform(rpy[k].tolist(), xyz[k].tolist()).tobytes()


def _file_joints():
    """(path, <joint> element, the loaded model's joint) of every corpus URDF that loads, read with lxml alone."""
    for path in urdf_files():
        try:
            model = load_model(path)
        except ModelError:
            continue
        for el in etree.parse(str(path)).getroot().findall("joint"):
            joint = model.joints.get(el.get("name", "").strip())
            if joint is not None:
                yield path, el, joint


def test_joint_poses_are_those_of_the_file():
    """Every joint's rest transform is the scalar pose of its <origin> numbers, read here with lxml alone."""
    checked = 0
    for path, el, joint in _file_joints():
        origin = el.find("origin")
        xyz = [float(v) for v in (origin.get("xyz") if origin is not None and origin.get("xyz") else "0 0 0").split()]
        rpy = [float(v) for v in (origin.get("rpy") if origin is not None and origin.get("rpy") else "0 0 0").split()]
        expected = rpy_xyz_to_transform(rpy, xyz) if origin is not None else np.eye(4)
        assert joint.rest_transform.tobytes() == expected.tobytes(), (path, joint.name)
        checked += 1
    assert checked > 500


def _scalar_axis(v: list[float]) -> np.ndarray:
    """The axis the one-joint code made: kept as written when of length 1 to within 1e-12, else unit_vector."""
    x, y, z = v
    return np.array(v) if abs(x * x + y * y + z * z - 1.0) <= 2e-12 else unit_vector(v)


def test_stacked_axes_are_bit_identical():
    rng = np.random.default_rng(5)
    v = rng.normal(size=(4000, 3))
    v[::3] /= np.linalg.norm(v[::3], axis=1)[:, None]  # unit to rounding: kept as they are
    v[1::9] *= 1e300
    v[2::9] *= 1e-11
    v[4::9] = [0.0, 0.0, 1.0]
    v[5::9] = [3.0, 0.0, 0.0]
    v[7::9] = [1e308, -1e308, 1e308]
    stacked = unit_rows(v.copy())
    for k in range(len(v)):
        assert stacked[k].tobytes() == _scalar_axis(v[k].tolist()).tobytes(), v[k]


def test_joint_axes_are_those_of_the_file():
    """Every 1-DOF joint's axis is the one-joint normalisation of its <axis xyz>, read here with lxml alone."""
    checked = 0
    for path, el, joint in _file_joints():
        if joint.type not in (JointType.REVOLUTE, JointType.PRISMATIC):
            continue
        axis = el.find("axis")
        xyz = [float(t) for t in axis.get("xyz").split()] if axis is not None and axis.get("xyz") else [1.0, 0.0, 0.0]
        assert joint.axis.tobytes() == _scalar_axis(xyz).tobytes(), (path, joint.name)
        checked += 1
    assert checked > 300


def test_element_arrays_are_independent():
    model = load_model(urdf_files()[0])
    joints = list(model.joints.values())
    before = [j.rest_transform.copy() for j in joints]
    joints[0].rest_transform[:3, 3] += 1.0
    joints[0].axis_origin[:] = 5.0
    for j, b in zip(joints[1:], before[1:]):
        assert np.array_equal(j.rest_transform, b)
        assert not j.axis_origin.any()
    copy = model.copy()
    assert all(c.rest_transform is not j.rest_transform for c, j in zip(copy.joints.values(), model.joints.values()))


def test_assemble_gives_what_the_constructor_gives():
    t = rpy_xyz_to_transform([0.1, 0.2, 0.3], [1.0, 2.0, 3.0])
    a = assemble(Joint, name="j", type=JointType.REVOLUTE, parent="p", child="c", rest_transform=t.copy(),
                 axis=np.array([0.0, 0.0, 1.0]), axis_origin=np.zeros(3), limits=Limits())
    b = Joint("j", JointType.REVOLUTE, "p", "c", t, np.array([0.0, 0.0, 1.0]))
    assert repr(a) == repr(b)
    assert list(vars(a)) == list(vars(b))
    i = assemble(Inertia, mass=2.0, com=np.ones(3), inertia=np.eye(3))
    assert repr(i) == repr(Inertia(2.0, [1.0, 1.0, 1.0], np.eye(3)))


def test_maker_takes_defaults_as_the_constructor_and_refuses_what_is_no_field():
    """model.maker(cls): the fields not given take the constructor's defaults (a factory's value made anew for each
    object, never shared), a frozen class is filled too, and a name that is no field is refused (assemble's
    dictionary ignored it)."""
    make = maker(Joint)
    a, b = (make(name=n, type=JointType.FIXED, parent="p", child="c") for n in ("a", "b"))
    assert repr(a) == repr(Joint("a", JointType.FIXED, "p", "c"))
    assert a.limits is not b.limits and a.rest_transform is not b.rest_transform
    assert a.axis is None and a.mimic is None
    frame_joint = maker(FrameJoint)(joint="j", frame_is_parent=True)
    assert frame_joint == FrameJoint("j", frame_is_parent=True)
    with pytest.raises(TypeError):
        make(name="x", type=JointType.FIXED, parent="p", child="c", colour="red")
    with pytest.raises(TypeError):  # a field without a default must be given
        make(type=JointType.FIXED, parent="p", child="c")
    assert maker(Joint) is make


def test_resolved_inertia_is_a_constructed_one():
    """The loader makes each link's Inertia without its constructor: same fields, same order, same values."""
    model = load_model('<robot name="r"><link name="a"><inertial><origin xyz="1 2 3" rpy="0.1 0.2 0.3"/>'
                       '<mass value="2"/><inertia ixx="1" ixy="0.1" ixz="0" iyy="2" iyz="0" izz="2.5"/>'
                       "</inertial></link></robot>", "urdf")
    got = model.links["a"].inertia
    made = Inertia(got.mass, got.com.copy(), got.inertia.copy())
    assert list(vars(got)) == list(vars(made)) == ["mass", "com", "inertia"]
    assert repr(got) == repr(made) and type(got.mass) is float


ODD = ["0.5", " 0.5 ", "1e-3", "+2", "-0", "1_0", "", " ", "1 2", "1e400", "-1e400", "nan", "INF", "\u0661",
       "\uff11", "0x10", "1.5e", ".", "1" * 1001]


def _assert_float_attrs_is_float_attr_each(r: XmlReader, el: etree._Element, attrs: tuple[str, ...]) -> None:
    """float_attrs gives float_attr's values, or raises its first error word for word."""
    try:
        expected = [r.float_attr(el, a, 0.0) for a in attrs]
    except ModelError as e:
        with pytest.raises(ModelError) as got:
            r.float_attrs(el, attrs, 0.0)
        assert str(got.value) == str(e)
    else:
        assert r.float_attrs(el, attrs, 0.0) == expected


@pytest.mark.parametrize("odd", ODD)
def test_float_attrs_is_float_attr_six_times(odd):
    r = XmlReader("f.urdf")
    attrs = ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")
    for pos in range(6):
        el = etree.Element("inertia", {a: ("0.25" if k != pos else odd) for k, a in enumerate(attrs)})
        for missing in (None, (pos + 1) % 6):
            if missing is not None:
                del el.attrib[attrs[missing]]
            _assert_float_attrs_is_float_attr_each(r, el, attrs)


def test_float_attrs_never_merges_two_values():
    """Two odd values side by side: an empty one and one of two numbers must not read as two numbers."""
    r = XmlReader("f.urdf")
    attrs = ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")
    for first in ODD:
        for second in ODD:
            values = [first, second, "0.25", "0.25", "0.25", "0.25"]
            el = etree.Element("inertia", dict(zip(attrs, values)))
            _assert_float_attrs_is_float_attr_each(r, el, attrs)


def test_an_empty_inertia_value_beside_two_numbers_is_refused():
    urdf = ('<robot name="r"><link name="a"><inertial><mass value="1"/>'
            '<inertia ixx="" ixy="0.1 0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link></robot>')
    with pytest.raises(ModelError, match="ixx"):
        load_model(urdf, "urdf")


@pytest.mark.parametrize("where", ["joint", "visual", "inertial"])
@pytest.mark.parametrize("attrs", ['xyz=""', 'rpy=" "', 'xyz="1 2"', 'rpy="0 0 0 0"', 'xyz="1_0 0 0"',
                                   'xyz="0 0 nan"'])
def test_a_bad_origin_is_refused_wherever_it_is(where, attrs):
    """The <origin> reader converts xyz and rpy in one go: each must still be checked on its own."""
    origin = f"<origin {attrs}/>"
    inertial = f"<inertial>{origin if where == 'inertial' else ''}<mass value='1'/></inertial>"
    visual = f"<visual>{origin if where == 'visual' else ''}<geometry><sphere radius='1'/></geometry></visual>"
    joint = origin if where == "joint" else ""
    urdf = (f'<robot name="r"><link name="a">{inertial}{visual}</link><link name="b">{inertial}</link>'
            f'<joint name="j" type="fixed"><parent link="a"/><child link="b"/>{joint}</joint></robot>')
    with pytest.raises(ModelError, match="attribute '(xyz|rpy)'") as e:
        load_model(urdf, "urdf")
    assert e.value.line == 1


def test_prefix_scan_gives_the_full_scan_verdict():
    """The undeclared-prefix scan skips the attribute pattern when no ':name=' exists; same verdict as
    the full scan (both patterns over the whole document) on the corpus and on small cases."""
    import re

    from idyntree_models.formats import xmlutil

    full = re.compile(r"<\/?([A-Za-z_][\w.-]*):|\s([A-Za-z_][\w.-]*):[A-Za-z_][\w.-]*\s*=")

    def verdict(d: str) -> bool:
        used = {a or b for a, b in full.findall(d)} - {"xmlns", "xml"}
        return ":" in d and bool(used - set(xmlutil._PREFIX_DECLARATION.findall(d)))

    docs = ['<a x:y="1"/>', "<x:a/>", '<a xmlns:x="u" x:y="1"/>', '<a\tx:y = "1"/>', '<a href="http://x"/>',
            '<a\nfoo:bar\n=\n"1"/>', '<a b="package://m/x.stl"/>']
    docs += [p.read_text(errors="replace") for p in urdf_files()]
    flagged = 0
    for d in docs:
        assert xmlutil._undeclared_prefixes(d) == verdict(d)
        flagged += verdict(d)
    assert flagged >= 3
