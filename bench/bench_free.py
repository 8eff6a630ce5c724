"""What freeing a parsed document costs, with glibc's fast bins on and off (idyntree_models/_alloc.py).

    .venv/bin/python bench/bench_free.py [--repeat N] [--sizes 1000,10000]

For each synthetic URDF tree:
  free       dropping lxml's tree (libxml2 frees every node, attribute and string)
  stall      the next allocation of 10000 small lists, where glibc consolidates what the fast bins hold
  rest       a forced consolidation after that (what is still left)
  load       load_model of the tree, with the switch as shipped and with it disabled, in alternating blocks
"""

from __future__ import annotations

import argparse
import ctypes
import logging
import statistics
import sys
import time
from pathlib import Path

from lxml import etree

sys.path.insert(0, str(Path(__file__).resolve().parent))
import idyntree_models._alloc as alloc  # noqa: E402
from idyntree_models import load_model  # noqa: E402

from common import synthetic_urdf, table  # noqa: E402

logging.disable(logging.WARNING)
SHIPPED = alloc.LARGE_DOCUMENT
_OPTIONS = {"resolve_entities": False, "no_network": True, "huge_tree": True, "remove_comments": True}


def free_ms(data: bytes, bins_off: bool, repeat: int) -> tuple[float, float, float]:
    libc = ctypes.CDLL(None)
    default = 64 * ctypes.sizeof(ctypes.c_size_t) // 4
    rows = []
    for _ in range(repeat):
        root = etree.fromstring(data, etree.XMLParser(**_OPTIONS))
        libc.mallopt(1, 0 if bins_off else default)
        t0 = time.perf_counter()
        del root
        t1 = time.perf_counter()
        lists = [[] for _ in range(10000)]
        t2 = time.perf_counter()
        del lists
        libc.mallopt(1, default)  # consolidates first
        t3 = time.perf_counter()
        rows.append(((t1 - t0) * 1e3, (t2 - t1) * 1e3, (t3 - t2) * 1e3))
    return tuple(statistics.median(r[i] for r in rows) for i in range(3))


def load_ms(text: str, switch: bool, repeat: int) -> list[float]:
    alloc.LARGE_DOCUMENT = SHIPPED if switch else sys.maxsize
    out = []
    for _ in range(repeat):
        t = time.perf_counter()
        load_model(text, "urdf")
        out.append((time.perf_counter() - t) * 1e3)
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=5, help="runs per block")
    p.add_argument("--blocks", type=int, default=6, help="alternating blocks of loads per side")
    p.add_argument("--sizes", default="1000,10000")
    args = p.parse_args()
    rows = []
    for n in [int(s) for s in args.sizes.split(",") if s]:
        text = synthetic_urdf(n)
        data = text.encode()
        for off in (False, True):
            free, stall, rest = free_ms(data, off, args.repeat)
            rows.append([f"{n}-link tree ({len(data) / 2**20:.1f} MB)", "off" if off else "on (glibc default)",
                         f"{free:.1f}", f"{stall:.1f}", f"{rest:.1f}", f"{free + stall + rest:.1f}", ""])
        loads: dict[bool, list[float]] = {False: [], True: []}
        load_ms(text, True, 1)
        for _ in range(args.blocks):
            for switch in (False, True):
                loads[switch] += load_ms(text, switch, max(1, args.repeat // 2))
        rows[-2][-1] = f"{statistics.median(loads[False]):.1f}"
        rows[-1][-1] = f"{statistics.median(loads[True]):.1f} (shipped)"
    print(table(rows, ["document", "fast bins", "free ms", "stall ms", "rest ms", "sum ms", "load_model ms"]))
    print(f"\n(medians of {args.repeat} runs; loads: {args.blocks} alternating blocks per side)")


if __name__ == "__main__":
    main()
