"""The pure multibody model: data, validation, transformations and kinematics (no I/O, no ROS).

Names are imported from their modules on first use (PEP 562): loading a model never pays for
kinematics or reduction.
"""

from __future__ import annotations

from .._lazy import lazy_exports

_LAZY = {
    **dict.fromkeys(
        ("Box", "Capsule", "Cone", "Cylinder", "Dynamics", "Ellipsoid", "Extension", "ForceTorqueSensor", "Frame",
         "FrameJoint", "Inertia", "Joint", "JointType", "Limits", "Link", "LinkSensor", "Material", "Mesh", "Mimic",
         "Model", "Sensor", "SensorType", "Shape", "Sphere"),
        ".model",
    ),
    "Kinematics": ".kinematics",
    "forward_kinematics": ".kinematics",
    "add_sensor_frames": ".spherical",
    "fold_three_revolute_joints": ".spherical",
    "unfold_spherical_joints": ".spherical",
    "tree_order": ".topology",
    "validate": ".validation",
}

__all__ = sorted(_LAZY)

__getattr__, __dir__ = lazy_exports(__name__, _LAZY)
