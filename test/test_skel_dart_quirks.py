"""Where a review against dartpy 6.20 found our SKEL reader different from DART, each case checked with DART itself.

A ball or free joint's old-style <axis> (its limits and damping) was applied, though DART reads none of it; a
mesh of no volume (a flat OBJ, a zero scale) weighed nothing, where DART counts it as volume 1; an STL mesh did not
count for the inertia, where DART takes its bounding box as for an OBJ; a mesh without <scale> or with an empty
<file_name> loaded, where DART refuses it; a body of mass 0 and a planar joint without <plane> loaded without the
warning DART gives.
"""

from __future__ import annotations

import re
import struct
import warnings
from pathlib import Path

import numpy as np
import pytest

from idyntree_models.api import load_model
from idyntree_models.errors import ModelError

from test_skel import compare_with_dart, dart_reference, needs_dartpy

HEAD = '<?xml version="1.0"?>\n<skel version="1.0"><world name="w"><skeleton name="s">\n'
TAIL = "</skeleton></world></skel>\n"
FIXED_BODY = ("<body name=\"b0\"><inertia><mass>1</mass><moment_of_inertia><ixx>1</ixx><iyy>1</iyy><izz>1</izz>"
              "<ixy>0</ixy><ixz>0</ixz><iyz>0</iyz></moment_of_inertia></inertia></body>\n")
TRIANGLE = [(0.0, 0.0, 0.0), (1.0, 0.0, 0.0), (0.0, 2.0, 0.5)]


def _write(tmp_path: Path, body: str, joints: str) -> Path:
    path = tmp_path / "m.skel"
    path.write_text(HEAD + FIXED_BODY + body + joints + TAIL)
    return path


def _weld(child: str = "b1") -> str:
    return ('<joint type="free" name="j0"><parent>world</parent><child>b0</child></joint>\n'
            f'<joint type="weld" name="j1"><parent>b0</parent><child>{child}</child></joint>\n')


def _mesh_body(mesh: str, scale: str = "1 1 1", box: bool = True) -> str:
    other = "<collision_shape><geometry><box><size>2 2 2</size></box></geometry></collision_shape>" if box else ""
    return (f"<body name=\"b1\"><inertia><mass>2</mass></inertia><visualization_shape><geometry><mesh>"
            f"<file_name>{mesh}</file_name><scale>{scale}</scale></mesh></geometry></visualization_shape>{other}</body>\n")


def _meshes(tmp_path: Path) -> None:
    (tmp_path / "flat.obj").write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n")
    (tmp_path / "tri.obj").write_text("".join(f"v {x} {y} {z}\n" for x, y, z in TRIANGLE) + "f 1 2 3\n")
    (tmp_path / "tri_ascii.stl").write_text(
        "solid t\nfacet normal 0 0 1\nouter loop\n" + "".join(f"vertex {x} {y} {z}\n" for x, y, z in TRIANGLE)
        + "endloop\nendfacet\nendsolid t\n")
    (tmp_path / "tri_binary.stl").write_bytes(
        b"\0" * 80 + struct.pack("<I", 1) + struct.pack("<12f", 0, 0, 1, *[c for p in TRIANGLE for c in p]) + b"\0\0")


@needs_dartpy
@pytest.mark.parametrize("mesh, scale, box", [
    ("flat.obj", "1 1 1", True), ("flat.obj", "1 1 1", False), ("tri.obj", "0 1 1", True),
    ("tri_ascii.stl", "1 1 1", True), ("tri_binary.stl", "2 1 1", True), ("tri.obj", "1 1 1", True),
])
def test_a_body_s_inertia_from_its_meshes_is_dart_s(tmp_path: Path, mesh: str, scale: str, box: bool) -> None:
    _meshes(tmp_path)
    path = _write(tmp_path, _mesh_body(mesh, scale, box), _weld())
    ref = dart_reference(path)
    assert ref["ok"], ref
    assert compare_with_dart(path, ref) == 2  # poses, masses, COMs and inertias of both bodies


@needs_dartpy
def test_ball_and_free_joints_take_no_old_style_axis(tmp_path: Path) -> None:
    axis = ("<axis><limit><lower>-2</lower><upper>2</upper></limit><dynamics><damping>3</damping>"
            "<friction>1</friction></dynamics></axis>")
    body = ("<body name=\"b1\"><inertia><mass>1</mass></inertia></body>\n"
            "<body name=\"b2\"><inertia><mass>1</mass></inertia></body>\n")
    joints = (f'<joint type="free" name="j0"><parent>world</parent><child>b0</child>{axis}</joint>\n'
              f'<joint type="ball" name="j1"><parent>b0</parent><child>b1</child>{axis}</joint>\n'
              f'<joint type="free" name="j2"><parent>b1</parent><child>b2</child>{axis.replace("axis", "axis6")}</joint>\n')
    path = _write(tmp_path, body, joints)
    import dartpy  # (needs_dartpy: importable)

    skeleton = dartpy.utils.SkelParser.readWorld(str(path)).getSkeleton(0)
    for k in range(skeleton.getNumJoints()):
        joint = skeleton.getJoint(k)
        for i in range(joint.getNumDofs()):
            assert np.isinf(joint.getPositionLowerLimit(i)) and joint.getDampingCoefficient(i) == 0.0
    warnings: list[str] = []
    model = load_model(path, warnings=warnings)
    assert not any(j.limits.has_position_limits or (j.dynamics and j.dynamics.damping) for j in model.joints.values())
    unread = model.metadata["skel_not_read"]
    assert unread == ["<axis> in joint 'j0' (line 6)", "<axis> in joint 'j1' (line 7)", "<axis6> in joint 'j2' (line 8)"]
    assert compare_with_dart(path, dart_reference(path)) == 3


@pytest.mark.parametrize("mesh, message", [
    ("<mesh><file_name>flat.obj</file_name></mesh>", "missing <scale> (DART refuses a mesh without one)"),
    ("<mesh><file_name> </file_name><scale>1 1 1</scale></mesh>", "<mesh> has an empty <file_name> (DART refuses it)"),
])
def test_a_mesh_dart_refuses_is_refused(tmp_path: Path, mesh: str, message: str) -> None:
    _meshes(tmp_path)
    body = f"<body name=\"b1\"><visualization_shape><geometry>{mesh}</geometry></visualization_shape></body>\n"
    path = _write(tmp_path, body, _weld())
    ref = dart_reference(path)
    assert not ref.get("ok"), ref  # (without dartpy: the error says where, below)
    with pytest.raises(ModelError, match=re.escape(message)) as e:
        load_model(path)
    assert e.value.line == 4


def test_what_dart_warns_about_is_said_and_reversed_limits_are_refused_at_their_joint(tmp_path: Path) -> None:
    body = "<body name=\"b1\"><inertia><mass>0</mass></inertia></body>\n"
    planar = '<joint type="planar" name="p"><parent>b0</parent><child>b1</child></joint>\n'
    warnings: list[str] = []
    load_model(_write(tmp_path, body, '<joint type="free" name="j0"><parent>world</parent><child>b0</child></joint>\n'
                      + planar), warnings=warnings)
    assert any("line 4: body 'b1' has mass 0" in w for w in warnings), warnings
    assert any("line 6: planar joint 'p' has no <plane>: it moves in the xy plane" in w for w in warnings), warnings
    reversed_ = ('<joint type="revolute" name="r"><parent>b0</parent><child>b1</child><axis><xyz>0 0 1</xyz>'
                 '<limit><lower>1</lower><upper>-1</upper></limit></axis></joint>\n')
    with pytest.raises(ModelError, match="joint 'r': DOF 0 has its lower position limit 1 above its upper limit -1") as e:
        load_model(_write(tmp_path, body.replace(">0<", ">1<"),
                          '<joint type="free" name="j0"><parent>world</parent><child>b0</child></joint>\n' + reversed_))
    assert e.value.line == 6


_TWO_SKELETONS = """<?xml version="1.0"?>
<skel version="1.0"><world name="w"><physics><time_step>0.001</time_step><gravity>0 0 -9.81</gravity>{physics}</physics>
<skeleton name="first"><body name="a"><inertia><mass>1</mass></inertia></body>
<joint type="free" name="ja"><parent>world</parent><child>a</child></joint></skeleton>
<skeleton name="second"><body name="b"><inertia><mass>1</mass></inertia><visualization_shape><geometry>
<ellipsoid>{ellipsoid}</ellipsoid></geometry></visualization_shape></body>
<joint type="free" name="jb"><parent>world</parent><child>b</child></joint></skeleton></world></skel>
"""


@pytest.mark.parametrize("physics, ellipsoid, line, message", [
    ("", "", 6, "missing <size> (in skeleton 'second', which is not loaded; DART refuses the whole world)"),
    ("<collision_detector> </collision_detector>", "<size>1 1 1</size>", 2, "<collision_detector> is empty"),
])
def test_what_dart_refuses_in_a_skeleton_not_loaded_is_refused(tmp_path: Path, physics, ellipsoid, line, message):
    """Found by differential fuzzing against dartpy (fuzz_reference.py seed 20261212): DART reads every skeleton of the
    world and refuses the file where one is broken; the reader loaded the first and read the file. An empty collision
    detector, too, DART refuses ("has no text content")."""
    path = tmp_path / "w.skel"
    path.write_text(_TWO_SKELETONS.format(physics=physics, ellipsoid=ellipsoid))
    assert not dart_reference(path).get("ok")
    with pytest.raises(ModelError, match=re.escape(message)) as e:
        load_model(path)
    assert e.value.line == line
    path.write_text(_TWO_SKELETONS.format(physics="", ellipsoid="<size>1 1 1</size>"))
    assert dart_reference(path).get("ok") and load_model(path).name == "first"


def test_what_the_reader_refuses_beyond_dart_in_a_skeleton_not_loaded_does_not_refuse_the_file(tmp_path: Path):
    """Found in review: the skeletons not loaded were judged by all of the reader's rules; a duplicate body, which
    DART drops with a word and reads the world, refused the file. Only what DART refuses counts there."""
    path = tmp_path / "w.skel"
    dup = '<body name="b"><inertia><mass>1</mass></inertia></body>'
    path.write_text(_TWO_SKELETONS.format(physics="", ellipsoid="<size>1 1 1</size>").replace(
        '<skeleton name="second">', f'<skeleton name="second">{dup}'))
    assert dart_reference(path).get("ok")
    assert load_model(path).name == "first"
    with pytest.raises(ModelError, match="duplicate body name 'b'"):
        load_model(path, skeleton="second")


_SOFT = ('<body name="{name}"><inertia><mass>1</mass></inertia><soft_shape>{mass}<geometry>{geometry}</geometry>'
         "<kv>500</kv></soft_shape></body>")
_SOFT_KINDS = {
    "sphere": "<sphere><radius>0.2</radius><num_slices>6</num_slices><num_stacks>6</num_stacks></sphere>",
    "box": "<box><size>0.2 0.2 0.2</size><frags>3 3 3</frags></box>",
    "ellipsoid": "<ellipsoid><size>0.2 0.2 0.2</size><num_slices>6</num_slices><num_stacks>6</num_stacks></ellipsoid>",
    "cylinder": ("<cylinder><radius>0.2</radius><height>0.3</height><num_slices>6</num_slices><num_stacks>6</num_stacks>"
                 "<num_rings>2</num_rings></cylinder>"),
}


def _soft_world(geometry: str, mass: str = "<total_mass>0.5</total_mass>", where: str = "second") -> str:
    soft = _SOFT.format(name="s", mass=mass, geometry=geometry)
    rigid = '<body name="s"><inertia><mass>1</mass></inertia></body>'
    return (f'<?xml version="1.0"?>\n<skel version="1.0"><world name="w">\n'
            f'<skeleton name="first">{soft if where == "first" else rigid}\n'
            '<joint type="free" name="j1"><parent>world</parent><child>s</child></joint></skeleton>\n'
            f'<skeleton name="second">{soft if where == "second" else rigid}\n'
            '<joint type="free" name="j2"><parent>world</parent><child>s</child></joint></skeleton></world></skel>\n')


_SOFT_BROKEN = [(kind, re.sub(f"<{tag}>[^<]*</{tag}>", "", text, count=1),
                 f"missing <{tag}> in the soft <{kind}> of body 's'")
                for kind, text in _SOFT_KINDS.items() for tag in re.findall(r"<(\w+)>[^<]", text)]
_SOFT_BROKEN += [("mass", _SOFT_KINDS["box"], "missing <total_mass> in the <soft_shape> of body 's'"),
                 # DART reads the sphere and not the box after it
                 ("sphere first", _SOFT_KINDS["sphere"] + "<box/>", None),
                 ("ellipsoid after an empty sphere", "<sphere/>" + _SOFT_KINDS["ellipsoid"],
                  "missing <radius> in the soft <sphere> of body 's'")]


@pytest.mark.parametrize("where", ["first", "second"])
@pytest.mark.parametrize("kind, geometry, message", _SOFT_BROKEN, ids=[f"{c[0]}-{c[2]}" for c in _SOFT_BROKEN])
def test_a_soft_shape_is_judged_as_dart_reads_it(tmp_path: Path, where, kind, geometry, message):
    """Found by fuzz_reference.py (seed 20261220): a soft shape is not in the model (named as lost), and the reader
    judged only a box's <frags>; DART needs every number of the kind it reads (a sphere's <num_slices>, a box's
    <size>) and its <total_mass>, and refuses the file without them, in a skeleton loaded or not."""
    path = tmp_path / "soft.skel"
    path.write_text(_soft_world(geometry, "" if kind == "mass" else "<total_mass>0.5</total_mass>", where))
    ref = dart_reference(path)
    if message is None:
        assert ref.get("ok"), ref
        warnings: list[str] = []
        load_model(path, skeleton=where, warnings=warnings)
        assert any("soft body 's' (soft sphere of 0.5 kg" in w for w in warnings), warnings
        return
    assert not ref.get("ok"), ref
    with pytest.raises(ModelError, match=re.escape(message)) as e:
        load_model(path)
    assert e.value.line == (3 if where == "first" else 5)
    if where == "second":
        assert "which is not loaded; DART refuses the whole world" in str(e.value)


_SECOND = ('<?xml version="1.0"?>\n<skel version="1.0"><world name="w">\n'
           '<skeleton name="first"><body name="a"><inertia><mass>1</mass></inertia></body>'
           '<joint type="free" name="ja"><parent>world</parent><child>a</child></joint></skeleton>\n'
           '<skeleton name="second"><body name="b"><inertia><mass>1</mass></inertia>{shape}</body>\n{joint}</skeleton>'
           '</world></skel>\n')
_JOINT = '<joint type="free" name="jb"><parent>world</parent><child>b</child></joint>'


def _typed(joint_type: str, inner: str) -> str:
    return f'<joint type="{joint_type}" name="jb"><parent>world</parent><child>b</child>{inner}</joint>'


@pytest.mark.parametrize("shape, joint, line, message", [
    ("<visualization_shape><transformation>0 0 0 0 0 0</transformation></visualization_shape>", _JOINT, 4,
     "missing <geometry> in <visualization_shape> of body 'b'"),
    ("<visualization_shape><geometry></geometry></visualization_shape>", _JOINT, 4,
     "body 'b': no known shape in <geometry> (found nothing;"),
    ("<collision_shape><geometry><foo/></geometry></collision_shape>", _JOINT, 4,
     "body 'b': no known shape in <geometry> (found ['foo'];"),
    ("", _JOINT.replace("<child>b</child>", "<child></child>"), 5, "joint 'jb' has no <child>"),
    ("", _JOINT.replace("<parent>world</parent>", "<parent> </parent>"), 5, "joint 'jb' has no <parent>"),
    ("", _typed("universal", "<axis><xyz>0 0 1</xyz></axis><axis2><damping>1</damping></axis2>"), 5,
     "missing <xyz> in <axis2> of joint 'jb' (DART refuses it too)"),
    ("", _typed("revolute", "<axis/>"), 5, "missing <xyz> in <axis> of joint 'jb'"),
    ("<gravity>abc</gravity>", _typed("revolute", "<axis/>"), 5, "missing <xyz> in <axis> of joint 'jb'"),
    ("", _typed("prismatic", "<axis><damping>1</damping></axis>"), 5, "missing <xyz> in <axis> of joint 'jb'"),
    ("", _typed("screw", "<axis><pitch>1</pitch></axis>"), 5, "missing <xyz> in <axis> of joint 'jb'"),
    ("", _typed("planar", '<plane type="arbitrary"><translation_axis1/><translation_axis2><xyz>0 1 0</xyz>'
                          "</translation_axis2></plane>"), 5, "missing <xyz> in <translation_axis1> of joint 'jb'"),
    ("", _typed("planar", '<plane type="arbitrary"><translation_axis2><xyz>0 1 0</xyz></translation_axis2></plane>'), 5,
     "joint 'jb' needs <translation_axis1><xyz> (DART crashes without it)"),
    ("", _typed("euler", ""), 5, "euler joint 'jb' needs <axis_order> xyz or zyx, got ''"),
    ("", _typed("euler", "<axis_order> </axis_order>"), 5, "euler joint 'jb' needs <axis_order> xyz or zyx, got ''"),
])
def test_what_dart_cannot_read_in_a_skeleton_not_loaded_refuses_the_file(tmp_path: Path, shape, joint, line, message):
    """DART crashes on a shape without <geometry> and refuses an empty <child> or <parent>, in any skeleton of the
    world; the reader judged them in the skeleton it loads only (fuzz_reference.py --format skel seed 20261227), and
    crashes on a <geometry> holding no shape it knows (seed 20261402).
    Likewise an <axis> (<axis2>, a plane's translation axis) without <xyz>, an arbitrary plane without a translation
    axis (DART crashes) and an euler joint without <axis_order> or with an empty one (seed 20261303)."""
    path = tmp_path / "w.skel"
    path.write_text(_SECOND.format(shape=shape, joint=joint))
    assert not dart_reference(path).get("ok")
    with pytest.raises(ModelError, match=re.escape(message) + r".*which is not loaded; DART refuses the whole world") as e:
        load_model(path)
    assert e.value.line == line
    path.write_text(_SECOND.format(shape="", joint=_JOINT))
    assert dart_reference(path).get("ok") and load_model(path).name == "first"


_C = '</body><body name="c"><inertia><mass>1</mass></inertia>'  # (closes body b, opens a body c)
_JC_NO_XYZ = _typed("revolute", "<axis/>").replace('name="jb"', 'name="jc"').replace("<child>b<", "<child>c<")


@pytest.mark.parametrize("shape, joint", [
    (_C, _JOINT.replace('type="free"', 'type="foo"') + _JC_NO_XYZ),  # an unknown joint type
    (_C, _JOINT.replace("<parent>world</parent>", "") + _JC_NO_XYZ),  # no <parent>
    (_C, _JOINT.replace("world", "nobody") + _JC_NO_XYZ),  # a parent that is no body
    (_C, _typed("revolute", "<axis><xyz>0 0 0</xyz></axis>") + _JC_NO_XYZ),  # a zero axis
    (_C, _typed("revolute", "<axis><xyz>0 0 1</xyz><limit><lower>1</lower><upper>-1</upper></limit></axis>")
     + _JC_NO_XYZ),  # limits the wrong way round
    (_C, _JOINT + _JOINT.replace("<child>b<", "<child>c<") + _JC_NO_XYZ.replace('"jc"', '"jd"')),  # a duplicate joint
    (_C.replace("<mass>1</mass>", "<mass>-1</mass>"), _JOINT + _JC_NO_XYZ),  # a body the reader refuses (review)
])
def test_what_the_reader_alone_refuses_in_a_skeleton_not_loaded_does_not_end_its_judging(tmp_path: Path, shape, joint):
    """A joint the reader refuses by its own rule (DART reads it, or drops it with a word) ended the judging of a
    skeleton not loaded, so that what DART refuses in a later joint (an <axis> without <xyz>) was read (found with
    <gravity>abc</gravity>, fuzz_reference.py --format skel seed 20261402): each body and joint is judged on its own."""
    path = tmp_path / "w.skel"
    path.write_text(_SECOND.format(shape=shape, joint=joint))
    assert "Child element [xyz] not found in parent element [axis]" in dart_reference(path).get("error", "")
    with pytest.raises(ModelError, match=r"missing <xyz> in <axis> of joint 'j[cd]'.*which is not loaded") as e:
        load_model(path)
    assert e.value.line == 5


@pytest.mark.parametrize("angle", ["inf", "-inf", "nan"])
def test_an_infinite_angle_dart_reads_in_a_skeleton_not_loaded_is_judged_without_a_warning(tmp_path: Path, angle):
    """DART reads 'inf' in a skeleton's <transformation> (strtod), and the judging of a skeleton not loaded reads it
    so: its rotation (cos inf) raised numpy's "invalid value" RuntimeWarning, an exception under -W error
    (fuzz_report.py seed 20261405), instead of going on to what DART refuses further on."""
    path = tmp_path / "w.skel"
    path.write_text(_SECOND.format(shape=f"<transformation>0 0 0 {angle} 0 0</transformation>",
                                   joint=_typed("revolute", "<axis/>")))
    assert "Child element [xyz] not found" in dart_reference(path).get("error", "")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ModelError, match=r"missing <xyz> in <axis> of joint 'jb'.*which is not loaded"):
            load_model(path)


@pytest.mark.parametrize("joint, message", [
    (_typed("revolute", ""), "joint 'jb' needs <axis><xyz>"),
    (_typed("universal", "<axis><xyz>0 0 1</xyz></axis>"), "joint 'jb' needs <axis2><xyz>"),
    (_typed("euler", "<axis_order>xyx</axis_order>"), "needs <axis_order> xyz or zyx, got 'xyx'"),
    (_typed("planar", '<plane type="diagonal"/>'), "plane type 'diagonal'"),
])
def test_what_dart_reads_with_a_default_is_refused_only_in_the_skeleton_loaded(tmp_path: Path, joint, message):
    """DART reads a joint without <axis>, or with an axis order or plane type it does not know, with its default and
    an error message: the reader refuses it in the skeleton it loads (a joint turning about an axis nobody wrote), but
    a skeleton not loaded does not refuse the file, as DART reads it."""
    path = tmp_path / "w.skel"
    path.write_text(_SECOND.format(shape="", joint=joint))
    assert dart_reference(path).get("ok")
    assert load_model(path).name == "first"
    with pytest.raises(ModelError, match=re.escape(message)):
        load_model(path, skeleton="second")


_B_INERTIA = '<body name="b"><inertia><mass>1</mass></inertia>'


@pytest.mark.parametrize("old, new", [
    ("</inertia>", "</inertia><transformation>0 0 0 0 0</transformation>"),  # too few: DART takes zeros
    ("</inertia>", "</inertia><transformation>0 0 0 0 0 0 1</transformation>"),  # too many: dropped
    ("</inertia>", "</inertia><transformation>0,0,0,0,0,0</transformation>"),  # strtod's prefix: 0
    ("</inertia>", "</inertia><transformation>nan 0 0 0 0 0</transformation>"),
    ("<mass>1</mass>", "<mass>1 2</mass>"),  # a single value: the first piece
    ("<mass>1</mass>", "<mass>1x</mass>"),
    ("</inertia>", "</inertia><gravity>abc</gravity>"),  # (any text is a boolean to DART: seed 20261402)
    ("</inertia>", "</inertia><gravity>" + "9" * 400 + "</gravity>"),
    ("</inertia>", "</inertia><visualization_shape><geometry><box><size>1 1</size></box></geometry>"
                   "</visualization_shape>"),
    ("<child>b</child>", '<child>b</child><dof local_index="0"><position lower="x" upper="1"/></dof>'),
])
def test_numbers_dart_reads_in_a_skeleton_not_loaded_do_not_refuse_the_file(tmp_path: Path, old, new):
    """DART reads a number as strtod reads the prefix of each piece (too few are zeros, too many dropped; a
    single value is its first piece; a <dof>'s attributes whatever they hold): the reader refused the whole world for
    a count or a NaN in a skeleton it does not load, saying DART refuses it (fuzz_reference.py --format skel seed
    20261303). Refused in the skeleton loaded, as before."""
    joint = _JOINT if "dof" not in new else _typed("revolute", "<axis><xyz>0 0 1</xyz></axis>")
    text = _SECOND.format(shape="", joint=joint)
    body_b = text.index(_B_INERTIA)
    at = text.index(old, body_b)
    path = tmp_path / "w.skel"
    path.write_text(text[:at] + new + text[at + len(old):])
    assert dart_reference(path).get("ok")
    assert load_model(path).name == "first"
    with pytest.raises(ModelError) as e:
        load_model(path, skeleton="second")
    assert "not loaded" not in e.value.message


@pytest.mark.parametrize("old, new, message", [
    ("</inertia>", "</inertia><transformation>0 0 0 0 0 x</transformation>",
     "<transformation> value must be numbers, got '0 0 0 0 0 x'"),
    ("</inertia>", "</inertia><transformation>0 0 0 0 0 0 x</transformation>", "<transformation> value must be numbers, got '0 0 0 0 0 0 x'"),
    ("<mass>1</mass>", "<mass>x 1</mass>", "<mass> value must be numbers"),
    ("<mass>1</mass>", "<mass>1e400</mass>", "<mass> value must be finite"),
    ("<child>b</child>", "<child>b</child><init_pos> </init_pos>", "<init_pos> of revolute joint 'jb' is empty or holds no number DART reads"),
])
def test_numbers_dart_cannot_read_in_a_skeleton_not_loaded_refuse_the_file(tmp_path: Path, old, new, message):
    """What strtod finds no number in, a number beyond a double's range, an element without text: DART refuses the
    world, and so does the reader (an empty <init_pos> was read, as the count alone was judged)."""
    joint = _typed("revolute", "<axis><xyz>0 0 1</xyz></axis>")
    text = _SECOND.format(shape="", joint=joint)
    at = text.index(old, text.index(_B_INERTIA))
    path = tmp_path / "w.skel"
    path.write_text(text[:at] + new + text[at + len(old):])
    assert not dart_reference(path).get("ok")
    with pytest.raises(ModelError, match=re.escape(message) + r".*which is not loaded; DART refuses the whole world"):
        load_model(path)


def test_what_dart_reads_of_a_number_is_what_the_c_library_strtod_reads():
    """DART converts each piece with std::stod, which is C's strtod: it reads the longest prefix it can and refuses a
    piece with none, or one whose value is out of range (ERANGE: beyond a double, or rounded to zero or a subnormal;
    an exact subnormal such as 0x1p-1074 is read). The reader's rule is checked against the C library itself."""
    import ctypes
    import ctypes.util
    import random

    from idyntree_models.formats.skel import _strtod

    name = ctypes.util.find_library("c")
    if name is None:
        pytest.skip("no C library to compare with")
    libc = ctypes.CDLL(name, use_errno=True)
    libc.strtod.restype = ctypes.c_double
    libc.strtod.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_char_p)]

    def c_reads(piece: str) -> bool:
        buf = ctypes.create_string_buffer(piece.encode())
        end = ctypes.c_char_p()
        ctypes.set_errno(0)
        libc.strtod(buf, ctypes.byref(end))
        consumed = ctypes.cast(end, ctypes.c_void_p).value - ctypes.addressof(buf)
        return consumed > 0 and ctypes.get_errno() == 0

    pieces = ["0x", "0x.p1", "0x1p", "0x1p-1074", "0x1p-1075", "0x1.8p-1074", "4e-324", "2.2250738585072011e-308",
              "1e-400", "0e-400", "1e308", "1.8e308", "-INFINITY", "nan(abc)", "nan(", ".", "-.", "+.5", "1e+", "e5",
              "0X1P3", "1_0", "infin", "1,5", "\u0661", "2.2250738585072012e-308", "0x1.fffffffffffffp-1023",
              "0x1p-1022", "2.2250738585072014e-308", "0x0p-99999999999", "0x1p-99999999999", "1e-99999999999",
              "0e999999999", "0." + "0" * 5000 + "1", "0" * 5000, "0x" + "0" * 5000 + "1p-4000", ".e5"]
    rnd = random.Random(20261303)
    alphabet = "0123456789.eExXpP+-infatyINF()_abcdef,"
    pieces += ["".join(rnd.choice(alphabet) for _ in range(rnd.randint(1, 8))) for _ in range(20000)]
    wrong = [p for p in pieces if (_strtod(p) is not None) != c_reads(p)]
    assert not wrong, wrong[:10]


_REV = _typed("revolute", "<axis><xyz>0 0 1</xyz></axis>")
_BOX = "<geometry><box><size>1 1 1</size></box></geometry>"


@pytest.mark.parametrize("mass, shape, joint", [
    # a number DART reads, then what DART refuses further on: the judging goes on past the first
    ("1 2", "", _typed("revolute", "<axis/>")),
    ("1", '<transformation>0 0 0 0 0</transformation><marker name="m"><offset>x 0 0</offset></marker>', _JOINT),
    ("1 2", "", _typed("revolute", "<axis><xyz>0 0 1</xyz></axis><init_pos/>")),
    # strtod's range error at the smallest normal double (the exact value below it), after text DART reads
    ("1", "<transformation>0 0 0 0 0 0 2.2250738585072012e-308x</transformation>", _JOINT),
    # empty booleans and an empty visual colour: "has no text content"
    ("1", "<gravity/>", _JOINT),
    ("1", f"<collision_shape>{_BOX}<collidable> </collidable></collision_shape>", _JOINT),
    ("1", f"<visualization_shape>{_BOX}<color/></visualization_shape>", _JOINT),
    # what DART reads: a joint of one DOF takes one value, a weld joint none, a collision shape's colour is not read
    ("1", "", _REV.replace("</joint>", "<init_pos>1 x</init_pos></joint>")),
    ("1", "", _typed("weld", "<init_pos>x</init_pos>")),
    ("1", f"<collision_shape>{_BOX}<color>1 x 1</color></collision_shape>", _JOINT),
    ("1 x", f"<visualization_shape>{_BOX}<color>1 1 1 1 0</color></visualization_shape>", _JOINT),
])
def test_a_skeleton_not_loaded_is_judged_as_dart_reads_it_to_the_end(tmp_path: Path, mass, shape, joint):
    """Found in review: a number DART reads and the reader refuses ended the judging of a skeleton not loaded, so that
    what DART refuses further on (an <axis> without <xyz>, an unreadable marker offset) was read; the numbers are now
    taken as DART takes them there, and the judging goes on. The file is refused exactly where dartpy refuses it."""
    path = tmp_path / "w.skel"
    path.write_text(_SECOND.format(shape=shape, joint=joint).replace(_B_INERTIA, f'<body name="b"><inertia><mass>{mass}'
                                                                                 "</mass></inertia>"))
    dart_ok = bool(dart_reference(path).get("ok"))
    try:
        ours_ok = load_model(path).name == "first"
    except ModelError as e:
        assert "which is not loaded; DART refuses the whole world" in e.message
        ours_ok = False
    assert ours_ok == dart_ok


@pytest.mark.parametrize("frags, dart_reads", [("2 0 2", True), ("0 0 0", True), ("-1 2 2", True), ("2 2", False)])
def test_a_soft_box_frags_is_judged_as_dart_reads_it(tmp_path: Path, frags, dart_reads):
    """Found by differential fuzzing (fuzz_reference.py --format skel seed 20261409): the rule of a count below 1 (a
    sphere's slices) refused a soft box's <frags> of 0, which DART makes 3 with a warning and reads; a <frags> of two
    counts DART reads the third of from whatever its memory holds (std::bad_alloc here), and refuses the world."""
    box = _SOFT_KINDS["box"].replace("<frags>3 3 3</frags>", f"<frags>{frags}</frags>")
    path = tmp_path / "w.skel"
    path.write_text(_soft_world(box))
    assert bool(dart_reference(path).get("ok")) == dart_reads
    if dart_reads:
        assert load_model(path).name == "first"
    else:
        with pytest.raises(ModelError, match=r"the <frags> of its soft box needs three counts .*which is not loaded"):
            load_model(path)


@pytest.mark.parametrize("slices, dart_reads", [(".5", False), ("5 6", True), ("5.5", True), ("0", None)])
def test_a_soft_count_below_one_refuses_the_file_and_one_dart_reads_does_not(tmp_path: Path, slices, dart_reads):
    """Found in review: any number the reader refused in a soft shape's count (`5 6`) refused the world 'as DART
    refuses it'; DART reads the first piece as an unsigned integer (stoul: '5 6' and '5.5' are 5, '.5' none). A count
    below 1 DART refuses, or runs out of memory on, or loops on forever (0 slices: not given to dartpy here)."""
    sphere = _SOFT_KINDS["sphere"].replace("<num_slices>6</num_slices>", f"<num_slices>{slices}</num_slices>")
    path = tmp_path / "w.skel"
    path.write_text(_soft_world(sphere))
    if dart_reads is not None:
        assert bool(dart_reference(path).get("ok")) == dart_reads
    if dart_reads:
        assert load_model(path).name == "first"
    else:
        with pytest.raises(ModelError, match=r"<num_slices> is below 1 \(DART refuses it, runs out of memory or never "
                                             r"ends\) \(in skeleton 'second', which is not loaded"):
            load_model(path)
