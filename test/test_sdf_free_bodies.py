"""Free bodies, equal limits and flattened names in SDF, on small files compared with libsdformat 12.3.

Each file is one case of issue 12 in a few lines: links joined to no joint (free bodies, inside
nested models too, next to a link fixed to the world), joints whose limits are equal, the legacy
flattened form `M::__model__`, and models a tree cannot hold (loops, two parents), which stay
refused.  `compare_with_libsdformat` (test_sdf.py) checks links, poses, joints, axes, limits,
frames, nested models and sensors against libsdformat, then every link of our tree model at its
zero configuration.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from idyntree_models.api import export_model, load_model
from idyntree_models.errors import ModelError
from idyntree_models.model.kinematics import Kinematics
from idyntree_models.model.model import JointType
from idyntree_models.model.transforms import make_transform, rpy_to_matrix
from test_sdf import compare_with_libsdformat, reference  # noqa: F401  (the reference fixture)

FREE_LINKS = """<sdf version="1.9"><model name="m">
  <link name="base"><pose>0 0 1 0 0 0</pose></link>
  <link name="arm"><pose>0.5 0 1 0 0 0</pose></link>
  <joint name="j" type="revolute"><parent>base</parent><child>arm</child>
    <axis><xyz>0 0 1</xyz><limit><lower>-1</lower><upper>1</upper></limit></axis></joint>
  <link name="ball"><pose>2 3 0.5 0.1 0.2 0.3</pose>
    <sensor name="cam" type="camera"><pose>0 0 0.1 0 0 0</pose></sensor></link>
  <frame name="on_ball" attached_to="ball"><pose>0 0 1 0 0 0</pose></frame>
  <model name="crate"><pose>-1 0 0 0 0 1.5707963267948966</pose>
    <link name="body"><pose>0 1 0 0 0 0</pose></link>
    <link name="lid"><pose>0 1 0.5 0 0 0</pose></link>
    <joint name="hinge" type="revolute"><parent>body</parent><child>lid</child>
      <axis><xyz>1 0 0</xyz><limit><lower>0</lower><upper>2</upper></limit></axis></joint>
  </model>
</model></sdf>"""

FIXED_AND_FREE = """<sdf version="1.8"><model name="m">
  <link name="table"><pose>1 0 0 0 0 0</pose></link>
  <joint name="to_world" type="fixed"><parent>world</parent><child>table</child></joint>
  <link name="shelf"><pose>0 2 0 0 0 0.5</pose></link>
  <joint name="shelf_to_world" type="fixed"><parent>world</parent><child>shelf</child></joint>
  <link name="cup"><pose>1 0 1 0 0 0</pose></link>
</model></sdf>"""

EQUAL_LIMITS = """<sdf version="1.7"><model name="m">
  <link name="board"/><link name="peg"><pose>0 0 0.1 0 0 0</pose></link><link name="slider"/>
  <joint name="board_peg" type="revolute"><parent>board</parent><child>peg</child>
    <axis><xyz>0 0 1</xyz><limit><lower>0</lower><upper>0</upper></limit></axis></joint>
  <joint name="steer" type="prismatic"><parent>peg</parent><child>slider</child>
    <axis><xyz>1 0 0</xyz><limit><lower>0.25</lower><upper>0.25</upper></limit></axis></joint>
</model></sdf>"""

FLATTENED_MODEL = """<sdf version="1.7"><model name="P">
  <link name="root"/>
  <frame name="M::__model__" attached_to="M::L1"><pose relative_to="__model__">1 0 0 0 0 1.5707963267948966</pose></frame>
  <frame name="M::F" attached_to="M::__model__"><pose>0 1 0 0 0 0</pose></frame>
  <link name="M::L1"><pose relative_to="M::F">0 0 1 0 0 0</pose></link>
  <link name="M::L2"><pose relative_to="M::L1">1 0 0 0 0 0</pose></link>
  <joint name="M::J" type="revolute"><parent>M::L1</parent><child>M::L2</child>
    <axis><xyz expressed_in="M::__model__">0 0 1</xyz></axis></joint>
  <joint name="attach" type="fixed"><parent>root</parent><child>M::L1</child></joint>
</model></sdf>"""
# in a world, libsdformat 12 converts the flattened names back into a nested model
FLATTENED = FLATTENED_MODEL.replace('<sdf version="1.7">', '<sdf version="1.7"><world name="w">').replace(
    "</sdf>", "</world></sdf>")

LOOP = """<sdf version="1.9"><model name="m"><link name="a"/><link name="b"/><link name="c"/>
  <joint name="ab" type="revolute"><parent>a</parent><child>b</child><axis><xyz>0 0 1</xyz></axis></joint>
  <joint name="bc" type="revolute"><parent>b</parent><child>c</child><axis><xyz>0 0 1</xyz></axis></joint>
  <joint name="ca" type="revolute"><parent>c</parent><child>a</child><axis><xyz>0 0 1</xyz></axis></joint>
</model></sdf>"""

TWO_PARENTS = """<sdf version="1.9"><model name="m"><link name="a"/><link name="b"/><link name="c"/>
  <joint name="ac" type="fixed"><parent>a</parent><child>c</child></joint>
  <joint name="bc" type="fixed"><parent>b</parent><child>c</child></joint>
</model></sdf>"""

# what our SDF export of an MJCF arm with a fixed base body next to a hinged one writes (found by the fuzzer)
MOVING_AND_FIXED_TO_WORLD = """<sdf version="1.9"><model name="m">
  <link name="base"><pose>0 0 0.1 0 0 0</pose></link>
  <joint name="base_fixed" type="fixed"><parent>world</parent><child>base</child></joint>
  <link name="arm"><pose>0 0 0.1 0 0 0.5</pose></link>
  <joint name="j1" type="revolute"><parent>world</parent><child>arm</child>
    <axis><xyz>0 0 1</xyz><limit><lower>-3</lower><upper>3</upper></limit></axis></joint>
</model></sdf>"""

CASES = {"free_links": FREE_LINKS, "fixed_and_free": FIXED_AND_FREE, "equal_limits": EQUAL_LIMITS,
         "flattened": FLATTENED, "flattened_model": FLATTENED_MODEL, "loop": LOOP, "two_parents": TWO_PARENTS,
         "moving_and_fixed_to_world": MOVING_AND_FIXED_TO_WORLD}


def _file(tmp_path: Path, name: str) -> Path:
    path = tmp_path / f"{name}.sdf"
    path.write_text(CASES[name])
    return path


@pytest.mark.parametrize("name", list(CASES))
def test_small_files_against_libsdformat(reference: Path, tmp_path: Path, name: str) -> None:  # noqa: F811
    compare_with_libsdformat(reference, _file(tmp_path, name))


def test_free_bodies_chain_names_pose_and_motion() -> None:
    warnings: list[str] = []
    m = load_model(FREE_LINKS, format="sdf", warnings=warnings)
    free = m.metadata["free_bodies"]
    assert set(free) == {"ball", "crate::body"} and m.default_base_link == "base"
    assert [w for w in warnings if "free link" in w] == [w for w in warnings if "'ball'" in w and "free" in w]
    assert sum("free link" in w for w in warnings) == 1
    chain = free["ball"]["joints"]
    assert chain == [f"ball_free_{s}" for s in ("x", "y", "z", "yaw", "pitch", "roll")]
    assert free["ball"]["links"] == [f"ball_free_link{k}" for k in range(1, 6)]
    kin = Kinematics(m)
    base_H_ball = np.linalg.inv(make_transform(None, [0, 0, 1])) @ make_transform(rpy_to_matrix([0.1, 0.2, 0.3]),
                                                                                    [2, 3, 0.5])
    fk = kin.world_transforms({})
    np.testing.assert_allclose(fk["ball"], base_H_ball, atol=1e-12)  # the initial pose is the chain's zero
    # the six values are a displacement along the base axes and roll/pitch/yaw about them
    q = {"ball_free_x": 0.1, "ball_free_y": -0.2, "ball_free_z": 0.3, "ball_free_roll": 0.4,
         "ball_free_pitch": -0.5, "ball_free_yaw": 0.6}
    moved = kin.world_transforms(q)["ball"]
    np.testing.assert_allclose(moved[:3, 3], base_H_ball[:3, 3] + [0.1, -0.2, 0.3], atol=1e-12)
    np.testing.assert_allclose(moved[:3, :3], rpy_to_matrix([0.4, -0.5, 0.6]) @ base_H_ball[:3, :3], atol=1e-12)
    # what rides on the free link follows it
    assert m.sensors["cam"].parent_link == "ball" and m.frames["on_ball"].parent_link == "ball"
    with pytest.raises(ModelError, match="2 link\\(s\\) are joined to no joint \\('ball', 'crate::body'\\)"):
        load_model(FREE_LINKS, format="sdf", free_bodies="error")
    with pytest.raises(ModelError, match="free_bodies must be one of"):
        load_model(FREE_LINKS, format="sdf", free_bodies="weld")


def test_links_fixed_to_world_join_the_base_and_free_ones_float() -> None:
    m = load_model(FIXED_AND_FREE, format="sdf")
    assert m.metadata["fixed_base"] is True and m.default_base_link == "table"
    assert m.joints["shelf_to_world"].type is JointType.FIXED and m.joints["shelf_to_world"].parent == "table"
    assert set(m.metadata["free_bodies"]) == {"cup"}


def test_a_link_fixed_to_the_world_hangs_on_the_world_link_a_moving_joint_made() -> None:
    """Found by the fuzzer (MJCF -> SDF -> load): a fixed joint to the world was dropped as "the base is fixed"
    while a revolute joint to the world added a 'world' link, so the model had two roots and its own SDF export
    did not load back. The fixed link now hangs on that 'world' link, at its pose in the model."""
    m = load_model(MOVING_AND_FIXED_TO_WORLD, format="sdf")
    assert m.default_base_link == "world"
    fixed, hinge = m.joints["base_fixed"], m.joints["j1"]
    assert (fixed.type, fixed.parent, fixed.child) == (JointType.FIXED, "world", "base")
    assert (hinge.type, hinge.parent, hinge.child) == (JointType.REVOLUTE, "world", "arm")
    world = Kinematics(m).world_transforms({"j1": 0.0})
    np.testing.assert_allclose(world["base"], make_transform(None, [0, 0, 0.1]), atol=1e-15)
    back = load_model(export_model(m, "sdf"), format="sdf")
    assert {(j.name, j.parent, j.child) for j in back.joints.values()} == {(j.name, j.parent, j.child)
                                                                           for j in m.joints.values()}


def test_free_bodies_written_back_as_free_links_and_chains_kept_elsewhere(tmp_path: Path) -> None:
    m = load_model(FREE_LINKS, format="sdf")
    text = export_model(m, "sdf")
    assert "ball_free" not in text
    back = load_model(text, format="sdf")
    assert set(back.links) == set(m.links) and set(back.joints) == set(m.joints)
    assert back.metadata["free_bodies"].keys() == m.metadata["free_bodies"].keys()
    fk1, fk2 = Kinematics(m).world_transforms({}), Kinematics(back).world_transforms({})
    for name in m.links:
        np.testing.assert_allclose(fk2[name], fk1[name], atol=1e-9, err_msg=name)
    for fmt in ("urdf", "idyntree-model-json"):  # no free links there: the chain stays
        again = load_model(export_model(m, fmt), format=fmt)
        assert {f"ball_free_{s}" for s in ("x", "yaw")} <= set(again.joints)
        assert again.dofs == m.dofs


def test_equal_limits_stay_revolute_and_prismatic() -> None:
    m = load_model(EQUAL_LIMITS, format="sdf")
    assert m.joints["board_peg"].type is JointType.REVOLUTE and m.joints["steer"].type is JointType.PRISMATIC
    assert m.dofs == 2
    back = load_model(export_model(m, "sdf"), format="sdf")
    assert back.dofs == 2


def test_flattened_names_read_as_libsdformat_12() -> None:
    warnings: list[str] = []
    m = load_model(FLATTENED, format="sdf", warnings=warnings)
    assert {"M::L1", "M::L2", "M::F", "M"} <= set(m.links) | set(m.frames)  # "M" is the nested model's frame
    assert any("nested model 'M'" in w for w in warnings)
    # a top-level model is not converted: '::' is part of the names, M::__model__ an ordinary frame
    flat = load_model(FLATTENED_MODEL, format="sdf")
    assert "M::__model__" in flat.frames and "M" not in flat.frames
    fk1, fk2 = Kinematics(m).world_transforms({}), Kinematics(flat).world_transforms({})
    for name in ("M::L1", "M::L2", "M::F"):
        np.testing.assert_allclose(fk1[name], fk2[name], atol=1e-12)


def test_loops_stay_refused() -> None:
    with pytest.raises(ModelError, match="cycle"):
        load_model(LOOP, format="sdf")
    with pytest.raises(ModelError, match="two parent joints"):
        load_model(TWO_PARENTS, format="sdf")


def test_cli_free_bodies_option(tmp_path: Path) -> None:
    src = tmp_path / "free.sdf"
    src.write_text(FREE_LINKS)
    cli = [sys.executable, "-m", "idyntree_models.cli", "-i", str(src)]
    ok = subprocess.run(cli + ["-o", str(tmp_path / "out.urdf")], capture_output=True, text=True, timeout=120)
    assert ok.returncode == 0, ok.stderr
    assert "ball_free_yaw" in (tmp_path / "out.urdf").read_text()
    bad = subprocess.run(cli + ["-o", str(tmp_path / "x.urdf"), "--free-bodies", "error"], capture_output=True,
                         text=True, timeout=120)
    assert bad.returncode == 1 and "joined to no joint" in bad.stderr and len(bad.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "x.urdf").exists()
