"""`--compare tensors:PATH`: a `torch.save`d tensor or dict of tensors, compared bit for
bit; or a folder of a distributed run's shards (see knobregistry.triage.shards)."""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from knobregistry.triage import shards
from knobregistry.triage.model import Run
from knobregistry.triage.modes.mode import (
    CompareError,
    Mode,
    Unusable,
    inside,
    relative_path,
    written_file,
)
from knobregistry.triage.tensors import TensorFileError, load_tensors, tensors_difference


@dataclass(frozen=True, slots=True, kw_only=True)
class _Tensors:
    run: Run
    tensors: dict[str, Any] | None = None  # a file's
    shards: Path | None = None  # a folder of a distributed run's shards


def _check(text: str, argument: str) -> None:
    relative_path(text, argument)
    if importlib.util.find_spec("torch") is None:
        raise CompareError(
            f"--compare '{text}' needs torch in the environment that runs knobs; pip install torch."
        )


def _observe(argument: str, run: Run) -> _Tensors:
    path = inside(argument, run)
    try:
        if path.is_dir():
            shards.check_folder(path, argument)
            return _Tensors(run=run, shards=path)
        written = written_file(argument, run, path)
        return _Tensors(run=run, tensors=load_tensors(written, argument))
    except TensorFileError as exc:
        raise Unusable(f"run {run.index}: {exc}") from exc


def _difference(argument: str, first: _Tensors, other: _Tensors) -> str | None:
    if first.tensors is not None and other.tensors is not None:
        found = tensors_difference(first.tensors, other.tensors)
        return f"at {found}" if found is not None else None
    if first.shards is not None and other.shards is not None:
        try:
            return shards.folder_difference(first.shards, other.shards, argument)
        except TensorFileError as exc:
            raise Unusable(f"run {other.run.index}: {exc}") from exc
    one, two = ("a folder", "a file") if first.shards is not None else ("a file", "a folder")
    return f"in kind: run 1 wrote {argument} as {one}, run {other.run.index} as {two}"


MODE = Mode(
    name="tensors",
    argument="PATH",
    place=40,
    help="a torch.save file, or a folder of a distributed run's shards",
    docs=(
        "a `torch.save`d tensor, or a dict / list of them (nested), loaded with "
        "`torch.load(weights_only=True)` on the CPU, bit for bit",
        "the first differing element: `params.pt['lm_head.weight'][3, 7]: a != b; 17 of 2048 "
        "elements differ, max abs diff 5.96e-08 (and 2 more tensors differ)`; or the keys, "
        "dtype or shape that differ. A folder: every shard of a distributed checkpoint (see "
        "[Distributed outputs](#distributed-outputs))",
        "the first differing tensor by its key and rank",
    ),
    observe=_observe,
    difference=_difference,
    check=_check,
)
