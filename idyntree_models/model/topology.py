"""Tree structure of a model: root, traversal order, and the checks that make it a tree."""

from __future__ import annotations

from collections import deque

import numpy as np

from .._record import Record, record
from ..errors import ModelError
from .model import FrameJoint, Joint, Model
from .transforms import inverse


@record
class TreeOrder(Record):
    """The links in breadth-first order from the root, with each link's joints to its children and its depth."""

    root: str
    order: list[str]  # links, parents before children (breadth first)
    parent_joint: dict[str, Joint]  # child link -> joint
    children: dict[str, list[Joint]]  # link -> joints to its children
    depth: dict[str, int]


def find_roots(model: Model) -> list[str]:
    children = {j.child for j in model.joints.values()}
    return [name for name in model.links if name not in children]


def tree_order(model: Model) -> TreeOrder:
    """Order the links from the root, or raise a ModelError saying why the model is no tree."""
    if not model.links:
        raise ModelError("the model has no links")
    parent_joint: dict[str, Joint] = {}
    links = model.links
    children: dict[str, list[Joint]] = {name: [] for name in links}
    for joint in model.joints.values():  # every load runs this several times: plain attribute reads only
        parent, child = joint.parent, joint.child
        if parent not in links or child not in links:
            end, link = ("parent", parent) if parent not in links else ("child", child)
            raise ModelError(f"{end} link '{link}' does not exist", element=f"joint '{joint.name}'")
        if parent == child:
            raise ModelError(f"parent and child are the same link '{child}'", element=f"joint '{joint.name}'")
        if child in parent_joint:
            other = parent_joint[child].name
            raise ModelError(
                f"link '{child}' has two parent joints ('{other}' and '{joint.name}'): "
                "a tree allows one",
                element=f"joint '{joint.name}'",
            )
        parent_joint[child] = joint
        children[parent].append(joint)
    roots = [name for name in model.links if name not in parent_joint]
    if not roots:
        first = next(iter(model.joints.values()))
        raise ModelError(
            "the joints form a cycle: every link is some joint's child, so there is no root link",
            element=f"joint '{first.name}'",
        )
    if len(roots) > 1:
        shown = ", ".join(f"'{r}'" for r in roots[:10]) + (" ..." if len(roots) > 10 else "")
        raise ModelError(
            f"the model has {len(roots)} root links ({shown}); a tree needs exactly one link that is "
            "no joint's child (connect the others with joints)",
            element=f"link '{roots[1]}'",  # the first one too many: where the line points
        )
    root = roots[0]
    order: list[str] = []
    depth = {root: 0}
    queue = deque([root])
    while queue:
        link = queue.popleft()
        order.append(link)
        for joint in children[link]:
            depth[joint.child] = depth[link] + 1
            queue.append(joint.child)
    if len(order) != len(model.links):
        unreached = [name for name in model.links if name not in depth]
        raise ModelError(
            "the joints form a cycle through links "
            + ", ".join(f"'{n}'" for n in unreached[:10])
            + " (not reachable from the root '" + root + "')",
            element=f"joint '{parent_joint[unreached[0]].name}'",
        )
    return TreeOrder(root, order, parent_joint, children, depth)


def root_frame(model: Model, root: str | None = None) -> str | None:
    """The frame the source had as the parent of the root link (`world` above `base_link`), if any.

    Such a frame was a massless root link joined by one fixed joint (see FrameJoint); it is the
    root of the description, so exporters and the ROS frame tree put it above the root link.
    """
    joints: dict = model.metadata.get("frame_joints") or {}
    if not joints:
        return None
    root = root if root is not None else tree_order(model).root
    for name, fj in joints.items():
        frame = model.frames.get(name)
        if isinstance(fj, FrameJoint) and fj.frame_is_parent and frame is not None and frame.parent_link == root:
            return name
    return None


def frame_edge(model: Model, name: str, root_frame_name: str | None) -> tuple[str, str, np.ndarray]:
    """(parent, child, parent_H_child) of the fixed edge holding frame `name`, in the source's direction."""
    frame = model.frames[name]
    if name == root_frame_name:
        return name, frame.parent_link, inverse(frame.link_H_frame)
    return frame.parent_link, name, frame.link_H_frame
