"""Forward kinematics of every link and frame, for one configuration or many at once.

The tree is processed level by level, so a configuration costs a few batched numpy products
instead of one small product per link: the same code serves a single configuration (N = 1) and
thousands of them.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ..errors import ModelError
from .model import Joint, JointType, Model
from .topology import tree_order
from .transforms import axis_angle_to_matrix, quat_to_matrix


class Kinematics:
    """Precompiled forward kinematics of a model.

    Positions are given by joint name: a float for 1-DOF joints, a unit quaternion (w, x, y, z)
    for spherical joints; batched, an array of shape (N,) or (N, 4).  Joints left out are at
    zero (identity rotation); mimic joints follow their master.
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

        def select(kind: JointType) -> np.ndarray:
            return np.array([i for i, j in enumerate(self.joints) if j.type is kind and j.mimic is None], dtype=int)

        self._rev = select(JointType.REVOLUTE)
        self._pri = select(JointType.PRISMATIC)
        self._sph = select(JointType.SPHERICAL)
        self._mimic = [i for i, j in enumerate(self.joints) if j.mimic is not None]
        for i in self._mimic:
            j = self.joints[i]
            master = model.joints.get(j.mimic.joint)
            if master is None or master.dofs != 1 or j.dofs != 1:
                raise ModelError(f"joint '{j.name}' mimics '{j.mimic.joint}', which is not a 1-DOF joint")
        self._rev_axis = np.array([self.joints[i].axis for i in self._rev]).reshape(-1, 3)
        self._rev_origin = np.array([self.joints[i].axis_origin for i in self._rev]).reshape(-1, 3)
        self._pri_axis = np.array([self.joints[i].axis for i in self._pri]).reshape(-1, 3)
        centers = []
        for i in self._sph:
            j = self.joints[i]
            r, p = j.rest_transform[:3, :3], j.rest_transform[:3, 3]
            centers.append(r.T @ (j.center - p))  # centre in the child's rest frame
        self._sph_center = np.array(centers).reshape(-1, 3)
        # level schedule: for each depth, (child link idx, parent link idx, joint idx)
        levels: dict[int, list[tuple[int, int, int]]] = {}
        for ji, j in enumerate(self.joints):
            levels.setdefault(tree.depth[j.child], []).append((self.link_index[j.child], self.link_index[j.parent], ji))
        self._levels = [tuple(np.array(c) for c in zip(*levels[d])) for d in sorted(levels)]
        frames = list(model.frames.values())
        self.frame_names = self.link_names + [f.name for f in frames]
        self.frame_index = {n: i for i, n in enumerate(self.frame_names)}
        self._frame_parent = np.array([self.link_index[f.parent_link] for f in frames], dtype=int)
        self._frame_offset = np.array([f.link_H_frame for f in frames]).reshape(-1, 4, 4)
        # coordinates of the independent joints, for array input
        self.position_names = [j.name for j in self.joints if j.dofs and j.mimic is None]

    # -- configuration handling -----------------------------------------------------------
    def _batch(self, config: Mapping[str, object] | None) -> tuple[int, dict[str, np.ndarray]]:
        n = None
        values: dict[str, np.ndarray] = {}
        for name, value in (config or {}).items():
            if name not in self.joint_index:
                if name in self.model.joints:
                    continue  # a fixed joint outside the traversal cannot happen; ignore
                raise ModelError(f"unknown joint '{name}' in the configuration")
            joint = self.joints[self.joint_index[name]]
            a = np.asarray(value, dtype=float)
            if joint.type is JointType.SPHERICAL:
                if a.shape[-1:] != (4,):
                    raise ModelError(f"spherical joint '{name}' takes a quaternion (w, x, y, z)")
                a = a.reshape(-1, 4)
            else:
                a = a.reshape(-1)
            if a.shape[0] != 1:
                if n is not None and a.shape[0] != n:
                    raise ModelError(f"joint '{name}': batch size {a.shape[0]} differs from {n}")
                n = a.shape[0]
            values[name] = a
        return (n or 1), values

    def _scalar(self, values: dict[str, np.ndarray], idx: np.ndarray, n: int) -> np.ndarray:
        q = np.zeros((n, len(idx)))
        for k, i in enumerate(idx):
            v = values.get(self.joints[i].name)
            if v is not None:
                q[:, k] = v
        return q

    # -- core -----------------------------------------------------------------------------
    def joint_transforms(self, config: Mapping[str, object] | None = None) -> np.ndarray:
        """parent_H_child of every traversed joint: array (N, n_joints, 4, 4)."""
        n, values = self._batch(config)
        local = np.broadcast_to(self._rest, (n,) + self._rest.shape).copy()
        if len(self._rev):
            q = self._scalar(values, self._rev, n)
            rot = axis_angle_to_matrix(self._rev_axis, q)  # (n, nr, 3, 3)
            m = np.zeros((n, len(self._rev), 4, 4))
            m[..., :3, :3] = rot
            m[..., :3, 3] = self._rev_origin - np.einsum("...ij,...j->...i", rot, self._rev_origin)
            m[..., 3, 3] = 1.0
            local[:, self._rev] = self._rest[self._rev] @ m
        if len(self._pri):
            q = self._scalar(values, self._pri, n)
            offset = np.einsum("...ij,...j->...i", self._rest[self._pri][:, :3, :3], self._pri_axis)
            moved = local[:, self._pri]  # a copy: advanced indexing
            moved[..., :3, 3] += q[..., None] * offset
            local[:, self._pri] = moved
        if len(self._sph):
            quat = np.tile(np.array([1.0, 0.0, 0.0, 0.0]), (n, len(self._sph), 1))
            for k, i in enumerate(self._sph):
                v = values.get(self.joints[i].name)
                if v is not None:
                    quat[:, k] = v
            norms = np.linalg.norm(quat, axis=-1)
            if np.any(norms < 1e-12) or not np.all(np.isfinite(norms)):
                raise ModelError("spherical joint positions must be non-zero finite quaternions")
            rot = quat_to_matrix(quat)
            c = self._sph_center
            m = np.zeros((n, len(self._sph), 4, 4))
            m[..., :3, :3] = rot
            m[..., :3, 3] = c - np.einsum("...ij,...j->...i", rot, c)
            m[..., 3, 3] = 1.0
            local[:, self._sph] = self._rest[self._sph] @ m
        for i in self._mimic:
            j = self.joints[i]
            master = values.get(j.mimic.joint, np.zeros(1))
            sub = Kinematics._one_dof(j, j.mimic.multiplier * master + j.mimic.offset)
            local[:, i] = sub
        return local

    @staticmethod
    def _one_dof(joint: Joint, q: np.ndarray) -> np.ndarray:
        q = np.asarray(q, dtype=float).reshape(-1)
        m = np.tile(np.eye(4), (len(q), 1, 1))
        if joint.type is JointType.REVOLUTE:
            rot = axis_angle_to_matrix(joint.axis, q)
            m[:, :3, :3] = rot
            m[:, :3, 3] = joint.axis_origin - rot @ joint.axis_origin
        elif joint.type is JointType.PRISMATIC:
            m[:, :3, 3] = q[:, None] * joint.axis
        return joint.rest_transform @ m

    def compute(self, config: Mapping[str, object] | None = None, base_pose: np.ndarray | None = None) -> np.ndarray:
        """World transforms of all frames (links first, then additional frames): (N, F, 4, 4)."""
        local = self.joint_transforms(config)
        n = local.shape[0]
        world = np.empty((n, len(self.link_names), 4, 4))
        world[:, 0] = np.eye(4) if base_pose is None else base_pose
        for child, parent, joint in self._levels:
            world[:, child] = world[:, parent] @ local[:, joint]
        if len(self._frame_parent):
            frames = world[:, self._frame_parent] @ self._frame_offset
            world = np.concatenate([world, frames], axis=1)
        return world

    def world_transforms(self, config: Mapping[str, object] | None = None, base_pose=None) -> dict[str, np.ndarray]:
        """World transform of every link and frame by name, for one configuration."""
        world = self.compute(config, base_pose)
        if world.shape[0] != 1:
            raise ModelError("world_transforms takes one configuration; use compute() for a batch")
        return dict(zip(self.frame_names, world[0]))


def forward_kinematics(model: Model, config: Mapping[str, object] | None = None) -> dict[str, np.ndarray]:
    return Kinematics(model).world_transforms(config)
