"""glibc's fast bins switched off while a large document is loaded.

libxml2 allocates every node, attribute and short string of a parsed document on its own, and
nearly all of them are small enough for glibc's fast bins.  Freed into those bins, a document's
chunks are not merged with their neighbours until a later, larger allocation makes glibc
consolidate them all at once, walking them in bin order with cold caches: for a 10000-link URDF
(4.5 MB), the free took 14-18 ms and the stall it left in the next allocation 57-67 ms, against a
23-31 ms free with nothing left over when the bins are off (`mallopt(M_MXFAST, 0)`).  The stall
lands in whatever allocates next: our own validation, or the ROS node's next callback.

The setting is process-wide, so it is only taken for documents large enough to gain, it is restored
when the last concurrent load ends (and in a child forked during one), and it is left alone where the
C library is not glibc.  It changes no result, only when memory is
merged.  While a large load runs, the other threads of the process free without fast bins too; and a
value the process set with its own mallopt (glibc has no getter) comes back as glibc's default or the
GLIBC_TUNABLES one.  `bench/bench_free.py` measures both sides.
"""

from __future__ import annotations

import _thread
import os

LARGE_DOCUMENT = 256 * 1024  # characters: the 1000-link tree (450 KB) gains 5 ms of 110, tiago_dual (210 KB) nothing
_M_MXFAST = 1  # mallopt's parameter number (malloc.h)
_lock = _thread.allocate_lock()  # (not threading: the converter's start-up never imports it)
_active = 0  # loads running with the bins off
_mallopt = None  # glibc's mallopt, once looked up; False where there is none
_default = 0  # what the bins are set back to
_builtin = 0  # glibc's own default (64 * sizeof(size_t) / 4), which mallopt always takes


def _lookup() -> None:
    """Find glibc's mallopt and the value to restore; anything unexpected leaves the bins alone."""
    global _mallopt, _default, _builtin
    _mallopt = False
    try:
        import ctypes

        libc = ctypes.CDLL(None)
        version = libc.gnu_get_libc_version  # glibc only: musl's mallopt does nothing, others have none
        version.restype = ctypes.c_char_p
        version()
        mallopt = libc.mallopt
        mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
        mallopt.restype = ctypes.c_int
        size_t = ctypes.sizeof(ctypes.c_size_t)
        builtin = default = 64 * size_t // 4  # glibc's own default
        for item in os.environ.get("GLIBC_TUNABLES", "").replace(":", ",").split(","):
            key, _, value = item.partition("=")
            if key.strip() == "glibc.malloc.mxfast":
                try:
                    asked = int(value.strip(), 0)  # (glibc reads hexadecimal and octal too)
                except ValueError:
                    continue
                if 0 <= asked <= 80 * size_t // 4:  # glibc ignores a value above its maximum
                    default = asked
    except Exception:  # noqa: BLE001  (no C library to speak of: Windows, a Python without ctypes)
        return
    _default, _builtin = default, builtin
    _mallopt = mallopt
    os.register_at_fork(after_in_child=_after_fork)


def _after_fork() -> None:
    """A child forked while another thread was loading: nobody in it will end that load."""
    global _lock, _active
    _lock = _thread.allocate_lock()
    if _active:
        _active = 0
        _restore()


def _restore() -> None:
    if not _mallopt(_M_MXFAST, _default):  # refused: glibc's own default
        _mallopt(_M_MXFAST, _builtin)


class fast_bins_off:
    """Around the load of a document of `size` characters (see the module doc).

    A class, not a generator made a context manager: contextlib is not imported by the converter.
    The counter goes up before the bins are switched off and down after they are back, so that an
    interrupt between the two (a KeyboardInterrupt) leaves them on: the worst it can do is keep the
    switch from being made again."""

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
                _active += 1
                if _active == 1:
                    _mallopt(_M_MXFAST, 0)

    def __exit__(self, *exc: object) -> None:
        global _active
        if self.switch:
            with _lock:
                if _active == 1:
                    _restore()
                _active = max(0, _active - 1)
