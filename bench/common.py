"""Helpers shared by the benchmark scripts: timing, tables, and synthetic models."""

from __future__ import annotations

import re
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MODELS = (REPO.parent / "shared" / "models").resolve()
VENDORED = REPO / "test" / "models"


def find_model(rel: str) -> Path | None:
    """A corpus file: ../shared/models first, then the vendored copy; None when neither has it."""
    for root in (MODELS, VENDORED):
        if (root / rel).is_file():
            return root / rel
    return None


def median_ms(fn: Callable[[], object], repeat: int = 30, warmup: int = 3) -> float:
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1e3


def paired_ms(ours: Callable[[], object], ref: Callable[[], object], repeat: int = 21,
              warmup: int = 2) -> tuple[float, float]:
    """Medians (ms) of two functions timed alternately, so that machine load hits both alike."""
    for _ in range(warmup):
        ours()
        ref()
    a, b = [], []
    for i in range(repeat):
        for fn, acc in ((ours, a), (ref, b)) if i % 2 == 0 else ((ref, b), (ours, a)):
            t = time.perf_counter()
            fn()
            acc.append(time.perf_counter() - t)
    return statistics.median(a) * 1e3, statistics.median(b) * 1e3


def table(rows: list[list[object]], header: list[str]) -> str:
    cells = [header] + [[f"{c:.3f}" if isinstance(c, float) else str(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    line = lambda r: "| " + " | ".join(c.ljust(w) for c, w in zip(r, widths)) + " |"  # noqa: E731
    return "\n".join([line(cells[0]), "|" + "|".join("-" * (w + 2) for w in widths) + "|"] + [line(r) for r in cells[1:]])


def synthetic_urdf(n_links: int, seed: int = 0, branching: int = 3) -> str:
    """A random tree of `n_links` links: revolute/prismatic/fixed joints, inertias, a box per link."""
    import random

    rng = random.Random(seed)
    out = ['<robot name="synthetic">']
    for i in range(n_links):
        m = 0.5 + rng.random()
        out.append(
            f'<link name="link{i}"><inertial><origin xyz="{rng.random():.4f} 0 0" rpy="0 {rng.random():.3f} 0"/>'
            f'<mass value="{m:.4f}"/><inertia ixx="0.02" ixy="0" ixz="0" iyy="0.02" iyz="0" izz="0.03"/></inertial>'
            f'<visual><geometry><box size="0.1 0.1 0.1"/></geometry></visual></link>'
        )
    for i in range(1, n_links):
        parent = rng.randrange(max(0, i - branching * 4), i)
        kind = rng.choice(["revolute", "revolute", "revolute", "prismatic", "fixed"])
        limit = '<limit lower="-1" upper="1" effort="10" velocity="1"/>' if kind != "fixed" else ""
        axis = f'<axis xyz="{rng.random():.3f} {rng.random():.3f} 1"/>' if kind != "fixed" else ""
        out.append(
            f'<joint name="joint{i}" type="{kind}"><origin xyz="0.1 {rng.random():.3f} 0.2" rpy="0.1 0 {rng.random():.3f}"/>'
            f'<parent link="link{parent}"/><child link="link{i}"/>{axis}{limit}</joint>'
        )
    out.append("</robot>")
    return "\n".join(out)


def message_kind(message: str) -> str:
    """A message without its file, names, numbers and lines, so that the fuzzers count one kind once."""
    message = re.sub(r"^\S+\.(sdf|urdf|skel|xml|json): ", "", message)
    message = re.sub(r"'[^']*'|\[[^\]]*\]", "_", message)
    return re.sub(r"[-+]?\d[\d.e+-]*", "N", message)[:240]


def save_kinds(where: Path | None, kinds: dict[str, list], ext_of: Callable[[str], str]) -> None:
    """List the kinds (count, an input, what was said of it), most frequent first, on stderr; with `where`, keep
    each kind's input as NNN.<ext> and what was said as NNN.txt, and the list as index.txt."""
    lines = []
    for i, (kind, (n, text, detail)) in enumerate(sorted(kinds.items(), key=lambda kv: -kv[1][0])):
        lines.append(f"{i:03d} ({n} x) {kind}")
        print(f"  {lines[-1]}", file=sys.stderr)
        if where is not None:
            where.mkdir(parents=True, exist_ok=True)
            (where / f"{i:03d}.{ext_of(kind)}").write_text(text, encoding="utf-8", errors="surrogatepass")
            (where / f"{i:03d}.txt").write_text(f"{kind}\n{detail}\n", encoding="utf-8", errors="surrogatepass")
    if where is not None:
        (where / "index.txt").write_text("\n".join(lines) + "\n", encoding="utf-8", errors="surrogatepass")
