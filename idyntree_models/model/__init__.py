"""The pure multibody model: data, validation, transformations and kinematics (no I/O, no ROS)."""

from .kinematics import Kinematics, forward_kinematics
from .model import (
    Box,
    Capsule,
    Cone,
    Cylinder,
    Dynamics,
    Ellipsoid,
    Extension,
    ForceTorqueSensor,
    Frame,
    FrameJoint,
    Inertia,
    Joint,
    JointType,
    Limits,
    Link,
    LinkSensor,
    Material,
    Mesh,
    Mimic,
    Model,
    Sensor,
    SensorType,
    Shape,
    Sphere,
)
from .spherical import add_sensor_frames, fold_three_revolute_joints, unfold_spherical_joints
from .topology import tree_order
from .validation import validate

__all__ = [
    "Box", "Capsule", "Cone", "Cylinder", "Dynamics", "Ellipsoid", "Extension", "ForceTorqueSensor", "Frame", "FrameJoint",
    "Inertia",
    "Joint", "JointType", "Kinematics", "Limits", "Link", "LinkSensor", "Material", "Mesh", "Mimic", "Model",
    "Sensor", "SensorType", "Shape", "Sphere", "add_sensor_frames", "fold_three_revolute_joints",
    "forward_kinematics", "tree_order", "unfold_spherical_joints", "validate",
]
