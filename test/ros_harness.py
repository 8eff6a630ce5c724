"""Real ROS 2 processes for the tests: a model_server subprocess and an in-test probe node.

Every test gets its own ROS_DOMAIN_ID and discovery stays on loopback, so tests running side by
side (or other engineers' nodes) never see each other.  The server runs in its own process
group and is always stopped by PID: SIGTERM, then SIGKILL after a timeout.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

os.environ["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"

REPO = Path(__file__).resolve().parents[1]
TIMEOUT = 20.0  # generous: discovery on a loaded 2-core machine can take seconds
# Added to every test's domain, so that two test runs on one machine (two checkouts) never meet.
DOMAIN_OFFSET = int(os.environ.get("IDYNTREE_TEST_DOMAIN_OFFSET", "0"))


# services whose request changes nothing on the server, so that one unanswered can be sent again (Probe.call)
_ANSWERS_ONLY = frozenset(("GetModel", "ConvertModel", "GetParameters"))


def domain_id(n: int) -> int:
    """The ROS_DOMAIN_ID a test asking for ``n`` really uses."""
    d = n + DOMAIN_OFFSET
    if not 0 <= d <= 101:
        raise ValueError(f"ROS_DOMAIN_ID {d} (test domain {n} + offset {DOMAIN_OFFSET}) is outside 0-101")
    return d


def ros_env(domain: int) -> dict[str, str]:
    env = dict(os.environ)
    env["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"
    env["ROS_DOMAIN_ID"] = str(domain_id(domain))
    env.pop("ROS_LOCALHOST_ONLY", None)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    env["PYTHONUNBUFFERED"] = "1"
    return env


class Process:
    """A child process in its own process group, with its output in a file."""

    def __init__(self, argv: list[str], domain: int) -> None:
        self.log = tempfile.NamedTemporaryFile("w+", prefix="ros_test_", suffix=".log", delete=False)  # noqa: SIM115 - lives as long as the process
        self.proc = subprocess.Popen(argv, env=ros_env(domain), stdout=self.log, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, start_new_session=True, cwd=str(REPO))

    def output(self) -> str:
        if not self.log.closed:
            self.log.flush()
        return Path(self.log.name).read_text(errors="replace")

    def alive(self) -> bool:
        return self.proc.poll() is None

    def stop(self, timeout: float = 10.0) -> int | None:
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(5)
        self.log.close()
        return self.proc.returncode


def start_server(domain: int, params: dict | None = None, name: str = "model_server") -> Process:
    """model_server with `params` (written to a params file: descriptions are long multi-line text)."""
    import yaml

    argv = [sys.executable, "-m", "idyntree_models.ros.model_server", "--ros-args", "-r", f"__node:={name}"]
    if params:
        with tempfile.NamedTemporaryFile("w", prefix="ros_params_", suffix=".yaml", delete=False) as f:
            yaml.safe_dump({name: {"ros__parameters": params}}, f)
        argv += ["--params-file", f.name]
    return Process(argv, domain)


class Probe:
    """An rclpy node in the test process, in its own context and domain."""

    def __init__(self, domain: int, name: str = "probe") -> None:
        import rclpy
        from rclpy.executors import SingleThreadedExecutor

        self.context = rclpy.Context()
        rclpy.init(context=self.context, domain_id=domain_id(domain))
        self.node = rclpy.create_node(name, context=self.context)
        self.executor = SingleThreadedExecutor(context=self.context)
        self.executor.add_node(self.node)

    def spin_until(self, done: Callable[[], bool], timeout: float = TIMEOUT, what: str = "condition") -> None:
        end = time.monotonic() + timeout
        while not done():
            if time.monotonic() > end:
                raise TimeoutError(f"timed out after {timeout} s waiting for {what}")
            self.executor.spin_once(timeout_sec=0.05)

    def spin_for(self, seconds: float) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self.executor.spin_once(timeout_sec=0.05)

    def collect(self, msg_type, topic: str, qos) -> list:
        got: list = []
        self.node.create_subscription(msg_type, topic, got.append, qos)
        return got

    def call(self, srv_type, name: str, request, timeout: float = TIMEOUT, resend_after: float | None = None):
        """The answer of one call; with `resend_after` (by default 5 s for the services that change nothing,
        _ANSWERS_ONLY), the request is sent again when no answer came in that time.  A server that answers
        before it has matched the client's reply reader drops the answer (rmw: 'failed to send response
        (timeout)'), which happens on a loaded machine right after discovery: the client would wait for it
        until `timeout`."""
        if resend_after is None and srv_type.__name__ in _ANSWERS_ONLY:
            resend_after = 5.0
        client = self.node.create_client(srv_type, name)
        end = time.monotonic() + timeout
        while not client.service_is_ready():
            if time.monotonic() > end:
                raise TimeoutError(f"service {name} not available after {timeout} s")
            self.executor.spin_once(timeout_sec=0.1)
        future = client.call_async(request)
        while resend_after is not None and end - time.monotonic() > resend_after:
            with contextlib.suppress(TimeoutError):
                self.spin_until(future.done, resend_after, f"the answer of {name}")
            if future.done():
                break
            client.remove_pending_request(future)
            future = client.call_async(request)
        self.spin_until(future.done, max(0.0, end - time.monotonic()), f"the answer of {name}")
        self.node.destroy_client(client)
        return future.result()

    def close(self) -> None:
        self.executor.shutdown()
        self.node.destroy_node()
        self.context.try_shutdown()


def latched_qos():
    from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy

    return QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.TRANSIENT_LOCAL)


def tf_qos():
    from rclpy.qos import QoSProfile, ReliabilityPolicy

    return QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE)


def msg_to_matrix(t) -> np.ndarray:
    """geometry_msgs Transform -> 4x4."""
    from idyntree_models.model.transforms import quat_to_matrix

    q = t.rotation
    m = np.eye(4)
    m[:3, :3] = quat_to_matrix(np.array([q.w, q.x, q.y, q.z]))
    m[:3, 3] = [t.translation.x, t.translation.y, t.translation.z]
    return m


def compose_world(edges: dict[str, tuple[str, np.ndarray]], root: str) -> dict[str, np.ndarray]:
    """World poses of every frame reachable from `root` through child -> (parent, parent_H_child)."""
    world = {root: np.eye(4)}

    def resolve(frame: str, depth: int = 0) -> np.ndarray | None:
        if frame in world:
            return world[frame]
        if frame not in edges or depth > 10000:
            return None
        parent, t = edges[frame]
        p = resolve(parent, depth + 1)
        if p is None:
            return None
        world[frame] = p @ t
        return world[frame]

    for frame in list(edges):
        resolve(frame)
    return world


def edges_of(messages) -> dict[str, tuple[str, np.ndarray]]:
    out = {}
    for msg in messages:
        for t in msg.transforms:
            out[t.child_frame_id] = (t.header.frame_id, msg_to_matrix(t.transform))
    return out
