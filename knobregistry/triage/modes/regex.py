"""`--compare regex:PATTERN`: only the lines of standard output where PATTERN matches;
output whose matching lines all carry a rank prefix is compared rank by rank (see
knobregistry.triage.ranks)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from knobregistry.triage import ranks, streams
from knobregistry.triage.model import Run
from knobregistry.triage.modes.mode import CompareError, Mode, Unusable
from knobregistry.triage.modes.output import line_message


@dataclass(frozen=True, slots=True)
class _Matched:
    run: Run
    ranked: ranks.Ranked  # the matching lines' digest, and rank by rank


def _check(text: str, argument: str) -> None:
    try:
        re.compile(argument)
    except re.error as exc:
        raise CompareError(f"--compare '{text}': the pattern does not compile: {exc}.") from exc


def _matcher(argument: str) -> Callable[[str], bool]:
    pattern = re.compile(argument)
    return lambda text: pattern.search(text) is not None


def _observe(argument: str, run: Run) -> _Matched:
    ranked = ranks.ranked_digests(run.stdout, _matcher(argument))
    if not ranked.count and run.index == 1:
        raise Unusable(
            f"no line of run 1's output matches {argument!r}; check --compare "
            "against the command's output."
        )
    return _Matched(run, ranked)


def _difference(argument: str, first: _Matched, other: _Matched) -> str | None:
    one, two = first.run.stdout, other.run.stdout
    if first.ranked.by_rank:  # every matching line of run 1 is a rank's
        differ = ranks.differing_ranks(first.ranked, other.ranked)
        if not differ:
            return None
        pair = ranks.first_different_line(one, two, _matcher(argument), differ[0])
        more = f"; {len(differ) - 1} more ranks differ" if len(differ) > 2 else ""
        more = "; 1 more rank differs" if len(differ) == 2 else more
        return line_message(pair, f" of the output ({ranks.shown(differ[0])}{more})")
    if first.ranked.digest == other.ranked.digest:
        return None
    test = ranks.stripped(_matcher(argument))
    pair = streams.first_different_line(streams.matching(one, test), streams.matching(two, test))
    return line_message(pair, " of the output")


MODE = Mode(
    name="regex",
    argument="PATTERN",
    place=20,
    help="only the stdout lines it matches; rank by rank when they carry a rank prefix",
    docs=(
        "only the stdout lines where PATTERN matches (`re.search`), e.g. `regex:lm loss` to skip "
        "timings; rank by rank when every matching line carries a rank prefix (see "
        "[Distributed outputs](#distributed-outputs))",
        "the first differing matching line, with its line number in run 1's output (and its rank)",
    ),
    observe=_observe,
    difference=_difference,
    check=_check,
)
