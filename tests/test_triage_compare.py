"""Comparing the runs of one setting: each mode, the first difference, and errors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import torch

from knobregistry.registry import Verdict
from knobregistry.triage import CompareError, CompareMode, Run, judge, parse_compare


def make_run(
    root: Path,
    index: int,
    stdout: str | bytes = "",
    *,
    files: dict[str, bytes] | None = None,
    tensors: dict[str, Any] | None = None,
    stderr: str = "",
    returncode: int | None = 0,
    timed_out: bool = False,
) -> Run:
    folder = root / f"run-{index}"
    folder.mkdir(parents=True)
    out, err = root / f"run-{index}.stdout", root / f"run-{index}.stderr"
    out.write_bytes(stdout.encode() if isinstance(stdout, str) else stdout)
    err.write_text(stderr)
    for name, data in (files or {}).items():
        (folder / name).write_bytes(data)
    if tensors is not None:
        torch.save(tensors["value"], folder / tensors["name"])
    return Run(
        index=index,
        folder=folder,
        stdout=out,
        stderr=err,
        returncode=returncode,
        timed_out=timed_out,
    )


def test_parse_compare() -> None:
    assert parse_compare("stdout") == CompareMode("stdout")
    assert str(parse_compare("regex:^step \\d+ lm loss")) == "regex:^step \\d+ lm loss"
    assert parse_compare("file:out/log.txt") == CompareMode("file", "out/log.txt")
    assert parse_compare("tensors:params.pt") == CompareMode("tensors", "params.pt")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "regex:(",
            "--compare 'regex:(': the pattern does not compile: missing ), unterminated "
            "subpattern at position 0.",
        ),
        (
            "file:/tmp/out.txt",
            "--compare 'file:/tmp/out.txt': give a path relative to the run's working "
            "directory; each run has its own, so concurrent runs do not overwrite each "
            "other's file.",
        ),
        *(
            (
                text,
                f"--compare '{text}': the path leads out of the run's working directory ('..'); "
                "give one inside it, where the command writes its output.",
            )
            for text in ("file:../../../../etc/hostname", "tensors:out/../../t.pt", "file:..")
        ),
    ],
)
def test_bad_compare_modes(text: str, message: str) -> None:
    with pytest.raises(CompareError) as caught:
        parse_compare(text)
    assert str(caught.value) == message


def test_stdout_equal_and_different(tmp_path: Path) -> None:
    mode = parse_compare("stdout")
    same = [make_run(tmp_path / "a", i, "step 1 loss 2.5\nstep 2 loss 2.25\n") for i in (1, 2)]
    assert judge(mode, same, None) == (Verdict.REPRODUCIBLE, "")
    runs = [
        make_run(tmp_path / "b", 1, "step 1 loss 2.5\nstep 2 loss 2.25\n"),
        make_run(tmp_path / "b", 2, "step 1 loss 2.5\nstep 2 loss 2.25\n"),
        make_run(tmp_path / "b", 3, "step 1 loss 2.5\nstep 2 loss 2.2500002\n"),
    ]
    assert judge(mode, runs, None) == (
        Verdict.BREAKS_BITWISE,
        "run 3 differs from run 1 at line 2: 'step 2 loss 2.25' != 'step 2 loss 2.2500002'",
    )


def test_stdout_extra_lines_and_line_endings(tmp_path: Path) -> None:
    mode = parse_compare("stdout")
    longer = [make_run(tmp_path / "a", 1, "a\n"), make_run(tmp_path / "a", 2, "a\nb\n")]
    assert judge(mode, longer, None)[1] == "run 2 differs from run 1 at line 2: (no line) != 'b'"
    endings = [make_run(tmp_path / "b", 1, "a\n"), make_run(tmp_path / "b", 2, "a")]
    assert judge(mode, endings, None)[1] == (
        "run 2 differs from run 1 in line endings or the final newline"
    )


def test_regex_compares_only_matching_lines(tmp_path: Path) -> None:
    mode = parse_compare(r"regex:^step \d+ lm loss")
    runs = [
        make_run(tmp_path / "a", 1, "took 3.1 s\nstep 1 lm loss 4.0\n"),
        make_run(tmp_path / "a", 2, "took 2.9 s\nstep 1 lm loss 4.0\n"),
    ]
    assert judge(mode, runs, None) == (Verdict.REPRODUCIBLE, "")
    runs = [
        make_run(tmp_path / "b", 1, "took 3.1 s\nstep 1 lm loss 4.0\nstep 2 lm loss 3.5\n"),
        make_run(tmp_path / "b", 2, "took 2.9 s\nstep 1 lm loss 4.0\nstep 2 lm loss 3.4\n"),
    ]
    assert judge(mode, runs, None)[1] == (
        "run 2 differs from run 1 at line 3 of the output: 'step 2 lm loss 3.5' != "
        "'step 2 lm loss 3.4'"
    )


def test_a_pattern_that_matches_nothing_is_an_error(tmp_path: Path) -> None:
    runs = [make_run(tmp_path, i, "loss 1\n") for i in (1, 2)]
    assert judge(parse_compare("regex:lm loss"), runs, None) == (
        Verdict.ERROR,
        "no line of run 1's output matches 'lm loss'; check --compare against the command's "
        "output.",
    )


def test_files_text_and_binary(tmp_path: Path) -> None:
    text = parse_compare("file:out.txt")
    runs = [
        make_run(tmp_path / "a", 1, "x", files={"out.txt": b"a\nb\n"}),
        make_run(tmp_path / "a", 2, "y", files={"out.txt": b"a\nc\n"}),
    ]
    assert judge(text, runs, None)[1] == "run 2 differs from run 1 at line 2 of out.txt: 'b' != 'c'"
    binary = parse_compare("file:out.bin")
    runs = [
        make_run(tmp_path / "b", 1, files={"out.bin": b"\xff\x00\x01\x02"}),
        make_run(tmp_path / "b", 2, files={"out.bin": b"\xff\x00\x01\x03\x04"}),
    ]
    assert judge(binary, runs, None)[1] == (
        "run 2 differs from run 1 at byte 3 of out.bin (4 and 5 bytes)"
    )
    missing = [make_run(tmp_path / "c", 1), make_run(tmp_path / "c", 2)]
    assert judge(text, missing, None) == (
        Verdict.ERROR,
        "run 1 wrote no file out.txt in its working directory; the command must write it "
        "relative to the folder it runs in.",
    )


def _tensor_runs(root: Path, first: Any, second: Any) -> list[Run]:
    return [
        make_run(root, 1, tensors={"name": "t.pt", "value": first}),
        make_run(root, 2, tensors={"name": "t.pt", "value": second}),
    ]


def test_tensors_bit_for_bit(tmp_path: Path) -> None:
    mode = parse_compare("tensors:t.pt")
    base = torch.arange(12, dtype=torch.float32).reshape(3, 4) / 7
    nudged = base.clone()
    nudged[1, 2] = torch.nextafter(nudged[1, 2], torch.tensor(10.0))
    nudged[2, 3] += 0.5
    same = _tensor_runs(
        tmp_path / "a", {"w": base, "b": torch.ones(2)}, {"w": base.clone(), "b": torch.ones(2)}
    )
    assert judge(mode, same, None) == (Verdict.REPRODUCIBLE, "")
    runs = _tensor_runs(
        tmp_path / "b", {"b": torch.ones(2), "w": base}, {"b": torch.ones(2), "w": nudged}
    )
    verdict, detail = judge(mode, runs, None)
    assert verdict is Verdict.BREAKS_BITWISE
    a, b = base[1, 2].item(), nudged[1, 2].item()
    assert detail == (
        f"run 2 differs from run 1 at t.pt['w'][1, 2]: {a!r} != {b!r}; 2 of 12 elements "
        "differ, max abs diff 0.5"
    )
    plain = _tensor_runs(tmp_path / "c", base, nudged)
    assert judge(mode, plain, None)[1].startswith("run 2 differs from run 1 at t.pt[1, 2]: ")


def test_tensors_nan_and_negative_zero_are_compared_by_their_bits(tmp_path: Path) -> None:
    mode = parse_compare("tensors:t.pt")
    nan = torch.tensor([float("nan"), 1.0])
    assert judge(mode, _tensor_runs(tmp_path / "a", nan, nan.clone()), None)[0] is (
        Verdict.REPRODUCIBLE
    )
    zero, negative = torch.tensor([0.0]), torch.tensor([-0.0])
    assert judge(mode, _tensor_runs(tmp_path / "b", zero, negative), None)[1] == (
        "run 2 differs from run 1 at t.pt[0]: 0.0 != -0.0; 1 of 1 elements differ, max abs diff 0"
    )


@pytest.mark.parametrize(
    ("first", "second", "detail"),
    [
        (
            {"a": torch.ones(2)},
            {"b": torch.ones(2)},
            "different entries: missing t.pt['a']; extra t.pt['b']",
        ),
        (torch.ones(2), torch.ones(3), "t.pt: shape [2] != [3]"),
        (
            torch.ones(2),
            torch.ones(2, dtype=torch.float64),
            "t.pt: dtype torch.float32 != torch.float64",
        ),
        (
            torch.tensor([1, 5, 3]),
            torch.tensor([1, 2, 9]),
            "t.pt[1]: 5 != 2; 2 of 3 elements differ, max abs diff 6",
        ),
        (
            {"step": 3, "w": [torch.ones(1)]},
            {"step": 4, "w": [torch.zeros(1)]},
            "t.pt['step']: 3 != 4 (and 1 more tensor differs)",
        ),
    ],
)
def test_tensor_structure_differences(tmp_path: Path, first: Any, second: Any, detail: str) -> None:
    runs = _tensor_runs(tmp_path, first, second)
    assert judge(parse_compare("tensors:t.pt"), runs, None) == (
        Verdict.BREAKS_BITWISE,
        f"run 2 differs from run 1 at {detail}",
    )


def test_a_file_torch_cannot_load_is_an_error(tmp_path: Path) -> None:
    runs = [make_run(tmp_path, i, files={"t.pt": b"not a checkpoint"}) for i in (1, 2)]
    verdict, detail = judge(parse_compare("tensors:t.pt"), runs, None)
    assert verdict is Verdict.ERROR
    assert detail.startswith("run 1: torch cannot load t.pt (weights_only=True): ")


def test_a_failed_run_is_an_error_whatever_the_outputs(tmp_path: Path) -> None:
    stderr = "".join(f"line {i}\n" for i in range(1, 21)) + "\n  \nValueError: boom\n"
    runs = [
        make_run(tmp_path, 1, "same\n"),
        make_run(tmp_path, 2, "same\n", stderr=stderr, returncode=3),
    ]
    verdict, detail = judge(parse_compare("stdout"), runs, None)
    assert verdict is Verdict.ERROR
    tail = "".join(f"\n  line {i}" for i in range(10, 21))
    assert detail == f"run 2 exited with status 3; the end of its stderr:{tail}\n  ValueError: boom"


def test_timeouts_and_signals(tmp_path: Path) -> None:
    timed_out = [make_run(tmp_path / "a", 1, returncode=None, timed_out=True)]
    assert judge(parse_compare("stdout"), timed_out, 2.5) == (
        Verdict.ERROR,
        "run 1 timed out after 2.5 s and was stopped; its stderr is empty.",
    )
    killed = [make_run(tmp_path / "b", 1, stderr="Killed\n", returncode=-9)]
    assert judge(parse_compare("stdout"), killed, None) == (
        Verdict.ERROR,
        "run 1 was killed by signal 9; the end of its stderr:\n  Killed",
    )


OUT_OF_THE_RUN = (
    "leads out of its working directory (through a symlink), so it was not read; the command "
    "must write it inside the folder it runs in."
)


@pytest.mark.parametrize(
    ("mode", "link", "target"),
    [
        ("file:out.txt", "out.txt", "constant.txt"),  # the file itself
        ("file:logs/out.txt", "logs", "."),  # a folder on its way
        ("tensors:t.pt", "t.pt", "t.pt"),
        ("tensors:ckpt", "ckpt", "ckpt"),  # a folder of shards
    ],
)
def test_a_symlink_out_of_the_run_folder_is_an_error_not_a_read(
    tmp_path: Path, mode: str, link: str, target: str
) -> None:
    """A command that links its output to a constant file elsewhere is not reproducible
    for that: its output was never compared."""
    outside = tmp_path / "outside"
    (outside / "ckpt").mkdir(parents=True)
    (outside / "constant.txt").write_bytes(b"constant\n")
    torch.save({"w": torch.ones(2)}, outside / "t.pt")
    torch.save({"w": torch.ones(2)}, outside / "ckpt" / "rank_0.pt")
    runs = [make_run(tmp_path / "runs", index, f"random {index}") for index in (1, 2)]
    for run in runs:
        (run.folder / link).symlink_to(outside / target)
    shown = mode.partition(":")[2]
    assert judge(parse_compare(mode), runs, None) == (
        Verdict.ERROR,
        f"run 1: {shown} {OUT_OF_THE_RUN}",
    )


def test_a_symlink_inside_the_run_folder_is_followed(tmp_path: Path) -> None:
    runs = [make_run(tmp_path, index, files={"log.txt": b"same\n"}) for index in (1, 2)]
    for run in runs:
        (run.folder / "out.txt").symlink_to("log.txt")
    assert judge(parse_compare("file:out.txt"), runs, None) == (Verdict.REPRODUCIBLE, "")
