"""What a loader hands finish_model so that validation need not compute it again must be what validation would
compute on the model the loader returned.

The tree order (Diagnostics.tree): a loader that ordered the tree last hands its TreeOrder over, and finish_model
does not order the links again (a URDF whose massless links became frames after its order was made hands none).
The inertia screen (Diagnostics.inertia_suspects): the URDF reader screens its stacked inertias where it computes
them, and validation checks only the links it singled out.

Checked on every corpus URDF and SDF file that loads: the handed-over order against tree_order of the model as
the loader returned it, field by field.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from idyntree_models import ModelError, load_model
from idyntree_models.formats import get_format, loader
from idyntree_models.formats.base import Diagnostics, LoadOptions
from idyntree_models.model.topology import TreeOrder, tree_order
from idyntree_models.model.validation import validate

from conftest import corpus_files, rel_id


def _load(path: Path, fmt: str) -> tuple[object, Diagnostics] | None:
    diag = Diagnostics(str(path), quiet=True)
    try:
        model = loader(get_format(fmt))(path.read_text(), LoadOptions(base_dir=str(path.parent)), diag)
    except (ModelError, UnicodeDecodeError):
        return None
    return model, diag


def _fields(tree: TreeOrder) -> tuple:
    return (tree.root, tree.order, {c: j.name for c, j in tree.parent_joint.items()},
            {link: [j.name for j in joints] for link, joints in tree.children.items()}, tree.depth)


@pytest.mark.parametrize("fmt,pattern", [("urdf", "*.urdf"), ("sdf", "*.sdf")])
def test_handed_over_order_is_the_models(fmt: str, pattern: str) -> None:
    handed = checked = 0
    for path in corpus_files(fmt, pattern):
        loaded = _load(path, fmt)
        if loaded is None:
            continue
        model, diag = loaded
        checked += 1
        if diag.tree is None:
            continue
        handed += 1
        assert _fields(diag.tree) == _fields(tree_order(model)), rel_id(path)
    assert checked >= 20
    assert handed >= 5 if fmt == "urdf" else handed >= 10


_INERTIAL = '<inertial><mass value="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial>'


@pytest.mark.parametrize("links,joints,frames", [
    ("<link name='base'>I</link><link name='tip'/>", [("base", "tip")], {"tip"}),
    ("<link name='world'/><link name='base'>I</link><link name='arm'>I</link><link name='tip'/>",
     [("world", "base"), ("base", "arm"), ("arm", "tip")], {"world", "tip"}),
    ("<link name='world'/><link name='base'>I</link><link name='a'>I</link><link name='b'>I</link><link name='t'/>",
     [("world", "base"), ("base", "a"), ("base", "b"), ("a", "t")], {"world", "t"}),
], ids=["leaf", "root and leaf", "branches"])
def test_urdf_links_made_frames_hand_no_order_over(tmp_path: Path, links: str, joints: list,
                                                            frames: set) -> None:
    path = tmp_path / "r.urdf"
    body = "".join(f'<joint name="{p}_{c}" type="{"fixed" if c in frames or p in frames else "revolute"}">'
                   f'<parent link="{p}"/><child link="{c}"/><limit lower="-1" upper="1"/></joint>' for p, c in joints)
    path.write_text(f'<robot name="r">{links.replace("I", _INERTIAL)}{body}</robot>')
    model, diag = _load(path, "urdf")
    assert set(model.frames) == frames
    assert diag.tree is None
    assert sorted(load_model(path).links) == sorted(tree_order(model).order)


def test_urdf_inertia_screen_finds_what_validation_finds() -> None:
    """On every corpus URDF: the warnings of validation with the reader's screen are those of a full screen."""
    checked = warned = 0
    for path in corpus_files("urdf", "*.urdf"):
        loaded = _load(path, "urdf")
        if loaded is None:
            continue
        model, diag = loaded
        assert diag.inertia_suspects is not None
        full = validate(model)
        assert validate(model, inertia_suspects=diag.inertia_suspects) == full, rel_id(path)
        checked += 1
        warned += any("inertia" in w or "mass" in w for w in full)
    assert checked >= 20 and warned >= 3


def test_urdf_inertia_screen_on_bad_inertias(tmp_path: Path) -> None:
    """Inertias validation refuses or warns about, among good ones and on a link that becomes a frame."""
    bad = {"neg": ("-1", "1 0 0 1 0 1"), "triangle": ("1", "1 0 0 1 0 3"), "indefinite": ("1", "1 2 0 1 0 1"),
           "tiny": ("1e-9", "1e-12 0 0 1e-12 0 1e-12"), "good": ("2", "0.1 0 0 0.2 0 0.25")}
    links = "".join(
        f'<link name="{name}"><inertial><origin rpy="0.3 0 0.1"/><mass value="{mass}"/><inertia '
        + " ".join(f'{k}="{v}"' for k, v in zip(("ixx", "ixy", "ixz", "iyy", "iyz", "izz"), moments.split()))
        + "/></inertial></link>" for name, (mass, moments) in bad.items())
    joints = "".join(f'<joint name="j_{name}" type="revolute"><parent link="good"/><child link="{name}"/>'
                     '<limit lower="-1" upper="1"/></joint>' for name in bad if name != "good")
    frame = ('<link name="held"><inertial><mass value="0"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" '
             'izz="5"/></inertial></link><joint name="j_held" type="fixed"><parent link="good"/><child link="held"/>'
             '</joint>')
    path = tmp_path / "r.urdf"
    path.write_text(f'<robot name="r">{links}{frame}{joints}</robot>')
    model, diag = _load(path, "urdf")
    assert "held" in model.frames
    full = validate(model)
    assert validate(model, inertia_suspects=diag.inertia_suspects) == full
    assert {link.name for link in diag.inertia_suspects} >= {"neg", "triangle", "indefinite"}
    assert len(full) >= 3


def test_finish_model_takes_the_handover_once(tmp_path: Path) -> None:
    """A Diagnostics used for a second load starts clean: the first load's order and suspects are taken by its
    finish_model, so they cannot stand for another model (here one whose massless link becomes a frame)."""
    from idyntree_models.api import finish_model

    first, second = tmp_path / "a.urdf", tmp_path / "b.urdf"
    first.write_text(f'<robot name="a"><link name="a0">{_INERTIAL}</link></robot>')
    second.write_text(f'<robot name="b"><link name="b0">{_INERTIAL}</link><link name="tip"/><link name="b1">'
                      '<inertial><mass value="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="3"/>'
                      '</inertial></link><joint name="j" type="fixed"><parent link="b0"/><child link="tip"/></joint>'
                      '<joint name="k" type="revolute"><parent link="b0"/><child link="b1"/><limit lower="-1" '
                      'upper="1"/></joint></robot>')
    diag = Diagnostics(None, quiet=True)
    urdf = loader(get_format("urdf"))
    model = urdf(first.read_text(), LoadOptions(), diag)
    assert diag.tree is not None
    finish_model(model, LoadOptions(), diag)
    assert diag.tree is None and diag.inertia_suspects is None
    model = urdf(second.read_text(), LoadOptions(), diag)
    finish_model(model, LoadOptions(), diag)
    assert model.default_base_link == "b0"
    assert any("triangle" in w or "inertia" in w for w in diag.warnings)  # b1's 1 + 1 < 3
