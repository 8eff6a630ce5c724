"""Reading a model file: every byte, whatever its size, and the folder its relative meshes are found in.

The oracles are the standard library's: Path.read_bytes for the content, os.path.realpath for the folder
(the reader takes the path from the open file instead, see formats.base.read_file_and_place).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from idyntree_models import export_model, load_model
from idyntree_models.formats.base import read_file_and_place, read_file_limited

URDF = """<robot name="r">
  <link name="a"><inertial><mass value="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial>
    <visual><geometry><mesh filename="meshes/a.stl"/></geometry></visual></link>
</robot>
"""


@pytest.mark.parametrize("size", [1, 4095, 4096, 65537, 1 << 20, (1 << 20) + 1, 3 << 20])
def test_every_byte_of_files_of_any_size(tmp_path, size):
    path = tmp_path / "f.bin"
    path.write_bytes(bytes(range(256)) * (size // 256) + b"x" * (size % 256))
    data, real = read_file_and_place(str(path))
    assert data == path.read_bytes() and len(data) == size
    assert real == os.path.realpath(path)
    assert read_file_limited(str(path)) == data


def test_a_file_whose_size_the_system_does_not_know(tmp_path):
    proc = Path("/proc/version")
    if not proc.exists() or proc.stat().st_size != 0:
        pytest.skip("needs Linux's /proc, whose files report size 0")
    assert read_file_limited(str(proc)) == proc.read_bytes() != b""


def test_relative_meshes_are_found_beside_the_file_the_links_lead_to(tmp_path):
    real_dir = tmp_path / "robot" / "urdf"
    real_dir.mkdir(parents=True)
    (real_dir / "model.urdf").write_text(URDF)
    (tmp_path / "dir_link").symlink_to(real_dir)
    (tmp_path / "file_link.urdf").symlink_to(real_dir / "model.urdf")
    for path in (tmp_path / "dir_link" / "model.urdf", tmp_path / "file_link.urdf", real_dir / "model.urdf"):
        for given in (path, str(path), os.path.relpath(path)):
            model = load_model(given)
            assert model.metadata["source_dir"] == os.path.dirname(os.path.realpath(path))
        out = export_model(model, "urdf", mesh_uri="absolute")
        assert f'filename="file://{os.path.realpath(real_dir)}/meshes/a.stl"' in out, out
