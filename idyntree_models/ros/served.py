"""A loaded model prepared for serving: its static frames, sensors and joint_states plans.

Everything that depends only on the model is computed once here, when a description is
accepted, so that a bad description is rejected before anything is published, and a good one is
swapped in as one object (the node never mixes frames of two models).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

import numpy as np

from ..errors import ModelError
from ..formats import detect_format
from ..formats.urdf_export import urdf_form
from ..model.kinematics import JointPoses, Kinematics
from ..model.model import ForceTorqueSensor, JointType, LinkSensor, Model, SensorType
from ..model.topology import frame_edge, root_frame, tree_order
from .tf_codec import TFTemplate, transforms_to_xyz_xyzw


@dataclass
class StaticFrame:
    parent: str
    child: str
    transform: np.ndarray


@dataclass
class SensorInfo:
    """What the robot_sensors topic says about one sensor (frame names without prefix)."""

    name: str
    type: str
    frame: str
    parent_link: str = ""
    pose: np.ndarray = field(default_factory=lambda: np.eye(4))  # in parent_link, or in second_link for F/T
    parent_joint: str = ""
    first_link: str = ""
    second_link: str = ""
    applied_wrench_link: str = ""
    measure_direction: str = ""
    frame_option: str = ""


@dataclass
class JointStatePlan:
    """How to turn a joint_states message with a given name list into one /tf message.

    Built once per distinct name list (publishers send the same list every time), so the
    per-message work is one gather of positions into the kinematics' position vector, one
    kinematics call and a buffer patch.
    """

    scalar: list[tuple[str, int]]  # (joint name, index in the message) of 1-DOF joints
    published: np.ndarray  # indices into Kinematics.joints, in publishing order
    template: TFTemplate | None
    pairs: list[tuple[str, str]]
    q_cols: np.ndarray  # columns of the positions vector the scalar joints set ...
    msg_index: np.ndarray  # ... from these entries of the message
    poses: JointPoses | None = None  # the published joints' poses straight from q


class ServedModel:
    """One accepted model with everything the node publishes about it."""

    def __init__(self, model: Model, text: str, fmt: str, prefix: str = "", warnings: list[str] | None = None,
                 source_text: str | None = None):
        self.model = model
        self.text = text  # the description as given, or its reduction (served by get_model with an empty format)
        self.source_text = text if source_text is None else source_text  # before any reduction
        self.format = fmt
        self.prefix = prefix
        self.warnings = list(warnings or [])
        # The frames follow the published robot_description's tree, as the URDF export writes it (urdf_form): each
        # spherical joint as three revolutes through massless links, a joint axis off its child's origin through an
        # `_axis_offset` link, SDF's joint to the world as a `world` link.  /tf publishes those edges too, else RViz
        # finds no transform for those links (and a joint_states naming one of three revolutes would reset the others).
        self.tree = urdf_form(model)
        self.kin = Kinematics(self.tree)  # raises ModelError for models it cannot move (e.g. bad mimic)
        self.root_frame = root_frame(self.tree)  # a frame above the root link (`world`), or None
        self.root = self.root_frame or tree_order(model).root  # the TF root: the description's root link
        self.static_frames = self._static_frames()
        self.sensors = self._sensors()
        self._plans: dict[tuple[str, ...], JointStatePlan] = {}
        self.fast_serialization = True
        self._pairs = [(prefix + j.parent, prefix + j.child) for j in self.kin.joints]
        self._mimics: dict[str, list[int]] = {}
        for i, j in enumerate(self.kin.joints):
            if j.mimic is not None:
                self._mimics.setdefault(j.mimic.joint, []).append(i)
        self.last_publish = np.full(len(self.kin.joints), -np.inf)
        self._q0 = self.kin.positions({})[0]  # the zero configuration's positions vector

    # -- static content -----------------------------------------------------------------
    def _static_frames(self) -> list[StaticFrame]:
        """Fixed joints and additional frames, each edge in the description's direction.

        A frame that was a massless root link above the base (URDF `world --fixed--> base_link`)
        is published as the parent, as robot_state_publisher does: the TF root is the description's
        root, so another publisher of `world` (a map, a second robot) does not give it two parents.
        """
        out = [StaticFrame(j.parent, j.child, j.rest_transform) for j in self.kin.joints if j.type is JointType.FIXED]
        out += [StaticFrame(*frame_edge(self.tree, name, self.root_frame)) for name in self.tree.frames]
        return out

    def _sensors(self) -> list[SensorInfo]:
        m = self.tree  # the sensors as the description has them (on an axis offset's link, say), by the names /tf has
        taken = set(m.links) | set(m.frames)
        infos = []
        for s in m.sensors.values():
            link, pose = s.frame_link, s.frame_transform
            frame = s.name
            existing = m.frames.get(s.name)
            same = existing is not None and existing.parent_link == link and np.allclose(
                existing.link_H_frame, pose, rtol=0.0, atol=1e-12)
            if not same:
                if s.name in taken:  # the name is a link or another frame: publish under a free name
                    frame = f"{s.name}_sensor_frame"
                    k = 2
                    while frame in taken:
                        frame, k = f"{s.name}_sensor_frame{k}", k + 1
                    self.warnings.append(f"sensor '{s.name}': its name is already a frame elsewhere; "
                                         f"its frame is published as '{frame}'")
                taken.add(frame)
                self.static_frames.append(StaticFrame(link, frame, pose))
            if isinstance(s, ForceTorqueSensor):
                infos.append(SensorInfo(
                    s.name, SensorType.FORCE_TORQUE.value, frame, "", pose, s.parent_joint, s.first_link,
                    s.second_link, s.applied_wrench_link, s.measure_direction, s.frame))
            else:
                kind = s.type.value
                if isinstance(s, LinkSensor) and s.sensor_type is SensorType.OTHER and s.subtype:
                    kind = s.subtype
                infos.append(SensorInfo(s.name, kind, frame, link, pose))
        return infos

    def static_message(self, stamp):
        """The one TFMessage for /tf_static: fixed joints, additional frames, sensor frames."""
        from .tf_codec import make_tf_message

        pairs = [(self.prefix + f.parent, self.prefix + f.child) for f in self.static_frames]
        values = transforms_to_xyz_xyzw(np.array([f.transform for f in self.static_frames]).reshape(-1, 4, 4))
        return make_tf_message(pairs, stamp.sec, stamp.nanosec, values)

    def sensor_message(self, stamp):
        from idyntree_models_interfaces.msg import Sensor, SensorList

        msg = SensorList()
        msg.header.stamp = stamp
        msg.header.frame_id = self.prefix + self.root
        out = []
        for info in self.sensors:
            s = Sensor()
            s.name, s.type, s.frame_id = info.name, info.type, self.prefix + info.frame
            s.parent_link, s.parent_joint = info.parent_link, info.parent_joint
            s.first_link, s.second_link = info.first_link, info.second_link
            s.applied_wrench_link, s.measure_direction, s.frame_option = (
                info.applied_wrench_link, info.measure_direction, info.frame_option)
            v = transforms_to_xyz_xyzw(info.pose[None])[0]
            s.pose.position.x, s.pose.position.y, s.pose.position.z = float(v[0]), float(v[1]), float(v[2])
            o = s.pose.orientation
            o.x, o.y, o.z, o.w = float(v[3]), float(v[4]), float(v[5]), float(v[6])
            out.append(s)
        msg.sensors = out
        return msg

    # -- joint_states -> /tf ------------------------------------------------------------
    def plan(self, names: tuple[str, ...]) -> JointStatePlan:
        plan = self._plans.get(names)
        if plan is None:
            if len(self._plans) > 64:  # a publisher that changes its name list all the time
                self._plans.clear()
            plan = self._plans[names] = self._make_plan(names)
        return plan

    def _make_plan(self, names: tuple[str, ...]) -> JointStatePlan:
        index = self.kin.joint_index
        joints = self.kin.joints
        scalar: list[tuple[str, int]] = []
        published: list[int] = []
        seen: set[int] = set()

        def publish(i: int) -> None:
            if i not in seen:
                seen.add(i)
                published.append(i)

        for k, name in enumerate(names):
            i = index.get(name)
            if i is not None:
                j = joints[i]
                if j.dofs == 1 and j.mimic is None and i not in seen:  # (a name given twice: the first, as rsp)
                    scalar.append((name, k))
                    publish(i)
                    for mi in self._mimics.get(name, ()):
                        publish(mi)
        kind = {JointType.REVOLUTE: 0, JointType.PRISMATIC: 1}
        published.sort(key=lambda i: kind.get(joints[i].type, 2))  # contiguous blocks for JointPoses
        pairs = [self._pairs[i] for i in published]
        template = None
        if self.fast_serialization and published:
            template = TFTemplate(pairs)
            if not template.verify():
                self.fast_serialization = False
                template = None
        cols = self.kin.position_index
        published_arr = np.array(published, dtype=int)
        poses = JointPoses(self.kin, published_arr) if published else None
        return JointStatePlan(scalar, published_arr, template, pairs,
                              np.array([cols[n] for n, _ in scalar], dtype=int),
                              np.array([k for _, k in scalar], dtype=int), poses)

    def transforms(self, plan: JointStatePlan, positions) -> np.ndarray:
        """(n, 7) poses of the plan's joints for the message's positions (a sequence or float array)."""
        positions = np.asarray(positions, dtype=float)
        values = positions[plan.msg_index]
        if np.abs(values).max(initial=0.0) <= plan.poses.finite_below:  # (a plan publishing nothing is not used)
            q = self._q0.copy()  # the common case: positions that cannot overflow (NaN fails the test too)
            q[plan.q_cols] = values
            return plan.poses.compute(q)
        if not np.isfinite(values).all():
            # a NaN would reach /tf as a NaN transform, which breaks every tf2 listener's tree
            bad = sorted(name for name, k in plan.scalar if not math.isfinite(positions[k]))
            raise ModelError(f"non-finite position for joint(s) {', '.join(bad[:5])}")
        q = self._q0.copy()
        q[plan.q_cols] = values
        with np.errstate(all="ignore"):  # an overflow is refused below, with the joints named
            poses = plan.poses.compute(q)
        if not np.isfinite(poses).all():
            # finite positions can still overflow: a mimic multiplier of 1e308, a prismatic joint at 1e308
            # on top of its origin; a NaN or inf pose must not reach /tf either
            bad = [self.kin.joints[i].name for i, row in zip(plan.published, poses) if not np.isfinite(row).all()]
            raise ModelError(f"the positions give joint(s) {', '.join(bad[:5])} a non-finite pose")
        return poses


_FRAME_PREFIX = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_./-]*")


def check_frame_prefix(prefix: str) -> str:
    """A prefix that makes valid tf2 frame ids: tf2 refuses ids starting with '/' and ids with spaces."""
    if prefix and (not _FRAME_PREFIX.fullmatch(prefix) or "//" in prefix):
        raise ModelError(f"frame_prefix {prefix!r} does not make valid TF frame ids: use letters, digits, '_', "
                         "'.', '-' and '/' separators, not starting with '/' (e.g. 'robot1/')")
    return prefix


def describe_format(text: str) -> str:
    """Format name of a description given as text (for logs and get_model)."""
    return detect_format(text).name
