"""The stacked (all links / all joints at once) arithmetic of model/bulk.py.

The screens must never let through an element that the exact per-element check would refuse or
warn about: checked on every model of the corpus and on random inertias and rotations placed on and
around each threshold.
"""

from __future__ import annotations

import logging

import numpy as np
import pytest

from idyntree_models import ModelError, load_model
from idyntree_models.model import bulk
from idyntree_models.model.transforms import is_rotation, rpy_to_matrix, rpy_xyz_to_transform
from idyntree_models.model.validation import check_inertia

from conftest import corpus_files

FILES = corpus_files("urdf", "*.urdf") + corpus_files("sdf", "*.sdf") + corpus_files("skel", "*.skel")


def _verdict(mass, com, inertia) -> bool:
    """True when check_inertia refuses or warns."""
    try:
        return bool(check_inertia(mass, com, inertia, "link 'x'"))
    except ModelError:
        return True


def test_rpy_xyz_to_transforms_equals_the_one_element_version():
    rng = np.random.default_rng(0)
    rpy, xyz = rng.uniform(-7, 7, (500, 3)), rng.normal(size=(500, 3))
    stacked = bulk.rpy_xyz_to_transforms(rpy, xyz)
    for k in range(len(rpy)):
        np.testing.assert_array_equal(stacked[k], rpy_xyz_to_transform(rpy[k].tolist(), xyz[k].tolist()))
        np.testing.assert_allclose(stacked[k, :3, :3], rpy_to_matrix(rpy[k]), atol=1e-15)


def test_screens_on_the_corpus():
    logging.disable(logging.WARNING)
    try:
        checked = 0
        for path in FILES:
            try:
                model = load_model(path)
            except ModelError:
                continue
            links = list(model.links.values())
            suspects = set(bulk.inertia_suspects([lk.inertia.mass for lk in links], [lk.inertia.com for lk in links],
                                                 [lk.inertia.inertia for lk in links]).tolist())
            for k, lk in enumerate(links):
                if _verdict(lk.inertia.mass, lk.inertia.com, lk.inertia.inertia):
                    assert k in suspects, (path, lk.name)
            joints = list(model.joints.values())
            if joints:
                assert not len(bulk.rotation_suspects(np.array([j.rest_transform for j in joints])))
            checked += 1
    finally:
        logging.disable(logging.NOTSET)
    assert checked > 20


@pytest.mark.parametrize("seed", range(4))
def test_inertia_screen_around_the_thresholds(seed):
    rng = np.random.default_rng(seed)
    for _ in range(3000):
        a = rng.normal(size=(3, 3))
        inertia = a @ a.T * 10 ** rng.uniform(-9, 4)
        kind = rng.integers(5)
        if kind == 0:  # indefinite by an amount around the warning and error thresholds
            inertia[0, 0] -= rng.uniform(0, 2) * np.abs(inertia).max() * 10 ** rng.uniform(-12, 0)
        elif kind == 1:  # asymmetric around the tolerance
            inertia[0, 1] += 10 ** rng.uniform(-12, -7) * max(1.0, np.abs(inertia).max())
        elif kind == 2:  # a rod: on the triangle inequality
            e = np.sort(rng.uniform(0, 1, 3))
            e[2] = e[0] + e[1] + rng.normal() * 10 ** rng.uniform(-9, -4)
            q, _ = np.linalg.qr(rng.normal(size=(3, 3)))
            inertia = q @ np.diag(e) @ q.T
        elif kind == 3:
            inertia[rng.integers(3), rng.integers(3)] = rng.choice([np.nan, np.inf, 1e30])
        mass = rng.choice([1.0, 0.0, -1e-300, np.nan])
        com = rng.normal(size=3)
        if _verdict(mass, com, inertia):
            assert len(bulk.inertia_suspects([mass], [com], [inertia])) == 1, (mass, inertia)


def test_rotation_and_norm_screens():
    rng = np.random.default_rng(1)
    for _ in range(2000):
        t = rpy_xyz_to_transform(rng.uniform(-3, 3, 3).tolist(), rng.normal(size=3).tolist())
        t[rng.integers(3), rng.integers(3)] += rng.choice([0.0, 1.0]) * 10 ** rng.uniform(-9, -4)
        if not is_rotation(t[:3, :3]):
            assert len(bulk.rotation_suspects(t[None])) == 1
        v = rng.normal(size=3)
        v /= np.linalg.norm(v)
        v *= 1 + rng.choice([0.0, 1.0]) * 10 ** rng.uniform(-12, -6)
        if abs(np.linalg.norm(v) - 1.0) > 1e-9:
            assert len(bulk.norm_suspects(v[None])) == 1
    assert list(bulk.norm_suspects([[0, 0, 0], [np.nan, 0, 1], [0, 0, 1]])) == [0, 1]
