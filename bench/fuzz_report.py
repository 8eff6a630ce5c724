"""Mutation fuzzing figures for the README's reliability section.

    .venv/bin/python bench/fuzz_report.py [CASES_PER_FORMAT] [--seed N] [--save DIR]

Runs the mutations of test/fuzzing.py (the ones the test suite draws through hypothesis) from a
seeded random generator over the vendored corpus of every format and checks the same invariant:
a clean ModelError, or a model that exports to every format (or gets a ModelError) and whose every
export loads back to the same model, and from which a reduced model, a folded load and the node's /tf
poses (fuzzing.check_derived) come out valid or as a ModelError; a numpy RuntimeWarning on the way
counts as a crash.
Prints one table; inputs that break the invariant are saved with --save and make the exit code 1.
An export's refusal keeps the invariant, but a refusal of a sound model is a bug too (seed 7 found a JSON
export refusing a massless link far from its centre of mass): --refusals DIR lists every kind of refusal
with one input that gave it, to be read by a person.
"""

from __future__ import annotations

import argparse
import logging
import random
import sys
import time
import traceback
import warnings
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "test"))

from common import message_kind, save_kinds, table  # noqa: E402
from fuzzing import EXPORTS, FORMATS, Picker, check, mutate, seeds  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cases", nargs="?", type=int, default=1000, help="mutated inputs per format")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--save", type=Path, help="directory for the inputs that break the invariant")
    parser.add_argument("--formats", default=",".join(FORMATS))
    parser.add_argument("--targets", default=",".join(EXPORTS), help="export formats to check")
    parser.add_argument("--refusals", type=Path, help="directory for one input of each kind of export refusal")
    args = parser.parse_args()
    logging.disable(logging.WARNING)  # the loaders' warnings are expected by the thousand
    warnings.simplefilter("error", RuntimeWarning)  # as in test_fuzz: numpy's overflow warning is a crash here
    rows = []
    failures = 0
    targets = tuple(args.targets.split(","))
    refusals: dict[str, list] = {}
    for fmt in args.formats.split(","):
        rng = random.Random(f"{args.seed}:{fmt}")
        pick = Picker(rng.choice, rng.randint)
        corpus = seeds(fmt)
        counts: Counter = Counter()
        kinds: Counter = Counter()
        start = time.perf_counter()
        for case in range(args.cases):
            name, text = corpus[rng.randrange(len(corpus))]
            for _ in range(rng.randint(1, 3)):
                text = mutate(text, fmt, pick)
            counts["cases"] += 1
            try:
                outcome = check(text, fmt, targets, derived=True)
            except Exception as e:  # the invariant broke: a crash or an unloadable/different export
                failures += 1
                kind = "violation" if isinstance(e, AssertionError) else "crash"
                counts[kind] += 1
                kinds[f"{type(e).__name__}: {str(e).splitlines()[0][:100]}"] += 1
                if args.save:
                    args.save.mkdir(parents=True, exist_ok=True)
                    ext = {"idyntree-model-json": "json"}.get(fmt, fmt)
                    (args.save / f"{fmt}-{case}.{ext}").write_text(text, encoding="utf-8", errors="surrogatepass")
                    (args.save / f"{fmt}-{case}.txt").write_text(f"seed {name}\n{traceback.format_exc()}")
                continue
            if outcome.error is not None:
                counts["clean errors"] += 1
                continue
            counts["loaded"] += 1
            for target in targets:
                result = outcome.exports[target]
                counts["exports reloaded" if result == "ok" else "exports refused"] += 1
                if result != "ok" and args.refusals:
                    refusals.setdefault(f"{fmt} -> {target}: {message_kind(result)}", [0, text, result])[0] += 1
        seconds = time.perf_counter() - start
        rows.append([fmt, len(corpus), counts["cases"], counts["clean errors"], counts["loaded"],
                     counts["exports reloaded"], counts["exports refused"], counts["crash"], counts["violation"],
                     f"{seconds:.0f}"])
        for what, n in kinds.most_common(10):
            print(f"  {fmt}: {n} x {what}", file=sys.stderr)
    if args.refusals:
        save_kinds(args.refusals, refusals, lambda kind: {"idyntree-model-json": "json"}.get(kind.split()[0], kind.split()[0]))
        print(f"{len(refusals)} kinds of export refusal: {args.refusals / 'index.txt'}", file=sys.stderr)
    print(table(rows, ["format", "seeds", "cases", "clean ModelError", "loaded", "exports reloaded",
                       "exports refused (ModelError)", "crashes", "invariant violations", "seconds"]))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
