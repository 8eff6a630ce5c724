"""URDF `<gazebo>` extensions to SDF, compared element by element with libsdformat's `ign sdf -p`.

On every URDF of the corpus that carries `<gazebo>` blocks: model plugins (all of them, content
included), every Gazebo sensor (name, type, content, and pose where both write it on the same
link), link settings (self_collide, gravity, velocity decay, friction and contact parameters of the
collisions, material scripts of the visuals) and joint physics.  `ign sdf -p` lumps fixed joints
and we do not, so link settings are compared on links it did not lump into.  Our output must also
pass `ign sdf -k`.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from lxml import etree

from idyntree_models.api import export_model, load_model
from idyntree_models.model.transforms import make_transform, rpy_to_matrix

from conftest import rel_id, urdf_files


def _gazebo_urdfs() -> list[Path]:
    return [p for p in urdf_files() if b"<gazebo" in p.read_bytes()]


@pytest.fixture(scope="module")
def ign() -> str:
    exe = shutil.which("ign")
    if exe is None:
        pytest.skip("ign (ignition-tools + sdformat-sdf) not installed: `ign sdf -p` comparison skipped")
    return exe


def _norm(text: str | None) -> object:
    t = (text or "").strip()
    if t.lower() in ("true", "false"):
        return t.lower() == "true"
    try:
        return float(t)
    except ValueError:
        return " ".join(t.split())


def canon(el: etree._Element) -> tuple:
    """An element as comparable data: tag, attributes, normalised text, children in order."""
    kids = tuple(canon(c) for c in el if isinstance(c.tag, str))
    return (el.tag, tuple(sorted(el.attrib.items())), None if kids else _norm(el.text), kids)


def _pose(el: etree._Element | None) -> np.ndarray:
    v = [float(x) for x in (el.text or "").split()] if el is not None else [0.0] * 6
    return make_transform(rpy_to_matrix(v[3:]), v[:3])


def _sensors(model: etree._Element) -> dict[str, tuple[str, etree._Element]]:
    """Sensor name -> (owner link/joint name, element)."""
    out = {}
    for owner in list(model.iter("link")) + list(model.iter("joint")):
        for s in owner.findall("sensor"):
            out[s.get("name")] = (owner.get("name"), s)
    return out


def _leaves(el: etree._Element, prefix: str = "") -> set[tuple[str, object]]:
    out: set[tuple[str, object]] = set()
    for c in el:
        if not isinstance(c.tag, str):
            continue
        path = f"{prefix}/{c.tag}"
        if len(c):
            out |= _leaves(c, path)
        elif (c.text or "").strip():  # ign writes empty <ode/> placeholders: defaults, nothing set
            out.add((path, _norm(c.text)))
    return out


def _link_settings(link: etree._Element) -> dict[str, object]:
    s: dict[str, object] = {tag: _norm(link.findtext(tag)) for tag in ("self_collide", "gravity", "kinematic")
                            if link.find(tag) is not None}
    if link.find("velocity_decay") is not None:
        s["velocity_decay"] = frozenset(_leaves(link.find("velocity_decay")))
    surfaces: set = set()
    for col in link.findall("collision"):
        for tag in ("surface", "max_contacts", "laser_retro"):
            e = col.find(tag)
            if e is not None:
                surfaces |= _leaves(e, tag) if len(e) else {(tag, _norm(e.text))}
    s["collision settings"] = frozenset(surfaces)
    s["material scripts"] = frozenset(_norm(v.findtext("material/script/name")) for v in link.findall("visual")
                                      if v.find("material/script/name") is not None)
    return s


@pytest.mark.parametrize("path", _gazebo_urdfs(), ids=rel_id)
def test_gazebo_extensions_match_ign_sdf_p(ign: str, path: Path, tmp_path: Path) -> None:
    done = subprocess.run([ign, "sdf", "-p", str(path)], capture_output=True, text=True, timeout=300)
    if done.returncode != 0 or "<sdf" not in done.stdout:
        pytest.skip(f"ign sdf -p cannot convert this file: {done.stderr.strip()[-200:]}")
    # ign keeps the URDF's undeclared namespace prefixes (old Gazebo tags): read its output leniently
    theirs = etree.fromstring(done.stdout.encode(), etree.XMLParser(recover=True)).find("model")
    model = load_model(path)
    text = export_model(model, "sdf")
    ours = etree.fromstring(text.encode()).find("model")

    # model plugins, content included
    plugins = lambda m: sorted(canon(p) for p in m.findall("plugin"))  # noqa: E731
    assert plugins(ours) == plugins(theirs)

    # every Gazebo sensor, with its content, and its pose where both put it on the same link or joint
    mine, ref = _sensors(ours), _sensors(theirs)
    for name, (owner, s) in ref.items():
        assert name in mine, f"sensor {name}"
        my_owner, m = mine[name]
        assert m.get("type") == s.get("type"), name
        from_model = name in model.sensors or f"{name}_acc" in model.sensors  # ours, Gazebo's content merged in
        for c in s:
            if not isinstance(c.tag, str) or c.tag == "pose" or (from_model and c.tag == "force_torque"):
                continue
            assert any(canon(c) == canon(x) for x in m.findall(c.tag)), (name, c.tag)
        if my_owner == owner and not from_model:
            np.testing.assert_allclose(_pose(m.find("pose")), _pose(s.find("pose")), atol=1e-9, err_msg=name)

    # link settings where ign did not lump other links in
    our_links = {e.get("name"): e for e in ours.iter("link")}
    compared = 0
    for link in theirs.findall("link"):
        name = link.get("name")
        lumped = any("fixed_joint_lump" in (e.get("name") or "") for e in link)
        if lumped or name not in our_links:
            continue
        assert _link_settings(our_links[name]) == _link_settings(link), name
        compared += 1
    assert compared > 0

    # joint physics written from the extensions
    our_joints = {e.get("name"): e for e in ours.iter("joint")}
    for joint in theirs.findall("joint"):
        mine_j = our_joints.get(joint.get("name"))
        if mine_j is None:
            continue
        for p in ("physics/provide_feedback", "physics/ode/provide_feedback", "physics/ode/implicit_spring_damper",
                  "physics/ode/fudge_factor"):
            if joint.find(p) is not None and _norm(joint.findtext(p)) is not False:
                assert _norm(mine_j.findtext(p)) == _norm(joint.findtext(p)), (joint.get("name"), p)

    out = tmp_path / "model.sdf"
    out.write_text(text)
    check = subprocess.run([ign, "sdf", "-k", str(out)], capture_output=True, text=True, timeout=300)
    errors = [ln for ln in (check.stdout + check.stderr).splitlines() if "Error" in ln and "inertia" not in ln]
    assert "Valid." in check.stdout or not errors, check.stdout + check.stderr


_REVIEWED = """<robot name="r">
  <link name="a"><inertial><mass value="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial>
    <visual><geometry><box size="1 1 1"/></geometry><material name="green"><color rgba="0 1 0 1"/></material></visual>
    <visual><geometry><box size="1 1 1"/></geometry><material name="c"><color rgba="1 1 0 1"/></material></visual>
    <collision><geometry><box size="1 1 1"/></geometry></collision>
    <collision><geometry><box size="1 1 1"/></geometry></collision></link>
  <link name="b"><inertial><mass value="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial>
    <visual><geometry><box size="1 1 1"/></geometry><material name="green"/></visual>
    <collision><geometry><box size="1 1 1"/></geometry></collision></link>
  <joint name="ft" type="fixed"><parent link="a"/><child link="b"/></joint>
  <sensor name="ft" type="force_torque"><parent joint="ft"/>
    <force_torque><frame>child</frame><measure_direction>child_to_parent</measure_direction></force_torque></sensor>
  <gazebo reference="a"><visual><material><ambient>0 0 1 1</ambient><diffuse>0 0 1 1</diffuse></material></visual>
    <sensor name="bump" type="contact"><contact><collision>a_collision_1</collision></contact></sensor></gazebo>
</robot>"""


def test_what_a_review_against_ign_sdf_p_found(ign: str, tmp_path: Path) -> None:
    """Each compared with libsdformat's own conversion: a <gazebo> material colour wins over the URDF's (it was
    dropped); unnamed shapes get libsdformat's names, which a contact sensor names (ours were visual_0); a visual
    and a collision never share a name (ign sdf -k refused it); an F/T joint keeps its name beside its sensor
    (it was written ft_joint); a shape naming a material defined on another shape gets its colour."""
    src = tmp_path / "r.urdf"
    src.write_text(_REVIEWED)
    theirs = etree.fromstring(subprocess.run([ign, "sdf", "-p", str(src)], capture_output=True, text=True,
                                             timeout=300).stdout.encode()).find("model")
    out = tmp_path / "r.sdf"
    out.write_text(export_model(load_model(src), "sdf"))
    ours = etree.fromstring(out.read_bytes()).find("model")

    def shapes(model, link):  # (kind, name, diffuse) of each shape, libsdformat's lumped ones left out
        el = model.find(f"link[@name='{link}']")
        return sorted((s.tag, s.get("name"), _norm(s.findtext("material/diffuse"))) for s in el
                      if s.tag in ("visual", "collision") and "lump" not in s.get("name"))

    assert shapes(ours, "a") == shapes(theirs, "a")
    # b is lumped into a there: its visual's colour is the one defined on a's first visual
    lumped = next(v for v in theirs.find("link[@name='a']").findall("visual") if "lump__b" in v.get("name"))
    mine = ours.find("link[@name='b']/visual")
    assert mine.get("name") == "b_visual"
    assert [float(x) for x in mine.findtext("material/diffuse").split()] == \
        [float(x) for x in lumped.findtext("material/diffuse").split()] == [0.0, 1.0, 0.0, 1.0]
    assert ours.find("joint[@name='ft']") is not None and ours.find("joint[@name='ft_joint']") is None
    check = subprocess.run([ign, "sdf", "-k", str(out)], capture_output=True, text=True, timeout=300)
    assert "Valid." in check.stdout, check.stdout + check.stderr


def test_a_material_defined_on_a_shape_colours_the_shapes_after_it(ign: str, tmp_path: Path) -> None:
    """urdfdom's material table takes a shape's material when the file reaches it: a shape naming it before gets
    no colour, one after gets it (libsdformat, which reads URDF through urdfdom, writes exactly that)."""
    inertial = '<inertial><mass value="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial>'
    box = '<geometry><box size="1 1 1"/></geometry>'
    links = [("a", '<material name="green"/>'), ("b", '<material name="green"><color rgba="0 1 0 1"/></material>'),
             ("c", '<material name="green"/>')]
    src = tmp_path / "m.urdf"
    src.write_text('<robot name="r">' + "".join(f'<link name="{n}">{inertial}<visual>{box}{m}</visual></link>'
                                                for n, m in links)
                   + '<joint name="j1" type="continuous"><parent link="a"/><child link="b"/></joint>'
                   + '<joint name="j2" type="continuous"><parent link="b"/><child link="c"/></joint></robot>')
    theirs = etree.fromstring(subprocess.run([ign, "sdf", "-p", str(src)], capture_output=True, text=True,
                                             timeout=300).stdout.encode()).find("model")
    model = load_model(src)
    for name, _ in links:
        colour = model.links[name].visuals[0].material.color
        diffuse = theirs.findtext(f"link[@name='{name}']/visual/material/diffuse")
        assert (colour is None) == (diffuse is None), name
        if colour is not None:
            assert list(colour) == [float(x) for x in diffuse.split()], name


def test_settings_for_shapes_a_link_does_not_have_are_named_as_dropped(ign: str, tmp_path: Path) -> None:
    """libsdformat drops a <gazebo reference> material or friction of a link without visuals or collisions without
    a word; so did we."""
    urdf = tmp_path / "r.urdf"
    urdf.write_text('<robot name="r"><link name="l1"><inertial><mass value="1"/><inertia ixx="1" ixy="0" ixz="0" '
                    'iyy="1" iyz="0" izz="1"/></inertial></link>'
                    '<gazebo reference="l1"><material>Gazebo/Red</material><mu1>0.5</mu1></gazebo></robot>')
    done = subprocess.run([ign, "sdf", "-p", str(urdf)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    theirs = etree.fromstring(done.stdout.encode())
    assert theirs.find(".//script") is None and theirs.find(".//mu") is None  # libsdformat has nowhere to put them
    warnings: list[str] = []
    ours = etree.fromstring(export_model(load_model(urdf), "sdf", warnings=warnings).encode())
    assert ours.find(".//script") is None and ours.find(".//mu") is None
    said = [w for w in warnings if "2 <gazebo reference> setting(s) for visuals or collisions" in w]
    assert said and "<material> of 'l1' (no visual), <mu1> of 'l1' (no collision)" in said[0], warnings


_CONFLICTING = """<robot name="g">
  <link name="a"><inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="b"><inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="ft" type="revolute"><origin xyz="0 0 0.2"/><parent link="a"/><child link="b"/><axis xyz="0 0 1"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
  <sensor name="ft_s" type="force_torque"><parent joint="ft"/>
    <force_torque><frame>child</frame><measure_direction>parent_to_child</measure_direction></force_torque></sensor>
  <sensor name="imu" type="accelerometer"><parent link="b"/><origin xyz="0.1 0 0" rpy="0 0 1.57"/></sensor>
  <gazebo reference="ft"><sensor name="ft_s" type="force_torque"><force_torque><frame>child</frame>
    <measure_direction>child_to_parent</measure_direction></force_torque></sensor></gazebo>
  <gazebo reference="b"><sensor name="imu" type="imu"><pose>0 0 0 0 0 0</pose></sensor>
    <sensor name="cam" type="camera"><pose>0 0 0.1 0 0 0</pose></sensor></gazebo>
  <gazebo reference="a"><sensor name="same" type="imu"><always_on>1</always_on></sensor></gazebo>
  <gazebo reference="a"><sensor name="same" type="imu"><always_on>true</always_on></sensor>
    <sensor name="e" type="imu"><pose/></sensor></gazebo>
  <sensor name="ft_c" type="force_torque"><parent joint="ft"/>
    <force_torque><frame>child</frame><measure_direction>child_to_parent</measure_direction></force_torque></sensor>
  <gazebo reference="ft"><sensor name="ft_c" type="force_torque"><always_on>1</always_on><force_torque>
    <frame>sensor</frame><measure_direction>child_to_parent</measure_direction></force_torque></sensor></gazebo>
</robot>"""


def test_gazebo_sensors_that_disagree_with_the_model_s_or_add_to_them_are_named(ign: str, tmp_path: Path) -> None:
    """Found in review: a <gazebo> sensor named as one of the model's was merged into it with the model's values
    (a measure direction of the other sign, another pose), where libsdformat's conversion of the URDF (what Gazebo
    runs) takes the <gazebo> block's, without a word; and the <gazebo> sensors written beside the model's are
    sensors of the SDF, read back as sensors of the model (iCubGenova02: 6 F/T sensors for iDynTree, 14 after
    URDF -> SDF -> URDF), which no warning said. Both are named now; what differs is found against `ign sdf -p`."""
    path = tmp_path / "g.urdf"
    path.write_text(_CONFLICTING)
    done = subprocess.run([ign, "sdf", "-p", str(path)], capture_output=True, text=True, timeout=300)
    theirs = _sensors(etree.fromstring(done.stdout.encode()).find("model"))
    warnings: list[str] = []
    ours = _sensors(etree.fromstring(export_model(load_model(path), "sdf", warnings=warnings).encode()).find("model"))
    differ = []
    for name in ("ft_s", "imu"):
        (_, t), (_, o) = theirs[name], ours[name]
        ft = lambda s, k: s.findtext(f"force_torque/{k}", "").strip()  # noqa: E731
        if ft(t, "measure_direction") != ft(o, "measure_direction") or not np.allclose(
                _pose(t.find("pose")), _pose(o.find("pose")), atol=1e-9):
            differ.append(name)
    assert differ == ["ft_s", "imu"]  # (libsdformat writes the <gazebo> block's values; we write the model's)
    said = [w for w in warnings if "say otherwise than the model's sensor" in w]
    # (the model's imu is at 0.1 0 0, turned 1.57 about z; the block's at the link's origin)
    assert len(said) == 1 and "'ft_s' (<force_torque><measure_direction> 'child_to_parent' against " \
        "'parent_to_child')" in said[0] and "'imu' (<pose> 0.1 m and 1.57 rad apart)" in said[0], warnings
    # and not: a second block's sensor of a name (merged into the first), 'true' for '1', a sensor frame at the
    # joint for the child frame (the same axes at the same point)
    assert "'same'" not in said[0] and "'ft_c'" not in said[0], said
    added = [w for w in warnings if "written as sensors of the SDF beside the model's" in w]
    assert len(added) == 1 and "'cam' in link 'b'" in added[0] and "'same' in link 'a'" in added[0] \
        and "'e' in link 'a'" in added[0], warnings
    assert set(theirs) == set(ours) == {"ft_s", "ft_c", "imu", "cam", "same", "e"}  # (an empty <pose/> is none)
