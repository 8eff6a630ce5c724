"""glibc's fast bins seen from Python (for test_alloc.py, in its own process and in the children it starts).

mallinfo2's `fsmblks` counts the bytes held in fast bins: small chunks freed while the bins are off leave
it unchanged, freed while they are on they raise it.
"""

from __future__ import annotations

import ctypes

libc = ctypes.CDLL(None)
GLIBC = hasattr(libc, "gnu_get_libc_version") and hasattr(libc, "mallinfo2")  # (mallinfo2: glibc 2.33 or later)


class _Mallinfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in
                ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks",
                 "keepcost")]


if GLIBC:
    libc.mallinfo2.restype = _Mallinfo2
    libc.malloc.restype = ctypes.c_void_p
    libc.malloc.argtypes = (ctypes.c_size_t,)
    libc.free.argtypes = (ctypes.c_void_p,)


def bins_now(size: int = 40) -> bool:
    """Whether chunks of `size` bytes go to fast bins at this moment (no consolidation first, which would
    empty them): more are freed than the thread cache keeps (7 a size)."""
    chunks = [libc.malloc(size) for _ in range(64)]
    before = libc.mallinfo2().fsmblks
    for c in chunks[::2]:
        libc.free(c)
    grew = libc.mallinfo2().fsmblks > before
    for c in chunks[1::2]:
        libc.free(c)
    return grew


def fast_bins_hold_freed_chunks() -> bool:
    """bins_now, counted from empty bins: glibc's default set again (which consolidates what they held)."""
    libc.mallopt(1, 128)
    chunks = [libc.malloc(40) for _ in range(64)]
    keep = [libc.malloc(40) for _ in range(64)]  # so that the freed chunks cannot merge into the top
    for c in chunks[::2]:
        libc.free(c)
    held = libc.mallinfo2().fsmblks > 0
    for c in chunks[1::2] + keep:
        libc.free(c)
    return held
