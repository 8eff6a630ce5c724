"""A small client of model_server for estimators: sensors, frames and the model itself.

An estimator needs three things from the robot description side: which sensors exist and on
which frames, where those frames are now (TF), and the full model (inertias, joints) for its
own computations.  `ModelClient` gathers the first two from the latched topics and /tf, and
fetches the third through ~/get_model as iDynTree model JSON, loaded into a local `Model`.

    node = rclpy.create_node("my_estimator")
    client = ModelClient(node)
    client.wait(lambda: client.sensors, timeout=10.0)
    model = client.get_model()
    base_H_ft = client.lookup("root_link", "l_arm_ft_sensor")
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

import numpy as np
from idyntree_models_interfaces.msg import SensorList
from idyntree_models_interfaces.srv import GetModel
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from tf2_msgs.msg import TFMessage

from ..api import load_model
from ..errors import ModelError
from ..model.model import Model
from ..model.transforms import quat_to_matrix

log = logging.getLogger(__name__)
_LATCHED = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.TRANSIENT_LOCAL)
_TF = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE)


def transform_to_matrix(t) -> np.ndarray:
    """geometry_msgs/Transform (or Pose) -> 4x4 homogeneous transform."""
    if hasattr(t, "translation"):
        p, q = t.translation, t.rotation
    else:
        p, q = t.position, t.orientation
    m = np.eye(4)
    m[:3, :3] = quat_to_matrix(np.array([q.w, q.x, q.y, q.z]))
    m[:3, 3] = (p.x, p.y, p.z)
    return m


class ModelClient:
    """Sensors, transforms and model of one model_server, kept up to date by subscriptions.

    Static transforms are kept per publisher: model_server republishes its complete set when
    the model changes, so frames of the old model are dropped here as well.
    """

    def __init__(self, node: Node, server: str = "model_server", executor=None) -> None:
        self.node = node
        self.server = server.rstrip("/")
        if executor is None:
            from rclpy.executors import SingleThreadedExecutor

            executor = SingleThreadedExecutor(context=node.context)
            executor.add_node(node)
        self.executor = executor
        self.sensors: list = []  # idyntree_models_interfaces/Sensor of the current model
        self.sensor_header = None
        self._static: dict[bytes | str, dict[str, tuple[str, np.ndarray]]] = {}
        self.dynamic: dict[str, tuple[str, np.ndarray, float]] = {}  # child -> (parent, H, stamp s)
        self.tf_messages = 0
        self.last_warnings: list[str] = []  # the last get_model's: what its format could not hold
        # `server` is a node name as ROS resolves it: absolute (/robot1/model_server), or relative to this node's
        # namespace. Its robot_sensors is in the server's namespace (its topic is relative), so it follows the name:
        # a sensors topic of this node's own namespace was silently empty for a server in another one.
        self.sensors_topic = f"{self.server.rpartition('/')[0]}/robot_sensors" if "/" in self.server else "robot_sensors"
        node.create_subscription(SensorList, self.sensors_topic, self._on_sensors, _LATCHED)
        node.create_subscription(TFMessage, "/tf_static", self._on_static, _LATCHED)
        node.create_subscription(TFMessage, "/tf", self._on_tf, _TF)
        self._get_model = node.create_client(GetModel, f"{self.server}/get_model")

    # -- subscriptions --------------------------------------------------------------------
    def _on_sensors(self, msg: SensorList) -> None:
        self.sensors = list(msg.sensors)
        self.sensor_header = msg.header

    def _on_static(self, msg: TFMessage, info=None) -> None:
        gid = info.get("publisher_gid") if isinstance(info, dict) else None
        key = bytes(gid["data"]) if isinstance(gid, dict) and "data" in gid else "static"
        self._static[key] = {t.child_frame_id: (t.header.frame_id, transform_to_matrix(t.transform))
                             for t in msg.transforms}

    def _on_tf(self, msg: TFMessage) -> None:
        self.tf_messages += 1
        for t in msg.transforms:
            stamp = t.header.stamp.sec + t.header.stamp.nanosec * 1e-9
            self.dynamic[t.child_frame_id] = (t.header.frame_id, transform_to_matrix(t.transform), stamp)

    # -- queries --------------------------------------------------------------------------
    @property
    def static(self) -> dict[str, tuple[str, np.ndarray]]:
        out: dict[str, tuple[str, np.ndarray]] = {}
        for part in self._static.values():
            out.update(part)
        return out

    def _edges(self) -> dict[str, tuple[str, np.ndarray]]:
        edges = self.static
        edges.update({child: (parent, h) for child, (parent, h, _) in self.dynamic.items()})
        return edges

    def frames(self) -> set[str]:
        edges = self._edges()
        return set(edges) | {p for p, _ in edges.values()}

    def lookup(self, target: str, source: str) -> np.ndarray:
        """target_H_source from the latest transforms; KeyError when the frames are not connected."""
        edges = self._edges()

        def to_root(frame: str) -> tuple[str, np.ndarray]:
            h = np.eye(4)
            seen = set()
            while frame in edges:
                if frame in seen:
                    raise KeyError(f"TF loop at frame '{frame}'")
                seen.add(frame)
                parent, t = edges[frame]
                h = t @ h
                frame = parent
            return frame, h

        root_t, root_H_target = to_root(target)
        root_s, root_H_source = to_root(source)
        if root_t != root_s:
            raise KeyError(f"frames '{target}' and '{source}' are not connected (roots '{root_t}', '{root_s}')")
        return np.linalg.solve(root_H_target, root_H_source)

    def wait(self, done: Callable[[], object], timeout: float = 10.0) -> bool:
        """Spin until `done()` is true; False on timeout."""
        end = time.monotonic() + timeout
        while not done():
            if time.monotonic() > end:
                return False
            self.executor.spin_once(timeout_sec=0.05)
        return True

    def get_model_text(self, format: str = "idyntree-model-json", timeout: float = 10.0) -> str:
        if not self.wait(self._get_model.service_is_ready, timeout):
            raise TimeoutError(f"service {self._get_model.service_name} not available after {timeout} s")
        future = self._get_model.call_async(GetModel.Request(format=format))
        if not self.wait(future.done, timeout):
            raise TimeoutError(f"no answer from {self._get_model.service_name} after {timeout} s")
        response = future.result()
        if not response.success:
            raise ModelError(f"get_model: {response.message}")
        self.last_warnings = list(response.warnings)
        for w in self.last_warnings:  # (what the served model has and the text received does not)
            log.info("get_model as %s: %s", format, w)
        return response.model

    def get_model(self, timeout: float = 10.0) -> Model:
        """The server's current model, as a local Model (through iDynTree model JSON)."""
        return load_model(self.get_model_text("idyntree-model-json", timeout).encode("utf-8"), "idyntree-model-json")
