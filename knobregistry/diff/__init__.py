"""`knobs diff`: what a change does to the knobs, read from git objects without a checkout."""

from knobregistry.diff.compare import Change, KnobChange, KnobDiff, KnobState, compare, states
from knobregistry.diff.run import DiffError, knob_diff

__all__ = [
    "Change",
    "DiffError",
    "KnobChange",
    "KnobDiff",
    "KnobState",
    "compare",
    "knob_diff",
    "states",
]
