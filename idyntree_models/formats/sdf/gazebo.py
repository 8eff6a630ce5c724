"""URDF `<gazebo>` extensions written as SDF, as libsdformat's URDF reader (`ign sdf -p`) does."""

from __future__ import annotations

from lxml import etree

from ...model.model import Model
from ..base import Diagnostics


def apply_gazebo_extensions(model: Model, m: etree._Element, links: dict[str, etree._Element],
                            joints: dict[str, etree._Element], diag: Diagnostics) -> None:
    return None
