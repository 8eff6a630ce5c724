"""What an SDF model holds beyond the tree model (plugins, contact surfaces, springs, camera parameters, ...)
comes back on SDF -> SDF, and every other output format names it as not written.

The checks read the documents themselves, with their own table (from the SDFormat specification) of the values
the model holds and the writer prints again in its own way: everything else of a link, joint, shape, sensor or
model in the source must be in the output at the same place, as it was.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from lxml import etree

from idyntree_models.api import export_model, load_model
from idyntree_models.errors import ModelError

from conftest import MODELS, rel_id

SDF_TESTS = MODELS / "sdf" / "sdformat" / "test"

# The values the tree model holds, which the writer prints again (numbers re-formatted, poses re-expressed,
# defaults made explicit): by the tag of the element, or of an element around it.  From the specification:
# link.sdf, inertial.sdf, geometry.sdf (and its shapes), material.sdf, joint.sdf, sensor.sdf, forcetorque.sdf.
MODEL_VALUES = {
    "pose", "inertial", "geometry", "ambient", "diffuse",  # (the whole inertial and geometry: numbers re-printed)
    "parent", "child", "xyz", "lower", "upper", "effort", "velocity", "damping", "friction", "mimic",
    "use_parent_model_frame", "frame", "measure_direction", "thread_pitch", "screw_thread_pitch",
}
OWNERS = ("link", "joint", "visual", "collision", "sensor", "model", "frame", "include")


def _leaves(el: etree._Element, path: tuple[str, ...] = ()) -> list[tuple]:
    """(path of tags below `el`, text, attributes) of every leaf inside, not entering owners or model values."""
    out = []
    for c in el:
        if not isinstance(c.tag, str):
            continue
        tag = etree.QName(c).localname if c.tag[0] == "{" else c.tag
        if tag in MODEL_VALUES or (tag in OWNERS and not path):
            continue
        attrs = tuple(sorted((k, v) for k, v in c.attrib.items()))
        kids = [k for k in c if isinstance(k.tag, str)]
        if kids:
            if attrs:
                out.append((path + (tag,), None, attrs))
            out += _leaves(c, path + (tag,))
        else:
            out.append((path + (tag,), " ".join((c.text or "").split()), attrs))
    return out


def _owners(model: etree._Element, prefix: str = "") -> dict[tuple[str, str], etree._Element]:
    """Every owner of a model by (kind, scoped name): nested models flattened with '::' as our model names them;
    shapes and sensors by their link or joint."""
    out: dict[tuple[str, str], etree._Element] = {("model", prefix): model}
    for c in model:
        if not isinstance(c.tag, str):
            continue
        name = f"{prefix}::{c.get('name')}" if prefix else c.get("name", "")
        if c.tag == "model":
            out.update(_owners(c, name))
        elif c.tag in ("link", "joint"):
            out[(c.tag, name)] = c
            for s in c:
                if isinstance(s.tag, str) and s.tag in ("visual", "collision", "sensor"):
                    out[(s.tag, f"{name}/{s.get('name')}")] = s
    return out


def _first_model(path: Path) -> etree._Element:
    root = etree.parse(str(path)).getroot()
    m = root.find("model")
    return m if m is not None else root.find("world/model")


# attributes of owners the model holds (the writer writes its own: a universal joint becomes revolute ones)
OWNER_ATTRIBUTES = {"name", "type", "canonical_link", "placement_frame"}


def _own_attributes(el: etree._Element) -> list[tuple]:
    return [((), None, tuple(sorted((k, v) for k, v in el.attrib.items() if k not in OWNER_ATTRIBUTES)))]


def _missing(source: etree._Element, output: etree._Element) -> list[str]:
    src, out = _owners(source), _owners(output)
    missing = []
    for key, el in src.items():
        if key not in out:
            continue  # an owner the model does not have (an ignored sensor, a dropped shape): warned when read
        want = Counter(_leaves(el) + _own_attributes(el))
        got = Counter(_leaves(out[key]) + _own_attributes(out[key]))
        for leaf in want - got:
            missing.append(f"{key[0]} '{key[1]}': {'/'.join(leaf[0])} = {leaf[1]!r} {dict(leaf[2]) or ''}")
    return missing


def _corpus() -> list[Path]:
    files = sorted((SDF_TESTS / "sdf").glob("*.sdf")) + sorted((SDF_TESTS / "integration").glob("*.sdf"))
    files += sorted((SDF_TESTS / "integration" / "model").rglob("*.sdf")) + sorted((MODELS / "sdf" / "idyntree").glob("*.sdf"))
    # the document comparison needs the source's elements in the file itself: no includes, no legacy flat names
    return [f for f in files if "<include" not in f.read_text() and "::" not in f.read_text()]


@pytest.mark.parametrize("path", _corpus(), ids=rel_id)
def test_sdf_to_sdf_keeps_what_the_model_has_no_field_for(path: Path) -> None:
    try:
        model = load_model(path)
    except ModelError:
        pytest.skip("not a loadable tree model (tested in test_sdf.py)")
    text = export_model(model, "sdf")
    output = etree.fromstring(text.encode()).find("model")
    try:
        source = _first_model(path)
    except etree.XMLSyntaxError:
        pytest.skip("not well-formed XML (read after libsdformat's repairs, tested in test_sdf.py)")
    if source is None or source.get("name") != output.get("name"):
        pytest.skip("the model read is not the file's first")
    missing = _missing(source, output)
    assert not missing, "not written back:\n" + "\n".join(missing[:20])
    # and read back, the same elements are kept again
    again = load_model(text, "sdf")
    assert sorted(e.tag for e in again.extensions) == sorted(e.tag for e in model.extensions)


DOC = """<?xml version="1.0"?>
<sdf version="1.9">
  <model name="m" xmlns:tool="urn:tool" tool:id="7">
    <pose>1 2 3 0 0 0.5</pose>
    <self_collide>true</self_collide>
    <enable_wind>true</enable_wind>
    <plugin name="top_plugin" filename="libtop.so"><gain>3</gain></plugin>
    <link name="a" tool:role="base" note="kept">
      <velocity_decay><linear>0.1</linear><angular>0.2</angular></velocity_decay>
      <gravity>false</gravity>
      <kinematic>false</kinematic>
      <inertial><mass>2</mass><fluid_added_mass><xx>1.5</xx></fluid_added_mass></inertial>
      <collision name="c"><geometry><box><size>1 1 1</size></box></geometry>
        <max_contacts>7</max_contacts>
        <surface><friction><ode><mu>0.5</mu><mu2>0.4</mu2></ode></friction><bounce><restitution_coefficient>0.3</restitution_coefficient></bounce></surface>
      </collision>
      <visual name="v"><geometry><sphere><radius>1</radius></sphere></geometry>
        <cast_shadows>false</cast_shadows>
        <transparency>0.25</transparency>
        <material><ambient>1 0 0 1</ambient><diffuse>0 1 0 1</diffuse><specular>0.1 0.1 0.1 1</specular>
          <script><uri>file://media/x.material</uri><name>Gazebo/Red</name></script></material>
      </visual>
      <sensor name="cam" type="camera"><update_rate>30</update_rate>
        <camera><horizontal_fov>1.2</horizontal_fov><image><width>640</width><height>480</height></image></camera>
        <plugin name="cam_plugin" filename="libcam.so"/></sensor>
      <sensor name="imu" type="imu"><always_on>true</always_on>
        <imu><angular_velocity><x><noise type="gaussian"><stddev>0.01</stddev></noise></x></angular_velocity></imu>
      </sensor>
      <light name="lamp" type="point"><diffuse>1 1 1 1</diffuse></light>
    </link>
    <link name="b"><pose>0 0 1 0 0 0</pose></link>
    <link name="c"><pose>0 0 2 0 0 0</pose></link>
    <link name="d"><pose>0 0 3 0 0 0</pose></link>
    <joint name="j" type="revolute"><parent>a</parent><child>b</child>
      <physics><ode><cfm>0.1</cfm><provide_feedback>true</provide_feedback></ode></physics>
      <axis><xyz tool:unit="1">0 0 1</xyz><initial_position>0.3</initial_position>
        <limit><lower>-1</lower><upper>1</upper><stiffness>100000000</stiffness><dissipation>1.5</dissipation></limit>
        <dynamics><damping>1</damping><spring_reference>0.1</spring_reference><spring_stiffness>3</spring_stiffness></dynamics>
      </axis>
      <sensor name="ft" type="force_torque"><update_rate>100</update_rate>
        <force_torque><frame>child</frame><force><x><noise type="none"/></x></force></force_torque></sensor>
    </joint>
    <joint name="u" type="universal"><parent>b</parent><child>c</child>
      <axis><xyz>1 0 0</xyz></axis>
      <axis2><xyz>0 1 0</xyz><dynamics><spring_stiffness>4</spring_stiffness></dynamics></axis2>
    </joint>
    <joint name="s" type="ball"><parent>c</parent><child>d</child><axis><xyz>0 0 1</xyz></axis></joint>
  </model>
</sdf>
"""

# (xpath in the output, text): each kept element, where an SDF reader looks for it
EXPECTED = [
    ("/sdf/model/pose", "1 2 3 0 0 0.5"),
    ("/sdf/model/self_collide", "true"),
    ("/sdf/model/enable_wind", "true"),
    ("/sdf/model/plugin[@name='top_plugin'][@filename='libtop.so']/gain", "3"),
    ("/sdf/model/link[@name='a']/velocity_decay/angular", "0.2"),
    ("/sdf/model/link[@name='a']/gravity", "false"),
    ("/sdf/model/link[@name='a']/kinematic", "false"),
    ("/sdf/model/link[@name='a']/inertial/fluid_added_mass/xx", "1.5"),
    ("/sdf/model/link[@name='a']/collision[@name='c']/max_contacts", "7"),
    ("/sdf/model/link[@name='a']/collision[@name='c']/surface/friction/ode/mu2", "0.4"),
    ("/sdf/model/link[@name='a']/collision[@name='c']/surface/bounce/restitution_coefficient", "0.3"),
    ("/sdf/model/link[@name='a']/visual[@name='v']/cast_shadows", "false"),
    ("/sdf/model/link[@name='a']/visual[@name='v']/transparency", "0.25"),
    ("/sdf/model/link[@name='a']/visual[@name='v']/material/ambient", "1 0 0 1"),
    ("/sdf/model/link[@name='a']/visual[@name='v']/material/specular", "0.1 0.1 0.1 1"),
    ("/sdf/model/link[@name='a']/visual[@name='v']/material/script/name", "Gazebo/Red"),
    ("/sdf/model/link[@name='a']/sensor[@name='cam'][@type='camera']/update_rate", "30"),
    ("/sdf/model/link[@name='a']/sensor[@name='cam']/camera/image/width", "640"),
    ("/sdf/model/link[@name='a']/sensor[@name='cam']/plugin[@name='cam_plugin']", ""),
    ("/sdf/model/link[@name='a']/sensor[@name='imu'][@type='imu']/always_on", "true"),
    ("/sdf/model/link[@name='a']/sensor[@name='imu']/imu/angular_velocity/x/noise[@type='gaussian']/stddev", "0.01"),
    ("/sdf/model/link[@name='a']/light[@name='lamp']/diffuse", "1 1 1 1"),
    ("/sdf/model/joint[@name='j']/physics/ode/provide_feedback", "true"),
    ("/sdf/model/joint[@name='j']/axis/initial_position", "0.3"),
    ("/sdf/model/joint[@name='j']/axis/limit/stiffness", "100000000"),
    ("/sdf/model/joint[@name='j']/axis/limit/dissipation", "1.5"),
    ("/sdf/model/joint[@name='j']/axis/dynamics/spring_reference", "0.1"),
    ("/sdf/model/joint[@name='j']/axis/dynamics/spring_stiffness", "3"),
    ("/sdf/model/joint[@name='j']/sensor[@name='ft']/update_rate", "100"),
    ("/sdf/model/joint[@name='j']/sensor[@name='ft']/force_torque/force/x/noise[@type='none']", ""),
    # the universal joint is split in two; its second axis's spring goes with the second joint
    ("/sdf/model/joint[@name='u_axis2']/axis/dynamics/spring_stiffness", "4"),
    ("/sdf/model/joint[@name='s'][@type='ball']/axis/xyz", "0 0 1"),
]
# (xpath of an element, attribute in Clark notation, value): unread attributes of read elements
EXPECTED_ATTRIBUTES = [
    ("/sdf/model", "{urn:tool}id", "7"),
    ("/sdf/model/link[@name='a']", "{urn:tool}role", "base"),
    ("/sdf/model/link[@name='a']", "note", "kept"),
    ("/sdf/model/joint[@name='j']/axis/xyz", "{urn:tool}unit", "1"),
]


def test_every_kind_of_unread_element_comes_back_where_it_was(tmp_path: Path) -> None:
    src = tmp_path / "m.sdf"
    src.write_text(DOC)
    warnings: list[str] = []
    text = export_model(load_model(src), "sdf", warnings=warnings)
    out = etree.fromstring(text.encode())
    for xpath, value in EXPECTED:
        found = out.xpath(xpath)
        assert len(found) == 1, f"{xpath}: {len(found)} found in\n{text}"
        assert " ".join((found[0].text or "").split()) == value, xpath
    for xpath, key, value in EXPECTED_ATTRIBUTES:
        assert out.xpath(xpath)[0].get(key) == value, (xpath, key, text)
    assert "ns0" not in text  # the namespace keeps its prefix
    # the model's own colour is still the diffuse one; the source's different ambient replaced the written one
    assert out.xpath("/sdf/model/link[@name='a']/visual/material/diffuse")[0].text.split() == ["0.0", "1.0", "0.0", "1.0"]
    assert len(out.xpath("/sdf/model/link[@name='a']/visual/material/ambient")) == 1
    assert not [w for w in warnings if "not written" in w]
    # read back and written again: the same document
    assert export_model(load_model(text, "sdf"), "sdf") == text


def test_other_formats_name_each_kept_sdf_element(tmp_path: Path) -> None:
    src = tmp_path / "m.sdf"
    src.write_text(DOC)
    model = load_model(src)
    for fmt in ("urdf", "idyntree-model-json"):
        warnings: list[str] = []
        export_model(model, fmt, warnings=warnings)
        lost = [w for w in warnings if "SDF element(s)" in w]
        assert len(lost) == 1, warnings
        for what in ("<plugin> in <model>", "<surface> in <collision>", "<velocity_decay> in <link>",
                     "<physics> in <joint>", "<spring_stiffness> in <dynamics> in <axis> in <joint>",
                     "<camera> in <sensor>", "<fluid_added_mass> in <inertial> in <link>", "<pose> in <model>",
                     "<specular> in <material> in <visual>", "<light> in <link>",
                     "attribute(s) tool:role, note of 1 <link>", "attribute(s) tool:unit of 1 <xyz> in <axis> in <joint>"):
            assert what in lost[0], (what, lost[0])


def test_nested_and_included_models_keep_their_own_elements(tmp_path: Path) -> None:
    (tmp_path / "part").mkdir()
    (tmp_path / "part" / "model.sdf").write_text(
        '<sdf version="1.9"><model name="part"><plugin name="part_plugin" filename="p.so"/>'
        '<link name="l"><self_collide>true</self_collide></link></model></sdf>')
    (tmp_path / "part" / "model.config").write_text(
        "<model><name>part</name><sdf version='1.9'>model.sdf</sdf></model>")
    src = tmp_path / "top.sdf"
    src.write_text(
        '<sdf version="1.9"><model name="top"><link name="base"/>'
        '<model name="arm"><static>true</static><plugin name="arm_plugin" filename="a.so"/><link name="x"/></model>'
        '<include><uri>part</uri><name>inc</name><plugin name="override" filename="o.so"/></include>'
        '<joint name="j1" type="fixed"><parent>base</parent><child>arm::x</child></joint>'
        '<joint name="j2" type="fixed"><parent>base</parent><child>inc::l</child></joint>'
        '</model></sdf>')
    text = export_model(load_model(src), "sdf")
    out = etree.fromstring(text.encode())
    assert out.xpath("/sdf/model/model[@name='arm']/plugin/@name") == ["arm_plugin"]
    assert out.xpath("/sdf/model/model[@name='arm']/static/text()") == ["true"]
    assert sorted(out.xpath("/sdf/model/model[@name='inc']/plugin/@name")) == ["override", "part_plugin"]
    assert out.xpath("/sdf/model/model[@name='inc']/link[@name='l']/self_collide/text()") == ["true"]


def test_a_world_names_what_is_not_part_of_the_model(tmp_path: Path) -> None:
    src = tmp_path / "w.world"
    src.write_text(
        '<sdf version="1.9"><world name="w"><physics type="ode"/><gravity>0 0 -9.8</gravity>'
        '<light name="sun" type="directional"/><light name="l2" type="point"/><plugin name="wp" filename="w.so"/>'
        '<model name="ground"><static>true</static><link name="g"/></model>'
        '<model name="robot"><link name="a"/></model></world></sdf>')
    warnings: list[str] = []
    model = load_model(src, model="robot", warnings=warnings)
    assert list(model.links) == ["a"]
    said = [w for w in warnings if "world 'w'" in w]
    assert len(said) == 1, warnings
    for what in ("1 other model(s) (ground)", "<physics>", "<gravity>", "2 <light>", "<plugin>"):
        assert what in said[0], (what, said[0])
