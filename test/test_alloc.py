"""glibc's fast bins are off while a large document loads, and on again after, whatever happens.

Observed through glibc itself (glibc_malloc.py).
"""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest

from idyntree_models import ModelError, load_model
from idyntree_models._alloc import LARGE_DOCUMENT, fast_bins_off

from glibc_malloc import GLIBC, bins_now, fast_bins_hold_freed_chunks

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
from common import synthetic_urdf  # noqa: E402

if not GLIBC:
    pytest.skip("glibc with mallinfo2 (2.33 or later) only", allow_module_level=True)


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
import os, sys, threading
sys.path[:0] = [{bench!r}, {tests!r}]
from common import synthetic_urdf
from glibc_malloc import bins_now
from idyntree_models import load_model
{body}
"""


def _child(body: str, **env: str) -> str:
    import os
    import subprocess

    here = Path(__file__).resolve().parent
    code = _CHILD.format(bench=str(here.parent / "bench"), tests=str(here), body=body)
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
