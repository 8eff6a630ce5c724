"""DART SKEL import, checked against dartpy (DART 6.20) on every SKEL file we have.

dartpy segfaults on some inputs (a body in no joint with a shape), so it only ever runs in a
subprocess, one per file: the reference data is its JSON dump of every body's mass, COM, inertia
and world pose at q = 0 and at the file's initial positions.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from idyntree_models import cli
from idyntree_models.api import export_model, load_model
from idyntree_models.errors import ModelError
from idyntree_models.model.kinematics import Kinematics
from idyntree_models.model.model import JointType

from conftest import MODELS, ROOTS

SKEL_DIR = MODELS / "skel"
SKEL_FILES = sorted(SKEL_DIR.rglob("*.skel"))
TOL = 1e-9

_HAVE_DARTPY = importlib.util.find_spec("dartpy") is not None
needs_dartpy = pytest.mark.skipif(not _HAVE_DARTPY, reason="dartpy (test dependency) is not installed")

_DART_DUMP = r"""
import json, sys
import numpy as np
import dartpy as d

def dump(path):
    w = d.utils.SkelParser.readWorld(path)
    if w is None:
        return {"ok": False, "error": "readWorld returned None"}
    out = {"ok": True, "gravity": list(w.getGravity()), "time_step": w.getTimeStep(), "skeletons": []}
    for i in range(w.getNumSkeletons()):
        s = w.getSkeleton(i)
        sk = {"name": s.getName(), "bodies": {}, "markers": {}}
        init = s.getPositions().copy()
        def poses():
            return {b.getName(): b.getWorldTransform().matrix().tolist() for b in s.getBodyNodes()}
        # dartpy 6.20 exposes no marker accessor, only the count per body
        sk["markers"] = {b.getName(): b.getNumMarkers() for b in s.getBodyNodes()}
        sk["pose_init"] = poses()
        s.setPositions(np.zeros(s.getNumDofs()))
        sk["pose_zero"] = poses()
        for b in s.getBodyNodes():
            inertia = b.getInertia()
            j = b.getParentJoint()
            sk["bodies"][b.getName()] = {
                "mass": inertia.getMass(), "com": list(inertia.getLocalCOM()),
                "moment": inertia.getMoment().tolist(), "joint": j.getName(), "joint_type": j.getType()}
        out["skeletons"].append(sk)
    return out

try:
    result = dump(sys.argv[1])
except Exception as e:
    result = {"ok": False, "error": str(e)}
print("@@JSON@@" + json.dumps(result))
"""


def dart_reference(path: Path) -> dict:
    """dartpy's view of a SKEL file, from a subprocess (a crash is reported, not fatal)."""
    proc = subprocess.run(
        [sys.executable, "-c", _DART_DUMP, str(path)], check=False, capture_output=True, text=True, timeout=300
    )
    for line in proc.stdout.splitlines():
        if line.startswith("@@JSON@@"):
            return json.loads(line[len("@@JSON@@"):])
    return {"ok": False, "crashed": proc.returncode, "error": proc.stderr[-2000:]}


def compare_with_dart(path: Path, ref: dict, allow: tuple[Path, ...] = ()) -> int:
    """Check every skeleton dartpy loaded against ours; return how many bodies were compared. `allow`: more
    directories meshes may be read from (a fuzzer's case beside links to the corpus's meshes)."""
    compared = 0
    for sk in ref["skeletons"]:
        warnings: list[str] = []
        # DART's samples read meshes from ../obj, outside their own directory: allowed explicitly
        model = load_model(path, skeleton=sk["name"], warnings=warnings,
                           allow_include_outside=[str(root) for root in (*ROOTS, *allow)])
        assert model.metadata["gravity"] == pytest.approx(ref["gravity"], abs=TOL)
        assert model.metadata["time_step"] == pytest.approx(ref["time_step"], abs=TOL)
        kin = Kinematics(model)
        for which, config, base in (
            ("zero", {}, model.metadata["base_pose"]),
            ("init", model.initial_configuration, model.metadata["initial_base_pose"]),
        ):
            world = kin.world_transforms(config, base_pose=np.array(base))
            for body, pose in sk[f"pose_{which}"].items():
                np.testing.assert_allclose(world[body], np.array(pose), atol=TOL, err_msg=f"{sk['name']}/{body} {which}")
        for body, b in sk["bodies"].items():
            inertia = model.links[body].inertia
            assert inertia.mass == pytest.approx(b["mass"], abs=TOL), body
            np.testing.assert_allclose(inertia.com, b["com"], atol=TOL, err_msg=body)
            np.testing.assert_allclose(inertia.inertia, np.array(b["moment"]), atol=TOL, err_msg=body)
            markers = [f for f in model.frames.values() if f.parent_link == body]
            assert len(markers) == sk["markers"][body], body
            compared += 1
        # anything we have beyond DART's bodies is a generated link or a body DART dropped and we reported
        info = model.metadata["skel_joints"]
        generated = {"world"} | {link for j in info.values() for link in j["links"]}
        kept = set(model.metadata.get("skel_free_bodies", []))
        assert set(model.links) - set(sk["bodies"]) <= generated | kept
        for body in kept:
            assert any(f"body '{body}' is in no joint" in w for w in warnings)
    return compared


# -- every SKEL file we have ------------------------------------------------------------------
@needs_dartpy
@pytest.mark.parametrize("path", SKEL_FILES, ids=[str(p.relative_to(SKEL_DIR)) for p in SKEL_FILES])
def test_matches_dartpy(path: Path) -> None:
    ref = dart_reference(path)
    if not ref["ok"]:
        # what DART refuses, we refuse too, with a message that says where and why
        with pytest.raises(ModelError) as err:
            load_model(path)
        assert str(path) in str(err.value)
        assert "line" in str(err.value) or ":" in str(err.value)
        return
    if not ref["skeletons"]:
        with pytest.raises(ModelError, match="no <skeleton>"):
            load_model(path)
        return
    assert compare_with_dart(path, ref) > 0


def test_the_sample_set_is_complete() -> None:
    assert len(SKEL_FILES) >= 50


# -- joint types the samples lack, checked against dartpy -------------------------------------
def _body(name: str, xyz_rpy: str, mass: float = 1.0, extra: str = "") -> str:
    return f"""
    <body name="{name}">
      <transformation>{xyz_rpy}</transformation>
      <inertia><mass>{mass}</mass><offset>0.01 0.02 -0.03</offset>
        <moment_of_inertia><ixx>0.3</ixx><iyy>0.25</iyy><izz>0.2</izz><ixy>0.01</ixy><ixz>0.0</ixz><iyz>-0.02</iyz>
        </moment_of_inertia></inertia>{extra}
    </body>"""


def _joint(jtype: str, name: str, parent: str, child: str, inner: str = "", tf: str = "0.1 -0.2 0.05 0.3 -0.4 0.5") -> str:
    return f"""
    <joint type="{jtype}" name="{name}">
      <parent>{parent}</parent><child>{child}</child>
      <transformation>{tf}</transformation>{inner}
    </joint>"""


MARKER = '<marker name="m_{0}"><offset>0.1 0.2 0.3</offset></marker>'
ALL_JOINTS = (
    '<?xml version="1.0"?>\n<skel version="1.0"><world name="w">'
    "<physics><time_step>0.002</time_step><gravity>0 -9.81 0</gravity></physics>"
    '<skeleton name="chain"><transformation>0.5 0.1 -0.2 0.1 0.2 0.3</transformation>'
    + _body("base", "0 0 1 0.1 0 0", 3.0, MARKER.format("base"))
    + _body("a", "0.1 0 1 0 0.2 0")
    + _body("b", "0.2 0.1 1 0 0 0.3")
    + _body("c", "0.3 0 0.9 0.2 0.1 0")
    + _body("d", "0.4 0 0.9 0 0 0", extra=MARKER.format("d"))
    + _body("e", "0.5 0.1 0.8 0.3 0.3 0.3")
    + _body("f", "0.6 0 0.8 0 0 0")
    + _body("g", "0.7 0 0.7 -0.2 0 0.1")
    + _body("h", "0.8 0.2 0.7 0 0 0")
    + _body("i", "0.9 0 0.6 0 0.5 0")
    + _body("k", "1.0 0 0.6 0 0 0")
    + _body("l", "1.1 0 0.5 0.1 0.1 0.1")
    + _body("n", "1.2 0 0.5 0 0 0")
    + _joint("free", "root joint", "world", "base", "<init_pos>0.1 -0.2 0.3 0.5 0.6 0.7</init_pos>")
    + _joint("translational", "tr", "base", "a", "<init_pos>0.1 0.2 0.3</init_pos>")
    + _joint("planar", "pl xy", "a", "b", '<plane type="xy"/><init_pos>0.1 -0.2 0.7</init_pos>')
    + _joint(
        "planar",
        "pl arb",
        "b",
        "c",
        '<plane type="arbitrary"><translation_axis1><xyz>1 0 0</xyz></translation_axis1>'
        "<translation_axis2><xyz>1 1 0</xyz></translation_axis2></plane><init_pos>0.3 0.2 -0.4</init_pos>",
    )
    + _joint(
        "universal",
        "uni",
        "c",
        "d",
        "<axis><xyz>0 0 1</xyz><limit><lower>-1</lower><upper>1</upper></limit></axis><axis2><xyz>0.6 0.8 0</xyz></axis2>"
        "<init_pos>0.4 -0.6</init_pos>",
    )
    + _joint("euler", "eu", "d", "e", "<axis_order>zyx</axis_order><init_pos>0.1 0.2 0.3</init_pos>")
    + _joint("free", "free below", "e", "f", "<init_pos>0.3 -0.1 0.2 0.05 0.1 -0.2</init_pos>")
    + _joint("prismatic", "pri", "f", "g", "<axis><xyz>0 1 1</xyz></axis><init_pos>0.25</init_pos>")
    + _joint("ball", "bal", "g", "h", "<init_pos>0.2 0.4 -0.3</init_pos>")
    + _joint("planar", "pl yz", "h", "i", '<plane type="yz"/><init_pos>0.1 -0.2 0.7</init_pos>')
    + _joint("planar", "pl zx", "i", "k", '<plane type="zx"/><init_pos>0.1 -0.2 0.7</init_pos>')
    + _joint(
        "revolute",
        "rev",
        "k",
        "l",
        '<axis><xyz>1 2 3</xyz></axis><init_pos>0.4</init_pos><dof local_index="0"><position initial="0.9"/></dof>',
    )
    + _joint("euler", "eu xyz", "l", "n", "<axis_order>xyz</axis_order><init_pos>-0.1 0.5 0.3</init_pos>")
    + "</skeleton></world></skel>"
)

WORLD_ATTACHED = (
    '<skel><world name="w"><skeleton name="arm">'
    + _body("upper", "0 0 1 0 0 0.2")
    + _body("lower", "0 0 0.5 0.1 0 0")
    + _body("post", "1 0 0 0 0 0")
    + _body("loose", "2 0 0 0 0 0")  # in no joint, no shape: DART drops it, we keep it
    + _joint("revolute", "shoulder", "world", "upper", "<axis><xyz>0 1 0</xyz></axis><init_pos>0.3</init_pos>")
    + _joint("ball", "elbow", "upper", "lower", "<init_pos>0.1 0.2 0.3</init_pos>")
    + _joint("weld", "bolt", "world", "post")
    + "</skeleton></world></skel>"
)


@needs_dartpy
@pytest.mark.parametrize("name,text", [("all_joints", ALL_JOINTS), ("world_attached", WORLD_ATTACHED)])
def test_joint_types_match_dartpy(tmp_path: Path, name: str, text: str) -> None:
    path = tmp_path / f"{name}.skel"
    path.write_text(text)
    ref = dart_reference(path)
    assert ref["ok"], ref
    assert compare_with_dart(path, ref) >= 3


def test_chain_naming_rule_keeps_the_original_joints() -> None:
    model = load_model(ALL_JOINTS)
    info = model.metadata["skel_joints"]
    assert model.default_base_link == "base"  # root free joint: floating base
    assert info["root joint"]["joints"] == []
    assert [model.joints[n].type for n in info["eu"]["joints"]] == [JointType.REVOLUTE] * 3
    assert info["eu"]["joints"] == ["eu__0", "eu__1", "eu__2"]
    assert info["eu"]["links"] == ["eu__link1", "eu__link2"]
    assert info["free below"]["joints"] == ["free below__3", "free below__4", "free below__5", "free below__rot"]
    assert model.joints["free below__rot"].type is JointType.SPHERICAL
    assert info["bal"]["joints"] == ["bal"] and model.joints["bal"].type is JointType.SPHERICAL
    assert model.joints["rev"].type is JointType.REVOLUTE
    assert model.joints["pri"].type is JointType.PRISMATIC
    for links in (j["links"] for j in info.values()):
        for link in links:
            assert model.links[link].inertia.mass == 0.0
    # the universal joint's limit went to its first DOF only
    assert model.joints["uni__0"].limits.has_position_limits
    assert model.joints["uni__0"].limits.min_position == -1.0
    assert not model.joints["uni__1"].limits.has_position_limits
    # initial configuration: 1-DOF values, quaternions for spherical joints, <dof initial> wins
    init = model.initial_configuration
    assert init["rev"] == 0.9
    assert init["tr__1"] == 0.2
    assert len(init["bal"]) == 4 and np.linalg.norm(init["bal"]) == pytest.approx(1.0)
    assert model.frames["m_base"].parent_link == "base"
    assert model.metadata["gravity"] == [0.0, -9.81, 0.0]
    assert model.metadata["time_step"] == 0.002


def test_world_attachment_and_free_body() -> None:
    warnings: list[str] = []
    model = load_model(WORLD_ATTACHED, warnings=warnings)
    assert model.default_base_link == "world"
    assert model.links["world"].inertia.mass == 0.0
    assert model.joints["shoulder"].parent == "world"
    assert model.joints["bolt"].type is JointType.FIXED
    assert any("body 'loose' is in no joint" in w for w in warnings)
    assert model.metadata["skel_joints"]["loose_free"]["implicit"]


SCREW = (
    '<skel><world name="w"><skeleton name="s">'
    + _body("a", "0 0 0 0 0 0")
    + _body("b", "0 0 1 0 0 0")
    + _body("c", "0 0 2 0 0 0")
    + _joint("weld", "fix", "world", "a")
    + _joint("screw", "sc", "a", "b", "<axis><xyz>0 0 1</xyz><pitch>0.5</pitch></axis>", tf="0 0 0 0 0 0")
    + _joint("translational2d", "t2", "b", "c", '<plane type="xy"/><init_pos>0.1 0.2</init_pos>', tf="0 0 0 0 0 0")
    + "</skeleton></world></skel>"
)


def test_screw_and_translational2d_are_kept() -> None:
    """DART parses these and then drops them with every later joint; we build them and say so."""
    warnings: list[str] = []
    model = load_model(SCREW, warnings=warnings)
    assert model.joints["sc"].type is JointType.REVOLUTE
    slide = model.joints["sc__translation"]
    assert slide.mimic is not None and slide.mimic.joint == "sc"
    assert slide.mimic.multiplier == pytest.approx(0.5 / (2 * np.pi))
    world = Kinematics(model).world_transforms({"sc": 1.0})
    # DART's ScrewJoint: rotation q about the axis, translation pitch * q / (2 pi) along it
    np.testing.assert_allclose(world["b"][:3, 3], [0, 0, 1 + 0.5 / (2 * np.pi)], atol=TOL)
    np.testing.assert_allclose(world["b"][:2, :2], [[np.cos(1), -np.sin(1)], [np.sin(1), np.cos(1)]], atol=TOL)
    assert model.initial_configuration["t2__1"] == 0.2
    assert any("screw joint 'sc'" in w for w in warnings)
    assert any("translational2d joint 't2'" in w for w in warnings)


@needs_dartpy
def test_screw_pitch_convention_is_dartpy_s(tmp_path: Path) -> None:
    script = (
        "import dartpy as d\n"
        "s = d.dynamics.Skeleton('s')\n"
        "j, b = s.createScrewJointAndBodyNodePair(None)\n"
        "j.setAxis([0, 0, 1]); j.setPitch(0.5); j.setPositions([1.0])\n"
        "print([float(x) for x in b.getWorldTransform().translation()])\n"
    )
    out = subprocess.run([sys.executable, "-c", script], check=False, capture_output=True, text=True, timeout=120)
    out = out.stdout
    z = json.loads(out.strip().splitlines()[-1])[2]
    assert z == pytest.approx(0.5 / (2 * np.pi), abs=TOL)


# -- world, skeleton choice, shapes, metadata -------------------------------------------------
def test_skeleton_option_and_metadata() -> None:
    path = SKEL_DIR / "dart" / "vehicle.skel"
    warnings: list[str] = []
    model = load_model(path, skeleton="car_skeleton", warnings=warnings)
    assert model.name == "car_skeleton"
    assert model.metadata["skel_skeleton"] == "car_skeleton"
    assert any("the world has 4 skeletons" in w for w in warnings)
    lost = model.metadata["skel_not_representable"]
    assert any("world physics" in x for x in lost)
    with pytest.raises(ModelError, match="no skeleton named 'nope'.*car_skeleton"):
        load_model(path, skeleton="nope")


def test_shapes_are_mapped() -> None:
    path = SKEL_DIR / "dart" / "shapes.skel"
    kinds = set()
    for sk in load_model(path).metadata["skel_skeletons"]:
        model = load_model(path, skeleton=sk)
        for link in model.links.values():
            kinds |= {s.kind for s in link.visuals + link.collisions}
    assert {"box", "sphere", "ellipsoid", "cylinder", "mesh"} <= kinds


def test_text_input_is_detected_as_skel() -> None:
    text = (SKEL_DIR / "dart" / "test" / "single_pendulum.skel").read_text()
    model = load_model(text)
    assert model.metadata["skel_skeleton"]


def test_cli_reads_skel(tmp_path: Path) -> None:
    out = tmp_path / "car.json"
    rc = cli.run(["-i", str(SKEL_DIR / "dart" / "vehicle.skel"), "-o", str(out), "--skeleton", "car_skeleton", "-q"])
    assert rc == 0
    assert "car_skeleton" in out.read_text() or out.stat().st_size > 0


# -- bad input --------------------------------------------------------------------------------
def _skel(skeleton_body: str, world_extra: str = "") -> str:
    return f'<skel>\n<world name="w">{world_extra}\n<skeleton name="s">\n{skeleton_body}\n</skeleton>\n</world>\n</skel>\n'


B = '<body name="{0}"><inertia><mass>1</mass></inertia></body>\n'


@pytest.mark.parametrize(
    "text,pattern",
    [
        ("this is not xml <", "malformed XML"),
        ("<skel><skeleton/></skel>", "no <world>"),
        ('<skel><world name="w"></world></skel>', "no <skeleton>"),
        (_skel(B.format("a") + '<joint type="hinge" name="j"><parent>world</parent><child>a</child></joint>'),
         "unknown joint type 'hinge'"),
        (_skel(B.format("a") + '<joint type="weld" name="j"><parent>nobody</parent><child>a</child></joint>'),
         "parent body 'nobody' of joint 'j' does not exist"),
        (_skel(B.format("a") + '<joint type="weld" name="j"><parent>world</parent><child>ghost</child></joint>'),
         "child body 'ghost' of joint 'j' does not exist"),
        (_skel(B.format("a") + '<joint type="weld" name="j"><parent>world</parent></joint>'), "has no <child>"),
        (_skel(B.format("a") + '<joint type="weld" name="j"><child>a</child></joint>'), "has no <parent>"),
        (_skel(B.format("a") + B.format("a")), "duplicate body name 'a'"),
        (_skel(B.format("a") + B.format("b")
               + '<joint type="weld" name="j1"><parent>world</parent><child>b</child></joint>'
               + '<joint type="weld" name="j2"><parent>a</parent><child>b</child></joint>'),
         "body 'b' has two parent joints"),
        (_skel(B.format("a") + '<joint type="ball" name="j"><parent>world</parent><child>a</child>'
               "<init_pos>0.1 0.2</init_pos></joint>"),
         "has 3 DOF, so <init_pos> needs 3 values, got 2"),
        (_skel('<body name="a"><inertia><mass>1</mass></inertia><soft_shape><total_mass>1</total_mass>'
               "<geometry><box><size>1 1 1</size></box></geometry></soft_shape></body>"),
         r"missing <frags> in the soft <box> of body 'a' \(DART refuses it too\)"),
        (_skel('<body name="a"><inertia><offset>0 0 0</offset></inertia></body>'), "<inertia> needs <mass>"),
        (_skel(B.format("a") + '<joint type="revolute" name="j"><parent>world</parent><child>a</child></joint>'),
         r"needs <axis><xyz>"),
        (_skel(B.format("a") + '<joint type="euler" name="j"><parent>world</parent><child>a</child></joint>'),
         "needs <axis_order>"),
        (_skel('<body name="a"><transformation>0 0 0 0 0</transformation></body>'), "needs 6 numbers"),
        (_skel(B.format("a") + B.format("b")
               + '<joint type="weld" name="j1"><parent>a</parent><child>b</child></joint>'
               + '<joint type="weld" name="j2"><parent>b</parent><child>a</child></joint>'),
         "cycle"),
    ],
)
def test_bad_input_is_reported(tmp_path: Path, text: str, pattern: str) -> None:
    path = tmp_path / "bad.skel"
    path.write_text(text)
    with pytest.raises(ModelError, match=pattern) as err:
        load_model(path)
    assert str(path) in str(err.value)
    if "malformed" not in pattern and "no <world>" not in pattern:
        assert f"{path}:" in str(err.value)  # file:line


def test_unknown_shape_and_pyramid_warnings() -> None:
    text = _skel(
        '<body name="a"><inertia><mass>2</mass></inertia><visualization_shape><geometry><pyramid>'
        "<base_width>1</base_width><base_depth>1</base_depth><height>1</height></pyramid></geometry>"
        "</visualization_shape></body>"
    )
    warnings: list[str] = []
    model = load_model(text, warnings=warnings)
    assert not model.links["a"].visuals
    assert any("pyramid" in w for w in warnings)
    assert any("pyramid" in x for x in model.metadata["skel_not_representable"])


@needs_dartpy
@pytest.mark.parametrize("name", ["biped.skel", "freeChain.skel", "two_cubes.skel"])
def test_an_initial_configuration_no_format_writes_is_said(name: str) -> None:
    """SKEL's <init_pos> (biped's shins at -0.17) was lost by every exporter without a word: each export now
    names the joints it starts away from zero, where dartpy's initial pose differs from its zero pose."""
    path = SKEL_DIR / "dart" / name
    ref = dart_reference(path)
    for sk in ref["skeletons"]:
        model = load_model(path, skeleton=sk["name"], allow_include_outside=[str(root) for root in ROOTS])
        moved = any(not np.allclose(sk["pose_init"][b], sk["pose_zero"][b], atol=1e-12) for b in sk["pose_init"])
        for fmt in ("urdf", "sdf", "idyntree-model-json", "mjcf"):
            warnings: list[str] = []
            export_model(model, fmt, warnings=warnings)
            said = [w for w in warnings if "initial configuration" in w]
            assert bool(said) == moved, (sk["name"], fmt, said)
            if moved and name == "biped.skel":
                assert said[0].startswith("the initial configuration of 2 joint(s) (j_shin_left = -0.17, "), said


@needs_dartpy
def test_skeletons_of_one_name_are_named_and_read_as_dart_names_them(tmp_path):
    """Two skeletons named `s`: the second could not be chosen (`--skeleton 's(1)'`: no such skeleton) and the
    warning listed nothing as not loaded. DART's world names it `s(1)`; each is now read, compared with DART."""
    path = tmp_path / "dup.skel"
    path.write_text(
        '<skel><world name="w">'
        '<skeleton name="s"><body name="a"><inertia><mass>1</mass></inertia></body>'
        '<joint type="weld" name="j"><parent>world</parent><child>a</child></joint></skeleton>'
        '<skeleton name="s"><transformation>0 0 1 0 0 0</transformation><body name="b"><inertia><mass>2</mass></inertia>'
        '</body><joint type="free" name="f"><parent>world</parent><child>b</child></joint></skeleton>'
        '</world></skel>')
    ref = dart_reference(path)
    assert ref["ok"], ref
    assert [sk["name"] for sk in ref["skeletons"]] == ["s", "s(1)"]
    assert compare_with_dart(path, ref) == 2
    warnings: list[str] = []
    model = load_model(path, warnings=warnings)
    assert model.name == "s" and any("'s(1)' not loaded" in w for w in warnings), warnings
    assert load_model(path, skeleton="s(1)").name == "s(1)"


@needs_dartpy
@pytest.mark.parametrize("first", ['name=""', ""])
def test_a_skeleton_without_a_name_is_named_as_dart_names_it(tmp_path, first):
    """DART names a skeleton without a name, or with an empty one, `skeleton` (then `skeleton(1)`); the reader
    listed it as '' and could not load it by the name DART gives it (fuzz_reference.py --format skel, seed
    20261226)."""
    body = ('<body name="a"><inertia><mass>1</mass></inertia></body>'
            '<joint type="free" name="j"><parent>world</parent><child>a</child></joint>')
    path = tmp_path / "unnamed.skel"
    path.write_text(f'<skel><world name="w"><skeleton {first}>{body}</skeleton><skeleton name="skeleton">{body}'
                    '</skeleton></world></skel>')
    ref = dart_reference(path)
    assert [sk["name"] for sk in ref["skeletons"]] == ["skeleton", "skeleton(1)"], ref
    assert compare_with_dart(path, ref) == 2
    assert load_model(path).metadata["skel_skeletons"] == ["skeleton", "skeleton(1)"]


@needs_dartpy
def test_a_free_body_named_world_is_said_to_lose_its_pose_and_freedom_where_it_does(tmp_path):
    """DART reads a body named `world` like any other: here the free root of the skeleton, at z = 1. URDF, SDF and
    JSON wrote it at the origin, and MJCF as its world body (welded, its child at the wrong height), without a word:
    the base-pose warning skipped a base named `world`."""
    from idyntree_models import export_model

    path = tmp_path / "world_body.skel"
    path.write_text(
        '<skel><world name="w"><skeleton name="s">'
        '<body name="world"><transformation>0 0 1 0 0 0</transformation><inertia><mass>2</mass></inertia></body>'
        '<body name="b"><transformation>0 0 2 0 0 0</transformation><inertia><mass>1</mass></inertia></body>'
        '<joint type="revolute" name="r"><parent>world</parent><child>b</child><axis><xyz>0 1 0</xyz></axis></joint>'
        '</skeleton></world></skel>')
    ref = dart_reference(path)
    assert ref["ok"] and ref["skeletons"][0]["bodies"]["world"]["joint_type"] == "FreeJoint", ref
    assert compare_with_dart(path, ref) == 2
    model = load_model(path)
    for fmt in ("urdf", "sdf", "idyntree-model-json"):
        warnings: list[str] = []
        export_model(model, fmt, warnings=warnings)
        assert any("the pose of the base 'world' in the world (at 0.0 0.0 1.0) is not written" in w for w in warnings), fmt
    warnings = []
    export_model(model, "mjcf", warnings=warnings)
    assert any("base link is named 'world'" in w and "free joint 'root'" in w for w in warnings), warnings
