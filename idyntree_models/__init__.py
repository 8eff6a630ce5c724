"""Robot model I/O: URDF (with iDynTree's extensions), SDFormat, iDynTree model JSON and DART SKEL.

    from idyntree_models import load_model, export_model
    model = load_model("robot.urdf")
    text = export_model(model, "idyntree-model-json")
"""

from .api import convert, export_model, load_model, save_model
from .errors import ModelError
from .formats import FORMATS
from .model import Kinematics, Model
from .model.reduce import reduce

__all__ = ["FORMATS", "Kinematics", "Model", "ModelError", "convert", "export_model", "load_model", "reduce",
           "save_model"]
__version__ = "0.1.0"
