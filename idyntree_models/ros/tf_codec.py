"""Fast /tf messages: a pre-serialized TFMessage whose numbers are patched in place.

Building a TFMessage of ~60 TransformStamped Python objects and converting it to C costs far
more than the kinematics at 1 kHz.  For a fixed set of (parent, child) frames the CDR byte layout
never changes except for the stamps and the seven doubles of each transform, so the message is
serialized once and each update writes those numbers through numpy views of the buffer.  The
layout is checked against rclpy's own serializer before use (`TFTemplate.verify`), and callers
fall back to ordinary message objects if it ever differs (another middleware or CDR version).
"""

from __future__ import annotations

import struct

import numpy as np

from ..model.transforms import matrix_to_quat

_ENCAPSULATION = 4  # CDR encapsulation header before the payload; alignment is relative to its end


def _align(pos: int, n: int) -> int:
    return (pos + n - 1) // n * n


def transforms_to_xyz_xyzw(t: np.ndarray) -> np.ndarray:
    """(n, 4, 4) homogeneous transforms -> (n, 7) rows of translation x y z, rotation x y z w."""
    out = np.empty((len(t), 7))
    out[:, :3] = t[:, :3, 3]
    out[:, 3:] = matrix_to_quat(t[:, :3, :3])[:, [1, 2, 3, 0]]  # ROS order: x, y, z, w
    return out


class TFTemplate:
    """The serialized TFMessage for a fixed list of (parent, child) frame pairs."""

    def __init__(self, pairs: list[tuple[str, str]]) -> None:
        self.pairs = list(pairs)
        pos = 4  # sequence length
        sec_at, val_at = [], []
        chunks: list[tuple[int, bytes]] = []
        for parent, child in self.pairs:
            pos = _align(pos, 4)
            sec_at.append(pos)
            pos += 8
            for name in (parent, child):
                raw = name.encode("utf-8") + b"\0"
                pos = _align(pos, 4)
                chunks.append((pos, len(raw).to_bytes(4, "little") + raw))
                pos += 4 + len(raw)
            pos = _align(pos, 8)
            val_at.append(pos)
            pos += 56
        size = _ENCAPSULATION + pos
        self._buffer = bytearray(size + (-size) % 8)
        self._buffer[:4] = b"\x00\x01\x00\x00"  # CDR little endian
        self._buffer[4:8] = len(self.pairs).to_bytes(4, "little")
        # bytes that carry data (the rest is alignment padding, whose value CDR leaves open)
        self._meaningful = np.zeros(size, dtype=bool)
        self._meaningful[:8] = True
        for at, data in chunks:
            self._buffer[_ENCAPSULATION + at: _ENCAPSULATION + at + len(data)] = data
            self._meaningful[_ENCAPSULATION + at: _ENCAPSULATION + at + len(data)] = True
        for at in sec_at:
            self._meaningful[_ENCAPSULATION + at: _ENCAPSULATION + at + 8] = True
        for at in val_at:
            self._meaningful[_ENCAPSULATION + at: _ENCAPSULATION + at + 56] = True
        self._size = size
        payload = memoryview(self._buffer)[_ENCAPSULATION:]
        self._i32 = np.frombuffer(payload[: len(payload) // 4 * 4], dtype="<i4")
        self._u32 = np.frombuffer(payload[: len(payload) // 4 * 4], dtype="<u4")
        self._f64 = np.frombuffer(payload[: len(payload) // 8 * 8], dtype="<f8")
        self._sec = np.array(sec_at, dtype=np.intp) // 4
        self._val = (np.array(val_at, dtype=np.intp) // 8)[:, None] + np.arange(7)

    def serialize(self, sec: int, nanosec: int, values: np.ndarray) -> bytes:
        """The message bytes with one stamp for all transforms and `values` (n, 7) as their poses."""
        if len(self.pairs):
            self._i32[self._sec] = sec
            self._u32[self._sec + 1] = nanosec
            self._f64[self._val] = values
        return bytes(memoryview(self._buffer)[: self._size])

    def verify(self) -> bool:
        """True when rclpy's serializer produces our bytes (padding aside), checked with arbitrary values."""
        from rclpy.serialization import serialize_message

        rng = np.random.default_rng(7)
        values = rng.normal(size=(len(self.pairs), 7))
        ours = self.serialize(1234567, 890123, values)
        theirs = serialize_message(make_tf_message(self.pairs, 1234567, 890123, values))
        if len(ours) != len(theirs):
            return False
        a, b = np.frombuffer(ours, dtype=np.uint8), np.frombuffer(theirs, dtype=np.uint8)
        return bool(np.array_equal(a[self._meaningful], b[self._meaningful]))


def make_tf_message(pairs: list[tuple[str, str]], sec: int, nanosec: int, values: np.ndarray):
    """The same message built from ordinary message objects (the fallback, and the reference)."""
    from geometry_msgs.msg import TransformStamped
    from tf2_msgs.msg import TFMessage

    msg = TFMessage()
    out = []
    for (parent, child), v in zip(pairs, np.asarray(values, dtype=float).tolist()):
        t = TransformStamped()
        t.header.stamp.sec = sec
        t.header.stamp.nanosec = nanosec
        t.header.frame_id = parent
        t.child_frame_id = child
        tr, q = t.transform.translation, t.transform.rotation
        tr.x, tr.y, tr.z = v[0], v[1], v[2]
        q.x, q.y, q.z, q.w = v[3], v[4], v[5], v[6]
        out.append(t)
    msg.transforms = out
    return msg


_STAMP = struct.Struct("<iII")  # header.stamp.sec, .nanosec, frame_id length
_U32 = struct.Struct("<I")


class JointStateDecoder:
    """joint_states bytes -> stamp, names and positions, without building message objects.

    Deserializing a JointState into Python objects (a str per name, a list per array) costs more
    than the whole /tf computation at 1 kHz.  Publishers send the same name list every time, so the
    names' bytes are compared with the last message's (one memcmp) and decoded only when they change;
    positions are a numpy view of the buffer.  Only plain little-endian CDR (XCDR1, what every ROS 2
    middleware sends) is decoded here: decode() returns None for anything else, and the caller
    deserializes that message the ordinary way.
    """

    def __init__(self) -> None:
        self._names_raw = b"\xff"  # never a prefix of real data: the first message decodes its names
        self._names: tuple[str, ...] = ()

    def decode(self, raw: bytes) -> tuple[int, int, tuple[str, ...], np.ndarray] | None:
        if raw[:2] != b"\x00\x01":
            return None
        sec, nanosec, length = _STAMP.unpack_from(raw, _ENCAPSULATION)
        pos = _ENCAPSULATION + _align(12 + length, 4)  # after frame_id (its length counts the NUL)
        cached = self._names_raw
        end = pos + len(cached)
        if raw[pos:end] == cached:  # the count is part of the bytes: the same bytes, the same list
            names = self._names
        else:
            names, end = _read_strings(raw, pos)
            self._names_raw, self._names = raw[pos:end], names
        pos = _ENCAPSULATION + _align(end - _ENCAPSULATION, 4)
        (count,) = _U32.unpack_from(raw, pos)
        pos = _ENCAPSULATION + _align(pos + 4 - _ENCAPSULATION, 8)
        if pos + 8 * count > len(raw):
            raise ValueError(f"position sequence of {count} runs past the message's {len(raw)} bytes")
        return sec, nanosec, names, np.frombuffer(raw, "<f8", count, pos)


def _read_strings(raw: bytes, pos: int) -> tuple[tuple[str, ...], int]:
    (count,) = _U32.unpack_from(raw, pos)
    if count > len(raw):
        raise ValueError(f"name sequence of {count} in a message of {len(raw)} bytes")
    pos += 4
    out = []
    for _ in range(count):
        pos = _ENCAPSULATION + _align(pos - _ENCAPSULATION, 4)
        (n,) = _U32.unpack_from(raw, pos)
        if n == 0 or pos + 4 + n > len(raw):
            raise ValueError("a name runs past the end of the message")
        out.append(raw[pos + 4:pos + 3 + n].decode("utf-8"))
        pos += 4 + n
    return tuple(out), pos
