"""The kinematic tree as a Graphviz DOT document: links, joints, additional frames and sensors.

Written by hand (no graphviz Python package needed): links are boxes, joints are edges labelled with
their name, type and axis, additional frames are dashed ellipses hanging from their link, and
sensors are diamonds attached to their link (force/torque sensors to the child link of their joint,
with the joint named on the edge).  Node identifiers carry the kind (`link:`, `frame:`, `sensor:`)
so that a frame and a sensor of the same name stay two nodes.
"""

from __future__ import annotations

from .model import ForceTorqueSensor, LinkSensor, Model
from .topology import tree_order


def _q(text: str) -> str:
    """A DOT double-quoted string (the only escapes DOT knows are \\" and a trailing backslash)."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _num(x: float) -> str:
    return f"{float(x):.6g}"


def to_dot(model: Model) -> str:
    """The DOT text of the model's tree (see the module docstring)."""
    tree = tree_order(model)
    lines = [
        f"digraph {_q(model.name)} {{",
        "  rankdir=TB;",
        '  node [fontname="Helvetica", fontsize=11];',
        '  edge [fontname="Helvetica", fontsize=9];',
    ]
    for name in tree.order:
        link = model.links[name]
        label = f"{name}\n{_num(link.inertia.mass)} kg"
        style = ', style="bold"' if name == tree.root else ""
        lines.append(f"  {_q('link:' + name)} [label={_q(label)}, shape=box{style}];")
    for name in tree.order[1:]:
        j = tree.parent_joint[name]
        label = f"{j.name}\n{j.type.value}"
        if j.axis is not None:
            label += "\naxis " + " ".join(_num(a) for a in j.axis)
        if j.mimic is not None:
            label += f"\nmimics {j.mimic.joint}"
        lines.append(f"  {_q('link:' + j.parent)} -> {_q('link:' + j.child)} [label={_q(label)}];")
    for f in model.frames.values():
        lines.append(f"  {_q('frame:' + f.name)} [label={_q(f.name)}, shape=ellipse, style=dashed];")
        lines.append(f"  {_q('link:' + f.parent_link)} -> {_q('frame:' + f.name)} [style=dashed, arrowhead=none];")
    for s in model.sensors.values():
        label = f"{s.name}\n{s.type.value}"
        if isinstance(s, LinkSensor) and s.subtype:
            label += f" ({s.subtype})"
        lines.append(f"  {_q('sensor:' + s.name)} [label={_q(label)}, shape=diamond, style=filled, fillcolor=lightyellow];")
        if isinstance(s, ForceTorqueSensor):
            edge = f' [style=dotted, arrowhead=none, label={_q("in joint " + s.parent_joint)}]'
            lines.append(f"  {_q('link:' + s.second_link)} -> {_q('sensor:' + s.name)}{edge};")
        elif isinstance(s, LinkSensor):
            lines.append(f"  {_q('link:' + s.parent_link)} -> {_q('sensor:' + s.name)} [style=dotted, arrowhead=none];")
    lines.append("}")
    return "\n".join(lines) + "\n"


__all__ = ["to_dot"]
