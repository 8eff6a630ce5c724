"""A loader that ordered the tree last hands its TreeOrder to finish_model (Diagnostics.tree), which then does
not order the links again: the order handed over must be the one the returned model has.

Checked on every corpus URDF and SDF file that loads: the handed-over order against tree_order of the model as
the loader returned it, field by field.  A URDF's massless links become frames after the order was made
(TreeOrder.without): leaves, and a root with one child.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from idyntree_models import ModelError, load_model
from idyntree_models.formats import get_format, loader
from idyntree_models.formats.base import Diagnostics, LoadOptions
from idyntree_models.model.topology import TreeOrder, tree_order

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
    assert handed == checked if fmt == "urdf" else handed >= 10


_INERTIAL = '<inertial><mass value="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial>'


@pytest.mark.parametrize("links,joints,frames", [
    ("<link name='base'>I</link><link name='tip'/>", [("base", "tip")], {"tip"}),
    ("<link name='world'/><link name='base'>I</link><link name='arm'>I</link><link name='tip'/>",
     [("world", "base"), ("base", "arm"), ("arm", "tip")], {"world", "tip"}),
    ("<link name='world'/><link name='base'>I</link><link name='a'>I</link><link name='b'>I</link><link name='t'/>",
     [("world", "base"), ("base", "a"), ("base", "b"), ("a", "t")], {"world", "t"}),
], ids=["leaf", "root and leaf", "branches"])
def test_urdf_links_made_frames_leave_the_order_of_the_rest(tmp_path: Path, links: str, joints: list,
                                                            frames: set) -> None:
    path = tmp_path / "r.urdf"
    body = "".join(f'<joint name="{p}_{c}" type="{"fixed" if c in frames or p in frames else "revolute"}">'
                   f'<parent link="{p}"/><child link="{c}"/><limit lower="-1" upper="1"/></joint>' for p, c in joints)
    path.write_text(f'<robot name="r">{links.replace("I", _INERTIAL)}{body}</robot>')
    model, diag = _load(path, "urdf")
    assert set(model.frames) == frames
    assert _fields(diag.tree) == _fields(tree_order(model))
    assert sorted(load_model(path).links) == sorted(diag.tree.order)
