"""example_estimator: what an estimator sees of a model_server, printed once.

Shows the sensor list, fetches the model, and prints the pose of every force/torque sensor
frame in the base frame, from TF and from the local model's kinematics (they agree at the
current joint positions as far as /tf has reported them; joints not reported are at zero).
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
import rclpy
from rclpy.executors import ExternalShutdownException

from ..model.transforms import matrix_to_rpy
from .client import ModelClient, transform_to_matrix


def _pose(h: np.ndarray) -> str:
    x, y, z = h[:3, 3]
    r, p, yw = matrix_to_rpy(h[:3, :3])
    return f"xyz=({x:+.4f}, {y:+.4f}, {z:+.4f}) rpy=({r:+.3f}, {p:+.3f}, {yw:+.3f})"


def report(client: ModelClient, timeout: float, out=print) -> int:
    if not client.wait(lambda: client.sensors or client.static, timeout):
        out(f"no sensors or static frames received within {timeout} s: is model_server running?")
        return 1
    client.wait(lambda: client.sensors, 1.0)
    model = client.get_model(timeout)
    out(model.summary())
    if model.sensors and not client.sensors:
        topic = client.node.resolve_topic_name(client.sensors_topic)
        out(f"the model has {len(model.sensors)} sensors, but none arrived on {topic}: is the server's robot_sensors "
            "remapped?")
        return 1
    base = (client.sensor_header.frame_id if client.sensor_header and client.sensor_header.frame_id
            else model.default_base_link)
    out(f"{len(client.sensors)} sensors (frames in TF, base frame '{base}'):")
    for s in client.sensors:
        where = f"joint {s.parent_joint} ({s.measure_direction}, frame {s.frame_option})" if s.parent_joint \
            else f"link {s.parent_link}"
        out(f"  {s.name:<28} {s.type:<16} frame {s.frame_id:<28} {where}")
    client.wait(lambda: client.tf_messages > 0, 1.0)  # current joint positions, if someone publishes them
    ft = [s for s in client.sensors if s.type == "force_torque"]
    if ft:
        out("force/torque sensor frames in the base frame:")
    world = None
    for s in ft:
        try:
            out(f"  {s.name:<28} {_pose(client.lookup(base, s.frame_id))}  (TF)")
        except KeyError:
            # no /tf yet for the joints in between (nobody publishes joint_states): the model at zero
            if world is None:
                from ..model.kinematics import Kinematics

                world = Kinematics(model).world_transforms({})
            local = world[s.second_link] @ transform_to_matrix(s.pose)
            out(f"  {s.name:<28} {_pose(local)}  (model at zero position: no /tf)")
    return 0


def main(args: list[str] | None = None) -> int:
    argv = sys.argv if args is None else args
    ros_args = rclpy.utilities.remove_ros_args(argv)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", default="model_server", help="node name of the model_server")
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds to wait for the server")
    opts = parser.parse_args(ros_args[1:])
    rclpy.init(args=argv)
    node = rclpy.create_node("example_estimator")
    try:
        client = ModelClient(node, opts.server)
        return report(client, opts.timeout)
    except (KeyboardInterrupt, ExternalShutdownException):
        return 130
    except Exception as e:  # noqa: BLE001 - a demo: one readable line instead of a traceback
        print(f"example_estimator: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    finally:
        node.destroy_node()
        rclpy.try_shutdown()


if __name__ == "__main__":
    sys.exit(main())
