"""Robot model I/O: URDF (with iDynTree's extensions), SDFormat, iDynTree model JSON and DART SKEL.

    from idyntree_models import load_model, export_model
    model = load_model("robot.urdf")
    text = export_model(model, "idyntree-model-json")

The names below are imported on first use (PEP 562), so `idyntree-model-convert` loads only the
modules a conversion needs (no kinematics, no reduction) and starts near the interpreter's floor.
"""

from __future__ import annotations

from ._lazy import lazy_exports
from .errors import ModelError

_LAZY = {
    "FORMATS": ".formats",
    "Kinematics": ".model.kinematics",
    "Model": ".model.model",
    "convert": ".api",
    "export_model": ".api",
    "load_model": ".api",
    "reduce": ".model.reduce",
    "save_model": ".api",
}

__all__ = ["FORMATS", "Kinematics", "Model", "ModelError", "convert", "export_model", "load_model", "reduce",
           "save_model"]
__version__ = "0.1.0"

__getattr__, __dir__ = lazy_exports(__name__, _LAZY)
