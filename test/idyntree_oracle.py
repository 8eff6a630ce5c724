"""What the iDynTree wheel (the C++ reference) makes of a model, as plain numpy data.

Kept apart from the tests so every comparison (import, export, ROS transforms) asks the
reference the same way.  Compare by name: iDynTree orders links and joints its own way.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import idyntree.swig as idt
import numpy as np


def _t(transform) -> np.ndarray:
    return np.array(transform.asHomogeneousTransform().toNumPy())


def _link_sensor_transform(ft, link_index) -> np.ndarray:
    t = idt.Transform()
    if not ft.getLinkSensorTransform(link_index, t):
        raise RuntimeError("iDynTree has no transform for that link")
    return _t(t)


@dataclass
class Reference:
    links: dict[str, dict] = field(default_factory=dict)
    frames: dict[str, str] = field(default_factory=dict)  # additional frame -> parent link
    frame_transforms: dict[str, np.ndarray] = field(default_factory=dict)  # additional frame -> link_H_frame
    joints: dict[str, dict] = field(default_factory=dict)
    sensors: dict[str, dict] = field(default_factory=dict)
    base: str = ""
    model: object = None
    kindyn: object = None


def load(text: str, *, fold: bool = False, sensor_frames: bool = True) -> Reference:
    loader = idt.ModelLoader()
    opts = loader.parsingOptions()
    opts.addSensorFramesAsAdditionalFrames = sensor_frames
    opts.convertThreeRevoluteJointsToSphericalJoint = fold
    loader.setParsingOptions(opts)
    if not loader.loadModelFromString(text):
        raise RuntimeError("iDynTree failed to load the model")
    return from_loader(loader)


def reduced(text: str, keep: list[str], locked: dict[str, float] | None = None) -> Reference:
    """iDynTree's reduced model (ModelLoader.loadReducedModelFromFullModel) of a URDF text."""
    full = idt.ModelLoader()
    if not full.loadModelFromString(text):
        raise RuntimeError("iDynTree failed to load the model")
    loader = idt.ModelLoader()
    if not loader.loadReducedModelFromFullModel(full.model(), list(keep), dict(locked or {})):
        raise RuntimeError("iDynTree failed to reduce the model")
    return from_loader(loader)


def from_loader(loader) -> Reference:
    """Everything the comparisons need from a loader holding a model."""
    model = loader.model().copy()
    ref = Reference(model=model)
    ref.base = model.getLinkName(model.getDefaultBaseLink())
    for i in range(model.getNrOfLinks()):
        link = model.getLink(i)
        inertia = link.getInertia()
        mass = inertia.getMass()
        rot_inertia = inertia.getRotationalInertiaWrtFrameOrigin()  # keep the temporary alive: toNumPy is a view
        i_origin = np.array(rot_inertia.toNumPy(), copy=True)
        if mass > 0:  # iDynTree's COM of a massless link is undefined (uninitialised memory)
            com_vector = inertia.getCenterOfMass()
            com = np.array(com_vector.toNumPy(), copy=True)
            i_com = i_origin - mass * (com @ com * np.eye(3) - np.outer(com, com))
        else:
            com, i_com = np.zeros(3), i_origin
        ref.links[model.getLinkName(i)] = {"mass": mass, "com": com, "inertia": i_com}
    for f in range(model.getNrOfLinks(), model.getNrOfFrames()):
        ref.frames[model.getFrameName(f)] = model.getLinkName(model.getFrameLink(f))
        ref.frame_transforms[model.getFrameName(f)] = _t(model.getFrameTransform(f))
    for j in range(model.getNrOfJoints()):
        joint = model.getJoint(j)
        if joint.isFixedJoint():
            kind = "fixed"
        elif joint.isRevoluteJoint():
            kind = "revolute"
        elif joint.isPrismaticJoint():
            kind = "prismatic"
        elif joint.isSphericalJoint():
            kind = "spherical"
        else:
            kind = "other"
        first, second = joint.getFirstAttachedLink(), joint.getSecondAttachedLink()
        ref.joints[model.getJointName(j)] = {
            "type": kind,
            "links": {model.getLinkName(first), model.getLinkName(second)},
            "dofs": joint.getNrOfDOFs(),
            "index": j,
        }
    sensors = loader.sensors()
    for stype, name in ((idt.SIX_AXIS_FORCE_TORQUE, "force_torque"), (idt.ACCELEROMETER, "accelerometer"),
                        (idt.GYROSCOPE, "gyroscope")):
        for k in range(sensors.getNrOfSensors(stype)):
            if stype == idt.SIX_AXIS_FORCE_TORQUE:
                s = ft = sensors.getSixAxisForceTorqueSensor(k)
                first, second = ft.getFirstLinkName(), ft.getSecondLinkName()
                ref.sensors[s.getName()] = {
                    "type": name,
                    "parent_joint": ft.getParentJoint(),
                    "first_link": first,
                    "second_link": second,
                    "applied_wrench_link": model.getLinkName(ft.getAppliedWrenchLink()),
                    "first_link_H_sensor": _link_sensor_transform(ft, ft.getFirstLinkIndex()),
                    "second_link_H_sensor": _link_sensor_transform(ft, ft.getSecondLinkIndex()),
                }
            else:
                s = (sensors.getAccelerometerSensor if stype == idt.ACCELEROMETER else sensors.getGyroscopeSensor)(k)
                ref.sensors[s.getName()] = {
                    "type": name,
                    "parent_link": s.getParentLink(),
                    "link_H_sensor": _t(s.getLinkSensorTransform()),
                }
    kd = idt.KinDynComputations()
    kd.loadRobotModel(model)
    ref.kindyn = kd
    return ref


def world_transforms(ref: Reference, config: dict[str, object]) -> dict[str, np.ndarray]:
    """World transform of every frame for a configuration by joint name (base at identity)."""
    model = ref.model
    kd = ref.kindyn
    n_pos = model.getNrOfPosCoords()
    s = np.zeros(n_pos)
    for j in range(model.getNrOfJoints()):
        joint = model.getJoint(j)
        if joint.isSphericalJoint():
            s[joint.getPosCoordsOffset(): joint.getPosCoordsOffset() + 4] = [1.0, 0.0, 0.0, 0.0]
    for name, value in config.items():
        j = model.getJointIndex(name)
        joint = model.getJoint(j)
        off = joint.getPosCoordsOffset()
        v = np.atleast_1d(np.asarray(value, dtype=float))
        s[off: off + len(v)] = v
    world_H_base = idt.Transform.Identity()
    ok = kd.setRobotState(world_H_base, idt.VectorDynSize.FromPython(s),
                          idt.Twist.Zero(), idt.VectorDynSize(model.getNrOfDOFs()), idt.Vector3.FromPython([0, 0, -9.81]))
    if not ok:
        raise RuntimeError("iDynTree refused the state")
    return {model.getFrameName(f): _t(kd.getWorldTransform(f)) for f in range(model.getNrOfFrames())}
