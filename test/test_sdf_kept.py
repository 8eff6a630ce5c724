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

# The values the tree model holds, which the writer writes again its own way (numbers re-printed, poses
# re-expressed, defaults made explicit), by the path of tags below their owner; "*" matches any one tag.  From
# the specification: model.sdf, link.sdf, inertial.sdf, geometry.sdf (and its shapes), material.sdf, joint.sdf,
# sensor.sdf, forcetorque.sdf.  Everything else of an owner must come back as it was.
MODEL_VALUES = {
    "model": {("pose",), ("static",)},
    "link": {("pose",), ("inertial",)},  # (an inertial's values are re-expressed in the link's axes)
    "visual": {("pose",), ("geometry",), ("material", "ambient"), ("material", "diffuse")},
    "collision": {("pose",), ("geometry",)},
    "joint": {("pose",), ("parent",), ("child",), ("*", "xyz"), ("*", "use_parent_model_frame"), ("*", "mimic"),
              ("*", "limit", "lower"), ("*", "limit", "upper"), ("*", "limit", "effort"), ("*", "limit", "velocity"),
              ("*", "dynamics", "damping"), ("*", "dynamics", "friction")},
    "sensor": {("pose",), ("force_torque", "frame"), ("force_torque", "measure_direction"), ("kind",)},
    "frame": {("pose",)},
}
SCREW_VALUES = {("thread_pitch",), ("screw_thread_pitch",)}  # (a screw joint is written as revolute, warned)
OWNERS = ("link", "joint", "visual", "collision", "sensor", "model", "frame", "include")


def _held(path: tuple[str, ...], values: set[tuple[str, ...]]) -> bool:
    return any(len(v) == len(path) and all(a in ("*", b) for a, b in zip(v, path)) for v in values)


def _leaves(el: etree._Element, values: set[tuple[str, ...]], path: tuple[str, ...] = ()) -> list[tuple]:
    """(path of tags below `el`, text, attributes) of every leaf inside, not entering owners or model values."""
    out = []
    for c in el:
        if not isinstance(c.tag, str):
            continue
        tag = etree.QName(c).localname if c.tag[0] == "{" else c.tag
        if _held(path + (tag,), values) or (tag in OWNERS and not path):
            continue
        attrs = tuple(sorted((k, v) for k, v in c.attrib.items()))
        kids = [k for k in c if isinstance(k.tag, str)]
        if kids:
            if attrs:
                out.append((path + (tag,), None, attrs))
            out += _leaves(c, values, path + (tag,))
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
        elif c.tag == "frame":
            out[("frame", name)] = c
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
OWNER_ATTRIBUTES = {"name", "type", "canonical_link", "placement_frame", "attached_to"}


def _own_attributes(el: etree._Element) -> list[tuple]:
    return [((), None, tuple(sorted((k, v) for k, v in el.attrib.items() if k not in OWNER_ATTRIBUTES)))]


def _missing(source: etree._Element, output: etree._Element) -> list[str]:
    src, out = _owners(source), _owners(output)
    missing = []
    for key, el in src.items():
        values = MODEL_VALUES[key[0]] | (SCREW_VALUES if el.get("type") == "screw" else set())
        want = Counter(_leaves(el, values) + _own_attributes(el))
        if key[0] == "joint" and el.get("type") in ("universal", "revolute2"):
            # split in two: the second joint holds, in its <axis>, what <axis2> held
            second = out.get(("joint", key[1] + "_axis2"))
            axis2 = [(("axis",) + p[1:], t, a) for p, t, a in want if p[:1] == ("axis2",)]
            want -= Counter((("axis2",) + p[1:], t, a) for p, t, a in axis2)
            if second is not None:
                missing += [f"joint '{key[1]}_axis2': {leaf}" for leaf in Counter(axis2) - Counter(_leaves(second, values))]
        if key not in out:
            continue  # an owner the model does not have (an ignored sensor, a dropped shape): warned when read
        got = Counter(_leaves(out[key], values) + _own_attributes(out[key]))
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
    warnings: list[str] = []
    text = export_model(model, "sdf", warnings=warnings)
    output = etree.fromstring(text.encode()).find("model")
    try:
        source = _first_model(path)
    except etree.XMLSyntaxError:
        pytest.skip("not well-formed XML (read after libsdformat's repairs, tested in test_sdf.py)")
    if source is None or source.get("name") != output.get("name"):
        pytest.skip("the model read is not the file's first")
    missing = _missing(source, output)
    assert not missing, "not written back:\n" + "\n".join(missing[:20])
    # and read back, the same elements are kept again, for the same owners and places (unless a shape SDF 1.9
    # cannot hold went, moving the index of those after it)
    if not any("written as an empty geometry" in w for w in warnings):
        again = load_model(text, "sdf")
        assert _kept(again) == _kept(model)


def _kept(model) -> Counter:
    def same(xml: str) -> bytes:
        el = etree.fromstring(xml)
        for e in el.iter():
            e.text = e.text.strip() if e.text and not e.text.strip() else e.text
            e.tail = None
        etree.cleanup_namespaces(el)
        return etree.tostring(el)

    return Counter((e.owner_kind, e.owner, e.path, e.index, e.attributes, same(e.xml)) for e in model.extensions
                   if e.format == "sdf")


@pytest.mark.parametrize("path", _corpus() + [None], ids=lambda p: "synthetic" if p is None else rel_id(p))
def test_what_the_readers_note_is_what_a_walk_of_the_whole_model_finds(path: Path | None, tmp_path: Path) -> None:
    """The readers note what they do not read as they read (kept.look); a separate walk of every link, joint,
    shape and sensor with the tables of kept.py must find the same."""
    from idyntree_models.formats.sdf import kept, to_model

    if path is None:
        path = tmp_path / "m.sdf"
        path.write_text(ODD)
    found = {}
    walk = kept.keep_unread
    for everything in (False, True):
        to_model.keep_unread = lambda g, m, se, d, e=everything: walk(g, m, se, d, everything=e)
        try:
            model = load_model(path)
        except ModelError:
            pytest.skip("not a loadable tree model (tested in test_sdf.py)")
        finally:
            to_model.keep_unread = walk
        found[everything] = Counter((e.owner_kind, e.owner, e.path, e.index, e.attributes, e.xml)
                                    for e in model.extensions)
    assert found[False] == found[True]


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
    <frame name="tip" attached_to="d" tool:mark="x"><pose>0 0 0.5 0 0 0</pose><tool:colour>red</tool:colour>
      <plugin name="frame_plugin" filename="libframe.so"><rate>5</rate></plugin></frame>
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
    ("/sdf/model/frame[@name='tip']/tool:colour", "red"),
    ("/sdf/model/frame[@name='tip']/plugin[@name='frame_plugin']/rate", "5"),
]
# (xpath of an element, attribute in Clark notation, value): unread attributes of read elements
EXPECTED_ATTRIBUTES = [
    ("/sdf/model", "{urn:tool}id", "7"),
    ("/sdf/model/link[@name='a']", "{urn:tool}role", "base"),
    ("/sdf/model/link[@name='a']", "note", "kept"),
    ("/sdf/model/joint[@name='j']/axis/xyz", "{urn:tool}unit", "1"),
    ("/sdf/model/frame[@name='tip']", "{urn:tool}mark", "x"),
]


def test_every_kind_of_unread_element_comes_back_where_it_was(tmp_path: Path) -> None:
    src = tmp_path / "m.sdf"
    src.write_text(DOC)
    warnings: list[str] = []
    text = export_model(load_model(src), "sdf", warnings=warnings)
    out = etree.fromstring(text.encode())
    for xpath, value in EXPECTED:
        found = out.xpath(xpath, namespaces={"tool": "urn:tool"})
        assert len(found) == 1, f"{xpath}: {len(found)} found in\n{text}"
        assert _same_value(found[0].text or "", value), (xpath, found[0].text)
    for xpath, key, value in EXPECTED_ATTRIBUTES:
        assert out.xpath(xpath)[0].get(key) == value, (xpath, key, text)
    assert "ns0" not in text  # the namespace keeps its prefix
    # the model's own colour is still the diffuse one; the source's different ambient replaced the written one
    assert out.xpath("/sdf/model/link[@name='a']/visual/material/diffuse")[0].text.split() == ["0.0", "1.0", "0.0", "1.0"]
    assert len(out.xpath("/sdf/model/link[@name='a']/visual/material/ambient")) == 1
    assert not [w for w in warnings if "not written" in w]
    # read back and written again: the same document
    assert export_model(load_model(text, "sdf"), "sdf") == text


def _same_value(got: str, want: str) -> bool:
    """Equal text, or equal numbers (a re-expressed pose is printed again)."""
    if got.split() == want.split():
        return True
    try:
        return len(got.split()) == len(want.split()) and all(
            abs(float(a) - float(b)) < 1e-12 for a, b in zip(got.split(), want.split()))
    except ValueError:
        return False


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
                     "attribute(s) tool:role, note of 1 <link>", "attribute(s) tool:unit of 1 <xyz> in <axis> in <joint>",
                     "<tool:colour> in <frame>", "<plugin> in <frame>", "attribute(s) tool:mark of 1 <frame>"):
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


# Unread content at every level, with comments, repeated elements and attributes: what the readers note and
# what a walk of the whole model finds must agree on it (test_what_the_readers_note_...).
ODD = """<?xml version="1.0"?>
<sdf version="1.11" xmlns:t="urn:t">
  <model name="m" t:a="1">
    <!-- a comment -->
    <link name="a" t:b="2"><!-- c --><pose>0 0 0 0 0 0</pose><pose>1 1 1 0 0 0</pose>
      <inertial q="1"><pose rotation_format="euler_rpy" z="1">0 0 0 0 0 0.3</pose><mass u="kg">1</mass>
        <inertia w="1"><ixx v="1">1</ixx><iyy>1</iyy><izz>1</izz><ixx>2</ixx><extra/></inertia>
        <fluid_added_mass><xx>1</xx><yy>2</yy></fluid_added_mass></inertial>
      <visual name="v" t:c="3"><geometry g="1"><mesh m="1"><uri>x.dae</uri><scale s="1">1 1 1</scale><bogus/></mesh>
        </geometry><material k="1"><diffuse>1 0 0 1</diffuse><diffuse>0 1 0 1</diffuse><ambient>0 0 1 1</ambient>
        <script><uri>m.material</uri><name>S</name></script></material><plugin name="p" filename="f"/></visual>
      <collision name="c"><geometry><box><size>1 1 1</size></box><sphere><radius>1</radius></sphere></geometry>
        <material><diffuse>1 0 0 1</diffuse></material><density>3</density></collision>
      <collision name="e"><geometry><empty/></geometry></collision>
      <sensor name="s" type="imu" t:d="4"><pose x="1">0 0 0 0 0 0</pose><imu/><always_on>1</always_on></sensor>
      <sensor name="cam" type="camera"><camera><horizontal_fov>1</horizontal_fov></camera></sensor>
    </link>
    <link name="b"><pose>0 0 1 0 0 0</pose></link>
    <link name="c"><pose>0 0 2 0 0 0</pose></link>
    <link name="d"><pose>0 0 3 0 0 0</pose></link>
    <link name="e"><pose>0 0 4 0 0 0</pose></link>
    <joint name="j" type="revolute" t:e="5"><parent>a</parent><child>b</child><thread_pitch>2</thread_pitch>
      <axis n="1"><xyz expressed_in="__model__" f="1">0 0 1</xyz><xyz>1 0 0</xyz>
        <limit l="1"><lower>-1</lower><upper>1</upper><stiffness>3</stiffness><lower>-2</lower></limit>
        <dynamics><damping d="1">1</damping><spring_stiffness>4</spring_stiffness></dynamics></axis>
      <axis2><xyz>0 1 0</xyz></axis2>
      <sensor name="ft" type="force_torque"><force_torque o="1"><frame>child</frame><torque/></force_torque>
        <update_rate>10</update_rate></sensor></joint>
    <joint name="u" type="universal"><parent>b</parent><child>c</child><axis><xyz>1 0 0</xyz></axis>
      <axis2 p="1"><xyz>0 1 0</xyz><limit><lower>-1</lower><upper>1</upper><dissipation>2</dissipation></limit></axis2>
    </joint>
    <joint name="k" type="revolute"><parent>c</parent><child>d</child>
      <axis><xyz>0 0 1</xyz><mimic joint="j" axis="axis"><multiplier>2</multiplier><reference>1</reference></mimic></axis>
    </joint>
    <joint name="s" type="screw"><parent>d</parent><child>e</child><thread_pitch>2</thread_pitch>
      <axis><xyz>0 0 1</xyz></axis><physics/></joint>
    <frame name="f" attached_to="e" t:f="6"><!-- c --><pose q="1">0 0 1 0 0 0</pose><pose>0 0 2 0 0 0</pose><x/></frame>
  </model>
</sdf>
"""


def test_the_odd_document_round_trips(tmp_path: Path) -> None:
    src = tmp_path / "m.sdf"
    src.write_text(ODD)
    model = load_model(src)
    text = export_model(model, "sdf")
    out = etree.fromstring(text.encode())
    ns = {"t": "urn:t"}
    assert out.xpath("/sdf/model/@t:a", namespaces=ns) == ["1"]
    assert out.xpath("/sdf/model/link[@name='a']/@t:b", namespaces=ns) == ["2"]
    # a revolute joint's thread pitch is no value of it: kept (only a screw joint reads it)
    assert out.xpath("/sdf/model/joint[@name='j']/thread_pitch/text()") == ["2"]
    # a second <diffuse> is not read (readers take the first) and not kept: the colour stays the first one's
    assert [d.split() for d in out.xpath("/sdf/model/link[@name='a']/visual/material/diffuse/text()")] == [
        ["1.0", "0.0", "0.0", "1.0"]]
    # a 1.11 mimic's other children go with the mimic our writer writes, which readers then read whole
    assert out.xpath("/sdf/model/joint[@name='k']/axis/*[local-name()='mimic']/reference/text()") == ["1"]
    # a frame keeps what it holds besides its pose, and the unread attributes of its pose; a second pose is not read
    assert out.xpath("/sdf/model/frame[@name='f']/@t:f", namespaces=ns) == ["6"]
    assert len(out.xpath("/sdf/model/frame[@name='f']/x")) == 1
    assert out.xpath("/sdf/model/frame[@name='f']/pose/@q") == ["1"]
    assert [p.split()[2] for p in out.xpath("/sdf/model/frame[@name='f']/pose/text()")] == ["1.0"]
    again = load_model(text, "sdf")
    assert again.joints["k"].mimic is not None and again.joints["k"].mimic.multiplier == 2.0
    assert export_model(again, "sdf") == text


@pytest.mark.parametrize("body, check", [
    ("<static>false</static><static>true</static><link name='a'/>", lambda m: not m.metadata.get("static")),
    ("<link name='a'/><link name='b'/><joint name='j' type='revolute'><parent>a</parent><child>b</child><axis>"
     "<xyz>0 0 1</xyz><dynamics><damping>0</damping><damping>7</damping></dynamics></axis></joint>",
     lambda m: m.joints["j"].dynamics is None),
    ("<link name='a'><visual name='v'><geometry><box><size>1 1 1</size></box></geometry><material>"
     "<script><uri>m.material</uri><name>S</name></script></material><material><diffuse>1 0 0 1</diffuse></material></visual></link>",
     lambda m: m.links["a"].visuals[0].material is None),
    ("<pose>0 0 0 0 0 0</pose><pose>5 0 0 0 0 0</pose><link name='a'/>", lambda m: True),
])
def test_a_repeated_element_is_named_and_does_not_take_over(body: str, check, tmp_path: Path) -> None:
    """Readers take the first of a tag they read once; a second one is named in a warning, not kept, so that it
    cannot become the first one where the writer leaves out the first (a default value)."""
    src = tmp_path / "m.sdf"
    src.write_text(f"<sdf version='1.9'><model name='m'>{body}</model></sdf>")
    warnings: list[str] = []
    model = load_model(src, warnings=warnings)
    assert check(model)
    assert any("repeated element(s) are not read" in w for w in warnings), warnings
    text = export_model(model, "sdf")
    again = load_model(text, "sdf")
    assert check(again)
    assert etree.fromstring(text.encode()).find("model/pose") is None  # (the model is at the first pose: zero)
    assert export_model(again, "sdf") == text


def test_a_split_joint_keeps_its_mimic_and_an_old_axis_flag_is_kept_where_unread(tmp_path: Path) -> None:
    src = tmp_path / "m.sdf"
    src.write_text(
        "<sdf version='1.11'><model name='m'><link name='a'/><link name='b'/><link name='c'/>"
        "<joint name='j' type='revolute'><parent>a</parent><child>b</child><axis><xyz>0 0 1</xyz>"
        "<use_parent_model_frame>true</use_parent_model_frame></axis></joint>"
        "<joint name='u' type='universal'><parent>b</parent><child>c</child><axis><xyz>1 0 0</xyz>"
        "<mimic joint='j'><multiplier>2</multiplier></mimic></axis><axis2><xyz>0 1 0</xyz></axis2></joint>"
        "</model></sdf>")
    warnings: list[str] = []
    model = load_model(src, warnings=warnings)
    # a split joint mimics nothing in the model; said, and not written (it would make 'u' a mimic joint)
    assert model.joints["u"].mimic is None
    assert any("the mimic in <axis> of universal joint 'u' is ignored" in w for w in warnings), warnings
    text = export_model(model, "sdf")
    out = etree.fromstring(text.encode())
    assert out.xpath("//joint[@name='u']/axis/mimic") == []
    assert load_model(text, "sdf").joints["u"].mimic is None
    # 1.11 has no use_parent_model_frame (1.5 and 1.6 only): not read, so kept
    assert out.xpath("//joint[@name='j']/axis/use_parent_model_frame/text()") == ["true"]


def test_sensors_of_the_same_name_keep_their_own_contents(tmp_path: Path) -> None:
    src = tmp_path / "m.sdf"
    src.write_text(
        '<sdf version="1.9"><model name="m"><link name="a"><sensor name="s" type="imu"><imu><angular_velocity><x>'
        '<noise type="gaussian"><stddev>0.01</stddev></noise></x></angular_velocity></imu></sensor></link>'
        '<link name="b"><sensor name="s" type="camera"><camera><horizontal_fov>1</horizontal_fov></camera></sensor>'
        '</link><joint name="j" type="fixed"><parent>a</parent><child>b</child></joint></model></sdf>')
    out = etree.fromstring(export_model(load_model(src), "sdf").encode())
    assert out.xpath("//link[@name='a']/sensor[@type='imu']/imu//stddev/text()") == ["0.01"]
    assert out.xpath("//link[@name='a']/sensor/camera") == []
    assert out.xpath("//link[@name='b']/sensor[@type='camera']/camera/horizontal_fov/text()") == ["1"]
    assert out.xpath("//link[@name='b']/sensor/imu") == []
    # two cameras of one name: the second is renamed in the model, with a warning, and keeps its own contents
    src.write_text(
        '<sdf version="1.9"><model name="m"><link name="a"><sensor name="s" type="camera"><update_rate>1'
        '</update_rate></sensor></link><link name="b"><sensor name="s" type="camera"><update_rate>2</update_rate>'
        '</sensor></link><joint name="j" type="fixed"><parent>a</parent><child>b</child></joint></model></sdf>')
    warnings: list[str] = []
    model = load_model(src, warnings=warnings)
    assert sorted(model.sensors) == ["s", "s_1"]
    assert any("sensor 's' of link 'b' is named 's_1'" in w for w in warnings), warnings
    out = etree.fromstring(export_model(model, "sdf").encode())
    assert out.xpath("//link[@name='a']/sensor/update_rate/text()") == ["1"]
    assert out.xpath("//link[@name='b']/sensor/update_rate/text()") == ["2"]


def _rpy(x: float, y: float, z: float, r: float, p: float, w: float):
    import numpy as np

    from idyntree_models.model.transforms import make_transform, rpy_to_matrix

    return make_transform(rpy_to_matrix(np.array([r, p, w])), np.array([x, y, z]))


def _pose_of(el) -> list[float]:
    return [float(v) for v in el.text.split()]


def test_the_model_stays_where_it_was_in_the_world(tmp_path: Path) -> None:
    """The written model frame is its base link's: the kept world pose of the model is re-expressed for it."""
    import numpy as np

    src = tmp_path / "m.sdf"
    src.write_text('<sdf version="1.9"><model name="m"><pose>1 0 0 0 0 0.4</pose>'
                   '<link name="a"><pose>0 0 1 0 0 1.5</pose></link></model></sdf>')
    out = etree.fromstring(export_model(load_model(src), "sdf").encode())
    world_H_a_before = _rpy(1, 0, 0, 0, 0, 0.4) @ _rpy(0, 0, 1, 0, 0, 1.5)
    world_H_a_after = _rpy(*_pose_of(out.find("model/pose"))) @ _rpy(*_pose_of(out.find("model/link/pose")))
    assert np.allclose(world_H_a_before, world_H_a_after, atol=1e-12)


def test_a_world_model_placed_relative_to_another_frame_is_refused_by_no_reader(tmp_path: Path) -> None:
    src = tmp_path / "w.sdf"
    src.write_text('<sdf version="1.9"><world name="w"><frame name="F"><pose>0 0 1 0 0 0</pose></frame>'
                   '<model name="m"><pose relative_to="F">1 0 0 0 0 0</pose><link name="a"/></model></world></sdf>')
    text = export_model(load_model(src), "sdf")
    assert etree.fromstring(text.encode()).find("model/pose") is None
    load_model(text, "sdf")


def test_added_mass_is_kept_as_written(tmp_path: Path) -> None:
    """<fluid_added_mass> is about the link's origin, in the link frame (SDF 1.10 inertial.sdf), not in the inertial
    frame: turning the inertial frame into the link's axes (what the writer does) leaves it as it was."""
    src = tmp_path / "m.sdf"
    src.write_text('<sdf version="1.10"><model name="m"><link name="a"><inertial><pose>0 0 0 0.3 -0.2 1.1</pose>'
                   '<mass>1</mass><fluid_added_mass><xx>10</xx><yy>20</yy><zz>30</zz><xp>1</xp><qr>2</qr><pp>3</pp>'
                   '</fluid_added_mass></inertial></link></model></sdf>')
    out = etree.fromstring(export_model(load_model(src), "sdf").encode())
    assert _pose_of(out.find("model/link/inertial/pose"))[3:] == [0.0, 0.0, 0.0]
    assert {c.tag: c.text for c in out.find("model/link/inertial/fluid_added_mass")} == {
        "xx": "10", "yy": "20", "zz": "30", "xp": "1", "qr": "2", "pp": "3"}


def test_an_include_static_is_written_once(tmp_path: Path) -> None:
    (tmp_path / "part").mkdir()
    (tmp_path / "part" / "model.sdf").write_text(
        '<sdf version="1.9"><model name="part"><static>false</static><link name="l"/></model></sdf>')
    (tmp_path / "part" / "model.config").write_text("<model><name>part</name><sdf version='1.9'>model.sdf</sdf></model>")
    src = tmp_path / "top.sdf"
    src.write_text('<sdf version="1.9"><model name="top"><link name="base"/>'
                   '<include><uri>part</uri><name>inc</name><static>true</static></include></model></sdf>')
    out = etree.fromstring(export_model(load_model(src, free_bodies="chain"), "sdf").encode())
    assert out.xpath("/sdf/model/model[@name='inc']/static/text()") == ["true"]


def test_relative_file_references_in_kept_elements_follow_the_output(tmp_path: Path) -> None:
    (tmp_path / "src" / "media").mkdir(parents=True)
    (tmp_path / "src" / "media" / "m.material").write_text("material M {}")
    (tmp_path / "out").mkdir()
    src = tmp_path / "src" / "m.sdf"
    src.write_text('<sdf version="1.9"><model name="m"><link name="a"><visual name="v"><geometry><box><size>1 1 1'
                   '</size></box></geometry><material><script><uri>media/m.material</uri><name>M</name></script>'
                   '<pbr><metal><albedo_map>media/m.material</albedo_map></metal></pbr></material></visual>'
                   '</link></model></sdf>')
    dest = tmp_path / "out" / "m.sdf"
    from idyntree_models.api import save_model

    save_model(load_model(src), dest)
    out = etree.parse(str(dest)).getroot()
    for tag in ("uri", "albedo_map"):
        ref = out.xpath(f"//material//{tag}/text()")[0]
        assert (dest.parent / ref).resolve() == (tmp_path / "src" / "media" / "m.material").resolve(), ref
    # a name that is no path (Gazebo's __default__) is not touched
    assert "__default__" in export_model(load_model(
        '<sdf version="1.9"><model name="m"><link name="a"><visual name="v"><geometry><box><size>1 1 1</size></box>'
        '</geometry><material><pbr><metal><albedo_map>__default__</albedo_map></metal></pbr></material></visual></link>'
        '</model></sdf>', "sdf"), "sdf", output_dir=str(tmp_path / "out"))


def test_elements_of_an_older_version_are_written_with_a_warning(tmp_path: Path) -> None:
    src = tmp_path / "m.sdf"
    src.write_text('<sdf version="1.5"><model name="m"><link name="a"><sensor name="i" type="imu"><imu><noise>'
                   '<type>gaussian</type></noise></imu></sensor></link></model></sdf>')
    warnings: list[str] = []
    export_model(load_model(src), "sdf", warnings=warnings)
    assert any("read from SDF 1.5 are written as they are into SDF 1.9" in w for w in warnings), warnings


def test_a_renamed_sensor_takes_no_name_another_sensor_of_the_file_has(tmp_path: Path) -> None:
    src = tmp_path / "m.sdf"
    src.write_text(
        "<sdf version='1.9'><model name='m'><link name='a'><sensor name='c' type='camera'/></link>"
        "<link name='b'><sensor name='c' type='camera'><update_rate>2</update_rate></sensor></link>"
        "<link name='d'><sensor name='c_1' type='camera'><update_rate>3</update_rate></sensor></link>"
        "<joint name='j' type='fixed'><parent>a</parent><child>b</child></joint>"
        "<joint name='k' type='fixed'><parent>a</parent><child>d</child></joint></model></sdf>")
    model = load_model(src)
    assert {n: s.parent_link for n, s in model.sensors.items()} == {"c": "a", "c_2": "b", "c_1": "d"}


def test_an_include_placement_frame_overrides_the_model_s_own(tmp_path: Path) -> None:
    """libsdformat's parser sets the included model's placement_frame from the <include>: B places the model."""
    import numpy as np

    (tmp_path / "part").mkdir()
    (tmp_path / "part" / "model.sdf").write_text(
        '<sdf version="1.9"><model name="part" placement_frame="A"><link name="l"/>'
        '<frame name="A"><pose>1 0 0 0 0 0</pose></frame><frame name="B"><pose>0 2 0 0 0 0</pose></frame>'
        '</model></sdf>')
    (tmp_path / "part" / "model.config").write_text("<model><name>part</name><sdf version='1.9'>model.sdf</sdf></model>")
    src = tmp_path / "top.sdf"
    src.write_text('<sdf version="1.9"><model name="top"><link name="base"/>'
                   '<include><uri>part</uri><name>inc</name><placement_frame>B</placement_frame>'
                   '<pose>0 0 0 0 0 0</pose></include>'
                   '<joint name="j" type="fixed"><parent>base</parent><child>inc::l</child></joint></model></sdf>')
    model = load_model(src)
    assert np.allclose(model.joints["j"].rest_transform[:3, 3], [0, -2, 0])


def test_what_is_written_in_1_9_form_gets_no_version_warning_and_folders_follow_too(tmp_path: Path) -> None:
    src = tmp_path / "m.sdf"
    src.write_text("<sdf version='1.6'><model name='m'><pose>1 0 0 0 0 0</pose><link name='a'/></model></sdf>")
    warnings: list[str] = []
    export_model(load_model(src), "sdf", warnings=warnings)
    assert not any("written as they are into SDF 1.9" in w for w in warnings), warnings
    (tmp_path / "src" / "materials" / "scripts").mkdir(parents=True)
    (tmp_path / "out").mkdir()
    src = tmp_path / "src" / "m.sdf"
    src.write_text('<sdf version="1.9"><model name="m"><link name="a"><visual name="v"><geometry><box><size>1 1 1'
                   '</size></box></geometry><material><script><uri>materials/scripts</uri><name>M</name></script>'
                   '</material></visual></link></model></sdf>')
    from idyntree_models.api import save_model

    save_model(load_model(src), tmp_path / "out" / "m.sdf")
    ref = etree.parse(str(tmp_path / "out" / "m.sdf")).getroot().xpath("//script/uri/text()")[0]
    assert (tmp_path / "out" / ref).resolve() == (tmp_path / "src" / "materials" / "scripts").resolve()


def test_a_split_joint_s_mimic_attributes_go_with_it(tmp_path: Path) -> None:
    src = tmp_path / "m.sdf"
    src.write_text(
        "<sdf version='1.11'><model name='m'><link name='a'/><link name='b'/><link name='c'/>"
        "<joint name='j' type='revolute'><parent>a</parent><child>b</child><axis><xyz>0 0 1</xyz></axis></joint>"
        "<joint name='u' type='universal'><parent>b</parent><child>c</child><axis><xyz>1 0 0</xyz>"
        "<mimic joint='j' axis='axis'><multiplier>2</multiplier></mimic></axis><axis2><xyz>0 1 0</xyz></axis2>"
        "</joint></model></sdf>")
    warnings: list[str] = []
    export_model(load_model(src, warnings=warnings), "sdf", warnings=warnings)
    assert any("is ignored" in w for w in warnings) and not any("not written" in w for w in warnings), warnings


def test_a_split_joint_keeps_what_is_not_its_axis_mimic(tmp_path: Path) -> None:
    """Only an axis's mimic is read (and ignored) for a split joint: a <mimic> elsewhere is the file's, kept."""
    src = tmp_path / "m.sdf"
    src.write_text(
        "<sdf version='1.11'><model name='m'><link name='a'/><link name='b'/><link name='c'/>"
        "<joint name='j' type='revolute'><parent>a</parent><child>b</child><axis><xyz>0 0 1</xyz></axis></joint>"
        "<joint name='u' type='universal'><parent>b</parent><child>c</child><mimic joint='j'/>"
        "<axis><xyz>1 0 0</xyz></axis><axis2><xyz>0 1 0</xyz></axis2></joint></model></sdf>")
    text = export_model(load_model(src), "sdf")
    assert etree.fromstring(text.encode()).xpath("//joint[@name='u']/mimic/@joint") == ["j"]
    assert load_model(text, "sdf").joints["u"].mimic is None
