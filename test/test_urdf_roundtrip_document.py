"""URDF -> URDF gives back the same document, and idyntree-model-json -> URDF -> idyntree-model-json the same bytes.

"The same document" is checked element by element on the XML itself (lxml, no code of ours) and
again through urdf_parser_py as an independent reader: every link and joint keeps its name, type,
ends, poses, limits and shapes, and every element the model has no field for (<transmission>,
<gazebo>, <ros2_control>, <safety_controller>, <calibration>, anything unknown) comes back, at
robot, link, joint and shape level.  Formatting and the printing of numbers may differ; values are
compared to 1e-12.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from lxml import etree

from idyntree_models import export_model, load_model

from conftest import rel_id, urdf_files

urdf_parser = pytest.importorskip("urdf_parser_py.urdf")

# iDynTree's spherical joints have no URDF form: they are written as three revolutes (test_urdf_export.py)
SPHERICAL = {"ball_joint.urdf", "spherical_joint.urdf"}
FILES = [p for p in urdf_files() if "must_fail" not in p.name]
DOC_FILES = [p for p in FILES if p.name not in SPHERICAL]
TOL = 1e-12
SENSOR_TYPES = ("force_torque", "accelerometer", "gyroscope")  # iDynTree's <sensor> extension


# -- an independent view of a URDF document --------------------------------------------------------
def _floats(text: str | None, default: list[float]) -> list[float]:
    if text is None:
        return list(default)
    values = [float(x) for x in text.split()]
    return values * 3 if len(values) == 1 and len(default) == 3 else values


def _pose(el) -> np.ndarray:
    o = el.find("origin") if el is not None else None
    xyz = _floats(o.get("xyz") if o is not None else None, [0.0, 0.0, 0.0])
    r, p, y = _floats(o.get("rpy") if o is not None else None, [0.0, 0.0, 0.0])
    rot = np.array([[math.cos(y), -math.sin(y), 0], [math.sin(y), math.cos(y), 0], [0, 0, 1]]) @ np.array(
        [[math.cos(p), 0, math.sin(p)], [0, 1, 0], [-math.sin(p), 0, math.cos(p)]]) @ np.array(
        [[1, 0, 0], [0, math.cos(r), -math.sin(r)], [0, math.sin(r), math.cos(r)]])
    t = np.eye(4)
    t[:3, :3], t[:3, 3] = rot, xyz
    return t


def _canon(el) -> str:
    """An element as canonical XML without comments and whitespace-only text: equal up to formatting."""
    el = etree.fromstring(etree.tostring(el), etree.XMLParser(remove_comments=True))
    for e in el.iter():
        if e.text is not None and not e.text.strip():
            e.text = None
        if e.tail is not None and not e.tail.strip():
            e.tail = None
    return etree.tostring(el, method="c14n").decode()


def _material(el, table: dict) -> tuple | None:
    m = el.find("material")
    if m is None:
        return None
    color, texture = m.find("color"), m.find("texture")
    ref = table.get(m.get("name"))
    if color is None and texture is None and ref is not None:
        color, texture = ref.find("color"), ref.find("texture")
    return (m.get("name") or "", tuple(_floats(color.get("rgba"), [])) if color is not None else None,
            texture.get("filename") if texture is not None else None)


def _geometry(el) -> tuple:
    g = next(c for c in el.find("geometry") if isinstance(c.tag, str))
    if g.tag == "mesh":
        return ("mesh", g.get("filename"), tuple(_floats(g.get("scale"), [1.0, 1.0, 1.0])))
    if g.tag == "box":
        return ("box", tuple(_floats(g.get("size"), [])))
    return (g.tag, tuple(float(g.get(k)) for k in ("radius", "length") if g.get(k) is not None))


def _others(el, known: tuple[str, ...]) -> list[str]:
    return [_canon(c) for c in el.iterchildren(etree.Element) if c.tag not in known]


# The attributes the URDF specification (and iDynTree's <sensor>) gives each element a reader takes, by its
# path, and the children it gives those whose children are not compared elsewhere (None): any other attribute
# or child is the source's own and must come back too (Franka's <dynamics D= K=>, a <link type=>, a
# <geometry name=>).
_O = {"xyz", "rpy"}
_SPEC: dict[str, tuple[set[str], tuple[str, ...] | None]] = {
    "robot": ({"name"}, None), "link": ({"name"}, None), "inertial": (set(), None), "inertial/origin": (_O, ()),
    "inertial/mass": ({"value"}, ()), "inertial/inertia": ({"ixx", "ixy", "ixz", "iyy", "iyz", "izz"}, ()),
    "shape": ({"name"}, None), "shape/origin": (_O, ()), "shape/geometry": (set(), None),
    "shape/geometry/mesh": ({"filename", "scale"}, ()), "shape/geometry/box": ({"size"}, ()),
    "shape/geometry/cylinder": ({"radius", "length"}, ()), "shape/geometry/sphere": ({"radius"}, ()),
    "shape/material": ({"name"}, ("color", "texture")), "shape/material/color": ({"rgba"}, ()),
    "shape/material/texture": ({"filename"}, ()),
    "joint": ({"name", "type"}, None), "joint/origin": (_O, ()), "joint/parent": ({"link"}, ()),
    "joint/child": ({"link"}, ()), "joint/axis": ({"xyz"}, ()),
    "joint/limit": ({"lower", "upper", "effort", "velocity"}, ()), "joint/dynamics": ({"damping", "friction"}, ()),
    "joint/mimic": ({"joint", "multiplier", "offset"}, ()),
    "sensor": ({"name", "type"}, None), "sensor/parent": ({"link", "joint"}, ()), "sensor/origin": (_O, ()),
    "sensor/force_torque": (set(), ("frame", "measure_direction")), "sensor/force_torque/frame": (set(), ()),
    "sensor/force_torque/measure_direction": (set(), ()),
}


def _odd(el, path: str, only: tuple[str, ...] | None = None) -> dict:
    """Attributes and children of `el` and the elements read below it that _SPEC does not name, by path."""
    attrs, children = _SPEC[path]
    out = {}
    extra = {k: v for k, v in el.attrib.items() if k not in attrs}
    if extra:
        out[path] = extra
    if children is not None:
        others = _others(el, children)
        if others:
            out[path + "/"] = others
    for tag in dict.fromkeys(c.tag for c in el.iterchildren(etree.Element)):
        sub = f"{path}/{tag}"
        if sub in _SPEC and (only is None or tag in only):
            out.update(_odd(el.find(tag), sub))
    return out


def view(root) -> dict:
    """Everything a URDF document says, by name, with physically equal forms made equal."""
    table = {m.get("name"): m for m in root.findall("material")}
    links = {}
    for link in root.findall("link"):
        inertial = link.find("inertial")
        mass, com, tensor = 0.0, np.zeros(3), np.zeros((3, 3))
        inertial_other = _others(inertial, ("origin", "mass", "inertia")) if inertial is not None else []
        if inertial is not None:
            t = _pose(inertial)
            m_el, i_el = inertial.find("mass"), inertial.find("inertia")
            mass = float(m_el.get("value")) if m_el is not None else 0.0
            if i_el is not None:
                v = {k: float(i_el.get(k, 0.0)) for k in ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")}
                tensor = np.array([[v["ixx"], v["ixy"], v["ixz"]], [v["ixy"], v["iyy"], v["iyz"]],
                                   [v["ixz"], v["iyz"], v["izz"]]])
            com, tensor = t[:3, 3], t[:3, :3] @ tensor @ t[:3, :3].T
        shapes = {kind: [(s.get("name"), _pose(s), _geometry(s), _material(s, table) if kind == "visual" else None,
                          _others(s, ("origin", "geometry", "material")), _odd(s, "shape"))
                         for s in link.findall(kind)]
                  for kind in ("visual", "collision")}
        # urdfdom's table also takes a material defined on a shape, for the shapes after it (libsdformat's
        # `ign sdf -p` shows it: a later shape naming it gets its colour)
        for m in link.findall("visual/material"):
            if m.get("name") not in table and (m.find("color") is not None or m.find("texture") is not None):
                table[m.get("name")] = m
        links[link.get("name")] = {"inertia": (mass, com, tensor), **shapes, "inertial_other": inertial_other,
                                   "other": _others(link, ("inertial", "visual", "collision")),
                                   "odd": {**_odd(link, "link", ()), **(_odd(inertial, "inertial") if inertial is not None
                                                                         else {})}}
    joints = {}
    for j in root.findall("joint"):
        jtype = j.get("type")
        lim = j.find("limit")
        if jtype == "revolute" and lim is None:
            jtype = "continuous"  # no limits: URDF readers treat it as unbounded
        d = {"type": jtype, "parent": j.find("parent").get("link"), "child": j.find("child").get("link"),
             "pose": _pose(j)}
        if jtype == "fixed":
            d["other"] = _others(j, ("origin", "parent", "child"))
            d["odd"] = _odd(j, "joint", ("origin", "parent", "child"))
        else:
            axis = np.array(_floats(j.find("axis").get("xyz") if j.find("axis") is not None else None, [1, 0, 0]))
            d["axis"] = axis / np.linalg.norm(axis)
            keys = ("effort", "velocity") if jtype == "continuous" else ("lower", "upper", "effort", "velocity")
            d["limit"] = [float(lim.get(k, 0.0)) if lim is not None else None for k in keys]
            dyn, mimic = j.find("dynamics"), j.find("mimic")
            d["dynamics"] = [float(dyn.get(k, 0.0)) for k in ("damping", "friction")] if dyn is not None else None
            d["mimic"] = (mimic.get("joint"), float(mimic.get("multiplier", 1.0)),
                          float(mimic.get("offset", 0.0))) if mimic is not None else None
            d["other"] = _others(j, ("origin", "parent", "child", "axis", "limit", "dynamics", "mimic"))
            d["odd"] = _odd(j, "joint")
        joints[j.get("name")] = d
    sensors = {}
    other = []
    for el in root.iterchildren(etree.Element):
        if el.tag == "sensor" and el.get("type") in SENSOR_TYPES:
            parent = el.find("parent")
            known = ("parent", "origin", "force_torque") if el.get("type") == "force_torque" else ("parent", "origin")
            if (el.findtext("force_torque/frame") or "sensor").strip() != "sensor":
                known = ("parent", "force_torque")  # the <origin> is ignored (iDynTree): it must come back as it was
            sensors[el.get("name")] = (el.get("type"), parent.get("link") or parent.get("joint"),
                                       (el.findtext("force_torque/measure_direction") or "").strip(), _others(el, known),
                                       _odd(el, "sensor"))
        elif el.tag not in ("link", "joint"):
            other.append(_canon(el))
    return {"name": root.get("name"), "links": links, "joints": joints, "sensors": sensors, "other": other,
            "odd": _odd(root, "robot", ())}


def _same(a, b) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.allclose(np.asarray(a, float), np.asarray(b, float), rtol=TOL, atol=TOL)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, float) or isinstance(b, float):
        return a is not None and b is not None and math.isclose(a, b, rel_tol=TOL, abs_tol=TOL)
    return a == b


def _differences(a: dict, b: dict) -> list[str]:
    out = []
    if a["name"] != b["name"]:
        out.append(f"robot name {a['name']!r} vs {b['name']!r}")
    if a["odd"] != b["odd"]:
        out.append(f"robot attributes {a['odd']!r} vs {b['odd']!r}")
    for kind in ("links", "joints", "sensors"):
        if a[kind].keys() != b[kind].keys():
            out.append(f"{kind}: missing {sorted(a[kind].keys() - b[kind].keys())}, "
                       f"extra {sorted(b[kind].keys() - a[kind].keys())}")
        for name in a[kind].keys() & b[kind].keys():
            for key in a[kind][name] if isinstance(a[kind][name], dict) else [None]:
                x = a[kind][name] if key is None else a[kind][name][key]
                y = b[kind][name] if key is None else b[kind][name][key]
                if not _same(x, y):
                    out.append(f"{kind[:-1]} '{name}' {key}: {x!r}\n    vs {y!r}")
    if a["other"] != b["other"]:
        missing = [x[:120] for x in a["other"] if x not in b["other"]]
        out.append(f"robot-level pass-through elements differ ({len(a['other'])} vs {len(b['other'])}); "
                   f"missing: {missing[:3]}")
    return out


@pytest.mark.parametrize("path", DOC_FILES, ids=[rel_id(p) for p in DOC_FILES])
def test_urdf_to_urdf_is_the_same_document(path):
    source = etree.parse(str(path)).getroot()
    text = export_model(load_model(path), "urdf")
    out = etree.fromstring(text.encode())
    problems = _differences(view(source), view(out))
    assert not problems, "\n".join(problems[:20])
    _compare_with_urdf_parser_py(etree.tostring(source), text.encode())


def _compare_with_urdf_parser_py(source: bytes, output: bytes) -> None:
    """urdf_parser_py reads both the same (where it can read the source at all: it refuses pr2's old transmissions)."""
    try:
        a = urdf_parser.URDF.from_xml_string(source)
    except Exception:  # noqa: BLE001 - the reader's own limits
        strip = etree.XSLT(etree.XML(
            b'<xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">'
            b'<xsl:template match="@*|node()"><xsl:copy><xsl:apply-templates select="@*|node()"/></xsl:copy>'
            b'</xsl:template><xsl:template match="/robot/transmission"/></xsl:stylesheet>'))
        source = bytes(strip(etree.fromstring(source)))
        output = bytes(strip(etree.fromstring(output)))
        try:
            a = urdf_parser.URDF.from_xml_string(source)
        except Exception:  # noqa: BLE001 - e.g. <texture/> without a filename (iCub): the XML check above stands
            return
    b = urdf_parser.URDF.from_xml_string(output)
    assert sorted(link.name for link in a.links) == sorted(link.name for link in b.links)
    ja, jb = {j.name: j for j in a.joints}, {j.name: j for j in b.joints}
    assert ja.keys() == jb.keys()
    for name, j in ja.items():
        k = jb[name]
        assert (j.parent, j.child) == (k.parent, k.child), name
        for attr in ("safety_controller", "calibration"):
            x, y = getattr(j, attr, None), getattr(k, attr, None)
            assert (x is None) == (y is None), (name, attr)
            if x is not None:
                assert _same([getattr(x, f, None) for f in x.__dict__], [getattr(y, f, None) for f in x.__dict__]), name
    ta = sorted((t.name, len(t.joints), len(t.actuators)) for t in a.transmissions)
    tb = sorted((t.name, len(t.joints), len(t.actuators)) for t in b.transmissions)
    assert ta == tb
    assert sorted(m.name for m in a.materials) == sorted(m.name for m in b.materials)


@pytest.mark.parametrize("path", FILES, ids=[rel_id(p) for p in FILES])
def test_json_to_urdf_to_json_is_byte_identical(path):
    fold = path.name in SPHERICAL
    first = export_model(load_model(path, convert_three_revolute_joints_to_spherical=fold), "idyntree-model-json")
    urdf = export_model(load_model(first, "idyntree-model-json"), "urdf")
    again = export_model(load_model(urdf, "urdf", convert_three_revolute_joints_to_spherical=fold),
                         "idyntree-model-json")
    assert again == first


def test_talos_and_tiago_keep_every_gazebo_block_and_transmission():
    from conftest import model_file

    for rel, tag, count in (("urdf/example-robot-data/robots/talos_data/robots/talos_full_v2.urdf", "gazebo", 110),
                            ("urdf/example-robot-data/robots/tiago_description/robots/tiago_dual.urdf",
                             "transmission", 89)):
        path = model_file(rel)
        assert len(etree.parse(str(path)).getroot().findall(tag)) == count
        out = etree.fromstring(export_model(load_model(path), "urdf").encode())
        assert len(out.findall(tag)) == count


def test_formats_that_cannot_hold_them_say_what_is_lost():
    from conftest import MODELS

    model = load_model(MODELS / "urdf/example-robot-data/robots/pr2_description/urdf/pr2.urdf")
    for fmt in ("sdf", "idyntree-model-json"):
        warnings: list[str] = []
        export_model(model, fmt, warnings=warnings)
        lost = [w for w in warnings if "cannot hold" in w]
        assert len(lost) == 1, warnings
        assert "30 <transmission>" in lost[0]
        # SDF writes the <gazebo> blocks as libsdformat's URDF reader does (test_sdf_gazebo.py)
        assert ("98 <gazebo>" in lost[0]) == (fmt != "sdf"), lost[0]
        assert "32 <safety_controller> in <joint>" in lost[0] and "10 <verbose> in <collision>" in lost[0]
    warnings = []
    export_model(model, "urdf", warnings=warnings)
    assert not [w for w in warnings if "cannot hold" in w or "not written" in w]


def test_elements_inside_inertials_and_sensors_come_back_and_repeats_are_said():
    # what URDF readers skip silently: an unknown element in an <inertial> or a <sensor> (kept), a second
    # <geometry>, <origin>, <inertial> or <parent> (they read the first: the repeat is said, and dropped)
    body = ('<inertial><mass value="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/>{}</inertial>')
    doc = f"""<robot name="r">
  <link name="a">{body.format('<custom k="v"/>')}{body.format('')}
    <visual><origin xyz="0 0 1"/><geometry><box size="1 1 1"/></geometry><geometry><sphere radius="1"/></geometry>
    </visual></link>
  <link name="b">{body.format('')}</link>
  <joint name="j" type="revolute"><origin xyz="1 0 0"/><origin xyz="2 0 0"/><parent link="a"/><child link="b"/>
    <limit lower="0" upper="1" effort="1" velocity="1"/></joint>
  <sensor name="imu" type="gyroscope"><parent link="b"/><noise std="0.1"/><parent link="a"/></sensor>
</robot>"""
    warnings: list[str] = []
    model = load_model(doc, "urdf", warnings=warnings)
    repeats = [w for w in warnings if "only the first is read" in w]
    assert [w.split(":")[0] + " " + w.split(">")[0].split("<")[-1] for w in repeats] == [
        "line 2 inertial", "line 3 geometry", "line 6 origin", "line 8 parent"], repeats
    # the model is what the first of each gives: the same as the document without the repeats
    plain = doc.replace('<origin xyz="2 0 0"/>', "").replace('<geometry><sphere radius="1"/></geometry>', "").replace(
        body.format("") + "\n    <visual>", "\n    <visual>").replace('<parent link="a"/></sensor>', "</sensor>")
    assert model.joints["j"].rest_transform[0, 3] == 1.0 and model.links["a"].visuals[0].kind == "box"
    assert model.sensors["imu"].parent_link == "b"
    # ... and the export is that document, the unknown elements where they were
    source, back = view(etree.fromstring(plain)), view(etree.fromstring(export_model(model, "urdf").encode()))
    assert source["links"]["a"]["inertial_other"] == ['<custom k="v"></custom>']
    assert source["sensors"]["imu"][3] == ['<noise std="0.1"></noise>']
    assert not _differences(source, back), _differences(source, back)
    assert not [w for w in warnings if "repeated" not in w]


# one of each place: the robot, a link, an inertial and its three children, a shape and every element below
# it, every child of a moving and of a fixed joint, a link sensor and a force/torque sensor; an identity
# <origin> (not written by the exporter: made again for its attribute) and a namespaced attribute
_INERTIAL = ('<inertial k="1"><origin xyz="0 0 0" k="2"/><mass value="1" k="3"/>'
             '<inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1" k="4"/></inertial>')
ODD_DOC = f"""<robot name="r" version="1.0" xmlns:t="urn:tool" t:id="7">
  <link name="a" type="laser">{_INERTIAL}
    <visual name="v" k="5"><origin xyz="0 0 1" k="6"/><geometry k="7"><mesh filename="m.stl" k="8"><lod n="2"/></mesh>
      </geometry><material name="red" k="9"><color rgba="1 0 0 1" k="10"/><texture filename="t.png" k="11"/>
      <shininess v="3"/></material></visual>
    <collision><origin k="12"/><geometry><cylinder radius="1" length="2" k="13"/></geometry></collision>
  </link>
  <link name="b">{_INERTIAL}</link>
  <link name="c">{_INERTIAL}</link>
  <joint name="j" type="revolute" dont_collapse="true"><origin xyz="1 0 0" k="14"/><parent link="a" k="15"/>
    <child link="b" k="16"/><axis xyz="0 0 1" k="17"/><limit lower="0" upper="1" effort="1" velocity="1" current="3"><x/></limit>
    <dynamics damping="0.1" D="1" K="7000"/><mimic joint="k" t:gain="2"/></joint>
  <joint name="k" type="continuous"><parent link="b"/><child link="c"/></joint>
  <joint name="f" type="fixed" k="18"><origin rpy="0 0 1" k="19"/><parent link="c" k="20"/><child link="d"/></joint>
  <link name="d">{_INERTIAL}</link>
  <sensor name="imu" type="gyroscope" k="21"><parent link="b" k="22"/><origin k="23"><y/></origin></sensor>
  <sensor name="ft" type="force_torque" k="24"><parent joint="j" k="25"/><force_torque k="26"><frame k="27">child</frame>
    <measure_direction>child_to_parent</measure_direction><bias v="0"/></force_torque></sensor>
</robot>"""


def test_attributes_and_children_the_model_does_not_read_come_back_everywhere():
    doc = ODD_DOC
    source = etree.fromstring(doc)
    expected = view(source)
    assert len(expected["links"]["a"]["odd"]) == 5 and expected["odd"] == {"robot": {"version": "1.0",
                                                                                    "{urn:tool}id": "7"}}
    assert len(expected["links"]["a"]["visual"][0][5]) == 9, expected["links"]["a"]["visual"][0][5]
    warnings: list[str] = []
    model = load_model(doc, "urdf", warnings=warnings)
    assert not warnings
    text = export_model(model, "urdf", warnings=warnings)
    assert not warnings
    back = view(etree.fromstring(text.encode()))
    assert not _differences(expected, back), _differences(expected, back)
    # ... and a format without them names what it drops
    export_model(model, "sdf", warnings=warnings)
    lost = [w for w in warnings if "cannot hold" in w]
    assert len(lost) == 1
    for part in ("attribute(s) D, K of 1 <dynamics> in <joint>", "attribute(s) version, t:id of 1 <robot>",
                 "attribute(s) type of 1 <link>", "1 <lod> in <mesh> in <geometry> in <visual>",
                 "1 <shininess> in <material> in <visual>", "1 <x> in <limit> in <joint>", "1 <y> in <origin> in <sensor>", "1 <bias> in <force_torque> in <sensor>",
                 "attribute(s) k of 4 <origin> in <inertial>", "attribute(s) k of 1 <origin> in <collision>"):
        assert part in lost[0], (part, lost[0])


def test_attributes_of_a_joint_the_model_no_longer_has_are_named():
    # three revolute joints folded into a spherical one: the attributes of the three are not written, and said
    text = """<robot name="r">
  <link name="a"><inertial><mass value="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link>
  <link name="a1"/><link name="a2"/>
  <link name="b"><inertial><mass value="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link>
  <joint name="x" type="continuous"><parent link="a"/><child link="a1"/><axis xyz="1 0 0"/><dynamics damping="1" D="2"/></joint>
  <joint name="y" type="continuous"><parent link="a1"/><child link="a2"/><axis xyz="0 1 0"/></joint>
  <joint name="z" type="continuous"><parent link="a2"/><child link="b"/><axis xyz="0 0 1"/></joint>
</robot>"""
    model = load_model(text, "urdf", convert_three_revolute_joints_to_spherical=True)
    assert len(model.joints) == 1
    warnings: list[str] = []
    export_model(model, "urdf", warnings=warnings)
    assert any("attributes D of <dynamics> of joint 'x'" in w and "not written" in w for w in warnings), warnings


def test_the_ignored_origin_of_a_force_torque_sensor_in_a_link_frame_comes_back_unless_a_pose_replaces_it():
    # iDynTree ignores the <origin> of a force/torque sensor in the child or parent frame (iCubGenova04 has four)
    doc = """<robot name="r">
  <link name="a"><inertial><mass value="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link>
  <link name="b"><inertial><mass value="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link>
  <joint name="j" type="fixed"><origin xyz="0 0 1"/><parent link="a"/><child link="b"/></joint>
  <sensor name="ft" type="force_torque"><parent joint="j"/>
    <force_torque><frame>child</frame><measure_direction>child_to_parent</measure_direction></force_torque>
    <origin xyz="0.5 0 0" rpy="0 0 1"/></sensor>
</robot>"""
    model = load_model(doc, "urdf")
    sensor = model.sensors["ft"]
    assert np.array_equal(sensor.second_link_H_sensor, np.eye(4))  # the origin is not the sensor's pose
    out = etree.fromstring(export_model(model, "urdf").encode())
    assert [etree.tostring(o, with_tail=False).decode() for o in out.find("sensor").findall("origin")] == [
        '<origin xyz="0.5 0 0" rpy="0 0 1"/>']
    # a pose of its own (the sensor moved) is written as frame 'sensor' with its <origin>: the old one is not
    # written after it, where readers would skip it as a repeat, and the warning says so
    sensor.second_link_H_sensor = np.array([[1.0, 0, 0, 0.25], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]])
    sensor.first_link_H_sensor = model.joints["j"].rest_transform @ sensor.second_link_H_sensor
    warnings: list[str] = []
    out = etree.fromstring(export_model(model, "urdf", warnings=warnings).encode())
    origins = out.find("sensor").findall("origin")
    assert len(origins) == 1 and origins[0].get("xyz").split()[0] == "0.25"
    assert out.findtext("sensor/force_torque/frame").strip() == "sensor"
    assert any("<origin> of sensor 'ft' (its pose is written instead)" in w for w in warnings), warnings


def test_what_the_exporter_would_leave_out_is_made_again_for_what_belongs_in_it():
    # a dropped shape (capsule) does not shift the others' numbers; an element the exporter omits (a continuous
    # joint's <limit> without effort, a <texture> without file) is made again for its attributes, but not one
    # URDF readers refuse without its values (a massless link's <inertial>, an empty <material>): those are said;
    # two pass-through <origin>s of a link both come back; a continuous joint's lower= and upper= (no limits of
    # a continuous joint) come back; a namespaced attribute keeps its prefix
    doc = """<robot name="r" xmlns:t="urn:tool">
  <link name="a"><inertial><mass value="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial>
    <visual k="0"><geometry><capsule radius="1" length="1"/></geometry></visual>
    <visual name="v1"><geometry><box size="1 1 1"/></geometry><material k="1"/></visual>
    <visual name="v2" k="2"><geometry><box size="1 1 1"/></geometry><material name="m"><texture k="3"/></material></visual>
    <origin xyz="1 0 0"/><origin xyz="2 0 0"/></link>
  <link name="b"><inertial k="4"><mass value="0"/></inertial></link>
  <joint name="j" type="continuous" t:x="5"><parent link="a"/><child link="b"/><limit k="6" lower="-1" upper="1"/></joint>
</robot>"""
    warnings: list[str] = []
    model = load_model(doc, "urdf", warnings=warnings)
    assert "<visual> geometry <capsule> is not supported and was ignored" in warnings[0]
    warnings = []
    text = export_model(model, "urdf", warnings=warnings)
    assert len(warnings) == 1 and "2 pass-through element(s) or attribute(s) were not written" in warnings[0]
    assert "attributes k of <material> of visual 'a'" in warnings[0], warnings
    assert "attributes k of <inertial> of inertial 'b'" in warnings[0], warnings
    out = etree.fromstring(text.encode())
    visuals = out.find("link").findall("visual")
    assert [(v.get("name"), v.get("k")) for v in visuals] == [("v1", None), ("v2", "2")]
    assert visuals[0].find("material") is None and visuals[1].find("material/texture").get("k") == "3"
    assert [o.get("xyz") for o in out.find("link").findall("origin")] == ["1 0 0", "2 0 0"]
    assert out.find("link[@name='b']/inertial") is None
    limit = out.find("joint/limit")
    assert (limit.get("k"), limit.get("lower"), limit.get("upper")) == ("6", "-1", "1")
    assert out.find("joint").get("{urn:tool}x") == "5" and "t:x=" in text
    assert export_model(load_model(text, "urdf"), "urdf") == text


def test_a_global_material_with_more_than_its_colour_is_named_by_formats_without_it():
    doc = """<robot name="r"><material name="red" shine="1"><color rgba="1 0 0 1"/><script k="2"/></material>
  <material name="blue"><color rgba="0 0 1 1"/></material>
  <link name="a"><visual><geometry><box size="1 1 1"/></geometry><material name="red"/></visual></link></robot>"""
    warnings: list[str] = []
    export_model(load_model(doc, "urdf"), "sdf", warnings=warnings)
    assert [w for w in warnings if "cannot hold" in w] == [
        "1 URDF element(s) or attribute(s) that sdf cannot hold are not written: 1 <material>"]


def test_a_mimic_of_a_spherical_joint_is_said_to_be_ignored():
    doc = """<robot name="r"><link name="a"/><link name="b"><inertial><mass value="1"/>
  <inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link><link name="c"/>
  <joint name="k" type="revolute"><parent link="a"/><child link="c"/><limit lower="0" upper="1" effort="1" velocity="1"/></joint>
  <joint name="s" type="spherical"><parent link="a"/><child link="b"/><mimic joint="k"/></joint></robot>"""
    warnings: list[str] = []
    load_model(doc, "urdf", warnings=warnings)
    assert any("<mimic> of spherical joint 's' is ignored" in w for w in warnings), warnings


def test_kept_namespaced_attributes_come_back_the_same_on_every_round_trip():
    # one prefix for two namespaces, and declarations met in another order than the exporter writes elements
    inertial = '<inertial><mass value="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial>'
    doc = f"""<robot name="r" xmlns:u="urn:u" xmlns:w="urn:w"><joint name="j" type="fixed" w:x="1"><parent link="a"/>
  <child link="b"/></joint><link name="a" xmlns:t="urn:a" t:x="1">{inertial}</link>
  <link name="b" xmlns:t="urn:b" t:y="2" u:z="3">{inertial}</link></robot>"""
    first = export_model(load_model(doc, "urdf"), "urdf")
    second = export_model(load_model(first, "urdf"), "urdf")
    assert first == second
    out = etree.fromstring(first.encode())
    assert out.find("link[@name='a']").get("{urn:a}x") == "1" and out.find("link[@name='b']").get("{urn:b}y") == "2"
    assert out.find("link[@name='b']").get("{urn:u}z") == "3" and out.find("joint").get("{urn:w}x") == "1"
    assert "ns0" not in first


def test_an_unknown_element_after_a_dropped_shape_comes_back_after_the_same_shape():
    doc = """<robot name="r"><link name="a"><inertial><mass value="1"/>
  <inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial>
  <visual><geometry><capsule radius="1" length="1"/></geometry></visual>
  <visual name="v1"><geometry><box size="1 1 1"/></geometry></visual><foo/>
  <visual name="v2"><geometry><box size="1 1 1"/></geometry></visual></link></robot>"""
    out = etree.fromstring(export_model(load_model(doc, "urdf"), "urdf").encode())
    assert [c.get("name") or c.tag for c in out.find("link") if c.tag != "inertial"] == ["v1", "foo", "v2"]
