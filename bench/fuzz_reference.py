"""Differential fuzzing of the SDF reader against libsdformat 12 itself.

    .venv/bin/python bench/fuzz_reference.py [CASES] [--seed N] [--save DIR]

The mutations of test/fuzzing.py, applied to the SDF 1.4-1.9 files of the corpus that libsdformat accepts
(without <include>, whose relative URIs the two resolve differently: docs/sdf.md), each read by both:
libsdformat through test/reference/sdformat_dump.cpp (compiled as test_sdf.py compiles it) and ours. The
invariant of bench/fuzz_report.py says our reader is safe; this one says it is right, as far as libsdformat
is: a file it refuses we refuse (or it is a documented difference), a file it reads we read to the same
links, poses, joints, axes, limits, frames and sensors (test_sdf.compare_with_libsdformat). Prints one table
of the disagreements by kind; --save keeps one input of each kind with what each reader said.
"""

from __future__ import annotations

import argparse
import logging
import random
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "test"))

from idyntree_models.errors import ModelError  # noqa: E402
from idyntree_models.formats import sdf  # noqa: E402
from idyntree_models.formats.base import Diagnostics, LoadOptions  # noqa: E402

from common import table  # noqa: E402
from fuzzing import Picker, mutate  # noqa: E402


def _compile() -> Path:
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "sdformat12"], capture_output=True, text=True)
    if flags.returncode != 0:
        sys.exit("libsdformat12 (libsdformat-dev) is not installed: nothing to compare with")
    import test_sdf

    test_sdf.BUILD.mkdir(parents=True, exist_ok=True)
    exe = test_sdf.BUILD / "sdformat_dump"
    if not exe.exists() or exe.stat().st_mtime < test_sdf.REF_SRC.stat().st_mtime:
        done = subprocess.run(["g++", "-std=c++17", "-O1", str(test_sdf.REF_SRC), *flags.stdout.split(), "-o", str(exe)],
                              capture_output=True, text=True)
        if done.returncode != 0:
            sys.exit(done.stderr)
    return exe


def _version(text: str) -> tuple[int, int] | None:
    m = re.search(r"<sdf\s+version\s*=\s*[\"'](\d+)\.(\d+)", text)
    return (int(m.group(1)), int(m.group(2))) if m else None


def _kind(message: str) -> str:
    """A message without its file, names, numbers and lines, so that one kind is counted once."""
    message = re.sub(r"^\S+\.sdf: ", "", message)
    message = re.sub(r"'[^']*'|\[[^\]]*\]", "_", message)
    return re.sub(r"[-+]?\d[\d.e+-]*", "N", message)[:160]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cases", nargs="?", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--save", type=Path, help="directory for one input of each kind of disagreement")
    args = parser.parse_args()
    logging.disable(logging.WARNING)
    import test_sdf

    exe = _compile()
    corpus = []
    for path in test_sdf._sdf_files():
        text = path.read_text(encoding="utf-8", errors="replace")
        version = _version(text)
        if version is None or version > (1, 9) or "<include" in text or path.name in test_sdf.DIFFERENT:
            continue
        if test_sdf._ref(exe, path)["ok"]:
            corpus.append((path.name, text))
    rng = random.Random(f"{args.seed}:sdf-reference")
    pick = Picker(rng.choice, rng.randint)
    counts: Counter = Counter()
    kinds: dict[str, list] = {}
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "case.sdf"
        for _ in range(args.cases):
            name, text = corpus[rng.randrange(len(corpus))]
            for _m in range(rng.randint(1, 3)):
                text = mutate(text, "sdf", pick)
            path.write_text(text, encoding="utf-8", errors="surrogatepass")
            try:
                ref = test_sdf._ref(exe, path)
            except (ValueError, subprocess.TimeoutExpired) as e:  # (a dump that is no JSON: a libsdformat crash)
                counts["libsdformat failed"] += 1
                kinds.setdefault(f"libsdformat failed: {type(e).__name__}", [0, name, text, str(e)])[0] += 1
                continue
            opts = LoadOptions(base_dir=tmp, search_paths=(str(test_sdf.MODEL_PATH),))
            try:
                graph = sdf.read_sdf(path.read_bytes(), opts, Diagnostics(str(path)))
                sdf.graph_to_model(graph, Diagnostics(str(path)))
                ours = None
            except ModelError as e:
                ours = str(e)
            if not ref["ok"] or "model" not in ref:
                verdict = "both refuse" if ours is not None else "libsdformat refuses, ours reads"
                why = " | ".join(ref.get("errors", []))[:300] or "no model"
            elif ours is not None:
                verdict, why = "libsdformat reads, ours refuses", ours
            else:
                try:
                    test_sdf.compare_with_libsdformat(exe, path)
                    verdict, why = "both read, the same", ""
                except AssertionError as e:
                    verdict, why = "both read, differently", str(e).splitlines()[0][:300] if str(e) else "assert"
            counts[verdict] += 1
            if verdict not in ("both refuse", "both read, the same"):
                kind = f"{verdict}: {_kind(why)}"
                kinds.setdefault(kind, [0, name, text, f"libsdformat: {ref.get('errors')}\nours: {ours}\n{why}"])[0] += 1
    seconds = time.perf_counter() - start
    print(table([[v, n] for v, n in counts.most_common()], ["verdict", "cases"]))
    print(f"\n{args.cases} cases from {len(corpus)} seed files in {seconds:.0f} s")
    for i, (kind, (n, seed, text, detail)) in enumerate(sorted(kinds.items(), key=lambda kv: -kv[1][0])):
        print(f"  {i:03d} ({n} x) {kind}", file=sys.stderr)
        if args.save:
            args.save.mkdir(parents=True, exist_ok=True)
            (args.save / f"{i:03d}.sdf").write_text(text, encoding="utf-8", errors="surrogatepass")
            (args.save / f"{i:03d}.txt").write_text(f"seed {seed}\n{kind}\n{detail}\n", encoding="utf-8",
                                                     errors="surrogatepass")
    return 0


if __name__ == "__main__":
    sys.exit(main())
