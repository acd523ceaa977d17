"""`knobs triage`: run a command under knob settings and judge, bit for bit, which knobs break
reproducibility; record the verdicts and their evidence in the registry."""

from knobregistry.triage.compare import MODES, CompareMode, judge, parse_compare
from knobregistry.triage.engine import Options, Progress, Quiet, triage
from knobregistry.triage.host import Host, describe_host
from knobregistry.triage.model import (
    Bisection,
    Outcome,
    Plan,
    Run,
    Setting,
    Status,
    TriageKnob,
    TriageResult,
    status_of,
)
from knobregistry.triage.modes import CompareError
from knobregistry.triage.plan import PlanError, ddmin, make_plan
from knobregistry.triage.record import Recorded, knob_updates, record_triage
from knobregistry.triage.runner import ORIGIN_VARIABLE, RUN_DIR_VARIABLE, Runner, resolve_arguments
from knobregistry.triage.yaml_edit import KnobUpdate, RecordEdit, RecordError, experiment

__all__ = [
    "MODES",
    "ORIGIN_VARIABLE",
    "RUN_DIR_VARIABLE",
    "Bisection",
    "CompareError",
    "CompareMode",
    "Host",
    "KnobUpdate",
    "Options",
    "Outcome",
    "Plan",
    "PlanError",
    "Progress",
    "Quiet",
    "RecordEdit",
    "RecordError",
    "Recorded",
    "Run",
    "Runner",
    "Setting",
    "Status",
    "TriageKnob",
    "TriageResult",
    "ddmin",
    "describe_host",
    "experiment",
    "judge",
    "knob_updates",
    "make_plan",
    "parse_compare",
    "record_triage",
    "resolve_arguments",
    "status_of",
    "triage",
]
