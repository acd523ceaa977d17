"""`--compare checksums:DIR`: the per-module checksums a run records with knobregistry.torch
into DIR, which triage names in KNOBS_CHECKSUMS (see knobregistry.triage.checksums); a
difference is recorded with where the runs first diverge."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from knobregistry._io.checksum_format import ENVIRONMENT_VARIABLE
from knobregistry.triage import checksums
from knobregistry.triage.model import Run
from knobregistry.triage.modes.mode import Mode, Unusable, inside, relative_path


@dataclass(frozen=True, slots=True)
class _Records:
    run: Run
    records: dict[int, checksums.RankRecords]  # rank by rank


def _environment(folder: Path, argument: str, env: Mapping[str, str]) -> Mapping[str, str]:
    """KNOBS_CHECKSUMS names the folder the run in ``folder`` records into."""
    return {**env, ENVIRONMENT_VARIABLE: str(folder.absolute() / argument)}


def _observe(argument: str, run: Run) -> _Records:
    path = inside(argument, run)
    try:
        return _Records(run, checksums.read_folder(path, argument))
    except checksums.ChecksumsError as exc:
        raise Unusable(f"run {run.index} {exc}") from exc


def _difference(argument: str, first: _Records, other: _Records) -> str | None:
    return checksums.difference(first.records, other.records, other.run.index)


def _records(detail: str) -> Mapping[str, Any]:
    """A breaking record's `diverges`: the step, pass and module of the first difference."""
    return {"diverges": checksums.location(detail)} if detail else {}


MODE = Mode(
    name="checksums",
    argument="DIR",
    place=50,
    help="per-module checksums the script records with knobregistry.torch into DIR, named in "
    "KNOBS_CHECKSUMS",
    docs=(
        "the per-module checksums each run records with `knobregistry.torch` into DIR (triage "
        "sets `KNOBS_CHECKSUMS` to the run's own DIR): a fingerprint of every module's outputs, "
        "of the gradients through it and of each parameter's gradient, step by step (see "
        "[Where runs diverge](checksums.md))",
        "the first differing record in execution order: `first difference at step 0, backward, "
        "model.layers.3.attn (grad_input[0]); 12 more modules differ after it`; with "
        "`--record`, kept as the record's `diverges` and shown by `knobs explain`",
        "the rank with the earliest differing step",
    ),
    observe=_observe,
    difference=_difference,
    check=relative_path,
    environment=_environment,
    records=_records,
)
