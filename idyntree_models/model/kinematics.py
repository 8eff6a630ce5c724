"""Forward kinematics of every link and frame, for one configuration or many at once.

The tree is processed level by level, so a configuration costs a few stacked numpy products
instead of one small product per link.  From BATCH_THRESHOLD configurations on, a second schedule
(_BatchPlan) works on the whole batch at once: one BLAS product makes every local transform, a
level is one einsum, and each run of frames one BLAS product, ~10x cheaper per configuration.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from ..errors import ModelError
from .model import Joint, JointType, Model
from .topology import tree_order
from .transforms import IDENTITY, axis_angle_to_matrix, quat_to_matrix, unit_quaternions

BATCH_THRESHOLD = 6  # from this many configurations on, the batch schedule is faster (iCubGenova02 and 04)


class Kinematics:
    """Precompiled forward kinematics of a model.

    Positions are given by joint name: a float for 1-DOF joints, a unit quaternion (w, x, y, z)
    for spherical joints; batched, an array of shape (N,) or (N, 4).  Joints left out are at
    zero (identity rotation); mimic joints follow their master.  Like numpy, the result of a NaN
    position, or of one that overflows (a mimic multiplier of 1e308), is NaN or inf, not an error
    (numpy may warn): a check of every batch would cost a quarter of its time.  Only a spherical
    joint's quaternion is checked (finite and non-zero, as it is normalised).  The ROS node checks
    what it publishes.
    """

    def __init__(self, model: Model) -> None:
        tree = tree_order(model)
        self.model = model
        self.link_names = list(tree.order)
        self.link_index = {n: i for i, n in enumerate(self.link_names)}
        self.joints: list[Joint] = [tree.parent_joint[n] for n in self.link_names[1:]]
        self.joint_index = {j.name: i for i, j in enumerate(self.joints)}
        rest = np.array([j.rest_transform for j in self.joints]).reshape(-1, 4, 4)
        self._rest = rest
        # each 1-DOF joint's axis and axis origin as they are now, the axis a unit vector: a model built in code may
        # hold any length (a loaded one is validated), and both paths below read these, never the Joint again
        self._axis = [_unit_axis(j) if j.dofs == 1 and j.type is not JointType.SPHERICAL else None
                      for j in self.joints]
        self._origin = [np.array(j.axis_origin, dtype=float) for j in self.joints]

        # coordinates of the independent joints: one column per 1-DOF joint, four (w, x, y, z) per
        # spherical joint; mimic joints read their master's column with a gain and an offset
        self.position_names = [j.name for j in self.joints if j.dofs and j.mimic is None]
        self.position_index: dict[str, int] = {}
        col = 0
        for name in self.position_names:
            self.position_index[name] = col
            col += 4 if model.joints[name].type is JointType.SPHERICAL else 1
        self.nq = col

        def columns(kind: JointType) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
            idx, cols, gain, offset = [], [], [], []
            for i, j in enumerate(self.joints):
                if j.type is not kind:
                    continue
                if j.mimic is None:
                    idx.append(i), cols.append(self.position_index[j.name]), gain.append(1.0), offset.append(0.0)
                    continue
                master = model.joints.get(j.mimic.joint)
                if master is None or master.dofs != 1 or j.mimic.joint not in self.position_index:
                    raise ModelError(f"joint '{j.name}' mimics '{j.mimic.joint}', which is not an independent 1-DOF joint")
                idx.append(i), cols.append(self.position_index[j.mimic.joint])
                gain.append(j.mimic.multiplier), offset.append(j.mimic.offset)
            return (np.array(idx, dtype=int), np.array(cols, dtype=int), np.array(gain), np.array(offset))

        self._rev, self._rev_cols, self._rev_gain, self._rev_offset = columns(JointType.REVOLUTE)
        self._pri, self._pri_cols, self._pri_gain, self._pri_offset = columns(JointType.PRISMATIC)
        self._sph = np.array([i for i, j in enumerate(self.joints) if j.type is JointType.SPHERICAL], dtype=int)
        self._sph_cols = np.array([[self.position_index[self.joints[i].name] + k for k in range(4)] for i in self._sph],
                                  dtype=int).reshape(-1, 4)
        self._rev_axis = np.array([self._axis[i] for i in self._rev]).reshape(-1, 3)
        self._rev_origin = np.array([self._origin[i] for i in self._rev]).reshape(-1, 3)
        self._rev_has_origin = bool(np.any(self._rev_origin))
        # Rodrigues folded into the rest rotation: R_rest Rot(a, q) = cos q A + sin q B + (1 - cos q) C
        a = self._rev_axis
        skew = np.zeros((len(a), 3, 3))
        skew[:, 0, 1], skew[:, 0, 2], skew[:, 1, 2] = -a[:, 2], a[:, 1], -a[:, 0]
        skew[:, 1, 0], skew[:, 2, 0], skew[:, 2, 1] = a[:, 2], -a[:, 1], a[:, 0]
        rest_r = rest[self._rev][:, :3, :3]
        self._rev_abc = (rest_r, rest_r @ skew, rest_r @ (a[:, :, None] * a[:, None, :]))
        self._pri_dir = np.einsum("kij,kj->ki", rest[self._pri][:, :3, :3], np.array(
            [self._axis[i] for i in self._pri]).reshape(-1, 3)) if len(self._pri) else np.zeros((0, 3))
        centers = []
        for i in self._sph:
            j = self.joints[i]
            r, p = j.rest_transform[:3, :3], j.rest_transform[:3, 3]
            centers.append(r.T @ (j.center - p))  # centre in the child's rest frame
        self._sph_center = np.array(centers).reshape(-1, 3)
        self._zero = np.zeros(self.nq)
        for i in self._sph_cols:
            self._zero[i[0]] = 1.0
        # level schedule: links are in breadth-first order, so the children at one depth are a
        # contiguous block (and so are their joints, joint i being the parent joint of link i + 1)
        levels: dict[int, list[int]] = {}
        for li, name in enumerate(self.link_names[1:], start=1):
            levels.setdefault(tree.depth[name], []).append(li)
        self._levels = []
        for d in sorted(levels):
            block = levels[d]
            assert block == list(range(block[0], block[-1] + 1))
            parents = np.array([self.link_index[self.joints[li - 1].parent] for li in block], dtype=int)
            self._levels.append((block[0], block[-1] + 1, parents))
        frames = list(model.frames.values())
        self.frame_names = self.link_names + [f.name for f in frames]
        self.frame_index = {n: i for i, n in enumerate(self.frame_names)}
        self._frame_parent = np.array([self.link_index[f.parent_link] for f in frames], dtype=int)
        self._frame_offset = np.array([f.link_H_frame for f in frames]).reshape(-1, 4, 4)
        self._batch: _BatchPlan | None = None  # built on the first batch of BATCH_THRESHOLD or more

    # -- configuration handling -----------------------------------------------------------
    def positions(self, config: Mapping[str, object] | None = None) -> np.ndarray:
        """The positions array (N, nq) of a configuration given by joint name (see class doc)."""
        items = list((config or {}).items())
        n = 1
        for name, value in items:
            if isinstance(value, float | int):
                continue
            if np.ndim(value) > (1 if self._is_spherical(name) else 0):
                n = len(value)
                break
        q = np.tile(self._zero, (n, 1))
        for name, value in items:
            col = self.position_index.get(name)
            if col is None:
                if name in self.model.joints:
                    continue  # fixed or mimic joints: nothing to set
                raise ModelError(f"unknown joint '{name}' in the configuration")
            if self._is_spherical(name):
                v = np.asarray(value, dtype=float)
                if v.shape[-1:] != (4,):
                    raise ModelError(f"spherical joint '{name}' takes a quaternion (w, x, y, z)")
                q[:, col:col + 4] = v
            else:
                try:
                    q[:, col] = value
                except ValueError:
                    raise ModelError(f"joint '{name}': {np.shape(value)} values for a batch of {n}") from None
        return q

    def _is_spherical(self, name: str) -> bool:
        joint = self.model.joints.get(name)
        return joint is not None and joint.type is JointType.SPHERICAL

    # -- core -----------------------------------------------------------------------------
    def joint_transforms(self, config: Mapping[str, object] | None = None) -> np.ndarray:
        """parent_H_child of every traversed joint: array (N, n_joints, 4, 4), in `self.joints` order."""
        return self.joint_transforms_q(self.positions(config))

    def joint_transforms_q(self, q: np.ndarray) -> np.ndarray:
        q = np.asarray(q, dtype=float)
        if q.ndim == 1:
            q = q[None]
        n = q.shape[0]
        local = np.empty((n,) + self._rest.shape)
        local[:] = self._rest
        if len(self._rev):
            angle = q[:, self._rev_cols] * self._rev_gain + self._rev_offset
            if self._rev_has_origin:
                rot = axis_angle_to_matrix(self._rev_axis, angle)  # (n, nr, 3, 3)
                m = np.zeros((n, len(self._rev), 4, 4))
                m[..., :3, :3] = rot
                m[..., :3, 3] = self._rev_origin - np.einsum("...ij,...j->...i", rot, self._rev_origin)
                m[..., 3, 3] = 1.0
                local[:, self._rev] = self._rest[self._rev] @ m
            else:  # the axis passes through the child origin: only the rotation block moves
                c = np.cos(angle)[..., None, None]
                s = np.sin(angle)[..., None, None]
                a, b, cc = self._rev_abc
                moved = local[:, self._rev]
                moved[..., :3, :3] = c * a + s * b + (1.0 - c) * cc
                local[:, self._rev] = moved
        if len(self._pri):
            d = q[:, self._pri_cols] * self._pri_gain + self._pri_offset
            moved = local[:, self._pri]  # a copy: advanced indexing
            moved[..., :3, 3] += d[..., None] * self._pri_dir
            local[:, self._pri] = moved
        if len(self._sph):
            quat = q[:, self._sph_cols]
            norms = unit_quaternions(quat)[1]
            if not np.all(norms > 1e-12):
                raise ModelError("spherical joint positions must be non-zero finite quaternions")
            rot = quat_to_matrix(quat)
            c = self._sph_center
            m = np.zeros((n, len(self._sph), 4, 4))
            m[..., :3, :3] = rot
            m[..., :3, 3] = c - np.einsum("...ij,...j->...i", rot, c)
            m[..., 3, 3] = 1.0
            local[:, self._sph] = self._rest[self._sph] @ m
        return local

    def compute(self, config: Mapping[str, object] | None = None, base_pose: np.ndarray | None = None,
                out: np.ndarray | None = None) -> np.ndarray:
        """World transforms of all frames (links first, then additional frames): (N, F, 4, 4)."""
        return self.compute_q(self.positions(config), base_pose, out)

    def compute_q(self, q: np.ndarray, base_pose: np.ndarray | None = None, out: np.ndarray | None = None) -> np.ndarray:
        """compute() from a positions array (nq,) or (N, nq) laid out as `position_index` says.

        `out`, when given, is a C-contiguous float array (N, F, 4, 4) written in place and returned
        (a caller that computes batch after batch reuses it instead of allocating 128 bytes per frame).
        """
        q = np.asarray(q, dtype=float)
        if q.ndim not in (1, 2) or q.shape[-1] != self.nq:  # (a column more was ignored, one less an IndexError)
            raise ModelError(f"positions must be an array of shape ({self.nq},) or (N, {self.nq}) (position_index), "
                             f"got {q.shape}")
        n = 1 if q.ndim == 1 else q.shape[0]
        shape = (n, len(self.frame_names), 4, 4)
        if out is not None and (out.shape != shape or out.dtype != np.float64 or not out.flags.c_contiguous):
            raise ModelError(f"out must be a C-contiguous float64 array of shape {shape}")
        if q.ndim == 2 and n >= BATCH_THRESHOLD:
            if self._batch is None:
                self._batch = _BatchPlan(self)
            return self._batch.run(q, base_pose, out)
        local = self.joint_transforms_q(q)
        n_links = len(self.link_names)
        if out is None:
            out = np.empty((n, len(self.frame_names), 4, 4))
        out[:, 0] = IDENTITY if base_pose is None else base_pose
        for start, stop, parents in self._levels:
            np.matmul(out[:, parents], local[:, start - 1:stop - 1], out=out[:, start:stop])
        if len(self._frame_parent):
            np.matmul(out[:, self._frame_parent], self._frame_offset, out=out[:, n_links:])
        return out

    def world_transforms(self, config: Mapping[str, object] | None = None, base_pose=None) -> dict[str, np.ndarray]:
        """World transform of every link and frame by name, for one configuration."""
        world = self.compute(config, base_pose)
        if world.shape[0] != 1:
            raise ModelError("world_transforms takes one configuration; use compute() for a batch")
        return dict(zip(self.frame_names, world[0]))


def forward_kinematics(model: Model, config: Mapping[str, object] | None = None) -> dict[str, np.ndarray]:
    return Kinematics(model).world_transforms(config)


# -- batches ----------------------------------------------------------------------------------
# A chunk's working set (link buffer, local transforms and its rows of the output, 128 bytes each per
# configuration) is sized to stay in a core's L2 cache: the output, written frame run by frame run, is the
# largest part (14 MB for iCubGenova02's 1000 configurations).  Sized by the link buffer alone (8 MiB), 1000
# configurations cost iCubGenova02 10.4-11.7 and tiago_dual 26 us per configuration, sized so 8.1-8.4 and 14.4
# (2 MiB L2; a simulated 2 MiB cache missed 590k times per batch against 428k).  None: three quarters of the L2
# cache the kernel reports (the quarter left holds what is not counted: the coefficient table, the gathered
# parent rows).  On a 2 MiB L2 the cache asks iCubGenova02 for chunks of 69, so MIN_CHUNK decides there.
CHUNK_BYTES: int | None = None
# A chunk's 30-70 numpy calls cost 90-150 us whatever its size: in chunks of 35-70 configurations they cost
# more than the misses they save (iCubGenova04, 100 configurations: 13-15 us per configuration in one chunk,
# 26-29 us in three), so a chunk holds at least this many configurations.
MIN_CHUNK = 128
_TRANSFORM_BYTES = 16 * np.dtype(np.float64).itemsize  # a 4x4 of float64, per configuration
# OpenBLAS (numpy's) runs a product of m*n*k <= 2**18 on one thread; above it wakes more threads,
# which on a loaded machine costs ~10x.  Frame products are split to stay below it.
BLAS_ONE_THREAD = 1 << 18
STACKED_BELOW = 512  # chunks of fewer configurations compute lone frames in one stacked product


_CPU0_CACHE = Path("/sys/devices/system/cpu/cpu0/cache")
_SIZE = re.compile(r"(\d+)\s*([KMG]?)")


@functools.cache
def _l2_bytes(root: Path = _CPU0_CACHE) -> int:
    """cpu0's L2 cache (Linux sysfs), 1 MiB where it cannot be read.

    cpu0 stands for every core: on a hybrid CPU the batch may run on a core with another L2, which only
    makes its chunks less well sized.  An unreadable entry is skipped, not taken as the end of the list
    (the index directories come in no fixed order)."""
    try:
        indices = sorted(root.glob("index*"))
    except OSError:
        return 1 << 20
    for index in indices:
        try:
            if (index / "level").read_text().strip() != "2" or (index / "type").read_text().strip() == "Instruction":
                continue
            size = _SIZE.fullmatch((index / "size").read_text().strip().upper())
        except (OSError, ValueError):  # (a UnicodeDecodeError is a ValueError)
            continue
        if size and int(size[1]) > 0:
            return int(size[1]) << {"": 0, "K": 10, "M": 20, "G": 30}[size[2]]
    return 1 << 20


def _chunk_bytes() -> int:
    """The bytes a chunk's working set may take (CHUNK_BYTES lets tests force many chunks or one)."""
    return CHUNK_BYTES if CHUNK_BYTES is not None else _l2_bytes() * 3 // 4


def _skew(a: np.ndarray) -> np.ndarray:
    return np.array([[0.0, -a[2], a[1]], [a[2], 0.0, -a[0]], [-a[1], a[0], 0.0]])


def _motion(m: np.ndarray, origin: np.ndarray) -> np.ndarray:
    """The 4x4 of a rotation-like term `m` (3x3) applied about `origin`: [[m, -m o], [0, 0]]."""
    t = np.zeros((4, 4))
    t[:3, :3] = m
    t[:3, 3] = -m @ origin
    return t


# A spherical joint's rotation is linear in these products of its unit quaternion (w, x, y, z):
# R = I + sum_k product_k * _QUAT_TERMS[k].
_QUAT_PAIRS = ((1, 1), (2, 2), (3, 3), (1, 2), (1, 3), (2, 3), (0, 1), (0, 2), (0, 3))
_QUAT_TERMS = np.zeros((9, 3, 3))
for _k, _entries in enumerate((
    {(1, 1): -2, (2, 2): -2}, {(0, 0): -2, (2, 2): -2}, {(0, 0): -2, (1, 1): -2},
    {(0, 1): 2, (1, 0): 2}, {(0, 2): 2, (2, 0): 2}, {(1, 2): 2, (2, 1): 2},
    {(1, 2): -2, (2, 1): 2}, {(0, 2): 2, (2, 0): -2}, {(0, 1): -2, (1, 0): 2},
)):
    for (_r, _c), _v in _entries.items():
        _QUAT_TERMS[_k, _r, _c] = _v


def _unit_axis(j: Joint) -> np.ndarray:
    a = np.array(j.axis, dtype=float).reshape(3)
    scale = float(np.max(np.abs(a)))
    if not (np.isfinite(scale) and scale > 0.0):
        raise ModelError(f"joint '{j.name}': its axis {a.tolist()} is no direction")
    b = a / scale  # (scaled first: an axis of 1e308 is a direction, its square is not a double)
    n = float(np.sqrt(b @ b))
    return a if abs(n * scale - 1.0) <= 1e-12 else b / n  # (a loaded model's axes are unit already: kept bit for bit)


def _joint_terms(kin: Kinematics, i: int) -> np.ndarray:
    """parent_H_child of joint i as sum_t coefficient_t(q) * terms[t], coefficient_0 = 1.

    Revolute: 1, cos q, sin q (Rodrigues about the axis through its origin); prismatic: 1, q;
    spherical: 1 and the nine quaternion products; fixed: 1.  Linear in fixed 4x4 matrices, so one
    matrix product of the stacked terms with the coefficients gives every local transform of a batch.
    """
    j = kin.joints[i]
    rest = kin._rest[i]
    if j.type is JointType.REVOLUTE:
        a, o = kin._axis[i], kin._origin[i]
        aa = np.outer(a, a)
        const = _motion(aa, o)
        const[:3, 3] += o
        const[3, 3] = 1.0
        terms = [const, _motion(np.eye(3) - aa, o), _motion(_skew(a), o)]
    elif j.type is JointType.PRISMATIC:
        step = np.zeros((4, 4))
        step[:3, 3] = kin._axis[i]
        terms = [np.eye(4), step]
    elif j.type is JointType.SPHERICAL:
        c = kin._sph_center[int(np.searchsorted(kin._sph, i))]
        terms = [np.eye(4)] + [_motion(e, c) for e in _QUAT_TERMS]
    else:
        terms = [np.eye(4)]
    return rest @ np.array(terms)


class _BatchPlan:
    """Forward kinematics of many configurations: tree level by tree level over the whole batch.

    Link transforms live in a structure-of-arrays buffer (link, row, column, configuration).  One
    product of the joints' constant terms with their coefficients (BLAS, configurations as the long
    axis; a second one for spherical joints) makes every local transform of a chunk, and a level is
    then one einsum of its parents' rows with them.  Parents that are one link, or a run of links,
    are read as a view.  Spherical joints of a level are regrouped after the others, so every group
    is a contiguous block of the buffer.  Additional frames are rigid, so each run of frames on one
    link is a single product written straight into the output (in small chunks, a stretch of frames
    each alone on its link is one stacked product); links are copied into the output at the end.
    Configurations are processed in chunks whose buffer stays in cache.
    """

    def __init__(self, kin: Kinematics) -> None:
        self.kin = kin
        n_rev, n_pri = len(kin._rev), len(kin._pri)
        self.rev_mimic = bool(np.any(kin._rev_gain != 1.0) or np.any(kin._rev_offset))  # else angles are q as given
        # rows of the coefficient table (see coefficients()) for every term of every joint
        rows: dict[int, list[int]] = {i: [0] for i in range(len(kin.joints))}
        for r, i in enumerate(kin._rev):
            rows[int(i)] += [2 + r, 2 + n_rev + r]
        for r, i in enumerate(kin._pri):
            rows[int(i)].append(2 + 2 * n_rev + r)
        for r, i in enumerate(kin._sph):
            rows[int(i)] += list(range(2 + 2 * n_rev + n_pri + 9 * r, 2 + 2 * n_rev + n_pri + 9 * r + 9))
        order = [0]
        blocks = []
        for start, stop, _ in kin._levels:
            # one group per level (spherical joints apart: ten terms each), so a level costs a few calls
            for spherical in (False, True):
                block = [li for li in range(start, stop) if (kin.joints[li - 1].type is JointType.SPHERICAL) == spherical]
                if block:
                    blocks.append(self._group(kin, len(order), block, rows))
                    order += block
        self.slot = np.empty(len(order), dtype=int)  # link index -> row of the buffer
        self.slot[np.array(order)] = np.arange(len(order))
        self.reordered = bool(np.any(self.slot != np.arange(len(order))))
        # the terms and coefficient rows of every moving joint, stacked in buffer order, spherical joints (ten
        # terms) apart from the others (up to three, padded with the zero row): one product each makes all the
        # local transforms of a chunk, where a product per level cost a call per level
        # (groups: buffer rows, parents, the rigid joints' term or None, and which local transforms are theirs)
        parts: dict[bool, tuple[list[np.ndarray], list[np.ndarray]]] = {}
        self.groups = []
        for g0, g1, parents, left, coef in blocks:
            parents = _rows_view(self.slot[parents])
            if coef is None:
                self.groups.append((g0, g1, parents, left, False, None))
                continue
            wide = coef.shape[1] > 3
            terms, coef_rows = parts.setdefault(wide, ([], []))
            pad = 0 if wide else 3 - coef.shape[1]
            first = sum(len(t) for t in terms)
            self.groups.append((g0, g1, parents, None, wide, slice(first, first + g1 - g0)))
            terms.append(np.pad(left, ((0, 0), (0, 0), (0, pad))))
            coef_rows.append(np.pad(coef, ((0, 0), (0, pad)), constant_values=1))
        self.n_local = sum(g1 - g0 for g0, g1, _, left, _, _ in self.groups if left is None)  # moving joints' transforms
        self.motions = {wide: (np.concatenate(terms), np.concatenate(coef_rows))
                        for wide, (terms, coef_rows) in parts.items()}
        runs = []  # (first frame, end frame, buffer row of their link, (16, 16 r) product, rows per BLAS call)
        fp = kin._frame_parent
        k = 0
        while k < len(fp):
            e = k + 1
            while e < len(fp) and fp[e] == fp[k]:
                e += 1
            right = np.zeros((16, 16 * (e - k)))
            for r, offset in enumerate(kin._frame_offset[k:e]):
                for row in range(4):
                    right[4 * row:4 * row + 4, 16 * r + 4 * row:16 * r + 4 * row + 4] = offset
            runs.append((k, e, self.slot[fp[k]], right, max(1, BLAS_ONE_THREAD // right.size)))
            k = e
        # consecutive frames that are each alone on their link (a sensor frame here, a tool frame there)
        # become one stacked product, (frames, configurations, 16) x (frames, 16, 16), for small batches,
        # where the calls cost more than the products (large ones: the gather of their links costs more)
        self.runs, self.merged_runs, self.stacks = runs, [], []
        i = 0
        while i < len(runs):
            j = i
            while j < len(runs) and runs[j][1] - runs[j][0] == 1:
                j += 1
            if j - i >= 2:
                self.stacks.append((runs[i][0], runs[j - 1][1], np.array([r[2] for r in runs[i:j]]),
                                    np.stack([r[3] for r in runs[i:j]])))
                i = j
            else:
                self.merged_runs.append(runs[i])
                i += 1

    @staticmethod
    def _group(kin: Kinematics, first: int, block: list[int], rows: dict[int, list[int]]) -> tuple:
        """Buffer rows, parents (link indices), stacked terms and coefficient rows of one block of links."""
        joints = [li - 1 for li in block]
        t = max(len(rows[i]) for i in joints)
        terms = np.zeros((len(joints), t, 4, 4))
        coef = np.ones((len(joints), t), dtype=int)  # padding terms are zero, times the zero row
        for k, i in enumerate(joints):
            own = _joint_terms(kin, i)
            terms[k, :len(own)] = own
            coef[k, :len(own)] = rows[i]
        parents = np.array([kin.link_index[kin.joints[i].parent] for i in joints])
        if t == 1:  # rigid: the parent times its one term, as a stacked right-multiplication (column x inner index)
            return first, first + len(joints), parents, np.ascontiguousarray(terms.transpose(0, 1, 3, 2)), None
        # moving: (entry of the local transform, term) per link, so one product with the coefficients makes
        # every link's local transforms over the whole batch
        by_entry = np.ascontiguousarray(terms.reshape(len(joints), t, 16).transpose(0, 2, 1))
        return first, first + len(joints), parents, by_entry, coef

    def coefficients(self, q: np.ndarray) -> np.ndarray:
        """The (rows, N) table of term coefficients: 1, 0, cos and sin of every revolute joint, the
        displacement of every prismatic joint, the nine quaternion products of every spherical joint."""
        kin = self.kin
        n_rev, n_pri, n_sph = len(kin._rev), len(kin._pri), len(kin._sph)
        table = np.empty((2 + 2 * n_rev + n_pri + 9 * n_sph, q.shape[0]))
        table[0] = 1.0
        table[1] = 0.0
        rows = q.T  # (one row per coordinate: what is gathered from it comes out contiguous, as cos and sin run fastest)
        if n_rev:
            angle = rows[kin._rev_cols]
            if self.rev_mimic:
                angle = angle * kin._rev_gain[:, None] + kin._rev_offset[:, None]
            np.cos(angle, out=table[2:2 + n_rev])
            np.sin(angle, out=table[2 + n_rev:2 + 2 * n_rev])
        if n_pri:
            np.multiply(rows[kin._pri_cols], kin._pri_gain[:, None], out=table[2 + 2 * n_rev:2 + 2 * n_rev + n_pri])
            table[2 + 2 * n_rev:2 + 2 * n_rev + n_pri] += kin._pri_offset[:, None]
        if n_sph:
            unit, norms = unit_quaternions(q[:, kin._sph_cols])  # (N, S, 4)
            if not np.all(norms > 1e-12):
                raise ModelError("spherical joint positions must be non-zero finite quaternions")
            quat = unit.transpose(1, 2, 0)  # (S, 4, N)
            first, second = zip(*_QUAT_PAIRS)
            products = table[2 + 2 * n_rev + n_pri:].reshape(n_sph, 9, -1)
            np.multiply(quat[:, list(first)], quat[:, list(second)], out=products)
        return table

    def run(self, q: np.ndarray, base_pose: np.ndarray | None, out: np.ndarray | None) -> np.ndarray:
        kin = self.kin
        n, n_links, n_frames = q.shape[0], len(kin.link_names), len(kin.frame_names)
        if out is None:
            out = np.empty((n, n_frames, 4, 4))
        base = IDENTITY if base_pose is None else np.asarray(base_pose, dtype=float)
        if base.shape not in ((4, 4), (n, 4, 4)):
            raise ModelError(f"base_pose must be a 4x4 transform or {n} of them")
        fit = max(1, _chunk_bytes() // (_TRANSFORM_BYTES * (n_links + self.n_local + n_frames)))
        chunks = max(1, min(-(-n // fit), n // MIN_CHUNK))  # as many as the cache asks, none below MIN_CHUNK
        size, longer = divmod(n, chunks)  # chunks of equal size, the first `longer` one configuration longer
        world = None
        start = 0
        for c in range(chunks):
            stop = start + size + (c < longer)
            if world is None or world.shape[-1] != stop - start:  # (the longer chunks first: two buffers at most)
                world = np.empty((n_links, 4, 4, stop - start))
            self._chunk(q[start:stop], base if base.ndim == 2 else base[start:stop], world, out[start:stop])
            start = stop
        return out

    def _chunk(self, q: np.ndarray, base: np.ndarray, world: np.ndarray, out: np.ndarray) -> None:
        n = q.shape[0]
        world[:, 3, :3] = 0.0
        world[:, 3, 3] = 1.0
        world[0, :3] = base[:3, :, None] if base.ndim == 2 else base[:, :3].transpose(1, 2, 0)
        table = self.coefficients(q)
        # every moving joint's local transform over the chunk (its terms weighted by their coefficients), then
        # each level's child rows as their parent rows times them (multiplying the parents by every term and
        # summing those products with the weights made t times the numbers: three per revolute joint, ten
        # per spherical one)
        local = {wide: np.matmul(terms, table[rows]).reshape(len(terms), 4, 4, n)
                 for wide, (terms, rows) in self.motions.items()}
        for g0, g1, parents, left, wide, own in self.groups:
            target = world[g0:g1, :3]
            if left is not None:  # rigid joints: the parents times their one term
                np.matmul(left, world[parents, :3], out=target)
            else:
                np.einsum("grkn,gkcn->grcn", world[parents, :3], local[wide][own], out=target)
        self._write(world, out)

    def _write(self, world: np.ndarray, out: np.ndarray) -> None:
        """Links from the buffer into the output, then every additional frame from its link."""
        n, n_links = out.shape[0], len(self.kin.link_names)
        ordered = world[self.slot] if self.reordered else world
        flat, flat_out = world.reshape(len(world), 16, n), out.reshape(n, -1)  # (views: a reshape per run cost a call)
        flat_out[:, :16 * n_links] = ordered.reshape(16 * n_links, n).T
        runs, stacks = (self.merged_runs, self.stacks) if n < STACKED_BELOW else (self.runs, ())
        for k0, k1, rows, rights in stacks:
            target = out[:, n_links + k0:n_links + k1].reshape(n, k1 - k0, 16).transpose(1, 0, 2)
            np.matmul(flat[rows].transpose(0, 2, 1), rights, out=target)  # n * 16 * 16 < BLAS_ONE_THREAD
        for k0, k1, row, right, step in runs:
            source, target = flat[row].T, flat_out[:, 16 * (n_links + k0):16 * (n_links + k1)]
            if n <= step:
                np.matmul(source, right, out=target)
                continue
            for s in range(0, n, step):
                np.matmul(source[s:s + step], right, out=target[s:s + step])


class JointPoses:
    """parent_H_child of chosen 1-DOF joints as (translation, quaternion) rows, straight from q.

    The ROS layer needs, per joint_states message, only the moving joints' local poses in the
    (x, y, z, qx, qy, qz, qw) form /tf carries.  Going through 4x4 matrices of every joint and
    converting back to quaternions costs a dozen numpy passes; here the joint motion is folded into
    constants once, so a message costs one sin/cos of the half angles and three multiply-adds:

    revolute (axis a through point o of the child frame, angle t, rest pose R, p with quaternion r):
        rotation    r * (cos t/2, a sin t/2) = cos(t/2) Q + sin(t/2) P
        translation p + R (o - Rot(a, t) o) = A + cos t B + sin t C   (Rodrigues)
    prismatic (direction d in the parent frame, displacement s): rotation r, translation p + s d.
    Mimic joints read their master's column with its gain and offset, as in Kinematics.
    """

    def __init__(self, kin: Kinematics, joints: np.ndarray) -> None:
        from .transforms import matrix_to_quat

        joints = np.asarray(joints, dtype=int)
        kinds = [kin.joints[i].type for i in joints]
        if any(k not in (JointType.REVOLUTE, JointType.PRISMATIC) for k in kinds):
            raise ModelError("JointPoses handles revolute and prismatic joints only")
        rest = kin._rest[joints]
        quat = matrix_to_quat(rest[:, :3, :3])[:, [1, 2, 3, 0]]  # x, y, z, w
        self.size = len(joints)
        self._out = np.empty((self.size, 7))
        self._out[:, :3] = rest[:, :3, 3]
        self._out[:, 3:] = quat  # prismatic rows keep their rest rotation

        def rows(kind_idx: np.ndarray, kind_cols: np.ndarray, gain: np.ndarray, offset: np.ndarray):
            where = {int(j): k for k, j in enumerate(kind_idx)}
            pick = [where[int(j)] for j in joints if int(j) in where]
            out_rows = np.array([k for k, j in enumerate(joints) if int(j) in where], dtype=int)
            return out_rows, kind_cols[pick], gain[pick], offset[pick], pick

        self._rev, self._rev_cols, self._rev_gain, self._rev_offset, pick = rows(
            kin._rev, kin._rev_cols, kin._rev_gain, kin._rev_offset)
        a, o = kin._rev_axis[pick], kin._rev_origin[pick]
        r = rest[self._rev][:, :3, :3]
        q = quat[self._rev]
        w, v = q[:, 3], q[:, :3]
        # r * (0, a) = (w a + v x a, -v . a)
        self._rev_p = np.concatenate([w[:, None] * a + np.cross(v, a), -np.einsum("ki,ki->k", v, a)[:, None]], axis=1)
        self._rev_q = q
        u = np.einsum("kij,kj->ki", r, o)
        vv = np.einsum("kij,kj->ki", r, np.cross(a, o))
        ww = np.einsum("kij,kj->ki", r, a) * np.einsum("ki,ki->k", a, o)[:, None]
        self._rev_a = rest[self._rev][:, :3, 3] + u - ww
        self._rev_b = ww - u
        self._rev_c = -vv
        self._pri, self._pri_cols, self._pri_gain, self._pri_offset, pick = rows(
            kin._pri, kin._pri_cols, kin._pri_gain, kin._pri_offset)
        self._pri_dir = kin._pri_dir[pick]
        self._pri_base = rest[self._pri][:, :3, 3]
        # rows of one kind that are contiguous (callers list revolute joints first) index as slices
        self._rev, self._pri = _as_slice(self._rev), _as_slice(self._pri)
        self._rev_plain = bool(np.all(self._rev_gain == 1.0) and not np.any(self._rev_offset))  # no mimic
        self._n_rev, self._n_pri = len(self._rev_cols), len(self._pri_cols)
        # Positions up to this magnitude cannot overflow in compute(): with every constant below 1e300 and
        # |q * gain| below 1e300, each angle, quaternion and translation is a sum of a few terms below
        # ~3e300.  A caller that checks |q| against it needs no overflow check of the result (0: always check).
        constants = np.concatenate([np.abs(c).ravel() for c in (
            self._rev_a, self._rev_b, self._rev_c, self._rev_offset, self._pri_base, self._pri_dir, self._pri_offset)])
        gains = np.abs(np.concatenate([self._rev_gain, self._pri_gain]))
        self.finite_below = (1e300 / max(1.0, float(gains.max(initial=0.0)))
                             if constants.max(initial=0.0) <= 1e300 and np.isfinite(gains).all() else 0.0)

    def compute(self, q: np.ndarray) -> np.ndarray:
        """(size, 7) rows for the positions vector q (nq,); the array is reused by the next call."""
        out = self._out
        if self._n_rev:
            angle = q[self._rev_cols]
            if not self._rev_plain:
                angle = angle * self._rev_gain + self._rev_offset
            half = 0.5 * angle
            s, c = np.sin(half), np.cos(half)
            quat = s[:, None] * self._rev_p + c[:, None] * self._rev_q
            quat[quat[:, 3] < 0.0] *= -1.0  # the same sign as matrix_to_quat: w >= 0
            cos_t, sin_t = (1.0 - 2.0 * s * s)[:, None], (2.0 * s * c)[:, None]
            out[self._rev, :3] = self._rev_a + cos_t * self._rev_b + sin_t * self._rev_c
            out[self._rev, 3:] = quat
        if self._n_pri:
            d = q[self._pri_cols] * self._pri_gain + self._pri_offset
            out[self._pri, :3] = self._pri_base + d[:, None] * self._pri_dir
        return out


def _rows_view(rows: np.ndarray) -> np.ndarray | slice:
    """A level's parent rows of the buffer as a slice where they allow one (a run of rows, or one row that the
    products broadcast to all its children), so that reading them copies nothing."""
    if len(rows) and np.all(rows == rows[0]):
        return slice(int(rows[0]), int(rows[0]) + 1)
    return _as_slice(rows)


def _as_slice(rows: np.ndarray) -> np.ndarray | slice:
    if len(rows) and np.array_equal(rows, np.arange(rows[0], rows[0] + len(rows))):
        return slice(int(rows[0]), int(rows[0]) + len(rows))
    return rows
