"""How often the scanner answers "unknown" on generated gates, and whether it is ever wrong.

    python benchmarks/generated_gates.py [--examples N] [--seed S]

Draws N gate modules from the property test's strategy (tests/strategies.py:
string equality and membership with arbitrary strings, numbers compared as ints,
the on/off words, presence tests), scans each, and holds the verdict against
what CPython really does with the variable unset and set to every probed value
(tests/oracle.py, the property test's check). The property test skips unknown
verdicts; this prints how many there were, beside the switches and values that
were checked and any that were wrong (with their source). Exits 1 when one was
wrong.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hypothesis import HealthCheck, given, seed, settings

from tests.oracle import judged
from tests.strategies import gate_sources

SHOWN_WRONG = 5


def measure(examples: int, chosen_seed: int) -> tuple[Counter[str], list[str]]:
    """The verdicts of ``examples`` generated gates, counted, and the sources judged wrong."""
    counts: Counter[str] = Counter()
    wrong: list[str] = []

    @seed(chosen_seed)
    @settings(
        max_examples=examples,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(gate_sources())
    def draw(source: str) -> None:
        try:
            counts[judged(source)] += 1
        except AssertionError:
            counts["wrong"] += 1
            wrong.append(source)

    draw()
    return counts, wrong


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=500, help="gates to draw (500)")
    parser.add_argument("--seed", type=int, default=0, help="the draw's seed (0)")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    counts, wrong = measure(args.examples, args.seed)
    total = sum(counts.values())
    took = time.perf_counter() - started
    print(f"generated gates: {total} drawn (seed {args.seed}), {took:.1f} s")
    for verdict, meaning in (
        ("switch", "switch verdicts that hold in CPython"),
        ("value", "value verdicts that hold in CPython"),
        ("unknown", "unknown (not checked)"),
        ("wrong", "wrong"),
    ):
        share = 100 * counts[verdict] / total if total else 0.0
        print(f"  {verdict:<8}{counts[verdict]:>6}  {share:5.1f}%  {meaning}")
    for source in wrong[:SHOWN_WRONG]:
        print("\nwrong:\n" + source)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
