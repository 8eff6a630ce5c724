"""idyntree-model-info and the kinematic tree picture, against iDynTree and Graphviz.

References: the iDynTree wheel's own `idyntree-model-info` binary (called by its path inside the
wheel: ours owns the console-script name) for the total mass and frame poses at zero, printed with
6 significant digits; iDynTree's KinDynComputations for frame poses, centre of mass and locked
inertia at random configurations at 1e-9; Graphviz's `dot -Tjson` for the DOT we write.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from importlib.util import find_spec
from pathlib import Path

import idyntree.swig as idt
import numpy as np
import pytest
from lxml import etree

from idyntree_models import load_model
from idyntree_models.model import JointType
from idyntree_models.model.graph import to_dot
from idyntree_models.model.info import model_info

import idyntree_oracle as oracle
from conftest import DEMO, OVERFLOW, REPO, corpus_files, model_file, rel_id, urdf_files

MUST_FAIL = {"duplicate_joints_must_fail.urdf"}
URDFS = [p for p in urdf_files() if p.name not in MUST_FAIL]
REFERENCE_BIN = Path(find_spec("idyntree").submodule_search_locations[0]) / "bin" / "idyntree-model-info"
DOT = shutil.which("dot")


def ours(*args: str, env=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "idyntree_models.info_cli", *args], capture_output=True, text=True,
                          timeout=300, env=env, cwd=str(REPO))


def reference(*args: str) -> str:
    done = subprocess.run([str(REFERENCE_BIN), *args], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _close(a, b, tol) -> bool:
    a, b = np.asarray(a, float), np.asarray(b, float)
    return a.shape == b.shape and bool(np.all(np.abs(a - b) <= tol * max(1.0, np.abs(a).max(initial=0), np.abs(b).max(initial=0))))


def _probe_frames(model) -> list[str]:
    """A few frames worth asking about: the deepest link, the last additional frame, a sensor frame."""
    from idyntree_models.model import tree_order

    tree = tree_order(model)
    picks = [max(tree.order, key=lambda n: tree.depth[n])]
    picks += list(model.frames)[-1:]
    picks += [s for s in model.sensors if s in model.frames][:1]
    return list(dict.fromkeys(picks))


@pytest.mark.skipif(not REFERENCE_BIN.is_file(), reason="the iDynTree wheel has no idyntree-model-info binary")
@pytest.mark.parametrize("path", URDFS, ids=rel_id)
def test_total_mass_and_frame_poses_match_idyntree_model_info(path):
    model = load_model(path)
    frames = _probe_frames(model)
    done = ours(str(path), "--json", "--quiet", *[a for f in frames for a in ("--frame", f)])
    assert done.returncode == 0, done.stderr
    info = json.loads(done.stdout)
    m = re.search(r"total mass of model is (\S+) Kg", reference("-m", str(path), "--total-mass"))
    assert m, "unexpected output of the reference"
    assert abs(info["total_mass"] - float(m.group(1))) <= 1e-5 * max(1.0, info["total_mass"])
    for frame in frames:
        out = reference("-m", str(path), "--frame-pose", frame)
        rows = [[float(x) for x in line.split()] for line in out.strip().splitlines()[1:5]]
        assert _close(info["frame_poses"][frame]["matrix"], rows, 1e-5), (frame, out)


@pytest.mark.parametrize("path", URDFS, ids=rel_id)
def test_poses_com_and_inertia_match_kindyncomputations(path):
    """At random configurations, to 1e-9: frame poses, centre of mass, and inertia about the COM."""
    model = load_model(path)
    ref = oracle.load(path.read_text())
    kd = ref.kindyn
    kd.setFrameVelocityRepresentation(idt.BODY_FIXED_REPRESENTATION)
    # a link with <inertial> but no <inertia> has an uninitialised inertia in iDynTree (zero in ours)
    undefined_inertia = any(el.find("inertia") is None for el in etree.parse(str(path)).getroot().iter("inertial"))
    rng = np.random.default_rng(5)
    for _ in range(3):
        config: dict[str, object] = {}
        for j in model.joints.values():
            if j.mimic is None and j.dofs == 1:
                config[j.name] = float(rng.uniform(-1.0, 1.0))
            elif j.type is JointType.SPHERICAL:
                q = rng.normal(size=4)
                config[j.name] = q / np.linalg.norm(q)
        full = dict(config)
        for j in model.joints.values():
            if j.mimic is not None:  # iDynTree ignores <mimic>: give it the follower's position
                full[j.name] = j.mimic.multiplier * float(config.get(j.mimic.joint, 0.0)) + j.mimic.offset
        frames = list(ref.frames)[:20] + list(model.links)[:20]
        info = model_info(model, config, frames)
        world = oracle.world_transforms(ref, {k: v for k, v in full.items() if k in ref.joints})
        for f in frames:
            assert _close(info["frame_poses"][f]["matrix"], world[f], 1e-9), f
        mass = sum(r["mass"] for r in ref.links.values())
        assert abs(info["total_mass"] - mass) <= 1e-9 * max(1.0, mass)
        if mass <= 0:
            continue
        com = np.array(kd.getCenterOfMassPosition().toNumPy())
        assert _close(info["center_of_mass"], com, 1e-9)
        if undefined_inertia:
            continue
        # the base block of the free-floating mass matrix (body-fixed): the whole robot's inertia about the
        # base origin in base axes (getRobotLockedInertia returned uninitialised memory for some models)
        if ref.model.getNrOfDOFs() > 0:
            mm = idt.FreeFloatingMassMatrix(ref.model)
            assert kd.getFreeFloatingMassMatrix(mm)
            i_origin = np.array(mm.toNumPy())[3:6, 3:6]
        else:  # iDynTree's mass matrix is uninitialised memory without DOFs: sum its link inertias instead
            i_origin = np.zeros((3, 3))
            for name, r in ref.links.items():
                rot, c = world[name][:3, :3], world[name][:3, :3] @ r["com"] + world[name][:3, 3]
                i_origin += rot @ r["inertia"] @ rot.T + r["mass"] * (c @ c * np.eye(3) - np.outer(c, c))
        i_com = i_origin - mass * (com @ com * np.eye(3) - np.outer(com, com))
        assert _close(info["inertia_about_com"], i_com, 1e-9)


def test_text_output_and_json_keys():
    done = ours(str(DEMO / "demo_arm.urdf"), "--frame", "tool_tip", "--q", "elbow=0.5", "shoulder=1,0,0,0", "--quiet")
    assert done.returncode == 0, done.stderr
    text = done.stdout
    for needle in ("model 'demo_arm'", "total mass:", "centre of mass", "joints (", "sensors (", "additional frames (",
                   "pose of 'tool_tip'", "elbow", "wrist_ft", "force_torque"):
        assert needle in text, needle
    info = json.loads(ours(str(DEMO / "demo_arm.urdf"), "--json", "--quiet").stdout)
    model = load_model(DEMO / "demo_arm.urdf")
    assert info["total_mass"] == pytest.approx(sum(lk.inertia.mass for lk in model.links.values()), abs=1e-12)
    assert info["n_dofs"] == model.dofs and info["n_links"] == len(model.links)
    assert {j["name"] for j in info["joints"]} == set(model.joints)
    assert {s["name"] for s in info["sensors"]} == set(model.sensors)
    assert {f["name"]: f["parent"] for f in info["frames"]} == {f.name: f.parent_link for f in model.frames.values()}


def test_other_formats_and_reduction():
    sdf = model_file("sdf/idyntree/model_with_sensors_geometry.sdf")
    done = ours(str(sdf), "--json", "--quiet")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["n_links"] == len(load_model(sdf).links)
    icub = model_file("urdf/idyntree/iCubGenova02.urdf")
    done = ours(str(icub), "--json", "--quiet", "--keep-joints", "torso_pitch,l_elbow", "--lock", "l_shoulder_pitch=0.3")
    info = json.loads(done.stdout)
    assert {j["name"] for j in info["joints"]} >= {"torso_pitch", "l_elbow"} and info["n_dofs"] == 2
    full = json.loads(ours(str(icub), "--json", "--quiet").stdout)
    assert info["total_mass"] == pytest.approx(full["total_mass"], abs=1e-9)


@pytest.mark.parametrize("args, message", [
    (["--frame", "no_such_frame"], "unknown frame 'no_such_frame'"),
    (["--q", "elbow"], "--q takes JOINT=VALUE"),
    (["--q", "nope=1"], "unknown joint 'nope'"),
    (["--q", "elbow=abc"], "must be a number"),
    (["--graph", "out.txt"], "cannot tell the picture format"),
    (["--lock", "elbow=1"], "--lock needs --keep-joints"),
    # (found in review: a mimic follower's or fixed joint's position changed nothing, and was shown as given)
    (["--q", "finger_right_joint=0.5"], "joint 'finger_right_joint' mimics 'finger_left_joint'"),
    (["--q", "wrist_ft_joint=1"], "joint 'wrist_ft_joint' is fixed"),
])
def test_bad_arguments_are_one_line_errors(args, message):
    done = ours(str(DEMO / "demo_arm.urdf"), "--quiet", *args)
    assert done.returncode == 1
    assert message in done.stderr and "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1




def test_mass_properties_and_poses_that_overflow(tmp_path):
    """A link 1e308 m from the others: the inertia about the common centre of mass is beyond a double.
    It is reported as not finite (JSON null), where it was NaN and inf (not JSON at all) after numpy's
    overflow warnings; a configuration that puts a frame at a non-finite pose (3 rad times a mimic
    multiplier of 1e308) is a one-line error."""
    path = OVERFLOW
    done = ours(str(path), "--json", "--quiet")
    assert done.returncode == 0 and "Warning" not in done.stderr, done.stderr
    info = json.loads(done.stdout, parse_constant=lambda c: pytest.fail(f"{c} is not JSON"))
    assert info["total_mass"] is None and info["center_of_mass"] is None and info["inertia_about_com"] is None
    assert info["n_links"] == 4
    text = ours(str(path), "--quiet")
    assert text.returncode == 0 and "mass properties: not finite" in text.stdout and "Warning" not in text.stderr
    bad = ours(str(path), "--quiet", "--q", "shoulder=3")
    assert bad.returncode == 1 and "frame(s) finger have a non-finite pose" in bad.stderr
    assert bad.stderr.count("\n") == 1 and "Warning" not in bad.stderr
    fine = json.loads(ours(str(path), "--json", "--quiet", "--keep-joints", "slide", "--lock", "shoulder=0.5").stdout)
    assert fine["total_mass"] is None  # the slider still 1e308 m away
    # a massless link that far adds nothing: the mass properties are the massive links' own (0 * inf was NaN)
    (tmp_path / "massless.urdf").write_text(path.read_text().replace('<link name="slider"><inertial><mass value="1"/>',
                                                              '<link name="slider"><inertial><mass value="0"/>'))
    massless = json.loads(ours(str(tmp_path / "massless.urdf"), "--json", "--quiet").stdout)
    assert massless["total_mass"] == 3.0 and massless["center_of_mass"] == [0.0, 0.0, 0.0]


def test_console_script_is_ours():
    """scripts/setup.sh puts our idyntree-model-info on .venv/bin, not the iDynTree wheel's."""
    script = Path(sys.executable).parent / "idyntree-model-info"
    if not script.exists():
        pytest.skip("not running from the project venv")
    done = subprocess.run([str(script), "--help"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "--keep-joints" in done.stdout and "--graph" in done.stdout


# -- kinematic tree pictures --------------------------------------------------------------------
GRAPH_MODELS = [p for p in URDFS if p.stat().st_size < 400_000][:12] + corpus_files("sdf/idyntree", "*.sdf") + [
    p for p in corpus_files("skel", "*.skel") if p.name in ("biped.skel", "fullbody1.skel")
] + [DEMO / "demo_arm.urdf"]


def _dot_json(text: str) -> dict:
    done = subprocess.run([DOT, "-Tjson"], input=text, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.skipif(DOT is None, reason="Graphviz's dot is not installed (Debian package graphviz)")
@pytest.mark.parametrize("path", GRAPH_MODELS, ids=rel_id)
def test_dot_parses_and_names_every_link_joint_and_sensor(path, tmp_path):
    model = load_model(path)
    out = tmp_path / "tree.dot"
    done = ours(str(path), "--graph", str(out), "--quiet")
    assert done.returncode == 0, done.stderr
    text = out.read_text()
    assert text == to_dot(model)
    graph = _dot_json(text)
    # dot -Tjson keeps DOT's escapes in labels
    nodes = {o["name"]: o.get("label", "").replace("\\n", "\n") for o in graph.get("objects", [])}
    edge_labels = [e.get("label", "").replace("\\n", "\n") for e in graph.get("edges", [])]
    for link in model.links:
        assert f"link:{link}" in nodes and nodes[f"link:{link}"].split("\n")[0] == link
    for frame in model.frames:
        assert f"frame:{frame}" in nodes
    for sensor in model.sensors:
        assert f"sensor:{sensor}" in nodes and nodes[f"sensor:{sensor}"].split("\n")[0] == sensor
    joint_edges = {lbl.split("\n")[0] for lbl in edge_labels if lbl and not lbl.startswith("in joint ")}
    assert joint_edges == set(model.joints)
    for j in model.joints.values():
        lbl = next(lbl for lbl in edge_labels if lbl.split("\n")[0] == j.name)
        assert j.type.value in lbl
        if j.axis is not None:
            assert "axis " in lbl
    svg = subprocess.run([DOT, "-Tsvg"], input=text, capture_output=True, text=True, timeout=120)
    assert svg.returncode == 0 and "<svg" in svg.stdout


@pytest.mark.skipif(DOT is None, reason="Graphviz's dot is not installed (Debian package graphviz)")
@pytest.mark.parametrize("ext, magic", [(".svg", b"<svg"), (".png", b"\x89PNG")])
def test_svg_and_png_through_graphviz(tmp_path, ext, magic):
    out = tmp_path / f"tree{ext}"
    done = ours(str(DEMO / "demo_arm.urdf"), "--graph", str(out), "--quiet")
    assert done.returncode == 0, done.stderr
    assert magic in out.read_bytes()[:300]


def test_clear_message_without_graphviz(tmp_path):
    """With no `dot` on PATH: a one-line error for SVG/PNG, and DOT still written."""
    env = dict(os.environ, PATH=str(tmp_path / "empty"))
    done = ours(str(DEMO / "demo_arm.urdf"), "--graph", str(tmp_path / "t.svg"), "--quiet", env=env)
    assert done.returncode == 1 and "Graphviz's 'dot' program is not installed" in done.stderr
    assert not (tmp_path / "t.svg").exists()
    done = ours(str(DEMO / "demo_arm.urdf"), "--graph", str(tmp_path / "t.dot"), "--quiet", env=env)
    assert done.returncode == 0 and (tmp_path / "t.dot").read_text().startswith("digraph")


def test_dot_quotes_odd_names():
    model = load_model(DEMO / "demo_arm.urdf")
    link = next(iter(model.links.values()))
    text = to_dot(model)
    assert f'"link:{link.name}"' in text
    from idyntree_models.model.graph import _q

    assert _q('a "b" \\ c') == '"a \\"b\\" \\\\ c"'


def test_q_before_the_model_leaves_the_model_to_it(tmp_path) -> None:
    """`--q j=1 model.urdf` took the model as a second joint position: 'the following arguments are required: MODEL'."""
    path = str(DEMO / "demo_arm.urdf")
    before = ours("--q", "elbow=0.5", path, "--json", "--quiet")
    after = ours(path, "--q", "elbow=0.5", "--json", "--quiet")
    assert before.returncode == after.returncode == 0, before.stderr
    assert json.loads(before.stdout) == json.loads(after.stdout)
    assert json.loads(before.stdout)["configuration"] == {"elbow": 0.5}
    missing = ours("--q", "elbow=0.5")
    assert missing.returncode == 2 and "required: MODEL" in missing.stderr
    odd = tmp_path / "a=b.urdf"  # (a file name with '=' in it: still the model, as it exists)
    odd.write_text((DEMO / "demo_arm.urdf").read_text())
    assert ours("--q", "elbow=0.5", str(odd), "--quiet").returncode == 0


def test_errors_and_warnings_are_one_line_each_whatever_the_names_hold(tmp_path) -> None:
    """A name holding a line break made the info command print a second line that reads like its own warning."""
    path = tmp_path / "nl.urdf"
    path.write_text('<robot name="r"><link name="a"/><link name="b"/><joint name="j&#10;WARNING: fake" type="revolute">'
                    '<parent link="a"/><child link="b"/><axis xyz="0 0 1"/></joint></robot>')
    done = ours(str(path), "--json")
    assert done.returncode == 0
    assert [line for line in done.stderr.splitlines() if line.startswith("WARNING: fake")] == []
    assert "j\\nWARNING: fake" in done.stderr
    path.write_text('<robot name="r"><link name="a&#10;FAKE: injected"/><link name="a&#10;FAKE: injected"/></robot>')
    done = ours(str(path))
    assert done.returncode == 1 and len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_graph_writes_through_a_symlink(tmp_path) -> None:
    """The DOT file replaced the link with a file of its own, leaving the file it pointed at as it was (the
    converter's outputs are written through links: README, output safety)."""
    real = tmp_path / "real.dot"
    real.write_text("old")
    (tmp_path / "link.dot").symlink_to(real)
    done = ours(str(DEMO / "demo_arm.urdf"), "--graph", str(tmp_path / "link.dot"), "--quiet")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "link.dot").is_symlink() and real.read_text().startswith("digraph")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.dot", "real.dot"]
