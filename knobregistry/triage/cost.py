"""`--cost`: a speed metric per run, and what turning each knob off costs.

The metric is each run's wall time (`wall`) or the number that the one capture
group of `regex:PATTERN` finds in its stdout (the last match). Per knob, ``on``
is the median over the runs of the knob alone and ``off`` the median over the
baseline's; ``off_over_on`` is how many times slower the run is with the knob
off (a time: off / on; a throughput: on / off). ``spread`` is the run-to-run
noise: the larger relative range (max - min) / median of the two settings. A
ratio within ``max(spread, NOISE_FLOOR)`` of 1 is noise, not a cost.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import median

from knobregistry.triage.model import CostMetric, Outcome, Run, TriageResult

NOISE_FLOOR = 0.03  # timer and scheduler jitter: a smaller difference is never a cost
_LINE_LIMIT = 65536


class CostError(ValueError):
    """A --cost value that cannot be used."""


def parse_cost(text: str, higher_is_better: bool = False) -> CostMetric:
    """Parse a --cost value; raises CostError with what to write instead."""
    if text == "wall":
        if higher_is_better:
            raise CostError("--cost-higher-is-better: wall time is better lower; drop it.")
        return CostMetric("wall")
    kind, colon, pattern = text.partition(":")
    if kind != "regex" or not colon or not pattern:
        raise CostError(f"--cost '{text}': write wall or regex:PATTERN.")
    try:
        groups = re.compile(pattern).groups
    except re.error as exc:
        raise CostError(f"--cost '{text}': not a regular expression: {exc}.") from exc
    if groups != 1:
        raise CostError(
            f"--cost '{text}': the pattern needs exactly one capture group, the number "
            f"(it has {groups}), e.g. 'regex:tokens/s: ([0-9.]+)'."
        )
    return CostMetric("regex", pattern, higher_is_better)


def sample(metric: CostMetric, run: Run) -> float | None:
    """The metric of one run: None when it failed, or no line gave a number."""
    if run.timed_out or run.returncode != 0:
        return None
    if metric.kind == "wall":
        return run.wall_s
    pattern = re.compile(metric.pattern)
    found: float | None = None
    try:
        with run.stdout.open("rb") as stream:
            for raw in stream:
                match = pattern.search(raw[:_LINE_LIMIT].decode("utf-8", "replace"))
                if match is not None:
                    found = _number(match.group(1))
    except OSError:
        return None
    return found


def _number(text: str | None) -> float | None:
    try:
        return float(text) if text is not None else None
    except ValueError:
        return None


@dataclass(frozen=True, slots=True, kw_only=True)
class KnobCost:
    """What turning one knob off costs, measured."""

    knob: str
    on: float  # the median metric with the knob on
    off: float  # ... and off (the baseline)
    off_over_on: float  # > 1: the run is slower with the knob off
    spread: float  # the run-to-run relative range
    runs: int  # runs per setting

    @property
    def within_noise(self) -> bool:
        return abs(self.off_over_on - 1) <= max(self.spread, NOISE_FLOOR)


def knob_costs(result: TriageResult) -> dict[str, KnobCost | None]:
    """Each knob judged alone and its cost (None: some run gave no value); empty without --cost."""
    metric = result.cost
    if metric is None or result.stopped:
        return {}
    return {
        o.setting.knobs[0]: setting_cost(metric, o, result.baseline, result.runs)
        for o in result.alone
    }


def setting_cost(metric: CostMetric, on: Outcome, off: Outcome, runs: int) -> KnobCost | None:
    """What ``on``'s knobs cost when off, measured against ``off`` (the baseline);
    None when some run gave no value."""
    return _cost(on.setting.label, metric, _values(on), _values(off), runs)


def _values(outcome: Outcome) -> list[float] | None:
    values = [v for v in outcome.samples if v is not None]
    return values if values and len(values) == len(outcome.samples) else None


def _cost(
    knob: str,
    metric: CostMetric,
    on_values: Sequence[float] | None,
    off_values: Sequence[float] | None,
    runs: int,
) -> KnobCost | None:
    if not on_values or not off_values:
        return None
    on, off = median(on_values), median(off_values)
    if on <= 0 or off <= 0:
        return None
    ratio = on / off if metric.higher_is_better else off / on
    spread = max(_spread(on_values), _spread(off_values))
    return KnobCost(knob=knob, on=on, off=off, off_over_on=ratio, spread=spread, runs=runs)


def _spread(values: Sequence[float]) -> float:
    middle = median(values)
    return (max(values) - min(values)) / middle if middle > 0 else 0.0
