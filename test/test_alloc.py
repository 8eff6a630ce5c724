"""glibc's fast bins are off while a large document loads, and on again after, whatever happens.

Observed through glibc itself: mallinfo2's `fsmblks` counts the bytes held in fast bins, so small
chunks freed while the bins are off leave it at zero, and freed once they are back they raise it.
"""

from __future__ import annotations

import ctypes
import sys
import threading
from pathlib import Path

import pytest

from idyntree_models import ModelError, load_model
from idyntree_models._alloc import LARGE_DOCUMENT, fast_bins_off

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
from common import synthetic_urdf  # noqa: E402

libc = ctypes.CDLL(None)
if not hasattr(libc, "gnu_get_libc_version") or not hasattr(libc, "mallinfo2"):
    pytest.skip("glibc with mallinfo2 (2.33 or later) only", allow_module_level=True)


class _Mallinfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in
                ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks",
                 "keepcost")]


libc.mallinfo2.restype = _Mallinfo2
libc.malloc.restype = ctypes.c_void_p
libc.malloc.argtypes = (ctypes.c_size_t,)
libc.free.argtypes = (ctypes.c_void_p,)


def fast_bins_hold_freed_chunks() -> bool:
    """Free more small chunks than the thread cache keeps (7 a size): do any stay in a fast bin?"""
    libc.mallopt(1, 128)  # (consolidates what the bins held before: see _alloc)
    chunks = [libc.malloc(40) for _ in range(64)]
    keep = [libc.malloc(40) for _ in range(64)]  # so that the freed chunks cannot merge into the top
    for c in chunks[::2]:
        libc.free(c)
    held = libc.mallinfo2().fsmblks > 0
    for c in chunks[1::2] + keep:
        libc.free(c)
    return held


def bins_now() -> bool:
    """Whether fast bins are in use at this moment (no consolidation first, which would empty them)."""
    chunks = [libc.malloc(40) for _ in range(64)]
    before = libc.mallinfo2().fsmblks
    for c in chunks[::2]:
        libc.free(c)
    grew = libc.mallinfo2().fsmblks > before
    for c in chunks[1::2]:
        libc.free(c)
    return grew


def test_bins_are_off_inside_and_back_after():
    assert bins_now()  # the process's normal state: this test can tell the two apart
    with fast_bins_off(LARGE_DOCUMENT):
        assert not bins_now()
    assert bins_now()
    assert fast_bins_hold_freed_chunks()


def test_small_documents_leave_the_bins_alone():
    with fast_bins_off(LARGE_DOCUMENT - 1):
        assert bins_now()


def test_overlapping_loads_restore_when_the_last_ends():
    """Two loads in two threads: the first to end must not switch the bins back under the other."""
    inner_done, outer_may_end = threading.Event(), threading.Event()
    seen = {}

    def other() -> None:
        with fast_bins_off(LARGE_DOCUMENT):
            inner_done.set()
            outer_may_end.wait(10)

    with fast_bins_off(LARGE_DOCUMENT):
        t = threading.Thread(target=other)
        t.start()
        inner_done.wait(10)
    seen["after first"] = bins_now()  # the other thread is still loading
    outer_may_end.set()
    t.join(10)
    seen["after both"] = bins_now()
    assert seen == {"after first": False, "after both": True}


def test_a_load_restores_the_bins_after_success_and_after_a_refusal():
    good = synthetic_urdf(800)
    assert len(good) >= LARGE_DOCUMENT
    load_model(good, "urdf")
    assert bins_now()
    bad = good.replace('<child link="link700"/>', '<child link="no_such_link"/>')
    with pytest.raises(ModelError, match="no_such_link"):
        load_model(bad, "urdf")
    assert bins_now()


_CHILD = r"""
import ctypes, os, sys, threading
sys.path.insert(0, {bench!r})
from common import synthetic_urdf
from idyntree_models import load_model
libc = ctypes.CDLL(None)
class M(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks",
                                               "fsmblks", "uordblks", "fordblks", "keepcost")]
libc.mallinfo2.restype = M
libc.malloc.restype = ctypes.c_void_p
libc.malloc.argtypes = (ctypes.c_size_t,)
libc.free.argtypes = (ctypes.c_void_p,)
def bins_now(size=40):
    chunks = [libc.malloc(size) for _ in range(64)]
    before = libc.mallinfo2().fsmblks
    for c in chunks[::2]:
        libc.free(c)
    grew = libc.mallinfo2().fsmblks > before
    for c in chunks[1::2]:
        libc.free(c)
    return grew
{body}
"""


def _child(body: str, **env: str) -> str:
    import os
    import subprocess

    code = _CHILD.format(bench=str(Path(__file__).resolve().parents[1] / "bench"), body=body)
    full = {k: v for k, v in os.environ.items() if k != "GLIBC_TUNABLES"} | env
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=full)
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


@pytest.mark.parametrize("tunable, before_after", [
    ("glibc.malloc.mxfast=1000", "True True / True True"),  # above glibc's maximum: glibc and we ignore it
    ("glibc.malloc.mxfast=0x20", "True False / True False"),  # hexadecimal, as glibc reads it: 40-byte chunks
    ("glibc.malloc.mxfast=0", "False False / False False"),  # the user's choice stays
])
def test_a_load_gives_back_what_the_tunable_set(tunable, before_after):
    body = """
small, big = bins_now(24), bins_now(40)
load_model(synthetic_urdf(800), "urdf")
print(small, big, "/", bins_now(24), bins_now(40))
"""
    assert _child(body, GLIBC_TUNABLES=tunable) == before_after


def test_a_child_forked_during_a_large_load_has_its_bins_back():
    body = """
started, done = threading.Event(), threading.Event()
from idyntree_models._alloc import LARGE_DOCUMENT, fast_bins_off
def hold():
    with fast_bins_off(LARGE_DOCUMENT):
        started.set()
        done.wait(30)
t = threading.Thread(target=hold)
t.start()
started.wait(30)
pid = os.fork()
if pid == 0:
    os.write(1, f"child {bins_now()} ".encode())
    load_model(synthetic_urdf(800), "urdf")
    os.write(1, f"{bins_now()}\\n".encode())
    os._exit(0)
os.waitpid(pid, 0)
print("parent", bins_now(), end=" ")
done.set()
t.join()
print(bins_now())
"""
    out = _child(body)
    assert "child True True" in out and "parent False True" in out, out
