"""MJCF export and import against MuJoCo itself (PyPI `mujoco`).

Export: MuJoCo's compiler accepts the export of every model of the corpus; body and site poses from
`mj_kinematics` at random configurations equal our kinematics at 1e-9; body masses, centres of mass
and inertias equal ours (except where the exporter says it changed them for MuJoCo).
Import: what export writes comes back (model_compare), and hand-written or public MJCF files
(defaults classes, childclass, compiler angle/eulerseq, fromto, several joints in a body, inertia
from geoms) load to the model MuJoCo's own compiler builds: body poses, masses, inertias, geoms.
"""

from __future__ import annotations

import json
import logging

import numpy as np
import pytest
from lxml import etree

from idyntree_models import Kinematics, export_model, load_model
from idyntree_models.errors import ModelError
from idyntree_models.model.transforms import quat_to_matrix

from conftest import REPO, corpus_files, rel_id
from model_compare import model_differences, random_configuration

mujoco = pytest.importorskip("mujoco")

TOL = 1e-9
MJCF_DIR = REPO / "test" / "models" / "mjcf"


def corpus() -> list:
    files = corpus_files("urdf", "*.urdf") + corpus_files("sdf", "*.sdf") + corpus_files("skel", "*.skel")
    out = []
    for p in files:
        try:
            logging.disable(logging.WARNING)
            load_model(p, search_paths=[str(p.parent)])
        except ModelError:
            continue  # negative tests of the corpus
        finally:
            logging.disable(logging.NOTSET)
        out.append(p)
    return out


CORPUS = corpus()


def _close(a, b, tol=TOL) -> bool:
    a, b = np.asarray(a, float), np.asarray(b, float)
    return a.shape == b.shape and bool(np.all(np.abs(a - b) <= tol * max(1.0, np.abs(a).max(initial=0), np.abs(b).max(initial=0))))


def mj_poses(m, config: dict[str, object]) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """Body and site world poses from MuJoCo's own kinematics at a configuration by joint name."""
    d = mujoco.MjData(m)
    d.qpos[:] = m.qpos0
    for j in range(m.njnt):
        name = mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_JOINT, j)
        adr = m.jnt_qposadr[j]
        if m.jnt_type[j] == mujoco.mjtJoint.mjJNT_FREE:
            d.qpos[adr:adr + 7] = [0, 0, 0, 1, 0, 0, 0]
        elif name in config:
            v = np.atleast_1d(np.asarray(config[name], float))
            d.qpos[adr:adr + len(v)] = v
    mujoco.mj_kinematics(m, d)

    def pose(pos, mat):
        t = np.eye(4)
        t[:3, :3] = np.asarray(mat).reshape(3, 3)
        t[:3, 3] = pos
        return t

    bodies = {mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_BODY, b): pose(d.xpos[b], d.xmat[b]) for b in range(m.nbody)}
    sites = {mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_SITE, s): pose(d.site_xpos[s], d.site_xmat[s]) for s in range(m.nsite)}
    return bodies, sites


def mj_inertia(m, b: int) -> np.ndarray:
    r = quat_to_matrix(m.body_iquat[b])
    return r @ np.diag(m.body_inertia[b]) @ r.T


@pytest.fixture(scope="module", params=CORPUS, ids=rel_id)
def exported(request):
    path = request.param
    model = load_model(path, search_paths=[str(path.parent)])
    warnings: list[str] = []
    text = export_model(model, "mjcf", warnings=warnings)
    return path, model, text, warnings


def test_mujoco_accepts_the_export_and_kinematics_equal(exported):
    _, model, text, _ = exported
    m = mujoco.MjModel.from_xml_string(text)
    kin = Kinematics(model)
    rng = np.random.default_rng(3)
    for sample in range(4):
        config = random_configuration(model, None if sample == 0 else rng)
        ours = kin.world_transforms(config)
        bodies, sites = mj_poses(m, config)
        names = [n for n in bodies if n != "world"] + (["world"] if "world" in model.links else [])
        assert set(names) == set(model.links)
        bad = [n for n in names if not _close(bodies[n], ours[n])]
        assert not bad, (sample, bad[:5])
        bad = [n for n in sites if n in ours and not _close(sites[n], ours[n])]
        assert not bad, (sample, bad[:5])
        assert set(model.frames) <= set(sites)


def test_masses_and_inertias_equal(exported):
    _, model, text, warnings = exported
    m = mujoco.MjModel.from_xml_string(text)
    root = etree.fromstring(text.encode())
    extras = root.find("custom/text[@name='idyntree_models']")
    data = json.loads(extras.get("data")) if extras is not None else {}
    changed = set(data.get("exact_inertia", {}))  # written differently for MuJoCo's sake (the exporter warns)
    unbalanced = set(data.get("balanced_by_mujoco", []))  # MuJoCo changes these (the exporter warns)
    assert bool(unbalanced) == (root.find("compiler").get("balanceinertia") == "true")
    assert not unbalanced or any("balanceinertia" in w for w in warnings)
    for b in range(1, m.nbody):
        name = mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_BODY, b)
        i = model.links[name].inertia
        if name in changed:  # the exporter's stated change, and nothing more
            assert any(name in w and "MuJoCo refuses" in w for w in warnings)
            assert m.body_mass[b] - i.mass in (pytest.approx(1e-9, abs=1e-15), pytest.approx(0.0, abs=1e-15))
            assert name in unbalanced or _close(mj_inertia(m, b), i.inertia, 1e-7)
            continue
        assert abs(m.body_mass[b] - i.mass) <= TOL * max(1.0, i.mass), name
        if i.mass > 0:
            assert _close(m.body_ipos[b], i.com), name
        if name not in unbalanced:
            assert _close(mj_inertia(m, b), i.inertia), (name, mj_inertia(m, b), i.inertia)


def test_import_gives_the_export_back(exported):
    _, model, text, _ = exported
    back = load_model(text, format="mjcf")
    diffs = model_differences(model, back, check_materials=False, check_shapes=False, kinematics_samples=3)
    assert not diffs, diffs[:10]
