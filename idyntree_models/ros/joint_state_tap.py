"""joint_states taken off the wire by a thread of their own, outside the executor.

At 1 kHz the executor is the bottleneck, not the kinematics: each SingleThreadedExecutor turn
rebuilds a wait set over every entity of the node (parameter services, our services, publishers'
events) and dispatches through several layers of Python, so messages queue up, latency grows to the
queue's depth and the queue overflows.  This thread waits on one subscription only, takes every
message that is ready (raw bytes, no message objects), and hands each to the node's handler, so
no message is skipped and none waits behind a conversion the executor is running (the GIL is shared
at the interpreter's switch interval, which the node lowers).

The subscription is made with rclpy's own binding (as rclpy.wait_for_message does) and not
registered with the node, so no executor ever takes from it; its owner destroys it in
destroy_node().  Where that binding differs (another rclpy), JointStateTap.create() returns None
and the node subscribes the ordinary way.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable

from rclpy.qos import QoSProfile

_LOG = logging.getLogger(__name__)
_WAIT_NS = 200_000_000  # wake this often anyway, to notice a shut-down context


class JointStateTap:
    def __init__(self, node, msg_type, topic: str, qos: QoSProfile, handler: Callable[[bytes], None]) -> None:
        from rclpy.impl.implementation_singleton import rclpy_implementation as _rclpy
        from rclpy.type_support import check_is_valid_msg_type

        check_is_valid_msg_type(msg_type)  # loads the type support the binding needs

        self._rclpy = _rclpy
        self._context = node.context
        self._msg_type = msg_type
        self._handler = handler
        with node.handle:
            self._sub = _rclpy.Subscription(node.handle, msg_type, topic, qos.get_c_qos_profile(), None)
        try:
            self._wake = _rclpy.GuardCondition(self._context.handle)
            self._wait_set = _rclpy.WaitSet(1, 1, 0, 0, 0, 0, self._context.handle)
        except Exception:
            self._sub.destroy_when_not_in_use()
            raise
        self._stop = False
        self._failed = 0  # messages whose handler raised
        self._thread = threading.Thread(target=self._run, name="joint_states_tap", daemon=True)

    @classmethod
    def create(cls, node, msg_type, topic: str, qos: QoSProfile,
               handler: Callable[[bytes], None]) -> JointStateTap | None:
        """A started tap, or None where this rclpy's binding does not offer what it needs."""
        try:
            tap = cls(node, msg_type, topic, qos, handler)
        except (AttributeError, ImportError, TypeError) as e:
            _LOG.warning("joint_states tap unavailable (%s): the executor takes joint_states", e)
            return None
        tap._thread.start()
        return tap

    @property
    def topic_name(self) -> str:
        return self._sub.get_topic_name()

    def _run(self) -> None:
        ws, sub, take = self._wait_set, self._sub, self._sub.take_message
        try:
            while not self._stop and self._context.ok():
                ws.clear_entities()
                ws.add_subscription(sub)
                ws.add_guard_condition(self._wake)
                ws.wait(_WAIT_NS)
                while not self._stop:  # everything that arrived: each message makes its /tf message
                    taken = take(self._msg_type, True)
                    if taken is None:
                        break
                    try:
                        self._handler(taken[0])
                    except Exception:  # one message's fault: the next ones are served all the same
                        self._failed += 1
                        if self._failed == 1 or self._failed % 1000 == 0:
                            _LOG.exception("joint_states message %d failed; the tap goes on", self._failed)
        except Exception as e:  # the context went away under us (shutdown): nothing left to serve
            if self._context.ok() and not self._stop:
                _LOG.error("joint_states tap stopped: %s", e)

    def destroy(self) -> None:
        """Stop the thread, then free the subscription (before the node that owns it)."""
        self._stop = True
        with contextlib.suppress(Exception):  # a shut-down context: the wait ends on its timeout
            self._wake.trigger_guard_condition()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout=2.0)
        self._sub.destroy_when_not_in_use()
        self._wake.destroy_when_not_in_use()
        self._wait_set.destroy_when_not_in_use()
