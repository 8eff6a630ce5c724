"""glibc's fast bins switched off while a large document is loaded.

libxml2 allocates every node, attribute and short string of a parsed document on its own, and
nearly all of them are small enough for glibc's fast bins.  Freed into those bins, a document's
chunks are not merged with their neighbours until a later, larger allocation makes glibc
consolidate them all at once, walking them in bin order with cold caches: for a 10000-link URDF
(4.5 MB), the free took 14-18 ms and the stall it left in the next allocation 57-67 ms, against a
23-31 ms free with nothing left over when the bins are off (`mallopt(M_MXFAST, 0)`).  The stall
lands in whatever allocates next: our own validation, or the ROS node's next callback.

The setting is process-wide, so it is only taken for documents large enough to gain (the switch
costs an import of ctypes, ~3 ms, and two calls), it is restored when the last concurrent load ends,
and it is left alone where the C library is not glibc.  It changes no result, only when memory is
merged.  While a large load runs, the other threads of the process free without fast bins too; and a
value the process set with its own mallopt (glibc has no getter) comes back as glibc's default or the
GLIBC_TUNABLES one.  `bench/bench_free.py` measures both sides.
"""

from __future__ import annotations

import _thread
import os

LARGE_DOCUMENT = 256 * 1024  # characters: the 1000-link tree (450 KB) gains 5%, tiago_dual (210 KB) ~2%
_M_MXFAST = 1  # mallopt's parameter number (malloc.h)
_lock = _thread.allocate_lock()  # (not threading: the converter's start-up never imports it)
_active = 0
_mallopt = None  # glibc's mallopt, once looked up; False where there is none
_default = 0


def _lookup() -> None:
    global _mallopt, _default
    _mallopt = False
    try:
        import ctypes

        libc = ctypes.CDLL(None)
        version = libc.gnu_get_libc_version  # glibc only: musl's mallopt does nothing, others have none
        version.restype = ctypes.c_char_p
        version()
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    # glibc's default (64 * sizeof(size_t) / 4), or what the user asked for with its tunable
    _default = 64 * ctypes.sizeof(ctypes.c_size_t) // 4
    for item in os.environ.get("GLIBC_TUNABLES", "").replace(":", ",").split(","):
        key, _, value = item.partition("=")
        if key.strip() == "glibc.malloc.mxfast" and value.strip().isdigit():
            _default = int(value)
    _mallopt = mallopt


class fast_bins_off:
    """Around the load of a document of `size` characters (see the module doc).

    A class, not a generator made a context manager: contextlib is not imported by the converter."""

    __slots__ = ("switch",)

    def __init__(self, size: int) -> None:
        self.switch = size >= LARGE_DOCUMENT

    def __enter__(self) -> None:
        global _active
        if not self.switch:
            return
        with _lock:
            if _mallopt is None:
                _lookup()
            self.switch = bool(_mallopt)
            if self.switch:
                if _active == 0:
                    _mallopt(_M_MXFAST, 0)
                _active += 1

    def __exit__(self, *exc: object) -> None:
        global _active
        if self.switch:
            with _lock:
                _active -= 1
                if _active == 0:
                    _mallopt(_M_MXFAST, _default)
