"""`--compare checksums:DIR`: two runs' record files on disk, judged (golden messages).

The files here are written by hand in the recorder's format, so that every way two runs
can differ is shown; tests/test_checksums_record.py writes them with real torch.
"""

from __future__ import annotations

import json
from collections.abc import Set
from pathlib import Path

import pytest

from knobregistry.registry import Verdict
from knobregistry.triage import Run, judge, parse_compare
from knobregistry.triage.checksums import location

HEADER = {"format": "knobs-checksums", "version": 1, "rank": 0, "world_size": 1}

# One step of a model whose layers.3.attn differs in its backward: what a run records.
PLACES = [
    (0, "forward", "model.layers.2.attn", "output"),
    (0, "forward", "model.layers.3.attn", "output[0]"),
    (0, "forward", "model.head", "output"),
    (0, "backward", "model.head", "weight.grad"),
    (0, "backward", "model.head", "grad_output[0]"),
    (0, "backward", "model.layers.3.attn", "grad_output[0]"),
    (0, "backward", "model.layers.3.attn", "grad_input[0]"),
    (0, "backward", "model.layers.2.attn", "grad_output[0]"),
    (0, "backward", "model.layers.2.attn", "weight.grad"),
    (1, "forward", "model.layers.2.attn", "output"),
]


def records(changed: Set[int] = frozenset(), places: list[tuple[int, str, str, str]] = PLACES,
            unreadable: Set[int] = frozenset()) -> list[dict[str, object]]:  # fmt: skip
    out: list[dict[str, object]] = []
    for index, (step, pass_, module, tensor) in enumerate(places):
        digest: str | None = f"{index:02d}" * 16 if index not in changed else "ff" * 16
        record: dict[str, object] = {"step": step, "pass": pass_, "module": module}
        record |= {"tensor": tensor, "dtype": "float32", "shape": [2], "blake2b": digest}
        if index in unreadable:
            record |= {"blake2b": None, "why": "Cannot access data pointer of a meta tensor"}
        out.append(record)
    return out


def write_run(root: Path, index: int, ranks: dict[int, list[dict[str, object]]]) -> Run:
    folder = root / f"run-{index}"
    (folder / "ck").mkdir(parents=True)
    for rank, lines in ranks.items():
        header = {**HEADER, "rank": rank, "world_size": len(ranks)}
        text = "\n".join(json.dumps(x) for x in [header, *lines]) + "\n"
        (folder / "ck" / f"rank-{rank}.jsonl").write_text(text)
    out, err = root / f"run-{index}.stdout", root / f"run-{index}.stderr"
    out.write_text("")
    err.write_text("")
    return Run(index=index, folder=folder, stdout=out, stderr=err, returncode=0)


def judged(tmp_path: Path, *runs: dict[int, list[dict[str, object]]]) -> tuple[Verdict, str]:
    written = [write_run(tmp_path, i, ranks) for i, ranks in enumerate(runs, 1)]
    return judge(parse_compare("checksums:ck"), written, None)


def test_equal_records_are_reproducible(tmp_path: Path) -> None:
    assert judged(tmp_path, {0: records()}, {0: records()}) == (Verdict.REPRODUCIBLE, "")


def test_the_first_differing_record_names_step_pass_module_and_tensor(tmp_path: Path) -> None:
    verdict, detail = judged(tmp_path, {0: records()}, {0: records({6, 7, 8, 9})})
    assert verdict is Verdict.BREAKS_BITWISE
    assert detail == (
        "run 2 differs from run 1 in its checksums: first difference at step 0, backward, "
        "model.layers.3.attn (grad_input[0]); 1 more module differs after it"
    )
    assert location(detail) == "step 0, backward, model.layers.3.attn (grad_input[0])"


def test_a_difference_in_the_forward_pass_and_no_module_after_it(tmp_path: Path) -> None:
    verdict, detail = judged(tmp_path, {0: records()}, {0: records({2})})
    assert (verdict, detail) == (
        Verdict.BREAKS_BITWISE,
        "run 2 differs from run 1 in its checksums: first difference at step 0, forward, "
        "model.head (output)",
    )


def test_the_third_run_is_named_when_it_alone_differs(tmp_path: Path) -> None:
    verdict, detail = judged(tmp_path, {0: records()}, {0: records()}, {0: records({9})})
    assert (verdict, detail) == (
        Verdict.BREAKS_BITWISE,
        "run 3 differs from run 1 in its checksums: first difference at step 1, forward, "
        "model.layers.2.attn (output)",
    )


def test_records_that_could_not_be_fingerprinted_before_it_are_counted(tmp_path: Path) -> None:
    verdict, detail = judged(
        tmp_path, {0: records(unreadable={1})}, {0: records({3, 4}, unreadable={1})}
    )
    assert (verdict, detail) == (
        Verdict.BREAKS_BITWISE,
        "run 2 differs from run 1 in its checksums: first difference at step 0, backward, "
        "model.head (weight.grad); 1 tensor before it could not be fingerprinted, so the "
        "difference may start earlier",
    )


def test_the_earliest_step_of_all_ranks_is_shown_with_its_rank(tmp_path: Path) -> None:
    verdict, detail = judged(
        tmp_path,
        {0: records(), 1: records(), 2: records()},
        {0: records({9}), 1: records({5, 6, 8}), 2: records()},
    )
    assert (verdict, detail) == (
        Verdict.BREAKS_BITWISE,
        "run 2 differs from run 1 in its checksums: first difference at step 0, backward, "
        "model.layers.3.attn (grad_output[0]) on rank 1; 1 more module differs after it "
        "(1 more rank also differs)",
    )
    assert location(detail) == "step 0, backward, model.layers.3.attn (grad_output[0]) on rank 1"


def test_runs_that_recorded_other_modules_say_so(tmp_path: Path) -> None:
    other = [*PLACES[:2], (0, "forward", "model.mlp", "output"), *PLACES[3:]]
    verdict, detail = judged(tmp_path, {0: records()}, {0: records(places=other)})
    assert (verdict, detail) == (
        Verdict.BREAKS_BITWISE,
        "run 2 differs from run 1 in its checksums: the runs recorded different tensors (the "
        "modules ran in another order, or other modules ran): step 0, forward, model.head "
        "(output) in run 1, step 0, forward, model.mlp (output) in run 2",
    )


def test_a_shorter_run_and_other_ranks_say_so(tmp_path: Path) -> None:
    verdict, detail = judged(tmp_path, {0: records()}, {0: records()[:-1]})
    assert (verdict, detail) == (
        Verdict.BREAKS_BITWISE,
        "run 2 differs from run 1 in its checksums: run 1 recorded more, from step 1, forward, "
        "model.layers.2.attn (output)",
    )
    verdict, detail = judged(tmp_path / "b", {0: records()}, {0: records(), 1: records()})
    assert (verdict, detail) == (
        Verdict.BREAKS_BITWISE,
        "run 2 differs from run 1 in its checksum files: run 1 wrote ranks 0, run 2 ranks 0, 1",
    )


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "run 1 wrote no folder ck; the training script must call checksums_from_env("
         "model, optimizer) from knobregistry.torch (python -m pydoc knobregistry.torch)"),
        ({}, "run 1 wrote no rank-R.jsonl in ck; the training script must call "
         "checksums_from_env(model, optimizer) before training "
         "(python -m pydoc knobregistry.torch)"),
        ({"rank-0.jsonl": json.dumps(HEADER) + "\n"}, "run 1 recorded no checksums in ck: no "
         "hooked module ran; attach the model that is trained"),
        ({"rank-0.jsonl": "{\"format\": \"other\"}\n"}, "run 1 wrote ck/rank-0.jsonl, which does "
         "not start with a knobs-checksums header"),
        ({"rank-0.jsonl": json.dumps({**HEADER, "version": 2}) + "\n"}, "run 1 wrote "
         "ck/rank-0.jsonl in format version 2; this knobs reads version 1"),
        ({"rank-0.jsonl": json.dumps(HEADER) + "\n{oops\n"}, "run 1 wrote ck/rank-0.jsonl, "
         "whose line 2 is not JSON (Expecting property name enclosed in double quotes)"),
        ({"rank-0.jsonl": json.dumps(HEADER) + "\n" + json.dumps({"step": -1}) + "\n"},
         "run 1 wrote ck/rank-0.jsonl, whose line 2 has no 'step' (a number, 0 or more)"),
        ({"rank-0.jsonl": json.dumps(HEADER) + '\n{"step": 0, "pass": "sideways"}\n'},
         "run 1 wrote ck/rank-0.jsonl, whose line 2 has no 'pass' (forward or backward)"),
        ({"rank-0.jsonl": json.dumps(HEADER) + "\n[1]\n"}, "run 1 wrote ck/rank-0.jsonl, whose "
         "line 2 is not a record (a JSON object)"),
    ],
    ids=["no-folder", "no-file", "no-record", "header", "version", "json", "step", "pass",
         "object"],
)  # fmt: skip
def test_records_that_cannot_be_compared_are_an_error(
    tmp_path: Path, content: dict[str, str] | None, message: str
) -> None:
    run = write_run(tmp_path, 1, {})
    other = write_run(tmp_path, 2, {0: records()})
    (run.folder / "ck").rmdir()
    if content is not None:
        (run.folder / "ck").mkdir()
        for name, text in content.items():
            (run.folder / "ck" / name).write_text(text)
    assert judge(parse_compare("checksums:ck"), [run, other], None) == (Verdict.ERROR, message)


def test_files_that_are_not_rank_files_are_not_read(tmp_path: Path) -> None:
    run = write_run(tmp_path, 1, {0: records()})
    (run.folder / "ck" / "notes.txt").write_text("not json")
    (run.folder / "ck" / "rank-01.jsonl").write_text("not json")  # not how ranks are named
    other = write_run(tmp_path, 2, {0: records()})
    assert judge(parse_compare("checksums:ck"), [run, other], None) == (Verdict.REPRODUCIBLE, "")


def test_the_mode_sets_the_run_folder_in_the_environment(tmp_path: Path) -> None:
    mode = parse_compare("checksums:out/ck")
    env = mode.environment(tmp_path / "run-1", {"A": "1"})
    assert env == {"A": "1", "KNOBS_CHECKSUMS": str(tmp_path / "run-1" / "out" / "ck")}
    assert parse_compare("stdout").environment(tmp_path, {"A": "1"}) == {"A": "1"}


def test_names_from_the_files_are_shown_escaped_and_cut(tmp_path: Path) -> None:
    long = "blocks." + "x" * 200
    places = [(0, "forward", "evil\x1b[31m", "output"), (0, "forward", long, "output")]
    verdict, detail = judged(
        tmp_path, {0: records(places=places)}, {0: records({0, 1}, places=places)}
    )
    assert (verdict, detail) == (
        Verdict.BREAKS_BITWISE,
        "run 2 differs from run 1 in its checksums: first difference at step 0, forward, "
        "evil\\x1b[31m (output); 1 more module differs after it",
    )
    verdict, detail = judged(
        tmp_path / "b", {0: records(places=places)}, {0: records({1}, places=places)}
    )
    assert detail.endswith(f"step 0, forward, {long[:160]}... (output)")


def test_only_a_first_difference_has_a_location() -> None:
    assert location("run 2 differs from run 1 at line 3: 'a' != 'b'") is None
    assert location(
        "run 2 differs from run 1 in its checksums: run 1 recorded more, from step 1, forward, "
        "m (output)"
    ) is None  # fmt: skip
