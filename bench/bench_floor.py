"""The floor under the load-time targets: what lxml and the interpreter cost before any model logic.

    .venv/bin/python bench/bench_floor.py [--repeat N] [--sizes 10000,100000]

For each model of bench_targets.py's load rows, timed alternately with its reference (as there):
  parse    lxml parses the document (a 100,000-link file is streamed, as our reader does, since its
           tree alone would pass the 500 MB limit);
  visit    parse, then Python visits every element once and reads its tag, text and every attribute
           value: the least any reader written in Python over lxml does;
  numbers  visit, plus every number of the document converted to float in one numpy call (the
           cheapest conversion there is, with no check of the grammar, no error message, no line);
  ours     load_model, the whole load (checks, model objects, validation, the tree).
No model logic runs in the three floors: nothing is checked, no object of the model is made.  When a
floor's ratio is already at or above the target, no reader of this design can meet it; the gap
between `numbers` and `ours` is everything else a load does.
"""

from __future__ import annotations

import argparse
import logging
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from lxml import etree

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_targets import BIPED, ICUB02, ICUB04, TIAGO, idyntree_load  # noqa: E402
from idyntree_models import export_model, load_model  # noqa: E402

from common import find_model, paired_ms, synthetic_urdf, table  # noqa: E402

logging.disable(logging.WARNING)
_OPTIONS = {"resolve_entities": False, "no_network": True, "huge_tree": True, "remove_comments": True}
# the attributes that hold numbers in URDF (SDFormat and SKEL hold theirs in element text): a reader
# knows which it reads
_NUMBER_ATTRS = frozenset(("xyz", "rpy", "value", "ixx", "ixy", "ixz", "iyy", "iyz", "izz", "size", "radius",
                           "length", "lower", "upper", "effort", "velocity", "scale", "rgba", "damping", "friction",
                           "multiplier", "offset"))


def parse(data: bytes) -> etree._Element:
    return etree.fromstring(data, etree.XMLParser(**_OPTIONS))


def visit(root: etree._Element, numbers: list[str] | None = None) -> None:
    """Every element's tag, text and attribute values read once; number strings collected."""
    for el in root.iter(etree.Element):
        tag = el.tag
        text = el.text
        if numbers is not None and text is not None and tag not in ("uri", "name", "type", "parent", "child"):
            s = text.strip()
            if s[:1] in "-+.0123456789" and s:
                numbers.append(s)
        for name, value in el.items():
            if numbers is not None and name in _NUMBER_ATTRS:
                numbers.append(value)


def convert(numbers: list[str]) -> np.ndarray:
    return np.array(" ".join(numbers).split(), dtype=float)


def floors(data: bytes) -> dict[str, Callable[[], object]]:
    def numbers() -> None:
        found: list[str] = []
        visit(parse(data), found)
        convert(found)

    return {"parse": lambda: parse(data), "visit": lambda: visit(parse(data)), "numbers": numbers}


def streamed_floors(path: Path) -> dict[str, float]:
    """The floors of a file too big for a tree: top-level elements streamed and freed (one run each)."""
    out = {}
    for what in ("parse", "visit", "numbers"):
        t = time.perf_counter()
        found: list[str] | None = [] if what == "numbers" else None
        for _, el in etree.iterparse(str(path), events=("end",), tag=("link", "joint"), **_OPTIONS):
            if what != "parse":
                visit(el, found)
            el.clear(keep_tail=True)
            parent = el.getparent()
            while el.getprevious() is not None:
                del parent[0]
        if found is not None:
            convert(found)
        out[what] = time.perf_counter() - t
    return out


def _row(label: str, data: bytes, ours: Callable[[], object], ref: Callable[[], object], ref_name: str,
         target: float, repeat: int) -> list[object]:
    """The three floors and our load, each timed alternately with `ref`, as ratios to it."""
    ratios, ref_ms = [], []
    for fn in list(floors(data).values()) + [ours]:
        a, b = paired_ms(fn, ref, repeat)
        ratios.append(a / b)
        ref_ms.append(b)
    return ([label, f"{ref_name} {statistics.median(ref_ms):.2f} ms"] + [f"{r:.2f}" for r in ratios]
            + [f"<= {target}", f"{target - ratios[2]:+.2f}"])


def paired_rows(repeat: int) -> list[list[object]]:
    rows = []
    for label, rel in (("URDF iCubGenova02", ICUB02), ("URDF iCubGenova04", ICUB04), ("URDF tiago_dual", TIAGO),
                       ("URDF synthetic 1000-link tree", None)):
        path = find_model(rel) if rel else None
        if rel and path is None:
            rows.append([label, "model not present"] + [""] * 6)
            continue
        text = path.read_text() if path else synthetic_urdf(1000)
        rows.append(_row(label, text.encode(), lambda: load_model(text, "urdf"), lambda: idyntree_load(text),
                         "iDynTree", 1.0, repeat))
    biped = find_model(BIPED)
    if biped is None:
        rows.append(["SKEL biped.skel", "model not present"] + [""] * 6)
    else:
        import dartpy

        rows.append(_row("SKEL biped.skel", biped.read_bytes(), lambda: load_model(biped),
                         lambda: dartpy.utils.SkelParser.readWorld(str(biped)), "dartpy", 2.0, repeat))
    urdf = find_model(ICUB04)
    if urdf is None:
        rows.append(["SDF iCubGenova04", "model not present"] + [""] * 6)
    else:
        with tempfile.TemporaryDirectory() as d:
            sdf = Path(d) / "model.sdf"
            sdf.write_text(export_model(load_model(urdf), "sdf"))
            rows.append(_row("SDF iCubGenova04", sdf.read_bytes(), lambda: load_model(sdf), lambda: load_model(urdf),
                             "our URDF load", 1.5, repeat))
    return rows


def big_rows(sizes: list[int]) -> list[list[object]]:
    rows = []
    with tempfile.TemporaryDirectory() as d:
        for n in sizes:
            path = Path(d) / f"tree{n}.urdf"
            path.write_text(synthetic_urdf(n))
            target = 0.5 if n == 10000 else 5.0 * n / 100000
            if n <= 10000:
                data = path.read_bytes()
                f = {k: statistics.median(_times(fn, 3)) for k, fn in floors(data).items()}
            else:
                f = streamed_floors(path)
            t = time.perf_counter()
            load_model(path)
            ours = time.perf_counter() - t
            rows.append([f"URDF synthetic {n}-link tree", "(absolute, s)", f"{f['parse']:.2f} s", f"{f['visit']:.2f} s",
                         f"{f['numbers']:.2f} s", f"{ours:.2f} s", f"<= {target:g} s",
                         f"{target - f['numbers']:+.2f} s"])
    return rows


def _times(fn, n: int) -> list[float]:
    out = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=21, help="timed runs of each side per row")
    p.add_argument("--sizes", default="10000,100000", help="synthetic trees timed in absolute terms")
    args = p.parse_args()
    rows = paired_rows(args.repeat) + big_rows([int(s) for s in args.sizes.split(",") if s])
    print(table(rows, ["load", "reference", "parse", "visit", "numbers", "ours", "target",
                       "left for the model (target - numbers)"]))
    print(f"\n(ratios to the reference: medians of {args.repeat} alternating runs per side; big trees: one run, "
          "seconds)")


if __name__ == "__main__":
    main()
